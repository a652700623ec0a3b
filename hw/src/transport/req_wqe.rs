//! `ReqWqeStage`: the WQE stage and the job register of
//! [`ReqFetch`](super::ReqFetch). The WQE's two DMA beats are collected in
//! `wq_lo`/`wq_hi` (a first beat of the next WQE may wait in `wq_nx` while
//! the full pair waits for the job register, so WQEs are taken at the DMA's
//! rate); with the pair and its slot's job context (`jc`, from the parent's
//! LUTRAM at the DMA order's head) the stage checks the READ/atomic limit
//! and the fence for a job that starts its WQE (not a flush job's), then either loads the job
//! register (`go` without `block`) or ends the grant (`go` with `block`: a
//! limit, the fence, or a DMA error; the parent sends the done).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_rd` | in | the WQE's two beats (`tuser[0]`: DMA error); `tready` is a register (not full pair + half) |
//! | `jc`, `path` | in | the head slot's job context and `qpc.PATH` |
//! | `stop_free` | in | the done register free for a stop (no higher source) |
//! | `go`, `block`, `stop` | out | the head WQE leaves the stage; as a stop; `stop` = full and blocked (for the parent's done priority) |
//! | `rd_first` | out | the job starts a READ/atomic (counts in RD_ATOMIC_STARTED) |
//! | `m_job` | out | the job for `ReqGen`, from registers |
//!
//! Latency: the job register is loaded the cycle after the second beat is
//! taken (when free); one WQE per two cycles.

