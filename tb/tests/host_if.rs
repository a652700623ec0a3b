//! The host side as a driver sees it (generated Verilog of `HostIf` behind
//! the host model): registers, context commands, doorbells and descriptor
//! fetch, CQ rings with owner bits, overrun, arming and moderation, and the
//! interrupt ordering guarantee.

use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind};
use rnic_contract::layouts::{cqc, cqe, qpc};
use rnic_contract::{regs, ring};
use rnic_host::PcieConfig;
use rnic_sim::axis::Rng;
use rnic_tb::host_bench::*;
use std::collections::HashMap;

fn bench(seed: u64) -> HostBench {
    let mut b = HostBench::new(PcieConfig { reorder_seed: Some(seed), ..PcieConfig::gen3_x16() }, seed);
    b.bring_up();
    b
}

#[test]
fn registers_identify_and_hold_values() {
    let mut b = HostBench::new(PcieConfig::gen3_x16(), 1);
    assert_eq!(b.read32(regs::id_magic::OFFSET), 0x524E_4943);
    assert_eq!(b.read32(regs::id_version::OFFSET), rnic_contract::ABI_VERSION);
    assert_eq!(b.read32(regs::id_datapath::OFFSET), 64);
    assert_eq!(b.read32(regs::id_clock::OFFSET), 250);
    let limits = b.read32(regs::id_limits::OFFSET);
    assert_eq!(regs::id_limits::LOG_MAX_QP.get(limits), 10);
    assert_eq!(regs::id_limits::LOG_MAX_CQ.get(limits), 10);
    assert_eq!(regs::id_limits::LOG_MAX_RING.get(limits), 15);
    assert_eq!(b.read32(regs::irq_moderation::OFFSET), regs::irq_moderation::RESET);
    for v in [0xDEAD_BEEF, 0, 0x1234_5678] {
        b.write32(regs::scratch::OFFSET, v);
        assert_eq!(b.read32(regs::scratch::OFFSET), v);
    }
    b.write32(regs::qpc_base_lo::OFFSET, 0x1234_5FFF);
    assert_eq!(b.read32(regs::qpc_base_lo::OFFSET), 0x1234_5000, "table bases are 4 KiB aligned");
    // reserved offsets read 0 and ignore writes
    b.write32(0x0F00, 0xFFFF_FFFF);
    assert_eq!(b.read32(0x0F00), 0);
    // soft reset returns registers to their reset values
    b.write32(regs::ctrl::OFFSET, regs::ctrl::SOFT_RESET.encode(1).unwrap());
    b.steps(4);
    assert_eq!(b.read32(regs::scratch::OFFSET), 0);
    assert_eq!(b.read32(regs::ctrl::OFFSET), 0);
}

/// Random WQEs on random QPs, rung in random steps, taken under
/// backpressure with completions reordered: every WQE arrives exactly once,
/// in order per queue, byte for byte.
#[test]
fn doorbells_fetch_every_wqe_in_order() {
    let mut b = bench(3);
    b.wqe_ready_pct = 60;
    let mut rng = Rng(99);
    let qpns = [2u32, 3, 17, 500, 1023];
    let mut expect: HashMap<(u32, bool), Vec<Vec<u8>>> = HashMap::new();
    let mut prod: HashMap<(u32, bool), u16> = HashMap::new();
    for (i, &qpn) in qpns.iter().enumerate() {
        let sq = RINGS + 0x10_0000 * i as u64;
        b.create_qp(qpn, sq, 4, sq + 0x8_0000, 3);
    }
    let total_rounds = 12;
    for _ in 0..total_rounds {
        for (i, &qpn) in qpns.iter().enumerate() {
            for rq in [false, true] {
                let (log, size) = if rq { (3u32, 64usize) } else { (4u32, 128usize) };
                let base = RINGS + 0x10_0000 * i as u64 + if rq { 0x8_0000 } else { 0 };
                let p = prod.entry((qpn, rq)).or_default();
                let delivered = b.wqes.iter().filter(|w| w.qpn == qpn && w.rq == rq).count() as u16;
                // the driver never overfills: only slots the device consumed
                let room = (1u16 << log) - p.wrapping_sub(delivered);
                let n = (rng.next() % (room as u64 + 1)) as u16;
                for _ in 0..n {
                    let bytes: Vec<u8> = (0..size).map(|_| rng.next() as u8).collect();
                    b.write_host(base + (ring::slot(*p, log) * size) as u64, &bytes);
                    expect.entry((qpn, rq)).or_default().push(bytes);
                    *p = p.wrapping_add(1);
                }
                if n > 0 {
                    let kind = if rq { DoorbellKind::RqProducer } else { DoorbellKind::SqProducer };
                    let index = *p;
                    b.doorbell(kind, qpn, index, false);
                }
            }
        }
        b.steps(300);
    }
    let want: usize = expect.values().map(|v| v.len()).sum();
    b.until(200_000, "all WQEs fetched", |b| b.wqes.len() == want);
    b.steps(500);
    assert_eq!(b.wqes.len(), want, "no WQE twice");
    let mut seen: HashMap<(u32, bool), usize> = HashMap::new();
    for w in &b.wqes {
        assert!(!w.err);
        let k = seen.entry((w.qpn, w.rq)).or_default();
        let list = &expect[&(w.qpn, w.rq)];
        assert_eq!(w.index as usize, *k, "QP {} {}: WQE index", w.qpn, if w.rq { "RQ" } else { "SQ" });
        assert_eq!(&w.bytes, &list[*k], "QP {} {} WQE {}: bytes", w.qpn, if w.rq { "RQ" } else { "SQ" }, k);
        *k += 1;
    }
    assert!(want > 100, "the test moved {want} WQEs");
    assert_eq!(b.read32(regs::events::OFFSET), 0, "no error event");
}

/// One doorbell for many WQEs becomes few DMA reads (8 WQEs each, split
/// only at the ring's end).
#[test]
fn descriptor_fetch_batches_consecutive_wqes() {
    let mut b = bench(4);
    b.create_qp(5, RINGS, 7, RINGS + 0x10_0000, 7);
    let reads0 = b.port.stats.read_requests;
    b.doorbell(DoorbellKind::RqProducer, 5, 64, false);
    b.until(20_000, "64 receive WQEs", |b| b.wqes.len() == 64);
    // 64 x 64 B in batches of 8 = 8 commands of 512 B: 8 requests at MRRS 512
    assert_eq!(b.port.stats.read_requests - reads0, 8);
    // wrapping: producer 64 -> 130 on a 128-entry ring fetches 64..127 then 0..1
    let reads1 = b.port.stats.read_requests;
    b.doorbell(DoorbellKind::RqProducer, 5, 130, false);
    b.until(20_000, "66 more", |b| b.wqes.len() == 130);
    assert_eq!(b.port.stats.read_requests - reads1, 9);
    let idx: Vec<u16> = b.wqes.iter().map(|w| w.index).collect();
    assert_eq!(idx, (0..130).collect::<Vec<u16>>());
}

