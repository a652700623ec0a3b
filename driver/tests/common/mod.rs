//! What more than one test file needs: a counter window whose every slot
//! holds a value of its own, and the [`Counters`] such a window reads as,
//! spelled field by field from the contract's register names (not through
//! the driver's own table), so a field read from another register, or with
//! its halves swapped, shows; and [`Hooked`], the fake device with a test's
//! [`HwHooks`] in front of it.

use rnic_contract::regs::{self, COUNTER_WINDOW};
use rnic_driver::hw::fake::FakeHw;
use rnic_driver::hw::{DmaRegion, Hw, HwError, PciIds};
use rnic_driver::Counters;
use std::time::Duration;

/// Bytes of one beat of a counter dump: 8 counters (`ctx_engine`).
pub const DUMP_BEAT: usize = 64;

/// A value for the 64-bit slot of the counter window at `offset`: both
/// halves non-zero and unlike every other slot's halves; `epoch` makes a
/// later dump differ from an earlier one in every slot.
pub fn window_value(offset: u32, epoch: u32) -> u64 {
    let k = (offset - COUNTER_WINDOW.start) / 8;
    let hi = 0xC000 + 0x100 * epoch + k;
    let lo = 0x5A00_0000 + 0x1_0000 * epoch + 0x101 * (k + 1);
    u64::from(hi) << 32 | u64::from(lo)
}

/// The window's image in host memory as the device writes it: each slot's
/// value, low half first.
pub fn window_image(value: impl Fn(u32) -> u64) -> Vec<u8> {
    COUNTER_WINDOW.step_by(8).flat_map(|o| value(o).to_le_bytes()).collect()
}

/// The counters of a window whose register at `offset` holds `value(offset)`.
pub fn counters_of(value: impl Fn(u32) -> u64) -> Counters {
    use regs::*;
    Counters {
        rx_roce: value(cnt_roce::OFFSET),
        rx_raw: value(cnt_raw::OFFSET),
        rx_malformed: value(cnt_malformed::OFFSET),
        rx_icrc: value(cnt_icrc::OFFSET),
        rx_ip_csum: value(cnt_ip_csum::OFFSET),
        rx_mac_err: value(cnt_mac_err::OFFSET),
        rx_raw_drop: value(cnt_raw_drop::OFFSET),
        rx_fifo_drop: value(cnt_rx_fifo_drop::OFFSET),
        tx_frames: value(cnt_tx_frames::OFFSET),
        tx_bytes: value(cnt_tx_bytes::OFFSET),
        drop_ctx_fail: value(cnt_ctx_fail::OFFSET),
        drop_qp_not_ready: value(cnt_qp_not_ready::OFFSET),
        drop_qp_error: value(cnt_qp_error::OFFSET),
        drop_bad_qpn: value(cnt_bad_qpn::OFFSET),
        drop_wrong_qp_type: value(cnt_wrong_qp_type::OFFSET),
        drop_response_unexpected: value(cnt_response_unexpected::OFFSET),
        drop_bad_context: value(cnt_bad_context::OFFSET),
        dup_requests: value(cnt_dup_requests::OFFSET),
        silent_drops: value(cnt_silent_drops::OFFSET),
        rnr_naks: value(cnt_rnr_naks::OFFSET),
        naks: [
            value(cnt_nak_psn_seq::OFFSET),
            value(cnt_nak_invalid_request::OFFSET),
            value(cnt_nak_remote_access::OFFSET),
            value(cnt_nak_remote_op::OFFSET),
        ],
        ghost_responses: value(cnt_ghost_responses::OFFSET),
        comp_error_drops: value(cnt_comp_error_drops::OFFSET),
        rnr_naks_received: value(cnt_rnr_naks_received::OFFSET),
        nak_psn_seq_received: value(cnt_nak_psn_seq_received::OFFSET),
        naks_fatal_received: value(cnt_naks_fatal_received::OFFSET),
        go_back_n: value(cnt_go_back_n::OFFSET),
        push_refused: value(cnt_push_refused::OFFSET),
        retry_timeouts: value(cnt_retry_timeouts::OFFSET),
        drop_bad_pkey: value(cnt_bad_pkey::OFFSET),
        rx_pause: value(cnt_rx_pause::OFFSET),
        rx_not_mine: value(cnt_rx_not_mine::OFFSET),
    }
}

