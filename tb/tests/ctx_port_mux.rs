//! The context-cache port multiplexer (`CtxPortMux`, three users): random
//! requests of every op under random stalls, answered out of order by a
//! cache model, against the bench's reference (each request at the cache
//! with every field and its user's number in the id, each answer at its
//! user with the user's own id); round robin at one request per cycle; the
//! latencies; an answer a user does not take is counted, not delivered
//! elsewhere.

use rnic_hw::host::CtxPortMux;
use rnic_sim::models::ctx_port_mux;
use rnic_tb::ctx_port_mux::{CtxMuxBench, USERS};

type Bench = CtxMuxBench<ctx_port_mux::Dut>;
type Mux = CtxPortMux<512, 64, 3>;

#[test]
fn random_requests_under_stalls() {
    for (seed, p_req, p_cache, max_delay) in [(1, 50, 70, 20), (2, 100, 100, 3), (3, 30, 40, 60), (4, 90, 20, 1)] {
        let mut b = Bench::new(ctx_port_mux::Dut::new(), seed);
        (b.p_req, b.p_cache, b.max_delay, b.p_err) = (p_req, p_cache, max_delay, 5);
        let mut want = [0u64; USERS];
        for _ in 0..1500 {
            let u = [0, 0, 1, 2][(b.rng.next() % 4) as usize];
            let r = b.random_req();
            want[u] += 1;
            b.push(u, r);
        }
        b.run(100_000);
        assert_eq!(b.answers, want, "seed {seed}: answers per user");
        assert_eq!(b.cache_order.len(), 1500, "seed {seed}: requests at the cache");
        assert!(b.errs > 0, "seed {seed}: some answers carried err");
        assert_eq!((b.refused, b.lost()), (0, 0), "seed {seed}: nothing lost");
    }
}

#[test]
fn round_robin_one_request_per_cycle() {
    let mut b = Bench::new(ctx_port_mux::Dut::new(), 5);
    for _ in 0..100 {
        for u in 0..USERS {
            let r = b.random_req();
            b.push(u, r);
        }
    }
    b.run(10_000);
    let order: Vec<usize> = b.cache_order.iter().map(|&(u, _)| u).collect();
    assert_eq!(order, (0..300).map(|k| k % USERS).collect::<Vec<_>>(), "round robin from user 0");
    let (first, last) = (b.cache_order[0].1, b.cache_order[299].1);
    assert_eq!(last - first, 299, "a request per cycle");
    for (t, c) in b.taken_at.iter().zip(&b.cache_order) {
        assert_eq!(c.1 - t.1, Mux::REQ_LATENCY, "request latency");
    }
    assert_eq!(b.answer_out.len(), 300);
    for (o, i) in b.answer_out.iter().zip(&b.answer_in) {
        assert_eq!(i - o, Mux::RESP_LATENCY, "answer latency");
    }
}

#[test]
fn an_answer_not_taken_is_counted() {
    let mut b = Bench::new(ctx_port_mux::Dut::new(), 6);
    // user 2 breaks the rule: it takes answers 60 % of the time
    b.p_take[2] = 60;
    b.max_delay = 10;
    for _ in 0..600 {
        let u = (b.rng.next() % USERS as u64) as usize;
        let r = b.random_req();
        b.push(u, r);
    }
    b.run(50_000);
    assert!(b.refused > 20, "{} refused", b.refused);
    assert_eq!(b.lost(), b.refused, "the mux counts every answer not taken");
    assert_eq!(b.answers.iter().sum::<u64>() + b.refused, 600);
}
