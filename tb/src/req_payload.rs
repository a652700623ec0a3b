//! Bench of the requester's payload translation and header holding
//! (`ReqPayload`, catalog `req_payload`): packets as `ReqGen` emits them (a
//! transmit header each, with its SQ index on `s_hdr.sq_index`, and per
//! packet with payload its fragment requests over regions of an
//! [`MrWorld`]), the translation unit modelled on `m_xreq`/`s_xresp` (every
//! request checked against the fragment sent, answered in order after a
//! random latency with the beats of `rnic_contract::mr::translate` over the
//! world, [`expected_beats`]), and the three outputs taken with random
//! stalls. The reference computes, per packet in order, whether it passes
//! (every fragment translated), is dropped with an error record (the first
//! failure of its WQE) or dropped silently (a later packet of a failed WQE:
//! the one-register note of `req_payload.rs`), and so the exact headers,
//! pieces, start lanes (`tx_payload_lane` of each passed packet with
//! payload) and error records out, in order. Every output is checked to stay
//! offered unchanged until taken.
//!
//! Written against [`Model`] (drive, then sample after `eval`) so one bench
//! serves the Verilator model (tb/tests/req_payload.rs) and the emitter's
//! differential pair.

use crate::mr::{expected_beats, MrWorld, RespBeat};
use crate::tx::tx_payload_lane;
use rnic_contract::mr::{Access, MrError, MrRequest};
use rnic_hw::consts::{REQ_FRAG_LAST, TXF_OPCODE, TX_PAYLOAD_LEN_LSB, TX_SRC_QP_LSB};
use rnic_hw::transport::{REQ_INDEX_BITS, REQ_QPN_BITS};
use rnic_hw::wire::TX_HDR_BITS;
use rnic_sim::axis::Rng;
use rnic_sim::Model;
use std::collections::VecDeque;

/// Header words (32 bits each).
pub const HDR_WORDS: usize = TX_HDR_BITS / 32;

/// Set `width` bits at `lsb` of a little-endian word vector.
pub fn set_field(w: &mut [u32], lsb: usize, width: usize, v: u64) {
    for i in 0..width {
        let b = lsb + i;
        w[b / 32] = (w[b / 32] & !(1 << (b % 32))) | (((v >> i) & 1) as u32) << (b % 32);
    }
}

/// One packet as `ReqGen` emits it.
#[derive(Clone, Debug)]
pub struct Packet {
    pub qpn: u32,
    pub sq: u32,
    pub hdr: Vec<u32>,
    /// Its fragments (local read), in order; none for a packet without payload.
    pub frags: Vec<MrRequest>,
}

impl Packet {
    /// A packet of QP `qpn`, WQE `sq`: random header words with `src_qp`
    /// and `payload_len` (the fragments' total) set, and a random RC
    /// SEND/WRITE opcode (so the start lane covers every extended header).
    pub fn new(rng: &mut Rng, qpn: u32, sq: u32, frags: Vec<MrRequest>) -> Self {
        let mut hdr: Vec<u32> = (0..HDR_WORDS).map(|_| rng.next() as u32).collect();
        set_field(&mut hdr, TXF_OPCODE as usize, 8, rng.next() % 12);
        let len: u64 = frags.iter().map(|f| f.len as u64).sum();
        set_field(&mut hdr, TX_PAYLOAD_LEN_LSB, 16, len);
        set_field(&mut hdr, TX_SRC_QP_LSB, 24, qpn as u64);
        Packet { qpn, sq, hdr, frags }
    }
}

/// An error record: (QPN, SQ index, verdict).
pub type ErrRec = (u32, u32, u64);
/// A piece: (iova, len, last).
pub type Piece = (u64, u64, bool);

/// Knobs of a run: percent of cycles each source offers / each sink takes,
/// and the translation unit's latency (cycles from a request taken to its
/// first beat offered).
#[derive(Clone, Copy, Debug)]
pub struct RpKnobs {
    pub p_hdr: u64,
    pub p_frag: u64,
    pub p_xreq: u64,
    pub p_xresp: u64,
    pub p_piece: u64,
    pub p_hdr_out: u64,
    pub p_err: u64,
    pub lat_min: u64,
    pub lat_max: u64,
    /// A header is offered only once its packet's first fragment is taken
    /// or offered (as `ReqGen` emits them: together); else independently.
    pub pace: bool,
}

