//! The responder's execute stage (`RespExec`, catalog `resp_exec`) against
//! the protocol model (`rnic_proto::rc::Responder`, through
//! `rnic_tb::resp_exec`): random WRITE traffic over a few QPs with bad
//! rkeys, ranges past a region's end, other PDs' regions, duplicates; then
//! mixed traffic with SENDs (ONLY, FIRST/MIDDLE/LAST, with immediate) and
//! WRITEs with immediate over posted RECVs of 0..3 SGEs (too short, bad
//! lkeys, malformed, none posted), under random stalls on every port and
//! random RQ-read and `m_done` latencies: every placement command, ACK/NAK,
//! CQE and `qps` write exact and in order, host memory equal to the model's;
//! the latency from a record to its first piece (WRITE; SEND with and
//! without the RQ read, and with its RECV read ahead) and the period of a
//! 4 KiB WRITE stream asserted exactly. Every RQ read must come after a
//! record taken said the entry was posted (`s_side.rq_prod`). RQ flush
//! records (`RESP_EXEC_FLUSH`) in the mixed traffic (after a QP's failure,
//! at the end of traffic, with 10..20 RECVs): one CQE per flushed RECV with
//! its WR_ID, in RQ order; and the cycles per flushed RECV measured.
//! Duplicate READs and atomics among them, the bench playing the replay
//! table (`random_duplicates_under_stalls`).

use rnic_hw::transport::{RESP_EXEC_AHEAD_EXTRA, RESP_EXEC_SEND_PIECE_LATENCY};
use rnic_hw::transport::{RESP_EXEC_FETCH_EXTRA, RESP_EXEC_PIECE_LATENCY, RESP_EXEC_PLACE_PERIOD};
use rnic_proto::rc::Sge;
use rnic_sim::axis::Rng;
use rnic_sim::models::resp_exec::Dut;
use rnic_sim::Clocked;
use rnic_tb::mr::{mtt_invalid, MrWorld};
use rnic_tb::resp_exec::{clean_world, pmtu, ExecBench, ExecKnobs, Kinds, Traffic};

/// Bounds of the RQ flush figures (`rq_flush_rate`: 20 RECVs, the RQ
/// read's latency 40, no stalls; measured, rounded up). Cycles from a flush
/// record taken to its first CQE offered on `m_cqe`: its first entry read
/// at the flush (cold: 51 = 5 + `RESP_EXEC_FETCH_EXTRA` + 40) or read ahead
/// by SENDs before (warm: 8 = 5 + `RESP_EXEC_AHEAD_EXTRA`).
const FLUSH_COLD_FIRST_MAX: u64 = 51;
const FLUSH_WARM_FIRST_MAX: u64 = 8;
/// Cycles from one flushed RECV's CQE to the next when the next entry is
/// in `RqAhead`'s window: CQE loaded and pushed into `AckHold` (2), the
/// next entry asked (1) and handed out (2, `RQ_AHEAD_HIT_LATENCY`), the
/// fetch-only walk over (1).
const FLUSH_HIT_GAP: u64 = 6;
/// Cycles per flushed RECV from the first CQE to the last (cold 9.32, warm
/// 7.88: the window grows one entry per hit, so its first reads wait for
/// the DMA), and from the record taken to its `qps` write (11.35, 7.83).
const FLUSH_COLD_PER_MAX: f64 = 9.5;
const FLUSH_WARM_PER_MAX: f64 = 8.0;
const FLUSH_COLD_ALL_MAX: f64 = 11.5;
const FLUSH_WARM_ALL_MAX: f64 = 8.0;

/// Run the bench's records through a fresh model until everything is out.
fn run(b: &mut ExecBench, limit: u64) {
    let mut sim = Clocked::new(Dut::new());
    sim.reset(2);
    let start = b.now;
    while !b.done() {
        assert!(b.now - start < limit, "no progress after {limit} cycles");
        b.drive(&mut sim.dut);
        sim.settle();
        b.sample(&sim.dut).unwrap_or_else(|e| panic!("{e}"));
        sim.tick();
    }
    for _ in 0..40 {
        b.drive(&mut sim.dut);
        sim.settle();
        b.sample(&sim.dut).unwrap_or_else(|e| panic!("{e}"));
        sim.tick();
    }
}

