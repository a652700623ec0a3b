//! What IPv4 and IPv6 have in common for RoCEv2: the ECN codepoint and a
//! version-tagged header.

use crate::ipv4::Ipv4Header;
use crate::ipv6::Ipv6Header;

/// IP protocol number / IPv6 next header of UDP.
pub const IP_PROTOCOL_UDP: u8 = 17;

/// ECN codepoint (RFC 3168), the low 2 bits of TOS / traffic class.
/// Switches mark `Ce`; the receiver answers with a CNP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Ecn {
    /// 00: not ECN-capable transport.
    #[default]
    NotEct,
    /// 01: ECN-capable transport (1).
    Ect1,
    /// 10: ECN-capable transport (0).
    Ect0,
    /// 11: congestion experienced.
    Ce,
}

impl Ecn {
    /// The codepoint from the low 2 bits of `bits`.
    pub fn from_bits(bits: u8) -> Self {
        match bits & 3 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// The 2-bit codepoint.
    pub fn bits(self) -> u8 {
        match self {
            Ecn::NotEct => 0,
            Ecn::Ect1 => 1,
            Ecn::Ect0 => 2,
            Ecn::Ce => 3,
        }
    }
}

/// The network header of a RoCEv2 packet.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IpHeader {
    /// IPv4 (EtherType 0x0800).
    V4(Ipv4Header),
    /// IPv6 (EtherType 0x86DD).
    V6(Ipv6Header),
}

impl IpHeader {
    /// Bytes the header occupies on the wire.
    pub fn header_len(&self) -> usize {
        match self {
            IpHeader::V4(h) => h.header_len(),
            IpHeader::V6(_) => Ipv6Header::LEN,
        }
    }

    /// The ECN codepoint.
    pub fn ecn(&self) -> Ecn {
        match self {
            IpHeader::V4(h) => h.ecn,
            IpHeader::V6(h) => h.ecn,
        }
    }

    /// The DSCP.
    pub fn dscp(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.dscp,
            IpHeader::V6(h) => h.dscp,
        }
    }
}

/// IP version, for code that works on raw IP bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IpVersion {
    /// IPv4.
    V4,
    /// IPv6.
    V6,
}

impl IpVersion {
    /// The version nibble.
    pub const fn number(self) -> u8 {
        match self {
            IpVersion::V4 => 4,
            IpVersion::V6 => 6,
        }
    }
}

impl IpHeader {
    /// The header's IP version.
    pub fn version(&self) -> IpVersion {
        match self {
            IpHeader::V4(_) => IpVersion::V4,
            IpHeader::V6(_) => IpVersion::V6,
        }
    }
}