impl RpKnobs {
    /// Everything at full rate, latency `lat`.
    pub fn fast(lat: u64) -> Self {
        RpKnobs {
            p_hdr: 100,
            p_frag: 100,
            p_xreq: 100,
            p_xresp: 100,
            p_piece: 100,
            p_hdr_out: 100,
            p_err: 100,
            lat_min: lat,
            lat_max: lat,
            pace: true,
        }
    }
}

/// A value offered on an output and not taken: it must stay.
type Held = Option<Vec<u64>>;

/// The bench: sources, translation model, sinks and reference.
pub struct RpBench {
    pub world: MrWorld,
    pub knobs: RpKnobs,
    pub rng: Rng,
    pub now: u64,
    // ---- sources
    /// header, SQ index, fragments queued before it
    hdr_q: VecDeque<(Vec<u32>, u32, u64)>,
    frags_queued: u64,
    hdr_on: bool,
    frag_q: VecDeque<(MrRequest, u64)>,
    frag_on: bool,
    // ---- translation model
    xreq_due: VecDeque<(MrRequest, u64)>,
    xresp: VecDeque<(u64, RespBeat)>,
    xresp_on: bool,
    // ---- reference
    note: Option<(u32, u32)>,
    want_hdr: VecDeque<Vec<u32>>,
    want_piece: VecDeque<Piece>,
    want_lane: VecDeque<u64>,
    want_err: VecDeque<ErrRec>,
    // ---- outputs as driven this cycle
    take_piece: bool,
    take_lane: bool,
    take_hdr: bool,
    take_err: bool,
    take_xreq: bool,
    held: [Held; 5],
    // ---- logs (cycles)
    pub hdr_taken: Vec<u64>,
    pub frag_taken: Vec<u64>,
    pub xreq_out: Vec<u64>,
    /// Cycle each packet's last answer beat was taken.
    pub pkt_end_taken: Vec<u64>,
    pub hdr_out: Vec<u64>,
    pub piece_out: Vec<u64>,
    pub lane_out: Vec<u64>,
    pub err_out: Vec<ErrRec>,
    /// Cycles a source offered and was refused.
    pub hdr_refused: u64,
    pub frag_refused: u64,
    /// Packets: passed, dropped with a report, dropped by the note; pieces expected.
    pub passed: u64,
    pub reported: u64,
    pub noted: u64,
    pub pieces: u64,
}

impl RpBench {
    pub fn new(world: MrWorld, knobs: RpKnobs, seed: u64) -> Self {
        RpBench {
            world,
            knobs,
            rng: Rng(seed | 1),
            now: 0,
            hdr_q: VecDeque::new(),
            frags_queued: 0,
            hdr_on: false,
            frag_q: VecDeque::new(),
            frag_on: false,
            xreq_due: VecDeque::new(),
            xresp: VecDeque::new(),
            xresp_on: false,
            note: None,
            want_hdr: VecDeque::new(),
            want_piece: VecDeque::new(),
            want_lane: VecDeque::new(),
            want_err: VecDeque::new(),
            take_piece: false,
            take_lane: false,
            take_hdr: false,
            take_err: false,
            take_xreq: false,
            held: [None, None, None, None, None],
            hdr_taken: vec![],
            frag_taken: vec![],
            xreq_out: vec![],
            pkt_end_taken: vec![],
            hdr_out: vec![],
            piece_out: vec![],
            lane_out: vec![],
            err_out: vec![],
            hdr_refused: 0,
            frag_refused: 0,
            passed: 0,
            reported: 0,
            noted: 0,
            pieces: 0,
        }
    }

