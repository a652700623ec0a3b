//! Bench of the responder's execute stage (`RespExec`, catalog `resp_exec`)
//! against the protocol model (`rnic_proto::rc::Responder`).
//!
//! [`Traffic`] generates messages for a few QPs: RDMA WRITE (ONLY, or
//! FIRST, MIDDLEs, LAST; zero-length ones), WRITE with immediate, and SEND
//! (ONLY / FIRST-MIDDLE-LAST, with and without immediate) over RECVs it
//! posts now and then (so some SENDs find none: RNR) with 0..3 SGEs (some
//! too short: LOC_LEN_ERR; some with a bad lkey or another PD's region:
//! LOC_PROT_ERR; some with `NUM_SGE` past the contract's limit); AckReq at
//! random; now and then a duplicate of the QP's previous packet; WRITEs over
//! regions of an [`MrWorld`] with bad rkeys, another PD's region, a region
//! without REMOTE_WRITE and ranges past a region's end. The RECV WQEs are
//! written into each QP's RQ ring ([`Traffic::rq`], by IOVA). Each packet
//! goes through the QP's model over the bench's host memory ([`BenchMem`]:
//! keys checked with `rnic_contract::mr`, bytes written at the IOVAs the MTT
//! gives): the truth for the ACK/NAK, the pieces, the CQE and the memory.
//! For WRITEs a second copy over [`OpenMemory`] (every key granted) gives
//! `RespCheck`'s view, from which the record is built; a SEND's record
//! needs no second copy (`RespCheck` decides nothing this block can fail).
//! A QP the model put in error is replaced by a fresh one under a new QPN.
//!
//! RQ flush records (`RESP_EXEC_FLUSH`, as `RespCheck` gives them for a QP
//! in error with RECVs posted): after a packet put a QP in error, at once or
//! some records later (then now and then with RECVs posted to the QP in
//! error before it), covering the RECVs the model flushed (checked against
//! its WR_FLUSH_ERR completions); at the end of traffic for every QP with
//! RECVs posted and not consumed; with `p_flush_many`, a QP given 10..20
//! RECVs more and flushed. A flush expects one CQE per RECV in RQ order
//! (WR_FLUSH_ERR, its WR_ID and RQ index), no `m_pkt`, no ACK, no
//! translation request, and its `qps` write. The flushes draw their own
//! random numbers, so the rest of the traffic is as without them. The bench
//! injects no RQ read error (`tuser` 0), so no flush CQE is LOC_QP_OP_ERR.
//!
//! Duplicate READs and atomics (`p_dup`, their own random numbers): the
//! QP's model executes a READ or atomic first (the model only: no record,
//! the bench has no READ/atomic execution), then a `RESP_DUP_READ` /
//! `RESP_DUP_ATOMIC` record as `RespCheck` builds it, with the find it must
//! offer and the model's outcome ([`Find`]): replayed, NAKed (its key
//! checked again fails), ACKed with the saved value, or dropped (a miss).
//!
//! [`ExecBench`] plays every neighbour: offers the records with their side
//! fields, serves the translation port from the world (answers in order
//! after a latency) and the RQ reads from the rings (one beat after a
//! latency), takes `m_pkt`, `m_piece`, `m_ack`, `m_cqe` and `m_qps` under
//! random stalls, checks each against the expectation in order, writes the
//! payload bytes of every piece into its own host memory (the DMA
//! `PayloadScatter` would issue), plays `PayloadScatter::m_done` a random
//! latency after a placed packet's last piece and `m_pkt`, and checks that
//! every output stays offered until taken, that a packet's
//! `m_pkt`/`m_ack`/`m_cqe`/`m_qps` come only after all its pieces were
//! taken and after the record was taken, that no `m_ack`/`m_cqe` comes
//! before the `m_done` of every placed packet up to its own, and that no
//! translation request is offered while an RQ flush record is held.
//! It plays `ReplayTable` too: checks every `m_find`, answers on
//! `s_found` after a random latency, counts the `rp_miss` pulses, and
//! fails on any `m_put` or `m_atom` (none is expected).

use crate::mr::{expected_beats, MrWorld, RespBeat};
use crate::resp_check::OpenMemory;
use rnic_contract::layouts::{qps as qps_layout, recv_wqe, sge as sge_layout};
use rnic_contract::mr::{Access as MrAccess, MrRequest};
use rnic_hw::consts::*;
use rnic_proto::ext::{AtomicEth, ExtHeaders, ImmDt, Reth};
use rnic_proto::opcode::{Opcode, Pmtu};
use rnic_proto::psn::Psn;
use rnic_proto::rc::responder::{RecvWqe, Responder, ResponderConfig};
use rnic_proto::rc::{Access, KeyError, MemFault, Memory, RcPacket, Sge, WcOpcode, WcStatus};
use rnic_proto::RnrTimer;
use rnic_sim::axis::Rng;
use rnic_sim::Model;
use std::cell::Cell;
use std::collections::{HashMap, VecDeque};

/// Host memory: bytes by IOVA (absent = never written).
pub type HostMem = HashMap<u64, u8>;
/// An RQ entry: its bytes and when it was posted (the index of the first
/// record generated after the post: the first whose `s_side.rq_prod`
/// counts it).
#[derive(Clone, Copy, Debug)]
pub struct RqEntry {
    pub bytes: [u8; recv_wqe::SIZE],
    pub posted_at: usize,
}
/// RQ entries by IOVA.
pub type RqMem = HashMap<u64, RqEntry>;

/// The model's memory for one packet: keys checked against the world,
/// writes at the IOVAs of the key (a WRITE's rkey, or the lkey of the SGE a
/// SEND's scatter checked last), held in `pending` until the packet passed
/// (a failing packet places nothing in the RTL; the model writes the SGEs
/// before the failing one, bytes of a RECV completed in error, which IBTA
/// leaves undefined), the IOVA pieces logged.
pub struct BenchMem<'a> {
    pub world: &'a MrWorld,
    pub pd: u32,
    pub key: Cell<u32>,
    pub access: MrAccess,
    pub pending: Vec<(u64, u8)>,
    pub pieces: Vec<(u64, u64)>,
}

fn req(key: u32, pd: u32, va: u64, len: u32, access: MrAccess) -> MrRequest {
    MrRequest { key, pd, va, len, access }
}

impl Memory for BenchMem<'_> {
    fn check(&self, pd: u32, key: u32, va: u64, len: u64, access: Access) -> Result<(), KeyError> {
        let a = match access {
            Access::RemoteWrite => MrAccess::RemoteWrite,
            Access::LocalWrite => MrAccess::LocalWrite,
            // a duplicate READ's key checked again
            Access::RemoteRead => MrAccess::RemoteRead,
            a => panic!("a WRITE/SEND bench: access {a:?}"),
        };
        self.key.set(key);
        match MrWorld::error(&self.world.expect(&req(key, pd, va, len as u32, a))) {
            None => Ok(()),
            Some(_) => Err(KeyError::OutOfBounds),
        }
    }
    fn read(&self, _: u64, out: &mut [u8]) -> Result<(), MemFault> {
        out.fill(0);
        Ok(())
    }
    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), MemFault> {
        let mut off = 0;
        for p in self.world.expect(&req(self.key.get(), self.pd, va, data.len() as u32, self.access)) {
            let (a, l) = p.map_err(|_| MemFault)?;
            self.pieces.push((a, l as u64));
            for i in 0..l as u64 {
                self.pending.push((a + i, data[off]));
                off += 1;
            }
        }
        Ok(())
    }
}

/// A receive completion: (cq, wr_id, status, opcode, byte_len, qpn,
/// wqe_index, imm, with_imm, solicited), as `m_cqe` carries it.
pub type Cqe = [u64; 10];

