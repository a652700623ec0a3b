//! `TxBuild`: the transmit builder. A header (the fields of one packet, see
//! [`TX_HDR_FIELDS`]) and its payload, already in its wire lanes (its first
//! byte in lane [`TxBuild::payload_lane`] of its first beat, where the
//! frame's headers end), become a whole RoCEv2 frame: Ethernet (optional 802.1Q tag), IPv4 (with its header
//! checksum, DF set) or IPv6, UDP (source port from the QP for ECMP
//! entropy, checksum 0), BTH (pad count from the payload length), the
//! opcode's extended headers, payload, pad and ICRC.
//!
//! Structure (issue 9: every path a few LUTs deep, no variable shifter
//! wider than a beat):
//!
//! - **Header stages H1..H4** ([`TxBuild::HDR_STAGES`]), a pipeline that
//!   moves when its next stage is free. H1 registers `s_hdr` as it comes
//!   (nothing but registers behind the port). H2 decodes the opcode's
//!   extended headers ([`OpcodeInfo`]) and lays out the fixed layers in lane
//!   order (wire byte `i` in bits `8i+7..8i`, a fixed wiring): Ethernet
//!   addresses (12 bytes), the VLAN tag (4), Ethertype + IPv4 (22) or
//!   Ethertype + IPv6 (42), UDP + BTH (20); and sums the IPv4 checksum's
//!   known words in pairs. H3 packs the extended headers at fixed positions
//!   per opcode class (each of their 7 words from at most 6 fields) and
//!   computes the lengths (IP total, UDP, the header's length `H`). H4 puts
//!   the lengths into their layers and adds the checksum's partial sums (a
//!   registered adder tree: pairs, then the two halves plus the length).
//!   On load the checksum is folded and the header is assembled from the
//!   layers at the offsets of its (VLAN, IPv6) combination: every header
//!   byte comes from one of at most four sources.
//! - **The sequencer** keeps the frame's geometry in registers set when the
//!   header loads: the bytes left (`t_rem`, header + payload + pad + ICRC;
//!   `e_rem`, header + payload), the payload beats left, and the lanes below
//!   the payload's `H mod 64`. It emits one beat per cycle (a payload beat
//!   waits in the `pin` register) and describes the next beat in registers:
//!   per lane, header, the payload beat, or zero (pad, ICRC placeholder,
//!   past the end); `tkeep`, `tlast`, where the ICRC goes. A header of 64
//!   bytes or more leaves as a whole beat first; the header's last beat
//!   takes the payload's first beat (its lanes from `H mod 64` on), and each
//!   later payload beat is an output beat as it is.
//! - **The data path**: no byte moves. Each lane of the output register is
//!   the header's, the payload beat's or zero: one LUT level from `pin`.
//!   The payload is moved once per direction, from its IO address's lane to
//!   its wire lane, by an `AxisRealign` in front (docs/streams.md).
//! - **ICRC and output** as before: the frame passes an [`IcrcGen`], which
//!   computes the ICRC from the frame with its ICRC bytes zeroed; a FIFO
//!   holds every beat [`TxBuild::HOLD`] cycles (longer than the ICRC takes),
//!   and the output stage writes the ICRC into the last one or two beats.
//!   The sequencer counts the beats it has decided and that have not left
//!   the FIFO, and decides one only while that count is below the FIFO's
//!   depth, from a register: the FIFO never overflows, and no path runs
//!   from `m_axis.tready` to `s_hdr.tready` or `s_axis.tready`.
//!
//! The header of the next frame loads in the cycle the previous frame's
//! last beat is decided: back-to-back frames leave without idle cycles.
//! `s_hdr.tready` and `s_axis.tready` depend on registers only.

use super::{IcrcGen, OpcodeInfo};
use crate::axis::{AxisFifo, AxisIn, AxisOut, HdrIn};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Width of the transmit header.
pub const TX_HDR_BITS: usize = 1152;

/// Transmit header fields, most significant first, with their widths.
/// IPv4 addresses sit in the low 32 bits of `ip_src`/`ip_dst`; extended
/// header fields are used when the opcode carries that header.
pub const TX_HDR_FIELDS: &[(&str, usize)] = &[
    ("eth_dst", 48),
    ("eth_src", 48),
    ("vlan", 1),
    ("vlan_tci", 16),
    ("v6", 1),
    ("dscp", 6),
    ("ecn", 2),
    ("ttl", 8),
    ("flow_label", 20),
    ("ip_id", 16),
    ("ip_src", 128),
    ("ip_dst", 128),
    ("opcode", 8),
    ("se", 1),
    ("mig", 1),
    ("pkey", 16),
    ("fecn", 1),
    ("becn", 1),
    ("destqp", 24),
    ("ackreq", 1),
    ("psn", 24),
    ("src_qp", 24),
    ("reth_va", 64),
    ("reth_rkey", 32),
    ("reth_dmalen", 32),
    ("aeth_syndrome", 8),
    ("aeth_msn", 24),
    ("atomic_va", 64),
    ("atomic_rkey", 32),
    ("atomic_swap", 64),
    ("atomic_cmp", 64),
    ("atomicack", 64),
    ("immdt", 32),
    ("ieth_rkey", 32),
    ("deth_qkey", 32),
    ("deth_srcqp", 24),
    ("payload_len", 16),
];

/// The lowest bit of a transmit header field: the fields are packed most
/// significant first, ending at bit 0 (for the blocks that read a field of
/// a header on its way to the builder).
pub const fn tx_field_lsb(name: &str) -> usize {
    match super::packed::packed_field_lsb(TX_HDR_FIELDS, name) {
        Some(lsb) => lsb,
        None => panic!("no such transmit header field"),
    }
}

/// The layers the builder writes, in bytes (each declared once; the
/// literal offsets in [`TxBuild`]'s logic are asserted against them below).
pub const ETH_BYTES: usize = 14;
pub const VLAN_TAG_BYTES: usize = 4;
pub const IPV4_BYTES: usize = 20;
pub const IPV6_BYTES: usize = 40;
pub const UDP_BYTES: usize = 8;
pub const BTH_BYTES: usize = 12;
pub const RETH_BYTES: usize = 16;
pub const IMMDT_BYTES: usize = 4;
/// AtomicETH, the longest extended headers (no payload follows them).
pub const ATOMIC_ETH_BYTES: usize = 28;
pub const ICRC_BYTES: usize = 4;
/// Pad bytes after the payload: up to a whole 4-byte word.
pub const PAD_MAX_BYTES: usize = 3;
/// The longest header: Ethernet with a VLAN tag, IPv6, UDP, BTH, AtomicETH.
pub const TX_MAX_HDR_BYTES: usize = ETH_BYTES + VLAN_TAG_BYTES + IPV6_BYTES + UDP_BYTES + BTH_BYTES + ATOMIC_ETH_BYTES;
/// The longest header of a frame that carries payload: RETH and immediate
/// data are the longest extended headers that a payload follows.
pub const TX_MAX_PAYLOAD_HDR_BYTES: usize =
    ETH_BYTES + VLAN_TAG_BYTES + IPV6_BYTES + UDP_BYTES + BTH_BYTES + RETH_BYTES + IMMDT_BYTES;

