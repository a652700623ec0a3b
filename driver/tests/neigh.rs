//! The neighbour table (`rnic_driver::neigh`) on fixed inputs: the text
//! the kernel writes in /proc/net/arp and iproute2's `ip neigh` prints.

use rnic_driver::neigh::*;
use rnic_driver::{ipv4_gid, link_local_gid};
use std::net::IpAddr;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

// As `cat /proc/net/arp` prints it (arp_seq_show: "%-16s 0x%-10x0x%-10x%-17s     *        %s").
const ARP: &str = "\
IP address       HW type     Flags       HW address            Mask     Device
192.168.1.1      0x1         0x2         00:1a:2b:3c:4d:5e     *        eth0
192.168.1.20     0x1         0x0         00:00:00:00:00:00     *        eth0
10.0.0.2         0x1         0x6         02:aa:bb:cc:dd:ee     *        ens1f0
";

const IP_NEIGH: &str = "\
192.168.1.1 dev eth0 lladdr 00:1a:2b:3c:4d:5e REACHABLE
192.168.1.30 dev eth0 lladdr 00:1a:2b:3c:4d:60 STALE
192.168.1.31 dev eth0 lladdr 00:1a:2b:3c:4d:61 router DELAY
192.168.1.40 dev eth0  FAILED
192.168.1.41 dev eth0 INCOMPLETE
10.0.0.2 dev ens1f0 lladdr 02:aa:bb:cc:dd:ee PERMANENT
2001:db8::5 dev ens1f0 lladdr 02:aa:bb:cc:dd:ff router STALE PROBE
";

#[test]
fn proc_net_arp_parses_into_typed_entries() {
    let t = NeighTable::parse_proc_net_arp(ARP).unwrap();
    assert_eq!(t.len(), 3);
    let e = t.entry(ip("192.168.1.1")).unwrap();
    assert_eq!(
        (e.mac, e.dev.as_str(), e.state),
        (Some([0, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e]), "eth0", NeighState::Complete)
    );
    assert_eq!(t.entry(ip("10.0.0.2")).unwrap().state, NeighState::Permanent);
    assert_eq!(t.lookup(ip("192.168.1.1")), Ok([0, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e]));
    assert_eq!(
        t.lookup(ip("192.168.1.20")),
        Err(NeighError::Unresolved { ip: ip("192.168.1.20"), state: NeighState::Incomplete })
    );
    assert_eq!(t.lookup(ip("192.168.1.99")), Err(NeighError::NotFound { ip: ip("192.168.1.99") }));
    // The header alone: an empty table.
    assert!(NeighTable::parse_proc_net_arp(&format!("{PROC_NET_ARP_HEADER}\n")).unwrap().is_empty());
}

#[test]
fn ip_neigh_parses_both_families_and_every_state() {
    let t = NeighTable::parse_ip_neigh(IP_NEIGH).unwrap();
    assert_eq!(t.len(), 7);
    let states: Vec<NeighState> =
        ["192.168.1.1", "192.168.1.30", "192.168.1.31", "192.168.1.40", "192.168.1.41", "10.0.0.2", "2001:db8::5"]
            .iter()
            .map(|a| t.entry(ip(a)).unwrap().state)
            .collect();
    use NeighState::*;
    assert_eq!(states, [Reachable, Stale, Delay, Failed, Incomplete, Permanent, Stale]);
    assert_eq!(t.lookup(ip("192.168.1.31")), Ok([0, 0x1a, 0x2b, 0x3c, 0x4d, 0x61]));
    assert_eq!(t.lookup(ip("2001:db8::5")), Ok([2, 0xaa, 0xbb, 0xcc, 0xdd, 0xff]));
    assert_eq!(t.entry(ip("192.168.1.40")).unwrap().mac, None);
    assert!(matches!(t.lookup(ip("192.168.1.41")), Err(NeighError::Unresolved { state: Incomplete, .. })));
    assert!(NeighTable::parse_ip_neigh("").unwrap().is_empty());
}

