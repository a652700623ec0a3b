//! `make bench`: every benchmark of the project. Figures go to stdout and
//! into docs/benchmarks.md with the command that measured them.
//!
//! 1. Harness speed: simulated cycles per second of the Verilator model of
//!    a 20-stage 512-bit skid-buffer pipeline (about 23k flip-flops).

use rnic_sim::axis::{random_packets, Rng, StreamBench};
use rnic_sim::models::axis_pipeline;
use rnic_sim::{Clocked, Model};
use std::time::Instant;

fn main() {
    let entry = rnic_hw::catalog::find("axis_pipeline").unwrap();
    let flops = rnic_hw::prim::flop_count(&*(entry.make)());
    let cycles: u64 = std::env::var("BENCH_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);

    // a) full testbench work per cycle: drive a 512-bit beat, read and check one
    let mut rng = Rng(1);
    let mut tb = StreamBench::new(axis_pipeline::Dut::new());
    tb.queue(random_packets(&mut rng, cycles as usize, 64));
    let t = Instant::now();
    for _ in 0..cycles {
        tb.cycle(&mut rng, 100, 100);
    }
    let checked = cycles as f64 / t.elapsed().as_secs_f64();

    // b) clock only (inputs held): the model's own speed
    let mut m = Clocked::new(axis_pipeline::Dut::new());
    m.reset(2);
    let v = m.dut.port("s_axis.tvalid");
    let r = m.dut.port("m_axis.tready");
    m.dut.set_words(v, &[1]);
    m.dut.set_words(r, &[1]);
    let t = Instant::now();
    m.ticks(cycles);
    let free = cycles as f64 / t.elapsed().as_secs_f64();

    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| "unknown CPU".into());
    let ver = std::process::Command::new("verilator").arg("--version").output().ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    let table = format!(
        "| design | flip-flops | per cycle | cycles/s |\n|---|---|---|---|\n\
         | axis_pipeline (20 x 512-bit skid buffer) | {flops} | drive + check one beat (scoreboard) | {checked:.0} |\n\
         | axis_pipeline | {flops} | clock only | {free:.0} |\n\n\
         Measured with `make bench` (release build, {cycles} cycles each) on {cpu}, {ver}, single thread.\n"
    );
    println!("## Harness speed\n\n{table}");
    record("harness-speed", &table);
}

/// Replace the section between `<!-- bench:NAME -->` markers in docs/benchmarks.md.
fn record(name: &str, body: &str) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/benchmarks.md");
    let doc = std::fs::read_to_string(path).unwrap_or_else(|_| "# Benchmarks\n".into());
    let (open, close) = (format!("<!-- bench:{name} -->"), format!("<!-- /bench:{name} -->"));
    let section = format!("{open}\n{body}{close}");
    let new = match (doc.find(&open), doc.find(&close)) {
        (Some(a), Some(b)) => format!("{}{}{}", &doc[..a], section, &doc[b + close.len()..]),
        _ => format!("{}\n{}\n", doc.trim_end(), section),
    };
    std::fs::write(path, new).expect("cannot write docs/benchmarks.md");
    println!("recorded in docs/benchmarks.md");
}
