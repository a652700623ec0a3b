//! A minimal capture-file reader for golden tests: classic pcap (either byte
//! order, micro- or nanosecond timestamps) and pcapng (section header,
//! interface description, enhanced/simple/obsolete packet blocks; other
//! blocks are skipped). Only what the tests need: packet bytes, original
//! length and link type.

use std::fmt;

/// Link type of Ethernet captures.
pub const LINKTYPE_ETHERNET: u16 = 1;

/// One captured packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedPacket {
    /// Link-layer type of the interface it was captured on.
    pub link_type: u16,
    /// Length of the packet on the wire.
    pub orig_len: u32,
    /// Captured bytes (at most `orig_len`).
    pub data: Vec<u8>,
}

/// Why a capture file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PcapError {
    /// The file starts with neither a pcap nor a pcapng magic number.
    UnknownMagic(u32),
    /// The file ends inside a header, record or block.
    Truncated {
        /// Byte offset of the record or block.
        offset: usize,
    },
    /// A pcapng block length is too small or not a multiple of 4.
    BadBlockLength {
        /// Byte offset of the block.
        offset: usize,
        /// The length found.
        length: u32,
    },
    /// A pcapng packet names an interface that was never described.
    UnknownInterface {
        /// Byte offset of the block.
        offset: usize,
        /// The interface index.
        interface: u32,
    },
    /// A pcapng block appeared before any section header.
    NoSectionHeader,
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PcapError::UnknownMagic(magic) => write!(f, "not a pcap/pcapng file (magic 0x{magic:08x})"),
            PcapError::Truncated { offset } => write!(f, "file truncated in the record at byte {offset}"),
            PcapError::BadBlockLength { offset, length } => {
                write!(f, "pcapng block at byte {offset} has invalid length {length}")
            }
            PcapError::UnknownInterface { offset, interface } => {
                write!(f, "pcapng packet at byte {offset} names undescribed interface {interface}")
            }
            PcapError::NoSectionHeader => f.write_str("pcapng block before the section header"),
        }
    }
}

impl std::error::Error for PcapError {}

const PCAP_MAGIC_MICROS: u32 = 0xA1B2_C3D4;
const PCAP_MAGIC_NANOS: u32 = 0xA1B2_3C4D;
const PCAPNG_SECTION_HEADER: u32 = 0x0A0D_0D0A;
const PCAPNG_BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
const PCAPNG_INTERFACE_DESCRIPTION: u32 = 1;
const PCAPNG_OBSOLETE_PACKET: u32 = 2;
const PCAPNG_SIMPLE_PACKET: u32 = 3;
const PCAPNG_ENHANCED_PACKET: u32 = 6;

/// Reads fixed-width integers in a file's byte order.
#[derive(Clone, Copy)]
struct Endian {
    big: bool,
}

impl Endian {
    fn u16(self, bytes: &[u8], at: usize) -> Option<u16> {
        let raw: [u8; 2] = bytes.get(at..at + 2)?.try_into().ok()?;
        Some(if self.big { u16::from_be_bytes(raw) } else { u16::from_le_bytes(raw) })
    }

    fn u32(self, bytes: &[u8], at: usize) -> Option<u32> {
        let raw: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        Some(if self.big { u32::from_be_bytes(raw) } else { u32::from_le_bytes(raw) })
    }
}

/// Reads every packet of a pcap or pcapng file held in memory.
pub fn read_capture(file: &[u8]) -> Result<Vec<CapturedPacket>, PcapError> {
    let magic_le = Endian { big: false }.u32(file, 0).ok_or(PcapError::Truncated { offset: 0 })?;
    match magic_le {
        PCAP_MAGIC_MICROS | PCAP_MAGIC_NANOS => read_pcap(file, Endian { big: false }),
        m if m.swap_bytes() == PCAP_MAGIC_MICROS || m.swap_bytes() == PCAP_MAGIC_NANOS => {
            read_pcap(file, Endian { big: true })
        }
        PCAPNG_SECTION_HEADER => read_pcapng(file),
        other => Err(PcapError::UnknownMagic(other)),
    }
}

fn read_pcap(file: &[u8], endian: Endian) -> Result<Vec<CapturedPacket>, PcapError> {
    const GLOBAL_HEADER_LEN: usize = 24;
    const RECORD_HEADER_LEN: usize = 16;
    let link_type = endian.u32(file, 20).ok_or(PcapError::Truncated { offset: 0 })?;
    let link_type = (link_type & 0xFFFF) as u16;
    let mut packets = Vec::new();
    let mut offset = GLOBAL_HEADER_LEN;
    while offset < file.len() {
        let truncated = PcapError::Truncated { offset };
        let captured_len = endian.u32(file, offset + 8).ok_or(truncated.clone())? as usize;
        let orig_len = endian.u32(file, offset + 12).ok_or(truncated.clone())?;
        let start = offset + RECORD_HEADER_LEN;
        let data = file.get(start..start + captured_len).ok_or(truncated)?;
        packets.push(CapturedPacket { link_type, orig_len, data: data.to_vec() });
        offset = start + captured_len;
    }
    Ok(packets)
}

