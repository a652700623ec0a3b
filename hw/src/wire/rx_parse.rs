//! `RxParse`: the receive parser. Frames from the MAC in; out come
//!
//! * `m_hdr`: the parsed header of each RoCEv2 frame ([`RxHeaderDecode`]'s
//!   packed fields, [`super::RX_HDR_FIELDS`]), before its payload;
//! * `m_axis`: the payload in its wire lanes: every beat of the frame that
//!   holds payload bytes, as it sits in the frame, `tkeep` marking exactly
//!   the payload's `payload_len` bytes (no header, pad or ICRC); the first
//!   byte is in lane `payload_lane` of the header (one beat with `tkeep = 0`
//!   when there are none). The payload is moved once, from these lanes to
//!   its IO address's, by an `AxisRealign` behind the parser (docs/streams.md);
//! * `m_raw`: whole frames that are not RoCEv2 (ARP, other IP traffic, IPv4
//!   with options), for the driver's raw queue. RoCEv2 to QP1 (the GSI:
//!   rdma_cm MADs) is UD traffic like any other, on `m_hdr` and `m_axis`.
//!
//! On both streams `tuser[0]` on the last beat says the frame is bad: its
//! ICRC or IPv4 checksum failed, it is shorter than its IP length, or the MAC
//! flagged it (it is 0 on the other beats). Nothing downstream may act on a
//! packet before that beat. Malformed frames are dropped without output.
//! Every frame ends up in exactly one counter.
//!
//! Structure: a free-running pipeline, no stalls inside. Every stage moves
//! every cycle; a beat that has nowhere to go does not exist, because the
//! input takes a beat only when the output FIFO has room for every beat
//! that may still come out of the pipeline (credits: `s_axis.tready` is a
//! register computed from the FIFOs' occupancy, [`RxParse::SLOTS`] beats of
//! margin). Stages:
//!
//! * `e`: the beat just taken. A frame's first beat waits here for its
//!   second (unless it is also the last), so the two leave together and the
//!   decoder sees both: the window is `e` (second beat) over `s1` (first).
//! * `s1`..`s5`: the beat waits while [`RxHeaderDecode`] works on its
//!   frame's window for [`RxHeaderDecode::LATENCY`] = 4 cycles; the decoder's
//!   verdict is there when the frame's first beat is in `s5`. (A beat word
//!   is zero in a stage without a beat, so yosys keeps these registers as
//!   flip-flops rather than shift registers.)
//! * `s5` -> `y`: per-beat control from the frame's context (loaded from the
//!   decoder at the first beat): does this beat produce an output beat, its
//!   `tkeep` (the lanes from the start lane up on the payload's first beat,
//!   the lanes below the payload's end on its last) and `tlast`, the
//!   destination (payload, raw, nowhere). The header is queued here. At the
//!   frame's last beat the frame's status (MAC error, too short or
//!   malformed, IPv4 checksum, ICRC applies, header sent) is computed in `y`
//!   and queued in `status`.
//! * `y` -> the 32-beat output FIFO: the beat as it is, with its `tkeep`
//!   and `tlast` (no byte moves: the payload stays in its wire lanes). One
//!   output beat per input beat at most.
//!
//! Then the output stage releases a frame's last beat (`tlast`) together with
//! its ICRC verdict and its status.
//!
//! **Ready/valid rule** (issue 9, item 3): no combinational path from one
//! port's `tready` to another port's `tready` or `tvalid`. `s_axis.tready`
//! is a register; `m_axis`/`m_raw` `tvalid` come from the FIFOs' output
//! registers; `m_hdr` is the header FIFO's output register; `m_axis.tready`
//! and `m_raw.tready` reach only the output FIFO's read side (and registers:
//! the occupancy counts, `done_*`). `make synth` shows no input-to-output
//! path (`in>out` is `-`).
//!
//! **No deadlock with a header consumer that waits for the verdict**: the
//! header FIFO stops the input only when it holds at least two headers (the
//! limit is far above 2); then the oldest header's frame has been taken
//! whole, and since nothing inside the pipeline ever waits, its payload and
//! verdict reach `m_axis` however long `m_hdr` is held. Likewise the output
//! FIFO stops the input only when it holds beats behind its head, so the
//! frame at its head has been taken whole and its verdict comes.

