//! The requester's transmit path (`ReqTx`, catalog `req_tx`: `req_fetch`
//! -> `req_gen` -> `req_payload` -> `payload_gather`) against
//! `rnic_proto::rc::Requester`, frame for frame (bench `rnic_tb::req_tx`):
//! random WQEs of every opcode over several QPs and every PMTU under
//! stalls on every port; an INLINE WQE refused and reported; a bad lkey
//! dropping its WQE's packets with one report; the grant-to-header latency
//! of an idle block; a long WRITE at PMTU 4096 streaming one beat per cycle.

use rnic_contract::codes::SendOpcode;
use rnic_contract::mr::{Access, Mpt, MrRequest};
use rnic_hw::consts::REQ_ERR_INLINE;
use rnic_hw::transport::{
    REQ_FETCH_FIXED_LATENCY, REQ_GEN_LATENCY, REQ_PAYLOAD_FRAG_LATENCY, REQ_PAYLOAD_HDR_LATENCY, REQ_TX_HDR_LATENCY,
    SQ_AHEAD_MISS_EXTRA,
};
use rnic_sim::axis::Rng;
use rnic_sim::models::req_tx::Dut;
use rnic_tb::mr::MrWorld;
use rnic_tb::req_tx::TxBench;
use rnic_tb::tx_chain::TxChain;

type Bench = TxBench<Dut>;

const OPS: [SendOpcode; 7] = [
    SendOpcode::RdmaWrite,
    SendOpcode::RdmaWriteWithImm,
    SendOpcode::Send,
    SendOpcode::SendWithImm,
    SendOpcode::RdmaRead,
    SendOpcode::AtomicCmpAndSwp,
    SendOpcode::AtomicFetchAndAdd,
];

fn world(seed: u64) -> MrWorld {
    MrWorld::random(&mut Rng(seed), 8, 64)
}

/// A PD with valid regions in the world.
fn some_pd(w: &MrWorld) -> u32 {
    w.mpt.values().find(|m| m.valid).expect("a valid region").pd
}

/// A bench with everything stalled at random.
fn stalled(seed: u64) -> Bench {
    let mut b = TxBench::new(Dut::new(), world(seed), seed);
    b.ready_pct = 70;
    b.valid_pct = 70;
    b.cache_lat = (1, 20);
    b.wqe_rd.lat = (5, 40);
    b.wqe_rd.p_cmd = 70;
    b.wqe_rd.p_data = 70;
    b.pay_rd.lat = (10, 40);
    b.pay_rd.p_cmd = 70;
    b.pay_rd.p_data = 70;
    b.xlate.lat = (5, 40);
    b.xlate.p_req = 70;
    b.xlate.p_resp = 70;
    b
}

/// WQEs per QP in the random run (at most 16: the model's READ/atomic limit, never acknowledged).
const PER_QP: usize = 15;

