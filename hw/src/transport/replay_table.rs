//! `ReplayTable`: the responder's READ and atomic resources in host memory,
//! and the search a duplicate READ or atomic needs (issue 12 item 2;
//! docs/replay_plan.md, docs/transport_blocks.md "`replay_table`"). A child
//! of `Responder` beside `RespExec`, which puts and finds one at a time.
//!
//! Each QP has 16 slots of the contract's `resource` layout (32 bytes) at
//! `base + QPN * 512 + slot * 32`; `RespCheck` keeps the window of slots in
//! use in the QP's `qps` (`REPLAY_HEAD`, `REPLAY_COUNT`), and an executed
//! READ or atomic fills slot `HEAD' + COUNT' - 1` of its new state.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `base` | in | the table's IOVA (`RegFile`'s `replay_base`) |
//! | `s_put` ([`ReplayPutIn`]) | in | a resource to write: `qpn`, `slot`, `atomic`, `first_psn`, `end_psn` (the record's new EPSN: a READ's last PSN is `end_psn - 1`), `va` (a READ's RETH VA, an atomic's original value), `rkey`, `len`; `ready` a register |
//! | `s_find` ([`ReplayFindIn`]) | in | a duplicate: `qpn`, `psn`, `atomic`, its RETH `va`/`rkey`/`len`, the QP's window `head`/`count` and `pmtu`; `ready` a register (idle) |
//! | `m_found` ([`ReplayFoundOut`]) | out | a pulse from registers: `hit`, and an atomic's saved `orig` |
//! | `m_wr`, `wr_done` | out, in | one 32-byte write per put (one beat, the entry in both halves, `tkeep` its 32 lanes); its completion |
//! | `m_rd` / `s_rd` | out / in | one 512-byte read per find (8 beats of two slots); every beat taken |
//!
//! **The search is the model's** (`rnic_proto::rc::responder`, `duplicate`):
//! among the QP's live slots (VALID, inside the window, of the duplicate's
//! kind) the oldest whose PSN range holds the duplicate's PSN decides; a
//! READ is replayed only when the rkey is the original's and the duplicate
//! asks the tail of the original buffer from its PSN on (`va = VA + k *
//! PMTU`, `len = LEN - k * PMTU`, `k` its distance from `FIRST_PSN`); an
//! atomic is answered with the saved original value. Anything else (no
//! slot, or a READ error) is a miss: the caller drops the duplicate.
//!
//! **Order.** A find reads the table only when no put is waiting and no
//! put of its QP is written and not complete (`puts_out`, an
//! [`RxInflight`] of the puts' QPNs, retired in order by `wr_done`): the
//! DMA engine orders a completed write before every later request, so a
//! duplicate sees the resources of every record of its QP before it, and
//! no response waits for a resource's write. Other QPs' puts are not
//! waited for: their slots are other addresses.
//!
//! **Timing.** Each beat's two entries go through [`ReplayMatch`], four
//! register stages (the differences, the range and the skip, the 64-bit
//! sum, the compare), then the pair's older match is registered and folded
//! into the best so far. The answer is [`REPLAY_FIND_LATENCY`] cycles after
//! the last beat is taken.

use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::{RdCmdOut, WrStreamOut};
use crate::prim::Reg;
use crate::transport::RxInflight;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

const _: () = assert!(REPLAY_ENTRY_BITS == 256 && 1 << REPLAY_QP_SHIFT == REPLAY_QP_BYTES);
/// Cycles from a find's last read beat taken to `m_found`.
pub const REPLAY_FIND_LATENCY: u64 = 8;

/// A resource to remember.
#[derive(LogicInterface, Default)]
#[join = "ReplayPutIn"]
pub struct ReplayPutOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub slot: Signal<Out, Bits<4>>,
    pub atomic: Signal<Out, Bit>,
    pub first_psn: Signal<Out, Bits<24>>,
    pub end_psn: Signal<Out, Bits<24>>,
    pub va: Signal<Out, Bits<64>>,
    pub rkey: Signal<Out, Bits<32>>,
    pub len: Signal<Out, Bits<32>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReplayPutOut"]
