//! Allocators for the driver's tables: single entries (QPNs, CQNs, AH
//! slots, vectors), MPT slots with their keys, and contiguous runs (MTT
//! entries).

use crate::error::{Error, Resource, Result};
use rnic_contract::mr::draw_key;
use std::collections::HashMap;

/// One bit per number, grown on demand: `contains`, `insert` and `remove`
/// in O(1), so giving a number back checks for a double give without a scan.
#[derive(Debug, Default)]
pub(crate) struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// A set that holds `0..len` without growing.
    pub(crate) fn with_len(len: u32) -> Self {
        BitSet { words: vec![0; (len as usize).div_ceil(64)] }
    }

    pub(crate) fn contains(&self, n: u32) -> bool {
        self.words.get(n as usize / 64).is_some_and(|w| w & (1 << (n % 64)) != 0)
    }

    /// Adds `n`; false if it was already there.
    pub(crate) fn insert(&mut self, n: u32) -> bool {
        let i = n as usize / 64;
        if i >= self.words.len() {
            self.words.resize(i + 1, 0);
        }
        let was = self.words[i] & (1 << (n % 64)) != 0;
        self.words[i] |= 1 << (n % 64);
        !was
    }

    /// Removes `n`; false if it was not there.
    pub(crate) fn remove(&mut self, n: u32) -> bool {
        let was = self.contains(n);
        if was {
            self.words[n as usize / 64] &= !(1 << (n % 64));
        }
        was
    }
}

/// Numbers `first..end`: the most recently given back first, then fresh
/// ones in order. Memory grows with the highest number handed out (one bit
/// each for the double-give check), not with the range (PD numbers span
/// 2^24).
#[derive(Debug)]
pub(crate) struct Pool {
    resource: Resource,
    first: u32,
    end: u32,
    next: u32,
    free: Vec<u32>,
    /// `n - first` for every `n` in `free`.
    is_free: BitSet,
}

impl Pool {
    pub(crate) fn new(resource: Resource, first: u32, end: u32) -> Self {
        Pool { resource, first, end: end.max(first), next: first, free: Vec::new(), is_free: BitSet::default() }
    }

    pub(crate) fn capacity(&self) -> u32 {
        self.end - self.first
    }

    /// The PD numbers: 1 up to the width of a context's PD field (0 is no PD).
    pub(crate) fn pds() -> Self {
        Pool::new(Resource::Pd, 1, 1 << rnic_contract::layouts::qpc::PD.width)
    }

    pub(crate) fn take(&mut self) -> Result<u32> {
        if let Some(n) = self.free.pop() {
            self.is_free.remove(n - self.first);
            return Ok(n);
        }
        if self.next < self.end {
            self.next += 1;
            return Ok(self.next - 1);
        }
        Err(Error::Exhausted { resource: self.resource, capacity: self.capacity() })
    }

    /// Gives `n` back; numbers outside the pool or already free are ignored
    /// (O(1): a bit per number).
    pub(crate) fn give(&mut self, n: u32) {
        if (self.first..self.next).contains(&n) && self.is_free.insert(n - self.first) {
            self.free.push(n);
        }
    }

    pub(crate) fn in_use(&self) -> u32 {
        self.next - self.first - self.free.len() as u32
    }
}

/// MPT slots and their keys: a slot drawn at random among the free ones and
/// a fresh random tag, different from the slot's previous one
/// (`rnic_contract::mr::draw_key`), so a peer learns nothing about the next
/// key from the ones it has seen (docs/memory.md states the entropy).
#[derive(Debug)]
pub(crate) struct KeySlots {
    log: u32,
    free: Vec<u32>,
    /// The slots in `free`.
    is_free: BitSet,
    /// The last key of every slot ever used.
    last: HashMap<u32, u32>,
}

impl KeySlots {
    pub(crate) fn new(log: u32) -> Self {
        let mut is_free = BitSet::with_len(1 << log);
        for n in 0..1u32 << log {
            is_free.insert(n);
        }
        KeySlots { log, free: (0..1u32 << log).collect(), is_free, last: HashMap::new() }
    }

    /// A free slot and its new key, from `rng` (the OS CSPRNG in the driver).
    pub(crate) fn take(&mut self, rng: &mut impl FnMut() -> u32) -> Result<(u32, u32)> {
        let (pos, key) = draw_key(&self.free, |s| self.last.get(&s).copied(), self.log, rng)
            .ok_or(Error::Exhausted { resource: Resource::Mpt, capacity: 1 << self.log })?;
        let slot = self.free.swap_remove(pos);
        self.is_free.remove(slot);
        self.last.insert(slot, key);
        Ok((slot, key))
    }

    /// Gives slot `n` back; slots outside the table or already free are
    /// ignored (O(1): a bit per slot).
    pub(crate) fn give(&mut self, n: u32) {
        if n < 1 << self.log && self.is_free.insert(n) {
            self.free.push(n);
        }
    }

    pub(crate) fn in_use(&self) -> u32 {
        (1u32 << self.log) - self.free.len() as u32
    }

    /// The slot a key names.
    #[cfg(test)]
    pub(crate) fn index(&self, key: u32) -> u32 {
        rnic_contract::layouts::mpt::key_index(key, self.log)
    }
}

/// Contiguous runs of `0..size`, first fit.
#[derive(Debug)]
pub(crate) struct Runs {
    resource: Resource,
    size: u32,
    /// Free runs (start, len), sorted, never adjacent.
    free: Vec<(u32, u32)>,
}

impl Runs {
    pub(crate) fn new(resource: Resource, size: u32) -> Self {
        Runs { resource, size, free: if size > 0 { vec![(0, size)] } else { vec![] } }
    }