/// One record with its side fields and what must come of it.
#[derive(Clone, Debug)]
pub struct Rec {
    /// Scalar inputs of `s_dec` / `s_side`, by port name.
    pub fields: Vec<(&'static str, u64)>,
    pub wr_data: [u32; 16],
    pub path: [u32; 16],
    pub qpn: u32,
    pub payload: Vec<u8>,
    /// m_pkt: (lane, drop); none for an RQ flush (no payload:
    /// `PayloadScatter` never sees it).
    pub pkt: Option<(u64, bool)>,
    /// Pieces (iova, len, last) of the placed payload.
    pub pieces: Vec<(u64, u64, bool)>,
    /// m_ack: (psn, kind, code, msn).
    pub ack: Option<(u64, u64, u64, u64)>,
    /// m_cqe: the record's receive completions in order (a packet's: at
    /// most one; an RQ flush's: one per RECV, in RQ order).
    pub cqes: Vec<Cqe>,
    /// m_qps: (mask, data); mask 0 when nothing is written (data then unchecked).
    pub qps: Option<(u64, [u32; 16])>,
    /// The model failed it (a fatal NAK).
    pub failed: bool,
    /// An RQ flush (`RESP_EXEC_FLUSH`): the RECVs it completes (0 for a packet's record).
    pub flushed: usize,
    /// A duplicate READ or atomic (`RESP_DUP_READ` / `RESP_DUP_ATOMIC`):
    /// its find and the replay table's answer ([`Find`]).
    pub find: Option<Find>,
    /// More `m_ack` fields checked, by port name (a replay's READ command,
    /// an atomic's saved value).
    pub ack_ext: Vec<(&'static str, u64)>,
}

/// A duplicate's find on `m_find` as it must come ({`qpn`, `psn`,
/// `atomic`, `va`, `rkey`, `len`, `head`, `count`, `pmtu`}) and what the
/// bench, playing `ReplayTable`, answers on `s_found`: a hit (the model
/// re-executed the READ, or ACKed the atomic again, or NAKed the READ's
/// key checked again) with the atomic's saved value, or a miss (the model
/// dropped it).
#[derive(Clone, Debug)]
pub struct Find {
    pub want: [u64; 9],
    pub hit: bool,
    pub orig: u64,
}

const FIND_PORTS: [&str; 9] = ["qpn", "psn", "atomic", "va", "rkey", "len", "head", "count", "pmtu"];

/// A READ or atomic the model executed first (not a record: the bench
/// has no READ/atomic execution), whose duplicates come later.
#[derive(Clone, Copy, Debug)]
enum DupOp {
    Read { psn: Psn, va: u64, rkey: u32, len: u32 },
    Atomic { psn: Psn, va: u64, rkey: u32, fadd: bool },
}

/// The model's memory for a READ's or atomic's first execution: every key
/// granted (the key may be gone by its duplicate), each byte read a hash
/// of its address (an atomic's original value), writes dropped.
struct FirstMem;
impl Memory for FirstMem {
    fn check(&self, _: u32, _: u32, _: u64, _: u64, _: Access) -> Result<(), KeyError> {
        Ok(())
    }
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), MemFault> {
        for (i, b) in out.iter_mut().enumerate() {
            *b = ((va + i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8;
        }
        Ok(())
    }
    fn write(&mut self, _: u64, _: &[u8]) -> Result<(), MemFault> {
        Ok(())
    }
}

/// A QP of the traffic.
struct Qp {
    qpn: u32,
    pd: u32,
    model: Responder,
    /// Packets of the message being sent.
    queue: VecDeque<RcPacket>,
    last: Option<RcPacket>,
    rkey: u32,
    dest_qpn: u64,
    pkey: u64,
    path: [u32; 16],
    /// The RQ ring: base IOVA, log2 entries, the next index to post, the
    /// index of the next RECV to take (`RespCheck`'s `RECV_WQE`), the CQ.
    rq_base: u64,
    rq_log: u32,
    rq_prod: u16,
    rq_cons: u16,
    /// The first RQ index of the QP: the ring's slots are written once
    /// ([`RqMem`] holds one entry per slot), so a QP posts at most
    /// 2^`rq_log` RECVs in its life.
    rq_start: u16,
    recv_cq: u64,
    /// The SGEs of the posted RECVs by RQ index (for `RECV_SGE`).
    recv_sges: HashMap<u16, Vec<Sge>>,
    /// The WR_IDs of the posted RECVs by RQ index (an RQ flush's CQEs).
    recv_wr_ids: HashMap<u16, u64>,
    /// READs and atomics the model executed (duplicates' originals).
    ops: Vec<DupOp>,
}

/// Records by kind, for the tests' coverage asserts.
#[derive(Clone, Copy, Debug, Default)]
pub struct Kinds {
    pub placed: usize,
    pub failed: usize,
    pub other: usize,
    pub send_placed: usize,
    pub send_cqe_ok: usize,
    pub loc_len: usize,
    pub loc_prot: usize,
    pub loc_qp_op: usize,
    pub rnr: usize,
    pub write_imm_cqe: usize,
    /// Receive CQEs expected with `solicited` (BTH.SE on the last packet).
    pub solicited_cqe: usize,
    /// RQ flush records, the RECVs they complete, those of more RECVs than
    /// `RqAhead`'s window (8), those after a failure (their CQEs checked
    /// against the model's WR_FLUSH_ERR completions), those generated some
    /// records after the failure (deferred), those whose RECVs run over the
    /// ring's end.
    pub flush_recs: usize,
    /// Flush records that found no RECV (`RESP_FLUSH_NONE`).
    pub flush_none: usize,
    pub flushed: usize,
    pub flush_many: usize,
    pub flush_error: usize,
    pub flush_deferred: usize,
    pub flush_wrap: usize,
    /// Duplicates: READs replayed (of them of length 0, and from a PSN
    /// past the READ's first), atomics answered from the table, misses
    /// (dropped), READs whose key checked again failed (NAK remote access
    /// error), first executions (the model's only).
    pub dup_read_replay: usize,
    pub dup_read_zero: usize,
    pub dup_read_mid: usize,
    pub dup_atomic_replay: usize,
    pub dup_miss: usize,
    pub dup_read_nak: usize,
    pub dup_firsts: usize,
}

/// The traffic generator and the model (module doc).
pub struct Traffic {
    pub rng: Rng,
    pub world: MrWorld,
    /// The model's memory.
    pub mem: HostMem,
    /// The RQ rings' entries.
    pub rq: RqMem,
    qps: Vec<Qp>,
    next_qpn: u32,
    next_rq: u64,
    pmtu: Pmtu,
    /// Percent of messages with a fault.
    pub p_fault: u64,
    /// Percent of messages that are SENDs, and WRITEs with immediate.
    pub p_send: u64,
    pub p_write_imm: u64,
    /// Percent of records before which the QP gets 10..20 RECVs more and
    /// is flushed (as after a modify to ERR), then replaced.
    pub p_flush_many: u64,
    pub recs: Vec<Rec>,
    pub kinds: Kinds,
    /// The RQ flushes' own random numbers (`rng`'s sequence, on which the
    /// traffic's coverage rests, is left as it was without flushes).
    frng: Rng,
    /// QPs that went into error, their flush record still to come.
    deferred: Vec<Qp>,
    /// Percent of records that are a duplicate READ or atomic (drawn from
    /// `drng`, so the rest of the traffic is as without them).
    pub p_dup: u64,
    drng: Rng,
}

/// A world whose regions' MTT entries are all VALID (an invalid entry
/// fails a translation part-way; the model has no such fault).
pub fn clean_world(rng: &mut Rng) -> MrWorld {
    let mut w = MrWorld::random(rng, 8, 48);
    w.mpt.retain(|_, m| {
        let pages = (m.length + (m.va_base & ((1 << m.log_page_size) - 1))).div_ceil(1 << m.log_page_size);
        (0..pages as u32).all(|i| !crate::mr::mtt_invalid(m.mtt_base.wrapping_add(i)))
    });
    w
}

fn wc_status(s: WcStatus) -> u64 {
    use rnic_contract::codes::WcStatus as C;
    (match s {
        WcStatus::Success => C::Success,
        WcStatus::LocLenErr => C::LocLenErr,
        WcStatus::LocQpOpErr => C::LocQpOpErr,
        WcStatus::LocProtErr => C::LocProtErr,
        s => panic!("not a responder's status: {s:?}"),
    }) as u64
}

fn wc_opcode(o: WcOpcode) -> u64 {
    use rnic_contract::codes::WcOpcode as C;
    (match o {
        WcOpcode::Recv => C::Recv,
        WcOpcode::RecvRdmaWithImm => C::RecvRdmaWithImm,
        o => panic!("not a receive opcode: {o:?}"),
    }) as u64
}

/// Where a SEND packet of `plen` bytes at byte `offset` of a RECV leaves it
/// (`qps.RECV_SGE`, `RECV_SGE_OFFSET`): the walk of `RecvWalk`, from SGE 0.
pub fn recv_pos(sges: &[Sge], offset: u64, plen: u64) -> (u64, u64) {
    let (mut i, mut skip, mut rest) = (0usize, offset, plen);
    loop {
        if rest == 0 || i == sges.len() {
            return (i as u64, skip);
        }
        let l = sges[i].len as u64;
        if skip >= l {
            skip -= l;
            i += 1;
        } else if rest <= l - skip {
            return (i as u64, skip + rest);
        } else {
            rest -= l - skip;
            skip = 0;
            i += 1;
        }
    }
}

/// Bits [pos, pos + width) of a 512-bit line of words set to `v`.
fn set_field(line: &mut [u32; 16], pos: usize, width: usize, v: u64) {
    for b in 0..width {
        let (w, k) = ((pos + b) / 32, (pos + b) % 32);
        line[w] = (line[w] & !(1 << k)) | (((v >> b) as u32 & 1) << k);
    }
}

fn opcode_of(first: bool, last: bool, send: bool, imm: bool) -> Opcode {
    match (send, first, last, imm) {
        (false, true, true, false) => Opcode::RcWriteOnly,
        (false, true, true, true) => Opcode::RcWriteOnlyImm,
        (false, true, false, _) => Opcode::RcWriteFirst,
        (false, false, false, _) => Opcode::RcWriteMiddle,
        (false, false, true, false) => Opcode::RcWriteLast,
        (false, false, true, true) => Opcode::RcWriteLastImm,
        (true, true, true, false) => Opcode::RcSendOnly,
        (true, true, true, true) => Opcode::RcSendOnlyImm,
        (true, true, false, _) => Opcode::RcSendFirst,
        (true, false, false, _) => Opcode::RcSendMiddle,
        (true, false, true, false) => Opcode::RcSendLast,
        (true, false, true, true) => Opcode::RcSendLastImm,
    }
}

/// Writes a RECV WQE into `qp`'s RQ ring (`NUM_SGE` = the SGEs given, at
/// most `MAX_SGE` of them written; posted for the records from
/// `posted_at` on) and posts it to the model.
fn write_wqe(rq: &mut RqMem, posted_at: usize, qp: &mut Qp, wr_id: u64, sges: Vec<Sge>) {
    let mut e = [0u8; recv_wqe::SIZE];
    e[0..8].copy_from_slice(&wr_id.to_le_bytes());
    e[recv_wqe::NUM_SGE.byte] = sges.len() as u8;
    for (k, s) in sges.iter().enumerate().take(recv_wqe::MAX_SGE) {
        let b = recv_wqe::sge_range(k).start;
        e[b + sge_layout::ADDR.byte..][..8].copy_from_slice(&s.addr.to_le_bytes());
        e[b + sge_layout::LEN.byte..][..4].copy_from_slice(&s.len.to_le_bytes());
        e[b + sge_layout::LKEY.byte..][..4].copy_from_slice(&s.lkey.to_le_bytes());
    }
    let slot = (qp.rq_prod as u64) & ((1 << qp.rq_log) - 1);
    let at = qp.rq_base + slot * recv_wqe::SIZE as u64;
    let used = qp.rq_prod.wrapping_sub(qp.rq_start) as u64;
    assert!(used < 1 << qp.rq_log, "QP {:#x}: more RECVs than its ring's slots", qp.qpn);
    let old = rq.insert(at, RqEntry { bytes: e, posted_at });
    assert!(old.is_none(), "RQ slot {at:#x} posted twice: the bench's ring memory holds one entry per slot");
    qp.recv_sges.insert(qp.rq_prod, sges.clone());
    qp.recv_wr_ids.insert(qp.rq_prod, wr_id);
    qp.rq_prod = qp.rq_prod.wrapping_add(1);
    qp.model.post_recv(RecvWqe { wr_id, sges });
}

/// A record's decision (`s_dec`) and side (`s_side`) values beside its
/// QP's own; what a record kind leaves out is 0.
#[derive(Default)]
struct RecVals {
    psn: u64,
    verdict: u64,
    ack: u64,
    syndrome: u64,
    aeth_psn: u64,
    aeth_msn: u64,
    msn_before: u64,
    key_check: u64,
    key_access: u64,
    rkey: u64,
    va: u64,
    len: u64,
    recv_new: u64,
    recv_index: u64,
    recv_offset: u64,
    recv_done: u64,
    cqe_len: u64,
    write: u64,
    wr_mask: u64,
    plen: u64,
    lane: u64,
    rq_prod: u64,
    imm: u64,
    imm_valid: u64,
    se: u64,
}

/// The ports a record drives: `v`'s values and QP `qp`'s.
fn rec_fields(qp: &Qp, v: RecVals) -> Vec<(&'static str, u64)> {
    vec![
        ("s_dec.qpn", qp.qpn as u64),
        ("s_dec.psn", v.psn),
        ("s_dec.verdict", v.verdict),
        ("s_dec.ack", v.ack),
        ("s_dec.syndrome", v.syndrome),
        ("s_dec.aeth_psn", v.aeth_psn),
        ("s_dec.aeth_msn", v.aeth_msn),
        ("s_dec.msn_before", v.msn_before),
        ("s_dec.key_check", v.key_check),
        ("s_dec.key_access", v.key_access),
        ("s_dec.rkey", v.rkey),
        ("s_dec.va", v.va),
        ("s_dec.len", v.len),
        ("s_dec.recv_new", v.recv_new),
        ("s_dec.recv_index", v.recv_index),
        ("s_dec.recv_offset", v.recv_offset),
        ("s_dec.recv_done", v.recv_done),
        ("s_dec.cqe_len", v.cqe_len),
        ("s_dec.write", v.write),
        ("s_dec.wr_mask", v.wr_mask),
        ("s_side.pd", qp.pd as u64),
        ("s_side.dest_qpn", qp.dest_qpn),
        ("s_side.pkey", qp.pkey),
        ("s_side.plen", v.plen),
        ("s_side.lane", v.lane),
        ("s_side.rq_base", qp.rq_base),
        ("s_side.rq_log", qp.rq_log as u64),
        ("s_side.rq_prod", v.rq_prod),
        ("s_side.recv_cq", qp.recv_cq),
        ("s_side.imm", v.imm),
        ("s_side.imm_valid", v.imm_valid),
        ("s_side.se", v.se),
    ]
}

impl Traffic {
    pub fn new(seed: u64, world: MrWorld, n_qps: usize, pmtu: Pmtu) -> Self {
        let mut t = Traffic {
            rng: Rng(seed | 1),
            world,
            mem: HostMem::new(),
            rq: RqMem::new(),
            qps: vec![],
            next_qpn: 0x20,
            next_rq: 0x7_0000_0000,
            pmtu,
            p_fault: 15,
            p_send: 0,
            p_write_imm: 0,
            p_flush_many: 0,
            recs: vec![],
            kinds: Kinds::default(),
            frng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            deferred: vec![],
            p_dup: 0,
            drng: Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1),
        };
        for _ in 0..n_qps {
            let q = t.new_qp();
            t.qps.push(q);
        }
        t
    }

    fn new_qp(&mut self) -> Qp {
        let r = &mut self.rng;
        let pd = 1 + (r.next() % 3) as u32;
        let cfg = ResponderConfig {
            dest_qp: 0x77,
            pmtu: self.pmtu,
            start_psn: Psn::new(r.next() as u32 & 0xFF_FFFF),
            max_dest_rd_atomic: 4u8.into(),
            min_rnr_timer: RnrTimer::new(3).unwrap(),
            pd,
            max_recv_sge: recv_wqe::MAX_SGE,
            access: rnic_proto::rc::responder::QpAccess::ALL,
        };
        self.next_qpn += 1 + (r.next() % 5) as u32;
        let mut path = [0u32; 16];
        path.iter_mut().for_each(|w| *w = r.next() as u32);
        // a ring of 2^rq_log entries; the index starts anywhere (wraps)
        let rq_log = 6 + (r.next() % 3) as u32;
        let rq_base = self.next_rq;
        self.next_rq += 1 << 20;
        let rq_start = r.next() as u16;
        Qp {
            qpn: self.next_qpn & 0x3FFF,
            pd,
            model: Responder::new(cfg),
            queue: VecDeque::new(),
            last: None,
            rkey: 0,
            dest_qpn: r.next() & 0xFF_FFFF,
            pkey: r.next() & 0xFFFF,
            path,
            rq_base,
            rq_log,
            rq_prod: rq_start,
            rq_cons: rq_start,
            rq_start,
            recv_cq: r.next() & 0xFF_FFFF,
            recv_sges: HashMap::new(),
            recv_wr_ids: HashMap::new(),
            ops: vec![],
        }
    }

    /// The PD of QP `qi`.
    pub fn pd(&self, qi: usize) -> u32 {
        self.qps[qi].pd
    }

    /// A region for a WRITE or an SGE of QP `qi`'s PD with `right` (or any, 1 in 20).
    fn region(&mut self, qi: usize, local: bool) -> rnic_contract::mr::Mpt {
        let pd = self.qps[qi].pd;
        let r = &mut self.rng;
        let own: Vec<_> = self
            .world
            .mpt
            .values()
            .filter(|m| m.valid && m.pd == pd && if local { m.local_write } else { m.remote_write })
            .collect();
        let any: Vec<_> = self.world.mpt.values().collect();
        if own.is_empty() || r.chance(5) {
            *any[(r.next() % any.len() as u64) as usize]
        } else {
            *own[(r.next() % own.len() as u64) as usize]
        }
    }

    /// Posts a RECV of 0..3 SGEs for about `want` bytes (shorter or with a
    /// bad SGE when faulty; now and then one SGE past the limit).
    fn post_recv(&mut self, qi: usize, want: u64, fault: bool) {
        let r = &mut self.rng;
        let n = match r.next() % 20 {
            0 => 0,
            1..=8 => 1,
            9..=14 => 2,
            _ => 3,
        };
        let mut total = want + if r.chance(50) { 0 } else { r.next() % 100 };
        let fault_kind = if fault { r.next() % 3 } else { 9 };
        if fault_kind == 0 && total > 0 {
            total -= 1 + r.next() % total.min(40); // too short: LOC_LEN_ERR
        }
        let mut sges = vec![];
        let mut left = total;
        for k in 0..n {
            let l = if k + 1 == n { left } else { left.min(self.rng.next() % (left + 1)) };
            let m = self.region(qi, true);
            let r = &mut self.rng;
            let l = l.min(m.length);
            let slack = m.length - l;
            let addr = m.va_base.wrapping_add(if slack == 0 { 0 } else { r.next() % (slack + 1) });
            let mut lkey = m.key;
            if fault_kind == 1 && k + 1 == n {
                lkey ^= 1 << (r.next() % 32);
            }
            sges.push(Sge { addr, len: l as u32, lkey });
            left -= l;
        }
        let r = &mut self.rng;
        let malformed = fault_kind == 2 && r.chance(30);
        if malformed {
            sges.resize(recv_wqe::MAX_SGE + 1, Sge { addr: 0, len: 0, lkey: 0 });
        }
        let wr_id = r.next();
        self.post_wqe(qi, wr_id, sges);
    }

    /// Writes a RECV WQE into QP `qi`'s RQ ring and posts it to the model ([`write_wqe`]).
    fn post_wqe(&mut self, qi: usize, wr_id: u64, sges: Vec<Sge>) {
        write_wqe(&mut self.rq, self.recs.len(), &mut self.qps[qi], wr_id, sges);
    }

    /// A SEND message (or, `!send`, a WRITE with immediate) for QP `qi`,
    /// RECVs posted before it now and then.
    fn recv_message(&mut self, qi: usize, send: bool) {
        let p = self.pmtu.bytes() as u64;
        let r = &mut self.rng;
        let len = match r.next() % 10 {
            0 => 0,
            1 => 1 + r.next() % 8,
            _ => 1 + r.next() % (3 * p),
        };
        let imm = !send || r.chance(40);
        let fault = r.chance(self.p_fault);
        // RECVs on the ring (the RQ never fills: at most a few posted)
        let posted = self.qps[qi].model.posted_recvs();
        let n_post = if posted >= 2 || self.rng.chance(12) { 0 } else { 1 + self.rng.next() % 2 };
        for _ in 0..n_post {
            let f = fault && self.rng.chance(70);
            self.post_recv(qi, len, f);
        }
        let (mut va, mut rkey) = (0, 0);
        if !send {
            let m = self.region(qi, false);
            let l = len.min(m.length);
            let slack = m.length - l;
            va = m.va_base.wrapping_add(if slack == 0 { 0 } else { self.rng.next() % (slack + 1) });
            rkey = m.key;
            if fault && self.rng.chance(50) {
                rkey ^= 1 << (self.rng.next() % 32);
            }
            self.queue_packets(qi, false, imm, va, rkey, l);
        } else {
            self.queue_packets(qi, true, imm, va, rkey, len);
        }
    }

    /// The packets of one message, queued on QP `qi`.
    fn queue_packets(&mut self, qi: usize, send: bool, imm: bool, va: u64, rkey: u32, total: u64) {
        let p = self.pmtu.bytes() as u64;
        let r = &mut self.rng;
        let qp = &mut self.qps[qi];
        if !send {
            qp.rkey = rkey;
        }
        let mut psn = qp.model.expected_psn();
        let mut left = total;
        let mut first = true;
        let imm_value = r.next() as u32;
        loop {
            let n = left.min(p);
            let last = left <= p;
            let op = opcode_of(first, last, send, imm && last);
            let reth = Reth { va, rkey, dma_len: total as u32 };
            let ext = match (send, first, imm && last) {
                (false, true, true) => ExtHeaders::RethImmDt(reth, ImmDt { value: imm_value }),
                (false, true, false) => ExtHeaders::Reth(reth),
                (_, _, true) => ExtHeaders::ImmDt(ImmDt { value: imm_value }),
                _ => ExtHeaders::Bare,
            };
            let payload: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
            qp.queue.push_back(RcPacket::new(op, qp.qpn, psn, r.chance(40), ext, payload));
            psn = psn.next();
            left -= n;
            first = false;
            if last {
                break;
            }
        }
    }

    /// A WRITE message for QP `qi`: its packets queued.
    fn message(&mut self, qi: usize) {
        let p = self.pmtu.bytes() as u64;
        let m = self.region(qi, false);
        let r = &mut self.rng;
        let mut len = match r.next() % 10 {
            0 => 0,
            1 => 1 + r.next() % 8,
            _ => 1 + r.next() % (3 * p),
        }
        .min(m.length);
        let slack = m.length - len;
        let mut va = m.va_base.wrapping_add(if slack == 0 { 0 } else { r.next() % (slack + 1) });
        let mut rkey = m.key;
        if r.chance(self.p_fault) {
            match r.next() % 3 {
                0 => rkey ^= 1 << (r.next() % 32),
                1 => va = m.va_base.wrapping_add(slack + 1 + r.next() % 16), // past the end
                _ => {
                    len += 1 + r.next() % 64; // longer than the region
                    va = m.va_base.wrapping_add(slack);
                }
            }
        }
        self.queue_packets(qi, false, false, va, rkey, len);
    }

    /// Generate `n` records, spread over the QPs, then the RQ flushes of
    /// the end of traffic ([`Traffic::finish`]).
    pub fn generate(&mut self, n: usize) {
        for _ in 0..n {
            let qi = (self.rng.next() % self.qps.len() as u64) as usize;
            self.one(qi);
        }
        self.finish();
    }

    /// The end of traffic: the flush records still deferred, then every QP
    /// with RECVs posted and not consumed is flushed (a modify to ERR:
    /// from the RECV a SEND may be filling to the last posted) and replaced.
    pub fn finish(&mut self) {
        while !self.deferred.is_empty() {
            self.flush_deferred();
        }
        for qi in 0..self.qps.len() {
            if self.qps[qi].rq_cons != self.qps[qi].rq_prod {
                let old = self.replace_qp(qi);
                self.flush_rec(&old);
            }
        }
    }

    /// QP `qi` replaced by a fresh one (drawn from `frng`), the old one returned.
    fn replace_qp(&mut self, qi: usize) -> Qp {
        std::mem::swap(&mut self.rng, &mut self.frng);
        let fresh = self.new_qp();
        std::mem::swap(&mut self.rng, &mut self.frng);
        std::mem::replace(&mut self.qps[qi], fresh)
    }

    /// The RQ flush record of `qp`, a QP in error (module doc of `RespExec`:
    /// `RESP_EXEC_FLUSH`): its RECVs from `rq_cons` (the next one; a SEND
    /// may have been filling it) up to `rq_prod`, each completed with
    /// WR_FLUSH_ERR, RECV, byte_len 0, its WR_ID and RQ index; no payload,
    /// no ACK; the `qps` write as `RespCheck` gives it (RECV_WQE = RQ_PROD,
    /// RECV_VALID clear, still in error). With no RECV posted the record
    /// is `RESP_FLUSH_NONE`: no CQE, no `m_pkt`, its `qps` write (or none)
    /// passed through.
    fn flush_rec(&mut self, qp: &Qp) {
        let (start, end) = (qp.rq_cons, qp.rq_prod);
        let n = end.wrapping_sub(start) as usize;
        assert!(n as u64 <= 1 << qp.rq_log, "a flush of more RECVs than the ring holds");
        let r = &mut self.frng;
        let lane = r.next() % 64;
        let mut wr_data = [0u32; 16];
        wr_data.iter_mut().for_each(|w| *w = r.next() as u32);
        set_field(&mut wr_data, qps_layout::IN_PROGRESS.pos(), 2, IP_ERROR);
        set_field(&mut wr_data, qps_layout::RECV_WQE.pos(), 16, end as u64);
        set_field(&mut wr_data, qps_layout::RECV_VALID.pos(), 1, 0);
        let mask = r.next() | 1;
        // nothing to flush: written only now and then (a QP not started)
        let write = n > 0 || r.chance(30);
        let st = qp.model.state();
        let fields = rec_fields(
            qp,
            RecVals {
                psn: st.epsn.value() as u64,
                verdict: if n > 0 { RESP_EXEC_FLUSH } else { RESP_FLUSH_NONE },
                aeth_msn: st.msn as u64,
                msn_before: st.msn as u64,
                key_access: ACC_REMOTE_WRITE,
                recv_new: (n > 0) as u64,
                recv_index: start as u64,
                write: write as u64,
                wr_mask: mask,
                lane,
                rq_prod: end as u64,
                ..RecVals::default()
            },
        );
        let cqes: Vec<Cqe> = (0..n)
            .map(|k| {
                let i = start.wrapping_add(k as u16);
                let wr_id = qp.recv_wr_ids[&i];
                [qp.recv_cq, wr_id, WCS_WR_FLUSH_ERR, WCO_RECV, 0, qp.qpn as u64, i as u64, 0, 0, 0]
            })
            .collect();
        let k = &mut self.kinds;
        k.flush_recs += (n > 0) as usize;
        k.flush_none += (n == 0) as usize;
        k.flushed += n;
        k.flush_many += (n > 8) as usize;
        let ring = 1u64 << qp.rq_log;
        k.flush_wrap += ((start as u64 & (ring - 1)) + n as u64 > ring) as usize;
        self.recs.push(Rec {
            fields,
            wr_data,
            path: qp.path,
            qpn: qp.qpn,
            payload: vec![],
            pkt: None,
            pieces: vec![],
            ack: None,
            cqes,
            qps: Some((if write { mask } else { 0 }, wr_data)),
            failed: false,
            flushed: n,
            find: None,
            ack_ext: vec![],
        });
    }

    /// A QP the model put in error: its flush record now, or (half the
    /// time) some records later.
    fn retire(&mut self, qp: Qp) {
        if qp.rq_cons == qp.rq_prod || self.frng.chance(50) {
            self.flush_rec(&qp);
        } else {
            self.deferred.push(qp);
        }
    }

    /// The oldest deferred flush: a few RECVs posted to the QP in error
    /// first now and then (the model completes each at once with
    /// WR_FLUSH_ERR; the flush record, whose RQ_PROD counts them, too).
    fn flush_deferred(&mut self) {
        let mut qp = self.deferred.remove(0);
        let room = (1u64 << qp.rq_log) - qp.rq_prod.wrapping_sub(qp.rq_start) as u64;
        let extra = (self.frng.next() % 3).min(room);
        let mut want = vec![];
        for _ in 0..extra {
            let wr_id = self.frng.next();
            let sges = self.junk_sges();
            write_wqe(&mut self.rq, self.recs.len(), &mut qp, wr_id, sges);
            want.push(wr_id);
        }
        let got: Vec<_> = qp.model.take_completions().into_iter().map(|c| (c.wr_id, c.status)).collect();
        assert_eq!(got, want.iter().map(|&w| (w, WcStatus::WrFlushErr)).collect::<Vec<_>>());
        self.kinds.flush_deferred += 1;
        self.flush_rec(&qp);
    }

    /// SGEs of a RECV only a flush completes: 0..=MAX_SGE + 1 of them (the
    /// walk of a flush reads no SGE: `NUM_SGE` past the limit is no error).
    fn junk_sges(&mut self) -> Vec<Sge> {
        let r = &mut self.frng;
        let n = r.next() % (recv_wqe::MAX_SGE as u64 + 2);
        (0..n).map(|_| Sge { addr: r.next(), len: r.next() as u32, lkey: r.next() as u32 }).collect()
    }

    /// QP `qi` gets `n` RECVs more (at most what its ring has room for) and
    /// is flushed, as after a modify to ERR, then replaced.
    fn flush_many(&mut self, qi: usize, n: u64) {
        let qp = &self.qps[qi];
        let room = (1u64 << qp.rq_log) - qp.rq_prod.wrapping_sub(qp.rq_start) as u64;
        for _ in 0..n.min(room) {
            let wr_id = self.frng.next();
            let sges = self.junk_sges();
            write_wqe(&mut self.rq, self.recs.len(), &mut self.qps[qi], wr_id, sges);
        }
        let old = self.replace_qp(qi);
        self.flush_rec(&old);
    }

    /// An RQ flush of `n` RECVs of QP 0 (the flush rate test): the QP's
    /// ring index moved so its RECVs run over the ring's end and the
    /// 16-bit index wraps, `sends` of them consumed first by one-packet
    /// SENDs of `len` bytes into `sges` (fresh RECVs, no fault), the
    /// others flushed.
    pub fn flush_stream(&mut self, n: u64, sends: u64, sges: Vec<Sge>, len: u64) {
        let qp = &mut self.qps[0];
        assert!(qp.rq_prod == qp.rq_start && n <= 1 << qp.rq_log && sends < n);
        let at = 0u16.wrapping_sub((n / 2) as u16);
        (qp.rq_start, qp.rq_prod, qp.rq_cons) = (at, at, at);
        for i in 0..n {
            self.post_wqe(0, 0xF105_0000_0000_0000 + i, sges.clone());
        }
        for _ in 0..sends {
            self.queue_packets(0, true, false, 0, 0, len);
            self.one(0);
        }
        let old = self.replace_qp(0);
        self.flush_rec(&old);
    }

    /// Records of a WRITE message of `len` bytes at `va` under `rkey` for
    /// QP 0 (the rate test): no fault, AckReq on the last packet only.
    pub fn stream(&mut self, rkey: u32, va: u64, len: u64) {
        self.queue_packets(0, false, false, va, rkey, len);
        let n = self.qps[0].queue.len();
        for (i, p) in self.qps[0].queue.iter_mut().enumerate() {
            p.bth.ack_req = i + 1 == n;
        }
        while !self.qps[0].queue.is_empty() {
            self.one(0);
        }
    }

    /// Records of a SEND message of `len` bytes for QP 0 into one posted
    /// RECV of `sges` (the latency test): AckReq on the last packet only.
    pub fn send_stream(&mut self, sges: Vec<Sge>, len: u64) {
        self.post_wqe(0, 0x5e4d_0000_0000_0001, sges);
        self.queue_packets(0, true, false, 0, 0, len);
        let n = self.qps[0].queue.len();
        for (i, p) in self.qps[0].queue.iter_mut().enumerate() {
            p.bth.ack_req = i + 1 == n;
        }
        while !self.qps[0].queue.is_empty() {
            self.one(0);
        }
    }

    /// Records of SEND messages for QP 0, one per RECV of `recvs`, all the
    /// RECVs posted first (the read-ahead test): `len` bytes each, AckReq on
    /// each last packet.
    pub fn send_messages(&mut self, recvs: Vec<Vec<Sge>>, len: u64) {
        for (i, sges) in recvs.into_iter().enumerate() {
            self.post_wqe(0, 0x5e4d_0000_0000_0100 + i as u64, sges);
        }
        let n = self.qps[0].rq_prod.wrapping_sub(self.qps[0].rq_cons);
        for _ in 0..n {
            self.queue_packets(0, true, false, 0, 0, len);
            if let Some(p) = self.qps[0].queue.back_mut() {
                p.bth.ack_req = true;
            }
            while !self.qps[0].queue.is_empty() {
                self.one(0);
            }
        }
    }

    /// A READ or atomic executed by QP `qi`'s model at its expected PSN
    /// (no record: the bench has no READ/atomic execution; its duplicates
    /// are records): over a region of the QP's PD with REMOTE_READ /
    /// REMOTE_ATOMIC mostly, else any region or a bad rkey, so that the
    /// duplicate's key checked again fails now and then.
    fn dup_first(&mut self, qi: usize) {
        let p = self.pmtu.bytes() as u64;
        let pd = self.qps[qi].pd;
        let read = self.drng.chance(60);
        let r = &mut self.drng;
        let own: Vec<_> = self
            .world
            .mpt
            .values()
            .filter(|m| m.valid && m.pd == pd && if read { m.remote_read } else { m.remote_atomic })
            .collect();
        let any: Vec<_> = self.world.mpt.values().collect();
        let m = if own.is_empty() || r.chance(10) {
            *any[(r.next() % any.len() as u64) as usize]
        } else {
            *own[(r.next() % own.len() as u64) as usize]
        };
        let mut rkey = m.key;
        if r.chance(25) {
            rkey ^= 1 << (r.next() % 32);
        }
        let qp = &mut self.qps[qi];
        let psn = qp.model.expected_psn();
        let (pkt, op) = if read {
            let len = match r.next() % 10 {
                0 => 0,
                1 => 1 + r.next() % 8,
                _ => 1 + r.next() % (4 * p),
            }
            .min(m.length);
            let slack = m.length - len;
            let va = m.va_base.wrapping_add(if slack == 0 { 0 } else { r.next() % (slack + 1) });
            let reth = Reth { va, rkey, dma_len: len as u32 };
            let pkt = RcPacket::new(Opcode::RcReadRequest, qp.qpn, psn, false, ExtHeaders::Reth(reth), vec![]);
            (pkt, DupOp::Read { psn, va, rkey, len: len as u32 })
        } else {
            let va = (m.va_base.wrapping_add(r.next() % m.length.max(8)) & !7).max(m.va_base.next_multiple_of(8));
            let fadd = r.chance(50);
            let eth = AtomicEth { va, rkey, swap_add: r.next(), compare: r.next() };
            let op = if fadd { Opcode::RcFetchAdd } else { Opcode::RcCompareSwap };
            let pkt = RcPacket::new(op, qp.qpn, psn, false, ExtHeaders::AtomicEth(eth), vec![]);
            (pkt, DupOp::Atomic { psn, va, rkey, fadd })
        };
        let c0 = qp.model.counters();
        qp.model.receive(&pkt, &mut FirstMem);
        let c1 = qp.model.counters();
        assert!(c1.executed == c0.executed + 1 && !qp.model.is_error(), "a first READ/atomic not executed: {op:?}");
        qp.ops.push(op);
        self.kinds.dup_firsts += 1;
    }

    /// A duplicate READ or atomic of QP `qi` (module doc of `RespExec`:
    /// `RESP_DUP_READ`, `RESP_DUP_ATOMIC`), its first execution before it
    /// now and then: the record as `RespCheck` gives it, the find it must
    /// offer, and the model's answer as the table gives it and as the block
    /// must give it.
    fn dup_one(&mut self, qi: usize) {
        if self.qps[qi].ops.is_empty() || self.drng.chance(40) {
            self.dup_first(qi);
        }
        let p = self.pmtu.bytes() as u64;
        let r = &mut self.drng;
        let qp = &mut self.qps[qi];
        let op = qp.ops[(r.next() % qp.ops.len() as u64) as usize];
        // the duplicate: from one of the READ's PSNs (its RETH moved on so
        // many PMTUs), now and then with its RETH not the original's (a miss);
        // an atomic's PSN (or a READ's: a miss)
        let (pkt, read, va, rkey, len, mid) = match op {
            DupOp::Read { psn, va, rkey, len } => {
                let n = (len as u64).div_ceil(p).max(1);
                let k = r.next() % n;
                let (mut va, mut rkey, mut dlen) = (va + k * p, rkey, len - (k * p) as u32);
                match r.next() % 9 {
                    0 => va = va.wrapping_add(1 + r.next() % 8),
                    1 => rkey ^= 1 << (r.next() % 32),
                    2 if dlen > 0 => dlen -= 1,
                    _ => {}
                }
                let reth = Reth { va, rkey, dma_len: dlen };
                let psn = psn.add(k as u32);
                let pkt = RcPacket::new(Opcode::RcReadRequest, qp.qpn, psn, false, ExtHeaders::Reth(reth), vec![]);
                (pkt, true, va, rkey, dlen as u64, k > 0)
            }
            DupOp::Atomic { psn, va, rkey, fadd } => {
                let psn = match qp.ops.iter().find(|o| matches!(o, DupOp::Read { .. })) {
                    Some(DupOp::Read { psn, .. }) if r.chance(10) => *psn,
                    _ => psn,
                };
                let eth = AtomicEth { va, rkey, swap_add: r.next(), compare: r.next() };
                let op = if fadd { Opcode::RcFetchAdd } else { Opcode::RcCompareSwap };
                (RcPacket::new(op, qp.qpn, psn, false, ExtHeaders::AtomicEth(eth), vec![]), false, va, rkey, 8, false)
            }
        };
        let st = qp.model.state();
        let c0 = qp.model.counters();
        let mut bm = BenchMem {
            world: &self.world,
            pd: qp.pd,
            key: Cell::new(rkey),
            access: MrAccess::RemoteWrite,
            pending: vec![],
            pieces: vec![],
        };
        let resp = qp.model.receive(&pkt, &mut bm);
        assert!(bm.pending.is_empty(), "a duplicate wrote memory");
        let c1 = qp.model.counters();
        assert_eq!(c1.duplicates, c0.duplicates + 1, "not a duplicate: {pkt:?}");
        let failed = c1.error_naks > c0.error_naks;
        let miss = c1.dropped > c0.dropped;
        let hit = c1.read_replays > c0.read_replays || c1.atomic_replays > c0.atomic_replays;
        assert_eq!(failed as u8 + miss as u8 + hit as u8, 1, "one outcome of a duplicate");
        let orig = if !read && hit { resp[0].ext.atomic_ack_eth().unwrap().orig_remote_data } else { r.next() };
        let lane = r.next() % 64;
        let mut wr_data = [0u32; 16];
        wr_data.iter_mut().for_each(|w| *w = r.next() as u32);
        let mask = r.next();
        let write = failed || r.chance(50);
        let pmtu = self.pmtu as u64;
        let psn = pkt.psn().value() as u64;
        let mut fields = rec_fields(
            qp,
            RecVals {
                psn,
                verdict: if read { RESP_DUP_READ } else { RESP_DUP_ATOMIC },
                syndrome: AETH_ACK,
                aeth_psn: psn,
                aeth_msn: st.msn as u64,
                msn_before: st.msn as u64,
                key_access: if read { ACC_REMOTE_READ } else { ACC_REMOTE_ATOMIC },
                rkey: rkey as u64,
                va,
                len,
                write: write as u64,
                wr_mask: mask,
                lane,
                rq_prod: qp.rq_prod as u64,
                ..RecVals::default()
            },
        );
        fields.extend([
            ("s_side.pmtu", pmtu),
            // an atomic's operands: the replay runs nothing (no `m_atom`)
            ("s_side.fadd", r.next() & 1),
            ("s_side.cmp", r.next()),
            ("s_side.swap_add", r.next()),
        ]);
        let bits = |pos: usize, w: usize| {
            (0..w).fold(0u64, |a, b| a | (((wr_data[(pos + b) / 32] >> ((pos + b) % 32)) & 1) as u64) << b)
        };
        let head = bits(qps_layout::REPLAY_HEAD.pos(), 4);
        let count = bits(qps_layout::REPLAY_COUNT.pos(), 5);
        let want = [qp.qpn as u64, psn, !read as u64, va, rkey as u64, len, head, count, pmtu];
        let aeth = |p: &RcPacket| {
            let a = p.ext.aeth().copied().expect("an AETH");
            (p.psn().value() as u64, (a.syndrome >> 5) as u64, (a.syndrome & 31) as u64, a.msn as u64)
        };
        let ack = resp.first().map(aeth);
        assert_eq!(ack.is_some(), !miss);
        let ack_ext = match (failed, hit, read) {
            (true, ..) => vec![("m_ack.read", 0), ("m_ack.atomic", 0)],
            (_, true, true) => vec![
                ("m_ack.read", 1),
                ("m_ack.atomic", 0),
                ("m_ack.va", va),
                ("m_ack.len", len),
                ("m_ack.rkey", rkey as u64),
                ("m_ack.pd", qp.pd as u64),
                ("m_ack.pmtu", pmtu),
            ],
            (_, true, false) => vec![("m_ack.read", 0), ("m_ack.atomic", 1), ("m_ack.va", orig)],
            _ => vec![],
        };
        if hit && read {
            // the responses from the duplicate's PSN: as many as its length asks
            assert_eq!(resp.len() as u64, len.div_ceil(p).max(1));
        }
        let mut qdata = wr_data;
        if failed {
            set_field(&mut qdata, qps_layout::IN_PROGRESS.pos(), 2, IP_ERROR);
        }
        let k = &mut self.kinds;
        k.dup_miss += miss as usize;
        k.dup_read_nak += failed as usize;
        k.dup_read_replay += (hit && read) as usize;
        k.dup_read_zero += (hit && read && len == 0) as usize;
        k.dup_read_mid += (hit && read && mid) as usize;
        k.dup_atomic_replay += (hit && !read) as usize;
        k.failed += failed as usize;
        self.recs.push(Rec {
            fields,
            wr_data,
            path: qp.path,
            qpn: qp.qpn,
            payload: vec![],
            pkt: Some((lane, true)),
            pieces: vec![],
            ack,
            cqes: vec![],
            qps: Some((if write { mask } else { 0 }, qdata)),
            failed,
            flushed: 0,
            find: Some(Find { want, hit: !miss, orig }),
            ack_ext,
        });
        if qp.model.is_error() {
            // the model flushed the QP's RECVs: the RQ flush record's
            let flushed = qp.model.take_completions();
            assert!(flushed.iter().all(|c| c.status == WcStatus::WrFlushErr));
            assert_eq!(flushed.len(), qp.rq_prod.wrapping_sub(qp.rq_cons) as usize);
            std::mem::swap(&mut self.rng, &mut self.drng);
            let fresh = self.new_qp();
            std::mem::swap(&mut self.rng, &mut self.drng);
            let old = std::mem::replace(&mut self.qps[qi], fresh);
            self.kinds.flush_error += (old.rq_cons != old.rq_prod) as usize;
            self.retire(old);
        }
    }

    fn one(&mut self, qi: usize) {
        // RQ flushes (their own random numbers): a deferred one, or QP `qi`
        // flushed with many RECVs (then replaced: a fresh QP sends)
        if !self.deferred.is_empty() && self.frng.chance(30) {
            self.flush_deferred();
        }
        if self.p_flush_many > 0 && self.frng.chance(self.p_flush_many) {
            let n = 10 + self.frng.next() % 11;
            self.flush_many(qi, n);
        }
        // a duplicate READ or atomic (its own random numbers), between messages
        if self.p_dup > 0 && self.qps[qi].queue.is_empty() && self.drng.chance(self.p_dup) {
            self.dup_one(qi);
            return;
        }
        if self.qps[qi].queue.is_empty() {
            if self.qps[qi].last.is_some() && self.rng.chance(5) {
                let d = self.qps[qi].last.clone().unwrap();
                self.qps[qi].queue.push_back(d);
            } else {
                let k = self.rng.next() % 100;
                if k < self.p_send {
                    self.recv_message(qi, true);
                } else if k < self.p_send + self.p_write_imm {
                    self.recv_message(qi, false);
                } else {
                    self.message(qi);
                }
            }
        }
        let mut pkt = self.qps[qi].queue.pop_front().unwrap();
        // BTH.SE on about half the packets, a hash of the PSN (not drawn from
        // the generator, whose sequence the coverage asserts rest on; the
        // PSN's parity follows the message sizes): the RECV's CQE is
        // solicited when its last packet asks
        pkt.bth.solicited_event = (pkt.psn().value() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 63 == 1;
        let se = pkt.bth.solicited_event;
        let qp = &mut self.qps[qi];
        let op = pkt.opcode();
        let send = matches!(
            op,
            Opcode::RcSendFirst
                | Opcode::RcSendMiddle
                | Opcode::RcSendLast
                | Opcode::RcSendLastImm
                | Opcode::RcSendOnly
                | Opcode::RcSendOnlyImm
        );
        let before = qp.model.clone();
        let st = before.state();
        // the truth
        let rc0 = qp.model.counters();
        let access = if send { MrAccess::LocalWrite } else { MrAccess::RemoteWrite };
        let mut bm = BenchMem {
            world: &self.world,
            pd: qp.pd,
            key: Cell::new(qp.rkey),
            access,
            pending: vec![],
            pieces: vec![],
        };
        let resp = qp.model.receive(&pkt, &mut bm);
        let (pending, logged) = (bm.pending, bm.pieces);
        let rc1 = qp.model.counters();
        let failed = rc1.error_naks > rc0.error_naks;
        let executed = rc1.executed > rc0.executed;
        let rnr = rc1.rnr_naks > rc0.rnr_naks;
        // the RECVs flushed when the packet put the QP in error: an RQ flush
        // record's (below), not this record's
        let (flushed, completions): (Vec<_>, Vec<_>) =
            qp.model.take_completions().into_iter().partition(|c| c.status == WcStatus::WrFlushErr);
        assert!(completions.len() <= 1, "one receive completion per packet at most");
        // what RespCheck decides: for a WRITE every key granted; a SEND's
        // checks are all this block's (or, RNR and duplicates, RespCheck's)
        let verdict = if send {
            if executed || failed {
                RESP_EXEC_SEND
            } else if rc1.duplicates > rc0.duplicates {
                RESP_DUP_SEND
            } else if rnr {
                RESP_RNR
            } else {
                panic!("traffic gave an unexpected SEND outcome: {op:?}")
            }
        } else {
            let mut open = before.clone();
            let c0 = open.counters();
            open.receive(&pkt, &mut OpenMemory);
            let c1 = open.counters();
            if c1.executed > c0.executed {
                RESP_EXEC_WRITE
            } else if c1.duplicates > c0.duplicates {
                RESP_DUP_WRITE
            } else if c1.rnr_naks > c0.rnr_naks {
                RESP_RNR
            } else {
                panic!("traffic gave neither an executed WRITE nor a duplicate nor RNR: {op:?}")
            }
        };
        let plen = pkt.payload.len() as u64;
        let starts = matches!(
            op,
            Opcode::RcWriteFirst
                | Opcode::RcWriteOnly
                | Opcode::RcWriteOnlyImm
                | Opcode::RcSendFirst
                | Opcode::RcSendOnly
                | Opcode::RcSendOnlyImm
        );
        let ends = matches!(
            op,
            Opcode::RcWriteLast
                | Opcode::RcWriteLastImm
                | Opcode::RcWriteOnly
                | Opcode::RcWriteOnlyImm
                | Opcode::RcSendLast
                | Opcode::RcSendLastImm
                | Opcode::RcSendOnly
                | Opcode::RcSendOnlyImm
        );
        let imm = pkt.ext.imm_dt().map(|i| i.value);
        let (key_check, rkey, va, len) = match (verdict, pkt.ext.reth()) {
            (RESP_EXEC_WRITE | RESP_RNR, Some(r)) if starts => (r.dma_len > 0, r.rkey, r.va, r.dma_len as u64),
            (RESP_EXEC_WRITE, _) => (false, st.write_rkey, st.write_va, plen),
            _ => (false, 0, 0, 0),
        };
        // the RECV: a SEND's, or a WRITE with immediate's at its end
        let exec_recv = (verdict == RESP_EXEC_SEND) || (verdict == RESP_EXEC_WRITE && imm.is_some());
        let recv_index = qp.rq_cons;
        let offset = if verdict == RESP_EXEC_SEND && !starts { st.recv_placed.unwrap_or(0) } else { 0 };
        let cqe_len = if send { offset + plen } else { st.write_len as u64 * (!starts) as u64 + len * starts as u64 };
        if exec_recv && ends && !failed {
            qp.rq_cons = qp.rq_cons.wrapping_add(1);
        }
        // a record with a RECV (a SEND's, a WRITE with immediate's at its end)
        let walked = verdict == RESP_EXEC_SEND || (verdict == RESP_EXEC_WRITE && imm.is_some() && ends);
        if failed && walked {
            // the failure consumed the RECV when it completed it (a CQE)
            qp.rq_cons = recv_index.wrapping_add(completions.len() as u16);
        }
        // the model flushed the others, from the next one to the last posted
        let want: Vec<u64> = if qp.model.is_error() {
            let n = qp.rq_prod.wrapping_sub(qp.rq_cons);
            (0..n).map(|k| qp.recv_wr_ids[&qp.rq_cons.wrapping_add(k)]).collect()
        } else {
            vec![]
        };
        assert_eq!(flushed.iter().map(|c| c.wr_id).collect::<Vec<_>>(), want, "the RECVs the model flushed");
        // the requester resends the RNR-NAKed packet itself after its RNR
        // timer (IBTA 9.7.5.2.8), by when the consumer has posted a RECV
        let retry = rnr.then(|| {
            let len = plen + qp.queue.iter().map(|p| p.payload.len() as u64).sum::<u64>();
            qp.queue.push_front(pkt.clone());
            len
        });
        let r = &mut self.rng;
        let aeth = |p: &RcPacket| {
            let a = p.ext.aeth().copied().expect("an AETH");
            (p.psn().value() as u64, (a.syndrome >> 5) as u64, (a.syndrome & 31) as u64, a.msn as u64)
        };
        // the record's own ACK: the model's unless this block fails it (then replaced)
        let rec_ack = if failed { None } else { resp.first().map(aeth) };
        let lane = r.next() % 64;
        let mut wr_data = [0u32; 16];
        wr_data.iter_mut().for_each(|w| *w = r.next() as u32);
        let mask = r.next();
        // RespCheck writes every record that executes or fails; of the
        // others (duplicates, RNR) the bench leaves half unwritten
        let write = failed || matches!(verdict, RESP_EXEC_SEND | RESP_EXEC_WRITE) || r.chance(50);
        let fields = rec_fields(
            qp,
            RecVals {
                psn: pkt.psn().value() as u64,
                verdict,
                ack: rec_ack.is_some() as u64,
                syndrome: rec_ack.map_or(0, |a| a.1 << 5 | a.2),
                aeth_psn: rec_ack.map_or(0, |a| a.0),
                aeth_msn: rec_ack.map_or(0, |a| a.3),
                msn_before: st.msn as u64,
                key_check: key_check as u64,
                key_access: ACC_REMOTE_WRITE,
                rkey: rkey as u64,
                va,
                len,
                recv_new: (exec_recv && starts || verdict == RESP_EXEC_WRITE && imm.is_some()) as u64,
                recv_index: if exec_recv { recv_index as u64 } else { 0 },
                recv_offset: offset,
                recv_done: (exec_recv && ends) as u64,
                cqe_len: if exec_recv && ends { cqe_len } else { 0 },
                write: write as u64,
                wr_mask: mask,
                plen,
                lane,
                rq_prod: qp.rq_prod as u64,
                imm: imm.unwrap_or(0) as u64,
                imm_valid: imm.is_some() as u64,
                se: se as u64,
            },
        );
        let placed = executed && plen > 0;
        let n = logged.len();
        let pieces: Vec<(u64, u64, bool)> =
            if placed { logged.iter().enumerate().map(|(i, &(a, l))| (a, l, i + 1 == n)).collect() } else { vec![] };
        if !failed {
            self.mem.extend(pending);
        }
        assert!(executed || failed || verdict != RESP_EXEC_WRITE, "the model neither executed nor failed it");
        let mut qdata = wr_data;
        if failed {
            let pos = qps_layout::IN_PROGRESS.pos();
            qdata[pos / 32] |= 3 << (pos % 32);
            // a record with a RECV (a SEND's, a WRITE with immediate's at its
            // end): RECV_WQE after the RECV when the failure completed it
            // (a CQE), else at it; RECV_VALID clear (an RQ flush completes
            // every other RECV once)
            if walked {
                let next = recv_index.wrapping_add(completions.len() as u16);
                set_field(&mut qdata, qps_layout::RECV_WQE.pos(), 16, next as u64);
                set_field(&mut qdata, qps_layout::RECV_VALID.pos(), 1, 0);
            }
        } else if verdict == RESP_EXEC_SEND {
            let sges = &qp.recv_sges[&recv_index];
            let (s, o) = recv_pos(sges, offset, plen);
            set_field(&mut qdata, qps_layout::RECV_SGE.pos(), 2, s);
            set_field(&mut qdata, qps_layout::RECV_SGE_OFFSET.pos(), 32, o);
        }
        let cqes: Vec<Cqe> = completions
            .iter()
            .map(|c| {
                [
                    qp.recv_cq,
                    c.wr_id,
                    wc_status(c.status),
                    wc_opcode(c.opcode),
                    c.byte_len as u64,
                    qp.qpn as u64,
                    recv_index as u64,
                    c.imm.unwrap_or(0) as u64,
                    c.imm.is_some() as u64,
                    (se && c.status == WcStatus::Success) as u64,
                ]
            })
            .collect();
        let k = &mut self.kinds;
        for c in &cqes {
            use rnic_contract::codes::WcStatus as C;
            k.solicited_cqe += c[9] as usize;
            match c[2] {
                x if x == C::Success as u64 && send => k.send_cqe_ok += 1,
                x if x == C::Success as u64 => k.write_imm_cqe += 1,
                x if x == C::LocLenErr as u64 => k.loc_len += 1,
                x if x == C::LocProtErr as u64 => k.loc_prot += 1,
                _ => k.loc_qp_op += 1,
            }
        }
        if rnr {
            k.rnr += 1;
        }
        if placed {
            k.placed += 1;
            k.send_placed += send as usize;
        } else if failed {
            k.failed += 1;
        } else {
            k.other += 1;
        }
        self.recs.push(Rec {
            fields,
            wr_data,
            path: qp.path,
            qpn: qp.qpn,
            payload: pkt.payload.clone(),
            pkt: Some((lane, !placed)),
            pieces,
            ack: resp.first().map(aeth),
            cqes,
            qps: Some((if write { mask } else { 0 }, qdata)),
            failed,
            flushed: 0,
            find: None,
            ack_ext: vec![],
        });
        qp.last = Some(pkt);
        if qp.model.is_error() {
            let fresh = self.new_qp();
            let old = std::mem::replace(&mut self.qps[qi], fresh);
            self.kinds.flush_error += (old.rq_cons != old.rq_prod) as usize;
            self.retire(old);
        } else if let Some(len) = retry {
            self.post_recv(qi, len, false);
        }
    }
}

/// Percent of cycles each source offers / sink takes, the translation
/// latency (cycles from a request taken to its first answer beat offered),
/// the RQ read's (command taken to beat offered) and `m_done`'s (a placed
/// packet's last piece and `m_pkt` taken to its `m_done` offered).
#[derive(Clone, Copy, Debug)]
pub struct ExecKnobs {
    pub p_dec: u64,
    pub p_xreq: u64,
    pub p_xresp: u64,
    pub p_pkt: u64,
    pub p_piece: u64,
    pub p_ack: u64,
    pub p_qps: u64,
    pub p_cqe: u64,
    pub p_rd: u64,
    pub lat_min: u64,
    pub lat_max: u64,
    pub rd_lat_min: u64,
    pub rd_lat_max: u64,
    pub done_lat_max: u64,
    /// Percent of cycles `m_find` is taken; the replay table's answer
    /// comes `lat_min..=lat_max` cycles after.
    pub p_find: u64,
    /// Percent of cycles a record up to [`HINT_AHEAD`] ahead of the one
    /// offered is hinted (`s_hint`, as the core's responder does when the
    /// record enters `XlateAhead`'s queue); 0: no hints.
    pub p_hint: u64,
}

/// Records the hints run ahead of `s_dec` at most (`XlateAhead`'s queue).
pub const HINT_AHEAD: usize = 17;

impl ExecKnobs {
    pub fn fast(lat: u64, rd_lat: u64) -> Self {
        ExecKnobs {
            p_dec: 100,
            p_xreq: 100,
            p_xresp: 100,
            p_pkt: 100,
            p_piece: 100,
            p_ack: 100,
            p_qps: 100,
            p_cqe: 100,
            p_rd: 100,
            lat_min: lat,
            lat_max: lat,
            rd_lat_min: rd_lat,
            rd_lat_max: rd_lat,
            done_lat_max: 0,
            p_find: 100,
            p_hint: 0,
        }
    }
}

type Held = Option<Vec<u64>>;

/// The bench (module doc).
pub struct ExecBench {
    pub knobs: ExecKnobs,
    pub world: MrWorld,
    pub rq: RqMem,
    pub rng: Rng,
    pub now: u64,
    recs: Vec<Rec>,
    next_in: usize,
    /// The next record to hint (none before `next_in`).
    next_hint: usize,
    dec_on: bool,
    // translation unit
    xresp: VecDeque<(u64, RespBeat)>,
    xresp_on: bool,
    // RQ reads: (cycle due, the entry)
    rd: VecDeque<(u64, [u8; recv_wqe::SIZE])>,
    rd_on: bool,
    take: [bool; 8],
    held: [Held; 8],
    // the replay table: the finds to come (record, find), the answers
    // scheduled (cycle due, record), the one offered now, the misses
    // answered whose `rp_miss` pulse is still to come
    finds: VecDeque<(usize, Find)>,
    found: VecDeque<(u64, usize)>,
    found_on: bool,
    miss_due: VecDeque<usize>,
    /// `rp_miss` pulses seen, finds answered with a hit.
    pub misses: usize,
    pub hits: usize,
    // expectations, by record index
    pieces: VecDeque<(usize, (u64, u64, bool))>,
    /// Byte offset into the payload of the record being placed.
    placed_off: usize,
    /// The records with an `m_pkt` item (all but RQ flushes), in order.
    pkts: VecDeque<usize>,
    acks: VecDeque<(usize, (u64, u64, u64, u64))>,
    cqes: VecDeque<(usize, Cqe)>,
    next_qps: usize,
    // m_done: placed records in order, which of them had their last piece /
    // m_pkt taken, the dones scheduled and given
    placed: VecDeque<usize>,
    placed_all: Vec<usize>,
    last_piece: Vec<bool>,
    pkt_taken: Vec<bool>,
    dones: VecDeque<u64>,
    done_on: bool,
    dones_given: usize,
    /// Host memory written from the pieces.
    pub mem: HostMem,
    // logs (cycles)
    pub dec_taken: Vec<u64>,
    /// Per record: the cycle its first piece was offered.
    pub first_piece: HashMap<usize, u64>,
    pub xreq_log: Vec<MrRequest>,
    /// RQ reads (cycles the command was taken, the address).
    pub rd_log: Vec<(u64, u64)>,
    /// `m_cqe` items taken (cycle, record), `m_qps` items taken (cycle).
    pub cqe_log: Vec<(u64, usize)>,
    pub qps_log: Vec<u64>,
    /// `m_qps` items taken with `wake` (the responder's move into error).
    pub wakes: u64,
    /// Pulse `qp_inval` in the cycle after this record's first piece is offered.
    pub inval_after: Option<usize>,
    inval_now: bool,
}

const SLOTS: [&str; 8] = ["m_xreq", "m_pkt", "m_piece", "m_ack", "m_qps", "m_cqe", "m_rd", "m_find"];

impl ExecBench {
    pub fn new(world: MrWorld, rq: RqMem, knobs: ExecKnobs, seed: u64) -> Self {
        ExecBench {
            knobs,
            world,
            rq,
            rng: Rng(seed | 1),
            now: 0,
            recs: vec![],
            next_in: 0,
            next_hint: 0,
            dec_on: false,
            xresp: VecDeque::new(),
            xresp_on: false,
            rd: VecDeque::new(),
            rd_on: false,
            take: [false; 8],
            held: Default::default(),
            finds: VecDeque::new(),
            found: VecDeque::new(),
            found_on: false,
            miss_due: VecDeque::new(),
            misses: 0,
            hits: 0,
            pieces: VecDeque::new(),
            placed_off: 0,
            pkts: VecDeque::new(),
            acks: VecDeque::new(),
            cqes: VecDeque::new(),
            next_qps: 0,
            placed: VecDeque::new(),
            placed_all: vec![],
            last_piece: vec![],
            pkt_taken: vec![],
            dones: VecDeque::new(),
            done_on: false,
            dones_given: 0,
            mem: HostMem::new(),
            dec_taken: vec![],
            first_piece: HashMap::new(),
            xreq_log: vec![],
            rd_log: vec![],
            cqe_log: vec![],
            qps_log: vec![],
            wakes: 0,
            inval_after: None,
            inval_now: false,
        }
    }

    pub fn push(&mut self, recs: &[Rec]) {
        for r in recs {
            let i = self.recs.len();
            for p in &r.pieces {
                self.pieces.push_back((i, *p));
            }
            if !r.pieces.is_empty() {
                self.placed.push_back(i);
                self.placed_all.push(i);
            }
            if r.pkt.is_some() {
                self.pkts.push_back(i);
            }
            if let Some(a) = r.ack {
                self.acks.push_back((i, a));
            }
            for c in &r.cqes {
                self.cqes.push_back((i, *c));
            }
            if let Some(f) = &r.find {
                self.finds.push_back((i, f.clone()));
            }
            self.recs.push(r.clone());
            self.last_piece.push(false);
            self.pkt_taken.push(false);
        }
    }

    pub fn done(&self) -> bool {
        self.next_in == self.recs.len()
            && self.pkts.is_empty()
            && self.next_qps == self.recs.len()
            && self.pieces.is_empty()
            && self.acks.is_empty()
            && self.cqes.is_empty()
            && self.xresp.is_empty()
            && self.dones_given == self.placed_all.len()
            && self.finds.is_empty()
            && self.found.is_empty()
            && self.miss_due.is_empty()
    }

    pub fn drive<M: Model + ?Sized>(&mut self, m: &mut M) {
        let k = self.knobs;
        if !self.dec_on && self.next_in < self.recs.len() && self.rng.chance(k.p_dec) {
            self.dec_on = true;
        }
        if let Some(r) = self.recs.get(self.next_in) {
            for (n, v) in &r.fields {
                m.set(n, *v);
            }
            let i = m.port("s_dec.wr_data");
            m.set_words(i, &r.wr_data);
            let i = m.port("s_side.path");
            m.set_words(i, &r.path);
        }
        m.set("s_dec.valid", self.dec_on as u64);
        // a hint: the RQ entry a queued record that starts a RECV will ask for
        self.next_hint = self.next_hint.max(self.next_in);
        let mut hint = [0u64; 5];
        if k.p_hint > 0 && self.next_hint < self.recs.len().min(self.next_in + HINT_AHEAD) && self.rng.chance(k.p_hint)
        {
            let f = |n: &str| self.recs[self.next_hint].fields.iter().find(|x| x.0 == n).map_or(0, |x| x.1);
            let verdict = f("s_dec.verdict");
            if f("s_dec.recv_new") == 1 && (verdict == RESP_EXEC_SEND || verdict == RESP_EXEC_WRITE) {
                hint = [1, f("s_dec.qpn"), f("s_dec.recv_index"), f("s_side.rq_base"), f("s_side.rq_log")];
            }
            self.next_hint += 1;
        }
        for (n, v) in ["s_hint.valid", "s_hint.qpn", "s_hint.index", "s_hint.base", "s_hint.log"].iter().zip(hint) {
            m.set(n, v);
        }
        for (i, p) in
            [k.p_xreq, k.p_pkt, k.p_piece, k.p_ack, k.p_qps, k.p_cqe, k.p_rd, k.p_find].into_iter().enumerate()
        {
            self.take[i] = self.rng.chance(p);
            m.set(&format!("{}.ready", SLOTS[i]), self.take[i] as u64);
        }
        if !self.xresp_on && self.xresp.front().is_some_and(|b| b.0 <= self.now) && self.rng.chance(k.p_xresp) {
            self.xresp_on = true;
        }
        let b = self.xresp.front().map_or((0, 0, 0, 0, false), |b| b.1);
        m.set("s_xresp.id", b.0);
        m.set("s_xresp.verdict", b.1);
        m.set("s_xresp.iova", b.2);
        m.set("s_xresp.len", b.3);
        m.set("s_xresp.last", b.4 as u64);
        m.set("s_xresp.valid", self.xresp_on as u64);
        // the RQ entry's beat
        if !self.rd_on && self.rd.front().is_some_and(|b| b.0 <= self.now) {
            self.rd_on = true;
        }
        let mut words = [0u32; 16];
        if let Some((_, e)) = self.rd.front() {
            for (w, c) in words.iter_mut().zip(e.chunks(4)) {
                *w = u32::from_le_bytes(c.try_into().unwrap());
            }
        }
        let i = m.port("s_rd.tdata");
        m.set_words(i, &words);
        m.set("s_rd.tkeep", u64::MAX);
        m.set("s_rd.tlast", 1);
        m.set("s_rd.tuser", 0);
        m.set("s_rd.tvalid", self.rd_on as u64);
        // PayloadScatter's m_done
        if !self.done_on && self.dones.front().is_some_and(|&t| t <= self.now) {
            self.done_on = true;
        }
        m.set("s_done.err", 0);
        m.set("s_done.valid", self.done_on as u64);
        m.set("qp_inval", self.inval_now as u64);
        // the replay table's answer: a pulse (no `ready`)
        self.found_on = self.found.front().is_some_and(|f| f.0 <= self.now);
        let f = self.found.front().and_then(|f| self.recs[f.1].find.as_ref());
        m.set("s_found.valid", self.found_on as u64);
        m.set("s_found.hit", f.is_some_and(|f| f.hit) as u64);
        m.set("s_found.orig", f.map_or(0, |f| f.orig));
        // no put and no atomic is expected (the bench has no READ/atomic
        // execution): taken at once, and an error when offered (`sample`)
        m.set("m_put.ready", 1);
        m.set("m_atom.ready", 1);
        m.set("s_atom.valid", 0);
    }

    fn check_held(&mut self, i: usize, valid: bool, v: &[u64]) -> Result<(), String> {
        if let Some(h) = &self.held[i] {
            if !valid || h.as_slice() != v {
                return Err(format!("cycle {}: {} withdrawn or changed before it was taken", self.now, SLOTS[i]));
            }
        }
        self.held[i] = (valid && !self.take[i]).then(|| v.to_vec());
        Ok(())
    }

    /// No output of record `i` before all its pieces were taken.
    fn placed_before(&self, i: usize, what: &str) -> Result<(), String> {
        match self.pieces.front() {
            Some((j, _)) if *j <= i => Err(format!("cycle {}: {what} of record {i} before its pieces", self.now)),
            _ => Ok(()),
        }
    }

    /// No output of record `i` before it was taken.
    fn taken_before(&self, i: usize, what: &str) -> Result<(), String> {
        if i >= self.next_in {
            return Err(format!("cycle {}: {what} of record {i} before it was taken", self.now));
        }
        Ok(())
    }

    /// No ACK or CQE of record `i` before every placed packet up to it is written.
    fn written_before(&self, i: usize, what: &str) -> Result<(), String> {
        let need = self.placed_all.iter().take_while(|&&j| j <= i).count();
        if need > self.dones_given {
            return Err(format!("cycle {}: {what} of record {i} before its payload is written", self.now));
        }
        Ok(())
    }

    pub fn sample<M: Model + ?Sized>(&mut self, m: &M) -> Result<(), String> {
        let now = self.now;
        self.inval_now = false;
        // ---- translation requests
        let xv = m.get("m_xreq.valid") & 1 == 1;
        let x = vec![
            m.get("m_xreq.key"),
            m.get("m_xreq.pd"),
            m.get("m_xreq.va"),
            m.get("m_xreq.len"),
            m.get("m_xreq.access"),
            m.get("m_xreq.id"),
        ];
        self.check_held(0, xv, &x)?;
        // an RQ flush asks no translation (the record held is the last taken)
        if xv && self.next_in > 0 && self.recs[self.next_in - 1].flushed > 0 {
            return Err(format!("cycle {now}: m_xreq {x:x?} during the RQ flush record {}", self.next_in - 1));
        }
        if xv && self.take[0] {
            let access = match x[4] {
                ACC_REMOTE_WRITE => MrAccess::RemoteWrite,
                ACC_LOCAL_WRITE => MrAccess::LocalWrite,
                ACC_REMOTE_READ => MrAccess::RemoteRead,
                a => return Err(format!("cycle {now}: access {a} asked")),
            };
            // of a duplicate, only a READ's replay checks its key again (of a length)
            if let Some(f) = self.next_in.checked_sub(1).and_then(|i| self.recs[i].find.as_ref()) {
                if !(f.hit && f.want[2] == 0 && f.want[5] > 0) || access != MrAccess::RemoteRead {
                    return Err(format!("cycle {now}: m_xreq {x:x?} for the duplicate record {}", self.next_in - 1));
                }
            }
            let r = req(x[0] as u32, x[1] as u32, x[2], x[3] as u32, access);
            let lat = self.knobs.lat_min + self.rng.next() % (self.knobs.lat_max - self.knobs.lat_min + 1);
            for b in expected_beats(x[5], &self.world.expect(&r)) {
                self.xresp.push_back((now + lat, b));
            }
            self.xreq_log.push(r);
        }
        if self.xresp_on && m.get("s_xresp.ready") & 1 == 1 {
            self.xresp.pop_front();
            self.xresp_on = false;
        }
        // ---- RQ reads
        let rv = m.get("m_rd.valid") & 1 == 1;
        let rc = vec![m.get("m_rd.addr"), m.get("m_rd.len")];
        self.check_held(6, rv, &rc)?;
        if rv && self.take[6] {
            let e = *self.rq.get(&rc[0]).ok_or(format!("cycle {now}: RQ read at {:#x}: no entry there", rc[0]))?;
            // read only once a record taken (or hinted) said it was posted
            if e.posted_at >= self.next_in.max(self.next_hint) {
                return Err(format!(
                    "cycle {now}: RQ read at {:#x} before it was posted (record {}, {} taken, {} hinted)",
                    rc[0], e.posted_at, self.next_in, self.next_hint
                ));
            }
            let e = e.bytes;
            if rc[1] != recv_wqe::SIZE as u64 {
                return Err(format!("cycle {now}: RQ read of {} bytes", rc[1]));
            }
            let k = self.knobs;
            let lat = k.rd_lat_min + self.rng.next() % (k.rd_lat_max - k.rd_lat_min + 1);
            self.rd.push_back((now + lat, e));
            self.rd_log.push((now, rc[0]));
        }
        if self.rd_on && m.get("s_rd.tready") & 1 == 1 {
            self.rd.pop_front();
            self.rd_on = false;
        }
        // ---- the replay table: finds checked and answered, `rp_miss` pulses
        let fv = m.get("m_find.valid") & 1 == 1;
        let fc: Vec<u64> = FIND_PORTS.iter().map(|n| m.get(&format!("m_find.{n}"))).collect();
        self.check_held(7, fv, &fc)?;
        if fv && self.take[7] {
            let (i, f) = self.finds.pop_front().ok_or(format!("cycle {now}: m_find {fc:x?} not expected"))?;
            if self.next_in != i + 1 {
                return Err(format!("cycle {now}: m_find of record {i}, {} taken", self.next_in));
            }
            if fc != f.want {
                return Err(format!("cycle {now}: m_find {fc:x?} of record {i}, want {:x?}", f.want));
            }
            let k = self.knobs;
            let lat = k.lat_min + self.rng.next() % (k.lat_max - k.lat_min + 1);
            self.found.push_back((now + 1 + lat, i));
        }
        if self.found_on {
            let (_, i) = self.found.pop_front().unwrap();
            if self.recs[i].find.as_ref().unwrap().hit {
                self.hits += 1;
            } else {
                self.miss_due.push_back(i);
            }
        }
        if m.get("rp_miss") & 1 == 1 {
            let i = self.miss_due.pop_front().ok_or(format!("cycle {now}: rp_miss without a miss answered"))?;
            if self.next_in != i + 1 {
                return Err(format!("cycle {now}: rp_miss of record {i}, {} taken", self.next_in));
            }
            self.misses += 1;
        }
        if m.get("m_put.valid") & 1 == 1 {
            return Err(format!("cycle {now}: m_put offered (record {})", self.next_in.wrapping_sub(1)));
        }
        if m.get("m_atom.valid") & 1 == 1 {
            return Err(format!("cycle {now}: m_atom offered (record {})", self.next_in.wrapping_sub(1)));
        }
        // ---- m_done: always taken
        if self.done_on {
            if m.get("s_done.ready") & 1 == 0 {
                return Err(format!("cycle {now}: s_done not ready"));
            }
            self.dones.pop_front();
            self.done_on = false;
            self.dones_given += 1;
        }
        // ---- records taken
        if self.dec_on && m.get("s_dec.ready") & 1 == 1 {
            self.dec_on = false;
            self.next_in += 1;
            self.dec_taken.push(now);
        }
        // ---- pieces: checked, their bytes written
        let pv = m.get("m_piece.valid") & 1 == 1;
        let pc = vec![m.get("m_piece.iova"), m.get("m_piece.len"), m.get("m_piece.last")];
        self.check_held(2, pv, &pc)?;
        if pv {
            if let Some((i, _)) = self.pieces.front() {
                self.inval_now = self.inval_after == Some(*i) && !self.first_piece.contains_key(i);
                self.first_piece.entry(*i).or_insert(now);
            }
        }
        if pv && self.take[2] {
            let (i, w) = self.pieces.pop_front().ok_or(format!("cycle {now}: piece {pc:x?} not expected"))?;
            if pc != vec![w.0, w.1, w.2 as u64] {
                let r = &self.recs[i];
                return Err(format!(
                    "cycle {now}: piece {pc:x?} of record {i}, want {w:x?}; record {:x?}, pieces {:x?}; requests {:x?}",
                    r.fields,
                    r.pieces,
                    &self.xreq_log[self.xreq_log.len().saturating_sub(3)..]
                ));
            }
            let pay = &self.recs[i].payload;
            for k in 0..w.1 {
                self.mem.insert(w.0 + k, pay[self.placed_off + k as usize]);
            }
            self.placed_off += w.1 as usize;
            if w.2 {
                if self.placed_off != pay.len() {
                    return Err(format!("record {i}: pieces cover {} of {} bytes", self.placed_off, pay.len()));
                }
                self.placed_off = 0;
                self.last_piece[i] = true;
            }
        }
        // ---- m_pkt: one per record but an RQ flush
        let kv = m.get("m_pkt.valid") & 1 == 1;
        let k = vec![m.get("m_pkt.lane"), m.get("m_pkt.drop")];
        self.check_held(1, kv, &k)?;
        if kv && self.take[1] {
            let i = self.pkts.pop_front().ok_or(format!("cycle {now}: m_pkt {k:?} not expected"))?;
            // a flush record's item would be taken for the next packet's, not yet taken
            self.taken_before(i, "m_pkt")?;
            let want = self.recs[i].pkt.unwrap();
            if k != vec![want.0, want.1 as u64] {
                return Err(format!("cycle {now}: m_pkt {k:?} of record {i}, want {want:?}"));
            }
            self.placed_before(i, "m_pkt")?;
            self.pkt_taken[i] = true;
        }
        // the placed packet's payload written some cycles after its pieces and m_pkt
        if let Some(&i) = self.placed.front() {
            if self.last_piece[i] && self.pkt_taken[i] {
                self.placed.pop_front();
                let lat = self.rng.next() % (self.knobs.done_lat_max + 1);
                self.dones.push_back(now + 1 + lat);
            }
        }
        // ---- m_ack
        let av = m.get("m_ack.valid") & 1 == 1;
        let a = vec![
            m.get("m_ack.qpn"),
            m.get("m_ack.dest_qpn"),
            m.get("m_ack.pkey"),
            m.get("m_ack.psn"),
            m.get("m_ack.kind"),
            m.get("m_ack.code"),
            m.get("m_ack.msn"),
        ];
        self.check_held(3, av, &a)?;
        if av && self.take[3] {
            let (i, w) = self.acks.pop_front().ok_or(format!("cycle {now}: m_ack {a:x?} not expected"))?;
            let r = &self.recs[i];
            let f = |n: &str| r.fields.iter().find(|x| x.0 == n).unwrap().1;
            let want = vec![r.qpn as u64, f("s_side.dest_qpn"), f("s_side.pkey"), w.0, w.1, w.2, w.3];
            if a != want {
                return Err(format!("cycle {now}: m_ack {a:x?} of record {i}, want {want:x?}"));
            }
            self.taken_before(i, "m_ack")?;
            let mut path = [0u32; 16];
            m.get_words(m.port("m_ack.path"), &mut path);
            if path != r.path {
                return Err(format!("cycle {now}: m_ack path of record {i}"));
            }
            for &(n, v) in &r.ack_ext {
                if m.get(n) != v {
                    return Err(format!("cycle {now}: {n} {:#x} of record {i}, want {v:#x}", m.get(n)));
                }
            }
            self.placed_before(i, "m_ack")?;
            self.written_before(i, "m_ack")?;
        }
        // ---- m_cqe
        let cv = m.get("m_cqe.valid") & 1 == 1;
        let mut c: Vec<u64> =
            ["cq", "wr_id", "status", "opcode", "byte_len", "qpn", "wqe_index", "imm", "with_imm", "solicited"]
                .iter()
                .map(|n| m.get(&format!("m_cqe.{n}")))
                .collect();
        self.check_held(5, cv, &c)?;
        if c[8] == 0 {
            c[7] = 0; // IMM only with WITH_IMM (layouts::cqe)
        }
        if cv && self.take[5] {
            let (i, w) = self.cqes.pop_front().ok_or(format!("cycle {now}: m_cqe {c:x?} not expected"))?;
            if c != w {
                return Err(format!("cycle {now}: m_cqe {c:x?} of record {i}, want {w:x?}"));
            }
            self.taken_before(i, "m_cqe")?;
            self.cqe_log.push((now, i));
            self.placed_before(i, "m_cqe")?;
            self.written_before(i, "m_cqe")?;
        }
        // ---- m_qps
        let qv = m.get("m_qps.valid") & 1 == 1;
        let mut d = [0u32; 16];
        m.get_words(m.port("m_qps.data"), &mut d);
        let mut q = vec![m.get("m_qps.qpn"), m.get("m_qps.mask")];
        q.extend(d.iter().map(|&x| x as u64));
        self.check_held(4, qv, &q)?;
        if qv && self.take[4] {
            let i = self.next_qps;
            let r = self.recs.get(i).ok_or(format!("cycle {now}: m_qps not expected"))?;
            let (mask, data) = r.qps.unwrap();
            if q[0] != r.qpn as u64 || q[1] != mask || (mask != 0 && d != data) {
                return Err(format!(
                    "cycle {now}: m_qps of record {i} (failed {}) differs: {d:x?}, want {data:x?}",
                    r.failed
                ));
            }
            // the write that moves the QP's responder into error (a failure
            // here, an invalid request's NAK) wakes the send scheduler
            let inv = r.fields.iter().any(|&(n, v)| n == "s_dec.verdict" && v == RESP_NAK_INV);
            let wake = m.get("m_qps.wake") & 1 == 1;
            if wake != (r.failed || inv) {
                return Err(format!(
                    "cycle {now}: m_qps.wake {wake} of record {i} (failed {}, NAK_INV {inv})",
                    r.failed
                ));
            }
            self.wakes += wake as u64;
            self.taken_before(i, "m_qps")?;
            self.placed_before(i, "m_qps")?;
            self.next_qps += 1;
            self.qps_log.push(now);
        }
        self.now += 1;
        Ok(())
    }
}

/// Pmtu of `bytes`.
pub fn pmtu(bytes: usize) -> Pmtu {
    [Pmtu::Mtu256, Pmtu::Mtu512, Pmtu::Mtu1024, Pmtu::Mtu2048, Pmtu::Mtu4096]
        .into_iter()
        .find(|p| p.bytes() == bytes)
        .unwrap()
}