pub struct ReplayPutIn {
    pub qpn: Signal<In, Bits<24>>,
    pub slot: Signal<In, Bits<4>>,
    pub atomic: Signal<In, Bit>,
    pub first_psn: Signal<In, Bits<24>>,
    pub end_psn: Signal<In, Bits<24>>,
    pub va: Signal<In, Bits<64>>,
    pub rkey: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<32>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A duplicate READ or atomic to look up.
#[derive(LogicInterface, Default)]
#[join = "ReplayFindIn"]
pub struct ReplayFindOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub psn: Signal<Out, Bits<24>>,
    pub atomic: Signal<Out, Bit>,
    pub va: Signal<Out, Bits<64>>,
    pub rkey: Signal<Out, Bits<32>>,
    pub len: Signal<Out, Bits<32>>,
    pub head: Signal<Out, Bits<4>>,
    pub count: Signal<Out, Bits<5>>,
    pub pmtu: Signal<Out, Bits<3>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReplayFindOut"]
pub struct ReplayFindIn {
    pub qpn: Signal<In, Bits<24>>,
    pub psn: Signal<In, Bits<24>>,
    pub atomic: Signal<In, Bit>,
    pub va: Signal<In, Bits<64>>,
    pub rkey: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<32>>,
    pub head: Signal<In, Bits<4>>,
    pub count: Signal<In, Bits<5>>,
    pub pmtu: Signal<In, Bits<3>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A find's answer (a pulse).
#[derive(LogicInterface, Default)]
#[join = "ReplayFoundIn"]
pub struct ReplayFoundOut {
    pub hit: Signal<Out, Bit>,
    pub orig: Signal<Out, Bits<64>>,
    pub valid: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReplayFoundOut"]
pub struct ReplayFoundIn {
    pub hit: Signal<In, Bit>,
    pub orig: Signal<In, Bits<64>>,
    pub valid: Signal<In, Bit>,
}

/// Where a find is.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum FindState {
    /// No find: `s_find` is ready.
    Idle,
    /// Waiting for the put taken before the find to be written, then
    /// comparing its QPN with the puts not complete.
    Wait,
    /// Waiting for the QP's puts to complete.
    Check,
    /// The read's beats coming.
    Beats,
    /// The last pair folded: the answer next.
    Answer,
}

#[derive(LogicBlock)]
pub struct ReplayTable {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub base: Signal<In, Bits<64>>,
    pub s_put: ReplayPutIn,
    pub s_find: ReplayFindIn,
    pub m_found: ReplayFoundOut,
    pub m_wr: WrStreamOut,
    pub wr_done: Signal<In, Bit>,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    // ---- the put
    p_valid: Reg<Bit>,
    p_addr: Reg<Bits<64>>,
    p_keep: Reg<Bits<64>>,
    p_data: Reg<Bits<REPLAY_ENTRY_BITS>>,
    p_qpn: Reg<Bits<24>>,
    /// The QPNs of the puts written and not complete (at most 16 in flight).
    puts_out: RxInflight,
    lo_keep: Constant<Bits<64>>,
    hi_keep: Constant<Bits<64>>,
    // ---- the find
    state: Reg<FindState>,
    f_psn: Reg<Bits<24>>,
    f_atomic: Reg<Bit>,
    f_va: Reg<Bits<64>>,
    f_rkey: Reg<Bits<32>>,
    f_len: Reg<Bits<32>>,
    f_head: Reg<Bits<4>>,
    f_count: Reg<Bits<5>>,
    f_pmtu: Reg<Bits<3>>,
    f_addr: Reg<Bits<64>>,
    f_qpn: Reg<Bits<24>>,
    c_v: Reg<Bit>,
    b_cnt: Reg<Bits<3>>,
    b_v: Reg<Bit>,
    b_last: Reg<Bit>,
    b_idx: Reg<Bits<3>>,
    b_data: Reg<Bits<512>>,
    err: Reg<Bit>,
    m0: ReplayMatch,
    m1: ReplayMatch,
    // the pair's older match, then the best so far
    q_v: Reg<Bit>,
    q_last: Reg<Bit>,
    q_in: Reg<Bit>,
    q_inside: Reg<Bit>,
    q_age: Reg<Bits<4>>,
    q_orig: Reg<Bits<64>>,
    best_found: Reg<Bit>,
    best_inside: Reg<Bit>,
    best_age: Reg<Bits<4>>,
    best_orig: Reg<Bits<64>>,
    ans_v: Reg<Bit>,
    ans_hit: Reg<Bit>,
    ans_orig: Reg<Bits<64>>,
    // ---- locals
    put_take: Signal<Local, Bit>,
    wr_beat: Signal<Local, Bit>,
    entry: Signal<Local, Bits<REPLAY_ENTRY_BITS>>,
    last_psn: Signal<Local, Bits<24>>,
    take0: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for ReplayTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            p_valid,
            p_addr,
            p_keep,
            p_data,
            p_qpn,
            state,
            f_psn,
            f_atomic,
            f_va,
            f_rkey,
            f_len,
            f_head,
            f_count,
            f_pmtu,
            f_addr,
            f_qpn,
            c_v,
            b_cnt,
            b_v,
            b_last,
            b_idx,
            b_data,
            err,
            q_v,
            q_last,
            q_in,
            q_inside,
            q_age,
            q_orig,
            best_found,
            best_inside,
            best_age,
            best_orig,
            ans_v,
            ans_hit,
            ans_orig
        );
        clock!(self, clock, m0, m1, puts_out);

