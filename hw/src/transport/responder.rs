//! `Responder`: the responder's side of the core as one block (docs/core.md,
//! "The receive side"): `RespCheck` decides each request packet, `ExecSide`
//! keeps what the execution needs beside the decision, `XlateAhead` queues
//! the decisions and sends their translation requests ahead, `RespExec` executes
//! it (rkey checks, RECV WQEs, placement commands, ACK and READ requests,
//! receive CQEs, the `qps` write), `AtomicExec` runs its atomics on host
//! memory (on the RECV WQE read client and the payload's write client, which
//! it borrows), `PayloadScatter` places the payload through DMA write
//! client 0, and `RespTx` sends the answers in order: ACKs, NAKs, READ
//! responses (their payload read through DMA read client 3) and atomic ACKs.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_pkt` | in | request packets in arrival order (`RxLookup::m_req`: header, `qpc`, `qps`) |
//! | `s_axis` | in | their payloads, in the same order (`RxPaySplit::m_req`) |
//! | `m_xreq` / `s_xresp` | out / in | the translation unit (rkeys, RECV SGEs), through the core's `XlateMux` |
//! | `m_rd` / `s_rd` | out / in | RECV WQE reads (`HostIf::s_recv_rd` / `m_recv_rd`), a QP's posted entries read ahead (`RqAhead`), and an atomic's 8-byte read |
//! | `qp_inval` | in | `HostIf::qp_inval`: a QP context dropped; the entries read ahead are forgotten |
//! | `cnt_dup`, `cnt_drop`, `cnt_rnr`, `cnt_nak[c]` | out | the child `RespStats`' counts (duplicate requests, silent drops, RNR NAKs, NAKs by AETH code), for the counter registers |
//! | `m_wr`, `wr_done`, `wr_done_err` | out, in, in | the payload's DMA writes and an atomic's (`HostIf::s_pay_wr`, `pay_wr_done`, `pay_wr_err`) |
//! | `m_cqe` | out | receive completions (`CqeMerge::s_recv`) |
//! | `m_wb` | out | one item per request packet, its `qps` write (`RxLookup::s_req_wb`) |
//! | `m_pay_xreq` / `s_pay_xresp` | out / in | READ response payloads' translation (a second `XlateMux` port) |
//! | `m_pay_rd` / `s_pay_rd` | out / in | READ response payloads' DMA reads (`HostIf::s_resp_rd` / `m_resp_rd`) |
//! | `m_hdr` / `m_axis` | out | ACK/NAK, READ response and atomic ACK headers and the responses' payloads (`TxArb` source 2) |
//! | `rp_base`, `m_rp_wr`, `rp_wr_done`, `m_rp_rd` / `s_rp_rd` | in, out, in, out / in | the child `ReplayTable`: the table's IOVA (`HostIf::replay_base`), one 32-byte write per executed READ or atomic (`HostIf::s_replay_wr`, `replay_wr_done`), one 512-byte read per duplicate READ or atomic (`HostIf::s_replay_rd` / `m_replay_rd`) |
//!
//! The gating docs/core.md describes: `s_pkt` is taken only while
//! `ExecSide` has room (`s_room`), which is then pushed with the packet's
//! header and `qpc`; a decision enters `XlateAhead` only beside its PD and
//! payload length (`m_xvalid`, popped with it), and passes to `RespExec`
//! only beside its side record (`m_valid`), which is popped with it. All are flops, so neither
//! handshake reaches another port's `ready` combinationally.

