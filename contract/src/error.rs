//! The one error type of the contract's accessors.

use core::fmt;

/// Why a field could not be read or written.
///
/// Accessors never panic on bad input: a driver handed a short DMA buffer or
/// a simulator decoding a corrupt doorbell gets one of these instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// The buffer ends before the field does.
    ShortBuffer {
        /// The field being accessed.
        field: &'static str,
        /// Bytes the buffer must have to hold the field.
        needed: usize,
        /// Bytes it has.
        len: usize,
    },
    /// The value has bits set above the field's width.
    ValueTooWide {
        /// The field being written.
        field: &'static str,
        /// The rejected value.
        value: u64,
        /// The field's width in bits.
        width: u32,
    },
    /// The field holds a number that is not one of its type's codes.
    UnknownCode {
        /// The field being read.
        field: &'static str,
        /// The number found.
        value: u64,
    },
    /// Reserved bits, which must be zero, are set.
    ReservedBits {
        /// The register or entry being decoded.
        field: &'static str,
        /// The offending bits, in place.
        bits: u64,
    },
    /// A numeric access to a byte-string field (an address, a list of SGEs).
    NotNumeric {
        /// The field being accessed.
        field: &'static str,
    },
    /// A byte string of the wrong length written to a byte-string field.
    WrongLength {
        /// The field being written.
        field: &'static str,
        /// The field's length in bytes.
        expected: usize,
        /// The length given.
        got: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::ShortBuffer { field, needed, len } => {
                write!(f, "{field}: buffer of {len} bytes, the field needs {needed}")
            }
            Error::ValueTooWide { field, value, width } => {
                write!(f, "{field}: value {value:#x} does not fit in {width} bits")
            }
            Error::UnknownCode { field, value } => write!(f, "{field}: unknown code {value:#x}"),
            Error::ReservedBits { field, bits } => {
                write!(f, "{field}: reserved bits {bits:#x} are set")
            }
            Error::NotNumeric { field } => write!(f, "{field}: a byte string, not a number"),
            Error::WrongLength { field, expected, got } => {
                write!(f, "{field}: {got} bytes given, the field holds {expected}")
            }
        }
    }
}
