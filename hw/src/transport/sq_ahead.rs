//! `SqAhead`: the send WQEs `ReqFetch` reads, read ahead (child of
//! `ReqTx`, between `ReqFetch::m_rd`/`s_rd` and DMA read client 0). A QP
//! with work is granted once at a time, and each grant read its WQE by DMA:
//! a PCIe round trip (~230 cycles) per WQE, so one QP sent one message per
//! ~285 cycles whatever its size (28 Gb/s at 4 KiB). This block keeps a
//! window of one QP's posted WQEs, read before they are asked for, and
//! always takes the engine's data (every command in flight has its place),
//! so `ReqFetch`'s stalls never hold the other users of client 0.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_rd` + `s_at` | in | `ReqFetch`'s WQE read (`addr`, `len` = 128) and beside it (qualified by `s_rd.valid`) the WQE's QP, index, ring (`base`, `log`) and the QP's `SQ_PROD` at the decision; `ready` a register. At most [`SQ_AHEAD_OUTSTANDING`] reads outstanding, at most one per QP (`ReqFetch`'s slots). |
//! | `m_wqe` | out | the WQE's two beats per read, in read order (`tuser[0]`: DMA error, `tlast` on the second); registers |
//! | `m_rd` / `s_rd_data` | out / in | DMA read client: 128-byte commands; `s_rd_data.tready` constant 1 |
//! | `inval` | in | a pulse: forget the window (a QP's context was loaded or invalidated: its rings may start again at index 0) |
//!
//! **The window**: a QP, its ring, `pidx` (the last WQE handed out), `head`
//! (= `pidx` + 1, the next), `next` (the next to read) and
//! [`SQ_AHEAD_PLACES`] places of two beats in LUTRAM (WQE `i` at place `i`
//! mod 8; `pidx` keeps its place, so at most 8 WQEs from `pidx` on are read
//! or in flight). A read for `head` of the window's QP and ring is a hit
//! (`pidx` and `head` advance); a read for `pidx` is a hit too (a long
//! message's next job re-reads its WQE). Either is handed out once its beats
//! arrived (`arr`, a bit per place, set at the second beat, cleared when the
//! place is freed). Any other read starts a new window at the WQE asked for
//! (its read is the window's first), unless the window's entry is still to
//! be handed out (`hp`): then it is read for itself into one of 8 miss
//! places. Reads go on while fewer than `depth` WQEs from `pidx` are read
//! or in flight and `next` is posted (`next` != the newest `SQ_PROD` seen):
//! a WQE is read only after its post, so it stays valid until it completes,
//! and it completes only after it was sent, which it is only through here.
//!
//! **Depth** starts at [`SQ_AHEAD_START`] (the WQE and one more) and grows by
//! one per `head` hit up to 8: a QP that sends one message reads one WQE in
//! vain, a stream reads far enough ahead to hide the round trip.
//!
//! **A new window** does not wait for the old one's reads: the engine
//! answers in command order (a 1-bit queue per command says whose beats
//! are next: the window's or a miss place's), and the first `junk` window
//! beats (those in flight at the switch) are dropped. A handed-out entry
//! with a DMA error switches the window off (the next read is a fresh one).
//! `inval` switches it off too, but an entry still to be handed out is read
//! (if it was not) and handed out first (`kill`); no read goes ahead meanwhile.
//!
//! Latency: a hit whose beats are there offers its first beat 3 cycles after
//! its read is taken ([`SQ_AHEAD_HIT_LATENCY`]); a miss offers its command
//! 3 cycles after the read is taken and its first beat 2 cycles after the
//! engine's second ([`SQ_AHEAD_MISS_EXTRA`] = 6 in all beside the engine's
//! latency).

use crate::axis::{AxisIn, AxisOut};
use crate::consts::*;
use crate::host::{RdCmdIn, RdCmdOut};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

use super::{SlotQueue, REQ_FETCH_SLOTS, REQ_FETCH_WQE_BYTES, REQ_QPN_BITS};

