//! The requester's payload translation and header holding (`ReqPayload`,
//! catalog `req_payload`) against the reference of `rnic_tb::req_payload`:
//! random packets over a world of regions (faults of every kind, MTT
//! entries without VALID) under random stalls on every port, exact headers,
//! pieces and error records in order; a failed WQE's later packets dropped;
//! latencies and rates asserted.

use rnic_contract::mr::{Access, Mpt, MrError, MrRequest};
use rnic_hw::transport::{PIECE_HOLD_LATENCY, REQ_PAYLOAD_FRAG_LATENCY, REQ_PAYLOAD_HDR_LATENCY};
use rnic_sim::axis::Rng;
use rnic_sim::models::req_payload::Dut;
use rnic_sim::Clocked;
use rnic_tb::mr::MrWorld;
use rnic_tb::req_payload::{random_frag, random_packets, world, Packet, RpBench, RpKnobs};
use std::collections::BTreeMap;

/// Run `packets` through a fresh model; everything must come out.
fn run(b: &mut RpBench, packets: &[Packet], limit: u64) -> u64 {
    let mut sim = Clocked::new(Dut::new());
    sim.reset(2);
    for p in packets {
        b.send(p);
    }
    let start = b.now;
    while !b.done() {
        assert!(b.now - start < limit, "no progress after {limit} cycles");
        b.drive(&mut sim.dut);
        sim.settle();
        b.sample(&sim.dut).unwrap_or_else(|e| panic!("{e}"));
        sim.tick();
    }
    // a few more cycles: nothing else may come out
    for _ in 0..40 {
        b.drive(&mut sim.dut);
        sim.settle();
        b.sample(&sim.dut).unwrap_or_else(|e| panic!("{e}"));
        sim.tick();
    }
    b.now - start
}

#[test]
fn random_packets_under_stalls() {
    let mixes: [(u64, [u64; 7], u64, u64); 4] = [
        (1, [70, 70, 60, 70, 60, 60, 50], 1, 30),
        (2, [100, 100, 100, 100, 40, 30, 20], 5, 60),
        (3, [40, 90, 30, 50, 90, 90, 90], 20, 20),
        (4, [90, 40, 80, 100, 15, 85, 100], 1, 4),
    ];
    let (mut passed, mut reported, mut noted) = (0, 0, 0);
    for (seed, p, lat_min, lat_max) in mixes {
        let mut rng = Rng(0x5eed_0000 + seed);
        let w = world(&mut rng);
        let pk = random_packets(&mut rng, &w, 250, 4, 3);
        let knobs = RpKnobs {
            p_hdr: p[0],
            p_frag: p[1],
            p_xreq: p[2],
            p_xresp: p[3],
            p_piece: p[4],
            p_hdr_out: p[5],
            p_err: p[6],
            lat_min,
            lat_max,
            pace: seed % 2 == 0,
        };
        let mut b = RpBench::new(w, knobs, seed);
        run(&mut b, &pk, 200_000);
        assert_eq!(b.hdr_out.len() as u64, b.passed, "seed {seed}");
        assert_eq!(b.piece_out.len() as u64, b.pieces, "seed {seed}");
        assert_eq!(b.err_out.len() as u64, b.reported, "seed {seed}");
        passed += b.passed;
        reported += b.reported;
        noted += b.noted;
    }
    // the runs reached every outcome
    assert!(passed > 600 && reported > 20 && noted > 10, "passed {passed}, reported {reported}, noted {noted}");
}

/// One region of 4 KiB pages (PD 1) at `va_base`, 64 pages.
fn one_region() -> (MrWorld, Mpt) {
    let m = Mpt {
        va_base: 0x7f00_0000_0000,
        length: 64 << 12,
        key: 0x0000_0105,
        pd: 1,
        valid: true,
        local_write: true,
        remote_write: false,
        remote_read: false,
        remote_atomic: false,
        log_page_size: 12,
        mtt_base: 0x40,
    };
    let mut w = MrWorld { log_entries: 8, mpt: BTreeMap::new() };
    w.mpt.insert(m.key & 0xff, m);
    (w, m)
}

