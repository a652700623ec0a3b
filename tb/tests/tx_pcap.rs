//! Frames from the RTL transmit builder, checked by independent tools:
//! tshark decodes every one as InfiniBand over RoCEv2 with nothing malformed,
//! its expert information holds exactly the one item expected (below), the
//! CNPs are what RoCEv2 defines, and scapy's RoCE ICRC (scapy.contrib.roce)
//! agrees with the RTL on every frame. `make deps` installs both; missing
//! tools fail the test.

use rnic_proto::Opcode;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// tshark's expert item on every IPv6 frame: the builder sends UDP
/// checksum 0, which RFC 8200 forbids over IPv6 (docs/wire.md, Known
/// limits). Severity "error" is 0x00800000 in tshark's numbering.
const IPV6_ZERO_UDP_CHECKSUM: (&str, &str) = ("8388608", "Illegal checksum value (0)");

/// The tshark fields read for every frame, in column order.
const FIELDS: [&str; 13] = [
    "frame.number",
    "frame.protocols",
    "_ws.malformed",
    "_ws.expert.severity",
    "_ws.expert.message",
    "infiniband.bth.opcode",
    "infiniband.bth.se",
    "infiniband.bth.a",
    "infiniband.bth.psn",
    // tshark 4.0 shows BTH byte 4 (FECN, BECN, 6 reserved bits) as one
    // reserved byte, in hex
    "infiniband.reserved",
    "infiniband.bth.reserved7",
    // what follows the BTH of an opcode tshark does not know (the CNP): its
    // 16 reserved bytes and the ICRC
    "infiniband.vendor",
    "ipv6.version",
];

#[test]
fn builder_frames_pass_tshark_and_scapy() {
    let desc = std::fs::read_to_string(root().join("docs/examples/all_opcodes.txt")).unwrap();
    let packets = rnic_tb::txdesc::parse(&desc).unwrap();
    let frames = rnic_tb::txdesc::build(&desc).unwrap();
    assert_eq!(frames.len(), 76);
    assert_eq!(packets.len(), frames.len());
    let dir = root().join("build/test");
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("all_opcodes.pcap");
    std::fs::write(&pcap, rnic_tb::pcap_out::pcap_bytes(&frames)).unwrap();

    let rows = rnic_tb::tools::tshark_fields(&pcap, &FIELDS);
    assert_eq!(rows.len(), frames.len(), "tshark saw every frame");
    let col = |r: &Vec<String>, name: &str| -> String { r[FIELDS.iter().position(|f| *f == name).unwrap()].clone() };
    let (mut cnps, mut v6) = (0, 0);
    for (i, r) in rows.iter().enumerate() {
        let n = col(r, "frame.number");
        assert_eq!(n, (i + 1).to_string());
        let (pkt, _) = &packets[i];
        let is_v6 = matches!(pkt.ip, rnic_proto::IpHeader::V6(_));
        // (the RDMA payload shows as `:data` after `infiniband`)
        let protos = col(r, "frame.protocols");
        let want = if is_v6 { ":ipv6:udp:infiniband" } else { ":ip:udp:infiniband" };
        assert!(protos.contains(want), "frame {n}: protocols {protos}");
        assert!(col(r, "_ws.malformed").is_empty(), "frame {n}: malformed");
        assert_eq!(col(r, "infiniband.bth.opcode"), pkt.bth.opcode.value().to_string(), "frame {n}: BTH opcode");
        assert_eq!(col(r, "infiniband.bth.psn"), pkt.bth.psn.value().to_string(), "frame {n}: PSN");
        // expert information: nothing over IPv4; over IPv6 exactly the one
        // item named above
        let expert = (col(r, "_ws.expert.severity"), col(r, "_ws.expert.message"));
        if is_v6 {
            assert_eq!(col(r, "ipv6.version"), "6");
            assert_eq!(
                (expert.0.as_str(), expert.1.as_str()),
                IPV6_ZERO_UDP_CHECKSUM,
                "frame {n}: tshark's expert information"
            );
            v6 += 1;
        } else {
            assert_eq!(expert, (String::new(), String::new()), "frame {n}: tshark's expert information");
        }
        if pkt.bth.opcode == Opcode::Cnp {
            // RoCEv2 CNP (IBTA A17.9.3): opcode 0x81, BECN = 1 (byte 4 =
            // 0x40: FECN and the reserved bits 0), SE 0, A 0, PSN 0, then 16
            // reserved zero bytes and the ICRC
            assert_eq!(col(r, "infiniband.bth.opcode"), "129", "frame {n}: CNP opcode");
            assert_eq!(col(r, "infiniband.reserved"), "40", "frame {n}: CNP BTH byte 4 (BECN)");
            assert_eq!(col(r, "infiniband.bth.se"), "0", "frame {n}: CNP SE");
            assert_eq!(col(r, "infiniband.bth.a"), "0", "frame {n}: CNP A");
            assert_eq!(col(r, "infiniband.bth.psn"), "0", "frame {n}: CNP PSN");
            assert_eq!(col(r, "infiniband.bth.reserved7"), "0", "frame {n}: CNP reserved 7 bits");
            let after_bth = col(r, "infiniband.vendor");
            let last = after_bth.rsplit('~').next().unwrap();
            let f = &frames[i];
            let icrc: String = f[f.len() - 4..].iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(last, format!("{}{icrc}", "00".repeat(16)), "frame {n}: 16 reserved zero bytes, then the ICRC");
            cnps += 1;
        } else {
            assert!(col(r, "infiniband.vendor").is_empty(), "frame {n}: tshark knows every other opcode");
        }
    }
    assert_eq!(cnps, 2, "a CNP over IPv4 and one over IPv6");
    assert_eq!(v6, 38);

    let report = rnic_tb::tools::scapy_icrc_agrees(&pcap, frames.len());
    eprintln!(
        "tshark: {} frames decoded as RoCEv2, none malformed, no expert item but the {v6} IPv6 zero UDP checksums; {cnps} CNPs as RoCEv2 defines; {}",
        rows.len(),
        report.trim()
    );
}

/// The description format refuses a CNP that is not one.
#[test]
fn a_cnp_line_cannot_describe_another_packet() {
    let ok = rnic_tb::txdesc::parse("op=CNP qp=7").unwrap();
    let b = &ok[0].0.bth;
    assert!(b.becn && !b.fecn && !b.ack_req && !b.solicited_event);
    assert_eq!(b.psn.value(), 0);
    for bad in [
        "op=CNP qp=7 psn=5",
        "op=CNP qp=7 becn=0",
        "op=CNP qp=7 ackreq=1",
        "op=CNP qp=7 fecn=1",
        "op=CNP qp=7 se=1",
        "op=CNP qp=7 len=4",
    ] {
        let e = rnic_tb::txdesc::parse(bad).unwrap_err();
        assert!(e.msg.contains("a CNP has PSN 0"), "{bad}: {e}");
    }
}
