//! `RespCheck`: the responder's per-packet decision. For one request packet
//! (released by `RxHold`, ICRC good) with its QP's context (`qpc`) and
//! transport state (`qps`), it decides checks 1 to 3 and the context-only
//! parts of check 4 of the "Responder" section of docs/transport.md, in the
//! model's order (`rnic_proto::rc::Responder`, the oracle):
//!
//! 1. PSN against ePSN (24-bit serial compare): equal, behind (a duplicate,
//!    classified: SEND/WRITE re-ACKed with ePSN - 1, READ/atomic need the
//!    replay lookup), ahead (one NAK PSN sequence error per episode, then
//!    silent drops);
//! 2. opcode sequence against the message in progress;
//! 3. opcode supported (not SEND with invalidate), payload length against
//!    the PMTU;
//! 4. per operation: RNR NAK when a SEND FIRST/ONLY or a WRITE with
//!    immediate finds no posted RECV (`qpc.RQ_PROD` against the responder's
//!    RQ index); RETH DMA length <= 2^31; a READ/atomic needs
//!    `MAX_DEST_RD_ATOMIC` > 0; an atomic's VA 8-byte aligned; WRITE packets
//!    adding up to the DMA length; the MSN; AckReq -> ACK now, else pending.
//!
//! An RQ flush record (`RXF_RQ_FLUSH`, made on chip for a QP in error and
//! admitted only then: docs/transport_blocks.md, "The receive queue's
//! flush") is no request: no check above, no ACK; when the QP's next RECV
//! (`RECV_WQE`) differs from `RQ_PROD` its verdict is `RESP_EXEC_FLUSH`
//! (`recv_new`, `recv_index` = RECV_WQE, `cqe_len` 0) and the new state has
//! RECV_WQE = RQ_PROD, RECV_VALID and RECV_PLACED clear; else
//! `RESP_FLUSH_NONE` (no payload to drop, not a silent drop's count).
//!
//! Ports:
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_pkt.hdr` | in | the received header (`wire::RX_HDR_FIELDS` layout) |
//! | `s_pkt.qpc` | in | the QP's `qpc` entry (1024 bits): PMTU, MIN_RNR_TIMER, MAX_DEST_RD_ATOMIC, RQ_PSN, RQ_PROD, RQ_CONS |
//! | `s_pkt.qps` | in | the QP's `qps` entry (512 bits); only `RESPONDER_BYTES` are read |
//! | `s_pkt.valid/ready` | in/out | one packet per handshake; `ready` is a register |
//! | `m_dec` | out | one decision record per packet, in order, every field from a register ([`RespDecOut`]) |
//!
//! The record: `verdict` (`RESP_*` in `consts.rs`), the ACK/NAK to send now
//! (`ack`, `syndrome`, `aeth_psn`, `aeth_msn`; for a READ or atomic
//! `aeth_msn` is the MSN its response carries), `msn_before` (the MSN a
//! NAK decided later carries), the key check the executing stage must do
//! (`key_check`, `key_access`, `rkey`, `va`, `len`: for WRITE, READ, atomic;
//! a WRITE MIDDLE/LAST gets the VA of its first byte and the rkey with
//! `key_check` low, `len` then being the payload length), the RECV WQE work
//! (`recv_new`: fetch RQ entry `recv_index` and start it; `recv_offset`:
//! bytes already placed in it; `recv_done`: it completes with `cqe_len`
//! bytes), and the new responder state: `wr_data`/`wr_mask` for
//! `ctx_cache.write(qpn, wr_mask, wr_data)` when `write` is set. A failure
//! decided later (key check, RECV WQE fetch, scatter) is a fatal NAK with
//! the packet's PSN and `msn_before`; when `key_check` is set on a NAK or
//! RNR verdict (a WRITE FIRST/ONLY whose lengths do not add up or that finds
//! no RECV), the key check comes first, as in the model: a failed check
//! turns the verdict into NAK remote access error. A fatal NAK (here or
//! later) moves the QP to error; here `IN_PROGRESS` becomes
//! `IN_PROGRESS_ERROR`, after which every request of the QP is dropped.
//!
//! State kept in `qps` (this block's fields of `RESPONDER_BYTES`): as the
//! model's; `RECV_WQE` is the RQ index of the RECV being filled while
//! `RECV_VALID`, else of the next RECV to take (taken from `qpc.RQ_CONS`,
//! and `EPSN` from `qpc.RQ_PSN`, while `RESP_STARTED` is clear). Not this
//! block's and passed through unchanged: `RECV_SGE`, `RECV_SGE_OFFSET`
//! (the stage that places a SEND's bytes replaces them in `wr_data` before
//! the write: `wr_mask` covers them). `REPLAY_HEAD`/`REPLAY_COUNT` are the
//! window of the QP's replay slots (docs/replay_plan.md): an executed READ
//! or atomic takes slot `HEAD + COUNT` (mod 16), or, with `COUNT` at the
//! QP's `max_dest_rd_atomic` (at most 16), recycles slot `HEAD` and moves
//! `HEAD` on; so its slot is `HEAD' + COUNT' - 1` of the new state.
//!
//! **Consecutive packets of one QP: forwarding.** The block forwards its own
//! writes: a packet's state is the newest of the record just decided (the
//! packet ahead of it in the pipeline), the two records before that
//! ([`RESP_FWD_DEPTH`] = 4 records in all, counted in pipeline advances,
//! bubbles included) and the `qps` offered with it. The caller must offer
//! with each packet a `qps` that holds every write of the records it took
//! from `m_dec` before the cycle it first offered the packet (it writes the
//! cache in the cycle it takes a record and reads it for a packet in the
//! cycle it offers it); the records after that are in the forwarding window
//! (at most two: one pipeline advance while the packet waits for the skid
//! register, one at its load into P0; H2 is margin, see
//! docs/transport_blocks.md).
//!
//! **Structure** (two register stages, all moving on `adv` = the output
//! record is free or taken):
//!
//! * input skid register (the fields read from `s_pkt`), so `s_pkt.ready`
//!   is a register (`!skid_valid`);
//! * P0: the packet with its state merged from the forwarding registers
//!   (newest first, QPN compares on the incoming QPN) and initialised from
//!   `qpc` when not started, the opcode decoded, the length checks against
//!   the PMTU, the DMA length limit, the alignment, PSN + 1 and a READ's
//!   packet count; `hit`: same QP as the packet ahead (decided this cycle);
//! * P1 (the record, `m_dec`): the state is `hit ? P1's new state : P0's`,
//!   then the PSN compare, the verdict and the new state, in one cycle.
//!
//! **Latency**: a packet taken at cycle t (pipeline free) is on `m_dec` at
//! t + [`RespCheck::LATENCY`] = 2. **Rate**: one packet per cycle,
//! sustained, back-to-back packets of one QP included.

use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::layouts::{qpc, qps};
use rust_hdl::prelude::*;

/// Bits of the responder's word of a `qps` entry (`RESPONDER_BYTES`).
pub const RESP_STATE_BITS: usize = 8 * (qps::RESPONDER_BYTES.end - qps::RESPONDER_BYTES.start);
/// The records a packet's state is forwarded from (pipeline advances): the
/// packet ahead, the record on `m_dec` and two behind it.
pub const RESP_FWD_DEPTH: usize = 4;
/// Verdict and AETH widths.
pub const RESP_VERDICT_BITS: usize = 4;
const _: () = assert!(RESP_STATE_BITS == 312 && QPS_RESP_LSB == 200 && RESP_RNR < 16);
const _: () = assert!(qps::REPLAY_HEAD.byte == 62 && qps::REPLAY_COUNT.pos() + 5 <= 512);
const _: () = assert!(QPSR_RECV_SGE_W == 2 && ACC_REMOTE_ATOMIC < 8);
const _: () = assert!(
    MTU_512 == MTU_256 + 1 && MTU_1024 == MTU_256 + 2 && MTU_2048 == MTU_256 + 3 && MTU_4096 == MTU_256 + 4,
    "`fields_steps`: the PMTU codes in order, one step each"
);
const _: () = assert!(
    qpc::REMOTE_READ.pos() == QPC_REMOTE_ACC + 1 && qpc::REMOTE_ATOMIC.pos() == QPC_REMOTE_ACC + 2,
    "the QP's three remote rights are adjacent"
);

/// Widths of the fields passed through (`RECV_SGE`) and of the replay
/// window's bits, to the top of the word.
const QPSR_RECV_SGE_W: usize = qps::RECV_SGE.width as usize;
const QPSR_REPLAY_W: usize = RESP_STATE_BITS - QPSR_REPLAY_HEAD as usize;
const _: () = assert!(QPSR_REPLAY_W == 16 && qps::RECV_SGE_OFFSET.width == 32);
const _: () = assert!(
    qps::REPLAY_HEAD.width == 4 && qps::REPLAY_COUNT.width == 5 && 1 << qps::REPLAY_HEAD.width == REPLAY_SLOTS,
    "the replay window's HEAD indexes the 16 slots, COUNT counts up to 16"
);

/// A packet for the decision: header, context, state.
#[derive(LogicInterface, Default)]
pub struct RespPktIn {
    pub hdr: Signal<In, Bits<1024>>,
    pub qpc: Signal<In, Bits<1024>>,
    pub qps: Signal<In, Bits<512>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// The decision record (module doc).
#[derive(LogicInterface, Default)]
#[join = "RespDecIn"]
pub struct RespDecOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub psn: Signal<Out, Bits<24>>,
    pub verdict: Signal<Out, Bits<RESP_VERDICT_BITS>>,
    pub ack: Signal<Out, Bit>,
    pub syndrome: Signal<Out, Bits<8>>,
    pub aeth_psn: Signal<Out, Bits<24>>,
    pub aeth_msn: Signal<Out, Bits<24>>,
    pub msn_before: Signal<Out, Bits<24>>,
    pub key_check: Signal<Out, Bit>,
    pub key_access: Signal<Out, Bits<3>>,
    pub rkey: Signal<Out, Bits<32>>,
    pub va: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<32>>,
    pub recv_new: Signal<Out, Bit>,
    pub recv_index: Signal<Out, Bits<16>>,
    pub recv_offset: Signal<Out, Bits<32>>,
    pub recv_done: Signal<Out, Bit>,
    pub cqe_len: Signal<Out, Bits<32>>,
    pub write: Signal<Out, Bit>,
    pub wr_mask: Signal<Out, Bits<64>>,
    pub wr_data: Signal<Out, Bits<512>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// The decision record, taken (`RespExec::s_dec`).
#[derive(LogicInterface, Default)]
#[join = "RespDecOut"]
pub struct RespDecIn {
    pub qpn: Signal<In, Bits<24>>,
    pub psn: Signal<In, Bits<24>>,
    pub verdict: Signal<In, Bits<RESP_VERDICT_BITS>>,
    pub ack: Signal<In, Bit>,
    pub syndrome: Signal<In, Bits<8>>,
    pub aeth_psn: Signal<In, Bits<24>>,
    pub aeth_msn: Signal<In, Bits<24>>,
    pub msn_before: Signal<In, Bits<24>>,
    pub key_check: Signal<In, Bit>,
    pub key_access: Signal<In, Bits<3>>,
    pub rkey: Signal<In, Bits<32>>,
    pub va: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<32>>,
    pub recv_new: Signal<In, Bit>,
    pub recv_index: Signal<In, Bits<16>>,
    pub recv_offset: Signal<In, Bits<32>>,
    pub recv_done: Signal<In, Bit>,
    pub cqe_len: Signal<In, Bits<32>>,
    pub write: Signal<In, Bit>,
    pub wr_mask: Signal<In, Bits<64>>,
    pub wr_data: Signal<In, Bits<512>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// The fields read from a packet offered on `s_pkt` (wiring plus the
/// RETH/AtomicETH select), as the skid register and P0's load see them.
#[derive(LogicBlock, Default)]
pub struct RespFields {
    pub hdr: Signal<In, Bits<1024>>,
    pub qpc: Signal<In, Bits<1024>>,
    pub qps: Signal<In, Bits<512>>,
    pub opcode: Signal<Out, Bits<8>>,
    pub ackreq: Signal<Out, Bit>,
    /// An RQ flush record (`RXF_RQ_FLUSH`), not a packet.
    pub flush: Signal<Out, Bit>,
    pub qpn: Signal<Out, Bits<24>>,
    pub psn: Signal<Out, Bits<24>>,
    pub va: Signal<Out, Bits<64>>,
    pub rkey: Signal<Out, Bits<32>>,
    pub dmalen: Signal<Out, Bits<32>>,
    pub plen: Signal<Out, Bits<16>>,
    pub pmtu: Signal<Out, Bits<3>>,
    pub min_rnr: Signal<Out, Bits<5>>,
    pub max_dest: Signal<Out, Bits<8>>,
    /// The QP's remote rights: bit 0 WRITE, 1 READ, 2 atomics (`qpc::REMOTE_*`).
    pub acc: Signal<Out, Bits<3>>,
    pub rq_psn: Signal<Out, Bits<24>>,
    pub rq_prod: Signal<Out, Bits<16>>,
    pub rq_cons: Signal<Out, Bits<16>>,
    pub st: Signal<Out, Bits<RESP_STATE_BITS>>,
    kind: TypeTag<Self>,
}

impl Logic for RespFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.opcode.next = self.hdr.val().get_bits::<8>(RXF_OPCODE);
        self.ackreq.next = self.hdr.val().get_bit(RXF_ACKREQ);
        self.flush.next = self.hdr.val().get_bit(RXF_RQ_FLUSH);
        self.qpn.next = self.hdr.val().get_bits::<24>(RXF_DESTQP);
        self.psn.next = self.hdr.val().get_bits::<24>(RXF_PSN);
        self.va.next = self.hdr.val().get_bits::<64>(RXF_ATOMIC_VA);
        self.rkey.next = self.hdr.val().get_bits::<32>(RXF_ATOMIC_RKEY);
        if self.hdr.val().get_bit(RXF_HAS_RETH) {
            self.va.next = self.hdr.val().get_bits::<64>(RXF_RETH_VA);
            self.rkey.next = self.hdr.val().get_bits::<32>(RXF_RETH_RKEY);
        }
        self.dmalen.next = self.hdr.val().get_bits::<32>(RXF_RETH_DMALEN);
        self.plen.next = self.hdr.val().get_bits::<16>(RXF_PAYLOAD_LEN);
        self.pmtu.next = self.qpc.val().get_bits::<3>(QPC_PMTU);
        self.min_rnr.next = self.qpc.val().get_bits::<5>(QPC_MIN_RNR);
        self.max_dest.next = self.qpc.val().get_bits::<8>(QPC_MAX_DEST_RD);
        self.acc.next = self.qpc.val().get_bits::<3>(QPC_REMOTE_ACC);
        self.rq_psn.next = self.qpc.val().get_bits::<24>(QPC_RQ_PSN);
        self.rq_prod.next = self.qpc.val().get_bits::<16>(QPC_RQ_PROD);
        self.rq_cons.next = self.qpc.val().get_bits::<16>(QPC_RQ_CONS);
        self.st.next = bit_cast::<RESP_STATE_BITS, 512>(self.qps.val() >> QPS_RESP_LSB);
    }
}

#[derive(LogicBlock, Default)]
pub struct RespCheck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_pkt: RespPktIn,
    pub m_dec: RespDecOut,
    /// Forward the state of the records decided before (module doc). The
    /// core ties it low: `RxLookup`'s hazard check gives every packet a
    /// `qps` holding its QP's earlier writes, which are `RespExec`'s (a
    /// failure's ERROR and RECV index, a SEND's SGE position), newer than
    /// a record this block decided: a record kept in H1/H2 while the
    /// pipeline waits would hand a later packet of its QP the state before
    /// those writes. A caller that writes when it takes the record (the
    /// bench) ties it high.
    pub fwd: Signal<In, Bit>,

    fields: RespFields,
    // ---- input skid register
    sk_valid: Reg<Bit>,
    sk_opcode: Reg<Bits<8>>,
    sk_ackreq: Reg<Bit>,
    sk_flush: Reg<Bit>,
    sk_qpn: Reg<Bits<24>>,
    sk_psn: Reg<Bits<24>>,
    sk_va: Reg<Bits<64>>,
    sk_rkey: Reg<Bits<32>>,
    sk_dmalen: Reg<Bits<32>>,
    sk_plen: Reg<Bits<16>>,
    sk_pmtu: Reg<Bits<3>>,
    sk_steps: Reg<Bits<4>>,
    sk_min_rnr: Reg<Bits<5>>,
    sk_max_dest: Reg<Bits<8>>,
    sk_acc: Reg<Bits<3>>,
    sk_rq_psn: Reg<Bits<24>>,
    sk_rq_prod: Reg<Bits<16>>,
    sk_rq_cons: Reg<Bits<16>>,
    sk_st: Reg<Bits<RESP_STATE_BITS>>,
    // ---- what P0 loads (skid register or input)
    src_opcode: Signal<Local, Bits<8>>,
    src_ackreq: Signal<Local, Bit>,
    src_flush: Signal<Local, Bit>,
    src_qpn: Signal<Local, Bits<24>>,
    src_psn: Signal<Local, Bits<24>>,
    src_va: Signal<Local, Bits<64>>,
    src_rkey: Signal<Local, Bits<32>>,
    src_dmalen: Signal<Local, Bits<32>>,
    src_plen: Signal<Local, Bits<16>>,
    src_pmtu: Signal<Local, Bits<3>>,
    fields_steps: Signal<Local, Bits<4>>,
    src_steps: Signal<Local, Bits<4>>,
    src_min_rnr: Signal<Local, Bits<5>>,
    src_max_dest: Signal<Local, Bits<8>>,
    src_acc: Signal<Local, Bits<3>>,
    src_rq_psn: Signal<Local, Bits<24>>,
    src_rq_prod: Signal<Local, Bits<16>>,
    src_rq_cons: Signal<Local, Bits<16>>,
    src_st: Signal<Local, Bits<RESP_STATE_BITS>>,
    merged: Signal<Local, Bits<RESP_STATE_BITS>>,
    init_st: Signal<Local, Bits<RESP_STATE_BITS>>,
    pmtu_bytes: Signal<Local, Bits<16>>,
    pmtu_m1: Signal<Local, Bits<16>>,
    rd_sum: Signal<Local, Bits<33>>,
    len_ok: Signal<Local, Bit>,
    too_long: Signal<Local, Bit>,
    no_res: Signal<Local, Bit>,
    in_fire: Signal<Local, Bit>,
    load0: Signal<Local, Bit>,
    adv: Signal<Local, Bit>,
    // ---- P0
    p0_valid: Reg<Bit>,
    p0_hit: Reg<Bit>,
    p0_init: Reg<Bit>,
    p0_qpn: Reg<Bits<24>>,
    p0_psn: Reg<Bits<24>>,
    p0_psn1: Reg<Bits<24>>,
    p0_npkts: Reg<Bits<24>>,
    p0_ackreq: Reg<Bit>,
    p0_flush: Reg<Bit>,
    p0_req: Reg<Bit>,
    p0_send: Reg<Bit>,
    p0_write: Reg<Bit>,
    p0_read: Reg<Bit>,
    p0_atomic: Reg<Bit>,
    p0_inv: Reg<Bit>,
    p0_starts: Reg<Bit>,
    p0_ends: Reg<Bit>,
    p0_cont: Reg<Bit>,
    p0_imm: Reg<Bit>,
    p0_bad: Reg<Bit>,
    p0_too_long: Reg<Bit>,
    p0_zero_dma: Reg<Bit>,
    p0_fits0: Reg<Bit>,
    p0_rnr_if: Reg<Bit>,
    p0_va: Reg<Bits<64>>,
    p0_rkey: Reg<Bits<32>>,
    p0_dmalen: Reg<Bits<32>>,
    p0_plen: Reg<Bits<32>>,
    p0_min_rnr: Reg<Bits<5>>,
    p0_rq_prod: Reg<Bits<16>>,
    p0_max_res: Reg<Bits<5>>,
    p0_st: Reg<Bits<RESP_STATE_BITS>>,
    // ---- the decision (P0 -> P1)
    dec: RespDecide,
    // ---- P1: the record
    p1_valid: Reg<Bit>,
    p1_qpn: Reg<Bits<24>>,
    p1_psn: Reg<Bits<24>>,
    p1_verdict: Reg<Bits<RESP_VERDICT_BITS>>,
    p1_ack: Reg<Bit>,
    p1_syndrome: Reg<Bits<8>>,
    p1_aeth_psn: Reg<Bits<24>>,
    p1_aeth_msn: Reg<Bits<24>>,
    p1_msn_before: Reg<Bits<24>>,
    p1_key_check: Reg<Bit>,
    p1_key_access: Reg<Bits<3>>,
    p1_rkey: Reg<Bits<32>>,
    p1_va: Reg<Bits<64>>,
    p1_len: Reg<Bits<32>>,
    p1_recv_new: Reg<Bit>,
    p1_recv_index: Reg<Bits<16>>,
    p1_recv_offset: Reg<Bits<32>>,
    p1_recv_done: Reg<Bit>,
    p1_cqe_len: Reg<Bits<32>>,
    p1_write: Reg<Bit>,
    p1_st: Reg<Bits<RESP_STATE_BITS>>,
    // ---- forwarding history: the records that left P1 one and two advances ago
    h1_valid: Reg<Bit>,
    h1_qpn: Reg<Bits<24>>,
    h1_st: Reg<Bits<RESP_STATE_BITS>>,
    h2_valid: Reg<Bit>,
    h2_qpn: Reg<Bits<24>>,
    h2_st: Reg<Bits<RESP_STATE_BITS>>,
    kind: TypeTag<Self>,
}

impl RespCheck {
    /// Cycles from a packet taken on `s_pkt` to its record on `m_dec`
    /// (nothing ahead, `m_dec` taken).
    pub const LATENCY: u64 = 2;
}

impl Logic for RespCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            sk_valid,
            sk_opcode,
            sk_ackreq,
            sk_flush,
            sk_qpn,
            sk_psn,
            sk_va,
            sk_rkey,
            sk_dmalen,
            sk_plen,
            sk_pmtu,
            sk_steps,
            sk_min_rnr,
            sk_max_dest,
            sk_acc,
            sk_rq_psn,
            sk_rq_prod,
            sk_rq_cons,
            sk_st,
            p0_valid,
            p0_hit,
            p0_init,
            p0_qpn,
            p0_psn,
            p0_psn1,
            p0_npkts,
            p0_ackreq,
            p0_flush,
            p0_req,
            p0_send,
            p0_write,
            p0_read,
            p0_atomic,
            p0_inv,
            p0_starts,
            p0_ends,
            p0_cont,
            p0_imm,
            p0_bad,
            p0_too_long,
            p0_zero_dma,
            p0_fits0,
            p0_rnr_if,
            p0_va,
            p0_rkey,
            p0_dmalen,
            p0_plen,
            p0_min_rnr,
            p0_rq_prod,
            p0_max_res,
            p0_st,
            p1_valid,
            p1_qpn,
            p1_psn,
            p1_verdict,
            p1_ack,
            p1_syndrome,
            p1_aeth_psn,
            p1_aeth_msn,
            p1_msn_before,
            p1_key_check,
            p1_key_access,
            p1_rkey,
            p1_va,
            p1_len,
            p1_recv_new,
            p1_recv_index,
            p1_recv_offset,
            p1_recv_done,
            p1_cqe_len,
            p1_write,
            p1_st,
            h1_valid,
            h1_qpn,
            h1_st,
            h2_valid,
            h2_qpn,
            h2_st
        );
        self.fields.hdr.next = self.s_pkt.hdr.val();
        self.fields.qpc.next = self.s_pkt.qpc.val();
        self.fields.qps.next = self.s_pkt.qps.val();

        // ---- handshakes: the pipeline advances when the record is free or taken
        self.adv.next = !self.p1_valid.q.val() | self.m_dec.ready.val();
        self.load0.next = !self.p0_valid.q.val() | self.adv.val();
        self.s_pkt.ready.next = !self.sk_valid.q.val();
        self.in_fire.next = self.s_pkt.valid.val() & !self.sk_valid.q.val();

        // ---- the input skid register takes a packet that P0 cannot
        if self.in_fire.val() & !self.load0.val() {
            self.sk_valid.d.next = true;
        } else if self.load0.val() {
            self.sk_valid.d.next = false;
        }
        self.sk_opcode.d.next = self.fields.opcode.val();
        self.sk_ackreq.d.next = self.fields.ackreq.val();
        self.sk_flush.d.next = self.fields.flush.val();
        self.sk_qpn.d.next = self.fields.qpn.val();
        self.sk_psn.d.next = self.fields.psn.val();
        self.sk_va.d.next = self.fields.va.val();
        self.sk_rkey.d.next = self.fields.rkey.val();
        self.sk_dmalen.d.next = self.fields.dmalen.val();
        self.sk_plen.d.next = self.fields.plen.val();
        self.sk_pmtu.d.next = self.fields.pmtu.val();
        // the PMTU's steps above 256 as a thermometer (bit i: PMTU >= 512 << i;
        // other codes: 256), made from the input alone and kept beside the
        // code in the skid register, so the READ's packet count starts from a
        // mux of two registers/ports rather than from comparisons after it
        self.fields_steps.next =
            bit_cast::<4, 1>(((self.fields.pmtu.val() >= MTU_512) & (self.fields.pmtu.val() <= MTU_4096)).into())
                | (bit_cast::<4, 1>(
                    ((self.fields.pmtu.val() >= MTU_1024) & (self.fields.pmtu.val() <= MTU_4096)).into(),
                ) << 1)
                | (bit_cast::<4, 1>(
                    ((self.fields.pmtu.val() >= MTU_2048) & (self.fields.pmtu.val() <= MTU_4096)).into(),
                ) << 2)
                | (bit_cast::<4, 1>((self.fields.pmtu.val() == MTU_4096).into()) << 3);
        self.sk_steps.d.next = self.fields_steps.val();
        self.sk_min_rnr.d.next = self.fields.min_rnr.val();
        self.sk_max_dest.d.next = self.fields.max_dest.val();
        self.sk_acc.d.next = self.fields.acc.val();
        self.sk_rq_psn.d.next = self.fields.rq_psn.val();
        self.sk_rq_prod.d.next = self.fields.rq_prod.val();
        self.sk_rq_cons.d.next = self.fields.rq_cons.val();
        self.sk_st.d.next = self.fields.st.val();
        if self.sk_valid.q.val() {
            self.sk_opcode.d.next = self.sk_opcode.q.val();
            self.sk_ackreq.d.next = self.sk_ackreq.q.val();
            self.sk_flush.d.next = self.sk_flush.q.val();
            self.sk_qpn.d.next = self.sk_qpn.q.val();
            self.sk_psn.d.next = self.sk_psn.q.val();
            self.sk_va.d.next = self.sk_va.q.val();
            self.sk_rkey.d.next = self.sk_rkey.q.val();
            self.sk_dmalen.d.next = self.sk_dmalen.q.val();
            self.sk_plen.d.next = self.sk_plen.q.val();
            self.sk_pmtu.d.next = self.sk_pmtu.q.val();
            self.sk_steps.d.next = self.sk_steps.q.val();
            self.sk_min_rnr.d.next = self.sk_min_rnr.q.val();
            self.sk_max_dest.d.next = self.sk_max_dest.q.val();
            self.sk_acc.d.next = self.sk_acc.q.val();
            self.sk_rq_psn.d.next = self.sk_rq_psn.q.val();
            self.sk_rq_prod.d.next = self.sk_rq_prod.q.val();
            self.sk_rq_cons.d.next = self.sk_rq_cons.q.val();
            self.sk_st.d.next = self.sk_st.q.val();
        }
        // what P0 loads: the skid register first (it is older)
        self.src_opcode.next = self.fields.opcode.val();
        self.src_ackreq.next = self.fields.ackreq.val();
        self.src_flush.next = self.fields.flush.val();
        self.src_qpn.next = self.fields.qpn.val();
        self.src_psn.next = self.fields.psn.val();
        self.src_va.next = self.fields.va.val();
        self.src_rkey.next = self.fields.rkey.val();
        self.src_dmalen.next = self.fields.dmalen.val();
        self.src_plen.next = self.fields.plen.val();
        self.src_pmtu.next = self.fields.pmtu.val();
        self.src_steps.next = self.fields_steps.val();
        self.src_min_rnr.next = self.fields.min_rnr.val();
        self.src_max_dest.next = self.fields.max_dest.val();
        self.src_acc.next = self.fields.acc.val();
        self.src_rq_psn.next = self.fields.rq_psn.val();
        self.src_rq_prod.next = self.fields.rq_prod.val();
        self.src_rq_cons.next = self.fields.rq_cons.val();
        self.src_st.next = self.fields.st.val();
        if self.sk_valid.q.val() {
            self.src_opcode.next = self.sk_opcode.q.val();
            self.src_ackreq.next = self.sk_ackreq.q.val();
            self.src_flush.next = self.sk_flush.q.val();
            self.src_qpn.next = self.sk_qpn.q.val();
            self.src_psn.next = self.sk_psn.q.val();
            self.src_va.next = self.sk_va.q.val();
            self.src_rkey.next = self.sk_rkey.q.val();
            self.src_dmalen.next = self.sk_dmalen.q.val();
            self.src_plen.next = self.sk_plen.q.val();
            self.src_pmtu.next = self.sk_pmtu.q.val();
            self.src_steps.next = self.sk_steps.q.val();
            self.src_min_rnr.next = self.sk_min_rnr.q.val();
            self.src_max_dest.next = self.sk_max_dest.q.val();
            self.src_acc.next = self.sk_acc.q.val();
            self.src_rq_psn.next = self.sk_rq_psn.q.val();
            self.src_rq_prod.next = self.sk_rq_prod.q.val();
            self.src_rq_cons.next = self.sk_rq_cons.q.val();
            self.src_st.next = self.sk_st.q.val();
        }

        // ---- P0 load: state forwarded from the newest record of the same QP
        // (P1 and H1 become H1 and H2 in this advance; the packet now in P0
        // is decided in it and forwarded from P1 through `hit`)
        self.merged.next = self.src_st.val();
        if self.fwd.val() & self.h2_valid.q.val() & (self.h2_qpn.q.val() == self.src_qpn.val()) {
            self.merged.next = self.h2_st.q.val();
        }
        if self.fwd.val() & self.h1_valid.q.val() & (self.h1_qpn.q.val() == self.src_qpn.val()) {
            self.merged.next = self.h1_st.q.val();
        }
        if self.fwd.val() & self.p1_valid.q.val() & (self.p1_qpn.q.val() == self.src_qpn.val()) {
            self.merged.next = self.p1_st.q.val();
        }
        // a QP not started yet: EPSN from RQ_PSN, the RQ index from RQ_CONS
        self.init_st.next = (bit_cast::<RESP_STATE_BITS, 24>(self.src_rq_psn.val()) << QPSR_EPSN)
            | (bit_cast::<RESP_STATE_BITS, 16>(self.src_rq_cons.val()) << QPSR_RECV_WQE);
        self.p0_init.d.next = !(self.merged.val() >> QPSR_STARTED).get_bit(0);
        self.p0_st.d.next = self.merged.val();
        if !(self.merged.val() >> QPSR_STARTED).get_bit(0) {
            self.p0_st.d.next = self.init_st.val();
        }
        self.p0_hit.d.next = self.fwd.val() & self.p0_valid.q.val() & (self.p0_qpn.q.val() == self.src_qpn.val());
        self.p0_valid.d.next = self.sk_valid.q.val() | self.in_fire.val();
        self.p0_qpn.d.next = self.src_qpn.val();
        self.p0_psn.d.next = self.src_psn.val();
        self.p0_psn1.d.next = self.src_psn.val() + 1;
        self.p0_ackreq.d.next = self.src_ackreq.val();
        self.p0_flush.d.next = self.src_flush.val();
        self.p0_va.d.next = self.src_va.val();
        self.p0_rkey.d.next = self.src_rkey.val();
        self.p0_dmalen.d.next = self.src_dmalen.val();
        self.p0_plen.d.next = bit_cast::<32, 16>(self.src_plen.val());
        self.p0_min_rnr.d.next = self.src_min_rnr.val();
        self.p0_rq_prod.d.next = self.src_rq_prod.val();
        // the replay slots the QP uses: max_dest_rd_atomic, at most the 16 kept
        self.p0_max_res.d.next = bit_cast::<5, 8>(self.src_max_dest.val());
        if self.src_max_dest.val().get_bits::<4>(4).any() {
            self.p0_max_res.d.next = REPLAY_SLOTS.into();
        }
        // opcode: SEND 0..5, WRITE 6..11 (FIRST, MIDDLE, LAST, LAST_IMM, ONLY, ONLY_IMM)
        self.p0_send.d.next = self.src_opcode.val() < BTH_RC_WRITE_FIRST;
        self.p0_write.d.next =
            (self.src_opcode.val() >= BTH_RC_WRITE_FIRST) & (self.src_opcode.val() < BTH_RC_READ_REQUEST);
        self.p0_read.d.next = self.src_opcode.val() == BTH_RC_READ_REQUEST;
        self.p0_atomic.d.next =
            (self.src_opcode.val() == BTH_RC_COMPARE_SWAP) | (self.src_opcode.val() == BTH_RC_FETCH_ADD);
        self.p0_inv.d.next =
            (self.src_opcode.val() == BTH_RC_SEND_LAST_INV) | (self.src_opcode.val() == BTH_RC_SEND_ONLY_INV);
        self.p0_req.d.next = (self.src_opcode.val() <= BTH_RC_READ_REQUEST)
            | (self.src_opcode.val() == BTH_RC_COMPARE_SWAP)
            | (self.src_opcode.val() == BTH_RC_FETCH_ADD)
            | (self.src_opcode.val() == BTH_RC_SEND_LAST_INV)
            | (self.src_opcode.val() == BTH_RC_SEND_ONLY_INV);
        self.p0_starts.d.next = (self.src_opcode.val() == BTH_RC_SEND_FIRST)
            | (self.src_opcode.val() == BTH_RC_SEND_ONLY)
            | (self.src_opcode.val() == BTH_RC_SEND_ONLY_IMM)
            | (self.src_opcode.val() == BTH_RC_WRITE_FIRST)
            | (self.src_opcode.val() == BTH_RC_WRITE_ONLY)
            | (self.src_opcode.val() == BTH_RC_WRITE_ONLY_IMM);
        self.p0_ends.d.next = (self.src_opcode.val() == BTH_RC_SEND_LAST)
            | (self.src_opcode.val() == BTH_RC_SEND_LAST_IMM)
            | (self.src_opcode.val() == BTH_RC_SEND_ONLY)
            | (self.src_opcode.val() == BTH_RC_SEND_ONLY_IMM)
            | (self.src_opcode.val() == BTH_RC_WRITE_LAST)
            | (self.src_opcode.val() == BTH_RC_WRITE_LAST_IMM)
            | (self.src_opcode.val() == BTH_RC_WRITE_ONLY)
            | (self.src_opcode.val() == BTH_RC_WRITE_ONLY_IMM);
        // MIDDLE or LAST: continues a message
        self.p0_cont.d.next = (self.src_opcode.val() == BTH_RC_SEND_MIDDLE)
            | (self.src_opcode.val() == BTH_RC_SEND_LAST)
            | (self.src_opcode.val() == BTH_RC_SEND_LAST_IMM)
            | (self.src_opcode.val() == BTH_RC_WRITE_MIDDLE)
            | (self.src_opcode.val() == BTH_RC_WRITE_LAST)
            | (self.src_opcode.val() == BTH_RC_WRITE_LAST_IMM);
        self.p0_imm.d.next =
            (self.src_opcode.val() == BTH_RC_WRITE_LAST_IMM) | (self.src_opcode.val() == BTH_RC_WRITE_ONLY_IMM);
        // payload length against the PMTU (a READ or atomic carries none)
        self.pmtu_bytes.next = 256.into();
        if self.src_pmtu.val() == MTU_512 {
            self.pmtu_bytes.next = 512.into();
        } else if self.src_pmtu.val() == MTU_1024 {
            self.pmtu_bytes.next = 1024.into();
        } else if self.src_pmtu.val() == MTU_2048 {
            self.pmtu_bytes.next = 2048.into();
        } else if self.src_pmtu.val() == MTU_4096 {
            self.pmtu_bytes.next = 4096.into();
        }
        // the PMTU minus one: 8 ones, then one more per step above 256
        self.pmtu_m1.next = bit_cast::<16, 8>(255.into()) | (bit_cast::<16, 4>(self.src_steps.val()) << 8);
        self.len_ok.next = self.src_plen.val() <= self.pmtu_bytes.val();
        if (self.src_opcode.val() == BTH_RC_SEND_FIRST)
            | (self.src_opcode.val() == BTH_RC_SEND_MIDDLE)
            | (self.src_opcode.val() == BTH_RC_WRITE_FIRST)
            | (self.src_opcode.val() == BTH_RC_WRITE_MIDDLE)
        {
            self.len_ok.next = self.src_plen.val() == self.pmtu_bytes.val();
        } else if (self.src_opcode.val() == BTH_RC_SEND_LAST)
            | (self.src_opcode.val() == BTH_RC_SEND_LAST_IMM)
            | (self.src_opcode.val() == BTH_RC_WRITE_LAST)
            | (self.src_opcode.val() == BTH_RC_WRITE_LAST_IMM)
        {
            self.len_ok.next = (self.src_plen.val() <= self.pmtu_bytes.val()) & self.src_plen.val().any();
        } else if (self.src_opcode.val() == BTH_RC_READ_REQUEST)
            | (self.src_opcode.val() == BTH_RC_COMPARE_SWAP)
            | (self.src_opcode.val() == BTH_RC_FETCH_ADD)
        {
            self.len_ok.next = !self.src_plen.val().any();
        }
        // DMA length above 2^31; an atomic's VA not 8-byte aligned; no responder resources
        self.too_long.next = self.src_dmalen.val().get_bit(31) & self.src_dmalen.val().get_bits::<31>(0).any();
        self.p0_too_long.d.next = self.too_long.val();
        self.p0_zero_dma.d.next = !self.src_dmalen.val().any();
        self.no_res.next = !self.src_max_dest.val().any();
        // the checks that need no state: NAK invalid request whatever the state;
        // an operation the QP's access flags do not allow is one (as rxe's check_op_valid)
        self.p0_bad.d.next = (self.src_opcode.val() == BTH_RC_SEND_LAST_INV)
            | ((self.src_opcode.val() >= BTH_RC_WRITE_FIRST)
                & (self.src_opcode.val() < BTH_RC_READ_REQUEST)
                & !self.src_acc.val().get_bit(0))
            | ((self.src_opcode.val() == BTH_RC_READ_REQUEST) & !self.src_acc.val().get_bit(1))
            | (((self.src_opcode.val() == BTH_RC_COMPARE_SWAP) | (self.src_opcode.val() == BTH_RC_FETCH_ADD))
                & !self.src_acc.val().get_bit(2))
            | (self.src_opcode.val() == BTH_RC_SEND_ONLY_INV)
            | !self.len_ok.val()
            | ((self.src_opcode.val() == BTH_RC_READ_REQUEST) & (self.too_long.val() | self.no_res.val()))
            | (((self.src_opcode.val() == BTH_RC_COMPARE_SWAP) | (self.src_opcode.val() == BTH_RC_FETCH_ADD))
                & (self.src_va.val().get_bits::<3>(0).any() | self.no_res.val()))
            | (((self.src_opcode.val() == BTH_RC_WRITE_FIRST)
                | (self.src_opcode.val() == BTH_RC_WRITE_ONLY)
                | (self.src_opcode.val() == BTH_RC_WRITE_ONLY_IMM))
                & self.too_long.val());
        // a WRITE FIRST/ONLY's payload against its DMA length (LAST/ONLY: all of it)
        self.p0_fits0.d.next = bit_cast::<32, 16>(self.src_plen.val()) < self.src_dmalen.val();
        if (self.src_opcode.val() == BTH_RC_WRITE_ONLY) | (self.src_opcode.val() == BTH_RC_WRITE_ONLY_IMM) {
            self.p0_fits0.d.next = bit_cast::<32, 16>(self.src_plen.val()) == self.src_dmalen.val();
        }
        // takes a RECV: SEND FIRST/ONLY, WRITE with immediate
        self.p0_rnr_if.d.next = (self.src_opcode.val() == BTH_RC_SEND_FIRST)
            | (self.src_opcode.val() == BTH_RC_SEND_ONLY)
            | (self.src_opcode.val() == BTH_RC_SEND_ONLY_IMM)
            | (self.src_opcode.val() == BTH_RC_WRITE_LAST_IMM)
            | (self.src_opcode.val() == BTH_RC_WRITE_ONLY_IMM);
        // a READ's response packets: max(1, ceil(len / PMTU))
        self.rd_sum.next = bit_cast::<33, 32>(self.src_dmalen.val()) + bit_cast::<33, 16>(self.pmtu_m1.val());
        self.p0_npkts.d.next = self.rd_sum.val().get_bits::<24>(8);
        if self.src_steps.val().get_bit(3) {
            self.p0_npkts.d.next = self.rd_sum.val().get_bits::<24>(12);
        } else if self.src_steps.val().get_bit(2) {
            self.p0_npkts.d.next = self.rd_sum.val().get_bits::<24>(11);
        } else if self.src_steps.val().get_bit(1) {
            self.p0_npkts.d.next = self.rd_sum.val().get_bits::<24>(10);
        } else if self.src_steps.val().get_bit(0) {
            self.p0_npkts.d.next = self.rd_sum.val().get_bits::<24>(9);
        }
        if !self.src_dmalen.val().any() {
            self.p0_npkts.d.next = 1.into();
        }
        if !self.load0.val() {
            self.p0_valid.d.next = self.p0_valid.q.val();
            self.p0_hit.d.next = self.p0_hit.q.val();
            self.p0_init.d.next = self.p0_init.q.val();
            self.p0_st.d.next = self.p0_st.q.val();
            self.p0_qpn.d.next = self.p0_qpn.q.val();
            self.p0_psn.d.next = self.p0_psn.q.val();
            self.p0_psn1.d.next = self.p0_psn1.q.val();
            self.p0_npkts.d.next = self.p0_npkts.q.val();
            self.p0_ackreq.d.next = self.p0_ackreq.q.val();
            self.p0_flush.d.next = self.p0_flush.q.val();
            self.p0_req.d.next = self.p0_req.q.val();
            self.p0_send.d.next = self.p0_send.q.val();
            self.p0_write.d.next = self.p0_write.q.val();
            self.p0_read.d.next = self.p0_read.q.val();
            self.p0_atomic.d.next = self.p0_atomic.q.val();
            self.p0_inv.d.next = self.p0_inv.q.val();
            self.p0_starts.d.next = self.p0_starts.q.val();
            self.p0_ends.d.next = self.p0_ends.q.val();
            self.p0_cont.d.next = self.p0_cont.q.val();
            self.p0_imm.d.next = self.p0_imm.q.val();
            self.p0_bad.d.next = self.p0_bad.q.val();
            self.p0_too_long.d.next = self.p0_too_long.q.val();
            self.p0_zero_dma.d.next = self.p0_zero_dma.q.val();
            self.p0_fits0.d.next = self.p0_fits0.q.val();
            self.p0_rnr_if.d.next = self.p0_rnr_if.q.val();
            self.p0_va.d.next = self.p0_va.q.val();
            self.p0_rkey.d.next = self.p0_rkey.q.val();
            self.p0_dmalen.d.next = self.p0_dmalen.q.val();
            self.p0_plen.d.next = self.p0_plen.q.val();
            self.p0_min_rnr.d.next = self.p0_min_rnr.q.val();
            self.p0_rq_prod.d.next = self.p0_rq_prod.q.val();
            self.p0_max_res.d.next = self.p0_max_res.q.val();
        }

        // ---- the decision: P0's state, or the record just decided for the same QP
        self.dec.st.next = self.p0_st.q.val();
        if self.p0_hit.q.val() {
            self.dec.st.next = self.p1_st.q.val();
        }
        self.dec.psn.next = self.p0_psn.q.val();
        self.dec.psn1.next = self.p0_psn1.q.val();
        self.dec.npkts.next = self.p0_npkts.q.val();
        self.dec.ackreq.next = self.p0_ackreq.q.val();
        self.dec.flush.next = self.p0_flush.q.val();
        self.dec.req.next = self.p0_req.q.val();
        self.dec.send.next = self.p0_send.q.val();
        self.dec.write.next = self.p0_write.q.val();
        self.dec.read.next = self.p0_read.q.val();
        self.dec.atomic.next = self.p0_atomic.q.val();
        self.dec.inv.next = self.p0_inv.q.val();
        self.dec.starts.next = self.p0_starts.q.val();
        self.dec.ends.next = self.p0_ends.q.val();
        self.dec.cont.next = self.p0_cont.q.val();
        self.dec.imm.next = self.p0_imm.q.val();
        self.dec.bad.next = self.p0_bad.q.val();
        self.dec.too_long.next = self.p0_too_long.q.val();
        self.dec.zero_dma.next = self.p0_zero_dma.q.val();
        self.dec.fits0.next = self.p0_fits0.q.val();
        self.dec.rnr_if.next = self.p0_rnr_if.q.val();
        self.dec.va.next = self.p0_va.q.val();
        self.dec.rkey.next = self.p0_rkey.q.val();
        self.dec.dmalen.next = self.p0_dmalen.q.val();
        self.dec.plen.next = self.p0_plen.q.val();
        self.dec.min_rnr.next = self.p0_min_rnr.q.val();
        self.dec.rq_prod.next = self.p0_rq_prod.q.val();
        self.dec.max_res.next = self.p0_max_res.q.val();

        // ---- P1 and the forwarding history move on `adv`
        self.p1_valid.d.next = self.p1_valid.q.val();
        self.p1_qpn.d.next = self.p1_qpn.q.val();
        self.p1_psn.d.next = self.p1_psn.q.val();
        self.p1_verdict.d.next = self.p1_verdict.q.val();
        self.p1_ack.d.next = self.p1_ack.q.val();
        self.p1_syndrome.d.next = self.p1_syndrome.q.val();
        self.p1_aeth_psn.d.next = self.p1_aeth_psn.q.val();
        self.p1_aeth_msn.d.next = self.p1_aeth_msn.q.val();
        self.p1_msn_before.d.next = self.p1_msn_before.q.val();
        self.p1_key_check.d.next = self.p1_key_check.q.val();
        self.p1_key_access.d.next = self.p1_key_access.q.val();
        self.p1_rkey.d.next = self.p1_rkey.q.val();
        self.p1_va.d.next = self.p1_va.q.val();
        self.p1_len.d.next = self.p1_len.q.val();
        self.p1_recv_new.d.next = self.p1_recv_new.q.val();
        self.p1_recv_index.d.next = self.p1_recv_index.q.val();
        self.p1_recv_offset.d.next = self.p1_recv_offset.q.val();
        self.p1_recv_done.d.next = self.p1_recv_done.q.val();
        self.p1_cqe_len.d.next = self.p1_cqe_len.q.val();
        self.p1_write.d.next = self.p1_write.q.val();
        self.p1_st.d.next = self.p1_st.q.val();
        self.h1_valid.d.next = self.h1_valid.q.val();
        self.h1_qpn.d.next = self.h1_qpn.q.val();
        self.h1_st.d.next = self.h1_st.q.val();
        self.h2_valid.d.next = self.h2_valid.q.val();
        self.h2_qpn.d.next = self.h2_qpn.q.val();
        self.h2_st.d.next = self.h2_st.q.val();
        if self.adv.val() {
            self.p1_valid.d.next = self.p0_valid.q.val();
            self.p1_qpn.d.next = self.p0_qpn.q.val();
            self.p1_psn.d.next = self.p0_psn.q.val();
            self.p1_verdict.d.next = self.dec.verdict.val();
            self.p1_ack.d.next = self.dec.ack.val();
            self.p1_syndrome.d.next = self.dec.syndrome.val();
            self.p1_aeth_psn.d.next = self.dec.aeth_psn.val();
            self.p1_aeth_msn.d.next = self.dec.aeth_msn.val();
            self.p1_msn_before.d.next = self.dec.msn_before.val();
            self.p1_key_check.d.next = self.dec.key_check.val();
            self.p1_key_access.d.next = self.dec.key_access.val();
            self.p1_rkey.d.next = self.dec.key_rkey.val();
            self.p1_va.d.next = self.dec.key_va.val();
            self.p1_len.d.next = self.dec.key_len.val();
            self.p1_recv_new.d.next = self.dec.recv_new.val();
            self.p1_recv_index.d.next = self.dec.recv_index.val();
            self.p1_recv_offset.d.next = self.dec.recv_offset.val();
            self.p1_recv_done.d.next = self.dec.recv_done.val();
            self.p1_cqe_len.d.next = self.dec.cqe_len.val();
            // (a state forwarded from P1 has started: `p0_init` is P0's load's)
            self.p1_write.d.next = self.dec.changed.val() | (self.p0_init.q.val() & !self.p0_hit.q.val());
            self.p1_st.d.next = self.dec.new_st.val();
            self.h1_valid.d.next = self.p1_valid.q.val();
            self.h1_qpn.d.next = self.p1_qpn.q.val();
            self.h1_st.d.next = self.p1_st.q.val();
            self.h2_valid.d.next = self.h1_valid.q.val();
            self.h2_qpn.d.next = self.h1_qpn.q.val();
            self.h2_st.d.next = self.h1_st.q.val();
        }
        if self.reset.val() {
            self.sk_valid.d.next = false;
            self.p0_valid.d.next = false;
            self.p1_valid.d.next = false;
            self.h1_valid.d.next = false;
            self.h2_valid.d.next = false;
        }

        self.m_dec.valid.next = self.p1_valid.q.val();
        self.m_dec.qpn.next = self.p1_qpn.q.val();
        self.m_dec.psn.next = self.p1_psn.q.val();
        self.m_dec.verdict.next = self.p1_verdict.q.val();
        self.m_dec.ack.next = self.p1_ack.q.val();
        self.m_dec.syndrome.next = self.p1_syndrome.q.val();
        self.m_dec.aeth_psn.next = self.p1_aeth_psn.q.val();
        self.m_dec.aeth_msn.next = self.p1_aeth_msn.q.val();
        self.m_dec.msn_before.next = self.p1_msn_before.q.val();
        self.m_dec.key_check.next = self.p1_key_check.q.val();
        self.m_dec.key_access.next = self.p1_key_access.q.val();
        self.m_dec.rkey.next = self.p1_rkey.q.val();
        self.m_dec.va.next = self.p1_va.q.val();
        self.m_dec.len.next = self.p1_len.q.val();
        self.m_dec.recv_new.next = self.p1_recv_new.q.val();
        self.m_dec.recv_index.next = self.p1_recv_index.q.val();
        self.m_dec.recv_offset.next = self.p1_recv_offset.q.val();
        self.m_dec.recv_done.next = self.p1_recv_done.q.val();
        self.m_dec.cqe_len.next = self.p1_cqe_len.q.val();
        self.m_dec.write.next = self.p1_write.q.val();
        self.m_dec.wr_mask.next = RESP_WR_MASK.into();
        self.m_dec.wr_data.next = bit_cast::<512, RESP_STATE_BITS>(self.p1_st.q.val()) << QPS_RESP_LSB;
    }
}

/// The decision proper (combinational): from one packet's decoded fields
/// and its QP's responder state, the verdict, the ACK/NAK, the key check,
/// the RECV work and the new state. A child of [`RespCheck`], whose P1
/// registers take its outputs.
#[derive(LogicBlock, Default)]
pub struct RespDecide {
    pub st: Signal<In, Bits<RESP_STATE_BITS>>,
    pub psn: Signal<In, Bits<24>>,
    pub psn1: Signal<In, Bits<24>>,
    pub npkts: Signal<In, Bits<24>>,
    pub ackreq: Signal<In, Bit>,
    /// An RQ flush record: no PSN, sequence or MSN check, no ACK.
    pub flush: Signal<In, Bit>,
    pub req: Signal<In, Bit>,
    pub send: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub read: Signal<In, Bit>,
    pub atomic: Signal<In, Bit>,
    pub inv: Signal<In, Bit>,
    pub starts: Signal<In, Bit>,
    pub ends: Signal<In, Bit>,
    pub cont: Signal<In, Bit>,
    pub imm: Signal<In, Bit>,
    pub bad: Signal<In, Bit>,
    pub too_long: Signal<In, Bit>,
    pub zero_dma: Signal<In, Bit>,
    pub fits0: Signal<In, Bit>,
    pub rnr_if: Signal<In, Bit>,
    pub va: Signal<In, Bits<64>>,
    pub rkey: Signal<In, Bits<32>>,
    pub dmalen: Signal<In, Bits<32>>,
    pub plen: Signal<In, Bits<32>>,
    pub min_rnr: Signal<In, Bits<5>>,
    pub rq_prod: Signal<In, Bits<16>>,
    /// Replay slots in use at most (`max_dest_rd_atomic`, at most [`REPLAY_SLOTS`]).
    pub max_res: Signal<In, Bits<5>>,
    pub verdict: Signal<Out, Bits<RESP_VERDICT_BITS>>,
    pub ack: Signal<Out, Bit>,
    pub syndrome: Signal<Out, Bits<8>>,
    pub aeth_psn: Signal<Out, Bits<24>>,
    pub aeth_msn: Signal<Out, Bits<24>>,
    pub msn_before: Signal<Out, Bits<24>>,
    pub key_check: Signal<Out, Bit>,
    pub key_access: Signal<Out, Bits<3>>,
    pub key_rkey: Signal<Out, Bits<32>>,
    pub key_va: Signal<Out, Bits<64>>,
    pub key_len: Signal<Out, Bits<32>>,
    pub recv_new: Signal<Out, Bit>,
    pub recv_index: Signal<Out, Bits<16>>,
    pub recv_offset: Signal<Out, Bits<32>>,
    pub recv_done: Signal<Out, Bit>,
    pub cqe_len: Signal<Out, Bits<32>>,
    pub changed: Signal<Out, Bit>,
    pub new_st: Signal<Out, Bits<RESP_STATE_BITS>>,
    // the state's fields
    epsn: Signal<Local, Bits<24>>,
    msn: Signal<Local, Bits<24>>,
    in_prog: Signal<Local, Bits<2>>,
    recv_wqe: Signal<Local, Bits<16>>,
    placed: Signal<Local, Bits<32>>,
    wva: Signal<Local, Bits<64>>,
    wrkey: Signal<Local, Bits<32>>,
    wrem: Signal<Local, Bits<32>>,
    wlen: Signal<Local, Bits<32>>,
    // the checks
    diff: Signal<Local, Bits<24>>,
    eq: Signal<Local, Bit>,
    live: Signal<Local, Bit>,
    bad_all: Signal<Local, Bit>,
    rnr_now: Signal<Local, Bit>,
    v_exec: Signal<Local, Bit>,
    v_dup: Signal<Local, Bit>,
    behind: Signal<Local, Bit>,
    seq_ok: Signal<Local, Bit>,
    rq_avail: Signal<Local, Bit>,
    rem_eff: Signal<Local, Bits<32>>,
    va_eff: Signal<Local, Bits<64>>,
    rkey_eff: Signal<Local, Bits<32>>,
    total_eff: Signal<Local, Bits<32>>,
    fits: Signal<Local, Bit>,
    base_placed: Signal<Local, Bits<32>>,
    sum_placed: Signal<Local, Bits<32>>,
    // the verdict, one-hot
    v_exec_send: Signal<Local, Bit>,
    v_exec_write: Signal<Local, Bit>,
    v_exec_read: Signal<Local, Bit>,
    v_exec_atomic: Signal<Local, Bit>,
    v_nak_seq: Signal<Local, Bit>,
    v_nak_inv: Signal<Local, Bit>,
    v_rnr: Signal<Local, Bit>,
    v_dup_ack: Signal<Local, Bit>,
    v_flush: Signal<Local, Bit>,
    // the new state's fields
    n_nak_sent: Signal<Local, Bit>,
    n_ack_pending: Signal<Local, Bit>,
    n_in_prog: Signal<Local, Bits<2>>,
    n_recv_valid: Signal<Local, Bit>,
    n_epsn: Signal<Local, Bits<24>>,
    n_msn: Signal<Local, Bits<24>>,
    n_recv_wqe: Signal<Local, Bits<16>>,
    n_placed: Signal<Local, Bits<32>>,
    n_wva: Signal<Local, Bits<64>>,
    n_wrkey: Signal<Local, Bits<32>>,
    n_wrem: Signal<Local, Bits<32>>,
    n_wlen: Signal<Local, Bits<32>>,
    rp_head: Signal<Local, Bits<4>>,
    rp_count: Signal<Local, Bits<5>>,
    n_rp_head: Signal<Local, Bits<4>>,
    n_rp_count: Signal<Local, Bits<5>>,
    one: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for RespDecide {
    #[hdl_gen]
    fn update(&mut self) {
        self.epsn.next = bit_cast::<24, RESP_STATE_BITS>(self.st.val() >> QPSR_EPSN);
        self.msn.next = bit_cast::<24, RESP_STATE_BITS>(self.st.val() >> QPSR_MSN);
        self.in_prog.next = bit_cast::<2, RESP_STATE_BITS>(self.st.val() >> QPSR_IN_PROGRESS);
        self.recv_wqe.next = bit_cast::<16, RESP_STATE_BITS>(self.st.val() >> QPSR_RECV_WQE);
        self.placed.next = bit_cast::<32, RESP_STATE_BITS>(self.st.val() >> QPSR_RECV_PLACED);
        self.wva.next = bit_cast::<64, RESP_STATE_BITS>(self.st.val() >> QPSR_WRITE_VA);
        self.wrkey.next = bit_cast::<32, RESP_STATE_BITS>(self.st.val() >> QPSR_WRITE_RKEY);
        self.wrem.next = bit_cast::<32, RESP_STATE_BITS>(self.st.val() >> QPSR_WRITE_REMAINING);
        self.wlen.next = bit_cast::<32, RESP_STATE_BITS>(self.st.val() >> QPSR_WRITE_LEN);

        // ---- check 1: PSN against ePSN (serial: behind when the difference's top bit is set)
        self.diff.next = self.psn.val() - self.epsn.val();
        self.eq.next = self.psn.val() == self.epsn.val();
        self.behind.next = self.diff.val().get_bit(23);
        // ---- check 2: opcode sequence
        self.seq_ok.next = (self.in_prog.val() == IP_NONE) & !self.cont.val();
        if self.in_prog.val() == IP_SEND {
            self.seq_ok.next = self.send.val() & self.cont.val();
        } else if self.in_prog.val() == IP_WRITE {
            self.seq_ok.next = self.write.val() & self.cont.val();
        }
        // ---- check 4's inputs: a posted RECV, the WRITE's running values
        self.rq_avail.next = self.rq_prod.val() != self.recv_wqe.val();
        self.rem_eff.next = self.wrem.val();
        self.va_eff.next = self.wva.val();
        self.rkey_eff.next = self.wrkey.val();
        self.total_eff.next = self.wlen.val();
        if self.starts.val() {
            self.rem_eff.next = self.dmalen.val();
            self.va_eff.next = self.va.val();
            self.rkey_eff.next = self.rkey.val();
            self.total_eff.next = self.dmalen.val();
        }
        self.fits.next = self.plen.val() < self.wrem.val();
        if self.ends.val() {
            self.fits.next = self.plen.val() == self.wrem.val();
        }
        if self.starts.val() {
            self.fits.next = self.fits0.val();
        }
        self.base_placed.next = self.placed.val();
        if self.starts.val() {
            self.base_placed.next = 0.into();
        }
        self.sum_placed.next = self.base_placed.val() + self.plen.val();

        // ---- the verdict, in the model's order: not a request or the QP
        // stopped; ahead; behind; invalid (opcode, sequence, length, DMA
        // length, resources, alignment, WRITE lengths); RNR; executed
        self.live.next = self.req.val() & !self.flush.val() & (self.in_prog.val() != IP_ERROR);
        // an RQ flush (admitted only for a QP in error): every posted RECV
        // from the next one (a SEND may have been filling it) to RQ_PROD
        self.v_flush.next = self.flush.val() & self.rq_avail.val();
        self.bad_all.next = self.bad.val() | !self.seq_ok.val() | (self.write.val() & !self.fits.val());
        self.rnr_now.next = self.rnr_if.val() & !self.rq_avail.val();
        self.v_exec.next = self.live.val() & self.eq.val() & !self.bad_all.val() & !self.rnr_now.val();
        self.v_nak_inv.next = self.live.val() & self.eq.val() & self.bad_all.val();
        self.v_rnr.next = self.live.val() & self.eq.val() & !self.bad_all.val() & self.rnr_now.val();
        self.v_nak_seq.next =
            self.live.val() & !self.eq.val() & !self.behind.val() & !(self.st.val() >> QPSR_NAK_SENT).get_bit(0);
        self.v_dup.next = self.live.val() & !self.eq.val() & self.behind.val();
        self.v_exec_send.next = self.v_exec.val() & self.send.val();
        self.v_exec_write.next = self.v_exec.val() & self.write.val();
        self.v_exec_read.next = self.v_exec.val() & self.read.val();
        self.v_exec_atomic.next = self.v_exec.val() & self.atomic.val();
        self.v_dup_ack.next = self.v_dup.val() & (self.send.val() | self.write.val());
        self.verdict.next = RESP_DROP.into();
        // (a flush is no request: every other verdict is low with it)
        if self.v_flush.val() {
            self.verdict.next = RESP_EXEC_FLUSH.into();
        } else if self.flush.val() {
            self.verdict.next = RESP_FLUSH_NONE.into();
        } else if self.v_nak_seq.val() {
            self.verdict.next = RESP_NAK_SEQ.into();
        } else if self.v_nak_inv.val() {
            self.verdict.next = RESP_NAK_INV.into();
        } else if self.v_rnr.val() {
            self.verdict.next = RESP_RNR.into();
        } else if self.v_exec_send.val() {
            self.verdict.next = RESP_EXEC_SEND.into();
        } else if self.v_exec_write.val() {
            self.verdict.next = RESP_EXEC_WRITE.into();
        } else if self.v_exec_read.val() {
            self.verdict.next = RESP_EXEC_READ.into();
        } else if self.v_exec_atomic.val() {
            self.verdict.next = RESP_EXEC_ATOMIC.into();
        } else if self.v_dup.val() & self.send.val() {
            self.verdict.next = RESP_DUP_SEND.into();
        } else if self.v_dup.val() & self.write.val() {
            self.verdict.next = RESP_DUP_WRITE.into();
        } else if self.v_dup.val() & self.read.val() {
            self.verdict.next = RESP_DUP_READ.into();
        } else if self.v_dup.val() & self.atomic.val() {
            self.verdict.next = RESP_DUP_ATOMIC.into();
        }
        // the key check (a later stage): an executed READ/atomic, and a WRITE
        // FIRST/ONLY past the checks that come before it (its length and RNR
        // verdicts come after it)
        self.key_check.next = (self.v_exec_read.val() & !self.zero_dma.val())
            | self.v_exec_atomic.val()
            | (self.live.val()
                & self.eq.val()
                & self.write.val()
                & self.starts.val()
                & !self.bad.val()
                & self.seq_ok.val()
                & !self.too_long.val()
                & !self.zero_dma.val());

        // ---- the ACK/NAK to send now
        self.ack.next = ((self.v_exec_send.val() | self.v_exec_write.val()) & self.ackreq.val())
            | self.v_dup_ack.val()
            | self.v_nak_seq.val()
            | self.v_nak_inv.val()
            | self.v_rnr.val();
        self.syndrome.next = AETH_ACK.into();
        if self.v_nak_seq.val() {
            self.syndrome.next = AETH_NAK_SEQ.into();
        } else if self.v_nak_inv.val() {
            self.syndrome.next = AETH_NAK_INV.into();
        } else if self.v_rnr.val() {
            self.syndrome.next = bit_cast::<8, 5>(self.min_rnr.val()) | AETH_RNR;
        }
        self.aeth_psn.next = self.psn.val();
        if self.v_nak_seq.val() {
            self.aeth_psn.next = self.epsn.val();
        } else if self.v_dup_ack.val() {
            self.aeth_psn.next = self.epsn.val() - 1;
        }
        self.msn_before.next = self.msn.val();

        // ---- the key check / placement: the packet's operation
        self.key_access.next = ACC_REMOTE_WRITE.into();
        self.key_rkey.next = self.rkey_eff.val();
        self.key_va.next = self.va_eff.val();
        self.key_len.next = self.plen.val();
        if self.starts.val() {
            self.key_len.next = self.dmalen.val();
        }
        if self.read.val() {
            self.key_access.next = ACC_REMOTE_READ.into();
            self.key_rkey.next = self.rkey.val();
            self.key_va.next = self.va.val();
            self.key_len.next = self.dmalen.val();
        } else if self.atomic.val() {
            self.key_access.next = ACC_REMOTE_ATOMIC.into();
            self.key_rkey.next = self.rkey.val();
            self.key_va.next = self.va.val();
            self.key_len.next = 8.into();
        } else if self.send.val() {
            self.key_rkey.next = 0.into();
            self.key_va.next = 0.into();
            self.key_len.next = self.plen.val();
        }

        // ---- the RECV WQE: a SEND's, or a WRITE with immediate's at its end
        self.recv_new.next = (self.v_exec_send.val() & self.starts.val())
            | (self.v_exec_write.val() & self.imm.val())
            | self.v_flush.val();
        self.recv_done.next = (self.v_exec_send.val() & self.ends.val()) | (self.v_exec_write.val() & self.imm.val());
        self.recv_index.next = self.recv_wqe.val();
        self.recv_offset.next = self.base_placed.val();
        self.cqe_len.next = self.sum_placed.val();
        if self.write.val() {
            self.recv_offset.next = 0.into();
            self.cqe_len.next = self.total_eff.val();
        }
        if self.flush.val() {
            self.recv_offset.next = 0.into();
            self.cqe_len.next = 0.into();
        }

        // ---- the new state
        self.n_nak_sent.next = (self.st.val() >> QPSR_NAK_SENT).get_bit(0);
        self.n_ack_pending.next = (self.st.val() >> QPSR_ACK_PENDING).get_bit(0);
        self.n_in_prog.next = self.in_prog.val();
        self.n_recv_valid.next = (self.st.val() >> QPSR_RECV_VALID).get_bit(0);
        self.n_epsn.next = self.epsn.val();
        self.n_msn.next = self.msn.val();
        self.n_recv_wqe.next = self.recv_wqe.val();
        self.n_placed.next = self.placed.val();
        self.n_wva.next = self.wva.val();
        self.n_wrkey.next = self.wrkey.val();
        self.n_wrem.next = self.wrem.val();
        self.n_wlen.next = self.wlen.val();
        // the replay window [HEAD, HEAD + COUNT) of 16 slots: an executed READ
        // or atomic takes slot HEAD + COUNT, or recycles the oldest when full
        self.rp_head.next = bit_cast::<4, RESP_STATE_BITS>(self.st.val() >> QPSR_REPLAY_HEAD);
        self.rp_count.next = bit_cast::<5, RESP_STATE_BITS>(self.st.val() >> QPSR_REPLAY_COUNT);
        self.n_rp_head.next = self.rp_head.val();
        self.n_rp_count.next = self.rp_count.val();
        if self.v_exec_read.val() | self.v_exec_atomic.val() {
            if self.rp_count.val() >= self.max_res.val() {
                self.n_rp_head.next = self.rp_head.val() + 1;
            } else {
                self.n_rp_count.next = self.rp_count.val() + 1;
            }
        }
        if self.v_nak_seq.val() | self.v_rnr.val() {
            self.n_nak_sent.next = true;
        }
        if self.v_nak_inv.val() {
            // the expected PSN arrived: the episode ends; the QP stops
            self.n_nak_sent.next = false;
            self.n_in_prog.next = IP_ERROR.into();
        }
        if self.v_exec_send.val() | self.v_exec_write.val() {
            self.n_nak_sent.next = false;
            self.n_ack_pending.next = !self.ackreq.val();
            self.n_epsn.next = self.psn1.val();
            if self.ends.val() {
                self.n_in_prog.next = IP_NONE.into();
                self.n_msn.next = self.msn.val() + 1;
            }
        }
        if self.v_exec_send.val() {
            self.n_recv_valid.next = !self.ends.val();
            self.n_placed.next = self.sum_placed.val();
            if self.ends.val() {
                self.n_recv_wqe.next = self.recv_wqe.val() + 1;
                self.n_placed.next = 0.into();
            } else {
                self.n_in_prog.next = IP_SEND.into();
            }
        }
        if self.v_exec_write.val() {
            if self.imm.val() {
                self.n_recv_wqe.next = self.recv_wqe.val() + 1;
            }
            if !self.ends.val() {
                self.n_in_prog.next = IP_WRITE.into();
                self.n_wva.next = self.va_eff.val() + bit_cast::<64, 32>(self.plen.val());
                self.n_wrkey.next = self.rkey_eff.val();
                self.n_wrem.next = self.rem_eff.val() - self.plen.val();
                self.n_wlen.next = self.total_eff.val();
            }
        }
        if self.v_exec_read.val() | self.v_exec_atomic.val() {
            self.n_nak_sent.next = false;
            self.n_ack_pending.next = false;
            self.n_msn.next = self.msn.val() + 1;
            self.n_epsn.next = self.psn1.val();
            if self.v_exec_read.val() {
                self.n_epsn.next = self.psn.val() + self.npkts.val();
            }
        }
        if self.v_rnr.val() {
            self.n_nak_sent.next = true;
        }
        // a flush completes every RECV up to RQ_PROD (`resp_exec` walks them)
        if self.v_flush.val() {
            self.n_recv_valid.next = false;
            self.n_recv_wqe.next = self.rq_prod.val();
            self.n_placed.next = 0.into();
        }
        self.aeth_msn.next = self.n_msn.val();
        self.one.next = true;
        self.changed.next = self.v_exec_send.val()
            | self.v_exec_write.val()
            | self.v_exec_read.val()
            | self.v_exec_atomic.val()
            | self.v_nak_seq.val()
            | self.v_nak_inv.val()
            | self.v_rnr.val()
            | self.v_flush.val();
        self.new_st.next = (bit_cast::<RESP_STATE_BITS, 1>(self.one.val().into()) << QPSR_STARTED)
            | (bit_cast::<RESP_STATE_BITS, 1>(self.n_nak_sent.val().into()) << QPSR_NAK_SENT)
            | (bit_cast::<RESP_STATE_BITS, 1>(self.n_ack_pending.val().into()) << QPSR_ACK_PENDING)
            | (bit_cast::<RESP_STATE_BITS, 2>(self.n_in_prog.val()) << QPSR_IN_PROGRESS)
            | (bit_cast::<RESP_STATE_BITS, 1>(self.n_recv_valid.val().into()) << QPSR_RECV_VALID)
            | (bit_cast::<RESP_STATE_BITS, QPSR_RECV_SGE_W>(bit_cast::<QPSR_RECV_SGE_W, RESP_STATE_BITS>(
                self.st.val() >> QPSR_RECV_SGE,
            )) << QPSR_RECV_SGE)
            | (bit_cast::<RESP_STATE_BITS, 24>(self.n_epsn.val()) << QPSR_EPSN)
            | (bit_cast::<RESP_STATE_BITS, 24>(self.n_msn.val()) << QPSR_MSN)
            | (bit_cast::<RESP_STATE_BITS, 16>(self.n_recv_wqe.val()) << QPSR_RECV_WQE)
            | (bit_cast::<RESP_STATE_BITS, 32>(self.n_placed.val()) << QPSR_RECV_PLACED)
            | (bit_cast::<RESP_STATE_BITS, 32>(bit_cast::<32, RESP_STATE_BITS>(self.st.val() >> QPSR_SGE_OFFSET))
                << QPSR_SGE_OFFSET)
            | (bit_cast::<RESP_STATE_BITS, 64>(self.n_wva.val()) << QPSR_WRITE_VA)
            | (bit_cast::<RESP_STATE_BITS, 32>(self.n_wrkey.val()) << QPSR_WRITE_RKEY)
            | (bit_cast::<RESP_STATE_BITS, 32>(self.n_wrem.val()) << QPSR_WRITE_REMAINING)
            | (bit_cast::<RESP_STATE_BITS, 32>(self.n_wlen.val()) << QPSR_WRITE_LEN)
            | (bit_cast::<RESP_STATE_BITS, 4>(self.n_rp_head.val()) << QPSR_REPLAY_HEAD)
            | (bit_cast::<RESP_STATE_BITS, 5>(self.n_rp_count.val()) << QPSR_REPLAY_COUNT);
    }
}
