//! Benches for the DMA client multiplexers (`DmaRdMux`, `DmaWrMux`, catalog
//! `dma_rd_mux` and `dma_wr_mux`, four and five clients): the clients offer
//! random commands / writes with random stalls, a model of one engine
//! client sits on the other side (commands and beats taken with random
//! stalls; read data returned in command order, writes completed in issue
//! order, both after random delays, some with the error flag), and every
//! beat and completion is checked against what each client asked for.

use crate::Stepped;
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// Clients of the catalog instances (`DmaRdMux<4>`, `DmaWrMux<5>`).
pub const RD_CLIENTS: usize = 4;
pub const WR_CLIENTS: usize = 5;

/// A beat's data words: a function of the client, its command's number and
/// the beat's number, so a beat delivered to the wrong client or out of
/// order is seen.
fn beat_words(client: usize, cmd: u64, beat: u64) -> [u32; 16] {
    std::array::from_fn(|w| {
        let x = (client as u64) << 56 ^ cmd << 24 ^ beat << 8 ^ w as u64;
        (x ^ (x >> 29)).wrapping_mul(0x9e37_79b9) as u32
    })
}

/// Beats of a read of `len` bytes at `addr` (address-aligned).
pub fn read_beats(addr: u64, len: u32) -> u64 {
    (addr + len as u64).div_ceil(64) - addr / 64
}

/// A read command as a client issues it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RdCmd {
    pub addr: u64,
    pub len: u32,
}

struct RdPorts {
    c_addr: [usize; RD_CLIENTS],
    c_len: [usize; RD_CLIENTS],
    c_valid: [usize; RD_CLIENTS],
    c_ready: [usize; RD_CLIENTS],
    d_data: [usize; RD_CLIENTS],
    d_last: [usize; RD_CLIENTS],
    d_user: [usize; RD_CLIENTS],
    d_valid: [usize; RD_CLIENTS],
    d_ready: [usize; RD_CLIENTS],
    m_addr: usize,
    m_len: usize,
    m_valid: usize,
    m_ready: usize,
    s_data: usize,
    s_keep: usize,
    s_last: usize,
    s_user: usize,
    s_valid: usize,
    s_ready: usize,
}

/// A command the engine model took: whose (hidden from the DUT: the bench
/// knows it from the address), its beats, its error flag.
struct EngineCmd {
    client: usize,
    seq: u64,
    beats: u64,
    err: bool,
    /// Cycle its data may start.
    due: u64,
}

/// The read multiplexer with [`RD_CLIENTS`] clients and an engine model.
pub struct RdMuxBench<M: Model> {
    pub sim: Clocked<M>,
    p: RdPorts,
    pub rng: Rng,
    /// Percent of cycles a client offers its next command / takes a beat.
    pub p_cmd: u64,
    pub p_take: u64,
    /// Percent of cycles the engine takes a command / offers a beat.
    pub p_engine_cmd: u64,
    pub p_engine_beat: u64,
    /// Cycles from a command taken by the engine to its first beat (at least).
    pub engine_delay: u64,
    /// Percent of commands the engine fails (every beat flagged).
    pub p_err: u64,
    /// Per client: commands not yet offered/taken.
    queued: Vec<VecDeque<RdCmd>>,
    offered: [bool; RD_CLIENTS],
    /// Per client: commands taken by the mux, not yet seen by the engine.
    in_mux: Vec<VecDeque<(u64, RdCmd)>>,
    /// Per client: the number of the next command it issues.
    issued: [u64; RD_CLIENTS],
    engine: VecDeque<EngineCmd>,
    /// Beat number within the engine's head command.
    engine_beat: u64,
    /// Per client: beats due, in order: (cmd seq, beat, last, err).
    due: Vec<VecDeque<(u64, u64, bool, bool)>>,
    /// Client of each command the engine took, in order, with the cycle.
    pub engine_order: Vec<(usize, u64)>,
    /// Cycle each command was taken from its client.
    pub taken_at: Vec<(usize, u64)>,
    /// Beats delivered per client, and the cycle of every delivery.
    pub delivered: [u64; RD_CLIENTS],
    pub beat_cycles: Vec<u64>,
    /// Engine beats taken by the mux (cycle each).
    pub engine_beats: Vec<u64>,
    pub errors_seen: u64,
}

