//! `DescFetch`: turns SqProducer/RqProducer doorbells into WQEs.
//!
//! Each QP's send and receive ring (base, size, producer index from the
//! last doorbell, fetch index) sits in block RAM indexed by QPN, loaded from
//! the QP context by the context engine. A doorbell only updates its
//! queue's producer index and, if the queue was idle, appends the queue to a
//! FIFO of queues with work (block RAM): no scan over queues, one doorbell
//! per cycle whatever their number. The fetcher takes the FIFO's head,
//! reads up to [`FETCH_BATCH`] consecutive WQEs in one DMA read (never
//! across the ring's end), and puts the queue back at the tail if it still
//! has work, so busy queues take turns batch by batch.
//!
//! One event per cycle enters a three-stage read-modify-write (setup >
//! query > doorbell > fetch): A presents the QPN to the RAMs, B has their
//! words, C modifies the dynamic word (indices, scheduled flag) and writes
//! it back. An event whose QP is one or two events behind another takes
//! that event's written word instead of the RAM's (forwarding), so events
//! on one QP in consecutive cycles act in order; a fetch, whose batch is
//! computed in B from the RAM's word, waits instead while its QP is in B or
//! C. A setup writes the static word (bases, sizes, live) at A and the
//! dynamic one at C.
//!
//! Inputs are taken into registers (a setup, a query, two doorbells) and
//! every `ready` comes from a register; WQEs leave from a FIFO, so no path
//! runs from an input to an output. WQEs leave on `m_wqe`, 64 bytes per
//! beat (a send WQE is two beats, a receive WQE one), `tlast` on each
//! WQE's last beat, and `tuser` = {DMA error [41], RQ [40], QPN [39:16],
//! WQE index [15:0]}.

use super::{DoorbellIn, RdCmdOut};
use crate::axis::{AxisFifo, AxisIn, AxisOut};
use crate::consts::*;
use crate::prim::{BlockRam, BramFifo, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// A QP's rings, from its context (`live` 0 invalidates the QP).
#[derive(LogicInterface, Default)]
#[join = "RingSetupIn"]
pub struct RingSetupOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub sq_base: Signal<Out, Bits<64>>,
    pub sq_log: Signal<Out, Bits<4>>,
    pub sq_prod: Signal<Out, Bits<16>>,
    pub sq_cons: Signal<Out, Bits<16>>,
    pub rq_base: Signal<Out, Bits<64>>,
    pub rq_log: Signal<Out, Bits<4>>,
    pub rq_prod: Signal<Out, Bits<16>>,
    pub rq_cons: Signal<Out, Bits<16>>,
    pub live: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "RingSetupOut"]
pub struct RingSetupIn {
    pub qpn: Signal<In, Bits<24>>,
    pub sq_base: Signal<In, Bits<64>>,
    pub sq_log: Signal<In, Bits<4>>,
    pub sq_prod: Signal<In, Bits<16>>,
    pub sq_cons: Signal<In, Bits<16>>,
    pub rq_base: Signal<In, Bits<64>>,
    pub rq_log: Signal<In, Bits<4>>,
    pub rq_prod: Signal<In, Bits<16>>,
    pub rq_cons: Signal<In, Bits<16>>,
    pub live: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

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

/// Fetches in flight at most (DMA command queued, or WQEs still to come):
/// the command and in-flight FIFOs hold 2^`INFLIGHT_LOG` + 1 each.
const INFLIGHT_LOG: usize = 3;
/// log2 of the scheduler FIFO's RAM: one place per ring of every QP.
const SCHED_LOG: usize = LOG_QPS + 1;
/// The scheduler FIFO's `count` never passes its RAM: an event that may
/// push is admitted only while `count < 2^SCHED_LOG - SCHED_MARGIN` (the
/// literal in `update`), and at most 5 pushes (stages A, B, C, the push
/// register, the stale `sched_room`) can be on their way past that check.
const SCHED_MARGIN: usize = 8;
const _: () = assert!(SCHED_MARGIN >= 5 && (1 << SCHED_LOG) - SCHED_MARGIN == 2040);
const _: () = assert!(1 << INFLIGHT_LOG == 8, "update tests bit 3 of `outstanding`");
const _: () = assert!(FETCH_BATCH == 8, "lim in update is min(8, room)");

#[derive(LogicBlock, Default)]
pub struct DescFetch {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Fetch only while set (`ctrl.ENABLE`); doorbells are recorded anyway.
    pub enable: Signal<In, Bit>,
    pub s_db: DoorbellIn,
    pub s_setup: RingSetupIn,
    pub s_query: QueryIn,
    /// Answer to a query: SQ_PROD, SQ_CONS, RQ_PROD, RQ_CONS as in the QP
    /// context (16 bits each, from bit 0), CONS being the fetch index.
    pub query_valid: Signal<Out, Bit>,
    pub query_data: Signal<Out, Bits<64>>,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub m_wqe: AxisOut<512, 64, 42>,
    /// A doorbell was dropped (QP beyond the table, QP 0 or 1, not loaded).
    pub db_error: Signal<Out, Bit>,
    pub db_error_queue: Signal<Out, Bits<24>>,

