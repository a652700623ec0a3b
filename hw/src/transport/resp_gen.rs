//! `RespGen`: the responder's transmit requests cut into packets. The
//! responder answers a QP's requests in PSN order, so its ACKs, NAKs and
//! READ responses leave through one ordered stream: `RespExec` (through
//! `AckHold`) offers one request per answered packet; an ACK or NAK is one
//! packet, a READ is `max(1, ceil(len / PMTU))` READ RESPONSE packets
//! (FIRST, MIDDLE..., LAST, or ONLY) with PSNs from the request's, each
//! with a fragment request for its payload. Headers go on to `AckGen` (the
//! header builder), fragments to the payload path (`ReqPayload`, whose
//! translation re-checks the key, PD and bounds, and `PayloadGather`).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_req` ([`RespReqIn`]) | in | an ACK/NAK (`read` 0: `qpn`, `dest_qpn`, `pkey`, `path`, `psn`, `kind`, `code`, `msn`), a READ to answer (`read` 1, with the RETH's `va`, `len`, `rkey`, the QP's `pd` and `pmtu` code; `psn` the request's, `kind`/`code` the AETH's ACK, `msn` the MSN after the READ) or an executed atomic's ACK (`atomic` 1, the ACK's fields and the original value in `va`). `ready` is a register (the skid register empty). |
//! | `m_ack` (`AckReqOut`) | out | one header request per packet, from registers: the request's fields with `opcode` (ACKNOWLEDGE, ATOMIC ACKNOWLEDGE, or READ RESPONSE FIRST/MIDDLE/LAST/ONLY), `psn` (+1 per packet), `plen` (the packet's payload bytes: the PMTU, the rest on the last) and `orig` (an atomic's original value) |
//! | `m_frag` (`MrReqOut`) | out | per READ response packet with payload, beside its header request: `key` = rkey, `pd`, `va` (the RETH's + the bytes before the packet), `len` = `plen`, `access` remote read, `id` = bit [`REQ_FRAG_LAST`](crate::consts::REQ_FRAG_LAST) (one fragment per packet) and the PSN mod 2^7; from registers |
//!
//! **Structure.** A skid register `k` behind `s_req` and the output
//! registers (`o`: the header request, `f`: the fragment), which also hold
//! the cut's state (the next packet's VA, the bytes after the current
//! packet, the PMTU in bytes, more packets to come). A packet leaves when
//! both of its outputs were taken (each is cleared when taken, so they are
//! independent); then the output registers take the request's next packet
//! in place, or the next request (from `k`, else the input). `m_ack.ready`
//! and `m_frag.ready` steer only registers: no path to `s_req.ready` or to
//! a `valid`.
//!
//! **Latency and rate** (`tb/tests/resp_gen.rs`): a request taken in cycle
//! t offers its first packet in cycle t + [`RESP_GEN_LATENCY`]; one packet
//! per cycle while both outputs take, so an ACK per cycle and a READ of n
//! packets in n cycles.

use super::{AckReqOut, ACK_CODE_BITS, ACK_KIND_BITS, ACK_MSN_BITS, ACK_PLEN_BITS, ACK_PSN_BITS, ACK_QPN_BITS};
use super::{PATH_BITS, REQ_FRAG_TAG_BITS};
use crate::consts::*;
use crate::mr::{MrReqOut, MR_ID_BITS};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Cycles from a request taken to its first packet offered.
pub const RESP_GEN_LATENCY: u64 = 1;