impl<M: Model> RdMuxBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let q = |f: &str, i: usize, g: &str| dut.port(&format!("{f}.{i}.{g}"));
        let p = RdPorts {
            c_addr: std::array::from_fn(|i| q("s_cmd", i, "addr")),
            c_len: std::array::from_fn(|i| q("s_cmd", i, "len")),
            c_valid: std::array::from_fn(|i| q("s_cmd", i, "valid")),
            c_ready: std::array::from_fn(|i| q("s_cmd", i, "ready")),
            d_data: std::array::from_fn(|i| q("m_data", i, "tdata")),
            d_last: std::array::from_fn(|i| q("m_data", i, "tlast")),
            d_user: std::array::from_fn(|i| q("m_data", i, "tuser")),
            d_valid: std::array::from_fn(|i| q("m_data", i, "tvalid")),
            d_ready: std::array::from_fn(|i| q("m_data", i, "tready")),
            m_addr: dut.port("m_cmd.addr"),
            m_len: dut.port("m_cmd.len"),
            m_valid: dut.port("m_cmd.valid"),
            m_ready: dut.port("m_cmd.ready"),
            s_data: dut.port("s_data.tdata"),
            s_keep: dut.port("s_data.tkeep"),
            s_last: dut.port("s_data.tlast"),
            s_user: dut.port("s_data.tuser"),
            s_valid: dut.port("s_data.tvalid"),
            s_ready: dut.port("s_data.tready"),
        };
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        RdMuxBench {
            sim,
            p,
            rng: Rng(seed | 1),
            p_cmd: 100,
            p_take: 100,
            p_engine_cmd: 100,
            p_engine_beat: 100,
            engine_delay: 0,
            p_err: 0,
            queued: (0..RD_CLIENTS).map(|_| VecDeque::new()).collect(),
            offered: [false; RD_CLIENTS],
            in_mux: (0..RD_CLIENTS).map(|_| VecDeque::new()).collect(),
            issued: [0; RD_CLIENTS],
            engine: VecDeque::new(),
            engine_beat: 0,
            due: (0..RD_CLIENTS).map(|_| VecDeque::new()).collect(),
            engine_order: vec![],
            taken_at: vec![],
            delivered: [0; RD_CLIENTS],
            beat_cycles: vec![],
            engine_beats: vec![],
            errors_seen: 0,
        }
    }

    /// Queue a command of `client`.
    pub fn push(&mut self, client: usize, cmd: RdCmd) {
        self.queued[client].push_back(cmd);
    }

    pub fn idle(&self) -> bool {
        self.queued.iter().all(|q| q.is_empty())
            && self.in_mux.iter().all(|q| q.is_empty())
            && self.engine.is_empty()
            && self.due.iter().all(|q| q.is_empty())
    }

    /// One cycle: drive, sample after the settle, tick.
    #[allow(clippy::needless_range_loop)] // the client index names ports, queues and checks alike
    pub fn step(&mut self) {
        let now = self.sim.cycle();
        let p = &self.p;
        let d = &mut self.sim.dut;
        // clients: commands (an offered command stays until taken) and data ready
        let mut takes = [false; RD_CLIENTS];
        for c in 0..RD_CLIENTS {
            if !self.offered[c] && !self.queued[c].is_empty() && self.rng.chance(self.p_cmd) {
                self.offered[c] = true;
            }
            let cmd = self.queued[c].front().copied().unwrap_or(RdCmd { addr: 0, len: 0 });
            d.set_at(p.c_addr[c], cmd.addr);
            d.set_at(p.c_len[c], cmd.len as u64);
            d.set_at(p.c_valid[c], self.offered[c] as u64);
            takes[c] = self.rng.chance(self.p_take);
            d.set_at(p.d_ready[c], takes[c] as u64);
        }
        // the engine: takes a command, offers the head command's next beat once due
        let engine_takes = self.rng.chance(self.p_engine_cmd);
        d.set_at(p.m_ready, engine_takes as u64);
        let beat = match self.engine.front() {
            Some(e) if e.due <= now && self.rng.chance(self.p_engine_beat) => {
                Some((beat_words(e.client, e.seq, self.engine_beat), self.engine_beat + 1 == e.beats, e.err))
            }
            _ => None,
        };
        let words = beat.map(|b| b.0).unwrap_or([0; 16]);
        d.set_words(p.s_data, &words);
        d.set_words(p.s_keep, &[u32::MAX, u32::MAX]);
        d.set_at(p.s_last, beat.is_some_and(|b| b.1) as u64);
        d.set_at(p.s_user, beat.is_some_and(|b| b.2) as u64);
        d.set_at(p.s_valid, beat.is_some() as u64);
        self.sim.settle();
        let d = &self.sim.dut;

        // commands taken from the clients
        for c in 0..RD_CLIENTS {
            if self.offered[c] && d.bit_at(p.c_ready[c]) {
                let cmd = self.queued[c].pop_front().unwrap();
                self.in_mux[c].push_back((self.issued[c], cmd));
                self.issued[c] += 1;
                self.offered[c] = false;
                self.taken_at.push((c, now));
            }
        }
        // a command taken by the engine: whose is it? the client whose oldest command in the mux it is
        if engine_takes && d.bit_at(p.m_valid) {
            let (addr, len) = (d.get_at(p.m_addr), d.get_at(p.m_len) as u32);
            let c = (0..RD_CLIENTS)
                .find(|&c| self.in_mux[c].front().is_some_and(|(_, k)| *k == RdCmd { addr, len }))
                .unwrap_or_else(|| panic!("cycle {now}: the engine got a command no client's oldest: {addr:#x}+{len}"));
            let (seq, cmd) = self.in_mux[c].pop_front().unwrap();
            let err = self.rng.chance(self.p_err);
            let beats = read_beats(cmd.addr, cmd.len);
            self.engine.push_back(EngineCmd { client: c, seq, beats, err, due: now + 1 + self.engine_delay });
            for b in 0..beats {
                self.due[c].push_back((seq, b, b + 1 == beats, err));
            }
            self.engine_order.push((c, now));
        }
        // the engine's beat taken
        if beat.is_some() && d.bit_at(p.s_ready) {
            self.engine_beats.push(now);
            self.engine_beat += 1;
            if self.engine_beat == self.engine.front().unwrap().beats {
                self.engine.pop_front();
                self.engine_beat = 0;
            }
        }
        // beats delivered to the clients
        for c in 0..RD_CLIENTS {
            if !(d.bit_at(p.d_valid[c]) && takes[c]) {
                continue;
            }
            let (seq, b, last, err) = self.due[c]
                .pop_front()
                .unwrap_or_else(|| panic!("cycle {now}: client {c} got a beat it did not ask for"));
            let mut w = [0u32; 16];
            d.get_words(p.d_data[c], &mut w);
            assert_eq!(w, beat_words(c, seq, b), "cycle {now}: client {c} command {seq} beat {b}: data");
            assert_eq!(d.bit_at(p.d_last[c]), last, "cycle {now}: client {c} command {seq} beat {b}: tlast");
            assert_eq!(d.bit_at(p.d_user[c]), err, "cycle {now}: client {c} command {seq} beat {b}: error flag");
            self.errors_seen += err as u64;
            self.delivered[c] += 1;
            self.beat_cycles.push(now);
        }
        self.sim.tick();
    }

    /// Steps until everything queued was done, then 8 cycles in which
    /// nothing more may come out; panics after `limit` cycles.
    pub fn run(&mut self, limit: u64) -> u64 {
        self.run_to_idle(limit, 8)
    }
}

