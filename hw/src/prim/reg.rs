//! `Reg<T>`: a D flip-flop per bit, the only clocked primitive besides RAMs.
//!
//! Same ports as rust-hdl's `DFF` (so `dff_setup!` works), but its initial
//! value is sized to `T` (rust-hdl's DFF writes enum inits as 64-bit
//! literals). Reset is synchronous and explicit in the user's logic: the last
//! assignment `if self.reset.val() { r.d.next = ...; }` wins, so only control
//! state pays for a reset net.

use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Reg<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    kind: TypeTag<Self>,
}

impl<T: Synth> Default for Reg<T> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            d: Default::default(),
            q: Signal::new_with_default(T::default()),
            kind: Default::default(),
        }
    }
}

impl<T: Synth> Logic for Reg<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = self.d.val();
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        let init = hdl_emit::resize_literal(&T::default().verilog().to_string(), T::BITS)
            .expect("a default value always fits its type");
        Verilog::Custom(format!("initial q = {init};\nalways @(posedge clock) q <= d;"))
    }
}
