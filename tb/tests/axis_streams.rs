//! Stream blocks under random source stalls and sink backpressure (every
//! beat checked against a scoreboard), and at full rate, where the cycle
//! count is exact: N beats leave in N cycles after the block's latency.

use rnic_sim::axis::{random_packets, Rng, StreamBench};
use rnic_sim::models::{axis_fifo, axis_pipeline, axis_reg_slice, axis_skid_buffer};
use rnic_sim::Model;

const BEATS: usize = 3000;

fn stalls<M: Model>(dut: M, seed: u64) {
    let mut rng = Rng(seed);
    let mut tb = StreamBench::new(dut);
    tb.queue(random_packets(&mut rng, BEATS, 70));
    // each phase stresses a different side: slow source, slow sink, both
    for (p_valid, p_ready) in [(30, 90), (90, 30), (50, 50), (100, 10), (10, 100)] {
        for _ in 0..BEATS {
            tb.cycle(&mut rng, p_valid, p_ready);
        }
    }
    let mut guard = 0;
    while !tb.idle() {
        tb.cycle(&mut rng, 100, 100);
        guard += 1;
        assert!(guard < 10 * BEATS, "stream stopped moving: sent {} received {}", tb.sent, tb.received);
    }
    assert_eq!(tb.received, BEATS as u64, "beats lost or duplicated");
}

/// At full rate the first beat leaves after `latency` cycles and one beat
/// leaves every cycle after that.
fn full_rate<M: Model>(dut: M, latency: u64) {
    let mut rng = Rng(7);
    let mut tb = StreamBench::new(dut);
    let n = 1000;
    tb.queue(random_packets(&mut rng, n, 64));
    let start = tb.sim.cycle();
    while tb.received < n as u64 {
        tb.cycle(&mut rng, 100, 100);
        assert!(tb.sim.cycle() - start < 2 * n as u64, "too slow");
    }
    let first = tb.out_cycles[0] - start;
    let last = *tb.out_cycles.last().unwrap() - start;
    assert_eq!(first, latency, "latency in cycles");
    assert_eq!(last - first, n as u64 - 1, "{n} beats must leave in {n} consecutive cycles");
    eprintln!("{n} beats: first out after {first} cycles, last at {last}: 1 beat/cycle");
}

#[test]
fn reg_slice_random_stalls() {
    stalls(axis_reg_slice::Dut::new(), 1);
}
#[test]
fn reg_slice_full_rate() {
    full_rate(axis_reg_slice::Dut::new(), 1);
}
#[test]
fn skid_buffer_random_stalls() {
    stalls(axis_skid_buffer::Dut::new(), 2);
}
#[test]
fn skid_buffer_full_rate() {
    full_rate(axis_skid_buffer::Dut::new(), 1);
}
#[test]
fn fifo_random_stalls() {
    stalls(axis_fifo::Dut::new(), 3);
}
#[test]
fn fifo_full_rate() {
    full_rate(axis_fifo::Dut::new(), 2);
}
#[test]
fn pipeline_random_stalls() {
    stalls(axis_pipeline::Dut::new(), 4);
}
#[test]
fn pipeline_full_rate() {
    full_rate(axis_pipeline::Dut::new(), 20);
}

/// The FIFO holds 2^A + 1 beats (16 in LUTRAM, 1 in the output register)
/// and refuses the next one.
#[test]
fn fifo_capacity_and_full_flag() {
    let mut rng = Rng(9);
    let mut tb = StreamBench::new(axis_fifo::Dut::new());
    tb.queue(random_packets(&mut rng, 40, 4));
    for _ in 0..60 {
        tb.cycle(&mut rng, 100, 0);
    }
    assert_eq!(tb.sent, 17, "capacity");
    assert_eq!(tb.sim.dut.full(), 1, "full flag");
    while !tb.idle() {
        tb.cycle(&mut rng, 100, 100);
    }
    assert_eq!(tb.received, 40);
    assert_eq!(tb.sim.dut.full(), 0);
}

/// The packet register slice: its payload stream under stalls (scoreboard)
/// and at full rate, and its header channel under stalls, every header checked.
#[test]
fn pkt_reg_slice_payload_and_headers() {
    use rnic_sim::models::pkt_reg_slice;
    stalls(pkt_reg_slice::Dut::new(), 5);
    full_rate(pkt_reg_slice::Dut::new(), 1);

    let mut rng = Rng(6);
    let mut sim = rnic_sim::Clocked::new(pkt_reg_slice::Dut::new());
    sim.reset(2);
    let n = 2000u64;
    let hdr = |i: u64| -> [u32; 8] { std::array::from_fn(|w| (i as u32).wrapping_mul(0x9e37_79b9) ^ w as u32) };
    let (mut sent, mut got, mut presenting) = (0u64, 0u64, false);
    let mut cycles = 0;
    while got < n {
        if !presenting && sent < n && rng.chance(60) {
            sim.dut.set_s_hdr_tdata(&hdr(sent));
            presenting = true;
        }
        sim.dut.set_s_hdr_tvalid(presenting as u64);
        let ready = rng.chance(60);
        sim.dut.set_m_hdr_tready(ready as u64);
        sim.settle();
        if ready && sim.dut.m_hdr_tvalid() == 1 {
            assert_eq!(sim.dut.m_hdr_tdata(), hdr(got), "header {got}");
            got += 1;
        }
        if presenting && sim.dut.s_hdr_tready() == 1 {
            sent += 1;
            presenting = false;
        }
        sim.tick();
        cycles += 1;
        assert!(cycles < 20 * n, "header channel stopped");
    }
}