// The logic's literals: the assembled header (848 bits), Ethertype + IP (22
// or 42 bytes at byte 12, or 16 behind a tag), UDP + BTH + extended headers
// (48 bytes), extended headers (7 words), header length base 54.
const _: () = assert!(TX_MAX_HDR_BYTES * 8 == 848);
const _: () = assert!(2 + IPV4_BYTES == 22 && 2 + IPV6_BYTES == 42);
const _: () = assert!(UDP_BYTES + BTH_BYTES == 20 && (UDP_BYTES + BTH_BYTES + ATOMIC_ETH_BYTES) * 8 == 384);
const _: () = assert!(ATOMIC_ETH_BYTES == 7 * 4);
const _: () = assert!(ETH_BYTES + IPV4_BYTES + UDP_BYTES + BTH_BYTES == 54);
// the header bases of the logic, per (VLAN, IPv6)
const _: () = assert!(
    TxBuild::header_len(false, false, 0) == 54
        && TxBuild::header_len(true, false, 0) == 58
        && TxBuild::header_len(false, true, 0) == 74
        && TxBuild::header_len(true, true, 0) == 78
);
// the second header beat (`hq1`): header bytes 64.. (336 bits)
const _: () = assert!((TX_MAX_HDR_BYTES - 64) * 8 == 336);
// a payload-carrying header leaves with payload bytes in its last beat; the
// ICRC placement assumes frames end 2 bytes into a 4-byte word
const _: () = assert!(ETH_BYTES % 4 == 2 && VLAN_TAG_BYTES.is_multiple_of(4));
const _: () = assert!(TX_HDR_FIELDS.len() == 37);

#[derive(LogicBlock)]
pub struct TxBuild {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_hdr: HdrIn<1152>,
    pub s_axis: AxisIn<512, 64, 1>,
    pub m_axis: AxisOut<512, 64, 1>,

