//! `TxStats`: the transmit counters the contract names (`cnt_tx_frames`,
//! `cnt_tx_bytes`), counted on the stream into the MAC transmit FIFO. It
//! watches the handshake and takes nothing: `fire` is the beat taken,
//! `last` its `tlast`, `keep` its `tkeep`.
//!
//! A beat's bytes are the ones of `keep` (any pattern, not only the packed
//! last beat), summed in three registered steps so no step is deeper than
//! an 8-bit popcount or a 64-bit add: the beat registered, the eight
//! bytes-of-eight counts, their sum; then `bytes` += the sum and `frames`
//! += `last`. The counts lag the beat by [`TX_STATS_LATENCY`] cycles.

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Cycles from a beat taken to `frames` / `bytes` counting it.
pub const TX_STATS_LATENCY: u64 = 4;

#[derive(LogicBlock, Default)]
pub struct TxStats {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub fire: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub keep: Signal<In, Bits<64>>,
    pub frames: Signal<Out, Bits<64>>,
    pub bytes: Signal<Out, Bits<64>>,
    // ---- the beat
    b_v: Reg<Bit>,
    b_last: Reg<Bit>,
    b_keep: Reg<Bits<64>>,
    // ---- eight 4-bit counts, packed
    g_v: Reg<Bit>,
    g_last: Reg<Bit>,
    g_cnt: Reg<Bits<32>>,
    // ---- the beat's bytes
    s_v: Reg<Bit>,
    s_last: Reg<Bit>,
    s_bytes: Reg<Bits<7>>,
    // ---- the counters
    n_frames: Reg<Bits<64>>,
    n_bytes: Reg<Bits<64>>,
    grp: Signal<Local, Bits<8>>,
    lo4: Signal<Local, Bits<4>>,
    hi4: Signal<Local, Bits<4>>,
    g4: Signal<Local, Bits<4>>,
    packed: Signal<Local, Bits<32>>,
    sum4: Signal<Local, Bits<7>>,
    sum8: Signal<Local, Bits<7>>,
    kind: TypeTag<Self>,
}

impl Logic for TxStats {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, b_v, b_last, b_keep, g_v, g_last, g_cnt, s_v, s_last, s_bytes, n_frames, n_bytes);
        self.b_v.d.next = self.fire.val();
        self.b_last.d.next = self.fire.val() & self.last.val();
        self.b_keep.d.next = self.keep.val();

        // ---- each group of eight keep bits counted: two halves of four, then the eight
        self.packed.next = 0.into();
        for k in 0..8 {
            self.grp.next = self.b_keep.q.val().get_bits::<8>(8 * k);
            self.lo4.next = bit_cast::<4, 1>(self.grp.val().get_bit(0).into())
                + bit_cast::<4, 1>(self.grp.val().get_bit(1).into())
                + bit_cast::<4, 1>(self.grp.val().get_bit(2).into())
                + bit_cast::<4, 1>(self.grp.val().get_bit(3).into());
            self.hi4.next = bit_cast::<4, 1>(self.grp.val().get_bit(4).into())
                + bit_cast::<4, 1>(self.grp.val().get_bit(5).into())
                + bit_cast::<4, 1>(self.grp.val().get_bit(6).into())
                + bit_cast::<4, 1>(self.grp.val().get_bit(7).into());
            self.g4.next = self.lo4.val() + self.hi4.val();
            self.packed.next = self
                .packed
                .val()
                .replace_bit(4 * k, self.g4.val().get_bit(0))
                .replace_bit(4 * k + 1, self.g4.val().get_bit(1))
                .replace_bit(4 * k + 2, self.g4.val().get_bit(2))
                .replace_bit(4 * k + 3, self.g4.val().get_bit(3));
        }
        self.g_v.d.next = self.b_v.q.val();
        self.g_last.d.next = self.b_last.q.val();
        self.g_cnt.d.next = self.packed.val();

        // ---- the eight counts summed
        self.sum4.next = bit_cast::<7, 4>(self.g_cnt.q.val().get_bits::<4>(0))
            + bit_cast::<7, 4>(self.g_cnt.q.val().get_bits::<4>(4))
            + bit_cast::<7, 4>(self.g_cnt.q.val().get_bits::<4>(8))
            + bit_cast::<7, 4>(self.g_cnt.q.val().get_bits::<4>(12));
        self.sum8.next = bit_cast::<7, 4>(self.g_cnt.q.val().get_bits::<4>(16))
            + bit_cast::<7, 4>(self.g_cnt.q.val().get_bits::<4>(20))
            + bit_cast::<7, 4>(self.g_cnt.q.val().get_bits::<4>(24))
            + bit_cast::<7, 4>(self.g_cnt.q.val().get_bits::<4>(28));
        self.s_v.d.next = self.g_v.q.val();
        self.s_last.d.next = self.g_last.q.val();
        self.s_bytes.d.next = self.sum4.val() + self.sum8.val();

        // ---- the counters
        if self.s_v.q.val() {
            self.n_bytes.d.next = self.n_bytes.q.val() + bit_cast::<64, 7>(self.s_bytes.q.val());
        }
        if self.s_last.q.val() {
            self.n_frames.d.next = self.n_frames.q.val() + 1;
        }
        self.frames.next = self.n_frames.q.val();
        self.bytes.next = self.n_bytes.q.val();

        if self.reset.val() {
            self.b_v.d.next = false;
            self.b_last.d.next = false;
            self.g_v.d.next = false;
            self.g_last.d.next = false;
            self.s_v.d.next = false;
            self.s_last.d.next = false;
            self.n_frames.d.next = 0.into();
            self.n_bytes.d.next = 0.into();
        }
    }
}
