//! The requester's fetch stage (`ReqFetch`, catalog `req_fetch`) against the
//! reference of `rnic_tb::req_fetch`: random QP states (not started, window
//! full, READ/atomic limit, fence, no work, not RTS, INLINE errors), many
//! QPs interleaved, out-of-order cache answers, random latencies and stalls
//! on every stream; then the grant-to-job latency and the rate with a slow DMA;
//! then the oracle: the packets the block's jobs send against the packets of
//! the protocol model's `Requester` for the same WQE lists (see `oracle_run`).

use rnic_contract::codes::{QpState, SendOpcode};
use rnic_contract::layouts::{qpc, qps, send_wqe, sge};
use rnic_hw::consts::{REQ_ERR_FLUSH, REQ_ERR_NONE};
use rnic_hw::transport::{MAX_UNACKED_PSNS, REQ_FETCH_FIXED_LATENCY, REQ_FETCH_SLOTS};
use rnic_proto::rc::requester::{Requester, RequesterConfig, SendOp, SendWqe};
use rnic_proto::rc::{Access, KeyError, MemFault, Memory, RcPacket, Remote, Sge};
use rnic_proto::{AckCredit, Aeth, AethKind, AtomicAckEth, ExtHeaders, Opcode, Pmtu, Position, Psn};
use rnic_sim::axis::Rng;
use rnic_sim::models::req_fetch;
use rnic_tb::req_fetch::{gen_done, is_rd_atomic, random_wqe, rd, wr, FetchBench, Job};

type Bench = FetchBench<req_fetch::Dut>;

