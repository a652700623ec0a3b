//! `RxHeaderDecode`: classifies a frame and parses every RoCEv2 header from
//! its first 128 bytes (two beats), in [`RxHeaderDecode::LATENCY`] = 4
//! registered stages, one window per cycle (no stalls, no enable: every
//! stage moves every cycle; a valid bit, from `idle`, travels with the
//! window).
//!
//! Bytes past the frame's end in the second beat are ignored when
//! `one_beat` is set (the frame ends in its first beat); bytes past the end in the
//! first beat must be zero. `need_len` says how long the frame must be for
//! the verdict to hold (the parser checks it when the frame ends), mirroring
//! the receive path of the protocol model (`rnic_proto::decode_frame_rx`)
//! and its order of checks exactly:
//!
//! * Ethernet (one optional 802.1Q tag); not IPv4/IPv6: `raw`.
//! * IPv4: version 4, IHL >= 5, else malformed; IHL above 5 (options), a
//!   fragment or not UDP: `raw` (options are left to software: every
//!   RoCEv2 sender sends IHL 5, and without options every header lies at
//!   one of four fixed offsets per (VLAN, IPv4/IPv6)); total length >=
//!   header length; IPv6: version 6; next header UDP or `raw`.
//! * UDP: port 4791 or `raw`; UDP length == IP payload length.
//! * BTH: TVer 0, a known opcode; the opcode's extended headers, 4 bytes of
//!   ICRC, no payload on opcodes that carry none, pad <= payload.
//!
//! Stages (each ends in registers; every stage's registers are zero when
//! its window is `idle`, which also keeps yosys from turning the
//! pass-through fields into shift registers; the condition is a register
//! that is 1 for "zero", so it maps to the flip-flops' reset pins without
//! an inverter per flip-flop):
//! 1. VLAN, IPv4/IPv6; the 40 IP header bytes at offset 14 or 18 (a 2-way
//!    select), and bytes 34..106, where the UDP header starts at 34, 38, 54
//!    or 58 (bytes from 64 on zeroed when `one_beat`);
//! 2. the 48 bytes of UDP, BTH and extended headers at one of the four
//!    offsets (a 4-way select by the registered (VLAN, IPv6)); IP fields;
//!    the IPv4 checksum as three partial sums;
//! 3. opcode table, lengths (IP payload, UDP payload, headers), the checks
//!    that need only stage 2's registers, the checksum sum;
//! 4. the comparisons against the UDP payload length, the checks in the
//!    model's order (a priority encoder of registered bits), `need_len`,
//!    `payload_len`, the checksum verdict, the stored header.
//!
//! Multi-byte fields are big-endian on the wire; each header region is
//! byte-reversed once (wiring) so every field is a plain slice.
//! `hdr` packs the fields in the order of [`RX_HDR_FIELDS`] (first = most
//! significant); `stored` holds the same header in [`RX_HDR_STORE_BITS`]
//! bits (the extended-header fields as the raw 28 bytes they are slices of),
//! which [`RxHdrExpand`] turns into `hdr`: the parser queues `stored`.

use super::OpcodeInfo;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Width of the packed header.
pub const RX_HDR_BITS: usize = 1024;

/// Packed header fields, most significant first, with their widths.
pub const RX_HDR_FIELDS: &[(&str, usize)] = &[
    ("bth.opcode", 8),
    ("bth.se", 1),
    ("bth.m", 1),
    ("bth.padcnt", 2),
    ("bth.tver", 4),
    ("bth.p_key", 16),
    ("bth.fecn", 1),
    ("bth.becn", 1),
    ("bth.destqp", 24),
    ("bth.a", 1),
    ("bth.psn", 24),
    ("has.reth", 1),
    ("has.aeth", 1),
    ("has.atomiceth", 1),
    ("has.atomicacketh", 1),
    ("has.immdt", 1),
    ("has.ieth", 1),
    ("has.deth", 1),
    ("has.cnp", 1),
    ("reth.va", 64),
    ("reth.r_key", 32),
    ("reth.dmalen", 32),
    ("aeth.syndrome", 8),
    ("aeth.msn", 24),
    ("atomiceth.va", 64),
    ("atomiceth.r_key", 32),
    ("atomiceth.swapdt", 64),
    ("atomiceth.cmpdt", 64),
    ("atomicacketh.origremdt", 64),
    ("immdt", 32),
    ("ieth.r_key", 32),
    ("deth.q_key", 32),
    ("deth.srcqp", 24),
    ("ip.v6", 1),
    ("ip.dscp", 6),
    ("ip.ecn", 2),
    ("ip.src", 128),
    ("ip.dst", 128),
    ("udp.srcport", 16),
    ("payload_len", 16),
    // the lane (byte offset within its beat) of the payload's first byte:
    // the parser hands the payload out in its wire lanes
    ("payload_lane", 6),
];