    // ---- header pipeline: ready chain
    rdy1: Signal<Local, Bit>,
    rdy2: Signal<Local, Bit>,
    rdy3: Signal<Local, Bit>,
    rdy4: Signal<Local, Bit>,
    // ---- H1: the header as it came in
    r1: Reg<Bits<1152>>,
    v1: Reg<Bit>,
    // ---- H2: opcode classes, fixed layers in lane order, partial sums
    info: OpcodeInfo,
    tos: Signal<Local, Bits<8>>,
    pad: Signal<Local, Bits<2>>,
    eth_w: Signal<Local, Bits<96>>,
    vl_w: Signal<Local, Bits<32>>,
    v4_w: Signal<Local, Bits<176>>,
    v6_w: Signal<Local, Bits<336>>,
    ub_w: Signal<Local, Bits<160>>,
    eth_le: Signal<Local, Bits<96>>,
    eth_b: Signal<Local, Bits<8>>,
    vl_le: Signal<Local, Bits<32>>,
    vl_b: Signal<Local, Bits<8>>,
    v4_le: Signal<Local, Bits<176>>,
    v4_b: Signal<Local, Bits<8>>,
    v6_le: Signal<Local, Bits<336>>,
    v6_b: Signal<Local, Bits<8>>,
    ub_le: Signal<Local, Bits<160>>,
    ub_b: Signal<Local, Bits<8>>,
    v2: Reg<Bit>,
    f_reth: Reg<Bit>,
    f_aeth: Reg<Bit>,
    f_ack: Reg<Bit>,
    f_atomic: Reg<Bit>,
    f_ieth: Reg<Bit>,
    f_deth: Reg<Bit>,
    f_imm_only: Reg<Bit>,
    f_imm_reth: Reg<Bit>,
    f_imm_deth: Reg<Bit>,
    ext_len2: Reg<Bits<6>>,
    ext2: Reg<Bits<568>>,
    eth2: Reg<Bits<96>>,
    vl2: Reg<Bits<32>>,
    l3_2: Reg<Bits<336>>,
    ub2: Reg<Bits<160>>,
    vlan2: Reg<Bit>,
    v6_2: Reg<Bit>,
    sa2: Reg<Bits<17>>,
    sb2: Reg<Bits<17>>,
    sc2: Reg<Bits<17>>,
    sd2: Reg<Bits<17>>,
    u2: Reg<Bits<16>>,
    p2: Reg<Bits<16>>,
    // ---- H3: extended headers packed by class, lengths
    ew0: Signal<Local, Bits<32>>,
    ew1: Signal<Local, Bits<32>>,
    ew2: Signal<Local, Bits<32>>,
    ew3: Signal<Local, Bits<32>>,
    ew4: Signal<Local, Bits<32>>,
    ew5: Signal<Local, Bits<32>>,
    ew6: Signal<Local, Bits<32>>,
    ext_w: Signal<Local, Bits<224>>,
    ext_le: Signal<Local, Bits<224>>,
    ext_b: Signal<Local, Bits<8>>,
    hbase: Signal<Local, Bits<8>>,
    v3: Reg<Bit>,
    ext3: Reg<Bits<224>>,
    ipt3: Reg<Bits<16>>,
    udl3: Reg<Bits<16>>,
    ipk3: Reg<Bits<20>>,
    t1_3: Reg<Bits<18>>,
    t2_3: Reg<Bits<18>>,
    hl3: Reg<Bits<8>>,
    eth3: Reg<Bits<96>>,
    vl3: Reg<Bits<32>>,
    l3_3: Reg<Bits<336>>,
    ub3: Reg<Bits<160>>,
    vlan3: Reg<Bit>,
    v6_3: Reg<Bit>,
    u3: Reg<Bits<16>>,
    p3: Reg<Bits<16>>,
    // ---- H4: layers with their lengths, the frame's geometry
    ipt_le: Signal<Local, Bits<16>>,
    udl_le: Signal<Local, Bits<16>>,
    v4r: Reg<Bit>,
    acc4: Reg<Bits<20>>,
    l3_4: Reg<Bits<336>>,
    rest4: Reg<Bits<384>>,
    eth4: Reg<Bits<96>>,
    vl4: Reg<Bits<32>>,
    vlan4: Reg<Bit>,
    v6_4: Reg<Bit>,
    t4: Reg<Bits<16>>,
    e4: Reg<Bits<16>>,
    lo4: Reg<Bits<64>>,
    hl4: Reg<Bits<8>>,
    np4: Reg<Bits<11>>,
    t4_ge64: Reg<Bit>,
    t4_le64: Reg<Bit>,
    t4_lt68: Reg<Bit>,
    e4_ge64: Reg<Bit>,
    e_sum: Signal<Local, Bits<16>>,
    t_sum: Signal<Local, Bits<16>>,
    // ---- the header placed in lanes, on load
    g0: Signal<Local, Bits<17>>,
    csum: Signal<Local, Bits<16>>,
    cs_le: Signal<Local, Bits<16>>,
    hdr_le: Signal<Local, Bits<848>>,
    // ---- frame sequencer
    load: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    pin_take: Signal<Local, Bit>,
    in_frame: Reg<Bit>,
    t_rem: Reg<Bits<16>>,
    e_rem: Reg<Bits<16>>,
    np_rem: Reg<Bits<11>>,
    /// `t_rem` >= 128, <= 128, < 132; `e_rem` > 64, >= 128: compares kept
    /// beside the counts, for the next beat's description.
    t_ge128: Reg<Bit>,
    t_le128: Reg<Bit>,
    t_lt132: Reg<Bit>,
    e_gt64: Reg<Bit>,
    e_ge128: Reg<Bit>,
    hb_left: Reg<Bit>,
    lo: Reg<Bits<64>>,
    hd: Reg<Bits<512>>,
    hq1: Reg<Bits<336>>,
    pin: Reg<Bits<512>>,
    pin_v: Reg<Bit>,
    cur_h: Reg<Bits<64>>,
    cur_p: Reg<Bits<64>>,
    cur_keep: Reg<Bits<64>>,
    cur_last: Reg<Bit>,
    cur_patch: Reg<Bit>,
    cur_poff: Reg<Bits<7>>,
    cur_take: Reg<Bit>,
    used: Reg<Bits<6>>,
    credit_ok: Reg<Bit>,
    used_n: Signal<Local, Bits<6>>,
    pop: Signal<Local, Bit>,
    nt_ge64: Signal<Local, Bit>,
    nt_lo: Signal<Local, Bits<6>>,
    n_last: Signal<Local, Bit>,
    n_patch: Signal<Local, Bit>,
    n_poff: Signal<Local, Bits<7>>,
    ne_pos: Signal<Local, Bit>,
    ne_ge64: Signal<Local, Bit>,
    ne_lo: Signal<Local, Bits<6>>,
    n_hdronly: Signal<Local, Bit>,
    n_hdlo: Signal<Local, Bit>,
    n_take: Signal<Local, Bit>,
    n_lo: Signal<Local, Bits<64>>,
    n_keep: Signal<Local, Bits<64>>,
    n_valid: Signal<Local, Bits<64>>,
    n_h: Signal<Local, Bits<64>>,
    n_p: Signal<Local, Bits<64>>,
    ones64: Constant<Bits<64>>,
    // ---- data path: lane merge
    mb: Signal<Local, Bits<8>>,
    mrg: Signal<Local, Bits<512>>,
    r_data: Reg<Bits<512>>,
    r_keep: Reg<Bits<64>>,
    r_last: Reg<Bit>,
    r_patch: Reg<Bit>,
    r_poff: Reg<Bits<7>>,
    r_valid: Reg<Bit>,
    // ---- ICRC and output
    crc_gen: IcrcGen,
    hold: Constant<Bits<8>>,
    icrcs: AxisFifo<32, 4, 1, ICRC_FIFO_LOG>,
    beats: AxisFifo<512, 64, 16, BEAT_FIFO_LOG>,
    now: Reg<Bits<8>>,
    /// The head beat has waited HOLD cycles. Kept, because `age` is 8 bits
    /// and wraps while a stalled sink holds the beat: an offered beat stays
    /// offered.
    ripe: Reg<Bit>,
    age: Signal<Local, Bits<8>>,
    head_off: Signal<Local, Bits<7>>,
    placed: Signal<Local, Bits<576>>,
    head_ok: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl TxBuild {
    /// Bytes of a frame's headers: Ethernet (with an 802.1Q tag or not),
    /// IPv4 (no options) or IPv6, UDP, BTH, and the opcode's `ext_len` bytes
    /// of extended headers (16 RETH, 4 ImmDt, AETH or IETH, 8 DETH, ...).
    pub const fn header_len(vlan: bool, v6: bool, ext_len: usize) -> usize {
        ETH_BYTES
            + if vlan { VLAN_TAG_BYTES } else { 0 }
            + if v6 { IPV6_BYTES } else { IPV4_BYTES }
            + UDP_BYTES
            + BTH_BYTES
            + ext_len
    }

    /// The lane (byte within its beat) in which `s_axis` must bring a
    /// payload's first byte: where the frame's headers end, `H mod 64`. The
    /// builder moves no payload byte; the transport's `AxisRealign` puts DMA
    /// data there (`r` = this lane less the IO address's lane).
    pub const fn payload_lane(vlan: bool, v6: bool, ext_len: usize) -> usize {
        Self::header_len(vlan, v6, ext_len) % 64
    }

    /// Cycles every beat waits in `beats` before it may leave: the ICRC's
    /// latency plus the `icrcs` FIFO's write-to-read latency (2) and one
    /// cycle of margin.
    pub const HOLD: u64 = IcrcGen::LATENCY + 3;
    /// Header stages (H1..H4) between `s_hdr` and the sequencer.
    pub const HDR_STAGES: u64 = 4;
    /// On an idle builder, cycles from the cycle a header is accepted on
    /// `s_hdr` to the cycle its frame's first beat is valid on `m_axis`:
    /// the header stages, the load into the sequencer, the output register
    /// (its beat enters `beats` then), and `HOLD` in `beats`.
    pub const FIRST_BEAT_LATENCY: u64 = Self::HDR_STAGES + 2 + Self::HOLD;
}

/// Beats the holding FIFO holds: 2^5.
const BEAT_FIFO_LOG: usize = 5;
/// ICRCs their FIFO holds: 2^5. It is written on every ICRC without looking
/// at its `tready`: an ICRC waits there only while its frame's last beat is
/// in `beats` (they leave together), so there are at most as many as beats.
const ICRC_FIFO_LOG: usize = 5;
const _: () = assert!(ICRC_FIFO_LOG >= BEAT_FIFO_LOG);
// `used` counts the beats decided and not yet out of `beats` (the output
// register's and the FIFO's); a beat is decided only while `used` < 2^5
// (bit 5 of the 6-bit count clear), so `beats` (2^5 + 1 places) is never
// written when full. At one beat per cycle about HOLD + 2 are in flight,
// and the age compare is 8 bits wide.
const _: () = assert!(BEAT_FIFO_LOG == 5);
const _: () = assert!(TxBuild::HOLD + 4 <= (1 << BEAT_FIFO_LOG) && TxBuild::HOLD < 256);

impl Default for TxBuild {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_hdr: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            rdy1: Default::default(),
            rdy2: Default::default(),
            rdy3: Default::default(),
            rdy4: Default::default(),
            r1: Default::default(),
            v1: Default::default(),
            info: Default::default(),
            tos: Default::default(),
            pad: Default::default(),
            eth_w: Default::default(),
            vl_w: Default::default(),
            v4_w: Default::default(),
            v6_w: Default::default(),
            ub_w: Default::default(),
            eth_le: Default::default(),
            eth_b: Default::default(),
            vl_le: Default::default(),
            vl_b: Default::default(),
            v4_le: Default::default(),
            v4_b: Default::default(),
            v6_le: Default::default(),
            v6_b: Default::default(),
            ub_le: Default::default(),
            ub_b: Default::default(),
            v2: Default::default(),
            f_reth: Default::default(),
            f_aeth: Default::default(),
            f_ack: Default::default(),
            f_atomic: Default::default(),
            f_ieth: Default::default(),
            f_deth: Default::default(),
            f_imm_only: Default::default(),
            f_imm_reth: Default::default(),
            f_imm_deth: Default::default(),
            ext_len2: Default::default(),
            ext2: Default::default(),
            eth2: Default::default(),
            vl2: Default::default(),
            l3_2: Default::default(),
            ub2: Default::default(),
            vlan2: Default::default(),
            v6_2: Default::default(),
            sa2: Default::default(),
            sb2: Default::default(),
            sc2: Default::default(),
            sd2: Default::default(),
            u2: Default::default(),
            p2: Default::default(),
            ew0: Default::default(),
            ew1: Default::default(),
            ew2: Default::default(),
            ew3: Default::default(),
            ew4: Default::default(),
            ew5: Default::default(),
            ew6: Default::default(),
            ext_w: Default::default(),
            ext_le: Default::default(),
            ext_b: Default::default(),
            hbase: Default::default(),
            v3: Default::default(),
            ext3: Default::default(),
            ipt3: Default::default(),
            udl3: Default::default(),
            ipk3: Default::default(),
            t1_3: Default::default(),
            t2_3: Default::default(),
            hl3: Default::default(),
            eth3: Default::default(),
            vl3: Default::default(),
            l3_3: Default::default(),
            ub3: Default::default(),
            vlan3: Default::default(),
            v6_3: Default::default(),
            u3: Default::default(),
            p3: Default::default(),
            ipt_le: Default::default(),
            udl_le: Default::default(),
            v4r: Default::default(),
            acc4: Default::default(),
            l3_4: Default::default(),
            rest4: Default::default(),
            eth4: Default::default(),
            vl4: Default::default(),
            vlan4: Default::default(),
            v6_4: Default::default(),
            t4: Default::default(),
            e4: Default::default(),
            lo4: Default::default(),
            hl4: Default::default(),
            np4: Default::default(),
            t4_ge64: Default::default(),
            t4_le64: Default::default(),
            t4_lt68: Default::default(),
            e4_ge64: Default::default(),
            e_sum: Default::default(),
            t_sum: Default::default(),
            g0: Default::default(),
            csum: Default::default(),
            cs_le: Default::default(),
            hdr_le: Default::default(),
            load: Default::default(),
            emit: Default::default(),
            pin_take: Default::default(),
            in_frame: Default::default(),
            t_rem: Default::default(),
            e_rem: Default::default(),
            np_rem: Default::default(),
            t_ge128: Default::default(),
            t_le128: Default::default(),
            t_lt132: Default::default(),
            e_gt64: Default::default(),
            e_ge128: Default::default(),
            hb_left: Default::default(),
            lo: Default::default(),
            hd: Default::default(),
            hq1: Default::default(),
            pin: Default::default(),
            pin_v: Default::default(),
            cur_h: Default::default(),
            cur_p: Default::default(),
            cur_keep: Default::default(),
            cur_last: Default::default(),
            cur_patch: Default::default(),
            cur_poff: Default::default(),
            cur_take: Default::default(),
            used: Default::default(),
            credit_ok: Default::default(),
            used_n: Default::default(),
            pop: Default::default(),
            nt_ge64: Default::default(),
            nt_lo: Default::default(),
            n_last: Default::default(),
            n_patch: Default::default(),
            n_poff: Default::default(),
            ne_pos: Default::default(),
            ne_ge64: Default::default(),
            ne_lo: Default::default(),
            n_hdronly: Default::default(),
            n_hdlo: Default::default(),
            n_take: Default::default(),
            n_lo: Default::default(),
            n_keep: Default::default(),
            n_valid: Default::default(),
            n_h: Default::default(),
            n_p: Default::default(),
            ones64: Constant::new(u64::MAX.into()),
            mb: Default::default(),
            mrg: Default::default(),
            r_data: Default::default(),
            r_keep: Default::default(),
            r_last: Default::default(),
            r_patch: Default::default(),
            r_poff: Default::default(),
            r_valid: Default::default(),
            crc_gen: Default::default(),
            hold: Constant::new(Self::HOLD.into()),
            icrcs: Default::default(),
            beats: Default::default(),
            now: Default::default(),
            ripe: Default::default(),
            age: Default::default(),
            head_off: Default::default(),
            placed: Default::default(),
            head_ok: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for TxBuild {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r1, v1, v2, f_reth, f_aeth, f_ack, f_atomic, f_ieth, f_deth, f_imm_only, f_imm_reth,
            f_imm_deth, ext_len2, ext2, eth2, vl2, l3_2, ub2, vlan2, v6_2, sa2, sb2, sc2, sd2, u2, p2, v3, ext3, ipt3,
            udl3, ipk3, t1_3, t2_3, hl3, eth3, vl3, l3_3, ub3, vlan3, v6_3, u3, p3, v4r, acc4, l3_4, rest4, eth4, vl4,
            vlan4, v6_4, t4, e4, lo4, hl4, np4, t4_ge64, t4_le64, t4_lt68, e4_ge64, in_frame, t_rem, e_rem, np_rem,
            t_ge128, t_le128, t_lt132, e_gt64, e_ge128, hb_left, lo, hd, hq1, pin, pin_v, cur_h, cur_p, cur_keep,
            cur_last, cur_patch, cur_poff, cur_take, used, credit_ok, r_data, r_keep, r_last, r_patch, r_poff, r_valid,
            now, ripe
        );
        clock!(self, clock, crc_gen, icrcs, beats);
        self.crc_gen.reset.next = self.reset.val();
        self.icrcs.reset.next = self.reset.val();
        self.beats.reset.next = self.reset.val();

