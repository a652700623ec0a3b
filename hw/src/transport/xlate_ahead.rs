//! `XlateAhead`: the responder's translation requests issued ahead of
//! `RespExec` (docs/transport_blocks.md, "`xlate_ahead`"). `RespExec`
//! executes one record at a time, and a record that places payload or
//! checks a key waits for its translation round trip (`MrXlate`'s hit
//! latency, 25 cycles, and the mux's): about 31 cycles per small WRITE,
//! whatever the wire brings. This block sits between `RespCheck` and
//! `RespExec`, queues the records, and sends each queued record's
//! requests to the translation unit as soon as it arrives; the answers wait
//! here until `RespExec` takes them, so a record finds its answers waiting
//! when it is taken.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_dec` ([`RespDecIn`]) | in | `RespCheck::m_dec`, one record per packet; taken only with `s_xvalid` |
//! | `s_pd`, `s_plen`, `s_xvalid` / `s_xpop` | in / out | the record's QP's PD and payload length (`ExecSide`'s second FIFO, in step with the records); `s_xpop` pulses when a record is taken |
//! | `m_dec` ([`RespDecOut`]), `m_pre` | out | to `RespExec::s_dec`, `s_pre`: the records in order, from a FIFO's output register; `m_pre`: its requests went out from here |
//! | `exec_idle` | in | `RespExec::s_dec.ready`: a register, high exactly while `RespExec` holds no record |
//! | `s_xreq` (`MrReqIn`) | in | `RespExec`'s own requests (a barrier record's, below); `ready` from registers |
//! | `m_xreq` (`MrReqOut`) | out | to `MrXlate` (through the core's `XlateMux`), from registers |
//! | `s_xresp` (`MrRespIn`) / `m_xresp` (`MrRespOut`) | in / out | the answers, in request order, through a FIFO; `s_xresp.ready` from flops |
//!
//! **Which records.** A record's requests are the ones `RespExec` would
//! issue when it takes it: with the key check (`key_check` and a length),
//! the tail (`va + len - 1`, 1 byte, [`RESP_XID_TAIL`]) and then the head
//! (`va`, the payload length for a placed WRITE, else 1 byte,
//! [`RESP_XID_HEAD`]); without it, a placed WRITE's head alone. A SEND's
//! requests depend on its RECV WQE, and a duplicate READ's on the replay
//! table's answer: those records are *barriers*, `m_pre` low, and
//! `RespExec` issues their requests itself, through `s_xreq`. The answers
//! must come in `RespExec`'s order, so the issuer stops at a barrier until
//! `RespExec` has taken it and finished it (a later record taken, or
//! `exec_idle` after it was taken), and `s_xreq` is taken only while the
//! issuer has no request to make.
//!
//! **No head-of-line blocking.** `XlateMux` hands answers out in request
//! order across its users, so answers that wait for `RespExec` must not
//! wait in the mux: a request goes out only when the answer FIFO has room
//! for its [`XLATE_AHEAD_BEATS`] beats beside every other request's not yet
//! handed on (a count of reserved beats, released at each request's `last`
//! beat taken by `RespExec`). The requester's and the READ responder's
//! answers never queue behind the responder's.
//!
//! **Timing.** A record is offered on `m_dec` two cycles after it is taken
//! (the FIFO's fall-through). When the issuer has passed every queued
//! record, a record's first request goes into the request register as the
//! record is taken (offered the next cycle, as `RespExec` offered its own
//! the cycle after taking a record), its request word saying none; else
//! the issuer reaches it through the request FIFO, two cycles later at the
//! least. The head follows the tail on the next cycle; an answer beat
//! reaches `m_xresp` two cycles after it is taken, so a lone record's
//! answers come 2 cycles later than without this block. Capacity: 2^[`XLATE_AHEAD_LOG`] + 1 records,
//! 2^[`XLATE_AHEAD_ANS_LOG`] answer beats reserved at most.

