//! `MacAddrFilter`: the receive side's destination address filter, in the
//! MAC clock, in front of the receive FIFO.
//!
//! A frame whose destination MAC is an individual (unicast) address other
//! than the port's (`port_mac`) is refused whole: none of its beats leaves,
//! and `refused` pulses once with its first beat. Group addresses (the I/G
//! bit, bit 0 of the first byte: broadcast and multicast) pass. A switch
//! floods a unicast frame whose destination it has not learnt to every port,
//! and a NIC that took such frames would hand another station's RoCEv2
//! packets to its transport; refusing them here also keeps them out of the
//! FIFO, so a flood costs the port none of its own frames.
//!
//! One registered stage (the boundary register between the MAC and the
//! FIFO's write decision): the comparison is made on the incoming first beat
//! against `port_mac` in lane order, itself a register (`port_mac` is a
//! strap: a board's parameter, so synthesis folds it to a constant). Its
//! logic is a 48-bit equality (16 LUTs and an AND tree: 3 levels) and the
//! first-beat select in front of the valid register. Like the FIFO, the
//! filter follows the MAC's frame boundaries from the first beat on, with no
//! reset (the MAC does not stop for one).

use super::{MacStreamIn, MacStreamOut};
use crate::axis::{DATA_BITS, KEEP_BITS};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct MacAddrFilter {
    pub clock: Signal<In, Clock>,
    /// The port's MAC: the address as a 48-bit big-endian number (the first
    /// byte on the wire in bits 47:40), as `regs::id_mac_lo`/`hi` show it.
    pub port_mac: Signal<In, Bits<48>>,
    pub s_axis: MacStreamIn<DATA_BITS, KEEP_BITS, 1>,
    /// The frames that pass, one MAC cycle later.
    pub m_axis: MacStreamOut<DATA_BITS, KEEP_BITS, 1>,
    /// One pulse per refused frame (a register).
    pub refused: Signal<Out, Bit>,
    /// `port_mac` in lane order (the first byte on the wire in bits 7:0).
    mac_lanes: Reg<Bits<48>>,
    mid: Reg<Bit>,
    refusing: Reg<Bit>,
    q_data: Reg<Bits<DATA_BITS>>,
    q_keep: Reg<Bits<KEEP_BITS>>,
    q_last: Reg<Bit>,
    q_user: Reg<Bits<1>>,
    q_valid: Reg<Bit>,
    refused_q: Reg<Bit>,
    refuse: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for MacAddrFilter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mac_lanes, mid, refusing, q_data, q_keep, q_last, q_user, q_valid, refused_q);
        self.mac_lanes.d.next = (bit_cast::<48, 8>(self.port_mac.val().get_bits::<8>(0)) << 40)
            | (bit_cast::<48, 8>(self.port_mac.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<48, 8>(self.port_mac.val().get_bits::<8>(16)) << 24)
            | (bit_cast::<48, 8>(self.port_mac.val().get_bits::<8>(24)) << 16)
            | (bit_cast::<48, 8>(self.port_mac.val().get_bits::<8>(32)) << 8)
            | bit_cast::<48, 8>(self.port_mac.val().get_bits::<8>(40));
        // the verdict is taken at the first beat and held for the frame
        self.refuse.next = self.refusing.q.val();
        if !self.mid.q.val() {
            self.refuse.next = !self.s_axis.tdata.val().get_bit(0)
                & (self.s_axis.tdata.val().get_bits::<48>(0) != self.mac_lanes.q.val());
        }
        if self.s_axis.tvalid.val() {
            self.mid.d.next = !self.s_axis.tlast.val();
            self.refusing.d.next = self.refuse.val();
        }
        self.q_data.d.next = self.s_axis.tdata.val();
        self.q_keep.d.next = self.s_axis.tkeep.val();
        self.q_last.d.next = self.s_axis.tlast.val();
        self.q_user.d.next = self.s_axis.tuser.val();
        self.q_valid.d.next = self.s_axis.tvalid.val() & !self.refuse.val();
        self.refused_q.d.next = self.s_axis.tvalid.val() & !self.mid.q.val() & self.refuse.val();
        self.m_axis.tdata.next = self.q_data.q.val();
        self.m_axis.tkeep.next = self.q_keep.q.val();
        self.m_axis.tlast.next = self.q_last.q.val();
        self.m_axis.tuser.next = self.q_user.q.val();
        self.m_axis.tvalid.next = self.q_valid.q.val();
        self.refused.next = self.refused_q.q.val();
    }
}
