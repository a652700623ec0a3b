//! Bench for the completer's ACK path (`CompAck`, catalog `comp_ack`)
//! against the protocol model (`rnic_proto::rc::Requester::on_response`).
//!
//! [`Script`] keeps a few QPs, each with a model requester (path MTU,
//! start PSN across the wrap, SQ index, send CQ): random WQEs are posted
//! (SEND, WRITE, READ, atomics; signaled or not), the model sends a random
//! number of packets (each WQE it starts is an `inflight` PUSH the bench
//! makes), and a response is made up: ACKs at random outstanding PSNs
//! (coalesced), duplicates and ghosts, RNR NAKs, PSN sequence NAKs, fatal
//! NAKs of every code, reserved syndromes, and READ responses / atomic ACKs
//! (in order for their WQE most of the time, with the right position and
//! length, else at a random outstanding PSN, a wrong position or length,
//! a NAK syndrome, or on a WQE of another kind). The model's
//! action, counters, completions and state after the response are the
//! case's expectation. A QP the model put in error, or after a random
//! number of responses, is replaced under a new QPN.
//!
//! [`CompBench`] plays the caller and the `inflight` table: it offers the
//! packets with `qpc` and a `qps` entry (the requester's REQ_STARTED and
//! SENT_END from the model, the completer's bytes from its store, written
//! from the records it takes), answers HEAD/POP from a per-QP list of
//! entries `INFLIGHT_LATENCY` cycles after the command or later, and takes
//! CQEs and records, every port with random stalls; every CQE, record,
//! action and state field is compared with the model's.

use rnic_contract::layouts::{qpc, qps};
use rnic_hw::consts::*;
use rnic_hw::transport::{ENTRY_FIRST_PSN, ENTRY_KIND, ENTRY_LAST_PSN, ENTRY_LEN, ENTRY_SIGNALED, ENTRY_WQE_INDEX};
use rnic_hw::transport::{ENTRY_WR_ID, INFLIGHT_ENTRY_BITS, INFLIGHT_LATENCY, INFLIGHT_QPN_BITS};
use rnic_hw::wire::{RX_HDR_BITS, RX_HDR_FIELDS};
use rnic_proto::aeth::Aeth;
use rnic_proto::ext::{AtomicAckEth, ExtHeaders};
use rnic_proto::opcode::{Opcode, Pmtu};
use rnic_proto::psn::Psn;
use rnic_proto::rc::completer::CompleterAction;
use rnic_proto::rc::requester::{Requester, RequesterConfig, SendOp, SendWqe};
use rnic_proto::rc::{packets_for, RcPacket, Remote, Sge, WcOpcode, WcStatus};
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, VecDeque};

const M24: u32 = 0xff_ffff;

/// A number below `n` (0 when `n` is 0).
trait Below {
    fn below(&mut self, n: u64) -> u64;
}

impl Below for Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A WQE as the bench knows it (for the inflight entry and the CQE).
#[derive(Clone, Copy, Debug)]
struct WqeInfo {
    kind: u64,
    len: u32,
    signaled: bool,
    wr_id: u64,
    npkts: u32,
}

/// One inflight entry's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub index: u16,
    pub first: u32,
    pub last: u32,
    pub kind: u64,
    pub signaled: bool,
    pub wr_id: u64,
    pub len: u32,
}

impl Entry {
    /// The entry as `inflight` stores it (32-bit words).
    pub fn words(&self) -> Vec<u32> {
        let mut w = vec![0u32; INFLIGHT_ENTRY_BITS.div_ceil(32)];
        let mut put = |lsb: usize, width: usize, v: u64| {
            for k in 0..width {
                if (v >> k) & 1 == 1 {
                    w[(lsb + k) / 32] |= 1 << ((lsb + k) % 32);
                }
            }
        };
        put(ENTRY_WQE_INDEX, 16, self.index.into());
        put(ENTRY_FIRST_PSN, 24, self.first.into());
        put(ENTRY_LAST_PSN, 24, self.last.into());
        put(ENTRY_KIND, 4, self.kind);
        put(ENTRY_SIGNALED, 1, self.signaled.into());
        put(ENTRY_WR_ID, 64, self.wr_id);
        put(ENTRY_LEN, 32, self.len.into());
        w
    }
}

/// A CQE request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cqe {
    pub cq: u32,
    pub wr_id: u64,
    pub status: u8,
    pub opcode: u8,
    pub byte_len: u32,
    pub qpn: u32,
    pub wqe_index: u16,
}

/// The completer's fields of a `qps` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompState {
    pub una: u32,
    pub head_first: u32,
    pub head_wqe: Option<u16>,
    pub retry: Option<u32>,
    pub in_read: bool,
    pub error: bool,
    pub rd_done: u8,
    pub retries: u8,
    pub rnr_retries: u8,
    pub rnr_wait: bool,
}

/// What the model did with a packet.
#[derive(Clone, Debug)]
pub struct Expect {
    pub verdict: u64,
    pub implied: bool,
    pub action: u64,
    pub action_psn: u32,
    pub timer: u8,
    pub status: u8,
    /// The state after (compared when the record writes).
    pub state: CompState,
    /// WQEs the walk completed (not counting a fatal NAK's), and UNA before.
    pub popped: usize,
    pub una_before: u32,
    /// The QP was in an RNR wait (a timer's record ends it, with a wake).
    pub rnr_before: bool,
    /// A READ response dropped as stale; placed (with its WQE's SQ index
    /// and the offset in the message).
    pub stale: bool,
    pub place: Option<(u16, u32)>,
}

/// One response packet with its context and expectation.
#[derive(Clone, Debug)]
pub struct Case {
    pub qpn: u32,
    pub opcode: u8,
    pub psn: u32,
    pub syndrome: u8,
    pub sq_psn: u32,
    pub sq_cons: u16,
    pub send_cq: u32,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub req_started: bool,
    pub sent_end: u32,
    /// The QP's PMTU code, the payload's length and first lane, an atomic
    /// ACK's original value (READ responses, atomic ACKs).
    pub pmtu: u8,
    pub plen: u16,
    pub lane: u8,
    pub orig: u64,
    /// Inflight PUSHes (QPN, entry) made before this packet.
    pub pushes: Vec<(u32, Entry)>,
    pub expect: Expect,
    /// Not a packet: the QP's retransmit timer ran out (the record
    /// `RxLookup` makes of an expiry; `psn` is the model's UNA, the header's
    /// PSN is garbage the block must ignore).
    pub timer: bool,
    /// ... the RNR timer's (kind 1).
    pub rnr_timer: bool,
    /// Offered (and its pushes made) only once every record before it is
    /// out: entries pushed behind a QP's flush, not during it (a flush
    /// still walking would take them: right, but not this case's).
    pub quiet: bool,
    /// The record's `qps` shows the QP in error by its responder alone
    /// (`RESP_STARTED`, `IN_PROGRESS` ERROR: a fatal NAK it sent), its
    /// completer's COMP_ERROR clear: the block must act as in error.
    pub resp_err: bool,
}

struct Qp {
    qpn: u32,
    model: Requester,
    start: u32,
    sq_cons: u16,
    cq: u32,
    retry_cnt: u8,
    rnr_retry: u8,
    wqes: Vec<WqeInfo>,
    by_wr_id: HashMap<u64, u64>,
    pushed: u64,
    rd_pushed: u32,
    life: u32,
    /// In error: the state after the last record (`error_case`).
    err_state: Option<CompState>,
}

