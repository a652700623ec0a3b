//! Bench for the responder's per-packet decision (`RespCheck`, catalog
//! `resp_check`) against the protocol model (`rnic_proto::rc::Responder`).
//!
//! [`Script`] generates random request packets for a few QPs, each QP with
//! its own model responder, path MTU, start PSN (across the wrap) and RECV
//! posting rate: mostly what a requester sends next (from the model's
//! state), and duplicates, gaps, wrong opcodes (non-requests and SEND with
//! invalidate included), bad lengths, DMA lengths above 2^31, misaligned
//! atomics, QPs without responder resources, no RECV posted. Each packet
//! goes through the model as it is generated; what the model did (its
//! counters, its responses, its state before and after, its completions)
//! is the packet's expectation. A QP the model put in error is replaced by
//! a fresh one under a new QPN (the hardware's `qps` entry of the old one
//! stays as it was).
//!
//! **RQ flush records** (with [`Script::flushes`]): the record the chip
//! makes for a QP in error (`RXF_RQ_FLUSH` and `RXF_TIMER` set, opcode
//! `FLUSH_OPCODE`, the QPN, every other bit 0), which asks the responder to
//! complete every posted RECV with WR_FLUSH_ERR. The model knows nothing of
//! them, so a flushed QP is retired: it gets no packet after its flush. A
//! QP the model put in error is flushed right behind its fatal packet (the
//! block forwards that packet's state) or some cases later; now and then a
//! live QP is retired (the host moved it to error: its SEND in progress,
//! its pending ACK and so on stay as they are), and a fresh QP that never
//! received a packet is flushed (the responder state not started: the RQ
//! index from `RQ_CONS`); at the end of [`Script::generate`] every QP is.
//! Sometimes RECVs are posted just before the flush, sometimes the flush
//! is doubled (the second finds nothing). The expectation: RESP_EXEC_FLUSH
//! from the responder's RQ index (`RECV_WQE`, the RECV being filled
//! included; as the model defines it, a fatal NAK leaving it unchanged) to
//! RQ_PROD when they differ, else RESP_FLUSH_NONE; the number of RECVs it
//! completes is checked against the model's (those its error state
//! flushed, or those it still holds).
//!
//! [`RespBench`] plays the caller: it offers the packets in order with the
//! header in the receive parser's layout, the `qpc` entry (PMTU,
//! MIN_RNR_TIMER, MAX_DEST_RD_ATOMIC, RQ_PSN, RQ_CONS, and RQ_PROD = the
//! RECVs the model has at that point) and the `qps` entry read from its
//! store in the cycle it first offers the packet, takes the records with
//! random stalls, writes each record's `wr_data` under `wr_mask` into the
//! store in the cycle it takes it (when `write` is set; `write_delay` cycles
//! later if asked), and checks every
//! record against the expectation: verdict, the ACK/NAK (syndrome, PSN,
//! MSN), the key check, the RECV work, and every state field. A flush
//! record's new state is also checked bit for bit against the state the
//! last record of its QP wrote (the initial one when none did): the same
//! with RECV_WQE = RQ_PROD and RECV_VALID, RECV_PLACED clear when it
//! flushes, unchanged when it finds nothing.

use rnic_contract::layouts::{qpc, qps};
use rnic_hw::consts::*;
use rnic_hw::wire::{RX_HDR_BITS, RX_HDR_FIELDS};
use rnic_proto::ext::{AtomicEth, ExtHeaders, Ieth, ImmDt, Reth};
use rnic_proto::opcode::{Opcode, Pmtu, Transport};
use rnic_proto::psn::Psn;
use rnic_proto::rc::responder::{
    MessageInProgress, QpAccess, RecvWqe, Resource, Responder, ResponderConfig, ResponderState,
};
use rnic_proto::rc::{Access, KeyError, MemFault, Memory, RcPacket, Sge, WcStatus};
use rnic_proto::RnrTimer;
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, VecDeque};

/// Memory granting every key, reading zeros, dropping writes: the key
/// check and the placement are later stages, so the model's verdicts here
/// are those of the checks `resp_check` makes.
pub struct OpenMemory;
impl Memory for OpenMemory {
    fn check(&self, _: u32, _: u32, _: u64, _: u64, _: Access) -> Result<(), KeyError> {
        Ok(())
    }
    fn read(&self, _: u64, out: &mut [u8]) -> Result<(), MemFault> {
        out.fill(0);
        Ok(())
    }
    fn write(&mut self, _: u64, _: &[u8]) -> Result<(), MemFault> {
        Ok(())
    }
}

/// The fields of a packet the block reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PktFields {
    pub opcode: u8,
    pub ackreq: bool,
    pub qpn: u32,
    pub psn: u32,
    pub has_reth: bool,
    pub has_atomic: bool,
    pub va: u64,
    pub rkey: u32,
    pub dmalen: u32,
    pub payload_len: u16,
    /// An RQ flush record (`RXF_RQ_FLUSH` and `RXF_TIMER` set), not a packet.
    pub flush: bool,
}

/// The QP context fields the block reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QpcFields {
    pub pmtu: u8,
    pub min_rnr: u8,
    pub max_dest: u8,
    pub rq_psn: u32,
    pub rq_prod: u16,
    pub rq_cons: u16,
    /// The QP's remote rights (`qpc::REMOTE_*`).
    pub access: QpAccess,
}

/// What the model did with a packet: the record the block must produce.
#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    pub verdict: u64,
    /// ACK/NAK now: (syndrome, PSN, MSN).
    pub ack: Option<(u8, u32, u32)>,
    /// READ / atomic: the MSN (and PSN) of the response's AETH.
    pub resp_aeth: Option<(u32, u32)>,
    pub msn_before: u32,
    /// Key check or placement: (check, access, rkey, va, len), for EXEC verdicts.
    pub key: Option<(bool, u64, u32, u64, u32)>,
    /// RECV work: (new, index, done, cqe_len when done).
    pub recv: (bool, u16, bool, u32),
    /// The state after (and the RQ index: RECV_WQE + RECV_VALID = consumed).
    pub after: ResponderState,
    pub rq_next: u16,
    /// Whether the record writes the state (checked for flush records only).
    pub write: Option<bool>,
    /// The model's READ/atomic resources after the packet, oldest first:
    /// what the replay window `[REPLAY_HEAD, +REPLAY_COUNT)` must name.
    pub replay: Vec<Resource>,
}

