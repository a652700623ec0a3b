//! The responder's execute stage for WRITE (`RespExec`, catalog `resp_exec`)
//! against the protocol model (`rnic_proto::rc::Responder`, through
//! `rnic_tb::resp_exec`): random WRITE traffic over a few QPs with bad
//! rkeys, ranges past a region's end, other PDs' regions, duplicates, under
//! random stalls on every port: every placement command, ACK/NAK and `qps`
//! write exact and in order, host memory equal to the model's; the latency
//! from a record to its first piece and the period of a 4 KiB WRITE stream
//! asserted exactly.

use rnic_hw::transport::{RESP_EXEC_PIECE_LATENCY, RESP_EXEC_PLACE_PERIOD};
use rnic_sim::axis::Rng;
use rnic_sim::models::resp_exec::Dut;
use rnic_sim::Clocked;
use rnic_tb::mr::mtt_invalid;
use rnic_tb::resp_exec::{clean_world, pmtu, ExecBench, ExecKnobs, Traffic};

/// Run the bench's records through a fresh model until everything is out.
fn run(b: &mut ExecBench, limit: u64) {
    let mut sim = Clocked::new(Dut::new());
    sim.reset(2);
    let start = b.now;
    while !b.done() {
        assert!(b.now - start < limit, "no progress after {limit} cycles");
        b.drive(&mut sim.dut);
        sim.settle();
        b.sample(&sim.dut).unwrap_or_else(|e| panic!("{e}"));
        sim.tick();
    }
    for _ in 0..40 {
        b.drive(&mut sim.dut);
        sim.settle();
        b.sample(&sim.dut).unwrap_or_else(|e| panic!("{e}"));
        sim.tick();
    }
}

#[test]
fn random_writes_under_stalls() {
    let mixes: [(u64, [u64; 7], u64, u64, usize); 3] = [
        (1, [70, 60, 70, 60, 50, 60, 70], 1, 12, 256),
        (2, [100, 100, 100, 100, 100, 100, 100], 3, 3, 512),
        (3, [40, 90, 30, 50, 30, 80, 40], 0, 20, 256),
    ];
    let (mut placed, mut failed, mut other) = (0, 0, 0);
    for (seed, p, lat_min, lat_max, mtu) in mixes {
        let mut rng = Rng(0x7e5e_0000 + seed);
        let w = clean_world(&mut rng);
        let mut t = Traffic::new(seed, w.clone(), 4, pmtu(mtu));
        t.generate(220);
        let knobs = ExecKnobs {
            p_dec: p[0],
            p_xreq: p[1],
            p_xresp: p[2],
            p_pkt: p[3],
            p_piece: p[4],
            p_ack: p[5],
            p_qps: p[6],
            lat_min,
            lat_max,
        };
        let mut b = ExecBench::new(w, knobs, seed);
        b.push(&t.recs);
        run(&mut b, 200_000);
        // every byte the model wrote, the pieces wrote, and no other
        assert_eq!(b.mem.len(), t.mem.len(), "seed {seed}: bytes written");
        for (a, v) in &t.mem {
            assert_eq!(b.mem.get(a), Some(v), "seed {seed}: byte at {a:#x}");
        }
        placed += t.placed;
        failed += t.failed;
        other += t.other;
    }
    // coverage: each kind of record well represented
    assert!(placed > 200 && failed > 25 && other > 60, "placed {placed}, failed {failed}, other {other}");
}

#[test]
fn latency_and_4k_stream() {
    const L: u64 = 25; // MrXlate's latency on hits
    let mut rng = Rng(0x4b57);
    let mut w = clean_world(&mut rng);
    let mut t = Traffic::new(9, w.clone(), 1, pmtu(4096));
    // one region of the QP's PD made 1 MiB at a 2 MiB page, its MTT entry VALID
    let pd = t.pd(0);
    let m = w.mpt.values_mut().find(|m| m.pd == pd).expect("a region of the QP's PD");
    m.valid = true;
    m.remote_write = true;
    m.log_page_size = 21;
    m.va_base = 0x4000_0000;
    m.length = 1 << 20;
    m.mtt_base = (0x100..).find(|&e| !mtt_invalid(e)).unwrap();
    let (key, va) = (m.key, m.va_base + 0x1000);
    t.world = w.clone();
    t.stream(key, va, 16 * 4096);
    assert_eq!(t.failed, 0);
    let n = t.recs.len();
    assert_eq!(n, 16);
    let mut b = ExecBench::new(w, ExecKnobs::fast(L), 1);
    b.push(&t.recs);
    run(&mut b, 10_000);
    // latency: FIRST (key check: tail then head) one cycle more than a MIDDLE
    assert_eq!(b.first_piece[&0] - b.dec_taken[0], RESP_EXEC_PIECE_LATENCY + 1 + L);
    for i in 1..n {
        assert_eq!(b.first_piece[&i] - b.dec_taken[i], RESP_EXEC_PIECE_LATENCY + L, "record {i}");
    }
    // rate: a MIDDLE holds the block L + RESP_EXEC_PLACE_PERIOD cycles, under
    // the 64 cycles its 64 payload beats take in PayloadScatter
    for i in 2..n {
        assert_eq!(b.dec_taken[i] - b.dec_taken[i - 1], L + RESP_EXEC_PLACE_PERIOD, "record {i}");
    }
    assert!(b.dec_taken[n - 1] - b.dec_taken[n - 2] <= 64, "a 4 KiB packet's commands outpace its 64 beats");
}
