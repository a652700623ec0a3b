//! Protocol-aware stimulus for the differential test (`tb/tests/emitter_diff.rs`): drivers that take a
//! block through whole frames and transfers, written against [`Model`] so one
//! driver feeds both simulations of a [`Pair`] (every input goes to both,
//! every output is compared at each cycle). Reactive stimulus (DMA
//! completions, register responses) is computed from the rust-hdl side's
//! outputs, which the pair returns on reads.
//!
//! The drivers take `&mut dyn Sim`, and live in the library rather than the
//! test crate, so they are compiled once: written generic over the pair's
//! type, each of them was compiled again for every catalog block (about
//! 60 times), and the test binary took 406 s of CPU to build instead of
//! under 170 (docs/ci.md).
//!
//! Each driver returns what it reached ([`Reached`]); the test fails when a
//! count is below its minimum, so stimulus that degrades into nothing is
//! caught.

use crate::{capture, random_packet};
use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind};
use rnic_contract::layouts::{cqc, cqe, qpc};
use rnic_contract::{regs, regs::Doorbell};
use rnic_host::{HostSpace, Iommu, PcieConfig, Perms};
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_sim::diff::{Mismatch, Pair};
use rnic_sim::dma_port::{aligned_beats, aligned_keep, DmaPort};
use rnic_sim::frames::{drive_beat, frame_beats, idle, Beat512};
use rnic_sim::Model;
use std::collections::VecDeque;

/// A simulation the drivers can clock: a [`Pair`] (or, to debug a driver, a
/// Verilator model alone).
pub trait Sim: Model {
    /// Compare this cycle's outputs, then one clock cycle.
    fn step(&mut self) -> Result<(), Mismatch>;
    /// Cycles run.
    fn now(&self) -> u64;
}

impl Sim for Pair {
    fn step(&mut self) -> Result<(), Mismatch> {
        self.tick()
    }
    fn now(&self) -> u64 {
        self.cycle() as u64
    }
}

/// A state the stimulus must reach: `got` of `what`, at least `min`.
#[derive(Debug)]
pub struct Reached {
    pub what: &'static str,
    pub got: u64,
    pub min: u64,
}

fn reached(what: &'static str, got: u64, min: u64) -> Reached {
    Reached { what, got, min }
}

type Outcome = Result<Vec<Reached>, Mismatch>;

/// The protocol driver for catalog block `name`, if it has one.
pub fn protocol(name: &str, s: &mut dyn Sim) -> Option<Outcome> {
    Some(match name {
        "rx_parse" => rx_parse(s),
        "icrc_check" => icrc_check(s),
        "icrc_gen" => icrc_gen(s),
        "rx_header_decode" => rx_header_decode(s),
        "tx_build" => tx_build(s),
        "dma_engine" => dma_engine(s),
        "host_if" => host_if(s),
        "reg_file" => reg_file(s),
        "cq_engine" => cq_engine(s),
        "ctx_engine" => ctx_engine(s),
        "mr_check" => mr_check(s),
        "mr_xlate" => mr_xlate(s),
        "qpc_cache" | "qps_cache" | "mtt_cache" => ctx_cache(s),
        "qp_modify" => qp_modify(s),
        "send_sched" => send_sched(s),
        "inflight" => inflight(s),
        "req_gen" => req_gen(s),
        "req_fetch" => req_fetch(s),
        "req_payload" => req_payload(s),
        "retry_timer" => retry_timer(s),
        "ack_gen" => ack_gen(s),
        "comp_ack" => comp_ack(s),
        "resp_check" => resp_check(s),
        "axis_reg_slice" | "axis_skid_buffer" | "axis_fifo" | "axis_pipeline" => {
            streams(s, &[("s_axis", "m_axis")], true)
        }
        // flow only: its output is its input moved by `r` lanes (tuser), checked in tb/tests/axis_realign.rs
        "axis_realign" => streams(s, &[("s_axis", "m_axis")], false),
        "pkt_reg_slice" => streams(s, &[("s_hdr", "m_hdr"), ("s_axis", "m_axis")], true),
        "rnic_core" => rnic_core(s),
        _ => return None,
    })
}

// ---------------------------------------------------------------- helpers

fn set_wide<M: Model + ?Sized>(m: &mut M, name: &str, w: &[u32]) {
    let i = m.port(name);
    m.set_words(i, w);
}

fn get_wide<M: Model + ?Sized>(m: &M, name: &str) -> Vec<u32> {
    let i = m.port(name);
    let mut w = vec![0u32; m.ports()[i].words()];
    m.get_words(i, &mut w);
    w
}

fn bit<M: Model + ?Sized>(m: &M, name: &str) -> bool {
    m.get(name) & 1 == 1
}

fn random_words(rng: &mut Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| rng.next() as u32).collect()
}

fn bytes_of(words: &[u32], keep: u64) -> Vec<u8> {
    (0..64).filter(|i| keep >> i & 1 == 1).map(|i| (words[i / 4] >> (8 * (i % 4))) as u8).collect()
}

fn words_of(bytes: &[u8; 64]) -> [u32; 16] {
    std::array::from_fn(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
}

/// Synchronous reset for two cycles, every other input at 0.
fn reset(s: &mut dyn Sim) -> Result<(), Mismatch> {
    if s.ports().iter().any(|p| p.rust_path == "reset") {
        s.set("reset", 1);
        s.step()?;
        s.step()?;
        s.set("reset", 0);
    }
    Ok(())
}

/// An AXI stream source on `prefix` (`tdata`, `tkeep`, `tlast`, `tuser`,
/// `tvalid`, `tready`, whichever the port has): a beat once offered stays
/// until taken; while idle the data lines carry noise.
struct Source {
    prefix: &'static str,
    beats: VecDeque<(Beat512, u32)>,
    on: bool,
    has_keep: bool,
    has_user: bool,
    has_last: bool,
    pub taken: u64,
}

impl Source {
    fn new<M: Model + ?Sized>(m: &M, prefix: &'static str) -> Self {
        let has = |f: &str| m.ports().iter().any(|p| p.rust_path == format!("{prefix}.{f}"));
        Source {
            prefix,
            beats: VecDeque::new(),
            on: false,
            has_keep: has("tkeep"),
            has_user: has("tuser"),
            has_last: has("tlast"),
            taken: 0,
        }
    }
    fn frame(&mut self, bytes: &[u8], user: u32) {
        let beats = frame_beats(bytes);
        let n = beats.len();
        for (k, b) in beats.into_iter().enumerate() {
            self.beats.push_back((b, if k + 1 == n { user } else { 0 }));
        }
    }
    fn drive<M: Model + ?Sized>(&mut self, m: &mut M, rng: &mut Rng, p_valid: u64) {
        let p = self.prefix;
        if !self.on && !self.beats.is_empty() && rng.chance(p_valid) {
            let (b, user) = &self.beats[0];
            set_wide(m, &format!("{p}.tdata"), &b.data);
            if self.has_keep {
                m.set(&format!("{p}.tkeep"), b.keep);
            }
            if self.has_last {
                m.set(&format!("{p}.tlast"), b.last as u64);
            }
            if self.has_user {
                m.set(&format!("{p}.tuser"), *user as u64);
            }
            self.on = true;
        } else if !self.on {
            set_wide(m, &format!("{p}.tdata"), &random_words(rng, 16));
            if self.has_last {
                m.set(&format!("{p}.tlast"), rng.next() & 1);
            }
        }
        m.set(&format!("{p}.tvalid"), self.on as u64);
    }
    /// After `eval`: did the beat go?
    fn sample<M: Model + ?Sized>(&mut self, m: &M) -> bool {
        if self.on && bit(m, &format!("{}.tready", self.prefix)) {
            self.on = false;
            self.beats.pop_front();
            self.taken += 1;
            return true;
        }
        false
    }
}

/// An AXI stream sink on `prefix` with random `tready`, collecting packets
/// (bytes by `tkeep`, whole beats without it) and each last beat's `tuser`.
struct Sink {
    prefix: &'static str,
    ready: bool,
    has_keep: bool,
    has_user: bool,
    has_last: bool,
    /// Bytes of `tdata`.
    width_bytes: usize,
    cur: Vec<u8>,
    pub packets: Vec<(Vec<u8>, u64)>,
    pub beats: u64,
}

impl Sink {
    fn new<M: Model + ?Sized>(m: &M, prefix: &'static str) -> Self {
        let has = |f: &str| m.ports().iter().any(|p| p.rust_path == format!("{prefix}.{f}"));
        Sink {
            prefix,
            ready: false,
            has_keep: has("tkeep"),
            has_user: has("tuser"),
            has_last: has("tlast"),
            width_bytes: m.ports()[m.port(&format!("{prefix}.tdata"))].width / 8,
            cur: vec![],
            packets: vec![],
            beats: 0,
        }
    }
    fn drive<M: Model + ?Sized>(&mut self, m: &mut M, rng: &mut Rng, p_ready: u64) {
        self.ready = rng.chance(p_ready);
        m.set(&format!("{}.tready", self.prefix), self.ready as u64);
    }
    fn sample<M: Model + ?Sized>(&mut self, m: &M) -> bool {
        let p = self.prefix;
        if !(self.ready && bit(m, &format!("{p}.tvalid"))) {
            return false;
        }
        let data = get_wide(m, &format!("{p}.tdata"));
        let all = if self.width_bytes >= 64 { u64::MAX } else { (1u64 << self.width_bytes) - 1 };
        let keep = if self.has_keep { m.get(&format!("{p}.tkeep")) } else { all };
        let mut d = [0u32; 16];
        d[..data.len().min(16)].copy_from_slice(&data[..data.len().min(16)]);
        self.cur.extend(bytes_of(&d, keep));
        self.beats += 1;
        if !self.has_last || bit(m, &format!("{p}.tlast")) {
            let user = if self.has_user { m.get(&format!("{p}.tuser")) } else { 0 };
            self.packets.push((std::mem::take(&mut self.cur), user));
        }
        true
    }
}

// ---------------------------------------------------------------- streams

/// Packets through stream blocks: each `(sink port, source port)` pair gets
/// its own packets (random bytes, 1..=400 per packet, `tuser` on the last
/// beat; one full-width beat per packet on a header channel), under stall
/// phases that include the output held off long enough to fill the block.
/// With `same`, every packet out must be the packet in.
fn streams(s: &mut dyn Sim, chans: &[(&'static str, &'static str)], same: bool) -> Outcome {
    let mut rng = Rng(0x5eed_000b);
    reset(s)?;
    let mut srcs: Vec<Source> = chans.iter().map(|c| Source::new(s, c.0)).collect();
    let mut sinks: Vec<Sink> = chans.iter().map(|c| Sink::new(s, c.1)).collect();
    let mut sent: Vec<Vec<(Vec<u8>, u64)>> = vec![];
    for (src, sink) in srcs.iter_mut().zip(&sinks) {
        let mut v = vec![];
        for _ in 0..80 {
            let len = if sink.has_keep { 1 + (rng.next() % 400) as usize } else { sink.width_bytes };
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            let user = if src.has_user { (rng.next() & 1) as u32 } else { 0 };
            src.frame(&bytes, user);
            v.push((bytes, user as u64));
        }
        sent.push(v);
    }
    let mut held = 0u64;
    let limit = s.now() + 20_000;
    while sinks.iter().zip(&sent).any(|(k, v)| k.packets.len() < v.len()) {
        assert!(
            s.now() < limit,
            "streams: {:?} packets out",
            sinks.iter().map(|k| k.packets.len()).collect::<Vec<_>>()
        );
        let (pv, pr) = [(100, 100), (100, 0), (80, 85), (60, 30), (100, 70)][(s.now() / 60 % 5) as usize];
        for (src, sink) in srcs.iter_mut().zip(sinks.iter_mut()) {
            src.drive(s, &mut rng, pv);
            sink.drive(s, &mut rng, pr);
        }
        s.eval();
        for (src, sink) in srcs.iter_mut().zip(sinks.iter_mut()) {
            if src.on && !bit(s, &format!("{}.tready", src.prefix)) {
                held += 1;
            }
            src.sample(s);
            sink.sample(s);
        }
        s.step()?;
    }
    let n: u64 = sent.iter().map(|v| v.len() as u64).sum();
    let out: u64 = sinks.iter().map(|k| k.packets.len() as u64).sum();
    let equal: u64 =
        sinks.iter().zip(&sent).map(|(k, v)| k.packets.iter().zip(v).filter(|(a, b)| a == b).count() as u64).sum();
    let mut r = vec![reached("packets out", out, n), reached("cycles a source was held off (block full)", held, 40)];
    if same {
        r.push(reached("packets out identical to the packets in", equal, n));
    }
    Ok(r)
}

// ---------------------------------------------------------------- wire side

/// Received frames: rxe captures (including the 3 frames with a corrupted
/// ICRC), the model encoder's packets of every opcode (IPv4/IPv6, VLAN or
/// not, payloads up to 1 KiB), and corruptions of both: a flipped ICRC or
/// IPv4 header checksum byte, the MAC error flag, a non-IP ethertype (raw),
/// Ethernet padding, truncation. `(frame, tuser)`, captures and
/// generated frames interleaved.
fn rx_frames(rng: &mut Rng) -> Vec<(Vec<u8>, u32)> {
    let mut caps: Vec<(Vec<u8>, u32)> = vec![];
    // the bad-ICRC capture's corrupted frames are its frames 5, 50 and 120 (1-based)
    caps.extend(capture("rxe_with_3_bad_icrc.pcap").into_iter().take(130).step_by(5).map(|f| (f, 0)));
    caps.extend(capture("rxe_with_3_bad_icrc.pcap").into_iter().skip(4).step_by(45).map(|f| (f, 0)));
    caps.extend(capture("rxe_rc_ud_perftest.pcap").into_iter().step_by(5).map(|f| (f, 0)));
    let mut gen: Vec<(Vec<u8>, u32)> = vec![];
    for i in 0..3 * Opcode::ALL.len() {
        let op = Opcode::ALL[i % Opcode::ALL.len()];
        let mut p = random_packet(rng, op);
        if p.bth.opcode.carries_payload() && i % 4 == 1 {
            p.payload = (0..1 + rng.next() % 1024).map(|k| k as u8).collect();
        }
        let mut f = encode_frame(&p).unwrap();
        let mut user = 0;
        match i % 13 {
            4 => {
                let n = f.len();
                f[n - 2] ^= 0x10; // ICRC
            }
            5 if f[12] == 0x08 => f[24] ^= 0x01,           // IPv4 header checksum
            6 => user = 1,                                 // MAC error
            8 => f[12..14].copy_from_slice(&[0x08, 0x06]), // not IP: raw
            9 => f.extend(std::iter::repeat_n(0, 1 + (rng.next() % 40) as usize)), // Ethernet padding
            11 => f.truncate(20 + (rng.next() % 40) as usize), // truncated: malformed
            _ => {}
        }
        gen.push((f, user));
    }
    let mut out = vec![];
    for k in 0..caps.len().max(gen.len()) {
        out.extend(caps.get(k).cloned());
        out.extend(gen.get(k).cloned());
    }
    out
}

/// Stall rates (valid %, ready %) by phase of 150 cycles: line rate, light
/// and heavy backpressure, bursty sources.
fn rates(now: u64) -> (u64, u64) {
    [(100, 100), (80, 85), (60, 30), (100, 70), (40, 100)][(now / 150 % 5) as usize]
}

fn rx_parse(s: &mut dyn Sim) -> Outcome {
    use crate::rx::{ICRC, IP_CSUM, MAC_ERR, MALFORMED, RAW, ROCE};
    let mut rng = Rng(0x5eed_0001);
    let frames = rx_frames(&mut rng);
    reset(s)?;
    let mut src = Source::new(s, "s_axis");
    let mut hdr = Sink::new(s, "m_hdr");
    let mut pay = Sink::new(s, "m_axis");
    let mut raw = Sink::new(s, "m_raw");
    let mut codes = [0u64; 8];
    // all frames; then frames cut off by a reset in mid-traffic; then frames after it
    let tail: Vec<(Vec<u8>, u32)> = frames.iter().skip(7).step_by(9).cloned().collect();
    let mut decided = 0;
    let mut after_reset = 0;
    for (segment, list) in [&frames, &tail, &tail].into_iter().enumerate() {
        for (f, u) in list {
            src.frame(f, *u);
        }
        let limit = s.now() + 200 + 10 * src.beats.len() as u64;
        let mut n = 0;
        let goal = if segment == 1 { list.len() / 2 } else { list.len() };
        while n < goal {
            assert!(s.now() < limit, "rx_parse: {n} of {} frames decided", list.len());
            let (pv, pr) = rates(s.now());
            src.drive(s, &mut rng, pv);
            hdr.drive(s, &mut rng, pr);
            pay.drive(s, &mut rng, pr);
            raw.drive(s, &mut rng, pr);
            s.eval();
            src.sample(s);
            hdr.sample(s);
            pay.sample(s);
            raw.sample(s);
            if bit(s, "done_valid") {
                codes[s.get("done_code") as usize & 7] += 1;
                n += 1;
            }
            s.step()?;
        }
        match segment {
            0 => decided = n,
            // reset with frames in every stage: the source drops what it had
            1 => {
                src = Source::new(s, "s_axis");
                s.set("s_axis.tvalid", 0);
                reset(s)?;
                for k in [&mut hdr, &mut pay, &mut raw] {
                    k.cur.clear();
                }
            }
            _ => after_reset = n,
        }
    }
    let good_payloads = pay.packets.iter().filter(|p| p.1 == 0).count() as u64;
    Ok(vec![
        reached("frames decided", decided as u64, frames.len() as u64),
        reached("frames decided after a reset in mid-traffic", after_reset as u64, tail.len() as u64),
        reached("RoCE frames passed with a good ICRC", codes[ROCE as usize], 200),
        reached("frames dropped for a bad ICRC", codes[ICRC as usize], 6),
        reached("frames dropped for a bad IPv4 checksum", codes[IP_CSUM as usize], 2),
        reached("malformed frames", codes[MALFORMED as usize], 3),
        reached("raw frames", codes[RAW as usize], 3),
        reached("MAC-error frames", codes[MAC_ERR as usize], 3),
        reached("headers out on m_hdr", hdr.beats, 200),
        reached("payloads whose last beat left with a good verdict", good_payloads, 150),
        reached("raw frames out on m_raw", raw.packets.len() as u64, 3),
    ])
}

fn icrc_check(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_0002);
    let frames = rx_frames(&mut rng);
    reset(s)?;
    let mut src = Source::new(s, "s_axis");
    for (f, u) in &frames {
        src.frame(f, *u);
    }
    let (mut ok, mut bad, mut verdicts) = (0, 0, 0);
    let limit = s.now() + 40 * src.beats.len() as u64;
    while verdicts < frames.len() {
        assert!(s.now() < limit, "icrc_check: {verdicts} of {} verdicts", frames.len());
        src.drive(s, &mut rng, rates(s.now()).0);
        s.eval();
        src.sample(s);
        if bit(s, "verdict_valid") {
            verdicts += 1;
            if bit(s, "verdict_icrc_ok") {
                ok += 1;
            } else {
                bad += 1;
            }
        }
        s.step()?;
    }
    Ok(vec![
        reached("verdicts", verdicts as u64, frames.len() as u64),
        reached("frames with a good ICRC", ok, 200),
        reached("frames with a bad ICRC (corrupted, not IP or truncated)", bad, 10),
    ])
}

