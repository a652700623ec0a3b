//! A packet = one header beat on a header channel + its payload on an AXI
//! stream. Protocol layers (parser, builder, transport) pass packets this way:
//! the header is a flat vector of fields, the payload starts at byte 0.

use super::{AxisIn, AxisOut, AxisRegSlice};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Sending side of a header channel of `H` bits.
#[derive(LogicInterface, Default)]
#[join = "HdrIn"]
pub struct HdrOut<const H: usize> {
    pub tdata: Signal<Out, Bits<H>>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

/// Receiving side of a header channel.
#[derive(LogicInterface, Default)]
#[join = "HdrOut"]
pub struct HdrIn<const H: usize> {
    pub tdata: Signal<In, Bits<H>>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

/// Forward register slice for a header channel.
#[derive(LogicBlock, Default)]
pub struct HdrRegSlice<const H: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_hdr: HdrIn<H>,
    pub m_hdr: HdrOut<H>,
    data: Reg<Bits<H>>,
    valid: Reg<Bit>,
    kind: TypeTag<Self>,
}

impl<const H: usize> Logic for HdrRegSlice<H> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, data, valid);
        self.s_hdr.tready.next = !self.valid.q.val() | self.m_hdr.tready.val();
        if self.s_hdr.tvalid.val() & (!self.valid.q.val() | self.m_hdr.tready.val()) {
            self.data.d.next = self.s_hdr.tdata.val();
            self.valid.d.next = true;
        } else if self.m_hdr.tready.val() {
            self.valid.d.next = false;
        }
        if self.reset.val() {
            self.valid.d.next = false;
        }
        self.m_hdr.tdata.next = self.data.q.val();
        self.m_hdr.tvalid.next = self.valid.q.val();
    }
}

/// Register slice for a packet: header channel and payload stream side by
/// side, each with its own handshake (a header may run ahead of its payload).
#[derive(LogicBlock, Default)]
pub struct PktRegSlice<const H: usize, const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_hdr: HdrIn<H>,
    pub s_axis: AxisIn<D, K, U>,
    pub m_hdr: HdrOut<H>,
    pub m_axis: AxisOut<D, K, U>,
    hdr: HdrRegSlice<H>,
    payload: AxisRegSlice<D, K, U>,
    kind: TypeTag<Self>,
}

impl<const H: usize, const D: usize, const K: usize, const U: usize> Logic for PktRegSlice<H, D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        self.hdr.clock.next = self.clock.val();
        self.hdr.reset.next = self.reset.val();
        self.payload.clock.next = self.clock.val();
        self.payload.reset.next = self.reset.val();
        HdrIn::<H>::link(&mut self.s_hdr, &mut self.hdr.s_hdr);
        HdrOut::<H>::link(&mut self.m_hdr, &mut self.hdr.m_hdr);
        AxisIn::<D, K, U>::link(&mut self.s_axis, &mut self.payload.s_axis);
        AxisOut::<D, K, U>::link(&mut self.m_axis, &mut self.payload.m_axis);
    }
}