#[test]
fn bad_doorbells_raise_an_event_and_an_interrupt() {
    let mut b = bench(5);
    b.create_qp(7, RINGS, 4, RINGS + 0x1000, 4);
    b.write32(regs::irq_events::OFFSET, 33);
    b.write32(regs::events_enable::OFFSET, regs::events_enable::DOORBELL_ERROR.encode(1).unwrap());
    for (kind, queue) in [
        (DoorbellKind::SqProducer, 0u32), // QP 0 has no context
        (DoorbellKind::SqProducer, 9),    // never loaded
        (DoorbellKind::RqProducer, 4096), // beyond this build's table
        (DoorbellKind::CqArm, 12),        // CQ never loaded
    ] {
        b.doorbell(kind, queue, 1, false);
        b.steps(20);
        let ev = b.read32(regs::events::OFFSET);
        assert_eq!(regs::events::DOORBELL_ERROR.get(ev), 1, "{kind:?} {queue}");
        assert_eq!(b.read32(regs::events_queue::OFFSET), queue);
        b.write32(regs::events::OFFSET, ev); // write 1 to clear
        assert_eq!(b.read32(regs::events::OFFSET), 0);
    }
    b.steps(100);
    assert_eq!(b.irqs.iter().filter(|d| d.vector == 33).count(), 4, "one events interrupt per error");
    assert!(b.wqes.is_empty(), "nothing fetched for bad doorbells");
    // invalidate: the QP's doorbells fail from then on
    b.doorbell(DoorbellKind::SqProducer, 7, 0, false);
    assert_eq!(b.read32(regs::events::OFFSET), 0);
    assert!(!b.ctx_cmd(ContextOp::Invalidate, ContextTable::Qp, 7));
    b.doorbell(DoorbellKind::SqProducer, 7, 1, false);
    b.steps(10);
    assert_eq!(regs::events::DOORBELL_ERROR.get(b.read32(regs::events::OFFSET)), 1);
    // commands the build cannot do fail cleanly
    assert!(b.ctx_cmd(ContextOp::Load, ContextTable::Mpt, 1), "MPT is not cached by this build yet");
    assert!(b.ctx_cmd(ContextOp::Load, ContextTable::Qp, 2000), "QP beyond the build's table");
}

/// The driver polls CQEs by owner bit through several wraps of an 8-entry
/// ring, returning slots with consumer doorbells.
#[test]
fn cqes_land_with_owner_bits_through_wraps() {
    let mut b = bench(6);
    let ring_base = RINGS + 0x20_0000;
    b.create_cq(3, ring_base, 3, 0, 0, 0);
    let mut cons: u16 = 0;
    let mut posted = 0u64;
    let mut rng = Rng(5);
    while cons < 40 {
        // post up to the free space, in random amounts
        let free = 8 - (posted as u16).wrapping_sub(cons);
        let n = rng.next() % (free as u64 + 1);
        for _ in 0..n {
            b.post_cqe(3, HostBench::make_cqe(1000 + posted, 77, posted as u16), false);
            posted += 1;
        }
        b.steps(40);
        // poll
        loop {
            let slot = ring::slot(cons, 3);
            let e = b.read_host(ring_base + 32 * slot as u64, 32);
            if cqe::OWNER.get(&e).unwrap() != ring::owner_for(cons, 3) {
                break;
            }
            assert_eq!(cqe::WR_ID.get(&e).unwrap(), 1000 + cons as u64, "CQE {cons}");
            assert_eq!(cqe::WQE_INDEX.get(&e).unwrap(), cons);
            assert_eq!(cqe::QPN.get(&e).unwrap(), 77);
            cons += 1;
        }
        b.doorbell(DoorbellKind::CqConsumer, 3, cons, false);
        // the transport's next completions come after the device saw the slots freed
        b.flush_mmio();
        assert!(b.now() < 200_000, "40 completions polled in time");
    }
    assert_eq!(b.read32(regs::events::OFFSET), 0);
    // Store writes PROD and CONS back into the context
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Cq, 3));
    let ctx = b.read_host(CQC_TABLE + 64 * 3, 64);
    assert_eq!(cqc::PROD.get(&ctx).unwrap() as u64, posted);
    assert_eq!(cqc::CONS.get(&ctx).unwrap(), cons);
    assert_eq!(cqc::LOG_SIZE.get(&ctx).unwrap(), 3);
    assert_eq!(cqc::RING_BASE.get(&ctx).unwrap(), ring_base, "Store leaves the driver's fields alone");
}

#[test]
fn a_full_cq_overruns_and_says_so() {
    let mut b = bench(7);
    b.create_cq(4, RINGS, 2, 0, 0, 0);
    for i in 0..6 {
        b.post_cqe(4, HostBench::make_cqe(i, 1, i as u16), false);
    }
    b.until(5000, "CQEs taken", |b| b.cqes_pending() == 0);
    b.steps(500);
    let ev = b.read32(regs::events::OFFSET);
    assert_eq!(regs::events::CQ_OVERRUN.get(ev), 1);
    assert_eq!(b.read32(regs::events_queue::OFFSET), 4);
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Cq, 4));
    let ctx = b.read_host(CQC_TABLE + 64 * 4, 64);
    assert!(cqc::OVERRUN.get(&ctx).unwrap());
    assert_eq!(cqc::PROD.get(&ctx).unwrap(), 4, "only the ring's 4 entries were written");
    // the first four are intact
    for i in 0..4u64 {
        let e = b.read_host(RINGS + 32 * i, 32);
        assert_eq!(cqe::WR_ID.get(&e).unwrap(), i);
    }
}

/// Arming, count and time moderation, solicited-only arming, and arming
/// with unpolled CQEs; every interrupt finds its CQE already in memory.
#[test]
fn interrupts_follow_arming_and_moderation() {
    let mut b = bench(8);
    let ring_base = RINGS + 0x40_0000;
    b.create_cq(9, ring_base, 6, 42, 4, 0);
    let count = |b: &HostBench| b.irqs.iter().filter(|d| d.vector == 42).count();
    let mut posted = 0u16;
    fn post(b: &mut HostBench, posted: &mut u16, n: u16, sol: bool) {
        for _ in 0..n {
            b.post_cqe(9, HostBench::make_cqe(*posted as u64, 9, *posted), sol);
            *posted += 1;
        }
    }
    // not armed: no interrupt
    post(&mut b, &mut posted, 2, false);
    b.steps(1000);
    assert_eq!(count(&b), 0);
    // armed with unpolled completions: at once
    b.doorbell(DoorbellKind::CqArm, 9, 0, false);
    b.flush_mmio();
    b.steps(200);
    assert_eq!(count(&b), 1);
    // polled up to 2, armed: 3 completions stay below MOD_COUNT 4 ...
    b.doorbell(DoorbellKind::CqArm, 9, 2, false);
    b.flush_mmio();
    post(&mut b, &mut posted, 3, false);
    b.steps(1000);
    assert_eq!(count(&b), 1);
    // ... the fourth interrupts, once
    post(&mut b, &mut posted, 1, false);
    b.steps(500);
    assert_eq!(count(&b), 2);
    post(&mut b, &mut posted, 8, false);
    b.steps(1000);
    assert_eq!(count(&b), 2, "one interrupt per arming");
    // solicited-only arming ignores unsolicited completions
    b.doorbell(DoorbellKind::CqArm, 9, posted, true);
    b.flush_mmio();
    post(&mut b, &mut posted, 5, false);
    b.steps(1000);
    assert_eq!(count(&b), 2);
    post(&mut b, &mut posted, 1, true);
    b.steps(500);
    assert_eq!(count(&b), 3);

    // time moderation: a CQ with MOD_COUNT 100 and 20 us interrupts 20 us
    // after its first completion
    b.create_cq(10, RINGS + 0x50_0000, 6, 43, 100, 20);
    b.doorbell(DoorbellKind::CqArm, 10, 0, false);
    b.flush_mmio();
    b.post_cqe(10, HostBench::make_cqe(1, 10, 0), false);
    let t0 = b.now();
    b.until(20_000, "timed interrupt", |b| b.irqs.iter().any(|d| d.vector == 43));
    let req = b.irq_requests.iter().find(|(v, _)| *v == 43).unwrap().1;
    let waited = req - t0;
    assert!((20 * 250..=21 * 250 + 300).contains(&waited), "timer fired after {waited} cycles");
}

