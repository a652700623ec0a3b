//! `RrArb4`: round-robin arbiter over four requesters. `grant` is one-hot
//! (combinational from `req`): the first requester after the last one
//! granted, wrapping; `grant_idx` is its index. The pointer moves only when
//! the user takes the grant (`advance`), so a requester that waits keeps its
//! turn. Each grant bit is a function of the four requests and the two
//! pointer bits: one LUT6, one level.

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
    /// Index of the granted requester (0 when none).
    pub grant_idx: Signal<Out, Bits<2>>,
    // index of the last requester granted (3 after reset: requester 0 first)
    last: Reg<Bits<2>>,
    g: Signal<Local, Bits<4>>,
    kind: TypeTag<Self>,
}

impl Logic for RrArb4 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, last);
        // priority order starts after `last`: (1 2 3 0), (2 3 0 1), (3 0 1 2), (0 1 2 3)
        self.g.next = 0.into();
        if self.last.q.val() == 0 {
            self.g.next = self.g.val().replace_bit(1, self.req.val().get_bit(1));
            self.g.next = self.g.val().replace_bit(2, self.req.val().get_bit(2) & !self.req.val().get_bit(1));
            self.g.next = self
                .g
                .val()
                .replace_bit(3, self.req.val().get_bit(3) & !self.req.val().get_bit(1) & !self.req.val().get_bit(2));
            self.g.next = self.g.val().replace_bit(
                0,
                self.req.val().get_bit(0)
                    & !self.req.val().get_bit(1)
                    & !self.req.val().get_bit(2)
                    & !self.req.val().get_bit(3),
            );
        }
        if self.last.q.val() == 1 {
            self.g.next = self.g.val().replace_bit(2, self.req.val().get_bit(2));
            self.g.next = self.g.val().replace_bit(3, self.req.val().get_bit(3) & !self.req.val().get_bit(2));
            self.g.next = self
                .g
                .val()
                .replace_bit(0, self.req.val().get_bit(0) & !self.req.val().get_bit(2) & !self.req.val().get_bit(3));
            self.g.next = self.g.val().replace_bit(
                1,
                self.req.val().get_bit(1)
                    & !self.req.val().get_bit(2)
                    & !self.req.val().get_bit(3)
                    & !self.req.val().get_bit(0),
            );
        }
        if self.last.q.val() == 2 {
            self.g.next = self.g.val().replace_bit(3, self.req.val().get_bit(3));
            self.g.next = self.g.val().replace_bit(0, self.req.val().get_bit(0) & !self.req.val().get_bit(3));
            self.g.next = self
                .g
                .val()
                .replace_bit(1, self.req.val().get_bit(1) & !self.req.val().get_bit(3) & !self.req.val().get_bit(0));
            self.g.next = self.g.val().replace_bit(
                2,
                self.req.val().get_bit(2)
                    & !self.req.val().get_bit(3)
                    & !self.req.val().get_bit(0)
                    & !self.req.val().get_bit(1),
            );
        }
        if self.last.q.val() == 3 {
            self.g.next = self.g.val().replace_bit(0, self.req.val().get_bit(0));
            self.g.next = self.g.val().replace_bit(1, self.req.val().get_bit(1) & !self.req.val().get_bit(0));
            self.g.next = self
                .g
                .val()
                .replace_bit(2, self.req.val().get_bit(2) & !self.req.val().get_bit(0) & !self.req.val().get_bit(1));
            self.g.next = self.g.val().replace_bit(
                3,
                self.req.val().get_bit(3)
                    & !self.req.val().get_bit(0)
                    & !self.req.val().get_bit(1)
                    & !self.req.val().get_bit(2),
            );
        }
        self.grant.next = self.g.val();
        self.grant_idx.next = 0.into();
        if self.g.val().get_bit(1) {
            self.grant_idx.next = 1.into();
        }
        if self.g.val().get_bit(2) {
            self.grant_idx.next = 2.into();
        }
        if self.g.val().get_bit(3) {
            self.grant_idx.next = 3.into();
        }
        if self.advance.val() & self.g.val().any() {
            self.last.d.next = self.grant_idx.val();
        }
        if self.reset.val() {
            self.last.d.next = 3.into();
        }
    }
}
