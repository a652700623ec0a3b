//! The RTL header decoder against the protocol model's receive path
//! (`decode_frame_rx`): classification (RoCE, raw, malformed) on every
//! frame, and every parsed field on RoCE frames. Frames: the rxe captures,
//! generated packets of every opcode (IPv4/IPv6, VLAN or not, IPv4 options),
//! and random corruptions and truncations of both.
//!
//! The decoder is a pipeline: the frames go in back to back, one window per
//! cycle, and each frame's outputs are read `RxHeaderDecode::LATENCY`
//! cycles after its window went in (so a stage that mixed up two frames
//! would show). The second beat of a one-beat frame's window holds the
//! next frame's bytes, as it does in the parser, and must not matter.

use rnic_hw::wire::RxHeaderDecode;
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_sim::models::rx_header_decode::Dut;
use rnic_sim::Clocked;
use rnic_tb::{capture, model_fields, random_packet, unpack_header};
use std::collections::BTreeMap;

#[derive(Debug, PartialEq, Clone, Copy)]
enum Class {
    Roce,
    Raw,
    Malformed,
}

fn model_class(f: &[u8]) -> (Class, Option<RocePacket>) {
    match decode_frame_rx(f) {
        Ok(p) => (Class::Roce, Some(p)),
        Err(e) if e.is_not_roce() => (Class::Raw, None),
        Err(_) => (Class::Malformed, None),
    }
}

struct Decoded {
    class: Class,
    fields: BTreeMap<&'static str, u128>,
    csum_ok: bool,
    payload_off: u64,
}

/// Every frame through the decoder, one window per cycle, with the valid
/// flag low between some of them; the outputs of each frame read
/// `LATENCY` cycles after its window went in.
fn rtl_all(frames: &[Vec<u8>]) -> Vec<Decoded> {
    let mut sim = Clocked::new(Dut::new());
    let lat = RxHeaderDecode::LATENCY as usize;
    let mut out: Vec<Decoded> = Vec::with_capacity(frames.len());
    // (frame index or none) per cycle: an idle cycle after every seventh frame
    let mut slots: Vec<Option<usize>> = vec![];
    for i in 0..frames.len() {
        slots.push(Some(i));
        if i % 7 == 6 {
            slots.push(None);
        }
    }
    let total = slots.len();
    for c in 0..total + lat {
        let mut w = [0u32; 32];
        let mut one_beat = false;
        let valid = matches!(slots.get(c), Some(Some(_)));
        if let Some(Some(i)) = slots.get(c) {
            let f = &frames[*i];
            one_beat = f.len() <= 64;
            for (k, b) in f.iter().take(128).enumerate() {
                w[k / 4] |= (*b as u32) << (8 * (k % 4));
            }
            if one_beat {
                // the second beat holds whatever follows: the next frame's first bytes
                if let Some(next) = frames.get(i + 1) {
                    for (k, b) in next.iter().take(64).enumerate() {
                        w[16 + k / 4] |= (*b as u32) << (8 * (k % 4));
                    }
                }
            }
        } else if c < total {
            // an idle cycle: noise in the window
            for (k, x) in w.iter_mut().enumerate() {
                *x = (k as u32).wrapping_mul(0x9e37_79b9);
            }
        }
        let d = &mut sim.dut;
        d.set_window(&w);
        d.set_one_beat(one_beat as u64);
        d.set_idle(!valid as u64);
        sim.tick();
        if c + 1 >= lat {
            let d = &sim.dut;
            let slot = slots.get(c + 1 - lat).copied().flatten();
            assert_eq!(d.out_valid() == 1, slot.is_some(), "cycle {c}: out_valid");
            if let Some(i) = slot {
                assert_eq!(i, out.len());
                let f = &frames[i];
                let class = if (f.len() as u64) < d.need_len() || d.bad_reason() != 0 {
                    Class::Malformed
                } else if d.is_raw() == 1 {
                    Class::Raw
                } else {
                    assert_eq!(d.is_roce(), 1, "every frame is RoCE, raw or malformed");
                    Class::Roce
                };
                let fields = unpack_header(&d.hdr());
                out.push(Decoded { class, fields, csum_ok: d.ip_csum_ok() == 1, payload_off: d.payload_off() });
            } else {
                assert_eq!((d.is_roce(), d.is_raw(), d.bad_reason()), (0, 0, 0), "cycle {c}: an idle slot's outputs");
            }
        }
    }
    assert_eq!(out.len(), frames.len());
    out
}

