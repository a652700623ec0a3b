//! `ReqSlots`: the grant side of [`ReqFetch`](super::ReqFetch): its
//! [`SCHED_SLOTS`] slots' flags (free, `qpc` answer in, `qps` answer in, an answer with
//! `err`), the grant port, and the two cache read requests. A grant takes
//! the lowest free slot (`sel`, the requests' id); both requests are
//! offered from registers the next cycle; `s_grant.ready` is a register,
//! high when a slot is free and both request registers are empty (so at
//! most one grant per two cycles). The `qps` request shares the parent's
//! port with the write-back (which has priority: `qps_taken` is the port's
//! ready without a write). A slot is freed by the parent (`freed`) with its
//! scheduler done.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_grant` | in | a QP to serve |
//! | `m_qpc` | out | the `qpc` read (id = slot) |
//! | `qps_rv`, `rq_qpn`, `rq_slot`, `qps_taken` | out, out, out, in | the `qps` read, for the parent's port mux |
//! | `take`, `sel` | out | a grant taken, into slot `sel` |
//! | `qpc_ans`, `qpc_id`, `qpc_err` (and `qps_`) | in | a read answer (the parent filters out write answers) |
//! | `freed`, `any_freed` | in | slots freed this cycle; any (the same, from the done sources) |
//! | `got`, `bad` | out | per slot: both answers in; an answer had `err` |

use super::QpnIn;
use super::REQ_QPN_BITS;
use crate::consts::{SCHED_ALL_SLOTS, SCHED_SLOTS, SCHED_SLOT_BITS, SLOT_ENC0, SLOT_ENC1, SLOT_ENC2, SLOT_ENC3};
use crate::host::CacheReqOut;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct ReqSlots {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_grant: QpnIn<REQ_QPN_BITS>,
    pub m_qpc: CacheReqOut<1024, 128>,
    pub qps_rv: Signal<Out, Bit>,
    pub rq_qpn: Signal<Out, Bits<REQ_QPN_BITS>>,
    pub rq_slot: Signal<Out, Bits<SCHED_SLOT_BITS>>,
    pub qps_taken: Signal<In, Bit>,
    pub take: Signal<Out, Bit>,
    pub sel: Signal<Out, Bits<SCHED_SLOT_BITS>>,
    pub qpc_ans: Signal<In, Bit>,
    pub qpc_id: Signal<In, Bits<SCHED_SLOT_BITS>>,
    pub qpc_err: Signal<In, Bit>,
    pub qps_ans: Signal<In, Bit>,
    pub qps_id: Signal<In, Bits<SCHED_SLOT_BITS>>,
    pub qps_err: Signal<In, Bit>,
    pub freed: Signal<In, Bits<SCHED_SLOTS>>,
    pub any_freed: Signal<In, Bit>,
    pub got: Signal<Out, Bits<SCHED_SLOTS>>,
    pub bad: Signal<Out, Bits<SCHED_SLOTS>>,
    free: Reg<Bits<SCHED_SLOTS>>,
    got_c: Reg<Bits<SCHED_SLOTS>>,
    got_s: Reg<Bits<SCHED_SLOTS>>,
    bad_r: Reg<Bits<SCHED_SLOTS>>,
    g_rdy: Reg<Bit>,
    qpc_rv: Reg<Bit>,
    qps_rq: Reg<Bit>,
    rq_q: Reg<Bits<REQ_QPN_BITS>>,
    rq_s: Reg<Bits<SCHED_SLOT_BITS>>,
    low: Signal<Local, Bits<SCHED_SLOTS>>,
    slot_sel: Signal<Local, Bits<SCHED_SLOT_BITS>>,
    take_g: Signal<Local, Bit>,
    qpc_rv_n: Signal<Local, Bit>,
    qps_rv_n: Signal<Local, Bit>,
    gc_n: Signal<Local, Bits<SCHED_SLOTS>>,
    gs_n: Signal<Local, Bits<SCHED_SLOTS>>,
    bad_n: Signal<Local, Bits<SCHED_SLOTS>>,
    free_n: Signal<Local, Bits<SCHED_SLOTS>>,
    kind: TypeTag<Self>,
}

