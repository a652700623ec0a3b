//! `SqAhead`: the send WQEs `ReqFetch` reads, read ahead (child of
//! `ReqTx`, between `ReqFetch::m_rd`/`s_rd` and DMA read client 0). A QP
//! with work is granted once at a time, and each grant read its WQE by DMA:
//! a PCIe round trip (~230 cycles) per WQE, so one QP sent one message per
//! ~285 cycles whatever its size (28 Gb/s at 4 KiB). This block keeps a
//! window of posted WQEs per QP in service, read before they are asked for,
//! and always takes the engine's data (every command in flight has its
//! place), so `ReqFetch`'s stalls never hold the other users of client 0.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_rd` + `s_at` | in | `ReqFetch`'s WQE read (`addr`, `len` = 128) and beside it (qualified by `s_rd.valid`) the WQE's QP, index, ring (`base`, `log`) and the QP's `SQ_PROD` at the decision; `ready` a register. At most [`SQ_AHEAD_OUTSTANDING`] reads outstanding, at most one per QP (`ReqFetch`'s slots). |
//! | `m_wqe` | out | the WQE's two beats per read, in read order (`tuser[0]`: DMA error, `tlast` on the second); `tdata` straight from the beat memory's output register |
//! | `m_rd` / `s_rd_data` | out / in | DMA read client: 128-byte commands; `s_rd_data.tready` constant 1 |
//! | `inval` | in | a pulse: forget every window (a QP's context was loaded or invalidated: its rings may start again at index 0) |
//!
//! **The windows** ([`SQ_AHEAD_WINDOWS`] [`SqWindow`] children, session
//! 41; one before): each holds a QP, its ring, `pidx` (the last WQE handed
//! out), `head` (= `pidx` + 1) and `next` (the next to read), and
//! [`SQ_AHEAD_PLACES`] places of two beats in the shared beat memory (block
//! RAM, {window, place, beat}; WQE `i` at place `i` mod 8). A read for
//! `head` of a window's QP and ring is a hit (`pidx` and `head` advance); a
//! read for `pidx` is a hit too (a long message's next job re-reads its
//! WQE). Either is handed out once its beats arrived. Any other read takes
//! a window for the WQE asked for and issues that read at once, in the
//! decision: the QP's own window if it has one (a rewind, a new ring), else
//! a free window, else the next in turn of those with no entry to hand out
//! (`hp`). There are as many windows as reads outstanding, so one is always
//! there: no read waits for a window and none is read around them. A window
//! reads on while fewer than `depth` WQEs from `pidx` are read or in flight
//! and `next` is posted (`next` != the newest `SQ_PROD` seen): a WQE is read
//! only after its post, so it stays valid until it completes, and it
//! completes only after it was sent, which it is only through here. The
//! windows that want a read take the command register in turn.
//!
//! **Depth** starts at [`SQ_AHEAD_START`] (the WQE and one more) and grows by
//! one per `head` hit up to 8: a QP that sends one message reads one WQE in
//! vain, a stream reads far enough ahead to hide the round trip.
//!
//! **A window taken for another WQE** does not wait for its reads: the
//! engine answers in command order (a queue of window numbers per command
//! says whose beats are next), and the window drops as many beats as were
//! in flight at the switch (`junk`). A handed-out entry with a DMA error
//! switches its window off. `inval` switches every window off, but an entry
//! still to be handed out is handed out first (`kill`); no read goes ahead
//! meanwhile.
//!
//! Latency: a hit whose beats are there offers its first beat 3 cycles after
//! its read is taken ([`SQ_AHEAD_HIT_LATENCY`]); a miss offers its command
//! 2 cycles after the read is taken and its first beat 4 cycles after the
//! engine's second ([`SQ_AHEAD_MISS_EXTRA`] = 6 in all beside the engine's
//! latency: a beat is registered with its window before it is written).

