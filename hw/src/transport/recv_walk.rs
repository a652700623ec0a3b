//! `RecvWalk`: the RECV side of `RespExec` (child block): fetches the RECV
//! WQE a SEND (or a WRITE with immediate) consumes from the QP's receive
//! queue ring, keeps it in registers, and walks a SEND packet's payload
//! over the WQE's scatter list, one translation request per SGE piece.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `start` + `qpn`, `index`, `fresh`, `offset`, `plen`, `rq_base`, `rq_log`, `rq_prod`, `sges` | in | a walk: RQ entry `index` of QP `qpn` (`fresh`: the RECV starts with this packet; `rq_prod`: the QP's `RQ_PROD` as the packet saw it), the packet's `plen` bytes at byte `offset` of the RECV; `sges` low: fetch only (a WRITE with immediate needs the WR_ID) |
//! | `again` | in | a pulse, after `done`: the entry after the one held, of the same QP and ring, with the inputs `start` registered (`sges` low: an RQ flush's next RECV, fetch only) |
//! | `inval` | in | a pulse: a QP context was loaded or invalidated; the entries read ahead are forgotten |
//! | `s_hint` ([`RqHintIn`]) | in | `RqAhead`'s hints: an entry a queued record will ask for, read ahead into a slot |
//! | `m_rd` / `s_rd` | out / in | DMA read client of the child [`RqAhead`]: RQ entries at `rq_base` + (index mod 2^`rq_log`) x 64, one beat each (`tuser[0]`: DMA error); `tready` constant 1 |
//! | `q` ([`SgeReqOut`], ports `q_*`) | out | the SGE pieces' translation requests {`va`, `len`, `key`, `last`}, valid/ready, from registers; `last` on the packet's final one |
//! | `done` | out | a register: the walk is over (every request taken); with it `len_err` (the payload runs past the SGEs), `bad` (DMA error, or a SEND's `NUM_SGE` above the contract's `MAX_SGE`), `wr_id`, and where the packet ended: `pos_sge`, `pos_off` (SGE and bytes placed in it) |
//!
//! **The WQE in registers.** The entry last handed out by [`RqAhead`] stays
//! in its output register; this block keeps its QPN and RQ index and asks
//! for an entry only when the RECV starts (`fresh`) or the QPN or index
//! differ, so the packets of a multi-packet SEND ask once. `RqAhead` reads
//! the QP's next posted entries ahead, so a stream of SENDs finds its RECVs
//! read (module doc there).
//!
//! **The walk** (the model's `scatter`) is the child [`SgeWalk`], shared
//! with the READ response walk: from SGE 0 with `skip` = `offset` and
//! `rest` = `plen`, one step a cycle while the request register is free
//! (its module doc); this block puts the held entry's SGE `sge` on its
//! inputs. A SEND packet takes at most `MAX_SGE` requests. Latency (from `start`, the entry
//! held, `offset` in SGE 0): the first request offered 2 cycles later; an
//! entry asked of `RqAhead` adds [`RECV_WALK_ASK_EXTRA`] when it was read
//! ahead, else `RECV_WALK_READ_EXTRA` beside the DMA latency.
//!
//! **Why a child.** It is the SEND-only half of `RespExec`: its own port
//! (the RQ read), its own registers (the WQE), a small sequencer; the parent
//! merges its requests with WRITE's into one translation port.

use super::rq_ahead::{RqAhead, RqHintIn, RQ_AHEAD_HIT_LATENCY, RQ_AHEAD_MISS_EXTRA};
use super::{SgeReqOut, SgeWalk};
use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::RdCmdOut;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::layouts::recv_wqe;
use rust_hdl::prelude::*;

/// Cycles an entry read ahead adds to a walk (against one held): the
/// request register (1), `RqAhead`'s latency.
pub const RECV_WALK_ASK_EXTRA: u64 = 1 + RQ_AHEAD_HIT_LATENCY;
/// Cycles an entry not read ahead adds beside the DMA's own latency.
pub const RECV_WALK_READ_EXTRA: u64 = 1 + RQ_AHEAD_MISS_EXTRA;

const _: () = assert!(recv_wqe::MAX_SGE == 3 && RW_BYTES == 1 << RW_SHIFT);

