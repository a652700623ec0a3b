//! `IcrcGen`: the ICRC of every frame on a 512-bit stream whose ICRC bytes
//! are zero, one beat per cycle: an [`IcrcCheck`] and a register wound back
//! over the zero fill of the last beat and the 4 zeroed ICRC bytes.
//!
//! The checker's register is `A^(pad+4)` of the register whose inversion is
//! the ICRC, where `pad` (0..=63) is the zero fill of the packet's last
//! beat. A RoCEv2 packet is whole 4-byte words (IP header, UDP, BTH,
//! extended headers, padded payload, ICRC) behind a 14- or 18-byte Ethernet
//! header, so it ends 2 bytes into a word: `pad % 4 == 2`, and
//! `A^-(pad+4)` is `A^-6` or `A^-10` (bit 2 of `pad`) then conditional
//! `A^-8`, `A^-16`, `A^-32`, two steps per cycle over two registered stages.
//! A frame that breaks the rule gets `icrc_misaligned` (its ICRC is wrong).
//!
//! `icrc_valid` pulses [`IcrcGen::LATENCY`] cycles after the cycle a frame's
//! last beat was accepted, with `icrc` in wire byte order (byte 0 in bits
//! 7:0).

use super::{CrcBack, IcrcCheck};
use crate::axis::AxisIn;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct IcrcGen {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<512, 64, 1>,
    pub icrc_valid: Signal<Out, Bit>,
    pub icrc: Signal<Out, Bits<32>>,
    /// The packet did not end 2 bytes into a 4-byte word: `icrc` is wrong.
    pub icrc_misaligned: Signal<Out, Bit>,

    check: IcrcCheck,
    back6: CrcBack<6>,
    back10: CrcBack<10>,
    back8: CrcBack<8>,
    back16: CrcBack<16>,
    back32: CrcBack<32>,
    ta: Signal<Local, Bits<32>>,
    tb: Signal<Local, Bits<32>>,
    ua: Reg<Bits<32>>,
    pa: Reg<Bits<6>>,
    va: Reg<Bit>,
    ub: Reg<Bits<32>>,
    vb: Reg<Bit>,
    mis_b: Reg<Bit>,
    kind: TypeTag<Self>,
}

impl IcrcGen {
    /// Cycles from the cycle a frame's last beat is accepted to the cycle
    /// its ICRC is valid.
    pub const LATENCY: u64 = IcrcCheck::LATENCY + 2;
}

impl Logic for IcrcGen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ua, pa, va, ub, vb, mis_b);
        clock!(self, clock, check);
        self.check.reset.next = self.reset.val();
        self.check.s_axis.tdata.next = self.s_axis.tdata.val();
        self.check.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.check.s_axis.tlast.next = self.s_axis.tlast.val();
        self.check.s_axis.tuser.next = self.s_axis.tuser.val();
        self.check.s_axis.tvalid.next = self.s_axis.tvalid.val();
        self.s_axis.tready.next = self.check.s_axis.tready.val();

        // stage a: A^-6 or A^-10 (pad bit 2), then A^-8 (bit 3)
        self.back6.state.next = self.check.verdict_state.val();
        self.back10.state.next = self.check.verdict_state.val();
        self.ta.next = self.back6.out.val();
        if self.check.verdict_pad.val().get_bit(2) {
            self.ta.next = self.back10.out.val();
        }
        self.back8.state.next = self.ta.val();
        self.ua.d.next = self.ta.val();
        if self.check.verdict_pad.val().get_bit(3) {
            self.ua.d.next = self.back8.out.val();
        }
        self.pa.d.next = self.check.verdict_pad.val();
        self.va.d.next = self.check.verdict_valid.val();

        // stage b: A^-16 (bit 4), A^-32 (bit 5)
        self.back16.state.next = self.ua.q.val();
        self.tb.next = self.ua.q.val();
        if self.pa.q.val().get_bit(4) {
            self.tb.next = self.back16.out.val();
        }
        self.back32.state.next = self.tb.val();
        self.ub.d.next = self.tb.val();
        if self.pa.q.val().get_bit(5) {
            self.ub.d.next = self.back32.out.val();
        }
        self.vb.d.next = self.va.q.val();
        self.mis_b.d.next = self.pa.q.val().get_bits::<2>(0) != 2;

        if self.reset.val() {
            self.va.d.next = false;
            self.vb.d.next = false;
        }
        self.icrc_valid.next = self.vb.q.val();
        self.icrc.next = !self.ub.q.val();
        self.icrc_misaligned.next = self.mis_b.q.val();
    }
}
