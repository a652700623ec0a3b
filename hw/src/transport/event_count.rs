//! `EventCount8`: eight 64-bit event counters for the counter registers
//! (`regs::COUNTER_WINDOW`): bit `k` of `ev` counts one event in
//! `count[k]`. The events are registered first, so each adder starts at
//! registers; a count lags its event by 2 cycles. Its users decode their
//! events (`RespStats`, `CompStats`) and leave unused bits at 0.

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Cycles from an event to its count.
pub const EVENT_COUNT_LATENCY: u64 = 2;

#[derive(LogicBlock, Default)]
pub struct EventCount8 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ev: Signal<In, Bits<8>>,
    pub count: [Signal<Out, Bits<64>>; 8],
    e: Reg<Bits<8>>,
    n0: Reg<Bits<64>>,
    n1: Reg<Bits<64>>,
    n2: Reg<Bits<64>>,
    n3: Reg<Bits<64>>,
    n4: Reg<Bits<64>>,
    n5: Reg<Bits<64>>,
    n6: Reg<Bits<64>>,
    n7: Reg<Bits<64>>,
    kind: TypeTag<Self>,
}

impl Logic for EventCount8 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, e, n0, n1, n2, n3, n4, n5, n6, n7);
        self.e.d.next = self.ev.val();
        if self.e.q.val().get_bit(0) {
            self.n0.d.next = self.n0.q.val() + 1;
        }
        self.count[0].next = self.n0.q.val();
        if self.e.q.val().get_bit(1) {
            self.n1.d.next = self.n1.q.val() + 1;
        }
        self.count[1].next = self.n1.q.val();
        if self.e.q.val().get_bit(2) {
            self.n2.d.next = self.n2.q.val() + 1;
        }
        self.count[2].next = self.n2.q.val();
        if self.e.q.val().get_bit(3) {
            self.n3.d.next = self.n3.q.val() + 1;
        }
        self.count[3].next = self.n3.q.val();
        if self.e.q.val().get_bit(4) {
            self.n4.d.next = self.n4.q.val() + 1;
        }
        self.count[4].next = self.n4.q.val();
        if self.e.q.val().get_bit(5) {
            self.n5.d.next = self.n5.q.val() + 1;
        }
        self.count[5].next = self.n5.q.val();
        if self.e.q.val().get_bit(6) {
            self.n6.d.next = self.n6.q.val() + 1;
        }
        self.count[6].next = self.n6.q.val();
        if self.e.q.val().get_bit(7) {
            self.n7.d.next = self.n7.q.val() + 1;
        }
        self.count[7].next = self.n7.q.val();
        if self.reset.val() {
            self.e.d.next = 0.into();
            self.n0.d.next = 0.into();
            self.n1.d.next = 0.into();
            self.n2.d.next = 0.into();
            self.n3.d.next = 0.into();
            self.n4.d.next = 0.into();
            self.n5.d.next = 0.into();
            self.n6.d.next = 0.into();
            self.n7.d.next = 0.into();
        }
    }
}
