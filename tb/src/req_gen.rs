//! Bench for the requester's packet generator (`ReqGen`, catalog
//! `req_gen`): jobs in on `s_job`, headers, fragments, dones and inflight
//! records out, each output taken with its own random stalls and checked
//! when taken against a reference built when its job was taken.
//!
//! The reference of a job ([`expect_job`]): the packets come from the
//! protocol model (`rnic_proto::rc::Requester`: the WQE posted, its first
//! send taken whole, then for a resume `resend_from(first + k)` and the
//! packets from there); each header field is derived from the model's
//! packet and, for the path fields, from the `ah` entry read with the
//! contract's accessors (an independent mapping); the fragments are the
//! walk of each packet's bytes over the SGEs; the done and the inflight
//! record from the model's PSNs.

use crate::tx::tx_field;
use rnic_contract::codes::{SendOpcode, WcStatus};
use rnic_contract::layouts::{ah, sge};
use rnic_hw::consts::{
    ACC_LOCAL_READ, ENT_KIND_REFUSED, INFLIGHT_PUSH, REQ_ERR_BAD_WQE, REQ_ERR_INLINE, REQ_ERR_NONE, REQ_ERR_TOO_LONG,
    REQ_FRAG_LAST,
};
use rnic_hw::transport::{
    ENTRY_FIRST_PSN, ENTRY_KIND, ENTRY_LAST_PSN, ENTRY_LEN, ENTRY_SIGNALED, ENTRY_WQE_INDEX, ENTRY_WR_ID,
    REQ_ACK_REQ_EVERY, REQ_ATOMIC_LEN, REQ_MAX_MESSAGE_LEN,
};
use rnic_hw::wire::{TX_HDR_BITS, TX_HDR_FIELDS};
use rnic_proto::rc::requester::{Requester, RequesterConfig, SendOp, SendWqe};
use rnic_proto::rc::{RcPacket, Remote, Sge};
use rnic_proto::{ExtHeaders, Pmtu, Psn};
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// The QP fields a job carries.
#[derive(Clone, Debug)]
pub struct QpFields {
    pub qpn: u32,
    pub dest_qpn: u32,
    pub pkey: u16,
    pub pd: u32,
    /// `codes::Mtu` value (1..=5 valid).
    pub pmtu: u8,
    /// The `ah` entry (64 bytes).
    pub path: [u8; 64],
}

/// The send WQE fields a job carries.
#[derive(Clone, Debug, Default)]
pub struct WqeFields {
    pub opcode: u8,
    pub solicited: bool,
    pub signaled: bool,
    pub inline: bool,
    pub imm: u32,
    pub remote_va: u64,
    pub rkey: u32,
    pub compare_add: u64,
    pub swap: u64,
    pub wr_id: u64,
    pub num_sge: u8,
    /// (addr, len, lkey)
    pub sges: [(u64, u32, u32); 4],
}

/// One job.
#[derive(Clone, Debug)]
pub struct Job {
    pub qp: QpFields,
    pub wqe: WqeFields,
    pub sq_index: u16,
    pub psn: u32,
    pub pkt_index: u32,
    pub budget: u32,
}

/// A fragment request as `m_frag` carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frag {
    pub key: u32,
    pub pd: u32,
    pub va: u64,
    pub len: u32,
    pub access: u64,
    pub id: u32,
}

/// A done as `m_done` carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    pub qpn: u32,
    pub sq_index: u32,
    pub next_psn: u32,
    pub next_pkt: u32,
    pub end_psn: u32,
    pub finished: bool,
    pub err: u64,
}

/// An inflight record as `m_push` carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Push {
    pub op: u64,
    pub qpn: u32,
    pub index: u64,
    pub data: Vec<u32>,
}

