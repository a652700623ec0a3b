//! A QP in error between two simulated NICs (issue 12, item 1; docs/core.md,
//! "Order of the remaining work", item 8): the driver's `modify` to ERR, or
//! a failure of the QP's own, stops it.
//!
//! * Requests for a QP whose completer failed, or that the driver moved to
//!   ERR, are dropped at admission and counted (`drop_qp_error`): no ACK, no
//!   NAK, not a byte written to host memory (the host model's log of device
//!   writes is empty).
//! * `modify(ERR)` with WQEs outstanding (sent, never acknowledged: the wire
//!   drops A's frames) and WQEs never sent (READs behind `max_rd_atomic`):
//!   the grant the modify's doorbell makes pokes the completer, whose flush
//!   completes the outstanding ones with WR_FLUSH_ERR, the others after
//!   them, in order, without waiting for an ACK timeout (with none too), and
//!   nothing more is sent.
//! * `modify(ERR)` of an idle QP: WQEs posted after it complete with
//!   WR_FLUSH_ERR at once, none on the wire.
//! * The receive queue (docs/core.md item 9): once the send queue of a QP in
//!   error is flushed, the responder completes every posted RECV with
//!   WR_FLUSH_ERR (opcode RECV, length 0), in order, after the send queue's
//!   completions, exactly once (a SEND that raced the modify completes its
//!   RECV or is dropped, never both); RECVs posted in ERR are flushed too;
//!   no byte of the RECVs' buffers is written.
//! * A fatal NAK the responder sends (IBTA class C: a WRITE with a bad
//!   rkey, a READ past the region) moves its QP into error with no
//!   `modify`: its outstanding and unsent send WQEs, then its posted RECVs,
//!   complete with WR_FLUSH_ERR, later posts too; the requester still ends
//!   in REM_ACCESS_ERR; the failed request writes no byte. The same from
//!   RTR (a QP that receives and has never sent): its posted RECVs are
//!   flushed.

use rnic_contract::codes::{QpState, WcStatus};
use rnic_driver::*;
use rnic_hw::transport::TIMER_TICK_CYCLES;
use rnic_tb::sim_net::{poll_n, try_poll_n, QpPair, RcTimers, WireFaults};

/// The ACK timeout code of these tests: 2^3 ticks.
const TIMEOUT: u8 = 3;

fn pair(seed: u64) -> QpPair {
    QpPair::connect(seed, (0x500, 0xb00), RcTimers { timeout: TIMEOUT, retry_cnt: 1, ..RcTimers::default() })
}

/// Posts a signaled WRITE of B's bytes [0, `len`) to A's region at `dst`.
fn b_writes_to_a(p: &mut QpPair, wr_id: u64, dst: u64, len: u32) {
    let sges = [Sge::new(&p.mr_b, 0, len).unwrap()];
    let remote = RemoteAddr { addr: p.mr_a.addr() + dst, rkey: p.mr_a.rkey() };
    let wr = SendWr::new(wr_id, SendOp::RdmaWrite { remote }, &sges).flags(SendFlags::SIGNALED);
    p.qp_b.post_send(&[wr]).unwrap();
}

/// Posts a signaled READ of B's bytes at `src` into A's region at `dst`.
fn a_reads(p: &mut QpPair, wr_id: u64, src: u64, dst: u64, len: u32) {
    let sges = [Sge::new(&p.mr_a, dst, len).unwrap()];
    let remote = RemoteAddr { addr: p.mr_b.addr() + src, rkey: p.mr_b.rkey() };
    let wr = SendWr::new(wr_id, SendOp::RdmaRead { remote }, &sges).flags(SendFlags::SIGNALED);
    p.qp_a.post_send(&[wr]).unwrap();
}

fn a_buffer(p: &QpPair) -> Vec<u8> {
    let mut v = vec![0u8; 8192];
    p.buf_a.read(0, &mut v).unwrap();
    v
}

/// Posts RECVs on A with `wr_ids`, each for 256 bytes of A's buffer at
/// 0x1800 + 256 i.
fn a_posts_recvs(p: &mut QpPair, wr_ids: &[u64]) {
    for (i, &id) in wr_ids.iter().enumerate() {
        let sge = [Sge::new(&p.mr_a, 0x1800 + 256 * i as u64, 256).unwrap()];
        p.qp_a.post_recv(&[RecvWr { wr_id: id, sg_list: &sge }]).unwrap();
    }
}

