//! `CtxCache<W, K, L>`: an on-chip cache of a table that lives in host
//! memory (QP contexts, MPT entries, MTT lines): 2^L entries of W bits
//! (K = W/8 byte enables; W is 512 or 1024, one or two beats), direct-mapped,
//! in block RAM, with up to [`CTX_CACHE_MSHRS`] misses outstanding.
//!
//! Requests (`s_req`): read, write (a masked merge into the current entry),
//! invalidate (drop, no write-back), flush (write back if dirty, then drop),
//! each with an id that comes back with its response (`m_resp`). Requests
//! to one index are served in the order they were taken; requests to other
//! indices may be answered out of order (a hit does not wait for a miss).
//!
//! **Organisation.** Entry n lives in set n mod 2^L; the tag array holds the
//! whole index with valid and dirty bits, the data array the entry. One
//! event per cycle (a fill > a replay > a new request) enters a three-stage
//! read-modify-write: A presents the set to both RAMs, B has their words, C
//! decides and writes the set back (forwarding from the two last written
//! sets, as in `desc_fetch`).
//!
//! **Misses.** A read or write that misses takes a miss register (MSHR) for
//! its set, writes the victim back if dirty (the set is emptied at once),
//! asks the DMA read client for the entry and parks in the park FIFO. Any
//! later request to a set that has an MSHR parks behind it (so one index is
//! served in order, and a victim is never read back before its write-back
//! completed). The fill enters the pipeline like a request (a full-mask
//! write into the empty set); once the fill is in and the victim's write-back
//! done, the park FIFO's head replays (one at a time, never popped before it
//! is served: a replay that misses again re-arms its MSHR and stays at the
//! head). An MSHR is freed when the last request parked on it is served. A
//! flush of a dirty entry takes an MSHR the same way, without a fill, and is
//! answered on its replay, after the write-back's completion.
//!
//! **Inputs and outputs from registers.** `s_req.ready` is a register (a
//! two-place input queue); responses, read commands and write-backs leave
//! from FIFOs whose registers drive the ports; `s_rd.tready` is a register.
//! New requests are admitted only while the response FIFO, the park FIFO
//! and the MSHRs have room for every request on its way (credit counters).
//!
//! `tbl_base` (aligned to the entry size) and `tbl_log` (log2 of the host
//! table's entries) may change only while the cache holds nothing. After
//! `reset` the cache clears its tag array, one set per cycle (2^L cycles).

