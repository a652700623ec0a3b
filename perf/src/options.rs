//! perftest's command line (`perftest_parameters.c`, `parser()`, at
//! linux-rdma/perftest commit `00b55b6660d0170dabe2c1b49193e8fbe265086e`):
//! the options a bw or lat test over RC/UC/UD takes, with perftest's
//! defaults, parsed by hand into [`Options`] with typed errors.

use rnic_contract::codes::Mtu;
use std::fmt;

/// perftest's TCP port (`DEF_PORT`).
pub use rnic_driver::connect::DEFAULT_PORT;
/// Largest message (`MAX_SIZE`); `-a` runs 2, 4, ... up to it.
pub const MAX_SIZE: u64 = 8_388_608;
/// Fewest iterations (`MIN_ITER`).
pub const MIN_ITER: u64 = 5;
/// Default message size of a BW test (`DEF_SIZE_BW`).
pub const DEF_SIZE_BW: u64 = 65536;
/// Default message size of a latency test (`DEF_SIZE_LAT`).
pub const DEF_SIZE_LAT: u64 = 2;
/// An atomic's size (`DEF_SIZE_ATOMIC`).
pub const DEF_SIZE_ATOMIC: u64 = 8;
/// Default iterations (`DEF_ITERS`).
pub const DEF_ITERS: u64 = 1000;
/// Default iterations of write_bw (`DEF_ITERS_WB`).
pub const DEF_ITERS_WB: u64 = 5000;
/// Default send queue depth of a BW test (`DEF_TX_BW`).
pub const DEF_TX_BW: u32 = 128;
/// Default send queue depth of a latency test (`DEF_TX_LAT`).
pub const DEF_TX_LAT: u32 = 1;
/// Default receive depth of RDMA tests (`DEF_RX_RDMA`).
pub const DEF_RX_RDMA: u32 = 1;
/// Default receive depth of send tests (`DEF_RX_SEND`).
pub const DEF_RX_SEND: u32 = 512;
/// Default CQ moderation (`DEF_CQ_MOD`).
pub const DEF_CQ_MOD: u32 = 100;
/// Above this size perftest turns CQ moderation off unless `-Q` was given
/// (`MSG_SIZE_CQ_MOD_LIMIT`).
pub const MSG_SIZE_CQ_MOD_LIMIT: u64 = 8192;
/// CQ moderation "off": every message signaled (`DISABLED_CQ_MOD_VALUE`).
pub const DISABLED_CQ_MOD_VALUE: u32 = 1;
/// Default QP timeout exponent (`DEF_QP_TIME`).
pub const DEF_QP_TIME: u8 = 14;
/// Seconds of a duration run, and the reporting period of
/// `--run_infinitely` (`DEF_DURATION`).
pub const DEF_DURATION: u32 = 5;
/// `--progress`: seconds of wall time between two progress lines.
pub const PROGRESS_INTERVAL_S: u64 = 1;
/// Nanoseconds per second of the device clock.
pub const NS_PER_S: u64 = 1_000_000_000;

/// The verb a test measures (`VerbType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// SEND.
    Send,
    /// RDMA WRITE.
    Write,
    /// RDMA READ.
    Read,
    /// Atomics.
    Atomic,
}

impl Verb {
    /// perftest's name (`testsStr`).
    pub fn perftest_name(self) -> &'static str {
        match self {
            Verb::Send => "Send",
            Verb::Write => "RDMA_Write",
            Verb::Read => "RDMA_Read",
            Verb::Atomic => "Atomic",
        }
    }
}

/// Bandwidth or latency (`TestType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A BW test.
    Bw,
    /// A latency test.
    Lat,
}

/// The tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// ib_write_bw.
    WriteBw,
    /// ib_read_bw.
    ReadBw,
    /// ib_send_bw.
    SendBw,
    /// ib_atomic_bw.
    AtomicBw,
    /// ib_write_lat.
    WriteLat,
    /// ib_read_lat.
    ReadLat,
    /// ib_send_lat.
    SendLat,
}

impl Test {
    /// Every test.
    pub const ALL: [Test; 7] =
        [Test::WriteBw, Test::ReadBw, Test::SendBw, Test::AtomicBw, Test::WriteLat, Test::ReadLat, Test::SendLat];

