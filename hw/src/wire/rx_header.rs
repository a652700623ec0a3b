//! `RxHeaderDecode`: classifies a frame and parses every RoCEv2 header from
//! its first 128 bytes (two beats hold the longest header chain: 18 B
//! Ethernet+VLAN, 60 B IPv4 with options, 8 B UDP, 12 B BTH, 28 B AtomicETH).
//!
//! Purely combinational. Bytes past the frame's end must be zero in
//! `window`; `need_len` says how long the frame must be for the verdict to
//! hold (the parser checks it when the frame ends), mirroring the protocol
//! model's order of checks exactly:
//!
//! * Ethernet (one optional 802.1Q tag); not IPv4/IPv6: `raw`.
//! * IPv4: version 4, IHL >= 5, else malformed; a fragment or not UDP: `raw`;
//!   total length >= header length; IPv6: version 6; next header UDP or `raw`.
//! * UDP: port 4791 or `raw`; UDP length == IP payload length.
//! * BTH: TVer 0, a known opcode; the opcode's extended headers, 4 bytes of
//!   ICRC, no payload on opcodes that carry none, pad <= payload.
//!
//! Multi-byte fields are big-endian on the wire; each header region is
//! byte-reversed once so every field is a plain slice.
//! `hdr` packs the fields in the order of [`RX_HDR_FIELDS`] (first = most
//! significant).

use super::OpcodeInfo;
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
];

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

#[derive(LogicBlock, Default)]
pub struct RxHeaderDecode {
    /// First 128 bytes of the frame (byte `i` at bits `8i..8i+8`), zero past its end.
    pub window: Signal<In, Bits<1024>>,
    pub hdr: Signal<Out, Bits<1024>>,
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

    vlan: Signal<Local, Bit>,
    et: Signal<Local, Bits<16>>,
    ipw: Signal<Local, Bits<1024>>,
    rb: Signal<Local, Bits<8>>,
    ip_rev: Signal<Local, Bits<320>>,
    v4: Signal<Local, Bit>,
    v6: Signal<Local, Bit>,
    ver: Signal<Local, Bits<4>>,
    ihl: Signal<Local, Bits<4>>,
    iph_len: Signal<Local, Bits<7>>,
    ip_total: Signal<Local, Bits<17>>,
    l2: Signal<Local, Bits<7>>,
    proto: Signal<Local, Bits<8>>,
    frag: Signal<Local, Bit>,
    word: Signal<Local, Bits<16>>,
    csum_acc: Signal<Local, Bits<22>>,
    sums: [Signal<Local, Bits<22>>; 30],
    sum_l1: [Signal<Local, Bits<22>>; 15],
    sum_l2: [Signal<Local, Bits<22>>; 8],
    sum_l3: [Signal<Local, Bits<22>>; 4],
    sum_l4: [Signal<Local, Bits<22>>; 2],
    csum_fold: Signal<Local, Bits<17>>,
    csum: Signal<Local, Bits<16>>,
    uw: Signal<Local, Bits<1024>>,
    udp_rev: Signal<Local, Bits<64>>,
    udp_payload: Signal<Local, Bits<17>>,
    bw: Signal<Local, Bits<1024>>,
    rev: Signal<Local, Bits<320>>,
    opcode: Signal<Local, Bits<8>>,
    info: OpcodeInfo,
    known: Signal<Local, Bit>,
    carries_payload: Signal<Local, Bit>,
    has_reth: Signal<Local, Bit>,
    has_aeth: Signal<Local, Bit>,
    has_atomic: Signal<Local, Bit>,
    has_atomicack: Signal<Local, Bit>,
    has_imm: Signal<Local, Bit>,
    has_ieth: Signal<Local, Bit>,
    has_deth: Signal<Local, Bit>,
    has_cnp: Signal<Local, Bit>,
    ext_len: Signal<Local, Bits<17>>,
    hdrs_len: Signal<Local, Bits<17>>,
    ppad: Signal<Local, Bits<17>>,
    pad: Signal<Local, Bits<17>>,
    imm: Signal<Local, Bits<32>>,
    packed: Signal<Local, Bits<1024>>,
    tc: Signal<Local, Bits<8>>,
    src: Signal<Local, Bits<128>>,
    dst: Signal<Local, Bits<128>>,
    kind: TypeTag<Self>,
}

