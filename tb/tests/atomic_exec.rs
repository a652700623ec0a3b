//! The responder's atomics (`AtomicExec`, catalog `atomic_exec`) on a host
//! memory model: random COMPARE_SWAP (matching and not) and FETCH_ADD at
//! random 8-byte aligned addresses, while `RecvWalk`'s reads share the
//! read client (random 64-byte commands before, during and after an
//! atomic's) and `PayloadScatter`'s writes use the write client between
//! atomics; the DMA answers after random latencies, in command order, with
//! random stalls on every port and a failed read or write now and then.
//! Checked: every answer's original value and every final memory word
//! against the reference (the protocol model's arithmetic,
//! `rnic_proto::rc::responder::atomic_new_value`), a write exactly for a
//! FETCH_ADD or a compare that matched (not after a failed read), each walk
//! beat passed once and in order, the scatter's beats and completions
//! passed through; then the latency.

use rnic_hw::consts::RQ_AHEAD_SLOTS;
use rnic_hw::transport::{ATOMIC_ANS_LATENCY, ATOMIC_CMD_LATENCY, ATOMIC_WRITE_LATENCY};
use rnic_proto::rc::responder::atomic_new_value;
use rnic_sim::axis::Rng;
use rnic_sim::models::atomic_exec::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, VecDeque};

/// One atomic asked.
#[derive(Clone, Copy, Debug)]
struct Atomic {
    iova: u64,
    fadd: bool,
    cmp: u64,
    swap_add: u64,
}

/// Who a read command was for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reader {
    Walk(u64),
    Atomic,
}

/// The bench: the DMA clients' models, the walk's and the scatter's traffic.
struct Bench {
    sim: Clocked<Dut>,
    rng: Rng,
    mem: HashMap<u64, u64>,
    /// Addresses whose read fails, and whose write fails.
    bad_rd: u64,
    bad_wr: u64,
    /// Read commands taken: (due cycle, who, address), in order.
    reads: VecDeque<(u64, Reader, u64)>,
    /// Walk commands to offer, those taken and not yet on `m_rd`, and walk
    /// beats expected on `m_walk_rd`, in order.
    walk_cmds: VecDeque<u64>,
    walk_taken: VecDeque<u64>,
    walk_beats: VecDeque<u64>,
    /// Scatter writes to offer (address), and their completions to see on `pay_done`.
    scatter: VecDeque<u64>,
    pay_done_owed: u64,
    /// Write completions due: (cycle, the atomic's, error).
    dones: VecDeque<(u64, bool, bool)>,
    /// The atomic in progress, its read's and write's cycles.
    cur: Option<Atomic>,
    /// Its word before it.
    orig: u64,
    wrote: bool,
    answers: u64,
    lat: (u64, u64),
    pct: u64,
    /// Cycles: request taken, read command taken, read beat taken, write beat taken, done, answer.
    marks: Vec<u64>,
    stats: [u64; 5],
}

const WALK_LEN: u64 = 64;

impl Bench {
    fn new(seed: u64, lat: (u64, u64), pct: u64) -> Bench {
        let mut sim = Clocked::new(Dut::new());
        sim.reset(2);
        Bench {
            sim,
            rng: Rng(seed * 0x9e37_79b9 + 7),
            mem: HashMap::new(),
            bad_rd: 0x7000_0000_0040,
            bad_wr: 0x7000_0000_0080,
            reads: VecDeque::new(),
            walk_cmds: VecDeque::new(),
            walk_taken: VecDeque::new(),
            walk_beats: VecDeque::new(),
            scatter: VecDeque::new(),
            pay_done_owed: 0,
            dones: VecDeque::new(),
            cur: None,
            orig: 0,
            wrote: false,
            answers: 0,
            lat,
            pct,
            marks: vec![],
            stats: [0; 5],
        }
    }

