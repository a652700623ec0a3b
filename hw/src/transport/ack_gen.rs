//! `AckGen`: the responder's packet headers. Each request (an ACK, an RNR
//! NAK or a NAK for a QP, or one READ response packet from `RespGen`, with
//! its PSN and MSN, and the QP's DEST_QPN, PKEY and PATH) becomes one
//! transmit header (`wire::TX_HDR_FIELDS`, as `ReqGen` makes them for
//! `TxArb`): the request's opcode (ACKNOWLEDGE or READ RESPONSE
//! FIRST/MIDDLE/LAST/ONLY) and payload length, the BTH, the AETH (which
//! `TxBuild` leaves out of a MIDDLE by its opcode). The header goes on
//! through `RespTx`'s payload path to `TxArb` (source 2).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_ack` ([`AckReqIn`]) | in | `qpn` (14 bits, the BTH's source QP), `dest_qpn`, `pkey`, `path` (the QP context's PATH, a `layouts::ah` entry, as `ReqJobIn::path`), `psn`, `kind` and `code` (the AETH syndrome's kind, [`AETH_KIND_ACK`](crate::consts::AETH_KIND_ACK) / `_RNR_NAK` / `_NAK`, and its 5-bit value: credit code, RNR timer code or NAK code), `msn`, `opcode`, `plen` (the payload's bytes), `orig` (an ATOMIC ACKNOWLEDGE's original value). `ready` is a register. |
//! | `m_hdr` (`HdrOut<TX_HDR_BITS>`) | out | one header per request not merged (below), from a register: `opcode`, `destqp`, `pkey`, `psn`, `src_qp` = `qpn`, `aeth_syndrome` = kind << 5 \| code, `aeth_msn`, `atomicack` = `orig`, `payload_len` = `plen`, the path fields from [`PathHdr`]; AckReq, SE, MigReq, FECN, BECN and `ip_id` 0. |
//!
//! **Coalescing (the choice).** A request is merged away only while it
//! waits behind a stalled output: the pending request (`p`, taken and not
//! yet in the output register) is replaced by the next request in the input
//! order when both are ACKNOWLEDGEs with an ACK syndrome (not READ
//! responses, whose AETH is an ACK too) of the same QPN and the output
//! register cannot take `p` this cycle. The newer ACK's PSN and MSN cover
//! the older's (an ACK acknowledges every PSN up to its own; the responder
//! produces a QP's requests in PSN order), and it carries the newer path
//! and credit. RNR NAKs and NAKs are never merged, nor is an ACK merged
//! into a NAK. Why only this: one 14-bit compare between two registers (or a
//! register and the input), bounded, with no search; the header already
//! offered on `m_hdr` stays offered unchanged (docs/streams.md, rule 1), so
//! it is never replaced. The responder's own `ACK_PENDING` bit (`qps`)
//! coalesces the ACKs of packets without AckReq before they reach this
//! block; this merge only thins a run of ACKs that piles up while `TxArb`
//! serves other sources.
//!
//! **Structure.** Two request registers and the header register: `p` (the
//! pending request, the one a merge replaces), `k` (a skid register: the
//! request taken while `p` could not move) and `o` (the header offered).
//! `s_ack.ready` = `k` empty (a register). Per cycle: `o` takes the header
//! built from `p` when it is empty or taken (`PathHdr` over `p`'s path plus
//! fixed wiring); the next request (`k` if full, else the input's) moves
//! into `p` when `p` is empty, moves out, or merges; otherwise an input
//! request is held in `k`. `m_hdr.tready` steers only these registers: no
//! path from it to `s_ack.ready` or `m_hdr.tvalid`.
//!
//! **Latency and rate** (`tb/tests/ack_gen.rs`): a request taken in cycle t
//! is offered on `m_hdr` in cycle t + [`ACK_GEN_LATENCY`] when the output
//! does not stall; one request taken and one header out per cycle,
//! sustained. With the output stalled the block holds three requests (the
//! header in `o`, `p`, `k`), then `ready` falls, unless they merge: a run of
//! one QP's ACKs is taken at one per cycle and leaves as the header already
//! in `o` and one header for the rest.

