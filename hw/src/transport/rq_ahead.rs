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
//! Latency: a hit whose entry has arrived is handed out 2 cycles after
//! `req` ([`RQ_AHEAD_HIT_LATENCY`]); a miss's command is offered 3 cycles
//! after `req` and its entry 2 cycles after its beat
//! ([`RQ_AHEAD_MISS_EXTRA`] in all beside the DMA's latency).

use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::RdCmdOut;
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the entries held ahead.
pub const RQ_AHEAD_LOG: usize = 3;
/// Cycles from `req` to `ent` for a hit whose entry is there.
pub const RQ_AHEAD_HIT_LATENCY: u64 = 2;
/// Cycles a miss adds beside the DMA latency (command taken to beat
/// offered): `req` to the command offered (3), the beat to `ent` (2).
pub const RQ_AHEAD_MISS_EXTRA: u64 = 5;
const _: () = assert!(RQ_AHEAD_SLOTS == 8 && RQ_AHEAD_START >= 1 && RQ_AHEAD_START <= RQ_AHEAD_SLOTS);

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
    pub inval: Signal<In, Bit>,
    pub ent: Signal<Out, Bit>,
    pub ent_data: Signal<Out, Bits<512>>,
    pub ent_err: Signal<Out, Bit>,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    ram: LutRam<Bits<513>, RQ_AHEAD_LOG>,
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
    kind: TypeTag<Self>,
}

impl Logic for RqAhead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r_v, r_hit, r_fl, r_qpn, r_index, r_base, r_log, r_prod, w_on, w_qpn, w_base, w_log, w_prod,
            w_head, w_next, w_arr, w_cnt, w_have, depth, need, fly, junk, rd_v, rd_addr, e_v, e_data, e_err
        );
        clock!(self, clock, ram);

        // ---- a request: a hit when it asks for the window's next entry
        self.hit_now.next = self.w_on.q.val()
            & (self.req_qpn.val() == self.w_qpn.q.val())
            & (self.req_index.val() == self.w_head.q.val())
            & (self.req_base.val() == self.w_base.q.val())
            & (self.req_log.val() == self.w_log.q.val());
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
        }

        // ---- beats, in command order: the first `junk` are a flushed window's
        self.s_rd.tready.next = true;
        self.beat.next = self.s_rd.tvalid.val();
        self.keep.next = self.beat.val() & !self.junk.q.val().any();
        self.ram.write_enable.next = self.keep.val();
        self.ram.write_addr.next = self.w_arr.q.val();
        self.ram.write_data.next = bit_cast::<513, 512>(self.s_rd.tdata.val())
            | (bit_cast::<513, 1>(self.s_rd.tuser.val().get_bit(0).into()) << 512);
        self.cmd_go.next = self.m_rd.ready.val() & self.rd_v.q.val();
        self.fly_after.next =
            self.fly.q.val() + bit_cast::<5, 1>(self.cmd_go.val().into()) - bit_cast::<5, 1>(self.beat.val().into());
        self.fly.d.next = self.fly_after.val();
        if self.keep.val() {
            self.w_arr.d.next = self.w_arr.q.val() + 1;
        }
        if self.beat.val() & self.junk.q.val().any() {
            self.junk.d.next = self.junk.q.val() - 1;
        }

        // ---- a hit handed out once its entry is there
        self.give.next = self.r_v.q.val() & self.r_hit.q.val() & self.w_have.q.val().any();
        self.ram.read_addr.next = self.w_head.q.val().get_bits::<RQ_AHEAD_LOG>(0);
        self.e_v.d.next = self.give.val();
        if self.give.val() {
            self.e_data.d.next = self.ram.read_data.val().get_bits::<512>(0);
            self.e_err.d.next = self.ram.read_data.val().get_bit(512);
            self.r_v.d.next = false;
            self.w_head.d.next = self.w_head.q.val() + 1;
            if !self.r_fl.q.val() & (self.depth.q.val() != RQ_AHEAD_SLOTS) {
                self.depth.d.next = self.depth.q.val() + 1;
            }
        }

        // ---- reads: while the window is short of its depth and the entry posted
        self.posted.next = self.need.q.val() | (self.w_next.q.val() != self.w_prod.q.val());
        self.flush.next = self.r_v.q.val() & !self.r_hit.q.val() & !self.rd_v.q.val();
        self.issue.next = self.w_on.q.val()
            & !self.rd_v.q.val()
            & !self.flush.val()
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
            self.rd_addr.d.next = self.w_base.q.val() + (bit_cast::<64, 16>(self.idx.val()) << RW_SHIFT);
            self.w_next.d.next = self.w_next.q.val() + 1;
            self.need.d.next = false;
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
        }
        if self.inval.val() {
            self.w_on.d.next = false;
            self.r_hit.d.next = false;
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
        }
    }
}
