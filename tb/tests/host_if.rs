//! The host side as a driver sees it (generated Verilog of `HostIf` behind
//! the host model): registers, context commands as cache operations,
//! doorbells into the cached QP contexts and the send work they give, the
//! transport's cache, translation and DMA ports, CQ rings with owner bits,
//! overrun, arming and moderation, and the interrupt ordering guarantee.

use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind};
use rnic_contract::layouts::{cqc, cqe, mpt, mtt, qpc};
use rnic_contract::{regs, ring};
use rnic_host::PcieConfig;
use rnic_hw::host::{CACHE_OP_READ, CACHE_OP_WRITE, DB_WORK_LATENCY};
use rnic_sim::axis::Rng;
use rnic_tb::host_bench::*;
use rnic_tb::host_transport::{read_bytes, CacheReq, XAnswer, XReq};
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

/// Random SQ and RQ doorbells on random QPs, under `m_work` backpressure:
/// every SqProducer doorbell gives its QPN on `m_work` exactly once, in
/// doorbell order; a Store then shows each QP's last rung SQ_PROD and
/// RQ_PROD in host memory, every other byte of the context untouched.
#[test]
fn doorbells_write_producer_indices_and_give_work_once() {
    let mut b = bench(3);
    b.tp.work_ready_pct = 60;
    let mut rng = Rng(99);
    let qpns = [2u32, 3, 17, 500, 1023];
    let mut entries = HashMap::new();
    for (i, &qpn) in qpns.iter().enumerate() {
        let sq = RINGS + 0x10_0000 * i as u64;
        b.create_qp(qpn, sq, 4, sq + 0x8_0000, 3);
        entries.insert(qpn, b.read_host(QPC_TABLE + 128 * qpn as u64, 128));
    }
    let mut sq_rung = vec![];
    let mut last: HashMap<(u32, bool), u16> = HashMap::new();
    for _ in 0..40 {
        let qpn = qpns[(rng.next() % qpns.len() as u64) as usize];
        let rq = rng.chance(40);
        let index = rng.next() as u16;
        let kind = if rq { DoorbellKind::RqProducer } else { DoorbellKind::SqProducer };
        b.doorbell(kind, qpn, index, false);
        last.insert((qpn, rq), index);
        if !rq {
            sq_rung.push(qpn);
        }
        b.steps(rng.next() % 12);
    }
    b.flush_mmio();
    b.until(20_000, "all send work", |b| b.tp.work.len() == sq_rung.len());
    b.steps(300);
    let got: Vec<u32> = b.tp.work.iter().map(|w| w.0).collect();
    assert_eq!(got, sq_rung, "one m_work per SQ doorbell, in order");
    for &qpn in &qpns {
        assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Qp, qpn));
        let mut want = entries[&qpn].clone();
        if let Some(&i) = last.get(&(qpn, false)) {
            qpc::SQ_PROD.set(&mut want, i).unwrap();
        }
        if let Some(&i) = last.get(&(qpn, true)) {
            qpc::RQ_PROD.set(&mut want, i).unwrap();
        }
        assert_eq!(b.read_host(QPC_TABLE + 128 * qpn as u64, 128), want, "QP {qpn}: the context after Store");
    }
    assert_eq!(b.read32(regs::events::OFFSET), 0, "no error event");
}

/// The doorbell's high half taken on the register port at cycle t gives
/// the QPN on `m_work` at t + 1 + `DB_WORK_LATENCY` (the register file's
/// doorbell register, then `DbRoute`), whether the QP's line is in the
/// cache or not (the write waits in the cache, not in front of it).
#[test]
fn doorbell_to_work_latency() {
    let mut b = bench(4);
    b.create_qp(5, RINGS, 7, RINGS + 0x10_0000, 7);
    for (i, index) in [3u16, 4, 9].into_iter().enumerate() {
        b.doorbell(DoorbellKind::SqProducer, 5, index, false);
        b.flush_mmio();
        b.until(1000, "work", |b| b.tp.work.len() == i + 1);
        let hi = b.axil_writes.iter().rev().find(|w| w.0 == regs::doorbell::OFFSET + 4).unwrap().1;
        let latency = b.tp.work[i].1 - hi;
        eprintln!("doorbell {i}: high half at {hi}, m_work {latency} cycles later");
        assert_eq!(latency, 1 + DB_WORK_LATENCY, "doorbell {i} (the first misses in the cache)");
        b.steps(50);
    }
}

