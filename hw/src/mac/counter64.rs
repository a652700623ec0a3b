//! `Counter64`: a 64-bit event counter that adds a small step each cycle
//! with no long carry chain: four 16-bit pieces, each carry into the next
//! piece registered. The value shown (`count`, a register) is copied from
//! the pieces only when no carry is on its way, so it is always a value the
//! counter really held and never goes backwards; it lags by at most three
//! cycles after a piece overflows (once per 2^16 / step cycles at most).

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Bits of the step added per cycle.
pub const COUNTER_STEP_BITS: usize = 4;

#[derive(LogicBlock, Default)]
pub struct Counter64 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub step: Signal<In, Bits<COUNTER_STEP_BITS>>,
    pub count: Signal<Out, Bits<64>>,
    p0: Reg<Bits<16>>,
    p1: Reg<Bits<16>>,
    p2: Reg<Bits<16>>,
    p3: Reg<Bits<16>>,
    c1: Reg<Bit>,
    c2: Reg<Bit>,
    c3: Reg<Bit>,
    shown: Reg<Bits<64>>,
    s0: Signal<Local, Bits<17>>,
    s1: Signal<Local, Bits<17>>,
    s2: Signal<Local, Bits<17>>,
    s3: Signal<Local, Bits<16>>,
    kind: TypeTag<Self>,
}

impl Logic for Counter64 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, p0, p1, p2, p3, c1, c2, c3, shown);
        self.s0.next = bit_cast::<17, 16>(self.p0.q.val()) + bit_cast::<17, COUNTER_STEP_BITS>(self.step.val());
        self.s1.next = bit_cast::<17, 16>(self.p1.q.val()) + bit_cast::<17, 1>(self.c1.q.val().into());
        self.s2.next = bit_cast::<17, 16>(self.p2.q.val()) + bit_cast::<17, 1>(self.c2.q.val().into());
        self.s3.next = self.p3.q.val() + bit_cast::<16, 1>(self.c3.q.val().into());
        self.p0.d.next = self.s0.val().get_bits::<16>(0);
        self.p1.d.next = self.s1.val().get_bits::<16>(0);
        self.p2.d.next = self.s2.val().get_bits::<16>(0);
        self.p3.d.next = self.s3.val();
        self.c1.d.next = self.s0.val().get_bit(16);
        self.c2.d.next = self.s1.val().get_bit(16);
        self.c3.d.next = self.s2.val().get_bit(16);
        if !(self.c1.q.val() | self.c2.q.val() | self.c3.q.val()) {
            self.shown.d.next = (bit_cast::<64, 16>(self.p3.q.val()) << 48)
                | (bit_cast::<64, 16>(self.p2.q.val()) << 32)
                | (bit_cast::<64, 16>(self.p1.q.val()) << 16)
                | bit_cast::<64, 16>(self.p0.q.val());
        }
        if self.reset.val() {
            self.p0.d.next = 0.into();
            self.p1.d.next = 0.into();
            self.p2.d.next = 0.into();
            self.p3.d.next = 0.into();
            self.c1.d.next = false;
            self.c2.d.next = false;
            self.c3.d.next = false;
            self.shown.d.next = 0.into();
        }
        self.count.next = self.shown.q.val();
    }
}
