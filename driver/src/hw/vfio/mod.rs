//! The VFIO backend: a board bound to `vfio-pci`.
//!
//! A thin layer in the rust-vmm style over the kernel's VFIO interface
//! (type 1 v2 IOMMU): open the container and the device's IOMMU group,
//! attach them, take the device descriptor, enable memory decoding and bus
//! mastering, map BAR0, route every MSI-X vector to an eventfd, and map DMA
//! buffers (anonymous memory) at IOVAs the backend hands out. All system
//! calls go through [`Sys`], so the whole sequence is tested against a mock
//! (`driver/tests/vfio_mock.rs`) on machines without a VFIO device.
//!
//! Why not the vfio-ioctls and pci-driver crates: vfio-ioctls 0.10 pulls
//! kvm-ioctls, kvm-bindings, vm-memory and thiserror (with syn) by default
//! and is shaped for handing devices to a guest; pci-driver's device trait
//! is sealed. Neither puts its system calls behind a trait, so neither could
//! be tested here without a device. The few definitions used are in
//! [`bindings`], checked against rust-vmm's vfio-bindings.

pub mod bindings;
mod sys;

pub use sys::{Fd, IoctlArg, LibcSys, Sys};

use super::{check_range, page_round, DmaRegion, Hw, HwError, PciIds};
use rnic_contract::regs;
use std::collections::BTreeMap;
use std::sync::atomic::{fence, Ordering};
use std::time::{Duration, Instant};

/// First IOVA the backend hands out (above the low 4 GiB, so 32-bit
/// truncation bugs fault).
pub const IOVA_BASE: u64 = 0x1_0000_0000;
/// Most MSI-X vectors routed to eventfds.
pub const MAX_VECTORS: u16 = 256;

fn os(op: impl Into<String>) -> impl FnOnce(i32) -> HwError {
    let op = op.into();
    move |errno| HwError::Os { op, errno }
}

/// The PCI addresses of the devices bound to `vfio-pci`.
pub fn list_vfio_devices(sys: &mut impl Sys) -> Result<Vec<String>, HwError> {
    match sys.list_dir("/sys/bus/pci/drivers/vfio-pci") {
        Ok(names) => Ok(names.into_iter().filter(|n| n.len() == 12 && n.as_bytes()[4] == b':').collect()),
        // no vfio-pci driver loaded: no device
        Err(libc::ENOENT) => Ok(Vec::new()),
        Err(e) => Err(HwError::Os { op: "list /sys/bus/pci/drivers/vfio-pci".into(), errno: e }),
    }
}

/// A device opened through VFIO.
#[derive(Debug)]
pub struct VfioHw<S: Sys> {
    sys: S,
    bdf: String,
    container: Fd,
    group: Fd,
    device: Fd,
    bar: *mut u8,
    bar_len: usize,
    regions: BTreeMap<u64, (DmaRegion, *mut u8)>,
    next_iova: u64,
    irqs: Vec<Fd>,
    start: Instant,
    pci_ids: Option<PciIds>,
}

impl<S: Sys> VfioHw<S> {
    /// Opens the device at PCI address `bdf` (`0000:01:00.0`).
    pub fn open(sys: S, bdf: &str) -> Result<Self, HwError> {
        let mut hw = VfioHw {
            sys,
            bdf: bdf.to_string(),
            container: -1,
            group: -1,
            device: -1,
            bar: std::ptr::null_mut(),
            bar_len: 0,
            regions: BTreeMap::new(),
            next_iova: IOVA_BASE,
            irqs: Vec::new(),
            start: Instant::now(),
            pci_ids: None,
        };
        // On an error `hw` is dropped, which closes what was opened.
        hw.setup()?;
        Ok(hw)
    }

    fn ioctl(&mut self, fd: Fd, request: u64, arg: IoctlArg<'_>) -> Result<i32, HwError> {
        self.sys.ioctl(fd, request, arg).map_err(os(bindings::name(request)))
    }