/// Three mixes of stalls and latencies; `p_send`, `p_write_imm`: percent
/// of SEND and WRITE-with-immediate messages; `p_flush_many`: percent of
/// records before which a QP is flushed with 10..20 RECVs; `p_dup`:
/// percent of records that are a duplicate READ or atomic (the bench plays
/// the replay table). Returns the kinds of records.
fn mixes(p_send: u64, p_write_imm: u64, p_flush_many: u64, p_dup: u64, n: usize) -> Kinds {
    let mixes: [(u64, [u64; 10], u64, u64, usize); 3] = [
        (1, [70, 60, 70, 60, 50, 60, 70, 60, 70, 60], 1, 12, 256),
        (2, [100; 10], 3, 3, 512),
        (3, [40, 90, 30, 50, 30, 80, 40, 50, 40, 30], 0, 20, 256),
    ];
    let mut all = Kinds::default();
    for (seed, p, lat_min, lat_max, mtu) in mixes {
        let mut rng = Rng(0x7e5e_0000 + seed);
        let w = clean_world(&mut rng);
        let mut t = Traffic::new(seed, w.clone(), 4, pmtu(mtu));
        t.p_send = p_send;
        t.p_write_imm = p_write_imm;
        t.p_flush_many = p_flush_many;
        t.p_dup = p_dup;
        t.generate(n);
        let knobs = ExecKnobs {
            p_dec: p[0],
            p_xreq: p[1],
            p_xresp: p[2],
            p_pkt: p[3],
            p_piece: p[4],
            p_ack: p[5],
            p_qps: p[6],
            p_cqe: p[7],
            p_rd: p[8],
            lat_min,
            lat_max,
            rd_lat_min: lat_min + 2,
            rd_lat_max: lat_max + 30,
            done_lat_max: lat_max * 3,
            p_find: p[9],
            // RQ entries hinted ahead (`RqAhead`'s slots) in two mixes of three
            p_hint: [60, 100, 0][seed as usize - 1],
        };
        let mut b = ExecBench::new(w, t.rq.clone(), knobs, seed);
        b.push(&t.recs);
        run(&mut b, 400_000);
        // every flushed RECV gave one CQE (the bench checks each against its
        // RECV's WR_ID and RQ index, in order)
        let fl = b.cqe_log.iter().filter(|c| t.recs[c.1].flushed > 0).count();
        assert_eq!(fl, t.kinds.flushed, "seed {seed}: flush CQEs");
        // each failure's write woke the send scheduler (the QP's move into
        // error; the bench checks `wake` on every `m_qps` item)
        assert_eq!(b.wakes as usize, t.kinds.failed, "seed {seed}: wakes of failed records");
        // every duplicate's find answered; each miss counted by one `rp_miss`
        // pulse (the bench checks each pulse's record), each hit replayed
        let k = t.kinds;
        assert_eq!(b.misses, k.dup_miss, "seed {seed}: rp_miss pulses");
        assert_eq!(b.hits, k.dup_read_replay + k.dup_atomic_replay + k.dup_read_nak, "seed {seed}: hits");
        // every byte the model wrote, the pieces wrote, and no other
        assert_eq!(b.mem.len(), t.mem.len(), "seed {seed}: bytes written");
        for (a, v) in &t.mem {
            assert_eq!(b.mem.get(a), Some(v), "seed {seed}: byte at {a:#x}");
        }
        let k = t.kinds;
        all.placed += k.placed;
        all.failed += k.failed;
        all.other += k.other;
        all.send_placed += k.send_placed;
        all.send_cqe_ok += k.send_cqe_ok;
        all.loc_len += k.loc_len;
        all.loc_prot += k.loc_prot;
        all.loc_qp_op += k.loc_qp_op;
        all.rnr += k.rnr;
        all.write_imm_cqe += k.write_imm_cqe;
        all.solicited_cqe += k.solicited_cqe;
        all.flush_recs += k.flush_recs;
        all.flush_none += k.flush_none;
        all.flushed += k.flushed;
        all.flush_many += k.flush_many;
        all.flush_error += k.flush_error;
        all.flush_deferred += k.flush_deferred;
        all.flush_wrap += k.flush_wrap;
        all.dup_read_replay += k.dup_read_replay;
        all.dup_read_zero += k.dup_read_zero;
        all.dup_read_mid += k.dup_read_mid;
        all.dup_atomic_replay += k.dup_atomic_replay;
        all.dup_miss += k.dup_miss;
        all.dup_read_nak += k.dup_read_nak;
        all.dup_firsts += k.dup_firsts;
    }
    all
}

