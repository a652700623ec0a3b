//! `HostIf`: the core's whole host side, as one block with the vendor-
//! neutral boundary on one face (docs/host.md) and the transport's ports on
//! the other: send work (`m_work`), the context caches' user ports, the
//! translation port, the DMA clients and CQE requests.
//!
//! Inside: `RegFile`, `DmaEngine`, `CtxEngine`, `CqEngine`, `DbRoute`; the
//! two QP context caches, `qpc` (`CtxCache<1024, 128, 10>`, configuration)
//! and `qps` (`CtxCache<512, 64, 10>`, transport state: a table beside
//! `qpc` with as many entries, so as many sets), each behind a
//! `CtxPortMux` of four users; the translation unit `MrXlate`; DMA client
//! multiplexers for the shared engine clients.
//!
//! | cache user | `qpc` | `qps` |
//! |---|---|---|
//! | 0 | `s_qpc[0]`: `req_fetch` (read) | `s_qps[0]`: `req_fetch` (read, masked write) |
//! | 1 | `s_qpc[1]`: the receive lookup (read) | `s_qps[1]`: the receive lookup (read) |
//! | 2 | doorbells (masked write of `SQ_PROD` / `RQ_PROD`) | `s_qps[2]`: the receive side's masked writes |
//! | 3 | `ctx_engine` (invalidate, flush) | `ctx_engine` (invalidate, flush) |
//!
//! A user's ids are 6 bits (the mux puts its number in the top 2); answers
//! must be taken at once (`m_qpc[i].ready` high whenever one may come).
//!
//! | DMA client | read | write |
//! |---|---|---|
//! | 0 | WQEs: `s_wqe_rd` / `s_recv_rd` / `s_sq_rd`, and the replay table's reads `s_replay_rd` (a `DmaRdMux<4>`) | `s_pay_wr` (responder payload) |
//! | 1 | `s_pay_rd` (requester payload) | `s_comp_wr` (completer payload) |
//! | 2 | contexts: `qpc`, `qps`, `MrXlate`, CQ Loads (a `DmaRdMux<4>`) | CQEs (`cq_engine`) |
//! | 3 | `s_resp_rd` (responder payload) | context write-backs: `qpc`, `qps`, `MrXlate`, CQ Stores, and the replay table's writes `s_replay_wr` (a `DmaWrMux<5>`) |
//!
//! The replay table (the responder's `ReplayTable`, at `replay_base`) writes
//! one 32-byte slot per executed READ or atomic and reads a QP's 512 bytes
//! per duplicate READ or atomic: rare, so it shares the muxed clients.
//!
//! Every port is driven by a child's register (or a register's mux); no
//! ready reaches another port's ready or valid.

use super::*;
use crate::axis::AxisOut;
use crate::consts::*;
use crate::mr::{InvDoneOut, InvReqOut, MrReqIn, MrRespOut, MrXlate};
use crate::prim::Reg;
use crate::transport::QpnOut;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the sets of the `qps` cache: as many as `qpc_cache`'s (the
/// tables have as many entries; one QPN's two lines miss and hit together).
pub const QPS_CACHE_LOG: usize = 10;
// the catalog's `qps_cache` (`CtxCache<512, 64, 10>`) is this instance, so
// that `host_if`'s synthesis boxes it
const _: () = assert!(QPS_CACHE_LOG == 10);

// the cache operation `qp_inval` watches for (a literal in `update`)
const _: () = assert!(CACHE_OP_INVALIDATE == 2);

// the arms of the counter mux in `update`, one per counter
const _: () = assert!(HOST_COUNTERS == 35);

