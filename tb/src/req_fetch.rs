//! Bench for the requester's fetch stage (`ReqFetch`, catalog `req_fetch`).
//!
//! Around the DUT, Rust models: the scheduler (a round-robin list of QPs
//! offering grants, re-queueing a QP on `done` with `more`), two context
//! caches (the `qpc` and `qps` tables as byte entries; every request
//! answered after a random latency, the due answers in random order, so
//! answers to different slots come back out of order; a write applied with
//! its byte mask when taken), the DMA (commands taken with stalls, the two
//! beats of a WQE after a latency, in command order, with valid stalls)
//! and a fake `ReqGen` that answers each job with the `done` a packet
//! generator computes from the WQE (packets = max(1, ceil(len / pmtu)),
//! at most `budget` of them; a READ or atomic one request; INLINE fails).
//!
//! The reference ([`decide`]) is the decision table of the module doc of
//! `req_fetch.rs`, applied to the tables as the DUT's cache reads saw them.
//! Every job (all fields), qps write (mask and data), error record and
//! scheduler done is checked against it, and jobs must leave in grant order.

use rnic_contract::codes::{QpState, SendOpcode};
use rnic_contract::layouts::{qpc, qps, send_wqe, sge};
use rnic_hw::consts::{REQ_ERR_FLUSH, REQ_ERR_INLINE, REQ_ERR_NONE};
use rnic_hw::transport::{MAX_UNACKED_PSNS, REQ_ACK_REQ_EVERY, REQ_FETCH_WB_ID, REQ_FETCH_WQE_BYTES};
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, VecDeque};

const PSN_MASK: u64 = (1 << 24) - 1;

/// A field's value in an entry.
pub fn rd(f: rnic_contract::layout::LayoutFieldInfo, e: &[u8]) -> u64 {
    f.read_raw(e).unwrap()
}
/// Set a field in an entry.
pub fn wr(f: rnic_contract::layout::LayoutFieldInfo, e: &mut [u8], v: u64) {
    f.write_raw(e, v & ((1u128 << f.width) - 1) as u64).unwrap()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A job as `ReqGen` sees it: the scalar fields by name, and the PATH and SGES bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub f: Vec<(&'static str, u64)>,
    pub path: Vec<u8>,
    pub sges: Vec<u8>,
}

impl Job {
    pub fn get(&self, n: &str) -> u64 {
        self.f.iter().find(|x| x.0 == n).unwrap().1
    }
}

/// The scalar job fields (port names under `m_job.`).
pub const JOB_FIELDS: [&str; 22] = [
    "resend",
    "flush",
    "qpn",
    "dest_qpn",
    "pkey",
    "pd",
    "pmtu",
    "opcode",
    "solicited",
    "signaled",
    "is_inline",
    "imm",
    "remote_va",
    "rkey",
    "compare_add",
    "swap",
    "wr_id",
    "num_sge",
    "sq_index",
    "psn",
    "pkt_index",
    "budget",
];

/// What the reference expects of one grant.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// `done` without `more`, no job (no work, no room, not RTS, the READ/atomic limit, the fence).
    Stop,
    /// A stop that pokes the completer (`m_err` with the QPN, sq_index 0,
    /// `REQ_ERR_FLUSH`): a QP in ERR whose completer is not in error yet.
    Poke,
    /// This job.
    Go(Job),
}

/// The QP's values as the requester uses them (the not-started substitutions made).
pub struct Eff {
    pub next: u64,
    pub sent: u64,
    pub cwqe: u64,
    pub cpkt: u64,
    pub rdst: u64,
    pub una: u64,
    pub rddone: u64,
}

pub fn eff(c: &[u8], s: &[u8]) -> Eff {
    let sq_psn = rd(qpc::SQ_PSN.info(), c);
    let started = rd(qps::REQ_STARTED.info(), s) == 1;
    let comp = rd(qps::COMP_STARTED.info(), s) == 1;
    let r = |f: rnic_contract::layout::LayoutFieldInfo, d: u64| if started { rd(f, s) } else { d };
    Eff {
        next: r(qps::NEXT_PSN.info(), sq_psn),
        sent: r(qps::SENT_END.info(), sq_psn),
        cwqe: r(qps::CURSOR_WQE.info(), 0),
        cpkt: r(qps::CURSOR_PKT.info(), 0),
        rdst: r(qps::RD_ATOMIC_STARTED.info(), 0),
        una: if comp { rd(qps::UNA.info(), s) } else { sq_psn },
        rddone: if comp { rd(qps::RD_ATOMIC_DONE.info(), s) } else { 0 },
    }
}

pub fn is_rd_atomic(op: u64) -> bool {
    [SendOpcode::RdmaRead as u64, SendOpcode::AtomicCmpAndSwp as u64, SendOpcode::AtomicFetchAndAdd as u64]
        .contains(&op)
}

/// The WQE's address in host memory.
pub fn wqe_addr(c: &[u8], cwqe: u64) -> u64 {
    rd(qpc::SQ_BASE.info(), c) + (cwqe & ((1 << rd(qpc::SQ_LOG_SIZE.info(), c)) - 1)) * REQ_FETCH_WQE_BYTES
}