    // ---- tables, indexed by QPN
    /// Static: SQ base >> 12 [51:0], SQ size - 1 [67:52], RQ base >> 12
    /// [119:68], RQ size - 1 [135:120], live [136]. Written only by a setup,
    /// at stage A.
    stat: BlockRam<Bits<137>, LOG_QPS>,
    /// Dynamic, per ring (SQ [32:0], RQ [65:33]): producer index [15:0],
    /// fetch index [31:16], scheduled [32]. Read at A, written at C.
    dynt: BlockRam<Bits<66>, LOG_QPS>,
    /// Rings with work: {QPN, RQ}.
    sched: BramFifo<11, SCHED_LOG, 12>,
    sched_room: Reg<Bit>,
    // ---- inputs waiting for stage A (ready from these registers only)
    su_busy: Reg<Bit>,
    su_go: Reg<Bit>,
    su_qpn: Reg<Bits<10>>,
    su_stat: Reg<Bits<137>>,
    su_dyn: Reg<Bits<66>>,
    qu_busy: Reg<Bit>,
    qu_go: Reg<Bit>,
    qu_idx: Reg<Bits<10>>,
    // doorbells: a two-place queue (head h, then s)
    hv: Reg<Bit>,
    hq: Reg<Bits<24>>,
    hi: Reg<Bits<16>>,
    hrq: Reg<Bit>,
    hok: Reg<Bit>,
    sv: Reg<Bit>,
    sq_: Reg<Bits<24>>,
    si: Reg<Bits<16>>,
    srq: Reg<Bit>,
    sok: Reg<Bit>,
    // ---- stage B: the event whose entry the RAMs are reading
    v1: Reg<Bit>,
    db1: Reg<Bit>,
    fe1: Reg<Bit>,
    qu1: Reg<Bit>,
    su1: Reg<Bit>,
    k1: Reg<Bits<10>>,
    rq1: Reg<Bit>,
    // ---- stage C: modify and write back
    v2: Reg<Bit>,
    db2: Reg<Bit>,
    fe2: Reg<Bit>,
    qu2: Reg<Bit>,
    su2: Reg<Bit>,
    k2: Reg<Bits<10>>,
    rq2: Reg<Bit>,
    idx2: Reg<Bits<16>>,
    queue2: Reg<Bits<24>>,
    ok2: Reg<Bit>,
    dyn2: Reg<Bits<66>>,
    live2: Reg<Bit>,
    base2: Reg<Bits<52>>,
    slot2: Reg<Bits<22>>,
    pend2: Reg<Bits<16>>,
    pendhi2: Reg<Bit>,
    lim2: Reg<Bits<4>>,
    fwd1: Reg<Bit>,
    fwd2: Reg<Bit>,
    idx1: Reg<Bits<16>>,
    queue1: Reg<Bits<24>>,
    ok1: Reg<Bit>,
    // ---- the last two dynamic words written (hazard forwarding)
    w_v: Reg<Bit>,
    w_k: Reg<Bits<10>>,
    w_d: Reg<Bits<66>>,
    wp_d: Reg<Bits<66>>,
    // ---- results
    push_v: Reg<Bit>,
    push_d: Reg<Bits<11>>,
    outstanding: Reg<Bits<4>>,
    cmds: AxisFifo<75, 1, 1, INFLIGHT_LOG>,
    inflight: AxisFifo<31, 1, 1, INFLIGHT_LOG>,
    wqes: AxisFifo<512, 64, 42, 5>,
    q_valid: Reg<Bit>,
    q_data: Reg<Bits<64>>,
    err_q: Reg<Bit>,
    err_queue: Reg<Bits<24>>,
    d_beat: Reg<Bit>,
    d_wqe: Reg<Bits<4>>,
    // locals
    ev_setup: Signal<Local, Bit>,
    ev_query: Signal<Local, Bit>,
    ev_db: Signal<Local, Bit>,
    ev_fetch: Signal<Local, Bit>,
    head_qpn: Signal<Local, Bits<10>>,
    db_in: Signal<Local, Bit>,
    db_in_ok: Signal<Local, Bit>,
    key: Signal<Local, Bits<10>>,
    key_rq: Signal<Local, Bit>,
    b_pi: Signal<Local, Bits<16>>,
    b_ci: Signal<Local, Bits<16>>,
    b_mask: Signal<Local, Bits<16>>,
    b_pend: Signal<Local, Bits<16>>,
    b_hi_ones: Signal<Local, Bit>,
    b_left: Signal<Local, Bits<3>>,
    cur: Signal<Local, Bits<66>>,
    h_pi: Signal<Local, Bits<16>>,
    h_ci: Signal<Local, Bits<16>>,
    h_sched: Signal<Local, Bit>,
    n_pi: Signal<Local, Bits<16>>,
    n_ci: Signal<Local, Bits<16>>,
    n_sched: Signal<Local, Bit>,
    half: Signal<Local, Bits<33>>,
    new_dyn: Signal<Local, Bits<66>>,
    more: Signal<Local, Bit>,
    n: Signal<Local, Bits<4>>,
    fetch_go: Signal<Local, Bit>,
    fetch_dma: Signal<Local, Bit>,
    push_now: Signal<Local, Bit>,
    out_inc: Signal<Local, Bit>,
    out_dec_c: Signal<Local, Bit>,
    out_dec_w: Signal<Local, Bit>,
    cmd_len: Signal<Local, Bits<11>>,
    head: Signal<Local, Bits<31>>,
    wqe_last: Signal<Local, Bit>,
    d_fire: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for DescFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            sched_room,
            su_busy,
            su_go,
            su_qpn,
            su_stat,
            su_dyn,
            qu_busy,
            qu_go,
            qu_idx,
            hv,
            hq,
            hi,
            hrq,
            hok,
            sv,
            sq_,
            si,
            srq,
            sok,
            v1,
            db1,
            fe1,
            qu1,
            su1,
            k1,
            rq1,
            v2,
            db2,
            fe2,
            qu2,
            su2,
            k2,
            rq2,
            idx2,
            queue2,
            ok2,
            dyn2,
            live2,
            base2,
            slot2,
            pend2,
            pendhi2,
            lim2,
            fwd1,
            fwd2,
            idx1,
            queue1,
            ok1,
            w_v,
            w_k,
            w_d,
            wp_d,
            push_v,
            push_d,
            outstanding,
            q_valid,
            q_data,
            err_q,
            err_queue,
            d_beat,
            d_wqe
        );
        clock!(self, clock, stat, dynt);
        self.sched.clock.next = self.clock.val();
        self.sched.reset.next = self.reset.val();
        self.cmds.clock.next = self.clock.val();
        self.cmds.reset.next = self.reset.val();
        self.inflight.clock.next = self.clock.val();
        self.inflight.reset.next = self.reset.val();
        self.wqes.clock.next = self.clock.val();
        self.wqes.reset.next = self.reset.val();

