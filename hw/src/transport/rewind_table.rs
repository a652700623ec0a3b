//! `RewindTable`: the QPs whose requester must go back (go-back-N), between
//! the completer's `m_rewind` and `ReqFetch`'s grants (child of
//! `ReqFetch`). The completer owns UNA and the head, the requester its
//! cursor; a rewind waits here until the QP's next grant, which reads the
//! completer's bytes and restarts the cursor there (`ReqDecide`). So the
//! requester's bytes keep one writer, and a rewind that comes while the QP
//! is in service acts after that job's write-back (the scheduler's next
//! grant, which the completer's wake asks for).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_add` | in | a QP to rewind; taken when a place is free (`ready` from registers); a QP already waiting is taken without a second place |
//! | `probe`, `probe_qpn` | in | a grant taken this cycle, its QPN |
//! | `hit` | out | that QP was waiting (combinational from the registers and `probe_qpn`); its place is freed |
//!
//! [`REWIND_PLACES`] places in registers, compared in parallel (no scan
//! over QPs): a rewind waits only until the QP's next grant, so the table
//! holds at most the QPs with a resend requested and not yet served. An add
//! in the cycle a grant of the same QP takes its place stays (its rewind
//! acts at the grant after: a resend from UNA once more, harmless).

use super::QpnIn;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Places: the QPs whose rewind can wait at once (the literal 8 of `update`).
pub const REWIND_PLACES: usize = 8;

#[derive(LogicBlock, Default)]
pub struct RewindTable<const Q: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_add: QpnIn<Q>,
    pub probe: Signal<In, Bit>,
    pub probe_qpn: Signal<In, Bits<Q>>,
    pub hit: Signal<Out, Bit>,
    used: Reg<Bits<8>>,
    qpn: [Reg<Bits<Q>>; 8],
    match_p: Signal<Local, Bits<8>>,
    match_a: Signal<Local, Bits<8>>,
    free: Signal<Local, Bits<8>>,
    used_n: Signal<Local, Bits<8>>,
    kind: TypeTag<Self>,
}

impl<const Q: usize> Logic for RewindTable<Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, used);
        self.match_p.next = 0.into();
        self.match_a.next = 0.into();
        for k in 0..8 {
            self.qpn[k].clock.next = self.clock.val();
            self.qpn[k].d.next = self.qpn[k].q.val();
            if self.used.q.val().get_bit(k) & (self.qpn[k].q.val() == self.probe_qpn.val()) {
                self.match_p.next = self.match_p.val().replace_bit(k, true);
            }
            if self.used.q.val().get_bit(k) & (self.qpn[k].q.val() == self.s_add.qpn.val()) {
                self.match_a.next = self.match_a.val().replace_bit(k, true);
            }
        }
        self.hit.next = self.probe.val() & self.match_p.val().any();
        self.s_add.ready.next = !self.used.q.val().all();
        self.used_n.next = self.used.q.val();
        if self.probe.val() {
            self.used_n.next = self.used.q.val() & !self.match_p.val();
        }
        // the lowest free place (of the registers, before this cycle's
        // probe): the lowest set bit of !used, !used & (used + 1)
        self.free.next = !self.used.q.val() & (self.used.q.val() + 1);
        if self.s_add.valid.val() & !self.used.q.val().all() {
            if self.match_a.val().any() {
                // already waiting: keep it (even if the probe took it now)
                self.used_n.next = self.used_n.val() | self.match_a.val();
            } else {
                self.used_n.next = self.used_n.val() | self.free.val();
                for k in 0..8 {
                    if self.free.val().get_bit(k) {
                        self.qpn[k].d.next = self.s_add.qpn.val();
                    }
                }
            }
        }
        self.used.d.next = self.used_n.val();
        if self.reset.val() {
            self.used.d.next = 0.into();
        }
    }
}
