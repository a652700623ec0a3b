//! `mac_rx_fifo` under Verilator with its two clocks at their real ratio
//! (322.265625 MHz : 250 MHz = 165 : 128, exact): frames from a MAC that
//! cannot be stalled, at 100 Gb/s line rate (or at one beat every MAC cycle,
//! faster than the core can take them), into a core that stalls at random
//! or for long stretches. Every frame delivered must be byte-exact, whole
//! and in order; every frame missing must be counted in `drops` (full) or
//! `not_mine` (the address filter: another station's unicast address), and
//! delivered + dropped + refused == sent. At line rate with a core that
//! keeps up, nothing is dropped.

#[path = "mac/common.rs"]
mod common;

use common::*;
use rnic_hw::mac::{JUMBO_FRAME_BYTES, RESET_CYCLES, RX_DEPTH};
use rnic_sim::axis::Rng;
use rnic_sim::models::mac_rx_fifo::Dut;
use rnic_sim::{Model, TwoClocks};

#[derive(Clone, Copy, PartialEq)]
enum Pace {
    /// Beats arrive as the wire delivers their bytes at 100 Gb/s.
    Line,
    /// A beat every MAC cycle (322 M beats/s, more than the core's 250 M).
    EveryCycle,
}

struct Rx {
    tc: TwoClocks<Dut>,
    s: Stream,
    m: Stream,
    drops: usize,
    not_mine: usize,
    frames: Vec<(Vec<u8>, bool)>,
    pace: Pace,
    // the MAC
    cur: usize,
    beat: usize,
    presenting: bool,
    t0: u64,
    /// Bytes on the wire before the current frame (with each frame's overhead).
    wire_bytes: u64,
    /// Idle bytes on the wire after each frame, beyond the inter-frame gap.
    gap: u64,
    /// Per frame: core edges counted when the MAC handed over its last beat.
    commit_core: Vec<u64>,
    // the core
    ready: bool,
    got: Vec<u8>,
    first_edge: u64,
    delivered: Vec<usize>,
    /// Per delivered frame: core edges from its last beat at the MAC to its
    /// first beat taken by the core.
    latency: Vec<u64>,
    /// Core edge of every beat taken.
    out_edges: Vec<u64>,
    /// Core edge at which to assert `reset` under traffic, and the frame
    /// the MAC was on when it was asserted and when it was released.
    reset_at: Option<u64>,
    reset_frames: (usize, usize),
}

impl Rx {
    fn new(frames: Vec<(Vec<u8>, bool)>, pace: Pace, first: [u64; 2]) -> Self {
        let dut = Dut::new();
        let s = Stream::of(&dut, "s_axis");
        let m = Stream::of(&dut, "m_axis");
        let drops = dut.port("drops");
        let not_mine = dut.port("not_mine");
        let mut dut = dut;
        dut.set("port_mac", mac_strap(PORT_MAC));
        let mut tc = TwoClocks::new(dut, CLOCKS, PERIODS, first);
        tc.reset("reset", CORE, RESET_CYCLES);
        // the MAC domain leaves reset two MAC edges after the core
        for _ in 0..4 {
            tc.step();
        }
        let n = frames.len();
        let t0 = tc.now();
        let mut rx = Rx {
            tc,
            s,
            m,
            drops,
            not_mine,
            frames,
            pace,
            cur: 0,
            beat: 0,
            presenting: false,
            t0,
            wire_bytes: 0,
            gap: 0,
            commit_core: vec![0; n],
            ready: false,
            got: vec![],
            first_edge: 0,
            delivered: vec![],
            latency: vec![],
            out_edges: vec![],
            reset_at: None,
            reset_frames: (0, 0),
        };
        rx.offer();
        rx
    }

    /// Set the MAC's beat for its next edge.
    fn offer(&mut self) {
        self.presenting = false;
        if let Some((f, user)) = self.frames.get(self.cur) {
            let end = (64 * (self.beat + 1)).min(f.len()) as u64;
            let due = self.t0 + wire_units(self.wire_bytes + end);
            if self.pace == Pace::EveryCycle || due <= self.tc.next_time(MAC) {
                self.s.drive(&mut self.tc.dut, f, self.beat, *user);
                self.presenting = true;
            }
        }
        if !self.presenting {
            self.s.idle(&mut self.tc.dut);
        }
    }