/// The completions `wcs` are the RECVs `wr_ids` flushed, in order: status
/// WR_FLUSH_ERR, length 0, A's QP, RQ indexes `first`, `first` + 1, ...
fn assert_recvs_flushed(p: &QpPair, wcs: &[WorkCompletion], wr_ids: &[u64], first: u16) {
    let got: Vec<(u64, WcStatus, u32, u32, u16)> =
        wcs.iter().map(|c| (c.wr_id, c.status, c.byte_len, c.qp_num, c.wqe_index)).collect();
    let want: Vec<(u64, WcStatus, u32, u32, u16)> = wr_ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, WcStatus::WrFlushErr, 0, p.qp_a.qp_num(), first.wrapping_add(i as u16)))
        .collect();
    assert_eq!(got, want, "the RECVs flushed in order, each once");
}

/// B writes to A's QP, which is in error: every attempt dropped by A at
/// admission, counted, never answered and never written; B's WRITE ends in
/// RETRY_EXC_ERR.
fn b_write_is_dropped(p: &mut QpPair) {
    let before = a_buffer(p);
    let c0 = p.a.ctx.query_counters().unwrap();
    let t0 = p.net.borrow().now();
    p.buf_b.write(0, &[0xEE; 256]).unwrap();
    p.net.borrow_mut().nics[0].port.trace = Some(vec![]);
    b_writes_to_a(p, 40, 0x800, 256);
    let wc = poll_n(&p.cq_b, 1, 100_000, "B's WRITE");
    assert_eq!((wc[0].wr_id, wc[0].status), (40, WcStatus::RetryExcErr), "A never answers B's WRITE");
    let writes: Vec<u64> = {
        let mut n = p.net.borrow_mut();
        n.nics[0].port.trace.take().unwrap().into_iter().filter(|x| x.write).map(|x| x.cycle).collect()
    };
    assert!(writes.is_empty(), "A's device wrote nothing: {writes:?}");
    assert_eq!(a_buffer(p), before, "A's memory untouched");
    let from_a: Vec<_> = p.frames(0).into_iter().filter(|f| f.0 >= t0).collect();
    assert!(from_a.is_empty(), "A sent nothing, no ACK, no NAK: {from_a:?}");
    let from_b = p.frames(1).into_iter().filter(|f| f.0 >= t0).count() as u64;
    let c1 = p.a.ctx.query_counters().unwrap();
    // retry_cnt 1: the WRITE and its one resend
    assert_eq!(from_b, 2, "B sent its WRITE twice");
    assert_eq!(c1.drop_qp_error - c0.drop_qp_error, from_b, "A dropped and counted each as a QP in error: {c1:?}");
    assert_eq!((c1.dup_requests, c1.naks), (c0.dup_requests, c0.naks), "A's responder saw none of them");
}

#[test]
fn requests_for_a_qp_whose_completer_failed_are_dropped_and_counted() {
    let mut p = pair(0x61);
    a_posts_recvs(&mut p, &[70, 71, 72]);
    // a SEND of 2^31 + 2 bytes: refused at once, A's completer in error
    let half = Sge { length: (1 << 30) + 1, ..Sge::new(&p.mr_a, 0, 8).unwrap() };
    let sges = [half, half];
    let wr = SendWr::new(7, SendOp::Send, &sges).flags(SendFlags::SIGNALED);
    p.qp_a.post_send(&[wr]).unwrap();
    let wc = poll_n(&p.cq_a, 4, 20_000, "the refused SEND, three RECVs flushed");
    assert_eq!(wc[0].status, WcStatus::LocLenErr);
    // the QP failed without a modify: its receive queue is flushed behind
    assert_recvs_flushed(&p, &wc[1..], &[70, 71, 72], 0);
    b_write_is_dropped(&mut p);
    assert!(try_poll_n(&p.cq_a, 1, 2_000).is_empty(), "no further completion");
}

