//! Simulated NICs on a wire: each a Verilated `RnicCore` with its own host
//! model ([`HostBench`]), all on one clock, their MAC streams joined by a
//! wire model that delivers every frame one NIC sends to the other after a
//! fixed latency (two NICs back to back: issue 11, item 6), through a
//! seeded fault model per direction ([`WireFaults`]: drops, loss bursts,
//! duplicates, bounded reordering, corruption; issue 12, item 3). The
//! driver reaches each NIC through `SimHw::attach(net, nic)`.

use crate::driver_hw::{SimHw, SimProbe, SimWorld};
use crate::host_bench::HostBench;
use rnic_contract::codes::{Mtu, QpState};
use rnic_driver::{ipv4_gid, AccessFlags, AhAttr, CompletionQueue, Context, Device, QpAttr, QueuePair, WorkCompletion};
use rnic_host::PcieConfig;
use rnic_sim::axis::Rng;
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

/// What the wire does to the frames of one direction, each decision drawn
/// from the net's seeded generator (rates in parts per million of frames).
/// The default is a clean wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WireFaults {
    /// A frame is lost.
    pub drop_ppm: u32,
    /// A loss burst starts at a frame: it and the next `burst_len - 1` are lost.
    pub burst_ppm: u32,
    pub burst_len: u32,
    /// A frame arrives twice (the copy up to `reorder_cycles` later, at least one cycle).
    pub dup_ppm: u32,
    /// A frame is held up to `reorder_cycles` longer (later frames may pass it).
    pub reorder_ppm: u32,
    pub reorder_cycles: u64,
    /// A frame's last payload byte is flipped: the receiver's ICRC check fails.
    pub corrupt_ppm: u32,
}

/// What happened to a frame on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Delivered,
    Dropped,
    /// Lost inside a burst.
    Burst,
    Duplicated,
    Delayed,
    Corrupted,
}

/// Counts of each fate, per direction (index = sender).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WireStats {
    pub frames: u64,
    pub dropped: u64,
    pub duplicated: u64,
    pub delayed: u64,
    pub corrupted: u64,
}

