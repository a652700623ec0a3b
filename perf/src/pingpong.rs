//! `rnic-pingpong`: rdma-core's `ibv_rc_pingpong`
//! (`libibverbs/examples/rc_pingpong.c`) on the rnic, so the guest's
//! `ibv_rc_pingpong` has a peer on either side:
//!
//! ```text
//! rnic-pingpong [-p PORT] [-d DEV] [-i IB_PORT] [-s SIZE] [-m MTU] [-r RX_DEPTH]
//!               [-n ITERS] [-l SL] [-e] [-g GID_INDEX] [--sim_wire L,P,IP] [-E MAC] [HOST]
//! ```
//!
//! The same options (short and long), defaults, exchange and loop as the C
//! tool: `RX_DEPTH` receives posted before the exchange
//! ([`Session::pingpong`]: the client's message first, the server brings its
//! QP to RTS before it replies), the path MTU from `-m` (not exchanged),
//! then SENDs of `SIZE` bytes one at a time: the
//! client sends first; each side sends again once its last send and the
//! peer's message have both completed, until `ITERS` of each; receives are
//! reposted when one is left. The output is rc_pingpong's two address
//! lines and two figure lines, timed by the device clock
//! ([`crate::device::Clock`]).
//!
//! One difference, so the bytes are checked: rc_pingpong sends from and
//! receives into one buffer of [`FILL`]; here the receives land in a
//! second buffer, poisoned with [`POISON`] before each message can arrive,
//! and every received message must be `SIZE` bytes of [`FILL`] (what both
//! tools send). A message that is not is counted and fails the run.
//! `-o` (on-demand paging) and `-t` (completion timestamps) are refused:
//! the device has neither. rc_pingpong asks for a hop limit of 1, which
//! Linux replaces on a RoCE path with the route's (`ib_resolve_unicast_gid_dmac`:
//! rxe's frames leave with TTL 64); this side keeps the address handle's
//! default, 64, as the frames of a Linux host would.

use crate::device::open;
use crate::options::{DeviceSel, DEF_QP_TIME};
use crate::rc_connect::{self, RcPath};
use crate::run::{completions, tcp_peer, PerfError};
use rnic_contract::codes::{Mtu, QpType};
use rnic_driver::connect::{QpEndpoint, Session, DEFAULT_PORT};
use rnic_driver::{AccessFlags, RecvWr, SendFlags, SendOp, SendWr, Sge};
use std::io::Write;
use std::net::Ipv6Addr;
use std::time::Duration;

/// What rc_pingpong fills its buffer with (`memset(ctx->buf, 0x7b, size)`).
pub const FILL: u8 = 0x7b;
/// What the receive buffer holds before a message lands.
pub const POISON: u8 = 0x00;
/// `-s`'s default.
pub const DEF_SIZE: u32 = 4096;
/// `-r`'s default.
pub const DEF_RX_DEPTH: u32 = 500;
/// `-n`'s default.
pub const DEF_ITERS: u32 = 1000;
/// `-m`'s default.
pub const DEF_MTU: Mtu = Mtu::Mtu1024;
/// A receive's `wr_id` (`PINGPONG_RECV_WRID`).
pub const RECV_WRID: u64 = 1;
/// A send's `wr_id` (`PINGPONG_SEND_WRID`).
pub const SEND_WRID: u64 = 2;
/// How long the exchange waits for the peer.
pub const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(60);

/// The command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PingpongOptions {
    /// `-d`, `--sim_wire`.
    pub device: DeviceSel,
    /// `-E`: the peer's MAC.
    pub dest_mac: Option<[u8; 6]>,
    /// `-p`: the TCP port.
    pub port: u16,
    /// `-i`: the device's port.
    pub ib_port: u8,
    /// `-s`: bytes per message.
    pub size: u32,
    /// `-m`: the path MTU.
    pub mtu: Mtu,
    /// `-r`: receives posted at a time.
    pub rx_depth: u32,
    /// `-n`: exchanges.
    pub iters: u32,
    /// `-l`: the service level (RoCE carries it only in a VLAN tag, which
    /// this tool does not set: accepted, without effect, as on rxe).
    pub sl: u8,
    /// `-e`: sleep on completion events.
    pub use_event: bool,
    /// `-g`: the GID index; none sends a zero GID, as rc_pingpong does.
    pub gid_index: Option<u32>,
    /// The server to connect to; `None`: listen.
    pub server: Option<String>,
}

impl Default for PingpongOptions {
    fn default() -> Self {
        PingpongOptions {
            device: DeviceSel::Sim,
            dest_mac: None,
            port: DEFAULT_PORT,
            ib_port: 1,
            size: DEF_SIZE,
            mtu: DEF_MTU,
            rx_depth: DEF_RX_DEPTH,
            iters: DEF_ITERS,
            sl: 0,
            use_event: false,
            gid_index: None,
            server: None,
        }
    }
}

