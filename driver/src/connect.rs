//! Out-of-band connection set-up over TCP: the exchange of QPN, PSN, GID,
//! rkey and address that perftest and `ibv_rc_pingpong` run before any
//! packet moves, so a QP here can face a real `ib_write_bw` or
//! `ibv_rc_pingpong` on the other side (`std::net` only).
//!
//! Two protocols, byte for byte as their C sources write them:
//!
//! * **perftest** (linux-rdma/perftest at commit
//!   `00b55b6660d0170dabe2c1b49193e8fbe265086e`, `src/perftest_communication.c`
//!   and `.h`): every exchange is `ctx_xchg_data`: the client writes its
//!   bytes then reads the server's, the server reads then writes. In order:
//!   the version strings ([`VERSION_LEN`] bytes, `exchange_versions`; a peer
//!   older than [`MIN_PEER_VERSION`] is refused as in
//!   `check_version_compatibility`), the system data (`check_sys_data`:
//!   cycle buffer and cache line size as big-endian `int`s, each side keeps
//!   the larger), the MTU (`check_mtu`: the `ibv_mtu` code printed with `%d`
//!   in two bytes, each side keeps the smaller), then one key message per QP
//!   (`ctx_hand_shake`, [`KEY_PRINT_FMT_GID`] form: lid, out_reads, qpn, psn,
//!   rkey, vaddr, 16 GID bytes, srqn; [`KEY_MSG_SIZE_GID`] bytes with the
//!   NUL). The same key exchange serves as the barrier between message sizes
//!   ([`Session::sync`]) and before closing; a BW test ends with
//!   `xchg_bw_reports` ([`Session::exchange_bw_report`]).
//!
//!   perftest 6.28 and later also exchange `perftest_parameters_negotiate`,
//!   a binary struct that embeds `struct ibv_device_attr`, but only when the
//!   *peer's* version is 6.28 or later. This side announces
//!   [`ADVERTISED_VERSION`] ("6.27"), so a current `ib_write_bw` skips that
//!   step, and so does this side.
//! * **ibv_rc_pingpong** (rdma-core `libibverbs/examples/pingpong.c`,
//!   `rc_pingpong.c`): one [`PINGPONG_MSG_SIZE`]-byte message each way
//!   (`"%04x:%06x:%06x:%s"`: lid, qpn, psn, the GID as 32 hex digits), the
//!   client first, then the client's [`PINGPONG_DONE`].
//!
//! [`connect`] is the short path: versions, system data and the keys of one
//! QP, returning the peer's [`QpEndpoint`]:
//!
//! ```
//! use rnic_driver::connect::{connect, Peer, QpEndpoint};
//! use std::net::TcpListener;
//! use std::time::Duration;
//!
//! let listener = TcpListener::bind("127.0.0.1:0").unwrap();
//! let addr = listener.local_addr().unwrap();
//! let gid_a = rnic_driver::ipv4_gid([10, 0, 0, 1]);
//! let gid_b = rnic_driver::ipv4_gid([10, 0, 0, 2]);
//! let server = std::thread::spawn(move || {
//!     let me = QpEndpoint::new(0x11, gid_a).rdma(0x100, 0x1000);
//!     connect(Peer::Accept(listener), &me, Duration::from_secs(5))
//! });
//! let me = QpEndpoint::new(0x22, gid_b).rdma(0x200, 0x2000);
//! let remote = connect(Peer::Connect(addr), &me, Duration::from_secs(5))?;
//! assert_eq!((remote.qpn, remote.gid, remote.rkey, remote.vaddr), (0x11, gid_a, 0x100, 0x1000));
//! assert_eq!(server.join().unwrap()?.qpn, 0x22);
//! # Ok::<(), rnic_driver::connect::ConnectError>(())
//! ```

use crate::device::Gid;
use rnic_contract::codes::Mtu;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, SystemTime};

