//! `RxHold` (the receive path's ICRC hold) against the list of good
//! packets: random packets (0..4096 payload bytes, any start lane, random
//! headers, about 10 % bad) under random stalls on all four streams come out
//! as exactly the good ones, in order, header and payload beat for beat;
//! counters exact; full rate with exact cycle counts; a header consumer
//! that holds `m_hdr` for a long time stalls the inputs and then drains.

use rnic_hw::transport::{RxHold, RX_HOLD_MAX_BEATS, RX_HOLD_MAX_PAYLOAD};
use rnic_sim::axis::Rng;
use rnic_tb::rx_hold::{HoldBench, Packet, Stalls};

/// A random payload length: mostly short (where the one-beat packets and
/// lane edges are), a quarter up to the maximum.
fn random_len(rng: &mut Rng) -> usize {
    match rng.next() % 4 {
        0 => rng.next() as usize % (RX_HOLD_MAX_PAYLOAD + 1),
        1 => rng.next() as usize % 200,
        2 => rng.next() as usize % 65,
        _ => [0, 1, 63, 64, 65, 4096][rng.next() as usize % 6],
    }
}

fn random_packets(tb: &mut HoldBench, rng: &mut Rng, n: usize, p_bad: u64) {
    for _ in 0..n {
        let len = random_len(rng);
        let lane = rng.next() as usize % 64;
        let bad = rng.chance(p_bad);
        let pkt = Packet::random(rng, len, lane, bad);
        assert!(pkt.beats.len() <= RX_HOLD_MAX_BEATS);
        tb.queue(pkt);
    }
}

#[test]
fn random_packets_under_stalls() {
    let mut rng = Rng(0x51);
    let mut tb = HoldBench::new(1);
    tb.stalls = Stalls { hdr_in: 30, axis_in: 30, hdr_out: 30, axis_out: 30 };
    random_packets(&mut tb, &mut rng, 400, 10);
    tb.run(400_000);
    tb.check_counters();
    let bad = tb.pkts.iter().filter(|p| p.bad).count();
    assert!((20..=70).contains(&bad), "{bad} bad packets of 400");
    assert!(tb.beats_out > 3000, "{} beats out", tb.beats_out);
}

#[test]
fn each_stream_stalled_alone() {
    let mut rng = Rng(0x52);
    let mut tb = HoldBench::new(2);
    for k in 0..4 {
        let mut s = [0u64; 4];
        s[k] = 80;
        tb.stalls = Stalls { hdr_in: s[0], axis_in: s[1], hdr_out: s[2], axis_out: s[3] };
        random_packets(&mut tb, &mut rng, 60, 10);
        tb.run(200_000);
    }
    tb.check_counters();
}

/// A good packet alone: header and first payload beat offered exactly the
/// latencies after its last beat came in, whatever its size and lane.
#[test]
fn latency() {
    let mut rng = Rng(0x53);
    let mut tb = HoldBench::new(3);
    for (len, lane) in [(0, 0), (0, 63), (1, 5), (64, 0), (64, 1), (1000, 17), (4096, 63)] {
        let k = tb.pkts.len();
        tb.queue(Packet::random(&mut rng, len, lane, false));
        // the header a few cycles before the payload, as the parser sends it
        tb.axis_in_from = tb.sim.cycle() + 4;
        tb.run(1000);
        let t = &tb.times[k];
        assert_eq!(t.hdr_out - t.last_in, RxHold::HDR_LATENCY, "{len} bytes from lane {lane}: header");
        assert_eq!(t.beats_out[0] - t.last_in, RxHold::PAYLOAD_LATENCY, "{len} bytes from lane {lane}: payload");
    }
    assert_eq!((RxHold::HDR_LATENCY, RxHold::PAYLOAD_LATENCY), (3, 3));
    tb.check_counters();
}

/// Back-to-back maximum-size packets: in and out at one beat per cycle, in
/// exactly beats + one packet + the latency cycles.
#[test]
fn full_rate_max_size() {
    let mut rng = Rng(0x54);
    let mut tb = HoldBench::new(4);
    let n = 24;
    let lane = 10;
    for _ in 0..n {
        tb.queue(Packet::random(&mut rng, RX_HOLD_MAX_PAYLOAD, lane, false));
    }
    let per = tb.pkts[0].beats.len() as u64;
    assert_eq!(per, RX_HOLD_MAX_BEATS as u64);
    tb.axis_in_from = tb.sim.cycle() + 2;
    let start = tb.sim.cycle();
    tb.run(10_000);
    assert_eq!(tb.axis_in_stalled, 0, "the input never waits");
    let first_in = tb.times[0].last_in + 1 - per;
    let last_out = *tb.times[n - 1].beats_out.last().unwrap();
    // the first packet comes in, then every beat leaves one per cycle
    assert_eq!(last_out - first_in + 1, n as u64 * per + per + RxHold::PAYLOAD_LATENCY - 1);
    assert_eq!(first_in, start + 2);
    tb.check_schedule();
    tb.check_counters();
    eprintln!(
        "{n} packets of {RX_HOLD_MAX_PAYLOAD} B ({per} beats): {} cycles from the first beat in to the last out",
        last_out - first_in + 1
    );
}

