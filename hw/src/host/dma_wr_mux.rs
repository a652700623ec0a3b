//! `DmaWrMux<N>`: `N` (at most [`DMA_MUX_MAX_CLIENTS`]) write clients onto
//! one write client of the DMA engine, with their completions routed back.
//!
//! Ports: `s_wr[i]` (a client's writes: beats with `addr`/`len` read with the
//! first beat, `tlast` on the last) and bit i of `client_done` /
//! `client_done_err` (its completions, one per write, in its write order);
//! `m_wr`, `wr_done`, `wr_done_err` toward the engine (one completion per
//! write, in issue order, no flow control).
//!
//! * **Writes.** A write is granted whole: round robin among the clients
//!   offering a first beat (the first client after the one served last),
//!   chosen into a register when no write is in progress or in the cycle the
//!   current write's last beat passes, so writes follow each other without a
//!   gap. The granted client's beats (a case on the grant register `cur`
//!   as a binary index) pass a skid buffer (`addr` and `len` carried in
//!   its `tuser`) whose registers drive `m_wr`; the clients see the skid
//!   buffer's registered `tready`, so `m_wr.tready` reaches no client.
//! * **Completions.** The engine completes writes in issue order; the
//!   source of each write (one-hot, a 32-place LUTRAM FIFO, pushed at the
//!   grant) says whose completion it is. A grant waits while 32 writes are
//!   not complete.
//!
//! Latency: a write granted at cycle t (its client chosen) has its first
//! beat taken at t + 1 and offered on `m_wr` at t + 2; a completion arriving
//! at t is on `client_done` at t + 1 (a register: a one-cycle pulse with no
//! handshake, as the engine's). Rate: a beat a cycle.

use super::dma_rd_mux::{DMA_MUX_MAX_CLIENTS, DMA_MUX_SRC_LOG};
use super::{RrOneHot, WrStreamIn, WrStreamOut};
use crate::axis::AxisSkidBuffer;
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct DmaWrMux<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_wr: [WrStreamIn; N],
    /// Bit i: a write of client i completed (with an error).
    pub client_done: Signal<Out, Bits<DMA_MUX_MAX_CLIENTS>>,
    pub client_done_err: Signal<Out, Bits<DMA_MUX_MAX_CLIENTS>>,
    pub m_wr: WrStreamOut,
    pub wr_done: Signal<In, Bit>,
    pub wr_done_err: Signal<In, Bit>,

    // ---- the write in progress and the round robin
    busy: Reg<Bit>,
    cur: Reg<Bits<DMA_MUX_MAX_CLIENTS>>,
    rr: RrOneHot,
    req: Signal<Local, Bits<DMA_MUX_MAX_CLIENTS>>,
    grant: Signal<Local, Bits<DMA_MUX_MAX_CLIENTS>>,
    fire: Signal<Local, Bit>,
    ends: Signal<Local, Bit>,
    pick: Signal<Local, Bit>,
    // ---- sources of the writes not complete, in issue order (one-hot)
    src: LutRam<Bits<DMA_MUX_MAX_CLIENTS>, DMA_MUX_SRC_LOG>,
    s_wr_ptr: Reg<Bits<6>>,
    s_rd_ptr: Reg<Bits<6>>,
    s_room: Signal<Local, Bit>,
    done_q: Reg<Bits<DMA_MUX_MAX_CLIENTS>>,
    done_err_q: Reg<Bits<DMA_MUX_MAX_CLIENTS>>,
    // ---- beats out: tuser = len (bits 95:64), addr (63:0)
    beats: AxisSkidBuffer<512, 64, 96>,
    // the clients' fields padded to DMA_MUX_MAX_CLIENTS (the absent ones repeat the last), chosen by
    // `cur` as a binary index: a case is a mux tree (4:1 in a LUT6), where a chain of five (one-hot
    // bits or index compares) mapped to twice the LUTs
    pad_data: [Signal<Local, Bits<512>>; DMA_MUX_MAX_CLIENTS],
    pad_keep: [Signal<Local, Bits<64>>; DMA_MUX_MAX_CLIENTS],
    pad_last: [Signal<Local, Bit>; DMA_MUX_MAX_CLIENTS],
    pad_addr: [Signal<Local, Bits<64>>; DMA_MUX_MAX_CLIENTS],
    pad_len: [Signal<Local, Bits<32>>; DMA_MUX_MAX_CLIENTS],
    cur_ix: Signal<Local, Bits<3>>,
    sel_data: Signal<Local, Bits<512>>,
    sel_keep: Signal<Local, Bits<64>>,
    sel_last: Signal<Local, Bit>,
    sel_addr: Signal<Local, Bits<64>>,
    sel_len: Signal<Local, Bits<32>>,
    kind: TypeTag<Self>,
}

