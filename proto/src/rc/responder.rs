//! The responder: checks and executes request packets in PSN order and
//! produces ACKs, NAKs, READ responses and atomic ACKs (IBTA vol. 1 ch. 9).
//!
//! Check order, after the packet passed its ICRC and was routed to this QP
//! (both the caller's job): PSN (expected / duplicate / ahead), opcode
//! sequence, opcode support, length, RECV WQE availability (RNR), key
//! check, then execution. No memory is written before every check of the
//! packet has passed.

use std::collections::VecDeque;

use crate::aeth::{AckCredit, Aeth, AethKind, NakCode, RnrTimer};
use crate::ext::{AtomicAckEth, ExtHeaders, Reth};
use crate::opcode::{validate_payload_len, Opcode, Pmtu, Position};
use crate::psn::Psn;

use super::{
    packets_for, scatter, Access, Completion, Memory, RcPacket, ScatterError, Sge, WcOpcode, WcStatus, ATOMIC_LEN,
    MAX_MESSAGE_LEN, MSN_MASK,
};

/// A receive queue WQE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecvWqe {
    /// Work request id, returned in the completion.
    pub wr_id: u64,
    /// Where a SEND's bytes go, in order.
    pub sges: Vec<Sge>,
}

/// Responder parameters (from the QP's attributes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponderConfig {
    /// The remote (requester's) QP number, the destination of responses.
    pub dest_qp: u32,
    /// Path MTU.
    pub pmtu: Pmtu,
    /// Expected PSN of the first request (`rq_psn`).
    pub start_psn: Psn,
    /// Responder resources for READ and atomics (`max_dest_rd_atomic`):
    /// the depth of the READ/atomic replay cache.
    pub max_dest_rd_atomic: u32,
    /// Timer code sent in RNR NAKs (`min_rnr_timer`).
    pub min_rnr_timer: RnrTimer,
    /// Protection domain of the QP (for key checks).
    pub pd: u32,
    /// Most SGEs a RECV WQE may carry (more is a malformed WQE).
    pub max_recv_sge: usize,
    /// The remote operations the QP allows (`qp_access_flags`).
    pub access: QpAccess,
}

/// The remote rights of a QP (`IBV_ACCESS_REMOTE_*` of its access flags): a
/// WRITE, READ or atomic the QP does not allow is an invalid request (rxe
/// `check_op_valid`), whatever the memory region allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpAccess {
    /// RDMA WRITE (`IBV_ACCESS_REMOTE_WRITE`).
    pub remote_write: bool,
    /// RDMA READ (`IBV_ACCESS_REMOTE_READ`).
    pub remote_read: bool,
    /// Atomics (`IBV_ACCESS_REMOTE_ATOMIC`).
    pub remote_atomic: bool,
}

impl QpAccess {
    /// Every remote operation allowed.
    pub const ALL: QpAccess = QpAccess { remote_write: true, remote_read: true, remote_atomic: true };
}

/// Every remote operation allowed, as most tests want.
impl Default for QpAccess {
    fn default() -> Self {
        QpAccess::ALL
    }
}

/// A READ or atomic remembered for duplicates (rxe's responder resources).
/// The hardware keeps the same list per QP (docs/replay_plan.md); its
/// benches compare theirs with [`Responder::resources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// A READ: its PSN range and the buffer of the original request.
    Read {
        /// The request's PSN, the first response's.
        first_psn: Psn,
        /// The last response's PSN.
        last_psn: Psn,
        /// The request's RETH VA.
        va: u64,
        /// The request's RETH rkey.
        rkey: u32,
        /// The request's RETH DMA length.
        len: u32,
    },
    /// An atomic: its PSN and the value it returned.
    Atomic {
        /// The request's PSN.
        psn: Psn,
        /// The value the target word held before the atomic.
        orig: u64,
    },
}

/// The multi-packet message in progress, which fixes the opcodes allowed next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InProgress {
    /// No message open: FIRST, ONLY, READ or an atomic may come.
    None,
    /// A SEND is open: SEND MIDDLE or LAST.
    Send,
    /// A WRITE is open: WRITE MIDDLE or LAST.
    Write,
}

/// The message in progress as [`ResponderState`] shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageInProgress {
    /// No message open.
    None,
    /// A SEND is open (FIRST taken, LAST not yet).
    Send,
    /// A WRITE is open.
    Write,
}

