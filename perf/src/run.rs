//! A test run, in perftest's order (`write_bw.c` and its siblings):
//! device, transport check, resources, the out-of-band exchange, QPs to
//! RTS, the header and address lines, the measurement per size with a
//! barrier between sizes, the table, the report exchange and a last
//! barrier. The measurement loops are written against the verbs API (post
//! lists, CQ moderation, polling); until the device has a transport
//! (`id_features.RC`, issue 11) the run stops before anything else with
//! [`PerfError::NoTransport`], and never prints a figure it did not measure.

use crate::device::{open, Clock, Opened};
use crate::devinfo::mtu_bytes;
use crate::options::{AtomicType, Connection, DeviceSel, Kind, Options, Verb, PROGRESS_INTERVAL_S};
use crate::rc_connect::{self, RcPath};
use crate::report::{self, HeaderInfo};
use rnic_contract::codes::{Mtu, QpType, WcStatus};
use rnic_contract::regs::id_features;
use rnic_driver::connect::{BwReport, ConnectError, Peer, QpEndpoint, Session, SysData};
use rnic_driver::neigh::{gid_ip, mac_from_link_local_gid, NeighError};
use rnic_driver::{
    AccessFlags, CompletionChannel, CompletionQueue, DmaBuffer, Gid, MemoryRegion, QueuePair, RecvWr, RemoteAddr,
    SendFlags, SendOp, SendWr, Sge, WorkCompletion,
};
use std::fmt;
use std::io::Write;
use std::net::{TcpListener, ToSocketAddrs};
use std::time::{Duration, Instant};

/// How long the exchange waits for the peer at each step.
pub const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(60);
/// Completions polled at once.
pub const POLL_BATCH: usize = 16;

/// Why a run stopped.
#[derive(Debug)]
pub enum PerfError {
    /// `-d sim` in a build without the `sim` feature.
    NoSimulator,
    /// `-d sim` without `--sim_wire`: the host side alone, no wire, no peer.
    NoWire,
    /// The device has no transport yet: no packet would move.
    NoTransport {
        /// `id_features` as read.
        features: u32,
    },
    /// The device lacks a feature this test needs.
    MissingFeature {
        /// The `id_features` bit.
        feature: &'static str,
        /// `id_features` as read.
        features: u32,
    },
    /// A verbs call failed.
    Driver(rnic_driver::Error),
    /// The out-of-band exchange failed.
    Connect(ConnectError),
    /// The server's name does not resolve.
    Resolve(String),
    /// No MAC for the peer's GID: the neighbour table has none (or could
    /// not be read); `-E` gives it.
    NoMac {
        /// The peer's GID.
        gid: Gid,
        /// What the neighbour table said.
        why: NeighError,
    },
    /// A work completion with an error status.
    Completion {
        /// The status.
        status: WcStatus,
        /// The work request.
        wr_id: u64,
    },
    /// Writing the output failed.
    Output(String),
    /// The peer sent a zero GID (ibv_rc_pingpong without `-g`): RoCE
    /// addresses a QP by GID, it has no LIDs.
    NoGid,
}

impl fmt::Display for PerfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PerfError::NoSimulator => {
                write!(f, "this build has no simulator backend (built without the `sim` feature); use -d <PCI address>")
            }
            PerfError::NoWire => write!(
                f,
                "-d sim alone is the host side with no wire and no peer: give the simulated NIC a wire with \
                 --sim_wire LOCAL,PEER (docs/interop.md); nothing was measured"
            ),
            PerfError::NoTransport { features } => write!(
                f,
                "the device has no transport: id_features {features:#010x} has no RC bit, so no packet can move \
                 (the transport is issue 11); nothing was measured"
            ),
            PerfError::MissingFeature { feature, features } => {
                write!(f, "the device lacks {feature} (id_features {features:#010x})")
            }
            PerfError::Driver(e) => write!(f, "driver: {e:?}"),
            PerfError::Connect(e) => write!(f, "connection exchange: {e}"),
            PerfError::Resolve(s) => write!(f, "cannot resolve {s:?}"),
            PerfError::NoMac { gid, why } => {
                write!(f, "no MAC for the peer's GID {}: {why} (-E <mac> gives it)", gid_ip(gid))
            }
            PerfError::Completion { status, wr_id } => write!(f, "work request {wr_id} completed with {status:?}"),
            PerfError::Output(e) => write!(f, "output: {e}"),
            PerfError::NoGid => {
                write!(f, "the peer sent no GID: RoCE addresses a QP by GID (give -g GID_INDEX on both sides)")
            }
        }
    }
}

impl std::error::Error for PerfError {}

impl From<rnic_driver::Error> for PerfError {
    fn from(e: rnic_driver::Error) -> Self {
        PerfError::Driver(e)
    }
}

impl From<ConnectError> for PerfError {
    fn from(e: ConnectError) -> Self {
        PerfError::Connect(e)
    }
}

