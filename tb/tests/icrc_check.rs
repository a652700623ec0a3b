//! The RTL ICRC checker against the protocol model, on real Linux rxe
//! traffic and on variants of it: single-byte corruptions, rewritten
//! variant fields (which the ICRC must ignore), VLAN tags, IPv6, Ethernet
//! padding, truncation. Frames go back to back at one beat per cycle.

use rnic_proto::{decode_frame, encode_frame, icrc_verify, IpHeader, Ipv6Header, VlanTag};
use rnic_sim::axis::Rng;
use rnic_sim::frames::{drive_beat, frame_beats, idle};
use rnic_sim::models::icrc_check::Dut;
use rnic_sim::models::icrc_gen::Dut as GenDut;
use rnic_sim::{Clocked, Model};
use rnic_tb::capture;

/// The checker's latency (`IcrcCheck::LATENCY`, 7 cycles, in docs/wire.md):
/// `verdict_valid` is high exactly this many cycles after the cycle in which
/// a frame's last beat was accepted (`tvalid & tready`).
const VERDICT_LATENCY: u64 = rnic_hw::wire::IcrcCheck::LATENCY;
const _: () = assert!(VERDICT_LATENCY == 7, "docs/wire.md states 7 cycles");

/// What came out of the checker, with the cycle of every event.
struct Run {
    /// (icrc_ok, short) per verdict, in the order they came out.
    verdicts: Vec<(bool, bool)>,
    /// Cycle in which each verdict was valid.
    verdict_cycles: Vec<u64>,
    /// Cycle in which each frame's last beat was accepted.
    last_in: Vec<u64>,
    /// Beats offered, and cycles in which one was offered but refused.
    offered: u64,
    refused: u64,
}

/// Run frames through the checker, `gap(i)` idle cycles before frame `i`.
/// Every cycle: inputs set, outputs sampled, then the clock edge, so an
/// input beat and an output seen in the same loop iteration share a cycle.
fn run_gaps(frames: &[Vec<u8>], mut gap: impl FnMut(usize) -> u64) -> Run {
    let mut sim = Clocked::new(Dut::new());
    sim.reset(2);
    let tready = sim.dut.port("s_axis.tready");
    let mut r = Run { verdicts: vec![], verdict_cycles: vec![], last_in: vec![], offered: 0, refused: 0 };
    let sample = |sim: &mut Clocked<Dut>, r: &mut Run| {
        sim.settle();
        if sim.dut.verdict_valid() == 1 {
            r.verdicts.push((sim.dut.verdict_icrc_ok() == 1, sim.dut.verdict_short() == 1));
            r.verdict_cycles.push(sim.cycle());
        }
    };
    for (i, f) in frames.iter().enumerate() {
        idle(&mut sim.dut, "s_axis");
        for _ in 0..gap(i) {
            sample(&mut sim, &mut r);
            sim.tick();
        }
        let beats = frame_beats(f);
        let mut k = 0;
        while k < beats.len() {
            drive_beat(&mut sim.dut, "s_axis", &beats[k]);
            sample(&mut sim, &mut r);
            r.offered += 1;
            if sim.dut.get_at(tready) == 1 {
                if beats[k].last {
                    r.last_in.push(sim.cycle());
                }
                k += 1;
            } else {
                r.refused += 1;
                assert!(r.refused < 100, "the checker stopped taking beats");
            }
            sim.tick();
        }
    }
    idle(&mut sim.dut, "s_axis");
    for _ in 0..2 * VERDICT_LATENCY {
        sample(&mut sim, &mut r);
        sim.tick();
    }
    r
}

/// Run frames back to back, checking the checker's own timing: it takes a
/// beat every cycle, and every frame's verdict comes out exactly
/// [`VERDICT_LATENCY`] cycles after its last beat, in frame order.
fn run(frames: &[Vec<u8>]) -> Vec<(bool, bool)> {
    let r = run_gaps(frames, |_| 0);
    check_timing(&r, frames.len());
    r.verdicts
}