use super::{RespDecIn, RespDecOut, RESP_VERDICT_BITS};
use crate::consts::*;
use crate::host::DmaFifo;
use crate::mr::{MrReqIn, MrReqOut, MrRespIn, MrRespOut, MR_ACCESS_BITS, MR_ID_BITS, MR_VERDICT_BITS};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::layouts::mpt;
use rust_hdl::prelude::*;

/// log2 of the records queued (and of their request words).
pub const XLATE_AHEAD_LOG: usize = 4;
/// log2 of the answer beats held for `RespExec`.
pub const XLATE_AHEAD_ANS_LOG: usize = 5;
/// Answer beats one request may have: its range is at most 4096 bytes (a
/// packet's payload at the largest path MTU, a piece of it, or one byte),
/// so it spans at most two pages of 4 KiB or more; a translation that fails
/// after its first page ends with one beat of its error instead of the second piece.
pub const XLATE_AHEAD_BEATS: usize = 2;
/// Bits of a record word (`XA_*`: `RespDecIn`'s fields, then `pre`).
pub const XLATE_AHEAD_BITS: usize = XA_PRE as usize + 1;
const XQ_BITS: usize = XQ_ACCESS as usize + MR_ACCESS_BITS;
const XR_BITS: usize = XR_LAST as usize + 1;
/// Reserved answer beats, 0 to 2^`XLATE_AHEAD_ANS_LOG`.
const USED_BITS: usize = XLATE_AHEAD_ANS_LOG + 1;
/// The record counts (taken by `RespExec`, passed by the issuer) differ by
/// at most the two FIFOs' capacity, 2^`XLATE_AHEAD_LOG` + 1, either way.
const CNT_BITS: usize = XLATE_AHEAD_LOG + 2;
// literals in `update`: the sign bit of the count difference (5); the most
// beats reserved before another request (30)
const _: () = assert!(CNT_BITS == 6 && (1 << (CNT_BITS - 1)) > (1 << XLATE_AHEAD_LOG) + 1);
const _: () = assert!((1 << XLATE_AHEAD_ANS_LOG) - XLATE_AHEAD_BEATS == 30);
const _: () = assert!(XLATE_AHEAD_BITS == 925 && XQ_BITS == 206 && XR_BITS == 108 && RESP_VERDICT_BITS == 4);
const _: () = assert!(MR_ID_BITS == 8 && MR_VERDICT_BITS == 3 && MR_ACCESS_BITS == 3);
const _: () = assert!(
    mpt::LOG_PAGE_SIZES[0] >= 12 && MTU_4096 == MTU_256 + 4,
    "a request's range (at most the 4096 bytes of the largest MTU) spans at most two pages"
);

