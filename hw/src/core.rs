//! The core's top level (docs/core.md): `RnicCore`, the one design every
//! board top wraps, and `AxisPipeline`, the stream benchmark design.

use crate::axis::{AxisIn, AxisOut, AxisSkidBuffer, HdrOut, DATA_BITS as D, KEEP_BITS as K};
use crate::consts::TIMER_TICK_M1;
use crate::host::{
    AxilIn, CacheReqOut, CacheRespOut, CqeOut, DmaRdDataIn, DmaRdReqOut, DmaWrCplIn, DmaWrOut, HostIf, IrqOut,
    RdCmdOut, WrStreamOut, HOST_COUNTERS,
};
use crate::mac::{MacRxFifo, MacStreamIn, MacTxFifo, TxStats};
use crate::mr::{MrReqOut, MrRespOut, XlateMux};
use crate::transport::{
    ArmMerge, ArmOut, CompCqeOut, Completer, CqeMerge, DestOut, DoneOut, InflightCmdOut, QpnOut, QpsWrOut, ReadWqeOut,
    RecvCqeOut, ReqTx, RespPktOut, Responder, RetryTimer, RxHold, RxLookup, RxPaySplit, SendSched, TxArb, WorkMerge,
    XlateErrOut, COMP_STATS, INFLIGHT_ENTRY_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_QPN_BITS, RX_DROP_REASONS,
};
use crate::wire::{RxParse, TxBuild, TX_HDR_BITS};

/// QPN bits of the core's send scheduler: 2^14 QPs in its ready list.
pub const CORE_SCHED_QPN_BITS: usize = INFLIGHT_QPN_BITS;
const _: () = assert!(CORE_SCHED_QPN_BITS == 14, "the 14 of SendSched<14, 15> and QpnOut::<14> below");
const _: () = assert!(crate::consts::LOG_QPS <= CORE_SCHED_QPN_BITS, "a QP's number fits the scheduler's");
/// Cycles from reset until the core acts on its first send doorbell and
/// `status.READY` reads 1 (plus the register's read latency): the send
/// scheduler clears its one-bit-per-QP table, one entry per cycle
/// (`SendSched`'s `init`, the longest of the tables cleared after reset),
/// and a doorbell rung earlier waits for it (65 us at 250 MHz: a boot cost,
/// not a per-message one). The driver's bring-up waits for the bit.
pub const CORE_INIT_CYCLES: u64 = 1 << CORE_SCHED_QPN_BITS;
use hdl_emit::TypeTag;
use rnic_contract::qp_modify::AdmitReason;
use rnic_contract::regs;
use rust_hdl::prelude::*;

/// `N` skid buffers in a row: the throughput and simulation-speed benchmark
/// design (20 stages of 512-bit beats are about 23k flip-flops).
#[derive(LogicBlock)]
pub struct AxisPipeline<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<D, K, 1>,
    pub m_axis: AxisOut<D, K, 1>,
    stages: [AxisSkidBuffer<D, K, 1>; N],
    kind: TypeTag<Self>,
}

impl<const N: usize> Default for AxisPipeline<N> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            stages: std::array::from_fn(|_| Default::default()),
            kind: Default::default(),
        }
    }
}

impl<const N: usize> Logic for AxisPipeline<N> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..N {
            self.stages[i].clock.next = self.clock.val();
            self.stages[i].reset.next = self.reset.val();
        }
        AxisIn::<D, K, 1>::link(&mut self.s_axis, &mut self.stages[0].s_axis);
        for i in 0..(N - 1) {
            AxisOut::<D, K, 1>::join(&mut self.stages[i].m_axis, &mut self.stages[i + 1].s_axis);
        }
        for i in (N - 1)..N {
            AxisOut::<D, K, 1>::link(&mut self.m_axis, &mut self.stages[i].m_axis);
        }
    }
}