fn icrc_gen(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_0012);
    let frames = rx_frames(&mut rng);
    reset(s)?;
    let mut src = Source::new(s, "s_axis");
    for (f, u) in &frames {
        src.frame(f, *u);
    }
    let (mut icrcs, mut misaligned) = (0, 0);
    let limit = s.now() + 40 * src.beats.len() as u64;
    while icrcs < frames.len() {
        assert!(s.now() < limit, "icrc_gen: {icrcs} of {} ICRCs", frames.len());
        src.drive(s, &mut rng, rates(s.now()).0);
        s.eval();
        src.sample(s);
        if bit(s, "icrc_valid") {
            icrcs += 1;
            misaligned += bit(s, "icrc_misaligned") as u64;
        }
        s.step()?;
    }
    Ok(vec![
        reached("ICRCs", icrcs as u64, frames.len() as u64),
        reached("word-aligned packets", icrcs as u64 - misaligned, 200),
    ])
}

fn rx_header_decode(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_0003);
    let mut frames: Vec<Vec<u8>> = rx_frames(&mut rng).into_iter().map(|f| f.0).collect();
    frames.extend(capture("rxe_rc_ud_perftest.pcap").into_iter().skip(5).step_by(7));
    let (mut roce, mut raw, mut csum) = (0, 0, 0);
    for f in &frames {
        let mut w = [0u32; 32];
        for (i, b) in f.iter().take(128).enumerate() {
            w[i / 4] |= (*b as u32) << (8 * (i % 4));
        }
        set_wide(s, "window", &w);
        s.eval();
        roce += s.get("is_roce") & 1;
        raw += s.get("is_raw") & 1;
        csum += s.get("ip_csum_ok") & 1;
        s.step()?;
    }
    Ok(vec![
        reached("windows decoded as RoCE", roce, 100),
        reached("windows decoded as raw", raw, 2),
        reached("IPv4 checksums found good", csum, 50),
    ])
}

/// `count` packets for the builder, opcodes in turn from `first`: (the
/// model encoder's frames, the builder's headers, the payloads).
type TxPackets = (Vec<Vec<u8>>, VecDeque<Vec<u32>>, Vec<Vec<u8>>);
fn tx_packets(rng: &mut Rng, first: usize, count: usize) -> TxPackets {
    let (mut frames, mut hdrs, mut pays) = (vec![], VecDeque::new(), vec![]);
    for i in first..first + count {
        let mut p = random_packet(rng, Opcode::ALL[i % Opcode::ALL.len()]);
        if p.bth.opcode.carries_payload() {
            let len = match i % 7 {
                0 => 4096,
                1 | 2 => 1 + rng.next() % 1024,
                _ => rng.next() % 200,
            };
            p.payload = (0..len).map(|k| (k * 7 + i as u64) as u8).collect();
        }
        hdrs.push_back(crate::tx::tx_header(&mut p, (rng.next() & 0xff_ffff) as u32, i as u16));
        frames.push(encode_frame(&p).unwrap());
        pays.push(p.payload);
    }
    (frames, hdrs, pays)
}

fn tx_build(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_0004);
    reset(s)?;
    let mut out = Sink::new(s, "m_axis");
    let hdr_words = s.ports()[s.port("s_hdr.tdata")].words();
    let n = 4 * Opcode::ALL.len();
    let (mut first_same, mut first_out, mut after_same) = (0, 0, 0);
    // every opcode four times; then packets cut off by a reset in mid-traffic; then packets after it
    for (segment, (count, goal)) in [(n, n), (12, 4), (12, 12)].into_iter().enumerate() {
        let (expected, mut hdrs, pays) = tx_packets(&mut rng, 3 * segment, count);
        assert!(hdrs.iter().all(|h| h.len() == hdr_words));
        let mut pay = Source::new(s, "s_axis");
        // each payload in its wire lanes, as the builder takes it
        for (p, h) in pays.iter().zip(&hdrs) {
            let lane = crate::tx::tx_payload_lane(h);
            pay.beats.extend(crate::tx::payload_beats(p, lane).into_iter().map(|b| (b, 0)));
        }
        out.packets.clear();
        let limit = s.now() + 2000 + 10 * (count + pay.beats.len()) as u64;
        let mut hdr_on = false;
        while out.packets.len() < goal {
            assert!(s.now() < limit, "tx_build: {} of {goal} frames", out.packets.len());
            let (pv, pr) = rates(s.now());
            // the header source: whole headers, one beat each
            if !hdr_on && !hdrs.is_empty() && rng.chance(pv) {
                set_wide(s, "s_hdr.tdata", &hdrs[0]);
                hdr_on = true;
            } else if !hdr_on {
                set_wide(s, "s_hdr.tdata", &random_words(&mut rng, hdr_words));
            }
            s.set("s_hdr.tvalid", hdr_on as u64);
            pay.drive(s, &mut rng, pv);
            out.drive(s, &mut rng, pr);
            s.eval();
            if hdr_on && bit(s, "s_hdr.tready") {
                hdrs.pop_front();
                hdr_on = false;
            }
            pay.sample(s);
            out.sample(s);
            s.step()?;
        }
        let same = out.packets.iter().zip(&expected).filter(|(a, b)| &a.0 == *b).count() as u64;
        match segment {
            0 => (first_same, first_out) = (same, out.packets.len() as u64),
            1 => {
                // reset with a frame half built: the sources drop what they had
                s.set("s_hdr.tvalid", 0);
                s.set("s_axis.tvalid", 0);
                reset(s)?;
                out.cur.clear();
            }
            _ => after_same = same,
        }
    }
    Ok(vec![
        reached("frames out", first_out, n as u64),
        reached("frames byte-identical to the model's encoder", first_same, n as u64),
        reached("frames byte-identical to the model's after a reset in mid-traffic", after_same, 12),
    ])
}

// ---------------------------------------------------------------- DMA engine

const READ_BASE: u64 = 0x1_0000_0000;
const WRITE_BASE: u64 = 0x2_0000_0000;
const UNMAPPED: u64 = 0x7_0000_0000;

/// A fast link (short round trips, completions reordered across tags), so
/// the differential run sees many transfers per cycle simulated.
fn quick_link(seed: u64) -> PcieConfig {
    PcieConfig { read_round_trip: 24, write_latency: 12, ..PcieConfig::gen3_x16() }.with_reorder(seed)
}

struct WriteJob {
    addr: u64,
    data: Vec<u8>,
    beat: usize,
}

/// Beat `k` of an address-aligned write of `data` at `addr`: (words, keep, last).
fn write_beat(rng: &mut Rng, addr: u64, data: &[u8], k: usize) -> ([u32; 16], u64, bool) {
    let keep = aligned_keep(addr, data.len(), k);
    let base = addr - addr % 64 + 64 * k as u64;
    let mut bytes = [0u8; 64];
    for (lane, b) in bytes.iter_mut().enumerate() {
        *b = if keep >> lane & 1 == 1 { data[(base + lane as u64 - addr) as usize] } else { rng.next() as u8 };
    }
    (words_of(&bytes), keep, k + 1 == aligned_beats(addr, data.len()))
}

