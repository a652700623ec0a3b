//! The few VFIO definitions the backend uses, from `linux/vfio.h`
//! (checked against rust-vmm's vfio-bindings 0.7.0 and vfio-ioctls 0.10.0),
//! and the argument structures encoded as bytes in native order, so the
//! system-call layer passes plain buffers and a mock can read them.

/// `VFIO_TYPE`: the ioctl type byte, `';'`.
const VFIO_TYPE: u64 = b';' as u64;
/// `VFIO_BASE`: first ioctl number.
const VFIO_BASE: u64 = 100;

/// `_IO(VFIO_TYPE, VFIO_BASE + n)`: no direction, no size.
const fn io(n: u64) -> u64 {
    VFIO_TYPE << 8 | (VFIO_BASE + n)
}

/// `VFIO_GET_API_VERSION`.
pub const GET_API_VERSION: u64 = io(0);
/// `VFIO_CHECK_EXTENSION`.
pub const CHECK_EXTENSION: u64 = io(1);
/// `VFIO_SET_IOMMU`.
pub const SET_IOMMU: u64 = io(2);
/// `VFIO_GROUP_GET_STATUS`.
pub const GROUP_GET_STATUS: u64 = io(3);
/// `VFIO_GROUP_SET_CONTAINER`.
pub const GROUP_SET_CONTAINER: u64 = io(4);
/// `VFIO_GROUP_UNSET_CONTAINER`.
pub const GROUP_UNSET_CONTAINER: u64 = io(5);
/// `VFIO_GROUP_GET_DEVICE_FD`.
pub const GROUP_GET_DEVICE_FD: u64 = io(6);
/// `VFIO_DEVICE_GET_INFO`.
pub const DEVICE_GET_INFO: u64 = io(7);
/// `VFIO_DEVICE_GET_REGION_INFO`.
pub const DEVICE_GET_REGION_INFO: u64 = io(8);
/// `VFIO_DEVICE_GET_IRQ_INFO`.
pub const DEVICE_GET_IRQ_INFO: u64 = io(9);
/// `VFIO_DEVICE_SET_IRQS`.
pub const DEVICE_SET_IRQS: u64 = io(10);
/// `VFIO_IOMMU_MAP_DMA`.
pub const IOMMU_MAP_DMA: u64 = io(13);
/// `VFIO_IOMMU_UNMAP_DMA`.
pub const IOMMU_UNMAP_DMA: u64 = io(14);

/// The name of an ioctl request, for errors and mock logs.
pub fn name(request: u64) -> &'static str {
    match request {
        GET_API_VERSION => "VFIO_GET_API_VERSION",
        CHECK_EXTENSION => "VFIO_CHECK_EXTENSION",
        SET_IOMMU => "VFIO_SET_IOMMU",
        GROUP_GET_STATUS => "VFIO_GROUP_GET_STATUS",
        GROUP_SET_CONTAINER => "VFIO_GROUP_SET_CONTAINER",
        GROUP_UNSET_CONTAINER => "VFIO_GROUP_UNSET_CONTAINER",
        GROUP_GET_DEVICE_FD => "VFIO_GROUP_GET_DEVICE_FD",
        DEVICE_GET_INFO => "VFIO_DEVICE_GET_INFO",
        DEVICE_GET_REGION_INFO => "VFIO_DEVICE_GET_REGION_INFO",
        DEVICE_GET_IRQ_INFO => "VFIO_DEVICE_GET_IRQ_INFO",
        DEVICE_SET_IRQS => "VFIO_DEVICE_SET_IRQS",
        IOMMU_MAP_DMA => "VFIO_IOMMU_MAP_DMA",
        IOMMU_UNMAP_DMA => "VFIO_IOMMU_UNMAP_DMA",
        _ => "unknown VFIO ioctl",
    }
}