/// A request to answer: an ACK/NAK, or a READ.
#[derive(LogicInterface, Default)]
#[join = "RespReqOut"]
pub struct RespReqIn {
    pub qpn: Signal<In, Bits<ACK_QPN_BITS>>,
    pub dest_qpn: Signal<In, Bits<24>>,
    pub pkey: Signal<In, Bits<16>>,
    pub path: Signal<In, Bits<PATH_BITS>>,
    pub psn: Signal<In, Bits<ACK_PSN_BITS>>,
    pub kind: Signal<In, Bits<ACK_KIND_BITS>>,
    pub code: Signal<In, Bits<ACK_CODE_BITS>>,
    pub msn: Signal<In, Bits<ACK_MSN_BITS>>,
    /// A READ to answer with `len` bytes at `va` (`rkey`, the QP's `pd`, its PMTU code).
    pub read: Signal<In, Bit>,
    /// An executed atomic: one ATOMIC ACKNOWLEDGE whose AtomicAckETH is
    /// `va` (the original value: the field a READ uses for its address).
    pub atomic: Signal<In, Bit>,
    pub va: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<32>>,
    pub rkey: Signal<In, Bits<32>>,
    pub pd: Signal<In, Bits<24>>,
    pub pmtu: Signal<In, Bits<3>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "RespReqIn"]
