//! Struct-typed signals written field by field, several writes to one
//! signal with reads between them, and conditional overrides.

use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct Fields {
    pub lo: Bits<4>,
    pub mid: Bits<8>,
    pub hi: Bits<4>,
}

#[derive(LogicBlock, Default)]
pub struct StructPatterns {
    pub clock: Signal<In, Clock>,
    pub a: Signal<In, Bits<4>>,
    pub b: Signal<In, Bits<8>>,
    pub c: Signal<In, Bits<8>>,
    pub sel: Signal<In, Bits<2>>,
    /// The whole struct, and fields read back after their writes.
    pub packed: Signal<Out, Bits<16>>,
    pub mid: Signal<Out, Bits<8>>,
    pub hi_lo: Signal<Out, Bits<8>>,
    /// A temporary reused: the values between its writes.
    pub first: Signal<Out, Bits<8>>,
    pub second: Signal<Out, Bits<8>>,
    pub last: Signal<Out, Bits<8>>,
    /// A default overridden under conditions, read back after.
    pub chosen: Signal<Out, Bits<8>>,
    pub chosen_plus: Signal<Out, Bits<8>>,
    s: Signal<Local, Fields>,
    t: Signal<Local, Bits<8>>,
    pick: Signal<Local, Bits<8>>,
    kind: TypeTag<Self>,
}

impl Logic for StructPatterns {
    #[hdl_gen]
    fn update(&mut self) {
        self.s.next.lo = self.a.val();
        self.s.next.mid = bit_cast::<8, 4>(self.s.val().lo) + self.b.val();
        self.s.next.hi = self.s.val().mid.get_bits::<4>(2) ^ self.a.val();
        self.packed.next = self.s.val().into();
        self.mid.next = self.s.val().mid;
        self.hi_lo.next = bit_cast::<8, 4>(self.s.val().hi) << 4 | bit_cast::<8, 4>(self.s.val().lo);
        self.t.next = self.b.val();
        self.first.next = self.t.val() + 1;
        self.t.next = self.t.val() ^ self.c.val();
        self.second.next = self.t.val();
        self.t.next = self.t.val() - self.b.val();
        self.last.next = self.t.val();
        self.pick.next = self.b.val();
        if self.sel.val() == 1 {
            self.pick.next = self.c.val();
        } else if self.sel.val() == 2 {
            self.pick.next = self.pick.val() + self.c.val();
        }
        if self.sel.val().get_bit(1) & self.sel.val().get_bit(0) {
            self.pick.next = !self.pick.val();
        }
        self.chosen.next = self.pick.val();
        self.chosen_plus.next = self.pick.val() + 3;
    }
}
