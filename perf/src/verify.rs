//! `rnic-verify`: every RC opcode once, its bytes checked on both sides.
//! The driver's half of the pair whose other half is the guest's
//! `rnic_verify` (tools/interop/rnic_verify.c); both follow the protocol
//! of docs/interop.md, "Data verified":
//!
//! ```text
//! rnic-verify requester|responder [-d DEV] [--sim_wire L,P,IP] [-E MAC] [-p PORT] [-x GID] [HOST]
//! ```
//!
//! Each side's 64 KiB region holds [`pattern`] with its seed; the
//! responder zeroes what the requester will write or send into and puts
//! [`V_A`] and [`V_B`] at the atomics' targets. Over TCP (HOST given: this
//! side connects) each sends `qpn psn rkey vaddr mtu gid` (hex), both move
//! their QP to RTS and say `ready`; the requester runs [`REQUESTS`] one at
//! a time and checks what comes back (the READ's bytes, the atomics'
//! original values), says `done`; the responder checks its receive
//! completions and its memory, answers `ok` or a `bad WHAT` line per
//! failed check.

use crate::device::open;
use crate::options::{DeviceSel, DEF_QP_TIME};
use crate::rc_connect::{self, RcPath};
use crate::run::PerfError;
use rnic_contract::codes::{Mtu, QpType, WcOpcode, WcStatus};
use rnic_driver::connect::QpEndpoint;
use rnic_driver::{AccessFlags, CompletionQueue, RecvWr, RemoteAddr, SendFlags, SendOp, SendWr, Sge, WorkCompletion};
use std::io::{self, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// Bytes of each side's region.
pub const REGION: usize = 65536;
/// The requester's pattern seed.
pub const SEED_REQ: u8 = 0x5a;
/// The responder's pattern seed.
pub const SEED_RESP: u8 = 0xa5;
/// FETCH_ADD's target (offset) and its value before.
pub const ATOMIC_A: usize = 49152;
/// The value at [`ATOMIC_A`] before the FETCH_ADD.
pub const V_A: u64 = 0x0102_0304_0506_0708;
/// What the FETCH_ADD adds.
pub const ADD_A: u64 = 5;
/// CMP_SWAP's target.
pub const ATOMIC_B: usize = 49160;
/// The value at [`ATOMIC_B`] before the CMP_SWAP (its compare value).
pub const V_B: u64 = 0x1111_1111_1111_1111;
/// What the CMP_SWAP swaps in.
pub const SWAP_B: u64 = 0x2222_2222_2222_2222;
/// WRITE with immediate's immediate.
pub const IMM_WRITE: u32 = 0x1234_5678;
/// SEND with immediate's immediate.
pub const IMM_SEND: u32 = 0x9abc_def0;
/// Where the responder's receives land: WRITE with immediate's (no data)
/// and the SEND's at the first, SEND with immediate's at the second.
pub const RECV_AT: [usize; 3] = [16384, 16384, 20480];
/// The default TCP port.
pub const PORT: u16 = 18600;
/// How long the exchange waits for the peer.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// Byte `i` of a region with `seed`.
pub fn pattern(i: usize, seed: u8) -> u8 {
    (i.wrapping_mul(7).wrapping_add(seed as usize).wrapping_add(i >> 8)) as u8
}

/// What the requester does; `from`, `to` and `at` are offsets in the
/// regions, `len` bytes, `imm` the immediate if any.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy)]
pub enum Request {
    /// WRITE `len` bytes from local `from` to remote `to`.
    Write { from: usize, len: usize, to: usize, imm: Option<u32> },
    /// SEND `len` bytes from local `from`.
    Send { from: usize, len: usize, imm: Option<u32> },
    /// READ `len` bytes from remote `from` into local `to`.
    Read { from: usize, len: usize, to: usize },
    /// FETCH_ADD at remote `at`, the original value into local `at`.
    FetchAdd { at: usize, add: u64 },
    /// CMP_SWAP at remote `at`, the original value into local `at`.
    CmpSwap { at: usize, compare: u64, swap: u64 },
}

/// The requester's work requests, in order, with their names.
pub const REQUESTS: [(&str, Request); 7] = [
    ("WRITE 5000 B", Request::Write { from: 0, len: 5000, to: 0, imm: None }),
    ("WRITE with immediate 3000 B", Request::Write { from: 5000, len: 3000, to: 8192, imm: Some(IMM_WRITE) }),
    ("SEND 2000 B", Request::Send { from: 10000, len: 2000, imm: None }),
    ("SEND with immediate 100 B", Request::Send { from: 12000, len: 100, imm: Some(IMM_SEND) }),
    ("READ 6000 B", Request::Read { from: 32768, len: 6000, to: 32768 }),
    ("FETCH_ADD", Request::FetchAdd { at: ATOMIC_A, add: ADD_A }),
    ("CMP_SWAP", Request::CmpSwap { at: ATOMIC_B, compare: V_B, swap: SWAP_B }),
];

/// The command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyOptions {
    /// This side requests (else it responds).
    pub requester: bool,
    /// `-d`, `--sim_wire`.
    pub device: DeviceSel,
    /// `-E`: the peer's MAC.
    pub dest_mac: Option<[u8; 6]>,
    /// `-p`.
    pub port: u16,
    /// `-x`.
    pub gid_index: u32,
    /// The peer to connect to; `None`: listen.
    pub host: Option<String>,
}

