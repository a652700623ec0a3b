//! `TxArb`: the transmit arbiter. The transport's packet sources (the
//! requester, the READ/atomic responder, the ACK generator) share one
//! `TxBuild`; each offers packets as a header ([`TX_HDR_BITS`], the
//! builder's record) and, when the header's `payload_len` is not zero, a
//! payload stream (`tlast` on its last beat). The arbiter grants whole
//! packets, round robin among the sources with a header offered, one header
//! per cycle, and forwards each granted packet's payload in grant order.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_hdr[i]` | in | source i's headers |
//! | `s_axis[i]` | in | source i's payloads, in the order of its headers |
//! | `m_hdr` | out | the granted headers, to `TxBuild::s_hdr` |
//! | `m_axis` | out | their payloads, in the same order, to `TxBuild::s_axis` |
//!
//! Structure: the grant (`RrArb4`, one LUT level from the valids) selects
//! a header into a skid buffer (`s_hdr[i].tready` = granted and the skid
//! buffer's registered ready and room in the order FIFO); a granted header
//! with a payload puts its source's index into the order FIFO (registers,
//! [`TX_ARB_ORDER_DEPTH`] places); the payload multiplexer forwards beats of
//! the source at the FIFO's head into a second skid buffer and drops the
//! head with the `tlast` beat. Every ready comes from registers (and the
//! port's own valid): no path from `m_hdr.tready` or `m_axis.tready` to an
//! input's ready.
//!
//! Latency: a header taken in cycle t is offered at t+1
//! ([`TxArb::HDR_LATENCY`]); a payload beat taken at t is offered at t+1
//! ([`TxArb::PAYLOAD_LATENCY`]). A payload beat can be taken in the cycle
//! after its header was granted. Rate: one header per cycle, one payload
//! beat per cycle, no idle cycle between the payloads of two packets.
//!
//! What a source must promise: it offers a header only when that packet's
//! payload will follow without waiting for anything outside the source
//! (e.g. once the first payload beat sits in its output FIFO). `TxBuild`
//! takes headers and payloads in one order, so a granted packet whose
//! payload waits holds up every packet behind it.

use crate::axis::{AxisIn, AxisOut, AxisSkidBuffer, HdrIn, HdrOut};
use crate::consts::TX_PAYLOAD_LEN_LSB;
use crate::host::RrArb4;
use crate::prim::Reg;
use crate::wire::TX_HDR_BITS;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Packet sources: requester, responder (READ responses, atomic ACKs), ACK
/// generator.
pub const TX_ARB_SOURCES: usize = 3;
/// Granted packets whose payload has not all passed, at most (the builder
/// holds about two packets between its header and payload inputs).
pub const TX_ARB_ORDER_DEPTH: usize = 4;
// the grant comes from a four-way arbiter; the order FIFO's pointers are 2 bits
const _: () = assert!(TX_ARB_SOURCES <= 4 && TX_ARB_ORDER_DEPTH == 4);

#[derive(LogicBlock)]
pub struct TxArb {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_hdr: [HdrIn<TX_HDR_BITS>; TX_ARB_SOURCES],
    pub s_axis: [AxisIn<512, 64, 1>; TX_ARB_SOURCES],
    pub m_hdr: HdrOut<TX_HDR_BITS>,
    pub m_axis: AxisOut<512, 64, 1>,

    arb: RrArb4,
    hdr_out: AxisSkidBuffer<TX_HDR_BITS, 1, 1>,
    pay_out: AxisSkidBuffer<512, 64, 1>,
    /// The order FIFO: source indices of granted packets with a payload.
    order: [Reg<Bits<2>>; TX_ARB_ORDER_DEPTH],
    wr_ptr: Reg<Bits<2>>,
    rd_ptr: Reg<Bits<2>>,
    count: Reg<Bits<3>>,
    /// `count` when the order FIFO is full.
    full_count: Constant<Bits<3>>,
    // ---- header side
    req: Signal<Local, Bits<4>>,
    take: Signal<Local, Bit>,
    hdr_sel: Signal<Local, Bits<TX_HDR_BITS>>,
    has_payload: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    // ---- payload side
    head: Signal<Local, Bits<2>>,
    head_valid: Signal<Local, Bit>,
    pay_fire: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Default for TxArb {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_hdr: Default::default(),
            s_axis: Default::default(),
            m_hdr: Default::default(),
            m_axis: Default::default(),
            arb: Default::default(),
            hdr_out: Default::default(),
            pay_out: Default::default(),
            order: Default::default(),
            wr_ptr: Default::default(),
            rd_ptr: Default::default(),
            count: Default::default(),
            full_count: Constant::new((TX_ARB_ORDER_DEPTH as u64).into()),
            req: Default::default(),
            take: Default::default(),
            hdr_sel: Default::default(),
            has_payload: Default::default(),
            push: Default::default(),
            head: Default::default(),
            head_valid: Default::default(),
            pay_fire: Default::default(),
            pop: Default::default(),
            kind: Default::default(),
        }
    }
}