/// Six READs from A into a wire that drops A's frames (four sent, two held
/// back by `max_rd_atomic` 4), then `modify(ERR)`: all six WR_FLUSH_ERR in
/// order, without waiting for the ACK timeout (code `timeout`; 0: none),
/// nothing sent after the modify; a WRITE posted then is flushed too.
/// Returns the cycles from the modify to the sixth completion.
fn flush_after_modify(seed: u64, timeout: u8) -> u64 {
    let mut p = QpPair::connect(seed, (0x500, 0xb00), RcTimers { timeout, retry_cnt: 1, ..RcTimers::default() });
    p.net.borrow_mut().faults[0] = WireFaults { drop_ppm: 1_000_000, ..WireFaults::default() };
    a_posts_recvs(&mut p, &[90, 91]);
    for i in 0..6 {
        a_reads(&mut p, 10 + i, 64 * i, 0x1000 + 64 * i, 64);
    }
    assert!(try_poll_n(&p.cq_a, 1, 200).is_empty(), "nothing completes yet");
    let sent: Vec<u32> = p.frames(0).iter().map(|f| f.2).collect();
    assert_eq!(sent, [0x500, 0x501, 0x502, 0x503], "four READs sent");
    let t0 = p.net.borrow().now();
    p.qp_a.modify(&QpAttr::new().state(QpState::Error)).unwrap();
    let wc = poll_n(&p.cq_a, 8, 20_000, "six flushed READs, two flushed RECVs");
    let took = p.net.borrow().now() - t0;
    let got: Vec<(u64, WcStatus)> = wc[..6].iter().map(|c| (c.wr_id, c.status)).collect();
    let want: Vec<(u64, WcStatus)> = (10..16).map(|i| (i, WcStatus::WrFlushErr)).collect();
    assert_eq!(got, want, "every READ flushed, in order");
    // the receive queue after the send queue
    assert_recvs_flushed(&p, &wc[6..], &[90, 91], 0);
    assert!(p.frames(0).iter().all(|f| f.0 < t0), "nothing sent after modify(ERR)");
    let ca = p.a.ctx.query_counters().unwrap();
    assert_eq!((ca.go_back_n, ca.retry_timeouts), (0, 0), "no timeout, no resend: {ca:?}");
    p.write(20, 0, 0x100, 64);
    let wc = poll_n(&p.cq_a, 1, 5_000, "the WRITE posted in ERR");
    assert_eq!((wc[0].wr_id, wc[0].status), (20, WcStatus::WrFlushErr));
    // a RECV posted in ERR: flushed, the ones before not again
    a_posts_recvs(&mut p, &[92]);
    let wc = poll_n(&p.cq_a, 1, 5_000, "the RECV posted in ERR");
    assert_recvs_flushed(&p, &wc, &[92], 2);
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
    assert!(p.frames(0).iter().all(|f| f.0 < t0), "nothing sent after modify(ERR)");
    took
}

#[test]
fn modify_to_err_flushes_outstanding_and_unsent_wqes_in_order() {
    let took = flush_after_modify(0x62, TIMEOUT);
    eprintln!("six READs flushed {took} cycles after modify(ERR)");
    // the completer's flush is asked at the grant the modify's doorbell makes
    let ack_timeout = (1u64 << TIMEOUT) * TIMER_TICK_CYCLES;
    assert!(took < ack_timeout / 2, "flushed {took} cycles after the modify, not at the ACK timeout");
}

#[test]
fn modify_to_err_flushes_without_an_ack_timer() {
    let took = flush_after_modify(0x64, 0);
    eprintln!("six READs flushed {took} cycles after modify(ERR), no ACK timer");
}

#[test]
fn modify_to_err_of_an_idle_qp_flushes_later_posts_and_drops_requests() {
    let mut p = pair(0x63);
    p.write(1, 0, 0x100, 300);
    let wc = poll_n(&p.cq_a, 1, 20_000, "the WRITE");
    assert_eq!(wc[0].status, WcStatus::Success);
    p.check(0, 0x100, 300);
    p.qp_a.modify(&QpAttr::new().state(QpState::Error)).unwrap();
    let t0 = p.net.borrow().now();
    p.write(2, 0, 0x200, 300);
    p.send(3, 0, 100);
    let wc = poll_n(&p.cq_a, 2, 5_000, "two flushed WQEs");
    let took = p.net.borrow().now() - t0;
    let got: Vec<(u64, WcStatus)> = wc.iter().map(|c| (c.wr_id, c.status)).collect();
    assert_eq!(got, [(2, WcStatus::WrFlushErr), (3, WcStatus::WrFlushErr)], "both flushed, in order");
    eprintln!("two WQEs flushed {took} cycles after their posts");
    assert!(took < 3_000, "flushed at once: {took} cycles");
    assert!(p.frames(0).iter().all(|f| f.0 < t0), "nothing sent in ERR");
    b_write_is_dropped(&mut p);
}