/// Interrupts never overtake the CQE write they announce: checked at each
/// MSI-X delivery against host memory, with completions reordered and
/// slow writes.
#[test]
fn interrupt_never_precedes_its_cqe() {
    let slow = PcieConfig { write_latency: 400, reorder_seed: Some(1), ..PcieConfig::gen3_x16() };
    let mut b = HostBench::new(slow, 12);
    b.bring_up();
    let ring_base = RINGS + 0x60_0000;
    b.create_cq(2, ring_base, 8, 7, 1, 0);
    // checked at the moment of delivery: the CQE of the latest posting is in memory
    let want = std::rc::Rc::new(std::cell::Cell::new(0u16));
    let bad = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let (w, bad2) = (want.clone(), bad.clone());
    b.on_irq = Some(Box::new(move |host, d| {
        if d.vector != 7 {
            return;
        }
        let i = w.get();
        let phys = 0x3_0000_0000 + ((ring_base + 32 * i as u64) & 0xFFFF_FFFF);
        let e = host.memory.read_vec(phys, 32);
        if cqe::OWNER.get(&e).unwrap() != ring::owner_for(i, 8) || cqe::WR_ID.get(&e).unwrap() != i as u64 {
            bad2.borrow_mut().push(format!("interrupt at cycle {} before CQE {i} was in memory", d.cycle));
        }
    }));
    let mut seen_ok = 0;
    for i in 0..20u16 {
        want.set(i);
        b.doorbell(DoorbellKind::CqArm, 2, i, false);
        b.flush_mmio();
        b.post_cqe(2, HostBench::make_cqe(i as u64, 2, i), false);
        let before = b.irqs.len();
        b.until(5000, "interrupt", |b| b.irqs.len() > before);
        assert!(bad.borrow().is_empty(), "{:?}", bad.borrow());
        seen_ok += 1;
    }
    assert_eq!(seen_ok, 20);
}

/// Interrupt ordering with many CQEs outstanding: four CQs with their own
/// vectors and count moderation (1, 3, 5, 8), completions for all of them
/// interleaved in one stream, posted writes slow to land (1.6 us, so dozens
/// of CQE writes are in flight at once) and read completions reordered. A
/// driver polls each CQ by owner bit when its interrupt arrives and
/// re-arms it; the transport then posts exactly MOD_COUNT more CQEs to it,
/// the last of which triggers its next interrupt. At every interrupt
/// request (and again at its MSI-X delivery), every CQE taken before the
/// triggering one, on any CQ, and the triggering one are in host memory
/// (docs/host.md); the driver finds exactly MOD_COUNT new CQEs each time.
/// (Write completions come in issue order: the boundary promises it.)
#[test]
fn interrupts_wait_for_every_earlier_cqe_write() {
    use std::cell::RefCell;
    use std::rc::Rc;
    let slow = PcieConfig { write_latency: 400, reorder_seed: Some(3), ..PcieConfig::gen3_x16() };
    let mut b = HostBench::new(slow, 13);
    b.bring_up();
    // (CQN, vector, MOD_COUNT); rings of 1024 entries, never wrapped here
    let cqs = [(20u32, 50u16, 1u16), (21, 51, 3), (22, 52, 5), (23, 53, 8)];
    let log = 10u8;
    let base = |k: usize| RINGS + 0x70_0000 + 0x10_0000 * k as u64;
    for (k, &(cqn, vector, count)) in cqs.iter().enumerate() {
        b.create_cq(cqn, base(k), log, vector, count, 0);
        b.doorbell(DoorbellKind::CqArm, cqn, 0, false);
    }
    b.flush_mmio();
    // every CQE posted, in order: (CQ, index in it)
    let posted_all: Rc<RefCell<Vec<(usize, u16)>>> = Rc::default();
    // per CQ: how many CQEs of `posted_all` its pending interrupt announces
    let announced: Rc<RefCell<[Option<usize>; 4]>> = Rc::default();
    let violations: Rc<RefCell<Vec<String>>> = Rc::default();
    let checked: Rc<RefCell<u64>> = Rc::default();
    let check = {
        let (posted_all, announced, violations, checked) =
            (posted_all.clone(), announced.clone(), violations.clone(), checked.clone());
        move |host: &rnic_host::HostSpace, v: u16, when: &str| {
            let Some(k) = cqs.iter().position(|c| c.1 == v) else { return };
            let Some(n) = announced.borrow()[k] else {
                violations.borrow_mut().push(format!("{when}: interrupt on CQ {} with no trigger posted", cqs[k].0));
                return;
            };
            for &(c, i) in &posted_all.borrow()[..n] {
                let iova = base(c) + 32 * ring::slot(i, log.into()) as u64;
                let e = host.memory.read_vec(HostBench::phys(iova), 32);
                let here = cqe::OWNER.get(&e).unwrap() == ring::owner_for(i, log.into())
                    && cqe::WR_ID.get(&e).unwrap() == ((c as u64) << 32 | i as u64);
                if !here {
                    violations.borrow_mut().push(format!(
                        "{when}: interrupt of CQ {} before CQE {i} of CQ {} was in memory",
                        cqs[k].0, cqs[c].0
                    ));
                }
                *checked.borrow_mut() += 1;
            }
        }
    };
    let c1 = check.clone();
    b.on_irq_request = Some(Box::new(move |host, v, now| c1(host, v, &format!("request at cycle {now}"))));
    b.on_irq = Some(Box::new(move |host, d| check(host, d.vector, &format!("delivery at cycle {}", d.cycle))));

    let mut rng = Rng(77);
    let mut posted = [0u16; 4];
    let mut cons = [0u16; 4];
    // per CQ: CQEs still to post before its next interrupt, and the cycle
    // from which its last arm doorbell has surely reached the device
    let mut to_post: [u16; 4] = std::array::from_fn(|k| cqs[k].2);
    let mut armed_from = [0u64; 4];
    let mut seen_irqs = 0;
    let rounds = 25;
    let mut interrupts = [0usize; 4];
    while interrupts.iter().any(|&n| n < rounds) {
        // the transport: a few CQEs to random CQs that wait for theirs
        if rng.chance(40) {
            for _ in 0..1 + rng.next() % 4 {
                let k = rng.next() as usize % 4;
                if to_post[k] == 0 || b.now() < armed_from[k] || interrupts[k] >= rounds {
                    continue;
                }
                let i = posted[k];
                b.post_cqe(cqs[k].0, HostBench::make_cqe(((k as u64) << 32) | i as u64, cqs[k].0, i), false);
                posted_all.borrow_mut().push((k, i));
                posted[k] += 1;
                to_post[k] -= 1;
                if to_post[k] == 0 {
                    // this one triggers CQ k's interrupt
                    announced.borrow_mut()[k] = Some(posted_all.borrow().len());
                }
            }
        }
        b.step();
        // the driver: on each interrupt, poll that CQ and re-arm it
        while seen_irqs < b.irqs.len() {
            let v = b.irqs[seen_irqs].vector;
            seen_irqs += 1;
            let k = cqs.iter().position(|c| c.1 == v).expect("only CQ vectors");
            interrupts[k] += 1;
            let before = cons[k];
            loop {
                let e = b.read_host(base(k) + 32 * ring::slot(cons[k], log.into()) as u64, 32);
                if cqe::OWNER.get(&e).unwrap() != ring::owner_for(cons[k], log.into()) {
                    break;
                }
                assert_eq!(cqe::WR_ID.get(&e).unwrap(), ((k as u64) << 32) | cons[k] as u64, "CQ {k}: CQE {}", cons[k]);
                cons[k] += 1;
            }
            assert_eq!(
                cons[k] - before,
                cqs[k].2,
                "CQ {}: interrupt {} announces MOD_COUNT new CQEs",
                cqs[k].0,
                interrupts[k]
            );
            announced.borrow_mut()[k] = None;
            b.doorbell(DoorbellKind::CqArm, cqs[k].0, cons[k], false);
            to_post[k] = cqs[k].2;
            armed_from[k] = b.now() + 2 * b.mmio.write_latency + 100;
        }
        assert!(b.now() < 1_000_000, "{rounds} interrupts per CQ in time: {interrupts:?}");
    }
    b.steps(3000);
    assert!(violations.borrow().is_empty(), "{:#?}", &violations.borrow()[..violations.borrow().len().min(5)]);
    assert_eq!(b.irqs.len(), 4 * rounds, "one interrupt per MOD_COUNT CQEs, none extra");
    assert_eq!(b.irq_requests.len(), b.irqs.len());
    let total: u16 = posted.iter().sum();
    assert_eq!(total, rounds as u16 * cqs.iter().map(|c| c.2).sum::<u16>());
    assert!(b.max_writes_in_flight >= 16, "at most {} writes in flight: not many outstanding", b.max_writes_in_flight);
    assert_eq!(b.read32(regs::events::OFFSET), 0);
    eprintln!(
        "{total} CQEs on 4 CQs, {} interrupts, up to {} CQE writes in flight; {} CQEs checked in memory at requests and deliveries, none missing",
        b.irqs.len(),
        b.max_writes_in_flight,
        checked.borrow()
    );
}

