//! Extended transport headers that follow the BTH, and the per-opcode
//! combination of them ([`ExtHeaders`]). All fields are big-endian.

use crate::aeth::Aeth;
use crate::bytes::{be_u24, be_u32, be_u64, check_bits, put_u24, require};
use crate::error::{DecodeError, EncodeError, Layer};
use crate::opcode::HeaderLayout;

/// RDMA Extended Transport Header (WRITE FIRST/ONLY, READ request).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Reth {
    /// Remote virtual address.
    pub va: u64,
    /// Remote key.
    pub rkey: u32,
    /// Total message length (not this packet's payload).
    pub dma_len: u32,
}

/// Atomic Extended Transport Header (COMPARE_SWAP, FETCH_ADD).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AtomicEth {
    /// Remote virtual address (8-byte aligned).
    pub va: u64,
    /// Remote key.
    pub rkey: u32,
    /// Swap value (COMPARE_SWAP) or addend (FETCH_ADD).
    pub swap_add: u64,
    /// Compare value (COMPARE_SWAP; unused by FETCH_ADD).
    pub compare: u64,
}

/// Atomic ACK Extended Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AtomicAckEth {
    /// The remote memory's value before the atomic.
    pub orig_remote_data: u64,
}

/// Immediate data; opaque to the transport (verbs carries it as big-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ImmDt {
    /// The 4 immediate bytes read big-endian.
    pub value: u32,
}

/// Invalidate Extended Transport Header (SEND with invalidate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Ieth {
    /// R_Key to invalidate at the responder.
    pub rkey: u32,
}

/// Datagram Extended Transport Header (UD).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Deth {
    /// Queue key.
    pub qkey: u32,
    /// Reserved byte between Q_Key and SrcQP (covered by the ICRC).
    pub reserved: u8,
    /// Source QP number, 24 bits.
    pub src_qp: u32,
}

/// The 16 reserved bytes that follow a CNP's BTH (zero when sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CnpReserved {
    /// The bytes as carried.
    pub bytes: [u8; 16],
}

impl Reth {
    /// Header length.
    pub const LEN: usize = 16;
}
impl AtomicEth {
    /// Header length.
    pub const LEN: usize = 28;
}
impl AtomicAckEth {
    /// Header length.
    pub const LEN: usize = 8;
}
impl ImmDt {
    /// Header length.
    pub const LEN: usize = 4;
}
impl Ieth {
    /// Header length.
    pub const LEN: usize = 4;
}
impl Deth {
    /// Header length.
    pub const LEN: usize = 8;
    /// Q_Key of the general services interface (QP1).
    pub const GSI_QKEY: u32 = 0x8001_0000;
}
impl CnpReserved {
    /// Length of the reserved block.
    pub const LEN: usize = 16;
}

/// The extended headers of one packet, one variant per [`HeaderLayout`], so a
/// value always holds a complete, correctly ordered set for some opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtHeaders {
    /// None.
    Bare,
    /// ImmDt.
    ImmDt(ImmDt),
    /// RETH.
    Reth(Reth),
    /// RETH then ImmDt.
    RethImmDt(Reth, ImmDt),
    /// AETH.
    Aeth(Aeth),
    /// AETH then AtomicAckETH.
    AethAtomicAckEth(Aeth, AtomicAckEth),
    /// AtomicETH.
    AtomicEth(AtomicEth),
    /// IETH.
    Ieth(Ieth),
    /// DETH.
    Deth(Deth),
    /// DETH then ImmDt.
    DethImmDt(Deth, ImmDt),
    /// CNP reserved bytes.
    CnpReserved(CnpReserved),
}

impl ExtHeaders {
    /// The layout this value has.
    pub const fn layout(&self) -> HeaderLayout {
        match self {
            ExtHeaders::Bare => HeaderLayout::Bare,
            ExtHeaders::ImmDt(_) => HeaderLayout::ImmDt,
            ExtHeaders::Reth(_) => HeaderLayout::Reth,
            ExtHeaders::RethImmDt(..) => HeaderLayout::RethImmDt,
            ExtHeaders::Aeth(_) => HeaderLayout::Aeth,
            ExtHeaders::AethAtomicAckEth(..) => HeaderLayout::AethAtomicAckEth,
            ExtHeaders::AtomicEth(_) => HeaderLayout::AtomicEth,
            ExtHeaders::Ieth(_) => HeaderLayout::Ieth,
            ExtHeaders::Deth(_) => HeaderLayout::Deth,
            ExtHeaders::DethImmDt(..) => HeaderLayout::DethImmDt,
            ExtHeaders::CnpReserved(_) => HeaderLayout::CnpReserved,
        }
    }