impl TxArb {
    /// Cycles from a header taken to it offered on `m_hdr`.
    pub const HDR_LATENCY: u64 = 1;
    /// Cycles from a payload beat taken to it offered on `m_axis`.
    pub const PAYLOAD_LATENCY: u64 = 1;
}

impl Logic for TxArb {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, rd_ptr, count);
        clock!(self, clock, arb, hdr_out, pay_out);
        self.arb.reset.next = self.reset.val();
        self.hdr_out.reset.next = self.reset.val();
        self.pay_out.reset.next = self.reset.val();
        for i in 0..TX_ARB_ORDER_DEPTH {
            self.order[i].clock.next = self.clock.val();
            self.order[i].d.next = self.order[i].q.val();
        }

        // ---- header side: a grant needs the skid buffer's room and, for a
        // payload, a place in the order FIFO (both registers)
        self.req.next = 0.into();
        for i in 0..TX_ARB_SOURCES {
            self.req.next = self.req.val().replace_bit(i, self.s_hdr[i].tvalid.val());
        }
        self.arb.req.next = self.req.val();
        self.take.next = self.hdr_out.s_axis.tready.val() & (self.count.q.val() != self.full_count.val());
        self.arb.advance.next = self.take.val();
        self.hdr_sel.next = 0.into();
        for i in 0..TX_ARB_SOURCES {
            self.s_hdr[i].tready.next = self.arb.grant.val().get_bit(i) & self.take.val();
            if self.arb.grant.val().get_bit(i) {
                self.hdr_sel.next = self.s_hdr[i].tdata.val();
            }
        }
        self.has_payload.next = self.hdr_sel.val().get_bits::<16>(TX_PAYLOAD_LEN_LSB).any();
        self.hdr_out.s_axis.tdata.next = self.hdr_sel.val();
        self.hdr_out.s_axis.tkeep.next = 0.into();
        self.hdr_out.s_axis.tlast.next = true;
        self.hdr_out.s_axis.tuser.next = 0.into();
        self.hdr_out.s_axis.tvalid.next = self.arb.grant.val().any() & self.take.val();
        self.push.next = self.arb.grant.val().any() & self.take.val() & self.has_payload.val();
        for i in 0..TX_ARB_ORDER_DEPTH {
            if self.push.val() & (self.wr_ptr.q.val().index() == i) {
                self.order[i].d.next = self.arb.grant_idx.val();
            }
        }
        if self.push.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
        }
        self.m_hdr.tdata.next = self.hdr_out.m_axis.tdata.val();
        self.m_hdr.tvalid.next = self.hdr_out.m_axis.tvalid.val();
        self.hdr_out.m_axis.tready.next = self.m_hdr.tready.val();

        // ---- payload side: the source at the order FIFO's head
        self.head.next = 0.into();
        for i in 0..TX_ARB_ORDER_DEPTH {
            if self.rd_ptr.q.val().index() == i {
                self.head.next = self.order[i].q.val();
            }
        }
        self.head_valid.next = self.count.q.val().any();
        self.pay_out.s_axis.tdata.next = 0.into();
        self.pay_out.s_axis.tkeep.next = 0.into();
        self.pay_out.s_axis.tlast.next = false;
        self.pay_out.s_axis.tuser.next = 0.into();
        self.pay_out.s_axis.tvalid.next = false;
        for i in 0..TX_ARB_SOURCES {
            self.s_axis[i].tready.next = false;
            if self.head.val().index() == i {
                self.s_axis[i].tready.next = self.head_valid.val() & self.pay_out.s_axis.tready.val();
                self.pay_out.s_axis.tdata.next = self.s_axis[i].tdata.val();
                self.pay_out.s_axis.tkeep.next = self.s_axis[i].tkeep.val();
                self.pay_out.s_axis.tlast.next = self.s_axis[i].tlast.val();
                self.pay_out.s_axis.tuser.next = self.s_axis[i].tuser.val();
                self.pay_out.s_axis.tvalid.next = self.head_valid.val() & self.s_axis[i].tvalid.val();
            }
        }
        self.pay_fire.next = self.pay_out.s_axis.tvalid.val() & self.pay_out.s_axis.tready.val();
        self.pop.next = self.pay_fire.val() & self.pay_out.s_axis.tlast.val();
        if self.pop.val() {
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
        }
        if self.push.val() & !self.pop.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        if !self.push.val() & self.pop.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
        self.m_axis.tdata.next = self.pay_out.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.pay_out.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.pay_out.m_axis.tlast.val();
        self.m_axis.tuser.next = self.pay_out.m_axis.tuser.val();
        self.m_axis.tvalid.next = self.pay_out.m_axis.tvalid.val();
        self.pay_out.m_axis.tready.next = self.m_axis.tready.val();

        if self.reset.val() {
            self.wr_ptr.d.next = 0.into();
            self.rd_ptr.d.next = 0.into();
            self.count.d.next = 0.into();
        }
    }
}