fn dma_engine(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_0005);
    let mut host = HostSpace { iommu: Iommu::counting(), ..HostSpace::default() };
    host.iommu.map(READ_BASE, 1 << 20, 0x1000_0000, Perms::R).unwrap();
    host.iommu.map(WRITE_BASE, 1 << 20, 0x2000_0000, Perms::W).unwrap();
    let fill: Vec<u8> = (0..1 << 20).map(|_| rng.next() as u8).collect();
    host.memory.write(0x1000_0000, &fill);
    let mut port = DmaPort::new(s, host, quick_link(5), 0x77);
    reset(s)?;
    let (mut rd_cmds_done, mut rd_err_beats, mut wr_done, mut wr_err) = (0u64, 0u64, 0u64, 0u64);
    let (mut want_rd, mut want_wr) = (0, 0);
    // (max read request, max payload) in PCIe encoding, changed while idle
    for (phase, (max_read, max_payload)) in [(1u64, 0u64), (2, 1), (5, 3)].into_iter().enumerate() {
        s.set("cfg_max_read", max_read);
        s.set("cfg_max_payload", max_payload);
        port.ready_pct = [80, 100, 50][phase];
        let mut rd: [VecDeque<(u64, u64)>; 4] = Default::default();
        let mut wr: [VecDeque<WriteJob>; 4] = Default::default();
        for c in 0..4 {
            for k in 0..5 {
                let addr = if c == 3 && k == 2 { UNMAPPED } else { READ_BASE + (rng.next() % (1 << 19)) };
                let len = if k == 4 { 1 + rng.next() % 5000 } else { 1 + rng.next() % 700 };
                rd[c].push_back((addr, len));
                let addr = if c == 2 && k == 3 { UNMAPPED } else { WRITE_BASE + (rng.next() % (1 << 19)) };
                let len = if k == 1 { 1 + rng.next() % 2000 } else { 1 + rng.next() % 300 };
                let data = (0..len).map(|_| rng.next() as u8).collect();
                wr[c].push_back(WriteJob { addr, data, beat: 0 });
            }
        }
        want_wr += wr.iter().map(|q| q.len() as u64).sum::<u64>();
        want_rd += rd.iter().map(|q| q.len() as u64).sum::<u64>();
        let (mut rd_on, mut wr_on) = ([false; 4], [false; 4]);
        let limit = s.now() + 8000;
        while rd_cmds_done < want_rd || wr_done < want_wr {
            assert!(s.now() < limit, "dma_engine: {rd_cmds_done}/{want_rd} reads, {wr_done}/{want_wr} writes done");
            let now = s.now();
            let (pv, pr) = rates(now);
            let mut d_ready = [false; 4];
            for c in 0..4 {
                if !rd_on[c] && !rd[c].is_empty() && rng.chance(pv) {
                    let (a, l) = rd[c][0];
                    s.set(&format!("s_rd.{c}.addr"), a);
                    s.set(&format!("s_rd.{c}.len"), l);
                    rd_on[c] = true;
                }
                s.set(&format!("s_rd.{c}.valid"), rd_on[c] as u64);
                d_ready[c] = rng.chance(pr);
                s.set(&format!("m_rd.{c}.tready"), d_ready[c] as u64);
                if !wr_on[c] && !wr[c].is_empty() && rng.chance(pv) {
                    let j = &wr[c][0];
                    let (w, keep, last) = write_beat(&mut rng, j.addr, &j.data, j.beat);
                    set_wide(s, &format!("s_wr.{c}.tdata"), &w);
                    s.set(&format!("s_wr.{c}.tkeep"), keep);
                    s.set(&format!("s_wr.{c}.tlast"), last as u64);
                    s.set(&format!("s_wr.{c}.addr"), j.addr);
                    s.set(&format!("s_wr.{c}.len"), j.data.len() as u64);
                    wr_on[c] = true;
                }
                s.set(&format!("s_wr.{c}.tvalid"), wr_on[c] as u64);
            }
            port.drive(s);
            s.eval();
            for c in 0..4 {
                if rd_on[c] && bit(s, &format!("s_rd.{c}.ready")) {
                    rd_on[c] = false;
                    rd[c].pop_front();
                }
                if d_ready[c] && bit(s, &format!("m_rd.{c}.tvalid")) {
                    rd_err_beats += s.get(&format!("m_rd.{c}.tuser")) & 1;
                    rd_cmds_done += s.get(&format!("m_rd.{c}.tlast")) & 1;
                }
                if wr_on[c] && bit(s, &format!("s_wr.{c}.tready")) {
                    wr_on[c] = false;
                    let j = wr[c].front_mut().unwrap();
                    j.beat += 1;
                    if j.beat == aligned_beats(j.addr, j.data.len()) {
                        wr[c].pop_front();
                    }
                }
            }
            wr_done += s.get("wr_done").count_ones() as u64;
            wr_err += s.get("wr_done_err").count_ones() as u64;
            port.sample(s, now);
            s.step()?;
        }
    }
    Ok(vec![
        reached("read commands delivered to their client (tlast)", rd_cmds_done, want_rd),
        reached("read beats flagged as failed (IOMMU fault)", rd_err_beats, 3),
        reached("read requests answered by the host", port.stats.read_requests, 150),
        reached("write completions to clients (wr_done)", wr_done, want_wr),
        reached("writes completed with an error", wr_err, 3),
        reached("bytes written to the host", port.stats.write_bytes, 10_000),
    ])
}

// ---------------------------------------------------------------- register port

/// A register access script for an AXI4-Lite port `s_axil`.
#[derive(Clone, Copy, Debug)]
enum Op {
    W(u32, u32),
    R(u32),
    /// Read `ctx_status` until BUSY is clear.
    WaitCtx,
    /// Let `n` cycles pass.
    Idle(u64),
    /// Everything before it is done: set [`Axil::mark`].
    Mark(u32),
}

enum AxState {
    Idle,
    Write { aw: bool, w: bool },
    Resp,
    Read { ar: bool, poll: bool },
}

struct Axil {
    ops: VecDeque<Op>,
    st: AxState,
    idle_until: u64,
    drove: (bool, bool, bool, bool, bool),
    pub writes: u64,
    pub reads: Vec<(u32, u32)>,
    /// The latest [`Op::Mark`] passed.
    pub mark: u32,
}

impl Axil {
    fn new(ops: impl IntoIterator<Item = Op>) -> Self {
        Axil {
            ops: ops.into_iter().collect(),
            st: AxState::Idle,
            mark: 0,
            idle_until: 0,
            drove: Default::default(),
            writes: 0,
            reads: vec![],
        }
    }
    fn done(&self) -> bool {
        self.ops.is_empty() && matches!(self.st, AxState::Idle)
    }
    fn drive<M: Model + ?Sized>(&mut self, m: &mut M, rng: &mut Rng, now: u64) {
        if matches!(self.st, AxState::Idle) && now >= self.idle_until {
            match self.ops.pop_front() {
                Some(Op::W(a, d)) => {
                    m.set("s_axil.awaddr", a as u64);
                    m.set("s_axil.wdata", d as u64);
                    m.set("s_axil.wstrb", 0xF);
                    self.st = AxState::Write { aw: false, w: false };
                }
                Some(Op::R(a)) => {
                    m.set("s_axil.araddr", a as u64);
                    self.st = AxState::Read { ar: false, poll: false };
                }
                Some(Op::WaitCtx) => {
                    m.set("s_axil.araddr", regs::ctx_status::OFFSET as u64);
                    self.st = AxState::Read { ar: false, poll: true };
                }
                Some(Op::Idle(n)) => self.idle_until = now + n,
                Some(Op::Mark(k)) => self.mark = k,
                None => {}
            }
        }
        let (mut aw, mut w, mut ar) = (false, false, false);
        match self.st {
            AxState::Write { aw: a, w: ww } => {
                aw = !a && rng.chance(80);
                w = !ww && rng.chance(80);
            }
            AxState::Read { ar: a, .. } => ar = !a && rng.chance(80),
            _ => {}
        }
        let (b, r) = (rng.chance(75), rng.chance(75));
        m.set("s_axil.awvalid", aw as u64);
        m.set("s_axil.wvalid", w as u64);
        m.set("s_axil.arvalid", ar as u64);
        m.set("s_axil.bready", b as u64);
        m.set("s_axil.rready", r as u64);
        self.drove = (aw, w, ar, b, r);
    }
    fn sample<M: Model + ?Sized>(&mut self, m: &M) {
        let (aw, w, ar, b, r) = self.drove;
        match &mut self.st {
            AxState::Write { aw: a, w: ww } => {
                *a |= aw && bit(m, "s_axil.awready");
                *ww |= w && bit(m, "s_axil.wready");
                if *a && *ww {
                    self.st = AxState::Resp;
                }
            }
            AxState::Resp => {
                if b && bit(m, "s_axil.bvalid") {
                    self.writes += 1;
                    self.st = AxState::Idle;
                }
            }
            AxState::Read { ar: a, poll } => {
                if ar && bit(m, "s_axil.arready") {
                    *a = true;
                } else if *a && r && bit(m, "s_axil.rvalid") {
                    let data = m.get("s_axil.rdata") as u32;
                    let addr = m.get("s_axil.araddr") as u32;
                    if *poll && regs::ctx_status::BUSY.get(data) == 1 {
                        self.ops.push_front(Op::WaitCtx);
                    }
                    self.reads.push((addr, data));
                    self.st = AxState::Idle;
                }
            }
            AxState::Idle => {}
        }
    }
}

fn doorbell(kind: DoorbellKind, queue: u32, index: u16) -> [Op; 2] {
    let (lo, hi) = Doorbell { kind, queue, index, solicited: false }.encode_halves().unwrap();
    [Op::W(regs::doorbell::OFFSET, lo), Op::W(regs::doorbell::OFFSET + 4, hi)]
}

fn ctx_cmd(op: ContextOp, table: ContextTable, index: u32) -> [Op; 2] {
    let word = regs::ctx_cmd::OP.encode(op as u32).unwrap()
        | regs::ctx_cmd::TABLE.encode(table as u32).unwrap()
        | regs::ctx_cmd::INDEX.encode(index).unwrap();
    [Op::W(regs::ctx_cmd::OFFSET, word), Op::WaitCtx]
}

fn bring_up(qpc: u64, cqc: u64) -> Vec<Op> {
    vec![
        Op::R(regs::id_magic::OFFSET),
        Op::W(regs::scratch::OFFSET, 0xA5A5_0F0F),
        Op::R(regs::scratch::OFFSET),
        Op::W(regs::qpc_base_lo::OFFSET, qpc as u32),
        Op::W(regs::qpc_base_hi::OFFSET, (qpc >> 32) as u32),
        Op::W(regs::qpc_log_entries::OFFSET, 10),
        Op::W(regs::cqc_base_lo::OFFSET, cqc as u32),
        Op::W(regs::cqc_base_hi::OFFSET, (cqc >> 32) as u32),
        Op::W(regs::cqc_log_entries::OFFSET, 10),
        Op::W(regs::irq_events::OFFSET, 40),
        Op::W(regs::events_enable::OFFSET, regs::events_enable::DOORBELL_ERROR.encode(1).unwrap()),
        Op::W(regs::irq_moderation::OFFSET, 2),
        Op::W(regs::ctrl::OFFSET, regs::ctrl::ENABLE.encode(1).unwrap()),
    ]
}

/// The whole core: bring-up through the register port, a QP and a CQ
/// loaded over DMA, a send doorbell, and Linux rxe frames on the MAC (to
/// QPs the core does not run: parsed, ICRC-checked, looked up and dropped),
/// with the host model answering DMA. Every output compared each cycle.
fn rnic_core(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_0c0e);
    const QPC: u64 = 0x10_0000_0000;
    const CQC: u64 = 0x11_0000_0000;
    const RINGS: u64 = 0x12_0000_0000;
    let mut host = HostSpace { iommu: Iommu::counting(), ..HostSpace::new() };
    for (i, base) in [QPC, CQC, RINGS].into_iter().enumerate() {
        host.iommu.map(base, 16 << 20, 0x1_0000_0000 * (i as u64 + 1), Perms::RW).unwrap();
    }
    let phys = |iova: u64| 0x1_0000_0000 * (((iova - QPC) >> 32) + 1) + (iova & 0xFFFF_FFFF);
    host.memory.write(phys(QPC + 128 * 2), &qp_context(RINGS, RINGS + 0x8_0000, 4));
    host.memory.write(phys(CQC + 64 * 3), &cq_context(RINGS + 0x80_0000, 5, 9, 2));
    let mut port = DmaPort::new(s, host, quick_link(5), 0x77);
    port.ready_pct = 85;
    s.set("cfg_max_read", 2);
    s.set("cfg_max_payload", 1);
    reset(s)?;
    let mut ops = bring_up(QPC, CQC);
    ops.extend(ctx_cmd(ContextOp::Load, ContextTable::Qp, 2));
    ops.extend(ctx_cmd(ContextOp::Load, ContextTable::Cq, 3));
    ops.extend(doorbell(DoorbellKind::SqProducer, 2, 1));
    ops.push(Op::R(regs::events::OFFSET));
    let n_writes = ops.iter().filter(|o| matches!(o, Op::W(..))).count() as u64;
    let mut axil = Axil::new(ops);
    let frames = capture("rxe_with_3_bad_icrc.pcap");
    // the port's MAC is the first frame's destination: the frames the other
    // way are refused by the address filter
    s.set("port_mac", frames[0][..6].iter().fold(0, |w, &b| w << 8 | u64::from(b)));
    let mut beats: VecDeque<Beat512> = frames.iter().take(6).flat_map(|f| frame_beats(f)).collect();
    let n_beats = beats.len() as u64;
    let mut beats_in = 0u64;
    let limit = s.now() + 6000;
    while !axil.done() || !beats.is_empty() {
        assert!(s.now() < limit, "rnic_core: stuck, {} register ops and {} beats left", axil.ops.len(), beats.len());
        let now = s.now();
        axil.drive(s, &mut rng, now);
        port.drive(s);
        s.set("m_irq.ready", 1);
        s.set("s_axis_rx.tuser", 0);
        // a MAC offers beats when it has them; the core cannot stall it
        let offer = !beats.is_empty() && rng.chance(70);
        match beats.front().filter(|_| offer) {
            Some(b) => drive_beat(s, "s_axis_rx", b),
            None => idle(s, "s_axis_rx"),
        }
        s.set("m_axis_tx.tready", rng.chance(80) as u64);
        s.eval();
        axil.sample(s);
        port.sample(s, now);
        if offer {
            beats.pop_front();
            beats_in += 1;
        }
        s.step()?;
    }
    Ok(vec![
        reached("register writes answered", axil.writes, n_writes),
        reached("register reads answered", axil.reads.len() as u64, 3),
        reached("MAC beats into the core", beats_in, n_beats),
        reached("DMA reads (contexts)", port.stats.read_requests, 2),
    ])
}

