//! `AxisRealign` against a byte-level reference: random packets (0..300
//! bytes, any start lane, any distance, error flags on random beats) come
//! out as the same bytes from lane (start + r) mod 64, under random stalls
//! on both sides, and at full rate with the exact cycle count.

use rnic_sim::axis::{Beat, Rng, StreamBench};
use rnic_sim::models::axis_realign::Dut;

/// One packet: its bytes, the lane of its first byte, the distance to move
/// them, and which of its input beats carry the error flag.
struct Packet {
    bytes: Vec<u8>,
    start: usize,
    r: usize,
    err_beats: Vec<bool>,
}

/// Beats of `bytes` laid out from lane `start`; one empty beat when there are none.
fn lay_out(bytes: &[u8], start: usize) -> Vec<(Vec<u8>, u64)> {
    let n_beats = if bytes.is_empty() { 1 } else { (start + bytes.len()).div_ceil(64) };
    let mut beats = vec![(vec![0u8; 64], 0u64); n_beats];
    for (i, &b) in bytes.iter().enumerate() {
        let pos = start + i;
        beats[pos / 64].0[pos % 64] = b;
        beats[pos / 64].1 |= 1 << (pos % 64);
    }
    beats
}

fn beat(bytes: &[u8], keep: u64, last: bool, user: u32) -> Beat {
    let mut data = [0u32; 16];
    for (i, w) in data.iter_mut().enumerate() {
        *w = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    }
    Beat { data, keep, last, user }
}

impl Packet {
    fn random(rng: &mut Rng, max_len: usize) -> Self {
        let len = rng.next() as usize % (max_len + 1);
        let bytes = (0..len).map(|_| rng.next() as u8).collect::<Vec<_>>();
        let start = rng.next() as usize % 64;
        let n = lay_out(&bytes, start).len();
        let err_beats = (0..n).map(|_| rng.chance(5)).collect();
        Packet { bytes, start, r: rng.next() as usize % 64, err_beats }
    }
    fn input(&self) -> Vec<Beat> {
        let beats = lay_out(&self.bytes, self.start);
        let n = beats.len();
        beats
            .iter()
            .enumerate()
            .map(|(i, (b, k))| {
                let r = if i == 0 { (self.r as u32) << 1 } else { 0 };
                beat(b, *k, i + 1 == n, r | self.err_beats[i] as u32)
            })
            .collect()
    }
    /// Its last bytes pass lane 63: the input gives up a cycle for the beat it gains there.
    fn wraps_at_end(&self) -> bool {
        !self.bytes.is_empty() && (self.start + self.bytes.len() - 1) % 64 + self.r >= 64
    }
    fn output(&self) -> Vec<Beat> {
        let beats = lay_out(&self.bytes, (self.start + self.r) % 64);
        let n = beats.len();
        let err = self.err_beats.iter().any(|&e| e) as u32;
        beats.iter().enumerate().map(|(i, (b, k))| beat(b, *k, i + 1 == n, if i + 1 == n { err } else { 0 })).collect()
    }
}

fn bench(packets: &[Packet]) -> StreamBench<Dut> {
    let mut tb = StreamBench::new(Dut::new());
    for p in packets {
        tb.queue(p.input());
        tb.expect(p.output());
    }
    tb
}

#[test]
fn random_packets_under_stalls() {
    let mut rng = Rng(11);
    let packets: Vec<Packet> = (0..1500).map(|i| Packet::random(&mut rng, if i % 3 == 0 { 70 } else { 300 })).collect();
    let want: usize = packets.iter().map(|p| p.output().len()).sum();
    let mut tb = bench(&packets);
    for (p_valid, p_ready) in [(30, 90), (90, 30), (50, 50), (100, 10), (10, 100), (100, 100)] {
        for _ in 0..1500 {
            tb.cycle(&mut rng, p_valid, p_ready);
        }
    }
    let mut guard = 0;
    while !tb.idle() {
        tb.cycle(&mut rng, 100, 100);
        guard += 1;
        assert!(guard < 50_000, "stream stopped moving: sent {} received {}", tb.sent, tb.received);
    }
    assert_eq!(tb.received, want as u64);
}

/// Every (start, r) pair for short packets, which gain or lose a beat at the edges.
#[test]
fn every_start_and_distance() {
    let mut rng = Rng(5);
    let mut packets = vec![];
    for start in 0..64 {
        for r in 0..64 {
            let len = [0, 1, 63, 64, 65, 130][(start + r) % 6];
            let bytes = (0..len).map(|_| rng.next() as u8).collect::<Vec<_>>();
            let n = lay_out(&bytes, start).len();
            packets.push(Packet { bytes, start, r, err_beats: (0..n).map(|i| i == 0 && r % 7 == 0).collect() });
        }
    }
    let want: usize = packets.iter().map(|p| p.output().len()).sum();
    let mut tb = bench(&packets);
    let mut guard = 0;
    while !tb.idle() {
        tb.cycle(&mut rng, 70, 70);
        guard += 1;
        assert!(guard < 100_000, "stream stopped moving");
    }
    assert_eq!(tb.received, want as u64);
}

/// At full rate the input takes one beat per cycle, plus one cycle per packet
/// whose last bytes pass lane 63 (they make a beat of their own); the output
/// follows `LATENCY` cycles behind.
#[test]
fn full_rate_cycle_count() {
    let mut rng = Rng(9);
    // the first packet keeps its first beat, so the first beat out is the first in
    let first = Packet { bytes: vec![7; 100], start: 0, r: 3, err_beats: vec![false; 2] };
    let packets: Vec<Packet> = std::iter::once(first).chain((0..400).map(|_| Packet::random(&mut rng, 200))).collect();
    let in_beats: usize = packets.iter().map(|p| p.input().len()).sum();
    let out_beats: usize = packets.iter().map(|p| p.output().len()).sum();
    let gained = packets.iter().filter(|p| p.wraps_at_end()).count();
    let mut tb = bench(&packets);
    let start = tb.sim.cycle();
    let mut first_in = None;
    while !tb.idle() {
        let sent = tb.sent;
        tb.cycle(&mut rng, 100, 100);
        if first_in.is_none() && tb.sent > sent {
            first_in = Some(tb.sim.cycle() - 1 - start);
        }
        assert!(tb.sim.cycle() - start < 4 * in_beats as u64, "too slow");
    }
    let first_in = first_in.unwrap();
    let first_out = tb.out_cycles[0] - start;
    let last_out = *tb.out_cycles.last().unwrap() - start;
    eprintln!(
        "{} packets, {in_beats} beats in, {out_beats} out, {gained} wrapped at their end: first in at {first_in}, first out at \
         {first_out}, last out at {last_out}",
        packets.len()
    );
    assert_eq!(tb.received, out_beats as u64);
    assert_eq!(first_out - first_in, rnic_hw::axis::AxisRealign::LATENCY, "latency");
    // the input's cycles: a beat each, and a free slot after each packet that gains a beat
    let in_cycles = (in_beats + gained) as u64;
    assert_eq!(last_out - first_in, in_cycles - 1 + rnic_hw::axis::AxisRealign::LATENCY, "cycles");
}
