//! The inflight WQE table (`Inflight`, catalog `inflight`: 2^14 QPs, 4096
//! entries): random command streams against the reference of
//! `rnic_tb::inflight` (every response field exact, `free_count` every
//! cycle), the pool exhausted, lists walked by READ, back-to-back commands
//! on one QP, and one command per cycle at a constant latency.

use rnic_hw::transport::{INFLIGHT_CREDITS, INFLIGHT_LATENCY, INFLIGHT_LOG_ENTRIES, INFLIGHT_QPN_BITS};
use rnic_sim::models::inflight;
use rnic_tb::inflight::{Cmd, InflightBench};

const QPS: u32 = 1 << INFLIGHT_QPN_BITS;
const ENTRIES: usize = 1 << INFLIGHT_LOG_ENTRIES;

fn bench(seed: u64) -> InflightBench<inflight::Dut> {
    InflightBench::new(inflight::Dut::new(), seed, ENTRIES)
}

/// Queue a random batch of commands from the reference's current state:
/// PUSH/POP/HEAD on a QP of `span` (spread over the QPN range), bursts on
/// one QP, a walk of a list by READ, WRITE updates, READs anywhere.
fn random_batch(b: &mut InflightBench<inflight::Dut>, span: u32, push_pct: u64) {
    let stride = QPS / span;
    let qp = |r: u64| (r as u32 % span) * stride + (r >> 32) as u32 % stride;
    let r = b.rng.next() % 100;
    let q = qp(b.rng.next());
    if r < 10 {
        // a burst on one QP: back-to-back PUSH, POP, HEAD
        for _ in 0..2 + b.rng.next() % 7 {
            let c = match b.rng.next() % 3 {
                0 => Cmd::Push { qpn: q, data: b.random_data() },
                1 => Cmd::Pop { qpn: q },
                _ => Cmd::Head { qpn: q },
            };
            b.cmds.push_back(c);
        }
    } else if r < 18 {
        // walk a list from its head: HEAD, then READ entry by entry
        let mut lists: Vec<u32> = b.reference.lists.iter().filter(|(_, l)| !l.is_empty()).map(|(&q, _)| q).collect();
        lists.sort();
        if let Some(&w) = lists.get(b.rng.next() as usize % lists.len().max(1)) {
            b.cmds.push_back(Cmd::Head { qpn: w });
            let entries: Vec<u32> = b.reference.lists[&w].iter().take(40).copied().collect();
            for e in entries {
                b.cmds.push_back(Cmd::Read { index: e });
                if b.rng.chance(20) {
                    let data = b.random_data();
                    b.cmds.push_back(Cmd::Write { index: e, data });
                }
            }
        }
    } else if r < 24 {
        let index = (b.rng.next() % ENTRIES as u64) as u32;
        if b.rng.chance(50) {
            b.cmds.push_back(Cmd::Read { index });
        } else {
            let data = b.random_data();
            b.cmds.push_back(Cmd::Write { index, data });
        }
    } else if (b.rng.next() % 100) < push_pct {
        let data = b.random_data();
        b.cmds.push_back(Cmd::Push { qpn: q, data });
    } else if b.rng.chance(80) {
        b.cmds.push_back(Cmd::Pop { qpn: q });
    } else {
        b.cmds.push_back(Cmd::Head { qpn: q });
    }
}

/// `commands` random commands over `span` QPs, push-heavy in the first
/// 60 % (the pool runs out) and pop-heavy in the rest, responses taken at `resp_pct` percent.
fn random_run(seed: u64, span: u32, commands: u64, resp_pct: u64) -> InflightBench<inflight::Dut> {
    let mut b = bench(seed);
    b.resp_pct = resp_pct;
    b.cmd_pct = 85;
    while b.taken < commands {
        if b.cmds.is_empty() {
            // the first 60 %: mostly plain PUSHes (about 0.65 entries a command)
            if b.taken < commands * 3 / 5 && b.rng.chance(70) {
                let data = b.random_data();
                b.cmds.push_back(Cmd::Push { qpn: (b.rng.next() as u32 % span) * (QPS / span), data });
            } else {
                let push_pct = if b.taken < commands * 3 / 5 { 85 } else { 30 };
                random_batch(&mut b, span, push_pct);
            }
        }
        b.step();
    }
    b.drain(10_000);
    eprintln!(
        "seed {seed}, {span} QPs: {} commands, {} full, {} empty, {} cycles a command waited",
        b.answered, b.fulls, b.empties, b.cmd_stalls
    );
    assert!(b.answered >= commands);
    b
}

