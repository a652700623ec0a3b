//! `RxPause` (catalog `rx_pause`: the storm guard at 2^6 cycles, the core's
//! is 2^25; the mutual guard at 2^4, the core's 2^12) under Verilator: the
//! pause request against the fill marks, its latency, the hysteresis, the
//! storm guard withdrawing a request held too long and re-arming under the
//! XON mark, the mutual guard withdrawing a request held while this side's
//! own transmitter is stalled (only then, and only after 2^M such cycles in
//! a row), and a random walk of the two pointers and the stall checked
//! cycle by cycle against a reference of the rules in
//! `hw/src/mac/rx_pause.rs`.

use rnic_hw::consts::{RX_PAUSE_XOFF_BEATS, RX_PAUSE_XON_BEATS};
use rnic_hw::mac::{RX_DEPTH, RX_PTR_BITS};
use rnic_sim::models::rx_pause::Dut;
use rnic_sim::{Clocked, Model};

/// The catalog instance's storm guard: 2^G cycles.
const G: u32 = 6;
/// The catalog instance's mutual guard: 2^M cycles.
const M: u32 = 4;
const MASK: u64 = (1 << RX_PTR_BITS) - 1;

struct Bench {
    sim: Clocked<Dut>,
    wr: u64,
    rd: u64,
    stalled: bool,
}

impl Bench {
    fn new() -> Bench {
        let mut sim = Clocked::new(Dut::new());
        sim.reset(4);
        let mut b = Bench { sim, wr: 0, rd: 0, stalled: false };
        b.drive();
        b
    }
    /// Pointers with `fill` beats between them, wrapped somewhere in the range.
    fn set_fill(&mut self, fill: u64) {
        self.wr = (self.rd + fill) & MASK;
        self.drive();
    }
    fn drive(&mut self) {
        self.sim.dut.set("wr_ptr", self.wr);
        self.sim.dut.set("rd_ptr", self.rd);
        self.sim.dut.set("tx_stalled", self.stalled as u64);
        self.sim.settle();
    }
    fn pause(&self) -> bool {
        self.sim.dut.get("pause") == 1
    }
    fn tripped(&self) -> bool {
        self.sim.dut.get("tripped") == 1
    }
    fn tick(&mut self) {
        self.sim.tick();
    }
    /// Cycles until `pause` equals `want` (at most `limit`).
    fn until(&mut self, want: bool, limit: u64) -> u64 {
        for n in 0..limit {
            if self.pause() == want {
                return n;
            }
            self.tick();
        }
        panic!("pause never became {want} in {limit} cycles");
    }
}

#[test]
fn marks_latency_and_hysteresis() {
    assert_eq!((RX_PAUSE_XOFF_BEATS, RX_PAUSE_XON_BEATS), (RX_DEPTH as u64 / 2, RX_DEPTH as u64 / 4));
    let mut b = Bench::new();
    b.rd = 1000 & MASK;
    // just under the mark: never
    b.set_fill(RX_PAUSE_XOFF_BEATS - 1);
    for _ in 0..50 {
        b.tick();
        assert!(!b.pause(), "no pause under the XOFF mark");
    }
    // at the mark: two edges (the fill, then the request)
    b.set_fill(RX_PAUSE_XOFF_BEATS);
    assert_eq!(b.until(true, 10), 2, "the request two cycles after the fill reaches XOFF");
    // between the marks it holds
    b.set_fill(RX_PAUSE_XON_BEATS);
    for _ in 0..(1 << G) / 2 {
        b.tick();
        assert!(b.pause(), "held down to the XON mark");
    }
    b.set_fill(RX_PAUSE_XON_BEATS - 1);
    assert_eq!(b.until(false, 10), 2, "released two cycles after the fill falls under XON");
    // and back up between the marks does not ask again
    b.set_fill(RX_PAUSE_XOFF_BEATS - 1);
    for _ in 0..50 {
        b.tick();
        assert!(!b.pause(), "no request between the marks after a release");
    }
    // a full FIFO asks too, across the pointers' wrap
    b.rd = MASK - 3;
    b.set_fill(RX_DEPTH as u64);
    assert_eq!(b.until(true, 10), 2);
}

#[test]
fn storm_guard_withdraws_and_rearms() {
    let mut b = Bench::new();
    b.set_fill(RX_DEPTH as u64);
    assert_eq!(b.until(true, 10), 2);
    // held for 2^G cycles, then withdrawn although the FIFO stays full
    let held = b.until(false, 1 << (G + 2));
    assert_eq!(held, 1 << G, "the guard withdraws the request after 2^G cycles");
    assert!(b.tripped());
    for _ in 0..(4 << G) {
        b.tick();
        assert!(!b.pause() && b.tripped(), "withdrawn while the fill stays over XON");
    }
    // between the marks still withdrawn; under XON re-armed
    b.set_fill(RX_PAUSE_XON_BEATS);
    b.tick();
    b.tick();
    assert!(b.tripped());
    b.set_fill(RX_PAUSE_XON_BEATS - 1);
    b.tick();
    b.tick();
    assert!(!b.tripped() && !b.pause(), "re-armed under the XON mark");
    b.set_fill(RX_PAUSE_XOFF_BEATS);
    assert_eq!(b.until(true, 10), 2, "asks again at the next XOFF");
}

