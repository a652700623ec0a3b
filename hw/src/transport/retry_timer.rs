//! `RetryTimer<Q, N, S>`: per-QP retransmit (local ACK timeout) and RNR
//! timers on a hashed timer wheel, with no scan over QPs. `Q` is the QPN
//! width (2^Q QPs), `N` = Q + 1 (a list node: QPN and one bit), `S` the
//! wheel's size (2^S slots of one tick each).
//!
//! **Ports.** `s_arm` {qpn, kind, code} (re)arms the QP's one timer and
//! replaces any earlier arming (kind 0: ACK timeout, 4.096 us x 2^code, code
//! 0 disarms; kind 1: RNR, the IBTA table); `s_disarm` {qpn} cancels;
//! `m_expire` {qpn, kind} says an arming ran out. A tick is `tick_m1 + 1`
//! cycles (the core ties it to [`TIMER_TICK_CYCLES`] - 1: 4.096 us at
//! 250 MHz; tests use short ticks). `init` is high while the state RAMs
//! are cleared after `reset` (2^Q cycles; both inputs not ready).
//!
//! **Deadlines.** A command taken in tick `r` gets the deadline
//! `r + ticks + 1`, `ticks` from [`timer_ticks`] (rounded up), so it fires
//! after more than `ticks` whole ticks: never early. An arming fires at
//! most once, never after a disarm or a later arming of its QP.
//!
//! **Structure.** Each QP owns two list nodes (node = QPN * 2 + b); the
//! QP's word (flags, deadline, a wheel position per node, in four block
//! RAMs) says which node is current, and whether each is linked. A slot's
//! list is singly linked through a next-pointer RAM (one word per node), its
//! head in a head RAM. Arming touches only the QP's word: when the current
//! node is already linked in a slot the wheel reaches at or before the new
//! deadline, nothing else changes (lazy: the re-arms of a running ACK timer
//! all take this path); otherwise the other node becomes current when it is
//! linked early enough (so a stale node of an ACK arming serves the resend's
//! ACK arming and keeps the current node free for the next RNR wait); else
//! the current node, when it is not linked, is linked at the slot of the
//! deadline (or one turn ahead when the deadline is further); else (it is
//! linked too late: an arming shorter than the pending one, e.g. RNR after an
//! ACK timeout) the other node becomes current and is linked. The node left
//! behind is stale: the walk drops it. So the nodes are bounded (two per QP,
//! each in at most one list) whatever the commands. Only an arming that
//! finds both nodes linked after its deadline (a shorter arming, a longer
//! one before the shorter one's slot is walked, a shorter one again, all
//! before the first one's slot) waits for the earlier one: it fires late by
//! less than one turn.
//!
//! **The walk.** When a tick passes, the walk takes the next slot's whole
//! list (reads the head, marks the slot empty) and visits its nodes one per
//! cycle: a stale node is dropped, a current node whose deadline is reached
//! fires (the QP is no longer armed), any other current node is re-linked
//! at its deadline's slot or one turn ahead (long codes hop round the
//! wheel). Walking has priority over commands; a command waits at most for
//! the list being walked. Expiries go through a 16-entry FIFO; the walk
//! stops while it could overflow ([`TIMER_ROOM_MAX`]).
//!
//! **Pipeline.** One operation (a command, a walk step, a slot start) enters
//! per cycle, in four stages: A chooses it and reads the QP's word (and the
//! node's next pointer); B takes the word, forwarded when the operation two
//! ahead wrote it last cycle, and compares the deadline and the nodes'
//! slots with the wheel; C decides and writes the word, and reads the head
//! of the slot it links into; D writes the next pointer and the head (the
//! head forwarded when the operation ahead wrote it last cycle). An
//! operation on the QP of the one right ahead of it waits a cycle at A (one
//! bubble), so no decision needs a word written in the same cycle; commands
//! and slots act in the order they entered.

use super::QpnIn;
use crate::prim::{BlockRam, BramFifo, Reg};
use hdl_emit::TypeTag;
use rnic_contract::codes::{timer_ticks, TimerKind, TIMER_TICK_NS};
use rust_hdl::prelude::*;

/// Core cycles per tick at 250 MHz: 4.096 us ([`TIMER_TICK_NS`]).
pub const TIMER_TICK_CYCLES: u64 = TIMER_TICK_NS / 4;
/// Width of deadlines and tick counters: the longest timer (2^31 ticks,
/// ACK code 31) plus walk lag compared by serial arithmetic.
pub const TIMER_DEADLINE_BITS: usize = 33;
/// Expiry FIFO: 2^4 entries.
pub const TIMER_EXPIRE_LOG: usize = 4;
/// The walk issues a step only while the FIFO holds at most this many
/// expiries: the step and the two ahead of it (at B and C) may each add one.
pub const TIMER_ROOM_MAX: u64 = (1 << TIMER_EXPIRE_LOG) - 3;
/// Cycles from the start of a QP's deadline tick to the decision of its
/// expiry, when it is the first node of its slot and the walk is idle: the
/// slot start (A, B, C: the head read, D: the list taken), then the walk's
/// A and B; the decision is at its C.
pub const TIMER_DECIDE_LATENCY: u64 = 6;
/// Cycles from the start of the deadline tick to the expiry offered on
/// `m_expire` (nothing else to do): the decision, then the FIFO.
pub const TIMER_FIRE_LATENCY: u64 = TIMER_DECIDE_LATENCY + crate::prim::BRAM_FIFO_LATENCY;

/// The tick table: `ticks + 1` per (kind, code), 32 bits each, entry
/// `kind * 32 + code`; an ACK code 0 holds 0 (it disarms).
fn ticks_table() -> Bits<2048> {
    let mut t = Bits::<2048>::default();
    for (k, kind) in [TimerKind::AckTimeout, TimerKind::Rnr].into_iter().enumerate() {
        for code in 0..32u8 {
            let v = timer_ticks(kind, code).map_or(0, |t| t + 1);
            assert!(v < 1 << 32, "tick table entry");
            for b in 0..32 {
                t = t.replace_bit((k * 32 + code as usize) * 32 + b, (v >> b) & 1 == 1);
            }
        }
    }
    t
}

