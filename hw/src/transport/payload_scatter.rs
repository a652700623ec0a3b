//! `PayloadScatter`: the receive side's payload path, the mirror of
//! [`PayloadGather`](super::PayloadGather). A received packet's payload
//! arrives in its wire lanes (as `RxParse` hands it out, after `rx_hold`'s
//! ICRC verdict: `tkeep` exactly its bytes, the first in lane `lane`, `tlast`
//! on its last beat; one beat with `tkeep` 0 when it is empty). It is cut
//! into the pieces the transport's checks produced (destination IOVA ranges
//! of 1..`PIECE_MAX` bytes, cut at page boundaries by the MTT translation;
//! their lengths add up exactly to the payload's), each piece moved from
//! its wire lanes to its IO lanes by one `AxisRealign`
//! (`r = (iova - source lane of its first byte) mod 64`) and written by one
//! command on a DMA write client. Once every write of a packet is complete,
//! `m_done` says so, with `err` if any failed: the responder sends its ACK
//! or writes its CQE only after that.
//!
//! Ports:
//! * `s_pkt` {`lane`, `drop`}: one per packet, in payload order. `drop`:
//!   take the packet's payload and write nothing (a packet the transport
//!   NAKed or dropped, or one with an empty payload: a packet that is not
//!   dropped has at least one byte); no pieces come for it and it gets no
//!   `m_done` (the transport knows it dropped it).
//! * `s_piece` {`iova`, `len`, `last`}: the pieces of each packet not
//!   dropped, in order, `last` on its last one.
//! * `s_axis`: the payloads (`tuser` is not used: the verdict was applied
//!   before this block).
//! * `m_wr`: one write per piece: `addr` = `iova`, `len`, its bytes
//!   address-aligned (the byte for IOVA `a` in lane `a % 64`), `tkeep`
//!   exact, `tlast` on its last beat.
//! * `wr_done`, `wr_done_err`: the DMA engine's pulse per completed write of
//!   this client, in command order (`DmaWr`: completions return in issue
//!   order).
//! * `m_done` {`err`}: one per packet not dropped, in packet order, after
//!   the `wr_done` of its last piece; `err` if any of its writes failed.
//!
//! Structure: `s_axis` enters a skid buffer, `s_pkt` and `s_piece` small
//! FIFOs (every input `ready` is a register). The split stage holds the
//! current piece (its source lane `pos`, its end `end` counted from lane 0 of
//! the current beat, its `r`) and offers the input beat's lanes of that piece
//! to the realigner through a register; a beat that holds the end of one
//! piece and the start of the next is offered once per piece with the
//! complementary `tkeep` halves (no shift). The next piece is loaded in the
//! cycle the current one ends, so a piece costs one cycle only when it ends
//! inside a beat. The realigner moves each piece to its IO lanes; its output
//! register drives `m_wr`, with `addr` and `len` from a FIFO the piece
//! entered when it was loaded (at least `AxisRealign::LATENCY` cycles before
//! its first beat comes out, so the entry is always there). A third FIFO
//! holds per written piece whether it ends its packet, popped by `wr_done`;
//! the completion of a packet's last piece enters the `m_done` FIFO.
//! Pieces loaded and not yet retired (written and completed, and for a
//! packet's last piece its `m_done` taken) are counted; the split loads a
//! piece only while fewer than [`SCATTER_INFLIGHT`] are, so none of the
//! FIFOs behind it can overflow (`wr_done` has no flow control).
//!
//! Rate: one input beat per cycle, plus one cycle per piece that ends
//! inside a beat (not at lane 63 and not at its packet's end) and one per
//! piece whose last bytes pass lane 63 in the realigner (measured in
//! `tb/tests/payload_scatter.rs`: `s_axis` takes a run of packets in exactly
//! that many cycles). A dropped packet costs one cycle per beat.
//! Latency: [`PayloadScatter::LATENCY`] cycles from a beat taken to its
//! first write beat offered (its piece loaded before),
//! [`PayloadScatter::PIECE_LATENCY`] from a piece taken (its beat there
//! before); [`PayloadScatter::DONE_LATENCY`] from the last
//! `wr_done` of a packet to its `m_done` offered.

