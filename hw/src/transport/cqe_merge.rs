//! `CqeMerge`: the transport's two sources of completions onto the CQ
//! engine's one port (`HostIf::s_cqe`), each laid out as `layouts::cqe`.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_recv` | in | the responder's receive completions (`RespExec::m_cqe`: with the immediate) |
//! | `s_comp` | in | the completer's send completions (`CompAck::m_cqe`) |
//! | `m_cqe` | out | `CqEngine::s_cqe`: the CQ number and the 32-byte entry (the engine sets OWNER) |
//!
//! Round robin between the two (`RrOneHot`), one CQE per cycle, through a
//! skid buffer whose registers drive `m_cqe`, so the sources see a
//! registered `ready`. `solicited`: a receive completion's (the
//! completing packet's BTH.SE, `RecvCqeOut::solicited`); a send completion
//! is never solicited (an error one interrupts a solicited-only CQ anyway,
//! `cq_engine`). Latency 1 cycle.

use super::{CompCqeIn, RecvCqeIn};
use crate::axis::AxisSkidBuffer;
use crate::consts::*;
use crate::host::{CqeOut, RrOneHot, RR_MAX};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CqeMerge {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_recv: RecvCqeIn,
    pub s_comp: CompCqeIn,
    pub m_cqe: CqeOut,
    rr: RrOneHot,
    req: Signal<Local, Bits<RR_MAX>>,
    grant: Signal<Local, Bits<RR_MAX>>,
    recv_e: Signal<Local, Bits<256>>,
    comp_e: Signal<Local, Bits<256>>,
    /// `tuser`: {solicited, CQN}.
    out: AxisSkidBuffer<256, 1, 25>,
    kind: TypeTag<Self>,
}

impl CqeMerge {
    /// Cycles from a CQE taken to it offered on `m_cqe`.
    pub const LATENCY: u64 = 1;
}

impl Logic for CqeMerge {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, rr, out);
        self.rr.reset.next = self.reset.val();
        self.out.reset.next = self.reset.val();
        self.req.next = 0.into();
        self.req.next = self.req.val().replace_bit(0, self.s_recv.valid.val());
        self.req.next = self.req.val().replace_bit(1, self.s_comp.valid.val());
        self.rr.req.next = self.req.val();
        self.grant.next = self.rr.grant.val();
        self.rr.advance.next = self.out.s_axis.tready.val();
        self.s_recv.ready.next = self.grant.val().get_bit(0) & self.out.s_axis.tready.val();
        self.s_comp.ready.next = self.grant.val().get_bit(1) & self.out.s_axis.tready.val();
        self.recv_e.next = (bit_cast::<256, 64>(self.s_recv.wr_id.val()) << CQE_WR_ID)
            | (bit_cast::<256, 32>(self.s_recv.byte_len.val()) << CQE_BYTE_LEN)
            | (bit_cast::<256, 32>(self.s_recv.imm.val()) << CQE_IMM)
            | (bit_cast::<256, 24>(self.s_recv.qpn.val()) << CQE_QPN)
            | (bit_cast::<256, 8>(self.s_recv.status.val()) << CQE_STATUS_POS)
            | (bit_cast::<256, 8>(self.s_recv.opcode.val()) << CQE_OPCODE)
            | (bit_cast::<256, 1>(self.s_recv.with_imm.val().into()) << CQE_WITH_IMM)
            | (bit_cast::<256, 16>(self.s_recv.wqe_index.val()) << CQE_WQE_INDEX);
        self.comp_e.next = (bit_cast::<256, 64>(self.s_comp.wr_id.val()) << CQE_WR_ID)
            | (bit_cast::<256, 32>(self.s_comp.byte_len.val()) << CQE_BYTE_LEN)
            | (bit_cast::<256, 24>(self.s_comp.qpn.val()) << CQE_QPN)
            | (bit_cast::<256, 8>(self.s_comp.status.val()) << CQE_STATUS_POS)
            | (bit_cast::<256, 8>(self.s_comp.opcode.val()) << CQE_OPCODE)
            | (bit_cast::<256, 16>(self.s_comp.wqe_index.val()) << CQE_WQE_INDEX);
        self.out.s_axis.tdata.next = self.recv_e.val();
        self.out.s_axis.tuser.next =
            bit_cast::<25, 24>(self.s_recv.cq.val()) | (bit_cast::<25, 1>(self.s_recv.solicited.val().into()) << 24);
        if self.grant.val().get_bit(1) {
            self.out.s_axis.tdata.next = self.comp_e.val();
            self.out.s_axis.tuser.next = bit_cast::<25, 24>(self.s_comp.cq.val());
        }
        self.out.s_axis.tkeep.next = 1.into();
        self.out.s_axis.tlast.next = true;
        self.out.s_axis.tvalid.next = self.req.val().any();
        self.m_cqe.cqn.next = self.out.m_axis.tuser.val().get_bits::<24>(0);
        self.m_cqe.data.next = self.out.m_axis.tdata.val();
        self.m_cqe.solicited.next = self.out.m_axis.tuser.val().get_bit(24);
        self.m_cqe.valid.next = self.out.m_axis.tvalid.val();
        self.out.m_axis.tready.next = self.m_cqe.ready.val();
    }
}
