//! `DmaFifo`: the DMA engine's output FIFO, 2^A words of W bits in one
//! LUTRAM plus an output register (capacity 2^A + 1), as
//! [`AxisFifo`](crate::axis::AxisFifo) but with the whole beat (data, keep,
//! last, user) packed into one word: a LUTRAM primitive (RAM32M16) holds 14
//! bits of width whatever the depth, so one packed memory needs fewer than
//! one per field (a 578-bit read beat: 42 instead of 44). `s_ready` comes
//! from flops; the first word falls through after two cycles; one word per
//! cycle in and out at the same time.

use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct DmaFifo<const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<W>>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, Bits<W>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    ram: LutRam<Bits<W>, A>,
    // pointers carry a wrap bit each so full and empty differ
    wr_ptr: Reg<Bits<A>>,
    wr_wrap: Reg<Bit>,
    rd_ptr: Reg<Bits<A>>,
    rd_wrap: Reg<Bit>,
    out_data: Reg<Bits<W>>,
    out_valid: Reg<Bit>,
    same_ptr: Signal<Local, Bit>,
    mem_empty: Signal<Local, Bit>,
    mem_full: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const W: usize, const A: usize> Logic for DmaFifo<W, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, wr_wrap, rd_ptr, rd_wrap, out_data, out_valid);
        clock!(self, clock, ram);
        self.same_ptr.next = self.wr_ptr.q.val() == self.rd_ptr.q.val();
        self.mem_empty.next = self.same_ptr.val() & (self.wr_wrap.q.val() == self.rd_wrap.q.val());
        self.mem_full.next = self.same_ptr.val() & (self.wr_wrap.q.val() != self.rd_wrap.q.val());
        self.s_ready.next = !self.mem_full.val();
        self.push.next = self.s_valid.val() & !self.mem_full.val();
        self.load.next = !self.mem_empty.val() & (!self.out_valid.q.val() | self.m_ready.val());
        self.ram.write_addr.next = self.wr_ptr.q.val();
        self.ram.write_data.next = self.s_data.val();
        self.ram.write_enable.next = self.push.val();
        self.ram.read_addr.next = self.rd_ptr.q.val();
        if self.push.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
            if self.wr_ptr.q.val().all() {
                self.wr_wrap.d.next = !self.wr_wrap.q.val();
            }
        }
        if self.load.val() {
            self.out_data.d.next = self.ram.read_data.val();
            self.out_valid.d.next = true;
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
            if self.rd_ptr.q.val().all() {
                self.rd_wrap.d.next = !self.rd_wrap.q.val();
            }
        } else if self.m_ready.val() {
            self.out_valid.d.next = false;
        }
        if self.reset.val() {
            self.wr_ptr.d.next = 0.into();
            self.wr_wrap.d.next = false;
            self.rd_ptr.d.next = 0.into();
            self.rd_wrap.d.next = false;
            self.out_valid.d.next = false;
        }
        self.m_data.next = self.out_data.q.val();
        self.m_valid.next = self.out_valid.q.val();
    }
}
