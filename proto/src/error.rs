//! Typed errors for decoding and encoding frames.

use std::fmt;

use crate::opcode::{HeaderLayout, Opcode};

/// The protocol layer a decode error refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Ethernet II header (destination, source, EtherType).
    Ethernet,
    /// 802.1Q VLAN tag.
    Vlan,
    /// IPv4 header or the datagram its total length announces.
    Ipv4,
    /// IPv6 fixed header or the payload its length announces.
    Ipv6,
    /// UDP header or the datagram its length announces.
    Udp,
    /// Base Transport Header.
    Bth,
    /// The extended headers that follow the BTH for an opcode.
    ExtHeaders(HeaderLayout),
    /// The 4-byte invariant CRC trailer.
    Icrc,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layer::Ethernet => f.write_str("Ethernet header"),
            Layer::Vlan => f.write_str("802.1Q tag"),
            Layer::Ipv4 => f.write_str("IPv4"),
            Layer::Ipv6 => f.write_str("IPv6"),
            Layer::Udp => f.write_str("UDP"),
            Layer::Bth => f.write_str("BTH"),
            Layer::ExtHeaders(layout) => write!(f, "extended headers ({layout:?})"),
            Layer::Icrc => f.write_str("ICRC"),
        }
    }
}

/// Why a well-formed frame is not a RoCEv2 packet.
///
/// Kept apart from malformed-frame errors so a receive path can tell "hand to
/// the host stack" from "drop".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NotRoceReason {
    /// EtherType is neither IPv4 nor IPv6 (ARP, LLDP, a second VLAN tag, ...).
    EtherType(u16),
    /// IP protocol / IPv6 next header is not UDP (17).
    IpProtocol(u8),
    /// UDP destination port is not 4791.
    UdpDestPort(u16),
    /// The IPv4 datagram is a fragment; RoCEv2 is never fragmented (DF set).
    Ipv4Fragment,
    /// The IPv4 header carries options (IHL above 5). A well-formed RoCEv2
    /// frame, but the NIC's receive parser hands it to software (the raw
    /// queue): see [`crate::decode_frame_rx`]. [`crate::decode_frame`] itself
    /// parses options.
    Ipv4Options,
}

impl fmt::Display for NotRoceReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotRoceReason::EtherType(t) => write!(f, "EtherType 0x{t:04x} is not IPv4/IPv6"),
            NotRoceReason::IpProtocol(p) => write!(f, "IP protocol {p} is not UDP"),
            NotRoceReason::UdpDestPort(p) => write!(f, "UDP destination port {p} is not 4791"),
            NotRoceReason::Ipv4Fragment => f.write_str("IPv4 fragment"),
            NotRoceReason::Ipv4Options => f.write_str("IPv4 header with options (left to software)"),
        }
    }
}

/// Why a byte string could not be decoded as a RoCEv2 frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// A layer needs more bytes than the frame (or the enclosing length field) provides.
    Truncated {
        /// Layer being decoded.
        layer: Layer,
        /// Bytes that layer needs.
        needed: usize,
        /// Bytes available to it.
        available: usize,
    },
    /// A well-formed frame of another protocol.
    NotRoce(NotRoceReason),
    /// The IP version nibble does not match the EtherType.
    IpVersionMismatch {
        /// Version implied by the EtherType.
        expected: u8,
        /// Version nibble found.
        found: u8,
    },
    /// IPv4 IHL below 5 (a header shorter than 20 bytes).
    Ipv4HeaderLengthTooSmall {
        /// IHL field in 32-bit words.
        ihl: u8,
    },
    /// IPv4 total length smaller than its own header.
    Ipv4TotalLengthTooSmall {
        /// Total length field.
        total_length: u16,
        /// Header length from IHL.
        header_len: usize,
    },
    /// UDP length disagrees with the IP payload length.
    UdpLengthMismatch {
        /// UDP length field.
        udp_length: u16,
        /// Payload length announced by the IP header.
        ip_payload_len: usize,
    },
    /// BTH opcode is reserved or not modelled (RD, XRC, ...).
    UnknownOpcode(u8),
    /// BTH transport header version is not 0.
    UnsupportedTransportVersion(u8),
    /// BTH pad count exceeds the bytes left after the headers.
    PadCountExceedsPayload {
        /// BTH pad count.
        pad_count: u8,
        /// Bytes between the extended headers and the ICRC.
        available: usize,
    },
    /// An opcode that carries no payload (ACK, READ request, atomics, CNP) has payload bytes.
    UnexpectedPayload {
        /// The opcode.
        opcode: Opcode,
        /// Payload bytes found.
        len: usize,
    },
}