#[test]
fn bad_doorbells_raise_an_event_and_an_interrupt() {
    let mut b = bench(5);
    b.create_qp(7, RINGS, 4, RINGS + 0x1000, 4);
    b.write32(regs::irq_events::OFFSET, 33);
    b.write32(regs::events_enable::OFFSET, regs::events_enable::DOORBELL_ERROR.encode(1).unwrap());
    // a QP table of 2^8 entries for a moment: QP 300 is beyond it
    b.write32(regs::qpc_log_entries::OFFSET, 8);
    b.doorbell(DoorbellKind::SqProducer, 300, 1, false);
    b.write32(regs::qpc_log_entries::OFFSET, 10);
    b.steps(20);
    for (kind, queue) in [
        (DoorbellKind::SqProducer, 300u32), // beyond qpc_log_entries (above)
        (DoorbellKind::RqProducer, 4096),   // beyond this build's table
        (DoorbellKind::SqProducer, 1024),   // beyond this build's table
        (DoorbellKind::CqArm, 12),          // CQ never loaded
    ] {
        if queue != 300 {
            b.doorbell(kind, queue, 1, false);
            b.steps(20);
        }
        let ev = b.read32(regs::events::OFFSET);
        assert_eq!(regs::events::DOORBELL_ERROR.get(ev), 1, "{kind:?} {queue}");
        assert_eq!(b.read32(regs::events_queue::OFFSET), queue);
        b.write32(regs::events::OFFSET, ev); // write 1 to clear
        assert_eq!(b.read32(regs::events::OFFSET), 0);
    }
    b.steps(100);
    assert_eq!(b.irqs.iter().filter(|d| d.vector == 33).count(), 4, "one events interrupt per error");
    assert!(b.tp.work.is_empty(), "no send work for bad doorbells");
    // a table larger than the build's: the build's limit (`LOG_QPS`) still
    // holds, for doorbells and commands alike (`RegFile::qpn_high`)
    b.write32(regs::qpc_log_entries::OFFSET, 16);
    b.steps(5);
    b.doorbell(DoorbellKind::SqProducer, 1500, 1, false);
    b.steps(20);
    let ev = b.read32(regs::events::OFFSET);
    assert_eq!(regs::events::DOORBELL_ERROR.get(ev), 1, "QP 1500 with qpc_log_entries 16");
    assert_eq!(b.read32(regs::events_queue::OFFSET), 1500);
    b.write32(regs::events::OFFSET, ev);
    assert!(b.ctx_cmd(ContextOp::Load, ContextTable::Qp, 2000), "QP 2000 with qpc_log_entries 16");
    b.write32(regs::qpc_log_entries::OFFSET, 10);
    b.steps(5);
    assert!(b.tp.work.is_empty(), "no send work for bad doorbells");
    // a good one after them
    b.doorbell(DoorbellKind::SqProducer, 7, 1, false);
    b.steps(20);
    assert_eq!(b.read32(regs::events::OFFSET), 0);
    assert_eq!(b.tp.work.iter().map(|w| w.0).collect::<Vec<_>>(), [7]);
    // commands: the translation tables are the translation unit's invalidates now
    assert!(!b.ctx_cmd(ContextOp::Invalidate, ContextTable::Mpt, 1), "MPT entry 1: invalidated");
    assert!(!b.ctx_cmd(ContextOp::Load, ContextTable::Mtt, 77), "MTT entry 77 (line 9): invalidated");
    assert!(b.ctx_cmd(ContextOp::Load, ContextTable::Mpt, 16), "MPT entry beyond mpt_log_entries = 4");
    assert!(b.ctx_cmd(ContextOp::Load, ContextTable::Ah, 1), "AH is not cached by this build");
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
    // doorbells back to back while the transport takes no send work
    b.tp.work_ready_pct = 0;
    let stalls0 = b.axil_write_stalls;
    for &q in &qpns {
        b.doorbell(DoorbellKind::SqProducer, q, 1, false);
    }
    b.steps(3000);
    assert!(b.axil_write_stalls > stalls0, "the doorbells waited on the register port");
    b.tp.work_ready_pct = 100;
    b.flush_mmio();
    b.until(50_000, "one m_work per doorbell", |b| b.tp.work.len() == qpns.len());
    b.steps(500);
    let got: Vec<u32> = b.tp.work.iter().map(|w| w.0).collect();
    assert_eq!(got, qpns, "every doorbell taken, in order, once");
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

/// Context commands move what docs/host.md says. QP: Load and Invalidate
/// move nothing (the lines are dropped); a doorbell's write misses and
/// reads the 128-byte context once; Store writes the dirty line back whole
/// (one 128-byte write) and drops it, so a second Store writes nothing.
/// CQ: Load is one DMA read of the 64-byte context; Store writes back only
/// the device's 6 bytes at byte 8.
#[test]
fn context_commands_move_exactly_the_documented_bytes() {
    let mut b = bench(18);
    let (n, addr) = (90u32, QPC_TABLE + 128 * 90);
    let stats = |b: &HostBench| {
        let s = &b.port.stats;
        (s.read_requests, s.read_bytes_requested, s.write_requests, s.write_bytes)
    };
    let before = stats(&b);
    b.create_qp(n, RINGS, 4, RINGS + 0x1000, 4);
    assert!(!b.ctx_cmd(ContextOp::Invalidate, ContextTable::Qp, n));
    assert_eq!(stats(&b), before, "QP Load and Invalidate: no DMA");
    b.doorbell(DoorbellKind::RqProducer, n, 11, false);
    b.flush_mmio();
    b.steps(400);
    let after_db = stats(&b);
    assert_eq!((after_db.0 - before.0, after_db.1 - before.1), (1, 128), "the doorbell's miss: one 128-byte read");
    let mut want = b.read_host(addr, 128);
    qpc::RQ_PROD.set(&mut want, 11).unwrap();
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Qp, n));
    let after_store = stats(&b);
    assert_eq!((after_store.2 - after_db.2, after_store.3 - after_db.3), (1, 128), "Store: the line, once");
    assert_eq!(b.read_host(addr, 128), want, "the host's context with the device's RQ_PROD");
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Qp, n));
    assert_eq!(stats(&b), after_store, "a second Store: nothing cached, nothing written");

    let (c, size, at, len) = (91u32, 64u64, 8usize, 6usize);
    let addr = CQC_TABLE + size * c as u64;
    b.create_cq(c, RINGS + 0x2000, 4, 1, 1, 0);
    let (reads, bytes) = (b.port.stats.read_requests, b.port.stats.read_bytes_requested);
    assert!(!b.ctx_cmd(ContextOp::Load, ContextTable::Cq, c));
    assert_eq!(b.port.stats.read_requests - reads, 1, "CQ Load is one DMA read");
    assert_eq!(b.port.stats.read_bytes_requested - bytes, size, "of the whole context");
    let ctx = b.read_host(addr, size as usize);
    b.write_host(addr, &vec![0xEE; size as usize]);
    let (writes, wbytes) = (b.port.stats.write_requests, b.port.stats.write_bytes);
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Cq, c));
    assert_eq!(b.port.stats.write_requests - writes, 1, "CQ Store is one DMA write");
    assert_eq!(b.port.stats.write_bytes - wbytes, len as u64, "of {len} bytes");
    let after = b.read_host(addr, size as usize);
    for (i, (&got, &was)) in after.iter().zip(&ctx).enumerate() {
        if (at..at + len).contains(&i) {
            assert_eq!(got, was, "CQ byte {i}: the device's value written back");
        } else {
            assert_eq!(got, 0xEE, "CQ byte {i}: not the device's to write");
        }
    }
}

