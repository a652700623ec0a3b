//! `make replay` on the rxe captures: what the RTL parser reports for every
//! frame equals what tshark decoded (the `.fields.tsv` beside each pcap),
//! field for field (8,498 fields, as docs/wire.md says), and the ICRC fails
//! on exactly the three corrupted frames; every payload comes out in its
//! wire lanes (`tkeep` from the header's `payload_lane`), byte for byte the
//! model's; tshark itself, run on the captures, reports no expert item and
//! nothing malformed.

use rnic_proto::decode_frame_rx;
use rnic_tb::replay::replay;
use rnic_tb::rx::lane_keeps;
use rnic_tb::{capture, payload_offset};

fn tsv(name: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let p = rnic_proto::vectors::rxe_file(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut lines = text.lines();
    let cols: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|l| {
            cols.iter()
                .zip(l.split('\t').chain(std::iter::repeat("")))
                .map(|(c, v)| (c.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn num(s: &str) -> u128 {
    match s.strip_prefix("0x") {
        Some(h) => u128::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

/// Fields compared with tshark's decode over both captures (docs/wire.md).
const FIELDS_COMPARED: usize = 8498;

#[test]
fn replay_matches_tshark() {
    let mut total = 0;
    for name in ["rxe_rc_ud_perftest", "rxe_with_3_bad_icrc"] {
        let frames = capture(&format!("{name}.pcap"));
        let rows = tsv(&format!("{name}.fields.tsv"));
        assert_eq!(rows.len(), frames.len());
        let results = replay(&frames);
        let mut compared = 0;
        let (mut payloads, mut payload_bytes) = (0, 0);
        let mut bad = vec![];
        for (r, row) in results.iter().zip(&rows) {
            assert_eq!(r.frame.to_string(), row["frame.number"]);
            if !r.icrc_ok() {
                bad.push(r.frame);
            }
            let ours: std::collections::BTreeMap<String, u128> = r.tshark_fields().into_iter().collect();
            let atomic = ours.contains_key("atomiceth.va");
            for (col, val) in row {
                let Some(field) = col.strip_prefix("infiniband.") else { continue };
                if val.is_empty() || field == "invariant.crc" {
                    continue;
                }
                // tshark shows the AtomicETH address and key in its RETH columns
                let field = match (field, atomic) {
                    ("reth.va", true) => "atomiceth.va",
                    ("reth.r_key", true) => "atomiceth.r_key",
                    (f, _) => f,
                };
                let got =
                    ours.get(field).unwrap_or_else(|| panic!("{name} frame {}: no {field} from the RTL", r.frame));
                assert_eq!(*got, num(val), "{name} frame {}: {field}", r.frame);
                compared += 1;
            }
            assert!(r.to_json().starts_with(&format!("{{\"frame\":{}", r.frame)));
            // the payload in its wire lanes, from the lane the header gives,
            // equal to the model's payload and where the model puts it
            if let Some(f) = &r.fields {
                let p = decode_frame_rx(&frames[r.frame - 1]).expect("a frame with a header is RoCEv2");
                let (bytes, keeps) = r.payload.as_ref().expect("a payload with each header");
                let lane = f["payload_lane"] as usize;
                assert_eq!(lane, payload_offset(&p) % 64, "{name} frame {}: payload lane", r.frame);
                assert_eq!(keeps, &lane_keeps(lane, p.payload.len()), "{name} frame {}: tkeep", r.frame);
                assert_eq!(bytes, &p.payload, "{name} frame {}: payload", r.frame);
                payloads += 1;
                payload_bytes += bytes.len();
            }
        }
        eprintln!(
            "{name}: {} frames, {compared} fields equal to tshark's, ICRC failures at {bad:?}; {payloads} payloads ({payload_bytes} B) in their wire lanes equal to the model's",
            frames.len()
        );
        assert!(payloads > 100);
        assert!(compared > 1000);
        total += compared;
        if name == "rxe_with_3_bad_icrc" {
            assert_eq!(bad, [5, 50, 120]);
        } else {
            assert!(bad.is_empty());
        }
    }
    assert_eq!(total, FIELDS_COMPARED, "fields equal to tshark's");
}

/// tshark's own view of the captures the replay is checked against: every
/// frame RoCEv2, no expert item (warning, error or otherwise), nothing
/// malformed.
#[test]
fn tshark_reports_nothing_on_the_captures() {
    for name in ["rxe_rc_ud_perftest", "rxe_with_3_bad_icrc"] {
        let frames = capture(&format!("{name}.pcap"));
        let out = rnic_tb::tools::tshark()
            .arg("-r")
            .arg(rnic_proto::vectors::rxe_file(&format!("{name}.pcap")))
            .args(["-T", "fields", "-E", "separator=|", "-e", "frame.number", "-e", "frame.protocols"])
            .args(["-e", "_ws.malformed", "-e", "_ws.expert.severity", "-e", "_ws.expert.message"])
            .output()
            .expect("tshark is missing: run `make deps`");
        assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('|').collect()).collect();
        assert_eq!(rows.len(), frames.len(), "{name}: tshark saw every frame");
        for r in &rows {
            assert!(r[1].contains(":udp:infiniband"), "{name} frame {}: protocols {}", r[0], r[1]);
            assert!(r[2].is_empty(), "{name} frame {}: malformed", r[0]);
            assert!(r[3].is_empty() && r[4].is_empty(), "{name} frame {}: expert item {} {}", r[0], r[3], r[4]);
        }
    }
}

/// The JSON lines `make replay` prints carry what docs/wire.md lists:
/// `frame`, `class` (roce/raw/drop), tshark-named BTH and extended-header
/// fields, `ip.src`/`ip.dst`, `payload_len`, `icrc_ok` and `drop_reason`.
#[test]
fn json_lines_carry_the_documented_keys() {
    let caps = capture("rxe_with_3_bad_icrc.pcap");
    let good = caps[0].clone();
    let bad_icrc = caps[4].clone(); // frame 5
    let mut raw = good.clone();
    raw[12..14].copy_from_slice(&[0x08, 0x06]);
    let mut malformed = good.clone();
    malformed[42] = 0x1f; // reserved opcode
    let mut csum = good.clone();
    csum[24] ^= 0x01;
    let results = replay(&[good.clone(), bad_icrc, raw, malformed, csum]);
    let lines: Vec<String> = results.iter().map(|r| r.to_json()).collect();
    for (i, l) in lines.iter().enumerate() {
        assert!(l.starts_with(&format!("{{\"frame\":{},", i + 1)) && l.ends_with('}'), "{l}");
        assert_eq!(l.matches('{').count(), 1, "one flat object per line: {l}");
    }
    let p = rnic_proto::decode_frame(&good).unwrap();
    let has = |l: &str, kv: &str| assert!(l.contains(kv), "`{kv}` missing from {l}");
    let lacks = |l: &str, k: &str| assert!(!l.contains(k), "`{k}` in {l}");
    has(&lines[0], "\"class\":\"roce\"");
    has(&lines[0], &format!("\"bth.opcode\":{}", p.bth.opcode.value()));
    has(&lines[0], &format!("\"bth.psn\":{}", p.bth.psn.value()));
    has(&lines[0], &format!("\"bth.destqp\":{}", p.bth.dest_qp));
    has(&lines[0], "\"ip.src\":\"10.99.0.");
    has(&lines[0], "\"ip.dst\":\"10.99.0.");
    has(&lines[0], &format!("\"payload_len\":{}", p.payload.len()));
    has(&lines[0], "\"icrc_ok\":true");
    lacks(&lines[0], "drop_reason");
    has(&lines[1], "\"class\":\"drop\"");
    has(&lines[1], "\"icrc_ok\":false");
    has(&lines[1], "\"drop_reason\":\"icrc\"");
    has(&lines[2], "\"class\":\"raw\"");
    lacks(&lines[2], "drop_reason");
    has(&lines[3], "\"class\":\"drop\"");
    has(&lines[3], "\"drop_reason\":\"malformed\"");
    has(&lines[4], "\"class\":\"drop\"");
    has(&lines[4], "\"drop_reason\":\"ip_checksum\"");
}

/// A GSI frame (a UD SEND to QP1 with the GSI Q_Key, as rdma_cm sends its
/// MADs) is a RoCEv2 frame like any other: `make replay` prints its BTH and
/// DETH fields and its ICRC verdict, good or bad.
#[test]
fn gsi_frames_are_parsed_and_checked() {
    use rnic_proto::{encode_frame, Deth, ExtHeaders, Opcode};
    let mut rng = rnic_sim::axis::Rng(0x651);
    let mut p = rnic_tb::random_packet(&mut rng, Opcode::UdSendOnly);
    p.bth.dest_qp = 1;
    p.ext = ExtHeaders::Deth(Deth { qkey: Deth::GSI_QKEY, reserved: 0, src_qp: 1 });
    p.payload = (0..256).map(|i| i as u8).collect(); // a MAD
    let good = encode_frame(&p).unwrap();
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 8] ^= 0x20; // a payload byte
    let results = replay(&[good, bad]);
    let lines: Vec<String> = results.iter().map(|r| r.to_json()).collect();
    for (l, ok) in lines.iter().zip([true, false]) {
        for kv in [
            "\"bth.destqp\":1,".to_string(),
            format!("\"bth.opcode\":{},", Opcode::UdSendOnly.value()),
            format!("\"deth.q_key\":{},", Deth::GSI_QKEY),
            "\"deth.srcqp\":1,".to_string(),
            "\"payload_len\":256".to_string(),
            format!("\"icrc_ok\":{ok}"),
        ] {
            assert!(l.contains(&kv), "`{kv}` missing from {l}");
        }
    }
    assert!(lines[0].contains("\"class\":\"roce\""), "{}", lines[0]);
    assert!(lines[1].contains("\"drop_reason\":\"icrc\""), "{}", lines[1]);
}
