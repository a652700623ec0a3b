//! `RecvWalk`: the RECV side of `RespExec` (child block): fetches the RECV
//! WQE a SEND (or a WRITE with immediate) consumes from the QP's receive
//! queue ring, keeps it in registers, and walks a SEND packet's payload
//! over the WQE's scatter list, one translation request per SGE piece.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `start` + `qpn`, `index`, `fresh`, `offset`, `plen`, `rq_base`, `rq_log`, `sges` | in | a walk: RQ entry `index` of QP `qpn` (`fresh`: the RECV starts with this packet), the packet's `plen` bytes at byte `offset` of the RECV; `sges` low: fetch only (a WRITE with immediate needs the WR_ID) |
//! | `m_rd` / `s_rd` | out / in | DMA read client: the RQ entry at `rq_base` + (`index` mod 2^`rq_log`) x 64, one beat (`tuser[0]`: DMA error); `tready` a register |
//! | `q_*` | out | the SGE pieces' translation requests {`va`, `len`, `key`, `last`}, valid/ready, from registers; `last` on the packet's final one |
//! | `done` | out | a register: the walk is over (every request taken); with it `len_err` (the payload runs past the SGEs), `bad` (DMA error, or a SEND's `NUM_SGE` above the contract's `MAX_SGE`), `wr_id`, and where the packet ended: `pos_sge`, `pos_off` (SGE and bytes placed in it) |
//!
//! **The WQE in registers.** The entry last read is kept with its QPN and
//! RQ index; a walk reads the ring only when the RECV starts (`fresh`) or
//! the QPN or index differ, so the packets of a multi-packet SEND read it
//! once.
//!
//! **The walk** (the model's `scatter`): from SGE 0 with `skip` = `offset`
//! and `rest` = `plen`, one step a cycle while the request register is free:
//! `rest` = 0 ends it; no SGE left (`NUM_SGE`) is LOC_LEN_ERR; an SGE
//! wholly behind `skip` is skipped (`skip` -= its length: zero-length SGEs
//! are skipped without a request, as in the model); else a request for
//! min(`rest`, length - `skip`) bytes at its address + `skip`. A SEND
//! packet takes at most `MAX_SGE` requests. Latency (from `start`, the entry
//! cached, `offset` in SGE 0): the first request offered 2 cycles later.
//!
//! **Why a child.** It is the SEND-only half of `RespExec`: its own port
//! (the RQ read), its own registers (the WQE), a small sequencer; the parent
//! merges its requests with WRITE's into one translation port.

