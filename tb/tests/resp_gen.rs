//! The responder's answer cutter (`RespGen`, catalog `resp_gen`) against the
//! protocol model's READ responses (`rnic_tb::resp_gen`: every packet's
//! opcode, PSN, payload length and fragment; atomic ACKs with their
//! original value; every field carried through;
//! the three streams stalled at random), then latency and rate.

use rnic_hw::consts::*;
use rnic_hw::transport::RESP_GEN_LATENCY;
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_sim::models::resp_gen::Dut;
use rnic_tb::resp_gen::*;

fn bench(seed: u64) -> RespGenBench<Dut> {
    RespGenBench::new(Dut::new(), seed)
}

#[test]
fn read_response_opcodes_are_the_models() {
    assert_eq!(BTH_RC_READ_RESP_FIRST, Opcode::RcReadResponseFirst.value() as u64);
    assert_eq!(BTH_RC_READ_RESP_MIDDLE, Opcode::RcReadResponseMiddle.value() as u64);
    assert_eq!(BTH_RC_READ_RESP_LAST, Opcode::RcReadResponseLast.value() as u64);
    assert_eq!(BTH_RC_READ_RESP_ONLY, Opcode::RcReadResponseOnly.value() as u64);
    assert_eq!(BTH_RC_ATOMIC_ACK, Opcode::RcAtomicAck.value() as u64);
    // the PMTU codes RespGen selects on are the model's
    for (code, p) in [(MTU_256, Pmtu::Mtu256), (MTU_512, Pmtu::Mtu512), (MTU_4096, Pmtu::Mtu4096)] {
        assert_eq!(code, p as u64);
    }
}

fn run_random(seed: u64, n: usize, read_pct: u64, pcts: [u64; 3]) -> RespGenBench<Dut> {
    let mut b = bench(seed);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    for _ in 0..n {
        b.queue.push_back(random_req(&mut rng, &[1, 700, 16383], read_pct));
    }
    [b.req_pct, b.ack_pct, b.frag_pct] = pcts;
    b.drain(2_000_000);
    assert_eq!(b.taken.len(), n);
    let want: usize = b.taken.iter().map(|r| expected(r).len()).sum();
    assert_eq!(b.acks.len(), want, "every packet answered once");
    b
}

#[test]
fn random_requests_under_random_stalls() {
    for (seed, pcts) in [(1, [70, 50, 50]), (2, [100, 30, 90]), (3, [100, 90, 30]), (4, [20, 100, 100])] {
        let b = run_random(seed, 600, 40, pcts);
        let reads = b.taken.iter().filter(|r| r.read.is_some()).count();
        let multi = b.taken.iter().filter(|r| expected(r).len() > 2).count();
        let empty = b.taken.iter().filter(|r| r.read.is_some_and(|j| j.len == 0)).count();
        let atomics = b.taken.iter().filter(|r| r.atomic.is_some()).count();
        assert!(reads > 150 && multi > 50 && empty > 5, "reads {reads}, multi-packet {multi}, zero-length {empty}");
        assert!(atomics > 40, "{atomics} atomic ACKs");
        eprintln!(
            "seed {seed} {pcts:?}: {} requests ({reads} READs), {} packets, {} fragments, {} cycles",
            b.taken.len(),
            b.acks.len(),
            b.frags,
            b.now()
        );
    }
}

#[test]
fn latency_and_full_rate() {
    let mut b = bench(5);
    let mut rng = Rng(11);
    // ACKs alone: one per cycle, each offered RESP_GEN_LATENCY after it was taken
    for _ in 0..200 {
        b.queue.push_back(random_req(&mut rng, &[3], 0));
    }
    b.drain(10_000);
    let takes = &b.take_cycles;
    assert!(takes.windows(2).all(|w| w[1] == w[0] + 1), "an ACK taken per cycle");
    for (k, &(i, first, out)) in b.acks.iter().enumerate() {
        assert_eq!(i, k);
        assert_eq!((first, out), (takes[i] + RESP_GEN_LATENCY, takes[i] + RESP_GEN_LATENCY), "ACK {k}");
    }
    // a READ of n packets: n packets in n cycles, the next request's first right after
    let mut b = bench(6);
    let mut reads = vec![];
    for len in [20_000u32, 4096, 1, 0, 12_288] {
        let mut r = random_req(&mut rng, &[3], 100);
        let j = r.read.as_mut().unwrap();
        j.len = len;
        j.pmtu = Pmtu::Mtu4096;
        reads.push(expected(&r).len());
        b.queue.push_back(r);
    }
    b.drain(10_000);
    assert_eq!(reads, [5, 1, 1, 1, 3]);
    let outs: Vec<u64> = b.acks.iter().map(|a| a.2).collect();
    let t0 = b.take_cycles[0] + RESP_GEN_LATENCY;
    assert_eq!(outs, (t0..t0 + 11).collect::<Vec<_>>(), "one packet per cycle across requests");
}