/// Width of the packed fields (the rest of `hdr`, at the top, is zero).
pub const RX_HDR_PACKED_BITS: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < RX_HDR_FIELDS.len() {
        n += RX_HDR_FIELDS[i].1;
        i += 1;
    }
    n
};

/// The lowest bit of a received header field in `hdr`: the fields are
/// packed most significant first, ending at bit 0 (the rest of `hdr`, at
/// the top, is zero); for the blocks that read a field of a received header.
pub const fn rx_field_lsb(name: &str) -> usize {
    let mut top = RX_HDR_PACKED_BITS;
    let mut i = 0;
    while i < RX_HDR_FIELDS.len() {
        top -= RX_HDR_FIELDS[i].1;
        let f = RX_HDR_FIELDS[i].0.as_bytes();
        let n = name.as_bytes();
        if f.len() == n.len() {
            let mut k = 0;
            while k < n.len() && f[k] == n[k] {
                k += 1;
            }
            if k == n.len() {
                return top;
            }
        }
        i += 1;
    }
    panic!("no such received header field")
}

/// Width of the stored header, most significant first: the BTH fields and
/// the `has.*` flags of [`RX_HDR_FIELDS`] (91 bits), the 28 bytes after the
/// BTH (every extended-header field of [`RX_HDR_FIELDS`] but `immdt` is a
/// slice of them), `immdt` (32), then the fields from `ip.v6` on (303).
pub const RX_HDR_STORE_BITS: usize = 91 + 224 + 32 + 303;

/// The stored header's parts, as [`RxHdrExpand`] reads them (literals in
/// `#[hdl_gen]` code, checked here).
const STORE_TAIL: usize = 303;
const STORE_IMM: usize = STORE_TAIL;
const STORE_EXT: usize = STORE_IMM + 32;
const STORE_HEAD: usize = STORE_EXT + 224;
const _: () = assert!(STORE_TAIL == 1 + 6 + 2 + 128 + 128 + 16 + 16 + 6);
const _: () = assert!(STORE_HEAD == 559 && RX_HDR_STORE_BITS == STORE_HEAD + 91 && RX_HDR_STORE_BITS == 650);
const _: () = assert!(RX_HDR_PACKED_BITS == 91 + 128 + 32 + 224 + 64 + 32 + 32 + 32 + 24 + STORE_TAIL);
const _: () = assert!(RX_HDR_PACKED_BITS <= RX_HDR_BITS);

/// Why a frame is malformed (0: it is not).
pub mod reason {
    pub const NONE: u64 = 0;
    pub const IP_VERSION: u64 = 1;
    pub const IP_HEADER_LEN: u64 = 2;
    pub const IP_TOTAL_LEN: u64 = 3;
    pub const UDP_LEN: u64 = 4;
    pub const BTH_TVER: u64 = 5;
    pub const OPCODE: u64 = 6;
    pub const HEADERS_LEN: u64 = 7;
    pub const PAYLOAD: u64 = 8;
    pub const PAD: u64 = 9;
}

/// The stored header ([`RX_HDR_STORE_BITS`]) as the packed one
/// ([`RX_HDR_FIELDS`] in [`RX_HDR_BITS`]): wiring only.
#[derive(LogicBlock, Default)]
pub struct RxHdrExpand {
    pub stored: Signal<In, Bits<RX_HDR_STORE_BITS>>,
    pub hdr: Signal<Out, Bits<RX_HDR_BITS>>,
    ext: Signal<Local, Bits<224>>,
    packed: Signal<Local, Bits<1024>>,
    kind: TypeTag<Self>,
}

impl Logic for RxHdrExpand {
    #[hdl_gen]
    fn update(&mut self) {
        // the 28 bytes after the BTH, byte 0 at the top
        self.ext.next = self.stored.val().get_bits::<224>(335);
        // BTH fields and has.* flags
        self.packed.next = bit_cast::<1024, 91>(self.stored.val().get_bits::<91>(559));
        // RETH
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.ext.val().get_bits::<64>(160));
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.ext.val().get_bits::<32>(128));
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.ext.val().get_bits::<32>(96));
        // AETH
        self.packed.next = (self.packed.val() << 8) | bit_cast::<1024, 8>(self.ext.val().get_bits::<8>(216));
        self.packed.next = (self.packed.val() << 24) | bit_cast::<1024, 24>(self.ext.val().get_bits::<24>(192));
        // AtomicETH
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.ext.val().get_bits::<64>(160));
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.ext.val().get_bits::<32>(128));
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.ext.val().get_bits::<64>(64));
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.ext.val().get_bits::<64>(0));
        // AtomicAckETH (after the AETH)
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.ext.val().get_bits::<64>(128));
        // ImmDt (selected by the decoder), IETH, DETH
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.stored.val().get_bits::<32>(303));
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.ext.val().get_bits::<32>(192));
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.ext.val().get_bits::<32>(192));
        self.packed.next = (self.packed.val() << 24) | bit_cast::<1024, 24>(self.ext.val().get_bits::<24>(160));
        // ip.v6 .. payload_lane
        self.packed.next = (self.packed.val() << 303) | bit_cast::<1024, 303>(self.stored.val().get_bits::<303>(0));
        self.hdr.next = self.packed.val();
    }
}