#[derive(LogicBlock, Default)]
pub struct RecvWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub qpn: Signal<In, Bits<24>>,
    pub index: Signal<In, Bits<16>>,
    pub fresh: Signal<In, Bit>,
    pub offset: Signal<In, Bits<32>>,
    pub plen: Signal<In, Bits<16>>,
    pub rq_base: Signal<In, Bits<64>>,
    pub rq_log: Signal<In, Bits<4>>,
    pub rq_prod: Signal<In, Bits<16>>,
    pub sges: Signal<In, Bit>,
    pub again: Signal<In, Bit>,
    pub inval: Signal<In, Bit>,
    pub s_hint: RqHintIn,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub q: SgeReqOut,
    pub done: Signal<Out, Bit>,
    pub len_err: Signal<Out, Bit>,
    pub bad: Signal<Out, Bit>,
    pub wr_id: Signal<Out, Bits<64>>,
    pub pos_sge: Signal<Out, Bits<2>>,
    pub pos_off: Signal<Out, Bits<32>>,
    // ---- the WQE held, its tag
    c_valid: Reg<Bit>,
    c_qpn: Reg<Bits<24>>,
    c_index: Reg<Bits<16>>,
    ahead: RqAhead,
    // ---- the walk
    r_base: Reg<Bits<64>>,
    r_log: Reg<Bits<4>>,
    r_prod: Reg<Bits<16>>,
    r_sges: Reg<Bit>,
    ask: Reg<Bit>,
    rd_wait: Reg<Bit>,
    walk: SgeWalk,
    // ---- locals
    hit: Signal<Local, Bit>,
    beat: Signal<Local, Bit>,
    c_err: Signal<Local, Bit>,
    c_num: Signal<Local, Bits<8>>,
    cur_addr: Signal<Local, Bits<64>>,
    cur_len: Signal<Local, Bits<32>>,
    cur_key: Signal<Local, Bits<32>>,
    malformed: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for RecvWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, c_valid, c_qpn, c_index, r_base, r_log, r_prod, r_sges, ask, rd_wait);
        clock!(self, clock, ahead, walk);
        self.ahead.reset.next = self.reset.val();
        self.walk.reset.next = self.reset.val();

        // ---- start: the WQE held is reused when it is this QP's entry `index`
        self.hit.next = self.c_valid.q.val()
            & !self.fresh.val()
            & (self.c_qpn.q.val() == self.qpn.val())
            & (self.c_index.q.val() == self.index.val());
        if self.start.val() {
            self.c_qpn.d.next = self.qpn.val();
            self.c_index.d.next = self.index.val();
            self.r_base.d.next = self.rq_base.val();
            self.r_log.d.next = self.rq_log.val();
            self.r_prod.d.next = self.rq_prod.val();
            self.r_sges.d.next = self.sges.val();
            self.ask.d.next = !self.hit.val();
            self.rd_wait.d.next = !self.hit.val();
            if !self.hit.val() {
                self.c_valid.d.next = false;
            }
        }

        // the next entry of the same ring (an RQ flush walks the RECVs posted)
        if self.again.val() {
            self.c_index.d.next = self.c_index.q.val() + 1;
            self.ask.d.next = true;
            self.rd_wait.d.next = true;
            self.c_valid.d.next = false;
        }

        // ---- the RQ entry, asked of RqAhead; it stays in RqAhead's output register
        if self.ask.q.val() {
            self.ask.d.next = false;
        }
        self.ahead.req.next = self.ask.q.val();
        self.ahead.req_qpn.next = self.c_qpn.q.val();
        self.ahead.req_index.next = self.c_index.q.val();
        self.ahead.req_base.next = self.r_base.q.val();
        self.ahead.req_log.next = self.r_log.q.val();
        self.ahead.req_prod.next = self.r_prod.q.val();
        self.ahead.inval.next = self.inval.val();
        RqHintIn::link(&mut self.s_hint, &mut self.ahead.s_hint);
        RdCmdOut::link(&mut self.m_rd, &mut self.ahead.m_rd);
        AxisIn::<512, 64, 1>::link(&mut self.s_rd, &mut self.ahead.s_rd);
        self.beat.next = self.ahead.ent.val() & self.rd_wait.q.val();
        if self.beat.val() {
            self.rd_wait.d.next = false;
            self.c_valid.d.next = !self.ahead.ent_err.val();
        }
        self.c_err.next = self.ahead.ent_err.val();
        self.c_num.next = self.ahead.ent_data.val().get_bits::<8>(RW_NUM_SGE);

        // ---- the walk (child): SGE `sge` of the entry in RqAhead's output register
        self.walk.start.next = self.start.val() | self.again.val();
        self.walk.offset.next = self.offset.val();
        self.walk.plen.next = self.plen.val();
        self.walk.go.next = (self.start.val() & self.hit.val()) | self.beat.val();
        // fetch only, or a WQE that cannot be walked
        self.malformed.next = self.c_num.val() > RW_MAX_SGE;
        self.walk.stop.next = !self.r_sges.q.val() | self.c_err.val() | self.malformed.val();
        self.walk.stop_bad.next = self.c_err.val() | (self.r_sges.q.val() & self.malformed.val());
        self.walk.num.next = self.c_num.val();
        self.cur_addr.next = self.ahead.ent_data.val().get_bits::<64>(RW_ADDR0);
        self.cur_len.next = self.ahead.ent_data.val().get_bits::<32>(RW_LEN0);
        self.cur_key.next = self.ahead.ent_data.val().get_bits::<32>(RW_KEY0);
        if self.walk.sge.val() == 1 {
            self.cur_addr.next = self.ahead.ent_data.val().get_bits::<64>(RW_ADDR1);
            self.cur_len.next = self.ahead.ent_data.val().get_bits::<32>(RW_LEN1);
            self.cur_key.next = self.ahead.ent_data.val().get_bits::<32>(RW_KEY1);
        } else if self.walk.sge.val() == 2 {
            self.cur_addr.next = self.ahead.ent_data.val().get_bits::<64>(RW_ADDR2);
            self.cur_len.next = self.ahead.ent_data.val().get_bits::<32>(RW_LEN2);
            self.cur_key.next = self.ahead.ent_data.val().get_bits::<32>(RW_KEY2);
        }
        self.walk.cur_addr.next = self.cur_addr.val();
        self.walk.cur_len.next = self.cur_len.val();
        self.walk.cur_key.next = self.cur_key.val();
        SgeReqOut::link(&mut self.q, &mut self.walk.q);
        self.done.next = self.walk.done.val();
        self.len_err.next = self.walk.len_err.val();
        self.bad.next = self.walk.bad.val();
        self.wr_id.next = self.ahead.ent_data.val().get_bits::<64>(RW_WR_ID);
        self.pos_sge.next = self.walk.sge.val().get_bits::<2>(0);
        self.pos_off.next = self.walk.pos_off.val();

        if self.reset.val() {
            self.c_valid.d.next = false;
            self.ask.d.next = false;
            self.rd_wait.d.next = false;
        }
    }
}