/// An arming: (re)start the QP's timer.
#[derive(LogicInterface, Default)]
#[join = "ArmOut"]
pub struct ArmIn<const Q: usize> {
    pub qpn: Signal<In, Bits<Q>>,
    /// `TimerKind`: 0 ACK timeout, 1 RNR.
    pub kind: Signal<In, Bit>,
    pub code: Signal<In, Bits<5>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ArmIn"]
pub struct ArmOut<const Q: usize> {
    pub qpn: Signal<Out, Bits<Q>>,
    pub kind: Signal<Out, Bit>,
    pub code: Signal<Out, Bits<5>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// An expiry: the QP's arming of `kind` ran out.
#[derive(LogicInterface, Default)]
#[join = "ExpireIn"]
pub struct ExpireOut<const Q: usize> {
    pub qpn: Signal<Out, Bits<Q>>,
    pub kind: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ExpireOut"]
pub struct ExpireIn<const Q: usize> {
    pub qpn: Signal<In, Bits<Q>>,
    pub kind: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock)]
pub struct RetryTimer<const Q: usize, const N: usize, const S: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Cycles per tick, minus one.
    pub tick_m1: Signal<In, Bits<16>>,
    pub s_arm: ArmIn<Q>,
    pub s_disarm: QpnIn<Q>,
    pub m_expire: ExpireOut<Q>,
    /// The state RAMs are being cleared after reset.
    pub init: Signal<Out, Bit>,
    /// Observation: an expiry of `decided_qpn` was decided in the previous
    /// cycle (the walk found its arming due).
    pub decided_valid: Signal<Out, Bit>,
    pub decided_qpn: Signal<Out, Bits<Q>>,

    ticks_tab: Constant<Bits<2048>>,
    /// One turn less one tick: 2^S - 1.
    turn_m1: Constant<Bits<33>>,
    room_max: Constant<Bits<5>>,

    // ---- the QP's word: flags {lk1, lk0, cur, kind, armed}, deadline, positions
    flags: BlockRam<Bits<5>, Q>,
    dl: BlockRam<Bits<33>, Q>,
    pos0: BlockRam<Bits<S>, Q>,
    pos1: BlockRam<Bits<S>, Q>,
    // ---- the lists
    nxt: BlockRam<Bits<N>, N>,
    nxtv: BlockRam<Bit, N>,
    head: BlockRam<Bits<N>, S>,
    headv: BlockRam<Bit, S>,
    out: BramFifo<N, TIMER_EXPIRE_LOG, 5>,

    clr: Reg<Bit>,
    clr_a: Reg<Bits<Q>>,
    // ---- ticks: prescaler, real tick, wheel tick (the slot walked last), wheel tick + 2^S - 1
    pc: Reg<Bits<16>>,
    rt: Reg<Bits<33>>,
    wt: Reg<Bits<33>>,
    wt_far: Reg<Bits<33>>,
    busy: Reg<Bit>,
    wc_v: Reg<Bit>,
    wc: Reg<Bits<N>>,
    // ---- command queue (4 entries): arm (else disarm), kind, QPN, deadline
    cq_arm: Reg<Bits<4>>,
    cq_kind: Reg<Bits<4>>,
    cq_q: [Reg<Bits<Q>>; 4],
    cq_d: [Reg<Bits<33>>; 4],
    cq_rp: Reg<Bits<2>>,
    cq_wp: Reg<Bits<2>>,
    cq_n: Reg<Bits<3>>,
    cq_rdy: Reg<Bit>,
    cq_v: Reg<Bits<4>>,
    dec_v: Reg<Bit>,
    dec_q: Reg<Bits<Q>>,
    // ---- stage B: the word read
    b_walk: Reg<Bit>,
    b_start: Reg<Bit>,
    b_arm: Reg<Bit>,
    b_dis: Reg<Bit>,
    b_q: Reg<Bits<Q>>,
    b_bit: Reg<Bit>,
    b_kind: Reg<Bit>,
    b_d: Reg<Bits<33>>,
    /// A command's deadline less the wheel tick.
    b_dd: Reg<Bits<33>>,
    /// The word is the one written last cycle (`fw_*`), not the RAM's.
    b_fw: Reg<Bit>,
    // ---- stage C: the decision
    c_walk: Reg<Bit>,
    c_start: Reg<Bit>,
    c_arm: Reg<Bit>,
    c_dis: Reg<Bit>,
    c_q: Reg<Bits<Q>>,
    c_bit: Reg<Bit>,
    c_kind: Reg<Bit>,
    c_d: Reg<Bits<33>>,
    c_f: Reg<Bits<5>>,
    c_dl: Reg<Bits<33>>,
    c_p0: Reg<Bits<S>>,
    c_p1: Reg<Bits<S>>,
    /// Node 0 (1), if linked, is in a slot the wheel reaches by the command's deadline.
    c_ok0: Reg<Bit>,
    c_ok1: Reg<Bit>,
    /// Node 0 (1) is linked in an earlier slot than the other.
    c_first0: Reg<Bit>,
    c_first1: Reg<Bit>,
    /// A command's slot to link at.
    c_lp: Reg<Bits<S>>,
    /// A walk step: the deadline is after the wheel tick (`dpos`), less than a turn less one after it (`dnear`).
    c_dpos: Reg<Bit>,
    c_dnear: Reg<Bit>,
    /// The wheel tick's slot, one before it, one after it.
    c_wlow: Reg<Bits<S>>,
    c_wm1: Reg<Bits<S>>,
    c_wp1: Reg<Bits<S>>,
    /// A command for the QP was queued or taken while the step was at B.
    c_hit: Reg<Bit>,
    // ---- stage D: link at the head, or take the whole list
    d_link: Reg<Bit>,
    d_detach: Reg<Bit>,
    d_q: Reg<Bits<Q>>,
    d_bit: Reg<Bit>,
    d_slot: Reg<Bits<S>>,
    /// The head is the one written last cycle (`hw_*`), not the RAM's.
    d_hfw: Reg<Bit>,
    // ---- forwarding: the word and the head written last cycle
    fw_flags: Reg<Bits<5>>,
    fw_dl: Reg<Bits<33>>,
    fw_p0: Reg<Bits<S>>,
    fw_p1: Reg<Bits<S>>,
    hw_head: Reg<Bits<N>>,
    hw_headv: Reg<Bit>,

