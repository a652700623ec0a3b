//! The requester: send WQEs in, request packets out (IBTA vol. 1 ch. 9).
//!
//! Each WQE gets its PSNs the first time it is sent (`first_psn`, and as
//! many PSNs as it has packets: a READ request takes one PSN per response
//! packet; rxe `update_wqe_psn`), so a resend ([`Requester::resend_from`])
//! rebuilds exactly the same packets with the same PSNs. The completer
//! (`completer.rs`) shares the send queue and the oldest unacknowledged PSN.

use std::collections::VecDeque;

use crate::ext::{AtomicEth, ExtHeaders, ImmDt, Reth};
use crate::opcode::{Opcode, Pmtu, Position};
use crate::psn::Psn;

use super::{packets_for, Completion, RcPacket, Remote, Sge, WcOpcode, WcStatus, ATOMIC_LEN, MAX_MESSAGE_LEN};

/// The operation of a send WQE. SEND and WRITE carry their payload already
/// gathered from the local SGEs (the gather is the host interface's job).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendOp {
    /// SEND, or SEND with immediate when `imm` is set.
    Send {
        /// Message bytes.
        payload: Vec<u8>,
        /// Immediate data.
        imm: Option<u32>,
    },
    /// RDMA WRITE, or WRITE with immediate when `imm` is set.
    Write {
        /// Message bytes.
        payload: Vec<u8>,
        /// Remote buffer.
        remote: Remote,
        /// Immediate data.
        imm: Option<u32>,
    },
    /// RDMA READ of `len` bytes into the local SGEs.
    Read {
        /// Remote buffer.
        remote: Remote,
        /// Bytes to read.
        len: u32,
        /// Where the data goes.
        local: Vec<Sge>,
    },
    /// Compare-and-swap; the original value goes to `local` (8 bytes).
    CmpSwap {
        /// Remote u64 (8-byte aligned).
        remote: Remote,
        /// Compare value.
        compare: u64,
        /// Swap value.
        swap: u64,
        /// Where the original remote value goes.
        local: Sge,
    },
    /// Fetch-and-add; the original value goes to `local` (8 bytes).
    FetchAdd {
        /// Remote u64 (8-byte aligned).
        remote: Remote,
        /// Addend.
        add: u64,
        /// Where the original remote value goes.
        local: Sge,
    },
}

impl SendOp {
    /// True for READ and the atomics: the operations that hold a responder
    /// resource and count against `max_rd_atomic`.
    pub fn is_rd_atomic(&self) -> bool {
        matches!(self, SendOp::Read { .. } | SendOp::CmpSwap { .. } | SendOp::FetchAdd { .. })
    }

    /// Message length in bytes.
    pub fn len(&self) -> u32 {
        match self {
            SendOp::Send { payload, .. } | SendOp::Write { payload, .. } => payload.len() as u32,
            SendOp::Read { len, .. } => *len,
            SendOp::CmpSwap { .. } | SendOp::FetchAdd { .. } => ATOMIC_LEN,
        }
    }

    /// True for a zero-length message.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The completion opcode.
    pub fn wc_opcode(&self) -> WcOpcode {
        match self {
            SendOp::Send { .. } => WcOpcode::Send,
            SendOp::Write { .. } => WcOpcode::RdmaWrite,
            SendOp::Read { .. } => WcOpcode::RdmaRead,
            SendOp::CmpSwap { .. } => WcOpcode::CompSwap,
            SendOp::FetchAdd { .. } => WcOpcode::FetchAdd,
        }
    }
}

/// A send queue WQE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendWqe {
    /// Work request id, returned in the completion.
    pub wr_id: u64,
    /// The operation.
    pub op: SendOp,
    /// Complete with a CQE on success (errors always complete).
    pub signaled: bool,
    /// Wait until every earlier READ and atomic has completed (verbs
    /// `IBV_SEND_FENCE`).
    pub fence: bool,
}

/// Why a WQE was refused at post time (a local error, nothing sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PostError {
    /// The message exceeds 2^31 bytes.
    TooLong,
    /// An atomic's local SGE is not 8 bytes, or a READ's SGEs are shorter than its length.
    BadLocalSge,
    /// The QP is in the error state.
    QpError,
}

