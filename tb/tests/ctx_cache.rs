//! The context cache (`CtxCache`): random requests against a reference,
//! back-to-back requests on one index, latencies and throughput.
//!
//! The cache's DMA client ports are served by a Rust model of the DMA
//! engine's client side (`rnic_tb::ctx_cache::ClientDma`: the engine's
//! ordering, random latencies and stalls, writes landing only at their
//! completion), not by the RTL engine: the engine is tested on its own
//! (`tb/tests/dma_engine.rs`), and the model lets the tests set the miss
//! latency exactly and check the cache's side of the contract at every beat.

use rnic_sim::models::{mtt_cache, qpc_cache, qps_cache};
use rnic_sim::Model;
use rnic_tb::ctx_cache::{CacheBench, DmaTiming, Req, TABLE_BASE};

/// Sets of the two instances in the catalog.
const QPC_SETS: u32 = 1024;
const MTT_SETS: u32 = 256;
const QPS_SETS: u32 = 1 << rnic_hw::host::QPS_CACHE_LOG;

/// Cycles from a request taken to its response offered, on a hit.
const HIT_LATENCY: u64 = 5;

fn qpc(log_entries: u32, t: DmaTiming, seed: u64) -> CacheBench<qpc_cache::Dut> {
    CacheBench::new(qpc_cache::Dut::new(), log_entries, t, seed)
}

fn mtt(log_entries: u32, t: DmaTiming, seed: u64) -> CacheBench<mtt_cache::Dut> {
    CacheBench::new(mtt_cache::Dut::new(), log_entries, t, seed)
}

fn random_run<M: Model>(b: &mut CacheBench<M>, n: usize, span: u32) {
    b.req_pct = 80;
    b.resp_pct = 75;
    for _ in 0..n {
        let r = b.random_req(span);
        b.push(r);
    }
    b.run(400 * n as u64);
    let (rd, wr) = (b.dma.reads.len(), b.dma.writes.len());
    let errs = b.done.iter().filter(|d| d.1.err).count();
    eprintln!("{n} random requests over {span} indices: {rd} entry reads, {wr} write-backs, {errs} out of the table");
    assert!(rd > n / 4 && wr > n / 20, "too few misses ({rd}) or write-backs ({wr}) to test evictions");
    b.flush_all_and_check(200 * b.rf.entries);
}

/// Random reads, masked writes, flushes and invalidates over a table 8x the
/// cache (and a little past it: those are refused), random stalls
/// everywhere: every answer as the reference's, and after a final flush
/// host memory equals the reference.
#[test]
fn random_requests_match_a_reference_qpc() {
    let mut b = qpc(13, DmaTiming::RANDOM, 1);
    random_run(&mut b, 4000, 8 * QPC_SETS + 64);
    assert!(b.done.iter().any(|d| d.1.err), "no request beyond the table");
}

/// The same for `host_if`'s `qps` cache (512-bit entries, 2^10 sets).
#[test]
fn random_requests_match_a_reference_qps() {
    let mut b = CacheBench::new(qps_cache::Dut::new(), 13, DmaTiming::RANDOM, 4);
    random_run(&mut b, 3000, 8 * QPS_SETS + 64);
    assert!(b.done.iter().any(|d| d.1.err), "no request beyond the table");
}

#[test]
fn random_requests_match_a_reference_mtt() {
    let mut b = mtt(11, DmaTiming::RANDOM, 2);
    random_run(&mut b, 6000, 8 * MTT_SETS + 16);
    let mut b = mtt(12, DmaTiming::RANDOM, 3);
    random_run(&mut b, 4000, 16 * MTT_SETS);
}

/// "Two updates to one QP never race": requests to one index, and to three
/// indices of one set, offered back to back (no gap) under random DMA
/// timing, each answer checked against the reference.
#[test]
fn back_to_back_requests_on_one_index() {
    let mut b = qpc(13, DmaTiming::RANDOM, 4);
    b.resp_pct = 60;
    for round in 0..4 {
        for k in 0..150u32 {
            let index = if round % 2 == 0 { 77 } else { 77 + QPC_SETS * (k % 3) };
            let r = b.random_req(1);
            let r = Req { index, ..r };
            b.push(r);
        }
        b.run(200_000);
    }
    assert!(b.dma.reads.len() > 20, "the conflicting indices must miss");
    b.flush_all_and_check(2_000_000);
}

/// Invalidate drops an entry without a write-back; flush writes a dirty
/// entry back and answers only once the write is done.
#[test]
fn invalidate_drops_flush_writes_back() {
    let mut b = mtt(10, DmaTiming::fixed(100, 300), 5);
    let orig = b.rf.get(&b.dma.mem, 9);
    b.push(Req::write(9, 0xFF, vec![0xAB; 64]));
    b.run(1000);
    // the reference cannot know what an invalidate of a dirty entry keeps:
    // this bench checks it by hand
    b.rf.dirty.remove(&9);
    b.rf.val.remove(&9);
    b.push(Req::invalidate(9));
    b.push(Req::read(9));
    b.run(1000);
    assert_eq!(b.done.last().unwrap().1.data, orig, "the invalidated write must be gone");
    assert!(b.dma.writes.is_empty(), "an invalidate wrote back: {:?}", b.dma.writes);
    b.push(Req::write(9, 0xF0, vec![0xCD; 64]));
    b.push(Req::flush(9));
    let t0 = b.sim.cycle();
    b.run(2000);
    assert_eq!(b.dma.writes.len(), 1);
    let ack = b.done.last().unwrap().1.cycle;
    assert!(
        ack >= b.dma.writes[0].1 + 300,
        "flush acknowledged at {ack}, its write-back issued at {}",
        b.dma.writes[0].1
    );
    assert_eq!(b.dma.mem.read_vec(TABLE_BASE + 9 * 64 + 4, 4), vec![0xCD; 4]);
    eprintln!("flush of a dirty entry: {} cycles with 300-cycle write completions", ack - t0);
}