    /// Run until the MAC has sent everything and the core has seen nothing
    /// for a while; `ready(rng, core_edge)` is the core's `tready`. Checks
    /// delivered + dropped == sent.
    fn run(&mut self, rng: &mut Rng, mut ready: impl FnMut(&mut Rng, u64) -> bool) {
        let mut quiet = 0;
        while self.cur < self.frames.len() || quiet < 4 * RX_DEPTH {
            let e = self.tc.next_edges();
            self.tc.dut.eval();
            if e[CORE] {
                // quiet: edges where the core was ready and nothing came
                if !self.m.valid(&self.tc.dut) {
                    quiet += usize::from(self.ready);
                } else {
                    quiet = 0;
                    if self.ready {
                        self.take();
                    }
                }
            }
            let mac_took = e[MAC] && self.presenting;
            self.tc.step();
            if mac_took {
                let len = self.frames[self.cur].0.len();
                self.beat += 1;
                if 64 * self.beat >= len {
                    self.commit_core[self.cur] = self.tc.cycles(CORE);
                    self.wire_bytes += len as u64 + WIRE_OVERHEAD + self.gap;
                    self.cur += 1;
                    self.beat = 0;
                }
            }
            if e[MAC] {
                self.offer();
            }
            if let (true, Some(at)) = (e[CORE], self.reset_at) {
                let c = self.tc.cycles(CORE);
                let r = self.tc.dut.port("reset");
                if c == at {
                    self.tc.dut.set_at(r, 1);
                    self.reset_frames.0 = self.cur;
                } else if c == at + RESET_CYCLES {
                    self.tc.dut.set_at(r, 0);
                    self.reset_frames.1 = self.cur;
                    // what the core had of a frame is gone with the reset
                    self.got.clear();
                    self.delivered.clear();
                }
            }
            if e[CORE] {
                self.ready = ready(rng, self.tc.cycles(CORE));
                self.tc.dut.set_words(self.m.ready.unwrap(), &[self.ready as u32]);
            }
            assert!(self.tc.cycles(CORE) < 50_000_000, "the run does not end");
        }
        let drops = self.drops();
        let sent = self.frames.len() as u64;
        let foreign = self.frames.iter().filter(|(f, _)| !is_mine(f)).count() as u64;
        assert!(self.got.is_empty(), "a frame was left unfinished at the output");
        if self.reset_at.is_some() {
            // frames the MAC began after the reset are all delivered or
            // counted; those under way during it may be lost (the MAC side
            // leaves reset two MAC edges after the core side: two more
            // one-beat frames)
            let (k0, k1) = self.reset_frames;
            assert_eq!(foreign, 0, "the reset runs count frames to this port only");
            let n = self.delivered.len() as u64 + drops;
            let safe = k1 + 3;
            let late = self.delivered.iter().filter(|&&s| s >= safe).count() as u64;
            assert!(late + drops >= sent - safe as u64, "frames after the reset lost: {late} + {drops}");
            assert!(n <= sent - k0 as u64, "more frames out than were sent after the reset began: {n}");
            return;
        }
        let refused = self.not_mine();
        assert_eq!(refused, foreign, "frames refused by the address filter");
        assert_eq!(
            self.delivered.len() as u64 + drops + refused,
            sent,
            "delivered {} + dropped {drops} + refused {refused} != sent {sent}",
            self.delivered.len()
        );
    }

    /// Take the beat on `m_axis` at the coming core edge.
    fn take(&mut self) {
        let edge = self.tc.cycles(CORE) + 1;
        let (bytes, last, user) = self.m.beat(&self.tc.dut);
        if self.got.is_empty() {
            self.first_edge = edge;
        }
        self.got.extend_from_slice(&bytes);
        self.out_edges.push(edge);
        assert!(!user || last, "tuser on a beat before the last");
        if !last {
            return;
        }
        let got = std::mem::take(&mut self.got);
        assert!(got.len() >= 4, "a frame of {} bytes", got.len());
        let seq = seq_of(&got);
        assert!(seq < self.cur, "frame number {seq} delivered before the MAC finished it (or never sent)");
        if let Some(&prev) = self.delivered.last() {
            assert!(seq > prev, "frame {seq} delivered after frame {prev}");
        }
        let (want, want_user) = &self.frames[seq];
        assert!(is_mine(want), "frame {seq}, to {:02x?}, passed the address filter", &want[..6]);
        assert!(&got == want, "frame {seq} differs ({} bytes delivered, {} sent)", got.len(), want.len());
        assert_eq!(user, *want_user, "frame {seq}: tuser");
        self.latency.push(self.first_edge - self.commit_core[seq]);
        self.delivered.push(seq);
    }