use super::dma_fifo::DmaFifo;
use super::{RdCmdOut, WrStreamOut};
use crate::axis::{AxisFifo, AxisIn};
use crate::prim::{BlockRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Request codes (`s_req.op`).
pub const CACHE_OP_READ: u64 = 0;
pub const CACHE_OP_WRITE: u64 = 1;
pub const CACHE_OP_INVALIDATE: u64 = 2;
pub const CACHE_OP_FLUSH: u64 = 3;
/// Misses (and dirty flushes) outstanding at most.
pub const CTX_CACHE_MSHRS: usize = 8;
/// Width of a request's id.
pub const CTX_CACHE_ID_BITS: usize = 8;
/// log2 of the park FIFO's and the response FIFO's LUTRAM (32 deep, one
/// RAM32M16 column each; 33 places with the output register).
const PARK_LOG: usize = 5;
const RESP_LOG: usize = 5;
/// A new request is admitted only while fewer than this many places are
/// taken or promised (the literal 32 in `update`).
const CREDITS: usize = 1 << PARK_LOG;
const _: () = assert!(CREDITS == 32 && RESP_LOG == PARK_LOG);
/// The MSHR-side FIFOs (read commands, fills in flight, write-backs) hold
/// one entry per MSHR at most: 2^3 + 1 places.
const MSHR_FIFO_LOG: usize = 3;
const _: () = assert!(CTX_CACHE_MSHRS == 8 && (1 << MSHR_FIFO_LOG) >= CTX_CACHE_MSHRS);
const _: () = assert!(CACHE_OP_READ == 0 && CACHE_OP_WRITE == 1 && CACHE_OP_INVALIDATE == 2 && CACHE_OP_FLUSH == 3);
/// Park FIFO user bits: MSHR [36:34], op [33:32], id [31:24], index [23:0].
const PARK_USER: usize = 3 + 2 + CTX_CACHE_ID_BITS + 24;
const _: () = assert!(PARK_USER == 37);

/// A request to the cache: `op` ([`CACHE_OP_READ`]...), the entry's
/// `index`, for a write the bytes to change (`mask`) and their values
/// (`data`, the entry's layout), and an `id` returned with the response.
#[derive(LogicInterface, Default)]
#[join = "CacheReqOut"]
pub struct CacheReqIn<const W: usize, const K: usize> {
    pub op: Signal<In, Bits<2>>,
    pub index: Signal<In, Bits<24>>,
    pub mask: Signal<In, Bits<K>>,
    pub data: Signal<In, Bits<W>>,
    pub id: Signal<In, Bits<8>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "CacheReqIn"]
pub struct CacheReqOut<const W: usize, const K: usize> {
    pub op: Signal<Out, Bits<2>>,
    pub index: Signal<Out, Bits<24>>,
    pub mask: Signal<Out, Bits<K>>,
    pub data: Signal<Out, Bits<W>>,
    pub id: Signal<Out, Bits<8>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// A response: the request's `id`, the entry as it is after the request
/// (a read: the entry; a write: the merged entry), `err` if the index is
/// beyond the host table, or the DMA read of the entry or a write-back the
/// request waited for failed (a write is then not applied).
#[derive(LogicInterface, Default)]
#[join = "CacheRespIn"]
pub struct CacheRespOut<const W: usize> {
    pub data: Signal<Out, Bits<W>>,
    pub id: Signal<Out, Bits<8>>,
    pub err: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "CacheRespOut"]
pub struct CacheRespIn<const W: usize> {
    pub data: Signal<In, Bits<W>>,
    pub id: Signal<In, Bits<8>>,
    pub err: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct CtxCache<const W: usize, const K: usize, const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// IOVA of entry 0 (aligned to the entry size).
    pub tbl_base: Signal<In, Bits<64>>,
    /// log2 of the entries of the host table; a request beyond it is
    /// answered with `err` and no DMA.
    pub tbl_log: Signal<In, Bits<5>>,
    pub s_req: CacheReqIn<W, K>,
    pub m_resp: CacheRespOut<W>,
    /// DMA read client (entries in).
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    /// DMA write client (write-backs out) and its completions.
    pub m_wr: WrStreamOut,
    pub wr_done: Signal<In, Bit>,
    pub wr_done_err: Signal<In, Bit>,
    /// The tag array is being cleared after reset.
    pub init: Signal<Out, Bit>,

    // ---- arrays
    /// valid [25], dirty [24], index [23:0], per set.
    tags: BlockRam<Bits<26>, L>,
    data: BlockRam<Bits<W>, L>,
    clr: Reg<Bit>,
    clr_set: Reg<Bits<L>>,
    // ---- input queue (head h, then s); ready = !sv
    hv: Reg<Bit>,
    h_op: Reg<Bits<2>>,
    h_idx: Reg<Bits<24>>,
    h_mask: Reg<Bits<K>>,
    h_data: Reg<Bits<W>>,
    h_id: Reg<Bits<8>>,
    h_oor: Reg<Bit>,
    sv: Reg<Bit>,
    s_op: Reg<Bits<2>>,
    s_idx: Reg<Bits<24>>,
    s_mask: Reg<Bits<K>>,
    s_data: Reg<Bits<W>>,
    s_id: Reg<Bits<8>>,
    s_oor: Reg<Bit>,
    // ---- credits: places taken or promised
    resp_cnt: Reg<Bits<6>>,
    park_cnt: Reg<Bits<6>>,
    mshr_cnt: Reg<Bits<4>>,
    // ---- MSHRs
    mv: Reg<Bits<8>>,
    mfilled: Reg<Bits<8>>,
    mwb: Reg<Bits<8>>,
    merr: Reg<Bits<8>>,
    mset: [Reg<Bits<L>>; 8],
    mcnt: [Reg<Bits<6>>; 8],
    rep_busy: Reg<Bit>,
    // ---- stage B
    v1: Reg<Bit>,
    f1: Reg<Bit>,
    r1: Reg<Bit>,
    n1: Reg<Bit>,
    op1: Reg<Bits<2>>,
    idx1: Reg<Bits<24>>,
    mask1: Reg<Bits<K>>,
    wd1: Reg<Bits<W>>,
    id1: Reg<Bits<8>>,
    m1: Reg<Bits<3>>,
    oor1: Reg<Bit>,
    ferr1: Reg<Bit>,
    // ---- stage C
    v2: Reg<Bit>,
    f2: Reg<Bit>,
    r2: Reg<Bit>,
    n2: Reg<Bit>,
    op2: Reg<Bits<2>>,
    idx2: Reg<Bits<24>>,
    mask2: Reg<Bits<K>>,
    wd2: Reg<Bits<W>>,
    id2: Reg<Bits<8>>,
    m2: Reg<Bits<3>>,
    oor2: Reg<Bit>,
    ferr2: Reg<Bit>,
    tag2: Reg<Bits<26>>,
    dat2: Reg<Bits<W>>,
    fwd1: Reg<Bit>,
    fwd2: Reg<Bit>,
    lock2: Reg<Bits<8>>,
    rda2: Reg<Bits<64>>,
    // ---- the last two words written (forwarding)
    w_v: Reg<Bit>,
    w_set: Reg<Bits<L>>,
    w_tag: Reg<Bits<26>>,
    w_dat: Reg<Bits<W>>,
    wp_tag: Reg<Bits<26>>,
    wp_dat: Reg<Bits<W>>,
    alloc_prev: Reg<Bit>,
    alloc_prev_id: Reg<Bits<3>>,
    // ---- fills
    fill_v: Reg<Bit>,
    fill_beat: Reg<Bit>,
    fill_buf: Reg<Bits<1024>>,
    fill_err: Reg<Bit>,
    fill_m: Reg<Bits<3>>,
    fill_idx: Reg<Bits<24>>,
    // ---- write-back streaming
    wb_beat: Reg<Bit>,
    // ---- FIFOs
    park: AxisFifo<W, K, 37, PARK_LOG>,
    resp_d: DmaFifo<W, RESP_LOG>,
    resp_i: DmaFifo<9, RESP_LOG>,
    rd_cmd: DmaFifo<64, MSHR_FIFO_LOG>,
    infl: DmaFifo<27, MSHR_FIFO_LOG>,
    wb_d: DmaFifo<W, MSHR_FIFO_LOG>,
    wb_a: DmaFifo<64, MSHR_FIFO_LOG>,
    wb_m: DmaFifo<3, MSHR_FIFO_LOG>,
    merge: ByteMerge<W, K>,

    // ---- locals
    /// The entry is two beats (W = 1024).
    wones: Signal<Local, Bits<W>>,
    two: Signal<Local, Bit>,
    in_take: Signal<Local, Bit>,
    in_oor: Signal<Local, Bit>,
    head_m: Signal<Local, Bits<3>>,
    head_rdy: Signal<Local, Bit>,
    ev_fill: Signal<Local, Bit>,
    ev_rep: Signal<Local, Bit>,
    ev_new: Signal<Local, Bit>,
    a_idx: Signal<Local, Bits<24>>,
    set1: Signal<Local, Bits<L>>,
    set2: Signal<Local, Bits<L>>,
    lockb: Signal<Local, Bits<8>>,
    ctag: Signal<Local, Bits<26>>,
    cdat: Signal<Local, Bits<W>>,
    hit: Signal<Local, Bit>,
    locked: Signal<Local, Bit>,
    lock_id: Signal<Local, Bits<3>>,
    free_id: Signal<Local, Bits<3>>,
    rep_err: Signal<Local, Bit>,
    ntag: Signal<Local, Bits<26>>,
    ndat: Signal<Local, Bits<W>>,
    resp: Signal<Local, Bit>,
    rerr: Signal<Local, Bit>,
    park_new: Signal<Local, Bit>,
    miss: Signal<Local, Bit>,
    wbonly: Signal<Local, Bit>,
    do_wb: Signal<Local, Bit>,
    need_m: Signal<Local, Bit>,
    alloc: Signal<Local, Bit>,
    rearm: Signal<Local, Bit>,
    served: Signal<Local, Bit>,
    freed: Signal<Local, Bit>,
    mv_n: Signal<Local, Bits<8>>,
    mf_n: Signal<Local, Bits<8>>,
    mwb_n: Signal<Local, Bits<8>>,
    merr_n: Signal<Local, Bits<8>>,
    use_m: Signal<Local, Bits<3>>,
    vaddr: Signal<Local, Bits<64>>,
    resp_pop: Signal<Local, Bit>,
    rd_fire: Signal<Local, Bit>,
    wr_fire: Signal<Local, Bit>,
    wr_last: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const W: usize, const K: usize, const L: usize> Logic for CtxCache<W, K, L> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            clr,
            clr_set,
            hv,
            h_op,
            h_idx,
            h_mask,
            h_data,
            h_id,
            h_oor,
            sv,
            s_op,
            s_idx,
            s_mask,
            s_data,
            s_id,
            s_oor,
            resp_cnt,
            park_cnt,
            mshr_cnt,
            mv,
            mfilled,
            mwb,
            merr,
            rep_busy,
            v1,
            f1,
            r1,
            n1,
            op1,
            idx1,
            mask1,
            wd1,
            id1,
            m1,
            oor1,
            ferr1,
            v2,
            f2,
            r2,
            n2,
            op2,
            idx2,
            mask2,
            wd2,
            id2,
            m2,
            oor2,
            ferr2,
            tag2,
            dat2,
            fwd1,
            fwd2,
            lock2,
            rda2,
            w_v,
            w_set,
            w_tag,
            w_dat,
            wp_tag,
            wp_dat,
            alloc_prev,
            alloc_prev_id,
            fill_v,
            fill_beat,
            fill_buf,
            fill_err,
            fill_m,
            fill_idx,
            wb_beat
        );
        clock!(self, clock, tags, data);
        self.park.clock.next = self.clock.val();
        self.park.reset.next = self.reset.val();
        self.resp_d.clock.next = self.clock.val();
        self.resp_d.reset.next = self.reset.val();
        self.resp_i.clock.next = self.clock.val();
        self.resp_i.reset.next = self.reset.val();
        self.rd_cmd.clock.next = self.clock.val();
        self.rd_cmd.reset.next = self.reset.val();
        self.infl.clock.next = self.clock.val();
        self.infl.reset.next = self.reset.val();
        self.wb_d.clock.next = self.clock.val();
        self.wb_d.reset.next = self.reset.val();
        self.wb_a.clock.next = self.clock.val();
        self.wb_a.reset.next = self.reset.val();
        self.wb_m.clock.next = self.clock.val();
        self.wb_m.reset.next = self.reset.val();
        for k in 0..8 {
            self.mset[k].clock.next = self.clock.val();
            self.mset[k].d.next = self.mset[k].q.val();
            self.mcnt[k].clock.next = self.clock.val();
            self.mcnt[k].d.next = self.mcnt[k].q.val();
        }
        // a constant: does the entry take two beats (W = 1024)?
        self.wones.next = 0.into();
        self.wones.next = !self.wones.val();
        self.two.next = self.wones.val().get_bits::<1>(512).any();

        // ================= input queue: ready from a register =================
        self.s_req.ready.next = !self.sv.q.val();
        self.in_take.next = self.s_req.valid.val() & !self.sv.q.val();
        self.in_oor.next = (bit_cast::<32, 24>(self.s_req.index.val()) >> self.tbl_log.val()) != 0;

        // ================= stage A: one event per cycle =================
        self.head_m.next = self.park.m_axis.tuser.val().get_bits::<3>(34);
        self.head_rdy.next = false;
        for k in 0..8 {
            if self.head_m.val().index() == k {
                self.head_rdy.next = self.mfilled.q.val().get_bit(k) & !self.mwb.q.val().get_bit(k);
            }
        }
        self.ev_fill.next = self.fill_v.q.val() & !self.clr.q.val();
        self.ev_rep.next = self.park.m_axis.tvalid.val()
            & self.head_rdy.val()
            & !self.rep_busy.q.val()
            & (self.resp_cnt.q.val() < 32)
            & !self.fill_v.q.val()
            & !self.clr.q.val();
        self.ev_new.next = self.hv.q.val()
            & !self.ev_rep.val()
            & !self.fill_v.q.val()
            & !self.clr.q.val()
            & (self.resp_cnt.q.val() < 32)
            & (self.park_cnt.q.val() < 32)
            & (self.mshr_cnt.q.val() < 8);
        self.a_idx.next = self.h_idx.q.val();
        self.op1.d.next = self.h_op.q.val();
        self.mask1.d.next = self.h_mask.q.val();
        self.wd1.d.next = self.h_data.q.val();
        self.id1.d.next = self.h_id.q.val();
        self.oor1.d.next = self.h_oor.q.val();
        self.m1.d.next = self.head_m.val();
        if self.ev_rep.val() {
            self.a_idx.next = self.park.m_axis.tuser.val().get_bits::<24>(0);
            self.op1.d.next = self.park.m_axis.tuser.val().get_bits::<2>(32);
            self.mask1.d.next = self.park.m_axis.tkeep.val();
            self.wd1.d.next = self.park.m_axis.tdata.val();
            self.id1.d.next = self.park.m_axis.tuser.val().get_bits::<8>(24);
            self.oor1.d.next = false;
        }
        if self.ev_fill.val() {
            self.a_idx.next = self.fill_idx.q.val();
            self.op1.d.next = 1.into();
            self.mask1.d.next = !bits::<K>(0);
            self.wd1.d.next = bit_cast::<W, 1024>(self.fill_buf.q.val());
            self.oor1.d.next = false;
            self.m1.d.next = self.fill_m.q.val();
        }
        self.idx1.d.next = self.a_idx.val();
        self.ferr1.d.next = self.fill_err.q.val();
        self.v1.d.next = self.ev_fill.val() | self.ev_rep.val() | self.ev_new.val();
        self.f1.d.next = self.ev_fill.val();
        self.r1.d.next = self.ev_rep.val();
        self.n1.d.next = self.ev_new.val();
        self.tags.read_addr.next = bit_cast::<L, 24>(self.a_idx.val());
        self.data.read_addr.next = bit_cast::<L, 24>(self.a_idx.val());
        if self.ev_fill.val() {
            self.fill_v.d.next = false;
        }
        if self.ev_rep.val() {
            self.rep_busy.d.next = true;
        }

        // the input queue: the head leaves with ev_new, a new request enters behind
        if self.ev_new.val() {
            self.hv.d.next = self.sv.q.val();
            self.h_op.d.next = self.s_op.q.val();
            self.h_idx.d.next = self.s_idx.q.val();
            self.h_mask.d.next = self.s_mask.q.val();
            self.h_data.d.next = self.s_data.q.val();
            self.h_id.d.next = self.s_id.q.val();
            self.h_oor.d.next = self.s_oor.q.val();
            self.sv.d.next = false;
        }
        if self.in_take.val() {
            if self.hv.q.val() & !self.ev_new.val() {
                self.sv.d.next = true;
                self.s_op.d.next = self.s_req.op.val();
                self.s_idx.d.next = self.s_req.index.val();
                self.s_mask.d.next = self.s_req.mask.val();
                self.s_data.d.next = self.s_req.data.val();
                self.s_id.d.next = self.s_req.id.val();
                self.s_oor.d.next = self.in_oor.val();
            } else {
                self.hv.d.next = true;
                self.h_op.d.next = self.s_req.op.val();
                self.h_idx.d.next = self.s_req.index.val();
                self.h_mask.d.next = self.s_req.mask.val();
                self.h_data.d.next = self.s_req.data.val();
                self.h_id.d.next = self.s_req.id.val();
                self.h_oor.d.next = self.in_oor.val();
            }
        }

        // ================= stage B: the RAMs' words =================
        self.set1.next = bit_cast::<L, 24>(self.idx1.q.val());
        self.tag2.d.next = self.tags.read_data.val();
        self.dat2.d.next = self.data.read_data.val();
        // forwarding: the set written at this edge (the event in C) or at the last one
        self.fwd1.d.next = self.v2.q.val() & (bit_cast::<L, 24>(self.idx2.q.val()) == self.set1.val());
        self.fwd2.d.next = self.w_v.q.val() & (self.w_set.q.val() == self.set1.val());
        self.lockb.next = 0.into();
        for k in 0..8 {
            self.lockb.next =
                self.lockb.val().replace_bit(k, self.mv.q.val().get_bit(k) & (self.mset[k].q.val() == self.set1.val()));
        }
        self.lock2.d.next = self.lockb.val();
        self.rda2.d.next = self.tbl_base.val() + (bit_cast::<64, 24>(self.idx1.q.val()) << 6);
        if self.two.val() {
            self.rda2.d.next = self.tbl_base.val() + (bit_cast::<64, 24>(self.idx1.q.val()) << 7);
        }
        self.v2.d.next = self.v1.q.val();
        self.f2.d.next = self.f1.q.val();
        self.r2.d.next = self.r1.q.val();
        self.n2.d.next = self.n1.q.val();
        self.op2.d.next = self.op1.q.val();
        self.idx2.d.next = self.idx1.q.val();
        self.mask2.d.next = self.mask1.q.val();
        self.wd2.d.next = self.wd1.q.val();
        self.id2.d.next = self.id1.q.val();
        self.m2.d.next = self.m1.q.val();
        self.oor2.d.next = self.oor1.q.val();
        self.ferr2.d.next = self.ferr1.q.val();

        // ================= stage C: decide, modify, write back =================
        self.set2.next = bit_cast::<L, 24>(self.idx2.q.val());
        self.ctag.next = self.tag2.q.val();
        self.cdat.next = self.dat2.q.val();
        if self.fwd2.q.val() {
            self.ctag.next = self.wp_tag.q.val();
            self.cdat.next = self.wp_dat.q.val();
        }
        if self.fwd1.q.val() {
            self.ctag.next = self.w_tag.q.val();
            self.cdat.next = self.w_dat.q.val();
        }
        self.hit.next = self.ctag.val().get_bit(25) & (self.ctag.val().get_bits::<24>(0) == self.idx2.q.val());
        // a new request parks behind an MSHR of its set (one allocated at the
        // last edge is not in lock2 yet: the event then in C had this set)
        self.locked.next = (self.lock2.q.val() & self.mv.q.val()).any() | (self.fwd1.q.val() & self.alloc_prev.q.val());
        self.lock_id.next = 0.into();
        if self.lock2.q.val().get_bit(1) {
            self.lock_id.next = 1.into();
        }
        if self.lock2.q.val().get_bit(2) {
            self.lock_id.next = 2.into();
        }
        if self.lock2.q.val().get_bit(3) {
            self.lock_id.next = 3.into();
        }
        if self.lock2.q.val().get_bit(4) {
            self.lock_id.next = 4.into();
        }
        if self.lock2.q.val().get_bit(5) {
            self.lock_id.next = 5.into();
        }
        if self.lock2.q.val().get_bit(6) {
            self.lock_id.next = 6.into();
        }
        if self.lock2.q.val().get_bit(7) {
            self.lock_id.next = 7.into();
        }
        if self.fwd1.q.val() & self.alloc_prev.q.val() {
            self.lock_id.next = self.alloc_prev_id.q.val();
        }
        self.free_id.next = 0.into();
        if !self.mv.q.val().get_bit(7) {
            self.free_id.next = 7.into();
        }
        if !self.mv.q.val().get_bit(6) {
            self.free_id.next = 6.into();
        }
        if !self.mv.q.val().get_bit(5) {
            self.free_id.next = 5.into();
        }
        if !self.mv.q.val().get_bit(4) {
            self.free_id.next = 4.into();
        }
        if !self.mv.q.val().get_bit(3) {
            self.free_id.next = 3.into();
        }
        if !self.mv.q.val().get_bit(2) {
            self.free_id.next = 2.into();
        }
        if !self.mv.q.val().get_bit(1) {
            self.free_id.next = 1.into();
        }
        if !self.mv.q.val().get_bit(0) {
            self.free_id.next = 0.into();
        }
        self.rep_err.next = false;
        for k in 0..8 {
            if self.m2.q.val().index() == k {
                self.rep_err.next = self.merr.q.val().get_bit(k);
            }
        }
        // a write's bytes merged into the current entry
        self.merge.a.next = self.cdat.val();
        self.merge.b.next = self.wd2.q.val();
        self.merge.mask.next = self.mask2.q.val();

        self.ntag.next = self.ctag.val();
        self.ndat.next = self.cdat.val();
        self.resp.next = false;
        self.rerr.next = false;
        self.park_new.next = false;
        self.miss.next = false;
        self.wbonly.next = false;
        if self.f2.q.val() {
            // a fill: the entry into its (empty) set, clean; nothing on a DMA error
            self.ndat.next = self.wd2.q.val();
            self.ntag.next = bit_cast::<26, 24>(self.idx2.q.val()) | bits::<26>(0x200_0000);
            if self.ferr2.q.val() {
                self.ntag.next = 0.into();
            }
        } else if !self.v2.q.val() {
            // no event
        } else if self.oor2.q.val() {
            self.resp.next = true;
            self.rerr.next = true;
        } else if self.n2.q.val() & self.locked.val() {
            self.park_new.next = true;
        } else if self.r2.q.val() & self.rep_err.val() {
            self.resp.next = true;
            self.rerr.next = true;
        } else if self.op2.q.val() == 0 {
            // read
            if self.hit.val() {
                self.resp.next = true;
            } else {
                self.miss.next = true;
            }
        } else if self.op2.q.val() == 1 {
            // write: merge the masked bytes, dirty
            if self.hit.val() {
                self.resp.next = true;
                self.ndat.next = self.merge.y.val();
                self.ntag.next = self.ctag.val() | bits::<26>(0x100_0000);
            } else {
                self.miss.next = true;
            }
        } else if self.op2.q.val() == 2 {
            // invalidate: drop
            self.resp.next = true;
            if self.hit.val() {
                self.ntag.next = 0.into();
            }
        } else {
            // flush: write back if dirty (answered on the replay), drop
            if self.hit.val() {
                self.ntag.next = 0.into();
            }
            if self.hit.val() & self.ctag.val().get_bit(24) {
                self.wbonly.next = true;
            } else {
                self.resp.next = true;
            }
        }
        if self.miss.val() {
            self.ntag.next = 0.into();
        }
        self.do_wb.next =
            self.wbonly.val() | (self.miss.val() & self.ctag.val().get_bit(25) & self.ctag.val().get_bit(24));
        self.need_m.next = self.miss.val() | self.wbonly.val();
        self.alloc.next = self.need_m.val() & self.n2.q.val();
        self.rearm.next = self.need_m.val() & self.r2.q.val();
        self.served.next = self.r2.q.val() & self.resp.val();
        self.use_m.next = self.m2.q.val();
        if self.alloc.val() {
            self.use_m.next = self.free_id.val();
        }
        if self.park_new.val() {
            self.use_m.next = self.lock_id.val();
        }
        self.freed.next = false;
        for k in 0..8 {
            if self.m2.q.val().index() == k {
                self.freed.next = self.served.val() & (self.mcnt[k].q.val() == 1);
            }
        }

        // the set's new words
        self.tags.write_addr.next = self.set2.val();
        self.tags.write_data.next = self.ntag.val();
        self.tags.write_enable.next = self.v2.q.val();
        self.data.write_addr.next = self.set2.val();
        self.data.write_data.next = self.ndat.val();
        self.data.write_enable.next = self.v2.q.val();
        if self.clr.q.val() {
            self.tags.write_addr.next = self.clr_set.q.val();
            self.tags.write_data.next = 0.into();
            self.tags.write_enable.next = true;
        }
        self.w_v.d.next = self.v2.q.val();
        self.w_set.d.next = self.set2.val();
        self.w_tag.d.next = self.ntag.val();
        self.w_dat.d.next = self.ndat.val();
        self.wp_tag.d.next = self.w_tag.q.val();
        self.wp_dat.d.next = self.w_dat.q.val();
        self.alloc_prev.d.next = self.alloc.val();
        self.alloc_prev_id.d.next = self.free_id.val();

        // MSHRs
        self.mv_n.next = self.mv.q.val();
        self.mf_n.next = self.mfilled.q.val();
        self.mwb_n.next = self.mwb.q.val();
        self.merr_n.next = self.merr.q.val();
        for k in 0..8 {
            if self.use_m.val().index() == k {
                if self.alloc.val() {
                    self.mv_n.next = self.mv_n.val().replace_bit(k, true);
                    self.mset[k].d.next = self.set2.val();
                    self.mcnt[k].d.next = 1.into();
                    self.merr_n.next = self.merr_n.val().replace_bit(k, false);
                }
                if self.need_m.val() {
                    self.mf_n.next = self.mf_n.val().replace_bit(k, self.wbonly.val());
                    self.mwb_n.next = self.mwb_n.val().replace_bit(k, self.do_wb.val());
                }
                if self.park_new.val() {
                    self.mcnt[k].d.next = self.mcnt[k].q.val() + 1;
                }
                if self.served.val() {
                    self.mcnt[k].d.next = self.mcnt[k].q.val() - 1;
                }
                if self.freed.val() {
                    self.mv_n.next = self.mv_n.val().replace_bit(k, false);
                }
                if self.f2.q.val() {
                    self.mf_n.next = self.mf_n.val().replace_bit(k, true);
                    if self.ferr2.q.val() {
                        self.merr_n.next = self.merr_n.val().replace_bit(k, true);
                    }
                }
            }
            if self.wr_done.val() & (self.wb_m.m_data.val().index() == k) {
                self.mwb_n.next = self.mwb_n.val().replace_bit(k, false);
                if self.wr_done_err.val() {
                    self.merr_n.next = self.merr_n.val().replace_bit(k, true);
                }
            }
        }
        self.mv.d.next = self.mv_n.val();
        self.mfilled.d.next = self.mf_n.val();
        self.mwb.d.next = self.mwb_n.val();
        self.merr.d.next = self.merr_n.val();
        if self.r2.q.val() {
            self.rep_busy.d.next = false;
        }

        // parking, replays
        self.park.s_axis.tvalid.next = self.park_new.val() | self.alloc.val();
        self.park.s_axis.tdata.next = self.wd2.q.val();
        self.park.s_axis.tkeep.next = self.mask2.q.val();
        self.park.s_axis.tlast.next = true;
        self.park.s_axis.tuser.next = (bit_cast::<37, 3>(self.use_m.val()) << 34)
            | (bit_cast::<37, 2>(self.op2.q.val()) << 32)
            | (bit_cast::<37, 8>(self.id2.q.val()) << 24)
            | bit_cast::<37, 24>(self.idx2.q.val());
        self.park.m_axis.tready.next = self.served.val();

        // the miss's read and its record
        self.rd_cmd.s_valid.next = self.miss.val();
        self.rd_cmd.s_data.next = self.rda2.q.val();
        self.infl.s_valid.next = self.miss.val();
        self.infl.s_data.next = (bit_cast::<27, 3>(self.use_m.val()) << 24) | bit_cast::<27, 24>(self.idx2.q.val());
        self.m_rd.valid.next = self.rd_cmd.m_valid.val();
        self.m_rd.addr.next = self.rd_cmd.m_data.val();
        self.m_rd.len.next = 64.into();
        if self.two.val() {
            self.m_rd.len.next = 128.into();
        }
        self.rd_fire.next = self.rd_cmd.m_valid.val() & self.m_rd.ready.val();
        self.rd_cmd.m_ready.next = self.m_rd.ready.val();

        // the victim's write-back
        self.vaddr.next = self.tbl_base.val() + (bit_cast::<64, 24>(self.ctag.val().get_bits::<24>(0)) << 6);
        if self.two.val() {
            self.vaddr.next = self.tbl_base.val() + (bit_cast::<64, 24>(self.ctag.val().get_bits::<24>(0)) << 7);
        }
        self.wb_d.s_valid.next = self.do_wb.val();
        self.wb_d.s_data.next = self.cdat.val();
        self.wb_a.s_valid.next = self.do_wb.val();
        self.wb_a.s_data.next = self.vaddr.val();
        self.wb_m.s_valid.next = self.do_wb.val();
        self.wb_m.s_data.next = self.use_m.val();
        self.wb_m.m_ready.next = self.wr_done.val();

        // responses
        self.resp_d.s_valid.next = self.resp.val();
        self.resp_d.s_data.next = self.ndat.val();
        self.resp_i.s_valid.next = self.resp.val();
        self.resp_i.s_data.next = (bit_cast::<9, 1>(self.rerr.val().into()) << 8) | bit_cast::<9, 8>(self.id2.q.val());
        self.m_resp.valid.next = self.resp_d.m_valid.val();
        self.m_resp.data.next = self.resp_d.m_data.val();
        self.m_resp.id.next = self.resp_i.m_data.val().get_bits::<8>(0);
        self.m_resp.err.next = self.resp_i.m_data.val().get_bit(8);
        self.resp_pop.next = self.resp_d.m_valid.val() & self.m_resp.ready.val();
        self.resp_d.m_ready.next = self.m_resp.ready.val();
        self.resp_i.m_ready.next = self.m_resp.ready.val();

        // credits: taken at A, returned at C (no response, no park, no MSHR) or when freed
        self.resp_cnt.d.next = self.resp_cnt.q.val() + bit_cast::<6, 1>((self.ev_rep.val() | self.ev_new.val()).into())
            - bit_cast::<6, 1>(((self.r2.q.val() | self.n2.q.val()) & !self.resp.val()).into())
            - bit_cast::<6, 1>(self.resp_pop.val().into());
        self.park_cnt.d.next = self.park_cnt.q.val() + bit_cast::<6, 1>(self.ev_new.val().into())
            - bit_cast::<6, 1>((self.n2.q.val() & !self.park_new.val() & !self.alloc.val()).into())
            - bit_cast::<6, 1>(self.served.val().into());
        self.mshr_cnt.d.next = self.mshr_cnt.q.val() + bit_cast::<4, 1>(self.ev_new.val().into())
            - bit_cast::<4, 1>((self.n2.q.val() & !self.alloc.val()).into())
            - bit_cast::<4, 1>(self.freed.val().into());

        // ================= fills: beats of the entry, in command order =================
        self.s_rd.tready.next = !self.fill_v.q.val();
        self.infl.m_ready.next = false;
        if self.s_rd.tvalid.val() & !self.fill_v.q.val() {
            if self.fill_beat.q.val() {
                self.fill_buf.d.next = self.fill_buf.q.val() | (bit_cast::<1024, 512>(self.s_rd.tdata.val()) << 512);
                self.fill_err.d.next = self.fill_err.q.val() | self.s_rd.tuser.val().any();
            } else {
                self.fill_buf.d.next = bit_cast::<1024, 512>(self.s_rd.tdata.val());
                self.fill_err.d.next = self.s_rd.tuser.val().any();
            }
            self.fill_beat.d.next = true;
            if self.s_rd.tlast.val() {
                self.fill_beat.d.next = false;
                self.fill_v.d.next = true;
                self.fill_m.d.next = self.infl.m_data.val().get_bits::<3>(24);
                self.fill_idx.d.next = self.infl.m_data.val().get_bits::<24>(0);
                self.infl.m_ready.next = true;
            }
        }

        // ================= write-backs: one or two beats from the FIFO's registers =================
        self.wr_last.next = !self.two.val() | self.wb_beat.q.val();
        self.m_wr.tvalid.next = self.wb_d.m_valid.val();
        self.m_wr.tdata.next = bit_cast::<512, W>(self.wb_d.m_data.val());
        if self.wb_beat.q.val() {
            self.m_wr.tdata.next = self.wb_d.m_data.val().get_bits::<512>(512);
        }
        self.m_wr.tkeep.next = !bits::<64>(0);
        self.m_wr.tlast.next = self.wr_last.val();
        self.m_wr.addr.next = self.wb_a.m_data.val();
        self.m_wr.len.next = 64.into();
        if self.two.val() {
            self.m_wr.len.next = 128.into();
        }
        self.wr_fire.next = self.wb_d.m_valid.val() & self.m_wr.tready.val();
        if self.wr_fire.val() {
            self.wb_beat.d.next = !self.wr_last.val();
        }
        self.wb_d.m_ready.next = self.m_wr.tready.val() & self.wr_last.val();
        self.wb_a.m_ready.next = self.m_wr.tready.val() & self.wr_last.val();

        // ================= the tag array's clearing after reset =================
        if self.clr.q.val() {
            self.clr_set.d.next = self.clr_set.q.val() + 1;
            if self.clr_set.q.val().all() {
                self.clr.d.next = false;
            }
        }
        self.init.next = self.clr.q.val();

        if self.reset.val() {
            self.clr.d.next = true;
            self.clr_set.d.next = 0.into();
            self.hv.d.next = false;
            self.sv.d.next = false;
            self.resp_cnt.d.next = 0.into();
            self.park_cnt.d.next = 0.into();
            self.mshr_cnt.d.next = 0.into();
            self.mv.d.next = 0.into();
            self.mfilled.d.next = 0.into();
            self.mwb.d.next = 0.into();
            self.merr.d.next = 0.into();
            self.rep_busy.d.next = false;
            self.v1.d.next = false;
            self.f1.d.next = false;
            self.r1.d.next = false;
            self.n1.d.next = false;
            self.v2.d.next = false;
            self.f2.d.next = false;
            self.r2.d.next = false;
            self.n2.d.next = false;
            self.w_v.d.next = false;
            self.alloc_prev.d.next = false;
            self.fill_v.d.next = false;
            self.fill_beat.d.next = false;
            self.wb_beat.d.next = false;
        }
    }
}

