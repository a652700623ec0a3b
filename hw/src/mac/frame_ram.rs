//! `FrameRam<A>`: the storage of both MAC FIFOs: 2^A beats (data, byte
//! enables, and {tuser, tlast} as two flag bits) in block RAM, written on
//! one clock and read on another ([`crate::prim::DualClockRam`]). One place
//! for the beat's layout in the RAM, which [`super::FrameReader`] reads.

use crate::axis::{DATA_BITS, KEEP_BITS};
use crate::prim::DualClockRam;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FrameRam<const A: usize> {
    pub write_clock: Signal<In, Clock>,
    pub write_addr: Signal<In, Bits<A>>,
    pub write_enable: Signal<In, Bit>,
    pub write_data: Signal<In, Bits<DATA_BITS>>,
    pub write_keep: Signal<In, Bits<KEEP_BITS>>,
    pub write_last: Signal<In, Bit>,
    pub write_user: Signal<In, Bits<1>>,
    pub read_clock: Signal<In, Clock>,
    pub read_addr: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<DATA_BITS>>,
    pub read_keep: Signal<Out, Bits<KEEP_BITS>>,
    /// bit 0 tlast, bit 1 tuser
    pub read_flags: Signal<Out, Bits<2>>,
    data: DualClockRam<Bits<DATA_BITS>, A>,
    keep: DualClockRam<Bits<KEEP_BITS>, A>,
    flags: DualClockRam<Bits<2>, A>,
    kind: TypeTag<Self>,
}

impl<const A: usize> Logic for FrameRam<A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.data.write_clock.next = self.write_clock.val();
        self.keep.write_clock.next = self.write_clock.val();
        self.flags.write_clock.next = self.write_clock.val();
        self.data.write_addr.next = self.write_addr.val();
        self.keep.write_addr.next = self.write_addr.val();
        self.flags.write_addr.next = self.write_addr.val();
        self.data.write_enable.next = self.write_enable.val();
        self.keep.write_enable.next = self.write_enable.val();
        self.flags.write_enable.next = self.write_enable.val();
        self.data.write_data.next = self.write_data.val();
        self.keep.write_data.next = self.write_keep.val();
        self.flags.write_data.next = bit_cast::<2, 1>(self.write_user.val()) << 1;
        if self.write_last.val() {
            self.flags.write_data.next = (bit_cast::<2, 1>(self.write_user.val()) << 1) | 1;
        }
        self.data.read_clock.next = self.read_clock.val();
        self.keep.read_clock.next = self.read_clock.val();
        self.flags.read_clock.next = self.read_clock.val();
        self.data.read_addr.next = self.read_addr.val();
        self.keep.read_addr.next = self.read_addr.val();
        self.flags.read_addr.next = self.read_addr.val();
        self.read_data.next = self.data.read_data.val();
        self.read_keep.next = self.keep.read_data.val();
        self.read_flags.next = self.flags.read_data.val();
    }
}