/// The random response generator with one model requester per QP.
pub struct Script {
    rng: Rng,
    qps: Vec<Qp>,
    next_qp: u32,
    pending_pushes: Vec<(u32, Entry)>,
    pub cases: Vec<Case>,
    /// Expected CQEs in order.
    pub cqes: Vec<Cqe>,
}

fn wc_status(s: WcStatus) -> u8 {
    use rnic_contract::codes::WcStatus as C;
    (match s {
        WcStatus::Success => C::Success,
        WcStatus::LocLenErr => C::LocLenErr,
        WcStatus::LocQpOpErr => C::LocQpOpErr,
        WcStatus::LocProtErr => C::LocProtErr,
        WcStatus::WrFlushErr => C::WrFlushErr,
        WcStatus::BadRespErr => C::BadRespErr,
        WcStatus::RemInvReqErr => C::RemInvReqErr,
        WcStatus::RemAccessErr => C::RemAccessErr,
        WcStatus::RemOpErr => C::RemOpErr,
        WcStatus::RetryExcErr => C::RetryExcErr,
        WcStatus::RnrRetryExcErr => C::RnrRetryExcErr,
    }) as u8
}

fn wc_opcode(o: WcOpcode) -> u8 {
    use rnic_contract::codes::WcOpcode as C;
    (match o {
        WcOpcode::Send => C::Send,
        WcOpcode::RdmaWrite => C::RdmaWrite,
        WcOpcode::RdmaRead => C::RdmaRead,
        WcOpcode::CompSwap => C::CompSwap,
        WcOpcode::FetchAdd => C::FetchAdd,
        WcOpcode::Recv => C::Recv,
        WcOpcode::RecvRdmaWithImm => C::RecvRdmaWithImm,
    }) as u8
}

impl Script {
    /// `n` QPs live at a time.
    pub fn new(seed: u64, n: usize) -> Self {
        let mut s =
            Script { rng: Rng(seed | 1), qps: vec![], next_qp: 1, pending_pushes: vec![], cases: vec![], cqes: vec![] };
        for _ in 0..n {
            let q = s.new_qp();
            s.qps.push(q);
        }
        s
    }

    fn new_qp(&mut self) -> Qp {
        let r = &mut self.rng;
        let low = self.next_qp;
        self.next_qp += 1;
        assert!(low < 1 << INFLIGHT_QPN_BITS);
        let qpn = ((r.below(1 << 10) as u32) << INFLIGHT_QPN_BITS) | low;
        let pmtu = Pmtu::ALL[r.below(Pmtu::ALL.len() as u64) as usize];
        let start = if r.chance(40) { M24 - r.below(40) as u32 } else { r.below(1 << 24) as u32 };
        let cfg = RequesterConfig {
            dest_qp: 0x33,
            pmtu,
            start_psn: Psn::new(start),
            ack_req_every: 4,
            max_rd_atomic: 4,
            max_unacked_psns: 48,
            pd: 1,
            retry_cnt: r.below(8) as u8,
            rnr_retry: r.below(8) as u8,
        };
        Qp {
            qpn,
            model: Requester::new(cfg),
            start,
            sq_cons: r.below(1 << 16) as u16,
            cq: r.below(1 << 24) as u32,
            retry_cnt: cfg.retry_cnt,
            rnr_retry: cfg.rnr_retry,
            wqes: vec![],
            by_wr_id: HashMap::new(),
            pushed: 0,
            rd_pushed: 0,
            life: 20 + r.below(100) as u32,
            err_state: None,
        }
    }

    fn post(&mut self, qi: usize) {
        let r = &mut self.rng;
        let qp = &mut self.qps[qi];
        let pmtu = qp.model.config().pmtu.bytes() as u64;
        let len = if r.chance(20) { 0 } else { r.below(3 * pmtu + 18) as usize };
        let sge = |len: u32| vec![Sge { addr: 0x1000, len, lkey: 1 }];
        let remote = Remote { va: 0x8000, rkey: 2 };
        let k = r.below(100);
        let (op, kind) = if k < 30 {
            (SendOp::Send { payload: vec![0; len], imm: None }, SOP_SEND)
        } else if k < 40 {
            (SendOp::Send { payload: vec![0; len], imm: Some(7) }, SOP_SEND_IMM)
        } else if k < 65 {
            (SendOp::Write { payload: vec![0; len], remote, imm: None }, SOP_RDMA_WRITE)
        } else if k < 75 {
            (SendOp::Write { payload: vec![0; len], remote, imm: Some(9) }, SOP_RDMA_WRITE_IMM)
        } else if k < 88 {
            (SendOp::Read { remote, len: len as u32, local: sge(len as u32) }, SOP_RDMA_READ)
        } else if k < 94 {
            (SendOp::CmpSwap { remote, compare: 1, swap: 2, local: Sge { addr: 0x10, len: 8, lkey: 1 } }, SOP_CMP_SWAP)
        } else {
            (SendOp::FetchAdd { remote, add: 3, local: Sge { addr: 0x10, len: 8, lkey: 1 } }, SOP_FETCH_ADD)
        };
        let npkts = match op {
            SendOp::CmpSwap { .. } | SendOp::FetchAdd { .. } => 1,
            _ => packets_for(op.len().into(), pmtu as usize),
        };
        let seq = qp.wqes.len() as u64;
        let wr_id = (r.next() & !0xffff_ffff) | (u64::from(qp.qpn) << 8 & 0xffff_ff00) ^ seq;
        let wr_id = wr_id ^ (seq << 40);
        let signaled = r.chance(70);
        let info = WqeInfo { kind, len: op.len(), signaled, wr_id, npkts };
        let fence = r.chance(5);
        if qp.model.post(SendWqe { wr_id, op, signaled, fence }).is_ok() {
            qp.wqes.push(info);
            qp.by_wr_id.insert(wr_id, seq);
        }
    }

    /// The model sends up to `n` packets; each WQE started is a PUSH.
    fn send(&mut self, qi: usize, n: u64) {
        let qp = &mut self.qps[qi];
        for _ in 0..n {
            let before = qp.model.next_psn();
            if qp.model.next_packet().is_none() {
                break;
            }
            let after = qp.model.next_psn();
            if after != before {
                let seq = qp.pushed;
                let w = qp.wqes[seq as usize];
                assert_eq!(before.distance_to(after), w.npkts, "the model started WQE {seq} with its packets");
                qp.pushed += 1;
                if matches!(w.kind, SOP_RDMA_READ | SOP_CMP_SWAP | SOP_FETCH_ADD) {
                    qp.rd_pushed += 1;
                }
                let e = Entry {
                    index: qp.sq_cons.wrapping_add(seq as u16),
                    first: before.value(),
                    last: before.add(w.npkts - 1).value(),
                    kind: w.kind,
                    signaled: w.signaled,
                    wr_id: w.wr_id,
                    len: w.len,
                };
                self.pending_pushes.push((qp.qpn, e));
            }
        }
    }

