//! Bench for the send WQE read-ahead (`SqAhead`, catalog `sq_ahead`).
//!
//! Around the DUT, Rust models of what it sits between:
//! * **`ReqFetch`'s reads**: QPs with send rings (random size and base), at
//!   most [`SQ_AHEAD_OUTSTANDING`] reads outstanding and at most one per QP,
//!   each for the QP's cursor (advanced after the WQE is handed out, or
//!   kept: a long message's next job), now and then rewound to an older WQE
//!   not yet completed (go-back-N);
//! * **the driver**: posts WQEs (writes a fresh WQE into the ring slot, then
//!   raises `SQ_PROD`), completes WQEs behind the cursor (so their slots are
//!   written again by later posts), and resets a QP now and then (its rings
//!   start again at index 0 with new WQEs, and `inval` pulses);
//! * **the DMA engine**: commands taken with stalls, two beats each after a
//!   random latency in command order, read from host memory when taken; the
//!   rings of "bad" QPs answer with the error flag.
//!
//! Checked: every WQE handed out is the one posted at the index asked for
//! (so nothing was read before its post, or kept past a reset), with the
//! error flag exactly for the bad QPs, in read order; every DMA read is of
//! a ring slot that holds a posted WQE not completed.

use rnic_hw::transport::SQ_AHEAD_OUTSTANDING;
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, VecDeque};

const WQE: u64 = 128;

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// A QP's send ring and the model's cursors (16-bit indices, as the contract's).
#[derive(Clone, Debug)]
pub struct Ring {
    pub qpn: u32,
    pub base: u64,
    pub log: u32,
    /// Posted: indices before `prod`.
    pub prod: u16,
    /// Completed: indices before `done` (their slots may be written again).
    pub done: u16,
    /// The next WQE `ReqFetch` reads.
    pub cursor: u16,
    /// A read of this QP is outstanding.
    pub busy: bool,
    /// The DMA answers this ring's reads with the error flag.
    pub bad: bool,
    /// WQEs posted in all (the content's serial).
    serial: u64,
}

impl Ring {
    fn size(&self) -> u16 {
        1 << self.log
    }
    fn addr(&self, index: u16) -> u64 {
        self.base + ((index as u64) & ((1 << self.log) - 1)) * WQE
    }
}

/// Knobs of a run.
#[derive(Clone, Debug)]
pub struct Knobs {
    pub dma_lat: (u64, u64),
    pub ready_pct: u64,
    pub out_ready_pct: u64,
    pub read_pct: u64,
    pub post_pct: u64,
    /// Of the reads: a re-read of the cursor's WQE after a hand-out (percent).
    pub reread_pct: u64,
    pub rewind_pct: u64,
    pub reset_pct: u64,
    /// A cycle without the due beat (percent).
    pub beat_gap_pct: u64,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            dma_lat: (5, 60),
            ready_pct: 70,
            out_ready_pct: 70,
            read_pct: 60,
            post_pct: 10,
            reread_pct: 20,
            rewind_pct: 3,
            reset_pct: 0,
            beat_gap_pct: 20,
        }
    }
}

pub struct AheadBench<M: Model> {
    pub sim: Clocked<M>,
    pub rng: Rng,
    pub rings: Vec<Ring>,
    pub knobs: Knobs,
    /// Host memory: a 128-byte WQE per ring slot address.
    mem: HashMap<u64, Vec<u8>>,
    /// Reads outstanding, in read order: (ring, index, expected bytes, error, cycle taken).
    reads: VecDeque<(usize, u16, Vec<u8>, bool, u64)>,
    /// Beats of the WQE being handed out.
    got: Vec<u8>,
    /// DMA commands taken: (cycle due, bytes, error).
    dma: VecDeque<(u64, Vec<u8>, bool)>,
    dma_beat: usize,
    /// The read offered to the DUT (held until taken).
    /// (ring, index, `SQ_PROD` as the decision saw it)
    offer: Option<(usize, u16, u16)>,
    /// A reset asked for by [`Self::reset_ring`], made at the first cycle it can be.
    reset_due: Option<(usize, u16)>,
    pub handed: u64,
    pub dma_reads: u64,
    pub resets: u64,
    pub rewinds: u64,
    pub rereads: u64,
    /// Per hand-out: cycles from the read taken to its first beat offered.
    pub latencies: Vec<u64>,
    p: HashMap<&'static str, usize>,
}

