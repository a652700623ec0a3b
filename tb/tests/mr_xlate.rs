//! `MrXlate` (hw/src/mr/mr_xlate.rs): `MrCheck` behind its MPT and MTT
//! caches, served by the host model from real tables in host memory
//! (`rnic_tb::mr_xlate`). Every beat is checked against
//! `rnic_contract::mr::translate` over the tables, and every device read is
//! logged: the only reads are whole entries of the two tables (the IOMMU maps
//! nothing else), and there are no writes.

use rnic_contract::layouts::mpt;
use rnic_contract::mr::{Access, Mpt, MrError, MrRequest};
use rnic_sim::axis::Rng;
use rnic_sim::models::mr_xlate::Dut;
use rnic_sim::Clocked;
use rnic_tb::mr::{mtt_entry, MrWorld};
use rnic_tb::mr_xlate::{Table, XlateBench, XlateKnobs};
use std::collections::BTreeMap;

/// The IOVA of MTT entry `e`'s page in these tests: aligned to every page
/// size, and mapped nowhere (a payload read would fault).
fn page_iova(e: u32) -> u64 {
    (0x100 + e as u64) << 30
}

const T: u32 = 8;

/// Register a region of `pages` pages of 2^`log_page` bytes at `va_base`
/// under MPT entry `index`, its MTT entries from `mtt_base` on, VALID.
fn register(b: &mut XlateBench, index: u32, log_page: u32, va_base: u64, pages: u64, mtt_base: u32) -> Mpt {
    let m = Mpt {
        va_base,
        length: pages << log_page,
        key: mpt::key(index, 0x5a_0000 + index * 0x3_1337 % 0xff_ffff, b.mpt_log),
        pd: 7,
        valid: true,
        local_write: true,
        remote_write: true,
        remote_read: true,
        remote_atomic: true,
        log_page_size: log_page as u8,
        mtt_base,
    };
    b.write_mpt(index, &m);
    for p in 0..pages as u32 + 1 {
        b.write_mtt(mtt_base + p, page_iova(mtt_base + p), true);
    }
    m
}

fn access(m: &Mpt, off: u64, len: u32, access: Access) -> MrRequest {
    MrRequest { key: m.key, pd: m.pd, va: m.va_base.wrapping_add(off), len, access }
}

/// Send one request alone; its answer must be `want` (written out here,
/// the reference must agree), with no piece when it fails.
fn one(tb: &mut Clocked<Dut>, b: &mut XlateBench, r: MrRequest, want: Option<MrError>) {
    let ans = b.expect(&r);
    assert_eq!(ans.last().and_then(|x| x.err()), want, "the reference disagrees with {r:x?}");
    let (pieces, beats, mtt_reads) = (b.pieces, b.beats, b.reads_of(Table::Mtt));
    b.send(r);
    b.run(tb, 5_000);
    if want.is_some() {
        assert_eq!(b.pieces, pieces, "{r:x?}: a failed access translated a piece");
        assert_eq!(b.beats, beats + 1, "{r:x?}: a failed access is one beat");
        if want != Some(MrError::MttInvalid) {
            assert_eq!(b.reads_of(Table::Mtt), mtt_reads, "{r:x?}: a failed check read the MTT");
        }
    } else {
        assert!(b.pieces > pieces, "{r:x?}: no piece");
    }
}