/// QP `q`: a random context (RTS with probability `rts_pct`), a random qps
/// (started or not, some window used), a ring of random WQEs with `work` posted.
fn add_qp(b: &mut Bench, q: u32, rts_pct: u64, work: u64) {
    let r = &mut b.rng;
    let mut c = vec![0u8; qpc::SIZE];
    for x in c.iter_mut() {
        *x = r.next() as u8;
    }
    // not RTS: RTR (nothing sent unless its responder failed), or ERR (the
    // driver's modify: flushed)
    let st = if r.chance(rts_pct) {
        QpState::ReadyToSend
    } else if r.chance(40) {
        QpState::Error
    } else {
        QpState::ReadyToReceive
    };
    wr(qpc::STATE.info(), &mut c, st as u64);
    wr(qpc::PMTU.info(), &mut c, 1 + r.next() % 5);
    wr(qpc::MAX_RD_ATOMIC.info(), &mut c, r.next() % 4);
    let log = 1 + r.next() % 5;
    wr(qpc::SQ_LOG_SIZE.info(), &mut c, log);
    let base = 0x10_0000_0000u64 + (q as u64) * 0x10_0000;
    wr(qpc::SQ_BASE.info(), &mut c, base);
    // SQ_PSN near the wrap now and then
    let psn = if r.chance(30) { (1 << 24) - 1 - r.next() % 64 } else { r.next() % (1 << 24) };
    wr(qpc::SQ_PSN.info(), &mut c, psn);
    let mut s = vec![0u8; qps::SIZE];
    let mut cursor = 0;
    if r.chance(50) {
        cursor = r.next() % 0x10000;
        let next = (psn + r.next() % 1000) % (1 << 24);
        wr(qps::REQ_STARTED.info(), &mut s, 1);
        wr(qps::NEXT_PSN.info(), &mut s, next);
        wr(qps::SENT_END.info(), &mut s, (next + r.next() % 3) % (1 << 24));
        if st == QpState::Error && r.chance(50) {
            // everything sent acknowledged: ERR alone flushes at once
            wr(qps::SENT_END.info(), &mut s, next);
        }
        wr(qps::CURSOR_WQE.info(), &mut s, cursor);
        // a WQE partly sent is a posted one: none when nothing is posted
        // (a cursor at SQ_PROD with packets sent is no state the block can
        // reach; its flush would walk the whole 16-bit ring)
        let pkt = if r.chance(30) { r.next() % 3 } else { 0 };
        wr(qps::CURSOR_PKT.info(), &mut s, if work > 0 { pkt } else { 0 });
        wr(qps::RD_ATOMIC_STARTED.info(), &mut s, r.next() % 32);
        wr(qps::COMP_STARTED.info(), &mut s, 1);
        // UNA: the window nearly empty, or full
        let used = if r.chance(20) { 100 + r.next() % 60 } else { r.next() % 40 };
        wr(qps::UNA.info(), &mut s, (next + (1 << 24) - used) % (1 << 24));
        let out = r.next() % 4;
        let st = rd(qps::RD_ATOMIC_STARTED.info(), &s);
        wr(qps::RD_ATOMIC_DONE.info(), &mut s, (st + 32 - out) % 32);
        // the completer's head: at the cursor, or a WQE or two past it
        // once its list was flushed
        wr(qps::HEAD_WQE.info(), &mut s, cursor);
        // some completers in error (the QP's WQEs are flushed, none sent)
        // or in an RNR wait (nothing sent); some requesters refused a WQE
        if r.chance(15) {
            wr(qps::COMP_ERROR.info(), &mut s, 1);
            wr(qps::HEAD_WQE.info(), &mut s, (cursor + (r.next() % 3).min(work)) % 0x10000);
            if r.chance(30) {
                wr(qps::RNR_WAIT.info(), &mut s, 1);
            }
        } else if r.chance(8) {
            wr(qps::RNR_WAIT.info(), &mut s, 1);
        } else if r.chance(8) {
            wr(qps::REQ_REFUSED.info(), &mut s, 1);
        }
    }
    // some responders in error (a fatal NAK sent): the QP is in error (by
    // the QPN: the random draws stay those of the other rules)
    if q % 6 == 1 {
        wr(qps::RESP_STARTED.info(), &mut s, 1);
        wr(qps::IN_PROGRESS.info(), &mut s, qps::IN_PROGRESS_ERROR as u64);
    } else if q % 6 == 4 {
        // (IN_PROGRESS ERROR of a responder not started: not in error)
        wr(qps::IN_PROGRESS.info(), &mut s, qps::IN_PROGRESS_ERROR as u64);
    }
    wr(qpc::SQ_PROD.info(), &mut c, (cursor + work) % 0x10000);
    for i in 0..1u64 << log {
        let w = random_wqe(&mut b.rng);
        b.mem.insert(base + 128 * i, w);
    }
    b.qpc.insert(q, c);
    b.qps.insert(q, s);
    b.list.push_back(q);
}

/// The completer's part while a QP is idle: everything acknowledged and
/// completed, and perhaps a doorbell.
fn complete(b: &mut Bench, q: u32) {
    let s = b.qps.get_mut(&q).unwrap();
    if rd(qps::REQ_STARTED.info(), s) == 1 {
        let next = rd(qps::NEXT_PSN.info(), s);
        wr(qps::COMP_STARTED.info(), s, 1);
        wr(qps::UNA.info(), s, next);
        let st = rd(qps::RD_ATOMIC_STARTED.info(), s);
        wr(qps::RD_ATOMIC_DONE.info(), s, st);
    }
    let c = b.qpc.get_mut(&q).unwrap();
    let prod = rd(qpc::SQ_PROD.info(), c);
    wr(qpc::SQ_PROD.info(), c, (prod + b.rng.next() % 3) % 0x10000);
    b.list.push_back(q);
}