const PORTS: [&str; 25] = [
    "s_rd.addr",
    "s_rd.len",
    "s_rd.valid",
    "s_rd.ready",
    "s_at.qpn",
    "s_at.index",
    "s_at.prod",
    "s_at.base",
    "s_at.log",
    "m_wqe.tdata",
    "m_wqe.tlast",
    "m_wqe.tuser",
    "m_wqe.tvalid",
    "m_wqe.tready",
    "m_rd.addr",
    "m_rd.len",
    "m_rd.valid",
    "m_rd.ready",
    "s_rd_data.tdata",
    "s_rd_data.tkeep",
    "s_rd_data.tlast",
    "s_rd_data.tuser",
    "s_rd_data.tvalid",
    "s_rd_data.tready",
    "inval",
];

impl<M: Model> AheadBench<M> {
    /// `qps` rings (QPNs spread over 14 bits, bases 1 MiB apart), the first
    /// `bad` of them answering with DMA errors.
    pub fn new(dut: M, seed: u64, qps: usize, bad: usize) -> Self {
        let mut p = HashMap::new();
        for n in PORTS {
            p.insert(n, dut.port(n));
        }
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        let mut rng = Rng(seed | 1);
        let rings = (0..qps)
            .map(|i| {
                let log = 1 + (rng.next() % 5) as u32;
                // a cursor anywhere in the 16-bit index space
                let start = rng.next() as u16;
                Ring {
                    qpn: (i as u32 * 2731 + 5) & 0x3fff,
                    base: 0x20_0000_0000 + i as u64 * 0x10_0000,
                    log,
                    prod: start,
                    done: start,
                    cursor: start,
                    busy: false,
                    bad: i < bad,
                    serial: 0,
                }
            })
            .collect();
        AheadBench {
            sim,
            rng,
            rings,
            knobs: Knobs::default(),
            mem: HashMap::new(),
            reads: VecDeque::new(),
            got: vec![],
            dma: VecDeque::new(),
            dma_beat: 0,
            offer: None,
            reset_due: None,
            handed: 0,
            dma_reads: 0,
            resets: 0,
            rewinds: 0,
            rereads: 0,
            latencies: vec![],
            p,
        }
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    /// Post `n` WQEs on ring `r` (as many as fit): each slot written first.
    pub fn post(&mut self, r: usize, n: u16) {
        for _ in 0..n {
            let g = &mut self.rings[r];
            if g.prod.wrapping_sub(g.done) >= g.size() {
                return;
            }
            g.serial += 1;
            let mut w = vec![0u8; WQE as usize];
            for (k, x) in w.iter_mut().enumerate() {
                *x = (g.qpn as u64 ^ (g.serial << 3) ^ (g.prod as u64) << 11).wrapping_mul(0x9e37_79b9 + k as u64)
                    as u8
                    ^ k as u8;
            }
            w[0..2].copy_from_slice(&g.prod.to_le_bytes());
            w[2..10].copy_from_slice(&g.serial.to_le_bytes());
            let a = g.addr(g.prod);
            g.prod = g.prod.wrapping_add(1);
            self.mem.insert(a, w);
        }
    }

    /// Reset ring `r` (its indices start again at 0, `n` new WQEs posted,
    /// `inval` pulsed) at the first cycle no read of it is under way.
    pub fn reset_ring(&mut self, r: usize, n: u16) {
        self.reset_due = Some((r, n));
    }

    /// Is `addr` a ring slot holding a posted WQE not completed?
    fn live(&self, addr: u64) -> bool {
        self.rings.iter().any(|g| {
            let span = (g.size() as u64) * WQE;
            if addr < g.base || addr >= g.base + span {
                return false;
            }
            let n = g.prod.wrapping_sub(g.done);
            (0..n).any(|k| g.addr(g.done.wrapping_add(k)) == addr)
        })
    }

    /// Nothing outstanding anywhere.
    pub fn quiet(&self) -> bool {
        self.reads.is_empty() && self.dma.is_empty() && self.offer.is_none()
    }

    /// One cycle: the models drive, the DUT settles, everything is checked, the clock ticks.
    pub fn step(&mut self) {
        let now = self.now();
        let k = self.knobs.clone();
        // ---- the driver: posts, completions, resets
        if self.rng.chance(k.post_pct) {
            let r = (self.rng.next() as usize) % self.rings.len();
            let n = 1 + (self.rng.next() % 4) as u16;
            self.post(r, n);
        }
        if self.rng.chance(20) {
            let r = (self.rng.next() as usize) % self.rings.len();
            let g = &mut self.rings[r];
            // complete up to the cursor (every WQE before it was handed out)
            let ahead = g.cursor.wrapping_sub(g.done);
            if ahead > 0 && ahead <= g.size() {
                g.done = g.done.wrapping_add(1 + (self.rng.next() as u16) % ahead);
            }
        }
        // (the DUT's command register, as the last edge left it)
        let cmd_offered = self.sim.dut.bit_at(self.p["m_rd.valid"]);
        let mut inval = false;
        let random_reset = (k.reset_pct > 0 && self.rng.chance(k.reset_pct)).then(|| {
            let r = (self.rng.next() as usize) % self.rings.len();
            (r, 1 + (self.rng.next() % 6) as u16)
        });
        if let Some((r, n)) = self.reset_due.or(random_reset) {
            // (as a context load: never with a read of the QP under way, and
            // not beside a command the DUT offers, which may be the QP's)
            let offered = self.offer.is_some_and(|o| o.0 == r);
            if !self.rings[r].busy && !offered && !cmd_offered {
                let g = &mut self.rings[r];
                g.prod = 0;
                g.done = 0;
                g.cursor = 0;
                self.resets += 1;
                inval = true;
                self.post(r, n);
                if self.reset_due == Some((r, n)) {
                    self.reset_due = None;
                }
            }
        }
        // ---- `ReqFetch`: a read of a QP's cursor
        if self.offer.is_none() && self.reads.len() < SQ_AHEAD_OUTSTANDING && self.rng.chance(k.read_pct) {
            let r = (self.rng.next() as usize) % self.rings.len();
            let g = &mut self.rings[r];
            if !g.busy && g.cursor != g.prod {
                if self.rng.chance(k.rewind_pct) && g.cursor != g.done {
                    let back = 1 + (self.rng.next() as u16) % g.cursor.wrapping_sub(g.done);
                    g.cursor = g.cursor.wrapping_sub(back);
                    self.rewinds += 1;
                }
                g.busy = true;
                self.offer = Some((r, g.cursor, g.prod));
            }
        }
        let r_rd = self.rng.chance(k.ready_pct);
        let r_out = self.rng.chance(k.out_ready_pct);
        // (beats with gaps, a command's two beats too: `tready` is constant 1)
        let beat_gap = k.beat_gap_pct > 0 && self.rng.chance(k.beat_gap_pct);
        let beat = (self.dma.front().is_some_and(|c| c.0 <= now) && !beat_gap).then(|| {
            let c = self.dma.front().unwrap();
            let b = self.dma_beat;
            (words(&c.1[b * 64..b * 64 + 64]), b == 1, c.2)
        });
        let p = &self.p;
        let d = &mut self.sim.dut;
        d.set_at(p["inval"], inval as u64);
        d.set_at(p["s_rd.valid"], self.offer.is_some() as u64);
        if let Some((r, i, prod)) = self.offer {
            let g = &self.rings[r];
            d.set_at(p["s_rd.addr"], g.addr(i));
            d.set_at(p["s_rd.len"], WQE);
            d.set_at(p["s_at.qpn"], g.qpn as u64);
            d.set_at(p["s_at.index"], i as u64);
            d.set_at(p["s_at.prod"], prod as u64);
            d.set_at(p["s_at.base"], g.base);
            d.set_at(p["s_at.log"], g.log as u64);
        }
        d.set_at(p["m_wqe.tready"], r_out as u64);
        d.set_at(p["m_rd.ready"], r_rd as u64);
        d.set_at(p["s_rd_data.tvalid"], beat.is_some() as u64);
        let (w, last, err) = beat.clone().unwrap_or((vec![0; 16], false, false));
        d.set_words(p["s_rd_data.tdata"], &w);
        d.set_at(p["s_rd_data.tkeep"], u64::MAX);
        d.set_at(p["s_rd_data.tlast"], last as u64);
        d.set_at(p["s_rd_data.tuser"], err as u64);
        self.sim.settle();

        // ---- sample and check
        let d = &self.sim.dut;
        let p = &self.p;
        assert!(d.bit_at(p["s_rd_data.tready"]), "cycle {now}: s_rd_data.tready low");
        let taken = self.offer.is_some() && d.bit_at(p["s_rd.ready"]);
        let cmd = (d.bit_at(p["m_rd.valid"]) && r_rd).then(|| (d.get_at(p["m_rd.addr"]), d.get_at(p["m_rd.len"])));
        let out = (d.bit_at(p["m_wqe.tvalid"]) && r_out).then(|| {
            let mut w = vec![0u32; 16];
            d.get_words(p["m_wqe.tdata"], &mut w);
            (w, d.bit_at(p["m_wqe.tlast"]), d.bit_at(p["m_wqe.tuser"]))
        });
        let first_offered = d.bit_at(p["m_wqe.tvalid"]) && self.got.is_empty();
        if first_offered {
            if let Some(rd) = self.reads.front() {
                if self.latencies.len() as u64 == self.handed {
                    self.latencies.push(now - rd.4);
                }
            }
        }
        if taken {
            let (r, i, _) = self.offer.take().unwrap();
            let g = &self.rings[r];
            let want = self.mem[&g.addr(i)].clone();
            assert_eq!(u16::from_le_bytes([want[0], want[1]]), i, "bench: ring {r} slot holds another index");
            self.reads.push_back((r, i, want, g.bad, now));
        }
        if let Some((a, len)) = cmd {
            assert_eq!(len, WQE, "cycle {now}: command length");
            assert!(self.live(a), "cycle {now}: DMA read of {a:#x}: no posted WQE not completed there");
            let bad = self.rings.iter().any(|g| g.bad && a >= g.base && a < g.base + (g.size() as u64) * WQE);
            let lat = k.dma_lat.0 + self.rng.next() % (k.dma_lat.1 - k.dma_lat.0 + 1);
            self.dma.push_back((now + lat, self.mem[&a].clone(), bad));
            self.dma_reads += 1;
        }
        if beat.is_some() {
            self.dma_beat += 1;
            if self.dma_beat == 2 {
                self.dma_beat = 0;
                self.dma.pop_front();
            }
        }
        if let Some((w, last, err)) = out {
            let rd = self.reads.front().unwrap_or_else(|| panic!("cycle {now}: a beat with no read outstanding"));
            assert_eq!(err, rd.3, "cycle {now}: error flag of QP ring {} index {}", rd.0, rd.1);
            self.got.extend(w.iter().flat_map(|x| x.to_le_bytes()));
            assert_eq!(last, self.got.len() == 128, "cycle {now}: tlast");
            if last {
                let (r, i, want, _, _) = self.reads.pop_front().unwrap();
                assert_eq!(self.got, want, "cycle {now}: WQE {i} of ring {r}");
                self.got.clear();
                self.handed += 1;
                let g = &mut self.rings[r];
                g.busy = false;
                // the job finished its WQE, or a long message re-reads it
                if self.rng.chance(100 - k.reread_pct) {
                    g.cursor = g.cursor.wrapping_add(1);
                } else {
                    self.rereads += 1;
                }
            }
        }
        self.sim.tick();
    }

    /// Run until nothing is outstanding and no read can be made (every
    /// cursor at its `prod`), at most `limit` cycles.
    pub fn drain(&mut self, limit: u64) {
        let k = self.knobs.clone();
        self.knobs.post_pct = 0;
        self.knobs.reset_pct = 0;
        self.knobs.read_pct = 100;
        let end = self.now() + limit;
        while !(self.quiet() && self.rings.iter().all(|g| g.cursor == g.prod)) {
            assert!(self.now() < end, "not drained in {limit} cycles: {} reads outstanding", self.reads.len());
            self.step();
        }
        self.knobs = k;
    }
}
