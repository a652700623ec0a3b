//! The core's glue blocks under random stalls on every port.
//!
//! * `inflight_mux`: the requester's PUSHes and the completer's commands
//!   onto one `Inflight`; a model of the table takes commands under stalls
//!   and answers each, in order, after a random delay. Every command reaches
//!   the table with its fields, in each user's order; the completer gets
//!   exactly its own answers, in order; the requester's are dropped, the
//!   refused ones counted; never more commands outstanding than the order
//!   FIFO routes; a command per cycle with nothing stalled.
//! * `cqe_merge`: receive and send completions onto the CQ engine's port;
//!   every CQE arrives once, in each source's order, laid out as
//!   `layouts::cqe`; one per cycle, the two sources alternating when both wait.
//! * `work_merge`: doorbells and the completer's wakes onto the send
//!   scheduler's port; every QPN arrives once, in each source's order,
//!   [`WORK_MERGE_LATENCY`] cycles after it was taken when the way is
//!   clear; one per cycle, the two sources alternating when both wait.

use rnic_contract::codes::{WcOpcode, WcStatus};
use rnic_contract::layouts::cqe;
use rnic_hw::consts::{INFLIGHT_HEAD, INFLIGHT_PUSH};
use rnic_hw::transport::{InflightMux, WORK_MERGE_LATENCY};
use rnic_sim::axis::Rng;
use rnic_sim::models::{cqe_merge, inflight_mux, work_merge};
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// A command: op, qpn, index, data (199 bits as 7 words).
#[derive(Clone, Debug, PartialEq)]
struct Cmd {
    op: u64,
    qpn: u64,
    index: u64,
    data: [u32; 7],
}

fn random_cmd(rng: &mut Rng, push: bool) -> Cmd {
    let mut data = [0u32; 7];
    for w in &mut data {
        *w = rng.next() as u32;
    }
    data[6] &= (1 << (199 - 192)) - 1;
    let op = if push { INFLIGHT_PUSH } else { INFLIGHT_HEAD + rng.next() % 4 };
    Cmd { op, qpn: rng.next() & 0x3fff, index: rng.next() & 0xfff, data }
}

/// The table model's answer to a command: fields derived from it.
fn answer_of(c: &Cmd) -> [u64; 6] {
    let x = (c.data[0] as u64) ^ (c.qpn << 20) ^ c.op;
    // index, next_index, is_tail, empty, full, count
    [c.index, (x >> 3) & 0xfff, x & 1, (x >> 1) & 1, (x >> 2) & 1, (x >> 5) & 0x1fff]
}

struct MuxRun {
    at_table: Vec<(usize, Cmd)>,
    comp_answers: Vec<[u64; 6]>,
    refused: u64,
    cycles: u64,
    max_outstanding: usize,
}

