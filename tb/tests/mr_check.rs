//! `MrCheck` (hw/src/mr) against `rnic_contract::mr::mr_check`: every error
//! class, the three page sizes, requests crossing pages, zero length, then
//! random requests under random lookup latency and stalls; exact verdicts
//! and pieces, and no MTT read (no DMA) for a failed check.

use rnic_contract::layouts::mpt;
use rnic_contract::mr::{Access, Mpt, MrError, MrRequest};
use rnic_sim::axis::Rng;
use rnic_sim::models::mr_check::Dut;
use rnic_sim::{Clocked, Model};
use rnic_tb::mr::{mtt_addr, mtt_entry, mtt_invalid, MrBench, MrKnobs, MrWorld};
use std::collections::BTreeMap;

/// Run until every request is answered; the cycles it took.
fn run(bench: &mut MrBench, limit: u64) -> u64 {
    let mut tb = Clocked::new(Dut::new());
    tb.reset(2);
    let start = tb.cycle();
    while !bench.done() {
        assert!(tb.cycle() - start < limit, "stuck: {} requests taken, {} beats", bench.taken, bench.beats);
        bench.drive(&mut tb.dut);
        tb.dut.eval();
        bench.sample(&tb.dut).unwrap_or_else(|e| panic!("{e}"));
        tb.tick();
    }
    tb.cycle() - start
}

const T: u32 = 6;

fn region(index: u32, tag: u32, log_page: u32, va_base: u64, pages: u64, mtt_base: u32) -> Mpt {
    Mpt {
        va_base,
        length: pages << log_page,
        key: mpt::key(index, tag, T),
        pd: 7,
        valid: true,
        local_write: true,
        remote_write: true,
        remote_read: true,
        remote_atomic: true,
        log_page_size: log_page as u8,
        mtt_base,
    }
}

/// The first MTT entry from `from` on without VALID, after a valid one.
fn bad_entry(from: u32) -> u32 {
    (from..).find(|&e| mtt_invalid(e) && !mtt_invalid(e - 1)).unwrap()
}

/// Hand-made regions: 4 KiB, 2 MiB and 1 GiB pages, one without rights, one
/// deregistered, one at the top of the address space, one whose second
/// page's MTT entry is not VALID.
fn world() -> MrWorld {
    let mut w = MrWorld { log_entries: T, mpt: BTreeMap::new() };
    let r = [
        region(1, 0x2ab_cdef, 12, 0x7f00_0000_0100, 4, 0x10),
        region(2, 0x155_5555, 21, 0x40_0000_0000, 3, 0x21),
        region(3, 0x3ff_fffe, 30, 0x100_0000_0000, 5, 0x36),
        Mpt {
            local_write: false,
            remote_write: false,
            remote_read: false,
            remote_atomic: false,
            ..region(4, 9, 12, 0x1000, 1, 0x50)
        },
        Mpt { valid: false, ..region(5, 77, 12, 0x2000, 1, 0x58) },
        region(6, 0x123_4567, 12, u64::MAX - 0x1fff, 2, 0x60),
        region(7, 0x0ab_cdef, 12, 0x5000_0000, 2, bad_entry(0x100) - 1),
    ];
    for e in (0x10..0x14).chain(0x21..0x24).chain(0x36..0x3b).chain([0x50, 0x58, 0x60, 0x61]) {
        assert!(!mtt_invalid(e), "MTT entry {e:#x} of a valid page is not VALID");
    }
    for m in r {
        w.mpt.insert(mpt::key_index(m.key, T), m);
    }
    w
}

fn req(w: &MrWorld, index: u32, off: u64, len: u32, access: Access) -> MrRequest {
    let m = w.mpt[&index];
    MrRequest { key: m.key, pd: m.pd, va: m.va_base.wrapping_add(off), len, access }
}