use super::{PathHdr, PATH_BITS, REQ_QPN_BITS};
use crate::axis::HdrOut;
use crate::consts::*;
use crate::prim::Reg;
use crate::wire::TX_HDR_BITS;
use hdl_emit::TypeTag;
use rnic_contract::layouts::{qpc, qps};
use rust_hdl::prelude::*;

/// QPN bits (16K QPs, as the requester's).
pub const ACK_QPN_BITS: usize = REQ_QPN_BITS;
/// PSN bits.
pub const ACK_PSN_BITS: usize = qpc::RQ_PSN.width as usize;
/// MSN bits (`qps::MSN`).
pub const ACK_MSN_BITS: usize = qps::MSN.width as usize;
/// Bits of the AETH syndrome's kind and of its value.
pub const ACK_KIND_BITS: usize = 2;
pub const ACK_CODE_BITS: usize = AETH_KIND_LSB as usize;
const _: () = assert!(ACK_KIND_BITS + ACK_CODE_BITS == 7 && ACK_PSN_BITS == 24 && ACK_MSN_BITS == 24);
// an RNR NAK carries the QP's MIN_RNR_TIMER code as its value
const _: () = assert!(qpc::MIN_RNR_TIMER.width as usize == ACK_CODE_BITS);
/// Bits of a packet's payload length (at most the largest PMTU, 4096).
pub const ACK_PLEN_BITS: usize = 13;
/// Cycles from a request taken to its header offered (into `p`, into `o`).
pub const ACK_GEN_LATENCY: u64 = 2;

/// An ACK request.
#[derive(LogicInterface, Default)]
#[join = "AckReqOut"]
pub struct AckReqIn {
    pub qpn: Signal<In, Bits<ACK_QPN_BITS>>,
    /// The QP context's DEST_QPN, PKEY and PATH.
    pub dest_qpn: Signal<In, Bits<24>>,
    pub pkey: Signal<In, Bits<16>>,
    pub path: Signal<In, Bits<PATH_BITS>>,
    /// The BTH's PSN.
    pub psn: Signal<In, Bits<ACK_PSN_BITS>>,
    /// The AETH: syndrome kind (`AETH_KIND_*`), its value, the MSN.
    pub kind: Signal<In, Bits<ACK_KIND_BITS>>,
    pub code: Signal<In, Bits<ACK_CODE_BITS>>,
    pub msn: Signal<In, Bits<ACK_MSN_BITS>>,
    /// The BTH opcode: ACKNOWLEDGE, or a READ response's (from `RespGen`).
    pub opcode: Signal<In, Bits<8>>,
    /// The payload's length: a READ response's, 0 for an ACKNOWLEDGE.
    pub plen: Signal<In, Bits<ACK_PLEN_BITS>>,
    /// An ATOMIC ACKNOWLEDGE's AtomicAckETH (the original value; other
    /// opcodes carry no AtomicAckETH, so `TxBuild` ignores it).
    pub orig: Signal<In, Bits<64>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "AckReqIn"]
pub struct AckReqOut {
    pub qpn: Signal<Out, Bits<ACK_QPN_BITS>>,
    pub dest_qpn: Signal<Out, Bits<24>>,
    pub pkey: Signal<Out, Bits<16>>,
    pub path: Signal<Out, Bits<PATH_BITS>>,
    pub psn: Signal<Out, Bits<ACK_PSN_BITS>>,
    pub kind: Signal<Out, Bits<ACK_KIND_BITS>>,
    pub code: Signal<Out, Bits<ACK_CODE_BITS>>,
    pub msn: Signal<Out, Bits<ACK_MSN_BITS>>,
    pub opcode: Signal<Out, Bits<8>>,
    pub plen: Signal<Out, Bits<ACK_PLEN_BITS>>,
    pub orig: Signal<Out, Bits<64>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicBlock)]