/// One packet: what is offered and what must come out.
#[derive(Clone, Debug)]
pub struct Case {
    pub pkt: PktFields,
    pub ctx: QpcFields,
    pub expect: Expect,
}

/// One QP of the script: its model and configuration.
struct Qp {
    qpn: u32,
    model: Responder,
    ctx: QpcFields,
    /// RECVs posted so far (mod 2^16 on the ring: RQ_PROD - RQ_CONS).
    posted: u32,
    /// Percent of packets before which a RECV is posted.
    p_post: u64,
    /// The responder's RQ index as the hardware keeps it (`RECV_WQE`: the
    /// RECV being filled while `RECV_VALID`, else the next one) and
    /// `RECV_VALID`, from the model; whether a record of the QP was decided.
    rq_wqe: u16,
    recv_valid: bool,
    started: bool,
    /// RECVs the model completed with WR_FLUSH_ERR (its error state).
    model_flushed: usize,
    /// A flush record was made for the QP.
    flushed: bool,
}

/// The RC opcodes (requests and not).
fn rc_opcodes() -> Vec<Opcode> {
    Opcode::ALL.iter().copied().filter(|o| o.transport() == Transport::Rc).collect()
}

/// Extended headers an opcode carries, with the given RETH / AtomicETH.
fn ext_for(op: Opcode, reth: Reth, atomic: AtomicEth) -> ExtHeaders {
    use Opcode::*;
    let imm = ImmDt { value: 0x1234_5678 };
    match op {
        RcSendLastImm | RcSendOnlyImm | RcWriteLastImm => ExtHeaders::ImmDt(imm),
        RcWriteFirst | RcWriteOnly | RcReadRequest => ExtHeaders::Reth(reth),
        RcWriteOnlyImm => ExtHeaders::RethImmDt(reth, imm),
        RcCompareSwap | RcFetchAdd => ExtHeaders::AtomicEth(atomic),
        RcSendLastInv | RcSendOnlyInv => ExtHeaders::Ieth(Ieth { rkey: 0x55 }),
        _ => ExtHeaders::Bare,
    }
}

/// The packet script: QPs with their models, and the cases generated.
pub struct Script {
    pub rng: Rng,
    qps: Vec<Qp>,
    next_qpn: u32,
    pub cases: Vec<Case>,
    /// Verdicts seen, by code (coverage).
    pub seen: [usize; 16],
    /// NAKs (invalid request) of operations the QP's access flags deny.
    pub denied: usize,
    /// Make RQ flush records (module doc); off: packets only.
    pub flushes: bool,
    /// QPs retired (in error), their flush to come.
    retired: VecDeque<Qp>,
    /// Flush records made: RESP_EXEC_FLUSH (also in `seen`), finding
    /// nothing (RESP_FLUSH_NONE, also in `seen`), of a QP not started,
    /// with a RECV being filled, right behind a packet of the same QP.
    pub flush_exec: usize,
    pub flush_none: usize,
    pub flush_fresh: usize,
    pub flush_busy: usize,
    pub flush_behind: usize,
    /// READs and atomics executed with every replay slot of the QP in use
    /// (the oldest recycled).
    pub recycled: usize,
}

impl Script {
    /// `n` QPs; `pmtus`: the path MTUs to draw from.
    pub fn new(seed: u64, n: usize, pmtus: &[Pmtu]) -> Self {
        let mut s = Script {
            rng: Rng(seed | 1),
            qps: vec![],
            next_qpn: 0x10,
            cases: vec![],
            seen: [0; 16],
            denied: 0,
            flushes: false,
            retired: VecDeque::new(),
            flush_exec: 0,
            flush_none: 0,
            flush_fresh: 0,
            flush_busy: 0,
            flush_behind: 0,
            recycled: 0,
        };
        for _ in 0..n {
            let pmtu = pmtus[(s.rng.next() % pmtus.len() as u64) as usize];
            let q = s.new_qp(pmtu);
            s.qps.push(q);
        }
        s
    }

    fn new_qp(&mut self, pmtu: Pmtu) -> Qp {
        let r = &mut self.rng;
        let start = match r.next() % 3 {
            0 => 0xFF_FFF0 + (r.next() % 16) as u32,
            1 => (r.next() % 8) as u32,
            _ => (r.next() as u32) & 0xFF_FFFF,
        };
        let max_dest = if r.chance(15) { 0 } else { 1 + (r.next() % 16) as u8 };
        let min_rnr = (r.next() % 32) as u8;
        let rq_cons = r.next() as u16;
        // one QP in ten misses one of its remote rights
        let mut access = QpAccess::ALL;
        if r.chance(10) {
            match r.next() % 3 {
                0 => access.remote_write = false,
                1 => access.remote_read = false,
                _ => access.remote_atomic = false,
            }
        }
        let cfg = ResponderConfig {
            dest_qp: 0x77,
            pmtu,
            start_psn: Psn::new(start),
            max_dest_rd_atomic: max_dest.into(),
            min_rnr_timer: RnrTimer::new(min_rnr).unwrap(),
            pd: 1,
            max_recv_sge: 4,
            access,
        };
        let p_post = [5, 30, 60, 100][(r.next() % 4) as usize];
        self.next_qpn += 1 + (r.next() % 7) as u32;
        let ctx = QpcFields { pmtu: pmtu as u8, min_rnr, max_dest, rq_psn: start, rq_prod: rq_cons, rq_cons, access };
        Qp {
            qpn: self.next_qpn & 0xFF_FFFF,
            model: Responder::new(cfg),
            ctx,
            posted: 0,
            p_post,
            rq_wqe: rq_cons,
            recv_valid: false,
            started: false,
            model_flushed: 0,
            flushed: false,
        }
    }

