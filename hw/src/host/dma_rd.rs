//! `DmaRd`: the read engine of [`DmaEngine`](super::DmaEngine).
//!
//! **Requests.** Four clients (descriptor fetch, payload read, context
//! fetch, a spare) each give a command `{addr, len}` of any length and
//! alignment. The engine splits it into requests that end on a multiple of
//! the maximum read request size (so none crosses 4 KiB) and takes clients
//! round-robin *per request*: a 64 KiB payload read cannot hold off a
//! 128-byte descriptor fetch for more than a few requests. Every decision
//! is made from registers, a cycle ahead:
//! * a command's first request (length up to the next multiple of the
//!   request size, or all of it) is computed when the command is taken, into
//!   the client's *fresh* registers;
//! * the requests after it start on a multiple of the request size, so a
//!   shared unit computes the next one from the request just issued, in the
//!   following cycle, into the client's *continuation* registers;
//! * the grant is a register: the round-robin arbiter picks among the
//!   clients with a request ready (or being computed) and fewer than
//!   [`DMA_RD_TAGS_PER_CLIENT`] tags; the granted request issues the next
//!   cycle. At most one request issues every two cycles (a 512-byte request
//!   is ten cycles of link).
//!
//! Every request gets one of [`DMA_RD_TAGS`] tags and a 512-byte slot of a
//! block-RAM reorder buffer, so completions are always accepted, whatever
//! their order. 32 tags x 512 bytes cover the bandwidth-delay product of a
//! Gen3 x16 link (13 GB/s x 900 ns = 11.7 KB).
//!
//! **Read delivery, each client on its own.** Each client keeps its tags in
//! issue order (a 32-deep queue in LUTRAM behind a registered head slot) and
//! its own output FIFO (5 beats, the block's registered output). Each cycle
//! one beat goes to one client, round-robin per beat among the clients whose
//! head slot has all its data and whose FIFO has a place not yet promised
//! (credits), so a client that stops taking data only stops its own
//! delivery: nothing runs from one client's `tready` to another client's
//! `tvalid` or to the PCIe side. Each client sees its data in order,
//! address-aligned, `tlast` on the last beat of each command, `tuser[0]` on
//! every beat of a failed request. A tag returns to a free list only when
//! its slot has been delivered; a client holds at most
//! [`DMA_RD_TAGS_PER_CLIENT`] tags, so a stalled client leaves the others
//! `DMA_RD_TAGS - DMA_RD_TAGS_PER_CLIENT` tags.
//!
//! The maximum read request size is a register that follows
//! `cfg_max_read` only while no command is in progress or being taken, so
//! every request of a command is cut with one size; a new size applies
//! from the next cycle.

