//! Bench of the responder's execute stage for WRITE (`RespExec`, catalog
//! `resp_exec`) against the protocol model (`rnic_proto::rc::Responder`).
//!
//! [`Traffic`] generates RDMA WRITE messages for a few QPs (ONLY, or FIRST,
//! MIDDLEs, LAST; zero-length ones; AckReq at random; now and then a
//! duplicate of the QP's previous packet) over regions of an [`MrWorld`],
//! with bad rkeys, another PD's region, a region without REMOTE_WRITE and
//! ranges past a region's end. Each packet goes through two copies of the
//! QP's model: one over [`OpenMemory`] (every key granted: what `RespCheck`
//! decides, so the record it hands this block) and one over the bench's
//! host memory ([`BenchMem`]: keys checked with `rnic_contract::mr`, bytes
//! written at the IOVAs the MTT gives): the truth. The record is built from
//! the first (verdict from its counters, its ACK, the key fields as
//! `RespCheck` sets them), the expectations from the second: the ACK/NAK
//! it sends, whether the payload is placed, and the memory it leaves. A QP
//! the model put in error is replaced by a fresh one under a new QPN.
//!
//! [`ExecBench`] plays every neighbour: offers the records with their side
//! fields, serves the translation port from the world (answers in order
//! after a latency), takes `m_pkt`, `m_piece`, `m_ack` and `m_qps` under
//! random stalls, checks each against the expectation in order, writes the
//! payload bytes of every piece into its own host memory (the DMA
//! `PayloadScatter` would issue) and checks that every output stays
//! offered until taken and that a packet's `m_pkt`/`m_ack`/`m_qps` come
//! only after all its pieces were taken.

use crate::mr::{expected_beats, MrWorld, RespBeat};
use crate::resp_check::OpenMemory;
use rnic_contract::mr::{Access as MrAccess, MrRequest};
use rnic_hw::consts::*;
use rnic_proto::ext::{ExtHeaders, Reth};
use rnic_proto::opcode::{Opcode, Pmtu};
use rnic_proto::psn::Psn;
use rnic_proto::rc::responder::{Responder, ResponderConfig};
use rnic_proto::rc::{Access, KeyError, MemFault, Memory, RcPacket};
use rnic_proto::RnrTimer;
use rnic_sim::axis::Rng;
use rnic_sim::Model;
use std::collections::{HashMap, VecDeque};

/// Host memory: bytes by IOVA (absent = never written).
pub type HostMem = HashMap<u64, u8>;

/// The model's memory for one packet: keys checked against the world,
/// writes at the IOVAs of the packet's rkey.
pub struct BenchMem<'a> {
    pub world: &'a MrWorld,
    pub mem: &'a mut HostMem,
    pub rkey: u32,
}

fn req(key: u32, pd: u32, va: u64, len: u32) -> MrRequest {
    MrRequest { key, pd, va, len, access: MrAccess::RemoteWrite }
}

impl Memory for BenchMem<'_> {
    fn check(&self, pd: u32, key: u32, va: u64, len: u64, access: Access) -> Result<(), KeyError> {
        assert!(matches!(access, Access::RemoteWrite), "a WRITE bench");
        match MrWorld::error(&self.world.expect(&req(key, pd, va, len as u32))) {
            None => Ok(()),
            Some(_) => Err(KeyError::OutOfBounds),
        }
    }
    fn read(&self, _: u64, out: &mut [u8]) -> Result<(), MemFault> {
        out.fill(0);
        Ok(())
    }
    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), MemFault> {
        // the PD was checked with the key: any region's PD will do here
        let pd = self.world.mpt.values().find(|m| m.key == self.rkey).map_or(0, |m| m.pd);
        let mut off = 0;
        for p in self.world.expect(&req(self.rkey, pd, va, data.len() as u32)) {
            let (a, l) = p.map_err(|_| MemFault)?;
            for i in 0..l as u64 {
                self.mem.insert(a + i, data[off]);
                off += 1;
            }
        }
        Ok(())
    }
}

