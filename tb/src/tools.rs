//! The external tools whose output tests assert, at the versions the project
//! pins in `tools/versions.env` (the file `tools/deps.sh` installs from).
//!
//! A test that checks what tshark prints gets its `Command` from
//! [`tshark`], which fails the test, with the pinned and the found version,
//! when the installed tshark is another version: another version decodes and
//! names fields differently, and a test must not pass or fail because of that.

use std::process::Command;
use std::sync::OnceLock;

/// `tools/versions.env`, compiled in.
const VERSIONS: &str = include_str!("../../tools/versions.env");

/// The value of `key` in `tools/versions.env`; panics when it is absent.
pub fn pinned(key: &str) -> &'static str {
    VERSIONS
        .lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim())
        .unwrap_or_else(|| panic!("tools/versions.env has no {key}"))
}

/// The first line of `tshark --version` must name the pinned version
/// (`TShark (Wireshark) 4.0.17 (...)`); `Err` says what was found instead.
pub fn check_tshark_version(first_line: &str) -> Result<(), String> {
    let want = pinned("TSHARK_VERSION");
    if first_line.starts_with(&format!("TShark (Wireshark) {want} ")) {
        Ok(())
    } else {
        Err(format!(
            "tshark is `{first_line}` but the tests assert tshark {want}'s output \
             (tools/versions.env); install it with `make deps`"
        ))
    }
}

/// A `tshark` command, after checking (once per process) that the installed
/// tshark is the pinned version; panics with a clear message otherwise.
pub fn tshark() -> Command {
    static CHECKED: OnceLock<Result<(), String>> = OnceLock::new();
    let verdict = CHECKED.get_or_init(|| {
        let out = Command::new("tshark")
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run tshark ({e}): run `make deps`"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        check_tshark_version(text.lines().next().unwrap_or(""))
    });
    if let Err(e) = verdict {
        panic!("{e}");
    }
    Command::new("tshark")
}

/// The repository's root.
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// tshark's decoding of `pcap`: one row per frame, `fields` in order
/// (several values of a field joined by `~`). RPC-over-RDMA's heuristic is
/// off: it takes SEND payloads for RPC and calls an empty one malformed.
pub fn tshark_fields(pcap: &std::path::Path, fields: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = tshark();
    // (the InfiniBand payload heuristics off: random payloads can look like
    // RPC over RDMA, FC over IB, SMC-R, ... and then decode as malformed)
    cmd.args(["--disable-protocol", "rpcordma"]);
    for h in [
        "fc_infiniband",
        "rpcrdma_infiniband",
        "smcr_infiniband",
        "smb_direct_infiniband",
        "iser_infiniband",
        "sdp_infiniband",
        "nvme_rdma",
    ] {
        cmd.args(["--disable-heuristic", h]);
    }
    cmd.arg("-r").arg(pcap);
    cmd.args(["-T", "fields", "-E", "separator=|", "-E", "aggregator=~"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("tshark is missing: run `make deps`");
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| l.split('|').map(str::to_string).collect()).collect()
}

/// scapy's RoCE ICRC (`tools/scapy_icrc.py`) over every frame of `pcap`:
/// asserts that it agrees with all `frames` of them; returns its report.
pub fn scapy_icrc_agrees(pcap: &std::path::Path, frames: usize) -> String {
    let python = std::env::var("RNIC_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| repo_root().join("build/venv/bin/python"));
    let out = Command::new(&python)
        .arg(repo_root().join("tools/scapy_icrc.py"))
        .arg(pcap)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (run `make deps`)", python.display()));
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "scapy disagrees:\n{report}{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains(&format!("{frames} frames, {frames} ICRCs agree, 0 disagree")), "{report}");
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_tshark_version_is_accepted_and_others_are_refused() {
        let want = pinned("TSHARK_VERSION");
        assert!(check_tshark_version(&format!("TShark (Wireshark) {want} (Git v{want} packaged as {want}-0+deb12u3)"))
            .is_ok());
        let err =
            check_tshark_version("TShark (Wireshark) 4.2.2 (Git v4.2.2 packaged as 4.2.2-1.1build3)").unwrap_err();
        assert!(err.contains("4.2.2") && err.contains(want), "{err}");
        // a longer version that only starts with the pinned one is another version
        assert!(check_tshark_version(&format!("TShark (Wireshark) {want}1 (Git)")).is_err());
        assert!(check_tshark_version("").is_err());
    }

    #[test]
    fn every_pinned_version_is_present() {
        for key in ["VERILATOR_VERSION", "YOSYS_VERSION", "TSHARK_VERSION", "SCAPY_VERSION"] {
            assert!(!pinned(key).is_empty(), "{key}");
        }
    }
}