/// perftest's and ibv_rc_pingpong's TCP port (`DEF_PORT`).
pub const DEFAULT_PORT: u16 = 18515;
/// PSNs are 24 bits (`lrand48() & 0xffffff` in both tools).
pub const PSN_MASK: u32 = 0xff_ffff;
/// Bytes of a version string on the wire (`MAX_VERSION`).
pub const VERSION_LEN: usize = 16;
/// The version this side announces: recent enough for every peer
/// (>= [`MIN_PEER_VERSION`]; system data, two-byte MTU and 64-bit report
/// fields are all on), below [`NEGOTIATE_VERSION`] so that no peer runs
/// the parameter negotiation.
pub const ADVERTISED_VERSION: &str = "6.27";
/// perftest refuses peers older than this (`check_version_compatibility`).
pub const MIN_PEER_VERSION: &str = "5.70";
/// From this version of the peer on, perftest negotiates parameters.
pub const NEGOTIATE_VERSION: &str = "6.28";
/// A key message without GID (`KEY_MSG_SIZE`, with the NUL).
pub const KEY_MSG_SIZE: usize = 59;
/// A key message with GID (`KEY_MSG_SIZE_GID`, with the NUL).
pub const KEY_MSG_SIZE_GID: usize = 108;
/// perftest's key format without GID, as in `perftest_communication.h`.
pub const KEY_PRINT_FMT: &str = "%04x:%04x:%06x:%06x:%08x:%016llx:%08x";
/// perftest's key format with GID, as in `perftest_communication.h`.
pub const KEY_PRINT_FMT_GID: &str = "%04x:%04x:%06x:%06x:%08x:%016llx:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%08x:";
/// ibv_rc_pingpong's message (`sizeof "0000:000000:000000:" + 32`, with NUL).
pub const PINGPONG_MSG_SIZE: usize = 52;
/// What the ibv_rc_pingpong client sends when it is connected (with NUL).
pub const PINGPONG_DONE: &[u8] = b"done\0";
/// perftest's default cycle buffer (`DEF_PAGE_SIZE`).
pub const DEF_CYCLE_BUFFER: u32 = 4096;
/// perftest's default cache line size (`DEF_CACHE_LINE_SIZE`).
pub const DEF_CACHE_LINE_SIZE: u32 = 64;

/// A step of the exchange, named in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Connecting to the server.
    Connect,
    /// Accepting the client.
    Accept,
    /// Version strings.
    Version,
    /// Cycle buffer and cache line size.
    SysData,
    /// The MTU.
    Mtu,
    /// A QP's key message.
    Keys,
    /// A barrier (the key message again).
    Sync,
    /// The BW report.
    Report,
    /// ibv_rc_pingpong's message.
    Pingpong,
    /// ibv_rc_pingpong's "done".
    Done,
}

/// Why a connection exchange failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectError {
    /// A socket call failed.
    Io {
        /// During what.
        step: Step,
        /// The error's kind.
        kind: io::ErrorKind,
        /// The error's text.
        message: String,
    },
    /// The peer closed the connection in the middle of a message.
    PeerClosed {
        /// During what.
        step: Step,
        /// Bytes received of the message.
        got: usize,
        /// The message's size.
        expected: usize,
    },
    /// The peer sent nothing for the whole timeout.
    Timeout {
        /// During what.
        step: Step,
        /// The timeout.
        after: Duration,
    },
    /// A message that is not in its format.
    Malformed {
        /// Which message.
        step: Step,
        /// What is wrong.
        reason: String,
        /// The bytes received.
        bytes: Vec<u8>,
    },
    /// The peer runs a perftest older than [`MIN_PEER_VERSION`].
    VersionTooOld {
        /// The peer's version string.
        peer: String,
    },
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Io { step, kind, message } => write!(f, "{step:?}: socket error ({kind:?}): {message}"),
            ConnectError::PeerClosed { step, got, expected } => {
                write!(f, "{step:?}: the peer closed the connection after {got} of {expected} bytes")
            }
            ConnectError::Timeout { step, after } => write!(f, "{step:?}: nothing from the peer for {after:?}"),
            ConnectError::Malformed { step, reason, bytes } => {
                write!(f, "{step:?}: malformed message ({reason}): {:?}", String::from_utf8_lossy(bytes))
            }
            ConnectError::VersionTooOld { peer } => {
                write!(f, "the peer runs perftest {peer}, older than {MIN_PEER_VERSION}")
            }
        }
    }
}

