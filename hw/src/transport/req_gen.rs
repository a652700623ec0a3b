//! `ReqGen`: the requester's packet generator. It turns one send WQE, or
//! the resumable rest of one, into its request packets: a transmit header
//! per packet (`m_hdr`, `wire::TX_HDR_FIELDS`) and, per packet, its
//! payload's fragments as memory requests (`m_frag`, one per overlap of the
//! packet with an SGE), as `rnic_proto::rc::Requester::next_packet` builds
//! them (the model is the reference of `tb/tests/req_gen.rs`).
//!
//! Around it (later blocks): `req_fetch` reads the QP context and the WQE by
//! DMA, checks the window, `max_rd_atomic` and the fence, and hands a job in
//! on `s_job`; the headers wait in a block that holds each one until its
//! payload's fragments are translated (`MrXlate`, which answers each
//! fragment with its page pieces) and the pieces handed to
//! `PayloadGather`; then the header goes to `TxArb` source 0. `m_done`
//! gives `req_fetch` what the context write-back needs; `m_push` appends a
//! WQE sent for the first time to the `Inflight` table.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_job` ([`ReqJobIn`]) | in | one WQE (or its rest) with the QP's fields, the first packet's PSN and index in the WQE, and a budget of packets. `ready` is a register. |
//! | `m_hdr` (`ReqHdrOut`) | out | one transmit header per packet (`tdata`), with its WQE's SQ index beside it (`sq_index`), from registers |
//! | `m_frag` (`MrReqOut`) | out | per packet its payload's fragments in order: `key` = LKEY, `pd`, `va`, `len`, `access` = local read, `id` = bit [`REQ_FRAG_LAST`]: the packet's last fragment, bits below: the packet's PSN mod 2^7. None for packets without payload. From registers. |
//! | `m_done` ([`ReqDoneOut`]) | out | one per job: QPN, SQ index, the next packet's PSN and index in the WQE, the WQE's end PSN (one past its last), `finished`, `err`. From registers. |
//! | `m_push` (`InflightCmdOut`, op PUSH) | out | on a job that starts a WQE (packet index 0) and is not a `resend`: its inflight record (a refused one's too: **Errors**) ([`ENTRY_*`](super::ENTRY_WQE_INDEX) of `inflight.rs`), offered no later than its first header. From registers. |
//! | `m_rwqe` ([`ReadWqeOut`]) | out | a pulse the cycle after such a job of a READ with data or an atomic is activated (not refused): its QPN, SQ index, NUM_SGE and SGES, for the completer's `ReadAhead` (its responses are placed over them). From registers. |
//!
//! **Semantics** (the model's): SEND/WRITE messages are cut at the path
//! MTU into max(1, ceil(len / pmtu)) packets, len = the sum of the SGE
//! lengths; RETH (remote VA, RKEY, len) on a WRITE's first packet, ImmDt on
//! the last of a `_WITH_IMM`, SE on the last of a SEND or WRITE with
//! immediate when SOLICITED; AckReq on the last packet, on every READ and
//! atomic, and on every [`REQ_ACK_REQ_EVERY`]-th packet of a message. A
//! READ is one request whose PSNs cover max(1, ceil(len / pmtu)) responses;
//! resumed at response k it asks for VA + k pmtu, len - k pmtu at PSN
//! first + k (rxe `req_retry`). Atomics: one packet with AtomicETH. A job
//! sends packets `pkt_index`.. of the WQE from PSN `psn` on, at most
//! `budget` of them (a READ or atomic: its one request). Resuming at packet
//! k skips k pmtu bytes of the SGEs. Zero-length SGEs are skipped. `ip_id`
//! is 0 (IPv4 with DF set: RFC 6864 lets an atomic datagram carry any
//! value); the path fields come from the QP's PATH through [`PathHdr`].
//!
//! **Errors** (`m_done.err`, nothing sent): [`REQ_ERR_INLINE`]
//! (INLINE WQEs are not supported: the driver refuses them on this device),
//! [`REQ_ERR_BAD_WQE`] (unknown opcode, NUM_SGE above 4, an atomic without
//! exactly one 8-byte SGE, a PMTU code outside 256..4096),
//! [`REQ_ERR_TOO_LONG`] (a message above 2^31 bytes), [`REQ_ERR_FLUSH`] (a
//! flush job, `s_job.flush`: the QP's requester or completer is in error,
//! whatever the WQE holds). On a WQE's first job
//! the push still goes, of an entry that marks the refusal: kind
//! `ENT_KIND_REFUSED`, the completion status in LEN (LOC_LEN_ERR for a
//! message too long, WR_FLUSH_ERR for a flush job, else LOC_QP_OP_ERR), an empty PSN range before the
//! job's PSN; `req_fetch` reports the error (`m_err`), and the completer's
//! record of it flushes the QP's list (docs/core.md, "Order of the
//! remaining work", item 6).
//!
//! **Structure.** A job is taken into the setup registers (`s_job.ready` is
//! "setup free"); [`REQ_SETUP_PHASES`] cycles of registered arithmetic over
//! them (the child [`ReqSetup`]; each step at most a 36-bit add or compare, or a 64-bit add, and a
//! mux; the PMTU is one of five fixed shifts, a 5-way mux) give the message
//! length, packet count, last packet's length, the starting SGE and offset
//! for a resume, the READ's resumed RETH and the PSNs. Activation copies
//! the job into the active registers (a header template of 1152 bits with
//! every per-job field, the SGEs, the walk state) while the next job enters
//! setup. The active stage emits per cycle one header (at a packet's start)
//! and one fragment: the fragment is min(bytes left in the SGE, bytes left
//! in the packet) (one 33-bit subtract and a compare of registers), then
//! the walk moves to the next non-zero SGE or the next packet.
//!
//! **Latency and rate** (`tb/tests/req_gen.rs`): a job taken in cycle t
//! offers its first header at t + [`REQ_GEN_LATENCY`]; then one fragment
//! per cycle, and one header per cycle while packets have at most one
//! fragment (a packet with n fragments takes n cycles); between two jobs'
//! packets [`REQ_GEN_JOB_GAP`] idle cycles, and a job takes at least
//! [`REQ_SETUP_PHASES`] + 2 cycles. Every output stalls independently; a
//! stalled output stops the active stage.

use super::{InflightCmdOut, PathHdr, ENTRY_KIND_BITS, INFLIGHT_ENTRY_BITS, INFLIGHT_LOG_ENTRIES};
use super::{ReadWqeOut, ReqSetup, INFLIGHT_QPN_BITS, PATH_BITS};
use crate::consts::*;
use crate::mr::{MrReqOut, MR_ID_BITS};
use crate::prim::Reg;
use crate::wire::{tx_field_lsb, TX_HDR_BITS, TX_HDR_FIELDS};
use hdl_emit::TypeTag;
use rnic_contract::layouts::{qpc, send_wqe};
use rust_hdl::prelude::*;

