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
use crate::options::{AtomicType, Connection, Kind, Options, Verb};
use crate::report::{self, HeaderInfo};
use rnic_contract::codes::{Mtu, QpState, QpType, WcStatus};
use rnic_contract::regs::id_features;
use rnic_driver::connect::{BwReport, ConnectError, Peer, QpEndpoint, Session, SysData};
use rnic_driver::{
    AccessFlags, AhAttr, CompletionQueue, DmaBuffer, Gid, MemoryRegion, QpAttr, QueuePair, RecvWr, RemoteAddr,
    SendFlags, SendOp, SendWr, Sge,
};
use std::fmt;
use std::io::Write;
use std::net::{TcpListener, ToSocketAddrs};
use std::time::Duration;

/// How long the exchange waits for the peer at each step.
pub const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(60);
/// Completions polled at once.
pub const POLL_BATCH: usize = 16;
/// perftest's RTR and RTS values for RC (`ctx_modify_qp_to_rtr/rts`).
pub const MIN_RNR_TIMER: u8 = 12;
/// Retries (`DEF_RETRY_COUNT`).
pub const RETRY_COUNT: u8 = 7;

/// Why a run stopped.
#[derive(Debug)]
pub enum PerfError {
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
    /// No MAC for the peer's GID (only link-local GIDs carry it today).
    NoMac(Gid),
    /// A work completion with an error status.
    Completion {
        /// The status.
        status: WcStatus,
        /// The work request.
        wr_id: u64,
    },
    /// Writing the output failed.
    Output(String),
    /// An option this tool parses but does not run yet.
    NotYet(&'static str),
}

impl fmt::Display for PerfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
            PerfError::NoMac(g) => write!(f, "no MAC known for GID {g:02x?} (only link-local GIDs carry one)"),
            PerfError::Completion { status, wr_id } => write!(f, "work request {wr_id} completed with {status:?}"),
            PerfError::Output(e) => write!(f, "output: {e}"),
            PerfError::NotYet(what) => write!(f, "{what} is parsed but not run yet"),
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

/// Options parsed but not run yet: refused rather than run as something
/// else.
pub fn not_yet(o: &Options) -> Result<(), PerfError> {
    let pending = [
        (o.duration.is_some(), "-D (duration)"),
        (o.run_infinitely, "--run_infinitely"),
        (o.bidirectional, "-b (bidirectional)"),
        (o.use_event, "-e (events)"),
    ];
    match pending.into_iter().find(|(given, _)| *given) {
        Some((_, what)) => Err(PerfError::NotYet(what)),
        None => Ok(()),
    }
}

/// The MAC behind a link-local GID (modified EUI-64 reversed).
pub fn mac_from_gid(gid: &Gid) -> Option<[u8; 6]> {
    let link_local = gid[..8] == [0xfe, 0x80, 0, 0, 0, 0, 0, 0] && gid[11] == 0xff && gid[12] == 0xfe;
    link_local.then(|| [gid[8] ^ 2, gid[9], gid[10], gid[13], gid[14], gid[15]])
}

/// Runs the test the options name, printing perftest's output to `out`.
pub fn run(o: &Options, out: &mut impl Write) -> Result<(), PerfError> {
    let Opened { ctx, name, clock } = open(&o.device)?;
    check_features(ctx.query_device().features, o)?;
    not_yet(o)?;
    let verb = o.test.verb();
    let client = o.server.is_some();
    let gid_index = o.gid_index.unwrap_or(0);
    let gid = ctx.query_gid(o.ib_port, gid_index)?;
    let port = ctx.query_port(o.ib_port)?;

    // Resources: one buffer per QP, twice the largest size: the first half
    // is what the peer writes or reads (its rkey and address are sent), the
    // second half the source of this side's messages.
    let max_size = *o.sizes().iter().max().expect("at least one size") as usize;
    let pd = ctx.alloc_pd()?;
    let depth = o.tx_depth.max(o.rx_depth);
    let cq = ctx.create_cq(depth * o.qps, None)?;
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
        let buf = ctx.alloc_buffer(2 * max_size)?;
        let mr = pd.reg_mr(&buf, 0, 2 * max_size, access)?;
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

    // The exchange, in perftest's order.
    let peer = match &o.server {
        Some(host) => {
            let addr = (host.as_str(), o.port)
                .to_socket_addrs()
                .map_err(|_| PerfError::Resolve(host.clone()))?
                .next()
                .ok_or_else(|| PerfError::Resolve(host.clone()))?;
            Peer::Connect(addr)
        }
        None => Peer::Accept(TcpListener::bind(("0.0.0.0", o.port)).map_err(|e| PerfError::Output(e.to_string()))?),
    };
    let mut s = Session::open(peer, EXCHANGE_TIMEOUT)?;
    s.exchange_versions()?;
    s.exchange_sys_data(SysData::default())?;
    let mtu = s.exchange_mtu(o.mtu.unwrap_or(port.max_mtu))?;
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

    let mut bw = Bw { qps: &mut qps, cq: &cq, mrs: &mrs, remote: &remote, clock: &clock, src: max_size as u64 };
    match o.test.kind() {
        Kind::Bw => {
            out.write_all(report::bw_table_header(o.report_gbits).as_bytes())?;
            for size in o.sizes() {
                s.sync(&mine[0])?;
                if !client {
                    continue; // the server's side of a one-way BW test only waits
                }
                let (posted, completed) = bw.run(o, size)?;
                let f = report::bw_figures(
                    size,
                    &posted,
                    &completed,
                    o.cq_mod.into(),
                    o.post_list.into(),
                    o.no_peak,
                    o.report_gbits,
                );
                out.write_all(report::bw_row(&f, o.report_gbits).as_bytes())?;
                s.sync(&mine[0])?;
                s.exchange_bw_report(&BwReport {
                    size,
                    iters: f.iters,
                    bw_peak: f.bw_peak,
                    bw_avg: f.bw_avg,
                    msg_rate: f.msg_rate,
                })?;
            }
        }
        Kind::Lat => {
            out.write_all(report::lat_table_header().as_bytes())?;
            for size in o.sizes() {
                s.sync(&mine[0])?;
                let stamps = bw.lat(o, size, &bufs[0], client)?;
                if let Some(f) = report::lat_figures(size, verb, &stamps) {
                    out.write_all(report::lat_row(&f).as_bytes())?;
                }
            }
        }
    }
    out.write_all(report::RESULT_LINE.as_bytes())?;
    s.sync(&mine[0])?;
    Ok(())
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
    qp.modify(&QpAttr::new().state(QpState::Init).pkey_index(0).port(o.ib_port).access_flags(access))?;
    let mac = mac_from_gid(&remote.gid).ok_or(PerfError::NoMac(remote.gid))?;
    let mut av = AhAttr::new(remote.gid, mac);
    av.sgid_index = o.gid_index.unwrap_or(0);
    qp.modify(
        &QpAttr::new()
            .state(QpState::ReadyToReceive)
            .av(av)
            .path_mtu(mtu)
            .dest_qpn(remote.qpn)
            .rq_psn(remote.psn)
            .max_dest_rd_atomic(rd_atomic)
            .min_rnr_timer(MIN_RNR_TIMER),
    )?;
    qp.modify(
        &QpAttr::new()
            .state(QpState::ReadyToSend)
            .sq_psn(mine.psn)
            .timeout(o.qp_timeout)
            .retry_cnt(RETRY_COUNT)
            .rnr_retry(RETRY_COUNT)
            .max_rd_atomic(rd_atomic),
    )?;
    Ok(())
}

/// The measurement loops over the connected QPs.
struct Bw<'a> {
    qps: &'a mut [QueuePair],
    cq: &'a CompletionQueue,
    mrs: &'a [MemoryRegion],
    remote: &'a [QpEndpoint],
    clock: &'a Clock,
    /// Offset of the source half of each buffer.
    src: u64,
}

