//! One simulated NIC alone with its host model, opened through the real
//! driver; the peer is played by the test, which puts frames on the NIC's
//! receive MAC ([`inject`]) and reads what it sends (`tx_len`, the MAC
//! model's `tx` log). Used by the bad-packet battery and the READ responder
//! tests.

use crate::driver_hw::{SimHw, SimProbe};
use crate::host_bench::HostBench;
use crate::sim_net::nic_ip;
use rnic_driver::{ipv4_gid, Context, Device};
use rnic_host::{MmioConfig, PcieConfig};
use rnic_sim::models::rnic_core::Dut;
use std::cell::RefCell;
use std::rc::Rc;

/// The test's handle on the lone core and its host.
pub type Probe = SimProbe<HostBench<Dut>>;

/// Opens a lone core through the driver, its register port answering in a
/// few cycles (the tests read counters around each step), GID 1 the
/// address of NIC 1 of the two-NIC benches (the peer is NIC 0's address).
pub fn open_nic(seed: u64) -> (Context, Probe) {
    let mut bench = HostBench::with_model(Dut::new(), PcieConfig::gen3_x16(), seed);
    bench.mmio = MmioConfig { write_latency: 2, read_round_trip: 8 };
    let (hw, probe) = SimHw::attach(Rc::new(RefCell::new(bench)), 0);
    let ctx = Device::from_hw(hw).open().expect("bring-up");
    ctx.set_gid(1, ipv4_gid(nic_ip(1))).expect("GID 1");
    (ctx, probe)
}

/// Runs the clock until the frames given to the NIC are in and it sent
/// `tx` frames in all, then long enough for any other answer or write to
/// come out.
pub fn settle(probe: &Probe, tx: usize) {
    probe.run_until(100_000, "frames taken and answered", |h| {
        let m = h.mac.as_ref().unwrap();
        m.rx_idle() && m.tx.len() >= tx
    });
    idle(probe, 600);
}

/// Runs the clock `n` cycles.
pub fn idle(probe: &Probe, n: u64) {
    let end = probe.now() + n;
    probe.run_until(n + 1, "idle", |h| h.now() >= end);
}

/// Puts frames on the NIC's receive MAC, in order.
pub fn inject(probe: &Probe, frames: &[Vec<u8>]) {
    probe.with(|h| h.mac.as_mut().unwrap().rx.extend(frames.iter().cloned()));
}

/// Frames the NIC sent so far.
pub fn tx_len(probe: &Probe) -> usize {
    probe.with(|h| h.mac.as_ref().unwrap().tx.len())
}

/// Device writes to host memory so far (the host model's log).
pub fn writes_len(probe: &Probe) -> usize {
    probe.with(|h| h.writes.len())
}