#[derive(LogicBlock, Default)]
pub struct HostIf {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// PCIe maximum read request and payload size (PCIe encoding), from the
    /// PCIe core's configuration space.
    pub cfg_max_read: Signal<In, Bits<3>>,
    pub cfg_max_payload: Signal<In, Bits<3>>,
    /// The port's MAC (`RegFile::port_mac`).
    pub port_mac: Signal<In, Bits<48>>,
    // ---- the boundary
    pub s_axil: AxilIn,
    pub m_dma_rd_req: DmaRdReqOut,
    pub s_dma_rd_data: DmaRdDataIn,
    pub m_dma_wr: DmaWrOut,
    pub s_dma_wr_cpl: DmaWrCplIn,
    pub m_irq: IrqOut,
    // ---- the transport's side
    /// A QP got send work (its SQ_PROD is in the `qpc` cache): `send_sched.s_work`.
    pub m_work: QpnOut<WORK_QPN_BITS>,
    /// `qpc` cache users 0 (`req_fetch`) and 1 (the receive lookup).
    pub s_qpc: [CacheReqIn<1024, 128>; 2],
    pub m_qpc: [CacheRespOut<1024>; 2],
    /// `qps` cache users 0 (`req_fetch`), 1 (the receive lookup), 2 (the receive side's writes).
    pub s_qps: [CacheReqIn<512, 64>; 3],
    pub m_qps: [CacheRespOut<512>; 3],
    /// The translation unit (the transport muxes its users in front).
    pub s_xreq: MrReqIn,
    pub m_xresp: MrRespOut,
    /// DMA read clients: send WQEs, RECV WQEs (engine client 0, shared),
    /// requester payload (1), responder payload (3).
    pub s_wqe_rd: RdCmdIn,
    pub m_wqe_rd: AxisOut<512, 64, 1>,
    pub s_recv_rd: RdCmdIn,
    pub m_recv_rd: AxisOut<512, 64, 1>,
    /// Send WQEs read again by the completer (a READ's SGEs, `comp_read`).
    pub s_sq_rd: RdCmdIn,
    pub m_sq_rd: AxisOut<512, 64, 1>,
    /// The responder's replay table: a QP's slots read for a duplicate
    /// READ or atomic (engine client 0, shared).
    pub s_replay_rd: RdCmdIn,
    pub m_replay_rd: AxisOut<512, 64, 1>,
    pub s_pay_rd: RdCmdIn,
    pub m_pay_rd: AxisOut<512, 64, 1>,
    pub s_resp_rd: RdCmdIn,
    pub m_resp_rd: AxisOut<512, 64, 1>,
    /// DMA write clients: responder payload (0), completer payload (1), each
    /// with its completions (a pulse per write, in its order; `err` if it failed).
    pub s_pay_wr: WrStreamIn,
    pub pay_wr_done: Signal<Out, Bit>,
    pub pay_wr_err: Signal<Out, Bit>,
    pub s_comp_wr: WrStreamIn,
    pub comp_wr_done: Signal<Out, Bit>,
    pub comp_wr_err: Signal<Out, Bit>,
    /// The replay table's slot writes (engine client 3, shared with the
    /// context write-backs), with their completions.
    pub s_replay_wr: WrStreamIn,
    pub replay_wr_done: Signal<Out, Bit>,
    pub replay_wr_err: Signal<Out, Bit>,
    pub s_cqe: CqeIn,
    /// `ctrl.ENABLE`, for the transport.
    pub enable: Signal<Out, Bit>,
    /// `RegFile::qpn_high`, for the receive lookup (`rx_lookup`): the one
    /// computation of which QPNs name a QP.
    pub qpn_high: Signal<Out, Bits<24>>,
    /// `RegFile::replay_base`, for the responder's replay table.
    pub replay_base: Signal<Out, Bits<64>>,
    /// A pulse from a register: the context engine dropped a QP's cached
    /// context (ctx_cmd Load or Invalidate of the QP table); state kept
    /// outside the caches from that QP's context (the responder's RQ
    /// entries read ahead) is forgotten.
    pub qp_inval: Signal<Out, Bit>,
    /// The core's counters, in register order (`regs::COUNTER_WINDOW`:
    /// `cnt_roce` first, one per 64-bit register); `RegFile` reads them
    /// through a registered mux (the page's other indices read 0).
    pub cnt: [Signal<In, Bits<64>>; 32],
    /// Counters 32 and up (the window's second half; an array of 32 at most
    /// derives `Default`).
    pub cnt_hi: [Signal<In, Bits<64>>; HOST_COUNTERS - 32],
    /// Blocks outside this one still clear their tables after reset (the
    /// send scheduler, the in-flight table); with the caches' own clearing
    /// it makes `status.READY` read 0.
    pub init: Signal<In, Bit>,

