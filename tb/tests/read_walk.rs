//! The READ response walk (`ReadWalk`, catalog `read_walk`): random send
//! WQEs in a ring in host memory (0 to 4 SGEs, zero-length ones among them,
//! some malformed: NUM_SGE above 4, INLINE), random walks over them (the
//! responses of a READ in order, restarts, other QPs' WQEs, context
//! invalidations), the DMA answering after random latencies, the requests
//! taken under random stalls. Every request {VA, length, lkey, last} and
//! every verdict (done, LOC_LEN_ERR, bad) equals the scatter reference
//! below (the protocol model's `scatter`: zero-length SGEs skipped, the
//! payload past the SGEs a length error); a WQE is read exactly when the
//! one held is another's, the walk is `fresh`, or an invalidation came;
//! the latency from `start` to the first request is asserted (2 cycles with
//! the WQE held, one more per SGE wholly before the packet, and the read's
//! cycles when it is read). Between walks, random prefetches (`prefetch`:
//! mostly of the WQE the next walk wants, some of another): each reads its
//! WQE once, `pre_busy` while it does, and the WQE so read serves one
//! `fresh` walk of it without a read. Between walks too, random puts into
//! the child `ReadAhead` (`s_put`: mostly the next walk's WQE, as `ReqGen`
//! puts the READs it sends, never an INLINE or malformed one; QPNs whose
//! short tags differ): a walk
//! that does not use the WQE held takes a WQE put and not yet found
//! without a read ([`READ_WALK_AHEAD_EXTRA`] cycles), every other one reads.

use rnic_hw::transport::{READ_AHEAD_PUT_GAP, READ_AHEAD_SLOTS, READ_WALK_AHEAD_EXTRA, READ_WALK_READ_EXTRA};
use rnic_sim::axis::Rng;
use rnic_sim::models::read_walk::Dut;
use rnic_sim::{Clocked, Model};
use rnic_tb::read_ref::{scatter, Outcome, Wqe, WqeReads};
use std::collections::HashSet;

/// SGEs wholly before the packet: each costs the walk a step before its first request.
fn skipped(w: &Wqe, offset: u32) -> u64 {
    let mut skip = offset as u64;
    let mut n = 0;
    for &(_, len, _) in w.sges.iter().take(w.num as usize) {
        if skip < len as u64 {
            break;
        }
        skip -= len as u64;
        n += 1;
    }
    n
}

const SQ_BASE: u64 = 0x40_0000;
const SQ_LOG: u32 = 4;

struct Walk {
    qp: usize,
    index: u16,
    fresh: bool,
    offset: u32,
    plen: u16,
    inval: bool,
}

