//! `Completer`: the completer's side of the core as one block (docs/core.md,
//! "Instances"): `CompAck` with the `Inflight` table it walks, which the
//! requester fills through `InflightMux`.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_push` | in | the requester's PUSH of each WQE's record (`ReqTx::m_push`) |
//! | `s_pkt` | in | response packets in arrival order (`RxLookup::m_resp`: header, `qpc`, `qps`) |
//! | `m_cqe` | out | send completions (`CqeMerge::s_comp`) |
//! | `m_wb` | out | one item per response packet, its `qps` write (`mask` 0 when none) and `wake` (the write moved UNA): `RxLookup::s_comp_wb` |
//! | `cnt_push_refused` | out | PUSHes `Inflight` refused (must stay 0) |
//! | `cnt[k]` | out | the child `CompStats`' counts: ghost responses, responses dropped (completer in error), RNR NAKs, PSN sequence NAKs and fatal NAKs received, go-back-N restarts |
//!
//! `CompAck::m_dec` becomes `m_wb`: its `write`, `wr_mask`, `wr_data` are
//! the `qps` line. What the record says beyond that (the go-back-N and
//! timer `action`, a READ response's placement) has no consumer yet: the
//! retransmission (issue 12) and `comp_read` take it (docs/core.md).

use super::{
    CompAck, CompCqeOut, CompStats, InflightCmdIn, InflightCmdOut, InflightMux, InflightRespOut, InflightTable,
    QpsWrOut, RespPktIn, COMP_STATS, INFLIGHT_ENTRY_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_QPN_BITS,
};
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
    pub cnt_push_refused: Signal<Out, Bits<32>>,
    pub cnt: [Signal<Out, Bits<64>>; COMP_STATS],
    /// The in-flight table is still being cleared after reset.
    pub init: Signal<Out, Bit>,
    mux: InflightMux,
    table: InflightTable,
    ack: CompAck,
    stats: CompStats,
    kind: TypeTag<Self>,
}

const Q: usize = INFLIGHT_QPN_BITS;
const E: usize = INFLIGHT_LOG_ENTRIES;
const C: usize = INFLIGHT_LOG_ENTRIES + 1;
const W: usize = INFLIGHT_ENTRY_BITS;

impl Logic for Completer {
    #[hdl_gen]
    fn update(&mut self) {
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
        self.m_wb.valid.next = self.ack.m_dec.valid.val();
        self.ack.m_dec.ready.next = self.m_wb.ready.val();
        self.stats.fire.next = self.ack.m_dec.valid.val() & self.m_wb.ready.val();
        self.stats.verdict.next = self.ack.m_dec.verdict.val();
        self.stats.action.next = self.ack.m_dec.action.val();
        self.cnt[0].next = self.stats.count[0].val();
        self.cnt[1].next = self.stats.count[1].val();
        self.cnt[2].next = self.stats.count[2].val();
        self.cnt[3].next = self.stats.count[3].val();
        self.cnt[4].next = self.stats.count[4].val();
        self.cnt[5].next = self.stats.count[5].val();
    }
}