/// A write as a client issues it: `len` bytes at `addr`, beats of random data.
#[derive(Clone, Debug, PartialEq)]
pub struct WrJob {
    pub addr: u64,
    pub len: u32,
    pub beats: Vec<[u32; 16]>,
}

impl WrJob {
    pub fn random(rng: &mut Rng, max_beats: u64) -> Self {
        let addr = (rng.next() & 0xffff_ffff_ffc0) | (rng.next() % 64);
        let n = 1 + rng.next() % max_beats;
        let first = 64 - addr % 64;
        let len = if n == 1 { 1 + rng.next() % first } else { first + (n - 2) * 64 + 1 + rng.next() % 64 } as u32;
        let beats = (0..read_beats(addr, len)).map(|_| std::array::from_fn(|_| rng.next() as u32)).collect();
        WrJob { addr, len, beats }
    }
}

struct WrPorts {
    c_data: [usize; WR_CLIENTS],
    c_keep: [usize; WR_CLIENTS],
    c_last: [usize; WR_CLIENTS],
    c_addr: [usize; WR_CLIENTS],
    c_len: [usize; WR_CLIENTS],
    c_valid: [usize; WR_CLIENTS],
    c_ready: [usize; WR_CLIENTS],
    done: usize,
    done_err: usize,
    m_data: usize,
    m_keep: usize,
    m_last: usize,
    m_addr: usize,
    m_len: usize,
    m_valid: usize,
    m_ready: usize,
    wr_done: usize,
    wr_done_err: usize,
}

