//! The VFIO backend against a mock of its system-call layer: the open
//! sequence as the kernel expects it, every failing step mapped to a typed
//! error with everything opened closed again, BAR0 access, DMA map and
//! unmap, MSI-X through eventfds, teardown, and the whole driver brought up
//! over it.

use rnic_contract::codes::{ContextOp, ContextTable};
use rnic_contract::regs;
use rnic_driver::device::CTX_POLLS;
use rnic_driver::hw::vfio::{bindings, list_vfio_devices, Fd, IoctlArg, Sys, VfioHw, IOVA_BASE};
use rnic_driver::hw::{Hw, HwError, PciIds, PAGE_SIZE};
use rnic_driver::{Device, Error};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::rc::Rc;
use std::time::Duration;

mod common;
use common::{counters_of, window_image, window_value, DUMP_BEAT};

const BDF: &str = "0000:01:00.0";
const GROUP: &str = "12";
/// The Vendor and Device ID the mock's config space holds (arbitrary test values).
const MOCK_PCI_IDS: (u16, u16) = (0xa5a5, 0x1357);
const CONFIG_OFFSET: u64 = 0x70_0000_0000;
const BAR_OFFSET: u64 = 0;
const BAR_LEN: usize = 0x2000;

#[derive(Default)]
struct MockState {
    log: Vec<String>,
    next_fd: Fd,
    open_fds: HashSet<Fd>,
    /// Calls (by the name in the log, e.g. "VFIO_SET_IOMMU", "eventfd") that fail with an errno.
    fail: BTreeMap<String, i32>,
    api_version: i32,
    has_type1v2: bool,
    group_flags: u32,
    bar_len: u64,
    bar_flags: u32,
    msix_count: u32,
    pci_command: u16,
    /// Config space Vendor and Device ID (the mock's own values).
    pci_ids: (u16, u16),
    /// Memory handed out by mmap, by address: kept alive until munmap.
    maps: BTreeMap<usize, Box<[u64]>>,
    dma_maps: Vec<(u64, u64, u64)>,
    dma_unmaps: Vec<(u64, u64)>,
    eventfds: Vec<Fd>,
    fired: HashSet<Fd>,
    irq_sets: Vec<(u32, Vec<i32>)>,
    dirs: BTreeMap<String, Result<Vec<String>, i32>>,
}

#[derive(Clone)]
struct MockSys(Rc<RefCell<MockState>>);

impl std::fmt::Debug for MockSys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MockSys")
    }
}

fn set32(mem: &mut [u64], off: usize, v: u32) {
    let w = &mut mem[off / 8];
    let shift = (off % 8) * 8;
    *w = (*w & !(0xFFFF_FFFFu64 << shift)) | (u64::from(v) << shift);
}

impl MockSys {
    fn new() -> Self {
        let s = MockState {
            next_fd: 3,
            api_version: 0,
            has_type1v2: true,
            group_flags: bindings::GROUP_FLAGS_VIABLE,
            bar_len: BAR_LEN as u64,
            bar_flags: bindings::REGION_INFO_FLAG_MMAP | 3,
            msix_count: 4,
            pci_ids: MOCK_PCI_IDS,
            ..MockState::default()
        };
        MockSys(Rc::new(RefCell::new(s)))
    }

    fn fail(&self, call: &str, errno: i32) {
        self.0.borrow_mut().fail.insert(call.to_string(), errno);
    }

    fn log(&self) -> Vec<String> {
        self.0.borrow().log.clone()
    }

    fn check(&self, call: &str) -> Result<(), i32> {
        match self.0.borrow().fail.get(call) {
            Some(e) => Err(*e),
            None => Ok(()),
        }
    }

    fn new_fd(&self) -> Fd {
        let mut s = self.0.borrow_mut();
        let fd = s.next_fd;
        s.next_fd += 1;
        s.open_fds.insert(fd);
        fd
    }
}

impl Sys for MockSys {
    fn open(&mut self, path: &str) -> Result<Fd, i32> {
        self.0.borrow_mut().log.push(format!("open {path}"));
        self.check(&format!("open {path}"))?;
        Ok(self.new_fd())
    }

    fn close(&mut self, fd: Fd) {
        let mut s = self.0.borrow_mut();
        s.log.push(format!("close {fd}"));
        assert!(s.open_fds.remove(&fd), "close of fd {fd}, which is not open");
    }

