//! The core's host side: the boundary to the PCIe IP, and the engines behind
//! it (DMA, doorbells, context caches and commands, translation, completion
//! queues).
//!
//! The boundary is vendor-neutral (docs/host.md says how board firmware maps
//! it onto AMD QDMA or XDMA):
//! * a register port, AXI4-Lite with 32-bit data ([`AxilIn`]);
//! * DMA: read requests out ([`DmaRdReqOut`]), read data in
//!   ([`DmaRdDataIn`]), writes with their data out ([`DmaWrOut`]) and write
//!   completions in ([`DmaWrCplIn`]), over IOVAs, each request with a tag;
//! * interrupt requests carrying an MSI-X vector number ([`IrqOut`]).
//!
//! DMA data is *address-aligned*: the byte at IOVA `a` travels in byte lane
//! `a % 64` of a 512-bit beat, as on an AXI4 memory-mapped bus. Requests are
//! split on boundaries that are multiples of 64 bytes, so splitting never
//! moves a byte to another lane and no realignment is needed anywhere in the
//! DMA path.

mod cq_engine;
mod ctx_cache;
mod ctx_engine;
mod ctx_port_mux;
mod db_route;
mod dma_engine;
mod dma_fifo;
mod dma_rd;
mod dma_rd_mux;
mod dma_wr;
mod dma_wr_mux;
mod host_if;
mod qp_admit;
mod qp_modify;
mod reg_file;
mod rr_arb;
mod rr_one_hot;

pub use cq_engine::{CqEngine, CqSetupIn, CqSetupOut, CqeIn, CqeOut, QueryIn, QueryOut};
pub use ctx_cache::{
    CacheReqIn, CacheReqOut, CacheRespIn, CacheRespOut, CtxCache, CACHE_OP_FLUSH, CACHE_OP_INVALIDATE, CACHE_OP_READ,
    CACHE_OP_WRITE, CTX_CACHE_ID_BITS, CTX_CACHE_MSHRS,
};
pub use ctx_engine::CtxEngine;
pub use ctx_port_mux::{CtxPortMux, CTX_MUX_ID_BITS, CTX_MUX_MAX_USERS, CTX_MUX_USER_BITS};
pub use db_route::{DbRoute, DB_WORK_LATENCY, WORK_QPN_BITS};
pub use dma_engine::{
    DmaEngine, DMA_RD_CLIENTS, DMA_RD_SLOT_BYTES, DMA_RD_TAGS, DMA_RD_TAGS_PER_CLIENT, DMA_WR_CLIENTS, DMA_WR_TAGS,
};
pub use dma_fifo::DmaFifo;
pub use dma_rd::{DmaRd, RdTagCap};
pub use dma_rd_mux::{DmaRdMux, DMA_MUX_MAX_CLIENTS, DMA_MUX_SRC_LOG};
pub use dma_wr::DmaWr;
pub use dma_wr_mux::DmaWrMux;
pub use host_if::{HostIf, QPS_CACHE_LOG};
pub use qp_admit::QpAdmit;
pub use qp_modify::QpModify;
pub use reg_file::{CtxCmdIn, CtxCmdOut, DoorbellIn, DoorbellOut, RegFile, CNT_INDEX_BITS, HOST_COUNTERS};
pub use rr_arb::RrArb4;
pub use rr_one_hot::{RrOneHot, RR_MAX};

use rust_hdl::prelude::*;

/// AXI4-Lite slave port with 32-bit data and 16-bit byte addresses (BAR0 is
/// 8 KiB). Standard channel names: write address, write data, write
/// response, read address, read data.
#[derive(LogicInterface, Default)]
#[join = "AxilOut"]
pub struct AxilIn {
    pub awaddr: Signal<In, Bits<16>>,
    pub awvalid: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub wstrb: Signal<In, Bits<4>>,
    pub wvalid: Signal<In, Bit>,
    pub wready: Signal<Out, Bit>,
    pub bresp: Signal<Out, Bits<2>>,
    pub bvalid: Signal<Out, Bit>,
    pub bready: Signal<In, Bit>,
    pub araddr: Signal<In, Bits<16>>,
    pub arvalid: Signal<In, Bit>,
    pub arready: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    pub rresp: Signal<Out, Bits<2>>,
    pub rvalid: Signal<Out, Bit>,
    pub rready: Signal<In, Bit>,
}

/// The master side of [`AxilIn`].
#[derive(LogicInterface, Default)]
#[join = "AxilIn"]
pub struct AxilOut {
    pub awaddr: Signal<Out, Bits<16>>,
    pub awvalid: Signal<Out, Bit>,
    pub awready: Signal<In, Bit>,
    pub wdata: Signal<Out, Bits<32>>,
    pub wstrb: Signal<Out, Bits<4>>,
    pub wvalid: Signal<Out, Bit>,
    pub wready: Signal<In, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    pub bvalid: Signal<In, Bit>,
    pub bready: Signal<Out, Bit>,
    pub araddr: Signal<Out, Bits<16>>,
    pub arvalid: Signal<Out, Bit>,
    pub arready: Signal<In, Bit>,
    pub rdata: Signal<In, Bits<32>>,
    pub rresp: Signal<In, Bits<2>>,
    pub rvalid: Signal<In, Bit>,
    pub rready: Signal<Out, Bit>,
}

