//! `RxLookup`: the receive path's context lookup. Every header `RxHold`
//! releases (ICRC good) gets its QP's `qpc` and `qps` entries from the
//! context caches and its admission (`QpAdmit`: the QP exists, its state
//! and type take the opcode; a request of a QP whose completer is in error
//! is refused, a record made on chip is admitted in ERR:
//! `qp_modify::record_admits`), and leaves in arrival order as the record
//! `RespCheck` (requests) or `CompAck` (responses: READ responses, ACKs,
//! atomic ACKs) take, with the payload's destination on `m_dest` for
//! `RxPaySplit` (docs/core.md, "The receive side").
//!
//! | port | dir | what |
//! |---|---|---|
//! | `qpn_high` | in | `RegFile::qpn_high` (through `HostIf`): the QPN bits that must be clear for a QPN to name a QP (the table's `qpc_log_entries` and the build's `LOG_QPS`); a QPN with one of them set, or 0, names no QP and is not looked up |
//! | `s_hdr` | in | `RxHold::m_hdr`: headers in the `wire::RX_HDR_FIELDS` layout; `tready` a function of registers only |
//! | `s_expire` | in | a QP's retransmit timer ran out (`RetryTimer::m_expire`): taken into a register, it enters the lookup as the record of an ACKNOWLEDGE with a PSN sequence NAK syndrome (`TIMER_OPCODE`, `TIMER_SYNDROME`) and the bit `RXF_TIMER` set, for `CompAck` (a NAK at UNA that always resends); it has no `m_dest` and its admission drop is not counted |
//! | `s_local` | in | a send WQE the requester refused (`ReqTx::m_err`'s QPN): taken into a register, it enters as a timer's record does (after a waiting expiry), with `RXF_LOCAL_ERR` set beside `RXF_TIMER`: `CompAck` flushes the QP's list, the refused WQE's entry completing with its own status |
//! | `s_rq_flush` | in | a QP whose posted RECVs must be flushed (`ReqFetch::m_rq_flush`: the send queue of a QP in error is done): taken into a register, it enters after a waiting expiry and refused WQE, as a request-path record (opcode `FLUSH_OPCODE`, `RXF_TIMER` and `RXF_RQ_FLUSH` set), admitted only for a QP in error (`record_admits`), for `RespCheck`, which completes the QP's posted RECVs with WR_FLUSH_ERR; no `m_dest`, its drop not counted |
//! | `m_qpc` / `s_qpc` | out / in | a `qpc` cache user port: reads, id = the slot; answers in any order, always taken |
//! | `m_qps` / `s_qps` | out / in | a `qps` cache user port: the reads (id = slot) and the receive side's writes (id bit 5), in one port so a write taken before a read of its entry is seen by it; write answers are dropped |
//! | `s_req_wb` / `s_comp_wb` | in | one item per request (response) packet delivered, in order, after its execution: its `qps` write (`mask` 0: none). Taking it retires the packet from the hazard check |
//! | `m_req` / `m_resp` | out | {`hdr`, `qpc`, `qps`}: the record for `RespCheck::s_pkt` / `CompAck::s_pkt`; registers |
//! | `m_wake` | out | the QPN of each `s_comp_wb` or `s_req_wb` write with `wake` (the completer's: UNA moved, a record in error; the responder's: its move into error), offered once the write was taken on `m_qps` (so in the cache port's queue ahead of any later request, such as the requester's read after its grant): the send scheduler's second work source; a register |
//! | `m_dest` | out | one per header, in order: `RX_DEST_DROP`, `RX_DEST_REQ` or `RX_DEST_RESP`, where its payload goes; a register |
//! | `cnt_drop[r]` | out | packets dropped by `AdmitReason` code `r` (1..7); `cnt_drop[0]`: a context read failed |
//!
//! **The hazard.** A packet's `qps` entry is read at its lookup and written
//! back after its execution; a later packet of the same QP on the same path
//! (requests and responses touch different bytes: the responder's and the
//! completer's) waits until that write has been queued on `m_qps` ahead of
//! its own read (`RxInflight`, one per path). So every record carries a
//! `qps` entry holding all its QP's earlier writes, and the stages after need
//! no forwarding of their own (`RespCheck`'s is off in the core: `fwd` low). The cost: packets
//! of one QP are one per lookup-to-write-back loop (docs/core.md).
//!
//! **Turns.** The three on-chip records enter in priority order (expiry,
//! refused WQE, RQ flush); while one of them and a header both wait, they
//! take turns (`chip_last`: a header goes after each on-chip record), so a
//! burst of timer expiries over many QPs delays the headers (among them the
//! ACKs that would stop those timers) by one issue slot each, not for the
//! whole burst. Their order does not matter: every record is judged by its
//! QP's state when it is looked up, whichever comes first.
//!
//! **Order of events.** A header is taken into the issue register; its QPN
//! is compared with the path's packets in flight in that cycle. Issued (one
//! cycle later at the earliest) when the check passes, a ring slot and an
//! in-flight entry are free and both request registers are empty (a write
//! waiting for `m_qps` goes first): both reads are offered from registers,
//! the header is written into the slot. Answers are written into the slot's
//! `qpc` / `qps` LUTRAM as they come. The oldest slot with both answers
//! moves into the output register; `QpAdmit` judges it the next cycle; then
//! it is offered on `m_req` / `m_resp` (admitted) or dropped and counted,
//! with its `m_dest` either way. Rate: a header per two cycles (125 M/s,
//! above a 100G port's 77 M packets/s). Latency with both caches hitting
//! (`H` cycles from a request offered to its answer taken): taken at t,
//! issued at t + 1, requests offered at t + 2, answers at t + 2 + H, on
//! `m_req` at t + 5 + H ([`RX_LOOKUP_LATENCY`] + H).

