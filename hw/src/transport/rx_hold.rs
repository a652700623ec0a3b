//! `RxHold`: the receive path's ICRC hold. It sits between `RxParse` and the
//! receive transport and lets a packet go (its header on `m_hdr`, its
//! payload on `m_axis`) only once the packet's last beat has come with a
//! good verdict; nothing of a bad packet leaves. This is what makes the
//! project's rule hold: no side effect of a received packet (DMA write, PSN
//! advance, ACK) before its ICRC verdict.
//!
//! Ports (formats as `RxParse` makes them):
//!
//! * `s_hdr` (`HdrIn<1024>`, the [`RX_HDR_FIELDS`](crate::wire::RX_HDR_FIELDS) layout): the parser's
//!   headers, one per packet, in packet order, each before its payload.
//!   `tready` is a register (the header FIFO's registered "not full").
//! * `s_axis` (`AxisIn<512, 64, 1>`): the payloads in their wire lanes, at
//!   least one beat per packet (one beat with `tkeep = 0` for no payload),
//!   `tuser[0]` on the `tlast` beat = the packet is bad (ICRC, IPv4
//!   checksum, short, MAC error). `tready` is a register.
//! * `m_hdr` (`HdrOut<1024>`): the headers of good packets, in order, from a
//!   register.
//! * `m_axis` (`AxisOut<512, 64, 1>`): the payloads of good packets, in
//!   order, beat for beat as they came (`tdata`, `tkeep`, `tlast`), `tuser`
//!   always 0, from registers.
//! * `cnt_good`, `cnt_bad` (64 bits, wrapping after centuries): packets
//!   whose last beat came with a good or a bad verdict; `bad_pulse`: high
//!   for one cycle after a bad packet's last beat was taken.
//!
//! **Structure.** Three queues, each filled independently:
//!
//! * the payload **ring** ([`RING_BEATS`] beats of 577 bits in block RAM:
//!   data, keep, last) with a write pointer `wp`, a committed pointer `cp`
//!   and a read pointer `rp`. Every beat taken is written at `wp`; a good
//!   last beat commits the packet (`cp = wp + 1`), a bad one rolls `wp` back
//!   to `cp`, so the ring never holds a bad packet's beats past its last
//!   beat and the read side sees only good packets. The read side is a
//!   queue of three registers fed by the RAM's synchronous read (as in
//!   `BramFifo`): a read is issued only when those registers can take every
//!   word already on its way, from registered state, so `m_axis` comes from
//!   flip-flops and `m_axis.tready` reaches nothing but them.
//! * the **header FIFO** (a [`BramFifo`] of 512 headers in the stored form,
//!   [`RX_HDR_STORE_BITS`] = 650 bits instead of 1024: [`RxHdrPack`] on the
//!   way in, [`RxHdrExpand`] on the way out, wiring both; 9.5 BRAM36 rather
//!   than 14.5);
//! * the **verdict FIFO** (one bit per packet, written at each last beat,
//!   33 places in LUTRAM).
//!
//! The head header leaves with the head verdict: into the `m_hdr` register
//! if good, dropped if bad. The payload side needs no pairing: the ring
//! holds good packets only, in order. So a payload may be offered before
//! its header is taken (the two streams are independent, as they are out of
//! `RxParse`); both are in packet order, and with nothing waiting ahead a
//! packet's header and first payload beat are offered in the same cycle.
//!
//! **Room.** `s_axis.tready` is a register: high when the ring has room for
//! two more beats (the decision is a cycle old) and the verdict FIFO for two
//! more verdicts; `s_hdr.tready` likewise from the header FIFO's count.
//! Nothing is dropped for lack of room; the input waits.
//!
//! **No deadlock** with `RxParse` (which sends a header ahead of its
//! payload and keeps moving payloads while its `m_hdr` waits) and with a
//! consumer that takes a header, then its payload:
//!
//! * the payload input stops only when the ring or the verdict FIFO is
//!   full. A ring holding only the packet being received is never full
//!   (`RING_BEATS - 2` > [`RX_HOLD_MAX_BEATS`], asserted): so the ring holds
//!   committed beats of earlier good packets, whose headers are in the
//!   header FIFO or gone already, and whose verdicts are in: those headers
//!   leave, the consumer takes them and their payloads, and the ring drains.
//!   A full verdict FIFO's head verdict pairs with the head header (they
//!   leave together), or its header has not come yet: then the header FIFO
//!   is empty (headers and verdicts pair in order), so it takes that header,
//!   which `RxParse` offers whatever its payload stream does.
//! * the header input stops only when the header FIFO is full. Its head
//!   header waits only for its verdict; the verdict FIFO is then empty, so
//!   the payload input stops only for a ring full of committed beats, which
//!   drain as above, and `RxParse` delivers the head packet's payload and
//!   verdict however long its own `m_hdr` is held (its doc comment).
//!
//! Tested with `m_hdr` held for thousands of cycles while payloads come
//! (`tb/tests/rx_hold.rs`, `header_consumer_held_long`).
//!
//! **Latency** (no stall, nothing queued ahead): a good packet's header is
//! on `m_hdr` [`RxHold::HDR_LATENCY`] cycles after the cycle its last beat
//! was taken (the header taken at least one cycle before that beat), its
//! first payload beat on `m_axis` [`RxHold::PAYLOAD_LATENCY`] cycles after.
//! **Rate**: one beat per cycle in and out at once, sustained (a good
//! packet's beats leave while the next one's come in); one packet per cycle
//! for one-beat packets.