#[test]
fn random_writes_under_stalls() {
    let k = mixes(0, 0, 0, 0, 220);
    // coverage: each kind of record well represented
    assert!(k.placed > 200 && k.failed > 25 && k.other > 45, "{k:?}");
}

#[test]
fn random_sends_under_stalls() {
    let k = mixes(50, 15, 0, 0, 300);
    println!("{k:?}");
    // coverage: SEND placements and completions, each RECV failure, RNR,
    // WRITE with immediate's completion
    assert!(k.send_placed > 150 && k.send_cqe_ok > 60 && k.write_imm_cqe > 15, "{k:?}");
    assert!(k.loc_len > 5 && k.loc_prot > 5 && k.loc_qp_op > 1 && k.rnr > 10, "{k:?}");
    // about half the successful RECV completions solicited (BTH.SE on a hash of the PSN)
    assert!(k.solicited_cqe * 4 > k.send_cqe_ok + k.write_imm_cqe, "{k:?}");
    // RQ flushes: after failures (at once and deferred), at the end of traffic
    assert!(k.flush_recs > 60 && k.flush_error > 50 && k.flush_deferred > 20, "{k:?}");
    // and flushes of QPs with no RECV posted (RESP_FLUSH_NONE: no m_pkt, no CQE)
    assert!(k.flush_none > 10, "{k:?}");
}

#[test]
fn random_rq_flushes_under_stalls() {
    let k = mixes(50, 15, 4, 0, 200);
    println!("{k:?}");
    // flushes of more RECVs than RqAhead's window, some over the ring's end
    assert!(k.flush_many > 12 && k.flush_wrap > 0 && k.flushed > 300, "{k:?}");
    assert!(k.send_placed > 150 && k.flush_error > 25 && k.flush_deferred > 10, "{k:?}");
}

/// Duplicate READs and atomics (`RESP_DUP_READ` / `RESP_DUP_ATOMIC`, as
/// `RespCheck` gives them) among WRITEs and SENDs, the bench playing
/// `ReplayTable` (every find's fields checked, answered after a random
/// latency with the model's hit or miss and an atomic's saved value): a
/// replayed READ's key checked again (two REMOTE_READ requests) and its
/// command on `m_ack` from the duplicate's PSN and RETH; its failure NAKed
/// remote access error, the QP in error (`wake`); an atomic ACKed with the
/// saved value and not run again (no `m_atom`); a miss dropped, no ACK,
/// one `rp_miss` pulse; never an `m_put`. The originals are the model's
/// only (the bench has no READ/atomic execution).
#[test]
fn random_duplicates_under_stalls() {
    let k = mixes(30, 10, 0, 30, 400);
    println!("{k:?}");
    assert!(k.dup_read_replay > 45 && k.dup_read_mid > 8 && k.dup_read_zero > 8, "{k:?}");
    assert!(k.dup_atomic_replay > 80 && k.dup_miss > 25 && k.dup_read_nak > 10, "{k:?}");
    // the rest of the traffic still there
    assert!(k.placed > 200 && k.send_cqe_ok > 30 && k.flush_recs > 10, "{k:?}");
}