use super::{ExpireIn, QpnIn, QpnOut, QpsWrIn, RespPktIn, RxInflight, RX_INFLIGHT_LOG};
use crate::axis::HdrIn;
use crate::consts::*;
use crate::host::{CacheReqOut, CacheRespIn, QpAdmit};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the ring's slots: packets between their lookup and the output.
pub const RX_LOOKUP_LOG: usize = 4;
/// Cycles from a header taken to its record offered, besides the caches'
/// hit latency (a request offered to its answer taken).
pub const RX_LOOKUP_LATENCY: u64 = 5;
// `RXL_WRITE_ID` (the id bit of the receive side's `qps` writes) and the
// `m_dest` codes `RX_DEST_*` are in `consts.rs` (the logic names them).
/// Drop counters: index = `AdmitReason` code, 0 = a context read failed.
pub const RX_DROP_REASONS: usize = 8;
const _: () = assert!(RX_LOOKUP_LOG == RX_INFLIGHT_LOG && (1 << RX_LOOKUP_LOG) <= RXL_WRITE_ID);
const _: () = assert!(RX_DROP_REASONS == 8 && RX_DEST_RESP < 4);
// literals in the logic: the ring count's top bit (4), the write id bit (5)
const _: () = assert!(RX_LOOKUP_LOG == 4 && RXL_WRITE_ID == 1 << 5);