/// A read-only snapshot of the per-QP state the responder keeps between
/// packets (docs/transport.md, "Per-QP transport state"), for checking a
/// hardware responder against the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponderState {
    /// Expected PSN.
    pub epsn: Psn,
    /// Message sequence number (24 bits).
    pub msn: u32,
    /// A NAK episode is open (sequence error or RNR NAK sent, ePSN not yet received).
    pub nak_sent: bool,
    /// An ACK for `epsn - 1` is owed.
    pub ack_pending: bool,
    /// The message in progress.
    pub in_progress: MessageInProgress,
    /// Bytes placed in the RECV WQE a multi-packet SEND is filling, if one is.
    pub recv_placed: Option<u64>,
    /// The open WRITE: the VA of its next byte.
    pub write_va: u64,
    /// The open WRITE: its rkey.
    pub write_rkey: u32,
    /// The open WRITE: bytes still to come.
    pub write_remaining: u64,
    /// The open WRITE: its total length.
    pub write_len: u32,
    /// The QP is in the error state.
    pub error: bool,
}

/// Counters of what the responder did with requests (issue 12 item 5 extends them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResponderCounters {
    /// Requests executed.
    pub executed: u64,
    /// Duplicate requests (PSN behind the expected one).
    pub duplicates: u64,
    /// Requests ahead of the expected PSN.
    pub out_of_sequence: u64,
    /// PSN sequence error NAKs sent.
    pub seq_naks: u64,
    /// RNR NAKs sent.
    pub rnr_naks: u64,
    /// Class C/A error NAKs sent (invalid request, access, operational).
    pub error_naks: u64,
    /// Duplicate READs re-executed.
    pub read_replays: u64,
    /// Duplicate atomics answered from the replay cache.
    pub atomic_replays: u64,
    /// Packets dropped silently (QP in error, duplicates without a resource, non-requests).
    pub dropped: u64,
}

/// One RC QP's receive side.
#[derive(Debug, Clone)]
pub struct Responder {
    pub(crate) cfg: ResponderConfig,
    /// Expected PSN.
    pub(crate) epsn: Psn,
    /// Message sequence number: messages completed (24 bits).
    pub(crate) msn: u32,
    /// A PSN sequence error NAK was sent and the expected PSN has not arrived since.
    pub(crate) nak_sent: bool,
    pub(crate) in_progress: InProgress,
    /// Posted RECV WQEs.
    pub(crate) recv_queue: VecDeque<RecvWqe>,
    /// The RECV WQE a multi-packet SEND is filling, and the bytes placed so far.
    pub(crate) current_recv: Option<(RecvWqe, u64)>,
    /// The open WRITE: next VA, rkey, bytes still to come, total length.
    pub(crate) write_va: u64,
    pub(crate) write_rkey: u32,
    pub(crate) write_remaining: u64,
    pub(crate) write_len: u32,
    /// READ/atomic replay cache, oldest first, at most `max_dest_rd_atomic`.
    resources: VecDeque<Resource>,
    /// The last packet executed was a SEND/WRITE packet without AckReq and
    /// is not yet acknowledged; its PSN is always `epsn - 1`.
    pub(crate) ack_pending: bool,
    pub(crate) error: bool,
    pub(crate) completions: Vec<Completion>,
    pub(crate) counters: ResponderCounters,
}

/// A class B/C/A outcome of the checks (IBTA's error classes, as rxe names them).
enum Reject {
    /// NAK with this code; the QP goes to the error state (class C, and class A for operational errors).
    Fatal(NakCode),
    /// RNR NAK: no RECV WQE; nothing changes (class B).
    Rnr,
}

/// An atomic's new value at the responder: FETCH_ADD adds (wrapping),
/// COMPARE_SWAP swaps when the original equals the compare data and
/// leaves it otherwise. The memory is written only when the value changes.
pub fn atomic_new_value(fetch_add: bool, orig: u64, compare: u64, swap_add: u64) -> u64 {
    match (fetch_add, orig == compare) {
        (true, _) => orig.wrapping_add(swap_add),
        (false, true) => swap_add,
        (false, false) => orig,
    }
}

