//! The transmit builder against the protocol model's encoder: every frame
//! is byte-for-byte what the model builds (IPv4 checksum, lengths, pad,
//! ICRC included), for every opcode, IPv4/IPv6, VLAN or not, under random
//! stalls; and back-to-back frames leave at one beat per cycle. The bench
//! brings each payload in its wire lanes (`rnic_tb::tx::payload_beats`, from
//! lane `TxBuild::payload_lane`, the lanes outside it filled with junk).

use rnic_hw::wire::TxBuild;
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_tb::tx::{tx_header, tx_payload_lane, TxBench};
use rnic_tb::{fixed_ip, payload_offset, random_packet};

fn packets(rng: &mut Rng, n: usize) -> Vec<RocePacket> {
    (0..n)
        .map(|i| {
            let mut p = random_packet(rng, Opcode::ALL[i % Opcode::ALL.len()]);
            if let IpHeader::V4(h) = &mut p.ip {
                h.options.clear();
            }
            if i % 7 == 3 && p.bth.opcode.carries_payload() {
                p.payload = (0..4096).map(|k| (k * 7 + i) as u8).collect();
            }
            p
        })
        .collect()
}

/// `TxBuild::payload_lane`, the lane the payload must come in, is where the
/// model's encoder puts the payload (its headers' length mod 64), for every
/// opcode, VLAN or not, IPv4 or IPv6; a standard frame's payload starts at
/// one of a handful of lanes.
#[test]
fn payload_lane_is_where_the_model_puts_the_payload() {
    let mut rng = Rng(12);
    let mut lanes = std::collections::BTreeSet::new();
    for &op in Opcode::ALL {
        for (vlan, v6) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut p = random_packet(&mut rng, op);
            p.eth.vlan = vlan.then_some(VlanTag { pcp: 1, dei: false, vid: 7 });
            p.ip = fixed_ip(v6);
            let h = tx_header(&mut p, 5, 0);
            let frame = encode_frame(&p).unwrap();
            let off = payload_offset(&p);
            assert_eq!(&frame[off..off + p.payload.len()], &p.payload[..], "{op:?}: payload offset");
            assert_eq!(tx_payload_lane(&h), off % 64, "{op:?} vlan={vlan} v6={v6}");
            assert_eq!(TxBuild::payload_lane(vlan, v6, p.ext.len()), off % 64);
            if op.carries_payload() {
                lanes.insert(off % 64);
            }
        }
    }
    eprintln!("payload lanes of payload-carrying opcodes: {lanes:?}");
    assert_eq!(lanes.len(), 12, "{lanes:?}");
}

#[test]
fn frames_equal_the_model_encoder() {
    let mut rng = Rng(11);
    let mut pkts = packets(&mut rng, 400);
    let mut tb = TxBench::new();
    let mut expected = vec![];
    let mut src_qps = vec![];
    for (i, p) in pkts.iter_mut().enumerate() {
        let qp = (rng.next() & 0xff_ffff) as u32;
        let h = tx_header(p, qp, i as u16);
        expected.push(encode_frame(p).unwrap());
        src_qps.push(qp);
        tb.queue(h, &p.payload);
    }
    tb.run(&mut rng, pkts.len(), 70, 70);
    assert_eq!(tb.frames.len(), expected.len());
    let mut seen = std::collections::BTreeSet::new();
    let mut tags = std::collections::BTreeSet::new();
    for (i, (got, want)) in tb.frames.iter().zip(&expected).enumerate() {
        assert_eq!(got.len(), want.len(), "frame {i} ({:?}): length", pkts[i].bth.opcode);
        assert_eq!(got, want, "frame {i} ({:?})", pkts[i].bth.opcode);
        let d = decode_frame(got).unwrap();
        assert!(d.icrc_ok && d.ip_checksum_ok(), "frame {i}");
        // what docs/wire.md says the builder writes, read from the bytes
        let vlan = got[12..14] == [0x81, 0x00];
        let l2 = if vlan { 18 } else { 14 };
        let v6 = got[l2 - 2..l2] == [0x86, 0xdd];
        let udp = if v6 {
            l2 + 40
        } else {
            assert_eq!(got[l2 - 2..l2], [0x08, 0x00]);
            assert_eq!(got[l2], 0x45, "frame {i}: IPv4 without options");
            assert_eq!(got[l2 + 6] & 0xe0, 0x40, "frame {i}: DF set, MF clear");
            l2 + 20
        };
        let qp = src_qps[i];
        let sport = 0xc000 | ((qp ^ (qp >> 14)) & 0x3fff) as u16;
        assert_eq!(got[udp..udp + 2], sport.to_be_bytes(), "frame {i}: UDP source port from QP {qp:#x}");
        assert_eq!(got[udp + 2..udp + 4], 4791u16.to_be_bytes(), "frame {i}: UDP destination port");
        assert_eq!(got[udp + 6..udp + 8], [0, 0], "frame {i}: UDP checksum 0");
        seen.insert((pkts[i].bth.opcode.value(), v6));
        tags.insert((vlan, v6));
    }
    // nothing the test claims to cover is left to chance
    for op in Opcode::ALL {
        for v6 in [false, true] {
            assert!(seen.contains(&(op.value(), v6)), "{op:?} over IPv{}", if v6 { 6 } else { 4 });
        }
    }
    assert_eq!(tags.len(), 4, "VLAN or not, over IPv4 and IPv6: {tags:?}");
    assert!(pkts.iter().any(|p| p.payload.len() == 4096), "a 4096-byte payload");
    eprintln!("{} frames byte-identical to the model's, every opcode, ICRC and checksums verified", tb.frames.len());
}