    /// Generate `n` packets, spread over the QPs (`p_same`: percent of
    /// packets for the same QP as the previous one); with [`Self::flushes`],
    /// flush records among them and, at the end, for every QP.
    pub fn generate(&mut self, n: usize, p_same: u64) {
        let mut q = 0;
        for _ in 0..n {
            if !self.rng.chance(p_same) {
                q = (self.rng.next() % self.qps.len() as u64) as usize;
            }
            let retired = self.retired.len();
            self.one(q);
            if self.flushes {
                self.flush_step(q, self.retired.len() > retired);
            }
        }
        if self.flushes {
            // every QP ends in error: the last packet's first (right behind it)
            let nq = self.qps.len();
            for i in (0..nq).map(|i| (q + i) % nq) {
                let qp = self.retire(i);
                self.flush_qp(qp);
            }
            while let Some(qp) = self.retired.pop_front() {
                self.flush_qp(qp);
            }
        }
    }

    /// The flush records after a packet of QP `q` (`fatal`: it put the QP
    /// in error, the QP is now the newest of `retired`).
    fn flush_step(&mut self, q: usize, fatal: bool) {
        if fatal {
            // right behind its last packet (forwarded), or later
            if self.rng.chance(60) {
                let qp = self.retired.pop_back().unwrap();
                self.flush_qp(qp);
            }
        } else if self.rng.chance(1) {
            // the host moves a live QP to error
            let qp = self.retire(q);
            if self.rng.chance(50) {
                self.flush_qp(qp);
            } else {
                self.retired.push_back(qp);
            }
        }
        if !self.retired.is_empty() && self.rng.chance(20) {
            let qp = self.retired.pop_front().unwrap();
            self.flush_qp(qp);
        }
        if self.rng.chance(1) {
            // a QP that never received a packet
            let pmtu = self.qps[q].model.config().pmtu;
            let qp = self.new_qp(pmtu);
            self.flush_qp(qp);
        }
    }

    /// QP `i` leaves the script (in error), a fresh one takes its place.
    fn retire(&mut self, i: usize) -> Qp {
        let pmtu = self.qps[i].model.config().pmtu;
        let fresh = self.new_qp(pmtu);
        std::mem::replace(&mut self.qps[i], fresh)
    }

    /// The flush of a retired QP: sometimes RECVs posted just before it,
    /// sometimes a second flush right behind it.
    fn flush_qp(&mut self, mut qp: Qp) {
        if self.rng.chance(30) {
            for _ in 0..1 + self.rng.next() % 4 {
                qp.model.post_recv(RecvWqe { wr_id: qp.posted as u64, sges: vec![Sge { addr: 0, len: 1, lkey: 1 }] });
                qp.posted += 1;
            }
            // a model in error flushes them at once
            let c = qp.model.take_completions();
            qp.model_flushed += c.iter().filter(|c| c.status == WcStatus::WrFlushErr).count();
        }
        let twice = self.rng.chance(30);
        self.flush_case(&mut qp);
        if twice {
            self.flush_case(&mut qp);
        }
    }

    /// One flush record for `qp`, with its expectation.
    fn flush_case(&mut self, qp: &mut Qp) {
        let s = qp.model.state();
        let mut ctx = qp.ctx.clone();
        ctx.rq_prod = ctx.rq_cons.wrapping_add(qp.posted as u16);
        let n = ctx.rq_prod.wrapping_sub(qp.rq_wqe);
        if !qp.flushed {
            // the RECVs to complete: those the model's error state flushed, or
            // those it holds (posted, and the one being filled)
            let model =
                if s.error { qp.model_flushed } else { qp.model.posted_recvs() + s.recv_placed.is_some() as usize };
            assert_eq!(n as usize, model, "QP {:#x}: RECVs to flush, bench's RQ index against the model", qp.qpn);
        }
        let exec = n != 0;
        let verdict = if exec { RESP_EXEC_FLUSH } else { RESP_FLUSH_NONE };
        let mut after = s;
        after.recv_placed = None;
        // the fields a flush does not use, as the RTL defines them: the AETH
        // syndrome ACK with PSN 0 (the record's) and the MSN; a SEND ONLY's
        // key fields (no check, length 0)
        let e = Expect {
            verdict,
            ack: None,
            resp_aeth: None,
            msn_before: s.msn,
            key: Some((false, ACC_REMOTE_WRITE, 0, 0, 0)),
            recv: (exec, qp.rq_wqe, false, 0),
            after,
            rq_next: ctx.rq_prod,
            write: Some(exec || !qp.started),
            replay: vec![],
        };
        self.seen[verdict as usize] += 1;
        if exec {
            self.flush_exec += 1;
            self.flush_busy += qp.recv_valid as usize;
        } else {
            self.flush_none += 1;
        }
        self.flush_fresh += !qp.started as usize;
        self.flush_behind += self.cases.last().is_some_and(|c| c.pkt.qpn == qp.qpn && !c.pkt.flush) as usize;
        let pkt = PktFields { opcode: FLUSH_OPCODE as u8, qpn: qp.qpn, flush: true, ..Default::default() };
        self.cases.push(Case { pkt, ctx: ctx.clone(), expect: e });
        qp.rq_wqe = ctx.rq_prod;
        qp.recv_valid = false;
        qp.started = true;
        qp.flushed = true;
    }