/// Requester parameters (from the QP's attributes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequesterConfig {
    /// The remote QP number.
    pub dest_qp: u32,
    /// Path MTU.
    pub pmtu: Pmtu,
    /// First PSN (`sq_psn`).
    pub start_psn: Psn,
    /// Set AckReq on every N-th packet of a long message as well as on its
    /// last (rxe: 64, `RXE_MAX_PKT_PER_ACK`). At least 1.
    pub ack_req_every: u32,
    /// Outstanding READ/atomic WQEs allowed (`max_rd_atomic`, the
    /// initiator depth; must not exceed the peer's `max_dest_rd_atomic`).
    pub max_rd_atomic: u32,
    /// Unacknowledged PSNs allowed in flight (rxe: 128,
    /// `RXE_MAX_UNACKED_PSNS`); below 2^23 (half the PSN space).
    pub max_unacked_psns: u32,
    /// Protection domain of the QP (for local key checks).
    pub pd: u32,
    /// Local ACK timeouts resent without progress before the WQE completes
    /// with RETRY_EXC_ERR (`retry_cnt`, 0..=7; progress restores it).
    pub retry_cnt: u8,
    /// RNR NAKs answered by a wait before the WQE completes with
    /// RNR_RETRY_EXC_ERR (`rnr_retry`, 0..=7; 7: without limit; progress
    /// restores it).
    pub rnr_retry: u8,
}

/// A WQE on the send queue, with what go-back-N needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Slot {
    pub wqe: SendWqe,
    /// PSN of its first packet, once it has been sent.
    pub first_psn: Option<Psn>,
    /// Packets (= PSNs) the message takes.
    pub npkts: u32,
}

impl Slot {
    pub(crate) fn last_psn(&self) -> Option<Psn> {
        self.first_psn.map(|first| first.add(self.npkts - 1))
    }
}

/// Completer state kept beside the send queue (see `completer.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CompleterState {
    /// Inside a READ response message (after FIRST, before LAST).
    pub in_read_response: bool,
    /// The PSN the last NAK/implied-NAK resend started from, cleared on
    /// progress: a second trigger for the same PSN does not resend again
    /// (rxe's `started_retry`).
    pub retry_psn: Option<Psn>,
    /// Timeouts left before RETRY_EXC_ERR (from `retry_cnt`, restored by progress).
    pub retries_left: u8,
    /// RNR waits left before RNR_RETRY_EXC_ERR (from `rnr_retry`; 7 stays 7).
    pub rnr_left: u8,
    /// An RNR NAK stopped the requester until the RNR timer (or progress).
    pub rnr_wait: bool,
}

/// Events counted by the requester and completer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequesterCounters {
    /// Request packets sent, resends included.
    pub packets: u64,
    /// Packets sent again by go-back-N.
    pub resent_packets: u64,
    /// Resends started (NAK, implied NAK, timeout, RNR).
    pub resends: u64,
    /// Responses ignored as duplicates or ghosts (PSN not outstanding).
    pub ghost_responses: u64,
    /// Implied NAKs (a response or ACK skipped a READ/atomic response).
    pub implied_naks: u64,
    /// PSN sequence error NAKs received.
    pub seq_naks: u64,
    /// RNR NAKs received.
    pub rnr_naks: u64,
    /// READ responses dropped for an unexpected position (stale, after a resend).
    pub stale_read_responses: u64,
}

/// The completer's state as [`Requester::completer_view`] shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompleterView {
    /// Oldest unacknowledged PSN.
    pub una: Psn,
    /// One past the highest PSN sent.
    pub sent_end: Psn,
    /// Sequence number of the oldest uncompleted WQE (from 0 at creation).
    pub head_seq: u64,
    /// First PSN of the oldest uncompleted WQE once sent, else `una`.
    pub head_first_psn: Psn,
    /// The PSN the last NAK/implied-NAK resend started from, until progress.
    pub retry_psn: Option<Psn>,
    /// Inside a READ response message.
    pub in_read_response: bool,
    /// In the error state.
    pub error: bool,
    /// Timeouts left before RETRY_EXC_ERR.
    pub retries_left: u8,
    /// RNR waits left before RNR_RETRY_EXC_ERR.
    pub rnr_left: u8,
    /// Waiting out an RNR NAK.
    pub rnr_wait: bool,
}