/// An RQ flush of QP 0's RECVs after `sends` one-packet SENDs consumed the
/// first ones (their entries read ahead, so the flush finds its first
/// RECV in `RqAhead`'s window; none: read at the flush), with no stalls:
/// returns (cycles from the flush record taken to its first CQE offered,
/// cycles per RECV from the first CQE to the last, cycles per RECV from the
/// record taken to its `qps` write, the cycles between consecutive CQEs).
fn flush_run(n: u64, sends: u64) -> (u64, f64, f64, Vec<u64>) {
    const L: u64 = 25;
    const RD: u64 = 40;
    let mut rng = Rng(0xf105);
    let w = clean_world(&mut rng);
    let mut t = Traffic::new(13, w.clone(), 1, pmtu(1024));
    let (w, key, va) = big_region(&t, w);
    t.world = w.clone();
    t.flush_stream(n, sends, vec![Sge { addr: va, len: 1024, lkey: key }], 300);
    let f = sends as usize;
    let m = (n - sends) as usize;
    assert_eq!((t.recs.len(), t.kinds.send_cqe_ok, t.kinds.failed), (f + 1, f, 0));
    assert_eq!((t.kinds.flush_recs, t.kinds.flushed, t.kinds.flush_wrap), (1, m, 1));
    // the flush's CQEs: the RECVs left, in RQ order (the index wraps at 2^16)
    let want: Vec<(u64, u64)> = (sends..n)
        .map(|i| (0xF105_0000_0000_0000 + i, 0u16.wrapping_sub(n as u16 / 2).wrapping_add(i as u16) as u64))
        .collect();
    let got: Vec<(u64, u64)> = t.recs[f].cqes.iter().map(|c| (c[1], c[6])).collect();
    assert_eq!(got, want);
    let mut b = ExecBench::new(w, t.rq.clone(), ExecKnobs::fast(L, RD), 1);
    b.push(&t.recs);
    run(&mut b, 20_000);
    // one CQE per RECV (each checked in order by the bench)
    let cq: Vec<u64> = b.cqe_log.iter().filter(|c| c.1 == f).map(|c| c.0).collect();
    assert_eq!(cq.len(), m);
    // each entry read once
    let mut addrs: Vec<u64> = b.rd_log.iter().map(|r| r.1).collect();
    let reads = addrs.len();
    addrs.sort();
    addrs.dedup();
    assert_eq!((reads, addrs.len()), (n as usize, n as usize), "{:x?}", b.rd_log);
    let first = cq[0] - b.dec_taken[f];
    let per = (cq[m - 1] - cq[0]) as f64 / (m - 1) as f64;
    let all = (b.qps_log[f] - b.dec_taken[f]) as f64 / m as f64;
    let gaps: Vec<u64> = cq.windows(2).map(|w| w[1] - w[0]).collect();
    let t0 = b.dec_taken[f];
    println!(
        "flush of {m} RECVs after {sends} SENDs: first CQE {first} cycles, {per:.2} cycles/RECV, {all:.2} in all; \
         CQE gaps {gaps:?}, reads at {:?}",
        b.rd_log.iter().map(|r| r.0 as i64 - t0 as i64).collect::<Vec<_>>()
    );
    (first, per, all, gaps)
}

#[test]
fn rq_flush_rate() {
    assert_eq!((RESP_EXEC_FETCH_EXTRA, RESP_EXEC_AHEAD_EXTRA), (6, 3));
    // cold: the first entry read at the flush
    let (first, per, all, gaps) = flush_run(20, 0);
    assert!(first <= FLUSH_COLD_FIRST_MAX, "first CQE {first}");
    assert!(per <= FLUSH_COLD_PER_MAX && all <= FLUSH_COLD_ALL_MAX, "{per} {all}");
    // entries found in the window: one RECV per FLUSH_HIT_GAP cycles (most of them)
    let hits = gaps.iter().filter(|&&g| g <= FLUSH_HIT_GAP).count();
    assert!(hits * 3 >= gaps.len() * 2, "{gaps:?}");
    // warm: two SENDs read the first entries ahead
    let (first, per, all, gaps) = flush_run(20, 2);
    assert!(first <= FLUSH_WARM_FIRST_MAX, "first CQE {first}");
    assert!(per <= FLUSH_WARM_PER_MAX && all <= FLUSH_WARM_ALL_MAX, "{per} {all}");
    let hits = gaps.iter().filter(|&&g| g <= FLUSH_HIT_GAP).count();
    assert!(hits * 3 >= gaps.len() * 2, "{gaps:?}");
}

/// A region of QP 0's PD made 1 MiB at a 2 MiB page, its MTT entry VALID,
/// with LOCAL_WRITE and REMOTE_WRITE: (world, key, va).
fn big_region(t: &Traffic, mut w: MrWorld) -> (MrWorld, u32, u64) {
    let pd = t.pd(0);
    let m = w.mpt.values_mut().find(|m| m.pd == pd).expect("a region of the QP's PD");
    m.valid = true;
    m.remote_write = true;
    m.local_write = true;
    m.log_page_size = 21;
    m.va_base = 0x4000_0000;
    m.length = 1 << 20;
    m.mtt_base = (0x100..).find(|&e| !mtt_invalid(e)).unwrap();
    let (key, va) = (m.key, m.va_base + 0x1000);
    (w, key, va)
}