        // ---- the sequencer's decisions, from registers only
        self.emit.next = self.in_frame.q.val() & self.credit_ok.q.val() & (!self.cur_take.q.val() | self.pin_v.q.val());
        self.load.next = self.v4r.q.val() & (!self.in_frame.q.val() | (self.emit.val() & self.cur_last.q.val()));
        self.pin_take.next = self.emit.val() & self.cur_take.q.val();
        // the header pipeline moves when its next stage is free or moving
        self.rdy4.next = !self.v4r.q.val() | self.load.val();
        self.rdy3.next = !self.v3.q.val() | self.rdy4.val();
        self.rdy2.next = !self.v2.q.val() | self.rdy3.val();
        self.rdy1.next = !self.v1.q.val() | self.rdy2.val();
        self.s_hdr.tready.next = self.rdy1.val();

        // ---- H1: the header, registered as it comes
        if self.rdy1.val() {
            self.r1.d.next = self.s_hdr.tdata.val();
            self.v1.d.next = self.s_hdr.tvalid.val();
        }

        // ---- H2: the opcode's classes, the fixed layers, partial sums
        self.info.opcode.next = self.r1.q.val().get_bits::<8>(677);
        self.tos.next = (bit_cast::<8, 6>(self.r1.q.val().get_bits::<6>(987)) << 2)
            | bit_cast::<8, 2>(self.r1.q.val().get_bits::<2>(985));
        self.pad.next = (0 - self.r1.q.val().get_bits::<16>(0)).get_bits::<2>(0);
        // each layer in wire order (first byte most significant), then byte-reversed into lane order
        self.eth_w.next = bit_cast::<96, 48>(self.r1.q.val().get_bits::<48>(1059));
        self.eth_w.next = (self.eth_w.val() << 48) | bit_cast::<96, 48>(self.r1.q.val().get_bits::<48>(1011));
        self.vl_w.next = 0x8100.into();
        self.vl_w.next = (self.vl_w.val() << 16) | bit_cast::<32, 16>(self.r1.q.val().get_bits::<16>(994));
        // Ethertype and IPv4 (total length and checksum 0 here)
        self.v4_w.next = 0x0800.into();
        self.v4_w.next = (self.v4_w.val() << 16) | 0x4500 | bit_cast::<176, 8>(self.tos.val());
        self.v4_w.next = self.v4_w.val() << 16;
        self.v4_w.next = (self.v4_w.val() << 16) | bit_cast::<176, 16>(self.r1.q.val().get_bits::<16>(941));
        self.v4_w.next = (self.v4_w.val() << 16) | 0x4000;
        self.v4_w.next = (self.v4_w.val() << 16) | (bit_cast::<176, 8>(self.r1.q.val().get_bits::<8>(977)) << 8) | 17;
        self.v4_w.next = self.v4_w.val() << 16;
        self.v4_w.next = (self.v4_w.val() << 32) | bit_cast::<176, 32>(self.r1.q.val().get_bits::<32>(813));
        self.v4_w.next = (self.v4_w.val() << 32) | bit_cast::<176, 32>(self.r1.q.val().get_bits::<32>(685));
        // Ethertype and IPv6 (payload length 0 here)
        self.v6_w.next = 0x86dd.into();
        self.v6_w.next = (self.v6_w.val() << 32)
            | 0x6000_0000
            | (bit_cast::<336, 8>(self.tos.val()) << 20)
            | bit_cast::<336, 20>(self.r1.q.val().get_bits::<20>(957));
        self.v6_w.next = self.v6_w.val() << 16;
        self.v6_w.next = (self.v6_w.val() << 16) | 0x1100 | bit_cast::<336, 8>(self.r1.q.val().get_bits::<8>(977));
        self.v6_w.next = (self.v6_w.val() << 128) | bit_cast::<336, 128>(self.r1.q.val().get_bits::<128>(813));
        self.v6_w.next = (self.v6_w.val() << 128) | bit_cast::<336, 128>(self.r1.q.val().get_bits::<128>(685));
        // UDP (length 0 here, checksum 0; source port from the QP: rxe's
        // range 0xC000.., folded QP number) and BTH
        self.ub_w.next = bit_cast::<160, 14>(
            (self.r1.q.val().get_bits::<24>(584) ^ (self.r1.q.val().get_bits::<24>(584) >> 14)).get_bits::<14>(0),
        ) | 0xc000;
        self.ub_w.next = (self.ub_w.val() << 16) | 4791;
        self.ub_w.next = self.ub_w.val() << 32;
        self.ub_w.next = (self.ub_w.val() << 8) | bit_cast::<160, 8>(self.r1.q.val().get_bits::<8>(677));
        self.ub_w.next = (self.ub_w.val() << 8)
            | (bit_cast::<160, 1>(self.r1.q.val().get_bits::<1>(676)) << 7)
            | (bit_cast::<160, 1>(self.r1.q.val().get_bits::<1>(675)) << 6)
            | (bit_cast::<160, 2>(self.pad.val()) << 4);
        self.ub_w.next = (self.ub_w.val() << 16) | bit_cast::<160, 16>(self.r1.q.val().get_bits::<16>(659));
        self.ub_w.next = (self.ub_w.val() << 8)
            | (bit_cast::<160, 1>(self.r1.q.val().get_bits::<1>(658)) << 7)
            | (bit_cast::<160, 1>(self.r1.q.val().get_bits::<1>(657)) << 6);
        self.ub_w.next = (self.ub_w.val() << 24) | bit_cast::<160, 24>(self.r1.q.val().get_bits::<24>(633));
        self.ub_w.next = (self.ub_w.val() << 8) | (bit_cast::<160, 1>(self.r1.q.val().get_bits::<1>(632)) << 7);
        self.ub_w.next = (self.ub_w.val() << 24) | bit_cast::<160, 24>(self.r1.q.val().get_bits::<24>(608));
        // lane order: wire byte i in bits 8i+7..8i (fixed wiring)
        self.eth_le.next = 0.into();
        for j in 0..12 {
            self.eth_b.next = self.eth_w.val().get_bits::<8>(8 * j);
            self.eth_le.next = (self.eth_le.val() << 8) | bit_cast::<96, 8>(self.eth_b.val());
        }
        self.vl_le.next = 0.into();
        for j in 0..4 {
            self.vl_b.next = self.vl_w.val().get_bits::<8>(8 * j);
            self.vl_le.next = (self.vl_le.val() << 8) | bit_cast::<32, 8>(self.vl_b.val());
        }
        self.v4_le.next = 0.into();
        for j in 0..22 {
            self.v4_b.next = self.v4_w.val().get_bits::<8>(8 * j);
            self.v4_le.next = (self.v4_le.val() << 8) | bit_cast::<176, 8>(self.v4_b.val());
        }
        self.v6_le.next = 0.into();
        for j in 0..42 {
            self.v6_b.next = self.v6_w.val().get_bits::<8>(8 * j);
            self.v6_le.next = (self.v6_le.val() << 8) | bit_cast::<336, 8>(self.v6_b.val());
        }
        self.ub_le.next = 0.into();
        for j in 0..20 {
            self.ub_b.next = self.ub_w.val().get_bits::<8>(8 * j);
            self.ub_le.next = (self.ub_le.val() << 8) | bit_cast::<160, 8>(self.ub_b.val());
        }
        if self.rdy2.val() {
            self.v2.d.next = self.v1.q.val();
            self.f_reth.d.next = self.info.has_reth.val();
            self.f_aeth.d.next = self.info.has_aeth.val();
            self.f_ack.d.next = self.info.has_atomicack.val();
            self.f_atomic.d.next = self.info.has_atomic.val();
            self.f_ieth.d.next = self.info.has_ieth.val();
            self.f_deth.d.next = self.info.has_deth.val();
            self.f_imm_only.d.next = self.info.has_imm.val() & !self.info.has_reth.val() & !self.info.has_deth.val();
            self.f_imm_reth.d.next = self.info.has_imm.val() & self.info.has_reth.val();
            self.f_imm_deth.d.next = self.info.has_imm.val() & self.info.has_deth.val();
            self.ext_len2.d.next = self.info.ext_len.val();
            self.ext2.d.next = self.r1.q.val().get_bits::<568>(16);
            self.eth2.d.next = self.eth_le.val();
            self.vl2.d.next = self.vl_le.val();
            self.l3_2.d.next = bit_cast::<336, 176>(self.v4_le.val());
            if self.r1.q.val().get_bit(993) {
                self.l3_2.d.next = self.v6_le.val();
            }
            self.ub2.d.next = self.ub_le.val();
            self.vlan2.d.next = self.r1.q.val().get_bit(1010);
            self.v6_2.d.next = self.r1.q.val().get_bit(993);
            // IPv4 header checksum: the words known now, summed in pairs
            self.sa2.d.next = bit_cast::<17, 16>(bit_cast::<16, 8>(self.tos.val()) | 0x4500)
                + bit_cast::<17, 16>(self.r1.q.val().get_bits::<16>(941));
            self.sb2.d.next = bit_cast::<17, 16>((bit_cast::<16, 8>(self.r1.q.val().get_bits::<8>(977)) << 8) | 17)
                + bit_cast::<17, 16>(self.r1.q.val().get_bits::<16>(829));
            self.sc2.d.next = bit_cast::<17, 16>(self.r1.q.val().get_bits::<16>(813))
                + bit_cast::<17, 16>(self.r1.q.val().get_bits::<16>(701));
            self.sd2.d.next = bit_cast::<17, 16>(self.r1.q.val().get_bits::<16>(685));
            // payload and pad
            self.u2.d.next = self.r1.q.val().get_bits::<16>(0) + bit_cast::<16, 2>(self.pad.val());
            self.p2.d.next = self.r1.q.val().get_bits::<16>(0);
        }

