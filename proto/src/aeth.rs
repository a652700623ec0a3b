//! ACK Extended Transport Header and the meaning of its syndrome.
//!
//! Syndrome byte: bit 7 reserved (0), bits 6:5 the kind (ACK, RNR NAK,
//! reserved, NAK), bits 4:0 a kind-specific value (credit code, RNR timer
//! code, NAK code).

use std::fmt;

use crate::bytes::{be_u24, check_bits, put_u24, require};
use crate::error::{DecodeError, EncodeError, Layer};

/// The AETH as carried: syndrome and 24-bit message sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Aeth {
    /// Syndrome byte; see [`Aeth::kind`] for its meaning.
    pub syndrome: u8,
    /// Message sequence number, 24 bits: messages the responder has completed.
    pub msn: u32,
}

/// End-to-end flow-control credit code of an ACK (5 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AckCredit(u8);

/// RNR NAK timer code (5 bits): how long the requester waits before retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RnrTimer(u8);

/// NAK codes (syndrome 0x60 | code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NakCode {
    /// 0: PSN sequence error; the AETH PSN is the one the responder expects.
    PsnSequenceError,
    /// 1: invalid request.
    InvalidRequest,
    /// 2: remote access error (R_Key or bounds violation).
    RemoteAccessError,
    /// 3: remote operational error.
    RemoteOperationalError,
    /// 4: invalid RD request (Reliable Datagram only).
    InvalidRdRequest,
    /// 5..=31: reserved codes, kept so nothing is lost.
    Reserved(u8),
}

/// What a syndrome means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AethKind {
    /// Positive acknowledgement carrying a credit code.
    Ack(AckCredit),
    /// Receiver not ready: no receive WQE; retry after the timer.
    RnrNak(RnrTimer),
    /// Negative acknowledgement.
    Nak(NakCode),
    /// Syndrome with bit 7 set or kind 0b10: reserved.
    Reserved(u8),
}

/// Credits for codes 0..=30 (IBTA; rdmavt `credit_table`).
const CREDITS_BY_CODE: [u32; 31] = [
    0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144,
    8192, 12288, 16384, 24576, 32768,
];

/// RNR timer in microseconds for codes 0..=31: the contract's table (the
/// retry timer's RTL is built from the same one).
use rnic_contract::codes::RNR_TIMER_MICROS;

impl AckCredit {
    /// Code 0x1F: credits are not tracked (rxe always sends this).
    pub const UNLIMITED: AckCredit = AckCredit(0x1F);

    /// The credit code, if it fits 5 bits.
    pub const fn new(code: u8) -> Option<AckCredit> {
        if code <= 0x1F {
            Some(AckCredit(code))
        } else {
            None
        }
    }

    /// The 5-bit code.
    pub const fn code(self) -> u8 {
        self.0
    }

    /// Receive credits granted, or `None` for code 0x1F (unlimited).
    pub fn count(self) -> Option<u32> {
        CREDITS_BY_CODE.get(usize::from(self.0)).copied()
    }
}

impl RnrTimer {
    /// The timer code, if it fits 5 bits.
    pub const fn new(code: u8) -> Option<RnrTimer> {
        if code <= 0x1F {
            Some(RnrTimer(code))
        } else {
            None
        }
    }

    /// The 5-bit code.
    pub const fn code(self) -> u8 {
        self.0
    }

    /// Delay before retry, in microseconds.
    pub fn micros(self) -> u32 {
        RNR_TIMER_MICROS[usize::from(self.0 & 0x1F)]
    }
}

impl NakCode {
    /// From the 5-bit code.
    pub const fn from_code(code: u8) -> NakCode {
        match code & 0x1F {
            0 => NakCode::PsnSequenceError,
            1 => NakCode::InvalidRequest,
            2 => NakCode::RemoteAccessError,
            3 => NakCode::RemoteOperationalError,
            4 => NakCode::InvalidRdRequest,
            other => NakCode::Reserved(other),
        }
    }

    /// The 5-bit code.
    pub const fn code(self) -> u8 {
        match self {
            NakCode::PsnSequenceError => 0,
            NakCode::InvalidRequest => 1,
            NakCode::RemoteAccessError => 2,
            NakCode::RemoteOperationalError => 3,
            NakCode::InvalidRdRequest => 4,
            NakCode::Reserved(code) => code & 0x1F,
        }
    }
}

impl AethKind {
    const ACK: u8 = 0x00;
    const RNR_NAK: u8 = 0x20;
    const NAK: u8 = 0x60;

    /// Meaning of a syndrome byte.
    pub const fn from_syndrome(syndrome: u8) -> AethKind {
        let value = syndrome & 0x1F;
        match syndrome & 0xE0 {
            Self::ACK => AethKind::Ack(AckCredit(value)),
            Self::RNR_NAK => AethKind::RnrNak(RnrTimer(value)),
            Self::NAK => AethKind::Nak(NakCode::from_code(value)),
            _ => AethKind::Reserved(syndrome),
        }
    }

