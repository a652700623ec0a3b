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
//! | `m_qps` / `s_qps` | out / in | `CtxCache<512,64,_>` requests: reads (id = slot) and the masked write-back (id = 0x80 + slot); answers in any order; `s_qpc`/`s_qps.ready` are always high |
//! | `m_rd` / `s_rd` | out / in | DMA read of the WQE (`addr`, `len` = 128) and its two beats in command order (`tuser[0]`: DMA error); `s_rd.tready` is a register |
//! | `m_job` (`ReqJobOut`) | out | the job for `ReqGen`, from registers |
//! | `s_rdone` (`ReqDoneIn`) | in | `ReqGen`'s done per job, in job order; `ready` is a register |
//! | `m_sdone` (`DoneOut`) | out | the scheduler's done per grant, from registers |
//! | `m_err` ([`ReqErrOut`]) | out | a job that failed in `ReqGen`: qpn, sq_index, err (`REQ_ERR_*`), for the completer |
//!
//! **Decision** (per grant, in grant order): an unreadable entry (cache
//! `err`) or `STATE` not RTS: no work. `REQ_STARTED` clear: NEXT_PSN =
//! SENT_END = `qpc.SQ_PSN`, cursor 0/0, RD_ATOMIC_STARTED 0; `COMP_STARTED`
//! clear: UNA = `qpc.SQ_PSN`, RD_ATOMIC_DONE 0. Work: CURSOR_WQE !=
//! SQ_PROD; room: (NEXT_PSN - UNA) mod 2^24 < [`MAX_UNACKED_PSNS`]. Without
//! both: `done` without `more`. Else the WQE is read at SQ_BASE +
//! (CURSOR_WQE mod 2^SQ_LOG_SIZE) x 128. A job that starts a WQE
//! (CURSOR_PKT 0) of a READ or atomic needs (RD_ATOMIC_STARTED -
//! RD_ATOMIC_DONE) mod 32 < MAX_RD_ATOMIC, a FENCE WQE needs it 0; else (or
//! a DMA error) `done` without `more`. The job: the QP's fields, the WQE's,
//! sq_index = CURSOR_WQE, psn = NEXT_PSN, pkt_index = CURSOR_PKT, budget =
//! MAX_UNACKED_PSNS - (NEXT_PSN - UNA).
//!
//! **Write-back** (per `s_rdone`, in job order): without `err`, a masked
//! write of the requester bytes (`qps::REQUESTER_BYTES`): REQ_STARTED 1,
//! NEXT_PSN = next_psn, SENT_END = the serial max of SENT_END and next_psn
//! (the highest PSN sent + 1: a READ's next_psn is past its responses'
//! PSNs), CURSOR_WQE + 1 and CURSOR_PKT 0 when `finished`, else CURSOR_PKT
//! = next_pkt, RD_ATOMIC_STARTED + 1 when the job started a READ/atomic;
//! once the cache took the write, `done` with `more` = work left and room
//! left. With `err`: no write, an `m_err` record, then `done` without `more`.
//!
//! **Structure.** Eight slots ([`REQ_FETCH_SLOTS`] = `SCHED_SLOTS`): a
//! grant takes the lowest free slot, whose number is the cache requests' id;
//! the answers are written by id into LUTRAM (qpc bytes 0..64, the PATH,
//! qps bytes 0..25) and flag the slot. [`SlotQueue`]s carry slot numbers
//! between the stages in order: grant order (with the QPN) to the decision
//! (D1: the fields into registers, with the not-started substitutions; D2:
//! the arithmetic into registers; then the action), the DMA order to the
//! WQE stage, the job order to the write-back. The decision writes the
//! slot's job context and write-back context (two LUTRAMs) that the later
//! stages read by slot. A slot is freed with its scheduler `done`. Several
//! WQE reads are in flight at once (one per slot that passed the decision),
//! so jobs leave at the rate the DMA returns WQEs (two beats each).
//!
//! **Latency and rate** (`tb/tests/req_fetch.rs`): a grant taken in cycle
//! t, both caches offering their answers h cycles after taking the
//! requests, the DMA offering the first beat d cycles after taking the
//! command, nothing stalled: the job is offered at t + h + d +
//! [`REQ_FETCH_FIXED_LATENCY`]. Grants are taken at most every other cycle;
//! WQEs are taken at the DMA's rate (two beats, two cycles, each: a first
//! beat waits in `wq_nx` while the previous WQE waits for the job
//! register), so with eight grants in flight jobs leave every two cycles.