    /// Queue a packet, and compute what it must give.
    pub fn send(&mut self, p: &Packet) {
        self.hdr_q.push_back((p.hdr.clone(), p.sq, self.frags_queued));
        self.frags_queued += p.frags.len() as u64;
        if p.frags.is_empty() {
            self.want_hdr.push_back(p.hdr.clone());
            self.passed += 1;
            return;
        }
        let n = p.frags.len();
        let mut pieces = vec![];
        let mut fail: Option<MrError> = None;
        for (k, f) in p.frags.iter().enumerate() {
            let id = (((k + 1 == n) as u64) << REQ_FRAG_LAST) | (p.hdr[0] as u64 & 0x7f);
            self.frag_q.push_back((*f, id));
            for x in self.world.expect(f) {
                match x {
                    Ok((a, l)) => pieces.push((a, l as u64)),
                    Err(e) => {
                        fail.get_or_insert(e);
                    }
                }
            }
        }
        let noted = self.note == Some((p.qpn, p.sq));
        if let Some(e) = fail.filter(|_| !noted) {
            self.want_err.push_back((p.qpn, p.sq, e as u64));
            self.note = Some((p.qpn, p.sq));
            self.reported += 1;
        } else if noted {
            self.noted += 1;
        } else {
            if self.note.is_some_and(|(q, _)| q == p.qpn) {
                self.note = None;
            }
            self.passed += 1;
            self.pieces += pieces.len() as u64;
            let m = pieces.len();
            for (i, (a, l)) in pieces.into_iter().enumerate() {
                self.want_piece.push_back((a, l, i + 1 == m));
            }
            self.want_hdr.push_back(p.hdr.clone());
            self.want_lane.push_back(tx_payload_lane(&p.hdr) as u64);
        }
    }

    /// Everything sent, translated and out.
    pub fn done(&self) -> bool {
        self.hdr_q.is_empty()
            && self.frag_q.is_empty()
            && self.xreq_due.is_empty()
            && self.xresp.is_empty()
            && self.want_hdr.is_empty()
            && self.want_piece.is_empty()
            && self.want_lane.is_empty()
            && self.want_err.is_empty()
    }

    /// Drive the inputs for this cycle.
    pub fn drive<M: Model + ?Sized>(&mut self, m: &mut M) {
        let k = self.knobs;
        if !self.frag_on && !self.frag_q.is_empty() && self.rng.chance(k.p_frag) {
            self.frag_on = true;
        }
        let paced = self.hdr_q.front().is_some_and(|h| h.2 <= self.frag_taken.len() as u64 + self.frag_on as u64);
        if !self.hdr_on && !self.hdr_q.is_empty() && (paced || !k.pace) && self.rng.chance(k.p_hdr) {
            self.hdr_on = true;
        }
        let (h, sq, _) = self.hdr_q.front().cloned().unwrap_or((vec![0; HDR_WORDS], 0, 0));
        let i = m.port("s_hdr.tdata");
        m.set_words(i, &h);
        m.set("s_hdr.tvalid", self.hdr_on as u64);
        m.set("s_hdr.sq_index", sq as u64);
        let (f, id) = self
            .frag_q
            .front()
            .copied()
            .unwrap_or((MrRequest { key: 0, pd: 0, va: 0, len: 0, access: Access::LocalRead }, 0));
        m.set("s_frag.key", f.key as u64);
        m.set("s_frag.pd", f.pd as u64);
        m.set("s_frag.va", f.va);
        m.set("s_frag.len", f.len as u64);
        m.set("s_frag.access", Access::LocalRead as u64);
        m.set("s_frag.id", id);
        m.set("s_frag.valid", self.frag_on as u64);
        // the translation unit
        self.take_xreq = self.rng.chance(k.p_xreq);
        m.set("m_xreq.ready", self.take_xreq as u64);
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
        // sinks
        self.take_piece = self.rng.chance(k.p_piece);
        self.take_hdr = self.rng.chance(k.p_hdr_out);
        self.take_err = self.rng.chance(k.p_err);
        self.take_lane = self.rng.chance(k.p_piece);
        m.set("m_piece.ready", self.take_piece as u64);
        m.set("m_lane.ready", self.take_lane as u64);
        m.set("m_hdr.tready", self.take_hdr as u64);
        m.set("m_err.ready", self.take_err as u64);
    }

