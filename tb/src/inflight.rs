//! Bench for the table of outstanding send WQEs (`Inflight`, catalog
//! `inflight`): commands offered on `s_cmd`, responses taken from `m_resp`
//! with random stalls, each response checked field by field against a
//! reference at the moment it is taken.
//!
//! The reference ([`RefTable`]) is a `VecDeque` of entry indices per QP,
//! the payload of every entry (all zero after reset), and the free pool in
//! the order the block hands entries out: [`FREE_SPARES`] spares used as a
//! stack in front of a FIFO that starts as 0, 1, ..., 2^E - 1 (a freed
//! entry goes to a spare if one is empty, else to the FIFO's tail; a PUSH
//! takes the newest spare, else the FIFO's head). Commands act on the
//! reference when `s_cmd` takes them (the block acts in command order); the
//! expected response is queued then and compared when `m_resp` delivers
//! it. `free_count` is checked every cycle: it counts the commands taken
//! [`INFLIGHT_FREE_LAG`] cycles ago or earlier.

use rnic_hw::consts::{INFLIGHT_HEAD, INFLIGHT_POP, INFLIGHT_PUSH, INFLIGHT_READ, INFLIGHT_WRITE};
use rnic_hw::transport::{FREE_SPARES, INFLIGHT_FREE_LAG};
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, VecDeque};

/// A command to the table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    Push { qpn: u32, data: Vec<u32> },
    Head { qpn: u32 },
    Pop { qpn: u32 },
    Read { index: u32 },
    Write { index: u32, data: Vec<u32> },
}

/// A response, as `m_resp` carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resp {
    pub index: u32,
    pub data: Vec<u32>,
    pub next_index: u32,
    pub is_tail: bool,
    pub empty: bool,
    pub full: bool,
    pub count: u32,
}

/// What the table holds: lists per QP, payloads, the free pool in the
/// block's order.
#[derive(Clone)]
pub struct RefTable {
    pub lists: HashMap<u32, VecDeque<u32>>,
    pub mem: Vec<Vec<u32>>,
    spares: Vec<u32>,
    fifo: VecDeque<u32>,
    /// List each entry is in (`None`: free).
    owner: Vec<Option<u32>>,
}

impl RefTable {
    pub fn new(entries: usize, words: usize) -> Self {
        RefTable {
            lists: HashMap::new(),
            mem: vec![vec![0; words]; entries],
            spares: vec![],
            fifo: (0..entries as u32).collect(),
            owner: vec![None; entries],
        }
    }

    pub fn free(&self) -> usize {
        self.spares.len() + self.fifo.len()
    }

    pub fn len(&self, qpn: u32) -> usize {
        self.lists.get(&qpn).map_or(0, |l| l.len())
    }

    /// The link of entry `e`: its successor in its list (0 at the tail and
    /// for a free entry), and whether it is the tail (a free entry is).
    fn link(&self, e: u32) -> (u32, bool) {
        let Some(q) = self.owner[e as usize] else {
            return (0, true);
        };
        let l = &self.lists[&q];
        let at = l.iter().position(|&x| x == e).expect("owner and list agree");
        match l.get(at + 1) {
            Some(&n) => (n, false),
            None => (0, true),
        }
    }

    fn resp(&self, index: u32, next_index: u32, is_tail: bool, count: usize) -> Resp {
        Resp {
            index,
            data: self.mem[index as usize].clone(),
            next_index,
            is_tail,
            empty: false,
            full: false,
            count: count as u32,
        }
    }

