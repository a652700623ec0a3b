//! `MacRxFifo`: frames from the MAC (no backpressure, MAC clock) into the
//! core clock, dropping whole frames when full.
//!
//! Write side (`mac_clock`): each beat with `tvalid` is written at `wr_ptr`
//! while there is room. At the frame's last beat the frame is committed:
//! `start_ptr` (where the next frame starts) moves to the end and the
//! committed-frame counter steps. A beat that finds the RAM full drops the
//! frame: `wr_ptr` rolls back to `start_ptr`, the frame's remaining beats are
//! discarded up to its `tlast`, and the drop counter steps. Nothing of a
//! dropped frame was ever visible to the reader (which takes committed frames
//! only, [`FrameReader`]), so the core never sees part of a frame.
//!
//! Room: `full` is a register, computed from the next write pointer and the
//! read pointer as last synchronized (which only lags the real one), so the
//! check is one flop away from the write enable at 322 MHz and never lets a
//! beat overwrite an unread one. The next pointer is one of three (stay, move
//! on, roll back), each kept in a register with its successor, and the check
//! is made for all three before the write decision picks one.
//!
//! Reset: the MAC does not stop for it. The writer follows the MAC's frame
//! boundaries in reset too (`mid_frame`), and a frame under way when reset
//! ends is discarded up to its last beat (not counted as a drop: the frame
//! was lost to the reset), so the first frame delivered after a reset is
//! whole.
//!
//! Address filter: the MAC's frames pass [`MacAddrFilter`] first (one
//! registered stage), which refuses whole every frame sent to another
//! station's unicast address (`port_mac`); the FIFO never sees them, and
//! `not_mine` counts them.
//!
//! Drops and refusals are counted where they happen and cross to the core
//! clock as small Gray-coded counters ([`EventCross`]); there each is a
//! 64-bit counter (no long carry chain; it does not wrap in practice: at one
//! drop per MAC cycle, 2^64 takes 1800 years). Frames with `tuser` set (a bad
//! FCS) are passed on with it, not dropped here.
//!
//! Pause: [`RxPause`] asks the link partner to pause (`pause`, a level in
//! `mac_clock` for the MAC's pause or PFC request) while the FIFO is more
//! than half full, so on a fabric that honours it the FIFO does not drop;
//! `pauses` counts the requests (rising edges, seen in the core clock).

use super::counter64::{Counter64, COUNTER_STEP_BITS};
use super::event_cross::EventCross;
use super::frame_ram::FrameRam;
use super::mac_addr_filter::MacAddrFilter;
use super::ram_full::RamFull;
use super::read_side::FrameReader;
use super::rx_pause::{RxPause, RX_PAUSE_GUARD_BITS, RX_PAUSE_MUTUAL_BITS};
use super::MacStreamIn;
use crate::axis::{AxisOut, DATA_BITS, KEEP_BITS};
use crate::prim::{GraySync, Reg, SyncFlops, GRAY_SYNC_MAX_BITS};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the receive FIFO's depth in beats: [`super::BRAM_DEPTH_BITS`].
/// 512 beats of 64 bytes are 32 KiB: three 9000-byte jumbo frames (141 beats
/// each) and change, so one can arrive while two wait for a stalled core.
pub const RX_ADDR_BITS: usize = super::BRAM_DEPTH_BITS;
pub const RX_DEPTH: usize = 1 << RX_ADDR_BITS;
/// Pointers and frame counters carry one more bit, so full and empty differ.
pub const RX_PTR_BITS: usize = RX_ADDR_BITS + 1;
const _: () = assert!(RX_DEPTH >= 3 * super::JUMBO_FRAME_BYTES.div_ceil(KEEP_BITS));
const _: () = assert!(RX_PTR_BITS <= GRAY_SYNC_MAX_BITS);

