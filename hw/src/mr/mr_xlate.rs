//! `MrXlate`: the translation unit a transport calls (docs/memory.md): an
//! [`MrCheck`] whose MPT and MTT lookups are served by two context caches
//! ([`CtxCache`], 64-byte entries: MPT entries, and MTT lines of 8 entries)
//! over tables in host memory, the caches' DMA clients merged onto one read
//! client and one write client, and an invalidate port for deregistration.
//!
//! ```text
//!  s_req ─► MrCheck ─► m_resp
//!            │ m_mpt/s_mpt          │ m_mtt/s_mtt
//!        LookupRob (in order)   LookupRob (in order)
//!            │ s_req/m_resp         │ s_req/m_resp
//!  s_inv ─►  MPT cache              MTT cache         ─► m_inv
//!            └───── m_rd, s_rd, m_wr, wr_done ──┘ (merged, registered)
//! ```
//!
//! * The caches answer reads of different entries out of order; a
//!   [`LookupRob`] per cache tags each read with a sequence number and hands
//!   the answers to `MrCheck` in read order. An answer with `err` (an entry
//!   beyond the table, a failed DMA read) is handed on as 64 zero bytes: an
//!   MPT entry without VALID (`Invalid`), or MTT entries without VALID
//!   (`MttInvalid`), so a table the device cannot read fails the access.
//! * `MrCheck`'s prefetch hints (`m_pf`: the MTT line a sequential stream
//!   reads next) go to the MTT cache as reads whose answers the
//!   `LookupRob` drops: a hinted line that misses is fetched while the
//!   stream still reads the lines before it.
//! * `s_inv` (table 0: MPT entry `index`, 1: MTT line `index`) is sent to
//!   the cache as an Invalidate ahead of `MrCheck`'s reads, and `m_inv` is
//!   offered once the cache answered it: the set no longer holds the entry.
//!   One invalidate at a time: `s_inv.ready` is low until `m_inv` is taken.
//! * DMA: a read command is taken from one cache at a time (round robin)
//!   into a register that drives `m_rd`; a FIFO of the commands' sources
//!   routes the data, which comes back in command order, to its cache.
//!   Writes (one beat each: an entry is 64 bytes) go the same way, and a
//!   FIFO of their sources routes `wr_done` (in issue order). Every valid
//!   and ready this block drives is a register or a register's mux: no path
//!   from `m_rd.ready` or `m_wr.tready` to a cache's ready.

use super::*;
use crate::axis::AxisIn;
use crate::host::{
    CacheReqOut, CacheRespIn, CacheRespOut, CtxCache, RdCmdOut, WrStreamOut, CACHE_OP_INVALIDATE, CACHE_OP_READ,
    CTX_CACHE_MSHRS,
};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the MPT cache's entries (64 bytes each).
pub const MR_MPT_CACHE_LOG: usize = 8;
/// log2 of the MTT cache's lines (64 bytes, 8 MTT entries each).
pub const MR_MTT_CACHE_LOG: usize = 8;
/// log2 of the lookups a [`LookupRob`] has outstanding at most.
pub const MR_ROB_LOG: usize = 4;
/// log2 of the DMA source FIFOs (2^5 + 1 places).
const SRC_LOG: usize = 5;
const _: () = assert!(
    SRC_LOG == 5 && (1 << SRC_LOG) >= 2 * CTX_CACHE_MSHRS + 2,
    "a source FIFO holds every read (write) both caches can have outstanding"
);
const _: () = assert!(MR_ROB_LOG == 4 && MR_FIFO_DEPTH == 16 && MR_LINE_BUFFER == 16, "16 lookups in flight at most");
/// The id bit that marks an invalidate's answer (reads carry their sequence number below it).
const INV_ID: u64 = 0x80;
const _: () = assert!(INV_ID == 1 << 7 && MR_ROB_LOG < 7 && MR_ID_BITS == 8);
/// The id of a prefetch (its answer is dropped).
const PF_ID: u64 = 0x40;
const _: () = assert!(PF_ID == 1 << 6 && MR_ROB_LOG < 6);
// the literals of `LookupRob::update` (named constants would have to join `consts::NAMED`)
const _: () = assert!(CACHE_OP_READ == 0 && CACHE_OP_INVALIDATE == 2);