/// The record for `RespCheck::s_pkt` / `CompAck::s_pkt`.
#[derive(LogicInterface, Default)]
#[join = "RespPktIn"]
pub struct RespPktOut {
    pub hdr: Signal<Out, Bits<1024>>,
    pub qpc: Signal<Out, Bits<1024>>,
    pub qps: Signal<Out, Bits<512>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// Where a packet's payload goes (`RX_DEST_*`).
#[derive(LogicInterface, Default)]
#[join = "DestIn"]
pub struct DestOut {
    pub dest: Signal<Out, Bits<2>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "DestOut"]
pub struct DestIn {
    pub dest: Signal<In, Bits<2>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct RxLookup {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub qpn_high: Signal<In, Bits<24>>,
    pub s_hdr: HdrIn<1024>,
    pub s_expire: ExpireIn<24>,
    pub s_local: QpnIn<24>,
    pub s_rq_flush: QpnIn<24>,
    pub m_qpc: CacheReqOut<1024, 128>,
    pub s_qpc: CacheRespIn<1024>,
    pub m_qps: CacheReqOut<512, 64>,
    pub s_qps: CacheRespIn<512>,
    pub s_req_wb: QpsWrIn,
    pub s_comp_wb: QpsWrIn,
    pub m_req: RespPktOut,
    pub m_resp: RespPktOut,
    pub m_dest: DestOut,
    pub m_wake: QpnOut<24>,
    pub cnt_drop: [Signal<Out, Bits<32>>; RX_DROP_REASONS],

    // ---- issue
    i_valid: Reg<Bit>,
    i_hdr: Reg<Bits<1024>>,
    i_resp: Reg<Bit>,
    i_qpn: Reg<Bits<24>>,
    // whether the QPN names a QP, decided as the header is taken (off the issue path)
    i_names: Reg<Bit>,
    e_valid: Reg<Bit>,
    e_qpn: Reg<Bits<24>>,
    e_rnr: Reg<Bit>,
    l_valid: Reg<Bit>,
    l_qpn: Reg<Bits<24>>,
    f_valid: Reg<Bit>,
    f_qpn: Reg<Bits<24>>,
    // the last record taken into the issue stage was made on chip: a header
    // waiting now goes before the next on-chip record
    chip_last: Reg<Bit>,
    any_chip: Signal<Local, Bit>,
    syn_flush: Signal<Local, Bit>,
    syn_qpn: Signal<Local, Bits<24>>,
    take_exp: Signal<Local, Bit>,
    exp_hdr: Signal<Local, Bits<1024>>,
    a_tmr: Signal<Local, Bit>,
    in_op: Signal<Local, Bits<8>>,
    in_resp: Signal<Local, Bit>,
    take_hdr: Signal<Local, Bit>,
    i_ok: Signal<Local, Bit>,
    hazard: Signal<Local, Bit>,
    path_room: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    issue_look: Signal<Local, Bit>,
    req_fl: RxInflight,
    resp_fl: RxInflight,
    // ---- the ring: header, answers, slot facts (resp, no lookup, in-flight entry)
    hdr_ram: LutRam<Bits<1024>, RX_LOOKUP_LOG>,
    qpc_ram: LutRam<Bits<1024>, RX_LOOKUP_LOG>,
    qps_ram: LutRam<Bits<512>, RX_LOOKUP_LOG>,
    meta_ram: LutRam<Bits<6>, RX_LOOKUP_LOG>,
    got_c: Reg<Bits<16>>,
    got_s: Reg<Bits<16>>,
    bad: Reg<Bits<16>>,
    rw: Reg<Bits<RX_LOOKUP_LOG>>,
    rh: Reg<Bits<RX_LOOKUP_LOG>>,
    rcnt: Reg<Bits<5>>,
    gc_n: Signal<Local, Bits<16>>,
    gs_n: Signal<Local, Bits<16>>,
    bad_n: Signal<Local, Bits<16>>,
    qps_ans: Signal<Local, Bit>,
    head_ready: Signal<Local, Bit>,
    // ---- requests
    p_valid: Reg<Bit>,
    p_qpn: Reg<Bits<24>>,
    p_id: Reg<Bits<8>>,
    q_valid: Reg<Bit>,
    q_op: Reg<Bits<2>>,
    q_qpn: Reg<Bits<24>>,
    q_id: Reg<Bits<8>>,
    q_mask: Reg<Bits<64>>,
    q_data: Reg<Bits<512>>,
    q_wake: Reg<Bit>,
    // ---- the wake of the completer's write in `q` once it is taken
    wk_valid: Reg<Bit>,
    wk_qpn: Reg<Bits<24>>,
    // ---- write-backs: one input register each
    wr: RxWbReg,
    wc: RxWbReg,
    // ---- output
    a_valid: Reg<Bit>,
    a_age: Reg<Bit>,
    a_hdr: Reg<Bits<1024>>,
    a_qpc: Reg<Bits<1024>>,
    a_qps: Reg<Bits<512>>,
    a_meta: Reg<Bits<6>>,
    a_bad: Reg<Bit>,
    qp_adm: QpAdmit,
    a_done: Signal<Local, Bit>,
    a_drop: Signal<Local, Bit>,
    a_load: Signal<Local, Bit>,
    d_valid: Reg<Bit>,
    d_dest: Reg<Bits<2>>,
    cnt: [Reg<Bits<32>>; RX_DROP_REASONS],
    why: Signal<Local, Bits<8>>,
    kind: TypeTag<Self>,
}

/// One write-back input register (the port's `ready` is its emptiness).
#[derive(LogicBlock, Default)]
pub struct RxWbReg {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_wb: QpsWrIn,
    /// Holding an item with a write (for the `qps` port).
    pub has_write: Signal<Out, Bit>,
    /// Holding an item without a write: it retires at once.
    pub no_write: Signal<Out, Bit>,
    pub qpn: Signal<Out, Bits<24>>,
    pub mask: Signal<Out, Bits<64>>,
    pub data: Signal<Out, Bits<512>>,
    pub wake: Signal<Out, Bit>,
    /// The item leaves (its write was moved to the port, or it had none).
    pub pop: Signal<In, Bit>,
    v: Reg<Bit>,
    r_qpn: Reg<Bits<24>>,
    r_mask: Reg<Bits<64>>,
    r_data: Reg<Bits<512>>,
    r_wake: Reg<Bit>,
    kind: TypeTag<Self>,
}

impl Logic for RxWbReg {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, v, r_qpn, r_mask, r_data, r_wake);
        self.s_wb.ready.next = !self.v.q.val();
        self.has_write.next = self.v.q.val() & self.r_mask.q.val().any();
        self.no_write.next = self.v.q.val() & !self.r_mask.q.val().any();
        self.qpn.next = self.r_qpn.q.val();
        self.mask.next = self.r_mask.q.val();
        self.data.next = self.r_data.q.val();
        self.wake.next = self.r_wake.q.val();
        if self.pop.val() {
            self.v.d.next = false;
        }
        if self.s_wb.valid.val() & !self.v.q.val() {
            self.v.d.next = true;
            self.r_qpn.d.next = self.s_wb.qpn.val();
            self.r_mask.d.next = self.s_wb.mask.val();
            self.r_data.d.next = self.s_wb.data.val();
            self.r_wake.d.next = self.s_wb.wake.val();
        }
        if self.reset.val() {
            self.v.d.next = false;
        }
    }
}

