//! `RespExec`: the responder's execute stage for RDMA WRITE and SEND
//! (docs/transport.md "Responder", docs/core.md "Instances"). It takes
//! `RespCheck`'s records one per request packet, in order, does the key
//! check the record asks for through the translation unit (`MrXlate`),
//! fetches and walks a SEND's RECV WQE (child [`RecvWalk`]), turns the
//! placed payload into placement commands for `PayloadScatter` (`s_pkt` and
//! `s_piece`: the payload stream itself goes from `RxHold` to
//! `PayloadScatter` beside this block), and then sends the packet's ACK/NAK
//! request to `AckGen`, the RECV's completion to `cq_engine` and the
//! packet's `qps` line to the context cache.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_dec` ([`RespDecIn`]) | in | `RespCheck::m_dec`: one record per packet. Read: `qpn`, `psn`, `verdict`, `ack`, `syndrome`, `aeth_psn`, `aeth_msn`, `msn_before`, `key_check`, `key_access`, `rkey`, `va`, `len`, `recv_new`, `recv_index`, `recv_offset`, `recv_done`, `cqe_len`, `write`, `wr_mask`, `wr_data`. `ready` is a register. |
//! | `s_side` ([`ExecSideIn`]) | in | valid with `s_dec`: the QP's `PD`, `DEST_QPN`, `PKEY`, `PATH`, `RQ_BASE`, `RQ_LOG_SIZE`, `RQ_PROD`, `RECV_CQ`, `PMTU` (qpc) and the packet's payload length, first lane, immediate data and BTH.SE (its header) |
//! | `s_pre` | in | valid with `s_dec`: the record's translation requests went out ahead (`XlateAhead`, which queues the records in front of this block); it sends none and awaits one answer per request. Ignored for a SEND and a duplicate, whose requests this block makes |
//! | `m_xreq` (`MrReqOut`) | out | to `MrXlate::s_req`: key, PD, VA, length, access, id ([`RESP_XID_HEAD`](crate::consts::RESP_XID_HEAD) / `RESP_XID_TAIL` / `RESP_XID_SGE`), from registers |
//! | `s_xresp` (`MrRespIn`) | in | from `MrXlate::m_resp`: the answers in request order. `ready` is an AND of two registers. |
//! | `m_rd` / `s_rd` | out / in | DMA read client: RECV WQEs (64 bytes, one beat each, `tuser[0]` DMA error), from `RecvWalk`'s child `RqAhead`, which reads a QP's posted entries ahead; `s_rd.tready` constant 1 |
//! | `qp_inval` | in | a pulse from the context engine: a QP's context was loaded or invalidated (its rings may start again); the RQ entries read ahead are forgotten |
//! | `s_hint` ([`RqHintIn`]) | in | an RQ entry a queued record will ask for (the parent's, as the record enters `XlateAhead`): read ahead by `RqAhead` |
//! | `m_pkt` (`ScatterPktOut`) | out | to `PayloadScatter::s_pkt`: one per record, {`lane`, `drop`}; `drop` unless the payload is placed. From registers. |
//! | `m_piece` (`PieceOut`) | out | to `PayloadScatter::s_piece`: the placed payload's IOVA pieces, `last` on a packet's last one, from `PieceHold`'s register |
//! | `s_done` (`PktDoneIn`) | in | `PayloadScatter::m_done`: a placed packet's payload is written; always taken (`ready` constant) |
//! | `m_ack` (`RespReqOut`) | out | to `RespTx::s_req`: the record's ACK/NAK, the NAK of a failure here, or an executed READ to answer (`read`, its RETH's `va`, `len`, `rkey`, the QP's `pd` and `pmtu`); from the child [`AckHold`], offered once every placed packet up to the record's is written |
//! | `m_cqe` ([`RecvCqeOut`]) | out | the RECV's completion {`cq`, `wr_id`, `status`, `opcode`, `byte_len`, `qpn`, `wqe_index`, `imm`, `with_imm`, `solicited`}, for `cq_engine::s_cqe` (the caller lays out the 32-byte CQE); from `AckHold` as `m_ack` |
//! | `m_qps` ([`QpsWrOut`]) | out | the record's `qps` write {`qpn`, `mask`, `data`}, one per record (`mask` 0 when nothing is written: `rx_lookup`'s write-back, which retires the packet from its hazard check): a SEND's with `RECV_SGE`/`RECV_SGE_OFFSET` replaced; `IN_PROGRESS` = ERROR after a failure, with `wake` (as for a `RESP_NAK_INV` record's write: the QP's move into error); from registers |
//! | `m_atom` ([`AtomicReqOut`]) / `s_atom` ([`AtomicAnsIn`]) | out / in | an executed atomic whose key check passed, to `AtomicExec` once every placed packet before it is written (`AckHold::quiet`): the head's IOVA, FETCH_ADD or COMPARE_SWAP, the AtomicETH's data; its answer (`orig`, `err`: NAK remote operational error). `m_atom` from registers |
//!
//! **What a record does.** `chk` = `key_check` and `len` > 0 (a zero-length
//! WRITE needs no key, as the model); `place` = verdict
//! [`RESP_EXEC_WRITE`](crate::consts::RESP_EXEC_WRITE) or `RESP_EXEC_SEND`
//! and a payload. With `chk`, the range [`va`, `va + len`) (`len` the DMA
//! length) is checked by two requests: the tail (`va + len - 1`, 1 byte, its
//! piece discarded), then the head (`va`, the payload length when `place`,
//! else 1 byte). Both pass exactly when the range does: one key, so one
//! region, whose VA range is an interval, with one PD and one set of
//! rights. Without `chk` a placed WRITE MIDDLE/LAST translates its payload
//! range at its `va` with the rkey the record carries. A SEND (and a WRITE
//! with immediate at its end: `recv_done`) starts `RecvWalk`: it takes RQ
//! entry `recv_index` unless it holds it (from `RqAhead`, which reads the
//! QP's posted entries ahead), and for a SEND walks the payload
//! from byte `recv_offset` of the RECV over its SGEs, one LOCAL_WRITE
//! request per SGE piece with the SGE's lkey (the last one `RESP_XID_HEAD`,
//! the others `RESP_XID_SGE`). Pieces are written into [`PieceHold`] and
//! committed once every request's answer came, if none failed, else
//! discarded: a failing packet places nothing. Failures, as the model:
//!
//! | failure | NAK | CQE status (byte_len) |
//! |---|---|---|
//! | WRITE: a translation failed | remote access error | none (WRITE with immediate: none) |
//! | SEND: payload past the SGEs | invalid request | LOC_LEN_ERR (`recv_offset`) |
//! | SEND: an SGE's translation failed | remote operational error | LOC_PROT_ERR (`recv_offset`) |
//! | RQ entry: `NUM_SGE` > `MAX_SGE` (SEND), DMA error | remote operational error | LOC_QP_OP_ERR (0) |
//!
//! A failure's NAK carries the packet's PSN and `msn_before`, replaces the
//! record's own ACK/NAK, and sets `IN_PROGRESS` to ERROR in the `qps` write,
//! so `RespCheck` drops every later request of the QP. A RECV that
//! completes (`recv_done`) without failure gets its CQE: SUCCESS, RECV or
//! RECV_RDMA_WITH_IMM, `cqe_len`, the immediate and WITH_IMM when the packet
//! carries one, `solicited` when it carries BTH.SE. An executed READ whose key check passed (or of length 0)
//! is answered by `RespTx`: its request goes out on `m_ack` in the ACKs'
//! order, with the RETH, PD and PMTU (a failed check: the NAK instead).
//! An executed atomic is checked the same way over its 8 bytes (the head's
//! answer gives their IOVA), run by `AtomicExec` with the record held, and
//! answered by an ATOMIC ACKNOWLEDGE carrying the original value (in the
//! request's `va` field, `atomic` set). An RQ flush (`RESP_EXEC_FLUSH`)
//! fetches each RECV from `recv_index` up to `s_side.rq_prod` through
//! `RecvWalk` (`again`: the next entry) and pushes its CQE (WR_FLUSH_ERR,
//! LOC_QP_OP_ERR if its read failed; opcode RECV, `byte_len` 0) into
//! `AckHold`, one after the other, then offers its `qps` write; it has no
//! `m_pkt` (no payload), no `m_ack`; nor has a flush that found no RECV
//! (`RESP_FLUSH_NONE`), whose `qps` write passes through. A failure's `qps` write of a record
//! with a RECV sets RECV_WQE to the RECV after it when the failure
//! completed it, else to it, and clears RECV_VALID, so a flush completes
//! every other RECV exactly once. Records of other verdicts pass
//! their ACK/NAK and `qps` write through and drop the payload.
//!
//! **Order of events.** One record at a time: taken, its requests offered
//! (tail, head; or the walk's), its answers taken, its pieces committed and
//! every one taken by `PayloadScatter`, the walk over; only then are
//! `m_pkt`, the ACK/CQE and `m_qps` loaded (together), and the next record
//! is taken once all are taken (they are driven from the record's
//! registers). The ACK and CQE go into [`AckHold`] once the record's own
//! `m_pkt` was taken; it offers them on `m_ack` / `m_cqe` only once every
//! placed packet up to this one came back on `s_done`: IBTA's "data placed
//! before the ACK", and the CQE after its data. The next record does not
//! wait for that (before session 15 it did: a packet with AckReq held the
//! responder for its whole payload's write). Everything leaves in packet
//! order.
//!
//! **Latency and rate** (`tb/tests/resp_exec.rs`, with `L` the translation
//! unit's cycles from a request taken to its first answer beat offered): a
//! placed WRITE without key check taken at t has its first piece offered at
//! t + [`RESP_EXEC_PIECE_LATENCY`] + `L`; with the key check (two requests)
//! one cycle later; a SEND whose RECV WQE is held and whose offset lies in
//! SGE 0 at t + [`RESP_EXEC_SEND_PIECE_LATENCY`] + `L`, one cycle more per
//! SGE skipped; a RECV's first packet [`RESP_EXEC_AHEAD_EXTRA`] more when
//! its entry was read ahead, else [`RESP_EXEC_FETCH_EXTRA`] + the DMA
//! latency more. A record takes the block for `L` +
//! [`RESP_EXEC_PLACE_PERIOD`] cycles with one piece (one more per further
//! piece), [`RESP_EXEC_IDLE_PERIOD`] without translation. With `MrXlate`'s
//! hit latency (25) a 4 KiB WRITE MIDDLE takes 31 cycles, under the 64 its
//! payload takes at one beat per cycle, so `PayloadScatter` is never short of
//! commands on a stream of full packets.
//!
//! **Why this structure.** A record is executed alone: the translation
//! round trip is far shorter than a full packet's payload, so overlapping
//! records buys no throughput for full-size packets, and one record at a
//! time gives the ordering (no ACK before the placement, packet order) with
//! no per-record FIFO of 1 KiB records. The SEND-only part (the RQ read, the
//! WQE registers, the SGE sequencer) is the child `RecvWalk`; its requests
//! enter the same request register as WRITE's. Small packets pay the round
//! trip each unless `XlateAhead` sent them ahead (`s_pre`, session 40): in
//! the core the records queue there and find their answers waiting, and a
//! small WRITE takes the block for about 7 cycles instead of 31.