fn check_timing(r: &Run, frames: usize) {
    assert_eq!(r.refused, 0, "s_axis.tready is always 1");
    assert_eq!(r.last_in.len(), frames);
    assert_eq!(r.verdicts.len(), frames, "one verdict per frame, none extra");
    for (i, (v, l)) in r.verdict_cycles.iter().zip(&r.last_in).enumerate() {
        assert_eq!(v - l, VERDICT_LATENCY, "frame {i}: verdict {} cycles after its last beat", v - l);
    }
}

fn model_verdict(f: &[u8]) -> bool {
    icrc_verify(f).unwrap_or(false)
}

#[test]
fn rxe_captures_match_the_model() {
    for name in ["rxe_rc_ud_perftest.pcap", "rxe_with_3_bad_icrc.pcap"] {
        let frames = capture(name);
        let v = run(&frames);
        assert_eq!(v.len(), frames.len(), "{name}: one verdict per frame");
        let mut bad = vec![];
        for (i, (f, (ok, _))) in frames.iter().zip(&v).enumerate() {
            assert_eq!(*ok, model_verdict(f), "{name} frame {}: RTL {ok}", i + 1);
            if !ok {
                bad.push(i + 1);
            }
        }
        eprintln!("{name}: {} frames, ICRC failures at {bad:?}", frames.len());
        if name == "rxe_with_3_bad_icrc.pcap" {
            assert_eq!(bad, [5, 50, 120]);
        } else {
            assert!(bad.is_empty());
        }
    }
}

/// Variants of real frames: whatever the model says, the RTL must say.
#[test]
fn mutated_frames_match_the_model() {
    let base = capture("rxe_rc_ud_perftest.pcap");
    let mut rng = Rng(0x1cc);
    let mut frames = vec![];
    for f in base.iter().take(300) {
        let pkt = decode_frame(f).unwrap();
        frames.push(f.clone());
        // one corrupted byte anywhere
        let mut c = f.clone();
        let i = rng.next() as usize % c.len();
        c[i] ^= 1 << (rng.next() % 8);
        frames.push(c);
        // VLAN-tagged copy, and an IPv6 copy
        let mut v = pkt.clone();
        v.eth.vlan = Some(VlanTag { pcp: 3, dei: false, vid: (rng.next() & 0xfff) as u16 });
        frames.push(encode_frame(&v).unwrap());
        let mut six = pkt.clone();
        six.ip = IpHeader::V6(Ipv6Header {
            dscp: 26,
            ecn: rnic_proto::Ecn::Ect0,
            flow_label: (rng.next() & 0xfffff) as u32,
            payload_length: 0,
            next_header: 17,
            hop_limit: 64,
            src: [0xfe80, 0, 0, 0, 1, 2, 3, 4].into(),
            dst: [0xfe80, 0, 0, 0, 5, 6, 7, 8].into(),
        });
        if rng.chance(50) {
            six.eth.vlan = Some(VlanTag { pcp: 5, dei: true, vid: 7 });
        }
        let six = encode_frame(&six).unwrap();
        // IPv6 fields outside the ICRC rewritten: traffic class, flow label,
        // hop limit, and the UDP checksum
        let mut m6 = six.clone();
        let l2 = if m6[12..14] == [0x81, 0x00] { 18 } else { 14 };
        m6[l2] ^= 0x0f;
        m6[l2 + 1] ^= 0xff;
        m6[l2 + 3] ^= 0x5a;
        m6[l2 + 7] = m6[l2 + 7].wrapping_sub(9);
        m6[l2 + 46] ^= 0xa5;
        assert!(icrc_verify(&m6).unwrap(), "the model ignores those fields");
        frames.push(six);
        frames.push(m6);
        // fields outside the ICRC rewritten: TTL/TOS (IPv4 bytes 15, 22), UDP checksum, FECN/BECN
        let mut m = f.clone();
        m[15] ^= 0xff;
        m[22] = m[22].wrapping_sub(1);
        m[40] ^= 0x5a;
        m[46] |= 0xc0;
        frames.push(m);
        // Ethernet padding after the IP packet, and a truncated frame
        let mut p = f.clone();
        p.extend(std::iter::repeat_n(0, 1 + rng.next() as usize % 70));
        frames.push(p);
        let mut t = f.clone();
        t.truncate(t.len() - 1 - rng.next() as usize % 4);
        frames.push(t);
    }
    let v = run(&frames);
    assert_eq!(v.len(), frames.len());
    let mut disagree = vec![];
    for (i, (f, (ok, _))) in frames.iter().zip(&v).enumerate() {
        if *ok != model_verdict(f) {
            disagree.push(i);
        }
    }
    assert!(disagree.is_empty(), "RTL and model disagree on frames {disagree:?}");
    // both verdicts must be well represented, or the comparison proves little
    let good = v.iter().filter(|(ok, _)| *ok).count();
    let bad = v.len() - good;
    eprintln!("{good} frames pass the ICRC, {bad} fail");
    assert!(good >= 1200 && bad >= 500, "good {good}, bad {bad}");
    let short = frames.iter().zip(&v).filter(|(_, (_, s))| *s).count();
    assert!(short >= 300, "truncated frames are reported short ({short})");
}

