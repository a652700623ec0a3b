//! Sparse host memory: 4 KiB pages allocated on first write, so a test can
//! place rings and buffers anywhere in a 64-bit space without allocating it.

use std::collections::HashMap;

/// Bytes per page.
pub const PAGE_SIZE: usize = 4096;
const PAGE_SHIFT: u32 = 12;
const PAGE_MASK: u64 = PAGE_SIZE as u64 - 1;

/// Byte-addressed host physical memory; untouched bytes read as zero.
#[derive(Debug, Default, Clone)]
pub struct HostMemory {
    pages: HashMap<u64, Box<[u8; PAGE_SIZE]>>,
}

/// Splits `[addr, addr + len)` into (page number, offset in page, bytes)
/// pieces that each stay inside one page.
fn page_pieces(addr: u64, len: usize) -> impl Iterator<Item = (u64, usize, usize)> {
    let end = addr
        .checked_add(len as u64)
        .unwrap_or_else(|| panic!("host memory access of {len} bytes at {addr:#x} wraps the address space"));
    let mut cur = addr;
    std::iter::from_fn(move || {
        if cur >= end {
            return None;
        }
        let offset = (cur & PAGE_MASK) as usize;
        let n = (PAGE_SIZE - offset).min((end - cur) as usize);
        let piece = (cur >> PAGE_SHIFT, offset, n);
        cur += n as u64;
        Some(piece)
    })
}

impl HostMemory {
    /// Empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Copies `buf.len()` bytes from `addr`. Untouched pages read as zero
    /// without being allocated.
    ///
    /// Panics if the range wraps past 2^64, which no real access can do.
    pub fn read(&self, addr: u64, buf: &mut [u8]) {
        let mut done = 0;
        for (page, offset, n) in page_pieces(addr, buf.len()) {
            let dst = &mut buf[done..done + n];
            match self.pages.get(&page) {
                Some(p) => dst.copy_from_slice(&p[offset..offset + n]),
                None => dst.fill(0),
            }
            done += n;
        }
    }

    /// Reads `len` bytes from `addr` into a new vector.
    pub fn read_vec(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        self.read(addr, &mut v);
        v
    }

    /// Writes `data` at `addr`, allocating pages as needed. A write that
    /// covers a whole page replaces it without zero-filling first.
    ///
    /// Panics if the range wraps past 2^64.
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        let mut done = 0;
        for (page, offset, n) in page_pieces(addr, data.len()) {
            let src = &data[done..done + n];
            if n == PAGE_SIZE {
                let mut whole = Box::new([0u8; PAGE_SIZE]);
                whole.copy_from_slice(src);
                self.pages.insert(page, whole);
            } else {
                let p = self.pages.entry(page).or_insert_with(|| Box::new([0; PAGE_SIZE]));
                p[offset..offset + n].copy_from_slice(src);
            }
            done += n;
        }
    }

    /// Little-endian u32 at `addr` (descriptors and registers are little-endian).
    pub fn read_u32(&self, addr: u64) -> u32 {
        let mut b = [0; 4];
        self.read(addr, &mut b);
        u32::from_le_bytes(b)
    }

    /// Little-endian u64 at `addr`.
    pub fn read_u64(&self, addr: u64) -> u64 {
        let mut b = [0; 8];
        self.read(addr, &mut b);
        u64::from_le_bytes(b)
    }

    /// Writes `value` little-endian at `addr`.
    pub fn write_u32(&mut self, addr: u64, value: u32) {
        self.write(addr, &value.to_le_bytes());
    }

    /// Writes `value` little-endian at `addr`.
    pub fn write_u64(&mut self, addr: u64, value: u64) {
        self.write(addr, &value.to_le_bytes());
    }

    /// Pages allocated so far: a measure of how much memory a test touched.
    pub fn resident_pages(&self) -> usize {
        self.pages.len()
    }
}