/// `y` is `a` with the bytes whose `mask` bit is set taken from `b`:
/// combinational, one LUT3 per bit. Hand-written Verilog (a generate loop:
/// rust-hdl would unroll a bit loop into W statements of W bits each) and
/// its Rust model; the differential test compares the two.
#[derive(LogicBlock, Default)]
pub struct ByteMerge<const W: usize, const K: usize> {
    pub a: Signal<In, Bits<W>>,
    pub b: Signal<In, Bits<W>>,
    pub mask: Signal<In, Bits<K>>,
    pub y: Signal<Out, Bits<W>>,
    kind: TypeTag<Self>,
}

impl<const W: usize, const K: usize> Logic for ByteMerge<W, K> {
    fn update(&mut self) {
        let (b, m) = (self.b.val(), self.mask.val());
        let mut y = self.a.val();
        for i in 0..K {
            if m.get_bit(i) {
                for j in 8 * i..8 * i + 8 {
                    y = y.replace_bit(j, b.get_bit(j));
                }
            }
        }
        self.y.next = y;
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "for (genvar i = 0; i < {K}; i++) begin : byte_\n\
             \x20   assign y[8 * i +: 8] = mask[i] ? b[8 * i +: 8] : a[8 * i +: 8];\n\
             end"
        ))
    }
}
