//! Shared testbench helpers: the rxe captures, the protocol model's view
//! of a packet as parser fields, and random packets of any opcode.

use rnic_hw::wire::RX_HDR_FIELDS;
use rnic_proto::*;
use rnic_sim::axis::Rng;
use std::collections::BTreeMap;

/// The frames of a capture in the repository's `vectors/rxe` (fails loudly if it is missing).
pub fn capture(name: &str) -> Vec<Vec<u8>> {
    let path = rnic_proto::vectors::rxe_file(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    pcap::read_capture(&bytes).unwrap().into_iter().map(|p| p.data).collect()
}

pub fn model_fields(p: &RocePacket) -> BTreeMap<&'static str, u128> {
    let mut m = BTreeMap::new();
    let b = &p.bth;
    for (k, v) in [
        ("bth.opcode", b.opcode.value() as u128),
        ("bth.se", b.solicited_event as u128),
        ("bth.m", b.mig_req as u128),
        ("bth.padcnt", b.pad_count as u128),
        ("bth.tver", b.tver as u128),
        ("bth.p_key", b.pkey as u128),
        ("bth.fecn", b.fecn as u128),
        ("bth.becn", b.becn as u128),
        ("bth.destqp", b.dest_qp as u128),
        ("bth.a", b.ack_req as u128),
        ("bth.psn", b.psn.value() as u128),
        ("udp.srcport", p.udp.src_port as u128),
        ("payload_len", p.payload.len() as u128),
        ("payload_lane", (payload_offset(p) % 64) as u128),
    ] {
        m.insert(k, v);
    }
    let layout = p.ext.layout();
    let has = |l: &[HeaderLayout]| l.contains(&layout) as u128;
    m.insert("has.reth", has(&[HeaderLayout::Reth, HeaderLayout::RethImmDt]));
    m.insert("has.aeth", has(&[HeaderLayout::Aeth, HeaderLayout::AethAtomicAckEth]));
    m.insert("has.atomiceth", has(&[HeaderLayout::AtomicEth]));
    m.insert("has.atomicacketh", has(&[HeaderLayout::AethAtomicAckEth]));
    m.insert("has.immdt", has(&[HeaderLayout::ImmDt, HeaderLayout::RethImmDt, HeaderLayout::DethImmDt]));
    m.insert("has.ieth", has(&[HeaderLayout::Ieth]));
    m.insert("has.deth", has(&[HeaderLayout::Deth, HeaderLayout::DethImmDt]));
    m.insert("has.cnp", has(&[HeaderLayout::CnpReserved]));
    match &p.ext {
        ExtHeaders::Reth(r) | ExtHeaders::RethImmDt(r, _) => {
            m.insert("reth.va", r.va as u128);
            m.insert("reth.r_key", r.rkey as u128);
            m.insert("reth.dmalen", r.dma_len as u128);
        }
        ExtHeaders::Aeth(a) | ExtHeaders::AethAtomicAckEth(a, _) => {
            m.insert("aeth.syndrome", a.syndrome as u128);
            m.insert("aeth.msn", a.msn as u128);
        }
        ExtHeaders::AtomicEth(a) => {
            m.insert("atomiceth.va", a.va as u128);
            m.insert("atomiceth.r_key", a.rkey as u128);
            m.insert("atomiceth.swapdt", a.swap_add as u128);
            m.insert("atomiceth.cmpdt", a.compare as u128);
        }
        ExtHeaders::Ieth(i) => {
            m.insert("ieth.r_key", i.rkey as u128);
        }
        ExtHeaders::Deth(d) | ExtHeaders::DethImmDt(d, _) => {
            m.insert("deth.q_key", d.qkey as u128);
            m.insert("deth.srcqp", d.src_qp as u128);
        }
        _ => {}
    }
    if let ExtHeaders::AethAtomicAckEth(_, a) = &p.ext {
        m.insert("atomicacketh.origremdt", a.orig_remote_data as u128);
    }
    if let ExtHeaders::ImmDt(i) | ExtHeaders::RethImmDt(_, i) | ExtHeaders::DethImmDt(_, i) = &p.ext {
        m.insert("immdt", i.value as u128);
    }
    match &p.ip {
        IpHeader::V4(h) => {
            m.insert("ip.v6", 0);
            m.insert("ip.dscp", h.dscp as u128);
            m.insert("ip.ecn", h.ecn.bits() as u128);
            m.insert("ip.src", u32::from(h.src) as u128);
            m.insert("ip.dst", u32::from(h.dst) as u128);
        }
        IpHeader::V6(h) => {
            m.insert("ip.v6", 1);
            m.insert("ip.dscp", h.dscp as u128);
            m.insert("ip.ecn", h.ecn.bits() as u128);
            m.insert("ip.src", u128::from(h.src));
            m.insert("ip.dst", u128::from(h.dst));
        }
    }
    m
}

