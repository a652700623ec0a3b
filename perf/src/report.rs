//! perftest's output, as pure functions: the header block
//! (`ctx_print_test_info`), the address lines (`ctx_print_pingpong_data`),
//! the BW table (`RESULT_FMT`/`RESULT_FMT_G`, `REPORT_FMT`, the figures of
//! `print_report_bw`) and the latency table (`RESULT_FMT_LAT`,
//! `REPORT_FMT_LAT`, the statistics of `print_report_lat`). Formats and
//! arithmetic from linux-rdma/perftest commit
//! `00b55b6660d0170dabe2c1b49193e8fbe265086e`, `src/perftest_parameters.[ch]`
//! and `src/perftest_communication.[ch]`.
//!
//! Times are nanoseconds where perftest counts CPU cycles; `cycles_to_units`
//! is then 1e9 per second (BW) and 1e3 per microsecond (latency).

use crate::options::{Kind, Verb};
use rnic_driver::connect::QpEndpoint;

/// `RESULT_LINE`: 87 dashes.
pub const RESULT_LINE: &str =
    "---------------------------------------------------------------------------------------\n";
/// `RESULT_FMT`.
pub const RESULT_FMT: &str = " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]";
/// `RESULT_FMT_G`.
pub const RESULT_FMT_G: &str = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
/// `RESULT_FMT_LAT`.
pub const RESULT_FMT_LAT: &str = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
/// `RESULT_FMT_LAT_DUR`: the latency table of a duration run (`-D`).
pub const RESULT_FMT_LAT_DUR: &str = " #bytes        #iterations       t_avg[usec]    tps average";
/// `RESULT_EXT` and `REPORT_EXT` (CPU utilisation off).
pub const RESULT_EXT: &str = "\n";
/// MiB/s: bytes per second divided by this (`0x100000`).
pub const MIB_FACTOR: f64 = 1_048_576.0;
/// Gb/s: bytes per second divided by this (`125000000`, 10^9 bits).
pub const GBIT_FACTOR: f64 = 125_000_000.0;
/// Sorted latency samples dropped at the top (`LAT_MEASURE_TAIL`).
pub const LAT_MEASURE_TAIL: usize = 2;
/// Nanoseconds per second.
const NS_PER_S: f64 = 1e9;
/// Nanoseconds per microsecond.
const NS_PER_US: f64 = 1e3;

/// printf's `%#0Nx`: `0x` and the digits, zero-padded to `width` in all
/// (`0x` is left out for zero, as C does).
pub fn c_alt_hex(value: u64, width: usize) -> String {
    if value == 0 {
        return format!("{:0width$x}", 0);
    }
    let digits = format!("{value:x}");
    format!("0x{}{digits}", "0".repeat(width.saturating_sub(2 + digits.len())))
}

/// What the header block shows.
#[derive(Debug, Clone)]
pub struct HeaderInfo<'a> {
    /// The verb.
    pub verb: Verb,
    /// BW or latency.
    pub kind: Kind,
    /// WRITE with immediate (`RDMA_Write_imm`).
    pub write_with_imm: bool,
    /// The atomic operation's name (atomic tests).
    pub atomic_type: &'a str,
    /// `-b`.
    pub duplex: bool,
    /// `-l`.
    pub post_list: u32,
    /// The device's name.
    pub device: &'a str,
    /// `-q`.
    pub qps: u32,
    /// `RC`, `UC`, `UD`.
    pub connection: &'a str,
    /// This side is the client.
    pub client: bool,
    /// `-t`.
    pub tx_depth: u32,
    /// `-r`.
    pub rx_depth: u32,
    /// `-Q`.
    pub cq_mod: u32,
    /// The MTU in bytes.
    pub mtu_bytes: u32,
    /// `-x`.
    pub gid_index: Option<u32>,
    /// `-I`.
    pub inline_size: u32,
    /// Outstanding reads (`-o`).
    pub out_reads: u32,
    /// `-e`: completions through a completion channel.
    pub events: bool,
}