    fn one(&mut self, qi: usize) {
        if self.rng.chance(self.qps[qi].p_post) {
            let qp = &mut self.qps[qi];
            qp.model
                .post_recv(RecvWqe { wr_id: qp.posted as u64, sges: vec![Sge { addr: 0, len: u32::MAX, lkey: 1 }] });
            qp.posted += 1;
        }
        let pkt = self.packet(qi);
        let qp = &mut self.qps[qi];
        let before = qp.model.state();
        let counters = qp.model.counters();
        let recvs_before = qp.model.posted_recvs();
        let full_before = qp.model.resources().len() == usize::from(qp.ctx.max_dest);
        let mut ctx = qp.ctx.clone();
        ctx.rq_prod = ctx.rq_cons.wrapping_add(qp.posted as u16);
        let responses = qp.model.receive(&pkt, &mut OpenMemory);
        let after = qp.model.state();
        let c = qp.model.counters();
        let completions = qp.model.take_completions();
        let consumed_before = qp.posted as usize - recvs_before;
        let consumed_after = qp.posted as usize - qp.model.posted_recvs();
        let op = pkt.opcode();
        use Opcode::*;
        let is_send =
            matches!(op, RcSendFirst | RcSendMiddle | RcSendLast | RcSendLastImm | RcSendOnly | RcSendOnlyImm);
        let is_write =
            matches!(op, RcWriteFirst | RcWriteMiddle | RcWriteLast | RcWriteLastImm | RcWriteOnly | RcWriteOnlyImm);
        let is_read = op == RcReadRequest;
        let is_atomic = matches!(op, RcCompareSwap | RcFetchAdd);
        let verdict = if c.executed > counters.executed {
            [RESP_EXEC_SEND, RESP_EXEC_WRITE, RESP_EXEC_READ, RESP_EXEC_ATOMIC]
                [[is_send, is_write, is_read, is_atomic].iter().position(|&b| b).unwrap()]
        } else if c.seq_naks > counters.seq_naks {
            RESP_NAK_SEQ
        } else if c.rnr_naks > counters.rnr_naks {
            RESP_RNR
        } else if c.error_naks > counters.error_naks {
            RESP_NAK_INV
        } else if c.duplicates > counters.duplicates && (is_send || is_write) {
            if is_send {
                RESP_DUP_SEND
            } else {
                RESP_DUP_WRITE
            }
        } else if c.duplicates > counters.duplicates && is_read {
            RESP_DUP_READ
        } else if c.duplicates > counters.duplicates && is_atomic {
            RESP_DUP_ATOMIC
        } else {
            RESP_DROP
        };
        self.seen[verdict as usize] += 1;
        if full_before && (verdict == RESP_EXEC_READ || verdict == RESP_EXEC_ATOMIC) {
            self.recycled += 1;
        }
        let acc = qp.ctx.access;
        if verdict == RESP_NAK_INV
            && ((is_write && !acc.remote_write) || (is_read && !acc.remote_read) || (is_atomic && !acc.remote_atomic))
        {
            self.denied += 1;
        }
        let rq_next = ctx.rq_cons.wrapping_add(consumed_after as u16);
        // the RECV being filled, or the next one to take
        let index = ctx.rq_cons.wrapping_add(consumed_before as u16).wrapping_sub(before.recv_placed.is_some() as u16);
        // the hardware's RQ index after the packet: the model's, unchanged by
        // a fatal NAK (the model's error state flushes the RECVs instead)
        if after.error {
            qp.model_flushed = completions.iter().filter(|c| c.status == WcStatus::WrFlushErr).count();
        } else {
            qp.recv_valid = after.recv_placed.is_some();
            qp.rq_wqe = rq_next.wrapping_sub(qp.recv_valid as u16);
        }
        qp.started = true;
        let mut e = Expect {
            verdict,
            ack: None,
            resp_aeth: None,
            msn_before: before.msn,
            key: None,
            recv: (false, 0, false, 0),
            after,
            rq_next,
            write: None,
            replay: qp.model.resources().collect(),
        };
        let aeth = |p: &RcPacket| p.ext.aeth().copied().expect("a response with an AETH");
        match verdict {
            RESP_NAK_SEQ | RESP_NAK_INV | RESP_RNR | RESP_DUP_SEND | RESP_DUP_WRITE => {
                assert_eq!(responses.len(), 1, "one ACK/NAK");
                let a = aeth(&responses[0]);
                e.ack = Some((a.syndrome, responses[0].psn().value(), a.msn));
            }
            RESP_EXEC_SEND | RESP_EXEC_WRITE => {
                e.ack = responses.first().map(|r| {
                    let a = aeth(r);
                    (a.syndrome, r.psn().value(), a.msn)
                });
            }
            RESP_EXEC_READ | RESP_EXEC_ATOMIC => {
                let a = aeth(&responses[0]);
                e.resp_aeth = Some((a.msn, responses[0].psn().value()));
            }
            _ => {}
        }
        let starts =
            matches!(op, RcSendFirst | RcSendOnly | RcSendOnlyImm | RcWriteFirst | RcWriteOnly | RcWriteOnlyImm);
        e.key = match verdict {
            RESP_EXEC_WRITE if starts => {
                let r = pkt.ext.reth().unwrap();
                Some((r.dma_len > 0, ACC_REMOTE_WRITE, r.rkey, r.va, r.dma_len))
            }
            RESP_EXEC_WRITE => {
                Some((false, ACC_REMOTE_WRITE, before.write_rkey, before.write_va, pkt.payload.len() as u32))
            }
            RESP_EXEC_READ => {
                let r = pkt.ext.reth().unwrap();
                Some((r.dma_len > 0, ACC_REMOTE_READ, r.rkey, r.va, r.dma_len))
            }
            RESP_EXEC_ATOMIC => {
                let a = pkt.ext.atomic_eth().unwrap();
                Some((true, ACC_REMOTE_ATOMIC, a.rkey, a.va, 8))
            }
            _ => None,
        };
        // RECV work only for an executed SEND or WRITE (a fatal NAK flushes the RECVs)
        let exec = verdict == RESP_EXEC_SEND || verdict == RESP_EXEC_WRITE;
        let recv_new = exec && consumed_after > consumed_before;
        let done = completions.first().filter(|_| exec).map(|c| c.byte_len);
        e.recv = (recv_new, index, done.is_some(), done.unwrap_or(0));
        if recv_new && before.recv_placed.is_some() {
            panic!("a RECV taken while one is being filled");
        }
        let (has_reth, reth) = match pkt.ext.reth() {
            Some(r) => (true, *r),
            None => (false, Reth { va: 0, rkey: 0, dma_len: 0 }),
        };
        let (has_atomic, at) = match pkt.ext.atomic_eth() {
            Some(a) => (true, *a),
            None => (false, AtomicEth { va: 0, rkey: 0, swap_add: 0, compare: 0 }),
        };
        let fields = PktFields {
            opcode: op.value(),
            ackreq: pkt.bth.ack_req,
            qpn: qp.qpn,
            psn: pkt.psn().value(),
            has_reth,
            has_atomic,
            va: if has_reth { reth.va } else { at.va },
            rkey: if has_reth { reth.rkey } else { at.rkey },
            dmalen: reth.dma_len,
            payload_len: pkt.payload.len() as u16,
            flush: false,
        };
        self.cases.push(Case { pkt: fields, ctx, expect: e });
        if self.qps[qi].model.is_error() {
            let old = self.retire(qi);
            if self.flushes {
                self.retired.push_back(old);
            }
        }
    }

