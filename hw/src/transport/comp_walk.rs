//! `CompWalk`: the child of [`CompAck`](super::CompAck) that walks a QP's
//! `inflight` list for one packet (HEAD, then POP per completed WQE) and
//! writes the CQEs, holding the part of the completer's state a walk
//! changes: UNA, the head WQE (`HEAD_FIRST`, `HEAD_WQE`), `RETRY_VALID`,
//! `RD_DONE`, `IN_READ_RESP`, and the walk's `implied` flag.
//!
//! For a READ response or atomic ACK (`rd` with `start`) the walk goes
//! through PSN - 1 as a NAK's and then needs the head WQE the response
//! belongs to: the HEAD answer that ends the acknowledging part is kept
//! (`ent_q`) and checked in three more cycles (`Check1..3`: the offset
//! `(PSN - FIRST_PSN) << log2(PMTU)` and UNA = PSN, the remainder, the
//! decision): UNA != PSN -> `implied`; not a READ (atomic) WQE, or a wrong
//! length or AETH -> BAD_RESP_ERR and the flush (`fatal_out`); a READ
//! response FIRST/ONLY against `IN_READ_RESP` set (MIDDLE/LAST against it
//! clear) -> `stale`; else `place` with UNA = PSN + 1, `IN_READ_RESP` =
//! FIRST/MIDDLE, and at LAST/ONLY or the atomic ACK the POP with its CQE
//! (from `ent_q`). A READ response with data first asks `comp_read` to
//! place it (`Place`: `pl_valid`, then the verdict `pl_done`/`pl_ok`):
//! those effects only once every piece is translated; a failure is the
//! model's `fail(LOC_PROT_ERR)` (the flush, as a fatal NAK's), and the
//! CQE of a READ whose last packet placed data is marked (`cqe_placed`)
//! for the caller to hold until the data is written.
//!
//! Ports (inside `CompAck`):
//!
//! | port | dir | what |
//! |---|---|---|
//! | `load`, `load_st` | in | the parent captured a packet: take UNA, HEAD_FIRST, HEAD_WQE, RETRY_VALID, RD_DONE from the completer's state word `load_st` |
//! | `start` with `head`, `fatal`, `ack_psn`, `nak_status` | in | the parent's decision: walk from HEAD acknowledging through `ack_psn` (`head`), then flush if `fatal` (a fatal NAK completing with `nak_status`) |
//! | `rd`, `rd_atomic`, `rd_first`, `rd_last`, `rd_aeth_ok`, `psn`, `plen`, `pmtu` | in | a READ response (`rd_first`: FIRST/ONLY, `rd_last`: LAST/ONLY) or atomic ACK (`rd_atomic`, `rd_last`), its AETH is an ACK or absent as its opcode wants, its PSN, payload length and the QP's PMTU code; held by the parent during the walk |
//! | `pl_valid` / `pl_ready`, `pl_done` + `pl_ok` | out / in, in | the placement of a READ response with data asked (a register) and `comp_read`'s verdict (a pulse, taken in `Place`) |
//! | `cqe_placed` | out | the CQE on `m_cqe` completes a READ whose last packet placed data (a register) |
//! | `hint_arm`, `hint_index`, `hint_go` | out | a READ/atomic completes (a pulse, with the POP's step): its SQ index + 1; then `hint_go` (a register) when the POP's answer (the next one not awaited) says more WQEs of the QP are in flight: the parent's read-ahead hint to `comp_read` |
//! | `stale`, `place`, `fatal_out`, `in_read`, `offset`, `ent_index` | out | the READ response's outcome (registers): dropped as stale, to be placed at `offset` in WQE `ent_index` (SQ index); a fatal flush; the new `IN_READ_RESP` |
//! | `done` | out | the walk ends this cycle (combinational; with `start` when there is nothing to walk) |
//! | `una`, `head_first`, `head_wqe`, `retry_valid`, `rd_done`, `implied`, `nak_status_q` | out | the state after the walk, from registers |
//! | `m_inf`, `s_inf`, `m_cqe` | out/in/out | the parent's ports (linked) |
//!
//! A flushed entry of kind `ENT_KIND_REFUSED` (a WQE `ReqGen` refused)
//! completes with the status its LEN holds, wherever it is in the flush.
//!
//! A walk is a sequence of steps, each written once: `head` (a HEAD
//! command), `pop` (the POP of a completed WQE), `flush_pop` (a POP that
//! completes the head in error), `walk_end` (the acknowledging part is
//! over: a flush if fatal, else `done`). Every answer advances the state
//! the same way (`advance`) when its WQE leaves the list.
//!
//! Timing: a command is on `m_inf` the cycle after its step; a HEAD's
//! answer is taken [`INFLIGHT_LATENCY`](super::INFLIGHT_LATENCY) cycles
//! after the command (`CompAck`'s `COMP_HEAD_CYCLES`, `COMP_WQE_CYCLES`).
//! A POP of a completed WQE is followed by the next HEAD at once; its
//! answer is dropped when it comes (`pend_pops`).

