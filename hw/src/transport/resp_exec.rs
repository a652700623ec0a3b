//! `RespExec`: the responder's execute stage for RDMA WRITE (docs/transport.md
//! "Responder", docs/core.md "Instances"). It takes `RespCheck`'s records one
//! per request packet, in order, does the key check the record asks for
//! through the translation unit (`MrXlate`), turns a WRITE's payload range
//! into placement commands for `PayloadScatter` (`s_pkt` and `s_piece`: the
//! payload stream itself goes from `RxHold` to `PayloadScatter` beside this
//! block), and then sends the packet's ACK/NAK request to `AckGen` and its
//! `qps` line to the context cache.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_dec` ([`RespDecIn`]) | in | `RespCheck::m_dec`: one record per packet. Read: `qpn`, `psn`, `verdict`, `ack`, `syndrome`, `aeth_psn`, `aeth_msn`, `msn_before`, `key_check`, `key_access`, `rkey`, `va`, `len`, `write`, `wr_mask`, `wr_data`. `ready` is a register. |
//! | `s_side` ([`ExecSideIn`]) | in | valid with `s_dec`: the QP's `PD`, `DEST_QPN`, `PKEY`, `PATH` (qpc) and the packet's payload length and first lane (its header) |
//! | `m_xreq` (`MrReqOut`) | out | to `MrXlate::s_req`: key, PD, VA, length, access (`key_access`), id ([`RESP_XID_HEAD`](crate::consts::RESP_XID_HEAD) / `RESP_XID_TAIL`), from registers |
//! | `s_xresp` (`MrRespIn`) | in | from `MrXlate::m_resp`: the answers in request order. `ready` is an AND of two registers. |
//! | `m_pkt` (`ScatterPktOut`) | out | to `PayloadScatter::s_pkt`: one per record, {`lane`, `drop`}; `drop` unless a WRITE's payload is placed. From registers. |
//! | `m_piece` (`PieceOut`) | out | to `PayloadScatter::s_piece`: the placed payload's IOVA pieces, `last` on a packet's last one, from `PieceHold`'s register |
//! | `m_ack` (`AckReqOut`) | out | to `AckGen::s_ack`: the record's ACK/NAK, or NAK remote access error for a failed check; from registers |
//! | `m_qps` ([`QpsWrOut`]) | out | the record's `qps` write {`qpn`, `mask`, `data`}, `IN_PROGRESS` = ERROR after a failed check; from registers |
//!
//! **What a record does.** `chk` = `key_check` and `len` > 0 (a zero-length
//! WRITE needs no key, as the model); `place` = verdict
//! [`RESP_EXEC_WRITE`](crate::consts::RESP_EXEC_WRITE) and a payload.
//! With `chk`, the range [`va`, `va + len`) (`len` the DMA length) is
//! checked by two requests: the tail (`va + len - 1`, 1 byte, its piece
//! discarded), then the head (`va`, the payload length when `place`, else 1
//! byte). Both pass exactly when the range does: one key, so one region,
//! whose VA range is an interval, with one PD and one set of rights. This
//! keeps a 2 GiB WRITE FIRST to two short answers where one request over
//! the DMA length would return a piece per page. Without `chk` a placed
//! MIDDLE/LAST translates its payload range at its `va` with the rkey the
//! record carries. Head pieces are written into [`PieceHold`] and
//! committed at the head's last answer beat if no answer beat of the
//! packet failed, else discarded: a failing packet places nothing (an
//! invalid MTT entry can fail a translation after pieces came). Any failure
//! makes the ACK request NAK remote access error (the contract's
//! [`NAK_REMOTE_ACCESS_ERROR`](rnic_contract::mr::NAK_REMOTE_ACCESS_ERROR))
//! with the packet's PSN and `msn_before`, replaces the record's own
//! ACK/NAK, and sets `IN_PROGRESS` to ERROR in the `qps` write, so
//! `RespCheck` drops every later request of the QP. Records of other
//! verdicts pass their ACK/NAK and `qps` write through and drop the payload.
//!
//! **Order of events.** One record at a time: taken, its requests offered
//! (tail, head), its answers taken, its pieces committed and every one
//! taken by `PayloadScatter`; only then are `m_pkt`, `m_ack` and `m_qps`
//! loaded (together), and the next record is taken once all three are
//! taken (they are driven from the record's registers). So the ACK of a
//! packet is offered after its placement commands are issued, and
//! everything leaves in packet order.
//!
//! **Latency and rate** (`tb/tests/resp_exec.rs`, with `L` the translation
//! unit's cycles from a request taken to its first answer beat offered): a
//! placed WRITE without key check taken at t has its first piece offered at
//! t + [`RESP_EXEC_PIECE_LATENCY`] + `L`; with the key check (two requests)
//! one cycle later. A record takes the block for `L` +
//! [`RESP_EXEC_PLACE_PERIOD`] cycles with one piece (one more per further
//! piece), [`RESP_EXEC_IDLE_PERIOD`] without translation. With `MrXlate`'s
//! hit latency (25) a 4 KiB WRITE MIDDLE takes 30 cycles, under the 64 its
//! payload takes at one beat per cycle, so `PayloadScatter` is never short of
//! commands on a stream of full packets.
//!
//! **Why this structure.** A record is executed alone: the translation
//! round trip is far shorter than a full packet's payload, so overlapping
//! records buys no throughput for full-size WRITEs, and one record at a
//! time gives the ordering (no ACK before the placement, packet order) with
//! no per-record FIFO of 1 KiB records. Small packets pay the round trip
//! each (later work: a record FIFO with the requests issued ahead).

