//! `RxParse`: the receive parser. Frames from the MAC in; out come
//!
//! * `m_hdr`: the parsed header of each RoCEv2 frame ([`RxHeaderDecode`]'s
//!   packed fields), before its payload;
//! * `m_axis`: the payload, moved to start at byte 0 of a beat, exactly
//!   `payload_len` bytes (one beat with `tkeep = 0` when there are none);
//! * `m_raw`: whole frames that are not RoCEv2 (ARP, other IP traffic), for
//!   the driver's raw queue. RoCEv2 to QP1 (the GSI: rdma_cm MADs) is UD
//!   traffic like any other, on `m_hdr` and `m_axis`.
//!
//! On both streams `tuser[0]` on the last beat says the frame is bad: its
//! ICRC or IPv4 checksum failed, it is shorter than its IP length, or the MAC
//! flagged it. Nothing downstream may act on a packet before that beat.
//! Malformed frames are dropped without output. Every frame ends up in
//! exactly one counter.
//!
//! Structure: a three-beat input pipeline (the decoder sees the first two
//! beats of a frame), the realigner (which may produce two beats from a
//! frame's last beat; the second waits one cycle in `pend` while the next
//! frame's first beat, which never produces one, goes by), a 32-beat FIFO that absorbs the ICRC
//! checker's latency, and the output stage, which releases a frame's last
//! beat together with its ICRC verdict.

use super::{IcrcCheck, RxHeaderDecode};
use crate::axis::{AxisFifo, AxisIn, AxisOut, HdrOut};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Headers the header FIFO holds: 2^2 (and its output register).
const HDR_FIFO_LOG: usize = 2;
/// Beats the output FIFO holds: 2^5.
const OUT_FIFO_LOG: usize = 5;
/// Verdicts the verdict FIFO holds: 2^6. It is written on every verdict
/// without looking at its `tready`: a verdict waits there only for a frame
/// whose last beat the parser took and that has not left through the output
/// FIFO, and every frame leaves at least one beat there (a zero-length last
/// beat when it has nothing else), so at most the FIFO's beats plus the
/// beats between input and FIFO (r1, r2, r3, pend, held, the FIFO's output
/// register: 6) can be waiting.
const VERDICT_FIFO_LOG: usize = 6;
const _: () = assert!((1 << OUT_FIFO_LOG) + 6 <= (1 << VERDICT_FIFO_LOG));

