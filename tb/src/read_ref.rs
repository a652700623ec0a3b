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
