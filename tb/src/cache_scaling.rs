//! Issue 10, item 5: how the context cache and the translation unit behave as
//! the working set grows past what they hold on chip. One point runs `n`
//! random lookups over a working set of QP contexts (`qpc_cache`, 1024
//! entries) or of MR pages (`mr_xlate`: one region of 4 KiB pages, its MTT
//! cache 256 lines of 8 entries: 2048 pages), the cache warmed with the
//! working set first, every DMA read answered after a fixed latency: lookups
//! per cycle and the miss rate. `make bench` draws the curves
//! (docs/cache_scaling.svg, [`svg`]); `tb/tests/ctx_cache.rs` and
//! `tb/tests/mr_xlate.rs` assert their shape. Cycle counts of the generated
//! Verilog: the same on every machine.

use crate::ctx_cache::{CacheBench, DmaTiming, Req};
use crate::mr_xlate::{Table, XlateBench, XlateKnobs};
use rnic_contract::layouts::mpt;
use rnic_contract::mr::{Access, Mpt, MrRequest};
use rnic_hw::host::{CACHE_OP_READ, CACHE_OP_WRITE};
use rnic_sim::axis::Rng;
use rnic_sim::models::{mr_xlate, qpc_cache};
use rnic_sim::Clocked;

/// Entries `qpc_cache` holds: the catalog builds it as `CtxCache<1024, 128,
/// 10>` (`tb/tests/ctx_cache.rs` fails if it held more or fewer).
pub const QPC_ENTRIES: u64 = 1024;
/// MTT entries the translation unit's MTT cache holds (its lines times the
/// entries per line).
pub const MTT_ENTRIES: u64 = (1 << rnic_hw::mr::MR_MTT_CACHE_LOG) * rnic_contract::mr::MTT_PER_LINE as u64;
/// The largest working set measured, and the tables' size: 64K.
pub const LOG_TABLE: u32 = 16;

/// One measured point.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    pub working_set: u64,
    pub lookups: u64,
    /// Device reads of the table (QP contexts; MTT lines) during the run.
    pub misses: u64,
    pub cycles: u64,
}

impl Point {
    pub fn per_cycle(&self) -> f64 {
        self.lookups as f64 / self.cycles as f64
    }
    pub fn miss_rate(&self) -> f64 {
        self.misses as f64 / self.lookups as f64
    }
}

/// `n` random reads and masked writes over QP contexts `0..ws` of a 64K-entry
/// table, after reading the first `min(ws, 1024)` (the cache's size) once;
/// DMA reads answered `read_latency` cycles after they are taken.
pub fn qp_contexts(ws: u32, n: usize, read_latency: u64) -> Point {
    let mut b = CacheBench::new(qpc_cache::Dut::new(), LOG_TABLE, DmaTiming::fixed(read_latency, 100), 9);
    b.req_pct = 100;
    b.resp_pct = 100;
    for i in 0..ws.min(QPC_ENTRIES as u32) {
        b.push(Req::read(i));
    }
    b.run(10_000_000);
    let (r0, t0) = (b.dma.reads.len(), b.sim.cycle());
    for _ in 0..n {
        let r = b.random_req(ws);
        b.push(if r.op == CACHE_OP_WRITE { r } else { Req::read(r.index) });
    }
    b.run(100_000_000);
    Point {
        working_set: ws as u64,
        lookups: n as u64,
        misses: (b.dma.reads.len() - r0) as u64,
        cycles: b.sim.cycle() - t0,
    }
}

/// `qpc_cache`'s lookup latency (request taken to response offered) on a hit
/// and on a miss, DMA reads answered after `read_latency` cycles.
pub fn qp_context_latency(read_latency: u64) -> (u64, u64) {
    let mut b = CacheBench::new(qpc_cache::Dut::new(), 12, DmaTiming::fixed(read_latency, 100), 5);
    let one = |b: &mut CacheBench<qpc_cache::Dut>| {
        b.push(Req::read(7));
        b.run(100_000);
        let (e, r) = b.done.last().unwrap();
        assert_eq!(e.req.op, CACHE_OP_READ);
        r.cycle - e.taken
    };
    let miss = one(&mut b);
    let hit = one(&mut b);
    (hit, miss)
}

/// Register one region of 2^`LOG_TABLE` pages of 4 KiB under MPT entry 1,
/// its MTT entries from 0, every page valid.
fn one_region(b: &mut XlateBench) -> Mpt {
    let pages = 1u64 << LOG_TABLE;
    let m = Mpt {
        va_base: 0x7f00_0000_0000,
        length: pages << 12,
        key: mpt::key(1, 0x5a_1337, b.mpt_log),
        pd: 7,
        valid: true,
        local_write: true,
        remote_write: true,
        remote_read: true,
        remote_atomic: true,
        log_page_size: 12,
        mtt_base: 0,
    };
    b.write_mpt(1, &m);
    for p in 0..pages as u32 {
        b.write_mtt(p, (0x100 + p as u64) << 30, true);
    }
    m
}

