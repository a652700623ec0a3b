//! Whole frames: [`decode_frame`], [`encode_frame`] and the [`RocePacket`]
//! they exchange.

use crate::bth::Bth;
use crate::bytes::require;
use crate::error::{DecodeError, EncodeError, Layer, NotRoceReason};
use crate::eth::{EthernetHeader, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use crate::ext::ExtHeaders;
use crate::icrc::{icrc_of_ip_packet, ICRC_LEN};
use crate::ip::{IpHeader, IP_PROTOCOL_UDP};
use crate::ipv4::Ipv4Header;
use crate::ipv6::Ipv6Header;
use crate::opcode::Opcode;
use crate::udp::{UdpHeader, ROCE_V2_UDP_PORT};

/// A decoded (or to-be-encoded) RoCEv2 packet.
///
/// Decoding fills every field from the wire. Some fields are *derived*:
/// [`encode_frame`] recomputes them rather than trusting the stored value
/// (they are marked "Derived" in their own docs): EtherType, IP lengths,
/// protocol and checksum, UDP destination port, length and checksum, BTH pad
/// count, and the ICRC. [`encode_frame_verbatim`] writes every field as
/// stored, for crafting malformed frames.
///
/// The pad bytes themselves are not stored: senders zero them, and the
/// decoder checks the ICRC against the bytes as received.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RocePacket {
    /// Ethernet header and optional VLAN tag.
    pub eth: EthernetHeader,
    /// IPv4 or IPv6 header.
    pub ip: IpHeader,
    /// UDP header.
    pub udp: UdpHeader,
    /// Base transport header; `bth.pad_count` is the number of pad bytes.
    pub bth: Bth,
    /// Extended headers; their layout always matches `bth.opcode` after decoding.
    pub ext: ExtHeaders,
    /// Payload, excluding pad.
    pub payload: Vec<u8>,
    /// ICRC as carried (the value, i.e. the little-endian reading of the
    /// trailer bytes). Derived by [`encode_frame`].
    pub icrc: u32,
    /// True if `icrc` matched the contents when decoded. [`encode_frame`]
    /// always produces a matching ICRC.
    pub icrc_ok: bool,
}

impl RocePacket {
    /// A packet from the fields a sender chooses; derived fields are
    /// placeholders until [`encode_frame`] or [`RocePacket::finalize`].
    pub fn new(
        eth: EthernetHeader,
        ip: IpHeader,
        udp_src_port: u16,
        bth: Bth,
        ext: ExtHeaders,
        payload: Vec<u8>,
    ) -> Self {
        RocePacket { eth, ip, udp: UdpHeader::roce(udp_src_port), bth, ext, payload, icrc: 0, icrc_ok: false }
    }

    /// The opcode.
    pub fn opcode(&self) -> Opcode {
        self.bth.opcode
    }

    /// Bytes of the encoded frame (no FCS).
    pub fn wire_len(&self) -> usize {
        self.eth.header_len() + self.ip.header_len() + self.udp_len()
    }

    /// True if the IPv4 header checksum is correct (always true for IPv6,
    /// which has none). Decoding accepts bad checksums so tests can see them.
    pub fn ip_checksum_ok(&self) -> bool {
        match &self.ip {
            IpHeader::V4(header) => header.checksum_is_valid(),
            IpHeader::V6(_) => true,
        }
    }

    /// Pad bytes that align this payload to 4 bytes.
    pub fn canonical_pad_count(&self) -> u8 {
        (self.payload.len().wrapping_neg() & 3) as u8
    }

    /// UDP length: header, BTH, extended headers, payload, pad and ICRC.
    fn udp_len(&self) -> usize {
        UdpHeader::LEN + Bth::LEN + self.ext.len() + self.payload.len() + usize::from(self.bth.pad_count) + ICRC_LEN
    }

    /// Recomputes every derived field so the packet describes a valid frame.
    pub fn finalize(&mut self) -> Result<(), EncodeError> {
        self.finalize_and_encode().map(|_| ())
    }

