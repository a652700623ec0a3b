//! `ReqFetch`: the requester's fetch stage, between `SendSched` and
//! `ReqGen` (docs/transport.md, "The requester, block by block", items 1
//! and 2's write-back). Per grant (a QP, in service once at a time: the
//! scheduler's invariant) it reads the QP's `qpc` and `qps` entries through
//! two context-cache ports, decides, reads the WQE at the send cursor by
//! DMA, checks the READ/atomic limit and the fence, hands a job to
//! `ReqGen`, and writes the requester's bytes of `qps` back from the job's
//! `done`; every grant is answered on `m_sdone` (qpn, more).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_grant` (`QpnIn`) | in | a QP to serve; `ready` is a register (a free slot and the request registers empty) |
//! | `m_qpc` / `s_qpc` | out / in | `CtxCache<1024,128,_>` request (read, id = slot) and answer (any order) |
//! | `m_qps` / `s_qps` | out / in | `CtxCache<512,64,_>` requests: reads (id = slot) and the masked write-back (id = `REQ_FETCH_WB_ID` 0x20 + slot); answers in any order; `s_qpc`/`s_qps.ready` are always high |
//! | `m_rd` / `s_rd` | out / in | DMA read of the WQE (`addr`, `len` = 128) and its two beats in command order (`tuser[0]`: DMA error); `s_rd.tready` is a register |
//! | `m_at` (`WqeAtOut`) | out | beside `m_rd` (qualified by its `valid`): the WQE's qpn, index, ring (`base`, `log`) and the QP's `SQ_PROD`, for `SqAhead`'s read-ahead; registers |
//! | `m_job` (`ReqJobOut`) | out | the job for `ReqGen`, from registers |
//! | `s_rdone` (`ReqDoneIn`) | in | `ReqGen`'s done per job, in job order; `ready` is a register |
//! | `m_sdone` (`DoneOut`) | out | the scheduler's done per grant, from registers |
//! | `m_rq_flush` (`QpnOut`) | out | the QPN of a grant that stopped with `ReqDecide::cerr` (its completer in error, its send queue flushed): the receive queue's flush, for `RxLookup::s_rq_flush`; from a register, and a stop waits while it is full |
//! | `m_err` ([`ReqErrOut`]) | out | a job that failed in `ReqGen`: qpn, sq_index, err (`REQ_ERR_*`), for the completer; or a poke (sq_index 0, `REQ_ERR_FLUSH`): a grant of a QP in ERR whose completer is not in error yet, whose record makes the completer flush |
//! | `s_rewind` (`QpnIn`) | in | go-back-N from the completer: the QP's next grant restarts its cursor at UNA ([`RewindTable`], `ReqDecide`) |
//! | `m_arm` (`ArmOut`) | out | per job that sent: (re)arm the QP's retransmit timer with `qpc.TIMEOUT` |
//!
//! **Decision** (per grant, in grant order): an unreadable entry (cache
//! `err`) or `STATE` neither RTS nor ERR (nor a responder in error): no work. `REQ_STARTED` clear: NEXT_PSN =
//! SENT_END = `qpc.SQ_PSN`, cursor 0/0, RD_ATOMIC_STARTED 0; `COMP_STARTED`
//! clear: UNA = `qpc.SQ_PSN`, RD_ATOMIC_DONE 0. Work: CURSOR_WQE !=
//! SQ_PROD; room: (NEXT_PSN - UNA) mod 2^24 < [`MAX_UNACKED_PSNS`]. Without
//! both: `done` without `more`. Else the WQE is read at SQ_BASE +
//! (CURSOR_WQE mod 2^SQ_LOG_SIZE) x 128. A job that starts a WQE
//! (CURSOR_PKT 0) of a READ or atomic needs (RD_ATOMIC_STARTED -
//! RD_ATOMIC_DONE) mod 32 < MAX_RD_ATOMIC, a FENCE WQE needs it 0; else (or
//! a DMA error) `done` without `more`. The job: the QP's fields, the WQE's,
//! sq_index = CURSOR_WQE, psn = NEXT_PSN, pkt_index = CURSOR_PKT, budget =
//! min(MAX_UNACKED_PSNS - (NEXT_PSN - UNA), the packets up to and including
//! the next AckReq one: `REQ_ACK_REQ_EVERY` - CURSOR_PKT mod
//! `REQ_ACK_REQ_EVERY`), so SENT_END is written back before the ACK such a
//! packet asks for can arrive (`ReqDecide`).
//!
//! **Write-back** (per `s_rdone`, in job order): without `err`, a masked
//! write of the requester bytes (`qps::REQUESTER_BYTES`): REQ_STARTED 1,
//! NEXT_PSN = next_psn, SENT_END = the serial max of SENT_END and next_psn
//! (the highest PSN sent + 1: a READ's next_psn is past its responses'
//! PSNs), CURSOR_WQE + 1 and CURSOR_PKT 0 when `finished`, else CURSOR_PKT
//! = next_pkt, RD_ATOMIC_STARTED + 1 when the job started a READ/atomic;
//! once the cache took the write, `done` with `more` = work left and room
//! left. With `err` (a refusal, or a flush job's `REQ_ERR_FLUSH`): the
//! write with CURSOR_WQE + 1, CURSOR_PKT 0 and REQ_REFUSED, then an `m_err`
//! record, then `done` with `more` = CURSOR_WQE + 1 != SQ_PROD.
//!
//! **Flush** (issue 12: every WQE after a failure completes with
//! WR_FLUSH_ERR). A grant of a QP whose requester refused a WQE
//! (`REQ_REFUSED`), whose completer is in error (`COMP_ERROR`) or that the
//! driver moved to ERR (`qpc.STATE`; but while its completer is not in
//! error, a stop that pokes the completer, whose flush and wake come first)
//! is a flush grant: with work (no window, RNR wait, READ/atomic limit or fence), it
//! reads the WQE and hands `ReqGen` a flush job (`flush`), which refuses it
//! and pushes its entry (kind `ENT_KIND_REFUSED`, WR_FLUSH_ERR); its
//! record flushes it in the completer. The flush's WQE: the cursor's, or
//! the one after it when the cursor's was partly sent (its entry is in the
//! completer's list); with the completer in error and its HEAD_WQE past
//! that (a go-back-N under way), HEAD_WQE (every WQE before it was in its
//! list and was flushed), NEXT_PSN then SENT_END (`ReqDecide`).
//!
//! **Structure.** [`SCHED_SLOTS`] slots ([`REQ_FETCH_SLOTS`] = `SCHED_SLOTS`): a
//! grant takes the lowest free slot, whose number is the cache requests' id;
//! the answers are written by id into LUTRAM (qpc bytes 0..64, the PATH,
//! qps bytes 0..25) and flag the slot. [`SlotQueue`]s carry slot numbers
//! between the stages in order: grant order (with the QPN) to the decision,
//! the DMA order to the WQE stage, the job order to the write-back. The
//! decision writes the slot's job context and write-back context (two
//! LUTRAMs) that the later stages read by slot. A slot is freed with its
//! scheduler `done`. Several WQE reads are in flight at once (one per slot
//! that passed the decision), so jobs leave at the rate the DMA returns
//! WQEs (two beats each). The stages are child blocks, each in its file:
//! [`ReqSlots`] (the grant, the slot flags, the two read requests),
//! [`ReqDecide`] (D1: the fields into registers, with the not-started
//! substitutions; D2: the arithmetic into registers; then the action),
//! [`ReqWqeStage`] (the WQE's beats, the READ/atomic and fence checks, the
//! job register) and [`ReqWriteBack`] (the write-back on the `qps` port, the
//! error record); this block holds the memories and queues, the DMA
//! command register and the scheduler's done register (its sources in
//! priority order: the write-back, the WQE stage, D2).
//!
//! **Latency and rate** (`tb/tests/req_fetch.rs`): a grant taken in cycle
//! t, both caches offering their answers h cycles after taking the
//! requests, the DMA offering the first beat d cycles after taking the
//! command, nothing stalled: the job is offered at t + h + d +
//! [`REQ_FETCH_FIXED_LATENCY`]. Grants are taken at most every other cycle;
//! WQEs are taken at the DMA's rate (two beats, two cycles, each: a first
//! beat waits in `wq_nx` while the previous WQE waits for the job
//! register), so with a grant in every slot jobs leave every two cycles.