        // ---- H3: extended headers at fixed positions per class, lengths
        // (ext2 holds the header's bits 16..584: field offsets less 16)
        self.ew0.next = 0.into();
        self.ew1.next = 0.into();
        self.ew2.next = 0.into();
        self.ew3.next = 0.into();
        self.ew4.next = 0.into();
        self.ew5.next = 0.into();
        self.ew6.next = 0.into();
        if self.f_reth.q.val() {
            self.ew0.next = self.ew0.val() | self.ext2.q.val().get_bits::<32>(536);
            self.ew1.next = self.ew1.val() | self.ext2.q.val().get_bits::<32>(504);
            self.ew2.next = self.ew2.val() | self.ext2.q.val().get_bits::<32>(472);
            self.ew3.next = self.ew3.val() | self.ext2.q.val().get_bits::<32>(440);
        }
        if self.f_aeth.q.val() {
            self.ew0.next = self.ew0.val()
                | (bit_cast::<32, 8>(self.ext2.q.val().get_bits::<8>(432)) << 24)
                | bit_cast::<32, 24>(self.ext2.q.val().get_bits::<24>(408));
        }
        if self.f_ack.q.val() {
            self.ew1.next = self.ew1.val() | self.ext2.q.val().get_bits::<32>(152);
            self.ew2.next = self.ew2.val() | self.ext2.q.val().get_bits::<32>(120);
        }
        if self.f_atomic.q.val() {
            self.ew0.next = self.ew0.val() | self.ext2.q.val().get_bits::<32>(376);
            self.ew1.next = self.ew1.val() | self.ext2.q.val().get_bits::<32>(344);
            self.ew2.next = self.ew2.val() | self.ext2.q.val().get_bits::<32>(312);
            self.ew3.next = self.ew3.val() | self.ext2.q.val().get_bits::<32>(280);
            self.ew4.next = self.ew4.val() | self.ext2.q.val().get_bits::<32>(248);
            self.ew5.next = self.ew5.val() | self.ext2.q.val().get_bits::<32>(216);
            self.ew6.next = self.ew6.val() | self.ext2.q.val().get_bits::<32>(184);
        }
        if self.f_ieth.q.val() {
            self.ew0.next = self.ew0.val() | self.ext2.q.val().get_bits::<32>(56);
        }
        if self.f_deth.q.val() {
            self.ew0.next = self.ew0.val() | self.ext2.q.val().get_bits::<32>(24);
            self.ew1.next = self.ew1.val() | bit_cast::<32, 24>(self.ext2.q.val().get_bits::<24>(0));
        }
        if self.f_imm_only.q.val() {
            self.ew0.next = self.ew0.val() | self.ext2.q.val().get_bits::<32>(88);
        }
        if self.f_imm_deth.q.val() {
            self.ew2.next = self.ew2.val() | self.ext2.q.val().get_bits::<32>(88);
        }
        if self.f_imm_reth.q.val() {
            self.ew4.next = self.ew4.val() | self.ext2.q.val().get_bits::<32>(88);
        }
        self.ext_w.next = bit_cast::<224, 32>(self.ew0.val());
        self.ext_w.next = (self.ext_w.val() << 32) | bit_cast::<224, 32>(self.ew1.val());
        self.ext_w.next = (self.ext_w.val() << 32) | bit_cast::<224, 32>(self.ew2.val());
        self.ext_w.next = (self.ext_w.val() << 32) | bit_cast::<224, 32>(self.ew3.val());
        self.ext_w.next = (self.ext_w.val() << 32) | bit_cast::<224, 32>(self.ew4.val());
        self.ext_w.next = (self.ext_w.val() << 32) | bit_cast::<224, 32>(self.ew5.val());
        self.ext_w.next = (self.ext_w.val() << 32) | bit_cast::<224, 32>(self.ew6.val());
        self.ext_le.next = 0.into();
        for j in 0..28 {
            self.ext_b.next = self.ext_w.val().get_bits::<8>(8 * j);
            self.ext_le.next = (self.ext_le.val() << 8) | bit_cast::<224, 8>(self.ext_b.val());
        }
        // header length: Ethernet 14 (+4 VLAN), IP 20 or 40, UDP + BTH 20, extended headers
        self.hbase.next = 54.into();
        if self.vlan2.q.val() & self.v6_2.q.val() {
            self.hbase.next = 78.into();
        } else if self.vlan2.q.val() {
            self.hbase.next = 58.into();
        } else if self.v6_2.q.val() {
            self.hbase.next = 74.into();
        }
        if self.rdy3.val() {
            self.v3.d.next = self.v2.q.val();
            self.ext3.d.next = self.ext_le.val();
            // IP total length (IPv4) and UDP length: UDP + BTH 20, extended headers, payload, pad, ICRC
            self.ipt3.d.next = self.u2.q.val() + bit_cast::<16, 6>(self.ext_len2.q.val()) + 44;
            self.udl3.d.next = self.u2.q.val() + bit_cast::<16, 6>(self.ext_len2.q.val()) + 24;
            // the total length plus the flags word 0x4000, for the checksum
            self.ipk3.d.next = bit_cast::<20, 16>(self.u2.q.val()) + bit_cast::<20, 6>(self.ext_len2.q.val()) + 0x402c;
            self.t1_3.d.next = bit_cast::<18, 17>(self.sa2.q.val()) + bit_cast::<18, 17>(self.sb2.q.val());
            self.t2_3.d.next = bit_cast::<18, 17>(self.sc2.q.val()) + bit_cast::<18, 17>(self.sd2.q.val());
            self.hl3.d.next = self.hbase.val() + bit_cast::<8, 6>(self.ext_len2.q.val());
            self.eth3.d.next = self.eth2.q.val();
            self.vl3.d.next = self.vl2.q.val();
            self.l3_3.d.next = self.l3_2.q.val();
            self.ub3.d.next = self.ub2.q.val();
            self.vlan3.d.next = self.vlan2.q.val();
            self.v6_3.d.next = self.v6_2.q.val();
            self.u3.d.next = self.u2.q.val();
            self.p3.d.next = self.p2.q.val();
        }