        // ---- inputs: every ready comes from a register
        self.s_setup.ready.next = !self.su_busy.q.val();
        if self.s_setup.valid.val() & !self.su_busy.q.val() {
            self.su_busy.d.next = true;
            self.su_go.d.next = true;
            self.su_qpn.d.next = self.s_setup.qpn.val().get_bits::<10>(0);
            self.su_stat.d.next = bit_cast::<137, 52>(self.s_setup.sq_base.val().get_bits::<52>(12))
                | (bit_cast::<137, 16>(!(bits::<16>(0xFFFF) << self.s_setup.sq_log.val())) << 52)
                | (bit_cast::<137, 52>(self.s_setup.rq_base.val().get_bits::<52>(12)) << 68)
                | (bit_cast::<137, 16>(!(bits::<16>(0xFFFF) << self.s_setup.rq_log.val())) << 120)
                | (bit_cast::<137, 1>(self.s_setup.live.val().into()) << 136);
            self.su_dyn.d.next = bit_cast::<66, 16>(self.s_setup.sq_prod.val())
                | (bit_cast::<66, 16>(self.s_setup.sq_cons.val()) << 16)
                | (bit_cast::<66, 16>(self.s_setup.rq_prod.val()) << 33)
                | (bit_cast::<66, 16>(self.s_setup.rq_cons.val()) << 49);
        }
        self.s_query.ready.next = !self.qu_busy.q.val();
        if self.s_query.valid.val() & !self.qu_busy.q.val() {
            self.qu_busy.d.next = true;
            self.qu_go.d.next = true;
            self.qu_idx.d.next = self.s_query.index.val().get_bits::<10>(0);
        }
        self.s_db.ready.next = !self.sv.q.val();
        self.db_in.next = self.s_db.valid.val() & !self.sv.q.val();
        self.db_in_ok.next = !self.s_db.queue.val().get_bits::<14>(10).any()
            & self.s_db.queue.val().get_bits::<9>(1).any()
            & ((self.s_db.kind.val() == KIND_SQ) | (self.s_db.kind.val() == KIND_RQ));

