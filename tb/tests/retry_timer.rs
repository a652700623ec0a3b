//! The retry timers (`RetryTimer`, catalog `retry_timer`: 2^14 QPs, a wheel
//! of 1024 slots) against the reference of `rnic_tb::retry_timer`: random
//! arms, re-arms and disarms over 3 to 16K QPs spread over the QPN range
//! with `m_expire` stalled, back-to-back commands on one QPN, long codes
//! that hop round the wheel, a burst of 16K QPs expiring in one slot (the
//! walk rate), and the latency.

use rnic_contract::codes::TimerKind::{self, AckTimeout, Rnr};
use rnic_hw::transport::{TIMER_DECIDE_LATENCY, TIMER_FIRE_LATENCY};
use rnic_sim::models::retry_timer;
use rnic_tb::retry_timer::{Cmd, TimerBench};

/// QPs of the catalog instance.
const QPS: u32 = 1 << 14;
/// Slots of its wheel.
const TURN: u64 = 1 << 10;

fn bench(seed: u64, tick: u64) -> TimerBench<retry_timer::Dut> {
    TimerBench::new(retry_timer::Dut::new(), seed, tick, TURN)
}

/// The stated bound on lateness (docs/transport_blocks.md): the decision
/// latency, one cycle per node walked before it (at most two per QP) and
/// per bubble (two adjacent nodes of one QP), and four cycles per slot
/// start; twice that for `nodes` nodes, plus four ticks for the walk to
/// catch up.
fn walk_bound(nodes: u64, tick: u64) -> u64 {
    assert!(tick >= 8);
    2 * (TIMER_DECIDE_LATENCY + nodes) + 4 * tick
}

/// Random commands over `span` QPs, offered in `cmd_pct` % of cycles (so
/// that a QP's commands come about as often as its timers run out): each QP
/// has its own ACK code and RNR code (`loose`: any code at each arming),
/// arms of either kind, re-arms, disarms and ACK code 0; `m_expire` ready
/// `expire_pct` % of cycles.
fn random_run(seed: u64, span: u32, cmds: usize, loose: bool, expire_pct: u64, cmd_pct: u64) {
    let tick = 16;
    let mut b = bench(seed, tick);
    b.expire_pct = expire_pct;
    b.loose = loose;
    b.slack = walk_bound(2 * span as u64, tick);
    let stride = QPS / span;
    let qpn = |i: u32| i * stride + (seed as u32 % stride);
    let ack_code = |i: u32| 1 + (i * 7 + seed as u32) % 6; // 2..64 ticks
    let rnr_code = |i: u32| 1 + (i * 5 + seed as u32) % 4; // 10..40 us
    let mut left = cmds;
    while left > 0 {
        if b.cmds.len() < 4 && b.rng.chance(cmd_pct) {
            let i = (b.rng.next() % span as u64) as u32;
            let r = b.rng.next() % 100;
            let (ak, rk) = if loose {
                (1 + (b.rng.next() % 7) as u32, 1 + (b.rng.next() % 9) as u32)
            } else {
                (ack_code(i), rnr_code(i))
            };
            b.cmds.push_back(match r {
                0..=54 => Cmd::Arm(qpn(i), AckTimeout, ak as u8),
                55..=74 => Cmd::Arm(qpn(i), Rnr, rk as u8),
                75..=94 => Cmd::Disarm(qpn(i)),
                _ => Cmd::Arm(qpn(i), AckTimeout, 0),
            });
            left -= 1;
        }
        b.step();
    }
    b.drain(1 << 20);
    let (late, refused) = b.max_late;
    eprintln!(
        "seed {seed}: {cmds} commands over {span} QPs: {} expiries, latest {late} cycles after its tick started ({refused} refused cycles), bound {}",
        b.decided.len(),
        b.slack
    );
    assert!(b.decided.len() as u64 >= cmds as u64 / 10, "too few expiries: {}", b.decided.len());
    assert_eq!(b.delivered, b.decided.len() as u64);
}