#[derive(LogicBlock)]
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
    /// One pulse per frame as its fate is decided, with the outcome
    /// (0 RoCE, 1 raw, 2 malformed, 3 ICRC, 4 IPv4 checksum, 5 MAC error).
    pub done_valid: Signal<Out, Bit>,
    pub done_code: Signal<Out, Bits<3>>,
    /// The frame put a header on `m_hdr` (so a replay can pair them up).
    pub done_hdr: Signal<Out, Bit>,

    icrc: IcrcCheck,
    decode: RxHeaderDecode,
    // ---- input pipeline: r1 (newest) -> r2 -> r3
    r1_data: Reg<Bits<512>>,
    r1_keep: Reg<Bits<64>>,
    r1_last: Reg<Bit>,
    r1_err: Reg<Bit>,
    r1_valid: Reg<Bit>,
    r1_first: Reg<Bit>,
    r2_data: Reg<Bits<512>>,
    r2_keep: Reg<Bits<64>>,
    r2_last: Reg<Bit>,
    r2_err: Reg<Bit>,
    r2_valid: Reg<Bit>,
    r2_first: Reg<Bit>,
    r3_data: Reg<Bits<512>>,
    r3_keep: Reg<Bits<64>>,
    r3_last: Reg<Bit>,
    r3_err: Reg<Bit>,
    r3_valid: Reg<Bit>,
    r3_first: Reg<Bit>,
    in_frame: Reg<Bit>,
    go: Signal<Local, Bit>,
    window_ok: Signal<Local, Bit>,
    // ---- frame context, loaded as a frame's first beat enters r3
    ctx_roce: Reg<Bit>,
    ctx_raw: Reg<Bit>,
    ctx_bad: Reg<Bit>,
    ctx_csum_bad: Reg<Bit>,
    ctx_need: Reg<Bits<17>>,
    ctx_start: Reg<Bits<1>>,
    /// Where the payload starts in its first beat: lane `4 ctx_sel + 2`.
    ctx_sel: Reg<Bits<4>>,
    ctx_err: Reg<Bit>,
    ctx_dest: Reg<Bits<2>>,
    ctx_icrc: Reg<Bit>,
    beat_idx: Reg<Bits<11>>,
    remaining: Reg<Bits<17>>,
    prev: Reg<Bits<512>>,
    // the payload's last beat waits here for the frame's last beat
    held: Reg<Bit>,
    held_data: Reg<Bits<512>>,
    held_keep: Reg<Bits<64>>,
    // a second beat produced in one cycle waits here one cycle
    pend: Reg<Bit>,
    pend_data: Reg<Bits<512>>,
    pend_keep: Reg<Bits<64>>,
    pend_last: Reg<Bit>,
    pend_flags: Reg<Bits<8>>,
    /// Headers waiting for the consumer. A consumer may hold a header until
    /// its frame's verdict (the payload's last beat) has gone by: the parser
    /// stalls only when this FIFO is full, never on `m_hdr.tready` itself,
    /// so the payload always gets through.
    hdrs: AxisFifo<1024, 1, 1, HDR_FIFO_LOG>,
    // realigner combinational
    beat_no: Signal<Local, Bits<11>>,
    rest: Signal<Local, Bits<17>>,
    left: Signal<Local, Bits<17>>,
    emit: Signal<Local, Bit>,
    direct: Signal<Local, Bits<512>>,
    tail_keep: Signal<Local, Bits<64>>,
    a_valid: Signal<Local, Bit>,
    a_data: Signal<Local, Bits<512>>,
    a_keep: Signal<Local, Bits<64>>,
    a_last: Signal<Local, Bit>,
    b_valid: Signal<Local, Bit>,
    frame_err: Signal<Local, Bit>,
    long_enough: Signal<Local, Bit>,
    need_idx: Signal<Local, Bits<11>>,
    aligned: Signal<Local, Bits<512>>,
    cat: Signal<Local, Bits<1024>>,
    take: Signal<Local, Bits<17>>,
    out_keep: Signal<Local, Bits<64>>,
    ones64: Constant<Bits<64>>,
    flags: Signal<Local, Bits<8>>,
    push: Signal<Local, Bit>,
    push_data: Signal<Local, Bits<512>>,
    push_keep: Signal<Local, Bits<64>>,
    push_last: Signal<Local, Bit>,
    push_flags: Signal<Local, Bits<8>>,
    // ---- FIFO of outgoing beats (flags in tuser) and of ICRC verdicts
    out_fifo: AxisFifo<512, 64, 8, OUT_FIFO_LOG>,
    /// One verdict per frame; deeper than the beat FIFO holds frames.
    verdicts: AxisFifo<1, 1, 1, VERDICT_FIFO_LOG>,
    // ---- output stage
    head_dest: Signal<Local, Bits<2>>,
    head_bad: Signal<Local, Bit>,
    head_code: Signal<Local, Bits<3>>,
    can_go: Signal<Local, Bit>,
    c_roce: Reg<Bits<64>>,
    c_raw: Reg<Bits<64>>,
    c_malformed: Reg<Bits<64>>,
    c_icrc: Reg<Bits<64>>,
    c_csum: Reg<Bits<64>>,
    c_mac: Reg<Bits<64>>,
    kind: TypeTag<Self>,
}