/// An invalidate: drop MPT entry `index` (`table` 0) or MTT line `index`
/// (`table` 1, MTT entries 8 `index` .. 8 `index` + 7) from its cache.
#[derive(LogicInterface, Default)]
#[join = "InvReqOut"]
pub struct InvReqIn {
    pub table: Signal<In, Bit>,
    pub index: Signal<In, Bits<24>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "InvReqIn"]
pub struct InvReqOut {
    pub table: Signal<Out, Bit>,
    pub index: Signal<Out, Bits<24>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// The invalidate is done: the cache holds the entry no more.
#[derive(LogicInterface, Default)]
#[join = "InvDoneIn"]
pub struct InvDoneOut {
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "InvDoneOut"]
pub struct InvDoneIn {
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// Puts a context cache behind a lookup port: reads out with sequence
/// numbers as ids, answers back in read order (a reorder buffer of 2^4
/// entries in LUTRAM), an invalidate slipped in ahead of the reads, a
/// prefetch hint sent when neither is (its answer dropped, so a prefetch
/// that misses never holds up the reads behind it). An index
/// wider than the cache's 24 bits with any bit above them set is not a table
/// entry: it is answered with zeros like an `err` answer (the cache reads
/// the low 24 bits' entry, which is in the table, and the answer is dropped).
#[derive(LogicBlock, Default)]
pub struct LookupRob<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_look: LookupReqIn<W>,
    pub m_look: LookupRespOut,
    /// Prefetch hints (an index beyond 24 bits is taken and dropped).
    pub s_pf: HintIn<W>,
    pub m_req: CacheReqOut<512, 64>,
    pub s_resp: CacheRespIn<512>,
    /// Send an invalidate of `inv_index` now (before any read).
    pub inv_req: Signal<In, Bit>,
    pub inv_index: Signal<In, Bits<24>>,
    /// The cache took it / answered it.
    pub inv_taken: Signal<Out, Bit>,
    pub inv_done: Signal<Out, Bit>,