use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::RdCmdOut;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::layouts::recv_wqe;
use rust_hdl::prelude::*;

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
    pub sges: Signal<In, Bit>,
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
    c_err: Reg<Bit>,
    c_wr_id: Reg<Bits<64>>,
    c_num: Reg<Bits<8>>,
    c_addr0: Reg<Bits<64>>,
    c_addr1: Reg<Bits<64>>,
    c_addr2: Reg<Bits<64>>,
    c_len0: Reg<Bits<32>>,
    c_len1: Reg<Bits<32>>,
    c_len2: Reg<Bits<32>>,
    c_key0: Reg<Bits<32>>,
    c_key1: Reg<Bits<32>>,
    c_key2: Reg<Bits<32>>,
    // ---- the walk
    r_base: Reg<Bits<64>>,
    r_log: Reg<Bits<4>>,
    r_sges: Reg<Bit>,
    fetch: Reg<Bit>,
    rd_v: Reg<Bit>,
    rd_addr: Reg<Bits<64>>,
    rd_wait: Reg<Bit>,
    walking: Reg<Bit>,
    fin: Reg<Bit>,
    sge: Reg<Bits<2>>,
    skip: Reg<Bits<32>>,
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
    idx: Signal<Local, Bits<16>>,
    beat: Signal<Local, Bit>,
    step: Signal<Local, Bit>,
    cur_addr: Signal<Local, Bits<64>>,
    cur_len: Signal<Local, Bits<32>>,
    cur_key: Signal<Local, Bits<32>>,
    avail: Signal<Local, Bits<32>>,
    rest32: Signal<Local, Bits<32>>,
    malformed: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for RecvWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, c_valid, c_qpn, c_index, c_err, c_wr_id, c_num, c_addr0, c_addr1, c_addr2, c_len0, c_len1,
            c_len2, c_key0, c_key1, c_key2, r_base, r_log, r_sges, fetch, rd_v, rd_addr, rd_wait, walking, fin, sge,
            skip, rest, len_err_r, bad_r, q_valid_r, q_va_r, q_len_r, q_key_r, q_last_r
        );

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
            self.r_sges.d.next = self.sges.val();
            self.sge.d.next = 0.into();
            self.skip.d.next = self.offset.val();
            self.rest.d.next = self.plen.val();
            self.len_err_r.d.next = false;
            self.bad_r.d.next = false;
            self.fin.d.next = false;
            self.fetch.d.next = !self.hit.val();
            self.walking.d.next = self.hit.val();
            if !self.hit.val() {
                self.c_valid.d.next = false;
            }
        }

        // ---- the RQ entry read: address, command, the one beat
        self.idx.next = 0.into();
        for k in 0..16 {
            if self.r_log.q.val().index() > k {
                self.idx.next = self.idx.val().replace_bit(k, self.c_index.q.val().get_bit(k));
            }
        }
        if self.m_rd.ready.val() & self.rd_v.q.val() {
            self.rd_v.d.next = false;
            self.rd_wait.d.next = true;
        }
        if self.fetch.q.val() {
            self.fetch.d.next = false;
            self.rd_v.d.next = true;
            self.rd_addr.d.next = self.r_base.q.val() + (bit_cast::<64, 16>(self.idx.val()) << RW_SHIFT);
        }
        self.m_rd.addr.next = self.rd_addr.q.val();
        self.m_rd.len.next = RW_BYTES.into();
        self.m_rd.valid.next = self.rd_v.q.val();
        self.s_rd.tready.next = self.rd_wait.q.val();
        self.beat.next = self.s_rd.tvalid.val() & self.rd_wait.q.val();
        if self.beat.val() {
            self.rd_wait.d.next = false;
            self.walking.d.next = true;
            self.c_valid.d.next = !self.s_rd.tuser.val().get_bit(0);
            self.c_err.d.next = self.s_rd.tuser.val().get_bit(0);
            self.c_wr_id.d.next = self.s_rd.tdata.val().get_bits::<64>(RW_WR_ID);
            self.c_num.d.next = self.s_rd.tdata.val().get_bits::<8>(RW_NUM_SGE);
            self.c_addr0.d.next = self.s_rd.tdata.val().get_bits::<64>(RW_ADDR0);
            self.c_addr1.d.next = self.s_rd.tdata.val().get_bits::<64>(RW_ADDR1);
            self.c_addr2.d.next = self.s_rd.tdata.val().get_bits::<64>(RW_ADDR2);
            self.c_len0.d.next = self.s_rd.tdata.val().get_bits::<32>(RW_LEN0);
            self.c_len1.d.next = self.s_rd.tdata.val().get_bits::<32>(RW_LEN1);
            self.c_len2.d.next = self.s_rd.tdata.val().get_bits::<32>(RW_LEN2);
            self.c_key0.d.next = self.s_rd.tdata.val().get_bits::<32>(RW_KEY0);
            self.c_key1.d.next = self.s_rd.tdata.val().get_bits::<32>(RW_KEY1);
            self.c_key2.d.next = self.s_rd.tdata.val().get_bits::<32>(RW_KEY2);
        }

        // ---- the walk: one step a cycle while the request register is free
        self.cur_addr.next = self.c_addr0.q.val();
        self.cur_len.next = self.c_len0.q.val();
        self.cur_key.next = self.c_key0.q.val();
        if self.sge.q.val() == 1 {
            self.cur_addr.next = self.c_addr1.q.val();
            self.cur_len.next = self.c_len1.q.val();
            self.cur_key.next = self.c_key1.q.val();
        } else if self.sge.q.val() == 2 {
            self.cur_addr.next = self.c_addr2.q.val();
            self.cur_len.next = self.c_len2.q.val();
            self.cur_key.next = self.c_key2.q.val();
        }
        self.avail.next = self.cur_len.val() - self.skip.q.val();
        self.rest32.next = bit_cast::<32, 16>(self.rest.q.val());
        self.malformed.next = self.c_num.q.val() > RW_MAX_SGE;
        if self.q_ready.val() {
            self.q_valid_r.d.next = false;
        }
        self.step.next = self.walking.q.val() & (!self.q_valid_r.q.val() | self.q_ready.val());
        if self.step.val() {
            if !self.r_sges.q.val() | self.c_err.q.val() | self.malformed.val() {
                // fetch only, or a WQE that cannot be walked
                self.walking.d.next = false;
                self.fin.d.next = true;
                self.bad_r.d.next = self.c_err.q.val() | (self.r_sges.q.val() & self.malformed.val());
            } else if !self.rest.q.val().any() {
                self.walking.d.next = false;
                self.fin.d.next = true;
            } else if bit_cast::<8, 2>(self.sge.q.val()) == self.c_num.q.val() {
                self.walking.d.next = false;
                self.fin.d.next = true;
                self.len_err_r.d.next = true;
            } else if self.skip.q.val() >= self.cur_len.val() {
                self.skip.d.next = self.skip.q.val() - self.cur_len.val();
                self.sge.d.next = self.sge.q.val() + 1;
            } else {
                self.q_valid_r.d.next = true;
                self.q_va_r.d.next = self.cur_addr.val() + bit_cast::<64, 32>(self.skip.q.val());
                self.q_key_r.d.next = self.cur_key.val();
                if self.rest32.val() <= self.avail.val() {
                    self.q_len_r.d.next = self.rest32.val();
                    self.q_last_r.d.next = true;
                    self.skip.d.next = self.skip.q.val() + self.rest32.val();
                    self.rest.d.next = 0.into();
                } else {
                    self.q_len_r.d.next = self.avail.val();
                    self.q_last_r.d.next = false;
                    self.skip.d.next = 0.into();
                    self.rest.d.next = self.rest.q.val() - self.avail.val().get_bits::<16>(0);
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
        self.wr_id.next = self.c_wr_id.q.val();
        self.pos_sge.next = self.sge.q.val();
        self.pos_off.next = self.skip.q.val();

        if self.reset.val() {
            self.c_valid.d.next = false;
            self.fetch.d.next = false;
            self.rd_v.d.next = false;
            self.rd_wait.d.next = false;
            self.walking.d.next = false;
            self.fin.d.next = false;
            self.q_valid_r.d.next = false;
        }
    }
}