use super::{IcrcCheck, RxHdrExpand, RxHeaderDecode, RX_HDR_STORE_BITS};
use crate::axis::{AxisFifo, AxisIn, AxisOut, HdrOut};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Headers the header FIFO holds: 2^5 (and its output register).
const HDR_FIFO_LOG: usize = 5;
/// Beats the output FIFO holds: 2^5 (and its output register).
const OUT_FIFO_LOG: usize = 5;
/// Verdicts (and statuses) the verdict and status FIFOs hold: 2^6. They are
/// written on every verdict (status) without looking at their `tready`: one
/// waits there only for a frame whose last beat was taken and whose `tlast`
/// beat has not left the output FIFO, and that beat is in the FIFO or in a
/// pipeline slot.
const VERDICT_FIFO_LOG: usize = 6;
/// Width of a beat word in the pipeline: data, keep, last, MAC error, first, valid.
const BEAT_BITS: usize = 512 + 64 + 4;
/// Output FIFO occupancy (with its output register) below which the input
/// takes beats: every beat in a slot may still become one output beat, and
/// the occupancy the decision reads is a cycle old.
const OUT_LIMIT: usize = (1 << OUT_FIFO_LOG) + 1 - RxParse::SLOTS - 1;
/// Header FIFO occupancy below which the input takes beats: frames whose
/// first beat is in `e`..`s5` may still queue a header.
const HDR_LIMIT: usize = (1 << HDR_FIFO_LOG) + 1 - 6 - 1;
const _: () = assert!(OUT_LIMIT == 25 && HDR_LIMIT == 26 && BEAT_BITS == 580);
// the limits stop the input only with two or more entries queued (no deadlock)
const _: () = assert!(OUT_LIMIT >= 2 && HDR_LIMIT >= 2);
const _: () = assert!((1 << OUT_FIFO_LOG) + 1 + RxParse::SLOTS <= (1 << VERDICT_FIFO_LOG));

#[derive(LogicBlock, Default)]
pub struct RxParse {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<512, 64, 1>,
    pub m_hdr: HdrOut<1024>,
    pub m_axis: AxisOut<512, 64, 1>,
    pub m_raw: AxisOut<512, 64, 1>,
    /// Frame counters, one per outcome: 64 bits (they wrap after 3,900
    /// years of minimum-size frames at 100 Gb/s).
    pub cnt_roce: Signal<Out, Bits<64>>,
    pub cnt_raw: Signal<Out, Bits<64>>,
    pub cnt_malformed: Signal<Out, Bits<64>>,
    pub cnt_icrc: Signal<Out, Bits<64>>,
    pub cnt_ip_csum: Signal<Out, Bits<64>>,
    pub cnt_mac_err: Signal<Out, Bits<64>>,
    /// One pulse per frame as its fate is decided (the cycle after its last
    /// beat left), with the outcome
    /// (0 RoCE, 1 raw, 2 malformed, 3 ICRC, 4 IPv4 checksum, 5 MAC error).
    pub done_valid: Signal<Out, Bit>,
    pub done_code: Signal<Out, Bits<3>>,
    /// The frame put a header on `m_hdr` (so a replay can pair them up).
    pub done_hdr: Signal<Out, Bit>,

