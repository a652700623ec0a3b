//! Bench for the context cache (`CtxCache`, catalog `qpc_cache` and
//! `mtt_cache`): requests offered with random stalls, responses taken with
//! random stalls, and a Rust model of the DMA engine's client side behind
//! the cache's DMA ports ([`ClientDma`]).
//!
//! The model keeps the DMA engine's client contract (docs/host.md): read
//! data comes back in command order, address-aligned, `tlast` on each
//! command's last beat; each write gets one `wr_done` pulse, in issue order.
//! Its latencies are random (or fixed, for the latency figures) and its
//! ready and valid lines stall at random. A write lands in host memory only
//! when its `wr_done` is given, so an acknowledgement that came too early
//! shows stale memory. It checks the cache's side: every read and write is
//! one whole entry of the table, and no entry is read while a write-back of
//! it is not done.
//!
//! The reference ([`Reference`]) applies each request when the cache takes
//! it: the cache serves the requests to one index in that order, and
//! requests to different indices commute, so the reference's answer to each
//! request is exact.

use rnic_host::HostMemory;
use rnic_hw::host::{CACHE_OP_FLUSH, CACHE_OP_INVALIDATE, CACHE_OP_READ, CACHE_OP_WRITE};
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, VecDeque};

/// Where the bench puts the table in host memory.
pub const TABLE_BASE: u64 = 0x4000_0000;

/// Latencies and stalls of the DMA client model, in cycles and percent.
#[derive(Clone, Copy, Debug)]
pub struct DmaTiming {
    /// Cycles from a read command taken to its first beat offered: min, spread.
    pub rd_lat: (u64, u64),
    /// Cycles from a write's last beat taken to its `wr_done`: min, spread.
    pub wr_lat: (u64, u64),
    /// Percent of cycles `m_rd.ready`, `m_wr.tready` and `s_rd.tvalid` (once data is due) are high.
    pub ready_pct: u64,
    pub data_pct: u64,
}

impl DmaTiming {
    /// Fixed latency, no stalls: for latency figures.
    pub const fn fixed(rd: u64, wr: u64) -> Self {
        DmaTiming { rd_lat: (rd, 0), wr_lat: (wr, 0), ready_pct: 100, data_pct: 100 }
    }
    /// Random latency around a PCIe round trip (the DMA engine's idle 64 B
    /// read is 233 cycles), random stalls.
    pub const RANDOM: DmaTiming = DmaTiming { rd_lat: (150, 200), wr_lat: (20, 200), ready_pct: 70, data_pct: 80 };
}

struct Ports {
    rd_valid: usize,
    rd_ready: usize,
    rd_addr: usize,
    rd_len: usize,
    d_data: usize,
    d_keep: usize,
    d_last: usize,
    d_user: usize,
    d_valid: usize,
    d_ready: usize,
    w_data: usize,
    w_keep: usize,
    w_last: usize,
    w_addr: usize,
    w_len: usize,
    w_valid: usize,
    w_ready: usize,
    wr_done: usize,
    wr_done_err: usize,
}

