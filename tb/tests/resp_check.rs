//! The responder's per-packet decision (`RespCheck`, catalog `resp_check`)
//! against the protocol model (`rnic_proto::rc::Responder`): random packet
//! sequences for one to a few QPs (in order, duplicates, gaps, wrong opcode
//! sequences, bad lengths, no RECV posted, every PMTU, PSNs across the
//! wrap) under random stalls on both ports, every record checked field by
//! field (`rnic_tb::resp_check`), RQ flush records of QPs in error among
//! them; the latency and the rate, exactly.

use rnic_hw::consts::*;
use rnic_hw::transport::RespCheck;
use rnic_proto::aeth::{AckCredit, AethKind, NakCode};
use rnic_proto::opcode::{Opcode, Pmtu};
use rnic_proto::RnrTimer;
use rnic_sim::models::resp_check;
use rnic_tb::resp_check::{RespBench, Script};

fn bench(seed: u64) -> RespBench<resp_check::Dut> {
    RespBench::new(resp_check::Dut::new(), seed)
}

#[test]
fn constants_match_the_model() {
    assert_eq!(AethKind::Ack(AckCredit::UNLIMITED).syndrome() as u64, AETH_ACK);
    assert_eq!(AethKind::RnrNak(RnrTimer::new(0).unwrap()).syndrome() as u64, AETH_RNR);
    assert_eq!(AethKind::Nak(NakCode::PsnSequenceError).syndrome() as u64, AETH_NAK_SEQ);
    assert_eq!(AethKind::Nak(NakCode::InvalidRequest).syndrome() as u64, AETH_NAK_INV);
    assert_eq!(AethKind::Nak(NakCode::RemoteAccessError).syndrome() as u64, AETH_NAK_ACCESS);
    assert_eq!(AethKind::Nak(NakCode::RemoteOperationalError).syndrome() as u64, AETH_NAK_OPERATIONAL);
    use Opcode::*;
    for (op, c) in [
        (RcSendFirst, BTH_RC_SEND_FIRST),
        (RcSendMiddle, BTH_RC_SEND_MIDDLE),
        (RcSendLast, BTH_RC_SEND_LAST),
        (RcSendLastImm, BTH_RC_SEND_LAST_IMM),
        (RcSendOnly, BTH_RC_SEND_ONLY),
        (RcSendOnlyImm, BTH_RC_SEND_ONLY_IMM),
        (RcWriteFirst, BTH_RC_WRITE_FIRST),
        (RcWriteMiddle, BTH_RC_WRITE_MIDDLE),
        (RcWriteLast, BTH_RC_WRITE_LAST),
        (RcWriteLastImm, BTH_RC_WRITE_LAST_IMM),
        (RcWriteOnly, BTH_RC_WRITE_ONLY),
        (RcWriteOnlyImm, BTH_RC_WRITE_ONLY_IMM),
        (RcReadRequest, BTH_RC_READ_REQUEST),
        (RcCompareSwap, BTH_RC_COMPARE_SWAP),
        (RcFetchAdd, BTH_RC_FETCH_ADD),
        (RcSendLastInv, BTH_RC_SEND_LAST_INV),
        (RcSendOnlyInv, BTH_RC_SEND_ONLY_INV),
    ] {
        assert_eq!(op.value() as u64, c, "{op:?}");
    }
}

