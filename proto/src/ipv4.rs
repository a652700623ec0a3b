//! IPv4 header (RFC 791), options allowed, with the header checksum.

use std::net::Ipv4Addr;

use crate::bytes::{be_u16, check_bits, require};
use crate::error::{DecodeError, EncodeError, Layer};
use crate::ip::{Ecn, IP_PROTOCOL_UDP};

/// An IPv4 header holding every wire field, so a decoded header re-encodes
/// to the same bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ipv4Header {
    /// Differentiated services codepoint, 6 bits (RoCE maps the GRH traffic class here).
    pub dscp: u8,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// Header plus payload length. Derived by [`crate::encode_frame`].
    pub total_length: u16,
    /// Identification.
    pub identification: u16,
    /// The reserved flag bit (must be zero; kept so nothing is lost).
    pub reserved_flag: bool,
    /// DF; rxe sets it on every RoCE packet.
    pub dont_fragment: bool,
    /// MF.
    pub more_fragments: bool,
    /// Fragment offset in 8-byte units, 13 bits.
    pub fragment_offset: u16,
    /// Time to live.
    pub ttl: u8,
    /// Payload protocol. Derived (17, UDP) by [`crate::encode_frame`].
    pub protocol: u8,
    /// Header checksum as carried. Derived by [`crate::encode_frame`].
    pub header_checksum: u16,
    /// Source address.
    pub src: Ipv4Addr,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// Option bytes (IHL beyond 5), a multiple of 4 up to 40.
    pub options: Vec<u8>,
}

impl Ipv4Header {
    /// Length of a header without options.
    pub const MIN_LEN: usize = 20;
    /// Longest options field (IHL 15).
    pub const MAX_OPTIONS_LEN: usize = 40;

    /// A UDP header from `src` to `dst` as rxe sends it: DF set, TTL 64,
    /// DSCP 0, not ECN-capable. Lengths and checksum are left for the encoder.
    pub fn new(src: Ipv4Addr, dst: Ipv4Addr) -> Self {
        Ipv4Header {
            dscp: 0,
            ecn: Ecn::NotEct,
            total_length: 0,
            identification: 0,
            reserved_flag: false,
            dont_fragment: true,
            more_fragments: false,
            fragment_offset: 0,
            ttl: 64,
            protocol: IP_PROTOCOL_UDP,
            header_checksum: 0,
            src,
            dst,
            options: Vec::new(),
        }
    }

    /// Bytes the header occupies (20 plus options).
    pub fn header_len(&self) -> usize {
        Self::MIN_LEN + self.options.len()
    }

    /// True if this header describes a fragment (MF set or a non-zero offset).
    pub fn is_fragment(&self) -> bool {
        self.more_fragments || self.fragment_offset != 0
    }

