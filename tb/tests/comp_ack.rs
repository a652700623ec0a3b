//! The completer's ACK path (`CompAck`, catalog `comp_ack`) against the
//! protocol model (`rnic_proto::rc::Requester::on_response`): random WQE
//! lists and random responder behaviour (coalesced ACKs, duplicates,
//! ghosts, RNR NAKs, PSN sequence NAKs, fatal NAKs of every code, reserved
//! syndromes, READ responses and atomic ACKs: in order, stale, out of
//! order, on the wrong WQE, with a wrong length or AETH) for a few QPs, under random
//! stalls on every port; every CQE, record, action and `qps` write checked
//! (`rnic_tb::comp_ack`), and every read-ahead hint on `m_hint` against
//! the POPs; the latency of every walk and the packet rate,
//! exactly.

use rnic_hw::consts::*;
use rnic_hw::transport::{COMP_CHECK_CYCLES, COMP_HEAD_CYCLES, COMP_LATENCY_NO_WALK, COMP_WQE_CYCLES};
use rnic_proto::aeth::{AckCredit, AethKind, NakCode};
use rnic_proto::opcode::Opcode;
use rnic_proto::RnrTimer;
use rnic_sim::models::comp_ack;
use rnic_tb::comp_ack::{Case, CompBench, Script};

/// Cycles the bench takes to answer a placement request (`comp_read`'s part).
const PLACE_DELAY: u64 = 2;

fn bench(seed: u64) -> CompBench<comp_ack::Dut> {
    let mut b = CompBench::new(comp_ack::Dut::new(), seed);
    b.place_delay = PLACE_DELAY;
    b
}

#[test]
fn constants_match_the_model() {
    assert_eq!(AethKind::Ack(AckCredit::UNLIMITED).syndrome() as u64, AETH_ACK);
    assert_eq!(AethKind::RnrNak(RnrTimer::new(0).unwrap()).syndrome() as u64, AETH_RNR);
    assert_eq!(AethKind::Nak(NakCode::PsnSequenceError).syndrome() as u64, AETH_NAK_SEQ);
    assert_eq!(Opcode::RcAck.value() as u64, BTH_RC_ACKNOWLEDGE);
    assert_eq!(Opcode::RcReadResponseFirst.value() as u64, BTH_RC_READ_RESP_FIRST);
    assert_eq!(Opcode::RcAtomicAck.value() as u64, BTH_RC_ATOMIC_ACK);
}

/// Random responses for 1 to 6 QPs under stalls on every port: every CQE,
/// record and state write equals the model's, and every verdict and action occurs.
/// A QP's completer in error: records after its error flush the entries
/// pushed behind the flush (`Script::error_case`).
#[test]
fn random_responses_match_the_model() {
    let mut verdicts = [0usize; 8];
    let mut actions = [0usize; 4];
    let (mut implied, mut cqes, mut stale, mut placed, mut bad_resp) = (0, 0, 0, 0, 0);
    // timer records: resent, retries spent (RETRY_EXC_ERR), nothing outstanding
    let mut timers = [0usize; 3];
    // RNR NAKs with the RNR retries spent (RNR_RETRY_EXC_ERR), RNR timers' records
    let (mut rnr_exc, mut rnr_timers) = (0usize, 0usize);
    let mut hints = 0;
    // records of QPs in error, and the entries pushed behind their flush that they flushed
    let (mut in_error, mut late) = (0usize, 0usize);
    // ... of them, those whose `qps` shows only the responder in error
    let mut resp_err = 0usize;
    for (seed, qps, p_offer, p_cmd, p_answer, p_cqe, p_take) in [
        (1, 1, 100, 100, 100, 100, 100),
        (2, 3, 70, 60, 70, 50, 60),
        (3, 6, 100, 90, 40, 80, 90),
        (4, 2, 40, 100, 100, 30, 100),
    ] {
        let mut s = Script::new(seed, qps);
        s.generate(1500);
        for c in &s.cases {
            verdicts[c.expect.verdict as usize] += 1;
            actions[c.expect.action as usize] += 1;
            implied += c.expect.implied as usize;
            stale += c.expect.stale as usize;
            placed += c.expect.place.is_some() as usize;
            bad_resp += (c.expect.verdict == COMP_RD_RESP && c.expect.action == CACT_ERROR) as usize;
            rnr_exc += (c.expect.action == CACT_ERROR && c.expect.status == WCS_RNR_RETRY_EXC_ERR as u8) as usize;
            rnr_timers += c.rnr_timer as usize;
            if c.quiet {
                in_error += 1;
                resp_err += c.resp_err as usize;
                late += c.pushes.iter().filter(|p| p.0 == c.qpn).count();
            }
            if c.timer {
                match c.expect.action {
                    CACT_RESEND => timers[0] += 1,
                    CACT_ERROR => timers[1] += 1,
                    _ => timers[2] += 1,
                }
            }
        }
        cqes += s.cqes.len();
        let mut b = bench(seed);
        (b.p_offer, b.p_cmd, b.p_answer, b.p_cqe, b.p_take) = (p_offer, p_cmd, p_answer, p_cqe, p_take);
        (b.p_place, b.place_delay) = (p_answer, 1 + seed * 3);
        let atomic = |c: &Case| c.opcode == BTH_RC_ATOMIC_ACK as u8;
        // (an atomic ACK's original value is placed too: 8 bytes)
        let data = s.cases.iter().filter(|c| c.expect.place.is_some() && (c.plen > 0 || atomic(c))).count();
        b.push(s);
        b.run(400_000);
        // every placed READ response with data asked for its placement, once
        assert_eq!(b.place_reqs.len(), data, "seed {seed}: placement requests");
        hints += b.hints;
    }
    eprintln!("{hints} read-ahead hints; {in_error} records in error flushed {late} entries pushed behind the flush");
    assert!(in_error >= 20 && late >= 20, "records in error: {in_error}, entries they flushed: {late}");
    eprintln!("{resp_err} of them in error by the responder's IN_PROGRESS ERROR alone (COMP_ERROR clear)");
    assert!(resp_err >= 10, "records in error by the responder alone: {resp_err}");
    // read-ahead hints: each checked against the POPs by the bench
    assert!(hints >= 20, "{hints} read-ahead hints");
    for v in COMP_DROP..=COMP_RD_RESP {
        let min = if v == COMP_DROP { 0 } else { 20 };
        assert!(verdicts[v as usize] >= min, "verdict {v} seen {} times: {verdicts:?}", verdicts[v as usize]);
    }
    for a in CACT_NONE..=CACT_ERROR {
        assert!(actions[a as usize] >= 20, "action {a} seen {} times: {actions:?}", actions[a as usize]);
    }
    assert!(implied >= 20 && cqes >= 500, "implied NAKs {implied}, CQEs {cqes}");
    eprintln!("timer records: {timers:?} (resent, RETRY_EXC_ERR, nothing outstanding or in error)");
    assert!(timers[0] >= 50 && timers[1] >= 5 && timers[2] >= 20, "timer records {timers:?}");
    eprintln!("RNR: {rnr_exc} RNR_RETRY_EXC_ERR, {rnr_timers} RNR timer records");
    assert!(rnr_exc >= 5 && rnr_timers >= 100, "RNR: {rnr_exc} spent, {rnr_timers} timer records");
    assert!(
        stale >= 5 && placed >= 40 && bad_resp >= 20,
        "READ responses: {stale} stale, {placed} placed, {bad_resp} bad"
    );
}

