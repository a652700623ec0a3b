//! `ExecSide` (catalog `exec_side`): the fields `RespExec` takes beside each
//! decision, queued from the packet's entry into `RespCheck` to its
//! decision's entry into `RespExec`. Random header and qpc lines pushed and
//! popped under random stalls; every popped `m_side` must hold the fields
//! of its packet, read here from the contract's qpc layout and the receive
//! header's field table (not from the block's packing), in order. Also: the
//! capacity (2^`EXEC_SIDE_LOG` + 1), the two cycles from push to `m_valid`,
//! and `s_room` not following `s_push` or `m_pop`. The second FIFO (the PD
//! and payload length for `XlateAhead`, `m_x*`) is popped on its own, at
//! random, and checked the same way.

use rnic_contract::layouts::qpc;
use rnic_hw::transport::EXEC_SIDE_LOG;
use rnic_hw::wire::rx_field_lsb;
use rnic_sim::axis::Rng;
use rnic_sim::models::exec_side::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// `width` bits of `w` from bit `lsb` (at most 64).
fn bits(w: &[u32], lsb: usize, width: usize) -> u64 {
    (0..width).fold(0u64, |a, b| a | (((w[(lsb + b) / 32] >> ((lsb + b) % 32)) & 1) as u64) << b)
}

