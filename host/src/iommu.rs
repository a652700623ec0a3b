//! The IOMMU between the device and host memory: the device may touch only
//! the IOVA ranges the driver mapped, with the permissions it gave, so a DMA
//! bug in the RTL shows up as a fault naming the address instead of silently
//! corrupting some other buffer.

use std::collections::BTreeMap;
use std::fmt;

use crate::memory::HostMemory;

/// What the device may do through a mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Perms {
    /// Device reads (DMA from host memory) allowed.
    pub read: bool,
    /// Device writes (DMA to host memory) allowed.
    pub write: bool,
}

impl Perms {
    /// Read-only: rings and buffers the device only fetches.
    pub const R: Perms = Perms { read: true, write: false };
    /// Write-only: e.g. completion rings the device never reads.
    pub const W: Perms = Perms { read: false, write: true };
    /// Read and write.
    pub const RW: Perms = Perms { read: true, write: true };
}

/// One mapped IOVA range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mapping {
    /// First IOVA of the range.
    pub iova: u64,
    /// Bytes in the range (non-zero).
    pub len: u64,
    /// Host physical address `iova` translates to.
    pub phys: u64,
    /// What the device may do.
    pub perms: Perms,
}

impl Mapping {
    fn end(&self) -> u64 {
        self.iova + self.len
    }
}

/// Why a DMA faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultReason {
    /// The byte at this IOVA is in no mapping.
    Unmapped {
        /// First unmapped byte of the access.
        at: u64,
    },
    /// The mapping holding this IOVA does not allow the access.
    NotPermitted {
        /// First byte of the access the mapping refuses.
        at: u64,
    },
    /// The access wraps past the top of the 64-bit IOVA space.
    Wraps,
    /// A zero-length access, which PCIe cannot express.
    Empty,
}

/// A DMA the IOMMU refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaFault {
    /// First IOVA of the access.
    pub iova: u64,
    /// Bytes accessed.
    pub len: u64,
    /// Whether the device was writing.
    pub write: bool,
    /// What was wrong.
    pub reason: FaultReason,
}

impl fmt::Display for DmaFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = if self.write { "write" } else { "read" };
        write!(f, "DMA fault: device {dir} of {} bytes at IOVA {:#x}: ", self.len, self.iova)?;
        match self.reason {
            FaultReason::Unmapped { at } => write!(f, "IOVA {at:#x} is not mapped"),
            FaultReason::NotPermitted { at } => write!(f, "mapping at IOVA {at:#x} does not permit {dir}s"),
            FaultReason::Wraps => write!(f, "range wraps the IOVA space"),
            FaultReason::Empty => write!(f, "zero-length access"),
        }
    }
}

impl std::error::Error for DmaFault {}

/// Why a map or unmap was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapError {
    /// The new range overlaps an existing mapping.
    Overlap {
        /// The range asked for.
        iova: u64,
        /// Its length.
        len: u64,
        /// The existing mapping it hits.
        existing: Mapping,
    },
    /// Zero-length mapping.
    Empty {
        /// The IOVA asked for.
        iova: u64,
    },
    /// The IOVA or physical range wraps past 2^64.
    Wraps {
        /// The IOVA asked for.
        iova: u64,
        /// Its length.
        len: u64,
    },
    /// Unmap of an IOVA that starts no mapping.
    NotMapped {
        /// The IOVA asked for.
        iova: u64,
    },
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MapError::Overlap { iova, len, existing } => {
                write!(f, "IOVA range {iova:#x}+{len:#x} overlaps the mapping {:#x}+{:#x}", existing.iova, existing.len)
            }
            MapError::Empty { iova } => write!(f, "zero-length mapping at IOVA {iova:#x}"),
            MapError::Wraps { iova, len } => write!(f, "mapping {iova:#x}+{len:#x} wraps the address space"),
            MapError::NotMapped { iova } => write!(f, "no mapping starts at IOVA {iova:#x}"),
        }
    }
}

impl std::error::Error for MapError {}

/// What the IOMMU does on a fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FaultMode {
    /// Panic with the fault's message: the test fails at the bad DMA.
    #[default]
    Strict,
    /// Record the fault and return it as an error: for tests that provoke
    /// faults on purpose and check the device reports them.
    Count,
}

/// IOVA → host physical translations with permissions.
#[derive(Debug, Default, Clone)]
pub struct Iommu {
    maps: BTreeMap<u64, Mapping>,
    mode: FaultMode,
    faults: Vec<DmaFault>,
}

impl Iommu {
    /// No mappings; faults panic.
    pub fn strict() -> Self {
        Self::default()
    }

