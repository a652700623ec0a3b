//! The wire side: CRC logic, the RoCEv2 receive checks and the parser.
pub mod crc32;
mod crc_logic;
mod icrc_check;
mod rx_header;
mod rx_parse;
pub use crc_logic::{CrcAdvance, CrcFold512};
pub use icrc_check::IcrcCheck;
pub use rx_header::{reason, RxHeaderDecode, RX_HDR_BITS, RX_HDR_FIELDS};
pub use rx_parse::RxParse;
