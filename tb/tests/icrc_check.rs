//! The RTL ICRC checker against the protocol model, on real Linux rxe
//! traffic and on variants of it: single-byte corruptions, rewritten
//! variant fields (which the ICRC must ignore), VLAN tags, IPv6, Ethernet
//! padding, truncation. Frames go back to back at one beat per cycle.

use rnic_proto::{decode_frame, encode_frame, icrc_verify, IpHeader, Ipv6Header, VlanTag};
use rnic_sim::axis::Rng;
use rnic_sim::frames::{drive_beat, frame_beats, idle};
use rnic_sim::models::icrc_check::Dut;
use rnic_sim::Clocked;
use rnic_tb::capture;

/// Run frames back to back; returns (icrc_ok, short) per frame and the cycle count.
fn run(frames: &[Vec<u8>]) -> (Vec<(bool, bool)>, u64) {
    let mut sim = Clocked::new(Dut::new());
    sim.reset(2);
    let mut verdicts = vec![];
    let start = sim.cycle();
    let collect = |sim: &mut Clocked<Dut>, v: &mut Vec<(bool, bool)>| {
        if sim.dut.verdict_valid() == 1 {
            v.push((sim.dut.verdict_icrc_ok() == 1, sim.dut.verdict_short() == 1));
        }
    };
    for f in frames {
        for b in frame_beats(f) {
            drive_beat(&mut sim.dut, "s_axis", &b);
            sim.tick();
            collect(&mut sim, &mut verdicts);
        }
    }
    idle(&mut sim.dut, "s_axis");
    for _ in 0..8 {
        sim.tick();
        collect(&mut sim, &mut verdicts);
    }
    (verdicts, sim.cycle() - start)
}

fn model_verdict(f: &[u8]) -> bool {
    icrc_verify(f).unwrap_or(false)
}

#[test]
fn rxe_captures_match_the_model() {
    for name in ["rxe_rc_ud_perftest.pcap", "rxe_with_3_bad_icrc.pcap"] {
        let frames = capture(name);
        let (v, _) = run(&frames);
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
        frames.push(encode_frame(&six).unwrap());
        // fields outside the ICRC rewritten: TTL/TOS (IPv4 bytes 15, 22), UDP checksum, FECN/BECN
        let mut m = f.clone();
        m[15] ^= 0xff;
        m[22] = m[22].wrapping_sub(1);
        m[40] ^= 0x5a;
        m[46] |= 0xc0;
        frames.push(m);
        // Ethernet padding after the IP packet, and a truncated frame
        let mut p = f.clone();
        p.extend(std::iter::repeat(0).take(1 + rng.next() as usize % 70));
        frames.push(p);
        let mut t = f.clone();
        t.truncate(t.len() - 1 - rng.next() as usize % 4);
        frames.push(t);
    }
    let (v, cycles) = run(&frames);
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
    let beats: usize = frames.iter().map(|f| f.len().div_ceil(64)).sum();
    eprintln!("{} frames, {beats} beats in {cycles} cycles (pipeline drain: {} cycles)", frames.len(), cycles - beats as u64);
    assert_eq!(cycles - beats as u64, 8, "one beat per cycle, no gaps between frames (8 idle cycles collect the last verdict)");
}