        // ---- the put: one register, its entry encoded as it is taken
        self.s_put.ready.next = !self.p_valid.q.val();
        self.put_take.next = self.s_put.valid.val() & !self.p_valid.q.val();
        self.last_psn.next = self.s_put.end_psn.val() - 1;
        if self.s_put.atomic.val() {
            self.last_psn.next = self.s_put.first_psn.val();
        }
        self.entry.next = (bit_cast::<REPLAY_ENTRY_BITS, 24>(self.s_put.first_psn.val()) << RP_FIRST_PSN)
            | (bit_cast::<REPLAY_ENTRY_BITS, 1>(true.into()) << RP_VALID)
            | (bit_cast::<REPLAY_ENTRY_BITS, 1>(self.s_put.atomic.val().into()) << RP_ATOMIC)
            | (bit_cast::<REPLAY_ENTRY_BITS, 24>(self.last_psn.val()) << RP_LAST_PSN)
            | (bit_cast::<REPLAY_ENTRY_BITS, 64>(self.s_put.va.val()) << RP_VA)
            | (bit_cast::<REPLAY_ENTRY_BITS, 32>(self.s_put.rkey.val()) << RP_RKEY)
            | (bit_cast::<REPLAY_ENTRY_BITS, 32>(self.s_put.len.val()) << RP_LEN);
        if self.put_take.val() {
            self.p_valid.d.next = true;
            // the QP's slots are 512-byte aligned: the slot's offset is ORed in
            self.p_addr.d.next = (self.base.val() + (bit_cast::<64, 24>(self.s_put.qpn.val()) << REPLAY_QP_SHIFT))
                | (bit_cast::<64, 4>(self.s_put.slot.val()) << 5);
            self.p_keep.d.next = self.lo_keep.val();
            if self.s_put.slot.val().get_bit(0) {
                self.p_keep.d.next = self.hi_keep.val();
            }
            self.p_data.d.next = self.entry.val();
            self.p_qpn.d.next = self.s_put.qpn.val();
        }
        // address-aligned data: the entry in both halves, `tkeep` picks its lanes
        self.m_wr.tdata.next = bit_cast::<512, REPLAY_ENTRY_BITS>(self.p_data.q.val())
            | (bit_cast::<512, REPLAY_ENTRY_BITS>(self.p_data.q.val()) << 256);
        self.m_wr.tkeep.next = self.p_keep.q.val();
        self.m_wr.tlast.next = true;
        self.m_wr.addr.next = self.p_addr.q.val();
        self.m_wr.len.next = 32.into();
        // a put is written when `puts_out` has room for its QPN (a register)
        self.m_wr.tvalid.next = self.p_valid.q.val() & self.puts_out.room.val();
        self.wr_beat.next = self.p_valid.q.val() & self.puts_out.room.val() & self.m_wr.tready.val();
        if self.wr_beat.val() {
            self.p_valid.d.next = false;
        }
        self.puts_out.reset.next = self.reset.val();
        self.puts_out.push.next = self.wr_beat.val();
        self.puts_out.push_qpn.next = self.p_qpn.q.val();
        self.puts_out.drop.next = false;
        self.puts_out.drop_idx.next = 0.into();
        // write completions come in issue order
        self.puts_out.retire.next = self.wr_done.val();

