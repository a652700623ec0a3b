//! The driver's simulator backend: `rnic_driver::hw::Hw` over a Verilated
//! NIC behind the host model: the host side alone (`HostIf` in a
//! [`HostBench`], the transport played by the test) or a whole core among
//! others on a wire ([`crate::sim_net::SimNet`]). Each is a [`SimWorld`]:
//! every NIC's clock runs whenever any driver waits.
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
use rnic_sim::Model;
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
/// Cycles a register read may wait for the device's answer.
const READ_LIMIT: u64 = 100_000;

/// What a driver backend runs: NICs (each a [`HostBench`] with its own host)
/// on one clock.
pub trait SimWorld {
    type Dut: Model;
    /// NIC `nic`'s bench.
    fn bench(&mut self, nic: usize) -> &mut HostBench<Self::Dut>;
    fn bench_ref(&self, nic: usize) -> &HostBench<Self::Dut>;
    /// One clock cycle of everything.
    fn step(&mut self);
}

/// One bench alone: the host side, the transport played by the test.
impl<D: Model> SimWorld for HostBench<D> {
    type Dut = D;
    fn bench(&mut self, nic: usize) -> &mut HostBench<D> {
        assert_eq!(nic, 0, "a lone bench is NIC 0");
        self
    }
    fn bench_ref(&self, nic: usize) -> &HostBench<D> {
        assert_eq!(nic, 0, "a lone bench is NIC 0");
        self
    }
    fn step(&mut self) {
        HostBench::step(self)
    }
}

/// What the backend keeps per NIC beside the bench.
struct NicState {
    regions: BTreeMap<u64, DmaRegion>,
    next_iova: u64,
    irq_seen: usize,
    pending: HashMap<u16, u32>,
    writes: Vec<(u32, u32, u64)>,
}

impl NicState {
    fn take_deliveries<D: Model>(&mut self, bench: &HostBench<D>) {
        for d in &bench.irqs[self.irq_seen..] {
            *self.pending.entry(d.vector).or_default() += 1;
        }
        self.irq_seen = bench.irqs.len();
    }
}

/// The driver's view: a `Hw` over NIC `nic` of a simulated world.
pub struct SimHw<W: SimWorld = HostBench> {
    world: Rc<RefCell<W>>,
    nic: usize,
    st: Rc<RefCell<NicState>>,
}

/// The test's view of the same NIC.
pub struct SimProbe<W: SimWorld = HostBench> {
    world: Rc<RefCell<W>>,
    nic: usize,
    st: Rc<RefCell<NicState>>,
}

impl<W: SimWorld> Clone for SimProbe<W> {
    fn clone(&self) -> Self {
        SimProbe { world: self.world.clone(), nic: self.nic, st: self.st.clone() }
    }
}

impl SimHw {
    /// A fresh `HostIf` model behind a Gen3 x16 host model, out of reset.
    pub fn new(seed: u64) -> (SimHw, SimProbe) {
        let bench = HostBench::new(PcieConfig::gen3_x16(), seed);
        SimHw::attach(Rc::new(RefCell::new(bench)), 0)
    }
}

impl<W: SimWorld> SimHw<W> {
    /// The backend of NIC `nic` of `world`, and the test's probe of it.
    pub fn attach(world: Rc<RefCell<W>>, nic: usize) -> (SimHw<W>, SimProbe<W>) {
        let st = NicState {
            regions: BTreeMap::new(),
            next_iova: IOVA_BASE,
            irq_seen: 0,
            pending: HashMap::new(),
            writes: Vec::new(),
        };
        let st = Rc::new(RefCell::new(st));
        (SimHw { world: world.clone(), nic, st: st.clone() }, SimProbe { world, nic, st })
    }
}

impl<W: SimWorld> Hw for SimHw<W> {
    fn name(&self) -> String {
        "sim".into()
    }

    fn read32(&mut self, offset: u32) -> Result<u32, HwError> {
        let mut w = self.world.borrow_mut();
        let back = w.bench(self.nic).issue_read(offset);
        let start = w.bench_ref(self.nic).now();
        loop {
            let b = w.bench_ref(self.nic);
            if let Some(v) = b.read_value().filter(|_| b.now() >= back) {
                return Ok(v);
            }
            assert!(b.now() - start < READ_LIMIT, "register read {offset:#x}: no answer after {READ_LIMIT} cycles");
            w.step();
        }
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), HwError> {
        let mut w = self.world.borrow_mut();
        let b = w.bench(self.nic);
        self.st.borrow_mut().writes.push((offset, value, b.now()));
        b.write32(offset, value);
        Ok(())
    }

    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, HwError> {
        let mut s = self.st.borrow_mut();
        let mut w = self.world.borrow_mut();
        let b = w.bench(self.nic);
        let len = page_round(len).ok_or(HwError::NoMemory { len })?;
        let iova = s.next_iova;
        let phys = iova + PHYS_OFFSET;
        b.port
            .host
            .iommu
            .map(iova, len as u64, phys, Perms::RW)
            .map_err(|e| HwError::Unusable { reason: format!("IOMMU map: {e:?}") })?;
        b.port.host.memory.write(phys, &vec![0; len]);
        s.next_iova += (len + PAGE_SIZE) as u64;
        let region = DmaRegion { id: iova, iova, va: iova, len };
        s.regions.insert(iova, region);
        Ok(region)
    }