        // ---- stage A: one event per cycle (setup > query > doorbell > fetch)
        self.head_qpn.next = self.sched.m_data.val().get_bits::<10>(1);
        self.sched_room.d.next = self.sched.count.val() < 2040;
        self.ev_setup.next = self.su_go.q.val();
        self.ev_query.next = self.qu_go.q.val() & !self.su_go.q.val();
        self.ev_db.next = self.hv.q.val() & !self.su_go.q.val() & !self.qu_go.q.val() & self.sched_room.q.val();
        // a fetch never meets its QP in flight: its batch is computed from the
        // RAM's word in stage B, which must be the current one
        self.ev_fetch.next = self.enable.val()
            & self.sched.m_valid.val()
            & !self.su_go.q.val()
            & !self.qu_go.q.val()
            & !self.hv.q.val()
            & !self.outstanding.q.val().get_bit(3)
            & self.sched_room.q.val()
            & !(self.v1.q.val() & (self.k1.q.val() == self.head_qpn.val()))
            & !(self.v2.q.val() & (self.k2.q.val() == self.head_qpn.val()));
        self.key.next = self.head_qpn.val();
        self.key_rq.next = self.sched.m_data.val().get_bit(0);
        if self.ev_db.val() {
            self.key.next = self.hq.q.val().get_bits::<10>(0);
            self.key_rq.next = self.hrq.q.val();
        }
        if self.ev_query.val() {
            self.key.next = self.qu_idx.q.val();
            self.key_rq.next = false;
        }
        if self.ev_setup.val() {
            self.key.next = self.su_qpn.q.val();
            self.su_go.d.next = false;
        }
        if self.ev_query.val() {
            self.qu_go.d.next = false;
        }
        self.stat.read_addr.next = self.key.val();
        self.dynt.read_addr.next = self.key.val();
        self.stat.write_addr.next = self.su_qpn.q.val();
        self.stat.write_data.next = self.su_stat.q.val();
        self.stat.write_enable.next = self.ev_setup.val();
        self.sched.m_ready.next = self.ev_fetch.val();
        self.v1.d.next = self.ev_setup.val() | self.ev_query.val() | self.ev_db.val() | self.ev_fetch.val();
        self.su1.d.next = self.ev_setup.val();
        self.qu1.d.next = self.ev_query.val();
        self.db1.d.next = self.ev_db.val();
        self.fe1.d.next = self.ev_fetch.val();
        self.k1.d.next = self.key.val();
        self.rq1.d.next = self.key_rq.val();
        self.idx1.d.next = self.hi.q.val();
        self.queue1.d.next = self.hq.q.val();
        self.ok1.d.next = self.hok.q.val();