/// The write multiplexer with [`WR_CLIENTS`] clients and an engine model.
pub struct WrMuxBench<M: Model> {
    pub sim: Clocked<M>,
    p: WrPorts,
    pub rng: Rng,
    /// Percent of cycles a client offers its next beat; the engine takes one.
    pub p_beat: u64,
    pub p_engine_take: u64,
    /// Cycles from a write's last beat to its completion (at least), and the
    /// percent of writes that fail.
    pub done_delay: u64,
    pub p_err: u64,
    queued: Vec<VecDeque<WrJob>>,
    /// Per client: beat index within its head job, and whether it is offered.
    beat_at: [usize; WR_CLIENTS],
    offered: [bool; WR_CLIENTS],
    /// The write the engine is receiving: (client, job, beat index).
    engine_cur: Option<(usize, WrJob, usize)>,
    /// Per client: jobs taken by the mux, not yet started at the engine.
    in_mux: Vec<VecDeque<WrJob>>,
    /// Completions to send: (cycle due, error).
    completions: VecDeque<(u64, bool)>,
    /// Completions the bench expects per client, in order (error flag),
    /// from the order writes reached the engine.
    expect_done: Vec<VecDeque<bool>>,
    /// Client of each write the engine started, with the cycle.
    pub engine_order: Vec<(usize, u64)>,
    /// Cycle of every beat the engine took.
    pub engine_beats: Vec<u64>,
    pub done_count: [u64; WR_CLIENTS],
    pub done_errs: u64,
    /// Cycles the engine model completed a write, and a client saw one.
    pub done_sent: Vec<u64>,
    pub done_seen: Vec<u64>,
}