/// `ctx_print_test_info` at full verbosity, for a build with the
/// `ibv_td` API and without PCIe relaxed ordering (perftest's
/// `#ifdef HAVE_TD_API` / no `HAVE_RO` branch), no events, no rdma_cm.
pub fn header(h: &HeaderInfo) -> String {
    let mut s = String::from(RESULT_LINE);
    s.push_str("                    ");
    let verb = match (h.verb, h.write_with_imm) {
        (Verb::Write, true) => "RDMA_Write_imm",
        (v, _) => v.perftest_name(),
    };
    s.push_str(&format!("{verb} "));
    if h.verb == Verb::Atomic {
        s.push_str(&format!("{} ", h.atomic_type));
    }
    match h.kind {
        Kind::Bw => {
            if h.duplex {
                s.push_str("Bidirectional ");
            }
            if h.post_list > 1 {
                s.push_str("Post List ");
            }
            s.push_str("BW ");
        }
        Kind::Lat => s.push_str("Latency "),
    }
    s.push_str("Test\n");
    if h.events {
        // perftest: " Test with events. Using %s_comp%d\n" with eq_num 0.
        s.push_str(&format!(" Test with events. Using {}_comp0\n", h.device));
    }
    s.push_str(&format!(" Dual-port       : OFF\t\tDevice         : {}\n", h.device));
    s.push_str(&format!(" Number of qps   : {}\t\tTransport type : IB\n", h.qps));
    s.push_str(&format!(" Connection type : {}\t\tUsing SRQ      : OFF\n", h.connection));
    s.push_str(" PCIe relax order: Unsupported\t\tLock-free      : OFF\n");
    s.push_str(" ibv_wr* API     : OFF\t\tUsing Enhanced Reorder      : OFF\n");
    if h.client || h.duplex {
        s.push_str(&format!(" TX depth        : {}\n", h.tx_depth));
    }
    if h.post_list > 1 {
        s.push_str(&format!(" Post List       : {}\n", h.post_list));
    }
    let has_recv_comp = h.verb == Verb::Send || (h.verb == Verb::Write && h.write_with_imm);
    if has_recv_comp && (!h.client || h.duplex) {
        s.push_str(&format!(" RX depth        : {}\n", h.rx_depth));
    }
    if h.kind == Kind::Bw {
        s.push_str(&format!(" CQ Moderation   : {}\n", h.cq_mod));
        s.push_str(" CQE Poll Batch  : Dynamic\n");
    }
    s.push_str(&format!(" Mtu             : {}[B]\n", h.mtu_bytes));
    s.push_str(" Link type       : Ethernet\n");
    if let Some(g) = h.gid_index {
        s.push_str(&format!(" GID index       : {g}\n"));
    }
    if h.verb != Verb::Read && h.verb != Verb::Atomic {
        s.push_str(&format!(" Max inline data : {}[B]\n", h.inline_size));
    } else {
        s.push_str(&format!(" Outstand reads  : {}\n", h.out_reads));
    }
    s.push_str(" rdma_cm QPs\t : OFF\n");
    s.push_str(" Data ex. method : Ethernet\n");
    s.push_str(RESULT_LINE);
    s
}

/// `ctx_print_pingpong_data`: `" local address: LID ... QPN ... PSN ..."`,
/// with `OUT` (READ) and `RKey`/`VAddr` (READ and WRITE), then the GID
/// line in perftest's decimal form when a GID index was given.
pub fn address_lines(remote: bool, verb: Verb, ep: &QpEndpoint, with_gid: bool) -> String {
    let side = if remote { "remote" } else { "local" };
    let mut s = format!(
        " {side} address: LID {} QPN {} PSN {}",
        c_alt_hex(ep.lid.into(), 4),
        c_alt_hex(ep.qpn.into(), 6),
        c_alt_hex(ep.psn.into(), 6)
    );
    if verb == Verb::Read {
        s.push_str(&format!(" OUT {}", c_alt_hex(ep.out_reads.into(), 4)));
    }
    if matches!(verb, Verb::Read | Verb::Write) {
        s.push_str(&format!(" RKey {} VAddr {}", c_alt_hex(ep.rkey.into(), 8), c_alt_hex(ep.vaddr, 16)));
    }
    s.push('\n');
    if with_gid {
        let bytes: Vec<String> = ep.gid.iter().map(|b| format!("{b:02}")).collect();
        s.push_str(&format!(" GID: {}\n", bytes.join(":")));
    }
    s
}

/// The BW table's head: `RESULT_LINE`, `RESULT_FMT` or `RESULT_FMT_G`.
pub fn bw_table_header(gbits: bool) -> String {
    format!("{RESULT_LINE}{}{RESULT_EXT}", if gbits { RESULT_FMT_G } else { RESULT_FMT })
}

/// A BW test's figures (`bw_report_data`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BwFigures {
    /// Message size.
    pub size: u64,
    /// Messages counted.
    pub iters: u64,
    /// Best rate over a CQ moderation window, in MiB/s or Gb/s.
    pub bw_peak: f64,
    /// Average, in the same unit.
    pub bw_avg: f64,
    /// Millions of messages per second.
    pub msg_rate: f64,
}

