//! The receive parser against the protocol model.
//!
//! The oracle is the protocol model's receive path (`decode_frame_rx`: IPv4
//! with options goes to the raw queue).
//!
//! * Well-formed traffic (rxe captures, every opcode, IPv4/IPv6, VLAN, IPv4
//!   options, bad ICRCs, bad IPv4 checksums, MAC errors, raw frames) under
//!   random stalls: every header, payload byte, raw frame, bad flag, outcome
//!   and counter is checked.
//! * 100,000 random and mutated frames: the outcome of every frame equals the
//!   model's, nothing hangs, and only accepted frames leave unmarked.
//! * Line rate: back-to-back frames from the smallest ACK to 4 KiB payloads
//!   enter at one beat per cycle.

use rnic_hw::wire::RxParse;
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_tb::{capture, fixed_ip, model_fields, payload_offset, random_packet, unpack_header};

use rnic_tb::rx::{lane_keeps, RxBench, ICRC, IP_CSUM, MAC_ERR, MALFORMED, RAW, ROCE};

/// What the model says happens to a frame, and what must come out.
/// A payload of `None` bytes is one whose bytes are not promised (a frame
/// shorter than its IP length: it comes out marked bad).
#[derive(Debug, Clone)]
struct Expect {
    code: u8,
    hdr: Option<std::collections::BTreeMap<&'static str, u128>>,
    payload: Option<(Option<Vec<u8>>, bool)>,
    raw: Option<(Vec<u8>, bool)>,
}

/// A malformed frame as the parser's header decoder sees it: its first 128
/// bytes (bytes past the frame's end read as zero), zero-extended to the
/// length its IP header announces. If that is a RoCEv2 or raw frame, the
/// frame's only fault is being shorter than its IP length, which shows only
/// at its end.
fn as_decoded_from_window(f: &[u8]) -> Vec<u8> {
    let mut g = f.to_vec();
    g.resize(g.len().max(128), 0);
    let be16 = |i: usize| u16::from_be_bytes([g[i], g[i + 1]]) as usize;
    let l2 = if be16(12) == 0x8100 { 18 } else { 14 };
    let end = match be16(l2 - 2) {
        0x0800 => l2 + be16(l2 + 2),
        0x86dd => l2 + 40 + be16(l2 + 4),
        _ => 0,
    };
    g.resize(g.len().max(end), 0);
    g
}

