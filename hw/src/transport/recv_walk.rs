//! `RecvWalk`: the RECV side of `RespExec` (child block): fetches the RECV
//! WQE a SEND (or a WRITE with immediate) consumes from the QP's receive
//! queue ring, keeps it in registers, and walks a SEND packet's payload
//! over the WQE's scatter list, one translation request per SGE piece.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `start` + `qpn`, `index`, `fresh`, `offset`, `plen`, `rq_base`, `rq_log`, `rq_prod`, `sges` | in | a walk: RQ entry `index` of QP `qpn` (`fresh`: the RECV starts with this packet; `rq_prod`: the QP's `RQ_PROD` as the packet saw it), the packet's `plen` bytes at byte `offset` of the RECV; `sges` low: fetch only (a WRITE with immediate needs the WR_ID) |
//! | `inval` | in | a pulse: a QP context was loaded or invalidated; the entries read ahead are forgotten |
//! | `m_rd` / `s_rd` | out / in | DMA read client of the child [`RqAhead`]: RQ entries at `rq_base` + (index mod 2^`rq_log`) x 64, one beat each (`tuser[0]`: DMA error); `tready` constant 1 |
//! | `q_*` | out | the SGE pieces' translation requests {`va`, `len`, `key`, `last`}, valid/ready, from registers; `last` on the packet's final one |
//! | `done` | out | a register: the walk is over (every request taken); with it `len_err` (the payload runs past the SGEs), `bad` (DMA error, or a SEND's `NUM_SGE` above the contract's `MAX_SGE`), `wr_id`, and where the packet ended: `pos_sge`, `pos_off` (SGE and bytes placed in it) |
//!
//! **The WQE in registers.** The entry last handed out by [`RqAhead`] stays
//! in its output register; this block keeps its QPN and RQ index and asks
//! for an entry only when the RECV starts (`fresh`) or the QPN or index
//! differ, so the packets of a multi-packet SEND ask once. `RqAhead` reads
//! the QP's next posted entries ahead, so a stream of SENDs finds its RECVs
//! read (module doc there).
//!
//! **The walk** (the model's `scatter`): from SGE 0 with `skip` = `offset`
//! and `rest` = `plen`, one step a cycle while the request register is free:
//! `rest` = 0 ends it; no SGE left (`NUM_SGE`) is LOC_LEN_ERR; an SGE
//! wholly behind `skip` is skipped (`skip` -= its length: zero-length SGEs
//! are skipped without a request, as in the model); else a request for
//! min(`rest`, length - `skip`) bytes at its address + `skip`. A SEND
//! packet takes at most `MAX_SGE` requests. Latency (from `start`, the entry
//! held, `offset` in SGE 0): the first request offered 2 cycles later; an
//! entry asked of `RqAhead` adds [`RECV_WALK_ASK_EXTRA`] when it was read
//! ahead, else `RECV_WALK_READ_EXTRA` beside the DMA latency.
//!
//! **Why a child.** It is the SEND-only half of `RespExec`: its own port
//! (the RQ read), its own registers (the WQE), a small sequencer; the parent
//! merges its requests with WRITE's into one translation port.