impl std::error::Error for ConnectError {}

fn io_error(step: Step, e: io::Error, after: Duration) -> ConnectError {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => ConnectError::Timeout { step, after },
        kind => ConnectError::Io { step, kind, message: e.to_string() },
    }
}

fn malformed(step: Step, reason: impl Into<String>, bytes: &[u8]) -> ConnectError {
    ConnectError::Malformed { step, reason: reason.into(), bytes: bytes.to_vec() }
}

/// A random 24-bit PSN, as both tools draw one (`lrand48() & 0xffffff`):
/// from the standard library's per-process random hash keys and the clock.
pub fn random_psn() -> u32 {
    let mut h = RandomState::new().build_hasher();
    let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    h.write_u128(now.as_nanos());
    (h.finish() as u32) & PSN_MASK
}

/// One side of a QP connection: what perftest's `pingpong_dest` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpEndpoint {
    /// LID: 0 on RoCE.
    pub lid: u16,
    /// Outstanding RDMA reads and atomics the QP takes (`out_reads`).
    pub out_reads: u16,
    /// The QP number (24 bits).
    pub qpn: u32,
    /// The first PSN this side sends (24 bits).
    pub psn: u32,
    /// The rkey of the buffer the peer may access.
    pub rkey: u32,
    /// The buffer's address.
    pub vaddr: u64,
    /// SRQ number (XRC and DC only; 0 here).
    pub srqn: u32,
    /// The port's GID.
    pub gid: Gid,
}

impl QpEndpoint {
    /// An endpoint with a random PSN, one outstanding read, no buffer.
    pub fn new(qpn: u32, gid: Gid) -> QpEndpoint {
        QpEndpoint { lid: 0, out_reads: 1, qpn, psn: random_psn(), rkey: 0, vaddr: 0, srqn: 0, gid }
    }

    /// With the buffer the peer may read or write.
    pub fn rdma(mut self, rkey: u32, vaddr: u64) -> QpEndpoint {
        self.rkey = rkey;
        self.vaddr = vaddr;
        self
    }

    /// perftest's key message in `KEY_PRINT_FMT_GID` form, with its NUL.
    pub fn encode_key_gid(&self) -> [u8; KEY_MSG_SIZE_GID] {
        let mut s = self.key_head();
        for b in self.gid {
            s.push_str(&format!("{b:02x}:"));
        }
        s.push_str(&format!("{:08x}:", self.srqn));
        to_fixed(&s)
    }

    /// perftest's key message in `KEY_PRINT_FMT` form (no GID: IB with a
    /// LID), with its NUL.
    pub fn encode_key(&self) -> [u8; KEY_MSG_SIZE] {
        to_fixed(&format!("{}{:08x}", self.key_head(), self.srqn))
    }

    fn key_head(&self) -> String {
        format!(
            "{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}:",
            self.lid,
            self.out_reads,
            self.qpn & PSN_MASK,
            self.psn & PSN_MASK,
            self.rkey,
            self.vaddr
        )
    }

    /// Parses a `KEY_PRINT_FMT_GID` message.
    pub fn parse_key_gid(msg: &[u8]) -> Result<QpEndpoint, ConnectError> {
        let f = fields(Step::Keys, msg, KEY_MSG_SIZE_GID, &KEY_GID_WIDTHS, true)?;
        let mut gid = [0u8; 16];
        for (i, g) in gid.iter_mut().enumerate() {
            *g = f[6 + i] as u8;
        }
        Ok(Self::from_key_fields(&f, f[22], gid))
    }