fn random_run(seed: u64, nqp: u32, rounds: usize) -> Bench {
    let mut b = FetchBench::new(req_fetch::Dut::new(), seed);
    b.cache_lat = (1, 30);
    b.dma_lat = (5, 60);
    b.gen_lat = (1, 20);
    b.ready_pct = 70;
    b.valid_pct = 70;
    let mut r = Rng(seed * 7 + 1);
    let qpns: Vec<u32> = (0..nqp).map(|i| (i * 997 + (r.next() % 13) as u32) % (1 << 14)).collect();
    for &q in &qpns {
        add_qp(&mut b, q, 85, r.next() % 6);
    }
    // two more QPs whose completer is in error (RTS, ERR): flushed, then
    // each grant that finds nothing left asks for the RQ flush
    let mut qpns = qpns;
    for (k, st) in [QpState::ReadyToSend, QpState::Error].into_iter().enumerate() {
        let q = (0..).map(|i| 0x3ff0 - 7 * i - k as u32).find(|q| !qpns.contains(q)).unwrap();
        add_qp(&mut b, q, 100, 1 + k as u64);
        let c = b.qpc.get_mut(&q).unwrap();
        wr(qpc::STATE.info(), c, st as u64);
        // (the requester not started: its cursor at 0, `work` WQEs posted)
        wr(qpc::SQ_PROD.info(), c, 1 + k as u64);
        let s = b.qps.get_mut(&q).unwrap();
        s.fill(0);
        wr(qps::COMP_STARTED.info(), s, 1);
        wr(qps::COMP_ERROR.info(), s, 1);
        wr(qps::UNA.info(), s, rd(qpc::SQ_PSN.info(), &b.qpc[&q]));
        qpns.push(q);
    }
    for _ in 0..rounds {
        b.drain(100_000);
        for &q in &qpns {
            complete(&mut b, q);
        }
    }
    b.drain(100_000);
    eprintln!(
        "seed {seed}: {} grants, {} jobs, {} stops, {} writes, {} errors in {} cycles",
        b.grants.len(),
        b.jobs.len(),
        b.stops,
        b.writes,
        b.errs.len(),
        b.now()
    );
    assert_eq!(b.grants.len(), b.sdones.len(), "every grant answered");
    assert_eq!(b.writes as usize, b.jobs.len(), "every job written back");
    assert_eq!(b.arms.len(), b.jobs.len() - b.errs.len(), "one retransmit timer arming per job that sent");
    let flushes = b.errs.iter().filter(|e| e.2 == REQ_ERR_FLUSH).count();
    eprintln!(
        "{flushes} flush jobs, {} of them not at the cursor; {} pokes of QPs in ERR or whose responder failed ({} in RTS, {} in RTR); {} RQ flushes",
        b.flush_moved, b.pokes, b.resp_err_pokes, b.resp_err_pokes_rtr, b.rq_flushes
    );
    assert!(b.jobs.len() > 50 && b.stops > 10, "the run exercised jobs and stops");
    assert!(flushes > 0 && b.errs.len() > flushes, "the run exercised refusals and flush jobs");
    assert!(b.flush_moved > 0, "flush jobs at the completer's head or past a partly sent WQE");
    assert!(b.pokes > 0, "pokes of QPs the driver moved to ERR");
    assert!(b.pokes_left() == 0, "every poke made");
    assert!(b.resp_err_pokes > 0, "pokes of QPs in RTS whose responder is in error");
    assert!(b.rq_flushes > 0 && b.rq_flushes_left() == 0, "every RQ flush asked, none more");
    b
}

#[test]
fn random_states_ooo_caches_stalls() {
    let b = random_run(1, 24, 6);
    // (rare among random states: asserted for this seed)
    assert!(b.resp_err_pokes_rtr > 0, "pokes of QPs in RTR whose responder is in error");
}

#[test]
fn random_states_second_seed() {
    random_run(0x5eed, 12, 12);
}

/// A QP with one SEND of one packet, nothing else in flight.
fn one_send(b: &mut Bench, q: u32) {
    add_qp(b, q, 100, 1);
    let c = b.qpc.get_mut(&q).unwrap();
    wr(qpc::MAX_RD_ATOMIC.info(), c, 4);
    let s = b.qps.get_mut(&q).unwrap();
    s.fill(0);
    let base = rd(qpc::SQ_BASE.info(), c);
    let w = b.mem.get_mut(&base).unwrap();
    wr(rnic_contract::layouts::send_wqe::OPCODE.info(), w, 2);
    wr(rnic_contract::layouts::send_wqe::FENCE.info(), w, 0);
    wr(rnic_contract::layouts::send_wqe::INLINE.info(), w, 0);
    let c = b.qpc.get_mut(&q).unwrap();
    wr(qpc::SQ_PROD.info(), c, 1);
}