/// The battery of item 4 of issue 10: each bad access gives its error and
/// no piece; the device reads nothing but MPT entries and MTT lines (no
/// payload DMA: the unit has none, and the IOMMU maps only the tables).
#[test]
fn bad_accesses_fail_without_a_piece() {
    use Access::*;
    let mut b = XlateBench::new(T, 12, XlateKnobs::RANDOM, 1);
    let a = register(&mut b, 1, 12, 0x7f00_0000_0100, 4, 0x10);
    let top = register(&mut b, 3, 12, u64::MAX - 0x1fff, 2, 0x20);
    let mut none = register(&mut b, 2, 12, 0x1000, 1, 0x30);
    none = Mpt { local_write: false, remote_write: false, remote_read: false, remote_atomic: false, ..none };
    b.write_mpt(2, &none);
    let bad_mtt = register(&mut b, 4, 21, 0x40_0000_0000, 3, 0x41);
    b.write_mtt(0x42, page_iova(0x42), false); // its second page
    let mut tb = b.unit();

    one(&mut tb, &mut b, access(&a, 0, 100, RemoteWrite), None);
    one(
        &mut tb,
        &mut b,
        MrRequest { key: a.key ^ 1 << 31, ..access(&a, 0, 100, RemoteWrite) },
        Some(MrError::KeyMismatch),
    );
    one(
        &mut tb,
        &mut b,
        MrRequest { key: a.key ^ 1 << T, ..access(&a, 0, 100, RemoteWrite) },
        Some(MrError::KeyMismatch),
    );
    one(&mut tb, &mut b, MrRequest { pd: 8, ..access(&a, 0, 100, RemoteWrite) }, Some(MrError::PdMismatch));
    one(&mut tb, &mut b, access(&a, 0x3fff, 1, RemoteRead), None); // the last byte
    one(&mut tb, &mut b, access(&a, 0x3fff, 2, RemoteRead), Some(MrError::OutOfBounds)); // one byte past the end
    one(&mut tb, &mut b, access(&a, u64::MAX, 2, RemoteRead), Some(MrError::OutOfBounds)); // one byte before
    one(&mut tb, &mut b, access(&top, 0x1ff0, 0x10, RemoteAtomic), None); // the top 16 bytes of 2^64
    one(&mut tb, &mut b, access(&top, 0x1ff8, 0x10, RemoteAtomic), Some(MrError::OutOfBounds)); // wraps past 2^64
    one(&mut tb, &mut b, access(&top, 0x2000, 8, RemoteAtomic), Some(MrError::OutOfBounds)); // VA wrapped to 0
    one(&mut tb, &mut b, access(&none, 0, 16, LocalRead), None);
    for acc in [LocalWrite, RemoteRead, RemoteWrite, RemoteAtomic] {
        one(&mut tb, &mut b, access(&none, 0, 16, acc), Some(MrError::AccessDenied));
        // a missing right
    }
    one(&mut tb, &mut b, access(&bad_mtt, 0, 64, RemoteRead), None);
    one(&mut tb, &mut b, access(&bad_mtt, 0x20_0000, 64, RemoteRead), Some(MrError::MttInvalid));
    one(&mut tb, &mut b, MrRequest { key: mpt::key(9, 1, T), ..access(&a, 0, 8, LocalRead) }, Some(MrError::Invalid));

    // a deregistered region: VALID cleared in host memory, then the cached
    // entry invalidated; the next access reads the entry again and fails
    one(&mut tb, &mut b, access(&a, 0x1000, 8, LocalWrite), None);
    let mpt_reads = b.reads_of(Table::Mpt);
    // still cached: the old entry answers (why deregistration must invalidate)
    let before = b.expect(&access(&a, 0x1000, 8, LocalWrite));
    b.write_mpt(1, &Mpt { valid: false, ..a });
    b.send_expecting(access(&a, 0x1000, 8, LocalWrite), before);
    b.run(&mut tb, 5_000);
    b.invalidate(Table::Mpt, 1);
    b.run(&mut tb, 5_000);
    assert_eq!(b.inv_done, 1);
    one(&mut tb, &mut b, access(&a, 0x1000, 8, LocalWrite), Some(MrError::Invalid));
    assert_eq!(b.reads_of(Table::Mpt), mpt_reads + 1, "the entry is read again after the invalidate");
    assert_eq!(b.reads.last().map(|r| (r.0, r.1)), Some((Table::Mpt, 1)));

    // an MTT entry cleared and its line invalidated: that page fails from then on
    let c = register(&mut b, 5, 12, 0x9000_0000, 2, 0x58);
    one(&mut tb, &mut b, access(&c, 0x1000, 8, RemoteRead), None);
    b.write_mtt(0x59, page_iova(0x59), false);
    b.invalidate(Table::Mtt, 0x59 / 8);
    b.run(&mut tb, 5_000);
    assert_eq!(b.inv_done, 2);
    one(&mut tb, &mut b, access(&c, 0x1000, 8, RemoteRead), Some(MrError::MttInvalid));
    one(&mut tb, &mut b, access(&c, 0, 8, RemoteRead), None);

    // every device read was a table entry (the bench refuses others), none of a page
    assert!(b.reads.iter().all(|r| matches!(r.0, Table::Mpt | Table::Mtt)));
    eprintln!(
        "battery: {} requests, {} reads ({} MPT), failed {:?}",
        b.taken,
        b.reads.len(),
        b.reads_of(Table::Mpt),
        b.failed
    );
}

