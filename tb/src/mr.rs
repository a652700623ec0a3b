//! The bench of `MrCheck` (hw/src/mr): regions in a host-memory MPT and MTT,
//! lookups served from them with random latency and stalls, requests in with
//! random gaps, responses out under random back-pressure, every beat
//! compared with `rnic_contract::mr::mr_check`, and every MTT line read
//! logged per request (a failed check must read none: no DMA); every
//! prefetch hint checked against the requests that may give it
//! ([`MrWorld::hint`]).
//!
//! Written against [`Model`] so one bench drives the Verilator model
//! (tb/tests/mr_check.rs) and the differential pair (emitter_diff).

use rnic_contract::layouts::{mpt, mtt};
use rnic_contract::mr::{draw_key, mr_check, translate, Access, Mpt, MrError, MrRequest, MTT_PER_LINE};
use rnic_sim::axis::Rng;
use rnic_sim::Model;
use std::collections::{BTreeMap, VecDeque};

/// The MTT: entry `e` holds a page address derived from `e` (bits below
/// every page size set too, which the device must ignore), VALID but in
/// about one entry of 64 ([`mtt_invalid`]).
pub fn mtt_entry(e: u32) -> u64 {
    let h = (e as u64 ^ 0x9e37_79b9).wrapping_mul(0xff51_afd7_ed55_8ccd);
    let mut raw = [0u8; 8];
    mtt::ADDR.set(&mut raw, ((h ^ (h >> 29)) | 0x3) & ((1 << mtt::ADDR.width) - 1)).unwrap();
    mtt::VALID.set(&mut raw, !mtt_invalid(e)).unwrap();
    u64::from_le_bytes(raw)
}