    /// [`RocePacket::finalize`] by value.
    pub fn finalized(mut self) -> Result<Self, EncodeError> {
        self.finalize()?;
        Ok(self)
    }

    fn finalize_and_encode(&mut self) -> Result<Vec<u8>, EncodeError> {
        self.bth.pad_count = self.canonical_pad_count();
        let udp_len = self.udp_len();
        self.udp.dst_port = ROCE_V2_UDP_PORT;
        self.udp.length = u16::try_from(udp_len).map_err(|_| EncodeError::TooLong { len: udp_len })?;
        self.udp.checksum = 0;
        match &mut self.ip {
            IpHeader::V4(header) => {
                header.validate()?;
                let total = header.header_len() + udp_len;
                header.total_length = u16::try_from(total).map_err(|_| EncodeError::TooLong { len: total })?;
                header.protocol = IP_PROTOCOL_UDP;
                header.header_checksum = header.compute_checksum();
                self.eth.ethertype = ETHERTYPE_IPV4;
            }
            IpHeader::V6(header) => {
                header.payload_length = self.udp.length;
                header.next_header = IP_PROTOCOL_UDP;
                self.eth.ethertype = ETHERTYPE_IPV6;
            }
        }
        let mut frame = encode_frame_verbatim(self)?;
        let ip_start = self.eth.header_len();
        let icrc_at = frame.len() - ICRC_LEN;
        let icrc = icrc_of_ip_packet(self.ip.version(), &frame[ip_start..icrc_at])
            .expect("a frame this crate encoded has complete headers");
        frame[icrc_at..].copy_from_slice(&icrc.to_le_bytes());
        self.icrc = icrc;
        self.icrc_ok = true;
        Ok(frame)
    }
}

/// Encodes a packet as an Ethernet frame without FCS, recomputing the
/// derived fields (see [`RocePacket`]): lengths, IPv4 checksum, UDP checksum
/// 0, BTH pad count, zeroed pad bytes and the ICRC.
pub fn encode_frame(packet: &RocePacket) -> Result<Vec<u8>, EncodeError> {
    packet.clone().finalize_and_encode()
}

/// Encodes a packet with every field exactly as stored (lengths, checksums,
/// pad count, ICRC), so tests can build malformed frames. The extended
/// headers must still match the opcode, and opcodes without payload must
/// have none. Pad bytes are zero.
pub fn encode_frame_verbatim(packet: &RocePacket) -> Result<Vec<u8>, EncodeError> {
    let opcode = packet.bth.opcode;
    if packet.ext.layout() != opcode.layout() {
        return Err(EncodeError::ExtHeadersMismatch { opcode, expected: opcode.layout(), found: packet.ext.layout() });
    }
    if !opcode.carries_payload() && !packet.payload.is_empty() {
        return Err(EncodeError::UnexpectedPayload { opcode, len: packet.payload.len() });
    }
    let mut frame = Vec::with_capacity(packet.wire_len());
    packet.eth.encode_into(&mut frame)?;
    match &packet.ip {
        IpHeader::V4(header) => header.encode_into(&mut frame)?,
        IpHeader::V6(header) => header.encode_into(&mut frame)?,
    }
    packet.udp.encode_into(&mut frame);
    packet.bth.encode_into(&mut frame)?;
    packet.ext.encode_into(&mut frame)?;
    frame.extend_from_slice(&packet.payload);
    frame.resize(frame.len() + usize::from(packet.bth.pad_count), 0);
    frame.extend_from_slice(&packet.icrc.to_le_bytes());
    Ok(frame)
}

/// Where the IP packet and UDP datagram of a RoCEv2 frame lie.
pub(crate) struct LocatedDatagram {
    pub eth: EthernetHeader,
    pub ip: IpHeader,
    pub udp: UdpHeader,
    /// Offset of the IP header in the frame.
    pub ip_start: usize,
    /// Length of the IP header.
    pub ip_header_len: usize,
    /// Offset just past the IP packet (trailing Ethernet padding excluded).
    pub ip_end: usize,
}

