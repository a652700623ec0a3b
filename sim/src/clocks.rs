//! Two clocks at an exact ratio, for models with two clock ports (the MAC
//! boundary FIFOs). Time is an integer count of a unit that both periods
//! are whole multiples of (322.265625 MHz and 250 MHz: 128 and 165 units of
//! 4 ns / 165); each clock rises at its first-edge time and then once per
//! period. Edges that fall at the same time are taken together, as in a
//! Verilog simulator: every flop samples what it saw before either clock
//! rose.
//!
//! A testbench loop: [`TwoClocks::next_edges`] says which clocks rise next;
//! the testbench settles the model, samples the handshakes of those clocks'
//! ports (a beat moves when valid and ready are high just before its clock's
//! edge), calls [`TwoClocks::step`], then sets the inputs of the clocks that
//! rose for their next edge.

use crate::model::Model;

pub struct TwoClocks<M: Model> {
    pub dut: M,
    clocks: [usize; 2],
    periods: [u64; 2],
    next: [u64; 2],
    cycles: [u64; 2],
    now: u64,
}

impl<M: Model> TwoClocks<M> {
    /// `clocks`: the two clock port names; `periods` in time units;
    /// `first`: the time of each clock's first rising edge (its phase).
    pub fn new(mut dut: M, clocks: [&str; 2], periods: [u64; 2], first: [u64; 2]) -> Self {
        let clocks = clocks.map(|c| {
            let i = dut.port(c);
            assert!(dut.ports()[i].is_clock, "`{c}` is not a clock port");
            i
        });
        assert!(periods.iter().all(|&p| p > 0), "a period of 0");
        for c in clocks {
            dut.set_words(c, &[0]);
        }
        dut.eval();
        TwoClocks { dut, clocks, periods, next: first, cycles: [0; 2], now: 0 }
    }

    /// Which clocks rise at the next edge time.
    pub fn next_edges(&self) -> [bool; 2] {
        let t = self.next[0].min(self.next[1]);
        [self.next[0] == t, self.next[1] == t]
    }

    /// The next rising edge (of one clock or both): raise, settle, lower,
    /// settle. Returns which clocks rose.
    pub fn step(&mut self) -> [bool; 2] {
        let e = self.next_edges();
        self.now = self.next[0].min(self.next[1]);
        for (i, &rise) in e.iter().enumerate() {
            if rise {
                self.dut.set_words(self.clocks[i], &[1]);
            }
        }
        self.dut.eval();
        for (i, &rise) in e.iter().enumerate() {
            if rise {
                self.dut.set_words(self.clocks[i], &[0]);
                self.next[i] += self.periods[i];
                self.cycles[i] += 1;
            }
        }
        self.dut.eval();
        e
    }

    /// Rising edges of clock `i` so far.
    pub fn cycles(&self, i: usize) -> u64 {
        self.cycles[i]
    }

    /// Time of clock `i`'s next rising edge.
    pub fn next_time(&self, i: usize) -> u64 {
        self.next[i]
    }

    /// Time of the last edge, in time units.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Hold port `reset` high for `n` edges of clock `i` (and whatever edges
    /// of the other clock fall in between), then low.
    pub fn reset(&mut self, reset: &str, i: usize, n: u64) {
        let r = self.dut.port(reset);
        self.dut.set_words(r, &[1]);
        let until = self.cycles[i] + n;
        while self.cycles[i] < until {
            self.step();
        }
        self.dut.set_words(r, &[0]);
        self.dut.eval();
    }
}
