//! `ReqTx`: the requester's transmit path as one block (docs/core.md,
//! "Order of the remaining work", item 1): `ReqFetch` -> `ReqGen` ->
//! `ReqPayload` -> `PayloadGather`, wired as docs/core.md's Instances table
//! says. Its ports are what these four need from the rest of the core and
//! nothing more; each is a child's port, passed through (every child
//! registers its outputs and its `ready`s, so no path runs from one port's
//! ready to another port's ready or valid).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_grant` / `m_sdone` | in / out | the scheduler's grant and done (`SendSched`'s boundary), `ReqFetch`'s |
//! | `m_qpc` / `s_qpc`, `m_qps` / `s_qps` | out / in | the two context-cache ports `ReqFetch` uses (reads, the `qps` write-back) |
//! | `m_wqe_rd` / `s_wqe_rd` | out / in | DMA read client 0's share: the WQE fetches and their read-ahead (`SqAhead::m_rd`/`s_rd_data`; `s_wqe_rd.tready` constant 1) |
//! | `qp_inval` | in | `HostIf::qp_inval`: a QP context loaded or dropped; `SqAhead` forgets its window |
//! | `m_pay_rd` / `s_pay_rd` | out / in | DMA read client 1: the payload reads (`PayloadGather::m_rd_cmd`/`s_rd_data`) |
//! | `m_xreq` / `s_xresp` | out / in | the translation unit (`MrXlate::s_req`/`m_resp`, through the core's request mux) |
//! | `m_push` | out | `Inflight`'s PUSH of each WQE's record (`ReqGen::m_push`) |
//! | `m_err` | out | a WQE `ReqGen` refused (`REQ_ERR_*`), `ReqFetch::m_err`, for the completer |
//! | `m_rq_flush` | out | a QP in error whose send queue is flushed (`ReqFetch::m_rq_flush`), for the responder's RQ flush (`RxLookup::s_rq_flush`) |
//! | `s_rewind` / `m_arm` | in / out | go-back-N commands from the completer; the retransmit timer's armings (`ReqFetch`'s) |
//! | `m_xerr` | out | a WQE whose payload translation failed (`MrError` code), `ReqPayload::m_err`, once per WQE, for the completer |
//! | `m_hdr` / `m_axis` | out | to `TxArb` source 0: the packets' headers and their payloads (headers in order, payloads in the headers' order) |
//!
//! Inside: `ReqFetch::m_rd`/`m_at` -> `SqAhead::s_rd`/`s_at`, `SqAhead::m_wqe`
//! -> `ReqFetch::s_rd`; `ReqFetch::m_job` -> `ReqGen::s_job`, `ReqGen::m_done` ->
//! `ReqFetch::s_rdone`; `ReqGen::m_hdr` (header and SQ index) and `m_frag`
//! -> `ReqPayload`; `ReqPayload::m_piece` and `m_lane` (the packet's start
//! lane, decided there from the header) -> `PayloadGather`.
//!
//! **Latency** (`tb/tests/req_tx.rs`): on an idle block with caches
//! answering h cycles after a request is taken, the WQE's first beat d
//! cycles after its command, the translation's answer x cycles after the
//! fragment: a grant taken at t gives the job at t + h + d +
//! `REQ_FETCH_FIXED_LATENCY` + `SQ_AHEAD_MISS_EXTRA` (a WQE read that misses), its first header at the job + `REQ_GEN_LATENCY`
//! and, for a packet with payload, the header leaves `ReqPayload` at its last
//! answer beat + `REQ_PAYLOAD_HDR_LATENCY` ([`REQ_TX_HDR_LATENCY`] for a
//! packet without payload). **Rate**: one 64-byte payload beat per cycle on
//! `m_axis` once a long message streams (the gather's rate), one header
//! per cycle from `ReqGen` for one-fragment packets, a job per
//! `REQ_SETUP_PHASES` + 2 cycles at least.

use super::{
    ArmOut, DoneOut, InflightCmdOut, LaneOut, PayloadGather, PieceOut, QpnIn, QpnOut, ReadWqeOut, ReqDoneOut,
    ReqErrOut, ReqFetch, ReqGen, ReqHdrOut, ReqJobOut, ReqPayload, SqAhead, WqeAtOut, XlateErrOut, INFLIGHT_ENTRY_BITS,
    INFLIGHT_LOG_ENTRIES, INFLIGHT_QPN_BITS, REQ_QPN_BITS,
};
use crate::axis::{AxisIn, AxisOut, HdrOut};
use crate::host::{CacheReqOut, CacheRespIn, RdCmdOut};
use crate::mr::{MrReqOut, MrRespIn};
use crate::wire::TX_HDR_BITS;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Cycles from a job taken by `ReqGen` to the header of a packet without
/// payload offered on `m_hdr` (idle block): `ReqGen`'s latency, then
/// `ReqPayload`'s header FIFO and output register.
pub const REQ_TX_HDR_LATENCY: u64 = super::REQ_GEN_LATENCY + 3;

