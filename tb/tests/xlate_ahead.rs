//! `XlateAhead` (catalog `xlate_ahead`): the responder's records queued
//! between `RespCheck` and `RespExec`, their translation requests sent
//! ahead. Random records of every verdict go in under stalls; a model of
//! `RespExec` takes them (a barrier's requests it issues itself through
//! `s_xreq`), a model of `MrXlate` answers every request in order with one
//! or two beats after a random delay. Checked: every record comes out whole
//! and in order with `m_pre` low exactly for SENDs and duplicates; the
//! requests reach the unit in record order with the fields `RespExec` would
//! give them (tail then head with a key check; a placed WRITE's head with
//! its payload length), so a barrier's own requests are never overtaken;
//! each record's model gets exactly the beats of its own requests; the
//! answer FIFO never refuses a beat (no answer waits in the mux, whatever
//! `RespExec` does); the readys come from flops. And the point of it: with
//! the records queued, a record's answers are waiting when it is taken.

use rnic_hw::consts::*;
use rnic_hw::transport::XLATE_AHEAD_BEATS;
use rnic_sim::axis::Rng;
use rnic_sim::models::xlate_ahead::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// `RespDecIn`'s scalar fields, by port name (`wr_data` beside them).
const FIELDS: [(&str, u32); 20] = [
    ("qpn", 24),
    ("psn", 24),
    ("verdict", 4),
    ("ack", 1),
    ("syndrome", 8),
    ("aeth_psn", 24),
    ("aeth_msn", 24),
    ("msn_before", 24),
    ("key_check", 1),
    ("key_access", 3),
    ("rkey", 32),
    ("va", 64),
    ("len", 32),
    ("recv_new", 1),
    ("recv_index", 16),
    ("recv_offset", 32),
    ("recv_done", 1),
    ("cqe_len", 32),
    ("write", 1),
    ("wr_mask", 64),
];
const F_VERDICT: usize = 2;
const F_KEY_CHECK: usize = 8;
const F_ACCESS: usize = 9;
const F_RKEY: usize = 10;
const F_VA: usize = 11;
const F_LEN: usize = 12;

/// key pd va len access id
type Req = [u64; 6];
/// id verdict iova len last
type Beat = [u64; 5];

#[derive(Clone)]
struct Rec {
    f: [u64; 20],
    data: [u32; 16],
    pd: u64,
    plen: u64,
    /// The requests the record's translation needs, in order: from here
    /// when it is not a barrier, else the ones `RespExec`'s model issues.
    reqs: Vec<Req>,
    bar: bool,
}

fn mask(w: u32) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}

/// The requests `RespExec` makes for a record it takes (its module doc):
/// with the key check the tail then the head, else a placed WRITE's head.
fn own_requests(f: &[u64; 20], pd: u64, plen: u64) -> Vec<Req> {
    let chk = f[F_KEY_CHECK] == 1 && f[F_LEN] > 0;
    let place = f[F_VERDICT] == RESP_EXEC_WRITE && plen > 0;
    let hlen = if place { plen } else { 1 };
    let head = [f[F_RKEY], pd, f[F_VA], hlen, f[F_ACCESS], RESP_XID_HEAD];
    if chk {
        vec![[f[F_RKEY], pd, f[F_VA].wrapping_add(f[F_LEN]).wrapping_sub(1), 1, f[F_ACCESS], RESP_XID_TAIL], head]
    } else if place {
        vec![head]
    } else {
        vec![]
    }
}

/// The records a run draws.
#[derive(Clone, Copy, PartialEq)]
enum Mix {
    /// Every verdict, key checks and lengths at random (some zero).
    Any,
    /// WRITEs only, key checks and lengths at random.
    Writes,
    /// 64-byte WRITE ONLYs: a key check and a placement each.
    SmallWrites,
}