    /// `write_bw`, ...
    pub fn name(self) -> &'static str {
        match self {
            Test::WriteBw => "write_bw",
            Test::ReadBw => "read_bw",
            Test::SendBw => "send_bw",
            Test::AtomicBw => "atomic_bw",
            Test::WriteLat => "write_lat",
            Test::ReadLat => "read_lat",
            Test::SendLat => "send_lat",
        }
    }

    /// The test named `write_bw`, `ib_write_bw` or `rnic_write_bw`.
    pub fn from_name(s: &str) -> Option<Test> {
        let s = s.strip_prefix("ib_").or_else(|| s.strip_prefix("rnic_")).unwrap_or(s);
        Test::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The verb.
    pub fn verb(self) -> Verb {
        match self {
            Test::WriteBw | Test::WriteLat => Verb::Write,
            Test::ReadBw | Test::ReadLat => Verb::Read,
            Test::SendBw | Test::SendLat => Verb::Send,
            Test::AtomicBw => Verb::Atomic,
        }
    }

    /// BW or latency.
    pub fn kind(self) -> Kind {
        match self {
            Test::WriteBw | Test::ReadBw | Test::SendBw | Test::AtomicBw => Kind::Bw,
            Test::WriteLat | Test::ReadLat | Test::SendLat => Kind::Lat,
        }
    }
}

/// Which device (`-d`): the simulator unless a PCI address is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceSel {
    /// The Verilated NIC through `rnic_tb::driver_hw::SimHw`.
    Sim,
    /// A board through VFIO, by PCI address (`0000:01:00.0`).
    Pci(String),
    /// The Verilated core (`rnic_core`, transport and all) whose wire is a
    /// Unix datagram socket bound at `local`, sending to `peer`
    /// (`rnic_tb::sock_net`), its IPv4 address `ip` in GID 1 (as a
    /// netdev's address is on Linux), its MAC `mac` (the core's
    /// `port_mac`): `-d sim --sim_wire LOCAL,PEER,IP[,MAC]`.
    SimWire {
        /// The NIC's socket.
        local: std::path::PathBuf,
        /// The peer's socket.
        peer: std::path::PathBuf,
        /// The NIC's IPv4 address.
        ip: [u8; 4],
        /// The NIC's MAC: given, else [`sim_wire_mac`] of `ip`.
        mac: [u8; 6],
    },
}

/// Connection type (`-c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// RC.
    Rc,
    /// UC.
    Uc,
    /// UD.
    Ud,
}

impl Connection {
    /// perftest's name (`connStr`).
    pub fn name(self) -> &'static str {
        match self {
            Connection::Rc => "RC",
            Connection::Uc => "UC",
            Connection::Ud => "UD",
        }
    }
}

/// Atomic operation (`-A`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicType {
    /// `CMP_AND_SWAP`.
    CmpAndSwap,
    /// `FETCH_AND_ADD`.
    FetchAndAdd,
}

impl AtomicType {
    /// perftest's name (`atomicTypesStr`).
    pub fn name(self) -> &'static str {
        match self {
            AtomicType::CmpAndSwap => "CMP_AND_SWAP",
            AtomicType::FetchAndAdd => "FETCH_AND_ADD",
        }
    }
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The test.
    pub test: Test,
    /// `-d`.
    pub device: DeviceSel,
    /// `-i`.
    pub ib_port: u8,
    /// `-x`: `None` is perftest's `DEF_GID_INDEX` (-1, no GID line).
    pub gid_index: Option<u32>,
    /// `-s` (or the test's default).
    pub size: u64,
    /// `-a`.
    pub all: bool,
    /// `-n` (or the test's default).
    pub iters: u64,
    /// `-q`.
    pub qps: u32,
    /// `-c`.
    pub connection: Connection,
    /// `-m`: `None` is the port's active MTU.
    pub mtu: Option<Mtu>,
    /// `-t`.
    pub tx_depth: u32,
    /// `-r`.
    pub rx_depth: u32,
    /// `-u`.
    pub qp_timeout: u8,
    /// `-D`: seconds. `--run_infinitely` reports every `-D` seconds
    /// ([`DEF_DURATION`] unless given).
    pub duration: Option<u32>,
    /// `-f`: seconds left out at each end of a duration run; `None` is
    /// perftest's default, a quarter of the duration ([`Options::margin`]).
    pub margin: Option<u32>,
    /// `--sim_second_ns` (ours, the simulator only): the nanoseconds of
    /// device time a second of `-D`, `-f` and `--run_infinitely` lasts;
    /// `None` is a real second. One simulated second is 250 million core
    /// cycles, hours of simulation: a shorter one lets a duration run move
    /// packets in a test. The figures stay in real device time.
    pub sim_second_ns: Option<u64>,
    /// `-b`.
    pub bidirectional: bool,
    /// `-N`.
    pub no_peak: bool,
    /// `-Q`.
    pub cq_mod: u32,
    /// `-l`.
    pub post_list: u32,
    /// `-I`.
    pub inline_size: u32,
    /// `-o`.
    pub outs: Option<u32>,
    /// `-p`.
    pub port: u16,
    /// `-e`.
    pub use_event: bool,
    /// `-A`.
    pub atomic_type: AtomicType,
    /// `--report_gbits`.
    pub report_gbits: bool,
    /// `--run_infinitely`.
    pub run_infinitely: bool,
    /// `--write_with_imm`.
    pub write_with_imm: bool,
    /// `-E`: the peer's MAC (perftest's `--dest_mac`), a static entry
    /// over the neighbour table.
    pub dest_mac: Option<[u8; 6]>,
    /// `--progress` (not perftest's, which prints none): a line on stderr
    /// every [`PROGRESS_INTERVAL_S`] seconds of wall time; stdout keeps
    /// perftest's output only.
    pub progress: bool,
    /// The server's name: this side is the client; `None`: the server.
    pub server: Option<String>,
}

