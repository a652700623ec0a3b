//! `ReqWriteBack`: the write-back stage of [`ReqFetch`](super::ReqFetch),
//! per `ReqGen` done in job order. W takes the done (`s_rdone.ready` is a
//! register, low from the take until the scheduler's done leaves) with its
//! slot (the job order's head) and computes, from the slot's write-back
//! context `wc` (read by the parent at `slot`), the requester's bytes of
//! `qps`: REQ_STARTED 1, NEXT_PSN, SENT_END (the serial max of SENT_END and
//! next_psn), CURSOR_WQE (+ 1 when finished), CURSOR_PKT, RD_ATOMIC_STARTED
//! (+ 1 when the job started a READ/atomic); and `more` (work and room
//! left). B offers the masked write on `m_qps` (before the parent's reads);
//! for a job `ReqGen` refused (`REQ_ERR_*`, a flush job's included) the
//! write moves the cursor past the WQE and sets REQ_REFUSED, and E then
//! offers the error record on `m_err` (after the write: the QP's next grant
//! reads the refusal); then F asks for the scheduler's done, with `more`
//! while WQEs are left (a refused QP's flush goes on whatever the window).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_rdone` | in | `ReqGen`'s done, in job order |
//! | `head_slot` | in | the job order's head (the slot of the done) |
//! | `wc`, `rd_started` | in | the slot's write-back context; the job started a READ/atomic |
//! | `done_free` | in | the parent's done register free |
//! | `pop`, `slot` | out | the done taken (pop the job order); the slot in W/B/E/F |
//! | `m_qps` | out | the `qps` port: the masked write-back (id = `REQ_FETCH_WB_ID` 0x20 + slot) or else the parent's read |
//! | `rd_valid`, `rd_qpn`, `rd_slot`, `rd_taken` | in, in, in, out | the parent's `qps` read request; taken (the port ready, no write) |
//! | `done`, `done_qpn`, `done_more` | out | F hands the scheduler's done to the parent (it has priority) |
//! | `m_err` | out | a job that failed in `ReqGen` |
//! | `m_arm` | out | per job that sent (no error): (re)arm the QP's ACK timer with `qpc.TIMEOUT` (a register; the next done waits while it is full) |
//!
//! Latency: done taken in t, write offered in t + 2, done to the parent
//! the cycle after the write is taken (after the error record, for a refusal).

use super::{ArmOut, ReqDoneIn, ReqErrOut, REQ_QPN_BITS, REQ_WCTX_BITS};
use crate::consts::*;
use crate::host::CacheReqOut;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct ReqWriteBack {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_rdone: ReqDoneIn,
    pub head_slot: Signal<In, Bits<SCHED_SLOT_BITS>>,
    pub wc: Signal<In, Bits<REQ_WCTX_BITS>>,
    pub rd_started: Signal<In, Bit>,
    pub done_free: Signal<In, Bit>,
    pub pop: Signal<Out, Bit>,
    pub slot: Signal<Out, Bits<SCHED_SLOT_BITS>>,
    pub m_qps: CacheReqOut<512, 64>,
    pub rd_valid: Signal<In, Bit>,
    pub rd_qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    pub rd_slot: Signal<In, Bits<SCHED_SLOT_BITS>>,
    pub rd_taken: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub done_qpn: Signal<Out, Bits<REQ_QPN_BITS>>,
    pub done_more: Signal<Out, Bit>,
    pub m_err: ReqErrOut,
    pub m_arm: ArmOut<REQ_QPN_BITS>,
    // ---- the retransmit timer's arming (a register)
    a_v: Reg<Bit>,
    a_qpn: Reg<Bits<REQ_QPN_BITS>>,
    a_code: Reg<Bits<5>>,
    // ---- W (taken), B (write offered), E (error offered), F (done due)
    rr: Reg<Bit>,
    w_v: Reg<Bit>,
    w_slot: Reg<Bits<SCHED_SLOT_BITS>>,
    w_next: Reg<Bits<24>>,
    w_pkt: Reg<Bits<24>>,
    w_fin: Reg<Bit>,
    w_err: Reg<Bits<3>>,
    w_sq: Reg<Bits<16>>,
    b_v: Reg<Bit>,
    b_data: Reg<Bits<96>>,
    e_v: Reg<Bit>,
    f_v: Reg<Bit>,
    f_more: Reg<Bit>,
    f_qpn: Reg<Bits<REQ_QPN_BITS>>,
    // ---- locals
    ser: Signal<Local, Bits<24>>,
    new_cwqe: Signal<Local, Bits<16>>,
    new_win: Signal<Local, Bits<24>>,
    new_rdst: Signal<Local, Bits<5>>,
    new_sent: Signal<Local, Bits<24>>,
    wbd: Signal<Local, Bits<96>>,
    f_go: Signal<Local, Bit>,
    max_win: Signal<Local, Bits<24>>,
    kind: TypeTag<Self>,
}

