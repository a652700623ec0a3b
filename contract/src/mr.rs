//! Memory regions: how keys are drawn, and the check-and-translate rule every
//! local SGE and every incoming RDMA or atomic goes through. The reference
//! the hardware (`hw/src/mr/`) is tested against, and what the driver uses to
//! allocate keys (docs/memory.md).
//!
//! # Keys
//!
//! A key is 32 bits: the MPT entry's index in the low T bits (the table has
//! 2^T entries, T = `mpt_log_entries`, at most [`mpt::MAX_LOG_ENTRIES`]) and
//! a tag in the 32 - T bits above. [`draw_key`] picks the entry uniformly
//! among the free ones and the tag uniformly among the 2^(32-T) values, both
//! from the random source it is given (the OS CSPRNG, `getrandom`, in the
//! driver). The MPT entry stores the whole key and the device compares all
//! 32 bits, so a key is valid only when index and tag both match.
//!
//! * A blind guess hits one given region with probability 2^-32 (its index:
//!   1 in 2^T, its tag: 1 in 2^(32-T)), and some region of the N registered
//!   (in the QP's PD, with the right access) with probability N / 2^32 at
//!   most: at most 2^-24 while N <= 256, 2^-20 at 4,096 regions, 2^-16 at
//!   65,536. No 32-bit key can do better; every failed guess also puts the
//!   attacker's QP into the error state (NAK, remote access error).
//! * Keys seen earlier tell nothing about the next one: slot and tag are
//!   fresh independent draws, not a counter or a generator's next state.
//!   The entropy of a new key is (32 - T) + log2(free entries) bits: 32 bits
//!   in an empty table, 24 + log2(free) bits at T = 24.
//! * A reused entry gets a fresh tag that differs from its previous key's,
//!   so that key fails from then on.

use crate::codes::WcStatus;
use crate::layouts::{mpt, mtt};
use crate::Error;

/// A uniform draw in `0..n` (n >= 1) from a source of uniform 32-bit words,
/// without modulo bias (rejection of the incomplete last block).
pub fn uniform_below(n: u32, rng: &mut impl FnMut() -> u32) -> u32 {
    assert!(n > 0, "uniform_below(0)");
    let n64 = n as u64;
    let limit = (1u64 << 32) - (1u64 << 32) % n64;
    loop {
        let x = rng() as u64;
        if x < limit {
            return (x % n64) as u32;
        }
    }
}

/// A key for a new region: a slot drawn uniformly from `free` (the free MPT
/// entries, in any order) and a tag drawn uniformly from the 2^(32 - T)
/// values, redrawn while it equals the tag of `previous(slot)` (the key the
/// slot held last, if any). Returns the position in `free` of the chosen
/// slot (the driver removes it) and the key; `None` when nothing is free.
/// `rng` yields uniform 32-bit words: `getrandom` in the driver.
pub fn draw_key(
    free: &[u32],
    previous: impl Fn(u32) -> Option<u32>,
    log_entries: u32,
    rng: &mut impl FnMut() -> u32,
) -> Option<(usize, u32)> {
    assert!(log_entries <= mpt::MAX_LOG_ENTRIES, "an MPT of 2^{log_entries} entries leaves too few tag bits");
    if free.is_empty() {
        return None;
    }
    let pos = uniform_below(free.len() as u32, rng) as usize;
    let slot = free[pos];
    let tag_bits = 32 - log_entries;
    let old_tag = previous(slot).map(|k| mpt::key_tag(k, log_entries));
    loop {
        let tag = if tag_bits == 32 { rng() } else { rng() & ((1u32 << tag_bits) - 1) };
        if Some(tag) != old_tag {
            return Some((pos, mpt::key(slot, tag, log_entries)));
        }
    }
}

/// What an access needs of a region. Local accesses check an lkey from a
/// WQE's SGE; remote ones an rkey from a peer's RETH or AtomicETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Access {
    /// The device reads local memory (send and RDMA WRITE payload): always
    /// allowed by a valid key.
    LocalRead = 0,
    /// The device writes local memory (receive buffers, READ response and
    /// atomic result destinations): `LOCAL_WRITE`.
    LocalWrite = 1,
    /// A peer's RDMA READ: `REMOTE_READ`.
    RemoteRead = 2,
    /// A peer's RDMA WRITE: `REMOTE_WRITE`.
    RemoteWrite = 3,
    /// A peer's atomic: `REMOTE_ATOMIC`.
    RemoteAtomic = 4,
}