#[test]
fn random_commands_match_the_reference() {
    // three QPs: long lists, the pool exhausted
    let b = random_run(1, 3, 16_000, 70);
    assert!(b.fulls > 100, "the pool never ran out: {} full responses", b.fulls);
    assert!(b.empties > 10);
    // 64 and 4096 QPs, 16K QPs (every QPN)
    let b = random_run(2, 64, 16_000, 50);
    assert!(b.fulls > 0);
    random_run(3, 4096, 10_000, 80);
    let b = random_run(4, QPS, 10_000, 90);
    assert!(b.empties > 100);
}

/// Every mix of two and three commands on one QP, back to back, from an
/// empty list and from lists of one and two entries: PUSH to an empty
/// list, POP of the last entry, PUSH and POP interleaved.
#[test]
fn back_to_back_on_one_qp() {
    let mut b = bench(5);
    let q = QPS - 3;
    let mut n = 0;
    for pre in 0..3 {
        for seq in 0..27u32 {
            for _ in 0..pre {
                let data = b.random_data();
                b.cmds.push_back(Cmd::Push { qpn: q, data });
            }
            for k in 0..3 {
                let c = match seq / 3u32.pow(k) % 3 {
                    0 => Cmd::Push { qpn: q, data: b.random_data() },
                    1 => Cmd::Pop { qpn: q },
                    _ => Cmd::Head { qpn: q },
                };
                b.cmds.push_back(c);
            }
            // a READ of each entry left, then empty the list
            let mut after = b.reference.clone();
            for c in &b.cmds {
                after.apply(c);
            }
            for e in after.lists.get(&q).map(|l| l.iter().copied().collect::<Vec<_>>()).unwrap_or_default() {
                b.cmds.push_back(Cmd::Read { index: e });
            }
            for _ in 0..6 {
                b.cmds.push_back(Cmd::Pop { qpn: q });
            }
            n += b.cmds.len();
            b.drain(1000);
        }
    }
    assert_eq!(b.answered as usize, n);
    assert_eq!(b.cmd_stalls, 0, "back-to-back commands were held");
}

/// PUSH until the pool is empty (full responses change nothing), then POP
/// and PUSH alternating on a full pool: a freed entry is taken by the very
/// next PUSH.
#[test]
fn pool_exhausted_and_reused() {
    let mut b = bench(6);
    for k in 0..ENTRIES as u32 + 40 {
        let data = b.random_data();
        b.cmds.push_back(Cmd::Push { qpn: k % 5 * 1000, data });
    }
    b.drain(20_000);
    assert_eq!((b.fulls, b.reference.free()), (40, 0));
    for k in 0..200u32 {
        b.cmds.push_back(Cmd::Pop { qpn: k % 5 * 1000 });
        let data = b.random_data();
        b.cmds.push_back(Cmd::Push { qpn: (k + 1) % 5 * 1000, data });
        if k % 7 == 0 {
            let data = b.random_data();
            b.cmds.push_back(Cmd::Push { qpn: 7, data });
        }
    }
    b.drain(20_000);
    assert!(b.fulls > 40 && b.reference.free() == 0);
    assert_eq!(b.cmd_stalls, 0);
}

/// One command per cycle, responses always taken: every command is taken
/// the cycle it is offered and every response comes `INFLIGHT_LATENCY`
/// cycles after its command; with `m_resp` stalled, `s_cmd` holds after
/// `INFLIGHT_CREDITS` commands.
#[test]
fn full_rate_constant_latency() {
    let mut b = bench(7);
    while b.taken < 5000 {
        if b.cmds.len() < 4 {
            random_batch(&mut b, 16, 60);
        }
        b.step();
    }
    b.drain(1000);
    assert_eq!(b.cmd_stalls, 0, "a command waited at full rate");
    assert!(b.latencies.iter().all(|&l| l == INFLIGHT_LATENCY), "latencies {:?}", {
        let mut l = b.latencies.clone();
        l.sort();
        l.dedup();
        l
    });
    let t0 = b.now();
    assert_eq!(b.latencies.len() as u64, b.answered);

    // responses never taken: exactly INFLIGHT_CREDITS commands are taken
    b.resp_pct = 0;
    for k in 0..100u32 {
        b.cmds.push_back(Cmd::Head { qpn: k });
    }
    b.run(100);
    let held = b.cmds.len();
    assert_eq!(100 - held as u64, INFLIGHT_CREDITS, "commands taken with m_resp stalled");
    b.resp_pct = 100;
    b.drain(1000);
    assert!(b.now() > t0);
}