/// Throughput and latency from the checker's outputs: one-beat frames back
/// to back give one verdict every cycle; multi-beat frames, back to back or
/// with idle cycles between them, give each verdict exactly
/// [`VERDICT_LATENCY`] cycles after the frame's last beat.
#[test]
fn one_verdict_per_cycle_at_a_fixed_latency() {
    let base = capture("rxe_rc_ud_perftest.pcap");
    // the 62-byte ACKs are one beat each
    let acks: Vec<Vec<u8>> = base.iter().filter(|f| f.len() <= 64).take(200).cloned().collect();
    assert_eq!(acks.len(), 200, "the capture has 200 one-beat frames");
    let r = run_gaps(&acks, |_| 0);
    check_timing(&r, acks.len());
    let first = r.verdict_cycles[0];
    assert_eq!(r.verdict_cycles, (first..first + 200).collect::<Vec<u64>>(), "200 verdicts in 200 consecutive cycles");
    assert!(r.verdicts.iter().all(|(ok, short)| *ok && !*short));

    // every frame of the capture, with 0..3 idle cycles between frames
    let mut rng = Rng(0x1a7);
    let gaps: Vec<u64> = (0..base.len()).map(|_| rng.next() % 4).collect();
    let r = run_gaps(&base, |i| gaps[i]);
    check_timing(&r, base.len());
    let beats: u64 = base.iter().map(|f| f.len().div_ceil(64) as u64).sum();
    assert_eq!(r.offered, beats, "every beat taken the cycle it was offered");
    eprintln!(
        "{} frames ({beats} beats): every verdict {VERDICT_LATENCY} cycles after its frame's last beat; 200 one-beat frames: 200 verdicts in 200 cycles",
        base.len()
    );
}

