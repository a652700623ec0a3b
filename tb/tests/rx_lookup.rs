//! The receive lookup (`RxLookup`) against the bench's caches and
//! downstream stages (tb/src/rx_lookup.rs): every record in order per path
//! with its QP's `qpc` entry and a `qps` entry holding every earlier
//! write-back of its QP and path (the hazard check), the admission of
//! every header (`rnic_contract::qp_modify::admit`), the destinations and
//! drop counters; the records made on chip among them (`s_expire`,
//! `s_local`, `s_rq_flush`: each once, in the order and priority of the
//! block's registers); the latency and the rates.

use rnic_contract::codes::{QpState, QpType};
use rnic_contract::qp_modify::AdmitReason;
use rnic_hw::transport::RX_LOOKUP_LATENCY;
use rnic_sim::models::rx_lookup;
use rnic_tb::rx_lookup::{LookupBench, EXPIRE, FLUSH, LOCAL, QPC_LOG};

type Bench = LookupBench<rx_lookup::Dut>;

/// RC opcodes: SEND ONLY, WRITE FIRST, READ request, ACK, READ response LAST,
/// atomic ACK; a UD SEND ONLY (a wrong type for an RC QP).
const OPCODES: [u8; 7] = [0x04, 0x06, 0x0c, 0x11, 0x0f, 0x12, 0x64];

/// `qps` QPs for the headers (and the on-chip records), and two more that
/// only on-chip records name (so every seed has QPs whose flush is
/// admitted, whatever its traffic): one in ERR, one in RTS whose completer
/// is in error.
fn setup(b: &mut Bench, qps: usize) -> Vec<u32> {
    let mut qpns = vec![];
    let draw = |b: &mut Bench| 1 + (b.rng.next() % ((1 << QPC_LOG) - 1)) as u32;
    for k in 0..qps {
        let qpn = draw(b);
        if qpns.contains(&qpn) {
            continue;
        }
        // most in RTS; some RTR (no responses), ERR, INIT, a UC QP, one
        // whose completer is in error (its requests dropped)
        let (state, ty) = match k % 10 {
            6 => (QpState::ReadyToSend, QpType::Rc),
            7 => (QpState::ReadyToReceive, QpType::Rc),
            8 => ([QpState::Error, QpState::Init][k / 10 % 2], QpType::Rc),
            9 => (QpState::ReadyToSend, QpType::Uc),
            _ => (QpState::ReadyToSend, QpType::Rc),
        };
        b.add_qp(qpn, state as u64, ty as u64);
        if k % 10 == 6 {
            b.set_comp_error(qpn, true);
        }
        qpns.push(qpn);
    }
    let mut all = qpns.clone();
    for (state, comp_error) in [(QpState::Error, false), (QpState::ReadyToSend, true)] {
        let qpn = std::iter::repeat_with(|| draw(b)).find(|q| !all.contains(q)).unwrap();
        b.add_qp(qpn, state as u64, QpType::Rc as u64);
        b.set_comp_error(qpn, comp_error);
        all.push(qpn);
    }
    qpns
}

fn random_traffic(b: &mut Bench, qpns: &[u32], n: usize) {
    for _ in 0..n {
        let qpn = match b.rng.next() % 40 {
            0 => 0,
            1 => (1 << QPC_LOG) + (b.rng.next() % 5000) as u32,
            _ => qpns[(b.rng.next() % qpns.len() as u64) as usize],
        };
        let op = OPCODES[(b.rng.next() % OPCODES.len() as u64) as usize];
        b.push(qpn, op);
    }
}

