//! `SqWindow`: one QP's window of send WQEs read ahead, a child of
//! [`SqAhead`](super::SqAhead) ([`SQ_AHEAD_WINDOWS`] of them). The parent
//! holds the request register, the DMA command register, the beat memory
//! and the hand-out order; a window holds its QP, ring and cursors, compares
//! a read against them, and says when and where it wants to read next.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `q_*` | in | the read offered (`s_at`): compared with the window (`m_qp`, `m_head`, `m_prev`, combinational) |
//! | `r_*` | in | the read in the parent's request register: the window's new QP and ring at `flush`, its `SQ_PROD` at a hit |
//! | `hit`, `head_hit`, `flush` | in | the decision on the read: a hit (on `head`: `pidx` and `head` advance), or a new window at the read's WQE (its own read in the command register already) |
//! | `issue` | in | the window's next read goes into the command register |
//! | `cmd_go`, `beat`, `beat_last`, `beat_err` | in | a command of the window taken by the DMA engine; a beat of the window's (the second of a WQE: `beat_last`; `tuser[0]`: `beat_err`) |
//! | `give_last` | in | the window's entry (at `pidx`) handed out |
//! | `inval` | in | forget the window (as `SqAhead::inval`) |
//! | `on`, `hp`, `want`, `addr`, `fill`, `junk_any`, `arr` | out | state for the parent: on; an entry to hand out; a read wanted (at `addr`, a register: a window reads at most every other cycle); the place the next kept beat goes to; the next beat is dropped; the places whose beats are in |
//!
//! The cursors, as in the single window this block replaces: `pidx` (the
//! last WQE handed out, its place kept for a re-read), `head` = `pidx` + 1,
//! `next` (the next to read); at most `depth` WQEs from `pidx` on are read
//! or in flight, and only posted ones (`next` != `SQ_PROD` as last seen).
//! `depth` starts at [`SQ_AHEAD_START`] and grows by one per `head` hit up
//! to [`SQ_AHEAD_PLACES`]. Beats of reads in flight when the window is
//! taken for another WQE (`flush`) are dropped (`junk`, counted from the
//! beats in flight, `fly`).

use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

use super::{REQ_QPN_BITS, SQ_AHEAD_LOG};

#[derive(LogicBlock, Default)]
pub struct SqWindow {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub inval: Signal<In, Bit>,
    // ---- the read offered, compared
    pub q_qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    pub q_base: Signal<In, Bits<64>>,
    pub q_log: Signal<In, Bits<4>>,
    pub q_index: Signal<In, Bits<16>>,
    pub m_qp: Signal<Out, Bit>,
    pub m_head: Signal<Out, Bit>,
    pub m_prev: Signal<Out, Bit>,
    // ---- the read decided
    pub r_qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    pub r_base: Signal<In, Bits<64>>,
    pub r_log: Signal<In, Bits<4>>,
    pub r_index: Signal<In, Bits<16>>,
    pub r_prod: Signal<In, Bits<16>>,
    pub hit: Signal<In, Bit>,
    pub head_hit: Signal<In, Bit>,
    pub flush: Signal<In, Bit>,
    // ---- reads and beats
    pub issue: Signal<In, Bit>,
    pub cmd_go: Signal<In, Bit>,
    pub beat: Signal<In, Bit>,
    pub beat_last: Signal<In, Bit>,
    pub beat_err: Signal<In, Bit>,
    pub give_last: Signal<In, Bit>,
    // ---- state for the parent
    pub on: Signal<Out, Bit>,
    pub hp: Signal<Out, Bit>,
    pub want: Signal<Out, Bit>,
    pub addr: Signal<Out, Bits<64>>,
    pub fill: Signal<Out, Bits<SQ_AHEAD_LOG>>,
    pub junk_any: Signal<Out, Bit>,
    pub arr: Signal<Out, Bits<8>>,