impl Access {
    /// Every access, in code order.
    pub const ALL: [Access; 5] =
        [Access::LocalRead, Access::LocalWrite, Access::RemoteRead, Access::RemoteWrite, Access::RemoteAtomic];
    /// Bits of the hardware's code.
    pub const BITS: u32 = 3;
    /// The key comes from a peer.
    pub const fn is_remote(self) -> bool {
        self as u8 >= Access::RemoteRead as u8
    }
    /// The access for a hardware code.
    pub const fn from_raw(raw: u64) -> Option<Access> {
        match raw {
            0 => Some(Access::LocalRead),
            1 => Some(Access::LocalWrite),
            2 => Some(Access::RemoteRead),
            3 => Some(Access::RemoteWrite),
            4 => Some(Access::RemoteAtomic),
            _ => None,
        }
    }
}

/// Why a check failed, in the order the checks run (the first failing one
/// is reported). The hardware reports the same codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MrError {
    /// The entry is not VALID (never registered, or deregistered), or names
    /// a page size the device does not translate.
    Invalid = 1,
    /// The key differs from the entry's KEY (a wrong tag, or an index the
    /// entry does not have: a stale or guessed key).
    KeyMismatch = 2,
    /// The entry's PD is not the QP's.
    PdMismatch = 3,
    /// The entry does not grant the access.
    AccessDenied = 4,
    /// [VA, VA + len) is not inside [VA_BASE, VA_BASE + LENGTH).
    OutOfBounds = 5,
    /// The MTT entry of a page the access reaches is not VALID (found while
    /// translating, after the checks above passed: see [`translate`]).
    MttInvalid = 6,
}

/// Bits of the hardware's verdict: 0 for success, else an [`MrError`] code.
pub const VERDICT_BITS: u32 = 3;

/// The AETH NAK code of a remote access error (`rnic_proto::NakCode::RemoteAccessError`).
pub const NAK_REMOTE_ACCESS_ERROR: u8 = 2;

/// What the transport does with a failed check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MrFault {
    /// A local SGE failed: the WQE completes with this status (the QP goes
    /// to the error state), and no DMA is issued.
    Local(WcStatus),
    /// A peer's rkey failed: the responder answers NAK with `nak_code`
    /// (its QP goes to the error state) and the requester's WQE completes
    /// with `requester_status`.
    Remote {
        /// The AETH NAK code.
        nak_code: u8,
        /// The status of the requester's completion.
        requester_status: WcStatus,
    },
}

impl MrError {
    /// Every error, in check order.
    pub const ALL: [MrError; 6] = [
        MrError::Invalid,
        MrError::KeyMismatch,
        MrError::PdMismatch,
        MrError::AccessDenied,
        MrError::OutOfBounds,
        MrError::MttInvalid,
    ];
    /// The error for a hardware verdict (`None` for 0, success, and unused codes).
    pub const fn from_verdict(v: u64) -> Option<MrError> {
        match v {
            1 => Some(MrError::Invalid),
            2 => Some(MrError::KeyMismatch),
            3 => Some(MrError::PdMismatch),
            4 => Some(MrError::AccessDenied),
            5 => Some(MrError::OutOfBounds),
            6 => Some(MrError::MttInvalid),
            _ => None,
        }
    }
    /// What the transport does: every error of a local access is
    /// `LOC_PROT_ERR`, every error of a remote one a remote access error.
    pub const fn fault(self, access: Access) -> MrFault {
        if access.is_remote() {
            MrFault::Remote { nak_code: NAK_REMOTE_ACCESS_ERROR, requester_status: WcStatus::RemAccessErr }
        } else {
            MrFault::Local(WcStatus::LocProtErr)
        }
    }
}

/// One access to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MrRequest {
    /// The lkey or rkey.
    pub key: u32,
    /// The QP's protection domain.
    pub pd: u32,
    /// First virtual address.
    pub va: u64,
    /// Bytes.
    pub len: u32,
    /// What it does.
    pub access: Access,
}

/// An `mpt` entry, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[allow(missing_docs)]
pub struct Mpt {
    pub va_base: u64,
    pub length: u64,
    pub key: u32,
    pub pd: u32,
    pub valid: bool,
    pub local_write: bool,
    pub remote_write: bool,
    pub remote_read: bool,
    pub remote_atomic: bool,
    pub log_page_size: u8,
    pub mtt_base: u32,
}

