//! The read side both MAC FIFOs share, in the reading clock: it takes beats
//! from the RAM only while the frame at the head is committed, and presents
//! them as an AXI stream with registered outputs and backpressure.
//!
//! The writer counts committed frames in a Gray-coded register
//! (`frames_gray`, one step per committed frame); this side counts the
//! frames it has taken whole (`frames_done`). The head beat belongs to
//! frame number `frames_done`, which is committed, with every one of its
//! beats in the RAM, exactly when the synchronized count differs from
//! `frames_done`. So the reader never sees a beat of a frame that is still
//! being written (receive: a frame that may yet be dropped; transmit: a
//! frame whose end is not there yet), and needs no write pointer.
//!
//! The RAM's read address is the read pointer's next value, so `ram_*`
//! always hold the word at the head (`rd_ptr`), read at the last edge: a
//! beat can move to the output register every cycle. The counter compare is
//! modulo 2^P with P = A + 1 bits: the RAM never holds more than 2^A frames.
//!
//! Latency: a frame committed by the writer is at the head after the third
//! edge of this clock (the [`GraySync`]), and on `m_axis` one edge later.

use crate::axis::{AxisOut, DATA_BITS, KEEP_BITS};
use crate::prim::{GraySync, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FrameReader<const A: usize, const P: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The writer's committed-frame counter (Gray code, its register).
    pub frames_gray: Signal<In, Bits<P>>,
    /// The RAM's read port: the word at the head.
    pub ram_data: Signal<In, Bits<DATA_BITS>>,
    pub ram_keep: Signal<In, Bits<KEEP_BITS>>,
    /// Bit 0 `tlast`, bit 1 `tuser`.
    pub ram_flags: Signal<In, Bits<2>>,
    pub read_addr: Signal<Out, Bits<A>>,
    /// The read pointer (Gray code, a register) for the writer's room check.
    pub rd_gray: Signal<Out, Bits<P>>,
    pub m_axis: AxisOut<DATA_BITS, KEEP_BITS, 1>,
    frames_sync: GraySync<P>,
    rd_ptr: Reg<Bits<P>>,
    /// `rd_ptr + 1`, kept beside it so no adder sits behind `load`.
    rd_plus1: Reg<Bits<P>>,
    rd_gray_r: Reg<Bits<P>>,
    frames_done: Reg<Bits<P>>,
    out_data: Reg<Bits<DATA_BITS>>,
    out_keep: Reg<Bits<KEEP_BITS>>,
    out_last: Reg<Bit>,
    out_user: Reg<Bits<1>>,
    out_valid: Reg<Bit>,
    can_load: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    rd_next: Signal<Local, Bits<P>>,
    kind: TypeTag<Self>,
}

impl<const A: usize, const P: usize> Logic for FrameReader<A, P> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rd_ptr,
            rd_plus1,
            rd_gray_r,
            frames_done,
            out_data,
            out_keep,
            out_last,
            out_user,
            out_valid
        );
        self.frames_sync.clock.next = self.clock.val();
        self.frames_sync.reset.next = self.reset.val();
        self.frames_sync.gray.next = self.frames_gray.val();
        self.can_load.next = self.frames_sync.bin.val() != self.frames_done.q.val();
        // The 578 output flip-flops take the RAM's word whenever the output
        // register is free or being taken (`take`, one LUT from a register
        // and `tready`), whether or not the word is a beat to send; only
        // `load` (a beat is sent) moves the pointers and sets `tvalid`. So the
        // net with the large fan-out is a shallow one.
        self.take.next = !self.out_valid.q.val() | self.m_axis.tready.val();
        self.load.next = self.can_load.val() & self.take.val();
        if self.take.val() {
            self.out_data.d.next = self.ram_data.val();
            self.out_keep.d.next = self.ram_keep.val();
            self.out_last.d.next = self.ram_flags.val().get_bit(0);
            self.out_user.d.next = self.ram_flags.val().get_bits::<1>(1);
        }
        self.rd_next.next = self.rd_ptr.q.val();
        if self.load.val() {
            self.rd_next.next = self.rd_plus1.q.val();
            self.rd_plus1.d.next = self.rd_plus1.q.val() + 1;
            self.out_valid.d.next = true;
            if self.ram_flags.val().get_bit(0) {
                self.frames_done.d.next = self.frames_done.q.val() + 1;
            }
        } else if self.m_axis.tready.val() {
            self.out_valid.d.next = false;
        }
        if self.reset.val() {
            // the RAM reads address 0 too, so the head is right after reset
            self.rd_next.next = 0.into();
        }
        self.rd_ptr.d.next = self.rd_next.val();
        self.rd_gray_r.d.next = self.rd_next.val() ^ (self.rd_next.val() >> 1);
        if self.reset.val() {
            self.rd_plus1.d.next = 1.into();
            self.frames_done.d.next = 0.into();
            self.out_valid.d.next = false;
        }
        self.read_addr.next = bit_cast::<A, P>(self.rd_next.val());
        self.rd_gray.next = self.rd_gray_r.q.val();
        self.m_axis.tdata.next = self.out_data.q.val();
        self.m_axis.tkeep.next = self.out_keep.q.val();
        self.m_axis.tlast.next = self.out_last.q.val();
        self.m_axis.tuser.next = self.out_user.q.val();
        self.m_axis.tvalid.next = self.out_valid.q.val();
    }
}