/// The DMA engine's client side, modelled (see the module's text).
pub struct ClientDma {
    p: Ports,
    pub mem: HostMemory,
    pub timing: DmaTiming,
    entry: usize,
    entries: u64,
    rd_q: VecDeque<(u64, u64)>,
    rd_beats: VecDeque<([u32; 16], bool, bool)>,
    rd_on: bool,
    rd_ready: bool,
    wr_ready: bool,
    wr: Option<(u64, Vec<u8>)>,
    /// Writes whose `wr_done` has not been given: (due cycle, address, bytes).
    wr_pending: VecDeque<(u64, u64, Vec<u8>, bool)>,
    /// Entry reads and write-backs seen, and the cycle of each.
    pub reads: Vec<(u64, u64)>,
    pub writes: Vec<(u64, u64)>,
    /// The next this many reads fail (`tuser` on every beat), and the next
    /// this many writes complete with `wr_done_err` (and do not land).
    pub fail_reads: u64,
    pub fail_writes: u64,
    rng: Rng,
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn get_wide<M: Model + ?Sized>(m: &M, i: usize) -> Vec<u32> {
    let mut w = vec![0u32; m.ports()[i].words()];
    m.get_words(i, &mut w);
    w
}

impl ClientDma {
    fn new<M: Model + ?Sized>(m: &M, entry: usize, entries: u64, timing: DmaTiming, seed: u64) -> Self {
        let i = |n: &str| m.port(n);
        ClientDma {
            p: Ports {
                rd_valid: i("m_rd.valid"),
                rd_ready: i("m_rd.ready"),
                rd_addr: i("m_rd.addr"),
                rd_len: i("m_rd.len"),
                d_data: i("s_rd.tdata"),
                d_keep: i("s_rd.tkeep"),
                d_last: i("s_rd.tlast"),
                d_user: i("s_rd.tuser"),
                d_valid: i("s_rd.tvalid"),
                d_ready: i("s_rd.tready"),
                w_data: i("m_wr.tdata"),
                w_keep: i("m_wr.tkeep"),
                w_last: i("m_wr.tlast"),
                w_addr: i("m_wr.addr"),
                w_len: i("m_wr.len"),
                w_valid: i("m_wr.tvalid"),
                w_ready: i("m_wr.tready"),
                wr_done: i("wr_done"),
                wr_done_err: i("wr_done_err"),
            },
            mem: HostMemory::new(),
            timing,
            entry,
            entries,
            rd_q: VecDeque::new(),
            rd_beats: VecDeque::new(),
            rd_on: false,
            rd_ready: false,
            wr_ready: false,
            wr: None,
            wr_pending: VecDeque::new(),
            reads: vec![],
            writes: vec![],
            fail_reads: 0,
            fail_writes: 0,
            rng: Rng(seed | 1),
        }
    }

    fn lat(&mut self, (min, spread): (u64, u64)) -> u64 {
        min + if spread == 0 { 0 } else { self.rng.next() % (spread + 1) }
    }

    /// Nothing in flight.
    pub fn idle(&self) -> bool {
        self.rd_q.is_empty() && self.rd_beats.is_empty() && self.wr.is_none() && self.wr_pending.is_empty()
    }

    /// A write-back of the entry at `addr` is not done yet.
    pub fn write_pending(&self, addr: u64) -> bool {
        self.wr_pending.iter().any(|w| w.1 == addr) || self.wr.as_ref().is_some_and(|w| w.0 == addr)
    }

    fn check_entry(&self, what: &str, addr: u64, len: u64, now: u64) {
        assert_eq!(len, self.entry as u64, "cycle {now}: {what} at {addr:#x}: length {len}");
        assert!(
            addr >= TABLE_BASE
                && (addr - TABLE_BASE).is_multiple_of(self.entry as u64)
                && (addr - TABLE_BASE) / (self.entry as u64) < self.entries,
            "cycle {now}: {what} at {addr:#x} is not an entry of the table"
        );
    }

    fn drive<M: Model + ?Sized>(&mut self, d: &mut M, now: u64) {
        self.rd_ready = self.rng.chance(self.timing.ready_pct);
        d.set_at(self.p.rd_ready, self.rd_ready as u64);
        self.wr_ready = self.rng.chance(self.timing.ready_pct);
        d.set_at(self.p.w_ready, self.wr_ready as u64);
        if self.rd_beats.is_empty() {
            if let Some(&(addr, at)) = self.rd_q.front() {
                if at <= now {
                    self.rd_q.pop_front();
                    assert!(
                        !self.write_pending(addr),
                        "cycle {now}: entry {addr:#x} read while its write-back is not done"
                    );
                    let data = self.mem.read_vec(addr, self.entry);
                    let n = self.entry / 64;
                    let fail = self.fail_reads > 0;
                    self.fail_reads -= fail as u64;
                    for (k, c) in data.chunks(64).enumerate() {
                        self.rd_beats.push_back((words(c).try_into().unwrap(), k + 1 == n, fail));
                    }
                }
            }
        }
        if !self.rd_on && !self.rd_beats.is_empty() && self.rng.chance(self.timing.data_pct) {
            self.rd_on = true;
        }
        if let (true, Some((w, last, fail))) = (self.rd_on, self.rd_beats.front()) {
            d.set_words(self.p.d_data, w);
            d.set_at(self.p.d_keep, u64::MAX);
            d.set_at(self.p.d_last, *last as u64);
            d.set_at(self.p.d_user, *fail as u64);
        }
        d.set_at(self.p.d_valid, self.rd_on as u64);
        let (done, err) = match self.wr_pending.front() {
            Some(&(at, _, _, _)) if at <= now => {
                let (_, addr, data, fail) = self.wr_pending.pop_front().unwrap();
                if !fail {
                    self.mem.write(addr, &data);
                }
                (true, fail)
            }
            _ => (false, false),
        };
        d.set_at(self.p.wr_done, done as u64);
        d.set_at(self.p.wr_done_err, err as u64);
    }

