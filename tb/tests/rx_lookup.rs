//! The receive lookup (`RxLookup`) against the bench's caches and
//! downstream stages (tb/src/rx_lookup.rs): every record in order per path
//! with its QP's `qpc` entry and a `qps` entry holding every earlier
//! write-back of its QP and path (the hazard check), the admission of
//! every header (`rnic_contract::qp_modify::admit`), the destinations and
//! drop counters; the latency and the rates.

use rnic_contract::codes::{QpState, QpType};
use rnic_hw::transport::RX_LOOKUP_LATENCY;
use rnic_sim::models::rx_lookup;
use rnic_tb::rx_lookup::{LookupBench, QPC_LOG};

type Bench = LookupBench<rx_lookup::Dut>;

/// RC opcodes: SEND ONLY, WRITE FIRST, READ request, ACK, READ response LAST,
/// atomic ACK; a UD SEND ONLY (a wrong type for an RC QP).
const OPCODES: [u8; 7] = [0x04, 0x06, 0x0c, 0x11, 0x0f, 0x12, 0x64];

fn setup(b: &mut Bench, qps: usize) -> Vec<u32> {
    let mut qpns = vec![];
    for k in 0..qps {
        let qpn = 1 + (b.rng.next() % ((1 << QPC_LOG) - 1)) as u32;
        if qpns.contains(&qpn) {
            continue;
        }
        // most in RTS; some RTR (no responses), INIT, ERR, a UC QP
        let (state, ty) = match k % 10 {
            7 => (QpState::ReadyToReceive, QpType::Rc),
            8 => ([QpState::Init, QpState::Error][k / 10 % 2], QpType::Rc),
            9 => (QpState::ReadyToSend, QpType::Uc),
            _ => (QpState::ReadyToSend, QpType::Rc),
        };
        b.add_qp(qpn, state as u64, ty as u64);
        qpns.push(qpn);
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
        comp_error_drops += b.comp_error_drops;
        for (k, n) in b.drops.iter().enumerate() {
            reasons[k] += n;
        }
    }
    // BadQpn, WrongQpType, QpNotReady, QpError, ResponseNotExpected, BadPkey
    assert!(reasons.iter().filter(|&&n| n > 10).count() >= 6, "drops of every reason the traffic makes: {reasons:?}");
    assert!(reasons[rnic_contract::qp_modify::AdmitReason::BadPkey as usize] > 10, "P_Key drops: {reasons:?}");
    assert!(comp_error_drops > 10, "requests of QPs whose completer is in error: {comp_error_drops}");
}

#[test]
fn latency_and_rates() {
    // one header into an idle block, both caches answering H cycles after the request is taken
    for h in [1u64, 3, 20] {
        let mut b = Bench::new(rx_lookup::Dut::new(), 7);
        (b.p_any_pkey, b.p_comp_error) = (0, 0);
        (b.lat_min, b.lat_max) = (h, h);
        b.add_qp(5, QpState::ReadyToSend as u64, QpType::Rc as u64);
        b.push(5, 0x04);
        b.run(1000);
        assert_eq!(b.rec_at[0].0 - b.taken_at[0], RX_LOOKUP_LATENCY + h, "latency with H = {h}");
    }
    // distinct QPs back to back: one header per two cycles
    let mut b = Bench::new(rx_lookup::Dut::new(), 8);
    (b.p_any_pkey, b.p_comp_error) = (0, 0); // every header admitted
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
    (b.p_any_pkey, b.p_comp_error) = (0, 0); // every header admitted
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
