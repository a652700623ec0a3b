//! `SendSched<Q, C>`: the send scheduler. QPs with send work wait in a
//! ready list; the scheduler hands out one QP per grant, in list order
//! (round robin: a QP that still has work after its quantum goes back to the
//! tail), with no scan over QPs. `Q` is the QPN width (2^Q QPs), `C` = Q + 1.
//!
//! **State.** One bit per QP in block RAM, `inq`: the QP is in the ready
//! list, waits in the grant register, or is in service. The ready list is a
//! [`BramFifo`] of 2^Q QPNs; a QP is appended only when its `inq` bit goes
//! from 0 to 1 or when it is re-queued after its quantum, so each QP holds
//! at most one place and the FIFO never overflows. The QPs in service (at
//! most [`SCHED_SLOTS`]: granted, `done` not yet processed) sit in a small
//! table of registers with a "work pending" bit each, so a grant and a
//! re-queue never touch the RAM: only a new QP (`inq` 0 to 1) and a QP that
//! leaves (`inq` 1 to 0) write it.
//!
//! **Events.** `s_work` (always ready once the RAM is cleared) enters a
//! two-stage read-modify-write: A presents the QPN to the RAM, B has the bit
//! (forwarded from the previous cycle's write, so back-to-back events on one
//! QP act in order). At B, [`SEND_SCHED_WORK_COMMIT`] cycles after it was
//! taken, the work acts: a QP not in the list is appended; a QP in service
//! gets its pending bit set; a QP in the list or in the grant register is
//! left alone (the grant covers it: the transport looks at the queue after
//! the grant). `s_done` (qpn, more) waits in a two-place queue; its head acts
//! in any cycle where the work at B does not append: the QP leaves service
//! and is re-queued at the tail if `more` or its pending bit (or a work at B
//! this very cycle) says so, else its `inq` bit is cleared. A done for a QP
//! not in service is dropped.
//!
//! **Grants.** The list's head moves into the grant register (`m_grant`,
//! valid from a register) when a service slot is free; the QP is in service
//! from the grant's handshake. With the transport taking one grant per cycle
//! and answering each with `done`, the scheduler grants one QP per cycle as
//! long as at least [`SEND_SCHED_ROUND_TRIP`] QPs are busy (a re-queued QP
//! reaches the grant register again that many cycles after its grant).
//!
//! `tail_valid`/`tail_qpn` show the QP appended to the list this cycle (for
//! observation and tests). After `reset` the `inq` RAM is cleared, one QP
//! per cycle (2^Q cycles, `init` high, `s_work.ready` low).

use super::QpnIn;
use super::QpnOut;
use crate::prim::{BlockRam, BramFifo, Reg, BRAM_FIFO_LATENCY};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// QPs in service at once at most: [`SCHED_SLOTS`], declared in `consts`.
pub use crate::consts::{SCHED_SLOTS, SCHED_SLOT_BITS};
/// Cycles from a work taken on `s_work` to its action at stage B.
pub const SEND_SCHED_WORK_COMMIT: u64 = 2;
/// Cycles from a grant taken (with `done` offered the next cycle, `more`
/// set) to the same QP in the grant register again, the list otherwise
/// empty: done taken (1), acts (1), the append register (1), the FIFO
/// ([`BRAM_FIFO_LATENCY`]), the grant register (1).
pub const SEND_SCHED_ROUND_TRIP: u64 = 4 + BRAM_FIFO_LATENCY;
/// Cycles from a work taken for an idle QP to its grant offered, the list
/// empty: the commit, the append register, the FIFO, the grant register.
pub const SEND_SCHED_WORK_TO_GRANT: u64 = SEND_SCHED_WORK_COMMIT + 2 + BRAM_FIFO_LATENCY;

/// The transport's word after a quantum: `more` = the QP still has work.
#[derive(LogicInterface, Default)]
#[join = "DoneOut"]
pub struct DoneIn<const Q: usize> {
    pub qpn: Signal<In, Bits<Q>>,
    pub more: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "DoneIn"]
pub struct DoneOut<const Q: usize> {
    pub qpn: Signal<Out, Bits<Q>>,
    pub more: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct SendSched<const Q: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The QP got send work (idempotent while it is queued).
    pub s_work: QpnIn<Q>,
    /// The QP to serve now.
    pub m_grant: QpnOut<Q>,
    /// A quantum served; `more`: the QP still has work.
    pub s_done: DoneIn<Q>,
    /// The QP appended to the ready list this cycle.
    pub tail_valid: Signal<Out, Bit>,
    pub tail_qpn: Signal<Out, Bits<Q>>,
    /// The `inq` RAM is being cleared after reset.
    pub init: Signal<Out, Bit>,