fn expect(f: &[u8], mac_err: bool) -> Expect {
    let none = Expect { code: MALFORMED, hdr: None, payload: None, raw: None };
    match decode_frame_rx(f) {
        Ok(p) => {
            let csum = p.ip_checksum_ok();
            let mut code = if !csum {
                IP_CSUM
            } else if !p.icrc_ok {
                ICRC
            } else {
                ROCE
            };
            if mac_err {
                code = MAC_ERR;
            }
            let bad = code != ROCE && code != RAW;
            match csum {
                false => Expect { code, ..none },
                true => Expect {
                    code,
                    hdr: Some(model_fields(&p)),
                    payload: Some((Some(p.payload.clone()), bad)),
                    raw: None,
                },
            }
        }
        Err(e) if e.is_not_roce() => {
            Expect { code: if mac_err { MAC_ERR } else { RAW }, raw: Some((f.to_vec(), mac_err)), ..none }
        }
        Err(_) => {
            // malformed: nothing comes out, unless the frame's only fault is
            // its length, which shows at its end: then its output is marked bad
            let code = if mac_err { MAC_ERR } else { MALFORMED };
            match decode_frame_rx(&as_decoded_from_window(f)) {
                Ok(p) if !p.ip_checksum_ok() => Expect { code, ..none },
                Ok(p) => Expect { code, hdr: Some(model_fields(&p)), payload: Some((None, true)), ..none },
                Err(e) if e.is_not_roce() => Expect { code, raw: Some((f.to_vec(), true)), ..none },
                Err(_) => Expect { code, ..none },
            }
        }
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
            2 => f.extend(std::iter::repeat_n(0, 1 + (rng.next() % 30) as usize)), // Ethernet padding
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
    // GSI frames (UD SENDs to QP1 with the GSI Q_Key): RoCEv2 like any other
    for i in 0..20 {
        let mut p = random_packet(rng, Opcode::UdSendOnly);
        p.bth.dest_qp = 1;
        p.ext = ExtHeaders::Deth(Deth { qkey: Deth::GSI_QKEY, reserved: 0, src_qp: 1 });
        p.payload = (0..256).map(|k| (k + i) as u8).collect();
        let mut f = encode_frame(&p).unwrap();
        if i % 5 == 0 {
            let n = f.len();
            f[n - 9] ^= 0x01; // bad ICRC
        }
        v.push((f, false));
    }
    v
}

fn check_outputs(tb: &RxBench, exp: &[Expect]) {
    assert!(tb.shape_errors.is_empty(), "{:?}", &tb.shape_errors[..tb.shape_errors.len().min(5)]);
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
    assert_eq!(tb.payload_keeps.len(), payloads.len());
    // a payload goes with its frame's header (both or neither, in order)
    assert_eq!(tb.hdrs.len(), tb.payloads.len(), "a header per payload");
    for (i, ((got, want), hdr)) in tb.payloads.iter().zip(&payloads).zip(&tb.hdrs).enumerate() {
        assert_eq!(got.1, want.1, "payload {i}: bad flag");
        if let Some(bytes) = &want.0 {
            assert_eq!(&got.0, bytes, "payload {i}: bytes");
            // in its wire lanes, from the lane the header gives (the model's
            // lane: checked with the header's fields above)
            let lane = unpack_header(hdr)["payload_lane"] as usize;
            assert_eq!(tb.payload_keeps[i], lane_keeps(lane, bytes.len()), "payload {i}: tkeep of its beats");
        }
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

/// 100,000 random and mutated frames: every outcome equals the model's, and
/// so does everything that comes out (headers, payload bytes, raw frames and
/// their bad flags: malformed frames and frames with a bad IPv4 checksum
/// produce nothing, frames whose fault shows only at their end are marked),
/// and at the end every counter equals the model's tally.
/// A header consumer that waits for each frame's verdict (the last beat of
/// its payload) before it takes the frame's header never stalls the parser
/// into a deadlock: with random stalls on every output, every frame is
/// decided and every output equals the model's (issue 9, item 3).
#[test]
fn header_consumer_waiting_for_the_verdict_never_deadlocks() {
    let mut rng = Rng(0x3e7d);
    let frames = well_formed_frames(&mut rng);
    let exp: Vec<Expect> = frames.iter().map(|(f, e)| expect(f, *e)).collect();
    let mut tb = RxBench::new();
    tb.hdr_waits_for_verdict = true;
    for (f, e) in &frames {
        tb.queue(f, *e);
    }
    tb.run_until(&mut rng, frames.len(), 90, 60);
    check_outputs(&tb, &exp);
    assert!(tb.hdrs.len() >= 500, "{} headers", tb.hdrs.len());
    eprintln!("{} frames, {} headers each taken after its verdict", frames.len(), tb.hdrs.len());
}

#[test]
fn fuzz_100k_frames_against_the_model() {
    let n: usize = std::env::var("RX_FUZZ_FRAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let mut rng = Rng(0xf022);
    let base: Vec<Vec<u8>> = capture("rxe_rc_ud_perftest.pcap");
    let mut tb = RxBench::new();
    let mut codes = vec![];
    let mut done = 0;
    let (mut hdrs, mut payloads, mut raws) = (0, 0, 0);
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
            // a MAC error on one frame in 50
            let mac_err = rng.chance(2);
            let e = expect(&f, mac_err);
            codes.push(e.code);
            exp.push(e);
            tb.queue(&f, mac_err);
        }
        tb.run_until(&mut rng, batch, 100, 100);
        check_outputs(&tb, &exp);
        hdrs += tb.hdrs.len();
        payloads += tb.payloads.len();
        raws += tb.raws.len();
        tb.codes.clear();
        tb.sent_hdr.clear();
        tb.hdrs.clear();
        tb.payloads.clear();
        tb.payload_keeps.clear();
        tb.raws.clear();
        done += batch;
    }
    let hist = |c: u8| codes.iter().filter(|x| **x == c).count() as u64;
    let d = &tb.sim.dut;
    assert_eq!(
        [d.cnt_roce(), d.cnt_raw(), d.cnt_malformed(), d.cnt_icrc(), d.cnt_ip_csum(), d.cnt_mac_err()],
        [hist(ROCE), hist(RAW), hist(MALFORMED), hist(ICRC), hist(IP_CSUM), hist(MAC_ERR)],
        "counters (RoCE, raw, malformed, ICRC, IPv4 checksum, MAC error) against the model's tallies"
    );
    eprintln!(
        "{n} frames, {} cycles: {} RoCE, {} raw, {} malformed, {} ICRC, {} IPv4 checksum, {} MAC error; all outcomes, counters, {hdrs} headers, {payloads} payloads and {raws} raw frames equal the model's",
        tb.sim.cycle(), hist(ROCE), hist(RAW), hist(MALFORMED), hist(ICRC), hist(IP_CSUM), hist(MAC_ERR)
    );
    for c in [ROCE, RAW, MALFORMED, ICRC, IP_CSUM, MAC_ERR] {
        assert!(hist(c) as usize >= n / 200, "outcome {c} under-represented");
    }
}

/// The parser's documented header latency (docs/wire.md): a frame's header
/// is valid on `m_hdr` exactly this many cycles after the cycle in which
/// its first beat was accepted (its second beat, if any, taken in the next
/// cycle): the entry stage, the 4 cycles of the decoder's window (4 for the
/// decoder itself) and the header FIFO's 2.
const HDR_LATENCY: u64 = RxParse::HDR_LATENCY;
const _: () = assert!(HDR_LATENCY == 8);
/// The payload's latency (docs/wire.md): a payload beat is valid on
/// `m_axis` this many cycles after the frame beat it is went in (the
/// payload stays in its wire lanes: no realigner stage; 11 before).
const PAYLOAD_LATENCY: u64 = RxParse::PAYLOAD_LATENCY;
const _: () = assert!(PAYLOAD_LATENCY == 9);

/// Frames of one shape back to back, no stalls: the input takes one beat
/// every cycle; every frame's header comes out [`HDR_LATENCY`] cycles after
/// the frame's first beat went in, its payload's first beat
/// [`PAYLOAD_LATENCY`] cycles after the frame beat that holds it (the last
/// beat for no payload). Every shape runs over IPv4 and IPv6.
#[test]
fn line_rate_back_to_back() {
    let mut rng = Rng(5);
    let mut shapes: Vec<(String, Vec<u8>, u64)> = vec![];
    for (op, len) in [
        (Opcode::RcAck, 0usize),
        (Opcode::RcSendOnly, 0),
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
            p.ip = fixed_ip(v6);
            let f = encode_frame(&p).unwrap();
            assert_eq!(matches!(decode_frame(&f).unwrap().ip, IpHeader::V6(_)), v6, "{op:?}: IP version");
            // the frame beat that holds the payload's first byte (or, with
            // no payload, the frame's last beat, which makes its empty beat)
            let beat = if len == 0 { (f.len() - 1) / 64 } else { payload_offset(&p) / 64 };
            shapes.push((format!("{op:?} {len} B {}", if v6 { "IPv6" } else { "IPv4" }), f, beat as u64));
        }
    }
    assert_eq!(shapes.len(), 18, "nine shapes, each over IPv4 and IPv6");
    // the smallest frame is the IPv4 ACK: 62 bytes, one beat
    assert_eq!(shapes[0].1.len(), 62);
    // payloads that start in the first beat and in the second
    assert!(shapes.iter().any(|s| s.2 == 0) && shapes.iter().any(|s| s.2 == 1));
    for (name, frame, beat) in shapes {
        let mut tb = RxBench::new();
        let count = 40;
        for _ in 0..count {
            tb.queue(&frame, false);
        }
        let beats = tb.beats.len() as u64;
        let mut cycles_in = 0;
        while !tb.beats.is_empty() || tb.presenting {
            tb.cycle(&mut rng, 100, 100);
            cycles_in += 1;
        }
        tb.run_until(&mut rng, count, 100, 100);
        assert_eq!(tb.codes, vec![ROCE; count], "{name}");
        assert_eq!(cycles_in, beats, "{name}: {beats} beats must enter in {beats} cycles");
        assert_eq!(tb.first_in_cycles.len(), count);
        assert_eq!(tb.hdr_cycles.len(), count, "{name}: one header per frame");
        for (i, (h, f)) in tb.hdr_cycles.iter().zip(&tb.first_in_cycles).enumerate() {
            assert_eq!(h - f, HDR_LATENCY, "{name} frame {i}: header {} cycles after the first beat", h - f);
        }
        assert_eq!(tb.payload_cycles.len(), count, "{name}: one payload per frame");
        for (i, (p, f)) in tb.payload_cycles.iter().zip(&tb.first_in_cycles).enumerate() {
            let lat = p - (f + beat);
            assert_eq!(lat, PAYLOAD_LATENCY, "{name} frame {i}: payload {lat} cycles after the beat that holds it");
        }
        eprintln!(
            "{name:<32} {:>5} B/frame: {beats} beats in {cycles_in} cycles; every header {HDR_LATENCY} cycles after its first beat, payload {PAYLOAD_LATENCY} after its beat",
            frame.len()
        );
    }
}