fn reg_file(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_0006);
    reset(s)?;
    let mut ops = bring_up(0x10_0000_0000, 0x11_0000_0000);
    ops.push(Op::W(regs::counters_base_lo::OFFSET, 0x1234_5FFF));
    ops.push(Op::W(regs::counters_base_hi::OFFSET, 0x77));
    ops.push(Op::W(regs::replay_base_lo::OFFSET, 0x89AB_CFFF));
    ops.push(Op::W(regs::replay_base_hi::OFFSET, 0x66));
    for q in 0..6u32 {
        ops.push(Op::W(regs::ctx_count::OFFSET, 0xFF00_0001 + 1000 * q));
        ops.extend(doorbell(
            [DoorbellKind::SqProducer, DoorbellKind::RqProducer, DoorbellKind::CqArm][q as usize % 3],
            q * 77,
            q as u16 * 3,
        ));
        ops.extend(ctx_cmd(ContextOp::Load, [ContextTable::Qp, ContextTable::Cq][q as usize % 2], q));
        ops.push(Op::R(regs::events::OFFSET));
        ops.push(Op::W(regs::events::OFFSET, 0xFFFF_FFFF));
    }
    for off in (0..0x260).step_by(4) {
        ops.push(Op::R(off));
    }
    let n_writes = ops.iter().filter(|o| matches!(o, Op::W(..))).count() as u64;
    let mut axil = Axil::new(ops);
    let (mut dbs, mut cmds, mut irqs) = (0u64, 0u64, 0u64);
    let mut busy_until = 0u64;
    let limit = s.now() + 4000;
    while !axil.done() {
        assert!(s.now() < limit, "reg_file: register script stuck, {} ops left", axil.ops.len());
        let now = s.now();
        axil.drive(s, &mut rng, now);
        let (db_r, ctx_r, irq_r) = (rng.chance(70), rng.chance(70), rng.chance(70));
        s.set("m_db.ready", db_r as u64);
        s.set("m_ctx.ready", ctx_r as u64);
        s.set("m_irq.ready", irq_r as u64);
        s.set("ctx_busy", (now < busy_until) as u64);
        s.set("ctx_error", (now < busy_until && rng.chance(30)) as u64);
        // the doorbell errors the engines would report
        let ev = if rng.chance(3) { 1u64 << (rng.next() % 5) } else { 0 };
        s.set("ev_set", ev);
        s.set("ev_queue", rng.next() & 0xff_ffff);
        s.eval();
        axil.sample(s);
        if db_r && bit(s, "m_db.valid") {
            dbs += 1;
        }
        if ctx_r && bit(s, "m_ctx.valid") {
            cmds += 1;
            busy_until = now + 8 + rng.next() % 20;
        }
        if irq_r && bit(s, "m_irq.valid") {
            irqs += 1;
        }
        s.step()?;
    }
    let magic = axil.reads.iter().filter(|r| r.1 == regs::id_magic::RESET).count() as u64;
    Ok(vec![
        reached("register writes answered", axil.writes, n_writes),
        reached("register reads answered", axil.reads.len() as u64, 150),
        reached("reads of id_magic returning the magic", magic, 2),
        reached("doorbells out", dbs, 6),
        reached("context commands out", cmds, 6),
        reached("interrupts requested", irqs, 1),
    ])
}

// ---------------------------------------------------------------- host engines

/// The DMA engine as an engine-level client sees it: read commands
/// `m_rd {addr, len}` answered on `s_rd` with address-aligned beats from a
/// host memory, writes on `m_wr` stored and acknowledged on `wr_done`.
struct ClientMem {
    mem: rnic_host::HostMemory,
    rd_q: VecDeque<(u64, u64, u64)>, // (addr, len, ready at)
    rd_beats: VecDeque<([u32; 16], u64, bool, bool)>,
    served: u64,
    rd_on: bool,
    rd_ready: bool,
    wr: Option<(u64, usize, Vec<u8>, usize)>,
    wr_ready: bool,
    wr_done_at: VecDeque<(u64, bool)>,
    pub reads: u64,
    pub writes: u64,
    has_err: bool,
    /// Every this many reads ends with an error beat, and every this many
    /// writes completes with an error (0: never).
    pub err_every: u64,
}

impl ClientMem {
    fn new<M: Model + ?Sized>(m: &M) -> Self {
        ClientMem {
            mem: rnic_host::HostMemory::new(),
            rd_q: VecDeque::new(),
            rd_beats: VecDeque::new(),
            rd_on: false,
            rd_ready: false,
            wr: None,
            wr_ready: false,
            wr_done_at: VecDeque::new(),
            served: 0,
            reads: 0,
            writes: 0,
            has_err: m.ports().iter().any(|p| p.rust_path == "wr_done_err"),
            err_every: 0,
        }
    }
    fn drive<M: Model + ?Sized>(&mut self, m: &mut M, rng: &mut Rng, now: u64) {
        let has_rd = m.ports().iter().any(|p| p.rust_path == "m_rd.valid");
        let has_wr = m.ports().iter().any(|p| p.rust_path == "m_wr.tvalid");
        if has_rd {
            self.rd_ready = rng.chance(70);
            m.set("m_rd.ready", self.rd_ready as u64);
            if let Some(&(addr, len, at)) = self.rd_q.front() {
                if at <= now && self.rd_beats.is_empty() {
                    self.rd_q.pop_front();
                    let bytes = self.mem.read_vec(addr, len as usize);
                    self.served += 1;
                    let err = self.err_every != 0 && self.served.is_multiple_of(self.err_every);
                    for k in 0..aligned_beats(addr, len as usize) {
                        let keep = aligned_keep(addr, len as usize, k);
                        let base = addr - addr % 64 + 64 * k as u64;
                        let mut b = [0u8; 64];
                        for (lane, x) in b.iter_mut().enumerate() {
                            if keep >> lane & 1 == 1 {
                                *x = bytes[(base + lane as u64 - addr) as usize];
                            }
                        }
                        self.rd_beats.push_back((words_of(&b), keep, k + 1 == aligned_beats(addr, len as usize), err));
                    }
                }
            }
            if !self.rd_on && !self.rd_beats.is_empty() && rng.chance(80) {
                let (w, keep, last, err) = self.rd_beats[0];
                set_wide(m, "s_rd.tdata", &w);
                m.set("s_rd.tkeep", keep);
                m.set("s_rd.tlast", last as u64);
                m.set("s_rd.tuser", err as u64);
                self.rd_on = true;
            }
            m.set("s_rd.tvalid", self.rd_on as u64);
        }
        if has_wr {
            self.wr_ready = rng.chance(75);
            m.set("m_wr.tready", self.wr_ready as u64);
            let (done, err) = match self.wr_done_at.front() {
                Some(&(t, err)) if t <= now => {
                    self.wr_done_at.pop_front();
                    (true, err)
                }
                _ => (false, false),
            };
            m.set("wr_done", done as u64);
            if self.has_err {
                m.set("wr_done_err", err as u64);
            }
        }
    }
    fn sample<M: Model + ?Sized>(&mut self, m: &M, rng: &mut Rng, now: u64) {
        let has_rd = m.ports().iter().any(|p| p.rust_path == "m_rd.valid");
        let has_wr = m.ports().iter().any(|p| p.rust_path == "m_wr.tvalid");
        if has_rd {
            if self.rd_ready && bit(m, "m_rd.valid") {
                self.rd_q.push_back((m.get("m_rd.addr"), m.get("m_rd.len"), now + 5 + rng.next() % 20));
                self.reads += 1;
            }
            if self.rd_on && bit(m, "s_rd.tready") {
                self.rd_on = false;
                self.rd_beats.pop_front();
            }
        }
        if has_wr && self.wr_ready && bit(m, "m_wr.tvalid") {
            let addr = m.get("m_wr.addr");
            let len = m.get("m_wr.len") as usize;
            let w = self.wr.get_or_insert_with(|| (addr, len, vec![], 0));
            let data = get_wide(m, "m_wr.tdata");
            let keep = m.get("m_wr.tkeep");
            w.2.extend(bytes_of(&data, keep));
            w.3 += 1;
            if bit(m, "m_wr.tlast") {
                let (a, _, bytes, _) = self.wr.take().unwrap();
                self.mem.write(a, &bytes);
                self.writes += 1;
                let err = self.has_err && self.err_every != 0 && self.writes.is_multiple_of(self.err_every);
                self.wr_done_at.push_back((now + 3 + rng.next() % 10, err));
            }
        }
    }
}

fn cq_engine(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_0008);
    let mut mem = ClientMem::new(s);
    s.set("irq_mod_count", 2);
    s.set("irq_mod_time", 3);
    reset(s)?;
    // (cqn, ring base, log size, vector, mod count, armed, solicited only)
    let cqs = [
        (1u32, 0x40_0000u64, 3u64, 5u64, 1u64, 1u64, 0u64),
        (4, 0x50_0000, 4, 6, 0, 1, 1),
        (9, 0x60_0000, 2, 7, 3, 0, 0),
    ];
    let mut setups: VecDeque<_> = cqs.iter().copied().collect();
    let mut posts: VecDeque<(u32, bool)> = (0..60).map(|i| (cqs[i % 3].0, i % 4 == 0)).collect();
    let mut dbs: VecDeque<(u64, u32, u16)> = VecDeque::new();
    let mut m_irq = 0u64;
    let (mut setup_on, mut cqe_on, mut db_on) = (false, false, false);
    let (mut posted, mut overruns) = (0u64, 0u64);
    let mut irq_ready = false;
    let limit = s.now() + 4000;
    while !(posts.is_empty() && dbs.is_empty() && s.now() > 2500) {
        assert!(s.now() < limit, "cq_engine: {} CQEs, {} doorbells left", posts.len(), dbs.len());
        let now = s.now();
        mem.drive(s, &mut rng, now);
        if !setup_on && !setups.is_empty() {
            let (cqn, base, log, vector, modc, armed, sol) = setups[0];
            s.set("s_setup.cqn", cqn as u64);
            s.set("s_setup.base", base);
            s.set("s_setup.log", log);
            s.set("s_setup.prod", 0);
            s.set("s_setup.cons", 0);
            s.set("s_setup.armed", armed);
            s.set("s_setup.solicited", sol);
            s.set("s_setup.overrun", 0);
            s.set("s_setup.vector", vector);
            s.set("s_setup.mod_count", modc);
            s.set("s_setup.mod_time", 0);
            s.set("s_setup.live", 1);
            setup_on = true;
        }
        s.set("s_setup.valid", setup_on as u64);
        if setups.is_empty() && !cqe_on && !posts.is_empty() && rng.chance(30) {
            let (cqn, sol) = posts[0];
            let e = cqe_bytes(&mut rng, posted);
            set_wide(s, "s_cqe.data", &e);
            s.set("s_cqe.cqn", cqn as u64);
            s.set("s_cqe.solicited", sol as u64);
            cqe_on = true;
        }
        s.set("s_cqe.valid", cqe_on as u64);
        if !db_on && !dbs.is_empty() && rng.chance(30) {
            let (k, q, i) = dbs[0];
            s.set("s_db.kind", k);
            s.set("s_db.queue", q as u64);
            s.set("s_db.index", i as u64);
            s.set("s_db.solicited", 0);
            db_on = true;
        }
        s.set("s_db.valid", db_on as u64);
        s.set("s_query.index", cqs[(now % 3) as usize].0 as u64);
        s.set("s_query.valid", (now % 50 == 7) as u64);
        irq_ready = !irq_ready || rng.chance(50);
        s.set("m_irq.ready", irq_ready as u64);
        s.eval();
        mem.sample(s, &mut rng, now);
        if setup_on && bit(s, "s_setup.ready") {
            setup_on = false;
            setups.pop_front();
        }
        if cqe_on && bit(s, "s_cqe.ready") {
            cqe_on = false;
            let (cqn, _) = posts.pop_front().unwrap();
            posted += 1;
            // the driver consumes and re-arms now and then
            if posted % 5 == 0 {
                let kind = if posted % 10 == 0 { DoorbellKind::CqArm } else { DoorbellKind::CqConsumer };
                dbs.push_back((kind as u64, cqn, (posted / 3) as u16));
            }
        }
        if db_on && bit(s, "s_db.ready") {
            db_on = false;
            dbs.pop_front();
        }
        if irq_ready && bit(s, "m_irq.valid") {
            m_irq += 1;
        }
        overruns += s.get("ev_overrun") & 1;
        s.step()?;
    }
    Ok(vec![
        reached("CQEs taken", posted, 60),
        reached("CQE writes done (wr_done)", mem.writes, 30),
        reached("interrupts requested", m_irq, 2),
        reached("overrun events", overruns, 1),
    ])
}

fn cqe_bytes(rng: &mut Rng, n: u64) -> [u32; 8] {
    let mut e = [0u8; 32];
    cqe::WR_ID.set(&mut e, 1000 + n).unwrap();
    cqe::QPN.set(&mut e, (rng.next() & 0xff_ffff) as u32).unwrap();
    cqe::WQE_INDEX.set(&mut e, n as u16).unwrap();
    cqe::BYTE_LEN.set(&mut e, rng.next() as u32).unwrap();
    std::array::from_fn(|i| u32::from_le_bytes(e[4 * i..4 * i + 4].try_into().unwrap()))
}

fn qp_context(sq: u64, rq: u64, log: u8) -> [u8; 128] {
    let mut e = [0u8; 128];
    qpc::SQ_BASE.set(&mut e, sq).unwrap();
    qpc::RQ_BASE.set(&mut e, rq).unwrap();
    qpc::SQ_LOG_SIZE.set(&mut e, log).unwrap();
    qpc::RQ_LOG_SIZE.set(&mut e, log).unwrap();
    e
}