impl Logic for RxLookup {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, i_valid, i_hdr, i_resp, i_qpn, i_names, got_c, got_s, bad, rw, rh, rcnt);
        dff_setup!(self, clock, p_valid, p_qpn, p_id, q_valid, q_op, q_qpn, q_id, q_mask, q_data, q_wake);
        dff_setup!(self, clock, wk_valid, wk_qpn, e_valid, e_qpn, e_rnr, l_valid, l_qpn, f_valid, f_qpn, chip_last);
        dff_setup!(self, clock, a_valid, a_age, a_hdr, a_qpc, a_qps, a_meta, a_bad, d_valid, d_dest);
        clock!(self, clock, req_fl, resp_fl, hdr_ram, qpc_ram, qps_ram, meta_ram, wr, wc, qp_adm);
        self.req_fl.reset.next = self.reset.val();
        self.resp_fl.reset.next = self.reset.val();
        self.wr.reset.next = self.reset.val();
        self.wc.reset.next = self.reset.val();
        self.qp_adm.reset.next = self.reset.val();
        for k in 0..RX_DROP_REASONS {
            self.cnt[k].clock.next = self.clock.val();
            self.cnt[k].d.next = self.cnt[k].q.val();
            self.cnt_drop[k].next = self.cnt[k].q.val();
        }

        // ---- a header taken: its path, and the path's in-flight compare
        // a timer's expiry waits in its register and goes first: the record
        // of an ACKNOWLEDGE with a PSN sequence NAK syndrome, marked `RXF_TIMER`
        self.s_expire.ready.next = !self.e_valid.q.val();
        if self.s_expire.valid.val() & !self.e_valid.q.val() {
            self.e_valid.d.next = true;
            self.e_qpn.d.next = self.s_expire.qpn.val();
            self.e_rnr.d.next = self.s_expire.kind.val();
        }
        // a refused WQE's record waits in its own register, behind an expiry
        self.s_local.ready.next = !self.l_valid.q.val();
        if self.s_local.valid.val() & !self.l_valid.q.val() {
            self.l_valid.d.next = true;
            self.l_qpn.d.next = self.s_local.qpn.val();
        }
        // an RQ flush waits in a third register, behind both (a request-path record)
        self.s_rq_flush.ready.next = !self.f_valid.q.val();
        if self.s_rq_flush.valid.val() & !self.f_valid.q.val() {
            self.f_valid.d.next = true;
            self.f_qpn.d.next = self.s_rq_flush.qpn.val();
        }
        // on-chip records and headers take turns while both wait (a burst of
        // timer expiries must not hold back the ACKs that would stop them)
        self.any_chip.next = self.e_valid.q.val() | self.l_valid.q.val() | self.f_valid.q.val();
        self.take_exp.next =
            self.any_chip.val() & !self.i_valid.q.val() & !(self.chip_last.q.val() & self.s_hdr.tvalid.val());
        self.syn_flush.next = !self.e_valid.q.val() & !self.l_valid.q.val();
        if self.take_exp.val() & self.e_valid.q.val() {
            self.e_valid.d.next = false;
        }
        // (only when it is the one taken: a refused WQE's record taken on
        // `s_local` in the cycle an RQ flush leaves must stay)
        if self.take_exp.val() & !self.e_valid.q.val() & self.l_valid.q.val() {
            self.l_valid.d.next = false;
        }
        if self.take_exp.val() & self.syn_flush.val() {
            self.f_valid.d.next = false;
        }
        self.syn_qpn.next = self.f_qpn.q.val();
        if self.l_valid.q.val() {
            self.syn_qpn.next = self.l_qpn.q.val();
        }
        if self.e_valid.q.val() {
            self.syn_qpn.next = self.e_qpn.q.val();
        }
        self.exp_hdr.next = (bit_cast::<1024, 8>(TIMER_OPCODE.into()) << TIMER_SH_OPCODE)
            | (bit_cast::<1024, 8>(TIMER_SYNDROME.into()) << TIMER_SH_SYNDROME)
            | (bit_cast::<1024, 24>(self.syn_qpn.val()) << TIMER_SH_DESTQP)
            | (bit_cast::<1024, 1>(true.into()) << TIMER_SH_FLAG)
            | (bit_cast::<1024, 1>((self.e_valid.q.val() & self.e_rnr.q.val()).into()) << TIMER_SH_RNR)
            | (bit_cast::<1024, 1>((!self.e_valid.q.val() & self.l_valid.q.val()).into()) << TIMER_SH_LOCAL);
        if self.syn_flush.val() {
            self.exp_hdr.next = (bit_cast::<1024, 8>(FLUSH_OPCODE.into()) << TIMER_SH_OPCODE)
                | (bit_cast::<1024, 24>(self.f_qpn.q.val()) << TIMER_SH_DESTQP)
                | (bit_cast::<1024, 1>(true.into()) << TIMER_SH_FLAG)
                | (bit_cast::<1024, 1>(true.into()) << TIMER_SH_RQ_FLUSH);
        }
        // (from registers only: no on-chip record waits, or the last taken was one)
        self.s_hdr.tready.next = !self.i_valid.q.val() & (!self.any_chip.val() | self.chip_last.q.val());
        self.take_hdr.next =
            self.s_hdr.tvalid.val() & !self.i_valid.q.val() & (!self.any_chip.val() | self.chip_last.q.val());
        if self.take_exp.val() {
            self.chip_last.d.next = true;
        }
        if self.take_hdr.val() {
            self.chip_last.d.next = false;
        }
        self.in_op.next = self.s_hdr.tdata.val().get_bits::<8>(RXF_OPCODE);
        self.in_resp.next = (self.in_op.val().get_bits::<3>(5) == 0)
            & (self.in_op.val().get_bits::<5>(0) >= RC_RESP_FIRST)
            & (self.in_op.val().get_bits::<5>(0) <= RC_RESP_LAST);
        self.req_fl.probe.next = self.take_hdr.val() & !self.in_resp.val();
        self.resp_fl.probe.next = self.take_hdr.val() & self.in_resp.val();
        self.req_fl.probe_qpn.next = self.s_hdr.tdata.val().get_bits::<24>(RXF_DESTQP);
        self.resp_fl.probe_qpn.next = self.s_hdr.tdata.val().get_bits::<24>(RXF_DESTQP);
        if self.take_exp.val() {
            self.req_fl.probe.next = self.syn_flush.val();
            self.req_fl.probe_qpn.next = self.syn_qpn.val();
            self.resp_fl.probe.next = !self.syn_flush.val();
            self.resp_fl.probe_qpn.next = self.syn_qpn.val();
            self.i_valid.d.next = true;
            self.i_hdr.d.next = self.exp_hdr.val();
            self.i_resp.d.next = !self.syn_flush.val();
            self.i_qpn.d.next = self.syn_qpn.val();
            self.i_names.d.next = self.syn_qpn.val().any() & !(self.syn_qpn.val() & self.qpn_high.val()).any();
        }
        if self.take_hdr.val() {
            self.i_valid.d.next = true;
            self.i_hdr.d.next = self.s_hdr.tdata.val();
            self.i_resp.d.next = self.in_resp.val();
            self.i_qpn.d.next = self.s_hdr.tdata.val().get_bits::<24>(RXF_DESTQP);
            self.i_names.d.next = self.s_hdr.tdata.val().get_bits::<24>(RXF_DESTQP).any()
                & !(self.s_hdr.tdata.val().get_bits::<24>(RXF_DESTQP) & self.qpn_high.val()).any();
        }

        // ---- issue: a slot, the reads (or none for a QPN that names no QP)
        self.i_ok.next = self.i_names.q.val();
        self.hazard.next = self.req_fl.hazard.val();
        self.path_room.next = self.req_fl.room.val();
        if self.i_resp.q.val() {
            self.hazard.next = self.resp_fl.hazard.val();
            self.path_room.next = self.resp_fl.room.val();
        }
        self.issue_look.next = self.i_valid.q.val()
            & !self.rcnt.q.val().get_bit(4)
            & self.i_ok.val()
            & !self.hazard.val()
            & self.path_room.val()
            & !self.p_valid.q.val()
            & !self.q_valid.q.val()
            & !self.wr.has_write.val()
            & !self.wc.has_write.val();
        self.issue.next =
            self.issue_look.val() | (self.i_valid.q.val() & !self.rcnt.q.val().get_bit(4) & !self.i_ok.val());
        self.req_fl.push.next = self.issue_look.val() & !self.i_resp.q.val();
        self.resp_fl.push.next = self.issue_look.val() & self.i_resp.q.val();
        self.req_fl.push_qpn.next = self.i_qpn.q.val();
        self.resp_fl.push_qpn.next = self.i_qpn.q.val();
        self.hdr_ram.write_addr.next = self.rw.q.val();
        self.hdr_ram.write_data.next = self.i_hdr.q.val();
        self.hdr_ram.write_enable.next = self.issue.val();
        self.meta_ram.write_addr.next = self.rw.q.val();
        self.meta_ram.write_data.next = bit_cast::<6, 1>(self.i_resp.q.val().into())
            | (bit_cast::<6, RX_INFLIGHT_LOG>(self.req_fl.w_idx.val()) << 1);
        if self.i_resp.q.val() {
            self.meta_ram.write_data.next =
                bit_cast::<6, 1>(true.into()) | (bit_cast::<6, RX_INFLIGHT_LOG>(self.resp_fl.w_idx.val()) << 1);
        }
        self.meta_ram.write_enable.next = self.issue.val();
        if self.issue.val() {
            self.i_valid.d.next = false;
            self.rw.d.next = self.rw.q.val() + 1;
        }
        // the request registers empty when taken (then maybe reloaded below)
        if self.m_qpc.ready.val() {
            self.p_valid.d.next = false;
        }
        if self.m_qps.ready.val() {
            self.q_valid.d.next = false;
        }
        // a write with `wake` taken: the wake is offered (its register is
        // empty: a wake write enters `q` only then)
        self.m_wake.qpn.next = self.wk_qpn.q.val();
        self.m_wake.valid.next = self.wk_valid.q.val();
        if self.m_wake.ready.val() {
            self.wk_valid.d.next = false;
        }
        if self.q_valid.q.val() & self.m_qps.ready.val() & self.q_wake.q.val() {
            self.wk_valid.d.next = true;
            self.wk_qpn.d.next = self.q_qpn.q.val();
        }
        if self.issue_look.val() {
            self.p_valid.d.next = true;
            self.p_qpn.d.next = self.i_qpn.q.val();
            self.p_id.d.next = bit_cast::<8, RX_LOOKUP_LOG>(self.rw.q.val());
            self.q_valid.d.next = true;
            self.q_op.d.next = 0.into(); // CACHE_OP_READ
            self.q_qpn.d.next = self.i_qpn.q.val();
            self.q_id.d.next = bit_cast::<8, RX_LOOKUP_LOG>(self.rw.q.val());
            self.q_mask.d.next = 0.into();
            self.q_wake.d.next = false;
        }

        // ---- the request ports; writes before reads on `m_qps`
        self.m_qpc.op.next = 0.into(); // CACHE_OP_READ
        self.m_qpc.index.next = self.p_qpn.q.val();
        self.m_qpc.id.next = self.p_id.q.val();
        self.m_qpc.mask.next = 0.into();
        self.m_qpc.data.next = 0.into();
        self.m_qpc.valid.next = self.p_valid.q.val();
        self.m_qps.op.next = self.q_op.q.val();
        self.m_qps.index.next = self.q_qpn.q.val();
        self.m_qps.id.next = self.q_id.q.val();
        self.m_qps.mask.next = self.q_mask.q.val();
        self.m_qps.data.next = self.q_data.q.val();
        self.m_qps.valid.next = self.q_valid.q.val();
        QpsWrIn::link(&mut self.s_req_wb, &mut self.wr.s_wb);
        QpsWrIn::link(&mut self.s_comp_wb, &mut self.wc.s_wb);
        self.wr.pop.next = self.wr.no_write.val();
        self.wc.pop.next = self.wc.no_write.val();
        // (a write with `wake` waits while the wake register is full)
        if !self.q_valid.q.val() & self.wr.has_write.val() & !(self.wr.wake.val() & self.wk_valid.q.val()) {
            self.wr.pop.next = true;
            self.q_valid.d.next = true;
            self.q_op.d.next = 1.into(); // CACHE_OP_WRITE
            self.q_qpn.d.next = self.wr.qpn.val();
            self.q_id.d.next = RXL_WRITE_ID.into();
            self.q_mask.d.next = self.wr.mask.val();
            self.q_data.d.next = self.wr.data.val();
            self.q_wake.d.next = self.wr.wake.val();
        }
        if !self.q_valid.q.val()
            & !self.wr.has_write.val()
            & self.wc.has_write.val()
            & !(self.wc.wake.val() & self.wk_valid.q.val())
        {
            self.wc.pop.next = true;
            self.q_valid.d.next = true;
            self.q_op.d.next = 1.into(); // CACHE_OP_WRITE
            self.q_qpn.d.next = self.wc.qpn.val();
            self.q_id.d.next = RXL_WRITE_ID.into();
            self.q_mask.d.next = self.wc.mask.val();
            self.q_data.d.next = self.wc.data.val();
            self.q_wake.d.next = self.wc.wake.val();
        }
        self.req_fl.retire.next = self.wr.pop.val();
        self.resp_fl.retire.next = self.wc.pop.val();

        // ---- answers into the ring
        self.s_qpc.ready.next = true;
        self.s_qps.ready.next = true;
        self.qps_ans.next = self.s_qps.valid.val() & !self.s_qps.id.val().get_bit(5);
        self.qpc_ram.write_addr.next = self.s_qpc.id.val().get_bits::<RX_LOOKUP_LOG>(0);
        self.qpc_ram.write_data.next = self.s_qpc.data.val();
        self.qpc_ram.write_enable.next = self.s_qpc.valid.val();
        self.qps_ram.write_addr.next = self.s_qps.id.val().get_bits::<RX_LOOKUP_LOG>(0);
        self.qps_ram.write_data.next = self.s_qps.data.val();
        self.qps_ram.write_enable.next = self.qps_ans.val();
        self.gc_n.next = self.got_c.q.val();
        self.gs_n.next = self.got_s.q.val();
        self.bad_n.next = self.bad.q.val();
        if self.s_qpc.valid.val() {
            self.gc_n.next = self.gc_n.val() | bits::<16>(1 << self.s_qpc.id.val().get_bits::<4>(0).index());
            if self.s_qpc.err.val() {
                self.bad_n.next = self.bad_n.val() | bits::<16>(1 << self.s_qpc.id.val().get_bits::<4>(0).index());
            }
        }
        if self.qps_ans.val() {
            self.gs_n.next = self.gs_n.val() | bits::<16>(1 << self.s_qps.id.val().get_bits::<4>(0).index());
            if self.s_qps.err.val() {
                self.bad_n.next = self.bad_n.val() | bits::<16>(1 << self.s_qps.id.val().get_bits::<4>(0).index());
            }
        }
        // a QPN naming no QP has nothing to wait for
        if self.issue.val() & !self.issue_look.val() {
            self.gc_n.next = self.gc_n.val() | bits::<16>(1 << self.rw.q.val().index());
            self.gs_n.next = self.gs_n.val() | bits::<16>(1 << self.rw.q.val().index());
        }

        // ---- the output register's packet leaves: out (admitted) or dropped
        self.m_req.valid.next = self.a_valid.q.val()
            & self.a_age.q.val()
            & self.qp_adm.admit.val()
            & !self.a_bad.q.val()
            & !self.a_meta.q.val().get_bit(0)
            & !self.d_valid.q.val();
        self.m_resp.valid.next = self.a_valid.q.val()
            & self.a_age.q.val()
            & self.qp_adm.admit.val()
            & !self.a_bad.q.val()
            & self.a_meta.q.val().get_bit(0)
            & !self.d_valid.q.val();
        self.a_drop.next = self.a_valid.q.val()
            & self.a_age.q.val()
            & (!self.qp_adm.admit.val() | self.a_bad.q.val())
            & !self.d_valid.q.val();
        self.a_done.next = (self.m_req.valid.val() & self.m_req.ready.val())
            | (self.m_resp.valid.val() & self.m_resp.ready.val())
            | self.a_drop.val();
        // ---- the oldest slot with both answers into the output register
        self.hdr_ram.read_addr.next = self.rh.q.val();
        self.qpc_ram.read_addr.next = self.rh.q.val();
        self.qps_ram.read_addr.next = self.rh.q.val();
        self.meta_ram.read_addr.next = self.rh.q.val();
        self.head_ready.next = self.rcnt.q.val().any()
            & self.got_c.q.val().get_bit(self.rh.q.val().index())
            & self.got_s.q.val().get_bit(self.rh.q.val().index());
        self.a_load.next = self.head_ready.val() & (!self.a_valid.q.val() | self.a_done.val());
        if self.a_load.val() {
            self.a_valid.d.next = true;
            self.a_hdr.d.next = self.hdr_ram.read_data.val();
            self.a_qpc.d.next = self.qpc_ram.read_data.val();
            self.a_qps.d.next = self.qps_ram.read_data.val();
            self.a_meta.d.next = self.meta_ram.read_data.val();
            self.a_bad.d.next = self.bad.q.val().get_bit(self.rh.q.val().index());
            self.rh.d.next = self.rh.q.val() + 1;
            self.gc_n.next = self.gc_n.val() & !bits::<16>(1 << self.rh.q.val().index());
            self.gs_n.next = self.gs_n.val() & !bits::<16>(1 << self.rh.q.val().index());
            self.bad_n.next = self.bad_n.val() & !bits::<16>(1 << self.rh.q.val().index());
        }
        self.got_c.d.next = self.gc_n.val();
        self.got_s.d.next = self.gs_n.val();
        self.bad.d.next = self.bad_n.val();
        self.rcnt.d.next =
            self.rcnt.q.val() + bit_cast::<5, 1>(self.issue.val().into()) - bit_cast::<5, 1>(self.a_load.val().into());

        // ---- admission (a cycle after the load), then out or dropped
        self.qp_adm.in_valid.next = self.a_valid.q.val();
        self.qp_adm.qpn_ok.next = self.a_hdr.q.val().get_bits::<24>(RXF_DESTQP).any()
            & !(self.a_hdr.q.val().get_bits::<24>(RXF_DESTQP) & self.qpn_high.val()).any();
        self.qp_adm.state.next = self.a_qpc.q.val().get_bits::<4>(QPC_STATE);
        self.qp_adm.qp_type.next = self.a_qpc.q.val().get_bits::<4>(QPC_TYPE);
        self.qp_adm.opcode.next = self.a_hdr.q.val().get_bits::<8>(RXF_OPCODE);
        // a timer's or a refused WQE's record passes in ERR (the completer
        // flushes), an RQ flush only in error; a request for a QP whose
        // completer is in error does not
        self.qp_adm.on_chip.next = self.a_hdr.q.val().get_bit(RXF_TIMER);
        self.qp_adm.comp_error.next =
            self.a_qps.q.val().get_bit(QPS_COMP_STARTED) & self.a_qps.q.val().get_bit(QPS_COMP_ERROR);
        // the P_Key (`qp_modify::pkey_match`); a timer's record has none to check
        self.qp_adm.pkey_ok.next = ((self.a_hdr.q.val().get_bits::<15>(RXF_PKEY)
            == self.a_qpc.q.val().get_bits::<15>(QPC_PKEY))
            & self.a_hdr.q.val().get_bits::<15>(RXF_PKEY).any()
            & (self.a_hdr.q.val().get_bit(RXF_PKEY + 15) | self.a_qpc.q.val().get_bit(QPC_PKEY + 15)))
            | self.a_hdr.q.val().get_bit(RXF_TIMER);
        self.a_age.d.next = self.a_valid.q.val() & !self.a_load.val();
        self.m_req.hdr.next = self.a_hdr.q.val();
        self.m_req.qpc.next = self.a_qpc.q.val();
        self.m_req.qps.next = self.a_qps.q.val();
        self.m_resp.hdr.next = self.a_hdr.q.val();
        self.m_resp.qpc.next = self.a_qpc.q.val();
        self.m_resp.qps.next = self.a_qps.q.val();
        if self.a_done.val() & !self.a_load.val() {
            self.a_valid.d.next = false;
        }
        // a looked-up packet refused: it will not write
        self.req_fl.drop.next = self.a_drop.val() & self.qp_adm.qpn_ok.val() & !self.a_meta.q.val().get_bit(0);
        self.resp_fl.drop.next = self.a_drop.val() & self.qp_adm.qpn_ok.val() & self.a_meta.q.val().get_bit(0);
        self.req_fl.drop_idx.next = self.a_meta.q.val().get_bits::<RX_INFLIGHT_LOG>(1);
        self.resp_fl.drop_idx.next = self.a_meta.q.val().get_bits::<RX_INFLIGHT_LOG>(1);
        self.why.next = self.qp_adm.reason.val();
        if self.a_bad.q.val() & self.qp_adm.qpn_ok.val() {
            self.why.next = 0.into();
        }
        for k in 0..RX_DROP_REASONS {
            if self.a_drop.val() & !self.a_tmr.val() & (self.why.val().index() == k) {
                self.cnt[k].d.next = self.cnt[k].q.val() + 1;
            }
        }

        // ---- the payload's destination, one per header
        self.m_dest.dest.next = self.d_dest.q.val();
        self.m_dest.valid.next = self.d_valid.q.val();
        if self.m_dest.ready.val() {
            self.d_valid.d.next = false;
        }
        // a timer's record has no payload: no destination
        self.a_tmr.next = self.a_hdr.q.val().get_bit(RXF_TIMER);
        if self.a_done.val() & !self.a_tmr.val() {
            self.d_valid.d.next = true;
            self.d_dest.d.next = RX_DEST_DROP.into();
            if !self.a_drop.val() & !self.a_meta.q.val().get_bit(0) {
                self.d_dest.d.next = RX_DEST_REQ.into();
            }
            if !self.a_drop.val() & self.a_meta.q.val().get_bit(0) {
                self.d_dest.d.next = RX_DEST_RESP.into();
            }
        }

        if self.reset.val() {
            self.i_valid.d.next = false;
            self.got_c.d.next = 0.into();
            self.got_s.d.next = 0.into();
            self.bad.d.next = 0.into();
            self.rw.d.next = 0.into();
            self.rh.d.next = 0.into();
            self.rcnt.d.next = 0.into();
            self.p_valid.d.next = false;
            self.q_valid.d.next = false;
            self.wk_valid.d.next = false;
            self.e_valid.d.next = false;
            self.l_valid.d.next = false;
            self.f_valid.d.next = false;
            self.chip_last.d.next = false;
            self.a_valid.d.next = false;
            self.a_age.d.next = false;
            self.d_valid.d.next = false;
            for k in 0..RX_DROP_REASONS {
                self.cnt[k].d.next = 0.into();
            }
        }
    }
}
