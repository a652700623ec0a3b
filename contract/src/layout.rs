//! Memory layouts: fields at a byte and bit position in a fixed-size,
//! little-endian entry (a work queue entry, a completion, a context), typed
//! accessors over byte slices, the record the doc generator walks, the
//! compile-time soundness check and the `layouts!` macro.
//!
//! Bit numbering: bit `i` of a field stored at bit position `p` is bit
//! `(p + i) % 8` of byte `(p + i) / 8`, where `p = 8 * byte + bit`. A field
//! that starts on a byte boundary is therefore stored exactly like a
//! little-endian integer of its width.

use core::marker::PhantomData;
use core::ops::Range;

use crate::reg::low_mask;
use crate::Error;

/// What kind of value a field holds; shown in the layout tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// An unsigned number.
    Uint,
    /// A single flag.
    Bool,
    /// One of the codes of an enum in [`crate::codes`].
    Code,
    /// A byte string in wire order (an address), or a region holding
    /// other entries (a list of SGEs).
    Bytes,
}

/// A Rust type a layout field is read as.
pub trait FieldType {
    /// The name shown in the layout tables.
    const TYPE_NAME: &'static str;
    /// Bits the type holds; a field may be narrower (a 24-bit PSN in a `u32`).
    const BITS: u32;
    /// The largest number the field must be able to hold: every code of an
    /// enum must fit, a plain integer only needs its width.
    const MAX_CODE: u64;
    /// The kind shown in the tables.
    const KIND: FieldKind;
}

/// A field type that converts to and from the raw number in memory.
pub trait FieldValue: FieldType + Copy + Sized {
    /// The number stored in memory.
    fn to_raw(self) -> u64;
    /// The value for a stored number, `None` if it is not a valid code.
    fn from_raw(raw: u64) -> Option<Self>;
}

macro_rules! uint_field_type {
    ($($t:ty),+) => {$(
        impl FieldType for $t {
            const TYPE_NAME: &'static str = stringify!($t);
            const BITS: u32 = <$t>::BITS;
            const MAX_CODE: u64 = 0;
            const KIND: FieldKind = FieldKind::Uint;
        }
        impl FieldValue for $t {
            fn to_raw(self) -> u64 {
                self as u64
            }
            fn from_raw(raw: u64) -> Option<Self> {
                <$t>::try_from(raw).ok()
            }
        }
    )+};
}
uint_field_type!(u8, u16, u32, u64);

impl FieldType for bool {
    const TYPE_NAME: &'static str = "bool";
    const BITS: u32 = 1;
    const MAX_CODE: u64 = 1;
    const KIND: FieldKind = FieldKind::Bool;
}

