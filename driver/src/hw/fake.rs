//! `FakeHw`: a small software model of the device for doctests and the
//! driver's own tests, where neither a board nor the simulator is at hand.
//!
//! It models what the driver touches, following the contract: the
//! identification registers, scratch, control, events, the table bases, the
//! context commands (Load, Store, Invalidate, with `ctx_status.ERROR` for a
//! table the configured features do not cover or an index beyond the table),
//! the doorbell (decoded and logged), and a CQ engine that writes CQEs the
//! test hands it into the ring with the right owner bit and raises the CQ's
//! vector when armed. It moves no packet and fetches no WQE: tests read the
//! rings through [`FakeHandle`]. It is not the device; the simulator backend
//! in `rnic-tb` runs the real RTL.
//!
//! ```
//! use rnic_driver::hw::fake::{FakeConfig, FakeHw};
//! use rnic_driver::hw::Hw;
//! use rnic_contract::regs;
//!
//! let mut hw = FakeHw::new(FakeConfig::default());
//! assert_eq!(hw.read32(regs::id_magic::OFFSET).unwrap(), regs::id_magic::RESET);
//! hw.write32(regs::scratch::OFFSET, 7).unwrap();
//! assert_eq!(hw.read32(regs::scratch::OFFSET).unwrap(), 7);
//! ```

use super::{check_range, page_round, DmaRegion, Hw, HwError};
use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind};
use rnic_contract::layouts::{cqc, cqe, qpc};
use rnic_contract::regs::{self, Doorbell};
use rnic_contract::ring;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::time::Duration;

/// What the fake device reports about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeConfig {
    /// `id_magic`.
    pub magic: u32,
    /// `id_version`.
    pub version: u32,
    /// `id_features`.
    pub features: u32,
    /// `id_limits`.
    pub limits: u32,
    /// `irq_vectors.COUNT`.
    pub irq_vectors: u16,
    /// The port MAC (`id_mac_hi`/`id_mac_lo`), wire order.
    pub mac: [u8; 6],
    /// `status`.
    pub status: u32,
    /// Bytes of DMA memory the fake hands out before `NoMemory`.
    pub dma_bytes: usize,
}

impl Default for FakeConfig {
    /// Every feature, 1024 QPs and CQs, 256 memory regions, rings up to
    /// 2^15, 64 vectors, link up at 100 Gb/s.
    fn default() -> Self {
        let f = |field: rnic_contract::reg::Field<u32>| field.mask();
        use regs::id_features as feat;
        FakeConfig {
            magic: regs::id_magic::RESET,
            version: rnic_contract::ABI_VERSION,
            features: f(feat::RC)
                | f(feat::UC)
                | f(feat::UD)
                | f(feat::IPV6)
                | f(feat::VLAN)
                | f(feat::ATOMICS)
                | f(feat::INLINE)
                | f(feat::TRANSLATION),
            limits: regs::id_limits::LOG_MAX_QP.encode(10).unwrap_or(0)
                | regs::id_limits::LOG_MAX_CQ.encode(10).unwrap_or(0)
                | regs::id_limits::LOG_MAX_MPT.encode(8).unwrap_or(0)
                | regs::id_limits::LOG_MAX_RING.encode(rnic_contract::ring::MAX_LOG_SIZE).unwrap_or(0),
            irq_vectors: 64,
            mac: [0x02, 0x00, 0x5E, 0x10, 0x20, 0x30],
            status: regs::status::LINK_UP.mask()
                | regs::status::READY.mask()
                | regs::status::LINK_GBPS.encode(100).unwrap_or(0),
            dma_bytes: 256 << 20,
        }
    }
}

/// A context command the fake received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CtxCommand {
    /// What.
    pub op: ContextOp,
    /// Which table.
    pub table: ContextTable,
    /// Which entry.
    pub index: u32,
    /// The entries an MTT command spans (`ctx_count` at the command, 0 read
    /// as 1); 1 for the other tables.
    pub count: u32,
    /// Whether it failed (`ctx_status.ERROR`).
    pub failed: bool,
}

#[derive(Debug, Clone, Copy)]
struct FakeCq {
    ring: u64,
    log: u32,
    vector: u16,
    prod: u16,
    cons: u16,
    armed: bool,
}

