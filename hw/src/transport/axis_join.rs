//! `AxisJoin`: joins consecutive pieces of a packet into one stream. Each
//! input piece is a run of contiguous bytes already in its final lanes (an
//! `AxisRealign` put it there): piece k+1's first byte sits in the lane
//! after piece k's last byte (mod 64). Where piece k's last beat does not
//! reach lane 63, that beat and piece k+1's first beat hold complementary
//! lanes, so the join ORs them: no shift.
//!
//! `s_axis`: `tlast` ends a piece; on that beat `tuser[1]` says the piece
//! ends its packet; `tuser[0]` is an error flag (any beat). `m_axis`: the
//! packet, `tkeep` exactly its bytes, bytes outside `tkeep` zero, `tlast` on
//! its last beat, `tuser[0]` on that beat when any input beat of the packet
//! had an error.
//!
//! Structure: a pending register (a piece's partial last beat that waits for
//! the next piece), an OR, and an `AxisSkidBuffer` on the output, so
//! `s_axis.tready` is a register. Latency 1 cycle (the skid buffer's output
//! register); one input beat per cycle.

use crate::axis::{AxisIn, AxisOut, AxisSkidBuffer};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct AxisJoin {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<512, 64, 2>,
    pub m_axis: AxisOut<512, 64, 1>,
    pend_d: Reg<Bits<512>>,
    pend_k: Reg<Bits<64>>,
    err_acc: Reg<Bit>,
    keep_bits: Signal<Local, Bits<512>>,
    merged_d: Signal<Local, Bits<512>>,
    merged_k: Signal<Local, Bits<64>>,
    hold: Signal<Local, Bit>,
    pkt_end: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    out: AxisSkidBuffer<512, 64, 1>,
    /// 0xff in the top byte lane
    byte_top: Constant<Bits<512>>,
    kind: TypeTag<Self>,
}

impl Default for AxisJoin {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            pend_d: Default::default(),
            pend_k: Default::default(),
            err_acc: Default::default(),
            keep_bits: Default::default(),
            merged_d: Default::default(),
            merged_k: Default::default(),
            hold: Default::default(),
            pkt_end: Default::default(),
            fire: Default::default(),
            out: Default::default(),
            byte_top: Constant::new(Bits::<512>::from(0xffu64) << 504),
            kind: Default::default(),
        }
    }
}

impl AxisJoin {
    /// Cycles from a beat taken to its beat offered (the skid buffer's output register).
    pub const LATENCY: u64 = 1;
}

impl Logic for AxisJoin {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pend_d, pend_k, err_acc);
        clock!(self, clock, out);
        self.out.reset.next = self.reset.val();

        // byte masks from lane masks (wiring: each bit follows one keep bit)
        self.keep_bits.next = 0.into();
        for lane in 0..64 {
            self.keep_bits.next = self.keep_bits.val() >> 8;
            if self.s_axis.tkeep.val().get_bit(lane) {
                self.keep_bits.next = self.keep_bits.val() | self.byte_top.val();
            }
        }
        self.merged_d.next = (self.s_axis.tdata.val() & self.keep_bits.val()) | self.pend_d.q.val();
        self.merged_k.next = self.s_axis.tkeep.val() | self.pend_k.q.val();
        self.pkt_end.next = self.s_axis.tlast.val() & self.s_axis.tuser.val().get_bit(1);
        // a piece's last beat that stops short of lane 63 waits for the next piece
        self.hold.next =
            self.s_axis.tlast.val() & !self.s_axis.tuser.val().get_bit(1) & !self.s_axis.tkeep.val().get_bit(63);

        self.s_axis.tready.next = self.out.s_axis.tready.val();
        self.fire.next = self.s_axis.tvalid.val() & self.out.s_axis.tready.val();
        self.out.s_axis.tdata.next = self.merged_d.val();
        self.out.s_axis.tkeep.next = self.merged_k.val();
        self.out.s_axis.tlast.next = self.pkt_end.val();
        self.out.s_axis.tuser.next =
            bit_cast::<1, 1>(((self.err_acc.q.val() | self.s_axis.tuser.val().get_bit(0)) & self.pkt_end.val()).into());
        self.out.s_axis.tvalid.next = self.s_axis.tvalid.val() & !self.hold.val();

        if self.fire.val() {
            self.pend_d.d.next = 0.into();
            self.pend_k.d.next = 0.into();
            if self.hold.val() {
                self.pend_d.d.next = self.merged_d.val();
                self.pend_k.d.next = self.merged_k.val();
            }
            self.err_acc.d.next = (self.err_acc.q.val() | self.s_axis.tuser.val().get_bit(0)) & !self.pkt_end.val();
        }

        self.m_axis.tdata.next = self.out.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.out.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.out.m_axis.tlast.val();
        self.m_axis.tuser.next = self.out.m_axis.tuser.val();
        self.m_axis.tvalid.next = self.out.m_axis.tvalid.val();
        self.out.m_axis.tready.next = self.m_axis.tready.val();

        if self.reset.val() {
            self.pend_d.d.next = 0.into();
            self.pend_k.d.next = 0.into();
            self.err_acc.d.next = false;
        }
    }
}