use super::{
    CompCqeOut, InflightCmdOut, InflightRespIn, COMP_STATE_BITS, INFLIGHT_ENTRY_BITS, INFLIGHT_LOG_ENTRIES,
    INFLIGHT_QPN_BITS,
};
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

const E: usize = INFLIGHT_LOG_ENTRIES;
const W: usize = INFLIGHT_ENTRY_BITS;

/// The walk's state.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum WalkState {
    /// No walk (the parent is capturing, deciding or writing its record).
    Idle,
    /// A command on `m_inf` (HEAD or POP).
    Command,
    /// Waiting for the answer to the last HEAD (or, in a flush, POP).
    Wait,
    /// A READ response's checks: offset and UNA = PSN, kind.
    Check1,
    /// The remainder of the WQE from the offset.
    Check2,
    /// The decision.
    Check3,
    /// A READ response with data: waiting for `comp_read`'s verdict on its
    /// placement (every piece translated, or a failure) before any effect.
    Place,
}

#[derive(LogicBlock, Default)]
pub struct CompWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub qpn: Signal<In, Bits<24>>,
    pub cq: Signal<In, Bits<24>>,
    pub load: Signal<In, Bit>,
    pub load_st: Signal<In, Bits<COMP_STATE_BITS>>,
    pub start: Signal<In, Bit>,
    pub head: Signal<In, Bit>,
    pub fatal: Signal<In, Bit>,
    pub ack_psn: Signal<In, Bits<24>>,
    pub nak_status: Signal<In, Bits<8>>,
    pub rd: Signal<In, Bit>,
    pub rd_atomic: Signal<In, Bit>,
    pub rd_first: Signal<In, Bit>,
    pub rd_last: Signal<In, Bit>,
    pub rd_aeth_ok: Signal<In, Bit>,
    pub psn: Signal<In, Bits<24>>,
    pub plen: Signal<In, Bits<16>>,
    pub pmtu: Signal<In, Bits<3>>,
    pub stale: Signal<Out, Bit>,
    pub place: Signal<Out, Bit>,
    pub fatal_out: Signal<Out, Bit>,
    pub in_read: Signal<Out, Bit>,
    pub offset: Signal<Out, Bits<32>>,
    pub ent_index: Signal<Out, Bits<16>>,
    pub done: Signal<Out, Bit>,
    pub una: Signal<Out, Bits<24>>,
    pub head_first: Signal<Out, Bits<24>>,
    pub head_wqe: Signal<Out, Bits<16>>,
    pub retry_valid: Signal<Out, Bit>,
    pub rd_done: Signal<Out, Bits<5>>,
    pub implied: Signal<Out, Bit>,
    pub nak_status_q: Signal<Out, Bits<8>>,
    pub m_inf: InflightCmdOut<INFLIGHT_QPN_BITS, E, W>,
    pub s_inf: InflightRespIn<E, { INFLIGHT_LOG_ENTRIES + 1 }, W>,
    pub m_cqe: CompCqeOut,
    /// A READ response's placement asked of `comp_read` (a register; the
    /// fields are the parent's), and its verdict (a pulse, taken in Place).
    pub pl_valid: Signal<Out, Bit>,
    pub pl_ready: Signal<In, Bit>,
    pub pl_done: Signal<In, Bit>,
    pub pl_ok: Signal<In, Bit>,
    /// The CQE on `m_cqe` completes a READ whose last packet placed data:
    /// the caller holds it until that data is written.
    pub cqe_placed: Signal<Out, Bit>,
    /// A READ or atomic completes (a pulse, with its POP): the QP's next WQE
    /// is `hint_index`; `hint_go` (a registered pulse) follows when the
    /// POP's answer says more WQEs are in flight (so that one was sent).
    pub hint_arm: Signal<Out, Bit>,
    pub hint_index: Signal<Out, Bits<16>>,
    pub hint_go: Signal<Out, Bit>,

    state: Reg<WalkState>,
    hint_wait: Reg<Bit>,
    hint_pop_q: Reg<Bit>,
    hint_more_q: Reg<Bit>,
    pl_v: Reg<Bit>,
    cqe_placed_q: Reg<Bit>,
    fatal_q: Reg<Bit>,
    ack_psn_q: Reg<Bits<24>>,
    status_q: Reg<Bits<8>>,
    una_q: Reg<Bits<24>>,
    head_first_q: Reg<Bits<24>>,
    head_wqe_q: Reg<Bits<16>>,
    retry_valid_q: Reg<Bit>,
    rd_done_q: Reg<Bits<5>>,
    in_read_q: Reg<Bit>,
    rd_q: Reg<Bit>,
    stale_q: Reg<Bit>,
    place_q: Reg<Bit>,
    ent_q: Reg<Bits<W>>,
    offset_q: Reg<Bits<32>>,
    // the remainder's two comparisons, registered in Check2 (comparing the
    // registered remainder in Check3 put two carry chains before the
    // decision's wide mux: 7.95 levels)
    rem_gt_pmtu: Reg<Bit>,
    rem_eq_plen: Reg<Bit>,
    una_bad: Reg<Bit>,
    kind_bad: Reg<Bit>,
    flush: Reg<Bit>,
    flush_first: Reg<Bit>,
    implied_q: Reg<Bit>,
    walk_more: Reg<Bit>,
    pend_pops: Reg<Bits<5>>,
    cmd_valid: Reg<Bit>,
    cmd_op: Reg<Bits<3>>,
    cqe_valid: Reg<Bit>,
    cqe_cq: Reg<Bits<24>>,
    cqe_qpn: Reg<Bits<24>>,
    cqe_wr_id: Reg<Bits<64>>,
    cqe_status: Reg<Bits<8>>,
    cqe_opcode: Reg<Bits<8>>,
    cqe_len: Reg<Bits<32>>,
    cqe_index: Reg<Bits<16>>,
    // ---- combinational: the answered entry and the step taken
    e_index: Signal<Local, Bits<16>>,
    e_first: Signal<Local, Bits<24>>,
    e_last: Signal<Local, Bits<24>>,
    e_kind: Signal<Local, Bits<4>>,
    e_rd: Signal<Local, Bit>,
    e_op: Signal<Local, Bits<8>>,
    k_first: Signal<Local, Bits<24>>,
    k_last: Signal<Local, Bits<24>>,
    k_kind: Signal<Local, Bits<4>>,
    k_index: Signal<Local, Bits<16>>,
    k_delta: Signal<Local, Bits<32>>,
    k_diff: Signal<Local, Bits<33>>,
    k_pmtu: Signal<Local, Bits<32>>,
    k_len_ok: Signal<Local, Bit>,
    check: Signal<Local, Bit>,
    rd_cqe: Signal<Local, Bit>,
    need_pl: Signal<Local, Bit>,
    c3_place: Signal<Local, Bit>,
    c3_bad: Signal<Local, Bit>,
    pl_ans: Signal<Local, Bit>,
    do_place: Signal<Local, Bit>,
    pl_fail: Signal<Local, Bit>,
    r_take: Signal<Local, Bit>,
    answer: Signal<Local, Bit>,
    is_fatal: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    step_head: Signal<Local, Bit>,
    step_pop: Signal<Local, Bit>,
    step_flush: Signal<Local, Bit>,
    flush_more: Signal<Local, Bit>,
    walk_end: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for CompWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            pl_v,
            cqe_placed_q,
            fatal_q,
            ack_psn_q,
            status_q,
            una_q,
            head_first_q,
            head_wqe_q,
            retry_valid_q,
            rd_done_q,
            in_read_q,
            rd_q,
            stale_q,
            place_q,
            ent_q,
            offset_q,
            rem_gt_pmtu,
            rem_eq_plen,
            una_bad,
            kind_bad,
            flush,
            flush_first,
            implied_q,
            walk_more,
            pend_pops,
            hint_wait,
            hint_pop_q,
            hint_more_q,
            cmd_valid,
            cmd_op,
            cqe_valid,
            cqe_cq,
            cqe_qpn,
            cqe_wr_id,
            cqe_status,
            cqe_opcode,
            cqe_len,
            cqe_index
        );
        // ---- outputs, from registers
        self.una.next = self.una_q.q.val();
        self.head_first.next = self.head_first_q.q.val();
        self.head_wqe.next = self.head_wqe_q.q.val();
        self.retry_valid.next = self.retry_valid_q.q.val();
        self.rd_done.next = self.rd_done_q.q.val();
        self.implied.next = self.implied_q.q.val();
        self.nak_status_q.next = self.status_q.q.val();
        self.stale.next = self.stale_q.q.val();
        self.place.next = self.place_q.q.val();
        self.fatal_out.next = self.fatal_q.q.val();
        self.in_read.next = self.in_read_q.q.val();
        self.pl_valid.next = self.pl_v.q.val();
        if self.pl_ready.val() {
            self.pl_v.d.next = false;
        }
        self.cqe_placed.next = self.cqe_placed_q.q.val();
        self.offset.next = self.offset_q.q.val();
        self.ent_index.next = (self.ent_q.q.val() >> ENT_WQE_INDEX).get_bits::<16>(0);
        self.m_inf.op.next = self.cmd_op.q.val();
        self.m_inf.qpn.next = self.qpn.val().get_bits::<INFLIGHT_QPN_BITS>(0);
        self.m_inf.index.next = 0.into();
        self.m_inf.data.next = 0.into();
        self.m_inf.valid.next = self.cmd_valid.q.val();
        // a POP's answer nobody waits for is taken at once; the awaited one
        // when the CQE register is free
        self.s_inf.ready.next =
            self.pend_pops.q.val().any() | ((self.state.q.val() == WalkState::Wait) & !self.cqe_valid.q.val());
        self.m_cqe.cq.next = self.cqe_cq.q.val();
        self.m_cqe.wr_id.next = self.cqe_wr_id.q.val();
        self.m_cqe.status.next = self.cqe_status.q.val();
        self.m_cqe.opcode.next = self.cqe_opcode.q.val();
        self.m_cqe.byte_len.next = self.cqe_len.q.val();
        self.m_cqe.qpn.next = self.cqe_qpn.q.val();
        self.m_cqe.wqe_index.next = self.cqe_index.q.val();
        self.m_cqe.valid.next = self.cqe_valid.q.val();
        if self.m_cqe.ready.val() {
            self.cqe_valid.d.next = false;
        }
        if self.m_inf.ready.val() {
            self.cmd_valid.d.next = false;
        }

        // ---- the inflight entry answered
        self.e_index.next = (self.s_inf.data.val() >> ENT_WQE_INDEX).get_bits::<16>(0);
        self.e_first.next = (self.s_inf.data.val() >> ENT_FIRST_PSN).get_bits::<24>(0);
        self.e_last.next = (self.s_inf.data.val() >> ENT_LAST_PSN).get_bits::<24>(0);
        self.e_kind.next = (self.s_inf.data.val() >> ENT_KIND).get_bits::<4>(0);
        self.e_rd.next = (self.e_kind.val() == SOP_RDMA_READ)
            | (self.e_kind.val() == SOP_CMP_SWAP)
            | (self.e_kind.val() == SOP_FETCH_ADD);
        self.e_op.next = WCO_SEND.into();
        if (self.e_kind.val() == SOP_RDMA_WRITE) | (self.e_kind.val() == SOP_RDMA_WRITE_IMM) {
            self.e_op.next = WCO_RDMA_WRITE.into();
        } else if self.e_kind.val() == SOP_RDMA_READ {
            self.e_op.next = WCO_RDMA_READ.into();
        } else if self.e_kind.val() == SOP_CMP_SWAP {
            self.e_op.next = WCO_COMP_SWAP.into();
        } else if self.e_kind.val() == SOP_FETCH_ADD {
            self.e_op.next = WCO_FETCH_ADD.into();
        }
        self.r_take.next = self.s_inf.valid.val() & self.s_inf.ready.val();
        if self.r_take.val() & self.pend_pops.q.val().any() {
            self.pend_pops.d.next = self.pend_pops.q.val() - 1;
        }
        // the awaited answer (a HEAD's, or a flush POP's)
        self.answer.next = (self.state.q.val() == WalkState::Wait) & self.r_take.val() & !self.pend_pops.q.val().any();
        self.is_fatal.next = self.fatal_q.q.val();

        // ---- the step taken this cycle (at most one)
        self.step_head.next = false;
        self.step_pop.next = false;
        self.flush_more.next = false;
        self.walk_end.next = false;
        self.advance.next = false;
        self.check.next = false;
        self.rd_cqe.next = false;
        if self.start.val() {
            self.is_fatal.next = self.fatal.val();
            self.step_head.next = self.head.val();
            self.walk_end.next = !self.head.val();
        }
        if (self.state.q.val() == WalkState::Command)
            & self.m_inf.ready.val()
            & (self.cmd_op.q.val() == INFLIGHT_POP)
            & !self.flush.q.val()
        {
            // the POP of a completed WQE: then the next HEAD, or the end
            self.step_head.next = self.walk_more.q.val();
            self.walk_end.next = !self.walk_more.q.val();
        }
        if self.answer.val() & self.flush.q.val() {
            // fatal NAK: each POP's answer completes the head in error
            self.flush_more.next = !self.s_inf.empty.val();
            self.advance.next = !self.s_inf.empty.val();
        } else if self.answer.val() {
            // HEAD's answer against the PSN acknowledged through
            self.walk_end.next = true;
            if self.s_inf.empty.val() | (self.ack_psn_q.q.val() - self.e_first.val()).get_bit(23) {
                // nothing (more) to acknowledge; a READ response's WQE
                self.check.next = self.rd_q.q.val() & !self.s_inf.empty.val();
                self.walk_end.next = !self.check.val();
            } else if self.e_rd.val() {
                // a READ/atomic reached: implied NAK
                self.implied_q.d.next = true;
            } else if (self.ack_psn_q.q.val() - self.e_last.val()).get_bit(23) {
                // the PSN lies inside this WQE (a READ response's WQE)
                self.una_q.d.next = self.ack_psn_q.q.val() + 1;
                self.retry_valid_q.d.next = false;
                self.check.next = self.rd_q.q.val();
                self.walk_end.next = !self.rd_q.q.val();
            } else {
                // the WQE completes: POP, a CQE if signaled
                self.walk_end.next = false;
                self.step_pop.next = true;
                self.advance.next = true;
                self.retry_valid_q.d.next = false;
                self.walk_more.d.next = (self.e_last.val() != self.ack_psn_q.q.val()) | self.rd_q.q.val();
            }
        }
        // ---- a READ response / atomic ACK: its WQE's checks (module doc)
        // (an atomic ACK places its original value: 8 bytes, never 0)
        self.need_pl.next = self.rd_atomic.val() | self.plen.val().any();
        self.k_first.next = (self.ent_q.q.val() >> ENT_FIRST_PSN).get_bits::<24>(0);
        self.k_last.next = (self.ent_q.q.val() >> ENT_LAST_PSN).get_bits::<24>(0);
        self.k_kind.next = (self.ent_q.q.val() >> ENT_KIND).get_bits::<4>(0);
        self.k_index.next = (self.ent_q.q.val() >> ENT_WQE_INDEX).get_bits::<16>(0);
        self.k_delta.next = bit_cast::<32, 24>(self.psn.val() - self.k_first.val());
        self.k_pmtu.next = 4096.into();
        if self.pmtu.val() == MTU_256 {
            self.k_pmtu.next = 256.into();
        } else if self.pmtu.val() == MTU_512 {
            self.k_pmtu.next = 512.into();
        } else if self.pmtu.val() == MTU_1024 {
            self.k_pmtu.next = 1024.into();
        } else if self.pmtu.val() == MTU_2048 {
            self.k_pmtu.next = 2048.into();
        }
        // (`walk_end` and `state` are written in separate statements: the
        // emitter's `always_comb` groups stay free of loops)
        // FIRST/MIDDLE: a full PMTU with more after it; LAST/ONLY: the rest
        self.k_len_ok.next = (bit_cast::<32, 16>(self.plen.val()) == self.k_pmtu.val()) & self.rem_gt_pmtu.q.val();
        if self.rd_last.val() {
            self.k_len_ok.next = self.rem_eq_plen.q.val();
        }
        // the decision's cases, each from registers and inputs (the placement
        // below is its own statement: no loop through `walk_end`'s block)
        self.c3_bad.next = self.kind_bad.q.val()
            | (!self.rd_atomic.val()
                & (self.rd_first.val() != self.in_read_q.q.val())
                & !(self.k_len_ok.val() & self.rd_aeth_ok.val()))
            | (self.rd_atomic.val() & !self.rd_aeth_ok.val());
        self.c3_place.next = (self.state.q.val() == WalkState::Check3)
            & !self.cqe_valid.q.val()
            & !self.una_bad.q.val()
            & !self.c3_bad.val()
            & !(!self.rd_atomic.val() & (self.rd_first.val() == self.in_read_q.q.val()));
        // (before `check`'s statement: the state mux's last arms are the
        // shallowest, and `check` comes through the answer's compare)
        if self.c3_place.val() & self.need_pl.val() {
            self.state.d.next = WalkState::Place;
            self.pl_v.d.next = true;
        }
        if self.check.val() {
            self.ent_q.d.next = self.s_inf.data.val();
            self.state.d.next = WalkState::Check1;
        }
        if self.state.q.val() == WalkState::Check1 {
            // the offset: (PSN - FIRST_PSN) << log2(PMTU), one of five shifts
            self.offset_q.d.next = self.k_delta.val() << 12;
            if self.pmtu.val() == MTU_256 {
                self.offset_q.d.next = self.k_delta.val() << 8;
            } else if self.pmtu.val() == MTU_512 {
                self.offset_q.d.next = self.k_delta.val() << 9;
            } else if self.pmtu.val() == MTU_1024 {
                self.offset_q.d.next = self.k_delta.val() << 10;
            } else if self.pmtu.val() == MTU_2048 {
                self.offset_q.d.next = self.k_delta.val() << 11;
            }
            self.una_bad.d.next = self.una_q.q.val() != self.psn.val();
            self.kind_bad.d.next = self.k_kind.val() != SOP_RDMA_READ;
            if self.rd_atomic.val() {
                self.kind_bad.d.next = (self.k_kind.val() != SOP_CMP_SWAP) & (self.k_kind.val() != SOP_FETCH_ADD);
            }
            self.state.d.next = WalkState::Check2;
        }
        // the remainder of the message (0 past its end)
        self.k_diff.next = bit_cast::<33, 32>((self.ent_q.q.val() >> ENT_LEN).get_bits::<32>(0))
            - bit_cast::<33, 32>(self.offset_q.q.val());
        if self.state.q.val() == WalkState::Check2 {
            // the remainder is 0 past the message's end (`k_diff` negative)
            self.rem_gt_pmtu.d.next =
                !self.k_diff.val().get_bit(32) & (self.k_diff.val().get_bits::<32>(0) > self.k_pmtu.val());
            self.rem_eq_plen.d.next = bit_cast::<32, 16>(self.plen.val()) == self.k_diff.val().get_bits::<32>(0);
            if self.k_diff.val().get_bit(32) {
                self.rem_eq_plen.d.next = !self.plen.val().any();
            }
            self.state.d.next = WalkState::Check3;
        }
        if (self.state.q.val() == WalkState::Check3) & !self.cqe_valid.q.val() {
            self.walk_end.next = true;
            if self.una_bad.q.val() {
                // responses were lost: implied NAK
                self.implied_q.d.next = true;
            } else if self.c3_bad.val() {
                // not its WQE's kind, or a bad length or AETH: BAD_RESP_ERR
                self.is_fatal.next = true;
                self.fatal_q.d.next = true;
                self.status_q.d.next = WCS_BAD_RESP_ERR.into();
            } else if !self.rd_atomic.val() & (self.rd_first.val() == self.in_read_q.q.val()) {
                // a response of a message superseded by a resend
                self.stale_q.d.next = true;
            } else {
                // with data: nothing happens before `comp_read`'s verdict
                self.walk_end.next = !self.need_pl.val();
            }
        }
        // ---- the placement: at once without data (an atomic ACK, a
        // zero-length READ), else after `comp_read`'s verdict; a failed
        // translation (or SGEs too short) is the model's LOC_PROT_ERR
        self.pl_ans.next = (self.state.q.val() == WalkState::Place) & self.pl_done.val();
        self.do_place.next = (self.c3_place.val() & !self.need_pl.val()) | (self.pl_ans.val() & self.pl_ok.val());
        self.pl_fail.next = self.pl_ans.val() & !self.pl_ok.val();
        if self.pl_fail.val() {
            self.walk_end.next = true;
            self.is_fatal.next = true;
            self.fatal_q.d.next = true;
            self.status_q.d.next = WCS_LOC_PROT_ERR.into();
        }
        if self.do_place.val() {
            self.walk_end.next = true;
            self.place_q.d.next = true;
            self.una_q.d.next = self.psn.val() + 1;
            self.retry_valid_q.d.next = false;
            if !self.rd_atomic.val() {
                self.in_read_q.d.next = !self.rd_last.val();
            }
            if self.rd_last.val() {
                // the WQE completes: POP, a CQE if signaled
                self.walk_end.next = false;
                self.step_pop.next = true;
                self.walk_more.d.next = false;
                self.una_q.d.next = self.k_last.val() + 1;
                self.head_first_q.d.next = self.k_last.val() + 1;
                self.head_wqe_q.d.next = self.k_index.val() + 1;
                self.rd_done_q.d.next = self.rd_done_q.q.val() + 1;
                self.rd_cqe.next = true;
            }
        }
        // ---- the hint: the READ's POP answer (the next one not awaited) says
        // whether more WQEs follow
        self.hint_arm.next = self.rd_cqe.val() & !self.pend_pops.q.val().any();
        self.hint_index.next = self.k_index.val() + 1;
        // (the answer's flags registered apart from the take: nothing of
        // the hint joins the state's logic)
        self.hint_pop_q.d.next = self.r_take.val() & self.pend_pops.q.val().any() & self.hint_wait.q.val();
        self.hint_more_q.d.next = !self.s_inf.is_tail.val() & !self.s_inf.empty.val();
        if self.hint_arm.val() {
            self.hint_wait.d.next = true;
        }
        if self.r_take.val() & self.pend_pops.q.val().any() & self.hint_wait.q.val() {
            self.hint_wait.d.next = false;
        }
        self.hint_go.next = self.hint_pop_q.q.val() & self.hint_more_q.q.val();
        // the READ/atomic CQE (a statement of its own: the CQE registers are
        // written with `state` by the reset, and `walk_end` must not join them)
        if self.rd_cqe.val() {
            self.cqe_valid.d.next = (self.ent_q.q.val() >> ENT_SIGNALED).get_bit(0);
            self.cqe_status.d.next = WCS_SUCCESS.into();
            self.cqe_wr_id.d.next = (self.ent_q.q.val() >> ENT_WR_ID).get_bits::<64>(0);
            self.cqe_opcode.d.next = WCO_RDMA_READ.into();
            if self.k_kind.val() == SOP_CMP_SWAP {
                self.cqe_opcode.d.next = WCO_COMP_SWAP.into();
            } else if self.k_kind.val() == SOP_FETCH_ADD {
                self.cqe_opcode.d.next = WCO_FETCH_ADD.into();
            }
            self.cqe_len.d.next = (self.ent_q.q.val() >> ENT_LEN).get_bits::<32>(0);
            self.cqe_index.d.next = self.k_index.val();
            self.cqe_cq.d.next = self.cq.val();
            self.cqe_qpn.d.next = self.qpn.val();
            self.cqe_placed_q.d.next = self.need_pl.val();
        }
        self.step_flush.next = self.flush_more.val() | (self.walk_end.val() & self.is_fatal.val());
        self.done.next = (self.walk_end.val() & !self.is_fatal.val())
            | (self.answer.val() & self.flush.q.val() & self.s_inf.empty.val());

        // ---- the step's effects
        if self.answer.val() {
            self.cqe_valid.d.next =
                self.advance.val() & (self.flush.q.val() | (self.s_inf.data.val() >> ENT_SIGNALED).get_bit(0));
            self.cqe_status.d.next = WCS_SUCCESS.into();
            if self.flush.q.val() {
                self.cqe_status.d.next = WCS_WR_FLUSH_ERR.into();
                if self.flush_first.q.val() {
                    self.cqe_status.d.next = self.status_q.q.val();
                }
                // a WQE the requester refused: its own status (in LEN)
                if self.e_kind.val() == ENT_KIND_REFUSED {
                    self.cqe_status.d.next = (self.s_inf.data.val() >> ENT_LEN).get_bits::<8>(0);
                }
            }
            self.cqe_wr_id.d.next = (self.s_inf.data.val() >> ENT_WR_ID).get_bits::<64>(0);
            self.cqe_opcode.d.next = self.e_op.val();
            self.cqe_len.d.next = (self.s_inf.data.val() >> ENT_LEN).get_bits::<32>(0);
            // (a refused entry's LEN is its status: no bytes moved)
            if self.e_kind.val() == ENT_KIND_REFUSED {
                self.cqe_len.d.next = 0.into();
            }
            self.cqe_index.d.next = self.e_index.val();
            // the CQE may wait on `m_cqe` while the next packet is taken
            self.cqe_placed_q.d.next = false;
            self.cqe_cq.d.next = self.cq.val();
            self.cqe_qpn.d.next = self.qpn.val();
        }
        if self.advance.val() {
            // the answered WQE leaves the list
            self.una_q.d.next = self.e_last.val() + 1;
            self.head_first_q.d.next = self.e_last.val() + 1;
            self.head_wqe_q.d.next = self.e_index.val() + 1;
            if self.e_rd.val() {
                self.rd_done_q.d.next = self.rd_done_q.q.val() + 1;
            }
        }
        if self.step_flush.val() {
            self.flush_first.d.next = !self.flush.q.val();
        }
        if (self.state.q.val() == WalkState::Command) & self.m_inf.ready.val() {
            self.state.d.next = WalkState::Wait;
            if (self.cmd_op.q.val() == INFLIGHT_POP) & !self.flush.q.val() {
                // its answer is not awaited
                self.pend_pops.d.next = self.pend_pops.q.val() + 1;
                if self.r_take.val() & self.pend_pops.q.val().any() {
                    self.pend_pops.d.next = self.pend_pops.q.val();
                }
            }
        }
        if self.step_head.val() | self.step_pop.val() | self.step_flush.val() {
            self.state.d.next = WalkState::Command;
            self.cmd_valid.d.next = true;
            self.cmd_op.d.next = INFLIGHT_POP.into();
            if self.step_head.val() {
                self.cmd_op.d.next = INFLIGHT_HEAD.into();
            }
            self.flush.d.next = self.step_flush.val();
        }
        if self.done.val() {
            self.state.d.next = WalkState::Idle;
            self.flush.d.next = false;
        }
        if self.start.val() {
            self.implied_q.d.next = false;
            self.stale_q.d.next = false;
            self.place_q.d.next = false;
            self.rd_q.d.next = self.rd.val();
            self.fatal_q.d.next = self.fatal.val();
            self.ack_psn_q.d.next = self.ack_psn.val();
            if self.rd.val() & (self.psn.val() == self.una_q.q.val()) {
                // a READ response at UNA acknowledges nothing (the model's
                // "PSN - 1 before UNA"), even when UNA is inside the head
                // WQE: the HEAD answer is its WQE
                self.ack_psn_q.d.next = self.head_first_q.q.val() - 1;
            }
            self.status_q.d.next = self.nak_status.val();
        }
        if self.load.val() {
            self.una_q.d.next = (self.load_st.val() >> QPSC_UNA).get_bits::<24>(0);
            self.head_first_q.d.next = (self.load_st.val() >> QPSC_HEAD_FIRST).get_bits::<24>(0);
            self.head_wqe_q.d.next = (self.load_st.val() >> QPSC_HEAD_WQE).get_bits::<16>(0);
            self.retry_valid_q.d.next = (self.load_st.val() >> QPSC_RETRY_VALID).get_bit(0);
            self.rd_done_q.d.next = (self.load_st.val() >> QPSC_RD_DONE).get_bits::<5>(0);
            self.in_read_q.d.next = (self.load_st.val() >> QPSC_IN_READ).get_bit(0);
        }
        if self.reset.val() {
            self.state.d.next = WalkState::Idle;
            self.cqe_valid.d.next = false;
            self.cmd_valid.d.next = false;
            self.pl_v.d.next = false;
            self.pend_pops.d.next = 0.into();
            self.flush.d.next = false;
            self.hint_wait.d.next = false;
            self.hint_pop_q.d.next = false;
        }
    }
}