fn run_mux(seed: u64, n: usize, p_push: u64, p_comp: u64, p_table: u64, p_take: u64, max_delay: u64) -> MuxRun {
    let mut rng = Rng(seed);
    let mut sim = Clocked::new(inflight_mux::Dut::new());
    sim.reset(3);
    let af = ["index", "next_index", "is_tail", "empty", "full", "count"];
    let mut users: [VecDeque<Cmd>; 2] = [VecDeque::new(), VecDeque::new()];
    for _ in 0..n {
        let u = (rng.next() % 2) as usize;
        let c = random_cmd(&mut rng, u == 0);
        users[u].push_back(c);
    }
    let want: [Vec<Cmd>; 2] = [users[0].iter().cloned().collect(), users[1].iter().cloned().collect()];
    let mut run = MuxRun { at_table: vec![], comp_answers: vec![], refused: 0, cycles: 0, max_outstanding: 0 };
    let mut offered = [false; 2];
    // the table's answers: (cycle ready, user tag for the check, command)
    let mut answers: VecDeque<(u64, Cmd)> = VecDeque::new();
    let mut ans_offered = false;
    let mut comp_taking_ok = true;
    let mut cycle = 0u64;
    let mut want_refused = 0u64;
    while run.at_table.len() < n || !answers.is_empty() || run.comp_answers.len() < want[1].len() {
        assert!(cycle < 200 * n as u64 + 1000, "inflight_mux: stuck");
        let d = &mut sim.dut;
        for (u, name) in ["s_push", "s_comp"].iter().enumerate() {
            let p = if u == 0 { p_push } else { p_comp };
            if !offered[u] && !users[u].is_empty() && rng.chance(p) {
                offered[u] = true;
            }
            if let Some(c) = users[u].front().filter(|_| offered[u]) {
                d.set(&format!("{name}.op"), c.op);
                d.set(&format!("{name}.qpn"), c.qpn);
                d.set(&format!("{name}.index"), c.index);
                let i = d.port(&format!("{name}.data"));
                d.set_words(i, &c.data);
            }
            d.set(&format!("{name}.valid"), offered[u] as u64);
        }
        let table_ready = rng.chance(p_table);
        d.set("m_cmd.ready", table_ready as u64);
        if !ans_offered && answers.front().is_some_and(|a| a.0 <= cycle) {
            ans_offered = true;
        }
        if let Some((_, c)) = answers.front().filter(|_| ans_offered) {
            let a = answer_of(c);
            for (f, v) in af.iter().zip(a) {
                d.set(&format!("s_resp.{f}"), v);
            }
            let i = d.port("s_resp.data");
            d.set_words(i, &c.data);
        }
        d.set("s_resp.valid", ans_offered as u64);
        let take = rng.chance(p_take);
        d.set("m_comp.ready", take as u64);
        d.eval();
        // what moved
        for (u, name) in ["s_push", "s_comp"].iter().enumerate() {
            if offered[u] && d.get(&format!("{name}.ready")) == 1 {
                users[u].pop_front();
                offered[u] = false;
            }
        }
        if d.get("m_cmd.valid") == 1 && table_ready {
            let mut data = [0u32; 7];
            d.get_words(d.port("m_cmd.data"), &mut data);
            let c = Cmd { op: d.get("m_cmd.op"), qpn: d.get("m_cmd.qpn"), index: d.get("m_cmd.index"), data };
            let u = (c.op != INFLIGHT_PUSH) as usize;
            run.at_table.push((u, c.clone()));
            answers.push_back((cycle + 1 + rng.next() % (max_delay + 1), c));
        }
        run.max_outstanding = run.max_outstanding.max(answers.len());
        if ans_offered && d.get("s_resp.ready") == 1 {
            let (_, c) = answers.pop_front().unwrap();
            if c.op == INFLIGHT_PUSH && answer_of(&c)[4] == 1 {
                want_refused += 1;
            }
            ans_offered = false;
        }
        if d.get("m_comp.valid") == 1 && take {
            let a: Vec<u64> = af.iter().map(|f| d.get(&format!("m_comp.{f}"))).collect();
            let k = run.comp_answers.len();
            let c = &want[1][k];
            let mut data = [0u32; 7];
            d.get_words(d.port("m_comp.data"), &mut data);
            comp_taking_ok &= data == c.data;
            run.comp_answers.push(a.try_into().unwrap());
        }
        sim.tick();
        cycle += 1;
    }
    sim.settle();
    run.refused = sim.dut.get("cnt_push_refused");
    assert_eq!(run.refused, want_refused, "refused PUSHes counted");
    assert!(comp_taking_ok, "the completer's answers carry their commands' data");
    // every command at the table, in each user's order, with its fields
    for (u, want_u) in want.iter().enumerate() {
        let got: Vec<&Cmd> = run.at_table.iter().filter(|x| x.0 == u).map(|x| &x.1).collect();
        assert_eq!(got.len(), want_u.len(), "user {u}: commands at the table");
        for (k, (g, w)) in got.iter().zip(want_u).enumerate() {
            assert_eq!(*g, w, "user {u}: command {k}");
        }
    }
    let want_ans: Vec<[u64; 6]> = want[1].iter().map(answer_of).collect();
    assert_eq!(run.comp_answers, want_ans, "the completer's answers, in order");
    run.cycles = cycle;
    run
}

#[test]
fn inflight_mux_routes_answers_under_stalls() {
    for seed in 1..=4 {
        let r = run_mux(seed, 600, 60, 70, 70, 65, 12);
        assert!(r.max_outstanding <= 32, "seed {seed}: {} commands outstanding", r.max_outstanding);
    }
}

#[test]
fn inflight_mux_takes_a_command_per_cycle() {
    // nothing stalled, answers at once: 400 commands in 400 cycles plus the latency
    let r = run_mux(9, 400, 100, 100, 100, 100, 0);
    assert!(r.cycles <= 400 + 2 * InflightMux::LATENCY + 4, "{} cycles for 400 commands", r.cycles);
}

/// A completion as the sources offer it.
#[derive(Clone, Debug)]
struct Cqe {
    cq: u64,
    wr_id: u64,
    status: u64,
    opcode: u64,
    byte_len: u64,
    qpn: u64,
    wqe_index: u64,
    imm: u64,
    with_imm: u64,
    /// A receive completion's BTH.SE (a send completion never has it).
    solicited: u64,
}