use super::rq_ahead::{RqAhead, RQ_AHEAD_HIT_LATENCY, RQ_AHEAD_MISS_EXTRA};
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
    pub inval: Signal<In, Bit>,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub q_va: Signal<Out, Bits<64>>,
    pub q_len: Signal<Out, Bits<32>>,
    pub q_key: Signal<Out, Bits<32>>,
    pub q_last: Signal<Out, Bit>,
    pub q_valid: Signal<Out, Bit>,
    pub q_ready: Signal<In, Bit>,
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
    walking: Reg<Bit>,
    fin: Reg<Bit>,
    sge: Reg<Bits<2>>,
    skip: Reg<Bits<32>>,
    // `skip` + `rest`: where the packet ends, counted from the current SGE
    end: Reg<Bits<33>>,
    rest: Reg<Bits<16>>,
    len_err_r: Reg<Bit>,
    bad_r: Reg<Bit>,
    // ---- the request offered
    q_valid_r: Reg<Bit>,
    q_va_r: Reg<Bits<64>>,
    q_len_r: Reg<Bits<32>>,
    q_key_r: Reg<Bits<32>>,
    q_last_r: Reg<Bit>,
    // ---- locals
    hit: Signal<Local, Bit>,
    beat: Signal<Local, Bit>,
    c_err: Signal<Local, Bit>,
    c_num: Signal<Local, Bits<8>>,
    step: Signal<Local, Bit>,
    cur_addr: Signal<Local, Bits<64>>,
    cur_len: Signal<Local, Bits<32>>,
    cur_key: Signal<Local, Bits<32>>,
    avail: Signal<Local, Bits<32>>,
    rest32: Signal<Local, Bits<32>>,
    len33: Signal<Local, Bits<33>>,
    end_next: Signal<Local, Bits<33>>,
    malformed: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for RecvWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, c_valid, c_qpn, c_index, r_base, r_log, r_prod, r_sges, ask, rd_wait, walking, fin, sge, skip,
            end, rest, len_err_r, bad_r, q_valid_r, q_va_r, q_len_r, q_key_r, q_last_r
        );
        clock!(self, clock, ahead);
        self.ahead.reset.next = self.reset.val();

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
            self.sge.d.next = 0.into();
            self.skip.d.next = self.offset.val();
            self.rest.d.next = self.plen.val();
            self.end.d.next = bit_cast::<33, 32>(self.offset.val()) + bit_cast::<33, 16>(self.plen.val());
            self.len_err_r.d.next = false;
            self.bad_r.d.next = false;
            self.fin.d.next = false;
            self.ask.d.next = !self.hit.val();
            self.rd_wait.d.next = !self.hit.val();
            self.walking.d.next = self.hit.val();
            if !self.hit.val() {
                self.c_valid.d.next = false;
            }
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
        RdCmdOut::link(&mut self.m_rd, &mut self.ahead.m_rd);
        AxisIn::<512, 64, 1>::link(&mut self.s_rd, &mut self.ahead.s_rd);
        self.beat.next = self.ahead.ent.val() & self.rd_wait.q.val();
        if self.beat.val() {
            self.rd_wait.d.next = false;
            self.walking.d.next = true;
            self.c_valid.d.next = !self.ahead.ent_err.val();
        }
        self.c_err.next = self.ahead.ent_err.val();
        self.c_num.next = self.ahead.ent_data.val().get_bits::<8>(RW_NUM_SGE);

        // ---- the walk: one step a cycle while the request register is free
        self.cur_addr.next = self.ahead.ent_data.val().get_bits::<64>(RW_ADDR0);
        self.cur_len.next = self.ahead.ent_data.val().get_bits::<32>(RW_LEN0);
        self.cur_key.next = self.ahead.ent_data.val().get_bits::<32>(RW_KEY0);
        if self.sge.q.val() == 1 {
            self.cur_addr.next = self.ahead.ent_data.val().get_bits::<64>(RW_ADDR1);
            self.cur_len.next = self.ahead.ent_data.val().get_bits::<32>(RW_LEN1);
            self.cur_key.next = self.ahead.ent_data.val().get_bits::<32>(RW_KEY1);
        } else if self.sge.q.val() == 2 {
            self.cur_addr.next = self.ahead.ent_data.val().get_bits::<64>(RW_ADDR2);
            self.cur_len.next = self.ahead.ent_data.val().get_bits::<32>(RW_LEN2);
            self.cur_key.next = self.ahead.ent_data.val().get_bits::<32>(RW_KEY2);
        }
        // each a single add or subtract from registers and the SGE mux, side by
        // side: the piece ends the packet when `end` <= the SGE's length
        // (instead of `rest` <= length - `skip`, two carry chains in a row)
        self.avail.next = self.cur_len.val() - self.skip.q.val();
        self.rest32.next = bit_cast::<32, 16>(self.rest.q.val());
        self.len33.next = bit_cast::<33, 32>(self.cur_len.val());
        self.end_next.next = self.end.q.val() - self.len33.val();
        self.malformed.next = self.c_num.val() > RW_MAX_SGE;
        if self.q_ready.val() {
            self.q_valid_r.d.next = false;
        }
        self.step.next = self.walking.q.val() & (!self.q_valid_r.q.val() | self.q_ready.val());
        if self.step.val() {
            if !self.r_sges.q.val() | self.c_err.val() | self.malformed.val() {
                // fetch only, or a WQE that cannot be walked
                self.walking.d.next = false;
                self.fin.d.next = true;
                self.bad_r.d.next = self.c_err.val() | (self.r_sges.q.val() & self.malformed.val());
            } else if !self.rest.q.val().any() {
                self.walking.d.next = false;
                self.fin.d.next = true;
            } else if bit_cast::<8, 2>(self.sge.q.val()) == self.c_num.val() {
                self.walking.d.next = false;
                self.fin.d.next = true;
                self.len_err_r.d.next = true;
            } else if self.skip.q.val() >= self.cur_len.val() {
                self.skip.d.next = self.skip.q.val() - self.cur_len.val();
                self.end.d.next = self.end_next.val();
                self.sge.d.next = self.sge.q.val() + 1;
            } else {
                self.q_valid_r.d.next = true;
                self.q_va_r.d.next = self.cur_addr.val() + bit_cast::<64, 32>(self.skip.q.val());
                self.q_key_r.d.next = self.cur_key.val();
                if self.end.q.val() <= self.len33.val() {
                    self.q_len_r.d.next = self.rest32.val();
                    self.q_last_r.d.next = true;
                    self.skip.d.next = self.end.q.val().get_bits::<32>(0);
                    self.rest.d.next = 0.into();
                } else {
                    self.q_len_r.d.next = self.avail.val();
                    self.q_last_r.d.next = false;
                    self.skip.d.next = 0.into();
                    self.rest.d.next = self.end_next.val().get_bits::<16>(0);
                    self.end.d.next = self.end_next.val();
                    self.sge.d.next = self.sge.q.val() + 1;
                }
            }
        }
        self.q_va.next = self.q_va_r.q.val();
        self.q_len.next = self.q_len_r.q.val();
        self.q_key.next = self.q_key_r.q.val();
        self.q_last.next = self.q_last_r.q.val();
        self.q_valid.next = self.q_valid_r.q.val();
        self.done.next = self.fin.q.val();
        self.len_err.next = self.len_err_r.q.val();
        self.bad.next = self.bad_r.q.val();
        self.wr_id.next = self.ahead.ent_data.val().get_bits::<64>(RW_WR_ID);
        self.pos_sge.next = self.sge.q.val();
        self.pos_off.next = self.skip.q.val();

        if self.reset.val() {
            self.c_valid.d.next = false;
            self.ask.d.next = false;
            self.rd_wait.d.next = false;
            self.walking.d.next = false;
            self.fin.d.next = false;
            self.q_valid_r.d.next = false;
        }
    }
}
