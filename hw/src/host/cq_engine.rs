//! `CqEngine`: writes CQEs into host CQ rings and raises their interrupts.
//!
//! Per CQ (a table indexed by CQN, loaded from the CQ context): ring base
//! and size, PROD, CONS, arming, moderation, MSI-X vector. A CQE request
//! (`s_cqe`: CQN, the 32-byte entry, whether it is solicited) becomes one
//! DMA write at slot PROD mod size with the owner bit the contract gives
//! PROD (`ring::owner_for`), then PROD advances. A full ring sets the CQ's
//! OVERRUN flag and raises `events.CQ_OVERRUN`; the CQ takes nothing more.
//!
//! Interrupts (the contract's "once per CqArm"): an armed CQ interrupts
//! after MOD_COUNT completions or MOD_TIME_US after the first, whichever
//! comes first (context values, 0 meaning the `irq_moderation` defaults);
//! armed for solicited only, on a solicited or error completion; arming
//! while CQEs are unpolled (PROD != the doorbell's CONS) interrupts at
//! once. Every interrupt waits until the CQE writes before it are done, so
//! the driver never takes an interrupt before the entry it announces.
//!
//! Moderation timers: a CQ that needs one enters a FIFO with its deadline
//! (in microseconds, rounded up so it never fires early); the head is
//! checked each cycle and, if not due, moves
//! to the tail. With N CQs waiting, a timer fires at most N cycles late
//! (1024 CQs: 4 us), and no cycle ever walks the CQ table.
//!
//! Table accesses are one event per cycle: setup > query > doorbell >
//! timer > CQE.

use super::{DoorbellIn, IrqOut, QueryIn, WrStreamOut};
use crate::axis::AxisFifo;
use crate::consts::*;
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// A CQ's context (`live` 0 invalidates it).
#[derive(LogicInterface, Default)]
#[join = "CqSetupIn"]
pub struct CqSetupOut {
    pub cqn: Signal<Out, Bits<24>>,
    pub base: Signal<Out, Bits<64>>,
    pub log: Signal<Out, Bits<4>>,
    pub prod: Signal<Out, Bits<16>>,
    pub cons: Signal<Out, Bits<16>>,
    pub armed: Signal<Out, Bit>,
    pub solicited: Signal<Out, Bit>,
    pub overrun: Signal<Out, Bit>,
    pub vector: Signal<Out, Bits<16>>,
    pub mod_count: Signal<Out, Bits<16>>,
    pub mod_time: Signal<Out, Bits<16>>,
    pub live: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "CqSetupOut"]
pub struct CqSetupIn {
    pub cqn: Signal<In, Bits<24>>,
    pub base: Signal<In, Bits<64>>,
    pub log: Signal<In, Bits<4>>,
    pub prod: Signal<In, Bits<16>>,
    pub cons: Signal<In, Bits<16>>,
    pub armed: Signal<In, Bit>,
    pub solicited: Signal<In, Bit>,
    pub overrun: Signal<In, Bit>,
    pub vector: Signal<In, Bits<16>>,
    pub mod_count: Signal<In, Bits<16>>,
    pub mod_time: Signal<In, Bits<16>>,
    pub live: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A completion to post: the 32-byte CQE (owner bit ignored) for CQ `cqn`.
#[derive(LogicInterface, Default)]
#[join = "CqeIn"]
pub struct CqeOut {
    pub cqn: Signal<Out, Bits<24>>,
    pub data: Signal<Out, Bits<256>>,
    pub solicited: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "CqeOut"]
pub struct CqeIn {
    pub cqn: Signal<In, Bits<24>>,
    pub data: Signal<In, Bits<256>>,
    pub solicited: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct CqEngine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// `irq_moderation` defaults.
    pub irq_mod_count: Signal<In, Bits<16>>,
    pub irq_mod_time: Signal<In, Bits<16>>,
    pub s_db: DoorbellIn,
    pub s_setup: CqSetupIn,
    pub s_query: QueryIn,
    /// Answer to a query: the CQ context's bytes 8..14 (PROD, CONS,
    /// LOG_SIZE, flags) as they would be stored.
    pub query_valid: Signal<Out, Bit>,
    pub query_data: Signal<Out, Bits<48>>,
    pub s_cqe: CqeIn,
    pub m_wr: WrStreamOut,
    /// The DMA engine finished one of this engine's writes.
    pub wr_done: Signal<In, Bit>,
    pub m_irq: IrqOut,
    /// A CQ overran (pulse), and which.
    pub ev_overrun: Signal<Out, Bit>,
    /// A CQ doorbell was dropped (CQ beyond the table or not loaded).
    pub db_error: Signal<Out, Bit>,
    pub ev_queue: Signal<Out, Bits<24>>,
    /// CQEs dropped: CQ not loaded, overrun, or full.
    pub cnt_cqe_drop: Signal<Out, Bits<32>>,