/// `print_report_bw`'s arithmetic: `posted[i]` and `completed[i]` are the
/// times (ns) message `i` was posted and its completion seen (perftest
/// stamps `tcompleted` for every message a moderated completion covers).
/// The peak is the best per-message time from any post to a completion
/// at a CQ moderation boundary, as perftest searches it.
pub fn bw_figures(
    size: u64,
    posted: &[u64],
    completed: &[u64],
    cq_mod: u64,
    post_list: u64,
    no_peak: bool,
    gbits: bool,
) -> BwFigures {
    let n = posted.len().min(completed.len());
    assert!(n > 0 && cq_mod > 0 && post_list > 0, "bw_figures needs samples");
    let factor = if gbits { GBIT_FACTOR } else { MIB_FACTOR };
    let mut opt_delta = completed[0].saturating_sub(posted[0]);
    if !no_peak {
        let n = n as u64;
        let mut i = 0;
        while i < n {
            let mut j = (i + 1).div_ceil(cq_mod) * cq_mod - 1;
            while j < n {
                let t = completed[j as usize].saturating_sub(posted[i as usize]) / (j - i + 1);
                opt_delta = opt_delta.min(t);
                j += cq_mod;
            }
            if !n.is_multiple_of(cq_mod) {
                let j = n - 1;
                let t = completed[j as usize].saturating_sub(posted[i as usize]) / (j - i + 1);
                opt_delta = opt_delta.min(t);
            }
            i += post_list;
        }
    }
    let last = if no_peak { 0 } else { n - 1 };
    let sum = completed[last].saturating_sub(posted[0]) as f64;
    let iters = n as u64;
    let bw_avg = (size * iters) as f64 * NS_PER_S / (sum * factor);
    let msg_rate = iters as f64 * NS_PER_S / (sum * 1e6);
    // perftest: peak_up and peak_down are integer cycle products.
    let peak_up = if no_peak { 0 } else { size * NS_PER_S as u64 };
    let peak_down = opt_delta * factor as u64;
    BwFigures { size, iters, bw_peak: peak_up as f64 / peak_down as f64, bw_avg, msg_rate }
}

/// A duration run's BW figures (`-D`, `--run_infinitely`): `iters`
/// messages completed in the sampling window of `elapsed_ns` (the run less
/// its margins). perftest forces `-N` there: the peak is 0.
pub fn bw_figures_duration(size: u64, iters: u64, elapsed_ns: u64, gbits: bool) -> BwFigures {
    let factor = if gbits { GBIT_FACTOR } else { MIB_FACTOR };
    let sum = elapsed_ns.max(1) as f64;
    BwFigures {
        size,
        iters,
        bw_peak: 0.0,
        bw_avg: (size * iters) as f64 * NS_PER_S / (sum * factor),
        msg_rate: iters as f64 * NS_PER_S / (sum * 1e6),
    }
}

/// A bidirectional run's row (`-b`): this side's figures plus the peer's,
/// as `print_full_bw_report` adds `rem_bw_rep` (size and iterations are
/// this side's).
pub fn bw_sum(mine: &BwFigures, remote: &BwFigures) -> BwFigures {
    BwFigures {
        size: mine.size,
        iters: mine.iters,
        bw_peak: mine.bw_peak + remote.bw_peak,
        bw_avg: mine.bw_avg + remote.bw_avg,
        msg_rate: mine.msg_rate + remote.msg_rate,
    }
}

/// One row of the BW table (`REPORT_FMT`, or `REPORT_FMT_EXT` for Gb/s
/// below 0.1, as `print_full_bw_report` picks).
pub fn bw_row(f: &BwFigures, gbits: bool) -> String {
    if gbits && f.bw_avg < 0.1 {
        format!(
            " {:<7}    {}           {:<7.6}            {:<7.6}            {:<7.6}{RESULT_EXT}",
            f.size, f.iters, f.bw_peak, f.bw_avg, f.msg_rate
        )
    } else {
        format!(
            " {:<7}    {:<10}       {:<7.2}            {:<7.2}\t\t     {:<7.6}{RESULT_EXT}",
            f.size, f.iters, f.bw_peak, f.bw_avg, f.msg_rate
        )
    }
}

/// The latency table's head.
pub fn lat_table_header() -> String {
    format!("{RESULT_LINE}{RESULT_FMT_LAT}{RESULT_EXT}")
}

/// A latency test's figures, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatFigures {
    /// Message size.
    pub size: u64,
    /// Iterations run.
    pub iters: u64,
    /// Smallest.
    pub t_min: f64,
    /// Largest after dropping the top [`LAT_MEASURE_TAIL`].
    pub t_max: f64,
    /// The median (`get_median`).
    pub t_typical: f64,
    /// Average.
    pub t_avg: f64,
    /// Standard deviation, with perftest's integer truncations.
    pub t_stdev: f64,
    /// `delta[ceil(n * 0.99)]`.
    pub p99: f64,
    /// `delta[ceil(n * 0.999)]`.
    pub p99_9: f64,
}