#[test]
fn random_commands_match_the_reference() {
    random_run(1, 3, 1_000, false, 60, 2);
    random_run(2, 64, 6_000, false, 60, 20);
    random_run(3, 1024, 10_000, false, 80, 50);
    random_run(4, QPS, 10_000, false, 80, 50);
}

/// Any code at each arming: an arming may land before both of its QP's
/// nodes (three lengths in a row); it then fires within one more turn.
#[test]
fn random_codes_fire_within_a_turn() {
    random_run(5, 16, 3_000, true, 70, 5);
    random_run(6, 512, 6_000, true, 100, 50);
}

/// Commands on one QPN every cycle (arm, re-arm shorter and longer, other
/// kind, disarm, ACK code 0), and disarm + arm in the same cycle.
#[test]
fn back_to_back_commands_on_one_qpn() {
    let mut b = bench(7, 8);
    b.slack = walk_bound(8, 8);
    let q = 0x2A5A;
    let seq = [
        Cmd::Arm(q, AckTimeout, 3),
        Cmd::Arm(q, AckTimeout, 2),
        Cmd::Arm(q, Rnr, 1),
        Cmd::Arm(q, AckTimeout, 4),
        Cmd::Disarm(q),
        Cmd::Arm(q, Rnr, 2),
        Cmd::Arm(q, AckTimeout, 0),
        Cmd::Arm(q, AckTimeout, 1),
    ];
    for round in 0..200u64 {
        let n = 1 + round as usize % seq.len();
        b.cmds.extend(seq[..n].iter().copied());
        // a second QP interleaved
        if round % 3 == 0 {
            b.cmds.push_back(Cmd::Arm(q ^ 1, Rnr, 1));
        }
        let wait = b.rng.next() % 40;
        b.run(wait);
    }
    b.drain(1 << 16);
    // both ports in one cycle: the disarm acts first, the arm stays
    b.pair = true;
    for k in 0..100u32 {
        b.cmds.push_back(Cmd::Disarm(q));
        b.cmds.push_back(Cmd::Arm(q, if k % 2 == 0 { Rnr } else { AckTimeout }, 1 + (k % 3) as u8));
        let wait = b.rng.next() % 30;
        b.run(wait);
    }
    let before = b.decided.len();
    b.drain(1 << 16);
    eprintln!("{} commands, {} expiries", b.taken, b.decided.len());
    assert!(b.decided.len() > before, "the last arm of a pair fires");
    assert!(b.decided.len() > 50);
}

/// The requester's RNR retry: a send arms the ACK timeout, an RNR NAK the
/// RNR wait, which fires; the resend arms the ACK timeout again and a second
/// RNR NAK the RNR wait again, all within the first ACK timeout. The second
/// RNR wait fires on time (the stale node of the first ACK arming covers
/// the resend's, so the other node is free for the short wait).
#[test]
fn rnr_retry_within_an_ack_timeout() {
    let tick = 8;
    let mut b = bench(11, tick);
    b.slack = walk_bound(4, tick);
    for round in 0..20u32 {
        let q = 0x155 + round * 97;
        b.cmds.push_back(Cmd::Arm(q, AckTimeout, 6));
        b.run(2 * tick);
        let before = b.decided.len();
        b.cmds.push_back(Cmd::Arm(q, Rnr, 1));
        while b.decided.len() == before {
            b.step();
        }
        b.cmds.push_back(Cmd::Arm(q, AckTimeout, 6));
        b.run(2 * tick + round as u64);
        b.cmds.push_back(Cmd::Arm(q, Rnr, 1 + (round % 3) as u8));
        while b.decided.len() == before + 1 {
            b.step();
        }
        assert_eq!(b.decided.last().unwrap().1, q);
        b.cmds.push_back(Cmd::Disarm(q));
    }
    b.drain(1 << 16);
    assert_eq!(b.decided.len(), 40);
}