impl FieldValue for bool {
    fn to_raw(self) -> u64 {
        self as u64
    }
    fn from_raw(raw: u64) -> Option<Self> {
        match raw {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

/// Marks a byte-string field: whole bytes, starting on a byte boundary,
/// read as a slice (an IPv6 address, a MAC, a region of SGEs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bytes;

impl FieldType for Bytes {
    const TYPE_NAME: &'static str = "bytes";
    const BITS: u32 = u32::MAX;
    const MAX_CODE: u64 = 0;
    const KIND: FieldKind = FieldKind::Bytes;
}

/// A field of a memory layout, read as `T`. Constants of this type are what
/// the RTL (`pos()`, `width`) and the driver and simulator (`get`, `set`)
/// share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LayoutField<T> {
    /// Name, as in the layout table.
    pub name: &'static str,
    /// Byte offset of the field's first bit.
    pub byte: usize,
    /// Bit of that byte where the field starts.
    pub bit: u32,
    /// Width in bits.
    pub width: u32,
    /// What the field means.
    pub doc: &'static str,
    ty: PhantomData<T>,
}

impl<T: FieldType> LayoutField<T> {
    /// A field of `width` bits at bit `bit` of byte `byte`. Evaluated in a
    /// constant, an impossible declaration (wider than `T`, too narrow for
    /// `T`'s codes, a byte string not made of whole bytes) fails the build.
    pub const fn new(name: &'static str, byte: usize, bit: u32, width: u32, doc: &'static str) -> Self {
        assert!(width > 0, "layout field of zero width");
        match T::KIND {
            FieldKind::Bytes => {
                assert!(bit == 0 && width.is_multiple_of(8), "byte-string field not made of whole bytes")
            }
            _ => {
                assert!(width <= T::BITS && width <= 64, "layout field wider than its type");
                assert!(T::MAX_CODE <= low_mask(width), "layout field too narrow for its codes");
            }
        }
        LayoutField { name, byte, bit, width, doc, ty: PhantomData }
    }

    /// Bit position of the field in its entry: `8 * byte + bit`.
    pub const fn pos(self) -> usize {
        self.byte * 8 + self.bit as usize
    }

    /// The description the doc generator and generic checks walk.
    pub const fn info(self) -> LayoutFieldInfo {
        LayoutFieldInfo {
            name: self.name,
            byte: self.byte,
            bit: self.bit,
            width: self.width,
            type_name: T::TYPE_NAME,
            kind: T::KIND,
            doc: self.doc,
        }
    }
}

impl<T: FieldValue> LayoutField<T> {
    /// The field's value in `entry`.
    pub fn get(self, entry: &[u8]) -> Result<T, Error> {
        let raw = self.info().read_raw(entry)?;
        T::from_raw(raw).ok_or(Error::UnknownCode { field: self.name, value: raw })
    }

    /// Stores `value` in `entry`, leaving every other bit as it was.
    pub fn set(self, entry: &mut [u8], value: T) -> Result<(), Error> {
        self.info().write_raw(entry, value.to_raw())
    }
}

impl LayoutField<Bytes> {
    /// The byte range the field occupies in its entry.
    pub const fn range(self) -> Range<usize> {
        self.byte..self.byte + self.width as usize / 8
    }

    /// The field's bytes in `entry`.
    pub fn bytes(self, entry: &[u8]) -> Result<&[u8], Error> {
        let range = self.range();
        let len = entry.len();
        entry.get(range.clone()).ok_or(Error::ShortBuffer { field: self.name, needed: range.end, len })
    }

    /// The field's bytes in `entry`, to fill in place (a sub-entry such as an
    /// SGE or an address vector).
    pub fn bytes_mut(self, entry: &mut [u8]) -> Result<&mut [u8], Error> {
        let range = self.range();
        let len = entry.len();
        entry.get_mut(range.clone()).ok_or(Error::ShortBuffer { field: self.name, needed: range.end, len })
    }

    /// Copies `value`, which must be exactly the field's length, into `entry`.
    pub fn set_bytes(self, entry: &mut [u8], value: &[u8]) -> Result<(), Error> {
        let field = self.bytes_mut(entry)?;
        if field.len() != value.len() {
            return Err(Error::WrongLength { field: self.name, expected: field.len(), got: value.len() });
        }
        field.copy_from_slice(value);
        Ok(())
    }
}

/// A layout field as the doc generator and the generic checks see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LayoutFieldInfo {
    /// Name, as in the layout table.
    pub name: &'static str,
    /// Byte offset of the field's first bit.
    pub byte: usize,
    /// Bit of that byte where the field starts.
    pub bit: u32,
    /// Width in bits.
    pub width: u32,
    /// The Rust type it is read as.
    pub type_name: &'static str,
    /// The kind of value.
    pub kind: FieldKind,
    /// What the field means.
    pub doc: &'static str,
}

impl LayoutFieldInfo {
    /// Bit position of the field in its entry.
    pub const fn pos(&self) -> usize {
        self.byte * 8 + self.bit as usize
    }

    /// Bytes an entry must have to hold the field.
    pub const fn bytes_needed(&self) -> usize {
        (self.pos() + self.width as usize).div_ceil(8)
    }

    fn numeric_span(&self, len: usize) -> Result<Range<usize>, Error> {
        if self.kind == FieldKind::Bytes {
            return Err(Error::NotNumeric { field: self.name });
        }
        let needed = self.bytes_needed();
        if len < needed {
            return Err(Error::ShortBuffer { field: self.name, needed, len });
        }
        Ok(self.byte + self.bit as usize / 8..needed)
    }