fn cq_context(ring: u64, log: u8, vector: u16, mod_count: u16) -> [u8; 64] {
    let mut e = [0u8; 64];
    cqc::RING_BASE.set(&mut e, ring).unwrap();
    cqc::LOG_SIZE.set(&mut e, log).unwrap();
    cqc::MSIX_VECTOR.set(&mut e, vector).unwrap();
    cqc::MOD_COUNT.set(&mut e, mod_count).unwrap();
    e
}

fn ctx_engine(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_0009);
    let mut mem = ClientMem::new(s);
    let cqc_base = 0x20_0000u64;
    for q in 0..16u64 {
        mem.mem.write(cqc_base + 64 * q, &cq_context(0x200_0000 * q, 3 + q as u8 % 3, q as u16, 1));
    }
    s.set("qpn_high", crate::rx_lookup::qpn_high(4));
    s.set("cqc_base", cqc_base);
    s.set("cqc_log", 4);
    s.set("mpt_log", 4);
    s.set("mtt_log", 6);
    s.set("counters_base", 0x30_0000);
    reset(s)?;
    let mut cmds: VecDeque<(u64, u64, u64)> = VecDeque::new();
    for i in 0..64u64 {
        let op = [ContextOp::Load, ContextOp::Load, ContextOp::Store, ContextOp::Invalidate][i as usize % 4];
        let table = match i % 11 {
            10 => ContextTable::Ah, // not cached by this build: an error
            7 => ContextTable::Mpt,
            4 => ContextTable::Mtt,
            k if k % 3 == 2 => ContextTable::Cq,
            _ => ContextTable::Qp,
        };
        cmds.push_back((op as u64, table as u64, (i * 5) % 19)); // 16..18 are beyond the QP/CQ/MPT tables
    }
    // counter dumps (Store, entry 0), and two refused (entry 1, a Load)
    let counters = ContextTable::Counters as u64;
    for (at, op, index) in [(5, ContextOp::Store, 0), (21, ContextOp::Store, 0), (33, ContextOp::Store, 1)] {
        cmds.insert(at, (op as u64, counters, index));
    }
    cmds.insert(50, (ContextOp::Load as u64, counters, 0));
    cmds.insert(58, (ContextOp::Store as u64, counters, 0));
    let want = cmds.len();
    let (mut cmd_on, mut done, mut cqs, mut errors) = (false, 0, 0u64, 0u64);
    let (mut cache_ops, mut invs) = (0u64, 0u64);
    let (mut dma_errors, mut asks) = (0u64, 0u64);
    mem.err_every = 9;
    let mut cq = None::<u64>;
    // the two caches' answers (due cycle, err) and the translation unit's done
    let mut answers: [VecDeque<(u64, bool)>; 2] = [VecDeque::new(), VecDeque::new()];
    let mut inv_due: Option<u64> = None;
    let limit = s.now() + 12000;
    let mut tail = 0;
    while tail < 20 {
        tail = if done == want && !bit(s, "busy") { tail + 1 } else { 0 };
        assert!(s.now() < limit, "ctx_engine: {done} of {want} commands");
        let now = s.now();
        mem.drive(s, &mut rng, now);
        if !cmd_on && !cmds.is_empty() && !bit(s, "busy") && rng.chance(40) {
            let (op, t, i) = cmds[0];
            s.set("s_cmd.op", op);
            s.set("s_cmd.table", t);
            s.set("s_cmd.index", i);
            // MTT spans of 0 to 39 entries (some past the 64-entry table)
            s.set("s_cmd.count", rng.next() % 40);
            cmd_on = true;
        }
        s.set("s_cmd.valid", cmd_on as u64);
        // the counter mux: RegFile holds it now and then; any value comes back
        s.set("cnt_busy", rng.chance(30) as u64);
        s.set("cnt_data", rng.next());
        let cr = rng.chance(70);
        s.set("m_cq.ready", cr as u64);
        s.set("m_cq_query.ready", 1);
        // query answers one cycle after the question
        s.set("cq_query_valid", cq.is_some() as u64);
        s.set("cq_query_data", cq.map_or(0, |i| 0x0002_0001_0000 ^ i));
        let req_ready = [rng.chance(60), rng.chance(60)];
        for (k, name) in ["qpc", "qps"].into_iter().enumerate() {
            s.set(&format!("m_{name}.ready"), req_ready[k] as u64);
            let due = answers[k].front().filter(|a| a.0 <= now).copied();
            s.set(&format!("s_{name}.valid"), due.is_some() as u64);
            s.set(&format!("s_{name}.err"), due.is_some_and(|a| a.1) as u64);
            if due.is_some() {
                answers[k].pop_front();
            }
        }
        let inv_ready = rng.chance(50);
        s.set("m_inv.ready", inv_ready as u64);
        s.set("s_inv.valid", inv_due.is_some_and(|t| t <= now) as u64);
        s.eval();
        mem.sample(s, &mut rng, now);
        cq = bit(s, "m_cq_query.valid").then(|| s.get("m_cq_query.index"));
        for (k, name) in ["qpc", "qps"].into_iter().enumerate() {
            if req_ready[k] && bit(s, &format!("m_{name}.valid")) {
                cache_ops += 1;
                answers[k].push_back((now + 1 + rng.next() % 12, rng.chance(5)));
            }
        }
        if inv_due.is_some_and(|t| t <= now) && bit(s, "s_inv.ready") {
            inv_due = None;
            invs += 1;
        }
        if inv_ready && bit(s, "m_inv.valid") {
            inv_due = Some(now + 1 + rng.next() % 8);
        }
        if cmd_on && bit(s, "s_cmd.ready") {
            cmd_on = false;
            cmds.pop_front();
            done += 1;
        }
        cqs += (cr && bit(s, "m_cq.valid")) as u64;
        asks += s.get("cnt_ask") & 1;
        errors += s.get("error") & 1;
        dma_errors += s.get("dma_error") & 1;
        s.step()?;
    }
    Ok(vec![
        reached("context commands taken", done as u64, want as u64),
        reached("DMA errors reported", dma_errors, 1),
        reached("CQ context reads answered", mem.reads, 3),
        reached("CQ write-backs and counter beats", mem.writes, 2 + 8 * 2),
        reached("counter asks", asks, 64 * 2),
        reached("QP cache operations (both caches)", cache_ops, 30),
        reached("translation invalidates done", invs, 6),
        reached("CQ setups out (CQ Load)", cqs, 3),
        reached("cycles showing a command error", errors, 1),
    ])
}

// ---------------------------------------------------------------- whole host side

fn host_if(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_000a);
    const QPC: u64 = 0x10_0000_0000;
    const CQC: u64 = 0x11_0000_0000;
    const RINGS: u64 = 0x12_0000_0000;
    const N_CQES: u64 = 28;
    const N_PAY: usize = 12;
    const N_REPLAY: usize = 6;
    let mut host = HostSpace { iommu: Iommu::counting(), ..HostSpace::new() };
    for (i, base) in [QPC, CQC, RINGS].into_iter().enumerate() {
        host.iommu.map(base, 16 << 20, 0x1_0000_0000 * (i as u64 + 1), Perms::RW).unwrap();
    }
    let phys = |iova: u64| 0x1_0000_0000 * (((iova - QPC) >> 32) + 1) + (iova & 0xFFFF_FFFF);
    let qps = [2u32, 17, 300];
    for (i, &q) in qps.iter().enumerate() {
        let sq = RINGS + 0x10_0000 * i as u64;
        host.memory.write(phys(QPC + 128 * q as u64), &qp_context(sq, sq + 0x8_0000, 4));
        let wqes: Vec<u8> = (0..16 * 128).map(|_| rng.next() as u8).collect();
        host.memory.write(phys(sq), &wqes);
        host.memory.write(phys(sq + 0x8_0000), &wqes);
    }
    let cq_ring = RINGS + 0x80_0000;
    host.memory.write(phys(CQC + 64 * 3), &cq_context(cq_ring, 5, 9, 2));
    host.memory.write(phys(cq_ring), &[0u8; 32 * 32]);
    let mut port = DmaPort::new(s, host, quick_link(7), 0x99);
    port.ready_pct = 85;
    s.set("cfg_max_read", 2);
    s.set("cfg_max_payload", 1);
    reset(s)?;
    let mut ops = bring_up(QPC, CQC);
    ops.push(Op::W(regs::replay_base_lo::OFFSET, (RINGS + 0xC0_0000) as u32));
    ops.push(Op::W(regs::replay_base_hi::OFFSET, (RINGS >> 32) as u32));
    for &q in &qps {
        ops.extend(ctx_cmd(ContextOp::Load, ContextTable::Qp, q));
    }
    ops.extend(ctx_cmd(ContextOp::Load, ContextTable::Cq, 3));
    ops.push(Op::Mark(1));
    ops.extend(doorbell(DoorbellKind::CqArm, 3, 0));
    for round in 1..=8u16 {
        for &q in &qps {
            ops.extend(doorbell(DoorbellKind::SqProducer, q, 5 * round));
            ops.extend(doorbell(DoorbellKind::RqProducer, q, 4 * round));
        }
        ops.push(Op::Idle(100));
        ops.extend(doorbell(DoorbellKind::CqConsumer, 3, 4 * round));
        ops.extend(doorbell(DoorbellKind::CqArm, 3, 4 * round));
    }
    ops.extend(doorbell(DoorbellKind::SqProducer, 1500, 1)); // beyond the QP table: an event
    ops.extend(ctx_cmd(ContextOp::Store, ContextTable::Cq, 3));
    ops.extend(ctx_cmd(ContextOp::Store, ContextTable::Qp, 17));
    ops.push(Op::R(regs::events::OFFSET));
    ops.push(Op::R(regs::ctx_status::OFFSET));
    let mut axil = Axil::new(ops);
    let mut work = 0u64;
    let mut pay_rd = Sink::new(s, "m_pay_rd");
    let mut cqe_on = false;
    let (mut cqes, mut irqs, mut pay_wr_done) = (0u64, 0u64, 0u64);
    let mut pay_rds: VecDeque<(u64, u64)> =
        (0..N_PAY as u64).map(|k| (if k == 5 { UNMAPPED } else { RINGS + 0x1000 * k + 7 * k }, 100 + 97 * k)).collect();
    let mut pay_wrs: VecDeque<WriteJob> = (0..N_PAY as u64)
        .map(|k| WriteJob {
            addr: RINGS + 0x40_0000 + 0x1000 * k + 5 * k,
            data: (0..60 + 70 * k).map(|x| x as u8).collect(),
            beat: 0,
        })
        .collect();
    let (mut prd_on, mut pwr_on) = (false, false);
    // the replay table's clients (shared with WQE reads and context write-backs): a QP's 512 bytes
    // read, one 32-byte slot written
    let mut replay_rd = Sink::new(s, "m_replay_rd");
    let mut replay_rds: VecDeque<u64> = (0..N_REPLAY as u64).map(|k| RINGS + 0xC0_0000 + 512 * 7 * k).collect();
    let mut replay_wrs: VecDeque<WriteJob> = (0..N_REPLAY as u64)
        .map(|k| WriteJob {
            addr: RINGS + 0xC0_0000 + 512 * 5 * k + 32 * (3 * k % 16),
            data: (0..32).map(|x| (x + 16 * k) as u8).collect(),
            beat: 0,
        })
        .collect();
    let (mut rrd_on, mut rwr_on, mut replay_wr_done) = (false, false, 0u64);
    let limit = s.now() + 9000;
    while !(axil.done()
        && cqes >= N_CQES
        && pay_wr_done == N_PAY as u64
        && pay_rd.packets.len() == N_PAY
        && replay_wr_done == N_REPLAY as u64
        && replay_rd.packets.len() == N_REPLAY
        && port.idle())
    {
        assert!(
            s.now() < limit,
            "host_if: stuck with {} register ops left, {cqes} CQEs, {} payload reads, {pay_wr_done} payload writes done, {} left, {} replay reads, {replay_wr_done} replay writes done, port {:?}",
            axil.ops.len(),
            pay_rd.packets.len(),
            pay_wrs.len(),
            replay_rd.packets.len(),
            port.stats
        );
        let now = s.now();
        axil.drive(s, &mut rng, now);
        let work_ready = rng.chance(80);
        s.set("m_work.ready", work_ready as u64);
        for k in 0..2 {
            s.set(&format!("m_qpc.{k}.ready"), 1);
        }
        for k in 0..3 {
            s.set(&format!("m_qps.{k}.ready"), 1);
        }
        pay_rd.drive(s, &mut rng, 85);
        // the transport posts CQEs once the CQ is loaded
        if !cqe_on && cqes < N_CQES && axil.mark == 1 && rng.chance(20) {
            set_wide(s, "s_cqe.data", &cqe_bytes(&mut rng, cqes));
            s.set("s_cqe.cqn", 3);
            s.set("s_cqe.solicited", rng.next() & 1);
            cqe_on = true;
        }
        s.set("s_cqe.valid", cqe_on as u64);
        if !prd_on && !pay_rds.is_empty() && rng.chance(30) {
            s.set("s_pay_rd.addr", pay_rds[0].0);
            s.set("s_pay_rd.len", pay_rds[0].1);
            prd_on = true;
        }
        s.set("s_pay_rd.valid", prd_on as u64);
        if !pwr_on && !pay_wrs.is_empty() && rng.chance(60) {
            let j = &pay_wrs[0];
            let (w, keep, last) = write_beat(&mut rng, j.addr, &j.data, j.beat);
            set_wide(s, "s_pay_wr.tdata", &w);
            s.set("s_pay_wr.tkeep", keep);
            s.set("s_pay_wr.tlast", last as u64);
            s.set("s_pay_wr.addr", j.addr);
            s.set("s_pay_wr.len", j.data.len() as u64);
            pwr_on = true;
        }
        s.set("s_pay_wr.tvalid", pwr_on as u64);
        replay_rd.drive(s, &mut rng, 90);
        if !rrd_on && !replay_rds.is_empty() && rng.chance(10) {
            s.set("s_replay_rd.addr", replay_rds[0]);
            s.set("s_replay_rd.len", 512);
            rrd_on = true;
        }
        s.set("s_replay_rd.valid", rrd_on as u64);
        if !rwr_on && !replay_wrs.is_empty() && rng.chance(10) {
            let j = &replay_wrs[0];
            let (w, keep, last) = write_beat(&mut rng, j.addr, &j.data, j.beat);
            set_wide(s, "s_replay_wr.tdata", &w);
            s.set("s_replay_wr.tkeep", keep);
            s.set("s_replay_wr.tlast", last as u64);
            s.set("s_replay_wr.addr", j.addr);
            s.set("s_replay_wr.len", j.data.len() as u64);
            rwr_on = true;
        }
        s.set("s_replay_wr.tvalid", rwr_on as u64);
        let irq_ready = rng.chance(70);
        s.set("m_irq.ready", irq_ready as u64);
        port.drive(s);
        s.eval();
        axil.sample(s);
        work += (work_ready && bit(s, "m_work.valid")) as u64;
        pay_rd.sample(s);
        if cqe_on && bit(s, "s_cqe.ready") {
            cqe_on = false;
            cqes += 1;
        }
        if prd_on && bit(s, "s_pay_rd.ready") {
            prd_on = false;
            pay_rds.pop_front();
        }
        if pwr_on && bit(s, "s_pay_wr.tready") {
            pwr_on = false;
            let j = pay_wrs.front_mut().unwrap();
            j.beat += 1;
            if j.beat == aligned_beats(j.addr, j.data.len()) {
                pay_wrs.pop_front();
            }
        }
        pay_wr_done += s.get("pay_wr_done") & 1;
        replay_rd.sample(s);
        if rrd_on && bit(s, "s_replay_rd.ready") {
            rrd_on = false;
            replay_rds.pop_front();
        }
        if rwr_on && bit(s, "s_replay_wr.tready") {
            rwr_on = false;
            let j = replay_wrs.front_mut().unwrap();
            j.beat += 1;
            if j.beat == aligned_beats(j.addr, j.data.len()) {
                replay_wrs.pop_front();
            }
        }
        replay_wr_done += s.get("replay_wr_done") & 1;
        irqs += (irq_ready && bit(s, "m_irq.valid")) as u64;
        port.sample(s, now);
        s.step()?;
    }
    // let the last completions land
    for _ in 0..60 {
        let now = s.now();
        axil.drive(s, &mut rng, now);
        port.drive(s);
        s.eval();
        pay_wr_done += s.get("pay_wr_done") & 1;
        port.sample(s, now);
        s.step()?;
    }
    let cq_slots = (0..32u64)
        .filter(|k| cqe::WR_ID.get(&port.host.memory.read_vec(phys(cq_ring + 32 * k), 32)).unwrap() != 0)
        .count() as u64;
    Ok(vec![
        reached("register accesses answered", axil.writes + axil.reads.len() as u64, 150),
        reached("send work out (m_work)", work, 24),
        reached("CQEs taken from the transport", cqes, N_CQES),
        reached("CQ ring slots written in host memory", cq_slots, N_CQES),
        reached("interrupts requested", irqs, 3),
        reached("payload reads delivered", pay_rd.packets.len() as u64, N_PAY as u64),
        reached(
            "payload reads failed (unmapped IOVA)",
            pay_rd.packets.iter().filter(|p| p.1 & 1 == 1).count() as u64,
            1,
        ),
        reached("payload writes done", pay_wr_done, N_PAY as u64),
        reached(
            "replay table reads delivered (512 bytes)",
            replay_rd.packets.iter().filter(|p| p.0.len() == 512).count() as u64,
            N_REPLAY as u64,
        ),
        reached("replay table writes done", replay_wr_done, N_REPLAY as u64),
        reached("DMA read requests at the boundary", port.stats.read_requests, 15),
        reached("DMA writes at the boundary", port.stats.write_requests, 50),
    ])
}

