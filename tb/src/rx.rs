//! Driving the receive parser, and replaying captures through it.

use rnic_sim::axis::Rng;
use rnic_sim::frames::frame_beats;
use rnic_sim::models::rx_parse::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// The `tkeep` of each beat of a payload of `len` bytes whose first byte is
/// in lane `lane` (a payload in its wire lanes, docs/wire.md): the lanes
/// from `lane` up in the first beat, whole beats, the lanes below its end in
/// the last; one beat with no lane for an empty payload.
pub fn lane_keeps(lane: usize, len: usize) -> Vec<u64> {
    assert!(lane < 64);
    let mask = |lo: usize, hi: usize| (lo..hi).fold(0u64, |m, i| m | 1 << i);
    let end = lane + len;
    (0..end.div_ceil(64).max(1))
        .map(|b| mask(lane.max(64 * b) - 64 * b, end.min(64 * b + 64).max(64 * b) - 64 * b))
        .collect()
}

/// Outcome codes of `RxParse::done_code`.
pub const ROCE: u8 = 0;
pub const RAW: u8 = 1;
pub const MALFORMED: u8 = 2;
pub const ICRC: u8 = 3;
pub const IP_CSUM: u8 = 4;
pub const MAC_ERR: u8 = 5;

/// Drives the Verilated receive parser: frames in (with random stalls),
/// headers, payloads, raw frames and per-frame outcomes out.
pub struct RxBench {
    pub sim: Clocked<Dut>,
    pub beats: VecDeque<(rnic_sim::frames::Beat512, bool)>,
    pub presenting: bool,
    pub hdrs: Vec<Vec<u32>>,
    pub payloads: Vec<(Vec<u8>, bool)>,
    /// The `tkeep` of every beat of each payload in `payloads`.
    pub payload_keeps: Vec<Vec<u64>>,
    pub raws: Vec<(Vec<u8>, bool)>,
    pub cur_payload: Vec<u8>,
    pub cur_keeps: Vec<u64>,
    pub cur_raw: Vec<u8>,
    pub codes: Vec<u8>,
    /// Per decided frame: did it send a header?
    pub sent_hdr: Vec<bool>,
    pub in_beats: u64,
    /// Cycle in which each frame's first beat was accepted.
    pub first_in_cycles: Vec<u64>,
    /// Cycle in which each header was taken from `m_hdr`.
    pub hdr_cycles: Vec<u64>,
    /// Cycle in which each payload's first beat was taken from `m_axis`.
    pub payload_cycles: Vec<u64>,
    /// Output beats not shaped as docs/wire.md says (a payload in its wire
    /// lanes: one run of lanes over its beats, whole beats but the first and
    /// the last, one `tkeep = 0` beat for no payload). Where each payload
    /// starts is checked against its header ([`lane_keeps`]).
    pub shape_errors: Vec<String>,
    /// A header consumer that acts only on verified packets: it takes header
    /// `k` from `m_hdr` only once payload `k`'s last beat (which carries the
    /// frame's verdict) has been taken from `m_axis`.
    pub hdr_waits_for_verdict: bool,
    /// The next beat taken starts a frame.
    at_frame_start: bool,
    p: [usize; 16],
}

impl RxBench {
    pub fn new() -> Self {
        let dut = Dut::new();
        let names = [
            "s_axis.tdata",
            "s_axis.tkeep",
            "s_axis.tlast",
            "s_axis.tuser",
            "s_axis.tvalid",
            "s_axis.tready",
            "m_hdr.tvalid",
            "m_hdr.tready",
            "m_axis.tvalid",
            "m_axis.tready",
            "m_raw.tvalid",
            "m_raw.tready",
            "done_valid",
            "done_code",
            "m_axis.tuser",
            "m_raw.tuser",
        ];
        let mut p = [0; 16];
        for (i, n) in names.iter().enumerate() {
            p[i] = dut.port(n);
        }
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        RxBench {
            sim,
            beats: VecDeque::new(),
            presenting: false,
            hdrs: vec![],
            payloads: vec![],
            payload_keeps: vec![],
            raws: vec![],
            cur_payload: vec![],
            cur_keeps: vec![],
            cur_raw: vec![],
            codes: vec![],
            sent_hdr: vec![],
            in_beats: 0,
            first_in_cycles: vec![],
            hdr_cycles: vec![],
            payload_cycles: vec![],
            at_frame_start: true,
            hdr_waits_for_verdict: false,
            shape_errors: vec![],
            p,
        }
    }

    pub fn queue(&mut self, frame: &[u8], mac_err: bool) {
        for b in frame_beats(frame) {
            let last = b.last;
            self.beats.push_back((b, mac_err && last));
        }
    }