#[derive(LogicBlock, Default)]
pub struct MacRxFifo {
    pub mac_clock: Signal<In, Clock>,
    pub core_clock: Signal<In, Clock>,
    /// Synchronous to `core_clock`; hold it [`super::RESET_CYCLES`] cycles.
    pub reset: Signal<In, Bit>,
    /// From the MAC, in `mac_clock`.
    pub s_axis: MacStreamIn<DATA_BITS, KEEP_BITS, 1>,
    /// The port's MAC (a strap: static), for the address filter.
    pub port_mac: Signal<In, Bits<48>>,
    /// To the core, in `core_clock`.
    pub m_axis: AxisOut<DATA_BITS, KEEP_BITS, 1>,
    /// Frames dropped because the FIFO was full (64-bit, `core_clock`).
    pub drops: Signal<Out, Bits<64>>,
    /// Frames the address filter refused: another station's unicast
    /// destination (64-bit, `core_clock`).
    pub not_mine: Signal<Out, Bits<64>>,
    /// Ask the link partner to pause (`mac_clock`, a register).
    pub pause: Signal<Out, Bit>,
    /// This side's transmit FIFO offers a frame the MAC does not take
    /// (`MacTxFifo::stalled`, a register in the transmit MAC clock;
    /// synchronized here): `RxPause`'s mutual guard.
    pub tx_stalled: Signal<In, Bit>,
    /// Pause requests made (64-bit, `core_clock`).
    pub pauses: Signal<Out, Bits<64>>,
    // ---- mac_clock
    filter: MacAddrFilter,
    pauser: RxPause<RX_PAUSE_GUARD_BITS, RX_PAUSE_MUTUAL_BITS>,
    tx_stall_sync: SyncFlops<Bit>,
    mac_reset: SyncFlops<Bit>,
    wr_ptr: Reg<Bits<RX_PTR_BITS>>,
    start_ptr: Reg<Bits<RX_PTR_BITS>>,
    /// `wr_ptr + 1` and `start_ptr + 1`, kept beside them so no adder sits
    /// behind the write decision.
    wr_plus1: Reg<Bits<RX_PTR_BITS>>,
    start_plus1: Reg<Bits<RX_PTR_BITS>>,
    full: Reg<Bit>,
    dropping: Reg<Bit>,
    mid_frame: Reg<Bit>,
    frames: Reg<Bits<RX_PTR_BITS>>,
    frames_gray: Reg<Bits<RX_PTR_BITS>>,
    rd_sync: GraySync<RX_PTR_BITS>,
    // ---- storage: written in mac_clock, read in core_clock
    ram: FrameRam<RX_ADDR_BITS>,
    // ---- core_clock
    reader: FrameReader<RX_ADDR_BITS, RX_PTR_BITS>,
    drop_count: EventCross,
    refused_count: EventCross,
    pause_sync: SyncFlops<Bit>,
    pause_seen: Reg<Bit>,
    pause_step: Reg<Bits<COUNTER_STEP_BITS>>,
    pause_count: Counter64,
    // ---- locals (mac_clock)
    write: Signal<Local, Bit>,
    drop: Signal<Local, Bit>,
    mid_next: Signal<Local, Bit>,
    frames_next: Signal<Local, Bits<RX_PTR_BITS>>,
    /// Full if the pointer stays, moves on, rolls back: each is checked
    /// before the write decision picks one.
    full_if_stay: RamFull<RX_ADDR_BITS, RX_PTR_BITS>,
    full_if_move: RamFull<RX_ADDR_BITS, RX_PTR_BITS>,
    full_if_back: RamFull<RX_ADDR_BITS, RX_PTR_BITS>,
    kind: TypeTag<Self>,
}

impl Logic for MacRxFifo {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- mac_clock
        dff_setup!(
            self,
            mac_clock,
            wr_ptr,
            start_ptr,
            wr_plus1,
            start_plus1,
            full,
            dropping,
            mid_frame,
            frames,
            frames_gray
        );
        self.mac_reset.clock.next = self.mac_clock.val();
        self.mac_reset.d.next = self.reset.val();
        self.rd_sync.clock.next = self.mac_clock.val();
        self.rd_sync.reset.next = self.mac_reset.q.val();
        self.rd_sync.gray.next = self.reader.rd_gray.val();
        self.pauser.clock.next = self.mac_clock.val();
        self.pauser.reset.next = self.mac_reset.q.val();
        self.pauser.wr_ptr.next = self.wr_ptr.q.val();
        self.pauser.rd_ptr.next = self.rd_sync.bin.val();
        self.tx_stall_sync.clock.next = self.mac_clock.val();
        self.tx_stall_sync.d.next = self.tx_stalled.val();
        self.pauser.tx_stalled.next = self.tx_stall_sync.q.val();
        self.pause.next = self.pauser.pause.val();
        self.filter.clock.next = self.mac_clock.val();
        self.filter.port_mac.next = self.port_mac.val();
        MacStreamIn::<DATA_BITS, KEEP_BITS, 1>::link(&mut self.s_axis, &mut self.filter.s_axis);