// ---------------------------------------------------------------- memory regions

/// `MrCheck` through `crate::mr::MrBench`: random regions and requests,
/// lookups with random latency and stalls, every beat checked against the
/// contract's reference on the way.
fn mr_check(s: &mut dyn Sim) -> Outcome {
    use crate::mr::{MrBench, MrKnobs, MrWorld};
    let mut rng = Rng(0x5eed_0010);
    let world = MrWorld::random(&mut rng, 6, 24);
    let mut b = MrBench::new(world.clone(), MrKnobs::RANDOM, 0x10);
    for _ in 0..120 {
        b.send(world.random_request(&mut rng));
    }
    reset(s)?;
    let limit = s.now() + 20_000;
    while !b.done() {
        assert!(s.now() < limit, "mr_check: {} requests taken, {} beats", b.taken, b.beats);
        b.drive(s);
        s.eval();
        b.sample(s).unwrap_or_else(|e| panic!("mr_check: {e}"));
        s.step()?;
    }
    Ok(vec![
        reached("requests answered", b.taken, 120),
        reached("failed checks", b.failed, 20),
        reached("pieces", b.pieces, 60),
        reached("MTT lines read", b.lines_read, 30),
    ])
}

/// `MrXlate` through `crate::mr_xlate::XlateBench`: random regions over
/// tables larger than its caches, random requests (so misses, hits and
/// evictions), DMA reads with random latency and stalls, an invalidate of
/// each table; every beat checked against the contract's reference.
fn mr_xlate(s: &mut dyn Sim) -> Outcome {
    use crate::mr::{mtt_entry, MrWorld};
    use crate::mr_xlate::{Table, XlateBench, XlateKnobs, MTT_BASE};
    let mut rng = Rng(0x5eed_0011);
    let world = MrWorld::random(&mut rng, 10, 300);
    let mut b = XlateBench::new(10, 13, XlateKnobs { rd_lat: (5, 40), ..XlateKnobs::RANDOM }, 0x11);
    for (&i, m) in &world.mpt {
        b.write_mpt(i, m);
    }
    for e in 0..1u32 << 13 {
        b.space.memory.write_u64(MTT_BASE + 8 * e as u64, mtt_entry(e));
    }
    for _ in 0..300 {
        b.send(world.random_request(&mut rng));
    }
    b.invalidate(Table::Mpt, 3);
    b.invalidate(Table::Mtt, 40);
    reset(s)?;
    let limit = s.now() + 200_000;
    while !b.done() {
        assert!(s.now() < limit, "mr_xlate: {} requests taken, {} beats", b.taken, b.beats);
        b.drive(s);
        s.eval();
        b.sample(s).unwrap_or_else(|e| panic!("mr_xlate: {e}"));
        s.step()?;
    }
    Ok(vec![
        reached("requests answered", b.taken, 300),
        reached("failed checks", b.failed_all(), 40),
        reached("pieces", b.pieces, 200),
        reached("MPT entries read", b.reads_of(Table::Mpt) as u64, 150),
        reached("MTT lines read", b.reads_of(Table::Mtt) as u64, 100),
        reached("invalidates done", b.inv_done, 2),
    ])
}

// ---------------------------------------------------------------- context cache

/// Requests of every kind to a few indices, some sharing a set (hits,
/// misses, evictions with write-backs, parked requests and their replays),
/// a few beyond the table; every 11th DMA read and write fails.
fn ctx_cache(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_000c);
    let mut mem = ClientMem::new(s);
    mem.err_every = 11;
    let entry = s.ports()[s.port("m_resp.data")].width / 8;
    s.set("tbl_base", 0x10_0000);
    s.set("tbl_log", 12);
    reset(s)?;
    let limit = s.now() + 30_000;
    while bit(s, "init") {
        assert!(s.now() < limit, "ctx_cache: the tag array is still being cleared");
        s.step()?;
    }
    let want = 160u64;
    let (mut sent, mut on, mut resps, mut errs) = (0u64, false, 0u64, 0u64);
    while resps < want {
        assert!(s.now() < limit, "ctx_cache: {resps} of {want} requests answered");
        let now = s.now();
        mem.drive(s, &mut rng, now);
        if !on && sent < want && rng.chance(60) {
            let beyond = if rng.chance(3) { 4096 } else { 0 };
            let index = rng.next() % 8 + 256 * (rng.next() % 3) + 1024 * (rng.next() % 2) + beyond;
            s.set("s_req.op", rng.next() % 4);
            s.set("s_req.index", index);
            set_wide(s, "s_req.mask", &random_words(&mut rng, entry / 32));
            set_wide(s, "s_req.data", &random_words(&mut rng, entry / 4));
            s.set("s_req.id", sent & 0xFF);
            on = true;
        }
        s.set("s_req.valid", on as u64);
        let rr = rng.chance(70);
        s.set("m_resp.ready", rr as u64);
        s.eval();
        mem.sample(s, &mut rng, now);
        if on && bit(s, "s_req.ready") {
            on = false;
            sent += 1;
        }
        if rr && bit(s, "m_resp.valid") {
            resps += 1;
            errs += s.get("m_resp.err") & 1;
        }
        s.step()?;
    }
    Ok(vec![
        reached("requests answered", resps, want),
        reached("entry reads (misses)", mem.reads, 10),
        reached("write-backs", mem.writes, 5),
        reached("answers with err (beyond the table, DMA errors)", errs, 3),
    ])
}

// ---------------------------------------------------------------- qp_modify

/// Modify-QP commands through the handshake: every allowed transition of
/// every type with its required attributes and good values (accepted), the
/// same with one required attribute dropped or one random bit added
/// (refused), inputs held until `req_ready` and noise after. Reached:
/// accepted and refused commands.
fn qp_modify(s: &mut dyn Sim) -> Outcome {
    use rnic_contract::codes::{Mtu, QpState};
    use rnic_contract::qp_modify::{modify_qp, required, ModifyStatus, QpAttr, TRANSITIONS, TYPES};
    let mut rng = Rng(0x5eed_00a1);
    reset(s)?;
    let (mut ok, mut refused) = (0u64, 0u64);
    for (cur, row) in TRANSITIONS.iter().enumerate() {
        for (next, tr) in row.iter().enumerate() {
            if !tr.valid {
                continue;
            }
            for ty in TYPES {
                let (c, n) = (QpState::ALL[cur], QpState::ALL[next]);
                for variant in 0..3 {
                    let mut mask = required(c, n, ty) | QpAttr::State.mask();
                    if variant == 1 {
                        mask ^= 1 << (rng.next() % 21);
                    }
                    if variant == 2 {
                        mask &= !QpAttr::State.mask();
                    }
                    let mut mb = [0u8; 128];
                    mb.iter_mut().for_each(|b| *b = rng.next() as u8);
                    let w = |mb: &mut [u8; 128], f: rnic_contract::layout::LayoutFieldInfo, v: u64| {
                        f.write_raw(mb, v).unwrap()
                    };
                    w(&mut mb, modify_qp::QP_STATE.info(), next as u64);
                    w(&mut mb, modify_qp::CUR_QP_STATE.info(), cur as u64);
                    w(&mut mb, modify_qp::PATH_MTU.info(), Mtu::Mtu1024 as u64);
                    w(&mut mb, modify_qp::PATH_MIG_STATE.info(), 0);
                    w(&mut mb, modify_qp::ACCESS_FLAGS.info(), rng.next() % 16);
                    w(&mut mb, modify_qp::MAX_RD_ATOMIC.info(), rng.next() % 8);
                    w(&mut mb, modify_qp::MAX_DEST_RD_ATOMIC.info(), rng.next() % 8);
                    w(&mut mb, modify_qp::PKEY_INDEX.info(), 0);
                    w(&mut mb, modify_qp::PORT_NUM.info(), 1);
                    w(&mut mb, modify_qp::MASK.info(), mask as u64);
                    let mut head = rng.next().to_le_bytes();
                    qpc::STATE.info().write_raw(&mut head, cur as u64).unwrap();
                    qpc::QP_TYPE.info().write_raw(&mut head, ty as u64).unwrap();
                    let words: Vec<u32> = mb.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
                    set_wide(s, "cmd", &words);
                    s.set("ctx_head", u64::from_le_bytes(head));
                    s.set("req_valid", 1);
                    let limit = s.now() + 20;
                    loop {
                        s.eval();
                        let taken = bit(s, "req_ready");
                        s.step()?;
                        assert!(s.now() < limit, "qp_modify: req_ready never came");
                        if taken {
                            break;
                        }
                    }
                    s.set("req_valid", 0);
                    set_wide(s, "cmd", &random_words(&mut rng, 32));
                    s.set("ctx_head", rng.next());
                    s.eval();
                    assert!(bit(s, "out_valid"), "qp_modify: no result after the handshake");
                    if s.get("status") == ModifyStatus::Ok as u64 {
                        ok += 1;
                    } else {
                        refused += 1;
                    }
                    s.step()?;
                }
            }
        }
    }
    Ok(vec![reached("commands accepted", ok, 40), reached("commands refused", refused, 20)])
}

