//! BTH opcodes: which extended headers follow the BTH, whether a payload
//! follows, and the per-packet payload-length rules of segmentation.

use std::fmt;

use crate::error::DecodeError;

/// Transport service, the top 3 bits of the opcode (CNP is RoCEv2's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Reliable Connected (0x00-0x1F).
    Rc,
    /// Unreliable Connected (0x20-0x3F).
    Uc,
    /// Unreliable Datagram (0x60-0x7F).
    Ud,
    /// Congestion Notification Packet (0x80-0x9F; only 0x81 is defined).
    Cnp,
}

/// Which extended headers follow the BTH, in wire order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeaderLayout {
    /// BTH only.
    Bare,
    /// ImmDt.
    ImmDt,
    /// RETH.
    Reth,
    /// RETH, ImmDt.
    RethImmDt,
    /// AETH.
    Aeth,
    /// AETH, AtomicAckETH.
    AethAtomicAckEth,
    /// AtomicETH.
    AtomicEth,
    /// IETH.
    Ieth,
    /// DETH.
    Deth,
    /// DETH, ImmDt.
    DethImmDt,
    /// The 16 reserved bytes of a CNP.
    CnpReserved,
}

impl HeaderLayout {
    /// Bytes of extended headers (excluding the 12-byte BTH).
    pub const fn len(self) -> usize {
        match self {
            HeaderLayout::Bare => 0,
            HeaderLayout::ImmDt | HeaderLayout::Aeth | HeaderLayout::Ieth => 4,
            HeaderLayout::Deth => 8,
            HeaderLayout::DethImmDt | HeaderLayout::AethAtomicAckEth => 12,
            HeaderLayout::Reth | HeaderLayout::CnpReserved => 16,
            HeaderLayout::RethImmDt => 20,
            HeaderLayout::AtomicEth => 28,
        }
    }

    /// True for [`HeaderLayout::Bare`].
    pub const fn is_empty(self) -> bool {
        matches!(self, HeaderLayout::Bare)
    }
}

/// Where a packet sits in a multi-packet message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Position {
    /// First of several; payload exactly PMTU.
    First,
    /// Neither first nor last; payload exactly PMTU.
    Middle,
    /// Last of several; payload 1..=PMTU.
    Last,
    /// The whole message; payload 0..=PMTU.
    Only,
}

/// Whether an opcode carries payload, and if so its segment position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadRule {
    /// No payload: ACK, READ request, atomics, atomic ACK, CNP.
    None,
    /// Payload of a message segment at this position.
    Segment(Position),
}

macro_rules! opcodes {
    ($( $variant:ident = $value:literal, $name:literal, $transport:ident, $layout:ident, $rule:expr; )*) => {
        /// A BTH opcode modelled by this crate (RC, UC, UD and CNP).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode {
            $(
                #[doc = $name]
                $variant = $value,
            )*
        }

        impl Opcode {
            /// Every modelled opcode, in numeric order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),*];

            /// The opcode with this value, if modelled.
            pub const fn from_u8(value: u8) -> Option<Opcode> {
                match value {
                    $($value => Some(Opcode::$variant),)*
                    _ => None,
                }
            }

            /// IBTA-style name, e.g. `RC_SEND_FIRST`.
            pub const fn name(self) -> &'static str {
                match self { $(Opcode::$variant => $name,)* }
            }

            /// Transport service.
            pub const fn transport(self) -> Transport {
                match self { $(Opcode::$variant => Transport::$transport,)* }
            }

            /// Extended headers that follow the BTH.
            pub const fn layout(self) -> HeaderLayout {
                match self { $(Opcode::$variant => HeaderLayout::$layout,)* }
            }

            /// Whether a payload follows the headers, and its position.
            pub const fn payload_rule(self) -> PayloadRule {
                match self { $(Opcode::$variant => $rule,)* }
            }
        }
    };
}

