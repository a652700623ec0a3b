//! The peer's MAC for an address handle: RoCEv2 frames go to the next hop's
//! MAC, which the GID does not carry (except a link-local one, built from
//! the MAC). The kernel's neighbour table knows it: read from
//! `/proc/net/arp` (IPv4) or from `ip neigh` output (IPv4 and IPv6),
//! parsed into a typed [`NeighTable`], with static entries that override
//! what the kernel says (two simulated NICs have no kernel table at all).
//!
//! [`NeighTable::resolve`] is what the driver asks for a GID:
//!
//! | destination GID | MAC |
//! |---|---|
//! | link-local `fe80::/64` with an EUI-64 (`xx:xx:xx:ff:fe:xx:xx:xx`) | the MAC inside it ([`mac_from_link_local_gid`]) |
//! | IPv4 multicast `::ffff:224.0.0.0/100` | `01:00:5e` and the low 23 bits (RFC 1112) |
//! | IPv6 multicast `ff00::/8` | `33:33` and the low 32 bits (RFC 2464) |
//! | IPv4 `::ffff:a.b.c.d`, or another IPv6 address | a static entry, else a complete entry of the table |
//!
//! The parsers are strict: a line that is not what the kernel writes is
//! [`NeighError::Malformed`] with its number, never skipped; entries
//! without a MAC (`INCOMPLETE`, `FAILED`, flags 0 in `/proc/net/arp`) are
//! kept, so that a lookup can say the neighbour is unresolved rather than
//! unknown.
//!
//! ```
//! use rnic_driver::neigh::{NeighError, NeighTable};
//! use rnic_driver::ipv4_gid;
//!
//! let arp = "IP address       HW type     Flags       HW address            Mask     Device\n\
//!            192.168.1.7      0x1         0x2         02:11:22:33:44:55     *        eth0\n\
//!            192.168.1.9      0x1         0x0         00:00:00:00:00:00     *        eth0\n";
//! let mut table = NeighTable::parse_proc_net_arp(arp)?;
//! assert_eq!(table.resolve(&ipv4_gid([192, 168, 1, 7]))?, [0x02, 0x11, 0x22, 0x33, 0x44, 0x55]);
//! assert!(matches!(table.resolve(&ipv4_gid([192, 168, 1, 9])), Err(NeighError::Unresolved { .. })));
//! assert!(matches!(table.resolve(&ipv4_gid([10, 0, 0, 1])), Err(NeighError::NotFound { .. })));
//! table.insert_static("10.0.0.1".parse().unwrap(), [0x02, 0, 0, 0, 0, 0x0a]);
//! assert_eq!(table.resolve(&ipv4_gid([10, 0, 0, 1]))?, [0x02, 0, 0, 0, 0, 0x0a]);
//! # Ok::<(), NeighError>(())
//! ```

use crate::device::Gid;
use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A MAC address.
pub type Mac = [u8; 6];

/// The kernel's IPv4 neighbour table.
pub const PROC_NET_ARP: &str = "/proc/net/arp";

/// `/proc/net/arp`'s header line, as the kernel writes it
/// (`net/ipv4/arp.c`, `arp_seq_show`).
pub const PROC_NET_ARP_HEADER: &str = "IP address       HW type     Flags       HW address            Mask     Device";

/// `ATF_COM` in `/proc/net/arp`'s flags: the entry has a MAC.
pub const ATF_COM: u32 = 0x02;
/// `ATF_PERM`: a permanent (static) kernel entry.
pub const ATF_PERM: u32 = 0x04;

/// The state of a neighbour entry, as `ip neigh` names it (`NUD_*`), or
/// as `/proc/net/arp`'s flags say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NeighState {
    /// Confirmed recently.
    Reachable,
    /// Not confirmed recently; still used.
    Stale,
    /// Waiting before a probe.
    Delay,
    /// Being probed.
    Probe,
    /// Static in the kernel (`PERMANENT`, `ATF_PERM`).
    Permanent,
    /// No ARP needed (`NOARP`).
    Noarp,
    /// Resolution under way: no MAC yet.
    Incomplete,
    /// Resolution failed: no MAC.
    Failed,
    /// `/proc/net/arp`'s `ATF_COM` without a finer state.
    Complete,
}

impl NeighState {
    /// `ip neigh`'s word for a state.
    pub fn from_ip_word(word: &str) -> Option<NeighState> {
        Some(match word {
            "REACHABLE" => NeighState::Reachable,
            "STALE" => NeighState::Stale,
            "DELAY" => NeighState::Delay,
            "PROBE" => NeighState::Probe,
            "PERMANENT" => NeighState::Permanent,
            "NOARP" => NeighState::Noarp,
            "INCOMPLETE" => NeighState::Incomplete,
            "FAILED" => NeighState::Failed,
            _ => return None,
        })
    }
}

