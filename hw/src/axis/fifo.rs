//! Synchronous AXI-stream FIFO: 2^A beats in LUTRAM plus an output register
//! (capacity 2^A + 1). First word falls through after two cycles; one beat
//! per cycle in and out at the same time.

use super::{AxisIn, AxisOut};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct AxisFifo<const D: usize, const K: usize, const U: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<D, K, U>,
    pub m_axis: AxisOut<D, K, U>,
    /// Beats stored in the RAM (not counting the output register) is not
    /// exported: `full`/`empty` are what users need.
    pub full: Signal<Out, Bit>,
    mem_data: LutRam<Bits<D>, A>,
    mem_keep: LutRam<Bits<K>, A>,
    mem_last: LutRam<Bit, A>,
    mem_user: LutRam<Bits<U>, A>,
    // pointers carry a wrap bit each so full and empty differ
    wr_ptr: Reg<Bits<A>>,
    wr_wrap: Reg<Bit>,
    rd_ptr: Reg<Bits<A>>,
    rd_wrap: Reg<Bit>,
    out_data: Reg<Bits<D>>,
    out_keep: Reg<Bits<K>>,
    out_last: Reg<Bit>,
    out_user: Reg<Bits<U>>,
    out_valid: Reg<Bit>,
    same_ptr: Signal<Local, Bit>,
    mem_empty: Signal<Local, Bit>,
    mem_full: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const D: usize, const K: usize, const U: usize, const A: usize> Logic for AxisFifo<D, K, U, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, wr_wrap, rd_ptr, rd_wrap, out_data, out_keep, out_last, out_user, out_valid);
        clock!(self, clock, mem_data, mem_keep, mem_last, mem_user);
        self.same_ptr.next = self.wr_ptr.q.val() == self.rd_ptr.q.val();
        self.mem_empty.next = self.same_ptr.val() & (self.wr_wrap.q.val() == self.rd_wrap.q.val());
        self.mem_full.next = self.same_ptr.val() & (self.wr_wrap.q.val() != self.rd_wrap.q.val());
        self.s_axis.tready.next = !self.mem_full.val();
        self.full.next = self.mem_full.val();
        self.push.next = self.s_axis.tvalid.val() & !self.mem_full.val();
        self.load.next = !self.mem_empty.val() & (!self.out_valid.q.val() | self.m_axis.tready.val());

        self.mem_data.write_addr.next = self.wr_ptr.q.val();
        self.mem_keep.write_addr.next = self.wr_ptr.q.val();
        self.mem_last.write_addr.next = self.wr_ptr.q.val();
        self.mem_user.write_addr.next = self.wr_ptr.q.val();
        self.mem_data.write_data.next = self.s_axis.tdata.val();
        self.mem_keep.write_data.next = self.s_axis.tkeep.val();
        self.mem_last.write_data.next = self.s_axis.tlast.val();
        self.mem_user.write_data.next = self.s_axis.tuser.val();
        self.mem_data.write_enable.next = self.push.val();
        self.mem_keep.write_enable.next = self.push.val();
        self.mem_last.write_enable.next = self.push.val();
        self.mem_user.write_enable.next = self.push.val();
        self.mem_data.read_addr.next = self.rd_ptr.q.val();
        self.mem_keep.read_addr.next = self.rd_ptr.q.val();
        self.mem_last.read_addr.next = self.rd_ptr.q.val();
        self.mem_user.read_addr.next = self.rd_ptr.q.val();

        if self.push.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
            if self.wr_ptr.q.val().all() {
                self.wr_wrap.d.next = !self.wr_wrap.q.val();
            }
        }
        if self.load.val() {
            self.out_data.d.next = self.mem_data.read_data.val();
            self.out_keep.d.next = self.mem_keep.read_data.val();
            self.out_last.d.next = self.mem_last.read_data.val();
            self.out_user.d.next = self.mem_user.read_data.val();
            self.out_valid.d.next = true;
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
            if self.rd_ptr.q.val().all() {
                self.rd_wrap.d.next = !self.rd_wrap.q.val();
            }
        } else if self.m_axis.tready.val() {
            self.out_valid.d.next = false;
        }
        if self.reset.val() {
            self.wr_ptr.d.next = 0.into();
            self.wr_wrap.d.next = false;
            self.rd_ptr.d.next = 0.into();
            self.rd_wrap.d.next = false;
            self.out_valid.d.next = false;
        }
        self.m_axis.tdata.next = self.out_data.q.val();
        self.m_axis.tkeep.next = self.out_keep.q.val();
        self.m_axis.tlast.next = self.out_last.q.val();
        self.m_axis.tuser.next = self.out_user.q.val();
        self.m_axis.tvalid.next = self.out_valid.q.val();
    }
}
