//! `DmaWr`: the write engine of [`DmaEngine`](super::DmaEngine).
//!
//! Four clients stream address-aligned data with `{addr, len}` on the first
//! beat of each write. The engine cuts writes at multiples of the maximum
//! payload size and arbitrates round-robin per piece, so a long write shares
//! the link with a CQE at packet granularity.
//!
//! Every decision is made from registers, a cycle ahead:
//! * **The first piece** of a write is computed when its first beat shows
//!   (per client, from the ports: length up to the next multiple of the
//!   payload size, whether it is the write's last piece, its beats) into the
//!   client's *fresh* registers.
//! * **The following pieces** start on a multiple of the payload size, so a
//!   shared unit computes the next one (address, length, last, beats) from
//!   the piece being streamed, in the cycle after it starts, into the
//!   client's *continuation* registers.
//! * **The grant is a register**: the round-robin arbiter picks among the
//!   clients with a piece ready (or being computed) while the current piece
//!   streams; the stream takes the granted piece when its last beat goes.
//! * **The stream** passes the owner's beats (a multiplexer by a registered
//!   index) into a LUTRAM FIFO, whose registered `tready` is what the
//!   clients see: no path from `m_dma_wr.tready` to any client's `tready`.
//!
//! A write's first beat waits two cycles (taken into the fresh registers,
//! then granted); the pieces after it follow without a gap. Write
//! completions return in issue order; a client gets a `wr_done` pulse when
//! the last piece of its write is done (`wr_done_err` if any piece failed).
//! The maximum payload size is a register that follows `cfg_max_payload`
//! only while no write is in progress or being taken, so every piece of a
//! write is cut with one size; a new size applies from the next cycle.

use super::dma_fifo::DmaFifo;
use super::rr_arb::RrArb4;
use super::{DmaWrCplIn, DmaWrOut, WrStreamIn};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Writes awaiting their completion at once.
pub const DMA_WR_TAGS: usize = 32;

#[derive(LogicBlock, Default)]
pub struct DmaWr {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Maximum payload size, PCIe encoding (0: 128 B .. 5: 4096 B).
    pub cfg_max_payload: Signal<In, Bits<3>>,
    pub m_dma_wr: DmaWrOut,
    pub s_dma_wr_cpl: DmaWrCplIn,
    pub s_wr: [WrStreamIn; 4],
    /// One-hot by write client: its write is done (pulse).
    pub wr_done: Signal<Out, Bits<4>>,
    /// With `wr_done`: the write, or a piece of it, failed.
    pub wr_done_err: Signal<Out, Bits<4>>,
    /// Write pieces that ended in error.
    pub cnt_wr_err: Signal<Out, Bits<32>>,
    /// Write completions out of issue order, or client writes whose `tlast`
    /// disagreed with their `len`.
    pub cnt_protocol_err: Signal<Out, Bits<32>>,