fn random_record(rng: &mut Rng, mix: Mix) -> Rec {
    const VERDICTS: [u64; 9] = [
        RESP_EXEC_WRITE,
        RESP_EXEC_WRITE,
        RESP_EXEC_WRITE,
        RESP_EXEC_READ,
        RESP_EXEC_ATOMIC,
        RESP_EXEC_SEND,
        RESP_DUP_READ,
        RESP_DUP_ATOMIC,
        RESP_NAK_INV,
    ];
    let mut f: [u64; 20] = std::array::from_fn(|i| rng.next() & mask(FIELDS[i].1));
    f[F_VERDICT] = if mix == Mix::Any { VERDICTS[(rng.next() % 9) as usize] } else { RESP_EXEC_WRITE };
    f[F_KEY_CHECK] = rng.chance(60) as u64;
    f[F_LEN] = if rng.chance(15) { 0 } else { 1 + rng.next() % 4096 };
    let mut plen = if rng.chance(15) { 0 } else { 1 + rng.next() % 4096 };
    if mix == Mix::SmallWrites {
        (f[F_KEY_CHECK], f[F_LEN], plen) = (1, 64, 64);
    }
    let pd = rng.next() & 0xff_ffff;
    let bar = [RESP_EXEC_SEND, RESP_DUP_READ, RESP_DUP_ATOMIC].contains(&f[F_VERDICT]);
    let reqs = if bar {
        (0..rng.next() % 4)
            .map(|_| [rng.next() & 0xffff_ffff, pd, rng.next(), 1 + rng.next() % 4096, rng.next() & 7, RESP_XID_SGE])
            .collect()
    } else {
        own_requests(&f, pd, plen)
    };
    Rec { f, data: std::array::from_fn(|_| rng.next() as u32), pd, plen, reqs, bar }
}

/// The unit's answer to a request: one or two beats, tagged by it.
fn answer(r: &Req, k: u64) -> Vec<Beat> {
    let n = 1 + (r[2] ^ r[3] ^ k) % XLATE_AHEAD_BEATS as u64;
    (0..n).map(|b| [r[5], (k + b) & 7, r[2] ^ (k << 20) ^ b, (r[3] + b) & 0xffff_ffff, (b + 1 == n) as u64]).collect()
}

#[derive(Default)]
struct Knobs {
    /// Percent chances per cycle: a record offered, `s_xvalid`, the unit
    /// taking a request, an answer offered, `RespExec`'s model taking a
    /// record, taking an answer beat, offering its own request.
    p_in: u64,
    p_x: u64,
    p_unit: u64,
    p_ans: u64,
    p_take: u64,
    p_beat: u64,
    p_own: u64,
    /// The unit's answer delay: fixed part and random part.
    delay: u64,
    jitter: u64,
    /// Cycles `RespExec`'s model keeps a record after its last answer.
    hold: u64,
}

struct Trace {
    /// Per record: the cycle it was taken, the cycles its beats were taken.
    taken_at: Vec<u64>,
    beats_at: Vec<Vec<u64>>,
    cycles: u64,
}

struct Held {
    idx: usize,
    own: VecDeque<Req>,
    beats_left: usize,
    done_at: Option<u64>,
}