/// The entries [`mtt_entry`] leaves without VALID: about one in 64 from
/// entry 0x100 on (below, the hand-made regions of tb/tests/mr_check.rs).
pub fn mtt_invalid(e: u32) -> bool {
    e >= 0x100 && (e as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58 == 0
}

/// The page address in a raw MTT entry.
pub fn mtt_addr(raw: u64) -> u64 {
    mtt::ADDR.get(&raw.to_le_bytes()).unwrap()
}

/// A device's answer to an access: the pieces, then the error if any.
pub type Answer = Vec<Result<(u64, u32), MrError>>;

/// MPT entries by index and the table's size; the MTT is [`mtt_entry`].
#[derive(Clone, Default)]
pub struct MrWorld {
    pub log_entries: u32,
    pub mpt: BTreeMap<u32, Mpt>,
}

impl MrWorld {
    /// The 64 bytes of MPT entry `index` (zeros where none is registered).
    pub fn mpt_bytes(&self, index: u32) -> [u8; 64] {
        let mut e = [0u8; 64];
        if let Some(m) = self.mpt.get(&index) {
            m.write(&mut e).unwrap();
        }
        e
    }
    /// MTT line `line`: entries 8 line .. 8 line + 7.
    pub fn mtt_line(line: u32) -> [u8; 64] {
        let mut l = [0u8; 64];
        for i in 0..MTT_PER_LINE {
            let e = line.wrapping_mul(MTT_PER_LINE).wrapping_add(i);
            l[8 * i as usize..8 * i as usize + 8].copy_from_slice(&mtt_entry(e).to_le_bytes());
        }
        l
    }
    /// What the device must answer (`rnic_contract::mr::translate`).
    pub fn expect(&self, r: &MrRequest) -> Answer {
        let e = self.mpt.get(&mpt::key_index(r.key, self.log_entries)).copied().unwrap_or_default();
        translate(r, &e, mtt_entry).collect()
    }
    /// The error of an answer, if any.
    pub fn error(a: &Answer) -> Option<MrError> {
        a.last().and_then(|x| x.err())
    }
    /// MTT lines a request reads: those of every page it spans, once its
    /// check passed (an entry without VALID does not stop the reads).
    pub fn lines(&self, r: &MrRequest) -> u64 {
        let e = self.mpt.get(&mpt::key_index(r.key, self.log_entries)).copied().unwrap_or_default();
        match mr_check(r, &e, mtt_addr_of).map(|p| p.count()) {
            Ok(n) if n > 0 => {
                let s = e.log_page_size as u32;
                let first = e.mtt_base.wrapping_add(((r.va >> s) - (e.va_base >> s)) as u32);
                let last = first.wrapping_add(n as u32 - 1);
                ((last / MTT_PER_LINE).wrapping_sub(first / MTT_PER_LINE)) as u64 + 1
            }
            _ => 0,
        }
    }

    /// The MTT line a request may hint for prefetch (`MrCheck`'s rule): the
    /// line after its last, if its check passed with pages, it starts a
    /// line (its first entry is a line's first, or it spans lines), and the
    /// region has at least a whole line's pages after it.
    pub fn hint(&self, r: &MrRequest) -> Option<u32> {
        let e = self.mpt.get(&mpt::key_index(r.key, self.log_entries)).copied().unwrap_or_default();
        let n = mr_check(r, &e, mtt_addr_of).ok()?.count() as u32;
        if n == 0 {
            return None;
        }
        let s = e.log_page_size as u32;
        let first = e.mtt_base.wrapping_add(((r.va >> s) - (e.va_base >> s)) as u32);
        let last = first.wrapping_add(n - 1);
        let rem = (e.length - r.len as u64) - (r.va - e.va_base);
        let starts = first % MTT_PER_LINE == 0 || first / MTT_PER_LINE != last / MTT_PER_LINE;
        (starts && rem >= (MTT_PER_LINE as u64) << s).then(|| (last / MTT_PER_LINE).wrapping_add(1) & HINT_MASK)
    }

    /// `n` random regions in a table of 2^`log_entries`, keys from
    /// `draw_key`, page sizes among the three, rights, PDs 1..=3, some
    /// invalid, one at the top of the address space.
    pub fn random(rng: &mut Rng, log_entries: u32, n: usize) -> Self {
        let mut w = MrWorld { log_entries, mpt: BTreeMap::new() };
        let mut free: Vec<u32> = (0..1 << log_entries).collect();
        let mut next_mtt = 0x100u32;
        let mut words = || rng.next() as u32;
        let mut draws = vec![];
        for _ in 0..n.min(free.len()) {
            let (pos, key) = draw_key(&free, |_| None, log_entries, &mut words).unwrap();
            free.swap_remove(pos);
            draws.push(key);
        }
        for (i, key) in draws.into_iter().enumerate() {
            let s = mpt::LOG_PAGE_SIZES[(rng.next() % 3) as usize];
            let pages = 1 + rng.next() % 6;
            let off = rng.next() % (1 << s);
            let va_base = if i == 0 {
                (u64::MAX - (pages << s)) + 1 + off // at the top of the address space
            } else {
                ((rng.next() >> 8) << s) + off
            };
            let top = u64::MAX - va_base + 1; // room to 2^64
            let length = (pages << s).saturating_sub(rng.next() % (1 << s)).min(top).max(1);
            let flags = (0..4).fold(0, |f, i| f | (!rng.chance(25) as u64) << i);
            let m = Mpt {
                va_base,
                length,
                key,
                pd: 1 + (rng.next() % 3) as u32,
                valid: !rng.chance(10),
                local_write: flags & 1 != 0,
                remote_write: flags & 2 != 0,
                remote_read: flags & 4 != 0,
                remote_atomic: flags & 8 != 0,
                log_page_size: s as u8,
                mtt_base: next_mtt,
            };
            next_mtt += pages as u32 + 1 + (rng.next() % 9) as u32;
            w.mpt.insert(mpt::key_index(key, log_entries), m);
        }
        w
    }

    /// A random request: mostly against a registered region, near its
    /// edges, with every kind of fault now and then.
    pub fn random_request(&self, rng: &mut Rng) -> MrRequest {
        let regions: Vec<&Mpt> = self.mpt.values().collect();
        let m = *regions[(rng.next() % regions.len() as u64) as usize];
        let page = 1u64 << m.log_page_size;
        let access = Access::ALL[(rng.next() % 5) as usize];
        let mut r = MrRequest { key: m.key, pd: m.pd, va: m.va_base, len: 0, access };
        let max_len = m.length.min(if m.log_page_size == 12 { 5 * page } else { 1 << 32 }).min(u32::MAX as u64);
        r.len = match rng.next() % 8 {
            0 => 0,
            1 => 1 + (rng.next() % 64) as u32,
            2 => max_len as u32,
            _ => (1 + rng.next() % max_len) as u32,
        };
        let slack = m.length.saturating_sub(r.len as u64);
        r.va = m.va_base + if slack == 0 { 0 } else { rng.next() % (slack + 1) };
        if rng.chance(20) {
            r.va = r.va.wrapping_add((page - 1).wrapping_sub(rng.next() % (2 * page)));
            // near or past an edge
        }
        match rng.next() % 16 {
            0 => r.key ^= 1 << (rng.next() % 32),     // a wrong tag or index bit
            1 => r.key = rng.next() as u32,           // a blind guess
            2 => r.pd = 1 + (r.pd % 3),               // another PD
            3 => r.va = u64::MAX - (rng.next() % 64), // a wrap-around attempt
            _ => {}
        }
        r
    }
}

/// The bits of an MTT line index (`m_pf.index`, `m_mtt.index`).
const HINT_MASK: u32 = (1 << 29) - 1;

/// One response beat: (id, verdict, iova, len, last).
pub type RespBeat = (u64, u64, u64, u64, bool);

/// Expected beats of request `id`: a piece per translated page, then the
/// error as a beat of its own (len 0); `last` on the final beat. A passed
/// zero-length access is one empty beat.
pub fn expected_beats(id: u64, want: &Answer) -> Vec<RespBeat> {
    if want.is_empty() {
        return vec![(id, 0, 0, 0, true)];
    }
    want.iter()
        .enumerate()
        .map(|(i, x)| {
            let last = i + 1 == want.len();
            match *x {
                Ok((a, l)) => (id, 0, a, l as u64, last),
                Err(e) => (id, e as u64, 0, 0, last),
            }
        })
        .collect()
}

fn mtt_addr_of(e: u32) -> u64 {
    mtt_addr(mtt_entry(e))
}

/// A lookup server: reads answered in order after `min..=max` cycles, with
/// the read side stalled `stall` percent of cycles.
struct Server {
    min: u64,
    max: u64,
    stall: u64,
    pending: VecDeque<(u64, [u32; 16], u64)>,
    ready: bool,
}

impl Server {
    fn new(min: u64, max: u64, stall: u64) -> Self {
        Server { min, max, stall, pending: VecDeque::new(), ready: false }
    }
    fn push(&mut self, rng: &mut Rng, now: u64, line: [u8; 64], id: u64) {
        let lat = self.min + rng.next() % (self.max - self.min + 1);
        let at = self.pending.back().map_or(0, |p| p.0).max(now + lat);
        let words = std::array::from_fn(|i| u32::from_le_bytes(line[4 * i..4 * i + 4].try_into().unwrap()));
        self.pending.push_back((at, words, id));
    }
}

/// Knobs of a run.
#[derive(Clone, Copy, Debug)]
pub struct MrKnobs {
    /// Percent of cycles a waiting request is offered.
    pub p_req: u64,
    /// Percent of cycles the response sink is ready.
    pub p_resp: u64,
    /// MPT lookup latency range and read-side stall percent.
    pub mpt: (u64, u64, u64),
    /// MTT lookup latency range and read-side stall percent.
    pub mtt: (u64, u64, u64),
    /// Percent of cycles the prefetch hint port is ready.
    pub p_pf: u64,
}

impl MrKnobs {
    /// Everything ready, shortest lookups.
    pub const FAST: MrKnobs = MrKnobs { p_req: 100, p_resp: 100, mpt: (1, 1, 0), mtt: (1, 1, 0), p_pf: 100 };
    /// Random gaps, stalls and latencies everywhere.
    pub const RANDOM: MrKnobs = MrKnobs { p_req: 60, p_resp: 70, mpt: (1, 30, 25), mtt: (1, 30, 25), p_pf: 50 };
}

/// Drives an `MrCheck` model; see the module doc.
pub struct MrBench {
    pub world: MrWorld,
    pub knobs: MrKnobs,
    rng: Rng,
    to_send: VecDeque<(MrRequest, u64)>,
    offering: bool,
    expected: VecDeque<RespBeat>,
    /// MTT lines each request id must read.
    lines_due: BTreeMap<u64, u64>,
    /// MPT reads not yet answered: (index, id), to check the index.
    mpt_reads: VecDeque<u64>,
    mpt: Server,
    mtt: Server,
    resp_ready: bool,
    pf_ready: bool,
    /// Lines the requests taken may hint, in request order; the hints seen
    /// must be a subsequence (a hint not taken at once is dropped), each
    /// other than the one before.
    hints_due: VecDeque<u32>,
    last_hint: Option<u32>,
    /// Prefetch hints taken (their lines), and candidates skipped (dropped,
    /// or a repeat of the line before).
    pub hints: Vec<u32>,
    pub hints_skipped: u64,
    now: u64,
    /// Requests taken, beats checked, MTT lines read, cycles run.
    pub taken: u64,
    pub beats: u64,
    pub lines_read: u64,
    pub failed: u64,
    pub pieces: u64,
}

impl MrBench {
    pub fn new(world: MrWorld, knobs: MrKnobs, seed: u64) -> Self {
        let (a, b) = (knobs.mpt, knobs.mtt);
        MrBench {
            world,
            knobs,
            rng: Rng(seed),
            to_send: VecDeque::new(),
            offering: false,
            expected: VecDeque::new(),
            lines_due: BTreeMap::new(),
            mpt_reads: VecDeque::new(),
            mpt: Server::new(a.0, a.1, a.2),
            mtt: Server::new(b.0, b.1, b.2),
            resp_ready: false,
            pf_ready: false,
            hints_due: VecDeque::new(),
            last_hint: None,
            hints: vec![],
            hints_skipped: 0,
            now: 0,
            taken: 0,
            beats: 0,
            lines_read: 0,
            failed: 0,
            pieces: 0,
        }
    }

    /// Queue a request; its id is its position modulo 256.
    pub fn send(&mut self, r: MrRequest) {
        let id = (self.taken + self.to_send.len() as u64) % 256;
        self.to_send.push_back((r, id));
    }

    /// Nothing left to send or to receive.
    pub fn done(&self) -> bool {
        self.to_send.is_empty() && self.expected.is_empty() && self.lines_due.values().all(|&n| n == 0)
    }

    /// Inputs for this cycle (before `eval`).
    pub fn drive<M: Model + ?Sized>(&mut self, m: &mut M) {
        m.set("mpt_log", self.world.log_entries as u64);
        if !self.offering && !self.to_send.is_empty() && self.rng.chance(self.knobs.p_req) {
            self.offering = true;
        }
        if let Some((r, id)) = self.to_send.front().filter(|_| self.offering) {
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
        self.mpt.ready = !self.rng.chance(self.mpt.stall);
        self.mtt.ready = !self.rng.chance(self.mtt.stall);
        m.set("m_mpt.ready", self.mpt.ready as u64);
        m.set("m_mtt.ready", self.mtt.ready as u64);
        self.pf_ready = self.rng.chance(self.knobs.p_pf);
        m.set("m_pf.ready", self.pf_ready as u64);
        for (srv, p) in [(&self.mpt, "s_mpt"), (&self.mtt, "s_mtt")] {
            let head = srv.pending.front().filter(|h| h.0 <= self.now);
            let i = m.port(&format!("{p}.data"));
            m.set_words(i, &head.map_or([0; 16], |h| h.1));
            m.set(&format!("{p}.id"), head.map_or(0, |h| h.2));
            m.set(&format!("{p}.valid"), head.is_some() as u64);
        }
    }

    /// Outputs of this cycle (after `eval`): handshakes, checks.
    pub fn sample<M: Model + ?Sized>(&mut self, m: &M) -> Result<(), String> {
        let now = self.now;
        if self.offering && m.get("s_req.ready") & 1 == 1 {
            let (r, id) = self.to_send.pop_front().unwrap();
            self.offering = false;
            let want = self.world.expect(&r);
            self.failed += MrWorld::error(&want).is_some() as u64;
            self.pieces += want.iter().filter(|x| x.is_ok()).count() as u64;
            self.expected.extend(expected_beats(id, &want));
            *self.lines_due.entry(id).or_default() += self.world.lines(&r);
            self.hints_due.extend(self.world.hint(&r));
            self.mpt_reads.push_back(mpt::key_index(r.key, self.world.log_entries) as u64);
            self.taken += 1;
        }
        if self.mpt.ready && m.get("m_mpt.valid") & 1 == 1 {
            let index = m.get("m_mpt.index");
            let want = self.mpt_reads.pop_front().ok_or("an MPT read with no request")?;
            if index != want {
                return Err(format!("cycle {now}: MPT read of entry {index:#x}, the key names {want:#x}"));
            }
            let line = self.world.mpt_bytes(index as u32);
            self.mpt.push(&mut self.rng, now, line, m.get("m_mpt.id"));
        }
        if self.mtt.ready && m.get("m_mtt.valid") & 1 == 1 {
            let (line, id) = (m.get("m_mtt.index") as u32, m.get("m_mtt.id"));
            let due = self.lines_due.entry(id).or_default();
            if *due == 0 {
                return Err(format!("cycle {now}: MTT line {line:#x} read for request {id}, which needs no more"));
            }
            *due -= 1;
            self.lines_read += 1;
            self.mtt.push(&mut self.rng, now, MrWorld::mtt_line(line), id);
        }
        if self.pf_ready && m.get("m_pf.valid") & 1 == 1 {
            let line = m.get("m_pf.index") as u32;
            let at = self.hints_due.iter().position(|&h| h == line).ok_or_else(|| {
                format!("cycle {now}: a prefetch hint of MTT line {line:#x}, which no request taken may hint")
            })?;
            if self.last_hint == Some(line) {
                return Err(format!("cycle {now}: MTT line {line:#x} hinted twice in a row"));
            }
            self.hints_skipped += at as u64;
            self.hints_due.drain(..=at);
            self.last_hint = Some(line);
            self.hints.push(line);
        }
        for (srv, p) in [(&mut self.mpt, "s_mpt"), (&mut self.mtt, "s_mtt")] {
            if srv.pending.front().is_some_and(|h| h.0 <= now) && m.get(&format!("{p}.ready")) & 1 == 1 {
                srv.pending.pop_front();
            }
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
            if got.4 && self.lines_due.get(&got.0).is_some_and(|&n| n > 0) {
                return Err(format!("cycle {now}: request {} answered before its MTT lines were read", got.0));
            }
            self.beats += 1;
        }
        self.now += 1;
        Ok(())
    }
}
