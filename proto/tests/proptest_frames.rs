//! Property tests: decoding never panics, encode→decode round-trips every
//! opcode and header combination, and the ICRC masks exactly the variant
//! fields.

use std::net::{Ipv4Addr, Ipv6Addr};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use rnic_proto::{
    decode_frame, encode_frame, encode_frame_verbatim, icrc_compute, icrc_verify, AtomicAckEth, AtomicEth, Bth,
    CnpReserved, Deth, Ecn, EthernetHeader, ExtHeaders, HeaderLayout, Ieth, ImmDt, IpHeader, Ipv4Header, Ipv6Header,
    MacAddr, Opcode, Psn, Reth, RocePacket, VlanTag,
};

fn config() -> ProptestConfig {
    ProptestConfig { cases: 1000, ..ProptestConfig::default() }
}

fn arb_ecn() -> impl Strategy<Value = Ecn> {
    (0u8..4).prop_map(Ecn::from_bits)
}

fn arb_eth() -> impl Strategy<Value = EthernetHeader> {
    let vlan =
        proptest::option::of((0u8..8, any::<bool>(), 0u16..4096).prop_map(|(pcp, dei, vid)| VlanTag { pcp, dei, vid }));
    (any::<[u8; 6]>(), any::<[u8; 6]>(), vlan)
        .prop_map(|(dst, src, vlan)| EthernetHeader { vlan, ..EthernetHeader::new(MacAddr(dst), MacAddr(src)) })
}

fn arb_ipv4() -> impl Strategy<Value = Ipv4Header> {
    (
        (0u8..64, arb_ecn(), any::<u16>(), any::<bool>(), any::<bool>(), any::<u8>()),
        (any::<u32>(), any::<u32>(), (0usize..=10).prop_flat_map(|words| vec(any::<u8>(), words * 4))),
    )
        .prop_map(|((dscp, ecn, identification, reserved_flag, dont_fragment, ttl), (src, dst, options))| {
            Ipv4Header {
                dscp,
                ecn,
                identification,
                reserved_flag,
                dont_fragment,
                ttl,
                options,
                ..Ipv4Header::new(Ipv4Addr::from(src), Ipv4Addr::from(dst))
            }
        })
}

fn arb_ipv6() -> impl Strategy<Value = Ipv6Header> {
    (0u8..64, arb_ecn(), 0u32..(1 << 20), any::<u8>(), any::<[u8; 16]>(), any::<[u8; 16]>()).prop_map(
        |(dscp, ecn, flow_label, hop_limit, src, dst)| Ipv6Header {
            dscp,
            ecn,
            flow_label,
            hop_limit,
            ..Ipv6Header::new(Ipv6Addr::from(src), Ipv6Addr::from(dst))
        },
    )
}

fn arb_ip() -> impl Strategy<Value = IpHeader> {
    prop_oneof![arb_ipv4().prop_map(IpHeader::V4), arb_ipv6().prop_map(IpHeader::V6)]
}

fn arb_bth(opcode: Opcode) -> impl Strategy<Value = Bth> {
    (
        (any::<bool>(), any::<bool>(), any::<u16>(), any::<bool>(), any::<bool>(), 0u8..64),
        (0u32..(1 << 24), any::<bool>(), 0u8..128, any::<u32>()),
    )
        .prop_map(move |((se, m, pkey, fecn, becn, resv6a), (dest_qp, ack_req, resv7, psn))| Bth {
            solicited_event: se,
            mig_req: m,
            pkey,
            fecn,
            becn,
            resv6a,
            ack_req,
            resv7,
            ..Bth::new(opcode, dest_qp, Psn::new(psn))
        })
}

fn arb_reth() -> impl Strategy<Value = Reth> {
    (any::<u64>(), any::<u32>(), any::<u32>()).prop_map(|(va, rkey, dma_len)| Reth { va, rkey, dma_len })
}

fn arb_imm() -> impl Strategy<Value = ImmDt> {
    any::<u32>().prop_map(|value| ImmDt { value })
}

fn arb_aeth() -> impl Strategy<Value = rnic_proto::Aeth> {
    (any::<u8>(), 0u32..(1 << 24)).prop_map(|(syndrome, msn)| rnic_proto::Aeth { syndrome, msn })
}

fn arb_deth() -> impl Strategy<Value = Deth> {
    (any::<u32>(), any::<u8>(), 0u32..(1 << 24)).prop_map(|(qkey, reserved, src_qp)| Deth { qkey, reserved, src_qp })
}

