//! Bench for the context-cache port multiplexer (`CtxPortMux`, catalog
//! `ctx_port_mux`: three users of a 64-byte-entry cache): users offer random
//! requests (op, index, mask, entry, their own 6-bit ids) with random
//! stalls; a cache model takes them with random stalls and answers in any
//! order after random delays (the answer a function of the request, some
//! with `err`); every request at the cache and every answer at its user is
//! checked, with the cycles.

use crate::Stepped;
use rnic_hw::host::CTX_MUX_ID_BITS;
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// Users of the catalog instance, and its entry's 32-bit words.
pub const USERS: usize = 3;
pub const ENTRY_WORDS: usize = 16;

/// A request as a user offers it.
#[derive(Clone, Debug, PartialEq)]
pub struct CtxReq {
    pub op: u64,
    pub index: u64,
    pub mask: u64,
    pub data: [u32; ENTRY_WORDS],
    /// The user's own id (below `CTX_MUX_ID_BITS`).
    pub id: u64,
}

/// The cache model's answer to a request: its entry words are a function of
/// the request, so an answer to the wrong request or user is seen.
pub fn answer_words(r: &CtxReq, user: usize) -> [u32; ENTRY_WORDS] {
    std::array::from_fn(|w| {
        let x = r.index << 20 ^ r.id << 8 ^ (user as u64) << 4 ^ r.op ^ (w as u64) << 40 ^ r.data[w] as u64;
        (x ^ (x >> 23)).wrapping_mul(0x2545_f491) as u32
    })
}

struct Ports {
    u_op: [usize; USERS],
    u_index: [usize; USERS],
    u_mask: [usize; USERS],
    u_data: [usize; USERS],
    u_id: [usize; USERS],
    u_valid: [usize; USERS],
    u_ready: [usize; USERS],
    a_data: [usize; USERS],
    a_id: [usize; USERS],
    a_err: [usize; USERS],
    a_valid: [usize; USERS],
    a_ready: [usize; USERS],
    c_op: usize,
    c_index: usize,
    c_mask: usize,
    c_data: usize,
    c_id: usize,
    c_valid: usize,
    c_ready: usize,
    r_data: usize,
    r_id: usize,
    r_err: usize,
    r_valid: usize,
    r_ready: usize,
    lost: usize,
}

/// A request the cache model holds: (cycle due, the request, its user, err).
type Held = (u64, CtxReq, usize, bool);

pub struct CtxMuxBench<M: Model> {
    pub sim: Clocked<M>,
    p: Ports,
    pub rng: Rng,
    /// Percent of cycles a user offers its next request / takes an answer
    /// (the rule is 100); the cache takes a request.
    pub p_req: u64,
    pub p_take: [u64; USERS],
    pub p_cache: u64,
    /// The cache answers a request 1..=`max_delay` cycles after taking it,
    /// in any order; `p_err` percent with `err`.
    pub max_delay: u64,
    pub p_err: u64,
    queued: Vec<VecDeque<CtxReq>>,
    offered: [bool; USERS],
    /// Per user: requests taken by the mux, not yet at the cache (in order).
    in_mux: Vec<VecDeque<CtxReq>>,
    held: Vec<Held>,
    /// Per user: answers due (request, err), any order.
    due: Vec<Vec<(CtxReq, bool)>>,
    /// Users of the requests the cache took, with the cycle; the cycle
    /// each request was taken from its user.
    pub cache_order: Vec<(usize, u64)>,
    pub taken_at: Vec<(usize, u64)>,
    /// Answers: cycle the cache gave it, cycle its user saw it.
    pub answer_out: Vec<u64>,
    pub answer_in: Vec<u64>,
    /// Answers offered to a user that did not take them (the bench's count).
    pub refused: u64,
    pub answers: [u64; USERS],
    pub errs: u64,
}

