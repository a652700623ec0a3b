//! Bench for the retry timers (`RetryTimer`, catalog `retry_timer`): commands
//! offered one per cycle in program order (arms on `s_arm`, disarms on
//! `s_disarm`), expiries taken with random stalls, and a reference of every
//! QP's live arming.
//!
//! The reference: a command taken in cycle `c` (tick `r = (c - t0) / T`,
//! `t0` the first cycle after clearing, `T` cycles per tick) arms the QP with
//! the deadline tick `D = r + ticks + 1` ([`timer_ticks`]), replacing any
//! earlier arming, or disarms it (a disarm, or an ACK timeout of code 0).
//! Each expiry the DUT decides (`decided_*`, a cycle later) must be of the
//! QP's live arming at the end of the deciding cycle (so never after a
//! command taken by then, and at most once: the arming is then gone), not
//! before tick `D` starts (`t0 + D * T`, so more than `ticks * T` cycles
//! after the command) and at most [`TimerBench::slack`] cycles after it,
//! plus the cycles `m_expire` was refused meanwhile (plus one turn of the
//! wheel for [`TimerBench::loose`] runs, where three armings of
//! decreasing length may meet). `m_expire` must deliver the decided
//! expiries in order, with their kinds. No live arming may pass its bound
//! undecided (none is lost).

use rnic_contract::codes::{timer_ticks, TimerKind};
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::{BTreeSet, HashMap, VecDeque};

/// A command: arm with (kind, code), or disarm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cmd {
    Arm(u32, TimerKind, u8),
    Disarm(u32),
}

#[derive(Clone, Copy, Debug)]
struct Live {
    id: u64,
    kind: TimerKind,
    taken: u64,
    ticks: u64,
    /// First cycle of the deadline tick.
    due: u64,
}

struct Ports {
    a_qpn: usize,
    a_kind: usize,
    a_code: usize,
    a_valid: usize,
    a_ready: usize,
    d_qpn: usize,
    d_valid: usize,
    d_ready: usize,
    e_qpn: usize,
    e_kind: usize,
    e_valid: usize,
    e_ready: usize,
    dec_valid: usize,
    dec_qpn: usize,
    init: usize,
    tick_m1: usize,
}

/// The timer under test with its reference.
pub struct TimerBench<M: Model> {
    pub sim: Clocked<M>,
    p: Ports,
    pub rng: Rng,
    /// Cycles per tick.
    pub tick: u64,
    /// Slots of the wheel (one turn, in ticks).
    pub turn: u64,
    /// First cycle of tick 0.
    pub t0: u64,
    /// Percent of cycles `m_expire` is ready.
    pub expire_pct: u64,
    /// Commands to offer, in order.
    pub cmds: VecDeque<Cmd>,
    /// Offer the next disarm in the same cycle as the arm after it (both
    /// ports at once: the disarm acts first).
    pub pair: bool,
    /// Cycles an expiry may be decided after its deadline tick starts,
    /// beyond the cycles `m_expire` was refused.
    pub slack: u64,
    /// Allow one more turn of lateness (runs with three or more lengths of
    /// arming per QP).
    pub loose: bool,
    live: HashMap<u32, Live>,
    by_due: BTreeSet<(u64, u32, u64)>,
    expected: VecDeque<(u32, TimerKind)>,
    /// Refused `m_expire` cycles up to each cycle since `t0`.
    refused: Vec<u32>,
    next_id: u64,
    /// Commands taken.
    pub taken: u64,
    /// Expiries decided: (cycle, QPN, cycles after the deadline tick started).
    pub decided: Vec<(u64, u32, u64)>,
    /// Expiries delivered on `m_expire`.
    pub delivered: u64,
    /// Cycle of each delivery.
    pub delivered_at: Vec<u64>,
    /// Largest lateness seen, and refusals inside it.
    pub max_late: (u64, u64),
}

/// Ticks of an arming, `None` for a disarm.
pub fn ticks_of(kind: TimerKind, code: u8) -> Option<u64> {
    timer_ticks(kind, code)
}