    inq: BlockRam<Bit, Q>,
    list: BramFifo<Q, Q, C>,
    clr: Reg<Bit>,
    clr_a: Reg<Bits<Q>>,
    // ---- work: stage A (RAM address), stage B (RAM data)
    av: Reg<Bit>,
    ak: Reg<Bits<Q>>,
    bv: Reg<Bit>,
    bk: Reg<Bits<Q>>,
    // ---- the previous cycle's RAM write (forwarding)
    w_v: Reg<Bit>,
    w_k: Reg<Bits<Q>>,
    w_d: Reg<Bit>,
    // ---- service slots: in service, reserved by the grant register, work pending, QPN
    s_in: Reg<Bits<SCHED_SLOTS>>,
    s_res: Reg<Bits<SCHED_SLOTS>>,
    s_pend: Reg<Bits<SCHED_SLOTS>>,
    s_qpn: [Reg<Bits<Q>>; SCHED_SLOTS],
    // ---- grant register
    gv: Reg<Bit>,
    gq: Reg<Bits<Q>>,
    gslot: Reg<Bits<SCHED_SLOTS>>,
    // ---- done queue: head h, spare s; the slot (one-hot) found when taken
    dh_v: Reg<Bit>,
    dh_q: Reg<Bits<Q>>,
    dh_more: Reg<Bit>,
    dh_slot: Reg<Bits<SCHED_SLOTS>>,
    ds_v: Reg<Bit>,
    ds_q: Reg<Bits<Q>>,
    ds_more: Reg<Bit>,
    ds_slot: Reg<Bits<SCHED_SLOTS>>,
    // ---- the append register
    push_v: Reg<Bit>,
    push_d: Reg<Bits<Q>>,
    // ---- locals
    inq_b: Signal<Local, Bit>,
    whit: Signal<Local, Bits<SCHED_SLOTS>>,
    wpush: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    pend_eff: Signal<Local, Bit>,
    requeue: Signal<Local, Bit>,
    take_d: Signal<Local, Bit>,
    in_slot: Signal<Local, Bits<SCHED_SLOTS>>,
    occ: Signal<Local, Bits<SCHED_SLOTS>>,
    free1: Signal<Local, Bits<SCHED_SLOTS>>,
    below: Signal<Local, Bit>,
    take_g: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    n_in: Signal<Local, Bits<SCHED_SLOTS>>,
    n_res: Signal<Local, Bits<SCHED_SLOTS>>,
    n_pend: Signal<Local, Bits<SCHED_SLOTS>>,
    kind: TypeTag<Self>,
}