    /// Bytes on the wire.
    pub const fn len(&self) -> usize {
        self.layout().len()
    }

    /// True when there are no extended headers.
    pub const fn is_empty(&self) -> bool {
        matches!(self, ExtHeaders::Bare)
    }

    /// Decodes the headers `layout` prescribes from the start of `bytes`.
    pub fn decode(layout: HeaderLayout, bytes: &[u8]) -> Result<Self, DecodeError> {
        require(bytes, layout.len(), Layer::ExtHeaders(layout))?;
        let reth =
            |at: usize| Reth { va: be_u64(bytes, at), rkey: be_u32(bytes, at + 8), dma_len: be_u32(bytes, at + 12) };
        let imm = |at: usize| ImmDt { value: be_u32(bytes, at) };
        let aeth = |at: usize| Aeth { syndrome: bytes[at], msn: be_u24(bytes, at + 1) };
        let deth = |at: usize| Deth { qkey: be_u32(bytes, at), reserved: bytes[at + 4], src_qp: be_u24(bytes, at + 5) };
        Ok(match layout {
            HeaderLayout::Bare => ExtHeaders::Bare,
            HeaderLayout::ImmDt => ExtHeaders::ImmDt(imm(0)),
            HeaderLayout::Reth => ExtHeaders::Reth(reth(0)),
            HeaderLayout::RethImmDt => ExtHeaders::RethImmDt(reth(0), imm(Reth::LEN)),
            HeaderLayout::Aeth => ExtHeaders::Aeth(aeth(0)),
            HeaderLayout::AethAtomicAckEth => {
                ExtHeaders::AethAtomicAckEth(aeth(0), AtomicAckEth { orig_remote_data: be_u64(bytes, Aeth::LEN) })
            }
            HeaderLayout::AtomicEth => ExtHeaders::AtomicEth(AtomicEth {
                va: be_u64(bytes, 0),
                rkey: be_u32(bytes, 8),
                swap_add: be_u64(bytes, 12),
                compare: be_u64(bytes, 20),
            }),
            HeaderLayout::Ieth => ExtHeaders::Ieth(Ieth { rkey: be_u32(bytes, 0) }),
            HeaderLayout::Deth => ExtHeaders::Deth(deth(0)),
            HeaderLayout::DethImmDt => ExtHeaders::DethImmDt(deth(0), imm(Deth::LEN)),
            HeaderLayout::CnpReserved => {
                let mut reserved = [0u8; CnpReserved::LEN];
                reserved.copy_from_slice(&bytes[..CnpReserved::LEN]);
                ExtHeaders::CnpReserved(CnpReserved { bytes: reserved })
            }
        })
    }