    fn ioctl(&mut self, fd: Fd, request: u64, arg: IoctlArg<'_>) -> Result<i32, i32> {
        let name = bindings::name(request);
        let arg_text = match &arg {
            IoctlArg::None => String::new(),
            IoctlArg::Value(v) => format!(" {v}"),
            IoctlArg::Buf(b) => format!(" [{} bytes]", b.len()),
        };
        self.0.borrow_mut().log.push(format!("ioctl {fd} {name}{arg_text}"));
        assert!(self.0.borrow().open_fds.contains(&fd), "{name} on fd {fd}, which is not open");
        self.check(name)?;
        let mut s = self.0.borrow_mut();
        match (request, arg) {
            (bindings::GET_API_VERSION, IoctlArg::None) => Ok(s.api_version),
            (bindings::CHECK_EXTENSION, IoctlArg::Value(v)) => {
                Ok((v == bindings::TYPE1V2_IOMMU && s.has_type1v2) as i32)
            }
            (bindings::SET_IOMMU, IoctlArg::Value(v)) => {
                assert_eq!(v, bindings::TYPE1V2_IOMMU);
                Ok(0)
            }
            (bindings::GROUP_GET_STATUS, IoctlArg::Buf(b)) => {
                assert_eq!(bindings::Args::get_u32(b, 0), 8, "argsz");
                b[4..8].copy_from_slice(&s.group_flags.to_ne_bytes());
                Ok(0)
            }
            (bindings::GROUP_SET_CONTAINER, IoctlArg::Buf(b)) => {
                let c = i32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
                assert!(s.open_fds.contains(&c), "the container fd");
                Ok(0)
            }
            (bindings::GROUP_GET_DEVICE_FD, IoctlArg::Buf(b)) => {
                assert_eq!(b, format!("{BDF}\0").as_bytes());
                drop(s);
                Ok(self.new_fd())
            }
            (bindings::DEVICE_GET_INFO, IoctlArg::Buf(b)) => {
                assert_eq!(bindings::Args::get_u32(b, 0), 24, "argsz");
                b[4..8].copy_from_slice(&(bindings::DEVICE_FLAGS_PCI | 1).to_ne_bytes());
                b[8..12].copy_from_slice(&9u32.to_ne_bytes());
                b[12..16].copy_from_slice(&5u32.to_ne_bytes());
                Ok(0)
            }
            (bindings::DEVICE_GET_REGION_INFO, IoctlArg::Buf(b)) => {
                assert_eq!(bindings::Args::get_u32(b, 0), 32, "argsz");
                let (flags, size, offset) = match bindings::Args::get_u32(b, 8) {
                    bindings::PCI_CONFIG_REGION_INDEX => (3u32, 256u64, CONFIG_OFFSET),
                    bindings::PCI_BAR0_REGION_INDEX => (s.bar_flags, s.bar_len, BAR_OFFSET),
                    i => panic!("region {i}"),
                };
                b[4..8].copy_from_slice(&flags.to_ne_bytes());
                b[16..24].copy_from_slice(&size.to_ne_bytes());
                b[24..32].copy_from_slice(&offset.to_ne_bytes());
                Ok(0)
            }
            (bindings::DEVICE_GET_IRQ_INFO, IoctlArg::Buf(b)) => {
                assert_eq!(bindings::Args::get_u32(b, 8), bindings::PCI_MSIX_IRQ_INDEX);
                b[12..16].copy_from_slice(&s.msix_count.to_ne_bytes());
                Ok(0)
            }
            (bindings::DEVICE_SET_IRQS, IoctlArg::Buf(b)) => {
                let argsz = bindings::Args::get_u32(b, 0) as usize;
                assert_eq!(argsz, b.len());
                let count = bindings::Args::get_u32(b, 16);
                let fds = (0..count as usize).map(|i| bindings::Args::get_u32(b, 20 + 4 * i) as i32).collect();
                s.irq_sets.push((bindings::Args::get_u32(b, 4), fds));
                Ok(0)
            }
            (bindings::IOMMU_MAP_DMA, IoctlArg::Buf(b)) => {
                let m = (bindings::Args::get_u64(b, 8), bindings::Args::get_u64(b, 16), bindings::Args::get_u64(b, 24));
                assert_eq!(bindings::Args::get_u32(b, 4), bindings::DMA_MAP_FLAG_READ | bindings::DMA_MAP_FLAG_WRITE);
                assert!(s.maps.contains_key(&(m.0 as usize)), "maps memory the backend mmapped");
                s.dma_maps.push(m);
                Ok(0)
            }
            (bindings::IOMMU_UNMAP_DMA, IoctlArg::Buf(b)) => {
                s.dma_unmaps.push((bindings::Args::get_u64(b, 8), bindings::Args::get_u64(b, 16)));
                Ok(0)
            }
            (r, a) => panic!("unexpected ioctl {r:#x} {a:?}"),
        }
    }