use super::ScatterPktOut;
use super::{
    AckHold, AtomicAnsIn, AtomicReqOut, PieceHold, PieceOut, PktDoneIn, RecvWalk, RespDecIn, RespReqOut, RqHintIn,
};
use super::{ReplayFindOut, ReplayFoundIn, ReplayPutOut, ACK_QPN_BITS, PATH_BITS, PIECE_LEN_BITS};
use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::RdCmdOut;
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
/// Cycles from a SEND record taken to its first piece offered, without the
/// translation latency, when its RECV WQE is held and its offset lies in
/// SGE 0: the walk's request (2, `RecvWalk`), the request register (1),
/// `PieceHold` (2).
pub const RESP_EXEC_SEND_PIECE_LATENCY: u64 = 2 + RESP_EXEC_PIECE_LATENCY;
/// Cycles the RQ entry read adds to that, beside the DMA's own latency
/// (from the command taken to its beat offered), when `RqAhead` had not
/// read it ahead.
pub const RESP_EXEC_FETCH_EXTRA: u64 = super::RECV_WALK_READ_EXTRA;
/// Cycles a RECV's first packet adds when `RqAhead` read its entry ahead.
pub const RESP_EXEC_AHEAD_EXTRA: u64 = super::RECV_WALK_ASK_EXTRA;
/// Pieces of one packet counted (the head: at most `PIECE_HOLD` places).
const COUNT_BITS: usize = super::PIECE_HOLD_LOG + 1;
const _: () = assert!(qps::IN_PROGRESS.width == 2 && IP_ERROR == 3 && QPS_IN_PROGRESS_POS == qps::IN_PROGRESS.pos());
const _: () = assert!(RESP_XID_SGE < 1 << MR_ID_BITS && ACK_QPN_BITS <= 24);
const _: () = assert!(qps::RECV_SGE.width == 2 && qps::RECV_SGE_OFFSET.width == 32);

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
    pub rq_base: Signal<In, Bits<64>>,
    pub rq_log: Signal<In, Bits<4>>,
    pub rq_prod: Signal<In, Bits<16>>,
    pub recv_cq: Signal<In, Bits<24>>,
    pub imm: Signal<In, Bits<32>>,
    pub imm_valid: Signal<In, Bit>,
    /// The QP's PMTU code (a READ's responses).
    pub pmtu: Signal<In, Bits<3>>,
    /// BTH.SE of the packet (a RECV's completion is solicited).
    pub se: Signal<In, Bit>,
    /// An atomic's: FETCH_ADD (else COMPARE_SWAP), the AtomicETH's compare and swap/add data.
    pub fadd: Signal<In, Bit>,
    pub cmp: Signal<In, Bits<64>>,
    pub swap_add: Signal<In, Bits<64>>,
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
    pub rq_base: Signal<Out, Bits<64>>,
    pub rq_log: Signal<Out, Bits<4>>,
    pub rq_prod: Signal<Out, Bits<16>>,
    pub recv_cq: Signal<Out, Bits<24>>,
    pub imm: Signal<Out, Bits<32>>,
    pub imm_valid: Signal<Out, Bit>,
    pub pmtu: Signal<Out, Bits<3>>,
    /// BTH.SE of the packet.
    pub se: Signal<Out, Bit>,
    pub fadd: Signal<Out, Bit>,
    pub cmp: Signal<Out, Bits<64>>,
    pub swap_add: Signal<Out, Bits<64>>,
}