        // the doorbell queue: the head leaves with ev_db, a new one enters behind
        if self.ev_db.val() {
            self.hv.d.next = self.sv.q.val();
            self.hq.d.next = self.sq_.q.val();
            self.hi.d.next = self.si.q.val();
            self.hrq.d.next = self.srq.q.val();
            self.hok.d.next = self.sok.q.val();
            self.sv.d.next = false;
        }
        if self.db_in.val() {
            if self.hv.q.val() & !self.ev_db.val() {
                self.sv.d.next = true;
                self.sq_.d.next = self.s_db.queue.val();
                self.si.d.next = self.s_db.index.val();
                self.srq.d.next = self.s_db.kind.val() == KIND_RQ;
                self.sok.d.next = self.db_in_ok.val();
            } else {
                self.hv.d.next = true;
                self.hq.d.next = self.s_db.queue.val();
                self.hi.d.next = self.s_db.index.val();
                self.hrq.d.next = self.s_db.kind.val() == KIND_RQ;
                self.hok.d.next = self.db_in_ok.val();
            }
        }

        // ---- stage B: the RAMs' words; a fetch's batch from them
        self.b_pi.next = self.dynt.read_data.val().get_bits::<16>(0);
        self.b_ci.next = self.dynt.read_data.val().get_bits::<16>(16);
        self.b_mask.next = self.stat.read_data.val().get_bits::<16>(52);
        self.base2.d.next = self.stat.read_data.val().get_bits::<52>(0);
        if self.rq1.q.val() {
            self.b_pi.next = self.dynt.read_data.val().get_bits::<16>(33);
            self.b_ci.next = self.dynt.read_data.val().get_bits::<16>(49);
            self.b_mask.next = self.stat.read_data.val().get_bits::<16>(120);
            self.base2.d.next = self.stat.read_data.val().get_bits::<52>(68);
        }
        self.b_pend.next = self.b_pi.val() - self.b_ci.val();
        // min(FETCH_BATCH, slots to the ring's end): 8 unless the fetch index
        // is in the ring's last 8 slots (or the ring is smaller than 8)
        self.b_hi_ones.next = (self.b_ci.val() | !self.b_mask.val()).get_bits::<13>(3).all();
        // there, (size - 1 - slot) mod 8 + 1 slots are left: the low bits
        // of the fetch index's complement, under the size mask
        self.b_left.next = !self.b_ci.val().get_bits::<3>(0) & self.b_mask.val().get_bits::<3>(0);
        self.lim2.d.next = bits::<4>(8);
        if self.b_hi_ones.val() {
            self.lim2.d.next = bit_cast::<4, 3>(self.b_left.val()) + 1;
        }
        self.pend2.d.next = self.b_pend.val();
        self.pendhi2.d.next = self.b_pend.val().get_bits::<12>(4).any();
        self.slot2.d.next = bit_cast::<22, 16>(self.b_ci.val() & self.b_mask.val()) << 7;
        if self.rq1.q.val() {
            self.slot2.d.next = bit_cast::<22, 16>(self.b_ci.val() & self.b_mask.val()) << 6;
        }
        self.live2.d.next = self.stat.read_data.val().get_bit(136);
        self.dyn2.d.next = self.dynt.read_data.val();
        // forwarding: the word of the event one ahead (now in C, written at
        // this edge) or two ahead (written at the last edge), newest first
        self.fwd1.d.next = self.v2.q.val() & (self.k2.q.val() == self.k1.q.val());
        self.fwd2.d.next = self.w_v.q.val() & (self.w_k.q.val() == self.k1.q.val());
        self.v2.d.next = self.v1.q.val();
        self.su2.d.next = self.su1.q.val();
        self.qu2.d.next = self.qu1.q.val();
        self.db2.d.next = self.db1.q.val();
        self.fe2.d.next = self.fe1.q.val();
        self.k2.d.next = self.k1.q.val();
        self.rq2.d.next = self.rq1.q.val();
        self.idx2.d.next = self.idx1.q.val();
        self.queue2.d.next = self.queue1.q.val();
        self.ok2.d.next = self.ok1.q.val();

