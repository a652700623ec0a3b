//! `make demo`'s perftest part: `write_bw` and `read_bw` between the two
//! NICs of a simulated wire (`rnic_tb::sim_net::SimNet`, two Verilator
//! models of the core behind the host model), through the driver, with
//! perftest's loop (`run_iter_bw`: at most `tx_depth` outstanding, every
//! message signaled) and its tables ([`crate::report`]). The clock is the
//! simulation's: cycles of the 250 MHz core clock, so the figures are what
//! the RTL does, the same on every machine. Writes the run's frames as a
//! pcap and a plot of bandwidth against message size (SVG).

use crate::options::{Kind, Verb};
use crate::report::{self, BwFigures, HeaderInfo};
use rnic_contract::codes::{Mtu, QpType, WcStatus};
use rnic_driver::connect::QpEndpoint;
use rnic_driver::{AccessFlags, MemoryRegion, QueuePair, RemoteAddr, SendFlags, SendOp, SendWr, Sge};
use rnic_tb::nic_bench::CORE_MHZ;
use rnic_tb::sim_net::{connect_rc, Nic, SimNet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Message sizes of the sweep (perftest's `-a` goes from 2 bytes to 8 MiB
/// in powers of two; the simulator runs at thousands of cycles per second,
/// so the demo takes every fourth power from 2 bytes to 64 KiB).
pub const SIZES: [u64; 8] = [2, 8, 64, 256, 1024, 4096, 16384, 65536];
/// perftest's default `-t`.
pub const TX_DEPTH: usize = 128;
/// The path MTU (the port's active MTU, as perftest takes it).
pub const MTU: Mtu = Mtu::Mtu4096;
/// The largest size: the buffers hold twice this.
pub const MAX_SIZE: u64 = 65536;
/// The first PSNs of NIC A's and NIC B's QP (fixed: the run is the same every time).
const PSNS: (u32, u32) = (0x1000, 0x2000);

/// Iterations for a size: 64 (perftest's default is 5000), fewer from
/// 8 KiB up so that a size moves at most 512 KiB, at least 8.
pub fn iters_for(size: u64) -> u64 {
    (512 * 1024 / size).clamp(8, 64)
}

/// One sweep's figures, size by size.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// `Write` or `Read`.
    pub verb: Verb,
    /// One row per size of [`SIZES`].
    pub rows: Vec<BwFigures>,
}

/// What the demo wrote.
#[derive(Debug, Clone)]
pub struct DemoFiles {
    /// Every frame both NICs sent, in order.
    pub pcap: PathBuf,
    /// Average bandwidth (Gb/s) against message size, one line per test.
    pub plot: PathBuf,
}

/// The connected pair: NIC A (the client, index 0) and NIC B.
struct Pair {
    a: Nic,
    b: Nic,
    qp_a: QueuePair,
    mr_a: MemoryRegion,
    mr_b: MemoryRegion,
    cq_a: rnic_driver::CompletionQueue,
    buf_a: rnic_driver::DmaBuffer,
    buf_b: rnic_driver::DmaBuffer,
    qp_b: QueuePair,
    // kept alive: the protection domains
    _pds: (rnic_driver::ProtectionDomain, rnic_driver::ProtectionDomain),
}

/// Runs `write_bw` then `read_bw` on one QP pair over [`SIZES`], printing
/// perftest's client output to `out`; writes the pcap and the plot into
/// `dir`. Every message's bytes are checked at its destination.
pub fn run(out: &mut impl std::io::Write, dir: &Path) -> std::io::Result<(Vec<Sweep>, DemoFiles)> {
    run_sizes(out, dir, &SIZES)
}

/// [`run`] over `sizes` (each at most the largest of [`SIZES`]).
pub fn run_sizes(out: &mut impl std::io::Write, dir: &Path, sizes: &[u64]) -> std::io::Result<(Vec<Sweep>, DemoFiles)> {
    assert!(sizes.iter().all(|&s| (1..=MAX_SIZE).contains(&s)), "sizes within 1..={MAX_SIZE}");
    let net = SimNet::pair(2026);
    let mut p = connect(&net);
    let mut sweeps = vec![];
    for verb in [Verb::Write, Verb::Read] {
        let (ep_a, ep_b) = endpoints(&p);
        write!(out, "{}", report::header(&header(verb)))?;
        write!(out, "{}", report::address_lines(false, verb, &ep_a, true))?;
        write!(out, "{}", report::address_lines(true, verb, &ep_b, true))?;
        write!(out, "{}", report::bw_table_header(true))?;
        let mut rows = vec![];
        for &size in sizes {
            let f = bw(&mut p, verb, size, iters_for(size));
            write!(out, "{}", report::bw_row(&f, true))?;
            rows.push(f);
        }
        write!(out, "{}", report::RESULT_LINE)?;
        sweeps.push(Sweep { verb, rows });
    }
    std::fs::create_dir_all(dir)?;
    let frames: Vec<Vec<u8>> = net.borrow().log.iter().map(|f| f.bytes.clone()).collect();
    let pcap = dir.join("demo.pcap");
    std::fs::write(&pcap, rnic_tb::pcap_out::pcap_bytes(&frames))?;
    let plot = dir.join("demo_bw.svg");
    std::fs::write(&plot, svg_plot(&sweeps))?;
    Ok((sweeps, DemoFiles { pcap, plot }))
}

fn connect(net: &std::rc::Rc<std::cell::RefCell<SimNet>>) -> Pair {
    let (a, b) = (Nic::open(net, 0), Nic::open(net, 1));
    let (pd_a, pd_b) = (a.ctx.alloc_pd().unwrap(), b.ctx.alloc_pd().unwrap());
    let cq_a = a.ctx.create_cq(2 * TX_DEPTH as u32, None).unwrap();
    let cq_b = b.ctx.create_cq(16, None).unwrap();
    let mut qp_a = pd_a.create_qp(QpType::Rc, &cq_a, &cq_a).max_send_wr(TX_DEPTH as u32).build().unwrap();
    let mut qp_b = pd_b.create_qp(QpType::Rc, &cq_b, &cq_b).build().unwrap();
    connect_rc(&mut qp_a, &a.ctx, 1, qp_b.qp_num(), PSNS, MTU);
    connect_rc(&mut qp_b, &b.ctx, 0, qp_a.qp_num(), (PSNS.1, PSNS.0), MTU);
    // perftest's buffer: twice the largest size, the peer's half first
    let len = 2 * MAX_SIZE as usize;
    let (buf_a, buf_b) = (a.ctx.alloc_buffer(len).unwrap(), b.ctx.alloc_buffer(len).unwrap());
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let mr_a = pd_a.reg_mr(&buf_a, 0, len, access).unwrap();
    let mr_b = pd_b.reg_mr(&buf_b, 0, len, access).unwrap();
    Pair { a, b, qp_a, mr_a, mr_b, cq_a, buf_a, buf_b, qp_b, _pds: (pd_a, pd_b) }
}

/// Both sides' endpoints as perftest exchanges them.
fn endpoints(p: &Pair) -> (QpEndpoint, QpEndpoint) {
    let gid = |n: &Nic| n.ctx.query_gid(1, 1).unwrap();
    let mut a = QpEndpoint::new(p.qp_a.qp_num(), gid(&p.a)).rdma(p.mr_a.rkey(), p.mr_a.addr());
    let mut b = QpEndpoint::new(p.qp_b.qp_num(), gid(&p.b)).rdma(p.mr_b.rkey(), p.mr_b.addr());
    (a.psn, b.psn) = PSNS;
    let reads = rnic_tb::sim_net::RC_MAX_DEST_RD_ATOMIC as u16;
    (a.out_reads, b.out_reads) = (reads, reads);
    (a, b)
}

fn header(verb: Verb) -> HeaderInfo<'static> {
    HeaderInfo {
        verb,
        kind: Kind::Bw,
        write_with_imm: false,
        atomic_type: "FETCH_AND_ADD",
        duplex: false,
        post_list: 1,
        device: crate::device::SIM_NAME,
        qps: 1,
        connection: "RC",
        client: true,
        tx_depth: TX_DEPTH as u32,
        rx_depth: 1,
        cq_mod: 1,
        mtu_bytes: 4096,
        gid_index: Some(1),
        inline_size: 0,
        out_reads: if verb == Verb::Read { rnic_tb::sim_net::RC_MAX_DEST_RD_ATOMIC as u32 } else { 1 },
        events: false,
    }
}