use super::{
    ArmOut, DoneOut, QpnIn, ReqDecide, ReqDoneIn, ReqJobOut, ReqSlots, ReqWqeStage, ReqWriteBack, RewindTable,
    SlotQueue,
};
use super::{QpnOut, WqeAtOut, PATH_BITS, REQ_INDEX_BITS};
use super::{REQ_PKT_BITS, REQ_PSN_BITS, REQ_QPN_BITS, SCHED_SLOTS, SCHED_SLOT_BITS};
use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::{CacheReqOut, CacheRespIn, RdCmdOut};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rnic_contract::layouts::{qps, send_wqe};
use rust_hdl::prelude::*;

/// Slots (grants in service inside the block at once): the scheduler's.
pub const REQ_FETCH_SLOTS: usize = SCHED_SLOTS;
/// The unacknowledged PSN window (rxe's 128), declared once in `consts`.
pub const MAX_UNACKED_PSNS: u64 = RF_MAX_UNACKED;
/// Bytes of a send WQE (the DMA read's length).
pub const REQ_FETCH_WQE_BYTES: u64 = send_wqe::SIZE as u64;
/// The id bit marking the write-back's request on the qps port: inside the
/// user's own id bits (`CTX_MUX_ID_BITS`), which `ctx_port_mux` hands back
/// unchanged; the bits above carry the mux's user number and are replaced.
/// (Bit 7 was lost there: a write-back's answer came back as a read answer
/// for its slot, and a new grant in that slot took another QP's `qps` line.)
pub const REQ_FETCH_WB_ID: u64 = 0x20;
const _: () = assert!(
    REQ_FETCH_WB_ID == 1 << 5 && REQ_FETCH_WB_ID < 1 << crate::host::CTX_MUX_ID_BITS && REQ_FETCH_SLOTS <= 1 << 5,
    "update tests id bit 5; the slot fits below it"
);
/// Cycles of the fixed part of grant-to-job (see the module doc): the
/// request registers (1), the answer's flag (1), D1 (1), D2 (1), the DMA
/// command register (1), the two beats (2), the job register (1).
pub const REQ_FETCH_FIXED_LATENCY: u64 = 8;
/// Bits of the qps entry the decision keeps (the requester's and the completer's bytes).
pub const REQ_FETCH_QPS_BITS: usize = 8 * qps::COMPLETER_BYTES.end;
const _: () = assert!(REQ_ORDER_BITS == SCHED_SLOT_BITS + REQ_QPN_BITS + 1);
const _: () = assert!(REQ_FETCH_SLOTS == 1 << SCHED_SLOT_BITS && REQ_FETCH_QPS_BITS == 200 && REQ_QPN_BITS == 14);
const _: () = assert!(REQ_PSN_BITS == 24 && REQ_INDEX_BITS == 16 && REQ_PKT_BITS == 24 && PATH_BITS == 512);
const _: () = assert!(MAX_UNACKED_PSNS == 128 && REQ_FETCH_WQE_BYTES == 128, "the literals 7 and 128 of update");
const _: () = assert!(qps::REQUESTER_BYTES.end == 12);
/// Job context word (per slot): qpn [13:0], dest_qpn [37:14], pkey
/// [53:38], pd [77:54], pmtu [80:78], sq_index [96:81], psn [120:97],
/// pkt_index [143:121], budget [151:144], rd_ok [152], fence_ok [153],
/// a first send of the WQE (pkt_index 0, not a resend) [154], resend [155],
/// a flush job [156].
pub const REQ_JCTX_BITS: usize = 157;
/// Write-back context word (per slot): sq_prod [15:0], una [39:16],
/// sent_end [63:40], rd_started [68:64], qpn [82:69], the ACK timeout code
/// [87:83].
pub const REQ_WCTX_BITS: usize = 88;