/// The retransmit timer's retries spent (A's frames all dropped): the WRITE
/// completes with RETRY_EXC_ERR, the WRITE behind it and the posted RECVs
/// with WR_FLUSH_ERR, without a modify; after `modify(ERR)` a RECV posted is
/// flushed and none of the earlier ones again. A's RECV buffers untouched.
#[test]
fn spent_retries_flush_the_receive_queue() {
    let mut p = pair(0x65);
    p.net.borrow_mut().faults[0] = WireFaults { drop_ppm: 1_000_000, ..WireFaults::default() };
    a_posts_recvs(&mut p, &[50, 51, 52, 53]);
    let before = a_buffer(&p);
    p.write(1, 0, 0x100, 64);
    p.write(2, 0, 0x200, 64);
    let wc = poll_n(&p.cq_a, 6, 200_000, "the WRITEs, four RECVs");
    let got: Vec<(u64, WcStatus)> = wc[..2].iter().map(|c| (c.wr_id, c.status)).collect();
    assert_eq!(got, [(1, WcStatus::RetryExcErr), (2, WcStatus::WrFlushErr)]);
    assert_recvs_flushed(&p, &wc[2..], &[50, 51, 52, 53], 0);
    p.qp_a.modify(&QpAttr::new().state(QpState::Error)).unwrap();
    a_posts_recvs(&mut p, &[54]);
    let wc = poll_n(&p.cq_a, 1, 5_000, "the RECV posted in ERR");
    assert_recvs_flushed(&p, &wc, &[54], 4);
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
    assert_eq!(a_buffer(&p), before, "no RECV buffer written");
}

/// B's SEND races A's `modify(ERR)`: its RECV (the first) completes with
/// the data or is flushed, never both, and the others are flushed after it,
/// each exactly once, over several timings of the race.
#[test]
fn a_send_racing_modify_to_err_completes_its_recv_once() {
    let mut outcomes = [0u32; 2];
    for (k, delay) in [0usize, 60, 120, 200].into_iter().enumerate() {
        let mut p = pair(0x70 + k as u64);
        a_posts_recvs(&mut p, &[60, 61, 62]);
        let sges = [Sge::new(&p.mr_b, 0, 200).unwrap()];
        let wr = SendWr::new(5, SendOp::Send, &sges).flags(SendFlags::SIGNALED);
        p.qp_b.post_send(&[wr]).unwrap();
        // the clock runs while the driver polls
        let mut wc = if delay > 0 { try_poll_n(&p.cq_a, 1, delay) } else { vec![] };
        assert!(wc.len() <= 1, "delay {delay}: {wc:?}");
        p.qp_a.modify(&QpAttr::new().state(QpState::Error)).unwrap();
        wc.extend(try_poll_n(&p.cq_a, 3 - wc.len(), 20_000));
        wc.extend(try_poll_n(&p.cq_a, 1, 2_000));
        assert_eq!(wc.len(), 3, "delay {delay}: one completion per RECV: {wc:?}");
        let ids: Vec<u64> = wc.iter().map(|c| c.wr_id).collect();
        assert_eq!(ids, [60, 61, 62], "delay {delay}: in order");
        eprintln!("delay {delay}: RECV 60 {:?}", wc[0].status);
        if wc[0].status == WcStatus::Success {
            assert_eq!(wc[0].byte_len, 200, "delay {delay}");
            assert_recvs_flushed(&p, &wc[1..], &[61, 62], 1);
            outcomes[0] += 1;
        } else {
            assert_recvs_flushed(&p, &wc, &[60, 61, 62], 0);
            outcomes[1] += 1;
        }
    }
    eprintln!("SEND received before the modify: {}, flushed: {}", outcomes[0], outcomes[1]);
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "the SEND won the race and lost it: {outcomes:?}");
}

