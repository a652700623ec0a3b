//! Base Transport Header: the 12 bytes that start every RoCEv2 payload.

use crate::bytes::{be_u16, be_u24, check_bits, put_u24, require};
use crate::error::{DecodeError, EncodeError, Layer};
use crate::opcode::Opcode;
use crate::psn::Psn;

/// The BTH with every wire field, reserved bits included (they are covered
/// by the ICRC, so dropping them would break byte-exact re-encoding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bth {
    /// Opcode (byte 0).
    pub opcode: Opcode,
    /// SE, solicited event (byte 1 bit 7).
    pub solicited_event: bool,
    /// M, migration request (byte 1 bit 6); ignored unless APM is used.
    pub mig_req: bool,
    /// PadCnt, 0..=3 pad bytes after the payload (byte 1 bits 5:4).
    /// Derived from the payload length by [`crate::encode_frame`].
    pub pad_count: u8,
    /// TVer, transport header version, 4 bits; only 0 is defined.
    pub tver: u8,
    /// Partition key (bytes 2-3); default 0xFFFF.
    pub pkey: u16,
    /// FECN (byte 4 bit 7). Masked out of the ICRC.
    pub fecn: bool,
    /// BECN (byte 4 bit 6); set in CNPs. Masked out of the ICRC.
    pub becn: bool,
    /// Reserved bits 5:0 of byte 4. Masked out of the ICRC.
    pub resv6a: u8,
    /// Destination QP number, 24 bits (bytes 5-7).
    pub dest_qp: u32,
    /// A, acknowledge request (byte 8 bit 7).
    pub ack_req: bool,
    /// Reserved bits 6:0 of byte 8. Covered by the ICRC.
    pub resv7: u8,
    /// Packet sequence number (bytes 9-11).
    pub psn: Psn,
}

impl Bth {
    /// Header length.
    pub const LEN: usize = 12;
    /// The default partition key.
    pub const DEFAULT_PKEY: u16 = 0xFFFF;

    /// A BTH with the default P_Key and every flag clear.
    pub fn new(opcode: Opcode, dest_qp: u32, psn: Psn) -> Self {
        Bth {
            opcode,
            solicited_event: false,
            mig_req: false,
            pad_count: 0,
            tver: 0,
            pkey: Self::DEFAULT_PKEY,
            fecn: false,
            becn: false,
            resv6a: 0,
            dest_qp,
            ack_req: false,
            resv7: 0,
            psn,
        }
    }

    /// Decodes the BTH at the start of `bytes`. Unknown opcodes and a
    /// non-zero TVer are errors, as in rxe's header check.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        require(bytes, Self::LEN, Layer::Bth)?;
        let opcode = Opcode::try_from(bytes[0])?;
        let flags = bytes[1];
        let tver = flags & 0x0F;
        if tver != 0 {
            return Err(DecodeError::UnsupportedTransportVersion(tver));
        }
        Ok(Bth {
            opcode,
            solicited_event: flags & 0x80 != 0,
            mig_req: flags & 0x40 != 0,
            pad_count: (flags >> 4) & 0x03,
            tver,
            pkey: be_u16(bytes, 2),
            fecn: bytes[4] & 0x80 != 0,
            becn: bytes[4] & 0x40 != 0,
            resv6a: bytes[4] & 0x3F,
            dest_qp: be_u24(bytes, 5),
            ack_req: bytes[8] & 0x80 != 0,
            resv7: bytes[8] & 0x7F,
            psn: Psn::new(be_u24(bytes, 9)),
        })
    }

    /// Appends the header as stored.
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        check_bits("bth.pad_count", self.pad_count.into(), 2)?;
        check_bits("bth.tver", self.tver.into(), 4)?;
        check_bits("bth.resv6a", self.resv6a.into(), 6)?;
        check_bits("bth.dest_qp", self.dest_qp.into(), 24)?;
        check_bits("bth.resv7", self.resv7.into(), 7)?;
        out.push(self.opcode.value());
        out.push(
            (u8::from(self.solicited_event) << 7) | (u8::from(self.mig_req) << 6) | (self.pad_count << 4) | self.tver,
        );
        out.extend_from_slice(&self.pkey.to_be_bytes());
        out.push((u8::from(self.fecn) << 7) | (u8::from(self.becn) << 6) | self.resv6a);
        put_u24(out, self.dest_qp);
        out.push((u8::from(self.ack_req) << 7) | self.resv7);
        put_u24(out, self.psn.value());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_field() {
        // scapy UC_SEND_ONLY vector: flags 0x60 (M, pad 2), DestQP 211, PSN 0xCF1610.
        let bytes = [0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3, 0x00, 0xcf, 0x16, 0x10];
        let bth = Bth::decode(&bytes).unwrap();
        assert_eq!(bth.opcode, Opcode::UcSendOnly);
        assert!(bth.mig_req && !bth.solicited_event);
        assert_eq!(bth.pad_count, 2);
        assert_eq!(bth.pkey, 0xFFFF);
        assert_eq!(bth.dest_qp, 211);
        assert_eq!(bth.psn, Psn::new(0xCF1610));
        let mut out = Vec::new();
        bth.encode_into(&mut out).unwrap();
        assert_eq!(out, bytes);
    }

    #[test]
    fn reserved_bits_survive() {
        let mut bth = Bth::new(Opcode::Cnp, 0x118, Psn::new(0));
        bth.becn = true;
        bth.resv6a = 0x2A;
        bth.resv7 = 0x55;
        bth.ack_req = true;
        let mut out = Vec::new();
        bth.encode_into(&mut out).unwrap();
        assert_eq!(out[4], 0x6A);
        assert_eq!(out[8], 0xD5);
        assert_eq!(Bth::decode(&out).unwrap(), bth);
    }

    #[test]
    fn rejects_tver_and_unknown_opcode() {
        let mut bytes = [0u8; 12];
        bytes[1] = 0x01;
        assert_eq!(Bth::decode(&bytes), Err(DecodeError::UnsupportedTransportVersion(1)));
        bytes[0] = 0x15;
        assert_eq!(Bth::decode(&bytes), Err(DecodeError::UnknownOpcode(0x15)));
    }

    #[test]
    fn wide_qpn_is_an_encode_error() {
        let bth = Bth::new(Opcode::RcAck, 0x100_0000, Psn::new(0));
        assert!(matches!(
            bth.encode_into(&mut Vec::new()),
            Err(EncodeError::FieldOutOfRange { field: "bth.dest_qp", .. })
        ));
    }
}
