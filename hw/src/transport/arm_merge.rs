//! `ArmMerge`: the retransmit timer's two sources of armings on its one
//! `s_arm` port: the requester (`ReqFetch`, after each job that sent) and
//! the completer (after an ACK that moved UNA with PSNs still outstanding).
//! Built on [`WorkMerge`] (round robin, a registered `ready` per source,
//! one arming per cycle): an arming packed as one word, QPN in the low 14
//! bits ([`REQ_QPN_BITS`]), then the code (5 bits) and the kind. Latency
//! [`WORK_MERGE_LATENCY`](super::WORK_MERGE_LATENCY).

use super::{ArmIn, ArmOut, WorkMerge, REQ_QPN_BITS};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct ArmMerge {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_req: ArmIn<Q>,
    pub s_comp: ArmIn<Q>,
    pub m_arm: ArmOut<Q>,
    merge: WorkMerge<W>,
    kind: TypeTag<Self>,
}

const Q: usize = REQ_QPN_BITS;
const W: usize = ARM_WORD_BITS;
/// Bits of a packed arming.
pub const ARM_WORD_BITS: usize = REQ_QPN_BITS + 6;
const _: () = assert!(Q == 14 && W == 20, "the literal shifts 14 and 19 of update");

impl Logic for ArmMerge {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, merge);
        self.merge.reset.next = self.reset.val();
        self.merge.s_db.qpn.next = bit_cast::<W, Q>(self.s_req.qpn.val())
            | (bit_cast::<W, 5>(self.s_req.code.val()) << 14)
            | (bit_cast::<W, 1>(self.s_req.kind.val().into()) << 19);
        self.merge.s_db.valid.next = self.s_req.valid.val();
        self.s_req.ready.next = self.merge.s_db.ready.val();
        self.merge.s_wake.qpn.next = bit_cast::<W, Q>(self.s_comp.qpn.val())
            | (bit_cast::<W, 5>(self.s_comp.code.val()) << 14)
            | (bit_cast::<W, 1>(self.s_comp.kind.val().into()) << 19);
        self.merge.s_wake.valid.next = self.s_comp.valid.val();
        self.s_comp.ready.next = self.merge.s_wake.ready.val();
        self.m_arm.qpn.next = self.merge.m_work.qpn.val().get_bits::<Q>(0);
        self.m_arm.code.next = self.merge.m_work.qpn.val().get_bits::<5>(14);
        self.m_arm.kind.next = self.merge.m_work.qpn.val().get_bit(19);
        self.m_arm.valid.next = self.merge.m_work.valid.val();
        self.merge.m_work.ready.next = self.m_arm.ready.val();
    }
}
