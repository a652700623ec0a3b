//! DMA buffers: memory the application fills and the device reads or
//! writes, the backing of memory regions.
//!
//! On a board the buffer is process memory mapped through the IOMMU; in
//! simulation it is the host model's memory. Either way the application
//! reaches it through copies ([`DmaBuffer::write`], [`DmaBuffer::read`]),
//! never through a Rust reference, since the device may change it at any
//! time.

use crate::device::{Context, Shared};
use crate::error::{Error, Result};
use crate::hw::DmaRegion;
use std::fmt;
use std::rc::Rc;

pub(crate) struct BufInner {
    pub ctx: Rc<Shared>,
    pub region: DmaRegion,
}

impl Drop for BufInner {
    fn drop(&mut self) {
        let r = self.ctx.hw().and_then(|mut hw| hw.free_dma(&self.region).map_err(Error::from));
        if let Err(e) = r {
            self.ctx.teardown_failed(e);
        }
    }
}

/// A block of DMA-able memory (page-aligned, zeroed when allocated), freed
/// when the last clone and every memory region on it are dropped.
///
/// ```
/// use rnic_driver::{hw::fake::{FakeConfig, FakeHw}, Device};
///
/// let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open()?;
/// let buf = ctx.alloc_buffer(100)?;
/// assert_eq!(buf.len(), 4096);
/// buf.write(10, b"hello")?;
/// let mut back = [0u8; 5];
/// buf.read(10, &mut back)?;
/// assert_eq!(&back, b"hello");
/// assert!(buf.write(4095, b"xy").is_err());
/// # Ok::<(), rnic_driver::Error>(())
/// ```
#[derive(Clone)]
pub struct DmaBuffer {
    pub(crate) inner: Rc<BufInner>,
}

impl fmt::Debug for DmaBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DmaBuffer").field("region", &self.inner.region).finish()
    }
}

impl Context {
    /// Allocates `len` bytes (rounded up to whole pages) of DMA memory.
    pub fn alloc_buffer(&self, len: usize) -> Result<DmaBuffer> {
        if len == 0 {
            return Err(Error::Zero { what: "buffer length" });
        }
        let region = self.shared.hw()?.alloc_dma(len)?;
        Ok(DmaBuffer { inner: Rc::new(BufInner { ctx: self.shared.clone(), region }) })
    }
}

impl DmaBuffer {
    /// Bytes.
    pub fn len(&self) -> usize {
        self.inner.region.len
    }

    /// Always false: buffers have at least a page.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The application's address of the first byte: the base of memory
    /// regions registered on it.
    pub fn va(&self) -> u64 {
        self.inner.region.va
    }

    /// The device's address of the first byte.
    pub fn iova(&self) -> u64 {
        self.inner.region.iova
    }

    fn check(&self, offset: usize, len: usize) -> Result<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len() => Ok(()),
            _ => Err(Error::OutOfRange {
                what: "buffer",
                offset: offset as u64,
                len: len as u64,
                size: self.len() as u64,
            }),
        }
    }

    /// Copies `data` into the buffer at `offset`.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        self.inner.ctx.hw()?.dma_write(&self.inner.region, offset, data)?;
        Ok(())
    }

    /// Copies bytes of the buffer from `offset` into `buf`.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(offset, buf.len())?;
        self.inner.ctx.hw()?.dma_read(&self.inner.region, offset, buf)?;
        Ok(())
    }

    /// Between two reads of a loop that polls the buffer for the device's
    /// write (perftest's write_lat polls its last byte): lets the device
    /// run on. A board's CPU only spins; the simulator's clock advances,
    /// which it does not on a read, so a loop of reads alone would wait
    /// forever there.
    pub fn relax(&self) -> Result<()> {
        self.inner.ctx.hw()?.relax();
        Ok(())
    }
}