    table: LutRam<Bits<152>, 10>,
    timers: AxisFifo<26, 1, 1, 10>,
    irqs: AxisFifo<27, 1, 1, 4>,
    us_div: Reg<Bits<8>>,
    now_us: Reg<Bits<16>>,
    wr_valid: Reg<Bit>,
    wr_addr: Reg<Bits<64>>,
    wr_data: Reg<Bits<512>>,
    wr_keep: Reg<Bits<64>>,
    wr_issued: Reg<Bits<16>>,
    wr_finished: Reg<Bits<16>>,
    q_valid: Reg<Bit>,
    q_data: Reg<Bits<48>>,
    ovr_q: Reg<Bit>,
    dberr_q: Reg<Bit>,
    evq: Reg<Bits<24>>,
    drops: Reg<Bits<32>>,
    // locals
    ev_setup: Signal<Local, Bit>,
    ev_query: Signal<Local, Bit>,
    ev_db: Signal<Local, Bit>,
    ev_timer: Signal<Local, Bit>,
    ev_cqe: Signal<Local, Bit>,
    timer_due: Signal<Local, Bit>,
    key: Signal<Local, Bits<10>>,
    e: Signal<Local, Bits<152>>,
    e_log: Signal<Local, Bits<4>>,
    e_prod: Signal<Local, Bits<16>>,
    e_cons: Signal<Local, Bits<16>>,
    e_armed: Signal<Local, Bit>,
    e_sol: Signal<Local, Bit>,
    e_overrun: Signal<Local, Bit>,
    e_live: Signal<Local, Bit>,
    e_timer: Signal<Local, Bit>,
    e_pending: Signal<Local, Bits<16>>,
    eff_count: Signal<Local, Bits<16>>,
    eff_time: Signal<Local, Bits<16>>,
    ne: Signal<Local, Bits<152>>,
    write_back: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    start_timer: Signal<Local, Bit>,
    db_ok: Signal<Local, Bit>,
    full: Signal<Local, Bit>,
    odd: Signal<Local, Bit>,
    owner: Signal<Local, Bit>,
    cqe: Signal<Local, Bits<256>>,
    pend_new: Signal<Local, Bits<16>>,
    is_error: Signal<Local, Bit>,
    recirc: Signal<Local, Bit>,
    issued_n: Signal<Local, Bits<16>>,
    kind: TypeTag<Self>,
}

impl Logic for CqEngine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            us_div,
            now_us,
            wr_valid,
            wr_addr,
            wr_data,
            wr_keep,
            wr_issued,
            wr_finished,
            q_valid,
            q_data,
            ovr_q,
            dberr_q,
            evq,
            drops
        );
        clock!(self, clock, table);
        self.timers.clock.next = self.clock.val();
        self.timers.reset.next = self.reset.val();
        self.irqs.clock.next = self.clock.val();
        self.irqs.reset.next = self.reset.val();

        // microseconds, for moderation
        self.us_div.d.next = self.us_div.q.val() + 1;
        if self.us_div.q.val() == CLOCK_MHZ - 1 {
            self.us_div.d.next = 0.into();
            self.now_us.d.next = self.now_us.q.val() + 1;
        }

        // ---- one event per cycle
        self.timer_due.next = self.timers.m_axis.tvalid.val()
            & !(self.now_us.q.val() - self.timers.m_axis.tdata.val().get_bits::<16>(0)).get_bit(15);
        self.ev_setup.next = self.s_setup.valid.val();
        self.ev_query.next = self.s_query.valid.val() & !self.ev_setup.val();
        self.ev_db.next = self.s_db.valid.val() & !self.ev_setup.val() & !self.ev_query.val() & !self.irqs.full.val();
        self.ev_timer.next = self.timer_due.val()
            & !self.ev_setup.val()
            & !self.ev_query.val()
            & !self.s_db.valid.val()
            & !self.irqs.full.val();
        self.ev_cqe.next = self.s_cqe.valid.val()
            & !self.ev_setup.val()
            & !self.ev_query.val()
            & !self.s_db.valid.val()
            & !self.timer_due.val()
            & (!self.wr_valid.q.val() | self.m_wr.tready.val())
            & !self.irqs.full.val()
            & !self.timers.full.val();
        self.s_setup.ready.next = true;
        self.s_query.ready.next = !self.ev_setup.val();
        self.s_db.ready.next = self.ev_db.val();
        self.s_cqe.ready.next = self.ev_cqe.val();

        self.key.next = bit_cast::<10, 24>(self.s_cqe.cqn.val());
        if self.ev_timer.val() {
            self.key.next = self.timers.m_axis.tdata.val().get_bits::<10>(16);
        }
        if self.ev_db.val() {
            self.key.next = bit_cast::<10, 24>(self.s_db.queue.val());
        }
        if self.ev_query.val() {
            self.key.next = bit_cast::<10, 24>(self.s_query.index.val());
        }
        self.table.read_addr.next = self.key.val();
        self.e.next = self.table.read_data.val();
        self.e_log.next = self.e.val().get_bits::<4>(52);
        self.e_prod.next = self.e.val().get_bits::<16>(56);
        self.e_cons.next = self.e.val().get_bits::<16>(72);
        self.e_armed.next = self.e.val().get_bit(88);
        self.e_sol.next = self.e.val().get_bit(89);
        self.e_overrun.next = self.e.val().get_bit(90);
        self.e_live.next = self.e.val().get_bit(91);
        self.e_timer.next = self.e.val().get_bit(92);
        self.e_pending.next = self.e.val().get_bits::<16>(136);
        self.eff_count.next = self.e.val().get_bits::<16>(104);
        if !self.eff_count.val().any() {
            self.eff_count.next = self.irq_mod_count.val();
        }
        self.eff_time.next = self.e.val().get_bits::<16>(120);
        if !self.eff_time.val().any() {
            self.eff_time.next = self.irq_mod_time.val();
        }

        // ---- query
        self.q_valid.d.next = self.ev_query.val();
        if self.ev_query.val() {
            self.q_data.d.next = bit_cast::<48, 16>(self.e_prod.val())
                | (bit_cast::<48, 16>(self.e_cons.val()) << 16)
                | (bit_cast::<48, 4>(self.e_log.val()) << 32)
                | (bit_cast::<48, 1>(self.e_armed.val().into()) << CQS_ARMED)
                | (bit_cast::<48, 1>(self.e_sol.val().into()) << CQS_SOLICITED)
                | (bit_cast::<48, 1>(self.e_overrun.val().into()) << CQS_OVERRUN);
        }
        self.query_valid.next = self.q_valid.q.val();
        self.query_data.next = self.q_data.q.val();

        self.ne.next = self.e.val();
        self.write_back.next = false;
        self.fire.next = false;
        self.start_timer.next = false;
        self.ovr_q.d.next = false;
        self.dberr_q.d.next = false;

        // ---- doorbells: consumer index, arming
        self.db_ok.next = !self.s_db.queue.val().get_bits::<14>(10).any() & self.e_live.val();
        if self.ev_db.val() {
            if self.db_ok.val() {
                self.write_back.next = true;
                self.ne.next =
                    (self.e.val() & !(bits::<152>(0xFFFF) << 72)) | (bit_cast::<152, 16>(self.s_db.index.val()) << 72);
                if self.s_db.kind.val() == KIND_CQ_ARM {
                    if self.s_db.index.val() != self.e_prod.val() {
                        // unpolled completions: interrupt now
                        self.fire.next = true;
                        self.ne.next = self.ne.val() & !(bits::<152>(0xFFFF) << 136) & !(bits::<152>(1) << 88);
                    } else {
                        self.ne.next = (self.ne.val() & !(bits::<152>(3) << 88))
                            | (bits::<152>(1) << 88)
                            | (bit_cast::<152, 1>(self.s_db.solicited.val().into()) << 89);
                    }
                }
            } else {
                self.dberr_q.d.next = true;
                self.evq.d.next = self.s_db.queue.val();
            }
        }

        // ---- a moderation timer ran out
        if self.ev_timer.val() {
            self.write_back.next = true;
            self.ne.next = self.e.val() & !(bits::<152>(1) << 92);
            if self.e_armed.val() & self.e_pending.val().any() & self.e_live.val() {
                self.fire.next = true;
                self.ne.next = self.ne.val() & !(bits::<152>(0xFFFF) << 136) & !(bits::<152>(1) << 88);
            }
        }

        // ---- a CQE
        self.full.next = (self.e_prod.val() - self.e_cons.val()) == (bits::<16>(1) << self.e_log.val());
        self.odd.next = self.e_prod.val().get_bit(0);
        self.owner.next = !(self.e_prod.val() >> self.e_log.val()).get_bit(0);
        self.cqe.next = self.s_cqe.data.val() & !(bits::<256>(1) << CQE_OWNER);
        if self.owner.val() {
            self.cqe.next = self.cqe.val() | (bits::<256>(1) << CQE_OWNER);
        }
        self.is_error.next = self.s_cqe.data.val().get_bits::<8>(CQE_STATUS).any();
        self.pend_new.next = self.e_pending.val() + 1;
        self.issued_n.next = self.wr_issued.q.val();
        if self.m_wr.tready.val() {
            self.wr_valid.d.next = false;
        }
        if self.ev_cqe.val() {
            if !self.e_live.val() | self.e_overrun.val() {
                self.drops.d.next = self.drops.q.val() + 1;
            } else if self.full.val() {
                self.drops.d.next = self.drops.q.val() + 1;
                self.write_back.next = true;
                self.ne.next = self.e.val() | (bits::<152>(1) << 90);
                self.ovr_q.d.next = true;
                self.evq.d.next = self.s_cqe.cqn.val();
            } else {
                self.write_back.next = true;
                self.wr_valid.d.next = true;
                self.wr_addr.d.next = (bit_cast::<64, 52>(self.e.val().get_bits::<52>(0)) << 12)
                    + (bit_cast::<64, 16>(self.e_prod.val() & ((bits::<16>(1) << self.e_log.val()) - 1)) << 5);
                self.wr_data.d.next = bit_cast::<512, 256>(self.cqe.val());
                self.wr_keep.d.next = bits::<64>(0xFFFF_FFFFu64);
                if self.odd.val() {
                    self.wr_data.d.next = bit_cast::<512, 256>(self.cqe.val()) << 256;
                    self.wr_keep.d.next = bits::<64>(0xFFFF_FFFF_0000_0000u64);
                }
                self.issued_n.next = self.wr_issued.q.val() + 1;
                self.ne.next = (self.e.val() & !(bits::<152>(0xFFFF) << 56) & !(bits::<152>(0xFFFF) << 136))
                    | (bit_cast::<152, 16>(self.e_prod.val() + 1) << 56)
                    | (bit_cast::<152, 16>(self.pend_new.val()) << 136);
                if self.e_armed.val() {
                    if self.e_sol.val() {
                        if self.s_cqe.solicited.val() | self.is_error.val() {
                            self.fire.next = true;
                        }
                    } else if self.pend_new.val() >= self.eff_count.val() {
                        self.fire.next = true;
                    } else if self.eff_time.val().any() & !self.e_timer.val() {
                        self.start_timer.next = true;
                        self.ne.next = self.ne.val() | (bits::<152>(1) << 92);
                    }
                }
                if self.fire.val() {
                    self.ne.next = self.ne.val() & !(bits::<152>(0xFFFF) << 136) & !(bits::<152>(1) << 88);
                }
            }
        }
        self.wr_issued.d.next = self.issued_n.val();
        self.m_wr.tvalid.next = self.wr_valid.q.val();
        self.m_wr.tdata.next = self.wr_data.q.val();
        self.m_wr.tkeep.next = self.wr_keep.q.val();
        self.m_wr.tlast.next = true;
        self.m_wr.addr.next = self.wr_addr.q.val();
        self.m_wr.len.next = bits::<32>(CQE_BYTES);

        // ---- timers: start one, retire the due head, or rotate the head
        self.recirc.next = self.timers.m_axis.tvalid.val() & !self.timer_due.val() & !self.start_timer.val();
        self.timers.m_axis.tready.next = self.ev_timer.val() | self.recirc.val();
        self.timers.s_axis.tvalid.next = self.start_timer.val() | self.recirc.val();
        self.timers.s_axis.tdata.next = self.timers.m_axis.tdata.val();
        if self.start_timer.val() {
            self.timers.s_axis.tdata.next = (bit_cast::<26, 10>(self.key.val()) << 16)
                | bit_cast::<26, 16>(self.now_us.q.val() + self.eff_time.val() + 1);
        }
        self.timers.s_axis.tkeep.next = 1.into();
        self.timers.s_axis.tlast.next = true;
        self.timers.s_axis.tuser.next = 0.into();

        // ---- interrupts, each after the CQE writes issued before it
        if self.wr_done.val() {
            self.wr_finished.d.next = self.wr_finished.q.val() + 1;
        }
        self.irqs.s_axis.tvalid.next = self.fire.val();
        self.irqs.s_axis.tdata.next =
            (bit_cast::<27, 11>(self.e.val().get_bits::<11>(93)) << 16) | bit_cast::<27, 16>(self.issued_n.val());
        self.irqs.s_axis.tkeep.next = 1.into();
        self.irqs.s_axis.tlast.next = true;
        self.irqs.s_axis.tuser.next = 0.into();
        self.m_irq.valid.next = self.irqs.m_axis.tvalid.val()
            & !(self.wr_finished.q.val() - self.irqs.m_axis.tdata.val().get_bits::<16>(0)).get_bit(15);
        self.m_irq.vector.next = self.irqs.m_axis.tdata.val().get_bits::<11>(16);
        self.irqs.m_axis.tready.next = self.m_irq.valid.val() & self.m_irq.ready.val();

        // ---- table writes
        self.table.write_addr.next = self.key.val();
        self.table.write_data.next = self.ne.val();
        self.table.write_enable.next = self.write_back.val();
        if self.ev_setup.val() {
            self.table.write_addr.next = bit_cast::<10, 24>(self.s_setup.cqn.val());
            self.table.write_data.next = bit_cast::<152, 52>(self.s_setup.base.val().get_bits::<52>(12))
                | (bit_cast::<152, 4>(self.s_setup.log.val()) << 52)
                | (bit_cast::<152, 16>(self.s_setup.prod.val()) << 56)
                | (bit_cast::<152, 16>(self.s_setup.cons.val()) << 72)
                | (bit_cast::<152, 1>(self.s_setup.armed.val().into()) << 88)
                | (bit_cast::<152, 1>(self.s_setup.solicited.val().into()) << 89)
                | (bit_cast::<152, 1>(self.s_setup.overrun.val().into()) << 90)
                | (bit_cast::<152, 1>(self.s_setup.live.val().into()) << 91)
                | (bit_cast::<152, 11>(bit_cast::<11, 16>(self.s_setup.vector.val())) << 93)
                | (bit_cast::<152, 16>(self.s_setup.mod_count.val()) << 104)
                | (bit_cast::<152, 16>(self.s_setup.mod_time.val()) << 120);
            self.table.write_enable.next = true;
        }

        self.ev_overrun.next = self.ovr_q.q.val();
        self.db_error.next = self.dberr_q.q.val();
        self.ev_queue.next = self.evq.q.val();
        self.cnt_cqe_drop.next = self.drops.q.val();

        if self.reset.val() {
            self.us_div.d.next = 0.into();
            self.now_us.d.next = 0.into();
            self.wr_valid.d.next = false;
            self.wr_issued.d.next = 0.into();
            self.wr_finished.d.next = 0.into();
            self.q_valid.d.next = false;
            self.ovr_q.d.next = false;
            self.dberr_q.d.next = false;
            self.drops.d.next = 0.into();
        }
    }
}
