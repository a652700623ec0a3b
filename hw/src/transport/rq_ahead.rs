//! `RqAhead`: the RQ entries `RecvWalk` asks for, read ahead (child of
//! `RecvWalk`). A stream of SENDs consumes its RECVs in ring order; reading
//! each one when its SEND arrives costs a PCIe round trip (~250 cycles) per
//! message, longer than a 16 KiB message's four packets take on the wire,
//! so the receive path fell behind the MAC. This block keeps a window of
//! one QP's posted entries, read before they are asked for.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `req` + `req_qpn`, `req_index`, `req_base`, `req_log`, `req_prod` | in | a pulse: RQ entry `req_index` of QP `req_qpn`, whose ring is 2^`req_log` entries at `req_base`; `req_prod`: the QP's `RQ_PROD` as the asking packet saw it (entries before it are posted). One request at a time: the next comes after `ent`. |
//! | `inval` | in | a pulse: forget the window (a QP's context was loaded or invalidated: its rings may have been reset) |
//! | `ent` + `ent_data`, `ent_err` | out | a pulse from a register: the entry asked for, its 64 bytes and the DMA error flag |
//! | `m_rd` / `s_rd` | out / in | DMA read client: one 64-byte entry per command at `base` + (`index` mod 2^`log`) x 64; `s_rd.tready` is constant 1 (every command in flight has its place) |
//!
//! **The window**: a QP, its ring, `head` (the next entry to hand out),
//! `next` (the next to read) and [`RQ_AHEAD_SLOTS`] places in LUTRAM (entry
//! `i` at place `i` mod `RQ_AHEAD_SLOTS`); `cnt` entries read or in flight
//! past `head`, `have` of them arrived. A request for `head` of the
//! window's QP and ring is a hit: the entry is handed out when it has
//! arrived. Any other request flushes the window and starts a new one at
//! the entry asked for, read even if the snapshot says otherwise (the asker
//! saw it posted). Reads go on while `cnt` < `depth` and `next` is posted
//! (`next` != the newest `RQ_PROD` seen): an entry is read only after its
//! post, so it stays valid until it is consumed, which is through this block.
//!
//! **Depth** starts at [`RQ_AHEAD_START`] (the entry and one more) and grows
//! by one per hit up to `RQ_AHEAD_SLOTS`: a QP that takes one message reads
//! one entry in vain, a stream reads far enough ahead to hide the round
//! trip (~4 entries for 4 KiB SENDs at line rate).
//!
//! **A flush** does not wait for the old window's reads: they still arrive
//! (the engine answers in command order) and the first `junk` beats (the
//! commands in flight at the flush) are dropped. `inval` only switches the
//! window off; the next request flushes.
//!
//! **Hints** (session 42): one window serves a stream of one QP, but SENDs
//! spread over many QPs flushed it at every packet, and each paid the
//! round trip with the responder held (a SEND every ~190 cycles over 16
//! QPs, against ~9 for WRITEs). So the responder also gives this block a
//! hint per record that will start a RECV, as the record enters
//! `XlateAhead`'s queue (`s_hint`: its QP, RQ index and ring), and the
//! entry is read then, into one of [`RQ_HINTS`] slots (LUTRAM, tagged with
//! QPN and index, taken in turn: the oldest is replaced; one whose read is
//! in flight, or that the request waits for, is not). Hints queue in a
//! LUTRAM FIFO (16; one arriving when it is full is dropped: a hint is
//! only a prefetch) and pass through a register; a hint for the window's
//! QP is dropped there (the window reads that QP ahead). A request the
//! window misses and a slot holds takes the slot's entry once it arrived;
//! an entry handed out (by a slot or the window) frees every slot holding
//! it, so no stale tag outlives an index wrap; no hint takes a slot in a
//! request's cycle (the match reads the tags as they are); the window stays as it was. But while the window is
//! off, and for the QP of the request before, a request is a miss (a new
//! window) even when a slot holds it: a stream of one QP's SENDs is the
//! window's, which reads further ahead than the records queued behind a
//! packet of the same QP. Commands: a miss's
//! first, then a hint's, then the window's. A queue of the commands in
//! flight ({hint, slot}, LUTRAM, pushed when the engine takes a command,
//! popped at its beat) routes each beat to the window or to its slot; at
//! most [`RQ_AHEAD_ROOM`] commands are in flight. `inval` also forgets the
//! slots (a read in flight still lands, in a slot no request matches).
//! Two slots may hold the same entry (a resent SEND hints it again): the
//! request takes the lowest.
//!
//! Latency: a hit whose entry has arrived is handed out 2 cycles after
//! `req` ([`RQ_AHEAD_HIT_LATENCY`]), a slot's 3 ([`RQ_AHEAD_HINT_LATENCY`]:
//! the match, then the lowest match); a miss's command is offered 3 cycles
//! after `req` (the slots are compared beside the window) and its entry 2
//! cycles after its beat
//! ([`RQ_AHEAD_MISS_EXTRA`] in all beside the DMA's latency).

