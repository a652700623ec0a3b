//! Bench of the responder's answer cutter (`RespGen`, catalog `resp_gen`):
//! requests (ACKs, NAKs, READs to answer, atomic ACKs) in on `s_req`, one header request
//! per packet out on `m_ack` and one fragment per READ response packet with
//! payload on `m_frag`, all three streams stalled at random. The reference
//! of a READ is the protocol model's answer to it
//! (`rnic_proto::rc::responder::Responder`: opcodes, PSNs, payload lengths,
//! the AETH on FIRST/LAST/ONLY); an ACK or NAK is one ACKNOWLEDGE, an
//! executed atomic one ATOMIC ACKNOWLEDGE carrying its original value. Every
//! cycle the bench checks the handshake rule (neither output's `ready`
//! reaches `s_req.ready` or a `valid`) and that an offered output stays
//! offered unchanged.

use crate::resp_check::OpenMemory;
use rnic_hw::consts::*;
use rnic_proto::rc::responder::{QpAccess, Responder, ResponderConfig};
use rnic_proto::rc::RcPacket;
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// A READ to answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadJob {
    pub va: u64,
    pub len: u32,
    pub rkey: u32,
    pub pd: u32,
    pub pmtu: Pmtu,
}

/// A request on `s_req`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RespReq {
    pub qpn: u32,
    pub dest_qpn: u32,
    pub pkey: u16,
    pub psn: u32,
    /// The AETH's kind (`AETH_KIND_*`) and value.
    pub kind: u64,
    pub code: u64,
    pub msn: u32,
    pub read: Option<ReadJob>,
    /// An executed atomic's ACK: its original value (no READ then).
    pub atomic: Option<u64>,
    /// The path entry, 64 bytes (only carried through).
    pub path: [u32; 16],
}

/// One packet the block should offer: its header request and fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pkt {
    pub opcode: u64,
    pub psn: u32,
    pub plen: u64,
    /// An ATOMIC ACKNOWLEDGE's original value.
    pub orig: Option<u64>,
    /// The fragment: (key, pd, va, len, id) when the packet has payload.
    pub frag: Option<(u64, u64, u64, u64, u64)>,
}

/// The packets answering `r`, from the protocol model for a READ.
pub fn expected(r: &RespReq) -> Vec<Pkt> {
    if let Some(orig) = r.atomic {
        let opcode = Opcode::RcAtomicAck.value() as u64;
        return vec![Pkt { opcode, psn: r.psn, plen: 0, orig: Some(orig), frag: None }];
    }
    let Some(j) = r.read else {
        return vec![Pkt { opcode: BTH_RC_ACKNOWLEDGE, psn: r.psn, plen: 0, orig: None, frag: None }];
    };
    let cfg = ResponderConfig {
        dest_qp: r.dest_qpn,
        pmtu: j.pmtu,
        start_psn: Psn::new(r.psn),
        max_dest_rd_atomic: 1,
        min_rnr_timer: RnrTimer::new(0).unwrap(),
        pd: j.pd,
        max_recv_sge: 4,
        access: QpAccess { remote_write: true, remote_read: true, remote_atomic: true },
    };
    let mut model = Responder::new(cfg);
    let req = RcPacket::new(
        Opcode::RcReadRequest,
        r.qpn,
        Psn::new(r.psn),
        true,
        ExtHeaders::Reth(Reth { va: j.va, rkey: j.rkey, dma_len: j.len }),
        vec![],
    );
    let out = model.receive(&req, &mut OpenMemory);
    assert!(!out.is_empty(), "the model answers the READ");
    let mut va = j.va;
    out.iter()
        .map(|p| {
            let plen = p.payload.len() as u64;
            let has_aeth = p.ext.aeth().is_some();
            let op = p.bth.opcode;
            assert_eq!(has_aeth, op != Opcode::RcReadResponseMiddle, "the AETH on FIRST/LAST/ONLY");
            let psn = p.bth.psn.value();
            let frag = (plen > 0).then_some((
                j.rkey as u64,
                j.pd as u64,
                va,
                plen,
                (1 << REQ_FRAG_LAST) | (psn as u64 & 0x7f),
            ));
            va = va.wrapping_add(plen);
            Pkt { opcode: op.value() as u64, psn, plen, orig: None, frag }
        })
        .collect()
}