    fn mmap(&mut self, fd: Option<Fd>, offset: u64, len: usize) -> Result<*mut u8, i32> {
        let what = match fd {
            Some(fd) => format!("mmap {fd} @{offset:#x} {len:#x}"),
            None => format!("mmap anon {len:#x}"),
        };
        self.0.borrow_mut().log.push(what);
        self.check(if fd.is_some() { "mmap BAR0" } else { "mmap anon" })?;
        let mut mem = vec![0u64; len.div_ceil(8)].into_boxed_slice();
        if fd.is_some() {
            set32(&mut mem, regs::id_magic::OFFSET as usize, regs::id_magic::RESET);
            set32(&mut mem, regs::id_version::OFFSET as usize, rnic_contract::ABI_VERSION);
            set32(&mut mem, regs::id_limits::OFFSET as usize, 4 | 4 << 8 | 4 << 16 | 12 << 24);
            set32(&mut mem, regs::irq_vectors::OFFSET as usize, 16);
            set32(&mut mem, regs::status::OFFSET as usize, regs::status::READY.mask());
        }
        let p = mem.as_mut_ptr() as *mut u8;
        self.0.borrow_mut().maps.insert(p as usize, mem);
        Ok(p)
    }

    fn munmap(&mut self, ptr: *mut u8, len: usize) {
        let mut s = self.0.borrow_mut();
        s.log.push(format!("munmap {len:#x}"));
        let m = s.maps.remove(&(ptr as usize)).expect("munmap of a live mapping");
        assert_eq!(m.len(), len.div_ceil(8));
    }

    fn pread(&mut self, fd: Fd, buf: &mut [u8], offset: u64) -> Result<(), i32> {
        self.0.borrow_mut().log.push(format!("pread {fd} @{offset:#x} {}", buf.len()));
        self.check("pread")?;
        // The driver reads the Vendor ID, the Device ID and the Command register at once.
        assert_eq!((offset, buf.len()), (CONFIG_OFFSET + bindings::PCI_VENDOR_ID, 6));
        let s = self.0.borrow();
        buf[0..2].copy_from_slice(&s.pci_ids.0.to_le_bytes());
        buf[2..4].copy_from_slice(&s.pci_ids.1.to_le_bytes());
        buf[4..6].copy_from_slice(&s.pci_command.to_le_bytes());
        Ok(())
    }

    fn pwrite(&mut self, fd: Fd, data: &[u8], offset: u64) -> Result<(), i32> {
        self.0.borrow_mut().log.push(format!("pwrite {fd} @{offset:#x} {data:?}"));
        self.check("pwrite")?;
        assert_eq!(offset, CONFIG_OFFSET + bindings::PCI_COMMAND);
        self.0.borrow_mut().pci_command = u16::from_le_bytes([data[0], data[1]]);
        Ok(())
    }

    fn eventfd(&mut self) -> Result<Fd, i32> {
        self.0.borrow_mut().log.push("eventfd".into());
        self.check("eventfd")?;
        let fd = self.new_fd();
        self.0.borrow_mut().eventfds.push(fd);
        Ok(fd)
    }

    fn wait_readable(&mut self, fd: Fd, timeout: Duration) -> Result<bool, i32> {
        self.0.borrow_mut().log.push(format!("poll {fd} {}ms", timeout.as_millis()));
        self.check("poll")?;
        Ok(self.0.borrow().fired.contains(&fd))
    }

    fn read_u64(&mut self, fd: Fd) -> Result<u64, i32> {
        self.0.borrow_mut().log.push(format!("read {fd}"));
        Ok(u64::from(self.0.borrow_mut().fired.remove(&fd)))
    }

    fn read_link(&mut self, path: &str) -> Result<String, i32> {
        self.0.borrow_mut().log.push(format!("readlink {path}"));
        self.check("readlink")?;
        Ok(format!("../../../kernel/iommu_groups/{GROUP}"))
    }