impl Mpt {
    /// Decode an entry (at least `mpt::SIZE` bytes).
    pub fn read(e: &[u8]) -> Result<Mpt, Error> {
        Ok(Mpt {
            va_base: mpt::VA_BASE.get(e)?,
            length: mpt::LENGTH.get(e)?,
            key: mpt::KEY.get(e)?,
            pd: mpt::PD.get(e)?,
            valid: mpt::VALID.get(e)?,
            local_write: mpt::LOCAL_WRITE.get(e)?,
            remote_write: mpt::REMOTE_WRITE.get(e)?,
            remote_read: mpt::REMOTE_READ.get(e)?,
            remote_atomic: mpt::REMOTE_ATOMIC.get(e)?,
            log_page_size: mpt::LOG_PAGE_SIZE.get(e)?,
            mtt_base: mpt::MTT_BASE.get(e)?,
        })
    }
    /// Encode the entry into `e` (at least `mpt::SIZE` bytes); other bytes
    /// are left as they are.
    pub fn write(&self, e: &mut [u8]) -> Result<(), Error> {
        mpt::VA_BASE.set(e, self.va_base)?;
        mpt::LENGTH.set(e, self.length)?;
        mpt::KEY.set(e, self.key)?;
        mpt::PD.set(e, self.pd)?;
        mpt::VALID.set(e, self.valid)?;
        mpt::LOCAL_WRITE.set(e, self.local_write)?;
        mpt::REMOTE_WRITE.set(e, self.remote_write)?;
        mpt::REMOTE_READ.set(e, self.remote_read)?;
        mpt::REMOTE_ATOMIC.set(e, self.remote_atomic)?;
        mpt::LOG_PAGE_SIZE.set(e, self.log_page_size)?;
        mpt::MTT_BASE.set(e, self.mtt_base)
    }
    /// The entry grants `access`.
    pub const fn grants(&self, access: Access) -> bool {
        match access {
            Access::LocalRead => true,
            Access::LocalWrite => self.local_write,
            Access::RemoteRead => self.remote_read,
            Access::RemoteWrite => self.remote_write,
            Access::RemoteAtomic => self.remote_atomic,
        }
    }
}

/// MTT entries per 64-byte line: the device reads the MTT by lines.
pub const MTT_PER_LINE: u32 = 8;

/// The check, then the translation. A zero-length access passes without any
/// check and has no pieces (IBTA C9-88 for RDMA READ and WRITE, as in rxe's
/// `check_rkey`: "a zero-byte read or write op is not required to set an
/// addr or rkey"; the device applies it to every access: nothing moves, so
/// there is nothing to protect). Otherwise, in order: VALID and a supported
/// page size, the whole key, the PD, the access right, the bounds
/// ([`mpt::contains`]). On success the pieces of [VA, VA + len) cut at page
/// boundaries: (IOVA, length), the IOVA of page `p` of the region being MTT
/// entry `MTT_BASE + p` (mod 2^32) with its bits below the page size
/// ignored, plus the offset in the page. `mtt(e)` reads MTT entry `e`.
pub fn mr_check<F: Fn(u32) -> u64>(req: &MrRequest, e: &Mpt, mtt: F) -> Result<Pieces<F>, MrError> {
    let s = e.log_page_size as u32;
    if req.len == 0 {
        return Ok(Pieces { mtt, entry: 0, offset: 0, remaining: 0, log_page_size: 12 });
    }
    if !e.valid || !contains_page_size(s) {
        return Err(MrError::Invalid);
    }
    if req.key != e.key {
        return Err(MrError::KeyMismatch);
    }
    if req.pd != e.pd {
        return Err(MrError::PdMismatch);
    }
    if !e.grants(req.access) {
        return Err(MrError::AccessDenied);
    }
    if !mpt::contains(req.va, req.len as u64, e.va_base, e.length) {
        return Err(MrError::OutOfBounds);
    }
    let (page, offset) = match mpt::locate(req.va, e.va_base, s) {
        Some(x) => x,
        None => return Err(MrError::OutOfBounds),
    };
    Ok(Pieces { mtt, entry: e.mtt_base.wrapping_add(page as u32), offset, remaining: req.len as u64, log_page_size: s })
}

const fn contains_page_size(s: u32) -> bool {
    let mut i = 0;
    while i < mpt::LOG_PAGE_SIZES.len() {
        if mpt::LOG_PAGE_SIZES[i] == s {
            return true;
        }
        i += 1;
    }
    false
}

/// The (IOVA, length) pieces of a checked access, in address order; each
/// lies in one page.
#[derive(Debug, Clone)]
pub struct Pieces<F> {
    mtt: F,
    entry: u32,
    offset: u64,
    remaining: u64,
    log_page_size: u32,
}