        // ---- the find: wait for the QP's puts, read its 16 slots
        self.s_find.ready.next = self.state.q.val() == FindState::Idle;
        if self.s_find.valid.val() & (self.state.q.val() == FindState::Idle) {
            self.state.d.next = FindState::Wait;
            self.f_psn.d.next = self.s_find.psn.val();
            self.f_atomic.d.next = self.s_find.atomic.val();
            self.f_va.d.next = self.s_find.va.val();
            self.f_rkey.d.next = self.s_find.rkey.val();
            self.f_len.d.next = self.s_find.len.val();
            self.f_head.d.next = self.s_find.head.val();
            self.f_count.d.next = self.s_find.count.val();
            self.f_pmtu.d.next = self.s_find.pmtu.val();
            self.f_addr.d.next = self.base.val() + (bit_cast::<64, 24>(self.s_find.qpn.val()) << REPLAY_QP_SHIFT);
            self.f_qpn.d.next = self.s_find.qpn.val();
            self.best_found.d.next = false;
            self.err.d.next = false;
            self.b_cnt.d.next = 0.into();
        }
        self.m_rd.addr.next = self.f_addr.q.val();
        self.m_rd.len.next = REPLAY_QP_BYTES.into();
        self.m_rd.valid.next = self.c_v.q.val();
        if self.m_rd.ready.val() {
            self.c_v.d.next = false;
        }
        // the probe compares the puts not complete, once no put waits to be
        // written (no push in its cycle); `hazard` is then from registers
        self.puts_out.probe.next = (self.state.q.val() == FindState::Wait) & !self.p_valid.q.val();
        self.puts_out.probe_qpn.next = self.f_qpn.q.val();
        if (self.state.q.val() == FindState::Wait) & !self.p_valid.q.val() {
            self.state.d.next = FindState::Check;
        }
        if (self.state.q.val() == FindState::Check) & !self.puts_out.hazard.val() {
            self.state.d.next = FindState::Beats;
            self.c_v.d.next = true;
        }
        // every beat is taken; beat i holds slots 2i and 2i + 1
        self.s_rd.tready.next = true;
        self.b_v.d.next = self.s_rd.tvalid.val() & (self.state.q.val() == FindState::Beats);
        self.b_data.d.next = self.s_rd.tdata.val();
        self.b_last.d.next = self.s_rd.tlast.val();
        self.b_idx.d.next = self.b_cnt.q.val();
        if self.s_rd.tvalid.val() & (self.state.q.val() == FindState::Beats) {
            self.b_cnt.d.next = self.b_cnt.q.val() + 1;
            if self.s_rd.tuser.val().any() {
                self.err.d.next = true;
            }
        }

        // ---- the two entries of a beat
        self.m0.v.next = self.b_v.q.val();
        self.m0.last.next = self.b_last.q.val();
        self.m0.entry.next = self.b_data.q.val().get_bits::<REPLAY_ENTRY_BITS>(0);
        self.m0.slot.next = bit_cast::<4, 3>(self.b_idx.q.val()) << 1;
        self.m1.v.next = self.b_v.q.val();
        self.m1.last.next = self.b_last.q.val();
        self.m1.entry.next = self.b_data.q.val().get_bits::<REPLAY_ENTRY_BITS>(REPLAY_ENTRY_BITS);
        self.m1.slot.next = (bit_cast::<4, 3>(self.b_idx.q.val()) << 1) | 1;
        self.m0.psn.next = self.f_psn.q.val();
        self.m0.atomic.next = self.f_atomic.q.val();
        self.m0.va.next = self.f_va.q.val();
        self.m0.rkey.next = self.f_rkey.q.val();
        self.m0.len.next = self.f_len.q.val();
        self.m0.head.next = self.f_head.q.val();
        self.m0.count.next = self.f_count.q.val();
        self.m0.pmtu.next = self.f_pmtu.q.val();
        self.m1.psn.next = self.f_psn.q.val();
        self.m1.atomic.next = self.f_atomic.q.val();
        self.m1.va.next = self.f_va.q.val();
        self.m1.rkey.next = self.f_rkey.q.val();
        self.m1.len.next = self.f_len.q.val();
        self.m1.head.next = self.f_head.q.val();
        self.m1.count.next = self.f_count.q.val();
        self.m1.pmtu.next = self.f_pmtu.q.val();

