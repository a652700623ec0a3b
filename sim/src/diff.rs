//! Differential simulation: the Verilated model of a block against rust-hdl's
//! own simulation of the same Rust code, cycle by cycle, on the same inputs.
//! The first output that differs is a bug in the emitter (or in a hand-written
//! primitive's Verilog).
//!
//! [`Pair`] holds both simulations behind the ordinary [`Model`] interface:
//! a write to an input port goes to both, `eval` settles both and compares
//! every output, a read returns rust-hdl's value. Any driver written against
//! [`Model`] (the bus-functional models in [`crate::axis`], the host behind
//! [`crate::dma_port`], the protocol drivers of the differential test) drives
//! both sides at once, and reacts to what the rust-hdl side asked for.

use crate::model::{Model, PortDir, PortInfo};
use crate::words::{literal_to_words, mask_words};
use rust_hdl::core::atom::{Atom, AtomKind};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;
use std::fmt;

/// A top-level port of a rust-hdl block, as its probe sees it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RhdlPort {
    /// Rust field path (`m_axis.tdata`, `s_rd.0.addr`).
    pub path: String,
    pub input: bool,
    pub width: usize,
}

/// Walks the top level of a block (not its children): every port, in visit
/// order, and the value of each output as a Verilog literal.
struct TopProbe {
    depth: usize,
    ns: Vec<String>,
    ports: Vec<RhdlPort>,
    /// Output literals in visit order (only when `values` is set).
    values: Option<Vec<String>>,
}

impl TopProbe {
    fn new(values: bool) -> Self {
        TopProbe { depth: 0, ns: vec![], ports: vec![], values: values.then(Vec::new) }
    }
}

