//! Bench for the send scheduler (`SendSched`, catalog `send_sched`): work
//! offered on `s_work`, grants taken with random stalls by a model of the
//! transport that serves one quantum per grant and answers with `done`, and
//! a reference that checks every append to the ready list and every grant.
//!
//! The reference keeps each QP's state: idle, wanted (an append is due),
//! listed, or in service (with a pending bit). A work acts
//! [`SEND_SCHED_WORK_COMMIT`] cycles after it was taken: an idle QP becomes
//! wanted, a QP in service gets its pending bit, a listed QP is unchanged.
//! A done taken makes its QP wanted (`more` or pending) or idle. Every
//! append the DUT shows (`tail_*`) must be of a wanted QP (so no QP is in
//! the list twice and none is appended without cause); every grant must be
//! the reference list's head (round robin: the list is a FIFO); and no QP
//! may stay wanted longer than [`SchedBench::max_wait`] cycles (no QP lost).
//! The DUT's timing between a done taken and its action is free: a work
//! before or after it leads to one append either way.

use rnic_hw::transport::SEND_SCHED_WORK_COMMIT;
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq)]
enum St {
    Idle,
    Wanted(u64),
    Listed,
    Serving(bool),
}

struct Ports {
    w_qpn: usize,
    w_valid: usize,
    w_ready: usize,
    g_qpn: usize,
    g_valid: usize,
    g_ready: usize,
    d_qpn: usize,
    d_more: usize,
    d_valid: usize,
    d_ready: usize,
    tail_valid: usize,
    tail_qpn: usize,
    init: usize,
}

/// The scheduler under test with its transport model and reference.
pub struct SchedBench<M: Model> {
    pub sim: Clocked<M>,
    p: Ports,
    pub rng: Rng,
    /// Percent of cycles the transport takes an offered grant.
    pub grant_pct: u64,
    /// Cycles from a grant to its done offered: min, spread.
    pub done_lat: (u64, u64),
    /// Every QP has endless work (`more` always set): the fairness runs.
    pub endless: bool,
    /// Works waiting to be offered, in order.
    pub works: VecDeque<u32>,
    /// Quanta of work per QP (the transport's view of its send queue).
    pub work: HashMap<u32, u64>,
    /// Dones to offer: (due cycle, QPN, `more` once fixed).
    dones: VecDeque<(u64, u32, Option<bool>)>,
    commits: VecDeque<(u64, u32)>,
    st: HashMap<u32, St>,
    list: VecDeque<u32>,
    /// Grants taken: (cycle, QPN).
    pub grants: Vec<(u64, u32)>,
    /// Grants that found no work (a work raced the grant: harmless).
    pub empty_grants: u64,
    pub appends: u64,
    /// Works that acted on a QP in service (its pending bit).
    pub pend_hits: u64,
    /// A wanted QP must be appended within this many cycles.
    pub max_wait: u64,
    /// Cycle of each grant offered first (`m_grant.valid` rising).
    pub offers: Vec<(u64, u32)>,
    offered: bool,
}

