//! `IcrcCheck`: the RoCEv2 ICRC of every frame on a 512-bit stream, one beat
//! per cycle, as a verdict at the frame's end.
//!
//! The ICRC covers the IP packet (IP header to the end of the UDP payload,
//! the ICRC included) behind 8 bytes of 0xFF, with the fields a router may
//! rewrite forced to ones: IPv4 TOS, TTL and header checksum; IPv6 traffic
//! class, flow label and hop limit; the UDP checksum; BTH byte 4 (FECN, BECN).
//! Running the CRC over the packet *and* its ICRC leaves a constant residue
//! in the register, so the ICRC never has to be located.
//!
//! Pipeline (no stalls; `s_axis.tready` is always 1):
//! 1. input register; on the first beat, decode VLAN, IP version, IHL and the
//!    IP length, hence where the packet ends and which bytes to force;
//! 2. frame context registered; per-beat byte count `n` (0..=64) of packet
//!    bytes in the beat;
//! 3. masked beat, Ethernet header zeroed (the seed is wound back over those
//!    bytes instead), and the shift that moves a partial last beat to the top
//!    lanes (leading zeros do not change a zero-started CRC);
//! 4. the shifted beat;
//! 5. `D x` ([`CrcFold512`]);
//! 6. register update `s = A^64 s ^ D x`, or `A^n s ^ D x` on the last packet
//!    beat, compared with the residue.
//!
//! The verdict (`verdict_valid` for one cycle) comes 6 cycles after the
//! frame's last beat entered. Frames that are not IPv4/IPv6 get
//! `icrc_ok = 0`; a frame shorter than its IP length says gets `short = 1`.

use super::crc32;
use super::{CrcAdvance, CrcFold512};
use crate::axis::AxisIn;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct IcrcCheck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<512, 64, 1>,
    pub verdict_valid: Signal<Out, Bit>,
    pub verdict_icrc_ok: Signal<Out, Bit>,
    pub verdict_short: Signal<Out, Bit>,
    /// The raw CRC register after the packet: the residue when the ICRC is
    /// right; with the ICRC bytes zeroed, `A^4` of the register that gives it
    /// (the transmit builder turns it into the ICRC).
    pub verdict_state: Signal<Out, Bits<32>>,

    // stage 1: input
    d1: Reg<Bits<512>>,
    k1: Reg<Bits<64>>,
    v1: Reg<Bit>,
    l1: Reg<Bit>,
    first1: Reg<Bit>,
    in_frame: Reg<Bit>,
    // first-beat decode (combinational from stage 1)
    vlan: Signal<Local, Bit>,
    ethertype: Signal<Local, Bits<16>>,
    ipb0: Signal<Local, Bits<8>>,
    ip_len_raw: Signal<Local, Bits<16>>,
    ip6_len_raw: Signal<Local, Bits<16>>,
    ip_len: Signal<Local, Bits<16>>,
    ip6_len: Signal<Local, Bits<16>>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    l2: Signal<Local, Bits<7>>,
    udp: Signal<Local, Bits<7>>,
    region_len: Signal<Local, Bits<17>>,
    hit: Signal<Local, Bits<128>>,
    nib: Signal<Local, Bits<128>>,
    one128: Constant<Bits<128>>,
    // stage 2: beat + frame context
    d2: Reg<Bits<512>>,
    k2: Reg<Bits<64>>,
    v2: Reg<Bit>,
    l2_last: Reg<Bit>,
    beat: Reg<Bits<11>>,
    ctx_ip: Reg<Bit>,
    ctx_vlan: Reg<Bit>,
    ctx_end: Reg<Bits<17>>,
    ctx_hit: Reg<Bits<128>>,
    ctx_nib: Reg<Bits<128>>,
    beat_start: Signal<Local, Bits<17>>,
    remaining: Signal<Local, Bits<17>>,
    n: Signal<Local, Bits<7>>,
    missing: Signal<Local, Bit>,
    lane: Signal<Local, Bits<8>>,
    masked: Signal<Local, Bits<512>>,
    shamt: Signal<Local, Bits<10>>,
    // stage 2b: masked beat, byte count and shift amount
    m2b: Reg<Bits<512>>,
    n2b: Reg<Bits<7>>,
    sh2b: Reg<Bits<10>>,
    v2b: Reg<Bit>,
    first2b: Reg<Bit>,
    vlan2b: Reg<Bit>,
    fin2b: Reg<Bit>,
    last2b: Reg<Bit>,
    short2b: Reg<Bit>,
    // stage 3: prepared beat
    x3: Reg<Bits<512>>,
    n3: Reg<Bits<7>>,
    v3: Reg<Bit>,
    first3: Reg<Bit>,
    vlan3: Reg<Bit>,
    fin3: Reg<Bit>,
    last3: Reg<Bit>,
    short3: Reg<Bit>,
    // stage 4: folded beat
    fold: CrcFold512,
    y4: Reg<Bits<32>>,
    n4: Reg<Bits<7>>,
    v4: Reg<Bit>,
    first4: Reg<Bit>,
    vlan4: Reg<Bit>,
    fin4: Reg<Bit>,
    last4: Reg<Bit>,
    short4: Reg<Bit>,
    // stage 5: register update
    adv64: CrcAdvance,
    advn: CrcAdvance,
    s_prev: Signal<Local, Bits<32>>,
    fin_state: Signal<Local, Bits<32>>,
    crc: Reg<Bits<32>>,
    done: Reg<Bit>,
    ok: Reg<Bit>,
    was_short: Reg<Bit>,
    seed_l2_14: Constant<Bits<32>>,
    seed_l2_18: Constant<Bits<32>>,
    residue: Constant<Bits<32>>,
    out_valid: Reg<Bit>,
    out_ok: Reg<Bit>,
    out_short: Reg<Bit>,
    fin_reg: Reg<Bits<32>>,
    out_state: Reg<Bits<32>>,
    kind: TypeTag<Self>,
}