/// A responder-side fatal NAK (IBTA class C: B's request fails A's checks)
/// moves A's QP into error with no `modify` by the driver: A's completer
/// flushes its READs outstanding (sent, their responses dropped on the
/// wire) and the two held back by `max_rd_atomic`, WR_FLUSH_ERR in order,
/// then A's responder flushes the posted RECVs; a WRITE posted after is
/// flushed, A sends nothing after its NAK, and the failed request wrote no
/// byte of A's memory. B's WQE ends in REM_ACCESS_ERR as before. `bad`
/// posts B's failing request (wr_id 40). Returns the cycles from B's post to
/// A's last flushed RECV.
fn responder_failure_moves_the_qp_to_error(seed: u64, bad: fn(&mut QpPair)) -> u64 {
    // no ACK timer: nothing A sent is resent, the flush alone completes it
    let mut p = QpPair::connect(seed, (0x500, 0xb00), RcTimers { timeout: 0, retry_cnt: 1, ..RcTimers::default() });
    a_posts_recvs(&mut p, &[80, 81, 82]);
    // B's answers to A's READs are lost: four READs outstanding, two held back
    p.net.borrow_mut().faults[1] = WireFaults { drop_ppm: 1_000_000, ..WireFaults::default() };
    for i in 0..6 {
        a_reads(&mut p, 10 + i, 64 * i, 0x1000 + 64 * i, 64);
    }
    assert!(try_poll_n(&p.cq_a, 1, 300).is_empty(), "nothing completes yet");
    let sent: Vec<u32> = p.frames(0).iter().map(|f| f.2).collect();
    assert_eq!(sent, [0x500, 0x501, 0x502, 0x503], "four READs sent");
    p.net.borrow_mut().faults[1] = WireFaults::default();
    let before = a_buffer(&p);
    let c0 = p.a.ctx.query_counters().unwrap();
    let t0 = p.net.borrow().now();
    p.buf_b.write(0, &[0xEE; 256]).unwrap();
    bad(&mut p);
    let wc = poll_n(&p.cq_b, 1, 20_000, "B's failing request");
    assert_eq!((wc[0].wr_id, wc[0].status), (40, WcStatus::RemAccessErr), "B's WQE as before");
    let wc = poll_n(&p.cq_a, 9, 20_000, "six flushed READs, three flushed RECVs");
    let took = p.net.borrow().now() - t0;
    let got: Vec<(u64, WcStatus)> = wc[..6].iter().map(|c| (c.wr_id, c.status)).collect();
    let want: Vec<(u64, WcStatus)> = (10..16).map(|i| (i, WcStatus::WrFlushErr)).collect();
    assert_eq!(got, want, "every READ flushed, in order, without a modify");
    assert_recvs_flushed(&p, &wc[6..], &[80, 81, 82], 0);
    assert_eq!(a_buffer(&p), before, "A's memory untouched");
    let from_a: Vec<_> = p.frames(0).into_iter().filter(|f| f.0 >= t0).collect();
    assert_eq!(from_a.len(), 1, "A sent its NAK, nothing else: {from_a:?}");
    assert_eq!((from_a[0].1.as_str(), from_a[0].3), ("RC_ACKNOWLEDGE", Some(0x62)), "A's NAK remote access error");
    let c1 = p.a.ctx.query_counters().unwrap();
    assert_eq!(c1.naks[2] - c0.naks[2], 1, "one remote access error NAK: {c1:?}");
    // a WQE posted now is flushed, nothing sent
    p.write(20, 0, 0x100, 64);
    let wc = poll_n(&p.cq_a, 1, 5_000, "the WRITE posted after the failure");
    assert_eq!((wc[0].wr_id, wc[0].status), (20, WcStatus::WrFlushErr));
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
    assert_eq!(p.frames(0).into_iter().filter(|f| f.0 >= t0).count(), 1, "nothing sent after the NAK");
    took
}

#[test]
fn a_write_with_a_bad_rkey_moves_the_responders_qp_to_error() {
    let took = responder_failure_moves_the_qp_to_error(0x80, |p| {
        let remote = RemoteAddr { addr: p.mr_a.addr() + 0x800, rkey: p.mr_a.rkey() ^ 0x100 };
        let sges = [Sge::new(&p.mr_b, 0, 256).unwrap()];
        let wr = SendWr::new(40, SendOp::RdmaWrite { remote }, &sges).flags(SendFlags::SIGNALED);
        p.qp_b.post_send(&[wr]).unwrap();
    });
    eprintln!("bad-rkey WRITE: A's QP flushed {took} cycles after B's post");
}