/// QPN bits (16K QPs, as `SendSched` and `Inflight`); `src_qp` is this,
/// zero-extended to 24 bits.
pub const REQ_QPN_BITS: usize = INFLIGHT_QPN_BITS;
// no send opcode is the refused entry's kind, and every one fits the field
const _: () = {
    let all = rnic_contract::codes::SendOpcode::ALL;
    let mut k = 0;
    while k < all.len() {
        assert!((all[k] as u64) < ENT_KIND_REFUSED);
        k += 1;
    }
    assert!(ENT_KIND_REFUSED < 1 << ENTRY_KIND_BITS);
};
/// A packet index inside a WQE, and a budget: up to 2^23 packets (a 2^31
/// byte message at 256 bytes).
pub const REQ_PKT_BITS: usize = 24;
/// PSN bits.
pub const REQ_PSN_BITS: usize = qpc::SQ_PSN.width as usize;
/// SQ index bits.
pub const REQ_INDEX_BITS: usize = qpc::SQ_CONS.width as usize;
/// AckReq on every N-th packet of a message (rxe `RXE_MAX_PKT_PER_ACK`, the
/// model's `ack_req_every`); a power of two.
pub const REQ_ACK_REQ_EVERY: u64 = 64;
const _: () = assert!(REQ_ACK_REQ_EVERY.is_power_of_two());
/// `m_frag.id` bits below [`REQ_FRAG_LAST`]: the packet's PSN, mod 2^7
/// (the literal 7 of `update`).
pub const REQ_FRAG_TAG_BITS: usize = REQ_FRAG_LAST;
const _: () = assert!(REQ_FRAG_TAG_BITS == 7 && ENTRY_KIND_BITS == 4 && REQ_PKT_BITS == 24);
/// Cycles of setup arithmetic after a job is taken (the `ph` count).
pub const REQ_SETUP_PHASES: u64 = 6;
// a job takes at least REQ_SETUP_PHASES + 2 cycles, so `m_rwqe`'s pulses
// are never closer than `ReadAhead` places them (none dropped for that)
const _: () = assert!(REQ_SETUP_PHASES + 2 > super::READ_AHEAD_PUT_GAP);
/// Cycles from a job taken to its first header offered (when the active
/// stage is free): the setup register, the phases, activation, the header
/// register.
pub const REQ_GEN_LATENCY: u64 = REQ_SETUP_PHASES + 3;
/// Idle cycles on `m_hdr` between the last header of a job and the first
/// of the next when that one is ready (set up) and nothing stalls.
pub const REQ_GEN_JOB_GAP: u64 = 1;
/// Largest message (IBTA, the model's `MAX_MESSAGE_LEN`).
pub const REQ_MAX_MESSAGE_LEN: u64 = 1 << 31;
/// Bytes of an atomic's operand (its local SGE's length).
pub const REQ_ATOMIC_LEN: u64 = ATOMIC_LEN;
const _: () = assert!(send_wqe::MAX_SGE == 4);
const _: () = assert!(INFLIGHT_ENTRY_BITS == 199 && INFLIGHT_LOG_ENTRIES == 12);

