//! `AxisRealign`: moves every byte of a packet `r` lanes up (mod 64),
//! carrying the bytes that pass lane 63 into the next beat: the one place a
//! payload is shifted on its way between the wire and host memory
//! (docs/wire.md, "Where payload bytes move"). A received payload goes from
//! its wire lane to its IO address's lane (`r` = address - wire offset), a
//! payload to send from its IO address's lane to its wire lane.
//!
//! A packet's bytes are contiguous: its first beat keeps lanes from some
//! start, its middle beats are full, its last beat keeps lanes up to some
//! end (one beat may be both). `s_axis.tuser` = {r [6:1], error [0]}; `r` is
//! read from a packet's first beat. Out come the same bytes in the same
//! order, the first at lane (start + r) mod 64, with `tuser[0]` on the last
//! beat when any beat of the packet had it. The packet gains a beat when its
//! last bytes pass lane 63, and loses its first when all of that beat's bytes
//! do; a packet with no bytes (one beat, `tkeep` 0) stays one such beat.
//!
//! Structure: an input register, a rotator in three registered stages (by
//! 16, 4 and 1 bytes times two bits of `r` each: one LUT per bit and stage),
//! and a merge stage that takes the lanes below `r` from the previous beat's
//! rotation, into a FIFO. Nothing stalls inside: `s_axis.tready` is a
//! register, high while the FIFO has room for everything in flight (a credit
//! count), and low for one cycle after a packet's last beat that gains a
//! beat, which leaves the merge stage the slot for it. One beat per cycle
//! otherwise; a packet whose last bytes pass lane 63 costs one cycle (also
//! when it lost its first beat and so keeps its beat count). Bytes outside
//! `tkeep` come out zero when they go in zero.

use super::{AxisFifo, AxisIn, AxisOut};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Beats the output FIFO holds: 2^4 (and its output register).
const OUT_FIFO_LOG: usize = 4;
/// Beats owed to the output (accepted, not yet left) above which the input
/// stops: the FIFO's 17 places, less the 2 beats one accepted beat can
/// become and the 2 more the next cycle's can (the limit is checked on last
/// cycle's count).
const OWED_LIMIT: u64 = (1 << OUT_FIFO_LOG) + 1 - 4;
const _: () = assert!(OWED_LIMIT + 4 <= (1 << OUT_FIFO_LOG) + 1);

#[derive(LogicBlock)]
pub struct AxisRealign {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<512, 64, 7>,
    pub m_axis: AxisOut<512, 64, 1>,

    // ---- input
    in_pkt: Reg<Bit>,
    r_hold: Reg<Bits<6>>,
    ready: Reg<Bit>,
    owed: Reg<Bits<6>>,
    in_fire: Signal<Local, Bit>,
    r_now: Signal<Local, Bits<6>>,
    ones64: Constant<Bits<64>>,
    wrap_now: Signal<Local, Bits<64>>,
    extra_now: Signal<Local, Bit>,
    // ---- stages 0..3: data, keep, and what travels with them
    d0: Reg<Bits<512>>,
    k0: Reg<Bits<64>>,
    d1: Reg<Bits<512>>,
    k1: Reg<Bits<64>>,
    d2: Reg<Bits<512>>,
    k2: Reg<Bits<64>>,
    d3: Reg<Bits<512>>,
    k3: Reg<Bits<64>>,
    /// per stage: {skip, extra, err, last, first, valid}
    c0: Reg<Bits<6>>,
    c1: Reg<Bits<6>>,
    c2: Reg<Bits<6>>,
    c3: Reg<Bits<6>>,
    r0: Reg<Bits<6>>,
    r1: Reg<Bits<6>>,
    r2: Reg<Bits<6>>,
    /// lanes below r: they come from the previous beat
    low3: Reg<Bits<64>>,
    // ---- merge
    prev_d: Reg<Bits<512>>,
    prev_k: Reg<Bits<64>>,
    prev_low: Reg<Bits<64>>,
    err_acc: Reg<Bit>,
    tail: Reg<Bit>,
    low_bits: Signal<Local, Bits<512>>,
    prev_low_bits: Signal<Local, Bits<512>>,
    err_all: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    skipped: Signal<Local, Bit>,
    out_fire: Signal<Local, Bit>,
    out: AxisFifo<512, 64, 1, OUT_FIFO_LOG>,
    owed_limit: Constant<Bits<6>>,
    /// 0xff in the top byte lane
    byte_top: Constant<Bits<512>>,
    kind: TypeTag<Self>,
}