/// Long ACK timeouts (2048..16384 ticks: 2 to 16 turns of the wheel) hop
/// round the wheel and fire on time; re-arms with the same code while they
/// hop (a running ACK timer restarted by each ACK) move them later.
#[test]
fn long_codes_hop_round_the_wheel() {
    let tick = 8;
    let mut b = bench(8, tick);
    b.slack = walk_bound(64, tick);
    for i in 0..24u32 {
        b.cmds.push_back(Cmd::Arm(i * 683, AckTimeout, 11 + (i % 4) as u8));
    }
    // after one hop (a turn is 1024 ticks), before the first expiry (2048)
    b.run(1500 * tick);
    for i in (0..24u32).step_by(3) {
        b.cmds.push_back(Cmd::Arm(i * 683, AckTimeout, 11 + (i % 4) as u8));
    }
    b.drain(40_000 * tick);
    assert_eq!(b.decided.len(), 24);
    let (late, _) = b.max_late;
    eprintln!("24 long timers: latest {late} cycles after its tick started");
}

/// 16K QPs armed in one tick with one code all expire in one slot: the
/// walk decides one per cycle, the last one 16K - 1 cycles after the first.
#[test]
fn burst_of_16k_in_one_slot() {
    let tick = 1 << 16;
    let mut b = bench(9, tick);
    b.slack = TIMER_DECIDE_LATENCY + QPS as u64;
    for q in 0..QPS {
        b.cmds.push_back(Cmd::Arm(q.reverse_bits() >> 18, AckTimeout, 1));
    }
    b.drain(8 * tick);
    assert_eq!(b.decided.len(), QPS as usize);
    let first = b.decided[0].0;
    let last = b.decided.last().unwrap().0;
    assert_eq!(first - b.t0, 3 * tick + TIMER_DECIDE_LATENCY, "deadline tick 3, then the decision latency");
    assert!(b.decided.windows(2).all(|w| w[1].0 == w[0].0 + 1), "one expiry per cycle");
    assert_eq!(last - first, QPS as u64 - 1);
    eprintln!(
        "16K QPs in one slot: expiries from {} to {} cycles after the tick started",
        first - b.t0 - 3 * tick,
        last - b.t0 - 3 * tick
    );
}

/// One arming alone: decided TIMER_DECIDE_LATENCY cycles after its
/// deadline tick starts, offered TIMER_FIRE_LATENCY cycles after it; a
/// command is taken every cycle.
#[test]
fn latency_and_command_rate() {
    let tick = 64;
    let mut b = bench(10, tick);
    b.slack = TIMER_DECIDE_LATENCY;
    for (kind, code, ticks) in [(AckTimeout, 1u8, 2u64), (Rnr, 1, 3), (AckTimeout, 5, 32), (Rnr, 12, 157)] {
        let t = b.now();
        b.cmds.push_back(Cmd::Arm(77, kind, code));
        b.step();
        assert_eq!(b.taken as usize, b.decided.len() + 1);
        let due = b.t0 + ((t - b.t0) / tick + ticks + 1) * tick;
        while b.decided.len() < b.taken as usize {
            b.step();
        }
        assert_eq!(b.decided.last().unwrap().0, due + TIMER_DECIDE_LATENCY, "{kind:?} {code}");
        // offered on m_expire
        while b.delivered < b.decided.len() as u64 {
            b.step();
        }
        let offered = *b.delivered_at.last().unwrap();
        assert_eq!(offered - due, TIMER_FIRE_LATENCY, "tick start to m_expire");
    }
    // one command per cycle, sustained: the walk's slot starts (one per
    // tick) take a cycle now and then; their expiries share slots
    b.slack = walk_bound(2000, tick);
    let t = b.now();
    let before = b.taken;
    for q in 0..2000u32 {
        b.cmds.push_back(if q % 3 == 0 { Cmd::Disarm(q * 7) } else { Cmd::Arm(q * 7, kind_of(q), 9) });
    }
    while !b.cmds.is_empty() {
        b.step();
    }
    let (cycles, taken) = (b.now() - t, b.taken - before);
    eprintln!("{taken} commands in {cycles} cycles");
    assert!(cycles <= taken + 2 * (cycles / tick + 1), "about one command per cycle");
    b.drain(1 << 18);
}

fn kind_of(q: u32) -> TimerKind {
    if q.is_multiple_of(2) {
        AckTimeout
    } else {
        Rnr
    }
}