/// A context command whose DMA fails (the table's IOVA unmapped; the IOMMU
/// reports the fault as an error completion) ends with `ctx_status.ERROR`:
/// a CQ Load (read) and a QP Store whose dirty line cannot be written back;
/// the next good command clears it.
/// `qp_inval` pulses once for each QP Load and Invalidate (the `qpc`
/// cache drops the QP's line) and for nothing else: the responder forgets
/// the RECV WQEs it read ahead by it.
#[test]
fn qp_context_drops_pulse_qp_inval() {
    let mut b = bench(19);
    b.create_qp(40, RINGS, 4, RINGS + 0x1000, 4);
    b.steps(20);
    let base = b.qp_invals.len();
    assert!(!b.ctx_cmd(ContextOp::Load, ContextTable::Qp, 40));
    assert_eq!(b.qp_invals.len(), base + 1, "Load");
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Qp, 40));
    assert!(!b.ctx_cmd(ContextOp::Invalidate, ContextTable::Mpt, 1));
    b.create_cq(41, RINGS + 0x2000, 4, 1, 1, 0);
    assert_eq!(b.qp_invals.len(), base + 1, "Store, MPT and CQ commands: none");
    assert!(!b.ctx_cmd(ContextOp::Invalidate, ContextTable::Qp, 40));
    assert_eq!(b.qp_invals.len(), base + 2, "Invalidate");
    b.steps(50);
    assert_eq!(b.qp_invals.len(), base + 2, "one pulse each");
}

/// The counter page: each 64-bit register reads the core's counter at its
/// place (`cnt[k]`, k = (offset - cnt_roce) / 8), low and high halves; the
/// low read latches the high half for the next high read of the same
/// counter; the page's offsets past the counters read 0.
#[test]
fn counters_read_through_the_window() {
    use rnic_contract::regs::{COUNTERS, COUNTER_WINDOW};
    use rnic_sim::Model;
    let mut b = bench(20);
    let n = COUNTERS as usize;
    assert_eq!(n, rnic_hw::host::HOST_COUNTERS);
    let value = |k: usize, g: u64| ((0xA000 + k as u64 + (g << 8)) << 32) | (0x100 + k as u64 + g);
    // `cnt` holds counters 0..32, `cnt_hi` the ones after
    let port = |k: usize| if k < 32 { format!("cnt_{k}") } else { format!("cnt_hi_{}", k - 32) };
    for k in 0..n {
        b.sim.dut.set(&port(k), value(k, 0));
    }
    b.steps(4);
    for k in 0..n {
        let at = COUNTER_WINDOW.start + 8 * k as u32;
        let (lo, hi) = (b.read32(at), b.read32(at + 4));
        assert_eq!((u64::from(hi) << 32) | u64::from(lo), value(k, 0), "counter {k} at {at:#x}");
    }
    assert_eq!(regs::cnt_tx_bytes::OFFSET, COUNTER_WINDOW.start + 8 * 9);
    // the low half latches the high half
    let at = regs::cnt_icrc::OFFSET;
    assert_eq!(b.read32(at), value(3, 0) as u32);
    b.sim.dut.set("cnt_3", value(3, 1));
    b.steps(4);
    assert_eq!(b.read32(at + 4), (value(3, 0) >> 32) as u32, "latched");
    assert_eq!(b.read32(at + 4), (value(3, 1) >> 32) as u32, "a second high read is live");
    assert_eq!(b.read32(regs::cnt_raw::OFFSET + 4), (value(1, 0) >> 32) as u32, "another counter's high: live");
    let past = COUNTER_WINDOW.start + 8 * COUNTERS;
    for at in [past, past + 4, COUNTER_WINDOW.end - 4, COUNTER_WINDOW.end].into_iter().filter(|&at| at >= past) {
        assert_eq!(b.read32(at), 0, "{at:#x}: past the counters");
    }
    assert_eq!(b.read32(regs::scratch::OFFSET), 0, "other registers as before");
}