fn arb_ext(layout: HeaderLayout) -> BoxedStrategy<ExtHeaders> {
    match layout {
        HeaderLayout::Bare => Just(ExtHeaders::Bare).boxed(),
        HeaderLayout::ImmDt => arb_imm().prop_map(ExtHeaders::ImmDt).boxed(),
        HeaderLayout::Reth => arb_reth().prop_map(ExtHeaders::Reth).boxed(),
        HeaderLayout::RethImmDt => (arb_reth(), arb_imm()).prop_map(|(r, i)| ExtHeaders::RethImmDt(r, i)).boxed(),
        HeaderLayout::Aeth => arb_aeth().prop_map(ExtHeaders::Aeth).boxed(),
        HeaderLayout::AethAtomicAckEth => (arb_aeth(), any::<u64>())
            .prop_map(|(a, orig_remote_data)| ExtHeaders::AethAtomicAckEth(a, AtomicAckEth { orig_remote_data }))
            .boxed(),
        HeaderLayout::AtomicEth => (any::<u64>(), any::<u32>(), any::<u64>(), any::<u64>())
            .prop_map(|(va, rkey, swap_add, compare)| ExtHeaders::AtomicEth(AtomicEth { va, rkey, swap_add, compare }))
            .boxed(),
        HeaderLayout::Ieth => any::<u32>().prop_map(|rkey| ExtHeaders::Ieth(Ieth { rkey })).boxed(),
        HeaderLayout::Deth => arb_deth().prop_map(ExtHeaders::Deth).boxed(),
        HeaderLayout::DethImmDt => (arb_deth(), arb_imm()).prop_map(|(d, i)| ExtHeaders::DethImmDt(d, i)).boxed(),
        HeaderLayout::CnpReserved => {
            any::<[u8; 16]>().prop_map(|bytes| ExtHeaders::CnpReserved(CnpReserved { bytes })).boxed()
        }
    }
}

/// A valid packet of any modelled opcode, IPv4 or IPv6, tagged or not.
fn arb_packet() -> impl Strategy<Value = RocePacket> {
    select(Opcode::ALL).prop_flat_map(|opcode| {
        let payload =
            if opcode.carries_payload() { vec(any::<u8>(), 0..=300).boxed() } else { Just(Vec::new()).boxed() };
        (arb_eth(), arb_ip(), any::<u16>(), arb_bth(opcode), arb_ext(opcode.layout()), payload)
            .prop_map(|(eth, ip, src_port, bth, ext, payload)| RocePacket::new(eth, ip, src_port, bth, ext, payload))
    })
}

