//! `ReadWalk`: a READ response's payload walked over its READ WQE's local
//! scatter list (the requester's side of RDMA READ: `comp_read`, planned in
//! docs/transport_blocks.md, "`read_walk`"). It reads the send WQE again
//! from the send ring by DMA (128 bytes, two beats: the WQE stays in the
//! ring until its completion, and the inflight table keeps no SGEs), keeps
//! its SGEs in registers, and walks the packet's bytes over them with the
//! shared [`SgeWalk`], one translation request (LOCAL_WRITE, by the
//! caller) per SGE piece. Before it reads, it looks the WQE up in its child
//! [`ReadAhead`], where `ReqGen` put the SGEs of every READ and atomic it
//! sent (session 43): a hit spares the read.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `start` + `qpn`, `index`, `fresh`, `offset`, `plen`, `sq_base`, `sq_log` | in | a walk: send WQE `index` of QP `qpn` (its ring at `sq_base`, 2^`sq_log` entries), the response's `plen` bytes at byte `offset` of the READ's message; `fresh`: read the WQE even if held (a new message: `offset` 0) |
//! | `prefetch` + `qpn`, `index`, `sq_base`, `sq_log` | in | read WQE `index` with no walk (never with `start`; only while `pre_busy` and no read are under way): a READ the completer knows is in flight, so its WQE was posted and stays until its responses came (docs/core.md, "Order of the remaining work") |
//! | `pre_busy` | out | a register: a prefetch's read is under way (the parent starts no walk meanwhile) |
//! | `inval` | in | a pulse: a QP context was loaded or invalidated; the WQE held is forgotten, and every one `ReadAhead` holds |
//! | `s_put` ([`ReadWqeIn`]) | in | `ReqGen`'s READ and atomic WQEs as sent, into `ReadAhead` |
//! | `m_rd` / `s_rd` | out / in | DMA read of the WQE at `sq_base` + (`index` mod 2^`sq_log`) x 128 (`len` 128) and its two beats in command order (`tuser[0]`: DMA error); `s_rd.tready` is constant 1 (one command at a time) |
//! | `q` ([`SgeReqOut`], ports `q_*`) | out | the SGE pieces' requests {`va`, `len`, `key`, `last`}, valid/ready, from registers |
//! | `done` | out | a register: the walk is over; with it `len_err` (the payload runs past the SGEs) and `bad` (a DMA error, `NUM_SGE` above `MAX_SGE`, or an INLINE WQE: none can take READ data) |
//!
//! **The WQE held.** Its QPN and index are kept with it; a walk of the
//! same WQE that is not `fresh` uses it (the responses of one READ after
//! its first), anything else reads it again, except that a WQE read by
//! `prefetch` also serves one `fresh` walk of the same QPN and index (the
//! flag `c_pre`, cleared by any start and by `inval`). A start that does
//! not use the WQE held looks it up in `ReadAhead` (`look`) and reads it
//! only when that misses. Latency from `start`: with the WQE held, the
//! first request 2 cycles later (as `RecvWalk`); found in `ReadAhead`,
//! [`READ_WALK_AHEAD_EXTRA`] more; read, [`READ_WALK_READ_EXTRA`] more
//! beside the DMA's latency (command to first beat).

use super::{ReadAhead, ReadWqeIn, SgeReqOut, SgeWalk, READ_AHEAD_LATENCY};
use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::RdCmdOut;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::layouts::send_wqe;
use rust_hdl::prelude::*;

/// Cycles a WQE found in `ReadAhead` adds to a walk's first request (2
/// cycles after `start` with the WQE held): the look.
pub const READ_WALK_AHEAD_EXTRA: u64 = READ_AHEAD_LATENCY;
/// Cycles a WQE read adds to a walk's first request (2 cycles after
/// `start` with the WQE held) beside the DMA's latency (command offered to
/// first beat): the look that missed, the index register, the command
/// register, the second beat.
pub const READ_WALK_READ_EXTRA: u64 = READ_AHEAD_LATENCY + 3;
const _: () = assert!(send_wqe::MAX_SGE == 4 && send_wqe::SIZE == 128);

