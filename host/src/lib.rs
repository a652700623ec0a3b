//! The host the simulator runs the rnic's RTL against.
//!
//! Everything is counted in core clock cycles (250 MHz, 4 ns) so runs are
//! deterministic and line up with the RTL's own clock:
//!
//! * [`memory::HostMemory`]: sparse, zero-filled host memory;
//! * [`iommu::Iommu`]: the IOVA ranges the driver mapped; a DMA outside them
//!   is a [`iommu::DmaFault`] that names the address (or a panic in strict
//!   mode, so a test fails loudly);
//! * [`pcie::PcieModel`]: DMA timing from the device's side: read round trip,
//!   posted write latency, bandwidth per direction, completion splitting and
//!   optional reordering across tags;
//! * [`msix::MsixTable`]: MSI-X vectors with masking and pending bits;
//! * [`mmio::MmioPort`]: BAR0 register reads and writes with their latency.
//!
//! ```
//! use rnic_host::{Completion, HostSpace, PcieConfig, PcieModel, Perms};
//!
//! // The driver maps a buffer; the device reads 64 bytes of it.
//! let mut host = HostSpace::new();
//! host.iommu.map(0x1_0000, 0x1000, 0x80_0000, Perms::R).unwrap();
//! host.memory.write(0x80_0000, b"RNIC");
//! let mut link = PcieModel::new(PcieConfig::gen3_x16()).unwrap();
//! link.submit_read(0, 0x1_0000, 64, 0).unwrap();
//! let mut done = Vec::new();
//! for cycle in 0..=225 {
//!     done.extend(link.tick(cycle, &mut host));
//! }
//! // 900 ns later, at 4 ns a cycle.
//! assert!(matches!(&done[..], [Completion::Read(c)] if c.cycle == 225 && c.data[..4] == *b"RNIC"));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod iommu;
pub mod memory;
pub mod mmio;
pub mod msix;
pub mod pcie;

pub use iommu::{DmaFault, FaultMode, FaultReason, Iommu, MapError, Perms};
pub use memory::HostMemory;
pub use mmio::{MmioAccess, MmioConfig, MmioError, MmioPort, ReadTicket, RegisterDevice};
pub use msix::{MsixDelivery, MsixError, MsixTable, RaiseOutcome};
pub use pcie::{Completion, PcieConfig, PcieCounters, PcieError, PcieModel, ReadChunk};

/// Nanoseconds per core clock cycle (250 MHz).
pub const CYCLE_NS: u64 = 4;
/// Bytes per data path beat (512 bits).
pub const BEAT_BYTES: usize = 64;

/// Converts a latency in nanoseconds to core cycles, rounding up so a
/// modelled latency is never shorter than the one asked for.
pub const fn ns_to_cycles(ns: u64) -> u64 {
    ns.div_ceil(CYCLE_NS)
}

/// What DMA goes through: host memory behind the IOMMU. Kept as one value so
/// the PCIe model can check and move bytes in a single call.
#[derive(Debug, Default)]
pub struct HostSpace {
    /// Host physical memory.
    pub memory: HostMemory,
    /// The translations the driver set up for the device.
    pub iommu: Iommu,
}

impl HostSpace {
    /// Empty memory behind an IOMMU in strict mode (faults panic).
    pub fn new() -> Self {
        Self::default()
    }

    /// A device read of `buf.len()` bytes at `iova`, checked by the IOMMU.
    pub fn dma_read(&mut self, iova: u64, buf: &mut [u8]) -> Result<(), DmaFault> {
        self.iommu.dma_read(&self.memory, iova, buf)
    }

    /// A device write of `data` at `iova`, checked by the IOMMU; nothing is
    /// written when any byte faults.
    pub fn dma_write(&mut self, iova: u64, data: &[u8]) -> Result<(), DmaFault> {
        self.iommu.dma_write(&mut self.memory, iova, data)
    }
}
