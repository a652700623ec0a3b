//! IPv6 fixed header (RFC 8200). Extension headers are not modelled: RoCEv2
//! senders do not emit them, so a next header other than UDP is "not RoCE".

use std::net::Ipv6Addr;

use crate::bytes::{be_u16, be_u32, check_bits, require};
use crate::error::{DecodeError, EncodeError, Layer};
use crate::ip::{Ecn, IP_PROTOCOL_UDP};

/// The 40-byte IPv6 fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv6Header {
    /// DSCP, the upper 6 bits of the traffic class.
    pub dscp: u8,
    /// ECN codepoint, the lower 2 bits of the traffic class.
    pub ecn: Ecn,
    /// Flow label, 20 bits (RoCE carries the GRH flow label here).
    pub flow_label: u32,
    /// Bytes after this header. Derived by [`crate::encode_frame`].
    pub payload_length: u16,
    /// Next header. Derived (17, UDP) by [`crate::encode_frame`].
    pub next_header: u8,
    /// Hop limit.
    pub hop_limit: u8,
    /// Source address (the sender's GID).
    pub src: Ipv6Addr,
    /// Destination address (the receiver's GID).
    pub dst: Ipv6Addr,
}

impl Ipv6Header {
    /// Length of the fixed header.
    pub const LEN: usize = 40;

    /// A UDP header from `src` to `dst` with hop limit 64, traffic class 0
    /// and flow label 0; the payload length is left for the encoder.
    pub fn new(src: Ipv6Addr, dst: Ipv6Addr) -> Self {
        Ipv6Header {
            dscp: 0,
            ecn: Ecn::NotEct,
            flow_label: 0,
            payload_length: 0,
            next_header: IP_PROTOCOL_UDP,
            hop_limit: 64,
            src,
            dst,
        }
    }

    /// Traffic class byte (DSCP and ECN).
    pub fn traffic_class(&self) -> u8 {
        (self.dscp << 2) | self.ecn.bits()
    }

    /// Decodes the fixed header at the start of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        require(bytes, Self::LEN, Layer::Ipv6)?;
        let first_word = be_u32(bytes, 0);
        let version = (first_word >> 28) as u8;
        if version != 6 {
            return Err(DecodeError::IpVersionMismatch { expected: 6, found: version });
        }
        let traffic_class = (first_word >> 20) as u8;
        let mut src = [0u8; 16];
        let mut dst = [0u8; 16];
        src.copy_from_slice(&bytes[8..24]);
        dst.copy_from_slice(&bytes[24..40]);
        Ok(Ipv6Header {
            dscp: traffic_class >> 2,
            ecn: Ecn::from_bits(traffic_class),
            flow_label: first_word & 0x000F_FFFF,
            payload_length: be_u16(bytes, 4),
            next_header: bytes[6],
            hop_limit: bytes[7],
            src: Ipv6Addr::from(src),
            dst: Ipv6Addr::from(dst),
        })
    }

    /// Checks that every field fits its wire width.
    pub fn validate(&self) -> Result<(), EncodeError> {
        check_bits("ipv6.dscp", self.dscp.into(), 6)?;
        check_bits("ipv6.flow_label", self.flow_label.into(), 20)
    }

    /// Appends the header as stored.
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.validate()?;
        let first_word = (6u32 << 28) | (u32::from(self.traffic_class()) << 20) | self.flow_label;
        out.extend_from_slice(&first_word.to_be_bytes());
        out.extend_from_slice(&self.payload_length.to_be_bytes());
        out.push(self.next_header);
        out.push(self.hop_limit);
        out.extend_from_slice(&self.src.octets());
        out.extend_from_slice(&self.dst.octets());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Header of the scapy IPv6 UC_SEND_ONLY vector: TC 226, flow label 0x1face, hop limit 255.
    #[test]
    fn decodes_scapy_vector_header() {
        let bytes: Vec<u8> = [
            &[0x6e, 0x21, 0xfa, 0xce, 0x00, 0x2c, 0x11, 0xff][..],
            &[0x20, 0x22, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x23],
            &[0x20, 0x23, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x24],
        ]
        .concat();
        let header = Ipv6Header::decode(&bytes).unwrap();
        assert_eq!(header.traffic_class(), 226);
        assert_eq!(header.flow_label, 0x1face);
        assert_eq!(header.hop_limit, 255);
        assert_eq!(header.payload_length, 0x2c);
        let mut encoded = Vec::new();
        header.encode_into(&mut encoded).unwrap();
        assert_eq!(encoded, bytes);
    }
}