#[derive(LogicBlock, Default)]
pub struct ReqTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_grant: QpnIn<REQ_QPN_BITS>,
    pub m_sdone: DoneOut<REQ_QPN_BITS>,
    pub m_qpc: CacheReqOut<1024, 128>,
    pub s_qpc: CacheRespIn<1024>,
    pub m_qps: CacheReqOut<512, 64>,
    pub s_qps: CacheRespIn<512>,
    pub m_wqe_rd: RdCmdOut,
    pub s_wqe_rd: AxisIn<512, 64, 1>,
    pub qp_inval: Signal<In, Bit>,
    pub m_pay_rd: RdCmdOut,
    pub s_pay_rd: AxisIn<512, 64, 1>,
    pub m_xreq: MrReqOut,
    pub s_xresp: MrRespIn,
    pub m_push: InflightCmdOut<INFLIGHT_QPN_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_ENTRY_BITS>,
    pub m_rwqe: ReadWqeOut,
    pub m_err: ReqErrOut,
    pub m_rq_flush: QpnOut<REQ_QPN_BITS>,
    pub s_rewind: QpnIn<REQ_QPN_BITS>,
    pub m_arm: ArmOut<REQ_QPN_BITS>,
    pub m_xerr: XlateErrOut,
    pub m_hdr: HdrOut<TX_HDR_BITS>,
    pub m_axis: AxisOut<512, 64, 1>,
    fetch: ReqFetch,
    ahead: SqAhead,
    gen: ReqGen,
    pay: ReqPayload,
    gather: PayloadGather,
    kind: TypeTag<Self>,
}

impl Logic for ReqTx {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fetch, ahead, gen, pay, gather);
        self.fetch.reset.next = self.reset.val();
        self.ahead.reset.next = self.reset.val();
        self.ahead.inval.next = self.qp_inval.val();
        self.gen.reset.next = self.reset.val();
        self.pay.reset.next = self.reset.val();
        self.gather.reset.next = self.reset.val();
        // ---- the boundary: each port is a child's
        QpnIn::<REQ_QPN_BITS>::link(&mut self.s_grant, &mut self.fetch.s_grant);
        DoneOut::<REQ_QPN_BITS>::link(&mut self.m_sdone, &mut self.fetch.m_sdone);
        CacheReqOut::<1024, 128>::link(&mut self.m_qpc, &mut self.fetch.m_qpc);
        CacheRespIn::<1024>::link(&mut self.s_qpc, &mut self.fetch.s_qpc);
        CacheReqOut::<512, 64>::link(&mut self.m_qps, &mut self.fetch.m_qps);
        CacheRespIn::<512>::link(&mut self.s_qps, &mut self.fetch.s_qps);
        RdCmdOut::link(&mut self.m_wqe_rd, &mut self.ahead.m_rd);
        AxisIn::<512, 64, 1>::link(&mut self.s_wqe_rd, &mut self.ahead.s_rd_data);
        ReqErrOut::link(&mut self.m_err, &mut self.fetch.m_err);
        QpnOut::<REQ_QPN_BITS>::link(&mut self.m_rq_flush, &mut self.fetch.m_rq_flush);
        QpnIn::<REQ_QPN_BITS>::link(&mut self.s_rewind, &mut self.fetch.s_rewind);
        ArmOut::<REQ_QPN_BITS>::link(&mut self.m_arm, &mut self.fetch.m_arm);
        InflightCmdOut::<INFLIGHT_QPN_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_ENTRY_BITS>::link(
            &mut self.m_push,
            &mut self.gen.m_push,
        );
        ReadWqeOut::link(&mut self.m_rwqe, &mut self.gen.m_rwqe);
        MrReqOut::link(&mut self.m_xreq, &mut self.pay.m_xreq);
        MrRespIn::link(&mut self.s_xresp, &mut self.pay.s_xresp);
        XlateErrOut::link(&mut self.m_xerr, &mut self.pay.m_err);
        HdrOut::<TX_HDR_BITS>::link(&mut self.m_hdr, &mut self.pay.m_hdr);
        RdCmdOut::link(&mut self.m_pay_rd, &mut self.gather.m_rd_cmd);
        AxisIn::<512, 64, 1>::link(&mut self.s_pay_rd, &mut self.gather.s_rd_data);
        AxisOut::<512, 64, 1>::link(&mut self.m_axis, &mut self.gather.m_axis);
        // ---- inside
        RdCmdOut::join(&mut self.fetch.m_rd, &mut self.ahead.s_rd);
        WqeAtOut::join(&mut self.fetch.m_at, &mut self.ahead.s_at);
        AxisOut::<512, 64, 1>::join(&mut self.ahead.m_wqe, &mut self.fetch.s_rd);
        ReqJobOut::join(&mut self.fetch.m_job, &mut self.gen.s_job);
        ReqDoneOut::join(&mut self.gen.m_done, &mut self.fetch.s_rdone);
        ReqHdrOut::join(&mut self.gen.m_hdr, &mut self.pay.s_hdr);
        MrReqOut::join(&mut self.gen.m_frag, &mut self.pay.s_frag);
        PieceOut::join(&mut self.pay.m_piece, &mut self.gather.s_piece);
        LaneOut::join(&mut self.pay.m_lane, &mut self.gather.s_lane);
    }
}
