//! The bench of `MrXlate` (hw/src/mr/mr_xlate.rs): the MPT and the MTT as
//! real tables in host memory (`rnic_host::HostSpace`, written with the
//! contract's layouts), behind an IOMMU that maps the two tables and nothing
//! else, read-only. A model of the DMA engine's client side serves the unit's
//! read client from them (data in command order, random latency and stalls)
//! and logs every access; any write, and any read that is not one whole
//! entry of a table, fails the run (the IOMMU would fault on anything else
//! too). Requests go in with random gaps, responses come out under random
//! back-pressure, and every beat is compared with
//! `rnic_contract::mr::translate` over the tables as they are in host memory
//! when the request is taken. Invalidates go through `s_inv`/`m_inv`.
//!
//! Written against [`Model`] so one bench drives the Verilator model
//! (tb/tests/mr_xlate.rs) and the differential pair (emitter_diff).

use crate::mr::{expected_beats, Answer, RespBeat};
use rnic_contract::layouts::{mpt, mtt};
use rnic_contract::mr::{translate, Mpt, MrError, MrRequest};
use rnic_host::iommu::Perms;
use rnic_host::HostSpace;
use rnic_sim::axis::Rng;
use rnic_sim::models::mr_xlate::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::{BTreeMap, VecDeque};

/// IOVA of the MPT and of the MTT (identity-mapped).
pub const MPT_BASE: u64 = 0x1_0000_0000;
pub const MTT_BASE: u64 = 0x2_0000_0000;
/// Bytes the device reads of a table at once: an MPT entry, an MTT line.
pub const LINE: u64 = 64;

/// Which table a device read touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Table {
    Mpt,
    Mtt,
}

/// Knobs of a run.
#[derive(Clone, Copy, Debug)]
pub struct XlateKnobs {
    /// Percent of cycles a waiting request is offered.
    pub p_req: u64,
    /// Percent of cycles the response sink is ready.
    pub p_resp: u64,
    /// Cycles from a read command taken to its data offered: min, spread.
    pub rd_lat: (u64, u64),
    /// Percent of cycles `m_rd.ready` is high, and `s_rd.tvalid` once data is due.
    pub ready_pct: u64,
    pub data_pct: u64,
}

impl XlateKnobs {
    /// Everything ready, a fixed read latency of `rd` cycles.
    pub const fn fixed(rd: u64) -> Self {
        XlateKnobs { p_req: 100, p_resp: 100, rd_lat: (rd, 0), ready_pct: 100, data_pct: 100 }
    }
    /// Random gaps and stalls, reads answered in 20 to 220 cycles.
    pub const RANDOM: XlateKnobs = XlateKnobs { p_req: 60, p_resp: 70, rd_lat: (20, 200), ready_pct: 70, data_pct: 80 };
}

/// Drives an `MrXlate` model; see the module doc.
pub struct XlateBench {
    pub space: HostSpace,
    pub mpt_log: u32,
    pub mtt_log: u32,
    pub knobs: XlateKnobs,
    rng: Rng,
    to_send: VecDeque<(MrRequest, u64, Option<Answer>)>,
    offering: bool,
    expected: VecDeque<RespBeat>,
    resp_ready: bool,
    // ---- DMA read client
    rd_q: VecDeque<(u64, u64)>,
    rd_beats: VecDeque<([u32; 16], bool)>,
    /// The next this many reads fail (`tuser` on their beat, as the DMA
    /// engine marks a failed request).
    pub fail_reads: u64,
    rd_on: bool,
    rd_ready: bool,
    wr_ready: bool,
    // ---- invalidates
    to_inv: VecDeque<(Table, u32)>,
    inv_out: u64,
    inv_ready: bool,
    now: u64,
    /// Every device read: (table, entry or line index, cycle).
    pub reads: Vec<(Table, u64, u64)>,
    /// Requests taken, beats checked, failed requests (by error), pieces,
    /// invalidates done.
    pub taken: u64,
    pub beats: u64,
    pub failed: BTreeMap<u8, u64>,
    pub pieces: u64,
    pub inv_done: u64,
    /// Cycle each request was taken and its first beat was seen, by id.
    pub first_beat: Vec<(u64, u64)>,
    taken_at: BTreeMap<u64, u64>,
}