impl<const Q: usize, const C: usize> Logic for SendSched<Q, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, clr, clr_a, av, ak, bv, bk, w_v, w_k, w_d, s_in, s_res, s_pend, gv, gq, gslot, dh_v, dh_q,
            dh_more, dh_slot, ds_v, ds_q, ds_more, ds_slot, push_v, push_d
        );
        clock!(self, clock, inq, list);
        self.list.reset.next = self.reset.val();
        for k in 0..SCHED_SLOTS {
            self.s_qpn[k].clock.next = self.clock.val();
            self.s_qpn[k].d.next = self.s_qpn[k].q.val();
        }

        // ================= work: A presents the QPN, B acts =================
        self.s_work.ready.next = !self.clr.q.val();
        self.av.d.next = self.s_work.valid.val() & !self.clr.q.val();
        self.ak.d.next = self.s_work.qpn.val();
        self.inq.read_addr.next = self.ak.q.val();
        self.bv.d.next = self.av.q.val();
        self.bk.d.next = self.ak.q.val();
        self.inq_b.next = self.inq.read_data.val();
        if self.w_v.q.val() & (self.w_k.q.val() == self.bk.q.val()) {
            self.inq_b.next = self.w_d.q.val();
        }
        self.whit.next = 0.into();
        for k in 0..SCHED_SLOTS {
            self.whit.next = self
                .whit
                .val()
                .replace_bit(k, self.s_in.q.val().get_bit(k) & (self.s_qpn[k].q.val() == self.bk.q.val()));
        }
        if !self.bv.q.val() {
            self.whit.next = 0.into();
        }
        self.wpush.next = self.bv.q.val() & !self.inq_b.val();

        // ================= done: a two-place queue, the head acts =================
        self.s_done.ready.next = !self.ds_v.q.val();
        self.take_d.next = self.s_done.valid.val() & !self.ds_v.q.val();
        self.in_slot.next = 0.into();
        for k in 0..SCHED_SLOTS {
            self.in_slot.next = self
                .in_slot
                .val()
                .replace_bit(k, self.s_in.q.val().get_bit(k) & (self.s_qpn[k].q.val() == self.s_done.qpn.val()));
        }
        self.fire.next = self.dh_v.q.val() & !self.wpush.val();
        self.pend_eff.next = (self.dh_slot.q.val() & (self.s_pend.q.val() | self.whit.val())).any();
        self.requeue.next = (self.dh_more.q.val() | self.pend_eff.val()) & self.dh_slot.q.val().any();
        if self.fire.val() {
            self.dh_v.d.next = false;
            if self.ds_v.q.val() {
                self.dh_v.d.next = true;
                self.dh_q.d.next = self.ds_q.q.val();
                self.dh_more.d.next = self.ds_more.q.val();
                self.dh_slot.d.next = self.ds_slot.q.val();
                self.ds_v.d.next = false;
            }
        }
        if self.take_d.val() {
            if !self.dh_v.q.val() | self.fire.val() {
                self.dh_v.d.next = true;
                self.dh_q.d.next = self.s_done.qpn.val();
                self.dh_more.d.next = self.s_done.more.val();
                self.dh_slot.d.next = self.in_slot.val();
            } else {
                self.ds_v.d.next = true;
                self.ds_q.d.next = self.s_done.qpn.val();
                self.ds_more.d.next = self.s_done.more.val();
                self.ds_slot.d.next = self.in_slot.val();
            }
        }

        // ================= the RAM write and the append =================
        self.inq.write_addr.next = self.bk.q.val();
        self.inq.write_data.next = true;
        self.inq.write_enable.next = self.wpush.val();
        if self.fire.val() & !self.requeue.val() & self.dh_slot.q.val().any() {
            self.inq.write_addr.next = self.dh_q.q.val();
            self.inq.write_data.next = false;
            self.inq.write_enable.next = true;
        }
        if self.clr.q.val() {
            self.inq.write_addr.next = self.clr_a.q.val();
            self.inq.write_data.next = false;
            self.inq.write_enable.next = true;
        }
        self.w_v.d.next = self.inq.write_enable.val();
        self.w_k.d.next = self.inq.write_addr.val();
        self.w_d.d.next = self.inq.write_data.val();
        self.push_v.d.next = self.wpush.val() | (self.fire.val() & self.requeue.val());
        self.push_d.d.next = self.dh_q.q.val();
        if self.wpush.val() {
            self.push_d.d.next = self.bk.q.val();
        }
        self.list.push.next = self.push_v.q.val();
        self.list.push_data.next = self.push_d.q.val();
        self.tail_valid.next = self.push_v.q.val();
        self.tail_qpn.next = self.push_d.q.val();

        // ================= grants =================
        self.occ.next = self.s_in.q.val() | self.s_res.q.val();
        // the first free slot, one-hot
        self.free1.next = 0.into();
        self.below.next = true;
        for k in 0..SCHED_SLOTS {
            self.free1.next = self.free1.val().replace_bit(k, self.below.val() & !self.occ.val().get_bit(k));
            self.below.next = self.below.val() & self.occ.val().get_bit(k);
        }
        self.take_g.next = self.gv.q.val() & self.m_grant.ready.val();
        self.load.next =
            self.list.m_valid.val() & !self.occ.val().all() & (!self.gv.q.val() | self.m_grant.ready.val());
        self.list.m_ready.next = self.load.val();
        self.m_grant.valid.next = self.gv.q.val();
        self.m_grant.qpn.next = self.gq.q.val();
        if self.take_g.val() {
            self.gv.d.next = false;
        }
        if self.load.val() {
            self.gv.d.next = true;
            self.gq.d.next = self.list.m_data.val();
            self.gslot.d.next = self.free1.val();
        }
        for k in 0..SCHED_SLOTS {
            if self.load.val() & self.free1.val().get_bit(k) {
                self.s_qpn[k].d.next = self.list.m_data.val();
            }
        }

        // ================= slot bits =================
        self.n_in.next = self.s_in.q.val();
        self.n_res.next = self.s_res.q.val();
        self.n_pend.next = self.s_pend.q.val() | self.whit.val();
        if self.take_g.val() {
            self.n_in.next = self.n_in.val() | self.gslot.q.val();
            self.n_res.next = self.n_res.val() & !self.gslot.q.val();
            self.n_pend.next = self.n_pend.val() & !self.gslot.q.val();
        }
        if self.load.val() {
            self.n_res.next = self.n_res.val() | self.free1.val();
        }
        if self.fire.val() {
            self.n_in.next = self.n_in.val() & !self.dh_slot.q.val();
            self.n_pend.next = self.n_pend.val() & !self.dh_slot.q.val();
        }
        self.s_in.d.next = self.n_in.val();
        self.s_res.d.next = self.n_res.val();
        self.s_pend.d.next = self.n_pend.val();

        // ================= clearing after reset =================
        if self.clr.q.val() {
            self.clr_a.d.next = self.clr_a.q.val() + 1;
            if self.clr_a.q.val().all() {
                self.clr.d.next = false;
            }
        }
        self.init.next = self.clr.q.val();

        if self.reset.val() {
            self.clr.d.next = true;
            self.clr_a.d.next = 0.into();
            self.av.d.next = false;
            self.bv.d.next = false;
            self.w_v.d.next = false;
            self.s_in.d.next = 0.into();
            self.s_res.d.next = 0.into();
            self.s_pend.d.next = 0.into();
            self.gv.d.next = false;
            self.dh_v.d.next = false;
            self.ds_v.d.next = false;
            self.push_v.d.next = false;
        }
    }
}
