//! `PayloadGather` against a host-memory model: random packets of 1..8
//! pieces (1..4096 B, any alignment, random start lanes) come out as the
//! memory's bytes in order, in the lanes `TxBuild` takes them
//! (`tx::payload_beats`), under random stalls on every stream; DMA errors
//! mark the packet's last beat; throughput in cycles.

use rnic_sim::axis::Rng;
use rnic_sim::dma_port::aligned_beats;
use rnic_tb::payload::{GatherBench, Packet, Stalls, TAGS};

#[test]
fn random_pieces_under_stalls() {
    let mut rng = Rng(0x11);
    let mut tb = GatherBench::new(1);
    tb.stalls = Stalls { piece: 30, lane: 40, cmd: 30, data: 30, out: 30 };
    let mut n = 0;
    for i in 0..300 {
        // mostly short pieces, where the joins and the lane edges are; some long ones
        let max_len = if i % 4 == 0 { 4096 } else { 200 };
        let pkt = GatherBench::random_packet(&mut rng, 8, 1, max_len, 3);
        n += pkt.pieces.len();
        tb.queue(&pkt);
    }
    tb.run(2_000_000);
    assert!(n > 1000, "{n} pieces");
    assert!(tb.out_beats > 3000, "{} beats", tb.out_beats);
}

#[test]
fn stalls_one_side_at_a_time() {
    let mut rng = Rng(0x12);
    let mut tb = GatherBench::new(2);
    for k in 0..5 {
        let mut s = [0u64; 5];
        s[k] = 80;
        tb.stalls = Stalls { piece: s[0], lane: s[1], cmd: s[2], data: s[3], out: s[4] };
        for _ in 0..40 {
            let pkt = GatherBench::random_packet(&mut rng, 8, 1, 300, 5);
            tb.queue(&pkt);
        }
        tb.run(500_000);
    }
}

/// Every start lane against every IO lane, for 1-, 63-, 64- and 65-byte pieces.
#[test]
fn every_lane_pair() {
    let mut rng = Rng(0x13);
    let mut tb = GatherBench::new(3);
    tb.stalls = Stalls { piece: 10, lane: 10, cmd: 10, data: 10, out: 10 };
    for lane in 0..64 {
        for io in 0..64u64 {
            let len = [1, 63, 64, 65][(lane + io as usize) % 4];
            let mut pkt = GatherBench::random_packet(&mut rng, 2, 1, 70, 0);
            pkt.lane = lane;
            pkt.pieces[0].iova = rnic_tb::payload::MEM_BASE + 4096 + io;
            pkt.pieces[0].len = len;
            tb.queue(&pkt);
        }
    }
    tb.run(1_000_000);
}

/// Pieces of 64 B and more at full rate: the data stream is taken at one
/// beat per cycle, less one cycle per piece whose last bytes pass lane 63 in
/// the realigner (at most one per piece); the output follows.
#[test]
fn full_rate() {
    for (min, max) in [(64, 64), (64, 4096), (4096, 4096), (1, 63)] {
        let mut rng = Rng(0x14 + min as u64);
        let mut tb = GatherBench::new(4);
        tb.latency = 20;
        let pkts: Vec<Packet> = (0..60).map(|_| GatherBench::random_packet(&mut rng, 8, min, max, 0)).collect();
        let pieces: usize = pkts.iter().map(|p| p.pieces.len()).sum();
        let in_beats: u64 = pkts.iter().flat_map(|p| &p.pieces).map(|pc| aligned_beats(pc.iova, pc.len) as u64).sum();
        for p in &pkts {
            tb.queue(p);
        }
        tb.run(1_000_000);
        assert_eq!(tb.data_beats, in_beats);
        let span = tb.data_cycles.last().unwrap() - tb.data_cycles[0] + 1;
        let out_span = tb.out_cycles.last().unwrap() - tb.out_cycles[0] + 1;
        eprintln!(
            "pieces {min}..={max} B: {pieces} pieces, {in_beats} data beats in {span} cycles ({:.3} per cycle), {} beats out in {out_span} cycles ({:.3} per cycle)",
            in_beats as f64 / span as f64,
            tb.out_beats,
            tb.out_beats as f64 / out_span as f64
        );
        assert!(span <= in_beats + pieces as u64, "{span} cycles for {in_beats} beats of {pieces} pieces");
        if min >= 64 {
            // the output is never slower than the data: each piece costs at most one cycle more
            assert!(out_span <= in_beats + pieces as u64 + 8, "{out_span} output cycles");
        }
        if min == 4096 {
            assert!(tb.out_beats as f64 / out_span as f64 > 0.97, "4 KiB pieces at full rate");
        }
    }
}

/// Commands do not wait for data: with a long read latency, `TAGS` commands are out before the first data beat.
#[test]
fn commands_run_ahead() {
    let mut rng = Rng(0x15);
    let mut tb = GatherBench::new(5);
    tb.latency = 200;
    let mut pieces = 0;
    for _ in 0..10 {
        let pkt = GatherBench::random_packet(&mut rng, 8, 1, 64, 0);
        pieces += pkt.pieces.len();
        tb.queue(&pkt);
    }
    let cycles = tb.run(100_000);
    // a round of `TAGS` commands per read latency (each piece is at most 2 beats); waiting for
    // each piece's data before the next command would take `pieces` latencies
    let rounds = pieces.div_ceil(TAGS) as u64;
    eprintln!("{pieces} pieces in {cycles} cycles, read latency 200, {TAGS} tags");
    assert!(cycles <= rounds * (200 + 2 * TAGS as u64) + 50, "{cycles} cycles");
}