#[derive(Debug, Default)]
struct State {
    config: FakeConfig,
    regs: BTreeMap<u32, u32>,
    regions: BTreeMap<u64, (DmaRegion, Vec<u8>)>,
    next_iova: u64,
    used: usize,
    doorbell_lo: Option<u32>,
    doorbells: Vec<Doorbell>,
    bad_doorbells: u64,
    commands: Vec<CtxCommand>,
    ctx_error: bool,
    fail_next_ctx: bool,
    busy_reads: u32,
    cqs: HashMap<u32, FakeCq>,
    qps: HashMap<u32, Vec<u8>>,
    pending: HashMap<u16, u32>,
    now: Duration,
    writes: Vec<(u32, u32)>,
}

/// A fake device ([module docs](self)); cheap to clone into a
/// [`FakeHandle`] that a test keeps after handing the `FakeHw` to the driver.
#[derive(Debug, Clone)]
pub struct FakeHw(Rc<RefCell<State>>);

/// The test's side of a [`FakeHw`]: inspect what the driver did, play the
/// transport (post CQEs), break things.
#[derive(Debug, Clone)]
pub struct FakeHandle(Rc<RefCell<State>>);

/// How long `relax` advances the fake's clock.
const RELAX: Duration = Duration::from_micros(1);

impl FakeHw {
    /// A device as `config` describes it, registers at their reset values.
    pub fn new(config: FakeConfig) -> Self {
        let state = State { config, next_iova: 0x1_0000_0000, ..State::default() };
        FakeHw(Rc::new(RefCell::new(state)))
    }

    /// The test's handle on the same device.
    pub fn handle(&self) -> FakeHandle {
        FakeHandle(self.0.clone())
    }
}

impl State {
    fn region_at(&self, iova: u64, len: usize) -> Option<(u64, usize)> {
        let (_, (r, _)) = self.regions.range(..=iova).next_back()?;
        let off = (iova - r.iova) as usize;
        (off + len <= r.len).then_some((r.iova, off))
    }

    fn mem_read(&self, iova: u64, len: usize) -> Option<Vec<u8>> {
        let (key, off) = self.region_at(iova, len)?;
        Some(self.regions[&key].1[off..off + len].to_vec())
    }

    fn mem_write(&mut self, iova: u64, data: &[u8]) -> bool {
        match self.region_at(iova, data.len()) {
            Some((key, off)) => {
                self.regions.get_mut(&key).expect("found above").1[off..off + data.len()].copy_from_slice(data);
                true
            }
            None => false,
        }
    }

    fn reg(&self, offset: u32) -> u32 {
        self.regs.get(&offset).copied().unwrap_or(0)
    }

    fn base(&self, lo: u32) -> u64 {
        u64::from(self.reg(lo + 4)) << 32 | u64::from(self.reg(lo))
    }

    fn table(&self, table: ContextTable) -> (u64, u32, usize) {
        use rnic_contract::layouts::{ah, mpt, mtt};
        match table {
            ContextTable::Qp => {
                (self.base(regs::qpc_base_lo::OFFSET), self.reg(regs::qpc_log_entries::OFFSET), qpc::SIZE)
            }
            ContextTable::Cq => {
                (self.base(regs::cqc_base_lo::OFFSET), self.reg(regs::cqc_log_entries::OFFSET), cqc::SIZE)
            }
            ContextTable::Mpt => {
                (self.base(regs::mpt_base_lo::OFFSET), self.reg(regs::mpt_log_entries::OFFSET), mpt::SIZE)
            }
            ContextTable::Mtt => {
                (self.base(regs::mtt_base_lo::OFFSET), self.reg(regs::mtt_log_entries::OFFSET), mtt::SIZE)
            }
            ContextTable::Ah => (self.base(regs::ah_base_lo::OFFSET), self.reg(regs::ah_log_entries::OFFSET), ah::SIZE),
            ContextTable::Counters => {
                let w = regs::COUNTER_WINDOW;
                (self.base(regs::counters_base_lo::OFFSET), 0, (w.end - w.start) as usize)
            }
        }
    }