/// Each case with the verdict it must get, written out (not taken from the
/// reference, which must agree too).
fn directed(w: &MrWorld) -> Vec<(MrRequest, Option<MrError>)> {
    use Access::*;
    let r1 = req(w, 1, 0, 100, RemoteWrite);
    let mut v = vec![
        (r1, None),
        (MrRequest { key: r1.key ^ 1 << 31, ..r1 }, Some(MrError::KeyMismatch)), // wrong tag
        (MrRequest { key: r1.key ^ 1 << T, ..r1 }, Some(MrError::KeyMismatch)),  // lowest tag bit
        (MrRequest { key: mpt::key(2, mpt::key_tag(r1.key, T), T), ..r1 }, Some(MrError::KeyMismatch)), // wrong index
        (MrRequest { key: mpt::key(9, 1, T), ..r1 }, Some(MrError::Invalid)),    // an empty slot
        (req(w, 5, 0, 8, LocalRead), Some(MrError::Invalid)),                    // deregistered
        (MrRequest { pd: 8, ..r1 }, Some(MrError::PdMismatch)),
        (req(w, 1, 0x3fff, 1, RemoteRead), None), // the last byte
        (req(w, 1, 0x3fff, 2, RemoteRead), Some(MrError::OutOfBounds)), // one byte past
        (req(w, 1, u64::MAX, 2, RemoteRead), Some(MrError::OutOfBounds)), // one byte before
        (req(w, 6, 0x1ff0, 0x10, RemoteAtomic), None), // the top 16 bytes
        (req(w, 6, 0x1ff8, 0x10, RemoteAtomic), Some(MrError::OutOfBounds)), // wraps past 2^64
        (req(w, 6, 0x2000, 8, RemoteAtomic), Some(MrError::OutOfBounds)), // VA wrapped to 0
        (req(w, 6, 0, u32::MAX, RemoteWrite), Some(MrError::OutOfBounds)),
        (MrRequest { key: 0, pd: 0, va: 0, len: 0, access: RemoteWrite }, None), // zero length: no check
        (req(w, 5, 0, 0, RemoteRead), None),
        (req(w, 1, 0xe00, 0x200, LocalWrite), None), // crosses a 4 KiB page
        (req(w, 1, 0, 0x3f00, LocalRead), None),     // the whole region, 4 pieces
        (req(w, 2, 0x1f_fff0, 0x20_0020, RemoteRead), None), // across two 2 MiB boundaries
        (req(w, 3, 0x3fff_ffff, 0x8000_0001, RemoteWrite), None), // 1 GiB pages
        (req(w, 7, 0x1000, 8, RemoteWrite), Some(MrError::MttInvalid)), // an invalid MTT entry: no piece
        (req(w, 7, 0xff0, 0x20, RemoteWrite), Some(MrError::MttInvalid)), // a valid page's piece, then the error
        (req(w, 7, 0, 0x10, RemoteWrite), None),     // the valid page alone
    ];
    for a in Access::ALL {
        let r = req(w, 4, 0, 16, a);
        v.push((r, if a == LocalRead { None } else { Some(MrError::AccessDenied) }));
        v.push((req(w, 1, 8, 16, a), None));
    }
    v
}

#[test]
fn every_error_class_and_page_size_exactly() {
    let w = world();
    let cases = directed(&w);
    for (r, want) in &cases {
        assert_eq!(MrWorld::error(&w.expect(r)), *want, "the reference disagrees with the case {r:x?}");
    }
    // pieces of one case, written out: 0x100 before the end of the first page, 0x200 bytes
    let r = req(&w, 1, 0xe00, 0x200, Access::LocalWrite);
    let p0 = mtt_addr(mtt_entry(0x10)) & !0xfff;
    let p1 = mtt_addr(mtt_entry(0x11)) & !0xfff;
    assert_eq!(w.expect(&r), [Ok((p0 | 0xf00, 0x100)), Ok((p1, 0x100))]);
    // an access across a valid page and an invalid one: the first page's piece, then the error
    let m7 = w.mpt[&7];
    let p7 = mtt_addr(mtt_entry(m7.mtt_base)) & !0xfff;
    assert_eq!(
        w.expect(&req(&w, 7, 0xff0, 0x20, Access::RemoteWrite)),
        [Ok((p7 | 0xff0, 0x10)), Err(MrError::MttInvalid)]
    );
    assert_eq!(w.expect(&req(&w, 7, 0x1000, 8, Access::RemoteWrite)), [Err(MrError::MttInvalid)]);
    for (knobs, seed) in [(MrKnobs::FAST, 1), (MrKnobs::RANDOM, 2), (MrKnobs::RANDOM, 3)] {
        let mut b = MrBench::new(w.clone(), knobs, seed);
        for (r, _) in &cases {
            b.send(*r);
        }
        run(&mut b, 20_000);
        assert_eq!(b.taken, cases.len() as u64);
        assert_eq!(b.failed, cases.iter().filter(|c| c.1.is_some()).count() as u64);
        assert!(b.pieces > 20 && b.lines_read > 10, "{} pieces, {} lines", b.pieces, b.lines_read);
    }
}

#[test]
fn failed_checks_read_no_mtt_line() {
    let w = world();
    let mut b = MrBench::new(w.clone(), MrKnobs::RANDOM, 4);
    // (an invalid MTT entry is found by reading the MTT: not among these)
    let bad: Vec<_> = directed(&w).into_iter().filter(|c| c.1.is_some() && c.1 != Some(MrError::MttInvalid)).collect();
    for (r, _) in &bad {
        b.send(*r);
    }
    run(&mut b, 20_000);
    assert_eq!(b.failed, bad.len() as u64);
    assert!(b.failed >= 15);
    assert_eq!(b.lines_read, 0, "a failed check read the MTT");
    assert_eq!(b.beats, b.taken, "one beat per failed request");
}

#[test]
fn random_requests_against_the_reference() {
    let mut rng = Rng(0xa11_0c8e);
    for (round, knobs) in
        [MrKnobs::RANDOM, MrKnobs::FAST, MrKnobs { p_req: 90, p_resp: 30, ..MrKnobs::RANDOM }].into_iter().enumerate()
    {
        let w = MrWorld::random(&mut rng, 8, 60);
        let mut b = MrBench::new(w.clone(), knobs, 100 + round as u64);
        for _ in 0..1500 {
            b.send(w.random_request(&mut rng));
        }
        let cycles = run(&mut b, 400_000);
        eprintln!(
            "round {round}: {} requests ({} failed), {} pieces, {} MTT lines in {cycles} cycles",
            b.taken, b.failed, b.pieces, b.lines_read
        );
        assert!(b.failed > 200 && b.taken - b.failed > 500, "{} failed of {}", b.failed, b.taken);
        assert!(b.pieces > 1000 && b.lines_read > 400);
    }
}