/// `IcrcGen` on real frames with their ICRC bytes zeroed gives back the
/// ICRC they carried wherever the packet ends in its last beat (the
/// capture's frames and VLAN copies of them grown by 0..15 words), back to
/// back, each exactly `IcrcGen::LATENCY` cycles after the frame's last beat;
/// a packet that does not end 2 bytes into a word is flagged.
#[test]
fn icrc_gen_restores_every_icrc() {
    const GEN_LATENCY: u64 = rnic_hw::wire::IcrcGen::LATENCY;
    let base = capture("rxe_rc_ud_perftest.pcap");
    let mut rng = Rng(0x9e7);
    let mut frames = vec![];
    for f in base.iter().take(200) {
        frames.push(f.clone());
        let mut v = decode_frame(f).unwrap();
        v.eth.vlan = Some(VlanTag { pcp: 1, dei: false, vid: (rng.next() & 0xfff) as u16 });
        // 0..15 words more before the ICRC move its end through every word
        frames.push(stretch(&encode_frame(&v).unwrap(), 4 * (rng.next() as usize % 16)));
    }
    assert_eq!(frames.len(), 400);
    let mut sim = Clocked::new(GenDut::new());
    sim.reset(2);
    // three odd-length packets at the end: flagged
    for k in [1, 2, 3] {
        frames.push(stretch(&base[k], k));
    }
    let (mut got, mut last_in, mut out_at) = (vec![], vec![], vec![]);
    let sample = |sim: &mut Clocked<GenDut>, got: &mut Vec<(u32, bool)>, out_at: &mut Vec<u64>| {
        sim.settle();
        if sim.dut.icrc_valid() == 1 {
            got.push((sim.dut.icrc() as u32, sim.dut.icrc_misaligned() == 1));
            out_at.push(sim.cycle());
        }
    };
    let mut lanes = std::collections::BTreeSet::new();
    for f in &frames {
        let mut z = f.clone();
        let n = z.len();
        lanes.insert(n % 64);
        z[n - 4..].fill(0);
        for b in frame_beats(&z) {
            drive_beat(&mut sim.dut, "s_axis", &b);
            sample(&mut sim, &mut got, &mut out_at);
            if b.last {
                last_in.push(sim.cycle());
            }
            sim.tick();
        }
    }
    idle(&mut sim.dut, "s_axis");
    for _ in 0..2 * GEN_LATENCY {
        sample(&mut sim, &mut got, &mut out_at);
        sim.tick();
    }
    assert_eq!(got.len(), frames.len(), "one ICRC per frame");
    for (i, f) in frames.iter().enumerate() {
        let want = u32::from_le_bytes(f[f.len() - 4..].try_into().unwrap());
        assert_eq!(got[i].1, i >= 400, "frame {i} ({} bytes): misaligned flag", f.len());
        if got[i].1 {
            continue;
        }
        assert_eq!(got[i].0, want, "frame {i} ({} bytes): ICRC {:08x}, carried {want:08x}", f.len(), got[i].0);
        assert_eq!(
            out_at[i] - last_in[i],
            GEN_LATENCY,
            "frame {i}: ICRC {} cycles after its last beat",
            out_at[i] - last_in[i]
        );
    }
    // a word-aligned packet ends in one of 16 lanes (2 mod 4); all of them
    assert_eq!(lanes.len(), 16 + 3, "the packets ended in {lanes:?}");
    eprintln!(
        "{} frames: every ICRC restored, {GEN_LATENCY} cycles after the last beat; packets ending in {} lanes",
        frames.len(),
        lanes.len()
    );
}

/// `f` with `k` bytes inserted before its ICRC, its IP and UDP lengths
/// grown to match and its ICRC recomputed (a RoCEv2 frame with an odd
/// payload length, so its ICRC can start in any lane).
fn stretch(f: &[u8], k: usize) -> Vec<u8> {
    let mut g = f.to_vec();
    let n = g.len();
    g.splice(n - 4..n - 4, (0..k).map(|i| i as u8));
    let l2 = if g[12..14] == [0x81, 0x00] { 18 } else { 14 };
    let grow = |g: &mut Vec<u8>, at: usize| {
        let v = u16::from_be_bytes([g[at], g[at + 1]]) + k as u16;
        g[at..at + 2].copy_from_slice(&v.to_be_bytes());
    };
    let udp = if g[l2] >> 4 == 4 {
        grow(&mut g, l2 + 2);
        l2 + 4 * (g[l2] & 15) as usize
    } else {
        grow(&mut g, l2 + 4);
        l2 + 40
    };
    grow(&mut g, udp + 4);
    let icrc = rnic_proto::icrc_compute(&g).expect("a well-formed frame");
    let m = g.len();
    g[m - 4..].copy_from_slice(&icrc.to_le_bytes());
    g
}
