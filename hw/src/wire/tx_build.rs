//! `TxBuild`: the transmit builder. A header (the fields of one packet, see
//! [`TX_HDR_FIELDS`]) and its payload (from byte 0 of a beat) become a whole
//! RoCEv2 frame: Ethernet (optional 802.1Q tag), IPv4 (with its header
//! checksum, DF set) or IPv6, UDP (source port from the QP for ECMP
//! entropy, checksum 0), BTH (pad count from the payload length), the
//! opcode's extended headers, payload, pad and ICRC.
//!
//! Structure: the header is serialised in wire order and moved into beat
//! lanes; a merge buffer appends payload beats and the pad + ICRC placeholder
//! behind it and sends one 64-byte beat per cycle; the frame passes an
//! [`IcrcGen`], which computes the ICRC from the frame with its ICRC bytes
//! zeroed; a FIFO holds every beat [`TxBuild::HOLD`] cycles (longer than the
//! ICRC takes), and the output stage writes the ICRC into the last one or two
//! beats.
//! The header of the next frame joins in the cycle the previous frame's last
//! beat leaves: back-to-back frames leave without idle cycles.

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

#[derive(LogicBlock)]
pub struct TxBuild {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_hdr: HdrIn<1152>,
    pub s_axis: AxisIn<512, 64, 1>,
    pub m_axis: AxisOut<512, 64, 1>,

    info: OpcodeInfo,
    eth_dst: Signal<Local, Bits<48>>,
    eth_src: Signal<Local, Bits<48>>,
    vlan: Signal<Local, Bit>,
    vlan_tci: Signal<Local, Bits<16>>,
    v6: Signal<Local, Bit>,
    dscp: Signal<Local, Bits<6>>,
    ecn: Signal<Local, Bits<2>>,
    ttl: Signal<Local, Bits<8>>,
    flow_label: Signal<Local, Bits<20>>,
    ip_id: Signal<Local, Bits<16>>,
    ip_src: Signal<Local, Bits<128>>,
    ip_dst: Signal<Local, Bits<128>>,
    opcode: Signal<Local, Bits<8>>,
    se: Signal<Local, Bit>,
    mig: Signal<Local, Bit>,
    pkey: Signal<Local, Bits<16>>,
    fecn: Signal<Local, Bit>,
    becn: Signal<Local, Bit>,
    destqp: Signal<Local, Bits<24>>,
    ackreq: Signal<Local, Bit>,
    psn: Signal<Local, Bits<24>>,
    src_qp: Signal<Local, Bits<24>>,
    reth_va: Signal<Local, Bits<64>>,
    reth_rkey: Signal<Local, Bits<32>>,
    reth_dmalen: Signal<Local, Bits<32>>,
    aeth_syndrome: Signal<Local, Bits<8>>,
    aeth_msn: Signal<Local, Bits<24>>,
    atomic_va: Signal<Local, Bits<64>>,
    atomic_rkey: Signal<Local, Bits<32>>,
    atomic_swap: Signal<Local, Bits<64>>,
    atomic_cmp: Signal<Local, Bits<64>>,
    atomicack: Signal<Local, Bits<64>>,
    immdt: Signal<Local, Bits<32>>,
    ieth_rkey: Signal<Local, Bits<32>>,
    deth_qkey: Signal<Local, Bits<32>>,
    deth_srcqp: Signal<Local, Bits<24>>,
    payload_len: Signal<Local, Bits<16>>,
    tos: Signal<Local, Bits<8>>,
    pad: Signal<Local, Bits<2>>,
    udp_len: Signal<Local, Bits<16>>,
    ip_total: Signal<Local, Bits<16>>,
    sport: Signal<Local, Bits<16>>,
    csum_acc: Signal<Local, Bits<20>>,
    csum_a: Signal<Local, Bits<20>>,
    csum_b: Signal<Local, Bits<20>>,
    csum_c: Signal<Local, Bits<20>>,
    csum_d: Signal<Local, Bits<20>>,
    csum_fold: Signal<Local, Bits<17>>,
    csum: Signal<Local, Bits<16>>,
    acc: Signal<Local, Bits<1024>>,
    hdr_len: Signal<Local, Bits<8>>,
    hdr_words: Signal<Local, Bits<5>>,
    rb: Signal<Local, Bits<8>>,
    rev: Signal<Local, Bits<1024>>,
    hdr_le: Signal<Local, Bits<1152>>,
    // ---- merge buffer
    buf: Reg<Bits<1152>>,
    fill: Reg<Bits<8>>,
    in_frame: Reg<Bit>,
    left: Reg<Bits<17>>,
    tail_done: Reg<Bit>,
    tail_len: Reg<Bits<3>>,
    emit: Signal<Local, Bit>,
    emit_last: Signal<Local, Bit>,
    patch: Signal<Local, Bit>,
    patch_off: Signal<Local, Bits<7>>,
    ones64: Constant<Bits<64>>,
    keep: Signal<Local, Bits<64>>,
    buf2: Signal<Local, Bits<1152>>,
    fill2: Signal<Local, Bits<8>>,
    left2: Signal<Local, Bits<17>>,
    tail2: Signal<Local, Bit>,
    tail_len2: Signal<Local, Bits<3>>,
    load: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    n: Signal<Local, Bits<17>>,
    left_now: Signal<Local, Bits<17>>,
    in_keep: Signal<Local, Bits<64>>,
    in_data: Signal<Local, Bits<512>>,
    byte_mask: Signal<Local, Bits<512>>,
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
    /// Cycles every beat waits in `beats` before it may leave: the ICRC's
    /// latency plus the `icrcs` FIFO's write-to-read latency (2) and one
    /// cycle of margin.
    pub const HOLD: u64 = IcrcGen::LATENCY + 3;
}