    fn state_of(qp: &Qp) -> CompState {
        let v = qp.model.completer_view();
        let outstanding = qp.model.rd_atomic_outstanding();
        CompState {
            una: v.una.value(),
            head_first: v.head_first_psn.value(),
            head_wqe: (!v.error).then(|| qp.sq_cons.wrapping_add(v.head_seq as u16)),
            retry: v.retry_psn.map(|p| p.value()),
            in_read: v.in_read_response,
            error: v.error,
            rd_done: (qp.rd_pushed.wrapping_sub(outstanding) % 32) as u8,
            retries: v.retries_left,
            rnr_retries: v.rnr_left,
            rnr_wait: v.rnr_wait,
        }
    }

    /// Generates `n` cases, a random QP each.
    pub fn generate(&mut self, n: usize) {
        for _ in 0..n {
            let qi = self.rng.below(self.qps.len() as u64) as usize;
            self.one(qi);
            let qp = &mut self.qps[qi];
            qp.life = qp.life.saturating_sub(1);
            if qp.model.is_error() && self.rng.chance(60) {
                // records after the QP's error, entries pushed behind it
                for _ in 0..1 + self.rng.below(2) {
                    self.error_case(qi);
                }
            }
            let qp = &mut self.qps[qi];
            if qp.model.is_error() || qp.life == 0 {
                let q = self.new_qp();
                self.qps[qi] = q;
            }
        }
    }

    fn one(&mut self, qi: usize) {
        for _ in 0..self.rng.below(3) {
            self.post(qi);
        }
        let n = self.rng.below(6);
        self.send(qi, n);
        if self.rng.chance(6) {
            let rnr = self.rng.chance(30);
            self.timer_case(qi, rnr);
            return;
        }
        let r = &mut self.rng;
        let qp = &mut self.qps[qi];
        let v = qp.model.completer_view();
        let (una, se) = (v.una, v.sent_end);
        let n_out = una.distance_to(se);
        let inside = |r: &mut Rng| una.add(r.below(u64::from(n_out.max(1))) as u32);
        // a WQE's last PSN a third of the time (coalesced ACKs end there)
        let wqe_end = |r: &mut Rng, qp: &Qp| -> Psn {
            let seqs: Vec<_> = (0..qp.pushed).collect();
            let seq = seqs[r.below(seqs.len().max(1) as u64) as usize % seqs.len().max(1)];
            let w = qp.wqes[seq as usize];
            let mut first = Psn::new(qp.start);
            for s in 0..seq {
                first = first.add(qp.wqes[s as usize].npkts);
            }
            first.add(w.npkts - 1)
        };
        let k = r.below(100);
        let (mut opcode, mut syndrome) = (Opcode::RcAck, AETH_ACK as u8);
        let psn = if k < 45 {
            if qp.pushed > 0 && r.chance(40) {
                wqe_end(r, qp)
            } else {
                inside(r)
            }
        } else if k < 52 {
            una.sub(1 + r.below(4) as u32)
        } else if k < 56 {
            se.add(r.below(4) as u32)
        } else if k < 68 {
            syndrome = AETH_NAK_SEQ as u8;
            if r.chance(30) {
                una
            } else {
                inside(r)
            }
        } else if k < 80 {
            syndrome = (AETH_RNR | r.below(32)) as u8;
            inside(r)
        } else if k < 84 {
            syndrome = (AETH_NAK_SEQ + 1 + r.below(31)) as u8;
            inside(r)
        } else if k < 87 {
            syndrome = if r.chance(50) { 0x40 | r.below(32) as u8 } else { 0x80 | r.below(128) as u8 };
            inside(r)
        } else if k < 90 {
            opcode = Opcode::RcReadResponseOnly;
            if r.chance(80) {
                inside(r)
            } else {
                una.sub(1)
            }
        } else if k < 97 {
            opcode = Opcode::RcReadResponseOnly;
            // in order most of the time
            if r.chance(75) {
                una
            } else {
                inside(r)
            }
        } else {
            // an ACK of everything sent, or more duplicates
            if r.chance(50) {
                se.sub(1)
            } else {
                una.sub(1)
            }
        };
        // a READ response / atomic ACK: the opcode, AETH and payload length
        // its WQE wants (position from the PSN), or something else
        let pmtu_b = qp.model.config().pmtu.bytes() as u32;
        let mut plen = 0u32;
        let orig = r.next();
        let mut found_at = None;
        if opcode != Opcode::RcAck {
            let mut first = Psn::new(qp.start);
            let mut found = None;
            for seq in 0..qp.pushed {
                let w = qp.wqes[seq as usize];
                if first.distance_to(psn) < w.npkts {
                    found = Some((w, first.distance_to(psn)));
                    found_at = Some((seq, first));
                    break;
                }
                first = first.add(w.npkts);
            }
            let good = k >= 90 && r.chance(85);
            let position = |w: &WqeInfo, i: u32, plen: &mut u32| {
                if w.npkts == 1 {
                    *plen = w.len;
                    Opcode::RcReadResponseOnly
                } else if i == 0 {
                    *plen = pmtu_b;
                    Opcode::RcReadResponseFirst
                } else if i + 1 == w.npkts {
                    *plen = w.len - i * pmtu_b;
                    Opcode::RcReadResponseLast
                } else {
                    *plen = pmtu_b;
                    Opcode::RcReadResponseMiddle
                }
            };
            opcode = match found {
                Some((w, _)) if good && matches!(w.kind, SOP_CMP_SWAP | SOP_FETCH_ADD) => Opcode::RcAtomicAck,
                Some((w, i)) if good || r.chance(50) => position(&w, i, &mut plen),
                _ => [
                    Opcode::RcReadResponseFirst,
                    Opcode::RcReadResponseMiddle,
                    Opcode::RcReadResponseLast,
                    Opcode::RcReadResponseOnly,
                    Opcode::RcAtomicAck,
                ][r.below(5) as usize],
            };
            if opcode == Opcode::RcAtomicAck {
                plen = 0;
            } else if r.chance(8) {
                // a length one off, or any
                plen = match r.below(3) {
                    0 => plen + 1,
                    1 => plen.saturating_sub(1),
                    _ => r.below(u64::from(pmtu_b) + 2) as u32,
                };
            }
            if r.chance(7) {
                syndrome = [AETH_NAK_SEQ, AETH_RNR | 3, AETH_NAK_INV, 0x80 | AETH_ACK, 0x40][r.below(5) as usize] as u8;
            }
            if opcode == Opcode::RcReadResponseMiddle {
                syndrome = 0;
            }
        }
        let before = Self::state_of(qp);
        let error_before = qp.model.is_error();
        let outstanding = una.distance_to(psn) < n_out;
        let case_base = |expect: Expect, pushes: Vec<(u32, Entry)>, qp: &Qp| Case {
            plen: plen as u16,
            lane: (orig >> 58) as u8,
            orig,
            ..qp_case(qp, (opcode.value(), psn.value(), syndrome), se.value(), pushes, expect)
        };
        let pushes = std::mem::take(&mut self.pending_pushes);
        let mut expect = Expect {
            verdict: COMP_DROP,
            implied: false,
            action: CACT_NONE,
            action_psn: psn.value(),
            timer: syndrome & 0x1f,
            status: 0,
            state: before,
            popped: 0,
            una_before: una.value(),
            rnr_before: before.rnr_wait,
            stale: false,
            place: None,
        };
        let aeth = Aeth { syndrome, msn: 0 };
        let ext = match opcode {
            Opcode::RcReadResponseMiddle => ExtHeaders::Bare,
            Opcode::RcAtomicAck => ExtHeaders::AethAtomicAckEth(aeth, AtomicAckEth { orig_remote_data: orig }),
            _ => ExtHeaders::Aeth(aeth),
        };
        let payload: Vec<u8> = (0..plen).map(|i| (i as u8) ^ (orig as u8)).collect();
        let pkt = RcPacket::new(opcode, qp.qpn, psn, false, ext, payload);
        let c0 = qp.model.counters();
        let outstanding_wqes = qp.model.outstanding();
        let action = qp.model.on_response(&pkt, &mut NoMemory);
        let c1 = qp.model.counters();
        let comps = qp.model.take_completions();
        let kind = (syndrome >> AETH_KIND_LSB) & 3;
        expect.stale = c1.stale_read_responses > c0.stale_read_responses;
        expect.verdict = if error_before {
            COMP_DROP
        } else if opcode != Opcode::RcAck {
            if outstanding {
                COMP_RD_RESP
            } else {
                COMP_GHOST
            }
        } else if c1.ghost_responses > c0.ghost_responses {
            if outstanding {
                COMP_RESERVED
            } else {
                COMP_GHOST
            }
        } else if kind == AETH_KIND_ACK as u8 {
            COMP_ACK
        } else if kind == AETH_KIND_RNR_NAK as u8 {
            if qp.model.is_error() {
                // RNR retries spent: the block takes it as a fatal NAK
                COMP_NAK_FATAL
            } else {
                COMP_RNR
            }
        } else if syndrome == AETH_NAK_SEQ as u8 {
            COMP_NAK_SEQ
        } else {
            COMP_NAK_FATAL
        };
        expect.implied = c1.implied_naks > c0.implied_naks;
        let mut rnr_fired = false;
        match action {
            CompleterAction::None => {}
            CompleterAction::Resent(p) => {
                expect.action = CACT_RESEND;
                expect.action_psn = p.value();
            }
            CompleterAction::RnrWait { psn: p, timer } => {
                expect.action = CACT_RNR_WAIT;
                expect.action_psn = p.value();
                expect.timer = timer.code();
                // the RNR timer fires right after (a timer record next)
                rnr_fired = true;
            }
        }
        if !error_before && qp.model.is_error() {
            expect.action = CACT_ERROR;
            expect.status = wc_status(comps.iter().find(|c| c.status != WcStatus::Success).unwrap().status);
        }
        let _ = outstanding_wqes;
        Self::sent_cqes(&mut self.cqes, qp, &comps);
        if expect.verdict == COMP_RD_RESP && expect.action == CACT_NONE && !expect.stale && !expect.implied {
            // placed: at the offset of its packet in the WQE holding its PSN
            let (seq, first) = found_at.expect("a placed response has its WQE");
            expect.place = Some((qp.sq_cons.wrapping_add(seq as u16), first.distance_to(psn) * pmtu_b));
        }
        let after = Self::state_of(qp);
        expect.popped = (after_head(&after, &before)) as usize;
        expect.state = after;
        self.cases.push(case_base(expect, pushes, qp));
        if rnr_fired {
            self.timer_case(qi, true);
        }
    }
}

