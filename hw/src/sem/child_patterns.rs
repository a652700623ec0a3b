//! A parent that drives and reads its children's ports: rust-hdl reads a
//! child's input (`Signal<In>::val()`) at its settled value, even between two
//! writes of it in one `update`.

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// A small child: a sum and a registered copy of it.
#[derive(LogicBlock, Default)]
pub struct SumChild {
    pub clock: Signal<In, Clock>,
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    pub sum: Signal<Out, Bits<8>>,
    pub held: Signal<Out, Bits<8>>,
    r: Reg<Bits<8>>,
    kind: TypeTag<Self>,
}

impl Logic for SumChild {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        self.sum.next = self.a.val() + self.b.val();
        self.r.d.next = self.a.val() + self.b.val();
        self.held.next = self.r.q.val();
    }
}

#[derive(LogicBlock, Default)]
pub struct ChildPatterns {
    pub clock: Signal<In, Clock>,
    pub x: Signal<In, Bits<8>>,
    pub y: Signal<In, Bits<8>>,
    pub sel: Signal<In, Bit>,
    /// The child's input `a`, read between its two writes: the settled value.
    pub a_between: Signal<Out, Bits<8>>,
    /// `a` read after both writes, and the register input `d` read back.
    pub a_after: Signal<Out, Bits<8>>,
    pub d_back: Signal<Out, Bits<8>>,
    pub sum: Signal<Out, Bits<8>>,
    pub held: Signal<Out, Bits<8>>,
    /// A second child fed from the first one's output.
    pub chained: Signal<Out, Bits<8>>,
    first: SumChild,
    second: SumChild,
    r: Reg<Bits<8>>,
    kind: TypeTag<Self>,
}

impl Logic for ChildPatterns {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        self.first.clock.next = self.clock.val();
        self.second.clock.next = self.clock.val();
        self.first.a.next = self.x.val();
        self.a_between.next = self.first.a.val();
        if self.sel.val() {
            self.first.a.next = self.y.val();
        }
        self.first.b.next = self.y.val();
        self.a_after.next = self.first.a.val();
        self.r.d.next = self.x.val() ^ self.y.val();
        self.d_back.next = self.r.d.val();
        self.second.a.next = self.first.sum.val();
        self.second.b.next = self.r.q.val();
        self.sum.next = self.first.sum.val();
        self.held.next = self.first.held.val();
        self.chained.next = self.second.held.val();
    }
}