/// Beats the holding FIFO holds: 2^5.
const BEAT_FIFO_LOG: usize = 5;
/// ICRCs their FIFO holds: 2^5. It is written on every ICRC without looking
/// at its `tready`: an ICRC waits there only while its frame's last beat is
/// in `beats` (they leave together), so there are at most as many as beats.
const ICRC_FIFO_LOG: usize = 5;
const _: () = assert!(ICRC_FIFO_LOG >= BEAT_FIFO_LOG);
// `beats` holds HOLD cycles of beats at one beat per cycle (and room for the
// input's registers), and the age compare is 8 bits wide
const _: () = assert!(TxBuild::HOLD + 4 <= (1 << BEAT_FIFO_LOG) && TxBuild::HOLD < 256);

impl Default for TxBuild {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_hdr: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            info: Default::default(),
            eth_dst: Default::default(),
            eth_src: Default::default(),
            vlan: Default::default(),
            vlan_tci: Default::default(),
            v6: Default::default(),
            dscp: Default::default(),
            ecn: Default::default(),
            ttl: Default::default(),
            flow_label: Default::default(),
            ip_id: Default::default(),
            ip_src: Default::default(),
            ip_dst: Default::default(),
            opcode: Default::default(),
            se: Default::default(),
            mig: Default::default(),
            pkey: Default::default(),
            fecn: Default::default(),
            becn: Default::default(),
            destqp: Default::default(),
            ackreq: Default::default(),
            psn: Default::default(),
            src_qp: Default::default(),
            reth_va: Default::default(),
            reth_rkey: Default::default(),
            reth_dmalen: Default::default(),
            aeth_syndrome: Default::default(),
            aeth_msn: Default::default(),
            atomic_va: Default::default(),
            atomic_rkey: Default::default(),
            atomic_swap: Default::default(),
            atomic_cmp: Default::default(),
            atomicack: Default::default(),
            immdt: Default::default(),
            ieth_rkey: Default::default(),
            deth_qkey: Default::default(),
            deth_srcqp: Default::default(),
            payload_len: Default::default(),
            tos: Default::default(),
            pad: Default::default(),
            udp_len: Default::default(),
            ip_total: Default::default(),
            sport: Default::default(),
            csum_acc: Default::default(),
            csum_a: Default::default(),
            csum_b: Default::default(),
            csum_c: Default::default(),
            csum_d: Default::default(),
            csum_fold: Default::default(),
            csum: Default::default(),
            acc: Default::default(),
            hdr_len: Default::default(),
            hdr_words: Default::default(),
            rb: Default::default(),
            rev: Default::default(),
            hdr_le: Default::default(),
            buf: Default::default(),
            fill: Default::default(),
            in_frame: Default::default(),
            left: Default::default(),
            tail_done: Default::default(),
            tail_len: Default::default(),
            emit: Default::default(),
            emit_last: Default::default(),
            patch: Default::default(),
            patch_off: Default::default(),
            ones64: Constant::new(u64::MAX.into()),
            keep: Default::default(),
            buf2: Default::default(),
            fill2: Default::default(),
            left2: Default::default(),
            tail2: Default::default(),
            tail_len2: Default::default(),
            load: Default::default(),
            take: Default::default(),
            n: Default::default(),
            left_now: Default::default(),
            in_keep: Default::default(),
            in_data: Default::default(),
            byte_mask: Default::default(),
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
        dff_setup!(self, clock, buf, fill, in_frame, left, tail_done, tail_len, now, ripe);
        clock!(self, clock, crc_gen, icrcs, beats);
        self.crc_gen.reset.next = self.reset.val();
        self.icrcs.reset.next = self.reset.val();
        self.beats.reset.next = self.reset.val();