    fn drops(&self) -> u64 {
        self.tc.dut.get_at(self.drops)
    }

    fn not_mine(&self) -> u64 {
        self.tc.dut.get_at(self.not_mine)
    }
}

/// Does the address filter let the frame through: a group address (I/G bit
/// set: broadcast, multicast) or the port's own.
fn is_mine(f: &[u8]) -> bool {
    f[0] & 1 == 1 || f[..6] == PORT_MAC
}

/// `n` frames with lengths from `len`, one in twenty with an error (`tuser`).
fn frames(rng: &mut Rng, n: usize, len: impl Fn(&mut Rng) -> usize) -> Vec<(Vec<u8>, bool)> {
    (0..n)
        .map(|i| {
            let l = len(rng);
            (frame(rng, i, l), rng.chance(5))
        })
        .collect()
}

const MIN_FRAME: usize = 60;
const JUMBO_FRAME: usize = JUMBO_FRAME_BYTES;
/// Phases of the two clocks' first edges: apart, and together (every 128th
/// core edge then coincides with a MAC edge).
const PHASES: [[u64; 2]; 2] = [[37, 101], [0, 0]];

/// At line rate with minimum frames (one beat each, 148.8 M frames/s) and
/// with jumbo frames, a core that is always ready gets every frame, as fast
/// as the wire brings them.
#[test]
fn line_rate_min_and_jumbo_frames_no_drops() {
    for first in PHASES {
        for (n, len) in [(4000, MIN_FRAME), (60, JUMBO_FRAME)] {
            let mut rng = Rng(len as u64 + first[0]);
            let mut rx = Rx::new(frames(&mut rng, n, |_| len), Pace::Line, first);
            rx.run(&mut rng, |_, _| true);
            assert_eq!(rx.drops(), 0, "{len}-byte frames at line rate: dropped");
            assert_eq!(rx.delivered.len(), n);
            // every frame reaches the core within the same few cycles of
            // the MAC handing it over: the FIFO does not fill up
            let worst = *rx.latency.iter().max().unwrap();
            assert!(worst <= 6, "{len}: a frame waited {worst} core cycles at line rate");
            eprintln!("line rate, {len}-byte frames, phases {first:?}: {n} frames, 0 drops, latency at most {worst} core cycles");
        }
    }
}

/// An isolated one-beat frame reaches the core's output a fixed number of
/// core edges after the MAC edge that committed it: three for the
/// synchronizer, one to load the output register. The MAC hands its last
/// beat over one MAC edge before that (the address filter's register: 0.78
/// of a core period), so the core takes the beat at the fifth or the sixth
/// core edge after the MAC's, by the clocks' phase; both are seen.
#[test]
fn latency_of_an_isolated_frame() {
    for first in PHASES {
        let mut rng = Rng(3);
        let fr = frames(&mut rng, 200, |_| MIN_FRAME);
        let mut rx = Rx::new(fr, Pace::Line, first);
        // 1001 idle bytes after each frame: the frames arrive alone, each at
        // another phase of the core clock
        rx.gap = 1001;
        rx.run(&mut rng, |_, _| true);
        assert_eq!(rx.drops(), 0);
        let (lo, hi) = (*rx.latency.iter().min().unwrap(), *rx.latency.iter().max().unwrap());
        eprintln!(
            "phases {first:?}: latency {lo}..={hi} core edges from the MAC's last beat to the core taking the first"
        );
        assert_eq!((lo, hi), (5, 6), "latency {lo}..={hi} core edges");
    }
}

