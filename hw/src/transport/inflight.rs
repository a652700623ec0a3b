//! `Inflight<Q, E, C, W>`: the table of outstanding send WQEs. 2^Q QPs
//! share a pool of 2^E entries of `W` bits (`C` = E + 1, the width of a
//! count); each QP's entries form a linked list in send order, from its
//! oldest (head) to its newest (tail). The requester appends a WQE when it
//! first sends it; the completer looks at and removes the head as ACKs
//! arrive, walks a list by index for go-back-N, and updates an entry in
//! place (a READ's progress). docs/transport_blocks.md, "inflight".
//!
//! **Commands** (`s_cmd`: `op`, `qpn`, `index`, `data`; valid/ready, one
//! per cycle; `ready` is a register, low while the RAMs are cleared after
//! `reset` and when [`INFLIGHT_CREDITS`] commands wait for their responses)
//! and **responses** (`m_resp`, one per command, in command order, from
//! registers):
//!
//! | `op` | acts | `index` | `next_index`, `is_tail` | `count` | flags |
//! |---|---|---|---|---|---|
//! | PUSH {qpn, data} | appends an entry at the tail | the new entry | 0, 1 | entries after | `full`: no entry was free, nothing changed (`index` 0) |
//! | HEAD {qpn} | - | the head entry | its link | entries | `empty`: no entry (`index` 0, `next_index` 0, `is_tail` 1) |
//! | POP {qpn} | removes the head, frees it | the removed entry | its link (`next_index`: the new head) | entries after | `empty` as HEAD |
//! | READ {index} | - | `index` | its link | 0 | - |
//! | WRITE {index, data} | replaces its payload | `index` | its link | 0 | - |
//!
//! `data` is always the payload of entry `index` as it was before the
//! command (for a WRITE the payload it replaced; for a PUSH the stale
//! payload of the entry it took, of no meaning). `free_count` (a register)
//! counts the free entries, exactly: a PUSH is refused only when it is 0.
//!
//! **Structure.** Head, tail and count per QP live in three block RAMs
//! indexed by QPN (one word per QP that the transport may later keep in its
//! QP context instead: the read-modify-write below is all that touches it).
//! Per entry, the payload (`W` bits) and the link (`next`, `has_next`) are
//! block RAMs indexed by entry. Free entries sit in a [`FreeList`] (a
//! [`BramFifo`] of indices filled after reset, with two spare registers in
//! front so an entry freed by a POP is reusable by the very next PUSH).
//! An entry's link is cleared when it is freed, so a new entry is always a
//! tail and a PUSH writes one link: the old tail's.
//!
//! **Pipeline** (one command per cycle, never stalls): A holds the command
//! and presents its QPN to the list RAMs; B has the list word, forwarded
//! from the command in C (its new word, computed this cycle) or the one
//! before it (written last cycle), so back-to-back commands on one QP act in
//! order; B presents the head (HEAD, POP) or the index (READ, WRITE) to the
//! link RAM. C has the link (forwarded from last cycle's link write when
//! that wrote the same entry), computes the new list word and writes it,
//! writes the link (a PUSH the old tail's, a POP the freed entry's), takes
//! or gives the free entry, and reads and writes the payload (read before
//! write, both at C: no hazard). D queues the response with the payload
//! read. The responses wait in a 16-deep LUTRAM queue; `held` counts the
//! commands taken and not yet answered, so the queue never overflows and
//! nothing stalls inside. The latency from a command taken to its response
//! offered is [`INFLIGHT_LATENCY`] cycles.

use crate::consts::{INFLIGHT_HEAD, INFLIGHT_POP, INFLIGHT_PUSH, INFLIGHT_WRITE};
use crate::prim::{BlockRam, BramFifo, LutRam, Reg, BRAM_FIFO_LATENCY};
use hdl_emit::TypeTag;
use rnic_contract::layouts::{qpc, send_wqe};
use rust_hdl::prelude::*;

/// QPN bits of the catalog instance (16K QPs, as `send_sched`).
pub const INFLIGHT_QPN_BITS: usize = 14;
/// log2 of the entries of the catalog instance (4096 outstanding WQEs).
pub const INFLIGHT_LOG_ENTRIES: usize = 12;

