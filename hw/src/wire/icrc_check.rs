//! `IcrcCheck`: the RoCEv2 ICRC of every frame on a 512-bit stream, one beat
//! per cycle, as a verdict at the frame's end.
//!
//! The ICRC covers the IP packet (IP header to the end of the UDP payload,
//! the ICRC included) behind 8 bytes of 0xFF, with the fields a router may
//! rewrite forced to ones: IPv4 TOS, TTL and header checksum; IPv6 traffic
//! class, flow label and hop limit; the UDP checksum; BTH byte 4 (FECN, BECN).
//! Running the CRC over the packet *and* its ICRC leaves a constant residue
//! `R` in the register, so the ICRC never has to be located.
//!
//! No shifter: bytes stay in their lanes. The Ethernet header enters as
//! zeros (the seed is wound back over it), bytes past the packet's end are
//! zeroed, and the register of a packet whose last beat held `n` bytes is
//! then `A^(64-n)` of the true one: it is compared with `A^(64-n) R` from a
//! 64-entry table ([`IcrcResidue`]). The lanes to force to ones are constant
//! per (VLAN, IPv4/IPv6) except the UDP checksum and BTH byte 4, which move
//! with the IPv4 header length: their lanes are a 4-bit function of
//! `J = (UDP offset - 34) / 4`, one LUT per lane.
//!
//! Pipeline (no stalls; `s_axis.tready` is always 1), one stage per cycle:
//! 1. input register; first-beat decode (VLAN, IP version, IHL, IP length)
//!    gives the packet's end and `J`;
//! 2. frame context and `rem`, the packet bytes from this beat's start;
//! 3. the masked beat: lanes past `n` and the Ethernet header zeroed,
//!    variant fields forced to ones (per-lane controls from constant tables);
//! 4. `D x` as 8 partial parities per bit ([`CrcFoldPart`]);
//! 5. `D x`, and the expected residue for the beat's zero fill;
//! 6. the CRC register `s = A^64 s ^ D x` (seeded on a frame's first beat);
//! 7. compared with the expected residue: the verdict.
//!
//! The verdict (`verdict_valid` for one cycle) comes [`IcrcCheck::LATENCY`]
//! cycles after the frame's last beat was accepted. Frames that are not
//! IPv4/IPv6 get `icrc_ok = 0`; a frame shorter than its IP length says gets
//! `short = 1`.

use super::crc32;
use super::{CrcAhead, CrcFoldPart, IcrcResidue, FOLD_CHUNKS};
use crate::axis::AxisIn;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

// stage 6 reduces 8-bit groups of CrcFoldPart's output (a literal in #[hdl_gen])
const _: () = assert!(FOLD_CHUNKS == 8);

/// The first UDP offset `J` counts from: IPv4 with a 20-byte header, no VLAN.
const UDP_BASE: usize = 14 + 20;

/// Lanes of beat `beat` (0 or 1) that hold a byte the ICRC forces to ones
/// when the UDP header starts at `UDP_BASE + 4 j`: the UDP checksum and BTH
/// byte 4 (FECN, BECN).
fn udp_variant_lane(beat: usize, lane: usize, j: usize) -> bool {
    let udp = UDP_BASE + 4 * j;
    [udp + 6, udp + 7, udp + 12].contains(&(64 * beat + lane))
}

/// Lanes of beat 0 forced to ones in the IP header, by (VLAN, IPv6).
fn ip_variant_lane(lane: usize, vlan: bool, v6: bool) -> bool {
    let l2 = if vlan { 18 } else { 14 };
    let fields: &[usize] = if v6 { &[1, 2, 3, 7] } else { &[1, 8, 10, 11] };
    fields.iter().any(|f| l2 + f == lane)
}

/// `N / 64` lane masks side by side: bit `64 k + p` is `f(k, p)`.
fn table<const N: usize>(f: impl Fn(usize, usize) -> bool) -> Bits<N> {
    let mut t = Bits::<N>::default();
    for k in 0..N / 64 {
        for p in 0..64 {
            t = t.replace_bit(64 * k + p, f(k, p));
        }
    }
    t
}

