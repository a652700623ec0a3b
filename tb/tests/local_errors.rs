//! The requester's local errors between two simulated NICs (issue 11,
//! item 4; docs/core.md, "Order of the remaining work", item 6): a send
//! WQE whose payload translation fails on A is never sent (`ReqPayload`
//! drops its packets and notes it for the completer), and completes with
//! LOC_PROT_ERR once every WQE before it completed; the later ones are
//! flushed (WR_FLUSH_ERR), and nothing is resent.
//!
//! * A SEND whose second SGE carries a key no region has, behind two good
//!   WRITEs and before a third: B sees the third WRITE after a gap and NAKs
//!   it (PSN sequence error); but B's ACK of the second WRITE comes first,
//!   and its walk on A, completing the WRITEs, leaves the SEND at the head:
//!   it fails there, the last WRITE is flushed, and the NAK that follows
//!   finds the QP's completer in error. Nothing is resent.
//! * The same SEND alone: nothing answers, the ACK timeout's record fails
//!   it, one timeout counted and no resend.
//! * A SEND of more than 2^31 bytes (two SGEs of 2^30 + 1 bytes; the driver
//!   does not add them up): `ReqGen` refuses it before any translation, its
//!   record flushes the QP's list at once: alone, LOC_LEN_ERR within a few
//!   hundred cycles of the doorbell; behind a WRITE not yet acknowledged,
//!   the WRITE is flushed first (WR_FLUSH_ERR; B executed it, and its ACK
//!   finds A's completer in error).
//! * A SEND whose WQE says NUM_SGE 5, written past the driver (the ring
//!   slot patched after `post_send`, before the device reads it):
//!   LOC_QP_OP_ERR, nothing sent.
//! * WQEs posted once the QP failed, or right behind a refused one, are
//!   never sent: flush jobs complete them with WR_FLUSH_ERR, in order
//!   (issue 12, item 1; `req_fetch`'s **Flush**).

use rnic_contract::codes::{WcOpcode, WcStatus};
use rnic_contract::layouts::{qpc, send_wqe};
use rnic_contract::ring;
use rnic_driver::*;
use rnic_hw::transport::TIMER_TICK_CYCLES;
use rnic_tb::sim_net::{poll_n, try_poll_n, QpPair, RcTimers};

/// The ACK timeout code of these tests: 2^3 ticks.
const TIMEOUT: u8 = 3;
const PSN_A: u32 = 0x300;

fn pair(seed: u64) -> QpPair {
    QpPair::connect(seed, (PSN_A, 0xa00), RcTimers { timeout: TIMEOUT, ..RcTimers::default() })
}

/// Posts a signaled SEND of A's bytes [0, 200) and, as its second SGE, 300
/// bytes under an lkey whose key byte is wrong (the region's index, another
/// key): `MrXlate` refuses it.
fn post_bad_send(p: &mut QpPair, wr_id: u64) {
    let good = Sge::new(&p.mr_a, 0, 200).unwrap();
    let bad = Sge { lkey: p.mr_a.lkey() ^ 0x5a, ..Sge::new(&p.mr_a, 1000, 300).unwrap() };
    let sges = [good, bad];
    let wr = SendWr::new(wr_id, SendOp::Send, &sges).flags(SendFlags::SIGNALED);
    p.qp_a.post_send(&[wr]).unwrap();
}

/// A's device writes since the trace was started: their cycles.
fn a_write_cycles(p: &QpPair) -> Vec<u64> {
    let mut n = p.net.borrow_mut();
    n.nics[0].port.trace.take().unwrap().into_iter().filter(|x| x.write).map(|x| x.cycle).collect()
}