/// The reference decision for a grant of a QP with entries `c` (qpc) and
/// `s` (qps), the WQE memory `mem`.
pub fn decide(qpn: u32, c: &[u8], s: &[u8], mem: &HashMap<u64, Vec<u8>>) -> Outcome {
    let e = eff(c, s);
    let win = (e.next.wrapping_sub(e.una)) & PSN_MASK;
    let st_err = rd(qpc::STATE.info(), c) == QpState::Error as u64;
    let comp = rd(qps::COMP_STARTED.info(), s) == 1;
    let cerr = comp && rd(qps::COMP_ERROR.info(), s) == 1;
    // a flush grant: the requester refused a WQE, or the completer is in
    // error, or the driver moved the QP to ERR
    let flush_qps = cerr || (rd(qps::REQ_STARTED.info(), s) == 1 && rd(qps::REQ_REFUSED.info(), s) == 1);
    // the responder in error (it sent a fatal NAK): the QP is in error as in
    // ERR, from RTS or RTR
    let rerr = rd(qps::RESP_STARTED.info(), s) == 1 && rd(qps::IN_PROGRESS.info(), s) == qps::IN_PROGRESS_ERROR as u64;
    // the grant acts in RTS and ERR, and in any state once its responder failed
    let rts = rd(qpc::STATE.info(), c) == QpState::ReadyToSend as u64 || st_err || rerr;
    let flush = flush_qps || st_err || rerr;
    // ERR alone: no job; the completer is asked for its flush first
    if (st_err || rerr) && rts && !flush_qps {
        return Outcome::Poke;
    }
    // waiting out an RNR NAK: nothing is sent (a flush does not wait)
    let held = comp && rd(qps::RNR_WAIT.info(), s) == 1 && !flush;
    // a resend: the cursor's PSN was sent before (no READ/atomic or fence check)
    let resend = win < (e.sent.wrapping_sub(e.una) & PSN_MASK);
    // the flush's WQE: the cursor's, or the next when the cursor's was
    // partly sent; the completer's head instead when it is in error and its
    // head is past that (16-bit serial)
    let at = if e.cpkt != 0 { (e.cwqe + 1) & 0xffff } else { e.cwqe };
    let head = rd(qps::HEAD_WQE.info(), s);
    let (cw, psn, cpkt) = if !flush {
        (e.cwqe, e.next, e.cpkt)
    } else if cerr && (at.wrapping_sub(head) & 0xffff) >> 15 == 1 {
        (head, e.sent, 0)
    } else {
        (at, e.next, 0)
    };
    if !rts || held || cw == rd(qpc::SQ_PROD.info(), c) || (!flush && win >= MAX_UNACKED_PSNS) {
        return Outcome::Stop;
    }
    let w = &mem[&wqe_addr(c, cw)];
    let rdout = e.rdst.wrapping_sub(e.rddone) & 31;
    let op = rd(send_wqe::OPCODE.info(), w);
    if e.cpkt == 0
        && !flush
        && !resend
        && ((is_rd_atomic(op) && rdout >= rd(qpc::MAX_RD_ATOMIC.info(), c))
            || (rd(send_wqe::FENCE.info(), w) == 1 && rdout != 0))
    {
        return Outcome::Stop;
    }
    // the budget as the block computes it (a flush job's is not used)
    let ackb = REQ_ACK_REQ_EVERY - e.cpkt % REQ_ACK_REQ_EVERY;
    let budget = if win < (REQ_ACK_REQ_EVERY | (e.cpkt % REQ_ACK_REQ_EVERY)) {
        ackb
    } else {
        MAX_UNACKED_PSNS.wrapping_sub(win) & 0xff
    };
    let f = vec![
        ("resend", (resend && !flush) as u64),
        ("flush", flush as u64),
        ("qpn", qpn as u64),
        ("dest_qpn", rd(qpc::DEST_QPN.info(), c)),
        ("pkey", rd(qpc::PKEY.info(), c)),
        ("pd", rd(qpc::PD.info(), c)),
        ("pmtu", rd(qpc::PMTU.info(), c)),
        ("opcode", op),
        ("solicited", rd(send_wqe::SOLICITED.info(), w)),
        ("signaled", rd(send_wqe::SIGNALED.info(), w)),
        ("is_inline", rd(send_wqe::INLINE.info(), w)),
        ("imm", rd(send_wqe::IMM.info(), w)),
        ("remote_va", rd(send_wqe::REMOTE_VA.info(), w)),
        ("rkey", rd(send_wqe::RKEY.info(), w)),
        ("compare_add", rd(send_wqe::COMPARE_ADD.info(), w)),
        ("swap", rd(send_wqe::SWAP.info(), w)),
        ("wr_id", rd(send_wqe::WR_ID.info(), w)),
        ("num_sge", rd(send_wqe::NUM_SGE.info(), w)),
        ("sq_index", cw),
        ("psn", psn),
        ("pkt_index", cpkt),
        ("budget", budget),
    ];
    Outcome::Go(Job { f, path: qpc::PATH.bytes(c).unwrap().to_vec(), sges: send_wqe::SGES.bytes(w).unwrap().to_vec() })
}