    /// The next packet for QP `qi`: mostly what a requester sends next.
    fn packet(&mut self, qi: usize) -> RcPacket {
        use Opcode::*;
        let r = &mut self.rng;
        let qp = &self.qps[qi];
        let s = qp.model.state();
        let p = qp.model.config().pmtu.bytes();
        let epsn = s.epsn;
        let mut psn = epsn;
        let roll = r.next() % 100;
        let mut len_off = roll >= 94;
        if (80..88).contains(&roll) {
            psn = epsn.sub(1 + (r.next() % 4) as u32);
        } else if (88..94).contains(&roll) {
            psn = epsn.add(1 + (r.next() % 4) as u32);
        }
        let small = |r: &mut Rng| (r.next() % (3 * p as u64 + 18)) as u32;
        let mut dma = small(r);
        if r.chance(4) {
            dma = [1u32 << 31, (1u32 << 31) + 1, u32::MAX][(r.next() % 3) as usize];
        }
        let (op, plen) = if roll < 3 {
            let all = rc_opcodes();
            let op = all[(r.next() % all.len() as u64) as usize];
            len_off = false;
            (op, (r.next() % (p as u64 + 2)) as usize)
        } else {
            match s.in_progress {
                MessageInProgress::Send if roll < 80 => {
                    if r.chance(50) {
                        (RcSendMiddle, p)
                    } else {
                        ([RcSendLast, RcSendLastImm][(r.next() % 2) as usize], 1 + (r.next() % p as u64) as usize)
                    }
                }
                MessageInProgress::Write if roll < 80 => {
                    let rem = s.write_remaining as usize;
                    if rem > p {
                        (RcWriteMiddle, p)
                    } else {
                        ([RcWriteLast, RcWriteLastImm][(r.next() % 2) as usize], rem)
                    }
                }
                _ => match r.next() % 10 {
                    0..=2 => {
                        let l = small(r) as usize;
                        if l > p {
                            (RcSendFirst, p)
                        } else {
                            ([RcSendOnly, RcSendOnlyImm][(r.next() % 2) as usize], l)
                        }
                    }
                    3..=6 => {
                        if dma as usize > p {
                            (RcWriteFirst, p)
                        } else {
                            ([RcWriteOnly, RcWriteOnlyImm][(r.next() % 2) as usize], dma as usize)
                        }
                    }
                    7 => {
                        if dma == 1 << 31 {
                            dma += 1; // a READ of 2^31 bytes would make the model allocate it
                        }
                        (RcReadRequest, 0)
                    }
                    _ => ([RcCompareSwap, RcFetchAdd][(r.next() % 2) as usize], 0),
                },
            }
        };
        let mut plen = plen;
        if len_off {
            plen = match r.next() % 3 {
                0 => plen + 1,
                1 => plen.saturating_sub(1),
                _ => p + 1 + (r.next() % 64) as usize,
            };
        }
        let va = r.next() & if r.chance(85) { !7 } else { u64::MAX };
        let reth = Reth { va, rkey: r.next() as u32, dma_len: dma };
        let atomic = AtomicEth { va, rkey: r.next() as u32, swap_add: 1, compare: 0 };
        let ackreq = r.chance(50);
        RcPacket::new(op, qp.qpn, psn, ackreq, ext_for(op, reth, atomic), vec![0; plen])
    }
}

/// The receive parser's header for a packet (`RX_HDR_BITS` as 32-bit words).
pub fn pack_header(f: &PktFields) -> Vec<u32> {
    let mut words = vec![0u32; RX_HDR_BITS / 32];
    let mut top: usize = RX_HDR_FIELDS.iter().map(|f| f.1).sum();
    for (name, width) in RX_HDR_FIELDS {
        top -= width;
        let v: u128 = match *name {
            "bth.opcode" => f.opcode.into(),
            "bth.a" => f.ackreq.into(),
            "bth.destqp" => f.qpn.into(),
            "bth.psn" => f.psn.into(),
            "has.reth" => f.has_reth.into(),
            "has.atomiceth" => f.has_atomic.into(),
            "reth.va" if f.has_reth => f.va.into(),
            "reth.r_key" if f.has_reth => f.rkey.into(),
            "reth.dmalen" if f.has_reth => f.dmalen.into(),
            "atomiceth.va" if f.has_atomic => f.va.into(),
            "atomiceth.r_key" if f.has_atomic => f.rkey.into(),
            "payload_len" => f.payload_len.into(),
            _ => 0,
        };
        for k in 0..*width {
            if (v >> k) & 1 == 1 {
                words[(top + k) / 32] |= 1 << ((top + k) % 32);
            }
        }
    }
    if f.flush {
        // the on-chip record's bits, above the packed header
        for b in [RXF_TIMER, RXF_RQ_FLUSH] {
            words[b / 32] |= 1 << (b % 32);
        }
    }
    words
}

/// The `qpc` entry for the fields the block reads.
pub fn pack_qpc(c: &QpcFields) -> Vec<u32> {
    let mut e = [0u8; qpc::SIZE];
    qpc::PMTU.info().write_raw(&mut e, c.pmtu.into()).unwrap();
    qpc::MIN_RNR_TIMER.set(&mut e, c.min_rnr).unwrap();
    qpc::MAX_DEST_RD_ATOMIC.set(&mut e, c.max_dest).unwrap();
    qpc::RQ_PSN.set(&mut e, c.rq_psn).unwrap();
    qpc::RQ_PROD.set(&mut e, c.rq_prod).unwrap();
    qpc::RQ_CONS.set(&mut e, c.rq_cons).unwrap();
    qpc::REMOTE_WRITE.set(&mut e, c.access.remote_write).unwrap();
    qpc::REMOTE_READ.set(&mut e, c.access.remote_read).unwrap();
    qpc::REMOTE_ATOMIC.set(&mut e, c.access.remote_atomic).unwrap();
    words_of(&e)
}