/// A job `ReqGen` failed (`REQ_ERR_*`): the completer completes the WQE in error.
#[derive(LogicInterface, Default)]
#[join = "ReqErrIn"]
pub struct ReqErrOut {
    pub qpn: Signal<Out, Bits<REQ_QPN_BITS>>,
    pub sq_index: Signal<Out, Bits<REQ_INDEX_BITS>>,
    pub err: Signal<Out, Bits<3>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReqErrOut"]
pub struct ReqErrIn {
    pub qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    pub sq_index: Signal<In, Bits<REQ_INDEX_BITS>>,
    pub err: Signal<In, Bits<3>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct ReqFetch {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_grant: QpnIn<REQ_QPN_BITS>,
    pub m_sdone: DoneOut<REQ_QPN_BITS>,
    pub m_qpc: CacheReqOut<1024, 128>,
    pub s_qpc: CacheRespIn<1024>,
    pub m_qps: CacheReqOut<512, 64>,
    pub s_qps: CacheRespIn<512>,
    pub m_rd: RdCmdOut,
    /// Beside `m_rd` (qualified by its `valid`): the WQE's QP, index, ring
    /// and the QP's `SQ_PROD`, for `SqAhead`'s read-ahead.
    pub m_at: WqeAtOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub m_job: ReqJobOut,
    pub s_rdone: ReqDoneIn,
    pub m_err: ReqErrOut,
    /// A QP whose completer is in error and whose send queue is flushed (a
    /// grant that stops with `ReqDecide::cerr`): its receive queue's flush,
    /// for `RxLookup::s_rq_flush`; from a register.
    pub m_rq_flush: QpnOut<REQ_QPN_BITS>,
    /// Go-back-N commands (`Completer::m_rewind`).
    pub s_rewind: QpnIn<REQ_QPN_BITS>,
    /// Arm the retransmit timer after each job that sent.
    pub m_arm: ArmOut<REQ_QPN_BITS>,

    // ---- the stages
    decide: ReqDecide,
    wqe: ReqWqeStage,
    wb: ReqWriteBack,
    slots: ReqSlots,
    rewind: RewindTable<REQ_QPN_BITS>,
    // ---- the slots' memories
    rd_start: Reg<Bits<REQ_FETCH_SLOTS>>,
    qpc_lo: LutRam<Bits<512>, SCHED_SLOT_BITS>,
    qpc_path: LutRam<Bits<512>, SCHED_SLOT_BITS>,
    qps_lo: LutRam<Bits<REQ_FETCH_QPS_BITS>, SCHED_SLOT_BITS>,
    /// The slot's QP's responder is in error (`RESP_STARTED` and
    /// `IN_PROGRESS` ERROR, from the responder's bytes of the `qps` answer).
    qps_rerr: LutRam<Bit, SCHED_SLOT_BITS>,
    jctx: LutRam<Bits<REQ_JCTX_BITS>, SCHED_SLOT_BITS>,
    wctx: LutRam<Bits<REQ_WCTX_BITS>, SCHED_SLOT_BITS>,
    order: SlotQueue<REQ_ORDER_BITS>,
    dmaq: SlotQueue<SCHED_SLOT_BITS>,
    jobq: SlotQueue<SCHED_SLOT_BITS>,
    // ---- the DMA command; the WQE stage's slot
    rd_v: Reg<Bit>,
    rd_addr: Reg<Bits<64>>,
    at_qpn: Reg<Bits<REQ_QPN_BITS>>,
    at_index: Reg<Bits<16>>,
    at_prod: Reg<Bits<16>>,
    at_base: Reg<Bits<64>>,
    at_log: Reg<Bits<4>>,
    jh: Reg<Bits<SCHED_SLOT_BITS>>,
    // ---- the scheduler's done
    dn_v: Reg<Bit>,
    dn_qpn: Reg<Bits<REQ_QPN_BITS>>,
    dn_more: Reg<Bit>,
    // ---- a poke for the completer (`ReqDecide::poke`), beside `wb`'s error records
    pk_v: Reg<Bit>,
    pk_qpn: Reg<Bits<REQ_QPN_BITS>>,
    // ---- an RQ flush for the responder (`ReqDecide::cerr`)
    rf_v: Reg<Bit>,
    rf_qpn: Reg<Bits<REQ_QPN_BITS>>,

    // ---- locals
    ohead: Signal<Local, Bits<SCHED_SLOT_BITS>>,
    rd_free: Signal<Local, Bit>,
    dn_free: Signal<Local, Bit>,
    jhead: Signal<Local, Bits<SCHED_SLOT_BITS>>,
    freed: Signal<Local, Bits<REQ_FETCH_SLOTS>>,
    kind: TypeTag<Self>,
}

impl Logic for ReqFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rd_start, rd_v, rd_addr, at_qpn, at_index, at_prod, at_base, at_log, jh, dn_v, dn_qpn,
            dn_more, pk_v, pk_qpn, rf_v, rf_qpn
        );
        clock!(
            self, clock, qpc_lo, qpc_path, qps_lo, qps_rerr, jctx, wctx, order, dmaq, jobq, slots, decide, wqe, wb,
            rewind
        );
        self.rewind.reset.next = self.reset.val();
        QpnIn::<REQ_QPN_BITS>::link(&mut self.s_rewind, &mut self.rewind.s_add);
        ArmOut::<REQ_QPN_BITS>::link(&mut self.m_arm, &mut self.wb.m_arm);
        self.order.reset.next = self.reset.val();
        self.dmaq.reset.next = self.reset.val();
        self.jobq.reset.next = self.reset.val();
        self.slots.reset.next = self.reset.val();
        self.decide.reset.next = self.reset.val();
        self.wqe.reset.next = self.reset.val();
        self.wb.reset.next = self.reset.val();
        AxisIn::<512, 64, 1>::link(&mut self.s_rd, &mut self.wqe.s_rd);
        QpnIn::<REQ_QPN_BITS>::link(&mut self.s_grant, &mut self.slots.s_grant);
        CacheReqOut::<1024, 128>::link(&mut self.m_qpc, &mut self.slots.m_qpc);
        ReqJobOut::link(&mut self.m_job, &mut self.wqe.m_job);
        ReqDoneIn::link(&mut self.s_rdone, &mut self.wb.s_rdone);
        // the error records: the write-back's (a refused job), else a poke
        // (sq_index 0, `REQ_ERR_FLUSH`: the completer reads the QPN alone)
        self.m_err.valid.next = self.wb.m_err.valid.val() | self.pk_v.q.val();
        self.m_err.qpn.next = self.pk_qpn.q.val();
        self.m_err.sq_index.next = 0.into();
        self.m_err.err.next = REQ_ERR_FLUSH.into();
        if self.wb.m_err.valid.val() {
            self.m_err.qpn.next = self.wb.m_err.qpn.val();
            self.m_err.sq_index.next = self.wb.m_err.sq_index.val();
            self.m_err.err.next = self.wb.m_err.err.val();
        }
        self.wb.m_err.ready.next = self.m_err.ready.val();
        if self.m_err.ready.val() & !self.wb.m_err.valid.val() {
            self.pk_v.d.next = false;
        }
        if self.decide.stop.val() & self.decide.poke.val() {
            self.pk_v.d.next = true;
            self.pk_qpn.d.next = self.decide.wctx.val().get_bits::<REQ_QPN_BITS>(69);
        }
        // the receive queue's flush once the send queue's is done
        self.m_rq_flush.qpn.next = self.rf_qpn.q.val();
        self.m_rq_flush.valid.next = self.rf_v.q.val();
        if self.m_rq_flush.ready.val() {
            self.rf_v.d.next = false;
        }
        if self.decide.stop.val() & self.decide.cerr.val() {
            self.rf_v.d.next = true;
            self.rf_qpn.d.next = self.decide.wctx.val().get_bits::<REQ_QPN_BITS>(69);
        }
        CacheReqOut::<512, 64>::link(&mut self.m_qps, &mut self.wb.m_qps);
        self.freed.next = 0.into();
        self.rd_free.next = !self.rd_v.q.val() | self.m_rd.ready.val();
        self.dn_free.next = !self.dn_v.q.val() | self.m_sdone.ready.val();

