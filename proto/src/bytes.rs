//! Big-endian field access shared by the header codecs.
//!
//! Callers check the slice length first (with [`require`]); the accessors
//! then index within bounds.

use crate::error::{DecodeError, Layer};

/// Fails with [`DecodeError::Truncated`] unless `bytes` holds `needed` bytes.
pub(crate) fn require(bytes: &[u8], needed: usize, layer: Layer) -> Result<(), DecodeError> {
    if bytes.len() < needed {
        Err(DecodeError::Truncated { layer, needed, available: bytes.len() })
    } else {
        Ok(())
    }
}

pub(crate) fn be_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

pub(crate) fn be_u24(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([0, b[at], b[at + 1], b[at + 2]])
}

pub(crate) fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub(crate) fn be_u64(b: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(word)
}

pub(crate) fn put_u24(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_be_bytes()[1..]);
}

/// Fails with [`crate::EncodeError::FieldOutOfRange`] when `value` does not fit
/// in `bits` bits, so an encoder never silently truncates a field.
pub(crate) fn check_bits(field: &'static str, value: u64, bits: u32) -> Result<(), crate::error::EncodeError> {
    let max = (1u64 << bits) - 1;
    if value > max {
        Err(crate::error::EncodeError::FieldOutOfRange { field, value, max })
    } else {
        Ok(())
    }
}
