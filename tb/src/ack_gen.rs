//! Bench for the responder's acknowledgements (`AckGen`, catalog
//! `ack_gen`): ACK requests in on `s_ack`, transmit headers out on `m_hdr`,
//! each stream stalled at random.
//!
//! The reference of a request ([`expected_header`]) is the protocol model's
//! ACK packet: `RcPacket::new(Opcode::RcAck, ..)` (an atomic's:
//! `RcAtomicAck` with the AtomicAckETH) with the AETH built by
//! `rnic_proto::Aeth::new(AethKind, msn)` (the responder model's own
//! constructor and syndrome table), wrapped in the Ethernet and IP headers
//! the `ah` entry describes (read with the contract's accessors, an
//! independent mapping), turned into the builder's header words by
//! `tx::tx_header`. The port values of a request come from the hardware's
//! `AETH_*` constants, so a constant that disagrees with the model's table
//! shows as a wrong syndrome.
//!
//! Which requests are merged depends on when the output stalls; the bench
//! keeps a model of the block's three registers (the pending request, the
//! skid register, the header offered) that predicts every cycle's
//! `s_ack.ready`, `m_hdr.tvalid` and header, and checks the result against
//! the merge rule on its own ([`AckGenBench::check_merge_rule`]): headers
//! leave in request order, and a request is missing only if it is an ACK
//! followed by an ACK of the same QP.

use crate::tx::{tx_field, tx_header};
use rnic_contract::layouts::ah;
use rnic_hw::consts::*;
use rnic_hw::wire::{TX_HDR_BITS, TX_HDR_FIELDS};
use rnic_proto::rc::RcPacket;
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;
use std::net::{Ipv4Addr, Ipv6Addr};

/// What an ACK request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckKind {
    /// An ACK with its credit code.
    Ack(u8),
    /// An RNR NAK with its timer code.
    RnrNak(u8),
    /// A NAK.
    Nak(NakCode),
}

/// One ACK request.
#[derive(Clone, Debug)]
pub struct AckReq {
    pub qpn: u32,
    pub dest_qpn: u32,
    pub pkey: u16,
    /// The `ah` entry (64 bytes).
    pub path: [u8; 64],
    pub psn: u32,
    pub kind: AckKind,
    pub msn: u32,
    /// An ATOMIC ACKNOWLEDGE with this original value (its AETH an ACK).
    pub atomic: Option<u64>,
}

impl AckReq {
    /// An ACKNOWLEDGE with an ACK syndrome: what may merge.
    pub fn is_ack(&self) -> bool {
        matches!(self.kind, AckKind::Ack(_)) && self.atomic.is_none()
    }
}

/// The port values (`kind`, `code`) of a request, from the hardware's constants.
pub fn kind_code(k: AckKind) -> (u64, u64) {
    match k {
        AckKind::Ack(c) => (AETH_KIND_ACK, c as u64),
        AckKind::RnrNak(t) => (AETH_KIND_RNR_NAK, t as u64),
        AckKind::Nak(n) => (
            AETH_KIND_NAK,
            match n {
                NakCode::PsnSequenceError => AETH_NAK_PSN_SEQ,
                NakCode::InvalidRequest => AETH_NAK_INVALID_REQ,
                NakCode::RemoteAccessError => AETH_NAK_REMOTE_ACCESS,
                NakCode::RemoteOperationalError => AETH_NAK_REMOTE_OP,
                other => panic!("the responder sends no {other:?}"),
            },
        ),
    }
}

/// The model's meaning of a request.
pub fn aeth_kind(k: AckKind) -> AethKind {
    match k {
        AckKind::Ack(c) => AethKind::Ack(AckCredit::new(c).expect("a 5-bit credit code")),
        AckKind::RnrNak(t) => AethKind::RnrNak(RnrTimer::new(t).expect("a 5-bit timer code")),
        AckKind::Nak(n) => AethKind::Nak(n),
    }
}

