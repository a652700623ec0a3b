//! The receive parser against the protocol model.
//!
//! * Well-formed traffic (rxe captures, every opcode, IPv4/IPv6, VLAN, IPv4
//!   options, bad ICRCs, bad IPv4 checksums, MAC errors, raw frames) under
//!   random stalls: every header, payload byte, raw frame, bad flag, outcome
//!   and counter is checked.
//! * 100,000 random and mutated frames: the outcome of every frame equals the
//!   model's, nothing hangs, and only accepted frames leave unmarked.
//! * Line rate: back-to-back frames from the smallest ACK to 4 KiB payloads
//!   enter at one beat per cycle.

use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_tb::{capture, model_fields, random_packet, unpack_header};

use rnic_tb::rx::{RxBench, ICRC, IP_CSUM, MAC_ERR, MALFORMED, RAW, ROCE};

/// What the model says happens to a frame, and what must come out.
#[derive(Debug, Clone)]
struct Expect {
    code: u8,
    hdr: Option<std::collections::BTreeMap<&'static str, u128>>,
    payload: Option<(Vec<u8>, bool)>,
    raw: Option<(Vec<u8>, bool)>,
}

fn expect(f: &[u8], mac_err: bool) -> Expect {
    let none = Expect { code: MALFORMED, hdr: None, payload: None, raw: None };
    match decode_frame(f) {
        Ok(p) => {
            let qp1 = p.bth.dest_qp == 1;
            let csum = p.ip_checksum_ok();
            let mut code = if !csum {
                IP_CSUM
            } else if !p.icrc_ok {
                ICRC
            } else if qp1 {
                RAW
            } else {
                ROCE
            };
            if mac_err {
                code = MAC_ERR;
            }
            let bad = code != ROCE && code != RAW;
            match (csum, qp1) {
                (false, _) => Expect { code, ..none },
                (true, true) => Expect { code, raw: Some((f.to_vec(), bad)), ..none },
                (true, false) => {
                    Expect { code, hdr: Some(model_fields(&p)), payload: Some((p.payload.clone(), bad)), raw: None }
                }
            }
        }
        Err(e) if e.is_not_roce() => {
            Expect { code: if mac_err { MAC_ERR } else { RAW }, raw: Some((f.to_vec(), mac_err)), ..none }
        }
        Err(_) => Expect { code: if mac_err { MAC_ERR } else { MALFORMED }, ..none },
    }
}

/// Well-formed frames of every kind, the model's expectation for each.
fn well_formed_frames(rng: &mut Rng) -> Vec<(Vec<u8>, bool)> {
    let mut v = vec![];
    for name in ["rxe_rc_ud_perftest.pcap", "rxe_with_3_bad_icrc.pcap"] {
        v.extend(capture(name).into_iter().map(|f| (f, false)));
    }
    for i in 0..600 {
        let op = Opcode::ALL[i % Opcode::ALL.len()];
        let mut f = encode_frame(&random_packet(rng, op)).unwrap();
        match i % 10 {
            0 => {
                let n = f.len();
                f[n - 1] ^= 0x40; // ICRC
            }
            1 if f[12] == 0x08 => f[24] ^= 0x01, // IPv4 header checksum
            2 => f.extend(std::iter::repeat(0).take(1 + (rng.next() % 30) as usize)), // Ethernet padding
            _ => {}
        }
        v.push((f, i % 37 == 5));
    }
    // not RoCE, and RoCE to QP1
    let base = capture("rxe_rc_ud_perftest.pcap");
    for (i, f) in base.iter().take(120).enumerate() {
        let mut f = f.clone();
        match i % 4 {
            0 => f[12..14].copy_from_slice(&[0x08, 0x06]),
            1 => f[23] = 6,
            2 => f[36..38].copy_from_slice(&53u16.to_be_bytes()),
            _ => f[47..50].copy_from_slice(&[0, 0, 1]),
        }
        v.push((f, false));
    }
    v
}