impl Logic for RxHeaderDecode {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- Ethernet
        self.vlan.next = self.window.val().get_bits::<16>(96) == 0x0081;
        self.et.next = self.window.val().get_bits::<16>(96);
        self.l2.next = 14.into();
        self.ipw.next = self.window.val() >> 112;
        if self.vlan.val() {
            self.et.next = self.window.val().get_bits::<16>(128);
            self.l2.next = 18.into();
            self.ipw.next = self.window.val() >> 144;
        }
        self.v4.next = self.et.val() == 0x0008;
        self.v6.next = self.et.val() == 0xdd86;

        // ---- IP: first 40 bytes reversed, so big-endian fields are slices
        self.ip_rev.next = 0.into();
        for j in 0..40 {
            self.rb.next = self.ipw.val().get_bits::<8>(8 * j);
            self.ip_rev.next = (self.ip_rev.val() << 8) | bit_cast::<320, 8>(self.rb.val());
        }
        self.ver.next = self.ipw.val().get_bits::<4>(4);
        self.ihl.next = self.ipw.val().get_bits::<4>(0);
        self.iph_len.next = bit_cast::<7, 4>(self.ihl.val()) << 2;
        self.ip_total.next = bit_cast::<17, 16>(self.ip_rev.val().get_bits::<16>(288));
        self.proto.next = self.ip_rev.val().get_bits::<8>(240);
        // MF flag or a fragment offset
        self.frag.next = self.ip_rev.val().get_bits::<14>(256).any();
        if self.v6.val() {
            self.iph_len.next = 40.into();
            self.ip_total.next = bit_cast::<17, 16>(self.ip_rev.val().get_bits::<16>(272)) + 40;
            self.proto.next = self.ip_rev.val().get_bits::<8>(264);
            self.frag.next = false;
        }
        // IPv4 checksum as the model computes it: the sum with the checksum
        // field zeroed, inverted, against the stored value
        // (a balanced adder tree: a chain of 29 additions is 70 levels of logic)
        for i in 0..30 {
            self.word.next = self.ipw.val().get_bits::<16>(16 * i);
            self.sums[i].next = 0.into();
            if (i != 5) & ((i < 10) | ((bit_cast::<6, 4>(self.ihl.val()) << 1).index() > i)) {
                self.sums[i].next = bit_cast::<22, 16>(self.word.val());
            }
        }
        for i in 0..15 {
            self.sum_l1[i].next = self.sums[2 * i].val() + self.sums[2 * i + 1].val();
        }
        for i in 0..7 {
            self.sum_l2[i].next = self.sum_l1[2 * i].val() + self.sum_l1[2 * i + 1].val();
        }
        self.sum_l2[7].next = self.sum_l1[14].val();
        for i in 0..4 {
            self.sum_l3[i].next = self.sum_l2[2 * i].val() + self.sum_l2[2 * i + 1].val();
        }
        for i in 0..2 {
            self.sum_l4[i].next = self.sum_l3[2 * i].val() + self.sum_l3[2 * i + 1].val();
        }
        self.csum_acc.next = self.sum_l4[0].val() + self.sum_l4[1].val();
        self.csum_fold.next = bit_cast::<17, 16>(self.csum_acc.val().get_bits::<16>(0))
            + bit_cast::<17, 6>(self.csum_acc.val().get_bits::<6>(16));
        self.csum.next =
            self.csum_fold.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.csum_fold.val().get_bits::<1>(16));
        self.ip_csum_ok.next = !self.v4.val() | (!self.csum.val() == self.ipw.val().get_bits::<16>(80));

        // ---- UDP
        self.uw.next = self.ipw.val() >> (bit_cast::<10, 7>(self.iph_len.val()) << 3);
        self.udp_rev.next = 0.into();
        for j in 0..8 {
            self.rb.next = self.uw.val().get_bits::<8>(8 * j);
            self.udp_rev.next = (self.udp_rev.val() << 8) | bit_cast::<64, 8>(self.rb.val());
        }
        self.udp_payload.next = self.ip_total.val() - bit_cast::<17, 7>(self.iph_len.val()) - 8;

        // ---- BTH and extended headers: 40 bytes reversed
        self.bw.next = self.uw.val() >> 64;
        self.rev.next = 0.into();
        for j in 0..40 {
            self.rb.next = self.bw.val().get_bits::<8>(8 * j);
            self.rev.next = (self.rev.val() << 8) | bit_cast::<320, 8>(self.rb.val());
        }
        self.opcode.next = self.rev.val().get_bits::<8>(312);
        self.info.opcode.next = self.opcode.val();
        self.known.next = self.info.known.val();
        self.carries_payload.next = self.info.carries_payload.val();
        self.has_reth.next = self.info.has_reth.val();
        self.has_aeth.next = self.info.has_aeth.val();
        self.has_atomic.next = self.info.has_atomic.val();
        self.has_atomicack.next = self.info.has_atomicack.val();
        self.has_imm.next = self.info.has_imm.val();
        self.has_ieth.next = self.info.has_ieth.val();
        self.has_deth.next = self.info.has_deth.val();
        self.has_cnp.next = self.info.has_cnp.val();
        self.ext_len.next = bit_cast::<17, 6>(self.info.ext_len.val());
        // BTH + extended headers + ICRC
        self.hdrs_len.next = self.ext_len.val() + 16;
        self.ppad.next = self.udp_payload.val() - self.hdrs_len.val();
        self.pad.next = bit_cast::<17, 2>(self.rev.val().get_bits::<2>(308));
        self.imm.next = self.rev.val().get_bits::<32>(192);
        if self.has_reth.val() {
            self.imm.next = self.rev.val().get_bits::<32>(64);
        }
        if self.has_deth.val() {
            self.imm.next = self.rev.val().get_bits::<32>(128);
        }

        // ---- verdict, in the model's order of checks
        self.is_roce.next = false;
        self.is_raw.next = false;
        self.qp1.next = false;
        self.bad_reason.next = 0.into();
        self.need_len.next = bit_cast::<17, 7>(self.l2.val());
        if self.v4.val() | self.v6.val() {
            self.need_len.next = bit_cast::<17, 7>(self.l2.val()) + 20;
            if self.v6.val() {
                self.need_len.next = bit_cast::<17, 7>(self.l2.val()) + 40;
            }
            if (self.v4.val() & (self.ver.val() != 4)) | (self.v6.val() & (self.ver.val() != 6)) {
                self.bad_reason.next = 1.into();
            } else if self.v4.val() & (self.ihl.val() < 5) {
                self.bad_reason.next = 2.into();
            } else {
                self.need_len.next = bit_cast::<17, 7>(self.l2.val()) + bit_cast::<17, 7>(self.iph_len.val());
                if self.frag.val() | (self.proto.val() != 17) {
                    self.is_raw.next = true;
                } else if self.v4.val() & (self.ip_total.val() < bit_cast::<17, 7>(self.iph_len.val())) {
                    self.bad_reason.next = 3.into();
                } else {
                    self.need_len.next = bit_cast::<17, 7>(self.l2.val()) + self.ip_total.val();
                    if self.ip_total.val() < (bit_cast::<17, 7>(self.iph_len.val()) + 8) {
                        self.bad_reason.next = 4.into();
                    } else if self.udp_rev.val().get_bits::<16>(32) != 4791 {
                        self.is_raw.next = true;
                    } else if bit_cast::<17, 16>(self.udp_rev.val().get_bits::<16>(16))
                        != (self.ip_total.val() - bit_cast::<17, 7>(self.iph_len.val()))
                    {
                        self.bad_reason.next = 4.into();
                    } else if self.udp_payload.val() < 12 {
                        self.bad_reason.next = 7.into();
                    } else if self.rev.val().get_bits::<4>(304) != 0 {
                        self.bad_reason.next = 5.into();
                    } else if !self.known.val() {
                        self.bad_reason.next = 6.into();
                    } else if self.udp_payload.val() < self.hdrs_len.val() {
                        self.bad_reason.next = 7.into();
                    } else if !self.carries_payload.val() & (self.ppad.val() != 0) {
                        self.bad_reason.next = 8.into();
                    } else if self.pad.val() > self.ppad.val() {
                        self.bad_reason.next = 9.into();
                    } else {
                        // QP1 (the GSI) is a UD QP: parsed like any other
                        self.is_roce.next = true;
                        self.qp1.next = self.rev.val().get_bits::<24>(256) == 1;
                    }
                }
            }
        } else {
            self.is_raw.next = true;
        }
        self.payload_off.next = self.l2.val() + self.iph_len.val() + 8 + 12 + self.ext_len.val().get_bits::<7>(0);
        self.payload_len.next = (self.ppad.val() - self.pad.val()).get_bits::<16>(0);

        // ---- packed header, most significant field first
        self.packed.next = 0.into();
        self.packed.next = bit_cast::<1024, 8>(self.opcode.val());
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.rev.val().get_bits::<1>(311));
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.rev.val().get_bits::<1>(310));
        self.packed.next = (self.packed.val() << 2) | bit_cast::<1024, 2>(self.rev.val().get_bits::<2>(308));
        self.packed.next = (self.packed.val() << 4) | bit_cast::<1024, 4>(self.rev.val().get_bits::<4>(304));
        self.packed.next = (self.packed.val() << 16) | bit_cast::<1024, 16>(self.rev.val().get_bits::<16>(288));
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.rev.val().get_bits::<1>(287));
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.rev.val().get_bits::<1>(286));
        self.packed.next = (self.packed.val() << 24) | bit_cast::<1024, 24>(self.rev.val().get_bits::<24>(256));
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.rev.val().get_bits::<1>(255));
        self.packed.next = (self.packed.val() << 24) | bit_cast::<1024, 24>(self.rev.val().get_bits::<24>(224));
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.has_reth.val().into());
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.has_aeth.val().into());
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.has_atomic.val().into());
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.has_atomicack.val().into());
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.has_imm.val().into());
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.has_ieth.val().into());
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.has_deth.val().into());
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.has_cnp.val().into());
        // RETH
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.rev.val().get_bits::<64>(160));
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.rev.val().get_bits::<32>(128));
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.rev.val().get_bits::<32>(96));
        // AETH
        self.packed.next = (self.packed.val() << 8) | bit_cast::<1024, 8>(self.rev.val().get_bits::<8>(216));
        self.packed.next = (self.packed.val() << 24) | bit_cast::<1024, 24>(self.rev.val().get_bits::<24>(192));
        // AtomicETH
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.rev.val().get_bits::<64>(160));
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.rev.val().get_bits::<32>(128));
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.rev.val().get_bits::<64>(64));
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.rev.val().get_bits::<64>(0));
        // AtomicAckETH (after the AETH)
        self.packed.next = (self.packed.val() << 64) | bit_cast::<1024, 64>(self.rev.val().get_bits::<64>(128));
        // ImmDt, IETH, DETH
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.imm.val());
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.rev.val().get_bits::<32>(192));
        self.packed.next = (self.packed.val() << 32) | bit_cast::<1024, 32>(self.rev.val().get_bits::<32>(192));
        self.packed.next = (self.packed.val() << 24) | bit_cast::<1024, 24>(self.rev.val().get_bits::<24>(160));
        // IP: traffic class (DSCP, ECN) and addresses (IPv4 in the low 32 bits)
        self.tc.next = self.ip_rev.val().get_bits::<8>(304);
        self.src.next = bit_cast::<128, 32>(self.ip_rev.val().get_bits::<32>(192));
        self.dst.next = bit_cast::<128, 32>(self.ip_rev.val().get_bits::<32>(160));
        if self.v6.val() {
            // the traffic class straddles bytes 0 and 1
            self.tc.next = self.ip_rev.val().get_bits::<8>(308);
            self.src.next = self.ip_rev.val().get_bits::<128>(128);
            self.dst.next = self.ip_rev.val().get_bits::<128>(0);
        }
        self.packed.next = (self.packed.val() << 1) | bit_cast::<1024, 1>(self.v6.val().into());
        self.packed.next = (self.packed.val() << 8) | bit_cast::<1024, 8>(self.tc.val());
        self.packed.next = (self.packed.val() << 128) | bit_cast::<1024, 128>(self.src.val());
        self.packed.next = (self.packed.val() << 128) | bit_cast::<1024, 128>(self.dst.val());
        self.packed.next = (self.packed.val() << 16) | bit_cast::<1024, 16>(self.udp_rev.val().get_bits::<16>(48));
        self.packed.next = (self.packed.val() << 16) | bit_cast::<1024, 16>(self.payload_len.val());
        self.hdr.next = self.packed.val();
    }
}