/// A Store on the `Counters` table writes the counter window into host
/// memory, byte for byte as the registers read (the reserved registers 0),
/// while counter registers read through the window at the same time stay
/// right (the dump asks the counter mux only when `RegFile` does not).
#[test]
fn counters_dump_into_host_memory() {
    use rnic_contract::regs::{COUNTERS, COUNTER_WINDOW};
    use rnic_sim::Model;
    // slow memory writes: the dump's 8 writes take long enough for counter
    // reads through the window to run beside it
    let mut b = HostBench::new(PcieConfig { write_latency: 1500, ..PcieConfig::gen3_x16() }, 24);
    b.bring_up();
    let n = COUNTERS as usize;
    let value = |k: usize| (0xC0DE_0000_u64 + k as u64) << 24 | (0x5A00 + k as u64);
    let port = |k: usize| if k < 32 { format!("cnt_{k}") } else { format!("cnt_hi_{}", k - 32) };
    for k in 0..n {
        b.sim.dut.set(&port(k), value(k));
    }
    let dump = RINGS + 0x7_0200;
    let bytes = (COUNTER_WINDOW.end - COUNTER_WINDOW.start) as usize;
    b.write_host(dump, &vec![0xEE; bytes + 64]);
    b.write32(regs::counters_base_lo::OFFSET, dump as u32 | 0x1FF);
    b.write32(regs::counters_base_hi::OFFSET, (dump >> 32) as u32);
    assert_eq!(b.read32(regs::counters_base_lo::OFFSET), dump as u32, "512-byte aligned");
    let word = regs::ctx_cmd::OP.encode(ContextOp::Store as u32).unwrap()
        | regs::ctx_cmd::TABLE.encode(ContextTable::Counters as u32).unwrap();
    let t = b.now();
    b.write32(regs::ctx_cmd::OFFSET, word);
    // counter reads while the dump runs, each between two reads of BUSY
    let mut during = 0;
    for k in (0..n).rev() {
        let before = regs::ctx_status::BUSY.get(b.read32(regs::ctx_status::OFFSET)) == 1;
        let at = COUNTER_WINDOW.start + 8 * k as u32;
        let (lo, hi) = (b.read32(at), b.read32(at + 4));
        assert_eq!((u64::from(hi) << 32) | u64::from(lo), value(k), "counter {k} read during the dump");
        let after = regs::ctx_status::BUSY.get(b.read32(regs::ctx_status::OFFSET)) == 1;
        during += usize::from(before && after);
    }
    eprintln!("{during} of {n} counter reads inside the dump");
    assert!(during >= 4, "only {during} counter reads inside the dump");
    let mut polls = 0;
    while regs::ctx_status::BUSY.get(b.read32(regs::ctx_status::OFFSET)) == 1 {
        polls += 1;
        assert!(polls < 100, "the dump still busy after {polls} polls");
    }
    eprintln!("counter dump: {} cycles to BUSY low, counter reads and polls included", b.now() - t);
    assert_eq!(regs::ctx_status::ERROR.get(b.read32(regs::ctx_status::OFFSET)), 0);
    let image = b.read_host(dump, bytes + 64);
    for k in 0..bytes / 8 {
        let got = u64::from_le_bytes(image[8 * k..8 * k + 8].try_into().unwrap());
        let want = if k < n { value(k) } else { 0 };
        assert_eq!(got, want, "register {k} of the window");
    }
    assert!(image[bytes..].iter().all(|&x| x == 0xEE), "nothing past the window written");
    // at the usual write latency, dumps back to back (each command waits in
    // RegFile behind the one running) with a counter read after each: the
    // reads land on every phase of the dumps' counter asks
    let mut b2 = HostBench::new(PcieConfig::gen3_x16(), 25);
    b2.bring_up();
    for k in 0..n {
        b2.sim.dut.set(&port(k), value(k));
    }
    b2.write32(regs::counters_base_lo::OFFSET, dump as u32);
    b2.write32(regs::counters_base_hi::OFFSET, (dump >> 32) as u32);
    for i in 0..60 {
        b2.write32(regs::ctx_cmd::OFFSET, word);
        let k = (i * 7) % n;
        let at = COUNTER_WINDOW.start + 8 * k as u32;
        let (lo, hi) = (b2.read32(at), b2.read32(at + 4));
        assert_eq!((u64::from(hi) << 32) | u64::from(lo), value(k), "counter {k} read beside dump {i}");
    }
    assert!(!b2.ctx_cmd(ContextOp::Invalidate, ContextTable::Qp, 5), "after the dumps");
    let image = b2.read_host(dump, 8 * n);
    for k in 0..n {
        assert_eq!(u64::from_le_bytes(image[8 * k..8 * k + 8].try_into().unwrap()), value(k), "dumped counter {k}");
    }
    // only Store, only entry 0
    assert!(b.ctx_cmd(ContextOp::Load, ContextTable::Counters, 0), "Load fails");
    assert!(b.ctx_cmd(ContextOp::Store, ContextTable::Counters, 1), "entry 1 fails");
    // a dump into unmapped memory fails and says so
    b.port.host.iommu.set_mode(rnic_host::FaultMode::Count);
    b.write32(regs::counters_base_hi::OFFSET, 0x7F);
    assert!(b.ctx_cmd(ContextOp::Store, ContextTable::Counters, 0), "a dump into unmapped memory fails");
    assert!(!b.ctx_cmd(ContextOp::Invalidate, ContextTable::Qp, 5), "the engine goes on");
}