impl Script {
    /// A record of QP `qi`, whose completer is in error (a packet's or a
    /// timer's), after 0 to 3 entries pushed behind the QP's flush (a job
    /// under way then, or a flush job's refused entry): dropped, and a flush
    /// of them (WR_FLUSH_ERR, a refused entry its own status, no bytes),
    /// the head past them; the QP stays in error, no action, no arming.
    fn error_case(&mut self, qi: usize) {
        let mut pushes = std::mem::take(&mut self.pending_pushes);
        let r = &mut self.rng;
        let qp = &mut self.qps[qi];
        let before = qp.err_state.unwrap_or_else(|| {
            // the fatal flush popped every entry pushed: the head is past them
            let s = Self::state_of(qp);
            CompState { head_wqe: Some(qp.sq_cons.wrapping_add(qp.pushed as u16)), ..s }
        });
        let head0 = before.head_wqe.unwrap();
        let mut p = Psn::new(before.una);
        let mut rd = 0u8;
        for i in 0..r.below(4) {
            let k = r.below(4);
            let index = head0.wrapping_add(i as u16);
            let wr_id = r.next();
            let e = if k == 3 {
                // a flush job's (or a refusal's) entry: no PSN, its status in LEN
                let st = [WcStatus::WrFlushErr, WcStatus::LocLenErr, WcStatus::LocQpOpErr][r.below(3) as usize];
                let len = u32::from(wc_status(st));
                Entry {
                    index,
                    first: p.value(),
                    last: p.sub(1).value(),
                    kind: ENT_KIND_REFUSED,
                    signaled: r.chance(50),
                    wr_id,
                    len,
                }
            } else {
                let kind = [SOP_RDMA_WRITE, SOP_SEND, SOP_RDMA_READ][k as usize];
                let n = 1 + r.below(3) as u32;
                let e = Entry {
                    index,
                    first: p.value(),
                    last: p.add(n - 1).value(),
                    kind,
                    signaled: r.chance(50),
                    wr_id,
                    len: r.below(5000) as u32,
                };
                p = p.add(n);
                rd += (kind == SOP_RDMA_READ) as u8;
                e
            };
            let (status, opcode, byte_len) = match e.kind {
                ENT_KIND_REFUSED => (e.len as u8, WcOpcode::Send, 0),
                SOP_RDMA_WRITE => (wc_status(WcStatus::WrFlushErr), WcOpcode::RdmaWrite, e.len),
                SOP_RDMA_READ => (wc_status(WcStatus::WrFlushErr), WcOpcode::RdmaRead, e.len),
                _ => (wc_status(WcStatus::WrFlushErr), WcOpcode::Send, e.len),
            };
            self.cqes.push(Cqe {
                cq: qp.cq,
                wr_id,
                status,
                opcode: wc_opcode(opcode),
                byte_len,
                qpn: qp.qpn,
                wqe_index: index,
            });
            pushes.push((qp.qpn, e));
        }
        let n = pushes.iter().filter(|x| x.0 == qp.qpn).count() as u16;
        let moved = p.value() != before.una;
        let timer = r.chance(30);
        let after = CompState {
            una: p.value(),
            head_first: if n > 0 { p.value() } else { before.head_first },
            head_wqe: Some(head0.wrapping_add(n)),
            rd_done: (before.rd_done + rd) % 32,
            retries: if moved { qp.retry_cnt } else { before.retries },
            rnr_retries: if moved { qp.rnr_retry } else { before.rnr_retries },
            rnr_wait: before.rnr_wait && !moved && !timer,
            ..before
        };
        let expect = Expect {
            verdict: COMP_DROP,
            implied: false,
            action: CACT_NONE,
            action_psn: 0,
            timer: 0,
            status: 0,
            state: after,
            popped: 0,
            una_before: before.una,
            rnr_before: before.rnr_wait,
            stale: false,
            place: None,
        };
        qp.err_state = Some(after);
        let resp_err = r.chance(40);
        if timer {
            let wire = (TIMER_OPCODE as u8, before.una, TIMER_SYNDROME as u8);
            self.cases.push(Case {
                timer: true,
                quiet: true,
                resp_err,
                ..qp_case(qp, wire, p.value(), pushes, expect)
            });
        } else {
            let wire = (BTH_RC_ACKNOWLEDGE as u8, before.una.wrapping_add(r.below(8) as u32) & M24, AETH_ACK as u8);
            self.cases.push(Case { quiet: true, resp_err, ..qp_case(qp, wire, p.value(), pushes, expect) });
        }
    }