impl Options {
    /// The defaults of a test, as perftest's `init_perftest_params` and
    /// `force_dependecies` set them.
    pub fn defaults(test: Test) -> Options {
        let bw = test.kind() == Kind::Bw;
        Options {
            test,
            device: DeviceSel::Sim,
            ib_port: 1,
            gid_index: None,
            size: match (test.verb(), bw) {
                (Verb::Atomic, _) => DEF_SIZE_ATOMIC,
                (_, true) => DEF_SIZE_BW,
                (_, false) => DEF_SIZE_LAT,
            },
            all: false,
            iters: if test == Test::WriteBw { DEF_ITERS_WB } else { DEF_ITERS },
            qps: 1,
            connection: Connection::Rc,
            mtu: None,
            tx_depth: if bw { DEF_TX_BW } else { DEF_TX_LAT },
            rx_depth: if test.verb() == Verb::Send { DEF_RX_SEND } else { DEF_RX_RDMA },
            qp_timeout: DEF_QP_TIME,
            duration: None,
            margin: None,
            sim_second_ns: None,
            bidirectional: false,
            no_peak: false,
            cq_mod: DEF_CQ_MOD,
            post_list: 1,
            inline_size: 0,
            outs: None,
            port: DEFAULT_PORT,
            use_event: false,
            atomic_type: AtomicType::FetchAndAdd,
            report_gbits: false,
            run_infinitely: false,
            write_with_imm: false,
            dest_mac: None,
            progress: false,
            server: None,
        }
    }

    /// A duration run (`-D` or `--run_infinitely`: perftest's
    /// `test_type == DURATION`) rather than a count of iterations.
    pub fn duration_mode(&self) -> bool {
        self.duration.is_some() || self.run_infinitely
    }

    /// The seconds a duration run lasts (or `--run_infinitely`'s period).
    pub fn duration_secs(&self) -> u32 {
        self.duration.unwrap_or(DEF_DURATION)
    }

    /// The seconds left out at each end of a duration run: `-f`, else a
    /// quarter of the duration, rounded down (perftest's
    /// `DEF_INIT_MARGIN` rule).
    pub fn margin(&self) -> u32 {
        self.margin.unwrap_or(self.duration_secs() / 4)
    }

    /// The nanoseconds of device time in one second of a duration run
    /// (`--sim_second_ns`, else 10^9).
    pub fn second_ns(&self) -> u64 {
        self.sim_second_ns.unwrap_or(NS_PER_S)
    }

    /// The test has receive completions on the passive side: SEND and
    /// WRITE with immediate (perftest's `has_recv_comp`).
    pub fn has_recv_comp(&self) -> bool {
        let verb = self.test.verb();
        verb == Verb::Send || (verb == Verb::Write && self.write_with_imm)
    }

    /// The message sizes the run goes through: `-a` is 2^1 .. 2^23 (an
    /// atomic test has the one size 8), else `-s`.
    pub fn sizes(&self) -> Vec<u64> {
        if self.all && self.test.verb() != Verb::Atomic {
            (1..24).map(|i| 1u64 << i).collect()
        } else {
            vec![self.size]
        }
    }
}