    /// Parses a `KEY_PRINT_FMT` message (the GID is zero).
    pub fn parse_key(msg: &[u8]) -> Result<QpEndpoint, ConnectError> {
        let f = fields(Step::Keys, msg, KEY_MSG_SIZE, &KEY_WIDTHS, false)?;
        Ok(Self::from_key_fields(&f, f[6], [0; 16]))
    }

    /// The endpoint from a key message's leading fields (lid, out_reads,
    /// qpn, psn, rkey, vaddr), its SRQ number and GID.
    fn from_key_fields(f: &[u64], srqn: u64, gid: [u8; 16]) -> QpEndpoint {
        QpEndpoint {
            lid: f[0] as u16,
            out_reads: f[1] as u16,
            qpn: f[2] as u32,
            psn: f[3] as u32,
            rkey: f[4] as u32,
            vaddr: f[5],
            srqn: srqn as u32,
            gid,
        }
    }

    /// ibv_rc_pingpong's message (`"%04x:%06x:%06x:%s"`, the GID as 32 hex
    /// digits in wire order), with its NUL.
    pub fn encode_pingpong(&self) -> [u8; PINGPONG_MSG_SIZE] {
        let mut s = format!("{:04x}:{:06x}:{:06x}:", self.lid, self.qpn & PSN_MASK, self.psn & PSN_MASK);
        for b in self.gid {
            s.push_str(&format!("{b:02x}"));
        }
        to_fixed(&s)
    }

    /// Parses ibv_rc_pingpong's message (rkey, vaddr, out_reads and srqn
    /// are not in it: 0, 0, 1, 0).
    pub fn parse_pingpong(msg: &[u8]) -> Result<QpEndpoint, ConnectError> {
        let f = fields(Step::Pingpong, msg, PINGPONG_MSG_SIZE, &[4, 6, 6, 32], false)?;
        let text = std::str::from_utf8(&msg[19..51]).map_err(|_| malformed(Step::Pingpong, "GID", msg))?;
        let mut gid = [0u8; 16];
        for (i, g) in gid.iter_mut().enumerate() {
            *g = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| malformed(Step::Pingpong, "GID", msg))?;
        }
        Ok(QpEndpoint {
            lid: f[0] as u16,
            out_reads: 1,
            qpn: f[1] as u32,
            psn: f[2] as u32,
            rkey: 0,
            vaddr: 0,
            srqn: 0,
            gid,
        })
    }
}

/// Field widths of `KEY_PRINT_FMT`.
const KEY_WIDTHS: [usize; 7] = [4, 4, 6, 6, 8, 16, 8];
/// Field widths of `KEY_PRINT_FMT_GID`: the head, 16 GID bytes, srqn.
const KEY_GID_WIDTHS: [usize; 23] = [4, 4, 6, 6, 8, 16, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 8];

fn to_fixed<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    debug_assert_eq!(s.len(), N - 1, "{s}");
    out[..s.len()].copy_from_slice(s.as_bytes());
    out
}

