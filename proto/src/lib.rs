//! Pure-Rust model of the RoCEv2 wire protocol.
//!
//! This crate is the reference ("oracle") that the RTL is tested against, so
//! it favours exact, explicit types over convenience:
//!
//! * every header is a plain struct holding every wire field, including the
//!   reserved bits, so decoding and re-encoding a frame reproduces it byte for
//!   byte ([`encode_frame_verbatim`]);
//! * [`encode_frame`] recomputes the fields a sender derives (lengths, IPv4
//!   checksum, pad count, ICRC), so tests can build packets from intent;
//! * decoding any byte string returns `Ok` or a typed [`DecodeError`]; it
//!   never panics.
//!
//! Layout: `Ethernet [802.1Q] | IPv4 or IPv6 | UDP (dst 4791) | BTH |
//! extended headers | payload | pad | ICRC`.
//!
//! ```
//! use std::net::Ipv4Addr;
//! use rnic_proto::*;
//!
//! let packet = RocePacket::new(
//!     EthernetHeader::new(MacAddr([0x52, 0x54, 0, 0, 0, 2]), MacAddr([0x52, 0x54, 0, 0, 0, 1])),
//!     IpHeader::V4(Ipv4Header::new(Ipv4Addr::new(10, 99, 0, 1), Ipv4Addr::new(10, 99, 0, 2))),
//!     0xC000,
//!     Bth::new(Opcode::RcWriteOnly, 0x11, Psn::new(0xFF_FFFF)),
//!     ExtHeaders::Reth(Reth { va: 0x1000, rkey: 0x42, dma_len: 5 }),
//!     b"hello".to_vec(),
//! );
//! let frame = encode_frame(&packet).unwrap();
//! let decoded = decode_frame(&frame).unwrap();
//! assert!(decoded.icrc_ok);
//! assert_eq!(decoded.bth.pad_count, 3);
//! assert_eq!(decoded.payload, b"hello");
//! assert_eq!(validate_payload_len(decoded.opcode(), 5, Pmtu::Mtu1024), Ok(()));
//! assert!(decode_frame(&frame[..20]).is_err());
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod aeth;
pub mod bth;
pub mod error;
pub mod eth;
pub mod ext;
pub mod frame;
pub mod icrc;
pub mod ip;
pub mod ipv4;
pub mod ipv6;
pub mod opcode;
pub mod pcap;
pub mod psn;
pub mod rc;
pub mod udp;
pub mod vectors;

mod bytes;

pub use aeth::{AckCredit, Aeth, AethKind, NakCode, RnrTimer};
pub use bth::Bth;
pub use error::{DecodeError, EncodeError, Layer, NotRoceReason};
pub use eth::{EthernetHeader, MacAddr, VlanTag};
pub use ext::{AtomicAckEth, AtomicEth, CnpReserved, Deth, ExtHeaders, Ieth, ImmDt, Reth};
pub use frame::{decode_frame, decode_frame_rx, encode_frame, encode_frame_verbatim, RocePacket};
pub use icrc::{icrc_compute, icrc_of_ip_packet, icrc_verify};
pub use ip::{Ecn, IpHeader, IpVersion};
pub use ipv4::Ipv4Header;
pub use ipv6::Ipv6Header;
pub use opcode::{validate_payload_len, HeaderLayout, Opcode, PayloadLenError, PayloadRule, Pmtu, Position, Transport};
pub use psn::Psn;
pub use udp::{UdpHeader, ROCE_V2_UDP_PORT};
