//! The requester's fetch stage (`ReqFetch`, catalog `req_fetch`) against the
//! reference of `rnic_tb::req_fetch`: random QP states (not started, window
//! full, READ/atomic limit, fence, no work, not RTS, INLINE errors), many
//! QPs interleaved, out-of-order cache answers, random latencies and stalls
//! on every stream; then the grant-to-job latency and the rate with a slow DMA.

use rnic_contract::codes::QpState;
use rnic_contract::layouts::{qpc, qps};
use rnic_hw::transport::{REQ_FETCH_FIXED_LATENCY, REQ_FETCH_SLOTS};
use rnic_sim::axis::Rng;
use rnic_sim::models::req_fetch;
use rnic_tb::req_fetch::{random_wqe, rd, wr, FetchBench};

type Bench = FetchBench<req_fetch::Dut>;

/// QP `q`: a random context (RTS with probability `rts_pct`), a random qps
/// (started or not, some window used), a ring of random WQEs with `work` posted.
fn add_qp(b: &mut Bench, q: u32, rts_pct: u64, work: u64) {
    let r = &mut b.rng;
    let mut c = vec![0u8; qpc::SIZE];
    for x in c.iter_mut() {
        *x = r.next() as u8;
    }
    let st = if r.chance(rts_pct) { QpState::ReadyToSend } else { QpState::ReadyToReceive };
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
        wr(qps::CURSOR_WQE.info(), &mut s, cursor);
        wr(qps::CURSOR_PKT.info(), &mut s, if r.chance(30) { r.next() % 3 } else { 0 });
        wr(qps::RD_ATOMIC_STARTED.info(), &mut s, r.next() % 32);
        wr(qps::COMP_STARTED.info(), &mut s, 1);
        // UNA: the window nearly empty, or full
        let used = if r.chance(20) { 100 + r.next() % 60 } else { r.next() % 40 };
        wr(qps::UNA.info(), &mut s, (next + (1 << 24) - used) % (1 << 24));
        let out = r.next() % 4;
        let st = rd(qps::RD_ATOMIC_STARTED.info(), &s);
        wr(qps::RD_ATOMIC_DONE.info(), &mut s, (st + 32 - out) % 32);
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

fn random_run(seed: u64, nqp: u32, rounds: usize) {
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
    assert_eq!(b.writes as usize + b.errs.len(), b.jobs.len(), "every job written back or reported");
    assert!(b.jobs.len() > 50 && b.stops > 10 && !b.errs.is_empty(), "the run exercised jobs, stops and errors");
}

#[test]
fn random_states_ooo_caches_stalls() {
    random_run(1, 24, 6);
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

/// Eight QPs with work and room, a DMA of 200 cycles: the WQE reads overlap,
/// so the eight jobs leave within a few cycles of each other, not 200 apart.
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
    eprintln!("8 QPs, DMA 200: jobs at {first}..{last}, gaps {gaps:?}, grants {:?}", b.grants);
    // grants every other cycle, so WQE commands and jobs every other cycle
    assert!(gaps.iter().all(|&g| g == 2), "one job per two cycles: {gaps:?}");
    assert_eq!(first - b.grants[0].0, 1 + 200 + REQ_FETCH_FIXED_LATENCY);
    assert!(last - first < 200 / 4, "overlapped, not one per DMA latency");
}