        // ---- header fields
        self.eth_dst.next = self.s_hdr.tdata.val().get_bits::<48>(1059);
        self.eth_src.next = self.s_hdr.tdata.val().get_bits::<48>(1011);
        self.vlan.next = self.s_hdr.tdata.val().get_bit(1010);
        self.vlan_tci.next = self.s_hdr.tdata.val().get_bits::<16>(994);
        self.v6.next = self.s_hdr.tdata.val().get_bit(993);
        self.dscp.next = self.s_hdr.tdata.val().get_bits::<6>(987);
        self.ecn.next = self.s_hdr.tdata.val().get_bits::<2>(985);
        self.ttl.next = self.s_hdr.tdata.val().get_bits::<8>(977);
        self.flow_label.next = self.s_hdr.tdata.val().get_bits::<20>(957);
        self.ip_id.next = self.s_hdr.tdata.val().get_bits::<16>(941);
        self.ip_src.next = self.s_hdr.tdata.val().get_bits::<128>(813);
        self.ip_dst.next = self.s_hdr.tdata.val().get_bits::<128>(685);
        self.opcode.next = self.s_hdr.tdata.val().get_bits::<8>(677);
        self.se.next = self.s_hdr.tdata.val().get_bit(676);
        self.mig.next = self.s_hdr.tdata.val().get_bit(675);
        self.pkey.next = self.s_hdr.tdata.val().get_bits::<16>(659);
        self.fecn.next = self.s_hdr.tdata.val().get_bit(658);
        self.becn.next = self.s_hdr.tdata.val().get_bit(657);
        self.destqp.next = self.s_hdr.tdata.val().get_bits::<24>(633);
        self.ackreq.next = self.s_hdr.tdata.val().get_bit(632);
        self.psn.next = self.s_hdr.tdata.val().get_bits::<24>(608);
        self.src_qp.next = self.s_hdr.tdata.val().get_bits::<24>(584);
        self.reth_va.next = self.s_hdr.tdata.val().get_bits::<64>(520);
        self.reth_rkey.next = self.s_hdr.tdata.val().get_bits::<32>(488);
        self.reth_dmalen.next = self.s_hdr.tdata.val().get_bits::<32>(456);
        self.aeth_syndrome.next = self.s_hdr.tdata.val().get_bits::<8>(448);
        self.aeth_msn.next = self.s_hdr.tdata.val().get_bits::<24>(424);
        self.atomic_va.next = self.s_hdr.tdata.val().get_bits::<64>(360);
        self.atomic_rkey.next = self.s_hdr.tdata.val().get_bits::<32>(328);
        self.atomic_swap.next = self.s_hdr.tdata.val().get_bits::<64>(264);
        self.atomic_cmp.next = self.s_hdr.tdata.val().get_bits::<64>(200);
        self.atomicack.next = self.s_hdr.tdata.val().get_bits::<64>(136);
        self.immdt.next = self.s_hdr.tdata.val().get_bits::<32>(104);
        self.ieth_rkey.next = self.s_hdr.tdata.val().get_bits::<32>(72);
        self.deth_qkey.next = self.s_hdr.tdata.val().get_bits::<32>(40);
        self.deth_srcqp.next = self.s_hdr.tdata.val().get_bits::<24>(16);
        self.payload_len.next = self.s_hdr.tdata.val().get_bits::<16>(0);
        self.info.opcode.next = self.opcode.val();

