//! `Signed<N>` values, their slices (`get_bits` on a signed value is a
//! `Signed<M>`), sign extension, signed compares, sums and products.

use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SignedPatterns {
    pub clock: Signal<In, Clock>,
    pub u16a: Signal<In, Bits<16>>,
    pub u16b: Signal<In, Bits<16>>,
    pub u8a: Signal<In, Bits<8>>,
    pub u8b: Signal<In, Bits<8>>,
    /// `slice < b` on `Signed<8>`: a signed compare of a slice.
    pub slice_lt: Signal<Out, Bit>,
    pub slice_ge: Signal<Out, Bit>,
    /// `slice + a`, compared signed.
    pub sum: Signal<Out, Bits<8>>,
    pub sum_gt: Signal<Out, Bit>,
    /// `signed_bit_cast::<16, 8>(slice)`: sign extension of a slice.
    pub widened: Signal<Out, Bits<16>>,
    pub widened_lt: Signal<Out, Bit>,
    /// `signed_bit_cast::<16, 8>(slice) * b`: a signed 16 x 16 product.
    pub product: Signal<Out, Bits<32>>,
    pub product_neg: Signal<Out, Bit>,
    /// `-a`, and `a - b` compared with zero.
    pub negated: Signal<Out, Bits<8>>,
    pub diff_lt: Signal<Out, Bit>,
    /// Unsigned views of signed values compare unsigned.
    pub unsigned_lt: Signal<Out, Bit>,
    /// A bit of a signed value, and a slice that reaches past its top.
    pub sign_bit: Signal<Out, Bit>,
    pub high_slice: Signal<Out, Bits<8>>,
    sa: Signal<Local, Signed<16>>,
    sb: Signal<Local, Signed<16>>,
    s8a: Signal<Local, Signed<8>>,
    s8b: Signal<Local, Signed<8>>,
    s8sum: Signal<Local, Signed<8>>,
    s16: Signal<Local, Signed<16>>,
    s32: Signal<Local, Signed<32>>,
    zero8: Signal<Local, Signed<8>>,
    kind: TypeTag<Self>,
}

impl Logic for SignedPatterns {
    #[hdl_gen]
    fn update(&mut self) {
        // bit 4 set: the slice [4, 12) is never -128, which rust-hdl's own
        // signed_bit_cast cannot negate (it recurses forever)
        self.sa.next = signed_cast(self.u16a.val() | 0x10);
        self.sb.next = signed_cast(self.u16b.val());
        self.s8a.next = signed_cast(self.u8a.val());
        self.s8b.next = signed_cast(self.u8b.val());
        self.zero8.next = signed_cast(bits::<8>(0));
        self.slice_lt.next = self.sa.val().get_bits::<8>(0) < self.s8b.val();
        self.slice_ge.next = self.sa.val().get_bits::<8>(8) >= self.s8a.val();
        self.s8sum.next = self.sa.val().get_bits::<8>(8) + self.s8a.val();
        self.sum.next = unsigned_cast(self.s8sum.val());
        self.sum_gt.next = self.sa.val().get_bits::<8>(2) + self.s8a.val() > self.s8b.val();
        self.s16.next = signed_bit_cast::<16, 8>(self.sa.val().get_bits::<8>(4));
        self.widened.next = unsigned_cast(self.s16.val());
        self.widened_lt.next = signed_bit_cast::<16, 8>(self.sa.val().get_bits::<8>(4)) < self.sb.val();
        self.s32.next = signed_bit_cast::<16, 8>(self.sa.val().get_bits::<8>(4)) * self.sb.val();
        self.product.next = unsigned_cast(self.s32.val());
        self.product_neg.next = self.s32.val().get_bit(31);
        self.negated.next = unsigned_cast(-self.s8a.val());
        self.diff_lt.next = self.s8a.val() - self.s8b.val() < self.zero8.val();
        self.unsigned_lt.next = unsigned_cast(self.s8a.val()) < unsigned_cast(self.s8b.val());
        self.sign_bit.next = self.sa.val().get_bit(15);
        self.high_slice.next = unsigned_cast(self.sa.val().get_bits::<8>(12));
    }
}
