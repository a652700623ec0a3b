//! `CtxEngine`: runs the driver's context commands (`ctx_cmd`).
//!
//! * QP n: the commands are operations of the two QP caches (`qpc`, `qps`,
//!   one user port of each cache's mux), both sent, then both answers
//!   awaited: Load and Invalidate invalidate the QP's lines (dropped without
//!   write-back: the next use reads the host's entries, which the driver
//!   just wrote), Store flushes them (a dirty line is written back to host
//!   memory and dropped; the driver then reads the device's copy there).
//! * CQ n, as before the caches: Load reads the 64-byte CQ context at
//!   `cqc_base + 64 n` and hands it to the CQ engine; Store asks the engine
//!   for the state the device owns and writes it back (PROD, CONS,
//!   LOG_SIZE and the flags byte, 6 bytes at byte 8); Invalidate makes the
//!   engine forget the entry.
//! * MPT entry n / MTT entry n: any op invalidates the MPT entry or the MTT
//!   line holding entry n in the translation unit's caches (their entries
//!   are never written by the device, so a Store has nothing to write back).
//!   An MTT command spans `count` entries (`ctx_count`; 0 is one): the last
//!   entry is computed and checked against the table in two registered
//!   steps (`Span`, `Bound`), then each line from the first entry's to the
//!   last's is invalidated in turn, one invalidate in flight (about 8 cycles
//!   a line), so a region of any size is one command for the driver.
//!
//! * Counters (index 0), Store: the counter window (`regs::COUNTER_WINDOW`,
//!   64 registers) written to `counters_base`, 8 beats of 8 counters. Each
//!   counter is asked of the parent's counter mux (`cnt_ask` with
//!   `cnt_index`, in a cycle when `RegFile`'s own counter read does not hold
//!   it: `cnt_busy` low) and taken a cycle later into the top of `wdata`,
//!   which shifts down by one counter (a fixed shift), so the eighth take
//!   leaves the beat in order; then the beat's write at `counters_base` +
//!   64 x beat (the base is 512-byte aligned: an OR): 128 cycles of asks
//!   and 8 beat writes, each awaited (`wr_done`), instead of 68 MMIO reads.
//!
//! One command at a time; `busy` while it runs (until every cache answered
//! or the translation unit said done), `error` if it failed (index beyond
//! the table or this build, an MTT span past the table or past 2^24, a
//! table this build does not cache (AH), an op other than Store on the
//! counters or an index other than 0, an unknown op, a cache answer with
//! `err`, or a DMA error, which ends a dump at the failed beat).

use super::{
    CacheReqOut, CacheRespIn, CqSetupOut, CtxCmdIn, QueryOut, RdCmdOut, WrStreamOut, CACHE_OP_FLUSH,
    CACHE_OP_INVALIDATE,
};
use crate::axis::AxisIn;
use crate::consts::*;
use crate::mr::{InvDoneIn, InvReqOut};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

// the literals of the cache operations in `update`
const _: () = assert!(CACHE_OP_INVALIDATE == 2 && CACHE_OP_FLUSH == 3);
// an MTT entry's line: index bits 23:3
const _: () = assert!(MTT_LINE_SHIFT == 3);

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum CtxState {
    Idle,
    Read,
    Data,
    Setup,
    Query,
    QueryWait,
    Write,
    WriteWait,
    Cache,
    CntAsk,
    CntTake,
    Span,
    Bound,
    Inv,
    InvWait,
}