/// `ReqGen`'s done for a job: (next_psn, next_pkt, end_psn, finished, err).
pub fn gen_done(j: &Job, sges: &[u8]) -> (u64, u64, u64, bool, u64) {
    let psn = j.get("psn");
    if j.get("flush") == 1 {
        return (psn, 0, psn, false, REQ_ERR_FLUSH);
    }
    if j.get("is_inline") == 1 {
        return (psn, j.get("pkt_index"), psn, false, REQ_ERR_INLINE);
    }
    let pmtu = 128u64 << j.get("pmtu");
    let len: u64 = (0..j.get("num_sge") as usize).map(|i| rd(sge::LEN.info(), &sges[16 * i..16 * i + 16])).sum();
    let k = j.get("pkt_index");
    // (a random state's cursor may lie past a random WQE's end: one packet left)
    let total = len.div_ceil(pmtu).max(1).max(k + 1);
    let end = (psn + total - k) & PSN_MASK;
    if is_rd_atomic(j.get("opcode")) {
        let span = if j.get("opcode") == SendOpcode::RdmaRead as u64 { total - k } else { 1 };
        let end = (psn + span) & PSN_MASK;
        return (end, k + span, end, true, REQ_ERR_NONE);
    }
    let n = (total - k).min(j.get("budget"));
    ((psn + n) & PSN_MASK, k + n, end, k + n == total, REQ_ERR_NONE)
}

/// What the write-back must do for a job and its done: the requester's
/// bytes, and the scheduler's `more` (an error record besides when `err`).
pub fn write_back(c: &[u8], s: &[u8], j: &Job, d: (u64, u64, u64, bool, u64)) -> (Option<Vec<u8>>, bool) {
    let e = eff(c, s);
    let (next, pkt, _end, fin, err) = d;
    let mut n = s.to_vec();
    let sq = j.get("sq_index");
    if err != REQ_ERR_NONE {
        // refused (or flushed): the cursor past it, REQ_REFUSED, more while WQEs are left
        // (counted as the block counts a start: a first send, packet 0)
        let started_rd =
            is_rd_atomic(j.get("opcode")) && j.get("flush") == 0 && j.get("pkt_index") == 0 && j.get("resend") == 0;
        wr(qps::REQ_STARTED.info(), &mut n, 1);
        wr(qps::REQ_REFUSED.info(), &mut n, 1);
        wr(qps::NEXT_PSN.info(), &mut n, next);
        let ahead = next.wrapping_sub(e.sent) & PSN_MASK;
        wr(qps::SENT_END.info(), &mut n, if ahead != 0 && ahead < 1 << 23 { next } else { e.sent });
        let cw = (sq + 1) & 0xffff;
        wr(qps::CURSOR_WQE.info(), &mut n, cw);
        wr(qps::CURSOR_PKT.info(), &mut n, 0);
        wr(qps::RD_ATOMIC_STARTED.info(), &mut n, (e.rdst + started_rd as u64) & 31);
        return (Some(n), cw != rd(qpc::SQ_PROD.info(), c));
    }
    wr(qps::REQ_STARTED.info(), &mut n, 1);
    wr(qps::NEXT_PSN.info(), &mut n, next);
    let ahead = next.wrapping_sub(e.sent) & PSN_MASK;
    wr(qps::SENT_END.info(), &mut n, if ahead != 0 && ahead < 1 << 23 { next } else { e.sent });
    let cw = if fin { (sq + 1) & 0xffff } else { sq };
    wr(qps::CURSOR_WQE.info(), &mut n, cw);
    wr(qps::CURSOR_PKT.info(), &mut n, if fin { 0 } else { pkt });
    let started_rd = is_rd_atomic(j.get("opcode")) && j.get("pkt_index") == 0 && j.get("resend") == 0;
    wr(qps::RD_ATOMIC_STARTED.info(), &mut n, (e.rdst + started_rd as u64) & 31);
    let more = cw != rd(qpc::SQ_PROD.info(), c) && (next.wrapping_sub(e.una) & PSN_MASK) < MAX_UNACKED_PSNS;
    (Some(n), more)
}

/// A done of the fake `ReqGen`: qpn, sq_index, next_psn, next_pkt, end_psn, finished, err.
type GenDone = (u32, u64, u64, u64, u64, bool, u64);

/// A request a context-cache port took: (op, index, id, byte mask, data).
pub type CacheReq = (u64, u32, u8, u128, Vec<u8>);

/// A context cache's port as its user sees it (`m_<x>` requests, `s_<x>`
/// answers): requests taken when `ready` (drawn by the caller), answers
/// queued with the cycle they become due and offered one at a time, a
/// random one among the due (so answers to different ids come back out of
/// order).
pub struct CachePort {
    req: [usize; 7],  // op index mask data id valid ready
    resp: [usize; 5], // data id err valid ready
    pend: Vec<(u64, u8, Vec<u8>)>,
    cur: Option<(u8, Vec<u8>)>,
    ready: bool,
}

