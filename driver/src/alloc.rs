//! Allocators for the driver's tables: single entries (QPNs, CQNs, MPT and
//! AH slots, vectors) and contiguous runs (MTT entries).

use crate::error::{Error, Resource, Result};

/// Numbers `first..end`: the most recently given back first, then fresh
/// ones in order. Memory grows with the numbers in use, not with the range
/// (PD numbers span 2^24).
#[derive(Debug)]
pub(crate) struct Pool {
    resource: Resource,
    first: u32,
    end: u32,
    next: u32,
    free: Vec<u32>,
}

impl Pool {
    pub(crate) fn new(resource: Resource, first: u32, end: u32) -> Self {
        Pool { resource, first, end: end.max(first), next: first, free: Vec::new() }
    }

    pub(crate) fn capacity(&self) -> u32 {
        self.end - self.first
    }

    pub(crate) fn take(&mut self) -> Result<u32> {
        if let Some(n) = self.free.pop() {
            return Ok(n);
        }
        if self.next < self.end {
            self.next += 1;
            return Ok(self.next - 1);
        }
        Err(Error::Exhausted { resource: self.resource, capacity: self.capacity() })
    }

    /// Gives `n` back; numbers outside the pool or already free are ignored.
    pub(crate) fn give(&mut self, n: u32) {
        if (self.first..self.next).contains(&n) && !self.free.contains(&n) {
            self.free.push(n);
        }
    }

    pub(crate) fn in_use(&self) -> u32 {
        self.next - self.first - self.free.len() as u32
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
}