/// Five QPs (one per PMTU, 256..4096), `PER_QP` random WQEs each (every opcode,
/// 0..4 SGEs, some zero-length, lengths to a few PMTUs), the last QP ending
/// with an INLINE WQE; everything stalled. Every header field and payload
/// byte equals the model's, in order per QP; the INLINE WQE gives one
/// `m_err`, no packet, and its refused entry's PUSH.
#[test]
fn model_packets_every_opcode_under_stalls() {
    let mut b = stalled(5);
    let pd = some_pd(&b.world);
    let qpns: Vec<u32> = (0..5).map(|i| 0x1230 + 0x801 * i).collect();
    for (i, &q) in qpns.iter().enumerate() {
        b.add_qp(q, 1 + i as u8, pd);
    }
    let mut ops_used = [0u32; 7];
    let mut wqes = 0;
    for (i, &q) in qpns.iter().enumerate() {
        let pmtu = 128u32 << (1 + i);
        for k in 0..PER_QP {
            let op = OPS[(b.rng.next() % 7) as usize];
            // the first QP posts every opcode once first
            let op = match (i, OPS.get(k)) {
                (0, Some(&o)) => o,
                _ => op,
            };
            ops_used[OPS.iter().position(|&o| o == op).unwrap()] += 1;
            let max = if b.rng.chance(50) { 4 * pmtu + 100 } else { pmtu + 64 };
            let p = b.random_post(q, op, max);
            b.post(q, &p, None);
            wqes += 1;
        }
    }
    let last = qpns[4];
    let mut p = b.random_post(last, SendOpcode::Send, 100);
    p.inline = true;
    b.post(last, &p, None);
    let want_pkts: usize = b.qp.values().map(|q| q.want.len()).sum();
    for &q in &qpns {
        b.ring(q);
    }
    b.run(200_000);
    assert!(ops_used.iter().all(|&n| n > 0), "every opcode posted: {ops_used:?}");
    assert_eq!(b.hdrs.len(), want_pkts, "every packet out");
    assert_eq!(b.errs, vec![(last, PER_QP as u64, REQ_ERR_INLINE)], "the INLINE WQE reported once");
    assert_eq!(b.pushes, wqes + 1, "one inflight record per WQE sent, and the refused one's");
    assert!(b.xerrs.is_empty());
    let bytes: usize = b.beats.len();
    println!(
        "{} packets, {} payload beats, {} grants, {} write-backs, {} cycles",
        b.hdrs.len(),
        bytes,
        b.grants.len(),
        b.writes,
        b.now()
    );
    assert!(want_pkts > 80 && bytes > 600, "enough traffic: {want_pkts} packets, {bytes} beats");
}

/// A SEND whose lkey is wrong between two good WQEs: its packets are
/// dropped, one error record (QPN, SQ index, the key verdict), the WQEs
/// around it sent whole.
#[test]
fn bad_lkey_drops_the_wqe_and_reports_once() {
    let mut b = stalled(7);
    let pd = some_pd(&b.world);
    let q = 0x2a5;
    b.add_qp(q, 1, pd); // 256-byte PMTU: the bad SEND has several packets
    let p0 = b.random_post(q, SendOpcode::RdmaWrite, 700);
    b.post(q, &p0, None);
    let mut bad = b.random_post(q, SendOpcode::Send, 100);
    let s = b.good_sge(pd, 1000);
    bad.sges = vec![(s.0, s.1.max(600), s.2 ^ 0x100)];
    let r = MrRequest { key: bad.sges[0].2, pd, va: bad.sges[0].0, len: bad.sges[0].1, access: Access::LocalRead };
    let verdict = MrWorld::error(&b.world.expect(&r)).expect("the key fails") as u64;
    b.post(q, &bad, Some(verdict));
    let p2 = b.random_post(q, SendOpcode::SendWithImm, 700);
    b.post(q, &p2, None);
    let want = b.qp[&q].want.len();
    b.ring(q);
    b.run(50_000);
    assert_eq!(b.xerrs, vec![(q, 1, verdict)], "one report");
    assert_eq!(b.hdrs.len(), want);
    assert!(b.hdrs.iter().all(|h| h.2 != 1), "no packet of the bad WQE");
    assert!(b.hdrs.iter().any(|h| h.2 == 0) && b.hdrs.iter().any(|h| h.2 == 2));
}