use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::RdCmdOut;
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// A hint: RQ entry `index` of QP `qpn`, ring of 2^`log` entries at `base`,
/// will be asked for (a pulse; no `ready`: a hint may be dropped).
#[derive(LogicInterface, Default)]
#[join = "RqHintIn"]
pub struct RqHintOut {
    pub valid: Signal<Out, Bit>,
    pub qpn: Signal<Out, Bits<24>>,
    pub index: Signal<Out, Bits<16>>,
    pub base: Signal<Out, Bits<64>>,
    pub log: Signal<Out, Bits<4>>,
}

#[derive(LogicInterface, Default)]
#[join = "RqHintOut"]
pub struct RqHintIn {
    pub valid: Signal<In, Bit>,
    pub qpn: Signal<In, Bits<24>>,
    pub index: Signal<In, Bits<16>>,
    pub base: Signal<In, Bits<64>>,
    pub log: Signal<In, Bits<4>>,
}

/// log2 of the entries held ahead.
pub const RQ_AHEAD_LOG: usize = 3;
/// Cycles from `req` to `ent` for a hit whose entry is there.
pub const RQ_AHEAD_HIT_LATENCY: u64 = 2;
/// Cycles a miss adds beside the DMA latency (command taken to beat
/// offered): `req` to the command offered (3), the beat to `ent` (2).
pub const RQ_AHEAD_MISS_EXTRA: u64 = 5;
/// Cycles from `req` to `ent` for an entry a hint's slot holds.
pub const RQ_AHEAD_HINT_LATENCY: u64 = 3;
/// log2 of the hint slots.
pub const RQ_HINT_LOG: usize = 4;
/// Hint slots: entries read for hints, waiting to be asked for.
pub const RQ_HINTS: usize = 1 << RQ_HINT_LOG;
/// A hint word in the FIFO: {`log`, `base`, `index`, `qpn`}.
const HINT_BITS: usize = 108;
/// log2 of the commands-in-flight queue's places.
const KQ_LOG: usize = 5;
/// log2 of the entry memory's places: the window's 8, then the 16 slots
/// from `RQ_RAM_SLOTS_AT` on.
const RAM_LOG: usize = 5;
const _: () =
    assert!(RQ_RAM_SLOTS_AT as usize >= 1 << RQ_AHEAD_LOG && RQ_RAM_SLOTS_AT as usize + RQ_HINTS <= 1 << RAM_LOG);