    /// Sample the outputs after `eval`, check them, and move to the next cycle.
    pub fn sample<M: Model + ?Sized>(&mut self, m: &M) -> Result<(), String> {
        let now = self.now;
        // ---- the translation unit's request port
        let xreq = vec![
            m.get("m_xreq.key"),
            m.get("m_xreq.pd"),
            m.get("m_xreq.va"),
            m.get("m_xreq.len"),
            m.get("m_xreq.access"),
            m.get("m_xreq.id"),
        ];
        let xv = m.get("m_xreq.valid") & 1 == 1;
        self.check_held(0, xv, self.take_xreq, &xreq, "m_xreq")?;
        if xv && self.take_xreq {
            let (f, id) = self.xreq_due.pop_front().ok_or(format!("cycle {now}: m_xreq with no fragment due"))?;
            let want = vec![f.key as u64, f.pd as u64, f.va, f.len as u64, Access::LocalRead as u64, id];
            if xreq != want {
                return Err(format!("cycle {now}: m_xreq {xreq:x?}, want {want:x?}"));
            }
            let lat = k_lat(&mut self.rng, self.knobs);
            for beat in expected_beats(id, &self.world.expect(&f)) {
                self.xresp.push_back((now + lat, beat));
            }
            self.xreq_out.push(now);
        }
        // ---- answers taken
        if self.xresp_on && m.get("s_xresp.ready") & 1 == 1 {
            let (_, b) = self.xresp.pop_front().unwrap();
            if b.4 && (b.0 >> REQ_FRAG_LAST) & 1 == 1 {
                self.pkt_end_taken.push(now);
            }
            self.xresp_on = false;
        }
        // ---- sources taken
        if self.hdr_on {
            if m.get("s_hdr.tready") & 1 == 1 {
                self.hdr_q.pop_front();
                self.hdr_on = false;
                self.hdr_taken.push(now);
            } else {
                self.hdr_refused += 1;
            }
        }
        if self.frag_on {
            if m.get("s_frag.ready") & 1 == 1 {
                let f = self.frag_q.pop_front().unwrap();
                self.xreq_due.push_back(f);
                self.frag_on = false;
                self.frag_taken.push(now);
            } else {
                self.frag_refused += 1;
            }
        }
        // ---- pieces
        let pv = m.get("m_piece.valid") & 1 == 1;
        let piece = vec![m.get("m_piece.iova"), m.get("m_piece.len"), m.get("m_piece.last")];
        self.check_held(1, pv, self.take_piece, &piece, "m_piece")?;
        if pv && self.take_piece {
            let w = self.want_piece.pop_front().ok_or(format!("cycle {now}: piece {piece:x?} not expected"))?;
            if piece != vec![w.0, w.1, w.2 as u64] {
                return Err(format!("cycle {now}: piece {} is {piece:x?}, want {w:x?}", self.piece_out.len()));
            }
            self.piece_out.push(now);
        }
        // ---- start lanes
        let lv = m.get("m_lane.valid") & 1 == 1;
        let lane = vec![m.get("m_lane.lane")];
        self.check_held(4, lv, self.take_lane, &lane, "m_lane")?;
        if lv && self.take_lane {
            let w = self.want_lane.pop_front().ok_or(format!("cycle {now}: lane {lane:?} not expected"))?;
            if lane[0] != w {
                return Err(format!("cycle {now}: lane {} is {}, want {w}", self.lane_out.len(), lane[0]));
            }
            self.lane_out.push(now);
        }
        // ---- headers
        let hv = m.get("m_hdr.tvalid") & 1 == 1;
        let mut hw = vec![0u32; HDR_WORDS];
        m.get_words(m.port("m_hdr.tdata"), &mut hw);
        let h64: Vec<u64> = hw.iter().map(|&x| x as u64).collect();
        self.check_held(2, hv, self.take_hdr, &h64, "m_hdr")?;
        if hv && self.take_hdr {
            let w = self.want_hdr.pop_front().ok_or(format!("cycle {now}: header not expected"))?;
            if hw != w {
                return Err(format!("cycle {now}: header {} differs from the one due", self.hdr_out.len()));
            }
            self.hdr_out.push(now);
        }
        // ---- errors
        let ev = m.get("m_err.valid") & 1 == 1;
        let e = vec![m.get("m_err.qpn"), m.get("m_err.sq_index"), m.get("m_err.verdict")];
        self.check_held(3, ev, self.take_err, &e, "m_err")?;
        if ev && self.take_err {
            let w = self.want_err.pop_front().ok_or(format!("cycle {now}: error record {e:?} not expected"))?;
            if e != vec![w.0 as u64, w.1 as u64, w.2] {
                return Err(format!("cycle {now}: error record {e:?}, want {w:?}"));
            }
            self.err_out.push(w);
        }
        self.now += 1;
        Ok(())
    }

