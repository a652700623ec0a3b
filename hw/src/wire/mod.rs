//! The wire side: CRC logic, the RoCEv2 receive checks and the parser.
pub mod crc32;
mod crc_logic;
mod icrc_check;
mod icrc_gen;
mod opcode_info;
mod packed;
mod rx_header;
mod rx_parse;
mod tx_build;
pub use crc_logic::{CrcAhead, CrcBack, CrcFoldPart, IcrcResidue, FOLD_CHUNKS};
pub use icrc_check::IcrcCheck;
pub use icrc_gen::IcrcGen;
pub use opcode_info::OpcodeInfo;
pub use rx_header::{
    reason, rx_field_lsb, RxHdrExpand, RxHdrPack, RxHeaderDecode, RX_HDR_BITS, RX_HDR_FIELDS, RX_HDR_PACKED_BITS,
    RX_HDR_STORE_BITS,
};
pub use rx_parse::RxParse;
pub use tx_build::{
    tx_field_lsb, TxBuild, ATOMIC_ETH_BYTES, BTH_BYTES, ETH_BYTES, ICRC_BYTES, IMMDT_BYTES, IPV4_BYTES, IPV6_BYTES,
    PAD_MAX_BYTES, RETH_BYTES, TX_HDR_BITS, TX_HDR_FIELDS, TX_MAX_HDR_BYTES, TX_MAX_PAYLOAD_HDR_BYTES, UDP_BYTES,
    VLAN_TAG_BYTES,
};