use PayloadRule::{None as NoPayload, Segment};
use Position::{First, Last, Middle, Only};

opcodes! {
    RcSendFirst = 0x00, "RC_SEND_FIRST", Rc, Bare, Segment(First);
    RcSendMiddle = 0x01, "RC_SEND_MIDDLE", Rc, Bare, Segment(Middle);
    RcSendLast = 0x02, "RC_SEND_LAST", Rc, Bare, Segment(Last);
    RcSendLastImm = 0x03, "RC_SEND_LAST_WITH_IMMEDIATE", Rc, ImmDt, Segment(Last);
    RcSendOnly = 0x04, "RC_SEND_ONLY", Rc, Bare, Segment(Only);
    RcSendOnlyImm = 0x05, "RC_SEND_ONLY_WITH_IMMEDIATE", Rc, ImmDt, Segment(Only);
    RcWriteFirst = 0x06, "RC_RDMA_WRITE_FIRST", Rc, Reth, Segment(First);
    RcWriteMiddle = 0x07, "RC_RDMA_WRITE_MIDDLE", Rc, Bare, Segment(Middle);
    RcWriteLast = 0x08, "RC_RDMA_WRITE_LAST", Rc, Bare, Segment(Last);
    RcWriteLastImm = 0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", Rc, ImmDt, Segment(Last);
    RcWriteOnly = 0x0A, "RC_RDMA_WRITE_ONLY", Rc, Reth, Segment(Only);
    RcWriteOnlyImm = 0x0B, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", Rc, RethImmDt, Segment(Only);
    RcReadRequest = 0x0C, "RC_RDMA_READ_REQUEST", Rc, Reth, NoPayload;
    RcReadResponseFirst = 0x0D, "RC_RDMA_READ_RESPONSE_FIRST", Rc, Aeth, Segment(First);
    RcReadResponseMiddle = 0x0E, "RC_RDMA_READ_RESPONSE_MIDDLE", Rc, Bare, Segment(Middle);
    RcReadResponseLast = 0x0F, "RC_RDMA_READ_RESPONSE_LAST", Rc, Aeth, Segment(Last);
    RcReadResponseOnly = 0x10, "RC_RDMA_READ_RESPONSE_ONLY", Rc, Aeth, Segment(Only);
    RcAck = 0x11, "RC_ACKNOWLEDGE", Rc, Aeth, NoPayload;
    RcAtomicAck = 0x12, "RC_ATOMIC_ACKNOWLEDGE", Rc, AethAtomicAckEth, NoPayload;
    RcCompareSwap = 0x13, "RC_COMPARE_SWAP", Rc, AtomicEth, NoPayload;
    RcFetchAdd = 0x14, "RC_FETCH_ADD", Rc, AtomicEth, NoPayload;
    RcSendLastInv = 0x16, "RC_SEND_LAST_WITH_INVALIDATE", Rc, Ieth, Segment(Last);
    RcSendOnlyInv = 0x17, "RC_SEND_ONLY_WITH_INVALIDATE", Rc, Ieth, Segment(Only);
    UcSendFirst = 0x20, "UC_SEND_FIRST", Uc, Bare, Segment(First);
    UcSendMiddle = 0x21, "UC_SEND_MIDDLE", Uc, Bare, Segment(Middle);
    UcSendLast = 0x22, "UC_SEND_LAST", Uc, Bare, Segment(Last);
    UcSendLastImm = 0x23, "UC_SEND_LAST_WITH_IMMEDIATE", Uc, ImmDt, Segment(Last);
    UcSendOnly = 0x24, "UC_SEND_ONLY", Uc, Bare, Segment(Only);
    UcSendOnlyImm = 0x25, "UC_SEND_ONLY_WITH_IMMEDIATE", Uc, ImmDt, Segment(Only);
    UcWriteFirst = 0x26, "UC_RDMA_WRITE_FIRST", Uc, Reth, Segment(First);
    UcWriteMiddle = 0x27, "UC_RDMA_WRITE_MIDDLE", Uc, Bare, Segment(Middle);
    UcWriteLast = 0x28, "UC_RDMA_WRITE_LAST", Uc, Bare, Segment(Last);
    UcWriteLastImm = 0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", Uc, ImmDt, Segment(Last);
    UcWriteOnly = 0x2A, "UC_RDMA_WRITE_ONLY", Uc, Reth, Segment(Only);
    UcWriteOnlyImm = 0x2B, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", Uc, RethImmDt, Segment(Only);
    UdSendOnly = 0x64, "UD_SEND_ONLY", Ud, Deth, Segment(Only);
    UdSendOnlyImm = 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", Ud, DethImmDt, Segment(Only);
    Cnp = 0x81, "CNP", Cnp, CnpReserved, NoPayload;
}