#[test]
fn a_send_with_a_bad_lkey_fails_after_the_writes_before_it_and_flushes_the_rest() {
    let mut p = pair(0x41);
    // a RECV on B that nothing may consume
    let rsge = [Sge::new(&p.mr_b, 4096, 1024).unwrap()];
    p.qp_b.post_recv(&[RecvWr { wr_id: 99, sg_list: &rsge }]).unwrap();
    let before_b = {
        let mut b = vec![0u8; 8192];
        p.buf_b.read(0, &mut b).unwrap();
        b
    };
    p.net.borrow_mut().nics[0].port.trace = Some(vec![]);
    p.write(1, 0, 0, 600);
    p.write(2, 600, 600, 600);
    post_bad_send(&mut p, 3);
    p.write(4, 2000, 2000, 500);
    let wc = poll_n(&p.cq_a, 4, 40_000, "four completions");
    let got: Vec<(u64, WcStatus, Option<WcOpcode>)> = wc.iter().map(|c| (c.wr_id, c.status, c.opcode)).collect();
    assert_eq!(
        got,
        [
            (1, WcStatus::Success, Some(WcOpcode::RdmaWrite)),
            (2, WcStatus::Success, Some(WcOpcode::RdmaWrite)),
            (3, WcStatus::LocProtErr, None),
            (4, WcStatus::WrFlushErr, None),
        ],
        "the WRITEs succeed, the SEND fails, the WRITE behind it is flushed"
    );
    // A's device writes up to here (the last: the flush's CQE)
    let writes = a_write_cycles(&p);
    // WQEs posted now are never sent: the QP's completer is in error, so
    // each is a flush job, completing with WR_FLUSH_ERR in order (issue 12)
    let t_post = p.net.borrow().now();
    p.write(5, 0, 0x1800, 100);
    p.write(6, 0, 0x1900, 100);
    post_long_send(&mut p, 7);
    let wc = poll_n(&p.cq_a, 3, 20_000, "three flushed");
    let took = p.net.borrow().now() - t_post;
    let got: Vec<(u64, WcStatus, u32)> = wc.iter().map(|c| (c.wr_id, c.status, c.byte_len)).collect();
    assert_eq!(
        got,
        [(5, WcStatus::WrFlushErr, 0), (6, WcStatus::WrFlushErr, 0), (7, WcStatus::WrFlushErr, 0)],
        "WQEs posted after the failure are flushed, in order (the over-long SEND too: flushed, not refused)"
    );
    eprintln!("three WQEs posted after the failure flushed in {took} cycles");
    // (the post and doorbell, then per WQE a grant, its read, the refused
    // entry and its record through rx_lookup; the poll loop included)
    assert!(took < 3_000, "the flush took {took} cycles");
    p.write(8, 0, 0x1a00, 100);
    let wc = poll_n(&p.cq_a, 1, 20_000, "one more flushed");
    assert_eq!((wc[0].wr_id, wc[0].status), (8, WcStatus::WrFlushErr), "a later post is flushed too");
    // nothing more comes: no resend, no second completion
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
    assert!(try_poll_n(&p.cq_b, 1, 100).is_empty(), "B's RECV is not consumed");
    p.check(0, 0, 1200);
    let mut after_b = vec![0u8; 8192];
    p.buf_b.read(0, &mut after_b).unwrap();
    assert!(after_b[1200..] == before_b[1200..], "B's memory past the two WRITEs untouched");
    // on the wire: A sent the two WRITEs and the last one, never the SEND and nothing twice
    let a: Vec<(String, u32)> = p.frames(0).into_iter().map(|f| (f.1, f.2)).collect();
    let w = |k: u32| ("RC_RDMA_WRITE_ONLY".to_string(), PSN_A + k);
    assert_eq!(a, [w(0), w(1), w(3)], "A: the SEND's PSN {:#x} never on the wire, nothing after", PSN_A + 2);
    let b = p.frames(1);
    let nak = b.iter().find(|f| f.3 == Some(0x60)).expect("B NAKs the gap");
    assert_eq!(nak.2, PSN_A + 2, "B's NAK names the SEND's PSN: {b:x?}");
    assert_eq!(b.iter().filter(|f| f.3 == Some(0x60)).count(), 1, "one NAK: {b:x?}");
    let (ca, cb) = (p.a.ctx.query_counters().unwrap(), p.b.ctx.query_counters().unwrap());
    // (B's ACK of the second WRITE fails the SEND; B's NAK, behind it,
    // finds the QP's completer in error and is dropped)
    assert_eq!(
        (ca.go_back_n, ca.retry_timeouts, ca.nak_psn_seq_received, ca.comp_error_drops),
        (0, 0, 0, 1),
        "A: nothing resent, the NAK dropped: {ca:?}"
    );
    assert_eq!((cb.naks[0], cb.silent_drops, cb.dup_requests), (1, 0, 0), "B: {cb:?}");
    // from B's first answer that acknowledges the second WRITE (the SEND
    // at A's head) to A's last device write (the flush's CQE)
    let first = b.iter().find(|f| f.2.wrapping_sub(PSN_A + 1) < 2).expect("B answers the second WRITE");
    let done = writes.last().unwrap() - first.0;
    eprintln!(
        "B's answer {} at cycle {}; the error and flush CQEs written {done} cycles later; A: {ca:?}",
        first.1, first.0
    );
    // (172 cycles in session 25: the walk, the second pass's flush, two CQE writes)
    assert!(done < 250, "the error CQEs {done} cycles after B's answer");
}

