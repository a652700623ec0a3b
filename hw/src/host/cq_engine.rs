//! `CqEngine`: writes CQEs into host CQ rings and raises their interrupts.
//!
//! Per CQ (block RAM indexed by CQN, loaded from the CQ context): ring
//! base and size, PROD, CONS, arming, moderation, MSI-X vector. A CQE
//! request (`s_cqe`: CQN, the 32-byte entry, whether it is solicited)
//! becomes one DMA write at slot PROD mod size with the owner bit the
//! contract gives PROD (`ring::owner_for`), then PROD advances. A full ring
//! sets the CQ's OVERRUN flag and raises `events.CQ_OVERRUN`; the CQ takes
//! nothing more.
//!
//! Interrupts (the contract's "once per CqArm"): an armed CQ interrupts
//! after MOD_COUNT completions or MOD_TIME_US after the first, whichever
//! comes first (context values, 0 meaning the `irq_moderation` defaults);
//! armed for solicited only, on a solicited or error completion; arming
//! while CQEs are unpolled (PROD != the doorbell's CONS) interrupts at
//! once. Every interrupt waits until the CQE writes before it are done, so
//! the driver never takes an interrupt before the entry it announces.
//!
//! Moderation timers: a CQ that needs one enters a FIFO (block RAM) with its
//! deadline (in microseconds, rounded up so it never fires early); the head
//! is checked each cycle and, if not due, moves to the tail. With N CQs
//! waiting, a timer fires at most max(N, [`BRAM_FIFO_LATENCY`](crate::prim::BRAM_FIFO_LATENCY)) cycles
//! late, plus 5 cycles from the head to `m_irq`, and no cycle ever walks the CQ table.
//!
//! One event per cycle enters a three-stage read-modify-write (setup >
//! query > doorbell > timer > CQE): A presents the CQN to the RAMs, B has
//! their words, C modifies the dynamic word (PROD, PROD - CONS, flags,
//! completions since the last interrupt) and writes it back. An event whose
//! CQ is one or two events behind another takes that event's written word
//! instead of the RAM's (forwarding), so CQEs, doorbells and timers on one
//! CQ in consecutive cycles act in order. A setup writes the static word
//! (base, size, vector, moderation, live) at A and the dynamic one at C.
//! CQEs wait in a 32-place LUTRAM queue; each leaves a command (its write,
//! or a drop) for the write stage, which pairs it with the entry and drives
//! `m_wr` from registers. Every `ready` comes from a register.