        // ---- derived fields
        self.tos.next = (bit_cast::<8, 6>(self.dscp.val()) << 2) | bit_cast::<8, 2>(self.ecn.val());
        self.pad.next = (0 - self.payload_len.val()).get_bits::<2>(0);
        // UDP: header, BTH, extended headers, payload, pad, ICRC
        self.udp_len.next = self.payload_len.val()
            + bit_cast::<16, 6>(self.info.ext_len.val())
            + bit_cast::<16, 2>(self.pad.val())
            + 24;
        self.ip_total.next = self.udp_len.val() + 20;
        // source port from the QP: rxe's range 0xC000.., folded QP number
        self.sport.next =
            bit_cast::<16, 14>((self.src_qp.val() ^ (self.src_qp.val() >> 14)).get_bits::<14>(0)) | 0xc000;
        // IPv4 header checksum over the header as sent (checksum field 0)
        // (as a tree of additions, not a chain)
        self.csum_a.next =
            bit_cast::<20, 16>((bit_cast::<16, 8>(self.tos.val())) | 0x4500) + bit_cast::<20, 16>(self.ip_total.val());
        self.csum_b.next =
            bit_cast::<20, 16>(self.ip_id.val()) + bit_cast::<20, 16>((bit_cast::<16, 8>(self.ttl.val()) << 8) | 17);
        self.csum_c.next = bit_cast::<20, 16>(self.ip_src.val().get_bits::<16>(16))
            + bit_cast::<20, 16>(self.ip_src.val().get_bits::<16>(0));
        self.csum_d.next = bit_cast::<20, 16>(self.ip_dst.val().get_bits::<16>(16))
            + bit_cast::<20, 16>(self.ip_dst.val().get_bits::<16>(0));
        self.csum_acc.next = (self.csum_a.val() + self.csum_b.val()) + (self.csum_c.val() + self.csum_d.val()) + 0x4000;
        self.csum_fold.next = bit_cast::<17, 16>(self.csum_acc.val().get_bits::<16>(0))
            + bit_cast::<17, 4>(self.csum_acc.val().get_bits::<4>(16));
        self.csum.next =
            !(self.csum_fold.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.csum_fold.val().get_bits::<1>(16)));

        // ---- the header in wire order (first byte most significant)
        self.acc.next = bit_cast::<1024, 48>(self.eth_dst.val());
        self.acc.next = (self.acc.val() << 48) | bit_cast::<1024, 48>(self.eth_src.val());
        self.hdr_len.next = 14.into();
        if self.vlan.val() {
            self.acc.next = (self.acc.val() << 32) | 0x8100_0000u64 | bit_cast::<1024, 16>(self.vlan_tci.val());
            self.hdr_len.next = 18.into();
        }
        if self.v6.val() {
            self.acc.next = (self.acc.val() << 16) | 0x86dd;
            self.acc.next = (self.acc.val() << 32)
                | 0x6000_0000
                | (bit_cast::<1024, 8>(self.tos.val()) << 20)
                | bit_cast::<1024, 20>(self.flow_label.val());
            self.acc.next = (self.acc.val() << 16) | bit_cast::<1024, 16>(self.udp_len.val());
            self.acc.next = (self.acc.val() << 16) | 0x1100 | bit_cast::<1024, 8>(self.ttl.val());
            self.acc.next = (self.acc.val() << 128) | bit_cast::<1024, 128>(self.ip_src.val());
            self.acc.next = (self.acc.val() << 128) | bit_cast::<1024, 128>(self.ip_dst.val());
            self.hdr_len.next = self.hdr_len.val() + 40;
        } else {
            self.acc.next = (self.acc.val() << 16) | 0x0800;
            self.acc.next = (self.acc.val() << 16) | 0x4500 | bit_cast::<1024, 8>(self.tos.val());
            self.acc.next = (self.acc.val() << 16) | bit_cast::<1024, 16>(self.ip_total.val());
            self.acc.next = (self.acc.val() << 16) | bit_cast::<1024, 16>(self.ip_id.val());
            self.acc.next = (self.acc.val() << 16) | 0x4000;
            self.acc.next = (self.acc.val() << 16) | (bit_cast::<1024, 8>(self.ttl.val()) << 8) | 17;
            self.acc.next = (self.acc.val() << 16) | bit_cast::<1024, 16>(self.csum.val());
            self.acc.next = (self.acc.val() << 32) | bit_cast::<1024, 32>(self.ip_src.val().get_bits::<32>(0));
            self.acc.next = (self.acc.val() << 32) | bit_cast::<1024, 32>(self.ip_dst.val().get_bits::<32>(0));
            self.hdr_len.next = self.hdr_len.val() + 20;
        }
        // UDP (checksum 0), BTH
        self.acc.next = (self.acc.val() << 16) | bit_cast::<1024, 16>(self.sport.val());
        self.acc.next = (self.acc.val() << 16) | 4791;
        self.acc.next = (self.acc.val() << 32) | (bit_cast::<1024, 16>(self.udp_len.val()) << 16);
        self.acc.next = (self.acc.val() << 8) | bit_cast::<1024, 8>(self.opcode.val());
        self.acc.next = (self.acc.val() << 8)
            | (bit_cast::<1024, 1>(self.se.val().into()) << 7)
            | (bit_cast::<1024, 1>(self.mig.val().into()) << 6)
            | (bit_cast::<1024, 2>(self.pad.val()) << 4);
        self.acc.next = (self.acc.val() << 16) | bit_cast::<1024, 16>(self.pkey.val());
        self.acc.next = (self.acc.val() << 8)
            | (bit_cast::<1024, 1>(self.fecn.val().into()) << 7)
            | (bit_cast::<1024, 1>(self.becn.val().into()) << 6);
        self.acc.next = (self.acc.val() << 24) | bit_cast::<1024, 24>(self.destqp.val());
        self.acc.next = (self.acc.val() << 8) | (bit_cast::<1024, 1>(self.ackreq.val().into()) << 7);
        self.acc.next = (self.acc.val() << 24) | bit_cast::<1024, 24>(self.psn.val());
        self.hdr_len.next = self.hdr_len.val() + 20 + bit_cast::<8, 6>(self.info.ext_len.val());
        // extended headers, in the order the opcode tables give them
        if self.info.has_reth.val() {
            self.acc.next = (self.acc.val() << 64) | bit_cast::<1024, 64>(self.reth_va.val());
            self.acc.next = (self.acc.val() << 32) | bit_cast::<1024, 32>(self.reth_rkey.val());
            self.acc.next = (self.acc.val() << 32) | bit_cast::<1024, 32>(self.reth_dmalen.val());
        }
        if self.info.has_aeth.val() {
            self.acc.next = (self.acc.val() << 32)
                | (bit_cast::<1024, 8>(self.aeth_syndrome.val()) << 24)
                | bit_cast::<1024, 24>(self.aeth_msn.val());
        }
        if self.info.has_atomicack.val() {
            self.acc.next = (self.acc.val() << 64) | bit_cast::<1024, 64>(self.atomicack.val());
        }
        if self.info.has_atomic.val() {
            self.acc.next = (self.acc.val() << 64) | bit_cast::<1024, 64>(self.atomic_va.val());
            self.acc.next = (self.acc.val() << 32) | bit_cast::<1024, 32>(self.atomic_rkey.val());
            self.acc.next = (self.acc.val() << 64) | bit_cast::<1024, 64>(self.atomic_swap.val());
            self.acc.next = (self.acc.val() << 64) | bit_cast::<1024, 64>(self.atomic_cmp.val());
        }
        if self.info.has_ieth.val() {
            self.acc.next = (self.acc.val() << 32) | bit_cast::<1024, 32>(self.ieth_rkey.val());
        }
        if self.info.has_deth.val() {
            self.acc.next = (self.acc.val() << 32) | bit_cast::<1024, 32>(self.deth_qkey.val());
            self.acc.next = (self.acc.val() << 32) | bit_cast::<1024, 24>(self.deth_srcqp.val());
        }
        if self.info.has_imm.val() {
            self.acc.next = (self.acc.val() << 32) | bit_cast::<1024, 32>(self.immdt.val());
        }
        if self.info.has_cnp.val() {
            self.acc.next = self.acc.val() << 128;
        }
        // into beat lanes: reversed, wire byte i lands at lane 128 - len + i
        self.rev.next = 0.into();
        for j in 0..128 {
            self.rb.next = self.acc.val().get_bits::<8>(8 * j);
            self.rev.next = (self.rev.val() << 8) | bit_cast::<1024, 8>(self.rb.val());
        }
        // A RoCEv2 header is a 14- or 18-byte Ethernet header and whole
        // 4-byte words, 54..=106 bytes: 128 - len = 4k + 2, so a fixed
        // 2-byte shift, then a shift by whole words (5 mux stages, not 10).
        self.hdr_words.next = (128 - self.hdr_len.val()).get_bits::<5>(2);
        self.hdr_le.next =
            bit_cast::<1152, 1024>((self.rev.val() >> 16) >> (bit_cast::<10, 5>(self.hdr_words.val()) << 5));

        // ---- merge buffer: emit a beat from the front, append at the back
        self.emit.next = self.beats.s_axis.tready.val()
            & ((self.fill.q.val() >= 64) | (self.tail_done.q.val() & (self.fill.q.val() != 0)));
        self.emit_last.next = self.tail_done.q.val() & (self.fill.q.val() <= 64);
        self.keep.next = self.ones64.val();
        if self.fill.q.val() < 64 {
            self.keep.next = !(self.ones64.val() << self.fill.q.val().get_bits::<7>(0));
        }
        // the ICRC's first byte relative to this beat (+3): last beat, or the one before a last beat of 1..3 bytes
        self.patch.next = false;
        self.patch_off.next = (self.fill.q.val() - 1).get_bits::<7>(0);
        if self.tail_done.q.val() & (self.fill.q.val() <= 64) {
            self.patch.next = true;
        }
        if self.tail_done.q.val() & (self.fill.q.val() > 64) & (self.fill.q.val() < 68) {
            self.patch.next = true;
        }
        self.buf2.next = self.buf.q.val();
        self.fill2.next = self.fill.q.val();
        self.left2.next = self.left.q.val();
        self.tail2.next = self.tail_done.q.val();
        self.tail_len2.next = self.tail_len.q.val();
        if self.emit.val() {
            self.buf2.next = self.buf.q.val() >> 512;
            self.fill2.next = 0.into();
            if self.fill.q.val() > 64 {
                self.fill2.next = self.fill.q.val() - 64;
            }
        }
        // the next header joins as soon as the buffer holds no other frame
        self.load.next = self.s_hdr.tvalid.val() & (!self.in_frame.q.val() | (self.emit.val() & self.emit_last.val()));
        self.s_hdr.tready.next = self.load.val();
        if self.load.val() {
            self.buf2.next = self.hdr_le.val();
            self.fill2.next = self.hdr_len.val();
            self.left2.next = bit_cast::<17, 16>(self.payload_len.val());
            self.tail2.next = false;
            self.tail_len2.next = bit_cast::<3, 2>(self.pad.val()) + 4;
            self.in_frame.d.next = true;
        } else if self.emit.val() & self.emit_last.val() {
            self.in_frame.d.next = false;
        }
        // payload: up to 64 bytes behind what is buffered
        self.take.next = (self.load.val() | (self.in_frame.q.val() & !self.emit_last.val()))
            & (self.left2.val() != 0)
            & (self.fill2.val() < 64)
            & self.s_axis.tvalid.val();
        self.s_axis.tready.next = self.take.val();
        // payload bytes the next beat brings (from the state before appending)
        self.left_now.next = self.left.q.val();
        if self.load.val() {
            self.left_now.next = bit_cast::<17, 16>(self.payload_len.val());
        }
        self.n.next = 64.into();
        if self.left_now.val() < 64 {
            self.n.next = self.left_now.val();
        }
        self.in_keep.next = !(self.ones64.val() << self.n.val().get_bits::<7>(0));
        if self.n.val() == 64 {
            self.in_keep.next = self.ones64.val();
        }
        self.byte_mask.next = 0.into();
        for p in 0..64 {
            self.byte_mask.next = self.byte_mask.val() >> 8;
            if self.in_keep.val().get_bit(p) {
                self.byte_mask.next =
                    self.byte_mask.val() | (bit_cast::<512, 8>(self.ones64.val().get_bits::<8>(0)) << 504);
            }
        }
        self.in_data.next = self.s_axis.tdata.val() & self.byte_mask.val();
        if self.take.val() {
            // a payload beat lands at lane fill2 < 64, 2 bytes into a word
            // (behind a header of whole words and full payload beats): a
            // fixed shift, then one by whole words (4 mux stages, not 8)
            self.buf2.next = self.buf2.val()
                | ((bit_cast::<1152, 512>(self.in_data.val()) << 16)
                    << (bit_cast::<10, 4>(self.fill2.val().get_bits::<4>(2)) << 5));
            self.fill2.next = self.fill2.val() + self.n.val().get_bits::<8>(0);
            self.left2.next = self.left2.val() - self.n.val();
        }
        // all payload in: pad and ICRC placeholder (zeros) follow
        if (self.load.val() | self.take.val()) & (self.left2.val() == 0) & !self.tail2.val() {
            self.fill2.next = self.fill2.val() + bit_cast::<8, 3>(self.tail_len2.val());
            self.tail2.next = true;
        }
        self.buf.d.next = self.buf2.val();
        self.fill.d.next = self.fill2.val();
        self.left.d.next = self.left2.val();
        self.tail_done.d.next = self.tail2.val();
        self.tail_len.d.next = self.tail_len2.val();

        // ---- frames into the ICRC pipeline and the holding FIFO
        self.crc_gen.s_axis.tdata.next = self.buf.q.val().get_bits::<512>(0);
        self.crc_gen.s_axis.tkeep.next = self.keep.val();
        self.crc_gen.s_axis.tlast.next = self.emit_last.val();
        self.crc_gen.s_axis.tuser.next = 0.into();
        self.crc_gen.s_axis.tvalid.next = self.emit.val();
        self.beats.s_axis.tdata.next = self.buf.q.val().get_bits::<512>(0);
        self.beats.s_axis.tkeep.next = self.keep.val();
        self.beats.s_axis.tlast.next = self.emit_last.val();
        // tuser: [0] holds ICRC bytes, [7:1] where they go, [15:8] when the beat came in
        self.now.d.next = self.now.q.val() + 1;
        self.beats.s_axis.tuser.next = (bit_cast::<16, 8>(self.now.q.val()) << 8)
            | (bit_cast::<16, 7>(self.patch_off.val()) << 1)
            | bit_cast::<16, 1>(self.patch.val().into());
        self.beats.s_axis.tvalid.next = self.emit.val();
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
        // ICRC byte 0 goes to lane fill - 4 of the beat (negative: it began in
        // the beat before). A frame ends 2 bytes into a word, so head_off =
        // fill - 1 is 4k + 1: a shift by whole words, then a fixed one.
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

        if self.reset.val() {
            self.in_frame.d.next = false;
            self.fill.d.next = 0.into();
            self.tail_done.d.next = false;
            self.left.d.next = 0.into();
            self.buf.d.next = 0.into();
            self.ripe.d.next = false;
        }
    }
}