impl XlateBench {
    /// Empty tables of 2^`mpt_log` MPT entries and 2^`mtt_log` MTT entries,
    /// mapped read-only; nothing else is mapped.
    pub fn new(mpt_log: u32, mtt_log: u32, knobs: XlateKnobs, seed: u64) -> Self {
        let mut space = HostSpace::new();
        let mpt_bytes = (mpt::SIZE as u64) << mpt_log;
        let mtt_bytes = ((mtt::SIZE as u64) << mtt_log).max(LINE);
        space.iommu.map(MPT_BASE, mpt_bytes.next_multiple_of(4096), MPT_BASE, Perms::R).unwrap();
        space.iommu.map(MTT_BASE, mtt_bytes.next_multiple_of(4096), MTT_BASE, Perms::R).unwrap();
        XlateBench {
            space,
            mpt_log,
            mtt_log,
            knobs,
            rng: Rng(seed | 1),
            to_send: VecDeque::new(),
            offering: false,
            expected: VecDeque::new(),
            resp_ready: false,
            rd_q: VecDeque::new(),
            rd_beats: VecDeque::new(),
            fail_reads: 0,
            rd_on: false,
            rd_ready: false,
            wr_ready: false,
            to_inv: VecDeque::new(),
            inv_out: 0,
            inv_ready: false,
            now: 0,
            reads: vec![],
            taken: 0,
            beats: 0,
            failed: BTreeMap::new(),
            pieces: 0,
            inv_done: 0,
            first_beat: vec![],
            taken_at: BTreeMap::new(),
        }
    }

    // ---------------------------------------------------------------- the tables

    /// Write MPT entry `index` in host memory (the whole 64 bytes).
    pub fn write_mpt(&mut self, index: u32, m: &Mpt) {
        let mut e = [0u8; mpt::SIZE];
        m.write(&mut e).unwrap();
        self.space.memory.write(MPT_BASE + index as u64 * mpt::SIZE as u64, &e);
    }
    /// MPT entry `index` as host memory holds it.
    pub fn mpt(&self, index: u32) -> Mpt {
        Mpt::read(&self.space.memory.read_vec(MPT_BASE + index as u64 * mpt::SIZE as u64, mpt::SIZE)).unwrap()
    }
    /// Write MTT entry `e`: page address `addr`, VALID `valid`.
    pub fn write_mtt(&mut self, e: u32, addr: u64, valid: bool) {
        let mut raw = [0u8; mtt::SIZE];
        mtt::ADDR.set(&mut raw, addr).unwrap();
        mtt::VALID.set(&mut raw, valid).unwrap();
        self.space.memory.write(MTT_BASE + e as u64 * mtt::SIZE as u64, &raw);
    }
    /// MTT entry `e` as the device sees it: zeros beyond the table.
    pub fn mtt_raw(&self, e: u32) -> u64 {
        if (e as u64) >> self.mtt_log != 0 {
            return 0;
        }
        self.space.memory.read_u64(MTT_BASE + e as u64 * mtt::SIZE as u64)
    }
    /// What the device must answer to `r` now.
    pub fn expect(&self, r: &MrRequest) -> Answer {
        let m = self.mpt(mpt::key_index(r.key, self.mpt_log));
        translate(r, &m, |e| self.mtt_raw(e)).collect()
    }

    // ---------------------------------------------------------------- traffic

    /// Queue a request; its id is its position modulo 256.
    pub fn send(&mut self, r: MrRequest) {
        let id = (self.taken + self.to_send.len() as u64) % 256;
        self.to_send.push_back((r, id, None));
    }
    /// Queue a request whose answer is `want`, not the tables' (a cached
    /// entry that host memory no longer holds).
    pub fn send_expecting(&mut self, r: MrRequest, want: Answer) {
        let id = (self.taken + self.to_send.len() as u64) % 256;
        self.to_send.push_back((r, id, Some(want)));
    }
    /// Queue an invalidate of MPT entry or MTT line `index`.
    pub fn invalidate(&mut self, table: Table, index: u32) {
        self.to_inv.push_back((table, index));
    }
    /// Nothing left to send, to receive or to read.
    pub fn done(&self) -> bool {
        self.to_send.is_empty()
            && !self.offering
            && self.expected.is_empty()
            && self.to_inv.is_empty()
            && self.inv_out == 0
            && self.rd_q.is_empty()
            && self.rd_beats.is_empty()
    }
    /// Device reads of `table`.
    pub fn reads_of(&self, table: Table) -> usize {
        self.reads.iter().filter(|r| r.0 == table).count()
    }
    /// Requests failed with `e`.
    pub fn failed_with(&self, e: MrError) -> u64 {
        self.failed.get(&(e as u8)).copied().unwrap_or(0)
    }
    /// Requests failed in all.
    pub fn failed_all(&self) -> u64 {
        self.failed.values().sum()
    }