#[test]
fn a_bad_send_alone_fails_at_the_ack_timeout_without_a_resend() {
    let mut p = pair(0x42);
    let t0 = p.net.borrow().now();
    post_bad_send(&mut p, 2);
    let wc = poll_n(&p.cq_a, 1, 200_000, "the SEND's completion");
    assert_eq!((wc[0].wr_id, wc[0].status), (2, WcStatus::LocProtErr), "the SEND fails");
    assert!(p.frames(0).is_empty(), "A sent nothing");
    let ca = p.a.ctx.query_counters().unwrap();
    assert_eq!((ca.retry_timeouts, ca.go_back_n, ca.nak_psn_seq_received), (1, 0, 0), "A: one timeout: {ca:?}");
    // the failure waits for the ACK timeout: 8 ticks from the arming
    let now = p.net.borrow().now();
    let ticks = 1u64 << TIMEOUT;
    assert!(now - t0 > (ticks - 1) * TIMER_TICK_CYCLES, "failed after the timeout: {} cycles", now - t0);
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
}

/// Posts a signaled SEND of 2^31 + 2 bytes (two SGEs of 2^30 + 1 bytes over
/// A's region: never read, the length is refused first).
fn post_long_send(p: &mut QpPair, wr_id: u64) {
    let half = Sge { length: (1 << 30) + 1, ..Sge::new(&p.mr_a, 0, 8).unwrap() };
    let sges = [half, half];
    let wr = SendWr::new(wr_id, SendOp::Send, &sges).flags(SendFlags::SIGNALED);
    p.qp_a.post_send(&[wr]).unwrap();
}

#[test]
fn a_send_above_2_31_bytes_alone_completes_with_loc_len_err_at_once() {
    let mut p = pair(0x43);
    let t0 = p.net.borrow().now();
    post_long_send(&mut p, 7);
    let wc = poll_n(&p.cq_a, 1, 20_000, "the SEND's completion");
    let took = p.net.borrow().now() - t0;
    assert_eq!((wc[0].wr_id, wc[0].status, wc[0].opcode), (7, WcStatus::LocLenErr, None), "the SEND is refused");
    assert!(p.frames(0).is_empty(), "A sent nothing");
    let ca = p.a.ctx.query_counters().unwrap();
    assert_eq!(
        (ca.retry_timeouts, ca.go_back_n, ca.naks_fatal_received, ca.comp_error_drops),
        (0, 0, 0, 0),
        "A: no timeout, no resend: {ca:?}"
    );
    eprintln!("LOC_LEN_ERR polled {took} cycles after the post");
    // (640 in session 25, the poll loop's granularity included)
    assert!(took < 1_000, "the error completion {took} cycles after the post");
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
}