#[test]
fn random_headers_under_stalls() {
    let mut reasons = [0u64; rnic_hw::transport::RX_DROP_REASONS];
    let mut comp_error_drops = 0;
    let mut flushes = [0u64; 2];
    let mut flush_admits = [0u64; 2];
    for (seed, qps, p, lat, wb) in [
        (1, 3, 100, (2, 40), (1, 30)),
        (2, 12, 60, (2, 8), (1, 5)),
        (3, 40, 40, (1, 80), (0, 60)),
        (4, 1, 90, (3, 3), (2, 20)),
    ] {
        let mut b = Bench::new(rx_lookup::Dut::new(), seed);
        (b.p_hdr, b.p_cache, b.p_take, b.p_wb) = (p, p.max(50), p, p);
        (b.lat_min, b.lat_max, b.wb_min, b.wb_max) = (lat.0, lat.1, wb.0, wb.1);
        let qpns = setup(&mut b, qps);
        random_traffic(&mut b, &qpns, 1500);
        b.run(400_000);
        assert!(b.records[0] > 300 && b.records[1] > 200, "seed {seed}: records per path {:?}", b.records);
        assert_eq!(b.dests, 1500, "seed {seed}: a destination per header");
        assert!(b.wakes > 50, "seed {seed}: {} wakes", b.wakes);
        assert!(b.path_wakes.iter().all(|&n| n > 20), "seed {seed}: wakes by path {:?}", b.path_wakes);
        comp_error_drops += b.comp_error_drops;
        eprintln!(
            "seed {seed}: RQ flushes admitted {} (QP in ERR {}, completer in error {}), dropped {}; records {:?}; wakes by path {:?}",
            b.on_chip[FLUSH][0], b.flush_admits[0], b.flush_admits[1], b.on_chip[FLUSH][1], b.records, b.path_wakes
        );
        assert_eq!(
            b.on_chip[FLUSH][0],
            b.flush_admits.iter().sum::<u64>(),
            "seed {seed}: flushes admitted as expected"
        );
        assert!(
            b.on_chip[FLUSH][0] > 5 && b.on_chip[FLUSH][1] > 5,
            "seed {seed}: RQ flushes admitted / dropped {:?}",
            b.on_chip[FLUSH]
        );
        for k in 0..2 {
            flushes[k] += b.on_chip[FLUSH][k];
            flush_admits[k] += b.flush_admits[k];
        }
        for (k, n) in b.drops.iter().enumerate() {
            reasons[k] += n;
        }
    }
    // BadQpn, WrongQpType, QpNotReady, QpError, ResponseNotExpected, BadPkey
    assert!(reasons.iter().filter(|&&n| n > 10).count() >= 6, "drops of every reason the traffic makes: {reasons:?}");
    assert!(reasons[rnic_contract::qp_modify::AdmitReason::BadPkey as usize] > 10, "P_Key drops: {reasons:?}");
    assert!(comp_error_drops > 10, "requests of QPs whose completer is in error: {comp_error_drops}");
    assert!(flushes[0] > 100 && flushes[1] > 100, "RQ flushes admitted / dropped: {flushes:?}");
    assert!(flush_admits.iter().all(|&n| n > 30), "flushes admitted in ERR / completer in error: {flush_admits:?}");
}

/// QPs 1, 2, .. of the given (state, type, completer in error, admitted)
/// kinds; the records expected admitted and dropped, one per QP.
fn add_kinds(b: &mut Bench, kinds: &[(QpState, QpType, bool, bool)]) -> [u64; 2] {
    let mut want = [0u64; 2];
    for (q, &(state, ty, comp_error, admitted)) in kinds.iter().enumerate() {
        let qpn = 1 + q as u32;
        b.add_qp(qpn, state as u64, ty as u64);
        b.set_comp_error(qpn, comp_error);
        want[!admitted as usize] += 1;
    }
    want
}