use crate::axis::{AxisFifo, AxisIn, AxisOut, HdrIn, HdrOut};
use crate::prim::{BlockRam, BramFifo, Reg};
use crate::wire::{RxHdrExpand, RxHdrPack, RX_HDR_STORE_BITS};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// The largest payload (PMTU 4096) and the beats it takes in its wire lanes
/// from any start lane.
pub const RX_HOLD_MAX_PAYLOAD: usize = 4096;
pub const RX_HOLD_MAX_BEATS: usize = (63 + RX_HOLD_MAX_PAYLOAD).div_ceil(64);
/// log2 of the ring's beats and of the header FIFO's headers: 512, the depth
/// at which one block RAM is widest (512 x 72), so the depth is free.
const RING_LOG: usize = 9;
pub const RING_BEATS: usize = 1 << RING_LOG;
const HDR_LOG: usize = 9;
pub const HDR_PLACES: usize = 1 << HDR_LOG;
/// log2 of the verdict FIFO's RAM (and its output register: 33 places).
const VERDICT_LOG: usize = 5;
pub const VERDICT_PLACES: usize = (1 << VERDICT_LOG) + 1;
/// A ring word: data (0..512), keep (512..576), last (576).
const WORD_BITS: usize = 512 + 64 + 1;
// the literals of `update`: the ring's room (510), the verdict FIFO's (31),
// the header FIFO's (510); the ring word layout
const _: () = assert!(RING_BEATS - 2 == 510 && VERDICT_PLACES - 2 == 31 && HDR_PLACES - 2 == 510);
const _: () = assert!(WORD_BITS == 577 && RX_HDR_STORE_BITS == 650 && RX_HOLD_MAX_BEATS == 65);
// a packet being received alone never fills the ring: no deadlock
const _: () = assert!(RING_BEATS - 2 > RX_HOLD_MAX_BEATS);
// a max-size packet can come in while the previous one leaves
const _: () = assert!(RING_BEATS >= 2 * RX_HOLD_MAX_BEATS + 8);

#[derive(LogicBlock, Default)]
pub struct RxHold {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_hdr: HdrIn<1024>,
    pub s_axis: AxisIn<512, 64, 1>,
    pub m_hdr: HdrOut<1024>,
    pub m_axis: AxisOut<512, 64, 1>,
    pub cnt_good: Signal<Out, Bits<64>>,
    pub cnt_bad: Signal<Out, Bits<64>>,
    pub bad_pulse: Signal<Out, Bit>,