#[test]
fn context_dma_errors_are_reported() {
    let mut b = bench(19);
    b.create_qp(5, RINGS, 4, RINGS + 0x1000, 4);
    b.doorbell(DoorbellKind::SqProducer, 5, 2, false);
    b.flush_mmio();
    b.steps(400);
    b.port.host.iommu.set_mode(rnic_host::FaultMode::Count);
    b.port.host.iommu.unmap(QPC_TABLE).unwrap();
    b.port.host.iommu.unmap(CQC_TABLE).unwrap();
    assert!(b.ctx_cmd(ContextOp::Load, ContextTable::Cq, 6), "CQ Load from an unmapped table fails");
    assert!(b.ctx_cmd(ContextOp::Store, ContextTable::Qp, 5), "QP Store to an unmapped table fails");
    assert_eq!(b.port.host.iommu.fault_count(), 2, "the IOMMU saw both");
    assert!(!b.ctx_cmd(ContextOp::Invalidate, ContextTable::Qp, 5), "the next good command clears ERROR");
    assert_eq!(regs::events::DMA_ERROR.get(b.read32(regs::events::OFFSET)), 1, "and DMA_ERROR is raised");
}

/// What the doorbells write is in the cached line; a Store shows it in
/// host memory. A read through `req_fetch`'s port returns the cached entry
/// until a Load, after which it is the host's again (the driver changed it).
#[test]
fn store_shows_the_producer_indices_and_load_rereads() {
    let mut b = bench(9);
    b.create_qp(30, RINGS, 5, RINGS + 0x1_0000, 5);
    b.doorbell(DoorbellKind::SqProducer, 30, 5, false);
    b.doorbell(DoorbellKind::RqProducer, 30, 3, false);
    b.flush_mmio();
    b.until(2000, "work", |b| b.tp.work.len() == 1);
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Qp, 30));
    let ctx = b.read_host(QPC_TABLE + 128 * 30, 128);
    assert_eq!(qpc::SQ_PROD.get(&ctx).unwrap(), 5);
    assert_eq!(qpc::RQ_PROD.get(&ctx).unwrap(), 3);
    assert_eq!(qpc::SQ_CONS.get(&ctx).unwrap(), 0, "nobody consumed");
    assert_eq!(qpc::SQ_BASE.get(&ctx).unwrap(), RINGS, "the driver's fields are untouched");
    let read = |b: &mut HostBench, id: u8| {
        b.tp.qpc[0].queue.push_back(CacheReq {
            op: CACHE_OP_READ,
            index: 30,
            mask: vec![false; 128],
            data: vec![0; 128],
            id,
        });
        b.until(2000, "answer", |b| b.tp.qpc[0].answers.iter().any(|a| a.id == id));
        let a = b.tp.qpc[0].answers.iter().find(|a| a.id == id).unwrap().clone();
        assert!(!a.err);
        a.data
    };
    assert_eq!(read(&mut b, 1), ctx, "a read misses and brings the host's entry");
    let mut changed = ctx.clone();
    qpc::SQ_BASE.set(&mut changed, RINGS + 0x4000).unwrap();
    b.write_host(QPC_TABLE + 128 * 30, &changed);
    assert_eq!(read(&mut b, 2), ctx, "the cached line until a Load");
    assert!(!b.ctx_cmd(ContextOp::Load, ContextTable::Qp, 30));
    assert_eq!(read(&mut b, 3), changed, "after the Load: the host's new entry");
}