    pub fn bytes(words: &[u32], keep: u64) -> Vec<u8> {
        (0..64).filter(|i| keep >> i & 1 == 1).map(|i| (words[i / 4] >> (8 * (i % 4))) as u8).collect()
    }

    /// One cycle; returns whether the input took a beat.
    pub fn cycle(&mut self, rng: &mut Rng, p_valid: u64, p_ready: u64) -> bool {
        let p = self.p;
        let now = self.sim.cycle();
        let d = &mut self.sim.dut;
        if !self.presenting && !self.beats.is_empty() && rng.chance(p_valid) {
            let (b, err) = &self.beats[0];
            d.set_words(p[0], &b.data);
            d.set_words(p[1], &[b.keep as u32, (b.keep >> 32) as u32]);
            d.set_words(p[2], &[b.last as u32]);
            d.set_words(p[3], &[*err as u32]);
            self.presenting = true;
        }
        d.set_words(p[4], &[self.presenting as u32]);
        let (mut rh, ra, rr) = (rng.chance(p_ready), rng.chance(p_ready), rng.chance(p_ready));
        if self.hdr_waits_for_verdict && self.payloads.len() <= self.hdrs.len() {
            rh = false;
        }
        d.set_words(p[7], &[rh as u32]);
        d.set_words(p[9], &[ra as u32]);
        d.set_words(p[11], &[rr as u32]);
        d.eval();
        let get = |d: &Dut, i: usize| d.get(d.ports()[i].rust_path);
        let took = self.presenting && get(d, p[5]) == 1;
        if rh && get(d, p[6]) == 1 {
            self.hdrs.push(d.m_hdr_tdata().to_vec());
            self.hdr_cycles.push(now);
        }
        if ra && get(d, p[8]) == 1 {
            let keep = d.m_axis_tkeep();
            let last = d.m_axis_tlast() == 1;
            // the payload in its wire lanes: one run of lanes, from some lane
            // up to lane 63 on the first beat, whole beats, from lane 0 on the
            // last; no payload is one beat with tkeep = 0
            let first = self.cur_keeps.is_empty();
            if first {
                self.payload_cycles.push(now);
            }
            let run = keep >> keep.trailing_zeros().min(63);
            let one_run = keep == 0 || run & run.wrapping_add(1) == 0;
            let ok = one_run && (keep != 0 || (first && last)) && (first || keep & 1 == 1) && (last || keep >> 63 == 1);
            if !ok {
                self.shape_errors.push(format!("cycle {now}: payload beat with tkeep {keep:#018x} (tlast {last})"));
            }
            self.cur_payload.extend(Self::bytes(&d.m_axis_tdata(), keep));
            self.cur_keeps.push(keep);
            if last {
                self.payloads.push((std::mem::take(&mut self.cur_payload), get(d, p[14]) == 1));
                self.payload_keeps.push(std::mem::take(&mut self.cur_keeps));
            }
        }
        if rr && get(d, p[10]) == 1 {
            let keep = d.m_raw_tkeep();
            let ok =
                if d.m_raw_tlast() == 1 { keep != 0 && keep & keep.wrapping_add(1) == 0 } else { keep == u64::MAX };
            if !ok {
                self.shape_errors.push(format!("cycle {now}: raw beat with tkeep {keep:#018x}"));
            }
            self.cur_raw.extend(Self::bytes(&d.m_raw_tdata(), keep));
            if d.m_raw_tlast() == 1 {
                self.raws.push((std::mem::take(&mut self.cur_raw), get(d, p[15]) == 1));
            }
        }
        if get(d, p[12]) == 1 {
            self.codes.push(get(d, p[13]) as u8);
            self.sent_hdr.push(d.done_hdr() == 1);
        }
        if took {
            if self.at_frame_start {
                self.first_in_cycles.push(now);
            }
            self.at_frame_start = self.beats[0].0.last;
            self.beats.pop_front();
            self.presenting = false;
            self.in_beats += 1;
        }
        self.sim.tick();
        took
    }

    pub fn run_until(&mut self, rng: &mut Rng, frames: usize, p_valid: u64, p_ready: u64) {
        let limit = self.sim.cycle() + 200 + 40 * (self.beats.len() as u64 + frames as u64);
        while self.codes.len() < frames {
            self.cycle(rng, p_valid, p_ready);
            assert!(self.sim.cycle() < limit, "parser stopped: {} of {frames} frames decided", self.codes.len());
        }
        // nothing may come out after the last frame is decided
        for _ in 0..50 {
            self.cycle(rng, p_valid, 100);
        }
    }
}

impl Default for RxBench {
    fn default() -> Self {
        Self::new()
    }
}
