//! `Completer`: the completer's side of the core as one block (docs/core.md,
//! "Instances"): `CompAck` with the `Inflight` table it walks, which the
//! requester fills through `InflightMux`; `CompRead`, which places READ
//! response data (the READ WQE's SGEs read again, translated), and the
//! `PayloadScatter` that writes it.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_push` | in | the requester's PUSH of each WQE's record (`ReqTx::m_push`) |
//! | `s_pkt` | in | response packets in arrival order (`RxLookup::m_resp`: header, `qpc`, `qps`) |
//! | `m_cqe` | out | send completions (`CqeMerge::s_comp`) |
//! | `m_wb` | out | one item per response packet (or timer expiry), its `qps` write (`mask` 0 when none) and `wake` (the write moved UNA, or asks a resend): `RxLookup::s_comp_wb` |
//! | `m_rewind` | out | go-back-N: the QP whose requester must restart from the oldest unacknowledged PSN (`ReqFetch::s_rewind`); a register, offered with the record's `m_wb` item, so it is in the requester's table before the wake that serves it |
//! | `m_arm` | out | (re)arm the QP's retransmit timer: the ACK timeout (`qpc.TIMEOUT`) when the record moved UNA with PSNs still outstanding, the RNR timer (the NAK's code) on an RNR wait; a register |
//! | `cnt_push_refused` | out | PUSHes `Inflight` refused (must stay 0) |
//! | `cnt[k]` | out | the child `CompStats`' counts: ghost responses, responses dropped (completer in error), RNR NAKs, PSN sequence NAKs and fatal NAKs received, go-back-N restarts |
//! | `s_axis` | in | the response packets' payloads (`RxPaySplit::m_resp`: one per packet on `s_pkt`, an empty beat for none, in order) |
//! | `m_rd` / `s_rd` | out / in | send WQEs read again for a READ's SGEs (`HostIf::s_sq_rd`) |
//! | `m_xreq` / `s_xresp` | out / in | LOCAL_WRITE translations of the READ's SGE pieces (`XlateMux` port 3) |
//! | `m_wr`, `wr_done`, `wr_done_err` | out, in, in | the READ data's writes (DMA write client 1, `HostIf::s_comp_wr`) and their completions |
//! | `s_rwqe` ([`ReadWqeIn`]) | in | the requester's READ and atomic WQEs as sent (`ReqGen::m_rwqe`), for `CompRead`'s walk (`ReadAhead`) |
//! | `qp_inval` | in | a QP context was dropped (`HostIf::qp_inval`): the WQE `CompRead` holds and `CompAck`'s note of a failed translation are forgotten |
//! | `s_xerr` | in | a send WQE whose payload translation failed (`ReqTx::m_xerr`): `CompAck`'s note, always ready |
//!
//! `CompAck::m_dec` becomes `m_wb`: its `write`, `wr_mask`, `wr_data` are
//! the `qps` line; a RESEND action becomes `m_rewind`, `arm` becomes
//! `m_arm`. A record is taken only when both registers are empty (no path
//! from their `ready` to `m_wb`).
//!
//! **READ data.** Each packet's record (not a timer's) first gives its
//! payload's command to the scatter (`pkt`: write the pieces `CompRead`
//! committed, or drop), then is taken. The record that completes a READ
//! with data (LAST/ONLY: its `RD_DONE` step, which lets a fenced WQE go)
//! is taken only once every placed packet's data is written (`quiet`: the
//! scatter's `m_done` count reached the placed count), and so is every
//! CQE: a CQE completing such a READ also waits for its record's command
//! (`rd_pushed`). The driver reuses a WQE's buffers after its CQE.