#[derive(LogicBlock, Default)]
pub struct CtxEngine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// `RegFile::qpn_high`: the QPN bits that must be clear (the table's and the build's limit).
    pub qpn_high: Signal<In, Bits<24>>,
    pub cqc_base: Signal<In, Bits<64>>,
    pub cqc_log: Signal<In, Bits<5>>,
    pub mpt_log: Signal<In, Bits<5>>,
    pub mtt_log: Signal<In, Bits<5>>,
    /// Where a counter dump goes (512-byte aligned).
    pub counters_base: Signal<In, Bits<64>>,
    /// The counter mux: `cnt_ask` takes it this cycle for `cnt_index`, whose
    /// value is `cnt_data` the next; only while `cnt_busy` (`RegFile`'s read) is low.
    pub cnt_ask: Signal<Out, Bit>,
    pub cnt_index: Signal<Out, Bits<6>>,
    pub cnt_data: Signal<In, Bits<64>>,
    pub cnt_busy: Signal<In, Bit>,
    pub s_cmd: CtxCmdIn,
    pub busy: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    /// A DMA error happened (for `events.DMA_ERROR`), pulse.
    pub dma_error: Signal<Out, Bit>,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub m_wr: WrStreamOut,
    pub wr_done: Signal<In, Bit>,
    pub wr_done_err: Signal<In, Bit>,
    pub m_cq: CqSetupOut,
    pub m_cq_query: QueryOut,
    pub cq_query_valid: Signal<In, Bit>,
    pub cq_query_data: Signal<In, Bits<48>>,
    /// The QP caches' user ports (invalidate, flush).
    pub m_qpc: CacheReqOut<1024, 128>,
    pub s_qpc: CacheRespIn<1024>,
    pub m_qps: CacheReqOut<512, 64>,
    pub s_qps: CacheRespIn<512>,
    /// The translation unit's invalidate port.
    pub m_inv: InvReqOut,
    pub s_inv: InvDoneIn,

    state: Reg<CtxState>,
    op: Reg<Bits<4>>,
    table: Reg<Bits<4>>,
    sent: Reg<Bits<2>>,
    got: Reg<Bits<2>>,
    index: Reg<Bits<24>>,
    /// An MTT command's span: `count` - 1, then the last entry (bit 24: past 2^24).
    cnt_m1: Reg<Bits<24>>,
    last: Reg<Bits<25>>,
    /// A counter dump: the next counter to ask (bit 6: all 64 asked).
    cnt_k: Reg<Bits<7>>,
    dump: Reg<Bit>,
    entry: Reg<Bits<512>>,
    beat: Reg<Bit>,
    err: Reg<Bit>,
    dma_err: Reg<Bit>,
    live: Reg<Bit>,
    wdata: Reg<Bits<512>>,
    wkeep: Reg<Bits<64>>,
    waddr: Reg<Bits<64>>,
    wlen: Reg<Bits<32>>,
    /// The index bits that must be clear for a CQ, MPT, MTT command's entry
    /// to be in its table (`ones << log`, the CQ's also the build's
    /// `LOG_CQS`): from the static table sizes alone, so a command's index
    /// meets an AND and an OR tree, not a barrel shifter (`host_if` 7.50 ->
    /// 7.05 levels). Registered, they took `host_if` to 6.00 levels but
    /// 2300 LUT-eq more: yosys then mapped the loads of `entry` and `wdata`
    /// in LUTs (session 38).
    cq_high: Signal<Local, Bits<24>>,
    mpt_high: Signal<Local, Bits<24>>,
    mtt_high: Signal<Local, Bits<24>>,
    ones24: Signal<Local, Bits<24>>,
    in_table: Signal<Local, Bit>,
    known: Signal<Local, Bit>,
    got_n: Signal<Local, Bits<2>>,
    sent_n: Signal<Local, Bits<2>>,
    cq_addr: Signal<Local, Bits<64>>,
    kind: TypeTag<Self>,
}