impl<M: Model> CtxMuxBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let q = |f: &str, i: usize, g: &str| dut.port(&format!("{f}.{i}.{g}"));
        let p = Ports {
            u_op: std::array::from_fn(|i| q("s_req", i, "op")),
            u_index: std::array::from_fn(|i| q("s_req", i, "index")),
            u_mask: std::array::from_fn(|i| q("s_req", i, "mask")),
            u_data: std::array::from_fn(|i| q("s_req", i, "data")),
            u_id: std::array::from_fn(|i| q("s_req", i, "id")),
            u_valid: std::array::from_fn(|i| q("s_req", i, "valid")),
            u_ready: std::array::from_fn(|i| q("s_req", i, "ready")),
            a_data: std::array::from_fn(|i| q("m_resp", i, "data")),
            a_id: std::array::from_fn(|i| q("m_resp", i, "id")),
            a_err: std::array::from_fn(|i| q("m_resp", i, "err")),
            a_valid: std::array::from_fn(|i| q("m_resp", i, "valid")),
            a_ready: std::array::from_fn(|i| q("m_resp", i, "ready")),
            c_op: dut.port("m_req.op"),
            c_index: dut.port("m_req.index"),
            c_mask: dut.port("m_req.mask"),
            c_data: dut.port("m_req.data"),
            c_id: dut.port("m_req.id"),
            c_valid: dut.port("m_req.valid"),
            c_ready: dut.port("m_req.ready"),
            r_data: dut.port("s_resp.data"),
            r_id: dut.port("s_resp.id"),
            r_err: dut.port("s_resp.err"),
            r_valid: dut.port("s_resp.valid"),
            r_ready: dut.port("s_resp.ready"),
            lost: dut.port("resp_lost"),
        };
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        CtxMuxBench {
            sim,
            p,
            rng: Rng(seed | 1),
            p_req: 100,
            p_take: [100; USERS],
            p_cache: 100,
            max_delay: 1,
            p_err: 0,
            queued: (0..USERS).map(|_| VecDeque::new()).collect(),
            offered: [false; USERS],
            in_mux: (0..USERS).map(|_| VecDeque::new()).collect(),
            held: vec![],
            due: (0..USERS).map(|_| vec![]).collect(),
            cache_order: vec![],
            taken_at: vec![],
            answer_out: vec![],
            answer_in: vec![],
            refused: 0,
            answers: [0; USERS],
            errs: 0,
        }
    }

    /// A random request of a user: any op, any index, ids from the user's
    /// own id space (top bits random: the mux must replace them).
    pub fn random_req(&mut self) -> CtxReq {
        let r = &mut self.rng;
        CtxReq {
            op: r.next() % 4,
            index: r.next() & 0xff_ffff,
            mask: r.next(),
            data: std::array::from_fn(|_| r.next() as u32),
            id: r.next() & 0xff,
        }
    }

    pub fn push(&mut self, user: usize, req: CtxReq) {
        self.queued[user].push_back(req);
    }

    pub fn idle(&self) -> bool {
        self.queued.iter().all(|q| q.is_empty())
            && self.in_mux.iter().all(|q| q.is_empty())
            && self.held.is_empty()
            && self.due.iter().all(|q| q.is_empty())
    }

    /// Answers the mux counted as lost.
    pub fn lost(&self) -> u64 {
        self.sim.dut.get_at(self.p.lost)
    }

    #[allow(clippy::needless_range_loop)] // the user index names ports, queues and checks alike
    pub fn step(&mut self) {
        let now = self.sim.cycle();
        let p = &self.p;
        let d = &mut self.sim.dut;
        let mut takes = [false; USERS];
        for u in 0..USERS {
            if !self.offered[u] && !self.queued[u].is_empty() && self.rng.chance(self.p_req) {
                self.offered[u] = true;
            }
            let r = self.queued[u].front().cloned();
            let r = r.unwrap_or(CtxReq { op: 0, index: 0, mask: 0, data: [0; ENTRY_WORDS], id: 0 });
            d.set_at(p.u_op[u], r.op);
            d.set_at(p.u_index[u], r.index);
            d.set_at(p.u_mask[u], r.mask);
            d.set_words(p.u_data[u], &r.data);
            d.set_at(p.u_id[u], r.id);
            d.set_at(p.u_valid[u], self.offered[u] as u64);
            takes[u] = self.rng.chance(self.p_take[u]);
            d.set_at(p.a_ready[u], takes[u] as u64);
        }
        let cache_takes = self.rng.chance(self.p_cache);
        d.set_at(p.c_ready, cache_takes as u64);
        // the cache answers one due request, chosen at random among the due ones
        let due: Vec<usize> = (0..self.held.len()).filter(|&k| self.held[k].0 <= now).collect();
        let answer = if due.is_empty() { None } else { Some(due[(self.rng.next() % due.len() as u64) as usize]) };
        match answer {
            Some(k) => {
                let (_, r, u, err) = &self.held[k];
                d.set_words(p.r_data, &answer_words(r, *u));
                d.set_at(p.r_id, (*u as u64) << CTX_MUX_ID_BITS | (r.id & ((1 << CTX_MUX_ID_BITS) - 1)));
                d.set_at(p.r_err, *err as u64);
                d.set_at(p.r_valid, 1);
            }
            None => d.set_at(p.r_valid, 0),
        }
        self.sim.settle();
        let d = &self.sim.dut;
        assert!(d.bit_at(p.r_ready), "cycle {now}: the mux's s_resp.ready is always 1");
        if let Some(k) = answer {
            let (_, r, u, err) = self.held.swap_remove(k);
            self.due[u].push((r, err));
            self.answer_out.push(now);
        }
        // answers at the users
        for u in 0..USERS {
            if !d.bit_at(p.a_valid[u]) {
                continue;
            }
            let id = d.get_at(p.a_id[u]);
            assert_eq!(id >> CTX_MUX_ID_BITS, 0, "cycle {now}: user {u}: the answer's id has the user bits");
            let mut w = [0u32; ENTRY_WORDS];
            d.get_words(p.a_data[u], &mut w);
            let k = self.due[u]
                .iter()
                .position(|(r, _)| r.id & 0x3f == id && answer_words(r, u) == w)
                .unwrap_or_else(|| panic!("cycle {now}: user {u} got an answer (id {id:#x}) it is not owed"));
            let (_, err) = self.due[u].swap_remove(k);
            assert_eq!(d.bit_at(p.a_err[u]), err, "cycle {now}: user {u}: err");
            if !takes[u] {
                // the user broke the rule: the answer is lost
                self.refused += 1;
                continue;
            }
            self.answers[u] += 1;
            self.errs += err as u64;
            self.answer_in.push(now);
        }
        // requests taken from the users
        for u in 0..USERS {
            if self.offered[u] && d.bit_at(p.u_ready[u]) {
                let r = self.queued[u].pop_front().unwrap();
                self.in_mux[u].push_back(r);
                self.offered[u] = false;
                self.taken_at.push((u, now));
            }
        }
        // a request at the cache: the named user's oldest, with every field
        if cache_takes && d.bit_at(p.c_valid) {
            let id = d.get_at(p.c_id);
            let u = (id >> CTX_MUX_ID_BITS) as usize;
            assert!(u < USERS, "cycle {now}: a request of user {u}");
            let r = self.in_mux[u].pop_front().unwrap_or_else(|| panic!("cycle {now}: user {u} asked for nothing"));
            let mut w = [0u32; ENTRY_WORDS];
            d.get_words(p.c_data, &mut w);
            assert_eq!(id & 0x3f, r.id & 0x3f, "cycle {now}: user {u}: id");
            assert_eq!(
                (d.get_at(p.c_op), d.get_at(p.c_index), d.get_at(p.c_mask), w),
                (r.op, r.index, r.mask, r.data),
                "cycle {now}: user {u}: the request's fields"
            );
            let delay = 1 + self.rng.next() % self.max_delay;
            let err = self.rng.chance(self.p_err);
            self.held.push((now + delay, r, u, err));
            self.cache_order.push((u, now));
        }
        self.sim.tick();
    }

    /// Steps until every answer was delivered, then 4 cycles in which
    /// nothing more may come out; panics after `limit` cycles.
    pub fn run(&mut self, limit: u64) -> u64 {
        self.run_to_idle(limit, 4)
    }
}

impl<M: Model> Stepped for CtxMuxBench<M> {
    fn step(&mut self) {
        CtxMuxBench::step(self)
    }
    fn idle(&self) -> bool {
        CtxMuxBench::idle(self)
    }
    fn cycle(&self) -> u64 {
        self.sim.cycle()
    }
}
