//! Devices and the open device context (`ibv_get_device_list`,
//! `ibv_open_device`, `ibv_query_device`, `ibv_query_port`,
//! `ibv_query_gid`).
//!
//! Opening a device brings it up as the contract describes: check the magic
//! and the ABI version, read the build's features and limits, allocate the
//! context tables in DMA memory (each sized to the smaller of the device's
//! limit and [`ContextConfig`]), program their bases and enable the device.

use crate::alloc::{KeySlots, Pool, Runs};
use crate::error::{Error, Resource, Result};
use crate::hw::{DmaRegion, Hw};
use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind, Mtu};
use rnic_contract::layouts::{ah, cqc, mpt, mtt, qpc, qps, recv_wqe, resource, send_wqe};
use rnic_contract::regs::{self, Doorbell};
use std::cell::{RefCell, RefMut};
use std::fmt;
use std::rc::Rc;
use std::time::Duration;

/// A device the driver can open (`ibv_device`): any [`Hw`] backend, or
/// one of [`device_list`]. Opening checks the identification registers
/// and brings the context tables up.
///
/// ```
/// use rnic_driver::hw::fake::{FakeConfig, FakeHw};
/// use rnic_driver::{ContextConfig, Device, Error};
///
/// let device = Device::from_hw(FakeHw::new(FakeConfig::default()));
/// assert_eq!(device.name(), "fake");
/// // Smaller tables than the device allows: 2^4 QPs (QP 0 and 1 are reserved).
/// let ctx = device.open_with(ContextConfig { log_qps: 4, ..ContextConfig::default() })?;
/// assert_eq!(ctx.query_device().max_qp, 14);
///
/// // Something else behind BAR0 is refused with what was read.
/// let other = FakeHw::new(FakeConfig { magic: 0x1234_5678, ..FakeConfig::default() });
/// assert_eq!(Device::from_hw(other).open().unwrap_err(), Error::NotRnic { magic: 0x1234_5678 });
/// # Ok::<(), Error>(())
/// ```
pub struct Device {
    name: String,
    hw: Box<dyn Hw>,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device").field("name", &self.name).finish()
    }
}

impl Device {
    /// A device behind any hardware backend (the simulator's, a fake).
    pub fn from_hw(hw: impl Hw + 'static) -> Device {
        Device { name: hw.name(), hw: Box::new(hw) }
    }

    /// The device's name (`"vfio 0000:01:00.0"`, `"sim"`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Opens the device with the default table sizes.
    pub fn open(self) -> Result<Context> {
        self.open_with(ContextConfig::default())
    }

    /// Opens the device ([module docs](self)).
    pub fn open_with(self, config: ContextConfig) -> Result<Context> {
        Context::bring_up(self.hw, config)
    }
}

/// The devices bound to `vfio-pci` on this machine, each opened through the
/// VFIO backend. Empty on a machine without one (this project's CI).
pub fn device_list() -> Result<Vec<Device>> {
    let mut sys = crate::hw::vfio::LibcSys;
    let bdfs = crate::hw::vfio::list_vfio_devices(&mut sys)?;
    let mut out = Vec::new();
    for bdf in bdfs {
        let hw = crate::hw::vfio::VfioHw::open(crate::hw::vfio::LibcSys, &bdf)?;
        out.push(Device::from_hw(hw));
    }
    Ok(out)
}

/// Table sizes the driver asks for; each is capped by the device's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextConfig {
    /// log2 of the QP context table's entries.
    pub log_qps: u32,
    /// log2 of the CQ context table's entries.
    pub log_cqs: u32,
    /// log2 of the MPT's entries (memory regions).
    pub log_mrs: u32,
    /// log2 of the MTT's entries (registered pages).
    pub log_mtt: u32,
    /// log2 of the address handle table's entries.
    pub log_ahs: u32,
}

impl Default for ContextConfig {
    /// 1024 QPs and CQs, 4096 memory regions, 64 MiB of registered 4 KiB
    /// pages, 256 address handles (each capped by the device).
    fn default() -> Self {
        ContextConfig { log_qps: 10, log_cqs: 10, log_mrs: 12, log_mtt: 14, log_ahs: 8 }
    }
}

/// A GID: an IPv6 address, or an IPv4 address mapped into IPv6.
pub type Gid = [u8; 16];

