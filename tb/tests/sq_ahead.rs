//! The send WQE read-ahead (`SqAhead`, catalog `sq_ahead`) against the
//! models of `rnic_tb::sq_ahead`: random reads of many QPs' cursors
//! (re-reads, rewinds), posts, completions, resets with `inval`, DMA errors,
//! random latencies and stalls; then one QP streaming, with its cycle counts.

use rnic_hw::transport::{SQ_AHEAD_HIT_LATENCY, SQ_AHEAD_MISS_EXTRA, SQ_AHEAD_WINDOWS};
use rnic_sim::models::sq_ahead;
use rnic_tb::sq_ahead::{AheadBench, Knobs};

type Bench = AheadBench<sq_ahead::Dut>;

fn random_run(seed: u64, qps: usize, reset_pct: u64, cycles: u64) -> Bench {
    let mut b = Bench::new(sq_ahead::Dut::new(), seed, qps, 1);
    b.knobs.reset_pct = reset_pct;
    for r in 0..qps {
        if reset_pct > 0 {
            // rings from index 0, as after a reset: a window kept past a
            // reset would hand out the old WQE 0 or 1 for the new one
            let g = &mut b.rings[r];
            (g.prod, g.done, g.cursor) = (0, 0, 0);
        }
        b.post(r, 3);
    }
    for _ in 0..cycles {
        b.step();
    }
    b.drain(20_000);
    println!(
        "seed {seed}: {} WQEs handed out, {} DMA reads, {} re-reads, {} rewinds, {} resets",
        b.handed, b.dma_reads, b.rereads, b.rewinds, b.resets
    );
    assert!(b.handed > cycles / 20, "too few WQEs handed out: {}", b.handed);
    assert!(b.rereads > 10 && b.rewinds > 3, "re-reads and rewinds not exercised");
    b
}

#[test]
fn random_reads_hand_out_the_posted_wqes() {
    for seed in [3, 5, 7] {
        random_run(seed, 6, 0, 20_000);
    }
}

/// More QPs than windows: reads of QPs without a window take one from
/// another QP (the next in turn with no entry to hand out), whose reads in
/// flight are then dropped; every WQE handed out is still the one asked for.
#[test]
fn more_qps_than_windows_take_windows_from_one_another() {
    for seed in [17, 19] {
        random_run(seed, SQ_AHEAD_WINDOWS + 8, 0, 20_000);
    }
}

/// `SQ_AHEAD_WINDOWS` QPs with 32 WQEs each, read in random order (as
/// `ReqFetch`'s slots serve them), the DMA answering 100 cycles after each
/// command: every QP keeps its window, so each WQE is read by DMA exactly
/// once (the single window of session 35 switched at almost every read and
/// read most WQEs twice or more), and the WQEs leave at about one per 3.2
/// cycles (two beats each: 2 cycles is the floor), not one per round trip
/// and QP.
#[test]
fn many_qps_stream_through_their_own_windows() {
    let qps = SQ_AHEAD_WINDOWS;
    let mut b = Bench::new(sq_ahead::Dut::new(), 21, qps, 0);
    b.knobs = Knobs { dma_lat: (100, 100), ready_pct: 100, out_ready_pct: 100, read_pct: 100, ..Knobs::default() };
    (b.knobs.post_pct, b.knobs.reread_pct, b.knobs.rewind_pct, b.knobs.beat_gap_pct) = (0, 0, 0, 0);
    for r in 0..qps {
        b.rings[r].log = 6;
        b.post(r, 32);
    }
    let n: u64 = b.rings.iter().map(|g| g.prod.wrapping_sub(g.done) as u64).sum();
    let t0 = b.now();
    b.drain(20_000);
    let cycles = b.now() - t0;
    let hits = b.latencies.iter().filter(|&&l| l == SQ_AHEAD_HIT_LATENCY).count() as u64;
    println!("{n} WQEs of {qps} QPs in {cycles} cycles, {} DMA reads, {hits} hits", b.dma_reads);
    assert_eq!(b.handed, n);
    assert_eq!(b.dma_reads, n, "each WQE read once");
    assert_eq!((n, cycles), (512, 1647));
}