    fn setup(&mut self) -> Result<(), HwError> {
        let link_path = format!("/sys/bus/pci/devices/{}/iommu_group", self.bdf);
        let link = self.sys.read_link(&link_path).map_err(os(format!("readlink {link_path}")))?;
        let group = link.rsplit('/').next().unwrap_or_default().to_string();
        if group.is_empty() || !group.bytes().all(|b| b.is_ascii_digit()) {
            return Err(HwError::Unusable { reason: format!("{link_path} points at {link:?}, not an IOMMU group") });
        }

        self.container = self.sys.open("/dev/vfio/vfio").map_err(os("open /dev/vfio/vfio"))?;
        let c = self.container;
        let version = self.ioctl(c, bindings::GET_API_VERSION, IoctlArg::None)?;
        if version != bindings::API_VERSION {
            return Err(HwError::Unusable { reason: format!("VFIO API version {version}, expected 0") });
        }
        if self.ioctl(c, bindings::CHECK_EXTENSION, IoctlArg::Value(bindings::TYPE1V2_IOMMU))? != 1 {
            return Err(HwError::Unusable { reason: "the kernel lacks the type 1 v2 IOMMU".into() });
        }

        let group_path = format!("/dev/vfio/{group}");
        self.group = self.sys.open(&group_path).map_err(os(format!("open {group_path}")))?;
        let g = self.group;
        let mut status = bindings::group_status();
        self.ioctl(g, bindings::GROUP_GET_STATUS, IoctlArg::Buf(&mut status.0))?;
        if bindings::Args::get_u32(&status.0, 4) & bindings::GROUP_FLAGS_VIABLE == 0 {
            return Err(HwError::Unusable {
                reason: format!("IOMMU group {group} is not viable: bind every device in it to vfio-pci"),
            });
        }
        let mut cfd = c.to_ne_bytes();
        self.ioctl(g, bindings::GROUP_SET_CONTAINER, IoctlArg::Buf(&mut cfd))?;
        self.ioctl(c, bindings::SET_IOMMU, IoctlArg::Value(bindings::TYPE1V2_IOMMU))?;
        let mut name = self.bdf.clone().into_bytes();
        name.push(0);
        self.device = self.ioctl(g, bindings::GROUP_GET_DEVICE_FD, IoctlArg::Buf(&mut name))?;
        let d = self.device;

        let mut info = bindings::device_info();
        self.ioctl(d, bindings::DEVICE_GET_INFO, IoctlArg::Buf(&mut info.0))?;
        if bindings::Args::get_u32(&info.0, 4) & bindings::DEVICE_FLAGS_PCI == 0 {
            return Err(HwError::Unusable { reason: "not a PCI device".into() });
        }

        // Memory decoding and bus mastering, through the config region.
        let mut cfg = bindings::region_info(bindings::PCI_CONFIG_REGION_INDEX);
        self.ioctl(d, bindings::DEVICE_GET_REGION_INFO, IoctlArg::Buf(&mut cfg.0))?;
        let cfg_offset = bindings::Args::get_u64(&cfg.0, 24);
        // One read from the Vendor ID up to the Command register.
        let mut head = [0u8; bindings::PCI_COMMAND as usize + 2];
        self.sys.pread(d, &mut head, cfg_offset + bindings::PCI_VENDOR_ID).map_err(os("read PCI IDs and command"))?;
        let half = |at: u64| u16::from_le_bytes([head[at as usize], head[at as usize + 1]]);
        self.pci_ids = Some(PciIds { vendor: half(bindings::PCI_VENDOR_ID), device: half(bindings::PCI_DEVICE_ID) });
        let cmd = half(bindings::PCI_COMMAND) | bindings::PCI_COMMAND_MEMORY | bindings::PCI_COMMAND_MASTER;
        self.sys.pwrite(d, &cmd.to_le_bytes(), cfg_offset + bindings::PCI_COMMAND).map_err(os("write PCI command"))?;

        let mut bar = bindings::region_info(bindings::PCI_BAR0_REGION_INDEX);
        self.ioctl(d, bindings::DEVICE_GET_REGION_INFO, IoctlArg::Buf(&mut bar.0))?;
        let (flags, size, offset) = (
            bindings::Args::get_u32(&bar.0, 4),
            bindings::Args::get_u64(&bar.0, 16),
            bindings::Args::get_u64(&bar.0, 24),
        );
        if flags & bindings::REGION_INFO_FLAG_MMAP == 0 || size < u64::from(regs::BAR0_BYTES) {
            return Err(HwError::Unusable {
                reason: format!(
                    "BAR0 of {size:#x} bytes (flags {flags:#x}): not mappable or smaller than the register map"
                ),
            });
        }
        self.bar_len = size as usize;
        self.bar = self.sys.mmap(Some(d), offset, self.bar_len).map_err(os("mmap BAR0"))?;

        let mut irq = bindings::irq_info(bindings::PCI_MSIX_IRQ_INDEX);
        self.ioctl(d, bindings::DEVICE_GET_IRQ_INFO, IoctlArg::Buf(&mut irq.0))?;
        let count = bindings::Args::get_u32(&irq.0, 12).min(MAX_VECTORS.into());
        if count == 0 {
            return Err(HwError::Unusable { reason: "no MSI-X vectors".into() });
        }
        for _ in 0..count {
            let fd = self.sys.eventfd().map_err(os("eventfd"))?;
            self.irqs.push(fd);
        }
        let mut set = bindings::irq_set(bindings::PCI_MSIX_IRQ_INDEX, 0, &self.irqs);
        self.ioctl(d, bindings::DEVICE_SET_IRQS, IoctlArg::Buf(&mut set.0))?;
        Ok(())
    }