impl Logic for CtxEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, op, table, sent, got, index, cnt_m1, last, cnt_k, dump, entry, beat, err, dma_err,
            live, wdata, wkeep, waddr, wlen
        );
        self.cq_addr.next = self.cqc_base.val() + (bit_cast::<64, 24>(self.index.q.val()) << 6);
        // the tables' limits (static while commands run; `ones24 << log` is 0
        // for a log of 24 or more)
        self.ones24.next = 0xFF_FFFF.into();
        self.cq_high.next = (self.ones24.val() << self.cqc_log.val()) | (self.ones24.val() << LOG_CQS_VALUE);
        self.mpt_high.next = self.ones24.val() << self.mpt_log.val();
        self.mtt_high.next = self.ones24.val() << self.mtt_log.val();
        // the command's entry exists in the host table and in this build
        self.in_table.next = false;
        self.known.next = false;
        if self.s_cmd.table.val() == TABLE_QP {
            self.known.next = true;
            self.in_table.next = !(self.s_cmd.index.val() & self.qpn_high.val()).any();
        }
        if self.s_cmd.table.val() == TABLE_CQ {
            self.known.next = true;
            self.in_table.next = !(self.s_cmd.index.val() & self.cq_high.val()).any();
        }
        if self.s_cmd.table.val() == TABLE_MPT {
            self.known.next = true;
            self.in_table.next = !(self.s_cmd.index.val() & self.mpt_high.val()).any();
        }
        if self.s_cmd.table.val() == TABLE_MTT {
            self.known.next = true;
            self.in_table.next = !(self.s_cmd.index.val() & self.mtt_high.val()).any();
        }
        if self.s_cmd.table.val() == TABLE_COUNTERS {
            self.known.next = self.s_cmd.op.val() == OP_STORE;
            self.in_table.next = !self.s_cmd.index.val().any();
        }
        if !((self.s_cmd.op.val() == OP_LOAD)
            | (self.s_cmd.op.val() == OP_STORE)
            | (self.s_cmd.op.val() == OP_INVALIDATE))
        {
            self.known.next = false;
        }

        self.s_cmd.ready.next = self.state.q.val() == CtxState::Idle;
        self.m_rd.valid.next = self.state.q.val() == CtxState::Read;
        self.m_rd.addr.next = self.cq_addr.val();
        self.m_rd.len.next = bits::<32>(CQC_BYTES);
        self.s_rd.tready.next = self.state.q.val() == CtxState::Data;
        self.m_cq.valid.next = self.state.q.val() == CtxState::Setup;
        self.m_cq_query.valid.next = self.state.q.val() == CtxState::Query;
        self.m_cq_query.index.next = self.index.q.val();
        self.m_wr.tvalid.next = self.state.q.val() == CtxState::Write;
        self.m_wr.tdata.next = self.wdata.q.val();
        self.m_wr.tkeep.next = self.wkeep.q.val();
        self.m_wr.tlast.next = true;
        self.m_wr.addr.next = self.waddr.q.val();
        self.m_wr.len.next = self.wlen.q.val();
        self.dma_err.d.next = false;

        // ---- QP commands: one operation on each QP cache (Store: flush, else invalidate)
        self.m_qpc.valid.next = (self.state.q.val() == CtxState::Cache) & !self.sent.q.val().get_bit(0);
        self.m_qps.valid.next = (self.state.q.val() == CtxState::Cache) & !self.sent.q.val().get_bit(1);
        self.m_qpc.op.next = 2.into();
        self.m_qps.op.next = 2.into();
        if self.op.q.val() == OP_STORE {
            self.m_qpc.op.next = 3.into();
            self.m_qps.op.next = 3.into();
        }
        self.m_qpc.index.next = self.index.q.val();
        self.m_qps.index.next = self.index.q.val();
        self.m_qpc.mask.next = 0.into();
        self.m_qps.mask.next = 0.into();
        self.m_qpc.data.next = 0.into();
        self.m_qps.data.next = 0.into();
        self.m_qpc.id.next = 0.into();
        self.m_qps.id.next = 0.into();
        self.s_qpc.ready.next = true;
        self.s_qps.ready.next = true;
        self.sent_n.next = self.sent.q.val();
        if self.m_qpc.valid.val() & self.m_qpc.ready.val() {
            self.sent_n.next = self.sent_n.val() | 1;
        }
        if self.m_qps.valid.val() & self.m_qps.ready.val() {
            self.sent_n.next = self.sent_n.val() | 2;
        }
        self.got_n.next = self.got.q.val();
        if self.s_qpc.valid.val() {
            self.got_n.next = self.got_n.val() | 1;
            if self.s_qpc.err.val() {
                self.err.d.next = true;
            }
        }
        if self.s_qps.valid.val() {
            self.got_n.next = self.got_n.val() | 2;
            if self.s_qps.err.val() {
                self.err.d.next = true;
            }
        }
        self.sent.d.next = self.sent_n.val();
        self.got.d.next = self.got_n.val();

        // ---- MPT / MTT commands: the translation unit's invalidate
        self.m_inv.valid.next = self.state.q.val() == CtxState::Inv;
        self.m_inv.table.next = self.table.q.val() == TABLE_MTT;
        self.m_inv.index.next = self.index.q.val();
        if self.table.q.val() == TABLE_MTT {
            self.m_inv.index.next = bit_cast::<24, 21>(self.index.q.val().get_bits::<21>(MTT_LINE_SHIFT));
        }
        self.s_inv.ready.next = self.state.q.val() == CtxState::InvWait;

        match self.state.q.val() {
            CtxState::Idle => {
                if self.s_cmd.valid.val() {
                    self.op.d.next = self.s_cmd.op.val();
                    self.table.d.next = self.s_cmd.table.val();
                    self.index.d.next = self.s_cmd.index.val();
                    self.cnt_m1.d.next = 0.into();
                    if self.s_cmd.count.val().any() {
                        self.cnt_m1.d.next = self.s_cmd.count.val() - 1;
                    }
                    self.err.d.next = false;
                    self.dump.d.next = false;
                    self.beat.d.next = false;
                    self.sent.d.next = 0.into();
                    self.got.d.next = 0.into();
                    if !self.known.val() | !self.in_table.val() {
                        self.err.d.next = true;
                    } else if self.s_cmd.table.val() == TABLE_QP {
                        self.state.d.next = CtxState::Cache;
                    } else if self.s_cmd.table.val() == TABLE_COUNTERS {
                        self.cnt_k.d.next = 0.into();
                        self.dump.d.next = true;
                        self.state.d.next = CtxState::CntAsk;
                    } else if self.s_cmd.table.val() == TABLE_MTT {
                        self.state.d.next = CtxState::Span;
                    } else if self.s_cmd.table.val() != TABLE_CQ {
                        self.state.d.next = CtxState::Inv;
                    } else if self.s_cmd.op.val() == OP_LOAD {
                        self.live.d.next = true;
                        self.state.d.next = CtxState::Read;
                    } else if self.s_cmd.op.val() == OP_STORE {
                        self.state.d.next = CtxState::Query;
                    } else {
                        self.live.d.next = false;
                        self.entry.d.next = 0.into();
                        self.state.d.next = CtxState::Setup;
                    }
                }
            }
            CtxState::Cache => {
                if self.got_n.val().all() {
                    self.state.d.next = CtxState::Idle;
                }
            }
            CtxState::CntAsk => {
                if !self.cnt_busy.val() {
                    self.state.d.next = CtxState::CntTake;
                }
            }
            CtxState::CntTake => {
                self.wdata.d.next = (self.wdata.q.val() >> 64) | (bit_cast::<512, 64>(self.cnt_data.val()) << 448);
                self.cnt_k.d.next = self.cnt_k.q.val() + 1;
                self.state.d.next = CtxState::CntAsk;
                if self.cnt_k.q.val().get_bits::<3>(0).all() {
                    self.waddr.d.next =
                        self.counters_base.val() | (bit_cast::<64, 3>(self.cnt_k.q.val().get_bits::<3>(3)) << 6);
                    self.wkeep.d.next = 0xFFFF_FFFF_FFFF_FFFFu64.into();
                    self.wlen.d.next = 64.into();
                    self.state.d.next = CtxState::Write;
                }
            }
            CtxState::Span => {
                self.last.d.next = bit_cast::<25, 24>(self.index.q.val()) + bit_cast::<25, 24>(self.cnt_m1.q.val());
                self.state.d.next = CtxState::Bound;
            }
            CtxState::Bound => {
                // the last entry must be in the table too; a span past it drops nothing
                self.state.d.next = CtxState::Inv;
                if ((bit_cast::<32, 25>(self.last.q.val()) >> self.mtt_log.val()) != 0) | self.last.q.val().get_bit(24)
                {
                    self.err.d.next = true;
                    self.state.d.next = CtxState::Idle;
                }
            }
            CtxState::Inv => {
                if self.m_inv.ready.val() {
                    self.state.d.next = CtxState::InvWait;
                }
            }
            CtxState::InvWait => {
                if self.s_inv.valid.val() {
                    self.state.d.next = CtxState::Idle;
                    // an MTT span: on to the next line until the last entry's
                    if (self.table.q.val() == TABLE_MTT)
                        & (self.index.q.val().get_bits::<21>(MTT_LINE_SHIFT)
                            != self.last.q.val().get_bits::<21>(MTT_LINE_SHIFT))
                    {
                        // the next line's first entry (8 entries a line)
                        self.index.d.next = (self.index.q.val() | 7) + 1;
                        self.state.d.next = CtxState::Inv;
                    }
                }
            }
            CtxState::Read => {
                if self.m_rd.ready.val() {
                    self.state.d.next = CtxState::Data;
                }
            }
            CtxState::Data => {
                if self.s_rd.tvalid.val() {
                    // the fields the engine needs are all in the first 64 bytes
                    if !self.beat.q.val() {
                        self.entry.d.next = self.s_rd.tdata.val();
                    }
                    self.beat.d.next = true;
                    if self.s_rd.tuser.val().any() {
                        self.err.d.next = true;
                        self.dma_err.d.next = true;
                    }
                    if self.s_rd.tlast.val() {
                        self.state.d.next = CtxState::Setup;
                        if self.err.q.val() | self.s_rd.tuser.val().any() {
                            self.state.d.next = CtxState::Idle;
                        }
                    }
                }
            }
            CtxState::Setup => {
                if self.m_cq.ready.val() {
                    self.state.d.next = CtxState::Idle;
                }
            }
            CtxState::Query => {
                if self.m_cq_query.ready.val() {
                    self.state.d.next = CtxState::QueryWait;
                }
            }
            CtxState::QueryWait => {
                if self.cq_query_valid.val() {
                    self.wdata.d.next = bit_cast::<512, 48>(self.cq_query_data.val()) << CQC_STATE_BIT;
                    self.wkeep.d.next = bits::<64>(0x3F) << CQC_STATE_BYTE;
                    self.waddr.d.next = self.cq_addr.val() + CQC_STATE_BYTE;
                    self.wlen.d.next = 6.into();
                    self.state.d.next = CtxState::Write;
                }
            }
            CtxState::Write => {
                if self.m_wr.tready.val() {
                    self.state.d.next = CtxState::WriteWait;
                }
            }
            CtxState::WriteWait => {
                if self.wr_done.val() {
                    self.state.d.next = CtxState::Idle;
                    // a dump goes on to its next beat, unless this was the last or failed
                    if self.dump.q.val() & !self.cnt_k.q.val().get_bit(6) {
                        self.state.d.next = CtxState::CntAsk;
                    }
                    if self.wr_done_err.val() {
                        self.err.d.next = true;
                        self.dma_err.d.next = true;
                        self.state.d.next = CtxState::Idle;
                    }
                }
            }
        }

        // the CQ setup, straight from the context's bytes
        self.m_cq.cqn.next = self.index.q.val();
        self.m_cq.base.next = self.entry.q.val().get_bits::<64>(CQC_RING_BASE);
        self.m_cq.log.next = self.entry.q.val().get_bits::<4>(CQC_LOG);
        self.m_cq.prod.next = self.entry.q.val().get_bits::<16>(CQC_PROD);
        self.m_cq.cons.next = self.entry.q.val().get_bits::<16>(CQC_CONS);
        self.m_cq.armed.next = self.entry.q.val().get_bit(CQC_ARMED);
        self.m_cq.solicited.next = self.entry.q.val().get_bit(CQC_SOLICITED);
        self.m_cq.overrun.next = self.entry.q.val().get_bit(CQC_OVERRUN);
        self.m_cq.vector.next = self.entry.q.val().get_bits::<16>(CQC_VECTOR);
        self.m_cq.mod_count.next = self.entry.q.val().get_bits::<16>(CQC_MOD_COUNT);
        self.m_cq.mod_time.next = self.entry.q.val().get_bits::<16>(CQC_MOD_TIME);
        self.m_cq.live.next = self.live.q.val();

        self.cnt_ask.next = (self.state.q.val() == CtxState::CntAsk) & !self.cnt_busy.val();
        self.cnt_index.next = self.cnt_k.q.val().get_bits::<6>(0);
        self.busy.next = self.state.q.val() != CtxState::Idle;
        self.error.next = self.err.q.val();
        self.dma_error.next = self.dma_err.q.val();
        if self.reset.val() {
            self.state.d.next = CtxState::Idle;
            self.err.d.next = false;
            self.dma_err.d.next = false;
        }
    }
}