impl CachePort {
    /// The port pair `m` (requests) / `s` (answers) of `d`.
    pub fn new<M: Model + ?Sized>(d: &M, m: &str, s: &str) -> Self {
        let r = |n: &str| d.port(&format!("{m}.{n}"));
        let a = |n: &str| d.port(&format!("{s}.{n}"));
        CachePort {
            req: [r("op"), r("index"), r("mask"), r("data"), r("id"), r("valid"), r("ready")],
            resp: [a("data"), a("id"), a("err"), a("valid"), a("ready")],
            pend: vec![],
            cur: None,
            ready: false,
        }
    }

    /// No answer due or offered.
    pub fn idle(&self) -> bool {
        self.pend.is_empty() && self.cur.is_none()
    }

    /// Queues an answer (`id`, entry `data`) due at cycle `at`.
    pub fn answer(&mut self, at: u64, id: u8, data: Vec<u8>) {
        self.pend.push((at, id, data));
    }

    /// Drives this cycle's answer (a due one, picked at random) and the request `ready`.
    pub fn drive<M: Model + ?Sized>(&mut self, d: &mut M, rng: &mut Rng, now: u64, ready: bool) {
        if self.cur.is_none() {
            let due: Vec<usize> = (0..self.pend.len()).filter(|&i| self.pend[i].0 <= now).collect();
            if !due.is_empty() {
                let i = due[(rng.next() % due.len() as u64) as usize];
                let (_, id, data) = self.pend.remove(i);
                self.cur = Some((id, data));
            }
        }
        let (v, id, data) = match &self.cur {
            Some((id, data)) => (true, *id, data.clone()),
            None => (false, 0, vec![0u8; 128]),
        };
        let n = d.ports()[self.resp[0]].words();
        let mut w = words(&data);
        w.resize(n, 0);
        d.set_words(self.resp[0], &w);
        d.set_at(self.resp[1], id as u64);
        d.set_at(self.resp[2], 0);
        d.set_at(self.resp[3], v as u64);
        d.set_at(self.req[6], ready as u64);
        self.ready = ready;
    }

    /// After `eval`: the request taken this cycle, if any.
    pub fn request<M: Model + ?Sized>(&self, d: &M) -> Option<CacheReq> {
        if !(self.ready && d.bit_at(self.req[5])) {
            return None;
        }
        let c = self;
        let n = d.ports()[c.req[3]].words();
        let mut w = vec![0u32; n];
        d.get_words(c.req[3], &mut w);
        let mut m = vec![0u32; d.ports()[c.req[2]].words()];
        d.get_words(c.req[2], &mut m);
        let mask = m[0] as u128
            | (m[1] as u128) << 32
            | (*m.get(2).unwrap_or(&0) as u128) << 64
            | (*m.get(3).unwrap_or(&0) as u128) << 96;
        Some((d.get_at(c.req[0]), d.get_at(c.req[1]) as u32, d.get_at(c.req[4]) as u8, mask, bytes(&w)))
    }

    /// After `eval`: whether the answer offered was taken (then it is gone).
    pub fn answered<M: Model + ?Sized>(&mut self, d: &M) -> bool {
        let t = self.cur.is_some() && d.bit_at(self.resp[4]);
        if t {
            self.cur = None;
        }
        t
    }
}

/// A masked write into an entry: byte b where mask bit b is set.
pub fn apply_masked(e: &mut [u8], mask: u128, data: &[u8]) {
    for b in 0..e.len().min(128) {
        if mask >> b & 1 == 1 {
            e[b] = data[b];
        }
    }
}

/// Expected of a QP in service.
#[derive(Debug)]
enum Exp {
    Stop,
    Job(Job),
    Done { write: Option<Vec<u8>>, err: Option<(u64, u64)>, more: bool },
}