    fn reg_ptr(&self, offset: u32) -> Result<*mut u32, HwError> {
        let o = offset as usize;
        if !o.is_multiple_of(4) || o + 4 > self.bar_len || self.bar.is_null() {
            return Err(HwError::BadRegister { offset, bar_len: self.bar_len as u64 });
        }
        Ok(self.bar.wrapping_add(o).cast())
    }

    fn region_ptr(&self, region: &DmaRegion, offset: usize, len: usize) -> Result<*mut u8, HwError> {
        check_range(region, offset, len)?;
        match self.regions.get(&region.id) {
            Some((r, p)) if r == region => Ok(p.wrapping_add(offset)),
            _ => Err(HwError::OutOfRange { region: region.id, offset, len }),
        }
    }
}

impl<S: Sys> Hw for VfioHw<S> {
    fn name(&self) -> String {
        format!("vfio {}", self.bdf)
    }

    fn pci_ids(&self) -> Option<PciIds> {
        self.pci_ids
    }

    fn read32(&mut self, offset: u32) -> Result<u32, HwError> {
        let p = self.reg_ptr(offset)?;
        // SAFETY: `p` is 4-byte aligned and inside the BAR0 mapping, which
        // lives until drop; device memory is only ever accessed volatile.
        Ok(unsafe { p.read_volatile() })
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), HwError> {
        let p = self.reg_ptr(offset)?;
        // DMA memory written before is visible to the device before the
        // register write (a doorbell) that announces it.
        fence(Ordering::SeqCst);
        // SAFETY: as in read32.
        unsafe { p.write_volatile(value) };
        Ok(())
    }

