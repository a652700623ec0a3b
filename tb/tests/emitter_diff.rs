//! The emitter's proof: every catalog block behaves identically in rust-hdl's
//! simulator and as emitted Verilog under Verilator, every output compared at
//! every cycle, on two kinds of stimulus:
//!
//! * random input words (proptest), for every block;
//! * protocol-aware stimulus (`tb/src/diff_stim.rs`) for the blocks whose
//!   interesting states random words never reach: real frames through the
//!   parser, packets through the builder, DMA transfers answered by the host
//!   model, register scripts, contexts and doorbells through the host
//!   engines. Each such run must reach its states (frames out with a good
//!   ICRC, completions delivered, CQEs written...) or the test fails.
//!
//! Both sides must have the same ports (path, direction, width): a port only
//! one side has fails the test by name. `DIFF_CASES` sets the number of
//! random cases per block (default 24); 0 is refused, and a block with no
//! compared cycle fails.

use rnic_tb::diff_stim as stim;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rnic_sim::diff::{self, CycleInputs, Pair};
use rnic_sim::{Model, PortDir};
use rust_hdl::prelude::*;

/// `DIFF_CASES` as given (`None`: unset).
fn parse_cases(v: Option<&str>) -> Result<u32, String> {
    match v {
        None => Ok(24),
        Some(s) => match s.trim().parse::<u32>() {
            Ok(0) => Err("DIFF_CASES=0 would compare nothing".into()),
            Ok(n) => Ok(n),
            Err(_) => Err(format!("DIFF_CASES={s:?} is not a positive number")),
        },
    }
}

fn cases() -> u32 {
    parse_cases(std::env::var("DIFF_CASES").ok().as_deref()).unwrap_or_else(|e| panic!("{e}"))
}

/// Keeps each block's summary (cycles compared, states reached) in
/// `target/tmp/emitter_diff/<block>.txt`, since a passing test's output is
/// captured.
fn record(name: &str, report: &str) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("emitter_diff");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.txt")), report).unwrap();
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