/// One neighbour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeighEntry {
    /// Its IP address.
    pub ip: IpAddr,
    /// Its MAC, when resolved.
    pub mac: Option<Mac>,
    /// The interface.
    pub dev: String,
    /// The state.
    pub state: NeighState,
}

/// Why a table could not be read or a MAC not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NeighError {
    /// A line of the input is not what the kernel writes.
    Malformed {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: &'static str,
        /// The line.
        text: String,
    },
    /// Reading the table failed.
    Io {
        /// The file.
        path: String,
        /// The error, as the OS said it.
        error: String,
    },
    /// No entry for the address.
    NotFound {
        /// The address looked up.
        ip: IpAddr,
    },
    /// An entry without a MAC (`INCOMPLETE`, `FAILED`).
    Unresolved {
        /// The address looked up.
        ip: IpAddr,
        /// Its state.
        state: NeighState,
    },
}

impl fmt::Display for NeighError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NeighError::Malformed { line, reason, text } => write!(f, "line {line}: {reason}: {text:?}"),
            NeighError::Io { path, error } => write!(f, "{path}: {error}"),
            NeighError::NotFound { ip } => {
                write!(f, "no neighbour entry for {ip} (ping it first, or give its MAC as a static entry)")
            }
            NeighError::Unresolved { ip, state } => write!(f, "the neighbour {ip} has no MAC yet ({state:?})"),
        }
    }
}

impl std::error::Error for NeighError {}

/// The neighbours the driver knows: the kernel's entries and static ones,
/// which win.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NeighTable {
    entries: HashMap<IpAddr, NeighEntry>,
    statics: HashMap<IpAddr, Mac>,
}

/// `aa:bb:cc:dd:ee:ff`, two hex digits per byte, as the kernel prints it.
pub fn parse_mac(s: &str) -> Option<Mac> {
    let mut mac = [0u8; 6];
    let mut parts = s.split(':');
    for b in mac.iter_mut() {
        let p = parts.next()?;
        if p.len() != 2 || !p.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        *b = u8::from_str_radix(p, 16).ok()?;
    }
    parts.next().is_none().then_some(mac)
}

/// The MAC inside a link-local GID (`fe80::/64` with a modified EUI-64),
/// the inverse of [`crate::link_local_gid`].
pub fn mac_from_link_local_gid(gid: &Gid) -> Option<Mac> {
    let link_local = gid[..8] == [0xfe, 0x80, 0, 0, 0, 0, 0, 0] && gid[11] == 0xff && gid[12] == 0xfe;
    link_local.then(|| [gid[8] ^ 2, gid[9], gid[10], gid[13], gid[14], gid[15]])
}

/// The IP address a GID stands for: IPv4 for `::ffff:a.b.c.d`, else IPv6.
pub fn gid_ip(gid: &Gid) -> IpAddr {
    let v6 = Ipv6Addr::from(*gid);
    match v6.to_ipv4_mapped() {
        Some(v4) => IpAddr::V4(v4),
        None => IpAddr::V6(v6),
    }
}

/// The Ethernet address of a multicast group (RFC 1112, RFC 2464).
pub fn multicast_mac(ip: IpAddr) -> Option<Mac> {
    match ip {
        IpAddr::V4(v4) if v4.is_multicast() => {
            let o = v4.octets();
            Some([0x01, 0x00, 0x5e, o[1] & 0x7f, o[2], o[3]])
        }
        IpAddr::V6(v6) if v6.is_multicast() => {
            let o = v6.octets();
            Some([0x33, 0x33, o[12], o[13], o[14], o[15]])
        }
        _ => None,
    }
}

impl NeighTable {
    /// An empty table (static entries only, once inserted).
    pub fn new() -> NeighTable {
        NeighTable::default()
    }