/// A DMA read request to the PCIe side: `len` bytes (1..=4096) at IOVA
/// `addr`, never crossing a 4 KiB boundary, answered on [`DmaRdDataIn`]
/// under `tag`.
#[derive(LogicInterface, Default)]
#[join = "DmaRdReqIn"]
pub struct DmaRdReqOut {
    pub addr: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<13>>,
    pub tag: Signal<Out, Bits<8>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "DmaRdReqOut"]
pub struct DmaRdReqIn {
    pub addr: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<13>>,
    pub tag: Signal<In, Bits<8>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// Read data from the PCIe side: the beats of one request come in address
/// order, address-aligned, `tlast` on its last beat; beats of different tags
/// may interleave at beat granularity. A failed request (completion error,
/// IOMMU fault, completion timeout) ends with a beat carrying `err` and
/// `tlast`. The DMA engine reserves buffer space for every tag it issues,
/// so `tready` is always 1: completions need no flow control.
#[derive(LogicInterface, Default)]
#[join = "DmaRdDataOut"]
pub struct DmaRdDataIn {
    pub tdata: Signal<In, Bits<512>>,
    pub tag: Signal<In, Bits<8>>,
    pub tlast: Signal<In, Bit>,
    pub err: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "DmaRdDataIn"]
pub struct DmaRdDataOut {
    pub tdata: Signal<Out, Bits<512>>,
    pub tag: Signal<Out, Bits<8>>,
    pub tlast: Signal<Out, Bit>,
    pub err: Signal<Out, Bit>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

/// A DMA write to the PCIe side: `len` bytes (1..=4096, never crossing a
/// 4 KiB boundary) at IOVA `addr`; `addr`, `len` and `tag` hold for every
/// beat of the write; data address-aligned with `tkeep` marking the bytes.
#[derive(LogicInterface, Default)]
#[join = "DmaWrIn"]
pub struct DmaWrOut {
    pub tdata: Signal<Out, Bits<512>>,
    pub tkeep: Signal<Out, Bits<64>>,
    pub tlast: Signal<Out, Bit>,
    pub addr: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<13>>,
    pub tag: Signal<Out, Bits<8>>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "DmaWrOut"]
pub struct DmaWrIn {
    pub tdata: Signal<In, Bits<512>>,
    pub tkeep: Signal<In, Bits<64>>,
    pub tlast: Signal<In, Bit>,
    pub addr: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<13>>,
    pub tag: Signal<In, Bits<8>>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

/// A write is done: ordered before every later DMA request and interrupt of
/// the device (for a posted write, handed to the PCIe core). In issue order;
/// `err` if it failed. No flow control: one per write, always accepted.
#[derive(LogicInterface, Default)]
#[join = "DmaWrCplOut"]
pub struct DmaWrCplIn {
    pub tag: Signal<In, Bits<8>>,
    pub err: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "DmaWrCplIn"]
pub struct DmaWrCplOut {
    pub tag: Signal<Out, Bits<8>>,
    pub err: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
}

/// An interrupt request: raise MSI-X vector `vector`.
#[derive(LogicInterface, Default)]
#[join = "IrqIn"]
pub struct IrqOut {
    pub vector: Signal<Out, Bits<11>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "IrqOut"]
pub struct IrqIn {
    pub vector: Signal<In, Bits<11>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A DMA engine client's read command: `len` bytes (at least 1) at IOVA
/// `addr`, any alignment, any length; the data comes back on the client's
/// data stream, address-aligned, `tlast` on the command's last beat.
#[derive(LogicInterface, Default)]
#[join = "RdCmdIn"]
pub struct RdCmdOut {
    pub addr: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<32>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "RdCmdOut"]
pub struct RdCmdIn {
    pub addr: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<32>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A DMA engine client's write: address-aligned beats of `len` bytes (at
/// least 1) for IOVA `addr`; `addr` and `len` are read with the first beat
/// of each write, `tlast` marks its last beat.
#[derive(LogicInterface, Default)]
#[join = "WrStreamIn"]
pub struct WrStreamOut {
    pub tdata: Signal<Out, Bits<512>>,
    pub tkeep: Signal<Out, Bits<64>>,
    pub tlast: Signal<Out, Bit>,
    pub addr: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<32>>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "WrStreamOut"]
pub struct WrStreamIn {
    pub tdata: Signal<In, Bits<512>>,
    pub tkeep: Signal<In, Bits<64>>,
    pub tlast: Signal<In, Bit>,
    pub addr: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<32>>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}