    fn lat(&mut self) -> u64 {
        let (min, spread) = self.knobs.rd_lat;
        min + if spread == 0 { 0 } else { self.rng.next() % (spread + 1) }
    }

    /// Inputs for this cycle (before `eval`).
    pub fn drive<M: Model + ?Sized>(&mut self, m: &mut M) {
        m.set("mpt_base", MPT_BASE);
        m.set("mpt_log", self.mpt_log as u64);
        m.set("mtt_base", MTT_BASE);
        m.set("mtt_log", self.mtt_log as u64);
        if !self.offering && !self.to_send.is_empty() && self.rng.chance(self.knobs.p_req) {
            self.offering = true;
        }
        if let Some((r, id, _)) = self.to_send.front().filter(|_| self.offering) {
            m.set("s_req.key", r.key as u64);
            m.set("s_req.pd", r.pd as u64);
            m.set("s_req.va", r.va);
            m.set("s_req.len", r.len as u64);
            m.set("s_req.access", r.access as u64);
            m.set("s_req.id", *id);
        }
        m.set("s_req.valid", self.offering as u64);
        self.resp_ready = self.rng.chance(self.knobs.p_resp);
        m.set("m_resp.ready", self.resp_ready as u64);
        // invalidates
        if let Some(&(t, index)) = self.to_inv.front() {
            m.set("s_inv.table", (t == Table::Mtt) as u64);
            m.set("s_inv.index", index as u64);
        }
        m.set("s_inv.valid", !self.to_inv.is_empty() as u64);
        self.inv_ready = self.rng.chance(self.knobs.p_resp);
        m.set("m_inv.ready", self.inv_ready as u64);
        // DMA read client
        self.rd_ready = self.rng.chance(self.knobs.ready_pct);
        m.set("m_rd.ready", self.rd_ready as u64);
        if self.rd_beats.is_empty() {
            if let Some(&(addr, at)) = self.rd_q.front() {
                if at <= self.now {
                    self.rd_q.pop_front();
                    let mut b = [0u8; LINE as usize];
                    self.space.dma_read(addr, &mut b).unwrap_or_else(|f| panic!("cycle {}: {f}", self.now));
                    let fail = self.fail_reads > 0;
                    self.fail_reads -= fail as u64;
                    let w = std::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()));
                    self.rd_beats.push_back((w, fail));
                }
            }
        }
        if !self.rd_on && !self.rd_beats.is_empty() && self.rng.chance(self.knobs.data_pct) {
            self.rd_on = true;
        }
        let i = m.port("s_rd.tdata");
        let (w, fail) = self.rd_beats.front().copied().unwrap_or(([0; 16], false));
        m.set_words(i, &w);
        m.set("s_rd.tkeep", u64::MAX);
        m.set("s_rd.tlast", 1);
        m.set("s_rd.tuser", fail as u64);
        m.set("s_rd.tvalid", self.rd_on as u64);
        // DMA write client: none expected
        self.wr_ready = self.rng.chance(self.knobs.ready_pct);
        m.set("m_wr.tready", self.wr_ready as u64);
        m.set("wr_done", 0);
        m.set("wr_done_err", 0);
    }

    /// Outputs of this cycle (after `eval`): handshakes, checks.
    pub fn sample<M: Model + ?Sized>(&mut self, m: &M) -> Result<(), String> {
        let now = self.now;
        if self.offering && m.get("s_req.ready") & 1 == 1 {
            let (r, id, given) = self.to_send.pop_front().unwrap();
            self.offering = false;
            let want = given.unwrap_or_else(|| self.expect(&r));
            if let Some(Err(e)) = want.last() {
                *self.failed.entry(*e as u8).or_default() += 1;
            }
            self.pieces += want.iter().filter(|x| x.is_ok()).count() as u64;
            self.expected.extend(expected_beats(id, &want));
            self.taken_at.insert(id, now);
            self.taken += 1;
        }
        if !self.to_inv.is_empty() && m.get("s_inv.ready") & 1 == 1 {
            self.to_inv.pop_front();
            self.inv_out += 1;
        }
        if self.inv_ready && m.get("m_inv.valid") & 1 == 1 {
            if self.inv_out == 0 {
                return Err(format!("cycle {now}: an invalidate done that was not asked for"));
            }
            self.inv_out -= 1;
            self.inv_done += 1;
        }
        if self.rd_ready && m.get("m_rd.valid") & 1 == 1 {
            let (addr, len) = (m.get("m_rd.addr"), m.get("m_rd.len"));
            let t = self.table_of(addr, len).map_err(|e| format!("cycle {now}: {e}"))?;
            let lat = self.lat();
            self.rd_q.push_back((addr, now + lat));
            self.reads.push((t.0, t.1, now));
        }
        if self.rd_on && m.get("s_rd.tready") & 1 == 1 {
            self.rd_on = false;
            self.rd_beats.pop_front();
        }
        if self.wr_ready && m.get("m_wr.tvalid") & 1 == 1 {
            return Err(format!("cycle {now}: a DMA write at {:#x}: the tables are never written", m.get("m_wr.addr")));
        }
        if self.resp_ready && m.get("m_resp.valid") & 1 == 1 {
            let got: RespBeat = (
                m.get("m_resp.id"),
                m.get("m_resp.verdict"),
                m.get("m_resp.iova"),
                m.get("m_resp.len"),
                m.get("m_resp.last") & 1 == 1,
            );
            let want = self.expected.pop_front().ok_or_else(|| format!("cycle {now}: unexpected beat {got:x?}"))?;
            if got != want {
                return Err(format!("cycle {now}: beat {got:x?}, expected {want:x?}"));
            }
            if let Some(t) = self.taken_at.remove(&got.0) {
                self.first_beat.push((t, now));
            }
            self.beats += 1;
        }
        self.now += 1;
        Ok(())
    }

    /// The table entry a read command names: whole 64-byte entries of the
    /// MPT or lines of the MTT, inside the tables, or an error.
    fn table_of(&self, addr: u64, len: u64) -> Result<(Table, u64, u64), String> {
        if len != LINE || !addr.is_multiple_of(LINE) {
            return Err(format!("a read of {len} bytes at {addr:#x}: not one table entry"));
        }
        let mpt_end = MPT_BASE + ((mpt::SIZE as u64) << self.mpt_log);
        let mtt_end = MTT_BASE + ((mtt::SIZE as u64) << self.mtt_log).max(LINE);
        if (MPT_BASE..mpt_end).contains(&addr) {
            Ok((Table::Mpt, (addr - MPT_BASE) / LINE, 0))
        } else if (MTT_BASE..mtt_end).contains(&addr) {
            Ok((Table::Mtt, (addr - MTT_BASE) / LINE, 0))
        } else {
            Err(format!("a read at {addr:#x}: neither the MPT nor the MTT"))
        }
    }
}

impl XlateBench {
    /// A fresh `MrXlate` model, out of reset and past the caches' tag clearing.
    pub fn unit(&mut self) -> Clocked<Dut> {
        let mut tb = Clocked::new(Dut::new());
        tb.reset(2);
        for _ in 0..300 {
            self.drive(&mut tb.dut);
            tb.dut.eval();
            self.sample(&tb.dut).unwrap();
            tb.tick();
        }
        assert_eq!(tb.dut.get("init"), 0, "the caches still clear their tags");
        tb
    }

    /// Run `tb` until the bench has nothing left; the cycles it took.
    pub fn run(&mut self, tb: &mut Clocked<Dut>, limit: u64) -> u64 {
        let start = tb.cycle();
        while !self.done() {
            assert!(tb.cycle() - start < limit, "stuck: {} requests taken, {} beats", self.taken, self.beats);
            self.drive(&mut tb.dut);
            tb.dut.eval();
            self.sample(&tb.dut).unwrap_or_else(|e| panic!("{e}"));
            tb.tick();
        }
        tb.cycle() - start
    }
}