/// One record with its side fields and what must come of it.
#[derive(Clone, Debug)]
pub struct Rec {
    /// Scalar inputs of `s_dec` / `s_side`, by port name.
    pub fields: Vec<(&'static str, u64)>,
    pub wr_data: [u32; 16],
    pub path: [u32; 16],
    pub qpn: u32,
    pub payload: Vec<u8>,
    /// m_pkt: (lane, drop).
    pub pkt: (u64, bool),
    /// Pieces (iova, len, last) of the placed payload.
    pub pieces: Vec<(u64, u64, bool)>,
    /// m_ack: (psn, kind, code, msn).
    pub ack: Option<(u64, u64, u64, u64)>,
    /// m_qps: (mask, data) when written.
    pub qps: Option<(u64, [u32; 16])>,
    /// The model failed it (NAK remote access).
    pub failed: bool,
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
}

/// The traffic generator and the model (module doc).
pub struct Traffic {
    pub rng: Rng,
    pub world: MrWorld,
    /// The model's memory.
    pub mem: HostMem,
    qps: Vec<Qp>,
    next_qpn: u32,
    pmtu: Pmtu,
    /// Percent of messages with a fault.
    pub p_fault: u64,
    pub recs: Vec<Rec>,
    /// Records by kind: placed, failed, passed through.
    pub placed: usize,
    pub failed: usize,
    pub other: usize,
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

impl Traffic {
    pub fn new(seed: u64, world: MrWorld, n_qps: usize, pmtu: Pmtu) -> Self {
        let mut t = Traffic {
            rng: Rng(seed | 1),
            world,
            mem: HostMem::new(),
            qps: vec![],
            next_qpn: 0x20,
            pmtu,
            p_fault: 15,
            recs: vec![],
            placed: 0,
            failed: 0,
            other: 0,
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
            max_recv_sge: 4,
        };
        self.next_qpn += 1 + (r.next() % 5) as u32;
        let mut path = [0u32; 16];
        path.iter_mut().for_each(|w| *w = r.next() as u32);
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
        }
    }

    /// The PD of QP `qi`.
    pub fn pd(&self, qi: usize) -> u32 {
        self.qps[qi].pd
    }