fn words_of(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes_of(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A record as it left `m_dec`.
#[derive(Clone, Debug, Default)]
pub struct Record {
    pub cycle: u64,
    pub qpn: u32,
    pub psn: u32,
    pub verdict: u64,
    pub ack: bool,
    pub syndrome: u8,
    pub aeth_psn: u32,
    pub aeth_msn: u32,
    pub msn_before: u32,
    pub key_check: bool,
    pub key_access: u64,
    pub rkey: u32,
    pub va: u64,
    pub len: u32,
    pub recv_new: bool,
    pub recv_index: u16,
    pub recv_offset: u32,
    pub recv_done: bool,
    pub cqe_len: u32,
    pub write: bool,
    pub wr_mask: u64,
    pub wr_data: Vec<u8>,
}

/// The caller around the block: offers the cases, keeps the `qps` store,
/// checks every record.
pub struct RespBench<M: Model> {
    pub sim: Clocked<M>,
    pub rng: Rng,
    /// Percent of cycles a packet is offered / a record taken.
    pub p_offer: u64,
    pub p_take: u64,
    /// Cycles after the take before a record's write reaches the store
    /// (0: visible to the packet offered in the next cycle).
    pub write_delay: u64,
    writes: VecDeque<(u64, Record)>,
    queue: VecDeque<Case>,
    pending: VecDeque<Case>,
    store: HashMap<u32, Vec<u8>>,
    /// The state the last record of each QP wrote (in record order).
    last: HashMap<u32, Vec<u8>>,
    /// Each QP's 16 replay slots as the records fill them (slot `HEAD' +
    /// COUNT' - 1` of an executed READ or atomic's new state).
    slots: HashMap<u32, [Option<Resource>; REPLAY_SLOTS as usize]>,
    /// The previous record's QPN when it was its QP's first record.
    first_ahead: Option<u32>,
    /// Flushes that found nothing right behind their QP's first record (no
    /// write expected: the case `p0_init` with `hit` once got wrong).
    pub behind_first: usize,
    offered: Option<(Vec<u32>, Vec<u32>, Vec<u32>)>,
    /// Cycle each packet was taken, and each record.
    pub taken: Vec<u64>,
    pub records: Vec<Record>,
    ports: HashMap<&'static str, usize>,
}

const PORTS: &[&str] = &[
    "fwd",
    "s_pkt.hdr",
    "s_pkt.qpc",
    "s_pkt.qps",
    "s_pkt.valid",
    "s_pkt.ready",
    "m_dec.qpn",
    "m_dec.psn",
    "m_dec.verdict",
    "m_dec.ack",
    "m_dec.syndrome",
    "m_dec.aeth_psn",
    "m_dec.aeth_msn",
    "m_dec.msn_before",
    "m_dec.key_check",
    "m_dec.key_access",
    "m_dec.rkey",
    "m_dec.va",
    "m_dec.len",
    "m_dec.recv_new",
    "m_dec.recv_index",
    "m_dec.recv_offset",
    "m_dec.recv_done",
    "m_dec.cqe_len",
    "m_dec.write",
    "m_dec.wr_mask",
    "m_dec.wr_data",
    "m_dec.valid",
    "m_dec.ready",
];

impl<M: Model> RespBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let ports = PORTS.iter().map(|&p| (p, dut.port(p))).collect();
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        RespBench {
            sim,
            rng: Rng(seed | 1),
            p_offer: 100,
            p_take: 100,
            write_delay: 0,
            writes: VecDeque::new(),
            queue: VecDeque::new(),
            pending: VecDeque::new(),
            store: HashMap::new(),
            last: HashMap::new(),
            slots: HashMap::new(),
            first_ahead: None,
            behind_first: 0,
            offered: None,
            taken: vec![],
            records: vec![],
            ports,
        }
    }

    pub fn push(&mut self, cases: impl IntoIterator<Item = Case>) {
        self.queue.extend(cases);
    }

    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.pending.is_empty() && self.writes.is_empty()
    }

    fn p(&self, name: &str) -> usize {
        self.ports[name]
    }

    /// One cycle: offer, take, check, clock.
    pub fn step(&mut self) {
        let now = self.sim.cycle();
        while self.writes.front().is_some_and(|w| w.0 <= now) {
            let rec = self.writes.pop_front().unwrap().1;
            let e = self.store.entry(rec.qpn).or_insert_with(|| vec![0; qps::SIZE]);
            for (b, byte) in e.iter_mut().enumerate() {
                if (rec.wr_mask >> b) & 1 == 1 {
                    *byte = rec.wr_data[b];
                }
            }
        }
        if self.offered.is_none() && !self.queue.is_empty() && self.rng.chance(self.p_offer) {
            let c = &self.queue[0];
            let qps = self.store.get(&c.pkt.qpn).cloned().unwrap_or_else(|| vec![0; qps::SIZE]);
            self.offered = Some((pack_header(&c.pkt), pack_qpc(&c.ctx), words_of(&qps)));
        }
        let take = self.rng.chance(self.p_take);
        let (hdr, qpc_w, qps_w) = self.offered.clone().unwrap_or_else(|| (vec![0; 32], vec![0; 32], vec![0; 16]));
        let (ph, pc, ps, pv, pr, mv, mr) = (
            self.p("s_pkt.hdr"),
            self.p("s_pkt.qpc"),
            self.p("s_pkt.qps"),
            self.p("s_pkt.valid"),
            self.p("s_pkt.ready"),
            self.p("m_dec.valid"),
            self.p("m_dec.ready"),
        );
        let fwd = self.p("fwd");
        let d = &mut self.sim.dut;
        // this caller writes as it takes a record: the block forwards
        d.set_at(fwd, 1);
        d.set_words(ph, &hdr);
        d.set_words(pc, &qpc_w);
        d.set_words(ps, &qps_w);
        d.set_at(pv, self.offered.is_some() as u64);
        d.set_at(mr, take as u64);
        self.sim.settle();
        let d = &self.sim.dut;
        if self.offered.is_some() && d.bit_at(pr) {
            self.offered = None;
            self.pending.push_back(self.queue.pop_front().unwrap());
            self.taken.push(now);
        }
        if take && d.bit_at(mv) {
            let rec = self.read_record(now);
            let case = self.pending.pop_front().unwrap_or_else(|| panic!("cycle {now}: a record with no packet"));
            // (right behind its QP's first record a flush that finds nothing
            // writes nothing: P0's "not started" does not count with `hit`)
            if case.expect.write == Some(false) && self.first_ahead == Some(rec.qpn) {
                self.behind_first += 1;
            }
            check(&case, &rec, now);
            if !case.pkt.flush && !case.expect.after.error {
                let slots = self.slots.entry(rec.qpn).or_default();
                check_replay(&case, &rec, slots, now);
            }
            if case.pkt.flush {
                check_flush_state(&case, &rec, self.last.get(&rec.qpn), now);
            }
            self.first_ahead = (!self.last.contains_key(&rec.qpn)).then_some(rec.qpn);
            if rec.write {
                self.last.insert(rec.qpn, rec.wr_data.clone());
                self.writes.push_back((now + 1 + self.write_delay, rec.clone()));
            }
            self.records.push(rec);
        }
        self.sim.tick();
    }

    fn read_record(&self, cycle: u64) -> Record {
        let d = &self.sim.dut;
        let g = |n: &str| d.get_at(self.ports[n]);
        let mut w = vec![0u32; 16];
        d.get_words(self.ports["m_dec.wr_data"], &mut w);
        Record {
            cycle,
            qpn: g("m_dec.qpn") as u32,
            psn: g("m_dec.psn") as u32,
            verdict: g("m_dec.verdict"),
            ack: g("m_dec.ack") == 1,
            syndrome: g("m_dec.syndrome") as u8,
            aeth_psn: g("m_dec.aeth_psn") as u32,
            aeth_msn: g("m_dec.aeth_msn") as u32,
            msn_before: g("m_dec.msn_before") as u32,
            key_check: g("m_dec.key_check") == 1,
            key_access: g("m_dec.key_access"),
            rkey: g("m_dec.rkey") as u32,
            va: g("m_dec.va"),
            len: g("m_dec.len") as u32,
            recv_new: g("m_dec.recv_new") == 1,
            recv_index: g("m_dec.recv_index") as u16,
            recv_offset: g("m_dec.recv_offset") as u32,
            recv_done: g("m_dec.recv_done") == 1,
            cqe_len: g("m_dec.cqe_len") as u32,
            write: g("m_dec.write") == 1,
            wr_mask: g("m_dec.wr_mask"),
            wr_data: bytes_of(&w),
        }
    }

    /// Run until every case is checked (panics after `limit` cycles).
    pub fn run(&mut self, limit: u64) {
        let start = self.sim.cycle();
        while !self.idle() {
            assert!(
                self.sim.cycle() - start < limit,
                "no progress: {} packets left",
                self.queue.len() + self.pending.len()
            );
            self.step();
        }
    }
}