/// RQ flush records one by one, each kind of QP: admitted only for a QP in
/// ERR or whose completer is in error (a request-path record with its
/// write-back), dropped uncounted elsewhere and for a QPN that names none;
/// never a destination. Then flushes pushed while a burst of headers of the
/// same QPs waits: they enter between the headers (taking turns with them),
/// in the order the bench's mirror checks.
#[test]
fn rq_flush_records() {
    let mut b = Bench::new(rx_lookup::Dut::new(), 11);
    (b.p_any_pkey, b.p_comp_error, b.p_flush) = (0, 0, 0);
    let kinds = [
        (QpState::Error, QpType::Rc, false, true),
        (QpState::ReadyToSend, QpType::Rc, true, true),
        (QpState::ReadyToReceive, QpType::Rc, true, true),
        (QpState::Error, QpType::Rc, true, true),
        (QpState::ReadyToSend, QpType::Rc, false, false),
        (QpState::Init, QpType::Rc, true, false),
        (QpState::Reset, QpType::Rc, false, false),
        (QpState::Error, QpType::Uc, false, false), // an RC opcode for a UC QP
    ];
    let mut want = add_kinds(&mut b, &kinds);
    for qpn in 1..=kinds.len() as u32 {
        b.push_flush(qpn);
    }
    b.push_flush(0);
    b.push_flush(1 << QPC_LOG);
    want[1] += 2;
    b.run(5_000);
    assert_eq!(b.on_chip[FLUSH], want, "RQ flushes admitted / dropped");
    assert_eq!(b.records, [want[0], 0]);
    assert_eq!(b.dests, 0, "an RQ flush has no destination");
    assert!(b.drops.iter().all(|&n| n == 0), "an RQ flush's drop is not counted: {:?}", b.drops);

    // headers of the admitting QPs (and a working one) queued, flushes pushed
    // while they wait: the order follows what the block took
    let mut b = Bench::new(rx_lookup::Dut::new(), 12);
    (b.p_any_pkey, b.p_comp_error, b.p_flush) = (0, 0, 0);
    (b.lat_min, b.lat_max, b.wb_min, b.wb_max) = (2, 20, 1, 10);
    for (qpn, state, comp_error) in
        [(1, QpState::Error, false), (2, QpState::ReadyToSend, true), (3, QpState::ReadyToSend, false)]
    {
        b.add_qp(qpn, state as u64, QpType::Rc as u64);
        b.set_comp_error(qpn, comp_error);
    }
    let mut n_hdr = 0;
    for round in 0..40u32 {
        for k in 0..10u32 {
            b.push(1 + (round + k) % 3, [0x04, 0x06, 0x11][(k % 3) as usize]);
            n_hdr += 1;
        }
        b.push_flush(1 + round % 3);
        for _ in 0..(round % 7) * 3 {
            b.step();
        }
    }
    b.run(100_000);
    assert_eq!(b.dests, n_hdr, "a destination per header, none per flush");
    let admitted = (0..40u32).filter(|r| r % 3 != 2).count() as u64;
    assert_eq!(b.on_chip[FLUSH], [admitted, 40 - admitted], "RQ flushes admitted / dropped");
    assert_eq!(b.drops[AdmitReason::QpNotReady as usize], 0, "no flush drop counted");
}

/// Expiries (both kinds) and refused WQEs' records one by one, each kind
/// of QP: admitted (on the response path, with its write-back) in RTS, SQD
/// and ERR whatever the completer's error, and in RTR (the poke of a QP
/// whose responder failed before it sent: `record_admits`), dropped
/// uncounted in INIT, RESET, for a UC QP and for a QPN that names none;
/// never a destination.
#[test]
fn expire_and_local_records() {
    let mut b = Bench::new(rx_lookup::Dut::new(), 13);
    (b.p_any_pkey, b.p_comp_error, b.p_flush) = (0, 0, 0);
    let kinds = [
        (QpState::ReadyToSend, QpType::Rc, false, true),
        (QpState::ReadyToSend, QpType::Rc, true, true),
        (QpState::SendQueueDrained, QpType::Rc, false, true),
        (QpState::Error, QpType::Rc, false, true),
        (QpState::Error, QpType::Rc, true, true),
        (QpState::ReadyToReceive, QpType::Rc, false, true),
        (QpState::Init, QpType::Rc, false, false),
        (QpState::Reset, QpType::Rc, false, false),
        (QpState::ReadyToSend, QpType::Uc, false, false), // an RC opcode for a UC QP
    ];
    let mut want = add_kinds(&mut b, &kinds);
    for qpn in (1..=kinds.len() as u32).chain([0, 1 << QPC_LOG]) {
        b.push_expire(qpn, false);
        b.push_expire(qpn, true);
        b.push_local(qpn);
    }
    want[1] += 2;
    b.run(5_000);
    assert_eq!(b.on_chip[EXPIRE], [2 * want[0], 2 * want[1]], "expiries admitted / dropped");
    assert_eq!(b.on_chip[LOCAL], want, "refused WQEs' records admitted / dropped");
    assert_eq!(b.on_chip[FLUSH], [0, 0]);
    assert_eq!(b.records, [0, 3 * want[0]]);
    assert_eq!(b.dests, 0, "an on-chip record has no destination");
    assert!(b.drops.iter().all(|&n| n == 0), "an on-chip record's drop is not counted: {:?}", b.drops);
}

