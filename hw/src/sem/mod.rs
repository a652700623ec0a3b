//! Blocks that exercise the expressions where Verilog's evaluation rules
//! differ from Rust's. They exist to be checked by the differential test:
//! stock rust-hdl output gets every one of them wrong for some inputs.

mod child_patterns;
mod index_patterns;
mod match_patterns;
mod signed_patterns;
mod struct_patterns;

pub use child_patterns::{ChildPatterns, SumChild};
pub use index_patterns::IndexPatterns;
pub use match_patterns::{MatchPatterns, Phase};
pub use signed_patterns::SignedPatterns;
pub use struct_patterns::{Fields, StructPatterns};

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum PatternState {
    Idle,
    Count,
    Hold,
}

#[derive(LogicBlock)]
pub struct SemPatterns {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    pub c: Signal<In, Bits<8>>,
    pub psn_a: Signal<In, Bits<24>>,
    pub psn_b: Signal<In, Bits<24>>,
    pub x16: Signal<In, Bits<16>>,
    pub y16: Signal<In, Bits<16>>,
    /// `(a + 1) == 0`: the carry must be dropped.
    pub wrap_eq: Signal<Out, Bit>,
    /// `bit_cast::<9, 8>(a + b)`: the sum wraps at 8 bits before widening.
    pub sum9: Signal<Out, Bits<9>>,
    /// `(a << 4) >> 4`: bits shifted out stay out.
    pub shl_shr: Signal<Out, Bits<16>>,
    /// 24-bit PSN window compare `(a - b) < w` with a 24-bit difference.
    pub psn_in_window: Signal<Out, Bit>,
    /// The same against a literal: "a is not before b" in 24-bit serial arithmetic.
    pub psn_before: Signal<Out, Bit>,
    /// `a & b == c` is `(a & b) == c` in Rust.
    pub band_eq: Signal<Out, Bit>,
    pub or_lt: Signal<Out, Bit>,
    pub xor_ne: Signal<Out, Bit>,
    pub bnot_eq: Signal<Out, Bit>,
    pub sub_gt: Signal<Out, Bit>,
    pub mul32: Signal<Out, Bits<32>>,
    pub var_slice: Signal<Out, Bits<4>>,
    pub var_shift: Signal<Out, Bits<8>>,
    pub bit_ops: Signal<Out, Bits<8>>,
    /// `replace_bit` with a computed bit: the bit must not be widened before
    /// it is inverted.
    pub replace_not: Signal<Out, Bits<8>>,
    pub reductions: Signal<Out, Bits<3>>,
    pub count: Signal<Out, Bits<8>>,
    pub state_out: Signal<Out, Bits<2>>,
    state: Reg<PatternState>,
    counter: Reg<Bits<8>>,
    psn_diff: Signal<Local, Bits<24>>,
    window: Constant<Bits<24>>,
    kind: TypeTag<Self>,
}

impl Default for SemPatterns {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            psn_a: Default::default(),
            psn_b: Default::default(),
            x16: Default::default(),
            y16: Default::default(),
            wrap_eq: Default::default(),
            sum9: Default::default(),
            shl_shr: Default::default(),
            psn_in_window: Default::default(),
            psn_before: Default::default(),
            band_eq: Default::default(),
            or_lt: Default::default(),
            xor_ne: Default::default(),
            bnot_eq: Default::default(),
            sub_gt: Default::default(),
            mul32: Default::default(),
            var_slice: Default::default(),
            var_shift: Default::default(),
            bit_ops: Default::default(),
            replace_not: Default::default(),
            reductions: Default::default(),
            count: Default::default(),
            state_out: Default::default(),
            state: Default::default(),
            counter: Default::default(),
            psn_diff: Default::default(),
            // half the PSN space: "a is not before b"
            window: Constant::new(0x80_0000u64.into()),
            kind: Default::default(),
        }
    }
}

