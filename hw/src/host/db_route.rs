//! `DbRoute`: where a doorbell goes (docs/core.md, "Doorbells"; docs/host.md,
//! "Doorbells").
//!
//! * **SqProducer / RqProducer** of a QP inside the tables: a masked write
//!   of the doorbell's index into the QP's cached context (`m_qpc`, one user
//!   of the `qpc` cache's port mux): `SQ_PROD` (bytes 56-57) or `RQ_PROD`
//!   (bytes 60-61), the other bytes untouched. Once the write is taken, an
//!   SqProducer's QPN is offered on `m_work` (for `send_sched.s_work`): the
//!   mux and the cache serve one index in the order taken, so every later
//!   request for the QP (`req_fetch`'s read after the scheduler's grant) sees
//!   the new producer index.
//! * **CqConsumer / CqArm**: to the CQ engine (`m_cq`), unchanged.
//! * **Bad** (another kind, or a QPN beyond `qpc_log_entries` or this
//!   build's `LOG_QPS`): dropped, and `db_error` pulses with the queue in
//!   `db_error_queue` (`events.DOORBELL_ERROR`).
//!
//! The cache's answers to the writes are taken at once and dropped (a write
//! whose context could not be read fails in the DMA engine, which raises
//! `events.DMA_ERROR` itself).
//!
//! Ports: `s_db` (from the register file), `m_qpc` / `s_qpc`, `m_work`,
//! `m_cq`, `db_error`, `db_error_queue`, `qpc_log`.
//!
//! Latency: a doorbell taken at cycle t is offered to the cache at t + 1
//! and, taken then, its QPN is on `m_work` at t + 2 ([`DB_WORK_LATENCY`]).
//! Rate: a doorbell every other cycle while `m_work` is taken at once (the
//! register file makes one every two register writes anyway). Every valid
//! and ready it drives is a register or depends on registers only.

use super::{CacheReqOut, CacheRespIn, DoorbellIn, DoorbellOut, CACHE_OP_WRITE};
use crate::consts::*;
use crate::prim::Reg;
use crate::transport::QpnOut;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Width of the QPN on `m_work`: the transport's (`send_sched`'s `Q`).
pub const WORK_QPN_BITS: usize = 14;
const _: () = assert!(LOG_QPS <= WORK_QPN_BITS, "every QPN a doorbell may name fits m_work");
/// Cycles from a doorbell taken on `s_db` to its QPN offered on `m_work`
/// (the cache's port taking the write at once).
pub const DB_WORK_LATENCY: u64 = 2;
const _: () = assert!(CACHE_OP_WRITE == 1);

#[derive(LogicBlock, Default)]
pub struct DbRoute {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// `RegFile::qpn_high`: the QPN bits that must be clear (the table's and the build's limit).
    pub qpn_high: Signal<In, Bits<24>>,
    pub s_db: DoorbellIn,
    /// Masked writes of the producer indices into the `qpc` cache.
    pub m_qpc: CacheReqOut<1024, 128>,
    pub s_qpc: CacheRespIn<1024>,
    /// The QP has send work (after its SQ_PROD is in the cache).
    pub m_work: QpnOut<WORK_QPN_BITS>,
    /// CQ doorbells, to the CQ engine.
    pub m_cq: DoorbellOut,
    /// A bad doorbell was dropped (pulse), and its queue.
    pub db_error: Signal<Out, Bit>,
    pub db_error_queue: Signal<Out, Bits<24>>,

    // ---- the doorbell held
    dv: Reg<Bit>,
    d_kind: Reg<Bits<4>>,
    d_queue: Reg<Bits<24>>,
    d_index: Reg<Bits<16>>,
    d_sol: Reg<Bit>,
    d_qp: Reg<Bit>,
    d_sq: Reg<Bit>,
    d_cq: Reg<Bit>,
    // ---- the work offered
    wv: Reg<Bit>,
    w_qpn: Reg<Bits<WORK_QPN_BITS>>,
    // ---- a bad doorbell
    ev: Reg<Bit>,
    ev_queue: Reg<Bits<24>>,
    in_qp: Signal<Local, Bit>,
    in_range: Signal<Local, Bit>,
    done: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for DbRoute {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dv, d_kind, d_queue, d_index, d_sol, d_qp, d_sq, d_cq, wv, w_qpn, ev, ev_queue);