    fn sample<M: Model + ?Sized>(&mut self, d: &M, now: u64) {
        if self.rd_ready && d.bit_at(self.p.rd_valid) {
            let (addr, len) = (d.get_at(self.p.rd_addr), d.get_at(self.p.rd_len));
            self.check_entry("read", addr, len, now);
            let lat = self.lat(self.timing.rd_lat);
            self.rd_q.push_back((addr, now + lat));
            self.reads.push((addr, now));
        }
        if self.rd_on && d.bit_at(self.p.d_ready) {
            self.rd_on = false;
            self.rd_beats.pop_front();
        }
        if self.wr_ready && d.bit_at(self.p.w_valid) {
            let (addr, len) = (d.get_at(self.p.w_addr), d.get_at(self.p.w_len));
            let w = self.wr.get_or_insert_with(|| (addr, vec![]));
            assert_eq!(w.0, addr, "cycle {now}: write address changed within a write");
            assert_eq!(d.get_at(self.p.w_keep), u64::MAX, "cycle {now}: write-back beat with partial keep");
            w.1.extend(bytes(&get_wide(d, self.p.w_data)));
            if d.bit_at(self.p.w_last) {
                let (addr, data) = self.wr.take().unwrap();
                self.check_entry("write", addr, data.len() as u64, now);
                assert_eq!(len, data.len() as u64, "cycle {now}: write at {addr:#x}: len {len}, {} bytes", data.len());
                let lat = self.lat(self.timing.wr_lat);
                // completions in issue order
                let at = (now + lat).max(self.wr_pending.back().map_or(0, |w| w.0 + 1));
                let fail = self.fail_writes > 0;
                self.fail_writes -= fail as u64;
                self.wr_pending.push_back((at, addr, data, fail));
                self.writes.push((addr, now));
            }
        }
    }
}

/// A request for the cache.
#[derive(Clone, Debug)]
pub struct Req {
    pub op: u64,
    pub index: u32,
    /// Byte enables of a write (bit i: byte i of the entry).
    pub mask: u128,
    pub data: Vec<u8>,
    /// The bench expects `err` (a DMA failure it injected).
    pub fails: bool,
}

impl Req {
    pub fn read(index: u32) -> Self {
        Req { op: CACHE_OP_READ, index, mask: 0, data: vec![], fails: false }
    }
    pub fn write(index: u32, mask: u128, data: Vec<u8>) -> Self {
        Req { op: CACHE_OP_WRITE, index, mask, data, fails: false }
    }
    pub fn invalidate(index: u32) -> Self {
        Req { op: CACHE_OP_INVALIDATE, index, mask: 0, data: vec![], fails: false }
    }
    pub fn flush(index: u32) -> Self {
        Req { op: CACHE_OP_FLUSH, index, mask: 0, data: vec![], fails: false }
    }
}

/// A response seen on `m_resp`.
#[derive(Clone, Debug)]
pub struct Resp {
    pub id: u8,
    pub err: bool,
    pub data: Vec<u8>,
    pub cycle: u64,
}

/// The table as the cache's users must see it, and what each index holds
/// in host memory for sure.
pub struct Reference {
    pub entry: usize,
    pub entries: u64,
    pub val: HashMap<u32, Vec<u8>>,
    /// Indices written since their last flush (their host copy depends on
    /// whether the cache evicted them).
    pub dirty: std::collections::HashSet<u32>,
}

impl Reference {
    pub fn get(&self, mem: &HostMemory, index: u32) -> Vec<u8> {
        self.val
            .get(&index)
            .cloned()
            .unwrap_or_else(|| mem.read_vec(TABLE_BASE + index as u64 * self.entry as u64, self.entry))
    }
}

/// What a request taken expects back.
#[derive(Clone, Debug)]
pub struct Expect {
    pub req: Req,
    pub taken: u64,
    pub err: bool,
    /// The entry data to compare (reads and writes), and for a flush the
    /// entry host memory must hold when it is acknowledged.
    pub data: Option<Vec<u8>>,
}

pub struct CacheBench<M: Model> {
    pub sim: Clocked<M>,
    pub dma: ClientDma,
    pub rf: Reference,
    rng: Rng,
    entry: usize,
    /// Percent of cycles a request is offered (when one is queued) and a response taken.
    pub req_pct: u64,
    pub resp_pct: u64,
    todo: VecDeque<Req>,
    presenting: bool,
    next_id: u8,
    pub outstanding: HashMap<u8, Expect>,
    pub done: Vec<(Expect, Resp)>,
    pub taken: u64,
    q: [usize; 8],
}

impl<M: Model> CacheBench<M> {
    /// A cache after reset (and its tag clearing), over a table of
    /// 2^`log_entries` entries of random bytes at [`TABLE_BASE`].
    pub fn new(dut: M, log_entries: u32, timing: DmaTiming, seed: u64) -> Self {
        let entry = dut.ports()[dut.port("m_resp.data")].width / 8;
        let entries = 1u64 << log_entries;
        let mut dma = ClientDma::new(&dut, entry, entries, timing, seed ^ 0xd11a);
        let mut rng = Rng(seed | 1);
        let mut fill = vec![0u8; entry * entries as usize];
        for c in fill.chunks_mut(8) {
            c.copy_from_slice(&rng.next().to_le_bytes());
        }
        dma.mem.write(TABLE_BASE, &fill);
        let q = [
            dut.port("s_req.op"),
            dut.port("s_req.index"),
            dut.port("s_req.mask"),
            dut.port("s_req.data"),
            dut.port("s_req.id"),
            dut.port("s_req.valid"),
            dut.port("s_req.ready"),
            dut.port("m_resp.ready"),
        ];
        let mut sim = Clocked::new(dut);
        sim.dut.set("tbl_base", TABLE_BASE);
        sim.dut.set("tbl_log", log_entries as u64);
        sim.reset(2);
        let mut b = CacheBench {
            sim,
            dma,
            rf: Reference { entry, entries, val: HashMap::new(), dirty: Default::default() },
            rng,
            entry,
            req_pct: 100,
            resp_pct: 100,
            todo: VecDeque::new(),
            presenting: false,
            next_id: 0,
            outstanding: HashMap::new(),
            done: vec![],
            taken: 0,
            q,
        };
        let mut n = 0;
        while b.sim.dut.get("init") & 1 == 1 {
            b.sim.tick();
            n += 1;
            assert!(n <= 1 << 13, "the tag array is still being cleared after {n} cycles");
        }
        b
    }

