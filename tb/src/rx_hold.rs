//! Bench for the receive path's ICRC hold (`RxHold`, catalog `rx_hold`):
//! packets (a header, a payload in its wire lanes, a verdict on the last
//! beat) offered on `s_hdr` and `s_axis` as `RxParse` makes them, with
//! random stalls on all four streams; the reference is the list of good
//! packets: `m_hdr` must carry exactly their headers in order and `m_axis`
//! exactly their beats in order (`tdata` whole, `tkeep`, `tlast`, `tuser`
//! 0), every offered output must stay offered until taken, and the counters
//! must count every verdict.
//!
//! Headers are random stored forms (`RX_HDR_STORE_BITS` random bits)
//! expanded as the parser expands them ([`expand`], a Rust mirror of
//! `RxHdrExpand`): the hold keeps headers in the stored form, so every
//! header the parser can make must come out unchanged.
//!
//! For the timing tests the bench also has a reference of the hold's
//! schedule without output stalls ([`HoldBench::check_schedule`]): each good
//! packet's header and payload beats leave as early as the latencies and
//! one-per-cycle rates allow.

use crate::rx::lane_keeps;
use rnic_hw::prim::BRAM_FIFO_LATENCY;
use rnic_hw::transport::RxHold;
use rnic_hw::wire::RX_HDR_STORE_BITS;
use rnic_sim::axis::Rng;
use rnic_sim::models::rx_hold::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// Header words (1024 bits).
pub const HDR_WORDS: usize = 32;

/// The packed header `RxHdrExpand` makes of a stored one (`stored[i]` = bit i).
pub fn expand(stored: &[bool]) -> [u32; HDR_WORDS] {
    assert_eq!(stored.len(), RX_HDR_STORE_BITS);
    let ext = |lo: usize| 335 + lo;
    // (first bit in `stored`, width), most significant first, as RxHdrExpand shifts them in
    let parts: [(usize, usize); 16] = [
        (559, 91),
        (ext(160), 64),
        (ext(128), 32),
        (ext(96), 32),
        (ext(216), 8),
        (ext(192), 24),
        (ext(160), 64),
        (ext(128), 32),
        (ext(64), 64),
        (ext(0), 64),
        (ext(128), 64),
        (303, 32),
        (ext(192), 32),
        (ext(192), 32),
        (ext(160), 24),
        (0, 303),
    ];
    let mut bits: Vec<bool> = vec![];
    for &(lo, w) in parts.iter().rev() {
        bits.extend_from_slice(&stored[lo..lo + w]);
    }
    let mut out = [0u32; HDR_WORDS];
    for (i, &b) in bits.iter().enumerate() {
        out[i / 32] |= (b as u32) << (i % 32);
    }
    out
}

/// One packet as the parser hands it out.
#[derive(Clone, Debug)]
pub struct Packet {
    pub hdr: [u32; HDR_WORDS],
    /// Payload beats: data (junk outside `tkeep`, passed through as is), keep.
    pub beats: Vec<([u32; 16], u64)>,
    pub bad: bool,
}

impl Packet {
    /// A random packet: `len` payload bytes from lane `lane`, a random header.
    pub fn random(rng: &mut Rng, len: usize, lane: usize, bad: bool) -> Packet {
        let stored: Vec<bool> = (0..RX_HDR_STORE_BITS).map(|_| rng.next() & 1 == 1).collect();
        let beats = lane_keeps(lane, len)
            .into_iter()
            .map(|k| {
                let mut w = [0u32; 16];
                for x in w.iter_mut() {
                    *x = rng.next() as u32;
                }
                (w, k)
            })
            .collect();
        Packet { hdr: expand(&stored), beats, bad }
    }
}

/// Stall probabilities in percent, per stream.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stalls {
    pub hdr_in: u64,
    pub axis_in: u64,
    pub hdr_out: u64,
    pub axis_out: u64,
}

