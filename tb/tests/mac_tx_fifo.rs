//! `mac_tx_fifo` under Verilator with its two clocks at their real ratio
//! (322.265625 MHz : 250 MHz = 165 : 128, exact): the core sends frames in
//! bursts with random gaps (also inside frames), the MAC takes them with or
//! without stalls of its own. The MAC must never see `tvalid` low between a
//! frame's first and last beat, and every frame must arrive whole, in order
//! and byte-exact.

#[path = "mac/common.rs"]
mod common;

use common::*;
use rnic_hw::mac::{RESET_CYCLES, TX_DEPTH, TX_MAX_FRAME_BEATS, TX_MAX_FRAME_BYTES};
use rnic_sim::axis::Rng;
use rnic_sim::models::mac_tx_fifo::Dut;
use rnic_sim::{Model, TwoClocks};

struct Tx {
    tc: TwoClocks<Dut>,
    s: Stream,
    m: Stream,
    frames: Vec<(Vec<u8>, bool)>,
    // the core
    cur: usize,
    beat: usize,
    presenting: bool,
    /// Per frame: MAC edges counted when the core's last beat went in.
    commit_mac: Vec<u64>,
    /// Core edges at which a beat went in, and at which `tready` was low.
    in_edges: Vec<u64>,
    not_ready_edges: u64,
    // the MAC
    ready: bool,
    got: Vec<u8>,
    in_frame: bool,
    delivered: usize,
    /// Per frame: MAC edges from its commit to its first beat taken.
    latency: Vec<u64>,
    /// MAC edge of every beat taken.
    out_edges: Vec<u64>,
    /// At the last MAC edge: a beat offered and not taken (what `stalled`
    /// shows one edge later); MAC edges at which `stalled` was high.
    stall_before: Option<bool>,
    stalled_edges: u64,
}

impl Tx {
    fn new(frames: Vec<(Vec<u8>, bool)>, first: [u64; 2]) -> Self {
        let dut = Dut::new();
        let s = Stream::of(&dut, "s_axis");
        let m = Stream::of(&dut, "m_axis");
        let mut tc = TwoClocks::new(dut, CLOCKS, PERIODS, first);
        tc.reset("reset", CORE, RESET_CYCLES);
        for _ in 0..4 {
            tc.step();
        }
        let n = frames.len();
        Tx {
            tc,
            s,
            m,
            frames,
            cur: 0,
            beat: 0,
            presenting: false,
            commit_mac: vec![0; n],
            in_edges: vec![],
            not_ready_edges: 0,
            ready: false,
            got: vec![],
            in_frame: false,
            delivered: 0,
            latency: vec![],
            out_edges: vec![],
            stall_before: None,
            stalled_edges: 0,
        }
    }