/// A job: one WQE from packet `pkt_index` on, at most `budget` packets.
#[derive(LogicInterface, Default)]
#[join = "ReqJobOut"]
pub struct ReqJobIn {
    pub qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    /// The QP context's DEST_QPN, PKEY, PD, PMTU (`codes::Mtu`) and PATH.
    pub dest_qpn: Signal<In, Bits<24>>,
    pub pkey: Signal<In, Bits<16>>,
    pub pd: Signal<In, Bits<24>>,
    pub pmtu: Signal<In, Bits<3>>,
    pub path: Signal<In, Bits<PATH_BITS>>,
    /// The WQE's fields (`layouts::send_wqe`); `sges` is its SGES field as
    /// read (SGE i at bit 128 i: ADDR, LEN, LKEY).
    pub opcode: Signal<In, Bits<8>>,
    pub solicited: Signal<In, Bit>,
    pub signaled: Signal<In, Bit>,
    pub is_inline: Signal<In, Bit>,
    pub imm: Signal<In, Bits<32>>,
    pub remote_va: Signal<In, Bits<64>>,
    pub rkey: Signal<In, Bits<32>>,
    pub compare_add: Signal<In, Bits<64>>,
    pub swap: Signal<In, Bits<64>>,
    pub wr_id: Signal<In, Bits<64>>,
    pub num_sge: Signal<In, Bits<8>>,
    pub sges: Signal<In, Bits<512>>,
    /// The WQE's index in the send ring.
    pub sq_index: Signal<In, Bits<REQ_INDEX_BITS>>,
    /// PSN of the first packet sent now, and its index in the WQE.
    pub psn: Signal<In, Bits<REQ_PSN_BITS>>,
    pub pkt_index: Signal<In, Bits<REQ_PKT_BITS>>,
    /// Packets to send now at most (at least 1).
    pub budget: Signal<In, Bits<REQ_PKT_BITS>>,
    /// A resend (go-back-N): the WQE was sent before, is in `Inflight`
    /// already (no PUSH) and counted in RD_ATOMIC_STARTED.
    pub resend: Signal<In, Bit>,
    /// A flush job (the QP's requester or completer in error): refused
    /// with `REQ_ERR_FLUSH`, its entry completing with WR_FLUSH_ERR.
    pub flush: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReqJobIn"]
pub struct ReqJobOut {
    pub qpn: Signal<Out, Bits<REQ_QPN_BITS>>,
    pub dest_qpn: Signal<Out, Bits<24>>,
    pub pkey: Signal<Out, Bits<16>>,
    pub pd: Signal<Out, Bits<24>>,
    pub pmtu: Signal<Out, Bits<3>>,
    pub path: Signal<Out, Bits<PATH_BITS>>,
    pub opcode: Signal<Out, Bits<8>>,
    pub solicited: Signal<Out, Bit>,
    pub signaled: Signal<Out, Bit>,
    pub is_inline: Signal<Out, Bit>,
    pub imm: Signal<Out, Bits<32>>,
    pub remote_va: Signal<Out, Bits<64>>,
    pub rkey: Signal<Out, Bits<32>>,
    pub compare_add: Signal<Out, Bits<64>>,
    pub swap: Signal<Out, Bits<64>>,
    pub wr_id: Signal<Out, Bits<64>>,
    pub num_sge: Signal<Out, Bits<8>>,
    pub sges: Signal<Out, Bits<512>>,
    pub sq_index: Signal<Out, Bits<REQ_INDEX_BITS>>,
    pub psn: Signal<Out, Bits<REQ_PSN_BITS>>,
    pub pkt_index: Signal<Out, Bits<REQ_PKT_BITS>>,
    pub budget: Signal<Out, Bits<REQ_PKT_BITS>>,
    /// A resend (go-back-N): the WQE was sent before, is in `Inflight`
    /// already (no PUSH) and counted in RD_ATOMIC_STARTED.
    pub resend: Signal<Out, Bit>,
    /// A flush job (`ReqJobIn::flush`).
    pub flush: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// What a job leaves for the QP context: the cursor after it (`next_psn`,
/// `next_pkt`: the next packet to send of this WQE, or one past its end
/// with `finished`), the WQE's end PSN (one past its last PSN: the next new
/// WQE's first PSN after a first send), and `err` (`REQ_ERR_*`).
#[derive(LogicInterface, Default)]
#[join = "ReqDoneIn"]
pub struct ReqDoneOut {
    pub qpn: Signal<Out, Bits<REQ_QPN_BITS>>,
    pub sq_index: Signal<Out, Bits<REQ_INDEX_BITS>>,
    pub next_psn: Signal<Out, Bits<REQ_PSN_BITS>>,
    pub next_pkt: Signal<Out, Bits<REQ_PKT_BITS>>,
    pub end_psn: Signal<Out, Bits<REQ_PSN_BITS>>,
    pub finished: Signal<Out, Bit>,
    pub err: Signal<Out, Bits<3>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReqDoneOut"]
pub struct ReqDoneIn {
    pub qpn: Signal<In, Bits<REQ_QPN_BITS>>,
    pub sq_index: Signal<In, Bits<REQ_INDEX_BITS>>,
    pub next_psn: Signal<In, Bits<REQ_PSN_BITS>>,
    pub next_pkt: Signal<In, Bits<REQ_PKT_BITS>>,
    pub end_psn: Signal<In, Bits<REQ_PSN_BITS>>,
    pub finished: Signal<In, Bit>,
    pub err: Signal<In, Bits<3>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A transmit header with its packet's SQ WQE index beside it (a side
/// field, valid with `tdata`): `ReqGen::m_hdr` into `ReqPayload::s_hdr`,
/// which tags the packet's translation answers and error report with it.
#[derive(LogicInterface, Default)]
#[join = "ReqHdrIn"]
pub struct ReqHdrOut {
    pub tdata: Signal<Out, Bits<TX_HDR_BITS>>,
    pub sq_index: Signal<Out, Bits<REQ_INDEX_BITS>>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReqHdrOut"]
pub struct ReqHdrIn {
    pub tdata: Signal<In, Bits<TX_HDR_BITS>>,
    pub sq_index: Signal<In, Bits<REQ_INDEX_BITS>>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

/// A transmit header with ones everywhere but the named fields.
fn all_but(names: &[&str]) -> Bits<TX_HDR_BITS> {
    let mut b = Bits::<TX_HDR_BITS>::default();
    for i in 0..TX_HDR_BITS {
        b = b.replace_bit(i, true);
    }
    for n in names {
        let w = TX_HDR_FIELDS.iter().find(|f| f.0 == *n).expect("a transmit header field").1;
        let lsb = tx_field_lsb(n);
        for i in lsb..lsb + w {
            b = b.replace_bit(i, false);
        }
    }
    b
}

#[derive(LogicBlock)]
pub struct ReqGen {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_job: ReqJobIn,
    pub m_hdr: ReqHdrOut,
    pub m_frag: MrReqOut,
    pub m_done: ReqDoneOut,
    pub m_push: InflightCmdOut<INFLIGHT_QPN_BITS, INFLIGHT_LOG_ENTRIES, INFLIGHT_ENTRY_BITS>,
    pub m_rwqe: ReadWqeOut,
    // ---- setup: the job as taken
    busy: Reg<Bit>,
    ph: Reg<Bits<3>>,
    j_qpn: Reg<Bits<REQ_QPN_BITS>>,
    j_dest_qpn: Reg<Bits<24>>,
    j_pkey: Reg<Bits<16>>,
    j_pd: Reg<Bits<24>>,
    j_pmtu: Reg<Bits<3>>,
    j_path: Reg<Bits<PATH_BITS>>,
    j_opcode: Reg<Bits<8>>,
    j_solicited: Reg<Bit>,
    j_signaled: Reg<Bit>,
    j_inline: Reg<Bit>,
    j_imm: Reg<Bits<32>>,
    j_rva: Reg<Bits<64>>,
    j_rkey: Reg<Bits<32>>,
    j_cmp_add: Reg<Bits<64>>,
    j_swap: Reg<Bits<64>>,
    j_wr_id: Reg<Bits<64>>,
    j_num_sge: Reg<Bits<8>>,
    j_sges: Reg<Bits<512>>,
    j_sq_index: Reg<Bits<REQ_INDEX_BITS>>,
    j_psn: Reg<Bits<REQ_PSN_BITS>>,
    j_k: Reg<Bits<REQ_PKT_BITS>>,
    j_resend: Reg<Bit>,
    j_flush: Reg<Bit>,
    j_budget: Reg<Bits<REQ_PKT_BITS>>,
    // ---- setup phase 1 (from the job)
    // ---- phase 2
    // ---- phase 3
    // ---- phase 4
    // ---- phase 5
    // ---- phase 6
    // ---- active job
    act: Reg<Bit>,
    a_tmpl: Reg<Bits<TX_HDR_BITS>>,
    a_pd: Reg<Bits<24>>,
    a_sges: Reg<Bits<512>>,
    a_nxt: Reg<Bits<8>>,
    a_cur: Reg<Bits<2>>,
    a_nx: Reg<Bits<2>>,
    a_rem: Reg<Bits<32>>,
    a_va: Reg<Bits<64>>,
    a_pkt_rem: Reg<Bits<13>>,
    a_pmtu: Reg<Bits<13>>,
    a_tail: Reg<Bits<13>>,
    a_p: Reg<Bits<REQ_PKT_BITS>>,
    a_psn: Reg<Bits<REQ_PSN_BITS>>,
    a_left: Reg<Bits<REQ_PKT_BITS>>,
    a_left1: Reg<Bit>,
    a_left2: Reg<Bit>,
    a_budget: Reg<Bits<REQ_PKT_BITS>>,
    a_b1: Reg<Bit>,
    a_b2: Reg<Bit>,
    a_first: Reg<Bit>,
    a_start: Reg<Bit>,
    a_payload: Reg<Bit>,
    a_seg: Reg<Bit>,
    a_write: Reg<Bit>,
    a_read: Reg<Bit>,
    a_rdat: Reg<Bit>,
    a_imm: Reg<Bit>,
    a_se: Reg<Bit>,
    a_base: Reg<Bits<8>>,
    a_qpn: Reg<Bits<REQ_QPN_BITS>>,
    a_sq_index: Reg<Bits<REQ_INDEX_BITS>>,
    a_end: Reg<Bits<REQ_PSN_BITS>>,
    a_np: Reg<Bits<REQ_PKT_BITS>>,
    // ---- output registers
    o_hdr: Reg<Bits<TX_HDR_BITS>>,
    o_hdr_v: Reg<Bit>,
    o_hdr_sq: Reg<Bits<REQ_INDEX_BITS>>,
    o_f_key: Reg<Bits<32>>,
    o_f_pd: Reg<Bits<24>>,
    o_f_va: Reg<Bits<64>>,
    o_f_len: Reg<Bits<13>>,
    o_f_id: Reg<Bits<MR_ID_BITS>>,
    o_f_v: Reg<Bit>,
    o_d_qpn: Reg<Bits<REQ_QPN_BITS>>,
    o_d_sq: Reg<Bits<REQ_INDEX_BITS>>,
    o_d_next_psn: Reg<Bits<REQ_PSN_BITS>>,
    o_d_next_pkt: Reg<Bits<REQ_PKT_BITS>>,
    o_d_end: Reg<Bits<REQ_PSN_BITS>>,
    o_d_fin: Reg<Bit>,
    o_d_err: Reg<Bits<3>>,
    o_d_v: Reg<Bit>,
    o_p_qpn: Reg<Bits<INFLIGHT_QPN_BITS>>,
    o_p_data: Reg<Bits<INFLIGHT_ENTRY_BITS>>,
    o_p_v: Reg<Bit>,
    o_w_v: Reg<Bit>,
    o_w_num: Reg<Bits<8>>,
    // ---- constants
    ph_last: Constant<Bits<3>>,
    ack_mask: Constant<Bits<REQ_PKT_BITS>>,
    atomic_len: Constant<Bits<32>>,
    three_pkts: Constant<Bits<REQ_PKT_BITS>>,
    no_reth: Constant<Bits<TX_HDR_BITS>>,
    no_imm: Constant<Bits<TX_HDR_BITS>>,
    // ---- locals
    setup: ReqSetup,
    path_hdr: PathHdr,
    take: Signal<Local, Bit>,
    fid: Signal<Local, Bits<MR_ID_BITS>>,
    hdr_ok: Signal<Local, Bit>,
    frag_ok: Signal<Local, Bit>,
    done_ok: Signal<Local, Bit>,
    push_ok: Signal<Local, Bit>,
    activate: Signal<Local, Bit>,
    tmpl: Signal<Local, Bits<TX_HDR_BITS>>,
    entry: Signal<Local, Bits<INFLIGHT_ENTRY_BITS>>,
    entry_err: Signal<Local, Bits<INFLIGHT_ENTRY_BITS>>,
    err_status: Signal<Local, Bits<8>>,
    push_first: Signal<Local, Bit>,
    refuse: Signal<Local, Bit>,
    msg_len: Signal<Local, Bits<32>>,
    go: Signal<Local, Bit>,
    diff: Signal<Local, Bits<33>>,
    lt: Signal<Local, Bit>,
    eq: Signal<Local, Bit>,
    pkt_fin: Signal<Local, Bit>,
    adv: Signal<Local, Bit>,
    job_end: Signal<Local, Bit>,
    cur_key: Signal<Local, Bits<32>>,
    nx_len: Signal<Local, Bits<32>>,
    nx_addr: Signal<Local, Bits<64>>,
    nx_nx: Signal<Local, Bits<2>>,
    va_step: Signal<Local, Bits<64>>,
    psn_inc: Signal<Local, Bits<REQ_PSN_BITS>>,
    p_inc: Signal<Local, Bits<REQ_PKT_BITS>>,
    pos: Signal<Local, Bits<8>>,
    opcode: Signal<Local, Bits<8>>,
    plen: Signal<Local, Bits<13>>,
    ackreq: Signal<Local, Bit>,
    hdr: Signal<Local, Bits<TX_HDR_BITS>>,
    kind: TypeTag<Self>,
}

impl Default for ReqGen {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_job: Default::default(),
            m_hdr: Default::default(),
            m_frag: Default::default(),
            m_done: Default::default(),
            m_push: Default::default(),
            m_rwqe: Default::default(),
            busy: Default::default(),
            ph: Default::default(),
            j_qpn: Default::default(),
            j_dest_qpn: Default::default(),
            j_pkey: Default::default(),
            j_pd: Default::default(),
            j_pmtu: Default::default(),
            j_path: Default::default(),
            j_opcode: Default::default(),
            j_solicited: Default::default(),
            j_signaled: Default::default(),
            j_inline: Default::default(),
            j_imm: Default::default(),
            j_rva: Default::default(),
            j_rkey: Default::default(),
            j_cmp_add: Default::default(),
            j_swap: Default::default(),
            j_wr_id: Default::default(),
            j_num_sge: Default::default(),
            j_sges: Default::default(),
            j_sq_index: Default::default(),
            j_psn: Default::default(),
            j_k: Default::default(),
            j_resend: Default::default(),
            j_flush: Default::default(),
            j_budget: Default::default(),
            act: Default::default(),
            a_tmpl: Default::default(),
            a_pd: Default::default(),
            a_sges: Default::default(),
            a_nxt: Default::default(),
            a_cur: Default::default(),
            a_nx: Default::default(),
            a_rem: Default::default(),
            a_va: Default::default(),
            a_pkt_rem: Default::default(),
            a_pmtu: Default::default(),
            a_tail: Default::default(),
            a_p: Default::default(),
            a_psn: Default::default(),
            a_left: Default::default(),
            a_left1: Default::default(),
            a_left2: Default::default(),
            a_budget: Default::default(),
            a_b1: Default::default(),
            a_b2: Default::default(),
            a_first: Default::default(),
            a_start: Default::default(),
            a_payload: Default::default(),
            a_seg: Default::default(),
            a_write: Default::default(),
            a_read: Default::default(),
            a_rdat: Default::default(),
            a_imm: Default::default(),
            a_se: Default::default(),
            a_base: Default::default(),
            a_qpn: Default::default(),
            a_sq_index: Default::default(),
            a_end: Default::default(),
            a_np: Default::default(),
            o_hdr: Default::default(),
            o_hdr_v: Default::default(),
            o_hdr_sq: Default::default(),
            o_f_key: Default::default(),
            o_f_pd: Default::default(),
            o_f_va: Default::default(),
            o_f_len: Default::default(),
            o_f_id: Default::default(),
            o_f_v: Default::default(),
            o_d_qpn: Default::default(),
            o_d_sq: Default::default(),
            o_d_next_psn: Default::default(),
            o_d_next_pkt: Default::default(),
            o_d_end: Default::default(),
            o_d_fin: Default::default(),
            o_d_err: Default::default(),
            o_d_v: Default::default(),
            o_p_qpn: Default::default(),
            o_p_data: Default::default(),
            o_p_v: Default::default(),
            o_w_v: Default::default(),
            o_w_num: Default::default(),
            ph_last: Constant::new(REQ_SETUP_PHASES.into()),
            ack_mask: Constant::new((REQ_ACK_REQ_EVERY - 1).into()),
            atomic_len: Constant::new(REQ_ATOMIC_LEN.into()),
            three_pkts: Constant::new(3u64.into()),
            no_reth: Constant::new(all_but(&["reth_va", "reth_rkey", "reth_dmalen"])),
            no_imm: Constant::new(all_but(&["immdt"])),
            setup: Default::default(),
            path_hdr: Default::default(),
            take: Default::default(),
            fid: Default::default(),
            hdr_ok: Default::default(),
            frag_ok: Default::default(),
            done_ok: Default::default(),
            push_ok: Default::default(),
            activate: Default::default(),
            tmpl: Default::default(),
            entry: Default::default(),
            entry_err: Default::default(),
            err_status: Default::default(),
            push_first: Default::default(),
            refuse: Default::default(),
            msg_len: Default::default(),
            go: Default::default(),
            diff: Default::default(),
            lt: Default::default(),
            eq: Default::default(),
            pkt_fin: Default::default(),
            adv: Default::default(),
            job_end: Default::default(),
            cur_key: Default::default(),
            nx_len: Default::default(),
            nx_addr: Default::default(),
            nx_nx: Default::default(),
            va_step: Default::default(),
            psn_inc: Default::default(),
            p_inc: Default::default(),
            pos: Default::default(),
            opcode: Default::default(),
            plen: Default::default(),
            ackreq: Default::default(),
            hdr: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for ReqGen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            busy,
            ph,
            j_qpn,
            j_dest_qpn,
            j_pkey,
            j_pd,
            j_pmtu,
            j_path,
            j_opcode,
            j_solicited,
            j_signaled,
            j_inline,
            j_imm,
            j_rva,
            j_rkey,
            j_cmp_add,
            j_swap,
            j_wr_id,
            j_num_sge,
            j_sges,
            j_sq_index,
            j_psn,
            j_k,
            j_resend,
            j_flush,
            j_budget,
            act,
            a_tmpl,
            a_pd,
            a_sges,
            a_nxt,
            a_cur,
            a_nx,
            a_rem,
            a_va,
            a_pkt_rem,
            a_pmtu,
            a_tail,
            a_p,
            a_psn,
            a_left,
            a_left1,
            a_left2,
            a_budget,
            a_b1,
            a_b2,
            a_first,
            a_start,
            a_payload,
            a_seg,
            a_write,
            a_read,
            a_rdat,
            a_imm,
            a_se,
            a_base,
            a_qpn,
            a_sq_index,
            a_end,
            a_np,
            o_hdr,
            o_hdr_v,
            o_hdr_sq,
            o_f_key,
            o_f_pd,
            o_f_va,
            o_f_len,
            o_f_id,
            o_f_v,
            o_d_qpn,
            o_d_sq,
            o_d_next_psn,
            o_d_next_pkt,
            o_d_end,
            o_d_fin,
            o_d_err,
            o_d_v,
            o_p_qpn,
            o_p_data,
            o_p_v,
            o_w_v,
            o_w_num
        );
        clock!(self, clock, setup);

