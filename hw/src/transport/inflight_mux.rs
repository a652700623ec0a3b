//! `InflightMux`: the two users of the one `Inflight` table (docs/core.md,
//! "Instances"): the requester's PUSH of each WQE's record (`ReqTx::m_push`)
//! and the completer's HEAD / POP / READ / WRITE (`CompAck::m_inf`).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_push` | in | the requester's commands (PUSH); their answers are not wanted |
//! | `s_comp` / `m_comp` | in / out | the completer's commands and their answers, in order |
//! | `m_cmd` / `s_resp` | out / in | toward `Inflight`: commands, and its answers in command order |
//! | `cnt_push_refused` | out | PUSHes the table refused (`full`: no entry was free) |
//!
//! * **Commands.** Round robin between the two (`RrOneHot`), one per
//!   cycle, through a skid buffer whose registers drive `m_cmd`; the users
//!   see its registered `ready`, gated by room in the order FIFO.
//! * **Answers.** `Inflight` answers in command order, so the user of each
//!   command taken goes into a FIFO and each answer goes to the user at its
//!   head: the completer's through a skid buffer (so `s_resp.ready` is a
//!   register), the requester's are taken and dropped. A refused PUSH
//!   loses that WQE's record, so it is counted: the requester's limit on
//!   outstanding WQEs must keep it at 0 (docs/transport_blocks.md).
//!
//! Latency: a command taken at t is offered to `Inflight` at t + 1; an
//! answer taken at t is offered to the completer at t + 1. Rate: a command
//! and an answer per cycle.

use super::{
    InflightCmdIn, InflightCmdOut, InflightRespIn, InflightRespOut, INFLIGHT_ENTRY_BITS, INFLIGHT_LOG_ENTRIES,
    INFLIGHT_QPN_BITS,
};
use crate::axis::AxisSkidBuffer;
use crate::host::{RrOneHot, RR_MAX};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

const Q: usize = INFLIGHT_QPN_BITS;
const E: usize = INFLIGHT_LOG_ENTRIES;
const C: usize = INFLIGHT_LOG_ENTRIES + 1;
const W: usize = INFLIGHT_ENTRY_BITS;
/// log2 of the commands outstanding at `Inflight` the mux can route answers
/// for (the table holds at most `INFLIGHT_CREDITS` = 16).
pub const INFLIGHT_MUX_ORDER_LOG: usize = 5;
// literals in the logic: the packed command (op 0, qpn 3, index 17, data 29:
// 228 bits) and answer (index 0, data 12, next 211, is_tail 223, empty 224,
// full 225, count 226: 239 bits); the order FIFO's count (6 bits, room below 29)
const _: () = assert!(Q == 14 && E == 12 && C == 13 && W == 199 && INFLIGHT_MUX_ORDER_LOG == 5);

#[derive(LogicBlock, Default)]
pub struct InflightMux {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_push: InflightCmdIn<Q, E, W>,
    pub s_comp: InflightCmdIn<Q, E, W>,
    pub m_comp: InflightRespOut<E, C, W>,
    pub m_cmd: InflightCmdOut<Q, E, W>,
    pub s_resp: InflightRespIn<E, C, W>,
    pub cnt_push_refused: Signal<Out, Bits<32>>,
    rr: RrOneHot,
    req: Signal<Local, Bits<RR_MAX>>,
    grant: Signal<Local, Bits<RR_MAX>>,
    sel: Signal<Local, Bits<228>>,
    cmds: AxisSkidBuffer<228, 1, 1>,
    order: LutRam<Bit, INFLIGHT_MUX_ORDER_LOG>,
    ow: Reg<Bits<INFLIGHT_MUX_ORDER_LOG>>,
    or: Reg<Bits<INFLIGHT_MUX_ORDER_LOG>>,
    ocnt: Reg<Bits<6>>,
    room: Reg<Bit>,
    refused: Reg<Bits<32>>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    ocnt_n: Signal<Local, Bits<6>>,
    head_comp: Signal<Local, Bit>,
    resps: AxisSkidBuffer<239, 1, 1>,
    kind: TypeTag<Self>,
}

impl InflightMux {
    /// Cycles from a command taken to it offered to `Inflight`, and from an
    /// answer taken to it offered to the completer.
    pub const LATENCY: u64 = 1;
}

