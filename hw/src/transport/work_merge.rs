//! `WorkMerge<Q>`: the send scheduler's two sources of work on its one
//! `s_work` port (docs/core.md): the doorbells (`s_db`, from `HostIf`) and
//! the completer's wakes (`s_wake`, from `RxLookup`: an ACK moved a QP's
//! UNA, so a requester its window stopped may send again).
//!
//! Built as `CqeMerge` is: round robin between the two (`RrOneHot`), one
//! QPN per cycle, through a skid buffer whose registers drive `m_work`, so
//! the sources see a registered `ready` and neither can hold the other
//! off. Latency [`WORK_MERGE_LATENCY`] cycle.

use super::{QpnIn, QpnOut};
use crate::axis::AxisSkidBuffer;
use crate::host::{RrOneHot, RR_MAX};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Cycles from a QPN taken on an input to it offered on `m_work`.
pub const WORK_MERGE_LATENCY: u64 = 1;

#[derive(LogicBlock, Default)]
pub struct WorkMerge<const Q: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_db: QpnIn<Q>,
    pub s_wake: QpnIn<Q>,
    pub m_work: QpnOut<Q>,
    rr: RrOneHot,
    req: Signal<Local, Bits<RR_MAX>>,
    grant: Signal<Local, Bits<RR_MAX>>,
    out: AxisSkidBuffer<Q, 1, 1>,
    kind: TypeTag<Self>,
}

impl<const Q: usize> Logic for WorkMerge<Q> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, rr, out);
        self.rr.reset.next = self.reset.val();
        self.out.reset.next = self.reset.val();
        self.req.next = 0.into();
        self.req.next = self.req.val().replace_bit(0, self.s_db.valid.val());
        self.req.next = self.req.val().replace_bit(1, self.s_wake.valid.val());
        self.rr.req.next = self.req.val();
        self.grant.next = self.rr.grant.val();
        self.rr.advance.next = self.out.s_axis.tready.val();
        self.s_db.ready.next = self.grant.val().get_bit(0) & self.out.s_axis.tready.val();
        self.s_wake.ready.next = self.grant.val().get_bit(1) & self.out.s_axis.tready.val();
        self.out.s_axis.tdata.next = self.s_db.qpn.val();
        if self.grant.val().get_bit(1) {
            self.out.s_axis.tdata.next = self.s_wake.qpn.val();
        }
        self.out.s_axis.tkeep.next = 1.into();
        self.out.s_axis.tuser.next = 0.into();
        self.out.s_axis.tlast.next = true;
        self.out.s_axis.tvalid.next = self.req.val().any();
        self.m_work.qpn.next = self.out.m_axis.tdata.val();
        self.m_work.valid.next = self.out.m_axis.tvalid.val();
        self.out.m_axis.tready.next = self.m_work.ready.val();
    }
}