impl Probe for TopProbe {
    fn visit_start_scope(&mut self, _n: &str, _b: &dyn Block) {
        self.depth += 1;
    }
    fn visit_start_namespace(&mut self, n: &str, _b: &dyn Block) {
        if self.depth == 1 {
            self.ns.push(n.replace('$', "."));
        }
    }
    fn visit_atom(&mut self, n: &str, a: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let input = match a.kind() {
            AtomKind::InputParameter => true,
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => false,
            AtomKind::InOutParameter => panic!("rust-hdl port `{n}` is inout: the harness has no inout ports"),
            _ => return,
        };
        match &mut self.values {
            Some(v) if !input => v.push(a.verilog().to_string()),
            Some(_) => {}
            None => {
                let mut path: Vec<String> = self.ns.iter().filter(|s| !s.starts_with("__")).cloned().collect();
                path.push(n.replace('$', "."));
                self.ports.push(RhdlPort { path: path.join("."), input, width: a.bits() });
            }
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

/// Every top-level port of a rust-hdl block, in the probe's visit order.
pub fn rhdl_ports(b: &dyn Block) -> Vec<RhdlPort> {
    let mut p = TopProbe::new(false);
    b.accept("top", &mut p);
    p.ports
}

/// Output values of a rust-hdl block, by Rust field path (`m_axis.tdata`).
pub fn rhdl_outputs(b: &dyn Block) -> BTreeMap<String, String> {
    let names = rhdl_ports(b).into_iter().filter(|p| !p.input).map(|p| p.path);
    let mut p = TopProbe::new(true);
    b.accept("top", &mut p);
    names.zip(p.values.unwrap()).collect()
}

/// The two sides' port lists must be the same set: same paths, directions
/// and widths. `Err` names every port only one side has (or has differently).
pub fn check_port_sets(model: &[PortInfo], rhdl: &[RhdlPort]) -> Result<(), String> {
    let m: BTreeMap<&str, (bool, usize)> =
        model.iter().map(|p| (p.rust_path, (p.dir == PortDir::In, p.width))).collect();
    let r: BTreeMap<&str, (bool, usize)> = rhdl.iter().map(|p| (p.path.as_str(), (p.input, p.width))).collect();
    let dir = |input: bool| if input { "input" } else { "output" };
    let mut diffs = vec![];
    if m.len() != model.len() {
        diffs.push("the Verilog model lists a port twice".to_string());
    }
    if r.len() != rhdl.len() {
        diffs.push("rust-hdl lists a port twice".to_string());
    }
    for (name, &(i, w)) in &m {
        match r.get(name) {
            None => diffs.push(format!("{} `{name}` ({w} bits) is in the Verilog but not in rust-hdl", dir(i))),
            Some(&(ri, rw)) if (ri, rw) != (i, w) => diffs.push(format!(
                "`{name}` is a {w}-bit {} in the Verilog but a {rw}-bit {} in rust-hdl",
                dir(i),
                dir(ri)
            )),
            _ => {}
        }
    }
    for (name, &(i, w)) in &r {
        if !m.contains_key(name) {
            diffs.push(format!("{} `{name}` ({w} bits) is in rust-hdl but not in the Verilog", dir(i)));
        }
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(diffs.join("; "))
    }
}

#[derive(Debug, Clone)]
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

/// The rust-hdl side of a [`Pair`]: the block and the generated function
/// that drives its inputs by port index, behind one object, so the pair and
/// everything that drives it are compiled once rather than once per block
/// type (the differential test covers every catalog block; docs/ci.md).
trait Driven {
    fn block(&self) -> &dyn Block;
    fn block_mut(&mut self) -> &mut dyn Block;
    fn set(&mut self, idx: usize, w: &[u32]);
}

struct Typed<B: Block> {
    blk: B,
    set: fn(&mut B, usize, &[u32]),
}

impl<B: Block> Driven for Typed<B> {
    fn block(&self) -> &dyn Block {
        &self.blk
    }
    fn block_mut(&mut self) -> &mut dyn Block {
        &mut self.blk
    }
    fn set(&mut self, idx: usize, w: &[u32]) {
        (self.set)(&mut self.blk, idx, w)
    }
}

/// rust-hdl's `simulate` for a block behind a reference: update until nothing changes.
fn settle_block(b: &mut dyn Block, max_iters: usize) -> bool {
    for _ in 0..max_iters {
        b.update_all();
        if !b.has_changed() {
            return true;
        }
    }
    false
}

/// A block simulated twice, as Verilog (Verilator) and in rust-hdl, behind
/// one [`Model`]. Inputs go to both sides; [`Model::eval`] settles both and
/// compares every output; reads return the rust-hdl side's values. The
/// first difference is kept and returned by [`Pair::tick`].
pub struct Pair {
    dut: Box<dyn Model>,
    blk: Box<dyn Driven>,
    ports: &'static [PortInfo],
    /// Every clock port: a block with two clocks (the MAC boundary FIFOs)
    /// has both toggled together, in lock-step.
    clocks: Vec<usize>,
    /// For each output (model index), its position among rust-hdl's outputs in visit order.
    outputs: Vec<(usize, usize)>,
    /// Per port: the input last driven, or the output rust-hdl showed at the last eval.
    values: Vec<Vec<u32>>,
    dirty: bool,
    cycle: usize,
    compared_at: Option<usize>,
    compared: usize,
    mismatch: Option<Mismatch>,
}

impl Pair {
    /// Both sides with every input at 0 and the clock low. `Err` if the port
    /// sets differ (see [`check_port_sets`]). `set` drives input `idx` of the
    /// block (the generated `rnic_sim::rhdl::<name>::set_input`).
    pub fn new<M: Model + 'static, B: Block + 'static>(
        dut: M,
        blk: B,
        set: fn(&mut B, usize, &[u32]),
    ) -> Result<Self, String> {
        Self::boxed(Box::new(dut), Box::new(Typed { blk, set }))
    }

    fn boxed(mut dut: Box<dyn Model>, mut blk: Box<dyn Driven>) -> Result<Self, String> {
        let ports = dut.ports();
        let rh = rhdl_ports(blk.block());
        check_port_sets(ports, &rh)?;
        let rh_outs: Vec<&str> = rh.iter().filter(|p| !p.input).map(|p| p.path.as_str()).collect();
        let outputs = ports
            .iter()
            .enumerate()
            .filter(|(_, p)| p.dir == PortDir::Out)
            .map(|(i, p)| (i, rh_outs.iter().position(|n| *n == p.rust_path).unwrap()))
            .collect();
        for (i, p) in ports.iter().enumerate().filter(|(_, p)| p.dir == PortDir::In) {
            let z = vec![0; p.words()];
            dut.set_words(i, &z);
            blk.set(i, &z);
        }
        Ok(Pair {
            dut,
            blk,
            ports,
            clocks: ports.iter().enumerate().filter(|(_, p)| p.is_clock).map(|(i, _)| i).collect(),
            outputs,
            values: ports.iter().map(|p| vec![0; p.words()]).collect(),
            dirty: true,
            cycle: 0,
            compared_at: None,
            compared: 0,
            mismatch: None,
        })
    }

    /// Cycles whose outputs were compared.
    pub fn compared(&self) -> usize {
        self.compared
    }

    /// Clock cycles run so far.
    pub fn cycle(&self) -> usize {
        self.cycle
    }

    /// The first difference seen so far.
    pub fn mismatch(&self) -> Option<&Mismatch> {
        self.mismatch.as_ref()
    }

    fn settle(&mut self) {
        self.dut.eval();
        assert!(settle_block(self.blk.block_mut(), 10_000), "rust-hdl simulation did not settle");
    }

    /// Compare the outputs now (after `eval`) if not done since the inputs
    /// changed, then one clock cycle on both sides (rising and falling
    /// edge; every clock port at once). `Err` with the first difference seen, at any cycle so far.
    pub fn tick(&mut self) -> Result<(), Mismatch> {
        if self.dirty || self.compared_at != Some(self.cycle) {
            self.eval();
        }
        if let Some(m) = &self.mismatch {
            return Err(m.clone());
        }
        if !self.clocks.is_empty() {
            for level in [1, 0] {
                for &c in &self.clocks {
                    self.dut.set_words(c, &[level]);
                    self.blk.set(c, &[level]);
                }
                self.settle();
            }
        }
        self.cycle += 1;
        self.dirty = true;
        Ok(())
    }
}

impl Model for Pair {
    fn ports(&self) -> &'static [PortInfo] {
        self.ports
    }

    /// Settle both sides and compare every output.
    fn eval(&mut self) {
        self.settle();
        let mut probe = TopProbe::new(true);
        self.blk.block().accept("top", &mut probe);
        let lits = probe.values.unwrap();
        for &(i, k) in &self.outputs {
            let p = &self.ports[i];
            let mut v = vec![0u32; p.words()];
            self.dut.get_words(i, &mut v);
            let r = literal_to_words(&lits[k], p.words());
            if r != v && self.mismatch.is_none() {
                self.mismatch = Some(Mismatch { cycle: self.cycle, port: p.name, rust_hdl: r.clone(), verilog: v });
            }
            self.values[i] = r;
        }
        if self.compared_at != Some(self.cycle) {
            self.compared += 1;
            self.compared_at = Some(self.cycle);
        }
        self.dirty = false;
    }

    fn set_words(&mut self, idx: usize, w: &[u32]) {
        let p = &self.ports[idx];
        assert!(p.dir == PortDir::In, "`{}` is an output", p.rust_path);
        assert!(!p.is_clock, "the clock is the pair's own: use tick()");
        let mut v = w.to_vec();
        v.resize(p.words(), 0);
        mask_words(&mut v, p.width);
        if v != self.values[idx] {
            self.dut.set_words(idx, &v);
            self.blk.set(idx, &v);
            self.values[idx] = v;
            self.dirty = true;
        }
    }

    fn get_words(&self, idx: usize, w: &mut [u32]) {
        let v = &self.values[idx];
        w[..v.len()].copy_from_slice(v);
    }
}

/// Inputs for one cycle: one word vector per input port (clock excluded), in
/// port order. Values are masked to the port width; `reset` is forced high
/// in the first two cycles and otherwise high only when its random word's low
/// four bits are zero, so designs spend most of the run out of reset.
pub type CycleInputs = Vec<Vec<u32>>;

/// Run `stimulus` through both simulators; `Ok(cycles compared)` or the
/// first mismatch.
pub fn run(mut pair: Pair, stimulus: &[CycleInputs]) -> Result<usize, Mismatch> {
    let ports = pair.ports();
    let inputs: Vec<usize> =
        ports.iter().enumerate().filter(|(_, p)| p.dir == PortDir::In && !p.is_clock).map(|(i, _)| i).collect();
    for (cycle, vals) in stimulus.iter().enumerate() {
        for (k, &i) in inputs.iter().enumerate() {
            let mut w = vals.get(k).cloned().unwrap_or_default();
            w.resize(ports[i].words(), 0);
            if ports[i].rust_path == "reset" {
                w[0] = u32::from(cycle < 2 || w[0] & 0xf == 0);
            }
            pair.set_words(i, &w);
        }
        pair.eval();
        pair.tick()?;
    }
    Ok(pair.compared())
}