pub struct RespReqOut {
    pub qpn: Signal<Out, Bits<ACK_QPN_BITS>>,
    pub dest_qpn: Signal<Out, Bits<24>>,
    pub pkey: Signal<Out, Bits<16>>,
    pub path: Signal<Out, Bits<PATH_BITS>>,
    pub psn: Signal<Out, Bits<ACK_PSN_BITS>>,
    pub kind: Signal<Out, Bits<ACK_KIND_BITS>>,
    pub code: Signal<Out, Bits<ACK_CODE_BITS>>,
    pub msn: Signal<Out, Bits<ACK_MSN_BITS>>,
    pub read: Signal<Out, Bit>,
    pub atomic: Signal<Out, Bit>,
    pub va: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<32>>,
    pub rkey: Signal<Out, Bits<32>>,
    pub pd: Signal<Out, Bits<24>>,
    pub pmtu: Signal<Out, Bits<3>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct RespGen {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_req: RespReqIn,
    pub m_ack: AckReqOut,
    pub m_frag: MrReqOut,
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
    k_read: Reg<Bit>,
    k_atomic: Reg<Bit>,
    k_va: Reg<Bits<64>>,
    k_len: Reg<Bits<32>>,
    k_rkey: Reg<Bits<32>>,
    k_pd: Reg<Bits<24>>,
    k_pmtu: Reg<Bits<3>>,
    // ---- o: the header request offered; f: its fragment; the cut's state
    o_v: Reg<Bit>,
    o_qpn: Reg<Bits<ACK_QPN_BITS>>,
    o_dqpn: Reg<Bits<24>>,
    o_pkey: Reg<Bits<16>>,
    o_path: Reg<Bits<PATH_BITS>>,
    o_psn: Reg<Bits<ACK_PSN_BITS>>,
    o_kind: Reg<Bits<ACK_KIND_BITS>>,
    o_code: Reg<Bits<ACK_CODE_BITS>>,
    o_msn: Reg<Bits<ACK_MSN_BITS>>,
    o_opcode: Reg<Bits<8>>,
    o_plen: Reg<Bits<ACK_PLEN_BITS>>,
    f_v: Reg<Bit>,
    f_key: Reg<Bits<32>>,
    f_pd: Reg<Bits<24>>,
    f_va: Reg<Bits<64>>,
    f_id: Reg<Bits<MR_ID_BITS>>,
    /// More packets of the request after the one offered.
    c_more: Reg<Bit>,
    /// The next packet's VA, the bytes after the packet offered, the PMTU in bytes.
    c_va: Reg<Bits<64>>,
    c_rest: Reg<Bits<32>>,
    c_pmtu: Reg<Bits<ACK_PLEN_BITS>>,
    // ---- locals
    take: Signal<Local, Bit>,
    gone: Signal<Local, Bit>,
    next_pkt: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    nx_v: Signal<Local, Bit>,
    nx_qpn: Signal<Local, Bits<ACK_QPN_BITS>>,
    nx_dqpn: Signal<Local, Bits<24>>,
    nx_pkey: Signal<Local, Bits<16>>,
    nx_path: Signal<Local, Bits<PATH_BITS>>,
    nx_psn: Signal<Local, Bits<ACK_PSN_BITS>>,
    nx_kind: Signal<Local, Bits<ACK_KIND_BITS>>,
    nx_code: Signal<Local, Bits<ACK_CODE_BITS>>,
    nx_msn: Signal<Local, Bits<ACK_MSN_BITS>>,
    nx_read: Signal<Local, Bit>,
    nx_atomic: Signal<Local, Bit>,
    nx_va: Signal<Local, Bits<64>>,
    nx_len: Signal<Local, Bits<32>>,
    nx_rkey: Signal<Local, Bits<32>>,
    nx_pd: Signal<Local, Bits<24>>,
    nx_pmtu: Signal<Local, Bits<3>>,
    nx_pmtu_b: Signal<Local, Bits<ACK_PLEN_BITS>>,
    /// The new request's length within one PMTU (per PMTU code, then selected).
    nx_fits: Signal<Local, Bit>,
    nx_past: Signal<Local, Bits<32>>,
    /// The rest within one PMTU.
    c_fits: Signal<Local, Bit>,
    c_past: Signal<Local, Bits<32>>,
    kind: TypeTag<Self>,
}

impl Logic for RespGen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, k_v, k_qpn, k_dqpn, k_pkey, k_path, k_psn, k_kind, k_code, k_msn, k_read, k_atomic, k_va,
            k_len, k_rkey, k_pd, k_pmtu, o_v, o_qpn, o_dqpn, o_pkey, o_path, o_psn, o_kind, o_code, o_msn, o_opcode,
            o_plen, f_v, f_key, f_pd, f_va, f_id, c_more, c_va, c_rest, c_pmtu
        );

        // ---- the next request in input order: k's, else the input's
        self.s_req.ready.next = !self.k_v.q.val();
        self.take.next = self.s_req.valid.val() & !self.k_v.q.val();
        self.nx_v.next = self.k_v.q.val() | self.take.val();
        self.nx_qpn.next = self.s_req.qpn.val();
        self.nx_dqpn.next = self.s_req.dest_qpn.val();
        self.nx_pkey.next = self.s_req.pkey.val();
        self.nx_path.next = self.s_req.path.val();
        self.nx_psn.next = self.s_req.psn.val();
        self.nx_kind.next = self.s_req.kind.val();
        self.nx_code.next = self.s_req.code.val();
        self.nx_msn.next = self.s_req.msn.val();
        self.nx_read.next = self.s_req.read.val();
        self.nx_atomic.next = self.s_req.atomic.val();
        self.nx_va.next = self.s_req.va.val();
        self.nx_len.next = self.s_req.len.val();
        self.nx_rkey.next = self.s_req.rkey.val();
        self.nx_pd.next = self.s_req.pd.val();
        self.nx_pmtu.next = self.s_req.pmtu.val();
        if self.k_v.q.val() {
            self.nx_qpn.next = self.k_qpn.q.val();
            self.nx_dqpn.next = self.k_dqpn.q.val();
            self.nx_pkey.next = self.k_pkey.q.val();
            self.nx_path.next = self.k_path.q.val();
            self.nx_psn.next = self.k_psn.q.val();
            self.nx_kind.next = self.k_kind.q.val();
            self.nx_code.next = self.k_code.q.val();
            self.nx_msn.next = self.k_msn.q.val();
            self.nx_read.next = self.k_read.q.val();
            self.nx_atomic.next = self.k_atomic.q.val();
            self.nx_va.next = self.k_va.q.val();
            self.nx_len.next = self.k_len.q.val();
            self.nx_rkey.next = self.k_rkey.q.val();
            self.nx_pd.next = self.k_pd.q.val();
            self.nx_pmtu.next = self.k_pmtu.q.val();
        }
        // the PMTU's bytes, and the length against it: one fixed compare per PMTU code
        self.nx_pmtu_b.next = 256.into();
        self.nx_fits.next = !(self.nx_len.val() >> 8).any() | (self.nx_len.val() == 256);
        if self.nx_pmtu.val() == MTU_512 {
            self.nx_pmtu_b.next = 512.into();
            self.nx_fits.next = !(self.nx_len.val() >> 9).any() | (self.nx_len.val() == 512);
        } else if self.nx_pmtu.val() == MTU_1024 {
            self.nx_pmtu_b.next = 1024.into();
            self.nx_fits.next = !(self.nx_len.val() >> 10).any() | (self.nx_len.val() == 1024);
        } else if self.nx_pmtu.val() == MTU_2048 {
            self.nx_pmtu_b.next = 2048.into();
            self.nx_fits.next = !(self.nx_len.val() >> 11).any() | (self.nx_len.val() == 2048);
        } else if self.nx_pmtu.val() == MTU_4096 {
            self.nx_pmtu_b.next = 4096.into();
            self.nx_fits.next = !(self.nx_len.val() >> 12).any() | (self.nx_len.val() == 4096);
        }
        self.nx_past.next = self.nx_len.val() - bit_cast::<32, ACK_PLEN_BITS>(self.nx_pmtu_b.val());
        self.c_fits.next = self.c_rest.q.val() <= bit_cast::<32, ACK_PLEN_BITS>(self.c_pmtu.q.val());
        self.c_past.next = self.c_rest.q.val() - bit_cast::<32, ACK_PLEN_BITS>(self.c_pmtu.q.val());

        // ---- the packet offered leaves once both of its outputs were taken
        self.gone.next = (!self.o_v.q.val() | self.m_ack.ready.val()) & (!self.f_v.q.val() | self.m_frag.ready.val());
        if self.m_ack.ready.val() {
            self.o_v.d.next = false;
        }
        if self.m_frag.ready.val() {
            self.f_v.d.next = false;
        }
        self.next_pkt.next = self.gone.val() & self.c_more.q.val();
        self.load.next = self.gone.val() & !self.c_more.q.val() & self.nx_v.val();
        if self.next_pkt.val() {
            // the request's next packet, in place
            self.o_v.d.next = true;
            self.o_psn.d.next = self.o_psn.q.val() + 1;
            self.o_opcode.d.next = BTH_RC_READ_RESP_MIDDLE.into();
            self.o_plen.d.next = self.c_pmtu.q.val();
            self.f_v.d.next = true;
            self.f_va.d.next = self.c_va.q.val();
            self.f_id.d.next =
                bit_cast::<MR_ID_BITS, REQ_FRAG_TAG_BITS>((self.o_psn.q.val() + 1).get_bits::<REQ_FRAG_TAG_BITS>(0))
                    .replace_bit(REQ_FRAG_LAST, true);
            self.c_va.d.next = self.c_va.q.val() + bit_cast::<64, ACK_PLEN_BITS>(self.c_pmtu.q.val());
            self.c_rest.d.next = self.c_past.val();
            if self.c_fits.val() {
                self.o_opcode.d.next = BTH_RC_READ_RESP_LAST.into();
                self.o_plen.d.next = self.c_rest.q.val().get_bits::<ACK_PLEN_BITS>(0);
                self.c_more.d.next = false;
            }
        } else if self.load.val() {
            // the next request's first (or only) packet
            self.o_v.d.next = true;
            self.o_qpn.d.next = self.nx_qpn.val();
            self.o_dqpn.d.next = self.nx_dqpn.val();
            self.o_pkey.d.next = self.nx_pkey.val();
            self.o_path.d.next = self.nx_path.val();
            self.o_psn.d.next = self.nx_psn.val();
            self.o_kind.d.next = self.nx_kind.val();
            self.o_code.d.next = self.nx_code.val();
            self.o_msn.d.next = self.nx_msn.val();
            self.o_opcode.d.next = BTH_RC_ACKNOWLEDGE.into();
            self.o_plen.d.next = 0.into();
            self.f_v.d.next = false;
            self.f_key.d.next = self.nx_rkey.val();
            self.f_pd.d.next = self.nx_pd.val();
            self.f_va.d.next = self.nx_va.val();
            self.f_id.d.next =
                bit_cast::<MR_ID_BITS, REQ_FRAG_TAG_BITS>(self.nx_psn.val().get_bits::<REQ_FRAG_TAG_BITS>(0))
                    .replace_bit(REQ_FRAG_LAST, true);
            self.c_more.d.next = false;
            self.c_pmtu.d.next = self.nx_pmtu_b.val();
            self.c_va.d.next = self.nx_va.val() + bit_cast::<64, ACK_PLEN_BITS>(self.nx_pmtu_b.val());
            self.c_rest.d.next = self.nx_past.val();
            if self.nx_atomic.val() {
                self.o_opcode.d.next = BTH_RC_ATOMIC_ACK.into();
            }
            if self.nx_read.val() {
                self.f_v.d.next = self.nx_len.val().any();
                if self.nx_fits.val() {
                    self.o_opcode.d.next = BTH_RC_READ_RESP_ONLY.into();
                    self.o_plen.d.next = self.nx_len.val().get_bits::<ACK_PLEN_BITS>(0);
                } else {
                    self.o_opcode.d.next = BTH_RC_READ_RESP_FIRST.into();
                    self.o_plen.d.next = self.nx_pmtu_b.val();
                    self.c_more.d.next = true;
                }
            }
        }
        // k: emptied when its request is loaded; filled by an input request that is not
        if self.load.val() {
            self.k_v.d.next = false;
        } else if self.take.val() {
            self.k_v.d.next = true;
            self.k_qpn.d.next = self.s_req.qpn.val();
            self.k_dqpn.d.next = self.s_req.dest_qpn.val();
            self.k_pkey.d.next = self.s_req.pkey.val();
            self.k_path.d.next = self.s_req.path.val();
            self.k_psn.d.next = self.s_req.psn.val();
            self.k_kind.d.next = self.s_req.kind.val();
            self.k_code.d.next = self.s_req.code.val();
            self.k_msn.d.next = self.s_req.msn.val();
            self.k_read.d.next = self.s_req.read.val();
            self.k_atomic.d.next = self.s_req.atomic.val();
            self.k_va.d.next = self.s_req.va.val();
            self.k_len.d.next = self.s_req.len.val();
            self.k_rkey.d.next = self.s_req.rkey.val();
            self.k_pd.d.next = self.s_req.pd.val();
            self.k_pmtu.d.next = self.s_req.pmtu.val();
        }

        // ---- outputs: registers
        self.m_ack.qpn.next = self.o_qpn.q.val();
        self.m_ack.dest_qpn.next = self.o_dqpn.q.val();
        self.m_ack.pkey.next = self.o_pkey.q.val();
        self.m_ack.path.next = self.o_path.q.val();
        self.m_ack.psn.next = self.o_psn.q.val();
        self.m_ack.kind.next = self.o_kind.q.val();
        self.m_ack.code.next = self.o_code.q.val();
        self.m_ack.msn.next = self.o_msn.q.val();
        self.m_ack.opcode.next = self.o_opcode.q.val();
        self.m_ack.plen.next = self.o_plen.q.val();
        // an atomic's original value (the fragment's VA register holds it)
        self.m_ack.orig.next = self.f_va.q.val();
        self.m_ack.valid.next = self.o_v.q.val();
        self.m_frag.key.next = self.f_key.q.val();
        self.m_frag.pd.next = self.f_pd.q.val();
        self.m_frag.va.next = self.f_va.q.val();
        self.m_frag.len.next = bit_cast::<32, ACK_PLEN_BITS>(self.o_plen.q.val());
        self.m_frag.access.next = ACC_REMOTE_READ.into();
        self.m_frag.id.next = self.f_id.q.val();
        self.m_frag.valid.next = self.f_v.q.val();

        if self.reset.val() {
            self.k_v.d.next = false;
            self.o_v.d.next = false;
            self.f_v.d.next = false;
            self.c_more.d.next = false;
        }
    }
}
