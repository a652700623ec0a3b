//! PCIe timing for DMA, seen from the device: how long a read takes to come
//! back, when a posted write lands, and how many bytes each direction can
//! carry per core cycle. The RTL's DMA engine is only as fast as the link
//! lets it be, so benchmarks in the simulator need this to mean anything.
//!
//! Model: each direction is a pipe carrying at most `bytes_per_cycle` bytes
//! per cycle, one TLP at a time (a TLP is never interleaved with another).
//! A read is split into completions of at most `max_completion_bytes`,
//! aligned to that size like a root complex's RCB splits; a completion may
//! start on the downstream pipe once the round trip minus its own
//! serialisation has passed, so an unloaded small read delivers exactly
//! `read_round_trip` cycles after it was submitted. Writes are split at
//! `max_payload_bytes`, go upstream in order, and reach memory after
//! `write_latency` cycles at the earliest. Memory is read when a completion
//! is delivered and written when a write lands, through the IOMMU.
//!
//! Not modelled: request-side (upstream) bandwidth taken by read requests,
//! flow-control credits, and the rule that reads do not pass earlier writes
//! (the write latency is far below the read round trip, so it holds in
//! practice for the defaults).

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use crate::iommu::DmaFault;
use crate::HostSpace;

/// Link parameters, all in core cycles (4 ns) and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcieConfig {
    /// Cycles from submitting a small read to its completion arriving.
    pub read_round_trip: u64,
    /// Cycles from submitting a small posted write to it being in memory.
    pub write_latency: u64,
    /// Completion bytes the host can send the device per cycle.
    pub read_bytes_per_cycle: u32,
    /// Write bytes the device can send the host per cycle.
    pub write_bytes_per_cycle: u32,
    /// Largest read completion (read completion boundary / max payload);
    /// reads are split at multiples of it.
    pub max_completion_bytes: u32,
    /// Largest write TLP payload; writes are split at multiples of it.
    pub max_payload_bytes: u32,
    /// When set, completions of different tags are returned in an order
    /// drawn from this seed (data within one tag stays in order), as a root
    /// complex may; `None` returns them in the order they became ready.
    pub reorder_seed: Option<u64>,
}

impl PcieConfig {
    /// PCIe Gen3 x16 as seen from a 250 MHz core: 900 ns read round trip,
    /// 200 ns posted write, about 13 GB/s each way (52 bytes per cycle),
    /// 256-byte completions and payloads, completions in order.
    pub const fn gen3_x16() -> Self {
        Self {
            read_round_trip: crate::ns_to_cycles(900),
            write_latency: crate::ns_to_cycles(200),
            read_bytes_per_cycle: 52,
            write_bytes_per_cycle: 52,
            max_completion_bytes: 256,
            max_payload_bytes: 256,
            reorder_seed: None,
        }
    }

    /// The same link with completions reordered across tags from `seed`.
    pub const fn with_reorder(mut self, seed: u64) -> Self {
        self.reorder_seed = Some(seed);
        self
    }

    fn validate(&self) -> Result<(), PcieError> {
        let bad = |what| Err(PcieError::BadConfig(what));
        if self.read_bytes_per_cycle == 0 || self.write_bytes_per_cycle == 0 {
            return bad("bandwidth must be at least one byte per cycle");
        }
        if self.max_completion_bytes == 0 || self.max_payload_bytes == 0 {
            return bad("TLP sizes must be non-zero");
        }
        Ok(())
    }
}

impl Default for PcieConfig {
    fn default() -> Self {
        Self::gen3_x16()
    }
}

/// Why a request or configuration was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PcieError {
    /// The configuration cannot describe a link.
    BadConfig(&'static str),
    /// A read with this tag is still outstanding.
    TagInUse(u16),
    /// Zero-length request.
    Empty {
        /// The IOVA of the request.
        iova: u64,
    },
    /// The request wraps past the top of the address space.
    Wraps {
        /// The IOVA of the request.
        iova: u64,
        /// Its length.
        len: u64,
    },
}

impl fmt::Display for PcieError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PcieError::BadConfig(why) => write!(f, "bad PCIe configuration: {why}"),
            PcieError::TagInUse(tag) => write!(f, "read tag {tag} is already outstanding"),
            PcieError::Empty { iova } => write!(f, "zero-length DMA request at IOVA {iova:#x}"),
            PcieError::Wraps { iova, len } => write!(f, "DMA request {iova:#x}+{len:#x} wraps the address space"),
        }
    }
}

