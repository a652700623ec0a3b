//! Register descriptions: fields within a register word, the per-register
//! record the doc generator walks, the soundness checks run at compile time,
//! and the `registers!` macro that produces all of them from one declaration.

use core::marker::PhantomData;

use crate::Error;

/// Who may read and write a register, as the register port implements it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read-only: writes are ignored.
    Ro,
    /// Read-write: reads return what was last written, unless a field's doc
    /// says the hardware changes it (a self-clearing bit).
    Rw,
    /// Write-only: the write is an action; reads return 0.
    Wo,
    /// Hardware sets bits; writing 1 to a bit clears it, writing 0 leaves it.
    W1c,
}

impl Access {
    /// The abbreviation used in register tables.
    pub const fn as_str(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::Wo => "WO",
            Access::W1c => "W1C",
        }
    }
}

/// What a register reads after reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reset {
    /// This value, in every build.
    Value(u64),
    /// A property of the build (data-path width, clock, table limits): the RTL
    /// drives it from its parameters, the driver reads it and adapts.
    Build,
}

/// Mask of the low `width` bits (`width` up to 64).
pub(crate) const fn low_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// A bit field of a register word `W` (`u32`, or `u64` for the 64-bit
/// registers). Constants of this type are what the RTL (`lsb`, `width`,
/// `mask()`) and the driver (`get`, `set`) share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Field<W> {
    /// Name, as in the register table.
    pub name: &'static str,
    /// Position of the field's least significant bit in the word.
    pub lsb: u32,
    /// Width in bits.
    pub width: u32,
    /// What the field means.
    pub doc: &'static str,
    word: PhantomData<W>,
}

impl<W> Field<W> {
    /// A field of `width` bits from bit `lsb`.
    pub const fn new(name: &'static str, lsb: u32, width: u32, doc: &'static str) -> Self {
        Field { name, lsb, width, doc, word: PhantomData }
    }

    /// The word-independent description the doc generator walks.
    pub const fn info(self) -> RegFieldInfo {
        RegFieldInfo { name: self.name, lsb: self.lsb, width: self.width, doc: self.doc }
    }

    /// Position of the field's most significant bit.
    pub const fn msb(self) -> u32 {
        self.lsb + self.width - 1
    }
}

macro_rules! field_word_impl {
    ($word:ty) => {
        impl Field<$word> {
            /// The field's bits, in place: write this to a W1C register to
            /// clear just this field.
            pub const fn mask(self) -> $word {
                (low_mask(self.width) << self.lsb) as $word
            }

            /// The field's value in `word`.
            pub const fn get(self, word: $word) -> $word {
                ((word as u64 >> self.lsb) & low_mask(self.width)) as $word
            }

            /// `word` with this field replaced by `value` and every other bit
            /// untouched; an error if `value` does not fit the field.
            pub const fn set(self, word: $word, value: $word) -> Result<$word, Error> {
                if value as u64 > low_mask(self.width) {
                    return Err(Error::ValueTooWide { field: self.name, value: value as u64, width: self.width });
                }
                Ok((word & !self.mask()) | (value << self.lsb))
            }

            /// A word holding `value` in this field and zero elsewhere.
            pub const fn encode(self, value: $word) -> Result<$word, Error> {
                self.set(0, value)
            }
        }
    };
}
field_word_impl!(u32);
field_word_impl!(u64);

/// A register field as the doc generator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegFieldInfo {
    /// Name, as in the register table.
    pub name: &'static str,
    /// Least significant bit.
    pub lsb: u32,
    /// Width in bits.
    pub width: u32,
    /// What the field means.
    pub doc: &'static str,
}

/// One register as the doc generator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegInfo {
    /// The register's module name in [`crate::regs`].
    pub name: &'static str,
    /// Byte offset in BAR0.
    pub offset: u32,
    /// Width: 32, or 64 for a register that spans two 32-bit slots.
    pub bits: u32,
    /// Who may read and write it.
    pub access: Access,
    /// Value after reset.
    pub reset: Reset,
    /// What the register is for.
    pub doc: &'static str,
    /// Its fields, lowest bit first.
    pub fields: &'static [RegFieldInfo],
}

impl RegInfo {
    /// Bytes of BAR0 the register occupies.
    pub const fn bytes(&self) -> u32 {
        self.bits / 8
    }
}

/// Every bit some field of `fields` covers.
pub const fn fields_mask(fields: &[RegFieldInfo]) -> u64 {
    let mut mask = 0;
    let mut i = 0;
    while i < fields.len() {
        mask |= low_mask(fields[i].width) << fields[i].lsb;
        i += 1;
    }
    mask
}

