//! The completer: ACKs, NAKs, READ responses and atomic ACKs against the
//! outstanding WQEs (IBTA vol. 1 ch. 9, reliable service and error handling), producing completions.
//!
//! It shares the send queue with the requester (methods on
//! [`Requester`]): the hardware splits the two blocks the same way, the
//! completer owning the oldest unacknowledged PSN and the requester the
//! next PSN and the send cursor.

use crate::aeth::{AethKind, NakCode, RnrTimer};
use crate::opcode::{Opcode, Position};
use crate::psn::Psn;

use super::requester::{Requester, SendOp};
use super::{scatter, Memory, RcPacket, WcStatus, ATOMIC_LEN};

/// What happened to a response, and what the caller must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompleterAction {
    /// Nothing more to do (processed, or dropped and counted).
    None,
    /// Go-back-N was started from this PSN (PSN sequence error NAK, or an
    /// implied NAK); the requester's next packets are the resend.
    Resent(Psn),
    /// RNR NAK: resend from `psn` (with [`Requester::resend_from`]) after
    /// the timer; the RNR retry count is issue 12's.
    RnrWait {
        /// First PSN to resend.
        psn: Psn,
        /// The responder's `min_rnr_timer`.
        timer: RnrTimer,
    },
}

impl Requester {
    /// True if `psn` was sent and is not yet acknowledged.
    fn is_outstanding(&self, psn: Psn) -> bool {
        self.una.distance_to(psn) < self.una.distance_to(self.sent_end)
    }

    /// UNA moved: the damping ends, the retries are restored, an RNR wait ends.
    fn progress(&mut self) {
        self.comp.retry_psn = None;
        self.comp.retries_left = self.cfg.retry_cnt;
        self.comp.rnr_left = self.cfg.rnr_retry;
        self.comp.rnr_wait = false;
    }

    /// Acknowledges every PSN up to and including `psn` (a coalesced ACK,
    /// IBTA ch. 9): completes the SEND/WRITE WQEs it covers.
    /// Reaching a READ or atomic whose responses have not all arrived is an
    /// implied NAK (IBTA ch. 9; rxe `check_psn` in rxe_comp.c): `Err(oldest unacknowledged PSN)`.
    fn ack_through(&mut self, psn: Psn) -> Result<(), Psn> {
        loop {
            if psn.is_before(self.una) {
                return Ok(());
            }
            let Some(slot) = self.slots.front() else {
                return Ok(());
            };
            let (Some(first), Some(last)) = (slot.first_psn, slot.last_psn()) else {
                return Ok(());
            };
            if first.is_after(psn) {
                return Ok(());
            }
            if slot.wqe.op.is_rd_atomic() {
                self.counters.implied_naks += 1;
                return Err(self.una);
            }
            if last.is_after(psn) {
                self.una = psn.next();
                self.progress();
                return Ok(());
            }
            self.complete_head(WcStatus::Success);
            self.progress();
        }
    }

    /// Starts go-back-N from `psn` unless a resend from the same PSN is
    /// already under way without progress since (rxe's `started_retry`).
    fn resend_once(&mut self, psn: Psn) -> CompleterAction {
        if self.comp.retry_psn == Some(psn) {
            return CompleterAction::None;
        }
        if self.resend_from(psn) {
            self.comp.retry_psn = Some(psn);
            CompleterAction::Resent(psn)
        } else {
            CompleterAction::None
        }
    }

    /// Processes one response packet (ACK/NAK, READ response, atomic ACK)
    /// addressed to this QP. READ data and atomic results are written to
    /// the local SGEs through `mem`. Responses for PSNs not outstanding are
    /// ghosts or duplicates and are dropped (counted).
    pub fn on_response(&mut self, packet: &RcPacket, mem: &mut dyn Memory) -> CompleterAction {
        if self.error {
            return CompleterAction::None;
        }
        let psn = packet.psn();
        if !self.is_outstanding(psn) {
            self.counters.ghost_responses += 1;
            return CompleterAction::None;
        }
        let Some(aeth) = packet.ext.aeth().copied() else {
            return self.on_read_response(packet, None, mem);
        };
        match packet.opcode() {
            Opcode::RcAck => match aeth.kind() {
                AethKind::Ack(_) => match self.ack_through(psn) {
                    Ok(()) => CompleterAction::None,
                    Err(from) => self.resend_once(from),
                },
                AethKind::RnrNak(timer) => {
                    self.counters.rnr_naks += 1;
                    let at_una = psn == self.una;
                    match self.ack_through(psn.sub(1)) {
                        // an RNR NAK at UNA with the RNR retries spent fails the QP
                        Ok(()) if at_una && self.comp.rnr_left == 0 => {
                            self.fail(WcStatus::RnrRetryExcErr);
                            CompleterAction::None
                        }
                        Ok(()) => {
                            if self.comp.rnr_left != 7 {
                                self.comp.rnr_left = self.comp.rnr_left.saturating_sub(1);
                            }
                            self.comp.rnr_wait = true;
                            // the wait ends in a resend from UNA: a READ in progress is superseded
                            self.comp.in_read_response = false;
                            CompleterAction::RnrWait { psn, timer }
                        }
                        Err(from) => self.resend_once(from),
                    }
                }
                AethKind::Nak(NakCode::PsnSequenceError) => {
                    // The NAK names the PSN the responder expects: every
                    // earlier PSN is implicitly acknowledged (rxe_comp.c).
                    self.counters.seq_naks += 1;
                    let from = self.ack_through(psn.sub(1)).err().unwrap_or(psn);
                    self.resend_once(from)
                }
                AethKind::Nak(code) => {
                    // Class C/A errors (IBTA's error classes): the WQE holding the
                    // NAK'd PSN fails, the QP goes to the error state.
                    let _ = self.ack_through(psn.sub(1));
                    let status = match code {
                        NakCode::InvalidRequest => WcStatus::RemInvReqErr,
                        NakCode::RemoteAccessError => WcStatus::RemAccessErr,
                        _ => WcStatus::RemOpErr,
                    };
                    self.fail(status);
                    CompleterAction::None
                }
                AethKind::Reserved(_) => {
                    self.counters.ghost_responses += 1;
                    CompleterAction::None
                }
            },
            Opcode::RcAtomicAck => self.on_atomic_ack(packet, mem),
            _ => self.on_read_response(packet, Some(aeth.kind()), mem),
        }
    }