/// A beat every MAC cycle is more than the core can take: frames are
/// dropped whole, the rest arrive intact, and while frames wait the core
/// side moves one beat every core cycle.
#[test]
fn overload_drops_whole_frames_and_the_core_side_runs_at_full_rate() {
    for (len_max, n) in [(MIN_FRAME, 6000), (JUMBO_FRAME, 120), (2000, 600)] {
        let mut rng = Rng(11 + len_max as u64);
        let fr = frames(&mut rng, n, |r| MIN_FRAME + (r.next() as usize % (len_max - MIN_FRAME + 1)));
        let mut rx = Rx::new(fr, Pace::EveryCycle, PHASES[0]);
        rx.run(&mut rng, |_, _| true);
        let drops = rx.drops();
        assert!(drops > 0, "{len_max}: nothing dropped at 322 M beats/s");
        // the output ran at one beat per core edge from first to last beat
        let e = &rx.out_edges;
        let span = e.last().unwrap() - e[0] + 1;
        assert!(
            e.len() as u64 * 100 >= span * 99,
            "{len_max}: {} beats in {span} core cycles while backlogged",
            e.len()
        );
        eprintln!(
            "every MAC cycle, frames up to {len_max} bytes: {} delivered, {drops} dropped, {} beats in {span} core cycles",
            rx.delivered.len(),
            e.len()
        );
    }
}

/// A core that does not take anything while one-beat frames arrive every
/// MAC cycle: the FIFO stores exactly as many frames as it has beats, plus
/// the one in the output register, and drops every one after.
#[test]
fn fills_to_the_last_beat() {
    let mut rng = Rng(10);
    let n = 3 * RX_DEPTH;
    let mut rx = Rx::new(frames(&mut rng, n, |_| MIN_FRAME), Pace::EveryCycle, PHASES[0]);
    let wake = 4 * n as u64;
    rx.run(&mut rng, |_, c| c > wake);
    eprintln!("core stalled: {} frames kept, {} dropped", rx.delivered.len(), rx.drops());
    assert_eq!(rx.delivered, (0..=RX_DEPTH).collect::<Vec<_>>(), "the frames kept");
}

/// Readdress frame `f` as `kind` of destination: 0 the port's own, 1
/// broadcast, 2 an IPv4 multicast group, 3 another station's random unicast
/// address, 4 and 5 the port's own but for its last or its first byte (one
/// bit, the I/G bit left clear). Kinds 3 to 5 are refused.
fn readdress(f: &mut [u8], kind: u64, rng: &mut Rng) {
    let mut dst = PORT_MAC;
    match kind {
        0 => {}
        1 => dst = [0xff; 6],
        2 => dst = [0x01, 0x00, 0x5e, 0x00, 0x00, rng.next() as u8],
        3 => {
            dst = [0; 6].map(|_| rng.next() as u8);
            dst[0] &= !1;
            if dst == PORT_MAC {
                dst[5] ^= 0x80;
            }
        }
        4 => dst[5] ^= 0x01,
        _ => dst[0] ^= 0x04,
    }
    f[..6].copy_from_slice(&dst);
}

/// The address filter: frames to other stations' unicast addresses (random,
/// or one bit away from the port's in its first or last byte) are refused
/// whole and counted in `not_mine`; the port's own, broadcast and multicast
/// frames all arrive, exact and in order; frames of every size, at line
/// rate and at a beat every MAC cycle. A flood of other stations' frames
/// at a beat every MAC cycle (more than the core could take) costs the
/// port none of its own: the refused frames never take FIFO space.
#[test]
fn the_address_filter_refuses_other_stations_unicast_frames_whole() {
    for (pace, foreign_pct, n) in [(Pace::Line, 50, 1200), (Pace::EveryCycle, 50, 1200), (Pace::EveryCycle, 90, 3000)] {
        let mut rng = Rng(0xF17 + foreign_pct);
        let mut fr = frames(&mut rng, n, |r| {
            if r.chance(80) {
                MIN_FRAME + (r.next() as usize % 80)
            } else {
                MIN_FRAME + (r.next() as usize % (JUMBO_FRAME - MIN_FRAME + 1))
            }
        });
        for (f, _) in fr.iter_mut() {
            let kind = if rng.chance(foreign_pct) { 3 + rng.next() % 3 } else { rng.next() % 3 };
            readdress(f, kind, &mut rng);
        }
        let mine: Vec<usize> = (0..n).filter(|&i| is_mine(&fr[i].0)).collect();
        let foreign = (n - mine.len()) as u64;
        let mut rx = Rx::new(fr, pace, PHASES[0]);
        rx.run(&mut rng, |_, _| true);
        eprintln!(
            "{foreign_pct}% foreign, {}: {} delivered, {} refused, {} dropped",
            if pace == Pace::Line { "line rate" } else { "every MAC cycle" },
            rx.delivered.len(),
            rx.not_mine(),
            rx.drops()
        );
        assert!(foreign > n as u64 / 3 && mine.len() > n / 20, "the mix has both kinds");
        assert_eq!(rx.not_mine(), foreign, "refused");
        if foreign_pct == 90 {
            assert_eq!(rx.drops(), 0, "a flood of frames to other stations dropped some of the port's");
            assert_eq!(rx.delivered, mine, "the port's frames, all of them, in order");
        } else if pace == Pace::Line {
            assert_eq!((rx.drops(), &rx.delivered), (0, &mine), "at line rate every frame of the port's arrives");
        }
    }
}