/// A CQ whose context leaves MOD_COUNT and MOD_TIME_US at 0 takes
/// `irq_moderation`'s (docs/host.md); an error completion interrupts a CQ
/// armed for solicited completions only.
#[test]
fn moderation_defaults_and_error_completions() {
    let mut b = bench(14);
    // defaults: 3 completions per interrupt, no timer
    b.write32(regs::irq_moderation::OFFSET, regs::irq_moderation::COUNT.encode(3).unwrap());
    b.create_cq(30, RINGS + 0x80_0000, 6, 60, 0, 0);
    b.doorbell(DoorbellKind::CqArm, 30, 0, false);
    b.flush_mmio();
    let count = |b: &HostBench, v: u16| b.irqs.iter().filter(|d| d.vector == v).count();
    for i in 0..2u16 {
        b.post_cqe(30, HostBench::make_cqe(i as u64, 30, i), false);
    }
    b.steps(2000);
    assert_eq!(count(&b, 60), 0, "two completions stay below the default count of 3");
    b.post_cqe(30, HostBench::make_cqe(2, 30, 2), false);
    b.steps(1000);
    assert_eq!(count(&b, 60), 1, "the third interrupts");
    // default timer: 4 us, count 100
    b.write32(
        regs::irq_moderation::OFFSET,
        regs::irq_moderation::COUNT.encode(100).unwrap() | regs::irq_moderation::TIME_US.encode(4).unwrap(),
    );
    b.doorbell(DoorbellKind::CqArm, 30, 3, false);
    b.flush_mmio();
    b.post_cqe(30, HostBench::make_cqe(3, 30, 3), false);
    let t0 = b.now();
    b.until(10_000, "default-timer interrupt", |b| b.irqs.iter().filter(|d| d.vector == 60).count() == 2);
    let req = b.irq_requests.iter().filter(|(v, _)| *v == 60).nth(1).unwrap().1;
    assert!((4 * 250..=5 * 250 + 300).contains(&(req - t0)), "timer fired after {} cycles", req - t0);
    // solicited-only arming: an unsolicited success does not interrupt, an
    // unsolicited error does
    b.write32(regs::irq_moderation::OFFSET, regs::irq_moderation::RESET);
    b.doorbell(DoorbellKind::CqArm, 30, 4, true);
    b.flush_mmio();
    b.post_cqe(30, HostBench::make_cqe(4, 30, 4), false);
    b.steps(2000);
    assert_eq!(count(&b, 60), 2);
    let mut e = HostBench::make_cqe(5, 30, 5);
    cqe::STATUS.set(&mut e, rnic_contract::codes::WcStatus::LocProtErr).unwrap();
    b.post_cqe(30, e, false);
    b.steps(1000);
    assert_eq!(count(&b, 60), 3, "an error completion interrupts a solicited-only arming");
}

/// Doorbells back to back while the transport takes nothing: none is
/// dropped. Context commands back to back: the second waits with
/// `awready`/`wready` low until the first is done (backpressure, not a
/// drop), and both take effect.
#[test]
fn register_writes_back_pressure_and_none_is_dropped() {
    let mut b = bench(15);
    let qpns: Vec<u32> = (40..72).collect();
    let sq = |i: usize| RINGS + 0x100_0000 + 0x1000 * i as u64;
    for (i, &q) in qpns.iter().enumerate() {
        let mut e = [0u8; 128];
        qpc::SQ_BASE.set(&mut e, sq(i)).unwrap();
        qpc::RQ_BASE.set(&mut e, sq(i) + 0x800).unwrap();
        qpc::SQ_LOG_SIZE.set(&mut e, 4).unwrap();
        qpc::RQ_LOG_SIZE.set(&mut e, 4).unwrap();
        b.write_host(QPC_TABLE + 128 * q as u64, &e);
        b.write_host(sq(i), &[q as u8; 128]);
    }
    // every Load written back to back, nobody polling ctx_status in between
    b.mmio.write_latency = 1;
    for &q in &qpns {
        let word = regs::ctx_cmd::OP.encode(ContextOp::Load as u32).unwrap()
            | regs::ctx_cmd::TABLE.encode(ContextTable::Qp as u32).unwrap()
            | regs::ctx_cmd::INDEX.encode(q).unwrap();
        b.write32(regs::ctx_cmd::OFFSET, word);
    }
    b.flush_mmio();
    let stalls = b.axil_write_stalls;
    assert!(stalls > 0, "the register port pushed back");
    let mut status = b.read32(regs::ctx_status::OFFSET);
    for _ in 0..100 {
        if regs::ctx_status::BUSY.get(status) == 0 {
            break;
        }
        status = b.read32(regs::ctx_status::OFFSET);
    }
    assert_eq!(regs::ctx_status::BUSY.get(status), 0, "the last Load finished");
    assert_eq!(regs::ctx_status::ERROR.get(status), 0, "the last Load succeeded");
    // doorbells back to back while the transport takes nothing
    b.wqe_ready_pct = 0;
    for &q in &qpns {
        b.doorbell(DoorbellKind::SqProducer, q, 1, false);
    }
    b.steps(3000);
    b.wqe_ready_pct = 100;
    b.flush_mmio();
    b.until(50_000, "one WQE per doorbell", |b| b.wqes.len() == qpns.len());
    b.steps(500);
    let mut got: Vec<u32> = b.wqes.iter().map(|w| w.qpn).collect();
    got.sort();
    assert_eq!(got, qpns, "every QP loaded and every doorbell fetched its WQE, once");
    assert!(b.wqes.iter().all(|w| w.bytes == vec![w.qpn as u8; 128]));
    assert_eq!(b.read32(regs::events::OFFSET), 0);
    eprintln!("{} Loads back to back: {stalls} cycles of backpressure, every one done", qpns.len());
}

/// Time moderation with many timers waiting (docs/host.md): 32 armed CQs
/// with MOD_TIME_US 10 each take one completion, back to back. Every
/// interrupt comes 10 us after its completion, give or take the
/// microsecond tick, and at most N = 32 cycles late for the timers queued
/// ahead of it.
#[test]
fn timers_fire_on_time_with_many_waiting() {
    let mut b = bench(16);
    let n = 32u32;
    for c in 0..n {
        b.create_cq(100 + c, RINGS + 0x200_0000 + 0x1000 * c as u64, 6, 200 + c as u16, 1000, 10);
        b.doorbell(DoorbellKind::CqArm, 100 + c, 0, false);
    }
    b.flush_mmio();
    let taken0 = b.cqe_taken.len();
    for c in 0..n {
        b.post_cqe(100 + c, HostBench::make_cqe(c as u64, 1, 0), false);
    }
    b.until(20_000, "32 timed interrupts", |b| b.irq_requests.iter().filter(|(v, _)| *v >= 200).count() == n as usize);
    let us = 250;
    let mut late = vec![];
    for c in 0..n {
        let taken = b.cqe_taken[taken0 + c as usize];
        let req = b.irq_requests.iter().find(|(v, _)| *v == 200 + c as u16).unwrap().1;
        let waited = req - taken;
        assert!(
            (9 * us..=11 * us + n as u64).contains(&waited),
            "CQ {}: interrupt {waited} cycles after its completion",
            100 + c
        );
        late.push(waited);
    }
    let spread = late.iter().max().unwrap() - late.iter().min().unwrap();
    assert!(spread <= us + n as u64, "timers {spread} cycles apart");
    eprintln!(
        "32 timers: interrupts {}..{} cycles after their completions",
        late.iter().min().unwrap(),
        late.iter().max().unwrap()
    );
}

