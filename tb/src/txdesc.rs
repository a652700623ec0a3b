//! A small text description of packets to send, one per line:
//!
//! ```text
//! # opcode by name or number; unspecified fields take defaults
//! op=RC_RDMA_WRITE_ONLY qp=17 psn=100 len=1000 va=0x1000 rkey=0x55 dmalen=1000
//! op=RC_ACKNOWLEDGE qp=17 psn=100 syndrome=0x1f msn=1 v6=1 vlan=100
//! ```
//!
//! Keys: `op qp psn len src_qp v6 vlan pkey se ackreq fecn becn dscp ecn ttl
//! va rkey dmalen syndrome msn swap cmp orig imm qkey srcqp`.
//!
//! A CNP (`op=CNP`, opcode 0x81) is what RoCEv2 (IBTA Annex A17.9.3) defines
//! and ConnectX sends: BECN = 1, FECN = 0, A = 0, PSN 0, SE 0, no payload,
//! 16 reserved zero bytes; `qp` is the QP to throttle. Those are its
//! defaults, and a line that sets any of them otherwise is refused.

use rnic_proto::*;

#[derive(Debug)]
pub struct DescError {
    pub line: usize,
    pub msg: String,
}

impl std::fmt::Display for DescError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

fn num(v: &str) -> Option<u64> {
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// Parse a description into packets, each with the QP number it is sent from.
pub fn parse(text: &str) -> Result<Vec<(RocePacket, u32)>, DescError> {
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |msg: String| DescError { line: i + 1, msg };
        let mut kv = std::collections::BTreeMap::new();
        for tok in line.split_whitespace() {
            let (k, v) = tok.split_once('=').ok_or_else(|| err(format!("`{tok}` is not key=value")))?;
            kv.insert(k, v);
        }
        let opname = kv.remove("op").ok_or_else(|| err("no op=".into()))?;
        let op = match num(opname) {
            Some(n) => Opcode::try_from(n as u8).map_err(|_| err(format!("unknown opcode {opname}")))?,
            None => *Opcode::ALL
                .iter()
                .find(|o| o.name().eq_ignore_ascii_case(opname))
                .ok_or_else(|| err(format!("unknown opcode {opname}")))?,
        };
        let mut get = |k: &str, default: u64| -> Result<u64, DescError> {
            match kv.remove(k) {
                Some(v) => num(v).ok_or_else(|| err(format!("{k}={v} is not a number"))),
                None => Ok(default),
            }
        };
        let len = get("len", 0)? as usize;
        let src_qp = get("src_qp", 0x11)? as u32;
        let cnp = op == Opcode::Cnp;
        let mut bth = Bth::new(op, get("qp", 0x12)? as u32, Psn::new(get("psn", 0)? as u32));
        bth.pkey = get("pkey", 0xffff)? as u16;
        bth.solicited_event = get("se", 0)? != 0;
        bth.ack_req = get("ackreq", 0)? != 0;
        bth.fecn = get("fecn", 0)? != 0;
        bth.becn = get("becn", cnp as u64)? != 0;
        if cnp && (bth.psn.value() != 0 || bth.ack_req || !bth.becn || bth.fecn || bth.solicited_event || len != 0) {
            return Err(err("a CNP has PSN 0, BECN 1, FECN 0, A 0, SE 0 and no payload".into()));
        }
        let (va, rkey) = (get("va", 0)?, get("rkey", 0)? as u32);
        let imm = ImmDt { value: get("imm", 0)? as u32 };
        let reth = Reth { va, rkey, dma_len: get("dmalen", len as u64)? as u32 };
        let aeth = Aeth { syndrome: get("syndrome", 0x1f)? as u8, msn: get("msn", 0)? as u32 };
        let deth =
            Deth { qkey: get("qkey", 0x1111_1111)? as u32, reserved: 0, src_qp: get("srcqp", src_qp as u64)? as u32 };
        let ext = match op.layout() {
            HeaderLayout::Bare => ExtHeaders::Bare,
            HeaderLayout::ImmDt => ExtHeaders::ImmDt(imm),
            HeaderLayout::Reth => ExtHeaders::Reth(reth),
            HeaderLayout::RethImmDt => ExtHeaders::RethImmDt(reth, imm),
            HeaderLayout::Aeth => ExtHeaders::Aeth(aeth),
            HeaderLayout::AethAtomicAckEth => {
                ExtHeaders::AethAtomicAckEth(aeth, AtomicAckEth { orig_remote_data: get("orig", 0)? })
            }
            HeaderLayout::AtomicEth => {
                ExtHeaders::AtomicEth(AtomicEth { va, rkey, swap_add: get("swap", 0)?, compare: get("cmp", 0)? })
            }
            HeaderLayout::Ieth => ExtHeaders::Ieth(Ieth { rkey }),
            HeaderLayout::Deth => ExtHeaders::Deth(deth),
            HeaderLayout::DethImmDt => ExtHeaders::DethImmDt(deth, imm),
            HeaderLayout::CnpReserved => ExtHeaders::CnpReserved(CnpReserved::default()),
        };
        let (dscp, ecn, ttl) = (get("dscp", 0)? as u8, get("ecn", 0)?, get("ttl", 64)? as u8);
        let ecn = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce][(ecn & 3) as usize];
        let ip = if get("v6", 0)? != 0 {
            IpHeader::V6(Ipv6Header {
                dscp,
                ecn,
                flow_label: 0,
                payload_length: 0,
                next_header: 17,
                hop_limit: ttl,
                src: "fe80::1".parse().unwrap(),
                dst: "fe80::2".parse().unwrap(),
            })
        } else {
            let mut h = Ipv4Header::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into());
            h.dscp = dscp;
            h.ecn = ecn;
            h.ttl = ttl;
            IpHeader::V4(h)
        };
        let mut eth = EthernetHeader::new(MacAddr([2, 0, 0, 0, 0, 2]), MacAddr([2, 0, 0, 0, 0, 1]));
        let vlan = get("vlan", 0)?;
        if vlan != 0 {
            eth.vlan = Some(VlanTag { pcp: 3, dei: false, vid: vlan as u16 });
        }
        if let Some(k) = kv.keys().next() {
            return Err(err(format!("unknown key {k}")));
        }
        let payload = (0..len).map(|i| i as u8).collect();
        out.push((RocePacket::new(eth, ip, 0, bth, ext, payload), src_qp));
    }
    Ok(out)
}

/// Frames for a description, built by the Verilated transmit builder.
pub fn build(text: &str) -> Result<Vec<Vec<u8>>, DescError> {
    let mut pkts = parse(text)?;
    let mut tb = crate::tx::TxBench::new();
    for (i, (p, qp)) in pkts.iter_mut().enumerate() {
        let h = crate::tx::tx_header(p, *qp, i as u16);
        tb.queue(h, &p.payload);
    }
    let mut rng = rnic_sim::axis::Rng(9);
    tb.run(&mut rng, pkts.len(), 100, 100);
    Ok(tb.frames)
}
