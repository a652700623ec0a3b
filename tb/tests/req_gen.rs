//! The requester's packet generator (`ReqGen`, catalog `req_gen`) against
//! the protocol model (`rnic_tb::req_gen`: every header field, every
//! fragment, done, inflight record and `m_rwqe` pulse exact, every output stalled at
//! random and checked to stay offered), plus its error verdicts, latency
//! and rate.

use rnic_contract::codes::SendOpcode;
use rnic_hw::consts::*;
use rnic_hw::transport::{REQ_GEN_JOB_GAP, REQ_GEN_LATENCY, REQ_SETUP_PHASES};
use rnic_proto::{Opcode, Pmtu};
use rnic_sim::axis::Rng;
use rnic_sim::models::req_gen::Dut;
use rnic_tb::req_gen::*;

fn bench(seed: u64) -> ReqGenBench<Dut> {
    ReqGenBench::new(Dut::new(), seed)
}

#[test]
fn bth_opcodes_are_the_models() {
    use Opcode::*;
    let send = [RcSendFirst, RcSendMiddle, RcSendLast, RcSendLastImm, RcSendOnly, RcSendOnlyImm];
    let write = [RcWriteFirst, RcWriteMiddle, RcWriteLast, RcWriteLastImm, RcWriteOnly, RcWriteOnlyImm];
    let pos = [BTH_POS_FIRST, BTH_POS_MIDDLE, BTH_POS_LAST, BTH_POS_LAST_IMM, BTH_POS_ONLY, BTH_POS_ONLY_IMM];
    for i in 0..6 {
        assert_eq!(BTH_RC_SEND_FIRST + pos[i], send[i].value() as u64, "{}", send[i].name());
        assert_eq!(BTH_RC_WRITE_FIRST + pos[i], write[i].value() as u64, "{}", write[i].name());
    }
    assert_eq!(BTH_RC_READ_REQUEST, RcReadRequest.value() as u64);
    assert_eq!(BTH_RC_COMPARE_SWAP, RcCompareSwap.value() as u64);
    assert_eq!(BTH_RC_FETCH_ADD, RcFetchAdd.value() as u64);
    for (code, p) in [MTU_256, MTU_512, MTU_1024, MTU_2048, MTU_4096].iter().zip(Pmtu::ALL) {
        assert_eq!(*code, p as u64);
    }
}

fn run_random(seed: u64, jobs: usize, pct: [u64; 4], job_pct: u64) -> ReqGenBench<Dut> {
    let mut b = bench(seed);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    for _ in 0..jobs {
        b.jobs.push_back(random_job(&mut rng));
    }
    b.ready_pct = pct;
    b.job_pct = job_pct;
    b.drain(2_000_000);
    b
}

#[test]
fn random_jobs_under_random_stalls() {
    let b = run_random(1, 1000, [60, 70, 50, 40], 70);
    assert_eq!(b.counts[2], 1000, "one done per job");
    assert!(b.counts[0] > 2000 && b.counts[1] > 2000 && b.counts[3] > 400, "{:?}", b.counts);
    assert!(b.rwqes > 50, "READs and atomics put for the completer: {}", b.rwqes);
    eprintln!("random_jobs: headers, fragments, dones, pushes {:?} in {} cycles", b.counts, b.now());
}

#[test]
fn each_output_stalled_alone() {
    for (i, seed) in (0..4).zip([11u64, 12, 13, 14]) {
        let mut pct = [100; 4];
        pct[i] = 15;
        let b = run_random(seed, 80, pct, 100);
        assert_eq!(b.counts[2], 80);
    }
}

fn one_job(opcode: SendOpcode, pmtu: u8, lens: &[u32], psn: u32, k: u32, budget: u32) -> Job {
    let mut rng = Rng(77);
    let mut qp = random_qp(&mut rng);
    qp.pmtu = pmtu;
    let mut wqe = random_wqe(&mut rng, opcode as u8, 256);
    wqe.num_sge = lens.len() as u8;
    for (s, &l) in wqe.sges.iter_mut().zip(lens) {
        s.1 = l;
    }
    Job { qp, wqe, sq_index: 5, psn, pkt_index: k, budget }
}

#[test]
fn errors_send_nothing() {
    let mut b = bench(3);
    let mut inline = one_job(SendOpcode::Send, 3, &[100], 10, 0, 4);
    inline.wqe.inline = true;
    let mut opcode = one_job(SendOpcode::Send, 3, &[100], 10, 0, 4);
    opcode.wqe.opcode = 7;
    let mut sges = one_job(SendOpcode::RdmaWrite, 3, &[100], 10, 0, 4);
    sges.wqe.num_sge = 5;
    let atomic = one_job(SendOpcode::AtomicFetchAndAdd, 3, &[16], 10, 0, 4);
    let atomic2 = one_job(SendOpcode::AtomicCmpAndSwp, 3, &[8, 8], 10, 0, 4);
    let mut pmtu = one_job(SendOpcode::Send, 3, &[100], 10, 0, 4);
    pmtu.qp.pmtu = 6;
    let long = one_job(SendOpcode::RdmaRead, 3, &[1 << 31, 1], 10, 0, 4);
    let ok = one_job(SendOpcode::RdmaRead, 3, &[1 << 30, 1 << 30], 10, 0, 4);
    let want = [
        REQ_ERR_INLINE,
        REQ_ERR_BAD_WQE,
        REQ_ERR_BAD_WQE,
        REQ_ERR_BAD_WQE,
        REQ_ERR_BAD_WQE,
        REQ_ERR_BAD_WQE,
        REQ_ERR_TOO_LONG,
        REQ_ERR_NONE,
    ];
    for (j, w) in [inline, opcode, sges, atomic, atomic2, pmtu, long, ok].into_iter().zip(want) {
        assert_eq!(job_error(&j), w, "{j:?}");
        b.jobs.push_back(j);
    }
    b.drain(10_000);
    // (each refused WQE's entry pushed, checked field by field: kind
    // ENT_KIND_REFUSED, LOC_QP_OP_ERR or LOC_LEN_ERR in LEN)
    assert_eq!(b.counts, [1, 0, 8, 8], "only the 2^31-byte READ is sent; every WQE pushed");
}