/// A record against the model's expectation.
pub fn check(c: &Case, r: &Record, now: u64) {
    let e = &c.expect;
    let ctx = format!(
        "cycle {now}: QP {:#x} PSN {:#x} opcode {:#04x} len {}{}",
        c.pkt.qpn,
        c.pkt.psn,
        c.pkt.opcode,
        c.pkt.payload_len,
        if c.pkt.flush { " (RQ flush)" } else { "" }
    );
    assert_eq!((r.qpn, r.psn), (c.pkt.qpn, c.pkt.psn), "{ctx}: record of another packet");
    assert_eq!(r.verdict, e.verdict, "{ctx}: verdict");
    assert_eq!(r.msn_before, e.msn_before, "{ctx}: MSN before");
    match e.ack {
        Some((syn, psn, msn)) => {
            assert!(r.ack, "{ctx}: an ACK/NAK is due");
            assert_eq!((r.syndrome, r.aeth_psn, r.aeth_msn), (syn, psn, msn), "{ctx}: AETH (syndrome, PSN, MSN)");
        }
        None => assert!(!r.ack, "{ctx}: no ACK/NAK now (syndrome {:#x})", r.syndrome),
    }
    if let Some((msn, psn)) = e.resp_aeth {
        assert_eq!((r.aeth_msn, r.aeth_psn), (msn, psn), "{ctx}: the response's AETH MSN and PSN");
    }
    if let Some((check, acc, rkey, va, len)) = e.key {
        assert_eq!((r.key_check, r.key_access, r.rkey, r.va, r.len), (check, acc, rkey, va, len), "{ctx}: key check");
    } else if e.verdict != RESP_NAK_INV && e.verdict != RESP_RNR {
        assert!(!r.key_check, "{ctx}: no key check");
    }
    let (new, index, done, cqe_len) = e.recv;
    assert_eq!((r.recv_new, r.recv_done), (new, done), "{ctx}: RECV new / done");
    if new || done {
        assert_eq!(r.recv_index, index, "{ctx}: RECV index");
    }
    if done {
        assert_eq!(r.cqe_len, cqe_len, "{ctx}: completion length");
    }
    if c.pkt.flush {
        // the fields a flush does not use, as the RTL defines them (module doc)
        assert_eq!(r.recv_index, index, "{ctx}: RQ index (the first RECV flushed, or RQ_PROD)");
        assert_eq!((r.recv_offset, r.cqe_len), (0, 0), "{ctx}: a flush's RECV offset and completion length");
        assert_eq!(
            (r.syndrome, r.aeth_psn, r.aeth_msn),
            (AETH_ACK as u8, 0, e.msn_before),
            "{ctx}: a flush's AETH fields (syndrome, PSN, MSN)"
        );
    }
    if let Some(w) = e.write {
        assert_eq!(r.write, w, "{ctx}: state write");
    }
    assert_eq!(r.wr_mask, RESP_WR_MASK, "{ctx}: byte mask");
    // the new state, field by field
    let s = &e.after;
    let d = &r.wr_data;
    assert!(qps::RESP_STARTED.get(d).unwrap(), "{ctx}: started");
    assert_eq!(qps::EPSN.get(d).unwrap(), s.epsn.value(), "{ctx}: EPSN");
    assert_eq!(qps::MSN.get(d).unwrap(), s.msn, "{ctx}: MSN");
    assert_eq!(qps::NAK_SENT.get(d).unwrap(), s.nak_sent, "{ctx}: NAK_SENT");
    assert_eq!(qps::ACK_PENDING.get(d).unwrap(), s.ack_pending, "{ctx}: ACK_PENDING");
    let ip = if s.error {
        qps::IN_PROGRESS_ERROR
    } else {
        match s.in_progress {
            MessageInProgress::None => qps::IN_PROGRESS_NONE,
            MessageInProgress::Send => qps::IN_PROGRESS_SEND,
            MessageInProgress::Write => qps::IN_PROGRESS_WRITE,
        }
    };
    assert_eq!(qps::IN_PROGRESS.get(d).unwrap(), ip, "{ctx}: IN_PROGRESS");
    // a flush's RQ index is defined in error too (the RECVs a fatal NAK left)
    if !s.error || c.pkt.flush {
        let valid = qps::RECV_VALID.get(d).unwrap();
        assert_eq!(valid, s.recv_placed.is_some(), "{ctx}: RECV_VALID");
        if let Some(placed) = s.recv_placed {
            assert_eq!(u64::from(qps::RECV_PLACED.get(d).unwrap()), placed, "{ctx}: RECV_PLACED");
        }
        let next = qps::RECV_WQE.get(d).unwrap().wrapping_add(valid as u16);
        assert_eq!(next, e.rq_next, "{ctx}: RECV_WQE + RECV_VALID (RECVs taken)");
    }
    if !s.error {
        assert_eq!(qps::WRITE_VA.get(d).unwrap(), s.write_va, "{ctx}: WRITE_VA");
        assert_eq!(qps::WRITE_RKEY.get(d).unwrap(), s.write_rkey, "{ctx}: WRITE_RKEY");
        assert_eq!(u64::from(qps::WRITE_REMAINING.get(d).unwrap()), s.write_remaining, "{ctx}: WRITE_REMAINING");
        assert_eq!(qps::WRITE_LEN.get(d).unwrap(), s.write_len, "{ctx}: WRITE_LEN");
    }
}

