//! `PayloadGather`: the requester's payload path. For each piece
//! {iova, len, last} of a packet's payload it issues one read command on a
//! DMA read client, takes the client's data (address-aligned: the byte at
//! `a` in lane `a % 64`, `tlast` on each command's last beat), moves each
//! piece from its IO lanes to its wire lanes with one `AxisRealign`
//! (`r = (dest - iova) mod 64`, `dest` = the packet's start lane plus the
//! bytes of its earlier pieces, mod 64) and joins the pieces with
//! `AxisJoin` (an OR of complementary beats, no shift). Out comes the
//! packet's payload as `TxBuild` takes it: from its start lane
//! (`TxBuild::payload_lane`), `tkeep` exactly its bytes, `tlast` on its last
//! beat, `tuser[0]` on that beat when the DMA flagged any of its data.
//!
//! Inputs: `s_piece` (pieces in order, `last` on a packet's last piece) and
//! `s_lane` (one start lane per packet, taken with its first piece). Both
//! enter small FIFOs whose `ready` is a register. Commands leave from a
//! register (`m_rd_cmd`) without waiting for data: up to `INFO_DEPTH`
//! pieces may be between command and data (the DMA engine's 28 tags per
//! client are the tighter bound). Each command's `r` and `last` wait in a
//! FIFO for its data; each piece's `last` enters a second one with its
//! first data beat and waits there for the realigned piece's last beat.