    regs: RegFile,
    qpn_high_out: Reg<Bits<24>>,
    qp_inval_r: Reg<Bit>,
    cnt_q: Reg<Bits<64>>,
    cnt_sel: Signal<Local, Bits<CNT_INDEX_BITS>>,
    dma: DmaEngine,
    ctx: CtxEngine,
    cq: CqEngine,
    db: DbRoute,
    qpc_cache: CtxCache<1024, 128, 10>,
    qpc_mux: CtxPortMux<1024, 128, 4>,
    qps_cache: CtxCache<512, 64, QPS_CACHE_LOG>,
    qps_mux: CtxPortMux<512, 64, 4>,
    xlate: MrXlate,
    wqe_rd: DmaRdMux<4>,
    ctx_rd: DmaRdMux<4>,
    ctx_wr: DmaWrMux<5>,
    rd_err_seen: Reg<Bits<32>>,
    wr_err_seen: Reg<Bits<32>>,
    eng_reset: Signal<Local, Bit>,
    dma_err_now: Signal<Local, Bit>,
    qpc_drop: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for HostIf {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_err_seen, wr_err_seen, qpn_high_out, qp_inval_r, cnt_q);
        clock!(
            self, clock, regs, dma, ctx, cq, db, qpc_cache, qpc_mux, qps_cache, qps_mux, xlate, wqe_rd, ctx_rd, ctx_wr
        );
        self.eng_reset.next = self.reset.val() | self.regs.soft_reset.val();
        self.regs.reset.next = self.reset.val();
        self.regs.init.next =
            self.init.val() | self.qpc_cache.init.val() | self.qps_cache.init.val() | self.xlate.init.val();
        self.dma.reset.next = self.eng_reset.val();
        self.ctx.reset.next = self.eng_reset.val();
        self.cq.reset.next = self.eng_reset.val();
        self.db.reset.next = self.eng_reset.val();
        self.qpc_cache.reset.next = self.eng_reset.val();
        self.qpc_mux.reset.next = self.eng_reset.val();
        self.qps_cache.reset.next = self.eng_reset.val();
        self.qps_mux.reset.next = self.eng_reset.val();
        self.xlate.reset.next = self.eng_reset.val();
        self.wqe_rd.reset.next = self.eng_reset.val();
        self.ctx_rd.reset.next = self.eng_reset.val();
        self.ctx_wr.reset.next = self.eng_reset.val();

        // ---- boundary
        AxilIn::link(&mut self.s_axil, &mut self.regs.s_axil);
        self.regs.port_mac.next = self.port_mac.val();
        DmaRdReqOut::link(&mut self.m_dma_rd_req, &mut self.dma.m_dma_rd_req);
        DmaRdDataIn::link(&mut self.s_dma_rd_data, &mut self.dma.s_dma_rd_data);
        DmaWrOut::link(&mut self.m_dma_wr, &mut self.dma.m_dma_wr);
        DmaWrCplIn::link(&mut self.s_dma_wr_cpl, &mut self.dma.s_dma_wr_cpl);
        self.dma.cfg_max_read.next = self.cfg_max_read.val();
        self.dma.cfg_max_payload.next = self.cfg_max_payload.val();