impl Opcode {
    /// The wire value.
    pub const fn value(self) -> u8 {
        self as u8
    }

    /// True if a payload may follow the extended headers.
    pub const fn carries_payload(self) -> bool {
        matches!(self.payload_rule(), PayloadRule::Segment(_))
    }

    /// Segment position, or `None` for opcodes without payload.
    pub const fn position(self) -> Option<Position> {
        match self.payload_rule() {
            PayloadRule::Segment(position) => Some(position),
            PayloadRule::None => None,
        }
    }
}

impl TryFrom<u8> for Opcode {
    type Error = DecodeError;

    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Opcode::from_u8(value).ok_or(DecodeError::UnknownOpcode(value))
    }
}

impl From<Opcode> for u8 {
    fn from(opcode: Opcode) -> u8 {
        opcode.value()
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (0x{:02x})", self.name(), self.value())
    }
}

/// Path MTU: the largest payload of one packet (verbs `enum ibv_mtu`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pmtu {
    /// 256 bytes (`IBV_MTU_256` = 1).
    Mtu256 = 1,
    /// 512 bytes (`IBV_MTU_512` = 2).
    Mtu512 = 2,
    /// 1024 bytes (`IBV_MTU_1024` = 3); what rxe uses on a 1500-byte Ethernet.
    Mtu1024 = 3,
    /// 2048 bytes (`IBV_MTU_2048` = 4).
    Mtu2048 = 4,
    /// 4096 bytes (`IBV_MTU_4096` = 5).
    Mtu4096 = 5,
}

impl Pmtu {
    /// Every PMTU, smallest first.
    pub const ALL: [Pmtu; 5] = [Pmtu::Mtu256, Pmtu::Mtu512, Pmtu::Mtu1024, Pmtu::Mtu2048, Pmtu::Mtu4096];

    /// Payload bytes per packet.
    pub const fn bytes(self) -> usize {
        128 << (self as u32)
    }

    /// From the verbs enum value 1..=5.
    pub const fn from_ibv(value: u8) -> Option<Pmtu> {
        match value {
            1 => Some(Pmtu::Mtu256),
            2 => Some(Pmtu::Mtu512),
            3 => Some(Pmtu::Mtu1024),
            4 => Some(Pmtu::Mtu2048),
            5 => Some(Pmtu::Mtu4096),
            _ => None,
        }
    }

    /// From a byte count (256, 512, ..., 4096).
    pub fn from_bytes(bytes: usize) -> Option<Pmtu> {
        Pmtu::ALL.into_iter().find(|pmtu| pmtu.bytes() == bytes)
    }
}