    icrc: IcrcCheck,
    decode: RxHeaderDecode,
    // ---- input: credits, the entry stage
    tready_q: Reg<Bit>,
    occ: Reg<Bits<6>>,
    hocc: Reg<Bits<6>>,
    in_frame: Reg<Bit>,
    taken: Signal<Local, Bit>,
    e_go: Signal<Local, Bit>,
    e_data: Reg<Bits<512>>,
    e_keep: Reg<Bits<64>>,
    e_last: Reg<Bit>,
    e_err: Reg<Bit>,
    e_first: Reg<Bit>,
    e_valid: Reg<Bit>,
    // ---- beat words while the decoder works (bit 579 valid, 578 first,
    // 577 MAC error, 576 last, 512.. keep, 0.. data)
    s1_zero: Signal<Local, Bit>,
    s1_empty: Reg<Bit>,
    s2_empty: Reg<Bit>,
    s3_empty: Reg<Bit>,
    s4_empty: Reg<Bit>,
    s5_empty: Reg<Bit>,
    y_empty: Reg<Bit>,
    s1: Reg<Bits<BEAT_BITS>>,
    s2: Reg<Bits<BEAT_BITS>>,
    s3: Reg<Bits<BEAT_BITS>>,
    s4: Reg<Bits<BEAT_BITS>>,
    s5: Reg<Bits<BEAT_BITS>>,
    // ---- per-beat control at s5, from the frame context
    ctx_dest: Reg<Bits<2>>,
    ctx_lane: Reg<Bits<6>>,
    ctx_start: Reg<Bit>,
    ctx_pfirst: Reg<Bit>,
    ctx_empty: Reg<Bit>,
    ctx_need: Reg<Bits<17>>,
    ctx_bad: Reg<Bit>,
    ctx_csum: Reg<Bit>,
    ctx_icrc: Reg<Bit>,
    ctx_err: Reg<Bit>,
    ctx_n: Reg<Bits<11>>,
    rem: Reg<Bits<17>>,
    done: Reg<Bit>,
    f_dest: Signal<Local, Bits<2>>,
    f_lane: Signal<Local, Bits<6>>,
    f_start: Signal<Local, Bit>,
    f_pfirst: Signal<Local, Bit>,
    f_empty: Signal<Local, Bit>,
    f_need: Signal<Local, Bits<17>>,
    f_bad: Signal<Local, Bit>,
    f_csum: Signal<Local, Bit>,
    f_icrc: Signal<Local, Bit>,
    f_err: Signal<Local, Bit>,
    f_n: Signal<Local, Bits<11>>,
    f_r: Signal<Local, Bits<17>>,
    f_done: Signal<Local, Bit>,
    active: Signal<Local, Bit>,
    r_nz: Signal<Local, Bit>,
    r_le64: Signal<Local, Bit>,
    keep_r: Signal<Local, Bits<64>>,
    keep_s: Signal<Local, Bits<64>>,
    emit_pl: Signal<Local, Bit>,
    ones64: Signal<Local, Bits<64>>,
    s5_valid: Signal<Local, Bit>,
    s5_first: Signal<Local, Bit>,
    s5_last: Signal<Local, Bit>,
    // ---- y: the beat with its control
    y: Reg<Bits<BEAT_BITS>>,
    y_emit: Reg<Bit>,
    y_okeep: Reg<Bits<64>>,
    y_olast: Reg<Bit>,
    y_dest: Reg<Bits<2>>,
    y_n: Reg<Bits<11>>,
    y_need: Reg<Bits<17>>,
    y_flags: Reg<Bits<5>>,
    need_m1: Signal<Local, Bits<17>>,
    long_enough: Signal<Local, Bit>,
    status_flags: Signal<Local, Bits<5>>,
    out_valid: Signal<Local, Bit>,
    /// Headers waiting for the consumer. A consumer may hold a header until
    /// its frame's verdict (the payload's last beat) has gone by.
    hdrs: AxisFifo<RX_HDR_STORE_BITS, 1, 1, HDR_FIFO_LOG>,
    expand: RxHdrExpand,
    // ---- FIFOs of outgoing beats (destination in tuser), of ICRC verdicts
    // and of frame statuses
    out_fifo: AxisFifo<512, 64, 2, OUT_FIFO_LOG>,
    verdicts: AxisFifo<1, 1, 1, VERDICT_FIFO_LOG>,
    status: AxisFifo<5, 1, 1, VERDICT_FIFO_LOG>,
    // ---- output stage
    head_dest: Signal<Local, Bits<2>>,
    head_bad: Signal<Local, Bit>,
    head_code: Signal<Local, Bits<3>>,
    can_go: Signal<Local, Bit>,
    pop_last: Signal<Local, Bit>,
    done_valid_q: Reg<Bit>,
    done_code_q: Reg<Bits<3>>,
    done_hdr_q: Reg<Bit>,
    cnt_sel: Signal<Local, Bits<64>>,
    cnt_inc: Signal<Local, Bits<64>>,
    c_roce: Reg<Bits<64>>,
    c_raw: Reg<Bits<64>>,
    c_malformed: Reg<Bits<64>>,
    c_icrc: Reg<Bits<64>>,
    c_csum: Reg<Bits<64>>,
    c_mac: Reg<Bits<64>>,
    kind: TypeTag<Self>,
}

