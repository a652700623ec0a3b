//! The host behind a model's DMA ports: what board firmware's PCIe adapter
//! does on a real card, done against the `rnic-host` model.
//!
//! Works on any model with the core's DMA boundary (`m_dma_rd_req`,
//! `s_dma_rd_data`, `m_dma_wr`, `s_dma_wr_cpl`; docs/host.md). Read
//! requests go to the [`PcieModel`], whose completions (256-byte pieces,
//! possibly reordered across tags) come back as address-aligned beats;
//! writes are collected beat by beat and posted; each write's completion is
//! returned once all its pieces landed.
//!
//! It checks the device's side of the contract and panics, naming the
//! request, when it is broken: a request of 0 or more than 4096 bytes or
//! crossing 4 KiB, a read tag outside 0..32 or reused while in flight, a
//! write whose `addr`/`len`/`tag` change between beats, write byte enables
//! that do not match `addr`/`len`, `tlast` off the last beat. An IOMMU fault panics
//! in strict mode (the default of [`HostSpace`]) and becomes an error
//! completion in counting mode.

use crate::axis::Rng;
use crate::model::Model;
use rnic_host::{Completion, HostSpace, PcieConfig, PcieModel};
use rnic_hw::host::DMA_RD_TAGS;
use std::collections::{HashMap, VecDeque};

struct Idx {
    rq_addr: usize,
    rq_len: usize,
    rq_tag: usize,
    rq_valid: usize,
    rq_ready: usize,
    rd_data: usize,
    rd_tag: usize,
    rd_last: usize,
    rd_err: usize,
    rd_valid: usize,
    rd_ready: usize,
    wr_data: usize,
    wr_keep: usize,
    wr_last: usize,
    wr_addr: usize,
    wr_len: usize,
    wr_tag: usize,
    wr_valid: usize,
    wr_ready: usize,
    cpl_tag: usize,
    cpl_err: usize,
    cpl_valid: usize,
}

struct RdBeat {
    tag: u8,
    data: [u32; 16],
    last: bool,
    err: bool,
}

struct WrCollect {
    addr: u64,
    len: usize,
    tag: u8,
    beat: usize,
    bytes: Vec<u8>,
}

/// Traffic seen at the boundary.
#[derive(Debug, Default, Clone, Copy)]
pub struct DmaPortStats {
    pub read_requests: u64,
    pub read_bytes_requested: u64,
    pub write_requests: u64,
    pub write_bytes: u64,
    /// Cycle of the first and latest read request.
    pub first_read: Option<u64>,
    pub last_read_beat: u64,
    pub first_write: Option<u64>,
    pub last_write_landed: u64,
}

/// One device access, as the trace logs it: a read request when taken, a
/// write when its last beat is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaAccess {
    pub cycle: u64,
    pub write: bool,
    pub addr: u64,
    pub len: u64,
}

pub struct DmaPort {
    p: Idx,
    /// Every access in order, while `Some` (off by default: a bench that
    /// wants to see where its cycles go turns it on).
    pub trace: Option<Vec<DmaAccess>>,
    /// Host memory and IOMMU.
    pub host: HostSpace,
    /// The link.
    pub pcie: PcieModel,
    rng: Rng,
    /// Percent of cycles the request and write channels are ready.
    pub ready_pct: u64,
    reads: HashMap<u8, u64>,
    rd_beats: VecDeque<RdBeat>,
    presenting: bool,
    wr: Option<WrCollect>,
    // (tag, pieces not yet landed, any failed)
    wr_inflight: VecDeque<(u8, u64, bool)>,
    wr_cpls: VecDeque<(u8, bool)>,
    pub stats: DmaPortStats,
}

fn words_to_bytes(w: &[u32; 16]) -> [u8; 64] {
    let mut b = [0u8; 64];
    for (i, x) in w.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    b
}

fn bytes_to_words(b: &[u8; 64]) -> [u32; 16] {
    let mut w = [0u32; 16];
    for (i, x) in w.iter_mut().enumerate() {
        *x = u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    }
    w
}

/// Byte enables of beat `k` of an address-aligned transfer of `len` bytes at `addr`.
pub fn aligned_keep(addr: u64, len: usize, k: usize) -> u64 {
    let start = addr - addr % 64 + 64 * k as u64;
    let (lo, hi) = (addr.max(start), (addr + len as u64).min(start + 64));
    if hi <= lo {
        return 0;
    }
    let n = hi - lo;
    let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    mask << (lo - start)
}

/// Beats an address-aligned transfer of `len` bytes at `addr` takes.
pub fn aligned_beats(addr: u64, len: usize) -> usize {
    ((addr % 64) as usize + len).div_ceil(64)
}

