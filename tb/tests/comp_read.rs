//! The requester's READ placement (`CompRead`, catalog `comp_read`): random
//! READ WQEs in two send rings (`rnic_tb::read_ref`: 0 to 4 SGEs, some that
//! cannot take data), random placements over them, the DMA answering the
//! WQE reads after random latencies, a translation model that cuts each
//! request at 4 KiB pages and refuses some keys, every port stalled at
//! random. For every placement: the translation requests are the scatter
//! reference's (VA, length, lkey, LOCAL_WRITE, the QP's PD); the verdict is
//! `ok` exactly when the walk is good and no translation was refused; the
//! pieces of an `ok` placement come out after its verdict, in order, the
//! answers' pieces with `last` on the packet's final one, and none of a
//! failed placement ever; the verdict the cycle after the last answer.
//! Between placements, random read-ahead hints (`s_hint`, mostly of the
//! next placement's WQE): `s_place.ready` stays low while the hinted WQE is
//! read, and the WQE is read for a placement exactly when the one held is
//! not its own or the placement is `fresh` and the one held was not read
//! by a hint.

use rnic_hw::consts::ACC_LOCAL_WRITE;
use rnic_sim::axis::Rng;
use rnic_sim::models::comp_read::Dut;
use rnic_sim::{Clocked, Model};
use rnic_tb::read_ref::{scatter, Wqe, WqeReads};
use std::collections::VecDeque;

const SQ_BASE: u64 = 0x40_0000;
const SQ_LOG: u64 = 4;
const PAGE: u64 = 4096;

/// The translation model: keys with low nibble 0xf are refused; else the
/// range is cut at pages, each piece at a fixed offset from its VA.
fn translate(va: u64, len: u32, key: u32) -> Option<Vec<(u64, u32)>> {
    if key & 0xf == 0xf {
        return None;
    }
    let (mut at, end) = (va, va + u64::from(len));
    let mut out = vec![];
    while at < end {
        let next = ((at / PAGE) + 1) * PAGE;
        let take = next.min(end) - at;
        out.push((at ^ 0x7000_0000_0000, take as u32));
        at += take;
    }
    Some(out)
}