use super::{ReqJobOut, REQ_JCTX_BITS, REQ_QPN_BITS};
use crate::axis::AxisIn;
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct ReqWqeStage {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_rd: AxisIn<512, 64, 1>,
    pub jc: Signal<In, Bits<REQ_JCTX_BITS>>,
    pub path: Signal<In, Bits<512>>,
    pub stop_free: Signal<In, Bit>,
    pub go: Signal<Out, Bit>,
    pub block: Signal<Out, Bit>,
    pub stop: Signal<Out, Bit>,
    pub rd_first: Signal<Out, Bit>,
    pub m_job: ReqJobOut,
    // ---- the WQE
    wq_lo: Reg<Bits<512>>,
    wq_hi: Reg<Bits<512>>,
    wq_half: Reg<Bit>,
    wq_full: Reg<Bit>,
    wq_err: Reg<Bit>,
    wq_nx: Reg<Bits<512>>,
    wq_nx_err: Reg<Bit>,
    // ---- the job
    job_v: Reg<Bit>,
    job_ctx: Reg<Bits<REQ_JCTX_BITS>>,
    job_path: Reg<Bits<512>>,
    job_lo: Reg<Bits<512>>,
    job_sges: Reg<Bits<512>>,
    // ---- locals
    beat: Signal<Local, Bit>,
    opc: Signal<Local, Bits<8>>,
    rdop: Signal<Local, Bit>,
    j_block: Signal<Local, Bit>,
    j_go: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for ReqWqeStage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wq_lo, wq_hi, wq_half, wq_full, wq_err, wq_nx, wq_nx_err, job_v, job_ctx, job_path, job_lo,
            job_sges
        );
        self.opc.next = self.wq_lo.q.val().get_bits::<8>(WQE_OPCODE);
        self.rdop.next =
            (self.opc.val() == SOP_RDMA_READ) | (self.opc.val() == SOP_CMP_SWAP) | (self.opc.val() == SOP_FETCH_ADD);
        // jc: rd_ok [152], fence_ok [153], a first send of the WQE [154],
        // a flush job [156] (no limit or fence: nothing is sent)
        self.j_block.next = self.wq_err.q.val()
            | (self.jc.val().get_bit(154)
                & !self.jc.val().get_bit(156)
                & ((self.rdop.val() & !self.jc.val().get_bit(152))
                    | (self.wq_lo.q.val().get_bit(WQE_FENCE) & !self.jc.val().get_bit(153))));
        self.j_go.next = self.wq_full.q.val()
            & ((self.j_block.val() & self.stop_free.val())
                | (!self.j_block.val() & (!self.job_v.q.val() | self.m_job.ready.val())));
        self.go.next = self.j_go.val();
        self.block.next = self.j_block.val();
        self.stop.next = self.wq_full.q.val() & self.j_block.val();
        self.rd_first.next = self.rdop.val() & self.jc.val().get_bit(154) & !self.jc.val().get_bit(156);

        // ================= the WQE: two beats =================
        self.s_rd.tready.next = !(self.wq_full.q.val() & self.wq_half.q.val());
        self.beat.next = self.s_rd.tvalid.val() & !(self.wq_full.q.val() & self.wq_half.q.val());
        if self.j_go.val() {
            self.wq_full.d.next = false;
            self.wq_err.d.next = self.wq_nx_err.q.val();
            self.wq_lo.d.next = self.wq_nx.q.val();
        }
        if self.beat.val() {
            if self.wq_half.q.val() {
                self.wq_hi.d.next = self.s_rd.tdata.val();
                self.wq_err.d.next = self.wq_err.q.val() | self.s_rd.tuser.val().get_bit(0);
                self.wq_full.d.next = true;
                self.wq_half.d.next = false;
            } else {
                self.wq_half.d.next = true;
                if self.wq_full.q.val() & !self.j_go.val() {
                    self.wq_nx.d.next = self.s_rd.tdata.val();
                    self.wq_nx_err.d.next = self.s_rd.tuser.val().get_bit(0);
                } else {
                    self.wq_lo.d.next = self.s_rd.tdata.val();
                    self.wq_err.d.next = self.s_rd.tuser.val().get_bit(0);
                }
            }
        }

        // ================= the job register =================
        if self.m_job.ready.val() {
            self.job_v.d.next = false;
        }
        if self.j_go.val() & !self.j_block.val() {
            self.job_v.d.next = true;
        }
        // the job's data registers follow the WQE stage while the job register is free
        // (a short enable: no fan-out from the stage's decision)
        if !self.job_v.q.val() | self.m_job.ready.val() {
            self.job_ctx.d.next = self.jc.val();
            self.job_path.d.next = self.path.val();
            self.job_lo.d.next = self.wq_lo.q.val();
            self.job_sges.d.next = self.wq_hi.q.val();
        }
        self.m_job.valid.next = self.job_v.q.val();
        self.m_job.qpn.next = self.job_ctx.q.val().get_bits::<REQ_QPN_BITS>(0);
        self.m_job.dest_qpn.next = self.job_ctx.q.val().get_bits::<24>(14);
        self.m_job.pkey.next = self.job_ctx.q.val().get_bits::<16>(38);
        self.m_job.pd.next = self.job_ctx.q.val().get_bits::<24>(54);
        self.m_job.pmtu.next = self.job_ctx.q.val().get_bits::<3>(78);
        self.m_job.sq_index.next = self.job_ctx.q.val().get_bits::<16>(81);
        self.m_job.psn.next = self.job_ctx.q.val().get_bits::<24>(97);
        self.m_job.pkt_index.next = bit_cast::<24, 23>(self.job_ctx.q.val().get_bits::<23>(121));
        self.m_job.budget.next = bit_cast::<24, 8>(self.job_ctx.q.val().get_bits::<8>(144));
        self.m_job.resend.next = self.job_ctx.q.val().get_bit(155);
        self.m_job.flush.next = self.job_ctx.q.val().get_bit(156);
        self.m_job.path.next = self.job_path.q.val();
        self.m_job.opcode.next = self.job_lo.q.val().get_bits::<8>(WQE_OPCODE);
        self.m_job.solicited.next = self.job_lo.q.val().get_bit(WQE_SOLICITED);
        self.m_job.signaled.next = self.job_lo.q.val().get_bit(WQE_SIGNALED);
        self.m_job.is_inline.next = self.job_lo.q.val().get_bit(WQE_INLINE);
        self.m_job.imm.next = self.job_lo.q.val().get_bits::<32>(WQE_IMM);
        self.m_job.remote_va.next = self.job_lo.q.val().get_bits::<64>(WQE_REMOTE_VA);
        self.m_job.rkey.next = self.job_lo.q.val().get_bits::<32>(WQE_RKEY);
        self.m_job.compare_add.next = self.job_lo.q.val().get_bits::<64>(WQE_COMPARE_ADD);
        self.m_job.swap.next = self.job_lo.q.val().get_bits::<64>(WQE_SWAP);
        self.m_job.wr_id.next = self.job_lo.q.val().get_bits::<64>(WQE_WR_ID);
        self.m_job.num_sge.next = self.job_lo.q.val().get_bits::<8>(WQE_NUM_SGE);
        self.m_job.sges.next = self.job_sges.q.val();
        if self.reset.val() {
            self.wq_half.d.next = false;
            self.wq_full.d.next = false;
            self.wq_err.d.next = false;
            self.job_v.d.next = false;
        }
    }
}