/// Where each counter sits in `HostIf::cnt` (its register's offset in the
/// counter page / 8), checked against the contract.
const CNT_ADMIT_FIRST: usize = 10;
const fn cnt_slot(offset: u32) -> usize {
    ((offset - regs::COUNTER_WINDOW.start) / 8) as usize
}
const _: () = {
    assert!(cnt_slot(regs::cnt_roce::OFFSET) == 0 && cnt_slot(regs::cnt_mac_err::OFFSET) == 5);
    assert!(cnt_slot(regs::cnt_raw_drop::OFFSET) == 6 && cnt_slot(regs::cnt_rx_fifo_drop::OFFSET) == 7);
    assert!(cnt_slot(regs::cnt_tx_frames::OFFSET) == 8 && cnt_slot(regs::cnt_tx_bytes::OFFSET) == 9);
    assert!(cnt_slot(AdmitReason::Admit.counter_offset()) == CNT_ADMIT_FIRST);
    assert!(CNT_ADMIT_FIRST + AdmitReason::ALL.len() - 1 == 17, "BadPkey's counter is not among them");
    assert!(cnt_slot(regs::cnt_dup_requests::OFFSET) == 17 && cnt_slot(regs::cnt_silent_drops::OFFSET) == 18);
    assert!(cnt_slot(regs::cnt_rnr_naks::OFFSET) == 19 && cnt_slot(regs::cnt_nak_psn_seq::OFFSET) == 20);
    assert!(cnt_slot(regs::cnt_nak_remote_op::OFFSET) == 23 && cnt_slot(regs::cnt_ghost_responses::OFFSET) == 24);
    assert!(cnt_slot(regs::cnt_go_back_n::OFFSET) == 29 && COMP_STATS == 7);
    assert!(cnt_slot(regs::cnt_push_refused::OFFSET) == 30 && HOST_COUNTERS == 35);
    assert!(cnt_slot(regs::cnt_retry_timeouts::OFFSET) == 31);
    assert!(cnt_slot(AdmitReason::BadPkey.counter_offset()) == 32 && AdmitReason::BadPkey as usize == 7);
    assert!(cnt_slot(regs::cnt_rx_pause::OFFSET) == 33 && cnt_slot(regs::cnt_rx_not_mine::OFFSET) == 34);
    assert!(AdmitReason::ALL.len() == 8 && RX_DROP_REASONS >= 8, "the eight cnt_drop lines below");
};

/// The RNIC core (docs/core.md): the MAC streams through their clock-domain
/// FIFOs, the receive parser and ICRC hold, the receive lookup, the
/// responder and completer, the requester with its scheduler, the transmit
/// arbiter and builder, and the host interface (registers, DMA, contexts,
/// translation, CQs, interrupts) they all use.
///
/// Built: every RC opcode from requester to responder (SEND, WRITE with
/// and without immediate, READ, atomics), ACKs and NAKs, go-back-N and the
/// retransmit timers, send and receive completions; a send WQE whose
/// payload translation fails completes with LOC_PROT_ERR (`ReqTx::m_xerr`
/// into the completer), and a WQE `ReqGen` refuses with its own status
/// (LOC_QP_OP_ERR, LOC_LEN_ERR; `ReqTx::m_err` into `RxLookup::s_local`).
#[derive(LogicBlock, Default)]
pub struct RnicCore {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub mac_rx_clk: Signal<In, Clock>,
    pub mac_tx_clk: Signal<In, Clock>,
    pub s_axis_rx: MacStreamIn<D, K, 1>,
    pub m_axis_tx: AxisOut<D, K, 1>,
    pub cfg_max_read: Signal<In, Bits<3>>,
    pub cfg_max_payload: Signal<In, Bits<3>>,
    /// The port's MAC, the first byte on the wire in bits 47:40 (read by
    /// the driver from `id_mac_*`, which puts it in every path's source
    /// MAC): a board strap, static while the core runs.
    pub port_mac: Signal<In, Bits<48>>,
    pub s_axil: AxilIn,
    pub m_dma_rd_req: DmaRdReqOut,
    pub s_dma_rd_data: DmaRdDataIn,
    pub m_dma_wr: DmaWrOut,
    pub s_dma_wr_cpl: DmaWrCplIn,
    pub m_irq: IrqOut,
    /// Frames `mac_rx_fifo` dropped whole because it was full (counted in
    /// the core clock domain): the receive path did not keep up.
    pub stat_rx_drops: Signal<Out, Bits<64>>,
    /// Ask the link partner to pause (`mac_rx_clk`, a register): the
    /// receive FIFO is half full (`MacRxFifo`, docs/mac.md "Pause"). A board
    /// top synchronizes it to the MAC's transmit clock for its PAUSE/PFC
    /// request; a MAC that does not pause leaves it open.
    pub mac_rx_pause: Signal<Out, Bit>,
    host: HostIf,
    rx_fifo: MacRxFifo,
    parse: RxParse,
    hold: RxHold,
    lookup: RxLookup,
    pay_split: RxPaySplit,
    responder: Responder,
    completer: Completer,
    sched: SendSched<14, 15>,
    work: WorkMerge<14>,
    req: ReqTx,
    arms: ArmMerge,
    timer: RetryTimer<14, 15, 10>,
    xlate: XlateMux<4>,
    cqes: CqeMerge,
    arb: TxArb,
    build: TxBuild,
    tx_fifo: MacTxFifo,
    tx_stats: TxStats,
    kind: TypeTag<Self>,
}

