//! The hardware layer: what the verbs need from a device, as one trait.
//!
//! [`Hw`] is register access to BAR0, DMA-able memory (allocated, mapped for
//! the device, with its IOVA and a CPU view through copies), interrupt waits
//! on an MSI-X vector, and the time and poll hooks a simulator needs to
//! advance its clock while the driver waits. Every `unsafe` block of the
//! driver lives under this module (the VFIO backend's system calls and its
//! mapped BAR and buffers); the verbs above it are safe code.
//!
//! Backends:
//!
//! * [`vfio::VfioHw`]: a board bound to `vfio-pci` (container, group and
//!   device, BAR0 mmap, IOMMU mappings, MSI-X through eventfds), over a
//!   system-call layer ([`vfio::Sys`]) that tests replace with a mock;
//! * [`fake::FakeHw`]: a small software model of the register file and the
//!   CQ engine, for doctests and the driver's own tests;
//! * the simulator backend lives in `rnic-tb` (`rnic_tb::driver_hw::SimHw`):
//!   the Verilated host side behind the host model. The driver never
//!   depends on the simulator.

pub mod fake;
pub mod os_random;
pub mod vfio;

use std::fmt;
use std::time::Duration;

/// Bytes of a page: DMA allocations are page-aligned and a whole number of
/// pages, and memory regions are mapped through the MTT in pages of this size.
pub const PAGE_SIZE: usize = 4096;
/// log2 of [`PAGE_SIZE`].
pub const LOG_PAGE_SIZE: u32 = 12;

/// A block of DMA-able memory: zeroed when allocated, contiguous for the
/// device at `iova`, readable and writable by it until freed.
///
/// The handle is plain data; the backend that allocated it owns the memory
/// and checks every access against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DmaRegion {
    /// The backend's name for the allocation.
    pub id: u64,
    /// The address the device uses (what the IOMMU maps).
    pub iova: u64,
    /// The address the application uses for it: the process's virtual
    /// address on a board, a synthetic one in simulation. Memory regions use
    /// it as their virtual address base, as `ibv_reg_mr` does.
    pub va: u64,
    /// Length in bytes, a multiple of [`PAGE_SIZE`].
    pub len: usize,
}

/// Why the hardware layer failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HwError {
    /// A system call failed.
    Os {
        /// What was being done (`"open /dev/vfio/vfio"`, `"VFIO_IOMMU_MAP_DMA"`).
        op: String,
        /// The OS error number.
        errno: i32,
    },
    /// A register access outside BAR0, or not 4-byte aligned.
    BadRegister {
        /// The offset asked for.
        offset: u32,
        /// Bytes of BAR0.
        bar_len: u64,
    },
    /// A DMA access outside its region, or to a region that is not allocated.
    OutOfRange {
        /// The region's id.
        region: u64,
        /// Offset asked for.
        offset: usize,
        /// Bytes asked for.
        len: usize,
    },
    /// The backend has no memory or address space left for an allocation.
    NoMemory {
        /// Bytes asked for.
        len: usize,
    },
    /// An interrupt vector the device or backend does not have.
    BadVector {
        /// The vector asked for.
        vector: u16,
        /// Vectors available.
        count: u16,
    },
    /// The device is not usable through this backend (not bound to vfio-pci,
    /// its group not viable, no mappable BAR0, no MSI-X).
    Unusable {
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for HwError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HwError::Os { op, errno } => {
                write!(f, "{op}: OS error {errno} ({})", std::io::Error::from_raw_os_error(*errno))
            }
            HwError::BadRegister { offset, bar_len } => {
                write!(f, "register offset {offset:#x} outside a {bar_len:#x}-byte BAR0 or misaligned")
            }
            HwError::OutOfRange { region, offset, len } => {
                write!(f, "DMA region {region}: {len} bytes at offset {offset} are outside it")
            }
            HwError::NoMemory { len } => write!(f, "no DMA memory left for {len} bytes"),
            HwError::BadVector { vector, count } => write!(f, "interrupt vector {vector}: the device has {count}"),
            HwError::Unusable { reason } => write!(f, "device unusable: {reason}"),
        }
    }
}

impl std::error::Error for HwError {}

/// What the driver needs from a device. Implemented by the VFIO backend, the
/// simulator backend (in `rnic-tb`) and the in-crate fake.
///
/// Register offsets are BAR0 offsets from `rnic_contract::regs`. Time only
/// moves forward; a simulator advances its clock in [`Hw::relax`],
/// [`Hw::wait_irq`] and register reads, a board's clock runs by itself.
pub trait Hw {
    /// A short name for messages (`"vfio 0000:01:00.0"`, `"sim"`).
    fn name(&self) -> String;