/// An MTT command spans `ctx_count` entries: a region of 40 pages over
/// entries 4..44 (lines 0..5) is translated at its first, a middle and its
/// last page, which caches three lines; its entries are then rewritten in
/// host memory. A command over the first entry alone renews the first
/// line only (the cache does hold the others); one over all 40 entries
/// renews every line; a span past the table fails and drops nothing.
#[test]
fn an_mtt_command_spans_every_line_of_its_entries() {
    let mut b = bench(23);
    b.flush_mmio();
    let (first, pages) = (4u32, 40u64);
    let key = mpt::key(5, 0x3C, 4);
    let mut e = [0u8; 64];
    mpt::VA_BASE.set(&mut e, 0x2000_0000).unwrap();
    mpt::LENGTH.set(&mut e, pages << 12).unwrap();
    mpt::KEY.set(&mut e, key).unwrap();
    mpt::PD.set(&mut e, 7).unwrap();
    mpt::VALID.set(&mut e, true).unwrap();
    mpt::LOG_PAGE_SIZE.set(&mut e, 12).unwrap();
    mpt::MTT_BASE.set(&mut e, first).unwrap();
    b.write_host(MPT_TABLE + 64 * 5, &e);
    // mapping `gen` puts page k at RINGS + gen * 16 MiB + k * 64 KiB
    let map = |b: &mut HostBench, gen: u64| {
        for k in 0..pages {
            let mut m = [0u8; 8];
            mtt::ADDR.set(&mut m, RINGS + (gen << 24) + (k << 16)).unwrap();
            mtt::VALID.set(&mut m, true).unwrap();
            b.write_host(MTT_TABLE + 8 * (u64::from(first) + k), &m);
        }
    };
    // the IOVA each of pages 0, 20 and 39 translates to
    let probe = |b: &mut HostBench| -> Vec<u64> {
        b.tp.xanswers.clear();
        for (id, k) in [0u64, 20, 39].into_iter().enumerate() {
            b.tp.xreqs.push_back(XReq { key, pd: 7, va: 0x2000_0000 + (k << 12) + 8, len: 8, access: 0, id: id as u8 });
        }
        b.until(3000, "three translations", |b| b.tp.idle() && b.tp.xanswers.len() == 3);
        b.tp.xanswers
            .iter()
            .map(|a| {
                assert_eq!(a.verdict, 0, "{a:?}");
                a.iova
            })
            .collect()
    };
    let at = |gen: u64, k: u64| RINGS + (gen << 24) + (k << 16) + 8;
    map(&mut b, 1);
    assert_eq!(probe(&mut b), [at(1, 0), at(1, 20), at(1, 39)]);
    map(&mut b, 2);
    assert!(!b.ctx_span(ContextOp::Load, first, 1), "one entry");
    assert_eq!(probe(&mut b), [at(2, 0), at(1, 20), at(1, 39)], "only the first line renewed: the others are cached");
    map(&mut b, 3);
    assert!(!b.ctx_span(ContextOp::Invalidate, first + 2, 0), "count 0 is one entry");
    assert_eq!(probe(&mut b), [at(3, 0), at(1, 20), at(1, 39)]);
    assert!(b.ctx_span(ContextOp::Load, first, 1021), "entries 4..1025 reach past the table's 1024");
    assert_eq!(probe(&mut b), [at(3, 0), at(1, 20), at(1, 39)], "a failed span drops nothing");
    assert_eq!(b.read32(regs::ctx_count::OFFSET), 1021, "ctx_count reads back");
    assert!(!b.ctx_span(ContextOp::Load, first, pages as u32), "the region's 40 entries");
    assert_eq!(probe(&mut b), [at(3, 0), at(3, 20), at(3, 39)], "every line renewed");
    assert!(!b.ctx_span(ContextOp::Invalidate, 1000, 24), "entries 1000..1024: the table's end");
    // the cost: one line against the whole table's 128 lines
    let t = b.now();
    assert!(!b.ctx_span(ContextOp::Invalidate, 0, 1));
    let one = b.now() - t;
    let t = b.now();
    assert!(!b.ctx_span(ContextOp::Invalidate, 0, 1024));
    let all = b.now() - t;
    eprintln!("ctx_span: 1 line {one} cycles, 128 lines {all} cycles");
    assert!(all - one <= 127 * 10, "at most 10 cycles a line (8 today, polls included): 1 line {one}, 128 lines {all}");
}