#[test]
fn grant_to_job_latency() {
    for (h, d) in [(1, 10), (3, 20), (1, 200)] {
        let mut b = FetchBench::new(req_fetch::Dut::new(), 3);
        b.cache_lat = (h, 0);
        b.dma_lat = (d, 0);
        one_send(&mut b, 77);
        b.drain(10_000);
        assert_eq!(b.jobs.len(), 1);
        let lat = b.jobs[0].0 - b.grants[0].0;
        eprintln!("cache {h}, DMA {d}: grant to job {lat} cycles");
        assert_eq!(lat, h + d + REQ_FETCH_FIXED_LATENCY, "cache latency {h}, DMA latency {d}");
    }
}

/// `REQ_FETCH_SLOTS` QPs with work and room, a DMA of 200 cycles: the WQE reads overlap,
/// so their jobs leave within a few cycles of each other, not 200 apart.
#[test]
fn jobs_at_the_dma_rate() {
    let mut b = FetchBench::new(req_fetch::Dut::new(), 5);
    b.cache_lat = (1, 0);
    b.dma_lat = (200, 0);
    b.gen_lat = (1000, 0); // no write-back inside the window measured
    let n = REQ_FETCH_SLOTS as u32;
    for q in 0..n {
        one_send(&mut b, 100 + q);
    }
    b.drain(20_000);
    assert_eq!(b.jobs.len(), n as usize);
    let first = b.jobs[0].0;
    let last = b.jobs[n as usize - 1].0;
    let gaps: Vec<u64> = b.jobs.windows(2).map(|w| w[1].0 - w[0].0).collect();
    eprintln!("{n} QPs, DMA 200: jobs at {first}..{last}, gaps {gaps:?}, grants {:?}", b.grants);
    // grants every other cycle, so WQE commands and jobs every other cycle
    assert!(gaps.iter().all(|&g| g == 2), "one job per two cycles: {gaps:?}");
    assert_eq!(first - b.grants[0].0, 1 + 200 + REQ_FETCH_FIXED_LATENCY);
    assert!(last - first < 200 / 4, "overlapped, not one per DMA latency");
}

// ---------------------------------------------------------------- the oracle

/// Local memory for the model's completer: every key valid, reads zero
/// (READ data and atomic results are not what this test is about).
struct AnyMem;

impl Memory for AnyMem {
    fn check(&self, _: u32, _: u32, _: u64, _: u64, _: Access) -> Result<(), KeyError> {
        Ok(())
    }
    fn read(&self, _: u64, out: &mut [u8]) -> Result<(), MemFault> {
        out.fill(0);
        Ok(())
    }
    fn write(&mut self, _: u64, _: &[u8]) -> Result<(), MemFault> {
        Ok(())
    }
}

/// A packet as both sides see it: PSN, WQE index, packet index in the WQE,
/// PSNs it covers (a READ request covers its responses' PSNs).
type Pkt = (u32, u64, u64, u32);

/// One QP of the oracle run: the model's requester/completer beside the
/// bench's entries for the same QP.
struct OracleQp {
    qpn: u32,
    model: Requester,
    pmtu: u64,
    /// Per WQE posted: (SendOpcode, length, packets).
    wqes: Vec<(u64, u64, u32)>,
    /// The model's packets so far, and where its cursor is (WQE, packet).
    model_pkts: Vec<Pkt>,
    cursor: (u64, u64),
    /// The block's packets so far (from its jobs), and the jobs read.
    block_pkts: Vec<Pkt>,
    jobs_seen: usize,
    /// READ/atomic WQEs completed (the bench's RD_ATOMIC_DONE).
    rd_done: u64,
}