/// An IPv4 or IPv6 header with fixed addresses, for frames whose shape a
/// test sets by hand.
pub fn fixed_ip(v6: bool) -> IpHeader {
    if v6 {
        IpHeader::V6(Ipv6Header {
            dscp: 26,
            ecn: Ecn::Ect0,
            flow_label: 0x1234,
            payload_length: 0,
            next_header: 17,
            hop_limit: 64,
            src: "fd00::1".parse().unwrap(),
            dst: "fd00::2".parse().unwrap(),
        })
    } else {
        IpHeader::V4(Ipv4Header::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into()))
    }
}

pub fn random_packet(rng: &mut Rng, opcode: Opcode) -> RocePacket {
    let r64 = |rng: &mut Rng| rng.next();
    let r32 = |rng: &mut Rng| rng.next() as u32;
    let ext = match opcode.layout() {
        HeaderLayout::Bare => ExtHeaders::Bare,
        HeaderLayout::ImmDt => ExtHeaders::ImmDt(ImmDt { value: r32(rng) }),
        HeaderLayout::Reth => ExtHeaders::Reth(Reth { va: r64(rng), rkey: r32(rng), dma_len: r32(rng) }),
        HeaderLayout::RethImmDt => {
            ExtHeaders::RethImmDt(Reth { va: r64(rng), rkey: r32(rng), dma_len: r32(rng) }, ImmDt { value: r32(rng) })
        }
        HeaderLayout::Aeth => ExtHeaders::Aeth(Aeth { syndrome: rng.next() as u8, msn: r32(rng) & 0xff_ffff }),
        HeaderLayout::AethAtomicAckEth => ExtHeaders::AethAtomicAckEth(
            Aeth { syndrome: rng.next() as u8, msn: r32(rng) & 0xff_ffff },
            AtomicAckEth { orig_remote_data: r64(rng) },
        ),
        HeaderLayout::AtomicEth => {
            ExtHeaders::AtomicEth(AtomicEth { va: r64(rng), rkey: r32(rng), swap_add: r64(rng), compare: r64(rng) })
        }
        HeaderLayout::Ieth => ExtHeaders::Ieth(Ieth { rkey: r32(rng) }),
        HeaderLayout::Deth => ExtHeaders::Deth(Deth { qkey: r32(rng), reserved: 0, src_qp: r32(rng) & 0xff_ffff }),
        HeaderLayout::DethImmDt => ExtHeaders::DethImmDt(
            Deth { qkey: r32(rng), reserved: 0, src_qp: r32(rng) & 0xff_ffff },
            ImmDt { value: r32(rng) },
        ),
        HeaderLayout::CnpReserved => ExtHeaders::CnpReserved(CnpReserved::default()),
    };
    let payload = if opcode.carries_payload() { (0..rng.next() % 300).map(|i| i as u8).collect() } else { vec![] };
    let mut bth = Bth::new(opcode, (r32(rng) & 0xff_ffff).max(2), Psn::new(r32(rng)));
    bth.solicited_event = rng.chance(50);
    bth.mig_req = rng.chance(50);
    bth.pkey = rng.next() as u16;
    bth.fecn = rng.chance(20);
    bth.becn = rng.chance(20);
    bth.ack_req = rng.chance(50);
    let mut eth = EthernetHeader::new(MacAddr([2, 0, 0, 0, 0, 1]), MacAddr([2, 0, 0, 0, 0, 2]));
    if rng.chance(30) {
        eth.vlan = Some(VlanTag { pcp: 3, dei: false, vid: 100 });
    }
    let ip = if rng.chance(30) {
        IpHeader::V6(Ipv6Header {
            dscp: (rng.next() & 63) as u8,
            ecn: Ecn::Ect0,
            flow_label: r32(rng) & 0xfffff,
            payload_length: 0,
            next_header: 17,
            hop_limit: 64,
            src: (((r64(rng) as u128) << 64) | r64(rng) as u128).into(),
            dst: (((r64(rng) as u128) << 64) | r64(rng) as u128).into(),
        })
    } else {
        let mut h = Ipv4Header::new(r32(rng).into(), r32(rng).into());
        h.dscp = (rng.next() & 63) as u8;
        h.ecn = Ecn::Ce;
        if rng.chance(20) {
            h.options = vec![1; 4 * (1 + rng.next() as usize % 10)];
        }
        IpHeader::V4(h)
    };
    RocePacket::new(eth, ip, rng.next() as u16, bth, ext, payload)
}