        // ================= grant and slot flags; the qps read request beside the write-back =================
        // a grant takes its QP's pending rewind (order bit `REQ_ORDER_REWIND`)
        self.rewind.probe.next = self.slots.take.val();
        self.rewind.probe_qpn.next = self.s_grant.qpn.val();
        self.order.push.next = self.slots.take.val();
        self.order.push_data.next = bit_cast::<REQ_ORDER_BITS, SCHED_SLOT_BITS>(self.slots.sel.val())
            | (bit_cast::<REQ_ORDER_BITS, REQ_QPN_BITS>(self.s_grant.qpn.val()) << REQ_ORDER_QPN_SHIFT)
            | (bit_cast::<REQ_ORDER_BITS, 1>(self.rewind.hit.val().into()) << REQ_ORDER_REWIND_SHIFT);
        self.slots.qps_taken.next = self.wb.rd_taken.val();
        self.slots.qpc_ans.next = self.s_qpc.valid.val();
        self.slots.qpc_id.next = self.s_qpc.id.val().get_bits::<SCHED_SLOT_BITS>(0);
        self.slots.qpc_err.next = self.s_qpc.err.val();
        self.slots.qps_ans.next = self.s_qps.valid.val() & !self.s_qps.id.val().get_bit(5); // REQ_FETCH_WB_ID
        self.slots.qps_id.next = self.s_qps.id.val().get_bits::<SCHED_SLOT_BITS>(0);
        self.slots.qps_err.next = self.s_qps.err.val();