fn check_all(frames: &[Vec<u8>]) -> BTreeMap<String, usize> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let rtl = rtl_all(frames);
    for (n, (f, got)) in frames.iter().zip(rtl).enumerate() {
        let (want, pkt) = model_class(f);
        assert_eq!(got.class, want, "frame {n} ({} bytes): class", f.len());
        if decode_frame_rx(f) == Err(DecodeError::NotRoce(NotRoceReason::Ipv4Options)) {
            *seen.entry("IPv4 options".into()).or_default() += 1;
        }
        *seen.entry(format!("{want:?}")).or_default() += 1;
        if let (Class::Roce, Some(p)) = (want, pkt) {
            assert_eq!(got.csum_ok, p.ip_checksum_ok(), "frame {n}: IPv4 checksum verdict");
            for (k, v) in model_fields(&p) {
                assert_eq!(got.fields[k], v, "frame {n}: field {k}");
            }
            let off = f.len()
                - 4
                - p.bth.pad_count as usize
                - p.payload.len()
                - (f.len()
                    - match &p.ip {
                        IpHeader::V4(h) => 14 + 4 * p.eth.vlan.is_some() as usize + h.total_length as usize,
                        IpHeader::V6(h) => 54 + 4 * p.eth.vlan.is_some() as usize + h.payload_length as usize,
                    });
            assert_eq!(got.payload_off, off as u64, "frame {n}: payload offset");
            *seen.entry(format!("opcode {:#04x}", p.bth.opcode.value())).or_default() += 1;
        }
    }
    seen
}

#[test]
fn rxe_captures() {
    for name in ["rxe_rc_ud_perftest.pcap", "rxe_with_3_bad_icrc.pcap"] {
        let frames = capture(name);
        let seen = check_all(&frames);
        eprintln!("{name}: {seen:?}");
        assert!(seen.get("Roce").copied().unwrap_or(0) > 200);
    }
}

#[test]
fn every_opcode_both_ip_versions() {
    let mut rng = Rng(77);
    let mut frames = vec![];
    for _ in 0..20 {
        for op in Opcode::ALL {
            frames.push(encode_frame(&random_packet(&mut rng, *op)).unwrap());
        }
    }
    let seen = check_all(&frames);
    assert_eq!(seen.keys().filter(|k| k.starts_with("opcode")).count(), Opcode::ALL.len(), "{seen:?}");
    // random_packet gives some IPv4 headers options: the raw queue's
    assert!(seen.get("IPv4 options").copied().unwrap_or(0) >= 10, "{seen:?}");
}

#[test]
fn corrupted_and_truncated_frames() {
    let mut rng = Rng(0xbad);
    let mut frames = vec![];
    let base: Vec<Vec<u8>> = capture("rxe_rc_ud_perftest.pcap").into_iter().step_by(3).collect();
    for i in 0..4000 {
        let mut f = if i % 2 == 0 {
            base[i % base.len()].clone()
        } else {
            let ops = Opcode::ALL;
            encode_frame(&random_packet(&mut rng, ops[i % ops.len()])).unwrap()
        };
        if i % 8 == 7 {
            // well-formed traffic that is not RoCE (IPv4 frames from the capture)
            if f[12] == 0x08 && f[13] == 0x00 {
                match rng.next() % 5 {
                    0 => f[12..14].copy_from_slice(&[0x08, 0x06]),        // ARP
                    1 => f[23] = 6,                                       // TCP
                    2 => f[36..38].copy_from_slice(&53u16.to_be_bytes()), // UDP to another port
                    3 => f[20] |= 0x20,                                   // IPv4 fragment (more fragments)
                    _ => f[47..50].copy_from_slice(&[0, 0, 1]),           // RoCE to QP1
                }
            }
            frames.push(f);
            continue;
        }
        match rng.next() % 4 {
            0 => {
                let k = rng.next() as usize % f.len().min(100);
                f[k] = rng.next() as u8;
            }
            1 => {
                let k = rng.next() as usize % f.len().min(100);
                f[k] ^= 1 << (rng.next() % 8);
            }
            2 => {
                let n = rng.next() as usize % f.len();
                f.truncate(n);
            }
            _ => f.extend((0..rng.next() % 40).map(|x| x as u8)),
        }
        frames.push(f);
    }
    let seen = check_all(&frames);
    eprintln!("{seen:?}");
    for c in ["Roce", "Raw", "Malformed"] {
        assert!(seen.get(c).copied().unwrap_or(0) >= 200, "too few {c} frames: {seen:?}");
    }
}