/// Each transport port answers: reads through both `qpc` users and the
/// `qps` readers return the host's entries; masked writes through `qps`
/// users 0 and 2 are in host memory after a Store, with the other bytes
/// kept; a translation returns the region's IOVA pieces; every DMA read
/// client gets the bytes it asked for and every write client's bytes land.
#[test]
fn transport_ports_answer() {
    let mut b = bench(21);
    b.flush_mmio(); // the table bases are in before the first request
    let mut rng = Rng(77);
    let mut rand = |n: usize| -> Vec<u8> { (0..n).map(|_| rng.next() as u8).collect() };
    let (qa, qb) = (40u32, 41u32);
    let qpc_a = rand(128);
    let qpc_b = rand(128);
    let qps_a = rand(64);
    b.write_host(QPC_TABLE + 128 * qa as u64, &qpc_a);
    b.write_host(QPC_TABLE + 128 * qb as u64, &qpc_b);
    b.write_host(QPS_TABLE + 64 * qa as u64, &qps_a);
    let req = |op, index, mask: Vec<bool>, data: Vec<u8>, id| CacheReq { op, index, mask, data, id };
    b.tp.qpc[0].queue.push_back(req(CACHE_OP_READ, qa, vec![false; 128], vec![0; 128], 5));
    b.tp.qpc[1].queue.push_back(req(CACHE_OP_READ, qb, vec![false; 128], vec![0; 128], 63));
    b.tp.qps[0].queue.push_back(req(CACHE_OP_READ, qa, vec![false; 64], vec![0; 64], 7));
    b.tp.qps[1].queue.push_back(req(CACHE_OP_READ, qa, vec![false; 64], vec![0; 64], 8));
    let mask = |r: std::ops::Range<usize>| (0..64).map(|i| r.contains(&i)).collect::<Vec<_>>();
    b.tp.qps[0].queue.push_back(req(CACHE_OP_WRITE, qa, mask(0..4), vec![0xAB; 64], 9));
    b.tp.qps[2].queue.push_back(req(CACHE_OP_WRITE, qa, mask(32..36), vec![0xCD; 64], 10));
    // translation: MPT entry 3 maps 8 KiB at VA 0x1000_0000 onto two pages
    let key = mpt::key(3, 0x5A, 4);
    let mut e = [0u8; 64];
    mpt::VA_BASE.set(&mut e, 0x1000_0000).unwrap();
    mpt::LENGTH.set(&mut e, 0x2000).unwrap();
    mpt::KEY.set(&mut e, key).unwrap();
    mpt::PD.set(&mut e, 7).unwrap();
    mpt::VALID.set(&mut e, true).unwrap();
    mpt::LOG_PAGE_SIZE.set(&mut e, 12).unwrap();
    mpt::MTT_BASE.set(&mut e, 16).unwrap();
    b.write_host(MPT_TABLE + 64 * 3, &e);
    let pages = [RINGS + 0x40_0000, RINGS + 0x41_0000];
    for (k, page) in pages.iter().enumerate() {
        let mut m = [0u8; 8];
        mtt::ADDR.set(&mut m, *page).unwrap();
        mtt::VALID.set(&mut m, true).unwrap();
        b.write_host(MTT_TABLE + 8 * (16 + k as u64), &m);
    }
    b.tp.xreqs.push_back(XReq { key, pd: 7, va: 0x1000_0F00, len: 0x200, access: 0, id: 0x42 });
    // DMA: 200 bytes through each read client, 150 through each write client
    let mut reads = vec![];
    for (k, name) in ["wqe_rd", "recv_rd", "pay_rd", "resp_rd", "sq_rd", "replay_rd"].into_iter().enumerate() {
        let addr = RINGS + 0x80_0000 + 0x1000 * k as u64 + 13 * k as u64;
        let bytes = rand(200);
        b.write_host(addr, &bytes);
        b.tp.read_port(name).queue.push_back((addr, 200));
        reads.push((name, bytes));
    }
    let mut writes = vec![];
    for (k, name) in ["pay_wr", "comp_wr", "replay_wr"].into_iter().enumerate() {
        let addr = RINGS + 0x90_0000 + 0x1000 * k as u64 + 7 * k as u64;
        let bytes = rand(150);
        b.tp.write_port(name).queue.push_back((addr, bytes.clone()));
        writes.push((addr, bytes));
    }
    b.until(5000, "every port", |b| {
        let answers: Vec<usize> = b.tp.qpc.iter().chain(b.tp.qps.iter()).map(|p| p.answers.len()).collect();
        b.tp.idle()
            && answers == [1, 1, 2, 1, 1]
            && b.tp.xanswers.len() == 2
            && b.tp.writes.iter().all(|w| w.completions == 1 && w.errors == 0)
    });
    let one = |a: &[rnic_tb::host_transport::CacheAnswer]| {
        assert_eq!(a.len(), 1);
        assert!(!a[0].err);
        (a[0].id, a[0].data.clone())
    };
    assert_eq!(one(&b.tp.qpc[0].answers), (5, qpc_a.clone()), "qpc user 0 (req_fetch)");
    assert_eq!(one(&b.tp.qpc[1].answers), (63, qpc_b), "qpc user 1 (receive lookup)");
    assert_eq!(b.tp.qps[0].answers[0].data, qps_a, "qps user 0 (req_fetch) reads");
    assert_eq!(b.tp.qps[0].answers.iter().map(|a| a.id).collect::<Vec<_>>(), [7, 9]);
    assert_eq!(one(&b.tp.qps[1].answers), (8, qps_a.clone()), "qps user 1 (receive lookup)");
    assert_eq!(b.tp.qps[2].answers.len(), 1, "qps user 2's write answered");
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Qp, qa));
    let mut want = qps_a.clone();
    want[0..4].fill(0xAB);
    want[32..36].fill(0xCD);
    assert_eq!(b.read_host(QPS_TABLE + 64 * qa as u64, 64), want, "both masked writes after the flush");
    assert_eq!(b.read_host(QPC_TABLE + 128 * qa as u64, 128), qpc_a, "a clean qpc line is not written");
    assert_eq!(
        b.tp.xanswers,
        [
            XAnswer { id: 0x42, verdict: 0, iova: pages[0] + 0xF00, len: 0x100, last: false },
            XAnswer { id: 0x42, verdict: 0, iova: pages[1], len: 0x100, last: true },
        ],
        "the translation's pieces"
    );
    for (name, bytes) in reads {
        let done = &b.tp.read_port(name).done;
        assert_eq!(done.len(), 1, "{name}");
        assert!(!done[0].err);
        assert_eq!(read_bytes(&done[0], 200), bytes, "{name}: the bytes");
    }
    for (addr, bytes) in writes {
        assert_eq!(b.read_host(addr, 150), bytes, "write at {addr:#x}");
    }
    assert_eq!(b.read32(regs::events::OFFSET), 0);
}

