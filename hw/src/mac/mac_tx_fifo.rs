//! `MacTxFifo`: frames from the core (core clock) to the MAC (MAC clock),
//! whole frames at a time, so the MAC never sees a gap inside a frame (a gap
//! is an underflow, and the CMAC would send the frame corrupted).
//!
//! Write side (`core_clock`): beats are written while there is room
//! (`s_axis.tready`, a register); a frame's last beat commits it, stepping
//! the committed-frame counter that crosses to the MAC clock. Read side
//! (`mac_clock`, [`FrameReader`]): a frame starts only once it is committed,
//! that is once its last beat is in the RAM, and then leaves at one beat per
//! MAC cycle for as long as the MAC takes them; `m_axis.tvalid` stays high
//! from a frame's first beat to its last.
//!
//! A frame longer than the FIFO could never be committed and would stall
//! the core for good: the longest frame the core builds,
//! [`TX_MAX_FRAME_BEATS`], is asserted (a `const`) to fit twice, so one frame
//! can be written while the one before it leaves.

use super::frame_ram::FrameRam;
use super::ram_full::RamFull;
use super::read_side::FrameReader;
use crate::axis::{AxisIn, AxisOut, DATA_BITS, KEEP_BITS};
use crate::prim::{GraySync, Reg, SyncFlops, GRAY_SYNC_MAX_BITS};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// The longest frame the core sends, without the FCS (the MAC appends it):
/// the largest RoCEv2 header stack that carries payload (Ethernet with a
/// VLAN tag, IPv6, UDP, BTH, RETH and immediate data), a 4096-byte MTU
/// payload, up to 3 pad bytes, and the ICRC.
pub const TX_MAX_FRAME_BYTES: usize =
    crate::wire::TX_MAX_PAYLOAD_HDR_BYTES + TX_MTU + crate::wire::PAD_MAX_BYTES + crate::wire::ICRC_BYTES;
/// The largest path MTU (`IBV_MTU_4096`).
pub const TX_MTU: usize = 4096;
pub const TX_MAX_FRAME_BEATS: usize = TX_MAX_FRAME_BYTES.div_ceil(KEEP_BITS);
/// log2 of the transmit FIFO's depth in beats: [`super::BRAM_DEPTH_BITS`].
/// 512 beats hold [`TX_MAX_FRAME_BEATS`] (66) seven times over: the core can
/// write the next frames while one leaves at MAC speed, and a MAC that stalls
/// (its `tready`) holds the core back only after that.
pub const TX_ADDR_BITS: usize = super::BRAM_DEPTH_BITS;
pub const TX_DEPTH: usize = 1 << TX_ADDR_BITS;
pub const TX_PTR_BITS: usize = TX_ADDR_BITS + 1;
// Two longest frames must fit, one leaving while the next comes in (the
// writer can fill every beat: its registered `tready` is decided on the
// pointer it is about to have).
const _: () = assert!(2 * TX_MAX_FRAME_BEATS <= TX_DEPTH);
const _: () = assert!(TX_PTR_BITS <= GRAY_SYNC_MAX_BITS);

#[derive(LogicBlock, Default)]
pub struct MacTxFifo {
    pub core_clock: Signal<In, Clock>,
    pub mac_clock: Signal<In, Clock>,
    /// Synchronous to `core_clock`; hold it [`super::RESET_CYCLES`] cycles.
    pub reset: Signal<In, Bit>,
    /// From the core, in `core_clock`.
    pub s_axis: AxisIn<DATA_BITS, KEEP_BITS, 1>,
    /// To the MAC, in `mac_clock`.
    pub m_axis: AxisOut<DATA_BITS, KEEP_BITS, 1>,
    /// A frame is offered and the MAC does not take it (`mac_clock`, a
    /// register: one cycle after): a paused transmitter holds this high
    /// (`RxPause`'s mutual guard).
    pub stalled: Signal<Out, Bit>,
    // ---- core_clock
    wr_ptr: Reg<Bits<TX_PTR_BITS>>,
    /// `wr_ptr + 1`, kept beside it so no adder sits behind `push`.
    wr_plus1: Reg<Bits<TX_PTR_BITS>>,
    ready: Reg<Bit>,
    frames: Reg<Bits<TX_PTR_BITS>>,
    frames_gray: Reg<Bits<TX_PTR_BITS>>,
    rd_sync: GraySync<TX_PTR_BITS>,
    // ---- storage: written in core_clock, read in mac_clock
    ram: FrameRam<TX_ADDR_BITS>,
    // ---- mac_clock
    mac_reset: SyncFlops<Bit>,
    reader: FrameReader<TX_ADDR_BITS, TX_PTR_BITS>,
    stalled_q: Reg<Bit>,
    // ---- locals (core_clock)
    push: Signal<Local, Bit>,
    wr_next: Signal<Local, Bits<TX_PTR_BITS>>,
    frames_next: Signal<Local, Bits<TX_PTR_BITS>>,
    /// Full if the pointer stays, moves on: each is checked
    /// before the write decision picks one.
    full_if_stay: RamFull<TX_ADDR_BITS, TX_PTR_BITS>,
    full_if_move: RamFull<TX_ADDR_BITS, TX_PTR_BITS>,
    kind: TypeTag<Self>,
}

