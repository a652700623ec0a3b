//! Why the project has its own emitter: on each pattern below, the Verilog
//! from rust-hdl's stock `generate_verilog` computes something other than
//! rust-hdl's simulation of the same code, while hdl-emit's Verilog agrees.

use rnic_sim::diff::rhdl_outputs;
use rnic_sim::models::{sem_patterns, stock_sem_patterns};
use rnic_sim::words::literal_to_words;
use rnic_sim::Model;
use rust_hdl::prelude::*;

/// Input values by port name.
type Inputs = &'static [(&'static str, u64)];

/// (output, inputs, what Rust says)
const CASES: &[(&str, Inputs, u64)] = &[
    ("wrap_eq", &[("a", 255)], 1),
    ("sum9", &[("a", 1), ("b", 255)], 0),
    ("shl_shr", &[("a", 16)], 0),
    ("psn_before", &[("psn_a", 0), ("psn_b", 0xff_ffff)], 1),
    ("band_eq", &[("a", 2), ("b", 3), ("c", 2)], 1),
];

fn drive<M: Model>(m: &mut M, inputs: &[(&str, u64)]) {
    for p in m.ports().iter().filter(|p| p.dir == rnic_sim::PortDir::In) {
        let v = inputs.iter().find(|(n, _)| *n == p.rust_path).map(|x| x.1).unwrap_or(0);
        m.set(p.rust_path, v);
    }
    m.eval();
}

#[test]
fn stock_output_disagrees_hdl_emit_agrees() {
    for (out, inputs, rust_value) in CASES {
        let mut blk = rnic_sim::rhdl::sem_patterns::Block::default();
        blk.connect_all();
        let mut ours = sem_patterns::Dut::new();
        let mut stock = stock_sem_patterns::Dut::new();
        drive(&mut ours, inputs);
        drive(&mut stock, inputs);
        for (i, p) in sem_patterns::PORTS.iter().enumerate().filter(|(_, p)| p.dir == rnic_sim::PortDir::In) {
            let v = inputs.iter().find(|(n, _)| *n == p.rust_path).map(|x| x.1).unwrap_or(0);
            rnic_sim::rhdl::sem_patterns::set_input(&mut blk, i, &[v as u32, (v >> 32) as u32]);
        }
        assert!(simulate(&mut blk, 1000));
        let rh = literal_to_words(&rhdl_outputs(&blk)[*out], 2);
        let rh = rh[0] as u64 | ((rh[1] as u64) << 32);
        assert_eq!(rh, *rust_value, "{out}: rust-hdl simulation");
        assert_eq!(ours.get(out), rh, "{out}: hdl-emit Verilog must agree with rust-hdl");
        assert_ne!(stock.get(out), rh, "{out}: the stock Verilog was expected to disagree");
        eprintln!(
            "{out:>13} {inputs:?}: rust-hdl {rh}, hdl-emit {}, stock generate_verilog {}",
            ours.get(out),
            stock.get(out)
        );
    }
}