        // ---- the job into the setup registers
        self.s_job.ready.next = !self.busy.q.val();
        self.take.next = self.s_job.valid.val() & !self.busy.q.val();
        if self.take.val() {
            self.busy.d.next = true;
            self.ph.d.next = 0.into();
            self.j_qpn.d.next = self.s_job.qpn.val();
            self.j_dest_qpn.d.next = self.s_job.dest_qpn.val();
            self.j_pkey.d.next = self.s_job.pkey.val();
            self.j_pd.d.next = self.s_job.pd.val();
            self.j_pmtu.d.next = self.s_job.pmtu.val();
            self.j_path.d.next = self.s_job.path.val();
            self.j_opcode.d.next = self.s_job.opcode.val();
            self.j_solicited.d.next = self.s_job.solicited.val();
            self.j_signaled.d.next = self.s_job.signaled.val();
            self.j_inline.d.next = self.s_job.is_inline.val();
            self.j_imm.d.next = self.s_job.imm.val();
            self.j_rva.d.next = self.s_job.remote_va.val();
            self.j_rkey.d.next = self.s_job.rkey.val();
            self.j_cmp_add.d.next = self.s_job.compare_add.val();
            self.j_swap.d.next = self.s_job.swap.val();
            self.j_wr_id.d.next = self.s_job.wr_id.val();
            self.j_num_sge.d.next = self.s_job.num_sge.val();
            self.j_sges.d.next = self.s_job.sges.val();
            self.j_sq_index.d.next = self.s_job.sq_index.val();
            self.j_psn.d.next = self.s_job.psn.val();
            self.j_k.d.next = self.s_job.pkt_index.val();
            self.j_resend.d.next = self.s_job.resend.val();
            self.j_flush.d.next = self.s_job.flush.val();
            self.j_budget.d.next = self.s_job.budget.val();
        } else if self.busy.q.val() & (self.ph.q.val() != self.ph_last.val()) {
            self.ph.d.next = self.ph.q.val() + 1;
        }