impl DmaPort {
    pub fn new<M: Model + ?Sized>(dut: &M, host: HostSpace, pcie: PcieConfig, seed: u64) -> Self {
        let i = |n: &str| dut.port(n);
        let p = Idx {
            rq_addr: i("m_dma_rd_req.addr"),
            rq_len: i("m_dma_rd_req.len"),
            rq_tag: i("m_dma_rd_req.tag"),
            rq_valid: i("m_dma_rd_req.valid"),
            rq_ready: i("m_dma_rd_req.ready"),
            rd_data: i("s_dma_rd_data.tdata"),
            rd_tag: i("s_dma_rd_data.tag"),
            rd_last: i("s_dma_rd_data.tlast"),
            rd_err: i("s_dma_rd_data.err"),
            rd_valid: i("s_dma_rd_data.tvalid"),
            rd_ready: i("s_dma_rd_data.tready"),
            wr_data: i("m_dma_wr.tdata"),
            wr_keep: i("m_dma_wr.tkeep"),
            wr_last: i("m_dma_wr.tlast"),
            wr_addr: i("m_dma_wr.addr"),
            wr_len: i("m_dma_wr.len"),
            wr_tag: i("m_dma_wr.tag"),
            wr_valid: i("m_dma_wr.tvalid"),
            wr_ready: i("m_dma_wr.tready"),
            cpl_tag: i("s_dma_wr_cpl.tag"),
            cpl_err: i("s_dma_wr_cpl.err"),
            cpl_valid: i("s_dma_wr_cpl.valid"),
        };
        DmaPort {
            p,
            trace: None,
            host,
            pcie: PcieModel::new(pcie).expect("valid PCIe configuration"),
            rng: Rng(seed | 1),
            ready_pct: 100,
            reads: HashMap::new(),
            rd_beats: VecDeque::new(),
            presenting: false,
            wr: None,
            wr_inflight: VecDeque::new(),
            wr_cpls: VecDeque::new(),
            stats: DmaPortStats::default(),
        }
    }

    /// Nothing in flight on the boundary or the link.
    pub fn idle(&self) -> bool {
        self.reads.is_empty()
            && self.rd_beats.is_empty()
            && self.wr.is_none()
            && self.wr_inflight.is_empty()
            && self.wr_cpls.is_empty()
            && self.pcie.is_idle()
    }

    /// Drive the inputs for this cycle. Call before `eval`, then [`sample`](Self::sample).
    pub fn drive<M: Model + ?Sized>(&mut self, d: &mut M) {
        let p = &self.p;
        let r = self.rng.chance(self.ready_pct);
        d.set_words(p.rq_ready, &[r as u32]);
        let r = self.rng.chance(self.ready_pct);
        d.set_words(p.wr_ready, &[r as u32]);
        match self.rd_beats.front() {
            Some(b) => {
                d.set_words(p.rd_data, &b.data);
                d.set_words(p.rd_tag, &[b.tag as u32]);
                d.set_words(p.rd_last, &[b.last as u32]);
                d.set_words(p.rd_err, &[b.err as u32]);
                d.set_words(p.rd_valid, &[1]);
                self.presenting = true;
            }
            None => {
                d.set_words(p.rd_valid, &[0]);
                self.presenting = false;
            }
        }
        match self.wr_cpls.pop_front() {
            Some((tag, err)) => {
                d.set_words(p.cpl_tag, &[tag as u32]);
                d.set_words(p.cpl_err, &[err as u32]);
                d.set_words(p.cpl_valid, &[1]);
            }
            None => d.set_words(p.cpl_valid, &[0]),
        }
    }

