//! The RC transport's blocks: the send scheduler ([`SendSched`]), the
//! requester's payload path ([`PayloadGather`], [`AxisJoin`]), the
//! receive side's ([`PayloadScatter`]).
//! docs/transport_blocks.md, docs/streams.md ("Gather and scatter").

mod axis_join;
mod payload_gather;
mod payload_scatter;
mod send_sched;
pub use axis_join::AxisJoin;
pub use payload_gather::{LaneIn, LaneOut, PayloadGather, PieceIn, PieceOut, PIECE_LEN_BITS, PIECE_MAX};
pub use payload_scatter::{PayloadScatter, PktDoneIn, PktDoneOut, ScatterPktIn, ScatterPktOut, SCATTER_INFLIGHT};
pub use send_sched::*;

use rust_hdl::prelude::*;

/// A QPN offered (valid/ready): work for a QP, a disarm, or, outgoing, a
/// grant or an expiry. `Q` is the QPN width.
#[derive(LogicInterface, Default)]
#[join = "QpnOut"]
pub struct QpnIn<const Q: usize> {
    pub qpn: Signal<In, Bits<Q>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "QpnIn"]
pub struct QpnOut<const Q: usize> {
    pub qpn: Signal<Out, Bits<Q>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}