/// Why a command line was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptError {
    /// No test named, or an unknown one.
    UnknownTest(String),
    /// An option this tool does not know.
    UnknownOption(String),
    /// An option that needs a value came last.
    MissingValue(String),
    /// A value that does not parse or is out of range.
    BadValue {
        /// The option.
        option: String,
        /// Its value.
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// Two options that do not go together.
    Conflict(&'static str),
    /// More than one server name.
    ExtraArgument(String),
    /// `-h`: print the usage.
    Help,
}

impl fmt::Display for OptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptError::UnknownTest(t) => write!(f, "unknown test {t:?} (one of {})", test_names()),
            OptError::UnknownOption(o) => write!(f, "unknown option {o}"),
            OptError::MissingValue(o) => write!(f, "option {o} needs a value"),
            OptError::BadValue { option, value, reason } => write!(f, "option {option}: {value:?}: {reason}"),
            OptError::Conflict(what) => write!(f, "{what}"),
            OptError::ExtraArgument(a) => write!(f, "unexpected argument {a:?} (one server name at most)"),
            OptError::Help => write!(f, "{}", usage()),
        }
    }
}

impl std::error::Error for OptError {}

fn test_names() -> String {
    Test::ALL.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
}

/// The usage text.
pub fn usage() -> String {
    format!(
        "Usage: rnic-perf <test> [options] [server]\n  tests: {}\n  \
         -d <dev>  sim (default) or a PCI address 0000:xx:yy.z\n  \
         -i <port> -x <gid index> -s <size> -a -n <iters> -q <qps> -c RC|UC|UD -m <mtu>\n  \
         -t <tx depth> -r <rx depth> -u <qp timeout> -D <seconds> -b -N -Q <cq mod> -l <post list>\n  \
         -I <inline size> -o <outstanding> -p <tcp port> -e -f <margin> -A CMP_AND_SWAP|FETCH_AND_ADD\n  \
         -E <peer MAC> --report_gbits --run_infinitely --write_with_imm -h\n  \
         --progress  a progress line on stderr every {PROGRESS_INTERVAL_S} s (perftest prints none)\n  \
         --sim_wire <local.sock>,<peer.sock>,<IPv4>[,<MAC>]  -d sim: the whole simulated NIC on a datagram socket wire\n  \
         --sim_second_ns <ns>  -d sim: the device nanoseconds a second of -D, -f lasts (a short duration run)\n",
        test_names()
    )
}

/// `--sim_wire LOCAL,PEER,IP[,MAC]` (`rnic-perf`, `rnic-verify`,
/// `rnic-pingpong`): the [`DeviceSel::SimWire`] it names.
pub fn parse_sim_wire(value: &str) -> Result<DeviceSel, &'static str> {
    let what = "not LOCAL,PEER,IP[,MAC]: two socket paths, an IPv4 address, a MAC";
    let parts: Vec<&str> = value.split(',').collect();
    let (local, peer, ip, mac) = match parts[..] {
        [l, p, ip] => (l, p, ip, None),
        [l, p, ip, mac] => (l, p, ip, Some(rnic_driver::neigh::parse_mac(mac).ok_or(what)?)),
        _ => return Err(what),
    };
    let ip: std::net::Ipv4Addr = ip.parse().map_err(|_| what)?;
    if local.is_empty() || peer.is_empty() {
        return Err(what);
    }
    let mac = mac.unwrap_or(sim_wire_mac(ip.octets()));
    Ok(DeviceSel::SimWire { local: local.into(), peer: peer.into(), ip: ip.octets(), mac })
}

/// The simulated NIC's MAC when `--sim_wire` gives none: locally
/// administered (02:00), then the IPv4 address, so two NICs with two
/// addresses differ.
pub fn sim_wire_mac(ip: [u8; 4]) -> [u8; 6] {
    [0x02, 0x00, ip[0], ip[1], ip[2], ip[3]]
}

