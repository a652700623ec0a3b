//! `ReqDecide`: the decision stage of [`ReqFetch`](super::ReqFetch), two
//! registers deep. D1 takes the head grant's `qpc` and `qps` words (read by
//! the parent from its slot LUTRAMs) into field registers, with the
//! not-started substitutions (`REQ_STARTED` clear: NEXT_PSN = SENT_END =
//! SQ_PSN, cursor 0/0, RD_ATOMIC_STARTED 0; `COMP_STARTED` clear: UNA =
//! SQ_PSN, RD_ATOMIC_DONE 0). D2 registers the arithmetic: `go` (RTS or ERR, or
//! any state with `resp_err` (RTR: a responder that failed before its QP sent), work,
//! and for a normal grant no RNR wait and room; a flush grant below), the WQE's address, the job context and the write-back context
//! (layouts below), and then acts: `issue` (a WQE read, when the parent's
//! command register is free) or `stop` (a done without `more`, when the
//! parent's done register is free for it).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `head_ready`, `head_slot`, `head_qpn`, `head_bad`, `head_rewind` | in | the grant at the head of the grant order, both answers in; its slot; its QPN; a cache `err`; a go-back-N pending for its QP |
//! | `qpc`, `qps`, `resp_err` | in | the head slot's `qpc` bytes 0..64 and `qps` bytes 0..25; its responder in error (`qps.RESP_STARTED` and `IN_PROGRESS` ERROR) |
//! | `issue_free`, `stop_free` | in | the DMA command register free; the done register free for D2 (no higher source) |
//! | `take` | out | D1 takes the head grant (the parent pops the grant order) |
//! | `issue`, `stop` | out | D2 acts: a WQE read of `addr` with `jctx`/`wctx` for `slot`, or a done of `slot` (QPN in `wctx`) |
//! | `base`, `log` | out | with `issue`: the send ring of the WQE read, for `SqAhead` |
//!
//! **Go-back-N.** With `head_rewind` (and the requester started), D1 puts
//! the cursor at the completer's head: NEXT_PSN = UNA, CURSOR_WQE =
//! HEAD_WQE, CURSOR_PKT = UNA - HEAD_FIRST_PSN (the completer's start
//! values before its first use). D1 registers both cursors, D2 chooses
//! (`rw`). The same when NEXT_PSN is before UNA: the ACKs of a resend's
//! first transmissions came back while it was under way, so its cursor is
//! behind what is acknowledged (without this the window NEXT_PSN - UNA
//! wraps to "full" and the QP never sends again: found by 10^4 messages at
//! 1 % loss). A job whose first PSN is before SENT_END
//! is a `resend` (jctx bit 155): its WQE is not a first send (bit 154
//! clear: no READ/atomic limit or fence check, no RD_ATOMIC_STARTED count,
//! no inflight PUSH).
//!
//! **Flush grants** (`ReqFetch`'s **Flush**). `qps.REQ_REFUSED` (with
//! REQ_STARTED), `COMP_ERROR` (with COMP_STARTED), `qpc.STATE` ERR or the
//! responder in error (`resp_err`: a fatal NAK it sent) makes
//! the grant a flush grant (`d1_flush`): never rewound, no window or RNR
//! wait; but with ERR or `resp_err` alone (`d1_errq`: the driver's modify
//! or the responder's failure, the completer not yet in error) no job: a
//! stop with `poke`, for which the parent sends
//! the completer a record (`m_err`) that flushes its list, writes
//! COMP_ERROR and wakes the QP, whose next grant flushes from HEAD_WQE
//! (the cursor may point at WQEs the completer already completed, or at a
//! partly sent one whose entry is its own); a stop of a grant whose
//! completer is in error (nothing left to flush) carries `cerr`, for which
//! the parent asks the responder to flush the receive queue
//! (`ReqFetch::m_rq_flush`); its job
//! (jctx bit 156, a first send, never a resend, CURSOR_PKT 0) names the
//! cursor's WQE, or CURSOR_WQE + 1 (`d1_cwqe1`, its address in `d2_addr1`)
//! when the cursor's was partly sent, or, with COMP_ERROR and HEAD_WQE past
//! that (16-bit serial), HEAD_WQE with NEXT_PSN = SENT_END. `go` compares
//! each candidate with SQ_PROD from its D1 register and chooses after.
//!
//! The job's packet budget is the window's room, and at most up to the
//! next packet with AckReq (every [`REQ_ACK_REQ_EVERY`]-th of a message:
//! `REQ_ACK_REQ_EVERY - CURSOR_PKT mod REQ_ACK_REQ_EVERY`), so each AckReq
//! packet ends its job: the job's write-back (SENT_END) is in the `qps`
//! entry before that packet is even on the wire, and its ACK is never taken
//! for a PSN not yet sent (the completer's check) and dropped.
//!
//! Latency: a grant at the head with both answers in is in D1 the next
//! cycle and in D2 the cycle after; D2 acts in the cycle its output is free.
//! One grant per cycle through each register.