        // ---- H4: lengths into their layers, the checksum's sum, the frame's geometry
        self.ipt_le.next = (bit_cast::<16, 8>(self.ipt3.q.val().get_bits::<8>(0)) << 8)
            | bit_cast::<16, 8>(self.ipt3.q.val().get_bits::<8>(8));
        self.udl_le.next = (bit_cast::<16, 8>(self.udl3.q.val().get_bits::<8>(0)) << 8)
            | bit_cast::<16, 8>(self.udl3.q.val().get_bits::<8>(8));
        self.e_sum.next = bit_cast::<16, 8>(self.hl3.q.val()) + self.p3.q.val();
        self.t_sum.next = bit_cast::<16, 8>(self.hl3.q.val()) + self.u3.q.val() + 4;
        if self.rdy4.val() {
            self.v4r.d.next = self.v3.q.val();
            self.acc4.d.next =
                (bit_cast::<20, 18>(self.t1_3.q.val()) + bit_cast::<20, 18>(self.t2_3.q.val())) + self.ipk3.q.val();
            // IPv4 total length at bytes 4..6 of Ethertype + IP, IPv6 payload length at 6..8
            self.l3_4.d.next = self.l3_3.q.val() | (bit_cast::<336, 16>(self.ipt_le.val()) << 32);
            if self.v6_3.q.val() {
                self.l3_4.d.next = self.l3_3.q.val() | (bit_cast::<336, 16>(self.udl_le.val()) << 48);
            }
            // UDP + BTH + extended headers, UDP length at bytes 4..6
            self.rest4.d.next = bit_cast::<384, 160>(self.ub3.q.val())
                | (bit_cast::<384, 16>(self.udl_le.val()) << 32)
                | (bit_cast::<384, 224>(self.ext3.q.val()) << 160);
            self.eth4.d.next = self.eth3.q.val();
            self.vl4.d.next = self.vl3.q.val();
            self.vlan4.d.next = self.vlan3.q.val();
            self.v6_4.d.next = self.v6_3.q.val();
            // header and payload; the whole frame (pad and ICRC too)
            self.e4.d.next = self.e_sum.val();
            self.t4.d.next = self.t_sum.val();
            // the first beat's compares
            self.t4_ge64.d.next = self.t_sum.val() >= 64;
            self.t4_le64.d.next = self.t_sum.val() <= 64;
            self.t4_lt68.d.next = self.t_sum.val() < 68;
            self.e4_ge64.d.next = self.e_sum.val() >= 64;
            // the lanes below the payload's offset (header length mod 64)
            self.lo4.d.next = !(self.ones64.val() << self.hl3.q.val().get_bits::<6>(0));
            self.hl4.d.next = self.hl3.q.val();
            // payload beats: the payload arrives in its wire lanes, from lane
            // H mod 64 of its first beat
            self.np4.d.next =
                (bit_cast::<17, 16>(self.p3.q.val()) + bit_cast::<17, 6>(self.hl3.q.val().get_bits::<6>(0)) + 63)
                    .get_bits::<11>(6);
            if self.p3.q.val() == 0 {
                self.np4.d.next = 0.into();
            }
        }