fn check_outputs(tb: &RxBench, exp: &[Expect]) {
    let codes: Vec<u8> = exp.iter().map(|e| e.code).collect();
    for (i, (got, want)) in tb.codes.iter().zip(&codes).enumerate() {
        assert_eq!(got, want, "frame {i}: outcome");
    }
    assert_eq!(tb.codes.len(), codes.len());
    let hdrs: Vec<_> = exp.iter().filter_map(|e| e.hdr.clone()).collect();
    assert_eq!(tb.hdrs.len(), hdrs.len(), "headers out");
    for (i, (got, want)) in tb.hdrs.iter().zip(&hdrs).enumerate() {
        let got = unpack_header(got);
        for (k, v) in want {
            assert_eq!(got[k], *v, "header {i}: field {k}");
        }
    }
    let payloads: Vec<_> = exp.iter().filter_map(|e| e.payload.clone()).collect();
    assert_eq!(tb.payloads.len(), payloads.len(), "payload packets out");
    for (i, (got, want)) in tb.payloads.iter().zip(&payloads).enumerate() {
        assert_eq!(got.1, want.1, "payload {i}: bad flag");
        assert_eq!(got.0, want.0, "payload {i}: bytes");
    }
    let raws: Vec<_> = exp.iter().filter_map(|e| e.raw.clone()).collect();
    assert_eq!(tb.raws.len(), raws.len(), "raw frames out");
    for (i, (got, want)) in tb.raws.iter().zip(&raws).enumerate() {
        assert_eq!(got, want, "raw frame {i}");
    }
}

#[test]
fn well_formed_traffic_under_stalls() {
    let mut rng = Rng(42);
    let frames = well_formed_frames(&mut rng);
    let exp: Vec<Expect> = frames.iter().map(|(f, e)| expect(f, *e)).collect();
    let mut tb = RxBench::new();
    for (f, e) in &frames {
        tb.queue(f, *e);
    }
    tb.run_until(&mut rng, frames.len(), 70, 70);
    check_outputs(&tb, &exp);
    let count = |c: u8| exp.iter().filter(|e| e.code == c).count() as u64;
    let d = &tb.sim.dut;
    assert_eq!(
        [d.cnt_roce(), d.cnt_raw(), d.cnt_malformed(), d.cnt_icrc(), d.cnt_ip_csum(), d.cnt_mac_err()],
        [count(ROCE), count(RAW), count(MALFORMED), count(ICRC), count(IP_CSUM), count(MAC_ERR)],
        "counters"
    );
    for c in [ROCE, RAW, ICRC, IP_CSUM, MAC_ERR] {
        assert!(count(c) >= 10, "outcome {c} under-represented");
    }
    eprintln!(
        "{} frames: {} RoCE, {} raw, {} ICRC, {} IPv4 checksum, {} MAC error; {} headers, {} payloads, {} raw frames checked",
        frames.len(), count(ROCE), count(RAW), count(ICRC), count(IP_CSUM), count(MAC_ERR), tb.hdrs.len(), tb.payloads.len(), tb.raws.len()
    );
}

