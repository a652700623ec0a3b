//! The wire side: CRC logic, the RoCEv2 receive checks and the parser.
pub mod crc32;
mod crc_logic;
mod icrc_check;
mod opcode_info;
mod rx_header;
mod rx_parse;
mod tx_build;
pub use crc_logic::{CrcAdvance, CrcFold512, CrcRetreat4};
pub use icrc_check::IcrcCheck;
pub use opcode_info::OpcodeInfo;
pub use rx_header::{reason, RxHeaderDecode, RX_HDR_BITS, RX_HDR_FIELDS};
pub use rx_parse::RxParse;
pub use tx_build::{TxBuild, TX_HDR_BITS, TX_HDR_FIELDS};