/// The replay window of a record's new state against the model's
/// resources: an executed READ or atomic fills slot `HEAD' + COUNT' - 1`
/// with the model's newest resource, and the window `[HEAD', HEAD' +
/// COUNT')` of `slots` must then hold the model's resources, oldest first.
/// (Not for a QP the model put in error: a failed READ's slot is spent, the
/// model remembers nothing.)
pub fn check_replay(c: &Case, r: &Record, slots: &mut [Option<Resource>; REPLAY_SLOTS as usize], now: u64) {
    let n = REPLAY_SLOTS as usize;
    let head = usize::from(qps::REPLAY_HEAD.get(&r.wr_data).unwrap());
    let count = usize::from(qps::REPLAY_COUNT.get(&r.wr_data).unwrap());
    let ctx = format!("cycle {now}: QP {:#x} PSN {:#x} verdict {}", c.pkt.qpn, c.pkt.psn, r.verdict);
    if r.verdict == RESP_EXEC_READ || r.verdict == RESP_EXEC_ATOMIC {
        assert!(count >= 1, "{ctx}: an executed READ or atomic holds a slot");
        slots[(head + count - 1) % n] = c.expect.replay.last().copied();
    }
    assert_eq!(count, c.expect.replay.len(), "{ctx}: REPLAY_COUNT against the model's resources");
    for (i, want) in c.expect.replay.iter().enumerate() {
        assert_eq!(slots[(head + i) % n].as_ref(), Some(want), "{ctx}: replay slot HEAD + {i} (HEAD {head})");
    }
}

/// A flush record's new state against `prev`, the state the last record of
/// its QP wrote (none: the initial state, EPSN from `RQ_PSN` and RECV_WQE
/// from `RQ_CONS`, every other field 0): RESP_EXEC_FLUSH sets RECV_WQE to
/// RQ_PROD and clears RECV_VALID and RECV_PLACED, every other bit of the
/// responder's bytes kept (EPSN, MSN, NAK_SENT, ACK_PENDING, IN_PROGRESS,
/// RECV_SGE, RECV_SGE_OFFSET, WRITE_*, the replay cache's); a flush that
/// finds nothing changes nothing (and writes only the initial state).
pub fn check_flush_state(c: &Case, r: &Record, prev: Option<&Vec<u8>>, now: u64) {
    let mut want = match prev {
        Some(p) => p.clone(),
        None => {
            let mut e = vec![0u8; qps::SIZE];
            qps::RESP_STARTED.set(&mut e, true).unwrap();
            qps::EPSN.set(&mut e, c.ctx.rq_psn).unwrap();
            qps::RECV_WQE.set(&mut e, c.ctx.rq_cons).unwrap();
            e
        }
    };
    if r.verdict == RESP_EXEC_FLUSH {
        qps::RECV_WQE.set(&mut want, c.ctx.rq_prod).unwrap();
        qps::RECV_VALID.set(&mut want, false).unwrap();
        qps::RECV_PLACED.set(&mut want, 0).unwrap();
    }
    let b = qps::RESPONDER_BYTES;
    assert_eq!(
        r.wr_data[b.clone()],
        want[b],
        "cycle {now}: QP {:#x} (RQ flush, verdict {}): the new state against the last one written{}",
        c.pkt.qpn,
        r.verdict,
        if prev.is_some() { "" } else { " (none: the initial state)" }
    );
}