    /// Reads the 32-bit register at `offset`.
    fn read32(&mut self, offset: u32) -> Result<u32, HwError>;

    /// Writes the 32-bit register at `offset` (a posted write: it may reach
    /// the device later, but after every earlier access).
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), HwError>;

    /// Reads a 64-bit register: the low half, then the high half (the
    /// contract latches the high half of counters on the low read).
    fn read64(&mut self, offset: u32) -> Result<u64, HwError> {
        let lo = self.read32(offset)?;
        let hi = self.read32(offset + 4)?;
        Ok(u64::from(hi) << 32 | u64::from(lo))
    }

    /// Writes a 64-bit register as the contract's doorbell expects: low half,
    /// then high half, back to back. The driver holds its context's lock
    /// around it, so two 64-bit writes never interleave.
    fn write64(&mut self, offset: u32, value: u64) -> Result<(), HwError> {
        self.write32(offset, value as u32)?;
        self.write32(offset + 4, (value >> 32) as u32)
    }

    /// Allocates `len` bytes (rounded up to whole pages) of zeroed memory the
    /// device may read and write, mapped at an IOVA.
    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, HwError>;

    /// Unmaps and frees a region. The device must no longer use it.
    fn free_dma(&mut self, region: &DmaRegion) -> Result<(), HwError>;

    /// CPU view: copies `data` into the region at `offset`, in address order,
    /// and makes it visible to the device before any later register write.
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) -> Result<(), HwError>;

    /// CPU view: copies `buf.len()` bytes of the region from `offset`, as the
    /// device last wrote them.
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) -> Result<(), HwError>;

    /// Waits until MSI-X `vector` has fired since the last wait on it, at
    /// most `timeout`. `Ok(true)` when it fired (and consumes it), `Ok(false)`
    /// on timeout.
    fn wait_irq(&mut self, vector: u16, timeout: Duration) -> Result<bool, HwError>;

    /// MSI-X vectors this backend can wait on (the driver uses the smaller
    /// of this and the device's `irq_vectors`).
    fn vectors(&self) -> u16;

    /// Called by the driver once per empty turn of a polling loop (an empty
    /// CQ, a busy context command). A board backend hints the CPU; a
    /// simulator advances its clock a little.
    fn relax(&mut self);

    /// Time since the backend started, on the device's clock for a simulator.
    fn now(&mut self) -> Duration;

    /// The device's PCI identity (config space Vendor and Device ID) when
    /// the backend has one: VFIO reads it at open; the simulator and the
    /// fake have none (the contract declares no PCI identity).
    fn pci_ids(&self) -> Option<PciIds> {
        None
    }
}

/// A PCI function's identity, from its config space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PciIds {
    /// Vendor ID (offset 0).
    pub vendor: u16,
    /// Device ID (offset 2).
    pub device: u16,
}

impl<H: Hw + ?Sized> Hw for Box<H> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn read32(&mut self, offset: u32) -> Result<u32, HwError> {
        (**self).read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), HwError> {
        (**self).write32(offset, value)
    }
    fn read64(&mut self, offset: u32) -> Result<u64, HwError> {
        (**self).read64(offset)
    }
    fn write64(&mut self, offset: u32, value: u64) -> Result<(), HwError> {
        (**self).write64(offset, value)
    }
    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, HwError> {
        (**self).alloc_dma(len)
    }
    fn free_dma(&mut self, region: &DmaRegion) -> Result<(), HwError> {
        (**self).free_dma(region)
    }
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) -> Result<(), HwError> {
        (**self).dma_write(region, offset, data)
    }
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) -> Result<(), HwError> {
        (**self).dma_read(region, offset, buf)
    }
    fn wait_irq(&mut self, vector: u16, timeout: Duration) -> Result<bool, HwError> {
        (**self).wait_irq(vector, timeout)
    }
    fn vectors(&self) -> u16 {
        (**self).vectors()
    }
    fn relax(&mut self) {
        (**self).relax()
    }
    fn now(&mut self) -> Duration {
        (**self).now()
    }
    fn pci_ids(&self) -> Option<PciIds> {
        (**self).pci_ids()
    }
}

/// Bytes rounded up to whole pages; `None` if that overflows.
pub fn page_round(len: usize) -> Option<usize> {
    len.max(1).checked_next_multiple_of(PAGE_SIZE)
}

/// Checks that `[offset, offset + len)` lies inside `region`.
pub fn check_range(region: &DmaRegion, offset: usize, len: usize) -> Result<(), HwError> {
    match offset.checked_add(len) {
        Some(end) if end <= region.len => Ok(()),
        _ => Err(HwError::OutOfRange { region: region.id, offset, len }),
    }
}