        // ---- stage C: the current word, modified and written back
        self.cur.next = self.dyn2.q.val();
        if self.fwd2.q.val() {
            self.cur.next = self.wp_d.q.val();
        }
        if self.fwd1.q.val() {
            self.cur.next = self.w_d.q.val();
        }
        self.h_pi.next = self.cur.val().get_bits::<16>(0);
        self.h_ci.next = self.cur.val().get_bits::<16>(16);
        self.h_sched.next = self.cur.val().get_bit(32);
        if self.rq2.q.val() {
            self.h_pi.next = self.cur.val().get_bits::<16>(33);
            self.h_ci.next = self.cur.val().get_bits::<16>(49);
            self.h_sched.next = self.cur.val().get_bit(65);
        }
        self.n_pi.next = self.h_pi.val();
        self.n_ci.next = self.h_ci.val();
        self.n_sched.next = self.h_sched.val();
        self.push_now.next = false;
        self.err_q.d.next = false;
        // doorbell: record the producer index, schedule an idle ring
        if self.db2.q.val() {
            if self.ok2.q.val() & self.live2.q.val() {
                self.n_pi.next = self.idx2.q.val();
                if !self.h_sched.val() & (self.idx2.q.val() != self.h_ci.val()) {
                    self.push_now.next = true;
                    self.n_sched.next = true;
                }
            } else {
                self.err_q.d.next = true;
                self.err_queue.d.next = self.queue2.q.val();
            }
        }
        // fetch: one batch of consecutive WQEs; requeue if more are waiting
        self.more.next = self.pendhi2.q.val() | (self.pend2.q.val().get_bits::<4>(0) > self.lim2.q.val());
        self.n.next = self.pend2.q.val().get_bits::<4>(0);
        if self.more.val() {
            self.n.next = self.lim2.q.val();
        }
        self.fetch_go.next = self.fe2.q.val() & self.live2.q.val() & self.h_sched.val();
        self.fetch_dma.next = self.fetch_go.val() & self.n.val().any();
        if self.fetch_go.val() {
            self.n_ci.next = self.h_pi.val();
            self.n_sched.next = false;
            if self.more.val() {
                self.n_ci.next = self.h_ci.val() + bit_cast::<16, 4>(self.lim2.q.val());
                self.n_sched.next = true;
                self.push_now.next = true;
            }
        }
        self.half.next = bit_cast::<33, 16>(self.n_pi.val())
            | (bit_cast::<33, 16>(self.n_ci.val()) << 16)
            | (bit_cast::<33, 1>(self.n_sched.val().into()) << 32);
        self.new_dyn.next = (self.cur.val() & !bits::<66>(0x1_FFFF_FFFFu64)) | bit_cast::<66, 33>(self.half.val());
        if self.rq2.q.val() {
            self.new_dyn.next =
                (self.cur.val() & bits::<66>(0x1_FFFF_FFFFu64)) | (bit_cast::<66, 33>(self.half.val()) << 33);
        }
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
        self.push_v.d.next = self.push_now.val();
        self.push_d.d.next = (bit_cast::<11, 10>(self.k2.q.val()) << 1) | bit_cast::<11, 1>(self.rq2.q.val().into());
        self.sched.push.next = self.push_v.q.val();
        self.sched.push_data.next = self.push_d.q.val();

        // query: both rings' indices
        self.q_valid.d.next = self.qu2.q.val();
        if self.qu2.q.val() {
            self.q_data.d.next = bit_cast::<64, 32>(self.cur.val().get_bits::<32>(0))
                | (bit_cast::<64, 32>(self.cur.val().get_bits::<32>(33)) << 32);
            self.qu_busy.d.next = false;
        }
        self.query_valid.next = self.q_valid.q.val();
        self.query_data.next = self.q_data.q.val();
        self.db_error.next = self.err_q.q.val();
        self.db_error_queue.next = self.err_queue.q.val();

        // the batch's DMA read and its record
        self.cmd_len.next = bit_cast::<11, 4>(self.n.val()) << 7;
        if self.rq2.q.val() {
            self.cmd_len.next = bit_cast::<11, 4>(self.n.val()) << 6;
        }
        self.cmds.s_axis.tvalid.next = self.fetch_dma.val();
        self.cmds.s_axis.tdata.next =
            bit_cast::<75, 64>((bit_cast::<64, 52>(self.base2.q.val()) << 12) + bit_cast::<64, 22>(self.slot2.q.val()))
                | (bit_cast::<75, 11>(self.cmd_len.val()) << 64);
        self.cmds.s_axis.tkeep.next = 1.into();
        self.cmds.s_axis.tlast.next = true;
        self.cmds.s_axis.tuser.next = 0.into();
        self.m_rd.valid.next = self.cmds.m_axis.tvalid.val();
        self.m_rd.addr.next = self.cmds.m_axis.tdata.val().get_bits::<64>(0);
        self.m_rd.len.next = bit_cast::<32, 11>(self.cmds.m_axis.tdata.val().get_bits::<11>(64));
        self.cmds.m_axis.tready.next = self.m_rd.ready.val();
        self.inflight.s_axis.tvalid.next = self.fetch_dma.val();
        self.inflight.s_axis.tdata.next = (bit_cast::<31, 10>(self.k2.q.val()) << 21)
            | (bit_cast::<31, 1>(self.rq2.q.val().into()) << 20)
            | (bit_cast::<31, 16>(self.h_ci.val()) << 4)
            | bit_cast::<31, 4>(self.n.val() - 1);
        self.inflight.s_axis.tkeep.next = 1.into();
        self.inflight.s_axis.tlast.next = true;
        self.inflight.s_axis.tuser.next = 0.into();