/// Parses Ethernet, IP and UDP, checking the lengths agree and that this is
/// UDP to port 4791. Shared by the decoder and the ICRC functions.
pub(crate) fn locate_datagram(frame: &[u8]) -> Result<LocatedDatagram, DecodeError> {
    let (eth, ip_start) = EthernetHeader::decode(frame)?;
    let after_eth = &frame[ip_start..];
    let (ip, ip_header_len, ip_len) = match eth.ethertype {
        ETHERTYPE_IPV4 => {
            let header = Ipv4Header::decode(after_eth)?;
            let header_len = header.header_len();
            if header.is_fragment() {
                return Err(DecodeError::NotRoce(NotRoceReason::Ipv4Fragment));
            }
            if header.protocol != IP_PROTOCOL_UDP {
                return Err(DecodeError::NotRoce(NotRoceReason::IpProtocol(header.protocol)));
            }
            let total = usize::from(header.total_length);
            if total < header_len {
                return Err(DecodeError::Ipv4TotalLengthTooSmall { total_length: header.total_length, header_len });
            }
            require(after_eth, total, Layer::Ipv4)?;
            (IpHeader::V4(header), header_len, total)
        }
        ETHERTYPE_IPV6 => {
            let header = Ipv6Header::decode(after_eth)?;
            if header.next_header != IP_PROTOCOL_UDP {
                return Err(DecodeError::NotRoce(NotRoceReason::IpProtocol(header.next_header)));
            }
            let total = Ipv6Header::LEN + usize::from(header.payload_length);
            require(after_eth, total, Layer::Ipv6)?;
            (IpHeader::V6(header), Ipv6Header::LEN, total)
        }
        other => return Err(DecodeError::NotRoce(NotRoceReason::EtherType(other))),
    };
    let ip_payload = &after_eth[ip_header_len..ip_len];
    let udp = UdpHeader::decode(ip_payload)?;
    if udp.dst_port != ROCE_V2_UDP_PORT {
        return Err(DecodeError::NotRoce(NotRoceReason::UdpDestPort(udp.dst_port)));
    }
    if usize::from(udp.length) != ip_payload.len() {
        return Err(DecodeError::UdpLengthMismatch { udp_length: udp.length, ip_payload_len: ip_payload.len() });
    }
    Ok(LocatedDatagram { eth, ip, udp, ip_start, ip_header_len, ip_end: ip_start + ip_len })
}

/// Decodes an Ethernet frame (without FCS) as a RoCEv2 packet.
///
/// Returns `Err(DecodeError::NotRoce(_))` for well-formed frames of other
/// protocols and another [`DecodeError`] for malformed ones; never panics.
/// Bytes after the IP packet (Ethernet minimum-size padding, an FCS) are
/// ignored. A wrong ICRC or IPv4 checksum is reported in the packet
/// (`icrc_ok`, [`RocePacket::ip_checksum_ok`]), not as an error, so callers
/// can inspect corrupted frames.
pub fn decode_frame(frame: &[u8]) -> Result<RocePacket, DecodeError> {
    let located = locate_datagram(frame)?;
    let udp_payload = &frame[located.ip_start + located.ip_header_len + UdpHeader::LEN..located.ip_end];
    let bth = Bth::decode(udp_payload)?;
    let opcode = bth.opcode;
    let after_bth = &udp_payload[Bth::LEN..];
    let ext = ExtHeaders::decode(opcode.layout(), after_bth)?;
    let after_ext = &after_bth[ext.len()..];
    require(after_ext, ICRC_LEN, Layer::Icrc)?;
    let (payload_and_pad, trailer) = after_ext.split_at(after_ext.len() - ICRC_LEN);
    if !opcode.carries_payload() && !payload_and_pad.is_empty() {
        return Err(DecodeError::UnexpectedPayload { opcode, len: payload_and_pad.len() });
    }
    let pad = usize::from(bth.pad_count);
    if pad > payload_and_pad.len() {
        return Err(DecodeError::PadCountExceedsPayload { pad_count: bth.pad_count, available: payload_and_pad.len() });
    }
    let payload = payload_and_pad[..payload_and_pad.len() - pad].to_vec();
    let icrc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let computed = icrc_of_ip_packet(located.ip.version(), &frame[located.ip_start..located.ip_end - ICRC_LEN])?;
    Ok(RocePacket {
        eth: located.eth,
        ip: located.ip,
        udp: located.udp,
        bth,
        ext,
        payload,
        icrc,
        icrc_ok: icrc == computed,
    })
}