    w_on: Reg<Bit>,
    w_qpn: Reg<Bits<REQ_QPN_BITS>>,
    w_base: Reg<Bits<64>>,
    w_log: Reg<Bits<4>>,
    w_prod: Reg<Bits<16>>,
    w_pidx: Reg<Bits<16>>,
    w_head: Reg<Bits<16>>,
    w_next: Reg<Bits<16>>,
    w_cnt: Reg<Bits<4>>,
    w_arr: Reg<Bits<SQ_AHEAD_LOG>>,
    arr_r: Reg<Bits<8>>,
    /// A DMA error on a place's beats (the entry is not kept for a re-read).
    err_r: Reg<Bits<8>>,
    depth: Reg<Bits<4>>,
    hp_r: Reg<Bit>,
    /// An `inval` came while `hp`: the window goes off once its entry is handed out.
    kill: Reg<Bit>,
    fly: Reg<Bits<7>>,
    junk: Reg<Bits<7>>,
    /// The address of `next`, a cycle behind it (`fresh` when it caught up).
    a_r: Reg<Bits<64>>,
    fresh: Reg<Bit>,
    same: Signal<Local, Bit>,
    keep: Signal<Local, Bit>,
    arr_n: Signal<Local, Bits<8>>,
    err_n: Signal<Local, Bits<8>>,
    fly_after: Signal<Local, Bits<7>>,
    idx: Signal<Local, Bits<16>>,
    kind: TypeTag<Self>,
}

