//! Ethernet II header with an optional single 802.1Q tag.

use std::fmt;

use crate::bytes::{be_u16, check_bits, require};
use crate::error::{DecodeError, EncodeError, Layer};

/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// EtherType of IPv6.
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
/// EtherType of ARP (never RoCE; named because it is the common neighbour).
pub const ETHERTYPE_ARP: u16 = 0x0806;
/// Tag protocol identifier of an 802.1Q VLAN tag.
pub const TPID_8021Q: u16 = 0x8100;

/// A 48-bit MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MacAddr(pub [u8; 6]);

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e, g] = self.0;
        write!(f, "{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{g:02x}")
    }
}

/// The tag control information of an 802.1Q tag (TPID 0x8100 implied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VlanTag {
    /// Priority code point, 3 bits; carries the RoCE traffic class for PFC.
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier, 12 bits.
    pub vid: u16,
}

/// Ethernet II header. The frame check sequence is not part of the model:
/// captures and the MAC interface carry frames without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EthernetHeader {
    /// Destination MAC.
    pub dst: MacAddr,
    /// Source MAC.
    pub src: MacAddr,
    /// The single 802.1Q tag, if present.
    pub vlan: Option<VlanTag>,
    /// EtherType of the payload (after the tag, if any).
    /// Derived by [`crate::encode_frame`] from the IP version.
    pub ethertype: u16,
}

impl EthernetHeader {
    /// Length without a VLAN tag.
    pub const UNTAGGED_LEN: usize = 14;
    /// Length of an 802.1Q tag.
    pub const VLAN_TAG_LEN: usize = 4;

    /// An untagged header; the EtherType is filled in when the frame is encoded.
    pub fn new(dst: MacAddr, src: MacAddr) -> Self {
        EthernetHeader { dst, src, vlan: None, ethertype: ETHERTYPE_IPV4 }
    }

    /// Bytes this header occupies on the wire.
    pub fn header_len(&self) -> usize {
        Self::UNTAGGED_LEN + if self.vlan.is_some() { Self::VLAN_TAG_LEN } else { 0 }
    }

    /// Decodes the header at the start of `frame`; returns it and its length.
    /// A second tag (QinQ) is left in `ethertype` for the caller to reject.
    pub fn decode(frame: &[u8]) -> Result<(Self, usize), DecodeError> {
        require(frame, Self::UNTAGGED_LEN, Layer::Ethernet)?;
        let mut dst = [0u8; 6];
        let mut src = [0u8; 6];
        dst.copy_from_slice(&frame[0..6]);
        src.copy_from_slice(&frame[6..12]);
        let first_type = be_u16(frame, 12);
        if first_type != TPID_8021Q {
            let header = EthernetHeader { dst: MacAddr(dst), src: MacAddr(src), vlan: None, ethertype: first_type };
            return Ok((header, Self::UNTAGGED_LEN));
        }
        let tagged_len = Self::UNTAGGED_LEN + Self::VLAN_TAG_LEN;
        require(frame, tagged_len, Layer::Vlan)?;
        let tci = be_u16(frame, 14);
        let vlan = VlanTag { pcp: (tci >> 13) as u8, dei: tci & 0x1000 != 0, vid: tci & 0x0FFF };
        let header =
            EthernetHeader { dst: MacAddr(dst), src: MacAddr(src), vlan: Some(vlan), ethertype: be_u16(frame, 16) };
        Ok((header, tagged_len))
    }

    /// Appends the header as stored.
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.extend_from_slice(&self.dst.0);
        out.extend_from_slice(&self.src.0);
        if let Some(tag) = self.vlan {
            check_bits("vlan.pcp", tag.pcp.into(), 3)?;
            check_bits("vlan.vid", tag.vid.into(), 12)?;
            let tci = (u16::from(tag.pcp) << 13) | (u16::from(tag.dei) << 12) | tag.vid;
            out.extend_from_slice(&TPID_8021Q.to_be_bytes());
            out.extend_from_slice(&tci.to_be_bytes());
        }
        out.extend_from_slice(&self.ethertype.to_be_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vlan_tag_round_trips() {
        let header = EthernetHeader {
            dst: MacAddr([1, 2, 3, 4, 5, 6]),
            src: MacAddr([7, 8, 9, 10, 11, 12]),
            vlan: Some(VlanTag { pcp: 5, dei: true, vid: 0xABC }),
            ethertype: ETHERTYPE_IPV6,
        };
        let mut bytes = Vec::new();
        header.encode_into(&mut bytes).unwrap();
        assert_eq!(&bytes[12..18], &[0x81, 0x00, 0xBA, 0xBC, 0x86, 0xDD]);
        assert_eq!(EthernetHeader::decode(&bytes).unwrap(), (header, 18));
    }

    #[test]
    fn truncated_tag_is_an_error() {
        let mut bytes = vec![0u8; 12];
        bytes.extend_from_slice(&[0x81, 0x00, 0x00]);
        assert!(matches!(EthernetHeader::decode(&bytes), Err(DecodeError::Truncated { layer: Layer::Vlan, .. })));
    }
}