fn frag(m: &Mpt, off: u64, len: u32) -> MrRequest {
    MrRequest { key: m.key, pd: m.pd, va: m.va_base + off, len, access: Access::LocalRead }
}

/// A failing packet drops its header and pieces and is reported once; the
/// WQE's later packets are dropped, across other QPs' packets, until a
/// packet of the QP's next WQE passes; the MTT case (pieces translated
/// before the failure) leaves no piece either.
#[test]
fn failed_wqe_drops_later_packets() {
    let (w, m) = one_region();
    let mut rng = Rng(9);
    let ok = |o: u64| frag(&m, o, 1000);
    let bad_key = MrRequest { key: m.key ^ 0x100, ..ok(0) };
    let bad_pd = MrRequest { pd: 2, ..ok(0) };
    let oob = frag(&m, (64 << 12) - 10, 100);
    let (a, b_qp) = (0x123, 0x2001);
    let pk = vec![
        Packet::new(&mut rng, a, 7, vec![ok(0), ok(5000)]),
        Packet::new(&mut rng, a, 7, vec![ok(9000), bad_key, ok(20000)]), // fails: KeyMismatch
        Packet::new(&mut rng, a, 7, vec![ok(30000)]),                    // dropped by the note
        Packet::new(&mut rng, b_qp, 3, vec![ok(100)]),                   // another QP passes
        Packet::new(&mut rng, b_qp, 4, vec![]),                          // no payload
        Packet::new(&mut rng, a, 7, vec![ok(40000)]),                    // still the failed WQE
        Packet::new(&mut rng, a, 8, vec![ok(50000)]),                    // the next WQE passes
        Packet::new(&mut rng, b_qp, 5, vec![ok(1000), bad_pd]),          // PdMismatch
        Packet::new(&mut rng, a, 9, vec![oob]),                          // OutOfBounds
        Packet::new(&mut rng, b_qp, 5, vec![ok(0)]),                     // passes: the one note names (a, 9) by now
    ];
    let mut b = RpBench::new(w, RpKnobs { p_piece: 50, p_hdr_out: 50, ..RpKnobs::fast(3) }, 1);
    run(&mut b, &pk, 10_000);
    assert_eq!(
        b.err_out,
        vec![
            (a, 7, MrError::KeyMismatch as u64),
            (b_qp, 5, MrError::PdMismatch as u64),
            (a, 9, MrError::OutOfBounds as u64)
        ]
    );
    // packets 0, 3, 4, 6 and 9 pass (9: the note names QP a's WQE 9 by then)
    assert_eq!(b.hdr_out.len(), 5);
    assert_eq!((b.passed, b.reported, b.noted), (5, 3, 2));
}

/// A fragment taken at t is offered to the translation unit at t + 1; a
/// packet's last answer beat taken at u: its first piece at u + 2, its
/// header at u + 3; a header without payload taken at t is offered at t + 3.
#[test]
fn latencies() {
    let (w, m) = one_region();
    let mut rng = Rng(3);
    for lat in [1, 7, 30] {
        let mut b = RpBench::new(w.clone(), RpKnobs::fast(lat), 2);
        let pk = vec![Packet::new(&mut rng, 5, 1, vec![frag(&m, 100, 300)])];
        run(&mut b, &pk, 1000);
        assert_eq!(b.xreq_out[0], b.frag_taken[0] + REQ_PAYLOAD_FRAG_LATENCY);
        assert_eq!(b.piece_out[0], b.pkt_end_taken[0] + PIECE_HOLD_LATENCY);
        assert_eq!(b.hdr_out[0], b.pkt_end_taken[0] + REQ_PAYLOAD_HDR_LATENCY);
        assert_eq!(b.pkt_end_taken[0], b.xreq_out[0] + lat, "the model answers after {lat}");
    }
    let mut b = RpBench::new(w, RpKnobs::fast(5), 2);
    run(&mut b, &[Packet::new(&mut rng, 5, 2, vec![])], 1000);
    assert_eq!(b.hdr_out[0], b.hdr_taken[0] + 3);
}

