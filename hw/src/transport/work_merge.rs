//! `WorkMerge<Q>`: the send scheduler's two sources of work on its one
//! `s_work` port (docs/core.md): the doorbells (`s_db`, from `HostIf`) and
//! the completer's wakes (`s_wake`, from `RxLookup`: an ACK moved a QP's
//! UNA, so a requester its window stopped may send again).
//!
//! Each input has a register, and its `ready` is that register's
//! emptiness; the output register takes from the two in turn (round robin:
//! the other input's when both wait), so no `ready` depends on another
//! port's and neither source can hold the other off. Latency: an input
//! taken at t is offered on `m_work` at t + 2 ([`WORK_MERGE_LATENCY`]); each
//! input takes one QPN every other cycle at most, and the output gives one
//! per cycle while both have one.

use super::{QpnIn, QpnOut};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Cycles from a QPN taken on an input to it offered on `m_work`.
pub const WORK_MERGE_LATENCY: u64 = 2;

#[derive(LogicBlock, Default)]
pub struct WorkMerge<const Q: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_db: QpnIn<Q>,
    pub s_wake: QpnIn<Q>,
    pub m_work: QpnOut<Q>,
    a_valid: Reg<Bit>,
    a_qpn: Reg<Bits<Q>>,
    b_valid: Reg<Bit>,
    b_qpn: Reg<Bits<Q>>,
    o_valid: Reg<Bit>,
    o_qpn: Reg<Bits<Q>>,
    /// The wake input was served last.
    last_b: Reg<Bit>,
    pick_b: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const Q: usize> Logic for WorkMerge<Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_valid, a_qpn, b_valid, b_qpn, o_valid, o_qpn, last_b);
        self.s_db.ready.next = !self.a_valid.q.val();
        self.s_wake.ready.next = !self.b_valid.q.val();
        self.m_work.qpn.next = self.o_qpn.q.val();
        self.m_work.valid.next = self.o_valid.q.val();

        self.pick_b.next = self.b_valid.q.val() & (!self.a_valid.q.val() | !self.last_b.q.val());
        self.load.next =
            (self.a_valid.q.val() | self.b_valid.q.val()) & (!self.o_valid.q.val() | self.m_work.ready.val());
        if self.m_work.ready.val() {
            self.o_valid.d.next = false;
        }
        if self.load.val() {
            self.o_valid.d.next = true;
            self.last_b.d.next = self.pick_b.val();
            if self.pick_b.val() {
                self.o_qpn.d.next = self.b_qpn.q.val();
                self.b_valid.d.next = false;
            } else {
                self.o_qpn.d.next = self.a_qpn.q.val();
                self.a_valid.d.next = false;
            }
        }
        // an input register fills only when empty (so never as it is emptied)
        if self.s_db.valid.val() & !self.a_valid.q.val() {
            self.a_valid.d.next = true;
            self.a_qpn.d.next = self.s_db.qpn.val();
        }
        if self.s_wake.valid.val() & !self.b_valid.q.val() {
            self.b_valid.d.next = true;
            self.b_qpn.d.next = self.s_wake.qpn.val();
        }

        if self.reset.val() {
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.o_valid.d.next = false;
            self.last_b.d.next = false;
        }
    }
}