#[test]
fn latency_and_4k_stream() {
    const L: u64 = 25; // MrXlate's latency on hits
    let mut rng = Rng(0x4b57);
    let w = clean_world(&mut rng);
    let mut t = Traffic::new(9, w.clone(), 1, pmtu(4096));
    let (w, key, va) = big_region(&t, w);
    t.world = w.clone();
    t.stream(key, va, 16 * 4096);
    assert_eq!(t.kinds.failed, 0);
    let n = t.recs.len();
    assert_eq!(n, 16);
    let mut b = ExecBench::new(w, t.rq.clone(), ExecKnobs::fast(L, 40), 1);
    b.push(&t.recs);
    run(&mut b, 10_000);
    // latency: FIRST (key check: tail then head) one cycle more than a MIDDLE
    assert_eq!(b.first_piece[&0] - b.dec_taken[0], RESP_EXEC_PIECE_LATENCY + 1 + L);
    for i in 1..n {
        assert_eq!(b.first_piece[&i] - b.dec_taken[i], RESP_EXEC_PIECE_LATENCY + L, "record {i}");
    }
    // rate: a MIDDLE holds the block L + RESP_EXEC_PLACE_PERIOD cycles, under
    // the 64 cycles its 64 payload beats take in PayloadScatter
    for i in 2..n {
        assert_eq!(b.dec_taken[i] - b.dec_taken[i - 1], L + RESP_EXEC_PLACE_PERIOD, "record {i}");
    }
    assert!(b.dec_taken[n - 1] - b.dec_taken[n - 2] <= 64, "a 4 KiB packet's commands outpace its 64 beats");
}

#[test]
fn send_latency() {
    const L: u64 = 25; // MrXlate's latency on hits
    const RD: u64 = 40; // the RQ read's latency
    let mut rng = Rng(0x5e4d);
    let w = clean_world(&mut rng);
    let mut t = Traffic::new(11, w.clone(), 1, pmtu(1024));
    let (w, key, va) = big_region(&t, w);
    t.world = w.clone();
    // SGE 0 holds the FIRST, the MIDDLE and part of the LAST; SGE 1 the rest
    let sges = vec![Sge { addr: va, len: 2 * 1024 + 100, lkey: key }, Sge { addr: va + 0x8000, len: 4096, lkey: key }];
    t.send_stream(sges, 3 * 1024);
    assert_eq!((t.recs.len(), t.kinds.failed, t.kinds.send_cqe_ok), (3, 0, 1));
    let mut b = ExecBench::new(w, t.rq.clone(), ExecKnobs::fast(L, RD), 1);
    b.push(&t.recs);
    run(&mut b, 10_000);
    // the RECV WQE is read once, for the FIRST
    assert_eq!(b.rd_log.len(), 1);
    assert_eq!(RESP_EXEC_FETCH_EXTRA, 6);
    assert_eq!(b.first_piece[&0] - b.dec_taken[0], RESP_EXEC_SEND_PIECE_LATENCY + RESP_EXEC_FETCH_EXTRA + RD + L);
    // the MIDDLE in SGE 0; the LAST spans SGE 0 and 1: its pieces are
    // committed at the second request's answer, one cycle later
    assert_eq!(b.first_piece[&1] - b.dec_taken[1], RESP_EXEC_SEND_PIECE_LATENCY + L);
    assert_eq!(b.first_piece[&2] - b.dec_taken[2], RESP_EXEC_SEND_PIECE_LATENCY + 1 + L);
}

/// Eight one-packet SENDs, their RECVs posted before the first: the first
/// reads its RECV (and, ahead, the next); every later one finds its entry
/// read ahead: `RESP_EXEC_AHEAD_EXTRA` (3 cycles) instead of
/// `RESP_EXEC_FETCH_EXTRA` + the DMA's latency. Each entry is read once. With
/// `qp_inval` pulsed after record 3 is taken, record 4 reads its entry again.
fn read_ahead_run(inval_after: Option<usize>) -> (ExecBench, usize) {
    const L: u64 = 25;
    const RD: u64 = 40;
    let mut rng = Rng(0x5ead);
    let w = clean_world(&mut rng);
    let mut t = Traffic::new(12, w.clone(), 1, pmtu(1024));
    let (w, key, va) = big_region(&t, w);
    t.world = w.clone();
    let recvs = (0..8).map(|i| vec![Sge { addr: va + i * 0x1000, len: 1024, lkey: key }]).collect();
    t.send_messages(recvs, 700);
    assert_eq!((t.recs.len(), t.kinds.failed, t.kinds.send_cqe_ok), (8, 0, 8));
    let mut b = ExecBench::new(w, t.rq.clone(), ExecKnobs::fast(L, RD), 1);
    b.inval_after = inval_after;
    b.push(&t.recs);
    run(&mut b, 10_000);
    let lat = |i: usize| b.first_piece[&i] - b.dec_taken[i];
    assert_eq!(lat(0), RESP_EXEC_SEND_PIECE_LATENCY + RESP_EXEC_FETCH_EXTRA + RD + L);
    for i in 1..8 {
        let want = if inval_after == Some(i - 1) {
            RESP_EXEC_SEND_PIECE_LATENCY + RESP_EXEC_FETCH_EXTRA + RD + L
        } else {
            RESP_EXEC_SEND_PIECE_LATENCY + RESP_EXEC_AHEAD_EXTRA + L
        };
        assert_eq!(lat(i), want, "record {i}: taken {:?}, reads {:?}", b.dec_taken, b.rd_log);
    }
    let mut addrs: Vec<u64> = b.rd_log.iter().map(|r| r.1).collect();
    let reads = addrs.len();
    addrs.sort();
    addrs.dedup();
    assert_eq!(addrs.len(), 8, "every RECV read, and nothing else: {:x?}", b.rd_log);
    (b, reads)
}