use super::AxisJoin;
use crate::axis::{AxisFifo, AxisIn, AxisOut, AxisRealign};
use crate::host::RdCmdOut;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Largest piece, in bytes (a page: the MTT's translation unit).
pub const PIECE_MAX: u64 = 4096;
/// Width of a piece's length (1..=PIECE_MAX).
pub const PIECE_LEN_BITS: usize = 13;
const _: () = assert!(PIECE_MAX < 1 << PIECE_LEN_BITS && PIECE_MAX >= 1 << (PIECE_LEN_BITS - 1));

/// Pieces between command and data, log2 (and of realigned pieces not yet joined).
const INFO_LOG: usize = 5;

/// One piece of a packet's payload: `len` bytes (1..=`PIECE_MAX`) at IOVA
/// `iova`; `last` on the packet's last piece.
#[derive(LogicInterface, Default)]
#[join = "PieceIn"]
pub struct PieceOut {
    pub iova: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<PIECE_LEN_BITS>>,
    pub last: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "PieceOut"]
pub struct PieceIn {
    pub iova: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<PIECE_LEN_BITS>>,
    pub last: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A packet's payload start lane (`TxBuild::payload_lane` of its header).
#[derive(LogicInterface, Default)]
#[join = "LaneIn"]
pub struct LaneOut {
    pub lane: Signal<Out, Bits<6>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "LaneOut"]
pub struct LaneIn {
    pub lane: Signal<In, Bits<6>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct PayloadGather {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_piece: PieceIn,
    pub s_lane: LaneIn,
    pub m_rd_cmd: RdCmdOut,
    pub s_rd_data: AxisIn<512, 64, 1>,
    pub m_axis: AxisOut<512, 64, 1>,
    // ---- inputs
    /// pieces: iova in tdata, len in tuser, last in tlast
    pq: AxisFifo<64, 1, PIECE_LEN_BITS, 2>,
    lq: AxisFifo<6, 1, 1, 2>,
    // ---- commands
    in_pkt: Reg<Bit>,
    dest_q: Reg<Bits<6>>,
    cmd_addr: Reg<Bits<64>>,
    cmd_len: Reg<Bits<PIECE_LEN_BITS>>,
    cmd_valid: Reg<Bit>,
    dest: Signal<Local, Bits<6>>,
    p_iova: Signal<Local, Bits<64>>,
    p_len: Signal<Local, Bits<PIECE_LEN_BITS>>,
    p_last: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    /// per command: {last, r}
    info_a: AxisFifo<7, 1, 1, INFO_LOG>,
    // ---- data into the realigner
    /// inside a piece's data (its first beat taken)
    d_mid: Reg<Bit>,
    data_ok: Signal<Local, Bit>,
    d_fire: Signal<Local, Bit>,
    realign: AxisRealign,
    /// per piece in the realigner: last
    info_b: AxisFifo<1, 1, 1, INFO_LOG>,
    // ---- realigned pieces into the join
    rj_ok: Signal<Local, Bit>,
    join: AxisJoin,
    kind: TypeTag<Self>,
}

impl Logic for PayloadGather {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_pkt, dest_q, cmd_addr, cmd_len, cmd_valid, d_mid);
        clock!(self, clock, pq, lq, info_a, realign, info_b, join);
        self.pq.reset.next = self.reset.val();
        self.lq.reset.next = self.reset.val();
        self.info_a.reset.next = self.reset.val();
        self.realign.reset.next = self.reset.val();
        self.info_b.reset.next = self.reset.val();
        self.join.reset.next = self.reset.val();

        // ---- input FIFOs (their ready is a register)
        self.pq.s_axis.tdata.next = self.s_piece.iova.val();
        self.pq.s_axis.tuser.next = self.s_piece.len.val();
        self.pq.s_axis.tlast.next = self.s_piece.last.val();
        self.pq.s_axis.tkeep.next = 0.into();
        self.pq.s_axis.tvalid.next = self.s_piece.valid.val();
        self.s_piece.ready.next = self.pq.s_axis.tready.val();
        self.lq.s_axis.tdata.next = self.s_lane.lane.val();
        self.lq.s_axis.tkeep.next = 0.into();
        self.lq.s_axis.tlast.next = false;
        self.lq.s_axis.tuser.next = 0.into();
        self.lq.s_axis.tvalid.next = self.s_lane.valid.val();
        self.s_lane.ready.next = self.lq.s_axis.tready.val();

        // ---- commands: one per piece, from a register
        self.p_iova.next = self.pq.m_axis.tdata.val();
        self.p_len.next = self.pq.m_axis.tuser.val();
        self.p_last.next = self.pq.m_axis.tlast.val();
        self.dest.next = self.dest_q.q.val();
        if !self.in_pkt.q.val() {
            self.dest.next = self.lq.m_axis.tdata.val();
        }
        self.issue.next = self.pq.m_axis.tvalid.val()
            & (self.in_pkt.q.val() | self.lq.m_axis.tvalid.val())
            & !self.info_a.full.val()
            & (!self.cmd_valid.q.val() | self.m_rd_cmd.ready.val());
        self.pq.m_axis.tready.next = self.issue.val();
        self.lq.m_axis.tready.next = self.issue.val() & !self.in_pkt.q.val();
        self.info_a.s_axis.tvalid.next = self.issue.val();
        self.info_a.s_axis.tdata.next = (bit_cast::<7, 1>(self.p_last.val().into()) << 6)
            | bit_cast::<7, 6>(self.dest.val() - self.p_iova.val().get_bits::<6>(0));
        self.info_a.s_axis.tkeep.next = 0.into();
        self.info_a.s_axis.tlast.next = false;
        self.info_a.s_axis.tuser.next = 0.into();
        if self.issue.val() {
            self.cmd_addr.d.next = self.p_iova.val();
            self.cmd_len.d.next = self.p_len.val();
            self.cmd_valid.d.next = true;
            self.dest_q.d.next = self.dest.val() + self.p_len.val().get_bits::<6>(0);
            self.in_pkt.d.next = !self.p_last.val();
        } else if self.m_rd_cmd.ready.val() {
            self.cmd_valid.d.next = false;
        }
        self.m_rd_cmd.addr.next = self.cmd_addr.q.val();
        self.m_rd_cmd.len.next = bit_cast::<32, PIECE_LEN_BITS>(self.cmd_len.q.val());
        self.m_rd_cmd.valid.next = self.cmd_valid.q.val();

        // ---- data into the realigner, each piece with its r
        self.data_ok.next =
            self.realign.s_axis.tready.val() & self.info_a.m_axis.tvalid.val() & !self.info_b.full.val();
        self.s_rd_data.tready.next = self.data_ok.val();
        self.d_fire.next = self.s_rd_data.tvalid.val() & self.data_ok.val();
        self.realign.s_axis.tdata.next = self.s_rd_data.tdata.val();
        self.realign.s_axis.tkeep.next = self.s_rd_data.tkeep.val();
        self.realign.s_axis.tlast.next = self.s_rd_data.tlast.val();
        self.realign.s_axis.tuser.next = (bit_cast::<7, 6>(self.info_a.m_axis.tdata.val().get_bits::<6>(0)) << 1)
            | bit_cast::<7, 1>(self.s_rd_data.tuser.val());
        self.realign.s_axis.tvalid.next = self.d_fire.val();
        self.info_a.m_axis.tready.next = self.d_fire.val() & self.s_rd_data.tlast.val();
        // a piece's realigned beats may leave before its last beat enters: its entry goes in with its first
        self.info_b.s_axis.tvalid.next = self.d_fire.val() & !self.d_mid.q.val();
        if self.d_fire.val() {
            self.d_mid.d.next = !self.s_rd_data.tlast.val();
        }
        self.info_b.s_axis.tdata.next = bit_cast::<1, 1>(self.info_a.m_axis.tdata.val().get_bit(6).into());
        self.info_b.s_axis.tkeep.next = 0.into();
        self.info_b.s_axis.tlast.next = false;
        self.info_b.s_axis.tuser.next = 0.into();

        // ---- realigned pieces into the join, each last beat with its packet's end
        self.rj_ok.next = self.join.s_axis.tready.val() & self.info_b.m_axis.tvalid.val();
        self.realign.m_axis.tready.next = self.rj_ok.val();
        self.join.s_axis.tdata.next = self.realign.m_axis.tdata.val();
        self.join.s_axis.tkeep.next = self.realign.m_axis.tkeep.val();
        self.join.s_axis.tlast.next = self.realign.m_axis.tlast.val();
        self.join.s_axis.tuser.next =
            (bit_cast::<2, 1>(self.info_b.m_axis.tdata.val()) << 1) | bit_cast::<2, 1>(self.realign.m_axis.tuser.val());
        self.join.s_axis.tvalid.next = self.realign.m_axis.tvalid.val() & self.rj_ok.val();
        self.info_b.m_axis.tready.next =
            self.realign.m_axis.tvalid.val() & self.rj_ok.val() & self.realign.m_axis.tlast.val();

        self.m_axis.tdata.next = self.join.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.join.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.join.m_axis.tlast.val();
        self.m_axis.tuser.next = self.join.m_axis.tuser.val();
        self.m_axis.tvalid.next = self.join.m_axis.tvalid.val();
        self.join.m_axis.tready.next = self.m_axis.tready.val();

        if self.reset.val() {
            self.in_pkt.d.next = false;
            self.cmd_valid.d.next = false;
            self.d_mid.d.next = false;
        }
    }
}