/// The fetch stage with its models.
pub struct FetchBench<M: Model> {
    pub sim: Clocked<M>,
    pub rng: Rng,
    pub qpc: HashMap<u32, Vec<u8>>,
    pub qps: HashMap<u32, Vec<u8>>,
    pub mem: HashMap<u64, Vec<u8>>,
    /// Cache answer latency (min, spread) in cycles after the request is taken.
    pub cache_lat: (u64, u64),
    /// DMA: cycles from the command taken to its first beat offered (min, spread).
    pub dma_lat: (u64, u64),
    /// Percent of cycles each output's ready / each input's valid is high.
    pub ready_pct: u64,
    pub valid_pct: u64,
    /// Cycles from a job taken to its done offered (min, spread).
    pub gen_lat: (u64, u64),
    /// The scheduler's ready list.
    pub list: VecDeque<u32>,
    qc: CachePort,
    qs: CachePort,
    p: HashMap<&'static str, usize>,
    dma: VecDeque<(u64, u64)>,
    beats: VecDeque<(u64, Vec<u8>, bool)>,
    gen: VecDeque<(u64, GenDone)>,
    exp: HashMap<u32, Exp>,
    ctx_at_grant: HashMap<u32, (Vec<u8>, Vec<u8>)>,
    job_order: VecDeque<u32>,
    /// Events seen: (cycle, what).
    pub grants: Vec<(u64, u32)>,
    pub jobs: Vec<(u64, Job)>,
    pub sdones: Vec<(u64, u32, bool)>,
    pub errs: Vec<(u32, u64, u64)>,
    pub writes: u64,
    /// The retransmit timer's armings: (QP, code), one per job written back.
    pub arms: Vec<(u32, u64)>,
    pub stops: u64,
    /// Flush jobs of a WQE other than the cursor's (the completer's head,
    /// or the one after a partly sent WQE).
    pub flush_moved: u64,
    /// Flush jobs whose only source was `qpc.STATE` ERR.
    /// Pokes taken on `m_err` (grants of QPs in ERR alone).
    pub pokes: u64,
    /// Pokes due for a QP in RTS whose responder is in error.
    pub resp_err_pokes: u64,
    /// Pokes due for a QP in RTR whose responder is in error.
    pub resp_err_pokes_rtr: u64,
    /// Pokes expected and not yet taken, per QP.
    pokes_due: HashMap<u32, u32>,
    /// RQ flushes taken on `m_rq_flush` (stops of QPs whose completer is in error).
    pub rq_flushes: u64,
    /// RQ flushes expected and not yet taken, per QP.
    rq_flushes_due: HashMap<u32, u32>,
    /// Offer grants (the scheduler model) while true.
    pub granting: bool,
    /// Per QP: `m_at.index` of its WQE read, checked against its job's `sq_index`.
    at_index: HashMap<u32, u64>,
}

const PORTS: [&str; 35] = [
    "s_grant.qpn",
    "s_grant.valid",
    "s_grant.ready",
    "m_sdone.qpn",
    "m_sdone.more",
    "m_sdone.valid",
    "m_sdone.ready",
    "m_rd.addr",
    "m_rd.len",
    "m_rd.valid",
    "m_rd.ready",
    "m_at.qpn",
    "m_at.index",
    "m_at.prod",
    "m_at.base",
    "m_at.log",
    "s_rd.tdata",
    "s_rd.tkeep",
    "s_rd.tlast",
    "s_rd.tuser",
    "s_rd.tvalid",
    "s_rd.tready",
    "m_job.valid",
    "m_job.ready",
    "m_job.path",
    "m_job.sges",
    "s_rdone.qpn",
    "s_rdone.sq_index",
    "s_rdone.next_psn",
    "s_rdone.next_pkt",
    "s_rdone.end_psn",
    "s_rdone.finished",
    "s_rdone.err",
    "s_rdone.valid",
    "s_rdone.ready",
];

