//! `RxPaySplit`: the received payloads (`RxHold::m_axis`, every packet at
//! least one beat, in order) to the requests' scatter (`m_req`), the
//! responses' scatter (`m_resp`) or nowhere, by each packet's destination
//! from `RxLookup::m_dest` (same order: both follow `RxHold`'s).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_dest` | in | one per packet: `RX_DEST_DROP`, `RX_DEST_REQ`, `RX_DEST_RESP`; `ready` a register |
//! | `s_axis` | in | the payloads; `tready` a choice of registers (the destination's skid buffer's, or 1 for a drop) |
//! | `m_req`, `m_resp` | out | the payloads as they came (`tdata`, `tkeep`, `tlast`, `tuser`), from skid buffers |
//!
//! A packet's destination waits in `nxt` (the input register) and moves to
//! `cur` when the packet before has had its last beat; the beats then go
//! at one per cycle. Between packets: a cycle when `cur` must be reloaded
//! from `nxt` (one packet per two cycles at most, as `RxLookup` gives
//! destinations). A dropped payload is taken at one beat per cycle.

use super::DestIn;
use crate::axis::{AxisIn, AxisOut, AxisSkidBuffer};
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RxPaySplit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_dest: DestIn,
    pub s_axis: AxisIn<512, 64, 1>,
    pub m_req: AxisOut<512, 64, 1>,
    pub m_resp: AxisOut<512, 64, 1>,
    nxt_valid: Reg<Bit>,
    nxt_dest: Reg<Bits<2>>,
    cur_valid: Reg<Bit>,
    cur_dest: Reg<Bits<2>>,
    sb_req: AxisSkidBuffer<512, 64, 1>,
    sb_resp: AxisSkidBuffer<512, 64, 1>,
    to_req: Signal<Local, Bit>,
    to_resp: Signal<Local, Bit>,
    last_taken: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for RxPaySplit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, nxt_valid, nxt_dest, cur_valid, cur_dest);
        clock!(self, clock, sb_req, sb_resp);
        self.sb_req.reset.next = self.reset.val();
        self.sb_resp.reset.next = self.reset.val();

        // ---- destinations
        self.s_dest.ready.next = !self.nxt_valid.q.val();
        if self.s_dest.valid.val() & !self.nxt_valid.q.val() {
            self.nxt_valid.d.next = true;
            self.nxt_dest.d.next = self.s_dest.dest.val();
        }
        self.to_req.next = self.cur_valid.q.val() & (self.cur_dest.q.val() == RX_DEST_REQ);
        self.to_resp.next = self.cur_valid.q.val() & (self.cur_dest.q.val() == RX_DEST_RESP);

        // ---- beats
        self.s_axis.tready.next = self.cur_valid.q.val();
        if self.to_req.val() {
            self.s_axis.tready.next = self.sb_req.s_axis.tready.val();
        }
        if self.to_resp.val() {
            self.s_axis.tready.next = self.sb_resp.s_axis.tready.val();
        }
        self.sb_req.s_axis.tdata.next = self.s_axis.tdata.val();
        self.sb_req.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.sb_req.s_axis.tlast.next = self.s_axis.tlast.val();
        self.sb_req.s_axis.tuser.next = self.s_axis.tuser.val();
        self.sb_req.s_axis.tvalid.next = self.s_axis.tvalid.val() & self.to_req.val();
        self.sb_resp.s_axis.tdata.next = self.s_axis.tdata.val();
        self.sb_resp.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.sb_resp.s_axis.tlast.next = self.s_axis.tlast.val();
        self.sb_resp.s_axis.tuser.next = self.s_axis.tuser.val();
        self.sb_resp.s_axis.tvalid.next = self.s_axis.tvalid.val() & self.to_resp.val();
        AxisOut::<512, 64, 1>::link(&mut self.m_req, &mut self.sb_req.m_axis);
        AxisOut::<512, 64, 1>::link(&mut self.m_resp, &mut self.sb_resp.m_axis);

        // ---- the packet's last beat: the next destination
        self.last_taken.next = self.s_axis.tvalid.val() & self.s_axis.tready.val() & self.s_axis.tlast.val();
        if self.last_taken.val() {
            self.cur_valid.d.next = false;
        }
        if self.nxt_valid.q.val() & (!self.cur_valid.q.val() | self.last_taken.val()) {
            self.cur_valid.d.next = true;
            self.cur_dest.d.next = self.nxt_dest.q.val();
            self.nxt_valid.d.next = false;
        }
        if self.reset.val() {
            self.nxt_valid.d.next = false;
            self.cur_valid.d.next = false;
        }
    }
}