use super::{PieceIn, PIECE_LEN_BITS, PIECE_MAX};
use crate::axis::{AxisFifo, AxisIn, AxisRealign, AxisSkidBuffer};
use crate::host::WrStreamOut;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Pieces loaded and not yet retired, at most (log2): the depth of the
/// FIFOs behind the split (32: the DMA engine's `DMA_WR_TAGS`, which bounds
/// the writes in flight anyway).
const INFLIGHT_LOG: usize = 5;
/// Pieces loaded and not yet retired, at most.
pub const SCATTER_INFLIGHT: u64 = 1 << INFLIGHT_LOG;
/// The split loads a piece while the count is at most this: the count is
/// checked a cycle late and grows by at most one per cycle, so it never
/// passes `SCATTER_INFLIGHT`, the entries the FIFOs' RAMs hold.
const LOAD_LIMIT: u64 = SCATTER_INFLIGHT - 2;
/// A piece's end, from lane 0 of the beat it starts in: at most 63 + PIECE_MAX.
const _: () = assert!(63 + PIECE_MAX < 1 << PIECE_LEN_BITS);

/// A received packet's payload: its first byte's lane (`payload_lane` of
/// its header), and whether to discard it. `imm_valid`: the packet's bytes
/// are `imm` instead (8 bytes from lane 0, in the place of its empty beat:
/// an atomic ACK's original value, which arrives in its header).
#[derive(LogicInterface, Default)]
#[join = "ScatterPktIn"]
pub struct ScatterPktOut {
    pub lane: Signal<Out, Bits<6>>,
    pub drop: Signal<Out, Bit>,
    pub imm: Signal<Out, Bits<64>>,
    pub imm_valid: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ScatterPktOut"]
pub struct ScatterPktIn {
    pub lane: Signal<In, Bits<6>>,
    pub drop: Signal<In, Bit>,
    pub imm: Signal<In, Bits<64>>,
    pub imm_valid: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A packet's payload is in host memory (every write of it completed);
/// `err`: a write of it failed.
#[derive(LogicInterface, Default)]
#[join = "PktDoneIn"]
pub struct PktDoneOut {
    pub err: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "PktDoneOut"]
pub struct PktDoneIn {
    pub err: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock)]
pub struct PayloadScatter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_pkt: ScatterPktIn,
    pub s_piece: PieceIn,
    pub s_axis: AxisIn<512, 64, 1>,
    pub m_wr: WrStreamOut,
    /// A write of this client completed (pulse, in command order).
    pub wr_done: Signal<In, Bit>,
    /// With `wr_done`: it failed.
    pub wr_done_err: Signal<In, Bit>,
    pub m_done: PktDoneOut,
    // ---- inputs: packets {drop, lane}, pieces (iova in tdata, len in tuser, last in tlast), payload beats
    pkt_q: AxisFifo<72, 1, 1, 2>,
    piece_q: AxisFifo<64, 1, PIECE_LEN_BITS, 2>,
    beat: AxisSkidBuffer<512, 64, 1>,
    // ---- split: the packet and the piece being cut from the input beats
    pkt_on: Reg<Bit>,
    drop_on: Reg<Bit>,
    cur_on: Reg<Bit>,
    /// lane of the current beat the piece's next byte is in
    pos: Reg<Bits<6>>,
    /// the piece's end, in bytes from lane 0 of the current beat
    end: Reg<Bits<PIECE_LEN_BITS>>,
    cur_r: Reg<Bits<6>>,
    cur_last: Reg<Bit>,
    /// pieces loaded and not retired; a piece may be loaded
    owed: Reg<Bits<6>>,
    room: Reg<Bit>,
    // the beat offered to the realigner
    o_valid: Reg<Bit>,
    o_data: Reg<Bits<512>>,
    /// The packet's bytes come from `imm` (`ScatterPktIn::imm_valid`).
    imm_on: Reg<Bit>,
    imm: Reg<Bits<64>>,
    o_keep: Reg<Bits<64>>,
    o_last: Reg<Bit>,
    o_r: Reg<Bits<6>>,
    past: Signal<Local, Bit>,
    ends: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    drop_take: Signal<Local, Bit>,
    pkt_end: Signal<Local, Bit>,
    cont: Signal<Local, Bit>,
    need: Signal<Local, Bit>,
    load_next: Signal<Local, Bit>,
    load_new: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    base: Signal<Local, Bits<6>>,
    keep_lo: Signal<Local, Bits<64>>,
    keep_hi: Signal<Local, Bits<64>>,
    cpl_fire: Signal<Local, Bit>,
    done_fire: Signal<Local, Bit>,
    retire_mid: Signal<Local, Bit>,
    ones64: Constant<Bits<64>>,
    hi_mask: Constant<Bits<512>>,
    c64: Constant<Bits<PIECE_LEN_BITS>>,
    load_limit: Constant<Bits<6>>,
    // ---- realign and write
    realign: AxisRealign,
    /// per piece loaded: iova in tdata, len in tuser; popped by its write's last beat
    wr_info: AxisFifo<64, 1, PIECE_LEN_BITS, INFLIGHT_LOG>,
    // ---- completions
    /// per piece loaded: does it end its packet (tlast); popped by its `wr_done`
    cpl_info: AxisFifo<1, 1, 1, INFLIGHT_LOG>,
    err_acc: Reg<Bit>,
    /// per packet completed: err in tdata
    done_q: AxisFifo<1, 1, 1, INFLIGHT_LOG>,
    kind: TypeTag<Self>,
}