impl Default for AxisRealign {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            in_pkt: Default::default(),
            r_hold: Default::default(),
            ready: Default::default(),
            owed: Default::default(),
            in_fire: Default::default(),
            r_now: Default::default(),
            ones64: Constant::new(u64::MAX.into()),
            wrap_now: Default::default(),
            extra_now: Default::default(),
            d0: Default::default(),
            k0: Default::default(),
            d1: Default::default(),
            k1: Default::default(),
            d2: Default::default(),
            k2: Default::default(),
            d3: Default::default(),
            k3: Default::default(),
            c0: Default::default(),
            c1: Default::default(),
            c2: Default::default(),
            c3: Default::default(),
            r0: Default::default(),
            r1: Default::default(),
            r2: Default::default(),
            low3: Default::default(),
            prev_d: Default::default(),
            prev_k: Default::default(),
            prev_low: Default::default(),
            err_acc: Default::default(),
            tail: Default::default(),
            low_bits: Default::default(),
            prev_low_bits: Default::default(),
            err_all: Default::default(),
            push: Default::default(),
            skipped: Default::default(),
            out_fire: Default::default(),
            out: Default::default(),
            owed_limit: Constant::new(OWED_LIMIT.into()),
            byte_top: Constant::new(Bits::<512>::from(0xffu64) << 504),
            kind: Default::default(),
        }
    }
}

impl AxisRealign {
    /// Cycles from a beat taken at the input to its beat offered at the
    /// output (input register, three rotator stages, the merge into the
    /// FIFO, the FIFO's write-to-read and output register), measured in
    /// `tb/tests/axis_realign.rs`.
    pub const LATENCY: u64 = 6;
}

