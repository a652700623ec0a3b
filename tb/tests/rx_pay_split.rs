//! The payload split (`RxPaySplit`): random packets (1 to 6 beats) with
//! random destinations under random stalls on all four streams; each
//! output carries exactly its packets' beats in order (data, keep, last,
//! user), dropped packets vanish, nothing offered is withdrawn; without
//! stalls a packet's beats go at one per cycle.

use rnic_hw::consts::{RX_DEST_DROP, RX_DEST_REQ, RX_DEST_RESP};
use rnic_sim::axis::Rng;
use rnic_sim::models::rx_pay_split;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

type Beat = (Vec<u32>, u64, bool, u64);

struct Run {
    taken_in: Vec<u64>,
    out_at: [Vec<u64>; 2],
}

fn run(seed: u64, n: usize, p_dest: u64, p_in: u64, p_out: [u64; 2]) -> Run {
    let mut rng = Rng(seed);
    let mut sim = Clocked::new(rx_pay_split::Dut::new());
    let d = &sim.dut;
    let port = |s: &str| d.port(s);
    let (dv, dd, dr) = (port("s_dest.valid"), port("s_dest.dest"), port("s_dest.ready"));
    let ins = ["tdata", "tkeep", "tlast", "tuser", "tvalid", "tready"].map(|f| port(&format!("s_axis.{f}")));
    let outs = ["m_req", "m_resp"]
        .map(|m| ["tdata", "tkeep", "tlast", "tuser", "tvalid", "tready"].map(|f| port(&format!("{m}.{f}"))));
    sim.reset(3);
    let mut dests = VecDeque::new();
    let mut beats: VecDeque<Beat> = VecDeque::new();
    let mut want: [VecDeque<Beat>; 2] = [VecDeque::new(), VecDeque::new()];
    for _ in 0..n {
        let dest = [RX_DEST_DROP, RX_DEST_REQ, RX_DEST_RESP][(rng.next() % 3) as usize];
        dests.push_back(dest);
        let len = 1 + rng.next() % 6;
        for k in 0..len {
            let b: Beat = ((0..16).map(|_| rng.next() as u32).collect(), rng.next(), k + 1 == len, rng.next() & 1);
            if dest != RX_DEST_DROP {
                want[(dest == RX_DEST_RESP) as usize].push_back(b.clone());
            }
            beats.push_back(b);
        }
    }
    let mut r = Run { taken_in: vec![], out_at: [vec![], vec![]] };
    let (mut od, mut ob) = (false, false);
    let mut held: [Option<Beat>; 2] = [None, None];
    for _ in 0..20 * n as u64 + 100 {
        let now = sim.cycle();
        let d = &mut sim.dut;
        od = !dests.is_empty() && (od || rng.chance(p_dest));
        d.set_at(dv, od as u64);
        d.set_at(dd, *dests.front().unwrap_or(&0));
        ob = !beats.is_empty() && (ob || rng.chance(p_in));
        if let Some(b) = beats.front() {
            d.set_words(ins[0], &b.0);
            d.set_at(ins[1], b.1);
            d.set_at(ins[2], b.2 as u64);
            d.set_at(ins[3], b.3);
        }
        d.set_at(ins[4], ob as u64);
        let take = [rng.chance(p_out[0]), rng.chance(p_out[1])];
        for i in 0..2 {
            d.set_at(outs[i][5], take[i] as u64);
        }
        d.eval();
        if od && d.bit_at(dr) {
            dests.pop_front();
            od = false;
        }
        if ob && d.bit_at(ins[5]) {
            beats.pop_front();
            ob = false;
            r.taken_in.push(now);
        }
        for i in 0..2 {
            if d.bit_at(outs[i][4]) {
                let mut w = vec![0u32; 16];
                d.get_words(outs[i][0], &mut w);
                let b: Beat = (w, d.get_at(outs[i][1]), d.bit_at(outs[i][2]), d.get_at(outs[i][3]));
                if let Some(h) = &held[i] {
                    assert_eq!(h, &b, "output {i}: an offered beat changed");
                }
                held[i] = Some(b.clone());
                if take[i] {
                    assert_eq!(Some(b), want[i].pop_front(), "output {i}: the next beat");
                    held[i] = None;
                    r.out_at[i].push(now);
                }
            } else {
                assert!(held[i].is_none(), "output {i}: an offered beat withdrawn");
            }
        }
        sim.tick();
    }
    assert!(beats.is_empty() && dests.is_empty(), "seed {seed}: inputs left");
    assert!(want.iter().all(|w| w.is_empty()), "seed {seed}: beats not delivered");
    r
}

#[test]
fn random_packets_under_stalls() {
    for (seed, p_dest, p_in, p_out) in [(1, 50, 70, [60, 40]), (2, 100, 100, [30, 90]), (3, 20, 50, [100, 100])] {
        run(seed, 600, p_dest, p_in, p_out);
    }
}

#[test]
fn one_beat_per_cycle_within_packets() {
    // destinations always there: a packet's beats in consecutive cycles,
    // and at most one idle cycle between packets
    let r = run(4, 300, 100, 100, [100, 100]);
    let gaps: Vec<u64> = r.taken_in.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g <= 2), "beats taken at most a cycle apart: {gaps:?}");
    assert!(gaps.iter().filter(|&&g| g == 1).count() > gaps.len() / 2, "mostly back to back");
}