/// Options that take a value: short and long names.
const WITH_VALUE: &[(&str, &str)] = &[
    ("-d", "--ib-dev"),
    ("-i", "--ib-port"),
    ("-x", "--gid-index"),
    ("-s", "--size"),
    ("-n", "--iters"),
    ("-q", "--qp"),
    ("-c", "--connection"),
    ("-m", "--mtu"),
    ("-t", "--tx-depth"),
    ("-r", "--rx-depth"),
    ("-u", "--qp-timeout"),
    ("-D", "--duration"),
    ("-f", "--margin"),
    ("-Q", "--cq-mod"),
    ("-l", "--post_list"),
    ("-I", "--inline_size"),
    ("-o", "--outs"),
    ("-p", "--port"),
    ("-A", "--atomic_type"),
    ("-E", "--dest_mac"),
    ("", "--sim_wire"),
    ("", "--sim_second_ns"),
];

/// Flags: short and long names.
const FLAGS: &[(&str, &str)] = &[
    ("-a", "--all"),
    ("-b", "--bidirectional"),
    ("-N", "--noPeak"),
    ("-e", "--events"),
    ("-h", "--help"),
    ("", "--report_gbits"),
    ("", "--run_infinitely"),
    ("", "--write_with_imm"),
    ("", "--progress"),
];

fn num<T: std::str::FromStr>(option: &str, value: &str, min: u64, max: u64) -> Result<T, OptError> {
    let bad = |reason: String| OptError::BadValue { option: option.into(), value: value.into(), reason };
    let n: u64 = value.parse().map_err(|_| bad("not a number".into()))?;
    if n < min || n > max {
        return Err(bad(format!("must be in {min}..={max}")));
    }
    value.parse::<T>().map_err(|_| bad("not a number".into()))
}