        // ---- the header in lanes (on load): Ethernet, VLAN tag, Ethertype + IP, UDP + BTH + extended headers
        self.g0.next = bit_cast::<17, 16>(self.acc4.q.val().get_bits::<16>(0))
            + bit_cast::<17, 4>(self.acc4.q.val().get_bits::<4>(16));
        self.csum.next = !(self.g0.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.g0.val().get_bits::<1>(16)));
        self.cs_le.next = (bit_cast::<16, 8>(self.csum.val().get_bits::<8>(0)) << 8)
            | bit_cast::<16, 8>(self.csum.val().get_bits::<8>(8));
        self.hdr_le.next = bit_cast::<848, 96>(self.eth4.q.val());
        if self.vlan4.q.val() {
            self.hdr_le.next = self.hdr_le.val()
                | (bit_cast::<848, 32>(self.vl4.q.val()) << 96)
                | (bit_cast::<848, 336>(self.l3_4.q.val()) << 128);
            if self.v6_4.q.val() {
                self.hdr_le.next = self.hdr_le.val() | (bit_cast::<848, 384>(self.rest4.q.val()) << 464);
            } else {
                self.hdr_le.next = self.hdr_le.val()
                    | (bit_cast::<848, 384>(self.rest4.q.val()) << 304)
                    | (bit_cast::<848, 16>(self.cs_le.val()) << 224);
            }
        } else {
            self.hdr_le.next = self.hdr_le.val() | (bit_cast::<848, 336>(self.l3_4.q.val()) << 96);
            if self.v6_4.q.val() {
                self.hdr_le.next = self.hdr_le.val() | (bit_cast::<848, 384>(self.rest4.q.val()) << 432);
            } else {
                self.hdr_le.next = self.hdr_le.val()
                    | (bit_cast::<848, 384>(self.rest4.q.val()) << 272)
                    | (bit_cast::<848, 16>(self.cs_le.val()) << 192);
            }
        }

        // ---- the sequencer: one output beat per cycle, described by cur_* (registers)
        // the next beat's description: the new frame's first beat on load, else the beat after this one
        if self.load.val() {
            self.nt_ge64.next = self.t4_ge64.q.val();
            self.nt_lo.next = self.t4.q.val().get_bits::<6>(0);
            self.n_last.next = self.t4_le64.q.val();
            self.n_patch.next = self.t4_lt68.q.val();
            self.n_poff.next = (self.t4.q.val() - 1).get_bits::<7>(0);
            self.ne_pos.next = true;
            self.ne_ge64.next = self.e4_ge64.q.val();
            self.ne_lo.next = self.e4.q.val().get_bits::<6>(0);
            self.n_hdronly.next = self.hl4.q.val().get_bit(6);
            self.n_hdlo.next = true;
            self.n_take.next = !self.hl4.q.val().get_bit(6) & (self.np4.q.val() != 0);
            self.n_lo.next = self.lo4.q.val();
        } else {
            self.nt_ge64.next = self.t_ge128.q.val();
            self.nt_lo.next = self.t_rem.q.val().get_bits::<6>(0);
            self.n_last.next = self.t_le128.q.val();
            self.n_patch.next = self.t_lt132.q.val();
            self.n_poff.next = (self.t_rem.q.val() - 65).get_bits::<7>(0);
            self.ne_pos.next = self.e_gt64.q.val();
            self.ne_ge64.next = self.e_ge128.q.val();
            self.ne_lo.next = self.e_rem.q.val().get_bits::<6>(0);
            self.n_hdronly.next = false;
            self.n_hdlo.next = self.hb_left.q.val();
            self.n_take.next = self.np_rem.q.val() >= 2;
            if self.hb_left.q.val() {
                self.n_take.next = self.np_rem.q.val() != 0;
            }
            self.n_lo.next = self.lo.q.val();
        }
        self.n_keep.next = self.ones64.val();
        if !self.nt_ge64.val() {
            self.n_keep.next = !(self.ones64.val() << self.nt_lo.val());
        }
        // lanes that hold header or payload bytes (pad and ICRC are zeros)
        self.n_valid.next = 0.into();
        if self.ne_pos.val() {
            self.n_valid.next = self.ones64.val();
            if !self.ne_ge64.val() {
                self.n_valid.next = !(self.ones64.val() << self.ne_lo.val());
            }
        }
        // per lane: header (h), the payload beat (p; it is in its wire
        // lanes), or zero. The header's last beat has header lanes below
        // the payload's lane, payload lanes from it on.
        self.n_h.next = 0.into();
        self.n_p.next = 0.into();
        if self.n_hdlo.val() {
            self.n_h.next = self.n_lo.val() & self.n_valid.val();
            if self.n_take.val() {
                self.n_p.next = !self.n_lo.val() & self.n_valid.val();
            }
        } else if self.n_take.val() {
            self.n_p.next = self.n_valid.val();
        }
        if self.n_hdronly.val() {
            self.n_h.next = self.ones64.val();
            self.n_p.next = 0.into();
        }
        if self.load.val() | self.emit.val() {
            self.cur_h.d.next = self.n_h.val();
            self.cur_p.d.next = self.n_p.val();
            self.cur_keep.d.next = self.n_keep.val();
            self.cur_last.d.next = self.n_last.val();
            self.cur_patch.d.next = self.n_patch.val();
            self.cur_poff.d.next = self.n_poff.val();
            self.cur_take.d.next = self.n_take.val();
        }
        if self.load.val() {
            self.in_frame.d.next = true;
            self.t_rem.d.next = self.t4.q.val();
            self.e_rem.d.next = self.e4.q.val();
            self.t_ge128.d.next = self.t4.q.val() >= 128;
            self.t_le128.d.next = self.t4.q.val() <= 128;
            self.t_lt132.d.next = self.t4.q.val() < 132;
            self.e_gt64.d.next = self.e4.q.val() > 64;
            self.e_ge128.d.next = self.e4.q.val() >= 128;
            self.np_rem.d.next = self.np4.q.val();
            self.hb_left.d.next = self.hl4.q.val().get_bit(6);
            self.lo.d.next = self.lo4.q.val();
            self.hd.d.next = self.hdr_le.val().get_bits::<512>(0);
            self.hq1.d.next = self.hdr_le.val().get_bits::<336>(512);
        } else if self.emit.val() {
            self.t_rem.d.next = self.t_rem.q.val() - 64;
            // the compares of the counts less 64 (e_rem stops at 0)
            self.t_ge128.d.next = self.t_rem.q.val() >= 192;
            self.t_le128.d.next = self.t_rem.q.val() <= 192;
            self.t_lt132.d.next = self.t_rem.q.val() < 196;
            self.e_gt64.d.next = self.e_rem.q.val() > 128;
            self.e_ge128.d.next = self.e_rem.q.val() >= 192;
            self.e_rem.d.next = 0.into();
            if self.e_rem.q.val() > 64 {
                self.e_rem.d.next = self.e_rem.q.val() - 64;
            }
            if self.cur_take.q.val() {
                self.np_rem.d.next = self.np_rem.q.val() - 1;
            }
            self.hb_left.d.next = false;
            if self.hb_left.q.val() {
                self.hd.d.next = bit_cast::<512, 336>(self.hq1.q.val());
            }
            if self.cur_last.q.val() {
                self.in_frame.d.next = false;
            }
        }
        // ---- payload: one beat waits in `pin`
        self.s_axis.tready.next = !self.pin_v.q.val() | self.pin_take.val();
        if self.s_axis.tvalid.val() & (!self.pin_v.q.val() | self.pin_take.val()) {
            self.pin.d.next = self.s_axis.tdata.val();
            self.pin_v.d.next = true;
        } else if self.pin_take.val() {
            self.pin_v.d.next = false;
        }