/// The builder's documented latency (docs/wire.md): a frame's first beat is
/// valid on `m_axis` exactly this many cycles after the cycle in which its
/// header was accepted on `s_hdr`, on an idle builder: four header stages,
/// the load into the sequencer, the output register, and `TxBuild::HOLD`
/// cycles in the holding FIFO for the ICRC (18 cycles in all, docs/wire.md;
/// 13 before issue 9's pipelining).
const FIRST_BEAT_LATENCY: u64 = rnic_hw::wire::TxBuild::FIRST_BEAT_LATENCY;
const _: () = assert!(FIRST_BEAT_LATENCY == 18, "docs/wire.md states 18 cycles");

/// Back to back, frames of one shape leave in consecutive cycles, IPv4 and
/// IPv6 alternating; the first leaves [`FIRST_BEAT_LATENCY`] cycles after
/// its header went in.
#[test]
fn line_rate_back_to_back() {
    let mut rng = Rng(12);
    for (name, op, len) in [
        ("RC ACK (smallest)", Opcode::RcAck, 0usize),
        ("SEND ONLY 1 B", Opcode::RcSendOnly, 1),
        ("SEND ONLY 64 B", Opcode::RcSendOnly, 64),
        ("WRITE ONLY 1000 B", Opcode::RcWriteOnly, 1000),
        ("WRITE ONLY 4096 B", Opcode::RcWriteOnly, 4096),
        ("UD SEND 1024 B", Opcode::UdSendOnly, 1024),
    ] {
        let mut tb = TxBench::new();
        let n = 30;
        let mut beats = 0;
        for i in 0..n {
            let mut p = random_packet(&mut rng, op);
            p.payload = (0..len).map(|k| k as u8).collect();
            p.ip = fixed_ip(i % 2 == 1);
            let h = tx_header(&mut p, i, i as u16);
            beats += encode_frame(&p).unwrap().len().div_ceil(64);
            tb.queue(h, &p.payload);
        }
        tb.run(&mut rng, n as usize, 100, 100);
        let c = &tb.out_cycles;
        assert_eq!(c.len(), beats);
        let span = c[c.len() - 1] - c[0] + 1;
        let gaps: Vec<(usize, u64)> =
            c.windows(2).enumerate().filter(|(_, w)| w[1] != w[0] + 1).map(|(i, w)| (i, w[1] - w[0])).collect();
        assert!(gaps.is_empty(), "{name}: gaps after output beat (index, distance): {gaps:?}");
        assert_eq!(span, beats as u64, "{name}: {beats} beats must leave in {beats} consecutive cycles");
        let first = tb.first_out_cycles[0] - tb.hdr_in_cycles[0];
        assert_eq!(first, FIRST_BEAT_LATENCY, "{name}: first beat out {first} cycles after the header");
        eprintln!("{name:<20}: {beats} beats in {span} cycles; first beat out {first} cycles after its header");
    }
}

/// On an idle builder, every opcode, IPv4/IPv6, VLAN or not: the first beat
/// leaves exactly [`FIRST_BEAT_LATENCY`] cycles after the header went in.
#[test]
fn first_beat_latency_is_fixed() {
    let mut rng = Rng(13);
    let mut tb = TxBench::new();
    let mut n = 0;
    for (i, op) in Opcode::ALL.iter().enumerate() {
        for v6 in [false, true] {
            let mut p = random_packet(&mut rng, *op);
            p.ip = fixed_ip(v6);
            p.eth.vlan = (i % 2 == 0).then_some(VlanTag { pcp: 1, dei: false, vid: 5 });
            let h = tx_header(&mut p, i as u32, i as u16);
            let want = encode_frame(&p).unwrap();
            tb.queue(h, &p.payload);
            n += 1;
            tb.run(&mut rng, n, 100, 100);
            while !tb.idle() {
                tb.cycle(&mut rng, 100, 100);
            }
            for _ in 0..20 {
                tb.cycle(&mut rng, 100, 100);
            }
            assert_eq!(tb.frames.last().unwrap(), &want, "{op:?}");
            let lat = tb.first_out_cycles[n - 1] - tb.hdr_in_cycles[n - 1];
            assert_eq!(lat, FIRST_BEAT_LATENCY, "{op:?} v6={v6}: first beat {lat} cycles after the header");
        }
    }
    assert_eq!(n, 2 * Opcode::ALL.len());
}

/// A sink that stops for longer than the builder's 8-bit beat clock wraps
/// (300 cycles, several times) never sees an offered beat withdrawn or
/// changed (`TxBench` checks AXI-stream on every cycle), and every frame
/// still comes out byte-identical to the model's.
#[test]
fn long_sink_stalls_keep_beats_offered() {
    let mut rng = Rng(0x57a11);
    let mut tb = TxBench::new();
    let mut packets: Vec<RocePacket> = (0..12)
        .map(|i| {
            let mut p = random_packet(&mut rng, Opcode::RcWriteOnly);
            p.payload = (0..64 * (1 + i % 5) + 7 * i).map(|k| k as u8).collect();
            p
        })
        .collect();
    let mut want = vec![];
    for (i, p) in packets.iter_mut().enumerate() {
        let h = tx_header(p, 0x11 + i as u32, i as u16);
        want.push(encode_frame(p).unwrap());
        tb.queue(h, &p.payload);
    }
    let mut stalls = 0;
    while tb.frames.len() < want.len() {
        // 20 cycles flowing, then 300 with the sink stopped
        for _ in 0..20 {
            tb.cycle(&mut rng, 100, 100);
        }
        for _ in 0..300 {
            tb.cycle(&mut rng, 100, 0);
        }
        stalls += 1;
        assert!(stalls < 100, "builder stopped after {} frames", tb.frames.len());
    }
    assert_eq!(tb.frames, want);
    eprintln!("{} frames through {stalls} sink stalls of 300 cycles each", want.len());
}