use super::{DoneOut, QpnIn, ReqDoneIn, ReqJobOut, SlotQueue, PATH_BITS, REQ_INDEX_BITS};
use super::{REQ_PKT_BITS, REQ_PSN_BITS, REQ_QPN_BITS, SCHED_SLOTS};
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
/// The id bit marking the write-back's request on the qps port.
pub const REQ_FETCH_WB_ID: u64 = 0x80;
/// Cycles of the fixed part of grant-to-job (see the module doc): the
/// request registers (1), the answer's flag (1), D1 (1), D2 (1), the DMA
/// command register (1), the two beats (2), the job register (1).
pub const REQ_FETCH_FIXED_LATENCY: u64 = 8;
/// Bits of the qps entry the decision keeps (the requester's and the completer's bytes).
pub const REQ_FETCH_QPS_BITS: usize = 8 * qps::COMPLETER_BYTES.end;
const _: () = assert!(REQ_FETCH_SLOTS == 8 && REQ_FETCH_QPS_BITS == 200 && REQ_QPN_BITS == 14);
const _: () = assert!(REQ_PSN_BITS == 24 && REQ_INDEX_BITS == 16 && REQ_PKT_BITS == 24 && PATH_BITS == 512);
const _: () = assert!(MAX_UNACKED_PSNS == 128 && REQ_FETCH_WQE_BYTES == 128, "the literals 7 and 128 of update");
const _: () = assert!(qps::REQUESTER_BYTES.end == 12);
/// Job context word (per slot): qpn [13:0], dest_qpn [37:14], pkey
/// [53:38], pd [77:54], pmtu [80:78], sq_index [96:81], psn [120:97],
/// pkt_index [143:121], budget [151:144], rd_ok [152], fence_ok [153],
/// pkt_index == 0 [154].
const JCTX_BITS: usize = 155;
/// Write-back context word (per slot): sq_prod [15:0], una [39:16],
/// sent_end [63:40], rd_started [68:64], qpn [82:69].
const WCTX_BITS: usize = 83;

/// A job `ReqGen` failed (`REQ_ERR_*`): the completer completes the WQE in error.
#[derive(LogicInterface, Default)]
#[join = "ReqErrIn"]
pub struct ReqErrOut {
    pub qpn: Signal<Out, Bits<REQ_QPN_BITS>>,
    pub sq_index: Signal<Out, Bits<REQ_INDEX_BITS>>,
    pub err: Signal<Out, Bits<2>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReqErrOut"]
pub struct ReqErrIn {
    pub qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    pub sq_index: Signal<In, Bits<REQ_INDEX_BITS>>,
    pub err: Signal<In, Bits<2>>,
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
    pub s_rd: AxisIn<512, 64, 1>,
    pub m_job: ReqJobOut,
    pub s_rdone: ReqDoneIn,
    pub m_err: ReqErrOut,

    // ---- slots and their memories
    free: Reg<Bits<8>>,
    got_c: Reg<Bits<8>>,
    got_s: Reg<Bits<8>>,
    bad: Reg<Bits<8>>,
    rd_start: Reg<Bits<8>>,
    qpc_lo: LutRam<Bits<512>, 3>,
    qpc_path: LutRam<Bits<512>, 3>,
    qps_lo: LutRam<Bits<REQ_FETCH_QPS_BITS>, 3>,
    jctx: LutRam<Bits<JCTX_BITS>, 3>,
    wctx: LutRam<Bits<WCTX_BITS>, 3>,
    order: SlotQueue<17>,
    dmaq: SlotQueue<3>,
    jobq: SlotQueue<3>,
    // ---- grant: the request registers
    g_rdy: Reg<Bit>,
    qpc_rv: Reg<Bit>,
    qps_rv: Reg<Bit>,
    rq_qpn: Reg<Bits<REQ_QPN_BITS>>,
    rq_slot: Reg<Bits<3>>,
    // ---- D1: the fields
    d1_v: Reg<Bit>,
    d1_slot: Reg<Bits<3>>,
    d1_qpn: Reg<Bits<REQ_QPN_BITS>>,
    d1_ok: Reg<Bit>,
    d1_prod: Reg<Bits<16>>,
    d1_base: Reg<Bits<64>>,
    d1_log: Reg<Bits<4>>,
    d1_maxrd: Reg<Bits<8>>,
    d1_dest: Reg<Bits<24>>,
    d1_pkey: Reg<Bits<16>>,
    d1_pd: Reg<Bits<24>>,
    d1_pmtu: Reg<Bits<3>>,
    d1_next: Reg<Bits<24>>,
    d1_sent: Reg<Bits<24>>,
    d1_cwqe: Reg<Bits<16>>,
    d1_cpkt: Reg<Bits<24>>,
    d1_rdst: Reg<Bits<5>>,
    d1_una: Reg<Bits<24>>,
    d1_rddone: Reg<Bits<5>>,
    // ---- D2: the decision
    d2_v: Reg<Bit>,
    d2_slot: Reg<Bits<3>>,
    d2_go: Reg<Bit>,
    d2_addr: Reg<Bits<64>>,
    d2_jctx: Reg<Bits<JCTX_BITS>>,
    d2_wctx: Reg<Bits<WCTX_BITS>>,
    // ---- the DMA command
    rd_v: Reg<Bit>,
    jh: Reg<Bits<3>>,
    rd_addr: Reg<Bits<64>>,
    // ---- the WQE
    wq_lo: Reg<Bits<512>>,
    wq_hi: Reg<Bits<512>>,
    wq_half: Reg<Bit>,
    wq_full: Reg<Bit>,
    wq_err: Reg<Bit>,
    wq_nx: Reg<Bits<512>>,
    wq_nx_err: Reg<Bit>,
    // ---- the job
    job_v: Reg<Bit>,
    job_ctx: Reg<Bits<JCTX_BITS>>,
    job_path: Reg<Bits<512>>,
    job_lo: Reg<Bits<512>>,
    job_sges: Reg<Bits<512>>,
    // ---- write-back: W (taken), B (write offered), E (error offered), F (done due)
    rr: Reg<Bit>,
    w_v: Reg<Bit>,
    w_slot: Reg<Bits<3>>,
    w_next: Reg<Bits<24>>,
    w_pkt: Reg<Bits<24>>,
    w_fin: Reg<Bit>,
    w_err: Reg<Bits<2>>,
    w_sq: Reg<Bits<16>>,
    b_v: Reg<Bit>,
    b_data: Reg<Bits<96>>,
    e_v: Reg<Bit>,
    f_v: Reg<Bit>,
    f_more: Reg<Bit>,
    f_qpn: Reg<Bits<REQ_QPN_BITS>>,
    // ---- the scheduler's done
    dn_v: Reg<Bit>,
    dn_qpn: Reg<Bits<REQ_QPN_BITS>>,
    dn_more: Reg<Bit>,