impl<F: Fn(u32) -> u64> Iterator for Pieces<F> {
    type Item = (u64, u32);
    fn next(&mut self) -> Option<(u64, u32)> {
        if self.remaining == 0 {
            return None;
        }
        let page = 1u64 << self.log_page_size;
        let len = self.remaining.min(page - self.offset);
        let iova = ((self.mtt)(self.entry) & !(page - 1)) | self.offset;
        self.entry = self.entry.wrapping_add(1);
        self.offset = 0;
        self.remaining -= len;
        Some((iova, len as u32))
    }
}

/// What the device answers to an access, given the raw MTT entries
/// (`mtt_raw(e)`: the 8 bytes of entry `e` as a little-endian number, ADDR
/// and VALID): [`mr_check`] over the entries' ADDRs, each piece checked for
/// its entry's VALID. Yields a failed check's error alone; otherwise the
/// pieces in address order up to the first page whose entry is not VALID,
/// then [`MrError::MttInvalid`], and nothing after it: no page from that
/// one on is translated. (Pieces of the valid pages before it were
/// translated already; they lie in pages of the region the checks passed.)
pub fn translate<F: Fn(u32) -> u64>(req: &MrRequest, e: &Mpt, mtt_raw: F) -> Translate<F> {
    match mr_check(req, e, mtt_raw) {
        Ok(p) => Translate { pieces: Some(p), error: None },
        Err(err) => Translate { pieces: None, error: Some(err) },
    }
}

/// The device's answer to one access, beat by beat ([`translate`]): the
/// pieces (IOVA, length), then the error, if any.
#[derive(Debug, Clone)]
pub struct Translate<F> {
    pieces: Option<Pieces<F>>,
    error: Option<MrError>,
}

impl<F: Fn(u32) -> u64> Iterator for Translate<F> {
    type Item = Result<(u64, u32), MrError>;
    fn next(&mut self) -> Option<Self::Item> {
        // the page size keeps VALID (bit 63) in a piece's address
        const _: () = assert!(mtt::VALID.pos() == 63 && mtt::ADDR.width == 63);
        match self.pieces.as_mut().and_then(|p| p.next()) {
            Some((raw, len)) if raw >> mtt::VALID.pos() & 1 == 1 => Some(Ok((raw & ((1 << mtt::ADDR.width) - 1), len))),
            Some(_) => {
                self.pieces = None;
                Some(Err(MrError::MttInvalid))
            }
            None => {
                self.pieces = None;
                self.error.take().map(Err)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn region() -> Mpt {
        Mpt {
            va_base: 0x10_0800,
            length: 4 << 12,
            key: 0x1234_5605,
            pd: 1,
            valid: true,
            local_write: true,
            remote_write: true,
            remote_read: true,
            remote_atomic: true,
            log_page_size: 12,
            mtt_base: 40,
        }
    }

    fn raw(e: u32, bad: u32) -> u64 {
        let a = (0x7000_0000_0000 + ((e as u64) << 12)) | 0xfff;
        a | ((e != bad) as u64) << mtt::VALID.pos()
    }

    fn run(r: &MrRequest, m: &Mpt, f: impl Fn(u32) -> u64) -> Vec<Result<(u64, u32), MrError>> {
        translate(r, m, f).collect()
    }

    #[test]
    fn translate_stops_at_the_first_invalid_entry() {
        let m = region();
        let r = MrRequest { key: m.key, pd: 1, va: m.va_base, len: 3 << 12, access: Access::RemoteWrite };
        let all = run(&r, &m, |e| raw(e, u32::MAX));
        assert_eq!(all.len(), 4);
        assert_eq!(all[0], Ok((0x7000_0000_0000 + (40 << 12) + 0x800, 0x800)));
        assert!(all.iter().all(|p| p.unwrap().0 >> 63 == 0), "VALID is no address bit");
        let t = run(&r, &m, |e| raw(e, 42));
        assert_eq!(t, [all[0], all[1], Err(MrError::MttInvalid)]);
        assert_eq!(run(&r, &m, |e| raw(e, 40)), [Err(MrError::MttInvalid)]);
        // a failed check never looks at the MTT
        let bad = MrRequest { pd: 2, ..r };
        assert_eq!(run(&bad, &m, |_| panic!("MTT read")), [Err(MrError::PdMismatch)]);
        // an entry of zeros (never written) is invalid; zero length passes without pieces
        assert_eq!(run(&r, &m, |_| 0), [Err(MrError::MttInvalid)]);
        assert_eq!(run(&MrRequest { len: 0, ..r }, &m, |_| 0), []);
    }
}