#[test]
fn walks_match_the_scatter_reference() {
    for (seed, q_pct, lat) in [(1u64, 100u64, (1u64, 1u64)), (2, 60, (5, 40)), (3, 30, (1, 200))] {
        let mut rng = Rng(seed * 0x1234_5678 + 1);
        // two QPs, each a ring of 16 WQEs (one DMA error among them)
        let rings: Vec<Vec<Wqe>> = (0..2).map(|_| (0..16).map(|_| Wqe::random(&mut rng)).collect()).collect();
        let bad_slot = (1usize, 5u16);
        let mut sim = Clocked::new(Dut::new());
        sim.reset(2);
        // the WQE held: (QP, index, read by a prefetch and not yet used)
        let mut held: Option<(usize, u16, bool)> = None;
        let (mut reads, mut walks, mut pieces, mut len_errs, mut bads) = (0, 0, 0, 0, 0);
        let (mut prefetches, mut pre_hits) = (0, 0);
        // the WQEs put into `ReadAhead` and not yet found: (QP, index)
        let mut ahead: HashSet<(usize, u16)> = HashSet::new();
        let (mut puts, mut ahead_hits) = (0, 0);
        let sges_port = sim.dut.port("s_put.sges");
        for _ in 0..600 {
            // the next walk: mostly the next response of the same READ
            let w = Walk {
                qp: (rng.next() % 2) as usize,
                index: (rng.next() % 40) as u16,
                fresh: rng.chance(20),
                offset: if rng.chance(30) { 0 } else { rng.next() as u32 % 12000 },
                plen: (rng.next() % 4097) as u16,
                inval: rng.chance(5),
            };
            let (w, index) = match held {
                Some((qp, i, _)) if rng.chance(50) => (Walk { qp, index: i, ..w }, i),
                _ => {
                    let i = w.index;
                    (w, i)
                }
            };
            let slot = (index as u64 % (1 << SQ_LOG)) as usize;
            let wqe = &rings[w.qp][slot];
            // mostly a response inside the message (a READ's length is its SGEs' total)
            let total: u64 = wqe.sges.iter().take(wqe.num.min(4) as usize).map(|s| s.1 as u64).sum();
            let w = if total > 0 && rng.chance(75) {
                let offset = if w.offset == 0 { 0 } else { (rng.next() % total) as u32 };
                let plen = (total - offset as u64).min(w.plen as u64) as u16;
                Walk { offset, plen, ..w }
            } else {
                w
            };
            let dma_err = (w.qp, slot as u16) == bad_slot;
            if w.inval {
                sim.dut.set("inval", 1);
                sim.tick();
                sim.dut.set("inval", 0);
                held = None;
                ahead.clear();
            }
            // puts: mostly of the walk's WQE (one every other cycle at most)
            while rng.chance(40) {
                let (pq, pi) =
                    if rng.chance(60) { (w.qp, index) } else { ((rng.next() % 2) as usize, (rng.next() % 40) as u16) };
                let pw = &rings[pq][(pi as u64 % (1 << SQ_LOG)) as usize];
                if pw.inline || pw.num > 4 {
                    continue;
                }
                let bytes = pw.bytes();
                let words: Vec<u32> =
                    bytes[64..128].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
                sim.dut.set("s_put.qpn", 0x100 + pq as u64);
                sim.dut.set("s_put.index", pi as u64);
                sim.dut.set("s_put.num", pw.num as u64);
                sim.dut.set_words(sges_port, &words);
                sim.dut.set("s_put.valid", 1);
                sim.tick();
                sim.dut.set("s_put.valid", 0);
                // (the next put once this one is placed)
                for _ in 0..READ_AHEAD_PUT_GAP {
                    sim.tick();
                }
                if ahead.contains(&(pq, pi)) || ahead.len() < READ_AHEAD_SLOTS {
                    ahead.insert((pq, pi));
                }
                puts += 1;
            }
            // a prefetch before the walk: mostly of its WQE
            if rng.chance(25) {
                let (pq, pi) =
                    if rng.chance(75) { (w.qp, index) } else { ((rng.next() % 2) as usize, (rng.next() % 40) as u16) };
                let pslot = (pi as u64 % (1 << SQ_LOG)) as usize;
                for (n, v) in [
                    ("qpn", 0x100 + pq as u64),
                    ("index", pi as u64),
                    ("sq_base", SQ_BASE + 0x1_0000 * pq as u64),
                    ("sq_log", SQ_LOG as u64),
                    ("prefetch", 1),
                ] {
                    sim.dut.set(n, v);
                }
                sim.tick();
                sim.dut.set("prefetch", 0);
                let mut pbeats = WqeReads::default();
                let mut preads = 0;
                let end = sim.cycle() + 2000;
                loop {
                    assert!(sim.cycle() < end, "seed {seed}: a prefetch never ended");
                    let now = sim.cycle();
                    sim.dut.set("m_rd.ready", 1);
                    sim.dut.set("q_ready", 1);
                    let beat = pbeats.offer(&mut sim.dut, now);
                    sim.settle();
                    assert_eq!(sim.dut.get("q_valid"), 0, "seed {seed}: a prefetch walks nothing");
                    if sim.dut.get("m_rd.valid") == 1 {
                        preads += 1;
                        assert_eq!(sim.dut.get("m_rd.addr"), SQ_BASE + 0x1_0000 * pq as u64 + 128 * pslot as u64);
                        let l = lat.0 + rng.next() % (lat.1 - lat.0 + 1);
                        pbeats.answer(now, l, &rings[pq][pslot].bytes(), (pq, pslot as u16) == bad_slot);
                    }
                    pbeats.taken(beat);
                    let busy = sim.dut.get("pre_busy") == 1;
                    sim.tick();
                    if !busy && pbeats.is_empty() && preads == 1 {
                        break;
                    }
                }
                sim.dut.set("s_rd.tvalid", 0);
                held = ((pq, pslot as u16) != bad_slot).then_some((pq, pi, true));
                prefetches += 1;
            }
            let hit = matches!(held, Some((q, i, pre)) if (q, i) == (w.qp, index) && (!w.fresh || pre));
            // not held: found in `ReadAhead` (and taken from it), else read
            let put_hit = !hit && ahead.remove(&(w.qp, index));
            ahead_hits += put_hit as usize;
            // (only a read sees the slot's DMA error: a WQE held came from a put or a good read)
            let dma_err = dma_err && !hit && !put_hit;
            let want = scatter(wqe, dma_err, w.offset, w.plen);
            pre_hits += (hit && w.fresh) as usize;
            let qpn = 0x100 + w.qp as u64;
            for (n, v) in [
                ("qpn", qpn),
                ("index", index as u64),
                ("fresh", w.fresh as u64),
                ("offset", w.offset as u64),
                ("plen", w.plen as u64),
                ("sq_base", SQ_BASE + 0x1_0000 * w.qp as u64),
                ("sq_log", SQ_LOG as u64),
                ("start", 1),
            ] {
                sim.dut.set(n, v);
            }
            sim.tick();
            let t0 = sim.cycle() - 1;
            sim.dut.set("start", 0);
            // run: answer the read, take the requests, until done
            let mut got = vec![];
            let mut beats = WqeReads::default();
            let mut read_this = false;
            let mut first_req = None;
            let mut dma_lat = 0;
            let end = sim.cycle() + 5000;
            loop {
                assert!(sim.cycle() < end, "seed {seed}: walk {walks} never done");
                let ready = rng.chance(q_pct);
                sim.dut.set("q_ready", ready as u64);
                sim.dut.set("m_rd.ready", 1);
                let now = sim.cycle();
                let beat = beats.offer(&mut sim.dut, now);
                sim.settle();
                if sim.dut.get("m_rd.valid") == 1 {
                    assert!(!read_this, "seed {seed}: walk {walks}: one read per walk");
                    read_this = true;
                    let addr = sim.dut.get("m_rd.addr");
                    assert_eq!(addr, SQ_BASE + 0x1_0000 * w.qp as u64 + 128 * slot as u64, "the WQE's address");
                    assert_eq!(sim.dut.get("m_rd.len"), 128);
                    let bytes = wqe.bytes();
                    let l = lat.0 + rng.next() % (lat.1 - lat.0 + 1);
                    dma_lat = l;
                    beats.answer(now, l, &bytes, dma_err);
                }
                beats.taken(beat);
                if sim.dut.get("q_valid") == 1 {
                    first_req.get_or_insert(now);
                    if ready {
                        let q = (
                            sim.dut.get("q_va"),
                            sim.dut.get("q_len") as u32,
                            sim.dut.get("q_key") as u32,
                            sim.dut.get("q_last") == 1,
                        );
                        got.push(q);
                    }
                }
                let done = sim.dut.get("done") == 1 && sim.dut.get("q_valid") == 0;
                let verdict = (sim.dut.get("len_err") == 1, sim.dut.get("bad") == 1);
                sim.tick();
                if done && beats.is_empty() {
                    let out = Outcome { reqs: got, len_err: verdict.0, bad: verdict.1 };
                    assert_eq!(out, want, "seed {seed}: walk {walks} (qp {} index {index} {:?})", w.qp, wqe);
                    break;
                }
            }
            assert_eq!(read_this, !hit && !put_hit, "seed {seed}: walk {walks}: the WQE read when not held nor put");
            // latency to the first request (nothing stalls it: the register is free at start)
            if let Some(f) = first_req {
                let extra = if read_this {
                    READ_WALK_READ_EXTRA + dma_lat
                } else if put_hit {
                    READ_WALK_AHEAD_EXTRA
                } else {
                    0
                } + skipped(wqe, w.offset);
                assert_eq!(f - t0, 2 + extra, "seed {seed}: walk {walks}: the first request (read {read_this})");
            }
            // a WQE read with a DMA error is not kept; a malformed one is (its walks all end bad)
            held = (!dma_err).then_some((w.qp, index, false));
            reads += read_this as usize;
            walks += 1;
            pieces += want.reqs.len();
            len_errs += want.len_err as usize;
            bads += want.bad as usize;
        }
        eprintln!(
            "seed {seed}: {walks} walks, {reads} WQE reads, {pieces} pieces, {len_errs} length errors, {bads} bad"
        );
        eprintln!("seed {seed}: {prefetches} prefetches, {pre_hits} fresh walks served by one");
        assert!(reads > 100 && reads < walks && pieces > 300 && len_errs > 20 && bads > 10);
        assert!(prefetches > 100 && pre_hits > 10, "seed {seed}: the prefetch exercised");
        eprintln!("seed {seed}: {puts} puts, {ahead_hits} walks served by one");
        assert!(puts > 300 && ahead_hits > 60, "seed {seed}: ReadAhead exercised");
    }
}