        // ---- the setup arithmetic over the job as taken (valid REQ_SETUP_PHASES cycles after it)
        self.setup.pmtu.next = self.j_pmtu.q.val();
        self.setup.opcode.next = self.j_opcode.q.val();
        self.setup.is_inline.next = self.j_inline.q.val();
        self.setup.num_sge.next = self.j_num_sge.q.val();
        self.setup.sges.next = self.j_sges.q.val();
        self.setup.psn.next = self.j_psn.q.val();
        self.setup.k.next = self.j_k.q.val();
        self.setup.budget.next = self.j_budget.q.val();
        self.setup.rva.next = self.j_rva.q.val();

        // ---- the header template: every per-job field
        self.path_hdr.path.next = self.j_path.q.val();
        self.tmpl.next = (bit_cast::<TX_HDR_BITS, 48>(self.path_hdr.eth_dst.val()) << TXF_ETH_DST)
            | (bit_cast::<TX_HDR_BITS, 48>(self.path_hdr.eth_src.val()) << TXF_ETH_SRC)
            | (bit_cast::<TX_HDR_BITS, 1>(self.path_hdr.vlan.val().into()) << TXF_VLAN)
            | (bit_cast::<TX_HDR_BITS, 16>(self.path_hdr.vlan_tci.val()) << TXF_VLAN_TCI)
            | (bit_cast::<TX_HDR_BITS, 1>(self.path_hdr.v6.val().into()) << TXF_V6)
            | (bit_cast::<TX_HDR_BITS, 6>(self.path_hdr.dscp.val()) << TXF_DSCP)
            | (bit_cast::<TX_HDR_BITS, 2>(self.path_hdr.ecn.val()) << TXF_ECN)
            | (bit_cast::<TX_HDR_BITS, 8>(self.path_hdr.ttl.val()) << TXF_TTL)
            | (bit_cast::<TX_HDR_BITS, 20>(self.path_hdr.flow_label.val()) << TXF_FLOW_LABEL)
            | (bit_cast::<TX_HDR_BITS, 128>(self.path_hdr.ip_src.val()) << TXF_IP_SRC)
            | (bit_cast::<TX_HDR_BITS, 128>(self.path_hdr.ip_dst.val()) << TXF_IP_DST)
            | (bit_cast::<TX_HDR_BITS, 16>(self.j_pkey.q.val()) << TXF_PKEY)
            | (bit_cast::<TX_HDR_BITS, 24>(self.j_dest_qpn.q.val()) << TXF_DESTQP)
            | (bit_cast::<TX_HDR_BITS, REQ_QPN_BITS>(self.j_qpn.q.val()) << TXF_SRC_QP);
        if self.setup.write.val() {
            self.tmpl.next = self.tmpl.val()
                | (bit_cast::<TX_HDR_BITS, 64>(self.j_rva.q.val()) << TXF_RETH_VA)
                | (bit_cast::<TX_HDR_BITS, 32>(self.j_rkey.q.val()) << TXF_RETH_RKEY)
                | (bit_cast::<TX_HDR_BITS, 32>(self.setup.len.val().get_bits::<32>(0)) << TXF_RETH_DMALEN);
        }
        if self.setup.read.val() {
            self.tmpl.next = self.tmpl.val()
                | (bit_cast::<TX_HDR_BITS, 64>(self.setup.rva_at.val()) << TXF_RETH_VA)
                | (bit_cast::<TX_HDR_BITS, 32>(self.j_rkey.q.val()) << TXF_RETH_RKEY)
                | (bit_cast::<TX_HDR_BITS, 32>(self.setup.rlen.val()) << TXF_RETH_DMALEN);
        }
        if self.setup.imm.val() {
            self.tmpl.next = self.tmpl.val() | (bit_cast::<TX_HDR_BITS, 32>(self.j_imm.q.val()) << TXF_IMMDT);
        }
        if self.setup.cas.val() {
            self.tmpl.next = self.tmpl.val()
                | (bit_cast::<TX_HDR_BITS, 64>(self.j_rva.q.val()) << TXF_ATOMIC_VA)
                | (bit_cast::<TX_HDR_BITS, 32>(self.j_rkey.q.val()) << TXF_ATOMIC_RKEY)
                | (bit_cast::<TX_HDR_BITS, 64>(self.j_swap.q.val()) << TXF_ATOMIC_SWAP)
                | (bit_cast::<TX_HDR_BITS, 64>(self.j_cmp_add.q.val()) << TXF_ATOMIC_CMP);
        }
        if self.setup.faa.val() {
            self.tmpl.next = self.tmpl.val()
                | (bit_cast::<TX_HDR_BITS, 64>(self.j_rva.q.val()) << TXF_ATOMIC_VA)
                | (bit_cast::<TX_HDR_BITS, 32>(self.j_rkey.q.val()) << TXF_ATOMIC_RKEY)
                | (bit_cast::<TX_HDR_BITS, 64>(self.j_cmp_add.q.val()) << TXF_ATOMIC_SWAP);
        }

