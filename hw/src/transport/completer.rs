//! `Completer`: the completer's side of the core as one block (docs/core.md,
//! "Instances"): `CompAck` with the `Inflight` table it walks, which the
//! requester fills through `InflightMux`.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_push` | in | the requester's PUSH of each WQE's record (`ReqTx::m_push`) |
//! | `s_pkt` | in | response packets in arrival order (`RxLookup::m_resp`: header, `qpc`, `qps`) |
//! | `m_cqe` | out | send completions (`CqeMerge::s_comp`) |
//! | `m_wb` | out | one item per response packet (or timer expiry), its `qps` write (`mask` 0 when none) and `wake` (the write moved UNA, or asks a resend): `RxLookup::s_comp_wb` |
//! | `m_rewind` | out | go-back-N: the QP whose requester must restart from the oldest unacknowledged PSN (`ReqFetch::s_rewind`); a register, offered with the record's `m_wb` item, so it is in the requester's table before the wake that serves it |
//! | `m_arm` | out | (re)arm the QP's retransmit timer: the ACK timeout (`qpc.TIMEOUT`) when the record moved UNA with PSNs still outstanding, the RNR timer (the NAK's code) on an RNR wait; a register |
//! | `cnt_push_refused` | out | PUSHes `Inflight` refused (must stay 0) |
//! | `cnt[k]` | out | the child `CompStats`' counts: ghost responses, responses dropped (completer in error), RNR NAKs, PSN sequence NAKs and fatal NAKs received, go-back-N restarts |
//!
//! `CompAck::m_dec` becomes `m_wb`: its `write`, `wr_mask`, `wr_data` are
//! the `qps` line; a RESEND action becomes `m_rewind`, `arm` becomes
//! `m_arm`. A record is taken only when both registers are empty (no path
//! from their `ready` to `m_wb`). What the record says beyond that (the RNR
//! wait, a READ response's placement) has no consumer yet: the RNR timer
//! (issue 12) and `comp_read` take it (docs/core.md).

use super::{
    ArmOut, CompAck, CompCqeOut, CompStats, InflightCmdIn, InflightCmdOut, InflightMux, InflightRespOut, InflightTable,
    QpnOut, QpsWrOut, RespPktIn, COMP_STATS, INFLIGHT_ENTRY_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_QPN_BITS,
};
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Completer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_push: InflightCmdIn<Q, E, W>,
    pub s_pkt: RespPktIn,
    pub m_cqe: CompCqeOut,
    pub m_wb: QpsWrOut,
    pub m_rewind: QpnOut<Q>,
    pub m_arm: ArmOut<Q>,
    pub cnt_push_refused: Signal<Out, Bits<32>>,
    pub cnt: [Signal<Out, Bits<64>>; COMP_STATS],
    /// The in-flight table is still being cleared after reset.
    pub init: Signal<Out, Bit>,
    mux: InflightMux,
    table: InflightTable,
    ack: CompAck,
    stats: CompStats,
    rw_v: Reg<Bit>,
    rw_qpn: Reg<Bits<Q>>,
    arm_v: Reg<Bit>,
    arm_qpn: Reg<Bits<Q>>,
    arm_code: Reg<Bits<5>>,
    arm_kind: Reg<Bit>,
    go: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

const Q: usize = INFLIGHT_QPN_BITS;
const E: usize = INFLIGHT_LOG_ENTRIES;
const C: usize = INFLIGHT_LOG_ENTRIES + 1;
const W: usize = INFLIGHT_ENTRY_BITS;