impl Logic for InflightMux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ow, or, ocnt, room, refused);
        clock!(self, clock, rr, cmds, order, resps);
        self.rr.reset.next = self.reset.val();
        self.cmds.reset.next = self.reset.val();
        self.resps.reset.next = self.reset.val();

        // ---- commands: round robin into the skid buffer, while the order FIFO has room
        self.req.next = 0.into();
        self.req.next = self.req.val().replace_bit(0, self.s_push.valid.val() & self.room.q.val());
        self.req.next = self.req.val().replace_bit(1, self.s_comp.valid.val() & self.room.q.val());
        self.rr.req.next = self.req.val();
        self.grant.next = self.rr.grant.val();
        self.s_push.ready.next = self.grant.val().get_bit(0) & self.cmds.s_axis.tready.val();
        self.s_comp.ready.next = self.grant.val().get_bit(1) & self.cmds.s_axis.tready.val();
        self.sel.next = bit_cast::<228, 3>(self.s_push.op.val())
            | (bit_cast::<228, 14>(self.s_push.qpn.val()) << 3)
            | (bit_cast::<228, 12>(self.s_push.index.val()) << 17)
            | (bit_cast::<228, 199>(self.s_push.data.val()) << 29);
        if self.grant.val().get_bit(1) {
            self.sel.next = bit_cast::<228, 3>(self.s_comp.op.val())
                | (bit_cast::<228, 14>(self.s_comp.qpn.val()) << 3)
                | (bit_cast::<228, 12>(self.s_comp.index.val()) << 17)
                | (bit_cast::<228, 199>(self.s_comp.data.val()) << 29);
        }
        self.cmds.s_axis.tdata.next = self.sel.val();
        self.cmds.s_axis.tkeep.next = 1.into();
        self.cmds.s_axis.tuser.next = self.grant.val().get_bit(1).into();
        self.cmds.s_axis.tlast.next = true;
        self.cmds.s_axis.tvalid.next = self.req.val().any();
        self.rr.advance.next = self.cmds.s_axis.tready.val();
        self.m_cmd.op.next = self.cmds.m_axis.tdata.val().get_bits::<3>(0);
        self.m_cmd.qpn.next = self.cmds.m_axis.tdata.val().get_bits::<14>(3);
        self.m_cmd.index.next = self.cmds.m_axis.tdata.val().get_bits::<12>(17);
        self.m_cmd.data.next = self.cmds.m_axis.tdata.val().get_bits::<199>(29);
        self.m_cmd.valid.next = self.cmds.m_axis.tvalid.val();
        self.cmds.m_axis.tready.next = self.m_cmd.ready.val();

        // ---- the order of the commands taken (1: the completer's)
        self.push.next = self.cmds.m_axis.tvalid.val() & self.m_cmd.ready.val();
        self.order.write_addr.next = self.ow.q.val();
        self.order.write_data.next = self.cmds.m_axis.tuser.val().any();
        self.order.write_enable.next = self.push.val();
        if self.push.val() {
            self.ow.d.next = self.ow.q.val() + 1;
        }
        self.order.read_addr.next = self.or.q.val();
        self.head_comp.next = self.order.read_data.val();

        // ---- answers: the completer's through the skid buffer, the requester's dropped
        self.resps.s_axis.tdata.next = bit_cast::<239, 12>(self.s_resp.index.val())
            | (bit_cast::<239, 199>(self.s_resp.data.val()) << 12)
            | (bit_cast::<239, 12>(self.s_resp.next_index.val()) << 211)
            | (bit_cast::<239, 1>(self.s_resp.is_tail.val().into()) << 223)
            | (bit_cast::<239, 1>(self.s_resp.empty.val().into()) << 224)
            | (bit_cast::<239, 1>(self.s_resp.full.val().into()) << 225)
            | (bit_cast::<239, 13>(self.s_resp.count.val()) << 226);
        self.resps.s_axis.tkeep.next = 1.into();
        self.resps.s_axis.tuser.next = 0.into();
        self.resps.s_axis.tlast.next = true;
        self.resps.s_axis.tvalid.next = self.s_resp.valid.val() & self.head_comp.val();
        self.s_resp.ready.next = !self.head_comp.val() | self.resps.s_axis.tready.val();
        if self.s_resp.valid.val() & !self.head_comp.val() & self.s_resp.full.val() {
            self.refused.d.next = self.refused.q.val() + 1;
        }
        self.cnt_push_refused.next = self.refused.q.val();
        self.m_comp.index.next = self.resps.m_axis.tdata.val().get_bits::<12>(0);
        self.m_comp.data.next = self.resps.m_axis.tdata.val().get_bits::<199>(12);
        self.m_comp.next_index.next = self.resps.m_axis.tdata.val().get_bits::<12>(211);
        self.m_comp.is_tail.next = self.resps.m_axis.tdata.val().get_bit(223);
        self.m_comp.empty.next = self.resps.m_axis.tdata.val().get_bit(224);
        self.m_comp.full.next = self.resps.m_axis.tdata.val().get_bit(225);
        self.m_comp.count.next = self.resps.m_axis.tdata.val().get_bits::<13>(226);
        self.m_comp.valid.next = self.resps.m_axis.tvalid.val();
        self.resps.m_axis.tready.next = self.m_comp.ready.val();
        self.pop.next = self.s_resp.valid.val() & self.s_resp.ready.val();
        if self.pop.val() {
            self.or.d.next = self.or.q.val() + 1;
        }
        self.ocnt_n.next =
            self.ocnt.q.val() + bit_cast::<6, 1>(self.push.val().into()) - bit_cast::<6, 1>(self.pop.val().into());
        self.ocnt.d.next = self.ocnt_n.val();
        // room for what the skid buffer holds (2) and a grant: fewer than 29 in the FIFO
        self.room.d.next = self.ocnt_n.val() < 29;
        if self.reset.val() {
            self.ow.d.next = 0.into();
            self.or.d.next = 0.into();
            self.ocnt.d.next = 0.into();
            self.room.d.next = false;
            self.refused.d.next = 0.into();
        }
    }
}