impl Logic for ReqWriteBack {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rr, w_v, w_slot, w_next, w_pkt, w_fin, w_err, w_sq, b_v, b_data, e_v, f_v, f_more, f_qpn, a_v,
            a_qpn, a_code
        );
        // the arming: packets left, so the QP's ACK timer (re)starts
        self.m_arm.qpn.next = self.a_qpn.q.val();
        self.m_arm.kind.next = false;
        self.m_arm.code.next = self.a_code.q.val();
        self.m_arm.valid.next = self.a_v.q.val();
        if self.m_arm.ready.val() {
            self.a_v.d.next = false;
        }
        self.max_win.next = RF_MAX_UNACKED.into();
        self.f_go.next = self.f_v.q.val() & self.done_free.val();
        self.slot.next = self.w_slot.q.val();
        self.done.next = self.f_go.val();
        self.done_qpn.next = self.f_qpn.q.val();
        self.done_more.next = self.f_more.q.val();
        // the qps port: the write-back before the parent's reads
        self.m_qps.valid.next = self.b_v.q.val() | self.rd_valid.val();
        self.m_qps.op.next = 0.into(); // CACHE_OP_READ
        self.m_qps.index.next = bit_cast::<24, REQ_QPN_BITS>(self.rd_qpn.val());
        self.m_qps.id.next = bit_cast::<8, SCHED_SLOT_BITS>(self.rd_slot.val());
        self.m_qps.mask.next = 0.into();
        self.m_qps.data.next = 0.into();
        if self.b_v.q.val() {
            self.m_qps.op.next = 1.into(); // CACHE_OP_WRITE
            self.m_qps.index.next = bit_cast::<24, REQ_QPN_BITS>(self.f_qpn.q.val());
            self.m_qps.id.next = bit_cast::<8, SCHED_SLOT_BITS>(self.w_slot.q.val()) | bits::<8>(0x20); // REQ_FETCH_WB_ID
            self.m_qps.mask.next = RF_QPS_REQ_MASK.into();
            self.m_qps.data.next = bit_cast::<512, 96>(self.b_data.q.val());
        }
        self.rd_taken.next = self.m_qps.ready.val() & !self.b_v.q.val();

        // ================= W: take the done =================
        self.s_rdone.ready.next = self.rr.q.val() & !self.a_v.q.val();
        self.pop.next = self.s_rdone.valid.val() & self.rr.q.val() & !self.a_v.q.val();
        if self.s_rdone.valid.val() & self.rr.q.val() & !self.a_v.q.val() {
            self.rr.d.next = false;
            self.w_v.d.next = true;
            self.w_slot.d.next = self.head_slot.val();
            self.w_next.d.next = self.s_rdone.next_psn.val();
            self.w_pkt.d.next = self.s_rdone.next_pkt.val();
            self.w_fin.d.next = self.s_rdone.finished.val();
            self.w_err.d.next = self.s_rdone.err.val();
            self.w_sq.d.next = self.s_rdone.sq_index.val();
        }
        // wc: sq_prod [15:0], una [39:16], sent_end [63:40], rd_started [68:64], qpn [82:69], timeout [87:83]
        self.ser.next = self.w_next.q.val() - self.wc.val().get_bits::<24>(40);
        self.new_cwqe.next = self.w_sq.q.val();
        if self.w_fin.q.val() | self.w_err.q.val().any() {
            self.new_cwqe.next = self.w_sq.q.val() + 1;
        }
        self.new_win.next = self.w_next.q.val() - self.wc.val().get_bits::<24>(16);
        self.new_rdst.next = self.wc.val().get_bits::<5>(64);
        if self.rd_started.val() {
            self.new_rdst.next = self.wc.val().get_bits::<5>(64) + 1;
        }
        // SENT_END: the serial max of SENT_END and next_psn
        self.new_sent.next = self.wc.val().get_bits::<24>(40);
        if (self.ser.val() != 0) & !self.ser.val().get_bit(23) {
            self.new_sent.next = self.w_next.q.val();
        }
        // the requester's bytes of qps, at the layout's positions
        self.wbd.next = (bit_cast::<96, 1>(true.into()) << QPSW_REQ_STARTED)
            | (bit_cast::<96, 5>(self.new_rdst.val()) << QPSW_RD_STARTED)
            | (bit_cast::<96, 24>(self.w_next.q.val()) << QPSW_NEXT_PSN)
            | (bit_cast::<96, 24>(self.new_sent.val()) << QPSW_SENT_END)
            | (bit_cast::<96, 16>(self.new_cwqe.val()) << QPSW_CURSOR_WQE);
        if self.w_v.q.val() {
            self.w_v.d.next = false;
            self.f_qpn.d.next = self.wc.val().get_bits::<REQ_QPN_BITS>(69);
            self.f_more.d.next =
                (self.new_cwqe.val() != self.wc.val().get_bits::<16>(0)) & (self.new_win.val() < self.max_win.val());
            self.b_v.d.next = true;
            self.b_data.d.next = self.wbd.val();
            if self.w_err.q.val().any() {
                // refused (or flushed): the cursor past it, REQ_REFUSED (so
                // every later WQE is a flush job, and this one is never
                // fetched again), then the error record; the QP is granted
                // again while WQEs are left, whatever the window
                self.b_data.d.next = self.wbd.val() | (bit_cast::<96, 1>(true.into()) << QPSW_REQ_REFUSED);
                self.f_more.d.next = self.new_cwqe.val() != self.wc.val().get_bits::<16>(0);
            } else {
                self.a_v.d.next = true;
                self.a_qpn.d.next = self.wc.val().get_bits::<REQ_QPN_BITS>(69);
                self.a_code.d.next = self.wc.val().get_bits::<5>(83);
                if !self.w_fin.q.val() {
                    self.b_data.d.next =
                        self.wbd.val() | (bit_cast::<96, 23>(self.w_pkt.q.val().get_bits::<23>(0)) << QPSW_CURSOR_PKT);
                }
            }
        }

        // ================= B, E: the write or the error record; F: the done =================
        self.m_err.valid.next = self.e_v.q.val();
        self.m_err.qpn.next = self.f_qpn.q.val();
        self.m_err.sq_index.next = self.w_sq.q.val();
        self.m_err.err.next = self.w_err.q.val();
        if self.b_v.q.val() & self.m_qps.ready.val() {
            self.b_v.d.next = false;
            self.f_v.d.next = !self.w_err.q.val().any();
            self.e_v.d.next = self.w_err.q.val().any();
        }
        if self.e_v.q.val() & self.m_err.ready.val() {
            self.e_v.d.next = false;
            self.f_v.d.next = true;
        }
        if self.f_go.val() {
            self.f_v.d.next = false;
            self.rr.d.next = true;
        }
        if self.reset.val() {
            self.rr.d.next = true;
            self.w_v.d.next = false;
            self.b_v.d.next = false;
            self.e_v.d.next = false;
            self.f_v.d.next = false;
            self.a_v.d.next = false;
        }
    }
}