#[test]
fn resets_make_the_window_forget_the_old_rings() {
    for seed in [11, 13, 15] {
        let b = random_run(seed, 3, 3, 20_000);
        assert!(b.resets > 10, "resets not exercised: {}", b.resets);
    }
}

/// One QP with 64 WQEs posted, the DMA answering 100 cycles after each
/// command, nothing stalled, each WQE read as soon as its predecessor was
/// handed out (as `ReqFetch` serves a QP once at a time, but with no job
/// between): each WQE is read by DMA once; the first is a miss, the window
/// grows by one per hit (the third WQE waits 103 cycles, the seventh 93),
/// and then, 8 places ahead being 8 x 5 cycles of this consumer and the
/// round trip 100, every eighth WQE waits 73 cycles; the other 54 are hits
/// handed out `SQ_AHEAD_HIT_LATENCY` cycles after their read. (A real job
/// takes longer than 100 / 8 cycles: the window then stays ahead. Since
/// session 41 a window's own reads take 2 cycles more than before: the
/// registered turn among the windows and the beat register; 1085 -> 1103.)
#[test]
fn one_qp_streams_without_round_trips() {
    let mut b = Bench::new(sq_ahead::Dut::new(), 5, 1, 0);
    b.knobs.dma_lat = (100, 100);
    b.knobs.ready_pct = 100;
    b.knobs.out_ready_pct = 100;
    b.knobs.read_pct = 100;
    b.knobs.post_pct = 0;
    b.knobs.reread_pct = 0;
    b.knobs.rewind_pct = 0;
    b.knobs.beat_gap_pct = 0;
    b.rings[0].log = 6;
    b.post(0, 64);
    let n = b.rings[0].prod.wrapping_sub(b.rings[0].done) as u64;
    let t0 = b.now();
    b.drain(10_000);
    let cycles = b.now() - t0;
    println!("{n} WQEs in {cycles} cycles; latencies {:?}; {} DMA reads", b.latencies, b.dma_reads);
    assert_eq!(b.handed, n);
    assert_eq!(b.dma_reads, n, "each WQE read once");
    assert_eq!(b.latencies[0], 100 + SQ_AHEAD_MISS_EXTRA, "the first read: a miss");
    let hits = b.latencies.iter().filter(|&&l| l == SQ_AHEAD_HIT_LATENCY).count() as u64;
    assert_eq!(hits, 54, "{:?}", b.latencies);
    assert_eq!((b.latencies[2], b.latencies[6], b.latencies[14]), (103, 93, 73));
    assert_eq!(cycles, 1103);
}

/// A QP handed out its WQE 0 (the window's `pidx`: a re-read would hit),
/// then is reset: its ring starts again at index 0 with new WQEs and
/// `inval` pulses. The new WQE 0 must be read again, not the old one handed
/// out (the bench compares every byte); so must the rest.
#[test]
fn a_reset_qp_gets_its_new_wqes() {
    let mut b = Bench::new(sq_ahead::Dut::new(), 9, 1, 0);
    b.knobs = Knobs { dma_lat: (30, 30), ready_pct: 100, out_ready_pct: 100, read_pct: 100, ..Knobs::default() };
    (b.knobs.post_pct, b.knobs.reread_pct, b.knobs.rewind_pct) = (0, 0, 0);
    let g = &mut b.rings[0];
    (g.log, g.prod, g.done, g.cursor) = (3, 0, 0, 0);
    b.post(0, 4);
    while b.handed < 1 {
        b.step();
    }
    // the old WQEs 1..3 read ahead, WQE 0 completed (its slot free)
    b.knobs.read_pct = 0;
    for _ in 0..80 {
        b.step();
    }
    b.rings[0].done = 1;
    b.reset_ring(0, 4);
    b.knobs.read_pct = 100;
    let reads = b.dma_reads;
    b.drain(2_000);
    assert_eq!((b.resets, b.handed), (1, 5));
    assert!(b.dma_reads >= reads + 4, "the new WQEs were read: {} reads after the reset", b.dma_reads - reads);
}