use super::{REQ_ACK_REQ_EVERY, REQ_QPN_BITS, REQ_WCTX_BITS};
use super::{REQ_FETCH_QPS_BITS, REQ_JCTX_BITS};
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

// the literal 64 of `update` (a named constant would have to join `consts::NAMED`)
const _: () = assert!(REQ_ACK_REQ_EVERY == 64, "the AckReq period is the literal 64");
const _: () = assert!(RF_MAX_UNACKED == 2 * REQ_ACK_REQ_EVERY, "128 - (64 - c) is 64 | c");

#[derive(LogicBlock, Default)]
pub struct ReqDecide {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub head_ready: Signal<In, Bit>,
    pub head_slot: Signal<In, Bits<SCHED_SLOT_BITS>>,
    pub head_qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    pub head_bad: Signal<In, Bit>,
    /// A go-back-N is pending for the head grant's QP (`ReqFetch`'s rewind table).
    pub head_rewind: Signal<In, Bit>,
    pub qpc: Signal<In, Bits<512>>,
    pub qps: Signal<In, Bits<REQ_FETCH_QPS_BITS>>,
    /// The QP's responder is in error (`qps.RESP_STARTED` and `IN_PROGRESS`
    /// ERROR: it sent a fatal NAK): the QP is in error as in ERR.
    pub resp_err: Signal<In, Bit>,
    pub issue_free: Signal<In, Bit>,
    pub stop_free: Signal<In, Bit>,
    pub take: Signal<Out, Bit>,
    pub issue: Signal<Out, Bit>,
    pub stop: Signal<Out, Bit>,
    /// With `stop`: a grant of a QP in ERR whose completer is not in error
    /// yet; the parent asks the completer for its flush.
    pub poke: Signal<Out, Bit>,
    /// With `stop`: the QP's completer is in error and its send queue has
    /// nothing left to flush; the parent asks the responder to flush the
    /// receive queue (`ReqFetch::m_rq_flush`).
    pub cerr: Signal<Out, Bit>,
    pub slot: Signal<Out, Bits<SCHED_SLOT_BITS>>,
    pub addr: Signal<Out, Bits<64>>,
    /// The send ring of the WQE read (`SQ_BASE`, `SQ_LOG_SIZE`), for `SqAhead`.
    pub base: Signal<Out, Bits<64>>,
    pub log: Signal<Out, Bits<4>>,
    pub jctx: Signal<Out, Bits<REQ_JCTX_BITS>>,
    pub wctx: Signal<Out, Bits<REQ_WCTX_BITS>>,
    // ---- D1: the fields
    d1_v: Reg<Bit>,
    d1_slot: Reg<Bits<SCHED_SLOT_BITS>>,
    d1_qpn: Reg<Bits<REQ_QPN_BITS>>,
    d1_ok: Reg<Bit>,
    d1_prod: Reg<Bits<16>>,
    d1_base: Reg<Bits<64>>,
    d1_log: Reg<Bits<4>>,
    d1_maxrd: Reg<Bits<8>>,
    d1_dest: Reg<Bits<24>>,
    d1_pkey: Reg<Bits<16>>,
    d1_pd: Reg<Bits<24>>,
    d1_pmtu: Reg<Bits<3>>,
    d1_next: Reg<Bits<24>>,
    d1_sent: Reg<Bits<24>>,
    d1_cwqe: Reg<Bits<16>>,
    d1_cpkt: Reg<Bits<24>>,
    d1_rdst: Reg<Bits<5>>,
    d1_una: Reg<Bits<24>>,
    d1_rddone: Reg<Bits<5>>,
    d1_tmo: Reg<Bits<5>>,
    /// CURSOR_PKT is 0 (registered: beside the resend compare, not after it)
    d1_c0: Reg<Bit>,
    /// The cursor at the completer's head (a rewind, or NEXT_PSN behind
    /// UNA): its SQ index, packet, packet 0, AckReq distance and limit
    d1_rew: Reg<Bit>,
    d1_hwqe: Reg<Bits<16>>,
    d1_rpkt: Reg<Bits<24>>,
    d1_rc0: Reg<Bit>,
    d1_rackb: Reg<Bits<7>>,
    d1_rlim: Reg<Bits<7>>,
    /// Packets up to and including the next one with AckReq (1..=64), and
    /// 128 - that: the window (NEXT_PSN - UNA) below which it is the budget.
    d1_ackb: Reg<Bits<7>>,
    d1_lim: Reg<Bits<7>>,
    /// A flush grant (module doc): the requester refused a WQE, or the
    /// completer is in error (`d1_cerr`); CURSOR_WQE + 1.
    d1_flush: Reg<Bit>,
    d1_cerr: Reg<Bit>,
    /// The flush grant's only source is `qpc.STATE` ERR (the driver's
    /// modify): it waits for the completer while PSNs are outstanding.
    d1_errq: Reg<Bit>,
    d1_cwqe1: Reg<Bits<16>>,
    // ---- D2: the decision
    d2_v: Reg<Bit>,
    d2_slot: Reg<Bits<SCHED_SLOT_BITS>>,
    d2_go: Reg<Bit>,
    d2_poke: Reg<Bit>,
    d2_cerr: Reg<Bit>,
    d2_addr: Reg<Bits<64>>,
    d2_base: Reg<Bits<64>>,
    d2_log: Reg<Bits<4>>,
    d2_haddr: Reg<Bits<64>>,
    d2_rw: Reg<Bit>,
    /// The flush job's WQE is the one after the cursor's (`d2_addr1`).
    d2_s1: Reg<Bit>,
    d2_addr1: Reg<Bits<64>>,
    d2_jctx: Reg<Bits<REQ_JCTX_BITS>>,
    d2_wctx: Reg<Bits<REQ_WCTX_BITS>>,
    // ---- locals
    d1_load: Signal<Local, Bit>,
    d2_load: Signal<Local, Bit>,
    d2_act: Signal<Local, Bit>,
    win: Signal<Local, Bits<24>>,
    rdout: Signal<Local, Bits<5>>,
    idx: Signal<Local, Bits<16>>,
    max_win: Signal<Local, Bits<24>>,
    room: Signal<Local, Bits<24>>,
    budget: Signal<Local, Bits<8>>,
    una_eff: Signal<Local, Bits<24>>,
    head_wqe: Signal<Local, Bits<16>>,
    head_first: Signal<Local, Bits<24>>,
    rew_pkt: Signal<Local, Bits<24>>,
    resend: Signal<Local, Bit>,
    win0: Signal<Local, Bits<24>>,
    rw: Signal<Local, Bit>,
    e_next: Signal<Local, Bits<24>>,
    e_cwqe: Signal<Local, Bits<16>>,
    e_cpkt: Signal<Local, Bits<24>>,
    e_c0: Signal<Local, Bit>,
    e_ackb: Signal<Local, Bits<7>>,
    e_lim: Signal<Local, Bits<7>>,
    hidx: Signal<Local, Bits<16>>,
    idx1: Signal<Local, Bits<16>>,
    flush_in: Signal<Local, Bit>,
    flush_qps: Signal<Local, Bit>,
    st_err: Signal<Local, Bit>,
    fjump: Signal<Local, Bit>,
    hd_c: Signal<Local, Bits<16>>,
    hd_1: Signal<Local, Bits<16>>,
    neq_c: Signal<Local, Bit>,
    neq_1: Signal<Local, Bit>,
    neq_h: Signal<Local, Bit>,
    ngo: Signal<Local, Bit>,
    fgo: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    rsnd: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for ReqDecide {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, d1_v, d1_slot, d1_qpn, d1_ok, d1_prod, d1_base, d1_log, d1_maxrd, d1_dest, d1_pkey, d1_pd,
            d1_pmtu, d1_next, d1_sent, d1_cwqe, d1_cpkt, d1_rdst, d1_una, d1_rddone, d1_tmo, d1_c0, d1_rew, d1_hwqe,
            d1_rpkt, d1_rc0, d1_rackb, d1_rlim, d1_ackb, d1_lim, d1_flush, d1_cerr, d1_errq, d1_cwqe1, d2_v, d2_slot,
            d2_poke, d2_cerr, d2_go, d2_addr, d2_base, d2_log, d2_haddr, d2_rw, d2_s1, d2_addr1, d2_jctx, d2_wctx
        );
        self.max_win.next = RF_MAX_UNACKED.into();
        // D2's action: a WQE read (the command register free) or a done
        self.d2_act.next = self.d2_v.q.val()
            & ((self.d2_go.q.val() & self.issue_free.val()) | (!self.d2_go.q.val() & self.stop_free.val()));
        self.d2_load.next = self.d1_v.q.val() & (!self.d2_v.q.val() | self.d2_act.val());
        self.d1_load.next = self.head_ready.val() & (!self.d1_v.q.val() | self.d2_load.val());
        self.take.next = self.d1_load.val();
        self.issue.next = self.d2_act.val() & self.d2_go.q.val();
        self.stop.next = self.d2_act.val() & !self.d2_go.q.val();
        self.poke.next = self.d2_poke.q.val();
        self.cerr.next = self.d2_cerr.q.val();
        self.slot.next = self.d2_slot.q.val();
        self.addr.next = self.d2_addr.q.val();
        if self.d2_rw.q.val() {
            self.addr.next = self.d2_haddr.q.val();
        } else if self.d2_s1.q.val() {
            self.addr.next = self.d2_addr1.q.val();
        }
        self.base.next = self.d2_base.q.val();
        self.log.next = self.d2_log.q.val();
        self.jctx.next = self.d2_jctx.q.val();
        self.wctx.next = self.d2_wctx.q.val();