    /// per read, by sequence number: its id and "beyond 24 bits"
    meta: LutRam<Bits<9>, MR_ROB_LOG>,
    /// per answer, by sequence number: the 64 bytes and `err`
    data: LutRam<Bits<513>, MR_ROB_LOG>,
    wr_seq: Reg<Bits<MR_ROB_LOG>>,
    rd_seq: Reg<Bits<MR_ROB_LOG>>,
    filled: Reg<Bits<16>>,
    cnt: Reg<Bits<5>>,
    room: Reg<Bit>,
    ov: Reg<Bit>,
    o_data: Reg<Bits<512>>,
    o_id: Reg<Bits<8>>,
    wide: Signal<Local, Bits<32>>,
    pf_wide: Signal<Local, Bits<32>>,
    pf_far: Signal<Local, Bit>,
    rd_want: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    got: Signal<Local, Bit>,
    head: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    cnt_next: Signal<Local, Bits<5>>,
    fill_n: Signal<Local, Bits<16>>,
    kind: TypeTag<Self>,
}

impl<const W: usize> Logic for LookupRob<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_seq, rd_seq, filled, cnt, room, ov, o_data, o_id);
        clock!(self, clock, meta, data);

        // ---- reads (and the invalidate) out
        self.s_look.ready.next = self.m_req.ready.val() & !self.inv_req.val() & self.room.q.val();
        self.issue.next = self.s_look.valid.val() & self.m_req.ready.val() & !self.inv_req.val() & self.room.q.val();
        self.inv_taken.next = self.inv_req.val() & self.m_req.ready.val();
        self.wide.next = bit_cast::<32, W>(self.s_look.index.val());
        self.rd_want.next = self.s_look.valid.val() & self.room.q.val();
        // a prefetch goes when no read or invalidate does
        self.pf_wide.next = bit_cast::<32, W>(self.s_pf.index.val());
        self.pf_far.next = self.pf_wide.val().get_bits::<8>(24).any();
        self.s_pf.ready.next = (self.m_req.ready.val() & !self.inv_req.val() & !self.rd_want.val()) | self.pf_far.val();
        self.m_req.valid.next = self.inv_req.val() | self.rd_want.val() | (self.s_pf.valid.val() & !self.pf_far.val());
        self.m_req.op.next = 0.into(); // CACHE_OP_READ
        self.m_req.index.next = self.wide.val().get_bits::<24>(0);
        self.m_req.id.next = bit_cast::<8, MR_ROB_LOG>(self.wr_seq.q.val());
        if !self.rd_want.val() {
            self.m_req.index.next = self.pf_wide.val().get_bits::<24>(0);
            self.m_req.id.next = 0x40.into(); // PF_ID
        }
        if self.inv_req.val() {
            self.m_req.op.next = 2.into(); // CACHE_OP_INVALIDATE
            self.m_req.index.next = self.inv_index.val();
            self.m_req.id.next = 0x80.into(); // INV_ID
        }
        self.m_req.mask.next = 0.into();
        self.m_req.data.next = 0.into();
        self.meta.write_addr.next = self.wr_seq.q.val();
        self.meta.write_data.next = bit_cast::<9, 8>(self.s_look.id.val())
            | (bit_cast::<9, 1>(self.wide.val().get_bits::<8>(24).any().into()) << 8);
        self.meta.write_enable.next = self.issue.val();
        if self.issue.val() {
            self.wr_seq.d.next = self.wr_seq.q.val() + 1;
        }

        // ---- answers in, by sequence number
        self.s_resp.ready.next = true;
        self.got.next = self.s_resp.valid.val() & !self.s_resp.id.val().get_bit(7) & !self.s_resp.id.val().get_bit(6);
        self.inv_done.next = self.s_resp.valid.val() & self.s_resp.id.val().get_bit(7);
        self.data.write_addr.next = self.s_resp.id.val().get_bits::<MR_ROB_LOG>(0);
        self.data.write_data.next =
            bit_cast::<513, 512>(self.s_resp.data.val()) | (bit_cast::<513, 1>(self.s_resp.err.val().into()) << 512);
        self.data.write_enable.next = self.got.val();

        // ---- answers out, in read order, from registers
        self.meta.read_addr.next = self.rd_seq.q.val();
        self.data.read_addr.next = self.rd_seq.q.val();
        self.head.next = false;
        for k in 0..16 {
            if self.rd_seq.q.val().index() == k {
                self.head.next = self.filled.q.val().get_bit(k);
            }
        }
        self.load.next = self.head.val() & (!self.ov.q.val() | self.m_look.ready.val());
        self.m_look.valid.next = self.ov.q.val();
        self.m_look.data.next = self.o_data.q.val();
        self.m_look.id.next = self.o_id.q.val();
        if self.m_look.ready.val() {
            self.ov.d.next = false;
        }
        if self.load.val() {
            self.ov.d.next = true;
            self.o_data.d.next = self.data.read_data.val().get_bits::<512>(0);
            if self.data.read_data.val().get_bit(512) | self.meta.read_data.val().get_bit(8) {
                self.o_data.d.next = 0.into();
            }
            self.o_id.d.next = self.meta.read_data.val().get_bits::<8>(0);
            self.rd_seq.d.next = self.rd_seq.q.val() + 1;
        }
        self.fill_n.next = self.filled.q.val();
        for k in 0..16 {
            if self.got.val() & (self.s_resp.id.val().get_bits::<MR_ROB_LOG>(0).index() == k) {
                self.fill_n.next = self.fill_n.val().replace_bit(k, true);
            }
            if self.load.val() & (self.rd_seq.q.val().index() == k) {
                self.fill_n.next = self.fill_n.val().replace_bit(k, false);
            }
        }
        self.filled.d.next = self.fill_n.val();
        // reads outstanding (issued, not handed on): at most 16
        self.cnt_next.next =
            self.cnt.q.val() + bit_cast::<5, 1>(self.issue.val().into()) - bit_cast::<5, 1>(self.load.val().into());
        self.cnt.d.next = self.cnt_next.val();
        self.room.d.next = !self.cnt_next.val().get_bit(4); // MR_ROB_LOG

        if self.reset.val() {
            self.wr_seq.d.next = 0.into();
            self.rd_seq.d.next = 0.into();
            self.filled.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.room.d.next = false;
            self.ov.d.next = false;
        }
    }
}