    fn list_dir(&mut self, path: &str) -> Result<Vec<String>, i32> {
        self.0.borrow_mut().log.push(format!("list {path}"));
        self.0.borrow().dirs.get(path).cloned().unwrap_or(Err(libc::ENOENT))
    }
}

fn os(op: &str, errno: i32) -> HwError {
    HwError::Os { op: op.to_string(), errno }
}

/// The calls of a successful open, in order: fds 3 container, 4 group,
/// 5 device, 6.. eventfds.
fn open_sequence() -> Vec<String> {
    let mut v: Vec<String> = [
        format!("readlink /sys/bus/pci/devices/{BDF}/iommu_group"),
        "open /dev/vfio/vfio".into(),
        "ioctl 3 VFIO_GET_API_VERSION".into(),
        format!("ioctl 3 VFIO_CHECK_EXTENSION {}", bindings::TYPE1V2_IOMMU),
        format!("open /dev/vfio/{GROUP}"),
        "ioctl 4 VFIO_GROUP_GET_STATUS [8 bytes]".into(),
        "ioctl 4 VFIO_GROUP_SET_CONTAINER [4 bytes]".into(),
        format!("ioctl 3 VFIO_SET_IOMMU {}", bindings::TYPE1V2_IOMMU),
        "ioctl 4 VFIO_GROUP_GET_DEVICE_FD [13 bytes]".into(),
        "ioctl 5 VFIO_DEVICE_GET_INFO [24 bytes]".into(),
        "ioctl 5 VFIO_DEVICE_GET_REGION_INFO [32 bytes]".into(),
        format!("pread 5 @{CONFIG_OFFSET:#x} 6"),
        format!("pwrite 5 @{:#x} [6, 0]", CONFIG_OFFSET + 4),
        "ioctl 5 VFIO_DEVICE_GET_REGION_INFO [32 bytes]".into(),
        format!("mmap 5 @{BAR_OFFSET:#x} {BAR_LEN:#x}"),
        "ioctl 5 VFIO_DEVICE_GET_IRQ_INFO [16 bytes]".into(),
    ]
    .into();
    v.extend(std::iter::repeat_n("eventfd".to_string(), 4));
    v.push("ioctl 5 VFIO_DEVICE_SET_IRQS [36 bytes]".into());
    v
}

#[test]
fn open_follows_the_kernels_sequence_and_drop_undoes_it() {
    let sys = MockSys::new();
    let hw = VfioHw::open(sys.clone(), BDF).unwrap();
    assert_eq!(sys.log(), open_sequence());
    let s = sys.0.borrow();
    assert_eq!(s.pci_command, bindings::PCI_COMMAND_MEMORY | bindings::PCI_COMMAND_MASTER);
    assert_eq!(s.irq_sets, [(bindings::IRQ_SET_DATA_EVENTFD | bindings::IRQ_SET_ACTION_TRIGGER, vec![6, 7, 8, 9])]);
    assert_eq!(hw.vectors(), 4);
    assert_eq!(hw.name(), format!("vfio {BDF}"));
    assert_eq!(hw.pci_ids(), Some(PciIds { vendor: MOCK_PCI_IDS.0, device: MOCK_PCI_IDS.1 }));
    drop(s);
    drop(hw);
    let s = sys.0.borrow();
    assert!(s.open_fds.is_empty(), "every fd closed: {:?}", s.open_fds);
    assert!(s.maps.is_empty(), "BAR0 unmapped");
    assert_eq!(s.irq_sets.last(), Some(&(bindings::IRQ_SET_DATA_NONE | bindings::IRQ_SET_ACTION_TRIGGER, vec![])));
}

