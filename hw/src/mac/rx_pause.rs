//! `RxPause<G, M>`: the receive FIFO's request that the link partner pause
//! (IEEE 802.3x PAUSE, or PFC on the RoCE priority), in the MAC's clock.
//!
//! RoCEv2 runs on a lossless fabric: a frame the receive FIFO drops because
//! the core fell behind (a cold translation cache, a host that stalls the
//! DMA writes, a READ's data placed slower than it arrives) is a loss that
//! only a retransmission recovers, and a READ response lost that way costs a
//! whole READ. So the FIFO asks for a pause before it is full: `pause` rises
//! when the fill (beats written, the frame being written included, less the
//! beats the core has read as last synchronized) reaches
//! [`RX_PAUSE_XOFF_BEATS`](crate::consts::RX_PAUSE_XOFF_BEATS) and falls
//! when it is under [`RX_PAUSE_XON_BEATS`](crate::consts::RX_PAUSE_XON_BEATS)
//! (hysteresis, so a FIFO near the mark does not send a pause frame per
//! beat). The room above the XOFF mark is the headroom for what is still on
//! its way when the partner reacts: the frame it is sending, the wire both
//! ways, the frame that carries the pause (docs/mac.md, "Pause").
//!
//! **Storm guard.** A receive path that stopped for good would hold the
//! partner, and behind it the fabric, paused forever (a pause storm). After
//! 2^`G` cycles of continuous pause the request is withdrawn and stays
//! withdrawn until the fill falls under the XON mark: meanwhile the FIFO
//! drops whole frames and counts them, as it does without pause. The core
//! uses `G` = [`RX_PAUSE_GUARD_BITS`] (2^25 cycles of the 322 MHz MAC
//! clock: 104 ms, the bound NICs use).
//!
//! **Mutual guard.** Two NICs whose receive paths each wait on their own
//! transmit (a responder's ACKs and READ responses go out on the link the
//! partner paused) can pause each other for good: A's FIFO full holds B's
//! transmit, so B's receive path stops and B's FIFO fills, which holds A's
//! transmit, so A's receive path never drains. After 2^`M` cycles in which
//! this side asks for a pause while its own transmitter is stalled
//! (`tx_stalled`: a frame offered and not taken, synchronized) the request
//! is withdrawn as the storm guard withdraws it: the partner sends again,
//! this FIFO drops what it cannot hold (a loss the transport recovers), and
//! the cycle is broken. The core uses `M` = [`RX_PAUSE_MUTUAL_BITS`]
//! (2^12 cycles: 12.7 us, about 38 4 KiB frames at line rate): a partner that
//! only pauses this side, or a pause that this side's own FIFO clears
//! within that time, never trips it.
//!
//! Every output is a register; the fill is a registered subtraction of two
//! registers, the marks compared on it in the next cycle.

use crate::consts::{RX_PAUSE_XOFF_BEATS, RX_PAUSE_XON_BEATS};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

use super::mac_rx_fifo::RX_PTR_BITS;

/// The core's storm guard: 2^25 MAC cycles.
pub const RX_PAUSE_GUARD_BITS: usize = 25;
/// The core's mutual guard: 2^12 MAC cycles of pause asked while the own
/// transmitter is stalled.
pub const RX_PAUSE_MUTUAL_BITS: usize = 12;

#[derive(LogicBlock, Default)]
pub struct RxPause<const G: usize, const M: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous to `clock`.
    pub reset: Signal<In, Bit>,
    /// The write pointer (the frame being written included) and the read
    /// pointer as last synchronized, both `RX_PTR_BITS` wide.
    pub wr_ptr: Signal<In, Bits<RX_PTR_BITS>>,
    pub rd_ptr: Signal<In, Bits<RX_PTR_BITS>>,
    /// This side's transmitter is stalled (a frame offered and not taken),
    /// synchronous to `clock`.
    pub tx_stalled: Signal<In, Bit>,
    /// Ask the link partner to pause (a level, a register).
    pub pause: Signal<Out, Bit>,
    /// A guard withdrew the request; held until the fill is under XON.
    pub tripped: Signal<Out, Bit>,
    fill: Reg<Bits<RX_PTR_BITS>>,
    on: Reg<Bit>,
    held: Reg<Bit>,
    /// Cycles of continuous pause; all ones (2^G - 1) trips the guard.
    age: Reg<Bits<G>>,
    /// Cycles of pause asked with the own transmitter stalled, in a row;
    /// all ones (2^M - 1) trips the guard.
    mutual: Reg<Bits<M>>,
    mutual_expired: Signal<Local, Bit>,
    over: Signal<Local, Bit>,
    under: Signal<Local, Bit>,
    expired: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl<const G: usize, const M: usize> Logic for RxPause<G, M> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fill, on, held, age, mutual);
        self.fill.d.next = self.wr_ptr.val() - self.rd_ptr.val();
        self.over.next = self.fill.q.val() >= RX_PAUSE_XOFF_BEATS;
        self.under.next = self.fill.q.val() < RX_PAUSE_XON_BEATS;
        self.expired.next = self.age.q.val().all();
        self.age.d.next = 0.into();
        if self.on.q.val() {
            self.age.d.next = self.age.q.val() + 1;
        }
        self.mutual_expired.next = self.mutual.q.val().all();
        self.mutual.d.next = 0.into();
        if self.on.q.val() & self.tx_stalled.val() {
            self.mutual.d.next = self.mutual.q.val() + 1;
        }
        if self.over.val() & !self.held.q.val() {
            self.on.d.next = true;
        }
        if self.under.val() {
            self.on.d.next = false;
            self.held.d.next = false;
        }
        if self.on.q.val() & (self.expired.val() | self.mutual_expired.val()) {
            self.on.d.next = false;
            self.held.d.next = true;
        }
        if self.reset.val() {
            self.fill.d.next = 0.into();
            self.on.d.next = false;
            self.held.d.next = false;
            self.age.d.next = 0.into();
            self.mutual.d.next = 0.into();
        }
        self.pause.next = self.on.q.val();
        self.tripped.next = self.held.q.val();
    }
}