        // ================= cache answers: by id into the slot's LUTRAM =================
        self.s_qpc.ready.next = true;
        self.s_qps.ready.next = true;
        self.qpc_lo.write_addr.next = self.s_qpc.id.val().get_bits::<SCHED_SLOT_BITS>(0);
        self.qpc_lo.write_data.next = self.s_qpc.data.val().get_bits::<512>(0);
        self.qpc_lo.write_enable.next = self.s_qpc.valid.val();
        self.qpc_path.write_addr.next = self.s_qpc.id.val().get_bits::<SCHED_SLOT_BITS>(0);
        self.qpc_path.write_data.next = self.s_qpc.data.val().get_bits::<512>(QPC_PATH);
        self.qpc_path.write_enable.next = self.s_qpc.valid.val();
        self.qps_lo.write_addr.next = self.s_qps.id.val().get_bits::<SCHED_SLOT_BITS>(0);
        self.qps_lo.write_data.next = self.s_qps.data.val().get_bits::<REQ_FETCH_QPS_BITS>(0);
        self.qps_lo.write_enable.next = self.s_qps.valid.val() & !self.s_qps.id.val().get_bit(5); // REQ_FETCH_WB_ID
        self.qps_rerr.write_addr.next = self.s_qps.id.val().get_bits::<SCHED_SLOT_BITS>(0);
        self.qps_rerr.write_data.next = self.s_qps.data.val().get_bit(QPS_RESP_STARTED_POS)
            & self.s_qps.data.val().get_bit(QPS_IN_PROGRESS_POS)
            & self.s_qps.data.val().get_bit(QPS_IN_PROGRESS_POS + 1);
        self.qps_rerr.write_enable.next = self.s_qps.valid.val() & !self.s_qps.id.val().get_bit(5); // REQ_FETCH_WB_ID

