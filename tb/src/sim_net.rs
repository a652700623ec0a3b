//! Simulated NICs on a wire: each a Verilated `RnicCore` with its own host
//! model ([`HostBench`]), all on one clock, their MAC streams joined by a
//! wire model that delivers every frame one NIC sends to the other after a
//! fixed latency (two NICs back to back, a clean wire: issue 11, item 6).
//! The driver reaches each NIC through `SimHw::attach(net, nic)`.

use crate::driver_hw::SimWorld;
use crate::host_bench::HostBench;
use rnic_host::PcieConfig;
use rnic_sim::models::rnic_core::Dut;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// Cycles from a frame's last beat leaving one NIC to the frame entering
/// the other's MAC stream (a few metres of fibre and two MAC pipelines).
pub const WIRE_LATENCY: u64 = 100;

/// A frame on the wire.
#[derive(Clone, Debug)]
pub struct WireFrame {
    /// Cycle its last beat left the sender.
    pub sent: u64,
    pub from: usize,
    pub bytes: Vec<u8>,
}

pub struct SimNet {
    pub nics: Vec<HostBench<Dut>>,
    /// Frames in flight: (cycle they arrive, destination, bytes).
    flight: VecDeque<(u64, usize, Vec<u8>)>,
    /// Every frame any NIC sent, in order of sending.
    pub log: Vec<WireFrame>,
    seen: Vec<usize>,
    pub latency: u64,
}

impl SimNet {
    /// Two NICs back to back, each behind a Gen3 x16 host, out of reset.
    pub fn pair(seed: u64) -> Rc<RefCell<SimNet>> {
        let nics: Vec<HostBench<Dut>> = (0..2)
            .map(|i| HostBench::with_model(Dut::new(), PcieConfig::gen3_x16(), seed.wrapping_add(i * 0x9E37)))
            .collect();
        Rc::new(RefCell::new(SimNet {
            nics,
            flight: VecDeque::new(),
            log: vec![],
            seen: vec![0; 2],
            latency: WIRE_LATENCY,
        }))
    }

    pub fn now(&self) -> u64 {
        self.nics[0].now()
    }

    /// Nothing on the wire and nothing waiting to enter a NIC.
    pub fn wire_idle(&self) -> bool {
        self.flight.is_empty() && self.nics.iter().all(|n| n.mac.as_ref().is_none_or(|m| m.rx_idle()))
    }
}

impl SimWorld for SimNet {
    type Dut = Dut;
    fn bench(&mut self, nic: usize) -> &mut HostBench<Dut> {
        &mut self.nics[nic]
    }
    fn bench_ref(&self, nic: usize) -> &HostBench<Dut> {
        &self.nics[nic]
    }
    fn step(&mut self) {
        for n in &mut self.nics {
            n.step();
        }
        let now = self.now();
        for (i, n) in self.nics.iter().enumerate() {
            let mac = n.mac.as_ref().expect("a core has MAC streams");
            for (sent, bytes) in &mac.tx[self.seen[i]..] {
                self.flight.push_back((sent + self.latency, 1 - i, bytes.clone()));
                self.log.push(WireFrame { sent: *sent, from: i, bytes: bytes.clone() });
            }
            self.seen[i] = mac.tx.len();
        }
        while self.flight.front().is_some_and(|f| f.0 <= now) {
            let (_, to, bytes) = self.flight.pop_front().unwrap();
            self.nics[to].mac.as_mut().unwrap().rx.push_back(bytes);
        }
    }
}
