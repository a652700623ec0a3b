//! The wire side: CRC logic and the RoCEv2 receive checks.
pub mod crc32;
mod crc_logic;
mod icrc_check;
mod rx_header;
pub use crc_logic::{CrcAdvance, CrcFold512};
pub use icrc_check::IcrcCheck;
pub use rx_header::{reason, RxHeaderDecode, RX_HDR_BITS, RX_HDR_FIELDS};
