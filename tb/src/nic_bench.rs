//! Two simulated NICs measured through the driver (issue 11, item 7): RDMA
//! WRITE and SEND goodput by message size on one QP, the latency from
//! `post_send` to the first packet on the wire and to the completion, the
//! message rate over many QPs, and the simulation's own speed. Used by `make bench` (section `nic`, figures in
//! docs/benchmarks.md) and by `tb/tests/two_nics.rs`, which asserts the
//! cycle counts (deterministic: the same Verilog, seeds and host model give
//! the same cycles on every machine).

use crate::sim_net::{connect_rc, connect_rc_timeout, try_poll_n, Nic, SimNet, WireFaults};
use rnic_contract::codes::{Mtu, QpType, WcStatus};
use rnic_driver::{AccessFlags, RecvWr, RemoteAddr, SendFlags, SendOp, SendWr, Sge};
use std::time::Instant;

/// The core clock the cycle counts are turned into time with (MHz).
pub const CORE_MHZ: f64 = 250.0;

/// One run of back-to-back WRITEs of one size on one QP.
#[derive(Clone, Debug)]
pub struct WriteRun {
    /// Bytes per message.
    pub size: usize,
    /// Messages posted (all at once, each signaled).
    pub msgs: usize,
    /// Cycles from the first `post_send` to the last completion polled.
    pub cycles: u64,
    /// Cycles from `post_send` to the first request packet's last beat on the wire.
    pub to_wire: u64,
    /// Cycles from `post_send` to the last request packet's last beat on the wire.
    pub wire_done: u64,
    /// Request packets NIC A sent.
    pub packets: usize,
    /// Simulated cycles of the whole run (set-up included) and the seconds they took here.
    pub sim_cycles: u64,
    pub sim_secs: f64,
    /// Frames the wire lost (both ways), go-back-N restarts and retransmit
    /// timeouts of NIC A (0 on a clean wire).
    pub lost: u64,
    pub go_back_n: u64,
    pub timeouts: u64,
    /// Pause requests of the NIC receiving the data (A for READs, else B)
    /// and the cycles they held the sender's MAC (0 when it keeps up).
    pub pauses: u64,
    pub paused_cycles: u64,
}

impl WriteRun {
    /// Payload bits per cycle, as Gb/s at [`CORE_MHZ`].
    pub fn goodput_gbps(&self) -> f64 {
        (self.size * self.msgs) as f64 * 8.0 / self.cycles as f64 * CORE_MHZ / 1000.0
    }
}

/// `msgs` RDMA WRITEs of `size` bytes from NIC A to NIC B on one RC QP with
/// path MTU `mtu`, posted at once; every byte checked in B's memory and
/// every completion successful.
pub fn write_run(size: usize, msgs: usize, mtu: Mtu) -> WriteRun {
    one_qp_run(false, size, msgs, mtu).unwrap_or_else(|e| panic!("{e}"))
}

/// `msgs` SENDs of `size` bytes from NIC A to NIC B on one RC QP, each into
/// its own RECV posted before; every byte checked in B's memory, every
/// completion of both sides successful, each RECV's with its length.
pub fn send_run(size: usize, msgs: usize, mtu: Mtu) -> WriteRun {
    one_qp_run(true, size, msgs, mtu).unwrap_or_else(|e| panic!("{e}"))
}

/// A run that did not complete: what the bench reports instead of figures.
#[derive(Clone, Debug)]
pub struct Stuck {
    pub completions: usize,
    /// Frames the receiving NIC's MAC FIFO dropped (B's; A's in a READ run,
    /// where A receives the data): a lost READ response is not recovered yet
    /// (a duplicate READ is not replayed), a lost request waits for the long
    /// ACK timeout of these runs.
    pub drops: u64,
    /// Which NIC that is.
    pub receiver: char,
}

impl std::fmt::Display for Stuck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} completions, then none; {}'s MAC FIFO dropped {} frames",
            self.completions, self.receiver, self.drops
        )
    }
}

