//! Simulated NICs on a wire: each a Verilated `RnicCore` with its own host
//! model ([`HostBench`]), all on one clock, their MAC streams joined by a
//! wire model that delivers every frame one NIC sends to the other after a
//! fixed latency (two NICs back to back: issue 11, item 6), through a
//! seeded fault model per direction ([`WireFaults`]: drops, loss bursts,
//! duplicates, bounded reordering, corruption; issue 12, item 3). The
//! driver reaches each NIC through `SimHw::attach(net, nic)`.

use crate::driver_hw::{SimHw, SimProbe, SimWorld};
use crate::gbn_check::{check_go_back_n, GbnStats};
use crate::host_bench::HostBench;
use rnic_contract::codes::{Mtu, QpState, QpType};
use rnic_driver::{
    ipv4_gid, AccessFlags, AhAttr, CompletionQueue, Context, Device, DmaBuffer, MemoryRegion, ProtectionDomain, QpAttr,
    QueuePair, RemoteAddr, SendFlags, SendOp, SendWr, Sge, WorkCompletion,
};
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
    /// Directed loss by position: the frames of each direction whose
    /// index (0 = the direction's first frame) is listed are dropped.
    pub drop_index: [Vec<u64>; 2],
    /// Each NIC's `mac_rx_pause` on its way to the other's MAC: the wire's
    /// latency in cycles (the pause frame's own time is within the margin
    /// docs/mac.md gives).
    pause_line: [VecDeque<bool>; 2],
    burst_left: [u32; 2],
    rng: Rng,
}