/// What a test backend changes of the fake: each method stands for the
/// [`Hw`] method of its name and by default forwards to the fake, so a test
/// overrides only the calls it changes. `read64` and `write64` default to
/// the [`Hw`] defaults', through this trait's own `read32` and `write32`.
// Not every test file that includes this module builds a hooked backend.
#[allow(dead_code)]
pub trait HwHooks {
    fn name(&self, inner: &FakeHw) -> String {
        inner.name()
    }
    fn read32(&mut self, inner: &mut FakeHw, offset: u32) -> Result<u32, HwError> {
        inner.read32(offset)
    }
    fn write32(&mut self, inner: &mut FakeHw, offset: u32, value: u32) -> Result<(), HwError> {
        inner.write32(offset, value)
    }
    fn read64(&mut self, inner: &mut FakeHw, offset: u32) -> Result<u64, HwError> {
        let lo = self.read32(inner, offset)?;
        let hi = self.read32(inner, offset + 4)?;
        Ok(u64::from(hi) << 32 | u64::from(lo))
    }
    fn write64(&mut self, inner: &mut FakeHw, offset: u32, value: u64) -> Result<(), HwError> {
        self.write32(inner, offset, value as u32)?;
        self.write32(inner, offset + 4, (value >> 32) as u32)
    }
    fn alloc_dma(&mut self, inner: &mut FakeHw, len: usize) -> Result<DmaRegion, HwError> {
        inner.alloc_dma(len)
    }
    fn free_dma(&mut self, inner: &mut FakeHw, region: &DmaRegion) -> Result<(), HwError> {
        inner.free_dma(region)
    }
    fn dma_write(&mut self, inner: &mut FakeHw, region: &DmaRegion, offset: usize, data: &[u8]) -> Result<(), HwError> {
        inner.dma_write(region, offset, data)
    }
    fn dma_read(
        &mut self,
        inner: &mut FakeHw,
        region: &DmaRegion,
        offset: usize,
        buf: &mut [u8],
    ) -> Result<(), HwError> {
        inner.dma_read(region, offset, buf)
    }
    fn wait_irq(&mut self, inner: &mut FakeHw, vector: u16, timeout: Duration) -> Result<bool, HwError> {
        inner.wait_irq(vector, timeout)
    }
    fn vectors(&self, inner: &FakeHw) -> u16 {
        inner.vectors()
    }
    fn relax(&mut self, inner: &mut FakeHw) {
        inner.relax()
    }
    fn now(&mut self, inner: &mut FakeHw) -> Duration {
        inner.now()
    }
    fn pci_ids(&self, inner: &FakeHw) -> Option<PciIds> {
        inner.pci_ids()
    }
}

/// The fake device behind a test's `hooks`: every [`Hw`] call goes to the
/// hook of its name, which is given the fake.
// Not every test file that includes this module builds a hooked backend.
#[allow(dead_code)]
pub struct Hooked<H: HwHooks> {
    pub inner: FakeHw,
    pub hooks: H,
}

impl<H: HwHooks> Hw for Hooked<H> {
    fn name(&self) -> String {
        self.hooks.name(&self.inner)
    }
    fn read32(&mut self, offset: u32) -> Result<u32, HwError> {
        self.hooks.read32(&mut self.inner, offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), HwError> {
        self.hooks.write32(&mut self.inner, offset, value)
    }
    fn read64(&mut self, offset: u32) -> Result<u64, HwError> {
        self.hooks.read64(&mut self.inner, offset)
    }
    fn write64(&mut self, offset: u32, value: u64) -> Result<(), HwError> {
        self.hooks.write64(&mut self.inner, offset, value)
    }
    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, HwError> {
        self.hooks.alloc_dma(&mut self.inner, len)
    }
    fn free_dma(&mut self, region: &DmaRegion) -> Result<(), HwError> {
        self.hooks.free_dma(&mut self.inner, region)
    }
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) -> Result<(), HwError> {
        self.hooks.dma_write(&mut self.inner, region, offset, data)
    }
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) -> Result<(), HwError> {
        self.hooks.dma_read(&mut self.inner, region, offset, buf)
    }
    fn wait_irq(&mut self, vector: u16, timeout: Duration) -> Result<bool, HwError> {
        self.hooks.wait_irq(&mut self.inner, vector, timeout)
    }
    fn vectors(&self) -> u16 {
        self.hooks.vectors(&self.inner)
    }
    fn relax(&mut self) {
        self.hooks.relax(&mut self.inner)
    }
    fn now(&mut self) -> Duration {
        self.hooks.now(&mut self.inner)
    }
    fn pci_ids(&self) -> Option<PciIds> {
        self.hooks.pci_ids(&self.inner)
    }
}