impl From<std::io::Error> for PerfError {
    fn from(e: std::io::Error) -> Self {
        PerfError::Output(e.to_string())
    }
}

/// What the test needs from `id_features`: the transport (RC, the bit that
/// comes with it), and UC, UD, ATOMICS, INLINE as the options ask.
pub fn check_features(features: u32, o: &Options) -> Result<(), PerfError> {
    let has = |f: rnic_contract::reg::Field<u32>| f.get(features) == 1;
    if !has(id_features::RC) {
        return Err(PerfError::NoTransport { features });
    }
    let need = [
        (o.connection == Connection::Uc, id_features::UC, "UC"),
        (o.connection == Connection::Ud, id_features::UD, "UD"),
        (o.test.verb() == Verb::Atomic, id_features::ATOMICS, "ATOMICS"),
        (o.inline_size > 0, id_features::INLINE, "INLINE"),
    ];
    for (wanted, field, feature) in need {
        if wanted && !has(field) {
            return Err(PerfError::MissingFeature { feature, features });
        }
    }
    Ok(())
}

/// The MAC behind a link-local GID (modified EUI-64 reversed).
pub fn mac_from_gid(gid: &Gid) -> Option<[u8; 6]> {
    mac_from_link_local_gid(gid)
}

/// The peer's MAC for the address handle: `-E` if given (a static entry),
/// else what the GID carries (link-local, multicast) or the kernel's
/// neighbour table (`/proc/net/arp`) says.
pub fn peer_mac(o: &Options, gid: &Gid) -> Result<[u8; 6], PerfError> {
    rc_connect::peer_mac(o.dest_mac, gid)
}

/// The out-of-band exchange's other end: `server` to connect to at `port`,
/// or, without one, a listener on `port` (this side is the server).
pub fn tcp_peer(server: Option<&str>, port: u16) -> Result<Peer, PerfError> {
    Ok(match server {
        Some(host) => Peer::Connect(
            (host, port)
                .to_socket_addrs()
                .map_err(|_| PerfError::Resolve(host.into()))?
                .next()
                .ok_or_else(|| PerfError::Resolve(host.into()))?,
        ),
        None => Peer::Accept(TcpListener::bind(("0.0.0.0", port)).map_err(|e| PerfError::Output(e.to_string()))?),
    })
}

/// Runs the test the options name, printing perftest's output to `out`.
pub fn run(o: &Options, out: &mut impl Write) -> Result<(), PerfError> {
    if o.device == DeviceSel::Sim {
        return Err(PerfError::NoWire);
    }
    let Opened { ctx, name, clock, idle, wire } = open(&o.device)?;
    let r = run_on(o, out, ctx, name, clock, idle);
    if let Some(wire) = wire {
        eprintln!("rnic-perf: the simulated wire: {}", wire());
    }
    r
}