fn read_pcapng(file: &[u8]) -> Result<Vec<CapturedPacket>, PcapError> {
    let mut packets = Vec::new();
    let mut endian: Option<Endian> = None;
    let mut interfaces: Vec<u16> = Vec::new();
    let mut offset = 0;
    while offset < file.len() {
        let truncated = PcapError::Truncated { offset };
        let block_type = Endian { big: false }.u32(file, offset).ok_or(truncated.clone())?;
        if block_type == PCAPNG_SECTION_HEADER {
            // The byte-order magic after the length fixes this section's endianness.
            let bom = Endian { big: false }.u32(file, offset + 8).ok_or(truncated.clone())?;
            endian = Some(Endian { big: bom != PCAPNG_BYTE_ORDER_MAGIC });
            interfaces.clear();
        }
        let order = endian.ok_or(PcapError::NoSectionHeader)?;
        let block_type = order.u32(file, offset).ok_or(truncated.clone())?;
        let length = order.u32(file, offset + 4).ok_or(truncated.clone())?;
        if length < 12 || length % 4 != 0 {
            return Err(PcapError::BadBlockLength { offset, length });
        }
        let block = file.get(offset..offset + length as usize).ok_or(truncated.clone())?;
        let body = &block[8..block.len() - 4];
        match block_type {
            PCAPNG_INTERFACE_DESCRIPTION => {
                interfaces.push(order.u16(body, 0).ok_or(truncated)?);
            }
            PCAPNG_ENHANCED_PACKET | PCAPNG_OBSOLETE_PACKET => {
                let (interface, captured_at, orig_at, data_at) = if block_type == PCAPNG_ENHANCED_PACKET {
                    (order.u32(body, 0).ok_or(truncated.clone())?, 12, 16, 20)
                } else {
                    (u32::from(order.u16(body, 0).ok_or(truncated.clone())?), 12, 16, 20)
                };
                let link_type =
                    *interfaces.get(interface as usize).ok_or(PcapError::UnknownInterface { offset, interface })?;
                let captured_len = order.u32(body, captured_at).ok_or(truncated.clone())? as usize;
                let orig_len = order.u32(body, orig_at).ok_or(truncated.clone())?;
                let data = body.get(data_at..data_at + captured_len).ok_or(truncated)?;
                packets.push(CapturedPacket { link_type, orig_len, data: data.to_vec() });
            }
            PCAPNG_SIMPLE_PACKET => {
                let link_type = *interfaces.first().ok_or(PcapError::UnknownInterface { offset, interface: 0 })?;
                let orig_len = order.u32(body, 0).ok_or(truncated)?;
                let captured_len = (orig_len as usize).min(body.len() - 4);
                packets.push(CapturedPacket { link_type, orig_len, data: body[4..4 + captured_len].to_vec() });
            }
            _ => {}
        }
        offset += length as usize;
    }
    Ok(packets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_classic_pcap_in_both_byte_orders() {
        for big in [false, true] {
            let u32b = |v: u32| if big { v.to_be_bytes() } else { v.to_le_bytes() };
            let u16b = |v: u16| if big { v.to_be_bytes() } else { v.to_le_bytes() };
            let mut file = Vec::new();
            file.extend_from_slice(&u32b(PCAP_MAGIC_MICROS));
            file.extend_from_slice(&u16b(2));
            file.extend_from_slice(&u16b(4));
            file.extend_from_slice(&[0; 8]);
            file.extend_from_slice(&u32b(65535));
            file.extend_from_slice(&u32b(1));
            for payload in [&[1u8, 2, 3][..], &[4, 5]] {
                file.extend_from_slice(&[0; 8]);
                file.extend_from_slice(&u32b(payload.len() as u32));
                file.extend_from_slice(&u32b(60));
                file.extend_from_slice(payload);
            }
            let packets = read_capture(&file).unwrap();
            assert_eq!(packets.len(), 2);
            assert_eq!(packets[0], CapturedPacket { link_type: 1, orig_len: 60, data: vec![1, 2, 3] });
            assert_eq!(packets[1].data, vec![4, 5]);
            assert_eq!(read_capture(&file[..file.len() - 1]), Err(PcapError::Truncated { offset: 43 }));
        }
    }

    #[test]
    fn reads_pcapng_blocks() {
        fn block(kind: u32, body: &[u8]) -> Vec<u8> {
            let len = (12 + body.len()).div_ceil(4) * 4;
            let mut out = Vec::new();
            out.extend_from_slice(&kind.to_le_bytes());
            out.extend_from_slice(&(len as u32).to_le_bytes());
            out.extend_from_slice(body);
            out.resize(len - 4, 0);
            out.extend_from_slice(&(len as u32).to_le_bytes());
            out
        }
        let mut file = block(
            PCAPNG_SECTION_HEADER,
            &[0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        );
        file.extend(block(PCAPNG_INTERFACE_DESCRIPTION, &[1, 0, 0, 0, 0, 0, 4, 0]));
        file.extend(block(99, &[7; 8]));
        let mut epb = vec![0u8; 12];
        epb.extend_from_slice(&5u32.to_le_bytes());
        epb.extend_from_slice(&64u32.to_le_bytes());
        epb.extend_from_slice(&[9, 8, 7, 6, 5]);
        file.extend(block(PCAPNG_ENHANCED_PACKET, &epb));
        let packets = read_capture(&file).unwrap();
        assert_eq!(packets, vec![CapturedPacket { link_type: 1, orig_len: 64, data: vec![9, 8, 7, 6, 5] }]);
        assert!(read_capture(&file[..file.len() - 2]).is_err());
        assert_eq!(read_capture(b"nope"), Err(PcapError::UnknownMagic(0x65706f6e)));
    }
}
