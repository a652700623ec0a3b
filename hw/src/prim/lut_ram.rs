//! `LutRam<T, A>`: 2^A words, one synchronous write port, one asynchronous
//! read port. Maps to distributed RAM (LUTRAM) on UltraScale+; meant for the
//! shallow FIFOs of stream blocks where a read must be seen in the same cycle.

use hdl_emit::TypeTag;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock, Default)]
pub struct LutRam<T: Synth, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub write_addr: Signal<In, Bits<A>>,
    pub write_data: Signal<In, T>,
    pub write_enable: Signal<In, Bit>,
    pub read_addr: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, T>,
    kind: TypeTag<Self>,
    _mem: BTreeMap<Bits<A>, T>,
}

impl<T: Synth, const A: usize> Logic for LutRam<T, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.write_enable.val() {
            self._mem.insert(self.write_addr.val(), self.write_data.val());
        }
        self.read_data.next = self._mem.get(&self.read_addr.val()).copied().unwrap_or_default();
    }
    fn connect(&mut self) {
        self.read_data.connect();
    }
    fn hdl(&self) -> Verilog {
        let w = T::BITS;
        let range = if w == 1 { String::new() } else { format!("[{}:0] ", w - 1) };
        Verilog::Custom(format!(
            "(* ram_style = \"distributed\" *) logic {range}mem [0:{depth}];\n\
             {init}\
             always @(posedge clock) if (write_enable) mem[write_addr] <= write_data;\n\
             assign read_data = mem[read_addr];",
            depth = (1usize << A) - 1,
            init = super::zero_init((1usize << A) - 1)
        ))
    }
}