/// What `ibv_query_device` reports, read from the `id_*` registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceAttr {
    /// The contract version the device implements.
    pub abi_version: u32,
    /// `id_features` as read.
    pub features: u32,
    /// Bytes per data-path beat.
    pub datapath_bytes: u32,
    /// Core clock in MHz.
    pub clock_mhz: u32,
    /// The port's MAC address.
    pub mac: [u8; 6],
    /// QPs this context can create (QP 0 and 1 are reserved).
    pub max_qp: u32,
    /// CQs this context can create.
    pub max_cq: u32,
    /// Memory regions this context can register.
    pub max_mr: u32,
    /// Pages all memory regions together can map.
    pub max_mtt: u32,
    /// Address handles.
    pub max_ah: u32,
    /// Deepest work queue or CQ.
    pub max_qp_wr: u32,
    /// Most SGEs per send work request.
    pub max_send_sge: u32,
    /// Most SGEs per receive work request.
    pub max_recv_sge: u32,
    /// Most inline bytes per send work request (0 without `INLINE`).
    pub max_inline_data: u32,
    /// MSI-X vectors the device has and the backend can wait on.
    pub irq_vectors: u16,
    /// PCI Vendor ID from config space (`ibv_device_attr.vendor_id`); 0
    /// on a backend without a PCI function (the simulator, the fake).
    pub vendor_id: u32,
    /// PCI Device ID (`vendor_part_id`); 0 likewise.
    pub vendor_part_id: u32,
}

impl DeviceAttr {
    /// Whether `id_features` has `field` set.
    pub fn has(&self, field: rnic_contract::reg::Field<u32>) -> bool {
        field.get(self.features) == 1
    }
}

/// State of the port (`ibv_port_state`, the ones this device reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortState {
    /// `IBV_PORT_DOWN`: no link.
    Down,
    /// `IBV_PORT_ACTIVE`: the link is up.
    Active,
}

/// What `ibv_query_port` reports, read from `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortAttr {
    /// Link state.
    pub state: PortState,
    /// Link speed in Gb/s while active, else 0.
    pub speed_gbps: u32,
    /// Largest path MTU.
    pub max_mtu: Mtu,
    /// Entries of the GID table.
    pub gid_tbl_len: u32,
    /// Entries of the P_Key table (one: the default partition).
    pub pkey_tbl_len: u32,
}

/// Entries of the driver's GID table.
pub const GID_TABLE_LEN: usize = 16;
/// The one P_Key: the default partition.
pub const DEFAULT_PKEY: u16 = 0xFFFF;
/// Status reads a context command may stay busy for.
pub const CTX_POLLS: u32 = 10_000;

/// Bytes of the counter window's image in host memory.
const COUNTER_BYTES: usize = (regs::COUNTER_WINDOW.end - regs::COUNTER_WINDOW.start) as usize;
/// Device time bring-up waits for `status.READY` (the core needs about
/// 2^14 cycles, 66 us at 250 MHz, after reset).
pub const READY_TIMEOUT: Duration = Duration::from_millis(2);

/// A context table in DMA memory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    pub region: DmaRegion,
    pub log: u32,
    pub entry: usize,
}

impl Table {
    pub(crate) fn offset(&self, index: u32) -> usize {
        index as usize * self.entry
    }
}

pub(crate) struct Tables {
    pub qpc: Table,
    pub qps: Table,
    /// The replay table: one entry of `resource::QP_BYTES` (its 16 slots) per QP.
    pub replay: Table,
    pub cqc: Table,
    pub mpt: Table,
    pub mtt: Table,
    pub ah: Table,
    /// Where the device writes the counter window (`ContextTable::Counters`).
    pub counters: Table,
}

pub(crate) struct Allocators {
    pub qpn: Pool,
    pub cqn: Pool,
    pub mpt: KeySlots,
    pub mtt: Runs,
    pub ah: Pool,
    pub pd: Pool,
    pub vectors: Pool,
}

/// What every object of a context shares; children hold it through `Rc`.
pub(crate) struct Shared {
    hw: RefCell<Box<dyn Hw>>,
    pub attr: DeviceAttr,
    pub tables: Tables,
    pub alloc: RefCell<Allocators>,
    pub gids: RefCell<Vec<Option<Gid>>>,
    teardown: RefCell<Vec<Error>>,
}