impl Default for RxParse {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_hdr: Default::default(),
            m_axis: Default::default(),
            m_raw: Default::default(),
            cnt_roce: Default::default(),
            cnt_raw: Default::default(),
            cnt_malformed: Default::default(),
            cnt_icrc: Default::default(),
            cnt_ip_csum: Default::default(),
            cnt_mac_err: Default::default(),
            done_valid: Default::default(),
            done_code: Default::default(),
            done_hdr: Default::default(),
            icrc: Default::default(),
            decode: Default::default(),
            r1_data: Default::default(),
            r1_keep: Default::default(),
            r1_last: Default::default(),
            r1_err: Default::default(),
            r1_valid: Default::default(),
            r1_first: Default::default(),
            r2_data: Default::default(),
            r2_keep: Default::default(),
            r2_last: Default::default(),
            r2_err: Default::default(),
            r2_valid: Default::default(),
            r2_first: Default::default(),
            r3_data: Default::default(),
            r3_keep: Default::default(),
            r3_last: Default::default(),
            r3_err: Default::default(),
            r3_valid: Default::default(),
            r3_first: Default::default(),
            in_frame: Default::default(),
            go: Default::default(),
            window_ok: Default::default(),
            ctx_roce: Default::default(),
            ctx_raw: Default::default(),
            ctx_bad: Default::default(),
            ctx_csum_bad: Default::default(),
            ctx_need: Default::default(),
            ctx_start: Default::default(),
            ctx_sel: Default::default(),
            ctx_err: Default::default(),
            ctx_dest: Default::default(),
            ctx_icrc: Default::default(),
            beat_idx: Default::default(),
            remaining: Default::default(),
            prev: Default::default(),
            held: Default::default(),
            held_data: Default::default(),
            held_keep: Default::default(),
            pend: Default::default(),
            pend_data: Default::default(),
            pend_keep: Default::default(),
            pend_last: Default::default(),
            pend_flags: Default::default(),
            hdrs: Default::default(),
            beat_no: Default::default(),
            rest: Default::default(),
            left: Default::default(),
            emit: Default::default(),
            direct: Default::default(),
            tail_keep: Default::default(),
            a_valid: Default::default(),
            a_data: Default::default(),
            a_keep: Default::default(),
            a_last: Default::default(),
            b_valid: Default::default(),
            frame_err: Default::default(),
            long_enough: Default::default(),
            need_idx: Default::default(),
            aligned: Default::default(),
            cat: Default::default(),
            take: Default::default(),
            out_keep: Default::default(),
            ones64: Constant::new(u64::MAX.into()),
            flags: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            push_keep: Default::default(),
            push_last: Default::default(),
            push_flags: Default::default(),
            out_fifo: Default::default(),
            verdicts: Default::default(),
            head_dest: Default::default(),
            head_bad: Default::default(),
            head_code: Default::default(),
            can_go: Default::default(),
            c_roce: Default::default(),
            c_raw: Default::default(),
            c_malformed: Default::default(),
            c_icrc: Default::default(),
            c_csum: Default::default(),
            c_mac: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for RxParse {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r1_data,
            r1_keep,
            r1_last,
            r1_err,
            r1_valid,
            r1_first,
            r2_data,
            r2_keep,
            r2_last,
            r2_err,
            r2_valid,
            r2_first,
            r3_data,
            r3_keep,
            r3_last,
            r3_err,
            r3_valid,
            r3_first,
            in_frame,
            ctx_roce,
            ctx_raw,
            ctx_bad,
            ctx_csum_bad,
            ctx_need,
            ctx_start,
            ctx_sel,
            ctx_err,
            ctx_dest,
            ctx_icrc,
            beat_idx,
            remaining,
            prev,
            held,
            held_data,
            held_keep,
            pend,
            pend_data,
            pend_keep,
            pend_last,
            pend_flags,
            c_roce,
            c_raw,
            c_malformed,
            c_icrc,
            c_csum,
            c_mac
        );
        self.icrc.clock.next = self.clock.val();
        self.icrc.reset.next = self.reset.val();
        self.out_fifo.clock.next = self.clock.val();
        self.out_fifo.reset.next = self.reset.val();
        self.verdicts.clock.next = self.clock.val();
        self.verdicts.reset.next = self.reset.val();
        self.hdrs.clock.next = self.clock.val();
        self.hdrs.reset.next = self.reset.val();

