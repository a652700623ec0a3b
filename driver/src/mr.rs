//! Memory regions (`ibv_reg_mr`, `ibv_dereg_mr`).
//!
//! Registering draws a free MPT slot at random and gives it a fresh key (the
//! slot's index in the low bits, a random tag above that differs from the
//! slot's previous one: `rnic_contract::mr::draw_key` over the OS CSPRNG,
//! docs/memory.md), writes one MTT
//! entry per 4 KiB page and the MPT entry into the host-memory tables, and
//! on a device with `TRANSLATION` issues one context Load over its MTT
//! entries (`ctx_count` spans them: the device renews each cache line they
//! fall in) and one of the MPT entry. The device caches MTT lines of
//! `rnic_contract::mr::MTT_PER_LINE` entries, and entries are given first
//! fit, so a line can hold another region's entries and free ones: cached
//! for that region, it would hand a new region's accesses the free entries
//! as they were
//! (`two_nics::a_new_region_sharing_a_cached_mtt_line_is_translated_from_its_own_entries`).
//! Deregistering clears the VALID bits of the entry and of the region's MTT
//! entries, and on such a device invalidates the cached MPT entry and then
//! the region's MTT lines (one spanning command), waiting for each command,
//! before the slot and the pages are reused.

use crate::buffer::{BufInner, DmaBuffer};
use crate::device::Shared;
use crate::error::{Error, Result};
use crate::hw::os_random::random_u32;
use crate::hw::{LOG_PAGE_SIZE, PAGE_SIZE};
use crate::pd::{PdInner, ProtectionDomain};
use rnic_contract::codes::{ContextOp, ContextTable};
use rnic_contract::layouts::{mpt, mtt};
use rnic_contract::regs;
use std::fmt;
use std::ops::BitOr;
use std::rc::Rc;

/// Access rights (`enum ibv_access_flags`, same bit values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AccessFlags(pub u32);

impl AccessFlags {
    /// No right beyond local reads.
    pub const NONE: AccessFlags = AccessFlags(0);
    /// `IBV_ACCESS_LOCAL_WRITE`: the device may write the region (receives,
    /// READ responses).
    pub const LOCAL_WRITE: AccessFlags = AccessFlags(1);
    /// `IBV_ACCESS_REMOTE_WRITE`.
    pub const REMOTE_WRITE: AccessFlags = AccessFlags(2);
    /// `IBV_ACCESS_REMOTE_READ`.
    pub const REMOTE_READ: AccessFlags = AccessFlags(4);
    /// `IBV_ACCESS_REMOTE_ATOMIC`.
    pub const REMOTE_ATOMIC: AccessFlags = AccessFlags(8);
    const KNOWN: u32 = 0xF;

    /// Whether every right of `other` is here.
    pub const fn contains(self, other: AccessFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for AccessFlags {
    type Output = AccessFlags;
    fn bitor(self, rhs: AccessFlags) -> AccessFlags {
        AccessFlags(self.0 | rhs.0)
    }
}

/// A registered memory region. Dropping it deregisters it; call
/// [`MemoryRegion::deregister`] to see a failure.
///
/// ```
/// use rnic_driver::{hw::fake::{FakeConfig, FakeHw}, AccessFlags, Device};
///
/// let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open()?;
/// let pd = ctx.alloc_pd()?;
/// let buf = ctx.alloc_buffer(8192)?;
/// let mr = pd.reg_mr(&buf, 100, 5000, AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ)?;
/// assert_eq!((mr.addr(), mr.len()), (buf.va() + 100, 5000));
/// assert_eq!(mr.lkey(), mr.rkey());
/// // Remote write without local write is refused, as verbs does.
/// assert!(pd.reg_mr(&buf, 0, 10, AccessFlags::REMOTE_WRITE).is_err());
/// mr.deregister()?;
/// # Ok::<(), rnic_driver::Error>(())
/// ```
pub struct MemoryRegion {
    pd: Rc<PdInner>,
    _buffer: Rc<BufInner>,
    index: u32,
    key: u32,
    addr: u64,
    len: u64,
    mtt_base: u32,
    pages: u32,
    access: AccessFlags,
    live: bool,
}

impl fmt::Debug for MemoryRegion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryRegion")
            .field("key", &format_args!("{:#x}", self.key))
            .field("addr", &format_args!("{:#x}", self.addr))
            .field("len", &self.len)
            .field("access", &self.access)
            .finish()
    }
}