#[test]
fn mutual_guard_withdraws_a_request_while_the_own_transmitter_is_stalled() {
    let mut b = Bench::new();
    b.set_fill(RX_DEPTH as u64);
    assert_eq!(b.until(true, 10), 2);
    // a stall shorter than 2^M cycles, then a cycle without: the count starts again
    b.stalled = true;
    b.drive();
    for _ in 0..(1 << M) - 2 {
        b.tick();
    }
    b.stalled = false;
    b.drive();
    b.tick();
    b.stalled = true;
    b.drive();
    // now 2^M stalled cycles in a row withdraw it (the storm guard's 2^G is not reached)
    let held = b.until(false, 1 << G);
    assert_eq!(held, 1 << M, "withdrawn after 2^M cycles asked while stalled");
    assert!(b.tripped());
    // the stall ending does not ask again while the fill stays over XON
    b.stalled = false;
    b.drive();
    for _ in 0..(2 << M) {
        b.tick();
        assert!(!b.pause() && b.tripped(), "withdrawn while the fill stays over XON");
    }
    // re-armed under XON, as after the storm guard
    b.set_fill(RX_PAUSE_XON_BEATS - 1);
    b.tick();
    b.tick();
    assert!(!b.tripped());
    b.set_fill(RX_PAUSE_XOFF_BEATS);
    assert_eq!(b.until(true, 10), 2, "asks again at the next XOFF");
    // a stall with no request pending counts nothing
    let mut b = Bench::new();
    b.stalled = true;
    b.set_fill(RX_PAUSE_XOFF_BEATS - 1);
    for _ in 0..(4 << M) {
        b.tick();
    }
    b.set_fill(RX_PAUSE_XOFF_BEATS);
    assert_eq!(b.until(true, 10), 2);
    assert_eq!(b.until(false, 1 << G), 1 << M, "counted from the request, not from the stall");
}

/// The rules of `rx_pause.rs`, one edge at a time.
#[derive(Default)]
struct Reference {
    fill: u64,
    on: bool,
    held: bool,
    age: u64,
    mutual: u64,
    /// Requests the mutual guard withdrew.
    mutual_trips: u64,
}

impl Reference {
    fn edge(&mut self, wr: u64, rd: u64, stalled: bool) {
        let over = self.fill >= RX_PAUSE_XOFF_BEATS;
        let under = self.fill < RX_PAUSE_XON_BEATS;
        let expired = self.age == (1 << G) - 1 || self.mutual == (1 << M) - 1;
        let (mut on, mut held) = (self.on, self.held);
        if over && !held {
            on = true;
        }
        if under {
            on = false;
            held = false;
        }
        if self.on && expired {
            on = false;
            held = true;
            self.mutual_trips += u64::from(self.mutual == (1 << M) - 1);
        }
        self.age = if self.on { self.age + 1 } else { 0 };
        self.mutual = if self.on && stalled { self.mutual + 1 } else { 0 };
        self.fill = wr.wrapping_sub(rd) & MASK;
        (self.on, self.held) = (on, held);
    }
}

#[test]
fn random_walk_matches_the_rules() {
    let mut b = Bench::new();
    let mut r = Reference::default();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let (mut pauses, mut trips, mut last) = (0, 0, (false, false));
    for cycle in 0..200_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // phases: the writer ahead of the reader, then behind, with long
        // stalls of the reader (so the guard trips now and then)
        let fill = b.wr.wrapping_sub(b.rd) & MASK;
        let writer_fast = (cycle / 3000) % 2 == 0;
        let reader_stalled = (cycle / 700) % 7 == 3;
        // this side's transmitter: stalled in runs, some longer than 2^M
        b.stalled = (cycle / 40) % 5 == 1 && !x.is_multiple_of(13);
        if fill < RX_DEPTH as u64 && x % 100 < if writer_fast { 60 } else { 30 } {
            b.wr = (b.wr + 1) & MASK;
        }
        let fill = b.wr.wrapping_sub(b.rd) & MASK;
        if fill > 0 && !reader_stalled && (x >> 8) % 100 < if writer_fast { 45 } else { 70 } {
            b.rd = (b.rd + 1) & MASK;
        }
        b.drive();
        assert_eq!((b.pause(), b.tripped()), (r.on, r.held), "cycle {cycle}");
        if (b.pause(), b.tripped()) != last {
            pauses += u64::from(b.pause() && !last.0);
            trips += u64::from(b.tripped() && !last.1);
            last = (b.pause(), b.tripped());
        }
        r.edge(b.wr, b.rd, b.stalled);
        b.tick();
    }
    assert!(
        pauses >= 20 && trips >= 5 && r.mutual_trips >= 3 && trips > r.mutual_trips,
        "the walk exercised every rule: {pauses} requests, {trips} trips, {} by the mutual guard",
        r.mutual_trips
    );
}