impl Logic for AxisRealign {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_pkt, r_hold, ready, owed, d0, k0, d1, k1, d2, k2, d3, k3, c0, c1, c2, c3, r0, r1, r2, low3,
            prev_d, prev_k, prev_low, err_acc, tail
        );
        clock!(self, clock, out);
        self.out.reset.next = self.reset.val();

        // ---- input: r from a packet's first beat; does its last beat gain one?
        self.s_axis.tready.next = self.ready.q.val();
        self.in_fire.next = self.s_axis.tvalid.val() & self.ready.q.val();
        self.r_now.next = self.r_hold.q.val();
        if !self.in_pkt.q.val() {
            self.r_now.next = self.s_axis.tuser.val().get_bits::<6>(1);
        }
        // lanes whose bytes pass lane 63: l + r >= 64
        self.wrap_now.next = !(self.ones64.val() >> self.r_now.val());
        self.extra_now.next = self.s_axis.tlast.val() & (self.s_axis.tkeep.val() & self.wrap_now.val()).any();
        if self.in_fire.val() {
            self.r_hold.d.next = self.r_now.val();
            self.in_pkt.d.next = !self.s_axis.tlast.val();
        }
        self.d0.d.next = self.s_axis.tdata.val();
        self.k0.d.next = self.s_axis.tkeep.val();
        self.r0.d.next = self.r_now.val();
        // skip is decided a stage later
        self.c0.d.next = (bit_cast::<6, 1>(self.extra_now.val().into()) << 4)
            | (bit_cast::<6, 1>(self.s_axis.tuser.val().get_bit(0).into()) << 3)
            | (bit_cast::<6, 1>(self.s_axis.tlast.val().into()) << 2)
            | (bit_cast::<6, 1>((!self.in_pkt.q.val()).into()) << 1)
            | bit_cast::<6, 1>(self.in_fire.val().into());

        // ---- stage 1: rotate by 16 bytes x r[5:4]; skip: a first beat whose bytes all pass lane 63
        self.d1.d.next = self.d0.q.val();
        self.k1.d.next = self.k0.q.val();
        if self.r0.q.val().get_bits::<2>(4) == 1 {
            self.d1.d.next = (self.d0.q.val() << 128) | (self.d0.q.val() >> 384);
            self.k1.d.next = (self.k0.q.val() << 16) | (self.k0.q.val() >> 48);
        } else if self.r0.q.val().get_bits::<2>(4) == 2 {
            self.d1.d.next = (self.d0.q.val() << 256) | (self.d0.q.val() >> 256);
            self.k1.d.next = (self.k0.q.val() << 32) | (self.k0.q.val() >> 32);
        } else if self.r0.q.val().get_bits::<2>(4) == 3 {
            self.d1.d.next = (self.d0.q.val() << 384) | (self.d0.q.val() >> 128);
            self.k1.d.next = (self.k0.q.val() << 48) | (self.k0.q.val() >> 16);
        }
        self.c1.d.next = self.c0.q.val();
        // the first beat's bytes all wrap, and there is a beat after it to carry them
        if self.c0.q.val().get_bit(1)
            & !(self.k0.q.val() & (self.ones64.val() >> self.r0.q.val())).any()
            & (!self.c0.q.val().get_bit(2) | self.c0.q.val().get_bit(4))
        {
            self.c1.d.next = self.c0.q.val() | 0x20;
        }
        self.r1.d.next = self.r0.q.val();

        // ---- stage 2: by 4 bytes x r[3:2]
        self.d2.d.next = self.d1.q.val();
        self.k2.d.next = self.k1.q.val();
        if self.r1.q.val().get_bits::<2>(2) == 1 {
            self.d2.d.next = (self.d1.q.val() << 32) | (self.d1.q.val() >> 480);
            self.k2.d.next = (self.k1.q.val() << 4) | (self.k1.q.val() >> 60);
        } else if self.r1.q.val().get_bits::<2>(2) == 2 {
            self.d2.d.next = (self.d1.q.val() << 64) | (self.d1.q.val() >> 448);
            self.k2.d.next = (self.k1.q.val() << 8) | (self.k1.q.val() >> 56);
        } else if self.r1.q.val().get_bits::<2>(2) == 3 {
            self.d2.d.next = (self.d1.q.val() << 96) | (self.d1.q.val() >> 416);
            self.k2.d.next = (self.k1.q.val() << 12) | (self.k1.q.val() >> 52);
        }
        self.c2.d.next = self.c1.q.val();
        self.r2.d.next = self.r1.q.val();

        // ---- stage 3: by 1 byte x r[1:0]; the lanes below r
        self.d3.d.next = self.d2.q.val();
        self.k3.d.next = self.k2.q.val();
        if self.r2.q.val().get_bits::<2>(0) == 1 {
            self.d3.d.next = (self.d2.q.val() << 8) | (self.d2.q.val() >> 504);
            self.k3.d.next = (self.k2.q.val() << 1) | (self.k2.q.val() >> 63);
        } else if self.r2.q.val().get_bits::<2>(0) == 2 {
            self.d3.d.next = (self.d2.q.val() << 16) | (self.d2.q.val() >> 496);
            self.k3.d.next = (self.k2.q.val() << 2) | (self.k2.q.val() >> 62);
        } else if self.r2.q.val().get_bits::<2>(0) == 3 {
            self.d3.d.next = (self.d2.q.val() << 24) | (self.d2.q.val() >> 488);
            self.k3.d.next = (self.k2.q.val() << 3) | (self.k2.q.val() >> 61);
        }
        self.c3.d.next = self.c2.q.val();
        self.low3.d.next = !(self.ones64.val() << self.r2.q.val());

        // ---- merge: lanes >= r from this beat, lanes < r from the previous one
        self.low_bits.next = 0.into();
        self.prev_low_bits.next = 0.into();
        // byte masks from lane masks (wiring: each bit follows one mask bit)
        for lane in 0..64 {
            self.low_bits.next = self.low_bits.val() >> 8;
            self.prev_low_bits.next = self.prev_low_bits.val() >> 8;
            if self.low3.q.val().get_bit(lane) {
                self.low_bits.next = self.low_bits.val() | self.byte_top.val();
            }
            if self.prev_low.q.val().get_bit(lane) {
                self.prev_low_bits.next = self.prev_low_bits.val() | self.byte_top.val();
            }
        }
        self.err_all.next = self.err_acc.q.val() | self.c3.q.val().get_bit(3);
        self.out.s_axis.tdata.next = self.d3.q.val() & !self.low_bits.val();
        self.out.s_axis.tkeep.next = self.k3.q.val() & !self.low3.q.val();
        if !self.c3.q.val().get_bit(1) {
            self.out.s_axis.tdata.next =
                (self.d3.q.val() & !self.low_bits.val()) | (self.prev_d.q.val() & self.low_bits.val());
            self.out.s_axis.tkeep.next =
                (self.k3.q.val() & !self.low3.q.val()) | (self.prev_k.q.val() & self.low3.q.val());
        }
        self.out.s_axis.tlast.next = self.c3.q.val().get_bit(2) & !self.c3.q.val().get_bit(4);
        self.out.s_axis.tuser.next =
            bit_cast::<1, 1>((self.err_all.val() & self.c3.q.val().get_bit(2) & !self.c3.q.val().get_bit(4)).into());
        self.push.next = self.c3.q.val().get_bit(0) & !self.c3.q.val().get_bit(5);
        self.skipped.next = self.c3.q.val().get_bit(0) & self.c3.q.val().get_bit(5);
        // the tail of a packet that gained a beat, in the slot the input left free
        if self.tail.q.val() {
            self.out.s_axis.tdata.next = self.prev_d.q.val() & self.prev_low_bits.val();
            self.out.s_axis.tkeep.next = self.prev_k.q.val() & self.prev_low.q.val();
            self.out.s_axis.tlast.next = true;
            self.out.s_axis.tuser.next = bit_cast::<1, 1>(self.err_acc.q.val().into());
            self.push.next = true;
        }
        self.out.s_axis.tvalid.next = self.push.val();
        self.tail.d.next = false;
        if self.c3.q.val().get_bit(0) {
            self.prev_d.d.next = self.d3.q.val();
            self.prev_k.d.next = self.k3.q.val();
            self.prev_low.d.next = self.low3.q.val();
            self.err_acc.d.next = self.err_all.val() & !self.c3.q.val().get_bit(2);
            if self.c3.q.val().get_bit(2) & self.c3.q.val().get_bit(4) {
                self.tail.d.next = true;
                self.err_acc.d.next = self.err_all.val();
            }
        } else if self.tail.q.val() {
            self.err_acc.d.next = false;
        }

        // ---- credits: beats owed to the output; at most two per beat taken
        self.out_fire.next = self.m_axis.tready.val() & self.out.m_axis.tvalid.val();
        self.owed.d.next = self.owed.q.val()
            + bit_cast::<6, 1>(self.in_fire.val().into())
            + bit_cast::<6, 1>((self.in_fire.val() & self.extra_now.val()).into())
            - bit_cast::<6, 1>(self.skipped.val().into())
            - bit_cast::<6, 1>(self.out_fire.val().into());
        // one cycle without input after a last beat that gains a beat
        self.ready.d.next = (self.owed.q.val() <= self.owed_limit.val()) & !(self.in_fire.val() & self.extra_now.val());

        self.m_axis.tdata.next = self.out.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.out.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.out.m_axis.tlast.val();
        self.m_axis.tuser.next = self.out.m_axis.tuser.val();
        self.m_axis.tvalid.next = self.out.m_axis.tvalid.val();
        self.out.m_axis.tready.next = self.m_axis.tready.val();

        if self.reset.val() {
            self.in_pkt.d.next = false;
            self.ready.d.next = false;
            self.owed.d.next = 0.into();
            self.c0.d.next = 0.into();
            self.c1.d.next = 0.into();
            self.c2.d.next = 0.into();
            self.c3.d.next = 0.into();
            self.tail.d.next = false;
            self.err_acc.d.next = false;
        }
    }
}
