//! `DmaRdMux<N>`: `N` (at most [`DMA_MUX_MAX_CLIENTS`]) read clients onto
//! one read client of the DMA engine.
//!
//! The engine has four read clients, each with its own tag queue and output
//! FIFO; the core has more users that read rarely (context and MR cache
//! misses, WQE fetches). They share an engine client through this block, as
//! `MrXlate` shares one between its two caches.
//!
//! Ports: `s_cmd[i]` (a client's command: `addr`, `len`) and `m_data[i]`
//! (its data, address-aligned, `tlast` on each command's last beat,
//! `tuser[0]` the engine's error flag); `m_cmd` / `s_data` toward the engine.
//!
//! * **Commands.** Round robin among the clients offering one (the first
//!   client after the one served last), into a command register that drives
//!   `m_cmd`, when the register is empty and the source FIFO has room: one
//!   command every two cycles at most, which is the engine's own rate (it
//!   issues a read request every two cycles). `s_cmd[i].ready` depends on the
//!   clients' `valid`s and on registers only, never on `m_cmd.ready`.
//! * **Data.** The engine returns a client's data in command order, so the
//!   source of each command (one-hot, a 32-place LUTRAM FIFO) says where the
//!   data goes: a beat enters a skid buffer with its destination beside it
//!   (in `tuser`, bits 7:0; the error flag in bit 8), and the source FIFO's head moves on at a `tlast`. The skid
//!   buffer's registers drive every client's `tdata`; a client's `tvalid` is
//!   its destination bit. `s_data.tready` is the skid buffer's register, so no
//!   client's `tready` reaches the engine side.
//!
//! Latency: a command taken at cycle t is offered on `m_cmd` at t + 1; a
//! beat taken from the engine at t is offered to its client at t + 1. Rate:
//! a command every other cycle, a beat every cycle.

use super::{RdCmdIn, RdCmdOut, RrOneHot, RR_MAX};
use crate::axis::{AxisIn, AxisOut, AxisSkidBuffer};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// The most clients a mux serves (the width of its one-hot sources).
pub const DMA_MUX_MAX_CLIENTS: usize = RR_MAX;
/// log2 of the commands in flight a mux tracks (its source FIFO).
pub const DMA_MUX_SRC_LOG: usize = 5;

#[derive(LogicBlock)]
pub struct DmaRdMux<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_cmd: [RdCmdIn; N],
    pub m_data: [AxisOut<512, 64, 1>; N],
    pub m_cmd: RdCmdOut,
    pub s_data: AxisIn<512, 64, 1>,

    // ---- the command register and the round robin
    cv: Reg<Bit>,
    c_addr: Reg<Bits<64>>,
    c_len: Reg<Bits<32>>,
    rr: RrOneHot,
    req: Signal<Local, Bits<DMA_MUX_MAX_CLIENTS>>,
    grant: Signal<Local, Bits<DMA_MUX_MAX_CLIENTS>>,
    load: Signal<Local, Bit>,
    // ---- sources of the commands in flight, in command order (one-hot)
    src: LutRam<Bits<DMA_MUX_MAX_CLIENTS>, DMA_MUX_SRC_LOG>,
    s_wr: Reg<Bits<6>>,
    s_rd: Reg<Bits<6>>,
    s_room: Signal<Local, Bit>,
    // ---- data: the beat, its destination (tuser bits 7:0) and error flag (bit 8)
    data: AxisSkidBuffer<512, 64, 9>,
    dst: Signal<Local, Bits<DMA_MUX_MAX_CLIENTS>>,
    kind: TypeTag<Self>,
}

impl<const N: usize> Default for DmaRdMux<N> {
    fn default() -> Self {
        let () = Self::FITS;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_cmd: std::array::from_fn(|_| Default::default()),
            m_data: std::array::from_fn(|_| Default::default()),
            m_cmd: Default::default(),
            s_data: Default::default(),
            cv: Default::default(),
            c_addr: Default::default(),
            c_len: Default::default(),
            rr: Default::default(),
            req: Default::default(),
            grant: Default::default(),
            load: Default::default(),
            src: Default::default(),
            s_wr: Default::default(),
            s_rd: Default::default(),
            s_room: Default::default(),
            data: Default::default(),
            dst: Default::default(),
            kind: Default::default(),
        }
    }
}

