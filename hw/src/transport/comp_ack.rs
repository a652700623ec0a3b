//! `CompAck`: the completer's handling of ACK and NAK packets (opcode
//! ACKNOWLEDGE) against the QP's outstanding send WQEs, as
//! `rnic_proto::rc::Requester::on_response` (the oracle;
//! docs/transport.md, "Completer"). For one response packet (released by
//! `RxHold`, ICRC good) with its QP's `qpc` and `qps` entries, it decides
//! ([`CompDecide`]):
//!
//! * the QP's completer is in error (`qps.COMP_ERROR`): dropped;
//! * PSN not outstanding (not in [`UNA`, `SENT_END`), 24-bit serial):
//!   a ghost or duplicate, dropped and counted (`COMP_GHOST`);
//! * a READ response or atomic ACK (PSN outstanding): `COMP_NOT_HANDLED`,
//!   nothing changed (the data path comes later; the model's AETH/PSN
//!   part of those, "acknowledge through PSN - 1, then implied NAK unless
//!   the PSN is UNA", is what that stage will add);
//! * a reserved AETH syndrome: dropped and counted as a ghost (`COMP_RESERVED`);
//! * ACK p: acknowledge through p; RNR NAK p: through p - 1, then an RNR
//!   wait {psn p, timer} for the retry timer; NAK PSN sequence error p:
//!   through p - 1, then go-back-N from p; any other NAK: through p - 1,
//!   then the head WQE completes with REM_INV_REQ_ERR / REM_ACCESS_ERR /
//!   REM_OP_ERR, every later WQE in the inflight list with WR_FLUSH_ERR, and
//!   the QP's completer goes to error.
//!
//! "Acknowledge through a" walks the QP's `inflight` list from its head
//! (HEAD, then POP per completed WQE): a WQE ending at or before a
//! completes (POP; a CQE for signaled ones), a WQE a lies inside moves UNA
//! to a + 1, a READ/atomic WQE reached is an implied NAK (go-back-N from
//! UNA instead of the action above; a fatal NAK ignores it). A go-back-N
//! is issued once per PSN without progress in between (`RETRY_VALID`,
//! `RETRY_PSN`: the model's `resend_once`), and clears `IN_READ_RESP`.
//!
//! Ports:
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_pkt` (`hdr`, `qpc`, `qps`) | in | as `resp_check`'s: the received header (`wire::RX_HDR_FIELDS`: opcode, dest QP, PSN, AETH syndrome), `qpc` (SQ_PSN, SQ_CONS, SEND_CQ, RETRY_CNT, RNR_RETRY), `qps` (the requester's REQ_STARTED and SENT_END, the completer's bytes); `ready` from registers |
//! | `m_inf` | out | commands to the `inflight` table (HEAD, POP of QPN mod 2^14) |
//! | `s_inf` | in | its responses, in command order |
//! | `m_cqe` | out | CQE requests {cq, wr_id, status, opcode, byte_len, qpn, wqe_index}, in WQE order; from registers |
//! | `m_dec` | out | one record per packet after its walk: `verdict` (`COMP_*`), `implied`, `action` (`CACT_*`) with `action_psn`, `timer` (RNR) or `status` (error), and the completer's new bytes `wr_data`/`wr_mask` for `ctx_cache.write(qpn, wr_mask, wr_data)` when `write`; from registers |
//!
//! **One packet at a time; consecutive packets of one QP.** The block takes
//! a packet only when idle and its previous record is taken, and keeps
//! the last record's state (`fw_*`): a packet of the same QP uses it
//! instead of the offered `qps`. The caller's contract is `resp_check`'s:
//! the `qps` offered with a packet holds the writes of every record taken
//! before the cycle the packet was first offered; only the previous
//! packet's record can be missing (the one before was taken before the
//! previous packet was), and the forwarding register has it.
//!
//! **Latency** (nothing stalls): a packet without a walk (dropped, ghost,
//! not handled, or acknowledging nothing new) is on `m_dec` at t +
//! [`COMP_LATENCY_NO_WALK`]; a walk adds [`COMP_HEAD_CYCLES`] for the first
//! HEAD and [`COMP_WQE_CYCLES`] per completed WQE (POP and the next HEAD
//! issued back to back, then the table's 6-cycle answer). **Rate**: one
//! packet every `latency + 1` cycles: the inflight round trip per WQE
//! dominates; line rate wants the walks of different QPs interleaved
//! (docs/transport_blocks.md, "`comp_ack`").

use super::{InflightCmdOut, InflightRespIn, RespPktIn, INFLIGHT_ENTRY_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_QPN_BITS};
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::layouts::qps;
use rust_hdl::prelude::*;

/// Bits of the completer's word of a `qps` entry (`COMPLETER_BYTES`).
pub const COMP_STATE_BITS: usize = 8 * (qps::COMPLETER_BYTES.end - qps::COMPLETER_BYTES.start);
/// Widths of `m_dec.verdict` and `m_dec.action`.
pub const COMP_VERDICT_BITS: usize = 3;
pub const COMP_ACTION_BITS: usize = 2;
/// Cycles from a packet taken to its record on `m_dec` without a walk.
pub const COMP_LATENCY_NO_WALK: u64 = 3;
/// Cycles a walk adds for its first HEAD (command, the table's latency, the decision).
pub const COMP_HEAD_CYCLES: u64 = 1 + super::INFLIGHT_LATENCY;
/// Cycles a walk adds per completed WQE (POP and HEAD commands, the table's latency).
pub const COMP_WQE_CYCLES: u64 = 2 + super::INFLIGHT_LATENCY;
const _: () = assert!(COMP_STATE_BITS == 104 && QPS_COMP_LSB == 96 && COMP_NOT_HANDLED < 8 && CACT_ERROR < 4);

const E: usize = INFLIGHT_LOG_ENTRIES;
const W: usize = INFLIGHT_ENTRY_BITS;

/// The walk's state.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum CompState {
    /// Waiting for a packet (and for the previous record to be taken).
    Idle,
    /// The decision on the captured packet.
    Decide,
    /// A command on `m_inf` (HEAD or POP).
    Command,
    /// Waiting for the answer to the last HEAD (or, in a flush, POP).
    Wait,
    /// The record.
    Finish,
}

/// The per-packet decision (combinational): verdict, the PSN to
/// acknowledge through, whether the inflight list must be walked, and a
/// fatal NAK's completion status.
#[derive(LogicBlock, Default)]
pub struct CompDecide {
    pub opcode: Signal<In, Bits<8>>,
    pub syndrome: Signal<In, Bits<8>>,
    pub psn: Signal<In, Bits<24>>,
    pub una: Signal<In, Bits<24>>,
    pub sent_end: Signal<In, Bits<24>>,
    pub error: Signal<In, Bit>,
    pub verdict: Signal<Out, Bits<COMP_VERDICT_BITS>>,
    pub ack_psn: Signal<Out, Bits<24>>,
    pub walk: Signal<Out, Bit>,
    pub status: Signal<Out, Bits<8>>,
    outstanding: Signal<Local, Bit>,
    kind: Signal<Local, Bits<2>>,
    code: Signal<Local, Bits<5>>,
    kind_tag: TypeTag<Self>,
}

impl Logic for CompDecide {
    #[hdl_gen]
    fn update(&mut self) {
        // outstanding: PSN - UNA < SENT_END - UNA (24-bit serial)
        self.outstanding.next = (self.psn.val() - self.una.val()) < (self.sent_end.val() - self.una.val());
        self.kind.next = (self.syndrome.val() >> AETH_KIND_LSB).get_bits::<2>(0);
        self.code.next = self.syndrome.val().get_bits::<5>(0);
        self.ack_psn.next = self.psn.val() - 1;
        self.status.next = WCS_REM_OP_ERR.into();
        if self.code.val() == AETH_NAK_INVALID_REQ {
            self.status.next = WCS_REM_INV_REQ_ERR.into();
        } else if self.code.val() == AETH_NAK_REMOTE_ACCESS {
            self.status.next = WCS_REM_ACCESS_ERR.into();
        }
        self.verdict.next = COMP_NAK_FATAL.into();
        if self.error.val() {
            self.verdict.next = COMP_DROP.into();
        } else if !self.outstanding.val() {
            self.verdict.next = COMP_GHOST.into();
        } else if self.opcode.val() != BTH_RC_ACKNOWLEDGE {
            self.verdict.next = COMP_NOT_HANDLED.into();
        } else if self.syndrome.val().get_bit(7) | (self.kind.val() == 2) {
            self.verdict.next = COMP_RESERVED.into();
        } else if self.kind.val() == AETH_KIND_ACK {
            self.verdict.next = COMP_ACK.into();
            self.ack_psn.next = self.psn.val();
        } else if self.kind.val() == AETH_KIND_RNR_NAK {
            self.verdict.next = COMP_RNR.into();
        } else if self.code.val() == AETH_NAK_PSN_SEQ {
            self.verdict.next = COMP_NAK_SEQ.into();
        }
        // a walk when the PSN to acknowledge through is at or after UNA: an
        // ACK's PSN is (outstanding); a NAK's PSN - 1 is unless the PSN is UNA
        self.walk.next = (self.verdict.val() >= COMP_ACK)
            & (self.verdict.val() <= COMP_NAK_FATAL)
            & ((self.verdict.val() == COMP_ACK) | (self.psn.val() != self.una.val()));
    }
}

/// CQE requests.
#[derive(LogicInterface, Default)]
pub struct CompCqeOut {
    pub cq: Signal<Out, Bits<24>>,
    pub wr_id: Signal<Out, Bits<64>>,
    pub status: Signal<Out, Bits<8>>,
    pub opcode: Signal<Out, Bits<8>>,
    pub byte_len: Signal<Out, Bits<32>>,
    pub qpn: Signal<Out, Bits<24>>,
    pub wqe_index: Signal<Out, Bits<16>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// The per-packet record (module doc).
#[derive(LogicInterface, Default)]
pub struct CompDecOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub psn: Signal<Out, Bits<24>>,
    pub verdict: Signal<Out, Bits<COMP_VERDICT_BITS>>,
    pub implied: Signal<Out, Bit>,
    pub action: Signal<Out, Bits<COMP_ACTION_BITS>>,
    pub action_psn: Signal<Out, Bits<24>>,
    pub timer: Signal<Out, Bits<5>>,
    pub status: Signal<Out, Bits<8>>,
    pub write: Signal<Out, Bit>,
    pub wr_mask: Signal<Out, Bits<64>>,
    pub wr_data: Signal<Out, Bits<512>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct CompAck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_pkt: RespPktIn,
    pub m_inf: InflightCmdOut<INFLIGHT_QPN_BITS, E, W>,
    pub s_inf: InflightRespIn<E, { INFLIGHT_LOG_ENTRIES + 1 }, W>,
    pub m_cqe: CompCqeOut,
    pub m_dec: CompDecOut,

    dec: CompDecide,
    state: Reg<CompState>,
    // ---- the packet
    qpn: Reg<Bits<24>>,
    psn: Reg<Bits<24>>,
    opcode: Reg<Bits<8>>,
    syndrome: Reg<Bits<8>>,
    sent_end: Reg<Bits<24>>,
    cq: Reg<Bits<24>>,
    init: Reg<Bit>,
    verdict: Reg<Bits<COMP_VERDICT_BITS>>,
    ack_psn: Reg<Bits<24>>,
    nak_status: Reg<Bits<8>>,
    // ---- the completer's state while the packet is processed
    una: Reg<Bits<24>>,
    head_first: Reg<Bits<24>>,
    head_wqe: Reg<Bits<16>>,
    retry_valid: Reg<Bit>,
    retry_psn: Reg<Bits<24>>,
    rd_done: Reg<Bits<5>>,
    in_read: Reg<Bit>,
    error: Reg<Bit>,
    retries: Reg<Bits<3>>,
    rnr_retries: Reg<Bits<3>>,
    // ---- the walk
    flush: Reg<Bit>,
    flush_first: Reg<Bit>,
    implied: Reg<Bit>,
    walk_more: Reg<Bit>,
    pend_pops: Reg<Bits<5>>,
    cmd_valid: Reg<Bit>,
    cmd_op: Reg<Bits<3>>,
    // ---- the CQE register
    cqe_valid: Reg<Bit>,
    cqe_cq: Reg<Bits<24>>,
    cqe_qpn: Reg<Bits<24>>,
    cqe_wr_id: Reg<Bits<64>>,
    cqe_status: Reg<Bits<8>>,
    cqe_opcode: Reg<Bits<8>>,
    cqe_len: Reg<Bits<32>>,
    cqe_index: Reg<Bits<16>>,
    // ---- the record
    o_valid: Reg<Bit>,
    o_verdict: Reg<Bits<COMP_VERDICT_BITS>>,
    o_implied: Reg<Bit>,
    o_action: Reg<Bits<COMP_ACTION_BITS>>,
    o_action_psn: Reg<Bits<24>>,
    o_timer: Reg<Bits<5>>,
    o_status: Reg<Bits<8>>,
    o_write: Reg<Bit>,
    o_st: Reg<Bits<COMP_STATE_BITS>>,
    // ---- forwarding: the last record's state
    fw_valid: Reg<Bit>,
    fw_qpn: Reg<Bits<24>>,
    fw_st: Reg<Bits<COMP_STATE_BITS>>,
    // ---- combinational
    in_qpn: Signal<Local, Bits<24>>,
    in_st: Signal<Local, Bits<COMP_STATE_BITS>>,
    e_index: Signal<Local, Bits<16>>,
    e_first: Signal<Local, Bits<24>>,
    e_last: Signal<Local, Bits<24>>,
    e_kind: Signal<Local, Bits<4>>,
    e_rd: Signal<Local, Bit>,
    e_op: Signal<Local, Bits<8>>,
    r_take: Signal<Local, Bit>,
    resend_psn: Signal<Local, Bits<24>>,
    new_st: Signal<Local, Bits<COMP_STATE_BITS>>,
    fin_st: Signal<Local, Bits<COMP_STATE_BITS>>,
    fin_write: Signal<Local, Bit>,
    fin_resend: Signal<Local, Bit>,
    one: Signal<Local, Bit>,
    all24: Signal<Local, Bits<24>>,
    kind: TypeTag<Self>,
}

impl Logic for CompAck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            qpn,
            psn,
            opcode,
            syndrome,
            sent_end,
            cq,
            init,
            verdict,
            ack_psn,
            nak_status,
            una,
            head_first,
            head_wqe,
            retry_valid,
            retry_psn,
            rd_done,
            in_read,
            error,
            retries,
            rnr_retries,
            flush,
            flush_first,
            implied,
            walk_more,
            pend_pops,
            cmd_valid,
            cmd_op,
            cqe_valid,
            cqe_cq,
            cqe_qpn,
            cqe_wr_id,
            cqe_status,
            cqe_opcode,
            cqe_len,
            cqe_index,
            o_valid,
            o_verdict,
            o_implied,
            o_action,
            o_action_psn,
            o_timer,
            o_status,
            o_write,
            o_st,
            fw_valid,
            fw_qpn,
            fw_st
        );
        // ---- outputs, every one from a register (or a gate of registers)
        self.s_pkt.ready.next = (self.state.q.val() == CompState::Idle) & !self.o_valid.q.val();
        self.m_inf.op.next = self.cmd_op.q.val();
        self.m_inf.qpn.next = self.qpn.q.val().get_bits::<INFLIGHT_QPN_BITS>(0);
        self.m_inf.index.next = 0.into();
        self.m_inf.data.next = 0.into();
        self.m_inf.valid.next = self.cmd_valid.q.val();
        // a POP's answer nobody waits for is taken at once; the awaited one
        // when the CQE register is free
        self.s_inf.ready.next =
            self.pend_pops.q.val().any() | ((self.state.q.val() == CompState::Wait) & !self.cqe_valid.q.val());
        self.m_cqe.cq.next = self.cqe_cq.q.val();
        self.m_cqe.wr_id.next = self.cqe_wr_id.q.val();
        self.m_cqe.status.next = self.cqe_status.q.val();
        self.m_cqe.opcode.next = self.cqe_opcode.q.val();
        self.m_cqe.byte_len.next = self.cqe_len.q.val();
        self.m_cqe.qpn.next = self.cqe_qpn.q.val();
        self.m_cqe.wqe_index.next = self.cqe_index.q.val();
        self.m_cqe.valid.next = self.cqe_valid.q.val();
        self.m_dec.qpn.next = self.qpn.q.val();
        self.m_dec.psn.next = self.psn.q.val();
        self.m_dec.verdict.next = self.o_verdict.q.val();
        self.m_dec.implied.next = self.o_implied.q.val();
        self.m_dec.action.next = self.o_action.q.val();
        self.m_dec.action_psn.next = self.o_action_psn.q.val();
        self.m_dec.timer.next = self.o_timer.q.val();
        self.m_dec.status.next = self.o_status.q.val();
        self.m_dec.write.next = self.o_write.q.val();
        self.m_dec.wr_mask.next = COMP_WR_MASK.into();
        self.m_dec.wr_data.next = bit_cast::<512, COMP_STATE_BITS>(self.o_st.q.val()) << QPS_COMP_LSB;
        self.m_dec.valid.next = self.o_valid.q.val();
        if self.m_dec.ready.val() {
            self.o_valid.d.next = false;
        }
        if self.m_cqe.ready.val() {
            self.cqe_valid.d.next = false;
        }
        if self.m_inf.ready.val() {
            self.cmd_valid.d.next = false;
        }

        // ---- capture: the packet, its context, its state (forwarded from
        // the last record of the same QP; initialised when not started)
        self.in_qpn.next = self.s_pkt.hdr.val().get_bits::<24>(RXF_DESTQP);
        self.in_st.next = bit_cast::<COMP_STATE_BITS, 512>(self.s_pkt.qps.val() >> QPS_COMP_LSB);
        if self.fw_valid.q.val() & (self.fw_qpn.q.val() == self.in_qpn.val()) {
            self.in_st.next = self.fw_st.q.val();
        }
        // ---- the decision's inputs: the captured packet and state
        self.dec.opcode.next = self.opcode.q.val();
        self.dec.syndrome.next = self.syndrome.q.val();
        self.dec.psn.next = self.psn.q.val();
        self.dec.una.next = self.una.q.val();
        self.dec.sent_end.next = self.sent_end.q.val();
        self.dec.error.next = self.error.q.val();
        // ---- the inflight entry answered
        self.e_index.next = (self.s_inf.data.val() >> ENT_WQE_INDEX).get_bits::<16>(0);
        self.e_first.next = (self.s_inf.data.val() >> ENT_FIRST_PSN).get_bits::<24>(0);
        self.e_last.next = (self.s_inf.data.val() >> ENT_LAST_PSN).get_bits::<24>(0);
        self.e_kind.next = (self.s_inf.data.val() >> ENT_KIND).get_bits::<4>(0);
        self.e_rd.next = (self.e_kind.val() == SOP_RDMA_READ)
            | (self.e_kind.val() == SOP_CMP_SWAP)
            | (self.e_kind.val() == SOP_FETCH_ADD);
        self.e_op.next = WCO_SEND.into();
        if (self.e_kind.val() == SOP_RDMA_WRITE) | (self.e_kind.val() == SOP_RDMA_WRITE_IMM) {
            self.e_op.next = WCO_RDMA_WRITE.into();
        } else if self.e_kind.val() == SOP_RDMA_READ {
            self.e_op.next = WCO_RDMA_READ.into();
        } else if self.e_kind.val() == SOP_CMP_SWAP {
            self.e_op.next = WCO_COMP_SWAP.into();
        } else if self.e_kind.val() == SOP_FETCH_ADD {
            self.e_op.next = WCO_FETCH_ADD.into();
        }
        self.r_take.next = self.s_inf.valid.val() & self.s_inf.ready.val();
        if self.r_take.val() & self.pend_pops.q.val().any() {
            self.pend_pops.d.next = self.pend_pops.q.val() - 1;
        }
        // ---- the record's resend: from UNA after an implied NAK, else from the NAK's PSN
        self.resend_psn.next = self.psn.q.val();
        if self.implied.q.val() | (self.verdict.q.val() != COMP_NAK_SEQ) {
            self.resend_psn.next = self.una.q.val();
        }
        self.one.next = true;
        self.all24.next = 0xff_ffff.into();
        self.new_st.next = bit_cast::<COMP_STATE_BITS, 1>(self.one.val().into()) << QPSC_STARTED
            | bit_cast::<COMP_STATE_BITS, 1>(self.in_read.q.val().into()) << QPSC_IN_READ
            | bit_cast::<COMP_STATE_BITS, 1>(self.retry_valid.q.val().into()) << QPSC_RETRY_VALID
            | bit_cast::<COMP_STATE_BITS, 3>(self.retries.q.val()) << QPSC_RETRIES
            | bit_cast::<COMP_STATE_BITS, 1>(self.error.q.val().into()) << QPSC_ERROR
            | bit_cast::<COMP_STATE_BITS, 5>(self.rd_done.q.val()) << QPSC_RD_DONE
            | bit_cast::<COMP_STATE_BITS, 3>(self.rnr_retries.q.val()) << QPSC_RNR_RETRIES
            | bit_cast::<COMP_STATE_BITS, 24>(self.head_first.q.val()) << QPSC_HEAD_FIRST
            | bit_cast::<COMP_STATE_BITS, 24>(self.una.q.val()) << QPSC_UNA
            | bit_cast::<COMP_STATE_BITS, 24>(self.retry_psn.q.val()) << QPSC_RETRY_PSN
            | bit_cast::<COMP_STATE_BITS, 16>(self.head_wqe.q.val()) << QPSC_HEAD_WQE;

        // ---- the record's state: a go-back-N once per PSN without progress
        // (and it clears IN_READ_RESP); a fatal NAK sets COMP_ERROR
        self.fin_resend.next = (self.implied.q.val() | (self.verdict.q.val() == COMP_NAK_SEQ))
            & (self.verdict.q.val() != COMP_NAK_FATAL)
            & !(self.retry_valid.q.val() & (self.retry_psn.q.val() == self.resend_psn.val()));
        self.fin_st.next = self.new_st.val();
        if self.verdict.q.val() == COMP_NAK_FATAL {
            self.fin_st.next =
                self.new_st.val() | (bit_cast::<COMP_STATE_BITS, 1>(self.one.val().into()) << QPSC_ERROR);
        } else if self.fin_resend.val() {
            self.fin_st.next = (self.new_st.val()
                & !(bit_cast::<COMP_STATE_BITS, 24>(self.all24.val()) << QPSC_RETRY_PSN)
                & !(bit_cast::<COMP_STATE_BITS, 1>(self.one.val().into()) << QPSC_IN_READ))
                | (bit_cast::<COMP_STATE_BITS, 24>(self.resend_psn.val()) << QPSC_RETRY_PSN)
                | (bit_cast::<COMP_STATE_BITS, 1>(self.one.val().into()) << QPSC_RETRY_VALID);
        }
        // written when the state may have changed, or on the QP's first use
        self.fin_write.next =
            self.init.q.val() | ((self.verdict.q.val() >= COMP_ACK) & (self.verdict.q.val() <= COMP_NAK_FATAL));

        if (self.state.q.val() == CompState::Idle) & self.s_pkt.valid.val() & !self.o_valid.q.val() {
            self.state.d.next = CompState::Decide;
            self.qpn.d.next = self.in_qpn.val();
            self.psn.d.next = self.s_pkt.hdr.val().get_bits::<24>(RXF_PSN);
            self.opcode.d.next = self.s_pkt.hdr.val().get_bits::<8>(RXF_OPCODE);
            self.syndrome.d.next = self.s_pkt.hdr.val().get_bits::<8>(RXF_AETH_SYNDROME);
            self.cq.d.next = self.s_pkt.qpc.val().get_bits::<24>(QPC_SEND_CQ);
            self.init.d.next = !(self.in_st.val() >> QPSC_STARTED).get_bit(0);
            self.una.d.next = (self.in_st.val() >> QPSC_UNA).get_bits::<24>(0);
            self.head_first.d.next = (self.in_st.val() >> QPSC_HEAD_FIRST).get_bits::<24>(0);
            self.head_wqe.d.next = (self.in_st.val() >> QPSC_HEAD_WQE).get_bits::<16>(0);
            self.retry_valid.d.next = (self.in_st.val() >> QPSC_RETRY_VALID).get_bit(0);
            self.retry_psn.d.next = (self.in_st.val() >> QPSC_RETRY_PSN).get_bits::<24>(0);
            self.rd_done.d.next = (self.in_st.val() >> QPSC_RD_DONE).get_bits::<5>(0);
            self.in_read.d.next = (self.in_st.val() >> QPSC_IN_READ).get_bit(0);
            self.error.d.next = (self.in_st.val() >> QPSC_ERROR).get_bit(0);
            self.retries.d.next = (self.in_st.val() >> QPSC_RETRIES).get_bits::<3>(0);
            self.rnr_retries.d.next = (self.in_st.val() >> QPSC_RNR_RETRIES).get_bits::<3>(0);
            if !(self.in_st.val() >> QPSC_STARTED).get_bit(0) {
                // first use after RTS: UNA and the head from SQ_PSN and SQ_CONS
                self.una.d.next = self.s_pkt.qpc.val().get_bits::<24>(QPC_SQ_PSN);
                self.head_first.d.next = self.s_pkt.qpc.val().get_bits::<24>(QPC_SQ_PSN);
                self.head_wqe.d.next = self.s_pkt.qpc.val().get_bits::<16>(QPC_SQ_CONS);
                self.retry_valid.d.next = false;
                self.retry_psn.d.next = 0.into();
                self.rd_done.d.next = 0.into();
                self.in_read.d.next = false;
                self.error.d.next = false;
                self.retries.d.next = self.s_pkt.qpc.val().get_bits::<3>(QPC_RETRY_CNT);
                self.rnr_retries.d.next = self.s_pkt.qpc.val().get_bits::<3>(QPC_RNR_RETRY);
            }
            // nothing sent before the requester started: nothing outstanding
            self.sent_end.d.next = self.s_pkt.qps.val().get_bits::<24>(QPS_SENT_END);
            if !self.s_pkt.qps.val().get_bit(QPS_REQ_STARTED) {
                self.sent_end.d.next = (self.in_st.val() >> QPSC_UNA).get_bits::<24>(0);
                if !(self.in_st.val() >> QPSC_STARTED).get_bit(0) {
                    self.sent_end.d.next = self.s_pkt.qpc.val().get_bits::<24>(QPC_SQ_PSN);
                }
            }
        }
        if self.state.q.val() == CompState::Decide {
            self.verdict.d.next = self.dec.verdict.val();
            self.ack_psn.d.next = self.dec.ack_psn.val();
            self.nak_status.d.next = self.dec.status.val();
            self.implied.d.next = false;
            self.flush.d.next = false;
            self.flush_first.d.next = true;
            self.state.d.next = CompState::Finish;
            if self.dec.walk.val() {
                self.state.d.next = CompState::Command;
                self.cmd_valid.d.next = true;
                self.cmd_op.d.next = INFLIGHT_HEAD.into();
            } else if self.dec.verdict.val() == COMP_NAK_FATAL {
                self.state.d.next = CompState::Command;
                self.flush.d.next = true;
                self.cmd_valid.d.next = true;
                self.cmd_op.d.next = INFLIGHT_POP.into();
            }
        }
        if (self.state.q.val() == CompState::Command) & self.m_inf.ready.val() {
            self.state.d.next = CompState::Wait;
            if (self.cmd_op.q.val() == INFLIGHT_POP) & !self.flush.q.val() {
                // the POP of a completed WQE: its answer is not
                // needed; then the next HEAD, or the end of the walk
                self.pend_pops.d.next = self.pend_pops.q.val() + 1;
                if self.r_take.val() & self.pend_pops.q.val().any() {
                    self.pend_pops.d.next = self.pend_pops.q.val();
                }
                if self.walk_more.q.val() {
                    self.state.d.next = CompState::Command;
                    self.cmd_valid.d.next = true;
                    self.cmd_op.d.next = INFLIGHT_HEAD.into();
                } else {
                    self.state.d.next = CompState::Finish;
                    if self.verdict.q.val() == COMP_NAK_FATAL {
                        self.state.d.next = CompState::Command;
                        self.flush.d.next = true;
                        self.cmd_valid.d.next = true;
                        self.cmd_op.d.next = INFLIGHT_POP.into();
                    }
                }
            }
        }
        if (self.state.q.val() == CompState::Wait) & self.r_take.val() & !self.pend_pops.q.val().any() {
            if self.flush.q.val() {
                // fatal NAK: each POP completes the head in error
                self.state.d.next = CompState::Finish;
                if !self.s_inf.empty.val() {
                    self.cqe_valid.d.next = true;
                    self.cqe_status.d.next = WCS_WR_FLUSH_ERR.into();
                    if self.flush_first.q.val() {
                        self.cqe_status.d.next = self.nak_status.q.val();
                    }
                    self.flush_first.d.next = false;
                    self.una.d.next = self.e_last.val() + 1;
                    self.head_first.d.next = self.e_last.val() + 1;
                    self.head_wqe.d.next = self.e_index.val() + 1;
                    if self.e_rd.val() {
                        self.rd_done.d.next = self.rd_done.q.val() + 1;
                    }
                    self.state.d.next = CompState::Command;
                    self.cmd_valid.d.next = true;
                    self.cmd_op.d.next = INFLIGHT_POP.into();
                }
            } else {
                // HEAD's answer against the PSN acknowledged through
                self.state.d.next = CompState::Finish;
                if self.verdict.q.val() == COMP_NAK_FATAL {
                    self.state.d.next = CompState::Command;
                    self.flush.d.next = true;
                    self.cmd_valid.d.next = true;
                    self.cmd_op.d.next = INFLIGHT_POP.into();
                }
                if self.s_inf.empty.val() | (self.ack_psn.q.val() - self.e_first.val()).get_bit(23) {
                    // nothing (more) to acknowledge
                } else if self.e_rd.val() {
                    // a READ/atomic reached: implied NAK
                    self.implied.d.next = true;
                } else if (self.ack_psn.q.val() - self.e_last.val()).get_bit(23) {
                    // the PSN lies inside this WQE
                    self.una.d.next = self.ack_psn.q.val() + 1;
                    self.retry_valid.d.next = false;
                } else {
                    // the WQE completes: POP, a CQE if signaled
                    self.state.d.next = CompState::Command;
                    self.flush.d.next = false;
                    self.cmd_valid.d.next = true;
                    self.cmd_op.d.next = INFLIGHT_POP.into();
                    self.walk_more.d.next = self.e_last.val() != self.ack_psn.q.val();
                    self.cqe_valid.d.next = (self.s_inf.data.val() >> ENT_SIGNALED).get_bit(0);
                    self.cqe_status.d.next = WCS_SUCCESS.into();
                    self.una.d.next = self.e_last.val() + 1;
                    self.head_first.d.next = self.e_last.val() + 1;
                    self.head_wqe.d.next = self.e_index.val() + 1;
                    self.retry_valid.d.next = false;
                }
            }
            self.cqe_wr_id.d.next = (self.s_inf.data.val() >> ENT_WR_ID).get_bits::<64>(0);
            self.cqe_opcode.d.next = self.e_op.val();
            self.cqe_len.d.next = (self.s_inf.data.val() >> ENT_LEN).get_bits::<32>(0);
            self.cqe_index.d.next = self.e_index.val();
            // the CQE may wait on `m_cqe` while the next packet is taken
            self.cqe_cq.d.next = self.cq.q.val();
            self.cqe_qpn.d.next = self.qpn.q.val();
        }
        if self.state.q.val() == CompState::Finish {
            self.state.d.next = CompState::Idle;
            self.o_valid.d.next = true;
            self.o_verdict.d.next = self.verdict.q.val();
            self.o_implied.d.next = self.implied.q.val();
            self.o_action.d.next = CACT_NONE.into();
            self.o_action_psn.d.next = self.psn.q.val();
            self.o_timer.d.next = self.syndrome.q.val().get_bits::<5>(0);
            self.o_status.d.next = self.nak_status.q.val();
            if self.verdict.q.val() == COMP_NAK_FATAL {
                self.o_action.d.next = CACT_ERROR.into();
            } else if (self.verdict.q.val() == COMP_RNR) & !self.implied.q.val() {
                self.o_action.d.next = CACT_RNR_WAIT.into();
            } else if self.fin_resend.val() {
                self.o_action.d.next = CACT_RESEND.into();
                self.o_action_psn.d.next = self.resend_psn.val();
            }
            self.o_write.d.next = self.fin_write.val();
            self.o_st.d.next = self.fin_st.val();
            if self.fin_write.val() {
                self.fw_valid.d.next = true;
                self.fw_qpn.d.next = self.qpn.q.val();
                self.fw_st.d.next = self.fin_st.val();
            }
        }

        if self.reset.val() {
            self.state.d.next = CompState::Idle;
            self.o_valid.d.next = false;
            self.cqe_valid.d.next = false;
            self.cmd_valid.d.next = false;
            self.pend_pops.d.next = 0.into();
            self.fw_valid.d.next = false;
        }
    }
}
