//! Bench of the requester's transmit path (`ReqTx`, catalog `req_tx`):
//! `ReqFetch` -> `ReqGen` -> `ReqPayload` -> `PayloadGather` as one block,
//! with the rest of the core modelled in Rust:
//!
//! * the scheduler: a list of QPs with work, a grant for its head, the QP
//!   put back on a `done` with `more`;
//! * the `qpc` and `qps` caches: [`CachePort`]s of `req_fetch`'s bench
//!   (answers after random latencies, out of order), the write-back applied
//!   by its byte mask;
//! * the two DMA read clients ([`ReadClient`]): the WQE fetches from the
//!   send rings, the payload from host memory ([`host_byte`]), each command
//!   answered in order with address-aligned beats after a random latency;
//! * the translation unit ([`XlatePort`]): every fragment answered in order
//!   with `rnic_contract::mr::translate` over an [`MrWorld`];
//! * `TxArb` source 0: headers and payload beats taken with random stalls;
//!   or, with [`TxBench::chain`] set, the arbiter and the frame builder
//!   themselves ([`TxChain`]), every frame decoded and checked.
//!
//! The reference is `rnic_proto::rc::Requester`, one per QP, given the same
//! posts (the payload bytes read from host memory through the world's
//! translation): every header out must carry the fields of the model's
//! packet (`req_gen::header_fields`) and every payload its bytes, in the
//! wire lanes `TxBuild` takes (`tx::payload_beats`), in order per QP.
//! Between rounds the bench's completer acknowledges everything the block
//! sent (qps UNA and RD_ATOMIC_DONE), so the window and the READ/atomic
//! limit stop the block only for a while; the model has no limits.

use crate::mr::{expected_beats, MrWorld, RespBeat};
use crate::req_fetch::{apply_masked, rd, wr, CachePort};
use crate::req_gen::{header_fields, random_path, QpFields};
use crate::tx::{payload_beats, tx_field, tx_payload_lane};
use crate::tx_chain::TxChain;
use rnic_contract::codes::{QpState, SendOpcode};
use rnic_contract::layouts::{qpc, qps, send_wqe, sge};
use rnic_contract::mr::{Access, MrRequest};
use rnic_hw::transport::{REQ_ACK_REQ_EVERY, REQ_FETCH_WB_ID, REQ_FETCH_WQE_BYTES};
use rnic_hw::wire::TX_HDR_BITS;
use rnic_proto::rc::requester::{Requester, RequesterConfig, SendOp, SendWqe};
use rnic_proto::rc::{Remote, Sge};
use rnic_proto::{Pmtu, Psn};
use rnic_sim::axis::Rng;
use rnic_sim::dma_port::{aligned_beats, aligned_keep};
use rnic_sim::frames::Beat512;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, HashSet, VecDeque};

/// Read commands a client may have outstanding (the DMA engine's tags per client).
pub const DMA_TAGS: usize = 28;
/// log2 of each send ring's WQEs in the bench.
pub const SQ_LOG: u64 = 8;