    /// The CQEs of completions of WQEs in the inflight list (the flush of
    /// WQEs never sent is the send ring's, not this block's).
    fn sent_cqes(cqes: &mut Vec<Cqe>, qp: &Qp, comps: &[rnic_proto::rc::Completion]) {
        let sent = comps.iter().filter(|c| qp.by_wr_id[&c.wr_id] < qp.pushed).count();
        for c in comps.iter().take(sent) {
            let seq = qp.by_wr_id[&c.wr_id];
            cqes.push(Cqe {
                cq: qp.cq,
                wr_id: c.wr_id,
                status: wc_status(c.status),
                opcode: wc_opcode(c.opcode),
                byte_len: c.byte_len,
                qpn: qp.qpn,
                wqe_index: qp.sq_cons.wrapping_add(seq as u16),
            });
        }
    }

    /// A retransmit timer's expiry for QP `qi`: the model's `timeout()`
    /// (a resend from UNA spending a retry, RETRY_EXC_ERR when none is
    /// left, nothing when nothing is outstanding).
    fn timer_case(&mut self, qi: usize, rnr: bool) {
        let pushes = std::mem::take(&mut self.pending_pushes);
        let qp = &mut self.qps[qi];
        let v = qp.model.completer_view();
        let (una, se) = (v.una, v.sent_end);
        let before = Self::state_of(qp);
        let error_before = qp.model.is_error();
        let resent = if rnr { qp.model.rnr_timeout() } else { qp.model.timeout() };
        let comps = qp.model.take_completions();
        let verdict = if error_before {
            COMP_DROP
        } else if una == se {
            COMP_GHOST
        } else {
            COMP_NAK_SEQ
        };
        let mut expect = Expect {
            verdict,
            implied: false,
            action: if resent { CACT_RESEND } else { CACT_NONE },
            action_psn: una.value(),
            timer: (TIMER_SYNDROME & 0x1f) as u8,
            status: 0,
            state: before,
            popped: 0,
            una_before: una.value(),
            rnr_before: before.rnr_wait,
            stale: false,
            place: None,
        };
        if !error_before && qp.model.is_error() {
            // retries spent: the block takes the record as a fatal NAK
            expect.verdict = COMP_NAK_FATAL;
            expect.action = CACT_ERROR;
            expect.status = WCS_RETRY_EXC_ERR as u8;
        }
        Self::sent_cqes(&mut self.cqes, qp, &comps);
        let after = Self::state_of(qp);
        expect.popped = after_head(&after, &before) as usize;
        expect.state = after;
        let wire = (TIMER_OPCODE as u8, una.value(), TIMER_SYNDROME as u8);
        self.cases.push(Case { timer: true, rnr_timer: rnr, ..qp_case(qp, wire, se.value(), pushes, expect) });
    }
}

/// A case for QP `qp` with the record's (opcode, PSN, syndrome) `wire`, its
/// context's fields and SENT_END `sent_end`; no payload, not a timer's.
fn qp_case(qp: &Qp, wire: (u8, u32, u8), sent_end: u32, pushes: Vec<(u32, Entry)>, expect: Expect) -> Case {
    Case {
        qpn: qp.qpn,
        opcode: wire.0,
        psn: wire.1,
        syndrome: wire.2,
        sq_psn: qp.start,
        sq_cons: qp.sq_cons,
        send_cq: qp.cq,
        retry_cnt: qp.retry_cnt,
        rnr_retry: qp.rnr_retry,
        req_started: qp.pushed > 0,
        sent_end,
        pmtu: qp.model.config().pmtu.bytes().trailing_zeros() as u8 - 7,
        plen: 0,
        lane: 0,
        orig: 0,
        pushes,
        expect,
        timer: false,
        rnr_timer: false,
        quiet: false,
        resp_err: false,
    }
}

fn after_head(after: &CompState, before: &CompState) -> u16 {
    match (after.head_wqe, before.head_wqe) {
        (Some(a), Some(b)) => a.wrapping_sub(b),
        _ => 0,
    }
}

/// Memory the completer never reaches for ACKs.
struct NoMemory;

impl rnic_proto::rc::Memory for NoMemory {
    fn check(&self, _: u32, _: u32, _: u64, _: u64, _: rnic_proto::rc::Access) -> Result<(), rnic_proto::rc::KeyError> {
        Ok(())
    }
    fn read(&self, _: u64, out: &mut [u8]) -> Result<(), rnic_proto::rc::MemFault> {
        out.fill(0);
        Ok(())
    }
    fn write(&mut self, _: u64, _: &[u8]) -> Result<(), rnic_proto::rc::MemFault> {
        Ok(())
    }
}

/// The receive parser's header for a response (`RX_HDR_BITS` as 32-bit words).
pub fn pack_header(c: &Case) -> Vec<u32> {
    let mut words = vec![0u32; RX_HDR_BITS / 32];
    if c.timer {
        // a timer's record: the flag, the opcode and syndrome, the QP; a PSN the block must not use
        words[RXF_TIMER / 32] |= 1 << (RXF_TIMER % 32);
        if c.rnr_timer {
            words[RXF_TIMER_RNR / 32] |= 1 << (RXF_TIMER_RNR % 32);
        }
    }
    let psn = if c.timer { !c.psn & 0xff_ffff } else { c.psn };
    let mut top: usize = RX_HDR_FIELDS.iter().map(|f| f.1).sum();
    for (name, width) in RX_HDR_FIELDS {
        top -= width;
        let v: u64 = match *name {
            "bth.opcode" => c.opcode.into(),
            "bth.destqp" => c.qpn.into(),
            "bth.psn" => psn.into(),
            "has.aeth" => (c.opcode != BTH_RC_READ_RESP_MIDDLE as u8).into(),
            "has.atomicacketh" => (c.opcode == BTH_RC_ATOMIC_ACK as u8).into(),
            "aeth.syndrome" => c.syndrome.into(),
            "atomicacketh.origremdt" => c.orig,
            "payload_len" => c.plen.into(),
            "payload_lane" => (c.lane & 63).into(),
            _ => 0,
        };
        for k in 0..*width {
            if k < 64 && (v >> k) & 1 == 1 {
                words[(top + k) / 32] |= 1 << ((top + k) % 32);
            }
        }
    }
    words
}

/// The `qpc` entry for the fields the block reads.
pub fn pack_qpc(c: &Case) -> Vec<u32> {
    let mut e = [0u8; qpc::SIZE];
    qpc::SQ_PSN.set(&mut e, c.sq_psn).unwrap();
    qpc::SQ_CONS.set(&mut e, c.sq_cons).unwrap();
    qpc::SEND_CQ.set(&mut e, c.send_cq).unwrap();
    qpc::RETRY_CNT.set(&mut e, c.retry_cnt).unwrap();
    qpc::RNR_RETRY.set(&mut e, c.rnr_retry).unwrap();
    qpc::PMTU.info().write_raw(&mut e, c.pmtu.into()).unwrap();
    let (base, log, pd) = sq_of(c.qpn);
    qpc::SQ_BASE.set(&mut e, base).unwrap();
    qpc::SQ_LOG_SIZE.set(&mut e, log).unwrap();
    qpc::PD.set(&mut e, pd).unwrap();
    words_of(&e)
}