/// What the NIC's receive parser (`RxParse`) makes of a frame: exactly
/// [`decode_frame`], except that a frame whose IPv4 header carries options
/// (IHL above 5) is not RoCEv2 for the hardware
/// (`NotRoceReason::Ipv4Options`): it goes whole to the raw queue, for
/// software. The parser then finds every RoCEv2 header at one of four fixed
/// offsets per (VLAN, IPv4/IPv6); no RoCEv2 sender (Linux rxe, ConnectX)
/// sets IPv4 options. The check comes where the model meets the IPv4
/// header: after the errors of a header that is cut short or has a wrong
/// version or an IHL below 5 (malformed), before the other checks.
pub fn decode_frame_rx(frame: &[u8]) -> Result<RocePacket, DecodeError> {
    let (eth, ip_start) = EthernetHeader::decode(frame)?;
    if eth.ethertype == ETHERTYPE_IPV4 && !Ipv4Header::decode(&frame[ip_start..])?.options.is_empty() {
        return Err(DecodeError::NotRoce(NotRoceReason::Ipv4Options));
    }
    decode_frame(frame)
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, Ipv6Addr};

    use super::*;
    use crate::aeth::{AckCredit, Aeth, AethKind};
    use crate::eth::{MacAddr, ETHERTYPE_ARP};
    use crate::ext::{CnpReserved, Reth};
    use crate::psn::Psn;

    fn eth() -> EthernetHeader {
        EthernetHeader::new(MacAddr([0x52, 0x54, 0, 0, 0, 2]), MacAddr([0x52, 0x54, 0, 0, 0, 1]))
    }

    fn ipv4() -> IpHeader {
        IpHeader::V4(Ipv4Header::new(Ipv4Addr::new(10, 99, 0, 1), Ipv4Addr::new(10, 99, 0, 2)))
    }

    #[test]
    fn encodes_hardware_cnp_byte_for_byte() {
        // The ConnectX-4 Lx CNP from scapy's roce.uts, rebuilt from fields.
        let mut ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 17, 1), Ipv4Addr::new(10, 0, 18, 1));
        ip.dscp = 48;
        ip.ecn = crate::ip::Ecn::Ect0;
        ip.identification = 0x718c;
        let mut bth = Bth::new(Opcode::Cnp, 0x118, Psn::new(0));
        bth.becn = true;
        let packet = RocePacket::new(
            EthernetHeader::new(
                MacAddr([0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2]),
                MacAddr([0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32]),
            ),
            IpHeader::V4(ip),
            0,
            bth,
            ExtHeaders::CnpReserved(CnpReserved::default()),
            Vec::new(),
        );
        let frame = encode_frame(&packet).unwrap();
        let expected: Vec<u8> = [
            &[0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32, 0x08, 0x00][..],
            &[0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61],
            &[0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01],
            &[0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00],
            &[0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00],
            &[0; 16],
            &[0x82, 0xfd, 0x00, 0x2a],
        ]
        .concat();
        assert_eq!(frame, expected);
        let decoded = decode_frame(&frame).unwrap();
        assert!(decoded.icrc_ok && decoded.ip_checksum_ok());
        assert_eq!(decoded.icrc, 0x2A00_FD82);
    }

    #[test]
    fn ipv4_options_go_to_software_on_receive() {
        let mut ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
        ip.options = vec![1, 1, 1, 0];
        let packet = RocePacket::new(
            eth(),
            IpHeader::V4(ip),
            0xC000,
            Bth::new(Opcode::RcSendOnly, 0x11, Psn::new(5)),
            ExtHeaders::Bare,
            vec![7; 10],
        );
        let frame = encode_frame(&packet).unwrap();
        assert!(decode_frame(&frame).is_ok(), "the model parses options");
        assert_eq!(decode_frame_rx(&frame), Err(DecodeError::NotRoce(NotRoceReason::Ipv4Options)));
        // without options, the receive path is decode_frame
        let mut plain = packet.clone();
        plain.ip = ipv4();
        let frame = encode_frame(&plain).unwrap();
        assert_eq!(decode_frame_rx(&frame), decode_frame(&frame));
        // malformed before options: an IPv4 header cut short stays malformed
        let mut cut = encode_frame(&packet).unwrap();
        cut.truncate(14 + 22);
        assert!(matches!(decode_frame_rx(&cut), Err(e) if !e.is_not_roce()));
    }

    #[test]
    fn pad_is_derived_and_zero() {
        let packet = RocePacket::new(
            eth(),
            ipv4(),
            0xC000,
            Bth::new(Opcode::RcWriteOnly, 0x11, Psn::new(5)),
            ExtHeaders::Reth(Reth { va: 0x1000, rkey: 0x42, dma_len: 5 }),
            vec![1, 2, 3, 4, 5],
        );
        let frame = encode_frame(&packet).unwrap();
        let decoded = decode_frame(&frame).unwrap();
        assert_eq!(decoded.bth.pad_count, 3);
        assert_eq!(decoded.payload, vec![1, 2, 3, 4, 5]);
        assert_eq!(&frame[frame.len() - 7..frame.len() - 4], &[0, 0, 0]);
        assert_eq!(decoded, packet.finalized().unwrap());
    }

    #[test]
    fn ipv6_with_vlan_round_trips() {
        let mut eth = eth();
        eth.vlan = Some(crate::eth::VlanTag { pcp: 3, dei: false, vid: 100 });
        let ip = IpHeader::V6(Ipv6Header::new(
            "::ffff:10.99.0.1".parse::<Ipv6Addr>().unwrap(),
            "fe80::1".parse::<Ipv6Addr>().unwrap(),
        ));
        let packet = RocePacket::new(
            eth,
            ip,
            0xC123,
            Bth::new(Opcode::RcAck, 0x13, Psn::new(0xFF_FFFF)),
            ExtHeaders::Aeth(Aeth::new(AethKind::Ack(AckCredit::UNLIMITED), 9)),
            Vec::new(),
        );
        let frame = encode_frame(&packet).unwrap();
        assert_eq!(frame.len(), 18 + 40 + 8 + 12 + 4 + 4);
        assert_eq!(decode_frame(&frame).unwrap(), packet.finalized().unwrap());
    }

    #[test]
    fn non_roce_frames_are_classified() {
        let mut arp = vec![0xFF; 12];
        arp.extend_from_slice(&ETHERTYPE_ARP.to_be_bytes());
        arp.extend_from_slice(&[0; 28]);
        assert_eq!(decode_frame(&arp), Err(DecodeError::NotRoce(NotRoceReason::EtherType(ETHERTYPE_ARP))));

        let packet = RocePacket::new(
            eth(),
            ipv4(),
            0xC000,
            Bth::new(Opcode::RcSendOnly, 0x11, Psn::new(0)),
            ExtHeaders::Bare,
            vec![0; 8],
        );
        let frame = encode_frame(&packet).unwrap();
        let mut other_port = frame.clone();
        other_port[14 + 20 + 2..14 + 20 + 4].copy_from_slice(&53u16.to_be_bytes());
        assert_eq!(decode_frame(&other_port), Err(DecodeError::NotRoce(NotRoceReason::UdpDestPort(53))));
        let mut tcp = frame.clone();
        tcp[14 + 9] = 6;
        assert_eq!(decode_frame(&tcp), Err(DecodeError::NotRoce(NotRoceReason::IpProtocol(6))));
        assert!(decode_frame(&tcp).unwrap_err().is_not_roce());
    }

    #[test]
    fn trailing_ethernet_padding_is_ignored() {
        let packet = RocePacket::new(
            eth(),
            ipv4(),
            0xC000,
            Bth::new(Opcode::RcSendOnly, 0x11, Psn::new(0)),
            ExtHeaders::Bare,
            Vec::new(),
        );
        let mut frame = encode_frame(&packet).unwrap();
        assert_eq!(frame.len(), 58);
        frame.resize(60, 0);
        let decoded = decode_frame(&frame).unwrap();
        assert!(decoded.icrc_ok);
        assert!(crate::icrc::icrc_verify(&frame).unwrap());
    }

    #[test]
    fn structural_errors() {
        let packet = RocePacket::new(
            eth(),
            ipv4(),
            0xC000,
            Bth::new(Opcode::RcAck, 0x11, Psn::new(0)),
            ExtHeaders::Aeth(Aeth { syndrome: 0x1F, msn: 0 }),
            Vec::new(),
        );
        let frame = encode_frame(&packet).unwrap();
        // Cut inside the IP packet: the IPv4 total length no longer fits.
        assert!(matches!(
            decode_frame(&frame[..frame.len() - 1]),
            Err(DecodeError::Truncated { layer: Layer::Ipv4, .. })
        ));
        // Reserved opcode.
        let mut reserved = frame.clone();
        reserved[14 + 28] = 0x15;
        assert_eq!(decode_frame(&reserved), Err(DecodeError::UnknownOpcode(0x15)));
        // An ACK with a pad count has bytes it cannot carry... none here, so the pad exceeds them.
        let mut padded = frame.clone();
        padded[14 + 29] |= 0x10;
        assert_eq!(decode_frame(&padded), Err(DecodeError::PadCountExceedsPayload { pad_count: 1, available: 0 }));
        // Changing the opcode to SEND_ONLY leaves the AETH bytes as payload; fine.
        let mut send = frame.clone();
        send[14 + 28] = Opcode::RcSendOnly.value();
        let decoded = decode_frame(&send).unwrap();
        assert_eq!(decoded.payload.len(), 4);
        assert!(!decoded.icrc_ok);
        // Changing it to READ_REQUEST needs a 16-byte RETH that is not there.
        let mut read = frame.clone();
        read[14 + 28] = Opcode::RcReadRequest.value();
        assert!(matches!(decode_frame(&read), Err(DecodeError::Truncated { layer: Layer::ExtHeaders(_), .. })));
    }

    #[test]
    fn encode_rejects_inconsistent_packets() {
        let mut packet = RocePacket::new(
            eth(),
            ipv4(),
            0xC000,
            Bth::new(Opcode::RcAck, 0x11, Psn::new(0)),
            ExtHeaders::Bare,
            Vec::new(),
        );
        assert!(matches!(encode_frame(&packet), Err(EncodeError::ExtHeadersMismatch { .. })));
        packet.ext = ExtHeaders::Aeth(Aeth { syndrome: 0, msn: 0 });
        packet.payload = vec![1];
        assert_eq!(encode_frame(&packet), Err(EncodeError::UnexpectedPayload { opcode: Opcode::RcAck, len: 1 }));
        packet.bth.opcode = Opcode::RcReadResponseOnly;
        packet.payload = vec![0; 70_000];
        assert!(matches!(encode_frame(&packet), Err(EncodeError::TooLong { .. })));
    }
}