    /// Decodes the header (not the payload) at the start of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        require(bytes, Self::MIN_LEN, Layer::Ipv4)?;
        let version = bytes[0] >> 4;
        if version != 4 {
            return Err(DecodeError::IpVersionMismatch { expected: 4, found: version });
        }
        let ihl = bytes[0] & 0x0F;
        if ihl < 5 {
            return Err(DecodeError::Ipv4HeaderLengthTooSmall { ihl });
        }
        let header_len = usize::from(ihl) * 4;
        require(bytes, header_len, Layer::Ipv4)?;
        let flags_fragment = be_u16(bytes, 6);
        Ok(Ipv4Header {
            dscp: bytes[1] >> 2,
            ecn: Ecn::from_bits(bytes[1]),
            total_length: be_u16(bytes, 2),
            identification: be_u16(bytes, 4),
            reserved_flag: flags_fragment & 0x8000 != 0,
            dont_fragment: flags_fragment & 0x4000 != 0,
            more_fragments: flags_fragment & 0x2000 != 0,
            fragment_offset: flags_fragment & 0x1FFF,
            ttl: bytes[8],
            protocol: bytes[9],
            header_checksum: be_u16(bytes, 10),
            src: Ipv4Addr::new(bytes[12], bytes[13], bytes[14], bytes[15]),
            dst: Ipv4Addr::new(bytes[16], bytes[17], bytes[18], bytes[19]),
            options: bytes[Self::MIN_LEN..header_len].to_vec(),
        })
    }

    /// Checks that every field fits its wire width.
    pub fn validate(&self) -> Result<(), EncodeError> {
        check_bits("ipv4.dscp", self.dscp.into(), 6)?;
        check_bits("ipv4.fragment_offset", self.fragment_offset.into(), 13)?;
        if self.options.len() & 3 != 0 || self.options.len() > Self::MAX_OPTIONS_LEN {
            return Err(EncodeError::InvalidIpv4Options { len: self.options.len() });
        }
        Ok(())
    }

    /// Appends the header exactly as stored (checksum included).
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.validate()?;
        self.write_with_checksum(out, self.header_checksum);
        Ok(())
    }

    /// The checksum this header should carry: the ones' complement of the
    /// ones' complement sum of the header with the checksum field zeroed.
    pub fn compute_checksum(&self) -> u16 {
        let mut header = Vec::with_capacity(self.header_len());
        self.write_with_checksum(&mut header, 0);
        internet_checksum(&header)
    }

    /// True if the stored checksum matches the header contents.
    pub fn checksum_is_valid(&self) -> bool {
        self.compute_checksum() == self.header_checksum
    }

    fn write_with_checksum(&self, out: &mut Vec<u8>, checksum: u16) {
        let ihl = (self.header_len() / 4) as u8;
        let flags_fragment = (u16::from(self.reserved_flag) << 15)
            | (u16::from(self.dont_fragment) << 14)
            | (u16::from(self.more_fragments) << 13)
            | (self.fragment_offset & 0x1FFF);
        out.push(0x40 | (ihl & 0x0F));
        out.push((self.dscp << 2) | self.ecn.bits());
        out.extend_from_slice(&self.total_length.to_be_bytes());
        out.extend_from_slice(&self.identification.to_be_bytes());
        out.extend_from_slice(&flags_fragment.to_be_bytes());
        out.push(self.ttl);
        out.push(self.protocol);
        out.extend_from_slice(&checksum.to_be_bytes());
        out.extend_from_slice(&self.src.octets());
        out.extend_from_slice(&self.dst.octets());
        out.extend_from_slice(&self.options);
    }
}

/// RFC 1071 Internet checksum of `bytes` (an odd trailing byte is padded with zero).
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in bytes.chunks(2) {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        sum += u32::from(word);
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scapy contrib/roce.uts "RoCE layer" frame: the IPv4 checksum is 0xb4d5.
    #[test]
    fn checksum_matches_scapy_vector() {
        let header: [u8; 20] = [
            0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0xb4, 0xd5, 0xc0, 0xa8, 0x00, 0x07, 0xc0, 0xa8,
            0x00, 0x07,
        ];
        let decoded = Ipv4Header::decode(&header).unwrap();
        assert_eq!(decoded.header_checksum, 0xb4d5);
        assert_eq!(decoded.compute_checksum(), 0xb4d5);
        assert!(decoded.checksum_is_valid());
        assert_eq!(decoded.ecn, Ecn::Ect1);
        assert!(decoded.dont_fragment);
        let mut encoded = Vec::new();
        decoded.encode_into(&mut encoded).unwrap();
        assert_eq!(encoded, header);
        // A correct header sums to zero including its checksum.
        assert_eq!(internet_checksum(&header), 0);
    }

    #[test]
    fn options_follow_ihl() {
        let mut header = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
        header.options = vec![1, 1, 1, 0];
        let mut bytes = Vec::new();
        header.encode_into(&mut bytes).unwrap();
        assert_eq!(bytes[0], 0x46);
        assert_eq!(Ipv4Header::decode(&bytes).unwrap().options, vec![1, 1, 1, 0]);
        header.options = vec![0; 3];
        assert_eq!(header.validate(), Err(EncodeError::InvalidIpv4Options { len: 3 }));
    }

    #[test]
    fn short_ihl_is_rejected() {
        let mut bytes = [0u8; 20];
        bytes[0] = 0x44;
        assert_eq!(Ipv4Header::decode(&bytes), Err(DecodeError::Ipv4HeaderLengthTooSmall { ihl: 4 }));
    }
}