impl SimNet {
    /// Two NICs back to back, each behind a Gen3 x16 host, out of reset.
    pub fn pair(seed: u64) -> Rc<RefCell<SimNet>> {
        let nics: Vec<HostBench<Dut>> = (0..2)
            .map(|i| {
                let mut nic = HostBench::with_model(Dut::new(), PcieConfig::gen3_x16(), seed.wrapping_add(i * 0x9E37));
                nic.set_port_mac(nic_mac(i as usize));
                nic
            })
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
            drop_index: [vec![], vec![]],
            pause_line: [VecDeque::new(), VecDeque::new()],
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
        let index = self.stats[from].frames;
        self.stats[from].frames += 1;
        if self.drop_index[from].contains(&index) {
            self.stats[from].dropped += 1;
            return Fate::Dropped;
        }
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

    /// Cycles NIC `nic`'s transmit had a frame to start but its peer's
    /// pause held it (the peer's receive path did not keep up).
    pub fn tx_paused_cycles(&self, nic: usize) -> u64 {
        self.nics[nic].mac.as_ref().map_or(0, |m| m.tx_paused_cycles)
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
        // the pause each NIC asks for reaches the other's MAC a wire later
        for i in 0..self.nics.len() {
            use rnic_sim::Model;
            let asked = self.nics[i].sim.dut.get("mac_rx_pause") == 1;
            self.pause_line[i].push_back(asked);
            if self.pause_line[i].len() as u64 > self.latency {
                let seen = self.pause_line[i].pop_front().unwrap();
                self.nics[1 - i].mac.as_mut().unwrap().tx_paused = seen;
            }
        }
        while self.flight.front().is_some_and(|f| f.0 <= now) {
            let (_, to, bytes) = self.flight.pop_front().unwrap();
            self.nics[to].mac.as_mut().unwrap().rx.push_back(bytes);
        }
    }
}

/// NIC `i`'s IPv4 address in the benches (GID index 1).
pub fn nic_ip(i: usize) -> [u8; 4] {
    [10, 0, 0, 1 + i as u8]
}

/// NIC `i`'s MAC (its `port_mac` strap; locally administered): the source
/// of its frames, the destination of its peer's.
pub fn nic_mac(i: usize) -> [u8; 6] {
    [0x02, 0, 0, 0, 0, 1 + i as u8]
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
    connect_rc_access(qp, ctx, peer, dest, psns, mtu, t, AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ);
}

/// The READs and atomics a QP [`connect_rc_access`] connects keeps as
/// responder (`max_dest_rd_atomic`; its replay table's window).
pub const RC_MAX_DEST_RD_ATOMIC: u8 = 4;

/// [`connect_rc_with`] with the QP's remote rights `access` (the others
/// give WRITE and READ, not atomics).
#[allow(clippy::too_many_arguments)]
pub fn connect_rc_access(
    qp: &mut QueuePair,
    ctx: &Context,
    peer: usize,
    dest: u32,
    psns: (u32, u32),
    mtu: Mtu,
    t: RcTimers,
    access: AccessFlags,
) {
    connect_rc_rtr(qp, ctx, peer, dest, psns.1, mtu, t.min_rnr_timer, access);
    let rts = QpAttr::new()
        .state(QpState::ReadyToSend)
        .sq_psn(psns.0)
        .timeout(t.timeout)
        .retry_cnt(t.retry_cnt)
        .rnr_retry(t.rnr_retry)
        .max_rd_atomic(4);
    qp.modify(&rts).expect("RTS");
}

/// The receive half of [`connect_rc_access`]: INIT and RTR toward NIC
/// `peer`'s QP `dest`, `rq_psn` the first PSN expected. A QP left here
/// receives and sends nothing.
#[allow(clippy::too_many_arguments)]
pub fn connect_rc_rtr(
    qp: &mut QueuePair,
    ctx: &Context,
    peer: usize,
    dest: u32,
    rq_psn: u32,
    mtu: Mtu,
    min_rnr_timer: u8,
    access: AccessFlags,
) {
    // the QP's own NIC is the other one: a test that names the wrong peer
    // would connect a NIC to itself
    let me = ctx.query_gid(1, 1).expect("GID 1");
    assert_eq!(me, ipv4_gid(nic_ip(1 - peer)), "a QP of NIC {} toward NIC {peer}", 1 - peer);
    qp.modify(&QpAttr::new().state(QpState::Init).pkey_index(0).port(1).access_flags(access)).expect("INIT");
    let av = AhAttr { sgid_index: 1, ..AhAttr::new(ipv4_gid(nic_ip(peer)), nic_mac(peer)) };
    let rtr = QpAttr::new()
        .state(QpState::ReadyToReceive)
        .av(av)
        .path_mtu(mtu)
        .dest_qpn(dest)
        .rq_psn(rq_psn)
        .max_dest_rd_atomic(RC_MAX_DEST_RD_ATOMIC)
        .min_rnr_timer(min_rnr_timer);
    qp.modify(&rtr).expect("RTR");
}

/// One connected RC QP pair between the two NICs of a [`SimNet`]: A (NIC 0)
/// and B (NIC 1), MTU 1024, 8 KiB buffers registered on both sides with
/// every remote right, A's filled with a pattern.
pub struct QpPair {
    pub net: Rc<RefCell<SimNet>>,
    pub a: Nic,
    pub b: Nic,
    pub cq_a: CompletionQueue,
    pub qp_a: QueuePair,
    pub buf_a: DmaBuffer,
    pub buf_b: DmaBuffer,
    pub mr_a: MemoryRegion,
    pub mr_b: MemoryRegion,
    pub qp_b_num: u32,
    pub qp_b: QueuePair,
    pub cq_b: CompletionQueue,
    // kept alive: the objects the QPs and regions belong to
    _keep: (ProtectionDomain, ProtectionDomain),
}

impl QpPair {
    /// The pair on a new [`SimNet`] seeded `seed`: A sends from PSN
    /// `psns.0`, B from `psns.1`; both with timers `t`.
    pub fn connect(seed: u64, psns: (u32, u32), t: RcTimers) -> QpPair {
        Self::build(seed, psns, t, true)
    }