/// Offsets (in the frame) of the bytes the ICRC masks, and of the IP start.
fn masked_offsets(packet: &RocePacket) -> (usize, Vec<usize>) {
    let ip = packet.eth.header_len();
    let udp = ip + packet.ip.header_len();
    let mut masked = match packet.ip {
        IpHeader::V4(_) => vec![ip + 1, ip + 8, ip + 10, ip + 11],
        IpHeader::V6(_) => vec![ip, ip + 1, ip + 2, ip + 3, ip + 7],
    };
    masked.extend([udp + 6, udp + 7, udp + 8 + 4]);
    (ip, masked)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..256)) {
        let _ = decode_frame(&bytes);
        let _ = icrc_compute(&bytes);
        let _ = icrc_verify(&bytes);
    }

    /// Random bytes behind a plausible Ethernet/IP prefix reach the deeper layers.
    #[test]
    fn bytes_behind_valid_prefixes_never_panic(
        v6 in any::<bool>(),
        vlan in any::<bool>(),
        tail in vec(any::<u8>(), 0..200),
    ) {
        let mut frame = vec![0u8; 12];
        if vlan {
            frame.extend_from_slice(&[0x81, 0x00, 0x00, 0x05]);
        }
        if v6 {
            frame.extend_from_slice(&[0x86, 0xDD, 0x60, 0, 0, 0]);
            frame.extend_from_slice(&(tail.len().saturating_sub(36) as u16).to_be_bytes());
            frame.extend_from_slice(&[17, 64]);
        } else {
            frame.extend_from_slice(&[0x08, 0x00, 0x45, 0]);
            frame.extend_from_slice(&((tail.len() + 8) as u16).to_be_bytes());
            frame.extend_from_slice(&[0, 0, 0x40, 0, 64, 17]);
        }
        frame.extend_from_slice(&tail);
        let _ = decode_frame(&frame);
        let _ = icrc_verify(&frame);
    }

    #[test]
    fn mutated_and_truncated_valid_frames_never_panic(
        packet in arb_packet(),
        flips in vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
        extra in vec(any::<u8>(), 0..8),
    ) {
        let mut frame = encode_frame(&packet).unwrap();
        for (index, value) in flips {
            let at = index.index(frame.len());
            frame[at] = value;
        }
        let _ = decode_frame(&frame);
        let _ = icrc_verify(&frame);
        let truncated = &frame[..cut.index(frame.len() + 1)];
        let _ = decode_frame(truncated);
        let _ = icrc_verify(truncated);
        frame.extend_from_slice(&extra);
        if let Ok(decoded) = decode_frame(&frame) {
            // Whatever decodes can be re-encoded.
            let _ = encode_frame_verbatim(&decoded);
        }
    }

    #[test]
    fn encode_then_decode_round_trips(packet in arb_packet()) {
        let frame = encode_frame(&packet).unwrap();
        let expected = packet.clone().finalized().unwrap();
        prop_assert_eq!(frame.len(), expected.wire_len());
        let decoded = decode_frame(&frame).unwrap();
        prop_assert!(decoded.icrc_ok);
        prop_assert!(decoded.ip_checksum_ok());
        prop_assert_eq!(icrc_verify(&frame), Ok(true));
        prop_assert_eq!(usize::from(decoded.bth.pad_count), decoded.payload.len().wrapping_neg() & 3);
        prop_assert_eq!(&decoded, &expected);
        // The chosen fields survive untouched.
        prop_assert_eq!(decoded.ext, packet.ext);
        prop_assert_eq!(&decoded.payload, &packet.payload);
        prop_assert_eq!(decoded.eth.vlan, packet.eth.vlan);
        prop_assert_eq!(decoded.udp.src_port, packet.udp.src_port);
        // Re-encoding the decoded packet is byte-exact, both ways.
        prop_assert_eq!(&encode_frame(&decoded).unwrap(), &frame);
        prop_assert_eq!(&encode_frame_verbatim(&decoded).unwrap(), &frame);
    }

    /// Switches may rewrite DSCP/ECN, TTL/hop limit, flow label, checksums
    /// and FECN/BECN; none of that may break the ICRC.
    #[test]
    fn rewriting_masked_fields_keeps_the_icrc_valid(
        packet in arb_packet(),
        values in vec(any::<u8>(), 8),
    ) {
        let mut frame = encode_frame(&packet).unwrap();
        let (_, masked) = masked_offsets(&packet);
        for (&at, &value) in masked.iter().zip(&values) {
            // Keep the IPv6 version nibble intact; only its traffic-class half is variant.
            frame[at] = if at == packet.eth.header_len() && matches!(packet.ip, IpHeader::V6(_)) {
                0x60 | (value & 0x0F)
            } else {
                value
            };
        }
        let decoded = decode_frame(&frame).unwrap();
        prop_assert!(decoded.icrc_ok);
        prop_assert_eq!(icrc_verify(&frame), Ok(true));
    }

    /// Any single changed byte the ICRC covers is rejected or flagged.
    #[test]
    fn corrupting_a_covered_byte_is_detected(
        packet in arb_packet(),
        index in any::<prop::sample::Index>(),
        delta in 1u8..=255,
    ) {
        let mut frame = encode_frame(&packet).unwrap();
        let (ip_start, masked) = masked_offsets(&packet);
        let covered: Vec<usize> = (ip_start..frame.len()).filter(|at| !masked.contains(at)).collect();
        let at = covered[index.index(covered.len())];
        frame[at] ^= delta;
        if let Ok(decoded) = decode_frame(&frame) {
            prop_assert!(!decoded.icrc_ok, "change at byte {} went undetected", at);
        }
    }

    /// The Ethernet header is outside the ICRC.
    #[test]
    fn ethernet_addresses_are_not_covered(packet in arb_packet(), dst in any::<[u8; 6]>()) {
        let mut frame = encode_frame(&packet).unwrap();
        frame[..6].copy_from_slice(&dst);
        let decoded = decode_frame(&frame).unwrap();
        prop_assert!(decoded.icrc_ok);
        prop_assert_eq!(decoded.eth.dst, MacAddr(dst));
    }
}