impl<M: Model> WrMuxBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let q = |i: usize, g: &str| dut.port(&format!("s_wr.{i}.{g}"));
        let p = WrPorts {
            c_data: std::array::from_fn(|i| q(i, "tdata")),
            c_keep: std::array::from_fn(|i| q(i, "tkeep")),
            c_last: std::array::from_fn(|i| q(i, "tlast")),
            c_addr: std::array::from_fn(|i| q(i, "addr")),
            c_len: std::array::from_fn(|i| q(i, "len")),
            c_valid: std::array::from_fn(|i| q(i, "tvalid")),
            c_ready: std::array::from_fn(|i| q(i, "tready")),
            done: dut.port("client_done"),
            done_err: dut.port("client_done_err"),
            m_data: dut.port("m_wr.tdata"),
            m_keep: dut.port("m_wr.tkeep"),
            m_last: dut.port("m_wr.tlast"),
            m_addr: dut.port("m_wr.addr"),
            m_len: dut.port("m_wr.len"),
            m_valid: dut.port("m_wr.tvalid"),
            m_ready: dut.port("m_wr.tready"),
            wr_done: dut.port("wr_done"),
            wr_done_err: dut.port("wr_done_err"),
        };
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        WrMuxBench {
            sim,
            p,
            rng: Rng(seed | 1),
            p_beat: 100,
            p_engine_take: 100,
            done_delay: 0,
            p_err: 0,
            queued: (0..WR_CLIENTS).map(|_| VecDeque::new()).collect(),
            beat_at: [0; WR_CLIENTS],
            offered: [false; WR_CLIENTS],
            engine_cur: None,
            in_mux: (0..WR_CLIENTS).map(|_| VecDeque::new()).collect(),
            completions: VecDeque::new(),
            expect_done: (0..WR_CLIENTS).map(|_| VecDeque::new()).collect(),
            engine_order: vec![],
            engine_beats: vec![],
            done_count: [0; WR_CLIENTS],
            done_errs: 0,
            done_sent: vec![],
            done_seen: vec![],
        }
    }

    pub fn push(&mut self, client: usize, job: WrJob) {
        self.queued[client].push_back(job);
    }

    pub fn idle(&self) -> bool {
        self.queued.iter().all(|q| q.is_empty())
            && self.in_mux.iter().all(|q| q.is_empty())
            && self.engine_cur.is_none()
            && self.completions.is_empty()
            && self.expect_done.iter().all(|q| q.is_empty())
    }

    pub fn step(&mut self) {
        let now = self.sim.cycle();
        let p = &self.p;
        let d = &mut self.sim.dut;
        for c in 0..WR_CLIENTS {
            if !self.offered[c] && !self.queued[c].is_empty() && self.rng.chance(self.p_beat) {
                self.offered[c] = true;
            }
            let (words, last, addr, len) = match self.queued[c].front() {
                Some(j) => (j.beats[self.beat_at[c]], self.beat_at[c] + 1 == j.beats.len(), j.addr, j.len),
                None => ([0; 16], false, 0, 0),
            };
            d.set_words(p.c_data[c], &words);
            d.set_words(p.c_keep[c], &[u32::MAX, u32::MAX]);
            d.set_at(p.c_last[c], last as u64);
            d.set_at(p.c_addr[c], addr);
            d.set_at(p.c_len[c], len as u64);
            d.set_at(p.c_valid[c], self.offered[c] as u64);
        }
        let engine_takes = self.rng.chance(self.p_engine_take);
        d.set_at(p.m_ready, engine_takes as u64);
        let done = match self.completions.front() {
            Some(&(due, err)) if due <= now => Some(err),
            _ => None,
        };
        d.set_at(p.wr_done, done.is_some() as u64);
        d.set_at(p.wr_done_err, done.unwrap_or(false) as u64);
        self.sim.settle();
        let d = &self.sim.dut;
        if done.is_some() {
            self.completions.pop_front();
            self.done_sent.push(now);
        }

        // completions to the clients (the register shows last cycle's)
        let (bits, errs) = (d.get_at(p.done), d.get_at(p.done_err));
        assert_eq!(bits >> WR_CLIENTS, 0, "cycle {now}: completion bits of clients that do not exist");
        assert_eq!(errs & !bits, 0, "cycle {now}: an error flag without a completion");
        for c in 0..WR_CLIENTS {
            if bits >> c & 1 == 1 {
                let want = self.expect_done[c]
                    .pop_front()
                    .unwrap_or_else(|| panic!("cycle {now}: client {c} got a completion for no write"));
                assert_eq!(errs >> c & 1 == 1, want, "cycle {now}: client {c}: completion error flag");
                self.done_count[c] += 1;
                self.done_seen.push(now);
                self.done_errs += want as u64;
            }
        }
        assert!(bits.count_ones() <= 1, "cycle {now}: two completions at once");

        // beats taken from the clients
        for c in 0..WR_CLIENTS {
            if self.offered[c] && d.bit_at(p.c_ready[c]) {
                self.offered[c] = false;
                self.beat_at[c] += 1;
                if self.beat_at[c] == self.queued[c][0].beats.len() {
                    let j = self.queued[c].pop_front().unwrap();
                    self.in_mux[c].push_back(j);
                    self.beat_at[c] = 0;
                }
            }
        }
        // a beat taken by the engine: the beats of one write in a row, its addr and len on every beat
        if engine_takes && d.bit_at(p.m_valid) {
            let mut w = [0u32; 16];
            d.get_words(p.m_data, &mut w);
            let (addr, len, last) = (d.get_at(p.m_addr), d.get_at(p.m_len) as u32, d.bit_at(p.m_last));
            if self.engine_cur.is_none() {
                // a new write: some client's oldest write not yet at the engine (its first beat may
                // reach the engine before its last left the client: look at the queue heads too)
                let c = (0..WR_CLIENTS)
                    .find(|&c| {
                        let head = self.in_mux[c].front().or(self.queued[c].front());
                        head.is_some_and(|j| j.addr == addr && j.len == len && j.beats[0] == w)
                    })
                    .unwrap_or_else(|| panic!("cycle {now}: a write no client's next: {addr:#x}+{len}"));
                let j = match self.in_mux[c].pop_front() {
                    Some(j) => j,
                    None => self.queued[c].front().unwrap().clone(),
                };
                self.engine_cur = Some((c, j, 0));
                self.engine_order.push((c, now));
            }
            let (c, j, k) = self.engine_cur.as_mut().unwrap();
            assert_eq!((addr, len), (j.addr, j.len), "cycle {now}: client {c}: addr/len on beat {k}");
            assert_eq!(w, j.beats[*k], "cycle {now}: client {c}: data of beat {k}");
            assert_eq!(last, *k + 1 == j.beats.len(), "cycle {now}: client {c}: tlast on beat {k}");
            assert_eq!(d.get_at(p.m_keep), u64::MAX, "cycle {now}: keep");
            *k += 1;
            self.engine_beats.push(now);
            if last {
                let (c, j, _) = self.engine_cur.take().unwrap();
                // a write that left the client's queue while streaming: drop it from in_mux
                if self.in_mux[c].front() == Some(&j) {
                    self.in_mux[c].pop_front();
                }
                let err = self.rng.chance(self.p_err);
                self.completions.push_back((now + 1 + self.done_delay, err));
                self.expect_done[c].push_back(err);
            }
        }
        self.sim.tick();
    }

    /// Steps until everything queued was done, then 8 cycles in which
    /// nothing more may come out; panics after `limit` cycles.
    pub fn run(&mut self, limit: u64) -> u64 {
        self.run_to_idle(limit, 8)
    }
}

impl<M: Model> Stepped for RdMuxBench<M> {
    fn step(&mut self) {
        RdMuxBench::step(self)
    }
    fn idle(&self) -> bool {
        RdMuxBench::idle(self)
    }
    fn cycle(&self) -> u64 {
        self.sim.cycle()
    }
}

impl<M: Model> Stepped for WrMuxBench<M> {
    fn step(&mut self) {
        WrMuxBench::step(self)
    }
    fn idle(&self) -> bool {
        WrMuxBench::idle(self)
    }
    fn cycle(&self) -> u64 {
        self.sim.cycle()
    }
}