/// Polls without a new completion before a run counts as stuck (each empty
/// poll runs the clock for about 16 cycles: 32k cycles).
const STUCK_POLLS: usize = 2000;

/// `msgs` RDMA READs of `size` bytes by NIC A from NIC B's memory on one RC
/// QP, posted at once; every byte checked in A's memory. `to_wire` and
/// `wire_done` are B's first and last READ response on the wire, `packets`
/// their count.
pub fn read_run(size: usize, msgs: usize, mtu: Mtu) -> WriteRun {
    qp_run(Op::Read, size, msgs, mtu, WireFaults::default(), 14).unwrap_or_else(|e| panic!("{e}"))
}

/// WRITEs (`send` false) or SENDs of `size` bytes, `msgs` of them posted at
/// once on one QP; `Err` when the completions stop coming before the last.
pub fn one_qp_run(send: bool, size: usize, msgs: usize, mtu: Mtu) -> Result<WriteRun, Stuck> {
    one_qp_run_on(send, size, msgs, mtu, WireFaults::default(), 14)
}

/// [`one_qp_run`] over a wire with `faults` (both ways), the QPs' local ACK
/// timeout code `timeout`.
pub fn one_qp_run_on(
    send: bool,
    size: usize,
    msgs: usize,
    mtu: Mtu,
    faults: WireFaults,
    timeout: u8,
) -> Result<WriteRun, Stuck> {
    qp_run(if send { Op::Send } else { Op::Write }, size, msgs, mtu, faults, timeout)
}

/// What a one-QP run posts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Write,
    Send,
    Read,
}