    /// Run until every frame is through. `offer(rng, edge)`: whether the
    /// core offers its next beat at a core edge (once offered, a beat stays
    /// until taken); `ready(rng, edge)`: the MAC's `tready`.
    fn run(
        &mut self,
        rng: &mut Rng,
        mut offer: impl FnMut(&mut Rng, u64) -> bool,
        mut ready: impl FnMut(&mut Rng, u64) -> bool,
    ) {
        let s_ready = self.s.ready.unwrap();
        let m_ready = self.m.ready.unwrap();
        while self.delivered < self.frames.len() {
            let e = self.tc.next_edges();
            self.tc.dut.eval();
            let mut core_took = false;
            if e[CORE] {
                let r = self.tc.dut.bit_at(s_ready);
                if !r && self.cur < self.frames.len() {
                    self.not_ready_edges += 1;
                }
                core_took = self.presenting && r;
            }
            if e[MAC] {
                let edge = self.tc.cycles(MAC) + 1;
                let valid = self.m.valid(&self.tc.dut);
                assert!(
                    valid || !self.in_frame,
                    "MAC edge {edge}: tvalid low inside frame {} after {} bytes",
                    self.delivered,
                    self.got.len()
                );
                // `stalled`: the edge before's beat offered and not taken
                let stalled = self.tc.dut.get("stalled") == 1;
                if let Some(want) = self.stall_before {
                    assert_eq!(stalled, want, "MAC edge {edge}: stalled");
                }
                self.stalled_edges += u64::from(stalled);
                self.stall_before = Some(valid && !self.ready);
                if valid && self.ready {
                    self.take(edge);
                }
            }
            self.tc.step();
            if core_took {
                self.in_edges.push(self.tc.cycles(CORE));
                self.presenting = false;
                self.beat += 1;
                if 64 * self.beat >= self.frames[self.cur].0.len() {
                    self.commit_mac[self.cur] = self.tc.cycles(MAC);
                    self.cur += 1;
                    self.beat = 0;
                }
            }
            if e[CORE] {
                if !self.presenting && self.cur < self.frames.len() && offer(rng, self.tc.cycles(CORE)) {
                    let (f, user) = &self.frames[self.cur];
                    self.s.drive(&mut self.tc.dut, f, self.beat, *user);
                    self.presenting = true;
                }
                if !self.presenting {
                    self.s.idle(&mut self.tc.dut);
                }
            }
            if e[MAC] {
                self.ready = ready(rng, self.tc.cycles(MAC));
                self.tc.dut.set_words(m_ready, &[self.ready as u32]);
            }
            assert!(
                self.tc.cycles(CORE) < 50_000_000,
                "the run does not end: {} of {} frames through",
                self.delivered,
                self.frames.len()
            );
        }
        // nothing more comes out
        for _ in 0..2 * TX_DEPTH {
            self.tc.dut.eval();
            assert!(!self.m.valid(&self.tc.dut), "a beat after the last frame");
            self.tc.step();
        }
    }

    fn take(&mut self, edge: u64) {
        let (bytes, last, user) = self.m.beat(&self.tc.dut);
        if !self.in_frame {
            self.latency.push(edge - self.commit_mac[self.delivered]);
        }
        assert!(self.delivered < self.cur, "frame {} leaves before the core finished it", self.delivered);
        self.in_frame = !last;
        self.got.extend_from_slice(&bytes);
        self.out_edges.push(edge);
        assert!(!user || last, "tuser on a beat before the last");
        if last {
            let got = std::mem::take(&mut self.got);
            let (want, want_user) = &self.frames[self.delivered];
            assert_eq!(seq_of(&got), self.delivered, "frames out of order");
            assert!(&got == want, "frame {} differs ({} bytes out, {} in)", self.delivered, got.len(), want.len());
            assert_eq!(user, *want_user, "frame {}: tuser", self.delivered);
            self.delivered += 1;
        }
    }
}

fn frames(rng: &mut Rng, n: usize, len: impl Fn(&mut Rng) -> usize) -> Vec<(Vec<u8>, bool)> {
    (0..n)
        .map(|i| {
            let l = len(rng);
            (frame(rng, i, l), rng.chance(5))
        })
        .collect()
}

const MIN_FRAME: usize = 60;
const PHASES: [[u64; 2]; 2] = [[37, 101], [0, 0]];

/// The core offering a beat every cycle, the MAC always ready: the core
/// side never stalls (one beat per core cycle, the FIFO drains faster than
/// it fills), for minimum frames and for the longest frame the core builds.
#[test]
fn full_rate_min_and_max_frames() {
    for first in PHASES {
        for (n, len) in [(3000, MIN_FRAME), (80, TX_MAX_FRAME_BYTES)] {
            let mut rng = Rng(5 + len as u64);
            let mut tx = Tx::new(frames(&mut rng, n, |_| len), first);
            tx.run(&mut rng, |_, _| true, |_, _| true);
            let e = &tx.in_edges;
            let span = e.last().unwrap() - e[0] + 1;
            assert_eq!(e.len() as u64, span, "{len}: the core side took {} beats in {span} core cycles", e.len());
            assert_eq!(tx.not_ready_edges, 0, "{len}: tready low with frames to send");
            let (lo, hi) = (tx.latency.iter().min().unwrap(), tx.latency.iter().max().unwrap());
            eprintln!(
                "full rate, {len}-byte frames, phases {first:?}: {n} frames, {} beats in {span} core cycles, \
                 latency {lo}..={hi} MAC edges from the last beat in to the first beat out",
                e.len()
            );
        }
    }
}