/// Splits a fixed-size, NUL-terminated message of `:`-separated hex fields
/// of the given widths (what printf's `%0Nx` gives for values that fit).
/// Fields wider than 16 digits (the pingpong GID) are returned as 0.
fn fields(step: Step, msg: &[u8], size: usize, widths: &[usize], trailing: bool) -> Result<Vec<u64>, ConnectError> {
    if msg.len() != size {
        return Err(malformed(step, format!("{} bytes, not {size}", msg.len()), msg));
    }
    if msg[size - 1] != 0 {
        return Err(malformed(step, "no NUL at the end", msg));
    }
    let text = std::str::from_utf8(&msg[..size - 1]).map_err(|_| malformed(step, "not ASCII", msg))?;
    let text =
        if trailing { text.strip_suffix(':').ok_or_else(|| malformed(step, "no ':' at the end", msg))? } else { text };
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() != widths.len() {
        return Err(malformed(step, format!("{} fields, not {}", parts.len(), widths.len()), msg));
    }
    let mut out = Vec::with_capacity(parts.len());
    for (i, (p, &w)) in parts.iter().zip(widths).enumerate() {
        if p.len() != w || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(malformed(step, format!("field {i} is {p:?}, not {w} hex digits"), msg));
        }
        out.push(if w <= 16 { u64::from_str_radix(p, 16).expect("checked hex digits") } else { 0 });
    }
    Ok(out)
}

/// A perftest version as `atof` reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerVersion {
    /// The string as sent, up to its NUL.
    pub text: String,
    /// Its numeric value (`atof`).
    pub value: f64,
}

/// `atof`'s value of the leading `digits[.digits]` of a string (0 if none).
fn atof(s: &str) -> f64 {
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let mut head = &s[..end];
    if let Some(second) = head.match_indices('.').nth(1) {
        head = &head[..second.0];
    }
    head.parse::<f64>().unwrap_or(0.0)
}

/// The version message: the string, NUL-padded to [`VERSION_LEN`] bytes.
pub fn encode_version(version: &str) -> [u8; VERSION_LEN] {
    let mut out = [0u8; VERSION_LEN];
    let n = version.len().min(VERSION_LEN - 1);
    out[..n].copy_from_slice(&version.as_bytes()[..n]);
    out
}

/// Parses a version message; refuses one older than [`MIN_PEER_VERSION`].
pub fn parse_version(msg: &[u8]) -> Result<PeerVersion, ConnectError> {
    let end = msg.iter().position(|&b| b == 0).ok_or_else(|| malformed(Step::Version, "no NUL", msg))?;
    let text = std::str::from_utf8(&msg[..end]).map_err(|_| malformed(Step::Version, "not ASCII", msg))?;
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(malformed(Step::Version, "not a version number", msg));
    }
    let value = atof(text);
    if value < atof(MIN_PEER_VERSION) {
        return Err(ConnectError::VersionTooOld { peer: text.to_string() });
    }
    Ok(PeerVersion { text: text.to_string(), value })
}

/// The MTU message: the `ibv_mtu` code as `%d`, in two bytes.
pub fn encode_mtu(mtu: Mtu) -> [u8; 2] {
    [b'0' + mtu.raw(), 0]
}

/// Parses an MTU message (`strtol`, then `valid_mtu_size`: an invalid MTU
/// is `None`, and perftest then keeps its own).
pub fn parse_mtu(msg: [u8; 2]) -> Option<Mtu> {
    if msg[0].is_ascii_digit() && (msg[1] == 0 || msg[1].is_ascii_digit()) {
        let n = if msg[1] == 0 { msg[0] - b'0' } else { (msg[0] - b'0') * 10 + (msg[1] - b'0') };
        Mtu::from_raw(n as u64)
    } else {
        None
    }
}

/// What `check_sys_data` exchanges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SysData {
    /// The buffer cycle (the page size).
    pub cycle_buffer: u32,
    /// The cache line size.
    pub cache_line_size: u32,
}

impl Default for SysData {
    fn default() -> Self {
        SysData { cycle_buffer: DEF_CYCLE_BUFFER, cache_line_size: DEF_CACHE_LINE_SIZE }
    }
}

/// What `xchg_bw_reports` exchanges (report per port off): each field
/// big-endian, one exchange each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BwReport {
    /// Message size.
    pub size: u64,
    /// Iterations.
    pub iters: u64,
    /// Peak bandwidth, in the test's unit.
    pub bw_peak: f64,
    /// Average bandwidth.
    pub bw_avg: f64,
    /// Message rate in Mpps.
    pub msg_rate: f64,
}

