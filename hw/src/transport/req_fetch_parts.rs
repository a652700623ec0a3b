//! Child blocks of [`ReqFetch`](super::ReqFetch): the slot-number queues
//! that keep grants in order between its stages.

use crate::consts::SCHED_SLOT_BITS;
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

const _: () = assert!(SCHED_SLOT_BITS + 1 == 5, "the pointers' width");

/// A queue of `SCHED_SLOTS` W-bit words (slot numbers, with a QPN for the grant
/// order) in LUTRAM: `push` and `pop` in any cycle, `head` read
/// asynchronously (one LUT level from the read pointer). Never more than
/// `SCHED_SLOTS` words: a word stands for one of `ReqFetch`'s slots, so the
/// queue has no full flag (the caller's slot count bounds it).
#[derive(LogicBlock, Default)]
pub struct SlotQueue<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_data: Signal<In, Bits<W>>,
    pub pop: Signal<In, Bit>,
    pub head: Signal<Out, Bits<W>>,
    pub nonempty: Signal<Out, Bit>,
    ring: LutRam<Bits<W>, SCHED_SLOT_BITS>,
    wp: Reg<Bits<5>>,
    rp: Reg<Bits<5>>,
    kind: TypeTag<Self>,
}

impl<const W: usize> Logic for SlotQueue<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp);
        clock!(self, clock, ring);
        self.ring.write_addr.next = self.wp.q.val().get_bits::<SCHED_SLOT_BITS>(0);
        self.ring.write_data.next = self.push_data.val();
        self.ring.write_enable.next = self.push.val();
        self.ring.read_addr.next = self.rp.q.val().get_bits::<SCHED_SLOT_BITS>(0);
        self.head.next = self.ring.read_data.val();
        self.nonempty.next = self.wp.q.val() != self.rp.q.val();
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }
        if self.pop.val() {
            self.rp.d.next = self.rp.q.val() + 1;
        }
        if self.reset.val() {
            self.wp.d.next = 0.into();
            self.rp.d.next = 0.into();
        }
    }
}
