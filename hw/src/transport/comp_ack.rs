//! `CompAck`: the completer's handling of ACK and NAK packets (opcode
//! ACKNOWLEDGE) against the QP's outstanding send WQEs, as
//! `rnic_proto::rc::Requester::on_response` (the oracle;
//! docs/transport.md, "Completer"). For one response packet (released by
//! `RxHold`, ICRC good) with its QP's `qpc` and `qps` entries, it decides
//! ([`CompDecide`]):
//!
//! * the QP's completer is in error (`qps.COMP_ERROR`, or `qpc.STATE` ERR:
//!   the driver's modify, or its responder in error, `RESP_STARTED` and
//!   `IN_PROGRESS` ERROR: a fatal NAK it sent; the first record so flushes
//!   and writes COMP_ERROR): dropped, and a
//!   flush of whatever its list holds (WR_FLUSH_ERR; entries pushed after
//!   the QP's flush by jobs under way then, and the flush jobs' entries of
//!   WQEs never sent: `req_fetch`'s **Flush**);
//! * PSN not outstanding (not in [`UNA`, `SENT_END`), 24-bit serial):
//!   a ghost or duplicate, dropped and counted (`COMP_GHOST`);
//! * a READ response or atomic ACK (PSN outstanding): `COMP_RD_RESP`:
//!   acknowledge through PSN - 1 (an implied NAK if a READ/atomic WQE is
//!   reached, or if UNA is then not the PSN: go-back-N from UNA), then
//!   the head WQE's checks ([`CompWalk`]): not a READ (atomic) WQE, a
//!   wrong length or AETH -> BAD_RESP_ERR and the flush as a fatal NAK's;
//!   a READ response of a superseded message -> `stale` (dropped,
//!   counted); else `place`: with data, `m_place` asks `comp_read` to
//!   translate the pieces first (a failure completes the READ with
//!   LOC_PROT_ERR and flushes); then UNA = PSN + 1, and at LAST/ONLY or
//!   the atomic ACK the WQE completes (POP, CQE);
//! * a reserved AETH syndrome: dropped and counted as a ghost (`COMP_RESERVED`);
//! * ACK p: acknowledge through p; RNR NAK p: through p - 1, then an RNR
//!   wait {psn p, timer} for the retry timer; NAK PSN sequence error p:
//!   through p - 1, then go-back-N from p; any other NAK: through p - 1,
//!   then the head WQE completes with REM_INV_REQ_ERR / REM_ACCESS_ERR /
//!   REM_OP_ERR, every later WQE in the inflight list with WR_FLUSH_ERR, and
//!   the QP's completer goes to error.
//!
//! "Acknowledge through a" walks the QP's `inflight` list from its head
//! (HEAD, then POP per completed WQE; the child [`CompWalk`], which also
//! holds the CQE register and the state a walk changes): a WQE ending at or before a
//! completes (POP; a CQE for signaled ones), a WQE a lies inside moves UNA
//! to a + 1, a READ/atomic WQE reached is an implied NAK (go-back-N from
//! UNA instead of the action above; a fatal NAK ignores it). A go-back-N
//! is issued once per PSN without progress in between (`RETRY_VALID`,
//! `RETRY_PSN`: the model's `resend_once`), and clears `IN_READ_RESP`.
//!
//! **A send WQE whose payload translation failed** (`s_xerr`, from
//! `ReqPayload`: its packets were dropped there, so the peer NAKs the gap
//! or the retransmit timer runs out; docs/core.md, "Order of the remaining
//! work", item 6) is noted in one register {QPN, SQ index}, the last
//! failure reported. A record of that QP whose walk leaves the noted WQE at
//! the head (every WQE before it completed; not one that placed READ data,
//! whose record must go) takes a second pass instead of its record: a flush
//! from the head that walks nothing (`CompDecide::force`), so it completes
//! the noted WQE with LOC_PROT_ERR and every later one with WR_FLUSH_ERR,
//! and the record, with the packet's verdict, moves the QP's completer to
//! error; no go-back-N is asked. The note is then cleared, as it is by any
//! fatal record of its QP. A second QP's failure before the first's walk
//! replaces the note: the first WQE is then resent, fails again in
//! `ReqPayload`, whose own note has moved on, and is reported again, so it
//! usually ends in LOC_PROT_ERR one resend later (RETRY_EXC_ERR at worst).
//!
//! **A send WQE the requester refused** (`ReqGen`'s errors: NUM_SGE above
//! 4, a message above 2^31 bytes, ...; its entry is in the list with kind
//! `ENT_KIND_REFUSED` and its status in LEN) comes as a record of its own
//! (`RXF_LOCAL_ERR` beside `RXF_TIMER`, from `RxLookup::s_local`): the same
//! flush from the head that walks nothing, whatever is outstanding, with
//! WR_FLUSH_ERR first. So WQEs sent before it and not yet acknowledged are
//! flushed too (rxe completes them first, then the refused one: the
//! in-order version is docs/core.md's plan), the refused one completes
//! with its own status (LOC_QP_OP_ERR, LOC_LEN_ERR), and the QP's
//! completer goes to error. Its verdict is `COMP_ACK`, which no counter
//! takes, and it is not a timeout.
//!
//! Ports:
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_pkt` (`hdr`, `qpc`, `qps`) | in | as `resp_check`'s: the received header (`wire::RX_HDR_FIELDS`: opcode, dest QP, PSN, AETH syndrome), `qpc` (SQ_PSN, SQ_CONS, SEND_CQ, RETRY_CNT, RNR_RETRY), `qps` (the requester's REQ_STARTED and SENT_END, the completer's bytes); `ready` from registers |
//! | `m_inf` | out | commands to the `inflight` table (HEAD, POP of QPN mod 2^14) |
//! | `s_inf` | in | its responses, in command order |
//! | `m_cqe` | out | CQE requests {cq, wr_id, status, opcode, byte_len, qpn, wqe_index}, in WQE order; from registers |
//! | `m_place` / `s_placed` | out / in | a READ response's placement {`qpn`, `index`, `fresh`, `offset`, `plen`, and the QP's `sq_base`, `sq_log`, `pd` from `qpc`} asked of `comp_read`, and its verdict (`ok`) |
//! | `cqe_placed` | out | the CQE on `m_cqe` completes a READ whose last packet placed data (`Completer` holds it until the data is written) |
//! | `m_hint` ([`ReadHintOut`](super::ReadHintOut)) | out | after a READ/atomic completed with more WQEs of the QP in flight: the next SQ index with the QP's `sq_base`, `sq_log`, for `comp_read` to read ahead (a one-cycle pulse from registers; no `ready`) |
//! | `s_xerr` ([`XlateErrIn`]) | in | a WQE whose payload translation failed {QPN, SQ index, verdict}: the note (above); always ready |
//! | `m_dec` | out | one record per packet after its walk: `verdict` (`COMP_*`), `implied`, `action` (`CACT_*`) with `action_psn`, `timer` (RNR) or `status` (error), and the completer's new bytes `wr_data`/`wr_mask` for `ctx_cache.write(qpn, wr_mask, wr_data)` when `write`, `wake` when that write moves UNA or the QP is in error (the send scheduler is told once it is in the cache: a requester stopped by its window starts again, one in error flushes); for a READ response / atomic ACK `stale`, `place` with `atomic`, `last`, `wqe_index`, `offset`, `plen`, `lane`, `orig` (the placement for `comp_read`); from registers |
//!
//! **One packet at a time; consecutive packets of one QP.** The block takes
//! a packet only when idle and its previous record is taken, and keeps
//! the last record's state (`fw_*`): a packet of the same QP uses it
//! instead of the offered `qps`. The caller's contract is `resp_check`'s:
//! the `qps` offered with a packet holds the writes of every record taken
//! before the cycle the packet was first offered; only the previous
//! packet's record can be missing (the one before was taken before the
//! previous packet was), and the forwarding register has it.
//!
//! **Latency** (nothing stalls): a packet without a walk (dropped, ghost,
//! not handled, or acknowledging nothing new) is on `m_dec` at t +
//! [`COMP_LATENCY_NO_WALK`]; a walk adds [`COMP_HEAD_CYCLES`] for the first
//! HEAD and [`COMP_WQE_CYCLES`] per completed WQE (POP and the next HEAD
//! issued back to back, then the table's 6-cycle answer). **Rate**: one
//! packet every `latency + 1` cycles: the inflight round trip per WQE
//! dominates; line rate wants the walks of different QPs interleaved
//! (docs/transport_blocks.md, "`comp_ack`").

use super::{
    CompWalk, InflightCmdOut, InflightRespIn, PlaceAnsIn, PlaceReqOut, ReadHintOut, RespPktIn, XlateErrIn,
    INFLIGHT_ENTRY_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_QPN_BITS, REQ_INDEX_BITS, REQ_QPN_BITS,
};
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::layouts::qps;
use rust_hdl::prelude::*;

/// Bits of the completer's word of a `qps` entry (`COMPLETER_BYTES`).
pub const COMP_STATE_BITS: usize = 8 * (qps::COMPLETER_BYTES.end - qps::COMPLETER_BYTES.start);
/// Widths of `m_dec.verdict` and `m_dec.action`.
pub const COMP_VERDICT_BITS: usize = 3;
pub const COMP_ACTION_BITS: usize = 2;
/// Cycles from a packet taken to its record on `m_dec` without a walk.
pub const COMP_LATENCY_NO_WALK: u64 = 3;
/// Cycles a walk adds for its first HEAD (command, the table's latency, the decision).
pub const COMP_HEAD_CYCLES: u64 = 1 + super::INFLIGHT_LATENCY;
/// Cycles a walk adds per completed WQE (POP and HEAD commands, the table's latency).
pub const COMP_WQE_CYCLES: u64 = 2 + super::INFLIGHT_LATENCY;
/// Cycles a READ response / atomic ACK adds after the HEAD answer that
/// names its WQE (`CompWalk`'s three checks).
pub const COMP_CHECK_CYCLES: u64 = 3;
const _: () = assert!(COMP_STATE_BITS == 104 && QPS_COMP_LSB == 96 && COMP_RD_RESP < 8 && CACT_ERROR < 4);

const E: usize = INFLIGHT_LOG_ENTRIES;
const W: usize = INFLIGHT_ENTRY_BITS;

/// The packet's state.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum CompState {
    /// Waiting for a packet (and for the previous record to be taken).
    Idle,
    /// The decision on the captured packet (and the walk's start).
    Decide,
    /// The walk ([`CompWalk`]) runs.
    Walk,
    /// The record (or, for a WQE noted as failed, the second pass).
    Finish,
}

/// The per-packet decision (combinational): verdict, the PSN to
/// acknowledge through, whether the inflight list must be walked, and a
/// fatal NAK's completion status.
#[derive(LogicBlock, Default)]
pub struct CompDecide {
    pub opcode: Signal<In, Bits<8>>,
    pub syndrome: Signal<In, Bits<8>>,
    pub psn: Signal<In, Bits<24>>,
    /// PSN - UNA and SENT_END - UNA (24-bit serial), registered by the caller.
    pub psn_off: Signal<In, Bits<24>>,
    pub end_off: Signal<In, Bits<24>>,
    /// A flush `CompAck` makes itself: no walk, fatal.
    pub force: Signal<In, Bit>,
    /// The QP's completer is in error: dropped, and a flush of what its
    /// list holds (no walk, fatal).
    pub error: Signal<In, Bit>,
    pub verdict: Signal<Out, Bits<COMP_VERDICT_BITS>>,
    pub ack_psn: Signal<Out, Bits<24>>,
    pub walk: Signal<Out, Bit>,
    pub fatal: Signal<Out, Bit>,
    pub status: Signal<Out, Bits<8>>,
    pub rd: Signal<Out, Bit>,
    outstanding: Signal<Local, Bit>,
    valid_ack: Signal<Local, Bit>,
    is_rd: Signal<Local, Bit>,
    kind: Signal<Local, Bits<2>>,
    code: Signal<Local, Bits<5>>,
    kind_tag: TypeTag<Self>,
}

impl Logic for CompDecide {
    #[hdl_gen]
    fn update(&mut self) {
        // outstanding: PSN - UNA < SENT_END - UNA (24-bit serial; the
        // differences from registers: a compare, not two subtractions, before the walk)
        self.outstanding.next = self.psn_off.val() < self.end_off.val();
        self.kind.next = (self.syndrome.val() >> AETH_KIND_LSB).get_bits::<2>(0);
        self.code.next = self.syndrome.val().get_bits::<5>(0);
        self.is_rd.next = ((self.opcode.val() >= BTH_RC_READ_RESP_FIRST)
            & (self.opcode.val() <= BTH_RC_READ_RESP_ONLY))
            | (self.opcode.val() == BTH_RC_ATOMIC_ACK);
        self.ack_psn.next = self.psn.val() - 1;
        self.status.next = WCS_REM_OP_ERR.into();
        if self.code.val() == AETH_NAK_INVALID_REQ {
            self.status.next = WCS_REM_INV_REQ_ERR.into();
        } else if self.code.val() == AETH_NAK_REMOTE_ACCESS {
            self.status.next = WCS_REM_ACCESS_ERR.into();
        }
        self.verdict.next = COMP_NAK_FATAL.into();
        if self.error.val() {
            self.verdict.next = COMP_DROP.into();
        } else if !self.outstanding.val() {
            self.verdict.next = COMP_GHOST.into();
        } else if self.is_rd.val() {
            self.verdict.next = COMP_RD_RESP.into();
        } else if (self.opcode.val() != BTH_RC_ACKNOWLEDGE) | self.syndrome.val().get_bit(7) | (self.kind.val() == 2) {
            // (not a response opcode: never given by the caller)
            self.verdict.next = COMP_RESERVED.into();
        } else if self.kind.val() == AETH_KIND_ACK {
            self.verdict.next = COMP_ACK.into();
            self.ack_psn.next = self.psn.val();
        } else if self.kind.val() == AETH_KIND_RNR_NAK {
            self.verdict.next = COMP_RNR.into();
        } else if self.code.val() == AETH_NAK_PSN_SEQ {
            self.verdict.next = COMP_NAK_SEQ.into();
        }
        // a walk when the PSN to acknowledge through is at or after UNA: an
        // ACK's PSN is (outstanding); a NAK's PSN - 1 is unless the PSN is
        // UNA. `walk` and `fatal` from the conditions, beside the verdict's
        // priority (levels: they start the walk)
        self.valid_ack.next = !self.error.val()
            & self.outstanding.val()
            & (self.opcode.val() == BTH_RC_ACKNOWLEDGE)
            & !(self.syndrome.val().get_bit(7) | (self.kind.val() == 2));
        // a READ response or atomic ACK always walks: through PSN - 1, then
        // the HEAD of its WQE
        self.rd.next = !self.error.val() & self.outstanding.val() & self.is_rd.val() & !self.force.val();
        self.walk.next = ((self.valid_ack.val() & ((self.kind.val() == AETH_KIND_ACK) | self.psn_off.val().any()))
            | self.rd.val())
            & !self.force.val();
        // (in error every record flushes what is in the list: entries
        // pushed after the QP's flush, by jobs under way then or by flush jobs)
        self.fatal.next =
            (self.valid_ack.val() & (self.kind.val() == AETH_KIND_NAK) & (self.code.val() != AETH_NAK_PSN_SEQ))
                | self.force.val()
                | self.error.val();
    }
}

/// CQE requests.
#[derive(LogicInterface, Default)]
#[join = "CompCqeIn"]
pub struct CompCqeOut {
    pub cq: Signal<Out, Bits<24>>,
    pub wr_id: Signal<Out, Bits<64>>,
    pub status: Signal<Out, Bits<8>>,
    pub opcode: Signal<Out, Bits<8>>,
    pub byte_len: Signal<Out, Bits<32>>,
    pub qpn: Signal<Out, Bits<24>>,
    pub wqe_index: Signal<Out, Bits<16>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "CompCqeOut"]
pub struct CompCqeIn {
    pub cq: Signal<In, Bits<24>>,
    pub wr_id: Signal<In, Bits<64>>,
    pub status: Signal<In, Bits<8>>,
    pub opcode: Signal<In, Bits<8>>,
    pub byte_len: Signal<In, Bits<32>>,
    pub qpn: Signal<In, Bits<24>>,
    pub wqe_index: Signal<In, Bits<16>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// The per-packet record (module doc).
#[derive(LogicInterface, Default)]
pub struct CompDecOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub psn: Signal<Out, Bits<24>>,
    pub verdict: Signal<Out, Bits<COMP_VERDICT_BITS>>,
    pub implied: Signal<Out, Bit>,
    pub action: Signal<Out, Bits<COMP_ACTION_BITS>>,
    pub action_psn: Signal<Out, Bits<24>>,
    pub timer: Signal<Out, Bits<5>>,
    pub status: Signal<Out, Bits<8>>,
    pub write: Signal<Out, Bit>,
    pub wr_mask: Signal<Out, Bits<64>>,
    pub wr_data: Signal<Out, Bits<512>>,
    /// The write moves UNA: the requester's window may have reopened.
    pub wake: Signal<Out, Bit>,
    /// The record is a synthetic one (a retransmit timer's expiry, a
    /// refused WQE's `RXF_LOCAL_ERR`), not a packet's: no payload.
    pub expiry: Signal<Out, Bit>,
    /// ... of the RNR timer (kind 1).
    pub expiry_rnr: Signal<Out, Bit>,
    /// (Re)arm the QP's retransmit timer with `ack_timeout` (`qpc.TIMEOUT`):
    /// the record moved UNA and PSNs are still outstanding.
    pub arm: Signal<Out, Bit>,
    pub ack_timeout: Signal<Out, Bits<5>>,
    pub stale: Signal<Out, Bit>,
    pub place: Signal<Out, Bit>,
    pub atomic: Signal<Out, Bit>,
    pub last: Signal<Out, Bit>,
    pub wqe_index: Signal<Out, Bits<16>>,
    pub offset: Signal<Out, Bits<32>>,
    pub plen: Signal<Out, Bits<16>>,
    pub lane: Signal<Out, Bits<6>>,
    pub orig: Signal<Out, Bits<64>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct CompAck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_pkt: RespPktIn,
    pub m_inf: InflightCmdOut<INFLIGHT_QPN_BITS, E, W>,
    pub s_inf: InflightRespIn<E, { INFLIGHT_LOG_ENTRIES + 1 }, W>,
    pub m_cqe: CompCqeOut,
    pub m_dec: CompDecOut,
    /// A READ response's placement asked of `comp_read`, and its verdict.
    pub m_place: PlaceReqOut,
    pub s_placed: PlaceAnsIn,
    /// The CQE on `m_cqe` completes a READ whose last packet placed data.
    pub cqe_placed: Signal<Out, Bit>,
    /// The QP's next WQE after a completed READ/atomic, when more are in
    /// flight: `comp_read` reads it ahead (a pulse from registers).
    pub m_hint: ReadHintOut,
    /// A WQE whose payload translation failed (`ReqTx::m_xerr`): noted;
    /// always ready.
    pub s_xerr: XlateErrIn,
    /// A QP context was dropped (`HostIf::qp_inval`, which names no QP):
    /// the note is forgotten, so a new QP of its number cannot inherit it.
    /// A live QP's noted WQE then ends in RETRY_EXC_ERR instead of
    /// LOC_PROT_ERR (`ReqPayload` reports a WQE once: its resends fail
    /// silently); a QPN with the pulse would keep the note.
    pub inval: Signal<In, Bit>,

    dec: CompDecide,
    // ---- the last local translation failure {QPN, SQ index} (module doc)
    xe_v: Reg<Bit>,
    xe_qpn: Reg<Bits<REQ_QPN_BITS>>,
    xe_index: Reg<Bits<REQ_INDEX_BITS>>,
    /// A flush from the head that walks nothing: the second pass of a
    /// packet for the noted WQE (`fail_prot`: LOC_PROT_ERR first), or a
    /// refused WQE's record (WR_FLUSH_ERR, the refused entry its own).
    fail: Reg<Bit>,
    fail_prot: Reg<Bit>,
    // ---- the read-ahead hint, latched at the READ's completion
    h_qpn: Reg<Bits<24>>,
    h_index: Reg<Bits<16>>,
    h_base: Reg<Bits<64>>,
    h_log: Reg<Bits<4>>,
    h_valid: Reg<Bit>,
    walk: CompWalk,
    state: Reg<CompState>,
    // ---- the packet
    qpn: Reg<Bits<24>>,
    psn: Reg<Bits<24>>,
    opcode: Reg<Bits<8>>,
    syndrome: Reg<Bits<8>>,
    sent_end: Reg<Bits<24>>,
    /// UNA before the packet.
    una0: Reg<Bits<24>>,
    psn_off: Reg<Bits<24>>,
    end_off: Reg<Bits<24>>,
    cq: Reg<Bits<24>>,
    pmtu: Reg<Bits<3>>,
    plen: Reg<Bits<16>>,
    lane: Reg<Bits<6>>,
    orig: Reg<Bits<64>>,
    sq_base: Reg<Bits<64>>,
    sq_log: Reg<Bits<4>>,
    pd: Reg<Bits<24>>,
    init: Reg<Bit>,
    verdict: Reg<Bits<COMP_VERDICT_BITS>>,
    // ---- a timer's expiry: its retries spent (RETRY_EXC_ERR); the context's counts
    timer: Reg<Bit>,
    /// an RNR timer's record; an RNR NAK with its RNR retries spent; the
    /// context's RNR retry count; the QP was in an RNR wait
    rnr_tmr: Reg<Bit>,
    rnr_exc: Reg<Bit>,
    rnr_cfg: Reg<Bits<3>>,
    rnr_wait: Reg<Bit>,
    retry_cnt: Reg<Bits<3>>,
    tmo_code: Reg<Bits<5>>,
    // ---- the completer's state the walk does not change
    retry_psn: Reg<Bits<24>>,
    error: Reg<Bit>,
    retries: Reg<Bits<3>>,
    rnr_retries: Reg<Bits<3>>,
    // ---- the record
    o_valid: Reg<Bit>,
    o_verdict: Reg<Bits<COMP_VERDICT_BITS>>,
    o_implied: Reg<Bit>,
    o_action: Reg<Bits<COMP_ACTION_BITS>>,
    o_action_psn: Reg<Bits<24>>,
    o_timer: Reg<Bits<5>>,
    o_status: Reg<Bits<8>>,
    o_write: Reg<Bit>,
    o_wake: Reg<Bit>,
    o_arm: Reg<Bit>,
    o_st: Reg<Bits<COMP_STATE_BITS>>,
    // ---- forwarding: the last record's state
    fw_valid: Reg<Bit>,
    fw_qpn: Reg<Bits<24>>,
    fw_st: Reg<Bits<COMP_STATE_BITS>>,
    // ---- combinational
    in_qpn: Signal<Local, Bits<24>>,
    in_st: Signal<Local, Bits<COMP_STATE_BITS>>,
    start_st: Signal<Local, Bits<COMP_STATE_BITS>>,
    in_timer: Signal<Local, Bit>,
    in_rnr_tmr: Signal<Local, Bit>,
    in_local: Signal<Local, Bit>,
    in_rnr_exc: Signal<Local, Bit>,
    fw_hit: Signal<Local, Bit>,
    pk_st: Signal<Local, Bits<COMP_STATE_BITS>>,
    pk_on: Signal<Local, Bit>,
    fw_on: Signal<Local, Bit>,
    sent_in: Signal<Local, Bits<24>>,
    sq_psn: Signal<Local, Bits<24>>,
    pk_ne: Signal<Local, Bit>,
    fw_ne: Signal<Local, Bit>,
    pk_eq: Signal<Local, Bit>,
    fw_eq: Signal<Local, Bit>,
    pk_r0: Signal<Local, Bit>,
    fw_r0: Signal<Local, Bit>,
    pk_n0: Signal<Local, Bit>,
    fw_n0: Signal<Local, Bit>,
    pk_ok: Signal<Local, Bit>,
    fw_ok: Signal<Local, Bit>,
    tmr_exc: Signal<Local, Bit>,
    rnr_new: Signal<Local, Bits<3>>,
    rnr_action: Signal<Local, Bit>,
    rnr_wait_new: Signal<Local, Bit>,
    in_sent_end: Signal<Local, Bits<24>>,
    start_una: Signal<Local, Bits<24>>,
    in_psn: Signal<Local, Bits<24>>,
    take: Signal<Local, Bit>,
    progress: Signal<Local, Bit>,
    retries_new: Signal<Local, Bits<3>>,
    resend_psn: Signal<Local, Bits<24>>,
    new_st: Signal<Local, Bits<COMP_STATE_BITS>>,
    fin_st: Signal<Local, Bits<COMP_STATE_BITS>>,
    fin_write: Signal<Local, Bit>,
    fin_resend: Signal<Local, Bit>,
    xe_hit: Signal<Local, Bit>,
    one: Signal<Local, Bit>,
    all24: Signal<Local, Bits<24>>,
    kind: TypeTag<Self>,
}

impl Logic for CompAck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            qpn,
            psn,
            opcode,
            syndrome,
            sent_end,
            una0,
            psn_off,
            end_off,
            cq,
            pmtu,
            plen,
            lane,
            orig,
            sq_base,
            sq_log,
            pd,
            h_qpn,
            h_index,
            h_base,
            h_log,
            h_valid,
            init,
            verdict,
            timer,
            rnr_tmr,
            rnr_exc,
            rnr_cfg,
            rnr_wait,
            retry_cnt,
            tmo_code,
            retry_psn,
            error,
            retries,
            rnr_retries,
            o_valid,
            o_verdict,
            o_implied,
            o_action,
            o_action_psn,
            o_timer,
            o_status,
            o_write,
            o_wake,
            o_arm,
            o_st,
            fw_valid,
            fw_qpn,
            fw_st,
            xe_v,
            xe_qpn,
            xe_index,
            fail,
            fail_prot
        );
        clock!(self, clock, walk);
        self.walk.reset.next = self.reset.val();
        InflightCmdOut::<INFLIGHT_QPN_BITS, E, W>::link(&mut self.m_inf, &mut self.walk.m_inf);
        InflightRespIn::<E, { INFLIGHT_LOG_ENTRIES + 1 }, W>::link(&mut self.s_inf, &mut self.walk.s_inf);
        CompCqeOut::link(&mut self.m_cqe, &mut self.walk.m_cqe);
        self.cqe_placed.next = self.walk.cqe_placed.val();
        // the hint: the QP's registers as the READ completes, offered one
        // cycle once the POP's answer says more WQEs are in flight
        if self.walk.hint_arm.val() {
            self.h_qpn.d.next = self.qpn.q.val();
            self.h_index.d.next = self.walk.hint_index.val();
            self.h_base.d.next = self.sq_base.q.val();
            self.h_log.d.next = self.sq_log.q.val();
        }
        self.h_valid.d.next = self.walk.hint_go.val();
        self.m_hint.qpn.next = self.h_qpn.q.val();
        self.m_hint.index.next = self.h_index.q.val();
        self.m_hint.sq_base.next = self.h_base.q.val();
        self.m_hint.sq_log.next = self.h_log.q.val();
        self.m_hint.valid.next = self.h_valid.q.val();
        // ---- the placement request (fields from registers held through the walk)
        self.m_place.qpn.next = self.qpn.q.val();
        self.m_place.index.next = self.walk.ent_index.val();
        // (an atomic ACK: its original value, 8 bytes into the WQE's SGE, read fresh)
        self.m_place.fresh.next = (self.opcode.q.val() == BTH_RC_READ_RESP_FIRST)
            | (self.opcode.q.val() == BTH_RC_READ_RESP_ONLY)
            | (self.opcode.q.val() == BTH_RC_ATOMIC_ACK);
        self.m_place.offset.next = self.walk.offset.val();
        self.m_place.plen.next = self.plen.q.val();
        if self.opcode.q.val() == BTH_RC_ATOMIC_ACK {
            self.m_place.plen.next = ATOMIC_LEN.into();
        }
        self.m_place.sq_base.next = self.sq_base.q.val();
        self.m_place.sq_log.next = self.sq_log.q.val();
        self.m_place.pd.next = self.pd.q.val();
        self.m_place.valid.next = self.walk.pl_valid.val();
        self.walk.pl_ready.next = self.m_place.ready.val();
        self.walk.pl_done.next = self.s_placed.valid.val();
        self.walk.pl_ok.next = self.s_placed.ok.val();
        // ---- outputs, every one from a register (or a gate of registers)
        self.s_pkt.ready.next = (self.state.q.val() == CompState::Idle) & !self.o_valid.q.val();
        self.m_dec.qpn.next = self.qpn.q.val();
        self.m_dec.psn.next = self.psn.q.val();
        self.m_dec.verdict.next = self.o_verdict.q.val();
        self.m_dec.implied.next = self.o_implied.q.val();
        self.m_dec.action.next = self.o_action.q.val();
        self.m_dec.action_psn.next = self.o_action_psn.q.val();
        self.m_dec.timer.next = self.o_timer.q.val();
        self.m_dec.status.next = self.o_status.q.val();
        self.m_dec.write.next = self.o_write.q.val();
        self.m_dec.wake.next = self.o_wake.q.val();
        self.m_dec.expiry.next = self.timer.q.val();
        self.m_dec.expiry_rnr.next = self.rnr_tmr.q.val();
        self.m_dec.arm.next = self.o_arm.q.val();
        self.m_dec.ack_timeout.next = self.tmo_code.q.val();
        self.m_dec.wr_mask.next = COMP_WR_MASK.into();
        self.m_dec.wr_data.next = bit_cast::<512, COMP_STATE_BITS>(self.o_st.q.val()) << QPS_COMP_LSB;
        self.m_dec.stale.next = self.walk.stale.val();
        self.m_dec.place.next = self.walk.place.val();
        self.m_dec.atomic.next = self.opcode.q.val() == BTH_RC_ATOMIC_ACK;
        self.m_dec.last.next = (self.opcode.q.val() == BTH_RC_READ_RESP_LAST)
            | (self.opcode.q.val() == BTH_RC_READ_RESP_ONLY)
            | (self.opcode.q.val() == BTH_RC_ATOMIC_ACK);
        self.m_dec.wqe_index.next = self.walk.ent_index.val();
        self.m_dec.offset.next = self.walk.offset.val();
        self.m_dec.plen.next = self.plen.q.val();
        self.m_dec.lane.next = self.lane.q.val();
        self.m_dec.orig.next = self.orig.q.val();
        self.m_dec.valid.next = self.o_valid.q.val();
        if self.m_dec.ready.val() {
            self.o_valid.d.next = false;
        }

        // the walk left the WQE noted as failed at the head (every WQE
        // before it completed): a second pass flushes from it with
        // LOC_PROT_ERR instead of the record (not after a placement: the
        // READ's data is this record's to write; the next record comes)
        self.xe_hit.next = self.xe_v.q.val()
            & (self.xe_qpn.q.val() == self.qpn.q.val().get_bits::<REQ_QPN_BITS>(0))
            & (self.xe_index.q.val() == self.walk.head_wqe.val())
            & !self.walk.fatal_out.val()
            & !self.walk.place.val()
            & !self.error.q.val();
        // (before the capture: its registers' deep inputs stay last)
        if (self.state.q.val() == CompState::Finish) & self.xe_hit.val() {
            // the flush alone, walking nothing (`dec.force`)
            self.state.d.next = CompState::Decide;
            self.fail.d.next = true;
            self.fail_prot.d.next = true;
            self.xe_v.d.next = false;
            self.opcode.d.next = BTH_RC_ACKNOWLEDGE.into();
        }
        // ---- capture: the packet, its context, its state (forwarded from
        // the last record of the same QP; on the QP's first use after RTS,
        // UNA and the head from SQ_PSN and SQ_CONS, the retry counts from
        // the context)
        self.take.next = (self.state.q.val() == CompState::Idle) & self.s_pkt.valid.val() & !self.o_valid.q.val();
        self.in_qpn.next = self.s_pkt.hdr.val().get_bits::<24>(RXF_DESTQP);
        self.in_st.next = bit_cast::<COMP_STATE_BITS, 512>(self.s_pkt.qps.val() >> QPS_COMP_LSB);
        self.fw_hit.next = self.fw_valid.q.val() & (self.fw_qpn.q.val() == self.in_qpn.val());
        if self.fw_hit.val() {
            self.in_st.next = self.fw_st.q.val();
        }
        self.start_st.next = self.in_st.val();
        if !(self.in_st.val() >> QPSC_STARTED).get_bit(0) {
            self.start_st.next = bit_cast::<COMP_STATE_BITS, 24>(self.s_pkt.qpc.val().get_bits::<24>(QPC_SQ_PSN))
                << QPSC_UNA
                | bit_cast::<COMP_STATE_BITS, 24>(self.s_pkt.qpc.val().get_bits::<24>(QPC_SQ_PSN)) << QPSC_HEAD_FIRST
                | bit_cast::<COMP_STATE_BITS, 16>(self.s_pkt.qpc.val().get_bits::<16>(QPC_SQ_CONS)) << QPSC_HEAD_WQE
                | bit_cast::<COMP_STATE_BITS, 3>(self.s_pkt.qpc.val().get_bits::<3>(QPC_RETRY_CNT)) << QPSC_RETRIES
                | bit_cast::<COMP_STATE_BITS, 3>(self.s_pkt.qpc.val().get_bits::<3>(QPC_RNR_RETRY)) << QPSC_RNR_RETRIES;
        }
        // a timer's record: a NAK at UNA (the PSN the header does not know)
        self.in_timer.next = self.s_pkt.hdr.val().get_bit(RXF_TIMER);
        self.in_rnr_tmr.next = self.s_pkt.hdr.val().get_bit(RXF_TIMER_RNR);
        self.in_local.next = self.in_timer.val() & self.s_pkt.hdr.val().get_bit(RXF_LOCAL_ERR);
        self.start_una.next = (self.start_st.val() >> QPSC_UNA).get_bits::<24>(0);
        // nothing sent before the requester started: nothing outstanding
        self.in_sent_end.next = self.s_pkt.qps.val().get_bits::<24>(QPS_SENT_END);
        if !self.s_pkt.qps.val().get_bit(QPS_REQ_STARTED) {
            self.in_sent_end.next = self.start_una.val();
        }
        self.in_psn.next = self.s_pkt.hdr.val().get_bits::<24>(RXF_PSN);
        if self.in_timer.val() {
            self.in_psn.next = self.start_una.val();
        }
        // Retries spent with PSNs outstanding (a timer's record), RNR
        // retries spent at UNA (an RNR NAK): decided for each source of the
        // state (the packet's `qps`, the forwarded record, the start values
        // from `qpc`), compares from the inputs, chosen after (a choice of
        // the state and then a 24-bit compare was 8.50 levels)
        self.pk_st.next = bit_cast::<COMP_STATE_BITS, 512>(self.s_pkt.qps.val() >> QPS_COMP_LSB);
        self.pk_on.next = (self.pk_st.val() >> QPSC_STARTED).get_bit(0);
        self.fw_on.next = (self.fw_st.q.val() >> QPSC_STARTED).get_bit(0);
        self.sent_in.next = self.s_pkt.qps.val().get_bits::<24>(QPS_SENT_END);
        self.sq_psn.next = self.s_pkt.qpc.val().get_bits::<24>(QPC_SQ_PSN);
        self.pk_ne.next = (self.pk_st.val() >> QPSC_UNA).get_bits::<24>(0) != self.sent_in.val();
        self.fw_ne.next = (self.fw_st.q.val() >> QPSC_UNA).get_bits::<24>(0) != self.sent_in.val();
        self.pk_eq.next =
            (self.pk_st.val() >> QPSC_UNA).get_bits::<24>(0) == self.s_pkt.hdr.val().get_bits::<24>(RXF_PSN);
        self.fw_eq.next =
            (self.fw_st.q.val() >> QPSC_UNA).get_bits::<24>(0) == self.s_pkt.hdr.val().get_bits::<24>(RXF_PSN);
        self.pk_r0.next = !(self.pk_st.val() >> QPSC_RETRIES).get_bits::<3>(0).any();
        self.fw_r0.next = !(self.fw_st.q.val() >> QPSC_RETRIES).get_bits::<3>(0).any();
        self.pk_n0.next = !(self.pk_st.val() >> QPSC_RNR_RETRIES).get_bits::<3>(0).any();
        self.fw_n0.next = !(self.fw_st.q.val() >> QPSC_RNR_RETRIES).get_bits::<3>(0).any();
        if !self.pk_on.val() {
            self.pk_ne.next = self.sq_psn.val() != self.sent_in.val();
            self.pk_eq.next = self.sq_psn.val() == self.s_pkt.hdr.val().get_bits::<24>(RXF_PSN);
            self.pk_r0.next = !self.s_pkt.qpc.val().get_bits::<3>(QPC_RETRY_CNT).any();
            self.pk_n0.next = !self.s_pkt.qpc.val().get_bits::<3>(QPC_RNR_RETRY).any();
        }
        if !self.fw_on.val() {
            self.fw_ne.next = self.sq_psn.val() != self.sent_in.val();
            self.fw_eq.next = self.sq_psn.val() == self.s_pkt.hdr.val().get_bits::<24>(RXF_PSN);
            self.fw_r0.next = !self.s_pkt.qpc.val().get_bits::<3>(QPC_RETRY_CNT).any();
            self.fw_n0.next = !self.s_pkt.qpc.val().get_bits::<3>(QPC_RNR_RETRY).any();
        }
        // (in error nothing is spent: the record flushes)
        self.pk_ok.next = self.s_pkt.qps.val().get_bit(QPS_REQ_STARTED)
            & self.pk_ne.val()
            & !(self.pk_on.val() & (self.pk_st.val() >> QPSC_ERROR).get_bit(0));
        self.fw_ok.next = self.s_pkt.qps.val().get_bit(QPS_REQ_STARTED)
            & self.fw_ne.val()
            & !(self.fw_on.val() & (self.fw_st.q.val() >> QPSC_ERROR).get_bit(0));
        self.tmr_exc.next = self.pk_ok.val() & self.pk_r0.val();
        self.in_rnr_exc.next = self.pk_ok.val() & self.pk_n0.val() & self.pk_eq.val();
        if self.fw_hit.val() {
            self.tmr_exc.next = self.fw_ok.val() & self.fw_r0.val();
            self.in_rnr_exc.next = self.fw_ok.val() & self.fw_n0.val() & self.fw_eq.val();
        }
        // (bit 7 clear, kind 01: an RNR NAK)
        self.in_rnr_exc.next =
            self.in_rnr_exc.val() & !self.in_timer.val() & (self.s_pkt.hdr.val().get_bits::<3>(RXF_AETH_KIND) == 1);
        self.walk.load.next = self.take.val();
        self.walk.load_st.next = self.start_st.val();
        self.walk.qpn.next = self.qpn.q.val();
        self.walk.cq.next = self.cq.q.val();
        if self.take.val() {
            self.state.d.next = CompState::Decide;
            self.qpn.d.next = self.in_qpn.val();
            self.psn.d.next = self.in_psn.val();
            self.psn_off.d.next = self.in_psn.val() - self.start_una.val();
            self.end_off.d.next = self.in_sent_end.val() - self.start_una.val();
            self.timer.d.next = self.in_timer.val();
            self.rnr_tmr.d.next = self.in_timer.val() & self.in_rnr_tmr.val();
            self.rnr_cfg.d.next = self.s_pkt.qpc.val().get_bits::<3>(QPC_RNR_RETRY);
            self.rnr_wait.d.next = (self.start_st.val() >> QPSC_RNR_WAIT).get_bit(0);
            // an RNR NAK at UNA with the RNR retries spent (7 is without
            // limit and never spent): a fatal NAK, RNR_RETRY_EXC_ERR
            self.rnr_exc.d.next = self.in_rnr_exc.val();
            self.retry_cnt.d.next = self.s_pkt.qpc.val().get_bits::<3>(QPC_RETRY_CNT);
            self.tmo_code.d.next = self.s_pkt.qpc.val().get_bits::<5>(QPC_TIMEOUT);
            self.opcode.d.next = self.s_pkt.hdr.val().get_bits::<8>(RXF_OPCODE);
            self.syndrome.d.next = self.s_pkt.hdr.val().get_bits::<8>(RXF_AETH_SYNDROME);
            // a timer's record with its retries spent and PSNs outstanding:
            // a fatal NAK (RETRY_EXC_ERR, the flush), decided here so the
            // walk's start sees the syndrome register alone
            if self.in_timer.val() & !self.in_rnr_tmr.val() & self.tmr_exc.val() {
                self.syndrome.d.next = TIMER_EXC_SYNDROME.into();
            }
            if self.in_rnr_exc.val() {
                self.syndrome.d.next = TIMER_EXC_SYNDROME.into();
            }
            // a refused WQE's record: the flush from the head, walking
            // nothing, whatever is outstanding (`dec.force`); it keeps a
            // verdict no count takes
            self.fail.d.next = self.in_local.val();
            self.fail_prot.d.next = false;
            self.verdict.d.next = COMP_ACK.into();
            self.cq.d.next = self.s_pkt.qpc.val().get_bits::<24>(QPC_SEND_CQ);
            self.pmtu.d.next = self.s_pkt.qpc.val().get_bits::<3>(QPC_PMTU);
            self.plen.d.next = self.s_pkt.hdr.val().get_bits::<16>(RXF_PAYLOAD_LEN);
            self.lane.d.next = self.s_pkt.hdr.val().get_bits::<6>(RXF_PAYLOAD_LANE);
            self.orig.d.next = self.s_pkt.hdr.val().get_bits::<64>(RXF_ATOMIC_ORIG);
            self.sq_base.d.next = self.s_pkt.qpc.val().get_bits::<64>(QPC_SQ_BASE);
            self.sq_log.d.next = self.s_pkt.qpc.val().get_bits::<4>(QPC_SQ_LOG);
            self.pd.d.next = self.s_pkt.qpc.val().get_bits::<24>(QPC_PD);
            self.init.d.next = !(self.in_st.val() >> QPSC_STARTED).get_bit(0);
            self.retry_psn.d.next = (self.start_st.val() >> QPSC_RETRY_PSN).get_bits::<24>(0);
            // (a QP the driver moved to ERR, or whose responder sent a fatal
            // NAK, is in error as a failed one is)
            self.error.d.next = (self.start_st.val() >> QPSC_ERROR).get_bit(0)
                | (self.s_pkt.qpc.val().get_bits::<4>(QPC_STATE) == QP_STATE_ERR)
                | (self.s_pkt.qps.val().get_bit(QPS_RESP_STARTED_POS)
                    & self.s_pkt.qps.val().get_bit(QPS_IN_PROGRESS_POS)
                    & self.s_pkt.qps.val().get_bit(QPS_IN_PROGRESS_POS + 1));
            self.retries.d.next = (self.start_st.val() >> QPSC_RETRIES).get_bits::<3>(0);
            self.rnr_retries.d.next = (self.start_st.val() >> QPSC_RNR_RETRIES).get_bits::<3>(0);
            self.una0.d.next = self.start_una.val();
            self.sent_end.d.next = self.in_sent_end.val();
        }

        // ---- the decision on the captured packet starts the walk
        self.dec.opcode.next = self.opcode.q.val();
        self.dec.syndrome.next = self.syndrome.q.val();
        self.dec.psn.next = self.psn.q.val();
        self.dec.psn_off.next = self.psn_off.q.val();
        self.dec.end_off.next = self.end_off.q.val();
        self.dec.force.next = self.fail.q.val();
        self.dec.error.next = self.error.q.val();
        self.walk.start.next = self.state.q.val() == CompState::Decide;
        self.walk.head.next = self.dec.walk.val();
        self.walk.fatal.next = self.dec.fatal.val();
        self.walk.ack_psn.next = self.dec.ack_psn.val();
        self.walk.nak_status.next = self.dec.status.val();
        if self.timer.q.val() {
            // (a timer's record is fatal only with its retries spent)
            self.walk.nak_status.next = WCS_RETRY_EXC_ERR.into();
        }
        if self.rnr_exc.q.val() {
            self.walk.nak_status.next = WCS_RNR_RETRY_EXC_ERR.into();
        }
        if self.fail.q.val() | self.error.q.val() {
            self.walk.nak_status.next = WCS_WR_FLUSH_ERR.into();
            if self.fail_prot.q.val() {
                self.walk.nak_status.next = WCS_LOC_PROT_ERR.into();
            }
        }
        self.walk.rd.next = self.dec.rd.val();
        self.walk.rd_atomic.next = self.opcode.q.val() == BTH_RC_ATOMIC_ACK;
        self.walk.rd_first.next =
            (self.opcode.q.val() == BTH_RC_READ_RESP_FIRST) | (self.opcode.q.val() == BTH_RC_READ_RESP_ONLY);
        // (each from registers in its own statement: no path through the
        // parent's main block, which reads `walk.done`)
        self.walk.rd_last.next = (self.opcode.q.val() == BTH_RC_READ_RESP_LAST)
            | (self.opcode.q.val() == BTH_RC_READ_RESP_ONLY)
            | (self.opcode.q.val() == BTH_RC_ATOMIC_ACK);
        // the AETH an ACK (FIRST, LAST, ONLY, atomic ACK; MIDDLE has none:
        // the parser's layout follows the opcode)
        self.walk.rd_aeth_ok.next = (self.opcode.q.val() == BTH_RC_READ_RESP_MIDDLE)
            | (!self.syndrome.q.val().get_bit(7)
                & (self.syndrome.q.val().get_bits::<2>(AETH_KIND_POS) == AETH_KIND_ACK));
        self.walk.psn.next = self.psn.q.val();
        self.walk.plen.next = self.plen.q.val();
        self.walk.pmtu.next = self.pmtu.q.val();
        if self.state.q.val() == CompState::Decide {
            // (the second pass keeps the packet's verdict for the record)
            if !self.fail.q.val() {
                self.verdict.d.next = self.dec.verdict.val();
            }
            self.state.d.next = CompState::Walk;
        }
        if self.walk.done.val() {
            self.state.d.next = CompState::Finish;
        }

        // ---- the record: a go-back-N once per PSN without progress, from
        // UNA after an implied NAK, else from the NAK's PSN (it clears
        // IN_READ_RESP); a fatal NAK sets COMP_ERROR
        self.resend_psn.next = self.psn.q.val();
        if self.walk.implied.val() | (self.verdict.q.val() != COMP_NAK_SEQ) {
            self.resend_psn.next = self.walk.una.val();
        }
        self.one.next = true;
        self.all24.next = 0xff_ffff.into();
        // progress (UNA moved) restores the retries; a timer's resend spends one
        self.progress.next = self.walk.una.val() != self.una0.q.val();
        self.fin_resend.next = (self.walk.implied.val() | (self.verdict.q.val() == COMP_NAK_SEQ))
            & !self.walk.fatal_out.val()
            & (self.timer.q.val() | !(self.walk.retry_valid.val() & (self.retry_psn.q.val() == self.resend_psn.val())));
        self.retries_new.next = self.retries.q.val();
        if self.progress.val() {
            self.retries_new.next = self.retry_cnt.q.val();
        }
        if self.fin_resend.val() & self.timer.q.val() & !self.rnr_tmr.q.val() {
            self.retries_new.next = self.retries.q.val() - 1;
        }
        // an RNR NAK: an RNR retry spent (none below 0; 7: without limit)
        // and the requester stopped until the RNR timer's record; progress
        // restores the count and ends the wait, as any timer's record does
        self.rnr_action.next =
            (self.verdict.q.val() == COMP_RNR) & !self.walk.implied.val() & !self.walk.fatal_out.val();
        self.rnr_new.next = self.rnr_retries.q.val();
        if self.progress.val() {
            self.rnr_new.next = self.rnr_cfg.q.val();
        }
        if self.rnr_action.val() & (self.rnr_new.val() != 7) & self.rnr_new.val().any() {
            self.rnr_new.next = self.rnr_new.val() - 1;
        }
        self.rnr_wait_new.next =
            (self.rnr_wait.q.val() & !self.progress.val() & !self.timer.q.val()) | self.rnr_action.val();
        self.new_st.next = bit_cast::<COMP_STATE_BITS, 1>(self.one.val().into()) << QPSC_STARTED
            | bit_cast::<COMP_STATE_BITS, 1>(self.walk.in_read.val().into()) << QPSC_IN_READ
            | bit_cast::<COMP_STATE_BITS, 1>(self.walk.retry_valid.val().into()) << QPSC_RETRY_VALID
            | bit_cast::<COMP_STATE_BITS, 3>(self.retries_new.val()) << QPSC_RETRIES
            | bit_cast::<COMP_STATE_BITS, 1>(self.error.q.val().into()) << QPSC_ERROR
            | bit_cast::<COMP_STATE_BITS, 5>(self.walk.rd_done.val()) << QPSC_RD_DONE
            | bit_cast::<COMP_STATE_BITS, 3>(self.rnr_new.val()) << QPSC_RNR_RETRIES
            | bit_cast::<COMP_STATE_BITS, 1>(self.rnr_wait_new.val().into()) << QPSC_RNR_WAIT
            | bit_cast::<COMP_STATE_BITS, 24>(self.walk.head_first.val()) << QPSC_HEAD_FIRST
            | bit_cast::<COMP_STATE_BITS, 24>(self.walk.una.val()) << QPSC_UNA
            | bit_cast::<COMP_STATE_BITS, 24>(self.retry_psn.q.val()) << QPSC_RETRY_PSN
            | bit_cast::<COMP_STATE_BITS, 16>(self.walk.head_wqe.val()) << QPSC_HEAD_WQE;
        self.fin_st.next = self.new_st.val();
        if self.walk.fatal_out.val() {
            self.fin_st.next =
                self.new_st.val() | (bit_cast::<COMP_STATE_BITS, 1>(self.one.val().into()) << QPSC_ERROR);
        } else if self.fin_resend.val() {
            self.fin_st.next = (self.new_st.val()
                & !(bit_cast::<COMP_STATE_BITS, 24>(self.all24.val()) << QPSC_RETRY_PSN)
                & !(bit_cast::<COMP_STATE_BITS, 1>(self.one.val().into()) << QPSC_IN_READ))
                | (bit_cast::<COMP_STATE_BITS, 24>(self.resend_psn.val()) << QPSC_RETRY_PSN)
                | (bit_cast::<COMP_STATE_BITS, 1>(self.one.val().into()) << QPSC_RETRY_VALID);
        } else if (self.verdict.q.val() == COMP_RNR) & !self.walk.implied.val() {
            // the RNR wait ends in a resend from the NAK's PSN (or the QP's
            // error): a READ in progress is superseded, as the model's
            // `resend_from` when the timer fires
            self.fin_st.next =
                self.new_st.val() & !(bit_cast::<COMP_STATE_BITS, 1>(self.one.val().into()) << QPSC_IN_READ);
        }
        // written when the state may have changed, or on the QP's first use
        // (a timer's record always: it ends an RNR wait even with nothing outstanding)
        // (and in error: the record's flush moved the head)
        self.fin_write.next = self.init.q.val()
            | (self.verdict.q.val() >= COMP_ACK)
            | self.timer.q.val()
            | self.fail.q.val()
            | self.error.q.val();
        if (self.state.q.val() == CompState::Finish) & !self.xe_hit.val() {
            self.state.d.next = CompState::Idle;
            self.o_valid.d.next = true;
            self.o_verdict.d.next = self.verdict.q.val();
            self.o_implied.d.next = self.walk.implied.val();
            self.o_action.d.next = CACT_NONE.into();
            self.o_action_psn.d.next = self.psn.q.val();
            self.o_timer.d.next = self.syndrome.q.val().get_bits::<5>(0);
            self.o_status.d.next = self.walk.nak_status_q.val();
            if self.walk.fatal_out.val() {
                // (the QP's move into error; a flush in error is no action)
                if !self.error.q.val() {
                    self.o_action.d.next = CACT_ERROR.into();
                }
            } else if (self.verdict.q.val() == COMP_RNR) & !self.walk.implied.val() {
                self.o_action.d.next = CACT_RNR_WAIT.into();
            } else if self.fin_resend.val() {
                self.o_action.d.next = CACT_RESEND.into();
                self.o_action_psn.d.next = self.resend_psn.val();
            }
            self.o_write.d.next = self.fin_write.val();
            // a wake when UNA moved (room), or to serve a resend
            // (and in error: the requester's flush grants take the WQEs left)
            self.o_wake.d.next = self.fin_write.val()
                & (self.progress.val()
                    | self.fin_resend.val()
                    | (self.timer.q.val() & self.rnr_wait.q.val())
                    | self.walk.fatal_out.val());
            self.o_arm.d.next = self.fin_write.val()
                & self.progress.val()
                & (self.walk.una.val() != self.sent_end.q.val())
                & !self.walk.fatal_out.val();
            self.o_st.d.next = self.fin_st.val();
            if self.walk.fatal_out.val() & (self.xe_qpn.q.val() == self.qpn.q.val().get_bits::<REQ_QPN_BITS>(0)) {
                // the QP is in error: no walk of it comes again
                self.xe_v.d.next = false;
            }
            if self.fin_write.val() {
                self.fw_valid.d.next = true;
                self.fw_qpn.d.next = self.qpn.q.val();
                self.fw_st.d.next = self.fin_st.val();
            }
        }

        // the note: the last failure reported (always taken)
        self.s_xerr.ready.next = true;
        if self.s_xerr.valid.val() {
            self.xe_v.d.next = true;
            self.xe_qpn.d.next = self.s_xerr.qpn.val();
            self.xe_index.d.next = self.s_xerr.sq_index.val();
        }
        if self.inval.val() {
            self.xe_v.d.next = false;
        }
        if self.reset.val() {
            self.state.d.next = CompState::Idle;
            self.xe_v.d.next = false;
            self.fail.d.next = false;
            self.h_valid.d.next = false;
            self.o_valid.d.next = false;
            self.fw_valid.d.next = false;
        }
    }
}