impl Logic for MacTxFifo {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- core_clock
        dff_setup!(self, core_clock, wr_ptr, wr_plus1, ready, frames, frames_gray);
        self.rd_sync.clock.next = self.core_clock.val();
        self.rd_sync.reset.next = self.reset.val();
        self.rd_sync.gray.next = self.reader.rd_gray.val();
        self.push.next = self.s_axis.tvalid.val() & self.ready.q.val();
        self.wr_next.next = self.wr_ptr.q.val();
        self.frames_next.next = self.frames.q.val();
        if self.push.val() {
            self.wr_next.next = self.wr_plus1.q.val();
            self.wr_plus1.d.next = self.wr_plus1.q.val() + 1;
            if self.s_axis.tlast.val() {
                self.frames_next.next = self.frames.q.val() + 1;
            }
        }
        if self.reset.val() {
            self.wr_next.next = 0.into();
            self.wr_plus1.d.next = 1.into();
            self.frames_next.next = 0.into();
        }
        self.wr_ptr.d.next = self.wr_next.val();
        self.frames.d.next = self.frames_next.val();
        self.frames_gray.d.next = self.frames_next.val() ^ (self.frames_next.val() >> 1);
        // room next cycle: the next pointer not a whole RAM ahead of the
        // reader as last synchronized (which only lags the real one); both
        // candidates are checked before `push` picks one
        self.full_if_stay.ptr.next = self.wr_ptr.q.val();
        self.full_if_stay.rd.next = self.rd_sync.bin.val();
        self.full_if_move.ptr.next = self.wr_plus1.q.val();
        self.full_if_move.rd.next = self.rd_sync.bin.val();
        self.ready.d.next = !self.full_if_stay.full.val();
        if self.push.val() {
            self.ready.d.next = !self.full_if_move.full.val();
        }
        if self.reset.val() {
            self.ready.d.next = false;
        }
        self.s_axis.tready.next = self.ready.q.val();

        self.ram.write_clock.next = self.core_clock.val();
        self.ram.write_addr.next = bit_cast::<TX_ADDR_BITS, TX_PTR_BITS>(self.wr_ptr.q.val());
        self.ram.write_enable.next = self.push.val();
        self.ram.write_data.next = self.s_axis.tdata.val();
        self.ram.write_keep.next = self.s_axis.tkeep.val();
        self.ram.write_last.next = self.s_axis.tlast.val();
        self.ram.write_user.next = self.s_axis.tuser.val();

        // ---- mac_clock
        dff_setup!(self, mac_clock, stalled_q);
        self.stalled_q.d.next = self.reader.m_axis.tvalid.val() & !self.m_axis.tready.val();
        self.stalled.next = self.stalled_q.q.val();
        self.mac_reset.clock.next = self.mac_clock.val();
        self.mac_reset.d.next = self.reset.val();
        self.ram.read_clock.next = self.mac_clock.val();
        self.ram.read_addr.next = self.reader.read_addr.val();
        self.reader.clock.next = self.mac_clock.val();
        self.reader.reset.next = self.mac_reset.q.val();
        self.reader.frames_gray.next = self.frames_gray.q.val();
        self.reader.ram_data.next = self.ram.read_data.val();
        self.reader.ram_keep.next = self.ram.read_keep.val();
        self.reader.ram_flags.next = self.ram.read_flags.val();
        self.m_axis.tdata.next = self.reader.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.reader.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.reader.m_axis.tlast.val();
        self.m_axis.tuser.next = self.reader.m_axis.tuser.val();
        self.m_axis.tvalid.next = self.reader.m_axis.tvalid.val();
        self.reader.m_axis.tready.next = self.m_axis.tready.val();
    }
}