/// A QP's send ring and PD as its `qpc` gives them (the placement request
/// carries them to `comp_read`).
pub fn sq_of(qpn: u32) -> (u64, u8, u32) {
    (0x1_0000_0000 + u64::from(qpn) * 0x1_0000, (qpn % 7 + 4) as u8, (qpn * 3 + 1) & 0xff_ffff)
}

/// A placement request as it left `m_place`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaceReq {
    pub qpn: u32,
    pub index: u16,
    pub fresh: bool,
    pub offset: u32,
    pub plen: u16,
    pub sq: (u64, u8, u32),
}

/// The `qps` entry: the store's bytes with the requester's from the case.
pub fn pack_qps(c: &Case, store: Option<&Vec<u8>>) -> Vec<u32> {
    let mut e = store.cloned().unwrap_or_else(|| vec![0; qps::SIZE]);
    qps::REQ_STARTED.set(&mut e, c.req_started).unwrap();
    qps::SENT_END.set(&mut e, if c.req_started { c.sent_end } else { 0x5a5a5a }).unwrap();
    if c.resp_err {
        qps::COMP_ERROR.set(&mut e, false).unwrap();
        qps::RESP_STARTED.set(&mut e, true).unwrap();
        qps::IN_PROGRESS.set(&mut e, qps::IN_PROGRESS_ERROR).unwrap();
    }
    words_of(&e)
}

pub fn words_of(b: &[u8]) -> Vec<u32> {
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
    pub implied: bool,
    pub action: u64,
    pub action_psn: u32,
    pub timer: u8,
    pub status: u8,
    pub write: bool,
    pub wr_mask: u64,
    pub wr_data: Vec<u8>,
    pub wake: bool,
    pub expiry: bool,
    pub arm: bool,
    pub ack_timeout: u8,
    pub stale: bool,
    pub place: bool,
    pub atomic: bool,
    pub last: bool,
    pub wqe_index: u16,
    pub offset: u32,
    pub plen: u16,
    pub lane: u8,
    pub orig: u64,
}

/// The inflight table's model: per-QP lists, answers in command order.
#[derive(Default)]
pub struct InflightModel {
    lists: HashMap<u32, VecDeque<Entry>>,
    /// Answers due (cycle, the entry or empty, `is_tail`), in command order.
    pub answers: VecDeque<(u64, Option<Entry>, bool)>,
    pub commands: u64,
    /// Per QP, the entry its last POP took and whether more stayed behind
    /// it (what a read-ahead hint may name).
    pub last_pop: HashMap<u32, (Entry, bool)>,
}

impl InflightModel {
    pub fn push(&mut self, qpn: u32, e: Entry) {
        self.lists.entry(qpn & ((1 << INFLIGHT_QPN_BITS) - 1)).or_default().push_back(e);
    }
    /// A HEAD or POP taken at `now`.
    pub fn command(&mut self, now: u64, op: u64, qpn: u32) {
        self.commands += 1;
        let l = self.lists.entry(qpn).or_default();
        // `is_tail`: the entry answered has no link (the table's rule: a
        // HEAD of a list of one, a POP of its last entry, and empty)
        let tail = l.len() <= 1;
        let e = match op {
            INFLIGHT_HEAD => l.front().copied(),
            INFLIGHT_POP => {
                let e = l.pop_front();
                if let Some(e) = e {
                    self.last_pop.insert(qpn, (e, !l.is_empty()));
                }
                e
            }
            _ => panic!("cycle {now}: inflight command {op} not expected"),
        };
        self.answers.push_back((now + INFLIGHT_LATENCY, e, tail));
    }
}

/// The caller around the block and the inflight table.
pub struct CompBench<M: Model> {
    pub sim: Clocked<M>,
    pub rng: Rng,
    /// Percent of cycles a packet is offered, a command taken, an answer
    /// offered (when due), a CQE taken, a record taken.
    pub p_offer: u64,
    pub p_cmd: u64,
    pub p_answer: u64,
    pub p_cqe: u64,
    pub p_take: u64,
    /// Percent of cycles a placement request is taken; cycles from it taken
    /// to its verdict (always `ok`: the model's memory accepts every key).
    pub p_place: u64,
    pub place_delay: u64,
    place_due: Option<u64>,
    pub place_reqs: Vec<PlaceReq>,
    queue: VecDeque<Case>,
    pending: VecDeque<Case>,
    cqes: VecDeque<Cqe>,
    store: HashMap<u32, Vec<u8>>,
    offered: Option<(Vec<u32>, Vec<u32>, Vec<u32>)>,
    pub inflight: InflightModel,
    /// Cycle each packet was taken, and each record.
    pub taken: Vec<u64>,
    pub records: Vec<Record>,
    pub cqes_seen: u64,
    /// Read-ahead hints seen on `m_hint` (each checked against the POPs).
    pub hints: u64,
    ports: HashMap<&'static str, usize>,
}

const PORTS: &[&str] = &[
    "s_pkt.hdr",
    "s_pkt.qpc",
    "s_pkt.qps",
    "s_pkt.valid",
    "s_pkt.ready",
    "m_inf.op",
    "m_inf.qpn",
    "m_inf.valid",
    "m_inf.ready",
    "s_inf.data",
    "s_inf.empty",
    "s_inf.is_tail",
    "s_inf.valid",
    "s_inf.ready",
    "m_cqe.cq",
    "m_cqe.wr_id",
    "m_cqe.status",
    "m_cqe.opcode",
    "m_cqe.byte_len",
    "m_cqe.qpn",
    "m_cqe.wqe_index",
    "m_cqe.valid",
    "m_cqe.ready",
    "m_dec.qpn",
    "m_dec.psn",
    "m_dec.verdict",
    "m_dec.implied",
    "m_dec.action",
    "m_dec.action_psn",
    "m_dec.timer",
    "m_dec.status",
    "m_dec.write",
    "m_dec.wr_mask",
    "m_dec.wr_data",
    "m_dec.wake",
    "m_dec.expiry",
    "m_dec.arm",
    "m_dec.ack_timeout",
    "m_dec.stale",
    "m_dec.place",
    "m_dec.atomic",
    "m_dec.last",
    "m_dec.wqe_index",
    "m_dec.offset",
    "m_dec.plen",
    "m_dec.lane",
    "m_dec.orig",
    "m_dec.valid",
    "m_dec.ready",
    "m_place.qpn",
    "m_place.index",
    "m_place.fresh",
    "m_place.offset",
    "m_place.plen",
    "m_place.sq_base",
    "m_place.sq_log",
    "m_place.pd",
    "m_place.valid",
    "m_place.ready",
    "s_placed.ok",
    "s_placed.valid",
    "m_hint.qpn",
    "m_hint.index",
    "m_hint.sq_base",
    "m_hint.sq_log",
    "m_hint.valid",
];