    fn supported(&self, table: ContextTable) -> bool {
        let f = self.config.features;
        match table {
            ContextTable::Qp | ContextTable::Cq | ContextTable::Counters => true,
            ContextTable::Mpt | ContextTable::Mtt => regs::id_features::TRANSLATION.get(f) == 1,
            ContextTable::Ah => regs::id_features::UD.get(f) == 1,
        }
    }

    fn ctx_cmd(&mut self, word: u32) {
        let op = ContextOp::from_raw(regs::ctx_cmd::OP.get(word).into());
        let table = ContextTable::from_raw(regs::ctx_cmd::TABLE.get(word).into());
        let index = regs::ctx_cmd::INDEX.get(word);
        let (Some(op), Some(table)) = (op, table) else {
            self.ctx_error = true;
            return;
        };
        let count = match table {
            ContextTable::Mtt => regs::ctx_count::COUNT.get(self.reg(regs::ctx_count::OFFSET)).max(1),
            _ => 1,
        };
        let (base, log, size) = self.table(table);
        let mut failed = std::mem::take(&mut self.fail_next_ctx)
            || !self.supported(table)
            || (u64::from(index) + u64::from(count) - 1) >> log != 0
            || base == 0;
        let addr = base + u64::from(index) * size as u64;
        if !failed {
            failed = !self.execute(op, table, index, addr, size);
        }
        self.ctx_error = failed;
        self.commands.push(CtxCommand { op, table, index, count, failed });
    }

    fn execute(&mut self, op: ContextOp, table: ContextTable, index: u32, addr: u64, size: usize) -> bool {
        match (op, table) {
            (ContextOp::Load, ContextTable::Cq) => {
                let Some(e) = self.mem_read(addr, size) else { return false };
                let cq = FakeCq {
                    ring: cqc::RING_BASE.get(&e).unwrap_or(0),
                    log: cqc::LOG_SIZE.get(&e).unwrap_or(0).into(),
                    vector: cqc::MSIX_VECTOR.get(&e).unwrap_or(0),
                    prod: cqc::PROD.get(&e).unwrap_or(0),
                    cons: cqc::CONS.get(&e).unwrap_or(0),
                    armed: false,
                };
                self.cqs.insert(index, cq);
                true
            }
            (ContextOp::Load, ContextTable::Qp) => match self.mem_read(addr, size) {
                Some(e) => {
                    self.qps.insert(index, e);
                    true
                }
                None => false,
            },
            (ContextOp::Store, ContextTable::Cq) => match self.cqs.get(&index).copied() {
                Some(cq) => {
                    let Some(mut e) = self.mem_read(addr, size) else { return false };
                    let ok = cqc::PROD.set(&mut e, cq.prod).is_ok() && cqc::CONS.set(&mut e, cq.cons).is_ok();
                    ok && self.mem_write(addr, &e)
                }
                None => false,
            },
            (ContextOp::Store, ContextTable::Qp) => self.qps.contains_key(&index),
            (ContextOp::Store, ContextTable::Counters) => {
                // the window as the registers read (a counter's halves from `regs`)
                let image: Vec<u8> = regs::COUNTER_WINDOW.step_by(4).flat_map(|o| self.reg(o).to_le_bytes()).collect();
                self.mem_write(addr, &image)
            }
            (_, ContextTable::Counters) => false,
            (ContextOp::Invalidate, ContextTable::Cq) => {
                self.cqs.remove(&index);
                true
            }
            (ContextOp::Invalidate, ContextTable::Qp) => {
                self.qps.remove(&index);
                true
            }
            (ContextOp::Store, _) => false,
            _ => self.mem_read(addr, size).is_some(),
        }
    }

    fn doorbell(&mut self, word: u64) {
        let Ok(db) = Doorbell::decode(word) else {
            self.bad_doorbells += 1;
            return;
        };
        self.doorbells.push(db);
        if matches!(db.kind, DoorbellKind::CqConsumer | DoorbellKind::CqArm) {
            let Some(cq) = self.cqs.get_mut(&db.queue) else {
                self.bad_doorbells += 1;
                return;
            };
            cq.cons = db.index;
            if db.kind == DoorbellKind::CqArm {
                if cq.prod != cq.cons {
                    *self.pending.entry(cq.vector).or_default() += 1;
                } else {
                    cq.armed = true;
                }
            }
        } else if !self.qps.contains_key(&db.queue) {
            self.bad_doorbells += 1;
        }
    }
}