/// The replay table's side of `HostIf`: `replay_base_lo/hi` read back (the
/// low half 4 KiB aligned) and drive `replay_base`; a 32-byte slot write on
/// `s_replay_wr` (write client 3's fifth source, beside the context
/// write-backs) changes exactly its bytes and pulses `replay_wr_done` once;
/// a QP's 512 bytes read on `s_replay_rd` (read client 0's fourth port,
/// beside a WQE read) come back in 8 beats, `tlast` on the 8th; soft reset
/// clears the registers.
#[test]
fn the_replay_table_has_its_dma_clients() {
    let mut b = bench(33);
    b.flush_mmio();
    assert_eq!(b.read32(regs::replay_base_lo::OFFSET), REPLAY_TABLE as u32);
    assert_eq!(b.read32(regs::replay_base_hi::OFFSET), (REPLAY_TABLE >> 32) as u32);
    b.write32(regs::replay_base_lo::OFFSET, 0x1234_5FFF);
    b.write32(regs::replay_base_hi::OFFSET, 0xABCD);
    assert_eq!(b.read32(regs::replay_base_lo::OFFSET), 0x1234_5000, "the replay table's base is 4 KiB aligned");
    assert_eq!(b.read32(regs::replay_base_hi::OFFSET), 0xABCD);
    assert_eq!(b.sim.dut.get("replay_base"), 0xABCD_1234_5000, "replay_base out");
    b.write32(regs::replay_base_lo::OFFSET, REPLAY_TABLE as u32);
    b.write32(regs::replay_base_hi::OFFSET, (REPLAY_TABLE >> 32) as u32);
    assert_eq!(b.read32(regs::replay_base_hi::OFFSET), (REPLAY_TABLE >> 32) as u32);
    assert_eq!(b.sim.dut.get("replay_base"), REPLAY_TABLE, "replay_base out");

    // QP 9's slots, with their neighbours' bytes around them
    let mut rng = Rng(0x5107);
    let qp = REPLAY_TABLE + 9 * 512;
    let around = qp - 256;
    let before: Vec<u8> = (0..1024).map(|_| rng.next() as u8).collect();
    b.write_host(around, &before);
    // slot 5: offset 32 of a 64-byte line, so its beat keeps the upper 32 lanes
    let slot = qp + 5 * 32;
    assert_eq!(slot % 64, 32);
    let entry: Vec<u8> = (0..32).map(|_| rng.next() as u8).collect();
    b.tp.write_port("replay_wr").queue.push_back((slot, entry.clone()));
    b.until(2000, "the slot write completes", |b| b.tp.write_port_ref("replay_wr").completions >= 1);
    b.steps(300);
    let w = &b.tp.write_port_ref("replay_wr");
    assert_eq!((w.completions, w.errors), (1, 0), "one completion pulse, no error");
    let at: Vec<&IssuedWrite> = b.writes.iter().filter(|w| w.addr == slot).collect();
    assert_eq!(at.len(), 1, "one DMA write at the slot");
    assert_eq!(at[0].bytes, entry, "its bytes: the kept lanes only");
    let mut want = before.clone();
    want[256 + 5 * 32..256 + 6 * 32].copy_from_slice(&entry);
    assert_eq!(b.read_host(around, 1024), want, "the slot written, every byte around it as it was");

    // the QP's 512 bytes, while a WQE read shares read client 0
    let wqes = RINGS + 0x70_0000;
    let wqe_bytes: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
    b.write_host(wqes, &wqe_bytes);
    b.tp.read_port("wqe_rd").queue.push_back((wqes, 256));
    b.tp.read_port("replay_rd").queue.push_back((qp, 512));
    b.until(2000, "the replay read", |b| b.tp.idle());
    b.steps(100);
    let done = &b.tp.read_port("replay_rd").done;
    assert_eq!(done.len(), 1, "one read delivered (tlast once)");
    assert!(!done[0].err);
    // the bench closes a read at its tlast, and every beat is 64 bytes: 8 beats, tlast on the 8th
    assert_eq!(done[0].bytes.len(), 512, "8 beats up to tlast");
    assert_eq!(done[0].bytes, want[256..768], "the QP's slots, the new one among them");
    let done = &b.tp.read_port("wqe_rd").done;
    assert_eq!(done.len(), 1);
    assert_eq!(read_bytes(&done[0], 256), wqe_bytes, "the WQE read beside it");

    // soft reset clears the base
    b.write32(regs::ctrl::OFFSET, regs::ctrl::SOFT_RESET.encode(1).unwrap());
    b.steps(4);
    assert_eq!(b.read32(regs::replay_base_lo::OFFSET), 0);
    assert_eq!(b.read32(regs::replay_base_hi::OFFSET), 0);
}

// ------------------------------------------------------------------ hazards
//
// The CQ engine alone (its Verilog), with events on one CQ in consecutive
// cycles: its pipelined read-modify-write must act as if every event were
// applied alone, in the order taken (within a cycle: setup, query,
// doorbell, CQE, as docs/host.md ranks them).

use rnic_sim::models::cq_engine;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

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