impl Responder {
    /// A responder in RTR with an empty receive queue.
    pub fn new(cfg: ResponderConfig) -> Self {
        Responder {
            cfg,
            epsn: cfg.start_psn,
            msn: 0,
            nak_sent: false,
            in_progress: InProgress::None,
            recv_queue: VecDeque::new(),
            current_recv: None,
            write_va: 0,
            write_rkey: 0,
            write_remaining: 0,
            write_len: 0,
            resources: VecDeque::new(),
            ack_pending: false,
            error: false,
            completions: Vec::new(),
            counters: ResponderCounters::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ResponderConfig {
        &self.cfg
    }

    /// Expected PSN.
    pub fn expected_psn(&self) -> Psn {
        self.epsn
    }

    /// Current MSN.
    pub fn msn(&self) -> u32 {
        self.msn
    }

    /// True in the error state.
    pub fn is_error(&self) -> bool {
        self.error
    }

    /// Counters.
    pub fn counters(&self) -> ResponderCounters {
        self.counters
    }

    /// The READ and atomic resources kept for duplicates, oldest first: at
    /// most `max_dest_rd_atomic`, the oldest recycled by a new one.
    pub fn resources(&self) -> impl ExactSizeIterator<Item = Resource> + '_ {
        self.resources.iter().copied()
    }

    /// The per-QP state between packets (read-only).
    pub fn state(&self) -> ResponderState {
        ResponderState {
            epsn: self.epsn,
            msn: self.msn,
            nak_sent: self.nak_sent,
            ack_pending: self.ack_pending,
            in_progress: match self.in_progress {
                InProgress::None => MessageInProgress::None,
                InProgress::Send => MessageInProgress::Send,
                InProgress::Write => MessageInProgress::Write,
            },
            recv_placed: self.current_recv.as_ref().map(|(_, placed)| *placed),
            write_va: self.write_va,
            write_rkey: self.write_rkey,
            write_remaining: self.write_remaining,
            write_len: self.write_len,
            error: self.error,
        }
    }

    /// Posts a RECV WQE. In the error state it is flushed at once.
    pub fn post_recv(&mut self, wqe: RecvWqe) {
        if self.error {
            self.push_recv_completion(wqe.wr_id, WcStatus::WrFlushErr, WcOpcode::Recv, 0, None);
        } else {
            self.recv_queue.push_back(wqe);
        }
    }

    /// RECV WQEs posted and not consumed.
    pub fn posted_recvs(&self) -> usize {
        self.recv_queue.len()
    }

    /// Takes the receive completions produced so far, oldest first.
    pub fn take_completions(&mut self) -> Vec<Completion> {
        std::mem::take(&mut self.completions)
    }

    /// The coalesced ACK for SEND/WRITE packets executed without AckReq,
    /// if any (the caller asks, e.g. when its ACK timer fires).
    pub fn flush_ack(&mut self) -> Option<RcPacket> {
        if !std::mem::take(&mut self.ack_pending) {
            return None;
        }
        Some(self.ack(AethKind::Ack(AckCredit::UNLIMITED), self.epsn.sub(1)))
    }

    fn push_recv_completion(&mut self, wr_id: u64, status: WcStatus, opcode: WcOpcode, len: u64, imm: Option<u32>) {
        self.completions.push(Completion { wr_id, status, opcode, byte_len: len as u32, imm });
    }

    fn ack(&self, kind: AethKind, psn: Psn) -> RcPacket {
        RcPacket::new(
            Opcode::RcAck,
            self.cfg.dest_qp,
            psn,
            false,
            ExtHeaders::Aeth(Aeth::new(kind, self.msn)),
            Vec::new(),
        )
    }

    fn bump_msn(&mut self) {
        self.msn = (self.msn + 1) & MSN_MASK;
    }

    /// Processes one request packet addressed to this QP (ICRC already
    /// verified by the caller) and returns the responses to send, in order.
    pub fn receive(&mut self, packet: &RcPacket, mem: &mut dyn Memory) -> Vec<RcPacket> {
        if self.error || !packet.is_request() {
            self.counters.dropped += 1;
            return Vec::new();
        }
        let psn = packet.psn();
        let diff = psn.diff(self.epsn);
        if diff > 0 {
            // Ahead: one PSN sequence error NAK per episode, naming the
            // expected PSN (rxe `check_psn`); later ones are dropped.
            self.counters.out_of_sequence += 1;
            if self.nak_sent {
                return Vec::new();
            }
            self.nak_sent = true;
            self.counters.seq_naks += 1;
            return vec![self.ack(AethKind::Nak(NakCode::PsnSequenceError), self.epsn)];
        }
        if diff < 0 {
            self.counters.duplicates += 1;
            return self.duplicate(packet, mem);
        }
        self.nak_sent = false;
        match self.execute(packet, mem) {
            Ok(responses) => {
                self.counters.executed += 1;
                responses
            }
            Err(Reject::Rnr) => {
                // The RNR NAK opens an episode like a sequence error: the
                // packets already in flight behind it are ahead of the
                // expected PSN and dropped without a second NAK, so the
                // requester waits for the RNR timer (rxe would send a PSN
                // sequence NAK for the first of them).
                self.nak_sent = true;
                self.counters.rnr_naks += 1;
                vec![self.ack(AethKind::RnrNak(self.cfg.min_rnr_timer), psn)]
            }
            Err(Reject::Fatal(code)) => {
                self.counters.error_naks += 1;
                let nak = self.ack(AethKind::Nak(code), psn);
                self.enter_error();
                vec![nak]
            }
        }
    }

    /// The QP goes to the error state: the RECV being filled and every
    /// posted RECV complete with `WR_FLUSH_ERR`.
    fn enter_error(&mut self) {
        self.error = true;
        if let Some((wqe, _)) = self.current_recv.take() {
            self.push_recv_completion(wqe.wr_id, WcStatus::WrFlushErr, WcOpcode::Recv, 0, None);
        }
        while let Some(wqe) = self.recv_queue.pop_front() {
            self.push_recv_completion(wqe.wr_id, WcStatus::WrFlushErr, WcOpcode::Recv, 0, None);
        }
    }

    fn remember(&mut self, resource: Resource) {
        if self.resources.len() >= self.cfg.max_dest_rd_atomic as usize {
            // The oldest resource is recycled (rxe); a requester keeping to
            // max_rd_atomic <= max_dest_rd_atomic never needs it again.
            self.resources.pop_front();
        }
        self.resources.push_back(resource);
    }

    fn execute(&mut self, packet: &RcPacket, mem: &mut dyn Memory) -> Result<Vec<RcPacket>, Reject> {
        use Opcode::*;
        let opcode = packet.opcode();
        // Opcode sequence (rxe `check_op_seq`): a MIDDLE/LAST needs its message
        // open, a FIRST/ONLY/READ/atomic needs none open.
        let allowed = match (self.in_progress, opcode) {
            (InProgress::Send, RcSendMiddle | RcSendLast | RcSendLastImm) => true,
            (InProgress::Write, RcWriteMiddle | RcWriteLast | RcWriteLastImm) => true,
            (InProgress::None, op) => matches!(op.position(), Some(Position::First | Position::Only) | None),
            _ => false,
        };
        if !allowed {
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        }
        if matches!(opcode, RcSendLastInv | RcSendOnlyInv) {
            // SEND with invalidate is not supported by this QP (rxe `check_op_valid`).
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        }
        let allowed = match opcode {
            RcWriteFirst | RcWriteMiddle | RcWriteLast | RcWriteLastImm | RcWriteOnly | RcWriteOnlyImm => {
                self.cfg.access.remote_write
            }
            RcReadRequest => self.cfg.access.remote_read,
            RcCompareSwap | RcFetchAdd => self.cfg.access.remote_atomic,
            _ => true,
        };
        if !allowed {
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        }
        if validate_payload_len(opcode, packet.payload.len(), self.cfg.pmtu).is_err() {
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        }
        match opcode {
            RcSendFirst | RcSendMiddle | RcSendLast | RcSendLastImm | RcSendOnly | RcSendOnlyImm => {
                self.execute_send(packet, mem)
            }
            RcWriteFirst | RcWriteMiddle | RcWriteLast | RcWriteLastImm | RcWriteOnly | RcWriteOnlyImm => {
                self.execute_write(packet, mem)
            }
            RcReadRequest => self.execute_read(packet, mem),
            RcCompareSwap | RcFetchAdd => self.execute_atomic(packet, mem),
            _ => Err(Reject::Fatal(NakCode::InvalidRequest)),
        }
    }

    /// ACK for a SEND/WRITE packet if it asks for one, else remember it for coalescing.
    fn ack_if_asked(&mut self, packet: &RcPacket) -> Vec<RcPacket> {
        if packet.bth.ack_req {
            self.ack_pending = false;
            vec![self.ack(AethKind::Ack(AckCredit::UNLIMITED), packet.psn())]
        } else {
            self.ack_pending = true;
            Vec::new()
        }
    }

    fn execute_send(&mut self, packet: &RcPacket, mem: &mut dyn Memory) -> Result<Vec<RcPacket>, Reject> {
        let position = packet.opcode().position().unwrap_or(Position::Only);
        let starts = matches!(position, Position::First | Position::Only);
        let ends = matches!(position, Position::Last | Position::Only);
        if starts {
            // A SEND consumes a RECV WQE (rxe `check_resource`); none: RNR NAK (class B).
            let Some(wqe) = self.recv_queue.pop_front() else {
                return Err(Reject::Rnr);
            };
            if wqe.sges.len() > self.cfg.max_recv_sge {
                // A malformed RECV WQE: remote operational error (class A).
                self.push_recv_completion(wqe.wr_id, WcStatus::LocQpOpErr, WcOpcode::Recv, 0, None);
                return Err(Reject::Fatal(NakCode::RemoteOperationalError));
            }
            self.current_recv = Some((wqe, 0));
        }
        let Some((wqe, offset)) = self.current_recv.take() else {
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        };
        match scatter(mem, self.cfg.pd, &wqe.sges, offset, &packet.payload) {
            Ok(()) => {}
            Err(ScatterError::Length) => {
                // Longer than the RECV buffers: the RECV completes with
                // LOC_LEN_ERR and the requester gets invalid request (rxe).
                self.push_recv_completion(wqe.wr_id, WcStatus::LocLenErr, WcOpcode::Recv, offset, None);
                return Err(Reject::Fatal(NakCode::InvalidRequest));
            }
            Err(ScatterError::Protection) => {
                self.push_recv_completion(wqe.wr_id, WcStatus::LocProtErr, WcOpcode::Recv, offset, None);
                return Err(Reject::Fatal(NakCode::RemoteOperationalError));
            }
        }
        let offset = offset + packet.payload.len() as u64;
        if ends {
            let imm = packet.ext.imm_dt().map(|i| i.value);
            self.push_recv_completion(wqe.wr_id, WcStatus::Success, WcOpcode::Recv, offset, imm);
            self.in_progress = InProgress::None;
            self.bump_msn();
        } else {
            self.current_recv = Some((wqe, offset));
            self.in_progress = InProgress::Send;
        }
        self.epsn = self.epsn.next();
        Ok(self.ack_if_asked(packet))
    }

    fn execute_write(&mut self, packet: &RcPacket, mem: &mut dyn Memory) -> Result<Vec<RcPacket>, Reject> {
        let position = packet.opcode().position().unwrap_or(Position::Only);
        let ends = matches!(position, Position::Last | Position::Only);
        let payload_len = packet.payload.len() as u64;
        let (va, rkey, remaining, total) = match packet.ext.reth() {
            Some(reth) => {
                let Reth { va, rkey, dma_len } = *reth;
                if dma_len > MAX_MESSAGE_LEN {
                    return Err(Reject::Fatal(NakCode::InvalidRequest));
                }
                // A zero-length WRITE needs no key check (rxe `check_rkey`).
                if dma_len > 0 {
                    if let Err(_e) = mem.check(self.cfg.pd, rkey, va, dma_len.into(), Access::RemoteWrite) {
                        return Err(Reject::Fatal(NakCode::RemoteAccessError));
                    }
                }
                (va, rkey, u64::from(dma_len), dma_len)
            }
            None => (self.write_va, self.write_rkey, self.write_remaining, self.write_len),
        };
        // Length (rxe `check_length`): the packets must add up to the DMA length.
        let fits = if ends { payload_len == remaining } else { payload_len < remaining };
        if !fits {
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        }
        let has_imm = packet.ext.imm_dt().is_some();
        if has_imm && self.recv_queue.is_empty() {
            return Err(Reject::Rnr);
        }
        if payload_len > 0 && mem.write(va, &packet.payload).is_err() {
            return Err(Reject::Fatal(NakCode::RemoteOperationalError));
        }
        let _ = rkey;
        if ends {
            if let Some(imm) = packet.ext.imm_dt() {
                if let Some(wqe) = self.recv_queue.pop_front() {
                    self.push_recv_completion(
                        wqe.wr_id,
                        WcStatus::Success,
                        WcOpcode::RecvRdmaWithImm,
                        total.into(),
                        Some(imm.value),
                    );
                }
            }
            self.in_progress = InProgress::None;
            self.bump_msn();
        } else {
            self.in_progress = InProgress::Write;
            self.write_va = va.wrapping_add(payload_len);
            self.write_rkey = rkey;
            self.write_remaining = remaining - payload_len;
            self.write_len = total;
        }
        self.epsn = self.epsn.next();
        Ok(self.ack_if_asked(packet))
    }

    fn execute_read(&mut self, packet: &RcPacket, mem: &mut dyn Memory) -> Result<Vec<RcPacket>, Reject> {
        let Some(&Reth { va, rkey, dma_len }) = packet.ext.reth() else {
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        };
        if dma_len > MAX_MESSAGE_LEN || self.cfg.max_dest_rd_atomic == 0 {
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        }
        if dma_len > 0 && mem.check(self.cfg.pd, rkey, va, dma_len.into(), Access::RemoteRead).is_err() {
            return Err(Reject::Fatal(NakCode::RemoteAccessError));
        }
        let psn = packet.psn();
        let npkts = packets_for(dma_len.into(), self.cfg.pmtu.bytes());
        // The MSN counts the READ when it is received (C9-148, as rxe cites it).
        self.bump_msn();
        let responses = self.read_responses(psn, va, dma_len, mem).map_err(|_| {
            // The key check passed but the memory faulted: operational error (class A).
            Reject::Fatal(NakCode::RemoteOperationalError)
        })?;
        self.remember(Resource::Read { first_psn: psn, last_psn: psn.add(npkts - 1), va, rkey, len: dma_len });
        self.epsn = psn.add(npkts);
        self.ack_pending = false;
        Ok(responses)
    }

    /// READ response packets for `len` bytes at `va`, from PSN `psn`:
    /// ONLY, or FIRST, MIDDLE..., LAST; the AETH (with the current MSN) on
    /// FIRST, LAST and ONLY only (IBTA's opcode table; rxe_opcode.c).
    fn read_responses(&self, psn: Psn, va: u64, len: u32, mem: &dyn Memory) -> Result<Vec<RcPacket>, super::MemFault> {
        let pmtu = self.cfg.pmtu.bytes();
        let npkts = packets_for(len.into(), pmtu);
        let aeth = Aeth::new(AethKind::Ack(AckCredit::UNLIMITED), self.msn);
        let mut out = Vec::with_capacity(npkts as usize);
        for k in 0..npkts {
            let start = k as u64 * pmtu as u64;
            let chunk = (u64::from(len) - start).min(pmtu as u64) as usize;
            let mut data = vec![0u8; chunk];
            if chunk > 0 {
                mem.read(va.wrapping_add(start), &mut data)?;
            }
            let (opcode, ext) = match (npkts, k) {
                (1, _) => (Opcode::RcReadResponseOnly, ExtHeaders::Aeth(aeth)),
                (_, 0) => (Opcode::RcReadResponseFirst, ExtHeaders::Aeth(aeth)),
                (n, k) if k + 1 == n => (Opcode::RcReadResponseLast, ExtHeaders::Aeth(aeth)),
                _ => (Opcode::RcReadResponseMiddle, ExtHeaders::Bare),
            };
            out.push(RcPacket::new(opcode, self.cfg.dest_qp, psn.add(k), false, ext, data));
        }
        Ok(out)
    }

    fn execute_atomic(&mut self, packet: &RcPacket, mem: &mut dyn Memory) -> Result<Vec<RcPacket>, Reject> {
        let Some(eth) = packet.ext.atomic_eth().copied() else {
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        };
        // Atomics need a naturally aligned VA (rxe MISALIGNED_ATOMIC: invalid request).
        if !eth.va.is_multiple_of(u64::from(ATOMIC_LEN)) || self.cfg.max_dest_rd_atomic == 0 {
            return Err(Reject::Fatal(NakCode::InvalidRequest));
        }
        if mem.check(self.cfg.pd, eth.rkey, eth.va, ATOMIC_LEN.into(), Access::RemoteAtomic).is_err() {
            return Err(Reject::Fatal(NakCode::RemoteAccessError));
        }
        let mut word = [0u8; ATOMIC_LEN as usize];
        if mem.read(eth.va, &mut word).is_err() {
            return Err(Reject::Fatal(NakCode::RemoteOperationalError));
        }
        let orig = u64::from_le_bytes(word);
        let new = atomic_new_value(packet.opcode() == Opcode::RcFetchAdd, orig, eth.compare, eth.swap_add);
        if new != orig && mem.write(eth.va, &new.to_le_bytes()).is_err() {
            return Err(Reject::Fatal(NakCode::RemoteOperationalError));
        }
        let psn = packet.psn();
        self.bump_msn();
        self.remember(Resource::Atomic { psn, orig });
        self.epsn = psn.next();
        self.ack_pending = false;
        Ok(vec![self.atomic_ack(psn, orig)])
    }

    fn atomic_ack(&self, psn: Psn, orig: u64) -> RcPacket {
        RcPacket::new(
            Opcode::RcAtomicAck,
            self.cfg.dest_qp,
            psn,
            false,
            ExtHeaders::AethAtomicAckEth(
                Aeth::new(AethKind::Ack(AckCredit::UNLIMITED), self.msn),
                AtomicAckEth { orig_remote_data: orig },
            ),
            Vec::new(),
        )
    }

    /// A request behind the expected PSN (issue 12 item 2).
    fn duplicate(&mut self, packet: &RcPacket, mem: &mut dyn Memory) -> Vec<RcPacket> {
        use Opcode::*;
        let psn = packet.psn();
        match packet.opcode() {
            // SEND/WRITE: acknowledge again, never execute again (C9-105):
            // the ACK names the last PSN executed.
            RcSendFirst | RcSendMiddle | RcSendLast | RcSendLastImm | RcSendOnly | RcSendOnlyImm | RcWriteFirst
            | RcWriteMiddle | RcWriteLast | RcWriteLastImm | RcWriteOnly | RcWriteOnlyImm => {
                vec![self.ack(AethKind::Ack(AckCredit::UNLIMITED), self.epsn.sub(1))]
            }
            RcReadRequest => {
                let Some(&Reth { va, rkey, dma_len }) = packet.ext.reth() else {
                    self.counters.dropped += 1;
                    return Vec::new();
                };
                let pmtu = self.cfg.pmtu.bytes() as u64;
                let found = self.resources.iter().find_map(|r| match *r {
                    Resource::Read { first_psn, last_psn, va: orig_va, rkey: orig_rkey, len } => {
                        let k = first_psn.distance_to(psn);
                        (k <= first_psn.distance_to(last_psn)).then_some((k, orig_va, orig_rkey, len))
                    }
                    Resource::Atomic { .. } => None,
                });
                // Re-executed only inside the original range, with the same
                // rkey, and after checking the key again (rxe `duplicate_request`).
                let inside = found.is_some_and(|(k, orig_va, orig_rkey, len)| {
                    let skip = u64::from(k) * pmtu;
                    rkey == orig_rkey
                        && skip <= u64::from(len)
                        && va == orig_va.wrapping_add(skip)
                        && u64::from(dma_len) == u64::from(len) - skip
                });
                if !inside {
                    self.counters.dropped += 1;
                    return Vec::new();
                }
                if dma_len > 0 && mem.check(self.cfg.pd, rkey, va, dma_len.into(), Access::RemoteRead).is_err() {
                    self.counters.error_naks += 1;
                    let nak = self.ack(AethKind::Nak(NakCode::RemoteAccessError), psn);
                    self.enter_error();
                    return vec![nak];
                }
                match self.read_responses(psn, va, dma_len, mem) {
                    Ok(responses) => {
                        self.counters.read_replays += 1;
                        responses
                    }
                    Err(_) => {
                        self.counters.dropped += 1;
                        Vec::new()
                    }
                }
            }
            RcCompareSwap | RcFetchAdd => {
                let orig = self.resources.iter().find_map(|r| match *r {
                    Resource::Atomic { psn: p, orig } if p == psn => Some(orig),
                    _ => None,
                });
                match orig {
                    Some(orig) => {
                        self.counters.atomic_replays += 1;
                        vec![self.atomic_ack(psn, orig)]
                    }
                    None => {
                        self.counters.dropped += 1;
                        Vec::new()
                    }
                }
            }
            _ => {
                self.counters.dropped += 1;
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::{AtomicEth, ImmDt};
    use crate::rc::{KeyError, MemFault};

    /// Memory granting every key, reading zeros, dropping writes.
    struct Open;
    impl Memory for Open {
        fn check(&self, _: u32, _: u32, _: u64, _: u64, _: Access) -> Result<(), KeyError> {
            Ok(())
        }
        fn read(&self, _: u64, out: &mut [u8]) -> Result<(), MemFault> {
            out.fill(0);
            Ok(())
        }
        fn write(&mut self, _: u64, _: &[u8]) -> Result<(), MemFault> {
            Ok(())
        }
    }

    #[test]
    fn state_shows_what_the_packets_left() {
        let cfg = ResponderConfig {
            dest_qp: 7,
            pmtu: Pmtu::Mtu256,
            start_psn: Psn::new(0xFF_FFFF),
            max_dest_rd_atomic: 4,
            min_rnr_timer: RnrTimer::new(3).unwrap(),
            pd: 1,
            max_recv_sge: 4,
            access: QpAccess::ALL,
        };
        let mut r = Responder::new(cfg);
        let s = r.state();
        assert_eq!((s.epsn, s.msn, s.nak_sent, s.ack_pending), (Psn::new(0xFF_FFFF), 0, false, false));
        assert_eq!((s.in_progress, s.recv_placed, s.error), (MessageInProgress::None, None, false));
        r.post_recv(RecvWqe { wr_id: 1, sges: vec![Sge { addr: 0, len: 4096, lkey: 1 }] });
        let pkt = |op, psn, ext, len| RcPacket::new(op, 7, Psn::new(psn), false, ext, vec![0; len]);
        r.receive(&pkt(Opcode::RcSendFirst, 0xFF_FFFF, ExtHeaders::Bare, 256), &mut Open);
        let s = r.state();
        assert_eq!((s.epsn, s.in_progress, s.recv_placed), (Psn::new(0), MessageInProgress::Send, Some(256)));
        assert!(s.ack_pending);
        r.receive(&pkt(Opcode::RcSendLastImm, 0, ExtHeaders::ImmDt(ImmDt { value: 9 }), 10), &mut Open);
        let reth = Reth { va: 0x1000, rkey: 5, dma_len: 300 };
        r.receive(&pkt(Opcode::RcWriteFirst, 1, ExtHeaders::Reth(reth), 256), &mut Open);
        let s = r.state();
        assert_eq!((s.msn, s.in_progress, s.recv_placed), (1, MessageInProgress::Write, None));
        assert_eq!((s.write_va, s.write_rkey, s.write_remaining, s.write_len), (0x1100, 5, 44, 300));
        r.receive(&pkt(Opcode::RcSendFirst, 9, ExtHeaders::Bare, 256), &mut Open);
        assert!(r.state().nak_sent);
        r.receive(&pkt(Opcode::RcSendOnly, 2, ExtHeaders::Bare, 0), &mut Open);
        assert!(r.state().error);
    }

    /// Memory granting every key, holding what is written (8-byte words).
    #[derive(Default)]
    struct Words(std::collections::HashMap<u64, u8>);
    impl Memory for Words {
        fn check(&self, _: u32, _: u32, _: u64, _: u64, _: Access) -> Result<(), KeyError> {
            Ok(())
        }
        fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
            for (i, b) in out.iter_mut().enumerate() {
                *b = self.0.get(&(addr + i as u64)).copied().unwrap_or(0);
            }
            Ok(())
        }
        fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
            for (i, &b) in data.iter().enumerate() {
                self.0.insert(addr + i as u64, b);
            }
            Ok(())
        }
    }

    #[test]
    fn resources_keep_the_newest_and_answer_duplicates() {
        let cfg = ResponderConfig {
            dest_qp: 7,
            pmtu: Pmtu::Mtu256,
            start_psn: Psn::new(0xFF_FFFE),
            max_dest_rd_atomic: 4,
            min_rnr_timer: RnrTimer::new(3).unwrap(),
            pd: 1,
            max_recv_sge: 4,
            access: QpAccess::ALL,
        };
        let mut r = Responder::new(cfg);
        let mut mem = Words::default();
        let read = |psn: u32, va: u64, len: u32| {
            let reth = Reth { va, rkey: 5, dma_len: len };
            RcPacket::new(Opcode::RcReadRequest, 7, Psn::new(psn), true, ExtHeaders::Reth(reth), Vec::new())
        };
        // Five READs of 2 packets each from PSN 0xFF_FFFE: PSNs wrap past 2^24.
        let mut psn = 0xFF_FFFE;
        for i in 0..5u64 {
            assert_eq!(r.receive(&read(psn, 0x1000 * (i + 1), 512), &mut mem).len(), 2);
            psn = (psn + 2) & 0xFF_FFFF;
        }
        let kept: Vec<Resource> = r.resources().collect();
        assert_eq!(kept.len(), 4, "max_dest_rd_atomic bounds the list");
        assert_eq!(
            kept[0],
            Resource::Read { first_psn: Psn::new(0), last_psn: Psn::new(1), va: 0x2000, rkey: 5, len: 512 },
            "the oldest was recycled; the list is oldest first"
        );
        let before = r.counters();
        // The first READ was recycled: its duplicate is dropped silently.
        assert!(r.receive(&read(0xFF_FFFE, 0x1000, 512), &mut mem).is_empty());
        assert_eq!(r.counters().dropped, before.dropped + 1);
        // The second one's second packet is replayed from its PSN.
        let replay = r.receive(&read(1, 0x2100, 256), &mut mem);
        assert_eq!(replay.len(), 1);
        assert_eq!(replay[0].psn(), Psn::new(1));
        assert_eq!(r.counters().read_replays, before.read_replays + 1);
        // An atomic's duplicate answers the saved value, though the word has changed since.
        let fadd = |psn: u32| {
            let eth = AtomicEth { va: 0x8000, rkey: 5, swap_add: 3, compare: 0 };
            RcPacket::new(Opcode::RcFetchAdd, 7, Psn::new(psn), true, ExtHeaders::AtomicEth(eth), Vec::new())
        };
        mem.write(0x8000, &40u64.to_le_bytes()).unwrap();
        let orig_of = |p: &[RcPacket]| p[0].ext.atomic_ack_eth().map(|a| a.orig_remote_data);
        assert_eq!(orig_of(&r.receive(&fadd(psn), &mut mem)), Some(40));
        assert_eq!(orig_of(&r.receive(&fadd(psn + 1), &mut mem)), Some(43));
        assert_eq!(r.resources().last(), Some(Resource::Atomic { psn: Psn::new(psn + 1), orig: 43 }));
        assert_eq!(orig_of(&r.receive(&fadd(psn), &mut mem)), Some(40), "the saved value, not the word's");
        let mut word = [0; 8];
        mem.read(0x8000, &mut word).unwrap();
        assert_eq!(u64::from_le_bytes(word), 46, "a duplicate atomic is not executed again");
        assert_eq!(r.counters().atomic_replays, before.atomic_replays + 1);
    }
}