/// A frame the core hands over alone leaves a fixed number of MAC edges
/// after its last beat went in: three for the synchronizer, one to load the
/// output register; the MAC takes the first beat at the fifth.
#[test]
fn latency_of_an_isolated_frame() {
    for first in PHASES {
        for len in [MIN_FRAME, TX_MAX_FRAME_BYTES] {
            let mut rng = Rng(8);
            let mut tx = Tx::new(frames(&mut rng, 60, |_| len), first);
            // a new frame only every 400 core cycles; each starts at another
            // phase of the MAC clock
            let mut last_start = 0u64;
            let mut beats_left = 0usize;
            let beats = len.div_ceil(64);
            tx.run(
                &mut rng,
                |_, c| {
                    if beats_left == 0 && c >= last_start + 401 {
                        last_start = c;
                        beats_left = beats;
                    }
                    if beats_left > 0 {
                        beats_left -= 1;
                        true
                    } else {
                        false
                    }
                },
                |_, _| true,
            );
            let (lo, hi) = (*tx.latency.iter().min().unwrap(), *tx.latency.iter().max().unwrap());
            eprintln!("{len}-byte frames, phases {first:?}: latency {lo}..={hi} MAC edges");
            assert_eq!((lo, hi), (5, 5), "{len}: latency {lo}..={hi} MAC edges");
        }
    }
}

/// Bursts of frames with random gaps between and inside them, frames of
/// every size up to the longest, the MAC stalling at random or not at all:
/// no gap inside a frame, all frames in order and exact. When the MAC is
/// slower than the core the FIFO fills and the core is held back, and
/// `stalled` shows, one MAC edge late, every edge a beat waited.
#[test]
fn bursts_with_gaps_never_leave_a_gap_at_the_mac() {
    type F = fn(&mut Rng, u64) -> bool;
    let cases: [(&str, F, F, bool); 4] = [
        ("random gaps 30%, MAC always ready", |r, _| r.chance(70), |_, _| true, false),
        ("bursts of 500 cycles, MAC always ready", |r, c| (c / 500) % 2 == 0 || r.chance(5), |_, _| true, false),
        ("random gaps 10%, MAC ready 60%", |r, _| r.chance(90), |r, _| r.chance(60), true),
        ("core every cycle, MAC stops 300 of every 1000 edges", |_, _| true, |_, c| c % 1000 >= 300, true),
    ];
    for (what, offer, ready, fills) in cases {
        let mut rng = Rng(21);
        let fr = frames(&mut rng, 700, |r| {
            if r.chance(40) {
                MIN_FRAME + (r.next() as usize % 8)
            } else {
                MIN_FRAME + (r.next() as usize % (TX_MAX_FRAME_BYTES - MIN_FRAME + 1))
            }
        });
        let mut tx = Tx::new(fr, PHASES[0]);
        tx.run(&mut rng, offer, ready);
        eprintln!("{what}: {} frames through, tready low at {} core edges", tx.delivered, tx.not_ready_edges);
        assert_eq!(tx.not_ready_edges > 0, fills, "{what}: tready low at {} edges", tx.not_ready_edges);
        // `stalled` (checked edge by edge in `run`) rose exactly where the MAC held a frame back
        assert_eq!(tx.stalled_edges > 0, fills, "{what}: stalled at {} MAC edges", tx.stalled_edges);
    }
}