/// The three on-chip inputs at once, at high rates, among random headers
/// under output and cache stalls: the registers are often full together,
/// records are taken in the cycle others arrive, and every record must come
/// out once, in the order and priority the block's rules give (the bench's
/// register mirror: a record taken on `s_local` in the cycle an RQ flush
/// left its register was lost before 679f30e). The counts of the interplay
/// come from the bench.
#[test]
fn on_chip_records_together() {
    const HEADERS: usize = 1500;
    // (40 rounds: headers take turns with the records, so a round has fewer
    // of the cycles counted below than when records went first)
    const ROUNDS: usize = 40;
    const BURST: usize = 150;
    const QUIET: usize = 250;
    // seed, QPs, percent per input and cycle in a burst, stalls, cache latency, write-back delay
    for (seed, qps, p_chip, pv, p, lat, wb) in [
        (21, 30, 25, 20, 50, (2, 20), (1, 15)),
        (22, 6, 30, 10, 40, (1, 40), (0, 30)),
        (23, 60, 20, 30, 70, (3, 3), (1, 5)),
        (24, 12, 35, 15, 60, (2, 10), (2, 20)),
    ] {
        let mut b = Bench::new(rx_lookup::Dut::new(), seed);
        (b.p_hdr, b.p_cache, b.p_take, b.p_wb) = (p.max(70), p.max(50), p, p);
        (b.lat_min, b.lat_max, b.wb_min, b.wb_max) = (lat.0, lat.1, wb.0, wb.1);
        b.p_chip_valid = Some(pv);
        let qpns = setup(&mut b, qps);
        random_traffic(&mut b, &qpns, HEADERS);
        let t0 = b.sim.cycle();
        // bursts of on-chip records (more than the lookup takes: the
        // registers fill and stay full), each followed by a quiet spell in
        // which the backlog drains and headers pass
        for _ in 0..ROUNDS {
            (b.p_expire, b.p_local, b.p_flush) = (p_chip, p_chip, p_chip);
            for _ in 0..BURST {
                b.step();
            }
            (b.p_expire, b.p_local, b.p_flush) = (0, 0, 0);
            for _ in 0..QUIET {
                b.step();
            }
        }
        b.run(1_000_000);
        let cycles = b.sim.cycle() - t0;
        eprintln!(
            "seed {seed}: {cycles} cycles; on-chip admitted/dropped {:?}; records {:?}; cycles with 0..3 registers full {:?}; took over {:?}; taken as another loaded {:?}",
            b.on_chip, b.records, b.full_cycles, b.took_over, b.take_load
        );
        for x in [EXPIRE, LOCAL, FLUSH] {
            // each record once: seen on its path if admitted, else dropped
            assert_eq!(b.on_chip[x][0], b.chip_admits[x], "seed {seed}: input {x}: records admitted as expected");
            assert_eq!(b.on_chip[x][0] + b.on_chip[x][1], b.chip_pushed[x], "seed {seed}: input {x}: every record");
            assert!(
                b.on_chip[x][0] > 100 && b.on_chip[x][1] > 50,
                "seed {seed}: input {x}: admitted / dropped {:?}",
                b.on_chip[x]
            );
        }
        // the registers full together, a take past each lower-priority
        // register waiting, and the cycles the old defect needed (a flush
        // taken as a refused WQE's record was loaded), besides other takes
        // with a load
        assert!(
            b.full_cycles[2] > 1000 && b.full_cycles[3] > 1000,
            "seed {seed}: cycles with 2, 3 registers full {:?}",
            b.full_cycles
        );
        for (x, y) in [(EXPIRE, LOCAL), (EXPIRE, FLUSH), (LOCAL, FLUSH)] {
            assert!(b.took_over[x][y] > 300, "seed {seed}: took {x} over {y}: {:?}", b.took_over);
        }
        assert!(b.take_load[FLUSH][LOCAL] > 20, "seed {seed}: flushes taken as a local record was loaded");
        let with_load: u64 = (0..3).flat_map(|x| (0..3).map(move |y| (x, y))).map(|(x, y)| b.take_load[x][y]).sum();
        assert!(with_load > 30, "seed {seed}: takes with a load {:?}", b.take_load);
        assert_eq!(b.dests, HEADERS as u64, "seed {seed}: a destination per header");
    }
}