/// `print_report_lat` for a LAT test: `stamps` are the `iters` post times
/// (ns) of the ping-pong; the `iters - 1` deltas are sorted, the top
/// [`LAT_MEASURE_TAIL`] dropped; SEND and WRITE report half the round trip,
/// READ and atomics all of it (`rtt_factor`). Needs at least 4 stamps.
pub fn lat_figures(size: u64, verb: Verb, stamps: &[u64]) -> Option<LatFigures> {
    if stamps.len() < LAT_MEASURE_TAIL + 2 {
        return None;
    }
    let rtt_factor = if matches!(verb, Verb::Read | Verb::Atomic) { 1.0 } else { 2.0 };
    let q = NS_PER_US * rtt_factor;
    let mut delta: Vec<u64> = stamps.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
    delta.sort_unstable();
    let n = delta.len() - LAT_MEASURE_TAIL;
    let median = if (n - 1) % 2 == 1 { (delta[n / 2] + delta[n / 2 - 1]) / 2 } else { delta[n / 2] };
    let average_sum: f64 = delta[..n].iter().map(|&d| d as f64 / q).sum();
    let average = average_sum / n as f64;
    // perftest: `int temp_var = average - x; int pow_var = pow(temp_var, 2);`
    let stdev_sum: f64 = delta[..n]
        .iter()
        .map(|&d| {
            let t = (average - d as f64 / q) as i32 as f64;
            t.powi(2) as i32 as f64
        })
        .sum();
    let i99 = (n as f64 * 0.99).ceil() as usize;
    let i999 = (n as f64 * 0.999).ceil() as usize;
    Some(LatFigures {
        size,
        iters: stamps.len() as u64,
        t_min: delta[0] as f64 / q,
        t_max: delta[n] as f64 / q,
        t_typical: median as f64 / q,
        t_avg: average,
        t_stdev: (stdev_sum / n as f64).sqrt(),
        p99: delta[i99] as f64 / q,
        p99_9: delta[i999] as f64 / q,
    })
}

/// The latency table's head of a duration run.
pub fn lat_dur_table_header() -> String {
    format!("{RESULT_LINE}{RESULT_FMT_LAT_DUR}{RESULT_EXT}")
}

/// A duration latency run (`print_report_lat_duration`): `iters`
/// ping-pongs in `elapsed_ns`; returns (t_avg in us, transactions per
/// second). SEND and WRITE report half the round trip.
pub fn lat_dur_figures(verb: Verb, iters: u64, elapsed_ns: u64) -> (f64, f64) {
    let rtt_factor = if matches!(verb, Verb::Read | Verb::Atomic) { 1.0 } else { 2.0 };
    let us = elapsed_ns as f64 / NS_PER_US;
    let iters_f = iters.max(1) as f64;
    (us / rtt_factor / iters_f, iters as f64 / (elapsed_ns.max(1) as f64 / NS_PER_S))
}

/// One row of a duration run's latency table (`REPORT_FMT_LAT_DUR`:
/// `" %-7lu       %lu            %-7.2f        %-7.2f"`).
pub fn lat_dur_row(size: u64, iters: u64, t_avg: f64, tps: f64) -> String {
    format!(" {size:<7}       {iters}            {t_avg:<7.2}        {tps:<7.2}{RESULT_EXT}")
}

/// `--progress` (not perftest's): one line for stderr. `done` of `total`
/// messages (`total` 0: a duration run, then `elapsed_s` of `duration_s`).
pub fn progress_line(size: u64, done: u64, total: u64, elapsed_s: u64, duration_s: u64) -> String {
    match (done * 100).checked_div(total) {
        Some(pct) => format!("rnic-perf: {size} B: {done}/{total} messages ({pct}%)\n"),
        None => format!("rnic-perf: {size} B: {done} messages, {elapsed_s}/{duration_s} s\n"),
    }
}

/// When to print a progress line: every `interval` of wall time.
#[derive(Debug, Clone)]
pub struct Progress {
    interval: std::time::Duration,
    next: std::time::Duration,
}

impl Progress {
    /// A progress clock with lines every `interval`, the first one after
    /// `interval` (a short run prints nothing).
    pub fn new(interval: std::time::Duration) -> Progress {
        Progress { interval, next: interval }
    }

    /// True when a line is due at `elapsed` (wall time since the start);
    /// then the next one is due one interval later (missed ones are not
    /// caught up).
    pub fn due(&mut self, elapsed: std::time::Duration) -> bool {
        if elapsed < self.next {
            return false;
        }
        while self.next <= elapsed {
            self.next += self.interval;
        }
        true
    }
}

/// One row of the latency table (`REPORT_FMT_LAT`).
pub fn lat_row(f: &LatFigures) -> String {
    format!(
        " {:<7} {}          {:<7.2}        {:<7.2}      {:<7.2}  \t       {:<7.2}     \t{:<7.2}\t\t{:<7.2} \t\t{:<7.2}{RESULT_EXT}",
        f.size, f.iters, f.t_min, f.t_max, f.t_typical, f.t_avg, f.t_stdev, f.p99, f.p99_9
    )
}