    // ---- locals
    sel: Signal<Local, Bits<3>>,
    low: Signal<Local, Bits<8>>,
    take_g: Signal<Local, Bit>,
    qpc_rv_n: Signal<Local, Bit>,
    qps_rv_n: Signal<Local, Bit>,
    ohead: Signal<Local, Bits<3>>,
    d1_load: Signal<Local, Bit>,
    d2_load: Signal<Local, Bit>,
    d2_act: Signal<Local, Bit>,
    d2_stop: Signal<Local, Bit>,
    qc: Signal<Local, Bits<512>>,
    qs: Signal<Local, Bits<REQ_FETCH_QPS_BITS>>,
    win: Signal<Local, Bits<24>>,
    rdout: Signal<Local, Bits<5>>,
    idx: Signal<Local, Bits<16>>,
    rd_free: Signal<Local, Bit>,
    dn_free: Signal<Local, Bit>,
    beat: Signal<Local, Bit>,
    jhead: Signal<Local, Bits<3>>,
    jc: Signal<Local, Bits<JCTX_BITS>>,
    opc: Signal<Local, Bits<8>>,
    rdop: Signal<Local, Bit>,
    j_block: Signal<Local, Bit>,
    j_go: Signal<Local, Bit>,
    j_stop: Signal<Local, Bit>,
    wc: Signal<Local, Bits<WCTX_BITS>>,
    ser: Signal<Local, Bits<24>>,
    new_cwqe: Signal<Local, Bits<16>>,
    new_win: Signal<Local, Bits<24>>,
    new_rdst: Signal<Local, Bits<5>>,
    wb_take: Signal<Local, Bit>,
    f_go: Signal<Local, Bit>,
    freed: Signal<Local, Bits<8>>,
    max_win: Signal<Local, Bits<24>>,
    new_sent: Signal<Local, Bits<24>>,
    wbd: Signal<Local, Bits<96>>,
    gc_n: Signal<Local, Bits<8>>,
    gs_n: Signal<Local, Bits<8>>,
    bad_n: Signal<Local, Bits<8>>,
    free_n: Signal<Local, Bits<8>>,
    kind: TypeTag<Self>,
}

impl Logic for ReqFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, free, got_c, got_s, bad, rd_start, g_rdy, qpc_rv, qps_rv, rq_qpn, rq_slot, d1_v, d1_slot,
            d1_qpn, d1_ok, d1_prod, d1_base, d1_log, d1_maxrd, d1_dest, d1_pkey, d1_pd, d1_pmtu, d1_next, d1_sent,
            d1_cwqe, d1_cpkt, d1_rdst, d1_una, d1_rddone, d2_v, d2_slot, d2_go, d2_addr, d2_jctx, d2_wctx, rd_v, jh,
            rd_addr, wq_lo, wq_hi, wq_half, wq_full, wq_err, wq_nx, wq_nx_err, job_v, job_ctx, job_path, job_lo,
            job_sges, rr, w_v, w_slot, w_next, w_pkt, w_fin, w_err, w_sq, b_v, b_data, e_v, f_v, f_more, f_qpn, dn_v,
            dn_qpn, dn_more
        );
        clock!(self, clock, qpc_lo, qpc_path, qps_lo, jctx, wctx, order, dmaq, jobq);
        self.order.reset.next = self.reset.val();
        self.dmaq.reset.next = self.reset.val();
        self.jobq.reset.next = self.reset.val();
        self.max_win.next = RF_MAX_UNACKED.into();
        self.freed.next = 0.into();

        // ================= handshakes first (each local assigned before it is read) =================
        self.rd_free.next = !self.rd_v.q.val() | self.m_rd.ready.val();
        self.dn_free.next = !self.dn_v.q.val() | self.m_sdone.ready.val();
        self.f_go.next = self.f_v.q.val() & self.dn_free.val();
        // the WQE stage's slot: the queue's head, registered (a pop is at least two cycles before the next use)
        self.jh.d.next = self.dmaq.head.val();
        self.jhead.next = self.jh.q.val();
        self.jctx.read_addr.next = self.jhead.val();
        self.qpc_path.read_addr.next = self.jhead.val();
        self.jc.next = self.jctx.read_data.val();
        self.opc.next = self.wq_lo.q.val().get_bits::<8>(WQE_OPCODE);
        self.rdop.next =
            (self.opc.val() == SOP_RDMA_READ) | (self.opc.val() == SOP_CMP_SWAP) | (self.opc.val() == SOP_FETCH_ADD);
        self.j_block.next = self.wq_err.q.val()
            | (self.jc.val().get_bit(154)
                & ((self.rdop.val() & !self.jc.val().get_bit(152))
                    | (self.wq_lo.q.val().get_bit(WQE_FENCE) & !self.jc.val().get_bit(153))));
        self.j_stop.next = self.wq_full.q.val() & self.j_block.val();
        self.j_go.next = self.wq_full.q.val()
            & ((self.j_block.val() & self.dn_free.val() & !self.f_go.val())
                | (!self.j_block.val() & (!self.job_v.q.val() | self.m_job.ready.val())));
        // D2's action: a WQE read (the command register free) or a done (no
        // higher source, the W and J stages, wants the done register)
        self.d2_stop.next = self.d2_v.q.val() & !self.d2_go.q.val();
        self.d2_act.next = self.d2_v.q.val()
            & ((self.d2_go.q.val() & self.rd_free.val())
                | (self.d2_stop.val() & self.dn_free.val() & !self.f_go.val() & !self.j_stop.val()));
        self.d2_load.next = self.d1_v.q.val() & (!self.d2_v.q.val() | self.d2_act.val());
        self.ohead.next = self.order.head.val().get_bits::<3>(0);
        self.d1_load.next = self.order.nonempty.val()
            & self.got_c.q.val().get_bit(self.ohead.val().index())
            & self.got_s.q.val().get_bit(self.ohead.val().index())
            & (!self.d1_v.q.val() | self.d2_load.val());

        // ================= grant: the lowest free slot, both cache reads =================
        self.s_grant.ready.next = self.g_rdy.q.val();
        self.take_g.next = self.s_grant.valid.val() & self.g_rdy.q.val();
        self.low.next = self.free.q.val() & (!self.free.q.val() + 1);
        self.sel.next = bit_cast::<3, 1>((self.low.val() & 0xaa).any().into())
            | (bit_cast::<3, 1>((self.low.val() & 0xcc).any().into()) << 1)
            | (bit_cast::<3, 1>((self.low.val() & 0xf0).any().into()) << 2);
        self.m_qpc.valid.next = self.qpc_rv.q.val();
        self.m_qpc.op.next = 0.into(); // CACHE_OP_READ
        self.m_qpc.index.next = bit_cast::<24, REQ_QPN_BITS>(self.rq_qpn.q.val());
        self.m_qpc.id.next = bit_cast::<8, 3>(self.rq_slot.q.val());
        self.m_qpc.mask.next = 0.into();
        self.m_qpc.data.next = 0.into();
        self.qpc_rv_n.next = self.qpc_rv.q.val() & !self.m_qpc.ready.val();
        self.qps_rv_n.next = self.qps_rv.q.val() & !(self.m_qps.ready.val() & !self.b_v.q.val());
        self.qpc_rv.d.next = self.qpc_rv_n.val();
        self.qps_rv.d.next = self.qps_rv_n.val();
        self.order.push.next = self.take_g.val();
        self.order.push_data.next =
            bit_cast::<17, 3>(self.sel.val()) | (bit_cast::<17, REQ_QPN_BITS>(self.s_grant.qpn.val()) << 3);
        if self.take_g.val() {
            self.qpc_rv.d.next = true;
            self.qps_rv.d.next = true;
            self.rq_qpn.d.next = self.s_grant.qpn.val();
            self.rq_slot.d.next = self.sel.val();
        }

        // ================= cache answers: by id into the slot's LUTRAM =================
        self.s_qpc.ready.next = true;
        self.s_qps.ready.next = true;
        self.qpc_lo.write_addr.next = self.s_qpc.id.val().get_bits::<3>(0);
        self.qpc_lo.write_data.next = self.s_qpc.data.val().get_bits::<512>(0);
        self.qpc_lo.write_enable.next = self.s_qpc.valid.val();
        self.qpc_path.write_addr.next = self.s_qpc.id.val().get_bits::<3>(0);
        self.qpc_path.write_data.next = self.s_qpc.data.val().get_bits::<512>(QPC_PATH);
        self.qpc_path.write_enable.next = self.s_qpc.valid.val();
        self.qps_lo.write_addr.next = self.s_qps.id.val().get_bits::<3>(0);
        self.qps_lo.write_data.next = self.s_qps.data.val().get_bits::<REQ_FETCH_QPS_BITS>(0);
        self.qps_lo.write_enable.next = self.s_qps.valid.val() & !self.s_qps.id.val().get_bit(7);

        // ================= D1: the head grant's entries into registers =================
        self.qpc_lo.read_addr.next = self.ohead.val();
        self.qps_lo.read_addr.next = self.ohead.val();
        self.qc.next = self.qpc_lo.read_data.val();
        self.qs.next = self.qps_lo.read_data.val();
        self.order.pop.next = self.d1_load.val();
        if self.d2_load.val() {
            self.d1_v.d.next = false;
        }
        if self.d1_load.val() {
            self.d1_v.d.next = true;
            self.d1_slot.d.next = self.ohead.val();
            self.d1_qpn.d.next = self.order.head.val().get_bits::<REQ_QPN_BITS>(3);
            self.d1_ok.d.next = (self.qc.val().get_bits::<4>(QPC_STATE) == QP_STATE_RTS)
                & !self.bad.q.val().get_bit(self.ohead.val().index());
            self.d1_prod.d.next = self.qc.val().get_bits::<16>(QPC_SQ_PROD);
            self.d1_base.d.next = self.qc.val().get_bits::<64>(QPC_SQ_BASE);
            self.d1_log.d.next = self.qc.val().get_bits::<4>(QPC_SQ_LOG);
            self.d1_maxrd.d.next = self.qc.val().get_bits::<8>(QPC_MAX_RD_ATOMIC);
            self.d1_dest.d.next = self.qc.val().get_bits::<24>(QPC_DEST_QPN);
            self.d1_pkey.d.next = self.qc.val().get_bits::<16>(QPC_PKEY);
            self.d1_pd.d.next = self.qc.val().get_bits::<24>(QPC_PD);
            self.d1_pmtu.d.next = self.qc.val().get_bits::<3>(QPC_PMTU);
            self.d1_next.d.next = self.qc.val().get_bits::<24>(QPC_SQ_PSN);
            self.d1_sent.d.next = self.qc.val().get_bits::<24>(QPC_SQ_PSN);
            self.d1_cwqe.d.next = 0.into();
            self.d1_cpkt.d.next = 0.into();
            self.d1_rdst.d.next = 0.into();
            if self.qs.val().get_bit(QPS_REQ_STARTED) {
                self.d1_next.d.next = self.qs.val().get_bits::<24>(QPS_NEXT_PSN);
                self.d1_sent.d.next = self.qs.val().get_bits::<24>(QPS_SENT_END);
                self.d1_cwqe.d.next = self.qs.val().get_bits::<16>(QPS_CURSOR_WQE);
                self.d1_cpkt.d.next = bit_cast::<24, 23>(self.qs.val().get_bits::<23>(QPS_CURSOR_PKT));
                self.d1_rdst.d.next = self.qs.val().get_bits::<5>(QPS_RD_STARTED);
            }
            self.d1_una.d.next = self.qc.val().get_bits::<24>(QPC_SQ_PSN);
            self.d1_rddone.d.next = 0.into();
            if self.qs.val().get_bit(QPS_COMP_STARTED) {
                self.d1_una.d.next = self.qs.val().get_bits::<24>(QPS_UNA);
                self.d1_rddone.d.next = self.qs.val().get_bits::<5>(QPS_RD_DONE);
            }
        }

        // ================= D2: the arithmetic into registers, then its action =================
        self.win.next = self.d1_next.q.val() - self.d1_una.q.val();
        self.rdout.next = self.d1_rdst.q.val() - self.d1_rddone.q.val();
        self.idx.next = 0.into();
        for k in 0..16 {
            if self.d1_log.q.val().index() > k {
                self.idx.next = self.idx.val().replace_bit(k, self.d1_cwqe.q.val().get_bit(k));
            }
        }
        if self.d2_act.val() {
            self.d2_v.d.next = false;
        }
        if self.d2_load.val() {
            self.d2_v.d.next = true;
            self.d2_slot.d.next = self.d1_slot.q.val();
            self.d2_go.d.next = self.d1_ok.q.val()
                & (self.d1_cwqe.q.val() != self.d1_prod.q.val())
                & (self.win.val() < self.max_win.val());
            self.d2_addr.d.next = self.d1_base.q.val() + (bit_cast::<64, 16>(self.idx.val()) << 7);
            self.d2_jctx.d.next = bit_cast::<JCTX_BITS, REQ_QPN_BITS>(self.d1_qpn.q.val())
                | (bit_cast::<JCTX_BITS, 24>(self.d1_dest.q.val()) << 14)
                | (bit_cast::<JCTX_BITS, 16>(self.d1_pkey.q.val()) << 38)
                | (bit_cast::<JCTX_BITS, 24>(self.d1_pd.q.val()) << 54)
                | (bit_cast::<JCTX_BITS, 3>(self.d1_pmtu.q.val()) << 78)
                | (bit_cast::<JCTX_BITS, 16>(self.d1_cwqe.q.val()) << 81)
                | (bit_cast::<JCTX_BITS, 24>(self.d1_next.q.val()) << 97)
                | (bit_cast::<JCTX_BITS, 23>(self.d1_cpkt.q.val().get_bits::<23>(0)) << 121)
                | (bit_cast::<JCTX_BITS, 24>(self.max_win.val() - self.win.val()) << 144)
                | (bit_cast::<JCTX_BITS, 1>((bit_cast::<8, 5>(self.rdout.val()) < self.d1_maxrd.q.val()).into())
                    << 152)
                | (bit_cast::<JCTX_BITS, 1>((self.rdout.val() == 0).into()) << 153)
                | (bit_cast::<JCTX_BITS, 1>((self.d1_cpkt.q.val() == 0).into()) << 154);
            self.d2_wctx.d.next = bit_cast::<WCTX_BITS, 16>(self.d1_prod.q.val())
                | (bit_cast::<WCTX_BITS, 24>(self.d1_una.q.val()) << 16)
                | (bit_cast::<WCTX_BITS, 24>(self.d1_sent.q.val()) << 40)
                | (bit_cast::<WCTX_BITS, 5>(self.d1_rdst.q.val()) << 64)
                | (bit_cast::<WCTX_BITS, REQ_QPN_BITS>(self.d1_qpn.q.val()) << 69);
        }
        self.jctx.write_addr.next = self.d2_slot.q.val();
        self.jctx.write_data.next = self.d2_jctx.q.val();
        self.jctx.write_enable.next = self.d2_act.val() & self.d2_go.q.val();
        self.wctx.write_addr.next = self.d2_slot.q.val();
        self.wctx.write_data.next = self.d2_wctx.q.val();
        self.wctx.write_enable.next = self.d2_act.val() & self.d2_go.q.val();
        self.dmaq.push.next = self.d2_act.val() & self.d2_go.q.val();
        self.dmaq.push_data.next = self.d2_slot.q.val();
        self.m_rd.valid.next = self.rd_v.q.val();
        self.m_rd.addr.next = self.rd_addr.q.val();
        self.m_rd.len.next = 128.into(); // REQ_FETCH_WQE_BYTES
        if self.m_rd.ready.val() {
            self.rd_v.d.next = false;
        }
        if self.d2_act.val() & self.d2_go.q.val() {
            self.rd_v.d.next = true;
            self.rd_addr.d.next = self.d2_addr.q.val();
        }

        // ================= the WQE: two beats, then the job or a stop =================
        // a first beat may wait in `wq_nx` while the full pair waits for the job register
        self.s_rd.tready.next = !(self.wq_full.q.val() & self.wq_half.q.val());
        self.beat.next = self.s_rd.tvalid.val() & !(self.wq_full.q.val() & self.wq_half.q.val());
        if self.j_go.val() {
            self.wq_full.d.next = false;
            self.wq_err.d.next = self.wq_nx_err.q.val();
            self.wq_lo.d.next = self.wq_nx.q.val();
        }
        if self.beat.val() {
            if self.wq_half.q.val() {
                self.wq_hi.d.next = self.s_rd.tdata.val();
                self.wq_err.d.next = self.wq_err.q.val() | self.s_rd.tuser.val().get_bit(0);
                self.wq_full.d.next = true;
                self.wq_half.d.next = false;
            } else {
                self.wq_half.d.next = true;
                if self.wq_full.q.val() & !self.j_go.val() {
                    self.wq_nx.d.next = self.s_rd.tdata.val();
                    self.wq_nx_err.d.next = self.s_rd.tuser.val().get_bit(0);
                } else {
                    self.wq_lo.d.next = self.s_rd.tdata.val();
                    self.wq_err.d.next = self.s_rd.tuser.val().get_bit(0);
                }
            }
        }
        self.dmaq.pop.next = self.j_go.val();
        self.jobq.push.next = self.j_go.val() & !self.j_block.val();
        self.jobq.push_data.next = self.jhead.val();
        if self.m_job.ready.val() {
            self.job_v.d.next = false;
        }
        if self.j_go.val() & !self.j_block.val() {
            self.job_v.d.next = true;
            self.rd_start.d.next = self
                .rd_start
                .q
                .val()
                .replace_bit(self.jhead.val().index(), self.rdop.val() & self.jc.val().get_bit(154));
        }
        // the job's data registers follow the WQE stage while the job register is free
        // (a short enable: no fan-out from the stage's decision)
        if !self.job_v.q.val() | self.m_job.ready.val() {
            self.job_ctx.d.next = self.jc.val();
            self.job_path.d.next = self.qpc_path.read_data.val();
            self.job_lo.d.next = self.wq_lo.q.val();
            self.job_sges.d.next = self.wq_hi.q.val();
        }
        self.m_job.valid.next = self.job_v.q.val();
        self.m_job.qpn.next = self.job_ctx.q.val().get_bits::<REQ_QPN_BITS>(0);
        self.m_job.dest_qpn.next = self.job_ctx.q.val().get_bits::<24>(14);
        self.m_job.pkey.next = self.job_ctx.q.val().get_bits::<16>(38);
        self.m_job.pd.next = self.job_ctx.q.val().get_bits::<24>(54);
        self.m_job.pmtu.next = self.job_ctx.q.val().get_bits::<3>(78);
        self.m_job.sq_index.next = self.job_ctx.q.val().get_bits::<16>(81);
        self.m_job.psn.next = self.job_ctx.q.val().get_bits::<24>(97);
        self.m_job.pkt_index.next = bit_cast::<24, 23>(self.job_ctx.q.val().get_bits::<23>(121));
        self.m_job.budget.next = bit_cast::<24, 8>(self.job_ctx.q.val().get_bits::<8>(144));
        self.m_job.path.next = self.job_path.q.val();
        self.m_job.opcode.next = self.job_lo.q.val().get_bits::<8>(WQE_OPCODE);
        self.m_job.solicited.next = self.job_lo.q.val().get_bit(WQE_SOLICITED);
        self.m_job.signaled.next = self.job_lo.q.val().get_bit(WQE_SIGNALED);
        self.m_job.is_inline.next = self.job_lo.q.val().get_bit(WQE_INLINE);
        self.m_job.imm.next = self.job_lo.q.val().get_bits::<32>(WQE_IMM);
        self.m_job.remote_va.next = self.job_lo.q.val().get_bits::<64>(WQE_REMOTE_VA);
        self.m_job.rkey.next = self.job_lo.q.val().get_bits::<32>(WQE_RKEY);
        self.m_job.compare_add.next = self.job_lo.q.val().get_bits::<64>(WQE_COMPARE_ADD);
        self.m_job.swap.next = self.job_lo.q.val().get_bits::<64>(WQE_SWAP);
        self.m_job.wr_id.next = self.job_lo.q.val().get_bits::<64>(WQE_WR_ID);
        self.m_job.num_sge.next = self.job_lo.q.val().get_bits::<8>(WQE_NUM_SGE);
        self.m_job.sges.next = self.job_sges.q.val();

        // ================= write-back: W computes, B writes, E reports, F answers =================
        self.s_rdone.ready.next = self.rr.q.val();
        if self.s_rdone.valid.val() & self.rr.q.val() {
            self.rr.d.next = false;
            self.w_v.d.next = true;
            self.w_slot.d.next = self.jobq.head.val();
            self.w_next.d.next = self.s_rdone.next_psn.val();
            self.w_pkt.d.next = self.s_rdone.next_pkt.val();
            self.w_fin.d.next = self.s_rdone.finished.val();
            self.w_err.d.next = self.s_rdone.err.val();
            self.w_sq.d.next = self.s_rdone.sq_index.val();
        }
        self.jobq.pop.next = self.s_rdone.valid.val() & self.rr.q.val();
        self.wctx.read_addr.next = self.w_slot.q.val();
        self.wc.next = self.wctx.read_data.val();
        self.ser.next = self.w_next.q.val() - self.wc.val().get_bits::<24>(40);
        self.new_cwqe.next = self.w_sq.q.val();
        if self.w_fin.q.val() {
            self.new_cwqe.next = self.w_sq.q.val() + 1;
        }
        self.new_win.next = self.w_next.q.val() - self.wc.val().get_bits::<24>(16);
        self.new_rdst.next = self.wc.val().get_bits::<5>(64);
        if self.rd_start.q.val().get_bit(self.w_slot.q.val().index()) {
            self.new_rdst.next = self.wc.val().get_bits::<5>(64) + 1;
        }
        // SENT_END: the serial max of SENT_END and next_psn
        self.new_sent.next = self.wc.val().get_bits::<24>(40);
        if (self.ser.val() != 0) & !self.ser.val().get_bit(23) {
            self.new_sent.next = self.w_next.q.val();
        }
        // the requester's bytes of qps, at the layout's positions
        self.wbd.next = (bit_cast::<96, 1>(true.into()) << QPSW_REQ_STARTED)
            | (bit_cast::<96, 5>(self.new_rdst.val()) << QPSW_RD_STARTED)
            | (bit_cast::<96, 24>(self.w_next.q.val()) << QPSW_NEXT_PSN)
            | (bit_cast::<96, 24>(self.new_sent.val()) << QPSW_SENT_END)
            | (bit_cast::<96, 16>(self.new_cwqe.val()) << QPSW_CURSOR_WQE);
        if self.w_v.q.val() {
            self.w_v.d.next = false;
            self.f_qpn.d.next = self.wc.val().get_bits::<REQ_QPN_BITS>(69);
            self.f_more.d.next =
                (self.new_cwqe.val() != self.wc.val().get_bits::<16>(0)) & (self.new_win.val() < self.max_win.val());
            if self.w_err.q.val().any() {
                self.e_v.d.next = true;
                self.f_more.d.next = false;
            } else {
                self.b_v.d.next = true;
                self.b_data.d.next = self.wbd.val();
                if !self.w_fin.q.val() {
                    self.b_data.d.next =
                        self.wbd.val() | (bit_cast::<96, 23>(self.w_pkt.q.val().get_bits::<23>(0)) << QPSW_CURSOR_PKT);
                }
            }
        }
        self.m_qps.valid.next = self.b_v.q.val() | self.qps_rv.q.val();
        self.m_qps.op.next = 0.into(); // CACHE_OP_READ
        self.m_qps.index.next = bit_cast::<24, REQ_QPN_BITS>(self.rq_qpn.q.val());
        self.m_qps.id.next = bit_cast::<8, 3>(self.rq_slot.q.val());
        self.m_qps.mask.next = 0.into();
        self.m_qps.data.next = 0.into();
        if self.b_v.q.val() {
            self.m_qps.op.next = 1.into(); // CACHE_OP_WRITE
            self.m_qps.index.next = bit_cast::<24, REQ_QPN_BITS>(self.f_qpn.q.val());
            self.m_qps.id.next = bit_cast::<8, 3>(self.w_slot.q.val()) | bits::<8>(0x80); // REQ_FETCH_WB_ID
            self.m_qps.mask.next = RF_QPS_REQ_MASK.into();
            self.m_qps.data.next = bit_cast::<512, 96>(self.b_data.q.val());
        }
        self.wb_take.next = self.b_v.q.val() & self.m_qps.ready.val();
        self.m_err.valid.next = self.e_v.q.val();
        self.m_err.qpn.next = self.f_qpn.q.val();
        self.m_err.sq_index.next = self.w_sq.q.val();
        self.m_err.err.next = self.w_err.q.val();
        if self.wb_take.val() {
            self.b_v.d.next = false;
            self.f_v.d.next = true;
        }
        if self.e_v.q.val() & self.m_err.ready.val() {
            self.e_v.d.next = false;
            self.f_v.d.next = true;
        }
        if self.f_go.val() {
            self.f_v.d.next = false;
            self.rr.d.next = true;
        }

        // ================= the scheduler's done: F, then J, then D2 =================
        self.m_sdone.valid.next = self.dn_v.q.val();
        self.m_sdone.qpn.next = self.dn_qpn.q.val();
        self.m_sdone.more.next = self.dn_more.q.val();
        if self.m_sdone.ready.val() {
            self.dn_v.d.next = false;
        }
        if self.f_go.val() {
            self.dn_v.d.next = true;
            self.dn_qpn.d.next = self.f_qpn.q.val();
            self.dn_more.d.next = self.f_more.q.val();
            self.freed.next = self.freed.val().replace_bit(self.w_slot.q.val().index(), true);
        } else if self.j_go.val() & self.j_block.val() {
            self.dn_v.d.next = true;
            self.dn_qpn.d.next = self.jc.val().get_bits::<REQ_QPN_BITS>(0);
            self.dn_more.d.next = false;
            self.freed.next = self.freed.val().replace_bit(self.jhead.val().index(), true);
        } else if self.d2_act.val() & !self.d2_go.q.val() {
            self.dn_v.d.next = true;
            self.dn_qpn.d.next = self.d2_wctx.q.val().get_bits::<REQ_QPN_BITS>(69);
            self.dn_more.d.next = false;
            self.freed.next = self.freed.val().replace_bit(self.d2_slot.q.val().index(), true);
        }

        // ================= slot flags =================
        self.gc_n.next = self.got_c.q.val();
        self.gs_n.next = self.got_s.q.val();
        self.bad_n.next = self.bad.q.val();
        if self.s_qpc.valid.val() {
            self.gc_n.next = self.gc_n.val() | bits::<8>(1 << self.s_qpc.id.val().get_bits::<3>(0).index());
            if self.s_qpc.err.val() {
                self.bad_n.next = self.bad_n.val() | bits::<8>(1 << self.s_qpc.id.val().get_bits::<3>(0).index());
            }
        }
        if self.s_qps.valid.val() & !self.s_qps.id.val().get_bit(7) {
            self.gs_n.next = self.gs_n.val() | bits::<8>(1 << self.s_qps.id.val().get_bits::<3>(0).index());
            if self.s_qps.err.val() {
                self.bad_n.next = self.bad_n.val() | bits::<8>(1 << self.s_qps.id.val().get_bits::<3>(0).index());
            }
        }
        self.free_n.next = self.free.q.val() | self.freed.val();
        if self.take_g.val() {
            self.free_n.next = self.free_n.val() & !bits::<8>(1 << self.sel.val().index());
            self.gc_n.next = self.gc_n.val() & !bits::<8>(1 << self.sel.val().index());
            self.gs_n.next = self.gs_n.val() & !bits::<8>(1 << self.sel.val().index());
            self.bad_n.next = self.bad_n.val() & !bits::<8>(1 << self.sel.val().index());
        }
        self.free.d.next = self.free_n.val();
        self.got_c.d.next = self.gc_n.val();
        self.got_s.d.next = self.gs_n.val();
        self.bad.d.next = self.bad_n.val();
        // a grant when a slot is free and both requests have left (at most one per two cycles)
        self.g_rdy.d.next = self.free_n.val().any() & !self.take_g.val() & !self.qpc_rv_n.val() & !self.qps_rv_n.val();

        if self.reset.val() {
            self.free.d.next = 0xff.into();
            self.got_c.d.next = 0.into();
            self.got_s.d.next = 0.into();
            self.g_rdy.d.next = false;
            self.qpc_rv.d.next = false;
            self.qps_rv.d.next = false;
            self.d1_v.d.next = false;
            self.d2_v.d.next = false;
            self.rd_v.d.next = false;
            self.wq_half.d.next = false;
            self.wq_full.d.next = false;
            self.wq_err.d.next = false;
            self.job_v.d.next = false;
            self.rr.d.next = true;
            self.w_v.d.next = false;
            self.b_v.d.next = false;
            self.e_v.d.next = false;
            self.f_v.d.next = false;
            self.dn_v.d.next = false;
        }
    }
}