impl<M: Model> SchedBench<M> {
    /// Reset and wait for the `inq` RAM to be cleared.
    pub fn new(dut: M, seed: u64) -> Self {
        let i = |n: &str| dut.port(n);
        let p = Ports {
            w_qpn: i("s_work.qpn"),
            w_valid: i("s_work.valid"),
            w_ready: i("s_work.ready"),
            g_qpn: i("m_grant.qpn"),
            g_valid: i("m_grant.valid"),
            g_ready: i("m_grant.ready"),
            d_qpn: i("s_done.qpn"),
            d_more: i("s_done.more"),
            d_valid: i("s_done.valid"),
            d_ready: i("s_done.ready"),
            tail_valid: i("tail_valid"),
            tail_qpn: i("tail_qpn"),
            init: i("init"),
        };
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        let mut n = 0;
        while sim.dut.bit_at(p.init) {
            sim.tick();
            n += 1;
            assert!(n < 1 << 20, "init never ends");
        }
        SchedBench {
            sim,
            p,
            rng: Rng(seed | 1),
            grant_pct: 100,
            done_lat: (1, 0),
            endless: false,
            works: VecDeque::new(),
            work: HashMap::new(),
            dones: VecDeque::new(),
            commits: VecDeque::new(),
            st: HashMap::new(),
            list: VecDeque::new(),
            grants: vec![],
            empty_grants: 0,
            appends: 0,
            pend_hits: 0,
            max_wait: 64,
            offers: vec![],
            offered: false,
        }
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    fn st(&self, q: u32) -> St {
        *self.st.get(&q).unwrap_or(&St::Idle)
    }

    /// Nothing left: no work offered or due, every QP idle.
    pub fn quiet(&self) -> bool {
        self.works.is_empty()
            && self.dones.is_empty()
            && self.commits.is_empty()
            && self.st.values().all(|s| *s == St::Idle)
            && self.work.values().all(|w| *w == 0)
    }

    /// One cycle: drive, sample the handshakes, check, clock.
    pub fn step(&mut self) {
        let now = self.now();
        let d = &mut self.sim.dut;
        // ---- drive
        let w_valid = !self.works.is_empty();
        d.set_at(self.p.w_valid, w_valid as u64);
        d.set_at(self.p.w_qpn, *self.works.front().unwrap_or(&0) as u64);
        let g_ready = self.rng.chance(self.grant_pct);
        d.set_at(self.p.g_ready, g_ready as u64);
        let mut d_valid = false;
        if let Some(f) = self.dones.front_mut() {
            if f.0 <= now {
                if f.2.is_none() {
                    f.2 = Some(self.endless || self.work.get(&f.1).copied().unwrap_or(0) > 0);
                }
                d_valid = true;
                d.set_at(self.p.d_qpn, f.1 as u64);
                d.set_at(self.p.d_more, f.2.unwrap() as u64);
            }
        }
        d.set_at(self.p.d_valid, d_valid as u64);
        self.sim.settle();
        let d = &self.sim.dut;
        let w_taken = w_valid && d.bit_at(self.p.w_ready);
        let d_taken = d_valid && d.bit_at(self.p.d_ready);
        let g_valid = d.bit_at(self.p.g_valid);
        let g_qpn = d.get_at(self.p.g_qpn) as u32;
        let tail = d.bit_at(self.p.tail_valid).then(|| d.get_at(self.p.tail_qpn) as u32);

        // ---- the reference, in the DUT's order within a cycle
        if let Some(q) = tail {
            match self.st(q) {
                St::Wanted(_) => {
                    self.st.insert(q, St::Listed);
                    self.list.push_back(q);
                    self.appends += 1;
                }
                s => panic!("cycle {now}: QP {q} appended while {s:?} (duplicate or without cause)"),
            }
        }
        while self.commits.front().is_some_and(|c| c.0 == now) {
            let (_, q) = self.commits.pop_front().unwrap();
            let s = match self.st(q) {
                St::Idle => St::Wanted(now),
                St::Serving(_) => {
                    self.pend_hits += 1;
                    St::Serving(true)
                }
                s => s,
            };
            self.st.insert(q, s);
        }
        if w_taken {
            let q = self.works.pop_front().unwrap();
            *self.work.entry(q).or_default() += 1;
            self.commits.push_back((now + SEND_SCHED_WORK_COMMIT, q));
        }
        if d_taken {
            let (_, q, more) = self.dones.pop_front().unwrap();
            let s = match self.st(q) {
                St::Serving(p) if p || more.unwrap() => St::Wanted(now),
                St::Serving(_) => St::Idle,
                s => panic!("cycle {now}: done for QP {q} while {s:?}"),
            };
            self.st.insert(q, s);
        }
        if g_valid && !self.offered {
            self.offers.push((now, g_qpn));
        }
        self.offered = g_valid && !g_ready;
        if g_valid && g_ready {
            let head = self.list.pop_front();
            assert_eq!(head, Some(g_qpn), "cycle {now}: grant out of list order");
            self.st.insert(g_qpn, St::Serving(false));
            self.grants.push((now, g_qpn));
            let w = self.work.entry(g_qpn).or_default();
            if *w > 0 {
                *w -= 1;
            } else if !self.endless {
                self.empty_grants += 1;
            }
            let (min, spread) = self.done_lat;
            let lat = min + if spread == 0 { 0 } else { self.rng.next() % (spread + 1) };
            // dones are answered in grant order
            let due = (now + lat).max(self.dones.back().map_or(0, |b| b.0));
            self.dones.push_back((due, g_qpn, None));
        }
        for (q, s) in &self.st {
            if let St::Wanted(since) = s {
                assert!(now - since <= self.max_wait, "cycle {now}: QP {q} wanted since {since}, never appended");
            }
        }
        self.sim.tick();
    }

    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// Run until nothing is left (every work served, every QP idle).
    pub fn drain(&mut self, limit: u64) {
        let end = self.now() + limit;
        while !self.quiet() {
            assert!(self.now() < end, "not drained: {} works queued, list {:?}", self.works.len(), self.list);
            self.step();
        }
    }
}
