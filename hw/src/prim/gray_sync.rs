//! Clock-domain crossing pieces shared by the MAC boundary FIFOs
//! (`crate::mac`).
//!
//! * [`SyncFlops<T>`]: two flip-flops in the destination clock, marked
//!   `ASYNC_REG` so the placer keeps them together; the first may go
//!   metastable, the second gives it a cycle to settle. Only for values that
//!   change in at most one bit between two destination edges: a single bit
//!   (a reset), or a Gray-coded counter register in the source clock.
//! * [`GraySync<N>`]: a Gray-coded counter from another clock, through
//!   [`SyncFlops`], converted back to binary into a register. The source
//!   must hold the Gray code in a register (no logic between that register
//!   and `gray`) and step it by at most one per source edge; the binary
//!   value is then always one the source counter really held, never more
//!   than three destination edges old.
//!
//! Latency: a step of the source register at a source edge is in `bin` after
//! the third destination edge that follows it.

use super::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SyncFlops<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    kind: TypeTag<Self>,
    _meta: T,
    _q: T,
}

impl<T: Synth> Logic for SyncFlops<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self._q = self._meta;
            self._meta = self.d.val();
        }
        self.q.next = self._q;
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        let w = T::BITS;
        let range = if w == 1 { String::new() } else { format!("[{}:0] ", w - 1) };
        Verilog::Custom(format!(
            "(* ASYNC_REG = \"TRUE\" *) logic {range}meta = '0;\n\
             (* ASYNC_REG = \"TRUE\" *) logic {range}settled = '0;\n\
             always @(posedge clock) begin\n\
             \x20   meta <= d;\n\
             \x20   settled <= meta;\n\
             end\n\
             assign q = settled;"
        ))
    }
}

/// A Gray-coded counter of `N` bits (N <= 32) from another clock domain, as
/// a registered binary value in this one. `reset` clears `bin`.
#[derive(LogicBlock, Default)]
pub struct GraySync<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The source domain's Gray-code register.
    pub gray: Signal<In, Bits<N>>,
    /// The counter's binary value, three edges of `clock` late at most.
    pub bin: Signal<Out, Bits<N>>,
    sync: SyncFlops<Bits<N>>,
    bin_r: Reg<Bits<N>>,
    // Gray to binary: bit i is the XOR of Gray bits i.. (prefix XOR in 5 doubling steps)
    x1: Signal<Local, Bits<N>>,
    x2: Signal<Local, Bits<N>>,
    x4: Signal<Local, Bits<N>>,
    x8: Signal<Local, Bits<N>>,
    x16: Signal<Local, Bits<N>>,
    kind: TypeTag<Self>,
}

impl<const N: usize> Logic for GraySync<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bin_r);
        self.sync.clock.next = self.clock.val();
        self.sync.d.next = self.gray.val();
        self.x1.next = self.sync.q.val() ^ (self.sync.q.val() >> 1);
        self.x2.next = self.x1.val() ^ (self.x1.val() >> 2);
        self.x4.next = self.x2.val() ^ (self.x2.val() >> 4);
        self.x8.next = self.x4.val() ^ (self.x4.val() >> 8);
        self.x16.next = self.x8.val() ^ (self.x8.val() >> 16);
        self.bin_r.d.next = self.x16.val();
        if self.reset.val() {
            self.bin_r.d.next = 0.into();
        }
        self.bin.next = self.bin_r.q.val();
    }
}

/// `N <= 32` for [`GraySync`]'s five doubling steps; checked where used.
pub const GRAY_SYNC_MAX_BITS: usize = 32;

/// The Gray code of `b` (software reference for tests and docs).
pub const fn to_gray(b: u64) -> u64 {
    b ^ (b >> 1)
}