        // ---- data path: each lane from the header, the payload beat (no
        // byte moves: the payload comes in its wire lanes), or zero
        self.mrg.next = 0.into();
        for l in 0..64 {
            self.mb.next = 0.into();
            if self.cur_h.q.val().get_bit(l) {
                self.mb.next = self.hd.q.val().get_bits::<8>(8 * l);
            } else if self.cur_p.q.val().get_bit(l) {
                self.mb.next = self.pin.q.val().get_bits::<8>(8 * l);
            }
            self.mrg.next = (self.mrg.val() >> 8) | (bit_cast::<512, 8>(self.mb.val()) << 504);
        }
        self.r_data.d.next = self.mrg.val();
        self.r_keep.d.next = self.cur_keep.q.val();
        self.r_last.d.next = self.cur_last.q.val();
        self.r_patch.d.next = self.cur_patch.q.val();
        self.r_poff.d.next = self.cur_poff.q.val();
        self.r_valid.d.next = self.emit.val();

        // ---- frames into the ICRC pipeline and the holding FIFO
        self.crc_gen.s_axis.tdata.next = self.r_data.q.val();
        self.crc_gen.s_axis.tkeep.next = self.r_keep.q.val();
        self.crc_gen.s_axis.tlast.next = self.r_last.q.val();
        self.crc_gen.s_axis.tuser.next = 0.into();
        self.crc_gen.s_axis.tvalid.next = self.r_valid.q.val();
        self.beats.s_axis.tdata.next = self.r_data.q.val();
        self.beats.s_axis.tkeep.next = self.r_keep.q.val();
        self.beats.s_axis.tlast.next = self.r_last.q.val();
        // tuser: [0] holds ICRC bytes, [7:1] where they go, [15:8] when the beat came in
        self.now.d.next = self.now.q.val() + 1;
        self.beats.s_axis.tuser.next = (bit_cast::<16, 8>(self.now.q.val()) << 8)
            | (bit_cast::<16, 7>(self.r_poff.q.val()) << 1)
            | bit_cast::<16, 1>(self.r_patch.q.val().into());
        self.beats.s_axis.tvalid.next = self.r_valid.q.val();
        self.icrcs.s_axis.tdata.next = self.crc_gen.icrc.val();
        self.icrcs.s_axis.tkeep.next = 0xf.into();
        self.icrcs.s_axis.tlast.next = true;
        self.icrcs.s_axis.tuser.next = 0.into();
        self.icrcs.s_axis.tvalid.next = self.crc_gen.icrc_valid.val();

        // ---- output: beats that hold ICRC bytes wait for it
        // every beat stays HOLD cycles, longer than the ICRC takes, so frames
        // leave as a constant-latency line (no gap when a beat waits for its ICRC)
        self.age.next = self.now.q.val() - self.beats.m_axis.tuser.val().get_bits::<8>(8);
        self.head_ok.next = (self.ripe.q.val() | (self.age.val() >= self.hold.val()))
            & (!self.beats.m_axis.tuser.val().get_bit(0) | self.icrcs.m_axis.tvalid.val());
        // ripe until the head beat leaves (a beat with ICRC bytes is offered only
        // with its ICRC, which stays at the head of `icrcs` until then)
        self.ripe.d.next = self.ripe.q.val() | (self.age.val() >= self.hold.val());
        if (self.beats.m_axis.tvalid.val() & self.m_axis.tready.val() & self.head_ok.val())
            | !self.beats.m_axis.tvalid.val()
        {
            self.ripe.d.next = false;
        }
        self.head_off.next = self.beats.m_axis.tuser.val().get_bits::<7>(1);
        // ICRC byte 0 goes to lane t - 4 of the beat (negative: it began in
        // the beat before). A frame ends 2 bytes into a word, so head_off =
        // t - 1 is 4k + 1: a shift by whole words, then a fixed one.
        self.placed.next = ((bit_cast::<576, 32>(self.icrcs.m_axis.tdata.val()) << 16)
            << (bit_cast::<10, 5>(self.head_off.val().get_bits::<5>(2)) << 5))
            >> 32;
        self.m_axis.tdata.next = self.beats.m_axis.tdata.val();
        if self.beats.m_axis.tuser.val().get_bit(0) {
            self.m_axis.tdata.next = self.beats.m_axis.tdata.val() | self.placed.val().get_bits::<512>(0);
        }
        self.m_axis.tkeep.next = self.beats.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.beats.m_axis.tlast.val();
        self.m_axis.tuser.next = 0.into();
        self.m_axis.tvalid.next = self.beats.m_axis.tvalid.val() & self.head_ok.val();
        self.beats.m_axis.tready.next = self.m_axis.tready.val() & self.head_ok.val();
        self.icrcs.m_axis.tready.next = self.m_axis.tready.val()
            & self.head_ok.val()
            & self.beats.m_axis.tvalid.val()
            & self.beats.m_axis.tlast.val();

        // beats of the frame already decided and not yet gone from `beats`: at most its depth
        self.pop.next = self.beats.m_axis.tvalid.val() & self.beats.m_axis.tready.val();
        self.used_n.next =
            self.used.q.val() + bit_cast::<6, 1>(self.emit.val().into()) - bit_cast::<6, 1>(self.pop.val().into());
        self.used.d.next = self.used_n.val();
        self.credit_ok.d.next = !self.used_n.val().get_bit(5);

        if self.reset.val() {
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
            self.v4r.d.next = false;
            self.in_frame.d.next = false;
            self.pin_v.d.next = false;
            self.hb_left.d.next = false;
            self.used.d.next = 0.into();
            self.credit_ok.d.next = true;
            self.r_valid.d.next = false;
            self.ripe.d.next = false;
        }
    }
}
