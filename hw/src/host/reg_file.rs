//! `RegFile`: BAR0 behind an AXI4-Lite port, laid out as the contract says
//! (docs/regmap.md; offsets and fields come from `rnic-contract` through
//! `crate::consts`).
//!
//! One write and one read in flight; a write is answered the cycle after it
//! is taken, a read the cycle after its address. Doorbells and context
//! commands leave as streams: the write that makes one is not taken while
//! the previous one still waits, so the register port exerts backpressure
//! instead of dropping a doorbell. The doorbell's low half is latched and
//! its high half fires it, as the contract's 64-bit doorbell demands.
//!
//! `status.READY` is the inverse of `init` (the core's table clearing after
//! reset); `status.LINK_UP` reads 0 until the board top brings the MAC's
//! link state in. Registers of blocks not in this core yet (raw rings, the
//! AH table) read 0 and ignore writes, like reserved offsets.
//!
//! **Counters** (`regs::COUNTER_WINDOW`, a page of 64-bit registers, decoded
//! by the page alone): a read there puts the counter's index (offset bits
//! 7:3) on
//! `cnt_index` (a register) and takes `cnt_data` two cycles later (the
//! parent's registered mux of the counters), so such a read is answered 2
//! cycles later than the others. Reading a low half latches the high half;
//! the high half of the same counter read next returns the latched value
//! (any other high half reads live), as the contract asks. The table bases
//! (QPC, QPS, replay, CQC, MPT, MTT) are 4 KiB aligned (low 12 bits read 0).

use super::{AxilIn, IrqOut};
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Bits of a counter's index in the counter window.
pub const CNT_INDEX_BITS: usize = 6;
/// The counters the window holds (`regs::COUNTERS`, 64 bits each); the
/// page's other indices read 0.
pub const HOST_COUNTERS: usize = rnic_contract::regs::COUNTERS as usize;
// the index is offset bits 8:3 of the 512-byte window
const _: () = assert!(HOST_COUNTERS <= 1 << CNT_INDEX_BITS && CNT_INDEX_BITS == 6);
const _: () =
    assert!(rnic_contract::regs::COUNTER_WINDOW.end - rnic_contract::regs::COUNTER_WINDOW.start == 8 << CNT_INDEX_BITS);

/// A doorbell, decoded: `kind` is a `DoorbellKind`.
#[derive(LogicInterface, Default)]
#[join = "DoorbellIn"]
pub struct DoorbellOut {
    pub kind: Signal<Out, Bits<4>>,
    pub queue: Signal<Out, Bits<24>>,
    pub index: Signal<Out, Bits<16>>,
    pub solicited: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "DoorbellOut"]