#[test]
fn malformed_tables_say_which_line_and_why() {
    let bad_arp = |s: &str| match NeighTable::parse_proc_net_arp(s) {
        Err(NeighError::Malformed { line, reason, .. }) => (line, reason),
        other => panic!("{other:?}"),
    };
    assert_eq!(bad_arp(""), (1, "empty: not even /proc/net/arp's header"));
    assert_eq!(bad_arp("IP HW\n"), (1, "not /proc/net/arp's header"));
    let h = PROC_NET_ARP_HEADER;
    assert_eq!(bad_arp(&format!("{h}\n192.168.1.1 0x1 0x2 00:1a:2b:3c:4d:5e *\n")), (2, "not six fields"));
    assert_eq!(bad_arp(&format!("{h}\n192.168.1.256 0x1 0x2 00:1a:2b:3c:4d:5e * eth0\n")), (2, "not an IPv4 address"));
    assert_eq!(bad_arp(&format!("{h}\n192.168.1.1 0x1 2 00:1a:2b:3c:4d:5e * eth0\n")), (2, "flags not in hex"));
    assert_eq!(bad_arp(&format!("{h}\n192.168.1.1 0x1 0x2 00:1a:2b:3c:4d * eth0\n")), (2, "not a MAC address"));
    let bad_ip = |s: &str| match NeighTable::parse_ip_neigh(s) {
        Err(NeighError::Malformed { line, reason, .. }) => (line, reason),
        other => panic!("{other:?}"),
    };
    assert_eq!(bad_ip("host dev eth0 REACHABLE"), (1, "not an IP address"));
    assert_eq!(bad_ip("10.0.0.1 dev eth0 lladdr 00:11:22:33:44:5g REACHABLE"), (1, "not a MAC address"));
    assert_eq!(bad_ip("10.0.0.1 dev eth0 lladdr"), (1, "lladdr without an address"));
    assert_eq!(bad_ip("10.0.0.1 dev"), (1, "dev without a name"));
    assert_eq!(bad_ip("10.0.0.1 dev eth0 lladdr 00:11:22:33:44:55"), (1, "no state"));
    assert_eq!(bad_ip("10.0.0.1 dev eth0 lladdr 00:11:22:33:44:55 HAPPY"), (1, "an unknown word"));
    assert_eq!(bad_ip("10.0.0.1 dev eth0 REACHABLE\n"), (1, "a resolved state without lladdr"));
    assert_eq!(bad_ip("10.0.0.1 dev eth0 FAILED\n::1 x"), (2, "an unknown word"));
    let e = NeighTable::parse_ip_neigh("10.0.0.1 dev eth0 HAPPY").unwrap_err();
    assert_eq!(e.to_string(), "line 1: an unknown word: \"10.0.0.1 dev eth0 HAPPY\"");
}

#[test]
fn gids_resolve_by_kind_and_static_entries_win() {
    let mut t = NeighTable::parse_ip_neigh(IP_NEIGH).unwrap();
    // An IPv4 GID: the table.
    assert_eq!(t.resolve(&ipv4_gid([192, 168, 1, 30])), Ok([0, 0x1a, 0x2b, 0x3c, 0x4d, 0x60]));
    assert_eq!(
        t.resolve(&ipv4_gid([192, 168, 1, 40])),
        Err(NeighError::Unresolved { ip: ip("192.168.1.40"), state: NeighState::Failed })
    );
    assert_eq!(t.resolve(&ipv4_gid([172, 16, 0, 1])), Err(NeighError::NotFound { ip: ip("172.16.0.1") }));
    // A link-local GID carries its MAC, table or not.
    let mac = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55];
    assert_eq!(NeighTable::new().resolve(&link_local_gid(mac)), Ok(mac));
    assert_eq!(mac_from_link_local_gid(&link_local_gid(mac)), Some(mac));
    assert_eq!(mac_from_link_local_gid(&ipv4_gid([10, 0, 0, 1])), None);
    // Multicast groups map to their Ethernet groups.
    assert_eq!(t.resolve(&ipv4_gid([239, 129, 2, 3])), Ok([0x01, 0x00, 0x5e, 0x01, 0x02, 0x03]));
    assert_eq!(t.resolve(&ip_gid("ff0e::1:2:3:4")), Ok([0x33, 0x33, 0, 3, 0, 4]));
    // A global IPv6 GID: the table.
    assert_eq!(t.resolve(&ip_gid("2001:db8::5")), Ok([2, 0xaa, 0xbb, 0xcc, 0xdd, 0xff]));
    assert_eq!(gid_ip(&ipv4_gid([10, 0, 0, 1])), ip("10.0.0.1"));
    // Static entries override the kernel's, and fill what it lacks.
    t.insert_static(ip("192.168.1.30"), [2, 0, 0, 0, 0, 1]);
    t.insert_static(ip("192.168.1.40"), [2, 0, 0, 0, 0, 2]);
    assert_eq!(t.resolve(&ipv4_gid([192, 168, 1, 30])), Ok([2, 0, 0, 0, 0, 1]));
    assert_eq!(t.resolve(&ipv4_gid([192, 168, 1, 40])), Ok([2, 0, 0, 0, 0, 2]));
    // The MAC parser is strict.
    assert_eq!(parse_mac("02:aa:BB:cc:dd:ee"), Some([2, 0xaa, 0xbb, 0xcc, 0xdd, 0xee]));
    for bad in ["02:aa:bb:cc:dd", "02:aa:bb:cc:dd:ee:ff", "2:aa:bb:cc:dd:ee", "02-aa-bb-cc-dd-ee", ""] {
        assert_eq!(parse_mac(bad), None, "{bad}");
    }
}

fn ip_gid(s: &str) -> [u8; 16] {
    s.parse::<std::net::Ipv6Addr>().unwrap().octets()
}

#[test]
fn this_machines_table_parses() {
    // /proc/net/arp exists on every Linux machine: whatever it holds, the
    // kernel's own text parses.
    match NeighTable::read_proc() {
        Ok(_) => {}
        Err(NeighError::Io { path, .. }) => assert_eq!(path, PROC_NET_ARP, "not Linux?"),
        Err(e) => panic!("the kernel's /proc/net/arp did not parse: {e}"),
    }
}