    /// No mappings; faults are recorded and returned.
    pub fn counting() -> Self {
        Self { mode: FaultMode::Count, ..Self::default() }
    }

    /// The fault mode.
    pub fn mode(&self) -> FaultMode {
        self.mode
    }

    /// Changes the fault mode.
    pub fn set_mode(&mut self, mode: FaultMode) {
        self.mode = mode;
    }

    /// Faults recorded in counting mode, oldest first.
    pub fn faults(&self) -> &[DmaFault] {
        &self.faults
    }

    /// Number of faults recorded in counting mode.
    pub fn fault_count(&self) -> usize {
        self.faults.len()
    }

    /// The current mappings in IOVA order.
    pub fn mappings(&self) -> impl Iterator<Item = &Mapping> {
        self.maps.values()
    }

    /// Maps `[iova, iova + len)` to host physical `phys` with `perms`.
    pub fn map(&mut self, iova: u64, len: u64, phys: u64, perms: Perms) -> Result<(), MapError> {
        if len == 0 {
            return Err(MapError::Empty { iova });
        }
        let end = iova.checked_add(len).ok_or(MapError::Wraps { iova, len })?;
        phys.checked_add(len).ok_or(MapError::Wraps { iova, len })?;
        // The only candidates for overlap: the last mapping starting before
        // `end` (mappings never overlap each other, so it is the only one).
        if let Some((_, m)) = self.maps.range(..end).next_back() {
            if m.end() > iova {
                return Err(MapError::Overlap { iova, len, existing: *m });
            }
        }
        self.maps.insert(iova, Mapping { iova, len, phys, perms });
        Ok(())
    }

    /// Removes the mapping that starts at `iova` and returns it.
    pub fn unmap(&mut self, iova: u64) -> Result<Mapping, MapError> {
        self.maps.remove(&iova).ok_or(MapError::NotMapped { iova })
    }

    fn containing(&self, iova: u64) -> Option<&Mapping> {
        self.maps.range(..=iova).next_back().map(|(_, m)| m).filter(|m| m.end() > iova)
    }

    /// Translates an access into host physical (address, bytes) pieces,
    /// one per mapping it crosses, or the fault; faults are not recorded.
    pub fn translate(&self, iova: u64, len: u64, write: bool) -> Result<Vec<(u64, u64)>, DmaFault> {
        let fault = |reason| DmaFault { iova, len, write, reason };
        if len == 0 {
            return Err(fault(FaultReason::Empty));
        }
        let end = iova.checked_add(len).ok_or(fault(FaultReason::Wraps))?;
        let mut pieces = Vec::new();
        let mut cur = iova;
        while cur < end {
            let m = self.containing(cur).ok_or(fault(FaultReason::Unmapped { at: cur }))?;
            let allowed = if write { m.perms.write } else { m.perms.read };
            if !allowed {
                return Err(fault(FaultReason::NotPermitted { at: cur }));
            }
            let n = m.end().min(end) - cur;
            pieces.push((m.phys + (cur - m.iova), n));
            cur += n;
        }
        Ok(pieces)
    }

    /// Handles a fault as the mode says: panics in strict mode, records and
    /// hands it back in counting mode.
    pub fn report(&mut self, fault: DmaFault) -> DmaFault {
        match self.mode {
            FaultMode::Strict => panic!("{fault}"),
            FaultMode::Count => {
                self.faults.push(fault);
                fault
            }
        }
    }

    fn checked(&mut self, iova: u64, len: u64, write: bool) -> Result<Vec<(u64, u64)>, DmaFault> {
        self.translate(iova, len, write).map_err(|f| self.report(f))
    }

    /// A device read from `iova` into `buf` through the translations.
    pub fn dma_read(&mut self, memory: &HostMemory, iova: u64, buf: &mut [u8]) -> Result<(), DmaFault> {
        let mut done = 0;
        for (phys, n) in self.checked(iova, buf.len() as u64, false)? {
            let n = n as usize;
            memory.read(phys, &mut buf[done..done + n]);
            done += n;
        }
        Ok(())
    }

    /// A device write of `data` to `iova`; checked in full before any byte
    /// lands, so a faulting write changes nothing.
    pub fn dma_write(&mut self, memory: &mut HostMemory, iova: u64, data: &[u8]) -> Result<(), DmaFault> {
        let mut done = 0;
        for (phys, n) in self.checked(iova, data.len() as u64, true)? {
            let n = n as usize;
            memory.write(phys, &data[done..done + n]);
            done += n;
        }
        Ok(())
    }
}