        self.write.next = self.filter.m_axis.tvalid.val() & !self.dropping.q.val() & !self.full.q.val();
        self.drop.next = self.filter.m_axis.tvalid.val() & !self.dropping.q.val() & self.full.q.val();
        self.frames_next.next = self.frames.q.val();
        // the room check, for each place the pointer can go (stay, move on,
        // roll back): the next pointer a whole RAM ahead of the reader as
        // last synchronized (same address, other wrap bit) is full. The
        // synchronized pointer only lags the real one, so this never lets a
        // beat overwrite an unread one.
        self.full_if_stay.ptr.next = self.wr_ptr.q.val();
        self.full_if_stay.rd.next = self.rd_sync.bin.val();
        self.full_if_move.ptr.next = self.wr_plus1.q.val();
        self.full_if_move.rd.next = self.rd_sync.bin.val();
        self.full_if_back.ptr.next = self.start_ptr.q.val();
        self.full_if_back.rd.next = self.rd_sync.bin.val();
        self.full.d.next = self.full_if_stay.full.val();
        if self.write.val() {
            self.wr_ptr.d.next = self.wr_plus1.q.val();
            self.wr_plus1.d.next = self.wr_plus1.q.val() + 1;
            self.full.d.next = self.full_if_move.full.val();
            if self.filter.m_axis.tlast.val() {
                self.start_ptr.d.next = self.wr_plus1.q.val();
                self.start_plus1.d.next = self.wr_plus1.q.val() + 1;
                self.frames_next.next = self.frames.q.val() + 1;
            }
        }
        if self.drop.val() {
            self.wr_ptr.d.next = self.start_ptr.q.val();
            self.wr_plus1.d.next = self.start_plus1.q.val();
            self.full.d.next = self.full_if_back.full.val();
            self.dropping.d.next = !self.filter.m_axis.tlast.val();
        }
        if self.filter.m_axis.tvalid.val() & self.dropping.q.val() & self.filter.m_axis.tlast.val() {
            self.dropping.d.next = false;
        }
        // Where the MAC is in its stream, tracked in reset too: a frame that
        // began before reset ended is discarded up to its end, not
        // delivered from the middle.
        self.mid_next.next = self.mid_frame.q.val();
        if self.filter.m_axis.tvalid.val() {
            self.mid_next.next = !self.filter.m_axis.tlast.val();
        }
        self.mid_frame.d.next = self.mid_next.val();
        if self.mac_reset.q.val() {
            self.wr_ptr.d.next = 0.into();
            self.wr_plus1.d.next = 1.into();
            self.start_ptr.d.next = 0.into();
            self.start_plus1.d.next = 1.into();
            self.full.d.next = false;
            self.frames_next.next = 0.into();
            self.dropping.d.next = self.mid_next.val();
        }
        self.frames.d.next = self.frames_next.val();
        self.frames_gray.d.next = self.frames_next.val() ^ (self.frames_next.val() >> 1);

        self.ram.write_clock.next = self.mac_clock.val();
        self.ram.write_addr.next = bit_cast::<RX_ADDR_BITS, RX_PTR_BITS>(self.wr_ptr.q.val());
        self.ram.write_enable.next = self.write.val();
        self.ram.write_data.next = self.filter.m_axis.tdata.val();
        self.ram.write_keep.next = self.filter.m_axis.tkeep.val();
        self.ram.write_last.next = self.filter.m_axis.tlast.val();
        self.ram.write_user.next = self.filter.m_axis.tuser.val();

        // ---- core_clock
        dff_setup!(self, core_clock, pause_seen, pause_step);
        self.ram.read_clock.next = self.core_clock.val();
        self.ram.read_addr.next = self.reader.read_addr.val();
        self.reader.clock.next = self.core_clock.val();
        self.reader.reset.next = self.reset.val();
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

        // drops and refusals, counted in the MAC clock, totalled in the core's
        self.drop_count.src_clock.next = self.mac_clock.val();
        self.drop_count.src_reset.next = self.mac_reset.q.val();
        self.drop_count.event.next = self.drop.val();
        self.drop_count.dst_clock.next = self.core_clock.val();
        self.drop_count.dst_reset.next = self.reset.val();
        self.refused_count.src_clock.next = self.mac_clock.val();
        self.refused_count.src_reset.next = self.mac_reset.q.val();
        self.refused_count.event.next = self.filter.refused.val();
        self.refused_count.dst_clock.next = self.core_clock.val();
        self.refused_count.dst_reset.next = self.reset.val();
        // a pause request lasts at least the drain from XOFF to XON (128
        // beats), so its level synchronized is never missed
        self.pause_sync.clock.next = self.core_clock.val();
        self.pause_sync.d.next = self.pauser.pause.val();
        self.pause_seen.d.next = self.pause_sync.q.val();
        self.pause_step.d.next =
            bit_cast::<COUNTER_STEP_BITS, 1>((self.pause_sync.q.val() & !self.pause_seen.q.val()).into());
        self.pause_count.clock.next = self.core_clock.val();
        self.pause_count.reset.next = self.reset.val();
        self.pause_count.step.next = self.pause_step.q.val();
        if self.reset.val() {
            self.pause_seen.d.next = false;
            self.pause_step.d.next = 0.into();
        }
        self.drops.next = self.drop_count.count.val();
        self.not_mine.next = self.refused_count.count.val();
        self.pauses.next = self.pause_count.count.val();
    }
}
