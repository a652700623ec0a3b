//! `RrOneHot`: round robin over up to [`RR_MAX`] requesters with a one-hot
//! grant: the first requester after the one granted last, else the first.
//! `grant` is combinational from `req` and a register (the requesters after
//! the last grant); the register moves only when the user takes the grant
//! (`advance`), so a requester that waits keeps its turn. Shared by the
//! multiplexers in front of the DMA engine's clients and the context caches,
//! which route by one-hot sources and so never decode an index.

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// The most requesters.
pub const RR_MAX: usize = 8;

#[derive(LogicBlock, Default)]
pub struct RrOneHot {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Bit i: requester i wants a grant (bits of absent requesters 0).
    pub req: Signal<In, Bits<RR_MAX>>,
    /// The grant was taken this cycle.
    pub advance: Signal<In, Bit>,
    /// One-hot; 0 when no requester.
    pub grant: Signal<Out, Bits<RR_MAX>>,
    /// The requesters after the one granted last.
    above: Reg<Bits<RR_MAX>>,
    hi: Signal<Local, Bits<RR_MAX>>,
    seen: Signal<Local, Bit>,
    after: Signal<Local, Bits<RR_MAX>>,
    kind: TypeTag<Self>,
}

impl Logic for RrOneHot {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, above);
        self.hi.next = self.req.val() & self.above.q.val();
        if !self.hi.val().any() {
            self.hi.next = self.req.val();
        }
        // the lowest bit of `hi`; `after`: the bits above it, the next `above`
        self.grant.next = 0.into();
        self.after.next = 0.into();
        self.seen.next = false;
        for i in 0..RR_MAX {
            self.after.next = self.after.val().replace_bit(i, self.seen.val());
            self.grant.next = self.grant.val().replace_bit(i, self.hi.val().get_bit(i) & !self.seen.val());
            self.seen.next = self.seen.val() | self.hi.val().get_bit(i);
        }
        if self.advance.val() & self.req.val().any() {
            self.above.d.next = self.after.val();
        }
        if self.reset.val() {
            self.above.d.next = 0.into();
        }
    }
}