/// An idle block, nothing stalled, caches answering after 1 cycle, the WQE
/// after 10, the translation after 25, the payload after 30: a one-packet
/// SEND's header leaves at grant + the sum of the stages (exact); a
/// zero-length SEND's at grant + h + d + `REQ_FETCH_FIXED_LATENCY` +
/// `SQ_AHEAD_MISS_EXTRA` (the WQE's read is a miss in `sq_ahead`) +
/// `REQ_TX_HDR_LATENCY`.
#[test]
fn grant_to_first_header_latency() {
    let (h, d, x) = (1u64, 10u64, 25u64);
    for empty in [false, true] {
        let mut b = TxBench::new(Dut::new(), world(9), 9);
        b.cache_lat = (h, 0);
        b.wqe_rd.lat = (d, 0);
        b.xlate.lat = (x, 0);
        let pd = some_pd(&b.world);
        b.add_qp(0x77, 3, pd);
        let mut p = b.random_post(0x77, SendOpcode::Send, 1000);
        // one SGE inside one page: one translated piece
        let mut s = b.good_sge(pd, 1000);
        while b.world.expect(&MrRequest { key: s.2, pd, va: s.0, len: s.1, access: Access::LocalRead }).len() != 1 {
            s = b.good_sge(pd, 1000);
        }
        p.sges = if empty { vec![] } else { vec![s] };
        b.post(0x77, &p, None);
        b.ring(0x77);
        b.run(5_000);
        let (g, hdr) = (b.grants[0].0, b.hdrs[0].0);
        let job = h + d + REQ_FETCH_FIXED_LATENCY + SQ_AHEAD_MISS_EXTRA;
        let want = if empty {
            job + REQ_TX_HDR_LATENCY
        } else {
            // the fragment leaves ReqGen with the header, reaches the translation unit a cycle later,
            // is answered x cycles after that; the header follows the last answer beat
            job + REQ_GEN_LATENCY + REQ_PAYLOAD_FRAG_LATENCY + x + REQ_PAYLOAD_HDR_LATENCY
        };
        println!("empty {empty}: grant at {g}, header at {hdr}: {} cycles (formula {want})", hdr - g);
        assert_eq!(hdr - g, want, "grant to header (empty {empty})");
    }
}

/// A bench with one QP (0x99, PMTU 4096) whose single WQE is a 64 KiB
/// WRITE from one 64-byte aligned SGE in 2 MiB pages, rung; the arbiter and
/// builder behind it when `chain`.
fn long_write_bench(chain: bool) -> Bench {
    let mut w = world(11);
    let idx = (0..256u32).find(|i| !w.mpt.contains_key(i)).expect("a free MPT index");
    let key = 0x5a00 | idx;
    let pd = 2;
    w.mpt.insert(
        idx,
        Mpt {
            va_base: 0x40_0000_0000,
            length: 1 << 21,
            key,
            pd,
            valid: true,
            local_write: true,
            remote_write: false,
            remote_read: false,
            remote_atomic: false,
            log_page_size: 21,
            mtt_base: 0x10,
        },
    );
    let mut b = TxBench::new(Dut::new(), w, 11);
    if chain {
        b.chain = Some(TxChain::new());
    }
    b.add_qp(0x99, 5, pd);
    let mut p = b.random_post(0x99, SendOpcode::RdmaWrite, 100);
    p.sges = vec![(0x40_0000_0000 + 0x1000, 64 << 10, key)];
    b.post(0x99, &p, None);
    b.ring(0x99);
    b
}

/// A 64 KiB WRITE at PMTU 4096 from one 64-byte aligned SGE in 2 MiB pages,
/// nothing stalled: 16 packets of 65 payload beats each (the payload starts
/// at lane 6 after RETH, lane 54 without), and once the first beat is out,
/// one beat per cycle to the last.
#[test]
fn long_write_streams_one_beat_per_cycle() {
    let mut b = long_write_bench(false);
    b.run(20_000);
    assert_eq!(b.hdrs.len(), 16);
    let (first, last) = (b.beats[0], *b.beats.last().unwrap());
    let n = b.beats.len() as u64;
    println!("{n} beats from cycle {first} to {last}: {} cycles", last - first + 1);
    assert_eq!(n, 16 * 65, "16 packets of 65 beats");
    assert_eq!(last - first + 1, n, "one beat per cycle once streaming");
}