/// log2 of the window's places (WQEs held from `pidx` on).
pub const SQ_AHEAD_LOG: usize = 3;
/// Reads outstanding at most (`ReqFetch`'s slots): the miss places and the
/// order queue are this deep.
pub const SQ_AHEAD_OUTSTANDING: usize = REQ_FETCH_SLOTS;
/// Cycles from a read taken to its first beat offered, for a hit whose
/// beats are there: the request register, the order queue, the output
/// register.
pub const SQ_AHEAD_HIT_LATENCY: u64 = 3;
/// Cycles a miss adds beside the engine's latency (read taken to first beat
/// offered): the request register (1), the new window (1), the command
/// register (1), both beats in (2: the entry is handed out whole), the
/// output register (1).
pub const SQ_AHEAD_MISS_EXTRA: u64 = 6;
/// log2 of the commands the per-command queue holds (32); window reads stop
/// at `SQ_AHEAD_WIN_CMDS` queued, so a miss always finds room.
const SQ_AHEAD_CMD_LOG: usize = 5;
const _: () =
    assert!(SQ_AHEAD_OUTSTANDING == 8 && SQ_AHEAD_PLACES == 8 && SW_BYTES == 128 && REQ_FETCH_WQE_BYTES == SW_BYTES);
// (a window read is issued below `SQ_AHEAD_WIN_CMDS` queued, so the window
// has at most that many + 2 in the queue and the register; misses at most 8)
const _: () = assert!(SQ_AHEAD_WIN_CMDS + 2 + SQ_AHEAD_OUTSTANDING as u64 <= 1 << SQ_AHEAD_CMD_LOG);
const _: () = assert!(SQ_AHEAD_START >= 1 && SQ_AHEAD_START <= SQ_AHEAD_PLACES);

/// Beside a WQE read (qualified by its `valid`): which WQE it is.
#[derive(LogicInterface, Default)]
#[join = "WqeAtIn"]
pub struct WqeAtOut {
    pub qpn: Signal<Out, Bits<REQ_QPN_BITS>>,
    pub index: Signal<Out, Bits<16>>,
    pub prod: Signal<Out, Bits<16>>,
    pub base: Signal<Out, Bits<64>>,
    pub log: Signal<Out, Bits<4>>,
}

#[derive(LogicInterface, Default)]
#[join = "WqeAtOut"]
pub struct WqeAtIn {
    pub qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    pub index: Signal<In, Bits<16>>,
    pub prod: Signal<In, Bits<16>>,
    pub base: Signal<In, Bits<64>>,
    pub log: Signal<In, Bits<4>>,
}

#[derive(LogicBlock, Default)]
pub struct SqAhead {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_rd: RdCmdIn,
    pub s_at: WqeAtIn,
    pub m_wqe: AxisOut<512, 64, 1>,
    pub m_rd: RdCmdOut,
    pub s_rd_data: AxisIn<512, 64, 1>,
    pub inval: Signal<In, Bit>,
    /// Beats: {1 window / 0 miss, place, beat}.
    ram: LutRam<Bits<513>, 5>,
    /// Per read outstanding, in read order: {window, place}.
    order: SlotQueue<4>,
    /// Per command in flight, in command order: 1 for the window's.
    cmdq: LutRam<Bit, SQ_AHEAD_CMD_LOG>,
    cq_wp: Reg<Bits<6>>,
    cq_rp: Reg<Bits<6>>,
    // ---- the read taken, and its compares against the window
    r_v: Reg<Bit>,
    r_head: Reg<Bit>,
    r_prev: Reg<Bit>,
    r_qpn: Reg<Bits<REQ_QPN_BITS>>,
    r_idx: Reg<Bits<16>>,
    r_prod: Reg<Bits<16>>,
    r_base: Reg<Bits<64>>,
    r_log: Reg<Bits<4>>,
    r_addr: Reg<Bits<64>>,
    // ---- the window
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
    arr: Reg<Bits<8>>,
    depth: Reg<Bits<4>>,
    hp: Reg<Bit>,
    /// An `inval` came while `hp`: the window goes off once its entry is handed out.
    kill: Reg<Bit>,
    w_fly: Reg<Bits<7>>,
    junk: Reg<Bits<7>>,
    // ---- the miss places
    m_fill: Reg<Bits<3>>,
    m_rdp: Reg<Bits<3>>,
    m_have: Reg<Bits<4>>,
    // ---- the DMA command register and the beat counter
    c_v: Reg<Bit>,
    c_win: Reg<Bit>,
    c_addr: Reg<Bits<64>>,
    d_beat: Reg<Bit>,
    // ---- the output
    o_v: Reg<Bit>,
    o_data: Reg<Bits<512>>,
    o_err: Reg<Bit>,
    o_beat: Reg<Bit>,
    // ---- locals
    c_go: Signal<Local, Bit>,
    c_free: Signal<Local, Bit>,
    hit: Signal<Local, Bit>,
    flush: Signal<Local, Bit>,
    pass: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    beat: Signal<Local, Bit>,
    b_win: Signal<Local, Bit>,
    keep: Signal<Local, Bit>,
    fly_after: Signal<Local, Bits<7>>,
    cq_cnt: Signal<Local, Bits<6>>,
    h_win: Signal<Local, Bit>,
    h_place: Signal<Local, Bits<3>>,
    h_ok: Signal<Local, Bit>,
    give: Signal<Local, Bit>,
    give_last: Signal<Local, Bit>,
    head_hit: Signal<Local, Bit>,
    idx: Signal<Local, Bits<16>>,
    arr_n: Signal<Local, Bits<8>>,
    kind: TypeTag<Self>,
}