impl Default for IcrcCheck {
    fn default() -> Self {
        let seed = crc32::icrc_seed();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            verdict_valid: Default::default(),
            verdict_icrc_ok: Default::default(),
            verdict_short: Default::default(),
            verdict_state: Default::default(),
            d1: Default::default(),
            k1: Default::default(),
            v1: Default::default(),
            l1: Default::default(),
            first1: Default::default(),
            in_frame: Default::default(),
            vlan: Default::default(),
            ethertype: Default::default(),
            ipb0: Default::default(),
            ip_len_raw: Default::default(),
            ip6_len_raw: Default::default(),
            ip_len: Default::default(),
            ip6_len: Default::default(),
            is_v4: Default::default(),
            is_v6: Default::default(),
            l2: Default::default(),
            udp: Default::default(),
            region_len: Default::default(),
            hit: Default::default(),
            nib: Default::default(),
            one128: Constant::new(1u64.into()),
            d2: Default::default(),
            k2: Default::default(),
            v2: Default::default(),
            l2_last: Default::default(),
            beat: Default::default(),
            ctx_ip: Default::default(),
            ctx_vlan: Default::default(),
            ctx_end: Default::default(),
            ctx_hit: Default::default(),
            ctx_nib: Default::default(),
            beat_start: Default::default(),
            remaining: Default::default(),
            n: Default::default(),
            missing: Default::default(),
            lane: Default::default(),
            masked: Default::default(),
            shamt: Default::default(),
            m2b: Default::default(),
            n2b: Default::default(),
            sh2b: Default::default(),
            v2b: Default::default(),
            first2b: Default::default(),
            vlan2b: Default::default(),
            fin2b: Default::default(),
            last2b: Default::default(),
            short2b: Default::default(),
            x3: Default::default(),
            n3: Default::default(),
            v3: Default::default(),
            first3: Default::default(),
            vlan3: Default::default(),
            fin3: Default::default(),
            last3: Default::default(),
            short3: Default::default(),
            fold: Default::default(),
            y4: Default::default(),
            n4: Default::default(),
            v4: Default::default(),
            first4: Default::default(),
            vlan4: Default::default(),
            fin4: Default::default(),
            last4: Default::default(),
            short4: Default::default(),
            adv64: Default::default(),
            advn: Default::default(),
            s_prev: Default::default(),
            fin_state: Default::default(),
            crc: Default::default(),
            done: Default::default(),
            ok: Default::default(),
            was_short: Default::default(),
            // the seed wound back over the Ethernet header, which enters as zeros
            seed_l2_14: Constant::new((crc32::retreat(seed, 14) as u64).into()),
            seed_l2_18: Constant::new((crc32::retreat(seed, 18) as u64).into()),
            residue: Constant::new((crc32::residue() as u64).into()),
            out_valid: Default::default(),
            out_ok: Default::default(),
            out_short: Default::default(),
            fin_reg: Default::default(),
            out_state: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for IcrcCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, d1, k1, v1, l1, first1, in_frame, d2, k2, v2, l2_last, beat, ctx_ip, ctx_vlan, ctx_end,
            ctx_hit, ctx_nib, m2b, n2b, sh2b, v2b, first2b, vlan2b, fin2b, last2b, short2b, x3, n3, v3, first3, vlan3,
            fin3, last3, short3, y4, n4, v4, first4, vlan4, fin4, last4, short4, crc, done, ok, was_short, out_valid,
            out_ok, out_short, fin_reg, out_state
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

        // ---- first-beat decode (only used when first1)
        // bytes 12..13 = 0x81 0x00 in little-endian lanes
        self.vlan.next = self.d1.q.val().get_bits::<16>(96) == 0x0081;
        self.ethertype.next = self.d1.q.val().get_bits::<16>(96);
        self.ipb0.next = self.d1.q.val().get_bits::<8>(112);
        self.ip_len_raw.next = self.d1.q.val().get_bits::<16>(128);
        self.ip6_len_raw.next = self.d1.q.val().get_bits::<16>(144);
        self.l2.next = 14.into();
        if self.vlan.val() {
            self.ethertype.next = self.d1.q.val().get_bits::<16>(128);
            self.ipb0.next = self.d1.q.val().get_bits::<8>(144);
            self.ip_len_raw.next = self.d1.q.val().get_bits::<16>(160);
            self.ip6_len_raw.next = self.d1.q.val().get_bits::<16>(176);
            self.l2.next = 18.into();
        }
        // lengths are big-endian on the wire
        self.ip_len.next = (self.ip_len_raw.val() << 8) | (self.ip_len_raw.val() >> 8);
        self.ip6_len.next = (self.ip6_len_raw.val() << 8) | (self.ip6_len_raw.val() >> 8);
        self.is_v4.next = (self.ethertype.val() == 0x0008) & (self.ipb0.val().get_bits::<4>(4) == 4);
        self.is_v6.next = (self.ethertype.val() == 0xdd86) & (self.ipb0.val().get_bits::<4>(4) == 6);
        self.region_len.next = bit_cast::<17, 16>(self.ip_len.val());
        self.udp.next = self.l2.val() + (bit_cast::<7, 4>(self.ipb0.val().get_bits::<4>(0)) << 2);
        self.hit.next = (self.one128.val() << (self.l2.val() + 1))
            | (self.one128.val() << (self.l2.val() + 8))
            | (self.one128.val() << (self.l2.val() + 10))
            | (self.one128.val() << (self.l2.val() + 11));
        self.nib.next = 0.into();
        if self.is_v6.val() {
            self.region_len.next = bit_cast::<17, 16>(self.ip6_len.val()) + 40;
            self.udp.next = self.l2.val() + 40;
            self.hit.next = (self.one128.val() << (self.l2.val() + 1))
                | (self.one128.val() << (self.l2.val() + 2))
                | (self.one128.val() << (self.l2.val() + 3))
                | (self.one128.val() << (self.l2.val() + 7));
            self.nib.next = self.one128.val() << self.l2.val();
        }
        self.hit.next = self.hit.val()
            | (self.one128.val() << (self.udp.val() + 6))
            | (self.one128.val() << (self.udp.val() + 7))
            | (self.one128.val() << (self.udp.val() + 12));

        // ---- stage 2: beat and frame context
        self.d2.d.next = self.d1.q.val();
        self.k2.d.next = self.k1.q.val();
        self.v2.d.next = self.v1.q.val();
        self.l2_last.d.next = self.l1.q.val();
        if self.v1.q.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            if self.first1.q.val() {
                self.beat.d.next = 0.into();
                self.ctx_ip.d.next = self.is_v4.val() | self.is_v6.val();
                self.ctx_vlan.d.next = self.vlan.val();
                self.ctx_end.d.next = self.region_len.val() + bit_cast::<17, 7>(self.l2.val());
                self.ctx_hit.d.next = self.hit.val();
                self.ctx_nib.d.next = self.nib.val();
            }
        }
        // packet bytes in this beat: clamp(end - 64 * beat, 0, 64)
        self.beat_start.next = bit_cast::<17, 11>(self.beat.q.val()) << 6;
        self.remaining.next = self.ctx_end.q.val() - self.beat_start.val();
        self.n.next = 0.into();
        if self.ctx_ip.q.val() & (self.ctx_end.q.val() > self.beat_start.val()) {
            self.n.next = 64.into();
            if self.remaining.val() < 64 {
                self.n.next = self.remaining.val().get_bits::<7>(0);
            }
        }
        // the frame ends inside the packet: its last byte is not in this beat
        self.missing.next = self.l2_last.q.val()
            & (self.ctx_end.q.val() > self.beat_start.val())
            & ((self.remaining.val() > 64) | !(self.k2.q.val() >> (self.n.val() - 1)).get_bit(0));
        // force variant fields to ones, zero the Ethernet header of beat 0
        self.masked.next = 0.into();
        for p in 0..64 {
            self.lane.next = self.d2.q.val().get_bits::<8>(8 * p);
            if self.beat.q.val() == 0 {
                if self.ctx_hit.q.val().get_bit(p) {
                    self.lane.next = 0xff.into();
                }
                if self.ctx_nib.q.val().get_bit(p) {
                    self.lane.next = self.lane.val() | 0x0f;
                }
                if self.ctx_vlan.q.val() {
                    if p < 18 {
                        self.lane.next = 0.into();
                    }
                } else if p < 14 {
                    self.lane.next = 0.into();
                }
            }
            if self.beat.q.val() == 1 && self.ctx_hit.q.val().get_bit(p + 64) {
                self.lane.next = 0xff.into();
            }
            self.masked.next = (self.masked.val() >> 8) | (bit_cast::<512, 8>(self.lane.val()) << 504);
        }
        // a partial beat's bytes move to the top lanes (leading zeros are free)
        self.shamt.next = bit_cast::<10, 7>(self.n.val()) << 3;
        self.shamt.next = 512 - self.shamt.val();

