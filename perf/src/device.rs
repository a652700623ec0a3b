//! Opening the device the `-d` option names, with a clock the measurement
//! loops read: the simulator's own clock on the simulator (wall time would
//! measure the simulation), the monotonic clock on a board.

use crate::options::DeviceSel;
use crate::run::PerfError;
use rnic_driver::hw::{DmaRegion, Hw, HwError, PciIds};
use rnic_driver::{Context, Device};
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

/// Seed of the simulator's host model.
pub const SIM_SEED: u64 = 1;
/// The simulator's device name, as the tools print it.
pub const SIM_NAME: &str = "rnic_sim";

/// The device clock as of the driver's last access to the device.
#[derive(Clone, Default)]
pub struct Clock(Rc<Cell<Duration>>);

impl Clock {
    /// Nanoseconds on the device's clock.
    pub fn now_ns(&self) -> u64 {
        self.0.get().as_nanos() as u64
    }
}

/// A backend that stamps the clock after every access that can wait: a
/// register read, a DMA read (CQ polling), a relax, an interrupt wait.
pub struct Clocked<H> {
    inner: H,
    clock: Clock,
}

impl<H: Hw> Clocked<H> {
    /// Wraps `inner`; returns the clock handle with it.
    pub fn new(mut inner: H) -> (Clocked<H>, Clock) {
        let clock = Clock::default();
        clock.0.set(inner.now());
        (Clocked { inner, clock: clock.clone() }, clock)
    }

    fn stamp(&mut self) {
        self.clock.0.set(self.inner.now());
    }
}

impl<H: Hw> Hw for Clocked<H> {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn read32(&mut self, offset: u32) -> Result<u32, HwError> {
        let r = self.inner.read32(offset);
        self.stamp();
        r
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), HwError> {
        self.inner.write32(offset, value)
    }
    fn read64(&mut self, offset: u32) -> Result<u64, HwError> {
        let r = self.inner.read64(offset);
        self.stamp();
        r
    }
    fn write64(&mut self, offset: u32, value: u64) -> Result<(), HwError> {
        self.inner.write64(offset, value)
    }
    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, HwError> {
        self.inner.alloc_dma(len)
    }
    fn free_dma(&mut self, region: &DmaRegion) -> Result<(), HwError> {
        self.inner.free_dma(region)
    }
    fn dma_write(&mut self, region: &DmaRegion, offset: usize, data: &[u8]) -> Result<(), HwError> {
        self.inner.dma_write(region, offset, data)
    }
    fn dma_read(&mut self, region: &DmaRegion, offset: usize, buf: &mut [u8]) -> Result<(), HwError> {
        let r = self.inner.dma_read(region, offset, buf);
        self.stamp();
        r
    }
    fn wait_irq(&mut self, vector: u16, timeout: Duration) -> Result<bool, HwError> {
        let r = self.inner.wait_irq(vector, timeout);
        self.stamp();
        r
    }
    fn vectors(&self) -> u16 {
        self.inner.vectors()
    }
    fn relax(&mut self) {
        self.inner.relax();
        self.stamp();
    }
    fn now(&mut self) -> Duration {
        self.stamp();
        self.clock.0.get()
    }
    fn pci_ids(&self) -> Option<PciIds> {
        self.inner.pci_ids()
    }
}

/// An open device: the context, its name as the tools print it, its clock.
pub struct Opened {
    /// The verbs context.
    pub ctx: Context,
    /// `rnic_sim`, `rnic_0000:01:00.0`.
    pub name: String,
    /// The device clock.
    pub clock: Clock,
    /// What keeps the device running while the tool waits on its peer
    /// elsewhere (the TCP exchange): a simulated NIC on a socket wire runs
    /// only while it is driven, and the peer's packets need answers.
    pub idle: Option<Box<dyn FnMut()>>,
    /// The simulated wire's counts, for a line on stderr at the end.
    pub wire: Option<Box<dyn Fn() -> String>>,
}

/// Wall time a simulated NIC on a socket wire runs per idle call, in
/// steps of [`IDLE_CYCLES`].
#[cfg(feature = "sim")]
pub const IDLE_SLICE: Duration = Duration::from_millis(1);
/// Cycles between two looks at the clock while idle.
#[cfg(feature = "sim")]
pub const IDLE_CYCLES: u64 = 64;

/// Opens the simulator (a fresh Verilated host side behind the host model)
/// or the board at a PCI address through VFIO.
pub fn open(sel: &DeviceSel) -> Result<Opened, PerfError> {
    // set by the socket wire only (assigned in the `sim` build alone)
    #[cfg_attr(not(feature = "sim"), allow(unused_mut))]
    let mut idle: Option<Box<dyn FnMut()>> = None;
    #[cfg_attr(not(feature = "sim"), allow(unused_mut))]
    let mut wire: Option<Box<dyn Fn() -> String>> = None;
    let (device, name, clock) = match sel {
        #[cfg(feature = "sim")]
        DeviceSel::Sim => {
            let (hw, _probe) = rnic_tb::driver_hw::SimHw::new(SIM_SEED);
            let (hw, clock) = Clocked::new(hw);
            (Device::from_hw(hw), SIM_NAME.to_string(), clock)
        }
        #[cfg(feature = "sim")]
        DeviceSel::SimWire { local, peer, mac, .. } => {
            let net = rnic_tb::sock_net::SockNet::bind(local, peer, *mac, SIM_SEED)
                .map_err(|e| PerfError::Output(format!("{}: {e}", local.display())))?;
            let (hw, _probe) = rnic_tb::driver_hw::SimHw::attach(net.clone(), 0);
            let (hw, clock) = Clocked::new(hw);
            let n = net.clone();
            wire = Some(Box::new(move || n.borrow().summary()));
            idle = Some(Box::new(move || {
                let start = std::time::Instant::now();
                while start.elapsed() < IDLE_SLICE {
                    net.borrow_mut().idle(IDLE_CYCLES);
                }
            }));
            (Device::from_hw(hw), SIM_NAME.to_string(), clock)
        }
        #[cfg(not(feature = "sim"))]
        DeviceSel::Sim | DeviceSel::SimWire { .. } => return Err(PerfError::NoSimulator),
        DeviceSel::Pci(bdf) => {
            let hw = rnic_driver::hw::vfio::VfioHw::open(rnic_driver::hw::vfio::LibcSys, bdf)
                .map_err(rnic_driver::Error::from)?;
            let (hw, clock) = Clocked::new(hw);
            (Device::from_hw(hw), format!("rnic_{bdf}"), clock)
        }
    };
    let ctx = device.open()?;
    if let DeviceSel::SimWire { ip, .. } = sel {
        ctx.set_gid(1, rnic_driver::ipv4_gid(*ip))?;
    }
    Ok(Opened { ctx, name, clock, idle, wire })
}