/// The same traffic through `TxArb` and `TxBuild` (source 0, the MAC
/// taking 70 % of cycles), everything stalled: every frame decodes with a
/// good ICRC and IPv4 checksum and carries the model's packet, field for
/// field and byte for byte, in order.
#[test]
fn model_frames_through_arbiter_and_builder() {
    let mut b = stalled(21);
    let mut chain = TxChain::new();
    chain.p_mac = 70;
    b.chain = Some(chain);
    let pd = some_pd(&b.world);
    let qpns: Vec<u32> = (0..3).map(|i| 0x410 + 0x1003 * i).collect();
    for (i, &q) in qpns.iter().enumerate() {
        b.add_qp(q, [1, 3, 5][i], pd);
    }
    let mut ops_used = [0u32; 7];
    for (i, &q) in qpns.iter().enumerate() {
        for k in 0..12 {
            let op = match (i, OPS.get(k)) {
                (0, Some(&o)) => o,
                _ => OPS[(b.rng.next() % 7) as usize],
            };
            ops_used[OPS.iter().position(|&o| o == op).unwrap()] += 1;
            let p = b.random_post(q, op, 3000);
            b.post(q, &p, None);
        }
    }
    let want_pkts: usize = b.qp.values().map(|q| q.want.len()).sum();
    for &q in &qpns {
        b.ring(q);
    }
    b.run(200_000);
    let c = b.chain.as_ref().unwrap();
    println!("{} frames, {} MAC beats, {} cycles", c.frames.len(), c.mac_beats.len(), b.now());
    assert!(ops_used.iter().all(|&n| n > 0), "every opcode posted: {ops_used:?}");
    assert_eq!(c.frames.len(), want_pkts, "every packet out as a frame");
    assert!(want_pkts > 45, "enough traffic: {want_pkts} frames");
}

/// Cycles from a header taken from `ReqTx` to its frame's first beat at the
/// MAC, nothing stalled (measured: `TxArb` and `TxBuild` in series).
const HDR_TO_MAC: u64 = 19;

/// The 64 KiB WRITE of `long_write_streams_one_beat_per_cycle` through the
/// arbiter and the builder, nothing stalled: 16 frames (4170 bytes, then
/// 4154) leave for the MAC back to back, one beat per cycle once the first
/// frame's payload has come.
#[test]
fn long_write_frames_at_line_rate() {
    let mut b = long_write_bench(true);
    b.run(20_000);
    let c = b.chain.as_ref().unwrap();
    assert_eq!(c.frames.len(), 16);
    let (first, last) = (c.mac_beats[0], *c.mac_beats.last().unwrap());
    let n = c.mac_beats.len() as u64;
    let per_frame: Vec<usize> = c.frames.iter().map(|f| f.bytes).collect();
    println!("{n} MAC beats from cycle {first} to {last}: {} cycles; frame bytes {per_frame:?}", last - first + 1);
    let gaps: Vec<(u64, u64)> =
        c.mac_beats.windows(2).filter(|w| w[1] != w[0] + 1).map(|w| (w[0], w[1] - w[0] - 1)).collect();
    println!("header at req_tx {} -> first MAC beat {first}; gaps (after, cycles) {gaps:?}", b.hdrs[0].0);
    // the first header is offered to the arbiter at once and the builder
    // starts the frame (cut-through): TxArb's header register and skid,
    // TxBuild's header stages
    assert_eq!(first - b.hdrs[0].0, HDR_TO_MAC, "header taken from ReqTx -> first beat at the MAC");
    // the one gap: the first frame's header beats wait for its payload
    // (the payload read's latency); from then on nothing waits
    assert!(gaps.len() == 1 && gaps[0].0 < c.frames[0].last, "gaps {gaps:?}");
    for f in c.frames.windows(2) {
        assert_eq!(f[1].first, f[0].last + 1, "frames back to back");
    }
    // 4170 bytes with RETH (66 beats), 4154 without (65)
    assert_eq!(n, 66 + 15 * 65, "16 frames");
    assert_eq!(last - c.frames[1].first + 1, 15 * 65, "one beat per cycle at the MAC");
}