#[test]
fn every_failing_call_is_a_typed_error_and_leaks_nothing() {
    let steps = [
        ("readlink", "readlink /sys/bus/pci/devices/0000:01:00.0/iommu_group"),
        ("open /dev/vfio/vfio", "open /dev/vfio/vfio"),
        ("VFIO_GET_API_VERSION", "VFIO_GET_API_VERSION"),
        ("VFIO_CHECK_EXTENSION", "VFIO_CHECK_EXTENSION"),
        ("open /dev/vfio/12", "open /dev/vfio/12"),
        ("VFIO_GROUP_GET_STATUS", "VFIO_GROUP_GET_STATUS"),
        ("VFIO_GROUP_SET_CONTAINER", "VFIO_GROUP_SET_CONTAINER"),
        ("VFIO_SET_IOMMU", "VFIO_SET_IOMMU"),
        ("VFIO_GROUP_GET_DEVICE_FD", "VFIO_GROUP_GET_DEVICE_FD"),
        ("VFIO_DEVICE_GET_INFO", "VFIO_DEVICE_GET_INFO"),
        ("VFIO_DEVICE_GET_REGION_INFO", "VFIO_DEVICE_GET_REGION_INFO"),
        ("pread", "read PCI IDs and command"),
        ("pwrite", "write PCI command"),
        ("mmap BAR0", "mmap BAR0"),
        ("VFIO_DEVICE_GET_IRQ_INFO", "VFIO_DEVICE_GET_IRQ_INFO"),
        ("eventfd", "eventfd"),
        ("VFIO_DEVICE_SET_IRQS", "VFIO_DEVICE_SET_IRQS"),
    ];
    for (call, op) in steps {
        let sys = MockSys::new();
        sys.fail(call, libc::EBUSY);
        let err = VfioHw::open(sys.clone(), BDF).unwrap_err();
        assert_eq!(err, os(op, libc::EBUSY), "failing {call}");
        let s = sys.0.borrow();
        assert!(s.open_fds.is_empty(), "failing {call}: fds left open {:?}", s.open_fds);
        assert!(s.maps.is_empty(), "failing {call}: mappings left");
    }
}

#[test]
fn an_unusable_device_says_why() {
    type Case = (&'static str, fn(&mut MockState), &'static str);
    let cases: [Case; 5] = [
        ("api", |s| s.api_version = 1, "VFIO API version 1"),
        ("type1v2", |s| s.has_type1v2 = false, "type 1 v2"),
        ("viable", |s| s.group_flags = 0, "not viable"),
        ("bar", |s| s.bar_len = 0x1000, "BAR0 of 0x1000 bytes"),
        ("msix", |s| s.msix_count = 0, "no MSI-X"),
    ];
    for (name, setup, text) in cases {
        let sys = MockSys::new();
        setup(&mut sys.0.borrow_mut());
        match VfioHw::open(sys.clone(), BDF) {
            Err(HwError::Unusable { reason }) => assert!(reason.contains(text), "{name}: {reason}"),
            other => panic!("{name}: {other:?}"),
        }
        assert!(sys.0.borrow().open_fds.is_empty(), "{name}: fds left open");
    }
}