fn run(seed: u64, n: usize, mix: Mix, k: &Knobs) -> Trace {
    let mut rng = Rng(seed);
    let recs: Vec<Rec> = (0..n).map(|_| random_record(&mut rng, mix)).collect();
    let mut sim = Clocked::new(Dut::new());
    sim.reset(3);
    let d = &sim.dut;
    let s_f: Vec<usize> = FIELDS.iter().map(|(n, _)| d.port(&format!("s_dec.{n}"))).collect();
    let m_f: Vec<usize> = FIELDS.iter().map(|(n, _)| d.port(&format!("m_dec.{n}"))).collect();
    let rf = ["key", "pd", "va", "len", "access", "id"];
    let bf = ["id", "verdict", "iova", "len", "last"];
    let s_req: Vec<usize> = rf.iter().map(|f| d.port(&format!("s_xreq.{f}"))).collect();
    let m_req: Vec<usize> = rf.iter().map(|f| d.port(&format!("m_xreq.{f}"))).collect();
    let s_ans: Vec<usize> = bf.iter().map(|f| d.port(&format!("s_xresp.{f}"))).collect();
    let m_ans: Vec<usize> = bf.iter().map(|f| d.port(&format!("m_xresp.{f}"))).collect();
    let (s_wr, m_wr) = (d.port("s_dec.wr_data"), d.port("m_dec.wr_data"));
    // every request in the order the unit must see it, with its record
    let mut want_reqs: VecDeque<(usize, Req)> =
        recs.iter().enumerate().flat_map(|(i, r)| r.reqs.iter().map(move |q| (i, *q))).collect();
    let mut answers: Vec<VecDeque<Beat>> = vec![VecDeque::new(); n];
    let mut unit: VecDeque<(u64, Beat)> = VecDeque::new();
    let mut next_in = 0usize;
    let mut next_out = 0usize;
    let mut in_valid = false;
    let mut ans_valid = false;
    let mut held: Option<Held> = None;
    let mut own_valid = false;
    let mut reqs_seen = 0u64;
    let mut tr = Trace { taken_at: vec![0; n], beats_at: vec![vec![]; n], cycles: 0 };
    let mut offered_rec: Option<usize> = None;
    let limit = 200 * n as u64 + 2000;
    while next_out < n || held.is_some() {
        let now = sim.cycle();
        assert!(now < limit, "seed {seed}: stuck at record {next_out} of {n}");
        let d = &mut sim.dut;
        // ---- records in
        in_valid = next_in < n && (in_valid || rng.chance(k.p_in));
        if next_in < n {
            let r = &recs[next_in];
            for (i, p) in s_f.iter().enumerate() {
                d.set_at(*p, r.f[i]);
            }
            d.set_words(s_wr, &r.data);
            d.set("s_pd", r.pd);
            d.set("s_plen", r.plen);
        }
        d.set("s_dec.valid", in_valid as u64);
        let xvalid = rng.chance(k.p_x);
        d.set("s_xvalid", xvalid as u64);
        // ---- `RespExec`'s model
        let idle = held.is_none();
        d.set("exec_idle", idle as u64);
        let take = idle && rng.chance(k.p_take);
        d.set("m_dec.ready", take as u64);
        let beat_ready = held.as_ref().is_some_and(|h| h.beats_left > 0) && rng.chance(k.p_beat);
        d.set("m_xresp.ready", beat_ready as u64);
        if let Some(h) = &held {
            own_valid = !h.own.is_empty() && (own_valid || rng.chance(k.p_own));
            if let Some(q) = h.own.front() {
                for (i, p) in s_req.iter().enumerate() {
                    d.set_at(*p, q[i]);
                }
            }
        } else {
            own_valid = false;
        }
        d.set("s_xreq.valid", own_valid as u64);
        // ---- the unit
        let unit_ready = rng.chance(k.p_unit);
        d.set("m_xreq.ready", unit_ready as u64);
        ans_valid = ans_valid || (unit.front().is_some_and(|a| a.0 <= now) && rng.chance(k.p_ans));
        if let Some((_, b)) = unit.front() {
            for (i, p) in s_ans.iter().enumerate() {
                d.set_at(*p, b[i]);
            }
        }
        d.set("s_xresp.valid", ans_valid as u64);
        // the readys from flops: none moves with another port's ready or valid
        let flops = |d: &mut Dut| [d.get("s_dec.ready"), d.get("s_xreq.ready"), d.get("s_xresp.ready")];
        d.eval();
        let r0 = flops(d);
        d.set("m_xreq.ready", !unit_ready as u64);
        d.set("m_dec.ready", !take as u64);
        d.set("m_xresp.ready", !beat_ready as u64);
        d.eval();
        assert_eq!(r0, flops(d), "seed {seed}: a ready follows another port's ready");
        d.set("m_xreq.ready", unit_ready as u64);
        d.set("m_dec.ready", take as u64);
        d.set("m_xresp.ready", beat_ready as u64);
        d.eval();

        if in_valid && (d.get("s_dec.ready") == 1) {
            assert!(xvalid, "seed {seed}: a record taken without its PD and payload length");
            assert_eq!(d.get("s_xpop"), 1, "seed {seed}: the PD and payload length popped with the record");
            next_in += 1;
            in_valid = false;
        } else {
            assert_eq!(d.get("s_xpop"), 0, "seed {seed}: s_xpop without a record taken");
        }
        if ans_valid {
            assert!((d.get("s_xresp.ready") == 1), "seed {seed}: an answer refused: it would wait in the mux");
            unit.pop_front();
            ans_valid = false;
        }
        if (d.get("m_xreq.valid") == 1) && unit_ready {
            let got: Req = std::array::from_fn(|i| d.get_at(m_req[i]));
            let (idx, want) = want_reqs.pop_front().expect("a request no record needs");
            assert_eq!(got, want, "seed {seed}: request {reqs_seen} (record {idx}) at the unit");
            let beats = answer(&got, reqs_seen);
            answers[idx].extend(beats.iter().copied());
            let at = now + k.delay + if k.jitter > 0 { rng.next() % k.jitter } else { 0 };
            unit.extend(beats.into_iter().map(|b| (at, b)));
            reqs_seen += 1;
        }
        if d.get("m_dec.valid") == 1 {
            if let Some(i) = offered_rec {
                assert_eq!(i, next_out, "seed {seed}: an offered record withdrawn");
            }
            offered_rec = Some(next_out);
            if take {
                let r = &recs[next_out];
                let got: Vec<u64> = m_f.iter().map(|p| d.get_at(*p)).collect();
                assert_eq!(got, r.f.to_vec(), "seed {seed}: record {next_out}'s fields");
                let mut w = [0u32; 16];
                d.get_words(m_wr, &mut w);
                assert_eq!(w, r.data, "seed {seed}: record {next_out}'s wr_data");
                assert_eq!(d.get("m_pre"), !r.bar as u64, "seed {seed}: record {next_out}'s m_pre");
                held = Some(Held {
                    idx: next_out,
                    own: if r.bar { r.reqs.iter().copied().collect() } else { VecDeque::new() },
                    beats_left: r.reqs.len(),
                    done_at: None,
                });
                tr.taken_at[next_out] = now;
                next_out += 1;
                offered_rec = None;
            }
        } else {
            assert!(offered_rec.is_none(), "seed {seed}: an offered record withdrawn");
        }
        let mut finished = false;
        if let Some(h) = &mut held {
            if own_valid && (d.get("s_xreq.ready") == 1) {
                h.own.pop_front();
                own_valid = false;
            }
            if beat_ready && (d.get("m_xresp.valid") == 1) {
                let got: Beat = std::array::from_fn(|i| d.get_at(m_ans[i]));
                let want = answers[h.idx].pop_front().expect("a beat for a request not yet at the unit");
                assert_eq!(got, want, "seed {seed}: record {}'s answer beat", h.idx);
                tr.beats_at[h.idx].push(now);
                if got[4] == 1 {
                    h.beats_left -= 1;
                }
            }
            if h.beats_left == 0 && h.own.is_empty() {
                let at = *h.done_at.get_or_insert(now + k.hold);
                finished = now >= at;
            }
        }
        if finished {
            let h = held.take().unwrap();
            assert!(answers[h.idx].is_empty(), "seed {seed}: record {} left beats", h.idx);
        }
        sim.tick();
    }
    assert!(want_reqs.is_empty() && unit.is_empty(), "seed {seed}: requests or answers left");
    tr.cycles = sim.cycle();
    tr
}