const ORACLE_SQ_LOG: u64 = 8;

impl OracleQp {
    fn new(b: &mut Bench, qpn: u32, rng: &mut Rng) -> Self {
        let code = 1 + rng.next() % 5;
        let pmtu = 128u64 << code;
        let start = if rng.chance(30) { (1 << 24) - 1 - rng.next() % 200 } else { rng.next() % (1 << 24) };
        let max_rd = 1 + rng.next() % 4;
        let model = Requester::new(RequesterConfig {
            dest_qp: 0x123,
            pmtu: Pmtu::from_bytes(pmtu as usize).unwrap(),
            start_psn: Psn::new(start as u32),
            ack_req_every: 64,
            max_rd_atomic: max_rd as u32,
            max_unacked_psns: MAX_UNACKED_PSNS as u32,
            pd: 1,
            retry_cnt: 7,
            rnr_retry: 7,
        });
        let mut c = vec![0u8; qpc::SIZE];
        for x in c.iter_mut() {
            *x = rng.next() as u8;
        }
        wr(qpc::STATE.info(), &mut c, QpState::ReadyToSend as u64);
        wr(qpc::PMTU.info(), &mut c, code);
        wr(qpc::MAX_RD_ATOMIC.info(), &mut c, max_rd);
        wr(qpc::SQ_LOG_SIZE.info(), &mut c, ORACLE_SQ_LOG);
        wr(qpc::SQ_BASE.info(), &mut c, 0x20_0000_0000 + (qpn as u64) * 0x10_0000);
        wr(qpc::SQ_PSN.info(), &mut c, start);
        wr(qpc::SQ_PROD.info(), &mut c, 0);
        b.qpc.insert(qpn, c);
        b.qps.insert(qpn, vec![0u8; qps::SIZE]);
        OracleQp {
            qpn,
            model,
            pmtu,
            wqes: vec![],
            model_pkts: vec![],
            cursor: (0, 0),
            block_pkts: vec![],
            jobs_seen: 0,
            rd_done: 0,
        }
    }

    /// Posts a random WQE to the model and to the bench's send ring (not yet rung).
    fn post(&mut self, b: &mut Bench, rng: &mut Rng) {
        let op = rng.next() % 7;
        let len = if op >= SendOpcode::AtomicCmpAndSwp as u64 {
            8
        } else {
            // around PMTU multiples, now and then longer than the window
            let k = match rng.next() % 10 {
                0..=3 => rng.next() % 3,
                4..=7 => rng.next() % 40,
                _ => 100 + rng.next() % 100,
            };
            match rng.next() % 3 {
                0 => k * self.pmtu,
                1 => k * self.pmtu + 1,
                _ => (k * self.pmtu).saturating_sub(1),
            }
        };
        let mut w = random_wqe(&mut b.rng);
        wr(send_wqe::OPCODE.info(), &mut w, op);
        wr(send_wqe::INLINE.info(), &mut w, 0);
        let fence = rng.chance(20);
        wr(send_wqe::FENCE.info(), &mut w, fence as u64);
        let signaled = rng.chance(50);
        wr(send_wqe::SIGNALED.info(), &mut w, signaled as u64);
        // the length over 1..4 SGEs (0 SGEs for an empty message now and then)
        let n = if len == 0 && rng.chance(50) { 0 } else { 1 + rng.next() % 4 };
        let n = if op >= SendOpcode::AtomicCmpAndSwp as u64 { 1 } else { n };
        wr(send_wqe::NUM_SGE.info(), &mut w, n);
        let mut left = len;
        for i in 0..4u64 {
            let l = if i + 1 == n {
                left
            } else if i < n {
                rng.next() % (left + 1)
            } else {
                rng.next() % 5000
            };
            if i < n {
                left -= l;
            }
            wr(sge::LEN.info(), &mut w[64 + 16 * i as usize..80 + 16 * i as usize], l);
        }
        let remote = Remote { va: rd(send_wqe::REMOTE_VA.info(), &w), rkey: rd(send_wqe::RKEY.info(), &w) as u32 };
        let imm = rd(send_wqe::IMM.info(), &w) as u32;
        let local = Sge { addr: 0x1000, len: len as u32, lkey: 7 };
        let sop = match op {
            0 => SendOp::Write { payload: vec![0; len as usize], remote, imm: None },
            1 => SendOp::Write { payload: vec![0; len as usize], remote, imm: Some(imm) },
            2 => SendOp::Send { payload: vec![0; len as usize], imm: None },
            3 => SendOp::Send { payload: vec![0; len as usize], imm: Some(imm) },
            4 => SendOp::Read { remote, len: len as u32, local: vec![local] },
            5 => SendOp::CmpSwap { remote, compare: 1, swap: 2, local },
            _ => SendOp::FetchAdd { remote, add: 3, local },
        };
        let wr_id = rd(send_wqe::WR_ID.info(), &w);
        self.model.post(SendWqe { wr_id, op: sop, signaled, fence }).unwrap();
        let npkts = if op >= 5 { 1 } else { len.div_ceil(self.pmtu).max(1) as u32 };
        let i = self.wqes.len() as u64;
        assert!(i < 1 << ORACLE_SQ_LOG, "the ring holds every WQE of the run");
        let c = &b.qpc[&self.qpn];
        let base = rd(qpc::SQ_BASE.info(), c);
        b.mem.insert(base + 128 * i, w);
        self.wqes.push((op, len, npkts));
    }

