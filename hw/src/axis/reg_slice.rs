//! Forward register slice: registers tdata/tkeep/tlast/tuser/tvalid, passes
//! tready through combinationally. One beat per cycle; breaks the forward
//! timing path only (use [`super::AxisSkidBuffer`] to break both).

use super::{AxisIn, AxisOut};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct AxisRegSlice<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<D, K, U>,
    pub m_axis: AxisOut<D, K, U>,
    data: Reg<Bits<D>>,
    keep: Reg<Bits<K>>,
    last: Reg<Bit>,
    user: Reg<Bits<U>>,
    valid: Reg<Bit>,
    kind: TypeTag<Self>,
}

impl<const D: usize, const K: usize, const U: usize> Logic for AxisRegSlice<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, data, keep, last, user, valid);
        // accept when the register is empty or is being emptied this cycle
        self.s_axis.tready.next = !self.valid.q.val() | self.m_axis.tready.val();
        if self.s_axis.tvalid.val() & (!self.valid.q.val() | self.m_axis.tready.val()) {
            self.data.d.next = self.s_axis.tdata.val();
            self.keep.d.next = self.s_axis.tkeep.val();
            self.last.d.next = self.s_axis.tlast.val();
            self.user.d.next = self.s_axis.tuser.val();
            self.valid.d.next = true;
        } else if self.m_axis.tready.val() {
            self.valid.d.next = false;
        }
        if self.reset.val() {
            self.valid.d.next = false;
        }
        self.m_axis.tdata.next = self.data.q.val();
        self.m_axis.tkeep.next = self.keep.q.val();
        self.m_axis.tlast.next = self.last.q.val();
        self.m_axis.tuser.next = self.user.q.val();
        self.m_axis.tvalid.next = self.valid.q.val();
    }
}