/// A receive completion request: `comp_ack`'s `CompCqeOut` with the
/// immediate data and `IBV_WC_WITH_IMM` (`layouts::cqe`).
#[derive(LogicInterface, Default)]
#[join = "RecvCqeIn"]
pub struct RecvCqeOut {
    pub cq: Signal<Out, Bits<24>>,
    pub wr_id: Signal<Out, Bits<64>>,
    pub status: Signal<Out, Bits<8>>,
    pub opcode: Signal<Out, Bits<8>>,
    pub byte_len: Signal<Out, Bits<32>>,
    pub qpn: Signal<Out, Bits<24>>,
    pub wqe_index: Signal<Out, Bits<16>>,
    pub imm: Signal<Out, Bits<32>>,
    pub with_imm: Signal<Out, Bit>,
    /// The completing packet asked for a solicited event (BTH.SE): a CQ
    /// armed for solicited completions only interrupts for it.
    pub solicited: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "RecvCqeOut"]
pub struct RecvCqeIn {
    pub cq: Signal<In, Bits<24>>,
    pub wr_id: Signal<In, Bits<64>>,
    pub status: Signal<In, Bits<8>>,
    pub opcode: Signal<In, Bits<8>>,
    pub byte_len: Signal<In, Bits<32>>,
    pub qpn: Signal<In, Bits<24>>,
    pub wqe_index: Signal<In, Bits<16>>,
    pub imm: Signal<In, Bits<32>>,
    pub with_imm: Signal<In, Bit>,
    pub solicited: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A `qps` line write: `ctx_cache.write(qpn, mask, data)`; `wake`: once
/// the write is in the cache, tell the send scheduler the QP may have
/// work again (the completer's UNA moved: the window may have reopened).
#[derive(LogicInterface, Default)]
#[join = "QpsWrIn"]
pub struct QpsWrOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub mask: Signal<Out, Bits<64>>,
    pub data: Signal<Out, Bits<512>>,
    pub wake: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "QpsWrOut"]
