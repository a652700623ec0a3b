//! RDMA READ between two simulated NICs (`SimNet`, the real driver through
//! `SimHw`): A reads B's memory; B's responder answers (`resp_tx`), A's
//! completer checks each response and places its data over the READ WQE's
//! local SGEs (`comp_read`: the WQE read again, every piece translated
//! with LOCAL_WRITE before any byte is written) and completes it.
//!
//! * One SGE over three responses (MTU 1024), four SGEs with a zero-length
//!   one and pieces across a page boundary, a zero-length READ: A's buffer
//!   byte for byte against a reference (nothing outside the SGEs written),
//!   the CQEs, every frame on the wire, A's device writes exactly the SGEs.
//! * A fenced SEND of the bytes a READ just brought: B receives them (the
//!   fence waits for the READ's data to be written, not only its response).
//! * A READ into a region A may not write (no LOCAL_WRITE): LOC_PROT_ERR,
//!   the WRITE behind it flushed (WR_FLUSH_ERR), nothing written in A.
//! * Atomics: FETCH_ADD and COMPARE_SWAP (matching and not) on B's words,
//!   each original value in A's SGE (`comp_read` places it), B's words
//!   afterwards the protocol model's arithmetic, the CQEs.

use rnic_contract::codes::{WcOpcode, WcStatus};
use rnic_driver::*;
use rnic_proto::decode_frame;
use rnic_tb::sim_net::{poll_n, QpPair, RcTimers};

/// B's buffer: a pattern distinct from A's (`QpPair` fills A's).
fn fill_b(pair: &QpPair) -> Vec<u8> {
    let data: Vec<u8> = (0..8192u32).map(|i| (i * 29 + 11) as u8 ^ 0x5a).collect();
    pair.buf_b.write(0, &data).unwrap();
    data
}

fn read_a(pair: &QpPair) -> Vec<u8> {
    let mut a = vec![0u8; 8192];
    pair.buf_a.read(0, &mut a).unwrap();
    a
}

/// Posts a signaled READ of B's bytes from `src` into A's SGEs (offset, length).
fn post_read(pair: &mut QpPair, wr_id: u64, sges: &[(u64, u32)], src: u64) {
    let sges: Vec<Sge> = sges.iter().map(|&(o, l)| Sge::new(&pair.mr_a, o, l).unwrap()).collect();
    let remote = RemoteAddr { addr: pair.mr_b.addr() + src, rkey: pair.mr_b.rkey() };
    let wr = SendWr::new(wr_id, SendOp::RdmaRead { remote }, &sges).flags(SendFlags::SIGNALED);
    pair.qp_a.post_send(&[wr]).unwrap();
}

/// The reference: B's bytes from `src` scattered over the SGEs of `want`.
fn scatter(want: &mut [u8], b: &[u8], sges: &[(u64, u32)], src: usize) {
    let mut at = src;
    for &(o, l) in sges {
        want[o as usize..o as usize + l as usize].copy_from_slice(&b[at..at + l as usize]);
        at += l as usize;
    }
}

/// A's device writes since the trace started, as (address, length), merged
/// where contiguous.
fn a_writes(pair: &QpPair) -> Vec<(u64, u64)> {
    let mut n = pair.net.borrow_mut();
    let t = n.nics[0].port.trace.replace(vec![]).unwrap();
    let mut out: Vec<(u64, u64)> = vec![];
    for w in t.into_iter().filter(|x| x.write) {
        match out.last_mut() {
            Some(l) if l.0 + l.1 == w.addr => l.1 += w.len,
            _ => out.push((w.addr, w.len)),
        }
    }
    out
}

