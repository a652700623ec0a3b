//! The emitter's proof: every catalog block, driven with random inputs
//! (proptest), behaves identically in rust-hdl's simulator and as emitted
//! Verilog under Verilator, output by output, cycle by cycle.
//!
//! `DIFF_CASES` sets the number of random cases per block (default 24).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rnic_sim::diff::{self, CycleInputs};
use rnic_sim::{Model, PortDir};
use rust_hdl::prelude::*;

fn cases() -> u32 {
    std::env::var("DIFF_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24)
}

/// Input word counts per non-clock input port.
fn input_words(ports: &[rnic_sim::PortInfo]) -> Vec<usize> {
    ports.iter().filter(|p| p.dir == PortDir::In && !p.is_clock).map(|p| p.words()).collect()
}

fn split(flat: &[Vec<u32>], words: &[usize]) -> Vec<CycleInputs> {
    flat.iter()
        .map(|cyc| {
            let mut at = 0;
            words
                .iter()
                .map(|&n| {
                    let v = cyc[at..at + n].to_vec();
                    at += n;
                    v
                })
                .collect()
        })
        .collect()
}

macro_rules! diff_test {
    ($name:ident, $dut:ty, $blk:ty, $set:path) => {
        #[test]
        fn $name() {
            let entry = rnic_hw::catalog::find(stringify!($name)).unwrap();
            let words = input_words(rnic_sim::models::$name::PORTS);
            let total: usize = words.iter().sum();
            let cycles = entry.diff_cycles;
            let strat = prop::collection::vec(prop::collection::vec(any::<u32>(), total), (cycles / 2).max(1)..=cycles);
            let mut runner = TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
            let ran = std::cell::Cell::new(0usize);
            let result = runner.run(&strat, |flat| {
                let stim = split(&flat, &words);
                let mut dut = <$dut>::new();
                let mut blk = <$blk>::default();
                blk.connect_all();
                let n = diff::run(&mut dut, &mut blk, $set, &stim).map_err(|m| TestCaseError::fail(m.to_string()))?;
                ran.set(ran.get() + n);
                Ok(())
            });
            if let Err(e) = result {
                panic!("{}: Verilog and rust-hdl disagree: {e}", stringify!($name));
            }
            let ran = ran.get();
            assert!(ran >= cases() as usize * (cycles / 2).max(1), "too few cycles compared: {ran}");
            eprintln!("{}: {} cycles identical over {} random cases", stringify!($name), ran, cases());
        }
    };
}

rnic_sim::for_each_model!(diff_test);

/// The comparison itself must be able to fail: a model whose outputs are
/// forced to differ from the Rust side is reported at the first cycle.
#[test]
fn diff_detects_a_mismatch() {
    let mut dut = rnic_sim::models::sem_patterns::Dut::new();
    let mut blk = rnic_sim::rhdl::sem_patterns::Block::default();
    blk.connect_all();
    // drive the Rust side with `a` = 0 and the Verilog side with `a` = 255
    fn set_a_zero(b: &mut rnic_sim::rhdl::sem_patterns::Block, idx: usize, w: &[u32]) {
        let a = rnic_sim::models::sem_patterns::PORTS.iter().position(|p| p.rust_path == "a").unwrap();
        if idx == a {
            rnic_sim::rhdl::sem_patterns::set_input(b, idx, &[0]);
        } else {
            rnic_sim::rhdl::sem_patterns::set_input(b, idx, w);
        }
    }
    let words = input_words(rnic_sim::models::sem_patterns::PORTS);
    let stim: Vec<CycleInputs> = (0..4).map(|_| words.iter().map(|&n| vec![0xff; n]).collect()).collect();
    let err = diff::run(&mut dut, &mut blk, set_a_zero, &stim).expect_err("a forced difference must be caught");
    assert_eq!(err.cycle, 0);
    let _ = dut.ports();
}