/// Busy queues take turns (docs/host.md): two QPs rung for 64 WQEs each,
/// one right after the other, are fetched in alternating batches of 8.
#[test]
fn busy_queues_take_turns_in_batches_of_eight() {
    let mut b = bench(17);
    b.create_qp(80, RINGS, 7, RINGS + 0x10_0000, 7);
    b.create_qp(81, RINGS + 0x20_0000, 7, RINGS + 0x30_0000, 7);
    b.doorbell(DoorbellKind::SqProducer, 80, 64, false);
    b.doorbell(DoorbellKind::SqProducer, 81, 64, false);
    b.until(50_000, "128 WQEs", |b| b.wqes.len() == 128);
    let order: Vec<u32> = b.wqes.iter().map(|w| w.qpn).collect();
    let runs: Vec<(u32, usize)> = order.chunk_by(|a, b| a == b).map(|r| (r[0], r.len())).collect();
    // the first queue runs alone until the second's doorbell arrives, and
    // the second alone at the end; in between they alternate by 8
    assert!(runs.len() >= 12, "alternating batches: {runs:?}");
    assert!(runs[1..runs.len() - 1].iter().all(|r| r.1 == 8), "batches of 8: {runs:?}");
    assert!(runs.iter().all(|r| r.1 % 8 == 0), "whole batches: {runs:?}");
    assert!(runs.windows(2).all(|w| w[0].0 != w[1].0), "the queues alternate: {runs:?}");
}

/// Context commands move what docs/host.md says: Load is one DMA read of
/// the whole context (128 B QP, 64 B CQ); Store writes back only the
/// device's bytes (QP: 8 at byte 56; CQ: 6 at byte 8).
#[test]
fn context_commands_move_exactly_the_documented_bytes() {
    let mut b = bench(18);
    for (table, n, size, at, len) in
        [(ContextTable::Qp, 90u32, 128u64, 56usize, 8usize), (ContextTable::Cq, 91, 64, 8, 6)]
    {
        let base = if table == ContextTable::Qp { QPC_TABLE } else { CQC_TABLE };
        let addr = base + size * n as u64;
        if table == ContextTable::Qp {
            b.create_qp(n, RINGS, 4, RINGS + 0x1000, 4);
        } else {
            b.create_cq(n, RINGS + 0x2000, 4, 1, 1, 0);
        }
        let (reads, bytes) = (b.port.stats.read_requests, b.port.stats.read_bytes_requested);
        assert!(!b.ctx_cmd(ContextOp::Load, table, n));
        assert_eq!(b.port.stats.read_requests - reads, 1, "{table:?}: Load is one DMA read");
        assert_eq!(b.port.stats.read_bytes_requested - bytes, size, "{table:?}: of the whole context");
        let ctx = b.read_host(addr, size as usize);
        b.write_host(addr, &vec![0xEE; size as usize]);
        let (writes, wbytes) = (b.port.stats.write_requests, b.port.stats.write_bytes);
        assert!(!b.ctx_cmd(ContextOp::Store, table, n));
        assert_eq!(b.port.stats.write_requests - writes, 1, "{table:?}: Store is one DMA write");
        assert_eq!(b.port.stats.write_bytes - wbytes, len as u64, "{table:?}: of {len} bytes");
        let after = b.read_host(addr, size as usize);
        for (i, (&got, &was)) in after.iter().zip(&ctx).enumerate() {
            if (at..at + len).contains(&i) {
                assert_eq!(got, was, "{table:?} byte {i}: the device's value written back");
            } else {
                assert_eq!(got, 0xEE, "{table:?} byte {i}: not the device's to write");
            }
        }
    }
}

/// A context command whose DMA fails (the table's IOVA unmapped; the IOMMU
/// reports the fault as an error completion) ends with `ctx_status.ERROR`,
/// for a Load (read) and a Store (write); the next good command clears it.
#[test]
fn context_dma_errors_are_reported() {
    let mut b = bench(19);
    b.create_qp(5, RINGS, 4, RINGS + 0x1000, 4);
    b.port.host.iommu.set_mode(rnic_host::FaultMode::Count);
    let unmapped = 0x40_0000_0000u64;
    b.write32(regs::qpc_base_lo::OFFSET, unmapped as u32);
    b.write32(regs::qpc_base_hi::OFFSET, (unmapped >> 32) as u32);
    assert!(b.ctx_cmd(ContextOp::Load, ContextTable::Qp, 6), "Load from an unmapped table fails");
    assert!(b.ctx_cmd(ContextOp::Store, ContextTable::Qp, 5), "Store to an unmapped table fails");
    assert_eq!(b.port.host.iommu.fault_count(), 2, "the IOMMU saw both");
    b.write32(regs::qpc_base_lo::OFFSET, QPC_TABLE as u32);
    b.write32(regs::qpc_base_hi::OFFSET, (QPC_TABLE >> 32) as u32);
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Qp, 5), "the next good command clears ERROR");
}

#[test]
fn store_writes_back_ring_indices() {
    let mut b = bench(9);
    b.create_qp(30, RINGS, 5, RINGS + 0x1_0000, 5);
    b.doorbell(DoorbellKind::SqProducer, 30, 5, false);
    b.doorbell(DoorbellKind::RqProducer, 30, 3, false);
    b.until(5000, "fetched", |b| b.wqes.len() == 8);
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Qp, 30));
    let ctx = b.read_host(QPC_TABLE + 128 * 30, 128);
    assert_eq!(qpc::SQ_PROD.get(&ctx).unwrap(), 5);
    assert_eq!(qpc::SQ_CONS.get(&ctx).unwrap(), 5);
    assert_eq!(qpc::RQ_PROD.get(&ctx).unwrap(), 3);
    assert_eq!(qpc::RQ_CONS.get(&ctx).unwrap(), 3);
    assert_eq!(qpc::SQ_BASE.get(&ctx).unwrap(), RINGS, "the driver's fields are untouched");
    // a QP reloaded from its stored context resumes where it was
    assert!(!b.ctx_cmd(ContextOp::Load, ContextTable::Qp, 30));
    b.write_host(RINGS + 5 * 128, &[0xA5; 128]);
    b.doorbell(DoorbellKind::SqProducer, 30, 6, false);
    b.until(5000, "one more", |b| b.wqes.len() == 9);
    let w = b.wqes.last().unwrap();
    assert_eq!((w.qpn, w.rq, w.index), (30, false, 5));
    assert_eq!(w.bytes, vec![0xA5; 128]);
}

// ------------------------------------------------------------------ hazards
//
// The two table blocks alone (their Verilog), with events on one QP and one
// CQ in consecutive cycles: the block's pipelined read-modify-write must
// act as if every event were applied alone, in the order taken (within a
// cycle: setup, query, doorbell, as docs/host.md ranks them).

use rnic_sim::models::{cq_engine, desc_fetch};
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// One input event of the descriptor fetcher, and when it is first offered.
#[derive(Clone, Copy, Debug)]
enum QpEvent {
    /// QPN, SQ (base, log, prod, cons), RQ (base, log, prod, cons), live
    Setup(u32, (u64, u8, u16, u16), (u64, u8, u16, u16), bool),
    Query(u32),
    /// QPN, RQ, index
    Db(u32, bool, u16),
}

fn wide_set<M: Model>(m: &mut M, name: &str, w: &[u32]) {
    let i = m.port(name);
    m.set_words(i, w);
}

fn wide_get<M: Model>(m: &M, name: &str) -> Vec<u32> {
    let i = m.port(name);
    let mut w = vec![0u32; m.ports()[i].words()];
    m.get_words(i, &mut w);
    w
}

