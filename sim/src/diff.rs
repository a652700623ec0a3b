//! Differential simulation: the Verilated model of a block against rust-hdl's
//! own simulation of the same Rust code, cycle by cycle, on the same inputs.
//! The first output that differs is a bug in the emitter (or in a hand-written
//! primitive's Verilog).

use crate::model::{Model, PortDir};
use crate::words::{literal_to_words, mask_words};
use rust_hdl::core::atom::{Atom, AtomKind};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;
use std::fmt;

/// Output values of a rust-hdl block, by Rust field path (`m_axis.tdata`).
pub fn rhdl_outputs(b: &dyn Block) -> BTreeMap<String, String> {
    struct P {
        depth: usize,
        ns: Vec<String>,
        out: BTreeMap<String, String>,
    }
    impl Probe for P {
        fn visit_start_scope(&mut self, _n: &str, _b: &dyn Block) {
            self.depth += 1;
        }
        fn visit_start_namespace(&mut self, n: &str, _b: &dyn Block) {
            if self.depth == 1 {
                self.ns.push(n.replace('$', "."));
            }
        }
        fn visit_atom(&mut self, n: &str, a: &dyn Atom) {
            if self.depth == 1 && a.kind() == AtomKind::OutputParameter {
                let mut path: Vec<&str> = self.ns.iter().filter(|s| !s.starts_with("__")).map(|s| s.as_str()).collect();
                path.push(n);
                self.out.insert(path.join("."), a.verilog().to_string());
            }
        }
        fn visit_end_namespace(&mut self, _n: &str, _b: &dyn Block) {
            if self.depth == 1 {
                self.ns.pop();
            }
        }
        fn visit_end_scope(&mut self, _n: &str, _b: &dyn Block) {
            self.depth -= 1;
        }
    }
    let mut p = P { depth: 0, ns: vec![], out: BTreeMap::new() };
    b.accept("top", &mut p);
    p.out
}

#[derive(Debug)]
pub struct Mismatch {
    pub cycle: usize,
    pub port: &'static str,
    pub rust_hdl: Vec<u32>,
    pub verilog: Vec<u32>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = |w: &[u32]| w.iter().rev().map(|x| format!("{x:08x}")).collect::<Vec<_>>().join("_");
        write!(
            f,
            "cycle {}: output `{}` is {} in rust-hdl but {} in Verilog",
            self.cycle,
            self.port,
            hex(&self.rust_hdl),
            hex(&self.verilog)
        )
    }
}

/// Inputs for one cycle: one word vector per input port (clock excluded), in
/// port order. Values are masked to the port width; `reset` is forced high
/// in the first two cycles and otherwise high only when its random word's low
/// four bits are zero, so designs spend most of the run out of reset.
pub type CycleInputs = Vec<Vec<u32>>;

/// Run `stimulus` through both simulators; `Ok(cycles)` or the first mismatch.
pub fn run<M: Model, B: Block>(
    dut: &mut M,
    blk: &mut B,
    set: fn(&mut B, usize, &[u32]),
    stimulus: &[CycleInputs],
) -> Result<usize, Mismatch> {
    let ports = dut.ports();
    let clock = ports.iter().position(|p| p.is_clock);
    let inputs: Vec<usize> = ports
        .iter()
        .enumerate()
        .filter(|(_, p)| p.dir == PortDir::In && !p.is_clock)
        .map(|(i, _)| i)
        .collect();
    let outputs: Vec<usize> =
        ports.iter().enumerate().filter(|(_, p)| p.dir == PortDir::Out).map(|(i, _)| i).collect();
    let edge = |dut: &mut M, blk: &mut B, level: u32| {
        if let Some(c) = clock {
            dut.set_words(c, &[level]);
            dut.eval();
            set(blk, c, &[level]);
            assert!(simulate(blk, 10_000), "rust-hdl simulation did not settle");
        }
    };
    edge(dut, blk, 0);
    for (cycle, vals) in stimulus.iter().enumerate() {
        for (k, &i) in inputs.iter().enumerate() {
            let p = &ports[i];
            let mut w = vals.get(k).cloned().unwrap_or_default();
            w.resize(p.words(), 0);
            if p.rust_path == "reset" {
                w[0] = u32::from(cycle < 2 || w[0] & 0xf == 0);
            }
            mask_words(&mut w, p.width);
            dut.set_words(i, &w);
            set(blk, i, &w);
        }
        dut.eval();
        assert!(simulate(blk, 10_000), "rust-hdl simulation did not settle");
        let rh = rhdl_outputs(blk);
        for &i in &outputs {
            let p = &ports[i];
            let mut v = vec![0u32; p.words()];
            dut.get_words(i, &mut v);
            let lit = rh.get(p.rust_path).unwrap_or_else(|| panic!("rust-hdl has no output {}", p.rust_path));
            let r = literal_to_words(lit, p.words());
            if r != v {
                return Err(Mismatch { cycle, port: p.name, rust_hdl: r, verilog: v });
            }
        }
        edge(dut, blk, 1);
        edge(dut, blk, 0);
    }
    Ok(stimulus.len())
}
