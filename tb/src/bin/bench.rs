//! `make bench`: every benchmark of the project. Figures go to stdout and
//! into docs/benchmarks.md with the command that measured them.
//!
//! 1. Harness speed: simulated cycles per second of the Verilator model of
//!    a 20-stage 512-bit skid-buffer pipeline (about 23k flip-flops).
//! 2. DMA engine bandwidth, 256 B to 64 KiB transfers, read and write,
//!    against the PCIe link model's limit; and idle read latency. These are
//!    cycle counts of the generated Verilog: the same on every machine.

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
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let ver = std::process::Command::new("verilator")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let table = format!(
        "| design | flip-flops | per cycle | cycles/s |\n|---|---|---|---|\n\
         | axis_pipeline (20 x 512-bit skid buffer) | {flops} | drive + check one beat (scoreboard) | {checked:.0} |\n\
         | axis_pipeline | {flops} | clock only | {free:.0} |\n\n\
         Measured with `make bench` (release build, {cycles} cycles each) on {cpu}, {ver}, single thread.\n"
    );
    println!("## Harness speed\n\n{table}");
    record("harness-speed", &table);

    dma_bandwidth();
}

fn dma_bandwidth() {
    use rnic_tb::dma::{bandwidth, read_latency};
    let link = rnic_host::PcieConfig::gen3_x16();
    let mut table = String::from(
        "| transfer | read B/cycle | read % of link | write B/cycle | write % of link |\n|---|---|---|---|---|\n",
    );
    for size in [256u64, 512, 1024, 2048, 4096, 8192, 16384, 65536] {
        let total = (1u64 << 20).max(size * 16);
        let r = bandwidth(true, size, total);
        let w = bandwidth(false, size, total);
        let name = if size >= 1024 { format!("{} KiB", size / 1024) } else { format!("{size} B") };
        table.push_str(&format!(
            "| {name} | {:.1} | {:.1} % | {:.1} | {:.1} % |\n",
            r.bytes as f64 / r.cycles as f64,
            r.fraction * 100.0,
            w.bytes as f64 / w.cycles as f64,
            w.fraction * 100.0
        ));
    }
    let lat64 = read_latency(64);
    let lat4k = read_latency(4096);
    table.push_str(&format!(
        "\nLink model: PCIe Gen3 x16 as `rnic_host::PcieConfig::gen3_x16()`: {} B/cycle each way \
         ({:.1} GB/s at 250 MHz), {}-cycle read round trip, {} B completions; the engine with its defaults \
         (512 B read requests, 256 B payloads, {} read tags of which one client holds at most \
         `DMA_RD_TAGS_PER_CLIENT` = {}). Each row moves 1 MiB in back-to-back \
         transfers of that size on one client; the figure runs from the first command to the last byte \
         delivered (reads) or the last write completion (writes). Idle read latency, command to last \
         byte: 64 B {lat64} cycles, 4 KiB {lat4k} cycles (round trip {}). Cycle counts of the generated \
         Verilog, identical on any machine; `tb/tests/dma_engine.rs` asserts at least 95 % from 4 KiB up.\n",
        link.read_bytes_per_cycle,
        link.read_bytes_per_cycle as f64 * 0.25,
        link.read_round_trip,
        link.max_completion_bytes,
        rnic_hw::host::DMA_RD_TAGS,
        rnic_hw::host::DMA_RD_TAGS_PER_CLIENT,
        link.read_round_trip
    ));
    println!("## DMA bandwidth\n\n{table}");
    record("dma-bandwidth", &table);
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