    /// [`QpPair::connect`] with A left in RTR: it receives and answers,
    /// never sends (B is in RTS).
    pub fn connect_a_rtr(seed: u64, psns: (u32, u32), t: RcTimers) -> QpPair {
        Self::build(seed, psns, t, false)
    }

    fn build(seed: u64, psns: (u32, u32), t: RcTimers, a_sends: bool) -> QpPair {
        let net = SimNet::pair(seed);
        let a = Nic::open(&net, 0);
        let b = Nic::open(&net, 1);
        let (pd_a, pd_b) = (a.ctx.alloc_pd().unwrap(), b.ctx.alloc_pd().unwrap());
        let (cq_a, cq_b) = (a.ctx.create_cq(64, None).unwrap(), b.ctx.create_cq(64, None).unwrap());
        let mut qp_a =
            pd_a.create_qp(QpType::Rc, &cq_a, &cq_a).max_send_wr(16).max_recv_wr(16).max_send_sge(4).build().unwrap();
        let mut qp_b = pd_b.create_qp(QpType::Rc, &cq_b, &cq_b).max_send_wr(16).max_recv_wr(16).build().unwrap();
        let rights = AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ | AccessFlags::REMOTE_ATOMIC;
        if a_sends {
            connect_rc_access(&mut qp_a, &a.ctx, 1, qp_b.qp_num(), psns, Mtu::Mtu1024, t, rights);
        } else {
            connect_rc_rtr(&mut qp_a, &a.ctx, 1, qp_b.qp_num(), psns.1, Mtu::Mtu1024, t.min_rnr_timer, rights);
        }
        connect_rc_access(&mut qp_b, &b.ctx, 0, qp_a.qp_num(), (psns.1, psns.0), Mtu::Mtu1024, t, rights);
        let buf_a = a.ctx.alloc_buffer(8192).unwrap();
        let buf_b = b.ctx.alloc_buffer(8192).unwrap();
        let all = AccessFlags::LOCAL_WRITE | rights;
        let mr_a = pd_a.reg_mr(&buf_a, 0, 8192, all).unwrap();
        let mr_b = pd_b.reg_mr(&buf_b, 0, 8192, all).unwrap();
        let data: Vec<u8> = (0..8192u32).map(|i| (i * 13 + 5) as u8).collect();
        buf_a.write(0, &data).unwrap();
        let qp_b_num = qp_b.qp_num();
        QpPair { net, a, b, cq_a, qp_a, buf_a, buf_b, mr_a, mr_b, qp_b_num, qp_b, cq_b, _keep: (pd_a, pd_b) }
    }

    /// A's protection domain (for more regions on A).
    pub fn pd_a(&self) -> &ProtectionDomain {
        &self._keep.0
    }

    /// B's protection domain (for more regions on B).
    pub fn pd_b(&self) -> &ProtectionDomain {
        &self._keep.1
    }

    /// A signaled WRITE of `len` bytes from A's `src` to `remote`.
    pub fn write_to(&mut self, wr_id: u64, src: u64, remote: RemoteAddr, len: u32) {
        let sges = [Sge::new(&self.mr_a, src, len).unwrap()];
        let wr = SendWr::new(wr_id, SendOp::RdmaWrite { remote }, &sges).flags(SendFlags::SIGNALED);
        self.qp_a.post_send(&[wr]).unwrap();
    }

    /// A signaled WRITE of `len` bytes from A's `src` to B's `dst`.
    pub fn write(&mut self, wr_id: u64, src: u64, dst: u64, len: u32) {
        let remote = RemoteAddr { addr: self.mr_b.addr() + dst, rkey: self.mr_b.rkey() };
        self.write_to(wr_id, src, remote, len);
    }

    /// A signaled SEND of `len` bytes from A's `src`.
    pub fn send(&mut self, wr_id: u64, src: u64, len: u32) {
        let sges = [Sge::new(&self.mr_a, src, len).unwrap()];
        let wr = SendWr::new(wr_id, SendOp::Send, &sges).flags(SendFlags::SIGNALED);
        self.qp_a.post_send(&[wr]).unwrap();
    }

