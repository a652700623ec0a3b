//! `RamFull<A, P>`: whether a write pointer would be a whole RAM (2^A
//! beats) ahead of the read pointer: same address bits, another wrap bit.
//! Pointers are P = A + 1 bits. The MAC FIFOs' write sides compute it for
//! each place their pointer may go next, before the write decision picks one.

use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RamFull<const A: usize, const P: usize> {
    pub ptr: Signal<In, Bits<P>>,
    /// The reader's pointer as last synchronized (it only lags the real one,
    /// so "not full" is never optimistic).
    pub rd: Signal<In, Bits<P>>,
    pub full: Signal<Out, Bit>,
    diff: Signal<Local, Bits<P>>,
    kind: TypeTag<Self>,
}

impl<const A: usize, const P: usize> Logic for RamFull<A, P> {
    #[hdl_gen]
    fn update(&mut self) {
        self.diff.next = self.ptr.val() ^ self.rd.val();
        self.full.next = (bit_cast::<A, P>(self.diff.val()) == 0) & (self.diff.val() != 0);
    }
}