use super::{
    AtomicAnsOut, AtomicExec, AtomicReqOut, ExecSide, ExecSideOut, PayloadScatter, PieceOut, PktDoneOut, QpsWrOut,
    RecvCqeOut, ReplayFindOut, ReplayFoundOut, ReplayPutOut, ReplayTable, RespCheck, RespDecOut, RespExec, RespPktIn,
    RespReqOut, RespStats, RespTx, ScatterPktOut, XlateAhead, RESP_NAK_CODES,
};
use crate::axis::{AxisIn, AxisOut, HdrOut};
use crate::consts::{RESP_EXEC_SEND, RESP_EXEC_WRITE};
use crate::host::{RdCmdOut, WrStreamOut};
use crate::mr::{MrReqOut, MrRespIn, MrRespOut};
use crate::wire::TX_HDR_BITS;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Responder {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_pkt: RespPktIn,
    pub s_axis: AxisIn<512, 64, 1>,
    pub m_xreq: MrReqOut,
    pub s_xresp: MrRespIn,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub qp_inval: Signal<In, Bit>,
    pub m_wr: WrStreamOut,
    pub wr_done: Signal<In, Bit>,
    pub wr_done_err: Signal<In, Bit>,
    pub m_cqe: RecvCqeOut,
    pub m_wb: QpsWrOut,
    pub m_pay_xreq: MrReqOut,
    pub s_pay_xresp: MrRespIn,
    pub m_pay_rd: RdCmdOut,
    pub s_pay_rd: AxisIn<512, 64, 1>,
    pub m_hdr: HdrOut<TX_HDR_BITS>,
    pub m_axis: AxisOut<512, 64, 1>,
    /// The replay table (`ReplayTable`): its base, its writes and their
    /// completions, its reads.
    pub rp_base: Signal<In, Bits<64>>,
    pub m_rp_wr: WrStreamOut,
    pub rp_wr_done: Signal<In, Bit>,
    pub m_rp_rd: RdCmdOut,
    pub s_rp_rd: AxisIn<512, 64, 1>,
    /// `RespStats`' counts: duplicate requests, silent drops, RNR NAKs, NAKs by AETH code.
    pub cnt_dup: Signal<Out, Bits<64>>,
    pub cnt_drop: Signal<Out, Bits<64>>,
    pub cnt_rnr: Signal<Out, Bits<64>>,
    pub cnt_nak: [Signal<Out, Bits<64>>; RESP_NAK_CODES],
    check: RespCheck,
    side: ExecSide,
    ahead: XlateAhead,
    exec: RespExec,
    atomic: AtomicExec,
    replay: ReplayTable,
    scatter: PayloadScatter,
    tx: RespTx,
    stats: RespStats,
    take: Signal<Local, Bit>,
    pass: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for Responder {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, check, side, ahead, exec, atomic, replay, scatter, tx, stats);
        self.atomic.reset.next = self.reset.val();
        self.replay.reset.next = self.reset.val();
        self.stats.reset.next = self.reset.val();
        self.check.reset.next = self.reset.val();
        self.side.reset.next = self.reset.val();
        self.ahead.reset.next = self.reset.val();
        self.exec.reset.next = self.reset.val();
        self.scatter.reset.next = self.reset.val();
        self.tx.reset.next = self.reset.val();

        // ---- a packet in: the decision and its side record together
        // no forwarding: `RxLookup`'s hazard check gives each packet its
        // QP's state after every earlier write (`RespCheck::fwd`)
        self.check.fwd.next = false;
        self.check.s_pkt.hdr.next = self.s_pkt.hdr.val();
        self.check.s_pkt.qpc.next = self.s_pkt.qpc.val();
        self.check.s_pkt.qps.next = self.s_pkt.qps.val();
        self.check.s_pkt.valid.next = self.s_pkt.valid.val() & self.side.s_room.val();
        self.s_pkt.ready.next = self.check.s_pkt.ready.val() & self.side.s_room.val();
        self.take.next = self.s_pkt.valid.val() & self.check.s_pkt.ready.val() & self.side.s_room.val();
        self.side.s_push.next = self.take.val();
        self.side.s_hdr.next = self.s_pkt.hdr.val();
        self.side.s_qpc.next = self.s_pkt.qpc.val();

        // ---- the decision out: queued beside its PD and payload length, its
        // translation requests sent ahead
        RespDecOut::join(&mut self.check.m_dec, &mut self.ahead.s_dec);
        self.ahead.s_pd.next = self.side.m_xpd.val();
        self.ahead.s_plen.next = self.side.m_xplen.val();
        self.ahead.s_xvalid.next = self.side.m_xvalid.val();
        self.side.m_xpop.next = self.ahead.s_xpop.val();
        // a record that starts a RECV, as it enters the queue: its RQ entry is read ahead
        self.exec.s_hint.valid.next = self.ahead.s_xpop.val()
            & self.check.m_dec.recv_new.val()
            & ((self.check.m_dec.verdict.val() == RESP_EXEC_SEND)
                | (self.check.m_dec.verdict.val() == RESP_EXEC_WRITE));
        self.exec.s_hint.qpn.next = self.check.m_dec.qpn.val();
        self.exec.s_hint.index.next = self.check.m_dec.recv_index.val();
        self.exec.s_hint.base.next = self.side.m_xrq_base.val();
        self.exec.s_hint.log.next = self.side.m_xrq_log.val();
        // ---- out of the queue: beside its side record
        self.exec.s_dec.qpn.next = self.ahead.m_dec.qpn.val();
        self.exec.s_dec.psn.next = self.ahead.m_dec.psn.val();
        self.exec.s_dec.verdict.next = self.ahead.m_dec.verdict.val();
        self.exec.s_dec.ack.next = self.ahead.m_dec.ack.val();
        self.exec.s_dec.syndrome.next = self.ahead.m_dec.syndrome.val();
        self.exec.s_dec.aeth_psn.next = self.ahead.m_dec.aeth_psn.val();
        self.exec.s_dec.aeth_msn.next = self.ahead.m_dec.aeth_msn.val();
        self.exec.s_dec.msn_before.next = self.ahead.m_dec.msn_before.val();
        self.exec.s_dec.key_check.next = self.ahead.m_dec.key_check.val();
        self.exec.s_dec.key_access.next = self.ahead.m_dec.key_access.val();
        self.exec.s_dec.rkey.next = self.ahead.m_dec.rkey.val();
        self.exec.s_dec.va.next = self.ahead.m_dec.va.val();
        self.exec.s_dec.len.next = self.ahead.m_dec.len.val();
        self.exec.s_dec.recv_new.next = self.ahead.m_dec.recv_new.val();
        self.exec.s_dec.recv_index.next = self.ahead.m_dec.recv_index.val();
        self.exec.s_dec.recv_offset.next = self.ahead.m_dec.recv_offset.val();
        self.exec.s_dec.recv_done.next = self.ahead.m_dec.recv_done.val();
        self.exec.s_dec.cqe_len.next = self.ahead.m_dec.cqe_len.val();
        self.exec.s_dec.write.next = self.ahead.m_dec.write.val();
        self.exec.s_dec.wr_mask.next = self.ahead.m_dec.wr_mask.val();
        self.exec.s_dec.wr_data.next = self.ahead.m_dec.wr_data.val();
        self.exec.s_dec.valid.next = self.ahead.m_dec.valid.val() & self.side.m_valid.val();
        self.ahead.m_dec.ready.next = self.exec.s_dec.ready.val() & self.side.m_valid.val();
        self.pass.next = self.ahead.m_dec.valid.val() & self.exec.s_dec.ready.val() & self.side.m_valid.val();
        self.side.m_pop.next = self.pass.val();
        self.exec.s_pre.next = self.ahead.m_pre.val();
        self.ahead.exec_idle.next = self.exec.s_dec.ready.val();
        ExecSideOut::join(&mut self.side.m_side, &mut self.exec.s_side);

        // ---- execution: translation, RECV WQEs, placement, ACKs, CQEs, write-backs
        MrReqOut::join(&mut self.exec.m_xreq, &mut self.ahead.s_xreq);
        MrRespOut::join(&mut self.ahead.m_xresp, &mut self.exec.s_xresp);
        MrReqOut::link(&mut self.m_xreq, &mut self.ahead.m_xreq);
        MrRespIn::link(&mut self.s_xresp, &mut self.ahead.s_xresp);
        // RECV WQE reads and an atomic's read share the read client, the
        // payload's writes and an atomic's write the write client (`AtomicExec`)
        RdCmdOut::join(&mut self.exec.m_rd, &mut self.atomic.s_walk_rd);
        AxisOut::<512, 64, 1>::join(&mut self.atomic.m_walk_rd, &mut self.exec.s_rd);
        RdCmdOut::link(&mut self.m_rd, &mut self.atomic.m_rd);
        AxisIn::<512, 64, 1>::link(&mut self.s_rd, &mut self.atomic.s_rd);
        AtomicReqOut::join(&mut self.exec.m_atom, &mut self.atomic.s_req);
        AtomicAnsOut::join(&mut self.atomic.m_ans, &mut self.exec.s_atom);
        // READ and atomic resources kept for duplicates, in host memory
        ReplayPutOut::join(&mut self.exec.m_put, &mut self.replay.s_put);
        ReplayFindOut::join(&mut self.exec.m_find, &mut self.replay.s_find);
        ReplayFoundOut::join(&mut self.replay.m_found, &mut self.exec.s_found);
        self.replay.base.next = self.rp_base.val();
        WrStreamOut::link(&mut self.m_rp_wr, &mut self.replay.m_wr);
        self.replay.wr_done.next = self.rp_wr_done.val();
        RdCmdOut::link(&mut self.m_rp_rd, &mut self.replay.m_rd);
        AxisIn::<512, 64, 1>::link(&mut self.s_rp_rd, &mut self.replay.s_rd);
        self.exec.qp_inval.next = self.qp_inval.val();
        ScatterPktOut::join(&mut self.exec.m_pkt, &mut self.scatter.s_pkt);
        PieceOut::join(&mut self.exec.m_piece, &mut self.scatter.s_piece);
        PktDoneOut::join(&mut self.scatter.m_done, &mut self.exec.s_done);
        AxisIn::<512, 64, 1>::link(&mut self.s_axis, &mut self.scatter.s_axis);
        // (the atomic's beat in the scatter's place: the scatter has nothing
        // in flight then, so its `tready` may follow the client's)
        self.m_wr.tdata.next = self.scatter.m_wr.tdata.val();
        self.m_wr.tkeep.next = self.scatter.m_wr.tkeep.val();
        self.m_wr.tlast.next = self.scatter.m_wr.tlast.val();
        self.m_wr.addr.next = self.scatter.m_wr.addr.val();
        self.m_wr.len.next = self.scatter.m_wr.len.val();
        self.m_wr.tvalid.next = self.scatter.m_wr.tvalid.val();
        if self.atomic.m_wr.tvalid.val() {
            self.m_wr.tdata.next = self.atomic.m_wr.tdata.val();
            self.m_wr.tkeep.next = self.atomic.m_wr.tkeep.val();
            self.m_wr.tlast.next = self.atomic.m_wr.tlast.val();
            self.m_wr.addr.next = self.atomic.m_wr.addr.val();
            self.m_wr.len.next = self.atomic.m_wr.len.val();
            self.m_wr.tvalid.next = true;
        }
        self.scatter.m_wr.tready.next = self.m_wr.tready.val();
        self.atomic.m_wr.tready.next = self.m_wr.tready.val();
        self.atomic.wr_done.next = self.wr_done.val();
        self.atomic.wr_done_err.next = self.wr_done_err.val();
        self.scatter.wr_done.next = self.atomic.pay_done.val();
        self.scatter.wr_done_err.next = self.atomic.pay_done_err.val();
        RespReqOut::join(&mut self.exec.m_ack, &mut self.tx.s_req);
        MrReqOut::link(&mut self.m_pay_xreq, &mut self.tx.m_xreq);
        MrRespIn::link(&mut self.s_pay_xresp, &mut self.tx.s_xresp);
        RdCmdOut::link(&mut self.m_pay_rd, &mut self.tx.m_pay_rd);
        AxisIn::<512, 64, 1>::link(&mut self.s_pay_rd, &mut self.tx.s_pay_rd);
        HdrOut::<TX_HDR_BITS>::link(&mut self.m_hdr, &mut self.tx.m_hdr);
        AxisOut::<512, 64, 1>::link(&mut self.m_axis, &mut self.tx.m_axis);
        // a READ response whose payload translation failed (its region deregistered
        // while it was answered) is not sent; the requester's retry finds the READ
        // a duplicate (docs/transport_blocks.md, "`resp_gen`")
        self.tx.m_xerr.ready.next = true;
        RecvCqeOut::link(&mut self.m_cqe, &mut self.exec.m_cqe);
        QpsWrOut::link(&mut self.m_wb, &mut self.exec.m_qps);

        // ---- the counters: records taken by verdict, ACK/NAK requests taken by kind and code
        self.stats.dec_fire.next = self.pass.val();
        self.stats.verdict.next = self.ahead.m_dec.verdict.val();
        self.stats.rp_miss.next = self.exec.rp_miss.val();
        self.stats.ack_fire.next = self.exec.m_ack.valid.val() & self.tx.s_req.ready.val();
        self.stats.ack_kind.next = self.exec.m_ack.kind.val();
        self.stats.ack_code.next = self.exec.m_ack.code.val();
        self.cnt_dup.next = self.stats.dup.val();
        self.cnt_drop.next = self.stats.drop.val();
        self.cnt_rnr.next = self.stats.rnr.val();
        self.cnt_nak[0].next = self.stats.nak[0].val();
        self.cnt_nak[1].next = self.stats.nak[1].val();
        self.cnt_nak[2].next = self.stats.nak[2].val();
        self.cnt_nak[3].next = self.stats.nak[3].val();
    }
}