pub struct DoorbellIn {
    pub kind: Signal<In, Bits<4>>,
    pub queue: Signal<In, Bits<24>>,
    pub index: Signal<In, Bits<16>>,
    pub solicited: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A context command (`ctx_cmd`): `op` a `ContextOp`, `table` a `ContextTable`;
/// `count` the MTT entries it spans (`ctx_count` as it was at the command's write).
#[derive(LogicInterface, Default)]
#[join = "CtxCmdIn"]
pub struct CtxCmdOut {
    pub op: Signal<Out, Bits<4>>,
    pub table: Signal<Out, Bits<4>>,
    pub index: Signal<Out, Bits<24>>,
    pub count: Signal<Out, Bits<24>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "CtxCmdOut"]
pub struct CtxCmdIn {
    pub op: Signal<In, Bits<4>>,
    pub table: Signal<In, Bits<4>>,
    pub index: Signal<In, Bits<24>>,
    pub count: Signal<In, Bits<24>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct RegFile {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil: AxilIn,
    /// The port's MAC (`id_mac_hi`/`id_mac_lo`), the first byte on the wire
    /// in bits 47:40: a board strap (EEPROM, a build parameter), static
    /// while the core runs.
    pub port_mac: Signal<In, Bits<48>>,
    /// `ctrl.ENABLE`.
    pub enable: Signal<Out, Bit>,
    /// One-cycle pulse when software sets `ctrl.SOFT_RESET`.
    pub soft_reset: Signal<Out, Bit>,
    pub qpc_base: Signal<Out, Bits<64>>,
    pub qpc_log: Signal<Out, Bits<5>>,
    /// The QPN bits that must be clear for a QPN to name a QP: those at and
    /// above min(`qpc_log_entries`, the build's `LOG_QPS`); from flops. The
    /// one place this limit is computed (doorbells, context commands, the
    /// receive lookup use it).
    pub qpn_high: Signal<Out, Bits<24>>,
    pub cqc_base: Signal<Out, Bits<64>>,
    pub cqc_log: Signal<Out, Bits<5>>,
    /// The QP transport state table (`qps`, as many entries as `qpc_log`).
    pub qps_base: Signal<Out, Bits<64>>,
    /// The responder's replay table (`replay_base_*`, `resource::QP_BYTES`
    /// a QP, as many QPs as `qpc_log`), for its `ReplayTable`.
    pub replay_base: Signal<Out, Bits<64>>,
    /// The MPT and MTT tables (`mpt_*`, `mtt_*`), for the translation unit.
    pub mpt_base: Signal<Out, Bits<64>>,
    pub mpt_log: Signal<Out, Bits<5>>,
    pub mtt_base: Signal<Out, Bits<64>>,
    pub mtt_log: Signal<Out, Bits<5>>,
    /// Where a counter dump goes (`counters_base_*`, 512-byte aligned).
    pub counters_base: Signal<Out, Bits<64>>,
    pub irq_mod_count: Signal<Out, Bits<16>>,
    pub irq_mod_time: Signal<Out, Bits<16>>,
    pub m_db: DoorbellOut,
    pub m_ctx: CtxCmdOut,
    /// The context command engine is working / its last command failed.
    /// The counter a read in the counter window asks for, and its value
    /// (the parent's register, two cycles after `cnt_index`).
    pub cnt_index: Signal<Out, Bits<CNT_INDEX_BITS>>,
    pub cnt_data: Signal<In, Bits<64>>,
    pub ctx_busy: Signal<In, Bit>,
    /// A counter read holds the counter mux (`cnt_index`) this cycle or the
    /// next: another user may ask it only while this is low (a register).
    pub cnt_busy: Signal<Out, Bit>,
    pub ctx_error: Signal<In, Bit>,
    /// Some block of the core still clears its tables after reset
    /// (`status.READY` reads its inverse).
    pub init: Signal<In, Bit>,
    /// Event bits to set (`events` positions), with the queue behind them.
    pub ev_set: Signal<In, Bits<5>>,
    pub ev_queue: Signal<In, Bits<24>>,
    /// The events interrupt (`irq_events`).
    pub m_irq: IrqOut,

    r_ctrl: Reg<Bit>,
    r_events: Reg<Bits<5>>,
    r_events_enable: Reg<Bits<5>>,
    r_events_queue: Reg<Bits<24>>,
    r_scratch: Reg<Bits<32>>,
    r_irq_mod: Reg<Bits<32>>,
    r_irq_events: Reg<Bits<16>>,
    r_qpc_lo: Reg<Bits<32>>,
    r_qpc_hi: Reg<Bits<32>>,
    r_qpc_log: Reg<Bits<5>>,
    r_qpn_high: Reg<Bits<24>>,
    lim_log: Signal<Local, Bits<5>>,
    r_cqc_lo: Reg<Bits<32>>,
    r_cqc_hi: Reg<Bits<32>>,
    r_cqc_log: Reg<Bits<5>>,
    r_qps_lo: Reg<Bits<32>>,
    r_qps_hi: Reg<Bits<32>>,
    r_replay_lo: Reg<Bits<32>>,
    r_replay_hi: Reg<Bits<32>>,
    r_mpt_lo: Reg<Bits<32>>,
    r_mpt_hi: Reg<Bits<32>>,
    r_mpt_log: Reg<Bits<5>>,
    r_mtt_lo: Reg<Bits<32>>,
    r_mtt_hi: Reg<Bits<32>>,
    r_mtt_log: Reg<Bits<5>>,
    r_db_lo: Reg<Bits<32>>,
    db_valid: Reg<Bit>,
    db_word: Reg<Bits<32>>,
    db_lo_q: Reg<Bits<32>>,
    ctx_valid: Reg<Bit>,
    ctx_word: Reg<Bits<32>>,
    /// `ctx_count` as software wrote it, and as the command in `ctx_word` took it.
    r_ctx_count: Reg<Bits<24>>,
    r_cntd_lo: Reg<Bits<32>>,
    r_cntd_hi: Reg<Bits<32>>,
    ctx_count_q: Reg<Bits<24>>,
    bvalid: Reg<Bit>,
    rvalid: Reg<Bit>,
    rdata: Reg<Bits<32>>,
    c_busy: Reg<Bit>,
    c_wait: Reg<Bit>,
    c_index: Reg<Bits<CNT_INDEX_BITS>>,
    c_hi: Reg<Bit>,
    c_latch: Reg<Bits<32>>,
    c_latch_v: Reg<Bit>,
    c_latch_index: Reg<Bits<CNT_INDEX_BITS>>,
    in_cnt: Signal<Local, Bit>,
    irq_pending: Reg<Bit>,
    soft: Reg<Bit>,
    w_fire: Signal<Local, Bit>,
    w_ok: Signal<Local, Bit>,
    waddr: Signal<Local, Bits<16>>,
    wdata: Signal<Local, Bits<32>>,
    raddr: Signal<Local, Bits<16>>,
    rword: Signal<Local, Bits<32>>,
    new_events: Signal<Local, Bits<5>>,
    ev_after_write: Signal<Local, Bits<5>>,
    kind: TypeTag<Self>,
}

impl Logic for RegFile {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_ctrl,
            r_events,
            r_events_enable,
            r_events_queue,
            r_scratch,
            r_irq_mod,
            r_irq_events,
            r_qpc_lo,
            r_qpc_hi,
            r_qpc_log,
            r_qpn_high,
            r_cqc_lo,
            r_cqc_hi,
            r_cqc_log,
            r_qps_lo,
            r_qps_hi,
            r_replay_lo,
            r_replay_hi,
            r_mpt_lo,
            r_mpt_hi,
            r_mpt_log,
            r_mtt_lo,
            r_mtt_hi,
            r_mtt_log,
            r_db_lo,
            db_valid,
            db_word,
            db_lo_q,
            ctx_valid,
            ctx_word,
            r_ctx_count,
            r_cntd_lo,
            r_cntd_hi,
            ctx_count_q,
            bvalid,
            rvalid,
            rdata,
            c_busy,
            c_wait,
            c_index,
            c_hi,
            c_latch,
            c_latch_v,
            c_latch_index,
            irq_pending,
            soft
        );
        // ---- writes: address and data together, one at a time
        self.waddr.next = self.s_axil.awaddr.val() & 0xFFFC;
        self.wdata.next = self.s_axil.wdata.val();
        self.w_ok.next = !self.bvalid.q.val();
        if (self.waddr.val() == REG_DOORBELL_HI) & self.db_valid.q.val() {
            self.w_ok.next = false;
        }
        if (self.waddr.val() == REG_CTX_CMD) & self.ctx_valid.q.val() {
            self.w_ok.next = false;
        }
        self.w_fire.next = self.s_axil.awvalid.val() & self.s_axil.wvalid.val() & self.w_ok.val();
        self.s_axil.awready.next = self.s_axil.wvalid.val() & self.w_ok.val();
        self.s_axil.wready.next = self.s_axil.awvalid.val() & self.w_ok.val();
        if self.s_axil.bready.val() {
            self.bvalid.d.next = false;
        }
        self.soft.d.next = false;
        if self.m_db.ready.val() {
            self.db_valid.d.next = false;
        }
        if self.m_ctx.ready.val() {
            self.ctx_valid.d.next = false;
        }
        self.ev_after_write.next = self.r_events.q.val();
        if self.w_fire.val() {
            self.bvalid.d.next = true;
            // registers take whole words; byte strobes are honoured only as "all or nothing"
            if self.s_axil.wstrb.val().all() {
                if self.waddr.val() == REG_CTRL {
                    self.r_ctrl.d.next = self.wdata.val().get_bit(CTRL_ENABLE);
                    self.soft.d.next = self.wdata.val().get_bit(CTRL_SOFT_RESET);
                }
                if self.waddr.val() == REG_EVENTS {
                    self.ev_after_write.next = self.r_events.q.val() & !bit_cast::<5, 32>(self.wdata.val());
                }
                if self.waddr.val() == REG_EVENTS_ENABLE {
                    self.r_events_enable.d.next = bit_cast::<5, 32>(self.wdata.val());
                }
                if self.waddr.val() == REG_SCRATCH {
                    self.r_scratch.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_IRQ_MODERATION {
                    self.r_irq_mod.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_IRQ_EVENTS {
                    self.r_irq_events.d.next = bit_cast::<16, 32>(self.wdata.val());
                }
                if self.waddr.val() == REG_QPC_BASE_LO {
                    self.r_qpc_lo.d.next = self.wdata.val() & 0xFFFF_F000u64;
                }
                if self.waddr.val() == REG_QPC_BASE_HI {
                    self.r_qpc_hi.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_QPC_LOG {
                    self.r_qpc_log.d.next = bit_cast::<5, 32>(self.wdata.val());
                }
                if self.waddr.val() == REG_CQC_BASE_LO {
                    self.r_cqc_lo.d.next = self.wdata.val() & 0xFFFF_F000u64;
                }
                if self.waddr.val() == REG_CQC_BASE_HI {
                    self.r_cqc_hi.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_CQC_LOG {
                    self.r_cqc_log.d.next = bit_cast::<5, 32>(self.wdata.val());
                }
                if self.waddr.val() == REG_QPS_BASE_LO {
                    self.r_qps_lo.d.next = self.wdata.val() & 0xFFFF_F000u64;
                }
                if self.waddr.val() == REG_QPS_BASE_HI {
                    self.r_qps_hi.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_REPLAY_BASE_LO {
                    self.r_replay_lo.d.next = self.wdata.val() & 0xFFFF_F000u64;
                }
                if self.waddr.val() == REG_REPLAY_BASE_HI {
                    self.r_replay_hi.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_MPT_BASE_LO {
                    self.r_mpt_lo.d.next = self.wdata.val() & 0xFFFF_F000u64;
                }
                if self.waddr.val() == REG_MPT_BASE_HI {
                    self.r_mpt_hi.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_MPT_LOG {
                    self.r_mpt_log.d.next = bit_cast::<5, 32>(self.wdata.val());
                }
                if self.waddr.val() == REG_MTT_BASE_LO {
                    self.r_mtt_lo.d.next = self.wdata.val() & 0xFFFF_F000u64;
                }
                if self.waddr.val() == REG_MTT_BASE_HI {
                    self.r_mtt_hi.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_MTT_LOG {
                    self.r_mtt_log.d.next = bit_cast::<5, 32>(self.wdata.val());
                }
                if self.waddr.val() == REG_DOORBELL_LO {
                    self.r_db_lo.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_DOORBELL_HI {
                    self.db_valid.d.next = true;
                    self.db_word.d.next = self.wdata.val();
                    self.db_lo_q.d.next = self.r_db_lo.q.val();
                }
                if self.waddr.val() == REG_CTX_CMD {
                    self.ctx_valid.d.next = true;
                    self.ctx_word.d.next = self.wdata.val();
                    self.ctx_count_q.d.next = self.r_ctx_count.q.val();
                }
                if self.waddr.val() == REG_COUNTERS_BASE_LO {
                    self.r_cntd_lo.d.next = self.wdata.val() & 0xFFFF_FE00u64;
                }
                if self.waddr.val() == REG_COUNTERS_BASE_HI {
                    self.r_cntd_hi.d.next = self.wdata.val();
                }
                if self.waddr.val() == REG_CTX_COUNT {
                    self.r_ctx_count.d.next = self.wdata.val().get_bits::<24>(0);
                }
            }
        }
        self.s_axil.bvalid.next = self.bvalid.q.val();
        self.s_axil.bresp.next = 0.into();

        // ---- reads
        self.raddr.next = self.s_axil.araddr.val() & 0xFFFC;
        self.s_axil.arready.next = !self.rvalid.q.val() & !self.c_busy.q.val();
        self.rword.next = 0.into();
        if self.raddr.val() == REG_ID_MAGIC {
            self.rword.next = bits::<32>(MAGIC);
        }
        if self.raddr.val() == REG_ID_VERSION {
            self.rword.next = bits::<32>(ABI_VERSION);
        }
        if self.raddr.val() == REG_ID_DATAPATH {
            self.rword.next = bits::<32>(DATAPATH_BYTES);
        }
        if self.raddr.val() == REG_ID_CLOCK {
            self.rword.next = bits::<32>(CLOCK_MHZ);
        }
        if self.raddr.val() == REG_ID_FEATURES {
            self.rword.next = bits::<32>(FEATURES_WORD);
        }
        if self.raddr.val() == REG_ID_LIMITS {
            self.rword.next = bits::<32>(LIMITS_WORD);
        }
        if self.raddr.val() == REG_ID_MAC_LO {
            self.rword.next = self.port_mac.val().get_bits::<32>(0);
        }
        if self.raddr.val() == REG_ID_MAC_HI {
            self.rword.next = bit_cast::<32, 16>(self.port_mac.val().get_bits::<16>(32));
        }
        if self.raddr.val() == REG_CTRL {
            self.rword.next = bit_cast::<32, 1>(self.r_ctrl.q.val().into());
        }
        if self.raddr.val() == REG_EVENTS {
            self.rword.next = bit_cast::<32, 5>(self.r_events.q.val());
        }
        if self.raddr.val() == REG_EVENTS_ENABLE {
            self.rword.next = bit_cast::<32, 5>(self.r_events_enable.q.val());
        }
        if self.raddr.val() == REG_EVENTS_QUEUE {
            self.rword.next = bit_cast::<32, 24>(self.r_events_queue.q.val());
        }
        if self.raddr.val() == REG_SCRATCH {
            self.rword.next = self.r_scratch.q.val();
        }
        if self.raddr.val() == REG_IRQ_VECTORS {
            self.rword.next = bits::<32>(IRQ_VECTORS);
        }
        if self.raddr.val() == REG_IRQ_MODERATION {
            self.rword.next = self.r_irq_mod.q.val();
        }
        if self.raddr.val() == REG_COUNTERS_BASE_LO {
            self.rword.next = self.r_cntd_lo.q.val();
        }
        if self.raddr.val() == REG_COUNTERS_BASE_HI {
            self.rword.next = self.r_cntd_hi.q.val();
        }
        if self.raddr.val() == REG_CTX_COUNT {
            self.rword.next = bit_cast::<32, 24>(self.r_ctx_count.q.val());
        }
        if self.raddr.val() == REG_IRQ_EVENTS {
            self.rword.next = bit_cast::<32, 16>(self.r_irq_events.q.val());
        }
        if self.raddr.val() == REG_QPC_BASE_LO {
            self.rword.next = self.r_qpc_lo.q.val();
        }
        if self.raddr.val() == REG_QPC_BASE_HI {
            self.rword.next = self.r_qpc_hi.q.val();
        }
        if self.raddr.val() == REG_QPC_LOG {
            self.rword.next = bit_cast::<32, 5>(self.r_qpc_log.q.val());
        }
        if self.raddr.val() == REG_CQC_BASE_LO {
            self.rword.next = self.r_cqc_lo.q.val();
        }
        if self.raddr.val() == REG_CQC_BASE_HI {
            self.rword.next = self.r_cqc_hi.q.val();
        }
        if self.raddr.val() == REG_CQC_LOG {
            self.rword.next = bit_cast::<32, 5>(self.r_cqc_log.q.val());
        }
        if self.raddr.val() == REG_QPS_BASE_LO {
            self.rword.next = self.r_qps_lo.q.val();
        }
        if self.raddr.val() == REG_QPS_BASE_HI {
            self.rword.next = self.r_qps_hi.q.val();
        }
        if self.raddr.val() == REG_REPLAY_BASE_LO {
            self.rword.next = self.r_replay_lo.q.val();
        }
        if self.raddr.val() == REG_REPLAY_BASE_HI {
            self.rword.next = self.r_replay_hi.q.val();
        }
        if self.raddr.val() == REG_MPT_BASE_LO {
            self.rword.next = self.r_mpt_lo.q.val();
        }
        if self.raddr.val() == REG_MPT_BASE_HI {
            self.rword.next = self.r_mpt_hi.q.val();
        }
        if self.raddr.val() == REG_MPT_LOG {
            self.rword.next = bit_cast::<32, 5>(self.r_mpt_log.q.val());
        }
        if self.raddr.val() == REG_MTT_BASE_LO {
            self.rword.next = self.r_mtt_lo.q.val();
        }
        if self.raddr.val() == REG_MTT_BASE_HI {
            self.rword.next = self.r_mtt_hi.q.val();
        }
        if self.raddr.val() == REG_MTT_LOG {
            self.rword.next = bit_cast::<32, 5>(self.r_mtt_log.q.val());
        }
        if self.raddr.val() == REG_STATUS {
            self.rword.next = bit_cast::<32, 1>((!self.init.val()).into()) << STATUS_READY;
        }
        if self.raddr.val() == REG_CTX_STATUS {
            self.rword.next = (bit_cast::<32, 1>(self.ctx_error.val().into()) << 1)
                | bit_cast::<32, 1>((self.ctx_busy.val() | self.ctx_valid.q.val()).into());
        }
        // a counter: its index out now, its value two cycles later
        self.in_cnt.next = self.raddr.val().get_bits::<7>(9) == CNT_PAGE;
        self.cnt_index.next = self.c_index.q.val();
        self.cnt_busy.next = self.c_busy.q.val();
        if self.s_axil.arvalid.val() & !self.rvalid.q.val() & !self.c_busy.q.val() {
            if self.in_cnt.val() {
                self.c_busy.d.next = true;
                self.c_wait.d.next = true;
                self.c_index.d.next = self.raddr.val().get_bits::<CNT_INDEX_BITS>(3);
                self.c_hi.d.next = self.raddr.val().get_bit(2);
            } else {
                self.rvalid.d.next = true;
                self.rdata.d.next = self.rword.val();
            }
        } else if self.s_axil.rready.val() {
            self.rvalid.d.next = false;
        }
        if self.c_wait.q.val() {
            self.c_wait.d.next = false;
        }
        if self.c_busy.q.val() & !self.c_wait.q.val() {
            // `cnt_data` is the value of `c_index` now
            self.c_busy.d.next = false;
            self.rvalid.d.next = true;
            if self.c_hi.q.val() {
                self.rdata.d.next = self.cnt_data.val().get_bits::<32>(32);
                if self.c_latch_v.q.val() & (self.c_latch_index.q.val() == self.c_index.q.val()) {
                    self.rdata.d.next = self.c_latch.q.val();
                }
                self.c_latch_v.d.next = false;
            } else {
                self.rdata.d.next = self.cnt_data.val().get_bits::<32>(0);
                self.c_latch.d.next = self.cnt_data.val().get_bits::<32>(32);
                self.c_latch_v.d.next = true;
                self.c_latch_index.d.next = self.c_index.q.val();
            }
        }
        self.s_axil.rvalid.next = self.rvalid.q.val();
        self.s_axil.rdata.next = self.rdata.q.val();
        self.s_axil.rresp.next = 0.into();

        // ---- events and their interrupt
        self.new_events.next = self.ev_set.val() & !self.r_events.q.val();
        self.r_events.d.next = self.ev_after_write.val() | self.ev_set.val();
        if self.ev_set.val().any() {
            self.r_events_queue.d.next = self.ev_queue.val();
        }
        if (self.new_events.val() & self.r_events_enable.q.val()).any() {
            self.irq_pending.d.next = true;
        }
        if self.irq_pending.q.val() & self.m_irq.ready.val() {
            self.irq_pending.d.next = false;
        }
        self.m_irq.valid.next = self.irq_pending.q.val();
        self.m_irq.vector.next = bit_cast::<11, 16>(self.r_irq_events.q.val());

        // ---- outputs
        self.enable.next = self.r_ctrl.q.val();
        self.soft_reset.next = self.soft.q.val();
        self.qpc_base.next =
            (bit_cast::<64, 32>(self.r_qpc_hi.q.val()) << 32) | bit_cast::<64, 32>(self.r_qpc_lo.q.val());
        self.qpc_log.next = self.r_qpc_log.q.val();
        // a cycle behind `qpc_log_entries`: the driver writes it before any traffic
        self.lim_log.next = self.r_qpc_log.q.val();
        if self.r_qpc_log.q.val() > LOG_QPS_VALUE {
            self.lim_log.next = LOG_QPS_VALUE.into();
        }
        self.r_qpn_high.d.next = !((bits::<24>(1) << self.lim_log.val()) - 1);
        self.qpn_high.next = self.r_qpn_high.q.val();
        self.cqc_base.next =
            (bit_cast::<64, 32>(self.r_cqc_hi.q.val()) << 32) | bit_cast::<64, 32>(self.r_cqc_lo.q.val());
        self.cqc_log.next = self.r_cqc_log.q.val();
        self.qps_base.next =
            (bit_cast::<64, 32>(self.r_qps_hi.q.val()) << 32) | bit_cast::<64, 32>(self.r_qps_lo.q.val());
        self.replay_base.next =
            (bit_cast::<64, 32>(self.r_replay_hi.q.val()) << 32) | bit_cast::<64, 32>(self.r_replay_lo.q.val());
        self.mpt_base.next =
            (bit_cast::<64, 32>(self.r_mpt_hi.q.val()) << 32) | bit_cast::<64, 32>(self.r_mpt_lo.q.val());
        self.mpt_log.next = self.r_mpt_log.q.val();
        self.mtt_base.next =
            (bit_cast::<64, 32>(self.r_mtt_hi.q.val()) << 32) | bit_cast::<64, 32>(self.r_mtt_lo.q.val());
        self.mtt_log.next = self.r_mtt_log.q.val();
        self.counters_base.next =
            (bit_cast::<64, 32>(self.r_cntd_hi.q.val()) << 32) | bit_cast::<64, 32>(self.r_cntd_lo.q.val());
        self.irq_mod_count.next = self.r_irq_mod.q.val().get_bits::<16>(0);
        self.irq_mod_time.next = self.r_irq_mod.q.val().get_bits::<16>(IRQ_MOD_TIME);
        self.m_db.valid.next = self.db_valid.q.val();
        self.m_db.index.next = self.db_lo_q.q.val().get_bits::<16>(DB_INDEX);
        self.m_db.solicited.next = self.db_lo_q.q.val().get_bit(DB_SOLICITED);
        self.m_db.queue.next = self.db_word.q.val().get_bits::<24>(DB_QUEUE_HI);
        self.m_db.kind.next = self.db_word.q.val().get_bits::<4>(DB_KIND_HI);
        self.m_ctx.valid.next = self.ctx_valid.q.val();
        self.m_ctx.index.next = self.ctx_word.q.val().get_bits::<24>(0);
        self.m_ctx.table.next = self.ctx_word.q.val().get_bits::<4>(CTX_TABLE);
        self.m_ctx.op.next = self.ctx_word.q.val().get_bits::<4>(CTX_OP);
        self.m_ctx.count.next = self.ctx_count_q.q.val();

        if self.reset.val() | self.soft.q.val() {
            self.r_ctrl.d.next = false;
            self.r_events.d.next = 0.into();
            self.r_events_enable.d.next = 0.into();
            self.r_events_queue.d.next = 0.into();
            self.r_scratch.d.next = 0.into();
            self.r_irq_mod.d.next = 1.into();
            self.r_irq_events.d.next = 0.into();
            self.r_qpc_lo.d.next = 0.into();
            self.r_qpc_hi.d.next = 0.into();
            self.r_qpc_log.d.next = 0.into();
            self.r_qpn_high.d.next = bits::<24>(0xff_ffff);
            self.r_cqc_lo.d.next = 0.into();
            self.r_cqc_hi.d.next = 0.into();
            self.r_cqc_log.d.next = 0.into();
            self.r_qps_lo.d.next = 0.into();
            self.r_qps_hi.d.next = 0.into();
            self.r_replay_lo.d.next = 0.into();
            self.r_replay_hi.d.next = 0.into();
            self.r_mpt_lo.d.next = 0.into();
            self.r_mpt_hi.d.next = 0.into();
            self.r_mpt_log.d.next = 0.into();
            self.r_mtt_lo.d.next = 0.into();
            self.r_mtt_hi.d.next = 0.into();
            self.r_mtt_log.d.next = 0.into();
            self.r_ctx_count.d.next = 0.into();
            self.r_cntd_lo.d.next = 0.into();
            self.r_cntd_hi.d.next = 0.into();
            self.db_valid.d.next = false;
            self.ctx_valid.d.next = false;
            self.irq_pending.d.next = false;
        }
        if self.reset.val() {
            self.bvalid.d.next = false;
            self.rvalid.d.next = false;
            self.soft.d.next = false;
            self.c_busy.d.next = false;
            self.c_wait.d.next = false;
            self.c_latch_v.d.next = false;
        }
    }
}
