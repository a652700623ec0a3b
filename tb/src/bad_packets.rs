//! Crafting packets for one NIC from a peer that does not exist: valid
//! RoCEv2 requests and responses addressed to it ([`Crafter`]), byte-level
//! mutations that keep the frame's checksums right or break them on purpose
//! ([`set_icrc`], [`set_ip_checksum`]), and the random mutator of the bad
//! packet battery (issue 12, item 5: `tb/tests/bad_packets.rs`).

use rnic_proto::{
    encode_frame, AtomicEth, Bth, EthernetHeader, ExtHeaders, IpHeader, IpVersion, Ipv4Header, MacAddr, Opcode, Psn,
    Reth, RocePacket, UdpHeader,
};
use rnic_sim::axis::Rng;

/// Where a frame's IPv4 header starts (no VLAN tag).
pub const IP_AT: usize = 14;
/// Where its UDP header starts (IPv4 without options).
pub const UDP_AT: usize = IP_AT + 20;
/// Where its BTH starts.
pub const BTH_AT: usize = UDP_AT + UdpHeader::LEN;
/// Where the extended headers start.
pub const EXT_AT: usize = BTH_AT + Bth::LEN;

/// Builds frames from a peer (`src`) to the NIC under test (`dst`), both
/// IPv4, no VLAN.
#[derive(Clone, Copy, Debug)]
pub struct Crafter {
    pub mac: [u8; 6],
    pub src: [u8; 4],
    pub dst: [u8; 4],
}

impl Crafter {
    /// A packet with the default P_Key, AckReq set, PSN `psn`.
    pub fn packet(&self, qpn: u32, opcode: Opcode, psn: u32, ext: ExtHeaders, payload: Vec<u8>) -> RocePacket {
        let eth = EthernetHeader::new(MacAddr(self.mac), MacAddr(self.mac));
        let ip = IpHeader::V4(Ipv4Header::new(self.src.into(), self.dst.into()));
        let mut bth = Bth::new(opcode, qpn, Psn::new(psn));
        bth.ack_req = true;
        RocePacket::new(eth, ip, 0xC000 | (qpn as u16 & 0x3FFF), bth, ext, payload)
    }

    /// The encoded frame of [`Crafter::packet`].
    pub fn frame(&self, qpn: u32, opcode: Opcode, psn: u32, ext: ExtHeaders, payload: Vec<u8>) -> Vec<u8> {
        encode_frame(&self.packet(qpn, opcode, psn, ext, payload)).expect("a crafted packet encodes")
    }

    /// A WRITE (`opcode` ONLY or FIRST) with RETH (`va`, `rkey`, `dma_len`) and `len` payload bytes.
    #[allow(clippy::too_many_arguments)]
    pub fn write(&self, qpn: u32, opcode: Opcode, psn: u32, va: u64, rkey: u32, dma_len: u32, len: usize) -> Vec<u8> {
        self.frame(qpn, opcode, psn, ExtHeaders::Reth(Reth { va, rkey, dma_len }), pattern(psn, len))
    }

    /// A packet without extended headers (SEND, WRITE MIDDLE/LAST) and `len` payload bytes.
    pub fn bare(&self, qpn: u32, opcode: Opcode, psn: u32, len: usize) -> Vec<u8> {
        self.frame(qpn, opcode, psn, ExtHeaders::Bare, pattern(psn, len))
    }

    /// A READ request.
    pub fn read(&self, qpn: u32, psn: u32, va: u64, rkey: u32, dma_len: u32) -> Vec<u8> {
        self.frame(qpn, Opcode::RcReadRequest, psn, ExtHeaders::Reth(Reth { va, rkey, dma_len }), vec![])
    }

    /// A FETCH_ADD of 1.
    pub fn fetch_add(&self, qpn: u32, psn: u32, va: u64, rkey: u32) -> Vec<u8> {
        self.atomic(qpn, Opcode::RcFetchAdd, psn, AtomicEth { va, rkey, swap_add: 1, compare: 0 })
    }