use super::{DoorbellIn, IrqOut, WrStreamOut};
use crate::axis::AxisFifo;
use crate::consts::*;
use crate::prim::{BlockRam, BramFifo, LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Ask an engine for one entry's state (Store); the answer comes back as a
/// one-cycle pulse on the engine's `query_*` outputs.
#[derive(LogicInterface, Default)]
#[join = "QueryIn"]
pub struct QueryOut {
    pub index: Signal<Out, Bits<24>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "QueryOut"]
pub struct QueryIn {
    pub index: Signal<In, Bits<24>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A CQ's context (`live` 0 invalidates it).
#[derive(LogicInterface, Default)]
#[join = "CqSetupIn"]
pub struct CqSetupOut {
    pub cqn: Signal<Out, Bits<24>>,
    pub base: Signal<Out, Bits<64>>,
    pub log: Signal<Out, Bits<4>>,
    pub prod: Signal<Out, Bits<16>>,
    pub cons: Signal<Out, Bits<16>>,
    pub armed: Signal<Out, Bit>,
    pub solicited: Signal<Out, Bit>,
    pub overrun: Signal<Out, Bit>,
    pub vector: Signal<Out, Bits<16>>,
    pub mod_count: Signal<Out, Bits<16>>,
    pub mod_time: Signal<Out, Bits<16>>,
    pub live: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "CqSetupOut"]
pub struct CqSetupIn {
    pub cqn: Signal<In, Bits<24>>,
    pub base: Signal<In, Bits<64>>,
    pub log: Signal<In, Bits<4>>,
    pub prod: Signal<In, Bits<16>>,
    pub cons: Signal<In, Bits<16>>,
    pub armed: Signal<In, Bit>,
    pub solicited: Signal<In, Bit>,
    pub overrun: Signal<In, Bit>,
    pub vector: Signal<In, Bits<16>>,
    pub mod_count: Signal<In, Bits<16>>,
    pub mod_time: Signal<In, Bits<16>>,
    pub live: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A completion to post: the 32-byte CQE (owner bit ignored) for CQ `cqn`.
#[derive(LogicInterface, Default)]
#[join = "CqeIn"]
pub struct CqeOut {
    pub cqn: Signal<Out, Bits<24>>,
    pub data: Signal<Out, Bits<256>>,
    pub solicited: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "CqeOut"]
pub struct CqeIn {
    pub cqn: Signal<In, Bits<24>>,
    pub data: Signal<In, Bits<256>>,
    pub solicited: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// log2 of the CQE queue (LUTRAM): CQEs taken on `s_cqe` whose DMA write
/// is not yet issued. The write-command FIFO holds as many, so every CQE
/// in the queue has a place in it (one command per CQE, issued or dropped).
const CQE_Q_LOG: usize = 5;
/// log2 of the moderation timers' FIFO (block RAM): one place per CQ.
const TIMER_LOG: usize = LOG_CQS;
/// A CQE that may start a timer is admitted only while the timers' FIFO
/// holds fewer than `2^TIMER_LOG - TIMER_MARGIN` (the literal in `update`);
/// at most 5 starts (stages A, B, C, the push register, the stale
/// `tmr_room`) can be on their way past that check.
const TIMER_MARGIN: usize = 8;
const _: () = assert!(TIMER_MARGIN >= 5 && (1 << TIMER_LOG) - TIMER_MARGIN == 1016);
const _: () = assert!(CQE_Q_LOG == 5, "update compares the CQE counts with 32");
/// Interrupt FIFO: 2^IRQ_LOG + 1 places; an event that may fire reserves
/// one at stage A (`irq_used` < 16 in `update`).
const IRQ_LOG: usize = 4;
const _: () = assert!(IRQ_LOG == 4);

#[derive(LogicBlock, Default)]
pub struct CqEngine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// `irq_moderation` defaults.
    pub irq_mod_count: Signal<In, Bits<16>>,
    pub irq_mod_time: Signal<In, Bits<16>>,
    pub s_db: DoorbellIn,
    pub s_setup: CqSetupIn,
    pub s_query: QueryIn,
    /// Answer to a query: the CQ context's bytes 8..14 (PROD, CONS,
    /// LOG_SIZE, flags) as they would be stored.
    pub query_valid: Signal<Out, Bit>,
    pub query_data: Signal<Out, Bits<48>>,
    pub s_cqe: CqeIn,
    pub m_wr: WrStreamOut,
    /// The DMA engine finished one of this engine's writes.
    pub wr_done: Signal<In, Bit>,
    pub m_irq: IrqOut,
    /// A CQ overran (pulse), and which.
    pub ev_overrun: Signal<Out, Bit>,
    /// A CQ doorbell was dropped (CQ beyond the table or not loaded).
    pub db_error: Signal<Out, Bit>,
    pub ev_queue: Signal<Out, Bits<24>>,
    /// CQEs dropped: CQ not loaded, overrun, or full.
    pub cnt_cqe_drop: Signal<Out, Bits<32>>,

    // ---- tables, indexed by CQN
    /// Static, written only by a setup (at stage A): ring base >> 12 [51:0],
    /// size - 1 [67:52], size [83:68], log size [87:84], live [88], vector
    /// [99:89], MOD_COUNT [115:100], MOD_TIME_US [131:116].
    stat: BlockRam<Bits<132>, LOG_CQS>,
    /// Dynamic, read at A and written at C: PROD [15:0], PROD - CONS
    /// [31:16], armed [32], solicited only [33], overrun [34], timer running
    /// [35], completions since the last interrupt [51:36].
    dynt: BlockRam<Bits<52>, LOG_CQS>,
    /// Moderation timers: {CQN [25:16], deadline in microseconds [15:0]}.
    timers: BramFifo<26, TIMER_LOG, 11>,
    tmr_room: Reg<Bit>,
    tmr_push_v: Reg<Bit>,
    tmr_push_d: Reg<Bits<26>>,
    irqs: AxisFifo<27, 1, 1, IRQ_LOG>,
    irq_used: Reg<Bits<5>>,
    irq_popped: Reg<Bit>,
    irq_push_v: Reg<Bit>,
    irq_push_d: Reg<Bits<27>>,
    us_div: Reg<Bits<8>>,
    now_us: Reg<Bits<16>>,
    // ---- inputs waiting for stage A (ready from these registers only)
    su_busy: Reg<Bit>,
    su_go: Reg<Bit>,
    su_cqn: Reg<Bits<10>>,
    su_stat: Reg<Bits<132>>,
    su_dyn: Reg<Bits<52>>,
    qu_busy: Reg<Bit>,
    qu_go: Reg<Bit>,
    qu_idx: Reg<Bits<10>>,
    hv: Reg<Bit>,
    hq: Reg<Bits<24>>,
    hi: Reg<Bits<16>>,
    harm: Reg<Bit>,
    hsol: Reg<Bit>,
    sv: Reg<Bit>,
    sq_: Reg<Bits<24>>,
    si: Reg<Bits<16>>,
    sarm: Reg<Bit>,
    ssol: Reg<Bit>,
    /// CQEs: {CQN, solicited, error} for stage A, the entry for the write
    cqe_key: LutRam<Bits<26>, CQE_Q_LOG>,
    cqe_data: LutRam<Bits<256>, CQE_Q_LOG>,
    cq_wp: Reg<Bits<5>>,
    cq_kp: Reg<Bits<5>>,
    cq_dp: Reg<Bits<5>>,
    cq_keys: Reg<Bits<6>>,
    cq_held: Reg<Bits<6>>,
    // ---- stage B
    v1: Reg<Bit>,
    su1: Reg<Bit>,
    qu1: Reg<Bit>,
    db1: Reg<Bit>,
    tm1: Reg<Bit>,
    ce1: Reg<Bit>,
    k1: Reg<Bits<10>>,
    idx1: Reg<Bits<16>>,
    queue1: Reg<Bits<24>>,
    arm1: Reg<Bit>,
    sol1: Reg<Bit>,
    err1: Reg<Bit>,
    // ---- stage C
    v2: Reg<Bit>,
    su2: Reg<Bit>,
    qu2: Reg<Bit>,
    db2: Reg<Bit>,
    tm2: Reg<Bit>,
    ce2: Reg<Bit>,
    k2: Reg<Bits<10>>,
    idx2: Reg<Bits<16>>,
    queue2: Reg<Bits<24>>,
    arm2: Reg<Bit>,
    sol2: Reg<Bit>,
    err2: Reg<Bit>,
    dyn2: Reg<Bits<52>>,
    base2: Reg<Bits<52>>,
    mask2: Reg<Bits<16>>,
    size2: Reg<Bits<16>>,
    log2: Reg<Bits<4>>,
    live2: Reg<Bit>,
    vector2: Reg<Bits<11>>,
    cnt_m1: Reg<Bits<16>>,
    cnt_zero: Reg<Bit>,
    time2: Reg<Bits<16>>,
    fwd1: Reg<Bit>,
    fwd2: Reg<Bit>,
    w_v: Reg<Bit>,
    w_k: Reg<Bits<10>>,
    w_d: Reg<Bits<52>>,
    wp_d: Reg<Bits<52>>,
    // ---- CQE writes
    wcmd: AxisFifo<67, 1, 1, CQE_Q_LOG>,
    wr_valid: Reg<Bit>,
    wr_addr: Reg<Bits<64>>,
    /// The CQE, in both halves of the beat (`wr_keep` picks one).
    wr_data: Reg<Bits<256>>,
    wr_keep: Reg<Bits<64>>,
    wr_issued: Reg<Bits<16>>,
    wr_finished: Reg<Bits<16>>,
    q_valid: Reg<Bit>,
    q_data: Reg<Bits<48>>,
    ovr_q: Reg<Bit>,
    dberr_q: Reg<Bit>,
    evq: Reg<Bits<24>>,
    drops: Reg<Bits<32>>,
    // locals
    cqe_in: Signal<Local, Bit>,
    ck: Signal<Local, Bits<26>>,
    timer_due: Signal<Local, Bit>,
    irq_room: Signal<Local, Bit>,
    ev_setup: Signal<Local, Bit>,
    ev_query: Signal<Local, Bit>,
    ev_db: Signal<Local, Bit>,
    ev_timer: Signal<Local, Bit>,
    ev_cqe: Signal<Local, Bit>,
    key: Signal<Local, Bits<10>>,
    b_count: Signal<Local, Bits<16>>,
    cur: Signal<Local, Bits<52>>,
    c_prod: Signal<Local, Bits<16>>,
    c_used: Signal<Local, Bits<16>>,
    c_armed: Signal<Local, Bit>,
    c_sol: Signal<Local, Bit>,
    c_overrun: Signal<Local, Bit>,
    c_timer: Signal<Local, Bit>,
    c_pending: Signal<Local, Bits<16>>,
    n_prod: Signal<Local, Bits<16>>,
    n_used: Signal<Local, Bits<16>>,
    n_armed: Signal<Local, Bit>,
    n_sol: Signal<Local, Bit>,
    n_overrun: Signal<Local, Bit>,
    n_timer: Signal<Local, Bit>,
    n_pending: Signal<Local, Bits<16>>,
    new_dyn: Signal<Local, Bits<52>>,
    fire: Signal<Local, Bit>,
    start_timer: Signal<Local, Bit>,
    write_cqe: Signal<Local, Bit>,
    full: Signal<Local, Bit>,
    issued_n: Signal<Local, Bits<16>>,
    irq_rel: Signal<Local, Bit>,
    irq_pop: Signal<Local, Bit>,
    recirc: Signal<Local, Bit>,
    wc: Signal<Local, Bits<67>>,
    wc_take: Signal<Local, Bit>,
    cqe: Signal<Local, Bits<256>>,
    owner: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for CqEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            tmr_room,
            tmr_push_v,
            tmr_push_d,
            irq_used,
            irq_popped,
            irq_push_v,
            irq_push_d,
            us_div,
            now_us,
            su_busy,
            su_go,
            su_cqn,
            su_stat,
            su_dyn,
            qu_busy,
            qu_go,
            qu_idx,
            hv,
            hq,
            hi,
            harm,
            hsol,
            sv,
            sq_,
            si,
            sarm,
            ssol,
            cq_wp,
            cq_kp,
            cq_dp,
            cq_keys,
            cq_held,
            v1,
            su1,
            qu1,
            db1,
            tm1,
            ce1,
            k1,
            idx1,
            queue1,
            arm1,
            sol1,
            err1,
            v2,
            su2,
            qu2,
            db2,
            tm2,
            ce2,
            k2,
            idx2,
            queue2,
            arm2,
            sol2,
            err2,
            dyn2,
            base2,
            mask2,
            size2,
            log2,
            live2,
            vector2,
            cnt_m1,
            cnt_zero,
            time2,
            fwd1,
            fwd2,
            w_v,
            w_k,
            w_d,
            wp_d,
            wr_valid,
            wr_addr,
            wr_data,
            wr_keep,
            wr_issued,
            wr_finished,
            q_valid,
            q_data,
            ovr_q,
            dberr_q,
            evq,
            drops
        );
        clock!(self, clock, stat, dynt, cqe_key, cqe_data);
        self.timers.clock.next = self.clock.val();
        self.timers.reset.next = self.reset.val();
        self.irqs.clock.next = self.clock.val();
        self.irqs.reset.next = self.reset.val();
        self.wcmd.clock.next = self.clock.val();
        self.wcmd.reset.next = self.reset.val();

        // microseconds, for moderation
        self.us_div.d.next = self.us_div.q.val() + 1;
        if self.us_div.q.val() == CLOCK_MHZ - 1 {
            self.us_div.d.next = 0.into();
            self.now_us.d.next = self.now_us.q.val() + 1;
        }

        // ---- inputs: every ready comes from a register
        self.s_setup.ready.next = !self.su_busy.q.val();
        if self.s_setup.valid.val() & !self.su_busy.q.val() {
            self.su_busy.d.next = true;
            self.su_go.d.next = true;
            self.su_cqn.d.next = self.s_setup.cqn.val().get_bits::<10>(0);
            self.su_stat.d.next = bit_cast::<132, 52>(self.s_setup.base.val().get_bits::<52>(12))
                | (bit_cast::<132, 16>(!(bits::<16>(0xFFFF) << self.s_setup.log.val())) << 52)
                | (bit_cast::<132, 16>(bits::<16>(1) << self.s_setup.log.val()) << 68)
                | (bit_cast::<132, 4>(self.s_setup.log.val()) << 84)
                | (bit_cast::<132, 1>(self.s_setup.live.val().into()) << 88)
                | (bit_cast::<132, 11>(self.s_setup.vector.val().get_bits::<11>(0)) << 89)
                | (bit_cast::<132, 16>(self.s_setup.mod_count.val()) << 100)
                | (bit_cast::<132, 16>(self.s_setup.mod_time.val()) << 116);
            self.su_dyn.d.next = bit_cast::<52, 16>(self.s_setup.prod.val())
                | (bit_cast::<52, 16>(self.s_setup.prod.val() - self.s_setup.cons.val()) << 16)
                | (bit_cast::<52, 1>(self.s_setup.armed.val().into()) << 32)
                | (bit_cast::<52, 1>(self.s_setup.solicited.val().into()) << 33)
                | (bit_cast::<52, 1>(self.s_setup.overrun.val().into()) << 34);
        }
        self.s_query.ready.next = !self.qu_busy.q.val();
        if self.s_query.valid.val() & !self.qu_busy.q.val() {
            self.qu_busy.d.next = true;
            self.qu_go.d.next = true;
            self.qu_idx.d.next = self.s_query.index.val().get_bits::<10>(0);
        }
        self.s_db.ready.next = !self.sv.q.val();
        // CQEs: ready while the queue has a place
        self.s_cqe.ready.next = !self.cq_held.q.val().get_bit(5);
        self.cqe_in.next = self.s_cqe.valid.val() & !self.cq_held.q.val().get_bit(5);
        self.cqe_key.write_addr.next = self.cq_wp.q.val();
        self.cqe_key.write_data.next = bit_cast::<26, 24>(self.s_cqe.cqn.val())
            | (bit_cast::<26, 1>(self.s_cqe.solicited.val().into()) << 24)
            | (bit_cast::<26, 1>(self.s_cqe.data.val().get_bits::<8>(CQE_STATUS).any().into()) << 25);
        self.cqe_key.write_enable.next = self.cqe_in.val();
        self.cqe_data.write_addr.next = self.cq_wp.q.val();
        self.cqe_data.write_data.next = self.s_cqe.data.val();
        self.cqe_data.write_enable.next = self.cqe_in.val();
        if self.cqe_in.val() {
            self.cq_wp.d.next = self.cq_wp.q.val() + 1;
        }
        self.cqe_key.read_addr.next = self.cq_kp.q.val();
        self.ck.next = self.cqe_key.read_data.val();

        // ---- stage A: one event per cycle (setup > query > doorbell > timer > CQE)
        self.timer_due.next =
            self.timers.m_valid.val() & !(self.now_us.q.val() - self.timers.m_data.val().get_bits::<16>(0)).get_bit(15);
        self.tmr_room.d.next = self.timers.count.val() < 1016;
        self.irq_room.next = !self.irq_used.q.val().get_bit(4);
        self.ev_setup.next = self.su_go.q.val();
        self.ev_query.next = self.qu_go.q.val() & !self.su_go.q.val();
        self.ev_db.next = self.hv.q.val() & !self.su_go.q.val() & !self.qu_go.q.val() & self.irq_room.val();
        self.ev_timer.next =
            self.timer_due.val() & !self.su_go.q.val() & !self.qu_go.q.val() & !self.hv.q.val() & self.irq_room.val();
        self.ev_cqe.next = self.cq_keys.q.val().any()
            & !self.su_go.q.val()
            & !self.qu_go.q.val()
            & !self.hv.q.val()
            & !self.timer_due.val()
            & self.irq_room.val()
            & self.tmr_room.q.val();
        self.key.next = self.ck.val().get_bits::<10>(0);
        if self.ev_timer.val() {
            self.key.next = self.timers.m_data.val().get_bits::<10>(16);
        }
        if self.ev_db.val() {
            self.key.next = self.hq.q.val().get_bits::<10>(0);
        }
        if self.ev_query.val() {
            self.key.next = self.qu_idx.q.val();
            self.qu_go.d.next = false;
        }
        if self.ev_setup.val() {
            self.key.next = self.su_cqn.q.val();
            self.su_go.d.next = false;
        }
        self.stat.read_addr.next = self.key.val();
        self.dynt.read_addr.next = self.key.val();
        self.stat.write_addr.next = self.su_cqn.q.val();
        self.stat.write_data.next = self.su_stat.q.val();
        self.stat.write_enable.next = self.ev_setup.val();
        self.v1.d.next =
            self.ev_setup.val() | self.ev_query.val() | self.ev_db.val() | self.ev_timer.val() | self.ev_cqe.val();
        self.su1.d.next = self.ev_setup.val();
        self.qu1.d.next = self.ev_query.val();
        self.db1.d.next = self.ev_db.val();
        self.tm1.d.next = self.ev_timer.val();
        self.ce1.d.next = self.ev_cqe.val();
        self.k1.d.next = self.key.val();
        self.idx1.d.next = self.hi.q.val();
        self.queue1.d.next = self.hq.q.val();
        self.arm1.d.next = self.harm.q.val();
        self.sol1.d.next = self.hsol.q.val();
        if self.ev_cqe.val() {
            self.queue1.d.next = self.ck.val().get_bits::<24>(0);
            self.sol1.d.next = self.ck.val().get_bit(24);
        }
        self.err1.d.next = self.ck.val().get_bit(25);
        if self.ev_cqe.val() {
            self.cq_kp.d.next = self.cq_kp.q.val() + 1;
        }
        self.cq_keys.d.next = self.cq_keys.q.val();
        if self.cqe_in.val() & !self.ev_cqe.val() {
            self.cq_keys.d.next = self.cq_keys.q.val() + 1;
        }
        if !self.cqe_in.val() & self.ev_cqe.val() {
            self.cq_keys.d.next = self.cq_keys.q.val() - 1;
        }

        // the doorbell queue: the head leaves with ev_db, a new one enters behind
        if self.ev_db.val() {
            self.hv.d.next = self.sv.q.val();
            self.hq.d.next = self.sq_.q.val();
            self.hi.d.next = self.si.q.val();
            self.harm.d.next = self.sarm.q.val();
            self.hsol.d.next = self.ssol.q.val();
            self.sv.d.next = false;
        }
        if self.s_db.valid.val() & !self.sv.q.val() {
            if self.hv.q.val() & !self.ev_db.val() {
                self.sv.d.next = true;
                self.sq_.d.next = self.s_db.queue.val();
                self.si.d.next = self.s_db.index.val();
                self.sarm.d.next = self.s_db.kind.val() == KIND_CQ_ARM;
                self.ssol.d.next = self.s_db.solicited.val();
            } else {
                self.hv.d.next = true;
                self.hq.d.next = self.s_db.queue.val();
                self.hi.d.next = self.s_db.index.val();
                self.harm.d.next = self.s_db.kind.val() == KIND_CQ_ARM;
                self.hsol.d.next = self.s_db.solicited.val();
            }
        }

        // ---- stage B: the RAMs' words; what the static word implies
        self.base2.d.next = self.stat.read_data.val().get_bits::<52>(0);
        self.mask2.d.next = self.stat.read_data.val().get_bits::<16>(52);
        self.size2.d.next = self.stat.read_data.val().get_bits::<16>(68);
        self.log2.d.next = self.stat.read_data.val().get_bits::<4>(84);
        self.live2.d.next = self.stat.read_data.val().get_bit(88);
        self.vector2.d.next = self.stat.read_data.val().get_bits::<11>(89);
        self.b_count.next = self.stat.read_data.val().get_bits::<16>(100);
        if !self.b_count.val().any() {
            self.b_count.next = self.irq_mod_count.val();
        }
        // count moderation fires when pending + 1 >= count: pending >= count - 1
        self.cnt_m1.d.next = self.b_count.val() - 1;
        self.cnt_zero.d.next = !self.b_count.val().any();
        self.time2.d.next = self.stat.read_data.val().get_bits::<16>(116);
        if !self.stat.read_data.val().get_bits::<16>(116).any() {
            self.time2.d.next = self.irq_mod_time.val();
        }
        self.dyn2.d.next = self.dynt.read_data.val();
        // forwarding: the word of the event one ahead (now in C, written at
        // this edge) or two ahead (written at the last edge), newest first
        self.fwd1.d.next = self.v2.q.val() & (self.k2.q.val() == self.k1.q.val());
        self.fwd2.d.next = self.w_v.q.val() & (self.w_k.q.val() == self.k1.q.val());
        self.v2.d.next = self.v1.q.val();
        self.su2.d.next = self.su1.q.val();
        self.qu2.d.next = self.qu1.q.val();
        self.db2.d.next = self.db1.q.val();
        self.tm2.d.next = self.tm1.q.val();
        self.ce2.d.next = self.ce1.q.val();
        self.k2.d.next = self.k1.q.val();
        self.idx2.d.next = self.idx1.q.val();
        self.queue2.d.next = self.queue1.q.val();
        self.arm2.d.next = self.arm1.q.val();
        self.sol2.d.next = self.sol1.q.val();
        self.err2.d.next = self.err1.q.val();

        // ---- stage C: the current dynamic word, modified and written back
        self.cur.next = self.dyn2.q.val();
        if self.fwd2.q.val() {
            self.cur.next = self.wp_d.q.val();
        }
        if self.fwd1.q.val() {
            self.cur.next = self.w_d.q.val();
        }
        self.c_prod.next = self.cur.val().get_bits::<16>(0);
        self.c_used.next = self.cur.val().get_bits::<16>(16);
        self.c_armed.next = self.cur.val().get_bit(32);
        self.c_sol.next = self.cur.val().get_bit(33);
        self.c_overrun.next = self.cur.val().get_bit(34);
        self.c_timer.next = self.cur.val().get_bit(35);
        self.c_pending.next = self.cur.val().get_bits::<16>(36);
        self.n_prod.next = self.c_prod.val();
        self.n_used.next = self.c_used.val();
        self.n_armed.next = self.c_armed.val();
        self.n_sol.next = self.c_sol.val();
        self.n_overrun.next = self.c_overrun.val();
        self.n_timer.next = self.c_timer.val();
        self.n_pending.next = self.c_pending.val();
        self.fire.next = false;
        self.start_timer.next = false;
        self.write_cqe.next = false;
        self.ovr_q.d.next = false;
        self.dberr_q.d.next = false;

        // doorbells: consumer index, arming
        if self.db2.q.val() {
            if !self.queue2.q.val().get_bits::<14>(10).any() & self.live2.q.val() {
                self.n_used.next = self.c_prod.val() - self.idx2.q.val();
                if self.arm2.q.val() {
                    if self.idx2.q.val() != self.c_prod.val() {
                        // unpolled completions: interrupt now
                        self.fire.next = true;
                    } else {
                        self.n_armed.next = true;
                        self.n_sol.next = self.sol2.q.val();
                    }
                }
            } else {
                self.dberr_q.d.next = true;
                self.evq.d.next = self.queue2.q.val();
            }
        }
        // a moderation timer ran out
        if self.tm2.q.val() {
            self.n_timer.next = false;
            if self.c_armed.val() & self.c_pending.val().any() & self.live2.q.val() {
                self.fire.next = true;
            }
        }
        // a CQE
        self.full.next = self.c_used.val() == self.size2.q.val();
        if self.ce2.q.val() {
            if !self.live2.q.val() | self.c_overrun.val() {
                self.drops.d.next = self.drops.q.val() + 1;
            } else if self.full.val() {
                self.drops.d.next = self.drops.q.val() + 1;
                self.n_overrun.next = true;
                self.ovr_q.d.next = true;
                self.evq.d.next = self.queue2.q.val();
            } else {
                self.write_cqe.next = true;
                self.n_prod.next = self.c_prod.val() + 1;
                self.n_used.next = self.c_used.val() + 1;
                self.n_pending.next = self.c_pending.val() + 1;
                if self.c_armed.val() {
                    if self.c_sol.val() {
                        if self.sol2.q.val() | self.err2.q.val() {
                            self.fire.next = true;
                        }
                    } else if self.cnt_zero.q.val() | (self.c_pending.val() >= self.cnt_m1.q.val()) {
                        self.fire.next = true;
                    } else if self.time2.q.val().any() & !self.c_timer.val() {
                        self.start_timer.next = true;
                        self.n_timer.next = true;
                    }
                }
            }
        }
        if self.fire.val() {
            self.n_pending.next = 0.into();
            self.n_armed.next = false;
        }
        self.new_dyn.next = bit_cast::<52, 16>(self.n_prod.val())
            | (bit_cast::<52, 16>(self.n_used.val()) << 16)
            | (bit_cast::<52, 1>(self.n_armed.val().into()) << 32)
            | (bit_cast::<52, 1>(self.n_sol.val().into()) << 33)
            | (bit_cast::<52, 1>(self.n_overrun.val().into()) << 34)
            | (bit_cast::<52, 1>(self.n_timer.val().into()) << 35)
            | (bit_cast::<52, 16>(self.n_pending.val()) << 36);
        if self.su2.q.val() {
            self.new_dyn.next = self.su_dyn.q.val();
            self.su_busy.d.next = false;
        }
        self.dynt.write_addr.next = self.k2.q.val();
        self.dynt.write_data.next = self.new_dyn.val();
        self.dynt.write_enable.next = self.v2.q.val();
        self.w_v.d.next = self.v2.q.val();
        self.w_k.d.next = self.k2.q.val();
        self.w_d.d.next = self.new_dyn.val();
        self.wp_d.d.next = self.w_d.q.val();

        // query
        self.q_valid.d.next = self.qu2.q.val();
        if self.qu2.q.val() {
            self.q_data.d.next = bit_cast::<48, 16>(self.c_prod.val())
                | (bit_cast::<48, 16>(self.c_prod.val() - self.c_used.val()) << 16)
                | (bit_cast::<48, 4>(self.log2.q.val()) << 32)
                | (bit_cast::<48, 1>(self.c_armed.val().into()) << CQS_ARMED)
                | (bit_cast::<48, 1>(self.c_sol.val().into()) << CQS_SOLICITED)
                | (bit_cast::<48, 1>(self.c_overrun.val().into()) << CQS_OVERRUN);
            self.qu_busy.d.next = false;
        }
        self.query_valid.next = self.q_valid.q.val();
        self.query_data.next = self.q_data.q.val();

        // every CQE leaves a command for the write stage: its write, or a drop
        self.owner.next = !(self.c_prod.val() & self.size2.q.val()).any();
        self.wcmd.s_axis.tvalid.next = self.ce2.q.val();
        self.wcmd.s_axis.tdata.next = bit_cast::<67, 64>(
            (bit_cast::<64, 52>(self.base2.q.val()) << 12)
                + (bit_cast::<64, 16>(self.c_prod.val() & self.mask2.q.val()) << 5),
        ) | (bit_cast::<67, 1>(self.owner.val().into()) << 64)
            // the half of the beat the CQE lands in is its slot's, not the
            // producer's: a 1-entry ring (LOG_SIZE 0) has every CQE in slot 0
            | (bit_cast::<67, 1>((self.c_prod.val() & self.mask2.q.val()).get_bit(0).into()) << 65)
            | (bit_cast::<67, 1>(self.write_cqe.val().into()) << 66);
        self.wcmd.s_axis.tkeep.next = 1.into();
        self.wcmd.s_axis.tlast.next = true;
        self.wcmd.s_axis.tuser.next = 0.into();
        self.issued_n.next = self.wr_issued.q.val();
        if self.write_cqe.val() {
            self.issued_n.next = self.wr_issued.q.val() + 1;
        }
        self.wr_issued.d.next = self.issued_n.val();

        // timers: start one (a cycle after C), retire the due head, or rotate it
        self.tmr_push_v.d.next = self.start_timer.val();
        self.tmr_push_d.d.next = (bit_cast::<26, 10>(self.k2.q.val()) << 16)
            | bit_cast::<26, 16>(self.now_us.q.val() + self.time2.q.val() + 1);
        self.recirc.next = self.timers.m_valid.val() & !self.timer_due.val() & !self.tmr_push_v.q.val();
        self.timers.m_ready.next = self.ev_timer.val() | self.recirc.val();
        self.timers.push.next = self.tmr_push_v.q.val() | self.recirc.val();
        self.timers.push_data.next = self.timers.m_data.val();
        if self.tmr_push_v.q.val() {
            self.timers.push_data.next = self.tmr_push_d.q.val();
        }

        // interrupts (a cycle after C), each after the CQE writes taken before it
        self.irq_push_v.d.next = self.fire.val();
        self.irq_push_d.d.next =
            (bit_cast::<27, 11>(self.vector2.q.val()) << 16) | bit_cast::<27, 16>(self.issued_n.val());
        self.irqs.s_axis.tvalid.next = self.irq_push_v.q.val();
        self.irqs.s_axis.tdata.next = self.irq_push_d.q.val();
        self.irqs.s_axis.tkeep.next = 1.into();
        self.irqs.s_axis.tlast.next = true;
        self.irqs.s_axis.tuser.next = 0.into();
        if self.wr_done.val() {
            self.wr_finished.d.next = self.wr_finished.q.val() + 1;
        }
        self.m_irq.valid.next = self.irqs.m_axis.tvalid.val()
            & !(self.wr_finished.q.val() - self.irqs.m_axis.tdata.val().get_bits::<16>(0)).get_bit(15);
        self.m_irq.vector.next = self.irqs.m_axis.tdata.val().get_bits::<11>(16);
        self.irq_pop.next = self.m_irq.valid.val() & self.m_irq.ready.val();
        self.irqs.m_axis.tready.next = self.irq_pop.val();
        // places reserved at A by every event that may fire, released at C
        // by those that did not, and by each interrupt that left (a cycle
        // late: the count is never below the FIFO's)
        self.irq_popped.d.next = self.irq_pop.val();
        self.irq_rel.next = (self.db2.q.val() | self.tm2.q.val() | self.ce2.q.val()) & !self.fire.val();
        self.irq_used.d.next = self.irq_used.q.val()
            + bit_cast::<5, 1>((self.ev_db.val() | self.ev_timer.val() | self.ev_cqe.val()).into())
            - bit_cast::<5, 1>(self.irq_rel.val().into())
            - bit_cast::<5, 1>(self.irq_popped.q.val().into());

        // ---- the write stage: the oldest command with its CQE
        self.wc.next = self.wcmd.m_axis.tdata.val();
        self.wc_take.next = self.wcmd.m_axis.tvalid.val() & (!self.wr_valid.q.val() | self.m_wr.tready.val());
        self.wcmd.m_axis.tready.next = self.wc_take.val();
        self.cqe_data.read_addr.next = self.cq_dp.q.val();
        self.cqe.next = self.cqe_data.read_data.val() & !(bits::<256>(1) << CQE_OWNER);
        if self.wc.val().get_bit(64) {
            self.cqe.next = self.cqe.val() | (bits::<256>(1) << CQE_OWNER);
        }
        if self.m_wr.tready.val() {
            self.wr_valid.d.next = false;
        }
        if self.wc_take.val() {
            self.cq_dp.d.next = self.cq_dp.q.val() + 1;
            if self.wc.val().get_bit(66) {
                self.wr_valid.d.next = true;
                self.wr_addr.d.next = self.wc.val().get_bits::<64>(0);
                self.wr_data.d.next = self.cqe.val();
                self.wr_keep.d.next = bits::<64>(0xFFFF_FFFFu64);
                if self.wc.val().get_bit(65) {
                    self.wr_keep.d.next = bits::<64>(0xFFFF_FFFF_0000_0000u64);
                }
            }
        }
        self.cq_held.d.next = self.cq_held.q.val();
        if self.cqe_in.val() & !self.wc_take.val() {
            self.cq_held.d.next = self.cq_held.q.val() + 1;
        }
        if !self.cqe_in.val() & self.wc_take.val() {
            self.cq_held.d.next = self.cq_held.q.val() - 1;
        }
        self.m_wr.tvalid.next = self.wr_valid.q.val();
        self.m_wr.tdata.next =
            bit_cast::<512, 256>(self.wr_data.q.val()) | (bit_cast::<512, 256>(self.wr_data.q.val()) << 256);
        self.m_wr.tkeep.next = self.wr_keep.q.val();
        self.m_wr.tlast.next = true;
        self.m_wr.addr.next = self.wr_addr.q.val();
        self.m_wr.len.next = bits::<32>(CQE_BYTES);

        self.ev_overrun.next = self.ovr_q.q.val();
        self.db_error.next = self.dberr_q.q.val();
        self.ev_queue.next = self.evq.q.val();
        self.cnt_cqe_drop.next = self.drops.q.val();

        if self.reset.val() {
            self.us_div.d.next = 0.into();
            self.now_us.d.next = 0.into();
            self.tmr_room.d.next = false;
            self.tmr_push_v.d.next = false;
            self.irq_used.d.next = 0.into();
            self.irq_popped.d.next = false;
            self.irq_push_v.d.next = false;
            self.su_busy.d.next = false;
            self.su_go.d.next = false;
            self.qu_busy.d.next = false;
            self.qu_go.d.next = false;
            self.hv.d.next = false;
            self.sv.d.next = false;
            self.cq_wp.d.next = 0.into();
            self.cq_kp.d.next = 0.into();
            self.cq_dp.d.next = 0.into();
            self.cq_keys.d.next = 0.into();
            self.cq_held.d.next = 0.into();
            self.v1.d.next = false;
            self.su1.d.next = false;
            self.qu1.d.next = false;
            self.db1.d.next = false;
            self.tm1.d.next = false;
            self.ce1.d.next = false;
            self.v2.d.next = false;
            self.su2.d.next = false;
            self.qu2.d.next = false;
            self.db2.d.next = false;
            self.tm2.d.next = false;
            self.ce2.d.next = false;
            self.w_v.d.next = false;
            self.wr_valid.d.next = false;
            self.wr_issued.d.next = 0.into();
            self.wr_finished.d.next = 0.into();
            self.q_valid.d.next = false;
            self.ovr_q.d.next = false;
            self.dberr_q.d.next = false;
            self.drops.d.next = 0.into();
        }
    }
}