/// A failed DMA read of a table (the DMA engine marks it with `tuser`)
/// fails the access, with no piece, and leaves nothing cached: the next
/// access reads the entry again and passes.
#[test]
fn a_failed_table_read_fails_the_access() {
    let mut b = XlateBench::new(T, 12, XlateKnobs::RANDOM, 9);
    // MTT entries 0x16..0x19: the first two pages on line 2, the others on line 3
    let a = register(&mut b, 1, 12, 0x7f00_0000_0000, 4, 0x16);
    let mut tb = b.unit();
    let r = access(&a, 0, 64, Access::RemoteRead);
    // the MPT entry's read fails: the entry is taken as not VALID
    b.fail_reads = 1;
    b.send_expecting(r, vec![Err(MrError::Invalid)]);
    b.run(&mut tb, 5_000);
    assert_eq!((b.reads.len(), b.pieces), (1, 0), "one read, of the MPT entry, and no piece");
    one(&mut tb, &mut b, r, None);
    assert_eq!(b.reads_of(Table::Mpt), 2, "the entry read again");
    // line 3's read fails (the MPT entry is cached): the page is taken as not VALID
    let r2 = access(&a, 0x2000, 64, Access::RemoteRead);
    let mtt_reads = b.reads_of(Table::Mtt);
    b.fail_reads = 1;
    b.send_expecting(r2, vec![Err(MrError::MttInvalid)]);
    b.run(&mut tb, 5_000);
    assert_eq!(b.reads_of(Table::Mtt), mtt_reads + 1);
    one(&mut tb, &mut b, r2, None);
    assert_eq!(b.reads_of(Table::Mtt), mtt_reads + 2, "the line read again");
}

/// Random accesses over more regions and pages than the caches hold
/// (MPT: 256 entries, MTT: 256 lines): exact answers, misses, hits and
/// evictions (entries read again after their set was taken by another).
#[test]
fn random_accesses_hits_misses_evictions() {
    let mut rng = Rng(0x3a7_1a7e);
    let w = MrWorld::random(&mut rng, 10, 700);
    let mtt_log = 14;
    let mut b = XlateBench::new(10, mtt_log, XlateKnobs::RANDOM, 7);
    for (&i, m) in &w.mpt {
        b.write_mpt(i, m);
    }
    let top = w.mpt.values().map(|m| m.mtt_base + 7).max().unwrap();
    assert!(top < 1 << mtt_log);
    for e in 0..1u32 << mtt_log {
        b.space.memory.write_u64(rnic_tb::mr_xlate::MTT_BASE + 8 * e as u64, mtt_entry(e));
    }
    let mut tb = b.unit();
    let n = 3000;
    for _ in 0..n {
        b.send(w.random_request(&mut rng));
    }
    let cycles = b.run(&mut tb, 2_000_000);
    let count = |t: Table| {
        let mut c: BTreeMap<u64, u64> = BTreeMap::new();
        for r in b.reads.iter().filter(|r| r.0 == t) {
            *c.entry(r.1).or_default() += 1;
        }
        c
    };
    let (mpt_reads, mtt_reads) = (count(Table::Mpt), count(Table::Mtt));
    let again = |c: &BTreeMap<u64, u64>| c.values().filter(|&&k| k > 1).count();
    eprintln!(
        "{n} requests in {cycles} cycles: {} pieces, failed {:?}; MPT reads {} of {} entries ({} read again), \
         MTT reads {} of {} lines ({} read again)",
        b.pieces,
        b.failed,
        b.reads_of(Table::Mpt),
        mpt_reads.len(),
        again(&mpt_reads),
        b.reads_of(Table::Mtt),
        mtt_reads.len(),
        again(&mtt_reads)
    );
    assert_eq!(b.taken, n);
    assert!(b.pieces > 2000, "{} pieces", b.pieces);
    assert!(b.failed_all() > 300 && b.failed_with(MrError::MttInvalid) > 0, "{:?}", b.failed);
    assert!(mpt_reads.len() > 256 && mtt_reads.len() > 256, "working sets larger than the caches");
    assert!(again(&mpt_reads) > 50 && again(&mtt_reads) > 50, "evictions");
    assert!((b.reads_of(Table::Mpt) as u64) < n * 9 / 10, "hits");
}

