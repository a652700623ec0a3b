//! `PieceHold`: the piece FIFO of `ReqPayload` (`req_payload.rs`), with a
//! commit point. Pieces {iova, len, last} are written one per cycle; they
//! become visible to the read side (`m_piece`) only when the writer
//! commits (the packet's translation is complete and passed), and a
//! discard drops every piece written since the last commit (the packet
//! failed, or belongs to a WQE that failed). So no piece of a dropped
//! packet ever reaches `PayloadGather`.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `w_valid`, `w_iova`, `w_len`, `w_last` | in | write one piece (only while `room`) |
//! | `commit` | in | the pieces written so far, this cycle's included, become readable |
//! | `discard` | in | the pieces written since the last commit, this cycle's included, are dropped |
//! | `room` | out | a register: a piece may be written this cycle |
//! | `m_piece` (`PieceOut`) | out | committed pieces in order, from a register |
//!
//! Three pointers with a wrap bit each over `2^PIECE_HOLD_LOG` LUTRAM
//! places: write (`wp`), commit (`cp`), read (`rp`); a discard moves `wp`
//! back to `cp`. A piece committed in cycle t is offered at t + 2
//! ([`PIECE_HOLD_LATENCY`]); one piece per cycle in and out.

use super::{PieceOut, PIECE_LEN_BITS};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

pub use crate::consts::PIECE_HOLD_LOG;
const PTR_BITS: usize = PIECE_HOLD_LOG + 1;
/// Cycles from a piece's commit to it offered on `m_piece`.
pub const PIECE_HOLD_LATENCY: u64 = 2;

#[derive(LogicBlock, Default)]
pub struct PieceHold {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub w_valid: Signal<In, Bit>,
    pub w_iova: Signal<In, Bits<64>>,
    pub w_len: Signal<In, Bits<PIECE_LEN_BITS>>,
    pub w_last: Signal<In, Bit>,
    pub commit: Signal<In, Bit>,
    pub discard: Signal<In, Bit>,
    pub room: Signal<Out, Bit>,
    pub m_piece: PieceOut,
    mem_iova: LutRam<Bits<64>, PIECE_HOLD_LOG>,
    mem_len: LutRam<Bits<PIECE_LEN_BITS>, PIECE_HOLD_LOG>,
    mem_last: LutRam<Bit, PIECE_HOLD_LOG>,
    wp: Reg<Bits<PTR_BITS>>,
    cp: Reg<Bits<PTR_BITS>>,
    rp: Reg<Bits<PTR_BITS>>,
    room_r: Reg<Bit>,
    out_iova: Reg<Bits<64>>,
    out_len: Reg<Bits<PIECE_LEN_BITS>>,
    out_last: Reg<Bit>,
    out_valid: Reg<Bit>,
    wp_adv: Signal<Local, Bits<PTR_BITS>>,
    wp_next: Signal<Local, Bits<PTR_BITS>>,
    rp_next: Signal<Local, Bits<PTR_BITS>>,
    occ_next: Signal<Local, Bits<PTR_BITS>>,
    load: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for PieceHold {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, cp, rp, room_r, out_iova, out_len, out_last, out_valid);
        clock!(self, clock, mem_iova, mem_len, mem_last);
        // ---- write side: the write pointer runs ahead of the commit point
        self.wp_adv.next = self.wp.q.val();
        if self.w_valid.val() {
            self.wp_adv.next = self.wp.q.val() + 1;
        }
        self.wp_next.next = self.wp_adv.val();
        if self.discard.val() {
            self.wp_next.next = self.cp.q.val();
        }
        self.wp.d.next = self.wp_next.val();
        if self.commit.val() {
            self.cp.d.next = self.wp_next.val();
        }
        self.mem_iova.write_addr.next = self.wp.q.val().get_bits::<PIECE_HOLD_LOG>(0);
        self.mem_len.write_addr.next = self.wp.q.val().get_bits::<PIECE_HOLD_LOG>(0);
        self.mem_last.write_addr.next = self.wp.q.val().get_bits::<PIECE_HOLD_LOG>(0);
        self.mem_iova.write_data.next = self.w_iova.val();
        self.mem_len.write_data.next = self.w_len.val();
        self.mem_last.write_data.next = self.w_last.val();
        self.mem_iova.write_enable.next = self.w_valid.val() & !self.discard.val();
        self.mem_len.write_enable.next = self.w_valid.val() & !self.discard.val();
        self.mem_last.write_enable.next = self.w_valid.val() & !self.discard.val();

        // ---- read side: committed pieces into the output register
        self.load.next = (self.rp.q.val() != self.cp.q.val()) & (!self.out_valid.q.val() | self.m_piece.ready.val());
        self.mem_iova.read_addr.next = self.rp.q.val().get_bits::<PIECE_HOLD_LOG>(0);
        self.mem_len.read_addr.next = self.rp.q.val().get_bits::<PIECE_HOLD_LOG>(0);
        self.mem_last.read_addr.next = self.rp.q.val().get_bits::<PIECE_HOLD_LOG>(0);
        self.rp_next.next = self.rp.q.val();
        if self.m_piece.ready.val() {
            self.out_valid.d.next = false;
        }
        if self.load.val() {
            self.rp_next.next = self.rp.q.val() + 1;
            self.out_iova.d.next = self.mem_iova.read_data.val();
            self.out_len.d.next = self.mem_len.read_data.val();
            self.out_last.d.next = self.mem_last.read_data.val();
            self.out_valid.d.next = true;
        }
        self.rp.d.next = self.rp_next.val();
        // room next cycle: fewer than 2^PIECE_HOLD_LOG places taken, not
        // counting this cycle's discard (one cycle conservative: keeps the
        // writer's decision off this path)
        self.occ_next.next = self.wp_adv.val() - self.rp_next.val();
        self.room_r.d.next = !self.occ_next.val().get_bit(PIECE_HOLD_LOG);
        self.room.next = self.room_r.q.val();
        self.m_piece.iova.next = self.out_iova.q.val();
        self.m_piece.len.next = self.out_len.q.val();
        self.m_piece.last.next = self.out_last.q.val();
        self.m_piece.valid.next = self.out_valid.q.val();

        if self.reset.val() {
            self.wp.d.next = 0.into();
            self.cp.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.room_r.d.next = true;
            self.out_valid.d.next = false;
        }
    }
}