/// What a job must produce.
#[derive(Clone, Debug, Default)]
pub struct Expect {
    /// Per header, every field of `TX_HDR_FIELDS` by name.
    pub hdrs: Vec<Vec<(&'static str, u128)>>,
    pub frags: Vec<Frag>,
    pub done: Option<Done>,
    pub push: Option<Push>,
    /// `m_rwqe`: a READ with data's or an atomic's first job (QPN, SQ index, NUM_SGE, SGES).
    pub rwqe: Option<(u32, u16, u8, Vec<u32>)>,
    /// Fragments of each packet (0 for packets without payload).
    pub frags_per_pkt: Vec<usize>,
}

fn be(bytes: &[u8]) -> u128 {
    bytes.iter().fold(0u128, |a, b| (a << 8) | *b as u128)
}

fn pmtu_of(code: u8) -> Option<Pmtu> {
    Pmtu::from_ibv(code)
}

/// The path fields of a header from an `ah` entry (read with the
/// contract's accessors).
pub fn path_fields(path: &[u8; 64]) -> Vec<(&'static str, u128)> {
    let dst = ah::DEST_IP.bytes(path).unwrap();
    let src = ah::SRC_IP.bytes(path).unwrap();
    let v6 = !(dst[..10].iter().all(|&b| b == 0) && dst[10] == 0xff && dst[11] == 0xff);
    let vlan = ah::VLAN.get(path).unwrap();
    let tci = ((ah::VLAN_PCP.get(path).unwrap() as u128) << 13) | ah::VLAN_ID.get(path).unwrap() as u128;
    let tc = ah::TRAFFIC_CLASS.get(path).unwrap();
    let ip = |a: &[u8]| if v6 { be(a) } else { be(&a[12..]) };
    vec![
        ("eth_dst", be(ah::DEST_MAC.bytes(path).unwrap())),
        ("eth_src", be(ah::SRC_MAC.bytes(path).unwrap())),
        ("vlan", vlan as u128),
        ("vlan_tci", if vlan { tci } else { 0 }),
        ("v6", v6 as u128),
        ("dscp", (tc >> 2) as u128),
        ("ecn", (tc & 3) as u128),
        ("ttl", ah::HOP_LIMIT.get(path).unwrap() as u128),
        ("flow_label", if v6 { ah::FLOW_LABEL.get(path).unwrap() as u128 } else { 0 }),
        ("ip_src", ip(src)),
        ("ip_dst", ip(dst)),
    ]
}

/// The SGEs in use (the first NUM_SGE, at most 4).
fn used_sges(w: &WqeFields) -> Vec<(u64, u32, u32)> {
    w.sges.iter().take(w.num_sge.min(4) as usize).copied().collect()
}

/// The walk of bytes [start, start + len) of the message over the SGEs:
/// (lkey, va, len) per overlap, zero-length SGEs skipped.
pub fn walk(sges: &[(u64, u32, u32)], start: u64, len: u64) -> Vec<(u32, u64, u32)> {
    let mut out = vec![];
    let mut base = 0u64;
    let end = start + len;
    for &(addr, l, key) in sges {
        let (a, b) = (base.max(start), (base + l as u64).min(end));
        if a < b {
            out.push((key, addr.wrapping_add(a - base), (b - a) as u32));
        }
        base += l as u64;
    }
    assert_eq!(out.iter().map(|f| f.2 as u64).sum::<u64>(), len, "the SGEs hold the packet's bytes");
    out
}

/// The error a job gets (`REQ_ERR_*`), as the block defines it.
pub fn job_error(j: &Job) -> u64 {
    let w = &j.wqe;
    let atomic = w.opcode == SendOpcode::AtomicCmpAndSwp as u8 || w.opcode == SendOpcode::AtomicFetchAndAdd as u8;
    let total: u64 = used_sges(w).iter().map(|s| s.1 as u64).sum();
    if w.inline {
        REQ_ERR_INLINE
    } else if SendOpcode::from_raw(w.opcode as u64).is_none()
        || w.num_sge > 4
        || pmtu_of(j.qp.pmtu).is_none()
        || (atomic && !(w.num_sge == 1 && w.sges[0].1 as u64 == REQ_ATOMIC_LEN))
    {
        REQ_ERR_BAD_WQE
    } else if !atomic && total > REQ_MAX_MESSAGE_LEN {
        REQ_ERR_TOO_LONG
    } else {
        REQ_ERR_NONE
    }
}

/// An inflight entry's 32-bit words from its fields (lsb, width, value).
fn entry_words(fields: &[(usize, usize, u64)]) -> Vec<u32> {
    let mut data = vec![0u32; 7];
    for &(lsb, width, v) in fields {
        for k in 0..width {
            if (v >> k) & 1 == 1 {
                data[(lsb + k) / 32] |= 1 << ((lsb + k) % 32);
            }
        }
    }
    data
}

/// The reference of one job (see the module doc).
pub fn expect_job(j: &Job) -> Expect {
    let w = &j.wqe;
    let err = job_error(j);
    if err != REQ_ERR_NONE {
        // a WQE's first job pushes the refused entry: no PSN (an empty range
        // before the job's), its completion status in LEN
        let push = (j.pkt_index == 0).then(|| {
            let status = if err == REQ_ERR_TOO_LONG { WcStatus::LocLenErr } else { WcStatus::LocQpOpErr };
            let data = entry_words(&[
                (ENTRY_WQE_INDEX, 16, j.sq_index as u64),
                (ENTRY_FIRST_PSN, 24, j.psn as u64),
                (ENTRY_LAST_PSN, 24, Psn::new(j.psn).add(Psn::MASK).value() as u64),
                (ENTRY_KIND, 4, ENT_KIND_REFUSED),
                (ENTRY_SIGNALED, 1, w.signaled as u64),
                (ENTRY_WR_ID, 64, w.wr_id),
                (ENTRY_LEN, 32, status as u64),
            ]);
            Push { op: INFLIGHT_PUSH, qpn: j.qp.qpn, index: 0, data }
        });
        return Expect {
            done: Some(Done {
                qpn: j.qp.qpn,
                sq_index: j.sq_index as u32,
                next_psn: j.psn,
                next_pkt: j.pkt_index,
                end_psn: j.psn,
                finished: false,
                err,
            }),
            push,
            ..Default::default()
        };
    }
    let pmtu = pmtu_of(j.qp.pmtu).unwrap();
    let sges = used_sges(w);
    let total: u64 = sges.iter().map(|s| s.1 as u64).sum();
    let remote = Remote { va: w.remote_va, rkey: w.rkey };
    let op = SendOpcode::from_raw(w.opcode as u64).unwrap();
    let imm = matches!(op, SendOpcode::SendWithImm | SendOpcode::RdmaWriteWithImm).then_some(w.imm);
    let local0 = Sge { addr: w.sges[0].0, len: w.sges[0].1, lkey: w.sges[0].2 };
    let sop = match op {
        SendOpcode::Send | SendOpcode::SendWithImm => SendOp::Send { payload: vec![0; total as usize], imm },
        SendOpcode::RdmaWrite | SendOpcode::RdmaWriteWithImm => {
            SendOp::Write { payload: vec![0; total as usize], remote, imm }
        }
        SendOpcode::RdmaRead => SendOp::Read {
            remote,
            len: total as u32,
            local: sges.iter().map(|s| Sge { addr: s.0, len: s.1, lkey: s.2 }).collect(),
        },
        SendOpcode::AtomicCmpAndSwp => SendOp::CmpSwap { remote, compare: w.compare_add, swap: w.swap, local: local0 },
        SendOpcode::AtomicFetchAndAdd => SendOp::FetchAdd { remote, add: w.compare_add, local: local0 },
    };
    let rdat = sop.is_rd_atomic();
    let first = Psn::new(j.psn).add(Psn::MASK + 1 - (j.pkt_index & Psn::MASK));
    let mut model = Requester::new(RequesterConfig {
        dest_qp: j.qp.dest_qpn,
        pmtu,
        start_psn: first,
        ack_req_every: REQ_ACK_REQ_EVERY as u32,
        max_rd_atomic: 16,
        max_unacked_psns: Psn::HALF - 1,
        pd: j.qp.pd,
        retry_cnt: 7,
        rnr_retry: 7,
    });
    model.post(SendWqe { wr_id: w.wr_id, op: sop, signaled: w.signaled, fence: false }).expect("a valid WQE");
    let mut sent = vec![];
    while let Some(p) = model.next_packet() {
        sent.push(p);
    }
    let end = model.next_psn();
    let npkts = first.distance_to(end);
    assert!(j.pkt_index < npkts, "the job resumes inside the WQE");
    let count = if rdat { 1 } else { j.budget.max(1).min(npkts - j.pkt_index) };
    let pkts = if j.pkt_index == 0 {
        sent.truncate(count as usize);
        sent
    } else {
        assert!(model.resend_from(Psn::new(j.psn)));
        (0..count).map(|_| model.next_packet().expect("a resent packet")).collect()
    };
    let mut e = Expect::default();
    let solicit =
        w.solicited && (matches!(op, SendOpcode::Send | SendOpcode::SendWithImm) || op == SendOpcode::RdmaWriteWithImm);
    for (i, p) in pkts.iter().enumerate() {
        let seg = j.pkt_index + i as u32;
        assert_eq!(p.psn(), Psn::new(j.psn).add(i as u32), "the model's PSN");
        let f = header_fields(p, &j.qp, solicit);
        e.hdrs.push(f);
        let plen = p.payload.len() as u64;
        let pieces = if plen == 0 { vec![] } else { walk(&sges, seg as u64 * pmtu.bytes() as u64, plen) };
        e.frags_per_pkt.push(pieces.len());
        let n = pieces.len();
        for (x, (key, va, len)) in pieces.into_iter().enumerate() {
            let tag = p.psn().value() & ((1 << REQ_FRAG_LAST) - 1);
            e.frags.push(Frag {
                key,
                pd: j.qp.pd,
                va,
                len,
                access: ACC_LOCAL_READ,
                id: tag | (((x + 1 == n) as u32) << REQ_FRAG_LAST),
            });
        }
    }
    let next = j.pkt_index + count;
    e.done = Some(Done {
        qpn: j.qp.qpn,
        sq_index: j.sq_index as u32,
        next_psn: if rdat { end.value() } else { Psn::new(j.psn).add(count).value() },
        next_pkt: if rdat { npkts } else { next },
        end_psn: end.value(),
        finished: rdat || next == npkts,
        err: REQ_ERR_NONE,
    });
    if j.pkt_index == 0 {
        let len = if matches!(op, SendOpcode::AtomicCmpAndSwp | SendOpcode::AtomicFetchAndAdd) {
            REQ_ATOMIC_LEN
        } else {
            total
        };
        let data = entry_words(&[
            (ENTRY_WQE_INDEX, 16, j.sq_index as u64),
            (ENTRY_FIRST_PSN, 24, j.psn as u64),
            (ENTRY_LAST_PSN, 24, end.add(Psn::MASK).value() as u64),
            (ENTRY_KIND, 4, w.opcode as u64),
            (ENTRY_SIGNALED, 1, w.signaled as u64),
            (ENTRY_WR_ID, 64, w.wr_id),
            (ENTRY_LEN, 32, len),
        ]);
        e.push = Some(Push { op: INFLIGHT_PUSH, qpn: j.qp.qpn, index: 0, data });
        // the completer places a READ's data and an atomic's value over these SGEs
        let atomic = matches!(op, SendOpcode::AtomicCmpAndSwp | SendOpcode::AtomicFetchAndAdd);
        if (op == SendOpcode::RdmaRead && total > 0) || atomic {
            e.rwqe = Some((j.qp.qpn, j.sq_index, w.num_sge, sges_words(w)));
        }
    }
    e
}

/// Every field of `TX_HDR_FIELDS` of the transmit header for the model's
/// packet `p` of QP `qp` (path fields from its `ah` entry through
/// [`path_fields`]); `solicit`: the WQE asks for SE (a SEND or WRITE with
/// immediate with SOLICITED), which goes on its last packet.
pub fn header_fields(p: &RcPacket, qp: &QpFields, solicit: bool) -> Vec<(&'static str, u128)> {
    let last = matches!(p.opcode().position(), Some(rnic_proto::Position::Last | rnic_proto::Position::Only));
    let mut f = path_fields(&qp.path);
    let (mut reth, mut atomic, mut immdt) = ((0u128, 0u128, 0u128), (0u128, 0u128, 0u128, 0u128), 0u128);
    match &p.ext {
        ExtHeaders::Reth(r) | ExtHeaders::RethImmDt(r, _) => reth = (r.va as u128, r.rkey as u128, r.dma_len as u128),
        ExtHeaders::AtomicEth(a) => atomic = (a.va as u128, a.rkey as u128, a.swap_add as u128, a.compare as u128),
        _ => {}
    }
    if let ExtHeaders::ImmDt(x) | ExtHeaders::RethImmDt(_, x) = &p.ext {
        immdt = x.value as u128;
    }
    f.extend([
        ("ip_id", 0),
        ("opcode", p.opcode().value() as u128),
        ("se", (solicit && last) as u128),
        ("mig", 0),
        ("pkey", qp.pkey as u128),
        ("fecn", 0),
        ("becn", 0),
        ("destqp", p.bth.dest_qp as u128),
        ("ackreq", p.bth.ack_req as u128),
        ("psn", p.psn().value() as u128),
        ("src_qp", qp.qpn as u128),
        ("reth_va", reth.0),
        ("reth_rkey", reth.1),
        ("reth_dmalen", reth.2),
        ("aeth_syndrome", 0),
        ("aeth_msn", 0),
        ("atomic_va", atomic.0),
        ("atomic_rkey", atomic.1),
        ("atomic_swap", atomic.2),
        ("atomic_cmp", atomic.3),
        ("atomicack", 0),
        ("immdt", immdt),
        ("ieth_rkey", 0),
        ("deth_qkey", 0),
        ("deth_srcqp", 0),
        ("payload_len", p.payload.len() as u128),
    ]);
    assert_eq!(f.len(), TX_HDR_FIELDS.len());
    f
}

/// A random path: IPv4-mapped or IPv6, with or without VLAN.
pub fn random_path(rng: &mut Rng) -> [u8; 64] {
    let mut p = [0u8; 64];
    for b in p.iter_mut() {
        *b = rng.next() as u8;
    }
    if rng.chance(50) {
        for ip in [ah::DEST_IP, ah::SRC_IP] {
            let r = ip.range();
            p[r.start..r.start + 10].fill(0);
            p[r.start + 10] = 0xff;
            p[r.start + 11] = 0xff;
        }
    }
    p
}

/// Random QP fields with a valid PMTU.
pub fn random_qp(rng: &mut Rng) -> QpFields {
    QpFields {
        qpn: (rng.next() % (1 << 14)) as u32,
        dest_qpn: (rng.next() % (1 << 24)) as u32,
        pkey: rng.next() as u16,
        pd: (rng.next() % (1 << 24)) as u32,
        pmtu: 1 + (rng.next() % 5) as u8,
        path: random_path(rng),
    }
}

/// A random message length up to 64 KiB: often a multiple of the PMTU,
/// sometimes 0 or tiny.
pub fn random_len(rng: &mut Rng, pmtu: u64) -> u64 {
    match rng.next() % 6 {
        0 => 0,
        1 => rng.next() % 16,
        2 => pmtu * (1 + rng.next() % 8),
        3 => rng.next() % (4 * pmtu),
        _ => rng.next() % (64 << 10),
    }
}

/// A random valid WQE of `opcode` (0..=6) for a PMTU of `pmtu` bytes.
pub fn random_wqe(rng: &mut Rng, opcode: u8, pmtu: u64) -> WqeFields {
    let mut w = WqeFields {
        opcode,
        solicited: rng.chance(50),
        signaled: rng.chance(50),
        inline: false,
        imm: rng.next() as u32,
        remote_va: rng.next(),
        rkey: rng.next() as u32,
        compare_add: rng.next(),
        swap: rng.next(),
        wr_id: rng.next(),
        ..Default::default()
    };
    for s in w.sges.iter_mut() {
        *s = (rng.next(), rng.next() as u32, rng.next() as u32);
    }
    if opcode == SendOpcode::AtomicCmpAndSwp as u8 || opcode == SendOpcode::AtomicFetchAndAdd as u8 {
        w.num_sge = 1;
        w.sges[0].1 = REQ_ATOMIC_LEN as u32;
        return w;
    }
    w.num_sge = (rng.next() % 5) as u8;
    let total = if w.num_sge == 0 { 0 } else { random_len(rng, pmtu) };
    // split the total over the SGEs, some of them zero-length
    let n = w.num_sge as usize;
    let mut left = total;
    for i in 0..n {
        let l = if i + 1 == n {
            left
        } else if rng.chance(25) {
            0
        } else {
            rng.next() % (left + 1)
        };
        w.sges[i].1 = l as u32;
        left -= l;
    }
    w
}

/// Packets of a valid job's WQE (the model's count).
pub fn wqe_packets(j: &Job) -> u32 {
    let w = &j.wqe;
    if w.opcode >= SendOpcode::AtomicCmpAndSwp as u8 {
        return 1;
    }
    let total: u64 = used_sges(w).iter().map(|s| s.1 as u64).sum();
    let pmtu = pmtu_of(j.qp.pmtu).unwrap().bytes() as u64;
    total.div_ceil(pmtu).max(1) as u32
}

/// A random job: a valid WQE of a random opcode, a PSN near the 24-bit
/// wrap half the time, a resume point half the time, a random budget.
pub fn random_job(rng: &mut Rng) -> Job {
    let qp = random_qp(rng);
    let pmtu = pmtu_of(qp.pmtu).unwrap().bytes() as u64;
    let opcode = (rng.next() % 7) as u8;
    let wqe = random_wqe(rng, opcode, pmtu);
    let mut j = Job { qp, wqe, sq_index: rng.next() as u16, psn: 0, pkt_index: 0, budget: 1 };
    let n = wqe_packets(&j);
    j.pkt_index = if rng.chance(50) { 0 } else { (rng.next() % n as u64) as u32 };
    j.psn = if rng.chance(50) {
        (Psn::MASK - (rng.next() % 300) as u32) & Psn::MASK
    } else {
        (rng.next() as u32) & Psn::MASK
    };
    j.budget = match rng.next() % 4 {
        0 => 1,
        1 => 1 + (rng.next() % 4) as u32,
        2 => 1 + (rng.next() % 200) as u32,
        _ => 1 << 20,
    };
    j
}

/// The SGES field of a WQE's four SGE places, as 32-bit words.
fn sges_words(w: &WqeFields) -> Vec<u32> {
    let mut sges = [0u8; 64];
    for (k, s) in w.sges.iter().enumerate() {
        let e = &mut sges[k * sge::SIZE..(k + 1) * sge::SIZE];
        sge::ADDR.set(e, s.0).unwrap();
        sge::LEN.set(e, s.1).unwrap();
        sge::LKEY.set(e, s.2).unwrap();
    }
    sges.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Puts a job on `s_job` (`valid` as given).
pub fn set_job<M: Model + ?Sized>(d: &mut M, j: &Job, valid: bool) {
    let w = &j.wqe;
    let words = |b: &[u8]| -> Vec<u32> { b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect() };
    let narrow: [(&str, u64); 20] = [
        ("qpn", j.qp.qpn as u64),
        ("dest_qpn", j.qp.dest_qpn as u64),
        ("pkey", j.qp.pkey as u64),
        ("pd", j.qp.pd as u64),
        ("pmtu", j.qp.pmtu as u64),
        ("opcode", w.opcode as u64),
        ("solicited", w.solicited as u64),
        ("signaled", w.signaled as u64),
        ("is_inline", w.inline as u64),
        ("imm", w.imm as u64),
        ("remote_va", w.remote_va),
        ("rkey", w.rkey as u64),
        ("compare_add", w.compare_add),
        ("swap", w.swap),
        ("wr_id", w.wr_id),
        ("num_sge", w.num_sge as u64),
        ("sq_index", j.sq_index as u64),
        ("psn", j.psn as u64),
        ("pkt_index", j.pkt_index as u64),
        ("budget", j.budget as u64),
    ];
    for (n, v) in narrow {
        let i = d.port(&format!("s_job.{n}"));
        d.set_at(i, v);
    }
    let i = d.port("s_job.path");
    d.set_words(i, &words(&j.qp.path));
    let i = d.port("s_job.sges");
    d.set_words(i, &sges_words(w));
    let i = d.port("s_job.valid");
    d.set_at(i, valid as u64);
}

struct Ports {
    j_valid: usize,
    j_ready: usize,
    h_data: usize,
    h_sq: usize,
    h_valid: usize,
    h_ready: usize,
    f: [usize; 6],
    f_valid: usize,
    f_ready: usize,
    d: [usize; 7],
    d_valid: usize,
    d_ready: usize,
    p: [usize; 4],
    p_valid: usize,
    p_ready: usize,
    w: [usize; 4],
    w_valid: usize,
}

/// An output's offered value, to check it stays offered unchanged.
type Held = Option<Vec<u64>>;

/// The block under test with its reference.
pub struct ReqGenBench<M: Model> {
    pub sim: Clocked<M>,
    p: Ports,
    pub rng: Rng,
    /// Percent of cycles each output's ready is high: hdr, frag, done, push.
    pub ready_pct: [u64; 4],
    /// Percent of cycles a queued job is offered.
    pub job_pct: u64,
    pub jobs: VecDeque<Job>,
    offering: bool,
    exp_hdrs: VecDeque<Vec<(&'static str, u128)>>,
    /// The SQ index beside each header.
    exp_hdr_sq: VecDeque<u64>,
    exp_frags: VecDeque<Frag>,
    exp_dones: VecDeque<Done>,
    exp_pushes: VecDeque<Push>,
    exp_rwqes: VecDeque<(u32, u16, u8, Vec<u32>)>,
    /// `m_rwqe` pulses checked.
    pub rwqes: u64,
    held: [Held; 4],
    /// Cycle each job was taken.
    pub job_cycles: Vec<u64>,
    /// Cycle each header, fragment, done was first offered.
    pub hdr_cycles: Vec<u64>,
    pub frag_cycles: Vec<u64>,
    pub done_cycles: Vec<u64>,
    pub push_cycles: Vec<u64>,
    /// Headers, fragments, dones, pushes checked.
    pub counts: [u64; 4],
}

impl<M: Model> ReqGenBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let i = |n: &str| dut.port(n);
        let p = Ports {
            j_valid: i("s_job.valid"),
            j_ready: i("s_job.ready"),
            h_data: i("m_hdr.tdata"),
            h_sq: i("m_hdr.sq_index"),
            h_valid: i("m_hdr.tvalid"),
            h_ready: i("m_hdr.tready"),
            f: ["key", "pd", "va", "len", "access", "id"].map(|n| i(&format!("m_frag.{n}"))),
            f_valid: i("m_frag.valid"),
            f_ready: i("m_frag.ready"),
            d: ["qpn", "sq_index", "next_psn", "next_pkt", "end_psn", "finished", "err"]
                .map(|n| i(&format!("m_done.{n}"))),
            d_valid: i("m_done.valid"),
            d_ready: i("m_done.ready"),
            p: ["op", "qpn", "index", "data"].map(|n| i(&format!("m_push.{n}"))),
            p_valid: i("m_push.valid"),
            p_ready: i("m_push.ready"),
            w: ["qpn", "index", "num", "sges"].map(|n| i(&format!("m_rwqe.{n}"))),
            w_valid: i("m_rwqe.valid"),
        };
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        ReqGenBench {
            sim,
            p,
            rng: Rng(seed | 1),
            ready_pct: [100; 4],
            job_pct: 100,
            jobs: VecDeque::new(),
            offering: false,
            exp_hdrs: VecDeque::new(),
            exp_hdr_sq: VecDeque::new(),
            exp_frags: VecDeque::new(),
            exp_dones: VecDeque::new(),
            exp_pushes: VecDeque::new(),
            exp_rwqes: VecDeque::new(),
            rwqes: 0,
            held: [None, None, None, None],
            job_cycles: vec![],
            hdr_cycles: vec![],
            frag_cycles: vec![],
            done_cycles: vec![],
            push_cycles: vec![],
            counts: [0; 4],
        }
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    /// Nothing queued and nothing expected.
    pub fn quiet(&self) -> bool {
        self.jobs.is_empty()
            && !self.offering
            && self.exp_hdrs.is_empty()
            && self.exp_frags.is_empty()
            && self.exp_dones.is_empty()
            && self.exp_pushes.is_empty()
            && self.exp_rwqes.is_empty()
    }

    fn drive_job(&mut self) {
        match self.jobs.front() {
            Some(j) => set_job(&mut self.sim.dut, j, self.offering),
            None => self.sim.dut.set_at(self.p.j_valid, 0),
        }
    }

    /// Checks that an output offered last cycle and not taken is offered
    /// again, unchanged; records the first offer.
    fn hold(&mut self, which: usize, valid: bool, value: Vec<u64>, now: u64) {
        if let Some(prev) = &self.held[which] {
            assert!(valid, "cycle {now}: output {which} withdrawn");
            assert_eq!(prev, &value, "cycle {now}: output {which} changed while offered");
        } else if valid {
            match which {
                0 => self.hdr_cycles.push(now),
                1 => self.frag_cycles.push(now),
                2 => self.done_cycles.push(now),
                _ => self.push_cycles.push(now),
            }
        }
    }

    /// One cycle.
    pub fn step(&mut self) {
        let now = self.now();
        if !self.offering && !self.jobs.is_empty() && self.rng.chance(self.job_pct) {
            self.offering = true;
        }
        self.drive_job();
        let readies: Vec<bool> = self.ready_pct.iter().map(|&p| self.rng.chance(p)).collect();
        let d = &mut self.sim.dut;
        d.set_at(self.p.h_ready, readies[0] as u64);
        d.set_at(self.p.f_ready, readies[1] as u64);
        d.set_at(self.p.d_ready, readies[2] as u64);
        d.set_at(self.p.p_ready, readies[3] as u64);
        self.sim.settle();

        // ---- the job
        let d = &self.sim.dut;
        if self.offering && d.bit_at(self.p.j_ready) {
            let j = self.jobs.pop_front().unwrap();
            self.offering = false;
            let e = expect_job(&j);
            self.exp_hdr_sq.extend(e.hdrs.iter().map(|_| j.sq_index as u64));
            self.exp_hdrs.extend(e.hdrs);
            self.exp_frags.extend(e.frags);
            self.exp_dones.extend(e.done);
            self.exp_pushes.extend(e.push);
            self.exp_rwqes.extend(e.rwqe);
            self.job_cycles.push(now);
        }

        // ---- headers
        let d = &self.sim.dut;
        let hv = d.bit_at(self.p.h_valid);
        let mut hw = vec![0u32; TX_HDR_BITS / 32];
        d.get_words(self.p.h_data, &mut hw);
        let sq = d.get_at(self.p.h_sq);
        let hvals: Vec<u64> = hw.iter().map(|&x| x as u64).chain([sq]).collect();
        self.hold(0, hv, hvals.clone(), now);
        self.held[0] = (hv && !readies[0]).then_some(hvals);
        if hv && readies[0] {
            let exp = self.exp_hdrs.pop_front().unwrap_or_else(|| panic!("cycle {now}: a header nobody expects"));
            let want_sq = self.exp_hdr_sq.pop_front().unwrap();
            assert_eq!(sq, want_sq, "cycle {now}: header {} SQ index", self.counts[0]);
            for (name, v) in &exp {
                assert_eq!(tx_field(&hw, name), *v, "cycle {now}: header {} field {name}", self.counts[0]);
            }
            self.counts[0] += 1;
        }

        // ---- fragments
        let d = &self.sim.dut;
        let fv = d.bit_at(self.p.f_valid);
        let fvals: Vec<u64> = self.p.f.iter().map(|&x| d.get_at(x)).collect();
        self.hold(1, fv, fvals.clone(), now);
        self.held[1] = (fv && !readies[1]).then(|| fvals.clone());
        if fv && readies[1] {
            let got = Frag {
                key: fvals[0] as u32,
                pd: fvals[1] as u32,
                va: fvals[2],
                len: fvals[3] as u32,
                access: fvals[4],
                id: fvals[5] as u32,
            };
            let exp = self.exp_frags.pop_front().unwrap_or_else(|| panic!("cycle {now}: a fragment nobody expects"));
            assert_eq!(got, exp, "cycle {now}: fragment {}", self.counts[1]);
            self.counts[1] += 1;
        }

        // ---- dones
        let d = &self.sim.dut;
        let dv = d.bit_at(self.p.d_valid);
        let dvals: Vec<u64> = self.p.d.iter().map(|&x| d.get_at(x)).collect();
        self.hold(2, dv, dvals.clone(), now);
        self.held[2] = (dv && !readies[2]).then(|| dvals.clone());
        if dv && readies[2] {
            let got = Done {
                qpn: dvals[0] as u32,
                sq_index: dvals[1] as u32,
                next_psn: dvals[2] as u32,
                next_pkt: dvals[3] as u32,
                end_psn: dvals[4] as u32,
                finished: dvals[5] == 1,
                err: dvals[6],
            };
            let exp = self.exp_dones.pop_front().unwrap_or_else(|| panic!("cycle {now}: a done nobody expects"));
            assert_eq!(got, exp, "cycle {now}: done {}", self.counts[2]);
            self.counts[2] += 1;
        }

        // ---- pushes
        let d = &self.sim.dut;
        let pv = d.bit_at(self.p.p_valid);
        let mut data = vec![0u32; 7];
        d.get_words(self.p.p[3], &mut data);
        let mut pvals: Vec<u64> = self.p.p[..3].iter().map(|&x| d.get_at(x)).collect();
        pvals.extend(data.iter().map(|&x| x as u64));
        self.hold(3, pv, pvals.clone(), now);
        self.held[3] = (pv && !readies[3]).then(|| pvals.clone());
        if pv && readies[3] {
            let got = Push { op: pvals[0], qpn: pvals[1] as u32, index: pvals[2], data };
            let exp = self.exp_pushes.pop_front().unwrap_or_else(|| panic!("cycle {now}: a push nobody expects"));
            assert_eq!(got, exp, "cycle {now}: push {}", self.counts[3]);
            self.counts[3] += 1;
        }

        // ---- the READ and atomic WQEs for the completer (pulses)
        let d = &self.sim.dut;
        if d.bit_at(self.p.w_valid) {
            let mut sges = vec![0u32; 16];
            d.get_words(self.p.w[3], &mut sges);
            let got = (d.get_at(self.p.w[0]) as u32, d.get_at(self.p.w[1]) as u16, d.get_at(self.p.w[2]) as u8, sges);
            let exp = self.exp_rwqes.pop_front().unwrap_or_else(|| panic!("cycle {now}: an m_rwqe nobody expects"));
            assert_eq!(got, exp, "cycle {now}: m_rwqe {}", self.rwqes);
            self.rwqes += 1;
        }
        self.sim.tick();
    }

    /// Steps until every job is done and checked (bounded).
    pub fn drain(&mut self, limit: u64) {
        let start = self.now();
        while !self.quiet() {
            self.step();
            assert!(self.now() - start < limit, "not drained after {limit} cycles");
        }
        // nothing more may come
        for _ in 0..20 {
            self.step();
        }
    }
}