#[test]
fn random_records_under_stalls() {
    for (seed, p) in [(1u64, 50u64), (2, 90), (3, 25), (4, 70)] {
        let k = Knobs {
            p_in: p,
            p_x: 100 - p / 3,
            p_unit: p,
            p_ans: p,
            p_take: p,
            p_beat: p,
            p_own: p,
            delay: 3,
            jitter: 40,
            hold: seed % 3,
        };
        run(seed, 600, Mix::Any, &k);
    }
}

/// A slow `RespExec` and a fast unit: the answer FIFO fills to its
/// reserve and the issuer waits, never the unit.
#[test]
fn answers_wait_here_not_in_the_mux() {
    let k = Knobs {
        p_in: 100,
        p_x: 100,
        p_unit: 100,
        p_ans: 100,
        p_take: 100,
        p_beat: 20,
        p_own: 100,
        delay: 1,
        jitter: 1,
        hold: 30,
    };
    run(5, 300, Mix::Writes, &k);
}

/// Back-to-back placed WRITEs with a key check (two requests each), a
/// unit answering 25 cycles after each request, `RespExec`'s model taking
/// each answer at once and holding a record 3 cycles after its last: past
/// the first records, each record's answers are waiting when it is taken.
#[test]
fn answers_are_waiting_when_a_record_is_taken() {
    let k = Knobs {
        p_in: 100,
        p_x: 100,
        p_unit: 100,
        p_ans: 100,
        p_take: 100,
        p_beat: 100,
        p_own: 100,
        delay: 25,
        jitter: 0,
        hold: 3,
    };
    let n = 64;
    let tr = run(6, n, Mix::SmallWrites, &k);
    // the first record waits for its round trip: its tail goes into the
    // request register as it is taken in (the issuer idle), two cycles
    // before `RespExec` is offered it; the unit (25), the answer FIFO (2)
    let first = tr.beats_at[0][0] - tr.taken_at[0];
    assert_eq!(first, 26, "the first record's round trip");
    let waits: Vec<u64> = (8..n).map(|i| tr.beats_at[i][0] - tr.taken_at[i]).collect();
    assert!(waits.iter().all(|&w| w == 1), "answers waiting at the take: {waits:?}");
    let period = (tr.taken_at[n - 1] - tr.taken_at[8]) as f64 / (n - 9) as f64;
    eprintln!("first answer {first} cycles after the take; then a record every {period:.2} cycles");
    // the model's own pace: taken, two beats, three cycles held, idle
    assert_eq!(period, 7.0, "a record every {period} cycles");
}