        // ================= the decision (D1, D2) at the grant order's head =================
        self.ohead.next = self.order.head.val().get_bits::<SCHED_SLOT_BITS>(0);
        self.qpc_lo.read_addr.next = self.ohead.val();
        self.qps_lo.read_addr.next = self.ohead.val();
        self.qps_rerr.read_addr.next = self.ohead.val();
        self.decide.head_ready.next =
            self.order.nonempty.val() & self.slots.got.val().get_bit(self.ohead.val().index());
        self.decide.head_slot.next = self.ohead.val();
        self.decide.head_qpn.next = self.order.head.val().get_bits::<REQ_QPN_BITS>(SCHED_SLOT_BITS);
        self.decide.head_bad.next = self.slots.bad.val().get_bit(self.ohead.val().index());
        self.decide.head_rewind.next = self.order.head.val().get_bit(REQ_ORDER_REWIND);
        self.decide.qpc.next = self.qpc_lo.read_data.val();
        self.decide.qps.next = self.qps_lo.read_data.val();
        self.decide.resp_err.next = self.qps_rerr.read_data.val();
        // the done register's priority: F, then the WQE stage, then D2
        self.decide.issue_free.next = self.rd_free.val();
        // (and a poke waits for the one before it)
        self.decide.stop_free.next =
            self.dn_free.val() & !self.wb.done.val() & !self.wqe.stop.val() & !self.pk_v.q.val() & !self.rf_v.q.val();
        self.order.pop.next = self.decide.take.val();
        self.jctx.write_addr.next = self.decide.slot.val();
        self.jctx.write_data.next = self.decide.jctx.val();
        self.jctx.write_enable.next = self.decide.issue.val();
        self.wctx.write_addr.next = self.decide.slot.val();
        self.wctx.write_data.next = self.decide.wctx.val();
        self.wctx.write_enable.next = self.decide.issue.val();
        self.dmaq.push.next = self.decide.issue.val();
        self.dmaq.push_data.next = self.decide.slot.val();