/// `msgs` messages of kind `op` and `size` bytes on one QP, posted at once,
/// over a wire with `faults`, local ACK timeout code `timeout`: every byte
/// checked at the destination, every completion successful; `Err` when the
/// completions stop coming before the last.
pub fn qp_run(op: Op, size: usize, msgs: usize, mtu: Mtu, faults: WireFaults, timeout: u8) -> Result<WriteRun, Stuck> {
    let send = op == Op::Send;
    let read = op == Op::Read;
    let t = Instant::now();
    let net = SimNet::pair(2026);
    let (a, b) = (Nic::open(&net, 0), Nic::open(&net, 1));
    net.borrow_mut().faults = [faults; 2];
    let (pd_a, pd_b) = (a.ctx.alloc_pd().unwrap(), b.ctx.alloc_pd().unwrap());
    let (cq_a, cq_b) = (a.ctx.create_cq(256, None).unwrap(), b.ctx.create_cq(256, None).unwrap());
    let depth = msgs.next_power_of_two().max(16) as u32;
    let mut qp_a = pd_a.create_qp(QpType::Rc, &cq_a, &cq_a).max_send_wr(depth).build().unwrap();
    let mut qp_b = pd_b.create_qp(QpType::Rc, &cq_b, &cq_b).max_recv_wr(depth).build().unwrap();
    connect_rc_timeout(&mut qp_a, &a.ctx, 1, qp_b.qp_num(), (0, 0x40), mtu, timeout);
    connect_rc_timeout(&mut qp_b, &b.ctx, 0, qp_a.qp_num(), (0x40, 0), mtu, timeout);
    let len = size * msgs;
    let (buf_a, buf_b) = (a.ctx.alloc_buffer(len).unwrap(), b.ctx.alloc_buffer(len).unwrap());
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let (mr_a, mr_b) = (pd_a.reg_mr(&buf_a, 0, len, access).unwrap(), pd_b.reg_mr(&buf_b, 0, len, access).unwrap());
    let data: Vec<u8> = (0..len).map(|i| (i * 131 + 7 + i / 4093) as u8).collect();
    // the source: A's memory, B's for a READ
    let (src, dst) = if read { (&buf_b, &buf_a) } else { (&buf_a, &buf_b) };
    src.write(0, &data).unwrap();
    let sges: Vec<Sge> = (0..msgs).map(|m| Sge::new(&mr_a, (m * size) as u64, size as u32).unwrap()).collect();
    let wrs: Vec<SendWr> = (0..msgs)
        .map(|m| {
            let remote = RemoteAddr { addr: mr_b.addr() + (m * size) as u64, rkey: mr_b.rkey() };
            let op = match op {
                Op::Send => SendOp::Send,
                Op::Write => SendOp::RdmaWrite { remote },
                Op::Read => SendOp::RdmaRead { remote },
            };
            SendWr::new(m as u64, op, std::slice::from_ref(&sges[m])).flags(SendFlags::SIGNALED)
        })
        .collect();
    if send {
        let rsges: Vec<Sge> = (0..msgs).map(|m| Sge::new(&mr_b, (m * size) as u64, size as u32).unwrap()).collect();
        let rwrs: Vec<RecvWr> = rsges
            .iter()
            .enumerate()
            .map(|(m, s)| RecvWr { wr_id: m as u64, sg_list: std::slice::from_ref(s) })
            .collect();
        qp_b.post_recv(&rwrs).unwrap();
    }
    // the measured packets: A's requests, or B's READ responses
    let from = read as usize;
    let sent_before = net.borrow().log.iter().filter(|f| f.from == from).count();
    let t0 = a.probe.now();
    qp_a.post_send(&wrs).unwrap();
    let mut wc = vec![];
    let mut idle = 0;
    while wc.len() < msgs && idle < STUCK_POLLS {
        let got = cq_a.poll(16).expect("poll");
        idle = if got.is_empty() { idle + 1 } else { 0 };
        wc.extend(got);
    }
    if wc.len() < msgs {
        let rx = 1 - from;
        let receiver = if rx == 0 { 'A' } else { 'B' };
        return Err(Stuck { completions: wc.len(), drops: net.borrow().rx_drops(rx), receiver });
    }
    let cycles = a.probe.now() - t0;
    for (m, w) in wc.iter().enumerate() {
        assert_eq!((w.wr_id, w.status), (m as u64, WcStatus::Success), "completion {m}");
    }
    if send {
        let rc = try_poll_n(&cq_b, msgs, 20_000);
        assert_eq!(rc.len(), msgs, "{size} B x {msgs}: B's RECV completions");
        for (m, w) in rc.iter().enumerate() {
            assert_eq!((w.wr_id, w.status, w.byte_len), (m as u64, WcStatus::Success, size as u32), "RECV {m}");
        }
    }
    let mut got = vec![0; len];
    dst.read(0, &mut got).unwrap();
    assert!(got == data, "the destination's memory holds every message");
    let ca = a.ctx.query_counters().expect("counters");
    let rx_counters = if read { ca } else { b.ctx.query_counters().expect("counters") };
    let net = net.borrow();
    assert_eq!(net.rx_drops(0) + net.rx_drops(1), 0, "no frame dropped at a MAC FIFO");
    let ours: Vec<_> = net.log.iter().filter(|f| f.from == from).skip(sent_before).collect();
    Ok(WriteRun {
        size,
        msgs,
        cycles,
        to_wire: ours.first().map(|f| f.sent - t0).unwrap_or(0),
        wire_done: ours.last().map(|f| f.sent - t0).unwrap_or(0),
        packets: ours.len(),
        sim_cycles: net.now(),
        sim_secs: t.elapsed().as_secs_f64(),
        lost: net.stats[0].dropped + net.stats[1].dropped,
        go_back_n: ca.go_back_n,
        timeouts: ca.retry_timeouts,
        pauses: rx_counters.rx_pause,
        paused_cycles: net.nics[from].mac.as_ref().unwrap().tx_paused_cycles,
    })
}

/// Messages per second over many QPs.
#[derive(Clone, Debug)]
pub struct RateRun {
    pub qps: usize,
    /// Messages per QP, all posted at once.
    pub msgs: usize,
    pub size: usize,
    /// Cycles from the first `post_send` to the last completion polled.
    pub cycles: u64,
}

impl RateRun {
    /// Messages per second at [`CORE_MHZ`], in millions.
    pub fn mpps(&self) -> f64 {
        (self.qps * self.msgs) as f64 / self.cycles as f64 * CORE_MHZ
    }
}

