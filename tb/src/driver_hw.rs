//! The driver's simulator backend: `rnic_driver::hw::Hw` over the Verilated
//! host side (`HostIf`) behind the host model, built from [`HostBench`].
//!
//! * Registers go through the AXI4-Lite port with the host model's MMIO
//!   latencies (a write is posted, a read waits its round trip, in order).
//! * DMA memory is the host model's memory, mapped through its IOMMU in
//!   strict mode (a device access outside a mapping fails the test), at
//!   IOVAs from [`IOVA_BASE`], zeroed when allocated.
//! * Interrupts are the MSI-X deliveries of the host model's table.
//! * Time is the model's clock: it runs while the driver reads a register,
//!   waits for an interrupt or relaxes in a polling loop, and only then.
//!
//! The bench stays reachable through a [`SimProbe`] (the transport's side:
//! the WQEs the device fetched, CQEs to inject, every register write), so a
//! test hands the `SimHw` to the driver and keeps the probe.

use crate::host_bench::HostBench;
use rnic_driver::hw::{check_range, page_round, DmaRegion, Hw, HwError, PAGE_SIZE};
use rnic_host::{PcieConfig, Perms, CYCLE_NS};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::time::Duration;

/// First IOVA the backend hands out (clear of the bench's own tables).
pub const IOVA_BASE: u64 = 0x40_0000_0000;
/// Host-physical address = IOVA + this: the IOMMU really translates.
pub const PHYS_OFFSET: u64 = 1 << 44;
/// Cycles one `relax` runs the clock: a CPU spin turn against a 250 MHz core.
pub const RELAX_CYCLES: u64 = 16;

struct State {
    bench: HostBench,
    regions: BTreeMap<u64, DmaRegion>,
    next_iova: u64,
    irq_seen: usize,
    pending: HashMap<u16, u32>,
    writes: Vec<(u32, u32, u64)>,
}

impl State {
    fn take_deliveries(&mut self) {
        for d in &self.bench.irqs[self.irq_seen..] {
            *self.pending.entry(d.vector).or_default() += 1;
        }
        self.irq_seen = self.bench.irqs.len();
    }
}

/// The driver's view: a `Hw` over the simulated host side.
pub struct SimHw(Rc<RefCell<State>>);

/// The test's view of the same bench.
#[derive(Clone)]
pub struct SimProbe(Rc<RefCell<State>>);

impl SimHw {
    /// A fresh `HostIf` model behind a Gen3 x16 host model, out of reset.
    pub fn new(seed: u64) -> (SimHw, SimProbe) {
        let bench = HostBench::new(PcieConfig::gen3_x16(), seed);
        let state = State {
            bench,
            regions: BTreeMap::new(),
            next_iova: IOVA_BASE,
            irq_seen: 0,
            pending: HashMap::new(),
            writes: Vec::new(),
        };
        let rc = Rc::new(RefCell::new(state));
        (SimHw(rc.clone()), SimProbe(rc))
    }
}

impl Hw for SimHw {
    fn name(&self) -> String {
        "sim".into()
    }

    fn read32(&mut self, offset: u32) -> Result<u32, HwError> {
        Ok(self.0.borrow_mut().bench.read32(offset))
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), HwError> {
        let mut s = self.0.borrow_mut();
        let now = s.bench.now();
        s.writes.push((offset, value, now));
        s.bench.write32(offset, value);
        Ok(())
    }

    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, HwError> {
        let mut s = self.0.borrow_mut();
        let len = page_round(len).ok_or(HwError::NoMemory { len })?;
        let iova = s.next_iova;
        let phys = iova + PHYS_OFFSET;
        s.bench
            .port
            .host
            .iommu
            .map(iova, len as u64, phys, Perms::RW)
            .map_err(|e| HwError::Unusable { reason: format!("IOMMU map: {e:?}") })?;
        s.bench.port.host.memory.write(phys, &vec![0; len]);
        s.next_iova += (len + PAGE_SIZE) as u64;
        let region = DmaRegion { id: iova, iova, va: iova, len };
        s.regions.insert(iova, region);
        Ok(region)
    }

    fn free_dma(&mut self, region: &DmaRegion) -> Result<(), HwError> {
        let mut s = self.0.borrow_mut();
        if s.regions.get(&region.id) != Some(region) {
            return Err(HwError::OutOfRange { region: region.id, offset: 0, len: region.len });
        }
        s.bench
            .port
            .host
            .iommu
            .unmap(region.iova)
            .map_err(|e| HwError::Unusable { reason: format!("IOMMU unmap: {e:?}") })?;
        s.regions.remove(&region.id);
        Ok(())
    }

    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) -> Result<(), HwError> {
        check_range(region, offset, data.len())?;
        let mut s = self.0.borrow_mut();
        if s.regions.get(&region.id) != Some(region) {
            return Err(HwError::OutOfRange { region: region.id, offset, len: data.len() });
        }
        s.bench.port.host.memory.write(region.iova + PHYS_OFFSET + offset as u64, data);
        Ok(())
    }

    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) -> Result<(), HwError> {
        check_range(region, offset, buf.len())?;
        let s = self.0.borrow();
        if s.regions.get(&region.id) != Some(region) {
            return Err(HwError::OutOfRange { region: region.id, offset, len: buf.len() });
        }
        s.bench.port.host.memory.read(region.iova + PHYS_OFFSET + offset as u64, buf);
        Ok(())
    }

    fn wait_irq(&mut self, vector: u16, timeout: Duration) -> Result<bool, HwError> {
        let count = self.vectors();
        if vector >= count {
            return Err(HwError::BadVector { vector, count });
        }
        let mut s = self.0.borrow_mut();
        let deadline = s.bench.now() + (timeout.as_nanos() as u64).div_ceil(CYCLE_NS);
        loop {
            s.take_deliveries();
            if let Some(n) = s.pending.get_mut(&vector).filter(|n| **n > 0) {
                *n -= 1;
                return Ok(true);
            }
            if s.bench.now() >= deadline {
                return Ok(false);
            }
            s.bench.step();
        }
    }

    fn vectors(&self) -> u16 {
        rnic_hw::consts::IRQ_VECTORS as u16
    }

    fn relax(&mut self) {
        self.0.borrow_mut().bench.steps(RELAX_CYCLES);
    }

    fn now(&mut self) -> Duration {
        Duration::from_nanos(self.0.borrow().bench.now() * CYCLE_NS)
    }
}

impl SimProbe {
    /// Runs `f` on the bench (the transport's side, the host model).
    pub fn with<T>(&self, f: impl FnOnce(&mut HostBench) -> T) -> T {
        f(&mut self.0.borrow_mut().bench)
    }

    /// Runs the clock until `done` holds; panics after `limit` cycles.
    pub fn run_until(&self, limit: u64, what: &str, done: impl FnMut(&HostBench) -> bool) {
        self.0.borrow_mut().bench.until(limit, what, done);
    }

    /// Bytes at `iova` in host memory, as the CPU sees them.
    pub fn read_iova(&self, iova: u64, len: usize) -> Vec<u8> {
        self.0.borrow().bench.port.host.memory.read_vec(iova + PHYS_OFFSET, len)
    }

    /// Every register write the driver made: (offset, value, cycle issued).
    pub fn register_writes(&self) -> Vec<(u32, u32, u64)> {
        self.0.borrow().writes.clone()
    }

    /// DMA regions allocated and not freed.
    pub fn regions(&self) -> usize {
        self.0.borrow().regions.len()
    }

    /// The current cycle.
    pub fn now(&self) -> u64 {
        self.0.borrow().bench.now()
    }
}