const _: () = assert!(RQ_AHEAD_SLOTS == 8 && RQ_AHEAD_START >= 1 && RQ_AHEAD_START <= RQ_AHEAD_SLOTS);
// the slots' one-hot is encoded with the 16-wide `SLOT_ENC*` masks; the
// queue holds every command allowed in flight; the window's 5-bit counts
// hold its share
const _: () = assert!(RQ_HINTS == SCHED_SLOTS && RQ_HINT_LOG == SCHED_SLOT_BITS);
const _: () = assert!(RQ_AHEAD_ROOM < 1 << KQ_LOG && RQ_AHEAD_ROOM + 1 < 32);
const _: () = assert!(HINT_BITS == 24 + 16 + 64 + 4);

#[derive(LogicBlock, Default)]
pub struct RqAhead {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub req: Signal<In, Bit>,
    pub req_qpn: Signal<In, Bits<24>>,
    pub req_index: Signal<In, Bits<16>>,
    pub req_base: Signal<In, Bits<64>>,
    pub req_log: Signal<In, Bits<4>>,
    pub req_prod: Signal<In, Bits<16>>,
    pub s_hint: RqHintIn,
    pub inval: Signal<In, Bit>,
    pub ent: Signal<Out, Bit>,
    pub ent_data: Signal<Out, Bits<512>>,
    pub ent_err: Signal<Out, Bit>,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    /// The window's places at 0..8, the slots at 16..32 (one LUTRAM: one
    /// read port, no 512-bit mux behind it).
    ram: LutRam<Bits<513>, RAM_LOG>,
    // ---- hints: the FIFO, its output register, the slots
    hq: LutRam<Bits<HINT_BITS>, RQ_HINT_LOG>,
    hq_wp: Reg<Bits<5>>,
    hq_rp: Reg<Bits<5>>,
    h_v: Reg<Bit>,
    h_qpn: Reg<Bits<24>>,
    h_index: Reg<Bits<16>>,
    /// `h_index` mod 2^`h_log` (masked as the hint is loaded).
    h_midx: Reg<Bits<16>>,
    h_base: Reg<Bits<64>>,
    h_log: Reg<Bits<4>>,
    s_tag: [Reg<Bits<40>>; RQ_HINTS],
    s_tagv: Reg<Bits<RQ_HINTS>>,
    s_fly: Reg<Bits<RQ_HINTS>>,
    s_arr: Reg<Bits<RQ_HINTS>>,
    s_next: Reg<Bits<RQ_HINT_LOG>>,
    // ---- per command in flight: {hint, slot}
    kq: LutRam<Bits<5>, KQ_LOG>,
    kq_wp: Reg<Bits<6>>,
    kq_rp: Reg<Bits<6>>,
    // ---- the request's slot match, then its lowest (one-hot and number)
    r_sv: Reg<Bits<RQ_HINTS>>,
    r_sany: Reg<Bit>,
    r_sp: Reg<Bit>,
    r_sh: Reg<Bit>,
    r_so: Reg<Bits<RQ_HINTS>>,
    r_sn: Reg<Bits<RQ_HINT_LOG>>,
    // ---- the QP of the request before
    l_v: Reg<Bit>,
    l_qpn: Reg<Bits<24>>,
    // ---- the request
    r_v: Reg<Bit>,
    r_hit: Reg<Bit>,
    r_fl: Reg<Bit>,
    r_qpn: Reg<Bits<24>>,
    r_index: Reg<Bits<16>>,
    r_base: Reg<Bits<64>>,
    r_log: Reg<Bits<4>>,
    r_prod: Reg<Bits<16>>,
    // ---- the window
    w_on: Reg<Bit>,
    w_qpn: Reg<Bits<24>>,
    w_base: Reg<Bits<64>>,
    w_log: Reg<Bits<4>>,
    w_prod: Reg<Bits<16>>,
    w_head: Reg<Bits<16>>,
    w_next: Reg<Bits<16>>,
    w_arr: Reg<Bits<RQ_AHEAD_LOG>>,
    w_cnt: Reg<Bits<4>>,
    w_have: Reg<Bits<4>>,
    depth: Reg<Bits<4>>,
    need: Reg<Bit>,
    // ---- reads in flight (all, and the flushed window's)
    fly: Reg<Bits<5>>,
    junk: Reg<Bits<5>>,
    rd_v: Reg<Bit>,
    rd_addr: Reg<Bits<64>>,
    rd_hint: Reg<Bit>,
    rd_slot: Reg<Bits<RQ_HINT_LOG>>,
    // ---- the entry handed out
    e_v: Reg<Bit>,
    e_data: Reg<Bits<512>>,
    e_err: Reg<Bit>,
    // ---- locals
    hit_now: Signal<Local, Bit>,
    beat: Signal<Local, Bit>,
    keep: Signal<Local, Bit>,
    cmd_go: Signal<Local, Bit>,
    flush: Signal<Local, Bit>,
    give: Signal<Local, Bit>,
    posted: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    idx: Signal<Local, Bits<16>>,
    fly_after: Signal<Local, Bits<5>>,
    s_match: Signal<Local, Bits<RQ_HINTS>>,
    s_low: Signal<Local, Bits<RQ_HINTS>>,
    s_nexth: Signal<Local, Bits<RQ_HINTS>>,
    s_guard: Signal<Local, Bit>,
    tagv_n: Signal<Local, Bits<RQ_HINTS>>,
    arr_n: Signal<Local, Bits<RQ_HINTS>>,
    sfly_n: Signal<Local, Bits<RQ_HINTS>>,
    b_hint: Signal<Local, Bit>,
    b_slot: Signal<Local, Bits<RQ_HINT_LOG>>,
    b_sh: Signal<Local, Bits<RQ_HINTS>>,
    hb: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    h_load: Signal<Local, Bit>,
    h_drop: Signal<Local, Bit>,
    h_go: Signal<Local, Bit>,
    h_idx: Signal<Local, Bits<16>>,
    sgive: Signal<Local, Bit>,
    hq_we: Signal<Local, Bit>,
    s_use: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for RqAhead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r_v, r_hit, r_fl, r_qpn, r_index, r_base, r_log, r_prod, w_on, w_qpn, w_base, w_log, w_prod,
            w_head, w_next, w_arr, w_cnt, w_have, depth, need, fly, junk, rd_v, rd_addr, e_v, e_data, e_err, hq_wp,
            hq_rp, h_v, h_qpn, h_index, h_midx, h_base, h_log, s_tagv, s_fly, s_arr, s_next, kq_wp, kq_rp, r_sv,
            r_sany, r_sp, r_sh, r_so, r_sn, rd_hint, rd_slot, l_v, l_qpn
        );
        clock!(self, clock, ram, hq, kq);
        for k in 0..RQ_HINTS {
            self.s_tag[k].clock.next = self.clock.val();
            self.s_tag[k].d.next = self.s_tag[k].q.val();
        }

        // ---- the slots a request matches (QPN and index), and the slot a hint takes next
        self.s_match.next = 0.into();
        self.s_nexth.next = 0.into();
        for k in 0..RQ_HINTS {
            self.s_match.next = self.s_match.val().replace_bit(
                k,
                self.s_tagv.q.val().get_bit(k)
                    & (self.s_tag[k].q.val()
                        == (bit_cast::<40, 24>(self.req_qpn.val()) | (bit_cast::<40, 16>(self.req_index.val()) << 24))),
            );
            self.s_nexth.next = self.s_nexth.val().replace_bit(k, self.s_next.q.val().index() == k);
        }

        // ---- a request: a hit when it asks for the window's next entry
        self.hit_now.next = self.w_on.q.val()
            & (self.req_qpn.val() == self.w_qpn.q.val())
            & (self.req_index.val() == self.w_head.q.val())
            & (self.req_base.val() == self.w_base.q.val())
            & (self.req_log.val() == self.w_log.q.val());
        self.s_use.next = self.s_match.val().any()
            & !self.hit_now.val()
            & self.w_on.q.val()
            & !(self.l_v.q.val() & (self.req_qpn.val() == self.l_qpn.q.val()));
        if self.req.val() {
            self.r_v.d.next = true;
            self.r_hit.d.next = self.hit_now.val();
            self.r_fl.d.next = false;
            self.r_qpn.d.next = self.req_qpn.val();
            self.r_index.d.next = self.req_index.val();
            self.r_base.d.next = self.req_base.val();
            self.r_log.d.next = self.req_log.val();
            self.r_prod.d.next = self.req_prod.val();
            if self.hit_now.val() {
                self.w_prod.d.next = self.req_prod.val();
            }
            // (the window first: a slot is matched only when the window is
            // on and misses, and not for the QP of the request before: a
            // stream of one QP's SENDs takes the window, which reads further ahead)
            self.r_sv.d.next = self.s_match.val();
            self.r_sany.d.next = self.s_use.val();
            self.r_sp.d.next = self.s_use.val();
            self.r_sh.d.next = false;
            self.l_v.d.next = true;
            self.l_qpn.d.next = self.req_qpn.val();
        }
        // the lowest slot matched, one-hot and its number
        self.s_low.next = self.r_sv.q.val() & (!self.r_sv.q.val() + 1);
        if self.r_sp.q.val() {
            self.r_sp.d.next = false;
            self.r_sh.d.next = true;
            self.r_so.d.next = self.s_low.val();
            self.r_sn.d.next = bit_cast::<RQ_HINT_LOG, 1>((self.s_low.val() & SLOT_ENC0).any().into())
                | (bit_cast::<RQ_HINT_LOG, 1>((self.s_low.val() & SLOT_ENC1).any().into()) << 1)
                | (bit_cast::<RQ_HINT_LOG, 1>((self.s_low.val() & SLOT_ENC2).any().into()) << 2)
                | (bit_cast::<RQ_HINT_LOG, 1>((self.s_low.val() & SLOT_ENC3).any().into()) << 3);
        }

        // ---- commands in flight: {hint, slot} queued as the engine takes each
        self.cmd_go.next = self.m_rd.ready.val() & self.rd_v.q.val();
        self.kq.write_addr.next = self.kq_wp.q.val().get_bits::<KQ_LOG>(0);
        self.kq.write_data.next =
            bit_cast::<5, RQ_HINT_LOG>(self.rd_slot.q.val()) | (bit_cast::<5, 1>(self.rd_hint.q.val().into()) << 4);
        self.kq.write_enable.next = self.cmd_go.val();
        self.kq.read_addr.next = self.kq_rp.q.val().get_bits::<KQ_LOG>(0);
        if self.cmd_go.val() {
            self.kq_wp.d.next = self.kq_wp.q.val() + 1;
        }
        self.room.next = (self.kq_wp.q.val() - self.kq_rp.q.val()) < RQ_AHEAD_ROOM;

        // ---- beats, in command order: a hint's into its slot; of the
        // window's, the first `junk` are a flushed window's
        self.s_rd.tready.next = true;
        self.b_hint.next = self.kq.read_data.val().get_bit(4);
        self.b_slot.next = self.kq.read_data.val().get_bits::<RQ_HINT_LOG>(0);
        self.hb.next = self.s_rd.tvalid.val() & self.b_hint.val();
        if self.s_rd.tvalid.val() {
            self.kq_rp.d.next = self.kq_rp.q.val() + 1;
        }
        self.beat.next = self.s_rd.tvalid.val() & !self.b_hint.val();
        self.keep.next = self.beat.val() & !self.junk.q.val().any();
        self.ram.write_enable.next = self.keep.val() | self.hb.val();
        self.ram.write_addr.next = bit_cast::<RAM_LOG, RQ_AHEAD_LOG>(self.w_arr.q.val());
        if self.b_hint.val() {
            self.ram.write_addr.next = bit_cast::<RAM_LOG, RQ_HINT_LOG>(self.b_slot.val()) | RQ_RAM_SLOTS_AT;
        }
        self.ram.write_data.next = bit_cast::<513, 512>(self.s_rd.tdata.val())
            | (bit_cast::<513, 1>(self.s_rd.tuser.val().get_bit(0).into()) << 512);
        self.fly_after.next = self.fly.q.val() + bit_cast::<5, 1>((self.cmd_go.val() & !self.rd_hint.q.val()).into())
            - bit_cast::<5, 1>(self.beat.val().into());
        self.fly.d.next = self.fly_after.val();
        if self.keep.val() {
            self.w_arr.d.next = self.w_arr.q.val() + 1;
        }
        if self.beat.val() & self.junk.q.val().any() {
            self.junk.d.next = self.junk.q.val() - 1;
        }

        // ---- a hit handed out once its entry is there
        self.give.next = self.r_v.q.val() & self.r_hit.q.val() & self.w_have.q.val().any();
        self.sgive.next = self.r_v.q.val() & self.r_sh.q.val() & (self.r_so.q.val() & self.s_arr.q.val()).any();
        // (a request is the window's or a slot's from `r_sh` on: both registers)
        self.ram.read_addr.next = bit_cast::<RAM_LOG, RQ_AHEAD_LOG>(self.w_head.q.val().get_bits::<RQ_AHEAD_LOG>(0));
        if self.r_sh.q.val() {
            self.ram.read_addr.next = bit_cast::<RAM_LOG, RQ_HINT_LOG>(self.r_sn.q.val()) | RQ_RAM_SLOTS_AT;
        }
        self.e_v.d.next = self.give.val() | self.sgive.val();
        if self.give.val() | self.sgive.val() {
            self.e_data.d.next = self.ram.read_data.val().get_bits::<512>(0);
            self.e_err.d.next = self.ram.read_data.val().get_bit(512);
            self.r_v.d.next = false;
        }
        if self.give.val() {
            self.w_head.d.next = self.w_head.q.val() + 1;
            if !self.r_fl.q.val() & (self.depth.q.val() != RQ_AHEAD_SLOTS) {
                self.depth.d.next = self.depth.q.val() + 1;
            }
        }

        // ---- reads: while the window is short of its depth and the entry posted
        self.posted.next = self.need.q.val() | (self.w_next.q.val() != self.w_prod.q.val());
        self.flush.next =
            self.r_v.q.val() & !self.r_hit.q.val() & !self.r_sany.q.val() & !self.rd_v.q.val() & self.room.val();

        // ---- hints: queued, then one at a time in a register; read into the
        // next slot (not one in flight, nor the one a request waits for),
        // dropped when they name the window's QP
        self.hq.write_addr.next = self.hq_wp.q.val().get_bits::<RQ_HINT_LOG>(0);
        self.hq.write_data.next = bit_cast::<HINT_BITS, 24>(self.s_hint.qpn.val())
            | (bit_cast::<HINT_BITS, 16>(self.s_hint.index.val()) << 24)
            | (bit_cast::<HINT_BITS, 64>(self.s_hint.base.val()) << 40)
            | (bit_cast::<HINT_BITS, 4>(self.s_hint.log.val()) << 104);
        self.hq_we.next =
            self.s_hint.valid.val() & !self.inval.val() & ((self.hq_wp.q.val() - self.hq_rp.q.val()) != 16);
        self.hq.write_enable.next = self.hq_we.val();
        if self.hq_we.val() {
            self.hq_wp.d.next = self.hq_wp.q.val() + 1;
        }
        self.hq.read_addr.next = self.hq_rp.q.val().get_bits::<RQ_HINT_LOG>(0);
        // the ring index of the hint at the FIFO's head, masked (registered with it)
        self.h_idx.next = 0.into();
        for k in 0..16 {
            if self.hq.read_data.val().get_bits::<4>(104).index() > k {
                self.h_idx.next = self.h_idx.val().replace_bit(k, self.hq.read_data.val().get_bit(24 + k));
            }
        }
        self.h_drop.next = self.h_v.q.val() & self.w_on.q.val() & (self.h_qpn.q.val() == self.w_qpn.q.val());
        // (the slots a request matched are kept until it is answered: `r_so`
        // is one of `r_sv`)
        self.s_guard.next = (self.s_fly.q.val() & self.s_nexth.val()).any()
            | (self.r_v.q.val() & (self.r_sv.q.val() & self.s_nexth.val()).any());
        // (a miss's read, `need` after the flush, goes first; none in a
        // request's cycle, whose match reads the slots' tags as they are)
        self.h_go.next = self.h_v.q.val()
            & !self.req.val()
            & !self.h_drop.val()
            & !self.rd_v.q.val()
            & !self.flush.val()
            & !(self.w_on.q.val() & self.need.q.val())
            & !self.s_guard.val()
            & self.room.val();
        self.h_load.next =
            (self.hq_wp.q.val() != self.hq_rp.q.val()) & (!self.h_v.q.val() | self.h_go.val() | self.h_drop.val());
        if self.h_go.val() | self.h_drop.val() {
            self.h_v.d.next = false;
        }
        if self.h_load.val() {
            self.h_v.d.next = true;
            self.h_qpn.d.next = self.hq.read_data.val().get_bits::<24>(0);
            self.h_index.d.next = self.hq.read_data.val().get_bits::<16>(24);
            self.h_midx.d.next = self.h_idx.val();
            self.h_base.d.next = self.hq.read_data.val().get_bits::<64>(40);
            self.h_log.d.next = self.hq.read_data.val().get_bits::<4>(104);
            self.hq_rp.d.next = self.hq_rp.q.val() + 1;
        }

        // the slots' flags: a hint's read takes the next slot, its beat lands,
        // a request takes its slot, `inval` forgets them all
        self.b_sh.next = 0.into();
        for k in 0..RQ_HINTS {
            self.b_sh.next = self.b_sh.val().replace_bit(k, self.hb.val() & (self.b_slot.val().index() == k));
            if self.h_go.val() & (self.s_next.q.val().index() == k) {
                self.s_tag[k].d.next =
                    bit_cast::<40, 24>(self.h_qpn.q.val()) | (bit_cast::<40, 16>(self.h_index.q.val()) << 24);
            }
        }
        self.tagv_n.next = self.s_tagv.q.val();
        self.arr_n.next = self.s_arr.q.val() | self.b_sh.val();
        self.sfly_n.next = self.s_fly.q.val() & !self.b_sh.val();
        // (the entry handed out is consumed: every slot holding it is stale,
        // also when the window handed it out, so none outlives an index wrap)
        if self.give.val() | self.sgive.val() {
            self.tagv_n.next = self.tagv_n.val() & !self.r_sv.q.val();
        }
        if self.h_go.val() {
            self.tagv_n.next = self.tagv_n.val() | self.s_nexth.val();
            self.arr_n.next = self.arr_n.val() & !self.s_nexth.val();
            self.sfly_n.next = self.sfly_n.val() | self.s_nexth.val();
            self.s_next.d.next = self.s_next.q.val() + 1;
        }
        if self.inval.val() {
            self.tagv_n.next = 0.into();
        }
        self.s_tagv.d.next = self.tagv_n.val();
        self.s_arr.d.next = self.arr_n.val();
        self.s_fly.d.next = self.sfly_n.val();

        self.issue.next = self.w_on.q.val()
            & !self.rd_v.q.val()
            & !self.flush.val()
            & !self.h_go.val()
            & self.room.val()
            & (self.w_cnt.q.val() < self.depth.q.val())
            & self.posted.val();
        self.w_cnt.d.next =
            self.w_cnt.q.val() + bit_cast::<4, 1>(self.issue.val().into()) - bit_cast::<4, 1>(self.give.val().into());
        self.w_have.d.next =
            self.w_have.q.val() + bit_cast::<4, 1>(self.keep.val().into()) - bit_cast::<4, 1>(self.give.val().into());
        self.idx.next = 0.into();
        for k in 0..16 {
            if self.w_log.q.val().index() > k {
                self.idx.next = self.idx.val().replace_bit(k, self.w_next.q.val().get_bit(k));
            }
        }
        if self.cmd_go.val() {
            self.rd_v.d.next = false;
        }
        if self.issue.val() {
            self.rd_v.d.next = true;
            self.rd_hint.d.next = false;
            self.rd_addr.d.next = self.w_base.q.val() + (bit_cast::<64, 16>(self.idx.val()) << RW_SHIFT);
            self.w_next.d.next = self.w_next.q.val() + 1;
            self.need.d.next = false;
        }
        if self.h_go.val() {
            self.rd_v.d.next = true;
            self.rd_hint.d.next = true;
            self.rd_slot.d.next = self.s_next.q.val();
            self.rd_addr.d.next = self.h_base.q.val() + (bit_cast::<64, 16>(self.h_midx.q.val()) << RW_SHIFT);
        }
        self.m_rd.addr.next = self.rd_addr.q.val();
        self.m_rd.len.next = RW_BYTES.into();
        self.m_rd.valid.next = self.rd_v.q.val();

        // ---- a miss: a new window at the entry asked for
        if self.flush.val() {
            self.w_on.d.next = true;
            self.w_qpn.d.next = self.r_qpn.q.val();
            self.w_base.d.next = self.r_base.q.val();
            self.w_log.d.next = self.r_log.q.val();
            self.w_prod.d.next = self.r_prod.q.val();
            self.w_head.d.next = self.r_index.q.val();
            self.w_next.d.next = self.r_index.q.val();
            self.w_arr.d.next = self.r_index.q.val().get_bits::<RQ_AHEAD_LOG>(0);
            self.w_cnt.d.next = 0.into();
            self.w_have.d.next = 0.into();
            self.depth.d.next = RQ_AHEAD_START.into();
            self.need.d.next = true;
            self.junk.d.next = self.fly_after.val();
            self.r_hit.d.next = true;
            self.r_fl.d.next = true;
            self.rd_hint.d.next = false;
        }
        if self.inval.val() {
            self.w_on.d.next = false;
            self.r_hit.d.next = false;
            self.r_sany.d.next = false;
            self.r_sp.d.next = false;
            self.r_sh.d.next = false;
            // hints queued before a context changed are forgotten with the slots
            self.hq_rp.d.next = self.hq_wp.q.val();
            self.h_v.d.next = false;
        }
        self.ent.next = self.e_v.q.val();
        self.ent_data.next = self.e_data.q.val();
        self.ent_err.next = self.e_err.q.val();

        if self.reset.val() {
            self.r_v.d.next = false;
            self.w_on.d.next = false;
            self.w_cnt.d.next = 0.into();
            self.w_have.d.next = 0.into();
            self.fly.d.next = 0.into();
            self.junk.d.next = 0.into();
            self.rd_v.d.next = false;
            self.e_v.d.next = false;
            self.hq_wp.d.next = 0.into();
            self.hq_rp.d.next = 0.into();
            self.h_v.d.next = false;
            self.s_tagv.d.next = 0.into();
            self.s_fly.d.next = 0.into();
            self.s_arr.d.next = 0.into();
            self.s_next.d.next = 0.into();
            self.kq_wp.d.next = 0.into();
            self.kq_rp.d.next = 0.into();
            self.r_sany.d.next = false;
            self.r_sp.d.next = false;
            self.r_sh.d.next = false;
            self.l_v.d.next = false;
        }
    }
}