impl Default for PayloadScatter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_pkt: Default::default(),
            s_piece: Default::default(),
            s_axis: Default::default(),
            m_wr: Default::default(),
            wr_done: Default::default(),
            wr_done_err: Default::default(),
            m_done: Default::default(),
            pkt_q: Default::default(),
            piece_q: Default::default(),
            beat: Default::default(),
            pkt_on: Default::default(),
            drop_on: Default::default(),
            cur_on: Default::default(),
            pos: Default::default(),
            end: Default::default(),
            cur_r: Default::default(),
            cur_last: Default::default(),
            owed: Default::default(),
            room: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            imm_on: Default::default(),
            imm: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_r: Default::default(),
            past: Default::default(),
            ends: Default::default(),
            emit: Default::default(),
            drop_take: Default::default(),
            pkt_end: Default::default(),
            cont: Default::default(),
            need: Default::default(),
            load_next: Default::default(),
            load_new: Default::default(),
            load: Default::default(),
            base: Default::default(),
            keep_lo: Default::default(),
            keep_hi: Default::default(),
            cpl_fire: Default::default(),
            done_fire: Default::default(),
            retire_mid: Default::default(),
            ones64: Constant::new(u64::MAX.into()),
            hi_mask: Constant::new(!Bits::<512>::from(u64::MAX)),
            c64: Constant::new(64u64.into()),
            load_limit: Constant::new(LOAD_LIMIT.into()),
            realign: Default::default(),
            wr_info: Default::default(),
            cpl_info: Default::default(),
            err_acc: Default::default(),
            done_q: Default::default(),
            kind: Default::default(),
        }
    }
}