    /// Rings the doorbell: SQ_PROD = WQEs posted; the scheduler lists the QP.
    fn ring(&self, b: &mut Bench) {
        let c = b.qpc.get_mut(&self.qpn).unwrap();
        wr(qpc::SQ_PROD.info(), c, self.wqes.len() as u64);
        b.list.push_back(self.qpn);
    }

    /// The model's packets until it stops (window, max_rd_atomic, fence, no work).
    fn pull_model(&mut self) {
        while let Some(p) = self.model.next_packet() {
            let (w, k) = self.cursor;
            let (op, len, npkts) = self.wqes[w as usize];
            let want = match op {
                4 => Opcode::RcReadRequest,
                5 => Opcode::RcCompareSwap,
                6 => Opcode::RcFetchAdd,
                _ => p.opcode(),
            };
            assert_eq!(p.opcode(), want, "QP {}: the model's packet of WQE {w} (opcode {op}, {len} bytes)", self.qpn);
            if !is_rd_atomic(op) {
                let starts = matches!(p.opcode().position(), Some(Position::First | Position::Only));
                assert_eq!(starts, k == 0, "QP {}: model packet {k} of WQE {w}", self.qpn);
            }
            let span = if op == 4 { npkts - k as u32 } else { 1 };
            self.model_pkts.push((p.psn().value(), w, k, span));
            if is_rd_atomic(op) || k + 1 == npkts as u64 {
                self.cursor = (w + 1, 0);
            } else {
                self.cursor = (w, k + 1);
            }
        }
    }

    /// The block's packets: each new job of this QP as the fake `ReqGen` sends it.
    fn pull_block(&mut self, b: &Bench) {
        let jobs: Vec<&Job> = b.jobs.iter().map(|j| &j.1).filter(|j| j.get("qpn") == self.qpn as u64).collect();
        for j in &jobs[self.jobs_seen..] {
            let (next, next_pkt, _, _, err) = gen_done(j, &j.sges);
            assert_eq!(err, REQ_ERR_NONE);
            let (psn, k, sq) = (j.get("psn"), j.get("pkt_index"), j.get("sq_index"));
            if is_rd_atomic(j.get("opcode")) {
                self.block_pkts.push((psn as u32, sq, k, ((next + (1 << 24) - psn) % (1 << 24)) as u32));
            } else {
                for i in 0..next_pkt - k {
                    self.block_pkts.push((((psn + i) % (1 << 24)) as u32, sq, k + i, 1));
                }
            }
        }
        self.jobs_seen = jobs.len();
    }

