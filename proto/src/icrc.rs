//! Invariant CRC (ICRC) of RoCEv2.
//!
//! The ICRC is the Ethernet CRC-32 (reflected polynomial 0xEDB88320, init and
//! final XOR 0xFFFFFFFF) over a pseudo-packet: 8 bytes of 0xFF standing in for
//! the InfiniBand LRH, then everything from the IP header to the end of the
//! pad, with the fields a switch may rewrite set to all ones:
//!
//! * IPv4: TOS (DSCP/ECN), TTL, header checksum;
//! * IPv6: traffic class, flow label, hop limit;
//! * UDP checksum;
//! * BTH byte 4 (FECN, BECN, reserved).
//!
//! It is carried least-significant byte first, like the Ethernet FCS.

use crate::bytes::require;
use crate::error::{DecodeError, Layer};
use crate::frame::locate_datagram;
use crate::ip::IpVersion;
use crate::udp::UdpHeader;

/// Length of the ICRC trailer.
pub const ICRC_LEN: usize = 4;

const CRC32_TABLE: [u32; 256] = crc32_table();

const fn crc32_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut index = 0;
    while index < 256 {
        let mut crc = index as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            bit += 1;
        }
        table[index] = crc;
        index += 1;
    }
    table
}

/// Incremental CRC-32 (IEEE 802.3 / zlib).
#[derive(Debug, Clone, Copy)]
pub struct Crc32 {
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Self {
        Self::new()
    }
}

impl Crc32 {
    /// A CRC over no bytes yet.
    pub const fn new() -> Self {
        Crc32 { state: 0xFFFF_FFFF }
    }

    /// Feeds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.state = CRC32_TABLE[usize::from((self.state as u8) ^ byte)] ^ (self.state >> 8);
        }
    }

    /// The CRC of everything fed so far.
    pub const fn finish(&self) -> u32 {
        !self.state
    }
}

/// CRC-32 of `bytes` (same as zlib's `crc32`).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = Crc32::new();
    crc.update(bytes);
    crc.finish()
}

/// Offset within the BTH of the byte holding FECN, BECN and resv6a.
const BTH_MASKED_BYTE: usize = 4;
const BTH_LEN: usize = 12;

/// ICRC of an IP packet, given from the first byte of its IP header to the
/// last pad byte (the ICRC trailer itself excluded).
pub fn icrc_of_ip_packet(version: IpVersion, ip_packet: &[u8]) -> Result<u32, DecodeError> {
    let ip_layer = match version {
        IpVersion::V4 => Layer::Ipv4,
        IpVersion::V6 => Layer::Ipv6,
    };
    require(ip_packet, 1, ip_layer)?;
    let found = ip_packet[0] >> 4;
    if found != version.number() {
        return Err(DecodeError::IpVersionMismatch { expected: version.number(), found });
    }
    let header_len = match version {
        IpVersion::V4 => {
            let ihl = ip_packet[0] & 0x0F;
            if ihl < 5 {
                return Err(DecodeError::Ipv4HeaderLengthTooSmall { ihl });
            }
            usize::from(ihl) * 4
        }
        IpVersion::V6 => 40,
    };
    require(ip_packet, header_len, ip_layer)?;
    let udp_start = header_len;
    let bth_start = udp_start + UdpHeader::LEN;
    require(ip_packet, bth_start, Layer::Udp)?;
    require(ip_packet, bth_start + BTH_LEN, Layer::Bth)?;

    // Copy the headers up to the end of the BTH and mask the variant fields.
    let mut headers = ip_packet[..bth_start + BTH_LEN].to_vec();
    match version {
        IpVersion::V4 => {
            headers[1] = 0xFF; // TOS
            headers[8] = 0xFF; // TTL
            headers[10] = 0xFF; // header checksum
            headers[11] = 0xFF;
        }
        IpVersion::V6 => {
            headers[0] |= 0x0F; // traffic class (low nibble of byte 0) ...
            headers[1] = 0xFF; // ... and flow label
            headers[2] = 0xFF;
            headers[3] = 0xFF;
            headers[7] = 0xFF; // hop limit
        }
    }
    headers[udp_start + 6] = 0xFF; // UDP checksum
    headers[udp_start + 7] = 0xFF;
    headers[bth_start + BTH_MASKED_BYTE] = 0xFF; // FECN, BECN, resv6a

    let mut crc = Crc32::new();
    crc.update(&[0xFF; 8]);
    crc.update(&headers);
    crc.update(&ip_packet[headers.len()..]);
    Ok(crc.finish())
}