impl DecodeError {
    /// True when the frame is well formed but belongs to another protocol.
    pub fn is_not_roce(&self) -> bool {
        matches!(self, DecodeError::NotRoce(_))
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated { layer, needed, available } => {
                write!(f, "{layer} truncated: needs {needed} bytes, {available} available")
            }
            DecodeError::NotRoce(reason) => write!(f, "not a RoCEv2 frame: {reason}"),
            DecodeError::IpVersionMismatch { expected, found } => {
                write!(f, "IP version {found} where the EtherType says {expected}")
            }
            DecodeError::Ipv4HeaderLengthTooSmall { ihl } => {
                write!(f, "IPv4 IHL {ihl} is below the minimum of 5")
            }
            DecodeError::Ipv4TotalLengthTooSmall { total_length, header_len } => {
                write!(f, "IPv4 total length {total_length} is smaller than its {header_len}-byte header")
            }
            DecodeError::UdpLengthMismatch { udp_length, ip_payload_len } => {
                write!(f, "UDP length {udp_length} disagrees with IP payload length {ip_payload_len}")
            }
            DecodeError::UnknownOpcode(op) => write!(f, "unknown or reserved BTH opcode 0x{op:02x}"),
            DecodeError::UnsupportedTransportVersion(v) => {
                write!(f, "BTH transport version {v} (only 0 is defined)")
            }
            DecodeError::PadCountExceedsPayload { pad_count, available } => {
                write!(f, "BTH pad count {pad_count} exceeds the {available} bytes before the ICRC")
            }
            DecodeError::UnexpectedPayload { opcode, len } => {
                write!(f, "{opcode} carries no payload but {len} bytes follow its headers")
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why a packet could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// A field holds a value wider than its wire width.
    FieldOutOfRange {
        /// Field name, `header.field`.
        field: &'static str,
        /// Value given.
        value: u64,
        /// Largest value the field can carry.
        max: u64,
    },
    /// The extended headers given do not match the ones the opcode requires.
    ExtHeadersMismatch {
        /// The opcode.
        opcode: Opcode,
        /// Layout the opcode requires.
        expected: HeaderLayout,
        /// Layout given.
        found: HeaderLayout,
    },
    /// Payload given for an opcode that carries none.
    UnexpectedPayload {
        /// The opcode.
        opcode: Opcode,
        /// Payload bytes given.
        len: usize,
    },
    /// IPv4 options must be a multiple of 4 bytes and at most 40.
    InvalidIpv4Options {
        /// Options length given.
        len: usize,
    },
    /// The datagram does not fit the 16-bit IP/UDP length fields.
    TooLong {
        /// Bytes the length field would have to express.
        len: usize,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::FieldOutOfRange { field, value, max } => {
                write!(f, "{field} = {value:#x} exceeds its maximum {max:#x}")
            }
            EncodeError::ExtHeadersMismatch { opcode, expected, found } => {
                write!(f, "{opcode} needs extended headers {expected:?}, got {found:?}")
            }
            EncodeError::UnexpectedPayload { opcode, len } => {
                write!(f, "{opcode} carries no payload, got {len} bytes")
            }
            EncodeError::InvalidIpv4Options { len } => {
                write!(f, "IPv4 options length {len} is not a multiple of 4 up to 40")
            }
            EncodeError::TooLong { len } => {
                write!(f, "{len} bytes do not fit a 16-bit IP/UDP length field")
            }
        }
    }
}

impl std::error::Error for EncodeError {}