    // the maximum payload size in bytes, and that minus one
    wsz: Reg<Bits<13>>,
    wmask: Reg<Bits<13>>,
    // per client: a write taken (its first beat seen), not yet all streamed
    busy: Reg<Bits<4>>,
    // per client: the first piece of its write, from the first beat's ports
    fv: Reg<Bits<4>>,
    f_addr: [Reg<Bits<64>>; 4],
    f_rem: [Reg<Bits<32>>; 4],
    f_len: [Reg<Bits<13>>; 4],
    f_lp: Reg<Bits<4>>,
    // per client: its next piece after the first (from the shared unit)
    cv: Reg<Bits<4>>,
    k_addr: [Reg<Bits<64>>; 4],
    k_rem: [Reg<Bits<32>>; 4],
    k_len: [Reg<Bits<13>>; 4],
    k_lp: Reg<Bits<4>>,
    // the grant: the client whose piece streams next
    arb: RrArb4,
    g_valid: Reg<Bit>,
    g_own: Reg<Bits<4>>,
    g_sel: Reg<Bits<2>>,
    // the granted piece is a continuation (else a first piece)
    g_cv: Reg<Bit>,
    // the piece being streamed
    w_in: Reg<Bit>,
    w_own: Reg<Bits<4>>,
    w_sel: Reg<Bits<2>>,
    w_addr: Reg<Bits<64>>,
    w_len: Reg<Bits<13>>,
    // bytes of the write from this piece's start
    w_rem: Reg<Bits<32>>,
    w_lp: Reg<Bit>,
    // bits 31:13 of w_rem are 0, or 1
    w_hz: Reg<Bit>,
    w_h1: Reg<Bit>,
    w_tag: Reg<Bits<5>>,
    // bytes from the current beat's first lane to the end of the piece
    w_endo: Reg<Bits<13>>,
    // the next piece of this write is computed this cycle
    w_cont: Reg<Bit>,
    wr_alloc: Reg<Bits<5>>,
    wr_expect: Reg<Bits<5>>,
    wr_used: Reg<Bits<6>>,
    wc_err: Reg<Bits<4>>,
    // per tag: client one-hot [4:1], last piece of the write [0]
    wr_info: LutRam<Bits<5>, 5>,
    // a beat: tag [658:654], len [653:641], addr [640:577], last [576], keep [575:512], data
    wr_out: DmaFifo<659, 2>,
    done_q: Reg<Bits<4>>,
    done_err_q: Reg<Bits<4>>,
    wr_err_count: Reg<Bits<32>>,
    proto_err_count: Reg<Bits<32>>,
    // locals
    sz_n: Signal<Local, Bits<13>>,
    mask_n: Signal<Local, Bits<13>>,
    n_lo: Signal<Local, Bits<14>>,
    cap: Signal<Local, Bits<4>>,
    flp_n: Signal<Local, Bits<4>>,
    klp_n: Signal<Local, Bits<4>>,
    fb_a: Signal<Local, Bits<13>>,
    fb_len: Signal<Local, Bits<13>>,
    fb_lo: Signal<Local, Bits<13>>,
    fb_room: Signal<Local, Bits<13>>,
    fb_lp: Signal<Local, Bit>,
    req: Signal<Local, Bits<4>>,
    s_take: Signal<Local, Bit>,
    sl_addr: Signal<Local, Bits<64>>,
    sl_rem: Signal<Local, Bits<32>>,
    sl_len: Signal<Local, Bits<13>>,
    sl_end: Signal<Local, Bits<13>>,
    sl_lp: Signal<Local, Bit>,
    sl_cv: Signal<Local, Bit>,
    cont_req: Signal<Local, Bits<4>>,
    n_rem: Signal<Local, Bits<32>>,
    n_lp: Signal<Local, Bit>,
    n_len: Signal<Local, Bits<13>>,
    n_addr: Signal<Local, Bits<64>>,
    src_valid: Signal<Local, Bit>,
    src_last: Signal<Local, Bit>,
    src_data: Signal<Local, Bits<512>>,
    src_keep: Signal<Local, Bits<64>>,
    w_fire: Signal<Local, Bit>,
    w_end: Signal<Local, Bit>,
    lastb: Signal<Local, Bit>,
    wr_cpl_info: Signal<Local, Bits<5>>,
    wr_proto: Signal<Local, Bit>,
    busy_n: Signal<Local, Bits<4>>,
    fv_n: Signal<Local, Bits<4>>,
    cv_n: Signal<Local, Bits<4>>,
    done_n: Signal<Local, Bits<4>>,
    done_err_n: Signal<Local, Bits<4>>,
    wc_err_n: Signal<Local, Bits<4>>,
    kind: TypeTag<Self>,
}

