//! The RTL header decoder against the protocol model: classification (RoCE,
//! raw, malformed) on every frame, and every parsed field on RoCE frames.
//! Frames: the rxe captures, generated packets of every opcode (IPv4/IPv6,
//! VLAN or not), and random corruptions and truncations of both.

use rnic_hw::wire::RX_HDR_FIELDS;
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_sim::models::rx_header_decode::Dut;
use rnic_sim::Model;
use std::collections::BTreeMap;

#[derive(Debug, PartialEq, Clone, Copy)]
enum Class {
    Roce,
    Raw,
    Malformed,
}

fn capture(name: &str) -> Vec<Vec<u8>> {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors/rxe");
    assert!(d.is_dir(), "test vectors missing: {}", d.display());
    let bytes = std::fs::read(d.join(name)).unwrap();
    pcap::read_capture(&bytes).unwrap().into_iter().map(|p| p.data).collect()
}

fn model_class(f: &[u8]) -> (Class, Option<RocePacket>) {
    match decode_frame(f) {
        Ok(p) if p.bth.dest_qp == 1 => (Class::Raw, Some(p)),
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

fn rtl(dut: &mut Dut, f: &[u8]) -> Decoded {
    let mut w = [0u32; 32];
    for (i, b) in f.iter().take(128).enumerate() {
        w[i / 4] |= (*b as u32) << (8 * (i % 4));
    }
    dut.set_window(&w);
    dut.eval();
    let class = if (f.len() as u64) < dut.need_len() || dut.bad_reason() != 0 {
        Class::Malformed
    } else if dut.is_raw() == 1 {
        Class::Raw
    } else {
        assert_eq!(dut.is_roce(), 1, "every frame is RoCE, raw or malformed");
        Class::Roce
    };
    let hdr = dut.hdr();
    let bit = |i: usize| (hdr[i / 32] >> (i % 32)) & 1;
    let mut fields = BTreeMap::new();
    let mut top = 1024 - (1024 - RX_HDR_FIELDS.iter().map(|f| f.1).sum::<usize>());
    for (name, width) in RX_HDR_FIELDS {
        top -= width;
        let v = (0..*width).fold(0u128, |acc, k| acc | ((bit(top + k) as u128) << k));
        fields.insert(*name, v);
    }
    Decoded { class, fields, csum_ok: dut.ip_csum_ok() == 1, payload_off: dut.payload_off() }
}

fn model_fields(p: &RocePacket) -> BTreeMap<&'static str, u128> {
    let mut m = BTreeMap::new();
    let b = &p.bth;
    for (k, v) in [
        ("bth.opcode", b.opcode.value() as u128),
        ("bth.se", b.solicited_event as u128),
        ("bth.m", b.mig_req as u128),
        ("bth.padcnt", b.pad_count as u128),
        ("bth.tver", b.tver as u128),
        ("bth.p_key", b.pkey as u128),
        ("bth.fecn", b.fecn as u128),
        ("bth.becn", b.becn as u128),
        ("bth.destqp", b.dest_qp as u128),
        ("bth.a", b.ack_req as u128),
        ("bth.psn", b.psn.value() as u128),
        ("udp.srcport", p.udp.src_port as u128),
        ("payload_len", p.payload.len() as u128),
    ] {
        m.insert(k, v);
    }
    let layout = p.ext.layout();
    let has = |l: &[HeaderLayout]| l.contains(&layout) as u128;
    m.insert("has.reth", has(&[HeaderLayout::Reth, HeaderLayout::RethImmDt]));
    m.insert("has.aeth", has(&[HeaderLayout::Aeth, HeaderLayout::AethAtomicAckEth]));
    m.insert("has.atomiceth", has(&[HeaderLayout::AtomicEth]));
    m.insert("has.atomicacketh", has(&[HeaderLayout::AethAtomicAckEth]));
    m.insert("has.immdt", has(&[HeaderLayout::ImmDt, HeaderLayout::RethImmDt, HeaderLayout::DethImmDt]));
    m.insert("has.ieth", has(&[HeaderLayout::Ieth]));
    m.insert("has.deth", has(&[HeaderLayout::Deth, HeaderLayout::DethImmDt]));
    m.insert("has.cnp", has(&[HeaderLayout::CnpReserved]));
    match &p.ext {
        ExtHeaders::Reth(r) | ExtHeaders::RethImmDt(r, _) => {
            m.insert("reth.va", r.va as u128);
            m.insert("reth.r_key", r.rkey as u128);
            m.insert("reth.dmalen", r.dma_len as u128);
        }
        ExtHeaders::Aeth(a) | ExtHeaders::AethAtomicAckEth(a, _) => {
            m.insert("aeth.syndrome", a.syndrome as u128);
            m.insert("aeth.msn", a.msn as u128);
        }
        ExtHeaders::AtomicEth(a) => {
            m.insert("atomiceth.va", a.va as u128);
            m.insert("atomiceth.r_key", a.rkey as u128);
            m.insert("atomiceth.swapdt", a.swap_add as u128);
            m.insert("atomiceth.cmpdt", a.compare as u128);
        }
        ExtHeaders::Ieth(i) => {
            m.insert("ieth.r_key", i.rkey as u128);
        }
        ExtHeaders::Deth(d) | ExtHeaders::DethImmDt(d, _) => {
            m.insert("deth.q_key", d.qkey as u128);
            m.insert("deth.srcqp", d.src_qp as u128);
        }
        _ => {}
    }
    if let ExtHeaders::AethAtomicAckEth(_, a) = &p.ext {
        m.insert("atomicacketh.origremdt", a.orig_remote_data as u128);
    }
    if let ExtHeaders::ImmDt(i) | ExtHeaders::RethImmDt(_, i) | ExtHeaders::DethImmDt(_, i) = &p.ext {
        m.insert("immdt", i.value as u128);
    }
    match &p.ip {
        IpHeader::V4(h) => {
            m.insert("ip.v6", 0);
            m.insert("ip.dscp", h.dscp as u128);
            m.insert("ip.ecn", h.ecn.bits() as u128);
            m.insert("ip.src", u32::from(h.src) as u128);
            m.insert("ip.dst", u32::from(h.dst) as u128);
        }
        IpHeader::V6(h) => {
            m.insert("ip.v6", 1);
            m.insert("ip.dscp", h.dscp as u128);
            m.insert("ip.ecn", h.ecn.bits() as u128);
            m.insert("ip.src", u128::from(h.src));
            m.insert("ip.dst", u128::from(h.dst));
        }
    }
    m
}

/// A packet of `opcode` with random fields and headers of the right layout.
fn random_packet(rng: &mut Rng, opcode: Opcode) -> RocePacket {
    let r64 = |rng: &mut Rng| rng.next();
    let r32 = |rng: &mut Rng| rng.next() as u32;
    let ext = match opcode.layout() {
        HeaderLayout::Bare => ExtHeaders::Bare,
        HeaderLayout::ImmDt => ExtHeaders::ImmDt(ImmDt { value: r32(rng) }),
        HeaderLayout::Reth => ExtHeaders::Reth(Reth { va: r64(rng), rkey: r32(rng), dma_len: r32(rng) }),
        HeaderLayout::RethImmDt => {
            ExtHeaders::RethImmDt(Reth { va: r64(rng), rkey: r32(rng), dma_len: r32(rng) }, ImmDt { value: r32(rng) })
        }
        HeaderLayout::Aeth => ExtHeaders::Aeth(Aeth { syndrome: rng.next() as u8, msn: r32(rng) & 0xff_ffff }),
        HeaderLayout::AethAtomicAckEth => ExtHeaders::AethAtomicAckEth(
            Aeth { syndrome: rng.next() as u8, msn: r32(rng) & 0xff_ffff },
            AtomicAckEth { orig_remote_data: r64(rng) },
        ),
        HeaderLayout::AtomicEth => {
            ExtHeaders::AtomicEth(AtomicEth { va: r64(rng), rkey: r32(rng), swap_add: r64(rng), compare: r64(rng) })
        }
        HeaderLayout::Ieth => ExtHeaders::Ieth(Ieth { rkey: r32(rng) }),
        HeaderLayout::Deth => ExtHeaders::Deth(Deth { qkey: r32(rng), reserved: 0, src_qp: r32(rng) & 0xff_ffff }),
        HeaderLayout::DethImmDt => ExtHeaders::DethImmDt(
            Deth { qkey: r32(rng), reserved: 0, src_qp: r32(rng) & 0xff_ffff },
            ImmDt { value: r32(rng) },
        ),
        HeaderLayout::CnpReserved => ExtHeaders::CnpReserved(CnpReserved::default()),
    };
    let payload = if opcode.carries_payload() { (0..rng.next() % 300).map(|i| i as u8).collect() } else { vec![] };
    let mut bth = Bth::new(opcode, (r32(rng) & 0xff_ffff).max(2), Psn::new(r32(rng)));
    bth.solicited_event = rng.chance(50);
    bth.mig_req = rng.chance(50);
    bth.pkey = rng.next() as u16;
    bth.fecn = rng.chance(20);
    bth.becn = rng.chance(20);
    bth.ack_req = rng.chance(50);
    let mut eth = EthernetHeader::new(MacAddr([2, 0, 0, 0, 0, 1]), MacAddr([2, 0, 0, 0, 0, 2]));
    if rng.chance(30) {
        eth.vlan = Some(VlanTag { pcp: 3, dei: false, vid: 100 });
    }
    let ip = if rng.chance(30) {
        IpHeader::V6(Ipv6Header {
            dscp: (rng.next() & 63) as u8,
            ecn: Ecn::Ect0,
            flow_label: r32(rng) & 0xfffff,
            payload_length: 0,
            next_header: 17,
            hop_limit: 64,
            src: (((r64(rng) as u128) << 64) | r64(rng) as u128).into(),
            dst: (((r64(rng) as u128) << 64) | r64(rng) as u128).into(),
        })
    } else {
        let mut h = Ipv4Header::new(r32(rng).into(), r32(rng).into());
        h.dscp = (rng.next() & 63) as u8;
        h.ecn = Ecn::Ce;
        if rng.chance(20) {
            h.options = vec![1; 4 * (1 + rng.next() as usize % 10)];
        }
        IpHeader::V4(h)
    };
    RocePacket::new(eth, ip, rng.next() as u16, bth, ext, payload)
}

fn check_all(frames: &[Vec<u8>]) -> BTreeMap<String, usize> {
    let mut dut = Dut::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (n, f) in frames.iter().enumerate() {
        let (want, pkt) = model_class(f);
        let got = rtl(&mut dut, f);
        assert_eq!(got.class, want, "frame {n} ({} bytes): class", f.len());
        *seen.entry(format!("{want:?}")).or_default() += 1;
        if let (Class::Roce, Some(p)) = (want, pkt) {
            assert_eq!(got.csum_ok, p.ip_checksum_ok(), "frame {n}: IPv4 checksum verdict");
            for (k, v) in model_fields(&p) {
                assert_eq!(got.fields[k], v, "frame {n}: field {k}");
            }
            let off = f.len() - 4 - p.bth.pad_count as usize - p.payload.len()
                - (f.len() - match &p.ip { IpHeader::V4(h) => 14 + 4 * p.eth.vlan.is_some() as usize + h.total_length as usize, IpHeader::V6(h) => 54 + 4 * p.eth.vlan.is_some() as usize + h.payload_length as usize });
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
                    0 => f[12..14].copy_from_slice(&[0x08, 0x06]), // ARP
                    1 => f[23] = 6,                              // TCP
                    2 => f[36..38].copy_from_slice(&53u16.to_be_bytes()), // UDP to another port
                    3 => f[20] |= 0x20,                          // IPv4 fragment (more fragments)
                    _ => f[47..50].copy_from_slice(&[0, 0, 1]),  // RoCE to QP1
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