impl ProtectionDomain {
    /// Registers `len` bytes of `buffer` from `offset` with `access`.
    pub fn reg_mr(&self, buffer: &DmaBuffer, offset: usize, len: usize, access: AccessFlags) -> Result<MemoryRegion> {
        let ctx = &self.inner.ctx;
        if !Rc::ptr_eq(&buffer.inner.ctx, ctx) {
            return Err(Error::Mismatch { what: "buffer" });
        }
        if access.0 & !AccessFlags::KNOWN != 0 {
            return Err(Error::BadAttribute { attr: "access", value: access.0.into(), reason: "unknown access bits" });
        }
        if (access.contains(AccessFlags::REMOTE_WRITE) || access.contains(AccessFlags::REMOTE_ATOMIC))
            && !access.contains(AccessFlags::LOCAL_WRITE)
        {
            return Err(Error::BadAttribute {
                attr: "access",
                value: access.0.into(),
                reason: "remote write and remote atomic need local write",
            });
        }
        if len == 0 {
            return Err(Error::Zero { what: "memory region length" });
        }
        let region = buffer.inner.region;
        if offset.checked_add(len).is_none_or(|end| end > region.len) {
            return Err(Error::OutOfRange {
                what: "buffer",
                offset: offset as u64,
                len: len as u64,
                size: region.len as u64,
            });
        }
        let addr = region.va + offset as u64;
        let first_page = offset / PAGE_SIZE;
        let pages = (offset + len - 1) / PAGE_SIZE - first_page + 1;
        let (index, key, mtt_base, pages) = {
            let mut a = ctx.alloc.borrow_mut();
            // one context command spans the pages (`ctx_count.COUNT`);
            // compared before narrowing, so 2^32 + 1 pages are not 1
            let max = a.mtt.capacity().min(regs::ctx_count::COUNT.mask());
            let pages = match u32::try_from(pages) {
                Ok(p) if p <= max => p,
                _ => {
                    let requested = pages as u64;
                    return Err(Error::TooLarge { what: "memory region pages", requested, max: max.into() });
                }
            };
            let mut failed = None;
            let mut rng = || {
                random_u32().unwrap_or_else(|e| {
                    failed = Some(e);
                    0
                })
            };
            let drawn = a.mpt.take(&mut rng);
            if let Some(e) = failed {
                if let Ok((index, _)) = drawn {
                    a.mpt.give(index);
                }
                return Err(e.into());
            }
            let (index, key) = drawn?;
            let mtt_base = match a.mtt.take(pages) {
                Ok(b) => b,
                Err(e) => {
                    a.mpt.give(index);
                    return Err(e);
                }
            };
            (index, key, mtt_base, pages)
        };
        let mr = MemoryRegion {
            pd: self.inner.clone(),
            _buffer: buffer.inner.clone(),
            index,
            key,
            addr,
            len: len as u64,
            mtt_base,
            pages,
            access,
            live: true,
        };
        // From here on, a failure drops `mr`, which releases the slot and pages.
        let mut entries = vec![0u8; pages as usize * mtt::SIZE];
        for (i, e) in entries.chunks_mut(mtt::SIZE).enumerate() {
            mtt::ADDR.set(e, region.iova + ((first_page + i) * PAGE_SIZE) as u64)?;
            mtt::VALID.set(e, true)?;
        }
        let mtt_table = &ctx.tables.mtt;
        ctx.hw()?.dma_write(&mtt_table.region, mtt_table.offset(mtt_base), &entries)?;
        if ctx.translates() {
            // every MTT line the entries fall in: the first and last may be
            // cached beside other regions' entries (first fit)
            ctx.ctx_mtt_span(ContextOp::Load, mtt_base, pages)?;
        }
        ctx.write_entry(&ctx.tables.mpt, index, &mr.entry(true)?)?;
        if ctx.translates() {
            ctx.ctx_cmd(ContextOp::Load, ContextTable::Mpt, index)?;
        }
        Ok(mr)
    }
}