#[derive(LogicBlock, Default)]
pub struct ReadWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub qpn: Signal<In, Bits<24>>,
    pub index: Signal<In, Bits<16>>,
    pub fresh: Signal<In, Bit>,
    pub offset: Signal<In, Bits<32>>,
    pub plen: Signal<In, Bits<16>>,
    pub sq_base: Signal<In, Bits<64>>,
    pub sq_log: Signal<In, Bits<4>>,
    pub prefetch: Signal<In, Bit>,
    pub pre_busy: Signal<Out, Bit>,
    pub inval: Signal<In, Bit>,
    pub s_put: ReadWqeIn,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub q: SgeReqOut,
    pub done: Signal<Out, Bit>,
    pub len_err: Signal<Out, Bit>,
    pub bad: Signal<Out, Bit>,
    // ---- the WQE held, its tag
    c_valid: Reg<Bit>,
    /// The WQE held was read by `prefetch` and no walk used it yet.
    c_pre: Reg<Bit>,
    /// The read under way is a prefetch: no walk at its end.
    p_only: Reg<Bit>,
    c_qpn: Reg<Bits<24>>,
    c_index: Reg<Bits<16>>,
    w_num: Reg<Bits<8>>,
    w_inline: Reg<Bit>,
    w_err: Reg<Bit>,
    w_sges: Reg<Bits<512>>,
    // ---- the read
    r_base: Reg<Bits<64>>,
    r_idx: Reg<Bits<16>>,
    ask: Reg<Bit>,
    rd_v: Reg<Bit>,
    rd_addr: Reg<Bits<64>>,
    rd_wait: Reg<Bit>,
    second: Reg<Bit>,
    /// A start's look in `ReadAhead` is under way.
    probing: Reg<Bit>,
    ahead: ReadAhead,
    walk: SgeWalk,
    // ---- locals
    hit: Signal<Local, Bit>,
    idx: Signal<Local, Bits<16>>,
    beat: Signal<Local, Bit>,
    last_beat: Signal<Local, Bit>,
    got: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for ReadWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, c_valid, c_pre, p_only, c_qpn, c_index, w_num, w_inline, w_err, w_sges, r_base, r_idx, ask,
            rd_v, rd_addr, rd_wait, second, probing
        );
        clock!(self, clock, walk, ahead);
        self.walk.reset.next = self.reset.val();
        self.ahead.reset.next = self.reset.val();
        ReadWqeIn::link(&mut self.s_put, &mut self.ahead.s_put);
        self.ahead.inval.next = self.inval.val();

        // ---- start: the WQE held is used when it is this QP's entry `index`
        self.hit.next = self.c_valid.q.val()
            & (!self.fresh.val() | self.c_pre.q.val())
            & (self.c_qpn.q.val() == self.qpn.val())
            & (self.c_index.q.val() == self.index.val());
        self.idx.next = 0.into();
        for k in 0..16 {
            if self.sq_log.val().index() > k {
                self.idx.next = self.idx.val().replace_bit(k, self.index.val().get_bit(k));
            }
        }
        if self.start.val() | self.prefetch.val() {
            self.c_qpn.d.next = self.qpn.val();
            self.c_index.d.next = self.index.val();
            self.r_base.d.next = self.sq_base.val();
            self.r_idx.d.next = self.idx.val();
            // (a start that misses looks in `ReadAhead` first)
            self.ask.d.next = false;
            self.probing.d.next = !self.hit.val();
            self.rd_wait.d.next = !self.hit.val();
            self.second.d.next = false;
            if !self.hit.val() {
                self.c_valid.d.next = false;
            }
            self.c_pre.d.next = false;
            self.p_only.d.next = false;
        }
        // a prefetch always reads (a WQE held may be of an earlier lap)
        if self.prefetch.val() & !self.start.val() {
            self.ask.d.next = true;
            self.probing.d.next = false;
            self.rd_wait.d.next = true;
            self.c_valid.d.next = false;
            self.p_only.d.next = true;
        }
        if self.inval.val() {
            self.c_valid.d.next = false;
            self.c_pre.d.next = false;
        }
        // ---- the look: found, the WQE is loaded and walked; else it is read
        self.ahead.look.next = self.start.val() & !self.hit.val();
        self.ahead.look_qpn.next = self.qpn.val();
        self.ahead.look_index.next = self.index.val();
        self.got.next = self.probing.q.val() & self.ahead.found.val() & self.ahead.f_hit.val();
        if self.probing.q.val() & self.ahead.found.val() {
            self.probing.d.next = false;
            self.ask.d.next = !self.ahead.f_hit.val();
        }
        if self.got.val() {
            self.rd_wait.d.next = false;
            self.w_num.d.next = self.ahead.f_num.val();
            self.w_inline.d.next = false;
            self.w_err.d.next = false;
            self.w_sges.d.next = self.ahead.f_sges.val();
            self.c_valid.d.next = !self.inval.val();
        }

        // ---- the WQE's read: command register, then its two beats
        if self.ask.q.val() {
            self.ask.d.next = false;
            self.rd_v.d.next = true;
            self.rd_addr.d.next = self.r_base.q.val() + (bit_cast::<64, 16>(self.r_idx.q.val()) << 7);
        }
        if self.rd_v.q.val() & self.m_rd.ready.val() {
            self.rd_v.d.next = false;
        }
        self.m_rd.addr.next = self.rd_addr.q.val();
        self.m_rd.len.next = 128.into();
        self.m_rd.valid.next = self.rd_v.q.val();
        self.s_rd.tready.next = true;
        self.beat.next = self.s_rd.tvalid.val() & self.rd_wait.q.val();
        self.last_beat.next = self.beat.val() & self.second.q.val();
        if self.beat.val() {
            self.second.d.next = true;
            if self.second.q.val() {
                // bytes 64..127: the SGEs
                self.w_sges.d.next = self.s_rd.tdata.val();
                self.w_err.d.next = self.w_err.q.val() | self.s_rd.tuser.val().get_bit(0);
                self.rd_wait.d.next = false;
                self.c_valid.d.next = !(self.w_err.q.val() | self.s_rd.tuser.val().get_bit(0)) & !self.inval.val();
                self.c_pre.d.next =
                    self.p_only.q.val() & !(self.w_err.q.val() | self.s_rd.tuser.val().get_bit(0)) & !self.inval.val();
                self.p_only.d.next = false;
            } else {
                self.w_num.d.next = self.s_rd.tdata.val().get_bits::<8>(WQE_NUM_SGE);
                self.w_inline.d.next = self.s_rd.tdata.val().get_bit(WQE_INLINE);
                self.w_err.d.next = self.s_rd.tuser.val().get_bit(0);
            }
        }

        // ---- the walk (child) over SGE `sge` of the registers
        self.walk.start.next = self.start.val();
        self.walk.offset.next = self.offset.val();
        self.walk.plen.next = self.plen.val();
        self.walk.go.next =
            (self.start.val() & self.hit.val()) | (self.last_beat.val() & !self.p_only.q.val()) | self.got.val();
        self.pre_busy.next = self.p_only.q.val();
        self.walk.stop.next = self.w_err.q.val() | self.w_inline.q.val() | (self.w_num.q.val() > SW_MAX_SGE);
        self.walk.stop_bad.next = true;
        self.walk.num.next = self.w_num.q.val();
        // SGE `sge`: a 4-way mux of fixed fields
        self.walk.cur_addr.next = self.w_sges.q.val().get_bits::<64>(SW_ADDR0);
        self.walk.cur_len.next = self.w_sges.q.val().get_bits::<32>(SW_LEN0);
        self.walk.cur_key.next = self.w_sges.q.val().get_bits::<32>(SW_KEY0);
        if self.walk.sge.val() == 1 {
            self.walk.cur_addr.next = self.w_sges.q.val().get_bits::<64>(SW_ADDR1);
            self.walk.cur_len.next = self.w_sges.q.val().get_bits::<32>(SW_LEN1);
            self.walk.cur_key.next = self.w_sges.q.val().get_bits::<32>(SW_KEY1);
        } else if self.walk.sge.val() == 2 {
            self.walk.cur_addr.next = self.w_sges.q.val().get_bits::<64>(SW_ADDR2);
            self.walk.cur_len.next = self.w_sges.q.val().get_bits::<32>(SW_LEN2);
            self.walk.cur_key.next = self.w_sges.q.val().get_bits::<32>(SW_KEY2);
        } else if self.walk.sge.val() == 3 {
            self.walk.cur_addr.next = self.w_sges.q.val().get_bits::<64>(SW_ADDR3);
            self.walk.cur_len.next = self.w_sges.q.val().get_bits::<32>(SW_LEN3);
            self.walk.cur_key.next = self.w_sges.q.val().get_bits::<32>(SW_KEY3);
        }
        SgeReqOut::link(&mut self.q, &mut self.walk.q);
        self.done.next = self.walk.done.val();
        self.len_err.next = self.walk.len_err.val();
        self.bad.next = self.walk.bad.val();

        if self.reset.val() {
            self.c_valid.d.next = false;
            self.c_pre.d.next = false;
            self.p_only.d.next = false;
            self.ask.d.next = false;
            self.rd_v.d.next = false;
            self.rd_wait.d.next = false;
            self.probing.d.next = false;
        }
    }
}