/// The packed header ([`RX_HDR_FIELDS`] in [`RX_HDR_BITS`]) as the stored
/// one ([`RX_HDR_STORE_BITS`]): the inverse of [`RxHdrExpand`] on every
/// header it makes (the AtomicETH's 224 bits are the 28 bytes after the BTH,
/// of which every other extended-header field is a slice), wiring only.
/// For a block that queues the parser's headers in the smaller form.
#[derive(LogicBlock, Default)]
pub struct RxHdrPack {
    pub hdr: Signal<In, Bits<RX_HDR_BITS>>,
    pub stored: Signal<Out, Bits<RX_HDR_STORE_BITS>>,
    kind: TypeTag<Self>,
}

/// Where [`RxHdrPack`] finds the stored parts in the packed header (bit
/// offsets from the bottom; literals in `#[hdl_gen]` code, checked here).
const PACKED_IMM: usize = STORE_TAIL + 56 + 32;
const PACKED_ATOMIC: usize = PACKED_IMM + 32 + 64;
const PACKED_BTH: usize = PACKED_ATOMIC + 224 + 32 + 128;
const _: () = assert!(PACKED_IMM == 391 && PACKED_ATOMIC == 487 && PACKED_BTH == 871);
const _: () = assert!(PACKED_BTH + 91 == RX_HDR_PACKED_BITS);

impl Logic for RxHdrPack {
    #[hdl_gen]
    fn update(&mut self) {
        self.stored.next = (bit_cast::<650, 91>(self.hdr.val().get_bits::<91>(871)) << 559)
            | (bit_cast::<650, 224>(self.hdr.val().get_bits::<224>(487)) << 335)
            | (bit_cast::<650, 32>(self.hdr.val().get_bits::<32>(391)) << 303)
            | bit_cast::<650, 303>(self.hdr.val().get_bits::<303>(0));
    }
}

#[derive(LogicBlock, Default)]
pub struct RxHeaderDecode {
    pub clock: Signal<In, Clock>,
    /// First 128 bytes of the frame (byte `i` at bits `8i..8i+8`).
    pub window: Signal<In, Bits<1024>>,
    /// The frame ends in the first beat: bytes 64.. of `window` read as zero.
    pub one_beat: Signal<In, Bit>,
    /// `window` holds no frame's start this cycle: the outputs `LATENCY`
    /// cycles later are zero (and `out_valid` low).
    pub idle: Signal<In, Bit>,
    /// The outputs below belong to the window given `LATENCY` cycles ago.
    pub out_valid: Signal<Out, Bit>,
    pub hdr: Signal<Out, Bits<1024>>,
    pub stored: Signal<Out, Bits<RX_HDR_STORE_BITS>>,
    /// Well-formed RoCEv2 (pending length, ICRC and IPv4 checksum).
    pub is_roce: Signal<Out, Bit>,
    /// Well-formed, not RoCEv2: for the raw queue.
    pub is_raw: Signal<Out, Bit>,
    /// RoCEv2 to QP1 (the GSI: rdma_cm MADs), a UD frame like any other,
    /// counted in `is_roce`; for the transport to route.
    pub qp1: Signal<Out, Bit>,
    /// Malformed; see [`reason`].
    pub bad_reason: Signal<Out, Bits<4>>,
    /// The frame must be at least this long, or it is malformed.
    pub need_len: Signal<Out, Bits<17>>,
    /// IPv4 header checksum matches (always 1 for IPv6).
    pub ip_csum_ok: Signal<Out, Bit>,
    /// Payload start (bytes from the frame's start) and length.
    pub payload_off: Signal<Out, Bits<7>>,
    pub payload_len: Signal<Out, Bits<16>>,