impl Shared {
    /// The hardware, for one call sequence. Driver code never holds it across
    /// a call that takes it again; only `with_hw` can find it taken.
    pub(crate) fn hw(&self) -> Result<RefMut<'_, Box<dyn Hw>>> {
        self.hw.try_borrow_mut().map_err(|_| Error::Reentrant)
    }

    /// Runs a context command to its end.
    pub(crate) fn ctx_cmd(&self, op: ContextOp, table: ContextTable, index: u32) -> Result<()> {
        self.ctx_cmd_polls(op, table, index, CTX_POLLS)
    }

    /// A context command, given up after `max_polls` reads of `ctx_status`.
    fn ctx_cmd_polls(&self, op: ContextOp, table: ContextTable, index: u32, max_polls: u32) -> Result<()> {
        let word = regs::ctx_cmd::OP.encode(op.raw().into())?
            | regs::ctx_cmd::TABLE.encode(table.raw().into())?
            | regs::ctx_cmd::INDEX.encode(index)?;
        let mut hw = self.hw()?;
        hw.write32(regs::ctx_cmd::OFFSET, word)?;
        for polls in 1..=max_polls {
            let status = hw.read32(regs::ctx_status::OFFSET)?;
            if regs::ctx_status::BUSY.get(status) == 0 {
                if regs::ctx_status::ERROR.get(status) == 1 {
                    return Err(Error::ContextCommand { op, table, index });
                }
                return Ok(());
            }
            if polls == max_polls {
                break;
            }
            hw.relax();
        }
        Err(Error::ContextTimeout { op, table, index, polls: max_polls })
    }

    /// Runs a context command over MTT entries `index .. index + count`
    /// (`ctx_count`, then `ctx_cmd`): the device acts on every cache line they
    /// fall in, so a region of any size costs one command.
    /// The device takes about 8 cycles a line, under one MMIO read: the poll
    /// budget grows by one poll a line.
    pub(crate) fn ctx_mtt_span(&self, op: ContextOp, index: u32, count: u32) -> Result<()> {
        let word = regs::ctx_count::COUNT.encode(count)?;
        self.hw()?.write32(regs::ctx_count::OFFSET, word)?;
        let polls = CTX_POLLS.saturating_add(count / rnic_contract::mr::MTT_PER_LINE);
        self.ctx_cmd_polls(op, ContextTable::Mtt, index, polls)
    }

    /// Rings the doorbell: one 64-bit write, low half then high half, with
    /// the context's hardware held between them.
    pub(crate) fn doorbell(&self, kind: DoorbellKind, queue: u32, index: u16, solicited: bool) -> Result<()> {
        let word = Doorbell { kind, queue, index, solicited }.encode()?;
        self.hw()?.write64(regs::doorbell::OFFSET, word)?;
        Ok(())
    }

    /// Writes one entry of a table.
    pub(crate) fn write_entry(&self, table: &Table, index: u32, bytes: &[u8]) -> Result<()> {
        self.hw()?.dma_write(&table.region, table.offset(index), bytes)?;
        Ok(())
    }

    /// Reads one entry of a table.
    pub(crate) fn read_entry(&self, table: &Table, index: u32, buf: &mut [u8]) -> Result<()> {
        self.hw()?.dma_read(&table.region, table.offset(index), buf)?;
        Ok(())
    }

    /// Whether the device takes context commands on the MPT and MTT.
    pub(crate) fn translates(&self) -> bool {
        self.attr.has(regs::id_features::TRANSLATION)
    }

    /// Records a failure in a destructor, which cannot return it.
    pub(crate) fn teardown_failed(&self, e: Error) {
        self.teardown.borrow_mut().push(e);
    }

    pub(crate) fn gid(&self, index: u32) -> Result<Gid> {
        self.gids.borrow().get(index as usize).copied().flatten().ok_or(Error::NoGid { index })
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let hw = self.hw.get_mut();
        // Stop the device before its tables go; a destructor has no one to
        // tell, so failures here end with the context.
        let _ = hw.write32(regs::ctrl::OFFSET, 0);
        // Named in full, so a table added to `Tables` cannot be left out here.
        let Tables { qpc, qps, replay, cqc, mpt, mtt, ah, counters } = &self.tables;
        for t in [qpc, qps, replay, cqc, mpt, mtt, ah, counters] {
            let _ = hw.free_dma(&t.region);
        }
    }
}

/// An open device (`ibv_context`). Cheap to clone: every clone and every
/// object created from it share the device, which stays open until the last
/// of them is dropped.
///
/// ```
/// use rnic_driver::{hw::fake::{FakeConfig, FakeHw}, Device, PortState};
///
/// let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open()?;
/// let attr = ctx.query_device();
/// assert_eq!((attr.max_qp, attr.max_send_sge, attr.max_inline_data), (1022, 4, 64));
/// assert_eq!(ctx.query_port(1)?.state, PortState::Active);
/// // GID 0 is the link-local address from the port's MAC.
/// assert_eq!(ctx.query_gid(1, 0)?[..8], [0xfe, 0x80, 0, 0, 0, 0, 0, 0]);
/// # Ok::<(), rnic_driver::Error>(())
/// ```
#[derive(Clone)]
pub struct Context {
    pub(crate) shared: Rc<Shared>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context").field("attr", &self.shared.attr).finish()
    }
}