#[derive(LogicBlock, Default)]
pub struct XlateAhead {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_dec: RespDecIn,
    pub s_pd: Signal<In, Bits<24>>,
    pub s_plen: Signal<In, Bits<16>>,
    pub s_xvalid: Signal<In, Bit>,
    pub s_xpop: Signal<Out, Bit>,
    pub m_dec: RespDecOut,
    pub m_pre: Signal<Out, Bit>,
    pub exec_idle: Signal<In, Bit>,
    pub s_xreq: MrReqIn,
    pub m_xreq: MrReqOut,
    pub s_xresp: MrRespIn,
    pub m_xresp: MrRespOut,
    recs: DmaFifo<XLATE_AHEAD_BITS, XLATE_AHEAD_LOG>,
    reqs: DmaFifo<XQ_BITS, XLATE_AHEAD_LOG>,
    ans: DmaFifo<XR_BITS, XLATE_AHEAD_ANS_LOG>,
    // ---- the request register, and a head waiting behind its tail
    x_valid: Reg<Bit>,
    x_key: Reg<Bits<32>>,
    x_pd: Reg<Bits<24>>,
    x_va: Reg<Bits<64>>,
    x_len: Reg<Bits<32>>,
    x_access: Reg<Bits<MR_ACCESS_BITS>>,
    x_id: Reg<Bits<MR_ID_BITS>>,
    head_pend: Reg<Bit>,
    h_va: Reg<Bits<64>>,
    h_len: Reg<Bits<32>>,
    // ---- answer beats reserved; records taken by `RespExec`, passed by the issuer
    used: Reg<Bits<USED_BITS>>,
    taken: Reg<Bits<CNT_BITS>>,
    passed: Reg<Bits<CNT_BITS>>,
    pushed: Reg<Bits<CNT_BITS>>,
    // ---- locals
    push: Signal<Local, Bit>,
    bar: Signal<Local, Bit>,
    chk: Signal<Local, Bit>,
    place: Signal<Local, Bit>,
    hlen: Signal<Local, Bits<32>>,
    tail: Signal<Local, Bits<64>>,
    caught: Signal<Local, Bit>,
    direct: Signal<Local, Bit>,
    rec: Signal<Local, Bits<XLATE_AHEAD_BITS>>,
    ent: Signal<Local, Bits<XQ_BITS>>,
    e_bar: Signal<Local, Bit>,
    e_chk: Signal<Local, Bit>,
    e_place: Signal<Local, Bit>,
    e_any: Signal<Local, Bit>,
    e_va: Signal<Local, Bits<64>>,
    e_hlen: Signal<Local, Bits<32>>,
    e_tail: Signal<Local, Bits<64>>,
    credit: Signal<Local, Bit>,
    x_free: Signal<Local, Bit>,
    diff: Signal<Local, Bits<CNT_BITS>>,
    release: Signal<Local, Bit>,
    e_go: Signal<Local, Bit>,
    go_req: Signal<Local, Bit>,
    h_go: Signal<Local, Bit>,
    p_ready: Signal<Local, Bit>,
    p_take: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    give: Signal<Local, Bit>,
    resp: Signal<Local, Bits<XR_BITS>>,
    kind: TypeTag<Self>,
}