use super::{AckReqOut, PieceHold, PieceOut, RespDecIn, ScatterPktOut, ACK_QPN_BITS, PATH_BITS, PIECE_LEN_BITS};
use crate::consts::*;
use crate::mr::{MrReqOut, MrRespIn, MR_ACCESS_BITS, MR_ID_BITS};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::layouts::qps;
use rust_hdl::prelude::*;

/// Cycles from a record taken to its first piece offered, without the
/// translation latency: request register (1), answer taken and committed
/// (0), `PieceHold` (2).
pub const RESP_EXEC_PIECE_LATENCY: u64 = 1 + super::PIECE_HOLD_LATENCY;
/// Cycles a placed one-piece record holds the block, without the
/// translation latency: the latency to its piece, its piece taken, the
/// outputs loaded and taken, the next record taken.
pub const RESP_EXEC_PLACE_PERIOD: u64 = RESP_EXEC_PIECE_LATENCY + 3;
/// Cycles a record without translation holds the block (taken, finished,
/// outputs offered and taken, the next one taken).
pub const RESP_EXEC_IDLE_PERIOD: u64 = 3;
/// Pieces of one packet counted (the head: at most `PIECE_HOLD` places).
const COUNT_BITS: usize = super::PIECE_HOLD_LOG + 1;
const _: () = assert!(qps::IN_PROGRESS.width == 2 && IP_ERROR == 3 && QPS_IN_PROGRESS_POS == qps::IN_PROGRESS.pos());
const _: () = assert!(RESP_XID_TAIL < 1 << MR_ID_BITS && ACK_QPN_BITS <= 24);

/// The QP's context fields and the packet's payload, valid with `s_dec`.
#[derive(LogicInterface, Default)]
#[join = "ExecSideOut"]
pub struct ExecSideIn {
    pub pd: Signal<In, Bits<24>>,
    pub dest_qpn: Signal<In, Bits<24>>,
    pub pkey: Signal<In, Bits<16>>,
    pub path: Signal<In, Bits<PATH_BITS>>,
    pub plen: Signal<In, Bits<16>>,
    pub lane: Signal<In, Bits<6>>,
}

#[derive(LogicInterface, Default)]
#[join = "ExecSideIn"]
pub struct ExecSideOut {
    pub pd: Signal<Out, Bits<24>>,
    pub dest_qpn: Signal<Out, Bits<24>>,
    pub pkey: Signal<Out, Bits<16>>,
    pub path: Signal<Out, Bits<PATH_BITS>>,
    pub plen: Signal<Out, Bits<16>>,
    pub lane: Signal<Out, Bits<6>>,
}

/// A `qps` line write: `ctx_cache.write(qpn, mask, data)`.
#[derive(LogicInterface, Default)]
#[join = "QpsWrIn"]
pub struct QpsWrOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub mask: Signal<Out, Bits<64>>,
    pub data: Signal<Out, Bits<512>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "QpsWrOut"]
