//! Keys and the memory region check: key format, the allocation's
//! uniqueness and distribution, every error class and the translation.

use rnic_contract::codes::WcStatus;
use rnic_contract::layouts::mpt;
use rnic_contract::mr::*;
use std::collections::BTreeMap;

/// xorshift64*: a deterministic stand-in for getrandom.
fn rng(seed: u64) -> impl FnMut() -> u32 {
    let mut s = seed;
    move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        (s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

#[test]
fn key_format() {
    for t in [0, 1, 8, 16, 24] {
        let index = 0x00AB_CDEF & mpt::index_mask(t);
        let tag = 0xFFFF_FFFF >> t;
        let k = mpt::key(index, tag, t);
        assert_eq!(mpt::key_index(k, t), index, "T={t}");
        assert_eq!(mpt::key_tag(k, t), tag, "T={t}");
    }
    assert_eq!(mpt::key(5, 0x3, 4), 0x35);
    assert_eq!(mpt::index_mask(0), 0);
    assert_eq!(mpt::index_mask(24), 0xFF_FFFF);
}

#[test]
fn uniform_below_is_unbiased_and_in_range() {
    let mut r = rng(7);
    let mut counts = [0u32; 3];
    for _ in 0..30_000 {
        counts[uniform_below(3, &mut r) as usize] += 1;
    }
    for c in counts {
        assert!((9_400..10_600).contains(&c), "{counts:?}");
    }
    // a source that first offers a value in the rejected block
    let mut seq = [u32::MAX, 4].into_iter();
    assert_eq!(
        uniform_below(3, &mut || seq.next().unwrap()),
        1,
        "2^32 - 1 lies in the incomplete block and is redrawn"
    );
}

/// Many registrations and deregistrations in random order: keys of live
/// regions are unique, a reused slot never gets its previous key.
#[test]
fn drawn_keys_are_unique_and_fresh() {
    let t = 8; // 256 slots
    let mut r = rng(0x5eed);
    let mut churn = rng(0xc0ffee);
    let mut free: Vec<u32> = (0..1 << t).collect();
    let mut last: BTreeMap<u32, u32> = BTreeMap::new();
    let mut live: BTreeMap<u32, u32> = BTreeMap::new(); // slot -> key
    let (mut drawn, mut reused) = (0, 0);
    for _ in 0..40_000 {
        if free.is_empty() || (!live.is_empty() && churn() & 1 == 0) {
            let slot = *live.keys().nth(churn() as usize % live.len()).unwrap();
            live.remove(&slot);
            free.push(slot);
            continue;
        }
        let (pos, key) = draw_key(&free, |s| last.get(&s).copied(), t, &mut r).unwrap();
        let slot = free.swap_remove(pos);
        assert_eq!(mpt::key_index(key, t), slot);
        if let Some(&old) = last.get(&slot) {
            assert_ne!(old, key, "a reused slot gets a fresh tag");
            reused += 1;
        }
        assert!(live.values().all(|&k| k != key), "keys of live regions are unique");
        last.insert(slot, key);
        live.insert(slot, key);
        drawn += 1;
    }
    assert!(drawn > 15_000 && reused > 14_000, "{drawn} drawn, {reused} into used slots");
}

fn chi2(counts: &[u32]) -> f64 {
    let mean = counts.iter().sum::<u32>() as f64 / counts.len() as f64;
    counts.iter().map(|&c| (c as f64 - mean).powi(2) / mean).sum()
}

/// Slot and tag are uniform, and a key says nothing about the next one:
/// chi-squared over slots, tag bits, and pairs of consecutive slots
/// (limits near the 99.9th percentile of their degrees of freedom).
#[test]
fn drawn_keys_are_uniform_and_independent() {
    let t = 8;
    let free: Vec<u32> = (0..1 << t).collect();
    let mut r = rng(0xfeed);
    let mut slots = vec![0u32; 1 << t];
    let mut tag_top = [0u32; 16];
    let mut pairs = vec![0u32; 256];
    let mut prev = 0usize;
    for i in 0..64_000 {
        let (_, key) = draw_key(&free, |_| None, t, &mut r).unwrap();
        let slot = mpt::key_index(key, t) as usize;
        slots[slot] += 1;
        tag_top[(mpt::key_tag(key, t) >> 20) as usize] += 1;
        if i > 0 {
            pairs[(prev % 16) * 16 + slot % 16] += 1;
        }
        prev = slot;
    }
    assert!(chi2(&slots) < 340.0, "slots: chi2 {:.0} over 255 degrees of freedom", chi2(&slots));
    assert!(chi2(&tag_top) < 38.0, "tags: chi2 {:.0} over 15: {tag_top:?}", chi2(&tag_top));
    assert!(chi2(&pairs) < 340.0, "consecutive slots: chi2 {:.0} over 255", chi2(&pairs));
    // the test can fail: a counter-like allocator (ReDMArk's +0x100 step) is far off
    let mut seq = [0u32; 256];
    (0..64_000).for_each(|i| seq[((i % 256) % 16) * 16 + ((i + 1) % 256) % 16] += 1);
    assert!(chi2(&seq) > 10_000.0);
}

#[test]
fn the_slot_is_drawn_among_the_free_ones_only() {
    let mut r = rng(3);
    let free = [7u32, 9, 200];
    for _ in 0..300 {
        let (pos, key) = draw_key(&free, |_| None, 8, &mut r).unwrap();
        assert_eq!(mpt::key_index(key, 8), free[pos]);
    }
    assert_eq!(draw_key(&[], |_| None, 8, &mut r), None);
}

fn region(page: u8) -> Mpt {
    Mpt {
        va_base: 0x7f00_0000_0100,
        length: 5 << page,
        key: mpt::key(3, 0x5A_5A5A, 8),
        pd: 9,
        valid: true,
        local_write: true,
        remote_write: true,
        remote_read: true,
        remote_atomic: true,
        log_page_size: page,
        mtt_base: 40,
    }
}

/// Page `i` of MTT entry `e` maps to 0x1_0000_0000 * e (aligned at every page size).
fn mtt(e: u32) -> u64 {
    0x1_0000_0000 * (e as u64 + 1)
}

fn req(m: &Mpt, va: u64, len: u32, access: Access) -> MrRequest {
    MrRequest { key: m.key, pd: m.pd, va, len, access }
}

fn check(r: &MrRequest, m: &Mpt) -> Result<Vec<(u64, u32)>, MrError> {
    mr_check(r, m, mtt).map(|p| p.collect())
}

#[test]
fn every_error_class_in_check_order() {
    let m = region(12);
    let ok = req(&m, m.va_base, 100, Access::RemoteWrite);
    assert_eq!(check(&ok, &m), Ok(vec![(mtt(40) | 0x100, 100)]));
    // invalid entry, unsupported page size
    assert_eq!(check(&ok, &Mpt { valid: false, ..m }), Err(MrError::Invalid));
    assert_eq!(check(&ok, &Mpt { log_page_size: 13, ..m }), Err(MrError::Invalid));
    // wrong tag, wrong index: the whole key is compared
    assert_eq!(check(&MrRequest { key: ok.key ^ 0x100, ..ok }, &m), Err(MrError::KeyMismatch));
    assert_eq!(check(&MrRequest { key: ok.key ^ 0x1, ..ok }, &m), Err(MrError::KeyMismatch));
    assert_eq!(check(&MrRequest { key: ok.key ^ 0x8000_0000, ..ok }, &m), Err(MrError::KeyMismatch));
    // PD
    assert_eq!(check(&MrRequest { pd: 10, ..ok }, &m), Err(MrError::PdMismatch));
    // every access right
    let none = Mpt { local_write: false, remote_write: false, remote_read: false, remote_atomic: false, ..m };
    for a in Access::ALL {
        let r = MrRequest { access: a, ..ok };
        let want = if a == Access::LocalRead { Ok(vec![(mtt(40) | 0x100, 100)]) } else { Err(MrError::AccessDenied) };
        assert_eq!(check(&r, &none), want, "{a:?}");
        assert!(check(&r, &m).is_ok(), "{a:?}");
    }
    // bounds: one byte below, one byte past the end, a length past the end
    let end = m.va_base + m.length;
    assert_eq!(check(&req(&m, m.va_base - 1, 1, Access::RemoteRead), &m), Err(MrError::OutOfBounds));
    assert!(check(&req(&m, end - 1, 1, Access::RemoteRead), &m).is_ok());
    assert_eq!(check(&req(&m, end, 1, Access::RemoteRead), &m), Err(MrError::OutOfBounds));
    assert_eq!(check(&req(&m, end - 10, 11, Access::RemoteRead), &m), Err(MrError::OutOfBounds));
    // the first failing check is the one reported
    let bad = MrRequest { key: 0, pd: 0, va: 0, ..ok };
    assert_eq!(check(&bad, &Mpt { valid: false, ..m }), Err(MrError::Invalid));
    assert_eq!(check(&bad, &m), Err(MrError::KeyMismatch));
}

#[test]
fn a_wrap_around_at_the_top_of_the_address_space_is_out_of_bounds() {
    let top = Mpt { va_base: u64::MAX - 0xFFF, length: 0x1000, ..region(12) };
    assert!(check(&req(&top, u64::MAX, 1, Access::RemoteWrite), &top).is_ok());
    for (va, len) in [(u64::MAX, 2), (u64::MAX - 10, 0x20), (u64::MAX - 0xFFF, 0x1001), (u64::MAX, u32::MAX)] {
        assert_eq!(check(&req(&top, va, len, Access::RemoteWrite), &top), Err(MrError::OutOfBounds), "{va:#x}+{len}");
    }
    // a VA past the top that wraps to the region's start
    let low = Mpt { va_base: 0, length: 0x1000, ..region(12) };
    assert_eq!(check(&req(&low, u64::MAX - 3, 8, Access::RemoteWrite), &low), Err(MrError::OutOfBounds));
}

#[test]
fn zero_length_checks_nothing() {
    let m = region(12);
    let r = MrRequest { key: 0, pd: 0, va: 0, len: 0, access: Access::RemoteWrite };
    assert_eq!(check(&r, &Mpt { valid: false, ..m }), Ok(vec![]));
    assert_eq!(check(&r, &m), Ok(vec![]));
}

#[test]
fn pieces_are_cut_at_page_boundaries() {
    for page in mpt::LOG_PAGE_SIZES {
        let m = region(page as u8);
        let p = 1u64 << page;
        // from 0x100 into the region's first page, across two boundaries
        let len = (2 * p) as u32 + 0x80;
        let got = check(&req(&m, m.va_base, len, Access::LocalWrite), &m).unwrap();
        let first = p - 0x100;
        assert_eq!(
            got,
            vec![(mtt(40) | 0x100, first as u32), (mtt(41), p as u32), (mtt(42), (len as u64 - first - p) as u32)],
            "page 2^{page}"
        );
        // the total always adds up and every piece stays in its page
        let va = m.va_base + p + 5;
        let got = check(&req(&m, va, 3 * p as u32, Access::RemoteRead), &m).unwrap();
        assert_eq!(got.iter().map(|x| x.1 as u64).sum::<u64>(), 3 * p);
        assert!(got.iter().all(|&(a, l)| (a & (p - 1)) + l as u64 <= p));
        assert_eq!(got[0].0, mtt(41) | 0x105);
    }
}

#[test]
fn low_bits_of_an_mtt_entry_are_ignored() {
    let m = region(12);
    let got: Vec<_> = mr_check(&req(&m, m.va_base, 4, Access::LocalRead), &m, |_| 0xABC0_0FFF).unwrap().collect();
    assert_eq!(got, vec![(0xABC0_0100, 4)]);
}

#[test]
fn faults_map_to_what_the_transport_needs() {
    for e in MrError::ALL {
        assert_eq!(MrError::from_verdict(e as u64), Some(e));
        for a in Access::ALL {
            let f = e.fault(a);
            if a.is_remote() {
                assert_eq!(f, MrFault::Remote { nak_code: 2, requester_status: WcStatus::RemAccessErr });
            } else {
                assert_eq!(f, MrFault::Local(WcStatus::LocProtErr));
            }
        }
    }
    assert_eq!(MrError::from_verdict(0), None);
    assert!((MrError::ALL.len() as u64) < 1 << VERDICT_BITS);
    for a in Access::ALL {
        assert_eq!(Access::from_raw(a as u64), Some(a));
    }
}

#[test]
fn mpt_entries_round_trip() {
    let m = region(21);
    let mut e = [0u8; mpt::SIZE];
    m.write(&mut e).unwrap();
    assert_eq!(Mpt::read(&e), Ok(m));
    assert!(Mpt::read(&e[..20]).is_err());
}