/// One frame per check docs/wire.md lists for the receive parser, each
/// failing only that check: the model classifies it as the check says, and
/// the RTL agrees (class, and the IPv4 checksum verdict).
#[test]
fn every_documented_check() {
    let mut rng = Rng(0xc4ec);
    let v4 = |rng: &mut Rng, op: Opcode, len: usize| {
        let mut p = random_packet(rng, op);
        p.eth.vlan = None;
        p.ip = IpHeader::V4(Ipv4Header::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into()));
        p.payload = (0..len).map(|i| i as u8).collect();
        p.bth.pad_count = ((4 - len % 4) % 4) as u8;
        encode_frame(&p).unwrap()
    };
    // IPv4 header checksum over bytes 14..34, rewritten after a change
    fn fix(f: &mut [u8]) {
        f[24..26].copy_from_slice(&[0, 0]);
        let sum: u32 = (14..34).step_by(2).map(|i| u16::from_be_bytes([f[i], f[i + 1]]) as u32).sum();
        let sum = (sum & 0xffff) + (sum >> 16);
        let sum = (sum & 0xffff) + (sum >> 16);
        f[24..26].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    }
    let send = v4(&mut rng, Opcode::RcSendOnly, 100);
    let empty = v4(&mut rng, Opcode::RcSendOnly, 0);
    let ack = v4(&mut rng, Opcode::RcAck, 0);
    type Edit = fn(&mut Vec<u8>);
    let edits: [(&str, &Vec<u8>, Class, Edit); 17] = [
        ("well-formed SEND", &send, Class::Roce, |_| {}),
        ("EtherType not IP (ARP)", &send, Class::Raw, |f| f[12..14].copy_from_slice(&[0x08, 0x06])),
        ("two VLAN tags", &send, Class::Raw, |f| {
            f.splice(12..12, [0x81, 0x00, 0x00, 0x05, 0x81, 0x00, 0x00, 0x06]);
        }),
        ("IP version 6 under EtherType IPv4", &send, Class::Malformed, |f| {
            f[14] = 0x65;
            fix(f)
        }),
        ("IHL below 5", &send, Class::Malformed, |f| {
            f[14] = 0x44;
            fix(f)
        }),
        ("IPv4 fragment (more fragments)", &send, Class::Raw, |f| {
            f[20] |= 0x20;
            fix(f)
        }),
        ("IPv4 fragment (offset)", &send, Class::Raw, |f| {
            f[21] = 8;
            fix(f)
        }),
        ("IP total length below the header", &send, Class::Malformed, |f| {
            f[16..18].copy_from_slice(&[0, 19]);
            fix(f)
        }),
        ("IP total length past the frame", &send, Class::Malformed, |f| f.truncate(f.len() - 10)),
        ("UDP to another port", &send, Class::Raw, |f| f[36..38].copy_from_slice(&53u16.to_be_bytes())),
        ("UDP length disagrees with IP", &send, Class::Malformed, |f| f[39] ^= 0x04),
        ("BTH version not 0", &send, Class::Malformed, |f| f[43] |= 0x01),
        ("unknown opcode", &send, Class::Malformed, |f| f[42] = 0x1f),
        ("payload on an opcode that carries none", &send, Class::Malformed, |f| f[42] = Opcode::RcAck.value()),
        ("pad longer than the payload", &empty, Class::Malformed, |f| f[43] = (f[43] & !0x30) | 0x20),
        ("extended headers cut short", &ack, Class::Malformed, |f| f[42] = Opcode::RcWriteOnly.value()),
        ("RoCEv2 to QP1 (the GSI: a UD QP like any other)", &send, Class::Roce, |f| {
            f[47..50].copy_from_slice(&[0, 0, 1])
        }),
    ];
    let mut cases: Vec<(&str, Vec<u8>, Class)> = edits
        .iter()
        .map(|(name, base, want, edit)| {
            let mut f = (*base).clone();
            edit(&mut f);
            (*name, f, *want)
        })
        .collect();
    // IPv4 options (IHL above 5): well-formed, left to software (the raw queue)
    let mut po = random_packet(&mut rng, Opcode::RcSendOnly);
    po.eth.vlan = None;
    let mut h = Ipv4Header::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into());
    h.options = vec![1; 8];
    po.ip = IpHeader::V4(h);
    let fo = encode_frame(&po).unwrap();
    assert!(decode_frame(&fo).is_ok(), "the model parses IPv4 options");
    cases.push(("IPv4 options", fo.clone(), Class::Raw));
    let mut fo_cut = fo;
    fo_cut.truncate(14 + 26);
    cases.push(("IPv4 options cut short", fo_cut, Class::Malformed));
    let mut bad_csum = send.clone();
    bad_csum[24] ^= 0x01;
    cases.push(("IPv4 header checksum wrong", bad_csum, Class::Roce));
    // IPv6 with an extension header (hop-by-hop) goes to the raw queue
    let mut p6 = random_packet(&mut rng, Opcode::RcSendOnly);
    p6.eth.vlan = None;
    p6.ip = rnic_tb::fixed_ip(true);
    let f6 = encode_frame(&p6).unwrap();
    cases.push(("well-formed SEND over IPv6", f6.clone(), Class::Roce));
    let mut ext = f6;
    ext[20] = 0;
    cases.push(("IPv6 extension header", ext, Class::Raw));
    let frames: Vec<Vec<u8>> = cases.iter().map(|c| c.1.clone()).collect();
    let rtl = rtl_all(&frames);
    for ((name, f, want), got) in cases.iter().zip(rtl) {
        let (class, pkt) = model_class(f);
        assert_eq!(class, *want, "{name}: the model's class");
        assert_eq!(got.class, class, "{name}: the RTL's class");
        if let Some(p) = pkt {
            assert_eq!(got.csum_ok, p.ip_checksum_ok(), "{name}: IPv4 checksum verdict");
        }
    }
    let bad = &cases.iter().find(|c| c.0 == "IPv4 header checksum wrong").unwrap().1;
    assert!(!decode_frame_rx(bad).unwrap().ip_checksum_ok());
}