impl Logic for SemPatterns {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, counter);
        self.wrap_eq.next = (self.a.val() + 1) == 0;
        self.sum9.next = bit_cast::<9, 8>(self.a.val() + self.b.val());
        self.shl_shr.next = bit_cast::<16, 8>((self.a.val() << 4) >> 4);
        self.psn_in_window.next = (self.psn_a.val() - self.psn_b.val()) < self.window.val();
        self.psn_before.next = (self.psn_a.val() - self.psn_b.val()) < 0x80_0000;
        self.psn_diff.next = self.psn_a.val() - self.psn_b.val();
        self.band_eq.next = self.a.val() & self.b.val() == self.c.val();
        self.or_lt.next = self.a.val() | self.b.val() < self.c.val();
        self.xor_ne.next = self.a.val() ^ self.b.val() != self.c.val();
        self.bnot_eq.next = !self.a.val() == self.b.val();
        self.sub_gt.next = self.a.val() - self.b.val() > self.c.val();
        self.mul32.next = self.x16.val() * self.y16.val();
        // offset up to 7 on 8 bits: the top bits come from beyond the source (zero in Rust)
        self.var_slice.next = self.a.val().get_bits::<4>(self.b.val().get_bits::<3>(0).index());
        self.var_shift.next = self.a.val() << self.b.val().get_bits::<4>(0);
        self.bit_ops.next = self.a.val().replace_bit(3, self.b.val().get_bit(7));
        self.replace_not.next = self.a.val().replace_bit(5, !(self.b.val().get_bit(0) | self.c.val().get_bit(0)));
        if self.c.val().get_bit(0) {
            self.bit_ops.next = (self.a.val() + self.b.val()) & !self.c.val();
        }
        self.reductions.next = 0.into();
        if self.a.val().any() {
            self.reductions.next = 1.into();
        }
        if self.b.val().all() {
            self.reductions.next = 2.into();
        }
        if (self.c.val() ^ self.a.val()).xor() {
            self.reductions.next = 4.into();
        }
        match self.state.q.val() {
            PatternState::Idle => {
                if self.psn_diff.val().get_bit(23) {
                    self.state.d.next = PatternState::Count;
                }
            }
            PatternState::Count => {
                self.counter.d.next = self.counter.q.val() + 1;
                if (self.counter.q.val() + 1) == 0 {
                    self.state.d.next = PatternState::Hold;
                }
            }
            _ => {
                if self.a.val() == 0x5a {
                    self.state.d.next = PatternState::Idle;
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = PatternState::Idle;
            self.counter.d.next = 0.into();
        }
        self.count.next = self.counter.q.val();
        self.state_out.next = 0.into();
        if self.state.q.val() == PatternState::Count {
            self.state_out.next = 1.into();
        }
        if self.state.q.val() == PatternState::Hold {
            self.state_out.next = 2.into();
        }
    }
}

/// Wide-vector patterns: a 1024-bit concatenation, a variable byte realign of
/// two 512-bit beats, an XOR fold and a wide compare.
#[derive(LogicBlock, Default)]
pub struct WidePatterns {
    pub clock: Signal<In, Clock>,
    pub offset: Signal<In, Bits<6>>,
    pub in_data: Signal<In, Bits<512>>,
    pub pattern: Signal<In, Bits<512>>,
    pub realigned: Signal<Out, Bits<512>>,
    pub fold: Signal<Out, Bits<32>>,
    pub is_match: Signal<Out, Bit>,
    pub ethertype_ipv4: Signal<Out, Bit>,
    prev: Reg<Bits<512>>,
    out: Reg<Bits<512>>,
    cat: Signal<Local, Bits<1024>>,
    shift: Signal<Local, Bits<10>>,
    acc: Signal<Local, Bits<32>>,
    kind: TypeTag<Self>,
}

impl Logic for WidePatterns {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, prev, out);
        self.prev.d.next = self.in_data.val();
        self.cat.next = (bit_cast::<1024, 512>(self.in_data.val()) << 512) | bit_cast::<1024, 512>(self.prev.q.val());
        self.shift.next = bit_cast::<10, 6>(self.offset.val()) << 3;
        self.out.d.next = self.cat.val().get_bits::<512>(self.shift.val().index());
        self.acc.next = 0.into();
        for i in 0..16 {
            self.acc.next = self.acc.val() ^ self.out.q.val().get_bits::<32>(i * 32);
        }
        self.fold.next = self.acc.val();
        self.is_match.next = self.out.q.val() == self.pattern.val();
        // bytes 12..13 of a frame, little-endian byte lanes
        self.ethertype_ipv4.next = self.in_data.val().get_bits::<16>(96) == 0x0008;
        self.realigned.next = self.out.q.val();
    }
}