    /// A WRITE message for QP `qi`: its packets queued.
    fn message(&mut self, qi: usize) {
        let pd = self.qps[qi].pd;
        let p = self.pmtu.bytes() as u64;
        let r = &mut self.rng;
        let own: Vec<_> = self.world.mpt.values().filter(|m| m.valid && m.remote_write && m.pd == pd).collect();
        let any: Vec<_> = self.world.mpt.values().collect();
        let m = if own.is_empty() || r.chance(5) {
            *any[(r.next() % any.len() as u64) as usize]
        } else {
            *own[(r.next() % own.len() as u64) as usize]
        };
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
        let total = len;
        let qp = &mut self.qps[qi];
        qp.rkey = rkey;
        let mut psn = qp.model.expected_psn();
        let mut left = total;
        let mut first = true;
        loop {
            let n = left.min(p);
            let last = left <= p;
            let op = match (first, last) {
                (true, true) => Opcode::RcWriteOnly,
                (true, false) => Opcode::RcWriteFirst,
                (false, false) => Opcode::RcWriteMiddle,
                (false, true) => Opcode::RcWriteLast,
            };
            let ext = if first { ExtHeaders::Reth(Reth { va, rkey, dma_len: total as u32 }) } else { ExtHeaders::Bare };
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

    /// Generate `n` records, spread over the QPs.
    pub fn generate(&mut self, n: usize) {
        for _ in 0..n {
            let qi = (self.rng.next() % self.qps.len() as u64) as usize;
            self.one(qi);
        }
    }

    /// Records of a message of `len` bytes at `va` under `rkey` for QP 0
    /// (the rate test): no fault, AckReq on the last packet only.
    pub fn stream(&mut self, rkey: u32, va: u64, len: u64) {
        let qp = &mut self.qps[0];
        let p = self.pmtu.bytes() as u64;
        qp.rkey = rkey;
        let mut psn = qp.model.expected_psn();
        let mut left = len;
        let mut first = true;
        while left > 0 {
            let n = left.min(p);
            let last = left <= p;
            let op = match (first, last) {
                (true, true) => Opcode::RcWriteOnly,
                (true, false) => Opcode::RcWriteFirst,
                (false, false) => Opcode::RcWriteMiddle,
                (false, true) => Opcode::RcWriteLast,
            };
            let ext = if first { ExtHeaders::Reth(Reth { va, rkey, dma_len: len as u32 }) } else { ExtHeaders::Bare };
            let payload: Vec<u8> = (0..n).map(|_| self.rng.next() as u8).collect();
            qp.queue.push_back(RcPacket::new(op, qp.qpn, psn, last, ext, payload));
            psn = psn.next();
            left -= n;
            first = false;
        }
        while !self.qps[0].queue.is_empty() {
            self.one(0);
        }
    }

    fn one(&mut self, qi: usize) {
        if self.qps[qi].queue.is_empty() {
            if self.qps[qi].last.is_some() && self.rng.chance(5) {
                let d = self.qps[qi].last.clone().unwrap();
                self.qps[qi].queue.push_back(d);
            } else {
                self.message(qi);
            }
        }
        let pkt = self.qps[qi].queue.pop_front().unwrap();
        let qp = &mut self.qps[qi];
        let before = qp.model.clone();
        let st = before.state();
        // what RespCheck decides: every key granted
        let mut open = before.clone();
        let c0 = open.counters();
        let open_resp = open.receive(&pkt, &mut OpenMemory);
        let c1 = open.counters();
        let verdict = if c1.executed > c0.executed {
            RESP_EXEC_WRITE
        } else if c1.duplicates > c0.duplicates {
            RESP_DUP_WRITE
        } else {
            panic!("traffic gave neither an executed WRITE nor a duplicate: {:?}", pkt.opcode())
        };
        // the truth
        let rc0 = qp.model.counters();
        let resp = qp.model.receive(&pkt, &mut BenchMem { world: &self.world, mem: &mut self.mem, rkey: qp.rkey });
        let rc1 = qp.model.counters();
        let failed = rc1.error_naks > rc0.error_naks;
        let executed = rc1.executed > rc0.executed;
        let plen = pkt.payload.len() as u64;
        let op = pkt.opcode();
        let starts = matches!(op, Opcode::RcWriteFirst | Opcode::RcWriteOnly);
        let (key_check, rkey, va, len) = match (verdict, pkt.ext.reth()) {
            (RESP_EXEC_WRITE, Some(r)) if starts => (r.dma_len > 0, r.rkey, r.va, r.dma_len as u64),
            (RESP_EXEC_WRITE, _) => (false, st.write_rkey, st.write_va, plen),
            _ => (false, 0, 0, 0),
        };
        let r = &mut self.rng;
        let aeth = |p: &RcPacket| {
            let a = p.ext.aeth().copied().expect("an AETH");
            (p.psn().value() as u64, (a.syndrome >> 5) as u64, (a.syndrome & 31) as u64, a.msn as u64)
        };
        let rec_ack = open_resp.first().map(aeth);
        let lane = r.next() % 64;
        let mut wr_data = [0u32; 16];
        wr_data.iter_mut().for_each(|w| *w = r.next() as u32);
        let mask = r.next();
        let fields = vec![
            ("s_dec.qpn", qp.qpn as u64),
            ("s_dec.psn", pkt.psn().value() as u64),
            ("s_dec.verdict", verdict),
            ("s_dec.ack", rec_ack.is_some() as u64),
            ("s_dec.syndrome", rec_ack.map_or(0, |a| a.1 << 5 | a.2)),
            ("s_dec.aeth_psn", rec_ack.map_or(0, |a| a.0)),
            ("s_dec.aeth_msn", rec_ack.map_or(0, |a| a.3)),
            ("s_dec.msn_before", st.msn as u64),
            ("s_dec.key_check", key_check as u64),
            ("s_dec.key_access", ACC_REMOTE_WRITE),
            ("s_dec.rkey", rkey as u64),
            ("s_dec.va", va),
            ("s_dec.len", len),
            ("s_dec.write", 1),
            ("s_dec.wr_mask", mask),
            ("s_side.pd", qp.pd as u64),
            ("s_side.dest_qpn", qp.dest_qpn),
            ("s_side.pkey", qp.pkey),
            ("s_side.plen", plen),
            ("s_side.lane", lane),
        ];
        let placed = executed && plen > 0;
        let pieces: Vec<(u64, u64, bool)> = if placed {
            let a = self.world.expect(&req(rkey, qp.pd, va, plen as u32));
            let n = a.len();
            a.into_iter()
                .enumerate()
                .map(|(i, x)| {
                    let (io, l) = x.expect("a placed packet translates");
                    (io, l as u64, i + 1 == n)
                })
                .collect()
        } else {
            vec![]
        };
        assert!(executed || failed || verdict == RESP_DUP_WRITE, "the model neither executed nor failed it");
        let mut qdata = wr_data;
        if failed {
            let pos = rnic_contract::layouts::qps::IN_PROGRESS.pos();
            qdata[pos / 32] |= 3 << (pos % 32);
        }
        self.recs.push(Rec {
            fields,
            wr_data,
            path: qp.path,
            qpn: qp.qpn,
            payload: pkt.payload.clone(),
            pkt: (lane, !placed),
            pieces,
            ack: resp.first().map(aeth),
            qps: Some((mask, qdata)),
            failed,
        });
        if placed {
            self.placed += 1;
        } else if failed {
            self.failed += 1;
        } else {
            self.other += 1;
        }
        qp.last = Some(pkt);
        if qp.model.is_error() {
            self.qps[qi] = self.new_qp();
        }
    }
}

/// Percent of cycles each source offers / sink takes, and the translation
/// latency (cycles from a request taken to its first answer beat offered).
#[derive(Clone, Copy, Debug)]
pub struct ExecKnobs {
    pub p_dec: u64,
    pub p_xreq: u64,
    pub p_xresp: u64,
    pub p_pkt: u64,
    pub p_piece: u64,
    pub p_ack: u64,
    pub p_qps: u64,
    pub lat_min: u64,
    pub lat_max: u64,
}

impl ExecKnobs {
    pub fn fast(lat: u64) -> Self {
        ExecKnobs {
            p_dec: 100,
            p_xreq: 100,
            p_xresp: 100,
            p_pkt: 100,
            p_piece: 100,
            p_ack: 100,
            p_qps: 100,
            lat_min: lat,
            lat_max: lat,
        }
    }
}

type Held = Option<Vec<u64>>;

/// The bench (module doc).
pub struct ExecBench {
    pub knobs: ExecKnobs,
    pub world: MrWorld,
    pub rng: Rng,
    pub now: u64,
    recs: Vec<Rec>,
    next_in: usize,
    dec_on: bool,
    // translation unit
    xresp: VecDeque<(u64, RespBeat)>,
    xresp_on: bool,
    take: [bool; 5],
    held: [Held; 5],
    // expectations, by record index
    pieces: VecDeque<(usize, (u64, u64, bool))>,
    /// Byte offset into the payload of the record being placed.
    placed_off: usize,
    next_pkt: usize,
    acks: VecDeque<(usize, (u64, u64, u64, u64))>,
    next_qps: usize,
    /// Host memory written from the pieces.
    pub mem: HostMem,
    // logs (cycles)
    pub dec_taken: Vec<u64>,
    /// Per record: the cycle its first piece was offered.
    pub first_piece: HashMap<usize, u64>,
    pub xreq_log: Vec<MrRequest>,
}

const SLOTS: [&str; 5] = ["m_xreq", "m_pkt", "m_piece", "m_ack", "m_qps"];

impl ExecBench {
    pub fn new(world: MrWorld, knobs: ExecKnobs, seed: u64) -> Self {
        ExecBench {
            knobs,
            world,
            rng: Rng(seed | 1),
            now: 0,
            recs: vec![],
            next_in: 0,
            dec_on: false,
            xresp: VecDeque::new(),
            xresp_on: false,
            take: [false; 5],
            held: Default::default(),
            pieces: VecDeque::new(),
            placed_off: 0,
            next_pkt: 0,
            acks: VecDeque::new(),
            next_qps: 0,
            mem: HostMem::new(),
            dec_taken: vec![],
            first_piece: HashMap::new(),
            xreq_log: vec![],
        }
    }

    pub fn push(&mut self, recs: &[Rec]) {
        for r in recs {
            let i = self.recs.len();
            for p in &r.pieces {
                self.pieces.push_back((i, *p));
            }
            if let Some(a) = r.ack {
                self.acks.push_back((i, a));
            }
            self.recs.push(r.clone());
        }
    }

    pub fn done(&self) -> bool {
        self.next_in == self.recs.len()
            && self.next_pkt == self.recs.len()
            && self.next_qps == self.recs.len()
            && self.pieces.is_empty()
            && self.acks.is_empty()
            && self.xresp.is_empty()
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
        for (i, p) in [k.p_xreq, k.p_pkt, k.p_piece, k.p_ack, k.p_qps].into_iter().enumerate() {
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

    pub fn sample<M: Model + ?Sized>(&mut self, m: &M) -> Result<(), String> {
        let now = self.now;
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
        if xv && self.take[0] {
            if x[4] != ACC_REMOTE_WRITE {
                return Err(format!("cycle {now}: access {} asked", x[4]));
            }
            let r = req(x[0] as u32, x[1] as u32, x[2], x[3] as u32);
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
                self.first_piece.entry(*i).or_insert(now);
            }
        }
        if pv && self.take[2] {
            let (i, w) = self.pieces.pop_front().ok_or(format!("cycle {now}: piece {pc:x?} not expected"))?;
            if pc != vec![w.0, w.1, w.2 as u64] {
                return Err(format!("cycle {now}: piece {pc:x?} of record {i}, want {w:x?}"));
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
            }
        }
        // ---- m_pkt: one per record
        let kv = m.get("m_pkt.valid") & 1 == 1;
        let k = vec![m.get("m_pkt.lane"), m.get("m_pkt.drop")];
        self.check_held(1, kv, &k)?;
        if kv && self.take[1] {
            let i = self.next_pkt;
            let r = self.recs.get(i).ok_or(format!("cycle {now}: m_pkt not expected"))?;
            if k != vec![r.pkt.0, r.pkt.1 as u64] {
                return Err(format!("cycle {now}: m_pkt {k:?} of record {i}, want {:?}", r.pkt));
            }
            self.placed_before(i, "m_pkt")?;
            self.next_pkt += 1;
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
            let mut path = [0u32; 16];
            m.get_words(m.port("m_ack.path"), &mut path);
            if path != r.path {
                return Err(format!("cycle {now}: m_ack path of record {i}"));
            }
            self.placed_before(i, "m_ack")?;
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
            if q[0] != r.qpn as u64 || q[1] != mask || d != data {
                return Err(format!("cycle {now}: m_qps of record {i} (failed {}) differs", r.failed));
            }
            self.placed_before(i, "m_qps")?;
            self.next_qps += 1;
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