        // ---- DMA read clients: 0 WQEs and replay slots (shared), 1 requester payload, 2 contexts (shared),
        // 3 responder payload
        RdCmdIn::link(&mut self.s_wqe_rd, &mut self.wqe_rd.s_cmd[0]);
        AxisOut::<512, 64, 1>::link(&mut self.m_wqe_rd, &mut self.wqe_rd.m_data[0]);
        RdCmdIn::link(&mut self.s_recv_rd, &mut self.wqe_rd.s_cmd[1]);
        AxisOut::<512, 64, 1>::link(&mut self.m_recv_rd, &mut self.wqe_rd.m_data[1]);
        RdCmdIn::link(&mut self.s_sq_rd, &mut self.wqe_rd.s_cmd[2]);
        AxisOut::<512, 64, 1>::link(&mut self.m_sq_rd, &mut self.wqe_rd.m_data[2]);
        RdCmdIn::link(&mut self.s_replay_rd, &mut self.wqe_rd.s_cmd[3]);
        AxisOut::<512, 64, 1>::link(&mut self.m_replay_rd, &mut self.wqe_rd.m_data[3]);
        RdCmdOut::join(&mut self.wqe_rd.m_cmd, &mut self.dma.s_rd[0]);
        AxisOut::<512, 64, 1>::join(&mut self.dma.m_rd[0], &mut self.wqe_rd.s_data);
        RdCmdIn::link(&mut self.s_pay_rd, &mut self.dma.s_rd[1]);
        AxisOut::<512, 64, 1>::link(&mut self.m_pay_rd, &mut self.dma.m_rd[1]);
        RdCmdOut::join(&mut self.qpc_cache.m_rd, &mut self.ctx_rd.s_cmd[0]);
        AxisOut::<512, 64, 1>::join(&mut self.ctx_rd.m_data[0], &mut self.qpc_cache.s_rd);
        RdCmdOut::join(&mut self.qps_cache.m_rd, &mut self.ctx_rd.s_cmd[1]);
        AxisOut::<512, 64, 1>::join(&mut self.ctx_rd.m_data[1], &mut self.qps_cache.s_rd);
        RdCmdOut::join(&mut self.xlate.m_rd, &mut self.ctx_rd.s_cmd[2]);
        AxisOut::<512, 64, 1>::join(&mut self.ctx_rd.m_data[2], &mut self.xlate.s_rd);
        RdCmdOut::join(&mut self.ctx.m_rd, &mut self.ctx_rd.s_cmd[3]);
        AxisOut::<512, 64, 1>::join(&mut self.ctx_rd.m_data[3], &mut self.ctx.s_rd);
        RdCmdOut::join(&mut self.ctx_rd.m_cmd, &mut self.dma.s_rd[2]);
        AxisOut::<512, 64, 1>::join(&mut self.dma.m_rd[2], &mut self.ctx_rd.s_data);
        RdCmdIn::link(&mut self.s_resp_rd, &mut self.dma.s_rd[3]);
        AxisOut::<512, 64, 1>::link(&mut self.m_resp_rd, &mut self.dma.m_rd[3]);