/// One RC QP's send side: requester and completer.
#[derive(Debug, Clone)]
pub struct Requester {
    pub(crate) cfg: RequesterConfig,
    /// PSN the next new WQE starts at.
    pub(crate) next_psn: Psn,
    /// Oldest unacknowledged PSN.
    pub(crate) una: Psn,
    /// One past the highest PSN sent so far (tells a resend from a first send).
    pub(crate) sent_end: Psn,
    /// Posted WQEs not yet completed, oldest first.
    pub(crate) slots: VecDeque<Slot>,
    /// Sequence number of `slots[0]` (WQEs are numbered from 0 at creation).
    pub(crate) head_seq: u64,
    /// The WQE the next packet comes from, and its packet index.
    pub(crate) cursor_seq: u64,
    pub(crate) cursor_seg: u32,
    /// In the error state: nothing is sent, everything flushed.
    pub(crate) error: bool,
    pub(crate) completions: Vec<Completion>,
    pub(crate) comp: CompleterState,
    pub(crate) counters: RequesterCounters,
}

impl Requester {
    /// A requester in RTS with an empty send queue.
    pub fn new(cfg: RequesterConfig) -> Self {
        let cfg = RequesterConfig {
            ack_req_every: cfg.ack_req_every.max(1),
            max_unacked_psns: cfg.max_unacked_psns.clamp(1, Psn::HALF - 1),
            ..cfg
        };
        Requester {
            cfg,
            next_psn: cfg.start_psn,
            una: cfg.start_psn,
            sent_end: cfg.start_psn,
            slots: VecDeque::new(),
            head_seq: 0,
            cursor_seq: 0,
            cursor_seg: 0,
            error: false,
            completions: Vec::new(),
            comp: CompleterState { retries_left: cfg.retry_cnt, rnr_left: cfg.rnr_retry, ..CompleterState::default() },
            counters: RequesterCounters::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &RequesterConfig {
        &self.cfg
    }

    /// PSN of the next new packet.
    pub fn next_psn(&self) -> Psn {
        self.next_psn
    }

    /// Oldest unacknowledged PSN.
    pub fn oldest_unacked(&self) -> Psn {
        self.una
    }

    /// WQEs posted and not yet completed.
    pub fn outstanding(&self) -> usize {
        self.slots.len()
    }

    /// True in the error state.
    pub fn is_error(&self) -> bool {
        self.error
    }

    /// Counters.
    pub fn counters(&self) -> RequesterCounters {
        self.counters
    }

    /// The completer's state, read-only (for the hardware benches):
    /// oldest unacknowledged PSN, highest PSN sent + 1, the oldest
    /// uncompleted WQE (its sequence number and, once sent, its first PSN;
    /// else the oldest unacknowledged PSN), the damped resend's PSN, READ
    /// response in progress, error.
    pub fn completer_view(&self) -> CompleterView {
        CompleterView {
            una: self.una,
            sent_end: self.sent_end,
            head_seq: self.head_seq,
            head_first_psn: self.slots.front().and_then(|s| s.first_psn).unwrap_or(self.una),
            retry_psn: self.comp.retry_psn,
            retries_left: self.comp.retries_left,
            rnr_left: self.comp.rnr_left,
            rnr_wait: self.comp.rnr_wait,
            in_read_response: self.comp.in_read_response,
            error: self.error,
        }
    }

    /// Takes the completions produced so far, oldest first.
    pub fn take_completions(&mut self) -> Vec<Completion> {
        std::mem::take(&mut self.completions)
    }

    /// Started READ/atomic WQEs not yet completed.
    pub fn rd_atomic_outstanding(&self) -> u32 {
        self.slots.iter().filter(|s| s.first_psn.is_some() && s.wqe.op.is_rd_atomic()).count() as u32
    }

    /// Posts a WQE to the send queue.
    pub fn post(&mut self, wqe: SendWqe) -> Result<(), PostError> {
        if self.error {
            return Err(PostError::QpError);
        }
        let len = wqe.op.len();
        if len > MAX_MESSAGE_LEN {
            return Err(PostError::TooLong);
        }
        match &wqe.op {
            SendOp::Read { local, len, .. } if super::sge_total(local) < u64::from(*len) => {
                return Err(PostError::BadLocalSge)
            }
            SendOp::CmpSwap { local, .. } | SendOp::FetchAdd { local, .. } if local.len != ATOMIC_LEN => {
                return Err(PostError::BadLocalSge)
            }
            _ => {}
        }
        let npkts = match wqe.op {
            SendOp::CmpSwap { .. } | SendOp::FetchAdd { .. } => 1,
            _ => packets_for(len.into(), self.cfg.pmtu.bytes()),
        };
        self.slots.push_back(Slot { wqe, first_psn: None, npkts });
        Ok(())
    }

    fn slot_index(&self, seq: u64) -> Option<usize> {
        seq.checked_sub(self.head_seq).map(|i| i as usize).filter(|&i| i < self.slots.len())
    }

    /// The next request packet to put on the wire, or `None` when the send
    /// queue is empty or a limit holds it back: the unacknowledged-PSN
    /// window, `max_rd_atomic` (checked when a READ/atomic is
    /// first sent), or a fence.
    pub fn next_packet(&mut self) -> Option<RcPacket> {
        if self.error || self.comp.rnr_wait {
            return None;
        }
        self.skip_acknowledged();
        let index = self.slot_index(self.cursor_seq)?;
        if self.slots[index].first_psn.is_none() {
            let slot = &self.slots[index];
            let prior_rd_atomic = self.slots.iter().take(index).any(|s| s.wqe.op.is_rd_atomic());
            if slot.wqe.fence && prior_rd_atomic {
                return None;
            }
            if slot.wqe.op.is_rd_atomic() && self.rd_atomic_outstanding() >= self.cfg.max_rd_atomic {
                return None;
            }
            if !self.within_window(self.next_psn) {
                return None;
            }
            let npkts = slot.npkts;
            self.slots[index].first_psn = Some(self.next_psn);
            self.next_psn = self.next_psn.add(npkts);
        }
        let slot = &self.slots[index];
        let first = slot.first_psn?;
        let seg = self.cursor_seg;
        let psn = first.add(seg);
        if !self.within_window(psn) {
            return None;
        }
        let packet = self.build(slot, seg, psn);
        let resent = psn.is_before(self.sent_end);
        // A READ request covers all of its remaining PSNs.
        let next_seg = if matches!(slot.wqe.op, SendOp::Read { .. }) { slot.npkts } else { seg + 1 };
        let end = first.add(next_seg);
        if self.sent_end.is_before(end) {
            self.sent_end = end;
        }
        if next_seg >= slot.npkts {
            self.cursor_seq += 1;
            self.cursor_seg = 0;
        } else {
            self.cursor_seg = next_seg;
        }
        self.counters.packets += 1;
        if resent {
            self.counters.resent_packets += 1;
        }
        Some(packet)
    }

    /// After a resend started, ACKs may acknowledge packets the cursor has
    /// not reached again: those are not sent again (rxe `req_retry` skips
    /// the PSNs already acknowledged; a READ asks only for the rest).
    fn skip_acknowledged(&mut self) {
        while let Some(index) = self.slot_index(self.cursor_seq) {
            let slot = &self.slots[index];
            let Some(first) = slot.first_psn else {
                return;
            };
            if !first.add(self.cursor_seg).is_before(self.una) {
                return;
            }
            let acked = first.distance_to(self.una);
            if acked < slot.npkts {
                self.cursor_seg = acked;
                return;
            }
            self.cursor_seq += 1;
            self.cursor_seg = 0;
        }
    }

    fn within_window(&self, psn: Psn) -> bool {
        self.una.distance_to(psn) < self.cfg.max_unacked_psns
    }

    fn build(&self, slot: &Slot, seg: u32, psn: Psn) -> RcPacket {
        let pmtu = self.cfg.pmtu.bytes();
        let npkts = slot.npkts;
        let position = match (npkts, seg) {
            (1, _) => Position::Only,
            (_, 0) => Position::First,
            (n, s) if s + 1 == n => Position::Last,
            _ => Position::Middle,
        };
        let ends_message = matches!(position, Position::Last | Position::Only);
        let ack_req = ends_message || (seg + 1).is_multiple_of(self.cfg.ack_req_every);
        let dest = self.cfg.dest_qp;
        let segment = |payload: &[u8]| {
            let start = (seg as usize * pmtu).min(payload.len());
            let end = (start + pmtu).min(payload.len());
            payload[start..end].to_vec()
        };
        match &slot.wqe.op {
            SendOp::Send { payload, imm } => {
                let opcode = match (position, imm) {
                    (Position::First, _) => Opcode::RcSendFirst,
                    (Position::Middle, _) => Opcode::RcSendMiddle,
                    (Position::Last, None) => Opcode::RcSendLast,
                    (Position::Last, Some(_)) => Opcode::RcSendLastImm,
                    (Position::Only, None) => Opcode::RcSendOnly,
                    (Position::Only, Some(_)) => Opcode::RcSendOnlyImm,
                };
                let ext = match imm {
                    Some(value) if ends_message => ExtHeaders::ImmDt(ImmDt { value: *value }),
                    _ => ExtHeaders::Bare,
                };
                RcPacket::new(opcode, dest, psn, ack_req, ext, segment(payload))
            }
            SendOp::Write { payload, remote, imm } => {
                let reth = Reth { va: remote.va, rkey: remote.rkey, dma_len: payload.len() as u32 };
                let (opcode, ext) = match (position, imm) {
                    (Position::First, _) => (Opcode::RcWriteFirst, ExtHeaders::Reth(reth)),
                    (Position::Middle, _) => (Opcode::RcWriteMiddle, ExtHeaders::Bare),
                    (Position::Last, None) => (Opcode::RcWriteLast, ExtHeaders::Bare),
                    (Position::Last, Some(v)) => (Opcode::RcWriteLastImm, ExtHeaders::ImmDt(ImmDt { value: *v })),
                    (Position::Only, None) => (Opcode::RcWriteOnly, ExtHeaders::Reth(reth)),
                    (Position::Only, Some(v)) => {
                        (Opcode::RcWriteOnlyImm, ExtHeaders::RethImmDt(reth, ImmDt { value: *v }))
                    }
                };
                RcPacket::new(opcode, dest, psn, ack_req, ext, segment(payload))
            }
            SendOp::Read { remote, len, .. } => {
                // A resent READ asks only for the part not yet received
                // (rxe `req_retry`): the response data at
                // PSN first+k starts k PMTUs into the buffer.
                let skip = (u64::from(seg) * pmtu as u64).min(u64::from(*len));
                let reth = Reth {
                    va: remote.va.wrapping_add(skip),
                    rkey: remote.rkey,
                    dma_len: (u64::from(*len) - skip) as u32,
                };
                RcPacket::new(Opcode::RcReadRequest, dest, psn, true, ExtHeaders::Reth(reth), Vec::new())
            }
            SendOp::CmpSwap { remote, compare, swap, .. } => {
                let eth = AtomicEth { va: remote.va, rkey: remote.rkey, swap_add: *swap, compare: *compare };
                RcPacket::new(Opcode::RcCompareSwap, dest, psn, true, ExtHeaders::AtomicEth(eth), Vec::new())
            }
            SendOp::FetchAdd { remote, add, .. } => {
                let eth = AtomicEth { va: remote.va, rkey: remote.rkey, swap_add: *add, compare: 0 };
                RcPacket::new(Opcode::RcFetchAdd, dest, psn, true, ExtHeaders::AtomicEth(eth), Vec::new())
            }
        }
    }

    /// Go-back-N: the next packets sent are those from `psn` on, in PSN
    /// order, rebuilt from the WQEs (go-back-N, as rxe `req_retry`). `psn` must be
    /// outstanding (from the oldest unacknowledged PSN to the highest PSN
    /// sent); returns false (and changes nothing) otherwise.
    pub fn resend_from(&mut self, psn: Psn) -> bool {
        if self.error || self.una.distance_to(psn) >= self.una.distance_to(self.sent_end) {
            return false;
        }
        let found = self.slots.iter().enumerate().find_map(|(i, slot)| {
            let first = slot.first_psn?;
            let offset = first.distance_to(psn);
            (offset < slot.npkts).then_some((i, offset))
        });
        let Some((index, offset)) = found else {
            return false;
        };
        self.cursor_seq = self.head_seq + index as u64;
        self.cursor_seg = offset;
        self.comp.in_read_response = false;
        self.counters.resends += 1;
        true
    }

    /// The local ACK timeout fired: with PSNs outstanding, one retry is
    /// spent and everything from the oldest unacknowledged PSN is resent
    /// (even when a NAK's resend from there is under way; a later NAK for
    /// that PSN does not resend again); with no retry left the oldest WQE
    /// completes with RETRY_EXC_ERR and the QP fails (every other WQE
    /// flushed). Returns true when it resent; false when nothing is
    /// outstanding (nothing changes) or the QP failed.
    pub fn timeout(&mut self) -> bool {
        if self.error || self.una == self.sent_end {
            return false;
        }
        if self.comp.retries_left == 0 {
            self.fail(WcStatus::RetryExcErr);
            return false;
        }
        self.comp.retries_left -= 1;
        let una = self.una;
        let resent = self.resend_from(una);
        if resent {
            self.comp.retry_psn = Some(una);
        }
        resent
    }

    /// The RNR timer ran out: the wait ends and everything from the oldest
    /// unacknowledged PSN is resent (no retry spent; a later NAK for that
    /// PSN does not resend again). Returns true when it resent.
    pub fn rnr_timeout(&mut self) -> bool {
        if self.error {
            return false;
        }
        self.comp.rnr_wait = false;
        if self.una == self.sent_end {
            return false;
        }
        let una = self.una;
        let resent = self.resend_from(una);
        if resent {
            self.comp.retry_psn = Some(una);
        }
        resent
    }

    /// The requester stops while the completer waits out an RNR NAK.
    pub fn rnr_waiting(&self) -> bool {
        self.comp.rnr_wait
    }

    /// Pops the head WQE with a completion (always on error; on success only if signaled).
    pub(crate) fn complete_head(&mut self, status: WcStatus) {
        let Some(slot) = self.slots.pop_front() else {
            return;
        };
        self.head_seq += 1;
        if self.cursor_seq < self.head_seq {
            self.cursor_seq = self.head_seq;
            self.cursor_seg = 0;
        }
        if let Some(last) = slot.last_psn() {
            // una moves past the completed WQE, never backwards.
            if !self.una.is_after(last.next()) {
                self.una = last.next();
            }
        }
        if status != WcStatus::Success || slot.wqe.signaled {
            self.completions.push(Completion {
                wr_id: slot.wqe.wr_id,
                status,
                opcode: slot.wqe.op.wc_opcode(),
                byte_len: slot.wqe.op.len(),
                imm: None,
            });
        }
    }

    /// Error: the head WQE completes with `status`, every other WQE is
    /// flushed (`WR_FLUSH_ERR`), and the QP stops.
    pub(crate) fn fail(&mut self, status: WcStatus) {
        let una = self.una;
        self.complete_head(status);
        while !self.slots.is_empty() {
            self.complete_head(WcStatus::WrFlushErr);
        }
        self.error = true;
        // UNA moved past the flushed WQEs: the retries are restored, as by
        // any progress (the hardware's rule: UNA moved)
        if self.una != una {
            self.comp.retries_left = self.cfg.retry_cnt;
            self.comp.rnr_left = self.cfg.rnr_retry;
            self.comp.rnr_wait = false;
        }
    }
}
