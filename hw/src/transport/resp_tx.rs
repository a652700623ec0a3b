//! `RespTx`: the responder's transmit path as one block. `RespGen` cuts the
//! responder's ordered requests (ACKs, NAKs, READs to answer) into packets,
//! `AckGen` builds each packet's header, `ReqPayload` translates a READ
//! response's payload (the rkey over the packet's range, again: `RespExec`
//! checked the whole range with the remote read right before the request
//! came here) and holds its header until the payload's pieces are
//! committed, `PayloadGather` reads the payload by DMA into wire lanes. One
//! `TxArb` source carries all of it, so a QP's answers leave in PSN order
//! (IBTA: an ACK after a READ's last response, never before).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_req` (`RespReqIn`) | in | the responder's requests, in order (`RespExec::m_ack`) |
//! | `m_xreq` / `s_xresp` | out / in | the translation unit (a port of the core's `XlateMux`): one request per READ response packet with payload |
//! | `m_pay_rd` / `s_pay_rd` | out / in | DMA read client 3 (`HostIf::s_resp_rd`): the payload pieces |
//! | `m_xerr` (`XlateErrOut`) | out | a READ whose response payload failed its translation (the region was deregistered while the READ was answered): `sq_index` is the low 16 bits of its MSN; its packets are not sent |
//! | `m_hdr` / `m_axis` | out | to `TxArb`: the headers in order, each payload from its start lane, in the headers' order |
//!
//! `ReqPayload` tells the packets of one READ by (QPN, `sq_index`): here
//! `sq_index` is the AETH MSN of the header (every response of a READ
//! carries the READ's MSN; the next READ of the QP has another).
//!
//! **Latency** (`tb/tests/resp_gen.rs`): an ACK taken at t is offered on
//! `m_hdr` at t + [`RESP_TX_ACK_LATENCY`]; a READ response's header at its
//! translation's last answer beat + `REQ_PAYLOAD_HDR_LATENCY`.

use super::{
    AckGen, AckReqOut, LaneOut, PayloadGather, PieceOut, ReqPayload, RespGen, RespReqIn, XlateErrOut, REQ_INDEX_BITS,
};
use crate::axis::{AxisIn, AxisOut, HdrOut};
use crate::consts::*;
use crate::host::RdCmdOut;
use crate::mr::{MrReqOut, MrRespIn};
use crate::wire::TX_HDR_BITS;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Cycles from an ACK request taken to its header offered on `m_hdr` (idle
/// block): `RespGen`, `AckGen`, `ReqPayload`'s header FIFO and output register.
pub const RESP_TX_ACK_LATENCY: u64 = super::RESP_GEN_LATENCY + super::ACK_GEN_LATENCY + 3;

#[derive(LogicBlock, Default)]
pub struct RespTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_req: RespReqIn,
    pub m_xreq: MrReqOut,
    pub s_xresp: MrRespIn,
    pub m_pay_rd: RdCmdOut,
    pub s_pay_rd: AxisIn<512, 64, 1>,
    pub m_xerr: XlateErrOut,
    pub m_hdr: HdrOut<TX_HDR_BITS>,
    pub m_axis: AxisOut<512, 64, 1>,
    gen: RespGen,
    ack: AckGen,
    pay: ReqPayload,
    gather: PayloadGather,
    kind: TypeTag<Self>,
}

impl Logic for RespTx {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, gen, ack, pay, gather);
        self.gen.reset.next = self.reset.val();
        self.ack.reset.next = self.reset.val();
        self.pay.reset.next = self.reset.val();
        self.gather.reset.next = self.reset.val();
        // ---- the boundary: each port is a child's
        RespReqIn::link(&mut self.s_req, &mut self.gen.s_req);
        MrReqOut::link(&mut self.m_xreq, &mut self.pay.m_xreq);
        MrRespIn::link(&mut self.s_xresp, &mut self.pay.s_xresp);
        XlateErrOut::link(&mut self.m_xerr, &mut self.pay.m_err);
        HdrOut::<TX_HDR_BITS>::link(&mut self.m_hdr, &mut self.pay.m_hdr);
        RdCmdOut::link(&mut self.m_pay_rd, &mut self.gather.m_rd_cmd);
        AxisIn::<512, 64, 1>::link(&mut self.s_pay_rd, &mut self.gather.s_rd_data);
        AxisOut::<512, 64, 1>::link(&mut self.m_axis, &mut self.gather.m_axis);
        // ---- inside
        AckReqOut::join(&mut self.gen.m_ack, &mut self.ack.s_ack);
        MrReqOut::join(&mut self.gen.m_frag, &mut self.pay.s_frag);
        self.pay.s_hdr.tdata.next = self.ack.m_hdr.tdata.val();
        self.pay.s_hdr.sq_index.next =
            bit_cast::<REQ_INDEX_BITS, TX_HDR_BITS>(self.ack.m_hdr.tdata.val() >> TXF_AETH_MSN);
        self.pay.s_hdr.tvalid.next = self.ack.m_hdr.tvalid.val();
        self.ack.m_hdr.tready.next = self.pay.s_hdr.tready.val();
        PieceOut::join(&mut self.pay.m_piece, &mut self.gather.s_piece);
        LaneOut::join(&mut self.pay.m_lane, &mut self.gather.s_lane);
    }
}