#[test]
fn recvs_read_ahead() {
    let (b, reads) = read_ahead_run(None);
    assert_eq!(reads, 8, "each entry read once: {:x?}", b.rd_log);
    // the second entry's read follows the first's (a new window reads two)
    assert_eq!(b.rd_log[1].0 - b.rd_log[0].0, 2);
    assert_eq!(RESP_EXEC_AHEAD_EXTRA, 3);
    let (b, reads) = read_ahead_run(Some(3));
    // after the pulse, entry 4 and those read ahead of it are read again
    assert!(reads > 8, "{:x?}", b.rd_log);
}

/// A record with verdict `RESP_NAK_INV` (`RespCheck` found the request
/// invalid: its new state has IN_PROGRESS ERROR) after a WRITE: its NAK, no
/// placement, its `qps` write with `wake` (the QP's move into error); the
/// WRITE before it writes without `wake`. The bench checks `wake` on every
/// `m_qps` item.
#[test]
fn an_invalid_requests_write_wakes_the_qp() {
    use rnic_contract::layouts::qps as qps_layout;
    use rnic_hw::consts::{AETH_KIND_NAK, AETH_NAK_INVALID_REQ, IP_ERROR, RESP_NAK_INV};
    let mut rng = Rng(0x1a7);
    let w = clean_world(&mut rng);
    let mut t = Traffic::new(17, w.clone(), 1, pmtu(1024));
    let (w, key, va) = big_region(&t, w);
    t.world = w.clone();
    t.stream(key, va, 1024);
    assert_eq!((t.recs.len(), t.kinds.failed), (1, 0));
    let mut r = t.recs[0].clone();
    let syn = AETH_KIND_NAK << 5 | AETH_NAK_INVALID_REQ;
    for f in r.fields.iter_mut() {
        match f.0 {
            "s_dec.verdict" => f.1 = RESP_NAK_INV,
            "s_dec.ack" => f.1 = 1,
            "s_dec.syndrome" => f.1 = syn,
            "s_dec.key_check" | "s_dec.recv_new" | "s_dec.recv_done" => f.1 = 0,
            "s_dec.write" => f.1 = 1,
            "s_dec.wr_mask" => f.1 = !0,
            _ => {}
        }
    }
    let get = |n: &str| r.fields.iter().find(|f| f.0 == n).unwrap().1;
    let (psn, msn) = (get("s_dec.aeth_psn"), get("s_dec.aeth_msn"));
    let mut data = r.wr_data;
    let pos = qps_layout::IN_PROGRESS.pos();
    for b in 0..2 {
        let p = pos + b;
        data[p / 32] = data[p / 32] & !(1 << (p % 32)) | (((IP_ERROR >> b) & 1) as u32) << (p % 32);
    }
    r.wr_data = data;
    r.pkt = r.pkt.map(|(lane, _)| (lane, true));
    r.pieces = vec![];
    r.ack = Some((psn, AETH_KIND_NAK, AETH_NAK_INVALID_REQ, msn));
    r.cqes = vec![];
    r.qps = Some((!0, data));
    r.failed = false;
    let recs = vec![t.recs[0].clone(), r];
    let mut b = ExecBench::new(w, t.rq.clone(), ExecKnobs::fast(25, 40), 1);
    b.push(&recs);
    run(&mut b, 10_000);
    assert_eq!(b.qps_log.len(), 2, "both records wrote");
    assert_eq!(b.wakes, 1, "the NAK_INV record's write woke the QP, the WRITE's did not");
}