#[test]
fn registers_dma_and_interrupts() {
    let sys = MockSys::new();
    let mut hw = VfioHw::open(sys.clone(), BDF).unwrap();
    assert_eq!(hw.read32(regs::id_magic::OFFSET), Ok(regs::id_magic::RESET));
    hw.write32(regs::scratch::OFFSET, 0x1234_5678).unwrap();
    assert_eq!(hw.read32(regs::scratch::OFFSET), Ok(0x1234_5678));
    hw.write64(regs::doorbell::OFFSET, 0x0100_0005_0000_0007).unwrap();
    assert_eq!(hw.read64(regs::doorbell::OFFSET), Ok(0x0100_0005_0000_0007));
    assert_eq!(hw.read32(regs::doorbell::OFFSET + 4), Ok(0x0100_0005), "the high half at +4");
    assert_eq!(hw.write64(4, 0), Err(HwError::BadRegister { offset: 4, bar_len: BAR_LEN as u64 }));
    assert_eq!(hw.write64(0x1FFC, 0), Err(HwError::BadRegister { offset: 0x1FFC, bar_len: BAR_LEN as u64 }));
    assert_eq!(hw.read32(0x2000), Err(HwError::BadRegister { offset: 0x2000, bar_len: BAR_LEN as u64 }));
    assert_eq!(hw.write32(2, 0), Err(HwError::BadRegister { offset: 2, bar_len: BAR_LEN as u64 }));

    // DMA: anonymous memory mapped at the next IOVA, page-rounded.
    let r = hw.alloc_dma(100).unwrap();
    assert_eq!((r.iova, r.len), (IOVA_BASE, PAGE_SIZE));
    let r2 = hw.alloc_dma(PAGE_SIZE + 1).unwrap();
    assert_eq!((r2.iova, r2.len), (IOVA_BASE + 2 * PAGE_SIZE as u64, 2 * PAGE_SIZE), "a guard page between");
    assert_eq!(sys.0.borrow().dma_maps, [(r.va, r.iova, 4096), (r2.va, r2.iova, 8192)]);
    hw.dma_write(&r, 4000, &[1, 2, 3]).unwrap();
    let mut back = [0u8; 3];
    hw.dma_read(&r, 4000, &mut back).unwrap();
    assert_eq!(back, [1, 2, 3]);
    assert_eq!(hw.dma_write(&r, 4094, &[0; 3]), Err(HwError::OutOfRange { region: r.id, offset: 4094, len: 3 }));
    hw.free_dma(&r).unwrap();
    assert_eq!(sys.0.borrow().dma_unmaps, [(r.iova, 4096)]);
    assert_eq!(hw.dma_read(&r, 0, &mut back), Err(HwError::OutOfRange { region: r.id, offset: 0, len: 3 }));
    assert!(hw.free_dma(&r).is_err(), "a second free");

    // A failed IOMMU map gives the memory back.
    sys.fail("VFIO_IOMMU_MAP_DMA", libc::ENOSPC);
    let maps = sys.0.borrow().maps.len();
    assert_eq!(hw.alloc_dma(10), Err(os("VFIO_IOMMU_MAP_DMA", libc::ENOSPC)));
    assert_eq!(sys.0.borrow().maps.len(), maps);
    sys.0.borrow_mut().fail.clear();
    sys.fail("mmap anon", libc::ENOMEM);
    assert_eq!(hw.alloc_dma(10), Err(os("mmap DMA buffer", libc::ENOMEM)));
    sys.0.borrow_mut().fail.clear();

    // MSI-X: vector v is eventfd 6 + v.
    assert_eq!(hw.wait_irq(1, Duration::from_millis(5)), Ok(false));
    sys.0.borrow_mut().fired.insert(7);
    assert_eq!(hw.wait_irq(1, Duration::from_millis(5)), Ok(true));
    assert!(sys.log().ends_with(&["poll 7 5ms".to_string(), "read 7".to_string()]));
    assert_eq!(hw.wait_irq(4, Duration::ZERO), Err(HwError::BadVector { vector: 4, count: 4 }));
    sys.fail("poll", libc::EINTR);
    assert_eq!(hw.wait_irq(0, Duration::ZERO), Err(os("poll eventfd", libc::EINTR)));
    sys.0.borrow_mut().fail.clear();

    // Drop unmaps what is still mapped.
    drop(hw);
    let s = sys.0.borrow();
    assert_eq!(s.dma_unmaps.last(), Some(&(r2.iova, 8192)));
    assert!(s.maps.is_empty() && s.open_fds.is_empty());
}

#[test]
fn the_driver_brings_a_vfio_device_up() {
    let sys = MockSys::new();
    let hw = VfioHw::open(sys.clone(), BDF).unwrap();
    let ctx = Device::from_hw(hw).open().unwrap();
    let attr = ctx.query_device();
    assert_eq!((attr.max_qp, attr.max_cq, attr.max_mr, attr.max_qp_wr), (14, 16, 16, 4096));
    assert_eq!(attr.irq_vectors, 4, "the smaller of the device's 16 and the 4 eventfds");
    assert_eq!((attr.vendor_id, attr.vendor_part_id), (MOCK_PCI_IDS.0.into(), MOCK_PCI_IDS.1.into()));
    // Seven tables mapped for the device (qpc, qps, the replay table of
    // `resource` slots since ABI 0.8, cqc, mpt, mtt, ah), and the page the
    // counter window is written to.
    assert_eq!(sys.0.borrow().dma_maps.len(), 8);
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(PAGE_SIZE).unwrap();
    assert!(pd.reg_mr(&buf, 0, 64, rnic_driver::AccessFlags::LOCAL_WRITE).is_ok());
    drop(ctx);
    drop(pd);
    drop(buf);
    let s = sys.0.borrow();
    // The eight regions of bring-up and the buffer.
    assert_eq!(s.dma_unmaps.len(), 9, "tables, the counter page and the buffer unmapped when the last object goes");
}

#[test]
fn a_wrong_device_behind_vfio_is_refused() {
    let sys = MockSys::new();
    let mut hw = VfioHw::open(sys.clone(), BDF).unwrap();
    hw.write32(regs::id_magic::OFFSET, 0x1234).unwrap();
    assert_eq!(Device::from_hw(hw).open().unwrap_err(), Error::NotRnic { magic: 0x1234 });
    let mut hw = VfioHw::open(sys, BDF).unwrap();
    hw.write32(regs::id_version::OFFSET, 0x0001_0000).unwrap();
    assert_eq!(
        Device::from_hw(hw).open().unwrap_err(),
        Error::AbiMismatch { device: 0x0001_0000, driver: rnic_contract::ABI_VERSION }
    );
}

