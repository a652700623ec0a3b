//! The rnic's hardware/software contract, defined once: the register map of
//! BAR0, the doorbell, the layouts of work queue entries, completions and
//! contexts in host memory, the codes they carry, the ring convention and the
//! ABI version. `docs/regmap.md` is generated from it (`make docs`) and a test
//! fails when that file is stale.
//!
//! Who uses what:
//!
//! * the RTL imports offsets, field positions and widths as constants
//!   (`regs::doorbell::OFFSET`, `regs::doorbell::QUEUE.lsb`,
//!   `layouts::cqe::OWNER.pos()`, `layouts::qpc::SQ_PSN.width`), all usable
//!   in const contexts and const generic arguments;
//! * the driver and the simulator read and write registers through
//!   [`reg::Field`] on register words, and entries through
//!   [`layout::LayoutField`] on byte slices, which return [`Error`] on a short
//!   buffer or a value that does not fit instead of panicking;
//! * the doc generator walks [`regs::REGISTERS`], [`layouts::LAYOUTS`] and
//!   [`codes::CODES`].
//!
//! Each register, layout and code enum is declared once through a macro
//! (`registers!`, `layouts!`, `codes!`); the declarations are checked at
//! compile time (no overlapping fields, everything inside its word or entry,
//! registers aligned and apart).
//!
//! ```
//! use rnic_contract::{codes::WcStatus, layouts::{cqe, qpc}, regs, ring};
//!
//! // The RTL sizes signals and places bits from the constants.
//! struct Bits<const N: usize>;
//! let _psn: Bits<{ qpc::SQ_PSN.width as usize }> = Bits;
//! const DOORBELL: u32 = regs::doorbell::OFFSET;
//! const OWNER_BIT: usize = cqe::OWNER.pos();
//! assert_eq!((DOORBELL, OWNER_BIT), (0x1000, 255));
//!
//! // The driver and the simulator use the accessors.
//! assert_eq!(regs::id_magic::RESET.to_be_bytes(), *b"RNIC");
//! let ctrl = regs::ctrl::ENABLE.set(0, 1).unwrap();
//! assert_eq!(regs::ctrl::ENABLE.get(ctrl), 1);
//!
//! let mut entry = [0u8; cqe::SIZE];
//! cqe::WR_ID.set(&mut entry, 42).unwrap();
//! cqe::STATUS.set(&mut entry, WcStatus::RemAccessErr).unwrap();
//! cqe::OWNER.set(&mut entry, ring::owner_for(0, 4)).unwrap();
//! assert_eq!(cqe::STATUS.get(&entry), Ok(WcStatus::RemAccessErr));
//! assert!(cqe::WR_ID.get(&entry[..4]).is_err());
//! ```

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[macro_use]
pub mod reg;
#[macro_use]
pub mod layout;
#[macro_use]
pub mod codes;
pub mod doc;
mod error;
pub mod layouts;
pub mod mr;
pub mod qp_modify;
pub mod regs;
pub mod ring;

pub use error::Error;

/// ABI major version: changes when a register, field or layout moves or
/// changes meaning.
pub const ABI_MAJOR: u16 = 0;
/// ABI minor version: changes when something is added in reserved space.
pub const ABI_MINOR: u16 = 8;
/// The version as `id_version` reads: MAJOR in bits 31:16, MINOR in 15:0.
pub const ABI_VERSION: u32 = (ABI_MAJOR as u32) << 16 | ABI_MINOR as u32;

/// Whether a driver built against this contract can drive a device whose
/// `id_version` reads `device`: same MAJOR and at least this MINOR, and while
/// MAJOR is 0 (the contract still settling) the same MINOR.
pub const fn abi_compatible(device: u32) -> bool {
    let major = regs::id_version::MAJOR.get(device) as u16;
    let minor = regs::id_version::MINOR.get(device) as u16;
    major == ABI_MAJOR && if ABI_MAJOR == 0 { minor == ABI_MINOR } else { minor >= ABI_MINOR }
}