/// The send scheduler: reset, the state RAM's clearing, then random work
/// over 12 QPs, grants taken with stalls, dones for the QPs in service.
fn send_sched(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x5eed_5c4e);
    reset(s)?;
    let mut n = 0;
    while bit(s, "init") {
        s.step()?;
        n += 1;
        assert!(n < 1 << 15, "send_sched: init never ends");
    }
    let mut serving: VecDeque<u64> = VecDeque::new();
    let (mut grants, mut appends, mut dones) = (0u64, 0u64, 0u64);
    let mut more = false;
    for _ in 0..3000 {
        s.set("s_work.valid", rng.chance(40) as u64);
        s.set("s_work.qpn", (rng.next() % 12) * 1000 + 3);
        let gr = rng.chance(70);
        s.set("m_grant.ready", gr as u64);
        let dv = !serving.is_empty() && rng.chance(60);
        s.set("s_done.valid", dv as u64);
        s.set("s_done.qpn", *serving.front().unwrap_or(&0));
        s.set("s_done.more", more as u64);
        s.eval();
        appends += bit(s, "tail_valid") as u64;
        let g = bit(s, "m_grant.valid") && gr;
        let gq = s.get("m_grant.qpn");
        if dv && bit(s, "s_done.ready") {
            serving.pop_front();
            dones += 1;
            more = rng.chance(50);
        }
        if g {
            grants += 1;
            serving.push_back(gq);
        }
        s.step()?;
    }
    Ok(vec![reached("grants", grants, 200), reached("appends", appends, 200), reached("dones", dones, 200)])
}

/// The inflight WQE table: reset, the 16K-cycle clearing, then random
/// commands (PUSH-heavy, on 12 QPs; READ and WRITE at random entries) with
/// responses taken with stalls.
fn inflight(s: &mut dyn Sim) -> Outcome {
    use rnic_hw::consts::{INFLIGHT_POP, INFLIGHT_PUSH};
    let mut rng = Rng(0x01f1_19e7);
    reset(s)?;
    let mut n = 0;
    while bit(s, "init") {
        s.step()?;
        n += 1;
        assert!(n < 1 << 16, "inflight: init never ends");
    }
    let words = s.ports()[s.port("s_cmd.data")].words();
    let mut ops: VecDeque<u64> = VecDeque::new();
    let (mut taken, mut pushed, mut popped) = (0u64, 0u64, 0u64);
    let mut valid = false;
    for _ in 0..3000 {
        if !valid && rng.chance(80) {
            valid = true;
            let r = rng.next() % 10;
            let op = if r < 4 {
                INFLIGHT_PUSH
            } else if r < 7 {
                INFLIGHT_POP
            } else {
                rng.next() % 8
            };
            s.set("s_cmd.op", op);
            s.set("s_cmd.qpn", (rng.next() % 12) * 1361);
            s.set("s_cmd.index", rng.next() % 64);
            set_wide(s, "s_cmd.data", &random_words(&mut rng, words));
        }
        s.set("s_cmd.valid", valid as u64);
        let rr = rng.chance(70);
        s.set("m_resp.ready", rr as u64);
        s.eval();
        if valid && bit(s, "s_cmd.ready") {
            ops.push_back(s.get("s_cmd.op"));
            taken += 1;
            valid = false;
        }
        if rr && bit(s, "m_resp.valid") {
            let op = ops.pop_front().expect("inflight: a response without a command");
            let ok = !bit(s, "m_resp.empty") && !bit(s, "m_resp.full");
            pushed += (op == INFLIGHT_PUSH && ok) as u64;
            popped += (op == INFLIGHT_POP && ok) as u64;
        }
        s.step()?;
    }
    Ok(vec![
        reached("commands taken", taken, 1500),
        reached("entries pushed", pushed, 500),
        reached("entries popped", popped, 300),
    ])
}

/// The requester's packet generator: reset, then random valid jobs
/// (`crate::req_gen::random_job`, budgets of 1..8 packets, one in ten an
/// error) with every output taken with stalls.
fn req_gen(s: &mut dyn Sim) -> Outcome {
    use crate::req_gen::{random_job, set_job};
    let mut rng = Rng(0x7e9_6e17);
    reset(s)?;
    let (mut jobs, mut hdrs, mut frags, mut dones, mut pushes) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut job = None;
    for _ in 0..1500 {
        if job.is_none() && rng.chance(50) {
            let mut j = random_job(&mut rng);
            j.budget = 1 + (rng.next() % 8) as u32;
            j.wqe.inline = rng.chance(10);
            job = Some(j);
        }
        if let Some(j) = &job {
            set_job(s, j, true);
        } else {
            s.set("s_job.valid", 0);
        }
        let r: Vec<bool> = (0..4).map(|_| rng.chance(75)).collect();
        s.set("m_hdr.tready", r[0] as u64);
        s.set("m_frag.ready", r[1] as u64);
        s.set("m_done.ready", r[2] as u64);
        s.set("m_push.ready", r[3] as u64);
        s.eval();
        if job.is_some() && bit(s, "s_job.ready") {
            job = None;
            jobs += 1;
        }
        hdrs += (r[0] && bit(s, "m_hdr.tvalid")) as u64;
        frags += (r[1] && bit(s, "m_frag.valid")) as u64;
        dones += (r[2] && bit(s, "m_done.valid")) as u64;
        pushes += (r[3] && bit(s, "m_push.valid")) as u64;
        s.step()?;
    }
    Ok(vec![
        reached("jobs", jobs, 50),
        reached("headers", hdrs, 150),
        reached("fragments", frags, 100),
        reached("dones", dones, 50),
        reached("pushes", pushes, 20),
    ])
}

/// The requester's payload translation through `crate::req_payload`:
/// random packets over a world of regions (faults, a failed WQE's later
/// packets), the translation unit modelled with random latency, every port
/// stalled at random; every header, piece and error record checked against
/// the reference.
fn req_payload(s: &mut dyn Sim) -> Outcome {
    use crate::req_payload::{random_packets, world, RpBench, RpKnobs};
    let mut rng = Rng(0x5eed_0e11);
    let w = world(&mut rng);
    let pk = random_packets(&mut rng, &w, 120, 3, 4);
    let knobs = RpKnobs {
        p_hdr: 70,
        p_frag: 80,
        p_xreq: 75,
        p_xresp: 80,
        p_piece: 75,
        p_hdr_out: 75,
        p_err: 60,
        lat_min: 1,
        lat_max: 12,
        pace: false,
    };
    let mut b = RpBench::new(w, knobs, 0x0e11);
    for p in &pk {
        b.send(p);
    }
    reset(s)?;
    let limit = s.now() + 20_000;
    while !b.done() {
        assert!(s.now() < limit, "req_payload: {} headers, {} pieces out", b.hdr_out.len(), b.piece_out.len());
        b.drive(s);
        s.eval();
        b.sample(s).unwrap_or_else(|e| panic!("req_payload: {e}"));
        s.step()?;
    }
    Ok(vec![
        reached("headers", b.hdr_out.len() as u64, 60),
        reached("pieces", b.piece_out.len() as u64, 60),
        reached("error records", b.err_out.len() as u64, 5),
        reached("packets dropped by the note", b.noted, 2),
    ])
}

/// The retry timers: short ticks (8 cycles), reset, the state RAMs'
/// clearing, then random arms (both kinds, short codes, ACK code 0),
/// disarms, on both ports at once at times, over 12 QPs, with `m_expire`
/// stalled.
fn retry_timer(s: &mut dyn Sim) -> Outcome {
    let mut rng = Rng(0x7173_e5ed);
    s.set("tick_m1", 7);
    reset(s)?;
    let mut n = 0;
    while bit(s, "init") {
        s.step()?;
        n += 1;
        assert!(n < 1 << 15, "retry_timer: init never ends");
    }
    // commands about as often per QP as its timers run out (16 to 64 cycles)
    let (mut arms, mut disarms, mut expiries) = (0u64, 0u64, 0u64);
    for _ in 0..6000 {
        let av = rng.chance(8);
        s.set("s_arm.valid", av as u64);
        s.set("s_arm.qpn", (rng.next() % 12) * 1361 + 5);
        s.set("s_arm.kind", rng.next() & 1);
        s.set("s_arm.code", rng.next() % 4);
        let dv = rng.chance(2);
        s.set("s_disarm.valid", dv as u64);
        s.set("s_disarm.qpn", (rng.next() % 12) * 1361 + 5);
        let er = rng.chance(70);
        s.set("m_expire.ready", er as u64);
        s.eval();
        let ready = bit(s, "s_arm.ready");
        arms += (av && ready) as u64;
        disarms += (dv && ready) as u64;
        expiries += (er && bit(s, "m_expire.valid")) as u64;
        s.step()?;
    }
    Ok(vec![reached("arms", arms, 300), reached("disarms", disarms, 60), reached("expiries", expiries, 150)])
}

/// The ACK generator: requests over three QPs, mostly ACKs, offered at 70 %
/// with the output ready at 40 %, so runs of one QP's ACKs merge while the
/// output stalls.
fn ack_gen(s: &mut dyn Sim) -> Outcome {
    use crate::ack_gen::{random_req, set_req};
    let mut rng = Rng(0xac6_9e17);
    reset(s)?;
    let (mut reqs, mut hdrs) = (0u64, 0u64);
    let mut req = None;
    for _ in 0..400 {
        if req.is_none() && rng.chance(70) {
            req = Some(random_req(&mut rng, &[5, 6, 7], 80));
        }
        match &req {
            Some(r) => set_req(s, r, true),
            None => s.set("s_ack.valid", 0),
        }
        let ready = rng.chance(40);
        s.set("m_hdr.tready", ready as u64);
        s.eval();
        if req.is_some() && bit(s, "s_ack.ready") {
            req = None;
            reqs += 1;
        }
        hdrs += (ready && bit(s, "m_hdr.tvalid")) as u64;
        s.step()?;
    }
    Ok(vec![
        reached("requests", reqs, 150),
        reached("headers", hdrs, 80),
        reached("requests merged (or inside, at most 3)", reqs - hdrs, 10),
    ])
}

/// The responder's decision: packets of the bench's script (3 QPs, every
/// PMTU; in order, duplicates, gaps, bad opcodes and lengths, no RECV)
/// offered at 70 % with the `qps` entry from a store the records update,
/// records taken at 70 %; each record's verdict checked against the model's.
fn resp_check(s: &mut dyn Sim) -> Outcome {
    use crate::resp_check::{pack_header, pack_qpc, Script};
    use rnic_hw::consts::*;
    let mut rng = Rng(0x2e5c_4ec4);
    let mut script = Script::new(0x2e5c, 3, &Pmtu::ALL);
    script.generate(500, 60);
    let mut queue: VecDeque<_> = script.cases.into();
    let mut pending = VecDeque::new();
    let mut store: std::collections::HashMap<u64, Vec<u32>> = std::collections::HashMap::new();
    reset(s)?;
    let (mut execs, mut naks, mut dups) = (0u64, 0u64, 0u64);
    let mut offered = false;
    for _ in 0..2000 {
        if !offered && !queue.is_empty() && rng.chance(70) {
            offered = true;
            let c = &queue[0];
            set_wide(s, "s_pkt.hdr", &pack_header(&c.pkt));
            set_wide(s, "s_pkt.qpc", &pack_qpc(&c.ctx));
            let st = store.get(&c.pkt.qpn.into()).cloned().unwrap_or_else(|| vec![0; 16]);
            set_wide(s, "s_pkt.qps", &st);
        }
        s.set("s_pkt.valid", offered as u64);
        s.set("fwd", 1);
        let take = rng.chance(70);
        s.set("m_dec.ready", take as u64);
        s.eval();
        if offered && bit(s, "s_pkt.ready") {
            offered = false;
            pending.push_back(queue.pop_front().unwrap());
        }
        if take && bit(s, "m_dec.valid") {
            let c = pending.pop_front().expect("a record with no packet");
            let v = s.get("m_dec.verdict");
            assert_eq!(v, c.expect.verdict, "resp_check: verdict of QP {:#x} PSN {:#x}", c.pkt.qpn, c.pkt.psn);
            execs += (RESP_EXEC_SEND..=RESP_EXEC_ATOMIC).contains(&v) as u64;
            dups += (RESP_DUP_SEND..=RESP_DUP_ATOMIC).contains(&v) as u64;
            naks += (RESP_NAK_SEQ..=RESP_RNR).contains(&v) as u64;
            if bit(s, "m_dec.write") {
                let data = get_wide(s, "m_dec.wr_data");
                let mask = s.get("m_dec.wr_mask");
                let e = store.entry(s.get("m_dec.qpn")).or_insert_with(|| vec![0; 16]);
                for b in 0..64 {
                    if (mask >> b) & 1 == 1 {
                        let m = 0xffu32 << (8 * (b % 4));
                        e[b / 4] = (e[b / 4] & !m) | (data[b / 4] & m);
                    }
                }
            }
        }
        s.step()?;
    }
    Ok(vec![reached("executed", execs, 100), reached("NAKs", naks, 10), reached("duplicates", dups, 10)])
}