fn run_on(
    o: &Options,
    out: &mut impl Write,
    ctx: rnic_driver::Context,
    name: String,
    clock: Clock,
    idle: Option<Box<dyn FnMut()>>,
) -> Result<(), PerfError> {
    check_features(ctx.query_device().features, o)?;
    let verb = o.test.verb();
    let client = o.server.is_some();
    let gid_index = o.gid_index.unwrap_or(0);
    let gid = ctx.query_gid(o.ib_port, gid_index)?;
    let port = ctx.query_port(o.ib_port)?;

    // The exchange, in perftest's order.
    let mut s = Session::open(tcp_peer(o.server.as_deref(), o.port)?, EXCHANGE_TIMEOUT)?;
    if let Some(idle) = idle {
        s.while_waiting(idle)?;
    }
    s.exchange_versions()?;
    let sys = s.exchange_sys_data(SysData::default())?;
    let mtu = s.exchange_mtu(o.mtu.unwrap_or(port.max_mtu))?;
    // Resources (perftest's `ctx_init`, after the exchange above): one
    // buffer per QP, twice the larger of the largest size and the cycle
    // buffer, aligned to the cache line: the first half is what the peer
    // writes, reads or receives into (its rkey and address are sent; the
    // peer's messages walk through the cycle buffer), the second half the
    // source of this side's messages.
    let max_size = *o.sizes().iter().max().expect("at least one size") as usize;
    let line = sys.cache_line_size.max(1) as usize;
    let half = max_size.max(sys.cycle_buffer as usize).div_ceil(line) * line;
    let pd = ctx.alloc_pd()?;
    let depth = o.tx_depth.max(o.rx_depth);
    let channel = if o.use_event { Some(ctx.create_comp_channel()?) } else { None };
    let cq = ctx.create_cq(depth * o.qps, channel.as_ref())?;
    let access = AccessFlags::LOCAL_WRITE
        | match verb {
            Verb::Write => AccessFlags::REMOTE_WRITE,
            Verb::Read => AccessFlags::REMOTE_READ,
            Verb::Atomic => AccessFlags::REMOTE_ATOMIC,
            Verb::Send => AccessFlags::NONE,
        };
    let qp_type = match o.connection {
        Connection::Rc => QpType::Rc,
        Connection::Uc => QpType::Uc,
        Connection::Ud => QpType::Ud,
    };
    let out_reads = o.outs.unwrap_or(1);
    let mut bufs = Vec::new();
    let mut mrs = Vec::new();
    let mut qps = Vec::new();
    let mut mine = Vec::new();
    for _ in 0..o.qps {
        let buf = ctx.alloc_buffer(2 * half)?;
        let mr = pd.reg_mr(&buf, 0, 2 * half, access)?;
        let qp = pd
            .create_qp(qp_type, &cq, &cq)
            .max_send_wr(o.tx_depth)
            .max_recv_wr(o.rx_depth)
            .max_inline_data(o.inline_size)
            .build()?;
        let mut ep = QpEndpoint::new(qp.qp_num(), gid).rdma(mr.rkey(), mr.addr());
        ep.out_reads = out_reads as u16;
        mine.push(ep);
        bufs.push(buf);
        mrs.push(mr);
        qps.push(qp);
    }

    let header = HeaderInfo {
        verb,
        kind: o.test.kind(),
        write_with_imm: o.write_with_imm,
        atomic_type: o.atomic_type.name(),
        duplex: o.bidirectional,
        post_list: o.post_list,
        device: &name,
        qps: o.qps,
        connection: o.connection.name(),
        client,
        tx_depth: o.tx_depth,
        rx_depth: o.rx_depth,
        cq_mod: o.cq_mod,
        mtu_bytes: mtu_bytes(mtu),
        gid_index: o.gid_index,
        inline_size: o.inline_size,
        out_reads,
        events: o.use_event,
    };
    out.write_all(report::header(&header).as_bytes())?;
    let remote = s.exchange_keys(&mine)?;
    for (qp, (m, r)) in qps.iter_mut().zip(mine.iter().zip(&remote)) {
        connect_qp(qp, o, mtu, m, r, out_reads as u8)?;
    }
    for m in &mine {
        out.write_all(report::address_lines(false, verb, m, o.gid_index.is_some()).as_bytes())?;
    }
    let remote = s.exchange_keys(&mine)?;
    for r in &remote {
        out.write_all(report::address_lines(true, verb, r, o.gid_index.is_some()).as_bytes())?;
    }
    s.sync(&mine[0])?; // after RTR

    let mut bw = Bw {
        qps: &mut qps,
        cq: &cq,
        channel: channel.as_ref(),
        mrs: &mrs,
        remote: &remote,
        clock: &clock,
        src: half as u64,
        progress: o.progress.then(|| (Instant::now(), report::Progress::new(progress_interval()))),
        recv_outstanding: vec![0; o.qps as usize],
    };
    match o.test.kind() {
        Kind::Bw if o.run_infinitely => {
            // perftest: a row every -D seconds until the process is stopped.
            out.write_all(report::bw_table_header(o.report_gbits).as_bytes())?;
            s.sync(&mine[0])?;
            if !client && !o.bidirectional {
                // The passive side waits for the client to go, as
                // perftest's server does (" Client closed connection").
                loop {
                    match s.sync(&mine[0]) {
                        Err(ConnectError::Timeout { .. }) => continue,
                        Err(ConnectError::PeerClosed { .. }) => {
                            out.write_all(b" Client closed connection\n")?;
                            return Ok(());
                        }
                        Err(e) => return Err(e.into()),
                        Ok(_) => {}
                    }
                }
            }
            loop {
                let (iters, ns) = bw.run_duration(o, o.size, o.duration_secs().into(), 0)?;
                let f = report::bw_figures_duration(o.size, iters, ns, o.report_gbits);
                out.write_all(report::bw_row(&f, o.report_gbits).as_bytes())?;
                out.flush()?;
            }
        }
        Kind::Bw => {
            out.write_all(report::bw_table_header(o.report_gbits).as_bytes())?;
            let plan = bw_schedule(o, client);
            let mut last = None;
            for size in o.sizes().into_iter().filter(|_| plan.measures) {
                if plan.receives {
                    bw.post_receives(o, size)?;
                }
                if plan.sync_before {
                    s.sync(&mine[0])?;
                }
                let f = if plan.receives && !client && !o.bidirectional {
                    bw.run_server(o, size)?
                } else if o.duration.is_some() {
                    let (iters, ns) = bw.run_duration(o, size, o.duration_secs().into(), o.margin().into())?;
                    report::bw_figures_duration(size, iters, ns, o.report_gbits)
                } else {
                    let (posted, completed) = bw.run(o, size)?;
                    report::bw_figures(
                        size,
                        &posted,
                        &completed,
                        o.cq_mod.into(),
                        o.post_list.into(),
                        o.no_peak,
                        o.report_gbits,
                    )
                };
                if plan.sync_after {
                    s.sync(&mine[0])?;
                }
                let row = if plan.report_per_size {
                    let peer = s.exchange_bw_report(&bw_report(&f))?;
                    report::bw_sum(&f, &figures(&peer))
                } else {
                    f
                };
                out.write_all(report::bw_row(&row, o.report_gbits).as_bytes())?;
                last = Some(f);
            }
            if plan.report_at_end {
                // the one-way WRITE, READ and atomic tests: the client's
                // last figures go to the server, which prints them
                s.sync(&mine[0])?;
                let mine_f = last.unwrap_or(report::BwFigures {
                    size: o.size,
                    iters: 0,
                    bw_peak: 0.0,
                    bw_avg: 0.0,
                    msg_rate: 0.0,
                });
                let peer = s.exchange_bw_report(&bw_report(&mine_f))?;
                if !plan.measures {
                    out.write_all(report::bw_row(&figures(&peer), o.report_gbits).as_bytes())?;
                }
            }
        }
        Kind::Lat if o.duration.is_some() => {
            out.write_all(report::lat_dur_table_header().as_bytes())?;
            s.sync(&mine[0])?;
            let (iters, ns) =
                bw.lat_duration(o, o.size, &bufs[0], client, o.duration_secs().into(), o.margin().into())?;
            let (t_avg, tps) = report::lat_dur_figures(verb, iters, ns);
            out.write_all(report::lat_dur_row(o.size, iters, t_avg, tps).as_bytes())?;
        }
        Kind::Lat => {
            // write_lat.c and read_lat.c: one more barrier before the
            // sizes, none between them; read_lat's server then only
            // closes. send_lat.c: a barrier before each size.
            let per_size = verb == Verb::Send;
            if !per_size {
                s.sync(&mine[0])?;
            }
            if verb == Verb::Read && !client {
                out.write_all(report::RESULT_LINE.as_bytes())?;
                s.close(&mine[0])?;
                return Ok(());
            }
            out.write_all(report::lat_table_header().as_bytes())?;
            for size in o.sizes() {
                if per_size {
                    // send_lat.c: ctx_set_recv_wqes, then the barrier
                    bw.post_receives(o, size)?;
                    s.sync(&mine[0])?;
                }
                let stamps = bw.lat(o, size, &bufs[0], client)?;
                if let Some(f) = report::lat_figures(size, verb, &stamps) {
                    out.write_all(report::lat_row(&f).as_bytes())?;
                }
            }
        }
    }
    out.write_all(report::RESULT_LINE.as_bytes())?;
    if o.test.kind() == Kind::Lat && verb == Verb::Write {
        // write_lat.c ends without ctx_close_connection
        return Ok(());
    }
    s.close(&mine[0])?;
    Ok(())
}