fn random_cqe(rng: &mut Rng, recv: bool) -> Cqe {
    let status = [WcStatus::Success, WcStatus::LocLenErr, WcStatus::RemAccessErr][(rng.next() % 3) as usize] as u64;
    let opcode = if recv { WcOpcode::Recv as u64 } else { WcOpcode::RdmaWrite as u64 };
    Cqe {
        cq: rng.next() & 0xff_ffff,
        wr_id: rng.next(),
        status,
        opcode,
        byte_len: rng.next() & 0xffff_ffff,
        qpn: rng.next() & 0xff_ffff,
        wqe_index: rng.next() & 0xffff,
        imm: if recv { rng.next() & 0xffff_ffff } else { 0 },
        with_imm: if recv { rng.next() & 1 } else { 0 },
        solicited: if recv { rng.next() & 1 } else { 0 },
    }
}

fn run_merge(seed: u64, n: usize, p_src: u64, p_take: u64) -> (u64, Vec<usize>) {
    let mut rng = Rng(seed);
    let mut sim = Clocked::new(cqe_merge::Dut::new());
    sim.reset(3);
    let mut srcs: [VecDeque<Cqe>; 2] = [VecDeque::new(), VecDeque::new()];
    for _ in 0..n {
        let u = (rng.next() % 2) as usize;
        let c = random_cqe(&mut rng, u == 0);
        srcs[u].push_back(c);
    }
    let mut want: [VecDeque<Cqe>; 2] = srcs.clone();
    let names = ["s_recv", "s_comp"];
    let mut offered = [false; 2];
    let mut order = vec![];
    let mut got = 0;
    let mut cycle = 0u64;
    while got < n {
        assert!(cycle < 100 * n as u64 + 100, "cqe_merge: stuck");
        let d = &mut sim.dut;
        for u in 0..2 {
            if !offered[u] && !srcs[u].is_empty() && rng.chance(p_src) {
                offered[u] = true;
            }
            if let Some(c) = srcs[u].front().filter(|_| offered[u]) {
                let n = names[u];
                for (f, v) in [
                    ("cq", c.cq),
                    ("wr_id", c.wr_id),
                    ("status", c.status),
                    ("opcode", c.opcode),
                    ("byte_len", c.byte_len),
                    ("qpn", c.qpn),
                    ("wqe_index", c.wqe_index),
                ] {
                    d.set(&format!("{n}.{f}"), v);
                }
                if u == 0 {
                    d.set("s_recv.imm", c.imm);
                    d.set("s_recv.with_imm", c.with_imm);
                    d.set("s_recv.solicited", c.solicited);
                }
            }
            d.set(&format!("{}.valid", names[u]), offered[u] as u64);
        }
        let take = rng.chance(p_take);
        d.set("m_cqe.ready", take as u64);
        d.eval();
        for u in 0..2 {
            if offered[u] && d.get(&format!("{}.ready", names[u])) == 1 {
                srcs[u].pop_front();
                offered[u] = false;
            }
        }
        if d.get("m_cqe.valid") == 1 && take {
            let mut words = [0u32; 8];
            d.get_words(d.port("m_cqe.data"), &mut words);
            let e: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let u = (cqe::OPCODE.get(&e).unwrap() != WcOpcode::Recv) as usize;
            let w = want[u].pop_front().expect("a CQE its source offered");
            assert_eq!(d.get("m_cqe.cqn"), w.cq, "cycle {cycle}: CQ number");
            assert_eq!(d.get("m_cqe.solicited"), w.solicited, "cycle {cycle}: solicited");
            assert_eq!(cqe::WR_ID.get(&e).unwrap(), w.wr_id, "cycle {cycle}: WR_ID");
            assert_eq!(cqe::BYTE_LEN.get(&e).unwrap() as u64, w.byte_len);
            assert_eq!(cqe::IMM.get(&e).unwrap() as u64, w.imm);
            assert_eq!(cqe::QPN.get(&e).unwrap() as u64, w.qpn);
            assert_eq!(cqe::STATUS.get(&e).unwrap() as u64, w.status);
            assert_eq!(cqe::WITH_IMM.get(&e).unwrap() as u64, w.with_imm);
            assert_eq!(cqe::WQE_INDEX.get(&e).unwrap() as u64, w.wqe_index);
            assert!(!cqe::OWNER.get(&e).unwrap(), "the engine sets OWNER");
            order.push(u);
            got += 1;
        }
        sim.tick();
        cycle += 1;
    }
    (cycle, order)
}