    /// A signaled READ of `len` bytes from B's `src` into A's `dst`.
    pub fn read(&mut self, wr_id: u64, dst: u64, src: u64, len: u32) {
        let remote = RemoteAddr { addr: self.mr_b.addr() + src, rkey: self.mr_b.rkey() };
        self.read_from(wr_id, dst, remote, len);
    }

    /// A signaled READ of `len` bytes from `remote` into A's `dst`.
    pub fn read_from(&mut self, wr_id: u64, dst: u64, remote: RemoteAddr, len: u32) {
        let sges = [Sge::new(&self.mr_a, dst, len).unwrap()];
        let wr = SendWr::new(wr_id, SendOp::RdmaRead { remote }, &sges).flags(SendFlags::SIGNALED);
        self.qp_a.post_send(&[wr]).unwrap();
    }

    /// A signaled FETCH_ADD of `add` to B's word at `target`, the original
    /// value into A's `result`.
    pub fn fetch_add(&mut self, wr_id: u64, result: u64, target: u64, add: u64) {
        let remote = RemoteAddr { addr: self.mr_b.addr() + target, rkey: self.mr_b.rkey() };
        let sges = [Sge::new(&self.mr_a, result, 8).unwrap()];
        let wr = SendWr::new(wr_id, SendOp::AtomicFetchAndAdd { remote, add }, &sges).flags(SendFlags::SIGNALED);
        self.qp_a.post_send(&[wr]).unwrap();
    }

    /// A's bytes at `dst` equal B's at `src` (a READ's).
    pub fn check_read(&self, dst: usize, src: usize, len: usize) {
        let (mut x, mut y) = (vec![0u8; len], vec![0u8; len]);
        self.buf_a.read(dst, &mut x).unwrap();
        self.buf_b.read(src, &mut y).unwrap();
        assert!(x == y, "A's buffer at {dst:#x} holds B's {len} bytes from {src:#x}");
    }

    /// B's bytes at `dst` equal A's at `src`.
    pub fn check(&self, src: usize, dst: usize, len: usize) {
        let (mut x, mut y) = (vec![0u8; len], vec![0u8; len]);
        self.buf_a.read(src, &mut x).unwrap();
        self.buf_b.read(dst, &mut y).unwrap();
        assert!(x == y, "B's buffer at {dst:#x} holds A's {len} bytes from {src:#x}");
    }

    /// The go-back-N invariants over everything both NICs sent.
    pub fn gbn(&self) -> std::result::Result<GbnStats, String> {
        let log: Vec<(usize, Vec<u8>)> = self.net.borrow().log.iter().map(|f| (f.from, f.bytes.clone())).collect();
        self.gbn_of(&log)
    }

    /// The go-back-N invariants over `log` ((sender, frame) pairs).
    pub fn gbn_of(&self, log: &[(usize, Vec<u8>)]) -> std::result::Result<GbnStats, String> {
        let frames: Vec<(usize, &[u8])> = log.iter().map(|f| (f.0, f.1.as_slice())).collect();
        check_go_back_n(&frames, &[(self.qp_a.qp_num(), self.qp_b_num)])
    }

    /// The frames NIC `from` sent: (cycle, opcode name, PSN, AETH syndrome).
    pub fn frames(&self, from: usize) -> Vec<(u64, String, u32, Option<u8>)> {
        let net = self.net.borrow();
        net.log
            .iter()
            .filter(|f| f.from == from)
            .map(|f| {
                let p = rnic_proto::decode_frame(&f.bytes).unwrap();
                (f.sent, p.bth.opcode.name().to_string(), p.bth.psn.value(), p.ext.aeth().map(|a| a.syndrome))
            })
            .collect()
    }
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