struct Ports {
    hi_data: usize,
    hi_valid: usize,
    hi_ready: usize,
    ai_data: usize,
    ai_keep: usize,
    ai_last: usize,
    ai_user: usize,
    ai_valid: usize,
    ai_ready: usize,
    ho_data: usize,
    ho_valid: usize,
    ho_ready: usize,
    ao_data: usize,
    ao_keep: usize,
    ao_last: usize,
    ao_user: usize,
    ao_valid: usize,
    ao_ready: usize,
    good: usize,
    bad: usize,
    pulse: usize,
}

/// When things happened to one packet (cycles).
#[derive(Clone, Debug, Default)]
pub struct Times {
    pub hdr_in: u64,
    pub last_in: u64,
    pub hdr_out: u64,
    pub beats_out: Vec<u64>,
}

pub struct HoldBench {
    pub sim: Clocked<Dut>,
    p: Ports,
    rng: Rng,
    pub stalls: Stalls,
    /// `m_hdr.tready` is low before this cycle.
    pub hdr_out_hold_until: u64,
    /// `s_axis` offers nothing before this cycle.
    pub axis_in_from: u64,
    /// Packets offered, in order (index = packet number).
    pub pkts: Vec<Packet>,
    pub times: Vec<Times>,
    hdr_next: usize,
    beat_next: (usize, usize),
    hdr_on: bool,
    axis_on: bool,
    /// Good packets not yet out: header side, payload side (packet, beat).
    want_hdr: VecDeque<usize>,
    want_beat: VecDeque<(usize, usize)>,
    /// What each output offered last cycle without it being taken.
    held_hdr: Option<[u32; HDR_WORDS]>,
    held_beat: Option<([u32; 16], u64, bool)>,
    pub bad_pulses: u64,
    /// Cycles in which `s_axis` / `s_hdr` offered a beat that was not taken.
    pub axis_in_stalled: u64,
    pub hdr_in_stalled: u64,
    pub beats_in: u64,
    pub beats_out: u64,
}

impl HoldBench {
    pub fn new(seed: u64) -> Self {
        let dut = Dut::new();
        let i = |n: &str| dut.port(n);
        let p = Ports {
            hi_data: i("s_hdr.tdata"),
            hi_valid: i("s_hdr.tvalid"),
            hi_ready: i("s_hdr.tready"),
            ai_data: i("s_axis.tdata"),
            ai_keep: i("s_axis.tkeep"),
            ai_last: i("s_axis.tlast"),
            ai_user: i("s_axis.tuser"),
            ai_valid: i("s_axis.tvalid"),
            ai_ready: i("s_axis.tready"),
            ho_data: i("m_hdr.tdata"),
            ho_valid: i("m_hdr.tvalid"),
            ho_ready: i("m_hdr.tready"),
            ao_data: i("m_axis.tdata"),
            ao_keep: i("m_axis.tkeep"),
            ao_last: i("m_axis.tlast"),
            ao_user: i("m_axis.tuser"),
            ao_valid: i("m_axis.tvalid"),
            ao_ready: i("m_axis.tready"),
            good: i("cnt_good"),
            bad: i("cnt_bad"),
            pulse: i("bad_pulse"),
        };
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        HoldBench {
            sim,
            p,
            rng: Rng(seed | 1),
            stalls: Stalls::default(),
            hdr_out_hold_until: 0,
            axis_in_from: 0,
            pkts: vec![],
            times: vec![],
            hdr_next: 0,
            beat_next: (0, 0),
            hdr_on: false,
            axis_on: false,
            want_hdr: VecDeque::new(),
            want_beat: VecDeque::new(),
            held_hdr: None,
            held_beat: None,
            bad_pulses: 0,
            axis_in_stalled: 0,
            hdr_in_stalled: 0,
            beats_in: 0,
            beats_out: 0,
        }
    }