/// The side fields of a packet, by `m_side` port name: the scalars, then the path's 16 words.
fn expect(hdr: &[u32; 32], qpc_w: &[u32; 32]) -> (Vec<(&'static str, u64)>, [u32; 16]) {
    let bytes: Vec<u8> = qpc_w.iter().flat_map(|w| w.to_le_bytes()).collect();
    let q = |f: rnic_contract::layout::LayoutFieldInfo| f.read_raw(&bytes).unwrap();
    let h = |name: &str, width: usize| bits(hdr, rx_field_lsb(name), width);
    let scalars = vec![
        ("m_side.pd", q(qpc::PD.info())),
        ("m_side.dest_qpn", q(qpc::DEST_QPN.info())),
        ("m_side.pkey", q(qpc::PKEY.info())),
        ("m_side.rq_base", q(qpc::RQ_BASE.info())),
        ("m_side.rq_log", q(qpc::RQ_LOG_SIZE.info())),
        ("m_side.rq_prod", q(qpc::RQ_PROD.info())),
        ("m_side.recv_cq", q(qpc::RECV_CQ.info())),
        ("m_side.plen", h("payload_len", 16)),
        ("m_side.lane", h("payload_lane", 6)),
        ("m_side.imm", h("immdt", 32)),
        ("m_side.imm_valid", h("has.immdt", 1)),
    ];
    let p = qpc::PATH.pos();
    assert!(p.is_multiple_of(32) && qpc::PATH.width == 512);
    let path: [u32; 16] = std::array::from_fn(|i| qpc_w[p / 32 + i]);
    (scalars, path)
}

/// A queued packet: its fields and the cycle it was pushed.
type Queued = (Vec<(&'static str, u64)>, [u32; 16], u64);

struct Bench {
    sim: Clocked<Dut>,
    rng: Rng,
    queued: VecDeque<Queued>,
    /// The cycle from which the head of `queued` is the head.
    head_since: u64,
    /// The second FIFO: PD, payload length, the cycle pushed; its head's since.
    xqueued: VecDeque<(u64, u64, u64)>,
    xhead_since: u64,
    popped: usize,
    max_held: usize,
}

impl Bench {
    fn new(seed: u64) -> Self {
        let mut sim = Clocked::new(Dut::new());
        sim.reset(2);
        Bench {
            sim,
            rng: Rng(seed),
            queued: VecDeque::new(),
            head_since: 0,
            xqueued: VecDeque::new(),
            xhead_since: 0,
            popped: 0,
            max_held: 0,
        }
    }

    fn step(&mut self, p_push: u64, p_pop: u64) {
        let now = self.sim.cycle();
        let hdr: [u32; 32] = std::array::from_fn(|_| self.rng.next() as u32);
        let qpc_w: [u32; 32] = std::array::from_fn(|_| self.rng.next() as u32);
        let want_push = self.rng.chance(p_push);
        let want_pop = self.rng.chance(p_pop);
        let want_xpop = self.rng.chance(p_pop);
        let d = &mut self.sim.dut;
        d.set_words(d.port("s_hdr"), &hdr);
        d.set_words(d.port("s_qpc"), &qpc_w);
        // s_room and m_valid come from flops: neither s_push nor m_pop moves them
        let mut outs = vec![];
        for (a, b) in [(0, 0), (1, 1), (0, 1), (1, 0)] {
            d.set("s_push", a);
            d.set("m_pop", b);
            d.set("m_xpop", a ^ b);
            d.eval();
            outs.push((d.get("s_room"), d.get("m_valid"), d.get("m_xvalid")));
        }
        assert!(outs.iter().all(|&o| o == outs[0]), "cycle {now}: s_room or a valid follows s_push or a pop");
        let (room, valid, xvalid) = (outs[0].0 == 1, outs[0].1 == 1, outs[0].2 == 1);
        let xshown = self.xqueued.front().is_some_and(|h| now >= (h.2 + 2).max(self.xhead_since));
        assert_eq!(xvalid, xshown, "cycle {now}: m_xvalid ({} queued)", self.xqueued.len());
        // a packet's fields show two cycles after its push (the FIFO's
        // write, then its output register), or the cycle after the one
        // before it leaves
        let shown = self.queued.front().is_some_and(|h| now >= (h.2 + 2).max(self.head_since));
        assert_eq!(valid, shown, "cycle {now}: m_valid ({} queued)", self.queued.len());
        assert_eq!(
            room,
            self.queued.len().max(self.xqueued.len()) < (1 << EXEC_SIDE_LOG) + 1,
            "cycle {now}: s_room ({} queued)",
            self.queued.len()
        );
        let push = want_push && room;
        let pop = want_pop && valid;
        let xpop = want_xpop && xvalid;
        d.set("s_push", push as u64);
        d.set("m_pop", pop as u64);
        d.set("m_xpop", xpop as u64);
        d.eval();
        if xpop {
            let (pd, plen, _) = self.xqueued.pop_front().unwrap();
            assert_eq!((d.get("m_xpd"), d.get("m_xplen")), (pd, plen), "cycle {now}: the PD and payload length");
            self.xhead_since = now + 1;
        }
        if pop {
            let (scalars, path, _) = self.queued.pop_front().unwrap();
            for (name, v) in scalars {
                assert_eq!(d.get(name), v, "cycle {now}: packet {}: {name}", self.popped);
            }
            let mut got = [0u32; 16];
            d.get_words(d.port("m_side.path"), &mut got);
            assert_eq!(got, path, "cycle {now}: packet {}: path", self.popped);
            self.popped += 1;
            self.head_since = now + 1;
        }
        if push {
            if self.queued.is_empty() {
                self.head_since = now;
            }
            let (scalars, path) = expect(&hdr, &qpc_w);
            if self.xqueued.is_empty() {
                self.xhead_since = now;
            }
            self.xqueued.push_back((scalars[0].1, scalars[7].1, now));
            self.queued.push_back((scalars, path, now));
        }
        self.max_held = self.max_held.max(self.queued.len()).max(self.xqueued.len());
        self.sim.tick();
    }
}

#[test]
fn fields_in_order_under_stalls() {
    for (seed, p_push, p_pop) in [(1, 50, 50), (2, 90, 30), (3, 30, 90), (4, 100, 100)] {
        let mut b = Bench::new(seed);
        for _ in 0..3000 {
            b.step(p_push, p_pop);
        }
        println!("seed {seed}: {} popped, at most {} held", b.popped, b.max_held);
        assert!(b.popped > 800, "seed {seed}: {} popped", b.popped);
        if p_push > p_pop {
            assert_eq!(b.max_held, (1 << EXEC_SIDE_LOG) + 1, "seed {seed}: filled to capacity");
        }
    }
}

/// Pushed and popped every cycle: one packet per cycle through, each
/// shown two cycles after its push.
#[test]
fn one_per_cycle() {
    let mut b = Bench::new(9);
    for _ in 0..200 {
        b.step(100, 100);
    }
    assert_eq!(b.popped, 198, "one per cycle after the first two");
}
