//! `BlockRam<T, A>`: 2^A words, one synchronous write port and one
//! synchronous read port (data one cycle after the address). Maps to block
//! RAM on UltraScale+; for buffers too deep for LUTRAM, such as the DMA
//! engine's reorder buffer. A read of the word written in the same cycle
//! returns the old word.

use hdl_emit::TypeTag;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock, Default)]
pub struct BlockRam<T: Synth, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub write_addr: Signal<In, Bits<A>>,
    pub write_data: Signal<In, T>,
    pub write_enable: Signal<In, Bit>,
    pub read_addr: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, T>,
    kind: TypeTag<Self>,
    _mem: BTreeMap<Bits<A>, T>,
    _out: T,
}

impl<T: Synth, const A: usize> Logic for BlockRam<T, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self._out = self._mem.get(&self.read_addr.val()).copied().unwrap_or_default();
            if self.write_enable.val() {
                self._mem.insert(self.write_addr.val(), self.write_data.val());
            }
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
             always @(posedge clock) begin\n\
             \x20   if (write_enable) mem[write_addr] <= write_data;\n\
             \x20   read_data <= mem[read_addr];\n\
             end",
            depth = (1usize << A) - 1,
            init = super::zero_init((1usize << A) - 1)
        ))
    }
}