impl Logic for SqAhead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cq_wp, cq_rp, r_v, r_head, r_prev, r_qpn, r_idx, r_prod, r_base, r_log, r_addr, w_on, w_qpn,
            w_base, w_log, w_prod, w_pidx, w_head, w_next, w_cnt, w_arr, arr, depth, hp, w_fly, junk, m_fill, m_rdp,
            m_have, kill, c_v, c_win, c_addr, d_beat, o_v, o_data, o_err, o_beat
        );
        clock!(self, clock, ram, order, cmdq);
        self.order.reset.next = self.reset.val();

        // ---- a read taken: its compares against the window, registered
        // (the window changes only at a decision, and none is made while
        // the request register is empty; `w_on` is checked again there)
        self.s_rd.ready.next = !self.r_v.q.val();
        if self.s_rd.valid.val() & !self.r_v.q.val() {
            self.r_v.d.next = true;
            self.r_head.d.next = (self.s_at.qpn.val() == self.w_qpn.q.val())
                & (self.s_at.base.val() == self.w_base.q.val())
                & (self.s_at.log.val() == self.w_log.q.val())
                & (self.s_at.index.val() == self.w_head.q.val());
            self.r_prev.d.next = (self.s_at.qpn.val() == self.w_qpn.q.val())
                & (self.s_at.base.val() == self.w_base.q.val())
                & (self.s_at.log.val() == self.w_log.q.val())
                & (self.s_at.index.val() == self.w_pidx.q.val());
            self.r_qpn.d.next = self.s_at.qpn.val();
            self.r_idx.d.next = self.s_at.index.val();
            self.r_prod.d.next = self.s_at.prod.val();
            self.r_base.d.next = self.s_at.base.val();
            self.r_log.d.next = self.s_at.log.val();
            self.r_addr.d.next = self.s_rd.addr.val();
        }

        // ---- the per-command queue: pushed when a command is taken, popped at its last beat
        self.c_go.next = self.c_v.q.val() & self.m_rd.ready.val();
        self.c_free.next = !self.c_v.q.val() | self.m_rd.ready.val();
        self.cq_cnt.next = self.cq_wp.q.val() - self.cq_rp.q.val();
        self.cmdq.write_addr.next = self.cq_wp.q.val().get_bits::<SQ_AHEAD_CMD_LOG>(0);
        self.cmdq.write_data.next = self.c_win.q.val();
        self.cmdq.write_enable.next = self.c_go.val();
        self.cmdq.read_addr.next = self.cq_rp.q.val().get_bits::<SQ_AHEAD_CMD_LOG>(0);
        if self.c_go.val() {
            self.cq_wp.d.next = self.cq_wp.q.val() + 1;
        }

        // ---- the decision on the read taken: a hit, a new window, or a miss place
        // (none in an `inval` cycle: the window's state is then settled below)
        self.hit.next = self.r_v.q.val()
            & !self.inval.val()
            & (self.r_head.q.val() | self.r_prev.q.val())
            & self.w_on.q.val()
            & !self.kill.q.val()
            & !self.hp.q.val();
        self.head_hit.next = self.hit.val() & self.r_head.q.val();
        // (a switch waits for a window read still offered: once taken it is
        // counted among the beats in flight, which become junk)
        self.flush.next = self.r_v.q.val() & !self.inval.val() & !self.hit.val() & !self.hp.q.val() & self.c_free.val();
        self.pass.next = self.r_v.q.val() & !self.hit.val() & self.hp.q.val() & self.c_free.val();
        self.order.push.next = self.hit.val() | self.flush.val() | self.pass.val();
        // (a miss place is implicit: misses are read and handed out in order)
        self.order.push_data.next =
            bits::<4>(8) | bit_cast::<4, SQ_AHEAD_LOG>(self.r_idx.q.val().get_bits::<SQ_AHEAD_LOG>(0));
        if self.pass.val() {
            self.order.push_data.next = 0.into();
        }
        if self.hit.val() | self.flush.val() | self.pass.val() {
            self.r_v.d.next = false;
        }

        // ---- beats, in command order: the window's (the first `junk` of them dropped) or a miss place's
        self.s_rd_data.tready.next = true;
        self.beat.next = self.s_rd_data.tvalid.val();
        self.b_win.next = self.cmdq.read_data.val();
        self.keep.next = self.beat.val() & !(self.b_win.val() & self.junk.q.val().any());
        self.ram.write_enable.next = self.keep.val();
        self.ram.write_addr.next = bits::<5>(16)
            | (bit_cast::<5, SQ_AHEAD_LOG>(self.w_arr.q.val()) << 1)
            | bit_cast::<5, 1>(self.d_beat.q.val().into());
        if !self.b_win.val() {
            self.ram.write_addr.next =
                (bit_cast::<5, 3>(self.m_fill.q.val()) << 1) | bit_cast::<5, 1>(self.d_beat.q.val().into());
        }
        self.ram.write_data.next = bit_cast::<513, 512>(self.s_rd_data.tdata.val())
            | (bit_cast::<513, 1>(self.s_rd_data.tuser.val().get_bit(0).into()) << 512);
        self.arr_n.next = self.arr.q.val();
        if self.head_hit.val() {
            self.arr_n.next =
                self.arr_n.val().replace_bit(self.w_pidx.q.val().get_bits::<SQ_AHEAD_LOG>(0).index(), false);
        }
        if self.beat.val() {
            self.d_beat.d.next = !self.d_beat.q.val();
        }
        if self.beat.val() & self.d_beat.q.val() {
            self.cq_rp.d.next = self.cq_rp.q.val() + 1;
            if self.keep.val() & self.b_win.val() {
                self.w_arr.d.next = self.w_arr.q.val() + 1;
                self.arr_n.next = self.arr_n.val().replace_bit(self.w_arr.q.val().index(), true);
            }
            if !self.b_win.val() {
                self.m_fill.d.next = self.m_fill.q.val() + 1;
            }
        }
        if self.beat.val() & self.b_win.val() & self.junk.q.val().any() {
            self.junk.d.next = self.junk.q.val() - 1;
        }
        self.fly_after.next = self.w_fly.q.val()
            + (bit_cast::<7, 1>((self.c_go.val() & self.c_win.q.val()).into()) << 1)
            - bit_cast::<7, 1>((self.beat.val() & self.b_win.val()).into());
        self.w_fly.d.next = self.fly_after.val();

        // ---- the output, in read order: two beats of a window place or a miss place
        self.h_win.next = self.order.head.val().get_bit(3);
        self.h_place.next = self.order.head.val().get_bits::<3>(0);
        self.h_ok.next = self.m_have.q.val().any();
        if self.h_win.val() {
            self.h_ok.next = self.arr.q.val().get_bit(self.h_place.val().index());
        }
        self.give.next = self.order.nonempty.val() & self.h_ok.val() & (!self.o_v.q.val() | self.m_wqe.tready.val());
        self.give_last.next = self.give.val() & self.o_beat.q.val();
        self.ram.read_addr.next =
            (bit_cast::<5, 3>(self.m_rdp.q.val()) << 1) | bit_cast::<5, 1>(self.o_beat.q.val().into());
        if self.h_win.val() {
            self.ram.read_addr.next = bits::<5>(16)
                | (bit_cast::<5, 3>(self.h_place.val()) << 1)
                | bit_cast::<5, 1>(self.o_beat.q.val().into());
        }
        if self.m_wqe.tready.val() {
            self.o_v.d.next = false;
        }
        if self.give.val() {
            self.o_v.d.next = true;
            self.o_data.d.next = self.ram.read_data.val().get_bits::<512>(0);
            self.o_err.d.next = self.ram.read_data.val().get_bit(512);
            self.o_beat.d.next = !self.o_beat.q.val();
        }
        self.order.pop.next = self.give_last.val();
        self.m_have.d.next = self.m_have.q.val()
            + bit_cast::<4, 1>((self.beat.val() & self.d_beat.q.val() & !self.b_win.val()).into())
            - bit_cast::<4, 1>((self.give_last.val() & !self.h_win.val()).into());
        if self.give_last.val() & !self.h_win.val() {
            self.m_rdp.d.next = self.m_rdp.q.val() + 1;
        }
        self.m_wqe.tvalid.next = self.o_v.q.val();
        self.m_wqe.tdata.next = self.o_data.q.val();
        self.m_wqe.tkeep.next = 0.into(); // (whole beats; `ReqFetch` reads no tkeep)
        self.m_wqe.tlast.next = !self.o_beat.q.val();
        self.m_wqe.tuser.next = bit_cast::<1, 1>(self.o_err.q.val().into());

        // ---- window reads: while short of its depth and the WQE posted
        // (after an `inval`, only the entry still to be handed out: `kill`)
        self.issue.next = self.w_on.q.val()
            & !self.inval.val()
            & (!self.kill.q.val() | !self.w_cnt.q.val().any())
            & !self.flush.val()
            & !self.pass.val()
            & self.c_free.val()
            & (self.w_cnt.q.val() < self.depth.q.val())
            & (self.w_next.q.val() != self.w_prod.q.val())
            & (self.cq_cnt.val() < SQ_AHEAD_WIN_CMDS);
        self.idx.next = 0.into();
        for k in 0..16 {
            if self.w_log.q.val().index() > k {
                self.idx.next = self.idx.val().replace_bit(k, self.w_next.q.val().get_bit(k));
            }
        }
        if self.c_go.val() {
            self.c_v.d.next = false;
        }
        if self.issue.val() {
            self.c_v.d.next = true;
            self.c_win.d.next = true;
            self.c_addr.d.next = self.w_base.q.val() + (bit_cast::<64, 16>(self.idx.val()) << 7);
            self.w_next.d.next = self.w_next.q.val() + 1;
        }
        if self.pass.val() {
            self.c_v.d.next = true;
            self.c_win.d.next = false;
            self.c_addr.d.next = self.r_addr.q.val();
        }
        self.m_rd.valid.next = self.c_v.q.val();
        self.m_rd.addr.next = self.c_addr.q.val();
        self.m_rd.len.next = SW_BYTES.into();

        // ---- the window's places: `pidx` advances on a head hit (its old place freed)
        self.w_cnt.d.next = self.w_cnt.q.val() + bit_cast::<4, 1>(self.issue.val().into())
            - bit_cast::<4, 1>(self.head_hit.val().into());
        if self.head_hit.val() {
            self.w_pidx.d.next = self.w_head.q.val();
            self.w_head.d.next = self.w_head.q.val() + 1;
            self.w_prod.d.next = self.r_prod.q.val();
            if self.depth.q.val() != SQ_AHEAD_PLACES {
                self.depth.d.next = self.depth.q.val() + 1;
            }
        }
        if self.hit.val() {
            self.w_prod.d.next = self.r_prod.q.val();
        }
        self.arr.d.next = self.arr_n.val();
        if self.hit.val() | self.flush.val() {
            self.hp.d.next = true;
        }
        if self.give_last.val() & self.h_win.val() {
            self.hp.d.next = false;
            self.kill.d.next = false;
            // (an entry with a DMA error is not kept for a re-read)
            if self.o_err.q.val() | self.ram.read_data.val().get_bit(512) | self.kill.q.val() {
                self.w_on.d.next = false;
            }
        }

        // ---- a new window at the WQE asked for (its read the window's first)
        if self.flush.val() {
            self.w_on.d.next = true;
            self.w_qpn.d.next = self.r_qpn.q.val();
            self.w_base.d.next = self.r_base.q.val();
            self.w_log.d.next = self.r_log.q.val();
            self.w_prod.d.next = self.r_prod.q.val();
            self.w_pidx.d.next = self.r_idx.q.val();
            self.w_head.d.next = self.r_idx.q.val() + 1;
            self.w_next.d.next = self.r_idx.q.val();
            self.w_cnt.d.next = 0.into();
            self.w_arr.d.next = self.r_idx.q.val().get_bits::<SQ_AHEAD_LOG>(0);
            self.arr.d.next = 0.into();
            self.depth.d.next = SQ_AHEAD_START.into();
            self.junk.d.next = self.fly_after.val();
        }
        // a context loaded or dropped: the window goes off, but an entry
        // still to be handed out (`hp`) is read and handed out first
        if self.inval.val() {
            if self.hp.q.val() & !(self.give_last.val() & self.h_win.val()) {
                self.kill.d.next = true;
            } else {
                self.w_on.d.next = false;
            }
        }

        if self.reset.val() {
            self.cq_wp.d.next = 0.into();
            self.cq_rp.d.next = 0.into();
            self.r_v.d.next = false;
            self.w_on.d.next = false;
            self.w_cnt.d.next = 0.into();
            self.arr.d.next = 0.into();
            self.hp.d.next = false;
            self.kill.d.next = false;
            self.w_fly.d.next = 0.into();
            self.junk.d.next = 0.into();
            self.m_fill.d.next = 0.into();
            self.m_rdp.d.next = 0.into();
            self.m_have.d.next = 0.into();
            self.c_v.d.next = false;
            self.d_beat.d.next = false;
            self.o_v.d.next = false;
            self.o_beat.d.next = false;
        }
    }
}