        // ================= D1: the head grant's entries into registers =================
        // the completer's UNA and head (its start values before its first use)
        self.una_eff.next = self.qpc.val().get_bits::<24>(QPC_SQ_PSN);
        self.head_wqe.next = self.qpc.val().get_bits::<16>(QPC_SQ_CONS);
        self.head_first.next = self.qpc.val().get_bits::<24>(QPC_SQ_PSN);
        if self.qps.val().get_bit(QPS_COMP_STARTED) {
            self.una_eff.next = self.qps.val().get_bits::<24>(QPS_UNA);
            self.head_wqe.next = self.qps.val().get_bits::<16>(QPS_HEAD_WQE);
            self.head_first.next = self.qps.val().get_bits::<24>(QPS_HEAD_FIRST);
        }
        self.rew_pkt.next = self.una_eff.val() - self.head_first.val();
        // a flush grant: the requester refused a WQE, the completer is in
        // error, or the driver moved the QP to ERR
        self.flush_qps.next = (self.qps.val().get_bit(QPS_COMP_STARTED) & self.qps.val().get_bit(QPS_COMP_ERROR))
            | (self.qps.val().get_bit(QPS_REQ_STARTED) & self.qps.val().get_bit(QPS_REQ_REFUSED));
        self.st_err.next = self.qpc.val().get_bits::<4>(QPC_STATE) == QP_STATE_ERR;
        // (a responder in error is a QP in error: as ERR, through the
        // completer's flush first; it sends nothing outside RTS and ERR)
        self.flush_in.next = self.flush_qps.val() | self.st_err.val() | self.resp_err.val();
        if self.d2_load.val() {
            self.d1_v.d.next = false;
        }
        if self.d1_load.val() {
            self.d1_v.d.next = true;
            self.d1_slot.d.next = self.head_slot.val();
            self.d1_qpn.d.next = self.head_qpn.val();
            // (nothing is sent while the completer waits out an RNR NAK; a
            // flush grant sends nothing and does not wait; a failed
            // responder's QP goes to error from RTR too)
            self.d1_ok.d.next =
                ((self.qpc.val().get_bits::<4>(QPC_STATE) == QP_STATE_RTS) | self.st_err.val() | self.resp_err.val())
                    & !self.head_bad.val()
                    & (self.flush_in.val()
                        | !(self.qps.val().get_bit(QPS_COMP_STARTED) & self.qps.val().get_bit(QPS_RNR_WAIT)));
            self.d1_flush.d.next = self.flush_in.val();
            self.d1_errq.d.next = (self.st_err.val() | self.resp_err.val()) & !self.flush_qps.val();
            self.d1_cerr.d.next = self.qps.val().get_bit(QPS_COMP_STARTED) & self.qps.val().get_bit(QPS_COMP_ERROR);
            self.d1_cwqe1.d.next = self.qps.val().get_bits::<16>(QPS_CURSOR_WQE) + 1;
            self.d1_prod.d.next = self.qpc.val().get_bits::<16>(QPC_SQ_PROD);
            self.d1_base.d.next = self.qpc.val().get_bits::<64>(QPC_SQ_BASE);
            self.d1_log.d.next = self.qpc.val().get_bits::<4>(QPC_SQ_LOG);
            self.d1_maxrd.d.next = self.qpc.val().get_bits::<8>(QPC_MAX_RD_ATOMIC);
            self.d1_dest.d.next = self.qpc.val().get_bits::<24>(QPC_DEST_QPN);
            self.d1_pkey.d.next = self.qpc.val().get_bits::<16>(QPC_PKEY);
            self.d1_pd.d.next = self.qpc.val().get_bits::<24>(QPC_PD);
            self.d1_pmtu.d.next = self.qpc.val().get_bits::<3>(QPC_PMTU);
            self.d1_tmo.d.next = self.qpc.val().get_bits::<5>(QPC_TIMEOUT);
            self.d1_next.d.next = self.qpc.val().get_bits::<24>(QPC_SQ_PSN);
            self.d1_sent.d.next = self.qpc.val().get_bits::<24>(QPC_SQ_PSN);
            self.d1_cwqe.d.next = 0.into();
            self.d1_cpkt.d.next = 0.into();
            self.d1_c0.d.next = true;
            self.d1_rdst.d.next = 0.into();
            self.d1_ackb.d.next = 64.into(); // REQ_ACK_REQ_EVERY
            self.d1_lim.d.next = 64.into(); // MAX_UNACKED_PSNS - REQ_ACK_REQ_EVERY
            if self.qps.val().get_bit(QPS_REQ_STARTED) {
                self.d1_ackb.d.next = bits::<7>(64) - bit_cast::<7, 6>(self.qps.val().get_bits::<6>(QPS_CURSOR_PKT));
                // 128 - (64 - c) = 64 + c: no adder
                self.d1_lim.d.next = bits::<7>(64) | bit_cast::<7, 6>(self.qps.val().get_bits::<6>(QPS_CURSOR_PKT));
                self.d1_next.d.next = self.qps.val().get_bits::<24>(QPS_NEXT_PSN);
                self.d1_sent.d.next = self.qps.val().get_bits::<24>(QPS_SENT_END);
                self.d1_cwqe.d.next = self.qps.val().get_bits::<16>(QPS_CURSOR_WQE);
                self.d1_cpkt.d.next = bit_cast::<24, 23>(self.qps.val().get_bits::<23>(QPS_CURSOR_PKT));
                self.d1_c0.d.next = !self.qps.val().get_bits::<23>(QPS_CURSOR_PKT).any();
                self.d1_rdst.d.next = self.qps.val().get_bits::<5>(QPS_RD_STARTED);
            }
            self.d1_una.d.next = self.una_eff.val();
            self.d1_rddone.d.next = 0.into();
            if self.qps.val().get_bit(QPS_COMP_STARTED) {
                self.d1_rddone.d.next = self.qps.val().get_bits::<5>(QPS_RD_DONE);
            }
            // the cursor at the completer's head, at UNA (chosen in D2)
            self.d1_rew.d.next = self.qps.val().get_bit(QPS_REQ_STARTED) & self.head_rewind.val();
            self.d1_hwqe.d.next = self.head_wqe.val();
            self.d1_rpkt.d.next = self.rew_pkt.val();
            self.d1_rc0.d.next = self.una_eff.val() == self.head_first.val();
            self.d1_rackb.d.next = bits::<7>(64) - bit_cast::<7, 6>(self.rew_pkt.val().get_bits::<6>(0));
            self.d1_rlim.d.next = bits::<7>(64) | bit_cast::<7, 6>(self.rew_pkt.val().get_bits::<6>(0));
        }