#[test]
fn cqe_merge_lays_out_every_completion_under_stalls() {
    for seed in 1..=4 {
        run_merge(seed, 500, 50, 60);
    }
}

#[test]
fn cqe_merge_takes_one_per_cycle_and_alternates() {
    let (cycles, order) = run_merge(5, 400, 100, 100);
    assert!(cycles <= 400 + 2, "{cycles} cycles for 400 CQEs");
    // while both sources had work, they alternated
    let both = order.iter().take(100).collect::<Vec<_>>();
    assert!(both.windows(2).filter(|w| w[0] == w[1]).count() <= 2, "round robin: {both:?}");
}

/// `n[i]` QPNs from source i through `work_merge`, sources offering `p_src` and
/// the scheduler taking `p_take` percent of cycles: per source, the QPNs
/// out in order; the source of each output in order; latencies of QPNs
/// taken when the output was empty and taken at once.
fn run_work(seed: u64, n: [usize; 2], p_src: u64, p_take: u64) -> (Vec<usize>, Vec<u64>, u64) {
    let mut rng = Rng(seed);
    let mut sim = Clocked::new(work_merge::Dut::new());
    sim.reset(3);
    let mut todo: [VecDeque<u64>; 2] = std::array::from_fn(|i| (0..n[i]).map(|_| rng.next() & 0x3fff).collect());
    let mut want: [VecDeque<(u64, u64)>; 2] = [VecDeque::new(), VecDeque::new()];
    let mut offering = [false; 2];
    let (mut order, mut lat) = (vec![], vec![]);
    let start = sim.cycle();
    let names = ["s_db", "s_wake"];
    while todo.iter().any(|q| !q.is_empty()) || want.iter().any(|q| !q.is_empty()) {
        let now = sim.cycle();
        assert!(now - start < 50 * (n[0] + n[1]) as u64 + 100, "stuck");
        for i in 0..2 {
            offering[i] = !todo[i].is_empty() && (offering[i] || rng.chance(p_src));
            sim.dut.set(&format!("{}.qpn", names[i]), todo[i].front().copied().unwrap_or(0));
            sim.dut.set(&format!("{}.valid", names[i]), offering[i] as u64);
        }
        let take = rng.chance(p_take);
        sim.dut.set("m_work.ready", take as u64);
        sim.dut.eval();
        if take && sim.dut.get("m_work.valid") == 1 {
            let q = sim.dut.get("m_work.qpn");
            let i = (0..2).find(|&i| want[i].front().is_some_and(|w| w.0 == q)).unwrap_or_else(|| {
                panic!(
                    "cycle {now}: QPN {q:#x} is neither source's next ({:x?}, {:x?})",
                    want[0].front(),
                    want[1].front()
                )
            });
            let (_, at) = want[i].pop_front().unwrap();
            order.push(i);
            lat.push(now - at);
        }
        for i in 0..2 {
            if offering[i] && sim.dut.get(&format!("{}.ready", names[i])) == 1 {
                want[i].push_back((todo[i].pop_front().unwrap(), now));
                offering[i] = false;
            }
        }
        sim.tick();
    }
    (order, lat, sim.cycle() - start)
}

#[test]
fn work_merge_keeps_every_qpn_in_order_under_stalls() {
    for (seed, p_src, p_take) in [(1, 50, 50), (2, 100, 30), (3, 20, 100), (4, 90, 90)] {
        let (order, lat, _) = run_work(seed, [400, 400], p_src, p_take);
        assert_eq!(order.len(), 800, "seed {seed}");
        assert!(lat.iter().all(|&l| l >= WORK_MERGE_LATENCY), "seed {seed}: faster than the registers");
    }
}

#[test]
fn work_merge_gives_one_per_cycle_and_alternates() {
    let (order, lat, cycles) = run_work(5, [300, 300], 100, 100);
    assert!(cycles <= 600 + 8, "{cycles} cycles for 600 QPNs");
    assert!(order.windows(2).all(|w| w[0] != w[1]), "the sources alternate when both wait");
    // one source alone, nothing stalled: each QPN out two cycles after it was taken
    let (_, lat1, _) = run_work(6, [50, 0], 30, 100);
    assert!(lat1.iter().all(|&l| l == WORK_MERGE_LATENCY), "{lat1:?}");
    assert!(lat.iter().all(|&l| l >= WORK_MERGE_LATENCY));
}
