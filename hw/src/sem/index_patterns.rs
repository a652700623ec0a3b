//! `index()` values are `usize` in Rust: arithmetic on them happens at 64
//! bits, not at the width of the vector they came from.

use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct IndexPatterns {
    pub clock: Signal<In, Clock>,
    pub i3: Signal<In, Bits<3>>,
    pub i4: Signal<In, Bits<4>>,
    pub i6: Signal<In, Bits<6>>,
    pub j8: Signal<In, Bits<8>>,
    pub flag: Signal<In, Bit>,
    pub x13: Signal<In, Bits<13>>,
    pub x16: Signal<In, Bits<16>>,
    pub x64: Signal<In, Bits<64>>,
    /// `x64.get_bits::<8>(i3.index() << 3)`: the byte offset must not wrap at 3 bits.
    pub byte_at: Signal<Out, Bits<8>>,
    /// `x16.get_bits::<8>(i3.index() << 1)`: offsets past the top read zeros.
    pub pair_at: Signal<Out, Bits<8>>,
    /// `x64.get_bits::<4>(i4.index() * 4)`: a `usize` product.
    pub nibble_at: Signal<Out, Bits<4>>,
    /// `i3.index() + 1 == 8`: true at the top of `i3`'s range.
    pub top_of_range: Signal<Out, Bit>,
    /// `j8.index() + 1 > i6.index() + 200`: `usize` sums of different vectors.
    pub usize_cmp: Signal<Out, Bit>,
    /// `(i4 + 1).index()`: here the sum wraps at 4 bits first.
    pub wrapped_bit: Signal<Out, Bit>,
    /// `x16.get_bit(i3.index())`: an index narrower than the vector needs.
    pub narrow_bit: Signal<Out, Bit>,
    /// `x64.get_bit(i6.index())`, `x13.get_bits::<4>(i3)` and wider-than-source slices.
    pub exact_bit: Signal<Out, Bit>,
    pub odd_slice: Signal<Out, Bits<4>>,
    pub odd_slice_far: Signal<Out, Bits<8>>,
    pub wider_slice: Signal<Out, Bits<24>>,
    pub wider_const_slice: Signal<Out, Bits<20>>,
    /// `x16.replace_bit(i4.index(), ..)`.
    pub replaced: Signal<Out, Bits<16>>,
    /// `bits::<16>(1 << i4.index())`: a `u64` shifted by a `usize`.
    pub one_hot: Signal<Out, Bits<16>>,
    /// `(i3.index() + 1) << 3`: reaches 64, one past the last byte (zeros).
    pub next_byte: Signal<Out, Bits<8>>,
    /// `j8 + flag`: a `bool` added to a vector.
    pub plus_flag: Signal<Out, Bits<8>>,
    /// Loop variables meeting `index()` values.
    pub loop_match: Signal<Out, Bits<8>>,
    kind: TypeTag<Self>,
}

impl Logic for IndexPatterns {
    #[hdl_gen]
    fn update(&mut self) {
        self.byte_at.next = self.x64.val().get_bits::<8>(self.i3.val().index() << 3);
        self.pair_at.next = self.x16.val().get_bits::<8>(self.i3.val().index() << 1);
        self.nibble_at.next = self.x64.val().get_bits::<4>(self.i4.val().index() * 4);
        self.top_of_range.next = self.i3.val().index() + 1 == 8;
        self.usize_cmp.next = self.j8.val().index() + 1 > self.i6.val().index() + 200;
        self.wrapped_bit.next = self.x16.val().get_bit((self.i4.val() + 1).index());
        self.narrow_bit.next = self.x16.val().get_bit(self.i3.val().index());
        self.exact_bit.next = self.x64.val().get_bit(self.i6.val().index());
        self.odd_slice.next = self.x13.val().get_bits::<4>(self.i3.val().index());
        self.odd_slice_far.next = self.x13.val().get_bits::<8>(self.i3.val().index() + 4);
        self.wider_slice.next = self.x16.val().get_bits::<24>(self.i3.val().index());
        self.wider_const_slice.next = self.x16.val().get_bits::<20>(2);
        self.replaced.next = self.x16.val().replace_bit(self.i4.val().index(), !self.x16.val().get_bit(0));
        self.one_hot.next = bits::<16>(1 << self.i4.val().index());
        self.next_byte.next = self.x64.val().get_bits::<8>((self.i3.val().index() + 1) << 3);
        self.plus_flag.next = self.j8.val() + self.flag.val();
        self.loop_match.next = 0.into();
        for k in 0..8 {
            if self.i3.val().index() == k {
                self.loop_match.next = self.x64.val().get_bits::<8>(k * 8);
            }
            if self.i6.val().index() == k + 56 {
                self.loop_match.next = self.loop_match.val() ^ self.j8.val();
            }
        }
    }
}