        // ---- input pipeline. Everything moves together (`go`); r1 may also
        // fill while empty. A first beat leaves r2 only with its second beat
        // behind it (or as the frame's last), so the decoder sees both.
        self.window_ok.next =
            !(self.r2_valid.q.val() & self.r2_first.q.val() & !self.r2_last.q.val() & !self.r1_valid.q.val());
        // room for this cycle's push and the header; a last beat that may
        // produce two beats waits while one is still pending (never seen in
        // valid traffic: a frame's first beat always clears `pend`)
        self.go.next = self.window_ok.val()
            & !(self.pend.q.val() & self.r3_valid.q.val() & self.r3_last.q.val())
            & self.out_fifo.s_axis.tready.val()
            & self.hdrs.s_axis.tready.val();
        self.s_axis.tready.next = self.go.val() | !self.r1_valid.q.val();
        // the ICRC checker sees every beat the parser takes
        self.icrc.s_axis.tdata.next = self.s_axis.tdata.val();
        self.icrc.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.icrc.s_axis.tlast.next = self.s_axis.tlast.val();
        self.icrc.s_axis.tuser.next = self.s_axis.tuser.val();
        self.icrc.s_axis.tvalid.next = self.s_axis.tvalid.val() & (self.go.val() | !self.r1_valid.q.val());
        if self.s_axis.tvalid.val() & (self.go.val() | !self.r1_valid.q.val()) {
            self.in_frame.d.next = !self.s_axis.tlast.val();
        }
        if self.go.val() | !self.r1_valid.q.val() {
            self.r1_data.d.next = self.s_axis.tdata.val();
            self.r1_keep.d.next = self.s_axis.tkeep.val();
            self.r1_last.d.next = self.s_axis.tlast.val();
            self.r1_err.d.next = self.s_axis.tuser.val().get_bit(0);
            self.r1_valid.d.next = self.s_axis.tvalid.val();
            self.r1_first.d.next = !self.in_frame.q.val();
        }
        if self.go.val() {
            self.r2_data.d.next = self.r1_data.q.val();
            self.r2_keep.d.next = self.r1_keep.q.val();
            self.r2_last.d.next = self.r1_last.q.val();
            self.r2_err.d.next = self.r1_err.q.val();
            self.r2_valid.d.next = self.r1_valid.q.val();
            self.r2_first.d.next = self.r1_first.q.val();
            self.r3_data.d.next = self.r2_data.q.val();
            self.r3_keep.d.next = self.r2_keep.q.val();
            self.r3_last.d.next = self.r2_last.q.val();
            self.r3_err.d.next = self.r2_err.q.val();
            self.r3_valid.d.next = self.r2_valid.q.val();
            self.r3_first.d.next = self.r2_first.q.val();
        }
        // ---- the decoder's window: the first beat (bytes past the end zeroed) and the second
        self.decode.window.next = bit_cast::<1024, 512>(self.r2_data.q.val());
        if !self.r2_last.q.val() {
            self.decode.window.next =
                (bit_cast::<1024, 512>(self.r1_data.q.val()) << 512) | bit_cast::<1024, 512>(self.r2_data.q.val());
        }
        // ---- frame context and header, as the first beat moves into r3
        if self.go.val() & self.r2_valid.q.val() & self.r2_first.q.val() {
            self.ctx_roce.d.next = self.decode.is_roce.val() & (self.decode.bad_reason.val() == 0);
            self.ctx_raw.d.next = self.decode.is_raw.val() & (self.decode.bad_reason.val() == 0);
            self.ctx_bad.d.next = self.decode.bad_reason.val() != 0;
            self.ctx_csum_bad.d.next = !self.decode.ip_csum_ok.val();
            self.ctx_need.d.next = self.decode.need_len.val();
            self.ctx_start.d.next = self.decode.payload_off.val().get_bits::<1>(6);
            // a RoCEv2 payload starts 2 bytes into a 4-byte word (a 14- or
            // 18-byte Ethernet header, then whole words): 16 possible lanes
            self.ctx_sel.d.next = self.decode.payload_off.val().get_bits::<4>(2);
            self.remaining.d.next = bit_cast::<17, 16>(self.decode.payload_len.val());
            // where the frame's beats go: 0 payload, 1 raw queue, 2 nowhere
            self.ctx_dest.d.next = 0.into();
            if self.decode.is_raw.val() {
                self.ctx_dest.d.next = 1.into();
            }
            if (self.decode.bad_reason.val() != 0) | (!self.decode.ip_csum_ok.val() & self.decode.is_roce.val()) {
                self.ctx_dest.d.next = 2.into();
            }
            self.ctx_icrc.d.next = self.decode.is_roce.val();
            if self.decode.is_raw.val() {
                self.ctx_start.d.next = 0.into();
            }
        }
        self.hdrs.s_axis.tvalid.next = self.go.val()
            & self.r2_valid.q.val()
            & self.r2_first.q.val()
            & self.decode.is_roce.val()
            & (self.decode.bad_reason.val() == 0)
            & self.decode.ip_csum_ok.val();
        self.hdrs.s_axis.tdata.next = self.decode.hdr.val();
        self.hdrs.s_axis.tkeep.next = 1.into();
        self.hdrs.s_axis.tlast.next = true;
        self.hdrs.s_axis.tuser.next = 0.into();
        self.hdrs.m_axis.tready.next = self.m_hdr.tready.val();
        self.m_hdr.tvalid.next = self.hdrs.m_axis.tvalid.val();
        self.m_hdr.tdata.next = self.hdrs.m_axis.tdata.val();