    // ---- input
    in_ready: Reg<Bit>,
    hdr_ready: Reg<Bit>,
    take: Signal<Local, Bit>,
    take_last: Signal<Local, Bit>,
    bad_in: Signal<Local, Bit>,
    used: Signal<Local, Bits<10>>,
    // ---- the payload ring; pointers carry a wrap bit (bit 9)
    ring: BlockRam<Bits<WORD_BITS>, RING_LOG>,
    wp: Reg<Bits<10>>,
    cp: Reg<Bits<10>>,
    rp: Reg<Bits<10>>,
    // ---- its read side: a read on its way, three head registers
    pend: Reg<Bit>,
    v0: Reg<Bit>,
    v1: Reg<Bit>,
    v2: Reg<Bit>,
    d0: Reg<Bits<WORD_BITS>>,
    d1: Reg<Bits<WORD_BITS>>,
    d2: Reg<Bits<WORD_BITS>>,
    issue: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    // ---- headers and verdicts
    pack: RxHdrPack,
    hdrs: BramFifo<RX_HDR_STORE_BITS, HDR_LOG, 10>,
    verdicts: AxisFifo<1, 1, 1, VERDICT_LOG>,
    vcnt: Reg<Bits<6>>,
    go: Signal<Local, Bit>,
    head_bad: Signal<Local, Bit>,
    oh: Reg<Bits<RX_HDR_STORE_BITS>>,
    oh_v: Reg<Bit>,
    expand: RxHdrExpand,
    // ---- counters
    c_good: Reg<Bits<64>>,
    c_bad: Reg<Bits<64>>,
    bad_q: Reg<Bit>,
    kind: TypeTag<Self>,
}

impl RxHold {
    /// Cycles from the cycle a good packet's last beat is taken to its
    /// header valid on `m_hdr` (header taken earlier, nothing ahead): the
    /// verdict's write (1), the verdict FIFO's output register (1), `m_hdr`'s
    /// register (1).
    pub const HDR_LATENCY: u64 = 3;
    /// Cycles from the cycle a good packet's last beat is taken to its first
    /// payload beat valid on `m_axis` (nothing ahead): the commit (1), the
    /// RAM read (1), the head register (1).
    pub const PAYLOAD_LATENCY: u64 = 3;
}

