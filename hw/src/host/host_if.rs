//! `HostIf`: the core's whole host side, as one block with the vendor-
//! neutral boundary on one face (docs/host.md) and the transport's ports on
//! the other: WQEs out, CQE requests in, and the payload DMA clients.
//!
//! DMA clients: reads 0 descriptor fetch, 1 payload (`s_pay_rd`), 2
//! context, 3 spare; writes 0 payload (`s_pay_wr`), 1 CQEs, 2 context
//! write-back, 3 spare.

use super::*;
use crate::axis::AxisOut;
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct HostIf {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// PCIe maximum read request and payload size (PCIe encoding), from the
    /// PCIe core's configuration space.
    pub cfg_max_read: Signal<In, Bits<3>>,
    pub cfg_max_payload: Signal<In, Bits<3>>,
    // ---- the boundary
    pub s_axil: AxilIn,
    pub m_dma_rd_req: DmaRdReqOut,
    pub s_dma_rd_data: DmaRdDataIn,
    pub m_dma_wr: DmaWrOut,
    pub s_dma_wr_cpl: DmaWrCplIn,
    pub m_irq: IrqOut,
    // ---- the transport's side
    pub m_wqe: AxisOut<512, 64, 42>,
    pub s_cqe: CqeIn,
    pub s_pay_rd: RdCmdIn,
    pub m_pay_rd: AxisOut<512, 64, 1>,
    pub s_pay_wr: WrStreamIn,
    pub pay_wr_done: Signal<Out, Bit>,
    pub pay_wr_err: Signal<Out, Bit>,
    /// `ctrl.ENABLE`, for the transport.
    pub enable: Signal<Out, Bit>,

    regs: RegFile,
    dma: DmaEngine,
    ctx: CtxEngine,
    fetch: DescFetch,
    cq: CqEngine,
    rd_err_seen: Reg<Bits<32>>,
    wr_err_seen: Reg<Bits<32>>,
    eng_reset: Signal<Local, Bit>,
    db_to_fetch: Signal<Local, Bit>,
    db_to_cq: Signal<Local, Bit>,
    db_bad: Signal<Local, Bit>,
    dma_err_now: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for HostIf {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_err_seen, wr_err_seen);
        self.regs.clock.next = self.clock.val();
        self.dma.clock.next = self.clock.val();
        self.ctx.clock.next = self.clock.val();
        self.fetch.clock.next = self.clock.val();
        self.cq.clock.next = self.clock.val();
        self.eng_reset.next = self.reset.val() | self.regs.soft_reset.val();
        self.regs.reset.next = self.reset.val();
        self.dma.reset.next = self.eng_reset.val();
        self.ctx.reset.next = self.eng_reset.val();
        self.fetch.reset.next = self.eng_reset.val();
        self.cq.reset.next = self.eng_reset.val();

        // ---- boundary
        AxilIn::link(&mut self.s_axil, &mut self.regs.s_axil);
        DmaRdReqOut::link(&mut self.m_dma_rd_req, &mut self.dma.m_dma_rd_req);
        DmaRdDataIn::link(&mut self.s_dma_rd_data, &mut self.dma.s_dma_rd_data);
        DmaWrOut::link(&mut self.m_dma_wr, &mut self.dma.m_dma_wr);
        DmaWrCplIn::link(&mut self.s_dma_wr_cpl, &mut self.dma.s_dma_wr_cpl);
        self.dma.cfg_max_read.next = self.cfg_max_read.val();
        self.dma.cfg_max_payload.next = self.cfg_max_payload.val();

        // ---- DMA clients
        RdCmdOut::join(&mut self.fetch.m_rd, &mut self.dma.s_rd[0]);
        AxisOut::<512, 64, 1>::join(&mut self.dma.m_rd[0], &mut self.fetch.s_rd);
        RdCmdIn::link(&mut self.s_pay_rd, &mut self.dma.s_rd[1]);
        AxisOut::<512, 64, 1>::link(&mut self.m_pay_rd, &mut self.dma.m_rd[1]);
        RdCmdOut::join(&mut self.ctx.m_rd, &mut self.dma.s_rd[2]);
        AxisOut::<512, 64, 1>::join(&mut self.dma.m_rd[2], &mut self.ctx.s_rd);
        self.dma.s_rd[3].valid.next = false;
        self.dma.s_rd[3].addr.next = 0.into();
        self.dma.s_rd[3].len.next = 0.into();
        self.dma.m_rd[3].tready.next = true;
        WrStreamIn::link(&mut self.s_pay_wr, &mut self.dma.s_wr[0]);
        WrStreamOut::join(&mut self.cq.m_wr, &mut self.dma.s_wr[1]);
        WrStreamOut::join(&mut self.ctx.m_wr, &mut self.dma.s_wr[2]);
        self.dma.s_wr[3].tvalid.next = false;
        self.dma.s_wr[3].tdata.next = 0.into();
        self.dma.s_wr[3].tkeep.next = 0.into();
        self.dma.s_wr[3].tlast.next = false;
        self.dma.s_wr[3].addr.next = 0.into();
        self.dma.s_wr[3].len.next = 0.into();
        self.pay_wr_done.next = self.dma.wr_done.val().get_bit(0);
        self.pay_wr_err.next = self.dma.wr_done_err.val().get_bit(0);
        self.cq.wr_done.next = self.dma.wr_done.val().get_bit(1);
        self.ctx.wr_done.next = self.dma.wr_done.val().get_bit(2);
        self.ctx.wr_done_err.next = self.dma.wr_done_err.val().get_bit(2);

        // ---- configuration
        self.ctx.qpc_base.next = self.regs.qpc_base.val();
        self.ctx.qpc_log.next = self.regs.qpc_log.val();
        self.ctx.cqc_base.next = self.regs.cqc_base.val();
        self.ctx.cqc_log.next = self.regs.cqc_log.val();
        self.cq.irq_mod_count.next = self.regs.irq_mod_count.val();
        self.cq.irq_mod_time.next = self.regs.irq_mod_time.val();
        self.fetch.enable.next = self.regs.enable.val();
        self.enable.next = self.regs.enable.val();

        // ---- context commands
        CtxCmdOut::join(&mut self.regs.m_ctx, &mut self.ctx.s_cmd);
        self.regs.ctx_busy.next = self.ctx.busy.val();
        self.regs.ctx_error.next = self.ctx.error.val();
        RingSetupOut::join(&mut self.ctx.m_ring, &mut self.fetch.s_setup);
        CqSetupOut::join(&mut self.ctx.m_cq, &mut self.cq.s_setup);
        QueryOut::join(&mut self.ctx.m_qp_query, &mut self.fetch.s_query);
        QueryOut::join(&mut self.ctx.m_cq_query, &mut self.cq.s_query);
        self.ctx.qp_query_valid.next = self.fetch.query_valid.val();
        self.ctx.qp_query_data.next = self.fetch.query_data.val();
        self.ctx.cq_query_valid.next = self.cq.query_valid.val();
        self.ctx.cq_query_data.next = self.cq.query_data.val();

        // ---- doorbells: SQ/RQ to the fetcher, CQ to the CQ engine
        self.db_to_fetch.next = (self.regs.m_db.kind.val() == KIND_SQ) | (self.regs.m_db.kind.val() == KIND_RQ);
        self.db_to_cq.next =
            (self.regs.m_db.kind.val() == KIND_CQ_CONSUMER) | (self.regs.m_db.kind.val() == KIND_CQ_ARM);
        self.db_bad.next = self.regs.m_db.valid.val() & !self.db_to_fetch.val() & !self.db_to_cq.val();
        self.fetch.s_db.kind.next = self.regs.m_db.kind.val();
        self.fetch.s_db.queue.next = self.regs.m_db.queue.val();
        self.fetch.s_db.index.next = self.regs.m_db.index.val();
        self.fetch.s_db.solicited.next = self.regs.m_db.solicited.val();
        self.fetch.s_db.valid.next = self.regs.m_db.valid.val() & self.db_to_fetch.val();
        self.cq.s_db.kind.next = self.regs.m_db.kind.val();
        self.cq.s_db.queue.next = self.regs.m_db.queue.val();
        self.cq.s_db.index.next = self.regs.m_db.index.val();
        self.cq.s_db.solicited.next = self.regs.m_db.solicited.val();
        self.cq.s_db.valid.next = self.regs.m_db.valid.val() & self.db_to_cq.val();
        self.regs.m_db.ready.next = true;
        if self.db_to_fetch.val() {
            self.regs.m_db.ready.next = self.fetch.s_db.ready.val();
        }
        if self.db_to_cq.val() {
            self.regs.m_db.ready.next = self.cq.s_db.ready.val();
        }

        // ---- transport side
        AxisOut::<512, 64, 42>::link(&mut self.m_wqe, &mut self.fetch.m_wqe);
        CqeIn::link(&mut self.s_cqe, &mut self.cq.s_cqe);

        // ---- events
        self.dma_err_now.next = (self.dma.cnt_rd_err.val() != self.rd_err_seen.q.val())
            | (self.dma.cnt_wr_err.val() != self.wr_err_seen.q.val());
        self.rd_err_seen.d.next = self.dma.cnt_rd_err.val();
        self.wr_err_seen.d.next = self.dma.cnt_wr_err.val();
        self.regs.ev_set.next =
            (bit_cast::<5, 1>((self.fetch.db_error.val() | self.cq.db_error.val() | self.db_bad.val()).into())
                << EV_DOORBELL_ERROR)
                | (bit_cast::<5, 1>((self.dma_err_now.val() | self.ctx.dma_error.val()).into()) << EV_DMA_ERROR)
                | (bit_cast::<5, 1>(self.cq.ev_overrun.val().into()) << EV_CQ_OVERRUN);
        self.regs.ev_queue.next = self.cq.ev_queue.val();
        if self.fetch.db_error.val() {
            self.regs.ev_queue.next = self.fetch.db_error_queue.val();
        }
        if self.db_bad.val() {
            self.regs.ev_queue.next = self.regs.m_db.queue.val();
        }

        // ---- interrupts: the events vector first, then CQs
        self.m_irq.valid.next = self.regs.m_irq.valid.val() | self.cq.m_irq.valid.val();
        self.m_irq.vector.next = self.cq.m_irq.vector.val();
        self.regs.m_irq.ready.next = self.m_irq.ready.val();
        self.cq.m_irq.ready.next = false;
        if self.regs.m_irq.valid.val() {
            self.m_irq.vector.next = self.regs.m_irq.vector.val();
        } else {
            self.cq.m_irq.ready.next = self.m_irq.ready.val();
        }
        if self.reset.val() {
            self.rd_err_seen.d.next = 0.into();
            self.wr_err_seen.d.next = 0.into();
        }
    }
}