// ---- the entry of the catalog instance: what the completer keeps per
// outstanding send WQE (proto/src/rc/completer.rs), from bit 0
/// The WQE's index in the send ring (go-back-N re-fetches it from there).
pub const ENTRY_WQE_INDEX_BITS: usize = qpc::SQ_CONS.width as usize;
/// First and last PSN of the WQE (a READ takes one per response packet).
pub const ENTRY_PSN_BITS: usize = qpc::SQ_PSN.width as usize;
/// The send opcode (`SendOpcode`): completion opcode, READ/atomic or not.
pub const ENTRY_KIND_BITS: usize = 4;
/// Write a CQE on success.
pub const ENTRY_SIGNALED_BITS: usize = 1;
/// The work request id, for the CQE.
pub const ENTRY_WR_ID_BITS: usize = send_wqe::WR_ID.width as usize;
/// Message length (READ response length checks, the READ CQE's byte count).
pub const ENTRY_LEN_BITS: usize = 32;
/// READ progress: the local SGE the next response lands in, and the offset
/// in it (updated in place by WRITE as responses arrive).
pub const ENTRY_READ_SGE_BITS: usize = send_wqe::MAX_SGE.trailing_zeros() as usize;
pub const ENTRY_READ_OFFSET_BITS: usize = 32;
pub const ENTRY_WQE_INDEX: usize = 0;
pub const ENTRY_FIRST_PSN: usize = ENTRY_WQE_INDEX + ENTRY_WQE_INDEX_BITS;
pub const ENTRY_LAST_PSN: usize = ENTRY_FIRST_PSN + ENTRY_PSN_BITS;
pub const ENTRY_KIND: usize = ENTRY_LAST_PSN + ENTRY_PSN_BITS;
pub const ENTRY_SIGNALED: usize = ENTRY_KIND + ENTRY_KIND_BITS;
pub const ENTRY_WR_ID: usize = ENTRY_SIGNALED + ENTRY_SIGNALED_BITS;
pub const ENTRY_LEN: usize = ENTRY_WR_ID + ENTRY_WR_ID_BITS;
pub const ENTRY_READ_SGE: usize = ENTRY_LEN + ENTRY_LEN_BITS;
pub const ENTRY_READ_OFFSET: usize = ENTRY_READ_SGE + ENTRY_READ_SGE_BITS;
/// Payload bits of the catalog instance.
pub const INFLIGHT_ENTRY_BITS: usize = ENTRY_READ_OFFSET + ENTRY_READ_OFFSET_BITS;
const _: () = assert!(send_wqe::MAX_SGE.is_power_of_two() && INFLIGHT_ENTRY_BITS == 199);

/// The catalog instance: 16K QPs, 4096 entries of [`INFLIGHT_ENTRY_BITS`].
pub type InflightTable =
    Inflight<INFLIGHT_QPN_BITS, INFLIGHT_LOG_ENTRIES, { INFLIGHT_LOG_ENTRIES + 1 }, INFLIGHT_ENTRY_BITS>;

/// Commands taken and not yet answered, at most: the response queue's
/// LUTRAM (2^4, the literal 16 and the 4-bit pointers of [`RespQueue`]).
pub const INFLIGHT_CREDITS: u64 = 16;
/// Cycles from a command taken to its response offered: A, B, C, D, the
/// queue's write and its output register.
pub const INFLIGHT_LATENCY: u64 = 6;
/// Cycles from a command taken to `free_count` counting it: A, B, C (the
/// entry taken or given), the count register.
pub const INFLIGHT_FREE_LAG: u64 = 4;
/// Free entries kept in registers in front of the free FIFO: an entry that
/// goes into the FIFO appears at its head `BRAM_FIFO_LATENCY` cycles later,
/// and the spares cover the PUSHes meanwhile (one per cycle).
pub const FREE_SPARES: usize = 2;
const _: () = assert!(FREE_SPARES + 1 >= BRAM_FIFO_LATENCY as usize && FREE_SPARES == 2);

/// A command to the inflight table.
#[derive(LogicInterface, Default)]
#[join = "InflightCmdOut"]
pub struct InflightCmdIn<const Q: usize, const E: usize, const W: usize> {
    pub op: Signal<In, Bits<3>>,
    pub qpn: Signal<In, Bits<Q>>,
    pub index: Signal<In, Bits<E>>,
    pub data: Signal<In, Bits<W>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "InflightCmdIn"]
