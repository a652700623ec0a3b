//! Simulated NICs on a wire: each a Verilated `RnicCore` with its own host
//! model ([`HostBench`]), all on one clock, their MAC streams joined by a
//! wire model that delivers every frame one NIC sends to the other after a
//! fixed latency (two NICs back to back, a clean wire: issue 11, item 6).
//! The driver reaches each NIC through `SimHw::attach(net, nic)`.

use crate::driver_hw::{SimHw, SimProbe, SimWorld};
use crate::host_bench::HostBench;
use rnic_contract::codes::{Mtu, QpState};
use rnic_driver::{ipv4_gid, AccessFlags, AhAttr, CompletionQueue, Context, Device, QpAttr, QueuePair, WorkCompletion};
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

impl WireFrame {
    /// One line for a run's diagnostics: cycle, sender, opcode, QP, PSN, payload.
    pub fn summary(&self) -> String {
        match rnic_proto::decode_frame(&self.bytes) {
            Ok(p) => format!(
                "cycle {} from {}: {} qp {:#x} psn {:#x} len {}",
                self.sent,
                self.from,
                p.bth.opcode.name(),
                p.bth.dest_qp,
                p.bth.psn.value(),
                p.payload.len()
            ),
            Err(e) => format!("cycle {} from {}: undecodable ({e:?})", self.sent, self.from),
        }
    }
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

    /// Frames NIC `nic`'s MAC FIFO dropped whole (its receive path did not
    /// keep up): 0 on a clean wire that the NICs keep up with.
    pub fn rx_drops(&self, nic: usize) -> u64 {
        use rnic_sim::Model;
        self.nics[nic].sim.dut.get("stat_rx_drops")
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

/// NIC `i`'s IPv4 address in the benches (GID index 1). The cores share
/// their build MAC; the wire does not switch, so the AHs name it.
pub fn nic_ip(i: usize) -> [u8; 4] {
    [10, 0, 0, 1 + i as u8]
}

/// A NIC of a [`SimNet`] as a program sees it: its verbs context (through
/// the driver and `SimHw`) and the test's probe.
pub struct Nic {
    pub ctx: Context,
    pub probe: SimProbe<SimNet>,
}

impl Nic {
    /// Opens NIC `i` of `net` through the driver: bring-up, GID 1 its IPv4 address.
    pub fn open(net: &Rc<RefCell<SimNet>>, i: usize) -> Nic {
        let (hw, probe) = SimHw::attach(net.clone(), i);
        let ctx = Device::from_hw(hw).open().expect("bring-up");
        ctx.set_gid(1, ipv4_gid(nic_ip(i))).expect("GID 1");
        Nic { ctx, probe }
    }
}

/// Moves an RC QP through INIT, RTR, RTS toward NIC `peer`'s QP `dest`:
/// `sq_psn` its first PSN out, `rq_psn` the first it expects, MTU `mtu`.
pub fn connect_rc(qp: &mut QueuePair, ctx: &Context, peer: usize, dest: u32, psns: (u32, u32), mtu: Mtu) {
    let access = AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    qp.modify(&QpAttr::new().state(QpState::Init).pkey_index(0).port(1).access_flags(access)).expect("INIT");
    let av = AhAttr { sgid_index: 1, ..AhAttr::new(ipv4_gid(nic_ip(peer)), ctx.query_device().mac) };
    let rtr = QpAttr::new()
        .state(QpState::ReadyToReceive)
        .av(av)
        .path_mtu(mtu)
        .dest_qpn(dest)
        .rq_psn(psns.1)
        .max_dest_rd_atomic(4)
        .min_rnr_timer(12);
    qp.modify(&rtr).expect("RTR");
    let rts =
        QpAttr::new().state(QpState::ReadyToSend).sq_psn(psns.0).timeout(14).retry_cnt(7).rnr_retry(7).max_rd_atomic(4);
    qp.modify(&rts).expect("RTS");
}

/// Polls `cq` until it gave `n` completions or `polls` polls went by (the
/// clock runs while the driver polls); what it got.
pub fn try_poll_n(cq: &CompletionQueue, n: usize, polls: usize) -> Vec<WorkCompletion> {
    let mut out = vec![];
    for _ in 0..polls {
        out.extend(cq.poll(16).expect("poll"));
        if out.len() >= n {
            break;
        }
    }
    out
}

/// Polls `cq` until it gave `n` completions; panics after `polls` polls.
pub fn poll_n(cq: &CompletionQueue, n: usize, polls: usize, what: &str) -> Vec<WorkCompletion> {
    let out = try_poll_n(cq, n, polls);
    assert!(out.len() >= n, "{what}: {} of {n} completions after {polls} polls", out.len());
    out
}