pub struct SimNet {
    pub nics: Vec<HostBench<Dut>>,
    /// Frames in flight, by arrival: (cycle they arrive, destination, bytes).
    flight: VecDeque<(u64, usize, Vec<u8>)>,
    /// Every frame any NIC sent, in order of sending.
    pub log: Vec<WireFrame>,
    /// Each logged frame's fate.
    pub fates: Vec<Fate>,
    seen: Vec<usize>,
    pub latency: u64,
    /// The fault model of each direction (index = sender).
    pub faults: [WireFaults; 2],
    pub stats: [WireStats; 2],
    /// Directed loss: the next frames of each direction to drop, besides the faults.
    pub drop_next: [u32; 2],
    burst_left: [u32; 2],
    rng: Rng,
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
            fates: vec![],
            seen: vec![0; 2],
            latency: WIRE_LATENCY,
            faults: [WireFaults::default(); 2],
            stats: [WireStats::default(); 2],
            drop_next: [0; 2],
            burst_left: [0; 2],
            rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        }))
    }

    fn ppm(&mut self, rate: u32) -> bool {
        rate > 0 && self.rng.next() % 1_000_000 < rate as u64
    }

    /// Puts a frame in flight, keeping the queue in arrival order (a frame
    /// arriving at the same cycle as another goes after it).
    fn launch(&mut self, at: u64, to: usize, bytes: Vec<u8>) {
        let i = self.flight.partition_point(|f| f.0 <= at);
        self.flight.insert(i, (at, to, bytes));
    }

    /// Sends a frame through the fault model of its direction; returns its fate.
    fn transmit(&mut self, sent: u64, from: usize, mut bytes: Vec<u8>) -> Fate {
        let f = self.faults[from];
        let to = 1 - from;
        let at = sent + self.latency;
        self.stats[from].frames += 1;
        if self.drop_next[from] > 0 {
            self.drop_next[from] -= 1;
            self.stats[from].dropped += 1;
            return Fate::Dropped;
        }
        if self.burst_left[from] > 0 {
            self.burst_left[from] -= 1;
            self.stats[from].dropped += 1;
            return Fate::Burst;
        }
        if self.ppm(f.burst_ppm) && f.burst_len > 0 {
            self.burst_left[from] = f.burst_len - 1;
            self.stats[from].dropped += 1;
            return Fate::Burst;
        }
        if self.ppm(f.drop_ppm) {
            self.stats[from].dropped += 1;
            return Fate::Dropped;
        }
        let spread = f.reorder_cycles.max(1);
        if self.ppm(f.corrupt_ppm) && bytes.len() > 4 {
            // the byte before the ICRC: the frame stays well-formed, its ICRC fails
            let i = bytes.len() - 5;
            bytes[i] ^= 0x5a;
            self.stats[from].corrupted += 1;
            self.launch(at, to, bytes);
            return Fate::Corrupted;
        }
        if self.ppm(f.dup_ppm) {
            let extra = 1 + self.rng.next() % spread;
            self.stats[from].duplicated += 1;
            self.launch(at, to, bytes.clone());
            self.launch(at + extra, to, bytes);
            return Fate::Duplicated;
        }
        if self.ppm(f.reorder_ppm) {
            let extra = 1 + self.rng.next() % spread;
            self.stats[from].delayed += 1;
            self.launch(at + extra, to, bytes);
            return Fate::Delayed;
        }
        self.launch(at, to, bytes);
        Fate::Delivered
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
        for i in 0..self.nics.len() {
            let mac = self.nics[i].mac.as_ref().expect("a core has MAC streams");
            let new: Vec<(u64, Vec<u8>)> = mac.tx[self.seen[i]..].to_vec();
            self.seen[i] = mac.tx.len();
            for (sent, bytes) in new {
                self.log.push(WireFrame { sent, from: i, bytes: bytes.clone() });
                let fate = self.transmit(sent, i, bytes);
                self.fates.push(fate);
            }
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
/// `sq_psn` its first PSN out, `rq_psn` the first it expects, MTU `mtu`;
/// the local ACK timeout code 14 (67 ms, perftest's: never reached in a
/// simulation of a clean wire), 7 retries.
pub fn connect_rc(qp: &mut QueuePair, ctx: &Context, peer: usize, dest: u32, psns: (u32, u32), mtu: Mtu) {
    connect_rc_timeout(qp, ctx, peer, dest, psns, mtu, 14);
}

/// [`connect_rc`] with the local ACK timeout code `timeout` (4.096 us x
/// 2^timeout): the lossy-wire tests use short ones.
pub fn connect_rc_timeout(
    qp: &mut QueuePair,
    ctx: &Context,
    peer: usize,
    dest: u32,
    psns: (u32, u32),
    mtu: Mtu,
    timeout: u8,
) {
    connect_rc_with(qp, ctx, peer, dest, psns, mtu, RcTimers { timeout, ..RcTimers::default() });
}

/// A QP's timers and retry counts (IBTA codes).
#[derive(Clone, Copy, Debug)]
pub struct RcTimers {
    /// Local ACK timeout: 4.096 us x 2^timeout (0: none).
    pub timeout: u8,
    pub retry_cnt: u8,
    /// RNR NAKs answered by a wait (7: without limit).
    pub rnr_retry: u8,
    /// The RNR wait this QP asks of its peer (the IBTA table: 1 is 10 us, 12 is 0.64 ms).
    pub min_rnr_timer: u8,
}

impl Default for RcTimers {
    fn default() -> Self {
        RcTimers { timeout: 14, retry_cnt: 7, rnr_retry: 7, min_rnr_timer: 12 }
    }
}

/// [`connect_rc`] with the timers and retry counts `t`.
pub fn connect_rc_with(
    qp: &mut QueuePair,
    ctx: &Context,
    peer: usize,
    dest: u32,
    psns: (u32, u32),
    mtu: Mtu,
    t: RcTimers,
) {
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
        .min_rnr_timer(t.min_rnr_timer);
    qp.modify(&rtr).expect("RTR");
    let rts = QpAttr::new()
        .state(QpState::ReadyToSend)
        .sq_psn(psns.0)
        .timeout(t.timeout)
        .retry_cnt(t.retry_cnt)
        .rnr_retry(t.rnr_retry)
        .max_rd_atomic(4);
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