        // ---- stage 2b
        self.m2b.d.next = self.masked.val();
        self.n2b.d.next = self.n.val();
        self.sh2b.d.next = self.shamt.val();
        self.v2b.d.next = self.v2.q.val() & (self.n.val() != 0);
        self.first2b.d.next = self.beat.q.val() == 0;
        self.vlan2b.d.next = self.ctx_vlan.q.val();
        self.fin2b.d.next = self.ctx_ip.q.val() & (self.remaining.val() <= 64) & (self.n.val() != 0);
        self.last2b.d.next = self.v2.q.val() & self.l2_last.q.val();
        self.short2b.d.next = self.v2.q.val() & self.missing.val();

        // ---- stage 3
        self.x3.d.next = self.m2b.q.val();
        if self.n2b.q.val() != 64 {
            self.x3.d.next = self.m2b.q.val() << self.sh2b.q.val();
        }
        self.n3.d.next = self.n2b.q.val();
        self.v3.d.next = self.v2b.q.val();
        self.first3.d.next = self.first2b.q.val();
        self.vlan3.d.next = self.vlan2b.q.val();
        self.fin3.d.next = self.fin2b.q.val();
        self.last3.d.next = self.last2b.q.val();
        self.short3.d.next = self.short2b.q.val();

        // ---- stage 4
        self.fold.data.next = self.x3.q.val();
        self.y4.d.next = self.fold.crc.val();
        self.n4.d.next = self.n3.q.val();
        self.v4.d.next = self.v3.q.val();
        self.first4.d.next = self.first3.q.val();
        self.vlan4.d.next = self.vlan3.q.val();
        self.fin4.d.next = self.fin3.q.val();
        self.last4.d.next = self.last3.q.val();
        self.short4.d.next = self.short3.q.val();