    /// The number stored in the field.
    pub fn read_raw(&self, entry: &[u8]) -> Result<u64, Error> {
        let span = self.numeric_span(entry.len())?;
        let mut acc: u128 = 0;
        for (i, b) in entry[span].iter().enumerate() {
            acc |= u128::from(*b) << (8 * i);
        }
        Ok((acc >> (self.pos() % 8)) as u64 & low_mask(self.width))
    }

    /// Stores `value` in the field, leaving every other bit of `entry` as it was.
    pub fn write_raw(&self, entry: &mut [u8], value: u64) -> Result<(), Error> {
        let span = self.numeric_span(entry.len())?;
        if value > low_mask(self.width) {
            return Err(Error::ValueTooWide { field: self.name, value, width: self.width });
        }
        let shift = self.pos() % 8;
        let mask = u128::from(low_mask(self.width)) << shift;
        let bits = u128::from(value) << shift;
        for (i, b) in entry[span].iter_mut().enumerate() {
            let m = (mask >> (8 * i)) as u8;
            *b = (*b & !m) | ((bits >> (8 * i)) as u8 & m);
        }
        Ok(())
    }
}

/// One memory layout as the doc generator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LayoutInfo {
    /// The layout's module name in [`crate::layouts`].
    pub name: &'static str,
    /// Size of one entry in bytes.
    pub size: usize,
    /// What the entry is and who writes it.
    pub doc: &'static str,
    /// Its fields, in ascending position.
    pub fields: &'static [LayoutFieldInfo],
}

/// Checks one layout: a power-of-two size (entries are indexed by shifting);
/// fields in ascending position, none overlapping another, all inside the
/// entry.
pub const fn layout_is_sound(layout: &LayoutInfo) -> bool {
    let bits = layout.size * 8;
    if layout.size == 0 || layout.size & (layout.size - 1) != 0 {
        return false;
    }
    let mut next_free = 0;
    let mut i = 0;
    while i < layout.fields.len() {
        let f = &layout.fields[i];
        let pos = f.pos();
        if pos < next_free || pos + f.width as usize > bits {
            return false;
        }
        next_free = pos + f.width as usize;
        i += 1;
    }
    true
}

/// Declares memory layouts once. Each entry
///
/// ```text
/// /// doc
/// name, 64 bytes {
///     /// doc
///     FIELD: u32 = byte 0, bit 0, width 24;
/// } {
///     // optional extra items for the module
/// }
/// ```
///
/// becomes a module `name` holding `SIZE`, one [`LayoutField`] constant per
/// field, `FIELDS` and `INFO`, with a compile-time soundness check.
/// `LAYOUTS` lists every `INFO`.
macro_rules! layouts {
    (
        $(
            $(#[doc = $doc:literal])*
            $name:ident, $size:literal bytes {
                $(
                    $(#[doc = $fdoc:literal])*
                    $field:ident: $ty:ident = byte $byte:literal, bit $bit:literal, width $width:literal;
                )+
            }
            $({ $($extra:item)* })?
        )+
    ) => {
        $(
            $(#[doc = $doc])*
            pub mod $name {
                #[allow(unused_imports)]
                use super::*;
                use $crate::layout::{LayoutField, LayoutFieldInfo, LayoutInfo};

                /// Size of one entry in bytes.
                pub const SIZE: usize = $size;
                $(
                    $(#[doc = $fdoc])*
                    pub const $field: LayoutField<$ty> =
                        LayoutField::new(stringify!($field), $byte, $bit, $width, concat!($($fdoc, "\n"),*));
                )+
                /// Every field, in ascending position.
                pub const FIELDS: &[LayoutFieldInfo] = &[$($field.info()),+];
                /// The layout as the doc generator sees it.
                pub const INFO: LayoutInfo = LayoutInfo {
                    name: stringify!($name),
                    size: SIZE,
                    doc: concat!($($doc, "\n"),*),
                    fields: FIELDS,
                };
                const _: () = assert!(
                    $crate::layout::layout_is_sound(&INFO),
                    concat!(
                        "layout ", stringify!($name),
                        ": size not a power of two, or fields out of order, overlapping or outside the entry"
                    )
                );
                $($($extra)*)?
            }
        )+

        /// Every layout: the table the doc generator walks.
        pub const LAYOUTS: &[$crate::layout::LayoutInfo] = &[$($name::INFO),+];
    };
}
