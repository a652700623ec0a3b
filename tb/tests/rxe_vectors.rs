//! The committed tshark dumps (`vectors/rxe/*.fields.tsv`) are what the
//! pinned tshark prints for the committed captures, byte for byte, so the
//! golden and replay tests compare against tshark itself, not against a file
//! that could have drifted from its capture.

use rnic_proto::vectors::{rxe_dir, rxe_file};

#[test]
fn field_dumps_are_tsharks_output_for_the_captures() {
    let mut checked = 0;
    let mut pcaps: Vec<_> = std::fs::read_dir(rxe_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap"))
        .collect();
    pcaps.sort();
    for pcap in pcaps {
        let tsv = pcap.with_extension("fields.tsv");
        let want = std::fs::read_to_string(&tsv).unwrap_or_else(|e| panic!("{}: {e}", tsv.display()));
        let columns: Vec<&str> = want.lines().next().expect("header row").split('\t').collect();
        assert!(columns.len() > 20 && columns[0] == "frame.number", "{}: header {columns:?}", tsv.display());
        let mut cmd = rnic_tb::tools::tshark();
        cmd.arg("-r").arg(&pcap).args(["-T", "fields", "-E", "header=y", "-E", "separator=/t"]);
        for c in &columns {
            cmd.args(["-e", c]);
        }
        let out = cmd.output().expect("tshark");
        assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
        let got = String::from_utf8(out.stdout).unwrap();
        if got != want {
            let (n, (g, w)) = got
                .lines()
                .zip(want.lines())
                .enumerate()
                .find(|(_, (g, w))| g != w)
                .unwrap_or((got.lines().count().min(want.lines().count()), ("(end)", "(end)")));
            panic!("{}: tshark's output differs at line {} :\n  tshark: {g}\n  file:   {w}", tsv.display(), n + 1);
        }
        checked += want.lines().count() - 1;
    }
    // both captures: 600 + 271 frames
    assert_eq!(checked, 871);
    assert!(rxe_file("README.md").is_file());
}
