//! `ReqPayload`: the requester's payload translation and header holding,
//! between `ReqGen` and `TxArb` source 0 / `PayloadGather` (docs/transport.md,
//! "The requester, block by block", item 3). Each fragment request of
//! `ReqGen` goes to the translation unit (`MrXlate`) through a port pair of
//! this block; the translated page pieces wait in a FIFO with a commit point
//! ([`PieceHold`]) until the packet's last fragment is answered; the header
//! waits in a FIFO until then too, and is offered to `TxArb` only when its
//! pieces are committed towards `PayloadGather`, so `TxArb`'s promise holds
//! (a granted header's payload follows without waiting on anything outside
//! the requester). A packet whose translation fails is dropped whole
//! (header and pieces) and reported once per WQE on `m_err`.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_hdr` ([`ReqHdrIn`]) | in | `ReqGen::m_hdr`: one transmit header per packet (`tdata`; `payload_len` 0 means no fragments; the QPN is `src_qp`) with its SQ WQE index beside it (`sq_index`) |
//! | `s_frag` (`MrReqIn`) | in | `ReqGen::m_frag`: per packet with payload its fragments in order, `id` bit [`REQ_FRAG_LAST`] on the last |
//! | `m_xreq` (`MrReqOut`) | out | to `MrXlate::s_req`: the fragment, `access` = local read, from a skid buffer |
//! | `s_xresp` (`MrRespIn`) | in | from `MrXlate::m_resp`: per fragment its pieces (verdict 0) or a beat with the failing verdict; `last` on the fragment's last beat. `ready` is a register. |
//! | `m_piece` (`PieceOut`) | out | to `PayloadGather::s_piece`: the pieces of packets that passed, `last` on a packet's last piece, from a register |
//! | `m_lane` (`LaneOut`) | out | to `PayloadGather::s_lane`: per packet that passed with payload its payload's start lane (`TxBuild::payload_lane` of its header), in piece order, from a FIFO's output register |
//! | `m_hdr` (`HdrOut<TX_HDR_BITS>`) | out | to `TxArb`: headers of packets that passed (and every header without payload), in order, from a register |
//! | `m_err` ([`XlateErrOut`]) | out | to the completer: {QPN, SQ index, verdict (`MrError` code)} of a WQE whose translation failed, once per WQE, from a register |
//!
//! **Order of events.** A header taken puts itself into the header FIFO
//! and, when it has payload, its tag {QPN, SQ index, start lane} into the
//! tag FIFO. The start lane is decided here, once, from the header (VLAN,
//! IPv6, the opcode's extended headers through `OpcodeInfo`): where
//! `TxBuild` ends the frame's headers, `TxBuild::payload_lane`. The
//! resolver takes answer beats (one per cycle) only while the tag of their
//! packet is at the tag FIFO's head, writes pieces of verdict 0 into
//! `PieceHold` and notes the first failing verdict. At the packet's last
//! beat it decides: drop if a beat failed or the WQE (QPN, SQ index) is
//! the one noted as failed; then `PieceHold` discards the packet's pieces,
//! else it commits them and the packet's lane enters the lane FIFO
//! (`m_lane`), so `PayloadGather` finds it with the packet's first piece. The decision enters the decision FIFO; a failure
//! not noted yet loads `m_err` and becomes the note. The header side takes
//! the header at the FIFO's head when it has no payload, or when its
//! decision is there: it drops it, or loads the output register.
//!
//! **Later packets of a failed WQE.** The note is one register {QPN, SQ
//! index}: every later packet of that WQE (the rest of the job, and a later
//! job of the same WQE that `req_fetch` started before the completer moved
//! the QP to ERR) is dropped without a second report. It is cleared when a
//! packet of the same QP with another SQ index passes, and replaced by the
//! next failure of another WQE: so a later job of the first WQE after a
//! second QP's failure is no longer caught here, and the completer's move to
//! ERR (which stops `req_fetch` for the QP) is what ends that WQE then.
//! Packets without payload (READ, atomics, zero-length) never have a
//! failing translation and are the only packet of their WQE: they pass.
//!
//! **Latency and rate** (`tb/tests/req_payload.rs`): a fragment taken at t
//! is offered on `m_xreq` at t + 1; a packet's last answer beat taken at u:
//! its first piece offered at u + [`PIECE_HOLD_LATENCY`] (if the piece side
//! is idle), its header at u + [`REQ_PAYLOAD_HDR_LATENCY`] (if the header
//! side is idle); a header without payload taken at t offered at t + 3. One
//! answer beat per cycle, one header per cycle. The header FIFO holds
//! 2^[`REQ_PAYLOAD_HDR_LOG`] + 1 headers: enough for `MrXlate`'s 25-cycle
//! latency on hits at one packet per cycle.