#[test]
fn rdma_read_between_two_nics() {
    let mut pair = QpPair::connect(21, (0x300, 0xa00), RcTimers::default());
    let b = fill_b(&pair);
    let mut want = read_a(&pair);
    let base = pair.buf_a.iova();
    let log0 = pair.net.borrow().log.len();
    pair.net.borrow_mut().nics[0].port.trace = Some(vec![]);

    // ---- one SGE, 3000 bytes: three responses at MTU 1024
    post_read(&mut pair, 1, &[(100, 3000)], 500);
    let wc = poll_n(&pair.cq_a, 1, 20_000, "READ completion");
    assert_eq!(
        (wc[0].wr_id, wc[0].status, wc[0].opcode, wc[0].byte_len),
        (1, WcStatus::Success, Some(WcOpcode::RdmaRead), 3000)
    );
    scatter(&mut want, &b, &[(100, 3000)], 500);
    assert!(read_a(&pair) == want, "A's buffer holds B's 3000 bytes at 100, nothing else changed");
    // A's CQE is written after the data: the data writes come before the CQE's in the trace
    assert_eq!(a_writes(&pair)[0], (base + 100, 3000), "A's first writes: the READ's bytes, in order");

    // ---- four SGEs: across the page boundary at 4096, a zero-length one, one byte
    let sges = &[(4000, 150), (200, 0), (6000, 1000), (5000, 1)];
    post_read(&mut pair, 2, sges, 1234);
    let wc = poll_n(&pair.cq_a, 1, 20_000, "4-SGE READ completion");
    assert_eq!((wc[0].wr_id, wc[0].status, wc[0].byte_len), (2, WcStatus::Success, 1151));
    scatter(&mut want, &b, sges, 1234);
    assert!(read_a(&pair) == want, "A's buffer holds the 1151 bytes over the four SGEs");
    let w = a_writes(&pair);
    for &(o, l) in sges.iter().filter(|s| s.1 > 0) {
        assert!(w.iter().any(|&(a, n)| a <= base + o && base + o + u64::from(l) <= a + n), "SGE at {o}: {w:x?}");
    }

    // ---- a zero-length READ: one response without payload, nothing written
    post_read(&mut pair, 3, &[], 0);
    let wc = poll_n(&pair.cq_a, 1, 20_000, "zero-length READ completion");
    assert_eq!((wc[0].wr_id, wc[0].status, wc[0].byte_len), (3, WcStatus::Success, 0));
    assert!(read_a(&pair) == want, "a zero-length READ writes nothing");

    // ---- a fenced SEND of the bytes a READ just brought
    let rsge = Sge::new(&pair.mr_b, 7000, 1024).unwrap();
    pair.qp_b.post_recv(&[RecvWr { wr_id: 0x77, sg_list: &[rsge] }]).unwrap();
    post_read(&mut pair, 4, &[(2000, 800)], 6100);
    let ssge = [Sge::new(&pair.mr_a, 2000, 800).unwrap()];
    let send = SendWr::new(5, SendOp::Send, &ssge).flags(SendFlags::SIGNALED | SendFlags::FENCE);
    pair.qp_a.post_send(&[send]).unwrap();
    let wc = poll_n(&pair.cq_a, 2, 40_000, "READ and fenced SEND completions");
    let got: Vec<_> = wc.iter().map(|w| (w.wr_id, w.status, w.opcode)).collect();
    assert_eq!(
        got,
        [(4, WcStatus::Success, Some(WcOpcode::RdmaRead)), (5, WcStatus::Success, Some(WcOpcode::Send))],
        "in order"
    );
    let wc = poll_n(&pair.cq_b, 1, 20_000, "B's RECV");
    assert_eq!((wc[0].wr_id, wc[0].status, wc[0].byte_len), (0x77, WcStatus::Success, 800));
    let mut got = vec![0u8; 800];
    pair.buf_b.read(7000, &mut got).unwrap();
    assert!(got == b[6100..6900], "B received the bytes A had just read from it");

    // ---- the wire: READ requests from A, READ responses from B, every frame good
    let log = pair.net.borrow().log[log0..].to_vec();
    let mut from_a = vec![];
    let mut from_b = vec![];
    for f in &log {
        let p = decode_frame(&f.bytes).unwrap_or_else(|e| panic!("frame from NIC {}: {e:?}", f.from));
        assert!(p.icrc_ok && p.ip_checksum_ok(), "frame from NIC {}: ICRC and IPv4 checksum", f.from);
        let s = (p.bth.opcode.name().to_string(), p.bth.psn.value(), p.payload.len());
        if f.from == 0 {
            from_a.push(s);
        } else if s.0 != "RC_ACKNOWLEDGE" {
            from_b.push(s);
        }
    }
    let names = |v: &[(String, u32, usize)]| v.iter().map(|s| s.0.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&from_a),
        [
            "RC_RDMA_READ_REQUEST",
            "RC_RDMA_READ_REQUEST",
            "RC_RDMA_READ_REQUEST",
            "RC_RDMA_READ_REQUEST",
            "RC_SEND_ONLY"
        ],
        "A's packets: {from_a:?}"
    );
    let resp: Vec<_> = from_b.iter().map(|s| (s.0.as_str(), s.1, s.2)).collect();
    assert_eq!(
        resp,
        [
            ("RC_RDMA_READ_RESPONSE_FIRST", 0x300, 1024),
            ("RC_RDMA_READ_RESPONSE_MIDDLE", 0x301, 1024),
            ("RC_RDMA_READ_RESPONSE_LAST", 0x302, 952),
            ("RC_RDMA_READ_RESPONSE_FIRST", 0x303, 1024),
            ("RC_RDMA_READ_RESPONSE_LAST", 0x304, 127),
            ("RC_RDMA_READ_RESPONSE_ONLY", 0x305, 0),
            ("RC_RDMA_READ_RESPONSE_ONLY", 0x306, 800),
        ],
        "B's READ responses"
    );
    let c = pair.a.ctx.query_counters().unwrap();
    assert_eq!((c.ghost_responses, c.go_back_n), (0, 0), "A: every response in order: {c:?}");
}