impl RxParse {
    /// Pipeline slots a taken beat may be in before it reaches the output
    /// FIFO: `e`, `s1`..`s5`, `y`.
    pub const SLOTS: usize = 7;
    /// Cycles from the cycle a frame's first beat is taken to the cycle its
    /// header is valid on `m_hdr` (the second beat, if any, taken in the
    /// next cycle): `e`, `s1`..`s5`, then the header FIFO's two.
    pub const HDR_LATENCY: u64 = 2 + RxHeaderDecode::LATENCY + 2;
    /// Cycles from the cycle a frame beat is taken to the cycle the payload
    /// beat it makes is valid on `m_axis` (no stall; a last beat also waits
    /// for its verdict, which is as fast): `e`, `s1`..`s5`, `y`, then the
    /// output FIFO's two. For a frame without payload, its `tkeep = 0` beat
    /// counts from the frame's last beat.
    pub const PAYLOAD_LATENCY: u64 = 2 + RxHeaderDecode::LATENCY + 1 + 2;
}

impl Logic for RxParse {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            tready_q,
            occ,
            hocc,
            in_frame,
            e_data,
            e_keep,
            e_last,
            e_err,
            e_first,
            e_valid,
            s1_empty,
            s2_empty,
            s3_empty,
            s4_empty,
            s5_empty,
            y_empty,
            s1,
            s2,
            s3,
            s4,
            s5,
            ctx_dest,
            ctx_lane,
            ctx_start,
            ctx_pfirst,
            ctx_empty,
            ctx_need,
            ctx_bad,
            ctx_csum,
            ctx_icrc,
            ctx_err,
            ctx_n,
            rem,
            done,
            y,
            y_emit,
            y_okeep,
            y_olast,
            y_dest,
            y_n,
            y_need,
            y_flags,
            done_valid_q,
            done_code_q,
            done_hdr_q,
            c_roce,
            c_raw,
            c_malformed,
            c_icrc,
            c_csum,
            c_mac
        );
        self.icrc.clock.next = self.clock.val();
        self.icrc.reset.next = self.reset.val();
        self.decode.clock.next = self.clock.val();
        self.out_fifo.clock.next = self.clock.val();
        self.out_fifo.reset.next = self.reset.val();
        self.verdicts.clock.next = self.clock.val();
        self.verdicts.reset.next = self.reset.val();
        self.status.clock.next = self.clock.val();
        self.status.reset.next = self.reset.val();
        self.hdrs.clock.next = self.clock.val();
        self.hdrs.reset.next = self.reset.val();

        // ---- input: a beat is taken when the registered tready is high
        self.s_axis.tready.next = self.tready_q.q.val();
        self.taken.next = self.s_axis.tvalid.val() & self.tready_q.q.val();
        // the ICRC checker sees every beat the parser takes
        self.icrc.s_axis.tdata.next = self.s_axis.tdata.val();
        self.icrc.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.icrc.s_axis.tlast.next = self.s_axis.tlast.val();
        self.icrc.s_axis.tuser.next = self.s_axis.tuser.val();
        self.icrc.s_axis.tvalid.next = self.taken.val();
        if self.taken.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
            self.e_data.d.next = self.s_axis.tdata.val();
            self.e_keep.d.next = self.s_axis.tkeep.val();
            self.e_last.d.next = self.s_axis.tlast.val();
            self.e_err.d.next = self.s_axis.tuser.val().get_bit(0);
            self.e_first.d.next = !self.in_frame.q.val();
        }
        // a first beat that is not the last waits for its second
        self.e_go.next = self.e_valid.q.val() & (self.taken.val() | !self.e_first.q.val() | self.e_last.q.val());
        self.e_valid.d.next = self.taken.val() | (self.e_valid.q.val() & !self.e_go.val());
        // a stage without a beat holds zeros (the condition is a 1-for-zero
        // signal, so it maps to the flip-flops' reset pins, no inverter each)
        self.s1_zero.next = !self.e_go.val();
        self.s1_empty.d.next = self.s1_zero.val();
        self.s1.d.next = (bit_cast::<580, 1>(true.into()) << 579)
            | (bit_cast::<580, 1>(self.e_first.q.val().into()) << 578)
            | (bit_cast::<580, 1>(self.e_err.q.val().into()) << 577)
            | (bit_cast::<580, 1>(self.e_last.q.val().into()) << 576)
            | (bit_cast::<580, 64>(self.e_keep.q.val()) << 512)
            | bit_cast::<580, 512>(self.e_data.q.val());
        if self.s1_zero.val() {
            self.s1.d.next = 0.into();
        }
        self.s2_empty.d.next = self.s1_empty.q.val();
        self.s2.d.next = self.s1.q.val();
        if self.s1_empty.q.val() {
            self.s2.d.next = 0.into();
        }
        self.s3_empty.d.next = self.s2_empty.q.val();
        self.s3.d.next = self.s2.q.val();
        if self.s2_empty.q.val() {
            self.s3.d.next = 0.into();
        }
        self.s4_empty.d.next = self.s3_empty.q.val();
        self.s4.d.next = self.s3.q.val();
        if self.s3_empty.q.val() {
            self.s4.d.next = 0.into();
        }
        self.s5_empty.d.next = self.s4_empty.q.val();
        self.s5.d.next = self.s4.q.val();
        if self.s4_empty.q.val() {
            self.s5.d.next = 0.into();
        }
        self.y_empty.d.next = self.s5_empty.q.val();
        self.y.d.next = self.s5.q.val();
        if self.s5_empty.q.val() {
            self.y.d.next = 0.into();
        }

        // ---- the decoder's window: the second beat (in e) over the first (in s1)
        self.decode.window.next = (bit_cast::<1024, 512>(self.e_data.q.val()) << 512)
            | bit_cast::<1024, 512>(self.s1.q.val().get_bits::<512>(0));
        self.decode.one_beat.next = self.s1.q.val().get_bit(576);
        self.decode.idle.next = !(self.s1.q.val().get_bit(579) & self.s1.q.val().get_bit(578));

        // ---- s5: the frame's context (the decoder's verdict at its first beat)
        self.s5_valid.next = self.s5.q.val().get_bit(579);
        self.s5_first.next = self.s5.q.val().get_bit(578);
        self.s5_last.next = self.s5.q.val().get_bit(576);
        self.f_dest.next = self.ctx_dest.q.val();
        self.f_lane.next = self.ctx_lane.q.val();
        self.f_start.next = self.ctx_start.q.val();
        self.f_pfirst.next = self.ctx_pfirst.q.val();
        self.f_empty.next = self.ctx_empty.q.val();
        self.f_need.next = self.ctx_need.q.val();
        self.f_bad.next = self.ctx_bad.q.val();
        self.f_csum.next = self.ctx_csum.q.val();
        self.f_icrc.next = self.ctx_icrc.q.val();
        self.f_err.next = self.ctx_err.q.val() | self.s5.q.val().get_bit(577);
        self.f_n.next = self.ctx_n.q.val();
        self.f_r.next = self.rem.q.val();
        self.f_done.next = self.done.q.val();
        if self.s5_first.val() {
            // where the frame's beats go: 0 payload, 1 raw queue, 2 nowhere
            self.f_dest.next = 0.into();
            if self.decode.is_raw.val() {
                self.f_dest.next = 1.into();
            }
            if (self.decode.bad_reason.val() != 0) | (!self.decode.ip_csum_ok.val() & self.decode.is_roce.val()) {
                self.f_dest.next = 2.into();
            }
            // the payload stays in its wire lanes: it starts at lane
            // payload_off % 64 of beat 0 or 1
            self.f_lane.next = self.decode.payload_off.val().get_bits::<6>(0);
            self.f_start.next = self.decode.payload_off.val().get_bit(6);
            self.f_pfirst.next = !self.decode.payload_off.val().get_bit(6);
            self.f_empty.next = self.decode.payload_len.val() == 0;
            self.f_need.next = self.decode.need_len.val();
            self.f_bad.next = self.decode.bad_reason.val() != 0;
            self.f_csum.next = !self.decode.ip_csum_ok.val() & self.decode.is_roce.val();
            self.f_icrc.next = self.decode.is_roce.val();
            self.f_err.next = self.s5.q.val().get_bit(577);
            self.f_n.next = 0.into();
            // the payload's end, from lane 0 of the frame's first beat
            self.f_r.next =
                bit_cast::<17, 7>(self.decode.payload_off.val()) + bit_cast::<17, 16>(self.decode.payload_len.val());
            self.f_done.next = false;
        }
        // f_r: the payload's end from lane 0 of this beat (0 once past it).
        // Payload bytes: from the payload's first beat (its lanes from the
        // start lane up) to its end (the lanes below f_r), in their wire lanes
        self.active.next = !self.s5_first.val() | !self.f_start.val();
        self.r_nz.next = self.f_r.val() != 0;
        self.r_le64.next = self.f_r.val() <= 64;
        self.ones64.next = 0.into();
        self.ones64.next = !self.ones64.val();
        self.keep_r.next = !(self.ones64.val() << self.f_r.val().get_bits::<6>(0));
        if self.f_r.val().get_bits::<11>(6).any() {
            self.keep_r.next = self.ones64.val();
        }
        self.keep_s.next = self.ones64.val();
        if self.f_pfirst.val() {
            self.keep_s.next = self.ones64.val() << self.f_lane.val();
        }
        self.emit_pl.next = self.active.val() & self.r_nz.val() & !self.f_empty.val();
        self.y_dest.d.next = self.f_dest.val();
        self.y_n.d.next = self.f_n.val();
        self.y_need.d.next = self.f_need.val();
        // the payload: its beats, then (if none carried tlast) one at the frame's end
        self.y_emit.d.next = self.emit_pl.val() | (self.s5_last.val() & !self.f_done.val());
        self.y_okeep.d.next = self.keep_r.val() & self.keep_s.val();
        if self.f_empty.val() {
            self.y_okeep.d.next = 0.into();
        }
        self.y_olast.d.next = self.r_le64.val() | self.s5_last.val();
        if self.f_dest.val() == 1 {
            // raw frames pass as they are
            self.y_emit.d.next = true;
            self.y_okeep.d.next = self.s5.q.val().get_bits::<64>(512);
            self.y_olast.d.next = self.s5_last.val();
        }
        if self.f_dest.val() == 2 {
            // nothing but a zero-length last beat, which carries the verdict
            self.y_emit.d.next = self.s5_last.val();
            self.y_okeep.d.next = 0.into();
            self.y_olast.d.next = true;
        }
        // tuser of the status: [0] MAC error, [1] malformed (short: set in y),
        // [2] IPv4 checksum, [3] ICRC applies, [4] header sent
        self.y_flags.d.next = bit_cast::<5, 1>(self.f_err.val().into())
            | (bit_cast::<5, 1>(self.f_bad.val().into()) << 1)
            | (bit_cast::<5, 1>(self.f_csum.val().into()) << 2)
            | (bit_cast::<5, 1>(self.f_icrc.val().into()) << 3)
            | (bit_cast::<5, 1>((self.f_dest.val() == 0).into()) << 4);
        if self.s5_valid.val() {
            self.ctx_dest.d.next = self.f_dest.val();
            self.ctx_lane.d.next = self.f_lane.val();
            self.ctx_start.d.next = self.f_start.val();
            // the payload's first beat is the second when it starts there
            self.ctx_pfirst.d.next = self.s5_first.val() & self.f_start.val();
            self.ctx_empty.d.next = self.f_empty.val();
            self.ctx_need.d.next = self.f_need.val();
            self.ctx_bad.d.next = self.f_bad.val();
            self.ctx_csum.d.next = self.f_csum.val();
            self.ctx_icrc.d.next = self.f_icrc.val();
            self.ctx_err.d.next = self.f_err.val();
            self.ctx_n.d.next = self.f_n.val() + 1;
            self.rem.d.next = self.f_r.val() - 64;
            if self.r_le64.val() {
                self.rem.d.next = 0.into();
            }
            self.done.d.next = self.f_done.val() | (self.emit_pl.val() & self.r_le64.val());
        }
        if self.s5_empty.q.val() {
            self.y_emit.d.next = false;
            self.y_okeep.d.next = 0.into();
            self.y_olast.d.next = false;
            self.y_dest.d.next = 0.into();
            self.y_n.d.next = 0.into();
            self.y_need.d.next = 0.into();
            self.y_flags.d.next = 0.into();
        }
        // the header leaves as the first beat moves on
        self.hdrs.s_axis.tvalid.next = self.s5_valid.val()
            & self.s5_first.val()
            & self.decode.is_roce.val()
            & (self.decode.bad_reason.val() == 0)
            & self.decode.ip_csum_ok.val();
        self.hdrs.s_axis.tdata.next = self.decode.stored.val();
        self.hdrs.s_axis.tkeep.next = 1.into();
        self.hdrs.s_axis.tlast.next = true;
        self.hdrs.s_axis.tuser.next = 0.into();
        self.hdrs.m_axis.tready.next = self.m_hdr.tready.val();
        self.m_hdr.tvalid.next = self.hdrs.m_axis.tvalid.val();
        self.expand.stored.next = self.hdrs.m_axis.tdata.val();
        self.m_hdr.tdata.next = self.expand.hdr.val();

        // ---- y: at a frame's last beat, the frame holds byte need-1 (in an
        // earlier beat or in this one), and its status is queued
        self.need_m1.next = self.y_need.q.val() - 1;
        self.long_enough.next = (self.y_need.q.val() == 0)
            | (self.y_n.q.val() > self.need_m1.val().get_bits::<11>(6))
            | ((self.y_n.q.val() == self.need_m1.val().get_bits::<11>(6))
                & (self.y.q.val().get_bits::<64>(512) >> self.need_m1.val().get_bits::<6>(0)).get_bit(0));
        self.status_flags.next = self.y_flags.q.val();
        if !self.long_enough.val() {
            self.status_flags.next = self.y_flags.q.val() | 0x02;
        }
        self.status.s_axis.tvalid.next = self.y.q.val().get_bit(579) & self.y.q.val().get_bit(576);
        self.status.s_axis.tdata.next = self.status_flags.val();
        self.status.s_axis.tkeep.next = 1.into();
        self.status.s_axis.tlast.next = true;
        self.status.s_axis.tuser.next = 0.into();

        // ---- y: its output beat (the payload in its wire lanes, or a raw
        // beat) into the output FIFO (never full: the credits)
        self.out_valid.next = self.y.q.val().get_bit(579) & self.y_emit.q.val();
        self.out_fifo.s_axis.tvalid.next = self.out_valid.val();
        self.out_fifo.s_axis.tdata.next = self.y.q.val().get_bits::<512>(0);
        self.out_fifo.s_axis.tkeep.next = self.y_okeep.q.val();
        self.out_fifo.s_axis.tlast.next = self.y_olast.q.val();
        self.out_fifo.s_axis.tuser.next = self.y_dest.q.val();

        self.verdicts.s_axis.tvalid.next = self.icrc.verdict_valid.val();
        self.verdicts.s_axis.tdata.next = bit_cast::<1, 1>(self.icrc.verdict_icrc_ok.val().into());
        self.verdicts.s_axis.tkeep.next = 1.into();
        self.verdicts.s_axis.tlast.next = true;
        self.verdicts.s_axis.tuser.next = 0.into();

        // ---- output stage: a frame's last beat leaves with its verdict and status
        self.head_dest.next = self.out_fifo.m_axis.tuser.val();
        self.can_go.next =
            !self.out_fifo.m_axis.tlast.val() | (self.verdicts.m_axis.tvalid.val() & self.status.m_axis.tvalid.val());
        self.head_code.next = 0.into();
        if self.head_dest.val() == 1 {
            self.head_code.next = 1.into();
        }
        if self.status.m_axis.tdata.val().get_bit(3) & !self.verdicts.m_axis.tdata.val().get_bit(0) {
            self.head_code.next = 3.into();
        }
        if self.status.m_axis.tdata.val().get_bit(2) {
            self.head_code.next = 4.into();
        }
        if self.status.m_axis.tdata.val().get_bit(1) {
            self.head_code.next = 2.into();
        }
        if self.status.m_axis.tdata.val().get_bit(0) {
            self.head_code.next = 5.into();
        }
        self.head_bad.next =
            self.out_fifo.m_axis.tlast.val() & (self.head_code.val() != 0) & (self.head_code.val() != 1);
        self.m_axis.tdata.next = self.out_fifo.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.out_fifo.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.out_fifo.m_axis.tlast.val();
        self.m_axis.tuser.next = bit_cast::<1, 1>(self.head_bad.val().into());
        self.m_raw.tdata.next = self.out_fifo.m_axis.tdata.val();
        self.m_raw.tkeep.next = self.out_fifo.m_axis.tkeep.val();
        self.m_raw.tlast.next = self.out_fifo.m_axis.tlast.val();
        self.m_raw.tuser.next = bit_cast::<1, 1>(self.head_bad.val().into());
        self.m_axis.tvalid.next = self.out_fifo.m_axis.tvalid.val() & self.can_go.val() & (self.head_dest.val() == 0);
        self.m_raw.tvalid.next = self.out_fifo.m_axis.tvalid.val() & self.can_go.val() & (self.head_dest.val() == 1);
        self.out_fifo.m_axis.tready.next = self.can_go.val()
            & (((self.head_dest.val() == 0) & self.m_axis.tready.val())
                | ((self.head_dest.val() == 1) & self.m_raw.tready.val())
                | (self.head_dest.val() == 2));
        self.pop_last.next =
            self.out_fifo.m_axis.tvalid.val() & self.out_fifo.m_axis.tready.val() & self.out_fifo.m_axis.tlast.val();
        self.verdicts.m_axis.tready.next = self.pop_last.val();
        self.status.m_axis.tready.next = self.pop_last.val();
        self.done_valid_q.d.next = self.pop_last.val();
        self.done_code_q.d.next = self.head_code.val();
        self.done_hdr_q.d.next = self.status.m_axis.tdata.val().get_bit(4);
        self.done_valid.next = self.done_valid_q.q.val();
        self.done_code.next = self.done_code_q.q.val();
        self.done_hdr.next = self.done_hdr_q.q.val();
        // one frame decided per cycle at most: one incrementer for the six counters
        self.cnt_sel.next = self.c_roce.q.val();
        if self.done_code_q.q.val() == 1 {
            self.cnt_sel.next = self.c_raw.q.val();
        }
        if self.done_code_q.q.val() == 2 {
            self.cnt_sel.next = self.c_malformed.q.val();
        }
        if self.done_code_q.q.val() == 3 {
            self.cnt_sel.next = self.c_icrc.q.val();
        }
        if self.done_code_q.q.val() == 4 {
            self.cnt_sel.next = self.c_csum.q.val();
        }
        if self.done_code_q.q.val() == 5 {
            self.cnt_sel.next = self.c_mac.q.val();
        }
        self.cnt_inc.next = self.cnt_sel.val() + 1;
        if self.done_valid_q.q.val() {
            if self.done_code_q.q.val() == 0 {
                self.c_roce.d.next = self.cnt_inc.val();
            }
            if self.done_code_q.q.val() == 1 {
                self.c_raw.d.next = self.cnt_inc.val();
            }
            if self.done_code_q.q.val() == 2 {
                self.c_malformed.d.next = self.cnt_inc.val();
            }
            if self.done_code_q.q.val() == 3 {
                self.c_icrc.d.next = self.cnt_inc.val();
            }
            if self.done_code_q.q.val() == 4 {
                self.c_csum.d.next = self.cnt_inc.val();
            }
            if self.done_code_q.q.val() == 5 {
                self.c_mac.d.next = self.cnt_inc.val();
            }
        }
        self.cnt_roce.next = self.c_roce.q.val();
        self.cnt_raw.next = self.c_raw.q.val();
        self.cnt_malformed.next = self.c_malformed.q.val();
        self.cnt_icrc.next = self.c_icrc.q.val();
        self.cnt_ip_csum.next = self.c_csum.q.val();
        self.cnt_mac_err.next = self.c_mac.q.val();

        // ---- credits: the FIFOs' occupancy, and the input's tready from it
        self.occ.d.next = self.occ.q.val() + bit_cast::<6, 1>(self.out_valid.val().into())
            - bit_cast::<6, 1>((self.out_fifo.m_axis.tvalid.val() & self.out_fifo.m_axis.tready.val()).into());
        self.hocc.d.next = self.hocc.q.val() + bit_cast::<6, 1>(self.hdrs.s_axis.tvalid.val().into())
            - bit_cast::<6, 1>((self.hdrs.m_axis.tvalid.val() & self.m_hdr.tready.val()).into());
        self.tready_q.d.next = (self.occ.q.val() < 25) & (self.hocc.q.val() < 26);

        if self.reset.val() {
            // ready in the first cycle after reset (sources hold tvalid low
            // while in reset)
            self.tready_q.d.next = true;
            self.occ.d.next = 0.into();
            self.hocc.d.next = 0.into();
            self.in_frame.d.next = false;
            self.e_valid.d.next = false;
            self.s1_empty.d.next = true;
            self.s2_empty.d.next = true;
            self.s3_empty.d.next = true;
            self.s4_empty.d.next = true;
            self.s5_empty.d.next = true;
            self.y_empty.d.next = true;
            self.s1.d.next = 0.into();
            self.s2.d.next = 0.into();
            self.s3.d.next = 0.into();
            self.s4.d.next = 0.into();
            self.s5.d.next = 0.into();
            self.y.d.next = 0.into();
            self.done_valid_q.d.next = false;
            self.c_roce.d.next = 0.into();
            self.c_raw.d.next = 0.into();
            self.c_malformed.d.next = 0.into();
            self.c_icrc.d.next = 0.into();
            self.c_csum.d.next = 0.into();
            self.c_mac.d.next = 0.into();
        }
    }
}