fn read_attr(hw: &mut dyn Hw) -> Result<(DeviceAttr, u32)> {
    let magic = hw.read32(regs::id_magic::OFFSET)?;
    if magic != regs::id_magic::RESET {
        return Err(Error::NotRnic { magic });
    }
    let version = hw.read32(regs::id_version::OFFSET)?;
    if !rnic_contract::abi_compatible(version) {
        return Err(Error::AbiMismatch { device: version, driver: rnic_contract::ABI_VERSION });
    }
    let features = hw.read32(regs::id_features::OFFSET)?;
    let limits = hw.read32(regs::id_limits::OFFSET)?;
    let mac_lo = hw.read32(regs::id_mac_lo::OFFSET)?;
    let mac_hi = hw.read32(regs::id_mac_hi::OFFSET)?;
    let mac_word = u64::from(regs::id_mac_hi::MAC.get(mac_hi)) << 32 | u64::from(mac_lo);
    let mut mac = [0u8; 6];
    mac.copy_from_slice(&mac_word.to_be_bytes()[2..]);
    let inline = regs::id_features::INLINE.get(features) == 1;
    let attr = DeviceAttr {
        abi_version: version,
        features,
        datapath_bytes: regs::id_datapath::BYTES.get(hw.read32(regs::id_datapath::OFFSET)?),
        clock_mhz: regs::id_clock::MHZ.get(hw.read32(regs::id_clock::OFFSET)?),
        mac,
        max_qp: 0,
        max_cq: 0,
        max_mr: 0,
        max_mtt: 0,
        max_ah: 0,
        max_qp_wr: 1 << regs::id_limits::LOG_MAX_RING.get(limits).min(rnic_contract::ring::MAX_LOG_SIZE),
        max_send_sge: send_wqe::MAX_SGE as u32,
        max_recv_sge: recv_wqe::MAX_SGE as u32,
        max_inline_data: if inline { send_wqe::MAX_INLINE as u32 } else { 0 },
        irq_vectors: (regs::irq_vectors::COUNT.get(hw.read32(regs::irq_vectors::OFFSET)?) as u16).min(hw.vectors()),
        vendor_id: hw.pci_ids().map_or(0, |p| p.vendor.into()),
        vendor_part_id: hw.pci_ids().map_or(0, |p| p.device.into()),
    };
    Ok((attr, limits))
}

/// The link-local IPv6 address of a MAC (modified EUI-64), the port's GID 0.
pub fn link_local_gid(mac: [u8; 6]) -> Gid {
    let mut g = [0u8; 16];
    g[0] = 0xfe;
    g[1] = 0x80;
    g[8..11].copy_from_slice(&[mac[0] ^ 2, mac[1], mac[2]]);
    g[11] = 0xff;
    g[12] = 0xfe;
    g[13..].copy_from_slice(&mac[3..]);
    g
}

/// The GID of an IPv4 address (`::ffff:a.b.c.d`), as RoCEv2 uses it.
pub fn ipv4_gid(ip: [u8; 4]) -> Gid {
    let mut g = [0u8; 16];
    g[10] = 0xff;
    g[11] = 0xff;
    g[12..].copy_from_slice(&ip);
    g
}

/// Polls `status.READY` until the device has cleared its tables after reset
/// (a doorbell rung earlier would only wait, but the first message's latency
/// would carry the whole initialization).
fn wait_ready(hw: &mut dyn Hw) -> Result<()> {
    let start = hw.now();
    loop {
        if regs::status::READY.get(hw.read32(regs::status::OFFSET)?) == 1 {
            return Ok(());
        }
        let waited = hw.now().saturating_sub(start);
        if waited > READY_TIMEOUT {
            return Err(Error::NotReady { waited });
        }
        hw.relax();
    }
}