#[derive(LogicBlock)]
pub struct IcrcCheck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<512, 64, 1>,
    pub verdict_valid: Signal<Out, Bit>,
    pub verdict_icrc_ok: Signal<Out, Bit>,
    pub verdict_short: Signal<Out, Bit>,
    /// The raw CRC register after the packet, its last beat zero-filled by
    /// `verdict_pad` bytes: `A^pad R` when the ICRC is right; with the ICRC
    /// bytes zeroed, `A^(pad+4)` of the register that gives it (the
    /// transmit side's [`super::IcrcGen`] turns it into the ICRC).
    pub verdict_state: Signal<Out, Bits<32>>,
    pub verdict_pad: Signal<Out, Bits<6>>,

    // stage 1: input
    d1: Reg<Bits<512>>,
    k1: Reg<Bits<64>>,
    v1: Reg<Bit>,
    l1: Reg<Bit>,
    first1: Reg<Bit>,
    in_frame: Reg<Bit>,
    // first-beat decode, both VLAN cases side by side
    vlan: Signal<Local, Bit>,
    v4_0: Signal<Local, Bit>,
    v6_0: Signal<Local, Bit>,
    v4_1: Signal<Local, Bit>,
    v6_1: Signal<Local, Bit>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    ihl: Signal<Local, Bits<4>>,
    end: Signal<Local, Bits<17>>,
    j: Signal<Local, Bits<4>>,
    // stage 2: beat and frame context
    d2: Reg<Bits<512>>,
    k2: Reg<Bits<64>>,
    v2: Reg<Bit>,
    last2: Reg<Bit>,
    beat: Reg<Bits<2>>,
    rem: Reg<Bits<17>>,
    ctx_ip: Reg<Bit>,
    ctx_vlan: Reg<Bit>,
    ctx_v6: Reg<Bit>,
    ctx_j: Reg<Bits<4>>,
    big: Signal<Local, Bit>,
    over: Signal<Local, Bit>,
    r6: Signal<Local, Bits<6>>,
    nonzero: Signal<Local, Bit>,
    lane_valid: Signal<Local, Bits<64>>,
    lane_ones: Signal<Local, Bits<64>>,
    lane_eth: Signal<Local, Bits<64>>,
    lane_nib: Signal<Local, Bits<64>>,
    ctx_kind: Signal<Local, Bits<2>>,
    all64: Constant<Bits<64>>,
    udp0_tab: Constant<Bits<1024>>,
    udp1_tab: Constant<Bits<1024>>,
    ip_tab: Constant<Bits<256>>,
    eth_tab: Constant<Bits<128>>,
    nib_tab: Constant<Bits<128>>,
    // stage 3: for the short check
    upd: Signal<Local, Bit>,
    keep: Signal<Local, Bits<64>>,
    k3: Reg<Bits<64>>,
    valid3: Reg<Bits<64>>,
    upd3: Reg<Bit>,
    last3: Reg<Bit>,
    over3: Reg<Bit>,
    lane: Signal<Local, Bits<8>>,
    masked: Signal<Local, Bits<512>>,
    // stage 4: masked beat
    x4: Reg<Bits<512>>,
    upd4: Reg<Bit>,
    fin4: Reg<Bit>,
    last4: Reg<Bit>,
    first4: Reg<Bit>,
    vlan4: Reg<Bit>,
    pad4: Reg<Bits<6>>,
    // stage 5: partial parities
    fold: CrcFoldPart,
    p5: Reg<Bits<256>>,
    upd5: Reg<Bit>,
    fin5: Reg<Bit>,
    last5: Reg<Bit>,
    first5: Reg<Bit>,
    vlan5: Reg<Bit>,
    short5: Reg<Bit>,
    pad5: Reg<Bits<6>>,
    y: Signal<Local, Bits<32>>,
    residue: IcrcResidue,
    // stage 6: D x and the expected residue
    y6: Reg<Bits<32>>,
    exp6: Reg<Bits<32>>,
    upd6: Reg<Bit>,
    fin6: Reg<Bit>,
    last6: Reg<Bit>,
    first6: Reg<Bit>,
    vlan6: Reg<Bit>,
    short6: Reg<Bit>,
    pad6: Reg<Bits<6>>,
    adv64: CrcAhead<64>,
    // the first beat starts from the seed wound back over the Ethernet
    // header (which enters as zeros), advanced over the beat
    seed_next_14: Constant<Bits<32>>,
    seed_next_18: Constant<Bits<32>>,
    prev: Signal<Local, Bits<32>>,
    // stage 7: the CRC register
    crc: Reg<Bits<32>>,
    exp7: Reg<Bits<32>>,
    fin7: Reg<Bit>,
    last7: Reg<Bit>,
    short7: Reg<Bit>,
    pad7: Reg<Bits<6>>,
    good: Signal<Local, Bit>,
    // verdict
    done: Reg<Bit>,
    ok: Reg<Bit>,
    was_short: Reg<Bit>,
    fin_state: Reg<Bits<32>>,
    fin_pad: Reg<Bits<6>>,
    out_valid: Reg<Bit>,
    out_ok: Reg<Bit>,
    out_short: Reg<Bit>,
    out_state: Reg<Bits<32>>,
    out_pad: Reg<Bits<6>>,
    kind: TypeTag<Self>,
}