#[test]
fn a_read_past_the_region_moves_the_responders_qp_to_error() {
    let took = responder_failure_moves_the_qp_to_error(0x81, |p| {
        let remote = RemoteAddr { addr: p.mr_a.addr() + 8192 - 32, rkey: p.mr_a.rkey() };
        let sges = [Sge::new(&p.mr_b, 0x1000, 64).unwrap()];
        let wr = SendWr::new(40, SendOp::RdmaRead { remote }, &sges).flags(SendFlags::SIGNALED);
        p.qp_b.post_send(&[wr]).unwrap();
    });
    eprintln!("READ past the region: A's QP flushed {took} cycles after B's post");
}

/// A's QP is in RTR (it receives, it has never sent) when B's WRITE with a
/// bad rkey fails its checks: A's one NAK, then A's QP is in error as from
/// RTS (the completer's poke is admitted in RTR: `record_admits`): the RECVs
/// still posted complete with WR_FLUSH_ERR in order, one posted after the
/// driver's `modify(ERR)` too; the SEND before the failure completed its
/// RECV; no byte written.
#[test]
fn a_responder_failure_in_rtr_moves_the_qp_to_error() {
    let mut p =
        QpPair::connect_a_rtr(0x82, (0x500, 0xb00), RcTimers { timeout: 0, retry_cnt: 1, ..RcTimers::default() });
    a_posts_recvs(&mut p, &[80, 81, 82]);
    // a QP in RTR receives: B's SEND lands in RECV 80
    p.buf_b.write(0, &[0x5A; 64]).unwrap();
    let sges = [Sge::new(&p.mr_b, 0, 64).unwrap()];
    p.qp_b.post_send(&[SendWr::new(39, SendOp::Send, &sges).flags(SendFlags::SIGNALED)]).unwrap();
    let wc = poll_n(&p.cq_b, 1, 20_000, "B's SEND");
    assert_eq!((wc[0].wr_id, wc[0].status), (39, WcStatus::Success));
    let wc = poll_n(&p.cq_a, 1, 5_000, "A's RECV of the SEND");
    assert_eq!((wc[0].wr_id, wc[0].status, wc[0].byte_len), (80, WcStatus::Success, 64));
    let before = a_buffer(&p);
    let t0 = p.net.borrow().now();
    p.buf_b.write(0, &[0xEE; 256]).unwrap();
    let remote = RemoteAddr { addr: p.mr_a.addr() + 0x800, rkey: p.mr_a.rkey() ^ 0x100 };
    let sges = [Sge::new(&p.mr_b, 0, 256).unwrap()];
    let wr = SendWr::new(40, SendOp::RdmaWrite { remote }, &sges).flags(SendFlags::SIGNALED);
    p.qp_b.post_send(&[wr]).unwrap();
    let wc = poll_n(&p.cq_b, 1, 20_000, "B's failing WRITE");
    assert_eq!((wc[0].wr_id, wc[0].status), (40, WcStatus::RemAccessErr));
    let wc = poll_n(&p.cq_a, 2, 20_000, "the two RECVs still posted");
    let took = p.net.borrow().now() - t0;
    assert_recvs_flushed(&p, &wc, &[81, 82], 1);
    assert_eq!(a_buffer(&p), before, "A's memory untouched");
    let from_a: Vec<_> = p.frames(0).into_iter().filter(|f| f.0 >= t0).collect();
    assert_eq!(from_a.len(), 1, "A sent its NAK, nothing else: {from_a:?}");
    assert_eq!((from_a[0].1.as_str(), from_a[0].3), ("RC_ACKNOWLEDGE", Some(0x62)), "A's NAK remote access error");
    // the driver learns of the error from the completions and moves the QP
    // to ERR (as after spent retries): a RECV posted then is flushed too
    p.qp_a.modify(&QpAttr::new().state(QpState::Error)).unwrap();
    a_posts_recvs(&mut p, &[83]);
    let wc = poll_n(&p.cq_a, 1, 5_000, "the RECV posted after the failure");
    assert_recvs_flushed(&p, &wc, &[83], 3);
    assert!(try_poll_n(&p.cq_a, 1, 3_000).is_empty(), "no further completion");
    eprintln!("bad-rkey WRITE to a QP in RTR: its RECVs flushed {took} cycles after B's post");
}