/// A core that stalls at random, or stops for long stretches, at line rate
/// and at a beat every MAC cycle, frames of every size: what arrives is
/// whole and exact, what does not is counted, and the FIFO asked for a
/// pause (`pauses`) before it dropped.
#[test]
fn core_stalls_drop_whole_frames_counted() {
    type Ready = fn(&mut Rng, u64) -> bool;
    let cases: [(&str, Ready); 4] = [
        ("random tready 50%", |r, _| r.chance(50)),
        ("random tready 75%", |r, _| r.chance(75)),
        ("stalled 6000 of every 8000 core cycles", |_, c| c % 8000 >= 6000),
        ("bursts of stalls", |r, c| (c / 64) % 3 != 0 || r.chance(30)),
    ];
    for (what, ready) in cases {
        for pace in [Pace::Line, Pace::EveryCycle] {
            let mut rng = Rng(99);
            let fr = frames(&mut rng, 1500, |r| {
                if r.chance(50) {
                    MIN_FRAME + (r.next() as usize % 8)
                } else {
                    MIN_FRAME + (r.next() as usize % (JUMBO_FRAME - MIN_FRAME + 1))
                }
            });
            let mut rx = Rx::new(fr, pace, PHASES[0]);
            rx.run(&mut rng, ready);
            let drops = rx.drops();
            let p = if pace == Pace::Line { "line rate" } else { "every MAC cycle" };
            eprintln!("{what}, {p}: {} delivered, {drops} dropped", rx.delivered.len());
            assert!(drops > 0, "{what}, {p}: nothing dropped");
            // a FIFO that overflowed went past half full first: it asked for
            // a pause (here the MAC does not honour it)
            assert!(rx.tc.dut.get("pauses") > 0, "{what}, {p}: no pause request before the drops");
            assert!(!rx.delivered.is_empty(), "{what}, {p}: nothing delivered");
        }
    }
}

/// `reset` in the middle of traffic (the MAC does not stop for it): after
/// it, every frame delivered is whole and exact, the first one included,
/// and every frame the MAC began after it is delivered or counted.
#[test]
fn reset_under_traffic_delivers_no_partial_frame() {
    for at in [300, 301, 302, 303, 700] {
        for pace in [Pace::Line, Pace::EveryCycle] {
            let mut rng = Rng(at);
            let fr = frames(&mut rng, 400, |r| MIN_FRAME + (r.next() as usize % 400));
            let mut rx = Rx::new(fr, pace, PHASES[0]);
            rx.reset_at = Some(at);
            rx.run(&mut rng, |r, _| r.chance(80));
            let (k0, k1) = rx.reset_frames;
            assert!(k0 < 400 && rx.delivered[0] >= k0, "reset at {at}");
            eprintln!(
                "reset at core edge {at} (MAC on frame {k0} .. {k1}): first frame after it {}, {} delivered, {} dropped",
                rx.delivered[0],
                rx.delivered.len(),
                rx.drops()
            );
        }
    }
}