        // ---- realigner at r3: beat `beat_no` of the frame
        self.beat_no.next = self.beat_idx.q.val();
        self.frame_err.next = self.ctx_err.q.val() | self.r3_err.q.val();
        if self.r3_first.q.val() {
            self.beat_no.next = 0.into();
            self.frame_err.next = self.r3_err.q.val();
        }
        // the frame holds byte need-1: in an earlier beat, or in this last one
        self.need_idx.next = (self.ctx_need.q.val() - 1).get_bits::<11>(6);
        self.long_enough.next = (self.ctx_need.q.val() == 0)
            | (self.beat_no.val() > self.need_idx.val())
            | ((self.beat_no.val() == self.need_idx.val())
                & (self.r3_keep.q.val() >> (self.ctx_need.q.val() - 1).get_bits::<6>(0)).get_bit(0));
        // payload bytes from this beat and the one before, shifted to byte 0
        self.cat.next = (bit_cast::<1024, 512>(self.r3_data.q.val()) << 512) | bit_cast::<1024, 512>(self.prev.q.val());
        // a fixed 2-byte shift, then one by whole words (4 mux stages, not 6)
        self.aligned.next =
            ((self.cat.val() >> 16) >> (bit_cast::<10, 4>(self.ctx_sel.q.val()) << 5)).get_bits::<512>(0);
        self.direct.next = (self.r3_data.q.val() >> 16) >> (bit_cast::<10, 4>(self.ctx_sel.q.val()) << 5);
        self.take.next = 64.into();
        if self.remaining.q.val() < 64 {
            self.take.next = self.remaining.q.val();
        }
        self.out_keep.next = !(self.ones64.val() << self.take.val().get_bits::<7>(0));
        if self.take.val() == 64 {
            self.out_keep.next = self.ones64.val();
        }
        self.rest.next = self.remaining.q.val() - self.take.val();
        // a payload beat is due once the beat after the payload's first is here
        self.emit.next = (self.ctx_dest.q.val() == 0)
            & (self.beat_no.val() > bit_cast::<11, 1>(self.ctx_start.q.val()))
            & (self.remaining.q.val() != 0);
        // payload bytes still unsent after this beat
        self.left.next = self.remaining.q.val();
        if self.emit.val() {
            self.left.next = self.rest.val();
        }
        // tuser: [1:0] destination, [2] MAC error, [3] short or malformed, [4] IPv4 checksum, [5] ICRC applies,
        // [6] header sent
        self.flags.next = bit_cast::<8, 2>(self.ctx_dest.q.val());
        if self.frame_err.val() {
            self.flags.next = self.flags.val() | 0x04;
        }
        if !self.long_enough.val() | self.ctx_bad.q.val() {
            self.flags.next = self.flags.val() | 0x08;
        }
        if self.ctx_csum_bad.q.val() & self.ctx_icrc.q.val() {
            self.flags.next = self.flags.val() | 0x10;
        }
        if self.ctx_icrc.q.val() {
            self.flags.next = self.flags.val() | 0x20;
        }
        if self.ctx_dest.q.val() == 0 {
            // RoCE frames that reach the payload stream had their header sent
            self.flags.next = self.flags.val() | 0x40;
        }
        // payload bytes that lie in this beat alone (the last output of a frame)
        self.tail_keep.next = !(self.ones64.val() << self.left.val().get_bits::<7>(0));
        if self.left.val() >= 64 {
            self.tail_keep.next = self.ones64.val();
        }
        // up to two beats from this input beat: `a`, then `b`
        self.a_valid.next = false;
        self.a_data.next = self.aligned.val();
        self.a_keep.next = self.out_keep.val();
        self.a_last.next = false;
        self.b_valid.next = false;
        if self.r3_valid.q.val() & self.go.val() {
            self.beat_idx.d.next = self.beat_no.val() + 1;
            self.ctx_err.d.next = self.frame_err.val();
            self.prev.d.next = self.r3_data.q.val();
            if self.ctx_dest.q.val() == 1 {
                // raw frames pass as they are
                self.a_valid.next = true;
                self.a_data.next = self.r3_data.q.val();
                self.a_keep.next = self.r3_keep.q.val();
                self.a_last.next = self.r3_last.q.val();
            } else if self.emit.val() {
                if !self.r3_last.q.val() {
                    // (on the last beat the next frame's context loads instead)
                    self.remaining.d.next = self.rest.val();
                }
                if self.rest.val() != 0 {
                    self.a_valid.next = true;
                } else if self.r3_last.q.val() {
                    self.a_valid.next = true;
                    self.a_last.next = true;
                } else {
                    // the payload's last beat waits for the frame's end (flags)
                    self.held.d.next = true;
                    self.held_data.d.next = self.aligned.val();
                    self.held_keep.d.next = self.out_keep.val();
                }
            }
            if self.r3_last.q.val() & (self.ctx_dest.q.val() != 1) {
                if self.held.q.val() {
                    self.a_valid.next = true;
                    self.a_data.next = self.held_data.q.val();
                    self.a_keep.next = self.held_keep.q.val();
                    self.a_last.next = true;
                    self.held.d.next = false;
                } else if (self.ctx_dest.q.val() == 0) & (self.left.val() != 0) {
                    // the rest of the payload lies in this beat
                    if self.a_valid.val() {
                        self.b_valid.next = true;
                    } else {
                        self.a_valid.next = true;
                        self.a_data.next = self.direct.val();
                        self.a_keep.next = self.tail_keep.val();
                        self.a_last.next = true;
                    }
                } else if !self.a_valid.val() {
                    // nothing (more) to send: a zero-length last beat carries the verdict
                    self.a_valid.next = true;
                    self.a_keep.next = 0.into();
                    self.a_last.next = true;
                }
            }
        }
        // into the FIFO in order: the pending beat, then `a`, then `b`
        self.push.next = self.pend.q.val() | self.a_valid.val();
        self.push_data.next = self.a_data.val();
        self.push_keep.next = self.a_keep.val();
        self.push_last.next = self.a_last.val();
        self.push_flags.next = self.flags.val();
        if self.pend.q.val() {
            self.push_data.next = self.pend_data.q.val();
            self.push_keep.next = self.pend_keep.q.val();
            self.push_last.next = self.pend_last.q.val();
            self.push_flags.next = self.pend_flags.q.val();
        }
        if self.out_fifo.s_axis.tready.val() {
            self.pend.d.next = false;
            if self.pend.q.val() & self.a_valid.val() {
                self.pend.d.next = true;
                self.pend_data.d.next = self.a_data.val();
                self.pend_keep.d.next = self.a_keep.val();
                self.pend_last.d.next = self.a_last.val();
                self.pend_flags.d.next = self.flags.val();
            }
            if self.b_valid.val() {
                self.pend.d.next = true;
                self.pend_data.d.next = self.direct.val();
                self.pend_keep.d.next = self.tail_keep.val();
                self.pend_last.d.next = true;
                self.pend_flags.d.next = self.flags.val();
            }
        }
        self.out_fifo.s_axis.tvalid.next = self.push.val();
        self.out_fifo.s_axis.tdata.next = self.push_data.val();
        self.out_fifo.s_axis.tkeep.next = self.push_keep.val();
        self.out_fifo.s_axis.tlast.next = self.push_last.val();
        self.out_fifo.s_axis.tuser.next = self.push_flags.val();