    /// Rule 1: an output offered and not taken stays, unchanged.
    fn check_held(&mut self, i: usize, valid: bool, taken: bool, v: &[u64], what: &str) -> Result<(), String> {
        if let Some(h) = &self.held[i] {
            if !valid || h.as_slice() != v {
                return Err(format!("cycle {}: {what} withdrawn or changed before it was taken", self.now));
            }
        }
        self.held[i] = (valid && !taken).then(|| v.to_vec());
        Ok(())
    }
}

fn k_lat(rng: &mut Rng, k: RpKnobs) -> u64 {
    k.lat_min + rng.next() % (k.lat_max - k.lat_min + 1)
}

/// A world for the bench: 64 regions in a 256-entry MPT
/// ([`MrWorld::random`]: every page size, some invalid, PDs 1..=3).
pub fn world(rng: &mut Rng) -> MrWorld {
    MrWorld::random(rng, 8, 64)
}

/// A fragment of `len` bytes at most (at least 1): over a region VALID but
/// in about `p_fault` percent of fragments, where a fault of another kind
/// (key, PD, bounds) is made instead.
pub fn random_frag(rng: &mut Rng, w: &MrWorld, len: u32, p_fault: u64) -> MrRequest {
    let regions: Vec<_> = w.mpt.values().filter(|m| m.valid).collect();
    let m = *regions[(rng.next() % regions.len() as u64) as usize];
    let len = (len as u64).min(m.length).max(1);
    let len = 1 + rng.next() % len;
    let slack = m.length - len;
    let va = m.va_base + if slack == 0 { 0 } else { rng.next() % (slack + 1) };
    let mut r = MrRequest { key: m.key, pd: m.pd, va, len: len as u32, access: Access::LocalRead };
    if rng.chance(p_fault) {
        match rng.next() % 4 {
            0 => r.key ^= 1 << (rng.next() % 32),
            1 => r.pd = 1 + (r.pd % 3),
            2 => r.va = (m.va_base + slack).wrapping_add(1 + rng.next() % 64),
            _ => r.va = m.va_base.wrapping_sub(1 + rng.next() % 64),
        }
    }
    r
}

/// Packets as `ReqGen` emits them for `qps` QPs: jobs of 1..=3 packets of
/// the QP's current WQE (WQEs of 1..=5 packets; one in eight without
/// payload, a single packet), jobs of different QPs interleaved, so a WQE's
/// later packets can follow other QPs' packets. A packet has 1..=4
/// fragments of at most 4096 bytes in all.
pub fn random_packets(rng: &mut Rng, w: &MrWorld, n: usize, qps: usize, p_fault: u64) -> Vec<Packet> {
    let qpn: Vec<u32> = (0..qps).map(|i| (rng.next() as u32 % (1 << REQ_QPN_BITS)) & !7 | i as u32).collect();
    // per QP: (SQ index, packets left of its WQE, payload)
    let mut st: Vec<(u32, u32, bool)> =
        (0..qps).map(|_| (rng.next() as u32 % (1 << REQ_INDEX_BITS), 0, true)).collect();
    let mut out = vec![];
    while out.len() < n {
        let q = (rng.next() % qps as u64) as usize;
        for _ in 0..1 + rng.next() % 3 {
            if st[q].1 == 0 {
                let pay = !rng.chance(12);
                st[q] = ((st[q].0 + 1) % (1 << REQ_INDEX_BITS), if pay { 1 + (rng.next() % 5) as u32 } else { 1 }, pay);
            }
            let frags = if st[q].2 {
                let nf = 1 + rng.next() % 4;
                let mut left = 4096u32;
                let mut v = vec![];
                for i in 0..nf {
                    if left == 0 {
                        break;
                    }
                    let cap = if i + 1 == nf { left } else { left / 2 };
                    let f = random_frag(rng, w, cap.max(1), p_fault);
                    left -= f.len.min(left);
                    v.push(f);
                }
                v
            } else {
                vec![]
            };
            out.push(Packet::new(rng, qpn[q], st[q].0, frags));
            st[q].1 -= 1;
            if st[q].1 == 0 {
                break;
            }
        }
    }
    out
}