impl std::error::Error for PcieError {}

/// A piece of read data returned to the device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadChunk {
    /// The tag the device gave the read.
    pub tag: u16,
    /// Offset of `data` from the start of the read.
    pub offset: u32,
    /// The bytes.
    pub data: Vec<u8>,
    /// Whether this is the read's last chunk (the tag is free again).
    pub last: bool,
    /// Cycle it arrived.
    pub cycle: u64,
}

/// What the link hands back from [`PcieModel::tick`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    /// Read data.
    Read(ReadChunk),
    /// The read faulted in the IOMMU (counting mode); its tag is free again
    /// and no more chunks of it follow.
    ReadFailed {
        /// The read's tag.
        tag: u16,
        /// The fault.
        fault: DmaFault,
        /// Cycle the failure arrived.
        cycle: u64,
    },
    /// A write TLP reached memory.
    WriteApplied {
        /// Its IOVA.
        iova: u64,
        /// Its length.
        len: u32,
        /// Cycle it landed.
        cycle: u64,
    },
    /// A write TLP faulted in the IOMMU (counting mode) and was dropped.
    WriteFailed {
        /// The fault.
        fault: DmaFault,
        /// Cycle it would have landed.
        cycle: u64,
    },
}

/// Traffic counters, from which a benchmark computes achieved bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PcieCounters {
    /// Read requests submitted.
    pub read_requests: u64,
    /// Read bytes delivered to the device.
    pub read_bytes: u64,
    /// Cycles in which the downstream (completion) pipe carried data.
    pub read_busy_cycles: u64,
    /// First and last cycle the downstream pipe carried data.
    pub read_window: Option<(u64, u64)>,
    /// Write requests submitted.
    pub write_requests: u64,
    /// Write bytes that reached memory.
    pub write_bytes: u64,
    /// Cycles in which the upstream (write) pipe carried data.
    pub write_busy_cycles: u64,
    /// First and last cycle the upstream pipe carried data.
    pub write_window: Option<(u64, u64)>,
}

impl PcieCounters {
    /// Read bytes per cycle from the first to the last cycle data moved.
    pub fn read_bandwidth(&self) -> f64 {
        window_rate(self.read_bytes, self.read_window)
    }

    /// Write bytes per cycle from the first to the last cycle data moved.
    pub fn write_bandwidth(&self) -> f64 {
        window_rate(self.write_bytes, self.write_window)
    }
}

fn window_rate(bytes: u64, window: Option<(u64, u64)>) -> f64 {
    match window {
        Some((first, last)) => bytes as f64 / (last - first + 1) as f64,
        None => 0.0,
    }
}

/// One TLP waiting for or crossing a pipe.
#[derive(Debug)]
struct Tlp {
    /// Earliest cycle it may start on the pipe.
    start_at: u64,
    /// Submission order, to break ties.
    seq: u64,
    iova: u64,
    len: u32,
    /// Offset within the read (reads) — unused for writes.
    offset: u32,
    last: bool,
    /// Payload (writes only).
    data: Vec<u8>,
}

/// A TLP partly across a pipe.
#[derive(Debug)]
struct InFlight {
    tag: u16,
    tlp: Tlp,
    remaining: u32,
}

/// splitmix64: small, seeded and stable across platforms and releases.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Splits `[iova, iova + len)` at multiples of `size`: (iova, len, offset).
fn split(iova: u64, len: u32, size: u32) -> impl Iterator<Item = (u64, u32, u32)> {
    let size = u64::from(size);
    let end = iova + u64::from(len);
    let mut cur = iova;
    std::iter::from_fn(move || {
        if cur >= end {
            return None;
        }
        let next = ((cur / size) + 1).saturating_mul(size).min(end);
        let piece = (cur, (next - cur) as u32, (cur - iova) as u32);
        cur = next;
        Some(piece)
    })
}

/// Cycles a TLP of `len` bytes occupies an idle pipe.
fn serialisation(len: u32, bytes_per_cycle: u32) -> u64 {
    u64::from(len.div_ceil(bytes_per_cycle))
}

/// The PCIe link between the device and host memory.
#[derive(Debug)]
pub struct PcieModel {
    config: PcieConfig,
    rng: Option<SplitMix64>,
    /// Outstanding reads: tag → chunks not yet started, in order. A tag
    /// stays here until its last chunk is delivered.
    reads: BTreeMap<u16, VecDeque<Tlp>>,
    read_pipe: Option<InFlight>,
    writes: VecDeque<Tlp>,
    write_pipe: Option<InFlight>,
    /// Next cycle `tick` will simulate.
    next_cycle: u64,
    seq: u64,
    counters: PcieCounters,
}