impl Context {
    fn bring_up(mut hw: Box<dyn Hw>, config: ContextConfig) -> Result<Context> {
        let (mut attr, limits) = read_attr(hw.as_mut())?;
        // Every table index fits the doorbell's and the commands' 24 bits.
        let max_log = regs::doorbell::QUEUE.width;
        let log = |want: u32, field: rnic_contract::reg::Field<u32>| want.min(field.get(limits)).min(max_log);
        let log_qp = log(config.log_qps, regs::id_limits::LOG_MAX_QP);
        let log_cq = log(config.log_cqs, regs::id_limits::LOG_MAX_CQ);
        let log_mpt = log(config.log_mrs, regs::id_limits::LOG_MAX_MPT);
        let log_mtt = config.log_mtt.min(max_log);
        let log_ah = config.log_ahs.min(max_log);
        // The device stops before its tables change.
        hw.write32(regs::ctrl::OFFSET, 0)?;
        let mut tables: Vec<Table> = Vec::new();
        // The QPS and replay tables have as many entries as the QP table: no size register of their own.
        let specs = [
            (
                log_qp,
                qpc::SIZE,
                regs::qpc_base_lo::OFFSET,
                regs::qpc_base_hi::OFFSET,
                Some(regs::qpc_log_entries::OFFSET),
            ),
            (log_qp, qps::SIZE, regs::qps_base_lo::OFFSET, regs::qps_base_hi::OFFSET, None),
            (log_qp, resource::QP_BYTES, regs::replay_base_lo::OFFSET, regs::replay_base_hi::OFFSET, None),
            (
                log_cq,
                cqc::SIZE,
                regs::cqc_base_lo::OFFSET,
                regs::cqc_base_hi::OFFSET,
                Some(regs::cqc_log_entries::OFFSET),
            ),
            (
                log_mpt,
                mpt::SIZE,
                regs::mpt_base_lo::OFFSET,
                regs::mpt_base_hi::OFFSET,
                Some(regs::mpt_log_entries::OFFSET),
            ),
            (
                log_mtt,
                mtt::SIZE,
                regs::mtt_base_lo::OFFSET,
                regs::mtt_base_hi::OFFSET,
                Some(regs::mtt_log_entries::OFFSET),
            ),
            (log_ah, ah::SIZE, regs::ah_base_lo::OFFSET, regs::ah_base_hi::OFFSET, Some(regs::ah_log_entries::OFFSET)),
            // the counter window's image, one entry (a page: 512-byte aligned)
            (0, COUNTER_BYTES, regs::counters_base_lo::OFFSET, regs::counters_base_hi::OFFSET, None),
        ];
        for (log, entry, lo, hi, log_reg) in specs {
            let region = match hw.alloc_dma(entry << log) {
                Ok(r) => r,
                Err(e) => {
                    for t in &tables {
                        let _ = hw.free_dma(&t.region);
                    }
                    return Err(e.into());
                }
            };
            tables.push(Table { region, log, entry });
            hw.write32(lo, region.iova as u32)?;
            hw.write32(hi, (region.iova >> 32) as u32)?;
            if let Some(log_reg) = log_reg {
                hw.write32(log_reg, log)?;
            }
        }
        hw.write32(regs::ctrl::OFFSET, regs::ctrl::ENABLE.encode(1)?)?;
        if let Err(e) = wait_ready(hw.as_mut()) {
            let _ = hw.write32(regs::ctrl::OFFSET, 0);
            for t in &tables {
                let _ = hw.free_dma(&t.region);
            }
            return Err(e);
        }
        let [qpc_t, qps_t, replay_t, cqc_t, mpt_t, mtt_t, ah_t, cnt_t] =
            [tables[0], tables[1], tables[2], tables[3], tables[4], tables[5], tables[6], tables[7]];
        // QP 0 and 1 are reserved (QP1, the GSI, comes with connection management).
        let qpn = Pool::new(Resource::Qp, 2, 1 << log_qp);
        attr.max_qp = qpn.capacity();
        attr.max_cq = 1 << log_cq;
        attr.max_mr = 1 << log_mpt;
        attr.max_mtt = 1 << log_mtt;
        attr.max_ah = 1 << log_ah;
        // Vector 0 is the events interrupt (`irq_events` resets to 0).
        let vectors = Pool::new(Resource::Vector, 1, attr.irq_vectors.into());
        let alloc = Allocators {
            qpn,
            cqn: Pool::new(Resource::Cq, 0, attr.max_cq),
            mpt: KeySlots::new(log_mpt),
            mtt: Runs::new(Resource::Mtt, attr.max_mtt),
            ah: Pool::new(Resource::Ah, 0, attr.max_ah),
            pd: Pool::pds(),
            vectors,
        };
        let mut gids = vec![None; GID_TABLE_LEN];
        gids[0] = Some(link_local_gid(attr.mac));
        let shared = Shared {
            hw: RefCell::new(hw),
            attr,
            tables: Tables {
                qpc: qpc_t,
                qps: qps_t,
                replay: replay_t,
                cqc: cqc_t,
                mpt: mpt_t,
                mtt: mtt_t,
                ah: ah_t,
                counters: cnt_t,
            },
            alloc: RefCell::new(alloc),
            gids: RefCell::new(gids),
            teardown: RefCell::new(Vec::new()),
        };
        Ok(Context { shared: Rc::new(shared) })
    }