/// Checks one register declaration: a 32- or 64-bit word at an offset
/// aligned to its size; fields non-empty, in ascending order, inside the word
/// and not overlapping; a reset value with no bits outside the fields.
pub const fn register_is_sound(reg: &RegInfo) -> bool {
    if !(reg.bits == 32 || reg.bits == 64) || !reg.offset.is_multiple_of(reg.bytes()) {
        return false;
    }
    let mut next_free = 0;
    let mut i = 0;
    while i < reg.fields.len() {
        let f = reg.fields[i];
        if f.width == 0 || f.lsb < next_free || f.lsb + f.width > reg.bits {
            return false;
        }
        next_free = f.lsb + f.width;
        i += 1;
    }
    match reg.reset {
        Reset::Value(v) => v & !fields_mask(reg.fields) == 0,
        Reset::Build => true,
    }
}

/// Checks a register map: every register sound, offsets ascending, no two
/// registers sharing a byte, all inside a BAR of `bar_bytes`.
pub const fn map_is_sound(regs: &[RegInfo], bar_bytes: u32) -> bool {
    let mut next_free = 0;
    let mut i = 0;
    while i < regs.len() {
        let r = &regs[i];
        if !register_is_sound(r) || r.offset < next_free || r.offset + r.bytes() > bar_bytes {
            return false;
        }
        next_free = r.offset + r.bytes();
        i += 1;
    }
    true
}

/// Declares registers once. Each entry
///
/// ```text
/// /// doc
/// name @ 0x0040: u32, Rw, reset 0 {
///     /// doc
///     FIELD = bit 0, width 1;
/// }
/// ```
///
/// becomes a module `name` holding `OFFSET`, `ACCESS`, `Word`, `RESET` (unless
/// the reset is `build`), one [`Field`] constant per field, `FIELDS` and
/// `INFO`, with a compile-time soundness check. `REGISTERS` lists every
/// `INFO`, and the map as a whole is checked against `BAR0_BYTES`.
macro_rules! registers {
    (@reset $word:ident, build) => {};
    (@reset $word:ident, $value:tt) => {
        /// Value after reset.
        #[allow(unused_parens)] // a computed reset value arrives parenthesised
        pub const RESET: $word = $value;
    };
    (@reset_info build) => { $crate::reg::Reset::Build };
    (@reset_info $value:tt) => { $crate::reg::Reset::Value($value as u64) };
    (
        $(
            $(#[doc = $doc:literal])*
            $name:ident @ $offset:literal : $word:ident, $access:ident, reset $reset:tt {
                $(
                    $(#[doc = $fdoc:literal])*
                    $field:ident = bit $lsb:literal, width $width:literal;
                )+
            }
        )+
    ) => {
        $(
            $(#[doc = $doc])*
            pub mod $name {
                use $crate::reg::{Access, Field, RegFieldInfo, RegInfo};

                /// Byte offset in BAR0.
                pub const OFFSET: u32 = $offset;
                /// Who may read and write the register.
                pub const ACCESS: Access = Access::$access;
                /// The register word.
                pub type Word = $word;
                registers!(@reset $word, $reset);
                $(
                    $(#[doc = $fdoc])*
                    pub const $field: Field<$word> =
                        Field::new(stringify!($field), $lsb, $width, concat!($($fdoc, "\n"),*));
                )+
                /// Every field, lowest bit first.
                pub const FIELDS: &[RegFieldInfo] = &[$($field.info()),+];
                /// The register as the doc generator sees it.
                pub const INFO: RegInfo = RegInfo {
                    name: stringify!($name),
                    offset: OFFSET,
                    bits: <$word>::BITS,
                    access: ACCESS,
                    reset: registers!(@reset_info $reset),
                    doc: concat!($($doc, "\n"),*),
                    fields: FIELDS,
                };
                const _: () = assert!(
                    $crate::reg::register_is_sound(&INFO),
                    concat!(
                        "register ", stringify!($name),
                        ": misaligned, or a field is empty, out of order, overlapping or outside the word,",
                        " or the reset value sets bits outside the fields"
                    )
                );
            }
        )+

        /// Every register, in offset order: the table the doc generator walks.
        pub const REGISTERS: &[$crate::reg::RegInfo] = &[$($name::INFO),+];
        const _: () = assert!(
            $crate::reg::map_is_sound(REGISTERS, BAR0_BYTES),
            "register map: offsets out of order, overlapping, or outside BAR0"
        );
    };
}