impl IcrcCheck {
    /// Cycles from the cycle a frame's last beat is accepted to the cycle
    /// its verdict is valid.
    pub const LATENCY: u64 = 7;
}

impl Default for IcrcCheck {
    fn default() -> Self {
        let seed = crc32::icrc_seed();
        let seed_next = |l2| Constant::new((crc32::advance(crc32::retreat(seed, l2), 64) as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            verdict_valid: Default::default(),
            verdict_icrc_ok: Default::default(),
            verdict_short: Default::default(),
            verdict_state: Default::default(),
            verdict_pad: Default::default(),
            d1: Default::default(),
            k1: Default::default(),
            v1: Default::default(),
            l1: Default::default(),
            first1: Default::default(),
            in_frame: Default::default(),
            vlan: Default::default(),
            v4_0: Default::default(),
            v6_0: Default::default(),
            v4_1: Default::default(),
            v6_1: Default::default(),
            is_v4: Default::default(),
            is_v6: Default::default(),
            ihl: Default::default(),
            end: Default::default(),
            j: Default::default(),
            d2: Default::default(),
            k2: Default::default(),
            v2: Default::default(),
            last2: Default::default(),
            beat: Default::default(),
            rem: Default::default(),
            ctx_ip: Default::default(),
            ctx_vlan: Default::default(),
            ctx_v6: Default::default(),
            ctx_j: Default::default(),
            big: Default::default(),
            over: Default::default(),
            r6: Default::default(),
            nonzero: Default::default(),
            lane_valid: Default::default(),
            lane_ones: Default::default(),
            lane_eth: Default::default(),
            lane_nib: Default::default(),
            ctx_kind: Default::default(),
            all64: Constant::new(Bits::<64>::mask()),
            udp0_tab: Constant::new(table(|j, p| udp_variant_lane(0, p, j))),
            udp1_tab: Constant::new(table(|j, p| udp_variant_lane(1, p, j))),
            ip_tab: Constant::new(table(|k, p| ip_variant_lane(p, k & 1 == 1, k & 2 == 2))),
            eth_tab: Constant::new(table(|vlan, p| p < 14 + 4 * vlan)),
            nib_tab: Constant::new(table(|vlan, p| p == 14 + 4 * vlan)),
            upd: Default::default(),
            keep: Default::default(),
            k3: Default::default(),
            valid3: Default::default(),
            upd3: Default::default(),
            last3: Default::default(),
            over3: Default::default(),
            lane: Default::default(),
            masked: Default::default(),
            x4: Default::default(),
            upd4: Default::default(),
            fin4: Default::default(),
            last4: Default::default(),
            first4: Default::default(),
            vlan4: Default::default(),
            pad4: Default::default(),
            fold: Default::default(),
            p5: Default::default(),
            upd5: Default::default(),
            fin5: Default::default(),
            last5: Default::default(),
            first5: Default::default(),
            vlan5: Default::default(),
            short5: Default::default(),
            pad5: Default::default(),
            y: Default::default(),
            residue: Default::default(),
            y6: Default::default(),
            exp6: Default::default(),
            upd6: Default::default(),
            fin6: Default::default(),
            last6: Default::default(),
            first6: Default::default(),
            vlan6: Default::default(),
            short6: Default::default(),
            pad6: Default::default(),
            adv64: Default::default(),
            seed_next_14: seed_next(14),
            seed_next_18: seed_next(18),
            prev: Default::default(),
            crc: Default::default(),
            exp7: Default::default(),
            fin7: Default::default(),
            last7: Default::default(),
            short7: Default::default(),
            pad7: Default::default(),
            good: Default::default(),
            done: Default::default(),
            ok: Default::default(),
            was_short: Default::default(),
            fin_state: Default::default(),
            fin_pad: Default::default(),
            out_valid: Default::default(),
            out_ok: Default::default(),
            out_short: Default::default(),
            out_state: Default::default(),
            out_pad: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for IcrcCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, d1, k1, v1, l1, first1, in_frame, d2, k2, v2, last2, beat, rem, ctx_ip, ctx_vlan, ctx_v6,
            ctx_j, k3, valid3, upd3, last3, over3, x4, upd4, fin4, last4, first4, vlan4, pad4, p5, upd5, fin5, last5,
            first5, vlan5, short5, pad5, y6, exp6, upd6, fin6, last6, first6, vlan6, short6, pad6, crc, exp7, fin7,
            last7, short7, pad7, done, ok, was_short, fin_state, fin_pad, out_valid, out_ok, out_short, out_state,
            out_pad
        );
        self.s_axis.tready.next = true;

        // ---- stage 1: input register and frame boundaries
        self.d1.d.next = self.s_axis.tdata.val();
        self.k1.d.next = self.s_axis.tkeep.val();
        self.v1.d.next = self.s_axis.tvalid.val();
        self.l1.d.next = self.s_axis.tlast.val();
        self.first1.d.next = !self.in_frame.q.val();
        if self.s_axis.tvalid.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
        }

        // ---- first-beat decode (used when first1), both VLAN cases at once.
        // Ethertypes and lengths are big-endian; lanes are little-endian.
        self.vlan.next = self.d1.q.val().get_bits::<16>(96) == 0x0081;
        self.v4_0.next = (self.d1.q.val().get_bits::<16>(96) == 0x0008) & (self.d1.q.val().get_bits::<4>(116) == 4);
        self.v6_0.next = (self.d1.q.val().get_bits::<16>(96) == 0xdd86) & (self.d1.q.val().get_bits::<4>(116) == 6);
        self.v4_1.next = (self.d1.q.val().get_bits::<16>(128) == 0x0008) & (self.d1.q.val().get_bits::<4>(148) == 4);
        self.v6_1.next = (self.d1.q.val().get_bits::<16>(128) == 0xdd86) & (self.d1.q.val().get_bits::<4>(148) == 6);
        self.is_v4.next = self.v4_0.val();
        self.is_v6.next = self.v6_0.val();
        self.ihl.next = self.d1.q.val().get_bits::<4>(112);
        if self.vlan.val() {
            self.is_v4.next = self.v4_1.val();
            self.is_v6.next = self.v6_1.val();
            self.ihl.next = self.d1.q.val().get_bits::<4>(144);
        }
        // the packet's end, counted from the frame's first byte
        self.end.next = bit_cast::<17, 8>(self.d1.q.val().get_bits::<8>(136))
            + (bit_cast::<17, 8>(self.d1.q.val().get_bits::<8>(128)) << 8)
            + 14;
        self.j.next = self.ihl.val() - 5;
        if self.vlan.val() {
            self.end.next = bit_cast::<17, 8>(self.d1.q.val().get_bits::<8>(168))
                + (bit_cast::<17, 8>(self.d1.q.val().get_bits::<8>(160)) << 8)
                + 18;
            self.j.next = self.ihl.val() - 4;
        }
        if self.is_v6.val() {
            self.end.next = bit_cast::<17, 8>(self.d1.q.val().get_bits::<8>(152))
                + (bit_cast::<17, 8>(self.d1.q.val().get_bits::<8>(144)) << 8)
                + 54;
            self.j.next = 5.into();
            if self.vlan.val() {
                self.end.next = bit_cast::<17, 8>(self.d1.q.val().get_bits::<8>(184))
                    + (bit_cast::<17, 8>(self.d1.q.val().get_bits::<8>(176)) << 8)
                    + 58;
                self.j.next = 6.into();
            }
        }

        // ---- stage 2: beat, frame context, packet bytes left
        self.d2.d.next = self.d1.q.val();
        self.k2.d.next = self.k1.q.val();
        self.v2.d.next = self.v1.q.val();
        self.last2.d.next = self.v1.q.val() & self.l1.q.val();
        if self.v1.q.val() {
            // beat index, saturating at 2 (only beats 0 and 1 hold forced lanes)
            if self.beat.q.val() != 2 {
                self.beat.d.next = self.beat.q.val() + 1;
            }
            self.rem.d.next = 0.into();
            if self.rem.q.val() > 64 {
                self.rem.d.next = self.rem.q.val() - 64;
            }
            if self.first1.q.val() {
                self.beat.d.next = 0.into();
                self.rem.d.next = self.end.val();
                self.ctx_ip.d.next = self.is_v4.val() | self.is_v6.val();
                self.ctx_vlan.d.next = self.vlan.val();
                self.ctx_v6.d.next = self.is_v6.val();
                self.ctx_j.d.next = self.j.val();
            }
        }
        // packet bytes in this beat: n = min(rem, 64)
        self.big.next = self.rem.q.val().get_bits::<11>(6) != 0;
        self.r6.next = self.rem.q.val().get_bits::<6>(0);
        self.ctx_kind.next =
            (bit_cast::<2, 1>(self.ctx_v6.q.val().into()) << 1) | bit_cast::<2, 1>(self.ctx_vlan.q.val().into());
        self.over.next = (self.rem.q.val().get_bits::<11>(6) > 1) | (self.big.val() & (self.r6.val() != 0));
        self.nonzero.next = self.big.val() | (self.r6.val() != 0);
        self.upd.next = self.v2.q.val() & self.ctx_ip.q.val() & self.nonzero.val();
        // lanes below n; the forced lanes come from constant tables
        self.lane_valid.next = !(self.all64.val() << self.r6.val());
        if self.big.val() {
            self.lane_valid.next = self.all64.val();
        }
        self.lane_ones.next = 0.into();
        self.lane_eth.next = 0.into();
        self.lane_nib.next = 0.into();
        if self.beat.q.val() == 0 {
            self.lane_ones.next = self.udp0_tab.val().get_bits::<64>(self.ctx_j.q.val().index() * 64)
                | self.ip_tab.val().get_bits::<64>(self.ctx_kind.val().index() * 64);
            self.lane_eth.next =
                self.eth_tab.val().get_bits::<64>(bit_cast::<2, 1>(self.ctx_vlan.q.val().into()).index() * 64);
            if self.ctx_v6.q.val() {
                self.lane_nib.next =
                    self.nib_tab.val().get_bits::<64>(bit_cast::<2, 1>(self.ctx_vlan.q.val().into()).index() * 64);
            }
        }
        if self.beat.q.val() == 1 {
            self.lane_ones.next = self.udp1_tab.val().get_bits::<64>(self.ctx_j.q.val().index() * 64);
        }

        // ---- stage 3: the masked beat (two register stages of data only:
        // a third would be packed into shift-register LUTs)
        self.keep.next = self.lane_valid.val() & !self.lane_eth.val();
        self.masked.next = 0.into();
        for p in 0..64 {
            self.lane.next = 0.into();
            if self.keep.val().get_bit(p) {
                self.lane.next = self.d2.q.val().get_bits::<8>(8 * p);
                if self.lane_nib.val().get_bit(p) {
                    self.lane.next = self.lane.val() | 0x0f;
                }
                if self.lane_ones.val().get_bit(p) {
                    self.lane.next = 0xff.into();
                }
            }
            self.masked.next = (self.masked.val() >> 8) | (bit_cast::<512, 8>(self.lane.val()) << 504);
        }
        self.x4.d.next = 0.into();
        if self.upd.val() {
            self.x4.d.next = self.masked.val();
        }
        self.upd4.d.next = self.upd.val();
        self.fin4.d.next = self.upd.val() & !self.over.val();
        self.last4.d.next = self.last2.q.val();
        self.first4.d.next = self.beat.q.val() == 0;
        self.vlan4.d.next = self.ctx_vlan.q.val();
        // zero fill of the packet's last beat: 64 - n
        self.pad4.d.next = 0.into();
        if !self.big.val() {
            self.pad4.d.next = !self.r6.val() + 1;
        }
        // for the short check, a cycle later: lanes of the packet, tkeep
        self.valid3.d.next = self.lane_valid.val();
        self.k3.d.next = self.k2.q.val();
        self.upd3.d.next = self.upd.val();
        self.last3.d.next = self.last2.q.val();
        self.over3.d.next = self.ctx_ip.q.val() & self.over.val();

        // ---- stage 5: partial parities
        self.fold.data.next = self.x4.q.val();
        self.p5.d.next = self.fold.part.val();
        self.upd5.d.next = self.upd4.q.val();
        self.fin5.d.next = self.fin4.q.val();
        self.last5.d.next = self.last4.q.val();
        self.first5.d.next = self.first4.q.val();
        self.vlan5.d.next = self.vlan4.q.val();
        // the frame ends inside the packet: a packet lane of its last beat is missing
        self.short5.d.next = self.last3.q.val()
            & (self.over3.q.val() | (self.upd3.q.val() & (self.valid3.q.val() & !self.k3.q.val()).any()));
        self.pad5.d.next = self.pad4.q.val();

        // ---- stage 6: D x, the expected residue
        self.y.next = 0.into();
        for i in 0..32 {
            self.y.next = self.y.val().replace_bit(i, self.p5.q.val().get_bits::<8>(8 * i).xor());
        }
        self.y6.d.next = self.y.val();
        self.residue.pad.next = self.pad5.q.val();
        self.exp6.d.next = self.residue.value.val();
        self.upd6.d.next = self.upd5.q.val();
        self.fin6.d.next = self.fin5.q.val();
        self.last6.d.next = self.last5.q.val();
        self.first6.d.next = self.first5.q.val();
        self.vlan6.d.next = self.vlan5.q.val();
        self.short6.d.next = self.short5.q.val();
        self.pad6.d.next = self.pad5.q.val();

        // ---- stage 7: the CRC register
        self.adv64.state.next = self.crc.q.val();
        self.prev.next = self.adv64.out.val();
        if self.first6.q.val() {
            self.prev.next = self.seed_next_14.val();
            if self.vlan6.q.val() {
                self.prev.next = self.seed_next_18.val();
            }
        }
        if self.upd6.q.val() {
            self.crc.d.next = self.prev.val() ^ self.y6.q.val();
        }
        self.exp7.d.next = self.exp6.q.val();
        self.fin7.d.next = self.fin6.q.val();
        self.last7.d.next = self.last6.q.val();
        self.short7.d.next = self.short6.q.val();
        self.pad7.d.next = self.pad6.q.val();

        // ---- stage 8: the verdict at the frame's last beat, decided now or earlier
        self.good.next = (self.crc.q.val() == self.exp7.q.val()) & !self.short7.q.val();
        if self.fin7.q.val() {
            self.done.d.next = true;
            self.ok.d.next = self.good.val();
            self.was_short.d.next = self.short7.q.val();
            self.fin_state.d.next = self.crc.q.val();
            self.fin_pad.d.next = self.pad7.q.val();
        }
        self.out_valid.d.next = self.last7.q.val();
        self.out_ok.d.next = self.done.q.val() & self.ok.q.val();
        self.out_short.d.next = !self.done.q.val() | self.was_short.q.val();
        self.out_state.d.next = self.fin_state.q.val();
        self.out_pad.d.next = self.fin_pad.q.val();
        if self.fin7.q.val() {
            self.out_ok.d.next = self.good.val();
            self.out_short.d.next = self.short7.q.val();
            self.out_state.d.next = self.crc.q.val();
            self.out_pad.d.next = self.pad7.q.val();
        }
        if self.last7.q.val() {
            // the next frame starts afresh
            self.done.d.next = false;
            self.was_short.d.next = false;
        }
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.last2.d.next = false;
            self.upd3.d.next = false;
            self.last3.d.next = false;
            self.upd4.d.next = false;
            self.fin4.d.next = false;
            self.last4.d.next = false;
            self.upd5.d.next = false;
            self.fin5.d.next = false;
            self.last5.d.next = false;
            self.upd6.d.next = false;
            self.fin6.d.next = false;
            self.last6.d.next = false;
            self.fin7.d.next = false;
            self.last7.d.next = false;
            self.done.d.next = false;
            self.out_valid.d.next = false;
        }
        self.verdict_valid.next = self.out_valid.q.val();
        self.verdict_icrc_ok.next = self.out_ok.q.val();
        self.verdict_short.next = self.out_short.q.val();
        self.verdict_state.next = self.out_state.q.val();
        self.verdict_pad.next = self.out_pad.q.val();
    }
}