/// Where a packet's payload starts in its frame: the length of its headers.
pub fn payload_offset(p: &RocePacket) -> usize {
    p.eth.header_len() + p.ip.header_len() + UdpHeader::LEN + Bth::LEN + p.ext.len()
}

/// Unpack the parser's header (`RX_HDR_BITS` as 32-bit words) into named fields.
pub fn unpack_header(hdr: &[u32]) -> BTreeMap<&'static str, u128> {
    let bit = |i: usize| (hdr[i / 32] >> (i % 32)) & 1;
    let mut fields = BTreeMap::new();
    let mut top: usize = RX_HDR_FIELDS.iter().map(|f| f.1).sum();
    for (name, width) in RX_HDR_FIELDS {
        top -= width;
        let v = (0..*width).fold(0u128, |acc, k| acc | ((bit(top + k) as u128) << k));
        fields.insert(*name, v);
    }
    fields
}

/// A bench stepped a cycle at a time against a reference that knows when
/// nothing is left to happen.
pub trait Stepped {
    /// One clock cycle: drive, sample, check, tick.
    fn step(&mut self);
    /// Nothing queued, in flight or owed.
    fn idle(&self) -> bool;
    fn cycle(&self) -> u64;
    /// Steps until idle, then `tail` more cycles (anything arriving late
    /// fails its check there); returns the cycles run. Panics after `limit`.
    fn run_to_idle(&mut self, limit: u64, tail: u64) -> u64 {
        let start = self.cycle();
        while !self.idle() {
            assert!(self.cycle() - start < limit, "bench still busy after {limit} cycles");
            self.step();
        }
        for _ in 0..tail {
            self.step();
        }
        self.cycle() - start
    }
}

pub mod ack_gen;
pub mod bad_packets;
pub mod cache_scaling;
pub mod comp_ack;
pub mod ctx_cache;
pub mod ctx_port_mux;
pub mod diff_stim;
pub mod dma;
pub mod dma_mux;
pub mod driver_hw;
pub mod gbn_check;
pub mod host_bench;
pub mod host_transport;
pub mod inflight;
pub mod lone_nic;
pub mod mr;
pub mod mr_xlate;
pub mod nic_bench;
pub mod payload;
pub mod read_ref;
pub mod replay;
pub mod req_fetch;
pub mod req_gen;
pub mod req_payload;
pub mod req_tx;
pub mod resp_check;
pub mod resp_exec;
pub mod resp_gen;
pub mod retry_timer;
pub mod rx;
pub mod rx_hold;
pub mod rx_lookup;
pub mod scatter;
pub mod send_sched;
pub mod sim_net;
pub mod sock_net;
pub mod sq_ahead;
pub mod tx_arb;
pub mod tx_chain;

pub mod pcap_out;
pub mod tools;
pub mod tx;
pub mod txdesc;