/// perftest's exchanges around a BW test's measurements, as `write_bw.c`,
/// `read_bw.c`, `atomic_bw.c` and `send_bw.c` run them (v4.5-0.17, which
/// announces itself as 6.06 and is Debian bookworm's, and the commit in
/// docs/driver.md agree on these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BwSchedule {
    /// This side runs the sizes (the server of a one-way WRITE, READ or
    /// atomic test does not: it waits for the client's report).
    pub measures: bool,
    /// This side posts receives before each size: the server of SEND and
    /// WRITE with immediate, and both sides with `-b`.
    pub receives: bool,
    /// A barrier before each size.
    pub sync_before: bool,
    /// A barrier after each size.
    pub sync_after: bool,
    /// Reports exchanged after each size, the row their sum (`-b`).
    pub report_per_size: bool,
    /// After the sizes, a barrier and the client's last figures sent to
    /// the server, which prints them (one-way WRITE, READ, atomics).
    pub report_at_end: bool,
}

/// The schedule of the test `o` names, on the client or the server.
pub fn bw_schedule(o: &Options, client: bool) -> BwSchedule {
    let (duplex, all) = (o.bidirectional, o.all);
    let with_recv = o.has_recv_comp();
    if with_recv {
        // send_bw.c: a barrier before each size, and after it with -a;
        // reports only with -b (and not in a duration run)
        BwSchedule {
            measures: true,
            receives: !client || duplex,
            sync_before: true,
            sync_after: all || o.write_with_imm,
            report_per_size: duplex && o.duration.is_none(),
            report_at_end: false,
        }
    } else {
        // write_bw.c, read_bw.c, atomic_bw.c: with -b a barrier before each
        // size (and after it with -a but for atomics) and the reports
        BwSchedule {
            measures: client || duplex,
            receives: false,
            sync_before: duplex,
            sync_after: duplex && all && o.test.verb() != Verb::Atomic,
            report_per_size: duplex,
            report_at_end: !duplex,
        }
    }
}

fn bw_report(f: &report::BwFigures) -> BwReport {
    BwReport { size: f.size, iters: f.iters, bw_peak: f.bw_peak, bw_avg: f.bw_avg, msg_rate: f.msg_rate }
}

fn figures(r: &BwReport) -> report::BwFigures {
    report::BwFigures { size: r.size, iters: r.iters, bw_peak: r.bw_peak, bw_avg: r.bw_avg, msg_rate: r.msg_rate }
}