impl Logic for ReqSlots {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, free, got_c, got_s, bad_r, g_rdy, qpc_rv, qps_rq, rq_q, rq_s);
        // ---- the grant: the lowest free slot, both cache reads
        self.s_grant.ready.next = self.g_rdy.q.val();
        self.take_g.next = self.s_grant.valid.val() & self.g_rdy.q.val();
        self.low.next = self.free.q.val() & (!self.free.q.val() + 1);
        self.slot_sel.next = bit_cast::<SCHED_SLOT_BITS, 1>((self.low.val() & SLOT_ENC0).any().into())
            | (bit_cast::<SCHED_SLOT_BITS, 1>((self.low.val() & SLOT_ENC1).any().into()) << 1)
            | (bit_cast::<SCHED_SLOT_BITS, 1>((self.low.val() & SLOT_ENC2).any().into()) << 2)
            | (bit_cast::<SCHED_SLOT_BITS, 1>((self.low.val() & SLOT_ENC3).any().into()) << 3);
        self.take.next = self.take_g.val();
        self.sel.next = self.slot_sel.val();
        self.got.next = self.got_c.q.val() & self.got_s.q.val();
        self.bad.next = self.bad_r.q.val();
        self.m_qpc.valid.next = self.qpc_rv.q.val();
        self.m_qpc.op.next = 0.into(); // CACHE_OP_READ
        self.m_qpc.index.next = bit_cast::<24, REQ_QPN_BITS>(self.rq_q.q.val());
        self.m_qpc.id.next = bit_cast::<8, SCHED_SLOT_BITS>(self.rq_s.q.val());
        self.m_qpc.mask.next = 0.into();
        self.m_qpc.data.next = 0.into();
        self.qps_rv.next = self.qps_rq.q.val();
        self.rq_qpn.next = self.rq_q.q.val();
        self.rq_slot.next = self.rq_s.q.val();
        self.qpc_rv_n.next = self.qpc_rv.q.val() & !self.m_qpc.ready.val();
        self.qps_rv_n.next = self.qps_rq.q.val() & !self.qps_taken.val();
        self.qpc_rv.d.next = self.qpc_rv_n.val();
        self.qps_rq.d.next = self.qps_rv_n.val();
        if self.take_g.val() {
            self.qpc_rv.d.next = true;
            self.qps_rq.d.next = true;
            self.rq_q.d.next = self.s_grant.qpn.val();
            self.rq_s.d.next = self.slot_sel.val();
        }

        // ---- the flags
        self.gc_n.next = self.got_c.q.val();
        self.gs_n.next = self.got_s.q.val();
        self.bad_n.next = self.bad_r.q.val();
        if self.qpc_ans.val() {
            self.gc_n.next = self.gc_n.val() | bits::<SCHED_SLOTS>(1 << self.qpc_id.val().index());
            if self.qpc_err.val() {
                self.bad_n.next = self.bad_n.val() | bits::<SCHED_SLOTS>(1 << self.qpc_id.val().index());
            }
        }
        if self.qps_ans.val() {
            self.gs_n.next = self.gs_n.val() | bits::<SCHED_SLOTS>(1 << self.qps_id.val().index());
            if self.qps_err.val() {
                self.bad_n.next = self.bad_n.val() | bits::<SCHED_SLOTS>(1 << self.qps_id.val().index());
            }
        }
        self.free_n.next = self.free.q.val() | self.freed.val();
        if self.take_g.val() {
            self.free_n.next = self.free_n.val() & !bits::<SCHED_SLOTS>(1 << self.slot_sel.val().index());
            self.gc_n.next = self.gc_n.val() & !bits::<SCHED_SLOTS>(1 << self.slot_sel.val().index());
            self.gs_n.next = self.gs_n.val() & !bits::<SCHED_SLOTS>(1 << self.slot_sel.val().index());
            self.bad_n.next = self.bad_n.val() & !bits::<SCHED_SLOTS>(1 << self.slot_sel.val().index());
        }
        self.free.d.next = self.free_n.val();
        self.got_c.d.next = self.gc_n.val();
        self.got_s.d.next = self.gs_n.val();
        self.bad_r.d.next = self.bad_n.val();
        // a grant when a slot is free and both requests have left (at most one per two cycles)
        // (`any_freed` is `freed.any()` from the parent's done sources, without the slot decode)
        self.g_rdy.d.next = (self.free.q.val().any() | self.any_freed.val())
            & !self.take_g.val()
            & !self.qpc_rv_n.val()
            & !self.qps_rv_n.val();
        if self.reset.val() {
            self.free.d.next = SCHED_ALL_SLOTS.into();
            self.got_c.d.next = 0.into();
            self.got_s.d.next = 0.into();
            self.g_rdy.d.next = false;
            self.qpc_rv.d.next = false;
            self.qps_rq.d.next = false;
        }
    }
}