impl Bw<'_> {
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

    /// `run_iter_bw`: every QP posts `iters` messages in lists of `-l`, at
    /// most `-t` outstanding, one signaled every `-Q` (and the last);
    /// returns the post and completion times of each message, QP-major.
    fn run(&mut self, o: &Options, size: u64) -> Result<(Vec<u64>, Vec<u64>), PerfError> {
        let n = self.qps.len();
        let iters = o.iters as usize;
        let mut posted = vec![0u64; iters * n];
        let mut completed = vec![0u64; iters * n];
        let (mut scnt, mut ccnt) = (vec![0usize; n], vec![0usize; n]);
        let len = size as u32;
        let qpn_index: Vec<u32> = self.qps.iter().map(|q| q.qp_num()).collect();
        while ccnt.iter().any(|&c| c < iters) {
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
            for wc in self.cq.poll(POLL_BATCH)? {
                if wc.status != WcStatus::Success {
                    return Err(PerfError::Completion { status: wc.status, wr_id: wc.wr_id });
                }
                let q = qpn_index.iter().position(|&x| x == wc.qp_num).unwrap_or(0);
                let upto = (wc.wr_id as usize + 1).min(iters);
                let now = self.clock.now_ns();
                completed[q * iters + ccnt[q]..q * iters + upto].fill(now);
                ccnt[q] = upto.max(ccnt[q]);
            }
        }
        Ok((posted, completed))
    }

    /// The ping-pong of a latency test on the first QP; returns the post
    /// times. READ and atomics: post, wait for the completion. SEND: the
    /// client sends and waits for the reply's receive completion, the
    /// server the other way round. WRITE: each side writes the iteration
    /// number into the peer's last byte and polls its own buffer for the
    /// peer's.
    fn lat(&mut self, o: &Options, size: u64, buf: &DmaBuffer, client: bool) -> Result<Vec<u64>, PerfError> {
        let verb = o.test.verb();
        let len = size as u32;
        let sge = [Sge::new(&self.mrs[0], self.src, len)?];
        let recv_sge = [Sge::new(&self.mrs[0], 0, len)?];
        let op = self.op(o, 0);
        let mut stamps = Vec::with_capacity(o.iters as usize);
        let wait = |want_recv: bool| -> Result<(), PerfError> {
            loop {
                for wc in self.cq.poll(1)? {
                    if wc.status != WcStatus::Success {
                        return Err(PerfError::Completion { status: wc.status, wr_id: wc.wr_id });
                    }
                    if wc.is_recv() == Some(want_recv) {
                        return Ok(());
                    }
                }
            }
        };
        let last = size as usize - 1;
        for i in 0..o.iters {
            let marker = (i as u8).wrapping_add(1);
            match verb {
                Verb::Read | Verb::Atomic => {
                    stamps.push(self.clock.now_ns());
                    self.qps[0].post_send(&[SendWr::new(i, op, &sge)])?;
                    wait(false)?;
                }
                Verb::Send => {
                    self.qps[0].post_recv(&[RecvWr { wr_id: i, sg_list: &recv_sge }])?;
                    if !client {
                        wait(true)?;
                    }
                    stamps.push(self.clock.now_ns());
                    self.qps[0].post_send(&[SendWr::new(i, op, &sge)])?;
                    wait(false)?;
                    if client {
                        wait(true)?;
                    }
                }
                Verb::Write => {
                    let poll_mine = |buf: &DmaBuffer| -> Result<(), PerfError> {
                        let mut b = [0u8];
                        loop {
                            buf.read(last, &mut b)?;
                            if b[0] == marker {
                                return Ok(());
                            }
                        }
                    };
                    if !client {
                        poll_mine(buf)?;
                    }
                    stamps.push(self.clock.now_ns());
                    buf.write(self.src as usize + last, &[marker])?;
                    self.qps[0].post_send(&[SendWr::new(i, op, &sge)])?;
                    wait(false)?;
                    if client {
                        poll_mine(buf)?;
                    }
                }
            }
        }
        Ok(stamps)
    }
}