/// INIT, RTR, RTS with perftest's values (`ctx_connect`).
fn connect_qp(
    qp: &mut QueuePair,
    o: &Options,
    mtu: Mtu,
    mine: &QpEndpoint,
    remote: &QpEndpoint,
    rd_atomic: u8,
) -> Result<(), PerfError> {
    let access = AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let access = if o.test.verb() == Verb::Atomic { access | AccessFlags::REMOTE_ATOMIC } else { access };
    rc_connect::to_init(qp, o.ib_port, access)?;
    let path = RcPath {
        port: o.ib_port,
        gid_index: o.gid_index.unwrap_or(0),
        mtu,
        dest_mac: o.dest_mac,
        rd_atomic,
        timeout: o.qp_timeout,
    };
    rc_connect::to_rts(qp, &path, mine.psn, remote)
}

/// `--progress`'s period.
fn progress_interval() -> Duration {
    Duration::from_secs(PROGRESS_INTERVAL_S)
}

/// How long `-e` waits for a completion event before giving up.
pub const EVENT_TIMEOUT: Duration = Duration::from_secs(10);

/// The measurement loops over the connected QPs.
struct Bw<'a> {
    qps: &'a mut [QueuePair],
    cq: &'a CompletionQueue,
    /// `-e`: wait on this channel instead of polling an empty CQ.
    channel: Option<&'a CompletionChannel>,
    mrs: &'a [MemoryRegion],
    remote: &'a [QpEndpoint],
    clock: &'a Clock,
    /// Offset of the source half of each buffer.
    src: u64,
    /// `--progress`: the wall-clock start and when the next line is due.
    progress: Option<(Instant, report::Progress)>,
    /// Receives posted and not completed, per QP.
    recv_outstanding: Vec<u64>,
}

/// Completions, at most `max`: polled; with `-e` (a channel), an empty CQ
/// is armed, polled once more (a completion may have landed before the
/// arm) and waited on through the channel, as perftest's
/// `ctx_notify_events` does. Every error status stops the run.
pub(crate) fn completions(
    cq: &CompletionQueue,
    channel: Option<&CompletionChannel>,
    max: usize,
) -> Result<Vec<WorkCompletion>, PerfError> {
    let mut wcs = cq.poll(max)?;
    if let (true, Some(ch)) = (wcs.is_empty(), channel) {
        cq.req_notify(false)?;
        wcs = cq.poll(max)?;
        if wcs.is_empty() {
            ch.get_event(EVENT_TIMEOUT)?;
            wcs = cq.poll(max)?;
        }
    }
    if let Some(wc) = wcs.iter().find(|wc| wc.status != WcStatus::Success) {
        return Err(PerfError::Completion { status: wc.status, wr_id: wc.wr_id });
    }
    Ok(wcs)
}

/// Completions seen and not waited for yet, sends and receives apart: in
/// a latency test the peer's reply can complete before this side's send.
#[derive(Default)]
struct Seen([u64; 2]);

impl Seen {
    /// Returns `true` once a send (`want_recv` false) or receive
    /// completion is there, polling (or waiting on `channel`) for more;
    /// `false` if the device clock passed `until` first (the end of a
    /// duration run, where the peer may have stopped).
    fn wait(
        &mut self,
        cq: &CompletionQueue,
        channel: Option<&CompletionChannel>,
        want_recv: bool,
        until: Until,
    ) -> Result<bool, PerfError> {
        loop {
            if self.0[want_recv as usize] > 0 {
                self.0[want_recv as usize] -= 1;
                return Ok(true);
            }
            if until.passed() {
                return Ok(false);
            }
            for wc in completions(cq, channel, 1)? {
                if let Some(r) = wc.is_recv() {
                    self.0[r as usize] += 1;
                }
            }
        }
    }
}

/// The device time a latency wait gives up at: `None` in an iteration
/// count run (the peer answers every message), the end of a duration run
/// (`-D`), where the peer stops at its own clock's end and the last ping
/// may never be answered (perftest's loops end on its alarm the same way).
#[derive(Clone, Copy)]
struct Until<'a>(Option<(&'a Clock, u64)>);

impl Until<'_> {
    fn passed(&self) -> bool {
        self.0.is_some_and(|(clock, end)| clock.now_ns() >= end)
    }
}

/// `--progress`: a line on stderr when one is due (stdout keeps
/// perftest's output only).
fn tick(progress: &mut Option<(Instant, report::Progress)>, line: impl FnOnce() -> String) {
    if let Some((start, p)) = progress {
        if p.due(start.elapsed()) {
            eprint!("{}", line());
        }
    }
}

