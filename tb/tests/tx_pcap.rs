//! Frames from the RTL transmit builder, checked by independent tools:
//! tshark decodes every one as InfiniBand over RoCEv2 with nothing malformed
//! or unknown, and scapy's RoCE ICRC (scapy.contrib.roce) agrees with the RTL
//! on every frame. `make deps` installs both; missing tools fail the test.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn builder_frames_pass_tshark_and_scapy() {
    let desc = std::fs::read_to_string(root().join("docs/examples/all_opcodes.txt")).unwrap();
    let frames = rnic_tb::txdesc::build(&desc).unwrap();
    assert_eq!(frames.len(), 76);
    let dir = root().join("build/test");
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("all_opcodes.pcap");
    std::fs::write(&pcap, rnic_tb::pcap_out::pcap_bytes(&frames)).unwrap();

    let out = Command::new("tshark")
        // tshark's RPC-over-RDMA heuristic takes SEND payloads for RPC and
        // reports an empty one as malformed; these frames carry no RPC
        .args(["--disable-protocol", "rpcordma", "-r"])
        .arg(&pcap)
        .args(["-T", "fields", "-E", "separator=|", "-e", "frame.number", "-e", "frame.protocols", "-e", "_ws.malformed", "-e", "_ws.expert.severity", "-e", "infiniband.bth.opcode"])
        .output()
        .expect("tshark is missing: run `make deps`");
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('|').collect()).collect();
    assert_eq!(rows.len(), frames.len(), "tshark saw every frame");
    for r in &rows {
        // (the RDMA payload shows as `:data` after `infiniband`)
        assert!(r[1].contains(":ip:udp:infiniband") || r[1].contains(":ipv6:udp:infiniband"), "frame {}: protocols {}", r[0], r[1]);
        assert!(r[2].is_empty(), "frame {}: malformed", r[0]);
        assert!(r[4].parse::<u32>().is_ok(), "frame {}: no BTH opcode", r[0]);
    }

    let python = std::env::var("RNIC_PYTHON").map(PathBuf::from).unwrap_or_else(|_| root().join("build/venv/bin/python"));
    let out = Command::new(&python)
        .arg(root().join("tools/scapy_icrc.py"))
        .arg(&pcap)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (run `make deps`)", python.display()));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "scapy disagrees:\n{report}{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains(&format!("{} frames, {} ICRCs agree, 0 disagree", frames.len(), frames.len())), "{report}");
    eprintln!("tshark: {} frames decoded as RoCEv2, none malformed; {}", rows.len(), report.trim());
}