use super::dma_fifo::DmaFifo;
use super::rr_arb::RrArb4;
use super::{DmaRdDataIn, DmaRdReqOut, RdCmdIn};
use crate::axis::AxisOut;
use crate::prim::{BlockRam, LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Read requests in flight at once.
pub const DMA_RD_TAGS: usize = 32;
/// Read tags one client may hold (issued, slot not yet delivered): a
/// client that stops taking data leaves the others the rest. The RTL takes
/// it from [`RdTagCap`]; the bench checks a lone client reaches exactly
/// this many.
pub const DMA_RD_TAGS_PER_CLIENT: usize = 28;
const _: () = assert!(DMA_RD_TAGS_PER_CLIENT < DMA_RD_TAGS && DMA_RD_TAGS <= 32);
/// Reorder-buffer bytes per read tag: the largest read request issued,
/// whatever larger maximum read request size is configured.
pub const DMA_RD_SLOT_BYTES: usize = 512;

/// [`DMA_RD_TAGS_PER_CLIENT`] and one less, as constants of the RTL.
#[derive(LogicBlock)]
pub struct RdTagCap {
    pub cap: Signal<Out, Bits<6>>,
    pub cap_m1: Signal<Out, Bits<6>>,
    k: Constant<Bits<6>>,
    k_m1: Constant<Bits<6>>,
    kind: TypeTag<Self>,
}

impl Default for RdTagCap {
    fn default() -> Self {
        Self {
            cap: Default::default(),
            cap_m1: Default::default(),
            k: Constant::new((DMA_RD_TAGS_PER_CLIENT as u64).into()),
            k_m1: Constant::new((DMA_RD_TAGS_PER_CLIENT as u64 - 1).into()),
            kind: Default::default(),
        }
    }
}

impl Logic for RdTagCap {
    #[hdl_gen]
    fn update(&mut self) {
        self.cap.next = self.k.val();
        self.cap_m1.next = self.k_m1.val();
    }
}

#[derive(LogicBlock, Default)]
pub struct DmaRd {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Maximum read request size, PCIe encoding (0: 128 B .. 5: 4096 B);
    /// reads use at most 512 B ([`DMA_RD_SLOT_BYTES`]).
    pub cfg_max_read: Signal<In, Bits<3>>,
    pub m_dma_rd_req: DmaRdReqOut,
    pub s_dma_rd_data: DmaRdDataIn,
    pub s_rd: [RdCmdIn; 4],
    pub m_rd: [AxisOut<512, 64, 1>; 4],
    /// Read tags in use (0..=32).
    pub rd_tags_used: Signal<Out, Bits<6>>,
    /// Read requests that ended in error.
    pub cnt_rd_err: Signal<Out, Bits<32>>,

    // the request size in bytes, and that minus one
    rsz: Reg<Bits<13>>,
    rmask: Reg<Bits<13>>,
    // per client: a command taken, its last request not yet issued
    c_busy: Reg<Bits<4>>,
    // per client: the command's first request, computed when it is taken
    fv: Reg<Bits<4>>,
    f_addr: [Reg<Bits<64>>; 4],
    f_rem: [Reg<Bits<32>>; 4],
    f_len: [Reg<Bits<13>>; 4],
    f_lp: Reg<Bits<4>>,
    // per client: its next request after the first (from the shared unit)
    cv: Reg<Bits<4>>,
    k_addr: [Reg<Bits<64>>; 4],
    k_rem: [Reg<Bits<32>>; 4],
    k_len: [Reg<Bits<13>>; 4],
    k_lp: Reg<Bits<4>>,
    // the next request of the one just issued is computed this cycle
    k_pend: Reg<Bit>,
    k_own: Reg<Bits<4>>,
    k_rest: Reg<Bits<32>>,
    // bits 31:13 of k_rest are 0, or 1
    k_hz: Reg<Bit>,
    k_h1: Reg<Bit>,
    // the grant: the client whose request issues next
    rd_arb: RrArb4,
    g_valid: Reg<Bit>,
    g_own: Reg<Bits<4>>,
    g_sel: Reg<Bits<2>>,
    // the granted piece is a continuation (else a first piece)
    g_cv: Reg<Bit>,
    tag_cap: RdTagCap,
    req_valid: Reg<Bit>,
    req_addr: Reg<Bits<64>>,
    req_len: Reg<Bits<13>>,
    req_tag: Reg<Bits<5>>,
    rd_used: Reg<Bits<6>>,
    // free tags: 0..31 handed out once after reset (`fl_fresh`), then the
    // tags of delivered slots, in the order they were delivered
    fl_fresh: Reg<Bits<6>>,
    fl_mem: LutRam<Bits<5>, 5>,
    fl_wr: Reg<Bits<5>>,
    fl_rd: Reg<Bits<5>>,
    // per tag: beat index of the next completion beat
    rd_beat: LutRam<Bits<3>, 5>,
    rd_buf: BlockRam<Bits<512>, 8>,
    // per tag: all data in / a completion failed (cleared when issued)
    rd_done: Reg<Bits<32>>,
    rd_errs: Reg<Bits<32>>,
    // per client: its tags in issue order, behind the head slot
    q_mem: [LutRam<Bits<21>, 5>; 4],
    q_wr: [Reg<Bits<5>>; 4],
    q_rd: [Reg<Bits<5>>; 4],
    // per client: tags held (issued, slot not yet delivered), and fewer than the cap
    q_cnt: [Reg<Bits<6>>; 4],
    q_ok: Reg<Bits<4>>,
    // per client: the head slot (oldest undelivered), its data all in, failed
    h_val: Reg<Bits<4>>,
    h_rdy: Reg<Bits<4>>,
    h_err: Reg<Bits<4>>,
    h_tag: [Reg<Bits<5>>; 4],
    h_info: [Reg<Bits<16>>; 4],
    h_beat: [Reg<Bits<3>>; 4],
    // per client: places in its output FIFO not yet promised
    cred: [Reg<Bits<3>>; 4],
    dl_arb: RrArb4,
    p_valid: Reg<Bit>,
    p_dst: Reg<Bits<4>>,
    p_first: Reg<Bits<6>>,
    p_lastl: Reg<Bits<6>>,
    p_isfirst: Reg<Bit>,
    p_islast: Reg<Bit>,
    p_last: Reg<Bit>,
    p_err: Reg<Bits<1>>,
    // a beat: error [577], last [576], keep [575:512], data
    rd_out: [DmaFifo<578, 2>; 4],
    rd_err_count: Reg<Bits<32>>,
    // locals
    sz_n: Signal<Local, Bits<13>>,
    mask_n: Signal<Local, Bits<13>>,
    n_lo: Signal<Local, Bits<14>>,
    acc: Signal<Local, Bits<4>>,
    fb_a: Signal<Local, Bits<13>>,
    fb_len: Signal<Local, Bits<13>>,
    fb_lo: Signal<Local, Bits<13>>,
    fb_room: Signal<Local, Bits<13>>,
    fb_lp: Signal<Local, Bit>,
    flp_n: Signal<Local, Bits<4>>,
    klp_n: Signal<Local, Bits<4>>,
    c_busy_n: Signal<Local, Bits<4>>,
    fv_n: Signal<Local, Bits<4>>,
    cv_n: Signal<Local, Bits<4>>,
    rd_req: Signal<Local, Bits<4>>,
    rd_issue: Signal<Local, Bit>,
    sl_cv: Signal<Local, Bit>,
    cont_req: Signal<Local, Bits<4>>,
    sl_addr: Signal<Local, Bits<64>>,
    sl_rem: Signal<Local, Bits<32>>,
    sl_len: Signal<Local, Bits<13>>,
    sl_lp: Signal<Local, Bit>,
    rd_first: Signal<Local, Bits<6>>,
    rd_span: Signal<Local, Bits<13>>,
    n_rem: Signal<Local, Bits<32>>,
    n_lp: Signal<Local, Bit>,
    n_len: Signal<Local, Bits<13>>,
    n_addr: Signal<Local, Bits<64>>,
    cpl_tag: Signal<Local, Bits<5>>,
    cpl_idx: Signal<Local, Bits<3>>,
    cpl_fire: Signal<Local, Bit>,
    cpl_last: Signal<Local, Bit>,
    cpl_elast: Signal<Local, Bit>,
    alloc_tag: Signal<Local, Bits<5>>,
    rd_iclr: Signal<Local, Bits<32>>,
    rd_set: Signal<Local, Bits<32>>,
    rd_eset: Signal<Local, Bits<32>>,
    dl_cand: Signal<Local, Bits<4>>,
    dl_last: Signal<Local, Bits<4>>,
    dl_gnt: Signal<Local, Bits<4>>,
    dl_ret: Signal<Local, Bits<4>>,
    sel_tag: Signal<Local, Bits<5>>,
    sel_beat: Signal<Local, Bits<3>>,
    sel_info: Signal<Local, Bits<16>>,
    sel_err: Signal<Local, Bit>,
    h_val_n: Signal<Local, Bits<4>>,
    q_ok_n: Signal<Local, Bits<4>>,
    h_rdy_n: Signal<Local, Bits<4>>,
    h_err_n: Signal<Local, Bits<4>>,
    d_issue: Signal<Local, Bit>,
    d_keep: Signal<Local, Bits<64>>,
    d_free: Signal<Local, Bit>,
    ones: Signal<Local, Bits<64>>,
    kind: TypeTag<Self>,
}

impl Logic for DmaRd {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rsz,
            rmask,
            c_busy,
            fv,
            f_lp,
            cv,
            k_lp,
            k_pend,
            k_own,
            k_rest,
            k_hz,
            k_h1,
            g_valid,
            g_own,
            g_sel,
            g_cv,
            req_valid,
            req_addr,
            req_len,
            req_tag,
            fl_wr,
            fl_rd,
            fl_fresh,
            rd_used,
            rd_done,
            rd_errs,
            q_ok,
            h_val,
            h_rdy,
            h_err,
            p_valid,
            p_dst,
            p_first,
            p_lastl,
            p_isfirst,
            p_islast,
            p_last,
            p_err,
            rd_err_count
        );
        clock!(self, clock, fl_mem, rd_beat, rd_buf);
        self.dl_arb.clock.next = self.clock.val();
        self.dl_arb.reset.next = self.reset.val();
        self.rd_arb.clock.next = self.clock.val();
        self.rd_arb.reset.next = self.reset.val();
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
            self.q_mem[i].clock.next = self.clock.val();
            self.q_wr[i].clock.next = self.clock.val();
            self.q_wr[i].d.next = self.q_wr[i].q.val();
            self.q_rd[i].clock.next = self.clock.val();
            self.q_rd[i].d.next = self.q_rd[i].q.val();
            self.q_cnt[i].clock.next = self.clock.val();
            self.h_tag[i].clock.next = self.clock.val();
            self.h_tag[i].d.next = self.h_tag[i].q.val();
            self.h_info[i].clock.next = self.clock.val();
            self.h_info[i].d.next = self.h_info[i].q.val();
            self.h_beat[i].clock.next = self.clock.val();
            self.h_beat[i].d.next = self.h_beat[i].q.val();
            self.cred[i].clock.next = self.clock.val();
        }
        self.ones.next = 0xFFFF_FFFF_FFFF_FFFFu64.into();

        // the request size, registered: 128 << min(cfg, 2)
        self.sz_n.next = bits::<13>(512);
        if self.cfg_max_read.val() < 2 {
            self.sz_n.next = bits::<13>(128) << self.cfg_max_read.val();
        }
        self.mask_n.next = self.sz_n.val() - 1;

        // ================= commands: the first request, computed when taken =================
        self.c_busy_n.next = self.c_busy.q.val();
        self.fv_n.next = self.fv.q.val();
        self.cv_n.next = self.cv.q.val();
        self.flp_n.next = self.f_lp.q.val();
        self.acc.next = 0.into();
        for i in 0..4 {
            self.s_rd[i].ready.next = !self.c_busy.q.val().get_bit(i);
            self.acc.next = self.acc.val().replace_bit(
                i,
                self.s_rd[i].valid.val() & !self.c_busy.q.val().get_bit(i) & self.s_rd[i].len.val().any(),
            );
            self.fb_a.next = self.s_rd[i].addr.val().get_bits::<13>(0);
            self.fb_len.next = self.s_rd[i].len.val().get_bits::<13>(0);
            self.fb_lo.next = self.fb_a.val() & self.rmask.q.val();
            self.fb_room.next = self.rsz.q.val() - self.fb_lo.val();
            self.fb_lp.next = !self.s_rd[i].len.val().get_bits::<19>(13).any()
                & (self.s_rd[i].len.val().get_bits::<13>(0) <= self.fb_room.val());
            if self.acc.val().get_bit(i) {
                self.c_busy_n.next = self.c_busy_n.val().replace_bit(i, true);
                self.fv_n.next = self.fv_n.val().replace_bit(i, true);
                self.flp_n.next = self.flp_n.val().replace_bit(i, self.fb_lp.val());
                self.f_addr[i].d.next = self.s_rd[i].addr.val();
                self.f_rem[i].d.next = self.s_rd[i].len.val();
                self.f_len[i].d.next = self.fb_room.val();
                if self.fb_lp.val() {
                    self.f_len[i].d.next = self.s_rd[i].len.val().get_bits::<13>(0);
                }
            }
        }
        self.f_lp.d.next = self.flp_n.val();

        // the sizes change only while nothing is in progress or starting, so
        // every piece of a transfer is cut with the same size
        if !(self.c_busy.q.val().any() | self.acc.val().any()) {
            self.rsz.d.next = self.sz_n.val();
            self.rmask.d.next = self.mask_n.val();
        }

        // ================= the grant, a register =================
        // clients with a request ready next cycle (being taken, being
        // computed, or there) and fewer tags than the cap
        self.rd_req.next = self.fv.q.val() | self.cv.q.val() | self.acc.val();
        self.cont_req.next = self.cv.q.val();
        if self.k_pend.q.val() {
            self.cont_req.next = self.cv.q.val() | self.k_own.q.val();
        }
        if self.k_pend.q.val() {
            self.rd_req.next = self.rd_req.val() | self.k_own.q.val();
        }
        self.rd_req.next = self.rd_req.val() & self.q_ok.q.val();
        self.rd_arb.req.next = self.rd_req.val();
        self.rd_arb.advance.next = !self.g_valid.q.val();
        if !self.g_valid.q.val() {
            self.g_valid.d.next = self.rd_req.val().any();
            self.g_own.d.next = self.rd_arb.grant.val();
            self.g_sel.d.next = self.rd_arb.grant_idx.val();
            self.g_cv.d.next = (self.cont_req.val() & self.rd_arb.grant.val()).any();
        }

        // ================= issue the granted request =================
        self.rd_issue.next = self.g_valid.q.val()
            & !self.rd_used.q.val().get_bit(5)
            & (!self.req_valid.q.val() | self.m_dma_rd_req.ready.val());
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
        self.rd_first.next = self.sl_addr.val().get_bits::<6>(0);
        // offset of the last byte from the first beat's start
        self.rd_span.next = bit_cast::<13, 6>(self.rd_first.val()) + self.sl_len.val() - 1;
        // a free tag: 0..31 once each after reset, then the free list
        self.fl_mem.read_addr.next = self.fl_rd.q.val();
        self.alloc_tag.next = self.fl_mem.read_data.val();
        if !self.fl_fresh.q.val().get_bit(5) {
            self.alloc_tag.next = bit_cast::<5, 6>(self.fl_fresh.q.val());
        }
        self.rd_iclr.next = 0.into();
        self.k_pend.d.next = false;
        if self.rd_issue.val() {
            self.rd_iclr.next = bits::<32>(1) << self.alloc_tag.val();
            if self.fl_fresh.q.val().get_bit(5) {
                self.fl_rd.d.next = self.fl_rd.q.val() + 1;
            } else {
                self.fl_fresh.d.next = self.fl_fresh.q.val() + 1;
            }
            self.g_valid.d.next = false;
            self.fv_n.next = self.fv_n.val() & !self.g_own.q.val();
            self.cv_n.next = self.cv_n.val() & !self.g_own.q.val();
            self.req_addr.d.next = self.sl_addr.val();
            self.req_len.d.next = self.sl_len.val();
            self.req_tag.d.next = self.alloc_tag.val();
            self.k_pend.d.next = !self.sl_lp.val();
            self.k_own.d.next = self.g_own.q.val();
            self.k_rest.d.next = self.sl_rem.val();
            self.k_hz.d.next = self.sl_rem.val().get_bits::<19>(13) == 0;
            self.k_h1.d.next = self.sl_rem.val().get_bits::<19>(13) == 1;
            if self.sl_lp.val() {
                self.c_busy_n.next = self.c_busy_n.val() & !self.g_own.q.val();
            }
        }
        // the tag and its slot's layout join the granted client's queue: tag [20:16],
        // last piece of command [15], first lane [14:9], last lane [8:3], beats - 1 [2:0]
        for i in 0..4 {
            self.q_mem[i].write_addr.next = self.q_wr[i].q.val();
            self.q_mem[i].write_data.next = (bit_cast::<21, 5>(self.alloc_tag.val()) << 16)
                | (bit_cast::<21, 1>(self.sl_lp.val().into()) << 15)
                | (bit_cast::<21, 6>(self.rd_first.val()) << 9)
                | (bit_cast::<21, 6>(bit_cast::<6, 13>(self.rd_span.val())) << 3)
                | bit_cast::<21, 3>(bit_cast::<3, 13>(self.rd_span.val() >> 6));
            self.q_mem[i].write_enable.next = self.rd_issue.val() & self.g_own.q.val().get_bit(i);
            if self.rd_issue.val() & self.g_own.q.val().get_bit(i) {
                self.q_wr[i].d.next = self.q_wr[i].q.val() + 1;
            }
        }
        if self.m_dma_rd_req.ready.val() {
            self.req_valid.d.next = false;
        }
        if self.rd_issue.val() {
            self.req_valid.d.next = true;
        }
        self.m_dma_rd_req.valid.next = self.req_valid.q.val();
        self.m_dma_rd_req.addr.next = self.req_addr.q.val();
        self.m_dma_rd_req.len.next = self.req_len.q.val();
        self.m_dma_rd_req.tag.next = bit_cast::<8, 5>(self.req_tag.q.val());

        // ================= the next request, computed in the cycle after one issues =================
        // it starts on a multiple of the request size: the rest, or one request
        // (bits 31:13 of rest - len - 1 are zero: from the low half's carry and k_hz/k_h1)
        self.n_rem.next = self.k_rest.q.val() - bit_cast::<32, 13>(self.req_len.q.val());
        self.n_lo.next =
            bit_cast::<14, 13>(self.k_rest.q.val().get_bits::<13>(0)) + bit_cast::<14, 13>(!self.req_len.q.val());
        self.n_lp.next = !(self.n_lo.val().get_bits::<13>(0) & !self.rmask.q.val()).any();
        if self.n_lo.val().get_bit(13) {
            self.n_lp.next = self.n_lp.val() & self.k_hz.q.val();
        } else {
            self.n_lp.next = self.n_lp.val() & self.k_h1.q.val();
        }
        self.n_len.next = self.rsz.q.val();
        if self.n_lp.val() {
            self.n_len.next = self.n_rem.val().get_bits::<13>(0);
        }
        self.n_addr.next = self.req_addr.q.val() + bit_cast::<64, 13>(self.req_len.q.val());
        self.klp_n.next = self.k_lp.q.val();
        if self.k_pend.q.val() {
            self.cv_n.next = self.cv_n.val() | self.k_own.q.val();
            for i in 0..4 {
                if self.k_own.q.val().get_bit(i) {
                    self.k_addr[i].d.next = self.n_addr.val();
                    self.k_rem[i].d.next = self.n_rem.val();
                    self.k_len[i].d.next = self.n_len.val();
                    self.klp_n.next = self.klp_n.val().replace_bit(i, self.n_lp.val());
                }
            }
        }
        self.k_lp.d.next = self.klp_n.val();
        self.c_busy.d.next = self.c_busy_n.val();
        self.fv.d.next = self.fv_n.val();
        self.cv.d.next = self.cv_n.val();

        // ================= completions into the reorder buffer =================
        self.s_dma_rd_data.tready.next = true;
        self.cpl_fire.next = self.s_dma_rd_data.tvalid.val();
        self.cpl_tag.next = bit_cast::<5, 8>(self.s_dma_rd_data.tag.val());
        self.rd_beat.read_addr.next = self.cpl_tag.val();
        self.cpl_idx.next = self.rd_beat.read_data.val();
        self.rd_beat.write_addr.next = self.cpl_tag.val();
        self.rd_beat.write_data.next = self.cpl_idx.val() + 1;
        if self.s_dma_rd_data.tlast.val() {
            self.rd_beat.write_data.next = 0.into();
        }
        self.rd_beat.write_enable.next = self.cpl_fire.val();
        self.rd_buf.write_addr.next =
            (bit_cast::<8, 5>(self.cpl_tag.val()) << 3) | bit_cast::<8, 3>(self.cpl_idx.val());
        self.rd_buf.write_data.next = self.s_dma_rd_data.tdata.val();
        self.rd_buf.write_enable.next = self.cpl_fire.val();
        self.cpl_last.next = self.cpl_fire.val() & self.s_dma_rd_data.tlast.val();
        self.cpl_elast.next = self.cpl_last.val() & self.s_dma_rd_data.err.val();
        self.rd_set.next = 0.into();
        self.rd_eset.next = 0.into();
        if self.cpl_last.val() {
            self.rd_set.next = bits::<32>(1) << self.cpl_tag.val();
            if self.s_dma_rd_data.err.val() {
                self.rd_eset.next = bits::<32>(1) << self.cpl_tag.val();
                self.rd_err_count.d.next = self.rd_err_count.q.val() + 1;
            }
        }
        // a slot's done and error bits are cleared when its tag is issued
        self.rd_done.d.next = (self.rd_done.q.val() & !self.rd_iclr.val()) | self.rd_set.val();
        self.rd_errs.d.next = (self.rd_errs.q.val() & !self.rd_iclr.val()) | self.rd_eset.val();

        // ================= deliver, each client on its own =================
        // A client is a candidate when its oldest slot is complete and its
        // output FIFO has a place not yet promised; one beat per cycle goes
        // to one candidate, round-robin per beat.
        self.dl_cand.next = 0.into();
        self.dl_last.next = 0.into();
        for i in 0..4 {
            self.dl_cand.next =
                self.dl_cand.val().replace_bit(i, self.h_rdy.q.val().get_bit(i) & self.cred[i].q.val().any());
            self.dl_last.next =
                self.dl_last.val().replace_bit(i, self.h_beat[i].q.val() == self.h_info[i].q.val().get_bits::<3>(0));
        }
        self.dl_arb.req.next = self.dl_cand.val();
        self.dl_gnt.next = self.dl_arb.grant.val();
        self.d_issue.next = self.dl_cand.val().any();
        self.dl_arb.advance.next = self.d_issue.val();
        self.dl_ret.next = self.dl_gnt.val() & self.dl_last.val();
        self.d_free.next = self.dl_ret.val().any();
        self.sel_tag.next = 0.into();
        self.sel_beat.next = 0.into();
        self.sel_info.next = 0.into();
        self.sel_err.next = false;
        for i in 0..4 {
            if self.dl_gnt.val().get_bit(i) {
                self.sel_tag.next = self.h_tag[i].q.val();
                self.sel_beat.next = self.h_beat[i].q.val();
                self.sel_info.next = self.h_info[i].q.val();
                self.sel_err.next = self.h_err.q.val().get_bit(i);
            }
        }
        self.rd_buf.read_addr.next =
            (bit_cast::<8, 5>(self.sel_tag.val()) << 3) | bit_cast::<8, 3>(self.sel_beat.val());
        self.p_valid.d.next = self.d_issue.val();
        self.p_dst.d.next = self.dl_gnt.val();
        if self.d_issue.val() {
            self.p_first.d.next = self.sel_info.val().get_bits::<6>(9);
            self.p_lastl.d.next = self.sel_info.val().get_bits::<6>(3);
            self.p_isfirst.d.next = !self.sel_beat.val().any();
            self.p_islast.d.next = self.d_free.val();
            self.p_last.d.next = self.d_free.val() & self.sel_info.val().get_bit(15);
            self.p_err.d.next = self.sel_err.val().into();
        }
        // a delivered slot's tag goes back to the free list
        self.fl_mem.write_addr.next = self.fl_wr.q.val();
        self.fl_mem.write_data.next = self.sel_tag.val();
        self.fl_mem.write_enable.next = self.d_free.val();
        if self.d_free.val() {
            self.fl_wr.d.next = self.fl_wr.q.val() + 1;
        }
        self.rd_used.d.next = self.rd_used.q.val() + bit_cast::<6, 1>(self.rd_issue.val().into())
            - bit_cast::<6, 1>(self.d_free.val().into());

        // per client: the head slot, refilled from the client's tag queue
        self.h_val_n.next = self.h_val.q.val();
        self.q_ok_n.next = 0.into();
        self.h_rdy_n.next = 0.into();
        self.h_err_n.next = 0.into();
        for i in 0..4 {
            self.q_mem[i].read_addr.next = self.q_rd[i].q.val();
            // q_ok: fewer than DMA_RD_TAGS_PER_CLIENT tags held after this cycle
            self.q_cnt[i].d.next = self.q_cnt[i].q.val();
            self.q_ok_n.next = self.q_ok_n.val().replace_bit(i, self.q_cnt[i].q.val() < self.tag_cap.cap.val());
            if self.rd_issue.val() & self.g_own.q.val().get_bit(i) & !self.dl_ret.val().get_bit(i) {
                self.q_cnt[i].d.next = self.q_cnt[i].q.val() + 1;
                self.q_ok_n.next = self.q_ok_n.val().replace_bit(i, self.q_cnt[i].q.val() < self.tag_cap.cap_m1.val());
            }
            if !(self.rd_issue.val() & self.g_own.q.val().get_bit(i)) & self.dl_ret.val().get_bit(i) {
                self.q_cnt[i].d.next = self.q_cnt[i].q.val() - 1;
                self.q_ok_n.next = self.q_ok_n.val().replace_bit(i, true);
            }
            if self.dl_gnt.val().get_bit(i) {
                self.h_beat[i].d.next = self.h_beat[i].q.val() + 1;
                if self.dl_last.val().get_bit(i) {
                    self.h_beat[i].d.next = 0.into();
                }
            }
            if !self.h_val.q.val().get_bit(i) | self.dl_ret.val().get_bit(i) {
                self.h_val_n.next = self.h_val_n.val().replace_bit(i, false);
                if self.q_wr[i].q.val() != self.q_rd[i].q.val() {
                    self.h_val_n.next = self.h_val_n.val().replace_bit(i, true);
                    self.h_tag[i].d.next = self.q_mem[i].read_data.val().get_bits::<5>(16);
                    self.h_info[i].d.next = self.q_mem[i].read_data.val().get_bits::<16>(0);
                    self.q_rd[i].d.next = self.q_rd[i].q.val() + 1;
                    self.h_rdy_n.next = self.h_rdy_n.val().replace_bit(
                        i,
                        (self.rd_done.q.val() >> self.q_mem[i].read_data.val().get_bits::<5>(16)).get_bit(0)
                            | (self.cpl_last.val()
                                & (self.cpl_tag.val() == self.q_mem[i].read_data.val().get_bits::<5>(16))),
                    );
                    self.h_err_n.next = self.h_err_n.val().replace_bit(
                        i,
                        (self.rd_errs.q.val() >> self.q_mem[i].read_data.val().get_bits::<5>(16)).get_bit(0)
                            | (self.cpl_elast.val()
                                & (self.cpl_tag.val() == self.q_mem[i].read_data.val().get_bits::<5>(16))),
                    );
                }
            } else {
                self.h_rdy_n.next = self.h_rdy_n.val().replace_bit(
                    i,
                    self.h_rdy.q.val().get_bit(i)
                        | (self.cpl_last.val() & (self.cpl_tag.val() == self.h_tag[i].q.val())),
                );
                self.h_err_n.next = self.h_err_n.val().replace_bit(
                    i,
                    self.h_err.q.val().get_bit(i)
                        | (self.cpl_elast.val() & (self.cpl_tag.val() == self.h_tag[i].q.val())),
                );
            }
        }
        self.h_val.d.next = self.h_val_n.val();
        self.h_rdy.d.next = self.h_rdy_n.val();
        self.h_err.d.next = self.h_err_n.val();
        self.q_ok.d.next = self.q_ok_n.val();

        // the buffer's data meets its sideband one cycle later, into the client's FIFO
        self.d_keep.next = self.ones.val();
        if self.p_isfirst.q.val() {
            self.d_keep.next = self.ones.val() << self.p_first.q.val();
        }
        if self.p_islast.q.val() {
            self.d_keep.next = self.d_keep.val() & (self.ones.val() >> (bits::<6>(63) - self.p_lastl.q.val()));
        }
        for i in 0..4 {
            self.rd_out[i].clock.next = self.clock.val();
            self.rd_out[i].reset.next = self.reset.val();
            self.rd_out[i].s_data.next = (bit_cast::<578, 1>(self.p_err.q.val()) << 577)
                | (bit_cast::<578, 1>(self.p_last.q.val().into()) << 576)
                | (bit_cast::<578, 64>(self.d_keep.val()) << 512)
                | bit_cast::<578, 512>(self.rd_buf.read_data.val());
            self.rd_out[i].s_valid.next = self.p_valid.q.val() & self.p_dst.q.val().get_bit(i);
            self.m_rd[i].tdata.next = self.rd_out[i].m_data.val().get_bits::<512>(0);
            self.m_rd[i].tkeep.next = self.rd_out[i].m_data.val().get_bits::<64>(512);
            self.m_rd[i].tlast.next = self.rd_out[i].m_data.val().get_bit(576);
            self.m_rd[i].tuser.next = self.rd_out[i].m_data.val().get_bits::<1>(577);
            self.m_rd[i].tvalid.next = self.rd_out[i].m_valid.val();
            self.rd_out[i].m_ready.next = self.m_rd[i].tready.val();
            // credits: places left in the client's FIFO (capacity 5) not yet promised
            self.cred[i].d.next = self.cred[i].q.val();
            if self.dl_gnt.val().get_bit(i) & !(self.rd_out[i].m_valid.val() & self.m_rd[i].tready.val()) {
                self.cred[i].d.next = self.cred[i].q.val() - 1;
            }
            if !self.dl_gnt.val().get_bit(i) & self.rd_out[i].m_valid.val() & self.m_rd[i].tready.val() {
                self.cred[i].d.next = self.cred[i].q.val() + 1;
            }
        }
        self.rd_tags_used.next = self.rd_used.q.val();
        self.cnt_rd_err.next = self.rd_err_count.q.val();

        if self.reset.val() {
            self.c_busy.d.next = 0.into();
            self.fv.d.next = 0.into();
            self.cv.d.next = 0.into();
            self.k_pend.d.next = false;
            self.g_valid.d.next = false;
            self.q_ok.d.next = 15.into();
            self.req_valid.d.next = false;
            self.fl_wr.d.next = 0.into();
            self.fl_rd.d.next = 0.into();
            self.fl_fresh.d.next = 0.into();
            self.rd_used.d.next = 0.into();
            self.rd_done.d.next = 0.into();
            self.rd_errs.d.next = 0.into();
            self.h_val.d.next = 0.into();
            self.h_rdy.d.next = 0.into();
            self.h_err.d.next = 0.into();
            for i in 0..4 {
                self.q_wr[i].d.next = 0.into();
                self.q_rd[i].d.next = 0.into();
                self.q_cnt[i].d.next = 0.into();
                self.h_beat[i].d.next = 0.into();
                self.cred[i].d.next = 5.into();
            }
            self.p_valid.d.next = false;
            self.rd_err_count.d.next = 0.into();
        }
    }
}