impl<M: Model> CompBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let ports = PORTS.iter().map(|&p| (p, dut.port(p))).collect();
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        CompBench {
            sim,
            rng: Rng(seed | 1),
            p_offer: 100,
            p_cmd: 100,
            p_answer: 100,
            p_cqe: 100,
            p_take: 100,
            p_place: 100,
            place_delay: 2,
            place_due: None,
            place_reqs: vec![],
            queue: VecDeque::new(),
            pending: VecDeque::new(),
            cqes: VecDeque::new(),
            store: HashMap::new(),
            offered: None,
            inflight: InflightModel::default(),
            taken: vec![],
            records: vec![],
            cqes_seen: 0,
            hints: 0,
            ports,
        }
    }

    pub fn push(&mut self, script: Script) {
        self.queue.extend(script.cases);
        self.cqes.extend(script.cqes);
    }

    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.pending.is_empty() && self.offered.is_none()
    }

    fn p(&self, name: &str) -> usize {
        self.ports[name]
    }

    /// One cycle: offer, answer, take, check, clock.
    pub fn step(&mut self) {
        let now = self.sim.cycle();
        if self.offered.is_none()
            && !self.queue.is_empty()
            && (!self.queue[0].quiet || self.pending.is_empty())
            && self.rng.chance(self.p_offer)
        {
            let c = &self.queue[0];
            for (q, e) in &c.pushes {
                self.inflight.push(*q, *e);
            }
            let qps_w = pack_qps(c, self.store.get(&c.qpn));
            self.offered = Some((pack_header(c), pack_qpc(c), qps_w));
        }
        let cmd_ready = self.rng.chance(self.p_cmd);
        let cqe_ready = self.rng.chance(self.p_cqe);
        let take = self.rng.chance(self.p_take);
        let place_ready = self.place_due.is_none() && self.rng.chance(self.p_place);
        let placed = self.place_due == Some(now);
        let answer = self.inflight.answers.front().filter(|a| a.0 <= now).map(|a| (a.1, a.2));
        let offer_answer = answer.is_some() && self.rng.chance(self.p_answer);
        let (hdr, qpc_w, qps_w) = self.offered.clone().unwrap_or_else(|| (vec![0; 32], vec![0; 32], vec![0; 16]));
        let ports = [
            "s_pkt.hdr",
            "s_pkt.qpc",
            "s_pkt.qps",
            "s_pkt.valid",
            "m_inf.ready",
            "s_inf.data",
            "s_inf.empty",
            "s_inf.valid",
            "m_cqe.ready",
            "m_dec.ready",
        ]
        .map(|n| self.p(n));
        let d = &mut self.sim.dut;
        d.set_words(ports[0], &hdr);
        d.set_words(ports[1], &qpc_w);
        d.set_words(ports[2], &qps_w);
        d.set_at(ports[3], self.offered.is_some() as u64);
        d.set_at(ports[4], cmd_ready as u64);
        let entry = answer.and_then(|a| a.0);
        let is_tail = answer.is_some_and(|a| a.1);
        let data = entry.map(|e| e.words()).unwrap_or_else(|| vec![0xdead_beef; INFLIGHT_ENTRY_BITS.div_ceil(32)]);
        d.set_words(ports[5], &data);
        d.set_at(ports[6], (offer_answer && entry.is_none()) as u64);
        d.set_at(ports[7], offer_answer as u64);
        d.set_at(ports[8], cqe_ready as u64);
        d.set_at(ports[9], take as u64);
        let pl = ["m_place.ready", "s_placed.valid", "s_placed.ok"].map(|n| self.ports[n]);
        let d = &mut self.sim.dut;
        d.set_at(pl[0], place_ready as u64);
        d.set_at(pl[1], placed as u64);
        d.set_at(pl[2], 1);
        d.set_at(self.ports["s_inf.is_tail"], is_tail as u64);
        if placed {
            self.place_due = None;
        }
        self.sim.settle();
        let g = |s: &Self, n: &str| s.sim.dut.get_at(s.ports[n]);
        if self.offered.is_some() && g(self, "s_pkt.ready") == 1 {
            self.offered = None;
            self.pending.push_back(self.queue.pop_front().unwrap());
            self.taken.push(now);
        }
        if place_ready && g(self, "m_place.valid") == 1 {
            let req = PlaceReq {
                qpn: g(self, "m_place.qpn") as u32,
                index: g(self, "m_place.index") as u16,
                fresh: g(self, "m_place.fresh") == 1,
                offset: g(self, "m_place.offset") as u32,
                plen: g(self, "m_place.plen") as u16,
                sq: (g(self, "m_place.sq_base"), g(self, "m_place.sq_log") as u8, g(self, "m_place.pd") as u32),
            };
            let c = self.pending.front().unwrap_or_else(|| panic!("cycle {now}: a placement with no packet"));
            let (wqe, offset) = c.expect.place.unwrap_or_else(|| panic!("cycle {now}: a placement not expected"));
            // an atomic ACK places its original value: 8 bytes, its WQE read fresh
            let atomic = c.opcode == BTH_RC_ATOMIC_ACK as u8;
            let fresh = atomic || c.opcode == BTH_RC_READ_RESP_FIRST as u8 || c.opcode == BTH_RC_READ_RESP_ONLY as u8;
            let plen = if atomic { ATOMIC_LEN as u16 } else { c.plen };
            let want = PlaceReq { qpn: c.qpn, index: wqe, fresh, offset, plen, sq: sq_of(c.qpn) };
            assert_eq!(req, want, "cycle {now}: placement request");
            self.place_reqs.push(req);
            self.place_due = Some(now + self.place_delay);
        }
        if cmd_ready && g(self, "m_inf.valid") == 1 {
            let (op, qpn) = (g(self, "m_inf.op"), g(self, "m_inf.qpn") as u32);
            self.inflight.command(now, op, qpn);
        }
        if offer_answer && g(self, "s_inf.ready") == 1 {
            self.inflight.answers.pop_front();
        }
        if cqe_ready && g(self, "m_cqe.valid") == 1 {
            let got = Cqe {
                cq: g(self, "m_cqe.cq") as u32,
                wr_id: g(self, "m_cqe.wr_id"),
                status: g(self, "m_cqe.status") as u8,
                opcode: g(self, "m_cqe.opcode") as u8,
                byte_len: g(self, "m_cqe.byte_len") as u32,
                qpn: g(self, "m_cqe.qpn") as u32,
                wqe_index: g(self, "m_cqe.wqe_index") as u16,
            };
            let want = self.cqes.pop_front().unwrap_or_else(|| panic!("cycle {now}: a CQE not expected: {got:x?}"));
            assert_eq!(got, want, "cycle {now}: CQE {}", self.cqes_seen);
            self.cqes_seen += 1;
        }
        if g(self, "m_hint.valid") == 1 {
            self.check_hint(now);
        }
        if take && g(self, "m_dec.valid") == 1 {
            let rec = self.read_record(now);
            let case = self.pending.pop_front().unwrap_or_else(|| panic!("cycle {now}: a record with no packet"));
            check(&case, &rec, now);
            if rec.write {
                let e = self.store.entry(rec.qpn).or_insert_with(|| vec![0; qps::SIZE]);
                for (b, byte) in e.iter_mut().enumerate() {
                    if (rec.wr_mask >> b) & 1 == 1 {
                        *byte = rec.wr_data[b];
                    }
                }
            }
            self.records.push(rec);
        }
        self.sim.tick();
    }

    /// A read-ahead hint names the WQE after the READ or atomic its QP's
    /// last POP completed, with more entries behind it (so that WQE was
    /// sent and is in the SQ), and the QP's SQ.
    fn check_hint(&mut self, now: u64) {
        let g = |n: &str| self.sim.dut.get_at(self.ports[n]);
        let (qpn, index) = (g("m_hint.qpn") as u32, g("m_hint.index") as u16);
        let key = qpn & ((1 << INFLIGHT_QPN_BITS) - 1);
        let (e, more) = self
            .inflight
            .last_pop
            .get(&key)
            .unwrap_or_else(|| panic!("cycle {now}: a hint for QP {qpn:#x} before any POP"));
        assert!(
            matches!(e.kind, SOP_RDMA_READ | SOP_CMP_SWAP | SOP_FETCH_ADD),
            "cycle {now}: a hint after a POP of kind {}",
            e.kind
        );
        assert!(*more, "cycle {now}: a hint for QP {qpn:#x} with nothing in flight behind WQE {}", e.index);
        assert_eq!(index, e.index.wrapping_add(1), "cycle {now}: the hint's SQ index");
        let (base, log, _) = sq_of(qpn);
        assert_eq!((g("m_hint.sq_base"), g("m_hint.sq_log") as u8), (base, log), "cycle {now}: the hint's SQ");
        self.hints += 1;
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
            implied: g("m_dec.implied") == 1,
            action: g("m_dec.action"),
            action_psn: g("m_dec.action_psn") as u32,
            timer: g("m_dec.timer") as u8,
            status: g("m_dec.status") as u8,
            write: g("m_dec.write") == 1,
            wr_mask: g("m_dec.wr_mask"),
            wr_data: bytes_of(&w),
            wake: g("m_dec.wake") == 1,
            expiry: g("m_dec.expiry") == 1,
            arm: g("m_dec.arm") == 1,
            ack_timeout: g("m_dec.ack_timeout") as u8,
            stale: g("m_dec.stale") == 1,
            place: g("m_dec.place") == 1,
            atomic: g("m_dec.atomic") == 1,
            last: g("m_dec.last") == 1,
            wqe_index: g("m_dec.wqe_index") as u16,
            offset: g("m_dec.offset") as u32,
            plen: g("m_dec.plen") as u16,
            lane: g("m_dec.lane") as u8,
            orig: g("m_dec.orig"),
        }
    }

    /// Run until every case is checked and every CQE seen (panics after `limit` cycles).
    pub fn run(&mut self, limit: u64) {
        let start = self.sim.cycle();
        while !self.idle() || !self.cqes.is_empty() {
            assert!(
                self.sim.cycle() - start < limit,
                "no progress: {} packets, {} CQEs left",
                self.queue.len() + self.pending.len(),
                self.cqes.len()
            );
            self.step();
        }
        for _ in 0..20 {
            self.step();
        }
        assert!(self.inflight.answers.is_empty(), "inflight answers left untaken");
    }
}