impl<const N: usize> Default for DmaWrMux<N> {
    fn default() -> Self {
        let () = Self::FITS;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_wr: std::array::from_fn(|_| Default::default()),
            client_done: Default::default(),
            client_done_err: Default::default(),
            m_wr: Default::default(),
            wr_done: Default::default(),
            wr_done_err: Default::default(),
            busy: Default::default(),
            cur: Default::default(),
            rr: Default::default(),
            req: Default::default(),
            grant: Default::default(),
            fire: Default::default(),
            ends: Default::default(),
            pick: Default::default(),
            src: Default::default(),
            s_wr_ptr: Default::default(),
            s_rd_ptr: Default::default(),
            s_room: Default::default(),
            done_q: Default::default(),
            done_err_q: Default::default(),
            beats: Default::default(),
            pad_data: Default::default(),
            pad_keep: Default::default(),
            pad_last: Default::default(),
            pad_addr: Default::default(),
            pad_len: Default::default(),
            cur_ix: Default::default(),
            sel_data: Default::default(),
            sel_keep: Default::default(),
            sel_last: Default::default(),
            sel_addr: Default::default(),
            sel_len: Default::default(),
            kind: Default::default(),
        }
    }
}

// the case in `update` has one arm per client index, and `cur_ix` is 3 bits of an 8-bit one-hot `cur`
const _: () = assert!(DMA_MUX_MAX_CLIENTS == 8);

impl<const N: usize> DmaWrMux<N> {
    const FITS: () = assert!(N >= 1 && N <= DMA_MUX_MAX_CLIENTS);
    /// Cycles from a beat taken from a client to it offered on `m_wr`.
    pub const BEAT_LATENCY: u64 = 1;
    /// Cycles from `wr_done` to the client's `client_done` bit.
    pub const DONE_LATENCY: u64 = 1;
}