        // ---- the pair's older match (ages differ: one slot each)
        self.take0.next = self.m0.o_in.val() & (!self.m1.o_in.val() | (self.m0.o_age.val() < self.m1.o_age.val()));
        self.q_v.d.next = self.m0.o_v.val();
        self.q_last.d.next = self.m0.o_last.val();
        self.q_in.d.next = self.m0.o_in.val() | self.m1.o_in.val();
        self.q_inside.d.next = self.m1.o_inside.val();
        self.q_age.d.next = self.m1.o_age.val();
        self.q_orig.d.next = self.m1.o_orig.val();
        if self.take0.val() {
            self.q_inside.d.next = self.m0.o_inside.val();
            self.q_age.d.next = self.m0.o_age.val();
            self.q_orig.d.next = self.m0.o_orig.val();
        }
        // ---- folded into the oldest so far
        if self.q_v.q.val()
            & self.q_in.q.val()
            & (!self.best_found.q.val() | (self.q_age.q.val() < self.best_age.q.val()))
        {
            self.best_found.d.next = true;
            self.best_inside.d.next = self.q_inside.q.val();
            self.best_age.d.next = self.q_age.q.val();
            self.best_orig.d.next = self.q_orig.q.val();
        }
        if self.q_v.q.val() & self.q_last.q.val() {
            self.state.d.next = FindState::Answer;
        }
        // ---- the answer: a pulse from registers
        self.ans_v.d.next = false;
        if self.state.q.val() == FindState::Answer {
            self.state.d.next = FindState::Idle;
            self.ans_v.d.next = true;
            self.ans_hit.d.next =
                self.best_found.q.val() & (self.f_atomic.q.val() | self.best_inside.q.val()) & !self.err.q.val();
            self.ans_orig.d.next = self.best_orig.q.val();
        }
        self.m_found.valid.next = self.ans_v.q.val();
        self.m_found.hit.next = self.ans_hit.q.val();
        self.m_found.orig.next = self.ans_orig.q.val();

        if self.reset.val() {
            self.p_valid.d.next = false;
            self.state.d.next = FindState::Idle;
            self.c_v.d.next = false;
            self.b_v.d.next = false;
            self.q_v.d.next = false;
            self.ans_v.d.next = false;
        }
    }
}

impl Default for ReplayTable {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            base: Default::default(),
            s_put: Default::default(),
            s_find: Default::default(),
            m_found: Default::default(),
            m_wr: Default::default(),
            wr_done: Default::default(),
            m_rd: Default::default(),
            s_rd: Default::default(),
            p_valid: Default::default(),
            p_addr: Default::default(),
            p_keep: Default::default(),
            p_data: Default::default(),
            p_qpn: Default::default(),
            puts_out: Default::default(),
            lo_keep: Constant::new(0xFFFF_FFFFu64.into()),
            hi_keep: Constant::new(0xFFFF_FFFF_0000_0000u64.into()),
            state: Default::default(),
            f_psn: Default::default(),
            f_atomic: Default::default(),
            f_va: Default::default(),
            f_rkey: Default::default(),
            f_len: Default::default(),
            f_head: Default::default(),
            f_count: Default::default(),
            f_pmtu: Default::default(),
            f_addr: Default::default(),
            f_qpn: Default::default(),
            c_v: Default::default(),
            b_cnt: Default::default(),
            b_v: Default::default(),
            b_last: Default::default(),
            b_idx: Default::default(),
            b_data: Default::default(),
            err: Default::default(),
            m0: Default::default(),
            m1: Default::default(),
            q_v: Default::default(),
            q_last: Default::default(),
            q_in: Default::default(),
            q_inside: Default::default(),
            q_age: Default::default(),
            q_orig: Default::default(),
            best_found: Default::default(),
            best_inside: Default::default(),
            best_age: Default::default(),
            best_orig: Default::default(),
            ans_v: Default::default(),
            ans_hit: Default::default(),
            ans_orig: Default::default(),
            put_take: Default::default(),
            wr_beat: Default::default(),
            entry: Default::default(),
            last_psn: Default::default(),
            take0: Default::default(),
            kind: Default::default(),
        }
    }
}

