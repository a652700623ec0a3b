//! `make replay PCAP=...`: a capture through the Verilated receive parser,
//! one JSON line per frame with the fields it parsed, under tshark's names
//! (without the `infiniband.` prefix).

use crate::rx::{RxBench, ICRC, IP_CSUM, MAC_ERR, MALFORMED, RAW, ROCE};
use crate::unpack_header;
use rnic_sim::axis::Rng;
use std::collections::BTreeMap;

/// What the parser made of one frame.
#[derive(Debug, Clone)]
pub struct FrameResult {
    /// 1-based, as in tshark.
    pub frame: usize,
    pub code: u8,
    pub fields: Option<BTreeMap<&'static str, u128>>,
    /// With the header, the payload: its bytes (by `tkeep`) and the `tkeep`
    /// of each of its beats (it comes in its wire lanes).
    pub payload: Option<(Vec<u8>, Vec<u64>)>,
}

impl FrameResult {
    pub fn icrc_ok(&self) -> bool {
        self.code != ICRC
    }

    /// tshark-named fields present in the packet (extended headers by opcode).
    pub fn tshark_fields(&self) -> Vec<(String, u128)> {
        let Some(f) = &self.fields else { return vec![] };
        let mut v: Vec<(String, u128)> =
            ["bth.opcode", "bth.se", "bth.m", "bth.padcnt", "bth.p_key", "bth.destqp", "bth.a", "bth.psn"]
                .iter()
                .map(|k| (k.to_string(), f[k]))
                .collect();
        let groups: [(&str, &[&str]); 7] = [
            ("has.reth", &["reth.va", "reth.r_key", "reth.dmalen"]),
            ("has.aeth", &["aeth.syndrome", "aeth.msn"]),
            ("has.atomiceth", &["atomiceth.va", "atomiceth.r_key", "atomiceth.swapdt", "atomiceth.cmpdt"]),
            ("has.atomicacketh", &["atomicacketh.origremdt"]),
            ("has.immdt", &["immdt"]),
            ("has.ieth", &["ieth.r_key"]),
            ("has.deth", &["deth.q_key", "deth.srcqp"]),
        ];
        for (flag, names) in groups {
            if f[flag] == 1 {
                v.extend(names.iter().map(|k| (k.to_string(), f[k])));
            }
        }
        v.push(("udp.srcport".into(), f["udp.srcport"]));
        v.push(("payload_len".into(), f["payload_len"]));
        v
    }

    pub fn to_json(&self) -> String {
        let mut parts = vec![format!("\"frame\":{}", self.frame)];
        let class = match self.code {
            ROCE => "roce",
            RAW => "raw",
            _ => "drop",
        };
        parts.push(format!("\"class\":\"{class}\""));
        for (k, v) in self.tshark_fields() {
            parts.push(format!("\"{k}\":{v}"));
        }
        if let Some(f) = &self.fields {
            let ip = |v: u128| {
                if f["ip.v6"] == 1 {
                    std::net::Ipv6Addr::from(v).to_string()
                } else {
                    std::net::Ipv4Addr::from(v as u32).to_string()
                }
            };
            parts.push(format!("\"ip.src\":\"{}\"", ip(f["ip.src"])));
            parts.push(format!("\"ip.dst\":\"{}\"", ip(f["ip.dst"])));
        }
        if self.fields.is_some() || self.code == ICRC {
            parts.push(format!("\"icrc_ok\":{}", self.icrc_ok()));
        }
        let reason = match self.code {
            MALFORMED => Some("malformed"),
            ICRC => Some("icrc"),
            IP_CSUM => Some("ip_checksum"),
            MAC_ERR => Some("mac_error"),
            _ => None,
        };
        if let Some(r) = reason {
            parts.push(format!("\"drop_reason\":\"{r}\""));
        }
        format!("{{{}}}", parts.join(","))
    }
}

/// Run `frames` back to back through the parser.
pub fn replay(frames: &[Vec<u8>]) -> Vec<FrameResult> {
    let mut tb = RxBench::new();
    for f in frames {
        tb.queue(f, false);
    }
    let mut rng = Rng(1);
    tb.run_until(&mut rng, frames.len(), 100, 100);
    assert!(tb.shape_errors.is_empty(), "{:?}", &tb.shape_errors[..tb.shape_errors.len().min(5)]);
    // a payload goes with each header, in order
    assert_eq!(tb.payloads.len(), tb.hdrs.len());
    let mut hdrs = tb.hdrs.iter();
    let mut payloads = tb.payloads.iter().zip(&tb.payload_keeps);
    tb.codes
        .iter()
        .zip(&tb.sent_hdr)
        .enumerate()
        .map(|(i, (&code, &sent))| FrameResult {
            frame: i + 1,
            code,
            fields: if sent {
                Some(unpack_header(hdrs.next().expect("a header per frame that sent one")))
            } else {
                None
            },
            payload: if sent {
                payloads.next().map(|((bytes, _), keeps)| (bytes.clone(), keeps.clone()))
            } else {
                None
            },
        })
        .collect()
}