/// Parses a command line. `argv[0]` may name the test (`ib_write_bw`,
/// `rnic_write_bw`); otherwise the first argument does.
pub fn parse<S: AsRef<str>>(argv: &[S]) -> Result<Options, OptError> {
    let args: Vec<&str> = argv.iter().map(|s| s.as_ref()).collect();
    let prog = args.first().map(|p| p.rsplit('/').next().unwrap_or(p)).unwrap_or("");
    let (test, rest) = match Test::from_name(prog) {
        Some(t) => (t, &args[1.min(args.len())..]),
        None => match args.get(1) {
            Some(&"-h") | Some(&"--help") => return Err(OptError::Help),
            Some(name) => (Test::from_name(name).ok_or_else(|| OptError::UnknownTest(name.to_string()))?, &args[2..]),
            None => return Err(OptError::UnknownTest(String::new())),
        },
    };
    let mut o = Options::defaults(test);
    let mut sim_wire = None;
    let (mut size_given, mut iters_given, mut cq_mod_given) = (false, false, false);
    let mut i = 0;
    while i < rest.len() {
        let arg = rest[i];
        i += 1;
        if !arg.starts_with('-') || arg == "-" {
            if o.server.is_some() {
                return Err(OptError::ExtraArgument(arg.into()));
            }
            o.server = Some(arg.into());
            continue;
        }
        if let Some(&(s, l)) = FLAGS.iter().find(|(s, l)| arg == *l || (!s.is_empty() && arg == *s)) {
            match if s.is_empty() { l } else { s } {
                "-a" => o.all = true,
                "-b" => o.bidirectional = true,
                "-N" => o.no_peak = true,
                "-e" => o.use_event = true,
                "-h" => return Err(OptError::Help),
                "--report_gbits" => o.report_gbits = true,
                "--run_infinitely" => o.run_infinitely = true,
                "--write_with_imm" => o.write_with_imm = true,
                "--progress" => o.progress = true,
                _ => unreachable!("every flag is handled"),
            }
            continue;
        }
        // -s4096, -s 4096, --size=4096, --size 4096
        let found = WITH_VALUE.iter().find_map(|&(s, l)| {
            if arg == s || arg == l {
                Some((s, None))
            } else if let Some(v) = arg.strip_prefix(l).and_then(|v| v.strip_prefix('=')) {
                Some((s, Some(v)))
            } else if !s.is_empty() && arg.len() > 2 && arg.starts_with(s) && !arg.starts_with("--") {
                Some((s, Some(&arg[2..])))
            } else {
                None
            }
        });
        let Some((opt, inline)) = found else {
            return Err(OptError::UnknownOption(arg.into()));
        };
        let opt = if opt.is_empty() { arg.split('=').next().unwrap_or(arg) } else { opt };
        let value = match inline {
            Some(v) => v,
            None => {
                let v = rest.get(i).ok_or_else(|| OptError::MissingValue(arg.into()))?;
                i += 1;
                v
            }
        };
        let bad = |reason: &str| OptError::BadValue { option: opt.into(), value: value.into(), reason: reason.into() };
        match opt {
            "-d" => {
                o.device = if value == "sim" {
                    DeviceSel::Sim
                } else if is_pci_address(value) {
                    DeviceSel::Pci(value.into())
                } else {
                    return Err(bad("neither sim nor a PCI address 0000:xx:yy.z"));
                }
            }
            "-i" => o.ib_port = num(opt, value, 1, 1)?,
            "-x" => o.gid_index = Some(num(opt, value, 0, rnic_driver::device::GID_TABLE_LEN as u64 - 1)?),
            "-s" => {
                o.size = num(opt, value, 1, MAX_SIZE)?;
                size_given = true;
            }
            "-n" => {
                o.iters = num(opt, value, MIN_ITER, u64::MAX)?;
                iters_given = true;
            }
            "-q" => o.qps = num(opt, value, 1, u32::MAX as u64)?,
            "-c" => {
                o.connection = match value {
                    "RC" => Connection::Rc,
                    "UC" => Connection::Uc,
                    "UD" => Connection::Ud,
                    _ => return Err(bad("one of RC, UC, UD")),
                }
            }
            "-m" => {
                o.mtu = Some(match value {
                    "256" => Mtu::Mtu256,
                    "512" => Mtu::Mtu512,
                    "1024" => Mtu::Mtu1024,
                    "2048" => Mtu::Mtu2048,
                    "4096" => Mtu::Mtu4096,
                    _ => return Err(bad("one of 256, 512, 1024, 2048, 4096")),
                })
            }
            "-t" => o.tx_depth = num(opt, value, 1, u32::MAX as u64)?,
            "-r" => o.rx_depth = num(opt, value, 1, u32::MAX as u64)?,
            "-u" => o.qp_timeout = num(opt, value, 0, 31)?,
            "-D" => o.duration = Some(num(opt, value, 1, u32::MAX as u64)?),
            "-f" => o.margin = Some(num(opt, value, 0, u32::MAX as u64)?),
            "-Q" => {
                o.cq_mod = num(opt, value, 1, 1024)?;
                cq_mod_given = true;
            }
            "-l" => o.post_list = num(opt, value, 1, u32::MAX as u64)?,
            "-I" => o.inline_size = num(opt, value, 0, u32::MAX as u64)?,
            "-o" => o.outs = Some(num(opt, value, 1, u16::MAX as u64)?),
            "-p" => o.port = num(opt, value, 1, u16::MAX as u64)?,
            "-E" => {
                o.dest_mac = Some(
                    rnic_driver::neigh::parse_mac(value).ok_or_else(|| bad("not a MAC address aa:bb:cc:dd:ee:ff"))?,
                )
            }
            "--sim_wire" => sim_wire = Some(parse_sim_wire(value).map_err(bad)?),
            "--sim_second_ns" => o.sim_second_ns = Some(num(opt, value, 1, NS_PER_S)?),
            "-A" => {
                o.atomic_type = match value {
                    "CMP_AND_SWAP" => AtomicType::CmpAndSwap,
                    "FETCH_AND_ADD" => AtomicType::FetchAndAdd,
                    _ => return Err(bad("CMP_AND_SWAP or FETCH_AND_ADD")),
                }
            }
            _ => unreachable!("every option with a value is handled"),
        }
    }
    if o.all && size_given {
        return Err(OptError::Conflict("-a runs every size; -s names one"));
    }
    if o.duration.is_some() && iters_given {
        return Err(OptError::Conflict("-D runs for a time; -n counts iterations"));
    }
    if o.test.verb() == Verb::Atomic && size_given && o.size != DEF_SIZE_ATOMIC {
        return Err(OptError::Conflict("an atomic moves 8 bytes: -s must be 8"));
    }
    if o.connection == Connection::Ud && matches!(o.test.verb(), Verb::Write | Verb::Read | Verb::Atomic) {
        return Err(OptError::Conflict("UD carries SEND only"));
    }
    if o.connection == Connection::Uc && matches!(o.test.verb(), Verb::Read | Verb::Atomic) {
        return Err(OptError::Conflict("UC has no READ or atomics"));
    }
    if o.test.kind() == Kind::Lat && o.bidirectional {
        return Err(OptError::Conflict("-b is for BW tests"));
    }
    if o.write_with_imm && o.test.verb() != Verb::Write {
        return Err(OptError::Conflict("Write_with_imm can only be used with write_lat and write_bw tests"));
    }
    duration_and_events(&o)?;
    if o.duration_mode() {
        // perftest: "BW peak won't be measured in this run."
        o.no_peak = true;
    }
    force_dependencies(&mut o, cq_mod_given)?;
    if o.sim_second_ns.is_some() {
        if matches!(o.device, DeviceSel::Pci(_)) {
            return Err(OptError::Conflict("--sim_second_ns is the simulator's: only with -d sim"));
        }
        if !o.duration_mode() {
            return Err(OptError::Conflict("--sim_second_ns is for duration runs (-D, --run_infinitely)"));
        }
    }
    if let Some(wire) = sim_wire {
        if o.device != DeviceSel::Sim {
            return Err(OptError::Conflict("--sim_wire is a wire of the simulator: only with -d sim"));
        }
        o.device = wire;
    }
    Ok(o)
}