impl Logic for XlateAhead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, x_valid, x_key, x_pd, x_va, x_len, x_access, x_id, head_pend, h_va, h_len, used, taken,
            passed, pushed
        );
        clock!(self, clock, recs, reqs, ans);
        self.recs.reset.next = self.reset.val();
        self.reqs.reset.next = self.reset.val();
        self.ans.reset.next = self.reset.val();

        // ---- a record in: its word, and its request word beside it
        self.bar.next = (self.s_dec.verdict.val() == RESP_EXEC_SEND)
            | (self.s_dec.verdict.val() == RESP_DUP_READ)
            | (self.s_dec.verdict.val() == RESP_DUP_ATOMIC);
        self.chk.next = self.s_dec.key_check.val() & self.s_dec.len.val().any();
        self.place.next = (self.s_dec.verdict.val() == RESP_EXEC_WRITE) & self.s_plen.val().any();
        self.s_dec.ready.next = self.recs.s_ready.val() & self.reqs.s_ready.val() & self.s_xvalid.val();
        self.push.next =
            self.s_dec.valid.val() & self.recs.s_ready.val() & self.reqs.s_ready.val() & self.s_xvalid.val();
        self.s_xpop.next = self.push.val();
        if self.push.val() {
            self.pushed.d.next = self.pushed.q.val() + 1;
        }
        // the issuer has passed every queued record: a record's requests go
        // straight into the request register as it is taken (two cycles
        // sooner than through the request FIFO), and its word says none
        self.caught.next = self.pushed.q.val() == self.passed.q.val();
        // the range's last byte: computed once, as the record comes in
        self.tail.next = self.s_dec.va.val() + bit_cast::<64, 32>(self.s_dec.len.val()) - 1;
        self.hlen.next = 1.into();
        if self.place.val() {
            self.hlen.next = bit_cast::<32, 16>(self.s_plen.val());
        }
        // room for two answer beats; the request register free this cycle
        self.credit.next = self.used.q.val() <= 30;
        self.x_free.next = !self.x_valid.q.val() | self.m_xreq.ready.val();
        self.direct.next = self.push.val()
            & self.caught.val()
            & !self.bar.val()
            & (self.chk.val() | self.place.val())
            & !self.head_pend.q.val()
            & self.x_free.val()
            & self.credit.val();
        self.recs.s_valid.next = self.push.val();
        self.reqs.s_valid.next = self.push.val();
        self.recs.s_data.next = bit_cast::<XLATE_AHEAD_BITS, 24>(self.s_dec.qpn.val())
            | (bit_cast::<XLATE_AHEAD_BITS, 24>(self.s_dec.psn.val()) << XA_PSN)
            | (bit_cast::<XLATE_AHEAD_BITS, RESP_VERDICT_BITS>(self.s_dec.verdict.val()) << XA_VERDICT)
            | (bit_cast::<XLATE_AHEAD_BITS, 1>(self.s_dec.ack.val().into()) << XA_ACK)
            | (bit_cast::<XLATE_AHEAD_BITS, 8>(self.s_dec.syndrome.val()) << XA_SYNDROME)
            | (bit_cast::<XLATE_AHEAD_BITS, 24>(self.s_dec.aeth_psn.val()) << XA_AETH_PSN)
            | (bit_cast::<XLATE_AHEAD_BITS, 24>(self.s_dec.aeth_msn.val()) << XA_AETH_MSN)
            | (bit_cast::<XLATE_AHEAD_BITS, 24>(self.s_dec.msn_before.val()) << XA_MSN_BEFORE)
            | (bit_cast::<XLATE_AHEAD_BITS, 1>(self.s_dec.key_check.val().into()) << XA_KEY_CHECK)
            | (bit_cast::<XLATE_AHEAD_BITS, 3>(self.s_dec.key_access.val()) << XA_KEY_ACCESS)
            | (bit_cast::<XLATE_AHEAD_BITS, 32>(self.s_dec.rkey.val()) << XA_RKEY)
            | (bit_cast::<XLATE_AHEAD_BITS, 64>(self.s_dec.va.val()) << XA_VA)
            | (bit_cast::<XLATE_AHEAD_BITS, 32>(self.s_dec.len.val()) << XA_LEN)
            | (bit_cast::<XLATE_AHEAD_BITS, 1>(self.s_dec.recv_new.val().into()) << XA_RECV_NEW)
            | (bit_cast::<XLATE_AHEAD_BITS, 16>(self.s_dec.recv_index.val()) << XA_RECV_INDEX)
            | (bit_cast::<XLATE_AHEAD_BITS, 32>(self.s_dec.recv_offset.val()) << XA_RECV_OFFSET)
            | (bit_cast::<XLATE_AHEAD_BITS, 1>(self.s_dec.recv_done.val().into()) << XA_RECV_DONE)
            | (bit_cast::<XLATE_AHEAD_BITS, 32>(self.s_dec.cqe_len.val()) << XA_CQE_LEN)
            | (bit_cast::<XLATE_AHEAD_BITS, 1>(self.s_dec.write.val().into()) << XA_WRITE)
            | (bit_cast::<XLATE_AHEAD_BITS, 64>(self.s_dec.wr_mask.val()) << XA_WR_MASK)
            | (bit_cast::<XLATE_AHEAD_BITS, 512>(self.s_dec.wr_data.val()) << XA_WR_DATA)
            | (bit_cast::<XLATE_AHEAD_BITS, 1>((!self.bar.val()).into()) << XA_PRE);
        self.reqs.s_data.next = bit_cast::<XQ_BITS, 1>(self.bar.val().into())
            | (bit_cast::<XQ_BITS, 1>((self.chk.val() & !self.direct.val()).into()) << XQ_CHK)
            | (bit_cast::<XQ_BITS, 1>((self.place.val() & !self.direct.val()).into()) << XQ_PLACE)
            | (bit_cast::<XQ_BITS, 32>(self.s_dec.rkey.val()) << XQ_KEY)
            | (bit_cast::<XQ_BITS, 24>(self.s_pd.val()) << XQ_PD)
            | (bit_cast::<XQ_BITS, 64>(self.s_dec.va.val()) << XQ_VA)
            | (bit_cast::<XQ_BITS, 64>(self.tail.val()) << XQ_TAIL)
            | (bit_cast::<XQ_BITS, 16>(self.s_plen.val()) << XQ_PLEN)
            | (bit_cast::<XQ_BITS, 3>(self.s_dec.key_access.val()) << XQ_ACCESS);

        // ---- the records out to `RespExec`, in order
        self.rec.next = self.recs.m_data.val();
        self.m_dec.qpn.next = bit_cast::<24, XLATE_AHEAD_BITS>(self.rec.val());
        self.m_dec.psn.next = bit_cast::<24, XLATE_AHEAD_BITS>(self.rec.val() >> XA_PSN);
        self.m_dec.verdict.next = bit_cast::<RESP_VERDICT_BITS, XLATE_AHEAD_BITS>(self.rec.val() >> XA_VERDICT);
        self.m_dec.ack.next = (self.rec.val() >> XA_ACK).get_bit(0);
        self.m_dec.syndrome.next = bit_cast::<8, XLATE_AHEAD_BITS>(self.rec.val() >> XA_SYNDROME);
        self.m_dec.aeth_psn.next = bit_cast::<24, XLATE_AHEAD_BITS>(self.rec.val() >> XA_AETH_PSN);
        self.m_dec.aeth_msn.next = bit_cast::<24, XLATE_AHEAD_BITS>(self.rec.val() >> XA_AETH_MSN);
        self.m_dec.msn_before.next = bit_cast::<24, XLATE_AHEAD_BITS>(self.rec.val() >> XA_MSN_BEFORE);
        self.m_dec.key_check.next = (self.rec.val() >> XA_KEY_CHECK).get_bit(0);
        self.m_dec.key_access.next = bit_cast::<3, XLATE_AHEAD_BITS>(self.rec.val() >> XA_KEY_ACCESS);
        self.m_dec.rkey.next = bit_cast::<32, XLATE_AHEAD_BITS>(self.rec.val() >> XA_RKEY);
        self.m_dec.va.next = bit_cast::<64, XLATE_AHEAD_BITS>(self.rec.val() >> XA_VA);
        self.m_dec.len.next = bit_cast::<32, XLATE_AHEAD_BITS>(self.rec.val() >> XA_LEN);
        self.m_dec.recv_new.next = (self.rec.val() >> XA_RECV_NEW).get_bit(0);
        self.m_dec.recv_index.next = bit_cast::<16, XLATE_AHEAD_BITS>(self.rec.val() >> XA_RECV_INDEX);
        self.m_dec.recv_offset.next = bit_cast::<32, XLATE_AHEAD_BITS>(self.rec.val() >> XA_RECV_OFFSET);
        self.m_dec.recv_done.next = (self.rec.val() >> XA_RECV_DONE).get_bit(0);
        self.m_dec.cqe_len.next = bit_cast::<32, XLATE_AHEAD_BITS>(self.rec.val() >> XA_CQE_LEN);
        self.m_dec.write.next = (self.rec.val() >> XA_WRITE).get_bit(0);
        self.m_dec.wr_mask.next = bit_cast::<64, XLATE_AHEAD_BITS>(self.rec.val() >> XA_WR_MASK);
        self.m_dec.wr_data.next = bit_cast::<512, XLATE_AHEAD_BITS>(self.rec.val() >> XA_WR_DATA);
        self.m_pre.next = (self.rec.val() >> XA_PRE).get_bit(0);
        self.m_dec.valid.next = self.recs.m_valid.val();
        self.recs.m_ready.next = self.m_dec.ready.val();
        if self.recs.m_valid.val() & self.m_dec.ready.val() {
            self.taken.d.next = self.taken.q.val() + 1;
        }

        // ---- the issuer: each record's requests, in order, with room for their answers
        self.ent.next = self.reqs.m_data.val();
        self.e_bar.next = self.ent.val().get_bit(0);
        self.e_chk.next = (self.ent.val() >> XQ_CHK).get_bit(0);
        self.e_place.next = (self.ent.val() >> XQ_PLACE).get_bit(0);
        self.e_any.next = !self.e_bar.val() & (self.e_chk.val() | self.e_place.val());
        self.e_va.next = bit_cast::<64, XQ_BITS>(self.ent.val() >> XQ_VA);
        self.e_tail.next = bit_cast::<64, XQ_BITS>(self.ent.val() >> XQ_TAIL);
        self.e_hlen.next = 1.into();
        if self.e_place.val() {
            self.e_hlen.next = bit_cast::<32, 16>(bit_cast::<16, XQ_BITS>(self.ent.val() >> XQ_PLEN));
        }
        // a barrier passes once `RespExec` took it and finished it: a later
        // record taken, or idle after it (`taken` - `passed`, signed)
        self.diff.next = self.taken.q.val() - self.passed.q.val();
        self.release.next =
            !self.diff.val().get_bit(5) & ((self.diff.val() > 1) | ((self.diff.val() == 1) & self.exec_idle.val()));
        self.h_go.next = self.head_pend.q.val() & self.x_free.val() & self.credit.val();
        self.e_go.next = self.reqs.m_valid.val()
            & !self.head_pend.q.val()
            & ((self.e_bar.val() & self.release.val())
                | (!self.e_bar.val() & (!self.e_any.val() | (self.x_free.val() & self.credit.val()))));
        self.go_req.next = self.e_go.val() & self.e_any.val();
        self.reqs.m_ready.next = self.e_go.val();
        if self.e_go.val() {
            self.passed.d.next = self.passed.q.val() + 1;
        }
        // `RespExec`'s own requests (a barrier's) while the issuer has none
        // (and holds the barrier: nothing goes in directly): from registers only
        self.p_ready.next = !self.x_valid.q.val()
            & !self.caught.val()
            & self.credit.val()
            & !self.head_pend.q.val()
            & !(self.reqs.m_valid.val() & self.e_any.val());
        self.s_xreq.ready.next = self.p_ready.val();
        self.p_take.next = self.s_xreq.valid.val() & self.p_ready.val();
        if self.x_valid.q.val() & self.m_xreq.ready.val() {
            self.x_valid.d.next = false;
        }
        if self.go_req.val() {
            self.x_valid.d.next = true;
            self.x_key.d.next = bit_cast::<32, XQ_BITS>(self.ent.val() >> XQ_KEY);
            self.x_pd.d.next = bit_cast::<24, XQ_BITS>(self.ent.val() >> XQ_PD);
            self.x_access.d.next = bit_cast::<MR_ACCESS_BITS, XQ_BITS>(self.ent.val() >> XQ_ACCESS);
            self.x_va.d.next = self.e_va.val();
            self.x_len.d.next = self.e_hlen.val();
            self.x_id.d.next = RESP_XID_HEAD.into();
            if self.e_chk.val() {
                // the tail first: the range's last byte
                self.x_va.d.next = self.e_tail.val();
                self.x_len.d.next = 1.into();
                self.x_id.d.next = RESP_XID_TAIL.into();
                self.head_pend.d.next = true;
                self.h_va.d.next = self.e_va.val();
                self.h_len.d.next = self.e_hlen.val();
            }
        }
        if self.direct.val() {
            self.x_valid.d.next = true;
            self.x_key.d.next = self.s_dec.rkey.val();
            self.x_pd.d.next = self.s_pd.val();
            self.x_access.d.next = self.s_dec.key_access.val();
            self.x_va.d.next = self.s_dec.va.val();
            self.x_len.d.next = self.hlen.val();
            self.x_id.d.next = RESP_XID_HEAD.into();
            if self.chk.val() {
                self.x_va.d.next = self.tail.val();
                self.x_len.d.next = 1.into();
                self.x_id.d.next = RESP_XID_TAIL.into();
                self.head_pend.d.next = true;
                self.h_va.d.next = self.s_dec.va.val();
                self.h_len.d.next = self.hlen.val();
            }
        }
        if self.h_go.val() {
            self.x_valid.d.next = true;
            self.x_va.d.next = self.h_va.q.val();
            self.x_len.d.next = self.h_len.q.val();
            self.x_id.d.next = RESP_XID_HEAD.into();
            self.head_pend.d.next = false;
        }
        if self.p_take.val() {
            self.x_valid.d.next = true;
            self.x_key.d.next = self.s_xreq.key.val();
            self.x_pd.d.next = self.s_xreq.pd.val();
            self.x_va.d.next = self.s_xreq.va.val();
            self.x_len.d.next = self.s_xreq.len.val();
            self.x_access.d.next = self.s_xreq.access.val();
            self.x_id.d.next = self.s_xreq.id.val();
        }
        self.m_xreq.key.next = self.x_key.q.val();
        self.m_xreq.pd.next = self.x_pd.q.val();
        self.m_xreq.va.next = self.x_va.q.val();
        self.m_xreq.len.next = self.x_len.q.val();
        self.m_xreq.access.next = self.x_access.q.val();
        self.m_xreq.id.next = self.x_id.q.val();
        self.m_xreq.valid.next = self.x_valid.q.val();

        // ---- the answers: held for `RespExec`; a request's beats released at its last
        self.ans.s_data.next = bit_cast::<XR_BITS, MR_ID_BITS>(self.s_xresp.id.val())
            | (bit_cast::<XR_BITS, MR_VERDICT_BITS>(self.s_xresp.verdict.val()) << XR_VERDICT)
            | (bit_cast::<XR_BITS, 64>(self.s_xresp.iova.val()) << XR_IOVA)
            | (bit_cast::<XR_BITS, 32>(self.s_xresp.len.val()) << XR_LEN)
            | (bit_cast::<XR_BITS, 1>(self.s_xresp.last.val().into()) << XR_LAST);
        self.ans.s_valid.next = self.s_xresp.valid.val();
        self.s_xresp.ready.next = self.ans.s_ready.val();
        self.resp.next = self.ans.m_data.val();
        self.m_xresp.id.next = bit_cast::<MR_ID_BITS, XR_BITS>(self.resp.val());
        self.m_xresp.verdict.next = bit_cast::<MR_VERDICT_BITS, XR_BITS>(self.resp.val() >> XR_VERDICT);
        self.m_xresp.iova.next = bit_cast::<64, XR_BITS>(self.resp.val() >> XR_IOVA);
        self.m_xresp.len.next = bit_cast::<32, XR_BITS>(self.resp.val() >> XR_LEN);
        self.m_xresp.last.next = (self.resp.val() >> XR_LAST).get_bit(0);
        self.m_xresp.valid.next = self.ans.m_valid.val();
        self.ans.m_ready.next = self.m_xresp.ready.val();
        self.load.next = self.go_req.val() | self.h_go.val() | self.p_take.val() | self.direct.val();
        self.give.next = self.ans.m_valid.val() & self.m_xresp.ready.val() & (self.resp.val() >> XR_LAST).get_bit(0);
        if self.load.val() & !self.give.val() {
            self.used.d.next = self.used.q.val() + 2;
        }
        if !self.load.val() & self.give.val() {
            self.used.d.next = self.used.q.val() - 2;
        }

        if self.reset.val() {
            self.x_valid.d.next = false;
            self.head_pend.d.next = false;
            self.used.d.next = 0.into();
            self.taken.d.next = 0.into();
            self.passed.d.next = 0.into();
            self.pushed.d.next = 0.into();
        }
    }
}