    pub fn entry_bytes(&self) -> usize {
        self.entry
    }

    pub fn push(&mut self, r: Req) {
        self.todo.push_back(r);
    }

    pub fn queued(&self) -> usize {
        self.todo.len() + self.presenting as usize
    }

    /// The reference's answer to `r`, applied.
    fn apply(rf: &mut Reference, mem: &HostMemory, r: &Req, taken: u64) -> Expect {
        if r.index as u64 >= rf.entries || r.fails {
            return Expect { req: r.clone(), taken, err: true, data: None };
        }
        let cur = rf.get(mem, r.index);
        let data = match r.op {
            CACHE_OP_READ => Some(cur),
            CACHE_OP_WRITE => {
                let mut n = cur;
                for (i, b) in n.iter_mut().enumerate() {
                    if r.mask >> i & 1 == 1 {
                        *b = r.data[i];
                    }
                }
                rf.val.insert(r.index, n.clone());
                rf.dirty.insert(r.index);
                Some(n)
            }
            CACHE_OP_INVALIDATE => {
                assert!(!rf.dirty.contains(&r.index), "the bench invalidates only clean entries (index {})", r.index);
                None
            }
            _ => {
                rf.dirty.remove(&r.index);
                Some(cur)
            }
        };
        Expect { req: r.clone(), taken, err: false, data }
    }