impl Logic for SqWindow {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, w_on, w_qpn, w_base, w_log, w_prod, w_pidx, w_head, w_next, w_cnt, w_arr, arr_r, err_r, depth,
            hp_r, kill, fly, junk, a_r, fresh
        );
        // ---- the compares (the parent registers them with the read)
        self.m_qp.next = self.w_on.q.val() & (self.q_qpn.val() == self.w_qpn.q.val());
        self.same.next =
            self.m_qp.val() & (self.q_base.val() == self.w_base.q.val()) & (self.q_log.val() == self.w_log.q.val());
        self.m_head.next = self.same.val() & (self.q_index.val() == self.w_head.q.val());
        self.m_prev.next = self.same.val() & (self.q_index.val() == self.w_pidx.q.val());
        self.on.next = self.w_on.q.val();
        self.hp.next = self.hp_r.q.val();
        self.fill.next = self.w_arr.q.val();
        self.junk_any.next = self.junk.q.val().any();
        self.arr.next = self.arr_r.q.val();

        // ---- beats: the first `junk` dropped, the rest into place `w_arr`
        self.keep.next = self.beat.val() & !self.junk.q.val().any();
        if self.beat.val() & self.junk.q.val().any() {
            self.junk.d.next = self.junk.q.val() - 1;
        }
        self.arr_n.next = self.arr_r.q.val();
        self.err_n.next = self.err_r.q.val();
        if self.head_hit.val() {
            self.arr_n.next =
                self.arr_n.val().replace_bit(self.w_pidx.q.val().get_bits::<SQ_AHEAD_LOG>(0).index(), false);
        }
        if self.keep.val() {
            // (the first beat sets the place's error flag, the second adds to it)
            self.err_n.next = self.err_n.val().replace_bit(
                self.w_arr.q.val().index(),
                self.beat_err.val() | (self.beat_last.val() & self.err_r.q.val().get_bit(self.w_arr.q.val().index())),
            );
        }
        if self.keep.val() & self.beat_last.val() {
            self.w_arr.d.next = self.w_arr.q.val() + 1;
            self.arr_n.next = self.arr_n.val().replace_bit(self.w_arr.q.val().index(), true);
        }
        self.fly_after.next = self.fly.q.val() + (bit_cast::<7, 1>(self.cmd_go.val().into()) << 1)
            - bit_cast::<7, 1>(self.beat.val().into());
        self.fly.d.next = self.fly_after.val();
        self.arr_r.d.next = self.arr_n.val();
        self.err_r.d.next = self.err_n.val();

        // ---- reads ahead: while short of `depth` and the WQE posted
        // (after an `inval`, only the entry still to be handed out, if a head hit
        // came before its read: `kill` with no read from `pidx` on)
        self.want.next = self.w_on.q.val()
            & !self.inval.val()
            & (!self.kill.q.val() | !self.w_cnt.q.val().any())
            & (self.w_cnt.q.val() < self.depth.q.val())
            & (self.w_next.q.val() != self.w_prod.q.val())
            & self.fresh.q.val();
        self.idx.next = 0.into();
        for k in 0..16 {
            if self.w_log.q.val().index() > k {
                self.idx.next = self.idx.val().replace_bit(k, self.w_next.q.val().get_bit(k));
            }
        }
        // (registered: the parent's address multiplexer follows it)
        self.a_r.d.next = self.w_base.q.val() + (bit_cast::<64, 16>(self.idx.val()) << 7);
        self.addr.next = self.a_r.q.val();
        self.fresh.d.next = !(self.issue.val() | self.flush.val());
        if self.issue.val() {
            self.w_next.d.next = self.w_next.q.val() + 1;
        }

        // ---- `pidx` advances on a head hit (its old place freed)
        self.w_cnt.d.next = self.w_cnt.q.val() + bit_cast::<4, 1>(self.issue.val().into())
            - bit_cast::<4, 1>(self.head_hit.val().into());
        if self.head_hit.val() {
            self.w_pidx.d.next = self.w_head.q.val();
            self.w_head.d.next = self.w_head.q.val() + 1;
            if self.depth.q.val() != SQ_AHEAD_PLACES {
                self.depth.d.next = self.depth.q.val() + 1;
            }
        }
        if self.hit.val() {
            self.w_prod.d.next = self.r_prod.val();
        }
        if self.hit.val() | self.flush.val() {
            self.hp_r.d.next = true;
        }
        if self.give_last.val() {
            self.hp_r.d.next = false;
            self.kill.d.next = false;
            // (an entry with a DMA error is not kept for a re-read)
            if self.err_r.q.val().get_bit(self.w_pidx.q.val().get_bits::<SQ_AHEAD_LOG>(0).index()) | self.kill.q.val() {
                self.w_on.d.next = false;
            }
        }

        // ---- a new window at the WQE asked for, whose read the parent issued with the decision
        if self.flush.val() {
            self.w_on.d.next = true;
            self.w_qpn.d.next = self.r_qpn.val();
            self.w_base.d.next = self.r_base.val();
            self.w_log.d.next = self.r_log.val();
            self.w_prod.d.next = self.r_prod.val();
            self.w_pidx.d.next = self.r_index.val();
            self.w_head.d.next = self.r_index.val() + 1;
            self.w_next.d.next = self.r_index.val() + 1;
            self.w_cnt.d.next = 1.into();
            self.w_arr.d.next = self.r_index.val().get_bits::<SQ_AHEAD_LOG>(0);
            self.arr_r.d.next = 0.into();
            self.depth.d.next = SQ_AHEAD_START.into();
            self.junk.d.next = self.fly_after.val();
            self.fly.d.next = self.fly_after.val();
        }
        // a context loaded or dropped: the window goes off, but an entry
        // still to be handed out (`hp`) is handed out first
        if self.inval.val() {
            if self.hp_r.q.val() & !self.give_last.val() {
                self.kill.d.next = true;
            } else {
                self.w_on.d.next = false;
            }
        }

        if self.reset.val() {
            self.w_on.d.next = false;
            self.w_cnt.d.next = 0.into();
            self.arr_r.d.next = 0.into();
            self.err_r.d.next = 0.into();
            self.hp_r.d.next = false;
            self.kill.d.next = false;
            self.fly.d.next = 0.into();
            self.junk.d.next = 0.into();
            self.fresh.d.next = false;
        }
    }
}