/// The Ethernet and IP headers an `ah` entry describes (contract accessors).
pub fn path_headers(path: &[u8; 64]) -> (EthernetHeader, IpHeader) {
    let dst = ah::DEST_IP.bytes(path).unwrap();
    let src = ah::SRC_IP.bytes(path).unwrap();
    let v6 = !(dst[..10].iter().all(|&b| b == 0) && dst[10] == 0xff && dst[11] == 0xff);
    let mac = |b: &[u8]| MacAddr(b.try_into().unwrap());
    let mut eth = EthernetHeader::new(mac(ah::DEST_MAC.bytes(path).unwrap()), mac(ah::SRC_MAC.bytes(path).unwrap()));
    if ah::VLAN.get(path).unwrap() {
        eth.vlan =
            Some(VlanTag { pcp: ah::VLAN_PCP.get(path).unwrap(), dei: false, vid: ah::VLAN_ID.get(path).unwrap() });
    }
    let tc = ah::TRAFFIC_CLASS.get(path).unwrap();
    let hop = ah::HOP_LIMIT.get(path).unwrap();
    let ip = if v6 {
        let a16 = |b: &[u8]| Ipv6Addr::from(<[u8; 16]>::try_from(b).unwrap());
        IpHeader::V6(Ipv6Header {
            dscp: tc >> 2,
            ecn: Ecn::from_bits(tc),
            flow_label: ah::FLOW_LABEL.get(path).unwrap(),
            payload_length: 0,
            next_header: 17,
            hop_limit: hop,
            src: a16(src),
            dst: a16(dst),
        })
    } else {
        let a4 = |b: &[u8]| Ipv4Addr::from(<[u8; 4]>::try_from(&b[12..]).unwrap());
        let mut h = Ipv4Header::new(a4(src), a4(dst));
        h.dscp = tc >> 2;
        h.ecn = Ecn::from_bits(tc);
        h.ttl = hop;
        IpHeader::V4(h)
    };
    (eth, ip)
}

/// The model's ACK packet for a request, as the builder sends it, and the
/// builder's header words for it.
pub fn expected_packet(r: &AckReq) -> (RocePacket, Vec<u32>) {
    let aeth = Aeth::new(aeth_kind(r.kind), r.msn);
    let (op, ext) = match r.atomic {
        Some(orig) => {
            (Opcode::RcAtomicAck, ExtHeaders::AethAtomicAckEth(aeth, AtomicAckEth { orig_remote_data: orig }))
        }
        None => (Opcode::RcAck, ExtHeaders::Aeth(aeth)),
    };
    let mut pkt = RcPacket::new(op, r.dest_qpn, Psn::new(r.psn), false, ext, vec![]);
    pkt.bth.pkey = r.pkey;
    let (eth, ip) = path_headers(&r.path);
    let mut roce = pkt.into_roce(eth, ip, 0);
    let words = tx_header(&mut roce, r.qpn, 0);
    (roce, words)
}

/// The builder's header words for a request.
pub fn expected_header(r: &AckReq) -> Vec<u32> {
    expected_packet(r).1
}