impl MemoryRegion {
    fn entry(&self, valid: bool) -> Result<[u8; mpt::SIZE]> {
        let mut e = [0u8; mpt::SIZE];
        mpt::VA_BASE.set(&mut e, self.addr)?;
        mpt::LENGTH.set(&mut e, self.len)?;
        mpt::KEY.set(&mut e, self.key)?;
        mpt::PD.set(&mut e, self.pd.pdn)?;
        mpt::VALID.set(&mut e, valid)?;
        mpt::LOCAL_WRITE.set(&mut e, self.access.contains(AccessFlags::LOCAL_WRITE))?;
        mpt::REMOTE_WRITE.set(&mut e, self.access.contains(AccessFlags::REMOTE_WRITE))?;
        mpt::REMOTE_READ.set(&mut e, self.access.contains(AccessFlags::REMOTE_READ))?;
        mpt::REMOTE_ATOMIC.set(&mut e, self.access.contains(AccessFlags::REMOTE_ATOMIC))?;
        mpt::LOG_PAGE_SIZE.set(&mut e, LOG_PAGE_SIZE as u8)?;
        mpt::MTT_BASE.set(&mut e, self.mtt_base)?;
        Ok(e)
    }

    /// The local key, for SGEs.
    pub fn lkey(&self) -> u32 {
        self.key
    }

    /// The remote key, for peers (the same number: one key per region).
    pub fn rkey(&self) -> u32 {
        self.key
    }

    /// The region's first virtual address.
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// Bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Always false: regions have at least a byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The MPT slot (`mpt::key_index(key, T)`).
    pub fn mpt_index(&self) -> u32 {
        self.index
    }

    /// The rights it was registered with.
    pub fn access(&self) -> AccessFlags {
        self.access
    }

    fn release(&mut self) -> Result<()> {
        if !std::mem::take(&mut self.live) {
            return Ok(());
        }
        let ctx: &Shared = &self.pd.ctx;
        let result = (|| {
            ctx.write_entry(&ctx.tables.mpt, self.index, &self.entry(false)?)?;
            // The region's MTT entries without VALID too: an access whose
            // key was checked before the Invalidate below and that reads its
            // MTT line after it gets `MttInvalid`, not the freed pages.
            let mtt_table = &ctx.tables.mtt;
            let none = vec![0u8; self.pages as usize * mtt::SIZE];
            ctx.hw()?.dma_write(&mtt_table.region, mtt_table.offset(self.mtt_base), &none)?;
            if ctx.translates() {
                ctx.ctx_cmd(ContextOp::Invalidate, ContextTable::Mpt, self.index)?;
                ctx.ctx_mtt_span(ContextOp::Invalidate, self.mtt_base, self.pages)?;
            }
            Ok(())
        })();
        // The slot and pages are reused only when the device has let go of them.
        if result.is_ok() {
            let mut a = ctx.alloc.borrow_mut();
            a.mpt.give(self.index);
            a.mtt.give(self.mtt_base, self.pages);
        }
        result
    }

    /// Deregisters the region: its key fails from the moment this returns.
    /// On an error the MPT slot stays reserved (the device may still hold the
    /// entry).
    pub fn deregister(mut self) -> Result<()> {
        self.release()
    }
}

impl Drop for MemoryRegion {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            self.pd.ctx.teardown_failed(e);
        }
    }
}