impl Hw for FakeHw {
    fn name(&self) -> String {
        "fake".into()
    }

    fn read32(&mut self, offset: u32) -> Result<u32, HwError> {
        let mut s = self.0.borrow_mut();
        if !offset.is_multiple_of(4) || offset >= regs::BAR0_BYTES {
            return Err(HwError::BadRegister { offset, bar_len: regs::BAR0_BYTES.into() });
        }
        let c = &s.config;
        let mac = u64::from_be_bytes([0, 0, c.mac[0], c.mac[1], c.mac[2], c.mac[3], c.mac[4], c.mac[5]]);
        let v = match offset {
            regs::id_magic::OFFSET => c.magic,
            regs::id_version::OFFSET => c.version,
            regs::id_features::OFFSET => c.features,
            regs::id_datapath::OFFSET => 64,
            regs::id_clock::OFFSET => 250,
            regs::id_limits::OFFSET => c.limits,
            regs::id_mac_lo::OFFSET => mac as u32,
            regs::id_mac_hi::OFFSET => (mac >> 32) as u32,
            regs::status::OFFSET => c.status,
            regs::irq_vectors::OFFSET => c.irq_vectors.into(),
            regs::ctx_status::OFFSET => {
                if s.busy_reads > 0 {
                    s.busy_reads -= 1;
                    regs::ctx_status::BUSY.mask()
                } else if s.ctx_error {
                    regs::ctx_status::ERROR.mask()
                } else {
                    0
                }
            }
            _ => s.reg(offset),
        };
        Ok(v)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), HwError> {
        let mut s = self.0.borrow_mut();
        if !offset.is_multiple_of(4) || offset >= regs::BAR0_BYTES {
            return Err(HwError::BadRegister { offset, bar_len: regs::BAR0_BYTES.into() });
        }
        s.writes.push((offset, value));
        match offset {
            regs::doorbell::OFFSET => s.doorbell_lo = Some(value),
            o if o == regs::doorbell::OFFSET + 4 => {
                let lo = s.doorbell_lo.take().unwrap_or(0);
                s.doorbell(u64::from(value) << 32 | u64::from(lo));
            }
            regs::ctx_cmd::OFFSET => s.ctx_cmd(value),
            // the device's masks: a 512-byte aligned base, a 24-bit count
            regs::counters_base_lo::OFFSET => {
                s.regs.insert(offset, value & !0x1FF);
            }
            regs::ctx_count::OFFSET => {
                s.regs.insert(offset, value & regs::ctx_count::COUNT.mask());
            }
            regs::events::OFFSET => {
                let v = s.reg(offset) & !value;
                s.regs.insert(offset, v);
            }
            _ => {
                s.regs.insert(offset, value);
            }
        }
        Ok(())
    }

    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, HwError> {
        let mut s = self.0.borrow_mut();
        let len = page_round(len).ok_or(HwError::NoMemory { len })?;
        if s.used + len > s.config.dma_bytes {
            return Err(HwError::NoMemory { len });
        }
        let iova = s.next_iova;
        // a guard page between regions
        s.next_iova += (len + super::PAGE_SIZE) as u64;
        s.used += len;
        let region = DmaRegion { id: iova, iova, va: iova + 0x7000_0000_0000, len };
        s.regions.insert(iova, (region, vec![0; len]));
        Ok(region)
    }