    /// Apply a command; its response.
    pub fn apply(&mut self, c: &Cmd) -> Resp {
        match c {
            Cmd::Push { qpn, data } => {
                let n = self.len(*qpn);
                let e = if let Some(e) = self.spares.pop() {
                    e
                } else if let Some(e) = self.fifo.pop_front() {
                    e
                } else {
                    return Resp { full: true, ..self.resp(0, 0, true, n) };
                };
                assert!(self.owner[e as usize].is_none());
                let r = self.resp(e, 0, true, n + 1);
                self.mem[e as usize] = data.clone();
                self.owner[e as usize] = Some(*qpn);
                self.lists.entry(*qpn).or_default().push_back(e);
                r
            }
            Cmd::Head { qpn } => match self.lists.get(qpn).and_then(|l| l.front()) {
                Some(&h) => {
                    let (nx, tail) = self.link(h);
                    self.resp(h, nx, tail, self.len(*qpn))
                }
                None => Resp { empty: true, ..self.resp(0, 0, true, 0) },
            },
            Cmd::Pop { qpn } => match self.lists.get(qpn).and_then(|l| l.front()) {
                Some(&h) => {
                    let (nx, tail) = self.link(h);
                    let r = self.resp(h, nx, tail, self.len(*qpn) - 1);
                    self.lists.get_mut(qpn).unwrap().pop_front();
                    self.owner[h as usize] = None;
                    if self.spares.len() < FREE_SPARES {
                        self.spares.push(h);
                    } else {
                        self.fifo.push_back(h);
                    }
                    r
                }
                None => Resp { empty: true, ..self.resp(0, 0, true, 0) },
            },
            Cmd::Read { index } => {
                let (nx, tail) = self.link(*index);
                self.resp(*index, nx, tail, 0)
            }
            Cmd::Write { index, data } => {
                let (nx, tail) = self.link(*index);
                let r = self.resp(*index, nx, tail, 0);
                self.mem[*index as usize] = data.clone();
                r
            }
        }
    }
}

struct Ports {
    op: usize,
    qpn: usize,
    index: usize,
    data: usize,
    valid: usize,
    ready: usize,
    r_index: usize,
    r_data: usize,
    r_next: usize,
    r_tail: usize,
    r_empty: usize,
    r_full: usize,
    r_count: usize,
    r_valid: usize,
    r_ready: usize,
    free_count: usize,
    init: usize,
}

/// The table under test with its reference.
pub struct InflightBench<M: Model> {
    pub sim: Clocked<M>,
    p: Ports,
    pub rng: Rng,
    pub reference: RefTable,
    /// Payload words (32 bits each) and the mask of the top word.
    pub words: usize,
    top_mask: u32,
    /// Percent of cycles `m_resp.ready` is high.
    pub resp_pct: u64,
    /// Percent of cycles a queued command is offered.
    pub cmd_pct: u64,
    /// Commands waiting to be offered, in order.
    pub cmds: VecDeque<Cmd>,
    offering: bool,
    /// Expected responses: (cycle the command was taken, response).
    expect: VecDeque<(u64, Resp)>,
    /// Free entries after each command taken: (cycle, count).
    free_hist: VecDeque<(u64, usize)>,
    free_now: usize,
    resp_offered_at: Option<u64>,
    /// Commands taken, responses checked.
    pub taken: u64,
    pub answered: u64,
    /// Latency of each response (first offered - command taken).
    pub latencies: Vec<u64>,
    /// Cycles a command was offered and not taken.
    pub cmd_stalls: u64,
    /// Responses by kind: full, empty.
    pub fulls: u64,
    pub empties: u64,
}