    pub fn queue(&mut self, pkt: Packet) {
        let k = self.pkts.len();
        if !pkt.bad {
            self.want_hdr.push_back(k);
            self.want_beat.extend((0..pkt.beats.len()).map(|b| (k, b)));
        }
        self.pkts.push(pkt);
        self.times.push(Times::default());
    }

    pub fn idle(&self) -> bool {
        self.want_hdr.is_empty()
            && self.want_beat.is_empty()
            && self.hdr_next == self.pkts.len()
            && self.beat_next.0 == self.pkts.len()
    }

    pub fn cycle(&mut self) {
        let now = self.sim.cycle();
        let s = self.stalls;
        let p = &self.p;
        let d = &mut self.sim.dut;
        // ---- sources: a beat once offered stays offered
        if !self.hdr_on && self.hdr_next < self.pkts.len() && !self.rng.chance(s.hdr_in) {
            d.set_words(p.hi_data, &self.pkts[self.hdr_next].hdr);
            self.hdr_on = true;
        }
        d.set_at(p.hi_valid, self.hdr_on as u64);
        let (bk, bb) = self.beat_next;
        if !self.axis_on && bk < self.pkts.len() && now >= self.axis_in_from && !self.rng.chance(s.axis_in) {
            let pkt = &self.pkts[bk];
            let (w, keep) = pkt.beats[bb];
            let last = bb + 1 == pkt.beats.len();
            d.set_words(p.ai_data, &w);
            d.set_at(p.ai_keep, keep);
            d.set_at(p.ai_last, last as u64);
            d.set_at(p.ai_user, (last && pkt.bad) as u64);
            self.axis_on = true;
        }
        d.set_at(p.ai_valid, self.axis_on as u64);
        let ho_ready = now >= self.hdr_out_hold_until && !self.rng.chance(s.hdr_out);
        let ao_ready = !self.rng.chance(s.axis_out);
        d.set_at(p.ho_ready, ho_ready as u64);
        d.set_at(p.ao_ready, ao_ready as u64);
        d.eval();

        // ---- inputs taken
        if self.hdr_on {
            if d.bit_at(p.hi_ready) {
                self.times[self.hdr_next].hdr_in = now;
                self.hdr_next += 1;
                self.hdr_on = false;
            } else {
                self.hdr_in_stalled += 1;
            }
        }
        if self.axis_on {
            if d.bit_at(p.ai_ready) {
                self.beats_in += 1;
                if bb + 1 == self.pkts[bk].beats.len() {
                    self.times[bk].last_in = now;
                    self.beat_next = (bk + 1, 0);
                } else {
                    self.beat_next = (bk, bb + 1);
                }
                self.axis_on = false;
            } else {
                self.axis_in_stalled += 1;
            }
        }
        // ---- outputs: offered stays offered, and exactly the good packets in order
        if d.bit_at(p.ho_valid) {
            let mut h = [0u32; HDR_WORDS];
            d.get_words(p.ho_data, &mut h);
            if let Some(prev) = self.held_hdr {
                assert_eq!(h, prev, "cycle {now}: m_hdr changed while offered");
            }
            let &k = self.want_hdr.front().unwrap_or_else(|| panic!("cycle {now}: a header nobody expects"));
            assert_eq!(h, self.pkts[k].hdr, "cycle {now}: header of packet {k}");
            if ho_ready {
                self.times[k].hdr_out = now;
                self.want_hdr.pop_front();
                self.held_hdr = None;
            } else {
                self.held_hdr = Some(h);
            }
        } else {
            assert!(self.held_hdr.is_none(), "cycle {now}: m_hdr withdrawn");
        }
        if d.bit_at(p.ao_valid) {
            let mut w = [0u32; 16];
            d.get_words(p.ao_data, &mut w);
            let got = (w, d.get_at(p.ao_keep), d.bit_at(p.ao_last));
            assert!(!d.bit_at(p.ao_user), "cycle {now}: m_axis.tuser set");
            if let Some(prev) = self.held_beat {
                assert_eq!(got, prev, "cycle {now}: m_axis changed while offered");
            }
            let &(k, b) = self.want_beat.front().unwrap_or_else(|| panic!("cycle {now}: a beat nobody expects"));
            let pkt = &self.pkts[k];
            let want = (pkt.beats[b].0, pkt.beats[b].1, b + 1 == pkt.beats.len());
            assert_eq!(got, want, "cycle {now}: packet {k} beat {b} (tdata, tkeep, tlast)");
            if ao_ready {
                self.times[k].beats_out.push(now);
                self.want_beat.pop_front();
                self.held_beat = None;
                self.beats_out += 1;
            } else {
                self.held_beat = Some(got);
            }
        } else {
            assert!(self.held_beat.is_none(), "cycle {now}: m_axis withdrawn");
        }
        self.bad_pulses += d.get_at(p.pulse);
        self.sim.tick();
    }