    /// The device's attributes (`ibv_query_device`).
    pub fn query_device(&self) -> DeviceAttr {
        self.shared.attr
    }

    /// The port's attributes (`ibv_query_port`); the device has port 1.
    pub fn query_port(&self, port: u8) -> Result<PortAttr> {
        if port != 1 {
            return Err(Error::BadPort { port });
        }
        let status = self.shared.hw()?.read32(regs::status::OFFSET)?;
        let up = regs::status::LINK_UP.get(status) == 1;
        Ok(PortAttr {
            state: if up { PortState::Active } else { PortState::Down },
            speed_gbps: if up { regs::status::LINK_GBPS.get(status) } else { 0 },
            max_mtu: Mtu::Mtu4096,
            gid_tbl_len: GID_TABLE_LEN as u32,
            pkey_tbl_len: 1,
        })
    }

    /// GID `index` of the port (`ibv_query_gid`). Index 0 is the link-local
    /// address derived from the MAC in `id_mac_*`; others are what
    /// [`Context::set_gid`] put there.
    pub fn query_gid(&self, port: u8, index: u32) -> Result<Gid> {
        if port != 1 {
            return Err(Error::BadPort { port });
        }
        self.shared.gid(index)
    }

    /// Sets GID `index` (1 and up): the port's IP addresses are the
    /// application's to configure, as a netdev's are on Linux.
    pub fn set_gid(&self, index: u32, gid: Gid) -> Result<()> {
        let mut gids = self.shared.gids.borrow_mut();
        match gids.get_mut(index as usize) {
            Some(slot) if index > 0 => {
                *slot = Some(gid);
                Ok(())
            }
            _ => Err(Error::TooLarge {
                what: "settable GID index",
                requested: index.into(),
                max: GID_TABLE_LEN as u64 - 1,
            }),
        }
    }

    /// Reads and clears the `events` register: what went wrong on the
    /// device since the last call, and the queue `events_queue` names.
    pub fn take_events(&self) -> Result<(u32, u32)> {
        let mut hw = self.shared.hw()?;
        let events = hw.read32(regs::events::OFFSET)?;
        let queue = regs::events_queue::QUEUE.get(hw.read32(regs::events_queue::OFFSET)?);
        if events != 0 {
            hw.write32(regs::events::OFFSET, events)?;
        }
        Ok((events, queue))
    }

    /// Failures of destructors (a context command refused while a QP, CQ or
    /// memory region was dropped), which `Drop` cannot return. Taking them
    /// empties the list.
    pub fn take_teardown_errors(&self) -> Vec<Error> {
        std::mem::take(&mut *self.shared.teardown.borrow_mut())
    }

    /// Entries of `resource` in use (MTT: pages mapped), so a test or a
    /// tool sees that dropped objects gave theirs back.
    pub fn in_use(&self, resource: Resource) -> u32 {
        let a = self.shared.alloc.borrow();
        match resource {
            Resource::Qp => a.qpn.in_use(),
            Resource::Cq => a.cqn.in_use(),
            Resource::Mpt => a.mpt.in_use(),
            Resource::Mtt => a.mtt.capacity() - a.mtt.free_total(),
            Resource::Ah => a.ah.in_use(),
            Resource::Pd => a.pd.in_use(),
            Resource::Vector => a.vectors.in_use(),
            Resource::Gid => self.shared.gids.borrow().iter().filter(|g| g.is_some()).count() as u32,
        }
    }

    /// IOVA of a context table and its log2 entries, for tests and tools
    /// that look at what the device reads.
    pub fn table_base(&self, table: ContextTable) -> (u64, u32) {
        let t = match table {
            ContextTable::Qp => &self.shared.tables.qpc,
            ContextTable::Cq => &self.shared.tables.cqc,
            ContextTable::Mpt => &self.shared.tables.mpt,
            ContextTable::Mtt => &self.shared.tables.mtt,
            ContextTable::Ah => &self.shared.tables.ah,
            ContextTable::Counters => &self.shared.tables.counters,
        };
        (t.region.iova, t.log)
    }