#[test]
fn a_send_above_2_31_bytes_behind_a_write_flushes_it_and_completes_with_loc_len_err() {
    let mut p = pair(0x44);
    p.write(1, 0, 0x100, 600);
    post_long_send(&mut p, 2);
    let wc = poll_n(&p.cq_a, 2, 20_000, "two completions");
    let got: Vec<(u64, WcStatus)> = wc.iter().map(|c| (c.wr_id, c.status)).collect();
    assert_eq!(
        got,
        [(1, WcStatus::WrFlushErr), (2, WcStatus::LocLenErr)],
        "the WRITE, outstanding when the SEND is refused, is flushed; the SEND fails"
    );
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
    let a: Vec<String> = p.frames(0).into_iter().map(|f| f.1).collect();
    assert_eq!(a, ["RC_RDMA_WRITE_ONLY"], "A sent the WRITE alone");
    p.check(0, 0x100, 600);
    let ca = p.a.ctx.query_counters().unwrap();
    assert_eq!((ca.comp_error_drops, ca.go_back_n), (1, 0), "A: B's ACK dropped in error: {ca:?}");
}

#[test]
fn a_wqe_with_five_sges_written_past_the_driver_completes_with_loc_qp_op_err() {
    let mut p = pair(0x45);
    let (prod, _) = p.qp_a.producer_indices();
    let log = qpc::SQ_LOG_SIZE.get(&p.qp_a.context_entry()).unwrap() as u32;
    p.send(5, 0, 100);
    // the clock has run only for the doorbell's register write: the device
    // has not read the WQE yet; its NUM_SGE becomes 5 in host memory
    let at = p.qp_a.ring_iovas().0 + (ring::slot(prod, log) * send_wqe::SIZE) as u64 + send_wqe::NUM_SGE.byte as u64;
    {
        let mut n = p.net.borrow_mut();
        let host = &mut n.nics[0].port.host;
        let phys = host.iommu.translate(at, 1, false).expect("the SQ ring is mapped")[0].0;
        host.memory.write(phys, &[5]);
    }
    let wc = poll_n(&p.cq_a, 1, 20_000, "the SEND's completion");
    assert_eq!((wc[0].wr_id, wc[0].status, wc[0].opcode), (5, WcStatus::LocQpOpErr, None), "the SEND is refused");
    assert!(p.frames(0).is_empty(), "A sent nothing");
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
}

/// A refused WQE with a second post right behind it (its doorbell pending
/// while the first is refused): the refusal is written back before its
/// record (`REQ_REFUSED`, the cursor past it), so the second grant flushes
/// the next WQE instead of refusing the same one again; each completes
/// once, the refused one with no bytes.
#[test]
fn a_refused_wqe_completes_once_and_the_wqe_behind_it_is_flushed() {
    let mut p = pair(0x46);
    post_long_send(&mut p, 7);
    p.write(8, 0, 0x100, 300);
    let wc = poll_n(&p.cq_a, 2, 20_000, "two completions");
    let got: Vec<(u64, WcStatus, Option<WcOpcode>, u32)> =
        wc.iter().map(|c| (c.wr_id, c.status, c.opcode, c.byte_len)).collect();
    assert_eq!(
        got,
        [(7, WcStatus::LocLenErr, None, 0), (8, WcStatus::WrFlushErr, None, 0)],
        "the SEND refused once (no bytes), the WRITE behind it flushed"
    );
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
    assert!(p.frames(0).is_empty(), "A sent nothing");
    let ca = p.a.ctx.query_counters().unwrap();
    assert_eq!(
        (ca.retry_timeouts, ca.go_back_n, ca.comp_error_drops),
        (0, 0, 0),
        "A: no timeout, no resend, nothing dropped: {ca:?}"
    );
}