    /// One cycle: drive, settle, sample, clock.
    pub fn step(&mut self) {
        let now = self.sim.cycle();
        let d = &mut self.sim.dut;
        self.dma.drive(d, now);
        if !self.presenting && !self.todo.is_empty() && self.rng.chance(self.req_pct) {
            // an invalidate of an entry with writes not flushed would drop
            // them or not, as evictions went: the bench flushes it instead
            if self.todo[0].op == CACHE_OP_INVALIDATE && self.rf.dirty.contains(&self.todo[0].index) {
                self.todo[0].op = CACHE_OP_FLUSH;
            }
            let r = &self.todo[0];
            d.set_at(self.q[0], r.op);
            d.set_at(self.q[1], r.index as u64);
            let m = r.mask;
            d.set_words(
                self.q[2],
                &[m as u32, (m >> 32) as u32, (m >> 64) as u32, (m >> 96) as u32][..self.entry / 32],
            );
            let mut data = r.data.clone();
            data.resize(self.entry, 0);
            d.set_words(self.q[3], &words(&data));
            d.set_at(self.q[4], self.next_id as u64);
            self.presenting = true;
        }
        d.set_at(self.q[5], self.presenting as u64);
        let resp_ready = self.rng.chance(self.resp_pct);
        d.set_at(self.q[7], resp_ready as u64);
        d.eval();
        self.dma.sample(d, now);
        if self.presenting && d.bit_at(self.q[6]) {
            self.presenting = false;
            let r = self.todo.pop_front().unwrap();
            let e = Self::apply(&mut self.rf, &self.dma.mem, &r, now);
            let id = self.next_id;
            assert!(self.outstanding.insert(id, e).is_none(), "bench: id {id} reused while outstanding");
            self.next_id = self.next_id.wrapping_add(1);
            self.taken += 1;
        }
        if resp_ready && d.get("m_resp.valid") & 1 == 1 {
            let id = d.get("m_resp.id") as u8;
            let err = d.get("m_resp.err") & 1 == 1;
            let data = bytes(&get_wide(d, d.port("m_resp.data")));
            let e = self
                .outstanding
                .remove(&id)
                .unwrap_or_else(|| panic!("cycle {now}: response with id {id}, none outstanding"));
            let r = &e.req;
            assert_eq!(err, e.err, "cycle {now}: {r:?} (id {id}): err {err}");
            if !err {
                if let (CACHE_OP_READ | CACHE_OP_WRITE, Some(want)) = (r.op, &e.data) {
                    assert!(
                        data == *want,
                        "cycle {now}: {r:?} (id {id}): the entry differs from the reference: got {:02x?}, want {:02x?}",
                        &data[..16],
                        &want[..16]
                    );
                }
                if let (CACHE_OP_FLUSH, Some(want)) = (r.op, &e.data) {
                    let addr = TABLE_BASE + r.index as u64 * self.entry as u64;
                    // the flush is acknowledged only once the write-back is done
                    assert!(
                        !self.dma.write_pending(addr),
                        "cycle {now}: flush of {} acknowledged before its write-back is done",
                        r.index
                    );
                    assert!(
                        self.dma.mem.read_vec(addr, self.entry) == *want,
                        "cycle {now}: flush of {}: host memory differs",
                        r.index
                    );
                }
            }
            self.done.push((e, Resp { id, err, data, cycle: now }));
        }
        self.sim.tick();
    }

    /// Run until every queued request is answered and the DMA model is idle.
    pub fn run(&mut self, limit: u64) {
        let end = self.sim.cycle() + limit;
        while self.queued() > 0 || !self.outstanding.is_empty() || !self.dma.idle() {
            assert!(
                self.sim.cycle() < end,
                "cycle {}: {} requests queued, {} outstanding, DMA idle: {}",
                self.sim.cycle(),
                self.queued(),
                self.outstanding.len(),
                self.dma.idle()
            );
            self.step();
        }
    }

    /// Flush every entry of the table and check host memory against the reference.
    pub fn flush_all_and_check(&mut self, limit: u64) {
        for i in 0..self.rf.entries as u32 {
            self.push(Req::flush(i));
        }
        self.run(limit);
        for i in 0..self.rf.entries as u32 {
            let want = self.rf.get(&self.dma.mem, i);
            let got = self.dma.mem.read_vec(TABLE_BASE + i as u64 * self.entry as u64, self.entry);
            assert!(got == want, "after the final flush, entry {i} in host memory differs from the reference");
        }
    }

    /// A random request over indices `0..span` (`span` may pass the table:
    /// those are answered with an error): reads, masked writes, flushes, and
    /// invalidates of entries the reference knows clean.
    pub fn random_req(&mut self, span: u32) -> Req {
        let index = (self.rng.next() % span as u64) as u32;
        match self.rng.next() % 10 {
            0..=3 => Req::read(index),
            4..=7 => {
                let mask = (self.rng.next() as u128 | (self.rng.next() as u128) << 64)
                    & (self.rng.next() as u128 | (self.rng.next() as u128) << 64);
                let data = (0..self.entry).map(|_| self.rng.next() as u8).collect();
                Req::write(index, mask, data)
            }
            8 => Req::flush(index),
            _ => Req::invalidate(index),
        }
    }
}
