//! UDP header (RFC 768). RoCEv2 is UDP destination port 4791; the source port
//! only carries flow entropy, so any value is accepted.

use crate::bytes::{be_u16, require};
use crate::error::{DecodeError, Layer};

/// IANA UDP destination port of RoCEv2.
pub const ROCE_V2_UDP_PORT: u16 = 4791;

/// A UDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UdpHeader {
    /// Source port (flow entropy for ECMP; rxe uses 0xC000 | hash).
    pub src_port: u16,
    /// Destination port. Derived (4791) by [`crate::encode_frame`].
    pub dst_port: u16,
    /// Header plus payload length. Derived by [`crate::encode_frame`].
    pub length: u16,
    /// Checksum as carried. [`crate::encode_frame`] writes 0, as rxe does
    /// over IPv4; the ICRC masks it, so it never affects RoCE integrity.
    pub checksum: u16,
}

impl UdpHeader {
    /// Header length.
    pub const LEN: usize = 8;

    /// A RoCEv2 header with the given source port; length left for the encoder.
    pub fn roce(src_port: u16) -> Self {
        UdpHeader { src_port, dst_port: ROCE_V2_UDP_PORT, length: 0, checksum: 0 }
    }

    /// Decodes the header at the start of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        require(bytes, Self::LEN, Layer::Udp)?;
        Ok(UdpHeader {
            src_port: be_u16(bytes, 0),
            dst_port: be_u16(bytes, 2),
            length: be_u16(bytes, 4),
            checksum: be_u16(bytes, 6),
        })
    }

    /// Appends the header as stored.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.src_port.to_be_bytes());
        out.extend_from_slice(&self.dst_port.to_be_bytes());
        out.extend_from_slice(&self.length.to_be_bytes());
        out.extend_from_slice(&self.checksum.to_be_bytes());
    }
}