    // ---- stage 1
    vlan: Signal<Local, Bit>,
    et: Signal<Local, Bits<16>>,
    ipw: Signal<Local, Bits<1024>>,
    rb: Signal<Local, Bits<8>>,
    ip_rev: Signal<Local, Bits<320>>,
    s1_idle: Reg<Bit>,
    s1_vlan: Reg<Bit>,
    s1_v4: Reg<Bit>,
    s1_v6: Reg<Bit>,
    /// IP header bytes 0..40, byte 0 at the top.
    s1_ip: Reg<Bits<320>>,
    /// Frame bytes 34..106 (byte 34 at the bottom).
    s1_u: Reg<Bits<576>>,
    // ---- stage 2
    rg: Signal<Local, Bits<384>>,
    rrev: Signal<Local, Bits<384>>,
    ipsh: Signal<Local, Bits<320>>,
    w16: Signal<Local, Bits<16>>,
    word: [Signal<Local, Bits<18>>; 10],
    s2_idle: Reg<Bit>,
    s2_vlan: Reg<Bit>,
    s2_v4: Reg<Bit>,
    s2_v6: Reg<Bit>,
    /// UDP, BTH and extended headers: 48 bytes, UDP byte 0 at the top.
    s2_r: Reg<Bits<384>>,
    s2_ver_bad: Reg<Bit>,
    s2_ihl: Reg<Bits<4>>,
    s2_not_udp: Reg<Bit>,
    s2_frag: Reg<Bit>,
    s2_total: Reg<Bits<17>>,
    s2_tc: Reg<Bits<8>>,
    s2_src: Reg<Bits<128>>,
    s2_dst: Reg<Bits<128>>,
    s2_csum_st: Reg<Bits<16>>,
    s2_sa: Reg<Bits<18>>,
    s2_sb: Reg<Bits<18>>,
    s2_sc: Reg<Bits<18>>,
    // ---- stage 3
    info: OpcodeInfo,
    brev: Signal<Local, Bits<320>>,
    l2: Signal<Local, Bits<7>>,
    iph: Signal<Local, Bits<7>>,
    ipmin: Signal<Local, Bits<7>>,
    ip_pl18: Signal<Local, Bits<18>>,
    udp_pl18: Signal<Local, Bits<18>>,
    hdrs_len: Signal<Local, Bits<7>>,
    imm: Signal<Local, Bits<32>>,
    fields: Signal<Local, Bits<1024>>,
    s3_idle: Reg<Bit>,
    s3_v4: Reg<Bit>,
    s3_ip: Reg<Bit>,
    s3_c1: Reg<Bit>,
    s3_c2: Reg<Bit>,
    s3_c3: Reg<Bit>,
    s3_c4: Reg<Bit>,
    s3_c5: Reg<Bit>,
    s3_c6: Reg<Bit>,
    s3_c9: Reg<Bit>,
    s3_c10: Reg<Bit>,
    s3_carries: Reg<Bit>,
    s3_qp1: Reg<Bit>,
    s3_ip_pl: Reg<Bits<17>>,
    s3_udp_pl: Reg<Bits<17>>,
    s3_udp_len: Reg<Bits<17>>,
    s3_hdrs_len: Reg<Bits<17>>,
    /// Headers and pad: the UDP payload less this is the payload.
    s3_hp: Reg<Bits<17>>,
    s3_need_a: Reg<Bits<17>>,
    s3_need_b: Reg<Bits<17>>,
    s3_need_c: Reg<Bits<17>>,
    s3_need_d: Reg<Bits<17>>,
    s3_poff: Reg<Bits<7>>,
    s3_sum: Reg<Bits<20>>,
    s3_csum_st: Reg<Bits<16>>,
    /// The stored checksum plus one.
    s3_csum_st1: Reg<Bits<16>>,
    /// The stored header but `payload_len` and `payload_lane`.
    s3_fields: Reg<Bits<628>>,
    // ---- stage 4
    fold: Signal<Local, Bits<17>>,
    c7: Signal<Local, Bit>,
    c8: Signal<Local, Bit>,
    c11: Signal<Local, Bit>,
    c12: Signal<Local, Bit>,
    c13: Signal<Local, Bit>,
    s4_idle: Reg<Bit>,
    s4_roce: Reg<Bit>,
    s4_raw: Reg<Bit>,
    s4_qp1: Reg<Bit>,
    s4_bad: Reg<Bits<4>>,
    s4_need: Reg<Bits<17>>,
    s4_csum_ok: Reg<Bit>,
    s4_poff: Reg<Bits<7>>,
    s4_plen: Reg<Bits<16>>,
    s4_stored: Reg<Bits<RX_HDR_STORE_BITS>>,
    expand: RxHdrExpand,
    kind: TypeTag<Self>,
}

impl RxHeaderDecode {
    /// Cycles from a window to its outputs.
    pub const LATENCY: u64 = 4;
}