use super::{LaneOut, PieceHold, PieceOut, ReqHdrIn, PIECE_LEN_BITS, REQ_INDEX_BITS, REQ_QPN_BITS};
use crate::axis::{AxisFifo, AxisSkidBuffer, HdrOut};
use crate::consts::*;
use crate::mr::{MrReqIn, MrReqOut, MrRespIn, MR_ID_BITS, MR_VERDICT_BITS};
use crate::prim::Reg;
use crate::wire::{OpcodeInfo, TX_HDR_BITS};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the header FIFO's RAM places (and of the tag and decision FIFOs).
pub const REQ_PAYLOAD_HDR_LOG: usize = 5;
/// Cycles from a packet's last answer beat taken to its header offered.
pub const REQ_PAYLOAD_HDR_LATENCY: u64 = 3;
/// Cycles from a fragment taken to it offered to the translation unit.
pub const REQ_PAYLOAD_FRAG_LATENCY: u64 = 1;
/// The most pieces of one packet: a packet is at most 4096 bytes (the
/// largest PMTU) over at most 4 SGEs, each fragment of at most 4096 bytes
/// spans at most two pages of 4 KiB or more.
pub const REQ_PAYLOAD_MAX_PIECES: usize = 2 * rnic_contract::layouts::send_wqe::MAX_SGE;
const _: () = assert!(1 << super::PIECE_HOLD_LOG >= 2 * REQ_PAYLOAD_MAX_PIECES);
const _: () = assert!(super::PIECE_MAX == 4096 && rnic_contract::layouts::mpt::LOG_PAGE_SIZES[0] >= 12);

/// Bits of a fragment's fields but the VA, in the skid buffer's `tuser`.
const FRAG_USER_BITS: usize = 32 + 24 + 32 + MR_ID_BITS;
/// The tag's `tuser`: SQ index, start lane.
const TAG_USER_BITS: usize = REQ_INDEX_BITS + 6;

/// A WQE whose payload translation failed.
#[derive(LogicInterface, Default)]
#[join = "XlateErrIn"]
pub struct XlateErrOut {
    pub qpn: Signal<Out, Bits<REQ_QPN_BITS>>,
    pub sq_index: Signal<Out, Bits<REQ_INDEX_BITS>>,
    pub verdict: Signal<Out, Bits<MR_VERDICT_BITS>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "XlateErrOut"]