impl<const N: usize> Logic for DmaWrMux<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, cur, s_wr_ptr, s_rd_ptr, done_q, done_err_q);
        clock!(self, clock, src, beats, rr);
        self.beats.reset.next = self.reset.val();
        self.rr.reset.next = self.reset.val();

        // ---- the granted client's beats into the skid buffer
        // pad j is client min(j, N - 1): indices past the clients (never in `cur`) repeat the last one,
        // so with five the index's top bit alone picks client 4 (a LUT6's 4:1 and one more mux a bit;
        // zeros there cost a third LUT a bit). The emitter takes only loop variables as indices: a
        // loop of one over `N - 1`.
        for i in (N - 1)..N {
            for j in 0..8 {
                self.pad_data[j].next = self.s_wr[i].tdata.val();
                self.pad_keep[j].next = self.s_wr[i].tkeep.val();
                self.pad_last[j].next = self.s_wr[i].tlast.val();
                self.pad_addr[j].next = self.s_wr[i].addr.val();
                self.pad_len[j].next = self.s_wr[i].len.val();
            }
        }
        self.beats.s_axis.tvalid.next = false;
        for i in 0..N {
            self.s_wr[i].tready.next = self.busy.q.val() & self.cur.q.val().get_bit(i) & self.beats.s_axis.tready.val();
            self.pad_data[i].next = self.s_wr[i].tdata.val();
            self.pad_keep[i].next = self.s_wr[i].tkeep.val();
            self.pad_last[i].next = self.s_wr[i].tlast.val();
            self.pad_addr[i].next = self.s_wr[i].addr.val();
            self.pad_len[i].next = self.s_wr[i].len.val();
            if self.cur.q.val().get_bit(i) {
                self.beats.s_axis.tvalid.next = self.busy.q.val() & self.s_wr[i].tvalid.val();
            }
        }
        self.cur_ix.next = 0.into();
        self.cur_ix.next = self.cur_ix.val().replace_bit(
            0,
            self.cur.q.val().get_bit(1)
                | self.cur.q.val().get_bit(3)
                | self.cur.q.val().get_bit(5)
                | self.cur.q.val().get_bit(7),
        );
        self.cur_ix.next = self.cur_ix.val().replace_bit(
            1,
            self.cur.q.val().get_bit(2)
                | self.cur.q.val().get_bit(3)
                | self.cur.q.val().get_bit(6)
                | self.cur.q.val().get_bit(7),
        );
        self.cur_ix.next = self.cur_ix.val().replace_bit(
            2,
            self.cur.q.val().get_bit(4)
                | self.cur.q.val().get_bit(5)
                | self.cur.q.val().get_bit(6)
                | self.cur.q.val().get_bit(7),
        );
        match self.cur_ix.val().index() {
            0 => {
                self.sel_data.next = self.pad_data[0].val();
                self.sel_keep.next = self.pad_keep[0].val();
                self.sel_last.next = self.pad_last[0].val();
                self.sel_addr.next = self.pad_addr[0].val();
                self.sel_len.next = self.pad_len[0].val();
            }
            1 => {
                self.sel_data.next = self.pad_data[1].val();
                self.sel_keep.next = self.pad_keep[1].val();
                self.sel_last.next = self.pad_last[1].val();
                self.sel_addr.next = self.pad_addr[1].val();
                self.sel_len.next = self.pad_len[1].val();
            }
            2 => {
                self.sel_data.next = self.pad_data[2].val();
                self.sel_keep.next = self.pad_keep[2].val();
                self.sel_last.next = self.pad_last[2].val();
                self.sel_addr.next = self.pad_addr[2].val();
                self.sel_len.next = self.pad_len[2].val();
            }
            3 => {
                self.sel_data.next = self.pad_data[3].val();
                self.sel_keep.next = self.pad_keep[3].val();
                self.sel_last.next = self.pad_last[3].val();
                self.sel_addr.next = self.pad_addr[3].val();
                self.sel_len.next = self.pad_len[3].val();
            }
            4 => {
                self.sel_data.next = self.pad_data[4].val();
                self.sel_keep.next = self.pad_keep[4].val();
                self.sel_last.next = self.pad_last[4].val();
                self.sel_addr.next = self.pad_addr[4].val();
                self.sel_len.next = self.pad_len[4].val();
            }
            5 => {
                self.sel_data.next = self.pad_data[5].val();
                self.sel_keep.next = self.pad_keep[5].val();
                self.sel_last.next = self.pad_last[5].val();
                self.sel_addr.next = self.pad_addr[5].val();
                self.sel_len.next = self.pad_len[5].val();
            }
            6 => {
                self.sel_data.next = self.pad_data[6].val();
                self.sel_keep.next = self.pad_keep[6].val();
                self.sel_last.next = self.pad_last[6].val();
                self.sel_addr.next = self.pad_addr[6].val();
                self.sel_len.next = self.pad_len[6].val();
            }
            7 => {
                self.sel_data.next = self.pad_data[7].val();
                self.sel_keep.next = self.pad_keep[7].val();
                self.sel_last.next = self.pad_last[7].val();
                self.sel_addr.next = self.pad_addr[7].val();
                self.sel_len.next = self.pad_len[7].val();
            }
            _ => {
                self.sel_data.next = 0.into();
                self.sel_keep.next = 0.into();
                self.sel_last.next = false;
                self.sel_addr.next = 0.into();
                self.sel_len.next = 0.into();
            }
        }
        self.beats.s_axis.tdata.next = self.sel_data.val();
        self.beats.s_axis.tkeep.next = self.sel_keep.val();
        self.beats.s_axis.tlast.next = self.sel_last.val();
        self.beats.s_axis.tuser.next =
            (bit_cast::<96, 32>(self.sel_len.val()) << 64) | bit_cast::<96, 64>(self.sel_addr.val());
        self.fire.next = self.beats.s_axis.tvalid.val() & self.beats.s_axis.tready.val();
        self.ends.next = self.fire.val() & self.beats.s_axis.tlast.val();
        if self.ends.val() {
            self.busy.d.next = false;
        }
        self.m_wr.tdata.next = self.beats.m_axis.tdata.val();
        self.m_wr.tkeep.next = self.beats.m_axis.tkeep.val();
        self.m_wr.tlast.next = self.beats.m_axis.tlast.val();
        self.m_wr.addr.next = self.beats.m_axis.tuser.val().get_bits::<64>(0);
        self.m_wr.len.next = self.beats.m_axis.tuser.val().get_bits::<32>(64);
        self.m_wr.tvalid.next = self.beats.m_axis.tvalid.val();
        self.beats.m_axis.tready.next = self.m_wr.tready.val();

        // ---- the next write: the first client offering one after the last served, else the first
        self.req.next = 0.into();
        for i in 0..N {
            self.req.next = self.req.val().replace_bit(i, self.s_wr[i].tvalid.val());
        }
        // the current client's beats are not a new write until its last one passed
        if self.busy.q.val() & !self.ends.val() {
            self.req.next = 0.into();
        }
        // nor is the valid of the last beat passing now
        if self.ends.val() {
            self.req.next = self.req.val() & !self.cur.q.val();
        }
        self.rr.req.next = self.req.val();
        self.grant.next = self.rr.grant.val();
        self.s_room.next = (self.s_wr_ptr.q.val() - self.s_rd_ptr.q.val()) != 32;
        self.pick.next = self.req.val().any() & self.s_room.val();
        self.src.write_addr.next = self.s_wr_ptr.q.val().get_bits::<DMA_MUX_SRC_LOG>(0);
        self.src.write_data.next = self.grant.val();
        self.src.write_enable.next = self.pick.val();
        self.rr.advance.next = self.pick.val();
        if self.pick.val() {
            self.busy.d.next = true;
            self.cur.d.next = self.grant.val();
            self.s_wr_ptr.d.next = self.s_wr_ptr.q.val() + 1;
        }

        // ---- completions, in issue order, to the write's client
        self.src.read_addr.next = self.s_rd_ptr.q.val().get_bits::<DMA_MUX_SRC_LOG>(0);
        self.done_q.d.next = 0.into();
        self.done_err_q.d.next = 0.into();
        if self.wr_done.val() {
            self.done_q.d.next = self.src.read_data.val();
            if self.wr_done_err.val() {
                self.done_err_q.d.next = self.src.read_data.val();
            }
            self.s_rd_ptr.d.next = self.s_rd_ptr.q.val() + 1;
        }
        self.client_done.next = self.done_q.q.val();
        self.client_done_err.next = self.done_err_q.q.val();

        if self.reset.val() {
            self.busy.d.next = false;
            self.s_wr_ptr.d.next = 0.into();
            self.s_rd_ptr.d.next = 0.into();
            self.done_q.d.next = 0.into();
            self.done_err_q.d.next = 0.into();
        }
    }
}
