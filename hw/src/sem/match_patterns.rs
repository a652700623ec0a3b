//! Matches: an exhaustive enum match without a wildcard, integer matches on
//! `index()` with decimal and hex labels, nested matches, and wide literals
//! and shifts the emitter must size as Rust does.

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum Phase {
    Wait,
    Run,
    Drain,
}

#[derive(LogicBlock, Default)]
pub struct MatchPatterns {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub go: Signal<In, Bit>,
    pub k: Signal<In, Bits<4>>,
    pub w40: Signal<In, Bits<40>>,
    pub sh: Signal<In, Bits<6>>,
    pub phase: Signal<Out, Bits<2>>,
    /// Assigned in every arm of an enum match, with no default before it:
    /// the last arm takes the unused encoding, so no latch.
    pub per_arm: Signal<Out, Bits<4>>,
    pub decoded: Signal<Out, Bits<8>>,
    /// Literals near the top of a 40-bit vector.
    pub all_ones: Signal<Out, Bit>,
    pub top_set: Signal<Out, Bit>,
    pub plus_top: Signal<Out, Bits<40>>,
    /// Shifts by literals at and beyond the width, and of a literal by a vector.
    pub shifted_out: Signal<Out, Bits<40>>,
    pub shifted_far: Signal<Out, Bits<40>>,
    pub one_shl: Signal<Out, Bits<64>>,
    pub lit_lt: Signal<Out, Bit>,
    state: Reg<Phase>,
    count: Reg<Bits<4>>,
    kind: TypeTag<Self>,
}

impl Logic for MatchPatterns {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, count);
        match self.state.q.val() {
            Phase::Wait => {
                if self.go.val() {
                    self.state.d.next = Phase::Run;
                    self.count.d.next = self.k.val();
                }
            }
            Phase::Run => {
                self.count.d.next = self.count.q.val() - 1;
                if self.count.q.val() == 0 {
                    self.state.d.next = Phase::Drain;
                }
            }
            Phase::Drain => {
                self.state.d.next = Phase::Wait;
            }
        }
        if self.reset.val() {
            self.state.d.next = Phase::Wait;
            self.count.d.next = 0.into();
        }
        self.phase.next = 0.into();
        match self.state.q.val() {
            Phase::Run => self.phase.next = 1.into(),
            Phase::Drain => self.phase.next = 2.into(),
            _ => {}
        }
        match self.state.q.val() {
            Phase::Wait => self.per_arm.next = 1.into(),
            Phase::Run => self.per_arm.next = self.count.q.val(),
            Phase::Drain => self.per_arm.next = 0xf.into(),
        }
        match self.k.val().index() {
            0 => self.decoded.next = 0x11.into(),
            3 => self.decoded.next = 0x33.into(),
            0xa => match self.count.q.val().index() {
                0 => self.decoded.next = 0xa0.into(),
                _ => self.decoded.next = 0xaf.into(),
            },
            0xF => self.decoded.next = 0xff.into(),
            _ => self.decoded.next = bit_cast::<8, 4>(self.k.val()),
        }
        self.all_ones.next = self.w40.val() == 0xff_ffff_ffff_u64;
        self.top_set.next = self.w40.val() >= 0x80_0000_0000_u64;
        self.plus_top.next = self.w40.val() + 0x80_0000_0000_u64;
        self.shifted_out.next = self.w40.val() << 40;
        self.shifted_far.next = self.w40.val() >> 0x1_0000_0000_u64;
        self.one_shl.next = 1 << self.sh.val();
        self.lit_lt.next = 0x9 < self.k.val() + 0x7;
    }
}