#[test]
fn rdma_read_into_a_region_without_local_write_fails_and_flushes() {
    let mut pair = QpPair::connect(22, (0x10, 0x20), RcTimers::default());
    fill_b(&pair);
    let before = read_a(&pair);
    // a second region over A's buffer, without LOCAL_WRITE
    let ro = pair.pd_a().reg_mr(&pair.buf_a, 0, 8192, AccessFlags::NONE).unwrap();
    let sges = [Sge::new(&ro, 100, 2000).unwrap()];
    let remote = RemoteAddr { addr: pair.mr_b.addr(), rkey: pair.mr_b.rkey() };
    let read = SendWr::new(1, SendOp::RdmaRead { remote }, &sges).flags(SendFlags::SIGNALED);
    pair.qp_a.post_send(&[read]).unwrap();
    pair.write(2, 0, 4000, 100);
    let wc = poll_n(&pair.cq_a, 2, 40_000, "READ and WRITE completions");
    let got: Vec<_> = wc.iter().map(|w| (w.wr_id, w.status)).collect();
    assert_eq!(got, [(1, WcStatus::LocProtErr), (2, WcStatus::WrFlushErr)], "the READ fails, the WRITE is flushed");
    assert!(read_a(&pair) == before, "nothing written in A");
}

/// READ goodput's cycle counts on one QP, MTU 4096 (`rnic_tb::nic_bench::read_run`:
/// every byte checked in A's memory): from `post_send` to the last
/// completion, to B's first and last READ response on the wire. (Session
/// 21, the first READ placement: 64 KiB x 2 at 43.7 Gb/s, 4 KiB x 16 at
/// 13.0 Gb/s with at most 4 READs outstanding; docs/benchmarks.md.)
///
/// Four 64 KiB READs bring their responses faster than A places them (each
/// READ's WQE read again and its CQE written between two READs): before
/// the pause (session 22) A's MAC FIFO dropped three responses and the
/// run stuck; now A asks B to pause (`mac_rx_pause`, honoured by B's MAC a
/// wire later) and no frame is lost.
#[test]
fn read_goodput_cycles() {
    use rnic_contract::codes::Mtu;
    use rnic_tb::nic_bench::read_run;
    let r = read_run(65536, 4, Mtu::Mtu4096);
    eprintln!("64 KiB x 4: {r:?}, {:.1} Gb/s", r.goodput_gbps());
    assert_eq!(r.packets, 64);
    assert_eq!(r.lost, 0, "no response lost: {r:?}");
    // (session 38, the MAC's address filter: one MAC cycle more on every
    // received frame; the pause 382 cycles and the frames at 1936 and 7583 before;
    // session 40, `xlate_ahead`'s answer FIFO on B's key check: 1937 and 7585 before;
    // session 43, `ReadAhead`: A no longer reads each READ's WQE before its
    // first response is placed, keeps up, and asks B for no pause (one of
    // 383 cycles before, the last response at 7587, 8560 cycles in all))
    assert_eq!((r.pauses, r.paused_cycles), (0, 0), "64 KiB x 4: {r:?}");
    assert_eq!((r.to_wire, r.wire_done, r.cycles), (1939, 7204, 8320), "64 KiB x 4: {r:?}");
    let r = read_run(4096, 16, Mtu::Mtu4096);
    eprintln!("4 KiB x 16: {r:?}, {:.1} Gb/s", r.goodput_gbps());
    assert_eq!(r.packets, 16);
    assert_eq!((r.pauses, r.paused_cycles), (0, 0), "4 KiB x 16 keeps up: {r:?}");
    // (session 38: (1935, 6988, 7520) before the address filter; 16 READs
    // one after another, each response a MAC cycle later, the last CQE one poll later)
    // (session 40: B's key checks pass `xlate_ahead`'s answer FIFO, two
    // cycles; the READs one after another: the last response 8 cycles later)
    // (session 43, `ReadAhead`: (1938, 7003, 7536) before, each READ's WQE read again)
    assert_eq!((r.to_wire, r.wire_done, r.cycles), (1938, 6768, 7312), "4 KiB x 16: {r:?}");
}