/// Host memory: the byte at IOVA `a` (a hash of the address).
pub fn host_byte(a: u64) -> u8 {
    (a.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8 ^ (a as u8)
}

fn words16(b: &[u8; 64]) -> [u32; 16] {
    std::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

/// A data beat of a read client: (tdata, tkeep, tlast).
type DataBeat = ([u32; 16], u64, bool);

/// A DMA engine read client as its user sees it: commands (`addr`, `len`)
/// taken when `ready` (at most [`DMA_TAGS`] outstanding), each answered in
/// command order after a latency with address-aligned beats (the byte at
/// `a` in lane `a % 64`, lanes outside the command's bytes junk, `tlast` on
/// its last beat), offered with valid stalls.
pub struct ReadClient {
    cmd: [usize; 4],
    data: [usize; 6],
    reads: VecDeque<(u64, VecDeque<DataBeat>)>,
    on: bool,
    take: bool,
    /// Cycles from a command taken to its first beat offered: (min, spread).
    pub lat: (u64, u64),
    /// Percent of cycles `ready` is high / a due beat is offered.
    pub p_cmd: u64,
    pub p_data: u64,
    /// (cycle, addr, len) of every command taken; cycles of beats taken.
    pub cmds: Vec<(u64, u64, u64)>,
    pub beat_cycles: Vec<u64>,
}

impl ReadClient {
    pub fn new<M: Model + ?Sized>(d: &M, cmd: &str, data: &str) -> Self {
        let c = |n: &str| d.port(&format!("{cmd}.{n}"));
        let s = |n: &str| d.port(&format!("{data}.{n}"));
        ReadClient {
            cmd: [c("addr"), c("len"), c("valid"), c("ready")],
            data: [s("tdata"), s("tkeep"), s("tlast"), s("tuser"), s("tvalid"), s("tready")],
            reads: VecDeque::new(),
            on: false,
            take: false,
            lat: (20, 0),
            p_cmd: 100,
            p_data: 100,
            cmds: vec![],
            beat_cycles: vec![],
        }
    }

    pub fn idle(&self) -> bool {
        self.reads.is_empty()
    }

    pub fn drive<M: Model + ?Sized>(&mut self, d: &mut M, rng: &mut Rng, now: u64) {
        self.take = self.reads.len() < DMA_TAGS && rng.chance(self.p_cmd);
        d.set_at(self.cmd[3], self.take as u64);
        if !self.on && self.reads.front().is_some_and(|r| r.0 <= now) && rng.chance(self.p_data) {
            self.on = true;
        }
        let (w, k, l) = match self.reads.front() {
            Some(r) if self.on => r.1[0],
            _ => ([0; 16], 0, false),
        };
        d.set_words(self.data[0], &w);
        d.set_at(self.data[1], k);
        d.set_at(self.data[2], l as u64);
        d.set_at(self.data[3], 0);
        d.set_at(self.data[4], self.on as u64);
    }

    /// After `eval`: a command taken is queued with its beats from `mem`; a beat taken leaves.
    pub fn sample<M: Model + ?Sized>(&mut self, d: &M, rng: &mut Rng, now: u64, mem: &dyn Fn(u64) -> u8) {
        if self.take && d.bit_at(self.cmd[2]) {
            let (addr, len) = (d.get_at(self.cmd[0]), d.get_at(self.cmd[1]) as usize);
            let base = addr - addr % 64;
            let n = aligned_beats(addr, len);
            let beats = (0..n)
                .map(|k| {
                    let keep = aligned_keep(addr, len, k);
                    let mut b = [0x5au8; 64];
                    for (lane, x) in b.iter_mut().enumerate() {
                        if keep >> lane & 1 == 1 {
                            *x = mem(base + 64 * k as u64 + lane as u64);
                        }
                    }
                    (words16(&b), keep, k + 1 == n)
                })
                .collect();
            let at = now + self.lat.0 + if self.lat.1 > 0 { rng.next() % (self.lat.1 + 1) } else { 0 };
            let at = at.max(self.reads.back().map_or(0, |r| r.0));
            self.reads.push_back((at, beats));
            self.cmds.push((now, addr, len as u64));
        }
        if self.on && d.bit_at(self.data[5]) {
            let r = self.reads.front_mut().unwrap();
            r.1.pop_front();
            if r.1.is_empty() {
                self.reads.pop_front();
            }
            self.on = false;
            self.beat_cycles.push(now);
        }
    }
}

/// The translation unit behind `m_xreq`/`s_xresp`: requests taken with
/// stalls, each answered in request order after a latency with the beats of
/// `translate` over the world ([`expected_beats`]).
pub struct XlatePort {
    due: VecDeque<(u64, RespBeat)>,
    on: bool,
    take: bool,
    pub lat: (u64, u64),
    pub p_req: u64,
    pub p_resp: u64,
    /// (cycle, request) of every request taken.
    pub reqs: Vec<(u64, MrRequest)>,
}

impl XlatePort {
    pub fn new() -> Self {
        XlatePort { due: VecDeque::new(), on: false, take: false, lat: (25, 0), p_req: 100, p_resp: 100, reqs: vec![] }
    }

    pub fn idle(&self) -> bool {
        self.due.is_empty()
    }

    pub fn drive<M: Model + ?Sized>(&mut self, d: &mut M, rng: &mut Rng, now: u64) {
        self.take = rng.chance(self.p_req);
        d.set("m_xreq.ready", self.take as u64);
        if !self.on && self.due.front().is_some_and(|b| b.0 <= now) && rng.chance(self.p_resp) {
            self.on = true;
        }
        let b = match self.due.front() {
            Some(b) if self.on => b.1,
            _ => (0, 0, 0, 0, false),
        };
        d.set("s_xresp.id", b.0);
        d.set("s_xresp.verdict", b.1);
        d.set("s_xresp.iova", b.2);
        d.set("s_xresp.len", b.3);
        d.set("s_xresp.last", b.4 as u64);
        d.set("s_xresp.valid", self.on as u64);
    }

    pub fn sample<M: Model + ?Sized>(&mut self, d: &M, rng: &mut Rng, now: u64, world: &MrWorld) {
        if self.take && d.get("m_xreq.valid") == 1 {
            assert_eq!(d.get("m_xreq.access"), Access::LocalRead as u64, "cycle {now}: fragment access");
            let r = MrRequest {
                key: d.get("m_xreq.key") as u32,
                pd: d.get("m_xreq.pd") as u32,
                va: d.get("m_xreq.va"),
                len: d.get("m_xreq.len") as u32,
                access: Access::LocalRead,
            };
            let at = now + self.lat.0 + if self.lat.1 > 0 { rng.next() % (self.lat.1 + 1) } else { 0 };
            let at = at.max(self.due.back().map_or(0, |b| b.0));
            for b in expected_beats(d.get("m_xreq.id"), &world.expect(&r)) {
                self.due.push_back((at, b));
            }
            self.reqs.push((now, r));
        }
        if self.on && d.get("s_xresp.ready") == 1 {
            self.due.pop_front();
            self.on = false;
        }
    }
}

impl Default for XlatePort {
    fn default() -> Self {
        Self::new()
    }
}

/// An SGE: (addr, len, lkey).
pub type SgeF = (u64, u32, u32);

/// A WQE to post.
#[derive(Clone, Debug)]
pub struct Post {
    pub opcode: SendOpcode,
    pub sges: Vec<SgeF>,
    pub solicited: bool,
    pub signaled: bool,
    pub inline: bool,
    pub imm: u32,
    pub remote_va: u64,
    pub rkey: u32,
    pub compare_add: u64,
    pub swap: u64,
    pub wr_id: u64,
}

/// One packet the block must send: its header fields and payload.
#[derive(Clone, Debug)]
pub struct WantPkt {
    pub fields: Vec<(&'static str, u128)>,
    pub payload: Vec<u8>,
    pub sq: u64,
}

/// A QP of the bench: its model beside its context.
pub struct BenchQp {
    pub qp: QpFields,
    pub model: Requester,
    pub posted: u64,
    pub want: VecDeque<WantPkt>,
}

/// The transmit path with its models.
pub struct TxBench<M: Model> {
    pub sim: Clocked<M>,
    pub rng: Rng,
    pub world: MrWorld,
    pub qpc: HashMap<u32, Vec<u8>>,
    pub qps: HashMap<u32, Vec<u8>>,
    pub wqes: HashMap<u64, Vec<u8>>,
    pub qp: HashMap<u32, BenchQp>,
    /// Cache answer latency after a request is taken: (min, spread).
    pub cache_lat: (u64, u64),
    /// Percent of cycles each output's ready / each input's valid is high.
    pub ready_pct: u64,
    pub valid_pct: u64,
    qc: CachePort,
    qs: CachePort,
    pub wqe_rd: ReadClient,
    pub pay_rd: ReadClient,
    pub xlate: XlatePort,
    /// The scheduler's list and the QPs granted and not yet done.
    pub list: VecDeque<u32>,
    pub in_service: HashSet<u32>,
    /// QPs whose WQE was refused (`m_err`): not served again.
    pub stopped: HashSet<u32>,
    /// Payloads due, in header order, and beats taken not yet matched.
    pay_want: VecDeque<Beat512>,
    pay_got: VecDeque<([u32; 16], u64, bool, u64)>,
    /// Expected xlate error records: (qpn, sq_index, verdict).
    pub want_xerr: VecDeque<(u32, u64, u64)>,
    // ---- logs
    pub grants: Vec<(u64, u32)>,
    pub hdrs: Vec<(u64, u32, u64)>,
    pub beats: Vec<u64>,
    pub errs: Vec<(u32, u64, u64)>,
    pub xerrs: Vec<(u32, u64, u64)>,
    pub pushes: u64,
    pub writes: u64,
    /// `TxArb` and `TxBuild` behind the block, instead of random takes.
    pub chain: Option<TxChain>,
}

impl<M: Model> TxBench<M> {
    pub fn new(dut: M, world: MrWorld, seed: u64) -> Self {
        let qc = CachePort::new(&dut, "m_qpc", "s_qpc");
        let qs = CachePort::new(&dut, "m_qps", "s_qps");
        let wqe_rd = ReadClient::new(&dut, "m_wqe_rd", "s_wqe_rd");
        let mut pay_rd = ReadClient::new(&dut, "m_pay_rd", "s_pay_rd");
        pay_rd.lat = (30, 0);
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        TxBench {
            sim,
            rng: Rng(seed | 1),
            world,
            qpc: HashMap::new(),
            qps: HashMap::new(),
            wqes: HashMap::new(),
            qp: HashMap::new(),
            cache_lat: (1, 0),
            ready_pct: 100,
            valid_pct: 100,
            qc,
            qs,
            wqe_rd,
            pay_rd,
            xlate: XlatePort::new(),
            list: VecDeque::new(),
            in_service: HashSet::new(),
            stopped: HashSet::new(),
            pay_want: VecDeque::new(),
            pay_got: VecDeque::new(),
            want_xerr: VecDeque::new(),
            grants: vec![],
            hdrs: vec![],
            beats: vec![],
            errs: vec![],
            xerrs: vec![],
            pushes: 0,
            writes: 0,
            chain: None,
        }
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    /// A QP in RTS: PMTU code `pmtu` (1..=5), protection domain `pd`, a random path, not started.
    pub fn add_qp(&mut self, qpn: u32, pmtu: u8, pd: u32) {
        let r = &mut self.rng;
        let mut c: Vec<u8> = (0..qpc::SIZE).map(|_| r.next() as u8).collect();
        let start = if r.chance(30) { (1 << 24) - 1 - r.next() % 100 } else { r.next() % (1 << 24) };
        wr(qpc::STATE.info(), &mut c, QpState::ReadyToSend as u64);
        wr(qpc::PMTU.info(), &mut c, pmtu as u64);
        wr(qpc::PD.info(), &mut c, pd as u64);
        wr(qpc::MAX_RD_ATOMIC.info(), &mut c, 1 + r.next() % 4);
        wr(qpc::SQ_LOG_SIZE.info(), &mut c, SQ_LOG);
        wr(qpc::SQ_BASE.info(), &mut c, 0x20_0000_0000 + (qpn as u64) * 0x10_0000);
        wr(qpc::SQ_PSN.info(), &mut c, start);
        wr(qpc::SQ_PROD.info(), &mut c, 0);
        let path = random_path(r);
        qpc::PATH.bytes_mut(&mut c).unwrap().copy_from_slice(&path);
        let qp = QpFields {
            qpn,
            dest_qpn: rd(qpc::DEST_QPN.info(), &c) as u32,
            pkey: rd(qpc::PKEY.info(), &c) as u16,
            pd,
            pmtu,
            path,
        };
        let model = Requester::new(RequesterConfig {
            dest_qp: qp.dest_qpn,
            pmtu: Pmtu::from_ibv(pmtu).unwrap(),
            start_psn: Psn::new(start as u32),
            ack_req_every: REQ_ACK_REQ_EVERY as u32,
            max_rd_atomic: 16,
            max_unacked_psns: Psn::HALF - 1,
            pd,
            retry_cnt: 7,
            rnr_retry: 7,
        });
        self.qpc.insert(qpn, c);
        self.qps.insert(qpn, vec![0u8; qps::SIZE]);
        self.qp.insert(qpn, BenchQp { qp, model, posted: 0, want: VecDeque::new() });
    }

    /// The payload bytes of an SGE list: each SGE's bytes from host memory
    /// through the world's translation (which must pass).
    pub fn sge_bytes(&self, pd: u32, sges: &[SgeF]) -> Vec<u8> {
        let mut out = vec![];
        for &(va, len, key) in sges {
            if len == 0 {
                continue;
            }
            for x in self.world.expect(&MrRequest { key, pd, va, len, access: Access::LocalRead }) {
                let (a, l) = x.expect("a translatable SGE");
                out.extend((0..l as u64).map(|i| host_byte(a + i)));
            }
        }
        out
    }

    /// Posts a WQE to the QP's ring and its model (the doorbell comes with
    /// [`Self::ring`]); `bad` marks a WQE whose translation fails (its
    /// packets are not expected, one error record is).
    pub fn post(&mut self, qpn: u32, p: &Post, bad: Option<u64>) {
        let base = rd(qpc::SQ_BASE.info(), &self.qpc[&qpn]);
        let q = &self.qp[&qpn];
        let idx = q.posted;
        assert!(idx < 1 << SQ_LOG, "the ring holds every WQE of the run");
        let mut w = vec![0u8; send_wqe::SIZE];
        wr(send_wqe::OPCODE.info(), &mut w, p.opcode as u64);
        wr(send_wqe::SOLICITED.info(), &mut w, p.solicited as u64);
        wr(send_wqe::SIGNALED.info(), &mut w, p.signaled as u64);
        wr(send_wqe::INLINE.info(), &mut w, p.inline as u64);
        wr(send_wqe::IMM.info(), &mut w, p.imm as u64);
        wr(send_wqe::REMOTE_VA.info(), &mut w, p.remote_va);
        wr(send_wqe::RKEY.info(), &mut w, p.rkey as u64);
        wr(send_wqe::COMPARE_ADD.info(), &mut w, p.compare_add);
        wr(send_wqe::SWAP.info(), &mut w, p.swap);
        wr(send_wqe::WR_ID.info(), &mut w, p.wr_id);
        wr(send_wqe::NUM_SGE.info(), &mut w, p.sges.len() as u64);
        for (i, s) in p.sges.iter().enumerate() {
            let e = &mut w[64 + 16 * i..80 + 16 * i];
            wr(sge::ADDR.info(), e, s.0);
            wr(sge::LEN.info(), e, s.1 as u64);
            wr(sge::LKEY.info(), e, s.2 as u64);
        }
        self.wqes.insert(base + REQ_FETCH_WQE_BYTES * idx, w);
        let q = self.qp.get_mut(&qpn).unwrap();
        q.posted += 1;
        if p.inline {
            return; // refused by the block: no packet, one `m_err`
        }
        let pd = q.qp.pd;
        let payload = match p.opcode {
            SendOpcode::Send | SendOpcode::SendWithImm | SendOpcode::RdmaWrite | SendOpcode::RdmaWriteWithImm
                if bad.is_none() =>
            {
                self.sge_bytes(pd, &p.sges)
            }
            _ => vec![0; p.sges.iter().map(|s| s.1 as usize).sum()],
        };
        let remote = Remote { va: p.remote_va, rkey: p.rkey };
        let imm = matches!(p.opcode, SendOpcode::SendWithImm | SendOpcode::RdmaWriteWithImm).then_some(p.imm);
        let local: Vec<Sge> = p.sges.iter().map(|s| Sge { addr: s.0, len: s.1, lkey: s.2 }).collect();
        let sop = match p.opcode {
            SendOpcode::Send | SendOpcode::SendWithImm => SendOp::Send { payload, imm },
            SendOpcode::RdmaWrite | SendOpcode::RdmaWriteWithImm => SendOp::Write { payload, remote, imm },
            SendOpcode::RdmaRead => SendOp::Read { remote, len: payload.len() as u32, local },
            SendOpcode::AtomicCmpAndSwp => {
                SendOp::CmpSwap { remote, compare: p.compare_add, swap: p.swap, local: local[0] }
            }
            SendOpcode::AtomicFetchAndAdd => SendOp::FetchAdd { remote, add: p.compare_add, local: local[0] },
        };
        let q = self.qp.get_mut(&qpn).unwrap();
        q.model.post(SendWqe { wr_id: p.wr_id, op: sop, signaled: p.signaled, fence: false }).expect("a valid WQE");
        let solicit = p.solicited
            && matches!(p.opcode, SendOpcode::Send | SendOpcode::SendWithImm | SendOpcode::RdmaWriteWithImm);
        while let Some(pk) = q.model.next_packet() {
            if bad.is_some() && !pk.payload.is_empty() {
                continue; // dropped by the block
            }
            let fields = header_fields(&pk, &q.qp, solicit);
            q.want.push_back(WantPkt { fields, payload: pk.payload.clone(), sq: idx });
        }
        if let Some(v) = bad {
            self.want_xerr.push_back((qpn, idx, v));
        }
    }

    /// The doorbell: SQ_PROD = WQEs posted; the scheduler lists the QP.
    pub fn ring(&mut self, qpn: u32) {
        let n = self.qp[&qpn].posted;
        wr(qpc::SQ_PROD.info(), self.qpc.get_mut(&qpn).unwrap(), n & 0xffff);
        if !self.list.contains(&qpn) && !self.in_service.contains(&qpn) {
            self.list.push_back(qpn);
        }
    }

    /// Every packet expected has come out, nothing is in flight.
    pub fn all_out(&self) -> bool {
        self.qp.values().all(|q| q.want.is_empty())
            && self.pay_want.is_empty()
            && self.pay_got.is_empty()
            && self.want_xerr.is_empty()
            && self.chain.as_ref().is_none_or(|c| c.idle())
    }

    fn idle(&self) -> bool {
        self.list.is_empty()
            && self.in_service.is_empty()
            && self.qc.idle()
            && self.qs.idle()
            && self.wqe_rd.idle()
            && self.pay_rd.idle()
            && self.xlate.idle()
    }

    /// One cycle: drive every model, sample, check, clock.
    pub fn step(&mut self) {
        let now = self.now();
        let (rp, vp) = (self.ready_pct, self.valid_pct);
        let r_qc = self.rng.chance(rp);
        let r_qs = self.rng.chance(rp);
        let d = &mut self.sim.dut;
        self.qc.drive(d, &mut self.rng, now, r_qc);
        self.qs.drive(d, &mut self.rng, now, r_qs);
        self.wqe_rd.drive(d, &mut self.rng, now);
        self.pay_rd.drive(d, &mut self.rng, now);
        self.xlate.drive(d, &mut self.rng, now);
        let g_valid = !self.list.is_empty() && self.rng.chance(vp);
        let mut take: Vec<bool> = (0..6).map(|_| self.rng.chance(rp)).collect();
        let d = &mut self.sim.dut;
        d.set("s_grant.valid", g_valid as u64);
        d.set("s_grant.qpn", *self.list.front().unwrap_or(&0) as u64);
        d.set("m_sdone.ready", take[0] as u64);
        d.set("m_push.ready", take[1] as u64);
        d.set("m_err.ready", take[2] as u64);
        d.set("m_arm.ready", 1);
        d.set("s_rewind.valid", 0);
        d.set("m_xerr.ready", take[3] as u64);
        if let Some(c) = self.chain.as_mut() {
            // the block's outputs are registers: offer them down the chain,
            // take what the arbiter's source 0 takes
            d.set("m_hdr.tready", 0);
            d.set("m_axis.tready", 0);
            self.sim.settle();
            (take[4], take[5]) = c.drive(&self.sim.dut, &mut self.rng);
        }
        let d = &mut self.sim.dut;
        d.set("m_hdr.tready", take[4] as u64);
        d.set("m_axis.tready", take[5] as u64);
        self.sim.settle();

        // ---- sample
        let d = &self.sim.dut;
        let wqes = &self.wqes;
        self.wqe_rd.sample(d, &mut self.rng, now, &|a| wqes[&(a - a % REQ_FETCH_WQE_BYTES)][(a % 128) as usize]);
        self.pay_rd.sample(d, &mut self.rng, now, &host_byte);
        self.xlate.sample(d, &mut self.rng, now, &self.world);
        let reqs: Vec<_> =
            [(0, &self.qc), (1, &self.qs)].iter().filter_map(|(t, c)| c.request(d).map(|r| (*t, r))).collect();
        self.qc.answered(d);
        self.qs.answered(d);
        for (t, (op, idx, id, mask, data)) in reqs {
            let l = self.cache_lat.0 + if self.cache_lat.1 > 0 { self.rng.next() % (self.cache_lat.1 + 1) } else { 0 };
            if t == 0 {
                assert_eq!(op, 0, "cycle {now}: a qpc request not a read");
                self.qc.answer(now + l, id, self.qpc[&idx].clone());
            } else {
                if op == 1 {
                    assert_eq!(id as u64 & REQ_FETCH_WB_ID, REQ_FETCH_WB_ID, "cycle {now}: write id");
                    apply_masked(self.qps.get_mut(&idx).unwrap(), mask, &data);
                    self.writes += 1;
                }
                self.qs.answer(now + l, id, self.qps[&idx].clone());
            }
        }
        if g_valid && d.get("s_grant.ready") == 1 {
            let q = self.list.pop_front().unwrap();
            assert!(self.in_service.insert(q), "QP {q} granted twice");
            self.grants.push((now, q));
        }
        if take[0] && d.get("m_sdone.valid") == 1 {
            let q = d.get("m_sdone.qpn") as u32;
            assert!(self.in_service.remove(&q), "cycle {now}: done of QP {q} not in service");
            if d.get("m_sdone.more") == 1 && !self.stopped.contains(&q) {
                self.list.push_back(q);
            }
        }
        if take[1] && d.get("m_push.valid") == 1 {
            self.pushes += 1;
        }
        if take[2] && d.get("m_err.valid") == 1 {
            let e = (d.get("m_err.qpn") as u32, d.get("m_err.sq_index"), d.get("m_err.err"));
            self.stopped.insert(e.0);
            self.errs.push(e);
        }
        if take[3] && d.get("m_xerr.valid") == 1 {
            let e = (d.get("m_xerr.qpn") as u32, d.get("m_xerr.sq_index"), d.get("m_xerr.verdict"));
            let w = self.want_xerr.pop_front().unwrap_or_else(|| panic!("cycle {now}: translation error {e:?}"));
            assert_eq!(e, w, "cycle {now}: translation error record");
            self.xerrs.push(e);
        }
        if take[4] && d.get("m_hdr.tvalid") == 1 {
            let mut hw = vec![0u32; TX_HDR_BITS / 32];
            d.get_words(d.port("m_hdr.tdata"), &mut hw);
            let q = tx_field(&hw, "src_qp") as u32;
            let bq = self.qp.get_mut(&q).unwrap_or_else(|| panic!("cycle {now}: a header of QP {q}"));
            let n = self.hdrs.len();
            let w = bq.want.pop_front().unwrap_or_else(|| panic!("cycle {now}: header {n} of QP {q} not expected"));
            for (name, v) in &w.fields {
                assert_eq!(tx_field(&hw, name), *v, "cycle {now}: header {n} (QP {q}, WQE {}) field {name}", w.sq);
            }
            if !w.payload.is_empty() {
                self.pay_want.extend(payload_beats(&w.payload, tx_payload_lane(&hw)));
            }
            self.hdrs.push((now, q, w.sq));
            if let Some(c) = self.chain.as_mut() {
                c.expect(w, q);
            }
        }
        if take[5] && d.get("m_axis.tvalid") == 1 {
            let mut data = [0u32; 16];
            d.get_words(d.port("m_axis.tdata"), &mut data);
            self.pay_got.push_back((data, d.get("m_axis.tkeep"), d.get("m_axis.tlast") == 1, d.get("m_axis.tuser")));
            self.beats.push(now);
        }
        while !self.pay_want.is_empty() && !self.pay_got.is_empty() {
            let w = self.pay_want.pop_front().unwrap();
            let (data, keep, last, user) = self.pay_got.pop_front().unwrap();
            assert_eq!((keep, last, user), (w.keep, w.last, 0), "cycle {now}: payload beat (tkeep, tlast, tuser)");
            for lane in 0..64 {
                if keep >> lane & 1 == 1 {
                    let (g, x) =
                        (data[lane / 4] >> (8 * (lane % 4)) & 0xff, w.data[lane / 4] >> (8 * (lane % 4)) & 0xff);
                    assert_eq!(g, x, "cycle {now}: payload byte in lane {lane}");
                }
            }
        }
        if let Some(c) = self.chain.as_mut() {
            c.sample_and_tick(now);
        }
        self.sim.tick();
    }

    /// The completer: everything sent acknowledged (UNA = NEXT_PSN, the
    /// READ/atomics done); QPs with work listed again.
    pub fn acknowledge(&mut self) {
        let mut qpns: Vec<u32> = self.qp.keys().copied().collect();
        qpns.sort();
        for q in qpns {
            let s = self.qps.get_mut(&q).unwrap();
            if rd(qps::REQ_STARTED.info(), s) == 1 {
                let next = rd(qps::NEXT_PSN.info(), s);
                wr(qps::COMP_STARTED.info(), s, 1);
                wr(qps::UNA.info(), s, next);
                let st = rd(qps::RD_ATOMIC_STARTED.info(), s);
                wr(qps::RD_ATOMIC_DONE.info(), s, st);
            }
            let cur = if rd(qps::REQ_STARTED.info(), s) == 1 { rd(qps::CURSOR_WQE.info(), s) } else { 0 };
            if cur != rd(qpc::SQ_PROD.info(), &self.qpc[&q]) && !self.stopped.contains(&q) {
                self.ring(q);
            }
        }
    }

    /// Rounds until every packet expected is out: run until idle, let the
    /// data flush, acknowledge. Panics after `max` cycles.
    pub fn run(&mut self, max: u64) {
        let end = self.now() + max;
        loop {
            while !self.idle() {
                assert!(
                    self.now() < end,
                    "not idle: {} QPs in service, {} listed",
                    self.in_service.len(),
                    self.list.len()
                );
                self.step();
            }
            for _ in 0..200 {
                if self.all_out() {
                    break;
                }
                self.step();
            }
            if self.all_out() && self.idle() {
                self.acknowledge();
                if self.list.is_empty() {
                    break;
                }
            } else {
                self.acknowledge();
            }
            assert!(
                self.now() < end,
                "not done: {} packets still expected",
                self.qp.values().map(|q| q.want.len()).sum::<usize>()
            );
        }
        // nothing more may come
        for _ in 0..50 {
            self.step();
        }
        assert!(self.all_out(), "something came out late");
    }

    /// A valid SGE of at most `max` bytes (at least 1) in a region of
    /// protection domain `pd` whose translation passes.
    pub fn good_sge(&mut self, pd: u32, max: u32) -> SgeF {
        let regions: Vec<_> = self.world.mpt.values().filter(|m| m.valid && m.pd == pd).copied().collect();
        assert!(!regions.is_empty(), "no region of PD {pd}");
        for _ in 0..1000 {
            let m = regions[(self.rng.next() % regions.len() as u64) as usize];
            let len = 1 + self.rng.next() % (max as u64).min(m.length);
            let slack = m.length - len;
            let va = m.va_base + if slack == 0 { 0 } else { self.rng.next() % (slack + 1) };
            let r = MrRequest { key: m.key, pd, va, len: len as u32, access: Access::LocalRead };
            if self.world.expect(&r).iter().all(|x| x.is_ok()) {
                return (va, len as u32, m.key);
            }
        }
        panic!("no translatable SGE in PD {pd}")
    }

    /// A random post of `opcode` for QP `qpn`: 0..=4 SGEs of random lengths
    /// (some zero), at most about `max` bytes in all.
    pub fn random_post(&mut self, qpn: u32, opcode: SendOpcode, max: u32) -> Post {
        let pd = self.qp[&qpn].qp.pd;
        let r = &mut self.rng;
        let mut p = Post {
            opcode,
            sges: vec![],
            solicited: r.chance(50),
            signaled: r.chance(50),
            inline: false,
            imm: r.next() as u32,
            remote_va: r.next(),
            rkey: r.next() as u32,
            compare_add: r.next(),
            swap: r.next(),
            wr_id: r.next(),
        };
        if matches!(opcode, SendOpcode::AtomicCmpAndSwp | SendOpcode::AtomicFetchAndAdd) {
            p.sges.push((r.next() & !7, 8, r.next() as u32));
            return p;
        }
        let n = r.next() % 5;
        for _ in 0..n {
            let z = self.rng.chance(15);
            let each = (max / n as u32).max(1);
            let s = self.good_sge(pd, each);
            p.sges.push(if z { (s.0, 0, s.2) } else { s });
        }
        p
    }
}
