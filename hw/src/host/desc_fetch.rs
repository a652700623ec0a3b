//! `DescFetch`: turns SqProducer/RqProducer doorbells into WQEs.
//!
//! Each QP's send and receive ring (base, size, producer index from the
//! last doorbell, fetch index) sits in one of two tables indexed by QPN,
//! loaded from the QP context by the context engine. A doorbell only
//! updates its queue's producer index and, if the queue was idle, appends
//! the queue to a FIFO of queues with work: no scan over queues, one
//! doorbell per cycle whatever their number. The fetcher takes the FIFO's
//! head, reads up to [`FETCH_BATCH`] consecutive WQEs in one DMA read
//! (never across the ring's end), and puts the queue back at the tail if it
//! still has work, so busy queues take turns batch by batch.
//!
//! All table accesses are one event per cycle (setup > query > doorbell >
//! fetch), so none can race another. WQEs leave on `m_wqe`, 64 bytes per
//! beat (a send WQE is two beats, a receive WQE one), `tlast` on each
//! WQE's last beat, and `tuser` = {DMA error [41], RQ [40], QPN [39:16],
//! WQE index [15:0]}.

use super::{DoorbellIn, RdCmdOut};
use crate::axis::{AxisFifo, AxisIn, AxisOut};
use crate::consts::*;
use crate::prim::{LutRam, Reg};
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

    sq: LutRam<Bits<90>, 10>,
    rq: LutRam<Bits<90>, 10>,
    sched: AxisFifo<11, 1, 1, 11>,
    inflight: AxisFifo<31, 1, 1, 3>,
    cmd_valid: Reg<Bit>,
    cmd_addr: Reg<Bits<64>>,
    cmd_len: Reg<Bits<32>>,
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
    cmd_free: Signal<Local, Bit>,
    key_qpn: Signal<Local, Bits<10>>,
    key_rq: Signal<Local, Bit>,
    entry: Signal<Local, Bits<90>>,
    e_base: Signal<Local, Bits<52>>,
    e_log: Signal<Local, Bits<4>>,
    e_pi: Signal<Local, Bits<16>>,
    e_ci: Signal<Local, Bits<16>>,
    e_live: Signal<Local, Bit>,
    e_sched: Signal<Local, Bit>,
    db_ok: Signal<Local, Bit>,
    new_entry: Signal<Local, Bits<90>>,
    write_back: Signal<Local, Bit>,
    pending: Signal<Local, Bits<16>>,
    slot: Signal<Local, Bits<16>>,
    room: Signal<Local, Bits<17>>,
    n: Signal<Local, Bits<16>>,
    ci_new: Signal<Local, Bits<16>>,
    push_key: Signal<Local, Bit>,
    wqe_last: Signal<Local, Bit>,
    head: Signal<Local, Bits<31>>,
    d_fire: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for DescFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cmd_valid, cmd_addr, cmd_len, q_valid, q_data, err_q, err_queue, d_beat, d_wqe);
        clock!(self, clock, sq, rq);
        self.sched.clock.next = self.clock.val();
        self.sched.reset.next = self.reset.val();
        self.inflight.clock.next = self.clock.val();
        self.inflight.reset.next = self.reset.val();

        // ---- one event per cycle
        self.cmd_free.next = !self.cmd_valid.q.val() | self.m_rd.ready.val();
        self.ev_setup.next = self.s_setup.valid.val();
        self.ev_query.next = self.s_query.valid.val() & !self.ev_setup.val();
        self.ev_db.next = self.s_db.valid.val() & !self.ev_setup.val() & !self.ev_query.val() & !self.sched.full.val();
        self.ev_fetch.next = self.enable.val()
            & self.sched.m_axis.tvalid.val()
            & self.cmd_free.val()
            & !self.inflight.full.val()
            & !self.ev_setup.val()
            & !self.ev_query.val()
            & !self.s_db.valid.val();
        self.s_setup.ready.next = true;
        self.s_query.ready.next = !self.ev_setup.val();
        self.s_db.ready.next = self.ev_db.val();

        // the entry the event is about
        self.key_qpn.next = bit_cast::<10, 11>(self.sched.m_axis.tdata.val() >> 1);
        self.key_rq.next = self.sched.m_axis.tdata.val().get_bit(0);
        if self.ev_db.val() {
            self.key_qpn.next = bit_cast::<10, 24>(self.s_db.queue.val());
            self.key_rq.next = self.s_db.kind.val() == KIND_RQ;
        }
        if self.ev_query.val() {
            self.key_qpn.next = bit_cast::<10, 24>(self.s_query.index.val());
            self.key_rq.next = false;
        }
        self.sq.read_addr.next = self.key_qpn.val();
        self.rq.read_addr.next = self.key_qpn.val();
        self.entry.next = self.sq.read_data.val();
        if self.key_rq.val() {
            self.entry.next = self.rq.read_data.val();
        }
        self.e_base.next = self.entry.val().get_bits::<52>(0);
        self.e_log.next = self.entry.val().get_bits::<4>(52);
        self.e_pi.next = self.entry.val().get_bits::<16>(56);
        self.e_ci.next = self.entry.val().get_bits::<16>(72);
        self.e_live.next = self.entry.val().get_bit(88);
        self.e_sched.next = self.entry.val().get_bit(89);

        // ---- query: both rings' indices
        self.q_valid.d.next = self.ev_query.val();
        if self.ev_query.val() {
            self.q_data.d.next = bit_cast::<64, 16>(self.sq.read_data.val().get_bits::<16>(56))
                | (bit_cast::<64, 16>(self.sq.read_data.val().get_bits::<16>(72)) << 16)
                | (bit_cast::<64, 16>(self.rq.read_data.val().get_bits::<16>(56)) << 32)
                | (bit_cast::<64, 16>(self.rq.read_data.val().get_bits::<16>(72)) << 48);
        }
        self.query_valid.next = self.q_valid.q.val();
        self.query_data.next = self.q_data.q.val();

        // ---- doorbell: record the producer index, schedule an idle queue
        self.db_ok.next = !self.s_db.queue.val().get_bits::<14>(10).any()
            & (self.s_db.queue.val().get_bits::<10>(1).any())
            & self.e_live.val()
            & ((self.s_db.kind.val() == KIND_SQ) | (self.s_db.kind.val() == KIND_RQ));
        self.new_entry.next = self.entry.val();
        self.write_back.next = false;
        self.push_key.next = false;
        self.err_q.d.next = false;
        if self.ev_db.val() {
            if self.db_ok.val() {
                self.write_back.next = true;
                self.new_entry.next = (self.entry.val() & !(bits::<90>(0xFFFF) << 56))
                    | (bit_cast::<90, 16>(self.s_db.index.val()) << 56);
                if !self.e_sched.val() & (self.s_db.index.val() != self.e_ci.val()) {
                    self.push_key.next = true;
                    self.new_entry.next = self.new_entry.val() | (bits::<90>(1) << 89);
                }
            } else {
                self.err_q.d.next = true;
                self.err_queue.d.next = self.s_db.queue.val();
            }
        }
        self.db_error.next = self.err_q.q.val();
        self.db_error_queue.next = self.err_queue.q.val();

        // ---- fetch: one batch of consecutive WQEs from the queue at the head
        self.pending.next = self.e_pi.val() - self.e_ci.val();
        self.slot.next = self.e_ci.val() & ((bits::<16>(1) << self.e_log.val()) - 1);
        self.room.next = (bits::<17>(1) << self.e_log.val()) - bit_cast::<17, 16>(self.slot.val());
        self.n.next = self.pending.val();
        if self.n.val() > FETCH_BATCH {
            self.n.next = bits::<16>(FETCH_BATCH);
        }
        if bit_cast::<17, 16>(self.n.val()) > self.room.val() {
            self.n.next = bit_cast::<16, 17>(self.room.val());
        }
        self.ci_new.next = self.e_ci.val() + self.n.val();
        self.sched.m_axis.tready.next = self.ev_fetch.val();
        self.inflight.s_axis.tvalid.next = false;
        self.inflight.s_axis.tdata.next = (bit_cast::<31, 10>(self.key_qpn.val()) << 21)
            | (bit_cast::<31, 1>(self.key_rq.val().into()) << 20)
            | (bit_cast::<31, 16>(self.e_ci.val()) << 4)
            | bit_cast::<31, 16>(self.n.val() - 1);
        self.inflight.s_axis.tkeep.next = 1.into();
        self.inflight.s_axis.tlast.next = true;
        self.inflight.s_axis.tuser.next = 0.into();
        if self.m_rd.ready.val() {
            self.cmd_valid.d.next = false;
        }
        if self.ev_fetch.val() & self.e_live.val() & self.e_sched.val() {
            self.write_back.next = true;
            if self.n.val().any() {
                self.inflight.s_axis.tvalid.next = true;
                self.cmd_valid.d.next = true;
                self.cmd_addr.d.next =
                    (bit_cast::<64, 52>(self.e_base.val()) << 12) + (bit_cast::<64, 16>(self.slot.val()) << 6);
                self.cmd_len.d.next = bit_cast::<32, 16>(self.n.val()) << 6;
                if !self.key_rq.val() {
                    self.cmd_addr.d.next =
                        (bit_cast::<64, 52>(self.e_base.val()) << 12) + (bit_cast::<64, 16>(self.slot.val()) << 7);
                    self.cmd_len.d.next = bit_cast::<32, 16>(self.n.val()) << 7;
                }
            }
            self.new_entry.next =
                (self.entry.val() & !(bits::<90>(0xFFFF) << 72)) | (bit_cast::<90, 16>(self.ci_new.val()) << 72);
            if self.ci_new.val() != self.e_pi.val() {
                self.push_key.next = true;
            } else {
                self.new_entry.next = self.new_entry.val() & !(bits::<90>(1) << 89);
            }
        }
        self.sched.s_axis.tvalid.next = self.push_key.val();
        self.sched.s_axis.tdata.next =
            (bit_cast::<11, 10>(self.key_qpn.val()) << 1) | bit_cast::<11, 1>(self.key_rq.val().into());
        self.sched.s_axis.tkeep.next = 1.into();
        self.sched.s_axis.tlast.next = true;
        self.sched.s_axis.tuser.next = 0.into();
        self.m_rd.valid.next = self.cmd_valid.q.val();
        self.m_rd.addr.next = self.cmd_addr.q.val();
        self.m_rd.len.next = self.cmd_len.q.val();

        // ---- table writes: the event's entry, or both entries on setup
        self.sq.write_addr.next = self.key_qpn.val();
        self.rq.write_addr.next = self.key_qpn.val();
        self.sq.write_data.next = self.new_entry.val();
        self.rq.write_data.next = self.new_entry.val();
        self.sq.write_enable.next = self.write_back.val() & !self.key_rq.val();
        self.rq.write_enable.next = self.write_back.val() & self.key_rq.val();
        if self.ev_setup.val() {
            self.sq.write_addr.next = bit_cast::<10, 24>(self.s_setup.qpn.val());
            self.rq.write_addr.next = bit_cast::<10, 24>(self.s_setup.qpn.val());
            self.sq.write_data.next = bit_cast::<90, 52>(self.s_setup.sq_base.val().get_bits::<52>(12))
                | (bit_cast::<90, 4>(self.s_setup.sq_log.val()) << 52)
                | (bit_cast::<90, 16>(self.s_setup.sq_prod.val()) << 56)
                | (bit_cast::<90, 16>(self.s_setup.sq_cons.val()) << 72)
                | (bit_cast::<90, 1>(self.s_setup.live.val().into()) << 88);
            self.rq.write_data.next = bit_cast::<90, 52>(self.s_setup.rq_base.val().get_bits::<52>(12))
                | (bit_cast::<90, 4>(self.s_setup.rq_log.val()) << 52)
                | (bit_cast::<90, 16>(self.s_setup.rq_prod.val()) << 56)
                | (bit_cast::<90, 16>(self.s_setup.rq_cons.val()) << 72)
                | (bit_cast::<90, 1>(self.s_setup.live.val().into()) << 88);
            self.sq.write_enable.next = true;
            self.rq.write_enable.next = true;
        }

        // ---- returned WQEs, labelled from the in-flight record
        self.head.next = self.inflight.m_axis.tdata.val();
        self.wqe_last.next = self.head.val().get_bit(20) | self.d_beat.q.val();
        self.m_wqe.tdata.next = self.s_rd.tdata.val();
        self.m_wqe.tkeep.next = self.s_rd.tkeep.val();
        self.m_wqe.tlast.next = self.wqe_last.val();
        self.m_wqe.tuser.next = (bit_cast::<42, 1>(self.s_rd.tuser.val().get_bit(0).into()) << 41)
            | (bit_cast::<42, 1>(self.head.val().get_bit(20).into()) << 40)
            | (bit_cast::<42, 10>(self.head.val().get_bits::<10>(21)) << 16)
            | bit_cast::<42, 16>(self.head.val().get_bits::<16>(4) + bit_cast::<16, 4>(self.d_wqe.q.val()));
        self.m_wqe.tvalid.next = self.s_rd.tvalid.val() & self.inflight.m_axis.tvalid.val();
        self.s_rd.tready.next = self.m_wqe.tready.val() & self.inflight.m_axis.tvalid.val();
        self.d_fire.next = self.s_rd.tvalid.val() & self.inflight.m_axis.tvalid.val() & self.m_wqe.tready.val();
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

        if self.reset.val() {
            self.cmd_valid.d.next = false;
            self.q_valid.d.next = false;
            self.err_q.d.next = false;
            self.d_beat.d.next = false;
            self.d_wqe.d.next = 0.into();
        }
    }
}