impl<M: Model> TimerBench<M> {
    /// Reset with `tick` cycles per tick and a wheel of `turn` slots, and
    /// wait for the clearing.
    pub fn new(dut: M, seed: u64, tick: u64, turn: u64) -> Self {
        let i = |n: &str| dut.port(n);
        let p = Ports {
            a_qpn: i("s_arm.qpn"),
            a_kind: i("s_arm.kind"),
            a_code: i("s_arm.code"),
            a_valid: i("s_arm.valid"),
            a_ready: i("s_arm.ready"),
            d_qpn: i("s_disarm.qpn"),
            d_valid: i("s_disarm.valid"),
            d_ready: i("s_disarm.ready"),
            e_qpn: i("m_expire.qpn"),
            e_kind: i("m_expire.kind"),
            e_valid: i("m_expire.valid"),
            e_ready: i("m_expire.ready"),
            dec_valid: i("decided_valid"),
            dec_qpn: i("decided_qpn"),
            init: i("init"),
            tick_m1: i("tick_m1"),
        };
        assert!((1..=1 << 16).contains(&tick));
        let mut sim = Clocked::new(dut);
        sim.dut.set_at(p.tick_m1, tick - 1);
        sim.reset(2);
        let mut n = 0;
        while {
            sim.settle();
            sim.dut.bit_at(p.init)
        } {
            sim.tick();
            n += 1;
            assert!(n < 1 << 20, "init never ends");
        }
        let t0 = sim.cycle();
        TimerBench {
            sim,
            p,
            rng: Rng(seed | 1),
            tick,
            turn,
            t0,
            expire_pct: 100,
            cmds: VecDeque::new(),
            pair: false,
            slack: 64,
            loose: false,
            live: HashMap::new(),
            by_due: BTreeSet::new(),
            expected: VecDeque::new(),
            refused: vec![0],
            next_id: 0,
            taken: 0,
            decided: vec![],
            delivered: 0,
            delivered_at: vec![],
            max_late: (0, 0),
        }
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    /// Live armings.
    pub fn armed(&self) -> usize {
        self.live.len()
    }

    fn refused_at(&self, c: u64) -> u64 {
        let i = (c.saturating_sub(self.t0) as usize).min(self.refused.len() - 1);
        self.refused[i] as u64
    }

    fn bound(&self, due: u64, now: u64) -> u64 {
        let turn = if self.loose { self.turn * self.tick } else { 0 };
        due + self.slack + turn + (self.refused_at(now) - self.refused_at(due))
    }

    fn apply(&mut self, c: Cmd, now: u64) {
        self.taken += 1;
        let (q, arm) = match c {
            Cmd::Arm(q, kind, code) => (q, ticks_of(kind, code).map(|t| (kind, t))),
            Cmd::Disarm(q) => (q, None),
        };
        self.live.remove(&q);
        if let Some((kind, ticks)) = arm {
            let r = (now - self.t0) / self.tick;
            let due = self.t0 + (r + ticks + 1) * self.tick;
            let id = self.next_id;
            self.next_id += 1;
            self.live.insert(q, Live { id, kind, taken: now, ticks, due });
            self.by_due.insert((due, q, id));
        }
    }

    /// One cycle: drive, sample, check, clock.
    pub fn step(&mut self) {
        let now = self.now();
        let p = &self.p;
        // ---- drive
        let mut arm = None;
        let mut dis = None;
        match self.cmds.front() {
            Some(&Cmd::Arm(q, k, c)) => arm = Some((q, k, c)),
            Some(&Cmd::Disarm(q)) => {
                dis = Some(q);
                if self.pair {
                    if let Some(&Cmd::Arm(q, k, c)) = self.cmds.get(1) {
                        arm = Some((q, k, c));
                    }
                }
            }
            None => {}
        }
        let d = &mut self.sim.dut;
        d.set_at(p.a_valid, arm.is_some() as u64);
        if let Some((q, k, c)) = arm {
            d.set_at(p.a_qpn, q as u64);
            d.set_at(p.a_kind, k as u64);
            d.set_at(p.a_code, c as u64);
        }
        d.set_at(p.d_valid, dis.is_some() as u64);
        d.set_at(p.d_qpn, dis.unwrap_or(0) as u64);
        let e_ready = self.rng.chance(self.expire_pct);
        d.set_at(p.e_ready, e_ready as u64);
        self.sim.settle();
        let d = &self.sim.dut;
        let a_taken = arm.is_some() && d.bit_at(p.a_ready);
        let d_taken = dis.is_some() && d.bit_at(p.d_ready);
        assert_eq!(d.bit_at(p.a_ready), d.bit_at(p.d_ready), "one queue behind both ports");
        let dec = d.bit_at(p.dec_valid).then(|| d.get_at(p.dec_qpn) as u32);
        let e_valid = d.bit_at(p.e_valid);
        let e = (e_valid && e_ready).then(|| (d.get_at(p.e_qpn) as u32, d.get_at(p.e_kind)));

        // ---- an expiry decided in the previous cycle: the state at its end
        if let Some(q) = dec {
            let at = now - 1;
            let l = self.live.remove(&q).unwrap_or_else(|| panic!("cycle {at}: expiry of QP {q}, which is not armed"));
            assert!(at >= l.due, "cycle {at}: QP {q} expired early (deadline tick starts at {})", l.due);
            assert!(at - l.taken > l.ticks * self.tick, "cycle {at}: QP {q} expired early");
            let bound = self.bound(l.due, at);
            assert!(at <= bound, "cycle {at}: QP {q} expired {} cycles late (bound {})", at - l.due, bound - l.due);
            let late = at - l.due;
            if late > self.max_late.0 {
                self.max_late = (late, self.refused_at(at) - self.refused_at(l.due));
            }
            self.decided.push((at, q, late));
            self.expected.push_back((q, l.kind));
        }
        // ---- delivered in decision order
        if let Some((q, k)) = e {
            let (eq, ek) =
                self.expected.pop_front().unwrap_or_else(|| panic!("cycle {now}: expiry of QP {q} never decided"));
            assert_eq!((q, k), (eq, ek as u64), "cycle {now}: expiries out of order");
            self.delivered += 1;
            self.delivered_at.push(now);
        }
        // ---- commands taken in this cycle
        if d_taken {
            let c = self.cmds.pop_front().unwrap();
            self.apply(c, now);
        }
        if a_taken {
            let c = self.cmds.pop_front().unwrap();
            self.apply(c, now);
        }
        // ---- no arming lost
        while let Some(&(due, q, id)) = self.by_due.first() {
            match self.live.get(&q) {
                Some(l) if l.id == id => {
                    assert!(now <= self.bound(due, now), "cycle {now}: QP {q} (due at {due}) never expired");
                    break;
                }
                _ => {
                    self.by_due.pop_first();
                }
            }
        }
        let r = *self.refused.last().unwrap() + (e_valid && !e_ready) as u32;
        self.refused.push(r);
        self.sim.tick();
    }

    /// Run until every command is taken and every arming has expired and
    /// been delivered, at most `limit` cycles.
    pub fn drain(&mut self, limit: u64) {
        let end = self.now() + limit;
        while !(self.cmds.is_empty() && self.live.is_empty() && self.expected.is_empty()) {
            assert!(self.now() < end, "not drained: {} armed, {} to deliver", self.live.len(), self.expected.len());
            self.step();
        }
        for _ in 0..8 {
            self.step();
        }
    }

    /// Run `n` cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }
}