    /// After `eval` with everyone's inputs driven, before the clock edge:
    /// take what moved at cycle `now` and advance the link.
    pub fn sample<M: Model + ?Sized>(&mut self, d: &M, now: u64) {
        let p = &self.p;
        // read data taken?
        if self.presenting && d.bit_at(p.rd_ready) {
            self.rd_beats.pop_front();
            self.stats.last_read_beat = now;
        }
        // read request
        if d.bit_at(p.rq_valid) && d.bit_at(p.rq_ready) {
            let addr = d.get_at(p.rq_addr);
            let len = d.get_at(p.rq_len);
            let tag = d.get_at(p.rq_tag) as u8;
            assert!((1..=4096).contains(&len), "cycle {now}: DMA read tag {tag} at {addr:#x}: length {len}");
            assert_eq!(
                addr / 4096,
                (addr + len - 1) / 4096,
                "cycle {now}: DMA read tag {tag} at {addr:#x}+{len} crosses 4 KiB"
            );
            assert!(
                usize::from(tag) < DMA_RD_TAGS,
                "cycle {now}: DMA read tag {tag} at {addr:#x}: tag out of range (tags 0..{DMA_RD_TAGS})"
            );
            assert!(self.reads.insert(tag, addr).is_none(), "cycle {now}: DMA read tag {tag} reused while in flight");
            self.pcie.submit_read(tag.into(), addr, len as u32, now).expect("read accepted by the link model");
            self.stats.read_requests += 1;
            self.stats.read_bytes_requested += len;
            self.stats.first_read.get_or_insert(now);
            if let Some(t) = self.trace.as_mut() {
                t.push(DmaAccess { cycle: now, write: false, addr, len });
            }
        }
        // write beat
        if d.bit_at(p.wr_valid) && d.bit_at(p.wr_ready) {
            let addr = d.get_at(p.wr_addr);
            let len = d.get_at(p.wr_len) as usize;
            let tag = d.get_at(p.wr_tag) as u8;
            let w = self.wr.get_or_insert_with(|| {
                assert!((1..=4096).contains(&len), "cycle {now}: DMA write tag {tag} at {addr:#x}: length {len}");
                assert_eq!(
                    addr / 4096,
                    (addr + len as u64 - 1) / 4096,
                    "cycle {now}: DMA write tag {tag} at {addr:#x}+{len} crosses 4 KiB"
                );
                WrCollect { addr, len, tag, beat: 0, bytes: Vec::with_capacity(len) }
            });
            assert_eq!(
                (addr, len, tag),
                (w.addr, w.len, w.tag),
                "cycle {now}: DMA write header changed within a write"
            );
            let mut data = [0u32; 16];
            d.get_words(p.wr_data, &mut data);
            let keep = d.get_at(p.wr_keep);
            let want = aligned_keep(w.addr, w.len, w.beat);
            assert_eq!(keep, want, "cycle {now}: DMA write tag {tag} at {addr:#x}+{len}, beat {}: tkeep {keep:#018x}, expected {want:#018x}", w.beat);
            let bytes = words_to_bytes(&data);
            for (lane, b) in bytes.iter().enumerate() {
                if keep >> lane & 1 == 1 {
                    w.bytes.push(*b);
                }
            }
            w.beat += 1;
            let last = w.beat == aligned_beats(w.addr, w.len);
            assert_eq!(
                d.bit_at(p.wr_last),
                last,
                "cycle {now}: DMA write tag {tag} at {addr:#x}+{len}: tlast on beat {} of {}",
                w.beat - 1,
                aligned_beats(w.addr, w.len)
            );
            if last {
                let w = self.wr.take().unwrap();
                let mps = u64::from(self.pcie.config().max_payload_bytes);
                let pieces = (w.addr + w.len as u64 - 1) / mps - w.addr / mps + 1;
                self.pcie.submit_write(w.addr, &w.bytes, now).expect("write accepted by the link model");
                self.wr_inflight.push_back((w.tag, pieces, false));
                self.stats.write_requests += 1;
                self.stats.write_bytes += w.len as u64;
                self.stats.first_write.get_or_insert(now);
                if let Some(t) = self.trace.as_mut() {
                    t.push(DmaAccess { cycle: now, write: true, addr: w.addr, len: w.len as u64 });
                }
            }
        }
        // the link
        for c in self.pcie.tick(now, &mut self.host) {
            match c {
                Completion::Read(chunk) => {
                    let base = *self.reads.get(&(chunk.tag as u8)).expect("completion for a known tag");
                    let iova = base + u64::from(chunk.offset);
                    let n = aligned_beats(iova, chunk.data.len());
                    let mut at = 0;
                    for k in 0..n {
                        let keep = aligned_keep(iova, chunk.data.len(), k);
                        let mut beat = [0u8; 64];
                        for (lane, slot) in beat.iter_mut().enumerate() {
                            if keep >> lane & 1 == 1 {
                                *slot = chunk.data[at];
                                at += 1;
                            }
                        }
                        self.rd_beats.push_back(RdBeat {
                            tag: chunk.tag as u8,
                            data: bytes_to_words(&beat),
                            last: chunk.last && k + 1 == n,
                            err: false,
                        });
                    }
                    if chunk.last {
                        self.reads.remove(&(chunk.tag as u8));
                    }
                }
                Completion::ReadFailed { tag, .. } => {
                    self.reads.remove(&(tag as u8));
                    self.rd_beats.push_back(RdBeat { tag: tag as u8, data: [0; 16], last: true, err: true });
                }
                Completion::WriteApplied { .. } | Completion::WriteFailed { .. } => {
                    let failed = matches!(c, Completion::WriteFailed { .. });
                    let front = self.wr_inflight.front_mut().expect("a landed write was posted");
                    front.1 -= 1;
                    front.2 |= failed;
                    if front.1 == 0 {
                        let (tag, _, err) = self.wr_inflight.pop_front().unwrap();
                        self.wr_cpls.push_back((tag, err));
                    }
                    self.stats.last_write_landed = now;
                }
            }
        }
    }
}