/// The cycles from a packet taken to its record, nothing stalled: no walk,
/// or the first HEAD plus a POP and HEAD per completed WQE (a walk ending
/// at a WQE's last PSN stops after its POP). A READ response or atomic
/// ACK walks through PSN - 1 and HEADs its WQE (`COMP_WQE_CYCLES` per
/// WQE completed before it), then its checks (`COMP_CHECK_CYCLES`), and
/// a POP (1 cycle) when it completes its WQE; an implied NAK stops at the
/// HEAD of the READ/atomic reached.
fn latency(c: &Case) -> Option<u64> {
    let e = &c.expect;
    let k = e.popped as u64;
    if c.quiet {
        // a record in error: the flush of the n entries pushed behind the
        // QP's flush, a POP each and the last POP's empty answer
        let n = c.pushes.iter().filter(|p| p.0 == c.qpn).count() as u64;
        return Some(COMP_LATENCY_NO_WALK + (n + 1) * COMP_HEAD_CYCLES);
    }
    if e.verdict == COMP_RD_RESP {
        if e.action == CACT_ERROR {
            return None;
        }
        let last = [BTH_RC_READ_RESP_LAST, BTH_RC_READ_RESP_ONLY, BTH_RC_ATOMIC_ACK].contains(&c.opcode.into());
        let pop = e.place.is_some() && last;
        let k = k - pop as u64;
        let check = if e.implied { 0 } else { COMP_CHECK_CYCLES + pop as u64 };
        // data to place (an atomic's original value among them): the request
        // (a cycle after the checks) and the bench's verdict
        let data = e.place.is_some() && (c.plen > 0 || c.opcode == BTH_RC_ATOMIC_ACK as u8);
        let place = if data { 1 + PLACE_DELAY } else { 0 };
        return Some(COMP_LATENCY_NO_WALK + COMP_HEAD_CYCLES + k * COMP_WQE_CYCLES + check + place);
    }
    if c.timer && e.action == CACT_ERROR {
        // a timer's RETRY_EXC_ERR: the flush, as a fatal NAK's (not timed here)
        return None;
    }
    let walks = match e.verdict {
        COMP_ACK => true,
        COMP_RNR | COMP_NAK_SEQ => c.psn != e.una_before,
        COMP_NAK_FATAL => return None,
        _ => false,
    };
    Some(if !walks {
        COMP_LATENCY_NO_WALK
    } else if k > 0 && !e.implied && e.state.una == e.state.head_first {
        COMP_LATENCY_NO_WALK + COMP_HEAD_CYCLES + (k - 1) * COMP_WQE_CYCLES + 1
    } else {
        COMP_LATENCY_NO_WALK + COMP_HEAD_CYCLES + k * COMP_WQE_CYCLES
    })
}

/// Every packet, alone and back to back: the record `latency` cycles after
/// the packet was taken, and the next packet taken one cycle after the record.
#[test]
fn latency_and_rate_are_exact() {
    let mut s = Script::new(9, 2);
    s.generate(1200);
    let cases = s.cases.clone();
    let mut b = bench(9);
    b.push(s);
    b.run(100_000);
    let mut walks = [0usize; 4];
    for (i, c) in cases.iter().enumerate() {
        let (t, r) = (b.taken[i], b.records[i].cycle);
        if let Some(l) = latency(c) {
            assert_eq!(r - t, l, "packet {i} ({:?}): taken at {t}, record at {r}", c.expect);
            walks[(c.expect.popped).min(3)] += 1;
        }
        if i + 1 < cases.len() {
            assert_eq!(b.taken[i + 1], r + 1, "packet {} taken the cycle after record {i}", i + 1);
        }
    }
    assert!(
        walks[0] >= 100 && walks[1] >= 20 && walks[2] >= 5 && walks[3] >= 5,
        "walks by WQEs completed (0, 1, 2, 3+): {walks:?}"
    );
}
