//! `RxInflight`: one receive path's packets between their context read and
//! their state write, for [`RxLookup`](super::RxLookup)'s hazard check.
//!
//! A packet's `qps` state is read when its lookup is issued and written
//! back by the stage that executes it, many cycles later. A later packet of
//! the same QP on the same path must not read the entry before that write,
//! so its lookup waits while the QP has a packet here (a full compare over
//! at most [`RX_INFLIGHT_SLOTS`] entries: the packets in flight, not the
//! QPs; no per-QP table).
//!
//! `ReplayTable` keeps one too, for its puts written and not complete: a
//! duplicate's find waits only for its own QP's.
//!
//! Entries are kept in issue order (a ring). `push` adds the issued packet's
//! QPN at `w_idx`; `drop` marks entry `drop_idx` dropped (the packet was
//! refused after its lookup, it will not write); `retire` says the oldest
//! packet that was not dropped has written (the path retires in order).
//! The head leaves when it is dropped, or when a retire is pending
//! (`pend`, so a retire that comes while dropped entries are ahead of its
//! packet waits for them to leave). `live` (in flight, not dropped) is what
//! the check compares with.
//!
//! The check: `probe` loads the match vector against `probe_qpn` (the
//! entries as they are in that cycle; the caller probes when no push can
//! happen before its check); `hazard` is then any matching entry still
//! live, from registers (two levels). Entries that leave only clear matches,
//! so the answer is never too permissive.

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the entries per path.
pub const RX_INFLIGHT_LOG: usize = 4;
/// Entries per path: the packets of a path between lookup and write-back.
pub const RX_INFLIGHT_SLOTS: usize = 1 << RX_INFLIGHT_LOG;
const N: usize = RX_INFLIGHT_SLOTS;
const _: () = assert!(N == 16);

#[derive(LogicBlock, Default)]
pub struct RxInflight {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_qpn: Signal<In, Bits<24>>,
    /// The entry the next push fills.
    pub w_idx: Signal<Out, Bits<RX_INFLIGHT_LOG>>,
    /// Room for a push (a register).
    pub room: Signal<Out, Bit>,
    pub drop: Signal<In, Bit>,
    pub drop_idx: Signal<In, Bits<RX_INFLIGHT_LOG>>,
    pub retire: Signal<In, Bit>,
    pub probe: Signal<In, Bit>,
    pub probe_qpn: Signal<In, Bits<24>>,
    pub hazard: Signal<Out, Bit>,
    qpn: [Reg<Bits<24>>; N],
    live: Reg<Bits<N>>,
    dropped: Reg<Bits<N>>,
    hit: Reg<Bits<N>>,
    w: Reg<Bits<RX_INFLIGHT_LOG>>,
    h: Reg<Bits<RX_INFLIGHT_LOG>>,
    cnt: Reg<Bits<5>>,
    pend: Reg<Bits<5>>,
    room_r: Reg<Bit>,
    head_dropped: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    pop_retires: Signal<Local, Bit>,
    live_n: Signal<Local, Bits<N>>,
    dropped_n: Signal<Local, Bits<N>>,
    cnt_n: Signal<Local, Bits<5>>,
    hit_n: Signal<Local, Bits<N>>,
    kind: TypeTag<Self>,
}

impl Logic for RxInflight {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live, dropped, hit, w, h, cnt, pend, room_r);
        for j in 0..N {
            self.qpn[j].clock.next = self.clock.val();
            self.qpn[j].d.next = self.qpn[j].q.val();
        }
        self.w_idx.next = self.w.q.val();
        self.room.next = self.room_r.q.val();

        // ---- the check
        self.hit_n.next = self.hit.q.val();
        if self.probe.val() {
            for j in 0..N {
                self.hit_n.next = self.hit_n.val().replace_bit(j, self.qpn[j].q.val() == self.probe_qpn.val());
            }
        }
        self.hit.d.next = self.hit_n.val();
        self.hazard.next = (self.hit.q.val() & self.live.q.val()).any();

        // ---- the head leaves: dropped, or its packet's retire is pending
        self.head_dropped.next = self.dropped.q.val().get_bit(self.h.q.val().index());
        self.pop_retires.next = !self.head_dropped.val() & self.pend.q.val().any();
        self.pop.next = self.cnt.q.val().any() & (self.head_dropped.val() | self.pop_retires.val());
        self.live_n.next = self.live.q.val();
        self.dropped_n.next = self.dropped.q.val();
        self.cnt_n.next = self.cnt.q.val();
        if self.pop.val() {
            self.live_n.next = self.live_n.val() & !bits::<16>(1 << self.h.q.val().index());
            self.dropped_n.next = self.dropped_n.val() & !bits::<16>(1 << self.h.q.val().index());
            self.h.d.next = self.h.q.val() + 1;
            self.cnt_n.next = self.cnt.q.val() - 1;
        }
        self.pend.d.next = self.pend.q.val();
        if self.retire.val() & !(self.pop.val() & self.pop_retires.val()) {
            self.pend.d.next = self.pend.q.val() + 1;
        }
        if !self.retire.val() & self.pop.val() & self.pop_retires.val() {
            self.pend.d.next = self.pend.q.val() - 1;
        }
        // a dropped packet will not write: it stops blocking at once
        if self.drop.val() {
            self.live_n.next = self.live_n.val() & !bits::<16>(1 << self.drop_idx.val().index());
            self.dropped_n.next = self.dropped_n.val() | bits::<16>(1 << self.drop_idx.val().index());
        }
        if self.push.val() {
            for j in 0..N {
                if self.w.q.val().index() == j {
                    self.qpn[j].d.next = self.push_qpn.val();
                }
            }
            self.live_n.next = self.live_n.val() | bits::<16>(1 << self.w.q.val().index());
            self.w.d.next = self.w.q.val() + 1;
            self.cnt_n.next = self.cnt_n.val() + 1;
        }
        self.live.d.next = self.live_n.val();
        self.dropped.d.next = self.dropped_n.val();
        self.cnt.d.next = self.cnt_n.val();
        // room for next cycle's push: fewer than 16 entries (bit 4 of the count)
        self.room_r.d.next = !self.cnt_n.val().get_bit(4);
        if self.reset.val() {
            self.live.d.next = 0.into();
            self.hit.d.next = 0.into();
            self.dropped.d.next = 0.into();
            self.w.d.next = 0.into();
            self.h.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.pend.d.next = 0.into();
            self.room_r.d.next = false;
        }
    }
}