    pub(crate) fn take(&mut self, len: u32) -> Result<u32> {
        let i = self
            .free
            .iter()
            .position(|&(_, l)| l >= len)
            .ok_or(Error::Exhausted { resource: self.resource, capacity: self.size })?;
        let (start, l) = self.free[i];
        if l == len {
            self.free.remove(i);
        } else {
            self.free[i] = (start + len, l - len);
        }
        Ok(start)
    }

    pub(crate) fn give(&mut self, start: u32, len: u32) {
        let i = self.free.partition_point(|&(s, _)| s < start);
        self.free.insert(i, (start, len));
        // merge with the next, then with the previous
        if i + 1 < self.free.len() && self.free[i].0 + self.free[i].1 == self.free[i + 1].0 {
            self.free[i].1 += self.free[i + 1].1;
            self.free.remove(i + 1);
        }
        if i > 0 && self.free[i - 1].0 + self.free[i - 1].1 == self.free[i].0 {
            self.free[i - 1].1 += self.free[i].1;
            self.free.remove(i);
        }
    }

    pub(crate) fn capacity(&self) -> u32 {
        self.size
    }

    pub(crate) fn free_total(&self) -> u32 {
        self.free.iter().map(|&(_, l)| l).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_and_runs_reuse_what_is_given_back() {
        let mut p = Pool::new(Resource::Qp, 2, 5);
        assert_eq!((p.take(), p.take(), p.take()), (Ok(2), Ok(3), Ok(4)));
        assert_eq!(p.take(), Err(Error::Exhausted { resource: Resource::Qp, capacity: 3 }));
        p.give(3);
        assert_eq!(p.take(), Ok(3));
        let mut r = Runs::new(Resource::Mtt, 16);
        let a = r.take(4).unwrap();
        let b = r.take(8).unwrap();
        assert_eq!((a, b), (0, 4));
        assert!(r.take(5).is_err());
        r.give(a, 4);
        r.give(b, 8);
        assert_eq!(r.free_total(), 16);
        assert_eq!(r.take(16), Ok(0));
    }

    #[test]
    fn key_slots_draw_random_slots_and_fresh_tags() {
        let mut x = 0x9E37_79B9u32;
        let mut rng = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut k = KeySlots::new(4);
        let taken: Vec<(u32, u32)> = (0..16).map(|_| k.take(&mut rng).unwrap()).collect();
        assert_eq!(k.take(&mut rng), Err(Error::Exhausted { resource: Resource::Mpt, capacity: 16 }));
        let mut slots: Vec<u32> = taken.iter().map(|t| t.0).collect();
        assert_ne!(slots, (0..16).collect::<Vec<_>>(), "slots are not handed out in order");
        slots.sort();
        assert_eq!(slots, (0..16).collect::<Vec<_>>());
        for &(slot, key) in &taken {
            assert_eq!(k.index(key), slot);
        }
        let (slot, key) = taken[3];
        k.give(slot);
        let (again, key2) = k.take(&mut rng).unwrap();
        assert_eq!(again, slot);
        assert_ne!(key2, key, "a reused slot gets a new tag");
    }

    #[test]
    fn a_double_give_is_ignored() {
        let mut p = Pool::new(Resource::Pd, 1, 1 << 24);
        let (a, b) = (p.take().unwrap(), p.take().unwrap());
        assert_eq!((a, b, p.in_use()), (1, 2, 2));
        p.give(a);
        p.give(a);
        assert_eq!(p.in_use(), 1, "the second give of {a} counted");
        p.give(b + 5); // never handed out
        p.give(0); // below the pool
        assert_eq!(p.in_use(), 1);
        assert_eq!(p.take(), Ok(a));
        assert_eq!(p.take(), Ok(3), "{a} was handed out twice");
        p.give(a);
        assert_eq!(p.take(), Ok(a), "a number taken again can be given back again");

        let mut rng = {
            let mut x = 1u32;
            move || {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                x
            }
        };
        let mut k = KeySlots::new(2);
        let taken: Vec<u32> = (0..4).map(|_| k.take(&mut rng).unwrap().0).collect();
        k.give(taken[1]);
        k.give(taken[1]);
        k.give(4); // outside the table
        assert_eq!(k.in_use(), 3);
        assert_eq!(k.take(&mut rng).unwrap().0, taken[1]);
        assert_eq!(k.take(&mut rng), Err(Error::Exhausted { resource: Resource::Mpt, capacity: 4 }));
    }

    #[test]
    fn pd_numbers_run_out_after_the_fields_width() {
        // The context's pool of PD numbers (alloc_pd's): 2^24 - 1 numbers,
        // then Exhausted; a number given back is the next one taken.
        let mut p = Pool::pds();
        let capacity = (1u32 << rnic_contract::layouts::qpc::PD.width) - 1;
        for n in 1..=capacity {
            assert_eq!(p.take(), Ok(n));
        }
        assert_eq!(p.take(), Err(Error::Exhausted { resource: Resource::Pd, capacity }));
        p.give(77);
        assert_eq!(p.take(), Ok(77));
    }

    #[test]
    fn bitset_grows_and_answers_in_place() {
        let mut s = BitSet::default();
        assert!(!s.contains(1000));
        assert!(s.insert(1000));
        assert!(!s.insert(1000));
        assert!(s.contains(1000) && !s.contains(999) && !s.contains(1001));
        assert!(s.remove(1000));
        assert!(!s.remove(1000));
        assert!(!s.contains(1000));
        let t = BitSet::with_len(65);
        assert_eq!(t.words.len(), 2);
    }
}