        // ---- DMA write clients: 0 responder payload, 1 completer payload, 2 CQEs, 3 context write-backs and
        // replay slots (shared)
        WrStreamIn::link(&mut self.s_pay_wr, &mut self.dma.s_wr[0]);
        WrStreamIn::link(&mut self.s_comp_wr, &mut self.dma.s_wr[1]);
        WrStreamOut::join(&mut self.cq.m_wr, &mut self.dma.s_wr[2]);
        WrStreamOut::join(&mut self.qpc_cache.m_wr, &mut self.ctx_wr.s_wr[0]);
        WrStreamOut::join(&mut self.qps_cache.m_wr, &mut self.ctx_wr.s_wr[1]);
        WrStreamOut::join(&mut self.xlate.m_wr, &mut self.ctx_wr.s_wr[2]);
        WrStreamOut::join(&mut self.ctx.m_wr, &mut self.ctx_wr.s_wr[3]);
        WrStreamIn::link(&mut self.s_replay_wr, &mut self.ctx_wr.s_wr[4]);
        WrStreamOut::join(&mut self.ctx_wr.m_wr, &mut self.dma.s_wr[3]);
        self.pay_wr_done.next = self.dma.wr_done.val().get_bit(0);
        self.pay_wr_err.next = self.dma.wr_done_err.val().get_bit(0);
        self.comp_wr_done.next = self.dma.wr_done.val().get_bit(1);
        self.comp_wr_err.next = self.dma.wr_done_err.val().get_bit(1);
        self.cq.wr_done.next = self.dma.wr_done.val().get_bit(2);
        self.ctx_wr.wr_done.next = self.dma.wr_done.val().get_bit(3);
        self.ctx_wr.wr_done_err.next = self.dma.wr_done_err.val().get_bit(3);
        self.qpc_cache.wr_done.next = self.ctx_wr.client_done.val().get_bit(0);
        self.qpc_cache.wr_done_err.next = self.ctx_wr.client_done_err.val().get_bit(0);
        self.qps_cache.wr_done.next = self.ctx_wr.client_done.val().get_bit(1);
        self.qps_cache.wr_done_err.next = self.ctx_wr.client_done_err.val().get_bit(1);
        self.xlate.wr_done.next = self.ctx_wr.client_done.val().get_bit(2);
        self.xlate.wr_done_err.next = self.ctx_wr.client_done_err.val().get_bit(2);
        self.ctx.wr_done.next = self.ctx_wr.client_done.val().get_bit(3);
        self.ctx.wr_done_err.next = self.ctx_wr.client_done_err.val().get_bit(3);
        self.replay_wr_done.next = self.ctx_wr.client_done.val().get_bit(4);
        self.replay_wr_err.next = self.ctx_wr.client_done_err.val().get_bit(4);

        // ---- the QP caches and their users
        CacheReqOut::<1024, 128>::join(&mut self.qpc_mux.m_req, &mut self.qpc_cache.s_req);
        CacheRespOut::<1024>::join(&mut self.qpc_cache.m_resp, &mut self.qpc_mux.s_resp);
        CacheReqIn::<1024, 128>::link(&mut self.s_qpc[0], &mut self.qpc_mux.s_req[0]);
        CacheRespOut::<1024>::link(&mut self.m_qpc[0], &mut self.qpc_mux.m_resp[0]);
        CacheReqIn::<1024, 128>::link(&mut self.s_qpc[1], &mut self.qpc_mux.s_req[1]);
        CacheRespOut::<1024>::link(&mut self.m_qpc[1], &mut self.qpc_mux.m_resp[1]);
        CacheReqOut::<1024, 128>::join(&mut self.db.m_qpc, &mut self.qpc_mux.s_req[2]);
        CacheRespOut::<1024>::join(&mut self.qpc_mux.m_resp[2], &mut self.db.s_qpc);
        CacheReqOut::<1024, 128>::join(&mut self.ctx.m_qpc, &mut self.qpc_mux.s_req[3]);
        CacheRespOut::<1024>::join(&mut self.qpc_mux.m_resp[3], &mut self.ctx.s_qpc);
        CacheReqOut::<512, 64>::join(&mut self.qps_mux.m_req, &mut self.qps_cache.s_req);
        CacheRespOut::<512>::join(&mut self.qps_cache.m_resp, &mut self.qps_mux.s_resp);
        CacheReqIn::<512, 64>::link(&mut self.s_qps[0], &mut self.qps_mux.s_req[0]);
        CacheRespOut::<512>::link(&mut self.m_qps[0], &mut self.qps_mux.m_resp[0]);
        CacheReqIn::<512, 64>::link(&mut self.s_qps[1], &mut self.qps_mux.s_req[1]);
        CacheRespOut::<512>::link(&mut self.m_qps[1], &mut self.qps_mux.m_resp[1]);
        CacheReqIn::<512, 64>::link(&mut self.s_qps[2], &mut self.qps_mux.s_req[2]);
        CacheRespOut::<512>::link(&mut self.m_qps[2], &mut self.qps_mux.m_resp[2]);
        CacheReqOut::<512, 64>::join(&mut self.ctx.m_qps, &mut self.qps_mux.s_req[3]);
        CacheRespOut::<512>::join(&mut self.qps_mux.m_resp[3], &mut self.ctx.s_qps);