/// Random sequences over every PMTU, few and several QPs, under stalls:
/// every record equals the model's decision, and every verdict occurs.
/// The last three runs make the caller's write one cycle slower (seen by a
/// packet offered two cycles after the take): the third forwarding record
/// covers that. RQ flush records among the packets (each QP flushed once
/// in error, sometimes twice, then never used again): both outcomes
/// (RESP_EXEC_FLUSH; nothing to flush, RESP_FLUSH_NONE), for QPs not started,
/// with a RECV being filled, right behind a packet of the same QP. The
/// replay window (REPLAY_HEAD, REPLAY_COUNT) names the model's READ and
/// atomic resources after every record, recycled ones included.
#[test]
fn random_sequences_match_the_model() {
    let mut seen = [0usize; 16];
    let (mut n, mut denied) = (0, 0);
    let (mut f_exec, mut f_none, mut f_fresh, mut f_busy, mut f_behind, mut f_redundant) = (0, 0, 0, 0, 0, 0);
    let mut recycled = 0;
    for (seed, qps, p_same, p_offer, p_take, delay) in [
        (1, 1, 100, 100, 100, 0),
        (2, 3, 60, 70, 60, 0),
        (3, 5, 30, 100, 90, 0),
        (4, 2, 80, 40, 100, 0),
        (5, 8, 20, 90, 30, 0),
        (6, 1, 100, 100, 100, 1),
        (7, 2, 70, 90, 80, 1),
        (8, 1, 100, 100, 60, 1),
    ] {
        let mut s = Script::new(seed, qps, &Pmtu::ALL);
        s.flushes = true;
        s.generate(3000, p_same);
        let mut b = bench(seed);
        (b.p_offer, b.p_take, b.write_delay) = (p_offer, p_take, delay);
        n += s.cases.iter().filter(|c| !c.pkt.flush).count();
        let flushes = s.cases.len() - s.cases.iter().filter(|c| !c.pkt.flush).count();
        assert_eq!(flushes, s.flush_exec + s.flush_none);
        b.push(s.cases);
        b.run(100_000);
        assert_eq!(b.records.len(), 3000 + flushes, "every case decided");
        denied += s.denied;
        f_exec += s.flush_exec;
        f_none += s.flush_none;
        f_fresh += s.flush_fresh;
        f_busy += s.flush_busy;
        f_behind += s.flush_behind;
        f_redundant += b.behind_first;
        recycled += s.recycled;
        for (k, v) in s.seen.iter().enumerate() {
            seen[k] += v;
        }
    }
    assert_eq!(n, 24_000);
    assert!(denied >= 20, "operations the QP's access flags deny: {denied}");
    for v in [
        RESP_DROP,
        RESP_EXEC_SEND,
        RESP_EXEC_WRITE,
        RESP_EXEC_READ,
        RESP_EXEC_ATOMIC,
        RESP_DUP_SEND,
        RESP_DUP_WRITE,
        RESP_DUP_READ,
        RESP_DUP_ATOMIC,
        RESP_NAK_SEQ,
        RESP_NAK_INV,
        RESP_RNR,
        RESP_EXEC_FLUSH,
        RESP_FLUSH_NONE,
    ] {
        assert!(seen[v as usize] >= 20, "verdict {v} seen {} times: {seen:?}", seen[v as usize]);
    }
    let f = format!("flushes: {f_exec} executed, {f_none} found nothing, {f_fresh} not started, {f_busy} with a RECV being filled, {f_behind} right behind a packet of the QP, {f_redundant} finding nothing right behind the QP's first record (no write)");
    eprintln!("{f}");
    assert_eq!((seen[RESP_EXEC_FLUSH as usize], seen[RESP_FLUSH_NONE as usize]), (f_exec, f_none));
    assert!(f_exec >= 1000 && f_none >= 800 && f_fresh >= 100 && f_busy >= 100 && f_behind >= 800, "{f}");
    assert!(f_redundant >= 50, "{f}");
    // the replay window checked on every record (`check_replay`), full ones included
    assert!(recycled >= 200, "READs and atomics recycling the oldest replay slot: {recycled}");
}

/// A packet into an idle block: its record is on `m_dec` LATENCY cycles
/// after it was taken.
#[test]
fn latency_is_constant() {
    let mut s = Script::new(7, 2, &[Pmtu::Mtu1024]);
    s.generate(40, 50);
    let mut b = bench(7);
    for c in s.cases {
        b.push([c]);
        b.run(100);
        b.sim.ticks(3);
        let (t, r) = (*b.taken.last().unwrap(), b.records.last().unwrap().cycle);
        assert_eq!(r - t, RespCheck::LATENCY, "taken at {t}, record at {r}");
    }
}

/// One packet per cycle, sustained, for one QP (back to back, forwarded)
/// and for several, RQ flush records among them.
#[test]
fn one_packet_per_cycle() {
    for (qps, p_same) in [(1, 100), (4, 0), (3, 50)] {
        let mut s = Script::new(11 + qps, qps as usize, &Pmtu::ALL);
        s.flushes = true;
        s.generate(2000, p_same);
        let mut b = bench(11);
        b.push(s.cases);
        b.run(10_000);
        let t = &b.taken;
        assert!(t.windows(2).all(|w| w[1] == w[0] + 1), "a packet taken every cycle ({qps} QPs)");
        let r: Vec<u64> = b.records.iter().map(|r| r.cycle).collect();
        assert!(r.windows(2).all(|w| w[1] == w[0] + 1), "a record every cycle ({qps} QPs)");
        assert_eq!(r[0] - t[0], RespCheck::LATENCY);
    }
}