    /// The syndrome byte for this meaning.
    pub const fn syndrome(self) -> u8 {
        match self {
            AethKind::Ack(credit) => Self::ACK | credit.0,
            AethKind::RnrNak(timer) => Self::RNR_NAK | timer.0,
            AethKind::Nak(code) => Self::NAK | code.code(),
            AethKind::Reserved(syndrome) => syndrome,
        }
    }
}

impl Aeth {
    /// Header length.
    pub const LEN: usize = 4;

    /// An AETH with the given meaning and MSN.
    pub const fn new(kind: AethKind, msn: u32) -> Aeth {
        Aeth { syndrome: kind.syndrome(), msn }
    }

    /// What the syndrome means.
    pub const fn kind(&self) -> AethKind {
        AethKind::from_syndrome(self.syndrome)
    }

    /// Decodes the header at the start of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        require(bytes, Self::LEN, Layer::ExtHeaders(crate::opcode::HeaderLayout::Aeth))?;
        Ok(Aeth { syndrome: bytes[0], msn: be_u24(bytes, 1) })
    }

    /// Appends the header as stored.
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        check_bits("aeth.msn", self.msn.into(), 24)?;
        out.push(self.syndrome);
        put_u24(out, self.msn);
        Ok(())
    }
}

impl fmt::Display for AethKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AethKind::Ack(credit) => match credit.count() {
                Some(count) => write!(f, "ACK ({count} credits)"),
                None => f.write_str("ACK (unlimited credits)"),
            },
            AethKind::RnrNak(timer) => write!(f, "RNR NAK ({} us)", timer.micros()),
            AethKind::Nak(code) => write!(f, "NAK {code:?}"),
            AethKind::Reserved(syndrome) => write!(f, "reserved syndrome 0x{syndrome:02x}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rxe_ack_is_unlimited_credit() {
        let aeth = Aeth { syndrome: 0x1F, msn: 1 };
        assert_eq!(aeth.kind(), AethKind::Ack(AckCredit::UNLIMITED));
        assert_eq!(AckCredit::UNLIMITED.count(), None);
    }

    #[test]
    fn credit_codes() {
        let count = |code| AckCredit::new(code).unwrap().count();
        assert_eq!(count(0), Some(0));
        assert_eq!(count(5), Some(6));
        assert_eq!(count(0x0A), Some(32));
        assert_eq!(count(0x1E), Some(32768));
        assert_eq!(AckCredit::new(0x20), None);
    }

    #[test]
    fn naks_decode_by_code() {
        let kind = |syndrome| AethKind::from_syndrome(syndrome);
        assert_eq!(kind(0x60), AethKind::Nak(NakCode::PsnSequenceError));
        assert_eq!(kind(0x61), AethKind::Nak(NakCode::InvalidRequest));
        assert_eq!(kind(0x62), AethKind::Nak(NakCode::RemoteAccessError));
        assert_eq!(kind(0x63), AethKind::Nak(NakCode::RemoteOperationalError));
        assert_eq!(kind(0x64), AethKind::Nak(NakCode::InvalidRdRequest));
        assert_eq!(kind(0x65), AethKind::Nak(NakCode::Reserved(5)));
        assert_eq!(kind(0x7F), AethKind::Nak(NakCode::Reserved(31)));
    }

    #[test]
    fn rnr_nak_carries_the_timer() {
        let kind = AethKind::from_syndrome(0x20 | 12);
        assert_eq!(kind, AethKind::RnrNak(RnrTimer::new(12).unwrap()));
        let AethKind::RnrNak(timer) = kind else { unreachable!() };
        assert_eq!(timer.micros(), 640); // ibv_rc_pingpong's min_rnr_timer 12 = 0.64 ms
        assert_eq!(RnrTimer::new(0).unwrap().micros(), 655_360);
        assert_eq!(RnrTimer::new(25).unwrap().micros(), 61_440); // not rxe's 61410 typo
        assert_eq!(RnrTimer::new(31).unwrap().micros(), 491_520);
    }

    #[test]
    fn reserved_syndromes() {
        for syndrome in [0x40u8, 0x5F, 0x80, 0x9F, 0xE0, 0xFF] {
            assert_eq!(AethKind::from_syndrome(syndrome), AethKind::Reserved(syndrome));
        }
    }

    #[test]
    fn every_syndrome_round_trips_through_its_kind() {
        for syndrome in 0..=255u8 {
            assert_eq!(AethKind::from_syndrome(syndrome).syndrome(), syndrome);
        }
    }

    #[test]
    fn wire_format() {
        let aeth = Aeth::new(AethKind::Nak(NakCode::PsnSequenceError), 0x12_3456);
        let mut out = Vec::new();
        aeth.encode_into(&mut out).unwrap();
        assert_eq!(out, [0x60, 0x12, 0x34, 0x56]);
        assert_eq!(Aeth::decode(&out).unwrap(), aeth);
        assert!(Aeth { syndrome: 0, msn: 1 << 24 }.encode_into(&mut out).is_err());
    }
}