/// Parses `rnic-pingpong [options] [HOST]` (`--name=value` or `--name value`).
pub fn parse(argv: &[String]) -> Result<PingpongOptions, String> {
    let mut o = PingpongOptions::default();
    let mut it = argv.iter().skip(1);
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned()).ok_or(format!("{name} needs a value"));
        let num = |v: String, max: u64| -> Result<u64, String> {
            // strtoul(optarg, NULL, 0): decimal, 0x hex
            let n = match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => v.parse(),
            };
            n.ok().filter(|n| *n <= max).ok_or(format!("{name} {v}: not a number up to {max}"))
        };
        match name {
            "-p" | "--port" => o.port = num(value()?, u16::MAX as u64)? as u16,
            "-d" | "--ib-dev" => {
                let v = value()?;
                o.device = if v == "sim" { DeviceSel::Sim } else { DeviceSel::Pci(v) };
            }
            "--sim_wire" => {
                let v = value()?;
                o.device = crate::options::parse_sim_wire(&v).map_err(|e| format!("--sim_wire {v}: {e}"))?;
            }
            "-E" => {
                let v = value()?;
                o.dest_mac = Some(rnic_driver::neigh::parse_mac(&v).ok_or(format!("-E {v}: not a MAC"))?);
            }
            "-i" | "--ib-port" => o.ib_port = num(value()?, u8::MAX as u64)?.max(1) as u8,
            "-s" | "--size" => o.size = num(value()?, u32::MAX as u64)? as u32,
            "-m" | "--mtu" => {
                let v = value()?;
                o.mtu = mtu_from_bytes(num(v.clone(), u32::MAX as u64)?).ok_or(format!("{name} {v}: not an MTU"))?;
            }
            "-r" | "--rx-depth" => o.rx_depth = num(value()?, u32::MAX as u64)? as u32,
            "-n" | "--iters" => o.iters = num(value()?, u32::MAX as u64)? as u32,
            "-l" | "--sl" => o.sl = num(value()?, 15)? as u8,
            "-e" | "--events" => o.use_event = true,
            "-g" | "--gid-idx" => o.gid_index = Some(num(value()?, u32::MAX as u64)? as u32),
            "-o" | "--odp" => return Err("-o: the device has no on-demand paging".into()),
            "-t" | "--ts" => return Err("-t: the device has no completion timestamps".into()),
            h if !h.starts_with('-') && o.server.is_none() => o.server = Some(h.into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if o.rx_depth < 2 {
        // rc_pingpong reposts when one receive is left
        return Err(format!("-r {}: at least 2", o.rx_depth));
    }
    Ok(o)
}

/// `pp_mtu_to_enum`: 256 to 4096 bytes.
pub fn mtu_from_bytes(bytes: u64) -> Option<Mtu> {
    (bytes.is_power_of_two() && (256..=4096).contains(&bytes))
        .then(|| Mtu::from_raw(u64::from(bytes.trailing_zeros()) - 7))
        .flatten()
}

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PingpongSummary {
    /// Messages received.
    pub received: u32,
    /// Messages sent.
    pub sent: u32,
    /// Received messages that were not `size` bytes of [`FILL`].
    pub bad: u32,
    /// Device nanoseconds from the first send to the last completion.
    pub ns: u64,
}

/// rc_pingpong's address line (`inet_ntop(AF_INET6)` of the GID).
pub fn address_line(remote: bool, ep: &QpEndpoint) -> String {
    format!(
        "  {} address:  LID 0x{:04x}, QPN 0x{:06x}, PSN 0x{:06x}, GID {}\n",
        if remote { "remote" } else { "local" },
        ep.lid,
        ep.qpn,
        ep.psn,
        Ipv6Addr::from(ep.gid)
    )
    .replacen("remote address:  ", "remote address: ", 1)
}

/// rc_pingpong's two figure lines for `iters` exchanges of `size` bytes in `ns`.
pub fn figure_lines(size: u32, iters: u32, ns: u64) -> String {
    let usec = ns as f64 / 1e3;
    let bytes = size as u64 * iters as u64 * 2;
    format!(
        "{bytes} bytes in {:.2} seconds = {:.2} Mbit/sec\n{iters} iters in {:.2} seconds = {:.2} usec/iter\n",
        usec / 1e6,
        bytes as f64 * 8.0 / usec,
        usec / 1e6,
        usec / iters as f64
    )
}

/// Runs one side; rc_pingpong's lines and a check line to `out`.
pub fn run(o: &PingpongOptions, out: &mut impl Write) -> Result<PingpongSummary, PerfError> {
    let opened = open(&o.device)?;
    let (ctx, clock) = (opened.ctx, opened.clock);
    let size = o.size as usize;
    let pd = ctx.alloc_pd()?;
    // [0, size): what is sent; [size, 2 size): where messages land
    let buf = ctx.alloc_buffer((2 * size).max(1))?;
    buf.write(0, &vec![FILL; size])?;
    buf.write(size, &vec![POISON; size])?;
    let mr = pd.reg_mr(&buf, 0, (2 * size).max(1), AccessFlags::LOCAL_WRITE)?;
    let channel = if o.use_event { Some(ctx.create_comp_channel()?) } else { None };
    let cq = ctx.create_cq(o.rx_depth + 1, channel.as_ref())?;
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_send_wr(1).max_recv_wr(o.rx_depth).build()?;
    rc_connect::to_init(&mut qp, o.ib_port, AccessFlags::NONE)?;
    let recv_sge = [Sge::new(&mr, size as u64, o.size)?];
    let post_recv = |qp: &mut rnic_driver::QueuePair, n: u32| -> Result<(), PerfError> {
        let wrs: Vec<RecvWr> = (0..n).map(|_| RecvWr { wr_id: RECV_WRID, sg_list: &recv_sge }).collect();
        qp.post_recv(&wrs)?;
        Ok(())
    };
    post_recv(&mut qp, o.rx_depth)?;
    let mut routs = o.rx_depth;

    let gid = match o.gid_index {
        Some(i) => ctx.query_gid(o.ib_port, i)?,
        None => [0; 16],
    };
    let mine = QpEndpoint::new(qp.qp_num(), gid);
    out.write_all(address_line(false, &mine).as_bytes())?;
    let path = RcPath {
        port: o.ib_port,
        gid_index: o.gid_index.unwrap_or(0),
        mtu: o.mtu,
        dest_mac: o.dest_mac,
        rd_atomic: 1,
        timeout: DEF_QP_TIME,
    };
    let connect = |qp: &mut rnic_driver::QueuePair, remote: &QpEndpoint| -> Result<(), PerfError> {
        if remote.gid == [0; 16] {
            // rc_pingpong leaves the AV without a GRH: RoCE has no LIDs
            return Err(PerfError::NoGid);
        }
        rc_connect::to_rts(qp, &path, mine.psn, remote)
    };
    let mut s = Session::open(tcp_peer(o.server.as_deref(), o.port)?, EXCHANGE_TIMEOUT)?;
    if let Some(idle) = opened.idle {
        s.while_waiting(idle)?;
    }
    let client = o.server.is_some();
    let remote = s.pingpong(&mine, |r| if client { Ok(()) } else { connect(&mut qp, r) })?;
    drop(s);
    out.write_all(address_line(true, &remote).as_bytes())?;
    if client {
        connect(&mut qp, &remote)?;
    }

    // The loop: rc_pingpong's `pending` bits and parse_single_wc.
    let send_sge = [Sge::new(&mr, 0, o.size)?];
    let send = SendWr::new(SEND_WRID, SendOp::Send, &send_sge).flags(SendFlags::SIGNALED);
    let mut pending = RECV_WRID;
    if client {
        qp.post_send(std::slice::from_ref(&send))?;
        pending |= SEND_WRID;
    }
    let start = clock.now_ns();
    let (mut rcnt, mut scnt, mut bad) = (0u32, 0u32, 0u32);
    let mut landed = vec![0u8; size];
    while rcnt < o.iters || scnt < o.iters {
        for wc in completions(&cq, channel.as_ref(), 2)? {
            match wc.wr_id {
                SEND_WRID => scnt += 1,
                RECV_WRID => {
                    routs -= 1;
                    if routs <= 1 {
                        post_recv(&mut qp, o.rx_depth - routs)?;
                        routs = o.rx_depth;
                    }
                    rcnt += 1;
                    buf.read(size, &mut landed)?;
                    if wc.byte_len != o.size || landed.iter().any(|&b| b != FILL) {
                        bad += 1;
                        let first = landed.iter().position(|&b| b != FILL);
                        writeln!(
                            out,
                            "message {rcnt}: {} bytes, first byte not {FILL:#04x} at {first:?}",
                            wc.byte_len
                        )?;
                    }
                    // the peer sends again only after this side's next send
                    buf.write(size, &vec![POISON; size])?;
                }
                id => return Err(PerfError::Output(format!("a completion for unknown wr_id {id}"))),
            }
            pending &= !wc.wr_id;
            if scnt < o.iters && pending == 0 {
                qp.post_send(std::slice::from_ref(&send))?;
                pending = RECV_WRID | SEND_WRID;
            }
        }
    }
    let ns = clock.now_ns() - start;
    out.write_all(figure_lines(o.size, o.iters, ns).as_bytes())?;
    writeln!(
        out,
        "rnic-pingpong: {rcnt} messages received, {}",
        if bad == 0 { format!("every one {} bytes of {FILL:#04x}", o.size) } else { format!("{bad} BAD") }
    )?;
    if let Some(wire) = opened.wire {
        eprintln!("rnic-pingpong: the simulated wire: {}", wire());
    }
    Ok(PingpongSummary { received: rcnt, sent: scnt, bad, ns })
}