/// One slot against a duplicate, in four register stages (a child of
/// [`ReplayTable`], twice): `o_in` the slot is live and its PSN range holds
/// the duplicate's, `o_inside` the duplicate asks the tail of its buffer
/// with its rkey (READ), `o_age` its distance from HEAD, `o_orig` its VA
/// field (an atomic's original value).
#[derive(LogicBlock, Default)]
pub struct ReplayMatch {
    pub clock: Signal<In, Clock>,
    pub v: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub entry: Signal<In, Bits<REPLAY_ENTRY_BITS>>,
    pub slot: Signal<In, Bits<4>>,
    pub psn: Signal<In, Bits<24>>,
    pub atomic: Signal<In, Bit>,
    pub va: Signal<In, Bits<64>>,
    pub rkey: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<32>>,
    pub head: Signal<In, Bits<4>>,
    pub count: Signal<In, Bits<5>>,
    pub pmtu: Signal<In, Bits<3>>,
    pub o_v: Signal<Out, Bit>,
    pub o_last: Signal<Out, Bit>,
    pub o_in: Signal<Out, Bit>,
    pub o_inside: Signal<Out, Bit>,
    pub o_age: Signal<Out, Bits<4>>,
    pub o_orig: Signal<Out, Bits<64>>,
    // S1: the differences
    s1_v: Reg<Bit>,
    s1_last: Reg<Bit>,
    s1_k: Reg<Bits<24>>,
    s1_span: Reg<Bits<24>>,
    s1_age: Reg<Bits<4>>,
    s1_live: Reg<Bit>,
    s1_rkey_eq: Reg<Bit>,
    s1_va: Reg<Bits<64>>,
    s1_len: Reg<Bits<32>>,
    // S2: the range, the bytes skipped
    s2_v: Reg<Bit>,
    s2_last: Reg<Bit>,
    s2_in: Reg<Bit>,
    s2_skip: Reg<Bits<36>>,
    s2_age: Reg<Bits<4>>,
    s2_rkey_eq: Reg<Bit>,
    s2_va: Reg<Bits<64>>,
    s2_len: Reg<Bits<32>>,
    // S3: the tail asked for
    s3_v: Reg<Bit>,
    s3_last: Reg<Bit>,
    s3_in: Reg<Bit>,
    s3_sum: Reg<Bits<64>>,
    s3_need: Reg<Bits<32>>,
    s3_le: Reg<Bit>,
    s3_age: Reg<Bits<4>>,
    s3_rkey_eq: Reg<Bit>,
    s3_orig: Reg<Bits<64>>,
    // S4: the outputs
    s4_v: Reg<Bit>,
    s4_last: Reg<Bit>,
    s4_in: Reg<Bit>,
    s4_inside: Reg<Bit>,
    s4_age: Reg<Bits<4>>,
    s4_orig: Reg<Bits<64>>,
    first: Signal<Local, Bits<24>>,
    age: Signal<Local, Bits<4>>,
    skip_k: Signal<Local, Bits<36>>,
    kind: TypeTag<Self>,
}

