//! The MAC boundary: the 100G MAC (AMD CMAC, 512-bit AXI stream at
//! 322.265625 MHz) on one side, the core clock (250 MHz) on the other.
//!
//! * [`MacRxFifo`]: receive. The MAC cannot be stalled; frames are written
//!   speculatively and committed at their last beat, and a frame that finds
//!   the FIFO full is discarded whole and counted (`drops`).
//! * [`MacTxFifo`]: transmit. A frame leaves for the MAC only once it is in
//!   the FIFO whole, so the MAC never sees a gap inside a frame.
//!
//! Both are asynchronous FIFOs over a [`FrameRam`] (block RAM with a write
//! clock and a read clock, [`crate::prim::DualClockRam`]); what
//! crosses between the clocks is Gray-coded counters only
//! ([`crate::prim::GraySync`]): the count of committed frames (writer to
//! reader) and the read pointer (reader to writer), and on receive a small
//! drop counter. Design, depths and figures: docs/mac.md.

mod counter64;
mod event_cross;
mod frame_ram;
mod mac_addr_filter;
mod mac_rx_fifo;
mod mac_tx_fifo;
mod ram_full;
mod read_side;
mod rx_pause;
mod tx_stats;

pub use counter64::{Counter64, COUNTER_STEP_BITS};
pub use event_cross::{EventCross, EVENT_GRAY_BITS, MAX_EVENT_STEP};
pub use frame_ram::FrameRam;
pub use mac_addr_filter::MacAddrFilter;
pub use mac_rx_fifo::{MacRxFifo, RX_ADDR_BITS, RX_DEPTH, RX_PTR_BITS};
pub use mac_tx_fifo::{MacTxFifo, TX_ADDR_BITS, TX_DEPTH, TX_MAX_FRAME_BEATS, TX_MAX_FRAME_BYTES, TX_PTR_BITS};
pub use ram_full::RamFull;
pub use read_side::FrameReader;
pub use rx_pause::{RxPause, RX_PAUSE_GUARD_BITS, RX_PAUSE_MUTUAL_BITS};
pub use tx_stats::{TxStats, TX_STATS_LATENCY};

use rust_hdl::prelude::*;

/// The MAC's clock (CMAC at 100 Gb/s), and the core's.
pub const MAC_CLOCK_HZ: u64 = 322_265_625;
pub const CORE_CLOCK_HZ: u64 = crate::consts::CLOCK_MHZ * 1_000_000;

const fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
const CLOCK_GCD: u64 = gcd(MAC_CLOCK_HZ, CORE_CLOCK_HZ);
/// The clocks' periods in a common time unit (1 / lcm of the two frequencies:
/// 4 ns / 165, about 24.2 ps): 128 units for the MAC, 165 for the core. The
/// testbenches step time in these units, so the ratio 165 : 128 is exact.
pub const MAC_PERIOD_UNITS: u64 = CORE_CLOCK_HZ / CLOCK_GCD;
pub const CORE_PERIOD_UNITS: u64 = MAC_CLOCK_HZ / CLOCK_GCD;
const _: () = assert!(MAC_PERIOD_UNITS == 128 && CORE_PERIOD_UNITS == 165);

/// log2 of both FIFOs' depth in beats. Block RAM is 512 deep in its widest
/// shapes (RAMB18 as 512 x 36, RAMB36 as 512 x 72), so a 512-beat FIFO of
/// 512 + 64 + 2 bits costs what any shallower one does: 18 RAMB18 (yosys
/// maps it as 16 RAMB18 and a RAMB36). Each FIFO asserts beside its depth
/// what it must hold.
pub const BRAM_DEPTH_BITS: usize = 9;

/// The largest frame the receive side is sized for (a 9000-byte jumbo).
pub const JUMBO_FRAME_BYTES: usize = 9000;

/// Core cycles `reset` must be held so that both clock domains, and the
/// synchronizers between them, are cleared: the MAC domain sees `reset`
/// two MAC edges late (through [`crate::prim::SyncFlops`]), and a cleared
/// counter takes three edges of the other clock to reach its
/// [`crate::prim::GraySync`]. Eight core cycles cover 2 + 3 edges of either
/// clock with margin.
pub const RESET_CYCLES: u64 = 8;

/// A stream the sender cannot be asked to stall: the CMAC's receive
/// interface (`rx_axis_*`), which has no `tready`.
#[derive(LogicInterface, Default)]
#[join = "MacStreamOut"]
pub struct MacStreamIn<const D: usize, const K: usize, const U: usize> {
    pub tdata: Signal<In, Bits<D>>,
    pub tkeep: Signal<In, Bits<K>>,
    pub tlast: Signal<In, Bit>,
    pub tuser: Signal<In, Bits<U>>,
    pub tvalid: Signal<In, Bit>,
}

/// The sending side of a [`MacStreamIn`]: a stream that cannot be stalled
/// ([`MacAddrFilter`]'s output into the receive FIFO).
#[derive(LogicInterface, Default)]
#[join = "MacStreamIn"]
pub struct MacStreamOut<const D: usize, const K: usize, const U: usize> {
    pub tdata: Signal<Out, Bits<D>>,
    pub tkeep: Signal<Out, Bits<K>>,
    pub tlast: Signal<Out, Bit>,
    pub tuser: Signal<Out, Bits<U>>,
    pub tvalid: Signal<Out, Bit>,
}