impl Logic for RxHold {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_ready, hdr_ready, wp, cp, rp, pend, v0, v1, v2, d0, d1, d2, vcnt, oh, oh_v, c_good, c_bad,
            bad_q
        );
        clock!(self, clock, ring, hdrs, verdicts);
        self.hdrs.reset.next = self.reset.val();
        self.verdicts.reset.next = self.reset.val();

        // ---- input: every beat taken goes into the ring at wp
        self.s_axis.tready.next = self.in_ready.q.val();
        self.take.next = self.s_axis.tvalid.val() & self.in_ready.q.val();
        self.take_last.next = self.take.val() & self.s_axis.tlast.val();
        self.bad_in.next = self.s_axis.tuser.val().get_bit(0);
        self.ring.write_addr.next = self.wp.q.val().get_bits::<9>(0);
        self.ring.write_data.next = (bit_cast::<577, 1>(self.s_axis.tlast.val().into()) << 576)
            | (bit_cast::<577, 64>(self.s_axis.tkeep.val()) << 512)
            | bit_cast::<577, 512>(self.s_axis.tdata.val());
        self.ring.write_enable.next = self.take.val();
        if self.take.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }
        if self.take_last.val() {
            if self.bad_in.val() {
                // roll the bad packet back: its beats are never read
                self.wp.d.next = self.cp.q.val();
            } else {
                self.cp.d.next = self.wp.q.val() + 1;
            }
        }
        self.verdicts.s_axis.tvalid.next = self.take_last.val();
        self.verdicts.s_axis.tdata.next = self.s_axis.tuser.val();
        self.verdicts.s_axis.tkeep.next = 1.into();
        self.verdicts.s_axis.tlast.next = true;
        self.verdicts.s_axis.tuser.next = 0.into();
        self.bad_q.d.next = self.take_last.val() & self.bad_in.val();
        if self.take_last.val() & self.bad_in.val() {
            self.c_bad.d.next = self.c_bad.q.val() + 1;
        }
        if self.take_last.val() & !self.bad_in.val() {
            self.c_good.d.next = self.c_good.q.val() + 1;
        }

        // ---- headers: packed into the BRAM FIFO
        self.s_hdr.tready.next = self.hdr_ready.q.val();
        self.pack.hdr.next = self.s_hdr.tdata.val();
        self.hdrs.push.next = self.s_hdr.tvalid.val() & self.hdr_ready.q.val();
        self.hdrs.push_data.next = self.pack.stored.val();

        // ---- the head header leaves with the head verdict: to m_hdr if good
        self.head_bad.next = self.verdicts.m_axis.tdata.val().get_bit(0);
        self.go.next = self.hdrs.m_valid.val()
            & self.verdicts.m_axis.tvalid.val()
            & (self.head_bad.val() | !self.oh_v.q.val() | self.m_hdr.tready.val());
        self.hdrs.m_ready.next = self.go.val();
        self.verdicts.m_axis.tready.next = self.go.val();
        if self.go.val() & !self.head_bad.val() {
            self.oh.d.next = self.hdrs.m_data.val();
            self.oh_v.d.next = true;
        } else if self.m_hdr.tready.val() {
            self.oh_v.d.next = false;
        }
        self.expand.stored.next = self.oh.q.val();
        self.m_hdr.tdata.next = self.expand.hdr.val();
        self.m_hdr.tvalid.next = self.oh_v.q.val();
        self.vcnt.d.next =
            self.vcnt.q.val() + bit_cast::<6, 1>(self.take_last.val().into()) - bit_cast::<6, 1>(self.go.val().into());

        // ---- room, from registers: two more beats, verdicts, headers
        self.used.next = self.wp.q.val() - self.rp.q.val();
        self.in_ready.d.next = (self.used.val() <= 510) & (self.vcnt.q.val() <= 31);
        self.hdr_ready.d.next = self.hdrs.count.val() <= 510;

        // ---- the read side: committed beats into the head registers
        self.pop.next = self.m_axis.tready.val() & self.v0.q.val();
        self.issue.next =
            (self.rp.q.val() != self.cp.q.val()) & !self.v2.q.val() & !(self.v1.q.val() & self.pend.q.val());
        self.ring.read_addr.next = self.rp.q.val().get_bits::<9>(0);
        if self.issue.val() {
            self.rp.d.next = self.rp.q.val() + 1;
        }
        self.pend.d.next = self.issue.val();
        if self.pop.val() {
            self.d0.d.next = self.d1.q.val();
            self.d1.d.next = self.d2.q.val();
            self.v0.d.next = self.v1.q.val();
            self.v1.d.next = self.v2.q.val();
            self.v2.d.next = false;
        }
        if self.pend.q.val() {
            if self.pop.val() {
                if self.v1.q.val() {
                    self.d1.d.next = self.ring.read_data.val();
                    self.v1.d.next = true;
                } else {
                    self.d0.d.next = self.ring.read_data.val();
                    self.v0.d.next = true;
                }
            } else if !self.v0.q.val() {
                self.d0.d.next = self.ring.read_data.val();
                self.v0.d.next = true;
            } else if !self.v1.q.val() {
                self.d1.d.next = self.ring.read_data.val();
                self.v1.d.next = true;
            } else {
                self.d2.d.next = self.ring.read_data.val();
                self.v2.d.next = true;
            }
        }
        self.m_axis.tdata.next = self.d0.q.val().get_bits::<512>(0);
        self.m_axis.tkeep.next = self.d0.q.val().get_bits::<64>(512);
        self.m_axis.tlast.next = self.d0.q.val().get_bit(576);
        self.m_axis.tuser.next = 0.into();
        self.m_axis.tvalid.next = self.v0.q.val();
        self.cnt_good.next = self.c_good.q.val();
        self.cnt_bad.next = self.c_bad.q.val();
        self.bad_pulse.next = self.bad_q.q.val();

        if self.reset.val() {
            // empty after reset: ready from the first cycle
            self.in_ready.d.next = true;
            self.hdr_ready.d.next = true;
            self.wp.d.next = 0.into();
            self.cp.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.pend.d.next = false;
            self.v0.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.vcnt.d.next = 0.into();
            self.oh_v.d.next = false;
            self.c_good.d.next = 0.into();
            self.c_bad.d.next = 0.into();
            self.bad_q.d.next = false;
        }
    }
}