pub struct QpsWrIn {
    pub qpn: Signal<In, Bits<24>>,
    pub mask: Signal<In, Bits<64>>,
    pub data: Signal<In, Bits<512>>,
    pub wake: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct RespExec {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_dec: RespDecIn,
    pub s_side: ExecSideIn,
    /// Valid with `s_dec`: the record's translation requests went out
    /// ahead (`XlateAhead`); their answers come on `s_xresp` all the same.
    pub s_pre: Signal<In, Bit>,
    pub m_xreq: MrReqOut,
    pub s_xresp: MrRespIn,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub qp_inval: Signal<In, Bit>,
    pub s_hint: RqHintIn,
    pub m_pkt: ScatterPktOut,
    pub m_piece: PieceOut,
    pub s_done: PktDoneIn,
    pub m_ack: RespReqOut,
    pub m_cqe: RecvCqeOut,
    pub m_qps: QpsWrOut,
    pub m_atom: AtomicReqOut,
    pub s_atom: AtomicAnsIn,
    pub m_put: ReplayPutOut,
    pub m_find: ReplayFindOut,
    pub s_found: ReplayFoundIn,
    /// A pulse from a register: a duplicate READ or atomic found nothing to
    /// replay (dropped silently, counted as the model's `dropped`).
    pub rp_miss: Signal<Out, Bit>,
    hold: PieceHold,
    walk: RecvWalk,
    acks: AckHold,
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
    // ---- the RECV side of the record
    r_send: Reg<Bit>,
    r_walk: Reg<Bit>,
    r_recv_done: Reg<Bit>,
    r_offset: Reg<Bits<32>>,
    r_cqe_len: Reg<Bits<32>>,
    r_index: Reg<Bits<16>>,
    r_imm: Reg<Bits<32>>,
    r_imm_valid: Reg<Bit>,
    r_se: Reg<Bit>,
    r_cq: Reg<Bits<24>>,
    /// An RQ flush (`RESP_EXEC_FLUSH`): RQ_PROD (the walk ends before it),
    /// the current entry's CQE loaded.
    r_flush: Reg<Bit>,
    /// A flush that found no RECV (`RESP_FLUSH_NONE`): no payload, so no `m_pkt`.
    r_nopkt: Reg<Bit>,
    r_end: Reg<Bits<16>>,
    fl_cq: Reg<Bit>,
    /// `r_index` + 1 differs from `r_end`: a register (the compare is off
    /// the `again` path; `r_index` changes at most once per RECV, several
    /// cycles apart).
    fl_more: Reg<Bit>,
    /// An executed READ: its RETH and the QP's PMTU, for its responses.
    r_read: Reg<Bit>,
    r_rd_va: Reg<Bits<64>>,
    r_rd_len: Reg<Bits<32>>,
    r_rd_rkey: Reg<Bits<32>>,
    r_pmtu: Reg<Bits<3>>,
    /// An executed atomic: its operation and data, its translated address,
    /// its request offered, sent, answered (the answer's `orig` goes into
    /// `r_rd_va`, where a READ's request carries its VA), failed.
    r_atomic: Reg<Bit>,
    r_fadd: Reg<Bit>,
    r_cmp: Reg<Bits<64>>,
    r_swap: Reg<Bits<64>>,
    a_iova: Reg<Bits<64>>,
    a_valid: Reg<Bit>,
    a_sent: Reg<Bit>,
    a_done: Reg<Bit>,
    a_err: Reg<Bit>,
    /// A duplicate READ or atomic (`RESP_DUP_READ`/`RESP_DUP_ATOMIC`): its
    /// find offered, then held until `s_found`; a replayed atomic (its saved
    /// value in `r_rd_va`); its READ's last byte (a replay's key check).
    r_dup: Reg<Bit>,
    r_dup_atomic: Reg<Bit>,
    f_valid: Reg<Bit>,
    r_ratomic: Reg<Bit>,
    r_tail: Reg<Bits<64>>,
    miss_q: Reg<Bit>,
    /// An executed READ's or atomic's resource, for `ReplayTable`.
    p_valid: Reg<Bit>,
    p_slot: Reg<Bits<4>>,
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
    left: Reg<Bits<3>>,
    fail: Reg<Bit>,
    wcount: Reg<Bits<COUNT_BITS>>,
    pend: Reg<Bits<COUNT_BITS>>,
    draining: Reg<Bit>,
    out_wait: Reg<Bit>,
    // ---- outputs
    pkt_valid: Reg<Bit>,
    pkt_drop: Reg<Bit>,
    ack_valid: Reg<Bit>,
    ack_read: Reg<Bit>,
    ack_atomic: Reg<Bit>,
    ack_psn: Reg<Bits<24>>,
    ack_kind: Reg<Bits<2>>,
    ack_code: Reg<Bits<5>>,
    ack_msn: Reg<Bits<24>>,
    qw_valid: Reg<Bit>,
    qw_mask: Reg<Bits<64>>,
    qw_data: Reg<Bits<512>>,
    /// The write moves the QP's responder into error (a failure here, or
    /// an invalid request's NAK): `m_qps.wake`.
    qw_wake: Reg<Bit>,
    /// The record's verdict is `RESP_NAK_INV` (the QP's responder fails).
    r_inv: Reg<Bit>,
    cqe_valid: Reg<Bit>,
    cqe_status: Reg<Bits<8>>,
    cqe_opcode: Reg<Bits<8>>,
    cqe_len: Reg<Bits<32>>,
    cqe_with_imm: Reg<Bit>,
    cqe_solicited: Reg<Bit>,
    // ---- locals
    take: Signal<Local, Bit>,
    chk: Signal<Local, Bit>,
    place: Signal<Local, Bit>,
    is_send: Signal<Local, Bit>,
    use_walk: Signal<Local, Bit>,
    pre: Signal<Local, Bit>,
    resp_ready: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    is_tail: Signal<Local, Bit>,
    x_free: Signal<Local, Bit>,
    x_take: Signal<Local, Bit>,
    w_take: Signal<Local, Bit>,
    more: Signal<Local, Bit>,
    ans_end: Signal<Local, Bit>,
    fail_now: Signal<Local, Bit>,
    wr: Signal<Local, Bit>,
    pkt_gone: Signal<Local, Bit>,
    inc: Signal<Local, Bit>,
    free: Signal<Local, Bit>,
    finish: Signal<Local, Bit>,
    s_len: Signal<Local, Bit>,
    s_bad: Signal<Local, Bit>,
    err: Signal<Local, Bit>,
    sge_off: Signal<Local, Bits<32>>,
    a_go: Signal<Local, Bit>,
    is_flush: Signal<Local, Bit>,
    fl_load: Signal<Local, Bit>,
    fl_pushed: Signal<Local, Bit>,
    recv_next: Signal<Local, Bits<16>>,
    err_data: Signal<Local, Bits<512>>,
    is_dup: Signal<Local, Bit>,
    tail_va: Signal<Local, Bits<64>>,
    n_slot: Signal<Local, Bits<4>>,
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
            r_send,
            r_walk,
            r_recv_done,
            r_offset,
            r_cqe_len,
            r_index,
            r_imm,
            r_imm_valid,
            r_se,
            r_cq,
            r_flush,
            r_nopkt,
            r_end,
            fl_cq,
            fl_more,
            r_read,
            r_rd_va,
            r_rd_len,
            r_rd_rkey,
            r_pmtu,
            r_atomic,
            r_fadd,
            r_cmp,
            r_swap,
            a_iova,
            a_valid,
            a_sent,
            a_done,
            a_err,
            r_dup,
            r_dup_atomic,
            f_valid,
            r_ratomic,
            r_tail,
            miss_q,
            p_valid,
            p_slot,
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
            ack_read,
            ack_atomic,
            ack_psn,
            ack_kind,
            ack_code,
            ack_msn,
            qw_valid,
            qw_mask,
            qw_data,
            qw_wake,
            r_inv,
            cqe_valid,
            cqe_status,
            cqe_opcode,
            cqe_len,
            cqe_with_imm,
            cqe_solicited
        );
        clock!(self, clock, hold, walk, acks);
        self.hold.reset.next = self.reset.val();
        self.acks.reset.next = self.reset.val();
        self.walk.reset.next = self.reset.val();