        // ================= the DMA command =================
        self.m_rd.valid.next = self.rd_v.q.val();
        self.m_rd.addr.next = self.rd_addr.q.val();
        self.m_rd.len.next = 128.into(); // REQ_FETCH_WQE_BYTES
        self.m_at.qpn.next = self.at_qpn.q.val();
        self.m_at.index.next = self.at_index.q.val();
        self.m_at.prod.next = self.at_prod.q.val();
        self.m_at.base.next = self.at_base.q.val();
        self.m_at.log.next = self.at_log.q.val();
        if self.m_rd.ready.val() {
            self.rd_v.d.next = false;
        }
        if self.decide.issue.val() {
            self.rd_v.d.next = true;
            self.rd_addr.d.next = self.decide.addr.val();
            // (the job context's qpn [13:0] and sq_index [96:81], the
            // write-back context's sq_prod [15:0]: the layouts above)
            self.at_qpn.d.next = self.decide.jctx.val().get_bits::<REQ_QPN_BITS>(0);
            self.at_index.d.next = self.decide.jctx.val().get_bits::<16>(81);
            self.at_prod.d.next = self.decide.wctx.val().get_bits::<16>(0);
            self.at_base.d.next = self.decide.base.val();
            self.at_log.d.next = self.decide.log.val();
        }

        // ================= the WQE stage and the job register =================
        // the stage's slot: the queue's head, registered (a pop is at least two cycles before the next use)
        self.jh.d.next = self.dmaq.head.val();
        self.jhead.next = self.jh.q.val();
        self.jctx.read_addr.next = self.jhead.val();
        self.qpc_path.read_addr.next = self.jhead.val();
        self.wqe.jc.next = self.jctx.read_data.val();
        self.wqe.path.next = self.qpc_path.read_data.val();
        self.wqe.stop_free.next = self.dn_free.val() & !self.wb.done.val();
        self.dmaq.pop.next = self.wqe.go.val();
        self.jobq.push.next = self.wqe.go.val() & !self.wqe.block.val();
        self.jobq.push_data.next = self.jhead.val();
        if self.wqe.go.val() & !self.wqe.block.val() {
            self.rd_start.d.next = self.rd_start.q.val().replace_bit(self.jhead.val().index(), self.wqe.rd_first.val());
        }

        // ================= write-back (the qps port: its write beside the reads) =================
        self.wb.head_slot.next = self.jobq.head.val();
        self.jobq.pop.next = self.wb.pop.val();
        self.wctx.read_addr.next = self.wb.slot.val();
        self.wb.wc.next = self.wctx.read_data.val();
        self.wb.rd_started.next = self.rd_start.q.val().get_bit(self.wb.slot.val().index());
        self.wb.done_free.next = self.dn_free.val();
        self.wb.rd_valid.next = self.slots.qps_rv.val();
        self.wb.rd_qpn.next = self.slots.rq_qpn.val();
        self.wb.rd_slot.next = self.slots.rq_slot.val();

        // ================= the scheduler's done: F, then the WQE stage, then D2 =================
        self.m_sdone.valid.next = self.dn_v.q.val();
        self.m_sdone.qpn.next = self.dn_qpn.q.val();
        self.m_sdone.more.next = self.dn_more.q.val();
        if self.m_sdone.ready.val() {
            self.dn_v.d.next = false;
        }
        if self.wb.done.val() {
            self.dn_v.d.next = true;
            self.dn_qpn.d.next = self.wb.done_qpn.val();
            self.dn_more.d.next = self.wb.done_more.val();
            self.freed.next = self.freed.val().replace_bit(self.wb.slot.val().index(), true);
        } else if self.wqe.go.val() & self.wqe.block.val() {
            self.dn_v.d.next = true;
            self.dn_qpn.d.next = self.jctx.read_data.val().get_bits::<REQ_QPN_BITS>(0);
            self.dn_more.d.next = false;
            self.freed.next = self.freed.val().replace_bit(self.jhead.val().index(), true);
        } else if self.decide.stop.val() {
            self.dn_v.d.next = true;
            self.dn_qpn.d.next = self.decide.wctx.val().get_bits::<REQ_QPN_BITS>(69);
            self.dn_more.d.next = false;
            self.freed.next = self.freed.val().replace_bit(self.decide.slot.val().index(), true);
        }

        self.slots.freed.next = self.freed.val();
        self.slots.any_freed.next =
            self.wb.done.val() | (self.wqe.go.val() & self.wqe.block.val()) | self.decide.stop.val();
        if self.reset.val() {
            self.rd_v.d.next = false;
            self.dn_v.d.next = false;
            self.pk_v.d.next = false;
            self.rf_v.d.next = false;
        }
    }
}
