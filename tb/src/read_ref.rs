//! A READ WQE's local SGEs and the model's scatter over them: the
//! reference of the READ response walk (`tb/tests/read_walk.rs`) and of
//! the requester's placement (`tb/tests/comp_read.rs`).

use rnic_contract::layouts::{send_wqe, sge};
use rnic_sim::axis::Rng;

/// A send WQE as the walk sees it.
#[derive(Clone, Debug)]
pub struct Wqe {
    pub num: u8,
    pub inline: bool,
    /// (address, length, lkey) of each of the four SGE places.
    pub sges: Vec<(u64, u32, u32)>,
}

impl Wqe {
    /// 0 to 4 SGEs (zero-length and short ones among them); one in four with
    /// NUM_SGE 5..7, one in three INLINE (neither can take READ data).
    pub fn random(rng: &mut Rng) -> Wqe {
        let n = (rng.next() % 5) as usize;
        let sges = (0..4)
            .map(|_| {
                let len = match rng.next() % 6 {
                    0 => 0,
                    1 => 1 + rng.next() as u32 % 16,
                    _ => rng.next() as u32 % 6000,
                };
                (rng.next() ^ (rng.next() << 32), len, rng.next() as u32)
            })
            .collect();
        let num = if rng.chance(4) { 5 + (rng.next() % 3) as u8 } else { n as u8 };
        Wqe { num, inline: rng.chance(3), sges }
    }

    /// The WQE's 128 bytes (`layouts::send_wqe`).
    pub fn bytes(&self) -> Vec<u8> {
        let mut e = vec![0u8; send_wqe::SIZE];
        send_wqe::NUM_SGE.set(&mut e, self.num).unwrap();
        send_wqe::INLINE.set(&mut e, self.inline).unwrap();
        for (k, s) in self.sges.iter().enumerate() {
            let r = send_wqe::sge_range(k);
            sge::ADDR.set(&mut e[r.clone()], s.0).unwrap();
            sge::LEN.set(&mut e[r.clone()], s.1).unwrap();
            sge::LKEY.set(&mut e[r], s.2).unwrap();
        }
        e
    }
}

/// The reference: the model's scatter of `plen` bytes at `offset`.
pub fn scatter(w: &Wqe, dma_err: bool, offset: u32, plen: u16) -> Outcome {
    if dma_err || w.inline || w.num > 4 {
        return Outcome { reqs: vec![], len_err: false, bad: true };
    }
    let (mut skip, mut rest) = (offset as u64, plen as u64);
    let mut reqs = vec![];
    for &(addr, len, key) in w.sges.iter().take(w.num as usize) {
        if rest == 0 {
            break;
        }
        if skip >= len as u64 {
            skip -= len as u64;
            continue;
        }
        let take = rest.min(len as u64 - skip);
        rest -= take;
        reqs.push((addr.wrapping_add(skip), take as u32, key, rest == 0));
        skip = 0;
    }
    Outcome { reqs, len_err: rest > 0, bad: false }
}

/// What a walk gives: its requests {VA, length, lkey, last}, then (length
/// error, bad).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub reqs: Vec<(u64, u32, u32, bool)>,
    pub len_err: bool,
    pub bad: bool,
}

/// The DMA read answers a WQE-reading block's bench owes it: beats due at
/// a cycle (data words, `tuser` error), offered on the block's `s_rd` in
/// order, one per cycle once due.
#[derive(Default)]
pub struct WqeReads {
    beats: std::collections::VecDeque<(u64, Vec<u32>, bool)>,
}

impl WqeReads {
    /// Queues the answer to a read of `bytes` (64 a beat) taken at `now`,
    /// its first beat due `latency` cycles later.
    pub fn answer(&mut self, now: u64, latency: u64, bytes: &[u8], err: bool) {
        for (k, beat) in bytes.chunks(64).enumerate() {
            let words = beat.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
            self.beats.push_back((now + latency + k as u64, words, err));
        }
    }

    /// Drives `s_rd` for cycle `now`: the head beat if it is due (it is
    /// taken: `s_rd.tready` is 1 in these blocks), else `tvalid` 0. Call
    /// before `settle`; then [`WqeReads::taken`] with what it returned.
    pub fn offer<M: rnic_sim::Model>(&self, dut: &mut M, now: u64) -> bool {
        let due = self.beats.front().filter(|b| b.0 <= now);
        if let Some((_, data, err)) = due {
            let i = dut.port("s_rd.tdata");
            dut.set_words(i, data);
            dut.set("s_rd.tuser", *err as u64);
        }
        dut.set("s_rd.tvalid", due.is_some() as u64);
        due.is_some()
    }

    /// Retires the beat [`WqeReads::offer`] offered, if it did.
    pub fn taken(&mut self, offered: bool) {
        if offered {
            self.beats.pop_front();
        }
    }

    /// No answer owed.
    pub fn is_empty(&self) -> bool {
        self.beats.is_empty()
    }
}