/// `msgs` RDMA WRITEs of `size` bytes on each of `qps` RC QPs from NIC A to
/// NIC B (path MTU 4096), every QP's posted at once, one QP after the
/// other; every completion successful and every byte checked in B's memory.
pub fn rate_run(qps: usize, msgs: usize, size: usize) -> RateRun {
    let net = SimNet::pair(2027);
    let (a, b) = (Nic::open(&net, 0), Nic::open(&net, 1));
    let (pd_a, pd_b) = (a.ctx.alloc_pd().unwrap(), b.ctx.alloc_pd().unwrap());
    let (cq_a, cq_b) = (a.ctx.create_cq(4096, None).unwrap(), b.ctx.create_cq(256, None).unwrap());
    let depth = msgs.next_power_of_two().max(16) as u32;
    let mut pairs = vec![];
    for q in 0..qps {
        let mut qa = pd_a.create_qp(QpType::Rc, &cq_a, &cq_a).max_send_wr(depth).build().unwrap();
        let mut qb = pd_b.create_qp(QpType::Rc, &cq_b, &cq_b).build().unwrap();
        let psn = 0x100 * q as u32;
        connect_rc(&mut qa, &a.ctx, 1, qb.qp_num(), (psn, psn + 0x40), Mtu::Mtu4096);
        connect_rc(&mut qb, &b.ctx, 0, qa.qp_num(), (psn + 0x40, psn), Mtu::Mtu4096);
        pairs.push((qa, qb));
    }
    let len = size * msgs * qps;
    let (buf_a, buf_b) = (a.ctx.alloc_buffer(len).unwrap(), b.ctx.alloc_buffer(len).unwrap());
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
    let (mr_a, mr_b) = (pd_a.reg_mr(&buf_a, 0, len, access).unwrap(), pd_b.reg_mr(&buf_b, 0, len, access).unwrap());
    let data: Vec<u8> = (0..len).map(|i| (i * 29 + 3 + i / 509) as u8).collect();
    buf_a.write(0, &data).unwrap();
    let sges: Vec<Sge> = (0..qps * msgs).map(|k| Sge::new(&mr_a, (k * size) as u64, size as u32).unwrap()).collect();
    let t0 = a.probe.now();
    for (q, (qa, _)) in pairs.iter_mut().enumerate() {
        let wrs: Vec<SendWr> = (0..msgs)
            .map(|m| {
                let k = q * msgs + m;
                let remote = RemoteAddr { addr: mr_b.addr() + (k * size) as u64, rkey: mr_b.rkey() };
                SendWr::new(k as u64, SendOp::RdmaWrite { remote }, std::slice::from_ref(&sges[k]))
                    .flags(SendFlags::SIGNALED)
            })
            .collect();
        qa.post_send(&wrs).unwrap();
    }
    let n = qps * msgs;
    let wc = try_poll_n(&cq_a, n, 20 * n + 20_000);
    if wc.len() != n {
        let (ca, cb) = (a.ctx.query_counters(), b.ctx.query_counters());
        let drops = net.borrow().rx_drops(1);
        panic!(
            "{qps} QPs x {msgs} x {size} B: {} completions of {n}; B's MAC FIFO drops {drops}; A {ca:?}; B {cb:?}",
            wc.len()
        );
    }
    let cycles = a.probe.now() - t0;
    assert!(wc.iter().all(|w| w.status == WcStatus::Success), "every WRITE completes successfully");
    let mut ids: Vec<u64> = wc.iter().map(|w| w.wr_id).collect();
    ids.sort_unstable();
    assert!(ids.iter().enumerate().all(|(i, &x)| x == i as u64), "one completion per WRITE");
    let mut got = vec![0; len];
    buf_b.read(0, &mut got).unwrap();
    assert!(got == data, "B's memory holds every WRITE");
    assert_eq!(net.borrow().rx_drops(1), 0, "no frame dropped at B's MAC FIFO");
    RateRun { qps, msgs, size, cycles }
}