/// One catalog block's differential test. The block's types appear only in
/// `fresh` (a closure that builds the pair): everything here is compiled
/// once, not once per block (docs/ci.md, "The differential test compiled once").
fn diff_block(name: &'static str, fresh: &dyn Fn() -> Pair) {
    let t0 = std::time::Instant::now();
    // protocol-aware stimulus, for the blocks that have a driver
    let mut proto_cycles = 0;
    let mut reached = vec![];
    let mut pair = fresh();
    if let Some(r) = stim::protocol(name, &mut pair) {
        let r = r.unwrap_or_else(|m| panic!("{name}: Verilog and rust-hdl disagree under protocol stimulus: {m}"));
        pair.tick().unwrap_or_else(|m| panic!("{name}: Verilog and rust-hdl disagree under protocol stimulus: {m}"));
        proto_cycles = pair.compared();
        for x in &r {
            assert!(
                x.got >= x.min,
                "{name}: the protocol stimulus reached {} {} (at least {} required)",
                x.got,
                x.what,
                x.min
            );
        }
        reached = r;
    }
    let t1 = std::time::Instant::now();
    // random words
    let entry = rnic_hw::catalog::find(name).unwrap();
    let words = input_words(pair.ports());
    let total: usize = words.iter().sum();
    let cycles = entry.diff_cycles;
    let strat = prop::collection::vec(prop::collection::vec(any::<u32>(), total), (cycles / 2).max(1)..=cycles);
    let mut runner = TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
    let ran = std::cell::Cell::new(0usize);
    let result = runner.run(&strat, |flat| {
        let stim = split(&flat, &words);
        let n = diff::run(fresh(), &stim).map_err(|m| TestCaseError::fail(m.to_string()))?;
        ran.set(ran.get() + n);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: Verilog and rust-hdl disagree: {e}");
    }
    let ran = ran.get();
    assert!(ran >= cases() as usize * (cycles / 2).max(1), "{name}: too few random cycles compared: {ran}");
    assert!(ran + proto_cycles > 0, "{name}: no cycle compared");
    let t2 = std::time::Instant::now();
    let mut report = format!(
        "{name}: {ran} random cycles ({} cases, {:.1} s) and {proto_cycles} protocol cycles ({:.1} s) identical, {} ports compared\n",
        cases(),
        (t2 - t1).as_secs_f64(),
        (t1 - t0).as_secs_f64(),
        pair.ports().len(),
    );
    for x in &reached {
        report.push_str(&format!("{name}:     {} {}\n", x.got, x.what));
    }
    eprint!("{report}");
    record(name, &report);
}

/// Runs `f` on a thread with room for the wide blocks (large values on the stack).
fn with_stack(f: fn()) {
    let t = std::thread::Builder::new().stack_size(256 << 20).spawn(f).unwrap();
    t.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
}

macro_rules! diff_test {
    ($name:ident, $dut:ty, $blk:ty, $set:path) => {
        #[test]
        fn $name() {
            with_stack(|| {
                diff_block(stringify!($name), &|| {
                    let mut blk = <$blk>::default();
                    blk.connect_all();
                    Pair::new(<$dut>::new(), blk, $set)
                        .unwrap_or_else(|e| panic!("{}: port sets differ: {e}", stringify!($name)))
                })
            });
        }
    };
}

rnic_sim::for_each_model!(diff_test);

/// The comparison itself must be able to fail: a model whose outputs are
/// forced to differ from the Rust side is reported at the first cycle.
#[test]
fn diff_detects_a_mismatch() {
    let dut = rnic_sim::models::sem_patterns::Dut::new();
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
    let err =
        diff::run(Pair::new(dut, blk, set_a_zero).unwrap(), &stim).expect_err("a forced difference must be caught");
    assert_eq!(err.cycle, 0);
}

/// A port only one side has, or has with another width or direction, is
/// named; equal sets pass.
#[test]
fn port_set_differences_are_named() {
    // `host_if`'s rust-hdl block (two caches, `MrXlate`) is built on the
    // stack: more than a test thread's 2 MiB, as the cases below need
    with_stack(port_set_differences_body);
}

fn port_set_differences_body() {
    let mut blk = rnic_sim::rhdl::host_if::Block::default();
    blk.connect_all();
    let rh = diff::rhdl_ports(&blk);
    let model = rnic_sim::models::host_if::PORTS;
    diff::check_port_sets(model, &rh).expect("host_if: both sides have the same ports");
    assert_eq!(rh.len(), model.len());

    let missing: Vec<_> = rh.iter().filter(|p| p.path != "m_work.qpn").cloned().collect();
    let e = diff::check_port_sets(model, &missing).unwrap_err();
    assert!(e.contains("`m_work.qpn`") && e.contains("not in rust-hdl"), "{e}");

    let mut extra = rh.clone();
    extra.push(diff::RhdlPort { path: "m_ghost.tdata".into(), input: false, width: 8 });
    let e = diff::check_port_sets(model, &extra).unwrap_err();
    assert!(e.contains("`m_ghost.tdata`") && e.contains("not in the Verilog"), "{e}");

    let mut wider = rh.clone();
    wider.iter_mut().find(|p| p.path == "s_cqe.cqn").unwrap().width += 1;
    let e = diff::check_port_sets(model, &wider).unwrap_err();
    assert!(e.contains("`s_cqe.cqn`"), "{e}");

    let mut flipped = rh;
    flipped.iter_mut().find(|p| p.path == "enable").unwrap().input = true;
    let e = diff::check_port_sets(model, &flipped).unwrap_err();
    assert!(e.contains("`enable`"), "{e}");
}

/// `DIFF_CASES=0` is refused, not a pass that compares nothing.
#[test]
fn zero_cases_is_an_error() {
    assert_eq!(parse_cases(None), Ok(24));
    assert_eq!(parse_cases(Some("3")), Ok(3));
    assert!(parse_cases(Some("0")).unwrap_err().contains("compare nothing"));
    assert!(parse_cases(Some("many")).is_err());
}

/// A protocol run whose outputs differ fails at the cycle they differ: the
/// receive parser's Rust side sees every input word but `s_axis.tvalid` held
/// low, so its counters never move while the Verilog's do.
#[test]
fn protocol_stimulus_catches_a_difference() {
    type B = rnic_sim::rhdl::rx_parse::Block;
    fn set_no_valid(b: &mut B, idx: usize, w: &[u32]) {
        let v = rnic_sim::models::rx_parse::PORTS.iter().position(|p| p.rust_path == "s_axis.tvalid").unwrap();
        rnic_sim::rhdl::rx_parse::set_input(b, idx, if idx == v { &[0] } else { w });
    }
    let mut blk = B::default();
    blk.connect_all();
    let mut pair = Pair::new(rnic_sim::models::rx_parse::Dut::new(), blk, set_no_valid).unwrap();
    let err = stim::protocol("rx_parse", &mut pair).unwrap().expect_err("the difference must be caught");
    assert!(err.cycle > 0, "{err}");
}

/// Stimulus that degrades into nothing fails: with `s_axil.awvalid` and
/// `s_axil.arvalid` stuck low on both sides, the register file's script
/// cannot move and the driver reports it, though both sides agree.
#[test]
#[should_panic(expected = "register script stuck")]
fn degraded_stimulus_fails() {
    type B = rnic_sim::rhdl::reg_file::Block;
    const STUCK: [&str; 2] = ["s_axil.awvalid", "s_axil.arvalid"];
    fn stuck(idx: usize) -> bool {
        STUCK.contains(&rnic_sim::models::reg_file::PORTS[idx].rust_path)
    }
    fn set_stuck(b: &mut B, idx: usize, w: &[u32]) {
        rnic_sim::rhdl::reg_file::set_input(b, idx, if stuck(idx) { &[0] } else { w });
    }
    /// The Verilog side with the same inputs stuck.
    struct Stuck(rnic_sim::models::reg_file::Dut);
    impl Model for Stuck {
        fn ports(&self) -> &'static [rnic_sim::PortInfo] {
            self.0.ports()
        }
        fn eval(&mut self) {
            self.0.eval()
        }
        fn set_words(&mut self, idx: usize, w: &[u32]) {
            self.0.set_words(idx, if stuck(idx) { &[0] } else { w })
        }
        fn get_words(&self, idx: usize, w: &mut [u32]) {
            self.0.get_words(idx, w)
        }
    }
    let mut blk = B::default();
    blk.connect_all();
    let mut pair = Pair::new(Stuck(rnic_sim::models::reg_file::Dut::new()), blk, set_stuck).unwrap();
    let _ = stim::protocol("reg_file", &mut pair).unwrap();
}