#[derive(LogicBlock, Default)]
pub struct MrXlate {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The MPT: IOVA of entry 0 and log2 of its entries (`mpt_base_lo/hi`,
    /// `mpt_log_entries`); the MTT: IOVA of entry 0 and log2 of its entries
    /// (`mtt_base_lo/hi`, `mtt_log_entries`). Static while accesses run
    /// (registers later).
    pub mpt_base: Signal<In, Bits<64>>,
    pub mpt_log: Signal<In, Bits<5>>,
    pub mtt_base: Signal<In, Bits<64>>,
    pub mtt_log: Signal<In, Bits<5>>,
    /// The check port (as `MrCheck`'s).
    pub s_req: MrReqIn,
    pub m_resp: MrRespOut,
    /// Invalidate an MPT entry or an MTT line; done when `m_inv` is offered.
    pub s_inv: InvReqIn,
    pub m_inv: InvDoneOut,
    /// The DMA engine's read client and write client, for both caches.
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub m_wr: WrStreamOut,
    pub wr_done: Signal<In, Bit>,
    pub wr_done_err: Signal<In, Bit>,
    /// The caches are clearing their tags after reset.
    pub init: Signal<Out, Bit>,

    check: MrCheck,
    mpt_rob: LookupRob<MPT_INDEX_BITS>,
    mtt_rob: LookupRob<MTT_LINE_BITS>,
    mpt_cache: CtxCache<512, 64, MR_MPT_CACHE_LOG>,
    mtt_cache: CtxCache<512, 64, MR_MTT_CACHE_LOG>,
    // ---- invalidate
    iv: Reg<Bit>,
    i_table: Reg<Bit>,
    i_index: Reg<Bits<24>>,
    i_sent: Reg<Bit>,
    av: Reg<Bit>,
    mtt_lines_log: Reg<Bits<5>>,
    // ---- DMA reads: the command register, the sources of commands in flight
    rv: Reg<Bit>,
    r_addr: Reg<Bits<64>>,
    r_len: Reg<Bits<32>>,
    r_last: Reg<Bit>,
    rd_src: LutRam<Bit, SRC_LOG>,
    rs_wr: Reg<Bits<6>>,
    rs_rd: Reg<Bits<6>>,
    rs_any: Signal<Local, Bit>,
    rs_room: Signal<Local, Bit>,
    rs_mtt: Signal<Local, Bit>,
    r_grant: Signal<Local, Bit>,
    r_load: Signal<Local, Bit>,
    // ---- DMA writes: the beat register, the sources of writes not done
    wv: Reg<Bit>,
    w_data: Reg<Bits<512>>,
    w_keep: Reg<Bits<64>>,
    w_tlast: Reg<Bit>,
    w_addr: Reg<Bits<64>>,
    w_len: Reg<Bits<32>>,
    w_last: Reg<Bit>,
    wr_src: LutRam<Bit, SRC_LOG>,
    ws_wr: Reg<Bits<6>>,
    ws_rd: Reg<Bits<6>>,
    ws_room: Signal<Local, Bit>,
    ws_mtt: Signal<Local, Bit>,
    w_grant: Signal<Local, Bit>,
    w_load: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for MrXlate {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            iv,
            i_table,
            i_index,
            i_sent,
            av,
            mtt_lines_log,
            rv,
            r_addr,
            r_len,
            r_last,
            wv,
            w_data,
            w_keep,
            w_tlast,
            w_addr,
            w_len,
            w_last,
            rs_wr,
            rs_rd,
            ws_wr,
            ws_rd
        );
        clock!(self, clock, rd_src, wr_src);
        self.check.clock.next = self.clock.val();
        self.check.reset.next = self.reset.val();
        self.mpt_rob.clock.next = self.clock.val();
        self.mpt_rob.reset.next = self.reset.val();
        self.mtt_rob.clock.next = self.clock.val();
        self.mtt_rob.reset.next = self.reset.val();
        self.mpt_cache.clock.next = self.clock.val();
        self.mpt_cache.reset.next = self.reset.val();
        self.mtt_cache.clock.next = self.clock.val();
        self.mtt_cache.reset.next = self.reset.val();

        // ---- the check and its lookups
        MrReqIn::link(&mut self.s_req, &mut self.check.s_req);
        MrRespOut::link(&mut self.m_resp, &mut self.check.m_resp);
        self.check.mpt_log.next = self.mpt_log.val();
        LookupReqOut::<MPT_INDEX_BITS>::join(&mut self.check.m_mpt, &mut self.mpt_rob.s_look);
        LookupRespOut::join(&mut self.mpt_rob.m_look, &mut self.check.s_mpt);
        LookupReqOut::<MTT_LINE_BITS>::join(&mut self.check.m_mtt, &mut self.mtt_rob.s_look);
        LookupRespOut::join(&mut self.mtt_rob.m_look, &mut self.check.s_mtt);
        HintOut::<MTT_LINE_BITS>::join(&mut self.check.m_pf, &mut self.mtt_rob.s_pf);
        self.mpt_rob.s_pf.valid.next = false;
        self.mpt_rob.s_pf.index.next = 0.into();
        CacheReqOut::<512, 64>::join(&mut self.mpt_rob.m_req, &mut self.mpt_cache.s_req);
        CacheRespOut::<512>::join(&mut self.mpt_cache.m_resp, &mut self.mpt_rob.s_resp);
        CacheReqOut::<512, 64>::join(&mut self.mtt_rob.m_req, &mut self.mtt_cache.s_req);
        CacheRespOut::<512>::join(&mut self.mtt_cache.m_resp, &mut self.mtt_rob.s_resp);
        self.mpt_cache.tbl_base.next = self.mpt_base.val();
        self.mpt_cache.tbl_log.next = self.mpt_log.val();
        self.mtt_cache.tbl_base.next = self.mtt_base.val();
        // the MTT cache counts lines of 8 entries
        self.mtt_lines_log.d.next = 0.into();
        if self.mtt_log.val() > 3 {
            self.mtt_lines_log.d.next = self.mtt_log.val() - 3;
        }
        self.mtt_cache.tbl_log.next = self.mtt_lines_log.q.val();
        self.init.next = self.mpt_cache.init.val() | self.mtt_cache.init.val();

        // ---- invalidates: one at a time, done when the cache answered it
        self.s_inv.ready.next = !self.iv.q.val();
        if self.s_inv.valid.val() & !self.iv.q.val() {
            self.iv.d.next = true;
            self.i_table.d.next = self.s_inv.table.val();
            self.i_index.d.next = self.s_inv.index.val();
            self.i_sent.d.next = false;
        }
        self.mpt_rob.inv_req.next = self.iv.q.val() & !self.i_sent.q.val() & !self.i_table.q.val();
        self.mtt_rob.inv_req.next = self.iv.q.val() & !self.i_sent.q.val() & self.i_table.q.val();
        self.mpt_rob.inv_index.next = self.i_index.q.val();
        self.mtt_rob.inv_index.next = self.i_index.q.val();
        if self.mpt_rob.inv_taken.val() | self.mtt_rob.inv_taken.val() {
            self.i_sent.d.next = true;
        }
        if self.mpt_rob.inv_done.val() | self.mtt_rob.inv_done.val() {
            self.av.d.next = true;
        }
        self.m_inv.valid.next = self.av.q.val();
        if self.av.q.val() & self.m_inv.ready.val() {
            self.av.d.next = false;
            self.iv.d.next = false;
        }

        // ---- DMA read commands: one cache's command into the register when it is empty
        self.m_rd.valid.next = self.rv.q.val();
        self.m_rd.addr.next = self.r_addr.q.val();
        self.m_rd.len.next = self.r_len.q.val();
        if self.m_rd.ready.val() {
            self.rv.d.next = false;
        }
        // round robin: the MTT cache (1) unless the MPT cache has one and was not served last
        self.r_grant.next = self.mtt_cache.m_rd.valid.val() & (self.r_last.q.val() | !self.mpt_cache.m_rd.valid.val());
        // the sources of the commands in flight: a 2^5-place FIFO
        self.rs_any.next = self.rs_wr.q.val() != self.rs_rd.q.val();
        self.rs_room.next = (self.rs_wr.q.val() - self.rs_rd.q.val()) != 32;
        self.rd_src.write_addr.next = self.rs_wr.q.val().get_bits::<SRC_LOG>(0);
        self.rd_src.read_addr.next = self.rs_rd.q.val().get_bits::<SRC_LOG>(0);
        self.rs_mtt.next = self.rd_src.read_data.val();
        self.r_load.next =
            !self.rv.q.val() & (self.mpt_cache.m_rd.valid.val() | self.mtt_cache.m_rd.valid.val()) & self.rs_room.val();
        self.mpt_cache.m_rd.ready.next = self.r_load.val() & !self.r_grant.val();
        self.mtt_cache.m_rd.ready.next = self.r_load.val() & self.r_grant.val();
        self.rd_src.write_enable.next = self.r_load.val();
        self.rd_src.write_data.next = self.r_grant.val();
        if self.r_load.val() {
            self.rs_wr.d.next = self.rs_wr.q.val() + 1;
            self.rv.d.next = true;
            self.r_last.d.next = self.r_grant.val();
            self.r_addr.d.next = self.mpt_cache.m_rd.addr.val();
            self.r_len.d.next = self.mpt_cache.m_rd.len.val();
            if self.r_grant.val() {
                self.r_addr.d.next = self.mtt_cache.m_rd.addr.val();
                self.r_len.d.next = self.mtt_cache.m_rd.len.val();
            }
        }
        // read data, in command order, to the command's cache
        self.mpt_cache.s_rd.tdata.next = self.s_rd.tdata.val();
        self.mpt_cache.s_rd.tkeep.next = self.s_rd.tkeep.val();
        self.mpt_cache.s_rd.tlast.next = self.s_rd.tlast.val();
        self.mpt_cache.s_rd.tuser.next = self.s_rd.tuser.val();
        self.mtt_cache.s_rd.tdata.next = self.s_rd.tdata.val();
        self.mtt_cache.s_rd.tkeep.next = self.s_rd.tkeep.val();
        self.mtt_cache.s_rd.tlast.next = self.s_rd.tlast.val();
        self.mtt_cache.s_rd.tuser.next = self.s_rd.tuser.val();
        self.mpt_cache.s_rd.tvalid.next = self.s_rd.tvalid.val() & self.rs_any.val() & !self.rs_mtt.val();
        self.mtt_cache.s_rd.tvalid.next = self.s_rd.tvalid.val() & self.rs_any.val() & self.rs_mtt.val();
        self.s_rd.tready.next = self.rs_any.val() & self.mpt_cache.s_rd.tready.val();
        if self.rs_mtt.val() {
            self.s_rd.tready.next = self.rs_any.val() & self.mtt_cache.s_rd.tready.val();
        }
        if self.s_rd.tvalid.val() & self.s_rd.tready.val() & self.s_rd.tlast.val() {
            self.rs_rd.d.next = self.rs_rd.q.val() + 1;
        }

        // ---- DMA writes (one beat each): one cache's beat into the register when it is empty
        self.m_wr.tvalid.next = self.wv.q.val();
        self.m_wr.tdata.next = self.w_data.q.val();
        self.m_wr.tkeep.next = self.w_keep.q.val();
        self.m_wr.tlast.next = self.w_tlast.q.val();
        self.m_wr.addr.next = self.w_addr.q.val();
        self.m_wr.len.next = self.w_len.q.val();
        if self.m_wr.tready.val() {
            self.wv.d.next = false;
        }
        self.w_grant.next =
            self.mtt_cache.m_wr.tvalid.val() & (self.w_last.q.val() | !self.mpt_cache.m_wr.tvalid.val());
        self.ws_room.next = (self.ws_wr.q.val() - self.ws_rd.q.val()) != 32;
        self.wr_src.write_addr.next = self.ws_wr.q.val().get_bits::<SRC_LOG>(0);
        self.wr_src.read_addr.next = self.ws_rd.q.val().get_bits::<SRC_LOG>(0);
        self.ws_mtt.next = self.wr_src.read_data.val();
        self.w_load.next = !self.wv.q.val()
            & (self.mpt_cache.m_wr.tvalid.val() | self.mtt_cache.m_wr.tvalid.val())
            & self.ws_room.val();
        self.mpt_cache.m_wr.tready.next = self.w_load.val() & !self.w_grant.val();
        self.mtt_cache.m_wr.tready.next = self.w_load.val() & self.w_grant.val();
        self.wr_src.write_enable.next = self.w_load.val();
        self.wr_src.write_data.next = self.w_grant.val();
        if self.w_load.val() {
            self.ws_wr.d.next = self.ws_wr.q.val() + 1;
            self.wv.d.next = true;
            self.w_last.d.next = self.w_grant.val();
            self.w_data.d.next = self.mpt_cache.m_wr.tdata.val();
            self.w_keep.d.next = self.mpt_cache.m_wr.tkeep.val();
            self.w_tlast.d.next = self.mpt_cache.m_wr.tlast.val();
            self.w_addr.d.next = self.mpt_cache.m_wr.addr.val();
            self.w_len.d.next = self.mpt_cache.m_wr.len.val();
            if self.w_grant.val() {
                self.w_data.d.next = self.mtt_cache.m_wr.tdata.val();
                self.w_keep.d.next = self.mtt_cache.m_wr.tkeep.val();
                self.w_tlast.d.next = self.mtt_cache.m_wr.tlast.val();
                self.w_addr.d.next = self.mtt_cache.m_wr.addr.val();
                self.w_len.d.next = self.mtt_cache.m_wr.len.val();
            }
        }
        // completions, in issue order, to the write's cache
        self.mpt_cache.wr_done.next = self.wr_done.val() & !self.ws_mtt.val();
        self.mtt_cache.wr_done.next = self.wr_done.val() & self.ws_mtt.val();
        self.mpt_cache.wr_done_err.next = self.wr_done_err.val();
        self.mtt_cache.wr_done_err.next = self.wr_done_err.val();
        if self.wr_done.val() {
            self.ws_rd.d.next = self.ws_rd.q.val() + 1;
        }

        if self.reset.val() {
            self.iv.d.next = false;
            self.av.d.next = false;
            self.rv.d.next = false;
            self.r_last.d.next = false;
            self.wv.d.next = false;
            self.w_last.d.next = false;
            self.rs_wr.d.next = 0.into();
            self.rs_rd.d.next = 0.into();
            self.ws_wr.d.next = 0.into();
            self.ws_rd.d.next = 0.into();
        }
    }
}