pub struct InflightCmdOut<const Q: usize, const E: usize, const W: usize> {
    pub op: Signal<Out, Bits<3>>,
    pub qpn: Signal<Out, Bits<Q>>,
    pub index: Signal<Out, Bits<E>>,
    pub data: Signal<Out, Bits<W>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// A response of the inflight table (see the table in the module doc).
#[derive(LogicInterface, Default)]
#[join = "InflightRespIn"]
pub struct InflightRespOut<const E: usize, const C: usize, const W: usize> {
    pub index: Signal<Out, Bits<E>>,
    pub data: Signal<Out, Bits<W>>,
    pub next_index: Signal<Out, Bits<E>>,
    pub is_tail: Signal<Out, Bit>,
    pub empty: Signal<Out, Bit>,
    pub full: Signal<Out, Bit>,
    pub count: Signal<Out, Bits<C>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "InflightRespOut"]
pub struct InflightRespIn<const E: usize, const C: usize, const W: usize> {
    pub index: Signal<In, Bits<E>>,
    pub data: Signal<In, Bits<W>>,
    pub next_index: Signal<In, Bits<E>>,
    pub is_tail: Signal<In, Bit>,
    pub empty: Signal<In, Bit>,
    pub full: Signal<In, Bit>,
    pub count: Signal<In, Bits<C>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// The free entries: a [`BramFifo`] of 2^E indices, filled with every index
/// after `reset` (2^E cycles, `init` high), and [`FREE_SPARES`] registers
/// in front of it (a stack). A freed entry goes to a spare if one is empty,
/// else into the FIFO; a taken entry comes from the spares first. An entry
/// enters the FIFO only when the spares are full, and they last the
/// FIFO's latency, so `avail` is low only when no entry is free at all.
/// `take` (only while `avail`) and `give` never come in one cycle.
#[derive(LogicBlock, Default)]
pub struct FreeList<const E: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// An entry is free: `index` names it (from registers).
    pub avail: Signal<Out, Bit>,
    pub index: Signal<Out, Bits<E>>,
    /// The entry `index` is taken this cycle.
    pub take: Signal<In, Bit>,
    /// Entry `give_index` is free again.
    pub give: Signal<In, Bit>,
    pub give_index: Signal<In, Bits<E>>,
    /// Entries free (a register).
    pub free_count: Signal<Out, Bits<C>>,
    /// Filling the FIFO after reset.
    pub init: Signal<Out, Bit>,
    fifo: BramFifo<E, E, C>,
    fill: Reg<Bit>,
    fill_a: Reg<Bits<E>>,
    spares: Reg<Bits<2>>,
    s0: Reg<Bits<E>>,
    s1: Reg<Bits<E>>,
    total: Reg<Bits<C>>,
    from_spare: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const E: usize, const C: usize> Logic for FreeList<E, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fill, fill_a, spares, s0, s1, total);
        clock!(self, clock, fifo);
        self.fifo.reset.next = self.reset.val();
        self.from_spare.next = self.spares.q.val().any();
        self.avail.next = self.from_spare.val() | self.fifo.m_valid.val();
        self.index.next = self.fifo.m_data.val();
        if self.from_spare.val() {
            self.index.next = self.s0.q.val();
        }
        self.fifo.m_ready.next = self.take.val() & !self.from_spare.val();
        if self.take.val() & self.from_spare.val() {
            self.s0.d.next = self.s1.q.val();
            self.spares.d.next = self.spares.q.val() - 1;
        }
        // a freed entry: to a spare (bit 1 of `spares`: both full), else the FIFO
        self.fifo.push.next = self.give.val() & self.spares.q.val().get_bit(1);
        self.fifo.push_data.next = self.give_index.val();
        if self.give.val() & !self.spares.q.val().get_bit(1) {
            self.s1.d.next = self.s0.q.val();
            self.s0.d.next = self.give_index.val();
            self.spares.d.next = self.spares.q.val() + 1;
        }
        self.total.d.next = self.total.q.val();
        if self.give.val() | self.fill.q.val() {
            self.total.d.next = self.total.q.val() + 1;
        }
        if self.take.val() {
            self.total.d.next = self.total.q.val() - 1;
        }
        // filling after reset: every index once
        if self.fill.q.val() {
            self.fifo.push.next = true;
            self.fifo.push_data.next = self.fill_a.q.val();
            self.fill_a.d.next = self.fill_a.q.val() + 1;
            if self.fill_a.q.val().all() {
                self.fill.d.next = false;
            }
        }
        self.free_count.next = self.total.q.val();
        self.init.next = self.fill.q.val();
        if self.reset.val() {
            self.fill.d.next = true;
            self.fill_a.d.next = 0.into();
            self.spares.d.next = 0.into();
            self.total.d.next = 0.into();
        }
    }
}