    /// The responder's answers to the model's first `n` unacknowledged PSNs
    /// (ACKs, READ responses, atomic ACKs, in PSN order) into the model's
    /// completer; then the completer's bytes of the bench's qps alike.
    fn acknowledge(&mut self, b: &mut Bench, n: u32) {
        let una = self.model.oldest_unacked().value();
        let mut todo = n;
        let aeth = Aeth::new(AethKind::Ack(AckCredit::UNLIMITED), 0);
        for &(psn, w, _, span) in &self.model_pkts {
            for i in 0..span {
                let p = Psn::new(psn).add(i);
                if Psn::new(una).distance_to(p) >= 1 << 23 || todo == 0 {
                    continue; // acknowledged already (behind UNA), or enough
                }
                todo -= 1;
                let (op, len, npkts) = self.wqes[w as usize];
                let pkt = match op {
                    4 => {
                        let off = i as u64 * self.pmtu;
                        let (opc, data) = match (npkts, i) {
                            (1, _) => (Opcode::RcReadResponseOnly, len),
                            (_, 0) => (Opcode::RcReadResponseFirst, self.pmtu),
                            (n, i) if i + 1 == n => (Opcode::RcReadResponseLast, len - off),
                            _ => (Opcode::RcReadResponseMiddle, self.pmtu),
                        };
                        let ext =
                            if opc == Opcode::RcReadResponseMiddle { ExtHeaders::Bare } else { ExtHeaders::Aeth(aeth) };
                        RcPacket::new(opc, 0, p, false, ext, vec![0; data as usize])
                    }
                    5 | 6 => RcPacket::new(
                        Opcode::RcAtomicAck,
                        0,
                        p,
                        false,
                        ExtHeaders::AethAtomicAckEth(aeth, AtomicAckEth { orig_remote_data: 0 }),
                        vec![],
                    ),
                    _ => RcPacket::new(Opcode::RcAck, 0, p, false, ExtHeaders::Aeth(aeth), vec![]),
                };
                let a = self.model.on_response(&pkt, &mut AnyMem);
                assert_eq!(format!("{a:?}"), "None", "QP {}: the model's completer on PSN {}", self.qpn, p.value());
                if is_rd_atomic(op) && i + 1 == span {
                    self.rd_done += 1;
                }
            }
        }
        let s = b.qps.get_mut(&self.qpn).unwrap();
        wr(qps::COMP_STARTED.info(), s, 1);
        wr(qps::UNA.info(), s, self.model.oldest_unacked().value() as u64);
        wr(qps::RD_ATOMIC_DONE.info(), s, self.rd_done % 32);
    }

    /// The block and the model have sent the same packets, and count the same READ/atomic WQEs outstanding.
    fn check(&self, b: &Bench, round: usize) {
        assert_eq!(self.block_pkts, self.model_pkts, "QP {}, round {round}: (PSN, WQE, packet, span)", self.qpn);
        let s = &b.qps[&self.qpn];
        if rd(qps::REQ_STARTED.info(), s) == 1 {
            let started = rd(qps::RD_ATOMIC_STARTED.info(), s);
            assert_eq!(
                (started + 32 - self.rd_done % 32) % 32,
                self.model.rd_atomic_outstanding() as u64,
                "QP {}, round {round}: READ/atomic outstanding",
                self.qpn
            );
        }
    }
}