/// Which side: the client connects and writes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Listens; reads before it writes.
    Server,
    /// Connects; writes before it reads.
    Client,
}

/// Where the peer is.
#[derive(Debug)]
pub enum Peer {
    /// Wait for a client on this listener (this side is the server).
    Accept(TcpListener),
    /// Connect to a server (this side is the client).
    Connect(SocketAddr),
}

/// An open exchange with a peer.
pub struct Session {
    stream: TcpStream,
    role: Role,
    timeout: Duration,
    peer_version: Option<PeerVersion>,
    idle: Option<Box<dyn FnMut()>>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("stream", &self.stream)
            .field("role", &self.role)
            .field("timeout", &self.timeout)
            .field("peer_version", &self.peer_version)
            .field("idle", &self.idle.is_some())
            .finish()
    }
}

impl Session {
    /// Connects to (`Peer::Connect`) or accepts (`Peer::Accept`) the peer;
    /// every later read waits at most `timeout`.
    pub fn open(peer: Peer, timeout: Duration) -> Result<Session, ConnectError> {
        let (stream, role) = match peer {
            Peer::Connect(addr) => (
                TcpStream::connect_timeout(&addr, timeout).map_err(|e| io_error(Step::Connect, e, timeout))?,
                Role::Client,
            ),
            Peer::Accept(listener) => (accept(&listener, timeout)?, Role::Server),
        };
        Session::from_stream(stream, role, timeout)
    }

    /// Over a stream already connected.
    pub fn from_stream(stream: TcpStream, role: Role, timeout: Duration) -> Result<Session, ConnectError> {
        let step = if role == Role::Client { Step::Connect } else { Step::Accept };
        stream.set_read_timeout(Some(timeout)).map_err(|e| io_error(step, e, timeout))?;
        stream.set_write_timeout(Some(timeout)).map_err(|e| io_error(step, e, timeout))?;
        stream.set_nodelay(true).map_err(|e| io_error(step, e, timeout))?;
        Ok(Session { stream, role, timeout, peer_version: None, idle: None })
    }

    /// Runs `f` over and over while a read or write waits for the peer
    /// (the socket turns non-blocking): a simulated device runs only while
    /// its process drives it, so a tool waiting at a barrier must keep it
    /// running for the peer's packets (`rnic-perf` on a socket wire,
    /// docs/interop.md); `f` should return within a millisecond or so. The
    /// session's timeout still bounds each read and write.
    pub fn while_waiting(&mut self, f: impl FnMut() + 'static) -> Result<(), ConnectError> {
        let step = if self.role == Role::Client { Step::Connect } else { Step::Accept };
        self.stream.set_nonblocking(true).map_err(|e| io_error(step, e, self.timeout))?;
        self.idle = Some(Box::new(f));
        Ok(())
    }