pub struct AckGen {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_ack: AckReqIn,
    pub m_hdr: HdrOut<TX_HDR_BITS>,
    // ---- p: the pending request
    p_v: Reg<Bit>,
    p_qpn: Reg<Bits<ACK_QPN_BITS>>,
    p_dqpn: Reg<Bits<24>>,
    p_pkey: Reg<Bits<16>>,
    p_path: Reg<Bits<PATH_BITS>>,
    p_psn: Reg<Bits<ACK_PSN_BITS>>,
    p_kind: Reg<Bits<ACK_KIND_BITS>>,
    p_code: Reg<Bits<ACK_CODE_BITS>>,
    p_msn: Reg<Bits<ACK_MSN_BITS>>,
    p_opcode: Reg<Bits<8>>,
    p_plen: Reg<Bits<ACK_PLEN_BITS>>,
    p_orig: Reg<Bits<64>>,
    // ---- k: the skid register
    k_v: Reg<Bit>,
    k_qpn: Reg<Bits<ACK_QPN_BITS>>,
    k_dqpn: Reg<Bits<24>>,
    k_pkey: Reg<Bits<16>>,
    k_path: Reg<Bits<PATH_BITS>>,
    k_psn: Reg<Bits<ACK_PSN_BITS>>,
    k_kind: Reg<Bits<ACK_KIND_BITS>>,
    k_code: Reg<Bits<ACK_CODE_BITS>>,
    k_msn: Reg<Bits<ACK_MSN_BITS>>,
    k_opcode: Reg<Bits<8>>,
    k_plen: Reg<Bits<ACK_PLEN_BITS>>,
    k_orig: Reg<Bits<64>>,
    // ---- o: the header offered
    o_v: Reg<Bit>,
    o_hdr: Reg<Bits<TX_HDR_BITS>>,
    // ---- constants, child, locals
    kind_ack: Constant<Bits<ACK_KIND_BITS>>,
    opcode: Constant<Bits<8>>,
    path_hdr: PathHdr,
    take: Signal<Local, Bit>,
    o_free: Signal<Local, Bit>,
    nx_v: Signal<Local, Bit>,
    nx_qpn: Signal<Local, Bits<ACK_QPN_BITS>>,
    nx_dqpn: Signal<Local, Bits<24>>,
    nx_pkey: Signal<Local, Bits<16>>,
    nx_path: Signal<Local, Bits<PATH_BITS>>,
    nx_psn: Signal<Local, Bits<ACK_PSN_BITS>>,
    nx_kind: Signal<Local, Bits<ACK_KIND_BITS>>,
    nx_code: Signal<Local, Bits<ACK_CODE_BITS>>,
    nx_msn: Signal<Local, Bits<ACK_MSN_BITS>>,
    nx_opcode: Signal<Local, Bits<8>>,
    nx_plen: Signal<Local, Bits<ACK_PLEN_BITS>>,
    nx_orig: Signal<Local, Bits<64>>,
    p_ack: Signal<Local, Bit>,
    nx_ack: Signal<Local, Bit>,
    same_qp: Signal<Local, Bit>,
    merge: Signal<Local, Bit>,
    p_load: Signal<Local, Bit>,
    syndrome: Signal<Local, Bits<8>>,
    hdr: Signal<Local, Bits<TX_HDR_BITS>>,
    kind: TypeTag<Self>,
}