    fn free_dma(&mut self, region: &DmaRegion) -> Result<(), HwError> {
        let mut s = self.st.borrow_mut();
        if s.regions.get(&region.id) != Some(region) {
            return Err(HwError::OutOfRange { region: region.id, offset: 0, len: region.len });
        }
        self.world
            .borrow_mut()
            .bench(self.nic)
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
        if self.st.borrow().regions.get(&region.id) != Some(region) {
            return Err(HwError::OutOfRange { region: region.id, offset, len: data.len() });
        }
        let mut w = self.world.borrow_mut();
        w.bench(self.nic).port.host.memory.write(region.iova + PHYS_OFFSET + offset as u64, data);
        Ok(())
    }

    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) -> Result<(), HwError> {
        check_range(region, offset, buf.len())?;
        if self.st.borrow().regions.get(&region.id) != Some(region) {
            return Err(HwError::OutOfRange { region: region.id, offset, len: buf.len() });
        }
        let w = self.world.borrow();
        w.bench_ref(self.nic).port.host.memory.read(region.iova + PHYS_OFFSET + offset as u64, buf);
        Ok(())
    }

    fn wait_irq(&mut self, vector: u16, timeout: Duration) -> Result<bool, HwError> {
        let count = self.vectors();
        if vector >= count {
            return Err(HwError::BadVector { vector, count });
        }
        let mut s = self.st.borrow_mut();
        let mut w = self.world.borrow_mut();
        let deadline = w.bench_ref(self.nic).now() + (timeout.as_nanos() as u64).div_ceil(CYCLE_NS);
        loop {
            s.take_deliveries(w.bench_ref(self.nic));
            if let Some(n) = s.pending.get_mut(&vector).filter(|n| **n > 0) {
                *n -= 1;
                return Ok(true);
            }
            if w.bench_ref(self.nic).now() >= deadline {
                return Ok(false);
            }
            w.step();
        }
    }

    fn vectors(&self) -> u16 {
        rnic_hw::consts::IRQ_VECTORS as u16
    }

    fn relax(&mut self) {
        let mut w = self.world.borrow_mut();
        for _ in 0..RELAX_CYCLES {
            w.step();
        }
    }

    fn now(&mut self) -> Duration {
        Duration::from_nanos(self.world.borrow().bench_ref(self.nic).now() * CYCLE_NS)
    }
}

impl<W: SimWorld> SimProbe<W> {
    /// Runs `f` on the bench (the transport's side, the host model).
    pub fn with<T>(&self, f: impl FnOnce(&mut HostBench<W::Dut>) -> T) -> T {
        f(self.world.borrow_mut().bench(self.nic))
    }

    /// Runs the clock until `done` holds; panics after `limit` cycles.
    pub fn run_until(&self, limit: u64, what: &str, mut done: impl FnMut(&HostBench<W::Dut>) -> bool) {
        let mut w = self.world.borrow_mut();
        let start = w.bench_ref(self.nic).now();
        while !done(w.bench_ref(self.nic)) {
            assert!(w.bench_ref(self.nic).now() - start < limit, "{what}: not done after {limit} cycles");
            w.step();
        }
    }

    /// Bytes at `iova` in host memory, as the CPU sees them.
    pub fn read_iova(&self, iova: u64, len: usize) -> Vec<u8> {
        self.world.borrow().bench_ref(self.nic).port.host.memory.read_vec(iova + PHYS_OFFSET, len)
    }

    /// Every register write the driver made: (offset, value, cycle issued).
    pub fn register_writes(&self) -> Vec<(u32, u32, u64)> {
        self.st.borrow().writes.clone()
    }

    /// DMA regions allocated and not freed.
    pub fn regions(&self) -> usize {
        self.st.borrow().regions.len()
    }

    /// The current cycle.
    pub fn now(&self) -> u64 {
        self.world.borrow().bench_ref(self.nic).now()
    }
}