    /// One 64-bit store, as the contract asks of the doorbell (the PCIe
    /// bridge delivers the low half, then the high half).
    fn write64(&mut self, offset: u32, value: u64) -> Result<(), HwError> {
        let p = self.reg_ptr(offset)?;
        if !offset.is_multiple_of(8) {
            return Err(HwError::BadRegister { offset, bar_len: self.bar_len as u64 });
        }
        // The high half must be inside BAR0 too.
        self.reg_ptr(offset + 4)?;
        fence(Ordering::SeqCst);
        // SAFETY: `p` is 8-byte aligned (offset and the page-aligned mapping)
        // and both halves are inside the BAR0 mapping; volatile, as in read32.
        unsafe { p.cast::<u64>().write_volatile(value) };
        Ok(())
    }

    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, HwError> {
        let len = page_round(len).ok_or(HwError::NoMemory { len })?;
        let ptr = self.sys.mmap(None, 0, len).map_err(os("mmap DMA buffer"))?;
        let iova = self.next_iova;
        let mut map = bindings::dma_map(ptr as u64, iova, len as u64);
        if let Err(e) = self.ioctl(self.container, bindings::IOMMU_MAP_DMA, IoctlArg::Buf(&mut map.0)) {
            self.sys.munmap(ptr, len);
            return Err(e);
        }
        // a guard page between regions
        self.next_iova += (len + super::PAGE_SIZE) as u64;
        let region = DmaRegion { id: iova, iova, va: ptr as u64, len };
        self.regions.insert(region.id, (region, ptr));
        Ok(region)
    }

    fn free_dma(&mut self, region: &DmaRegion) -> Result<(), HwError> {
        match self.regions.get(&region.id) {
            Some((r, _)) if r == region => {}
            _ => return Err(HwError::OutOfRange { region: region.id, offset: 0, len: region.len }),
        }
        let mut unmap = bindings::dma_unmap(region.iova, region.len as u64);
        self.ioctl(self.container, bindings::IOMMU_UNMAP_DMA, IoctlArg::Buf(&mut unmap.0))?;
        if let Some((r, p)) = self.regions.remove(&region.id) {
            self.sys.munmap(p, r.len);
        }
        Ok(())
    }

    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) -> Result<(), HwError> {
        let p = self.region_ptr(region, offset, data.len())?;
        for (i, b) in data.iter().enumerate() {
            // SAFETY: `p + i` is inside a live mapping of this backend
            // (checked by region_ptr); the device may access it too, so no
            // Rust reference is made, only volatile stores.
            unsafe { p.add(i).write_volatile(*b) };
        }
        fence(Ordering::Release);
        Ok(())
    }

    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) -> Result<(), HwError> {
        let p = self.region_ptr(region, offset, buf.len())?;
        fence(Ordering::Acquire);
        for (i, b) in buf.iter_mut().enumerate() {
            // SAFETY: as in dma_write, volatile loads.
            *b = unsafe { p.add(i).read_volatile() };
        }
        Ok(())
    }

    fn wait_irq(&mut self, vector: u16, timeout: Duration) -> Result<bool, HwError> {
        let fd =
            *self.irqs.get(usize::from(vector)).ok_or(HwError::BadVector { vector, count: self.irqs.len() as u16 })?;
        if !self.sys.wait_readable(fd, timeout).map_err(os("poll eventfd"))? {
            return Ok(false);
        }
        self.sys.read_u64(fd).map_err(os("read eventfd"))?;
        Ok(true)
    }

    fn vectors(&self) -> u16 {
        self.irqs.len() as u16
    }

    fn relax(&mut self) {
        std::hint::spin_loop();
    }

    fn now(&mut self) -> Duration {
        self.start.elapsed()
    }
}

impl<S: Sys> Drop for VfioHw<S> {
    fn drop(&mut self) {
        if self.device >= 0 && !self.irqs.is_empty() {
            let mut off = bindings::irq_set(bindings::PCI_MSIX_IRQ_INDEX, 0, &[]);
            let _ = self.sys.ioctl(self.device, bindings::DEVICE_SET_IRQS, IoctlArg::Buf(&mut off.0));
        }
        let regions: Vec<DmaRegion> = self.regions.values().map(|(r, _)| *r).collect();
        for r in regions {
            let _ = self.free_dma(&r);
        }
        if !self.bar.is_null() {
            self.sys.munmap(self.bar, self.bar_len);
        }
        for fd in std::mem::take(&mut self.irqs) {
            self.sys.close(fd);
        }
        for fd in [self.device, self.group, self.container] {
            if fd >= 0 {
                self.sys.close(fd);
            }
        }
    }
}