/// The oracle: random WQE lists (every opcode, lengths around PMTU
/// multiples and past the 128-PSN window, FENCE, SIGNALED, more
/// READ/atomics than `max_rd_atomic`) posted to `rnic_proto::rc::Requester`
/// and to the bench's send rings; the bench runs the block with its fake
/// `ReqGen` (under stalls and out-of-order caches, its own reference still
/// checking every job and write), then the model is asked for its packets
/// until it stops. Both must have sent the same packets: each PSN, the WQE
/// it belongs to, its packet index, in order, and both stop at the same
/// place (window, `max_rd_atomic`, fence, no work). Between rounds the
/// model's completer is given the responder's answers for some PSNs (ACKs,
/// READ responses, atomic ACKs), and the bench's qps UNA / RD_ATOMIC_DONE
/// follow it, so the stops are released as the model releases them.
///
/// What is not compared, by design: the block hands out a job per grant
/// with a packet budget (the window's room), the model has no jobs (so the
/// comparison is per packet, not per job); the model's `next_psn` is past
/// the whole current WQE while the block's NEXT_PSN is the next packet's;
/// the packets' contents are `req_gen`'s (tb/tests/req_gen.rs).
fn oracle_run(seed: u64, nqp: u32, rounds: usize) {
    let mut b = FetchBench::new(req_fetch::Dut::new(), seed);
    b.cache_lat = (1, 20);
    b.dma_lat = (5, 40);
    b.gen_lat = (1, 10);
    b.ready_pct = 75;
    b.valid_pct = 75;
    let mut r = Rng(seed * 11 + 3);
    let mut qs: Vec<OracleQp> = (0..nqp).map(|i| OracleQp::new(&mut b, 5 + i * 4099, &mut r)).collect();
    let mut stops = [0u32; 3]; // window, READ/atomic limit or fence, everything sent
    for round in 0..rounds {
        for q in qs.iter_mut() {
            if round < rounds - 2 {
                for _ in 0..r.next() % 5 {
                    q.post(&mut b, &mut r);
                }
            }
            q.ring(&mut b);
        }
        b.drain(200_000);
        for q in qs.iter_mut() {
            q.pull_model();
            q.pull_block(&b);
            q.check(&b, round);
            let s = &b.qps[&q.qpn];
            let window_full = rd(qps::REQ_STARTED.info(), s) == 1
                && (rd(qps::NEXT_PSN.info(), s) + (1 << 24) - q.model.oldest_unacked().value() as u64) % (1 << 24)
                    >= MAX_UNACKED_PSNS;
            if q.cursor.0 == q.wqes.len() as u64 {
                stops[2] += 1;
            } else if window_full {
                stops[0] += 1;
            } else {
                stops[1] += 1;
            }
            // the responder answers all, some or none of what is outstanding
            let out = q
                .model
                .oldest_unacked()
                .distance_to(Psn::new(q.model_pkts.last().map_or(0, |p| Psn::new(p.0).add(p.3).value())));
            let n = match r.next() % 10 {
                0..=5 => out,
                6..=8 => (r.next() % (out as u64 + 1)) as u32,
                _ => 0,
            };
            if !q.model_pkts.is_empty() {
                q.acknowledge(&mut b, n);
            }
        }
    }
    // then everything acknowledged until both have sent every WQE
    for round in rounds..rounds + 20 {
        if qs.iter().all(|q| q.cursor.0 == q.wqes.len() as u64) {
            break;
        }
        for q in qs.iter_mut() {
            if !q.model_pkts.is_empty() {
                q.acknowledge(&mut b, u32::MAX);
            }
            q.ring(&mut b);
        }
        b.drain(200_000);
        for q in qs.iter_mut() {
            q.pull_model();
            q.pull_block(&b);
            q.check(&b, round);
        }
    }
    let pkts: usize = qs.iter().map(|q| q.model_pkts.len()).sum();
    let wqes: usize = qs.iter().map(|q| q.wqes.len()).sum();
    eprintln!(
        "oracle seed {seed}: {wqes} WQEs, {pkts} packets, {} jobs, stops (window, limit/fence, done) {stops:?}, {} cycles",
        b.jobs.len(),
        b.now()
    );
    for q in &qs {
        assert_eq!(q.cursor.0, q.wqes.len() as u64, "QP {}: every WQE sent by the end", q.qpn);
    }
    assert!(stops[0] > 3 && stops[1] > 3, "the window and the READ/atomic limit or fence stopped both sides");
}

#[test]
fn oracle_model_requester() {
    oracle_run(21, 3, 24);
}