        self.verdicts.s_axis.tvalid.next = self.icrc.verdict_valid.val();
        self.verdicts.s_axis.tdata.next = bit_cast::<1, 1>(self.icrc.verdict_icrc_ok.val().into());
        self.verdicts.s_axis.tkeep.next = 1.into();
        self.verdicts.s_axis.tlast.next = true;
        self.verdicts.s_axis.tuser.next = 0.into();

        // ---- output stage
        self.head_dest.next = self.out_fifo.m_axis.tuser.val().get_bits::<2>(0);
        self.can_go.next = !self.out_fifo.m_axis.tlast.val() | self.verdicts.m_axis.tvalid.val();
        self.head_code.next = 0.into();
        if self.head_dest.val() == 1 {
            self.head_code.next = 1.into();
        }
        if self.out_fifo.m_axis.tuser.val().get_bit(5) & !self.verdicts.m_axis.tdata.val().get_bit(0) {
            self.head_code.next = 3.into();
        }
        if self.out_fifo.m_axis.tuser.val().get_bit(4) {
            self.head_code.next = 4.into();
        }
        if self.out_fifo.m_axis.tuser.val().get_bit(3) {
            self.head_code.next = 2.into();
        }
        if self.out_fifo.m_axis.tuser.val().get_bit(2) {
            self.head_code.next = 5.into();
        }
        self.head_bad.next = (self.head_code.val() != 0) & (self.head_code.val() != 1);
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
        self.verdicts.m_axis.tready.next =
            self.out_fifo.m_axis.tvalid.val() & self.out_fifo.m_axis.tready.val() & self.out_fifo.m_axis.tlast.val();
        self.done_valid.next = self.verdicts.m_axis.tready.val();
        self.done_code.next = self.head_code.val();
        self.done_hdr.next = self.out_fifo.m_axis.tuser.val().get_bit(6);
        if self.verdicts.m_axis.tready.val() {
            if self.head_code.val() == 0 {
                self.c_roce.d.next = self.c_roce.q.val() + 1;
            }
            if self.head_code.val() == 1 {
                self.c_raw.d.next = self.c_raw.q.val() + 1;
            }
            if self.head_code.val() == 2 {
                self.c_malformed.d.next = self.c_malformed.q.val() + 1;
            }
            if self.head_code.val() == 3 {
                self.c_icrc.d.next = self.c_icrc.q.val() + 1;
            }
            if self.head_code.val() == 4 {
                self.c_csum.d.next = self.c_csum.q.val() + 1;
            }
            if self.head_code.val() == 5 {
                self.c_mac.d.next = self.c_mac.q.val() + 1;
            }
        }
        self.cnt_roce.next = self.c_roce.q.val();
        self.cnt_raw.next = self.c_raw.q.val();
        self.cnt_malformed.next = self.c_malformed.q.val();
        self.cnt_icrc.next = self.c_icrc.q.val();
        self.cnt_ip_csum.next = self.c_csum.q.val();
        self.cnt_mac_err.next = self.c_mac.q.val();

        if self.reset.val() {
            self.r1_valid.d.next = false;
            self.r2_valid.d.next = false;
            self.r3_valid.d.next = false;
            self.in_frame.d.next = false;
            self.held.d.next = false;
            self.pend.d.next = false;
            self.c_roce.d.next = 0.into();
            self.c_raw.d.next = 0.into();
            self.c_malformed.d.next = 0.into();
            self.c_icrc.d.next = 0.into();
            self.c_csum.d.next = 0.into();
            self.c_mac.d.next = 0.into();
        }
    }
}