impl PayloadScatter {
    /// Cycles from a payload beat taken on `s_axis` to its first write beat
    /// offered on `m_wr`, its piece loaded and nothing ahead of it: the skid
    /// buffer's output register, the split's, and the realigner.
    pub const LATENCY: u64 = 2 + AxisRealign::LATENCY;
    /// Cycles from a piece taken on `s_piece` (the first of its packet, its
    /// command taken with it) to its first write beat offered, its beat
    /// there before: the piece FIFO's two cycles and the load, then
    /// [`Self::LATENCY`] less the skid buffer's cycle.
    pub const PIECE_LATENCY: u64 = 3 + Self::LATENCY - 1;
    /// Cycles from the `wr_done` of a packet's last piece to its `m_done`
    /// offered: the done FIFO's write to its output register.
    pub const DONE_LATENCY: u64 = 2;
}

impl Logic for PayloadScatter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, pkt_on, drop_on, cur_on, pos, end, cur_r, cur_last, owed, room, o_valid, o_data, imm_on, imm,
            o_keep, o_last, o_r, err_acc
        );
        clock!(self, clock, pkt_q, piece_q, beat, realign, wr_info, cpl_info, done_q);
        self.pkt_q.reset.next = self.reset.val();
        self.piece_q.reset.next = self.reset.val();
        self.beat.reset.next = self.reset.val();
        self.realign.reset.next = self.reset.val();
        self.wr_info.reset.next = self.reset.val();
        self.cpl_info.reset.next = self.reset.val();
        self.done_q.reset.next = self.reset.val();

        // ---- inputs (their ready is a register)
        self.pkt_q.s_axis.tdata.next = (bit_cast::<72, 64>(self.s_pkt.imm.val()) << 8)
            | (bit_cast::<72, 1>(self.s_pkt.imm_valid.val().into()) << 7)
            | (bit_cast::<72, 1>(self.s_pkt.drop.val().into()) << 6)
            | bit_cast::<72, 6>(self.s_pkt.lane.val());
        self.pkt_q.s_axis.tkeep.next = 0.into();
        self.pkt_q.s_axis.tlast.next = false;
        self.pkt_q.s_axis.tuser.next = 0.into();
        self.pkt_q.s_axis.tvalid.next = self.s_pkt.valid.val();
        self.s_pkt.ready.next = self.pkt_q.s_axis.tready.val();
        self.piece_q.s_axis.tdata.next = self.s_piece.iova.val();
        self.piece_q.s_axis.tuser.next = self.s_piece.len.val();
        self.piece_q.s_axis.tlast.next = self.s_piece.last.val();
        self.piece_q.s_axis.tkeep.next = 0.into();
        self.piece_q.s_axis.tvalid.next = self.s_piece.valid.val();
        self.s_piece.ready.next = self.piece_q.s_axis.tready.val();
        self.beat.s_axis.tdata.next = self.s_axis.tdata.val();
        self.beat.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.beat.s_axis.tlast.next = self.s_axis.tlast.val();
        self.beat.s_axis.tuser.next = self.s_axis.tuser.val();
        self.beat.s_axis.tvalid.next = self.s_axis.tvalid.val();
        self.s_axis.tready.next = self.beat.s_axis.tready.val();

        // ---- split: offer the current beat's lanes of the current piece
        // the piece goes past this beat; it ends in it (at lane 63 at the latest)
        self.past.next = self.end.q.val().get_bits::<7>(6).any();
        self.ends.next = !self.past.val() | (self.end.q.val() == self.c64.val());
        self.emit.next = self.cur_on.q.val()
            & self.beat.m_axis.tvalid.val()
            & (!self.o_valid.q.val() | self.realign.s_axis.tready.val());
        self.drop_take.next = self.drop_on.q.val() & self.beat.m_axis.tvalid.val();
        // the beat is done with: the piece goes on in the next beat, ends at lane 63 or ends the packet
        self.beat.m_axis.tready.next =
            (self.emit.val() & (self.past.val() | self.cur_last.q.val())) | self.drop_take.val();
        self.pkt_end.next = (self.emit.val() & self.ends.val() & self.cur_last.q.val())
            | (self.drop_take.val() & self.beat.m_axis.tlast.val());
        self.cont.next = self.pkt_on.q.val() & !self.pkt_end.val();
        self.need.next = !self.cur_on.q.val() | (self.emit.val() & self.ends.val());
        // the packet's next piece (a dropped packet has none), or a new packet
        self.load_next.next = self.need.val()
            & self.cont.val()
            & !self.drop_on.q.val()
            & self.piece_q.m_axis.tvalid.val()
            & self.room.q.val();
        self.load_new.next = self.need.val()
            & !self.cont.val()
            & self.pkt_q.m_axis.tvalid.val()
            & (self.pkt_q.m_axis.tdata.val().get_bit(6) | (self.piece_q.m_axis.tvalid.val() & self.room.q.val()));
        self.load.next = self.load_next.val() | (self.load_new.val() & !self.pkt_q.m_axis.tdata.val().get_bit(6));
        self.pkt_q.m_axis.tready.next = self.load_new.val();
        self.piece_q.m_axis.tready.next = self.load.val();
        // the lane the loaded piece starts in
        self.base.next = self.pos.q.val();
        if self.emit.val() {
            self.base.next = self.end.q.val().get_bits::<6>(0);
        }
        if !self.cont.val() {
            self.base.next = self.pkt_q.m_axis.tdata.val().get_bits::<6>(0);
        }

        // the lanes of the piece in this beat: from pos, below end
        self.keep_lo.next = self.ones64.val() << self.pos.q.val();
        self.keep_hi.next = !(self.ones64.val() << self.end.q.val().get_bits::<6>(0));
        if self.past.val() {
            self.keep_hi.next = self.ones64.val();
        }
        if self.emit.val() {
            self.o_valid.d.next = true;
            self.o_data.d.next = self.beat.m_axis.tdata.val();
            self.o_keep.d.next = self.beat.m_axis.tkeep.val() & self.keep_lo.val() & self.keep_hi.val();
            if self.imm_on.q.val() {
                // the packet's 8 bytes in place of its empty beat (its one piece: lanes 0..8)
                self.o_data.d.next =
                    (self.beat.m_axis.tdata.val() & self.hi_mask.val()) | bit_cast::<512, 64>(self.imm.q.val());
                self.o_keep.d.next = self.keep_lo.val() & self.keep_hi.val();
            }
            self.o_last.d.next = self.ends.val();
            self.o_r.d.next = self.cur_r.q.val();
            self.pos.d.next = 0.into();
            self.end.d.next = self.end.q.val() - self.c64.val();
            if self.ends.val() {
                self.pos.d.next = self.end.q.val().get_bits::<6>(0);
                self.cur_on.d.next = false;
            }
        } else if self.realign.s_axis.tready.val() {
            self.o_valid.d.next = false;
        }
        if self.load.val() {
            self.cur_on.d.next = true;
            self.pos.d.next = self.base.val();
            self.end.d.next = bit_cast::<PIECE_LEN_BITS, 6>(self.base.val()) + self.piece_q.m_axis.tuser.val();
            self.cur_r.d.next = self.piece_q.m_axis.tdata.val().get_bits::<6>(0) - self.base.val();
            self.cur_last.d.next = self.piece_q.m_axis.tlast.val();
        }
        if self.pkt_end.val() {
            self.pkt_on.d.next = false;
            self.drop_on.d.next = false;
        }
        if self.load_new.val() {
            self.pkt_on.d.next = true;
            self.drop_on.d.next = self.pkt_q.m_axis.tdata.val().get_bit(6);
            self.imm_on.d.next = self.pkt_q.m_axis.tdata.val().get_bit(7);
            self.imm.d.next = self.pkt_q.m_axis.tdata.val().get_bits::<64>(8);
        }
        self.realign.s_axis.tdata.next = self.o_data.q.val();
        self.realign.s_axis.tkeep.next = self.o_keep.q.val();
        self.realign.s_axis.tlast.next = self.o_last.q.val();
        self.realign.s_axis.tuser.next = bit_cast::<7, 6>(self.o_r.q.val()) << 1;
        self.realign.s_axis.tvalid.next = self.o_valid.q.val();

        // ---- writes: the realigned beats, addr and len from the piece's entry
        self.wr_info.s_axis.tdata.next = self.piece_q.m_axis.tdata.val();
        self.wr_info.s_axis.tuser.next = self.piece_q.m_axis.tuser.val();
        self.wr_info.s_axis.tkeep.next = 0.into();
        self.wr_info.s_axis.tlast.next = false;
        self.wr_info.s_axis.tvalid.next = self.load.val();
        self.m_wr.tdata.next = self.realign.m_axis.tdata.val();
        self.m_wr.tkeep.next = self.realign.m_axis.tkeep.val();
        self.m_wr.tlast.next = self.realign.m_axis.tlast.val();
        self.m_wr.addr.next = self.wr_info.m_axis.tdata.val();
        self.m_wr.len.next = bit_cast::<32, PIECE_LEN_BITS>(self.wr_info.m_axis.tuser.val());
        self.m_wr.tvalid.next = self.realign.m_axis.tvalid.val();
        self.realign.m_axis.tready.next = self.m_wr.tready.val();
        self.wr_info.m_axis.tready.next =
            self.m_wr.tready.val() & self.realign.m_axis.tvalid.val() & self.realign.m_axis.tlast.val();

        // ---- completions, in command order: a packet is done with its last piece's
        self.cpl_info.s_axis.tdata.next = 0.into();
        self.cpl_info.s_axis.tkeep.next = 0.into();
        self.cpl_info.s_axis.tlast.next = self.piece_q.m_axis.tlast.val();
        self.cpl_info.s_axis.tuser.next = 0.into();
        self.cpl_info.s_axis.tvalid.next = self.load.val();
        self.cpl_info.m_axis.tready.next = self.wr_done.val();
        self.done_q.s_axis.tdata.next = bit_cast::<1, 1>((self.err_acc.q.val() | self.wr_done_err.val()).into());
        self.done_q.s_axis.tkeep.next = 0.into();
        self.done_q.s_axis.tlast.next = false;
        self.done_q.s_axis.tuser.next = 0.into();
        self.cpl_fire.next = self.wr_done.val() & self.cpl_info.m_axis.tvalid.val();
        self.done_q.s_axis.tvalid.next = self.cpl_fire.val() & self.cpl_info.m_axis.tlast.val();
        if self.cpl_fire.val() {
            self.err_acc.d.next = (self.err_acc.q.val() | self.wr_done_err.val()) & !self.cpl_info.m_axis.tlast.val();
        }
        self.m_done.err.next = self.done_q.m_axis.tdata.val().get_bit(0);
        self.m_done.valid.next = self.done_q.m_axis.tvalid.val();
        self.done_q.m_axis.tready.next = self.m_done.ready.val();

        // ---- pieces in flight: loaded, not yet completed (or, ending a packet, not yet reported)
        self.done_fire.next = self.m_done.ready.val() & self.done_q.m_axis.tvalid.val();
        self.retire_mid.next = self.cpl_fire.val() & !self.cpl_info.m_axis.tlast.val();
        self.owed.d.next = self.owed.q.val() + bit_cast::<6, 1>(self.load.val().into())
            - bit_cast::<6, 1>(self.retire_mid.val().into())
            - bit_cast::<6, 1>(self.done_fire.val().into());
        self.room.d.next = self.owed.q.val() <= self.load_limit.val();

        if self.reset.val() {
            self.pkt_on.d.next = false;
            self.drop_on.d.next = false;
            self.cur_on.d.next = false;
            self.o_valid.d.next = false;
            self.owed.d.next = 0.into();
            self.room.d.next = false;
            self.err_acc.d.next = false;
        }
    }
}