        // ---- take a record: hold it, offer its first translation request
        self.s_dec.ready.next = self.in_ready.q.val();
        self.take.next = self.s_dec.valid.val() & self.in_ready.q.val();
        self.chk.next = self.s_dec.key_check.val() & self.s_dec.len.val().any();
        self.is_send.next = self.s_dec.verdict.val() == RESP_EXEC_SEND;
        self.place.next =
            ((self.s_dec.verdict.val() == RESP_EXEC_WRITE) | self.is_send.val()) & self.s_side.plen.val().any();
        self.is_flush.next = self.s_dec.verdict.val() == RESP_EXEC_FLUSH;
        self.use_walk.next = self.is_send.val()
            | ((self.s_dec.verdict.val() == RESP_EXEC_WRITE) & self.s_dec.recv_done.val())
            | self.is_flush.val();
        self.is_dup.next = (self.s_dec.verdict.val() == RESP_DUP_READ) | (self.s_dec.verdict.val() == RESP_DUP_ATOMIC);
        self.tail_va.next = self.s_dec.va.val() + bit_cast::<64, 32>(self.s_dec.len.val()) - 1;
        // (a SEND's and a duplicate's requests are never issued ahead)
        self.pre.next = self.s_pre.val() & !self.is_send.val() & !self.is_dup.val();
        // slot HEAD' + COUNT' - 1 of the new state (`RespCheck` moved the window)
        self.n_slot.next = self.r_data.q.val().get_bits::<4>(QPS_REPLAY_HEAD_POS)
            + self.r_data.q.val().get_bits::<4>(QPS_REPLAY_COUNT_POS)
            - 1;
        // ---- a duplicate's answer (before `take`: it comes only while a record is held)
        self.miss_q.d.next = false;
        if self.s_found.valid.val() {
            if !self.s_found.hit.val() {
                self.draining.d.next = true;
                self.miss_q.d.next = true;
            } else if self.r_dup_atomic.q.val() {
                // the saved value, ACKed again; the atomic is not run again
                self.r_rd_va.d.next = self.s_found.orig.val();
                self.r_ratomic.d.next = true;
                self.draining.d.next = true;
            } else {
                // the READ's responses again, after its key check again (the model's)
                self.r_read.d.next = true;
                self.draining.d.next = !self.r_rd_len.q.val().any();
                self.answering.d.next = self.r_rd_len.q.val().any();
                self.x_valid.d.next = self.r_rd_len.q.val().any();
                self.head_pend.d.next = self.r_rd_len.q.val().any();
                self.x_va.d.next = self.r_tail.q.val();
                self.x_len.d.next = 1.into();
                self.x_id.d.next = RESP_XID_TAIL.into();
            }
        }
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
            self.r_send.d.next = self.is_send.val();
            self.r_walk.d.next = self.use_walk.val();
            self.r_recv_done.d.next = self.s_dec.recv_done.val();
            self.r_offset.d.next = self.s_dec.recv_offset.val();
            self.r_cqe_len.d.next = self.s_dec.cqe_len.val();
            self.r_index.d.next = self.s_dec.recv_index.val();
            self.r_imm.d.next = self.s_side.imm.val();
            self.r_imm_valid.d.next = self.s_side.imm_valid.val();
            self.r_se.d.next = self.s_side.se.val();
            self.r_cq.d.next = self.s_side.recv_cq.val();
            self.r_flush.d.next = self.is_flush.val();
            self.r_nopkt.d.next = self.s_dec.verdict.val() == RESP_FLUSH_NONE;
            self.r_inv.d.next = self.s_dec.verdict.val() == RESP_NAK_INV;
            self.r_end.d.next = self.s_side.rq_prod.val();
            self.fl_cq.d.next = false;
            self.r_read.d.next = self.s_dec.verdict.val() == RESP_EXEC_READ;
            self.r_rd_va.d.next = self.s_dec.va.val();
            self.r_rd_len.d.next = self.s_dec.len.val();
            self.r_rd_rkey.d.next = self.s_dec.rkey.val();
            self.r_pmtu.d.next = self.s_side.pmtu.val();
            self.r_atomic.d.next = self.s_dec.verdict.val() == RESP_EXEC_ATOMIC;
            self.r_fadd.d.next = self.s_side.fadd.val();
            self.r_cmp.d.next = self.s_side.cmp.val();
            self.r_swap.d.next = self.s_side.swap_add.val();
            self.a_sent.d.next = false;
            self.a_done.d.next = false;
            self.a_err.d.next = false;
            self.r_dup.d.next = self.is_dup.val();
            self.r_dup_atomic.d.next = self.s_dec.verdict.val() == RESP_DUP_ATOMIC;
            self.f_valid.d.next = self.is_dup.val();
            self.r_ratomic.d.next = false;
            self.r_tail.d.next = self.tail_va.val();
            // a SEND's requests come from the walk; a record's issued ahead
            // are only awaited: one answer (`last`) per request
            self.x_valid.d.next = (self.chk.val() | self.place.val()) & !self.is_send.val() & !self.pre.val();
            if self.pre.val() & (self.chk.val() | self.place.val()) {
                self.left.d.next = 1.into();
                if self.chk.val() {
                    self.left.d.next = 2.into();
                }
            }
            self.x_key.d.next = self.s_dec.rkey.val();
            self.x_pd.d.next = self.s_side.pd.val();
            self.x_access.d.next = self.s_dec.key_access.val();
            if self.is_send.val() {
                self.x_access.d.next = ACC_LOCAL_WRITE.into();
            }
            self.h_va.d.next = self.s_dec.va.val();
            self.h_len.d.next = 1.into();
            if self.place.val() {
                self.h_len.d.next = bit_cast::<32, 16>(self.s_side.plen.val());
            }
            // the tail first when checking, else the head
            self.head_pend.d.next = self.chk.val() & !self.pre.val();
            self.x_va.d.next = self.s_dec.va.val();
            self.x_len.d.next = bit_cast::<32, 16>(self.s_side.plen.val());
            self.x_id.d.next = RESP_XID_HEAD.into();
            if self.chk.val() {
                self.x_va.d.next = self.tail_va.val();
                self.x_len.d.next = 1.into();
                self.x_id.d.next = RESP_XID_TAIL.into();
            }
            self.answering.d.next = self.chk.val() | self.place.val();
            // (a duplicate waits for its find's answer)
            self.draining.d.next = !(self.chk.val() | self.place.val() | self.is_dup.val());
            self.fail.d.next = false;
            self.wcount.d.next = 0.into();
        }
        // ---- the RECV WQE and a SEND's SGE walk (child)
        self.walk.start.next = self.take.val() & self.use_walk.val();
        self.walk.qpn.next = self.s_dec.qpn.val();
        self.walk.index.next = self.s_dec.recv_index.val();
        self.walk.fresh.next = self.s_dec.recv_new.val();
        self.walk.offset.next = self.s_dec.recv_offset.val();
        self.walk.plen.next = self.s_side.plen.val();
        self.walk.rq_base.next = self.s_side.rq_base.val();
        self.walk.rq_log.next = self.s_side.rq_log.val();
        self.walk.rq_prod.next = self.s_side.rq_prod.val();
        self.walk.sges.next = self.is_send.val();
        self.walk.inval.next = self.qp_inval.val();
        RqHintIn::link(&mut self.s_hint, &mut self.walk.s_hint);
        RdCmdOut::link(&mut self.m_rd, &mut self.walk.m_rd);
        AxisIn::<512, 64, 1>::link(&mut self.s_rd, &mut self.walk.s_rd);
        // ---- the request register: WRITE's head after its tail, or the walk's next piece
        self.x_free.next = !self.x_valid.q.val() | self.m_xreq.ready.val();
        self.x_take.next = self.x_valid.q.val() & self.m_xreq.ready.val();
        self.walk.q.ready.next = self.x_free.val() & !self.head_pend.q.val();
        self.w_take.next = self.walk.q.valid.val() & self.x_free.val() & !self.head_pend.q.val();
        if self.x_take.val() {
            self.x_valid.d.next = self.head_pend.q.val();
            self.head_pend.d.next = false;
            self.x_va.d.next = self.h_va.q.val();
            self.x_len.d.next = self.h_len.q.val();
            self.x_id.d.next = RESP_XID_HEAD.into();
        }
        if self.w_take.val() {
            self.x_valid.d.next = true;
            self.x_va.d.next = self.walk.q.va.val();
            self.x_len.d.next = self.walk.q.len.val();
            self.x_key.d.next = self.walk.q.key.val();
            self.x_id.d.next = RESP_XID_SGE.into();
            if self.walk.q.last.val() {
                self.x_id.d.next = RESP_XID_HEAD.into();
            }
        }
        self.m_xreq.key.next = self.x_key.q.val();
        self.m_xreq.pd.next = self.x_pd.q.val();
        self.m_xreq.va.next = self.x_va.q.val();
        self.m_xreq.len.next = self.x_len.q.val();
        self.m_xreq.access.next = self.x_access.q.val();
        self.m_xreq.id.next = self.x_id.q.val();
        self.m_xreq.valid.next = self.x_valid.q.val();

        // ---- answers: pieces into the hold, committed once all came and none failed
        self.resp_ready.next = self.answering.q.val() & self.hold.room.val();
        self.s_xresp.ready.next = self.resp_ready.val();
        self.fire.next = self.s_xresp.valid.val() & self.resp_ready.val();
        self.bad.next = self.s_xresp.verdict.val().any();
        self.is_tail.next = self.s_xresp.id.val() == RESP_XID_TAIL;
        self.fail_now.next = self.fail.q.val() | (self.fire.val() & self.bad.val());
        self.wr.next = self.fire.val()
            & !self.is_tail.val()
            & self.r_place.q.val()
            & !self.fail_now.val()
            & self.s_xresp.len.val().any();
        self.hold.w_valid.next = self.wr.val();
        self.hold.w_iova.next = self.s_xresp.iova.val();
        self.hold.w_len.next = self.s_xresp.len.val().get_bits::<PIECE_LEN_BITS>(0);
        self.hold.w_last.next = self.s_xresp.last.val() & (self.s_xresp.id.val() == RESP_XID_HEAD);
        // requests still to come: the one offered, WRITE's head, the walk's
        self.more.next = self.x_valid.q.val() | self.head_pend.q.val() | (self.r_send.q.val() & !self.walk.done.val());
        self.ans_end.next = self.answering.q.val()
            & !self.more.val()
            & (!self.left.q.val().any() | ((self.left.q.val() == 1) & self.fire.val() & self.s_xresp.last.val()));
        self.hold.commit.next = self.ans_end.val()
            & self.r_place.q.val()
            & !self.fail_now.val()
            & !(self.r_send.q.val() & (self.walk.len_err.val() | self.walk.bad.val()));
        self.hold.discard.next = self.ans_end.val() & !self.hold.commit.val();
        if self.fire.val() & self.bad.val() {
            self.fail.d.next = true;
        }
        // an atomic's 8 bytes: the head's answer (one piece: aligned, in one page)
        if self.fire.val() & !self.is_tail.val() {
            self.a_iova.d.next = self.s_xresp.iova.val();
        }
        if self.wr.val() {
            self.wcount.d.next = self.wcount.q.val() + 1;
        }
        if self.x_take.val() & !(self.fire.val() & self.s_xresp.last.val()) {
            self.left.d.next = self.left.q.val() + 1;
        }
        if !self.x_take.val() & self.fire.val() & self.s_xresp.last.val() {
            self.left.d.next = self.left.q.val() - 1;
        }
        if self.ans_end.val() {
            self.answering.d.next = false;
            self.draining.d.next = true;
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

        // ---- the ACK and CQE wait in `AckHold` for the placed packets' writes
        self.s_done.ready.next = true;
        self.pkt_gone.next = !self.pkt_valid.q.val() | self.m_pkt.ready.val();
        self.inc.next = self.pkt_valid.q.val() & !self.pkt_drop.q.val() & self.m_pkt.ready.val();
        self.acks.placed.next = self.inc.val();
        self.acks.done.next = self.s_done.valid.val();

        // ---- finish: the packet's commands issued, its outputs loaded
        if self.m_pkt.ready.val() {
            self.pkt_valid.d.next = false;
        }
        // pushed once the record's own `m_pkt` is taken (it counts first)
        if self.pkt_gone.val() & self.acks.s_ack.ready.val() {
            self.ack_valid.d.next = false;
            self.cqe_valid.d.next = false;
        }
        if self.m_qps.ready.val() {
            self.qw_valid.d.next = false;
        }
        if self.p_valid.q.val() & self.m_put.ready.val() {
            self.p_valid.d.next = false;
        }
        // (the next record only once the table holds this one's resource:
        // a duplicate of it then finds it)
        self.free.next = self.pkt_gone.val()
            & (!(self.ack_valid.q.val() | self.cqe_valid.q.val()) | self.acks.s_ack.ready.val())
            & (!self.qw_valid.q.val() | self.m_qps.ready.val())
            & (!self.p_valid.q.val() | self.m_put.ready.val());
        // the outputs are empty when a record is taken (below), so free here
        // an atomic whose check passed runs once every placed packet is written
        self.a_go.next = self.draining.q.val()
            & self.r_atomic.q.val()
            & !self.fail.q.val()
            & !self.a_sent.q.val()
            & self.acks.quiet.val();
        if self.a_valid.q.val() & self.m_atom.ready.val() {
            self.a_valid.d.next = false;
        }
        if self.a_go.val() {
            self.a_valid.d.next = true;
            self.a_sent.d.next = true;
        }
        if self.s_atom.valid.val() {
            self.a_done.d.next = true;
            self.a_err.d.next = self.s_atom.err.val();
            self.r_rd_va.d.next = self.s_atom.orig.val();
        }
        self.m_atom.iova.next = self.a_iova.q.val();
        self.m_atom.fadd.next = self.r_fadd.q.val();
        self.m_atom.cmp.next = self.r_cmp.q.val();
        self.m_atom.swap_add.next = self.r_swap.q.val();
        self.m_atom.valid.next = self.a_valid.q.val();
        self.finish.next = self.draining.q.val()
            & !self.r_flush.q.val()
            & !self.pend.q.val().any()
            & (!self.r_walk.q.val() | self.walk.done.val())
            & (!self.r_atomic.q.val() | self.fail.q.val() | self.a_done.q.val());
        // a SEND's own failures: longer than its SGEs, a WQE that cannot be walked
        self.s_len.next = self.r_send.q.val() & self.walk.len_err.val();
        self.s_bad.next = self.r_walk.q.val() & self.walk.bad.val();
        self.err.next = self.fail.q.val() | self.s_len.val() | self.s_bad.val() | self.a_err.q.val();
        self.sge_off.next = self.r_data.q.val().get_bits::<32>(QPS_SGE_OFFSET_POS) ^ self.walk.pos_off.val();
        // a failure's `qps` write: IN_PROGRESS ERROR; a record with a RECV
        // leaves RECV_WQE at the RECV after it when it completed it with an
        // error (a SEND's failure, a WQE that cannot be walked), else at it
        // (a WRITE with immediate refused consumes none), and RECV_VALID
        // clear: an RQ flush completes each other RECV exactly once
        self.recv_next.next = self.r_index.q.val();
        if self.r_send.q.val() | self.s_bad.val() {
            self.recv_next.next = self.r_index.q.val() + 1;
        }
        self.err_data.next =
            self.r_data.q.val().replace_bit(QPS_IN_PROGRESS_POS, true).replace_bit(QPS_IN_PROGRESS_POS + 1, true);
        if self.r_walk.q.val() {
            self.err_data.next = ((self.err_data.val() & !(bit_cast::<512, 16>(0xFFFF.into()) << QPS_RECV_WQE_POS))
                | (bit_cast::<512, 16>(self.recv_next.val()) << QPS_RECV_WQE_POS))
                .replace_bit(QPS_RECV_VALID_POS, false);
        }
        if self.finish.val() {
            self.draining.d.next = false;
            self.out_wait.d.next = true;
            // (a flush record has no payload: nothing for `PayloadScatter`)
            self.pkt_valid.d.next = !self.r_nopkt.q.val();
            self.pkt_drop.d.next = !self.r_place.q.val() | self.err.val();
            // an executed READ is answered by its responses (`RespGen`), in the ACKs' order
            self.ack_valid.d.next = self.r_ack.q.val()
                | self.err.val()
                | self.r_read.q.val()
                | self.r_atomic.q.val()
                | self.r_ratomic.q.val();
            self.ack_read.d.next = self.r_read.q.val() & !self.err.val();
            self.ack_atomic.d.next = (self.r_atomic.q.val() | self.r_ratomic.q.val()) & !self.err.val();
            // an executed READ or atomic is remembered in the slot its new state names
            self.p_valid.d.next = (self.r_read.q.val() | self.r_atomic.q.val()) & !self.err.val() & !self.r_dup.q.val();
            self.p_slot.d.next = self.n_slot.val();
            self.ack_psn.d.next = self.r_aeth_psn.q.val();
            self.ack_kind.d.next = self.r_syndrome.q.val().get_bits::<2>(AETH_KIND_POS);
            self.ack_code.d.next = self.r_syndrome.q.val().get_bits::<5>(0);
            self.ack_msn.d.next = self.r_aeth_msn.q.val();
            // one item per record, in order, also when nothing is written
            // (mask 0): `rx_lookup` retires the packet from its hazard check by it
            self.qw_valid.d.next = true;
            // (the QP's move into error: the send scheduler is woken once the
            // write is in the cache, the requester's grant then has the
            // completer flush the QP, as after the driver's modify to ERR)
            self.qw_wake.d.next = self.err.val() | self.r_inv.q.val();
            self.qw_mask.d.next = 0.into();
            if self.r_write.q.val() | self.err.val() {
                self.qw_mask.d.next = self.r_mask.q.val();
            }
            self.qw_data.d.next = self.r_data.q.val();
            if self.r_send.q.val() {
                // where the next packet of the message continues
                self.qw_data.d.next = (self.r_data.q.val()
                    ^ (bit_cast::<512, 32>(self.sge_off.val()) << QPS_SGE_OFFSET_SHIFT))
                    .replace_bit(QPS_RECV_SGE_POS, self.walk.pos_sge.val().get_bit(0))
                    .replace_bit(QPS_RECV_SGE_POS + 1, self.walk.pos_sge.val().get_bit(1));
            }
            // the RECV's completion: at its end, or a SEND's failure
            self.cqe_valid.d.next = (self.r_recv_done.q.val() & !self.err.val())
                | (self.r_send.q.val() & self.err.val())
                | self.s_bad.val();
            self.cqe_status.d.next = WCS_SUCCESS.into();
            self.cqe_opcode.d.next = WCO_RECV.into();
            if !self.r_send.q.val() {
                self.cqe_opcode.d.next = WCO_RECV_RDMA_IMM.into();
            }
            self.cqe_len.d.next = self.r_cqe_len.q.val();
            self.cqe_with_imm.d.next = self.r_imm_valid.q.val() & !self.err.val();
            self.cqe_solicited.d.next = self.r_se.q.val() & !self.err.val();
            if self.err.val() {
                self.ack_psn.d.next = self.r_psn.q.val();
                self.ack_kind.d.next = AETH_KIND_NAK.into();
                self.ack_code.d.next = AETH_NAK_REMOTE_ACCESS.into();
                if self.r_send.q.val() | self.s_bad.val() | self.a_err.q.val() {
                    self.ack_code.d.next = AETH_NAK_REMOTE_OP.into();
                }
                if self.s_len.val() {
                    self.ack_code.d.next = AETH_NAK_INVALID_REQ.into();
                }
                self.ack_msn.d.next = self.r_msn_before.q.val();
                self.qw_data.d.next = self.err_data.val();
                self.cqe_opcode.d.next = WCO_RECV.into();
                self.cqe_len.d.next = self.r_offset.q.val();
                self.cqe_status.d.next = WCS_LOC_PROT_ERR.into();
                if self.s_bad.val() {
                    self.cqe_status.d.next = WCS_LOC_QP_OP_ERR.into();
                    self.cqe_len.d.next = 0.into();
                }
                if self.s_len.val() {
                    self.cqe_status.d.next = WCS_LOC_LEN_ERR.into();
                }
            }
        }
        self.m_put.qpn.next = self.r_qpn.q.val();
        self.m_put.slot.next = self.p_slot.q.val();
        self.m_put.atomic.next = self.r_atomic.q.val();
        self.m_put.first_psn.next = self.r_psn.q.val();
        self.m_put.end_psn.next = self.r_data.q.val().get_bits::<24>(QPS_EPSN_POS);
        self.m_put.va.next = self.r_rd_va.q.val();
        self.m_put.rkey.next = self.r_rd_rkey.q.val();
        self.m_put.len.next = self.r_rd_len.q.val();
        self.m_put.valid.next = self.p_valid.q.val();
        // a duplicate's find: its RETH (an atomic's VA), the QP's window
        if self.f_valid.q.val() & self.m_find.ready.val() {
            self.f_valid.d.next = false;
        }
        self.m_find.qpn.next = self.r_qpn.q.val();
        self.m_find.psn.next = self.r_psn.q.val();
        self.m_find.atomic.next = self.r_dup_atomic.q.val();
        self.m_find.va.next = self.r_rd_va.q.val();
        self.m_find.rkey.next = self.r_rd_rkey.q.val();
        self.m_find.len.next = self.r_rd_len.q.val();
        self.m_find.head.next = self.r_data.q.val().get_bits::<4>(QPS_REPLAY_HEAD_POS);
        self.m_find.count.next = self.r_data.q.val().get_bits::<5>(QPS_REPLAY_COUNT_POS);
        self.m_find.pmtu.next = self.r_pmtu.q.val();
        self.m_find.valid.next = self.f_valid.q.val();
        self.rp_miss.next = self.miss_q.q.val();
        // ---- an RQ flush: each RECV from `recv_index` up to RQ_PROD fetched
        // (its WR_ID), completed with WR_FLUSH_ERR (LOC_QP_OP_ERR when its
        // read failed) through `AckHold`, then the next; after the last the
        // `qps` write (RECV_WQE = RQ_PROD), no ACK, no payload
        self.fl_load.next = self.draining.q.val() & self.r_flush.q.val() & self.walk.done.val() & !self.fl_cq.q.val();
        if self.fl_load.val() {
            self.fl_cq.d.next = true;
            self.cqe_valid.d.next = true;
            self.cqe_status.d.next = WCS_WR_FLUSH_ERR.into();
            if self.walk.bad.val() {
                self.cqe_status.d.next = WCS_LOC_QP_OP_ERR.into();
            }
            self.cqe_opcode.d.next = WCO_RECV.into();
            self.cqe_len.d.next = 0.into();
            self.cqe_with_imm.d.next = false;
            self.cqe_solicited.d.next = false;
        }
        self.fl_pushed.next = self.r_flush.q.val()
            & self.draining.q.val()
            & self.fl_cq.q.val()
            & self.cqe_valid.q.val()
            & self.acks.s_cqe.ready.val();
        self.fl_more.d.next = (self.r_index.q.val() + 1) != self.r_end.q.val();
        self.walk.again.next = self.fl_pushed.val() & self.fl_more.q.val();
        if self.fl_pushed.val() & self.fl_more.q.val() {
            self.r_index.d.next = self.r_index.q.val() + 1;
            self.fl_cq.d.next = false;
        }
        if self.fl_pushed.val() & !self.fl_more.q.val() {
            self.draining.d.next = false;
            self.out_wait.d.next = true;
            self.qw_valid.d.next = true;
            self.qw_wake.d.next = false;
            self.qw_mask.d.next = self.r_mask.q.val();
            self.qw_data.d.next = self.r_data.q.val();
        }
        // the next record once this one's outputs are taken: they are
        // driven from the record registers
        if self.out_wait.q.val() & self.free.val() {
            self.out_wait.d.next = false;
            self.in_ready.d.next = true;
        }
        self.m_pkt.lane.next = self.r_lane.q.val();
        self.m_pkt.drop.next = self.pkt_drop.q.val();
        self.m_pkt.imm.next = 0.into();
        self.m_pkt.imm_valid.next = false;
        self.m_pkt.valid.next = self.pkt_valid.q.val();
        self.acks.s_ack.qpn.next = self.r_qpn.q.val().get_bits::<ACK_QPN_BITS>(0);
        self.acks.s_ack.dest_qpn.next = self.r_dest_qpn.q.val();
        self.acks.s_ack.pkey.next = self.r_pkey.q.val();
        self.acks.s_ack.path.next = self.r_path.q.val();
        self.acks.s_ack.psn.next = self.ack_psn.q.val();
        self.acks.s_ack.kind.next = self.ack_kind.q.val();
        self.acks.s_ack.code.next = self.ack_code.q.val();
        self.acks.s_ack.msn.next = self.ack_msn.q.val();
        self.acks.s_ack.read.next = self.ack_read.q.val();
        self.acks.s_ack.va.next = self.r_rd_va.q.val();
        self.acks.s_ack.len.next = self.r_rd_len.q.val();
        self.acks.s_ack.rkey.next = self.r_rd_rkey.q.val();
        self.acks.s_ack.pd.next = self.x_pd.q.val();
        self.acks.s_ack.pmtu.next = self.r_pmtu.q.val();
        self.acks.s_ack.atomic.next = self.ack_atomic.q.val();
        self.acks.s_ack.valid.next = self.ack_valid.q.val() & self.pkt_gone.val();
        self.acks.s_cqe.cq.next = self.r_cq.q.val();
        self.acks.s_cqe.wr_id.next = self.walk.wr_id.val();
        self.acks.s_cqe.status.next = self.cqe_status.q.val();
        self.acks.s_cqe.opcode.next = self.cqe_opcode.q.val();
        self.acks.s_cqe.byte_len.next = self.cqe_len.q.val();
        self.acks.s_cqe.qpn.next = self.r_qpn.q.val();
        self.acks.s_cqe.wqe_index.next = self.r_index.q.val();
        self.acks.s_cqe.imm.next = self.r_imm.q.val();
        self.acks.s_cqe.with_imm.next = self.cqe_with_imm.q.val();
        self.acks.s_cqe.solicited.next = self.cqe_solicited.q.val();
        self.acks.s_cqe.valid.next = self.cqe_valid.q.val() & self.pkt_gone.val();
        RespReqOut::link(&mut self.m_ack, &mut self.acks.m_ack);
        RecvCqeOut::link(&mut self.m_cqe, &mut self.acks.m_cqe);
        self.m_qps.qpn.next = self.r_qpn.q.val();
        self.m_qps.mask.next = self.qw_mask.q.val();
        self.m_qps.data.next = self.qw_data.q.val();
        self.m_qps.wake.next = self.qw_wake.q.val();
        self.m_qps.valid.next = self.qw_valid.q.val();

        if self.reset.val() {
            self.in_ready.d.next = true;
            self.x_valid.d.next = false;
            self.head_pend.d.next = false;
            self.answering.d.next = false;
            self.draining.d.next = false;
            self.out_wait.d.next = false;
            self.fail.d.next = false;
            self.left.d.next = 0.into();
            self.pend.d.next = 0.into();
            self.pkt_valid.d.next = false;
            self.ack_valid.d.next = false;
            self.cqe_valid.d.next = false;
            self.qw_valid.d.next = false;
            self.a_valid.d.next = false;
            self.a_sent.d.next = false;
            self.fl_cq.d.next = false;
            self.f_valid.d.next = false;
            self.p_valid.d.next = false;
            self.miss_q.d.next = false;
        }
    }
}