/// The 64 bytes the host returns for a descriptor read at `addr`.
fn wqe_pattern(addr: u64) -> [u32; 16] {
    std::array::from_fn(|i| (addr as u32).wrapping_mul(2_654_435_761) ^ (i as u32 * 0x0101_0101) ^ (addr >> 32) as u32)
}

/// The order in which a table block's stage A takes events offered to it:
/// each class (setup 0, query 1, doorbell 2, CQE 3) in the order taken on
/// its port, from the cycle after; each cycle the lowest class with one
/// waiting. `taken`: (cycle taken on the port, class, event).
fn processing_order<E: Copy>(taken: &[(u64, u8, E)]) -> Vec<(u64, E)> {
    let mut queues: [VecDeque<(u64, E)>; 4] = Default::default();
    let mut sorted = taken.to_vec();
    sorted.sort_by_key(|&(c, r, _)| (c, r));
    for &(c, r, e) in &sorted {
        queues[r as usize].push_back((c, e));
    }
    let mut out = vec![];
    let mut cycle = sorted.first().map_or(0, |t| t.0) + 1;
    while queues.iter().any(|q| !q.is_empty()) {
        if let Some(q) = queues.iter_mut().find(|q| q.front().is_some_and(|&(c, _)| c < cycle)) {
            out.push((cycle, q.pop_front().unwrap().1));
        }
        cycle += 1;
    }
    out
}

#[test]
fn back_to_back_events_on_one_qp_match_a_reference() {
    let mut sim = Clocked::new(desc_fetch::Dut::new());
    sim.dut.set("enable", 0);
    sim.reset(2);
    let (qa, qb) = (5u32, 9u32);
    let (sq_a, rq_a, sq_b) = (0x10_0000u64, 0x20_0000u64, 0x30_0000u64);
    // (first cycle offered, event): phase 1 (fetch off) every event in
    // consecutive cycles on QP a, with setups of a and b in between
    let mut script: Vec<(u64, QpEvent)> = vec![];
    let mut t = 10;
    let setup_a = |p: u16, c: u16| QpEvent::Setup(qa, (sq_a, 6, p, c), (rq_a, 6, p, c), true);
    script.push((t, setup_a(0, 0)));
    for i in 1..=12u16 {
        script.push((t + i as u64, QpEvent::Db(qa, i % 3 == 0, i)));
    }
    script.push((t + 6, QpEvent::Query(qa)));
    t += 20;
    script.push((t, QpEvent::Setup(qb, (sq_b, 5, 3, 3), (sq_b + 0x8000, 2, 1, 1), true)));
    script.push((t + 1, QpEvent::Db(qb, false, 4)));
    for i in 0..6u16 {
        script.push((t + 1 + i as u64, QpEvent::Db(qa, false, 20 + i)));
    }
    script.push((t + 8, QpEvent::Query(qb)));
    t += 16;
    // a setup (reload) of a with doorbells on a in the cycles just before and after
    script.push((t, setup_a(40, 40)));
    for i in 0..5u16 {
        script.push((t - 2 + i as u64, QpEvent::Db(qa, i % 2 == 1, 41 + i)));
    }
    script.push((t + 6, QpEvent::Query(qa)));
    // invalidate b, then doorbells to it fail; one for a QP never loaded
    t += 14;
    script.push((t, QpEvent::Setup(qb, (0, 0, 0, 0), (0, 0, 0, 0), false)));
    script.push((t, QpEvent::Db(qb, false, 5)));
    script.push((t + 1, QpEvent::Db(qb, true, 2)));
    script.push((t + 2, QpEvent::Db(77, false, 1)));
    script.push((t + 8, QpEvent::Query(qa)));
    let phase2 = t + 20;
    // phase 2 (fetch on): doorbells on a every cycle race the fetches of a
    for i in 0..40u16 {
        script.push((phase2 + i as u64, QpEvent::Db(qa, i % 2 == 1, 46 + i / 2)));
    }
    script.push((phase2 + 20, QpEvent::Query(qa)));

    let mut setups: VecDeque<(u64, QpEvent)> = VecDeque::new();
    let mut queries: VecDeque<(u64, QpEvent)> = VecDeque::new();
    let mut dbs: VecDeque<(u64, QpEvent)> = VecDeque::new();
    for &(c, e) in &script {
        match e {
            QpEvent::Setup(..) => setups.push_back((c, e)),
            QpEvent::Query(..) => queries.push_back((c, e)),
            QpEvent::Db(..) => dbs.push_back((c, e)),
        }
    }
    // acceptance order: (cycle, rank) -> event
    let mut taken: Vec<(u64, u8, QpEvent)> = vec![];
    let mut answers: Vec<u64> = vec![];
    let mut db_errors = 0;
    let mut db_taken_cycles: Vec<u64> = vec![];
    // DMA: commands waiting, beats to return
    let mut reads: VecDeque<(u64, u64)> = VecDeque::new();
    let mut rd_beat: Option<(u64, u64)> = None;
    let mut wqes: Vec<(u32, bool, u16, Vec<u32>)> = vec![];
    let mut cur: Vec<u32> = vec![];
    let mut rng = Rng(21);
    let end = phase2 + 3000;
    while sim.cycle() < end {
        let now = sim.cycle();
        let d = &mut sim.dut;
        d.set("enable", (now >= phase2) as u64);
        let offer = |q: &VecDeque<(u64, QpEvent)>| q.front().filter(|(c, _)| *c <= now).map(|&(_, e)| e);
        let su = offer(&setups);
        if let Some(QpEvent::Setup(q, s, r, live)) = su {
            d.set("s_setup.qpn", q as u64);
            d.set("s_setup.sq_base", s.0);
            d.set("s_setup.sq_log", s.1 as u64);
            d.set("s_setup.sq_prod", s.2 as u64);
            d.set("s_setup.sq_cons", s.3 as u64);
            d.set("s_setup.rq_base", r.0);
            d.set("s_setup.rq_log", r.1 as u64);
            d.set("s_setup.rq_prod", r.2 as u64);
            d.set("s_setup.rq_cons", r.3 as u64);
            d.set("s_setup.live", live as u64);
        }
        d.set("s_setup.valid", su.is_some() as u64);
        let qu = offer(&queries);
        if let Some(QpEvent::Query(q)) = qu {
            d.set("s_query.index", q as u64);
        }
        d.set("s_query.valid", qu.is_some() as u64);
        let db = offer(&dbs);
        if let Some(QpEvent::Db(q, rq, i)) = db {
            d.set("s_db.kind", if rq { DoorbellKind::RqProducer } else { DoorbellKind::SqProducer } as u64);
            d.set("s_db.queue", q as u64);
            d.set("s_db.index", i as u64);
        }
        d.set("s_db.valid", db.is_some() as u64);
        d.set("m_rd.ready", rng.chance(70) as u64);
        if rd_beat.is_none() {
            rd_beat = reads.pop_front();
        }
        let rd_valid = rd_beat.is_some() && rng.chance(80);
        if let Some((a, left)) = rd_beat {
            wide_set(d, "s_rd.tdata", &wqe_pattern(a));
            d.set("s_rd.tkeep", u64::MAX);
            d.set("s_rd.tlast", (left == 1) as u64);
            d.set("s_rd.tuser", 0);
        }
        d.set("s_rd.tvalid", rd_valid as u64);
        let wqe_ready = rng.chance(60);
        d.set("m_wqe.tready", wqe_ready as u64);
        d.eval();
        if let Some(e) = su.filter(|_| d.get("s_setup.ready") == 1) {
            taken.push((now, 0, e));
            setups.pop_front();
        }
        if let Some(e) = qu.filter(|_| d.get("s_query.ready") == 1) {
            taken.push((now, 1, e));
            queries.pop_front();
        }
        if let Some(e) = db.filter(|_| d.get("s_db.ready") == 1) {
            taken.push((now, 2, e));
            db_taken_cycles.push(now);
            dbs.pop_front();
        }
        if d.get("query_valid") == 1 {
            answers.push(d.get("query_data"));
        }
        db_errors += d.get("db_error");
        if d.get("m_rd.valid") == 1 && d.get("m_rd.ready") == 1 {
            let (a, len) = (d.get("m_rd.addr"), d.get("m_rd.len"));
            assert!(len > 0 && len % 64 == 0 && a % 64 == 0, "descriptor read {a:#x} {len}");
            for k in 0..len / 64 {
                reads.push_back((a + 64 * k, len / 64 - k));
            }
        }
        if rd_valid && d.get("s_rd.tready") == 1 {
            rd_beat = None;
        }
        if d.get("m_wqe.tvalid") == 1 && wqe_ready {
            cur.extend(wide_get(d, "m_wqe.tdata"));
            if d.get("m_wqe.tlast") == 1 {
                let u = d.get("m_wqe.tuser");
                assert_eq!(u >> 41 & 1, 0, "no DMA error");
                wqes.push(((u >> 16 & 0xFF_FFFF) as u32, u >> 40 & 1 == 1, u as u16, std::mem::take(&mut cur)));
            }
        }
        sim.tick();
    }
    assert!(setups.is_empty() && queries.is_empty() && dbs.is_empty(), "every event taken");
    // one doorbell per cycle: doorbells offered back to back are taken in
    // consecutive cycles unless a setup or query is ahead of them
    let runs = db_taken_cycles.windows(2).filter(|w| w[1] == w[0] + 1).count();
    assert!(runs >= 40, "doorbells taken in consecutive cycles: {runs}");

    // the reference: every event alone, in the order the block takes them
    let order = processing_order(&taken);
    let mut rings: HashMap<(u32, bool), (bool, u16, u16)> = HashMap::new(); // live, pi, ci
    let mut want_answers: Vec<(u64, bool)> = vec![]; // data, whether ci is exact
    let mut want_errors = 0;
    for &(c, e) in &order {
        match e {
            QpEvent::Setup(q, s, r, live) => {
                rings.insert((q, false), (live, s.2, s.3));
                rings.insert((q, true), (live, r.2, r.3));
            }
            QpEvent::Query(q) => {
                let g = |rq| rings.get(&(q, rq)).map_or((0, 0), |r| (r.1, r.2));
                let (s, r) = (g(false), g(true));
                let word = s.0 as u64 | (s.1 as u64) << 16 | (r.0 as u64) << 32 | (r.1 as u64) << 48;
                want_answers.push((word, c < phase2));
            }
            QpEvent::Db(q, rq, i) => match rings.get_mut(&(q, rq)) {
                Some(r) if r.0 && q >= 2 => r.1 = i,
                _ => want_errors += 1,
            },
        }
    }
    assert_eq!(answers.len(), want_answers.len(), "one answer per query");
    for (k, (&got, &(want, exact))) in answers.iter().zip(&want_answers).enumerate() {
        if exact {
            assert_eq!(got, want, "query {k}: {got:#018x}, reference {want:#018x}");
        } else {
            // while fetching, the fetch indices move; the producer indices are exact
            assert_eq!(got & 0xFFFF_0000_FFFF, want & 0xFFFF_0000_FFFF, "query {k}: producer indices");
        }
    }
    assert_eq!(db_errors, want_errors, "doorbell errors");
    // phase 2: every WQE of a's rings from the reload's index 40 up to the
    // last doorbell, once, in order, with the bytes of its slot
    for (rq, base, log, size) in [(false, sq_a, 6u32, 128u64), (true, rq_a, 6, 64)] {
        let got: Vec<_> = wqes.iter().filter(|w| w.0 == qa && w.1 == rq).collect();
        let last = rings[&(qa, rq)].1;
        assert_eq!(got.len(), last.wrapping_sub(40) as usize, "{} WQEs fetched", if rq { "RQ" } else { "SQ" });
        for (k, w) in got.iter().enumerate() {
            let index = 40u16.wrapping_add(k as u16);
            assert_eq!(w.2, index, "WQE order");
            let addr = base + ring::slot(index, log) as u64 * size;
            let want: Vec<u32> = (0..size / 64).flat_map(|b| wqe_pattern(addr + 64 * b)).collect();
            assert_eq!(w.3, want, "WQE {index} bytes");
        }
    }
    assert!(wqes.iter().all(|w| w.0 == qa), "only QP a had work");
    eprintln!("{} events taken, {} answers checked, {} WQEs fetched", taken.len(), answers.len(), wqes.len());
}

