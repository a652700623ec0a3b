//! The send scheduler (`SendSched`, catalog `send_sched`, 2^14 QPs): random
//! work and done streams against the reference of `rnic_tb::send_sched`
//! (every append of a wanted QP, every grant the list's head, no QP lost),
//! back-to-back work on one QP, fairness with N busy QPs, one grant per
//! cycle, and the latencies.

use rnic_hw::transport::{SCHED_SLOTS, SEND_SCHED_ROUND_TRIP, SEND_SCHED_WORK_TO_GRANT};
use rnic_sim::models::send_sched;
use rnic_tb::send_sched::SchedBench;

/// QPs of the catalog instance.
const QPS: u32 = 1 << 14;

fn bench(seed: u64) -> SchedBench<send_sched::Dut> {
    SchedBench::new(send_sched::Dut::new(), seed)
}

/// Random work over `span` QPs (spread over the whole QPN range), grants
/// taken with stalls, dones after random delays: checked every cycle by the
/// reference, then drained.
fn random_run(seed: u64, span: u32, works: usize, work_gap: u64) {
    let mut b = bench(seed);
    b.grant_pct = 70;
    b.done_lat = (1, 12);
    let stride = QPS / span;
    let mut left = works;
    while left > 0 {
        if b.rng.chance(100 / work_gap.max(1)) {
            let q = (b.rng.next() as u32 % span) * stride + (seed as u32 % stride);
            b.works.push_back(q);
            left -= 1;
        }
        b.step();
    }
    b.drain(200_000);
    let served = b.grants.len() as u64;
    eprintln!(
        "seed {seed}: {works} works over {span} QPs: {served} grants, {} appends, {} works on a QP in service, {} grants that found no work",
        b.appends, b.pend_hits, b.empty_grants
    );
    assert!(b.pend_hits > 0, "no work on a QP in service");
    assert!(served >= works as u64 / 4 && b.appends == served, "every grant follows one append");
    assert!(b.empty_grants * 20 <= served, "too many grants without work: {}", b.empty_grants);
}

#[test]
fn random_streams_match_the_reference() {
    random_run(1, 64, 20_000, 2);
    random_run(2, 16, 20_000, 1);
    random_run(3, 4096, 20_000, 3);
    random_run(4, 3, 5_000, 1);
}

/// Work on one QP every cycle, and on two QPs alternating, while it is idle,
/// listed and in service: the `inq` bit's read-modify-write forwards.
#[test]
fn back_to_back_work_on_one_qp() {
    let mut b = bench(5);
    b.done_lat = (1, 3);
    b.grant_pct = 50;
    for round in 0..40u32 {
        for k in 0..30u32 {
            let q = if round % 2 == 0 { 77 } else { 77 + (k % 2) * 4096 };
            b.works.push_back(q);
        }
        b.run(20 + round as u64 % 7);
    }
    b.drain(100_000);
    assert!(b.grants.len() > 200);
}

/// N QPs always busy: each gets every N-th grant.
#[test]
fn fairness_every_nth_grant() {
    for n in [1u32, 2, 5, 8, 16, 100] {
        let mut b = bench(6 + n as u64);
        b.endless = true;
        b.grant_pct = 60;
        b.done_lat = (1, 5);
        // the first N works append N new QPs back to back: a done waits meanwhile
        b.max_wait = 64 + n as u64;
        for k in 0..n {
            b.works.push_back(k * 131 + 2);
        }
        b.run(500 + 40 * n as u64);
        let g: Vec<u32> = b.grants.iter().map(|x| x.1).collect();
        let warm = n as usize;
        assert!(g.len() > warm + 3 * n as usize, "n = {n}: only {} grants", g.len());
        for i in warm..g.len() - n as usize {
            assert_eq!(g[i], g[i + n as usize], "n = {n}: grant {i} and grant {} differ", i + n as usize);
        }
        let mut w: Vec<u32> = g[warm..warm + n as usize].to_vec();
        w.sort();
        w.dedup();
        assert_eq!(w.len(), n as usize, "n = {n}: a window of {n} grants holds each QP once");
    }
}

/// With the transport taking every grant at once and answering the next
/// cycle, one grant per cycle once at least `SEND_SCHED_ROUND_TRIP` QPs
/// are busy; with one QP, one grant per round trip.
#[test]
fn one_grant_per_cycle() {
    assert!(SEND_SCHED_ROUND_TRIP as usize <= 2 * SCHED_SLOTS);
    for (n, per) in [(SEND_SCHED_ROUND_TRIP as u32, 1), (16, 1), (1, SEND_SCHED_ROUND_TRIP)] {
        let mut b = bench(9);
        b.endless = true;
        for k in 0..n {
            b.works.push_back(k + 2);
        }
        b.run(100);
        let from = b.grants.len();
        let t0 = b.now();
        b.run(1000);
        let got = (b.grants.len() - from) as u64;
        assert!(got >= (b.now() - t0) / per, "{n} busy QPs: {got} grants in 1000 cycles");
        let gaps: Vec<u64> = b.grants[from..].windows(2).map(|w| w[1].0 - w[0].0).collect();
        assert!(gaps.iter().all(|&g| g == per), "{n} busy QPs: grant gaps {:?}", &gaps[..8.min(gaps.len())]);
    }
}

/// A work for an idle QP, the list empty: its grant is offered
/// `SEND_SCHED_WORK_TO_GRANT` cycles after the work was taken.
#[test]
fn work_to_grant_latency() {
    let mut b = bench(10);
    for q in [2u32, 9999, QPS - 1] {
        let t = b.now();
        b.works.push_back(q);
        b.run(40);
        let &(at, g) = b.offers.last().unwrap();
        assert_eq!((g, at - t), (q, SEND_SCHED_WORK_TO_GRANT), "QP {q}");
        b.drain(1000);
    }
}