/// A random request: READs `read_pct` of the time, lengths around the
/// PMTU's multiples; of the others one in four an atomic's ACK.
pub fn random_req(rng: &mut Rng, qpns: &[u32], read_pct: u64) -> RespReq {
    let pmtus = [Pmtu::Mtu256, Pmtu::Mtu512, Pmtu::Mtu1024, Pmtu::Mtu2048, Pmtu::Mtu4096];
    let pmtu = pmtus[(rng.next() % 5) as usize];
    let b = pmtu.bytes() as u32;
    let len = match rng.next() % 8 {
        0 => 0,
        1 => 1 + (rng.next() as u32 % 64),
        2 => b,
        3 => b + 1,
        4 => b * (2 + rng.next() as u32 % 4),
        5 => b * (2 + rng.next() as u32 % 4) - 1,
        6 => rng.next() as u32 % (6 * b),
        _ => rng.next() as u32 % 70_000,
    };
    let read = rng.chance(read_pct).then(|| ReadJob {
        va: rng.next() ^ (rng.next() << 32),
        len,
        rkey: rng.next() as u32,
        pd: rng.next() as u32 & 0xff_ffff,
        pmtu,
    });
    let atomic = (read.is_none() && rng.chance(25)).then(|| rng.next() ^ (rng.next() << 32));
    let (kind, code) = match (read.is_some() || atomic.is_some(), rng.next() % 4) {
        (true, _) | (false, 0 | 1) => (AETH_KIND_ACK, AETH_CREDIT_UNLIMITED),
        (false, 2) => (AETH_KIND_RNR_NAK, rng.next() % 32),
        _ => (AETH_KIND_NAK, rng.next() % 4),
    };
    let mut path = [0u32; 16];
    path.iter_mut().for_each(|w| *w = rng.next() as u32);
    RespReq {
        qpn: qpns[(rng.next() % qpns.len() as u64) as usize],
        dest_qpn: rng.next() as u32 & 0xff_ffff,
        pkey: rng.next() as u16,
        psn: rng.next() as u32 & 0xff_ffff,
        kind,
        code,
        msn: rng.next() as u32 & 0xff_ffff,
        read,
        atomic,
        path,
    }
}

/// Puts a request on `s_req` (`valid` as given).
pub fn set_req<M: Model + ?Sized>(d: &mut M, r: &RespReq, valid: bool) {
    let j = r.read.unwrap_or(ReadJob { va: 0, len: 0, rkey: 0, pd: 0, pmtu: Pmtu::Mtu256 });
    for (n, v) in [
        ("qpn", r.qpn as u64),
        ("dest_qpn", r.dest_qpn as u64),
        ("pkey", r.pkey as u64),
        ("psn", r.psn as u64),
        ("kind", r.kind),
        ("code", r.code),
        ("msn", r.msn as u64),
        ("read", r.read.is_some() as u64),
        ("atomic", r.atomic.is_some() as u64),
        ("va", r.atomic.unwrap_or(j.va)),
        ("len", j.len as u64),
        ("rkey", j.rkey as u64),
        ("pd", j.pd as u64),
        ("pmtu", j.pmtu as u64),
        ("valid", valid as u64),
    ] {
        d.set(&format!("s_req.{n}"), v);
    }
    let i = d.port("s_req.path");
    d.set_words(i, &r.path);
}

/// What `m_ack` carries, as read from the ports.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AckOut {
    fields: [u64; 11],
    path: Vec<u32>,
}

fn read_ack<M: Model>(d: &M) -> AckOut {
    let names = ["qpn", "dest_qpn", "pkey", "psn", "kind", "code", "msn", "opcode", "plen", "valid", "orig"];
    let fields = names.map(|n| d.get(&format!("m_ack.{n}")));
    let mut path = vec![0u32; 16];
    d.get_words(d.port("m_ack.path"), &mut path);
    AckOut { fields, path }
}

fn read_frag<M: Model>(d: &M) -> [u64; 7] {
    ["key", "pd", "va", "len", "id", "access", "valid"].map(|n| d.get(&format!("m_frag.{n}")))
}

/// The block under test with its reference.
pub struct RespGenBench<M: Model> {
    pub sim: Clocked<M>,
    pub rng: Rng,
    /// Percent of cycles a queued request is offered, and each output's `ready` is high.
    pub req_pct: u64,
    pub ack_pct: u64,
    pub frag_pct: u64,
    pub queue: VecDeque<RespReq>,
    offering: bool,
    /// Every request taken and the cycle it was taken.
    pub taken: Vec<RespReq>,
    pub take_cycles: Vec<u64>,
    /// The packets still owed on each output, in order: (request index, packet).
    owed_ack: VecDeque<(usize, Pkt)>,
    owed_frag: VecDeque<(usize, Pkt)>,
    /// Per packet taken on `m_ack`: the request it answers and the cycles it was first offered and taken.
    pub acks: Vec<(usize, u64, u64)>,
    pub frags: usize,
    first_offer: Option<u64>,
    held_ack: Option<AckOut>,
    held_frag: Option<[u64; 7]>,
}