/// ICRC a RoCEv2 Ethernet frame should carry, computed from its contents
/// (the frame's own trailing 4 ICRC bytes are excluded). The frame is
/// located by its IP and UDP lengths; bytes after the IP packet are ignored.
pub fn icrc_compute(frame: &[u8]) -> Result<u32, DecodeError> {
    let located = locate_datagram(frame)?;
    let ip_packet = &frame[located.ip_start..located.ip_end];
    let udp_payload_len = ip_packet.len() - located.ip_header_len - UdpHeader::LEN;
    if udp_payload_len < BTH_LEN + ICRC_LEN {
        return Err(DecodeError::Truncated {
            layer: Layer::Icrc,
            needed: BTH_LEN + ICRC_LEN,
            available: udp_payload_len,
        });
    }
    icrc_of_ip_packet(located.ip.version(), &ip_packet[..ip_packet.len() - ICRC_LEN])
}

/// The ICRC a frame carries (its last 4 bytes within the IP packet, read
/// least-significant byte first).
pub fn icrc_carried(frame: &[u8]) -> Result<u32, DecodeError> {
    let located = locate_datagram(frame)?;
    let end = located.ip_end;
    require(&frame[located.ip_start..end], located.ip_header_len + UdpHeader::LEN + ICRC_LEN, Layer::Icrc)?;
    let mut trailer = [0u8; ICRC_LEN];
    trailer.copy_from_slice(&frame[end - ICRC_LEN..end]);
    Ok(u32::from_le_bytes(trailer))
}

/// True if the frame's ICRC trailer matches its contents.
pub fn icrc_verify(frame: &[u8]) -> Result<bool, DecodeError> {
    Ok(icrc_compute(frame)? == icrc_carried(frame)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(text: &str) -> Vec<u8> {
        let digits: Vec<u8> = text.bytes().filter(|b| b.is_ascii_hexdigit()).collect();
        digits.chunks(2).map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap()).collect()
    }

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        // rxe seeds its CRC with the CRC of the 8 masked LRH bytes.
        assert_eq!(crc32(&[0xFF; 8]) ^ 0xFFFF_FFFF, 0xDEBB_20E3);
    }

    /// ConnectX-4 Lx CNP over IPv4 (scapy roce.uts); ICRC 0x2A00FD82 sent as 82 fd 00 2a.
    #[test]
    fn hardware_cnp_vector() {
        let frame = hex("e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201
             000012b7002800008100ffff40000118000000000000000000000000000000000000000082fd002a");
        assert_eq!(icrc_compute(&frame).unwrap(), 0x2A00_FD82);
        assert_eq!(icrc_carried(&frame).unwrap(), 0x2A00_FD82);
        assert!(icrc_verify(&frame).unwrap());
    }

    /// IPv4 UC_SEND_ONLY (scapy roce.uts "RoCE layer"), ICRC 0x78f353f3... as scapy prints
    /// the wire bytes big-endian; the CRC value is their little-endian reading.
    #[test]
    fn scapy_ipv4_vector() {
        let frame = hex("248a07a8fa22248a07a8fa22080045010040047840004011b4d5c0a80007c0a80007c00012b7002caca2
             2460ffff000000d300cf17104630818be28935d90e9a95505401be885e50000078f353f3");
        assert_eq!(icrc_compute(&frame).unwrap(), u32::from_be_bytes([0x78, 0xf3, 0x53, 0xf3]).swap_bytes());
        assert!(icrc_verify(&frame).unwrap());
    }

    /// IPv6 UC_SEND_ONLY (TC 226, flow label 0x1face, hop limit 255).
    #[test]
    fn scapy_ipv6_vector() {
        let frame = hex("248a07a8fa22248a07a8fa2286dd6e21face002c11ff20220000000000000000000000001023
             20230000000000000000000000001024c00012b7002ce7c52460ffff000000d300cf1710
             4630818be28935d90e9a95505401be885e5000003e5b743b");
        assert!(icrc_verify(&frame).unwrap());
    }

    #[test]
    fn masked_fields_do_not_change_the_icrc_but_others_do() {
        let frame = hex("e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201
             000012b7002800008100ffff40000118000000000000000000000000000000000000000082fd002a");
        let ip = 14;
        for masked in [ip + 1, ip + 8, ip + 10, ip + 11, ip + 26, ip + 27, ip + 32] {
            let mut changed = frame.clone();
            changed[masked] ^= 0x5A;
            assert!(icrc_verify(&changed).unwrap(), "byte {masked} should be masked");
        }
        for covered in [ip + 4, ip + 9 + 3, ip + 20, ip + 28, ip + 29, ip + 33, ip + 40] {
            let mut changed = frame.clone();
            changed[covered] ^= 0x01;
            assert!(!icrc_verify(&changed).unwrap(), "byte {covered} should be covered");
        }
        // The Ethernet header is outside the ICRC.
        let mut changed = frame.clone();
        changed[0] ^= 0xFF;
        assert!(icrc_verify(&changed).unwrap());
    }
}