/// On-chip records arriving without pause, faster than the lookup takes
/// them, do not hold headers back: the two take turns. (Before the turns
/// a header waited until all three registers were empty: at 12 % per input
/// 2 headers of 1000 were taken in 10^6 cycles.)
#[test]
fn headers_take_turns_with_on_chip_records() {
    const HEADERS: usize = 1000;
    for (seed, p_chip) in [(31u64, 40u64), (32, 100)] {
        let mut b = Bench::new(rx_lookup::Dut::new(), seed);
        (b.p_hdr, b.p_cache, b.p_take, b.p_wb) = (100, 100, 100, 100);
        (b.lat_min, b.lat_max, b.wb_min, b.wb_max) = (1, 3, 0, 2);
        b.p_chip_valid = Some(100);
        (b.p_expire, b.p_local, b.p_flush) = (p_chip, p_chip, p_chip);
        let qpns = setup(&mut b, 40);
        random_traffic(&mut b, &qpns, HEADERS);
        let t0 = b.sim.cycle();
        b.run(1_000_000);
        let cycles = b.sim.cycle() - t0;
        let chip: u64 = (0..3).map(|x| b.on_chip[x][0] + b.on_chip[x][1]).sum();
        eprintln!(
            "seed {seed}: {HEADERS} headers and {chip} on-chip records in {cycles} cycles; {} headers taken while a record waited; registers full {:?}",
            b.hdr_past_chip, b.full_cycles
        );
        assert_eq!(b.dests, HEADERS as u64, "seed {seed}: a destination per header");
        assert!(
            b.hdr_past_chip * 10 > HEADERS as u64 * 9,
            "seed {seed}: headers taken in their turn: {}",
            b.hdr_past_chip
        );
        assert!(chip > HEADERS as u64, "seed {seed}: the records outnumbered the headers: {chip}");
        for x in [EXPIRE, LOCAL, FLUSH] {
            assert_eq!(b.on_chip[x][0], b.chip_admits[x], "seed {seed}: input {x}: records admitted as expected");
            assert_eq!(b.on_chip[x][0] + b.on_chip[x][1], b.chip_pushed[x], "seed {seed}: input {x}: every record");
        }
        assert!(cycles < 8 * (HEADERS as u64 + chip), "seed {seed}: {cycles} cycles");
    }
}

#[test]
fn latency_and_rates() {
    // one header into an idle block, both caches answering H cycles after the request is taken
    for h in [1u64, 3, 20] {
        let mut b = Bench::new(rx_lookup::Dut::new(), 7);
        (b.p_any_pkey, b.p_comp_error, b.p_flush) = (0, 0, 0);
        (b.lat_min, b.lat_max) = (h, h);
        b.add_qp(5, QpState::ReadyToSend as u64, QpType::Rc as u64);
        b.push(5, 0x04);
        b.run(1000);
        assert_eq!(b.rec_at[0].0 - b.taken_at[0], RX_LOOKUP_LATENCY + h, "latency with H = {h}");
    }
    // distinct QPs back to back: one header per two cycles
    let mut b = Bench::new(rx_lookup::Dut::new(), 8);
    (b.p_any_pkey, b.p_comp_error, b.p_flush) = (0, 0, 0); // every header admitted, no flush
    b.p_write = 0; // write-backs share the `qps` port with the reads
    for q in 1..=200u32 {
        b.add_qp(q, QpState::ReadyToSend as u64, QpType::Rc as u64);
        b.push(q, [0x04, 0x11][q as usize % 2]);
    }
    b.run(10_000);
    let t: Vec<u64> = b.taken_at.iter().copied().collect();
    let gaps: Vec<u64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g == 2), "a header every two cycles: {gaps:?}");
    let r: Vec<u64> = b.rec_at.iter().map(|x| x.0).collect();
    assert!(r.windows(2).all(|w| w[1] - w[0] == 2), "a record every two cycles");
    // one QP's requests: one per loop (record taken -> write-back -> next read)
    let mut b = Bench::new(rx_lookup::Dut::new(), 9);
    (b.p_any_pkey, b.p_comp_error, b.p_flush) = (0, 0, 0); // every header admitted, no flush
    (b.wb_min, b.wb_max) = (10, 10);
    b.add_qp(9, QpState::ReadyToSend as u64, QpType::Rc as u64);
    for _ in 0..50 {
        b.push(9, 0x06);
    }
    b.run(10_000);
    let r: Vec<u64> = b.rec_at.iter().map(|x| x.0).collect();
    let gaps: Vec<u64> = r.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g == gaps[0]), "one QP: a constant period {gaps:?}");
    eprintln!("one QP's packets: one per {} cycles with a 10-cycle execution and H = 3", gaps[0]);
}