/// Back-to-back maximum-size packets from random lanes (64 or 65 beats), a
/// tenth bad: the input never waits, the output follows the schedule.
#[test]
fn full_rate_mixed_lanes_and_bad() {
    let mut rng = Rng(0x55);
    let mut tb = HoldBench::new(5);
    for _ in 0..30 {
        let lane = rng.next() as usize % 64;
        let bad = rng.chance(10);
        tb.queue(Packet::random(&mut rng, RX_HOLD_MAX_PAYLOAD, lane, bad));
    }
    tb.axis_in_from = tb.sim.cycle() + 2;
    tb.run(10_000);
    assert_eq!(tb.axis_in_stalled, 0, "the input never waits");
    tb.check_schedule();
    tb.check_counters();
}

/// One-beat packets (0..=63 bytes in one beat), back to back: one packet per
/// cycle in and out.
#[test]
fn full_rate_one_beat_packets() {
    let mut rng = Rng(0x56);
    let mut tb = HoldBench::new(6);
    let n = 300u64;
    for _ in 0..n {
        let lane = rng.next() as usize % 64;
        let len = rng.next() as usize % (65 - lane);
        tb.queue(Packet::random(&mut rng, len, lane, false));
    }
    tb.axis_in_from = tb.sim.cycle() + 2;
    tb.run(10_000);
    assert_eq!(tb.axis_in_stalled + tb.hdr_in_stalled, 0, "the inputs never wait");
    tb.check_schedule();
    let first_in = tb.times[0].last_in;
    let last = &tb.times[n as usize - 1];
    assert_eq!(last.last_in - first_in + 1, n, "one packet per cycle in");
    assert_eq!(last.hdr_out - tb.times[0].hdr_out + 1, n, "one header per cycle out");
    assert_eq!(last.beats_out[0] - tb.times[0].beats_out[0] + 1, n, "one payload per cycle out");
    assert_eq!(last.hdr_out - first_in, n - 1 + RxHold::HDR_LATENCY);
    tb.check_counters();
}

/// One- and two-beat packets, a tenth bad, no stalls: the schedule holds
/// (bad packets cost their pairing cycle only) and the rate is at least one
/// packet per two cycles.
#[test]
fn full_rate_small_packets_with_bad() {
    let mut rng = Rng(0x57);
    let mut tb = HoldBench::new(7);
    let n = 300;
    for _ in 0..n {
        let lane = rng.next() as usize % 64;
        let len = rng.next() as usize % (129 - lane);
        let bad = rng.chance(10);
        tb.queue(Packet::random(&mut rng, len, lane, bad));
    }
    tb.axis_in_from = tb.sim.cycle() + 2;
    let cycles = tb.run(10_000);
    assert_eq!(tb.axis_in_stalled, 0, "the input never waits");
    tb.check_schedule();
    tb.check_counters();
    let beats = tb.beats_in;
    let span = tb.times[n - 1].last_in - (tb.times[0].last_in + 1 - tb.pkts[0].beats.len() as u64) + 1;
    assert_eq!(span, beats, "one beat per cycle in");
    assert!(2 * n as u64 >= span, "{n} packets in {span} cycles");
    assert!(cycles < span + 20);
}

/// The consumer holds `m_hdr` for a long time while payloads keep coming:
/// the payloads of packets whose headers were let go leave, then the inputs
/// stall (nothing lost, nothing dropped); once `m_hdr` is taken again
/// everything drains in order.
#[test]
fn header_consumer_held_long() {
    let mut rng = Rng(0x58);
    let mut tb = HoldBench::new(8);
    tb.stalls = Stalls { hdr_in: 10, axis_in: 10, hdr_out: 10, axis_out: 10 };
    random_packets(&mut tb, &mut rng, 300, 10);
    tb.hdr_out_hold_until = u64::MAX;
    for _ in 0..20_000 {
        tb.cycle();
    }
    assert!(tb.times.iter().all(|t| t.hdr_out == 0), "no header left while m_hdr was held");
    assert!(tb.axis_in_stalled > 10_000, "the payload input stalled ({} cycles)", tb.axis_in_stalled);
    let stuck_at = tb.beats_in;
    tb.hdr_out_hold_until = 0;
    tb.run(200_000);
    assert!(tb.beats_in > stuck_at);
    tb.check_counters();
}

/// The payload consumer holds `m_axis` while headers and payloads come:
/// the inputs stall when the ring is full, then everything drains.
#[test]
fn payload_consumer_held_long() {
    let mut rng = Rng(0x59);
    let mut tb = HoldBench::new(9);
    tb.stalls = Stalls { hdr_in: 10, axis_in: 10, hdr_out: 10, axis_out: 0 };
    random_packets(&mut tb, &mut rng, 200, 10);
    tb.stalls.axis_out = 100;
    for _ in 0..20_000 {
        tb.cycle();
    }
    assert_eq!(tb.beats_out, 0);
    assert!(tb.axis_in_stalled > 10_000, "the payload input stalled ({} cycles)", tb.axis_in_stalled);
    tb.stalls.axis_out = 10;
    tb.run(200_000);
    tb.check_counters();
}
