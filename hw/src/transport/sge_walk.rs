//! `SgeWalk`: a packet's payload walked over a WQE's scatter/gather list,
//! one translation request per SGE piece (the model's `scatter`). Shared by
//! the RECV walk of a SEND (`RecvWalk`, over a RECV WQE) and the READ
//! response walk (`ReadWalk`, over a send WQE): the parent holds the WQE
//! and puts SGE `sge` on `cur_*` (a mux of its registers by this block's
//! `sge`, a register), so the walk itself knows no layout.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `start` + `offset`, `plen` | in | a new walk: the packet's `plen` bytes at byte `offset` of the WQE's message; it waits for `go` |
//! | `go` | in | the WQE is in the parent's registers: walk (from the next cycle) |
//! | `stop`, `stop_bad` | in | sampled at each step: end the walk now (the parent's WQE cannot be walked, or no walk is wanted), `bad` = `stop_bad` |
//! | `num`, `cur_addr`, `cur_len`, `cur_key` | in | the WQE's `NUM_SGE` and its SGE `sge` |
//! | `sge` | out | the SGE the walk is at (a register) |
//! | `q` ([`SgeReqOut`], ports `q_*`) | out | the requests {`va`, `len`, `key`, `last`}, valid/ready, from registers; `last` on the packet's final one |
//! | `done` | out | a register: the walk is over (every request taken); with it `len_err` (the payload runs past the SGEs), `bad`, and `pos_off` (bytes of SGE `sge` before the packet's end) |
//!
//! **The walk**: from SGE 0 with `skip` = `offset` and `rest` = `plen`,
//! one step a cycle while the request register is free: `rest` = 0 ends
//! it; no SGE left (`num`) is LOC_LEN_ERR; an SGE wholly behind `skip` is
//! skipped (`skip` -= its length: zero-length SGEs are skipped without a
//! request, as in the model); else a request for min(`rest`, length -
//! `skip`) bytes at its address + `skip`. `end` = `skip` + `rest` is kept
//! beside them so the last piece's test is one compare (`end` <= the SGE's
//! length) rather than a subtract and a compare in a row.

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Bits of the SGE index (up to 4 SGEs: a send WQE's `MAX_SGE`).
pub const SGE_WALK_IDX_BITS: usize = 3;
const _: () = assert!(rnic_contract::layouts::send_wqe::MAX_SGE < 1 << SGE_WALK_IDX_BITS);

/// One SGE piece for the translation unit, from a walk's request register:
/// {`va`, `len`, `key`}, `last` on the packet's final piece (ports `q_*`).
#[derive(LogicInterface, Default)]
#[join = "SgeReqIn"]
pub struct SgeReqOut {
    pub va: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<32>>,
    pub key: Signal<Out, Bits<32>>,
    pub last: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "SgeReqOut"]
pub struct SgeReqIn {
    pub va: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<32>>,
    pub key: Signal<In, Bits<32>>,
    pub last: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct SgeWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub offset: Signal<In, Bits<32>>,
    pub plen: Signal<In, Bits<16>>,
    pub go: Signal<In, Bit>,
    pub stop: Signal<In, Bit>,
    pub stop_bad: Signal<In, Bit>,
    pub num: Signal<In, Bits<8>>,
    pub cur_addr: Signal<In, Bits<64>>,
    pub cur_len: Signal<In, Bits<32>>,
    pub cur_key: Signal<In, Bits<32>>,
    pub sge: Signal<Out, Bits<SGE_WALK_IDX_BITS>>,
    pub q: SgeReqOut,
    pub done: Signal<Out, Bit>,
    pub len_err: Signal<Out, Bit>,
    pub bad: Signal<Out, Bit>,
    pub pos_off: Signal<Out, Bits<32>>,
    walking: Reg<Bit>,
    fin: Reg<Bit>,
    sge_r: Reg<Bits<SGE_WALK_IDX_BITS>>,
    skip: Reg<Bits<32>>,
    end: Reg<Bits<33>>,
    rest: Reg<Bits<16>>,
    len_err_r: Reg<Bit>,
    bad_r: Reg<Bit>,
    q_valid_r: Reg<Bit>,
    q_va_r: Reg<Bits<64>>,
    q_len_r: Reg<Bits<32>>,
    q_key_r: Reg<Bits<32>>,
    q_last_r: Reg<Bit>,
    step: Signal<Local, Bit>,
    avail: Signal<Local, Bits<32>>,
    rest32: Signal<Local, Bits<32>>,
    len33: Signal<Local, Bits<33>>,
    end_next: Signal<Local, Bits<33>>,
    kind: TypeTag<Self>,
}

impl Logic for SgeWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, walking, fin, sge_r, skip, end, rest, len_err_r, bad_r, q_valid_r, q_va_r, q_len_r, q_key_r,
            q_last_r
        );
        if self.start.val() {
            self.sge_r.d.next = 0.into();
            self.skip.d.next = self.offset.val();
            self.rest.d.next = self.plen.val();
            self.end.d.next = bit_cast::<33, 32>(self.offset.val()) + bit_cast::<33, 16>(self.plen.val());
            self.len_err_r.d.next = false;
            self.bad_r.d.next = false;
            self.fin.d.next = false;
            self.walking.d.next = false;
        }
        if self.go.val() {
            self.walking.d.next = true;
        }
        // each a single add or subtract from registers and the SGE mux, side by side
        self.avail.next = self.cur_len.val() - self.skip.q.val();
        self.rest32.next = bit_cast::<32, 16>(self.rest.q.val());
        self.len33.next = bit_cast::<33, 32>(self.cur_len.val());
        self.end_next.next = self.end.q.val() - self.len33.val();
        if self.q.ready.val() {
            self.q_valid_r.d.next = false;
        }
        self.step.next = self.walking.q.val() & (!self.q_valid_r.q.val() | self.q.ready.val());
        if self.step.val() {
            if self.stop.val() {
                self.walking.d.next = false;
                self.fin.d.next = true;
                self.bad_r.d.next = self.stop_bad.val();
            } else if !self.rest.q.val().any() {
                self.walking.d.next = false;
                self.fin.d.next = true;
            } else if bit_cast::<8, SGE_WALK_IDX_BITS>(self.sge_r.q.val()) == self.num.val() {
                self.walking.d.next = false;
                self.fin.d.next = true;
                self.len_err_r.d.next = true;
            } else if self.skip.q.val() >= self.cur_len.val() {
                self.skip.d.next = self.skip.q.val() - self.cur_len.val();
                self.end.d.next = self.end_next.val();
                self.sge_r.d.next = self.sge_r.q.val() + 1;
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
                    self.sge_r.d.next = self.sge_r.q.val() + 1;
                }
            }
        }
        self.sge.next = self.sge_r.q.val();
        self.q.va.next = self.q_va_r.q.val();
        self.q.len.next = self.q_len_r.q.val();
        self.q.key.next = self.q_key_r.q.val();
        self.q.last.next = self.q_last_r.q.val();
        self.q.valid.next = self.q_valid_r.q.val();
        self.done.next = self.fin.q.val();
        self.len_err.next = self.len_err_r.q.val();
        self.bad.next = self.bad_r.q.val();
        self.pos_off.next = self.skip.q.val();

        if self.reset.val() {
            self.walking.d.next = false;
            self.fin.d.next = false;
            self.q_valid_r.d.next = false;
        }
    }
}