    /// Common start of READ response / atomic ACK processing: the response
    /// implicitly acknowledges every earlier request, and must be
    /// the oldest unacknowledged PSN (otherwise responses were lost: an
    /// implied NAK, resend from the oldest unacknowledged PSN).
    fn response_in_order(&mut self, psn: Psn) -> Result<(), CompleterAction> {
        if let Err(from) = self.ack_through(psn.sub(1)) {
            return Err(self.resend_once(from));
        }
        if psn != self.una {
            self.counters.implied_naks += 1;
            let una = self.una;
            return Err(self.resend_once(una));
        }
        Ok(())
    }

    fn on_read_response(&mut self, packet: &RcPacket, aeth: Option<AethKind>, mem: &mut dyn Memory) -> CompleterAction {
        let psn = packet.psn();
        let Some(position) = packet.opcode().position() else {
            return CompleterAction::None;
        };
        if let Err(action) = self.response_in_order(psn) {
            return action;
        }
        let pmtu = self.cfg.pmtu.bytes() as u64;
        let pd = self.cfg.pd;
        let Some(slot) = self.slots.front() else {
            return CompleterAction::None;
        };
        let (SendOp::Read { len, local, .. }, Some(first)) = (&slot.wqe.op, slot.first_psn) else {
            // A READ response for a WQE that is not a READ (rxe: bad response).
            self.fail(WcStatus::BadRespErr);
            return CompleterAction::None;
        };
        let expected_start = !self.comp.in_read_response;
        let starts = matches!(position, Position::First | Position::Only);
        if starts != expected_start {
            // A response of a message superseded by a resend: drop it; the
            // resent READ's response follows.
            self.counters.stale_read_responses += 1;
            return CompleterAction::None;
        }
        let offset = u64::from(first.distance_to(psn)) * pmtu;
        let remaining = u64::from(*len).saturating_sub(offset);
        let payload_len = packet.payload.len() as u64;
        let length_ok = match position {
            Position::First | Position::Middle => payload_len == pmtu && remaining > pmtu,
            Position::Last | Position::Only => payload_len == remaining,
        };
        let aeth_ok = match position {
            Position::Middle => aeth.is_none(),
            _ => matches!(aeth, Some(AethKind::Ack(_))),
        };
        if !length_ok || !aeth_ok {
            self.fail(WcStatus::BadRespErr);
            return CompleterAction::None;
        }
        let local = local.clone();
        if scatter(mem, pd, &local, offset, &packet.payload).is_err() {
            self.fail(WcStatus::LocProtErr);
            return CompleterAction::None;
        }
        self.una = psn.next();
        self.progress();
        self.comp.in_read_response = matches!(position, Position::First | Position::Middle);
        if !self.comp.in_read_response {
            self.complete_head(WcStatus::Success);
        }
        CompleterAction::None
    }

    fn on_atomic_ack(&mut self, packet: &RcPacket, mem: &mut dyn Memory) -> CompleterAction {
        let psn = packet.psn();
        if let Err(action) = self.response_in_order(psn) {
            return action;
        }
        let pd = self.cfg.pd;
        let local = match self.slots.front().map(|s| &s.wqe.op) {
            Some(SendOp::CmpSwap { local, .. } | SendOp::FetchAdd { local, .. }) => *local,
            _ => {
                self.fail(WcStatus::BadRespErr);
                return CompleterAction::None;
            }
        };
        let (Some(aeth), Some(ack)) = (packet.ext.aeth(), packet.ext.atomic_ack_eth()) else {
            return CompleterAction::None;
        };
        if !matches!(aeth.kind(), AethKind::Ack(_)) {
            self.fail(WcStatus::BadRespErr);
            return CompleterAction::None;
        }
        debug_assert_eq!(local.len, ATOMIC_LEN);
        if scatter(mem, pd, &[local], 0, &ack.orig_remote_data.to_le_bytes()).is_err() {
            self.fail(WcStatus::LocProtErr);
            return CompleterAction::None;
        }
        self.una = psn.next();
        self.progress();
        self.complete_head(WcStatus::Success);
        CompleterAction::None
    }
}