/// `VFIO_API_VERSION`.
pub const API_VERSION: i32 = 0;
/// `VFIO_TYPE1v2_IOMMU`.
pub const TYPE1V2_IOMMU: u64 = 3;
/// `VFIO_GROUP_FLAGS_VIABLE`.
pub const GROUP_FLAGS_VIABLE: u32 = 1;
/// `VFIO_DEVICE_FLAGS_PCI`.
pub const DEVICE_FLAGS_PCI: u32 = 2;
/// `VFIO_REGION_INFO_FLAG_MMAP`.
pub const REGION_INFO_FLAG_MMAP: u32 = 4;
/// `VFIO_PCI_BAR0_REGION_INDEX`.
pub const PCI_BAR0_REGION_INDEX: u32 = 0;
/// `VFIO_PCI_CONFIG_REGION_INDEX`.
pub const PCI_CONFIG_REGION_INDEX: u32 = 7;
/// `VFIO_PCI_MSIX_IRQ_INDEX`.
pub const PCI_MSIX_IRQ_INDEX: u32 = 2;
/// `VFIO_IRQ_SET_DATA_NONE`.
pub const IRQ_SET_DATA_NONE: u32 = 1;
/// `VFIO_IRQ_SET_DATA_EVENTFD`.
pub const IRQ_SET_DATA_EVENTFD: u32 = 4;
/// `VFIO_IRQ_SET_ACTION_TRIGGER`.
pub const IRQ_SET_ACTION_TRIGGER: u32 = 32;
/// `VFIO_DMA_MAP_FLAG_READ`.
pub const DMA_MAP_FLAG_READ: u32 = 1;
/// `VFIO_DMA_MAP_FLAG_WRITE`.
pub const DMA_MAP_FLAG_WRITE: u32 = 2;
/// PCI config space: the Vendor ID (16 bits), then the Device ID.
pub const PCI_VENDOR_ID: u64 = 0;
/// PCI config space: the Device ID.
pub const PCI_DEVICE_ID: u64 = 2;
/// PCI config space: the Command register and its Memory Space and Bus
/// Master bits.
pub const PCI_COMMAND: u64 = 4;
/// Memory Space Enable.
pub const PCI_COMMAND_MEMORY: u16 = 2;
/// Bus Master Enable.
pub const PCI_COMMAND_MASTER: u16 = 4;

/// A structure being built as bytes: `u32`s and `u64`s in native order at
/// their C offsets (every structure here is naturally aligned, no padding).
#[derive(Debug, Default)]
pub struct Args(pub Vec<u8>);

impl Args {
    /// Appends a `u32`.
    pub fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_ne_bytes());
        self
    }

    /// Appends a `u64`.
    pub fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_ne_bytes());
        self
    }

    /// Appends an `i32`.
    pub fn i32(mut self, v: i32) -> Self {
        self.0.extend_from_slice(&v.to_ne_bytes());
        self
    }

    /// The `u32` at byte `at`.
    pub fn get_u32(buf: &[u8], at: usize) -> u32 {
        let mut b = [0u8; 4];
        b.copy_from_slice(&buf[at..at + 4]);
        u32::from_ne_bytes(b)
    }

    /// The `u64` at byte `at`.
    pub fn get_u64(buf: &[u8], at: usize) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&buf[at..at + 8]);
        u64::from_ne_bytes(b)
    }
}

/// `struct vfio_group_status { argsz, flags }`.
pub fn group_status() -> Args {
    Args::default().u32(8).u32(0)
}

/// `struct vfio_device_info { argsz, flags, num_regions, num_irqs, cap_offset, pad }`.
pub fn device_info() -> Args {
    Args::default().u32(24).u32(0).u32(0).u32(0).u32(0).u32(0)
}

/// `struct vfio_region_info { argsz, flags, index, cap_offset, size, offset }`:
/// size at byte 16, offset at 24.
pub fn region_info(index: u32) -> Args {
    Args::default().u32(32).u32(0).u32(index).u32(0).u64(0).u64(0)
}

/// `struct vfio_irq_info { argsz, flags, index, count }`: count at byte 12.
pub fn irq_info(index: u32) -> Args {
    Args::default().u32(16).u32(0).u32(index).u32(0)
}

/// `struct vfio_irq_set` with `fds.len()` eventfds from vector `start`
/// (no fds and DATA_NONE: disable).
pub fn irq_set(index: u32, start: u32, fds: &[i32]) -> Args {
    let flags = if fds.is_empty() { IRQ_SET_DATA_NONE } else { IRQ_SET_DATA_EVENTFD } | IRQ_SET_ACTION_TRIGGER;
    let mut a = Args::default().u32(20 + 4 * fds.len() as u32).u32(flags).u32(index).u32(start).u32(fds.len() as u32);
    for fd in fds {
        a = a.i32(*fd);
    }
    a
}

/// `struct vfio_iommu_type1_dma_map { argsz, flags, vaddr, iova, size }`.
pub fn dma_map(vaddr: u64, iova: u64, size: u64) -> Args {
    Args::default().u32(32).u32(DMA_MAP_FLAG_READ | DMA_MAP_FLAG_WRITE).u64(vaddr).u64(iova).u64(size)
}

/// `struct vfio_iommu_type1_dma_unmap { argsz, flags, iova, size }`.
pub fn dma_unmap(iova: u64, size: u64) -> Args {
    Args::default().u32(24).u32(0).u64(iova).u64(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_numbers_are_the_kernels() {
        // _IO(';', 100) and friends, as linux/vfio.h defines them.
        assert_eq!(GET_API_VERSION, 0x3B64);
        assert_eq!(GROUP_GET_DEVICE_FD, 0x3B6A);
        assert_eq!(DEVICE_SET_IRQS, 0x3B6E);
        assert_eq!(IOMMU_MAP_DMA, 0x3B71);
        assert_eq!(IOMMU_UNMAP_DMA, 0x3B72);
        assert_eq!(irq_set(2, 0, &[5, 6]).0.len(), 28);
        assert_eq!(dma_map(1, 2, 3).0.len(), 32);
    }
}