    /// A read or write that would block: with a hook, runs it and says to
    /// try again (within the timeout); without, the error.
    fn waited(&mut self, step: Step, e: io::Error, start: std::time::Instant) -> Result<(), ConnectError> {
        let would_block = matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut);
        match self.idle.as_mut() {
            Some(idle) if would_block && start.elapsed() < self.timeout => {
                idle();
                Ok(())
            }
            _ => Err(io_error(step, e, self.timeout)),
        }
    }

    /// This side's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The peer's version, once exchanged.
    pub fn peer_version(&self) -> Option<&PeerVersion> {
        self.peer_version.as_ref()
    }

    fn write(&mut self, step: Step, bytes: &[u8]) -> Result<(), ConnectError> {
        let (mut sent, start) = (0, std::time::Instant::now());
        while sent < bytes.len() {
            match self.stream.write(&bytes[sent..]) {
                Ok(0) => return Err(ConnectError::PeerClosed { step, got: sent, expected: bytes.len() }),
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => self.waited(step, e, start)?,
            }
        }
        Ok(())
    }

    fn read(&mut self, step: Step, buf: &mut [u8]) -> Result<(), ConnectError> {
        let mut got = 0;
        let start = std::time::Instant::now();
        while got < buf.len() {
            match self.stream.read(&mut buf[got..]) {
                Ok(0) => return Err(ConnectError::PeerClosed { step, got, expected: buf.len() }),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                    self.waited(step, e, start)?
                }
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => {
                    return Err(ConnectError::PeerClosed { step, got, expected: buf.len() })
                }
                Err(e) => return Err(io_error(step, e, self.timeout)),
            }
        }
        Ok(())
    }

    /// `ctx_xchg_data`: the client writes then reads, the server reads then
    /// writes; `theirs` has the size of `mine`.
    fn xchg(&mut self, step: Step, mine: &[u8], theirs: &mut [u8]) -> Result<(), ConnectError> {
        match self.role {
            Role::Client => {
                self.write(step, mine)?;
                self.read(step, theirs)
            }
            Role::Server => {
                self.read(step, theirs)?;
                self.write(step, mine)
            }
        }
    }

    /// `exchange_versions` and `check_version_compatibility`.
    pub fn exchange_versions(&mut self) -> Result<PeerVersion, ConnectError> {
        let mut theirs = [0u8; VERSION_LEN];
        self.xchg(Step::Version, &encode_version(ADVERTISED_VERSION), &mut theirs)?;
        let v = parse_version(&theirs)?;
        self.peer_version = Some(v.clone());
        Ok(v)
    }

    /// `check_sys_data`: returns the larger of each.
    pub fn exchange_sys_data(&mut self, mine: SysData) -> Result<SysData, ConnectError> {
        let mut a = [0u8; 4];
        self.xchg(Step::SysData, &mine.cycle_buffer.to_be_bytes(), &mut a)?;
        let mut b = [0u8; 4];
        self.xchg(Step::SysData, &mine.cache_line_size.to_be_bytes(), &mut b)?;
        Ok(SysData {
            cycle_buffer: mine.cycle_buffer.max(u32::from_be_bytes(a)),
            cache_line_size: mine.cache_line_size.max(u32::from_be_bytes(b)),
        })
    }

    /// `check_mtu`: returns the smaller of the two (this side's if the
    /// peer's is not a valid MTU).
    pub fn exchange_mtu(&mut self, mine: Mtu) -> Result<Mtu, ConnectError> {
        let mut theirs = [0u8; 2];
        self.xchg(Step::Mtu, &encode_mtu(mine), &mut theirs)?;
        Ok(match parse_mtu(theirs) {
            Some(t) if t.raw() < mine.raw() => t,
            _ => mine,
        })
    }

    /// `ctx_hand_shake` for each QP in turn (GID form).
    pub fn exchange_keys(&mut self, mine: &[QpEndpoint]) -> Result<Vec<QpEndpoint>, ConnectError> {
        mine.iter().map(|m| self.exchange_key(Step::Keys, m)).collect()
    }

    fn exchange_key(&mut self, step: Step, mine: &QpEndpoint) -> Result<QpEndpoint, ConnectError> {
        let mut theirs = [0u8; KEY_MSG_SIZE_GID];
        self.xchg(step, &mine.encode_key_gid(), &mut theirs)?;
        QpEndpoint::parse_key_gid(&theirs).map_err(|e| match e {
            ConnectError::Malformed { reason, bytes, .. } => ConnectError::Malformed { step, reason, bytes },
            e => e,
        })
    }

    /// A barrier: perftest's `ctx_hand_shake` with the first QP's key, used
    /// after RTR, between message sizes, before the report and at close.
    pub fn sync(&mut self, mine: &QpEndpoint) -> Result<(), ConnectError> {
        self.exchange_key(Step::Sync, mine).map(|_| ())
    }

    /// `ctx_close_connection`: a last barrier, then "done" (with its NUL)
    /// and the socket closed; the peer's "done" is not read, as perftest
    /// does not read it.
    pub fn close(mut self, mine: &QpEndpoint) -> Result<(), ConnectError> {
        self.sync(mine)?;
        self.write(Step::Sync, b"done\0")?;
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
        Ok(())
    }

    /// `xchg_bw_reports` (report per port off; iterations as 64 bits, as
    /// for every peer from 5.33 on).
    pub fn exchange_bw_report(&mut self, mine: &BwReport) -> Result<BwReport, ConnectError> {
        let mut r = [[0u8; 8]; 5];
        let fields = [
            mine.size.to_be_bytes(),
            mine.iters.to_be_bytes(),
            mine.bw_peak.to_bits().to_be_bytes(),
            mine.bw_avg.to_bits().to_be_bytes(),
            mine.msg_rate.to_bits().to_be_bytes(),
        ];
        for (m, t) in fields.iter().zip(r.iter_mut()) {
            self.xchg(Step::Report, m, t)?;
        }
        let f = |i: usize| f64::from_bits(u64::from_be_bytes(r[i]));
        Ok(BwReport {
            size: u64::from_be_bytes(r[0]),
            iters: u64::from_be_bytes(r[1]),
            bw_peak: f(2),
            bw_avg: f(3),
            msg_rate: f(4),
        })
    }

    /// ibv_rc_pingpong's exchange: the client sends its message, reads the
    /// server's and sends "done"; the server reads, replies (after bringing
    /// its QP to RTS, which the caller does in `ready` with the remote
    /// endpoint) and waits for "done". `ready`'s error stops the exchange
    /// and is returned as it is.
    pub fn pingpong<E: From<ConnectError>>(
        &mut self,
        mine: &QpEndpoint,
        ready: impl FnOnce(&QpEndpoint) -> Result<(), E>,
    ) -> Result<QpEndpoint, E> {
        let mut theirs = [0u8; PINGPONG_MSG_SIZE];
        match self.role {
            Role::Client => {
                self.write(Step::Pingpong, &mine.encode_pingpong())?;
                self.read(Step::Pingpong, &mut theirs)?;
                let remote = QpEndpoint::parse_pingpong(&theirs)?;
                ready(&remote)?;
                self.write(Step::Done, PINGPONG_DONE)?;
                Ok(remote)
            }
            Role::Server => {
                self.read(Step::Pingpong, &mut theirs)?;
                let remote = QpEndpoint::parse_pingpong(&theirs)?;
                ready(&remote)?;
                self.write(Step::Pingpong, &mine.encode_pingpong())?;
                let mut done = [0u8; PINGPONG_DONE.len()];
                self.read(Step::Done, &mut done)?;
                if done != PINGPONG_DONE {
                    return Err(malformed(Step::Done, "not \"done\"", &done).into());
                }
                Ok(remote)
            }
        }
    }
}

fn accept(listener: &TcpListener, timeout: Duration) -> Result<TcpStream, ConnectError> {
    let err = |e| io_error(Step::Accept, e, timeout);
    listener.set_nonblocking(true).map_err(err)?;
    let start = std::time::Instant::now();
    loop {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false).map_err(err)?;
                return Ok(s);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if start.elapsed() >= timeout {
                    return Err(ConnectError::Timeout { step: Step::Accept, after: timeout });
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(err(e)),
        }
    }
}

/// The short path: opens the session, exchanges versions, system data and
/// the one QP's keys, and returns the peer's endpoint ([module docs](self)).
pub fn connect(peer: Peer, local: &QpEndpoint, timeout: Duration) -> Result<QpEndpoint, ConnectError> {
    let mut s = Session::open(peer, timeout)?;
    s.exchange_versions()?;
    s.exchange_sys_data(SysData::default())?;
    Ok(s.exchange_keys(std::slice::from_ref(local))?.remove(0))
}