    /// Run until every packet went in and every good one came out; panics
    /// after `limit` cycles. Returns the cycles it took.
    pub fn run(&mut self, limit: u64) -> u64 {
        let start = self.sim.cycle();
        while !self.idle() {
            self.cycle();
            if self.sim.cycle() - start >= limit {
                let d = &self.sim.dut;
                panic!(
                    "stuck at cycle {}: {} headers and {} beats expected still, next header in {}, next beat in {:?}; \
                     s_hdr.tready {} s_axis.tready {} m_hdr.tvalid {} m_axis.tvalid {}",
                    self.sim.cycle(),
                    self.want_hdr.len(),
                    self.want_beat.len(),
                    self.hdr_next,
                    self.beat_next,
                    d.bit_at(self.p.hi_ready),
                    d.bit_at(self.p.ai_ready),
                    d.bit_at(self.p.ho_valid),
                    d.bit_at(self.p.ao_valid)
                );
            }
        }
        // the counters' last increment shows a cycle after the last beat
        for _ in 0..2 {
            self.cycle();
        }
        self.sim.cycle() - start
    }

    /// The counters and pulses against the packets offered.
    pub fn check_counters(&self) {
        let bad = self.pkts.iter().filter(|p| p.bad).count() as u64;
        let good = self.pkts.len() as u64 - bad;
        let d = &self.sim.dut;
        assert_eq!(d.get_at(self.p.good), good, "cnt_good");
        assert_eq!(d.get_at(self.p.bad), bad, "cnt_bad");
        assert_eq!(self.bad_pulses, bad, "bad_pulse");
    }

    /// With no output stall, every good packet left exactly when the hold's
    /// schedule says: the head header and its verdict pair up at the
    /// earliest `BRAM_FIFO_LATENCY` cycles after the header was taken and
    /// `HDR_LATENCY - 1` after the last beat, one pair per cycle, a good
    /// header on `m_hdr` the cycle after; payload beats leave one per cycle,
    /// a packet's first `PAYLOAD_LATENCY` cycles after its last beat came in.
    pub fn check_schedule(&self) {
        let mut pair = 0u64;
        let mut beat = 0u64;
        for (k, (pkt, t)) in self.pkts.iter().zip(&self.times).enumerate() {
            pair = (pair + 1).max(t.hdr_in + BRAM_FIFO_LATENCY).max(t.last_in + RxHold::HDR_LATENCY - 1);
            if pkt.bad {
                continue;
            }
            assert_eq!(
                t.hdr_out,
                pair + 1,
                "packet {k}: header out (taken at {}, last beat at {})",
                t.hdr_in,
                t.last_in
            );
            for (b, &c) in t.beats_out.iter().enumerate() {
                beat = (beat + 1).max(t.last_in + RxHold::PAYLOAD_LATENCY + b as u64);
                assert_eq!(c, beat, "packet {k}: beat {b} out (last beat in at {})", t.last_in);
            }
        }
    }
}
