//! `RrArb4`: round-robin arbiter over four requesters. `grant` is one-hot
//! (combinational from `req`): the first requester after the last one
//! granted, wrapping. The pointer moves only when the user takes the grant
//! (`advance`), so a requester that waits keeps its turn.

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RrArb4 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub req: Signal<In, Bits<4>>,
    /// The grant was used this cycle.
    pub advance: Signal<In, Bit>,
    pub grant: Signal<Out, Bits<4>>,
    // requesters after the last granted one
    after_last: Reg<Bits<4>>,
    masked: Signal<Local, Bits<4>>,
    pick: Signal<Local, Bits<4>>,
    kind: TypeTag<Self>,
}

impl Logic for RrArb4 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, after_last);
        self.masked.next = self.req.val() & self.after_last.q.val();
        self.pick.next = self.req.val();
        if self.masked.val().any() {
            self.pick.next = self.masked.val();
        }
        // lowest set bit
        self.grant.next = self.pick.val() & (!self.pick.val() + 1);
        if self.advance.val() {
            self.after_last.d.next = !((self.grant.val() << 1) - 1);
        }
        if self.reset.val() {
            self.after_last.d.next = 0.into();
        }
    }
}
