//! `CtxEngine`: runs the driver's context commands (`ctx_cmd`).
//!
//! * Load QP n: reads the 128-byte QP context at `qpc_base + 128 n` and
//!   hands its rings to the descriptor fetcher.
//! * Load CQ n: reads the 64-byte CQ context at `cqc_base + 64 n` and hands
//!   it to the CQ engine.
//! * Store: asks the engine for the state the device owns and writes it
//!   back into the context (QP: SQ/RQ PROD and CONS; CQ: PROD, CONS,
//!   LOG_SIZE and the flags byte).
//! * Invalidate: the engine forgets the entry; doorbells for it fail.
//!
//! One command at a time; `busy` while it runs, `error` if it failed (index
//! beyond the table or this build, a table this build does not cache yet,
//! an unknown op, or a DMA error).

use super::{CqSetupOut, CtxCmdIn, QueryOut, RdCmdOut, RingSetupOut, WrStreamOut};
use crate::axis::AxisIn;
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

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
}

#[derive(LogicBlock, Default)]
pub struct CtxEngine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub qpc_base: Signal<In, Bits<64>>,
    pub qpc_log: Signal<In, Bits<5>>,
    pub cqc_base: Signal<In, Bits<64>>,
    pub cqc_log: Signal<In, Bits<5>>,
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
    pub m_ring: RingSetupOut,
    pub m_cq: CqSetupOut,
    pub m_qp_query: QueryOut,
    pub qp_query_valid: Signal<In, Bit>,
    pub qp_query_data: Signal<In, Bits<64>>,
    pub m_cq_query: QueryOut,
    pub cq_query_valid: Signal<In, Bit>,
    pub cq_query_data: Signal<In, Bits<48>>,

    state: Reg<CtxState>,
    op: Reg<Bits<4>>,
    is_cq: Reg<Bit>,
    index: Reg<Bits<24>>,
    entry: Reg<Bits<512>>,
    beat: Reg<Bit>,
    err: Reg<Bit>,
    dma_err: Reg<Bit>,
    live: Reg<Bit>,
    wdata: Reg<Bits<512>>,
    wkeep: Reg<Bits<64>>,
    waddr: Reg<Bits<64>>,
    wlen: Reg<Bits<32>>,
    in_table: Signal<Local, Bit>,
    known: Signal<Local, Bit>,
    qp_addr: Signal<Local, Bits<64>>,
    cq_addr: Signal<Local, Bits<64>>,
    kind: TypeTag<Self>,
}