    /// Parses `/proc/net/arp`: the kernel's header, then one line per entry
    /// (`IP address, HW type, Flags, HW address, Mask, Device`). Flags
    /// without `ATF_COM` mean no MAC yet.
    pub fn parse_proc_net_arp(text: &str) -> Result<NeighTable, NeighError> {
        let mut t = NeighTable::new();
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, h)) if h.split_whitespace().eq(PROC_NET_ARP_HEADER.split_whitespace()) => {}
            Some((_, h)) => return Err(malformed(1, "not /proc/net/arp's header", h)),
            None => return Err(malformed(1, "empty: not even /proc/net/arp's header", "")),
        }
        for (i, line) in lines {
            let f: Vec<&str> = line.split_whitespace().collect();
            let n = i + 1;
            if f.is_empty() {
                continue;
            }
            let [ip, _hw_type, flags, mac, _mask, dev] = f[..] else {
                return Err(malformed(n, "not six fields", line));
            };
            let ip: Ipv4Addr = ip.parse().map_err(|_| malformed(n, "not an IPv4 address", line))?;
            let flags = flags
                .strip_prefix("0x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .ok_or_else(|| malformed(n, "flags not in hex", line))?;
            let mac = parse_mac(mac).ok_or_else(|| malformed(n, "not a MAC address", line))?;
            let (mac, state) = if flags & ATF_COM == 0 {
                (None, NeighState::Incomplete)
            } else if flags & ATF_PERM != 0 {
                (Some(mac), NeighState::Permanent)
            } else {
                (Some(mac), NeighState::Complete)
            };
            t.entries.insert(IpAddr::V4(ip), NeighEntry { ip: IpAddr::V4(ip), mac, dev: dev.into(), state });
        }
        Ok(t)
    }

    /// Parses `ip neigh show` (iproute2): `ADDR [dev DEV] [lladdr MAC]
    /// [router] [proxy] [extern_learn] STATE...`, IPv4 and IPv6. An entry
    /// with more than one state word (`STALE PROBE`) takes the first.
    pub fn parse_ip_neigh(text: &str) -> Result<NeighTable, NeighError> {
        let mut t = NeighTable::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let mut f = line.split_whitespace();
            let Some(ip) = f.next() else { continue };
            let ip: IpAddr = ip.parse().map_err(|_| malformed(n, "not an IP address", line))?;
            let (mut dev, mut mac, mut state) = (String::new(), None, None);
            while let Some(w) = f.next() {
                match w {
                    "dev" => dev = f.next().ok_or_else(|| malformed(n, "dev without a name", line))?.into(),
                    "lladdr" => {
                        let m = f.next().ok_or_else(|| malformed(n, "lladdr without an address", line))?;
                        mac = Some(parse_mac(m).ok_or_else(|| malformed(n, "not a MAC address", line))?);
                    }
                    "router" | "proxy" | "extern_learn" | "offload" | "rt_offload" => {}
                    _ => match NeighState::from_ip_word(w) {
                        Some(s) => {
                            state.get_or_insert(s);
                        }
                        None => return Err(malformed(n, "an unknown word", line)),
                    },
                }
            }
            let state = state.ok_or_else(|| malformed(n, "no state", line))?;
            let mac = match state {
                NeighState::Incomplete | NeighState::Failed => None,
                _ => Some(mac.ok_or_else(|| malformed(n, "a resolved state without lladdr", line))?),
            };
            t.entries.insert(ip, NeighEntry { ip, mac, dev, state });
        }
        Ok(t)
    }

    /// Reads and parses [`PROC_NET_ARP`].
    pub fn read_proc() -> Result<NeighTable, NeighError> {
        let text = std::fs::read_to_string(PROC_NET_ARP)
            .map_err(|e| NeighError::Io { path: PROC_NET_ARP.into(), error: e.to_string() })?;
        NeighTable::parse_proc_net_arp(&text)
    }

    /// A static entry: `ip` is at `mac`, whatever the kernel's table says.
    pub fn insert_static(&mut self, ip: IpAddr, mac: Mac) {
        self.statics.insert(ip, mac);
    }

    /// The kernel entry for `ip`, if any.
    pub fn entry(&self, ip: IpAddr) -> Option<&NeighEntry> {
        self.entries.get(&ip)
    }

    /// Kernel entries read.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No kernel entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The MAC of `ip`: a static entry, else a kernel entry with a MAC.
    pub fn lookup(&self, ip: IpAddr) -> Result<Mac, NeighError> {
        if let Some(mac) = self.statics.get(&ip) {
            return Ok(*mac);
        }
        match self.entries.get(&ip) {
            Some(NeighEntry { mac: Some(mac), .. }) => Ok(*mac),
            Some(e) => Err(NeighError::Unresolved { ip, state: e.state }),
            None => Err(NeighError::NotFound { ip }),
        }
    }

    /// The MAC an address handle to `gid` needs (the table in the module's
    /// documentation): from a link-local GID itself, from a multicast
    /// group's address, else [`NeighTable::lookup`] of its IP address.
    pub fn resolve(&self, gid: &Gid) -> Result<Mac, NeighError> {
        let ip = gid_ip(gid);
        if let Some(mac) = self.statics.get(&ip) {
            return Ok(*mac);
        }
        if let Some(mac) = mac_from_link_local_gid(gid).or_else(|| multicast_mac(ip)) {
            return Ok(mac);
        }
        self.lookup(ip)
    }
}

fn malformed(line: usize, reason: &'static str, text: &str) -> NeighError {
    NeighError::Malformed { line, reason, text: text.into() }
}
