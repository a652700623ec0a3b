//! Valid/ready streams: 512-bit AXI-stream beats with byte enables, and a
//! header channel beside a payload stream for protocol layers.
//!
//! Port naming follows Corundum/verilog-axis: a block *receives* on `s_*`
//! (an [`AxisIn`]) and *sends* on `m_*` (an [`AxisOut`]); in Verilog the ports
//! read `s_axis_tdata`, `m_axis_tready`, ... A beat moves when
//! `tvalid & tready` at a rising clock edge.

mod fifo;
mod pkt;
mod realign;
mod reg_slice;
mod skid_buffer;

pub use fifo::AxisFifo;
pub use pkt::{HdrIn, HdrOut, HdrRegSlice, PktRegSlice};
pub use realign::AxisRealign;
pub use reg_slice::AxisRegSlice;
pub use skid_buffer::AxisSkidBuffer;

use rust_hdl::prelude::*;

/// Width of the core's data path in bits, and its byte enables.
pub const DATA_BITS: usize = 512;
pub const KEEP_BITS: usize = 64;

/// The sending side of an AXI stream with `D` data bits, `K = D/8` byte
/// enables and `U` user bits (stable Rust cannot derive `K` from `D`).
#[derive(LogicInterface, Default)]
#[join = "AxisIn"]
pub struct AxisOut<const D: usize, const K: usize, const U: usize> {
    pub tdata: Signal<Out, Bits<D>>,
    pub tkeep: Signal<Out, Bits<K>>,
    pub tlast: Signal<Out, Bit>,
    pub tuser: Signal<Out, Bits<U>>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

/// The receiving side of an AXI stream; see [`AxisOut`].
#[derive(LogicInterface, Default)]
#[join = "AxisOut"]
pub struct AxisIn<const D: usize, const K: usize, const U: usize> {
    pub tdata: Signal<In, Bits<D>>,
    pub tkeep: Signal<In, Bits<K>>,
    pub tlast: Signal<In, Bit>,
    pub tuser: Signal<In, Bits<U>>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}