impl<M: Model> RespGenBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        RespGenBench {
            sim,
            rng: Rng(seed | 1),
            req_pct: 100,
            ack_pct: 100,
            frag_pct: 100,
            queue: VecDeque::new(),
            offering: false,
            taken: vec![],
            take_cycles: vec![],
            owed_ack: VecDeque::new(),
            owed_frag: VecDeque::new(),
            acks: vec![],
            frags: 0,
            first_offer: None,
            held_ack: None,
            held_frag: None,
        }
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    /// Nothing queued, offered or owed.
    pub fn quiet(&self) -> bool {
        self.queue.is_empty() && !self.offering && self.owed_ack.is_empty() && self.owed_frag.is_empty()
    }

    /// One cycle; each output's `ready` at random at its percentage.
    pub fn step(&mut self) {
        let now = self.now();
        if !self.offering && !self.queue.is_empty() && self.rng.chance(self.req_pct) {
            self.offering = true;
        }
        match self.queue.front() {
            Some(r) => set_req(&mut self.sim.dut, r, self.offering),
            None => self.sim.dut.set("s_req.valid", 0),
        }
        let a_ready = self.rng.chance(self.ack_pct);
        let f_ready = self.rng.chance(self.frag_pct);
        // the handshake rule: neither output's ready reaches s_req.ready or a valid
        let probe = |d: &mut M, a: bool, f: bool| {
            d.set("m_ack.ready", a as u64);
            d.set("m_frag.ready", f as u64);
        };
        probe(&mut self.sim.dut, !a_ready, !f_ready);
        self.sim.settle();
        let d = &self.sim.dut;
        let flipped = (d.get("s_req.ready"), d.get("m_ack.valid"), d.get("m_frag.valid"));
        probe(&mut self.sim.dut, a_ready, f_ready);
        self.sim.settle();
        let d = &self.sim.dut;
        let now_v = (d.get("s_req.ready"), d.get("m_ack.valid"), d.get("m_frag.valid"));
        assert_eq!(now_v, flipped, "cycle {now}: a ready reaches s_req.ready or a valid");
        let ack = read_ack(d);
        let frag = read_frag(d);
        let (s_ready, a_valid, f_valid) = (now_v.0 == 1, now_v.1 == 1, now_v.2 == 1);

        // ---- outputs: offered ones stay offered and unchanged; each against the next owed
        if let Some(prev) = &self.held_ack {
            assert!(a_valid && prev == &ack, "cycle {now}: m_ack withdrawn or changed while offered");
        }
        if let Some(prev) = &self.held_frag {
            assert!(f_valid && prev == &frag, "cycle {now}: m_frag withdrawn or changed while offered");
        }
        if a_valid {
            let (i, want) = self.owed_ack.front().unwrap_or_else(|| panic!("cycle {now}: m_ack {ack:x?} not owed"));
            let r = &self.taken[*i];
            let got = (ack.fields[7], ack.fields[3] as u32, ack.fields[8]);
            assert_eq!(
                got,
                (want.opcode, want.psn, want.plen),
                "cycle {now}: m_ack (opcode, psn, plen) of request {i}"
            );
            let same = [r.qpn as u64, r.dest_qpn as u64, r.pkey as u64, r.kind, r.code, r.msn as u64];
            let f = &ack.fields;
            assert_eq!([f[0], f[1], f[2], f[4], f[5], f[6]], same, "cycle {now}: m_ack fields of request {i}");
            assert_eq!(ack.path, r.path, "cycle {now}: m_ack path of request {i}");
            if let Some(orig) = want.orig {
                assert_eq!(ack.fields[10], orig, "cycle {now}: m_ack orig of request {i}");
            }
            self.first_offer.get_or_insert(now);
        }
        if f_valid {
            let (i, want) = self.owed_frag.front().unwrap_or_else(|| panic!("cycle {now}: m_frag {frag:x?} not owed"));
            let w = want.frag.unwrap();
            assert_eq!(
                [frag[0], frag[1], frag[2], frag[3], frag[4], frag[5]],
                [w.0, w.1, w.2, w.3, w.4, ACC_REMOTE_READ],
                "cycle {now}: m_frag of request {i}, packet PSN {:#x}",
                want.psn
            );
        }
        self.held_ack = (a_valid && !a_ready).then(|| ack.clone());
        self.held_frag = (f_valid && !f_ready).then_some(frag);
        if a_valid && a_ready {
            let (i, _) = self.owed_ack.pop_front().unwrap();
            self.acks.push((i, self.first_offer.take().unwrap(), now));
        }
        if f_valid && f_ready {
            self.owed_frag.pop_front();
            self.frags += 1;
        }
        if self.offering && s_ready {
            self.offering = false;
            let r = self.queue.pop_front().unwrap();
            let i = self.taken.len();
            for p in expected(&r) {
                if p.frag.is_some() {
                    self.owed_frag.push_back((i, p.clone()));
                }
                self.owed_ack.push_back((i, p));
            }
            self.taken.push(r);
            self.take_cycles.push(now);
        }
        self.sim.tick();
    }

    /// Steps until everything queued was answered (at most `max` cycles).
    pub fn drain(&mut self, max: u64) {
        let end = self.now() + max;
        while !self.quiet() {
            assert!(self.now() < end, "not drained in {max} cycles: {} owed", self.owed_ack.len());
            self.step();
        }
        for _ in 0..4 {
            self.step();
        }
    }
}