        // ================= D2: the arithmetic into registers =================
        // go-back-N: the cursor to the completer's head (a rewind), or forward
        // to it when NEXT_PSN is behind UNA (ACKs of a resend's first
        // transmissions passed its cursor: the window would wrap to "full")
        self.win0.next = self.d1_next.q.val() - self.d1_una.q.val();
        self.rw.next = (self.d1_rew.q.val() | self.win0.val().get_bit(23)) & !self.d1_flush.q.val();
        self.win.next = self.win0.val();
        self.e_next.next = self.d1_next.q.val();
        self.e_cwqe.next = self.d1_cwqe.q.val();
        self.e_cpkt.next = self.d1_cpkt.q.val();
        self.e_c0.next = self.d1_c0.q.val();
        self.e_ackb.next = self.d1_ackb.q.val();
        self.e_lim.next = self.d1_lim.q.val();
        if self.rw.val() {
            self.win.next = 0.into();
            self.e_next.next = self.d1_una.q.val();
            self.e_cwqe.next = self.d1_hwqe.q.val();
            self.e_cpkt.next = self.d1_rpkt.q.val();
            self.e_c0.next = self.d1_rc0.q.val();
            self.e_ackb.next = self.d1_rackb.q.val();
            self.e_lim.next = self.d1_rlim.q.val();
        }
        self.room.next = self.max_win.val() - self.win.val();
        self.budget.next = self.room.val().get_bits::<8>(0);
        // ackb < room = 128 - win, i.e. win < 128 - ackb: beside the room's subtraction, not after it
        if self.win.val() < bit_cast::<24, 7>(self.e_lim.val()) {
            self.budget.next = bit_cast::<8, 7>(self.e_ackb.val());
        }
        self.rdout.next = self.d1_rdst.q.val() - self.d1_rddone.q.val();
        // a resend: the cursor's PSN was sent before (NEXT_PSN before SENT_END)
        self.resend.next = self.win.val() < (self.d1_sent.q.val() - self.d1_una.q.val());
        // a flush grant (never rewound): from the cursor, or the WQE after
        // it when the cursor's was partly sent (pushed: the completer's);
        // but once the completer is in error and its head is past that (a
        // go-back-N under way: every WQE before its head was in its list
        // and was flushed), from HEAD_WQE, NEXT_PSN then SENT_END. (16-bit
        // serial compares from registers, beside the PSN arithmetic.)
        self.hd_c.next = self.d1_cwqe.q.val() - self.d1_hwqe.q.val();
        self.hd_1.next = self.d1_cwqe1.q.val() - self.d1_hwqe.q.val();
        self.fjump.next = self.d1_cerr.q.val() & self.hd_c.val().get_bit(15);
        if !self.d1_c0.q.val() {
            self.fjump.next = self.d1_cerr.q.val() & self.hd_1.val().get_bit(15);
        }
        self.first.next = (self.e_c0.val() & !self.resend.val()) | self.d1_flush.q.val();
        self.rsnd.next = self.resend.val() & !self.d1_flush.q.val();
        if self.d1_flush.q.val() {
            self.e_cpkt.next = 0.into();
            if self.fjump.val() {
                self.e_cwqe.next = self.d1_hwqe.q.val();
                self.e_next.next = self.d1_sent.q.val();
            } else if !self.d1_c0.q.val() {
                self.e_cwqe.next = self.d1_cwqe1.q.val();
            }
        }
        // both cursors' WQE addresses into registers, chosen after them
        // (a mux before the register would be merged into one adder)
        self.idx.next = 0.into();
        self.hidx.next = 0.into();
        self.idx1.next = 0.into();
        for k in 0..16 {
            if self.d1_log.q.val().index() > k {
                self.idx.next = self.idx.val().replace_bit(k, self.d1_cwqe.q.val().get_bit(k));
                self.hidx.next = self.hidx.val().replace_bit(k, self.d1_hwqe.q.val().get_bit(k));
                self.idx1.next = self.idx1.val().replace_bit(k, self.d1_cwqe1.q.val().get_bit(k));
            }
        }
        // work: the WQE chosen is not SQ_PROD (each candidate compared from
        // its register, the result chosen after: no compare behind a mux)
        self.neq_c.next = self.d1_cwqe.q.val() != self.d1_prod.q.val();
        self.neq_1.next = self.d1_cwqe1.q.val() != self.d1_prod.q.val();
        self.neq_h.next = self.d1_hwqe.q.val() != self.d1_prod.q.val();
        // (rewound: the window is empty; else `win0` against the constant)
        self.ngo.next = self.neq_c.val() & (self.win0.val() < self.max_win.val());
        if self.rw.val() {
            self.ngo.next = self.neq_h.val();
        }
        self.fgo.next = self.neq_c.val();
        if self.fjump.val() {
            self.fgo.next = self.neq_h.val();
        } else if !self.d1_c0.q.val() {
            self.fgo.next = self.neq_1.val();
        }
        if self.d2_act.val() {
            self.d2_v.d.next = false;
        }
        if self.d2_load.val() {
            self.d2_v.d.next = true;
            self.d2_slot.d.next = self.d1_slot.q.val();
            self.d2_poke.d.next = self.d1_ok.q.val() & self.d1_errq.q.val();
            self.d2_cerr.d.next = self.d1_ok.q.val() & self.d1_cerr.q.val();
            self.d2_go.d.next = self.d1_ok.q.val() & self.ngo.val();
            if self.d1_flush.q.val() {
                self.d2_go.d.next = self.d1_ok.q.val() & self.fgo.val() & !self.d1_errq.q.val();
            }
            self.d2_addr.d.next = self.d1_base.q.val() + (bit_cast::<64, 16>(self.idx.val()) << 7);
            self.d2_base.d.next = self.d1_base.q.val();
            self.d2_log.d.next = self.d1_log.q.val();
            self.d2_haddr.d.next = self.d1_base.q.val() + (bit_cast::<64, 16>(self.hidx.val()) << 7);
            self.d2_rw.d.next = self.rw.val() | (self.d1_flush.q.val() & self.fjump.val());
            self.d2_s1.d.next = self.d1_flush.q.val() & !self.fjump.val() & !self.d1_c0.q.val();
            self.d2_addr1.d.next = self.d1_base.q.val() + (bit_cast::<64, 16>(self.idx1.val()) << 7);
            self.d2_jctx.d.next = bit_cast::<REQ_JCTX_BITS, REQ_QPN_BITS>(self.d1_qpn.q.val())
                | (bit_cast::<REQ_JCTX_BITS, 24>(self.d1_dest.q.val()) << 14)
                | (bit_cast::<REQ_JCTX_BITS, 16>(self.d1_pkey.q.val()) << 38)
                | (bit_cast::<REQ_JCTX_BITS, 24>(self.d1_pd.q.val()) << 54)
                | (bit_cast::<REQ_JCTX_BITS, 3>(self.d1_pmtu.q.val()) << 78)
                | (bit_cast::<REQ_JCTX_BITS, 16>(self.e_cwqe.val()) << 81)
                | (bit_cast::<REQ_JCTX_BITS, 24>(self.e_next.val()) << 97)
                | (bit_cast::<REQ_JCTX_BITS, 23>(self.e_cpkt.val().get_bits::<23>(0)) << 121)
                | (bit_cast::<REQ_JCTX_BITS, 8>(self.budget.val()) << 144)
                | (bit_cast::<REQ_JCTX_BITS, 1>((bit_cast::<8, 5>(self.rdout.val()) < self.d1_maxrd.q.val()).into())
                    << 152)
                | (bit_cast::<REQ_JCTX_BITS, 1>((self.rdout.val() == 0).into()) << 153)
                | (bit_cast::<REQ_JCTX_BITS, 1>(self.first.val().into()) << 154)
                | (bit_cast::<REQ_JCTX_BITS, 1>(self.rsnd.val().into()) << 155)
                | (bit_cast::<REQ_JCTX_BITS, 1>(self.d1_flush.q.val().into()) << 156);
            self.d2_wctx.d.next = bit_cast::<REQ_WCTX_BITS, 16>(self.d1_prod.q.val())
                | (bit_cast::<REQ_WCTX_BITS, 24>(self.d1_una.q.val()) << 16)
                | (bit_cast::<REQ_WCTX_BITS, 24>(self.d1_sent.q.val()) << 40)
                | (bit_cast::<REQ_WCTX_BITS, 5>(self.d1_rdst.q.val()) << 64)
                | (bit_cast::<REQ_WCTX_BITS, REQ_QPN_BITS>(self.d1_qpn.q.val()) << 69)
                | (bit_cast::<REQ_WCTX_BITS, 5>(self.d1_tmo.q.val()) << 83);
        }
        if self.reset.val() {
            self.d1_v.d.next = false;
            self.d2_v.d.next = false;
        }
    }
}