/// Parses `rnic-verify ROLE [options] [HOST]`.
pub fn parse(argv: &[String]) -> Result<VerifyOptions, String> {
    let role = argv.get(1).ok_or("usage: rnic-verify requester|responder [options] [HOST]")?;
    let requester = match role.as_str() {
        "requester" => true,
        "responder" => false,
        r => return Err(format!("not requester or responder: {r:?}")),
    };
    let mut o =
        VerifyOptions { requester, device: DeviceSel::Sim, dest_mac: None, port: PORT, gid_index: 1, host: None };
    let mut it = argv[2..].iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "-d" => {
                let v = value()?;
                o.device = if v == "sim" { DeviceSel::Sim } else { DeviceSel::Pci(v.clone()) };
            }
            "--sim_wire" => {
                let v = value()?;
                o.device = crate::options::parse_sim_wire(v).map_err(|e| format!("--sim_wire {v}: {e}"))?;
            }
            "-E" => {
                let v = value()?;
                o.dest_mac = Some(rnic_driver::neigh::parse_mac(v).ok_or(format!("-E {v}: not a MAC"))?);
            }
            "-p" => o.port = value()?.parse().map_err(|_| "-p: not a port".to_string())?,
            "-x" => o.gid_index = value()?.parse().map_err(|_| "-x: not a GID index".to_string())?,
            h if !h.starts_with('-') && o.host.is_none() => o.host = Some(h.into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(o)
}

/// The out-of-band line exchange, the NIC kept running while it waits.
struct Oob {
    reader: BufReader<TcpStream>,
    idle: Option<Box<dyn FnMut()>>,
}

impl Oob {
    fn open(host: Option<&str>, port: u16, idle: Option<Box<dyn FnMut()>>) -> io::Result<Oob> {
        let stream = match host {
            // the peer listens once its device is up: try again while refused
            Some(h) => {
                let start = Instant::now();
                loop {
                    match TcpStream::connect((h, port)) {
                        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused && start.elapsed() < TIMEOUT => {
                            std::thread::sleep(Duration::from_millis(100))
                        }
                        r => break r?,
                    }
                }
            }
            None => TcpListener::bind(("0.0.0.0", port))?.accept()?.0,
        };
        stream.set_nonblocking(true)?;
        Ok(Oob { reader: BufReader::new(stream), idle })
    }

    fn send(&mut self, line: &str) -> io::Result<()> {
        let s = self.reader.get_mut();
        let bytes = format!("{line}\n").into_bytes();
        let (mut at, start) = (0, Instant::now());
        while at < bytes.len() {
            match s.write(&bytes[at..]) {
                Ok(n) => at += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && start.elapsed() < TIMEOUT => {
                    if let Some(f) = self.idle.as_mut() {
                        f()
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next line, without its newline; `None` at the end of the stream.
    fn line(&mut self) -> io::Result<Option<String>> {
        let (mut buf, start) = (Vec::new(), Instant::now());
        loop {
            let mut byte = [0u8; 1];
            match self.reader.read(&mut byte) {
                Ok(0) => return Ok((!buf.is_empty()).then(|| String::from_utf8_lossy(&buf).into_owned())),
                Ok(_) if byte[0] == b'\n' => return Ok(Some(String::from_utf8_lossy(&buf).into_owned())),
                Ok(_) => buf.push(byte[0]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && start.elapsed() < TIMEOUT => {
                    if let Some(f) = self.idle.as_mut() {
                        f()
                    } else {
                        std::thread::sleep(Duration::from_millis(1))
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Why a run stopped before its checks.
#[derive(Debug)]
pub enum VerifyError {
    /// Opening the device or a verbs call.
    Perf(PerfError),
    /// The exchange.
    Oob(String),
    /// A work completion with an error status.
    Completion {
        /// The work request or receive it completed.
        what: &'static str,
        /// Its status.
        status: WcStatus,
    },
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VerifyError::Perf(e) => write!(f, "{e}"),
            VerifyError::Oob(e) => write!(f, "the exchange: {e}"),
            VerifyError::Completion { what, status } => write!(f, "{what}: completion status {status:?}"),
        }
    }
}

impl From<PerfError> for VerifyError {
    fn from(e: PerfError) -> Self {
        VerifyError::Perf(e)
    }
}

impl From<rnic_driver::Error> for VerifyError {
    fn from(e: rnic_driver::Error) -> Self {
        VerifyError::Perf(e.into())
    }
}

/// One check's line; a failed one also goes to the requester (`c`).
fn check(out: &mut impl Write, c: Option<&mut Oob>, ok: bool, what: &str) -> u32 {
    writeln!(out, "  {} {what}", if ok { "ok  " } else { "FAIL" }).ok();
    if !ok {
        if let Some(c) = c {
            let _ = c.send(&format!("bad {what}"));
        }
    }
    u32::from(!ok)
}

fn oob<T>(r: io::Result<T>) -> Result<T, VerifyError> {
    r.map_err(|e| VerifyError::Oob(e.to_string()))
}

fn hex(s: &str) -> Result<u64, VerifyError> {
    u64::from_str_radix(s, 16).map_err(|_| VerifyError::Oob(format!("not hex: {s:?}")))
}

fn wait(cq: &CompletionQueue, what: &'static str) -> Result<WorkCompletion, VerifyError> {
    loop {
        if let Some(wc) = cq.poll(1)?.pop() {
            if wc.status != WcStatus::Success {
                return Err(VerifyError::Completion { what, status: wc.status });
            }
            return Ok(wc);
        }
    }
}

/// Runs one side; writes a line per check to `out`; `Ok(true)` when every
/// check of both sides passed.
pub fn run(o: &VerifyOptions, out: &mut impl Write) -> Result<bool, VerifyError> {
    let opened = open(&o.device)?;
    let ctx = opened.ctx;
    let req = o.requester;
    let pd = ctx.alloc_pd()?;
    let buf = ctx.alloc_buffer(REGION)?;
    let seed = if req { SEED_REQ } else { SEED_RESP };
    let mut mem: Vec<u8> = (0..REGION).map(|i| pattern(i, seed)).collect();
    if req {
        mem[32768..32768 + 6000].fill(0);
        mem[ATOMIC_A..ATOMIC_A + 16].fill(0);
    } else {
        for (at, len) in [(0, 5000), (8192, 3000), (16384, 2000), (20480, 100)] {
            mem[at..at + len].fill(0);
        }
        mem[ATOMIC_A..ATOMIC_A + 8].copy_from_slice(&V_A.to_le_bytes());
        mem[ATOMIC_B..ATOMIC_B + 8].copy_from_slice(&V_B.to_le_bytes());
    }
    buf.write(0, &mem)?;
    let access =
        AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ | AccessFlags::REMOTE_ATOMIC;
    let mr = pd.reg_mr(&buf, 0, REGION, access)?;
    let cq = ctx.create_cq(64, None)?;
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_send_wr(16).max_recv_wr(16).build()?;
    let gid = ctx.query_gid(1, o.gid_index)?;
    let mtu = ctx.query_port(1)?.max_mtu;
    let psn = rnic_driver::connect::random_psn();
    let mut c = oob(Oob::open(o.host.as_deref(), o.port, opened.idle))?;
    let g: String = gid.iter().map(|b| format!("{b:02x}")).collect();
    oob(c.send(&format!("{:x} {psn:x} {:x} {:x} {:x} {g}", qp.qp_num(), mr.rkey(), mr.addr(), mtu.raw())))?;
    let line = oob(c.line())?.ok_or(VerifyError::Oob("no line from the peer".into()))?;
    let f: Vec<&str> = line.split_whitespace().collect();
    let [rqpn, rpsn, rkey, raddr, rmtu, rgid] = f[..] else {
        return Err(VerifyError::Oob(format!("the peer's line: {line:?}")));
    };
    let mut peer_gid = [0u8; 16];
    for (i, b) in peer_gid.iter_mut().enumerate() {
        *b = rgid
            .get(2 * i..2 * i + 2)
            .and_then(|x| u8::from_str_radix(x, 16).ok())
            .ok_or(VerifyError::Oob(format!("the peer's GID {rgid:?}")))?;
    }
    let (rqpn, rpsn, rkey, raddr) = (hex(rqpn)? as u32, hex(rpsn)? as u32, hex(rkey)? as u32, hex(raddr)?);
    let peer_mtu = Mtu::from_raw(hex(rmtu)?).ok_or(VerifyError::Oob(format!("the peer's MTU {rmtu}")))?;
    let mtu = if peer_mtu.raw() < mtu.raw() { peer_mtu } else { mtu };
    writeln!(
        out,
        "rnic-verify {}: QPN {:#x}, the peer's QPN {rqpn:#x}, MTU {}",
        if req { "requester" } else { "responder" },
        qp.qp_num(),
        128u32 << mtu.raw()
    )
    .ok();

    rc_connect::to_init(&mut qp, 1, access)?;
    if !req {
        for (i, at) in RECV_AT.iter().enumerate() {
            let sge = [Sge::new(&mr, *at as u64, 4096)?];
            qp.post_recv(&[RecvWr { wr_id: 100 + i as u64, sg_list: &sge }])?;
        }
    }
    let mut remote = QpEndpoint::new(rqpn, peer_gid);
    remote.psn = rpsn;
    let path =
        RcPath { port: 1, gid_index: o.gid_index, mtu, dest_mac: o.dest_mac, rd_atomic: 1, timeout: DEF_QP_TIME };
    rc_connect::to_rts(&mut qp, &path, psn, &remote)?;
    oob(c.send("ready"))?;
    if oob(c.line())?.as_deref() != Some("ready") {
        return Err(VerifyError::Oob("the peer is not ready".into()));
    }

    let mut bad = 0;
    let read = |at: usize, len: usize| -> Result<Vec<u8>, VerifyError> {
        let mut v = vec![0u8; len];
        buf.read(at, &mut v)?;
        Ok(v)
    };
    let is = |v: &[u8], from: usize, s: u8| v.iter().enumerate().all(|(k, &b)| b == pattern(from + k, s));
    if req {
        let remote = |at: usize| RemoteAddr { addr: raddr + at as u64, rkey };
        for (i, (name, r)) in REQUESTS.iter().enumerate() {
            let (local, len, op) = match *r {
                Request::Write { from, len, to, imm: None } => (from, len, SendOp::RdmaWrite { remote: remote(to) }),
                Request::Write { from, len, to, imm: Some(imm) } => {
                    (from, len, SendOp::RdmaWriteWithImm { remote: remote(to), imm })
                }
                Request::Send { from, len, imm: None } => (from, len, SendOp::Send),
                Request::Send { from, len, imm: Some(imm) } => (from, len, SendOp::SendWithImm { imm }),
                Request::Read { from, len, to } => (to, len, SendOp::RdmaRead { remote: remote(from) }),
                Request::FetchAdd { at, add } => (at, 8, SendOp::AtomicFetchAndAdd { remote: remote(at), add }),
                Request::CmpSwap { at, compare, swap } => {
                    (at, 8, SendOp::AtomicCmpAndSwp { remote: remote(at), compare, swap })
                }
            };
            let sge = [Sge::new(&mr, local as u64, len as u32)?];
            qp.post_send(&[SendWr::new(i as u64, op, &sge).flags(SendFlags::SIGNALED)])?;
            wait(&cq, name)?;
            writeln!(out, "  done {name}").ok();
        }
        let word = |at| -> Result<u64, VerifyError> { Ok(u64::from_le_bytes(read(at, 8)?.try_into().unwrap())) };
        bad += check(out, None, is(&read(32768, 6000)?, 32768, SEED_RESP), "READ: the responder's bytes");
        bad += check(out, None, word(ATOMIC_A)? == V_A, "FETCH_ADD returned the original value");
        bad += check(out, None, word(ATOMIC_B)? == V_B, "CMP_SWAP returned the original value");
        oob(c.send("done"))?;
        while let Some(l) = oob(c.line())? {
            if l.starts_with("ok") {
                break;
            }
            writeln!(out, "  the responder: {l}").ok();
            bad += 1;
        }
    } else {
        let expect: [(&str, WcOpcode, Option<u32>, Option<u32>); 3] = [
            ("WRITE with immediate's completion", WcOpcode::RecvRdmaWithImm, Some(IMM_WRITE), None),
            ("SEND's completion", WcOpcode::Recv, None, Some(2000)),
            ("SEND with immediate's completion", WcOpcode::Recv, Some(IMM_SEND), Some(100)),
        ];
        for (i, (what, op, imm, len)) in expect.iter().enumerate() {
            let wc = wait(&cq, what)?;
            let ok = wc.opcode == Some(*op)
                && wc.imm_data == *imm
                && len.is_none_or(|l| wc.byte_len == l)
                && wc.wr_id == 100 + i as u64;
            if !ok {
                writeln!(out, "  ({wc:?})").ok();
            }
            bad += check(out, Some(&mut c), ok, what);
        }
        if oob(c.line())?.as_deref() != Some("done") {
            return Err(VerifyError::Oob("no done from the requester".into()));
        }
        let word = |at| -> Result<u64, VerifyError> { Ok(u64::from_le_bytes(read(at, 8)?.try_into().unwrap())) };
        let checks = [
            (is(&read(0, 5000)?, 0, SEED_REQ), "WRITE's bytes"),
            (is(&read(5000, 3192)?, 5000, SEED_RESP), "the bytes between, untouched"),
            (is(&read(8192, 3000)?, 5000, SEED_REQ), "WRITE with immediate's bytes"),
            (is(&read(16384, 2000)?, 10000, SEED_REQ), "SEND's bytes"),
            (is(&read(20480, 100)?, 12000, SEED_REQ), "SEND with immediate's bytes"),
            (is(&read(32768, 6000)?, 32768, SEED_RESP), "READ's source, untouched"),
            (word(ATOMIC_A)? == V_A + ADD_A, "FETCH_ADD's target"),
            (word(ATOMIC_B)? == SWAP_B, "CMP_SWAP's target"),
        ];
        for (ok, what) in checks {
            bad += check(out, Some(&mut c), ok, what);
        }
        if bad == 0 {
            oob(c.send("ok"))?;
        }
    }
    writeln!(
        out,
        "rnic-verify {}: {}",
        if req { "requester" } else { "responder" },
        if bad == 0 { "every check passed" } else { "FAILED" }
    )
    .ok();
    if let Some(wire) = opened.wire {
        eprintln!("rnic-verify: the simulated wire: {}", wire());
    }
    Ok(bad == 0)
}