impl Logic for DmaWr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            wsz,
            wmask,
            busy,
            fv,
            f_lp,
            cv,
            k_lp,
            g_valid,
            g_own,
            g_sel,
            g_cv,
            w_in,
            w_own,
            w_sel,
            w_addr,
            w_len,
            w_rem,
            w_lp,
            w_hz,
            w_h1,
            w_tag,
            w_endo,
            w_cont,
            wr_alloc,
            wr_expect,
            wr_used,
            wc_err,
            done_q,
            done_err_q,
            wr_err_count,
            proto_err_count
        );
        clock!(self, clock, wr_info);
        self.arb.clock.next = self.clock.val();
        self.arb.reset.next = self.reset.val();
        self.wr_out.clock.next = self.clock.val();
        self.wr_out.reset.next = self.reset.val();
        for i in 0..4 {
            self.f_addr[i].clock.next = self.clock.val();
            self.f_addr[i].d.next = self.f_addr[i].q.val();
            self.f_rem[i].clock.next = self.clock.val();
            self.f_rem[i].d.next = self.f_rem[i].q.val();
            self.f_len[i].clock.next = self.clock.val();
            self.f_len[i].d.next = self.f_len[i].q.val();
            self.k_addr[i].clock.next = self.clock.val();
            self.k_addr[i].d.next = self.k_addr[i].q.val();
            self.k_rem[i].clock.next = self.clock.val();
            self.k_rem[i].d.next = self.k_rem[i].q.val();
            self.k_len[i].clock.next = self.clock.val();
            self.k_len[i].d.next = self.k_len[i].q.val();
        }

        // the maximum payload size, registered: 128 << cfg, at most 4096
        self.sz_n.next = bits::<13>(4096);
        if self.cfg_max_payload.val() < 5 {
            self.sz_n.next = bits::<13>(128) << self.cfg_max_payload.val();
        }
        self.mask_n.next = self.sz_n.val() - 1;

        // ================= first piece, from the first beat's ports =================
        // up to the next multiple of the payload size, or all of it; beats - 1
        // from the first byte's lane to the last byte's
        self.busy_n.next = self.busy.q.val();
        self.fv_n.next = self.fv.q.val();
        self.cv_n.next = self.cv.q.val();
        self.cap.next = 0.into();
        self.flp_n.next = self.f_lp.q.val();
        for i in 0..4 {
            self.cap.next = self.cap.val().replace_bit(i, self.s_wr[i].tvalid.val() & !self.busy.q.val().get_bit(i));
            self.fb_a.next = self.s_wr[i].addr.val().get_bits::<13>(0);
            self.fb_len.next = self.s_wr[i].len.val().get_bits::<13>(0);
            self.fb_lo.next = self.fb_a.val() & self.wmask.q.val();
            self.fb_room.next = self.wsz.q.val() - self.fb_lo.val();
            self.fb_lp.next = !self.s_wr[i].len.val().get_bits::<19>(13).any()
                & (self.s_wr[i].len.val().get_bits::<13>(0) <= self.fb_room.val());
            if self.cap.val().get_bit(i) {
                self.flp_n.next = self.flp_n.val().replace_bit(i, self.fb_lp.val());
                self.busy_n.next = self.busy_n.val().replace_bit(i, true);
                self.fv_n.next = self.fv_n.val().replace_bit(i, true);
                self.f_addr[i].d.next = self.s_wr[i].addr.val();
                self.f_rem[i].d.next = self.s_wr[i].len.val();
                self.f_len[i].d.next = self.fb_room.val();
                if self.fb_lp.val() {
                    self.f_len[i].d.next = self.fb_len.val();
                }
            }
        }
        self.f_lp.d.next = self.flp_n.val();

        // the sizes change only while nothing is in progress or starting, so
        // every piece of a transfer is cut with the same size
        if !(self.busy.q.val().any() | self.cap.val().any()) {
            self.wsz.d.next = self.sz_n.val();
            self.wmask.d.next = self.mask_n.val();
        }

        // ================= the grant, a register =================
        // clients with a piece ready next cycle: a first piece being taken,
        // or a next piece being computed, or either already there
        self.req.next = self.fv.q.val() | self.cv.q.val() | self.cap.val();
        self.cont_req.next = self.cv.q.val();
        if self.w_cont.q.val() {
            self.cont_req.next = self.cv.q.val() | self.w_own.q.val();
        }
        if self.w_cont.q.val() {
            self.req.next = self.req.val() | self.w_own.q.val();
        }
        self.arb.req.next = self.req.val();
        self.arb.advance.next = !self.g_valid.q.val();
        if !self.g_valid.q.val() {
            self.g_valid.d.next = self.req.val().any();
            self.g_own.d.next = self.arb.grant.val();
            self.g_sel.d.next = self.arb.grant_idx.val();
            self.g_cv.d.next = (self.cont_req.val() & self.arb.grant.val()).any();
        }

        // ================= the stream =================
        self.src_valid.next = false;
        self.src_last.next = false;
        self.src_data.next = 0.into();
        self.src_keep.next = 0.into();
        match self.w_sel.q.val().index() {
            0 => {
                self.src_valid.next = self.s_wr[0].tvalid.val();
                self.src_last.next = self.s_wr[0].tlast.val();
                self.src_data.next = self.s_wr[0].tdata.val();
                self.src_keep.next = self.s_wr[0].tkeep.val();
            }
            1 => {
                self.src_valid.next = self.s_wr[1].tvalid.val();
                self.src_last.next = self.s_wr[1].tlast.val();
                self.src_data.next = self.s_wr[1].tdata.val();
                self.src_keep.next = self.s_wr[1].tkeep.val();
            }
            2 => {
                self.src_valid.next = self.s_wr[2].tvalid.val();
                self.src_last.next = self.s_wr[2].tlast.val();
                self.src_data.next = self.s_wr[2].tdata.val();
                self.src_keep.next = self.s_wr[2].tkeep.val();
            }
            _ => {
                self.src_valid.next = self.s_wr[3].tvalid.val();
                self.src_last.next = self.s_wr[3].tlast.val();
                self.src_data.next = self.s_wr[3].tdata.val();
                self.src_keep.next = self.s_wr[3].tkeep.val();
            }
        }
        for i in 0..4 {
            self.s_wr[i].tready.next = self.w_in.q.val() & self.w_own.q.val().get_bit(i) & self.wr_out.s_ready.val();
        }
        self.w_fire.next = self.w_in.q.val() & self.src_valid.val() & self.wr_out.s_ready.val();
        self.lastb.next = self.w_endo.q.val() <= 64;
        self.w_end.next = self.w_fire.val() & self.lastb.val();
        self.wr_out.s_valid.next = self.w_in.q.val() & self.src_valid.val();
        self.wr_out.s_data.next = (bit_cast::<659, 5>(self.w_tag.q.val()) << 654)
            | (bit_cast::<659, 13>(self.w_len.q.val()) << 641)
            | (bit_cast::<659, 64>(self.w_addr.q.val()) << 577)
            | (bit_cast::<659, 1>(self.lastb.val().into()) << 576)
            | (bit_cast::<659, 64>(self.src_keep.val()) << 512)
            | bit_cast::<659, 512>(self.src_data.val());
        self.wr_proto.next = false;
        if self.w_fire.val() {
            self.w_endo.d.next = self.w_endo.q.val() - 64;
            if self.src_last.val() != (self.lastb.val() & self.w_lp.q.val()) {
                self.wr_proto.next = true;
            }
        }
        if self.w_end.val() {
            self.w_in.d.next = false;
            if self.w_lp.q.val() {
                self.busy_n.next = self.busy_n.val() & !self.w_own.q.val();
            }
        }

        // the granted piece starts when the stream is free or ends this cycle
        self.s_take.next =
            self.g_valid.q.val() & (!self.w_in.q.val() | self.w_end.val()) & !self.wr_used.q.val().get_bit(5);
        self.sl_cv.next = self.g_cv.q.val();
        self.sl_addr.next = 0.into();
        self.sl_rem.next = 0.into();
        self.sl_len.next = 0.into();
        self.sl_lp.next = false;
        match self.g_sel.q.val().index() {
            0 => {
                self.sl_addr.next = self.f_addr[0].q.val();
                self.sl_rem.next = self.f_rem[0].q.val();
                self.sl_len.next = self.f_len[0].q.val();
                self.sl_lp.next = self.f_lp.q.val().get_bit(0);
                if self.sl_cv.val() {
                    self.sl_addr.next = self.k_addr[0].q.val();
                    self.sl_rem.next = self.k_rem[0].q.val();
                    self.sl_len.next = self.k_len[0].q.val();
                    self.sl_lp.next = self.k_lp.q.val().get_bit(0);
                }
            }
            1 => {
                self.sl_addr.next = self.f_addr[1].q.val();
                self.sl_rem.next = self.f_rem[1].q.val();
                self.sl_len.next = self.f_len[1].q.val();
                self.sl_lp.next = self.f_lp.q.val().get_bit(1);
                if self.sl_cv.val() {
                    self.sl_addr.next = self.k_addr[1].q.val();
                    self.sl_rem.next = self.k_rem[1].q.val();
                    self.sl_len.next = self.k_len[1].q.val();
                    self.sl_lp.next = self.k_lp.q.val().get_bit(1);
                }
            }
            2 => {
                self.sl_addr.next = self.f_addr[2].q.val();
                self.sl_rem.next = self.f_rem[2].q.val();
                self.sl_len.next = self.f_len[2].q.val();
                self.sl_lp.next = self.f_lp.q.val().get_bit(2);
                if self.sl_cv.val() {
                    self.sl_addr.next = self.k_addr[2].q.val();
                    self.sl_rem.next = self.k_rem[2].q.val();
                    self.sl_len.next = self.k_len[2].q.val();
                    self.sl_lp.next = self.k_lp.q.val().get_bit(2);
                }
            }
            _ => {
                self.sl_addr.next = self.f_addr[3].q.val();
                self.sl_rem.next = self.f_rem[3].q.val();
                self.sl_len.next = self.f_len[3].q.val();
                self.sl_lp.next = self.f_lp.q.val().get_bit(3);
                if self.sl_cv.val() {
                    self.sl_addr.next = self.k_addr[3].q.val();
                    self.sl_rem.next = self.k_rem[3].q.val();
                    self.sl_len.next = self.k_len[3].q.val();
                    self.sl_lp.next = self.k_lp.q.val().get_bit(3);
                }
            }
        }
        self.sl_end.next = bit_cast::<13, 6>(self.sl_addr.val().get_bits::<6>(0)) + self.sl_len.val();
        self.wr_info.write_addr.next = self.wr_alloc.q.val();
        self.wr_info.write_data.next =
            (bit_cast::<5, 4>(self.g_own.q.val()) << 1) | bit_cast::<5, 1>(self.sl_lp.val().into());
        self.wr_info.write_enable.next = self.s_take.val();
        self.w_cont.d.next = false;
        if self.s_take.val() {
            self.g_valid.d.next = false;
            self.fv_n.next = self.fv_n.val() & !self.g_own.q.val();
            self.cv_n.next = self.cv_n.val() & !self.g_own.q.val();
            self.w_in.d.next = true;
            self.w_own.d.next = self.g_own.q.val();
            self.w_sel.d.next = self.g_sel.q.val();
            self.w_addr.d.next = self.sl_addr.val();
            self.w_len.d.next = self.sl_len.val();
            self.w_rem.d.next = self.sl_rem.val();
            self.w_hz.d.next = self.sl_rem.val().get_bits::<19>(13) == 0;
            self.w_h1.d.next = self.sl_rem.val().get_bits::<19>(13) == 1;
            self.w_lp.d.next = self.sl_lp.val();
            self.w_tag.d.next = self.wr_alloc.q.val();
            self.w_endo.d.next = self.sl_end.val();
            self.w_cont.d.next = !self.sl_lp.val();
            self.wr_alloc.d.next = self.wr_alloc.q.val() + 1;
        }

        // ================= the next piece, computed in the cycle after one starts =================
        // it starts on a multiple of the payload size: all of it, or one payload
        // (bits 31:13 of rem - len - 1 are zero: from the low half's carry and w_hz/w_h1)
        self.n_rem.next = self.w_rem.q.val() - bit_cast::<32, 13>(self.w_len.q.val());
        self.n_lo.next =
            bit_cast::<14, 13>(self.w_rem.q.val().get_bits::<13>(0)) + bit_cast::<14, 13>(!self.w_len.q.val());
        self.n_lp.next = !(self.n_lo.val().get_bits::<13>(0) & !self.wmask.q.val()).any();
        if self.n_lo.val().get_bit(13) {
            self.n_lp.next = self.n_lp.val() & self.w_hz.q.val();
        } else {
            self.n_lp.next = self.n_lp.val() & self.w_h1.q.val();
        }
        self.n_len.next = self.wsz.q.val();
        if self.n_lp.val() {
            self.n_len.next = self.n_rem.val().get_bits::<13>(0);
        }
        self.n_addr.next = self.w_addr.q.val() + bit_cast::<64, 13>(self.w_len.q.val());
        self.klp_n.next = self.k_lp.q.val();
        if self.w_cont.q.val() {
            self.cv_n.next = self.cv_n.val() | self.w_own.q.val();
            for i in 0..4 {
                if self.w_own.q.val().get_bit(i) {
                    self.k_addr[i].d.next = self.n_addr.val();
                    self.k_rem[i].d.next = self.n_rem.val();
                    self.k_len[i].d.next = self.n_len.val();
                    self.klp_n.next = self.klp_n.val().replace_bit(i, self.n_lp.val());
                }
            }
        }
        self.k_lp.d.next = self.klp_n.val();
        self.busy.d.next = self.busy_n.val();
        self.fv.d.next = self.fv_n.val();
        self.cv.d.next = self.cv_n.val();

        // ================= the output FIFO =================
        self.m_dma_wr.tdata.next = self.wr_out.m_data.val().get_bits::<512>(0);
        self.m_dma_wr.tkeep.next = self.wr_out.m_data.val().get_bits::<64>(512);
        self.m_dma_wr.tlast.next = self.wr_out.m_data.val().get_bit(576);
        self.m_dma_wr.addr.next = self.wr_out.m_data.val().get_bits::<64>(577);
        self.m_dma_wr.len.next = self.wr_out.m_data.val().get_bits::<13>(641);
        self.m_dma_wr.tag.next = bit_cast::<8, 5>(self.wr_out.m_data.val().get_bits::<5>(654));
        self.m_dma_wr.tvalid.next = self.wr_out.m_valid.val();
        self.wr_out.m_ready.next = self.m_dma_wr.tready.val();

        // ================= completions =================
        self.wr_info.read_addr.next = bit_cast::<5, 8>(self.s_dma_wr_cpl.tag.val());
        self.wr_cpl_info.next = self.wr_info.read_data.val();
        self.done_n.next = 0.into();
        self.done_err_n.next = 0.into();
        if self.s_dma_wr_cpl.valid.val() {
            self.wr_expect.d.next = self.wr_expect.q.val() + 1;
            if bit_cast::<5, 8>(self.s_dma_wr_cpl.tag.val()) != self.wr_expect.q.val() {
                self.wr_proto.next = true;
            }
            if self.s_dma_wr_cpl.err.val() {
                self.wr_err_count.d.next = self.wr_err_count.q.val() + 1;
            }
        }
        // sticky per-client error until the write's last piece is done
        self.wc_err_n.next = self.wc_err.q.val();
        for i in 0..4 {
            if self.s_dma_wr_cpl.valid.val() & self.wr_cpl_info.val().get_bit(i + 1) {
                if self.wr_cpl_info.val().get_bit(0) {
                    self.done_n.next = self.done_n.val().replace_bit(i, true);
                    self.done_err_n.next = self
                        .done_err_n
                        .val()
                        .replace_bit(i, self.wc_err.q.val().get_bit(i) | self.s_dma_wr_cpl.err.val());
                    self.wc_err_n.next = self.wc_err_n.val().replace_bit(i, false);
                } else if self.s_dma_wr_cpl.err.val() {
                    self.wc_err_n.next = self.wc_err_n.val().replace_bit(i, true);
                }
            }
        }
        self.done_q.d.next = self.done_n.val();
        self.done_err_q.d.next = self.done_err_n.val();
        self.wc_err.d.next = self.wc_err_n.val();
        if self.wr_proto.val() {
            self.proto_err_count.d.next = self.proto_err_count.q.val() + 1;
        }
        self.wr_used.d.next = self.wr_used.q.val() + bit_cast::<6, 1>(self.s_take.val().into())
            - bit_cast::<6, 1>(self.s_dma_wr_cpl.valid.val().into());
        self.wr_done.next = self.done_q.q.val();
        self.wr_done_err.next = self.done_err_q.q.val();
        self.cnt_wr_err.next = self.wr_err_count.q.val();
        self.cnt_protocol_err.next = self.proto_err_count.q.val();

        if self.reset.val() {
            self.busy.d.next = 0.into();
            self.fv.d.next = 0.into();
            self.cv.d.next = 0.into();
            self.g_valid.d.next = false;
            self.w_in.d.next = false;
            self.w_cont.d.next = false;
            self.wc_err.d.next = 0.into();
            self.wr_alloc.d.next = 0.into();
            self.wr_expect.d.next = 0.into();
            self.wr_used.d.next = 0.into();
            self.done_q.d.next = 0.into();
            self.done_err_q.d.next = 0.into();
            self.wr_err_count.d.next = 0.into();
            self.proto_err_count.d.next = 0.into();
        }
    }
}