/// The device clock in nanoseconds (the core's cycles at [`CORE_MHZ`]).
fn now_ns(n: &Nic) -> u64 {
    (n.probe.now() as f64 * 1000.0 / CORE_MHZ) as u64
}

/// One size: `iters` messages, at most [`TX_DEPTH`] outstanding, each
/// signaled; perftest's figures from the post and completion times. WRITE:
/// A's second half into B's first; READ: B's second half into A's first.
fn bw(p: &mut Pair, verb: Verb, size: u64, iters: u64) -> BwFigures {
    let half = MAX_SIZE;
    let pattern: Vec<u8> = (0..size).map(|i| (i * 29 + size * 7 + verb as u64) as u8).collect();
    let (src_buf, dst_buf) = if verb == Verb::Read { (&p.buf_b, &p.buf_a) } else { (&p.buf_a, &p.buf_b) };
    src_buf.write(half as usize, &pattern).unwrap();
    dst_buf.write(0, &vec![0; size as usize]).unwrap();
    let (local, remote) = match verb {
        Verb::Read => (0, half),
        _ => (half, 0),
    };
    let sge = [Sge::new(&p.mr_a, local, size as u32).unwrap()];
    let remote = RemoteAddr { addr: p.mr_b.addr() + remote, rkey: p.mr_b.rkey() };
    let op = if verb == Verb::Read { SendOp::RdmaRead { remote } } else { SendOp::RdmaWrite { remote } };
    let n = iters as usize;
    let (mut posted, mut completed) = (vec![0u64; n], vec![0u64; n]);
    let (mut scnt, mut ccnt) = (0usize, 0usize);
    while ccnt < n {
        while scnt < n && scnt - ccnt < TX_DEPTH {
            posted[scnt] = now_ns(&p.a);
            let wr = SendWr::new(scnt as u64, op, &sge).flags(SendFlags::SIGNALED);
            p.qp_a.post_send(&[wr]).expect("post_send");
            scnt += 1;
        }
        for wc in p.cq_a.poll(16).expect("poll") {
            assert_eq!((wc.wr_id, wc.status), (ccnt as u64, WcStatus::Success), "{verb:?} {size} B");
            completed[ccnt] = now_ns(&p.a);
            ccnt += 1;
        }
    }
    let mut got = vec![0u8; size as usize];
    dst_buf.read(0, &mut got).unwrap();
    assert!(got == pattern, "{verb:?} {size} B: the destination holds the source's bytes");
    report::bw_figures(size, &posted, &completed, 1, 1, false, true)
}