/// The response queue: 16 responses in LUTRAM (one RAM per field) and an
/// output register. `push` has no ready: the owner keeps at most
/// [`INFLIGHT_CREDITS`] responses in it.
#[derive(LogicBlock, Default)]
pub struct RespQueue<const E: usize, const C: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub index: Signal<In, Bits<E>>,
    pub data: Signal<In, Bits<W>>,
    pub next_index: Signal<In, Bits<E>>,
    pub is_tail: Signal<In, Bit>,
    pub empty: Signal<In, Bit>,
    pub full: Signal<In, Bit>,
    pub count: Signal<In, Bits<C>>,
    pub m_resp: InflightRespOut<E, C, W>,
    ram_index: LutRam<Bits<E>, 4>,
    ram_data: LutRam<Bits<W>, 4>,
    ram_next: LutRam<Bits<E>, 4>,
    ram_tail: LutRam<Bit, 4>,
    ram_empty: LutRam<Bit, 4>,
    ram_full: LutRam<Bit, 4>,
    ram_count: LutRam<Bits<C>, 4>,
    wp: Reg<Bits<4>>,
    rp: Reg<Bits<4>>,
    in_ram: Reg<Bits<5>>,
    o_v: Reg<Bit>,
    o_index: Reg<Bits<E>>,
    o_data: Reg<Bits<W>>,
    o_next: Reg<Bits<E>>,
    o_tail: Reg<Bit>,
    o_empty: Reg<Bit>,
    o_full: Reg<Bit>,
    o_count: Reg<Bits<C>>,
    load: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const E: usize, const C: usize, const W: usize> Logic for RespQueue<E, C, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, in_ram, o_v, o_index, o_data, o_next, o_tail, o_empty, o_full, o_count);
        clock!(self, clock, ram_index, ram_data, ram_next, ram_tail, ram_empty, ram_full, ram_count);
        self.ram_index.write_data.next = self.index.val();
        self.ram_data.write_data.next = self.data.val();
        self.ram_next.write_data.next = self.next_index.val();
        self.ram_tail.write_data.next = self.is_tail.val();
        self.ram_empty.write_data.next = self.empty.val();
        self.ram_full.write_data.next = self.full.val();
        self.ram_count.write_data.next = self.count.val();
        self.ram_index.write_enable.next = self.push.val();
        self.ram_data.write_enable.next = self.push.val();
        self.ram_next.write_enable.next = self.push.val();
        self.ram_tail.write_enable.next = self.push.val();
        self.ram_empty.write_enable.next = self.push.val();
        self.ram_full.write_enable.next = self.push.val();
        self.ram_count.write_enable.next = self.push.val();
        self.ram_index.write_addr.next = self.wp.q.val();
        self.ram_data.write_addr.next = self.wp.q.val();
        self.ram_next.write_addr.next = self.wp.q.val();
        self.ram_tail.write_addr.next = self.wp.q.val();
        self.ram_empty.write_addr.next = self.wp.q.val();
        self.ram_full.write_addr.next = self.wp.q.val();
        self.ram_count.write_addr.next = self.wp.q.val();
        self.ram_index.read_addr.next = self.rp.q.val();
        self.ram_data.read_addr.next = self.rp.q.val();
        self.ram_next.read_addr.next = self.rp.q.val();
        self.ram_tail.read_addr.next = self.rp.q.val();
        self.ram_empty.read_addr.next = self.rp.q.val();
        self.ram_full.read_addr.next = self.rp.q.val();
        self.ram_count.read_addr.next = self.rp.q.val();
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }
        self.load.next = self.in_ram.q.val().any() & (!self.o_v.q.val() | self.m_resp.ready.val());
        self.in_ram.d.next = self.in_ram.q.val();
        if self.push.val() & !self.load.val() {
            self.in_ram.d.next = self.in_ram.q.val() + 1;
        }
        if !self.push.val() & self.load.val() {
            self.in_ram.d.next = self.in_ram.q.val() - 1;
        }
        if self.load.val() {
            self.rp.d.next = self.rp.q.val() + 1;
            self.o_v.d.next = true;
            self.o_index.d.next = self.ram_index.read_data.val();
            self.o_data.d.next = self.ram_data.read_data.val();
            self.o_next.d.next = self.ram_next.read_data.val();
            self.o_tail.d.next = self.ram_tail.read_data.val();
            self.o_empty.d.next = self.ram_empty.read_data.val();
            self.o_full.d.next = self.ram_full.read_data.val();
            self.o_count.d.next = self.ram_count.read_data.val();
        } else if self.m_resp.ready.val() {
            self.o_v.d.next = false;
        }
        self.m_resp.valid.next = self.o_v.q.val();
        self.m_resp.index.next = self.o_index.q.val();
        self.m_resp.data.next = self.o_data.q.val();
        self.m_resp.next_index.next = self.o_next.q.val();
        self.m_resp.is_tail.next = self.o_tail.q.val();
        self.m_resp.empty.next = self.o_empty.q.val();
        self.m_resp.full.next = self.o_full.q.val();
        self.m_resp.count.next = self.o_count.q.val();
        if self.reset.val() {
            self.wp.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.in_ram.d.next = 0.into();
            self.o_v.d.next = false;
        }
    }
}

