//! Skid buffer: registers both directions. `s_axis.tready` comes straight
//! from a flop, so no combinational path crosses the block; a second
//! ("skid") register catches the beat accepted in the cycle the sink stalls.
//! One beat per cycle while the sink is ready.

use super::{AxisIn, AxisOut};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct AxisSkidBuffer<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<D, K, U>,
    pub m_axis: AxisOut<D, K, U>,
    out_data: Reg<Bits<D>>,
    out_keep: Reg<Bits<K>>,
    out_last: Reg<Bit>,
    out_user: Reg<Bits<U>>,
    out_valid: Reg<Bit>,
    skid_data: Reg<Bits<D>>,
    skid_keep: Reg<Bits<K>>,
    skid_last: Reg<Bit>,
    skid_user: Reg<Bits<U>>,
    skid_valid: Reg<Bit>,
    in_fire: Signal<Local, Bit>,
    out_free: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const D: usize, const K: usize, const U: usize> Logic for AxisSkidBuffer<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, out_data, out_keep, out_last, out_user, out_valid, skid_data, skid_keep, skid_last, skid_user,
            skid_valid
        );
        self.s_axis.tready.next = !self.skid_valid.q.val();
        self.in_fire.next = self.s_axis.tvalid.val() & !self.skid_valid.q.val();
        // the output register can take a new beat this cycle
        self.out_free.next = !self.out_valid.q.val() | self.m_axis.tready.val();
        if self.out_free.val() {
            if self.skid_valid.q.val() {
                self.out_data.d.next = self.skid_data.q.val();
                self.out_keep.d.next = self.skid_keep.q.val();
                self.out_last.d.next = self.skid_last.q.val();
                self.out_user.d.next = self.skid_user.q.val();
                self.out_valid.d.next = true;
                self.skid_valid.d.next = false;
            } else if self.in_fire.val() {
                self.out_data.d.next = self.s_axis.tdata.val();
                self.out_keep.d.next = self.s_axis.tkeep.val();
                self.out_last.d.next = self.s_axis.tlast.val();
                self.out_user.d.next = self.s_axis.tuser.val();
                self.out_valid.d.next = true;
            } else {
                self.out_valid.d.next = false;
            }
        } else if self.in_fire.val() {
            self.skid_data.d.next = self.s_axis.tdata.val();
            self.skid_keep.d.next = self.s_axis.tkeep.val();
            self.skid_last.d.next = self.s_axis.tlast.val();
            self.skid_user.d.next = self.s_axis.tuser.val();
            self.skid_valid.d.next = true;
        }
        if self.reset.val() {
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
        self.m_axis.tdata.next = self.out_data.q.val();
        self.m_axis.tkeep.next = self.out_keep.q.val();
        self.m_axis.tlast.next = self.out_last.q.val();
        self.m_axis.tuser.next = self.out_user.q.val();
        self.m_axis.tvalid.next = self.out_valid.q.val();
    }
}
