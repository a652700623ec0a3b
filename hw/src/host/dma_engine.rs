//! `DmaEngine`: every DMA of the core goes through here.
//!
//! **Reads.** Four clients (descriptor fetch, payload read, context fetch, a
//! spare) each give a command `{addr, len}` of any length and alignment. The
//! engine splits it into requests that end on a multiple of the maximum read
//! request size (so none crosses 4 KiB) and issues one request per cycle,
//! taking clients round-robin *per request*: a 64 KiB payload read cannot
//! hold off a 128-byte descriptor fetch for more than three requests.
//! Each client's next request (length, last piece) is computed a cycle
//! ahead into registers, when its command is taken or its previous request
//! issues, so the issue path is an arbiter and a multiplexer.
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
//! **Writes.** Four clients (payload write, CQE write, context write-back,
//! a spare) stream address-aligned data with `{addr, len}` on the first
//! beat. The engine cuts writes at multiples of the maximum payload size
//! and arbitrates round-robin per cut, so a long write shares the link with
//! a CQE at packet granularity. Write completions return in issue order; a
//! client gets a `wr_done` pulse when the last piece of its write is done
//! (`wr_done_err` if any piece failed).
//!
//! Clients are one-hot in `wr_done`; index 0 is the first array element.

use super::rr_arb::RrArb4;
use super::{DmaRdDataIn, DmaRdReqOut, DmaWrCplIn, DmaWrOut, RdCmdIn, WrStreamIn};
use crate::axis::{AxisFifo, AxisOut, AxisSkidBuffer};
use crate::prim::{BlockRam, LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Read clients.
pub const DMA_RD_CLIENTS: usize = 4;
/// Write clients.
pub const DMA_WR_CLIENTS: usize = 4;
/// Read requests in flight at once.
pub const DMA_RD_TAGS: usize = 32;
/// Read tags one client may hold (issued, slot not yet delivered): a
/// client that stops taking data leaves the others the rest. The RTL
/// compares with the literal (the emitter takes no constant here); the
/// bench checks a lone client reaches exactly this many.
pub const DMA_RD_TAGS_PER_CLIENT: usize = 28;
const _: () = assert!(DMA_RD_TAGS_PER_CLIENT < DMA_RD_TAGS && DMA_RD_TAGS <= 32);
/// Reorder-buffer bytes per read tag: the largest read request issued,
/// whatever larger maximum read request size is configured.
pub const DMA_RD_SLOT_BYTES: usize = 512;
/// Writes awaiting their completion at once.
pub const DMA_WR_TAGS: usize = 32;

#[derive(LogicBlock, Default)]
pub struct DmaEngine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Maximum read request size, PCIe encoding (0: 128 B .. 5: 4096 B);
    /// reads use at most 512 B ([`DMA_RD_SLOT_BYTES`]).
    pub cfg_max_read: Signal<In, Bits<3>>,
    /// Maximum payload size, PCIe encoding (0: 128 B .. 5: 4096 B).
    pub cfg_max_payload: Signal<In, Bits<3>>,
    // PCIe side
    pub m_dma_rd_req: DmaRdReqOut,
    pub s_dma_rd_data: DmaRdDataIn,
    pub m_dma_wr: DmaWrOut,
    pub s_dma_wr_cpl: DmaWrCplIn,
    // client side
    pub s_rd: [RdCmdIn; 4],
    pub m_rd: [AxisOut<512, 64, 1>; 4],
    pub s_wr: [WrStreamIn; 4],
    /// One-hot by write client: its write is done (pulse).
    pub wr_done: Signal<Out, Bits<4>>,
    /// With `wr_done`: the write, or a piece of it, failed.
    pub wr_done_err: Signal<Out, Bits<4>>,
    /// Read tags in use (0..=32).
    pub rd_tags_used: Signal<Out, Bits<6>>,
    /// Read requests that ended in error.
    pub cnt_rd_err: Signal<Out, Bits<32>>,
    /// Write pieces that ended in error.
    pub cnt_wr_err: Signal<Out, Bits<32>>,
    /// Write completions that came back out of issue order, or client
    /// writes whose `tlast` disagreed with their `len` (both mean a broken
    /// adapter or client; counted, never a hang).
    pub cnt_protocol_err: Signal<Out, Bits<32>>,

    // ---- read: per-client commands being split
    c_busy: Reg<Bits<4>>,
    c_addr: [Reg<Bits<64>>; 4],
    c_rem: [Reg<Bits<32>>; 4],
    // per client: the next request's length, and whether it ends the command
    c_clen: [Reg<Bits<13>>; 4],
    c_lp: Reg<Bits<4>>,
    rd_arb: RrArb4,
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
    // per client: tags held (issued, slot not yet delivered)
    q_cnt: [Reg<Bits<6>>; 4],
    // per client: a command waiting and fewer tags held than the cap
    rd_go: Reg<Bits<4>>,
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
    rd_out: [AxisFifo<512, 64, 1, 2>; 4],
    rd_err_count: Reg<Bits<32>>,
    // read locals
    rd_req: Signal<Local, Bits<4>>,
    rd_gnt: Signal<Local, Bits<4>>,
    rd_issue: Signal<Local, Bit>,
    rd_sel_addr: Signal<Local, Bits<64>>,
    rd_size: Signal<Local, Bits<13>>,
    nx_take: Signal<Local, Bit>,
    nx_addr: Signal<Local, Bits<64>>,
    nx_clen: Signal<Local, Bits<13>>,
    nx_lo: Signal<Local, Bits<13>>,
    nx_rem: Signal<Local, Bits<32>>,
    nx_room: Signal<Local, Bits<13>>,
    c_lp_n: Signal<Local, Bits<4>>,
    rd_clen: Signal<Local, Bits<13>>,
    rd_first: Signal<Local, Bits<6>>,
    rd_span: Signal<Local, Bits<13>>,
    rd_lastpiece: Signal<Local, Bit>,
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

    // ---- write
    w_in: Reg<Bit>,
    w_own: Reg<Bits<4>>,
    w_beats: Reg<Bits<7>>,
    w_lastpiece: Reg<Bit>,
    w_addr: Reg<Bits<64>>,
    w_len: Reg<Bits<13>>,
    w_tag: Reg<Bits<5>>,
    wc_busy: Reg<Bits<4>>,
    wc_err: Reg<Bits<4>>,
    wc_addr: [Reg<Bits<64>>; 4],
    wc_rem: [Reg<Bits<32>>; 4],
    wr_arb: RrArb4,
    wr_alloc: Reg<Bits<5>>,
    wr_expect: Reg<Bits<5>>,
    wr_used: Reg<Bits<6>>,
    // per tag: client one-hot [4:1], last piece of the write [0]
    wr_info: LutRam<Bits<5>, 5>,
    wr_out: AxisSkidBuffer<512, 64, 85>,
    done_q: Reg<Bits<4>>,
    done_err_q: Reg<Bits<4>>,
    wr_err_count: Reg<Bits<32>>,
    proto_err_count: Reg<Bits<32>>,
    wr_req: Signal<Local, Bits<4>>,
    wr_gnt: Signal<Local, Bits<4>>,
    wr_start: Signal<Local, Bit>,
    wr_sel_addr: Signal<Local, Bits<64>>,
    wr_sel_rem: Signal<Local, Bits<32>>,
    wr_size: Signal<Local, Bits<13>>,
    wr_room: Signal<Local, Bits<13>>,
    wr_clen: Signal<Local, Bits<13>>,
    wr_span: Signal<Local, Bits<13>>,
    src_valid: Signal<Local, Bit>,
    src_last: Signal<Local, Bit>,
    src_data: Signal<Local, Bits<512>>,
    src_keep: Signal<Local, Bits<64>>,
    w_fire: Signal<Local, Bit>,
    wr_cpl_info: Signal<Local, Bits<5>>,
    wr_freed: Signal<Local, Bit>,
    wr_proto: Signal<Local, Bit>,
    c_busy_n: Signal<Local, Bits<4>>,
    done_n: Signal<Local, Bits<4>>,
    done_err_n: Signal<Local, Bits<4>>,
    wc_err_n: Signal<Local, Bits<4>>,
    kind: TypeTag<Self>,
}