        // ---- translation
        MrReqIn::link(&mut self.s_xreq, &mut self.xlate.s_req);
        MrRespOut::link(&mut self.m_xresp, &mut self.xlate.m_resp);
        InvReqOut::join(&mut self.ctx.m_inv, &mut self.xlate.s_inv);
        InvDoneOut::join(&mut self.xlate.m_inv, &mut self.ctx.s_inv);

        // ---- configuration
        self.qpc_cache.tbl_base.next = self.regs.qpc_base.val();
        self.qpc_cache.tbl_log.next = self.regs.qpc_log.val();
        self.qps_cache.tbl_base.next = self.regs.qps_base.val();
        self.qps_cache.tbl_log.next = self.regs.qpc_log.val();
        self.replay_base.next = self.regs.replay_base.val();
        self.xlate.mpt_base.next = self.regs.mpt_base.val();
        self.xlate.mpt_log.next = self.regs.mpt_log.val();
        self.xlate.mtt_base.next = self.regs.mtt_base.val();
        self.xlate.mtt_log.next = self.regs.mtt_log.val();
        self.ctx.qpn_high.next = self.regs.qpn_high.val();
        self.ctx.cqc_base.next = self.regs.cqc_base.val();
        self.ctx.cqc_log.next = self.regs.cqc_log.val();
        self.ctx.mpt_log.next = self.regs.mpt_log.val();
        self.ctx.mtt_log.next = self.regs.mtt_log.val();
        self.ctx.counters_base.next = self.regs.counters_base.val();
        self.ctx.cnt_busy.next = self.regs.cnt_busy.val();
        self.ctx.cnt_data.next = self.cnt_q.q.val();
        self.db.qpn_high.next = self.regs.qpn_high.val();
        // a register of its own at the boundary (the lookup is another block)
        self.qpn_high_out.d.next = self.regs.qpn_high.val();
        self.qpn_high.next = self.qpn_high_out.q.val();
        self.cq.irq_mod_count.next = self.regs.irq_mod_count.val();
        self.cq.irq_mod_time.next = self.regs.irq_mod_time.val();
        self.enable.next = self.regs.enable.val();

        // ---- context commands
        CtxCmdOut::join(&mut self.regs.m_ctx, &mut self.ctx.s_cmd);
        self.regs.ctx_busy.next = self.ctx.busy.val();
        self.regs.ctx_error.next = self.ctx.error.val();
        CqSetupOut::join(&mut self.ctx.m_cq, &mut self.cq.s_setup);
        QueryOut::join(&mut self.ctx.m_cq_query, &mut self.cq.s_query);
        self.ctx.cq_query_valid.next = self.cq.query_valid.val();
        self.ctx.cq_query_data.next = self.cq.query_data.val();

        // ---- doorbells: SQ/RQ into the qpc cache (and send work), CQ to the CQ engine
        DoorbellOut::join(&mut self.regs.m_db, &mut self.db.s_db);
        DoorbellOut::join(&mut self.db.m_cq, &mut self.cq.s_db);
        QpnOut::<WORK_QPN_BITS>::link(&mut self.m_work, &mut self.db.m_work);

        // ---- transport side
        CqeIn::link(&mut self.s_cqe, &mut self.cq.s_cqe);
        // a QP's Load or Invalidate: ctx_engine's qpc request of op CACHE_OP_INVALIDATE
        self.qpc_drop.next = self.ctx.m_qpc.op.val() == 2;
        self.qp_inval_r.d.next = self.ctx.m_qpc.valid.val() & self.ctx.m_qpc.ready.val() & self.qpc_drop.val();
        self.qp_inval.next = self.qp_inval_r.q.val();