    /// A COMPARE_SWAP or FETCH_ADD with its AtomicETH.
    pub fn atomic(&self, qpn: u32, opcode: Opcode, psn: u32, e: AtomicEth) -> Vec<u8> {
        self.frame(qpn, opcode, psn, ExtHeaders::AtomicEth(e), vec![])
    }
}

/// The payload bytes of a crafted packet: recognisable, never all zero.
pub fn pattern(seed: u32, len: usize) -> Vec<u8> {
    (0..len).map(|i| (i as u32).wrapping_mul(131).wrapping_add(seed) as u8 | 1).collect()
}

/// Recomputes the ICRC of an IPv4 frame after its bytes were changed, so
/// the change reaches the checks behind the ICRC.
pub fn set_icrc(frame: &mut [u8]) {
    let n = frame.len();
    if n < IP_AT + 24 {
        return;
    }
    if let Ok(icrc) = rnic_proto::icrc_of_ip_packet(IpVersion::V4, &frame[IP_AT..n - 4]) {
        frame[n - 4..].copy_from_slice(&icrc.to_le_bytes());
    }
}

/// Recomputes the IPv4 header checksum (IHL 5).
pub fn set_ip_checksum(frame: &mut [u8]) {
    frame[IP_AT + 10] = 0;
    frame[IP_AT + 11] = 0;
    let mut sum: u32 = 0;
    for i in (0..20).step_by(2) {
        sum += u32::from(u16::from_be_bytes([frame[IP_AT + i], frame[IP_AT + i + 1]]));
    }
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    frame[IP_AT + 10..IP_AT + 12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

/// What [`mutate`] did to a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// Random bits flipped in the headers, checksums and ICRC made right again.
    HeaderBits,
    /// A header field set to a random value, checksums right.
    Field,
    /// The frame cut short (ICRC then wrong).
    Truncate,
    /// Random bytes appended (lengths then disagree).
    Extend,
    /// A bit flipped anywhere, nothing recomputed (ICRC or checksum fails).
    AnyBit,
    /// Unchanged.
    None,
}

/// Mutates a valid IPv4 RoCEv2 frame at random, as the battery's random
/// part does: mostly in the headers with the checksums recomputed, so the
/// frame gets past the ICRC check to the parser's and the transport's.
pub fn mutate(rng: &mut Rng, frame: &mut Vec<u8>) -> Mutation {
    let hdr_end = EXT_AT + 28.min(frame.len().saturating_sub(EXT_AT + 4));
    match rng.next() % 16 {
        0..=5 => {
            for _ in 0..1 + rng.next() % 3 {
                // the BTH and extended headers mostly, sometimes IP and UDP
                let lo = if rng.chance(75) { BTH_AT } else { IP_AT };
                let at = lo + (rng.next() as usize % (hdr_end - lo));
                frame[at] ^= 1 << (rng.next() % 8);
            }
            set_ip_checksum(frame);
            set_icrc(frame);
            Mutation::HeaderBits
        }
        6..=10 => {
            // a whole field: opcode, P_Key, QPN byte, PSN byte, RETH/AETH bytes
            let at = match rng.next() % 6 {
                0 => BTH_AT,
                1 => BTH_AT + 2 + (rng.next() as usize % 2),
                2 => BTH_AT + 5 + (rng.next() as usize % 3),
                3 => BTH_AT + 9 + (rng.next() as usize % 3),
                4 => BTH_AT + 1,
                _ => EXT_AT + (rng.next() as usize % (hdr_end - EXT_AT).max(1)),
            };
            if at < frame.len() - 4 {
                frame[at] = rng.next() as u8;
            }
            set_ip_checksum(frame);
            set_icrc(frame);
            Mutation::Field
        }
        11 => {
            let keep = IP_AT + rng.next() as usize % (frame.len() - IP_AT);
            frame.truncate(keep.max(1));
            Mutation::Truncate
        }
        12 => {
            for _ in 0..1 + rng.next() % 64 {
                frame.push(rng.next() as u8);
            }
            if rng.chance(50) {
                set_icrc(frame);
            }
            Mutation::Extend
        }
        13 | 14 => {
            let at = rng.next() as usize % frame.len();
            frame[at] ^= 1 << (rng.next() % 8);
            Mutation::AnyBit
        }
        _ => Mutation::None,
    }
}