impl Logic for RxHeaderDecode {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_idle,
            s1_vlan,
            s1_v4,
            s1_v6,
            s1_ip,
            s1_u,
            s2_idle,
            s2_vlan,
            s2_v4,
            s2_v6,
            s2_r,
            s2_ver_bad,
            s2_ihl,
            s2_not_udp,
            s2_frag,
            s2_total,
            s2_tc,
            s2_src,
            s2_dst,
            s2_csum_st,
            s2_sa,
            s2_sb,
            s2_sc,
            s3_idle,
            s3_v4,
            s3_ip,
            s3_c1,
            s3_c2,
            s3_c3,
            s3_c4,
            s3_c5,
            s3_c6,
            s3_c9,
            s3_c10,
            s3_carries,
            s3_qp1,
            s3_ip_pl,
            s3_udp_pl,
            s3_udp_len,
            s3_hdrs_len,
            s3_hp,
            s3_need_a,
            s3_need_b,
            s3_need_c,
            s3_need_d,
            s3_poff,
            s3_sum,
            s3_csum_st,
            s3_csum_st1,
            s3_fields,
            s4_idle,
            s4_roce,
            s4_raw,
            s4_qp1,
            s4_bad,
            s4_need,
            s4_csum_ok,
            s4_poff,
            s4_plen,
            s4_stored
        );

        // ---- stage 1: Ethernet, and the byte ranges the later stages read
        self.vlan.next = self.window.val().get_bits::<16>(96) == 0x0081;
        self.et.next = self.window.val().get_bits::<16>(96);
        self.ipw.next = self.window.val() >> 112;
        if self.vlan.val() {
            self.et.next = self.window.val().get_bits::<16>(128);
            self.ipw.next = self.window.val() >> 144;
        }
        self.ip_rev.next = 0.into();
        for j in 0..40 {
            self.rb.next = self.ipw.val().get_bits::<8>(8 * j);
            self.ip_rev.next = (self.ip_rev.val() << 8) | bit_cast::<320, 8>(self.rb.val());
        }
        self.s1_idle.d.next = self.idle.val();
        self.s1_vlan.d.next = self.vlan.val();
        self.s1_v4.d.next = self.et.val() == 0x0008;
        self.s1_v6.d.next = self.et.val() == 0xdd86;
        self.s1_ip.d.next = self.ip_rev.val();
        self.s1_u.d.next = self.window.val().get_bits::<576>(272);
        if self.one_beat.val() {
            self.s1_u.d.next = bit_cast::<576, 240>(self.window.val().get_bits::<240>(272));
        }
        if self.idle.val() {
            self.s1_vlan.d.next = false;
            self.s1_v4.d.next = false;
            self.s1_v6.d.next = false;
            self.s1_ip.d.next = 0.into();
            self.s1_u.d.next = 0.into();
        }

        // ---- stage 2: UDP..extended headers at 34, 38, 54 or 58; IP fields
        self.rg.next = self.s1_u.q.val().get_bits::<384>(0);
        if self.s1_vlan.q.val() & !self.s1_v6.q.val() {
            self.rg.next = self.s1_u.q.val().get_bits::<384>(32);
        }
        if !self.s1_vlan.q.val() & self.s1_v6.q.val() {
            self.rg.next = self.s1_u.q.val().get_bits::<384>(160);
        }
        if self.s1_vlan.q.val() & self.s1_v6.q.val() {
            self.rg.next = self.s1_u.q.val().get_bits::<384>(192);
        }
        self.rrev.next = 0.into();
        for j in 0..48 {
            self.rb.next = self.rg.val().get_bits::<8>(8 * j);
            self.rrev.next = (self.rrev.val() << 8) | bit_cast::<384, 8>(self.rb.val());
        }
        self.s2_idle.d.next = self.s1_idle.q.val();
        self.s2_vlan.d.next = self.s1_vlan.q.val();
        self.s2_v4.d.next = self.s1_v4.q.val();
        self.s2_v6.d.next = self.s1_v6.q.val();
        self.s2_r.d.next = self.rrev.val();
        self.s2_ver_bad.d.next = (self.s1_v4.q.val() & (self.s1_ip.q.val().get_bits::<4>(316) != 4))
            | (self.s1_v6.q.val() & (self.s1_ip.q.val().get_bits::<4>(316) != 6));
        self.s2_ihl.d.next = self.s1_ip.q.val().get_bits::<4>(312);
        // IPv4: total length, protocol, MF flag or a fragment offset, TOS,
        // addresses in the low 32 bits
        self.s2_total.d.next = bit_cast::<17, 16>(self.s1_ip.q.val().get_bits::<16>(288));
        self.s2_not_udp.d.next = self.s1_ip.q.val().get_bits::<8>(240) != 17;
        self.s2_frag.d.next = self.s1_ip.q.val().get_bits::<14>(256).any();
        self.s2_tc.d.next = self.s1_ip.q.val().get_bits::<8>(304);
        self.s2_src.d.next = bit_cast::<128, 32>(self.s1_ip.q.val().get_bits::<32>(192));
        self.s2_dst.d.next = bit_cast::<128, 32>(self.s1_ip.q.val().get_bits::<32>(160));
        if self.s1_v6.q.val() {
            self.s2_total.d.next = bit_cast::<17, 16>(self.s1_ip.q.val().get_bits::<16>(272)) + 40;
            self.s2_not_udp.d.next = self.s1_ip.q.val().get_bits::<8>(264) != 17;
            self.s2_frag.d.next = false;
            // the traffic class straddles bytes 0 and 1
            self.s2_tc.d.next = self.s1_ip.q.val().get_bits::<8>(308);
            self.s2_src.d.next = self.s1_ip.q.val().get_bits::<128>(128);
            self.s2_dst.d.next = self.s1_ip.q.val().get_bits::<128>(0);
        }
        // IPv4 checksum as the model computes it: the sum of the header's
        // words with the checksum field left out, in three parts (`word[i]`
        // is the header's word 9 - i; word 5, the checksum, is `word[4]`)
        self.ipsh.next = self.s1_ip.q.val() >> 160;
        for i in 0..10 {
            self.w16.next = self.ipsh.val().get_bits::<16>(16 * i);
            self.word[i].next = bit_cast::<18, 16>(self.w16.val());
        }
        self.s2_sa.d.next = self.word[0].val() + self.word[1].val() + self.word[2].val();
        self.s2_sb.d.next = self.word[3].val() + self.word[5].val() + self.word[6].val();
        self.s2_sc.d.next = self.word[7].val() + self.word[8].val() + self.word[9].val();
        self.s2_csum_st.d.next = self.word[4].val().get_bits::<16>(0);
        if self.s1_idle.q.val() {
            self.s2_vlan.d.next = false;
            self.s2_v4.d.next = false;
            self.s2_v6.d.next = false;
            self.s2_r.d.next = 0.into();
            self.s2_ver_bad.d.next = false;
            self.s2_ihl.d.next = 0.into();
            self.s2_total.d.next = 0.into();
            self.s2_not_udp.d.next = false;
            self.s2_frag.d.next = false;
            self.s2_tc.d.next = 0.into();
            self.s2_src.d.next = 0.into();
            self.s2_dst.d.next = 0.into();
            self.s2_sa.d.next = 0.into();
            self.s2_sb.d.next = 0.into();
            self.s2_sc.d.next = 0.into();
            self.s2_csum_st.d.next = 0.into();
        }

        // ---- stage 3: opcode table, lengths, the checks of stage 2's fields
        // BTH and the 28 bytes after it, BTH byte 0 at the top
        self.brev.next = self.s2_r.q.val().get_bits::<320>(0);
        self.info.opcode.next = self.brev.val().get_bits::<8>(312);
        self.l2.next = 14.into();
        if self.s2_vlan.q.val() {
            self.l2.next = 18.into();
        }
        self.iph.next = bit_cast::<7, 4>(self.s2_ihl.q.val()) << 2;
        self.ipmin.next = 20.into();
        if self.s2_v6.q.val() {
            self.iph.next = 40.into();
            self.ipmin.next = 40.into();
        }
        self.ip_pl18.next = bit_cast::<18, 17>(self.s2_total.q.val()) - bit_cast::<18, 7>(self.iph.val());
        self.udp_pl18.next = bit_cast::<18, 17>(self.s2_total.q.val()) - bit_cast::<18, 7>(self.iph.val() + 8);
        // BTH + extended headers + ICRC
        self.hdrs_len.next = bit_cast::<7, 6>(self.info.ext_len.val()) + 16;
        self.s3_idle.d.next = self.s2_idle.q.val();
        self.s3_v4.d.next = self.s2_v4.q.val();
        self.s3_ip.d.next = self.s2_v4.q.val() | self.s2_v6.q.val();
        self.s3_c1.d.next = self.s2_ver_bad.q.val();
        self.s3_c2.d.next = self.s2_v4.q.val() & (self.s2_ihl.q.val() < 5);
        self.s3_c3.d.next =
            self.s2_frag.q.val() | self.s2_not_udp.q.val() | (self.s2_v4.q.val() & (self.s2_ihl.q.val() > 5));
        self.s3_c4.d.next = self.s2_v4.q.val() & self.ip_pl18.val().get_bit(17);
        self.s3_c5.d.next = self.udp_pl18.val().get_bit(17);
        self.s3_c6.d.next = self.s2_r.q.val().get_bits::<16>(352) != 4791;
        self.s3_c9.d.next = self.brev.val().get_bits::<4>(304) != 0;
        self.s3_c10.d.next = !self.info.known.val();
        self.s3_carries.d.next = self.info.carries_payload.val();
        self.s3_qp1.d.next = self.brev.val().get_bits::<24>(256) == 1;
        self.s3_ip_pl.d.next = self.ip_pl18.val().get_bits::<17>(0);
        self.s3_udp_pl.d.next = self.udp_pl18.val().get_bits::<17>(0);
        self.s3_udp_len.d.next = bit_cast::<17, 16>(self.s2_r.q.val().get_bits::<16>(336));
        self.s3_hdrs_len.d.next = bit_cast::<17, 7>(self.hdrs_len.val());
        self.s3_hp.d.next =
            bit_cast::<17, 7>(self.hdrs_len.val()) + bit_cast::<17, 2>(self.brev.val().get_bits::<2>(308));
        self.s3_need_a.d.next = bit_cast::<17, 7>(self.l2.val());
        self.s3_need_b.d.next = bit_cast::<17, 7>(self.l2.val() + self.ipmin.val());
        self.s3_need_c.d.next = bit_cast::<17, 7>(self.l2.val() + self.iph.val());
        self.s3_need_d.d.next = bit_cast::<17, 7>(self.l2.val()) + self.s2_total.q.val();
        self.s3_poff.d.next = self.l2.val() + self.iph.val() + 20 + bit_cast::<7, 6>(self.info.ext_len.val());
        self.s3_sum.d.next = bit_cast::<20, 18>(self.s2_sa.q.val())
            + bit_cast::<20, 18>(self.s2_sb.q.val())
            + bit_cast::<20, 18>(self.s2_sc.q.val());
        self.s3_csum_st.d.next = self.s2_csum_st.q.val();
        self.s3_csum_st1.d.next = self.s2_csum_st.q.val() + 1;
        // ImmDt: after the BTH, after a RETH or after a DETH
        self.imm.next = self.brev.val().get_bits::<32>(192);
        if self.info.has_reth.val() {
            self.imm.next = self.brev.val().get_bits::<32>(64);
        }
        if self.info.has_deth.val() {
            self.imm.next = self.brev.val().get_bits::<32>(128);
        }
        // the stored header but payload_len, most significant first
        self.fields.next = bit_cast::<1024, 8>(self.brev.val().get_bits::<8>(312));
        self.fields.next = (self.fields.val() << 8) | bit_cast::<1024, 8>(self.brev.val().get_bits::<8>(304));
        self.fields.next = (self.fields.val() << 16) | bit_cast::<1024, 16>(self.brev.val().get_bits::<16>(288));
        self.fields.next = (self.fields.val() << 2) | bit_cast::<1024, 2>(self.brev.val().get_bits::<2>(286));
        self.fields.next = (self.fields.val() << 24) | bit_cast::<1024, 24>(self.brev.val().get_bits::<24>(256));
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.brev.val().get_bits::<1>(255));
        self.fields.next = (self.fields.val() << 24) | bit_cast::<1024, 24>(self.brev.val().get_bits::<24>(224));
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.info.has_reth.val().into());
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.info.has_aeth.val().into());
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.info.has_atomic.val().into());
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.info.has_atomicack.val().into());
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.info.has_imm.val().into());
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.info.has_ieth.val().into());
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.info.has_deth.val().into());
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.info.has_cnp.val().into());
        self.fields.next = (self.fields.val() << 224) | bit_cast::<1024, 224>(self.brev.val().get_bits::<224>(0));
        self.fields.next = (self.fields.val() << 32) | bit_cast::<1024, 32>(self.imm.val());
        self.fields.next = (self.fields.val() << 1) | bit_cast::<1024, 1>(self.s2_v6.q.val().into());
        self.fields.next = (self.fields.val() << 8) | bit_cast::<1024, 8>(self.s2_tc.q.val());
        self.fields.next = (self.fields.val() << 128) | bit_cast::<1024, 128>(self.s2_src.q.val());
        self.fields.next = (self.fields.val() << 128) | bit_cast::<1024, 128>(self.s2_dst.q.val());
        self.fields.next = (self.fields.val() << 16) | bit_cast::<1024, 16>(self.s2_r.q.val().get_bits::<16>(368));
        self.s3_fields.d.next = self.fields.val().get_bits::<628>(0);
        if self.s2_idle.q.val() {
            self.s3_v4.d.next = false;
            self.s3_ip.d.next = false;
            self.s3_c1.d.next = false;
            self.s3_c2.d.next = false;
            self.s3_c3.d.next = false;
            self.s3_c4.d.next = false;
            self.s3_c5.d.next = false;
            self.s3_c6.d.next = false;
            self.s3_c9.d.next = false;
            self.s3_c10.d.next = false;
            self.s3_carries.d.next = false;
            self.s3_qp1.d.next = false;
            self.s3_ip_pl.d.next = 0.into();
            self.s3_udp_pl.d.next = 0.into();
            self.s3_udp_len.d.next = 0.into();
            self.s3_hdrs_len.d.next = 0.into();
            self.s3_hp.d.next = 0.into();
            self.s3_need_a.d.next = 0.into();
            self.s3_need_b.d.next = 0.into();
            self.s3_need_c.d.next = 0.into();
            self.s3_need_d.d.next = 0.into();
            self.s3_poff.d.next = 0.into();
            self.s3_sum.d.next = 0.into();
            self.s3_csum_st.d.next = 0.into();
            self.s3_csum_st1.d.next = 0.into();
            self.s3_fields.d.next = 0.into();
        }

        // ---- stage 4: comparisons with the UDP payload length, the verdict
        self.c7.next = self.s3_udp_len.q.val() != self.s3_ip_pl.q.val();
        self.c8.next = self.s3_udp_pl.q.val() < 12;
        self.c11.next = self.s3_udp_pl.q.val() < self.s3_hdrs_len.q.val();
        self.c12.next = !self.s3_carries.q.val() & (self.s3_udp_pl.q.val() != self.s3_hdrs_len.q.val());
        // the pad is longer than what follows the headers
        self.c13.next = self.s3_udp_pl.q.val() < self.s3_hp.q.val();
        self.s4_roce.d.next = false;
        self.s4_raw.d.next = false;
        self.s4_bad.d.next = 0.into();
        self.s4_need.d.next = self.s3_need_a.q.val();
        if self.s3_ip.q.val() {
            self.s4_need.d.next = self.s3_need_b.q.val();
            if self.s3_c1.q.val() {
                self.s4_bad.d.next = 1.into();
            } else if self.s3_c2.q.val() {
                self.s4_bad.d.next = 2.into();
            } else {
                self.s4_need.d.next = self.s3_need_c.q.val();
                if self.s3_c3.q.val() {
                    self.s4_raw.d.next = true;
                } else if self.s3_c4.q.val() {
                    self.s4_bad.d.next = 3.into();
                } else {
                    self.s4_need.d.next = self.s3_need_d.q.val();
                    if self.s3_c5.q.val() {
                        self.s4_bad.d.next = 4.into();
                    } else if self.s3_c6.q.val() {
                        self.s4_raw.d.next = true;
                    } else if self.c7.val() {
                        self.s4_bad.d.next = 4.into();
                    } else if self.c8.val() {
                        self.s4_bad.d.next = 7.into();
                    } else if self.s3_c9.q.val() {
                        self.s4_bad.d.next = 5.into();
                    } else if self.s3_c10.q.val() {
                        self.s4_bad.d.next = 6.into();
                    } else if self.c11.val() {
                        self.s4_bad.d.next = 7.into();
                    } else if self.c12.val() {
                        self.s4_bad.d.next = 8.into();
                    } else if self.c13.val() {
                        self.s4_bad.d.next = 9.into();
                    } else {
                        self.s4_roce.d.next = true;
                    }
                }
            }
        } else {
            self.s4_raw.d.next = true;
        }
        // QP1 (the GSI) is a UD QP: parsed like any other
        self.s4_qp1.d.next = self.s3_qp1.q.val();
        // the folded sum plus its carry, against the stored checksum's
        // complement: one compare per value of the carry
        self.fold.next = bit_cast::<17, 16>(self.s3_sum.q.val().get_bits::<16>(0))
            + bit_cast::<17, 4>(self.s3_sum.q.val().get_bits::<4>(16));
        self.s4_csum_ok.d.next = !self.s3_v4.q.val()
            | (!self.fold.val().get_bit(16) & (self.fold.val().get_bits::<16>(0) == !self.s3_csum_st.q.val()))
            | (self.fold.val().get_bit(16) & (self.fold.val().get_bits::<16>(0) == !self.s3_csum_st1.q.val()));
        self.s4_poff.d.next = self.s3_poff.q.val();
        self.s4_plen.d.next = (self.s3_udp_pl.q.val() - self.s3_hp.q.val()).get_bits::<16>(0);
        self.s4_stored.d.next = (bit_cast::<650, 628>(self.s3_fields.q.val()) << 22)
            | (bit_cast::<650, 16>((self.s3_udp_pl.q.val() - self.s3_hp.q.val()).get_bits::<16>(0)) << 6)
            | bit_cast::<650, 6>(self.s3_poff.q.val().get_bits::<6>(0));
        self.s4_idle.d.next = self.s3_idle.q.val();
        if self.s3_idle.q.val() {
            self.s4_roce.d.next = false;
            self.s4_raw.d.next = false;
            self.s4_qp1.d.next = false;
            self.s4_bad.d.next = 0.into();
            self.s4_need.d.next = 0.into();
            self.s4_csum_ok.d.next = false;
            self.s4_poff.d.next = 0.into();
            self.s4_plen.d.next = 0.into();
            self.s4_stored.d.next = 0.into();
        }

        self.out_valid.next = !self.s4_idle.q.val();
        self.is_roce.next = self.s4_roce.q.val();
        self.is_raw.next = self.s4_raw.q.val();
        self.qp1.next = self.s4_roce.q.val() & self.s4_qp1.q.val();
        self.bad_reason.next = self.s4_bad.q.val();
        self.need_len.next = self.s4_need.q.val();
        self.ip_csum_ok.next = self.s4_csum_ok.q.val();
        self.payload_off.next = self.s4_poff.q.val();
        self.payload_len.next = self.s4_plen.q.val();
        self.stored.next = self.s4_stored.q.val();
        self.expand.stored.next = self.s4_stored.q.val();
        self.hdr.next = self.expand.hdr.val();
    }
}
