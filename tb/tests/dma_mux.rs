//! The DMA client multiplexers (the catalog's `DmaRdMux<4>` and `DmaWrMux<5>`):
//! random commands and writes under random stalls on every port, with
//! failed reads and writes, against the benches' references (each client's
//! data and completions, in order, byte for byte); the round-robin order,
//! the rates and the latencies.

use rnic_hw::host::{DmaRdMux, DmaWrMux};
use rnic_sim::models::{dma_rd_mux, dma_wr_mux};
use rnic_tb::dma_mux::{read_beats, RdCmd, RdMuxBench, WrJob, WrMuxBench, RD_CLIENTS, WR_CLIENTS};

type Rd = RdMuxBench<dma_rd_mux::Dut>;
type Wr = WrMuxBench<dma_wr_mux::Dut>;

fn random_read(b: &mut Rd) -> RdCmd {
    let addr = b.rng.next() & 0xffff_ffff_ffff;
    let len = 1 + (b.rng.next() % 1024) as u32;
    RdCmd { addr, len }
}

#[test]
fn reads_under_stalls_reach_their_clients() {
    for (seed, p_cmd, p_take, p_ec, p_eb, delay) in
        [(1, 50, 70, 60, 80, 3), (2, 100, 30, 100, 100, 0), (3, 20, 100, 30, 50, 20), (4, 90, 90, 90, 20, 1)]
    {
        let mut b = Rd::new(dma_rd_mux::Dut::new(), seed);
        (b.p_cmd, b.p_take, b.p_engine_cmd, b.p_engine_beat, b.engine_delay, b.p_err) =
            (p_cmd, p_take, p_ec, p_eb, delay, 10);
        let mut want = [0u64; RD_CLIENTS];
        for _ in 0..400 {
            // skewed: client 0 issues most, client 3 least
            let c = [0, 0, 0, 1, 1, 2, 3][(b.rng.next() % 7) as usize];
            let cmd = random_read(&mut b);
            want[c] += read_beats(cmd.addr, cmd.len);
            b.push(c, cmd);
        }
        b.run(400_000);
        assert_eq!(b.delivered, want, "seed {seed}: beats per client");
        assert_eq!(b.engine_order.len(), 400, "seed {seed}: commands at the engine");
        assert!(b.errors_seen > 0, "seed {seed}: some failed reads were delivered as failed");
    }
}

#[test]
fn reads_round_robin_every_other_cycle() {
    let mut b = Rd::new(dma_rd_mux::Dut::new(), 7);
    for k in 0..50 {
        for c in 0..RD_CLIENTS {
            b.push(c, RdCmd { addr: 0x1000 * (k * RD_CLIENTS + c) as u64, len: 64 });
        }
    }
    b.run(10_000);
    let order: Vec<usize> = b.engine_order.iter().map(|&(c, _)| c).collect();
    let rr: Vec<usize> = (0..200).map(|k| k % RD_CLIENTS).collect();
    assert_eq!(order, rr, "round robin from client 0");
    for w in b.engine_order.windows(2) {
        assert_eq!(w[1].1 - w[0].1, 2, "a command every other cycle: {w:?}");
    }
    // each command reaches the engine CMD_LATENCY cycles after it was taken
    for (t, e) in b.taken_at.iter().zip(&b.engine_order) {
        assert_eq!(t.0, e.0);
        assert_eq!(e.1 - t.1, DmaRdMux::<4>::CMD_LATENCY, "command latency");
    }
}

#[test]
fn read_data_flows_a_beat_per_cycle() {
    let mut b = Rd::new(dma_rd_mux::Dut::new(), 9);
    b.engine_delay = 30;
    // every client, 8 KiB each: the data of all the commands back to back
    for c in 0..RD_CLIENTS {
        for k in 0..4 {
            b.push(c, RdCmd { addr: ((c * 4 + k) as u64) << 16, len: 2048 });
        }
    }
    b.run(10_000);
    let n = b.beat_cycles.len();
    assert_eq!(n, 16 * 32);
    assert_eq!(b.beat_cycles[n - 1] - b.beat_cycles[0], n as u64 - 1, "no gap in the delivered data");
    for (e, c) in b.engine_beats.iter().zip(&b.beat_cycles) {
        assert_eq!(c - e, DmaRdMux::<4>::DATA_LATENCY, "data latency");
    }
}

#[test]
fn writes_under_stalls_complete_to_their_clients() {
    for (seed, p_beat, p_take, delay) in [(1, 60, 70, 5), (2, 100, 30, 0), (3, 25, 100, 40), (4, 90, 90, 1)] {
        let mut b = Wr::new(dma_wr_mux::Dut::new(), seed);
        (b.p_beat, b.p_engine_take, b.done_delay, b.p_err) = (p_beat, p_take, delay, 10);
        let mut want = [0u64; WR_CLIENTS];
        for _ in 0..300 {
            // skewed: client 0 writes most, clients 3 and 4 least
            let c = [0, 0, 0, 1, 1, 2, 3, 4][(b.rng.next() % 8) as usize];
            let j = WrJob::random(&mut b.rng, 6);
            want[c] += 1;
            b.push(c, j);
        }
        b.run(400_000);
        assert_eq!(b.done_count, want, "seed {seed}: completions per client");
        assert_eq!(b.engine_order.len(), 300, "seed {seed}: writes at the engine");
        assert!(b.done_errs > 0, "seed {seed}: some failed writes were completed as failed");
    }
}

#[test]
fn writes_follow_each_other_without_a_gap() {
    let mut b = Wr::new(dma_wr_mux::Dut::new(), 11);
    // completions soon enough that fewer than 32 writes are ever incomplete
    b.done_delay = 5;
    // one-beat and three-beat writes from every client
    let mut beats = 0;
    for k in 0..40 {
        for c in 0..WR_CLIENTS {
            let j = WrJob::random(&mut b.rng, if k % 2 == 0 { 1 } else { 3 });
            beats += j.beats.len();
            b.push(c, j);
        }
    }
    b.run(10_000);
    let order: Vec<usize> = b.engine_order.iter().map(|&(c, _)| c).collect();
    let rr: Vec<usize> = (0..40 * WR_CLIENTS).map(|k| k % WR_CLIENTS).collect();
    assert_eq!(order, rr, "round robin from client 0");
    let n = b.engine_beats.len();
    assert_eq!(n, beats);
    // the first write is chosen, then taken, then offered: every later beat follows at once
    assert_eq!(b.engine_beats[n - 1] - b.engine_beats[0], n as u64 - 1, "no gap between writes");
    assert_eq!(b.done_sent.len(), 40 * WR_CLIENTS);
    for (s, c) in b.done_sent.iter().zip(&b.done_seen) {
        assert_eq!(c - s, DmaWrMux::<5>::DONE_LATENCY, "completion latency");
    }
}

#[test]
fn thirty_two_writes_incomplete_hold_the_next() {
    let mut b = Wr::new(dma_wr_mux::Dut::new(), 13);
    b.done_delay = 1000;
    for k in 0..40 {
        let j = WrJob::random(&mut b.rng, 1);
        b.push(k % WR_CLIENTS, j);
    }
    b.run(10_000);
    assert_eq!(b.engine_order.len(), 40);
    let first_done = b.done_sent[0];
    let before = b.engine_order.iter().filter(|&&(_, t)| t < first_done).count();
    assert_eq!(before, 32, "writes at the engine before the first completion");
    // the 33rd starts as soon as the first completion frees its place
    assert_eq!(b.engine_order[32].1 - first_done, 3, "cycles from the completion to the next write's beat");
}