use super::{
    ArmOut, CompAck, CompCqeOut, CompRead, CompStats, InflightCmdIn, InflightCmdOut, InflightMux, InflightRespOut,
    InflightTable, PayloadScatter, PieceOut, PlaceAnsOut, PlaceReqOut, QpnOut, QpsWrOut, ReadHintOut, ReadWqeIn,
    RespPktIn, XlateErrIn, COMP_STATS, INFLIGHT_ENTRY_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_QPN_BITS,
};
use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::{RdCmdOut, WrStreamOut};
use crate::mr::{MrReqOut, MrRespIn};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Completer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_push: InflightCmdIn<Q, E, W>,
    pub s_pkt: RespPktIn,
    pub m_cqe: CompCqeOut,
    pub m_wb: QpsWrOut,
    pub m_rewind: QpnOut<Q>,
    pub m_arm: ArmOut<Q>,
    pub cnt_push_refused: Signal<Out, Bits<32>>,
    pub cnt: [Signal<Out, Bits<64>>; COMP_STATS],
    /// The in-flight table is still being cleared after reset.
    pub init: Signal<Out, Bit>,
    pub s_axis: AxisIn<512, 64, 1>,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub m_xreq: MrReqOut,
    pub s_xresp: MrRespIn,
    pub m_wr: WrStreamOut,
    pub wr_done: Signal<In, Bit>,
    pub wr_done_err: Signal<In, Bit>,
    pub qp_inval: Signal<In, Bit>,
    pub s_rwqe: ReadWqeIn,
    pub s_xerr: XlateErrIn,
    mux: InflightMux,
    table: InflightTable,
    ack: CompAck,
    stats: CompStats,
    read: CompRead,
    scatter: PayloadScatter,
    // ---- the scatter's command per packet, the placed and written counts
    pkt_v: Reg<Bit>,
    pkt_lane: Reg<Bits<6>>,
    pkt_drop: Reg<Bit>,
    pkt_atomic: Reg<Bit>,
    pkt_imm: Reg<Bits<64>>,
    pkt_sent: Reg<Bit>,
    placed: Reg<Bits<8>>,
    written: Reg<Bits<8>>,
    rd_pushed: Reg<Bit>,
    rec: Signal<Local, Bit>,
    rec_data: Signal<Local, Bit>,
    rec_hold: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    quiet: Signal<Local, Bit>,
    rec_ok: Signal<Local, Bit>,
    cqe_ok: Signal<Local, Bit>,
    rw_v: Reg<Bit>,
    rw_qpn: Reg<Bits<Q>>,
    arm_v: Reg<Bit>,
    arm_qpn: Reg<Bits<Q>>,
    arm_code: Reg<Bits<5>>,
    arm_kind: Reg<Bit>,
    go: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

const Q: usize = INFLIGHT_QPN_BITS;
const E: usize = INFLIGHT_LOG_ENTRIES;
const C: usize = INFLIGHT_LOG_ENTRIES + 1;
const W: usize = INFLIGHT_ENTRY_BITS;