        // ---- returned WQEs, labelled from the in-flight record, into a FIFO
        // whose registers drive m_wqe (no path from m_wqe.tready to s_rd)
        self.head.next = self.inflight.m_axis.tdata.val();
        self.wqe_last.next = self.head.val().get_bit(20) | self.d_beat.q.val();
        self.wqes.s_axis.tdata.next = self.s_rd.tdata.val();
        self.wqes.s_axis.tkeep.next = self.s_rd.tkeep.val();
        self.wqes.s_axis.tlast.next = self.wqe_last.val();
        self.wqes.s_axis.tuser.next = (bit_cast::<42, 1>(self.s_rd.tuser.val().get_bit(0).into()) << 41)
            | (bit_cast::<42, 1>(self.head.val().get_bit(20).into()) << 40)
            | (bit_cast::<42, 10>(self.head.val().get_bits::<10>(21)) << 16)
            | bit_cast::<42, 16>(self.head.val().get_bits::<16>(4) + bit_cast::<16, 4>(self.d_wqe.q.val()));
        self.wqes.s_axis.tvalid.next = self.s_rd.tvalid.val() & self.inflight.m_axis.tvalid.val();
        self.s_rd.tready.next = self.wqes.s_axis.tready.val() & self.inflight.m_axis.tvalid.val();
        self.d_fire.next = self.s_rd.tvalid.val() & self.inflight.m_axis.tvalid.val() & self.wqes.s_axis.tready.val();
        self.inflight.m_axis.tready.next = false;
        if self.d_fire.val() {
            self.d_beat.d.next = !self.wqe_last.val();
            if self.wqe_last.val() {
                self.d_wqe.d.next = self.d_wqe.q.val() + 1;
            }
            if self.s_rd.tlast.val() {
                self.inflight.m_axis.tready.next = true;
                self.d_wqe.d.next = 0.into();
                self.d_beat.d.next = false;
            }
        }
        AxisOut::<512, 64, 42>::link(&mut self.m_wqe, &mut self.wqes.m_axis);

        // fetches in flight: taken at A, done at C (no read) or at the last beat
        self.out_inc.next = self.ev_fetch.val();
        self.out_dec_c.next = self.fe2.q.val() & !self.fetch_dma.val();
        self.out_dec_w.next = self.d_fire.val() & self.s_rd.tlast.val();
        self.outstanding.d.next = self.outstanding.q.val() + bit_cast::<4, 1>(self.out_inc.val().into())
            - bit_cast::<4, 1>(self.out_dec_c.val().into())
            - bit_cast::<4, 1>(self.out_dec_w.val().into());

        if self.reset.val() {
            self.su_busy.d.next = false;
            self.su_go.d.next = false;
            self.qu_busy.d.next = false;
            self.qu_go.d.next = false;
            self.hv.d.next = false;
            self.sv.d.next = false;
            self.v1.d.next = false;
            self.su1.d.next = false;
            self.qu1.d.next = false;
            self.db1.d.next = false;
            self.fe1.d.next = false;
            self.v2.d.next = false;
            self.su2.d.next = false;
            self.qu2.d.next = false;
            self.db2.d.next = false;
            self.fe2.d.next = false;
            self.w_v.d.next = false;
            self.push_v.d.next = false;
            self.sched_room.d.next = false;
            self.outstanding.d.next = 0.into();
            self.q_valid.d.next = false;
            self.err_q.d.next = false;
            self.d_beat.d.next = false;
            self.d_wqe.d.next = 0.into();
        }
    }
}