impl Bw<'_> {
    fn completions(&self) -> Result<Vec<WorkCompletion>, PerfError> {
        completions(self.cq, self.channel, POLL_BATCH)
    }

    fn progress(&mut self, size: u64, done: u64, total: u64, elapsed_s: u64, duration_s: u64) {
        tick(&mut self.progress, || report::progress_line(size, done, total, elapsed_s, duration_s));
    }

    /// A duration run (`-D`, perftest's `test_type == DURATION`): every QP
    /// keeps `-t` messages outstanding for `duration_s` seconds of device
    /// time; the completions counted are those seen between `margin_s`
    /// after the start and `margin_s` before the end. Returns (messages,
    /// nanoseconds of that window). Every message is signaled (no CQ
    /// moderation: the window needs each completion's time).
    fn run_duration(
        &mut self,
        o: &Options,
        size: u64,
        duration_s: u64,
        margin_s: u64,
    ) -> Result<(u64, u64), PerfError> {
        let n = self.qps.len();
        let (mut scnt, mut ccnt) = (vec![0u64; n], vec![0u64; n]);
        let qpn_index: Vec<u32> = self.qps.iter().map(|q| q.qp_num()).collect();
        let (start, sec) = (self.clock.now_ns(), o.second_ns());
        let (from, to, end) = (start + margin_s * sec, start + (duration_s - margin_s) * sec, start + duration_s * sec);
        let (mut counted, mut first, mut last) = (0u64, None, start);
        loop {
            let now = self.clock.now_ns();
            if now >= end {
                break;
            }
            for q in 0..n {
                while scnt[q] - ccnt[q] < o.tx_depth as u64 {
                    let sge = [Sge::new(&self.mrs[q], self.src, size as u32)?];
                    let op = self.op(o, q);
                    self.qps[q].post_send(&[SendWr::new(scnt[q], op, &sge).flags(SendFlags::SIGNALED)])?;
                    scnt[q] += 1;
                }
            }
            for wc in self.completions()? {
                let q = qpn_index.iter().position(|&x| x == wc.qp_num).unwrap_or(0);
                if wc.is_recv() == Some(true) {
                    // -b with SEND: the peer's messages, a receive back for each
                    self.took_receive(q, size, true)?;
                    continue;
                }
                ccnt[q] += 1;
                let t = self.clock.now_ns();
                if (from..to).contains(&t) {
                    counted += 1;
                    first.get_or_insert(t);
                    last = t;
                }
            }
            let done: u64 = ccnt.iter().sum();
            self.progress(size, done, 0, (now - start) / sec, duration_s);
        }
        // Drain what is still outstanding, so the next size starts clean.
        while ccnt.iter().zip(&scnt).any(|(c, s)| c < s) {
            for wc in self.completions()? {
                let q = qpn_index.iter().position(|&x| x == wc.qp_num).unwrap_or(0);
                if wc.is_recv() == Some(true) {
                    self.took_receive(q, size, true)?;
                } else {
                    ccnt[q] += 1;
                }
            }
        }
        Ok((counted, last.saturating_sub(first.unwrap_or(from))))
    }

    /// A duration latency run: the ping-pong of [`Bw::lat`] one iteration
    /// at a time until `duration_s` seconds of device time have passed;
    /// returns (iterations in the window, its nanoseconds).
    fn lat_duration(
        &mut self,
        o: &Options,
        size: u64,
        buf: &DmaBuffer,
        client: bool,
        duration_s: u64,
        margin_s: u64,
    ) -> Result<(u64, u64), PerfError> {
        let (start, sec) = (self.clock.now_ns(), o.second_ns());
        let (from, to, end) = (start + margin_s * sec, start + (duration_s - margin_s) * sec, start + duration_s * sec);
        let (mut counted, mut first, mut last, mut i) = (0u64, None, start, 0u64);
        let one = Options { iters: 1, ..o.clone() };
        while self.clock.now_ns() < end {
            // the peer stops at its own clock's end: a wait past ours ends the run
            if !self.lat_from(&one, size, buf, client, i, Some(end))?.1 {
                break;
            }
            i += 1;
            let t = self.clock.now_ns();
            if (from..to).contains(&t) {
                counted += 1;
                first.get_or_insert(t);
                last = t;
            }
            self.progress(size, i, 0, (t - start) / sec, duration_s);
        }
        Ok((counted, last.saturating_sub(first.unwrap_or(from))))
    }

    fn op(&self, o: &Options, q: usize) -> SendOp {
        let remote = RemoteAddr { addr: self.remote[q].vaddr, rkey: self.remote[q].rkey };
        match o.test.verb() {
            Verb::Send => SendOp::Send,
            Verb::Write if o.write_with_imm => SendOp::RdmaWriteWithImm { remote, imm: 0 },
            Verb::Write => SendOp::RdmaWrite { remote },
            Verb::Read => SendOp::RdmaRead { remote },
            Verb::Atomic => match o.atomic_type {
                AtomicType::CmpAndSwap => SendOp::AtomicCmpAndSwp { remote, compare: 0, swap: 0 },
                AtomicType::FetchAndAdd => SendOp::AtomicFetchAndAdd { remote, add: 1 },
            },
        }
    }

    /// `ctx_set_recv_wqes`: receives on every QP up to `-r` (at most a
    /// size's messages), each over the first half of its buffer.
    fn post_receives(&mut self, o: &Options, size: u64) -> Result<(), PerfError> {
        let want = u64::from(o.rx_depth).min(o.iters);
        for q in 0..self.qps.len() {
            while self.recv_outstanding[q] < want {
                self.post_receive(q, size)?;
            }
        }
        Ok(())
    }

    fn post_receive(&mut self, q: usize, size: u64) -> Result<(), PerfError> {
        let sge = [Sge::new(&self.mrs[q], 0, size as u32)?];
        self.qps[q].post_recv(&[RecvWr { wr_id: q as u64, sg_list: &sge }])?;
        self.recv_outstanding[q] += 1;
        Ok(())
    }

    /// A receive of QP `q` completed; another is posted in its place if
    /// `repost` (the size needs more). Returns whether one was.
    fn took_receive(&mut self, q: usize, size: u64, repost: bool) -> Result<bool, PerfError> {
        self.recv_outstanding[q] -= 1;
        if repost {
            self.post_receive(q, size)?;
        }
        Ok(repost)
    }

    /// `run_iter_bw_server`: `-n` messages received on every QP, a receive
    /// reposted per completion while the size needs more; the figures
    /// from the first receive completion to the last (perftest turns the
    /// peak off on this side).
    fn run_server(&mut self, o: &Options, size: u64) -> Result<report::BwFigures, PerfError> {
        let n = self.qps.len();
        let iters = o.iters;
        let mut rcnt = vec![0u64; n];
        // the receives already posted count toward this size
        let mut posted = self.recv_outstanding.clone();
        let qpn_index: Vec<u32> = self.qps.iter().map(|q| q.qp_num()).collect();
        let mut first = None;
        while rcnt.iter().any(|&c| c < iters) {
            for wc in self.completions()? {
                if wc.is_recv() != Some(true) {
                    continue;
                }
                let q = qpn_index.iter().position(|&x| x == wc.qp_num).unwrap_or(0);
                first.get_or_insert(self.clock.now_ns());
                rcnt[q] += 1;
                if self.took_receive(q, size, posted[q] < iters)? {
                    posted[q] += 1;
                }
            }
            let done = rcnt.iter().sum::<u64>();
            self.progress(size, done, iters * n as u64, 0, 0);
        }
        let ns = self.clock.now_ns() - first.unwrap_or(0);
        Ok(report::bw_figures_duration(size, iters * n as u64, ns, o.report_gbits))
    }

    /// `run_iter_bw`: every QP posts `iters` messages in lists of `-l`, at
    /// most `-t` outstanding, one signaled every `-Q` (and the last);
    /// returns the post and completion times of each message, QP-major.
    /// With `-b` and receive completions (SEND, WRITE with immediate:
    /// perftest's `run_iter_bi`) the run also takes the peer's `iters`
    /// messages on every QP, a receive reposted per completion while the
    /// size needs more; the figures are the sends'.
    fn run(&mut self, o: &Options, size: u64) -> Result<(Vec<u64>, Vec<u64>), PerfError> {
        let n = self.qps.len();
        let iters = o.iters as usize;
        let receives = o.bidirectional && o.has_recv_comp();
        let mut rcnt = vec![0usize; n];
        // the receives already posted count toward this size
        let mut rposted: Vec<usize> = self.recv_outstanding.iter().map(|&r| r as usize).collect();
        let mut posted = vec![0u64; iters * n];
        let mut completed = vec![0u64; iters * n];
        let (mut scnt, mut ccnt) = (vec![0usize; n], vec![0usize; n]);
        let len = size as u32;
        let qpn_index: Vec<u32> = self.qps.iter().map(|q| q.qp_num()).collect();
        while ccnt.iter().any(|&c| c < iters) || (receives && rcnt.iter().any(|&c| c < iters)) {
            for q in 0..n {
                while scnt[q] < iters && scnt[q] - ccnt[q] + (o.post_list as usize) <= o.tx_depth as usize {
                    let sge = [Sge::new(&self.mrs[q], self.src, len)?];
                    let list_len = (o.post_list as usize).min(iters - scnt[q]);
                    let op = self.op(o, q);
                    let wrs: Vec<SendWr> = (0..list_len)
                        .map(|k| {
                            let i = scnt[q] + k;
                            let signaled = (i + 1) % o.cq_mod as usize == 0 || i + 1 == iters;
                            SendWr::new(i as u64, op, &sge).flags(if signaled {
                                SendFlags::SIGNALED
                            } else {
                                SendFlags::NONE
                            })
                        })
                        .collect();
                    let now = self.clock.now_ns();
                    posted[q * iters + scnt[q]..q * iters + scnt[q] + list_len].fill(now);
                    self.qps[q].post_send(&wrs)?;
                    scnt[q] += list_len;
                }
            }
            for wc in self.completions()? {
                let q = qpn_index.iter().position(|&x| x == wc.qp_num).unwrap_or(0);
                if wc.is_recv() == Some(true) {
                    rcnt[q] += 1;
                    if self.took_receive(q, size, rposted[q] < iters)? {
                        rposted[q] += 1;
                    }
                    continue;
                }
                let upto = (wc.wr_id as usize + 1).min(iters);
                let now = self.clock.now_ns();
                completed[q * iters + ccnt[q]..q * iters + upto].fill(now);
                ccnt[q] = upto.max(ccnt[q]);
            }
            let done = ccnt.iter().sum::<usize>() as u64;
            self.progress(size, done, (iters * n) as u64, 0, 0);
        }
        Ok((posted, completed))
    }

    /// A latency test's receive on the first QP: waited for, and another
    /// posted while the iterations need more.
    /// Waits for the peer's message (`false`: `until` passed first) and
    /// reposts a receive while the iterations need more.
    fn take_receive(
        &mut self,
        o: &Options,
        size: u64,
        seen: &mut Seen,
        received: &mut u64,
        until: Until,
    ) -> Result<bool, PerfError> {
        if !seen.wait(self.cq, self.channel, true, until)? {
            return Ok(false);
        }
        // received and outstanding after this one: the same sum
        let more = *received + self.recv_outstanding[0] < o.iters;
        *received += 1;
        self.took_receive(0, size, more).map(|_| true)
    }

    /// The ping-pong of a latency test on the first QP; returns the post
    /// times. READ and atomics: post, wait for the completion. SEND: the
    /// client sends and waits for the reply's receive completion, the
    /// server the other way round. WRITE: each side writes the iteration
    /// number into the peer's last byte and polls its own buffer for the
    /// peer's.
    fn lat(&mut self, o: &Options, size: u64, buf: &DmaBuffer, client: bool) -> Result<Vec<u64>, PerfError> {
        self.lat_from(o, size, buf, client, 0, None).map(|(stamps, _)| stamps)
    }

    /// [`Bw::lat`] from iteration `first` (the marker byte and work request
    /// IDs count on from there); with `until` (device ns), every wait gives
    /// up at that time. Returns the post times and whether every iteration
    /// ended (`false`: `until` passed during one).
    fn lat_from(
        &mut self,
        o: &Options,
        size: u64,
        buf: &DmaBuffer,
        client: bool,
        first: u64,
        until: Option<u64>,
    ) -> Result<(Vec<u64>, bool), PerfError> {
        let until = Until(until.map(|end| (self.clock, end)));
        let verb = o.test.verb();
        let len = size as u32;
        let sge = [Sge::new(&self.mrs[0], self.src, len)?];
        let op = self.op(o, 0);
        let mut stamps = Vec::with_capacity(o.iters as usize);
        let mut seen = Seen::default();
        let (cq, channel) = (self.cq, self.channel);
        // SEND (run_iter_lat_send): receives posted ahead (`-r`, at most
        // the iterations; the caller posts them before the barrier), one
        // reposted per receive while the iterations need more, so the
        // peer's next message never meets an empty queue (an RNR NAK)
        if verb == Verb::Send {
            self.post_receives(o, size)?;
        }
        let mut received = 0u64;
        let last = size as usize - 1;
        for i in first..first + o.iters {
            let marker = (i as u8).wrapping_add(1);
            match verb {
                Verb::Read | Verb::Atomic => {
                    stamps.push(self.clock.now_ns());
                    self.qps[0].post_send(&[SendWr::new(i, op, &sge)])?;
                    if !seen.wait(cq, channel, false, until)? {
                        return Ok((stamps, false));
                    }
                }
                Verb::Send => {
                    if !client && !self.take_receive(o, size, &mut seen, &mut received, until)? {
                        return Ok((stamps, false));
                    }
                    stamps.push(self.clock.now_ns());
                    self.qps[0].post_send(&[SendWr::new(i, op, &sge)])?;
                    if !seen.wait(cq, channel, false, until)?
                        || client && !self.take_receive(o, size, &mut seen, &mut received, until)?
                    {
                        return Ok((stamps, false));
                    }
                }
                Verb::Write => {
                    let poll_mine = |buf: &DmaBuffer| -> Result<bool, PerfError> {
                        let mut b = [0u8];
                        loop {
                            buf.read(last, &mut b)?;
                            if b[0] == marker {
                                return Ok(true);
                            }
                            if until.passed() {
                                return Ok(false);
                            }
                            buf.relax()?;
                        }
                    };
                    // run_iter_lat_write: the server writes first, the
                    // client polls first
                    if client && !poll_mine(buf)? {
                        return Ok((stamps, false));
                    }
                    stamps.push(self.clock.now_ns());
                    buf.write(self.src as usize + last, &[marker])?;
                    self.qps[0].post_send(&[SendWr::new(i, op, &sge)])?;
                    if !seen.wait(cq, channel, false, until)? || !client && !poll_mine(buf)? {
                        return Ok((stamps, false));
                    }
                }
            }
            let done = i + 1 - first;
            tick(&mut self.progress, || report::progress_line(size, done, o.iters, 0, 0));
        }
        Ok((stamps, true))
    }
}