use crate::axis::{AxisIn, AxisOut};
use crate::consts::*;
use crate::host::{RdCmdIn, RdCmdOut};
use crate::prim::{BlockRam, LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

use super::{SlotQueue, SqWindow, REQ_FETCH_SLOTS, REQ_FETCH_WQE_BYTES, REQ_QPN_BITS};

/// log2 of a window's places (WQEs held from `pidx` on).
pub const SQ_AHEAD_LOG: usize = 3;
/// Reads outstanding at most (`ReqFetch`'s slots): the order queue is this deep.
pub const SQ_AHEAD_OUTSTANDING: usize = REQ_FETCH_SLOTS;
/// Windows: one per read outstanding, so a read that misses always finds
/// a window with no entry to hand out. Window numbers are slot numbers
/// (`SCHED_SLOT_BITS`, encoded with `SLOT_ENC*`).
pub const SQ_AHEAD_WINDOWS: usize = SCHED_SLOTS;
/// Cycles from a read taken to its first beat offered, for a hit whose
/// beats are there: the request register, the order queue, the beat
/// memory's output register.
pub const SQ_AHEAD_HIT_LATENCY: u64 = 3;
/// Cycles a miss adds beside the engine's latency (read taken to first beat
/// offered): the request register (1), the command register (1, loaded by
/// the decision), both beats in (2: the entry is handed out whole), the
/// beat register (1), the beat memory's output register (1).
pub const SQ_AHEAD_MISS_EXTRA: u64 = 6;
/// log2 of the commands the per-command queue holds (64); window reads stop
/// at `SQ_AHEAD_WIN_CMDS` queued, so a miss always finds room.
const SQ_AHEAD_CMD_LOG: usize = 6;
const _: () = assert!(
    SQ_AHEAD_OUTSTANDING == SCHED_SLOTS
        && SQ_AHEAD_WINDOWS >= SQ_AHEAD_OUTSTANDING
        && SQ_AHEAD_PLACES == 8
        && SW_BYTES == 128
        && REQ_FETCH_WQE_BYTES == SW_BYTES
);
// (a window read is issued below `SQ_AHEAD_WIN_CMDS` queued, so the window
// reads have at most that many + 1 in the queue and the register, the
// misses at most one per read outstanding; a window's beats in flight, at
// most twice the queue, fit its 7-bit counters)
const _: () = assert!(SQ_AHEAD_WIN_CMDS + 1 + SQ_AHEAD_OUTSTANDING as u64 <= 1 << SQ_AHEAD_CMD_LOG);
const _: () = assert!(2 << SQ_AHEAD_CMD_LOG <= 128);
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

#[derive(LogicBlock)]
pub struct SqAhead {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_rd: RdCmdIn,
    pub s_at: WqeAtIn,
    pub m_wqe: AxisOut<512, 64, 1>,
    pub m_rd: RdCmdOut,
    pub s_rd_data: AxisIn<512, 64, 1>,
    pub inval: Signal<In, Bit>,
    win: [SqWindow; SQ_AHEAD_WINDOWS],
    /// Beats at {window, place, beat}, with the DMA error flag on top.
    ram: BlockRam<Bits<513>, 8>,
    /// Per read outstanding, in read order: {window, place}.
    order: SlotQueue<7>,
    /// Per command in flight, in command order: its window.
    cmdq: LutRam<Bits<SCHED_SLOT_BITS>, SQ_AHEAD_CMD_LOG>,
    cq_wp: Reg<Bits<7>>,
    cq_rp: Reg<Bits<7>>,
    // ---- the read taken, and its compares against the windows
    r_v: Reg<Bit>,
    r_qp: Reg<Bits<SQ_AHEAD_WINDOWS>>,
    r_head: Reg<Bits<SQ_AHEAD_WINDOWS>>,
    r_prev: Reg<Bits<SQ_AHEAD_WINDOWS>>,
    r_qpn: Reg<Bits<REQ_QPN_BITS>>,
    r_idx: Reg<Bits<16>>,
    r_prod: Reg<Bits<16>>,
    r_base: Reg<Bits<64>>,
    r_log: Reg<Bits<4>>,
    r_addr: Reg<Bits<64>>,
    // ---- the window a miss takes (one-hot, from the previous cycle's state) and the turn
    vic: Reg<Bits<SQ_AHEAD_WINDOWS>>,
    v_above: Reg<Bits<SQ_AHEAD_WINDOWS>>,
    // ---- the window whose read goes next (one-hot, registered) and the turn
    pick: Reg<Bits<SQ_AHEAD_WINDOWS>>,
    p_above: Reg<Bits<SQ_AHEAD_WINDOWS>>,
    // ---- the DMA command register and the beat counter
    c_v: Reg<Bit>,
    c_win: Reg<Bits<SCHED_SLOT_BITS>>,
    c_addr: Reg<Bits<64>>,
    d_beat: Reg<Bit>,
    // ---- the beat register: a beat, whose window (the queue's head) and which of its two
    b_v: Reg<Bit>,
    b_data: Reg<Bits<512>>,
    b_err: Reg<Bit>,
    b_last: Reg<Bit>,
    b_win: Reg<Bits<SCHED_SLOT_BITS>>,
    // ---- the output: the beat memory's read address (held while stalled)
    o_v: Reg<Bit>,
    o_beat: Reg<Bit>,
    o_ra: Reg<Bits<8>>,
    // ---- locals
    on_v: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    hp_v: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    want_v: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    mq_v: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    mh_v: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    mp_v: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    hit_v: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    dest: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    dest_n: Signal<Local, Bits<SCHED_SLOT_BITS>>,
    cand: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    cand_hi: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    v_low: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    w_hi: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    p_low: Signal<Local, Bits<SQ_AHEAD_WINDOWS>>,
    c_go: Signal<Local, Bit>,
    c_free: Signal<Local, Bit>,
    hit: Signal<Local, Bit>,
    head_hit: Signal<Local, Bit>,
    flush: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    i_addr: Signal<Local, Bits<64>>,
    i_win: Signal<Local, Bits<SCHED_SLOT_BITS>>,
    b_fill: Signal<Local, Bits<SQ_AHEAD_LOG>>,
    b_junk: Signal<Local, Bit>,
    cq_cnt: Signal<Local, Bits<7>>,
    h_win: Signal<Local, Bits<SCHED_SLOT_BITS>>,
    h_place: Signal<Local, Bits<SQ_AHEAD_LOG>>,
    h_ok: Signal<Local, Bit>,
    give: Signal<Local, Bit>,
    give_last: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Default for SqAhead {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_rd: Default::default(),
            s_at: Default::default(),
            m_wqe: Default::default(),
            m_rd: Default::default(),
            s_rd_data: Default::default(),
            inval: Default::default(),
            win: std::array::from_fn(|_| Default::default()),
            ram: Default::default(),
            order: Default::default(),
            cmdq: Default::default(),
            cq_wp: Default::default(),
            cq_rp: Default::default(),
            r_v: Default::default(),
            r_qp: Default::default(),
            r_head: Default::default(),
            r_prev: Default::default(),
            r_qpn: Default::default(),
            r_idx: Default::default(),
            r_prod: Default::default(),
            r_base: Default::default(),
            r_log: Default::default(),
            r_addr: Default::default(),
            vic: Default::default(),
            v_above: Default::default(),
            pick: Default::default(),
            p_above: Default::default(),
            c_v: Default::default(),
            c_win: Default::default(),
            c_addr: Default::default(),
            d_beat: Default::default(),
            b_v: Default::default(),
            b_data: Default::default(),
            b_err: Default::default(),
            b_last: Default::default(),
            b_win: Default::default(),
            o_v: Default::default(),
            o_beat: Default::default(),
            o_ra: Default::default(),
            on_v: Default::default(),
            hp_v: Default::default(),
            want_v: Default::default(),
            mq_v: Default::default(),
            mh_v: Default::default(),
            mp_v: Default::default(),
            hit_v: Default::default(),
            dest: Default::default(),
            dest_n: Default::default(),
            cand: Default::default(),
            cand_hi: Default::default(),
            v_low: Default::default(),
            w_hi: Default::default(),
            p_low: Default::default(),
            c_go: Default::default(),
            c_free: Default::default(),
            hit: Default::default(),
            head_hit: Default::default(),
            flush: Default::default(),
            issue: Default::default(),
            i_addr: Default::default(),
            i_win: Default::default(),
            b_fill: Default::default(),
            b_junk: Default::default(),
            cq_cnt: Default::default(),
            h_win: Default::default(),
            h_place: Default::default(),
            h_ok: Default::default(),
            give: Default::default(),
            give_last: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for SqAhead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cq_wp, cq_rp, r_v, r_qp, r_head, r_prev, r_qpn, r_idx, r_prod, r_base, r_log, r_addr, vic,
            v_above, pick, p_above, c_v, c_win, c_addr, d_beat, b_v, b_data, b_err, b_last, b_win, o_v, o_beat, o_ra
        );
        clock!(self, clock, ram, order, cmdq);
        self.order.reset.next = self.reset.val();

        // ---- the windows: the read offered is compared with each; their state gathered
        self.on_v.next = 0.into();
        self.hp_v.next = 0.into();
        self.want_v.next = 0.into();
        self.mq_v.next = 0.into();
        self.mh_v.next = 0.into();
        self.mp_v.next = 0.into();
        for k in 0..SQ_AHEAD_WINDOWS {
            self.win[k].clock.next = self.clock.val();
            self.win[k].reset.next = self.reset.val();
            self.win[k].inval.next = self.inval.val();
            self.win[k].q_qpn.next = self.s_at.qpn.val();
            self.win[k].q_base.next = self.s_at.base.val();
            self.win[k].q_log.next = self.s_at.log.val();
            self.win[k].q_index.next = self.s_at.index.val();
            self.win[k].r_qpn.next = self.r_qpn.q.val();
            self.win[k].r_base.next = self.r_base.q.val();
            self.win[k].r_log.next = self.r_log.q.val();
            self.win[k].r_index.next = self.r_idx.q.val();
            self.win[k].r_prod.next = self.r_prod.q.val();
            self.on_v.next = self.on_v.val().replace_bit(k, self.win[k].on.val());
            self.hp_v.next = self.hp_v.val().replace_bit(k, self.win[k].hp.val());
            self.want_v.next = self.want_v.val().replace_bit(k, self.win[k].want.val());
            self.mq_v.next = self.mq_v.val().replace_bit(k, self.win[k].m_qp.val());
            self.mh_v.next = self.mh_v.val().replace_bit(k, self.win[k].m_head.val());
            self.mp_v.next = self.mp_v.val().replace_bit(k, self.win[k].m_prev.val());
        }

        // ---- a read taken: its compares, registered (a window changes only
        // at a decision, and none is made while the request register is empty)
        self.s_rd.ready.next = !self.r_v.q.val();
        if self.s_rd.valid.val() & !self.r_v.q.val() {
            self.r_v.d.next = true;
            self.r_qp.d.next = self.mq_v.val();
            self.r_head.d.next = self.mh_v.val();
            self.r_prev.d.next = self.mp_v.val();
            self.r_qpn.d.next = self.s_at.qpn.val();
            self.r_idx.d.next = self.s_at.index.val();
            self.r_prod.d.next = self.s_at.prod.val();
            self.r_base.d.next = self.s_at.base.val();
            self.r_log.d.next = self.s_at.log.val();
            self.r_addr.d.next = self.s_rd.addr.val();
        }

        // ---- the window a miss would take: a free one, else the next in
        // turn with nothing to hand out (one always is: as many windows as reads)
        self.cand.next = !self.hp_v.val();
        self.cand_hi.next = self.cand.val() & !self.on_v.val();
        if !self.cand_hi.val().any() {
            self.cand_hi.next = self.cand.val() & self.v_above.q.val();
            if !self.cand_hi.val().any() {
                self.cand_hi.next = self.cand.val();
            }
        }
        self.v_low.next = self.cand_hi.val() & (!self.cand_hi.val() + 1);
        self.vic.d.next = self.v_low.val();

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

        // ---- the decision on the read taken: a hit, or a window taken and the read issued
        // (none in an `inval` cycle: the windows' state is then settled)
        self.hit_v.next = (self.r_head.q.val() | self.r_prev.q.val()) & self.on_v.val() & !self.hp_v.val();
        self.hit.next = self.r_v.q.val() & !self.inval.val() & self.hit_v.val().any();
        self.head_hit.next = self.hit.val() & (self.hit_v.val() & self.r_head.q.val()).any();
        self.flush.next = self.r_v.q.val() & !self.inval.val() & !self.hit.val() & self.c_free.val();
        self.dest.next = self.vic.q.val();
        if self.r_qp.q.val().any() {
            self.dest.next = self.r_qp.q.val();
        }
        if self.hit.val() {
            self.dest.next = self.hit_v.val();
        }
        self.dest_n.next = bit_cast::<SCHED_SLOT_BITS, 1>((self.dest.val() & SLOT_ENC0).any().into())
            | (bit_cast::<SCHED_SLOT_BITS, 1>((self.dest.val() & SLOT_ENC1).any().into()) << 1)
            | (bit_cast::<SCHED_SLOT_BITS, 1>((self.dest.val() & SLOT_ENC2).any().into()) << 2)
            | (bit_cast::<SCHED_SLOT_BITS, 1>((self.dest.val() & SLOT_ENC3).any().into()) << 3);
        self.order.push.next = self.hit.val() | self.flush.val();
        self.order.push_data.next = (bit_cast::<7, SCHED_SLOT_BITS>(self.dest_n.val()) << 3)
            | bit_cast::<7, SQ_AHEAD_LOG>(self.r_idx.q.val().get_bits::<SQ_AHEAD_LOG>(0));
        if self.hit.val() | self.flush.val() {
            self.r_v.d.next = false;
        }
        if self.flush.val() & !self.r_qp.q.val().any() {
            // the turn moves past the window taken
            self.v_above.d.next = !(self.vic.q.val() | (self.vic.q.val() - 1));
        }

        // ---- window reads, in turn, while the queue has room
        self.w_hi.next = self.want_v.val() & self.p_above.q.val();
        if !self.w_hi.val().any() {
            self.w_hi.next = self.want_v.val();
        }
        self.p_low.next = self.w_hi.val() & (!self.w_hi.val() + 1);
        self.pick.d.next = self.p_low.val();
        self.issue.next = !self.flush.val()
            & self.c_free.val()
            & (self.pick.q.val() & self.want_v.val()).any()
            & (self.cq_cnt.val() < SQ_AHEAD_WIN_CMDS);
        if self.issue.val() {
            self.p_above.d.next = !(self.pick.q.val() | (self.pick.q.val() - 1));
        }
        self.i_addr.next = 0.into();
        for k in 0..SQ_AHEAD_WINDOWS {
            if self.pick.q.val().get_bit(k) {
                self.i_addr.next = self.i_addr.val() | self.win[k].addr.val();
            }
        }
        self.i_win.next = bit_cast::<SCHED_SLOT_BITS, 1>((self.pick.q.val() & SLOT_ENC0).any().into())
            | (bit_cast::<SCHED_SLOT_BITS, 1>((self.pick.q.val() & SLOT_ENC1).any().into()) << 1)
            | (bit_cast::<SCHED_SLOT_BITS, 1>((self.pick.q.val() & SLOT_ENC2).any().into()) << 2)
            | (bit_cast::<SCHED_SLOT_BITS, 1>((self.pick.q.val() & SLOT_ENC3).any().into()) << 3);
        if self.c_go.val() {
            self.c_v.d.next = false;
        }
        if self.issue.val() {
            self.c_v.d.next = true;
            self.c_win.d.next = self.i_win.val();
            self.c_addr.d.next = self.i_addr.val();
        }
        if self.flush.val() {
            self.c_v.d.next = true;
            self.c_win.d.next = self.dest_n.val();
            self.c_addr.d.next = self.r_addr.q.val();
        }
        self.m_rd.valid.next = self.c_v.q.val();
        self.m_rd.addr.next = self.c_addr.q.val();
        self.m_rd.len.next = SW_BYTES.into();

        // ---- beats, in command order, registered with their window, then
        // into the window's next place (the junk dropped)
        self.s_rd_data.tready.next = true;
        self.b_v.d.next = self.s_rd_data.tvalid.val();
        self.b_data.d.next = self.s_rd_data.tdata.val();
        self.b_err.d.next = self.s_rd_data.tuser.val().get_bit(0);
        self.b_last.d.next = self.d_beat.q.val();
        self.b_win.d.next = self.cmdq.read_data.val();
        self.b_fill.next = 0.into();
        self.b_junk.next = false;
        for k in 0..SQ_AHEAD_WINDOWS {
            if self.b_win.q.val().index() == k {
                self.b_fill.next = self.win[k].fill.val();
                self.b_junk.next = self.win[k].junk_any.val();
            }
        }
        self.ram.write_enable.next = self.b_v.q.val() & !self.b_junk.val();
        self.ram.write_addr.next = (bit_cast::<8, SCHED_SLOT_BITS>(self.b_win.q.val()) << 4)
            | (bit_cast::<8, SQ_AHEAD_LOG>(self.b_fill.val()) << 1)
            | bit_cast::<8, 1>(self.b_last.q.val().into());
        self.ram.write_data.next =
            bit_cast::<513, 512>(self.b_data.q.val()) | (bit_cast::<513, 1>(self.b_err.q.val().into()) << 512);
        if self.s_rd_data.tvalid.val() {
            self.d_beat.d.next = !self.d_beat.q.val();
        }
        if self.s_rd_data.tvalid.val() & self.d_beat.q.val() {
            self.cq_rp.d.next = self.cq_rp.q.val() + 1;
        }

        // ---- the output, in read order: two beats of a window's place
        self.h_win.next = self.order.head.val().get_bits::<SCHED_SLOT_BITS>(3);
        self.h_place.next = self.order.head.val().get_bits::<SQ_AHEAD_LOG>(0);
        self.h_ok.next = false;
        for k in 0..SQ_AHEAD_WINDOWS {
            if self.h_win.val().index() == k {
                self.h_ok.next = self.win[k].arr.val().get_bit(self.h_place.val().index());
            }
        }
        self.give.next = self.order.nonempty.val() & self.h_ok.val() & (!self.o_v.q.val() | self.m_wqe.tready.val());
        self.give_last.next = self.give.val() & self.o_beat.q.val();
        self.ram.read_addr.next = self.o_ra.q.val();
        if self.give.val() {
            self.ram.read_addr.next = (bit_cast::<8, SCHED_SLOT_BITS>(self.h_win.val()) << 4)
                | (bit_cast::<8, SQ_AHEAD_LOG>(self.h_place.val()) << 1)
                | bit_cast::<8, 1>(self.o_beat.q.val().into());
        }
        self.o_ra.d.next = self.ram.read_addr.val();
        if self.m_wqe.tready.val() {
            self.o_v.d.next = false;
        }
        if self.give.val() {
            self.o_v.d.next = true;
            self.o_beat.d.next = !self.o_beat.q.val();
        }
        self.order.pop.next = self.give_last.val();
        self.m_wqe.tvalid.next = self.o_v.q.val();
        self.m_wqe.tdata.next = self.ram.read_data.val().get_bits::<512>(0);
        self.m_wqe.tkeep.next = 0.into(); // (whole beats; `ReqFetch` reads no tkeep)
        self.m_wqe.tlast.next = !self.o_beat.q.val();
        self.m_wqe.tuser.next = bit_cast::<1, 1>(self.ram.read_data.val().get_bit(512).into());

        // ---- each window's share of the decision, the reads and the beats
        for k in 0..SQ_AHEAD_WINDOWS {
            self.win[k].hit.next = self.hit.val() & self.hit_v.val().get_bit(k);
            self.win[k].head_hit.next = self.head_hit.val() & self.hit_v.val().get_bit(k);
            self.win[k].flush.next = self.flush.val() & self.dest.val().get_bit(k);
            self.win[k].issue.next = self.issue.val() & self.pick.q.val().get_bit(k);
            self.win[k].cmd_go.next = self.c_go.val() & (self.c_win.q.val().index() == k);
            self.win[k].beat.next = self.b_v.q.val() & (self.b_win.q.val().index() == k);
            self.win[k].beat_last.next = self.b_last.q.val();
            self.win[k].beat_err.next = self.b_err.q.val();
            self.win[k].give_last.next = self.give_last.val() & (self.h_win.val().index() == k);
        }

        if self.reset.val() {
            self.cq_wp.d.next = 0.into();
            self.cq_rp.d.next = 0.into();
            self.r_v.d.next = false;
            self.vic.d.next = 1.into();
            self.v_above.d.next = 0.into();
            self.pick.d.next = 0.into();
            self.p_above.d.next = 0.into();
            self.c_v.d.next = false;
            self.d_beat.d.next = false;
            self.b_v.d.next = false;
            self.o_v.d.next = false;
            self.o_beat.d.next = false;
        }
    }
}