/// Sequential streams hint each next MTT line once, and never a line past
/// their region: 4 KiB pages read a page at a time (a hint at each line's
/// first page, none from the last line), 64-byte reads within a line's first
/// page (one hint for them all), 2 MiB pages read 5 MiB at a
/// time from an MTT base that is not line-aligned (a read spanning lines
/// hints the line after its last, while a whole line's pages follow).
#[test]
fn sequential_streams_hint_the_next_line() {
    let mut w = MrWorld { log_entries: T, mpt: BTreeMap::new() };
    let a = region(1, 0x11, 12, 0x7f00_0000_0000, 64, 0x80);
    let b = region(2, 0x22, 21, 0x40_0000_0000, 20, 0xc5);
    for m in [a, b] {
        w.mpt.insert(mpt::key_index(m.key, T), m);
    }
    assert!((0x80..0xd9).all(|e| !mtt_invalid(e)), "entries below 0x100 are VALID");
    let mut reqs: Vec<MrRequest> = (0..64).map(|p| req(&w, 1, p << 12, 4096, Access::RemoteWrite)).collect();
    reqs.extend((0..64).map(|i| req(&w, 1, 0x10000 + 64 * i, 64, Access::LocalRead)));
    reqs.extend((0..7).map(|i| req(&w, 2, i * 0x50_0000, 0x50_0000, Access::RemoteRead)));
    let mut want: Vec<u32> = vec![];
    for r in &reqs {
        if let Some(h) = w.hint(r) {
            if want.last() != Some(&h) {
                want.push(h);
            }
        }
    }
    // region a (entries 0x80..=0xbf): lines 0x11..=0x17 from pages 0, 8, .., 48 (not 0x18 from
    // page 56: past the region); the 64-byte reads in page 16 (line 0x12, slot 0) hint 0x13 once;
    // region b (entries 0xc5..=0xd8, lines 0x18..=0x1b): the read of entries 0xc7..=0xc9
    // hints 0x1a; the one of 0xcf..=0xd1 does not hint 0x1b (15 MiB left, less than a line's 16)
    let mut lines: Vec<u32> = (0x11..=0x17).collect();
    lines.extend([0x13, 0x1a]);
    assert_eq!(want, lines, "{want:x?}");
    let mut bench = MrBench::new(w.clone(), MrKnobs::FAST, 8);
    for r in &reqs {
        bench.send(*r);
    }
    run(&mut bench, 20_000);
    eprintln!("hints {:x?}, {} repeats skipped", bench.hints, bench.hints_skipped);
    assert_eq!(bench.hints, want, "with the hint port always ready, every line is hinted once");
    assert_eq!(bench.hints_skipped, 63, "the 64-byte reads' repeats");
}

/// Sustained rate with lookups answering in one cycle: one request per
/// cycle when each is one piece, one piece per cycle otherwise; and the
/// latency of a lone request.
#[test]
fn rate_and_latency_at_full_speed() {
    let w = world();
    let n = 200;
    for (len, pieces) in [(64u32, 1u64), (0x3f00, 4)] {
        let mut b = MrBench::new(w.clone(), MrKnobs::FAST, 5);
        for _ in 0..n {
            b.send(req(&w, 1, 0, len, Access::RemoteRead));
        }
        let cycles = run(&mut b, 100_000);
        assert_eq!(b.pieces, n * pieces);
        eprintln!("{pieces} pieces a request: {cycles} cycles for {n} requests");
        assert!(cycles <= n * pieces + LATENCY + 2, "{cycles} cycles");
    }
    let mut b = MrBench::new(w.clone(), MrKnobs::FAST, 6);
    b.send(req(&w, 1, 0, 64, Access::RemoteRead));
    let lone = run(&mut b, 100);
    eprintln!("a lone request: {lone} cycles");
    assert_eq!(lone, LATENCY);
}

/// Cycles from a request offered to its single piece taken, with MPT and
/// MTT lookups answering one cycle after the read.
const LATENCY: u64 = 15;

/// The contract's NAK code for a failed rkey is the protocol model's
/// "remote access error" (the contract cannot depend on the model).
#[test]
fn nak_code_matches_the_protocol_model() {
    use rnic_contract::mr::{MrFault, NAK_REMOTE_ACCESS_ERROR};
    use rnic_proto::NakCode;
    assert_eq!(NakCode::from_code(NAK_REMOTE_ACCESS_ERROR), NakCode::RemoteAccessError);
    let MrFault::Remote { nak_code, .. } = MrError::KeyMismatch.fault(Access::RemoteWrite) else {
        panic!("a remote access fails remotely");
    };
    assert_eq!(NakCode::from_code(nak_code), NakCode::RemoteAccessError);
}