/// The emitter's proof on real traffic: rust-hdl's simulation and the
/// Verilog agree at every output and every cycle while frames of one to
/// three beats arrive every cycle, some are dropped and the rest delivered.
/// Both clocks tick together here ([`rnic_sim::diff::Pair`] toggles every
/// clock port at once); the real ratio is the other tests' business.
#[test]
fn rust_hdl_and_verilog_agree_on_frames() {
    use rnic_sim::diff::Pair;
    use rnic_sim::rhdl::mac_rx_fifo::{set_input, Block};
    use rust_hdl::prelude::Block as _;
    let mut blk = Block::default();
    blk.connect_all();
    let mut pair = Pair::new(Dut::new(), blk, set_input).unwrap();
    let s = Stream::of(&pair, "s_axis");
    let m = Stream::of(&pair, "m_axis");
    let (reset, ready, drops) = (pair.port("reset"), pair.port("m_axis.tready"), pair.port("drops"));
    let not_mine = pair.port("not_mine");
    let port_mac = pair.port("port_mac");
    pair.set_at(port_mac, mac_strap(PORT_MAC));
    let mut rng = Rng(5);
    pair.set_at(reset, 1);
    for _ in 0..RESET_CYCLES {
        pair.tick().unwrap();
    }
    pair.set_at(reset, 0);
    let mut fr = frames(&mut rng, 2000, |r| MIN_FRAME + (r.next() as usize % 150));
    // one frame in eight to another station (refused)
    for (f, _) in fr.iter_mut() {
        let kind = if rng.chance(12) { 3 } else { 0 };
        readdress(f, kind, &mut rng);
    }
    let (mut cur, mut beat, mut got, mut delivered) = (0, 0, vec![], 0);
    for cycle in 0..3000 {
        let (f, user) = &fr[cur];
        s.drive(&mut pair, f, beat, *user);
        // the core stalls in long stretches, so the FIFO fills and drops
        let r = (cycle / 900) % 2 == 0 || rng.chance(20);
        pair.set_at(ready, r as u64);
        pair.eval();
        if let Some(e) = pair.mismatch() {
            panic!("{e}");
        }
        if r && m.valid(&pair) {
            let (bytes, last, _) = m.beat(&pair);
            got.extend_from_slice(&bytes);
            if last {
                let g: Vec<u8> = std::mem::take(&mut got);
                assert!(seq_of(&g) < fr.len() && g == fr[seq_of(&g)].0, "frame {} differs", seq_of(&g));
                assert!(is_mine(&g), "frame {} to another station delivered", seq_of(&g));
                delivered += 1;
            }
        }
        pair.tick().unwrap_or_else(|e| panic!("{e}"));
        beat += 1;
        if 64 * beat >= f.len() {
            cur += 1;
            beat = 0;
        }
    }
    let (dropped, refused) = (pair.get_at(drops), pair.get_at(not_mine));
    eprintln!(
        "lock-step differential run: {} cycles compared, {delivered} frames delivered, {dropped} dropped, {refused} refused",
        pair.compared()
    );
    assert!(
        delivered > 100 && dropped > 30 && refused > 100,
        "{delivered} delivered, {dropped} dropped, {refused} refused: the run did not reach all three"
    );
}

/// `Counter64` (the drop counter's 64 bits, in 16-bit pieces with
/// registered carries): the value shown is always one the sum really had
/// within the last four cycles, never goes backwards, and is exact once the
/// steps stop. 300 000 cycles of steps up to 15 carry out of the low piece
/// about 34 times (the higher pieces' carries are the same logic).
#[test]
fn counter64_shows_a_true_recent_sum() {
    use rnic_sim::models::counter64;
    let mut sim = rnic_sim::Clocked::new(counter64::Dut::new());
    sim.reset(2);
    let (step, count) = (sim.dut.port("step"), sim.dut.port("count"));
    let mut rng = Rng(64);
    let mut sums = std::collections::VecDeque::from([0u64; 5]);
    let mut shown = 0;
    for i in 0..300_000u64 {
        let s = if i > 299_990 { 0 } else { rng.next() % 16 };
        sim.dut.set_at(step, s);
        sim.tick();
        let sum = sums.back().unwrap() + s;
        sums.push_back(sum);
        sums.pop_front();
        let c = sim.dut.get_at(count);
        assert!(c >= shown, "cycle {i}: count went back from {shown} to {c}");
        assert!(sums.contains(&c), "cycle {i}: count {c} is none of the last sums {sums:?}");
        shown = c;
    }
    assert_eq!(shown, *sums.back().unwrap());
    assert!(shown > 1 << 20, "the low piece carried {} times", shown >> 16);
}