/// Average bandwidth against message size (log scale), one polyline per
/// sweep, as a standalone SVG.
pub fn svg_plot(sweeps: &[Sweep]) -> String {
    let (w, h, left, bottom, top, right) = (640.0, 400.0, 60.0, 50.0, 30.0, 120.0);
    let max_gbps = sweeps.iter().flat_map(|s| s.rows.iter().map(|r| r.bw_avg)).fold(1.0f64, f64::max);
    let ymax = (max_gbps / 20.0).ceil() * 20.0;
    let sizes: Vec<u64> = sweeps.first().map(|s| s.rows.iter().map(|r| r.size).collect()).unwrap_or_default();
    let (lo, hi) = (sizes.first().copied().unwrap_or(1), sizes.last().copied().unwrap_or(2).max(2));
    let (x0, x1) = ((lo as f64).log2(), (hi as f64).log2().max((lo as f64).log2() + 1.0));
    let x = |size: u64| left + ((size as f64).log2() - x0) / (x1 - x0) * (w - left - right);
    let y = |gbps: f64| h - bottom - gbps / ymax * (h - bottom - top);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="18" text-anchor="middle" font-size="13">rnic: RC bandwidth between two simulated NICs (250 MHz core, MTU 4096)</text>"#,
        w / 2.0
    );
    for k in 0..=5 {
        let g = ymax * k as f64 / 5.0;
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{0:.1}" x2="{1}" y2="{0:.1}" stroke="#ddd"/><text x="{2}" y="{3:.1}" text-anchor="end">{g:.0}</text>"##,
            y(g),
            w - right,
            left - 6.0,
            y(g) + 4.0
        );
    }
    for &size in &sizes {
        let label = if size >= 1024 { format!("{}K", size / 1024) } else { size.to_string() };
        let _ =
            writeln!(s, r#"<text x="{:.1}" y="{}" text-anchor="middle">{label}</text>"#, x(size), h - bottom + 16.0);
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">message size (bytes)</text>"#,
        (left + w - right) / 2.0,
        h - 10.0
    );
    let _ = writeln!(
        s,
        r#"<text x="14" y="{0}" text-anchor="middle" transform="rotate(-90 14 {0})">BW average (Gb/s)</text>"#,
        (top + h - bottom) / 2.0
    );
    for (i, sw) in sweeps.iter().enumerate() {
        let color = ["#1f77b4", "#d62728", "#2ca02c"][i % 3];
        let pts: Vec<String> = sw.rows.iter().map(|r| format!("{:.1},{:.1}", x(r.size), y(r.bw_avg))).collect();
        let _ = writeln!(s, r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#, pts.join(" "));
        let name = if sw.verb == Verb::Read { "read_bw" } else { "write_bw" };
        let ly = top + 20.0 + 18.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{0}" y1="{ly}" x2="{1}" y2="{ly}" stroke="{color}" stroke-width="2"/><text x="{2}" y="{3}">{name}</text>"#,
            w - right + 10.0,
            w - right + 30.0,
            w - right + 36.0,
            ly + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}