impl<M: Model> InflightBench<M> {
    /// Reset and wait for the clearing; `entries` = 2^E.
    pub fn new(dut: M, seed: u64, entries: usize) -> Self {
        let i = |n: &str| dut.port(n);
        let p = Ports {
            op: i("s_cmd.op"),
            qpn: i("s_cmd.qpn"),
            index: i("s_cmd.index"),
            data: i("s_cmd.data"),
            valid: i("s_cmd.valid"),
            ready: i("s_cmd.ready"),
            r_index: i("m_resp.index"),
            r_data: i("m_resp.data"),
            r_next: i("m_resp.next_index"),
            r_tail: i("m_resp.is_tail"),
            r_empty: i("m_resp.empty"),
            r_full: i("m_resp.full"),
            r_count: i("m_resp.count"),
            r_valid: i("m_resp.valid"),
            r_ready: i("m_resp.ready"),
            free_count: i("free_count"),
            init: i("init"),
        };
        let width = dut.ports()[p.data].width;
        let words = width.div_ceil(32);
        let top_mask = if width.is_multiple_of(32) { u32::MAX } else { (1u32 << (width % 32)) - 1 };
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        let mut n = 0u64;
        while sim.dut.bit_at(p.init) || !sim.dut.bit_at(p.ready) {
            sim.tick();
            n += 1;
            assert!(n < 1 << 20, "init never ends");
        }
        assert_eq!(sim.dut.get_at(p.free_count) as usize, entries, "free_count after the clearing");
        InflightBench {
            sim,
            p,
            rng: Rng(seed | 1),
            reference: RefTable::new(entries, words),
            words,
            top_mask,
            resp_pct: 100,
            cmd_pct: 100,
            cmds: VecDeque::new(),
            offering: false,
            expect: VecDeque::new(),
            free_hist: VecDeque::new(),
            free_now: entries,
            resp_offered_at: None,
            taken: 0,
            answered: 0,
            latencies: vec![],
            cmd_stalls: 0,
            fulls: 0,
            empties: 0,
        }
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    /// A random payload of the block's width.
    pub fn random_data(&mut self) -> Vec<u32> {
        let mut d: Vec<u32> = (0..self.words).map(|_| self.rng.next() as u32).collect();
        *d.last_mut().unwrap() &= self.top_mask;
        d
    }

    /// Nothing queued, offered or outstanding.
    pub fn quiet(&self) -> bool {
        self.cmds.is_empty() && self.expect.is_empty()
    }

    /// One cycle: drive, sample the handshakes, check, clock.
    pub fn step(&mut self) {
        let now = self.now();
        // ---- drive: an offered command stays offered until taken
        if !self.offering && !self.cmds.is_empty() && self.rng.chance(self.cmd_pct) {
            self.offering = true;
        }
        let d = &mut self.sim.dut;
        d.set_at(self.p.valid, self.offering as u64);
        if let Some(c) = self.cmds.front() {
            let zero = vec![0u32; self.words];
            let (op, qpn, index, data) = match c {
                Cmd::Push { qpn, data } => (INFLIGHT_PUSH, *qpn, 0, data),
                Cmd::Head { qpn } => (INFLIGHT_HEAD, *qpn, 0, &zero),
                Cmd::Pop { qpn } => (INFLIGHT_POP, *qpn, 0, &zero),
                Cmd::Read { index } => (INFLIGHT_READ, 0, *index, &zero),
                Cmd::Write { index, data } => (INFLIGHT_WRITE, 0, *index, data),
            };
            d.set_at(self.p.op, op);
            d.set_at(self.p.qpn, qpn as u64);
            d.set_at(self.p.index, index as u64);
            d.set_words(self.p.data, data);
        }
        let r_ready = self.rng.chance(self.resp_pct);
        d.set_at(self.p.r_ready, r_ready as u64);
        self.sim.settle();
        let d = &self.sim.dut;

        // ---- free_count: every command taken FREE_LAG cycles ago or earlier
        while self.free_hist.front().is_some_and(|h| h.0 + INFLIGHT_FREE_LAG <= now) {
            self.free_now = self.free_hist.pop_front().unwrap().1;
        }
        assert_eq!(d.get_at(self.p.free_count) as usize, self.free_now, "cycle {now}: free_count");

        // ---- the response
        let r_valid = d.bit_at(self.p.r_valid);
        if r_valid && self.resp_offered_at.is_none() {
            self.resp_offered_at = Some(now);
        }
        if r_valid && r_ready {
            let mut data = vec![0u32; self.words];
            d.get_words(self.p.r_data, &mut data);
            let got = Resp {
                index: d.get_at(self.p.r_index) as u32,
                data,
                next_index: d.get_at(self.p.r_next) as u32,
                is_tail: d.bit_at(self.p.r_tail),
                empty: d.bit_at(self.p.r_empty),
                full: d.bit_at(self.p.r_full),
                count: d.get_at(self.p.r_count) as u32,
            };
            let (at, want) =
                self.expect.pop_front().unwrap_or_else(|| panic!("cycle {now}: response without a command"));
            assert_eq!(got, want, "cycle {now}: response to the command taken at cycle {at}");
            self.latencies.push(self.resp_offered_at.take().unwrap() - at);
            self.answered += 1;
            self.fulls += got.full as u64;
            self.empties += got.empty as u64;
        }

        // ---- the command
        if self.offering {
            if d.bit_at(self.p.ready) {
                let c = self.cmds.pop_front().unwrap();
                let r = self.reference.apply(&c);
                self.expect.push_back((now, r));
                self.free_hist.push_back((now, self.reference.free()));
                self.taken += 1;
                self.offering = false;
            } else {
                self.cmd_stalls += 1;
            }
        }
        self.sim.tick();
    }

    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// Run until every command is answered.
    pub fn drain(&mut self, limit: u64) {
        let end = self.now() + limit;
        while !self.quiet() {
            assert!(
                self.now() < end,
                "not drained: {} commands queued, {} unanswered",
                self.cmds.len(),
                self.expect.len()
            );
            self.step();
        }
        // and free_count settles
        self.run(INFLIGHT_FREE_LAG + 1);
    }
}
