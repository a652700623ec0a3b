//! What every Verilated model offers, and a clocked wrapper for testbenches.

use std::ffi::CString;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PortDir {
    In,
    Out,
}

#[derive(Clone, Copy, Debug)]
pub struct PortInfo {
    /// Verilog name (`s_axis_tdata`).
    pub name: &'static str,
    /// Rust field path (`s_axis.tdata`).
    pub rust_path: &'static str,
    pub width: usize,
    pub dir: PortDir,
    pub is_clock: bool,
}

impl PortInfo {
    pub fn words(&self) -> usize {
        self.width.div_ceil(32)
    }
}

/// A Verilated model, port values as little-endian 32-bit words.
pub trait Model {
    fn ports(&self) -> &'static [PortInfo];
    /// Settle combinational logic for the current inputs.
    fn eval(&mut self);
    fn set_words(&mut self, idx: usize, w: &[u32]);
    fn get_words(&self, idx: usize, w: &mut [u32]);

    fn port(&self, rust_path: &str) -> usize {
        self.ports()
            .iter()
            .position(|p| p.rust_path == rust_path || p.name == rust_path)
            .unwrap_or_else(|| panic!("no port `{rust_path}`"))
    }
    /// Set a port of up to 64 bits by name.
    fn set(&mut self, name: &str, v: u64) {
        let i = self.port(name);
        self.set_at(i, v);
    }
    /// Read a port of up to 64 bits by name.
    fn get(&self, name: &str) -> u64 {
        self.get_at(self.port(name))
    }
    /// Set a port of up to 64 bits by index (from [`Model::port`]), for
    /// benches that look names up once.
    fn set_at(&mut self, i: usize, v: u64) {
        self.set_words(i, &[v as u32, (v >> 32) as u32]);
    }
    /// Read a port of up to 64 bits by index.
    fn get_at(&self, i: usize) -> u64 {
        let n = self.ports()[i].words();
        if n <= 2 {
            let mut w = [0u32; 2];
            self.get_words(i, &mut w[..n]);
            w[0] as u64 | ((w[1] as u64) << 32)
        } else {
            // the shim writes the whole port: give it room, keep the low 64 bits
            let mut w = vec![0u32; n];
            self.get_words(i, &mut w);
            w[0] as u64 | ((w[1] as u64) << 32)
        }
    }
    /// Read a one-bit port by index.
    fn bit_at(&self, i: usize) -> bool {
        self.get_at(i) & 1 == 1
    }
}

static TRACE_SEQ: AtomicUsize = AtomicUsize::new(0);

/// Where a new model writes its VCD trace: `$RNIC_TRACE/<name>-<n>.vcd`, or
/// nowhere (empty string) when `RNIC_TRACE` is unset.
pub fn trace_path(name: &str, built_with_trace: bool) -> CString {
    match std::env::var("RNIC_TRACE") {
        Ok(dir) if !dir.is_empty() => {
            assert!(built_with_trace, "RNIC_TRACE is set but the models were built without tracing; rebuild");
            let _ = std::fs::create_dir_all(&dir);
            let n = TRACE_SEQ.fetch_add(1, Ordering::SeqCst);
            CString::new(format!("{dir}/{name}-{n}.vcd")).unwrap()
        }
        _ => CString::new("").unwrap(),
    }
}

/// A model with a clock: inputs change while the clock is low, `tick` makes
/// one rising edge. Reads after `tick` see the new state. A model with
/// several clock ports (the core's MAC clocks) has them all toggled
/// together, as one clock; `clocks::TwoClocks` runs two at their own rates.
pub struct Clocked<M: Model> {
    pub dut: M,
    clocks: Vec<usize>,
    reset: Option<usize>,
    cycle: u64,
}

impl<M: Model> Clocked<M> {
    pub fn new(mut dut: M) -> Self {
        let clocks: Vec<usize> = dut.ports().iter().enumerate().filter(|(_, p)| p.is_clock).map(|(i, _)| i).collect();
        assert!(!clocks.is_empty(), "the model has no clock port");
        let reset = dut.ports().iter().position(|p| p.rust_path == "reset");
        for &c in &clocks {
            dut.set_words(c, &[0]);
        }
        dut.eval();
        Clocked { dut, clocks, reset, cycle: 0 }
    }
    /// One clock cycle: rising edge, then falling edge.
    pub fn tick(&mut self) {
        for &c in &self.clocks {
            self.dut.set_words(c, &[1]);
        }
        self.dut.eval();
        for &c in &self.clocks {
            self.dut.set_words(c, &[0]);
        }
        self.dut.eval();
        self.cycle += 1;
    }
    pub fn ticks(&mut self, n: u64) {
        for _ in 0..n {
            self.tick();
        }
    }
    /// Hold `reset` high for `cycles` cycles (synchronous reset).
    pub fn reset(&mut self, cycles: u64) {
        let r = self.reset.expect("the model has no reset port");
        self.dut.set_words(r, &[1]);
        self.ticks(cycles);
        self.dut.set_words(r, &[0]);
        self.dut.eval();
    }
    /// Settle combinational outputs after changing inputs.
    pub fn settle(&mut self) {
        self.dut.eval();
    }
    pub fn cycle(&self) -> u64 {
        self.cycle
    }
}