impl Logic for Completer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rw_v, rw_qpn, arm_v, arm_qpn, arm_code, arm_kind, pkt_v, pkt_lane, pkt_drop, pkt_atomic,
            pkt_imm, pkt_sent, placed, written, rd_pushed
        );
        clock!(self, clock, mux, table, ack, stats, read, scatter);
        self.read.reset.next = self.reset.val();
        self.scatter.reset.next = self.reset.val();
        self.stats.reset.next = self.reset.val();
        self.mux.reset.next = self.reset.val();
        self.table.reset.next = self.reset.val();
        self.ack.reset.next = self.reset.val();
        InflightCmdIn::<Q, E, W>::link(&mut self.s_push, &mut self.mux.s_push);
        self.cnt_push_refused.next = self.mux.cnt_push_refused.val();
        self.init.next = self.table.init.val();
        InflightCmdOut::<Q, E, W>::join(&mut self.ack.m_inf, &mut self.mux.s_comp);
        InflightRespOut::<E, C, W>::join(&mut self.mux.m_comp, &mut self.ack.s_inf);
        InflightCmdOut::<Q, E, W>::join(&mut self.mux.m_cmd, &mut self.table.s_cmd);
        InflightRespOut::<E, C, W>::join(&mut self.table.m_resp, &mut self.mux.s_resp);
        RespPktIn::link(&mut self.s_pkt, &mut self.ack.s_pkt);
        XlateErrIn::link(&mut self.s_xerr, &mut self.ack.s_xerr);
        // ---- READ data: placement, the scatter's commands, the counts
        PlaceReqOut::join(&mut self.ack.m_place, &mut self.read.s_place);
        PlaceAnsOut::join(&mut self.read.m_verdict, &mut self.ack.s_placed);
        ReadHintOut::join(&mut self.ack.m_hint, &mut self.read.s_hint);
        self.read.inval.next = self.qp_inval.val();
        ReadWqeIn::link(&mut self.s_rwqe, &mut self.read.s_put);
        self.ack.inval.next = self.qp_inval.val();
        RdCmdOut::link(&mut self.m_rd, &mut self.read.m_rd);
        AxisIn::<512, 64, 1>::link(&mut self.s_rd, &mut self.read.s_rd);
        MrReqOut::link(&mut self.m_xreq, &mut self.read.m_xreq);
        MrRespIn::link(&mut self.s_xresp, &mut self.read.s_xresp);
        PieceOut::join(&mut self.read.m_piece, &mut self.scatter.s_piece);
        AxisIn::<512, 64, 1>::link(&mut self.s_axis, &mut self.scatter.s_axis);
        WrStreamOut::link(&mut self.m_wr, &mut self.scatter.m_wr);
        self.scatter.wr_done.next = self.wr_done.val();
        self.scatter.wr_done_err.next = self.wr_done_err.val();
        self.scatter.s_pkt.lane.next = self.pkt_lane.q.val();
        self.scatter.s_pkt.drop.next = self.pkt_drop.q.val();
        self.scatter.s_pkt.imm.next = self.pkt_imm.q.val();
        self.scatter.s_pkt.imm_valid.next = self.pkt_atomic.q.val();
        self.scatter.s_pkt.valid.next = self.pkt_v.q.val();
        if self.scatter.s_pkt.ready.val() {
            self.pkt_v.d.next = false;
        }
        // (a write error is not reported yet: the model's memory has none)
        self.scatter.m_done.ready.next = true;
        if self.scatter.m_done.valid.val() {
            self.written.d.next = self.written.q.val() + 1;
        }
        self.quiet.next = self.placed.q.val() == self.written.q.val();
        self.rec.next = self.ack.m_dec.valid.val() & !self.ack.m_dec.expiry.val();
        // a placed READ response with data, or an atomic ACK (its original value)
        self.rec_data.next =
            self.ack.m_dec.place.val() & (self.ack.m_dec.atomic.val() | self.ack.m_dec.plen.val().any());
        self.rec_hold.next = self.rec_data.val() & self.ack.m_dec.last.val();
        self.push.next = self.rec.val() & !self.pkt_sent.q.val() & !self.pkt_v.q.val();
        if self.push.val() {
            self.pkt_v.d.next = true;
            self.pkt_lane.d.next = self.ack.m_dec.lane.val();
            self.pkt_drop.d.next = !self.rec_data.val();
            self.pkt_atomic.d.next = self.ack.m_dec.atomic.val();
            self.pkt_imm.d.next = self.ack.m_dec.orig.val();
            if self.ack.m_dec.atomic.val() {
                self.pkt_lane.d.next = 0.into();
            }
            self.pkt_sent.d.next = true;
            if self.rec_data.val() {
                self.placed.d.next = self.placed.q.val() + 1;
            }
            if self.rec_hold.val() & self.ack.m_cqe.valid.val() & self.ack.cqe_placed.val() {
                self.rd_pushed.d.next = true;
            }
        }
        // the record: its command given (or given now), and a READ's end its data written
        self.rec_ok.next = self.ack.m_dec.expiry.val()
            | (self.pkt_sent.q.val() & (!self.rec_hold.val() | self.quiet.val()))
            | (!self.pkt_v.q.val() & !self.rec_hold.val());
        // every CQE after the data placed before it
        self.cqe_ok.next = self.quiet.val() & (!self.ack.cqe_placed.val() | self.rd_pushed.q.val());
        self.m_cqe.cq.next = self.ack.m_cqe.cq.val();
        self.m_cqe.wr_id.next = self.ack.m_cqe.wr_id.val();
        self.m_cqe.status.next = self.ack.m_cqe.status.val();
        self.m_cqe.opcode.next = self.ack.m_cqe.opcode.val();
        self.m_cqe.byte_len.next = self.ack.m_cqe.byte_len.val();
        self.m_cqe.qpn.next = self.ack.m_cqe.qpn.val();
        self.m_cqe.wqe_index.next = self.ack.m_cqe.wqe_index.val();
        self.m_cqe.valid.next = self.ack.m_cqe.valid.val() & self.cqe_ok.val();
        self.ack.m_cqe.ready.next = self.m_cqe.ready.val() & self.cqe_ok.val();
        if self.m_cqe.ready.val() & self.cqe_ok.val() & self.ack.m_cqe.valid.val() & self.ack.cqe_placed.val() {
            self.rd_pushed.d.next = false;
        }
        self.m_wb.qpn.next = self.ack.m_dec.qpn.val();
        self.m_wb.mask.next = 0.into();
        if self.ack.m_dec.write.val() {
            self.m_wb.mask.next = self.ack.m_dec.wr_mask.val();
        }
        self.m_wb.data.next = self.ack.m_dec.wr_data.val();
        self.m_wb.wake.next = self.ack.m_dec.write.val() & self.ack.m_dec.wake.val();
        self.go.next = !self.rw_v.q.val() & !self.arm_v.q.val() & self.rec_ok.val();
        self.m_wb.valid.next = self.ack.m_dec.valid.val() & self.go.val();
        self.ack.m_dec.ready.next = self.m_wb.ready.val() & self.go.val();
        self.fire.next = self.ack.m_dec.valid.val() & self.m_wb.ready.val() & self.go.val();
        if self.fire.val() {
            self.pkt_sent.d.next = false;
        }
        self.stats.fire.next = self.fire.val();
        self.stats.timer.next = self.ack.m_dec.expiry.val();
        self.stats.rnr_timer.next = self.ack.m_dec.expiry_rnr.val();
        // ---- the go-back-N command and the timer's arming, from registers
        self.m_rewind.qpn.next = self.rw_qpn.q.val();
        self.m_rewind.valid.next = self.rw_v.q.val();
        if self.m_rewind.ready.val() {
            self.rw_v.d.next = false;
        }
        if self.fire.val() & (self.ack.m_dec.action.val() == CACT_RESEND) {
            self.rw_v.d.next = true;
            self.rw_qpn.d.next = self.ack.m_dec.qpn.val().get_bits::<Q>(0);
        }
        self.m_arm.qpn.next = self.arm_qpn.q.val();
        self.m_arm.kind.next = self.arm_kind.q.val();
        self.m_arm.code.next = self.arm_code.q.val();
        self.m_arm.valid.next = self.arm_v.q.val();
        if self.m_arm.ready.val() {
            self.arm_v.d.next = false;
        }
        if self.fire.val() & self.ack.m_dec.arm.val() {
            self.arm_v.d.next = true;
            self.arm_qpn.d.next = self.ack.m_dec.qpn.val().get_bits::<Q>(0);
            self.arm_kind.d.next = false;
            self.arm_code.d.next = self.ack.m_dec.ack_timeout.val();
        }
        // an RNR wait: the RNR timer with the NAK's code (replaces an ACK arming)
        if self.fire.val() & (self.ack.m_dec.action.val() == CACT_RNR_WAIT) {
            self.arm_v.d.next = true;
            self.arm_qpn.d.next = self.ack.m_dec.qpn.val().get_bits::<Q>(0);
            self.arm_kind.d.next = true;
            self.arm_code.d.next = self.ack.m_dec.timer.val();
        }
        if self.reset.val() {
            self.rw_v.d.next = false;
            self.arm_v.d.next = false;
            self.pkt_v.d.next = false;
            self.pkt_sent.d.next = false;
            self.placed.d.next = 0.into();
            self.written.d.next = 0.into();
            self.rd_pushed.d.next = false;
        }
        self.stats.verdict.next = self.ack.m_dec.verdict.val();
        self.stats.action.next = self.ack.m_dec.action.val();
        self.cnt[0].next = self.stats.count[0].val();
        self.cnt[1].next = self.stats.count[1].val();
        self.cnt[2].next = self.stats.count[2].val();
        self.cnt[3].next = self.stats.count[3].val();
        self.cnt[4].next = self.stats.count[4].val();
        self.cnt[5].next = self.stats.count[5].val();
        self.cnt[6].next = self.stats.count[6].val();
    }
}