impl Logic for RnicCore {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self, clock, host, parse, hold, lookup, pay_split, responder, completer, sched, work, req, arms, timer,
            xlate, cqes, arb, build, tx_stats
        );
        self.arms.reset.next = self.reset.val();
        self.timer.reset.next = self.reset.val();
        self.tx_stats.reset.next = self.reset.val();
        self.host.reset.next = self.reset.val();
        self.parse.reset.next = self.reset.val();
        self.hold.reset.next = self.reset.val();
        self.lookup.reset.next = self.reset.val();
        self.pay_split.reset.next = self.reset.val();
        self.responder.reset.next = self.reset.val();
        self.completer.reset.next = self.reset.val();
        self.sched.reset.next = self.reset.val();
        self.work.reset.next = self.reset.val();
        self.req.reset.next = self.reset.val();
        self.xlate.reset.next = self.reset.val();
        self.cqes.reset.next = self.reset.val();
        self.arb.reset.next = self.reset.val();
        self.build.reset.next = self.reset.val();
        self.rx_fifo.mac_clock.next = self.mac_rx_clk.val();
        self.rx_fifo.core_clock.next = self.clock.val();
        self.rx_fifo.reset.next = self.reset.val();
        self.rx_fifo.port_mac.next = self.port_mac.val();
        self.tx_fifo.mac_clock.next = self.mac_tx_clk.val();
        self.tx_fifo.core_clock.next = self.clock.val();
        self.tx_fifo.reset.next = self.reset.val();

        // ---- the host boundary
        self.host.cfg_max_read.next = self.cfg_max_read.val();
        self.host.cfg_max_payload.next = self.cfg_max_payload.val();
        self.host.port_mac.next = self.port_mac.val();
        // `status.READY` waits for every table cleared after reset
        self.host.init.next = self.sched.init.val() | self.completer.init.val() | self.timer.init.val();
        AxilIn::link(&mut self.s_axil, &mut self.host.s_axil);
        DmaRdReqOut::link(&mut self.m_dma_rd_req, &mut self.host.m_dma_rd_req);
        DmaRdDataIn::link(&mut self.s_dma_rd_data, &mut self.host.s_dma_rd_data);
        DmaWrOut::link(&mut self.m_dma_wr, &mut self.host.m_dma_wr);
        DmaWrCplIn::link(&mut self.s_dma_wr_cpl, &mut self.host.s_dma_wr_cpl);
        IrqOut::link(&mut self.m_irq, &mut self.host.m_irq);

        // ---- receive: MAC -> parser -> ICRC hold -> lookup -> responder / completer
        MacStreamIn::<D, K, 1>::link(&mut self.s_axis_rx, &mut self.rx_fifo.s_axis);
        self.stat_rx_drops.next = self.rx_fifo.drops.val();
        self.mac_rx_pause.next = self.rx_fifo.pause.val();
        self.rx_fifo.tx_stalled.next = self.tx_fifo.stalled.val();
        AxisOut::<D, K, 1>::join(&mut self.rx_fifo.m_axis, &mut self.parse.s_axis);
        HdrOut::<1024>::join(&mut self.parse.m_hdr, &mut self.hold.s_hdr);
        AxisOut::<D, K, 1>::join(&mut self.parse.m_axis, &mut self.hold.s_axis);
        // frames that are not RoCEv2 have no consumer yet: counted by the parser, dropped
        self.parse.m_raw.tready.next = true;
        HdrOut::<1024>::join(&mut self.hold.m_hdr, &mut self.lookup.s_hdr);
        AxisOut::<D, K, 1>::join(&mut self.hold.m_axis, &mut self.pay_split.s_axis);
        self.lookup.qpn_high.next = self.host.qpn_high.val();
        CacheReqOut::<1024, 128>::join(&mut self.lookup.m_qpc, &mut self.host.s_qpc[1]);
        CacheRespOut::<1024>::join(&mut self.host.m_qpc[1], &mut self.lookup.s_qpc);
        CacheReqOut::<512, 64>::join(&mut self.lookup.m_qps, &mut self.host.s_qps[1]);
        CacheRespOut::<512>::join(&mut self.host.m_qps[1], &mut self.lookup.s_qps);
        DestOut::join(&mut self.lookup.m_dest, &mut self.pay_split.s_dest);
        RespPktOut::join(&mut self.lookup.m_req, &mut self.responder.s_pkt);
        RespPktOut::join(&mut self.lookup.m_resp, &mut self.completer.s_pkt);
        QpsWrOut::join(&mut self.responder.m_wb, &mut self.lookup.s_req_wb);
        QpsWrOut::join(&mut self.completer.m_wb, &mut self.lookup.s_comp_wb);
        AxisOut::<D, K, 1>::join(&mut self.pay_split.m_req, &mut self.responder.s_axis);
        // READ response payloads: placed by the completer (comp_read)
        AxisOut::<D, K, 1>::join(&mut self.pay_split.m_resp, &mut self.completer.s_axis);
        RdCmdOut::join(&mut self.completer.m_rd, &mut self.host.s_sq_rd);
        AxisOut::<D, K, 1>::join(&mut self.host.m_sq_rd, &mut self.completer.s_rd);
        MrReqOut::join(&mut self.completer.m_xreq, &mut self.xlate.s_req[3]);
        MrRespOut::join(&mut self.xlate.m_resp[3], &mut self.completer.s_xresp);
        WrStreamOut::join(&mut self.completer.m_wr, &mut self.host.s_comp_wr);
        self.completer.wr_done.next = self.host.comp_wr_done.val();
        self.completer.wr_done_err.next = self.host.comp_wr_err.val();
        self.completer.qp_inval.next = self.host.qp_inval.val();
        // the qps port meant for the receive side's writes: they go through the lookup (docs/core.md)
        self.host.s_qps[2].op.next = 0.into();
        self.host.s_qps[2].index.next = 0.into();
        self.host.s_qps[2].mask.next = 0.into();
        self.host.s_qps[2].data.next = 0.into();
        self.host.s_qps[2].id.next = 0.into();
        self.host.s_qps[2].valid.next = false;
        self.host.m_qps[2].ready.next = true;

        // ---- the responder's execution: translation, RECV WQEs, payload writes, ACKs
        MrReqOut::join(&mut self.responder.m_xreq, &mut self.xlate.s_req[1]);
        MrRespOut::join(&mut self.xlate.m_resp[1], &mut self.responder.s_xresp);
        RdCmdOut::join(&mut self.responder.m_rd, &mut self.host.s_recv_rd);
        AxisOut::<D, K, 1>::join(&mut self.host.m_recv_rd, &mut self.responder.s_rd);
        self.responder.qp_inval.next = self.host.qp_inval.val();
        self.req.qp_inval.next = self.host.qp_inval.val();
        WrStreamOut::join(&mut self.responder.m_wr, &mut self.host.s_pay_wr);
        self.responder.wr_done.next = self.host.pay_wr_done.val();
        self.responder.wr_done_err.next = self.host.pay_wr_err.val();
        // ACKs, NAKs and READ responses: one source, so they leave in PSN order
        HdrOut::<TX_HDR_BITS>::join(&mut self.responder.m_hdr, &mut self.arb.s_hdr[2]);
        AxisOut::<D, K, 1>::join(&mut self.responder.m_axis, &mut self.arb.s_axis[2]);
        MrReqOut::join(&mut self.responder.m_pay_xreq, &mut self.xlate.s_req[2]);
        MrRespOut::join(&mut self.xlate.m_resp[2], &mut self.responder.s_pay_xresp);
        RdCmdOut::join(&mut self.responder.m_pay_rd, &mut self.host.s_resp_rd);
        AxisOut::<D, K, 1>::join(&mut self.host.m_resp_rd, &mut self.responder.s_pay_rd);
        // the responder's replay table (its READ and atomic resources) on its DMA clients
        self.responder.rp_base.next = self.host.replay_base.val();
        WrStreamOut::join(&mut self.responder.m_rp_wr, &mut self.host.s_replay_wr);
        self.responder.rp_wr_done.next = self.host.replay_wr_done.val();
        RdCmdOut::join(&mut self.responder.m_rp_rd, &mut self.host.s_replay_rd);
        AxisOut::<D, K, 1>::join(&mut self.host.m_replay_rd, &mut self.responder.s_rp_rd);

        // ---- completions
        RecvCqeOut::join(&mut self.responder.m_cqe, &mut self.cqes.s_recv);
        CompCqeOut::join(&mut self.completer.m_cqe, &mut self.cqes.s_comp);
        CqeOut::join(&mut self.cqes.m_cqe, &mut self.host.s_cqe);

        // ---- the requester: doorbells and the completer's wakes -> scheduler -> transmit path
        QpnOut::<14>::join(&mut self.host.m_work, &mut self.work.s_db);
        // (a QPN the lookup delivers names a QP: below 2^LOG_QPS, within the scheduler's 14 bits)
        self.work.s_wake.qpn.next = self.lookup.m_wake.qpn.val().get_bits::<14>(0);
        self.work.s_wake.valid.next = self.lookup.m_wake.valid.val();
        self.lookup.m_wake.ready.next = self.work.s_wake.ready.val();
        QpnOut::<14>::join(&mut self.work.m_work, &mut self.sched.s_work);
        QpnOut::<14>::join(&mut self.sched.m_grant, &mut self.req.s_grant);
        // ---- retransmission: go-back-N commands, the timer's armings and expiries
        QpnOut::<14>::join(&mut self.completer.m_rewind, &mut self.req.s_rewind);
        ArmOut::<14>::join(&mut self.req.m_arm, &mut self.arms.s_req);
        ArmOut::<14>::join(&mut self.completer.m_arm, &mut self.arms.s_comp);
        ArmOut::<14>::join(&mut self.arms.m_arm, &mut self.timer.s_arm);
        self.timer.tick_m1.next = TIMER_TICK_M1.into();
        self.timer.s_disarm.qpn.next = 0.into();
        self.timer.s_disarm.valid.next = false;
        self.lookup.s_expire.qpn.next = bit_cast::<24, 14>(self.timer.m_expire.qpn.val());
        self.lookup.s_expire.kind.next = self.timer.m_expire.kind.val();
        self.lookup.s_expire.valid.next = self.timer.m_expire.valid.val();
        self.timer.m_expire.ready.next = self.lookup.s_expire.ready.val();
        // a WQE the requester refused: its record flushes the QP's list
        self.lookup.s_local.qpn.next = bit_cast::<24, 14>(self.req.m_err.qpn.val());
        self.lookup.s_local.valid.next = self.req.m_err.valid.val();
        self.req.m_err.ready.next = self.lookup.s_local.ready.val();
        // a QP in error whose send queue is flushed: its receive queue's flush
        self.lookup.s_rq_flush.qpn.next = bit_cast::<24, 14>(self.req.m_rq_flush.qpn.val());
        self.lookup.s_rq_flush.valid.next = self.req.m_rq_flush.valid.val();
        self.req.m_rq_flush.ready.next = self.lookup.s_rq_flush.ready.val();
        DoneOut::<14>::join(&mut self.req.m_sdone, &mut self.sched.s_done);
        CacheReqOut::<1024, 128>::join(&mut self.req.m_qpc, &mut self.host.s_qpc[0]);
        CacheRespOut::<1024>::join(&mut self.host.m_qpc[0], &mut self.req.s_qpc);
        CacheReqOut::<512, 64>::join(&mut self.req.m_qps, &mut self.host.s_qps[0]);
        CacheRespOut::<512>::join(&mut self.host.m_qps[0], &mut self.req.s_qps);
        RdCmdOut::join(&mut self.req.m_wqe_rd, &mut self.host.s_wqe_rd);
        AxisOut::<D, K, 1>::join(&mut self.host.m_wqe_rd, &mut self.req.s_wqe_rd);
        RdCmdOut::join(&mut self.req.m_pay_rd, &mut self.host.s_pay_rd);
        AxisOut::<D, K, 1>::join(&mut self.host.m_pay_rd, &mut self.req.s_pay_rd);
        MrReqOut::join(&mut self.req.m_xreq, &mut self.xlate.s_req[0]);
        MrRespOut::join(&mut self.xlate.m_resp[0], &mut self.req.s_xresp);
        MrReqOut::join(&mut self.xlate.m_req, &mut self.host.s_xreq);
        MrRespOut::join(&mut self.host.m_xresp, &mut self.xlate.s_resp);
        InflightCmdOut::<INFLIGHT_QPN_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_ENTRY_BITS>::join(
            &mut self.req.m_push,
            &mut self.completer.s_push,
        );
        // the requester's error completions are not built: taken and dropped (docs/core.md)
        XlateErrOut::join(&mut self.req.m_xerr, &mut self.completer.s_xerr);
        // the READ and atomic WQEs sent, for the placement of their responses
        ReadWqeOut::join(&mut self.req.m_rwqe, &mut self.completer.s_rwqe);
        HdrOut::<TX_HDR_BITS>::join(&mut self.req.m_hdr, &mut self.arb.s_hdr[0]);
        AxisOut::<D, K, 1>::join(&mut self.req.m_axis, &mut self.arb.s_axis[0]);
        // source 1 idle: the responder's READ responses share source 2 with its ACKs (their order)
        self.arb.s_hdr[1].tdata.next = 0.into();
        self.arb.s_hdr[1].tvalid.next = false;
        self.arb.s_axis[1].tdata.next = 0.into();
        self.arb.s_axis[1].tkeep.next = 0.into();
        self.arb.s_axis[1].tuser.next = 0.into();
        self.arb.s_axis[1].tlast.next = false;
        self.arb.s_axis[1].tvalid.next = false;

        // ---- transmit: arbiter -> builder -> MAC
        HdrOut::<TX_HDR_BITS>::join(&mut self.arb.m_hdr, &mut self.build.s_hdr);
        AxisOut::<D, K, 1>::join(&mut self.arb.m_axis, &mut self.build.s_axis);
        AxisOut::<D, K, 1>::join(&mut self.build.m_axis, &mut self.tx_fifo.s_axis);
        self.tx_stats.fire.next = self.build.m_axis.tvalid.val() & self.tx_fifo.s_axis.tready.val();
        self.tx_stats.last.next = self.build.m_axis.tlast.val();
        self.tx_stats.keep.next = self.build.m_axis.tkeep.val();

        // ---- the counter registers (`regs::COUNTER_WINDOW`, in offset order)
        self.host.cnt[0].next = self.parse.cnt_roce.val();
        self.host.cnt[1].next = self.parse.cnt_raw.val();
        self.host.cnt[2].next = self.parse.cnt_malformed.val();
        self.host.cnt[3].next = self.parse.cnt_icrc.val();
        self.host.cnt[4].next = self.parse.cnt_ip_csum.val();
        self.host.cnt[5].next = self.parse.cnt_mac_err.val();
        // no raw receive ring in this core: every raw frame is dropped
        self.host.cnt[6].next = self.parse.cnt_raw.val();
        self.host.cnt[7].next = self.rx_fifo.drops.val();
        self.host.cnt[8].next = self.tx_stats.frames.val();
        self.host.cnt[9].next = self.tx_stats.bytes.val();
        // the lookup's drops by AdmitReason code (0: a context read failed), from CNT_ADMIT_FIRST
        self.host.cnt[10].next = bit_cast::<64, 32>(self.lookup.cnt_drop[0].val());
        self.host.cnt[11].next = bit_cast::<64, 32>(self.lookup.cnt_drop[1].val());
        self.host.cnt[12].next = bit_cast::<64, 32>(self.lookup.cnt_drop[2].val());
        self.host.cnt[13].next = bit_cast::<64, 32>(self.lookup.cnt_drop[3].val());
        self.host.cnt[14].next = bit_cast::<64, 32>(self.lookup.cnt_drop[4].val());
        self.host.cnt[15].next = bit_cast::<64, 32>(self.lookup.cnt_drop[5].val());
        self.host.cnt[16].next = bit_cast::<64, 32>(self.lookup.cnt_drop[6].val());
        // the responder's: duplicates, silent drops, RNR NAKs, NAKs by AETH code (CNT_RESP_FIRST..)
        self.host.cnt[17].next = self.responder.cnt_dup.val();
        self.host.cnt[18].next = self.responder.cnt_drop.val();
        self.host.cnt[19].next = self.responder.cnt_rnr.val();
        self.host.cnt[20].next = self.responder.cnt_nak[0].val();
        self.host.cnt[21].next = self.responder.cnt_nak[1].val();
        self.host.cnt[22].next = self.responder.cnt_nak[2].val();
        self.host.cnt[23].next = self.responder.cnt_nak[3].val();
        // the completer's: ghosts, drops in error, RNR / sequence / fatal NAKs received, go-back-N
        self.host.cnt[24].next = self.completer.cnt[0].val();
        self.host.cnt[25].next = self.completer.cnt[1].val();
        self.host.cnt[26].next = self.completer.cnt[2].val();
        self.host.cnt[27].next = self.completer.cnt[3].val();
        self.host.cnt[28].next = self.completer.cnt[4].val();
        self.host.cnt[29].next = self.completer.cnt[5].val();
        self.host.cnt[30].next = bit_cast::<64, 32>(self.completer.cnt_push_refused.val());
        self.host.cnt[31].next = self.completer.cnt[6].val();
        // the lookup's P_Key drops (`AdmitReason::BadPkey`, code 7), added after the others
        self.host.cnt_hi[0].next = bit_cast::<64, 32>(self.lookup.cnt_drop[7].val());
        self.host.cnt_hi[1].next = self.rx_fifo.pauses.val();
        self.host.cnt_hi[2].next = self.rx_fifo.not_mine.val();
        AxisOut::<D, K, 1>::link(&mut self.m_axis_tx, &mut self.tx_fifo.m_axis);
    }
}