    /// Appends the headers as stored, in wire order.
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        fn reth(out: &mut Vec<u8>, h: &Reth) {
            out.extend_from_slice(&h.va.to_be_bytes());
            out.extend_from_slice(&h.rkey.to_be_bytes());
            out.extend_from_slice(&h.dma_len.to_be_bytes());
        }
        fn imm(out: &mut Vec<u8>, h: &ImmDt) {
            out.extend_from_slice(&h.value.to_be_bytes());
        }
        fn deth(out: &mut Vec<u8>, h: &Deth) -> Result<(), EncodeError> {
            check_bits("deth.src_qp", h.src_qp.into(), 24)?;
            out.extend_from_slice(&h.qkey.to_be_bytes());
            out.push(h.reserved);
            put_u24(out, h.src_qp);
            Ok(())
        }
        match self {
            ExtHeaders::Bare => {}
            ExtHeaders::ImmDt(i) => imm(out, i),
            ExtHeaders::Reth(r) => reth(out, r),
            ExtHeaders::RethImmDt(r, i) => {
                reth(out, r);
                imm(out, i);
            }
            ExtHeaders::Aeth(a) => a.encode_into(out)?,
            ExtHeaders::AethAtomicAckEth(a, ack) => {
                a.encode_into(out)?;
                out.extend_from_slice(&ack.orig_remote_data.to_be_bytes());
            }
            ExtHeaders::AtomicEth(a) => {
                out.extend_from_slice(&a.va.to_be_bytes());
                out.extend_from_slice(&a.rkey.to_be_bytes());
                out.extend_from_slice(&a.swap_add.to_be_bytes());
                out.extend_from_slice(&a.compare.to_be_bytes());
            }
            ExtHeaders::Ieth(i) => out.extend_from_slice(&i.rkey.to_be_bytes()),
            ExtHeaders::Deth(d) => deth(out, d)?,
            ExtHeaders::DethImmDt(d, i) => {
                deth(out, d)?;
                imm(out, i);
            }
            ExtHeaders::CnpReserved(c) => out.extend_from_slice(&c.bytes),
        }
        Ok(())
    }

    /// The RETH, if present.
    pub fn reth(&self) -> Option<&Reth> {
        match self {
            ExtHeaders::Reth(r) | ExtHeaders::RethImmDt(r, _) => Some(r),
            _ => None,
        }
    }

    /// The AETH, if present.
    pub fn aeth(&self) -> Option<&Aeth> {
        match self {
            ExtHeaders::Aeth(a) | ExtHeaders::AethAtomicAckEth(a, _) => Some(a),
            _ => None,
        }
    }

    /// The AtomicETH, if present.
    pub fn atomic_eth(&self) -> Option<&AtomicEth> {
        match self {
            ExtHeaders::AtomicEth(a) => Some(a),
            _ => None,
        }
    }

    /// The AtomicAckETH, if present.
    pub fn atomic_ack_eth(&self) -> Option<&AtomicAckEth> {
        match self {
            ExtHeaders::AethAtomicAckEth(_, a) => Some(a),
            _ => None,
        }
    }

    /// The ImmDt, if present.
    pub fn imm_dt(&self) -> Option<&ImmDt> {
        match self {
            ExtHeaders::ImmDt(i) | ExtHeaders::RethImmDt(_, i) | ExtHeaders::DethImmDt(_, i) => Some(i),
            _ => None,
        }
    }

    /// The IETH, if present.
    pub fn ieth(&self) -> Option<&Ieth> {
        match self {
            ExtHeaders::Ieth(i) => Some(i),
            _ => None,
        }
    }

    /// The DETH, if present.
    pub fn deth(&self) -> Option<&Deth> {
        match self {
            ExtHeaders::Deth(d) | ExtHeaders::DethImmDt(d, _) => Some(d),
            _ => None,
        }
    }

    /// The CNP reserved bytes, if present.
    pub fn cnp_reserved(&self) -> Option<&CnpReserved> {
        match self {
            ExtHeaders::CnpReserved(c) => Some(c),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aeth::{AckCredit, AethKind};

    fn round_trip(headers: ExtHeaders) -> Vec<u8> {
        let mut out = Vec::new();
        headers.encode_into(&mut out).unwrap();
        assert_eq!(out.len(), headers.len());
        assert_eq!(ExtHeaders::decode(headers.layout(), &out).unwrap(), headers);
        out
    }

    #[test]
    fn reth_and_immdt_are_big_endian_in_order() {
        let bytes = round_trip(ExtHeaders::RethImmDt(
            Reth { va: 0x0102_0304_0506_0708, rkey: 0x1122_3344, dma_len: 0x10 },
            ImmDt { value: 0xDEAD_BEEF },
        ));
        assert_eq!(bytes, [1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0x10, 0xDE, 0xAD, 0xBE, 0xEF]);
    }

    #[test]
    fn atomic_eth_is_packed_28_bytes() {
        let bytes = round_trip(ExtHeaders::AtomicEth(AtomicEth {
            va: 0x1000,
            rkey: 0xAABB_CCDD,
            swap_add: 0x0102_0304_0506_0708,
            compare: 0x1112_1314_1516_1718,
        }));
        assert_eq!(&bytes[8..12], &[0xAA, 0xBB, 0xCC, 0xDD]);
        assert_eq!(&bytes[12..20], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&bytes[20..28], &[0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18]);
    }

    #[test]
    fn atomic_ack_follows_aeth() {
        let bytes = round_trip(ExtHeaders::AethAtomicAckEth(
            Aeth::new(AethKind::Ack(AckCredit::UNLIMITED), 7),
            AtomicAckEth { orig_remote_data: 0x8877_6655_4433_2211 },
        ));
        assert_eq!(bytes, [0x1F, 0, 0, 7, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]);
    }

    #[test]
    fn deth_keeps_reserved_byte_and_checks_width() {
        let deth = Deth { qkey: 0x1111_1111, reserved: 0x5A, src_qp: 0x16 };
        let bytes = round_trip(ExtHeaders::DethImmDt(deth, ImmDt { value: 3 }));
        assert_eq!(&bytes[..8], &[0x11, 0x11, 0x11, 0x11, 0x5A, 0, 0, 0x16]);
        let wide = ExtHeaders::Deth(Deth { src_qp: 1 << 24, ..deth });
        assert!(wide.encode_into(&mut Vec::new()).is_err());
    }

    #[test]
    fn short_input_is_truncated_error() {
        assert!(matches!(
            ExtHeaders::decode(HeaderLayout::AtomicEth, &[0; 27]),
            Err(DecodeError::Truncated {
                layer: Layer::ExtHeaders(HeaderLayout::AtomicEth),
                needed: 28,
                available: 27
            })
        ));
    }
}