/// Every field that differs between two headers, for a failure message.
pub fn header_diff(got: &[u32], want: &[u32]) -> String {
    TX_HDR_FIELDS
        .iter()
        .filter(|(n, _)| tx_field(got, n) != tx_field(want, n))
        .map(|(n, _)| format!("{n}: got {:#x} want {:#x}", tx_field(got, n), tx_field(want, n)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A random path: IPv4-mapped or IPv6, with or without VLAN.
pub fn random_path(rng: &mut Rng) -> [u8; 64] {
    crate::req_gen::random_path(rng)
}

/// A random kind: ACKs `ack_pct` percent of the time (credit 0x1F mostly),
/// else RNR NAKs and the four NAKs.
pub fn random_kind(rng: &mut Rng, ack_pct: u64) -> AckKind {
    if rng.chance(ack_pct) {
        return AckKind::Ack(if rng.chance(70) { AETH_CREDIT_UNLIMITED as u8 } else { (rng.next() % 32) as u8 });
    }
    match rng.next() % 5 {
        0 => AckKind::RnrNak((rng.next() % 32) as u8),
        1 => AckKind::Nak(NakCode::PsnSequenceError),
        2 => AckKind::Nak(NakCode::InvalidRequest),
        3 => AckKind::Nak(NakCode::RemoteAccessError),
        _ => AckKind::Nak(NakCode::RemoteOperationalError),
    }
}

/// A random request for one of `qpns`, with the QP's fixed DEST_QPN, PKEY
/// and path half the time (a new path otherwise: a merge must keep the
/// newer).
pub fn random_req(rng: &mut Rng, qpns: &[u32], ack_pct: u64) -> AckReq {
    let qpn = qpns[(rng.next() % qpns.len() as u64) as usize];
    let mut fixed = Rng(qpn as u64 * 0x9e37_79b9 + 1);
    let q: &mut Rng = if rng.chance(50) { &mut fixed } else { &mut *rng };
    let (dest_qpn, pkey) = ((q.next() % (1 << 24)) as u32, q.next() as u16);
    let path = random_path(q);
    let kind = random_kind(rng, ack_pct);
    // an ACK now and then an atomic's (an ACK syndrome: what the responder sends)
    let atomic = (matches!(kind, AckKind::Ack(_)) && rng.chance(10)).then(|| rng.next() ^ (rng.next() << 32));
    AckReq {
        qpn,
        dest_qpn,
        pkey,
        path,
        psn: (rng.next() as u32) & Psn::MASK,
        kind,
        msn: (rng.next() as u32) & Psn::MASK,
        atomic,
    }
}

/// Puts a request on `s_ack` (`valid` as given).
pub fn set_req<M: Model + ?Sized>(d: &mut M, r: &AckReq, valid: bool) {
    let (kind, code) = kind_code(r.kind);
    for (n, v) in [
        ("qpn", r.qpn as u64),
        ("dest_qpn", r.dest_qpn as u64),
        ("pkey", r.pkey as u64),
        ("psn", r.psn as u64),
        ("kind", kind),
        ("code", code),
        ("msn", r.msn as u64),
        ("opcode", if r.atomic.is_some() { BTH_RC_ATOMIC_ACK } else { BTH_RC_ACKNOWLEDGE }),
        ("plen", 0),
        ("orig", r.atomic.unwrap_or(0)),
        ("valid", valid as u64),
    ] {
        let i = d.port(&format!("s_ack.{n}"));
        d.set_at(i, v);
    }
    let words: Vec<u32> = r.path.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let i = d.port("s_ack.path");
    d.set_words(i, &words);
}

/// The block's registers as the bench predicts them: request indices.
#[derive(Default, Clone, Copy)]
struct Regs {
    /// The header offered.
    o: Option<usize>,
    /// The pending request.
    p: Option<usize>,
    /// The skid register.
    k: Option<usize>,
}

/// The block under test with its reference.
pub struct AckGenBench<M: Model> {
    pub sim: Clocked<M>,
    ports: [usize; 5],
    pub rng: Rng,
    /// Percent of cycles a queued request is offered, and `m_hdr.tready` is high.
    pub req_pct: u64,
    pub out_pct: u64,
    /// Requests waiting to be offered.
    pub queue: VecDeque<AckReq>,
    offering: bool,
    /// Every request taken, in order, and the cycle it was taken.
    pub taken: Vec<AckReq>,
    pub take_cycles: Vec<u64>,
    regs: Regs,
    /// Per header taken from `m_hdr`: the request it answers, its words,
    /// the cycle it was first offered and the cycle it was taken.
    pub out_idx: Vec<usize>,
    pub out_hdrs: Vec<Vec<u32>>,
    pub offer_cycles: Vec<u64>,
    pub out_cycles: Vec<u64>,
    first_offer: Option<u64>,
    held: Option<Vec<u32>>,
    /// Requests merged away (replaced by the next one).
    pub merged: Vec<usize>,
}

impl<M: Model> AckGenBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let ports = ["s_ack.ready", "m_hdr.tdata", "m_hdr.tvalid", "m_hdr.tready", "s_ack.valid"].map(|n| dut.port(n));
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        AckGenBench {
            sim,
            ports,
            rng: Rng(seed | 1),
            req_pct: 100,
            out_pct: 100,
            queue: VecDeque::new(),
            offering: false,
            taken: vec![],
            take_cycles: vec![],
            regs: Regs::default(),
            out_idx: vec![],
            out_hdrs: vec![],
            offer_cycles: vec![],
            out_cycles: vec![],
            first_offer: None,
            held: None,
            merged: vec![],
        }
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    /// Nothing queued, offered or inside the block.
    pub fn quiet(&self) -> bool {
        self.queue.is_empty() && !self.offering && self.regs.o.is_none() && self.regs.p.is_none()
    }

    /// One cycle; `m_hdr.tready` as given, or random at `out_pct`.
    pub fn step_with(&mut self, out_ready: Option<bool>) {
        let now = self.now();
        let [in_ready, h_data, h_valid, h_ready, in_valid] = self.ports;
        if !self.offering && !self.queue.is_empty() && self.rng.chance(self.req_pct) {
            self.offering = true;
        }
        match self.queue.front() {
            Some(r) => set_req(&mut self.sim.dut, r, self.offering),
            None => self.sim.dut.set_at(in_valid, 0),
        }
        let ready = out_ready.unwrap_or_else(|| self.rng.chance(self.out_pct));
        // the handshake rule: m_hdr.tready reaches neither s_ack.ready nor m_hdr.tvalid
        self.sim.dut.set_at(h_ready, !ready as u64);
        self.sim.settle();
        let flipped = (self.sim.dut.bit_at(in_ready), self.sim.dut.bit_at(h_valid));
        self.sim.dut.set_at(h_ready, ready as u64);
        self.sim.settle();
        let d = &self.sim.dut;
        let (s_ready, valid) = (d.bit_at(in_ready), d.bit_at(h_valid));
        assert_eq!((s_ready, valid), flipped, "cycle {now}: s_ack.ready or m_hdr.tvalid follows m_hdr.tready");
        let mut hdr = vec![0u32; TX_HDR_BITS / 32];
        d.get_words(h_data, &mut hdr);

        // ---- the prediction of this cycle
        let r = self.regs;
        assert_eq!(s_ready, r.k.is_none(), "cycle {now}: s_ack.ready");
        assert_eq!(valid, r.o.is_some(), "cycle {now}: m_hdr.tvalid");
        if let Some(prev) = &self.held {
            assert!(valid, "cycle {now}: a header withdrawn");
            assert_eq!(prev, &hdr, "cycle {now}: a header changed while offered");
        }
        if let Some(o) = r.o {
            let want = expected_header(&self.taken[o]);
            assert!(hdr == want, "cycle {now}: header of request {o}: {}", header_diff(&hdr, &want));
            if self.first_offer.is_none() {
                self.first_offer = Some(now);
            }
        }
        self.held = (valid && !ready).then(|| hdr.clone());
        let took = if self.offering && s_ready {
            self.offering = false;
            self.taken.push(self.queue.pop_front().unwrap());
            self.take_cycles.push(now);
            Some(self.taken.len() - 1)
        } else {
            None
        };
        if valid && ready {
            self.out_idx.push(r.o.unwrap());
            self.out_hdrs.push(hdr);
            self.offer_cycles.push(self.first_offer.take().unwrap());
            self.out_cycles.push(now);
        }

        // ---- the registers after this cycle
        let o_free = r.o.is_none() || ready;
        let nx = r.k.or(took);
        let merge = match (r.p, nx) {
            (Some(p), Some(n)) => {
                let (a, b) = (&self.taken[p], &self.taken[n]);
                !o_free && a.qpn == b.qpn && a.is_ack() && b.is_ack()
            }
            _ => false,
        };
        if merge {
            self.merged.push(r.p.unwrap());
        }
        let p_load = nx.is_some() && (r.p.is_none() || o_free || merge);
        self.regs = Regs {
            o: if r.p.is_some() && o_free {
                r.p
            } else if ready {
                None
            } else {
                r.o
            },
            p: if p_load {
                nx
            } else if o_free {
                None
            } else {
                r.p
            },
            k: if p_load { None } else { r.k.or(took) },
        };
        self.sim.tick();
    }

    pub fn step(&mut self) {
        self.step_with(None);
    }

    /// Steps until every request is answered (bounded), then checks the
    /// merge rule.
    pub fn drain(&mut self, limit: u64) {
        let start = self.now();
        while !self.quiet() {
            self.step();
            assert!(self.now() - start < limit, "not drained after {limit} cycles");
        }
        for _ in 0..10 {
            self.step();
        }
        self.check_merge_rule();
    }

    /// The merge rule, independent of the register model: headers in
    /// request order, each request answered at most once, a request without
    /// a header only if it is an ACK whose next request is an ACK of the
    /// same QP, the last request always answered; the requests missing are
    /// exactly the merged ones.
    pub fn check_merge_rule(&self) {
        assert!(self.out_idx.windows(2).all(|w| w[0] < w[1]), "headers out of request order");
        let mut missing = vec![];
        let mut next = 0;
        for &i in self.out_idx.iter().chain(std::iter::once(&self.taken.len())) {
            missing.extend(next..i);
            next = i + 1;
        }
        for &m in &missing {
            let (a, b) = (&self.taken[m], self.taken.get(m + 1).expect("the last request is answered"));
            assert!(a.is_ack() && b.is_ack() && a.qpn == b.qpn, "request {m} ({a:?}) merged into {b:?}");
        }
        assert_eq!(missing, self.merged, "the requests missing are the merged ones");
    }
}