impl Logic for DmaEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            c_busy,
            c_lp,
            rd_go,
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
            rd_err_count,
            w_in,
            w_own,
            w_beats,
            w_lastpiece,
            w_addr,
            w_len,
            w_tag,
            wc_busy,
            wc_err,
            wr_alloc,
            wr_expect,
            wr_used,
            done_q,
            done_err_q,
            wr_err_count,
            proto_err_count
        );
        clock!(self, clock, fl_mem, rd_beat, rd_buf, wr_info);
        self.dl_arb.clock.next = self.clock.val();
        self.dl_arb.reset.next = self.reset.val();
        self.wr_out.clock.next = self.clock.val();
        self.wr_out.reset.next = self.reset.val();
        self.rd_arb.clock.next = self.clock.val();
        self.rd_arb.reset.next = self.reset.val();
        self.wr_arb.clock.next = self.clock.val();
        self.wr_arb.reset.next = self.reset.val();
        for i in 0..4 {
            self.c_addr[i].clock.next = self.clock.val();
            self.c_addr[i].d.next = self.c_addr[i].q.val();
            self.c_rem[i].clock.next = self.clock.val();
            self.c_rem[i].d.next = self.c_rem[i].q.val();
            self.c_clen[i].clock.next = self.clock.val();
            self.c_clen[i].d.next = self.c_clen[i].q.val();
            self.wc_addr[i].clock.next = self.clock.val();
            self.wc_addr[i].d.next = self.wc_addr[i].q.val();
            self.wc_rem[i].clock.next = self.clock.val();
            self.wc_rem[i].d.next = self.wc_rem[i].q.val();
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

        // ================= read: accept commands =================
        for i in 0..4 {
            self.s_rd[i].ready.next = !self.c_busy.q.val().get_bit(i);
        }

        // ================= read: split and issue, one request per cycle =================
        // clients with a command and fewer than DMA_RD_TAGS_PER_CLIENT tags (registered)
        self.rd_req.next = self.rd_go.q.val();
        self.rd_arb.req.next = self.rd_req.val();
        self.rd_gnt.next = self.rd_arb.grant.val();
        self.rd_issue.next = self.rd_req.val().any()
            & !self.rd_used.q.val().get_bit(5)
            & (!self.req_valid.q.val() | self.m_dma_rd_req.ready.val());
        // each client's next request (length, last piece) is computed ahead, in registers
        self.rd_sel_addr.next = 0.into();
        self.rd_clen.next = 0.into();
        self.rd_lastpiece.next = false;
        for i in 0..4 {
            if self.rd_gnt.val().get_bit(i) {
                self.rd_sel_addr.next = self.c_addr[i].q.val();
                self.rd_clen.next = self.c_clen[i].q.val();
                self.rd_lastpiece.next = self.c_lp.q.val().get_bit(i);
            }
        }
        self.rd_first.next = bit_cast::<6, 64>(self.rd_sel_addr.val());
        // offset of the last byte from the first beat's start
        self.rd_span.next = bit_cast::<13, 6>(self.rd_first.val()) + self.rd_clen.val() - 1;
        // a free tag: 0..31 once each after reset, then the free list
        self.fl_mem.read_addr.next = self.fl_rd.q.val();
        self.alloc_tag.next = self.fl_mem.read_data.val();
        if !self.fl_fresh.q.val().get_bit(5) {
            self.alloc_tag.next = bit_cast::<5, 6>(self.fl_fresh.q.val());
        }
        self.rd_iclr.next = 0.into();
        if self.rd_issue.val() {
            self.rd_iclr.next = bits::<32>(1) << self.alloc_tag.val();
            if self.fl_fresh.q.val().get_bit(5) {
                self.fl_rd.d.next = self.fl_rd.q.val() + 1;
            } else {
                self.fl_fresh.d.next = self.fl_fresh.q.val() + 1;
            }
        }
        // the tag and its slot's layout join the granted client's queue: tag [20:16],
        // last piece of command [15], first lane [14:9], last lane [8:3], beats - 1 [2:0]
        for i in 0..4 {
            self.q_mem[i].write_addr.next = self.q_wr[i].q.val();
            self.q_mem[i].write_data.next = (bit_cast::<21, 5>(self.alloc_tag.val()) << 16)
                | (bit_cast::<21, 1>(self.rd_lastpiece.val().into()) << 15)
                | (bit_cast::<21, 6>(self.rd_first.val()) << 9)
                | (bit_cast::<21, 6>(bit_cast::<6, 13>(self.rd_span.val())) << 3)
                | bit_cast::<21, 3>(bit_cast::<3, 13>(self.rd_span.val() >> 6));
            self.q_mem[i].write_enable.next = self.rd_issue.val() & self.rd_gnt.val().get_bit(i);
            if self.rd_issue.val() & self.rd_gnt.val().get_bit(i) {
                self.q_wr[i].d.next = self.q_wr[i].q.val() + 1;
            }
        }
        self.rd_arb.advance.next = self.rd_issue.val();
        if self.m_dma_rd_req.ready.val() {
            self.req_valid.d.next = false;
        }
        if self.rd_issue.val() {
            self.req_valid.d.next = true;
            self.req_addr.d.next = self.rd_sel_addr.val();
            self.req_len.d.next = self.rd_clen.val();
            self.req_tag.d.next = self.alloc_tag.val();
        }
        // busy bits: set on accept, cleared when the last piece issues
        self.c_busy_n.next = self.c_busy.q.val();
        if self.rd_issue.val() & self.rd_lastpiece.val() {
            self.c_busy_n.next = self.c_busy.q.val() & !self.rd_gnt.val();
        }
        // request size: 128 << min(cfg, 2), taken when a command is taken
        self.rd_size.next = bits::<13>(512);
        if self.cfg_max_read.val() < 2 {
            self.rd_size.next = bits::<13>(128) << self.cfg_max_read.val();
        }
        // per client: the command's address and remainder after this cycle
        // (taken, or advanced by an issued request) and the next request's
        // length: up to the next multiple of the request size, or the rest
        self.c_lp_n.next = self.c_lp.q.val();
        for i in 0..4 {
            self.nx_take.next = self.rd_issue.val() & self.rd_gnt.val().get_bit(i);
            self.nx_addr.next = self.c_addr[i].q.val();
            self.nx_clen.next = self.c_clen[i].q.val();
            self.nx_lo.next = bit_cast::<13, 64>(self.nx_addr.val()) + self.nx_clen.val();
            self.nx_rem.next = self.c_rem[i].q.val() - bit_cast::<32, 13>(self.nx_clen.val());
            if self.nx_take.val() {
                self.c_addr[i].d.next = self.nx_addr.val() + bit_cast::<64, 13>(self.nx_clen.val());
                self.c_rem[i].d.next = self.nx_rem.val();
            }
            if self.s_rd[i].valid.val() & !self.c_busy.q.val().get_bit(i) & self.s_rd[i].len.val().any() {
                self.nx_take.next = true;
                self.c_busy_n.next = self.c_busy_n.val().replace_bit(i, true);
                self.nx_addr.next = self.s_rd[i].addr.val();
                self.nx_lo.next = bit_cast::<13, 64>(self.nx_addr.val());
                self.nx_rem.next = self.s_rd[i].len.val();
                self.c_addr[i].d.next = self.s_rd[i].addr.val();
                self.c_rem[i].d.next = self.s_rd[i].len.val();
            }
            self.nx_room.next = self.rd_size.val() - (self.nx_lo.val() & (self.rd_size.val() - 1));
            if self.nx_take.val() {
                self.c_clen[i].d.next = self.nx_room.val();
                self.c_lp_n.next = self.c_lp_n.val().replace_bit(i, false);
                if self.nx_rem.val() <= bit_cast::<32, 13>(self.nx_room.val()) {
                    self.c_clen[i].d.next = bit_cast::<13, 32>(self.nx_rem.val());
                    self.c_lp_n.next = self.c_lp_n.val().replace_bit(i, true);
                }
            }
        }
        self.c_lp.d.next = self.c_lp_n.val();
        self.c_busy.d.next = self.c_busy_n.val();
        self.m_dma_rd_req.valid.next = self.req_valid.q.val();
        self.m_dma_rd_req.addr.next = self.req_addr.q.val();
        self.m_dma_rd_req.len.next = self.req_len.q.val();
        self.m_dma_rd_req.tag.next = bit_cast::<8, 5>(self.req_tag.q.val());

        // ================= read: completions into the reorder buffer =================
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

        // ================= read: deliver, each client on its own =================
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
            // q_ok: fewer than DMA_RD_TAGS_PER_CLIENT (28) tags held after this cycle
            self.q_cnt[i].d.next = self.q_cnt[i].q.val();
            self.q_ok_n.next = self.q_ok_n.val().replace_bit(i, self.q_cnt[i].q.val() < 28);
            if self.rd_issue.val() & self.rd_gnt.val().get_bit(i) & !self.dl_ret.val().get_bit(i) {
                self.q_cnt[i].d.next = self.q_cnt[i].q.val() + 1;
                self.q_ok_n.next = self.q_ok_n.val().replace_bit(i, self.q_cnt[i].q.val() < 27);
            }
            if !(self.rd_issue.val() & self.rd_gnt.val().get_bit(i)) & self.dl_ret.val().get_bit(i) {
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
        self.rd_go.d.next = self.c_busy_n.val() & self.q_ok_n.val();

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
            self.rd_out[i].s_axis.tdata.next = self.rd_buf.read_data.val();
            self.rd_out[i].s_axis.tkeep.next = self.d_keep.val();
            self.rd_out[i].s_axis.tlast.next = self.p_last.q.val();
            self.rd_out[i].s_axis.tuser.next = self.p_err.q.val();
            self.rd_out[i].s_axis.tvalid.next = self.p_valid.q.val() & self.p_dst.q.val().get_bit(i);
            self.m_rd[i].tdata.next = self.rd_out[i].m_axis.tdata.val();
            self.m_rd[i].tkeep.next = self.rd_out[i].m_axis.tkeep.val();
            self.m_rd[i].tlast.next = self.rd_out[i].m_axis.tlast.val();
            self.m_rd[i].tuser.next = self.rd_out[i].m_axis.tuser.val();
            self.m_rd[i].tvalid.next = self.rd_out[i].m_axis.tvalid.val();
            self.rd_out[i].m_axis.tready.next = self.m_rd[i].tready.val();
            // credits: places left in the client's FIFO (capacity 5) not yet promised
            self.cred[i].d.next = self.cred[i].q.val();
            if self.dl_gnt.val().get_bit(i) & !(self.rd_out[i].m_axis.tvalid.val() & self.m_rd[i].tready.val()) {
                self.cred[i].d.next = self.cred[i].q.val() - 1;
            }
            if !self.dl_gnt.val().get_bit(i) & self.rd_out[i].m_axis.tvalid.val() & self.m_rd[i].tready.val() {
                self.cred[i].d.next = self.cred[i].q.val() + 1;
            }
        }
        self.rd_tags_used.next = self.rd_used.q.val();
        self.cnt_rd_err.next = self.rd_err_count.q.val();

        // ================= write: pick a client at the start of each piece =================
        self.wr_req.next = 0.into();
        for i in 0..4 {
            self.wr_req.next = self.wr_req.val().replace_bit(i, self.s_wr[i].tvalid.val());
        }
        self.wr_arb.req.next = self.wr_req.val();
        self.wr_gnt.next = self.wr_arb.grant.val();
        self.wr_start.next = !self.w_in.q.val() & self.wr_req.val().any() & !self.wr_used.q.val().get_bit(5);
        self.wr_sel_addr.next = 0.into();
        self.wr_sel_rem.next = 0.into();
        for i in 0..4 {
            if self.wr_gnt.val().get_bit(i) {
                self.wr_sel_addr.next = self.s_wr[i].addr.val();
                self.wr_sel_rem.next = self.s_wr[i].len.val();
                if self.wc_busy.q.val().get_bit(i) {
                    self.wr_sel_addr.next = self.wc_addr[i].q.val();
                    self.wr_sel_rem.next = self.wc_rem[i].q.val();
                }
            }
        }
        self.wr_size.next = bits::<13>(4096);
        if self.cfg_max_payload.val() < 5 {
            self.wr_size.next = bits::<13>(128) << self.cfg_max_payload.val();
        }
        self.wr_room.next =
            self.wr_size.val() - (bit_cast::<13, 64>(self.wr_sel_addr.val()) & (self.wr_size.val() - 1));
        self.wr_clen.next = self.wr_room.val();
        if self.wr_sel_rem.val() <= bit_cast::<32, 13>(self.wr_room.val()) {
            self.wr_clen.next = bit_cast::<13, 32>(self.wr_sel_rem.val());
        }
        self.wr_span.next = bit_cast::<13, 6>(bit_cast::<6, 64>(self.wr_sel_addr.val())) + self.wr_clen.val() - 1;
        self.wr_info.write_addr.next = self.wr_alloc.q.val();
        self.wr_info.write_data.next = (bit_cast::<5, 4>(self.wr_gnt.val()) << 1)
            | bit_cast::<5, 1>((self.wr_sel_rem.val() <= bit_cast::<32, 13>(self.wr_room.val())).into());
        self.wr_info.write_enable.next = self.wr_start.val();
        self.wr_arb.advance.next = self.wr_start.val();
        if self.wr_start.val() {
            self.w_in.d.next = true;
            self.w_own.d.next = self.wr_gnt.val();
            self.w_beats.d.next = bit_cast::<7, 13>(self.wr_span.val() >> 6) + 1;
            self.w_lastpiece.d.next = self.wr_sel_rem.val() <= bit_cast::<32, 13>(self.wr_room.val());
            self.w_addr.d.next = self.wr_sel_addr.val();
            self.w_len.d.next = self.wr_clen.val();
            self.w_tag.d.next = self.wr_alloc.q.val();
            self.wr_alloc.d.next = self.wr_alloc.q.val() + 1;
            for i in 0..4 {
                if self.wr_gnt.val().get_bit(i) {
                    self.wc_addr[i].d.next = self.wr_sel_addr.val() + bit_cast::<64, 13>(self.wr_clen.val());
                    self.wc_rem[i].d.next = self.wr_sel_rem.val() - bit_cast::<32, 13>(self.wr_clen.val());
                    self.wc_busy.d.next = self
                        .wc_busy
                        .q
                        .val()
                        .replace_bit(i, self.wr_sel_rem.val() > bit_cast::<32, 13>(self.wr_room.val()));
                }
            }
        }

        // ================= write: pass the owner's beats to the output =================
        self.src_valid.next = false;
        self.src_last.next = false;
        self.src_data.next = 0.into();
        self.src_keep.next = 0.into();
        for i in 0..4 {
            self.s_wr[i].tready.next = false;
            if self.w_own.q.val().get_bit(i) {
                self.src_valid.next = self.s_wr[i].tvalid.val();
                self.src_last.next = self.s_wr[i].tlast.val();
                self.src_data.next = self.s_wr[i].tdata.val();
                self.src_keep.next = self.s_wr[i].tkeep.val();
                self.s_wr[i].tready.next = self.w_in.q.val() & self.wr_out.s_axis.tready.val();
            }
        }
        self.w_fire.next = self.w_in.q.val() & self.src_valid.val() & self.wr_out.s_axis.tready.val();
        self.wr_out.s_axis.tvalid.next = self.w_in.q.val() & self.src_valid.val();
        self.wr_out.s_axis.tdata.next = self.src_data.val();
        self.wr_out.s_axis.tkeep.next = self.src_keep.val();
        self.wr_out.s_axis.tlast.next = self.w_beats.q.val() == 1;
        self.wr_out.s_axis.tuser.next = (bit_cast::<85, 5>(self.w_tag.q.val()) << 77)
            | (bit_cast::<85, 13>(self.w_len.q.val()) << 64)
            | bit_cast::<85, 64>(self.w_addr.q.val());
        self.wr_proto.next = false;
        if self.w_fire.val() {
            self.w_beats.d.next = self.w_beats.q.val() - 1;
            if self.w_beats.q.val() == 1 {
                self.w_in.d.next = false;
                if self.src_last.val() != self.w_lastpiece.q.val() {
                    self.wr_proto.next = true;
                }
            } else if self.src_last.val() {
                self.wr_proto.next = true;
            }
        }
        self.m_dma_wr.tdata.next = self.wr_out.m_axis.tdata.val();
        self.m_dma_wr.tkeep.next = self.wr_out.m_axis.tkeep.val();
        self.m_dma_wr.tlast.next = self.wr_out.m_axis.tlast.val();
        self.m_dma_wr.addr.next = self.wr_out.m_axis.tuser.val().get_bits::<64>(0);
        self.m_dma_wr.len.next = self.wr_out.m_axis.tuser.val().get_bits::<13>(64);
        self.m_dma_wr.tag.next = bit_cast::<8, 5>(self.wr_out.m_axis.tuser.val().get_bits::<5>(77));
        self.m_dma_wr.tvalid.next = self.wr_out.m_axis.tvalid.val();
        self.wr_out.m_axis.tready.next = self.m_dma_wr.tready.val();

        // ================= write: completions =================
        self.wr_info.read_addr.next = bit_cast::<5, 8>(self.s_dma_wr_cpl.tag.val());
        self.wr_cpl_info.next = self.wr_info.read_data.val();
        self.wr_freed.next = self.s_dma_wr_cpl.valid.val();
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
        self.wr_used.d.next = self.wr_used.q.val() + bit_cast::<6, 1>(self.wr_start.val().into())
            - bit_cast::<6, 1>(self.wr_freed.val().into());
        self.wr_done.next = self.done_q.q.val();
        self.wr_done_err.next = self.done_err_q.q.val();
        self.cnt_wr_err.next = self.wr_err_count.q.val();
        self.cnt_protocol_err.next = self.proto_err_count.q.val();

        if self.reset.val() {
            self.c_busy.d.next = 0.into();
            self.rd_go.d.next = 0.into();
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
            self.w_in.d.next = false;
            self.wc_busy.d.next = 0.into();
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
