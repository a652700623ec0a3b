//! `EventCross`: events counted in one clock (the MAC's), their total shown
//! as a 64-bit counter in another (the core's).
//!
//! The source side steps a small Gray-coded counter ([`EVENT_GRAY_BITS`]) at
//! each `event`; it crosses through [`GraySync`], and the destination side
//! adds the difference since its last sample to a [`Counter64`] (no long
//! carry chain). An event steps the source counter at most once per source
//! edge, and between two destination edges the source clock has at most two
//! (165/128 < 2), so the destination sees it move by at most
//! [`MAX_EVENT_STEP`] between two samples; a sample caught mid-step reads
//! the old value and the next one catches up, so no event is lost.
//!
//! Used by [`super::MacRxFifo`] for the frames it drops when full and the
//! frames its address filter refuses.

use super::counter64::{Counter64, COUNTER_STEP_BITS};
use crate::prim::{GraySync, Reg, GRAY_SYNC_MAX_BITS};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Bits of the Gray-coded counter that crosses; its difference is taken
/// modulo 2^EVENT_GRAY_BITS.
pub const EVENT_GRAY_BITS: usize = 4;
/// The most the source counter moves between two destination edges.
pub const MAX_EVENT_STEP: u64 = super::CORE_PERIOD_UNITS.div_ceil(super::MAC_PERIOD_UNITS) + 1;
const _: () = assert!(MAX_EVENT_STEP < 1 << EVENT_GRAY_BITS && EVENT_GRAY_BITS == COUNTER_STEP_BITS);
const _: () = assert!(EVENT_GRAY_BITS <= GRAY_SYNC_MAX_BITS);

#[derive(LogicBlock, Default)]
pub struct EventCross {
    pub src_clock: Signal<In, Clock>,
    /// Synchronous to `src_clock`: clears the source counter.
    pub src_reset: Signal<In, Bit>,
    /// One event per `src_clock` edge at which it is 1.
    pub event: Signal<In, Bit>,
    pub dst_clock: Signal<In, Clock>,
    /// Synchronous to `dst_clock`: clears the total.
    pub dst_reset: Signal<In, Bit>,
    /// Events counted (64-bit, `dst_clock`, a register).
    pub count: Signal<Out, Bits<64>>,
    // ---- src_clock
    bin: Reg<Bits<EVENT_GRAY_BITS>>,
    gray: Reg<Bits<EVENT_GRAY_BITS>>,
    bin_next: Signal<Local, Bits<EVENT_GRAY_BITS>>,
    // ---- dst_clock
    sync: GraySync<EVENT_GRAY_BITS>,
    seen: Reg<Bits<EVENT_GRAY_BITS>>,
    step: Reg<Bits<EVENT_GRAY_BITS>>,
    total: Counter64,
    kind: TypeTag<Self>,
}

impl Logic for EventCross {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, src_clock, bin, gray);
        self.bin_next.next = self.bin.q.val();
        if self.event.val() {
            self.bin_next.next = self.bin.q.val() + 1;
        }
        if self.src_reset.val() {
            self.bin_next.next = 0.into();
        }
        self.bin.d.next = self.bin_next.val();
        self.gray.d.next = self.bin_next.val() ^ (self.bin_next.val() >> 1);

        dff_setup!(self, dst_clock, seen, step);
        self.sync.clock.next = self.dst_clock.val();
        self.sync.reset.next = self.dst_reset.val();
        self.sync.gray.next = self.gray.q.val();
        self.step.d.next = self.sync.bin.val() - self.seen.q.val();
        self.seen.d.next = self.sync.bin.val();
        if self.dst_reset.val() {
            self.seen.d.next = 0.into();
            self.step.d.next = 0.into();
        }
        self.total.clock.next = self.dst_clock.val();
        self.total.reset.next = self.dst_reset.val();
        self.total.step.next = self.step.q.val();
        self.count.next = self.total.count.val();
    }
}