    // ---- locals: commands
    take_a: Signal<Local, Bit>,
    take_d: Signal<Local, Bit>,
    a_dis: Signal<Local, Bit>,
    tab_i: Signal<Local, Bits<6>>,
    ticks1: Signal<Local, Bits<33>>,
    d_new: Signal<Local, Bits<33>>,
    wp_a: Signal<Local, Bits<2>>,
    arm_bits: Signal<Local, Bits<4>>,
    is_arm: Signal<Local, Bit>,
    v_bits: Signal<Local, Bits<4>>,
    n_in: Signal<Local, Bits<3>>,
    n_out: Signal<Local, Bits<3>>,
    n_lt3: Signal<Local, Bit>,
    n_le3: Signal<Local, Bit>,
    // ---- locals: issue
    room: Signal<Local, Bit>,
    cont_c: Signal<Local, Bit>,
    from_wc_c: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    cmd_c: Signal<Local, Bit>,
    cq_q_rp: Signal<Local, Bits<Q>>,
    cq_d_rp: Signal<Local, Bits<33>>,
    same_b_cmd: Signal<Local, Bit>,
    same_b_wc: Signal<Local, Bit>,
    same_b_nxt: Signal<Local, Bit>,
    same_c: Signal<Local, Bit>,
    b_wr: Signal<Local, Bit>,
    c_wr: Signal<Local, Bit>,
    go_walk: Signal<Local, Bit>,
    go_cmd: Signal<Local, Bit>,
    cont: Signal<Local, Bit>,
    a_node: Signal<Local, Bits<N>>,
    a_q: Signal<Local, Bits<Q>>,
    // ---- locals: stage B
    f: Signal<Local, Bits<5>>,
    f_dl: Signal<Local, Bits<33>>,
    f_p0: Signal<Local, Bits<S>>,
    f_p1: Signal<Local, Bits<S>>,
    wlow: Signal<Local, Bits<S>>,
    wm1: Signal<Local, Bits<S>>,
    wp1: Signal<Local, Bits<S>>,
    w_minus_dl: Signal<Local, Bits<33>>,
    dl_minus_far: Signal<Local, Bits<33>>,
    cmd_pos: Signal<Local, Bit>,
    cmd_far: Signal<Local, Bit>,
    cmd_big: Signal<Local, Bit>,
    rel0: Signal<Local, Bits<S>>,
    rel1: Signal<Local, Bits<S>>,
    d_slot_b: Signal<Local, Bits<S>>,
    wrap: Signal<Local, Bit>,
    in0: Signal<Local, Bit>,
    in1: Signal<Local, Bit>,
    in0_fw: Signal<Local, Bit>,
    in1_fw: Signal<Local, Bit>,
    at0: Signal<Local, Bit>,
    at1: Signal<Local, Bit>,
    hit_b: Signal<Local, Bit>,
    // ---- locals: stage C
    ok_cur: Signal<Local, Bit>,
    ok_oth: Signal<Local, Bit>,
    lk_cur: Signal<Local, Bit>,
    lk_oth: Signal<Local, Bit>,
    oth_first: Signal<Local, Bit>,
    nc: Signal<Local, Bit>,
    link: Signal<Local, Bit>,
    is_cur: Signal<Local, Bit>,
    due_now: Signal<Local, Bit>,
    hit: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    lp: Signal<Local, Bits<S>>,
    nf: Signal<Local, Bits<5>>,
    np0: Signal<Local, Bits<S>>,
    np1: Signal<Local, Bits<S>>,
    wr_word: Signal<Local, Bit>,
    dl_w: Signal<Local, Bits<33>>,
    hslot: Signal<Local, Bits<S>>,
    // ---- locals: stage D
    hd: Signal<Local, Bits<N>>,
    hdv: Signal<Local, Bit>,
    d_node: Signal<Local, Bits<N>>,
    wr_head: Signal<Local, Bit>,
    hw_data: Signal<Local, Bits<N>>,
    hw_datav: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const Q: usize, const N: usize, const S: usize> Default for RetryTimer<Q, N, S> {
    fn default() -> Self {
        assert_eq!(N, Q + 1, "a node is a QPN and one bit");
        assert!(S <= Q && S >= 2, "the wheel is cleared with the QP RAM");
        assert!(Q <= 20);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tick_m1: Default::default(),
            s_arm: Default::default(),
            s_disarm: Default::default(),
            m_expire: Default::default(),
            init: Default::default(),
            decided_valid: Default::default(),
            decided_qpn: Default::default(),
            ticks_tab: Constant::new(ticks_table()),
            turn_m1: Constant::new(((1u64 << S) - 1).into()),
            room_max: Constant::new(TIMER_ROOM_MAX.into()),
            flags: Default::default(),
            dl: Default::default(),
            pos0: Default::default(),
            pos1: Default::default(),
            nxt: Default::default(),
            nxtv: Default::default(),
            head: Default::default(),
            headv: Default::default(),
            out: Default::default(),
            clr: Default::default(),
            clr_a: Default::default(),
            pc: Default::default(),
            rt: Default::default(),
            wt: Default::default(),
            wt_far: Default::default(),
            busy: Default::default(),
            wc_v: Default::default(),
            wc: Default::default(),
            cq_arm: Default::default(),
            cq_kind: Default::default(),
            cq_q: Default::default(),
            cq_d: Default::default(),
            cq_rp: Default::default(),
            cq_wp: Default::default(),
            cq_n: Default::default(),
            cq_rdy: Default::default(),
            cq_v: Default::default(),
            dec_v: Default::default(),
            dec_q: Default::default(),
            b_walk: Default::default(),
            b_start: Default::default(),
            b_arm: Default::default(),
            b_dis: Default::default(),
            b_q: Default::default(),
            b_bit: Default::default(),
            b_kind: Default::default(),
            b_d: Default::default(),
            b_dd: Default::default(),
            b_fw: Default::default(),
            c_walk: Default::default(),
            c_start: Default::default(),
            c_arm: Default::default(),
            c_dis: Default::default(),
            c_q: Default::default(),
            c_bit: Default::default(),
            c_kind: Default::default(),
            c_d: Default::default(),
            c_f: Default::default(),
            c_dl: Default::default(),
            c_p0: Default::default(),
            c_p1: Default::default(),
            c_ok0: Default::default(),
            c_ok1: Default::default(),
            c_first0: Default::default(),
            c_first1: Default::default(),
            c_lp: Default::default(),
            c_dpos: Default::default(),
            c_dnear: Default::default(),
            c_wlow: Default::default(),
            c_wm1: Default::default(),
            c_wp1: Default::default(),
            c_hit: Default::default(),
            d_link: Default::default(),
            d_detach: Default::default(),
            d_q: Default::default(),
            d_bit: Default::default(),
            d_slot: Default::default(),
            d_hfw: Default::default(),
            fw_flags: Default::default(),
            fw_dl: Default::default(),
            fw_p0: Default::default(),
            fw_p1: Default::default(),
            hw_head: Default::default(),
            hw_headv: Default::default(),
            take_a: Default::default(),
            take_d: Default::default(),
            a_dis: Default::default(),
            tab_i: Default::default(),
            ticks1: Default::default(),
            d_new: Default::default(),
            wp_a: Default::default(),
            arm_bits: Default::default(),
            is_arm: Default::default(),
            v_bits: Default::default(),
            n_in: Default::default(),
            n_out: Default::default(),
            n_lt3: Default::default(),
            n_le3: Default::default(),
            room: Default::default(),
            cont_c: Default::default(),
            from_wc_c: Default::default(),
            start: Default::default(),
            cmd_c: Default::default(),
            cq_q_rp: Default::default(),
            cq_d_rp: Default::default(),
            same_b_cmd: Default::default(),
            same_b_wc: Default::default(),
            same_b_nxt: Default::default(),
            same_c: Default::default(),
            b_wr: Default::default(),
            c_wr: Default::default(),
            go_walk: Default::default(),
            go_cmd: Default::default(),
            cont: Default::default(),
            a_node: Default::default(),
            a_q: Default::default(),
            f: Default::default(),
            f_dl: Default::default(),
            f_p0: Default::default(),
            f_p1: Default::default(),
            wlow: Default::default(),
            wm1: Default::default(),
            wp1: Default::default(),
            w_minus_dl: Default::default(),
            dl_minus_far: Default::default(),
            cmd_pos: Default::default(),
            cmd_far: Default::default(),
            cmd_big: Default::default(),
            rel0: Default::default(),
            rel1: Default::default(),
            d_slot_b: Default::default(),
            wrap: Default::default(),
            in0: Default::default(),
            in1: Default::default(),
            in0_fw: Default::default(),
            in1_fw: Default::default(),
            at0: Default::default(),
            at1: Default::default(),
            hit_b: Default::default(),
            ok_cur: Default::default(),
            ok_oth: Default::default(),
            lk_cur: Default::default(),
            lk_oth: Default::default(),
            oth_first: Default::default(),
            nc: Default::default(),
            link: Default::default(),
            is_cur: Default::default(),
            due_now: Default::default(),
            hit: Default::default(),
            fire: Default::default(),
            lp: Default::default(),
            nf: Default::default(),
            np0: Default::default(),
            np1: Default::default(),
            wr_word: Default::default(),
            dl_w: Default::default(),
            hslot: Default::default(),
            hd: Default::default(),
            hdv: Default::default(),
            d_node: Default::default(),
            wr_head: Default::default(),
            hw_data: Default::default(),
            hw_datav: Default::default(),
            kind: Default::default(),
        }
    }
}

impl<const Q: usize, const N: usize, const S: usize> Logic for RetryTimer<Q, N, S> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, clr, clr_a, pc, rt, wt, wt_far, busy, wc_v, wc, cq_arm, cq_kind, cq_rp, cq_wp, cq_n, cq_rdy,
            cq_v, dec_v, dec_q, b_walk, b_start, b_arm, b_dis, b_q, b_bit, b_kind, b_d, b_dd, b_fw, c_walk, c_start,
            c_arm, c_dis, c_q, c_bit, c_kind, c_d, c_f, c_dl, c_p0, c_p1, c_ok0, c_ok1, c_first0, c_first1, c_lp,
            c_dpos, c_dnear, c_wlow, c_wm1, c_wp1, c_hit, d_link, d_detach, d_q, d_bit, d_slot, d_hfw, fw_flags, fw_dl,
            fw_p0, fw_p1, hw_head, hw_headv
        );
        clock!(self, clock, flags, dl, pos0, pos1, nxt, nxtv, head, headv, out);
        self.out.reset.next = self.reset.val();
        for k in 0..4 {
            self.cq_q[k].clock.next = self.clock.val();
            self.cq_q[k].d.next = self.cq_q[k].q.val();
            self.cq_d[k].clock.next = self.clock.val();
            self.cq_d[k].d.next = self.cq_d[k].q.val();
        }

        // ================= ticks =================
        self.pc.d.next = self.pc.q.val() + 1;
        if self.pc.q.val() == self.tick_m1.val() {
            self.pc.d.next = 0.into();
            self.rt.d.next = self.rt.q.val() + 1;
        }
        if self.clr.q.val() {
            self.pc.d.next = 0.into();
            self.rt.d.next = 0.into();
        }

        // ================= commands: a 4-entry queue, deadlines fixed when taken =================
        self.s_arm.ready.next = self.cq_rdy.q.val();
        self.s_disarm.ready.next = self.cq_rdy.q.val();
        self.take_a.next = self.s_arm.valid.val() & self.cq_rdy.q.val();
        self.take_d.next = self.s_disarm.valid.val() & self.cq_rdy.q.val();
        self.tab_i.next = bit_cast::<6, 5>(self.s_arm.code.val());
        if self.s_arm.kind.val() {
            self.tab_i.next = self.tab_i.val() | 32;
        }
        self.ticks1.next = bit_cast::<33, 32>(self.ticks_tab.val().get_bits::<32>(self.tab_i.val().index() * 32));
        self.a_dis.next = !self.ticks1.val().any();
        self.d_new.next = self.rt.q.val() + self.ticks1.val();
        self.wp_a.next = self.cq_wp.q.val();
        if self.take_d.val() {
            self.wp_a.next = self.cq_wp.q.val() + 1;
        }
        self.arm_bits.next = self.cq_arm.q.val();
        self.v_bits.next = self.cq_v.q.val();
        for k in 0..4 {
            if self.take_d.val() & (self.cq_wp.q.val().index() == k) {
                self.arm_bits.next = self.arm_bits.val().replace_bit(k, false);
                self.v_bits.next = self.v_bits.val().replace_bit(k, true);
                self.cq_q[k].d.next = self.s_disarm.qpn.val();
            }
        }
        for k in 0..4 {
            if self.take_a.val() & (self.wp_a.val().index() == k) {
                self.arm_bits.next = self.arm_bits.val().replace_bit(k, !self.a_dis.val());
                self.v_bits.next = self.v_bits.val().replace_bit(k, true);
                self.cq_kind.d.next = self.cq_kind.q.val().replace_bit(k, self.s_arm.kind.val());
                self.cq_q[k].d.next = self.s_arm.qpn.val();
                self.cq_d[k].d.next = self.d_new.val();
            }
        }
        self.cq_arm.d.next = self.arm_bits.val();
        self.cq_wp.d.next = self.wp_a.val();
        if self.take_a.val() {
            self.cq_wp.d.next = self.wp_a.val() + 1;
        }

        // ================= A: issue a walk step, a slot start or a command =================
        // Candidates in priority order; an operation on the QP of the one
        // now at B waits a cycle (it then takes that word forwarded at B).
        self.room.next = self.out.count.val() <= self.room_max.val();
        self.cont_c.next = self.b_walk.q.val() & self.nxtv.read_data.val() & self.room.val();
        self.from_wc_c.next = !self.cont_c.val() & self.wc_v.q.val() & self.room.val();
        self.start.next = !self.cont_c.val()
            & !self.wc_v.q.val()
            & !self.busy.q.val()
            & !self.clr.q.val()
            & (self.wt.q.val() != self.rt.q.val());
        self.cmd_c.next = !self.cont_c.val()
            & !self.from_wc_c.val()
            & !self.start.val()
            & self.cq_n.q.val().any()
            & !self.clr.q.val();
        self.cq_q_rp.next = self.cq_q[0].q.val();
        self.cq_d_rp.next = self.cq_d[0].q.val();
        self.b_kind.d.next = self.cq_kind.q.val().get_bit(0);
        self.is_arm.next = self.cq_arm.q.val().get_bit(0);
        for k in 1..4 {
            if self.cq_rp.q.val().index() == k {
                self.cq_q_rp.next = self.cq_q[k].q.val();
                self.cq_d_rp.next = self.cq_d[k].q.val();
                self.b_kind.d.next = self.cq_kind.q.val().get_bit(k);
                self.is_arm.next = self.cq_arm.q.val().get_bit(k);
            }
        }
        self.b_wr.next = self.b_walk.q.val() | self.b_arm.q.val() | self.b_dis.q.val();
        self.c_wr.next = self.c_walk.q.val() | self.c_arm.q.val() | self.c_dis.q.val();
        // the QPN compares run beside the choice, each on its own source
        self.same_b_cmd.next = self.b_wr.val() & (self.cq_q_rp.val() == self.b_q.q.val());
        self.same_b_wc.next = self.b_wr.val() & (self.wc.q.val().get_bits::<Q>(1) == self.b_q.q.val());
        self.same_b_nxt.next = self.nxt.read_data.val().get_bits::<Q>(1) == self.b_q.q.val();
        self.same_c.next = self.c_wr.val() & (self.cq_q_rp.val() == self.c_q.q.val());
        self.a_node.next = self.wc.q.val();
        self.a_q.next = self.cq_q_rp.val();
        if self.from_wc_c.val() {
            self.a_q.next = self.wc.q.val().get_bits::<Q>(1);
            self.same_c.next = self.c_wr.val() & (self.wc.q.val().get_bits::<Q>(1) == self.c_q.q.val());
        }
        if self.cont_c.val() {
            self.a_node.next = self.nxt.read_data.val();
            self.a_q.next = self.nxt.read_data.val().get_bits::<Q>(1);
            self.same_c.next = self.c_wr.val() & (self.nxt.read_data.val().get_bits::<Q>(1) == self.c_q.q.val());
        }
        self.cont.next = self.cont_c.val() & !self.same_b_nxt.val();
        self.go_walk.next = self.cont.val() | (self.from_wc_c.val() & !self.same_b_wc.val());
        self.go_cmd.next = self.cmd_c.val() & !self.same_b_cmd.val();
        for k in 0..4 {
            if self.go_cmd.val() & (self.cq_rp.q.val().index() == k) {
                self.v_bits.next = self.v_bits.val().replace_bit(k, false);
            }
        }
        self.cq_v.d.next = self.v_bits.val();
        self.flags.read_addr.next = self.a_q.val();
        self.dl.read_addr.next = self.a_q.val();
        self.pos0.read_addr.next = self.a_q.val();
        self.pos1.read_addr.next = self.a_q.val();
        self.nxt.read_addr.next = self.a_node.val();
        self.nxtv.read_addr.next = self.a_node.val();
        self.b_walk.d.next = self.go_walk.val();
        self.b_start.d.next = self.start.val();
        self.b_arm.d.next = self.go_cmd.val() & self.is_arm.val();
        self.b_dis.d.next = self.go_cmd.val() & !self.is_arm.val();
        self.b_q.d.next = self.a_q.val();
        self.b_bit.d.next = self.a_node.val().get_bit(0);
        self.b_d.d.next = self.cq_d_rp.val();
        self.b_dd.d.next = self.cq_d_rp.val() - self.wt.q.val();
        self.b_fw.d.next = self.same_c.val();
        if self.start.val() {
            self.wt.d.next = self.wt.q.val() + 1;
            self.wt_far.d.next = self.wt_far.q.val() + 1;
            self.busy.d.next = true;
        }
        if self.from_wc_c.val() & !self.same_b_wc.val() {
            self.wc_v.d.next = false;
        }
        // the queue's count: the commands taken, less the one issued; ready
        // while two more fit (both ports may take one). Both outcomes are
        // summed before the issue is known.
        self.n_in.next = self.cq_n.q.val();
        if self.take_d.val() {
            self.n_in.next = self.n_in.val() + 1;
        }
        if self.take_a.val() {
            self.n_in.next = self.n_in.val() + 1;
        }
        self.n_out.next = self.n_in.val() - 1;
        // fewer than 3 after the takes (no issue), at most 3 (an issue): as
        // logic of the count and the two takes, not through the adders
        self.n_lt3.next = (self.cq_n.q.val() == 0)
            | ((self.cq_n.q.val() == 1) & !(self.take_a.val() & self.take_d.val()))
            | ((self.cq_n.q.val() == 2) & !self.take_a.val() & !self.take_d.val());
        self.n_le3.next = (self.cq_n.q.val() == 0)
            | (self.cq_n.q.val() == 1)
            | ((self.cq_n.q.val() == 2) & !(self.take_a.val() & self.take_d.val()))
            | ((self.cq_n.q.val() == 3) & !self.take_a.val() & !self.take_d.val());
        self.cq_n.d.next = self.n_in.val();
        self.cq_rdy.d.next = self.n_lt3.val();
        if self.go_cmd.val() {
            self.cq_rp.d.next = self.cq_rp.q.val() + 1;
            self.cq_n.d.next = self.n_out.val();
            self.cq_rdy.d.next = self.n_le3.val();
        }

        // ================= B: the QP's word (forwarded), deadlines against the wheel =================
        self.f.next = self.flags.read_data.val();
        self.f_dl.next = self.dl.read_data.val();
        self.f_p0.next = self.pos0.read_data.val();
        self.f_p1.next = self.pos1.read_data.val();
        if self.b_fw.q.val() {
            self.f.next = self.fw_flags.q.val();
            self.f_dl.next = self.fw_dl.q.val();
            self.f_p0.next = self.fw_p0.q.val();
            self.f_p1.next = self.fw_p1.q.val();
        }
        self.wlow.next = self.wt.q.val().get_bits::<S>(0);
        self.wm1.next = self.wlow.val() - 1;
        self.wp1.next = self.wlow.val() + 1;
        // a walk step: its deadline after the wheel tick (wt - dl < 0), a turn or more after it
        self.w_minus_dl.next = self.wt.q.val() - self.f_dl.val();
        self.dl_minus_far.next = self.f_dl.val() - self.wt_far.q.val();
        // a command: dd = its deadline less the wheel tick, from A; the slot to link at
        self.cmd_pos.next = !self.b_dd.q.val().get_bit(32) & self.b_dd.q.val().any();
        self.cmd_far.next = self.b_dd.q.val() >= self.turn_m1.val();
        self.cmd_big.next = self.b_dd.q.val() > self.turn_m1.val();
        self.c_lp.d.next = self.wp1.val();
        if self.cmd_pos.val() {
            self.c_lp.d.next = self.b_d.q.val().get_bits::<S>(0);
            if self.cmd_far.val() {
                self.c_lp.d.next = self.wm1.val();
            }
        }
        // each node's slot against the wheel: reached by the deadline? Within
        // a turn that is the slot in the cyclic window from the wheel's slot
        // to the deadline's (compared directly, not through `rel`)
        self.rel0.next = self.f_p0.val() - self.wlow.val();
        self.rel1.next = self.f_p1.val() - self.wlow.val();
        self.d_slot_b.next = self.b_d.q.val().get_bits::<S>(0);
        self.wrap.next = self.d_slot_b.val() < self.wlow.val();
        // (on the RAM's word and on the forwarded one, chosen after)
        self.in0.next =
            (self.pos0.read_data.val() >= self.wlow.val()) & (self.pos0.read_data.val() <= self.d_slot_b.val());
        self.in1.next =
            (self.pos1.read_data.val() >= self.wlow.val()) & (self.pos1.read_data.val() <= self.d_slot_b.val());
        self.in0_fw.next = (self.fw_p0.q.val() >= self.wlow.val()) & (self.fw_p0.q.val() <= self.d_slot_b.val());
        self.in1_fw.next = (self.fw_p1.q.val() >= self.wlow.val()) & (self.fw_p1.q.val() <= self.d_slot_b.val());
        if self.wrap.val() {
            self.in0.next =
                (self.pos0.read_data.val() >= self.wlow.val()) | (self.pos0.read_data.val() <= self.d_slot_b.val());
            self.in1.next =
                (self.pos1.read_data.val() >= self.wlow.val()) | (self.pos1.read_data.val() <= self.d_slot_b.val());
            self.in0_fw.next = (self.fw_p0.q.val() >= self.wlow.val()) | (self.fw_p0.q.val() <= self.d_slot_b.val());
            self.in1_fw.next = (self.fw_p1.q.val() >= self.wlow.val()) | (self.fw_p1.q.val() <= self.d_slot_b.val());
        }
        self.at0.next = self.pos0.read_data.val() == self.wlow.val();
        self.at1.next = self.pos1.read_data.val() == self.wlow.val();
        if self.b_fw.q.val() {
            self.in0.next = self.in0_fw.val();
            self.in1.next = self.in1_fw.val();
            self.at0.next = self.fw_p0.q.val() == self.wlow.val();
            self.at1.next = self.fw_p1.q.val() == self.wlow.val();
        }
        self.c_ok0.d.next = (self.cmd_pos.val() & (self.cmd_big.val() | self.in0.val())) | self.at0.val();
        self.c_ok1.d.next = (self.cmd_pos.val() & (self.cmd_big.val() | self.in1.val())) | self.at1.val();
        self.c_first0.d.next = self.rel0.val() < self.rel1.val();
        self.c_first1.d.next = self.rel1.val() < self.rel0.val();
        self.c_dpos.d.next = self.w_minus_dl.val().get_bit(32);
        self.c_dnear.d.next = self.dl_minus_far.val().get_bit(32);
        self.c_wlow.d.next = self.wlow.val();
        self.c_wm1.d.next = self.wm1.val();
        self.c_wp1.d.next = self.wp1.val();
        // commands for the QP queued or taken by now supersede a due arming
        self.hit_b.next = (self.take_a.val() & (self.s_arm.qpn.val() == self.b_q.q.val()))
            | (self.take_d.val() & (self.s_disarm.qpn.val() == self.b_q.q.val()));
        for k in 0..4 {
            if self.cq_v.q.val().get_bit(k) & (self.cq_q[k].q.val() == self.b_q.q.val()) {
                self.hit_b.next = true;
            }
        }
        self.c_hit.d.next = self.hit_b.val();
        self.c_walk.d.next = self.b_walk.q.val();
        self.c_start.d.next = self.b_start.q.val();
        self.c_arm.d.next = self.b_arm.q.val();
        self.c_dis.d.next = self.b_dis.q.val();
        self.c_q.d.next = self.b_q.q.val();
        self.c_bit.d.next = self.b_bit.q.val();
        self.c_kind.d.next = self.b_kind.q.val();
        self.c_d.d.next = self.b_d.q.val();
        self.c_f.d.next = self.f.val();
        self.c_dl.d.next = self.f_dl.val();
        self.c_p0.d.next = self.f_p0.val();
        self.c_p1.d.next = self.f_p1.val();
        // the walk goes on with the node's next pointer, or keeps it in `wc`
        if self.b_walk.q.val() {
            if !self.nxtv.read_data.val() {
                self.busy.d.next = false;
            }
            if self.nxtv.read_data.val() & !self.cont.val() {
                self.wc_v.d.next = true;
                self.wc.d.next = self.nxt.read_data.val();
            }
        }

        // ================= C: decide, write the word, read the head =================
        // an arming: keep the current node, link it, or switch to the other
        self.ok_cur.next = self.c_f.q.val().get_bit(3) & self.c_ok0.q.val();
        self.ok_oth.next = self.c_f.q.val().get_bit(4) & self.c_ok1.q.val();
        self.lk_cur.next = self.c_f.q.val().get_bit(3);
        self.lk_oth.next = self.c_f.q.val().get_bit(4);
        self.oth_first.next = self.c_first1.q.val();
        if self.c_f.q.val().get_bit(2) {
            self.ok_cur.next = self.c_f.q.val().get_bit(4) & self.c_ok1.q.val();
            self.ok_oth.next = self.c_f.q.val().get_bit(3) & self.c_ok0.q.val();
            self.lk_cur.next = self.c_f.q.val().get_bit(4);
            self.lk_oth.next = self.c_f.q.val().get_bit(3);
            self.oth_first.next = self.c_first0.q.val();
        }
        self.nc.next = self.c_f.q.val().get_bit(2);
        self.link.next = false;
        if !self.ok_cur.val() {
            if self.ok_oth.val() {
                self.nc.next = !self.c_f.q.val().get_bit(2);
            } else if !self.lk_cur.val() {
                self.link.next = true;
            } else if !self.lk_oth.val() {
                self.nc.next = !self.c_f.q.val().get_bit(2);
                self.link.next = true;
            } else if self.oth_first.val() {
                self.nc.next = !self.c_f.q.val().get_bit(2);
            }
        }
        // a walk step: the node is current and armed: fire or re-link; else drop
        self.is_cur.next = self.c_f.q.val().get_bit(0) & (self.c_f.q.val().get_bit(2) == self.c_bit.q.val());
        self.due_now.next = self.c_walk.q.val() & self.is_cur.val() & !self.c_dpos.q.val();
        // a command for the QP taken by now (queued, or on an input this
        // cycle) supersedes the arming: it is dropped without an expiry
        self.hit.next = self.c_hit.q.val()
            | (self.take_a.val() & (self.s_arm.qpn.val() == self.c_q.q.val()))
            | (self.take_d.val() & (self.s_disarm.qpn.val() == self.c_q.q.val()));
        self.fire.next = self.due_now.val() & !self.hit.val();
        self.dec_v.d.next = self.fire.val();
        self.dec_q.d.next = self.c_q.q.val();
        self.decided_valid.next = self.dec_v.q.val();
        self.decided_qpn.next = self.dec_q.q.val();
        // the slot to link at: a command's from B, a walk step's here
        self.lp.next = self.c_lp.q.val();
        if self.c_walk.q.val() {
            self.lp.next = self.c_dl.q.val().get_bits::<S>(0);
            if !self.c_dnear.q.val() {
                self.lp.next = self.c_wm1.q.val();
            }
        }
        self.nf.next = self.c_f.q.val();
        self.np0.next = self.c_p0.q.val();
        self.np1.next = self.c_p1.q.val();
        self.d_link.d.next = false;
        self.d_bit.d.next = self.c_bit.q.val();
        if self.c_arm.q.val() {
            self.nf.next = self.nf.val().replace_bit(0, true);
            self.nf.next = self.nf.val().replace_bit(1, self.c_kind.q.val());
            self.nf.next = self.nf.val().replace_bit(2, self.nc.val());
            self.d_bit.d.next = self.nc.val();
            if self.link.val() {
                self.d_link.d.next = true;
                if self.nc.val() {
                    self.nf.next = self.nf.val().replace_bit(4, true);
                    self.np1.next = self.lp.val();
                } else {
                    self.nf.next = self.nf.val().replace_bit(3, true);
                    self.np0.next = self.lp.val();
                }
            }
        }
        if self.c_dis.q.val() {
            self.nf.next = self.nf.val().replace_bit(0, false);
        }
        if self.c_walk.q.val() {
            if self.due_now.val() {
                self.nf.next = self.nf.val().replace_bit(0, false);
            }
            if self.is_cur.val() & self.c_dpos.q.val() {
                self.d_link.d.next = true;
                if self.c_bit.q.val() {
                    self.np1.next = self.lp.val();
                } else {
                    self.np0.next = self.lp.val();
                }
            } else if self.c_bit.q.val() {
                self.nf.next = self.nf.val().replace_bit(4, false);
            } else {
                self.nf.next = self.nf.val().replace_bit(3, false);
            }
        }
        self.wr_word.next = self.c_wr.val();
        self.dl_w.next = self.c_dl.q.val();
        if self.c_arm.q.val() {
            self.dl_w.next = self.c_d.q.val();
        }
        self.flags.write_addr.next = self.c_q.q.val();
        self.flags.write_data.next = self.nf.val();
        self.dl.write_addr.next = self.c_q.q.val();
        self.dl.write_data.next = self.dl_w.val();
        self.pos0.write_addr.next = self.c_q.q.val();
        self.pos0.write_data.next = self.np0.val();
        self.pos1.write_addr.next = self.c_q.q.val();
        self.pos1.write_data.next = self.np1.val();
        self.fw_flags.d.next = self.nf.val();
        self.fw_dl.d.next = self.dl_w.val();
        self.fw_p0.d.next = self.np0.val();
        self.fw_p1.d.next = self.np1.val();
        self.out.push.next = self.fire.val();
        self.out.push_data.next =
            (bit_cast::<N, Q>(self.c_q.q.val()) << 1) | bit_cast::<N, 1>(self.c_f.q.val().get_bit(1).into());
        // the head of the slot to link into (or to start)
        self.hslot.next = self.lp.val();
        if self.c_start.q.val() {
            self.hslot.next = self.c_wlow.q.val();
        }
        self.head.read_addr.next = self.hslot.val();
        self.headv.read_addr.next = self.hslot.val();
        self.d_detach.d.next = self.c_start.q.val();
        self.d_q.d.next = self.c_q.q.val();
        self.d_slot.d.next = self.hslot.val();
        self.wr_head.next = self.d_link.q.val() | self.d_detach.q.val();
        self.d_hfw.d.next = self.wr_head.val() & (self.d_slot.q.val() == self.hslot.val());

        // ================= D: link the node at the head, or take the whole list =================
        self.hd.next = self.head.read_data.val();
        self.hdv.next = self.headv.read_data.val();
        if self.d_hfw.q.val() {
            self.hd.next = self.hw_head.q.val();
            self.hdv.next = self.hw_headv.q.val();
        }
        self.d_node.next = (bit_cast::<N, Q>(self.d_q.q.val()) << 1) | bit_cast::<N, 1>(self.d_bit.q.val().into());
        self.nxt.write_addr.next = self.d_node.val();
        self.nxt.write_data.next = self.hd.val();
        self.nxt.write_enable.next = self.d_link.q.val();
        self.nxtv.write_addr.next = self.d_node.val();
        self.nxtv.write_data.next = self.hdv.val();
        self.nxtv.write_enable.next = self.d_link.q.val();
        self.hw_data.next = self.d_node.val();
        self.hw_datav.next = true;
        if self.d_detach.q.val() {
            self.hw_data.next = self.hd.val();
            self.hw_datav.next = false;
            self.wc_v.d.next = self.hdv.val();
            self.wc.d.next = self.hd.val();
            if !self.hdv.val() {
                self.busy.d.next = false;
            }
        }
        self.head.write_addr.next = self.d_slot.q.val();
        self.head.write_data.next = self.hw_data.val();
        self.head.write_enable.next = self.wr_head.val();
        self.headv.write_addr.next = self.d_slot.q.val();
        self.headv.write_data.next = self.hw_datav.val();
        self.headv.write_enable.next = self.wr_head.val();
        self.hw_head.d.next = self.hw_data.val();
        self.hw_headv.d.next = self.hw_datav.val();

        // the QP word is written by every command and walk step
        self.flags.write_enable.next = self.wr_word.val();
        self.dl.write_enable.next = self.wr_word.val();
        self.pos0.write_enable.next = self.wr_word.val();
        self.pos1.write_enable.next = self.wr_word.val();

        // ================= expiries =================
        self.out.m_ready.next = self.m_expire.ready.val();
        self.m_expire.valid.next = self.out.m_valid.val();
        self.m_expire.qpn.next = self.out.m_data.val().get_bits::<Q>(1);
        self.m_expire.kind.next = self.out.m_data.val().get_bit(0);

        // ================= clearing after reset =================
        if self.clr.q.val() {
            self.flags.write_addr.next = self.clr_a.q.val();
            self.flags.write_data.next = 0.into();
            self.flags.write_enable.next = true;
            self.headv.write_addr.next = self.clr_a.q.val().get_bits::<S>(0);
            self.headv.write_data.next = false;
            self.headv.write_enable.next = true;
            self.clr_a.d.next = self.clr_a.q.val() + 1;
            self.cq_rdy.d.next = false;
            if self.clr_a.q.val().all() {
                self.clr.d.next = false;
                self.cq_rdy.d.next = true;
            }
        }
        self.init.next = self.clr.q.val();

        if self.reset.val() {
            self.clr.d.next = true;
            self.clr_a.d.next = 0.into();
            self.pc.d.next = 0.into();
            self.rt.d.next = 0.into();
            self.wt.d.next = 0.into();
            self.wt_far.d.next = self.turn_m1.val();
            self.busy.d.next = false;
            self.wc_v.d.next = false;
            self.cq_rp.d.next = 0.into();
            self.cq_wp.d.next = 0.into();
            self.cq_n.d.next = 0.into();
            self.cq_rdy.d.next = false;
            self.cq_v.d.next = 0.into();
            self.dec_v.d.next = false;
            self.b_walk.d.next = false;
            self.b_start.d.next = false;
            self.b_arm.d.next = false;
            self.b_dis.d.next = false;
            self.b_fw.d.next = false;
            self.c_walk.d.next = false;
            self.c_start.d.next = false;
            self.c_arm.d.next = false;
            self.c_dis.d.next = false;
            self.d_link.d.next = false;
            self.d_detach.d.next = false;
            self.d_hfw.d.next = false;
        }
    }
}