/// Latency in cycles, from a request taken to its response offered: a hit,
/// and a miss with the DMA read answered `rd` cycles after its command.
#[test]
fn hit_and_miss_latency() {
    for rd in [100u64, 233] {
        // the function `make bench` reports with
        let (hit, miss) = rnic_tb::cache_scaling::qp_context_latency(rd);
        eprintln!("qpc_cache: hit {hit} cycles, miss {miss} cycles with DMA reads answered in {rd}");
        assert_eq!(hit, HIT_LATENCY);
        assert_eq!(miss, rd + MISS_OVERHEAD_QPC);
        let mut b = mtt(12, DmaTiming::fixed(rd, 50), 6);
        b.push(Req::read(3));
        b.push(Req::read(3));
        b.run(2000);
        let miss = b.done[0].1.cycle - b.done[0].0.taken;
        eprintln!("mtt_cache: miss {miss} cycles with DMA reads answered in {rd}");
        assert_eq!(miss, rd + MISS_OVERHEAD_QPC - 1, "one beat fewer");
    }
}

/// Cycles a miss adds to the DMA read's own latency (a 128-byte entry).
const MISS_OVERHEAD_QPC: u64 = 14;

/// Hits at one request per cycle: 4096 reads of 1024 cached entries, offered
/// back to back and answered at once, are all taken in 4096 cycles.
#[test]
fn one_request_per_cycle_on_hits() {
    let mut b = qpc(12, DmaTiming::RANDOM, 7);
    for i in 0..QPC_SETS {
        b.push(Req::read(i + QPC_SETS));
    }
    b.run(100_000);
    let misses = b.dma.reads.len();
    let (t0, n0) = (b.sim.cycle(), b.taken);
    for k in 0..4 * QPC_SETS {
        b.push(Req::read((k * 7) % QPC_SETS + QPC_SETS));
    }
    while b.queued() > 0 {
        b.step();
    }
    let cycles = b.sim.cycle() - t0;
    assert_eq!(b.taken - n0, 4 * QPC_SETS as u64);
    assert_eq!(cycles, 4 * QPC_SETS as u64, "4096 hits took {cycles} cycles");
    b.run(100);
    assert_eq!(b.dma.reads.len(), misses, "a hit went to host memory");
    let last = b.done.last().unwrap();
    assert_eq!(last.1.cycle - last.0.taken, HIT_LATENCY);
}

/// A hit does not wait behind a miss: with a miss outstanding, 200 hits to
/// other sets are all answered before it.
#[test]
fn hits_pass_misses() {
    let mut b = mtt(12, DmaTiming::fixed(233, 50), 8);
    for i in 0..64 {
        b.push(Req::read(i));
    }
    b.run(10_000);
    let n = b.done.len();
    b.push(Req::read(100 + MTT_SETS)); // a miss
    for k in 0..200 {
        b.push(Req::read(k % 64));
    }
    b.run(10_000);
    let miss_at = b.done[n..].iter().position(|d| d.0.req.index == 100 + MTT_SETS).unwrap();
    assert_eq!(miss_at, 200, "the miss was answered after {miss_at} of the 200 hits");
}

/// Requests per cycle with a given miss rate: reads and writes over a working
/// set larger than the cache, the DMA at a PCIe-like 233-cycle read latency.
/// Printed as a table (the figures in docs/host.md).
#[test]
fn requests_per_cycle_by_miss_rate() {
    use rnic_tb::cache_scaling::{qp_contexts, QPC_ENTRIES};
    assert_eq!(QPC_ENTRIES, QPC_SETS as u64);
    eprintln!("| working set (entries) | requests | miss rate | cycles | requests per cycle |");
    eprintln!("|---:|---:|---:|---:|---:|");
    let mut last = f64::MAX;
    for ws in [256u32, 1024, 1100, 1300, 2048, 8192] {
        let p = qp_contexts(ws, 4000, 233);
        let rate = p.per_cycle();
        eprintln!("| {ws} | {} | {:.1} % | {} | {rate:.3} |", p.lookups, 100.0 * p.miss_rate(), p.cycles);
        if ws <= QPC_SETS {
            assert_eq!(p.misses, 0);
            assert!(rate > 0.95, "hits only: {rate} requests per cycle");
        } else {
            // one past the cache's size is a miss: the cache holds no more than it says
            assert!(p.misses > 0, "{ws} entries: no miss");
        }
        assert!(rate <= last * 1.02, "throughput grew with the working set");
        last = rate;
    }
}

/// A failed DMA read answers every request waiting for it with `err` and
/// leaves the entry out of the cache (the next read fetches it again); a
/// failed write-back answers the flush that waited for it with `err`.
#[test]
fn dma_errors_answer_err() {
    let mut b = mtt(10, DmaTiming::fixed(100, 50), 10);
    b.dma.fail_reads = 1;
    b.push(Req { fails: true, ..Req::read(4) });
    b.push(Req { fails: true, ..Req::write(4, 0xF, vec![1; 64]) });
    b.run(2000);
    b.push(Req::read(4));
    b.run(2000);
    assert_eq!(b.dma.reads.len(), 2, "the failed entry must be read again");
    b.push(Req::write(4, 0xF0, vec![2; 64]));
    b.run(2000);
    b.dma.fail_writes = 1;
    b.push(Req { fails: true, ..Req::flush(4) });
    b.run(2000);
    assert_eq!(b.dma.writes.len(), 1);
    assert_eq!(b.done.iter().filter(|d| d.1.err).count(), 3);
}