impl Logic for CtxEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, op, is_cq, index, entry, beat, err, dma_err, live, wdata, wkeep, waddr, wlen);
        self.qp_addr.next = self.qpc_base.val() + (bit_cast::<64, 24>(self.index.q.val()) << 7);
        self.cq_addr.next = self.cqc_base.val() + (bit_cast::<64, 24>(self.index.q.val()) << 6);
        // the command's entry exists in the host table and in this build
        self.in_table.next = false;
        self.known.next = false;
        if self.s_cmd.table.val() == TABLE_QP {
            self.known.next = true;
            self.in_table.next = ((bit_cast::<32, 24>(self.s_cmd.index.val()) >> self.qpc_log.val()) == 0)
                & !self.s_cmd.index.val().get_bits::<14>(LOG_QPS).any();
        }
        if self.s_cmd.table.val() == TABLE_CQ {
            self.known.next = true;
            self.in_table.next = ((bit_cast::<32, 24>(self.s_cmd.index.val()) >> self.cqc_log.val()) == 0)
                & !self.s_cmd.index.val().get_bits::<14>(LOG_CQS).any();
        }
        if !((self.s_cmd.op.val() == OP_LOAD)
            | (self.s_cmd.op.val() == OP_STORE)
            | (self.s_cmd.op.val() == OP_INVALIDATE))
        {
            self.known.next = false;
        }

        self.s_cmd.ready.next = self.state.q.val() == CtxState::Idle;
        self.m_rd.valid.next = self.state.q.val() == CtxState::Read;
        self.m_rd.addr.next = self.qp_addr.val();
        self.m_rd.len.next = bits::<32>(QPC_BYTES);
        if self.is_cq.q.val() {
            self.m_rd.addr.next = self.cq_addr.val();
            self.m_rd.len.next = bits::<32>(CQC_BYTES);
        }
        self.s_rd.tready.next = self.state.q.val() == CtxState::Data;
        self.m_ring.valid.next = (self.state.q.val() == CtxState::Setup) & !self.is_cq.q.val();
        self.m_cq.valid.next = (self.state.q.val() == CtxState::Setup) & self.is_cq.q.val();
        self.m_qp_query.valid.next = (self.state.q.val() == CtxState::Query) & !self.is_cq.q.val();
        self.m_cq_query.valid.next = (self.state.q.val() == CtxState::Query) & self.is_cq.q.val();
        self.m_qp_query.index.next = self.index.q.val();
        self.m_cq_query.index.next = self.index.q.val();
        self.m_wr.tvalid.next = self.state.q.val() == CtxState::Write;
        self.m_wr.tdata.next = self.wdata.q.val();
        self.m_wr.tkeep.next = self.wkeep.q.val();
        self.m_wr.tlast.next = true;
        self.m_wr.addr.next = self.waddr.q.val();
        self.m_wr.len.next = self.wlen.q.val();
        self.dma_err.d.next = false;

        match self.state.q.val() {
            CtxState::Idle => {
                if self.s_cmd.valid.val() {
                    self.op.d.next = self.s_cmd.op.val();
                    self.is_cq.d.next = self.s_cmd.table.val() == TABLE_CQ;
                    self.index.d.next = self.s_cmd.index.val();
                    self.err.d.next = false;
                    self.beat.d.next = false;
                    if !self.known.val() | !self.in_table.val() {
                        self.err.d.next = true;
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
            CtxState::Read => {
                if self.m_rd.ready.val() {
                    self.state.d.next = CtxState::Data;
                }
            }
            CtxState::Data => {
                if self.s_rd.tvalid.val() {
                    // the fields the engines need are all in the first 64 bytes
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
                if (self.is_cq.q.val() & self.m_cq.ready.val()) | (!self.is_cq.q.val() & self.m_ring.ready.val()) {
                    self.state.d.next = CtxState::Idle;
                }
            }
            CtxState::Query => {
                if (self.is_cq.q.val() & self.m_cq_query.ready.val())
                    | (!self.is_cq.q.val() & self.m_qp_query.ready.val())
                {
                    self.state.d.next = CtxState::QueryWait;
                }
            }
            CtxState::QueryWait => {
                if self.qp_query_valid.val() & !self.is_cq.q.val() {
                    self.wdata.d.next = bit_cast::<512, 64>(self.qp_query_data.val()) << QPC_INDICES_BIT;
                    self.wkeep.d.next = bits::<64>(0xFF) << QPC_INDICES_BYTE;
                    self.waddr.d.next = self.qp_addr.val() + QPC_INDICES_BYTE;
                    self.wlen.d.next = 8.into();
                    self.state.d.next = CtxState::Write;
                }
                if self.cq_query_valid.val() & self.is_cq.q.val() {
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
                    if self.wr_done_err.val() {
                        self.err.d.next = true;
                        self.dma_err.d.next = true;
                    }
                }
            }
            _ => {
                self.state.d.next = CtxState::Idle;
            }
        }

        // setups, straight from the context's bytes
        self.m_ring.qpn.next = self.index.q.val();
        self.m_ring.sq_base.next = self.entry.q.val().get_bits::<64>(QPC_SQ_BASE);
        self.m_ring.sq_log.next = self.entry.q.val().get_bits::<4>(QPC_SQ_LOG);
        self.m_ring.sq_prod.next = self.entry.q.val().get_bits::<16>(QPC_SQ_PROD);
        self.m_ring.sq_cons.next = self.entry.q.val().get_bits::<16>(QPC_SQ_CONS);
        self.m_ring.rq_base.next = self.entry.q.val().get_bits::<64>(QPC_RQ_BASE);
        self.m_ring.rq_log.next = self.entry.q.val().get_bits::<4>(QPC_RQ_LOG);
        self.m_ring.rq_prod.next = self.entry.q.val().get_bits::<16>(QPC_RQ_PROD);
        self.m_ring.rq_cons.next = self.entry.q.val().get_bits::<16>(QPC_RQ_CONS);
        self.m_ring.live.next = self.live.q.val();
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