pub struct QpsWrIn {
    pub qpn: Signal<In, Bits<24>>,
    pub mask: Signal<In, Bits<64>>,
    pub data: Signal<In, Bits<512>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct RespExec {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_dec: RespDecIn,
    pub s_side: ExecSideIn,
    pub m_xreq: MrReqOut,
    pub s_xresp: MrRespIn,
    pub m_pkt: ScatterPktOut,
    pub m_piece: PieceOut,
    pub m_ack: AckReqOut,
    pub m_qps: QpsWrOut,
    hold: PieceHold,
    // ---- the record held
    in_ready: Reg<Bit>,
    r_qpn: Reg<Bits<24>>,
    r_psn: Reg<Bits<24>>,
    r_ack: Reg<Bit>,
    r_syndrome: Reg<Bits<8>>,
    r_aeth_psn: Reg<Bits<24>>,
    r_aeth_msn: Reg<Bits<24>>,
    r_msn_before: Reg<Bits<24>>,
    r_write: Reg<Bit>,
    r_mask: Reg<Bits<64>>,
    r_data: Reg<Bits<512>>,
    r_place: Reg<Bit>,
    r_lane: Reg<Bits<6>>,
    r_dest_qpn: Reg<Bits<24>>,
    r_pkey: Reg<Bits<16>>,
    r_path: Reg<Bits<PATH_BITS>>,
    // ---- translation requests: the one offered, the head waiting behind the tail
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
    // ---- answers
    answering: Reg<Bit>,
    left: Reg<Bits<2>>,
    fail: Reg<Bit>,
    wcount: Reg<Bits<COUNT_BITS>>,
    pend: Reg<Bits<COUNT_BITS>>,
    draining: Reg<Bit>,
    out_wait: Reg<Bit>,
    // ---- outputs
    pkt_valid: Reg<Bit>,
    pkt_drop: Reg<Bit>,
    ack_valid: Reg<Bit>,
    ack_psn: Reg<Bits<24>>,
    ack_kind: Reg<Bits<2>>,
    ack_code: Reg<Bits<5>>,
    ack_msn: Reg<Bits<24>>,
    qw_valid: Reg<Bit>,
    qw_data: Reg<Bits<512>>,
    // ---- locals
    take: Signal<Local, Bit>,
    chk: Signal<Local, Bit>,
    place: Signal<Local, Bit>,
    resp_ready: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    is_head: Signal<Local, Bit>,
    head_end: Signal<Local, Bit>,
    fail_now: Signal<Local, Bit>,
    wr: Signal<Local, Bit>,
    free: Signal<Local, Bit>,
    finish: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for RespExec {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_ready,
            r_qpn,
            r_psn,
            r_ack,
            r_syndrome,
            r_aeth_psn,
            r_aeth_msn,
            r_msn_before,
            r_write,
            r_mask,
            r_data,
            r_place,
            r_lane,
            r_dest_qpn,
            r_pkey,
            r_path,
            x_valid,
            x_key,
            x_pd,
            x_va,
            x_len,
            x_access,
            x_id,
            head_pend,
            h_va,
            h_len,
            answering,
            left,
            fail,
            wcount,
            pend,
            draining,
            out_wait,
            pkt_valid,
            pkt_drop,
            ack_valid,
            ack_psn,
            ack_kind,
            ack_code,
            ack_msn,
            qw_valid,
            qw_data
        );
        clock!(self, clock, hold);
        self.hold.reset.next = self.reset.val();

        // ---- take a record: hold it, offer its first translation request
        self.s_dec.ready.next = self.in_ready.q.val();
        self.take.next = self.s_dec.valid.val() & self.in_ready.q.val();
        self.chk.next = self.s_dec.key_check.val() & self.s_dec.len.val().any();
        self.place.next = (self.s_dec.verdict.val() == RESP_EXEC_WRITE) & self.s_side.plen.val().any();
        if self.take.val() {
            self.in_ready.d.next = false;
            self.r_qpn.d.next = self.s_dec.qpn.val();
            self.r_psn.d.next = self.s_dec.psn.val();
            self.r_ack.d.next = self.s_dec.ack.val();
            self.r_syndrome.d.next = self.s_dec.syndrome.val();
            self.r_aeth_psn.d.next = self.s_dec.aeth_psn.val();
            self.r_aeth_msn.d.next = self.s_dec.aeth_msn.val();
            self.r_msn_before.d.next = self.s_dec.msn_before.val();
            self.r_write.d.next = self.s_dec.write.val();
            self.r_mask.d.next = self.s_dec.wr_mask.val();
            self.r_data.d.next = self.s_dec.wr_data.val();
            self.r_place.d.next = self.place.val();
            self.r_lane.d.next = self.s_side.lane.val();
            self.r_dest_qpn.d.next = self.s_side.dest_qpn.val();
            self.r_pkey.d.next = self.s_side.pkey.val();
            self.r_path.d.next = self.s_side.path.val();
            self.x_valid.d.next = self.chk.val() | self.place.val();
            self.x_key.d.next = self.s_dec.rkey.val();
            self.x_pd.d.next = self.s_side.pd.val();
            self.x_access.d.next = self.s_dec.key_access.val();
            self.h_va.d.next = self.s_dec.va.val();
            self.h_len.d.next = 1.into();
            if self.place.val() {
                self.h_len.d.next = bit_cast::<32, 16>(self.s_side.plen.val());
            }
            // the tail first when checking, else the head
            self.head_pend.d.next = self.chk.val();
            self.x_va.d.next = self.s_dec.va.val();
            self.x_len.d.next = bit_cast::<32, 16>(self.s_side.plen.val());
            self.x_id.d.next = RESP_XID_HEAD.into();
            self.left.d.next = 1.into();
            if self.chk.val() {
                self.x_va.d.next = self.s_dec.va.val() + bit_cast::<64, 32>(self.s_dec.len.val()) - 1;
                self.x_len.d.next = 1.into();
                self.x_id.d.next = RESP_XID_TAIL.into();
                self.left.d.next = 2.into();
            }
            self.answering.d.next = self.chk.val() | self.place.val();
            self.draining.d.next = !(self.chk.val() | self.place.val());
            self.fail.d.next = false;
            self.wcount.d.next = 0.into();
        }
        if self.x_valid.q.val() & self.m_xreq.ready.val() {
            self.x_valid.d.next = self.head_pend.q.val();
            self.head_pend.d.next = false;
            self.x_va.d.next = self.h_va.q.val();
            self.x_len.d.next = self.h_len.q.val();
            self.x_id.d.next = RESP_XID_HEAD.into();
        }
        self.m_xreq.key.next = self.x_key.q.val();
        self.m_xreq.pd.next = self.x_pd.q.val();
        self.m_xreq.va.next = self.x_va.q.val();
        self.m_xreq.len.next = self.x_len.q.val();
        self.m_xreq.access.next = self.x_access.q.val();
        self.m_xreq.id.next = self.x_id.q.val();
        self.m_xreq.valid.next = self.x_valid.q.val();

        // ---- answers: head pieces into the hold, committed if nothing failed
        self.resp_ready.next = self.answering.q.val() & self.hold.room.val();
        self.s_xresp.ready.next = self.resp_ready.val();
        self.fire.next = self.s_xresp.valid.val() & self.resp_ready.val();
        self.bad.next = self.s_xresp.verdict.val().any();
        self.is_head.next = self.s_xresp.id.val() == RESP_XID_HEAD;
        self.head_end.next = self.fire.val() & self.is_head.val() & self.s_xresp.last.val();
        self.fail_now.next = self.fail.q.val() | (self.fire.val() & self.bad.val());
        self.wr.next = self.fire.val()
            & self.is_head.val()
            & self.r_place.q.val()
            & !self.fail_now.val()
            & self.s_xresp.len.val().any();
        self.hold.w_valid.next = self.wr.val();
        self.hold.w_iova.next = self.s_xresp.iova.val();
        self.hold.w_len.next = self.s_xresp.len.val().get_bits::<PIECE_LEN_BITS>(0);
        self.hold.w_last.next = self.s_xresp.last.val();
        self.hold.commit.next = self.head_end.val() & self.r_place.q.val() & !self.fail_now.val();
        self.hold.discard.next = self.head_end.val() & (!self.r_place.q.val() | self.fail_now.val());
        if self.fire.val() & self.bad.val() {
            self.fail.d.next = true;
        }
        if self.wr.val() {
            self.wcount.d.next = self.wcount.q.val() + 1;
        }
        if self.fire.val() & self.s_xresp.last.val() {
            self.left.d.next = self.left.q.val() - 1;
            if self.left.q.val() == 1 {
                self.answering.d.next = false;
                self.draining.d.next = true;
            }
        }
        if self.hold.commit.val() {
            self.pend.d.next = self.wcount.q.val();
            if self.wr.val() {
                self.pend.d.next = self.wcount.q.val() + 1;
            }
        }
        if self.hold.m_piece.valid.val() & self.m_piece.ready.val() {
            self.pend.d.next = self.pend.q.val() - 1;
        }
        self.m_piece.iova.next = self.hold.m_piece.iova.val();
        self.m_piece.len.next = self.hold.m_piece.len.val();
        self.m_piece.last.next = self.hold.m_piece.last.val();
        self.m_piece.valid.next = self.hold.m_piece.valid.val();
        self.hold.m_piece.ready.next = self.m_piece.ready.val();

        // ---- finish: the packet's commands issued, its outputs loaded
        if self.m_pkt.ready.val() {
            self.pkt_valid.d.next = false;
        }
        if self.m_ack.ready.val() {
            self.ack_valid.d.next = false;
        }
        if self.m_qps.ready.val() {
            self.qw_valid.d.next = false;
        }
        self.free.next = (!self.pkt_valid.q.val() | self.m_pkt.ready.val())
            & (!self.ack_valid.q.val() | self.m_ack.ready.val())
            & (!self.qw_valid.q.val() | self.m_qps.ready.val());
        // the outputs are empty when a record is taken (below), so free here
        self.finish.next = self.draining.q.val() & !self.pend.q.val().any();
        if self.finish.val() {
            self.draining.d.next = false;
            self.out_wait.d.next = true;
            self.pkt_valid.d.next = true;
            self.pkt_drop.d.next = !self.r_place.q.val() | self.fail.q.val();
            self.ack_valid.d.next = self.r_ack.q.val() | self.fail.q.val();
            self.ack_psn.d.next = self.r_aeth_psn.q.val();
            self.ack_kind.d.next = self.r_syndrome.q.val().get_bits::<2>(AETH_KIND_POS);
            self.ack_code.d.next = self.r_syndrome.q.val().get_bits::<5>(0);
            self.ack_msn.d.next = self.r_aeth_msn.q.val();
            self.qw_valid.d.next = self.r_write.q.val() | self.fail.q.val();
            self.qw_data.d.next = self.r_data.q.val();
            if self.fail.q.val() {
                self.ack_psn.d.next = self.r_psn.q.val();
                self.ack_kind.d.next = AETH_KIND_NAK.into();
                self.ack_code.d.next = AETH_NAK_REMOTE_ACCESS.into();
                self.ack_msn.d.next = self.r_msn_before.q.val();
                self.qw_data.d.next = self
                    .r_data
                    .q
                    .val()
                    .replace_bit(QPS_IN_PROGRESS_POS, true)
                    .replace_bit(QPS_IN_PROGRESS_POS + 1, true);
            }
        }
        // the next record once this one's outputs are taken: they are
        // driven from the record registers
        if self.out_wait.q.val() & self.free.val() {
            self.out_wait.d.next = false;
            self.in_ready.d.next = true;
        }
        self.m_pkt.lane.next = self.r_lane.q.val();
        self.m_pkt.drop.next = self.pkt_drop.q.val();
        self.m_pkt.valid.next = self.pkt_valid.q.val();
        self.m_ack.qpn.next = self.r_qpn.q.val().get_bits::<ACK_QPN_BITS>(0);
        self.m_ack.dest_qpn.next = self.r_dest_qpn.q.val();
        self.m_ack.pkey.next = self.r_pkey.q.val();
        self.m_ack.path.next = self.r_path.q.val();
        self.m_ack.psn.next = self.ack_psn.q.val();
        self.m_ack.kind.next = self.ack_kind.q.val();
        self.m_ack.code.next = self.ack_code.q.val();
        self.m_ack.msn.next = self.ack_msn.q.val();
        self.m_ack.valid.next = self.ack_valid.q.val();
        self.m_qps.qpn.next = self.r_qpn.q.val();
        self.m_qps.mask.next = self.r_mask.q.val();
        self.m_qps.data.next = self.qw_data.q.val();
        self.m_qps.valid.next = self.qw_valid.q.val();

        if self.reset.val() {
            self.in_ready.d.next = true;
            self.x_valid.d.next = false;
            self.head_pend.d.next = false;
            self.answering.d.next = false;
            self.draining.d.next = false;
            self.out_wait.d.next = false;
            self.fail.d.next = false;
            self.pend.d.next = 0.into();
            self.pkt_valid.d.next = false;
            self.ack_valid.d.next = false;
            self.qw_valid.d.next = false;
        }
    }
}