#[derive(LogicBlock, Default)]
pub struct Inflight<const Q: usize, const E: usize, const C: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_cmd: InflightCmdIn<Q, E, W>,
    pub m_resp: InflightRespOut<E, C, W>,
    /// Entries free (a register; for the requester's flow control).
    pub free_count: Signal<Out, Bits<C>>,
    /// The RAMs are being cleared after reset (2^Q cycles).
    pub init: Signal<Out, Bit>,

    // ---- per QP, indexed by QPN: the list word
    list_head: BlockRam<Bits<E>, Q>,
    list_tail: BlockRam<Bits<E>, Q>,
    list_count: BlockRam<Bits<C>, Q>,
    // ---- per entry: link and payload
    link_next: BlockRam<Bits<E>, E>,
    link_has: BlockRam<Bit, E>,
    payload: BlockRam<Bits<W>, E>,
    free: FreeList<E, C>,
    resp: RespQueue<E, C, W>,
    // ---- clearing after reset
    clr: Reg<Bit>,
    clr_a: Reg<Bits<Q>>,
    // ---- commands taken and not yet answered; the input's ready
    held: Reg<Bits<5>>,
    rdy: Reg<Bit>,
    // ---- stage A: the command (op one-hot: any other code reads)
    a_v: Reg<Bit>,
    a_push: Reg<Bit>,
    a_peek: Reg<Bit>,
    a_pop: Reg<Bit>,
    a_write: Reg<Bit>,
    a_qpn: Reg<Bits<Q>>,
    a_idx: Reg<Bits<E>>,
    a_data: Reg<Bits<W>>,
    // ---- stage B: the list word arrives; forward from C (hit_c) or last write (hit_w)
    b_v: Reg<Bit>,
    b_push: Reg<Bit>,
    b_peek: Reg<Bit>,
    b_pop: Reg<Bit>,
    b_write: Reg<Bit>,
    b_qpn: Reg<Bits<Q>>,
    b_idx: Reg<Bits<E>>,
    b_data: Reg<Bits<W>>,
    b_hit_c: Reg<Bit>,
    b_hit_w: Reg<Bit>,
    // ---- stage C: the link arrives; act
    c_v: Reg<Bit>,
    c_push: Reg<Bit>,
    c_peek: Reg<Bit>,
    c_pop: Reg<Bit>,
    c_write: Reg<Bit>,
    c_qpn: Reg<Bits<Q>>,
    c_idx: Reg<Bits<E>>,
    c_data: Reg<Bits<W>>,
    c_head: Reg<Bits<E>>,
    c_tail: Reg<Bits<E>>,
    c_count: Reg<Bits<C>>,
    c_empty: Reg<Bit>,
    c_one: Reg<Bit>,
    c_link_fwd: Reg<Bit>,
    // ---- the last list word and link written (forwarding)
    w_head: Reg<Bits<E>>,
    w_tail: Reg<Bits<E>>,
    w_count: Reg<Bits<C>>,
    w_empty: Reg<Bit>,
    w_one: Reg<Bit>,
    lw_next: Reg<Bits<E>>,
    lw_has: Reg<Bit>,
    // ---- stage D: the response but its payload (the payload RAM's output)
    d_v: Reg<Bit>,
    d_index: Reg<Bits<E>>,
    d_next: Reg<Bits<E>>,
    d_tail: Reg<Bit>,
    d_empty: Reg<Bit>,
    d_full: Reg<Bit>,
    d_count: Reg<Bits<C>>,
    // ---- locals
    take: Signal<Local, Bit>,
    answered: Signal<Local, Bit>,
    held_n: Signal<Local, Bits<5>>,
    cur_head: Signal<Local, Bits<E>>,
    cur_tail: Signal<Local, Bits<E>>,
    cur_count: Signal<Local, Bits<C>>,
    b_list_op: Signal<Local, Bit>,
    b_by_index: Signal<Local, Bit>,
    link_addr: Signal<Local, Bits<E>>,
    c_by_index: Signal<Local, Bit>,
    nx: Signal<Local, Bits<E>>,
    has: Signal<Local, Bit>,
    push_ok: Signal<Local, Bit>,
    pop_ok: Signal<Local, Bit>,
    new_head: Signal<Local, Bits<E>>,
    new_tail: Signal<Local, Bits<E>>,
    new_count: Signal<Local, Bits<C>>,
    new_empty: Signal<Local, Bit>,
    new_one: Signal<Local, Bit>,
    cur_empty: Signal<Local, Bit>,
    cur_one: Signal<Local, Bit>,
    list_we: Signal<Local, Bit>,
    link_we: Signal<Local, Bit>,
    link_waddr: Signal<Local, Bits<E>>,
    link_wnext: Signal<Local, Bits<E>>,
    entry: Signal<Local, Bits<E>>,
    kind: TypeTag<Self>,
}