/// Why a payload length is illegal for an opcode at a PMTU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadLenError {
    /// The opcode carries no payload.
    PayloadNotAllowed {
        /// The opcode.
        opcode: Opcode,
        /// Payload bytes.
        len: usize,
    },
    /// FIRST and MIDDLE packets must carry exactly one PMTU.
    NotFullPmtu {
        /// The opcode.
        opcode: Opcode,
        /// Payload bytes.
        len: usize,
        /// The path MTU.
        pmtu: Pmtu,
    },
    /// A LAST packet must carry at least one byte.
    EmptyLast {
        /// The opcode.
        opcode: Opcode,
    },
    /// Payload longer than the PMTU.
    ExceedsPmtu {
        /// The opcode.
        opcode: Opcode,
        /// Payload bytes.
        len: usize,
        /// The path MTU.
        pmtu: Pmtu,
    },
}

impl fmt::Display for PayloadLenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadLenError::PayloadNotAllowed { opcode, len } => {
                write!(f, "{opcode} carries no payload, got {len} bytes")
            }
            PayloadLenError::NotFullPmtu { opcode, len, pmtu } => {
                write!(f, "{opcode} must carry exactly {} bytes, got {len}", pmtu.bytes())
            }
            PayloadLenError::EmptyLast { opcode } => {
                write!(f, "{opcode} must carry at least one byte")
            }
            PayloadLenError::ExceedsPmtu { opcode, len, pmtu } => {
                write!(f, "{opcode} payload {len} exceeds the PMTU of {} bytes", pmtu.bytes())
            }
        }
    }
}

impl std::error::Error for PayloadLenError {}

