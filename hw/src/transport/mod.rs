//! The RC transport's blocks: the send scheduler ([`SendSched`]), the
//! per-QP retry timers ([`RetryTimer`]), the
//! requester's payload path ([`PayloadGather`], [`AxisJoin`]), the receive
//! side's ([`PayloadScatter`]), the transmit arbiter ([`TxArb`]), the
//! receive path's ICRC hold ([`RxHold`]), the table of outstanding send
//! WQEs ([`Inflight`]), the requester's packet generator ([`ReqGen`]) with
//! the path-to-header mapping ([`PathHdr`]), the responder's per-packet
//! decision ([`RespCheck`]), its answers ([`RespGen`] cutting ACKs and READ
//! responses into packets, [`AckGen`] their headers, [`RespTx`] the path), and the
//! completer's ACK path ([`CompAck`]).
//! docs/transport_blocks.md, docs/streams.md ("Gather and scatter").

mod ack_gen;
mod ack_hold;
mod arm_merge;
mod atomic_exec;
mod axis_join;
mod comp_ack;
mod comp_read;
mod comp_stats;
mod comp_walk;
mod completer;
mod cqe_merge;
mod event_count;
mod exec_side;
mod inflight;
mod inflight_mux;
mod path_hdr;
mod payload_gather;
mod payload_scatter;
mod piece_hold;
mod read_ahead;
mod read_walk;
mod recv_walk;
mod replay_table;
mod req_decide;
mod req_fetch;
mod req_fetch_parts;
mod req_gen;
mod req_payload;
mod req_setup;
mod req_slots;
mod req_tx;
mod req_wb;
mod req_wqe;
mod resp_check;
mod resp_exec;
mod resp_gen;
mod resp_stats;
mod resp_tx;
mod responder;
mod retry_timer;
mod rewind_table;
mod rq_ahead;
mod rx_hold;
mod rx_inflight;
mod rx_lookup;
mod rx_pay_split;
mod send_sched;
mod sge_walk;
mod sq_ahead;
mod sq_window;
mod tx_arb;
mod work_merge;
mod xlate_ahead;
pub use ack_gen::*;
pub use ack_hold::{AckHold, ACK_HOLD_BITS, ACK_HOLD_LOG};
pub use arm_merge::*;
pub use atomic_exec::*;
pub use axis_join::AxisJoin;
pub use comp_ack::*;
pub use comp_read::{CompRead, PlaceAnsIn, PlaceAnsOut, PlaceReqIn, PlaceReqOut, ReadHintIn, ReadHintOut};
pub use comp_stats::{CompStats, COMP_STATS};
pub use comp_walk::{CompWalk, WalkState};
pub use completer::Completer;
pub use cqe_merge::CqeMerge;
pub use event_count::{EventCount8, EVENT_COUNT_LATENCY};
pub use exec_side::{ExecSide, EXEC_SIDE_BITS, EXEC_SIDE_LOG};
pub use inflight::*;
pub use inflight_mux::{InflightMux, INFLIGHT_MUX_ORDER_LOG};
pub use path_hdr::{PathHdr, PATH_BITS};
pub use payload_gather::{LaneIn, LaneOut, PayloadGather, PieceIn, PieceOut, PIECE_LEN_BITS, PIECE_MAX};
pub use payload_scatter::{PayloadScatter, PktDoneIn, PktDoneOut, ScatterPktIn, ScatterPktOut, SCATTER_INFLIGHT};
pub use piece_hold::{PieceHold, PIECE_HOLD_LATENCY, PIECE_HOLD_LOG};
pub use read_ahead::{
    ReadAhead, ReadWqeIn, ReadWqeOut, READ_AHEAD_LATENCY, READ_AHEAD_LOG, READ_AHEAD_PUT_GAP, READ_AHEAD_SLOTS,
    READ_AHEAD_TAG_BITS,
};
pub use read_walk::{ReadWalk, READ_WALK_AHEAD_EXTRA, READ_WALK_READ_EXTRA};
pub use recv_walk::{RecvWalk, RECV_WALK_ASK_EXTRA, RECV_WALK_READ_EXTRA};
pub use replay_table::*;
pub use req_decide::ReqDecide;
pub use req_fetch::*;
pub use req_fetch_parts::SlotQueue;
pub use req_gen::*;
pub use req_payload::*;
pub use req_setup::{ReqSetup, LW as REQ_LEN_BITS};
pub use req_slots::ReqSlots;
pub use req_tx::{ReqTx, REQ_TX_HDR_LATENCY};
pub use req_wb::ReqWriteBack;
pub use req_wqe::ReqWqeStage;
pub use resp_check::*;
pub use resp_exec::*;
pub use resp_gen::*;
pub use resp_stats::{RespStats, RESP_NAK_CODES};
pub use resp_tx::{RespTx, RESP_TX_ACK_LATENCY};
pub use responder::Responder;
pub use retry_timer::*;
pub use rewind_table::*;
pub use rq_ahead::{
    RqAhead, RqHintIn, RqHintOut, RQ_AHEAD_HINT_LATENCY, RQ_AHEAD_HIT_LATENCY, RQ_AHEAD_LOG, RQ_AHEAD_MISS_EXTRA,
    RQ_HINTS,
};
pub use rx_hold::{RxHold, RING_BEATS, RX_HOLD_MAX_BEATS, RX_HOLD_MAX_PAYLOAD};
pub use rx_inflight::{RxInflight, RX_INFLIGHT_LOG, RX_INFLIGHT_SLOTS};
pub use rx_lookup::*;
pub use rx_pay_split::RxPaySplit;
pub use send_sched::*;
pub use sge_walk::{SgeReqIn, SgeReqOut, SgeWalk, SGE_WALK_IDX_BITS};
pub use sq_ahead::{
    SqAhead, WqeAtIn, WqeAtOut, SQ_AHEAD_HIT_LATENCY, SQ_AHEAD_LOG, SQ_AHEAD_MISS_EXTRA, SQ_AHEAD_OUTSTANDING,
    SQ_AHEAD_WINDOWS,
};
pub use sq_window::SqWindow;
pub use tx_arb::{TxArb, TX_ARB_ORDER_DEPTH, TX_ARB_SOURCES};
pub use work_merge::{WorkMerge, WORK_MERGE_LATENCY};
pub use xlate_ahead::{XlateAhead, XLATE_AHEAD_ANS_LOG, XLATE_AHEAD_BEATS, XLATE_AHEAD_BITS, XLATE_AHEAD_LOG};

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