/// Latency of a request on a hit and on a miss (the MPT entry and the MTT
/// line both missing, DMA reads answered in 100 cycles), and one
/// single-piece request per cycle on hits.
#[test]
fn latency_and_rate() {
    const R: u64 = 100;
    let mut b = XlateBench::new(T, 12, XlateKnobs::fixed(R), 3);
    let a = register(&mut b, 1, 12, 0x7f00_0000_0000, 4, 0x10);
    let mut tb = b.unit();
    let lat = |tb: &mut Clocked<Dut>, b: &mut XlateBench| {
        b.send(access(&a, 0, 64, Access::RemoteRead));
        b.run(tb, 5_000);
        let (t, f) = b.first_beat.last().copied().unwrap();
        f - t
    };
    let miss = lat(&mut tb, &mut b);
    let hit = lat(&mut tb, &mut b);
    eprintln!("a request: {miss} cycles on a miss (reads in {R}), {hit} on a hit");
    assert_eq!(b.reads.len(), 2, "one MPT and one MTT read");
    assert_eq!(hit, HIT_LATENCY);
    assert_eq!(miss, 2 * R + MISS_EXTRA);
    let n = 400;
    for _ in 0..n {
        b.send(access(&a, 0x40, 64, Access::RemoteRead));
    }
    let cycles = b.run(&mut tb, 10_000);
    eprintln!("{n} hits in {cycles} cycles");
    assert!(cycles <= n + HIT_LATENCY + 2, "{cycles} cycles");
}

/// Cycles from a request taken to its piece offered, on a hit.
const HIT_LATENCY: u64 = 25;
/// Beyond the two DMA reads (MPT entry, then MTT line) on a miss.
const MISS_EXTRA: u64 = 43;

/// The bench's figures (`make bench`, `rnic_tb::cache_scaling`) are the
/// ones asserted here: latency on a hit and on a miss, and translations per
/// cycle as the working set of pages passes the MTT cache's 2048 entries
/// (no MTT read below it, a few at it, then a falling rate without a cliff).
/// At the cache's size, the region's line after the set is hinted (from the
/// set's last line's first page) and takes line 0's set: the two are read
/// again now and then.
#[test]
fn translations_per_cycle_by_working_set() {
    use rnic_tb::cache_scaling::{mr_latency, mr_pages, MTT_ENTRIES};
    assert_eq!(mr_latency(100), (HIT_LATENCY, 200 + MISS_EXTRA));
    let mut last = f64::MAX;
    for pages in [256u32, MTT_ENTRIES as u32 - 8, MTT_ENTRIES as u32, 2 * MTT_ENTRIES as u32, 16384] {
        let p = mr_pages(pages, 1500, 233);
        let rate = p.per_cycle();
        eprintln!("{pages} pages: {:.1} % MTT misses, {rate:.3} translations per cycle", 100.0 * p.miss_rate());
        if (pages as u64) < MTT_ENTRIES {
            assert_eq!(p.misses, 0, "{pages} pages fit in the MTT cache");
            assert!(rate > 0.9, "hits only: {rate} translations per cycle");
        } else if pages as u64 == MTT_ENTRIES {
            assert!(p.misses <= 4, "{} MTT reads", p.misses);
            assert!(rate > 0.75, "{rate} translations per cycle");
        } else {
            assert!(p.misses > 0, "{pages} pages: no MTT miss");
        }
        assert!(rate <= last * 1.02, "throughput grew with the working set");
        last = rate;
    }
}