impl<M: Model> FetchBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let mut p = HashMap::new();
        for n in PORTS {
            p.insert(n, dut.port(n));
        }
        for n in [
            "m_err.qpn",
            "m_err.sq_index",
            "m_err.err",
            "m_err.valid",
            "m_err.ready",
            "m_arm.qpn",
            "m_arm.code",
            "m_arm.valid",
            "m_arm.ready",
            "s_rewind.valid",
            "m_rq_flush.qpn",
            "m_rq_flush.valid",
            "m_rq_flush.ready",
        ] {
            p.insert(n, dut.port(n));
        }
        for n in JOB_FIELDS {
            p.insert(n, dut.port(&format!("m_job.{n}")));
        }
        let qc = CachePort::new(&dut, "m_qpc", "s_qpc");
        let qs = CachePort::new(&dut, "m_qps", "s_qps");
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        FetchBench {
            sim,
            rng: Rng(seed | 1),
            qpc: HashMap::new(),
            qps: HashMap::new(),
            mem: HashMap::new(),
            cache_lat: (1, 0),
            dma_lat: (20, 0),
            ready_pct: 100,
            valid_pct: 100,
            gen_lat: (1, 0),
            list: VecDeque::new(),
            qc,
            qs,
            p,
            dma: VecDeque::new(),
            beats: VecDeque::new(),
            gen: VecDeque::new(),
            exp: HashMap::new(),
            ctx_at_grant: HashMap::new(),
            job_order: VecDeque::new(),
            grants: vec![],
            jobs: vec![],
            sdones: vec![],
            errs: vec![],
            writes: 0,
            arms: vec![],
            stops: 0,
            flush_moved: 0,
            pokes: 0,
            resp_err_pokes: 0,
            resp_err_pokes_rtr: 0,
            pokes_due: HashMap::new(),
            rq_flushes: 0,
            rq_flushes_due: HashMap::new(),
            granting: true,
            at_index: HashMap::new(),
        }
    }

    fn lat(&mut self, l: (u64, u64)) -> u64 {
        l.0 + if l.1 > 0 { self.rng.next() % (l.1 + 1) } else { 0 }
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    /// Nothing in flight: every QP answered.
    pub fn quiet(&self) -> bool {
        self.exp.is_empty()
            && self.gen.is_empty()
            && self.beats.is_empty()
            && self.dma.is_empty()
            && self.pokes_left() == 0
            && self.rq_flushes_left() == 0
    }

    /// RQ flushes expected and not yet seen on `m_rq_flush`.
    pub fn rq_flushes_left(&self) -> u32 {
        self.rq_flushes_due.values().sum()
    }

    /// Pokes expected and not yet seen on `m_err`.
    pub fn pokes_left(&self) -> u32 {
        self.pokes_due.values().sum()
    }

    /// One cycle: drive every model, sample, check, clock.
    pub fn step(&mut self) {
        let now = self.now();
        let rp = self.ready_pct;
        let vp = self.valid_pct;
        // ---- drive
        let r_qc = self.rng.chance(rp);
        let r_qs = self.rng.chance(rp);
        self.qc.drive(&mut self.sim.dut, &mut self.rng, now, r_qc);
        self.qs.drive(&mut self.sim.dut, &mut self.rng, now, r_qs);
        let g_valid = self.granting && !self.list.is_empty() && self.rng.chance(vp);
        let g_qpn = *self.list.front().unwrap_or(&0);
        let r_sd = self.rng.chance(rp);
        let r_rd = self.rng.chance(rp);
        let r_job = self.rng.chance(rp);
        let r_err = self.rng.chance(rp);
        let r_rqf = self.rng.chance(rp);
        let beat_v = self.beats.front().is_some_and(|b| b.0 <= now) && self.rng.chance(vp);
        let gen_v = self.gen.front().is_some_and(|g| g.0 <= now) && self.rng.chance(vp);
        let p = &self.p;
        let d = &mut self.sim.dut;
        d.set_at(p["s_grant.valid"], g_valid as u64);
        d.set_at(p["s_grant.qpn"], g_qpn as u64);
        d.set_at(p["m_sdone.ready"], r_sd as u64);
        d.set_at(p["m_rd.ready"], r_rd as u64);
        d.set_at(p["m_job.ready"], r_job as u64);
        d.set_at(p["m_err.ready"], r_err as u64);
        d.set_at(p["m_rq_flush.ready"], r_rqf as u64);
        d.set_at(p["m_arm.ready"], 1);
        d.set_at(p["s_rewind.valid"], 0);
        let mut w = vec![0u32; 16];
        if beat_v {
            let b = self.beats.front().unwrap();
            w = words(&b.1);
            d.set_at(p["s_rd.tlast"], b.2 as u64);
        }
        d.set_words(p["s_rd.tdata"], &w);
        d.set_at(p["s_rd.tkeep"], u64::MAX);
        d.set_at(p["s_rd.tuser"], 0);
        d.set_at(p["s_rd.tvalid"], beat_v as u64);
        if let Some((_, g)) = self.gen.front() {
            for (n, v) in [
                ("s_rdone.qpn", g.0 as u64),
                ("s_rdone.sq_index", g.1),
                ("s_rdone.next_psn", g.2),
                ("s_rdone.next_pkt", g.3),
                ("s_rdone.end_psn", g.4),
                ("s_rdone.finished", g.5 as u64),
                ("s_rdone.err", g.6),
            ] {
                d.set_at(p[n], v);
            }
        }
        d.set_at(p["s_rdone.valid"], gen_v as u64);
        self.sim.settle();

        // ---- sample
        let d = &self.sim.dut;
        let p = &self.p;
        let took = |v: usize, r: usize| d.bit_at(v) && d.bit_at(r);
        let g_taken = g_valid && d.bit_at(p["s_grant.ready"]);
        let sd = took(p["m_sdone.valid"], p["m_sdone.ready"])
            .then(|| (d.get_at(p["m_sdone.qpn"]) as u32, d.bit_at(p["m_sdone.more"])));
        let rdc = took(p["m_rd.valid"], p["m_rd.ready"]).then(|| (d.get_at(p["m_rd.addr"]), d.get_at(p["m_rd.len"])));
        let at = ["m_at.qpn", "m_at.index", "m_at.prod", "m_at.base", "m_at.log"].map(|n| d.get_at(p[n]));
        let beat_taken = beat_v && d.bit_at(p["s_rd.tready"]);
        let job = took(p["m_job.valid"], p["m_job.ready"]).then(|| {
            let f = JOB_FIELDS.iter().map(|n| (*n, d.get_at(p[n]))).collect();
            let mut w = vec![0u32; 16];
            d.get_words(p["m_job.path"], &mut w);
            let path = bytes(&w);
            d.get_words(p["m_job.sges"], &mut w);
            Job { f, path, sges: bytes(&w) }
        });
        let gen_taken = gen_v && d.bit_at(p["s_rdone.ready"]);
        let arm = d.bit_at(p["m_arm.valid"]).then(|| (d.get_at(p["m_arm.qpn"]) as u32, d.get_at(p["m_arm.code"])));
        let err = took(p["m_err.valid"], p["m_err.ready"])
            .then(|| (d.get_at(p["m_err.qpn"]) as u32, d.get_at(p["m_err.sq_index"]), d.get_at(p["m_err.err"])));
        let rqf = took(p["m_rq_flush.valid"], p["m_rq_flush.ready"]).then(|| d.get_at(p["m_rq_flush.qpn"]) as u32);
        let mut reqs = vec![];
        for (t, c) in [(0, &self.qc), (1, &self.qs)] {
            if let Some((op, idx, id, mask, data)) = c.request(d) {
                reqs.push((t, op, idx, id, mask, data));
            }
        }
        self.qc.answered(d);
        self.qs.answered(d);

        // ---- act and check
        for (t, op, idx, id, mask, data) in reqs {
            let l = self.lat(self.cache_lat);
            if t == 0 {
                assert_eq!(op, 0, "cycle {now}: qpc request not a read");
                let e = self.qpc.get(&idx).unwrap_or_else(|| panic!("qpc read of QP {idx} without an entry")).clone();
                self.qc.answer(now + l, id, e);
            } else if op == 0 {
                let e = self.qps[&idx].clone();
                self.qs.answer(now + l, id, e);
            } else {
                assert_eq!(op, 1, "cycle {now}: qps request op");
                assert_eq!(id as u64 & REQ_FETCH_WB_ID, REQ_FETCH_WB_ID, "write id");
                let want_mask: u128 =
                    ((1u128 << qps::REQUESTER_BYTES.end) - 1) & !((1u128 << qps::REQUESTER_BYTES.start) - 1);
                assert_eq!(mask, want_mask, "cycle {now}: write mask of QP {idx}");
                let e = self.qps.get_mut(&idx).unwrap();
                apply_masked(e, mask, &data);
                match self.exp.get_mut(&idx) {
                    Some(Exp::Done { write, .. }) => {
                        let w = write.take().unwrap_or_else(|| panic!("cycle {now}: an unexpected write of QP {idx}"));
                        assert_eq!(
                            &e[qps::REQUESTER_BYTES],
                            &w[qps::REQUESTER_BYTES],
                            "cycle {now}: requester bytes of QP {idx}"
                        );
                    }
                    x => panic!("cycle {now}: write of QP {idx} while {x:?}"),
                }
                self.writes += 1;
                let e = self.qps[&idx].clone();
                self.qs.answer(now + l, id, e);
            }
        }
        if let Some((q, code)) = arm {
            assert_eq!(code, rd(qpc::TIMEOUT.info(), &self.qpc[&q]), "cycle {now}: QP {q}'s arming code");
            self.arms.push((q, code));
        }
        if g_taken {
            let q = self.list.pop_front().unwrap();
            assert!(!self.exp.contains_key(&q), "QP {q} granted twice");
            let (c, s) = (self.qpc[&q].clone(), self.qps[&q].clone());
            let o = decide(q, &c, &s, &self.mem);
            // a stop of a QP whose completer is in error (RTS or ERR, or any
            // state with its responder failed): its send queue is flushed,
            // the responder flushes its receive queue
            let st = rd(qpc::STATE.info(), &c);
            let cerr = rd(qps::COMP_STARTED.info(), &s) == 1 && rd(qps::COMP_ERROR.info(), &s) == 1;
            let rerr = rd(qps::RESP_STARTED.info(), &s) == 1
                && rd(qps::IN_PROGRESS.info(), &s) == qps::IN_PROGRESS_ERROR as u64;
            let acts = st == QpState::ReadyToSend as u64 || st == QpState::Error as u64 || rerr;
            if o == Outcome::Stop && cerr && acts {
                *self.rq_flushes_due.entry(q).or_default() += 1;
            }
            match o {
                Outcome::Go(j) => {
                    self.job_order.push_back(q);
                    self.exp.insert(q, Exp::Job(j));
                }
                Outcome::Poke => {
                    *self.pokes_due.entry(q).or_default() += 1;
                    if st == QpState::ReadyToSend as u64 {
                        self.resp_err_pokes += 1;
                    } else if st == QpState::ReadyToReceive as u64 {
                        self.resp_err_pokes_rtr += 1;
                    }
                    self.exp.insert(q, Exp::Stop);
                }
                Outcome::Stop => {
                    self.exp.insert(q, Exp::Stop);
                }
            }
            self.ctx_at_grant.insert(q, (c, s));
            self.grants.push((now, q));
        }
        if let Some((a, l)) = rdc {
            assert_eq!(l, REQ_FETCH_WQE_BYTES, "DMA length");
            // beside the read (for `SqAhead`): the WQE's QP, index, ring and SQ_PROD
            let [aq, ai, ap, ab, al] = at;
            let (c, _) = &self.ctx_at_grant[&(aq as u32)];
            let ring = (rd(qpc::SQ_BASE.info(), c), rd(qpc::SQ_LOG_SIZE.info(), c), rd(qpc::SQ_PROD.info(), c));
            assert_eq!((ab, al, ap), ring, "cycle {now}: m_at of QP {aq}: base, log, prod");
            assert_eq!(ab + ((ai & ((1 << al) - 1)) << 7), a, "cycle {now}: m_at.index {ai} of QP {aq}");
            self.at_index.insert(aq as u32, ai);
            let w = self.mem.get(&a).unwrap_or_else(|| panic!("cycle {now}: DMA read of {a:#x}: no WQE there")).clone();
            let t = now + self.lat(self.dma_lat);
            let t = t.max(self.dma.back().map_or(0, |x| x.0));
            self.dma.push_back((t, a));
            self.beats.push_back((t, w[..64].to_vec(), false));
            self.beats.push_back((t, w[64..].to_vec(), true));
        }
        if beat_taken {
            self.beats.pop_front();
            if self.beats.len().is_multiple_of(2) {
                self.dma.pop_front();
            }
        }
        if let Some(j) = job {
            let q = j.get("qpn") as u32;
            assert_eq!(self.job_order.pop_front(), Some(q), "cycle {now}: jobs out of grant order");
            assert_eq!(self.at_index.remove(&q), Some(j.get("sq_index")), "cycle {now}: m_at.index of QP {q}'s job");
            match self.exp.remove(&q) {
                Some(Exp::Job(want)) => assert_eq!(j, want, "cycle {now}: job of QP {q}"),
                x => panic!("cycle {now}: job of QP {q} while {x:?}"),
            }
            let dn = gen_done(&j, &j.sges);
            let (c, s) = &self.ctx_at_grant[&q];
            if j.get("flush") == 1 && j.get("sq_index") != eff(c, s).cwqe {
                self.flush_moved += 1;
            }
            let (write, more) = write_back(c, s, &j, dn);
            let err = (dn.4 != REQ_ERR_NONE).then_some((j.get("sq_index"), dn.4));
            self.exp.insert(q, Exp::Done { write, err, more });
            let t = now + self.lat(self.gen_lat);
            self.gen.push_back((t, (q, j.get("sq_index"), dn.0, dn.1, dn.2, dn.3, dn.4)));
            self.jobs.push((now, j));
        }
        if gen_taken {
            self.gen.pop_front();
        }
        if let Some(q) = rqf {
            let due = self.rq_flushes_due.get_mut(&q).filter(|n| **n > 0);
            let n = due.unwrap_or_else(|| panic!("cycle {now}: an RQ flush of QP {q} not due"));
            *n -= 1;
            self.rq_flushes += 1;
        }
        if let Some((q, sq, e)) = err.filter(|&(q, sq, e)| {
            // a poke: no job's error record is due for its QP
            let due = self.pokes_due.get_mut(&q).filter(|n| **n > 0);
            let job_err = matches!(self.exp.get(&q), Some(Exp::Done { err: Some(_), .. }));
            match due {
                Some(n) if !job_err => {
                    assert_eq!((sq, e), (0, REQ_ERR_FLUSH), "cycle {now}: poke of QP {q}");
                    *n -= 1;
                    self.pokes += 1;
                    false
                }
                _ => true,
            }
        }) {
            match self.exp.get_mut(&q) {
                Some(Exp::Done { err, .. }) => {
                    assert_eq!(err.take(), Some((sq, e)), "cycle {now}: error record of QP {q}")
                }
                x => panic!("cycle {now}: error record of QP {q} while {x:?}"),
            }
            self.errs.push((q, sq, e));
        }
        if let Some((q, more)) = sd {
            match self.exp.remove(&q) {
                Some(Exp::Stop) => {
                    assert!(!more, "cycle {now}: QP {q} stopped with more");
                    self.stops += 1;
                }
                Some(Exp::Done { write, err, more: m }) => {
                    assert!(write.is_none() && err.is_none(), "cycle {now}: done of QP {q} before its write/error");
                    assert_eq!(more, m, "cycle {now}: more of QP {q}");
                }
                x => panic!("cycle {now}: done of QP {q} while {x:?}"),
            }
            if more {
                self.list.push_back(q);
            }
            self.sdones.push((now, q, more));
        }
        self.sim.tick();
    }

    /// Step until every grant is answered (or panic after `max` cycles).
    pub fn drain(&mut self, max: u64) {
        let end = self.now() + max;
        while !self.quiet() || (self.granting && !self.list.is_empty()) {
            assert!(self.now() < end, "not drained: {} QPs in service: {:?}", self.exp.len(), self.exp);
            self.step();
        }
    }
}

/// A random send WQE.
pub fn random_wqe(rng: &mut Rng) -> Vec<u8> {
    let mut w = vec![0u8; send_wqe::SIZE];
    for b in w.iter_mut() {
        *b = rng.next() as u8;
    }
    let ops = [0u64, 1, 2, 3, 4, 5, 6];
    let op = ops[(rng.next() % 7) as usize];
    wr(send_wqe::OPCODE.info(), &mut w, op);
    wr(send_wqe::FENCE.info(), &mut w, rng.chance(15) as u64);
    wr(send_wqe::INLINE.info(), &mut w, rng.chance(4) as u64);
    let n = if op >= 5 { 1 } else { rng.next() % 5 };
    wr(send_wqe::NUM_SGE.info(), &mut w, n);
    for i in 0..4 {
        let s = &mut w[64 + 16 * i..80 + 16 * i];
        wr(sge::LEN.info(), s, if op >= 5 { 8 } else { rng.next() % 3000 });
    }
    w
}
