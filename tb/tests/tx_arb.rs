//! The transmit arbiter (`TxArb`, catalog `tx_arb`): random packets from
//! every source under random stalls on all eight streams against the
//! reference of `rnic_tb::tx_arb` (each source's headers in order, payloads
//! in header order, beat for beat), round-robin order, one header per
//! cycle, payloads back to back, and the latencies.

use rnic_hw::transport::{TxArb, TX_ARB_ORDER_DEPTH, TX_ARB_SOURCES};
use rnic_sim::models::tx_arb;
use rnic_tb::tx_arb::{ArbBench, ArbPacket};

fn bench(seed: u64) -> ArbBench<tx_arb::Dut> {
    ArbBench::new(tx_arb::Dut::new(), seed)
}

/// A payload length: a third empty (ACKs), the rest 1..=4096 bytes.
fn random_len(b: &mut ArbBench<tx_arb::Dut>) -> usize {
    match b.rng.next() % 3 {
        0 => 0,
        1 => 1 + (b.rng.next() % 200) as usize,
        _ => 1 + (b.rng.next() % 4096) as usize,
    }
}

#[test]
fn random_packets_under_stalls() {
    for (seed, p_hdr, p_beat, p_take_hdr, p_take_beat) in
        [(1, 60, 80, 70, 70), (2, 100, 30, 100, 90), (3, 20, 100, 50, 100), (4, 90, 90, 20, 40)]
    {
        let mut b = bench(seed);
        (b.p_hdr, b.p_beat, b.p_take_hdr, b.p_take_beat) = (p_hdr, p_beat, p_take_hdr, p_take_beat);
        let mut beats = 0;
        for k in 0..300 {
            let s = (b.rng.next() % TX_ARB_SOURCES as u64) as usize;
            let len = random_len(&mut b);
            let p = ArbPacket::random(&mut b.rng, s, len);
            beats += p.beats.len();
            b.push(s, p);
            if k % 50 == 49 {
                b.run(200_000);
            }
        }
        b.run(200_000);
        assert_eq!(b.hdrs_out.len(), 300, "seed {seed}");
        assert_eq!(b.beats_out.len(), beats, "seed {seed}");
    }
}

/// Every source always offering headers without payload, the sink always
/// taking: one header per cycle, in round-robin order 0, 1, 2, 0, ...
#[test]
fn round_robin_one_header_per_cycle() {
    let mut b = bench(7);
    let n = 40;
    for _ in 0..n {
        for s in 0..TX_ARB_SOURCES {
            let p = ArbPacket::random(&mut b.rng, s, 0);
            b.push(s, p);
        }
    }
    b.run(10_000);
    let out = &b.hdrs_out;
    assert_eq!(out.len(), n * TX_ARB_SOURCES);
    for (k, (c, s)) in out.iter().enumerate() {
        assert_eq!(*s, k % TX_ARB_SOURCES, "grant {k} out of round-robin order");
        assert_eq!(*c, out[0].0 + k as u64, "header {k}: not one per cycle");
    }
    // the first header taken at t is offered at t + HDR_LATENCY
    assert_eq!(out[0].0, b.hdr_taken[0].0 + TxArb::HDR_LATENCY);
}

/// A source that waits keeps its turn; one that stops offering gives its
/// turn away (two sources busy: they alternate).
#[test]
fn round_robin_skips_idle_sources() {
    let mut b = bench(8);
    for _ in 0..30 {
        for s in [0, 2] {
            let p = ArbPacket::random(&mut b.rng, s, 0);
            b.push(s, p);
        }
    }
    b.run(10_000);
    let order: Vec<usize> = b.hdrs_out.iter().map(|h| h.1).collect();
    for (k, s) in order.iter().enumerate() {
        assert_eq!(*s, [0, 2][k % 2], "grant {k}");
    }
}

/// Payloads from all sources back to back: one beat per cycle with no idle
/// cycle between packets, whichever source they come from.
#[test]
fn payloads_back_to_back() {
    let mut b = bench(9);
    let mut beats = 0;
    for k in 0..60 {
        let s = k % TX_ARB_SOURCES;
        let len = 1 + (k * 577) % 1024;
        let p = ArbPacket::random(&mut b.rng, s, len);
        beats += p.beats.len();
        b.push(s, p);
    }
    b.run(10_000);
    assert_eq!(b.beats_out.len(), beats);
    let first = b.beats_out[0];
    for (k, c) in b.beats_out.iter().enumerate() {
        assert_eq!(*c, first + k as u64, "payload beat {k}: not back to back");
    }
    // the first beat: taken in the cycle after its header was taken, out one cycle later
    assert_eq!(b.beat_taken[0], b.hdr_taken[0].0 + 1);
    assert_eq!(first, b.beat_taken[0] + TxArb::PAYLOAD_LATENCY);
}

/// Headers run ahead of payloads by at most the order FIFO's depth: with the
/// payload sink stopped, the arbiter grants that many payload-carrying
/// headers, plus one whose two beats the payload skid buffer absorbs, and
/// then grants nothing, empty packets included (`TxBuild` takes packets in
/// one order, so an empty packet could not pass a waiting payload there
/// either). Released, everything drains in order.
#[test]
fn order_fifo_bounds_headers_ahead() {
    let mut b = bench(10);
    b.p_take_beat = 0;
    for _ in 0..10 {
        let p = ArbPacket::random(&mut b.rng, 1, 100);
        assert_eq!(p.beats.len(), 2);
        b.push(1, p);
    }
    for _ in 0..200 {
        b.step();
    }
    assert_eq!(b.hdrs_out.len(), TX_ARB_ORDER_DEPTH + 1, "headers with a payload ahead of their payloads");
    for _ in 0..5 {
        let p = ArbPacket::random(&mut b.rng, 0, 0);
        b.push(0, p);
    }
    for _ in 0..50 {
        b.step();
    }
    assert_eq!(b.hdrs_out.len(), TX_ARB_ORDER_DEPTH + 1, "nothing granted while the order FIFO is full");
    b.p_take_beat = 100;
    b.run(10_000);
    assert_eq!(b.hdrs_out.len(), 15);
    assert_eq!(b.beats_out.len(), 20);
}