#[test]
fn first_header_latency() {
    let mut b = bench(4);
    let mut rng = Rng(5);
    for _ in 0..40 {
        // one job at a time, the block idle: its first header at the latency
        b.jobs.push_back(random_job(&mut rng));
        b.drain(100_000);
    }
    assert_eq!(b.job_cycles.len(), 40);
    // every job sends at least one header: its first header at the latency
    let mut hdr = b.hdr_cycles.iter().peekable();
    for &t in &b.job_cycles {
        while hdr.peek().is_some_and(|&&h| h < t) {
            hdr.next();
        }
        assert_eq!(*hdr.peek().unwrap() - t, REQ_GEN_LATENCY, "job taken at {t}");
    }
}

#[test]
fn full_rate_one_fragment_packets() {
    // 64 KiB SENDs and WRITEs at 256-byte PMTU from one SGE: 256 packets of one fragment each
    let mut b = bench(6);
    let n = 4;
    for i in 0..n {
        let op = if i % 2 == 0 { SendOpcode::Send } else { SendOpcode::RdmaWriteWithImm };
        b.jobs.push_back(one_job(op, 1, &[64 << 10], 0xff_ff00 + i, 0, 1 << 20));
    }
    b.drain(100_000);
    assert_eq!(b.counts[0], 256 * n as u64);
    assert_eq!(b.counts[1], 256 * n as u64);
    let gaps: Vec<u64> = b.hdr_cycles.windows(2).map(|w| w[1] - w[0]).collect();
    for (i, g) in gaps.iter().enumerate() {
        let want = if (i + 1) % 256 == 0 { REQ_GEN_JOB_GAP + 1 } else { 1 };
        assert_eq!(*g, want, "header {i} to {}", i + 1);
    }
    assert_eq!(b.hdr_cycles, b.frag_cycles, "each packet's fragment with its header");
}

#[test]
fn full_rate_many_fragments() {
    // SGEs that cut packets into several fragments: one fragment per cycle, a
    // packet of n fragments takes n cycles
    let mut b = bench(7);
    let j = one_job(SendOpcode::Send, 2, &[100, 0, 700, 37, 5000], 3, 0, 1 << 20);
    let e = expect_job(&j);
    b.jobs.push_back(j.clone());
    b.drain(100_000);
    assert_eq!(b.counts[1] as usize, e.frags.len());
    assert!(b.frag_cycles.windows(2).all(|w| w[1] == w[0] + 1), "one fragment per cycle");
    for (i, w) in b.hdr_cycles.windows(2).enumerate() {
        assert_eq!(w[1] - w[0], e.frags_per_pkt[i].max(1) as u64, "packet {i}");
    }
}

#[test]
fn one_packet_jobs_rate() {
    let mut b = bench(8);
    for i in 0..20 {
        b.jobs.push_back(one_job(SendOpcode::Send, 3, &[64], i, 0, 1));
    }
    b.drain(10_000);
    assert!(b.hdr_cycles.windows(2).all(|w| w[1] - w[0] == REQ_SETUP_PHASES + 2), "{:?}", b.hdr_cycles);
}

#[test]
fn resumes_and_budgets() {
    // the same 20-packet WRITE sent in pieces of random budgets from random
    // resume points, and a READ resumed at every response
    let mut b = bench(9);
    let mut rng = Rng(10);
    for pmtu in 1..=5u8 {
        let bytes = Pmtu::from_ibv(pmtu).unwrap().bytes() as u32;
        let mut k = 0;
        while k < 20 {
            let budget = 1 + (rng.next() % 5) as u32;
            let j = one_job(SendOpcode::RdmaWrite, pmtu, &[bytes * 7 + 3, 0, bytes * 13 - 3], 0xff_fff0, k, budget);
            // the PSN of packet k
            let j = Job { psn: (0xff_fff0 + k) & 0xff_ffff, ..j };
            b.jobs.push_back(j);
            k += budget;
        }
        for k in 0..5 {
            let j =
                one_job(SendOpcode::RdmaRead, pmtu, &[bytes * 2, 0, bytes * 2 + 1], (0xff_fffe + k) & 0xff_ffff, k, 1);
            b.jobs.push_back(j);
        }
    }
    b.ready_pct = [50, 50, 50, 50];
    b.drain(100_000);
}