/// 4096-byte packets of 4 fragments, each across a page boundary (8
/// pieces a packet), the translation unit answering one beat per cycle
/// after 25 cycles (`MrXlate` on hits): the requester is never stalled for
/// 40 packets, the pieces leave back to back (one per cycle), and the
/// headers one per packet as its last piece is committed.
#[test]
fn full_rate_pages() {
    let (w, m) = one_region();
    let mut rng = Rng(4);
    let n = 40;
    let pk: Vec<Packet> = (0..n)
        .map(|i| {
            let base = (i % 7) as u64 * 8 * 4096;
            let f = (0..4).map(|k| frag(&m, base + (2 * k + 1) * 4096 - 512, 1024)).collect();
            Packet::new(&mut rng, 9, 1, f)
        })
        .collect();
    let mut b = RpBench::new(w, RpKnobs::fast(25), 3);
    let cycles = run(&mut b, &pk, 10_000);
    assert_eq!(b.piece_out.len(), 8 * n);
    assert_eq!((b.hdr_refused, b.frag_refused), (0, 0), "the requester was stalled");
    let gaps = b.piece_out.windows(2).filter(|x| x[1] != x[0] + 1).count();
    assert_eq!(gaps, 0, "pieces not back to back");
    // the first packet's 8 answer beats back to back from request + 25
    assert_eq!(b.pkt_end_taken[0], b.xreq_out[0] + 25 + 7);
    assert_eq!(b.piece_out[0], b.pkt_end_taken[0] + PIECE_HOLD_LATENCY);
    // each header as soon as its packet's last beat is in
    for (h, e) in b.hdr_out.iter().zip(&b.pkt_end_taken) {
        assert_eq!(*h, e + REQ_PAYLOAD_HDR_LATENCY);
    }
    println!("full_rate_pages: {n} packets, {} pieces, {cycles} cycles", 8 * n);
}

/// One-fragment packets at one per cycle (`ReqGen`'s peak), latency 25:
/// the header FIFO covers the latency, nothing is refused, one header and
/// one piece per cycle.
#[test]
fn full_rate_one_fragment_packets() {
    let (w, m) = one_region();
    let mut rng = Rng(5);
    let n = 200;
    let pk: Vec<Packet> =
        (0..n).map(|i| Packet::new(&mut rng, 9, 1, vec![frag(&m, (i % 60) * 4096 + 64, 256)])).collect();
    let mut b = RpBench::new(w, RpKnobs::fast(25), 3);
    let cycles = run(&mut b, &pk, 10_000);
    assert_eq!((b.hdr_refused, b.frag_refused), (0, 0), "the requester was stalled");
    assert_eq!(b.hdr_out.len(), n as usize);
    assert!(b.hdr_out.windows(2).all(|x| x[1] == x[0] + 1), "headers not one per cycle");
    assert!(b.piece_out.windows(2).all(|x| x[1] == x[0] + 1), "pieces not one per cycle");
    assert_eq!(b.hdr_out[0], b.frag_taken[0] + 1 + 25 + REQ_PAYLOAD_HDR_LATENCY);
    println!("full_rate_one_fragment_packets: {n} packets, {cycles} cycles");
}

/// Random fragments stay inside 4096 bytes a packet (the bench's own check).
#[test]
fn bench_packets_are_at_most_4096_bytes() {
    let mut rng = Rng(11);
    let w = world(&mut rng);
    for p in random_packets(&mut rng, &w, 300, 3, 0) {
        assert!(p.frags.iter().map(|f| f.len as u64).sum::<u64>() <= 4096);
        assert!(p.frags.len() <= 4);
    }
    let f = random_frag(&mut rng, &w, 1, 0);
    assert_eq!(f.len, 1);
}
