//! Primitives with hand-written Verilog and a Rust model each.
mod block_ram;
mod bram_fifo;
mod dual_clock_ram;
mod gray_sync;
mod lut_ram;
mod reg;
pub use block_ram::BlockRam;
pub use bram_fifo::{BramFifo, BRAM_FIFO_LATENCY};
pub use dual_clock_ram::DualClockRam;
pub use gray_sync::{to_gray, GraySync, SyncFlops, GRAY_SYNC_MAX_BITS};
pub use lut_ram::LutRam;
pub use reg::Reg;

/// The Verilog that starts a RAM of `depth` + 1 words at zero, for
/// simulation only. The FPGA's block and distributed RAMs are zero after
/// configuration without it, and yosys unrolls the loop word by word (about
/// ten minutes for two 16K-word RAMs against ten seconds without, measured
/// on `inflight`), so synthesis (`SYNTHESIS` is defined by yosys, not by
/// Verilator) does not read it.
fn zero_init(depth: usize) -> String {
    format!("`ifndef SYNTHESIS\ninitial for (int i = 0; i <= {depth}; i++) mem[i] = '0;\n`endif\n")
}

use rust_hdl::core::atom::Atom;
use rust_hdl::prelude::*;

/// Number of flip-flops in a design: the widths of all [`Reg`] outputs.
pub fn flop_count(top: &dyn Block) -> usize {
    struct Count {
        // per scope: (is it a Reg, width of its `q`); the type tag may come after `q`
        stack: Vec<(bool, usize)>,
        bits: usize,
    }
    impl Probe for Count {
        fn visit_start_scope(&mut self, _n: &str, _b: &dyn Block) {
            self.stack.push((false, 0));
        }
        fn visit_start_namespace(&mut self, n: &str, _b: &dyn Block) {
            if n.starts_with("__rnic_type__rnic_hw::prim::reg::Reg<") {
                self.stack.last_mut().unwrap().0 = true;
            }
        }
        fn visit_atom(&mut self, n: &str, a: &dyn Atom) {
            if n == "q" {
                if let Some(top) = self.stack.last_mut() {
                    top.1 = a.bits();
                }
            }
        }
        fn visit_end_scope(&mut self, _n: &str, _b: &dyn Block) {
            if let Some((true, q)) = self.stack.pop() {
                self.bits += q;
            }
        }
    }
    let mut c = Count { stack: vec![], bits: 0 };
    top.accept("top", &mut c);
    c.bits
}