impl Default for AckGen {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_ack: Default::default(),
            m_hdr: Default::default(),
            p_v: Default::default(),
            p_qpn: Default::default(),
            p_dqpn: Default::default(),
            p_pkey: Default::default(),
            p_path: Default::default(),
            p_psn: Default::default(),
            p_kind: Default::default(),
            p_code: Default::default(),
            p_msn: Default::default(),
            p_opcode: Default::default(),
            p_plen: Default::default(),
            p_orig: Default::default(),
            k_v: Default::default(),
            k_qpn: Default::default(),
            k_dqpn: Default::default(),
            k_pkey: Default::default(),
            k_path: Default::default(),
            k_psn: Default::default(),
            k_kind: Default::default(),
            k_code: Default::default(),
            k_msn: Default::default(),
            k_opcode: Default::default(),
            k_plen: Default::default(),
            k_orig: Default::default(),
            o_v: Default::default(),
            o_hdr: Default::default(),
            kind_ack: Constant::new(AETH_KIND_ACK.into()),
            opcode: Constant::new(BTH_RC_ACKNOWLEDGE.into()),
            path_hdr: Default::default(),
            take: Default::default(),
            o_free: Default::default(),
            nx_v: Default::default(),
            nx_qpn: Default::default(),
            nx_dqpn: Default::default(),
            nx_pkey: Default::default(),
            nx_path: Default::default(),
            nx_psn: Default::default(),
            nx_kind: Default::default(),
            nx_code: Default::default(),
            nx_msn: Default::default(),
            nx_opcode: Default::default(),
            nx_plen: Default::default(),
            nx_orig: Default::default(),
            p_ack: Default::default(),
            nx_ack: Default::default(),
            same_qp: Default::default(),
            merge: Default::default(),
            p_load: Default::default(),
            syndrome: Default::default(),
            hdr: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for AckGen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, p_v, p_qpn, p_dqpn, p_pkey, p_path, p_psn, p_kind, p_code, p_msn, p_opcode, p_plen, p_orig,
            k_v, k_qpn, k_dqpn, k_pkey, k_path, k_psn, k_kind, k_code, k_msn, k_opcode, k_plen, k_orig, o_v, o_hdr
        );

        // ---- the next request in input order after p: k's, else the input's
        self.s_ack.ready.next = !self.k_v.q.val();
        self.take.next = self.s_ack.valid.val() & !self.k_v.q.val();
        self.nx_v.next = self.k_v.q.val() | self.take.val();
        self.nx_qpn.next = self.s_ack.qpn.val();
        self.nx_dqpn.next = self.s_ack.dest_qpn.val();
        self.nx_pkey.next = self.s_ack.pkey.val();
        self.nx_path.next = self.s_ack.path.val();
        self.nx_psn.next = self.s_ack.psn.val();
        self.nx_kind.next = self.s_ack.kind.val();
        self.nx_code.next = self.s_ack.code.val();
        self.nx_msn.next = self.s_ack.msn.val();
        self.nx_opcode.next = self.s_ack.opcode.val();
        self.nx_plen.next = self.s_ack.plen.val();
        self.nx_orig.next = self.s_ack.orig.val();
        if self.k_v.q.val() {
            self.nx_qpn.next = self.k_qpn.q.val();
            self.nx_dqpn.next = self.k_dqpn.q.val();
            self.nx_pkey.next = self.k_pkey.q.val();
            self.nx_path.next = self.k_path.q.val();
            self.nx_psn.next = self.k_psn.q.val();
            self.nx_kind.next = self.k_kind.q.val();
            self.nx_code.next = self.k_code.q.val();
            self.nx_msn.next = self.k_msn.q.val();
            self.nx_opcode.next = self.k_opcode.q.val();
            self.nx_plen.next = self.k_plen.q.val();
            self.nx_orig.next = self.k_orig.q.val();
        }

        // ---- p into the output register, or replaced by a merge
        self.o_free.next = !self.o_v.q.val() | self.m_hdr.tready.val();
        // only ACKNOWLEDGEs with an ACK syndrome merge (a READ response's AETH is an ACK too)
        self.p_ack.next = (self.p_kind.q.val() == self.kind_ack.val()) & (self.p_opcode.q.val() == self.opcode.val());
        self.nx_ack.next = (self.nx_kind.val() == self.kind_ack.val()) & (self.nx_opcode.val() == self.opcode.val());
        self.same_qp.next = self.nx_qpn.val() == self.p_qpn.q.val();
        self.merge.next = self.p_v.q.val()
            & !self.o_free.val()
            & self.nx_v.val()
            & self.same_qp.val()
            & self.p_ack.val()
            & self.nx_ack.val();
        self.p_load.next = self.nx_v.val() & (!self.p_v.q.val() | self.o_free.val() | self.merge.val());
        if self.p_load.val() {
            self.p_v.d.next = true;
            self.p_qpn.d.next = self.nx_qpn.val();
            self.p_dqpn.d.next = self.nx_dqpn.val();
            self.p_pkey.d.next = self.nx_pkey.val();
            self.p_path.d.next = self.nx_path.val();
            self.p_psn.d.next = self.nx_psn.val();
            self.p_kind.d.next = self.nx_kind.val();
            self.p_code.d.next = self.nx_code.val();
            self.p_msn.d.next = self.nx_msn.val();
            self.p_opcode.d.next = self.nx_opcode.val();
            self.p_plen.d.next = self.nx_plen.val();
            self.p_orig.d.next = self.nx_orig.val();
        } else if self.o_free.val() {
            self.p_v.d.next = false;
        }
        // k: emptied when its request moves into p; filled by an input request that cannot
        if self.p_load.val() {
            self.k_v.d.next = false;
        } else if self.take.val() {
            self.k_v.d.next = true;
            self.k_qpn.d.next = self.s_ack.qpn.val();
            self.k_dqpn.d.next = self.s_ack.dest_qpn.val();
            self.k_pkey.d.next = self.s_ack.pkey.val();
            self.k_path.d.next = self.s_ack.path.val();
            self.k_psn.d.next = self.s_ack.psn.val();
            self.k_kind.d.next = self.s_ack.kind.val();
            self.k_code.d.next = self.s_ack.code.val();
            self.k_msn.d.next = self.s_ack.msn.val();
            self.k_opcode.d.next = self.s_ack.opcode.val();
            self.k_plen.d.next = self.s_ack.plen.val();
            self.k_orig.d.next = self.s_ack.orig.val();
        }

        // ---- the header of p
        self.path_hdr.path.next = self.p_path.q.val();
        self.syndrome.next = (bit_cast::<8, ACK_KIND_BITS>(self.p_kind.q.val()) << AETH_KIND_LSB)
            | bit_cast::<8, ACK_CODE_BITS>(self.p_code.q.val());
        self.hdr.next = (bit_cast::<TX_HDR_BITS, 48>(self.path_hdr.eth_dst.val()) << TXF_ETH_DST)
            | (bit_cast::<TX_HDR_BITS, 48>(self.path_hdr.eth_src.val()) << TXF_ETH_SRC)
            | (bit_cast::<TX_HDR_BITS, 1>(self.path_hdr.vlan.val().into()) << TXF_VLAN)
            | (bit_cast::<TX_HDR_BITS, 16>(self.path_hdr.vlan_tci.val()) << TXF_VLAN_TCI)
            | (bit_cast::<TX_HDR_BITS, 1>(self.path_hdr.v6.val().into()) << TXF_V6)
            | (bit_cast::<TX_HDR_BITS, 6>(self.path_hdr.dscp.val()) << TXF_DSCP)
            | (bit_cast::<TX_HDR_BITS, 2>(self.path_hdr.ecn.val()) << TXF_ECN)
            | (bit_cast::<TX_HDR_BITS, 8>(self.path_hdr.ttl.val()) << TXF_TTL)
            | (bit_cast::<TX_HDR_BITS, 20>(self.path_hdr.flow_label.val()) << TXF_FLOW_LABEL)
            | (bit_cast::<TX_HDR_BITS, 128>(self.path_hdr.ip_src.val()) << TXF_IP_SRC)
            | (bit_cast::<TX_HDR_BITS, 128>(self.path_hdr.ip_dst.val()) << TXF_IP_DST)
            | (bit_cast::<TX_HDR_BITS, 8>(self.p_opcode.q.val()) << TXF_OPCODE)
            | (bit_cast::<TX_HDR_BITS, 16>(self.p_pkey.q.val()) << TXF_PKEY)
            | (bit_cast::<TX_HDR_BITS, 24>(self.p_dqpn.q.val()) << TXF_DESTQP)
            | (bit_cast::<TX_HDR_BITS, ACK_PSN_BITS>(self.p_psn.q.val()) << TXF_PSN)
            | (bit_cast::<TX_HDR_BITS, ACK_QPN_BITS>(self.p_qpn.q.val()) << TXF_SRC_QP)
            | (bit_cast::<TX_HDR_BITS, 8>(self.syndrome.val()) << TXF_AETH_SYNDROME)
            | (bit_cast::<TX_HDR_BITS, ACK_MSN_BITS>(self.p_msn.q.val()) << TXF_AETH_MSN)
            | (bit_cast::<TX_HDR_BITS, 64>(self.p_orig.q.val()) << TXF_ATOMICACK)
            | (bit_cast::<TX_HDR_BITS, ACK_PLEN_BITS>(self.p_plen.q.val()) << TXF_PAYLOAD_LEN);
        if self.p_v.q.val() & self.o_free.val() {
            self.o_v.d.next = true;
            self.o_hdr.d.next = self.hdr.val();
        } else if self.m_hdr.tready.val() {
            self.o_v.d.next = false;
        }
        self.m_hdr.tdata.next = self.o_hdr.q.val();
        self.m_hdr.tvalid.next = self.o_v.q.val();

        if self.reset.val() {
            self.p_v.d.next = false;
            self.k_v.d.next = false;
            self.o_v.d.next = false;
        }
    }
}