impl<const Q: usize, const E: usize, const C: usize, const W: usize> Logic for Inflight<Q, E, C, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, clr, clr_a, held, rdy, a_v, a_push, a_peek, a_pop, a_write, a_qpn, a_idx, a_data, b_v, b_push,
            b_peek, b_pop, b_write, b_qpn, b_idx, b_data, b_hit_c, b_hit_w, c_v, c_push, c_peek, c_pop, c_write, c_qpn,
            c_idx, c_data, c_head, c_tail, c_count, c_empty, c_one, c_link_fwd, w_head, w_tail, w_count, w_empty,
            w_one, lw_next, lw_has, d_v, d_index, d_next, d_tail, d_empty, d_full, d_count
        );
        clock!(self, clock, list_head, list_tail, list_count, link_next, link_has, payload, free, resp);
        self.free.reset.next = self.reset.val();
        self.resp.reset.next = self.reset.val();

        // ================= C: the link; the new list word; writes =================
        // READ or WRITE (any code but PUSH, HEAD, POP)
        self.c_by_index.next = self.c_v.q.val() & !self.c_push.q.val() & !self.c_peek.q.val() & !self.c_pop.q.val();
        self.nx.next = self.link_next.read_data.val();
        self.has.next = self.link_has.read_data.val();
        if self.c_link_fwd.q.val() {
            self.nx.next = self.lw_next.q.val();
            self.has.next = self.lw_has.q.val();
        }
        self.push_ok.next = self.c_push.q.val() & self.free.avail.val();
        self.pop_ok.next = self.c_pop.q.val() & !self.c_empty.q.val();
        self.new_head.next = self.c_head.q.val();
        self.new_tail.next = self.c_tail.q.val();
        self.new_count.next = self.c_count.q.val();
        if self.push_ok.val() {
            self.new_tail.next = self.free.index.val();
            self.new_count.next = self.c_count.q.val() + 1;
            if self.c_empty.q.val() {
                self.new_head.next = self.free.index.val();
            }
        }
        if self.pop_ok.val() {
            self.new_head.next = self.nx.val();
            self.new_count.next = self.c_count.q.val() - 1;
        }
        // count 0 and 1 after the command, from the count before (not the sum: timing)
        self.new_empty.next = self.c_empty.q.val();
        self.new_one.next = self.c_one.q.val();
        if self.push_ok.val() {
            self.new_empty.next = false;
            self.new_one.next = self.c_empty.q.val();
        }
        if self.pop_ok.val() {
            self.new_empty.next = self.c_one.q.val();
            self.new_one.next = self.c_count.q.val() == 2;
        }
        // the list word: written back by every PUSH and POP (unchanged if refused)
        self.list_we.next = self.c_push.q.val() | self.c_pop.q.val();
        self.list_head.write_addr.next = self.c_qpn.q.val();
        self.list_tail.write_addr.next = self.c_qpn.q.val();
        self.list_count.write_addr.next = self.c_qpn.q.val();
        self.list_head.write_data.next = self.new_head.val();
        self.list_tail.write_data.next = self.new_tail.val();
        self.list_count.write_data.next = self.new_count.val();
        self.list_head.write_enable.next = self.list_we.val();
        self.list_tail.write_enable.next = self.list_we.val();
        self.list_count.write_enable.next = self.list_we.val();
        self.w_head.d.next = self.new_head.val();
        self.w_tail.d.next = self.new_tail.val();
        self.w_count.d.next = self.new_count.val();
        self.w_empty.d.next = self.new_empty.val();
        self.w_one.d.next = self.new_one.val();
        // the link: a PUSH links the old tail to the new entry, a POP clears the freed entry's
        self.link_we.next = (self.push_ok.val() & !self.c_empty.q.val()) | self.pop_ok.val();
        self.link_waddr.next = self.c_head.q.val();
        self.link_wnext.next = 0.into();
        if self.c_push.q.val() {
            self.link_waddr.next = self.c_tail.q.val();
            self.link_wnext.next = self.free.index.val();
        }
        self.link_next.write_addr.next = self.link_waddr.val();
        self.link_has.write_addr.next = self.link_waddr.val();
        self.link_next.write_data.next = self.link_wnext.val();
        self.link_has.write_data.next = self.c_push.q.val();
        self.link_next.write_enable.next = self.link_we.val();
        self.link_has.write_enable.next = self.link_we.val();
        self.lw_next.d.next = self.link_wnext.val();
        self.lw_has.d.next = self.c_push.q.val();
        // the free list
        self.free.take.next = self.push_ok.val();
        self.free.give.next = self.pop_ok.val();
        self.free.give_index.next = self.c_head.q.val();
        // the payload: read (the response's) and written at the same entry
        self.entry.next = self.c_idx.q.val();
        if self.c_peek.q.val() | self.c_pop.q.val() {
            self.entry.next = self.c_head.q.val();
        }
        if self.c_push.q.val() {
            self.entry.next = 0.into();
            if self.free.avail.val() {
                self.entry.next = self.free.index.val();
            }
        }
        self.payload.read_addr.next = self.entry.val();
        self.payload.write_addr.next = self.entry.val();
        self.payload.write_data.next = self.c_data.q.val();
        self.payload.write_enable.next = self.push_ok.val() | self.c_write.q.val();
        // the response, less its payload
        self.d_v.d.next = self.c_v.q.val();
        self.d_index.d.next = self.entry.val();
        self.d_next.d.next = self.nx.val();
        self.d_tail.d.next = !self.has.val();
        if self.c_push.q.val() | ((self.c_peek.q.val() | self.c_pop.q.val()) & self.c_empty.q.val()) {
            self.d_next.d.next = 0.into();
            self.d_tail.d.next = true;
        }
        self.d_empty.d.next = (self.c_peek.q.val() | self.c_pop.q.val()) & self.c_empty.q.val();
        self.d_full.d.next = self.c_push.q.val() & !self.free.avail.val();
        self.d_count.d.next = self.new_count.val();
        if self.c_by_index.val() {
            self.d_count.d.next = 0.into();
        }

        // ================= D: into the response queue =================
        self.resp.push.next = self.d_v.q.val();
        self.resp.index.next = self.d_index.q.val();
        self.resp.data.next = self.payload.read_data.val();
        self.resp.next_index.next = self.d_next.q.val();
        self.resp.is_tail.next = self.d_tail.q.val();
        self.resp.empty.next = self.d_empty.q.val();
        self.resp.full.next = self.d_full.q.val();
        self.resp.count.next = self.d_count.q.val();
        self.resp.m_resp.ready.next = self.m_resp.ready.val();
        self.m_resp.valid.next = self.resp.m_resp.valid.val();
        self.m_resp.index.next = self.resp.m_resp.index.val();
        self.m_resp.data.next = self.resp.m_resp.data.val();
        self.m_resp.next_index.next = self.resp.m_resp.next_index.val();
        self.m_resp.is_tail.next = self.resp.m_resp.is_tail.val();
        self.m_resp.empty.next = self.resp.m_resp.empty.val();
        self.m_resp.full.next = self.resp.m_resp.full.val();
        self.m_resp.count.next = self.resp.m_resp.count.val();

        // ================= B: the current list word; the link read =================
        self.cur_head.next = self.list_head.read_data.val();
        self.cur_tail.next = self.list_tail.read_data.val();
        self.cur_count.next = self.list_count.read_data.val();
        self.cur_empty.next = !self.list_count.read_data.val().any();
        self.cur_one.next = self.list_count.read_data.val() == 1;
        if self.b_hit_w.q.val() {
            self.cur_head.next = self.w_head.q.val();
            self.cur_tail.next = self.w_tail.q.val();
            self.cur_count.next = self.w_count.q.val();
            self.cur_empty.next = self.w_empty.q.val();
            self.cur_one.next = self.w_one.q.val();
        }
        if self.b_hit_c.q.val() {
            self.cur_head.next = self.new_head.val();
            self.cur_tail.next = self.new_tail.val();
            self.cur_count.next = self.new_count.val();
            self.cur_empty.next = self.new_empty.val();
            self.cur_one.next = self.new_one.val();
        }
        self.b_list_op.next = self.b_peek.q.val() | self.b_pop.q.val();
        self.b_by_index.next = !self.b_push.q.val() & !self.b_list_op.val();
        self.link_addr.next = self.b_idx.q.val();
        if self.b_list_op.val() {
            self.link_addr.next = self.cur_head.val();
        }
        self.link_next.read_addr.next = self.link_addr.val();
        self.link_has.read_addr.next = self.link_addr.val();
        // the link C writes this cycle is the one this command reads: a PUSH
        // onto a one-entry list before a HEAD/POP of it, or any link write at
        // the index a READ/WRITE names
        self.c_link_fwd.d.next =
            (self.b_list_op.val() & self.b_hit_c.q.val() & self.push_ok.val() & self.c_one.q.val())
                | (self.b_by_index.val() & self.link_we.val() & (self.b_idx.q.val() == self.link_waddr.val()));
        self.c_v.d.next = self.b_v.q.val();
        self.c_push.d.next = self.b_push.q.val();
        self.c_peek.d.next = self.b_peek.q.val();
        self.c_pop.d.next = self.b_pop.q.val();
        self.c_write.d.next = self.b_write.q.val();
        self.c_qpn.d.next = self.b_qpn.q.val();
        self.c_idx.d.next = self.b_idx.q.val();
        self.c_data.d.next = self.b_data.q.val();
        self.c_head.d.next = self.cur_head.val();
        self.c_tail.d.next = self.cur_tail.val();
        self.c_count.d.next = self.cur_count.val();
        self.c_empty.d.next = self.cur_empty.val();
        self.c_one.d.next = self.cur_one.val();

        // ================= A: the list RAMs read; forwarding decided =================
        self.list_head.read_addr.next = self.a_qpn.q.val();
        self.list_tail.read_addr.next = self.a_qpn.q.val();
        self.list_count.read_addr.next = self.a_qpn.q.val();
        self.b_hit_c.d.next = (self.b_push.q.val() | self.b_pop.q.val()) & (self.a_qpn.q.val() == self.b_qpn.q.val());
        self.b_hit_w.d.next = (self.c_push.q.val() | self.c_pop.q.val()) & (self.a_qpn.q.val() == self.c_qpn.q.val());
        self.b_v.d.next = self.a_v.q.val();
        self.b_push.d.next = self.a_push.q.val();
        self.b_peek.d.next = self.a_peek.q.val();
        self.b_pop.d.next = self.a_pop.q.val();
        self.b_write.d.next = self.a_write.q.val();
        self.b_qpn.d.next = self.a_qpn.q.val();
        self.b_idx.d.next = self.a_idx.q.val();
        self.b_data.d.next = self.a_data.q.val();

        // ================= intake and credits =================
        self.take.next = self.s_cmd.valid.val() & self.rdy.q.val();
        self.s_cmd.ready.next = self.rdy.q.val();
        self.a_v.d.next = self.take.val();
        self.a_push.d.next = self.take.val() & (self.s_cmd.op.val() == INFLIGHT_PUSH);
        self.a_peek.d.next = self.take.val() & (self.s_cmd.op.val() == INFLIGHT_HEAD);
        self.a_pop.d.next = self.take.val() & (self.s_cmd.op.val() == INFLIGHT_POP);
        self.a_write.d.next = self.take.val() & (self.s_cmd.op.val() == INFLIGHT_WRITE);
        self.a_qpn.d.next = self.s_cmd.qpn.val();
        self.a_idx.d.next = self.s_cmd.index.val();
        self.a_data.d.next = self.s_cmd.data.val();
        self.answered.next = self.resp.m_resp.valid.val() & self.m_resp.ready.val();
        self.held_n.next = self.held.q.val();
        if self.take.val() & !self.answered.val() {
            self.held_n.next = self.held.q.val() + 1;
        }
        if !self.take.val() & self.answered.val() {
            self.held_n.next = self.held.q.val() - 1;
        }
        self.held.d.next = self.held_n.val();
        self.rdy.d.next = (self.held_n.val() < 16) & !self.clr.q.val() & !self.free.init.val();

        // ================= clearing after reset: every list word and link =================
        if self.clr.q.val() {
            self.list_head.write_addr.next = self.clr_a.q.val();
            self.list_tail.write_addr.next = self.clr_a.q.val();
            self.list_count.write_addr.next = self.clr_a.q.val();
            self.list_head.write_data.next = 0.into();
            self.list_tail.write_data.next = 0.into();
            self.list_count.write_data.next = 0.into();
            self.list_head.write_enable.next = true;
            self.list_tail.write_enable.next = true;
            self.list_count.write_enable.next = true;
            self.link_next.write_addr.next = bit_cast::<E, Q>(self.clr_a.q.val());
            self.link_has.write_addr.next = bit_cast::<E, Q>(self.clr_a.q.val());
            self.link_next.write_data.next = 0.into();
            self.link_has.write_data.next = false;
            self.link_next.write_enable.next = true;
            self.link_has.write_enable.next = true;
            self.clr_a.d.next = self.clr_a.q.val() + 1;
            if self.clr_a.q.val().all() {
                self.clr.d.next = false;
            }
        }
        self.init.next = self.clr.q.val() | self.free.init.val();
        self.free_count.next = self.free.free_count.val();

        if self.reset.val() {
            self.clr.d.next = true;
            self.clr_a.d.next = 0.into();
            self.held.d.next = 0.into();
            self.rdy.d.next = false;
            self.a_v.d.next = false;
            self.a_push.d.next = false;
            self.a_peek.d.next = false;
            self.a_pop.d.next = false;
            self.a_write.d.next = false;
            self.b_v.d.next = false;
            self.b_push.d.next = false;
            self.b_peek.d.next = false;
            self.b_pop.d.next = false;
            self.b_write.d.next = false;
            self.c_v.d.next = false;
            self.c_push.d.next = false;
            self.c_peek.d.next = false;
            self.c_pop.d.next = false;
            self.c_write.d.next = false;
            self.d_v.d.next = false;
        }
    }
}