        // ---- counters: the one RegFile asks for, through a register
        // (a case: one parallel mux, not a chain of ifs); the context
        // engine's dump asks in cycles when RegFile's read does not hold it
        self.cnt_sel.next = self.regs.cnt_index.val();
        if self.ctx.cnt_ask.val() {
            self.cnt_sel.next = self.ctx.cnt_index.val();
        }
        match self.cnt_sel.val().index() {
            0 => self.cnt_q.d.next = self.cnt[0].val(),
            1 => self.cnt_q.d.next = self.cnt[1].val(),
            2 => self.cnt_q.d.next = self.cnt[2].val(),
            3 => self.cnt_q.d.next = self.cnt[3].val(),
            4 => self.cnt_q.d.next = self.cnt[4].val(),
            5 => self.cnt_q.d.next = self.cnt[5].val(),
            6 => self.cnt_q.d.next = self.cnt[6].val(),
            7 => self.cnt_q.d.next = self.cnt[7].val(),
            8 => self.cnt_q.d.next = self.cnt[8].val(),
            9 => self.cnt_q.d.next = self.cnt[9].val(),
            10 => self.cnt_q.d.next = self.cnt[10].val(),
            11 => self.cnt_q.d.next = self.cnt[11].val(),
            12 => self.cnt_q.d.next = self.cnt[12].val(),
            13 => self.cnt_q.d.next = self.cnt[13].val(),
            14 => self.cnt_q.d.next = self.cnt[14].val(),
            15 => self.cnt_q.d.next = self.cnt[15].val(),
            16 => self.cnt_q.d.next = self.cnt[16].val(),
            17 => self.cnt_q.d.next = self.cnt[17].val(),
            18 => self.cnt_q.d.next = self.cnt[18].val(),
            19 => self.cnt_q.d.next = self.cnt[19].val(),
            20 => self.cnt_q.d.next = self.cnt[20].val(),
            21 => self.cnt_q.d.next = self.cnt[21].val(),
            22 => self.cnt_q.d.next = self.cnt[22].val(),
            23 => self.cnt_q.d.next = self.cnt[23].val(),
            24 => self.cnt_q.d.next = self.cnt[24].val(),
            25 => self.cnt_q.d.next = self.cnt[25].val(),
            26 => self.cnt_q.d.next = self.cnt[26].val(),
            27 => self.cnt_q.d.next = self.cnt[27].val(),
            28 => self.cnt_q.d.next = self.cnt[28].val(),
            29 => self.cnt_q.d.next = self.cnt[29].val(),
            30 => self.cnt_q.d.next = self.cnt[30].val(),
            31 => self.cnt_q.d.next = self.cnt[31].val(),
            32 => self.cnt_q.d.next = self.cnt_hi[0].val(),
            33 => self.cnt_q.d.next = self.cnt_hi[1].val(),
            34 => self.cnt_q.d.next = self.cnt_hi[2].val(),
            _ => self.cnt_q.d.next = 0.into(),
        }
        self.regs.cnt_data.next = self.cnt_q.q.val();

        // ---- events
        self.dma_err_now.next = (self.dma.cnt_rd_err.val() != self.rd_err_seen.q.val())
            | (self.dma.cnt_wr_err.val() != self.wr_err_seen.q.val());
        self.rd_err_seen.d.next = self.dma.cnt_rd_err.val();
        self.wr_err_seen.d.next = self.dma.cnt_wr_err.val();
        self.regs.ev_set.next = (bit_cast::<5, 1>((self.db.db_error.val() | self.cq.db_error.val()).into())
            << EV_DOORBELL_ERROR)
            | (bit_cast::<5, 1>((self.dma_err_now.val() | self.ctx.dma_error.val()).into()) << EV_DMA_ERROR)
            | (bit_cast::<5, 1>(self.cq.ev_overrun.val().into()) << EV_CQ_OVERRUN);
        self.regs.ev_queue.next = self.cq.ev_queue.val();
        if self.db.db_error.val() {
            self.regs.ev_queue.next = self.db.db_error_queue.val();
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
            self.qp_inval_r.d.next = false;
        }
    }
}
