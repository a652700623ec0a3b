//! The RC transport's blocks.
mod axis_join;
mod payload_gather;
pub use axis_join::AxisJoin;
pub use payload_gather::{LaneIn, LaneOut, PayloadGather, PieceIn, PieceOut, PIECE_LEN_BITS, PIECE_MAX};