#[test]
fn the_device_list_is_what_vfio_pci_has_bound() {
    let mut sys = MockSys::new();
    assert_eq!(list_vfio_devices(&mut sys), Ok(vec![]), "no vfio-pci driver: no device");
    sys.0.borrow_mut().dirs.insert(
        "/sys/bus/pci/drivers/vfio-pci".into(),
        Ok(vec!["0000:01:00.0".into(), "bind".into(), "module".into(), "0000:81:00.1".into()]),
    );
    assert_eq!(list_vfio_devices(&mut sys), Ok(vec!["0000:01:00.0".into(), "0000:81:00.1".into()]));
    sys.0.borrow_mut().dirs.insert("/sys/bus/pci/drivers/vfio-pci".into(), Err(libc::EACCES));
    assert_eq!(list_vfio_devices(&mut sys), Err(os("list /sys/bus/pci/drivers/vfio-pci", libc::EACCES)));
}

/// Plays the device's counter dump on the mock: `image` into the start of
/// the DMA page mapped at `iova`.
fn write_dump(sys: &MockSys, iova: u64, image: &[u8]) {
    let mut s = sys.0.borrow_mut();
    let &(va, _, len) = s.dma_maps.iter().find(|m| m.1 == iova).expect("the page is mapped for the device");
    assert!(image.len() <= len as usize);
    let mem = s.maps.get_mut(&(va as usize)).expect("and still allocated");
    for (i, half) in image.chunks(4).enumerate() {
        set32(mem, 4 * i, u32::from_le_bytes(half.try_into().unwrap()));
    }
}

#[test]
fn query_counters_over_vfio_issues_the_store_and_reads_the_dumped_page_into_each_field() {
    let sys = MockSys::new();
    let ctx = Device::from_hw(VfioHw::open(sys.clone(), BDF).unwrap()).open().unwrap();
    let (page, _) = ctx.table_base(ContextTable::Counters);
    let reg = |off: u32| ctx.with_hw(|hw| hw.read32(off)).unwrap().unwrap();
    assert_eq!(
        u64::from(reg(regs::counters_base_hi::OFFSET)) << 32 | u64::from(reg(regs::counters_base_lo::OFFSET)),
        page
    );
    write_dump(&sys, page, &window_image(|o| window_value(o, 1)));
    let calls = sys.log().len();
    assert_eq!(ctx.query_counters().unwrap(), counters_of(|o| window_value(o, 1)));
    let store = regs::ctx_cmd::OP.encode(ContextOp::Store.raw().into()).unwrap()
        | regs::ctx_cmd::TABLE.encode(ContextTable::Counters.raw().into()).unwrap();
    assert_eq!(reg(regs::ctx_cmd::OFFSET), store, "a Store of counter entry 0 written to BAR0");
    assert_eq!(sys.log().len(), calls, "BAR0 and the page are mapped memory: no system call");

    // The dump ends in ERROR after three beats: the page is half this dump,
    // half the last, and the driver reads none of it.
    write_dump(&sys, page, &window_image(|o| window_value(o, 2))[..3 * DUMP_BEAT]);
    ctx.with_hw(|hw| hw.write32(regs::ctx_status::OFFSET, regs::ctx_status::ERROR.mask())).unwrap().unwrap();
    assert_eq!(
        ctx.query_counters(),
        Err(Error::ContextCommand { op: ContextOp::Store, table: ContextTable::Counters, index: 0 })
    );
    // A dump that stays BUSY.
    ctx.with_hw(|hw| hw.write32(regs::ctx_status::OFFSET, regs::ctx_status::BUSY.mask())).unwrap().unwrap();
    assert_eq!(
        ctx.query_counters(),
        Err(Error::ContextTimeout { op: ContextOp::Store, table: ContextTable::Counters, index: 0, polls: CTX_POLLS })
    );
    ctx.with_hw(|hw| hw.write32(regs::ctx_status::OFFSET, 0)).unwrap().unwrap();
    write_dump(&sys, page, &window_image(|o| window_value(o, 2)));
    assert_eq!(ctx.query_counters().unwrap(), counters_of(|o| window_value(o, 2)));
}