        // ---- stage 5: the CRC register
        self.s_prev.next = self.crc.q.val();
        if self.first4.q.val() {
            self.s_prev.next = self.seed_l2_14.val();
            if self.vlan4.q.val() {
                self.s_prev.next = self.seed_l2_18.val();
            }
        }
        self.adv64.state.next = self.s_prev.val();
        self.adv64.nbytes.next = 64.into();
        self.advn.state.next = self.s_prev.val();
        self.advn.nbytes.next = self.n4.q.val();
        self.fin_state.next = self.advn.out.val() ^ self.y4.q.val();
        if self.v4.q.val() {
            self.crc.d.next = self.adv64.out.val() ^ self.y4.q.val();
            if self.fin4.q.val() {
                self.done.d.next = true;
                self.ok.d.next = (self.fin_state.val() == self.residue.val()) & !self.short4.q.val();
                self.was_short.d.next = self.short4.q.val();
                self.fin_reg.d.next = self.fin_state.val();
            }
        }
        // verdict at the frame's last beat: decided now, or earlier in the frame
        self.out_valid.d.next = self.last4.q.val();
        self.out_ok.d.next = self.done.q.val() & self.ok.q.val();
        self.out_short.d.next = !self.done.q.val() | self.was_short.q.val();
        self.out_state.d.next = self.fin_reg.q.val();
        if self.v4.q.val() & self.fin4.q.val() {
            self.out_ok.d.next = (self.fin_state.val() == self.residue.val()) & !self.short4.q.val();
            self.out_short.d.next = self.short4.q.val();
            self.out_state.d.next = self.fin_state.val();
        }
        if self.last4.q.val() {
            // the next frame starts afresh
            self.done.d.next = false;
            self.was_short.d.next = false;
        }
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v2b.d.next = false;
            self.last2b.d.next = false;
            self.v3.d.next = false;
            self.v4.d.next = false;
            self.last3.d.next = false;
            self.last4.d.next = false;
            self.done.d.next = false;
            self.out_valid.d.next = false;
        }
        self.verdict_valid.next = self.out_valid.q.val();
        self.verdict_icrc_ok.next = self.out_ok.q.val();
        self.verdict_short.next = self.out_short.q.val();
        self.verdict_state.next = self.out_state.q.val();
    }
}