#[test]
fn fuzz_100k_frames_against_the_model() {
    let n: usize = std::env::var("RX_FUZZ_FRAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let mut rng = Rng(0xf022);
    let base: Vec<Vec<u8>> = capture("rxe_rc_ud_perftest.pcap");
    let mut tb = RxBench::new();
    let mut codes = vec![];
    let mut kept = [0usize; 2];
    let mut done = 0;
    while done < n {
        // batches keep memory flat
        let batch = (n - done).min(5000);
        let mut exp = vec![];
        for i in 0..batch {
            let mut f = if i % 2 == 0 {
                base[rng.next() as usize % base.len()].clone()
            } else {
                let op = Opcode::ALL[rng.next() as usize % Opcode::ALL.len()];
                encode_frame(&random_packet(&mut rng, op)).unwrap()
            };
            match rng.next() % 8 {
                0 | 1 => {
                    let k = rng.next() as usize % f.len().min(128);
                    f[k] ^= 1 << (rng.next() % 8);
                }
                2 => {
                    let k = rng.next() as usize % f.len();
                    f[k] = rng.next() as u8;
                }
                3 => {
                    let k = 1 + rng.next() as usize % f.len();
                    f.truncate(k);
                }
                4 => f.extend((0..rng.next() % 80).map(|x| x as u8)),
                5 => f = (0..1 + rng.next() % 200).map(|_| rng.next() as u8).collect(),
                _ => {}
            }
            let e = expect(&f, false);
            if e.code == ROCE {
                kept[0] += 1;
            }
            if e.code == RAW {
                kept[1] += 1;
            }
            codes.push(e.code);
            exp.push(e);
            tb.queue(&f, false);
        }
        tb.run_until(&mut rng, done + batch, 100, 100);
        done += batch;
        tb.hdrs.clear();
    }
    let mut mismatches = vec![];
    for (i, (got, want)) in tb.codes.iter().zip(&codes).enumerate() {
        if got != want {
            mismatches.push((i, *got, *want));
        }
    }
    assert!(mismatches.is_empty(), "{} outcomes differ from the model, first: {:?}", mismatches.len(), &mismatches[..mismatches.len().min(5)]);
    assert_eq!(tb.payloads.iter().filter(|p| !p.1).count(), kept[0], "unmarked payloads = accepted RoCE frames");
    assert_eq!(tb.raws.iter().filter(|p| !p.1).count(), kept[1], "unmarked raw frames = raw frames");
    let hist = |c: u8| codes.iter().filter(|x| **x == c).count();
    eprintln!(
        "{n} frames, {} cycles: {} RoCE, {} raw, {} malformed, {} ICRC, {} IPv4 checksum; all outcomes equal the model's",
        tb.sim.cycle(), hist(ROCE), hist(RAW), hist(MALFORMED), hist(ICRC), hist(IP_CSUM)
    );
    for c in [ROCE, RAW, MALFORMED, ICRC, IP_CSUM] {
        assert!(hist(c) >= n / 200, "outcome {c} under-represented");
    }
}

/// Frames of one shape back to back, no stalls: the input takes one beat
/// every cycle; the header comes out a fixed number of cycles after the
/// frame's first beat went in.
#[test]
fn line_rate_back_to_back() {
    let mut rng = Rng(5);
    let mut shapes: Vec<(String, Vec<u8>)> = vec![];
    let mut ack = random_packet(&mut rng, Opcode::RcAck);
    ack.eth.vlan = None;
    ack.ip = IpHeader::V4(Ipv4Header::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into()));
    shapes.push(("RC ACK (smallest)".into(), encode_frame(&ack).unwrap()));
    for (op, len) in [
        (Opcode::RcSendOnly, 0usize),
        (Opcode::RcSendOnly, 1),
        (Opcode::RcSendOnly, 64),
        (Opcode::RcSendOnly, 200),
        (Opcode::RcWriteOnly, 1000),
        (Opcode::RcWriteOnly, 4096),
        (Opcode::RcWriteMiddle, 4096),
        (Opcode::UdSendOnly, 1024),
    ] {
        for v6 in [false, true] {
            let mut p = random_packet(&mut rng, op);
            p.payload = (0..len).map(|i| i as u8).collect();
            p.eth.vlan = None;
            if !v6 {
                p.ip = IpHeader::V4(Ipv4Header::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into()));
            } else if let IpHeader::V4(_) = p.ip {
                continue;
            }
            shapes.push((format!("{op:?} {len} B{}", if v6 { " IPv6" } else { "" }), encode_frame(&p).unwrap()));
        }
    }
    for (name, frame) in shapes {
        let mut tb = RxBench::new();
        let count = 40;
        for _ in 0..count {
            tb.queue(&frame, false);
        }
        let beats = tb.beats.len() as u64;
        let start = tb.sim.cycle();
        let mut first_hdr = None;
        let mut cycles_in = 0;
        while !tb.beats.is_empty() || tb.presenting {
            tb.cycle(&mut rng, 100, 100);
            cycles_in += 1;
            if first_hdr.is_none() && !tb.hdrs.is_empty() {
                first_hdr = Some(tb.sim.cycle() - start);
            }
        }
        tb.run_until(&mut rng, count, 100, 100);
        assert_eq!(tb.codes, vec![ROCE; count], "{name}");
        assert_eq!(cycles_in, beats, "{name}: {beats} beats must enter in {beats} cycles");
        eprintln!(
            "{name:<32} {:>5} B/frame: {beats} beats in {cycles_in} cycles; header out {} cycles after the first beat in",
            frame.len(),
            first_hdr.unwrap_or(0)
        );
    }
}