/// The requester's fetch stage: twelve QPs in RTS with work posted (some
/// started, some with the window or the READ/atomic limit nearly used), a
/// scheduler granting them at random (70 %), two context caches answering
/// reads after 1..24 cycles in random order among the due ones (so out of
/// order across slots; an `err` answer now and then) and applying the
/// write-back by its mask, a DMA taking commands with stalls and returning
/// the two beats of random WQEs (every opcode, FENCE, a DMA error now and
/// then) after 2..40 cycles with valid stalls, a fake `req_gen` answering
/// jobs in order (a random packet count within the budget, finished or not,
/// an error now and then), a completer emptying a QP's window and
/// READ/atomic count now and then, and stalls on `m_sdone`/`m_err`.
fn req_fetch(s: &mut dyn Sim) -> Outcome {
    use crate::req_fetch::{random_wqe, rd, wr};
    use rnic_contract::codes::QpState;
    use rnic_contract::layouts::{qps, send_wqe};
    let mut rng = Rng(0x4ef3_7c40);
    reset(s)?;
    let qpns: Vec<u64> = (0..12u64).map(|i| i * 1361 + 5).collect();
    let mut qpcs = vec![];
    let mut qpss = vec![];
    for _ in &qpns {
        let mut c = vec![0u8; 128];
        for x in c.iter_mut() {
            *x = rng.next() as u8;
        }
        wr(qpc::STATE.info(), &mut c, QpState::ReadyToSend as u64);
        wr(qpc::PMTU.info(), &mut c, 1 + rng.next() % 5);
        wr(qpc::MAX_RD_ATOMIC.info(), &mut c, 1 + rng.next() % 3);
        wr(qpc::SQ_LOG_SIZE.info(), &mut c, 2 + rng.next() % 6);
        let mut q = vec![0u8; 64];
        if rng.chance(50) {
            let next = rng.next() % (1 << 24);
            wr(qps::REQ_STARTED.info(), &mut q, 1);
            wr(qps::NEXT_PSN.info(), &mut q, next);
            wr(qps::SENT_END.info(), &mut q, next);
            wr(qps::CURSOR_WQE.info(), &mut q, rng.next() % 0x10000);
            wr(qps::COMP_STARTED.info(), &mut q, 1);
            wr(qps::UNA.info(), &mut q, (next + (1 << 24) - rng.next() % 140) % (1 << 24));
            wr(qps::RD_ATOMIC_STARTED.info(), &mut q, rng.next() % 32);
        }
        qpcs.push(c);
        qpss.push(q);
    }
    let words = |b: &[u8], n: usize| -> Vec<u32> {
        let mut w: Vec<u32> = b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        w.resize(n, 0);
        w
    };
    let idx = |q: u64| qpns.iter().position(|&x| x == q).expect("req_fetch: a request for an unknown QP");
    // pending cache answers: (due, id, data, err), the one offered
    type Answer = (u64, u64, Vec<u8>, bool);
    let mut pend: [Vec<Answer>; 2] = [vec![], vec![]];
    let mut cur: [Option<(u64, Vec<u8>, bool)>; 2] = [None, None];
    let mut beats: VecDeque<(u64, Vec<u8>, bool, bool)> = VecDeque::new();
    let mut rdones: VecDeque<(u64, [u64; 7])> = VecDeque::new();
    let (mut grants, mut jobs, mut sdones, mut writes, mut errs) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for _ in 0..4000 {
        let now = s.now();
        // the scheduler: SQ_PROD moves on now and then (a doorbell); the
        // completer: a QP's window and READ/atomic count emptied now and then
        if rng.chance(5) {
            let i = (rng.next() % 12) as usize;
            let p = rng.next() % 0x10000;
            wr(qpc::SQ_PROD.info(), &mut qpcs[i], p);
        }
        if rng.chance(10) {
            let q = &mut qpss[(rng.next() % 12) as usize];
            let (next, st) = (rd(qps::NEXT_PSN.info(), q), rd(qps::RD_ATOMIC_STARTED.info(), q));
            wr(qps::COMP_STARTED.info(), q, 1);
            wr(qps::UNA.info(), q, next);
            wr(qps::RD_ATOMIC_DONE.info(), q, st);
        }
        let gv = rng.chance(70);
        s.set("s_grant.valid", gv as u64);
        s.set("s_grant.qpn", qpns[(rng.next() % 12) as usize]);
        // the caches: a due answer, in random order
        for (t, (port, n)) in [("s_qpc", 32usize), ("s_qps", 16)].into_iter().enumerate() {
            if cur[t].is_none() {
                let due: Vec<usize> = (0..pend[t].len()).filter(|&i| pend[t][i].0 <= now).collect();
                if !due.is_empty() && rng.chance(80) {
                    let (_, id, d, e) = pend[t].remove(due[(rng.next() % due.len() as u64) as usize]);
                    cur[t] = Some((id, d, e));
                }
            }
            let (v, id, d, e) = match &cur[t] {
                Some((id, d, e)) => (true, *id, d.clone(), *e),
                None => (false, rng.next() % 256, vec![0u8; 4 * n], false),
            };
            set_wide(s, &format!("{port}.data"), &words(&d, n));
            s.set(&format!("{port}.id"), id);
            s.set(&format!("{port}.err"), e as u64);
            s.set(&format!("{port}.valid"), v as u64);
        }
        let (rq_c, rq_s) = (rng.chance(80), rng.chance(80));
        s.set("m_qpc.ready", rq_c as u64);
        s.set("m_qps.ready", rq_s as u64);
        // the DMA
        let rdr = rng.chance(70);
        s.set("m_rd.ready", rdr as u64);
        let bv = beats.front().is_some_and(|b| b.0 <= now) && rng.chance(75);
        let (bd, bl, be) = match beats.front() {
            Some((_, d, l, e)) if bv => (d.clone(), *l, *e),
            _ => (vec![0u8; 64], false, false),
        };
        set_wide(s, "s_rd.tdata", &words(&bd, 16));
        s.set("s_rd.tkeep", u64::MAX);
        s.set("s_rd.tlast", bl as u64);
        s.set("s_rd.tuser", be as u64);
        s.set("s_rd.tvalid", bv as u64);
        // req_gen
        let jr = rng.chance(70);
        s.set("m_job.ready", jr as u64);
        let dv = rdones.front().is_some_and(|d| d.0 <= now) && rng.chance(70);
        let d = rdones.front().map_or([0; 7], |d| d.1);
        for (k, n) in ["qpn", "sq_index", "next_psn", "next_pkt", "end_psn", "finished", "err"].iter().enumerate() {
            s.set(&format!("s_rdone.{n}"), d[k]);
        }
        s.set("s_rdone.valid", dv as u64);
        let (sdr, er) = (rng.chance(75), rng.chance(60));
        s.set("m_sdone.ready", sdr as u64);
        s.set("m_err.ready", er as u64);
        s.set("m_rq_flush.ready", rng.chance(60) as u64);
        // armings taken at random; now and then a go-back-N for a QP (its next grant rewinds)
        s.set("m_arm.ready", rng.chance(70) as u64);
        s.set("s_rewind.valid", rng.chance(5) as u64);
        s.set("s_rewind.qpn", qpns[(rng.next() % 12) as usize]);
        s.eval();

        // ---- what was taken
        grants += (gv && bit(s, "s_grant.ready")) as u64;
        for t in 0..2 {
            if cur[t].is_some() && bit(s, ["s_qpc.ready", "s_qps.ready"][t]) {
                cur[t] = None;
            }
        }
        if rq_c && bit(s, "m_qpc.valid") {
            let i = idx(s.get("m_qpc.index"));
            let lat = 1 + rng.next() % 24;
            pend[0].push((now + lat, s.get("m_qpc.id"), qpcs[i].clone(), rng.chance(2)));
        }
        if rq_s && bit(s, "m_qps.valid") {
            let i = idx(s.get("m_qps.index"));
            if s.get("m_qps.op") == 1 {
                let m = get_wide(s, "m_qps.mask");
                let mask = m[0] as u64 | (m[1] as u64) << 32;
                let dw = get_wide(s, "m_qps.data");
                let db: Vec<u8> = dw.iter().flat_map(|x| x.to_le_bytes()).collect();
                for b in 0..64 {
                    if mask >> b & 1 == 1 {
                        qpss[i][b] = db[b];
                    }
                }
                writes += 1;
            }
            let lat = 1 + rng.next() % 24;
            pend[1].push((now + lat, s.get("m_qps.id"), qpss[i].clone(), rng.chance(2)));
        }
        if rdr && bit(s, "m_rd.valid") {
            let mut w = random_wqe(&mut rng);
            wr(send_wqe::INLINE.info(), &mut w, rng.chance(5) as u64);
            let t = (now + 2 + rng.next() % 40).max(beats.back().map_or(0, |b| b.0));
            let err = rng.chance(3);
            beats.push_back((t, w[..64].to_vec(), false, err));
            beats.push_back((t, w[64..].to_vec(), true, false));
        }
        if bv && bit(s, "s_rd.tready") {
            beats.pop_front();
        }
        if jr && bit(s, "m_job.valid") {
            jobs += 1;
            let (psn, k, budget) = (s.get("m_job.psn"), s.get("m_job.pkt_index"), s.get("m_job.budget").max(1));
            let n = 1 + rng.next() % budget.min(8);
            let fin = rng.chance(60);
            let err = if rng.chance(5) { 1 + rng.next() % 3 } else { 0 };
            let next = (psn + n) % (1 << 24);
            let done = [s.get("m_job.qpn"), s.get("m_job.sq_index"), next, k + n, next, fin as u64, err];
            rdones.push_back((now + 1 + rng.next() % 12, done));
        }
        if dv && bit(s, "s_rdone.ready") {
            rdones.pop_front();
        }
        sdones += (sdr && bit(s, "m_sdone.valid")) as u64;
        errs += (er && bit(s, "m_err.valid")) as u64;
        s.step()?;
    }
    Ok(vec![
        reached("grants", grants, 400),
        reached("jobs", jobs, 150),
        reached("scheduler dones", sdones, 400),
        reached("qps write-backs", writes, 100),
        reached("error records", errs, 3),
    ])
}

/// The completer's ACK path: the bench's script (2 QPs: ACKs, duplicates,
/// ghosts, NAKs of every kind, READ responses) offered at 70 % with the
/// `qps` entry from a store the records update, an `inflight` model
/// answering HEAD/POP (6 cycles or later, 70 %), CQEs taken at 60 %,
/// records at 70 %; each record's verdict checked against the model's;
/// read-ahead hints on `m_hint` counted.
fn comp_ack(s: &mut dyn Sim) -> Outcome {
    use crate::comp_ack::{pack_header, pack_qpc, pack_qps, InflightModel, Script};
    use rnic_hw::consts::*;
    use rnic_hw::transport::INFLIGHT_ENTRY_BITS;
    let mut rng = Rng(0xc0_acc);
    let mut script = Script::new(0xc0ac, 2);
    script.generate(400);
    let mut queue: VecDeque<_> = script.cases.into();
    let mut pending = VecDeque::new();
    let mut store: std::collections::HashMap<u64, Vec<u8>> = std::collections::HashMap::new();
    let mut inf = InflightModel::default();
    reset(s)?;
    let (mut walks, mut cqes, mut naks, mut hints) = (0u64, 0u64, 0u64, 0u64);
    let mut offered = false;
    // a placement request (a READ response with data) answered `ok` a few cycles after it is taken
    let (mut place_due, mut placed) = (None::<u64>, 0u64);
    for _ in 0..3000 {
        let now = s.now();
        // (a record in error's case waits for the records before it: `Case::quiet`)
        if !offered && !queue.is_empty() && (!queue[0].quiet || pending.is_empty()) && rng.chance(70) {
            offered = true;
            let c = &queue[0];
            for (q, e) in &c.pushes {
                inf.push(*q, *e);
            }
            set_wide(s, "s_pkt.hdr", &pack_header(c));
            set_wide(s, "s_pkt.qpc", &pack_qpc(c));
            set_wide(s, "s_pkt.qps", &pack_qps(c, store.get(&u64::from(c.qpn))));
        }
        s.set("s_pkt.valid", offered as u64);
        let answer = inf.answers.front().filter(|a| a.0 <= now).map(|a| (a.1, a.2));
        let give = answer.is_some() && rng.chance(70);
        let entry = answer.and_then(|a| a.0);
        let data = entry.map(|e| e.words()).unwrap_or_else(|| vec![0; INFLIGHT_ENTRY_BITS.div_ceil(32)]);
        set_wide(s, "s_inf.data", &data);
        s.set("s_inf.empty", (give && entry.is_none()) as u64);
        s.set("s_inf.is_tail", answer.is_some_and(|a| a.1) as u64);
        s.set("s_inf.valid", give as u64);
        let (cmd_ready, cqe_ready, take) = (rng.chance(80), rng.chance(60), rng.chance(70));
        s.set("m_inf.ready", cmd_ready as u64);
        s.set("m_cqe.ready", cqe_ready as u64);
        s.set("m_dec.ready", take as u64);
        let place_ready = place_due.is_none() && rng.chance(70);
        s.set("m_place.ready", place_ready as u64);
        s.set("s_placed.valid", (place_due == Some(now)) as u64);
        s.set("s_placed.ok", 1);
        if place_due == Some(now) {
            place_due = None;
        }
        s.eval();
        if place_ready && bit(s, "m_place.valid") {
            place_due = Some(now + 1 + rng.next() % 4);
            placed += 1;
        }
        if offered && bit(s, "s_pkt.ready") {
            offered = false;
            pending.push_back(queue.pop_front().unwrap());
        }
        if cmd_ready && bit(s, "m_inf.valid") {
            walks += (s.get("m_inf.op") == INFLIGHT_POP) as u64;
            inf.command(now, s.get("m_inf.op"), s.get("m_inf.qpn") as u32);
        }
        if give && bit(s, "s_inf.ready") {
            inf.answers.pop_front();
        }
        cqes += (cqe_ready && bit(s, "m_cqe.valid")) as u64;
        hints += bit(s, "m_hint.valid") as u64;
        if take && bit(s, "m_dec.valid") {
            let c = pending.pop_front().expect("a record with no packet");
            let v = s.get("m_dec.verdict");
            assert_eq!(v, c.expect.verdict, "comp_ack: verdict of QP {:#x} PSN {:#x}", c.qpn, c.psn);
            naks += (COMP_RNR..=COMP_NAK_FATAL).contains(&v) as u64;
            if bit(s, "m_dec.write") {
                let data = get_wide(s, "m_dec.wr_data");
                let mask = s.get("m_dec.wr_mask");
                let e = store.entry(s.get("m_dec.qpn")).or_insert_with(|| vec![0; 64]);
                for (b, byte) in e.iter_mut().enumerate() {
                    if (mask >> b) & 1 == 1 {
                        *byte = (data[b / 4] >> (8 * (b % 4))) as u8;
                    }
                }
            }
        }
        s.step()?;
    }
    Ok(vec![
        reached("POPs", walks, 40),
        reached("CQEs", cqes, 20),
        reached("NAKs", naks, 20),
        reached("placements", placed, 5),
        reached("read-ahead hints", hints, 3),
    ])
}