    /// Every counter (`regs::cnt_*`), through one context command: a Store
    /// on `ContextTable::Counters` writes the counter window into host
    /// memory, read from there. Each counter is exact; the window is not
    /// one instant (the device writes it over a few hundred cycles).
    pub fn query_counters(&self) -> Result<Counters> {
        // one command: the device writes the whole window into host memory
        // (two MMIO reads per counter otherwise)
        self.shared.ctx_cmd(ContextOp::Store, ContextTable::Counters, 0)?;
        let mut window = [0u8; COUNTER_BYTES];
        let t = &self.shared.tables.counters;
        self.shared.hw()?.dma_read(&t.region, 0, &mut window)?;
        let mut c = Counters::default();
        for (v, offset) in c.fields_mut() {
            let at = (offset - regs::COUNTER_WINDOW.start) as usize;
            *v = u64::from_le_bytes(window[at..at + 8].try_into().expect("8 bytes"));
        }
        Ok(c)
    }

    /// Runs `f` with the hardware layer: an escape hatch for tools and tests
    /// (read a counter, look at memory). Calls on this context from inside
    /// `f` fail with [`Error::Reentrant`].
    pub fn with_hw<T>(&self, f: impl FnOnce(&mut dyn Hw) -> T) -> Result<T> {
        Ok(f(self.shared.hw()?.as_mut()))
    }
}

/// The device's frame and drop counters, one field per counter register of
/// the contract (`regs::cnt_*`, 64 bits, cleared only by a reset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Received RoCEv2 frames handed to the transport (`cnt_roce`).
    pub rx_roce: u64,
    /// Received frames that are not RoCEv2 (`cnt_raw`).
    pub rx_raw: u64,
    /// Received frames dropped by a header check (`cnt_malformed`).
    pub rx_malformed: u64,
    /// Received frames dropped for a bad ICRC (`cnt_icrc`).
    pub rx_icrc: u64,
    /// Received frames dropped for a bad IPv4 header checksum (`cnt_ip_csum`).
    pub rx_ip_csum: u64,
    /// Received frames the MAC flagged (`cnt_mac_err`).
    pub rx_mac_err: u64,
    /// Raw frames no raw ring took (`cnt_raw_drop`).
    pub rx_raw_drop: u64,
    /// Frames the MAC receive FIFO dropped because it was full (`cnt_rx_fifo_drop`).
    pub rx_fifo_drop: u64,
    /// Frames sent (`cnt_tx_frames`).
    pub tx_frames: u64,
    /// Bytes sent, Ethernet header to ICRC (`cnt_tx_bytes`).
    pub tx_bytes: u64,
    /// Packets dropped because their QP's context could not be read (`cnt_ctx_fail`).
    pub drop_ctx_fail: u64,
    /// Packets for a QP in RESET or INIT (`cnt_qp_not_ready`).
    pub drop_qp_not_ready: u64,
    /// Packets for a QP in ERR (`cnt_qp_error`).
    pub drop_qp_error: u64,
    /// Packets for no QP (`cnt_bad_qpn`).
    pub drop_bad_qpn: u64,
    /// Packets of another transport than the QP's (`cnt_wrong_qp_type`).
    pub drop_wrong_qp_type: u64,
    /// Responses for a QP whose requester is not running (`cnt_response_unexpected`).
    pub drop_response_unexpected: u64,
    /// Packets for a QP with an unknown state or type (`cnt_bad_context`).
    pub drop_bad_context: u64,
    /// Duplicate requests: a SEND or WRITE ACKed again, a READ or atomic
    /// looked up in the replay table (one not found is also a silent drop)
    /// (`cnt_dup_requests`).
    pub dup_requests: u64,
    /// Requests dropped without a response (`cnt_silent_drops`).
    pub silent_drops: u64,
    /// RNR NAKs sent (`cnt_rnr_naks`).
    pub rnr_naks: u64,
    /// NAKs sent by AETH code: PSN sequence error, invalid request, remote
    /// access error, remote operational error (`cnt_nak_*`).
    pub naks: [u64; 4],
    /// Responses dropped as ghosts: a PSN not outstanding, a reserved AETH
    /// syndrome (`cnt_ghost_responses`).
    pub ghost_responses: u64,
    /// Responses dropped because the QP's completer is in error (`cnt_comp_error_drops`).
    pub comp_error_drops: u64,
    /// RNR NAKs received (`cnt_rnr_naks_received`).
    pub rnr_naks_received: u64,
    /// PSN sequence error NAKs received (`cnt_nak_psn_seq_received`).
    pub nak_psn_seq_received: u64,
    /// Fatal NAKs received (`cnt_naks_fatal_received`).
    pub naks_fatal_received: u64,
    /// Go-back-N restarts asked of the requester (`cnt_go_back_n`).
    pub go_back_n: u64,
    /// Send WQEs the in-flight table refused: must stay 0 (`cnt_push_refused`).
    pub push_refused: u64,
    /// Local ACK timeouts that resent or failed the QP (`cnt_retry_timeouts`).
    pub retry_timeouts: u64,
    /// Packets whose P_Key did not match their QP's (`cnt_bad_pkey`).
    pub drop_bad_pkey: u64,
    /// Pause requests of the MAC receive FIFO (`cnt_rx_pause`).
    pub rx_pause: u64,
    /// Frames the MAC's address filter refused: another station's unicast
    /// address (`cnt_rx_not_mine`).
    pub rx_not_mine: u64,
}

