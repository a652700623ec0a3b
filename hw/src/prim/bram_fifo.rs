//! `BramFifo<W, A, C>`: a FIFO of 2^A words of `W` bits in block RAM, with
//! a first-word-fall-through head in registers and one word per cycle in
//! and out at the same time (`C` = A + 1, the width of `count`).
//!
//! The RAM's synchronous read lands in a queue of three registers (`head`
//! and two behind it); a read is issued only when those three can take
//! every word already on its way, from registered state alone, so `m_*`
//! comes from flip-flops and nothing runs from `m_ready` to the RAM's read
//! address. A word pushed into an empty FIFO appears at the head
//! [`BRAM_FIFO_LATENCY`] cycles later.
//!
//! `push` has no ready: the producer keeps `count` (every word in the FIFO,
//! the RAM and the head registers) at most 2^A, as its owner's `const`
//! assertion shows. `count` counts a push at the edge that takes it.

use super::{BlockRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Cycles from a push into an empty FIFO to its word at the head
/// (`m_valid`): the write, the read, the landing in the head register.
pub const BRAM_FIFO_LATENCY: u64 = 3;

#[derive(LogicBlock, Default)]
pub struct BramFifo<const W: usize, const A: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_data: Signal<In, Bits<W>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_data: Signal<Out, Bits<W>>,
    pub m_ready: Signal<In, Bit>,
    /// Words held (RAM, reads on their way, head registers).
    pub count: Signal<Out, Bits<C>>,
    ram: BlockRam<Bits<W>, A>,
    wp: Reg<Bits<A>>,
    rp: Reg<Bits<A>>,
    in_mem: Reg<Bits<C>>,
    total: Reg<Bits<C>>,
    pend: Reg<Bit>,
    v0: Reg<Bit>,
    v1: Reg<Bit>,
    v2: Reg<Bit>,
    d0: Reg<Bits<W>>,
    d1: Reg<Bits<W>>,
    d2: Reg<Bits<W>>,
    pop: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const W: usize, const A: usize, const C: usize> Logic for BramFifo<W, A, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, in_mem, total, pend, v0, v1, v2, d0, d1, d2);
        clock!(self, clock, ram);
        self.pop.next = self.m_ready.val() & self.v0.q.val();
        // a read lands next cycle: issue it only if the three registers can
        // take it and the one already on its way without any pop
        self.issue.next = self.in_mem.q.val().any() & !self.v2.q.val() & !(self.v1.q.val() & self.pend.q.val());

        self.ram.write_addr.next = self.wp.q.val();
        self.ram.write_data.next = self.push_data.val();
        self.ram.write_enable.next = self.push.val();
        self.ram.read_addr.next = self.rp.q.val();
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }
        if self.issue.val() {
            self.rp.d.next = self.rp.q.val() + 1;
        }
        self.pend.d.next = self.issue.val();
        self.in_mem.d.next = self.in_mem.q.val();
        if self.push.val() & !self.issue.val() {
            self.in_mem.d.next = self.in_mem.q.val() + 1;
        }
        if !self.push.val() & self.issue.val() {
            self.in_mem.d.next = self.in_mem.q.val() - 1;
        }
        self.total.d.next = self.total.q.val();
        if self.push.val() & !self.pop.val() {
            self.total.d.next = self.total.q.val() + 1;
        }
        if !self.push.val() & self.pop.val() {
            self.total.d.next = self.total.q.val() - 1;
        }

        // the head queue: shift on a pop, append the word that lands
        if self.pop.val() {
            self.d0.d.next = self.d1.q.val();
            self.d1.d.next = self.d2.q.val();
            self.v0.d.next = self.v1.q.val();
            self.v1.d.next = self.v2.q.val();
            self.v2.d.next = false;
        }
        if self.pend.q.val() {
            if self.pop.val() {
                if self.v1.q.val() {
                    self.d1.d.next = self.ram.read_data.val();
                    self.v1.d.next = true;
                } else {
                    self.d0.d.next = self.ram.read_data.val();
                    self.v0.d.next = true;
                }
            } else if !self.v0.q.val() {
                self.d0.d.next = self.ram.read_data.val();
                self.v0.d.next = true;
            } else if !self.v1.q.val() {
                self.d1.d.next = self.ram.read_data.val();
                self.v1.d.next = true;
            } else {
                self.d2.d.next = self.ram.read_data.val();
                self.v2.d.next = true;
            }
        }
        self.m_valid.next = self.v0.q.val();
        self.m_data.next = self.d0.q.val();
        self.count.next = self.total.q.val();
        if self.reset.val() {
            self.wp.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.in_mem.d.next = 0.into();
            self.total.d.next = 0.into();
            self.pend.d.next = false;
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
        }
    }
}