/// One input event of the CQ engine.
#[derive(Clone, Copy, Debug)]
enum CqEvent {
    /// CQN, base, log, prod, cons, armed, solicited only, vector, MOD_COUNT, live
    Setup(u32, u64, u8, u16, u16, bool, bool, u16, u16, bool),
    Query(u32),
    /// CQN, arm (else consumer), index, solicited
    Db(u32, bool, u16, bool),
    /// CQN, number (its WR_ID), solicited, error status
    Cqe(u32, u64, bool, bool),
}

#[derive(Clone, Copy, Default)]
struct RefCq {
    live: bool,
    base: u64,
    log: u8,
    prod: u16,
    cons: u16,
    armed: bool,
    sol: bool,
    overrun: bool,
    pending: u16,
    count: u16,
    vector: u16,
}

fn cqe_of(n: u64, err: bool) -> [u8; 32] {
    let mut e = HostBench::make_cqe(1000 + n, 7, n as u16);
    if err {
        cqe::STATUS.set(&mut e, rnic_contract::codes::WcStatus::LocProtErr).unwrap();
    }
    e
}

#[test]
fn back_to_back_events_on_one_cq_match_a_reference() {
    let mut sim = Clocked::new(cq_engine::Dut::new());
    let default_count = 2u16;
    sim.dut.set("irq_mod_count", default_count as u64);
    sim.dut.set("irq_mod_time", 0);
    sim.reset(2);
    let (c, d) = (3u32, 4u32);
    let mut script: Vec<(u64, CqEvent)> = vec![
        (8, CqEvent::Setup(d, 0x50_0000, 4, 0, 0, true, true, 12, 0, true)),
        (12, CqEvent::Setup(c, 0x40_0000, 3, 0, 0, true, false, 11, 3, true)),
    ];
    // CQEs on c (and now and then d) in consecutive cycles, with consumer
    // and arm doorbells on c in between: the ring of 8 overruns on the way
    for i in 0..16u64 {
        let q = if i % 4 == 3 { d } else { c };
        script.push((13 + i, CqEvent::Cqe(q, i, i % 8 == 7, i == 11)));
    }
    script.push((16, CqEvent::Db(c, false, 2, false)));
    script.push((17, CqEvent::Db(c, false, 3, false)));
    script.push((19, CqEvent::Db(c, true, 3, false)));
    script.push((20, CqEvent::Db(c, true, 3, false)));
    script.push((22, CqEvent::Db(2000, false, 1, false)));
    script.push((40, CqEvent::Query(c)));
    script.push((41, CqEvent::Query(d)));
    // reload c (armed, count 2) with CQEs on it in the cycles around
    script.push((55, CqEvent::Setup(c, 0x40_0000, 3, 30, 30, true, false, 11, 2, true)));
    for i in 0..6u64 {
        script.push((54 + i, CqEvent::Cqe(c, 100 + i, false, false)));
    }
    script.push((57, CqEvent::Db(c, true, 33, false)));
    script.push((58, CqEvent::Db(c, false, 33, false)));
    script.push((75, CqEvent::Query(c)));
    script.sort_by_key(|e| e.0);

    let class = |e: &CqEvent| match e {
        CqEvent::Setup(..) => 0usize,
        CqEvent::Query(..) => 1,
        CqEvent::Db(..) => 2,
        CqEvent::Cqe(..) => 3,
    };
    let mut offered: [VecDeque<(u64, CqEvent)>; 4] = Default::default();
    for &(t, e) in &script {
        offered[class(&e)].push_back((t, e));
    }
    let mut taken: Vec<(u64, u8, CqEvent)> = vec![];
    let mut answers = vec![];
    let mut writes: Vec<(u64, Vec<u32>)> = vec![];
    let mut irqs: Vec<u64> = vec![];
    let (mut overruns, mut db_errors) = (0u64, 0u64);
    let mut done_at: VecDeque<u64> = VecDeque::new();
    let mut rng = Rng(31);
    let mut cqe_taken_cycles = vec![];
    while sim.cycle() < 400 {
        let now = sim.cycle();
        let dut = &mut sim.dut;
        let cur: Vec<Option<CqEvent>> =
            offered.iter().map(|q| q.front().filter(|(t, _)| *t <= now).map(|&(_, e)| e)).collect();
        if let Some(CqEvent::Setup(q, base, log, prod, cons, armed, sol, vector, count, live)) = cur[0] {
            for (name, v) in [
                ("cqn", q as u64),
                ("base", base),
                ("log", log as u64),
                ("prod", prod as u64),
                ("cons", cons as u64),
                ("armed", armed as u64),
                ("solicited", sol as u64),
                ("overrun", 0),
                ("vector", vector as u64),
                ("mod_count", count as u64),
                ("mod_time", 0),
                ("live", live as u64),
            ] {
                dut.set(&format!("s_setup.{name}"), v);
            }
        }
        if let Some(CqEvent::Query(q)) = cur[1] {
            dut.set("s_query.index", q as u64);
        }
        if let Some(CqEvent::Db(q, arm, i, sol)) = cur[2] {
            dut.set("s_db.kind", if arm { DoorbellKind::CqArm } else { DoorbellKind::CqConsumer } as u64);
            dut.set("s_db.queue", q as u64);
            dut.set("s_db.index", i as u64);
            dut.set("s_db.solicited", sol as u64);
        }
        if let Some(CqEvent::Cqe(q, n, sol, err)) = cur[3] {
            let e = cqe_of(n, err);
            let w: Vec<u32> = e.chunks(4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).collect();
            wide_set(dut, "s_cqe.data", &w);
            dut.set("s_cqe.cqn", q as u64);
            dut.set("s_cqe.solicited", sol as u64);
        }
        for (k, name) in ["s_setup", "s_query", "s_db", "s_cqe"].iter().enumerate() {
            dut.set(&format!("{name}.valid"), cur[k].is_some() as u64);
        }
        let wr_ready = rng.chance(70);
        dut.set("m_wr.tready", wr_ready as u64);
        dut.set("wr_done", done_at.front().is_some_and(|&t| t <= now) as u64);
        if done_at.front().is_some_and(|&t| t <= now) {
            done_at.pop_front();
        }
        dut.set("m_irq.ready", 1);
        dut.eval();
        for (k, name) in ["s_setup", "s_query", "s_db", "s_cqe"].iter().enumerate() {
            if let Some(e) = cur[k].filter(|_| dut.get(&format!("{name}.ready")) == 1) {
                taken.push((now, k as u8, e));
                offered[k].pop_front();
                if k == 3 {
                    cqe_taken_cycles.push(now);
                }
            }
        }
        if dut.get("query_valid") == 1 {
            answers.push(dut.get("query_data"));
        }
        if dut.get("m_wr.tvalid") == 1 && wr_ready {
            let w = wide_get(dut, "m_wr.tdata");
            let keep = dut.get("m_wr.tkeep");
            assert!(keep == 0xFFFF_FFFF || keep == 0xFFFF_FFFF_0000_0000, "one CQE per write");
            let half = if keep == 0xFFFF_FFFF { w[..8].to_vec() } else { w[8..].to_vec() };
            writes.push((dut.get("m_wr.addr"), half));
            done_at.push_back(now + 5 + rng.next() % 8);
        }
        if dut.get("m_irq.valid") == 1 {
            irqs.push(dut.get("m_irq.vector"));
        }
        overruns += dut.get("ev_overrun");
        db_errors += dut.get("db_error");
        sim.tick();
    }
    assert!(offered.iter().all(|q| q.is_empty()), "every event taken");
    let runs = cqe_taken_cycles.windows(2).filter(|w| w[1] == w[0] + 1).count();
    assert!(runs >= 15, "CQEs taken in consecutive cycles: {runs}");

    // the reference, in the order the block takes the events
    let mut cqs: HashMap<u32, RefCq> = HashMap::new();
    let (mut want_writes, mut want_irqs, mut want_answers) = (vec![], vec![], vec![]);
    let (mut want_overruns, mut want_errors, mut want_drops) = (0u64, 0u64, 0u64);
    for (_, e) in processing_order(&taken) {
        match e {
            CqEvent::Setup(q, base, log, prod, cons, armed, sol, vector, count, live) => {
                cqs.insert(
                    q,
                    RefCq { live, base, log, prod, cons, armed, sol, overrun: false, pending: 0, count, vector },
                );
            }
            CqEvent::Query(q) => {
                let r = cqs[&q];
                let at0 = 8 * cqc::PROD.byte;
                want_answers.push(
                    r.prod as u64
                        | (r.cons as u64) << 16
                        | (r.log as u64) << 32
                        | (r.armed as u64) << (cqc::ARMED.pos() - at0)
                        | (r.sol as u64) << (cqc::SOLICITED.pos() - at0)
                        | (r.overrun as u64) << (cqc::OVERRUN.pos() - at0),
                );
            }
            CqEvent::Db(q, arm, i, sol) => match cqs.get_mut(&q).filter(|r| r.live && q < 1024) {
                Some(r) => {
                    r.cons = i;
                    if arm {
                        if i != r.prod {
                            want_irqs.push(r.vector as u64);
                            r.pending = 0;
                            r.armed = false;
                        } else {
                            r.armed = true;
                            r.sol = sol;
                        }
                    }
                }
                None => want_errors += 1,
            },
            CqEvent::Cqe(q, n, sol, err) => {
                let r = cqs.get_mut(&q).unwrap();
                if !r.live || r.overrun {
                    want_drops += 1;
                } else if r.prod.wrapping_sub(r.cons) == 1 << r.log {
                    want_drops += 1;
                    r.overrun = true;
                    want_overruns += 1;
                } else {
                    let mut e = cqe_of(n, err);
                    cqe::OWNER.set(&mut e, ring::owner_for(r.prod, r.log.into())).unwrap();
                    let w: Vec<u32> = e.chunks(4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).collect();
                    want_writes.push((r.base + 32 * ring::slot(r.prod, r.log.into()) as u64, w));
                    r.prod = r.prod.wrapping_add(1);
                    r.pending += 1;
                    let count = if r.count == 0 { default_count } else { r.count };
                    let fire = r.armed && if r.sol { sol || err } else { r.pending >= count };
                    if fire {
                        want_irqs.push(r.vector as u64);
                        r.pending = 0;
                        r.armed = false;
                    }
                }
            }
        }
    }
    assert_eq!(writes.len(), want_writes.len(), "CQE writes");
    for (k, (got, want)) in writes.iter().zip(&want_writes).enumerate() {
        assert_eq!(got, want, "write {k}");
    }
    assert_eq!(irqs, want_irqs, "interrupts, in order");
    assert_eq!(answers, want_answers, "query answers");
    assert_eq!((overruns, db_errors), (want_overruns, want_errors), "overrun events, doorbell errors");
    assert_eq!(sim.dut.get("cnt_cqe_drop"), want_drops, "dropped CQEs");
    assert!(
        want_overruns >= 1 && want_irqs.len() >= 4,
        "the script reaches an overrun and interrupts: {want_overruns} overruns, {} interrupts",
        want_irqs.len()
    );
    eprintln!(
        "{} events, {} CQE writes, {} interrupts, {} drops: as the reference",
        taken.len(),
        writes.len(),
        irqs.len(),
        want_drops
    );
}