        // ---- take a doorbell, classified on the way in
        self.s_db.ready.next = !self.dv.q.val();
        self.in_qp.next = (self.s_db.kind.val() == KIND_SQ) | (self.s_db.kind.val() == KIND_RQ);
        self.in_range.next = !(self.s_db.queue.val() & self.qpn_high.val()).any();
        if self.s_db.valid.val() & !self.dv.q.val() {
            self.dv.d.next = true;
            self.d_kind.d.next = self.s_db.kind.val();
            self.d_queue.d.next = self.s_db.queue.val();
            self.d_index.d.next = self.s_db.index.val();
            self.d_sol.d.next = self.s_db.solicited.val();
            self.d_qp.d.next = self.in_qp.val() & self.in_range.val();
            self.d_sq.d.next = self.s_db.kind.val() == KIND_SQ;
            self.d_cq.d.next = (self.s_db.kind.val() == KIND_CQ_CONSUMER) | (self.s_db.kind.val() == KIND_CQ_ARM);
        }

        // ---- the producer index into the cached context
        self.m_qpc.valid.next = self.dv.q.val() & self.d_qp.q.val() & !(self.d_sq.q.val() & self.wv.q.val());
        self.m_qpc.op.next = 1.into();
        self.m_qpc.index.next = self.d_queue.q.val();
        self.m_qpc.id.next = 0.into();
        self.m_qpc.data.next = bit_cast::<1024, 16>(self.d_index.q.val()) << QPC_RQ_PROD_BIT;
        self.m_qpc.mask.next = bits::<128>(3) << QPC_RQ_PROD_BYTE;
        if self.d_sq.q.val() {
            self.m_qpc.data.next = bit_cast::<1024, 16>(self.d_index.q.val()) << QPC_SQ_PROD_BIT;
            self.m_qpc.mask.next = bits::<128>(3) << QPC_SQ_PROD_BYTE;
        }
        self.s_qpc.ready.next = true;

        // ---- CQ doorbells
        self.m_cq.valid.next = self.dv.q.val() & self.d_cq.q.val();
        self.m_cq.kind.next = self.d_kind.q.val();
        self.m_cq.queue.next = self.d_queue.q.val();
        self.m_cq.index.next = self.d_index.q.val();
        self.m_cq.solicited.next = self.d_sol.q.val();

        // ---- done with the doorbell: written, handed on, or dropped
        self.ev.d.next = false;
        self.done.next =
            (self.m_qpc.valid.val() & self.m_qpc.ready.val()) | (self.m_cq.valid.val() & self.m_cq.ready.val());
        if self.dv.q.val() & !self.d_qp.q.val() & !self.d_cq.q.val() {
            self.done.next = true;
            self.ev.d.next = true;
            self.ev_queue.d.next = self.d_queue.q.val();
        }
        if self.done.val() {
            self.dv.d.next = false;
        }

        // ---- work for the scheduler, once the write is taken
        if self.m_work.ready.val() {
            self.wv.d.next = false;
        }
        if self.m_qpc.valid.val() & self.m_qpc.ready.val() & self.d_sq.q.val() {
            self.wv.d.next = true;
            self.w_qpn.d.next = self.d_queue.q.val().get_bits::<WORK_QPN_BITS>(0);
        }
        self.m_work.valid.next = self.wv.q.val();
        self.m_work.qpn.next = self.w_qpn.q.val();
        self.db_error.next = self.ev.q.val();
        self.db_error_queue.next = self.ev_queue.q.val();

        if self.reset.val() {
            self.dv.d.next = false;
            self.wv.d.next = false;
            self.ev.d.next = false;
        }
    }
}