    fn free_dma(&mut self, region: &DmaRegion) -> Result<(), HwError> {
        let mut s = self.0.borrow_mut();
        match s.regions.remove(&region.iova) {
            Some((r, _)) => {
                s.used -= r.len;
                Ok(())
            }
            None => Err(HwError::OutOfRange { region: region.id, offset: 0, len: region.len }),
        }
    }

    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) -> Result<(), HwError> {
        check_range(region, offset, data.len())?;
        let mut s = self.0.borrow_mut();
        let (_, mem) = s.regions.get_mut(&region.iova).ok_or(HwError::OutOfRange {
            region: region.id,
            offset,
            len: data.len(),
        })?;
        mem[offset..offset + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) -> Result<(), HwError> {
        check_range(region, offset, buf.len())?;
        let s = self.0.borrow();
        let (_, mem) =
            s.regions.get(&region.iova).ok_or(HwError::OutOfRange { region: region.id, offset, len: buf.len() })?;
        buf.copy_from_slice(&mem[offset..offset + buf.len()]);
        Ok(())
    }

    fn wait_irq(&mut self, vector: u16, timeout: Duration) -> Result<bool, HwError> {
        let mut s = self.0.borrow_mut();
        if vector >= s.config.irq_vectors {
            return Err(HwError::BadVector { vector, count: s.config.irq_vectors });
        }
        match s.pending.get_mut(&vector) {
            Some(n) if *n > 0 => {
                *n -= 1;
                Ok(true)
            }
            _ => {
                s.now += timeout;
                Ok(false)
            }
        }
    }

    fn vectors(&self) -> u16 {
        self.0.borrow().config.irq_vectors
    }

    fn relax(&mut self) {
        self.0.borrow_mut().now += RELAX;
    }

    fn now(&mut self) -> Duration {
        self.0.borrow().now
    }
}

impl FakeHandle {
    /// The transport completes something on CQ `cqn`: the fake writes `entry`
    /// at the CQ's producer index with the owner bit `ring::owner_for`
    /// expects, advances PROD and raises the CQ's vector if it is armed.
    /// `false` when the CQ is not loaded or its ring is full.
    pub fn complete(&self, cqn: u32, mut entry: [u8; cqe::SIZE]) -> bool {
        let mut s = self.0.borrow_mut();
        let Some(cq) = s.cqs.get(&cqn).copied() else { return false };
        if ring::is_full(cq.prod, cq.cons, cq.log) {
            return false;
        }
        if cqe::OWNER.set(&mut entry, ring::owner_for(cq.prod, cq.log)).is_err() {
            return false;
        }
        let addr = cq.ring + (ring::slot(cq.prod, cq.log) * cqe::SIZE) as u64;
        if !s.mem_write(addr, &entry) {
            return false;
        }
        let c = s.cqs.get_mut(&cqn).expect("found above");
        c.prod = c.prod.wrapping_add(1);
        if std::mem::take(&mut c.armed) {
            *s.pending.entry(cq.vector).or_default() += 1;
        }
        true
    }

    /// Raises `vector` as if the device had.
    pub fn raise(&self, vector: u16) {
        *self.0.borrow_mut().pending.entry(vector).or_default() += 1;
    }

    /// Every doorbell the driver rang, decoded, in order.
    pub fn doorbells(&self) -> Vec<Doorbell> {
        self.0.borrow().doorbells.clone()
    }

    /// Doorbells the fake dropped (undecodable, or for a queue not loaded).
    pub fn bad_doorbells(&self) -> u64 {
        self.0.borrow().bad_doorbells
    }

    /// Every context command, in order.
    pub fn commands(&self) -> Vec<CtxCommand> {
        self.0.borrow().commands.clone()
    }

    /// Every register write (offset, value), in order.
    pub fn register_writes(&self) -> Vec<(u32, u32)> {
        self.0.borrow().writes.clone()
    }

    /// The next context command fails.
    pub fn fail_next_ctx(&self) {
        self.0.borrow_mut().fail_next_ctx = true;
    }

    /// `ctx_status` reads BUSY `n` more times.
    pub fn busy_for(&self, n: u32) {
        self.0.borrow_mut().busy_reads = n;
    }

    /// Bytes of device memory at `iova`, if allocated.
    pub fn read_iova(&self, iova: u64, len: usize) -> Option<Vec<u8>> {
        self.0.borrow().mem_read(iova, len)
    }

    /// The device writes `data` at `iova` (an RDMA WRITE landing, say).
    pub fn write_iova(&self, iova: u64, data: &[u8]) -> bool {
        self.0.borrow_mut().mem_write(iova, data)
    }

    /// The QP context the device loaded last for `qpn`.
    pub fn loaded_qp(&self, qpn: u32) -> Option<Vec<u8>> {
        self.0.borrow().qps.get(&qpn).cloned()
    }

    /// Bytes of DMA memory allocated and not freed.
    pub fn dma_in_use(&self) -> usize {
        self.0.borrow().used
    }

    /// DMA regions allocated and not freed.
    pub fn regions(&self) -> usize {
        self.0.borrow().regions.len()
    }
}