    fn word(&self, a: u64) -> u64 {
        self.mem.get(&a).copied().unwrap_or(a.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    /// The beat of a read: address-aligned, the 8-byte words of the 64
    /// bytes around `a` (a walk's: a pattern of its address).
    fn beat(&self, who: Reader, a: u64) -> [u32; 16] {
        let base = a & !63;
        let mut w = [0u32; 16];
        for k in 0..8 {
            let v = match who {
                Reader::Atomic => self.word(base + 8 * k),
                Reader::Walk(n) => n.wrapping_mul(0x1000_0001).wrapping_add(k),
            };
            w[2 * k as usize] = v as u32;
            w[2 * k as usize + 1] = (v >> 32) as u32;
        }
        w
    }

    fn delay(&mut self) -> u64 {
        self.lat.0 + self.rng.next() % (self.lat.1 - self.lat.0 + 1)
    }

    fn step(&mut self) {
        let now = self.sim.cycle();
        let pct = self.pct;
        // ---- the walk's next command, the scatter's next write (only between atomics)
        let walk_v = !self.walk_cmds.is_empty();
        let walk_addr = self.walk_cmds.front().copied().unwrap_or(0);
        // a scatter write reaches the client (beside the block) only between atomics
        if self.cur.is_none() && self.dones.is_empty() && self.scatter.pop_front().is_some() {
            let due = now + self.delay();
            self.dones.push_back((due, false, false));
        }
        // ---- the read data: the oldest command's beat once due
        let head = self.reads.front().copied().filter(|r| r.0 <= now && self.rng.chance(pct));
        let rd_ready = self.rng.chance(pct);
        let wr_ready = self.rng.chance(pct);
        let done = self.dones.front().copied().filter(|d| d.0 <= now);
        let d = &mut self.sim.dut;
        d.set("s_walk_rd.addr", walk_addr);
        d.set("s_walk_rd.len", WALK_LEN);
        d.set("s_walk_rd.valid", walk_v as u64);
        d.set("m_rd.ready", rd_ready as u64);
        match head {
            Some((_, who, a)) => {
                let beat = self.beat(who, a);
                let d = &mut self.sim.dut;
                let i = d.port("s_rd.tdata");
                d.set_words(i, &beat);
                d.set("s_rd.tkeep", u64::MAX);
                d.set("s_rd.tlast", 1);
                d.set("s_rd.tuser", (who == Reader::Atomic && a == self.bad_rd) as u64);
                d.set("s_rd.tvalid", 1);
            }
            None => d.set("s_rd.tvalid", 0),
        }
        let d = &mut self.sim.dut;
        // (`RecvWalk` takes every beat: the block does not read this)
        d.set("m_walk_rd.tready", self.rng.chance(50) as u64);
        d.set("m_wr.tready", wr_ready as u64);
        d.set("wr_done", done.is_some() as u64);
        d.set("wr_done_err", done.is_some_and(|x| x.2) as u64);
        self.sim.settle();
        let g = |s: &Self, n: &str| s.sim.dut.get(n);

        // ---- the read client
        if g(self, "m_rd.valid") == 1 && rd_ready {
            let (a, len) = (g(self, "m_rd.addr"), g(self, "m_rd.len"));
            let due = now + self.delay();
            let due = due.max(self.reads.back().map_or(0, |r| r.0));
            if len == 8 {
                let c = self.cur.expect("an 8-byte read with no atomic");
                assert_eq!(a, c.iova, "cycle {now}: the atomic's read address");
                assert!(!self.reads.iter().any(|r| r.1 == Reader::Atomic), "cycle {now}: a second atomic read");
                self.reads.push_back((due, Reader::Atomic, a));
                self.marks.push(now);
            } else {
                let want = self.walk_taken.pop_front();
                assert_eq!((Some(a), len), (want, WALK_LEN), "cycle {now}: the walk's command, in order");
                self.reads.push_back((due, Reader::Walk(a), a));
                self.walk_beats.push_back(a);
            }
        }
        if walk_v && g(self, "s_walk_rd.ready") == 1 {
            self.walk_cmds.pop_front();
            self.walk_taken.push_back(walk_addr);
        }
        // ---- the read data: the atomic's beat taken here, the walk's passed
        if let Some((_, who, a)) = head {
            match who {
                Reader::Atomic => {
                    assert_eq!(g(self, "m_walk_rd.tvalid"), 0, "cycle {now}: the atomic's beat passed to the walk");
                    assert_eq!(g(self, "s_rd.tready"), 1, "cycle {now}: the atomic's beat not taken");
                    self.reads.pop_front();
                    self.marks.push(now);
                    self.stats[4] += (a == self.bad_rd) as u64;
                }
                Reader::Walk(n) => {
                    assert_eq!(g(self, "m_walk_rd.tvalid"), 1, "cycle {now}: a walk beat held back");
                    assert_eq!(g(self, "s_rd.tready"), 1, "cycle {now}: a walk beat not taken");
                    let mut got = [0u32; 16];
                    let i = self.sim.dut.port("m_walk_rd.tdata");
                    self.sim.dut.get_words(i, &mut got);
                    assert_eq!(got, self.beat(who, a), "cycle {now}: walk beat data");
                    assert_eq!(self.walk_beats.pop_front(), Some(n), "cycle {now}: walk beats in order");
                    self.reads.pop_front();
                }
            }
        } else {
            assert_eq!(g(self, "m_walk_rd.tvalid"), 0, "cycle {now}: a walk beat from nowhere");
        }
        // ---- the write client
        if g(self, "m_wr.tvalid") == 1 && wr_ready {
            let (a, len) = (g(self, "m_wr.addr"), g(self, "m_wr.len"));
            let due = now + self.delay();
            let due = due.max(self.dones.back().map_or(0, |x| x.0));
            {
                assert_eq!(len, 8, "cycle {now}: the atomic's write length");
                let c = self.cur.expect("a write with no atomic");
                assert_eq!(a, c.iova, "cycle {now}: the atomic's write address");
                assert_eq!(g(self, "m_wr.tkeep"), 0xff << (a % 64), "cycle {now}: the atomic's tkeep");
                assert_eq!(g(self, "m_wr.tlast"), 1);
                let mut w = [0u32; 16];
                let i = self.sim.dut.port("m_wr.tdata");
                self.sim.dut.get_words(i, &mut w);
                let k = ((a % 64) / 8) as usize;
                let v = w[2 * k] as u64 | (w[2 * k + 1] as u64) << 32;
                assert!(c.fadd || self.orig == c.cmp, "cycle {now}: a write for a compare that failed");
                assert!(!self.wrote, "cycle {now}: a second write");
                assert_eq!(v, atomic_new_value(c.fadd, self.orig, c.cmp, c.swap_add), "cycle {now}: the new value");
                let fail = a == self.bad_wr;
                if !fail {
                    self.mem.insert(a, v);
                }
                self.wrote = true;
                self.dones.push_back((due, true, fail));
                self.marks.push(now);
            }
        }
        if let Some((_, atomic, _)) = done {
            self.dones.pop_front();
            if atomic {
                self.marks.push(now);
                assert_eq!(g(self, "pay_done"), 0, "cycle {now}: the atomic's done passed to the scatter");
            } else {
                assert_eq!(g(self, "pay_done"), 1, "cycle {now}: the scatter's done not passed");
                self.pay_done_owed -= 1;
            }
        } else {
            assert_eq!(g(self, "pay_done"), 0, "cycle {now}: a done from nowhere");
        }
        // ---- the answer
        if g(self, "m_ans.valid") == 1 {
            let c = self.cur.take().unwrap_or_else(|| panic!("cycle {now}: an answer with no atomic"));
            let a = c.iova;
            let read_failed = a == self.bad_rd;
            let write_failed = a == self.bad_wr && self.wrote;
            assert_eq!(g(self, "m_ans.err") == 1, read_failed || write_failed, "cycle {now}: err of {c:x?}");
            if !read_failed {
                assert_eq!(g(self, "m_ans.orig"), self.orig, "cycle {now}: the original value of {c:x?}");
                assert_eq!(self.wrote, c.fadd || self.orig == c.cmp, "cycle {now}: written or not: {c:x?}");
            }
            assert!(!(read_failed && self.wrote), "cycle {now}: a write after a failed read");
            if !write_failed {
                let want = if read_failed { self.orig } else { atomic_new_value(c.fadd, self.orig, c.cmp, c.swap_add) };
                assert_eq!(self.word(a), want, "cycle {now}: memory after {c:x?}");
            }
            self.stats[0] += c.fadd as u64;
            self.stats[1] += (!c.fadd && self.wrote) as u64;
            self.stats[2] += (!c.fadd && !self.wrote && !read_failed) as u64;
            self.stats[3] += write_failed as u64;
            self.answers += 1;
            self.marks.push(now);
        }
        // ---- a new atomic, once the scatter's writes are done (`RespExec`'s rule)
        let quiet = self.dones.is_empty();
        if self.cur.is_none() && quiet && g(self, "s_req.ready") == 1 && self.rng.chance(20) {
            let iova = match self.rng.next() % 16 {
                0 => self.bad_rd,
                1 => self.bad_wr,
                _ => 0x1000 + 8 * (self.rng.next() % 64),
            };
            let fadd = self.rng.chance(50);
            let before = self.word(iova);
            let cmp = if self.rng.chance(50) { before } else { self.rng.next() };
            let c = Atomic { iova, fadd, cmp, swap_add: self.rng.next() };
            self.orig = before;
            self.cur = Some(c);
            self.wrote = false;
            self.marks = vec![now];
            let d = &mut self.sim.dut;
            d.set("s_req.iova", c.iova);
            d.set("s_req.fadd", c.fadd as u64);
            d.set("s_req.cmp", c.cmp);
            d.set("s_req.swap_add", c.swap_add);
            d.set("s_req.valid", 1);
            self.sim.tick();
            self.sim.dut.set("s_req.valid", 0);
            return;
        }
        self.sim.tick();
    }

    /// Steps until the atomic in progress, the walk's reads and the
    /// scatter's writes are all over.
    fn drain(&mut self) {
        let end = self.sim.cycle() + 100_000;
        while self.cur.is_some()
            || !self.walk_cmds.is_empty()
            || !self.walk_taken.is_empty()
            || !self.walk_beats.is_empty()
            || !self.scatter.is_empty()
            || !self.dones.is_empty()
        {
            assert!(self.sim.cycle() < end, "not drained: {:?}", self.cur);
            self.step();
        }
    }
}

#[test]
fn random_atomics_beside_the_walk_and_the_scatter() {
    let mut totals = [0u64; 5];
    // (seed, DMA latency range, percent of cycles each port moves, cycles, atomics at least)
    let runs =
        [(1u64, (1u64, 1u64), 100u64, 3000u64, 100u64), (2, (3, 60), 70, 10_000, 40), (3, (20, 300), 40, 30_000, 15)];
    for (seed, lat, pct, rounds, min) in runs {
        let mut b = Bench::new(seed, lat, pct);
        for round in 0..rounds {
            // at most what `RqAhead` keeps in flight (its slots and the walk's own)
            let walk_out = b.walk_cmds.len() + b.walk_taken.len() + b.walk_beats.len();
            if b.rng.chance(30) && walk_out < RQ_AHEAD_SLOTS as usize + 1 {
                let n = b.rng.next() % 2000;
                b.walk_cmds.push_back(0x8000_0000 + 64 * n);
            }
            if b.rng.chance(10) && b.scatter.len() < 4 {
                b.scatter.push_back(0x9000_0000 + 64 * round);
                b.pay_done_owed += 1;
            }
            b.step();
        }
        b.drain();
        assert_eq!(b.pay_done_owed, 0, "seed {seed}: every scatter write's completion passed");
        eprintln!(
            "seed {seed}: {} atomics; {:?} (FADD, CAS swapped, CAS unchanged, write failed, read failed)",
            b.answers, b.stats
        );
        assert!(b.answers >= min, "seed {seed}: {} atomics", b.answers);
        for (t, s) in totals.iter_mut().zip(b.stats) {
            *t += s;
        }
    }
    assert!(totals.iter().all(|&t| t >= 3), "every kind of atomic seen: {totals:?}");
}

/// Nothing stalled, no other traffic: the command `ATOMIC_CMD_LATENCY`
/// after the request, the write `ATOMIC_WRITE_LATENCY` after the read's
/// beat, the answer `ATOMIC_ANS_LATENCY` after the write's completion.
#[test]
fn latency_is_exact() {
    let mut b = Bench::new(9, (10, 10), 100);
    let mut seen = 0;
    while seen < 20 {
        b.step();
        // marks: request, read command, read beat, write beat, done, answer
        if b.cur.is_none() && b.marks.len() == 6 {
            let m = b.marks.clone();
            assert_eq!(m[1] - m[0], ATOMIC_CMD_LATENCY, "{m:?}");
            assert_eq!(m[3] - m[2], ATOMIC_WRITE_LATENCY, "{m:?}");
            assert_eq!(m[5] - m[4], ATOMIC_ANS_LATENCY, "{m:?}");
            seen += 1;
            b.marks.clear();
        }
    }
}