pub struct XlateErrIn {
    pub qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    pub sq_index: Signal<In, Bits<REQ_INDEX_BITS>>,
    pub verdict: Signal<In, Bits<MR_VERDICT_BITS>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct ReqPayload {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_hdr: ReqHdrIn,
    pub s_frag: MrReqIn,
    pub m_xreq: MrReqOut,
    pub s_xresp: MrRespIn,
    pub m_piece: PieceOut,
    pub m_lane: LaneOut,
    pub m_hdr: HdrOut<TX_HDR_BITS>,
    pub m_err: XlateErrOut,
    /// fragments: VA in tdata, key, pd, len, id in tuser
    frag_skid: AxisSkidBuffer<64, 1, FRAG_USER_BITS>,
    /// headers, `tuser` = has payload
    hq: AxisFifo<TX_HDR_BITS, 1, 1, REQ_PAYLOAD_HDR_LOG>,
    /// tags of headers with payload: QPN in tdata, SQ index and start lane in tuser
    tq: AxisFifo<REQ_QPN_BITS, 1, TAG_USER_BITS, REQ_PAYLOAD_HDR_LOG>,
    /// start lanes of packets committed, for `PayloadGather`
    lq: AxisFifo<6, 1, 1, REQ_PAYLOAD_HDR_LOG>,
    /// the header's extended headers (for its start lane)
    opi: OpcodeInfo,
    /// per packet with payload: drop
    dq: AxisFifo<1, 1, 1, REQ_PAYLOAD_HDR_LOG>,
    hold: PieceHold,
    // ---- resolver state
    pkt_fail: Reg<Bit>,
    pkt_verdict: Reg<Bits<MR_VERDICT_BITS>>,
    note_valid: Reg<Bit>,
    note_qpn: Reg<Bits<REQ_QPN_BITS>>,
    note_sq: Reg<Bits<REQ_INDEX_BITS>>,
    err_qpn: Reg<Bits<REQ_QPN_BITS>>,
    err_sq: Reg<Bits<REQ_INDEX_BITS>>,
    err_verdict: Reg<Bits<MR_VERDICT_BITS>>,
    err_valid: Reg<Bit>,
    // ---- header output
    hdr_data: Reg<Bits<TX_HDR_BITS>>,
    hdr_valid: Reg<Bit>,
    // ---- locals
    has_payload: Signal<Local, Bit>,
    hdr_room: Signal<Local, Bit>,
    tag_qpn: Signal<Local, Bits<REQ_QPN_BITS>>,
    tag_sq: Signal<Local, Bits<REQ_INDEX_BITS>>,
    lane: Signal<Local, Bits<6>>,
    lane_vlan: Signal<Local, Bits<6>>,
    lane_v6: Signal<Local, Bits<6>>,
    lane_base: Signal<Local, Bits<6>>,
    resp_ready: Signal<Local, Bit>,
    resp_fire: Signal<Local, Bit>,
    beat_bad: Signal<Local, Bit>,
    pkt_end: Signal<Local, Bit>,
    failed: Signal<Local, Bit>,
    verdict: Signal<Local, Bits<MR_VERDICT_BITS>>,
    noted: Signal<Local, Bit>,
    drop: Signal<Local, Bit>,
    report: Signal<Local, Bit>,
    head_pay: Signal<Local, Bit>,
    head_drop: Signal<Local, Bit>,
    decided: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for ReqPayload {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            pkt_fail,
            pkt_verdict,
            note_valid,
            note_qpn,
            note_sq,
            err_qpn,
            err_sq,
            err_verdict,
            err_valid,
            hdr_data,
            hdr_valid
        );
        clock!(self, clock, frag_skid, hq, tq, lq, dq, hold);
        self.lq.reset.next = self.reset.val();
        self.frag_skid.reset.next = self.reset.val();
        self.hq.reset.next = self.reset.val();
        self.tq.reset.next = self.reset.val();
        self.dq.reset.next = self.reset.val();
        self.hold.reset.next = self.reset.val();

        // ---- fragments to the translation unit (ready: the skid buffer's register)
        self.frag_skid.s_axis.tdata.next = self.s_frag.va.val();
        self.frag_skid.s_axis.tuser.next = bit_cast::<FRAG_USER_BITS, 32>(self.s_frag.key.val())
            | (bit_cast::<FRAG_USER_BITS, 24>(self.s_frag.pd.val()) << 32)
            | (bit_cast::<FRAG_USER_BITS, 32>(self.s_frag.len.val()) << 56)
            | (bit_cast::<FRAG_USER_BITS, MR_ID_BITS>(self.s_frag.id.val()) << 88);
        self.frag_skid.s_axis.tkeep.next = 0.into();
        self.frag_skid.s_axis.tlast.next = true;
        self.frag_skid.s_axis.tvalid.next = self.s_frag.valid.val();
        self.s_frag.ready.next = self.frag_skid.s_axis.tready.val();
        self.m_xreq.va.next = self.frag_skid.m_axis.tdata.val();
        self.m_xreq.key.next = self.frag_skid.m_axis.tuser.val().get_bits::<32>(0);
        self.m_xreq.pd.next = self.frag_skid.m_axis.tuser.val().get_bits::<24>(32);
        self.m_xreq.len.next = self.frag_skid.m_axis.tuser.val().get_bits::<32>(56);
        self.m_xreq.id.next = self.frag_skid.m_axis.tuser.val().get_bits::<MR_ID_BITS>(88);
        self.m_xreq.access.next = ACC_LOCAL_READ.into();
        self.m_xreq.valid.next = self.frag_skid.m_axis.tvalid.val();
        self.frag_skid.m_axis.tready.next = self.m_xreq.ready.val();

        // ---- headers in: the header FIFO, and the tag FIFO for a payload
        self.has_payload.next = self.s_hdr.tdata.val().get_bits::<16>(TX_PAYLOAD_LEN_LSB).any();
        self.hdr_room.next = self.hq.s_axis.tready.val() & self.tq.s_axis.tready.val();
        self.s_hdr.tready.next = self.hdr_room.val();
        self.hq.s_axis.tdata.next = self.s_hdr.tdata.val();
        self.hq.s_axis.tkeep.next = 0.into();
        self.hq.s_axis.tlast.next = true;
        self.hq.s_axis.tuser.next = 0.into();
        if self.has_payload.val() {
            self.hq.s_axis.tuser.next = 1.into();
        }
        self.hq.s_axis.tvalid.next = self.s_hdr.tvalid.val() & self.hdr_room.val();
        self.tq.s_axis.tdata.next = self.s_hdr.tdata.val().get_bits::<REQ_QPN_BITS>(TX_SRC_QP_LSB);
        self.tq.s_axis.tkeep.next = 0.into();
        self.tq.s_axis.tlast.next = true;
        // the payload's start lane: where `TxBuild` ends the headers, mod 64
        self.opi.opcode.next = self.s_hdr.tdata.val().get_bits::<8>(TX_OPCODE_LSB);
        self.lane_vlan.next = 0.into();
        if self.s_hdr.tdata.val().get_bit(TX_VLAN_LSB) {
            self.lane_vlan.next = REQ_LANE_VLAN.into();
        }
        self.lane_v6.next = 0.into();
        if self.s_hdr.tdata.val().get_bit(TX_V6_LSB) {
            self.lane_v6.next = REQ_LANE_V6.into();
        }
        self.lane.next = self.lane_vlan.val() + self.lane_v6.val() + self.opi.ext_len.val();
        self.tq.s_axis.tuser.next = bit_cast::<TAG_USER_BITS, REQ_INDEX_BITS>(self.s_hdr.sq_index.val())
            | (bit_cast::<TAG_USER_BITS, 6>(self.lane.val()) << REQ_TAG_LANE_SHIFT);
        self.tq.s_axis.tvalid.next = self.s_hdr.tvalid.val() & self.hdr_room.val() & self.has_payload.val();

        // ---- resolver: answer beats of the packet whose tag is at the head
        self.tag_qpn.next = self.tq.m_axis.tdata.val();
        self.tag_sq.next = self.tq.m_axis.tuser.val().get_bits::<REQ_INDEX_BITS>(0);
        self.resp_ready.next = self.hold.room.val()
            & self.tq.m_axis.tvalid.val()
            & self.dq.s_axis.tready.val()
            & self.lq.s_axis.tready.val()
            & !self.err_valid.q.val();
        self.s_xresp.ready.next = self.resp_ready.val();
        self.resp_fire.next = self.s_xresp.valid.val() & self.resp_ready.val();
        self.beat_bad.next = self.s_xresp.verdict.val().any();
        self.pkt_end.next =
            self.resp_fire.val() & self.s_xresp.last.val() & self.s_xresp.id.val().get_bit(REQ_FRAG_LAST);
        self.failed.next = self.pkt_fail.q.val() | self.beat_bad.val();
        self.verdict.next = self.s_xresp.verdict.val();
        if self.pkt_fail.q.val() {
            self.verdict.next = self.pkt_verdict.q.val();
        }
        self.noted.next = self.note_valid.q.val()
            & (self.note_qpn.q.val() == self.tag_qpn.val())
            & (self.note_sq.q.val() == self.tag_sq.val());
        self.drop.next = self.failed.val() | self.noted.val();
        self.hold.w_valid.next = self.resp_fire.val() & !self.beat_bad.val() & self.s_xresp.len.val().any();
        self.hold.w_iova.next = self.s_xresp.iova.val();
        self.hold.w_len.next = self.s_xresp.len.val().get_bits::<PIECE_LEN_BITS>(0);
        self.hold.w_last.next = self.s_xresp.last.val() & self.s_xresp.id.val().get_bit(REQ_FRAG_LAST);
        self.hold.commit.next = self.pkt_end.val() & !self.drop.val();
        self.hold.discard.next = self.pkt_end.val() & self.drop.val();
        if self.resp_fire.val() & self.beat_bad.val() & !self.pkt_fail.q.val() {
            self.pkt_fail.d.next = true;
            self.pkt_verdict.d.next = self.s_xresp.verdict.val();
        }
        if self.pkt_end.val() {
            self.pkt_fail.d.next = false;
        }
        self.tq.m_axis.tready.next = self.pkt_end.val();
        self.dq.s_axis.tdata.next = 0.into();
        if self.drop.val() {
            self.dq.s_axis.tdata.next = 1.into();
        }
        self.dq.s_axis.tkeep.next = 0.into();
        self.dq.s_axis.tlast.next = true;
        self.dq.s_axis.tuser.next = 0.into();
        self.dq.s_axis.tvalid.next = self.pkt_end.val();
        // a committed packet's start lane (REQ_LANE_BASE added here, off the input path)
        self.lane_base.next = REQ_LANE_BASE.into();
        self.lq.s_axis.tdata.next = self.tq.m_axis.tuser.val().get_bits::<6>(REQ_TAG_LANE_LSB) + self.lane_base.val();
        self.lq.s_axis.tkeep.next = 0.into();
        self.lq.s_axis.tlast.next = true;
        self.lq.s_axis.tuser.next = 0.into();
        self.lq.s_axis.tvalid.next = self.pkt_end.val() & !self.drop.val();
        self.m_lane.lane.next = self.lq.m_axis.tdata.val();
        self.m_lane.valid.next = self.lq.m_axis.tvalid.val();
        self.lq.m_axis.tready.next = self.m_lane.ready.val();
        // one report per WQE; the note drops the WQE's later packets
        self.report.next = self.pkt_end.val() & self.failed.val() & !self.noted.val();
        if self.m_err.ready.val() {
            self.err_valid.d.next = false;
        }
        if self.pkt_end.val()
            & !self.drop.val()
            & self.note_valid.q.val()
            & (self.note_qpn.q.val() == self.tag_qpn.val())
        {
            self.note_valid.d.next = false;
        }
        if self.report.val() {
            self.err_qpn.d.next = self.tag_qpn.val();
            self.err_sq.d.next = self.tag_sq.val();
            self.err_verdict.d.next = self.verdict.val();
            self.err_valid.d.next = true;
            self.note_valid.d.next = true;
            self.note_qpn.d.next = self.tag_qpn.val();
            self.note_sq.d.next = self.tag_sq.val();
        }
        self.m_err.qpn.next = self.err_qpn.q.val();
        self.m_err.sq_index.next = self.err_sq.q.val();
        self.m_err.verdict.next = self.err_verdict.q.val();
        self.m_err.valid.next = self.err_valid.q.val();

        // ---- pieces out
        self.m_piece.iova.next = self.hold.m_piece.iova.val();
        self.m_piece.len.next = self.hold.m_piece.len.val();
        self.m_piece.last.next = self.hold.m_piece.last.val();
        self.m_piece.valid.next = self.hold.m_piece.valid.val();
        self.hold.m_piece.ready.next = self.m_piece.ready.val();

        // ---- headers out: the head once its decision is there
        self.head_pay.next = self.hq.m_axis.tuser.val().any();
        self.head_drop.next = self.head_pay.val() & self.dq.m_axis.tdata.val().any();
        self.decided.next = self.hq.m_axis.tvalid.val() & (!self.head_pay.val() | self.dq.m_axis.tvalid.val());
        self.pop.next = self.decided.val() & (self.head_drop.val() | !self.hdr_valid.q.val() | self.m_hdr.tready.val());
        self.hq.m_axis.tready.next = self.pop.val();
        self.dq.m_axis.tready.next = self.pop.val() & self.head_pay.val();
        if self.m_hdr.tready.val() {
            self.hdr_valid.d.next = false;
        }
        if self.pop.val() & !self.head_drop.val() {
            self.hdr_data.d.next = self.hq.m_axis.tdata.val();
            self.hdr_valid.d.next = true;
        }
        self.m_hdr.tdata.next = self.hdr_data.q.val();
        self.m_hdr.tvalid.next = self.hdr_valid.q.val();

        if self.reset.val() {
            self.pkt_fail.d.next = false;
            self.note_valid.d.next = false;
            self.err_valid.d.next = false;
            self.hdr_valid.d.next = false;
        }
    }
}