/// Checks a packet's payload length (excluding pad) against the segmentation
/// rules a responder enforces: FIRST/MIDDLE exactly PMTU, LAST 1..=PMTU,
/// ONLY 0..=PMTU, and no payload on opcodes that carry none.
pub fn validate_payload_len(opcode: Opcode, len: usize, pmtu: Pmtu) -> Result<(), PayloadLenError> {
    let position = match opcode.payload_rule() {
        PayloadRule::None if len == 0 => return Ok(()),
        PayloadRule::None => return Err(PayloadLenError::PayloadNotAllowed { opcode, len }),
        PayloadRule::Segment(position) => position,
    };
    let full = pmtu.bytes();
    match position {
        Position::First | Position::Middle if len != full => Err(PayloadLenError::NotFullPmtu { opcode, len, pmtu }),
        Position::Last if len == 0 => Err(PayloadLenError::EmptyLast { opcode }),
        _ if len > full => Err(PayloadLenError::ExceedsPmtu { opcode, len, pmtu }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_maps_to_a_modelled_opcode_or_an_error() {
        let mut modelled = 0;
        for value in 0..=255u8 {
            match Opcode::try_from(value) {
                Ok(opcode) => {
                    assert_eq!(opcode.value(), value);
                    modelled += 1;
                }
                Err(err) => assert_eq!(err, DecodeError::UnknownOpcode(value)),
            }
        }
        assert_eq!(modelled, Opcode::ALL.len());
        assert_eq!(modelled, 23 + 12 + 2 + 1);
        for reserved in [0x15u8, 0x18, 0x1C, 0x2C, 0x40, 0x60, 0x66, 0x80, 0x82, 0xFF] {
            assert_eq!(Opcode::try_from(reserved), Err(DecodeError::UnknownOpcode(reserved)));
        }
    }

    #[test]
    fn transport_matches_the_top_bits() {
        for &opcode in Opcode::ALL {
            let expected = match opcode.value() >> 5 {
                0 => Transport::Rc,
                1 => Transport::Uc,
                3 => Transport::Ud,
                4 => Transport::Cnp,
                other => panic!("unexpected transport bits {other}"),
            };
            assert_eq!(opcode.transport(), expected, "{opcode}");
        }
    }

    #[test]
    fn uc_mirrors_rc_for_send_and_write() {
        for value in 0x00..=0x0Bu8 {
            let rc = Opcode::try_from(value).unwrap();
            let uc = Opcode::try_from(value | 0x20).unwrap();
            assert_eq!(rc.layout(), uc.layout());
            assert_eq!(rc.payload_rule(), uc.payload_rule());
            assert_eq!(&rc.name()[3..], &uc.name()[3..]);
        }
    }

    /// Header bytes including the BTH, from the IBTA / rxe_opcode.c table.
    #[test]
    fn header_lengths_match_the_spec_table() {
        let expected: &[(u8, usize)] = &[
            (0x00, 12),
            (0x03, 16),
            (0x04, 12),
            (0x05, 16),
            (0x06, 28),
            (0x0A, 28),
            (0x0B, 32),
            (0x0C, 28),
            (0x0D, 16),
            (0x0E, 12),
            (0x0F, 16),
            (0x10, 16),
            (0x11, 16),
            (0x12, 24),
            (0x13, 40),
            (0x14, 40),
            (0x16, 16),
            (0x17, 16),
            (0x64, 20),
            (0x65, 24),
            (0x81, 28),
        ];
        for &(value, len) in expected {
            let opcode = Opcode::try_from(value).unwrap();
            assert_eq!(12 + opcode.layout().len(), len, "{opcode}");
        }
    }

    #[test]
    fn payload_length_rules() {
        use PayloadLenError::*;
        let pmtu = Pmtu::Mtu1024;
        let op = Opcode::RcSendFirst;
        assert_eq!(validate_payload_len(op, 1024, pmtu), Ok(()));
        assert_eq!(validate_payload_len(op, 1023, pmtu), Err(NotFullPmtu { opcode: op, len: 1023, pmtu }));
        assert_eq!(validate_payload_len(op, 1025, pmtu), Err(NotFullPmtu { opcode: op, len: 1025, pmtu }));
        let op = Opcode::RcWriteMiddle;
        assert_eq!(validate_payload_len(op, 1024, pmtu), Ok(()));
        assert_eq!(validate_payload_len(op, 0, pmtu), Err(NotFullPmtu { opcode: op, len: 0, pmtu }));
        let op = Opcode::RcReadResponseLast;
        assert_eq!(validate_payload_len(op, 0, pmtu), Err(EmptyLast { opcode: op }));
        assert_eq!(validate_payload_len(op, 1, pmtu), Ok(()));
        assert_eq!(validate_payload_len(op, 1024, pmtu), Ok(()));
        assert_eq!(validate_payload_len(op, 1025, pmtu), Err(ExceedsPmtu { opcode: op, len: 1025, pmtu }));
        let op = Opcode::UdSendOnly;
        assert_eq!(validate_payload_len(op, 0, pmtu), Ok(()));
        assert_eq!(validate_payload_len(op, 1024, pmtu), Ok(()));
        assert_eq!(validate_payload_len(op, 1025, pmtu), Err(ExceedsPmtu { opcode: op, len: 1025, pmtu }));
        for op in [Opcode::RcAck, Opcode::RcReadRequest, Opcode::RcFetchAdd, Opcode::Cnp] {
            assert_eq!(validate_payload_len(op, 0, pmtu), Ok(()));
            assert_eq!(validate_payload_len(op, 4, pmtu), Err(PayloadNotAllowed { opcode: op, len: 4 }));
        }
        let small = Pmtu::Mtu256;
        assert_eq!(validate_payload_len(Opcode::UcSendFirst, 256, small), Ok(()));
        assert!(validate_payload_len(Opcode::UcSendFirst, 1024, small).is_err());
    }

    #[test]
    fn pmtu_conversions() {
        assert_eq!(Pmtu::Mtu256.bytes(), 256);
        assert_eq!(Pmtu::Mtu4096.bytes(), 4096);
        for pmtu in Pmtu::ALL {
            assert_eq!(Pmtu::from_ibv(pmtu as u8), Some(pmtu));
            assert_eq!(Pmtu::from_bytes(pmtu.bytes()), Some(pmtu));
        }
        assert_eq!(Pmtu::from_ibv(0), None);
        assert_eq!(Pmtu::from_ibv(6), None);
        assert_eq!(Pmtu::from_bytes(1500), None);
    }
}
