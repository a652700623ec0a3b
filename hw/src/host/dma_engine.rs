//! `DmaEngine`: every DMA of the core goes through here. It is two engines
//! side by side, as verilog-pcie splits its DMA: the read engine
//! ([`DmaRd`], `dma_rd.rs`) and the write engine ([`DmaWr`], `dma_wr.rs`),
//! each documented in its file. They share nothing but the clock.
//!
//! **Reads**: four clients give commands `{addr, len}` of any length and
//! alignment; requests are cut at multiples of the maximum read request
//! size, issued round-robin per request, reordered in block RAM, and
//! delivered to each client on its own (a stalled client never blocks
//! another). **Writes**: four clients stream address-aligned data with
//! `{addr, len}` on the first beat; writes are cut at multiples of the
//! maximum payload size and shared round-robin per piece; a client gets a
//! `wr_done` pulse when its write is done.
//!
//! Every output is registered, and no input reaches an output through
//! logic: no path from one port's `tready` to another port's `tready` or
//! `tvalid`.
//!
//! Clients are one-hot in `wr_done`; index 0 is the first array element.

use super::dma_rd::DmaRd;
use super::dma_wr::DmaWr;
use super::{DmaRdDataIn, DmaRdReqOut, DmaWrCplIn, DmaWrOut, RdCmdIn, WrStreamIn};
use crate::axis::AxisOut;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

pub use super::dma_rd::{DMA_RD_SLOT_BYTES, DMA_RD_TAGS, DMA_RD_TAGS_PER_CLIENT};
pub use super::dma_wr::DMA_WR_TAGS;

/// Read clients.
pub const DMA_RD_CLIENTS: usize = 4;
/// Write clients.
pub const DMA_WR_CLIENTS: usize = 4;

#[derive(LogicBlock, Default)]
pub struct DmaEngine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Maximum read request size, PCIe encoding (0: 128 B .. 5: 4096 B);
    /// reads use at most 512 B ([`DMA_RD_SLOT_BYTES`]).
    pub cfg_max_read: Signal<In, Bits<3>>,
    /// Maximum payload size, PCIe encoding (0: 128 B .. 5: 4096 B).
    pub cfg_max_payload: Signal<In, Bits<3>>,
    // PCIe side
    pub m_dma_rd_req: DmaRdReqOut,
    pub s_dma_rd_data: DmaRdDataIn,
    pub m_dma_wr: DmaWrOut,
    pub s_dma_wr_cpl: DmaWrCplIn,
    // client side
    pub s_rd: [RdCmdIn; 4],
    pub m_rd: [AxisOut<512, 64, 1>; 4],
    pub s_wr: [WrStreamIn; 4],
    /// One-hot by write client: its write is done (pulse).
    pub wr_done: Signal<Out, Bits<4>>,
    /// With `wr_done`: the write, or a piece of it, failed.
    pub wr_done_err: Signal<Out, Bits<4>>,
    /// Read tags in use (0..=32).
    pub rd_tags_used: Signal<Out, Bits<6>>,
    /// Read requests that ended in error.
    pub cnt_rd_err: Signal<Out, Bits<32>>,
    /// Write pieces that ended in error.
    pub cnt_wr_err: Signal<Out, Bits<32>>,
    /// Write completions that came back out of issue order, or client
    /// writes whose `tlast` disagreed with their `len` (both mean a broken
    /// adapter or client; counted, never a hang).
    pub cnt_protocol_err: Signal<Out, Bits<32>>,
    rd: DmaRd,
    wr: DmaWr,
    kind: TypeTag<Self>,
}

impl Logic for DmaEngine {
    #[hdl_gen]
    fn update(&mut self) {
        self.rd.clock.next = self.clock.val();
        self.rd.reset.next = self.reset.val();
        self.wr.clock.next = self.clock.val();
        self.wr.reset.next = self.reset.val();
        self.rd.cfg_max_read.next = self.cfg_max_read.val();
        self.wr.cfg_max_payload.next = self.cfg_max_payload.val();
        DmaRdReqOut::link(&mut self.m_dma_rd_req, &mut self.rd.m_dma_rd_req);
        DmaRdDataIn::link(&mut self.s_dma_rd_data, &mut self.rd.s_dma_rd_data);
        DmaWrOut::link(&mut self.m_dma_wr, &mut self.wr.m_dma_wr);
        DmaWrCplIn::link(&mut self.s_dma_wr_cpl, &mut self.wr.s_dma_wr_cpl);
        RdCmdIn::link(&mut self.s_rd[0], &mut self.rd.s_rd[0]);
        RdCmdIn::link(&mut self.s_rd[1], &mut self.rd.s_rd[1]);
        RdCmdIn::link(&mut self.s_rd[2], &mut self.rd.s_rd[2]);
        RdCmdIn::link(&mut self.s_rd[3], &mut self.rd.s_rd[3]);
        AxisOut::<512, 64, 1>::link(&mut self.m_rd[0], &mut self.rd.m_rd[0]);
        AxisOut::<512, 64, 1>::link(&mut self.m_rd[1], &mut self.rd.m_rd[1]);
        AxisOut::<512, 64, 1>::link(&mut self.m_rd[2], &mut self.rd.m_rd[2]);
        AxisOut::<512, 64, 1>::link(&mut self.m_rd[3], &mut self.rd.m_rd[3]);
        WrStreamIn::link(&mut self.s_wr[0], &mut self.wr.s_wr[0]);
        WrStreamIn::link(&mut self.s_wr[1], &mut self.wr.s_wr[1]);
        WrStreamIn::link(&mut self.s_wr[2], &mut self.wr.s_wr[2]);
        WrStreamIn::link(&mut self.s_wr[3], &mut self.wr.s_wr[3]);
        self.wr_done.next = self.wr.wr_done.val();
        self.wr_done_err.next = self.wr.wr_done_err.val();
        self.rd_tags_used.next = self.rd.rd_tags_used.val();
        self.cnt_rd_err.next = self.rd.cnt_rd_err.val();
        self.cnt_wr_err.next = self.wr.cnt_wr_err.val();
        self.cnt_protocol_err.next = self.wr.cnt_protocol_err.val();
    }
}