impl Logic for Completer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rw_v, rw_qpn, arm_v, arm_qpn, arm_code, arm_kind);
        clock!(self, clock, mux, table, ack, stats);
        self.stats.reset.next = self.reset.val();
        self.mux.reset.next = self.reset.val();
        self.table.reset.next = self.reset.val();
        self.ack.reset.next = self.reset.val();
        InflightCmdIn::<Q, E, W>::link(&mut self.s_push, &mut self.mux.s_push);
        self.cnt_push_refused.next = self.mux.cnt_push_refused.val();
        self.init.next = self.table.init.val();
        InflightCmdOut::<Q, E, W>::join(&mut self.ack.m_inf, &mut self.mux.s_comp);
        InflightRespOut::<E, C, W>::join(&mut self.mux.m_comp, &mut self.ack.s_inf);
        InflightCmdOut::<Q, E, W>::join(&mut self.mux.m_cmd, &mut self.table.s_cmd);
        InflightRespOut::<E, C, W>::join(&mut self.table.m_resp, &mut self.mux.s_resp);
        RespPktIn::link(&mut self.s_pkt, &mut self.ack.s_pkt);
        CompCqeOut::link(&mut self.m_cqe, &mut self.ack.m_cqe);
        self.m_wb.qpn.next = self.ack.m_dec.qpn.val();
        self.m_wb.mask.next = 0.into();
        if self.ack.m_dec.write.val() {
            self.m_wb.mask.next = self.ack.m_dec.wr_mask.val();
        }
        self.m_wb.data.next = self.ack.m_dec.wr_data.val();
        self.m_wb.wake.next = self.ack.m_dec.write.val() & self.ack.m_dec.wake.val();
        self.go.next = !self.rw_v.q.val() & !self.arm_v.q.val();
        self.m_wb.valid.next = self.ack.m_dec.valid.val() & self.go.val();
        self.ack.m_dec.ready.next = self.m_wb.ready.val() & self.go.val();
        self.fire.next = self.ack.m_dec.valid.val() & self.m_wb.ready.val() & self.go.val();
        self.stats.fire.next = self.fire.val();
        self.stats.timer.next = self.ack.m_dec.expiry.val();
        self.stats.rnr_timer.next = self.ack.m_dec.expiry_rnr.val();
        // ---- the go-back-N command and the timer's arming, from registers
        self.m_rewind.qpn.next = self.rw_qpn.q.val();
        self.m_rewind.valid.next = self.rw_v.q.val();
        if self.m_rewind.ready.val() {
            self.rw_v.d.next = false;
        }
        if self.fire.val() & (self.ack.m_dec.action.val() == CACT_RESEND) {
            self.rw_v.d.next = true;
            self.rw_qpn.d.next = self.ack.m_dec.qpn.val().get_bits::<Q>(0);
        }
        self.m_arm.qpn.next = self.arm_qpn.q.val();
        self.m_arm.kind.next = self.arm_kind.q.val();
        self.m_arm.code.next = self.arm_code.q.val();
        self.m_arm.valid.next = self.arm_v.q.val();
        if self.m_arm.ready.val() {
            self.arm_v.d.next = false;
        }
        if self.fire.val() & self.ack.m_dec.arm.val() {
            self.arm_v.d.next = true;
            self.arm_qpn.d.next = self.ack.m_dec.qpn.val().get_bits::<Q>(0);
            self.arm_kind.d.next = false;
            self.arm_code.d.next = self.ack.m_dec.ack_timeout.val();
        }
        // an RNR wait: the RNR timer with the NAK's code (replaces an ACK arming)
        if self.fire.val() & (self.ack.m_dec.action.val() == CACT_RNR_WAIT) {
            self.arm_v.d.next = true;
            self.arm_qpn.d.next = self.ack.m_dec.qpn.val().get_bits::<Q>(0);
            self.arm_kind.d.next = true;
            self.arm_code.d.next = self.ack.m_dec.timer.val();
        }
        if self.reset.val() {
            self.rw_v.d.next = false;
            self.arm_v.d.next = false;
        }
        self.stats.verdict.next = self.ack.m_dec.verdict.val();
        self.stats.action.next = self.ack.m_dec.action.val();
        self.cnt[0].next = self.stats.count[0].val();
        self.cnt[1].next = self.stats.count[1].val();
        self.cnt[2].next = self.stats.count[2].val();
        self.cnt[3].next = self.stats.count[3].val();
        self.cnt[4].next = self.stats.count[4].val();
        self.cnt[5].next = self.stats.count[5].val();
        self.cnt[6].next = self.stats.count[6].val();
    }
}