fn xlate_unit(read_latency: u64) -> (Clocked<mr_xlate::Dut>, XlateBench, Mpt) {
    let mut b = XlateBench::new(8, LOG_TABLE, XlateKnobs::fixed(read_latency), 3);
    let m = one_region(&mut b);
    let tb = b.unit();
    (tb, b, m)
}

fn page_read(m: &Mpt, page: u64, off: u64) -> MrRequest {
    MrRequest { key: m.key, pd: m.pd, va: m.va_base + (page << 12) + off, len: 64, access: Access::RemoteRead }
}

/// `n` random 64-byte remote reads over pages `0..pages` of one region,
/// after one read of each of the first `min(pages, 2048)` pages; table reads
/// answered `read_latency` cycles after they are taken.
pub fn mr_pages(pages: u32, n: usize, read_latency: u64) -> Point {
    let (mut tb, mut b, m) = xlate_unit(read_latency);
    for p in 0..(pages as u64).min(MTT_ENTRIES) {
        b.send(page_read(&m, p, 0));
    }
    b.run(&mut tb, 10_000_000);
    let mut rng = Rng(0x5ca1e);
    let r0 = b.reads_of(Table::Mtt);
    for _ in 0..n {
        let p = rng.next() % pages as u64;
        b.send(page_read(&m, p, (rng.next() % 64) * 64));
    }
    let cycles = b.run(&mut tb, 100_000_000);
    Point { working_set: pages as u64, lookups: n as u64, misses: (b.reads_of(Table::Mtt) - r0) as u64, cycles }
}

/// The translation unit's latency (request taken to first piece offered)
/// on a hit and on a miss of both the MPT entry and the MTT line.
pub fn mr_latency(read_latency: u64) -> (u64, u64) {
    let (mut tb, mut b, m) = xlate_unit(read_latency);
    let one = |tb: &mut Clocked<mr_xlate::Dut>, b: &mut XlateBench| {
        b.send(page_read(&m, 5, 0));
        b.run(tb, 100_000);
        let (t, f) = b.first_beat.last().copied().unwrap();
        f - t
    };
    let miss = one(&mut tb, &mut b);
    let hit = one(&mut tb, &mut b);
    (hit, miss)
}

/// A log-x line chart of lookups per cycle against the working set, one
/// curve per series, a dashed mark at each series' cache size. Plain SVG.
pub fn svg(title: &str, series: &[(&str, u64, &[Point])]) -> String {
    const W: f64 = 640.0;
    const H: f64 = 360.0;
    let (l, r, t, b) = (60.0, 20.0, 40.0, 50.0);
    let xmax = series.iter().flat_map(|s| s.2.iter().map(|p| p.working_set)).max().unwrap_or(2) as f64;
    let lx = |ws: f64| l + (W - l - r) * (ws.max(1.0).log2() / xmax.log2());
    let ly = |v: f64| H - b - (H - t - b) * v.clamp(0.0, 1.0);
    let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{title}</text>\n",
        W / 2.0
    );
    for k in 0..=4 {
        let v = k as f64 / 4.0;
        s += &format!(
            "<line x1=\"{l}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.2}</text>\n",
            W - r,
            l - 6.0,
            ly(v) + 4.0,
            y = ly(v)
        );
    }
    let mut ws = 1u64;
    while ws as f64 <= xmax {
        let label = if ws >= 1024 { format!("{}K", ws / 1024) } else { ws.to_string() };
        s +=
            &format!("<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{label}</text>\n", lx(ws as f64), H - b + 16.0);
        ws *= 4;
    }
    s += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">working set (entries, log scale)</text>\n\
         <text x=\"16\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {})\">lookups per cycle</text>\n",
        (W + l - r) / 2.0,
        H - 12.0,
        H / 2.0,
        H / 2.0
    );
    for (i, (name, cache, pts)) in series.iter().enumerate() {
        let c = colors[i % colors.len()];
        let path: Vec<String> =
            pts.iter().map(|p| format!("{:.1},{:.1}", lx(p.working_set as f64), ly(p.per_cycle()))).collect();
        s += &format!("<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>\n", path.join(" "));
        for p in pts.iter() {
            s += &format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{c}\"/>\n",
                lx(p.working_set as f64),
                ly(p.per_cycle())
            );
        }
        let x = lx(*cache as f64);
        s += &format!(
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{t}\" y2=\"{}\" stroke=\"{c}\" stroke-dasharray=\"4 3\"/>\n\
             <text x=\"{}\" y=\"{}\" fill=\"{c}\">{name} (cache: {cache})</text>\n",
            H - b,
            W - r - 230.0,
            t + 16.0 + 16.0 * i as f64
        );
    }
    s + "</svg>\n"
}