impl Counters {
    /// Each field with its register's offset.
    fn fields_mut(&mut self) -> [(&mut u64, u32); regs::COUNTERS as usize] {
        let [n0, n1, n2, n3] = &mut self.naks;
        [
            (&mut self.rx_roce, regs::cnt_roce::OFFSET),
            (&mut self.rx_raw, regs::cnt_raw::OFFSET),
            (&mut self.rx_malformed, regs::cnt_malformed::OFFSET),
            (&mut self.rx_icrc, regs::cnt_icrc::OFFSET),
            (&mut self.rx_ip_csum, regs::cnt_ip_csum::OFFSET),
            (&mut self.rx_mac_err, regs::cnt_mac_err::OFFSET),
            (&mut self.rx_raw_drop, regs::cnt_raw_drop::OFFSET),
            (&mut self.rx_fifo_drop, regs::cnt_rx_fifo_drop::OFFSET),
            (&mut self.tx_frames, regs::cnt_tx_frames::OFFSET),
            (&mut self.tx_bytes, regs::cnt_tx_bytes::OFFSET),
            (&mut self.drop_ctx_fail, regs::cnt_ctx_fail::OFFSET),
            (&mut self.drop_qp_not_ready, regs::cnt_qp_not_ready::OFFSET),
            (&mut self.drop_qp_error, regs::cnt_qp_error::OFFSET),
            (&mut self.drop_bad_qpn, regs::cnt_bad_qpn::OFFSET),
            (&mut self.drop_wrong_qp_type, regs::cnt_wrong_qp_type::OFFSET),
            (&mut self.drop_response_unexpected, regs::cnt_response_unexpected::OFFSET),
            (&mut self.drop_bad_context, regs::cnt_bad_context::OFFSET),
            (&mut self.dup_requests, regs::cnt_dup_requests::OFFSET),
            (&mut self.silent_drops, regs::cnt_silent_drops::OFFSET),
            (&mut self.rnr_naks, regs::cnt_rnr_naks::OFFSET),
            (n0, regs::cnt_nak_psn_seq::OFFSET),
            (n1, regs::cnt_nak_invalid_request::OFFSET),
            (n2, regs::cnt_nak_remote_access::OFFSET),
            (n3, regs::cnt_nak_remote_op::OFFSET),
            (&mut self.ghost_responses, regs::cnt_ghost_responses::OFFSET),
            (&mut self.comp_error_drops, regs::cnt_comp_error_drops::OFFSET),
            (&mut self.rnr_naks_received, regs::cnt_rnr_naks_received::OFFSET),
            (&mut self.nak_psn_seq_received, regs::cnt_nak_psn_seq_received::OFFSET),
            (&mut self.naks_fatal_received, regs::cnt_naks_fatal_received::OFFSET),
            (&mut self.go_back_n, regs::cnt_go_back_n::OFFSET),
            (&mut self.push_refused, regs::cnt_push_refused::OFFSET),
            (&mut self.retry_timeouts, regs::cnt_retry_timeouts::OFFSET),
            (&mut self.drop_bad_pkey, regs::cnt_bad_pkey::OFFSET),
            (&mut self.rx_pause, regs::cnt_rx_pause::OFFSET),
            (&mut self.rx_not_mine, regs::cnt_rx_not_mine::OFFSET),
        ]
    }
}

// every counter register of the contract has its field
const _: () = assert!(regs::COUNTERS == 35);