        // ---- the inflight record of a first send
        self.msg_len.next = self.setup.len.val().get_bits::<32>(0);
        if self.setup.cas.val() | self.setup.faa.val() {
            self.msg_len.next = self.atomic_len.val();
        }
        self.entry.next = (bit_cast::<INFLIGHT_ENTRY_BITS, REQ_INDEX_BITS>(self.j_sq_index.q.val()) << ENT_WQE_INDEX)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, REQ_PSN_BITS>(self.j_psn.q.val()) << ENT_FIRST_PSN)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, REQ_PSN_BITS>(self.setup.last_psn.val()) << ENT_LAST_PSN)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, 4>(self.j_opcode.q.val().get_bits::<4>(0)) << ENT_KIND)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, 1>(self.j_signaled.q.val().into()) << ENT_SIGNALED)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, 64>(self.j_wr_id.q.val()) << ENT_WR_ID)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, 32>(self.msg_len.val()) << ENT_LEN);
        // a refused WQE's entry: no PSN (an empty range before the next
        // one), the kind no opcode has, its completion status in LEN
        self.err_status.next = WCS_LOC_QP_OP_ERR.into();
        if self.setup.err.val() == REQ_ERR_TOO_LONG {
            self.err_status.next = WCS_LOC_LEN_ERR.into();
        }
        if self.j_flush.q.val() {
            self.err_status.next = WCS_WR_FLUSH_ERR.into();
        }
        self.entry_err.next = (bit_cast::<INFLIGHT_ENTRY_BITS, REQ_INDEX_BITS>(self.j_sq_index.q.val())
            << ENT_WQE_INDEX)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, REQ_PSN_BITS>(self.j_psn.q.val()) << ENT_FIRST_PSN)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, REQ_PSN_BITS>(self.j_psn.q.val() - 1) << ENT_LAST_PSN)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, 4>(ENT_KIND_REFUSED.into()) << ENT_KIND)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, 1>(self.j_signaled.q.val().into()) << ENT_SIGNALED)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, 64>(self.j_wr_id.q.val()) << ENT_WR_ID)
            | (bit_cast::<INFLIGHT_ENTRY_BITS, 8>(self.err_status.val()) << ENT_LEN);
        // a WQE's first job (not a resend) pushes its entry, refused or not
        self.push_first.next = self.setup.first.val() & !self.j_resend.q.val();
        // refused: the WQE's own error, or a flush job (whatever its WQE holds)
        self.refuse.next = self.setup.err.val().any() | self.j_flush.q.val();

        // ---- activation: the set-up job becomes the active one
        self.hdr_ok.next = !self.o_hdr_v.q.val() | self.m_hdr.tready.val();
        self.frag_ok.next = !self.o_f_v.q.val() | self.m_frag.ready.val();
        self.done_ok.next = !self.o_d_v.q.val() | self.m_done.ready.val();
        self.push_ok.next = !self.o_p_v.q.val() | self.m_push.ready.val();
        self.activate.next = self.busy.q.val()
            & (self.ph.q.val() == self.ph_last.val())
            & !self.act.q.val()
            & self.done_ok.val()
            & self.push_ok.val();
        self.o_w_v.d.next = false;
        if self.activate.val() {
            self.busy.d.next = false;
            if self.refuse.val() {
                self.o_d_v.d.next = true;
                self.o_d_qpn.d.next = self.j_qpn.q.val();
                self.o_d_sq.d.next = self.j_sq_index.q.val();
                self.o_d_next_psn.d.next = self.j_psn.q.val();
                self.o_d_next_pkt.d.next = self.j_k.q.val();
                self.o_d_end.d.next = self.j_psn.q.val();
                self.o_d_fin.d.next = false;
                self.o_d_err.d.next = bit_cast::<3, 2>(self.setup.err.val());
                if self.j_flush.q.val() {
                    self.o_d_err.d.next = REQ_ERR_FLUSH.into();
                }
                if self.push_first.val() {
                    self.o_p_v.d.next = true;
                    self.o_p_qpn.d.next = self.j_qpn.q.val();
                    self.o_p_data.d.next = self.entry_err.val();
                }
            } else {
                self.act.d.next = true;
                if self.push_first.val() {
                    self.o_p_v.d.next = true;
                    self.o_p_qpn.d.next = self.j_qpn.q.val();
                    self.o_p_data.d.next = self.entry.val();
                }
                // a READ with data or an atomic: its SGEs to the completer
                self.o_w_v.d.next = self.push_first.val()
                    & ((self.setup.read.val() & !self.setup.zero.val()) | self.setup.cas.val() | self.setup.faa.val());
                self.o_w_num.d.next = self.j_num_sge.q.val();
            }
            self.a_tmpl.d.next = self.tmpl.val();
            self.a_pd.d.next = self.j_pd.q.val();
            self.a_sges.d.next = self.j_sges.q.val();
            self.a_nxt.d.next = self.setup.nxt.val();
            self.a_cur.d.next = self.setup.sge.val();
            self.a_nx.d.next = self.setup.next_sge.val();
            self.a_rem.d.next = self.setup.sge_rem.val();
            self.a_va.d.next = self.setup.va.val();
            self.a_pkt_rem.d.next = self.setup.pmtu_bytes.val();
            if self.setup.left1.val() {
                self.a_pkt_rem.d.next = self.setup.tail.val();
            }
            self.a_pmtu.d.next = self.setup.pmtu_bytes.val();
            self.a_tail.d.next = self.setup.tail.val();
            self.a_p.d.next = self.j_k.q.val();
            self.a_psn.d.next = self.j_psn.q.val();
            self.a_left.d.next = self.setup.left.val();
            self.a_left1.d.next =
                self.setup.left1.val() | self.setup.read.val() | self.setup.cas.val() | self.setup.faa.val();
            self.a_left2.d.next = self.setup.left2.val() & (self.setup.send.val() | self.setup.write.val());
            self.a_budget.d.next = self.j_budget.q.val();
            self.a_b1.d.next = self.setup.budget1.val();
            self.a_b2.d.next = self.setup.budget2.val();
            self.a_first.d.next = self.setup.first.val();
            self.a_start.d.next = true;
            self.a_payload.d.next = (self.setup.send.val() | self.setup.write.val()) & !self.setup.zero.val();
            self.a_seg.d.next = self.setup.send.val() | self.setup.write.val();
            self.a_write.d.next = self.setup.write.val();
            self.a_read.d.next = self.setup.read.val();
            self.a_rdat.d.next = self.setup.read.val() | self.setup.cas.val() | self.setup.faa.val();
            self.a_imm.d.next = self.setup.imm.val();
            self.a_se.d.next =
                self.j_solicited.q.val() & (self.setup.send.val() | (self.setup.write.val() & self.setup.imm.val()));
            self.a_base.d.next = BTH_RC_SEND_FIRST.into();
            if self.setup.write.val() {
                self.a_base.d.next = BTH_RC_WRITE_FIRST.into();
            }
            if self.setup.read.val() {
                self.a_base.d.next = BTH_RC_READ_REQUEST.into();
            }
            if self.setup.cas.val() {
                self.a_base.d.next = BTH_RC_COMPARE_SWAP.into();
            }
            if self.setup.faa.val() {
                self.a_base.d.next = BTH_RC_FETCH_ADD.into();
            }
            self.a_qpn.d.next = self.j_qpn.q.val();
            self.a_sq_index.d.next = self.j_sq_index.q.val();
            self.a_end.d.next = self.setup.end_psn.val();
            self.a_np.d.next = self.setup.npkts.val();
        }

        // ---- the active job: a header at a packet's start, a fragment per cycle
        self.go.next = self.act.q.val() & self.hdr_ok.val() & self.frag_ok.val() & self.done_ok.val();
        self.cur_key.next = self.a_sges.q.val().get_bits::<32>(SGE_LKEY);
        if self.a_cur.q.val() == 1 {
            self.cur_key.next = self.a_sges.q.val().get_bits::<32>(SGE_LKEY + SGE_BITS);
        } else if self.a_cur.q.val() == 2 {
            self.cur_key.next = self.a_sges.q.val().get_bits::<32>(SGE_LKEY + 2 * SGE_BITS);
        } else if self.a_cur.q.val() == 3 {
            self.cur_key.next = self.a_sges.q.val().get_bits::<32>(SGE_LKEY + 3 * SGE_BITS);
        }
        self.nx_len.next = self.a_sges.q.val().get_bits::<32>(SGE_LEN);
        self.nx_addr.next = self.a_sges.q.val().get_bits::<64>(SGE_ADDR);
        self.nx_nx.next = self.a_nxt.q.val().get_bits::<2>(0);
        if self.a_nx.q.val() == 1 {
            self.nx_len.next = self.a_sges.q.val().get_bits::<32>(SGE_LEN + SGE_BITS);
            self.nx_addr.next = self.a_sges.q.val().get_bits::<64>(SGE_ADDR + SGE_BITS);
            self.nx_nx.next = self.a_nxt.q.val().get_bits::<2>(2);
        } else if self.a_nx.q.val() == 2 {
            self.nx_len.next = self.a_sges.q.val().get_bits::<32>(SGE_LEN + 2 * SGE_BITS);
            self.nx_addr.next = self.a_sges.q.val().get_bits::<64>(SGE_ADDR + 2 * SGE_BITS);
            self.nx_nx.next = self.a_nxt.q.val().get_bits::<2>(4);
        } else if self.a_nx.q.val() == 3 {
            self.nx_len.next = self.a_sges.q.val().get_bits::<32>(SGE_LEN + 3 * SGE_BITS);
            self.nx_addr.next = self.a_sges.q.val().get_bits::<64>(SGE_ADDR + 3 * SGE_BITS);
            self.nx_nx.next = self.a_nxt.q.val().get_bits::<2>(6);
        }
        // bytes left in the SGE against bytes left in the packet
        self.diff.next = bit_cast::<33, 32>(self.a_rem.q.val()) - bit_cast::<33, 13>(self.a_pkt_rem.q.val());
        self.lt.next = self.diff.val().get_bit(32);
        self.eq.next = self.a_rem.q.val() == bit_cast::<32, 13>(self.a_pkt_rem.q.val());
        self.pkt_fin.next = !self.a_payload.q.val() | !self.lt.val();
        self.adv.next = self.go.val() & self.pkt_fin.val();
        self.job_end.next = self.adv.val() & (self.a_left1.q.val() | self.a_b1.q.val());
        self.va_step.next = self.a_va.q.val() + bit_cast::<64, 13>(self.a_pkt_rem.q.val());
        self.psn_inc.next = self.a_psn.q.val() + 1;
        self.p_inc.next = self.a_p.q.val() + 1;

        // the header of the packet at its start
        self.pos.next = 0.into();
        if self.a_seg.q.val() {
            if self.a_first.q.val() & self.a_left1.q.val() {
                self.pos.next = BTH_POS_ONLY.into();
                if self.a_imm.q.val() {
                    self.pos.next = BTH_POS_ONLY_IMM.into();
                }
            } else if self.a_first.q.val() {
                self.pos.next = BTH_POS_FIRST.into();
            } else if self.a_left1.q.val() {
                self.pos.next = BTH_POS_LAST.into();
                if self.a_imm.q.val() {
                    self.pos.next = BTH_POS_LAST_IMM.into();
                }
            } else {
                self.pos.next = BTH_POS_MIDDLE.into();
            }
        }
        self.opcode.next = self.a_base.q.val() + self.pos.val();
        self.plen.next = 0.into();
        if self.a_payload.q.val() {
            self.plen.next = self.a_pmtu.q.val();
            if self.a_left1.q.val() {
                self.plen.next = self.a_tail.q.val();
            }
        }
        self.ackreq.next = self.a_left1.q.val()
            | self.a_rdat.q.val()
            | ((self.a_p.q.val() & self.ack_mask.val()) == self.ack_mask.val());
        self.hdr.next = self.a_tmpl.q.val();
        if !(self.a_read.q.val() | (self.a_write.q.val() & self.a_first.q.val())) {
            self.hdr.next = self.hdr.val() & self.no_reth.val();
        }
        if !self.a_left1.q.val() {
            self.hdr.next = self.hdr.val() & self.no_imm.val();
        }
        self.hdr.next = self.hdr.val()
            | (bit_cast::<TX_HDR_BITS, 8>(self.opcode.val()) << TXF_OPCODE)
            | (bit_cast::<TX_HDR_BITS, 1>((self.a_se.q.val() & self.a_left1.q.val()).into()) << TXF_SE)
            | (bit_cast::<TX_HDR_BITS, 1>(self.ackreq.val().into()) << TXF_ACKREQ)
            | (bit_cast::<TX_HDR_BITS, REQ_PSN_BITS>(self.a_psn.q.val()) << TXF_PSN)
            | (bit_cast::<TX_HDR_BITS, 13>(self.plen.val()) << TXF_PAYLOAD_LEN);
        if self.go.val() & self.a_start.q.val() {
            self.o_hdr.d.next = self.hdr.val();
            self.o_hdr_sq.d.next = self.a_sq_index.q.val();
            self.o_hdr_v.d.next = true;
        } else if self.m_hdr.tready.val() {
            self.o_hdr_v.d.next = false;
        }

        self.fid.next = bit_cast::<MR_ID_BITS, 7>(self.a_psn.q.val().get_bits::<7>(0));
        // a fragment: min(bytes left in the SGE, bytes left in the packet)
        if self.go.val() & self.a_payload.q.val() {
            self.o_f_v.d.next = true;
            self.o_f_key.d.next = self.cur_key.val();
            self.o_f_pd.d.next = self.a_pd.q.val();
            self.o_f_va.d.next = self.a_va.q.val();
            self.o_f_len.d.next = self.a_pkt_rem.q.val();
            if self.lt.val() {
                self.o_f_len.d.next = self.a_rem.q.val().get_bits::<13>(0);
            }
            self.o_f_id.d.next = self.fid.val().replace_bit(REQ_FRAG_LAST, !self.lt.val());
            if self.lt.val() | self.eq.val() {
                // the SGE is used up: on to the next non-zero one
                self.a_cur.d.next = self.a_nx.q.val();
                self.a_nx.d.next = self.nx_nx.val();
                self.a_rem.d.next = self.nx_len.val();
                self.a_va.d.next = self.nx_addr.val();
            } else {
                self.a_rem.d.next = self.diff.val().get_bits::<32>(0);
                self.a_va.d.next = self.va_step.val();
            }
            if self.lt.val() {
                self.a_pkt_rem.d.next = self.a_pkt_rem.q.val() - self.a_rem.q.val().get_bits::<13>(0);
            }
        } else if self.m_frag.ready.val() {
            self.o_f_v.d.next = false;
        }

        // the packet done: the next one, or the job's end
        if self.go.val() & !self.pkt_fin.val() {
            self.a_start.d.next = false;
        }
        if self.adv.val() {
            self.a_start.d.next = true;
            self.a_first.d.next = false;
            self.a_p.d.next = self.p_inc.val();
            self.a_psn.d.next = self.psn_inc.val();
            self.a_left.d.next = self.a_left.q.val() - 1;
            self.a_left1.d.next = self.a_left2.q.val();
            self.a_left2.d.next = self.a_left.q.val() == self.three_pkts.val();
            self.a_budget.d.next = self.a_budget.q.val() - 1;
            self.a_b1.d.next = self.a_b2.q.val();
            self.a_b2.d.next = self.a_budget.q.val() == self.three_pkts.val();
            self.a_pkt_rem.d.next = self.a_pmtu.q.val();
            if self.a_left2.q.val() {
                self.a_pkt_rem.d.next = self.a_tail.q.val();
            }
        }
        if self.job_end.val() {
            self.act.d.next = false;
            self.o_d_v.d.next = true;
            self.o_d_qpn.d.next = self.a_qpn.q.val();
            self.o_d_sq.d.next = self.a_sq_index.q.val();
            self.o_d_next_psn.d.next = self.psn_inc.val();
            self.o_d_next_pkt.d.next = self.p_inc.val();
            if self.a_rdat.q.val() {
                self.o_d_next_psn.d.next = self.a_end.q.val();
                self.o_d_next_pkt.d.next = self.a_np.q.val();
            }
            self.o_d_end.d.next = self.a_end.q.val();
            self.o_d_fin.d.next = self.a_left1.q.val();
            self.o_d_err.d.next = REQ_ERR_NONE.into();
        } else if self.m_done.ready.val() & !(self.activate.val() & self.refuse.val()) {
            self.o_d_v.d.next = false;
        }
        if !(self.activate.val() & self.push_first.val()) & self.m_push.ready.val() {
            self.o_p_v.d.next = false;
        }

        // ---- outputs
        self.m_hdr.tdata.next = self.o_hdr.q.val();
        self.m_hdr.sq_index.next = self.o_hdr_sq.q.val();
        self.m_hdr.tvalid.next = self.o_hdr_v.q.val();
        self.m_frag.key.next = self.o_f_key.q.val();
        self.m_frag.pd.next = self.o_f_pd.q.val();
        self.m_frag.va.next = self.o_f_va.q.val();
        self.m_frag.len.next = bit_cast::<32, 13>(self.o_f_len.q.val());
        self.m_frag.access.next = ACC_LOCAL_READ.into();
        self.m_frag.id.next = self.o_f_id.q.val();
        self.m_frag.valid.next = self.o_f_v.q.val();
        self.m_done.qpn.next = self.o_d_qpn.q.val();
        self.m_done.sq_index.next = self.o_d_sq.q.val();
        self.m_done.next_psn.next = self.o_d_next_psn.q.val();
        self.m_done.next_pkt.next = self.o_d_next_pkt.q.val();
        self.m_done.end_psn.next = self.o_d_end.q.val();
        self.m_done.finished.next = self.o_d_fin.q.val();
        self.m_done.err.next = self.o_d_err.q.val();
        self.m_done.valid.next = self.o_d_v.q.val();
        self.m_push.op.next = INFLIGHT_PUSH.into();
        self.m_push.qpn.next = self.o_p_qpn.q.val();
        self.m_push.index.next = 0.into();
        self.m_push.data.next = self.o_p_data.q.val();
        self.m_push.valid.next = self.o_p_v.q.val();
        self.m_rwqe.qpn.next = bit_cast::<24, REQ_QPN_BITS>(self.a_qpn.q.val());
        self.m_rwqe.index.next = bit_cast::<16, REQ_INDEX_BITS>(self.a_sq_index.q.val());
        self.m_rwqe.num.next = self.o_w_num.q.val();
        self.m_rwqe.sges.next = self.a_sges.q.val();
        self.m_rwqe.valid.next = self.o_w_v.q.val();

        if self.reset.val() {
            self.busy.d.next = false;
            self.act.d.next = false;
            self.o_hdr_v.d.next = false;
            self.o_f_v.d.next = false;
            self.o_d_v.d.next = false;
            self.o_p_v.d.next = false;
            self.o_w_v.d.next = false;
        }
    }
}