/// The source FIFO is full at 32 (a literal in the logic).
const _: () = assert!(1 << DMA_MUX_SRC_LOG == 32);

impl<const N: usize> DmaRdMux<N> {
    const FITS: () = assert!(N >= 1 && N <= DMA_MUX_MAX_CLIENTS);
    /// Cycles from a command taken to it offered on `m_cmd`.
    pub const CMD_LATENCY: u64 = 1;
    /// Cycles from a beat taken from the engine to it offered to its client.
    pub const DATA_LATENCY: u64 = 1;
}

impl<const N: usize> Logic for DmaRdMux<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cv, c_addr, c_len, s_wr, s_rd);
        clock!(self, clock, src, data, rr);
        self.data.reset.next = self.reset.val();
        self.rr.reset.next = self.reset.val();

        // ---- commands: the first requesting client after the last served, else the first
        self.req.next = 0.into();
        for i in 0..N {
            self.req.next = self.req.val().replace_bit(i, self.s_cmd[i].valid.val());
        }
        self.rr.req.next = self.req.val();
        self.grant.next = self.rr.grant.val();
        self.s_room.next = (self.s_wr.q.val() - self.s_rd.q.val()) != 32;
        self.load.next = !self.cv.q.val() & self.req.val().any() & self.s_room.val();
        for i in 0..N {
            self.s_cmd[i].ready.next = self.load.val() & self.grant.val().get_bit(i);
            if self.load.val() & self.grant.val().get_bit(i) {
                self.c_addr.d.next = self.s_cmd[i].addr.val();
                self.c_len.d.next = self.s_cmd[i].len.val();
            }
        }
        self.m_cmd.valid.next = self.cv.q.val();
        self.m_cmd.addr.next = self.c_addr.q.val();
        self.m_cmd.len.next = self.c_len.q.val();
        if self.m_cmd.ready.val() {
            self.cv.d.next = false;
        }
        self.src.write_addr.next = self.s_wr.q.val().get_bits::<DMA_MUX_SRC_LOG>(0);
        self.src.write_data.next = self.grant.val();
        self.src.write_enable.next = self.load.val();
        self.rr.advance.next = self.load.val();
        if self.load.val() {
            self.cv.d.next = true;
            self.s_wr.d.next = self.s_wr.q.val() + 1;
        }

        // ---- data: to the source at the FIFO's head
        self.src.read_addr.next = self.s_rd.q.val().get_bits::<DMA_MUX_SRC_LOG>(0);
        self.dst.next = self.src.read_data.val();
        self.data.s_axis.tdata.next = self.s_data.tdata.val();
        self.data.s_axis.tkeep.next = self.s_data.tkeep.val();
        self.data.s_axis.tlast.next = self.s_data.tlast.val();
        self.data.s_axis.tuser.next =
            bit_cast::<9, DMA_MUX_MAX_CLIENTS>(self.dst.val()) | (bit_cast::<9, 1>(self.s_data.tuser.val()) << 8);
        self.data.s_axis.tvalid.next = self.s_data.tvalid.val();
        self.s_data.tready.next = self.data.s_axis.tready.val();
        if self.s_data.tvalid.val() & self.data.s_axis.tready.val() & self.s_data.tlast.val() {
            self.s_rd.d.next = self.s_rd.q.val() + 1;
        }
        self.data.m_axis.tready.next = false;
        for i in 0..N {
            self.m_data[i].tdata.next = self.data.m_axis.tdata.val();
            self.m_data[i].tkeep.next = self.data.m_axis.tkeep.val();
            self.m_data[i].tlast.next = self.data.m_axis.tlast.val();
            self.m_data[i].tuser.next = self.data.m_axis.tuser.val().get_bits::<1>(8);
            self.m_data[i].tvalid.next = self.data.m_axis.tvalid.val() & self.data.m_axis.tuser.val().get_bit(i);
            if self.data.m_axis.tuser.val().get_bit(i) {
                self.data.m_axis.tready.next = self.m_data[i].tready.val();
            }
        }

        if self.reset.val() {
            self.cv.d.next = false;
            self.s_wr.d.next = 0.into();
            self.s_rd.d.next = 0.into();
        }
    }
}