#[test]
fn placements_match_the_reference() {
    for (seed, p_x, p_ans, p_piece, lat) in
        [(1u64, 100u64, 100u64, 100u64, (1u64, 1u64)), (2, 60, 70, 50, (5, 40)), (3, 30, 40, 20, (1, 200))]
    {
        let mut rng = Rng(seed * 0x9e37_79b9 + 7);
        let rings: Vec<Vec<Wqe>> = (0..2)
            .map(|_| {
                (0..16)
                    .map(|_| {
                        let mut w = Wqe::random(&mut rng);
                        // mostly WQEs that can take data: the translations are this test's subject
                        if rng.chance(70) {
                            w.inline = false;
                            w.num = w.num.min(4);
                        }
                        w
                    })
                    .collect()
            })
            .collect();
        let mut sim = Clocked::new(Dut::new());
        sim.reset(2);
        let (mut oks, mut refused, mut bad, mut pieces_seen) = (0, 0, 0, 0usize);
        // pieces committed and not yet taken, in order
        let mut want_pieces: VecDeque<(u64, u32, bool)> = VecDeque::new();
        // the WQE held: (QP, index, read by a hint and not yet used)
        let mut held: Option<(usize, u16, bool)> = None;
        let (mut hints, mut hint_hits) = (0, 0);
        for p in 0..500 {
            let qp = (rng.next() % 2) as usize;
            let index = (rng.next() % 40) as u16;
            let fresh = rng.chance(20);
            if rng.chance(30) {
                // a hint, mostly of this placement's WQE; taken while idle, read at once
                let (hq, hi) =
                    if rng.chance(75) { (qp, index) } else { ((rng.next() % 2) as usize, (rng.next() % 40) as u16) };
                for n in ["m_piece.ready", "s_xresp.valid", "m_xreq.ready", "s_place.valid"] {
                    sim.dut.set(n, 0);
                }
                // idle first: the last placement's pieces may still wait (they do not hold the walk)
                for (n, v) in [
                    ("s_hint.qpn", 0x100 + hq as u64),
                    ("s_hint.index", hi as u64),
                    ("s_hint.sq_base", SQ_BASE + 0x1_0000 * hq as u64),
                    ("s_hint.sq_log", SQ_LOG),
                    ("s_hint.valid", 1),
                ] {
                    sim.dut.set(n, v);
                }
                sim.tick();
                sim.dut.set("s_hint.valid", 0);
                let hw = &rings[hq][(hi as u64 % (1 << SQ_LOG)) as usize];
                let mut rd_beats = WqeReads::default();
                let mut reads = 0;
                let end = sim.cycle() + 2000;
                loop {
                    assert!(sim.cycle() < end, "seed {seed}: a hint's read never ended");
                    let now = sim.cycle();
                    sim.dut.set("m_rd.ready", 1);
                    let rd = rd_beats.offer(&mut sim.dut, now);
                    sim.settle();
                    rd_beats.taken(rd);
                    if sim.dut.get("m_rd.valid") == 1 {
                        reads += 1;
                        assert_eq!(sim.dut.get("m_rd.addr"), SQ_BASE + 0x1_0000 * hq as u64 + 128 * (hi as u64 % 16));
                        let l = lat.0 + rng.next() % (lat.1 - lat.0 + 1);
                        rd_beats.answer(now, l, &hw.bytes(), false);
                    }
                    let idle = sim.dut.get("s_place.ready") == 1;
                    sim.tick();
                    if idle && rd_beats.is_empty() {
                        break;
                    }
                }
                sim.dut.set("s_rd.tvalid", 0);
                assert_eq!(reads, 1, "seed {seed}: before placement {p}: a hint reads its WQE once");
                held = Some((hq, hi, true));
                hints += 1;
            }
            let hit = matches!(held, Some((q, i, pre)) if (q, i) == (qp, index) && (!fresh || pre));
            hint_hits += (hit && fresh) as usize;
            let mut read_seen = false;
            let wqe = &rings[qp][(index as u64 % (1 << SQ_LOG)) as usize];
            let total: u64 = wqe.sges.iter().take(wqe.num.min(4) as usize).map(|s| u64::from(s.1)).sum();
            let (offset, plen) = if total > 0 && rng.chance(85) {
                let offset = if rng.chance(30) { 0 } else { (rng.next() % total) as u32 };
                (offset, (total - u64::from(offset)).min(1 + rng.next() % 4096) as u16)
            } else {
                (rng.next() as u32 % 9000, (1 + rng.next() % 4096) as u16)
            };
            let walk = scatter(wqe, false, offset, plen);
            let answers: Vec<Option<Vec<(u64, u32)>>> = walk.reqs.iter().map(|r| translate(r.0, r.1, r.2)).collect();
            let ok = !walk.bad && !walk.len_err && answers.iter().all(|a| a.is_some());
            let pd = 0x1000 + qp as u64;
            for (n, v) in [
                ("s_place.qpn", 0x100 + qp as u64),
                ("s_place.index", index as u64),
                ("s_place.fresh", fresh as u64),
                ("s_place.offset", offset as u64),
                ("s_place.plen", plen as u64),
                ("s_place.sq_base", SQ_BASE + 0x1_0000 * qp as u64),
                ("s_place.sq_log", SQ_LOG),
                ("s_place.pd", pd),
                ("s_place.valid", 1),
            ] {
                sim.dut.set(n, v);
            }
            // offered until taken (ready is a register: one at a time); nothing else moves
            for n in ["m_piece.ready", "s_xresp.valid", "m_xreq.ready", "s_rd.tvalid"] {
                sim.dut.set(n, 0);
            }
            loop {
                sim.settle();
                let taken = sim.dut.get("s_place.ready") == 1;
                sim.tick();
                if taken {
                    break;
                }
            }
            sim.dut.set("s_place.valid", 0);
            let mut reqs: Vec<(u64, u32, u32, bool)> = vec![];
            // answer beats due: (cycle, id, verdict, iova, len, last)
            let mut beats: VecDeque<(u64, u64, u64, u64, u32, bool)> = VecDeque::new();
            let mut rd_beats = WqeReads::default();
            let mut last_answer = None;
            let end = sim.cycle() + 20_000;
            let verdict = loop {
                assert!(sim.cycle() < end, "seed {seed}: placement {p} never answered");
                let now = sim.cycle();
                let (x_ready, piece_ready) = (rng.chance(p_x), rng.chance(p_piece));
                sim.dut.set("m_xreq.ready", x_ready as u64);
                sim.dut.set("m_piece.ready", piece_ready as u64);
                sim.dut.set("m_rd.ready", 1);
                let rd = rd_beats.offer(&mut sim.dut, now);
                let beat = beats.front().filter(|b| b.0 <= now && rng.chance(p_ans)).cloned();
                if let Some(b) = &beat {
                    for (n, v) in [("s_xresp.id", b.1), ("s_xresp.verdict", b.2), ("s_xresp.iova", b.3)] {
                        sim.dut.set(n, v);
                    }
                    sim.dut.set("s_xresp.len", b.4 as u64);
                    sim.dut.set("s_xresp.last", b.5 as u64);
                }
                sim.dut.set("s_xresp.valid", beat.is_some() as u64);
                sim.settle();
                rd_beats.taken(rd);
                if sim.dut.get("m_rd.valid") == 1 {
                    assert!(!read_seen, "seed {seed}: placement {p}: one read");
                    read_seen = true;
                    assert_eq!(sim.dut.get("m_rd.addr"), SQ_BASE + 0x1_0000 * qp as u64 + 128 * (index as u64 % 16));
                    let l = lat.0 + rng.next() % (lat.1 - lat.0 + 1);
                    rd_beats.answer(now, l, &wqe.bytes(), false);
                }
                if x_ready && sim.dut.get("m_xreq.valid") == 1 {
                    let g = |n: &str| sim.dut.get(n);
                    assert_eq!((g("m_xreq.pd"), g("m_xreq.access")), (pd, ACC_LOCAL_WRITE), "seed {seed}: {p}");
                    let id = g("m_xreq.id");
                    let r = (g("m_xreq.va"), g("m_xreq.len") as u32, g("m_xreq.key") as u32, id == 1);
                    let due = now + lat.0 + rng.next() % (lat.1 - lat.0 + 1);
                    match translate(r.0, r.1, r.2) {
                        None => beats.push_back((due, id, 1, 0, 0, true)),
                        Some(v) => {
                            for (k, &(iova, len)) in v.iter().enumerate() {
                                beats.push_back((due, id, 0, iova, len, k + 1 == v.len()));
                            }
                        }
                    }
                    reqs.push(r);
                }
                if beat.is_some() && sim.dut.get("s_xresp.ready") == 1 {
                    beats.pop_front();
                    last_answer = Some(now);
                }
                if piece_ready && sim.dut.get("m_piece.valid") == 1 {
                    let got = (
                        sim.dut.get("m_piece.iova"),
                        sim.dut.get("m_piece.len") as u32,
                        sim.dut.get("m_piece.last") == 1,
                    );
                    let want = want_pieces.pop_front().unwrap_or_else(|| {
                        panic!("seed {seed}: placement {p}: a piece before its verdict (or of a failed one): {got:x?}")
                    });
                    assert_eq!(got, want, "seed {seed}: placement {p}: piece");
                    pieces_seen += 1;
                }
                let v = (sim.dut.get("m_verdict.valid") == 1).then(|| sim.dut.get("m_verdict.ok") == 1);
                sim.tick();
                if let Some(v) = v {
                    break (v, now);
                }
            };
            assert_eq!(reqs, walk.reqs, "seed {seed}: placement {p}: the translation requests");
            assert_eq!(
                read_seen, !hit,
                "seed {seed}: placement {p}: the WQE read exactly when not held (fresh {fresh})"
            );
            held = Some((qp, index, false));
            assert_eq!(verdict.0, ok, "seed {seed}: placement {p}: the verdict ({walk:?})");
            if let Some(t) = last_answer {
                assert_eq!(verdict.1, t + 1, "seed {seed}: placement {p}: the verdict the cycle after the last answer");
            }
            if std::env::var("DBG").is_ok() {
                eprintln!("p {p}: ok {ok} {walk:x?} answers {answers:x?}");
            }
            if ok {
                let all: Vec<(u64, u32)> = answers.into_iter().flatten().flatten().collect();
                for (k, &(iova, len)) in all.iter().enumerate() {
                    want_pieces.push_back((iova, len, k + 1 == all.len()));
                }
                oks += 1;
            } else if walk.bad || walk.len_err {
                bad += 1;
            } else {
                refused += 1;
            }
        }
        // the last pieces drain
        sim.dut.set("m_piece.ready", 1);
        sim.dut.set("s_xresp.valid", 0);
        for _ in 0..64 {
            sim.settle();
            if sim.dut.get("m_piece.valid") == 1 {
                let got =
                    (sim.dut.get("m_piece.iova"), sim.dut.get("m_piece.len") as u32, sim.dut.get("m_piece.last") == 1);
                assert_eq!(Some(got), want_pieces.pop_front(), "seed {seed}: a last piece");
                pieces_seen += 1;
            }
            sim.tick();
        }
        assert!(want_pieces.is_empty(), "seed {seed}: {} pieces never came", want_pieces.len());
        eprintln!("seed {seed}: {oks} placed ({pieces_seen} pieces), {refused} refused, {bad} bad walks");
        eprintln!("seed {seed}: {hints} hints, {hint_hits} fresh placements served by one");
        assert!(hints > 100 && hint_hits > 10, "seed {seed}: the read-ahead exercised");
        assert!(oks > 150 && refused > 20 && bad > 20 && pieces_seen > 300, "seed {seed}");
    }
}
