//! `AtomicExec`: the responder's atomics on host memory (child of
//! `Responder`, beside `RespExec`; docs/transport_blocks.md, "`atomic_exec`").
//! `RespExec` hands it one executed COMPARE_SWAP or FETCH_ADD at a time,
//! its 8 bytes already translated (`iova`, 8-byte aligned by `RespCheck`)
//! and every packet placed before it already written; the block reads the
//! 8 bytes, computes the new value, writes it (not for a compare that
//! fails: nothing changes), waits until the write is done and answers the
//! original value. It sits on the responder's two DMA clients, which it
//! borrows while it works:
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_req` ([`AtomicReqIn`]) | in | `iova`, `fadd` (FETCH_ADD, else COMPARE_SWAP), `cmp`, `swap_add`; `ready` a register (idle) |
//! | `m_ans` ([`AtomicAnsOut`]) | out | a pulse from registers: `orig`, `err` (the read or the write failed) |
//! | `s_walk_rd` / `m_walk_rd` | in / out | `RespExec`'s RECV WQE reads (`RecvWalk`): commands in (`ready` from registers), their data out (`tready` not read: `RecvWalk` takes every beat) |
//! | `m_rd` / `s_rd` | out / in | the DMA read client (`HostIf::s_recv_rd` / `m_recv_rd`): commands from a register, data always taken |
//! | `m_wr` | out | the atomic's write beat, from registers: `Responder` puts it on the payload's write client (`HostIf::s_pay_wr`) in the place of `PayloadScatter`'s stream |
//! | `wr_done`, `wr_done_err` / `pay_done`, `pay_done_err` | in / out | the client's write completions, passed on to `PayloadScatter` except the atomic's own |
//!
//! **Sharing the read client.** Commands go out through one register
//! (`c`: loaded when empty, the atomic's first; `s_walk_rd.ready` is that
//! register empty and no atomic waiting, so no `ready` passes through
//! logic, at one command per two cycles, far above `RqAhead`'s need). A
//! client's data comes back in command order, one `tlast` per command.
//! `pend` counts `RecvWalk`'s commands loaded and not yet answered; the
//! atomic's command is loaded with `skip` = `pend`, and its beat is the
//! first after `skip` more `tlast`s: taken here (`m_walk_rd` does not see
//! it), every other beat passes. No FIFO of owners: one atomic at a time
//! needs only the count.
//!
//! **Borrowing the write client.** `RespExec` starts an atomic only when
//! every packet it placed is written (`AckHold`'s counts), and takes no
//! record until the answer, so `PayloadScatter` has no write in progress
//! or outstanding while the atomic writes: `Responder` puts the atomic's
//! beat on the client while `m_wr.tvalid` (the scatter offers nothing then;
//! the multiplexer is the parent's, so no `ready` crosses this block), and
//! the next `wr_done` is the atomic's.
//! Data is address-aligned, so the new value is replicated over the beat
//! and `tkeep` = 0xff << 8 * `iova`[5:3] (registered) picks its lanes; the
//! original value is the 8:1 choice of that word of the read beat.
//!
//! **Atomicity.** The read, the compute and the write happen with the
//! responder held, so no request of any QP reaches host memory in between
//! (IBV_ATOMIC_HCA); the next request's writes follow the atomic's `done`
//! (ordered before every later DMA request, docs/host.md).
//!
//! **Latency** (`tb/tests/atomic_exec.rs`): the read command is offered
//! [`ATOMIC_CMD_LATENCY`] cycles after `s_req` is taken; the write beat
//! [`ATOMIC_WRITE_LATENCY`] cycles after the read's beat; the answer
//! [`ATOMIC_ANS_LATENCY`] after the write's `done` (with nothing to write,
//! `ATOMIC_WRITE_LATENCY` after the beat).

use crate::axis::{AxisIn, AxisOut};
use crate::consts::RQ_AHEAD_ROOM;
use crate::host::{RdCmdIn, RdCmdOut, WrStreamOut};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Cycles from `s_req` taken to the read command offered (the state, then
/// the command register), with the register free.
pub const ATOMIC_CMD_LATENCY: u64 = 2;
/// Cycles from the read's beat taken to the write's beat offered: the
/// original value registered, the new one computed.
pub const ATOMIC_WRITE_LATENCY: u64 = 2;
/// Cycles from the write's `done` to the answer (with nothing to write:
/// from the read's beat, [`ATOMIC_WRITE_LATENCY`]).
pub const ATOMIC_ANS_LATENCY: u64 = 1;
/// Bits of the count of `RecvWalk`'s reads in flight (`RqAhead` keeps at
/// most `RQ_AHEAD_ROOM` in flight and one in its register).
const PEND_BITS: usize = 5;
// (`RqAhead`'s reads in flight, the one in its register, and the atomic's)
const _: () = assert!(RQ_AHEAD_ROOM + 2 < 1 << PEND_BITS);

/// Where the atomic is.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum AtomicState {
    /// No atomic: `s_req` is ready.
    Idle,
    /// The read command offered.
    Read,
    /// Waiting for the read's beat.
    Data,
    /// The new value computed.
    Calc,
    /// The write's beat offered.
    Write,
    /// Waiting for the write's `done`.
    Done,
}

/// An atomic to execute: 8 bytes at `iova`.
#[derive(LogicInterface, Default)]
#[join = "AtomicReqIn"]
pub struct AtomicReqOut {
    pub iova: Signal<Out, Bits<64>>,
    /// FETCH_ADD (else COMPARE_SWAP).
    pub fadd: Signal<Out, Bit>,
    /// The AtomicETH's compare data and swap (or add) data.
    pub cmp: Signal<Out, Bits<64>>,
    pub swap_add: Signal<Out, Bits<64>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "AtomicReqOut"]
pub struct AtomicReqIn {
    pub iova: Signal<In, Bits<64>>,
    pub fadd: Signal<In, Bit>,
    pub cmp: Signal<In, Bits<64>>,
    pub swap_add: Signal<In, Bits<64>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// An atomic's outcome (a pulse): the original value, or `err`.
#[derive(LogicInterface, Default)]
#[join = "AtomicAnsIn"]
pub struct AtomicAnsOut {
    pub orig: Signal<Out, Bits<64>>,
    pub err: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "AtomicAnsOut"]
pub struct AtomicAnsIn {
    pub orig: Signal<In, Bits<64>>,
    pub err: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
}

#[derive(LogicBlock)]
pub struct AtomicExec {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_req: AtomicReqIn,
    pub m_ans: AtomicAnsOut,
    pub s_walk_rd: RdCmdIn,
    pub m_walk_rd: AxisOut<512, 64, 1>,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub m_wr: WrStreamOut,
    pub wr_done: Signal<In, Bit>,
    pub wr_done_err: Signal<In, Bit>,
    pub pay_done: Signal<Out, Bit>,
    pub pay_done_err: Signal<Out, Bit>,
    state: Reg<AtomicState>,
    iova: Reg<Bits<64>>,
    fadd: Reg<Bit>,
    cmp: Reg<Bits<64>>,
    swap_add: Reg<Bits<64>>,
    c_v: Reg<Bit>,
    c_addr: Reg<Bits<64>>,
    c_len: Reg<Bits<32>>,
    pend: Reg<Bits<PEND_BITS>>,
    skip: Reg<Bits<PEND_BITS>>,
    orig: Reg<Bits<64>>,
    err: Reg<Bit>,
    new: Reg<Bits<64>>,
    keep: Reg<Bits<64>>,
    ans_valid: Reg<Bit>,
    byte_ones: Constant<Bits<64>>,
    // ---- locals
    word: Signal<Local, Bits<64>>,
    walk_cmd: Signal<Local, Bit>,
    walk_end: Signal<Local, Bit>,
    mine: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for AtomicExec {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, iova, fadd, cmp, swap_add, c_v, c_addr, c_len, pend, skip, orig, err, new, keep,
            ans_valid
        );

        // ---- a request (only when idle)
        self.s_req.ready.next = self.state.q.val() == AtomicState::Idle;
        if self.s_req.valid.val() & (self.state.q.val() == AtomicState::Idle) {
            self.state.d.next = AtomicState::Read;
            self.iova.d.next = self.s_req.iova.val();
            self.fadd.d.next = self.s_req.fadd.val();
            self.cmp.d.next = self.s_req.cmp.val();
            self.swap_add.d.next = self.s_req.swap_add.val();
            self.err.d.next = false;
        }

        // ---- the read client: one command register, the atomic's command first
        self.m_rd.addr.next = self.c_addr.q.val();
        self.m_rd.len.next = self.c_len.q.val();
        self.m_rd.valid.next = self.c_v.q.val();
        if self.m_rd.ready.val() {
            self.c_v.d.next = false;
        }
        self.s_walk_rd.ready.next = !self.c_v.q.val() & (self.state.q.val() != AtomicState::Read);
        self.walk_cmd.next = self.s_walk_rd.valid.val() & !self.c_v.q.val() & (self.state.q.val() != AtomicState::Read);
        if self.walk_cmd.val() {
            self.c_v.d.next = true;
            self.c_addr.d.next = self.s_walk_rd.addr.val();
            self.c_len.d.next = self.s_walk_rd.len.val();
        }
        // the walk's data passes (its consumer takes every beat), except the
        // atomic's: the first after `skip` of the walk's commands ended
        self.mine.next = (self.state.q.val() == AtomicState::Data) & !self.skip.q.val().any();
        self.m_walk_rd.tdata.next = self.s_rd.tdata.val();
        self.m_walk_rd.tkeep.next = self.s_rd.tkeep.val();
        self.m_walk_rd.tlast.next = self.s_rd.tlast.val();
        self.m_walk_rd.tuser.next = self.s_rd.tuser.val();
        self.m_walk_rd.tvalid.next = self.s_rd.tvalid.val() & !self.mine.val();
        self.s_rd.tready.next = true;
        self.walk_end.next = self.s_rd.tvalid.val() & self.s_rd.tlast.val() & !self.mine.val();
        if self.walk_cmd.val() & !self.walk_end.val() {
            self.pend.d.next = self.pend.q.val() + 1;
        }
        if !self.walk_cmd.val() & self.walk_end.val() {
            self.pend.d.next = self.pend.q.val() - 1;
        }
        if (self.state.q.val() == AtomicState::Read) & !self.c_v.q.val() {
            self.c_v.d.next = true;
            self.c_addr.d.next = self.iova.q.val();
            self.c_len.d.next = 8.into();
            self.state.d.next = AtomicState::Data;
            self.skip.d.next = self.pend.q.val();
            if self.walk_end.val() {
                self.skip.d.next = self.pend.q.val() - 1;
            }
        }
        if (self.state.q.val() == AtomicState::Data) & self.walk_end.val() {
            self.skip.d.next = self.skip.q.val() - 1;
        }

        // ---- the original value: the 8-byte word of the beat at iova[5:3]
        // (a shift by a multiple of 64: an 8:1 multiplexer per bit)
        self.word.next =
            (self.s_rd.tdata.val() >> (bit_cast::<9, 3>(self.iova.q.val().get_bits::<3>(3)) << 6)).get_bits::<64>(0);
        if self.mine.val() & self.s_rd.tvalid.val() {
            self.state.d.next = AtomicState::Calc;
            self.orig.d.next = self.word.val();
            self.err.d.next = self.s_rd.tuser.val().any();
        }
        // ---- the new value, and whether it is written (a FETCH_ADD, a
        // compare that matched; not after a failed read)
        self.ans_valid.d.next = false;
        if self.state.q.val() == AtomicState::Calc {
            self.new.d.next = self.swap_add.q.val();
            self.state.d.next = AtomicState::Write;
            if self.fadd.q.val() {
                self.new.d.next = self.orig.q.val() + self.swap_add.q.val();
            } else if self.orig.q.val() != self.cmp.q.val() {
                self.state.d.next = AtomicState::Idle;
                self.ans_valid.d.next = true;
            }
            if self.err.q.val() {
                self.state.d.next = AtomicState::Idle;
                self.ans_valid.d.next = true;
            }
        }
        self.keep.d.next = self.byte_ones.val() << (bit_cast::<6, 3>(self.iova.q.val().get_bits::<3>(3)) << 3);

        // ---- the write: one beat, the new value in every word, `tkeep` its lanes
        self.m_wr.tdata.next = bit_cast::<512, 64>(self.new.q.val())
            | (bit_cast::<512, 64>(self.new.q.val()) << 64)
            | (bit_cast::<512, 64>(self.new.q.val()) << 128)
            | (bit_cast::<512, 64>(self.new.q.val()) << 192)
            | (bit_cast::<512, 64>(self.new.q.val()) << 256)
            | (bit_cast::<512, 64>(self.new.q.val()) << 320)
            | (bit_cast::<512, 64>(self.new.q.val()) << 384)
            | (bit_cast::<512, 64>(self.new.q.val()) << 448);
        self.m_wr.tkeep.next = self.keep.q.val();
        self.m_wr.tlast.next = true;
        self.m_wr.addr.next = self.iova.q.val();
        self.m_wr.len.next = 8.into();
        self.m_wr.tvalid.next = self.state.q.val() == AtomicState::Write;
        if (self.state.q.val() == AtomicState::Write) & self.m_wr.tready.val() {
            self.state.d.next = AtomicState::Done;
        }
        // the write's completion is the atomic's while it waits for it
        self.pay_done.next = self.wr_done.val() & (self.state.q.val() != AtomicState::Done);
        self.pay_done_err.next = self.wr_done_err.val();
        if (self.state.q.val() == AtomicState::Done) & self.wr_done.val() {
            self.state.d.next = AtomicState::Idle;
            self.ans_valid.d.next = true;
            self.err.d.next = self.wr_done_err.val();
        }

        // ---- the answer: a pulse from registers
        self.m_ans.orig.next = self.orig.q.val();
        self.m_ans.err.next = self.err.q.val();
        self.m_ans.valid.next = self.ans_valid.q.val();

        if self.reset.val() {
            self.state.d.next = AtomicState::Idle;
            self.c_v.d.next = false;
            self.pend.d.next = 0.into();
            self.ans_valid.d.next = false;
        }
    }
}

impl Default for AtomicExec {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_req: Default::default(),
            m_ans: Default::default(),
            s_walk_rd: Default::default(),
            m_walk_rd: Default::default(),
            m_rd: Default::default(),
            s_rd: Default::default(),
            m_wr: Default::default(),
            wr_done: Default::default(),
            wr_done_err: Default::default(),
            pay_done: Default::default(),
            pay_done_err: Default::default(),
            state: Default::default(),
            iova: Default::default(),
            fadd: Default::default(),
            cmp: Default::default(),
            swap_add: Default::default(),
            c_v: Default::default(),
            c_addr: Default::default(),
            c_len: Default::default(),
            pend: Default::default(),
            skip: Default::default(),
            orig: Default::default(),
            err: Default::default(),
            new: Default::default(),
            keep: Default::default(),
            ans_valid: Default::default(),
            byte_ones: Constant::new(0xff.into()),
            word: Default::default(),
            walk_cmd: Default::default(),
            walk_end: Default::default(),
            mine: Default::default(),
            kind: Default::default(),
        }
    }
}