/// The emitter's proof on real traffic: rust-hdl's simulation and the
/// Verilog agree at every output and every cycle while the core sends
/// frames up to the longest and the MAC stalls in stretches, so the FIFO
/// fills. Both clocks tick together here ([`rnic_sim::diff::Pair`] toggles
/// every clock port at once); the real ratio is the other tests' business.
#[test]
fn rust_hdl_and_verilog_agree_on_frames() {
    use rnic_sim::diff::Pair;
    use rnic_sim::rhdl::mac_tx_fifo::{set_input, Block};
    use rust_hdl::prelude::Block as _;
    let mut blk = Block::default();
    blk.connect_all();
    let mut pair = Pair::new(Dut::new(), blk, set_input).unwrap();
    let s = Stream::of(&pair, "s_axis");
    let m = Stream::of(&pair, "m_axis");
    let (reset, s_ready, m_ready) = (pair.port("reset"), pair.port("s_axis.tready"), pair.port("m_axis.tready"));
    let mut rng = Rng(6);
    pair.set_at(reset, 1);
    for _ in 0..RESET_CYCLES {
        pair.tick().unwrap();
    }
    pair.set_at(reset, 0);
    let fr = frames(&mut rng, 200, |r| MIN_FRAME + (r.next() as usize % (TX_MAX_FRAME_BYTES - MIN_FRAME + 1)));
    let (mut cur, mut beat, mut got, mut delivered, mut held) = (0, 0, vec![], 0, 0);
    for cycle in 0..1500 {
        let (f, user) = &fr[cur];
        s.drive(&mut pair, f, beat, *user);
        let r = (cycle / 250) % 2 == 0;
        pair.set_at(m_ready, r as u64);
        pair.eval();
        if let Some(e) = pair.mismatch() {
            panic!("{e}");
        }
        if r && m.valid(&pair) {
            let (bytes, last, _) = m.beat(&pair);
            got.extend_from_slice(&bytes);
            if last {
                let g: Vec<u8> = std::mem::take(&mut got);
                assert_eq!(seq_of(&g), delivered, "frames out of order");
                assert!(g == fr[delivered].0, "frame {delivered} differs");
                delivered += 1;
            }
        }
        let took = pair.bit_at(s_ready);
        held += usize::from(!took);
        pair.tick().unwrap_or_else(|e| panic!("{e}"));
        if took {
            beat += 1;
            if 64 * beat >= f.len() {
                cur += 1;
                beat = 0;
            }
        }
    }
    eprintln!(
        "lock-step differential run: {} cycles compared, {delivered} frames out, core held back {held} cycles",
        pair.compared()
    );
    assert!(
        delivered > 10 && held > 100,
        "{delivered} frames out, {held} cycles held back: the run did not reach both"
    );
}

/// With the MAC stopped, the core fills every one of the FIFO's beats (and
/// the output register) and then is held back; the longest frames fit at
/// least twice over.
#[test]
fn fills_to_the_last_beat() {
    let mut rng = Rng(9);
    let fr = frames(&mut rng, 20, |_| TX_MAX_FRAME_BYTES);
    let mut tx = Tx::new(fr, PHASES[0]);
    let s_ready = tx.s.ready.unwrap();
    let mut accepted = 0;
    let (mut cur, mut beat) = (0, 0);
    for _ in 0..4 * TX_DEPTH {
        let e = tx.tc.next_edges();
        if e[CORE] {
            let (f, user) = &tx.frames[cur];
            tx.s.drive(&mut tx.tc.dut, f, beat, *user);
            tx.tc.dut.eval();
            if tx.tc.dut.bit_at(s_ready) {
                accepted += 1;
                beat += 1;
                if 64 * beat >= f.len() {
                    cur += 1;
                    beat = 0;
                }
            }
        }
        tx.tc.step();
    }
    eprintln!("MAC stopped: the FIFO took {accepted} beats ({cur} whole frames of {TX_MAX_FRAME_BEATS} beats)");
    assert_eq!(accepted, TX_DEPTH + 1, "beats taken with the MAC stopped");
    assert!(cur >= 2, "only {cur} longest frames fit");
}