impl PcieModel {
    /// An idle link with `config`.
    pub fn new(config: PcieConfig) -> Result<Self, PcieError> {
        config.validate()?;
        Ok(Self {
            config,
            rng: config.reorder_seed.map(SplitMix64),
            reads: BTreeMap::new(),
            read_pipe: None,
            writes: VecDeque::new(),
            write_pipe: None,
            next_cycle: 0,
            seq: 0,
            counters: PcieCounters::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PcieConfig {
        &self.config
    }

    /// Traffic so far.
    pub fn counters(&self) -> &PcieCounters {
        &self.counters
    }

    /// Reads still outstanding.
    pub fn reads_in_flight(&self) -> usize {
        self.reads.len()
    }

    /// Whether nothing is queued or crossing the link.
    pub fn is_idle(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty() && self.write_pipe.is_none()
    }

    fn check_range(iova: u64, len: u64) -> Result<(), PcieError> {
        if len == 0 {
            return Err(PcieError::Empty { iova });
        }
        iova.checked_add(len).map(|_| ()).ok_or(PcieError::Wraps { iova, len })
    }

    /// The device issues a read of `len` bytes at `iova` under `tag` at cycle
    /// `now`. Submit before calling `tick(now)`.
    pub fn submit_read(&mut self, tag: u16, iova: u64, len: u32, now: u64) -> Result<(), PcieError> {
        Self::check_range(iova, len.into())?;
        if self.reads.contains_key(&tag) {
            return Err(PcieError::TagInUse(tag));
        }
        let bpc = self.config.read_bytes_per_cycle;
        let pieces: Vec<_> = split(iova, len, self.config.max_completion_bytes).collect();
        let count = pieces.len();
        let mut chunks = VecDeque::with_capacity(count);
        for (i, (piece_iova, piece_len, offset)) in pieces.into_iter().enumerate() {
            let arrive = now + self.config.read_round_trip;
            let start_at = (arrive + 1).saturating_sub(serialisation(piece_len, bpc)).max(now);
            self.seq += 1;
            chunks.push_back(Tlp {
                start_at,
                seq: self.seq,
                iova: piece_iova,
                len: piece_len,
                offset,
                last: i + 1 == count,
                data: Vec::new(),
            });
        }
        self.reads.insert(tag, chunks);
        self.counters.read_requests += 1;
        Ok(())
    }

    /// The device posts a write of `data` at `iova` at cycle `now`.
    pub fn submit_write(&mut self, iova: u64, data: &[u8], now: u64) -> Result<(), PcieError> {
        let len = u32::try_from(data.len()).map_err(|_| PcieError::Wraps { iova, len: data.len() as u64 })?;
        Self::check_range(iova, len.into())?;
        let bpc = self.config.write_bytes_per_cycle;
        for (piece_iova, piece_len, offset) in split(iova, len, self.config.max_payload_bytes) {
            let arrive = now + self.config.write_latency;
            let start_at = (arrive + 1).saturating_sub(serialisation(piece_len, bpc)).max(now);
            self.seq += 1;
            let at = offset as usize;
            self.writes.push_back(Tlp {
                start_at,
                seq: self.seq,
                iova: piece_iova,
                len: piece_len,
                offset,
                last: true,
                data: data[at..at + piece_len as usize].to_vec(),
            });
        }
        self.counters.write_requests += 1;
        Ok(())
    }

    /// Picks the next read chunk to put on the pipe at `cycle`: only the
    /// head chunk of each tag is a candidate, which keeps a tag's data in
    /// order.
    fn next_read(&mut self, cycle: u64) -> Option<InFlight> {
        let eligible = self
            .reads
            .iter()
            .filter_map(|(tag, q)| q.front().filter(|t| t.start_at <= cycle).map(|t| (*tag, t.start_at, t.seq)));
        let tag = match &mut self.rng {
            None => eligible.min_by_key(|&(_, start, seq)| (start, seq)).map(|(tag, _, _)| tag),
            Some(rng) => {
                let tags: Vec<u16> = eligible.map(|(tag, _, _)| tag).collect();
                if tags.is_empty() {
                    None
                } else {
                    Some(tags[(rng.next() % tags.len() as u64) as usize])
                }
            }
        }?;
        let tlp = self.reads.get_mut(&tag)?.pop_front()?;
        Some(InFlight { tag, remaining: tlp.len, tlp })
    }

    /// The earliest cycle anything could next move, when both pipes are idle.
    fn next_start(&self) -> Option<u64> {
        let reads = self.reads.values().filter_map(|q| q.front().map(|t| t.start_at));
        let writes = self.writes.front().map(|t| t.start_at);
        reads.chain(writes).min()
    }

    /// Advances the link through cycle `now` and returns what completed,
    /// in cycle order. Reads memory for delivered completions and writes it
    /// for landed writes, through the IOMMU in `host`.
    pub fn tick(&mut self, now: u64, host: &mut HostSpace) -> Vec<Completion> {
        let mut out = Vec::new();
        while self.next_cycle <= now {
            let cycle = self.next_cycle;
            if self.read_pipe.is_none() && self.write_pipe.is_none() {
                match self.next_start() {
                    None => {
                        self.next_cycle = now + 1;
                        break;
                    }
                    Some(start) if start > cycle => {
                        // Nothing can move before `start`: skip the idle cycles.
                        self.next_cycle = start.min(now + 1);
                        continue;
                    }
                    Some(_) => {}
                }
            }
            self.read_cycle(cycle, host, &mut out);
            self.write_cycle(cycle, host, &mut out);
            self.next_cycle = cycle + 1;
        }
        out
    }

    fn read_cycle(&mut self, cycle: u64, host: &mut HostSpace, out: &mut Vec<Completion>) {
        let mut budget = self.config.read_bytes_per_cycle;
        let mut moved = false;
        while budget > 0 {
            if self.read_pipe.is_none() {
                self.read_pipe = self.next_read(cycle);
            }
            let Some(flight) = self.read_pipe.as_mut() else { break };
            let n = budget.min(flight.remaining);
            flight.remaining -= n;
            budget -= n;
            moved = true;
            if flight.remaining == 0 {
                let InFlight { tag, tlp, .. } = self.read_pipe.take().expect("pipe holds the chunk just finished");
                let mut data = vec![0; tlp.len as usize];
                match host.dma_read(tlp.iova, &mut data) {
                    Ok(()) => {
                        self.counters.read_bytes += u64::from(tlp.len);
                        if tlp.last {
                            self.reads.remove(&tag);
                        }
                        out.push(Completion::Read(ReadChunk { tag, offset: tlp.offset, data, last: tlp.last, cycle }));
                    }
                    Err(fault) => {
                        self.reads.remove(&tag);
                        out.push(Completion::ReadFailed { tag, fault, cycle });
                    }
                }
            }
        }
        if moved {
            self.counters.read_busy_cycles += 1;
            let first = self.counters.read_window.map_or(cycle, |(first, _)| first);
            self.counters.read_window = Some((first, cycle));
        }
    }

    fn write_cycle(&mut self, cycle: u64, host: &mut HostSpace, out: &mut Vec<Completion>) {
        let mut budget = self.config.write_bytes_per_cycle;
        let mut moved = false;
        while budget > 0 {
            if self.write_pipe.is_none() {
                // Posted writes stay in order: only the oldest may start.
                if self.writes.front().is_some_and(|t| t.start_at <= cycle) {
                    let tlp = self.writes.pop_front().expect("front checked");
                    self.write_pipe = Some(InFlight { tag: 0, remaining: tlp.len, tlp });
                }
            }
            let Some(flight) = self.write_pipe.as_mut() else { break };
            let n = budget.min(flight.remaining);
            flight.remaining -= n;
            budget -= n;
            moved = true;
            if flight.remaining == 0 {
                let tlp = self.write_pipe.take().expect("pipe holds the write just finished").tlp;
                match host.dma_write(tlp.iova, &tlp.data) {
                    Ok(()) => {
                        self.counters.write_bytes += u64::from(tlp.len);
                        out.push(Completion::WriteApplied { iova: tlp.iova, len: tlp.len, cycle });
                    }
                    Err(fault) => out.push(Completion::WriteFailed { fault, cycle }),
                }
            }
        }
        if moved {
            self.counters.write_busy_cycles += 1;
            let first = self.counters.write_window.map_or(cycle, |(first, _)| first);
            self.counters.write_window = Some((first, cycle));
        }
    }
}