/// A record against the model's expectation.
pub fn check(c: &Case, r: &Record, now: u64) {
    let e = &c.expect;
    let ctx =
        format!("cycle {now}: QP {:#x} PSN {:#x} opcode {:#04x} syndrome {:#04x}", c.qpn, c.psn, c.opcode, c.syndrome);
    assert_eq!((r.qpn, r.psn), (c.qpn, c.psn), "{ctx}: record of another packet");
    assert_eq!(r.verdict, e.verdict, "{ctx}: verdict");
    assert_eq!(r.expiry, c.timer, "{ctx}: a timer's record");
    assert_eq!(r.implied, e.implied, "{ctx}: implied NAK");
    assert_eq!(r.action, e.action, "{ctx}: action");
    match e.action {
        CACT_RESEND => assert_eq!(r.action_psn, e.action_psn, "{ctx}: go-back-N PSN"),
        CACT_RNR_WAIT => assert_eq!((r.action_psn, r.timer), (e.action_psn, e.timer), "{ctx}: RNR wait"),
        CACT_ERROR => assert_eq!(r.status, e.status, "{ctx}: error status"),
        _ => {}
    }
    if e.verdict == COMP_RD_RESP {
        assert_eq!(r.stale, e.stale, "{ctx}: stale READ response");
        assert_eq!(r.place, e.place.is_some(), "{ctx}: placed");
        if let Some((wqe, offset)) = e.place {
            let atomic = c.opcode == BTH_RC_ATOMIC_ACK as u8;
            let last = atomic || c.opcode == BTH_RC_READ_RESP_LAST as u8 || c.opcode == BTH_RC_READ_RESP_ONLY as u8;
            assert_eq!(
                (r.wqe_index, r.offset, r.plen, r.lane, r.atomic, r.last),
                (wqe, offset, c.plen, c.lane & 63, atomic, last),
                "{ctx}: placement"
            );
            if atomic {
                assert_eq!(r.orig, c.orig, "{ctx}: the atomic's original value");
            }
        }
    }
    let changes = (COMP_ACK..=COMP_RD_RESP).contains(&e.verdict);
    if changes {
        assert!(r.write, "{ctx}: the state is written");
    }
    if !r.write {
        assert!(!r.wake, "{ctx}: a wake without a write");
        return;
    }
    assert_eq!(r.wr_mask, COMP_WR_MASK, "{ctx}: byte mask");
    let s = &e.state;
    let d = &r.wr_data;
    assert!(qps::COMP_STARTED.get(d).unwrap(), "{ctx}: started");
    assert_eq!(qps::COMP_ERROR.get(d).unwrap(), s.error, "{ctx}: COMP_ERROR");
    assert_eq!(qps::UNA.get(d).unwrap(), s.una, "{ctx}: UNA");
    // a wake when UNA moved (the window has room), to serve a resend, or in
    // error (the requester's flush grants take the WQEs never sent)
    let wake = s.una != e.una_before || e.action == CACT_RESEND || (c.timer && e.rnr_before) || s.error;
    assert_eq!(r.wake, wake, "{ctx}: the wake (UNA moved from {:#x}, a resend, an error)", e.una_before);
    // the ACK timer restarts when UNA moved and PSNs are still outstanding
    let sent_end = if c.req_started { c.sent_end } else { e.una_before };
    let arm = s.una != e.una_before && s.una != sent_end && e.action != CACT_ERROR && !s.error;
    assert_eq!(r.arm, arm, "{ctx}: the ACK timer's arming");
    assert_eq!(qps::HEAD_FIRST_PSN.get(d).unwrap(), s.head_first, "{ctx}: HEAD_FIRST_PSN");
    if let Some(h) = s.head_wqe {
        assert_eq!(qps::HEAD_WQE.get(d).unwrap(), h, "{ctx}: HEAD_WQE");
    }
    let retry = qps::RETRY_VALID.get(d).unwrap().then(|| qps::RETRY_PSN.get(d).unwrap());
    assert_eq!(retry, s.retry, "{ctx}: RETRY_VALID / RETRY_PSN");
    assert_eq!(qps::IN_READ_RESP.get(d).unwrap(), s.in_read, "{ctx}: IN_READ_RESP");
    assert_eq!(qps::RD_ATOMIC_DONE.get(d).unwrap(), s.rd_done, "{ctx}: RD_ATOMIC_DONE");
    assert_eq!(qps::RETRIES_LEFT.get(d).unwrap(), s.retries, "{ctx}: RETRIES_LEFT");
    assert_eq!(qps::RNR_RETRIES_LEFT.get(d).unwrap(), s.rnr_retries, "{ctx}: RNR_RETRIES_LEFT");
    assert_eq!(qps::RNR_WAIT.get(d).unwrap(), s.rnr_wait, "{ctx}: RNR_WAIT");
}
