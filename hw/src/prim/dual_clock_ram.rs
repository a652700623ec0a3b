//! `DualClockRam<T, A>`: 2^A words in block RAM with a write port on one
//! clock and a read port on another (simple dual port, independent clocks):
//! the storage of the asynchronous FIFOs at the MAC boundary (`crate::mac`).
//!
//! The read port is synchronous: `read_data` is the word at `read_addr` as
//! of the last rising edge of `read_clock`. When both clocks rise together a
//! read of the word being written returns the old word (as [`super::BlockRam`]);
//! between real asynchronous clocks such a read is undefined in hardware, so
//! the FIFOs never read a word before its write is known, through a
//! synchronizer, to have happened.

use hdl_emit::TypeTag;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock, Default)]
pub struct DualClockRam<T: Synth, const A: usize> {
    pub write_clock: Signal<In, Clock>,
    pub write_addr: Signal<In, Bits<A>>,
    pub write_data: Signal<In, T>,
    pub write_enable: Signal<In, Bit>,
    pub read_clock: Signal<In, Clock>,
    pub read_addr: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, T>,
    kind: TypeTag<Self>,
    _mem: BTreeMap<Bits<A>, T>,
    _out: T,
}

impl<T: Synth, const A: usize> Logic for DualClockRam<T, A> {
    fn update(&mut self) {
        // read first: a read and a write on the same (simultaneous) edge see the old word
        if self.read_clock.pos_edge() {
            self._out = self._mem.get(&self.read_addr.val()).copied().unwrap_or_default();
        }
        if self.write_clock.pos_edge() && self.write_enable.val() {
            self._mem.insert(self.write_addr.val(), self.write_data.val());
        }
        self.read_data.next = self._out;
    }
    fn connect(&mut self) {
        self.read_data.connect();
    }
    fn hdl(&self) -> Verilog {
        let w = T::BITS;
        let range = if w == 1 { String::new() } else { format!("[{}:0] ", w - 1) };
        Verilog::Custom(format!(
            "(* ram_style = \"block\" *) logic {range}mem [0:{depth}];\n\
             {init}\
             initial read_data = '0;\n\
             always @(posedge write_clock) if (write_enable) mem[write_addr] <= write_data;\n\
             always @(posedge read_clock) read_data <= mem[read_addr];",
            depth = (1usize << A) - 1,
            init = super::zero_init((1usize << A) - 1)
        ))
    }
}