/// `-D`, `--run_infinitely` and `-e` as perftest's `force_dependecies`
/// allows them (its messages).
fn duration_and_events(o: &Options) -> Result<(), OptError> {
    if o.use_event && o.test.verb() == Verb::Write && !o.write_with_imm {
        return Err(OptError::Conflict("Events feature not available on WRITE verb"));
    }
    if o.run_infinitely {
        if o.all {
            return Err(OptError::Conflict("-a and --run_infinitely do not go together"));
        }
        if o.use_event {
            return Err(OptError::Conflict("run_infinitely does not support events feature yet."));
        }
        if o.test.kind() == Kind::Lat {
            return Err(OptError::Conflict("run_infinitely exists only in BW tests for now."));
        }
        if o.bidirectional && o.has_recv_comp() {
            return Err(OptError::Conflict(
                "run_infinitely mode is not supported in SEND, SEND_IMM or WRITE_IMM Bidirectional BW test",
            ));
        }
    }
    if o.duration.is_some() {
        if o.use_event {
            return Err(OptError::Conflict("Duration mode doesn't work with events."));
        }
        if o.all {
            return Err(OptError::Conflict("Duration mode currently doesn't support running on all sizes."));
        }
    }
    if o.margin.is_some() && !o.duration_mode() {
        return Err(OptError::Conflict("-f (margin) is for duration runs (-D, --run_infinitely)"));
    }
    if o.duration_mode() && o.duration_secs() as u64 <= 2 * o.margin() as u64 {
        return Err(OptError::Conflict("please check that DURATION > 2*MARGIN"));
    }
    Ok(())
}

/// perftest's `force_dependecies`, the parts that apply here.
fn force_dependencies(o: &mut Options, cq_mod_given: bool) -> Result<(), OptError> {
    let verb = o.test.verb();
    if verb == Verb::Write {
        o.rx_depth = DEF_RX_RDMA;
    }
    let has_recv_comp = o.has_recv_comp();
    if !o.duration_mode() {
        o.tx_depth = o.tx_depth.min(o.iters.min(u32::MAX as u64) as u32);
        if has_recv_comp {
            o.rx_depth = o.rx_depth.min(o.iters.min(u32::MAX as u64) as u32);
        }
    }
    if o.size > MSG_SIZE_CQ_MOD_LIMIT && o.connection != Connection::Ud && !o.all && !o.use_event && !cq_mod_given {
        o.cq_mod = DISABLED_CQ_MOD_VALUE;
    }
    o.cq_mod = o.cq_mod.min(o.tx_depth);
    if matches!(verb, Verb::Read | Verb::Atomic) {
        o.inline_size = 0;
    }
    if o.post_list > 1 && o.test.kind() == Kind::Bw {
        if !o.duration_mode() && !o.iters.is_multiple_of(o.post_list as u64) {
            return Err(OptError::Conflict("Number of iterations must be a multiple of post list size"));
        }
        if !cq_mod_given {
            o.cq_mod = o.post_list;
        } else if !o.post_list.is_multiple_of(o.cq_mod) {
            return Err(OptError::Conflict("Post list size must be a multiple of CQ moderation"));
        }
        if o.post_list > o.tx_depth {
            return Err(OptError::Conflict("the post list is longer than the send queue (-t)"));
        }
    }
    Ok(())
}

/// `0000:01:00.0`: domain, bus, device, function in hex.
pub fn is_pci_address(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && [0, 1, 2, 3, 5, 6, 8, 9, 11].iter().all(|&i| b[i].is_ascii_hexdigit())
}