impl Logic for ReplayMatch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_v, s1_last, s1_k, s1_span, s1_age, s1_live, s1_rkey_eq, s1_va, s1_len, s2_v, s2_last,
            s2_in, s2_skip, s2_age, s2_rkey_eq, s2_va, s2_len, s3_v, s3_last, s3_in, s3_sum, s3_need, s3_le, s3_age,
            s3_rkey_eq, s3_orig, s4_v, s4_last, s4_in, s4_inside, s4_age, s4_orig
        );
        // ---- S1
        self.first.next = bit_cast::<24, REPLAY_ENTRY_BITS>(self.entry.val() >> RP_FIRST_PSN);
        self.s1_v.d.next = self.v.val();
        self.s1_last.d.next = self.last.val();
        self.s1_k.d.next = self.psn.val() - self.first.val();
        self.s1_span.d.next = bit_cast::<24, REPLAY_ENTRY_BITS>(self.entry.val() >> RP_LAST_PSN) - self.first.val();
        self.age.next = self.slot.val() - self.head.val();
        self.s1_age.d.next = self.age.val();
        self.s1_live.d.next = (self.entry.val() >> RP_VALID).get_bit(0)
            & ((self.entry.val() >> RP_ATOMIC).get_bit(0) == self.atomic.val())
            & (bit_cast::<5, 4>(self.age.val()) < self.count.val());
        self.s1_rkey_eq.d.next = bit_cast::<32, REPLAY_ENTRY_BITS>(self.entry.val() >> RP_RKEY) == self.rkey.val();
        self.s1_va.d.next = bit_cast::<64, REPLAY_ENTRY_BITS>(self.entry.val() >> RP_VA);
        self.s1_len.d.next = bit_cast::<32, REPLAY_ENTRY_BITS>(self.entry.val() >> RP_LEN);
        // ---- S2: an atomic's PSN is its only one; k PMTUs skipped (a fixed-offset choice)
        self.s2_v.d.next = self.s1_v.q.val();
        self.s2_last.d.next = self.s1_last.q.val();
        self.s2_in.d.next = self.s1_live.q.val() & (self.s1_k.q.val() <= self.s1_span.q.val());
        if self.atomic.val() {
            self.s2_in.d.next = self.s1_live.q.val() & !self.s1_k.q.val().any();
        }
        self.skip_k.next = bit_cast::<36, 24>(self.s1_k.q.val()) << 8;
        if self.pmtu.val() == MTU_512 {
            self.skip_k.next = bit_cast::<36, 24>(self.s1_k.q.val()) << 9;
        } else if self.pmtu.val() == MTU_1024 {
            self.skip_k.next = bit_cast::<36, 24>(self.s1_k.q.val()) << 10;
        } else if self.pmtu.val() == MTU_2048 {
            self.skip_k.next = bit_cast::<36, 24>(self.s1_k.q.val()) << 11;
        } else if self.pmtu.val() == MTU_4096 {
            self.skip_k.next = bit_cast::<36, 24>(self.s1_k.q.val()) << 12;
        }
        self.s2_skip.d.next = self.skip_k.val();
        self.s2_age.d.next = self.s1_age.q.val();
        self.s2_rkey_eq.d.next = self.s1_rkey_eq.q.val();
        self.s2_va.d.next = self.s1_va.q.val();
        self.s2_len.d.next = self.s1_len.q.val();
        // ---- S3: the tail from that PSN on
        self.s3_v.d.next = self.s2_v.q.val();
        self.s3_last.d.next = self.s2_last.q.val();
        self.s3_in.d.next = self.s2_in.q.val();
        self.s3_sum.d.next = self.s2_va.q.val() + bit_cast::<64, 36>(self.s2_skip.q.val());
        self.s3_need.d.next = self.s2_len.q.val() - self.s2_skip.q.val().get_bits::<32>(0);
        self.s3_le.d.next = self.s2_skip.q.val() <= bit_cast::<36, 32>(self.s2_len.q.val());
        self.s3_age.d.next = self.s2_age.q.val();
        self.s3_rkey_eq.d.next = self.s2_rkey_eq.q.val();
        self.s3_orig.d.next = self.s2_va.q.val();
        // ---- S4: the duplicate asks exactly that tail
        self.s4_v.d.next = self.s3_v.q.val();
        self.s4_last.d.next = self.s3_last.q.val();
        self.s4_in.d.next = self.s3_in.q.val();
        self.s4_inside.d.next = self.s3_rkey_eq.q.val()
            & self.s3_le.q.val()
            & (self.s3_sum.q.val() == self.va.val())
            & (self.s3_need.q.val() == self.len.val());
        self.s4_age.d.next = self.s3_age.q.val();
        self.s4_orig.d.next = self.s3_orig.q.val();
        self.o_v.next = self.s4_v.q.val();
        self.o_last.next = self.s4_last.q.val();
        self.o_in.next = self.s4_in.q.val();
        self.o_inside.next = self.s4_inside.q.val();
        self.o_age.next = self.s4_age.q.val();
        self.o_orig.next = self.s4_orig.q.val();
    }
}