#[test]
fn atomics_between_two_nics() {
    use rnic_proto::rc::responder::atomic_new_value;
    let mut pair = QpPair::connect(23, (0x40, 0x900), RcTimers::default());
    let word = |buf: &DmaBuffer, at: usize| {
        let mut w = [0u8; 8];
        buf.read(at, &mut w).unwrap();
        u64::from_le_bytes(w)
    };
    // B's words at 0, 8, 16 and A's result words at 4000.. (one at an odd offset)
    for (at, v) in [(0usize, 0x1000u64), (8, 0xdead_beef_0000_0001), (16, 77)] {
        pair.buf_b.write(at, &v.to_le_bytes()).unwrap();
    }
    // (B's offset, FETCH_ADD or COMPARE_SWAP, compare, swap/add, A's offset)
    let ops: [(u64, bool, u64, u64, u64); 6] = [
        (0, true, 0, 5, 4000),
        (8, false, 0xdead_beef_0000_0001, 0x1234, 4008),
        (16, false, 78, 1, 4016),
        (0, true, 0, u64::MAX, 4027),
        (8, false, 0x1234, 0x5678, 4040),
        (4096 + 8, true, 0, 3, 4048),
    ];
    let mut model: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    let mut origs = vec![];
    for (k, &(off, fadd, compare, swap_add, local)) in ops.iter().enumerate() {
        let orig = *model.entry(off).or_insert_with(|| word(&pair.buf_b, off as usize));
        origs.push(orig);
        model.insert(off, atomic_new_value(fadd, orig, compare, swap_add));
        let remote = RemoteAddr { addr: pair.mr_b.addr() + off, rkey: pair.mr_b.rkey() };
        let op = if fadd {
            SendOp::AtomicFetchAndAdd { remote, add: swap_add }
        } else {
            SendOp::AtomicCmpAndSwp { remote, compare, swap: swap_add }
        };
        let sges = [Sge::new(&pair.mr_a, local, 8).unwrap()];
        let wr = SendWr::new(100 + k as u64, op, &sges).flags(SendFlags::SIGNALED);
        pair.qp_a.post_send(&[wr]).unwrap();
    }
    let wc = poll_n(&pair.cq_a, ops.len(), 60_000, "atomic completions");
    for (k, w) in wc.iter().enumerate() {
        let op = if ops[k].1 { WcOpcode::FetchAdd } else { WcOpcode::CompSwap };
        assert_eq!((w.wr_id, w.status, w.opcode, w.byte_len), (100 + k as u64, WcStatus::Success, Some(op), 8));
        assert_eq!(word(&pair.buf_a, ops[k].4 as usize), origs[k], "atomic {k}: the original value in A's SGE");
    }
    for (&off, &v) in &model {
        assert_eq!(word(&pair.buf_b, off as usize), v, "B's word at {off}");
    }
    // the wire: one ATOMIC ACKNOWLEDGE per atomic, good frames
    let acks = pair.frames(1).iter().filter(|f| f.1 == "RC_ATOMIC_ACKNOWLEDGE").count();
    assert_eq!(acks, ops.len(), "{:?}", pair.frames(1));
}
