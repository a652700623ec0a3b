//! Driving the transmit builder: a model packet becomes the builder's header
//! fields, the RTL's frame comes back as bytes.

use crate::rx::lane_keeps;
use rnic_hw::wire::{TxBuild, TX_HDR_BITS, TX_HDR_FIELDS};
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_sim::frames::Beat512;
use rnic_sim::models::tx_build::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// The UDP source port the builder derives from a QP number.
pub fn sport_for_qp(qp: u32) -> u16 {
    0xc000 | ((qp ^ (qp >> 14)) & 0x3fff) as u16
}

/// Make a model packet sendable as the builder sends it (DF set, no IPv4
/// options, reserved bits zero, source port from `src_qp`); returns the
/// header words for the builder.
pub fn tx_header(p: &mut RocePacket, src_qp: u32, ip_id: u16) -> Vec<u32> {
    p.udp.src_port = sport_for_qp(src_qp);
    p.bth.tver = 0;
    p.bth.resv6a = 0;
    p.bth.resv7 = 0;
    p.bth.pad_count = ((4 - p.payload.len() % 4) % 4) as u8;
    let (v6, dscp, ecn, ttl, flow, src, dst) = match &mut p.ip {
        IpHeader::V4(h) => {
            h.options.clear();
            h.dont_fragment = true;
            h.more_fragments = false;
            h.reserved_flag = false;
            h.fragment_offset = 0;
            h.identification = ip_id;
            (0u128, h.dscp, h.ecn.bits(), h.ttl, 0u32, u32::from(h.src) as u128, u32::from(h.dst) as u128)
        }
        IpHeader::V6(h) => (1, h.dscp, h.ecn.bits(), h.hop_limit, h.flow_label, u128::from(h.src), u128::from(h.dst)),
    };
    if let ExtHeaders::Deth(d) | ExtHeaders::DethImmDt(d, _) = &mut p.ext {
        d.reserved = 0;
    }
    if let ExtHeaders::CnpReserved(c) = &mut p.ext {
        c.bytes = [0; 16];
    }
    let mac = |m: &MacAddr| m.0.iter().fold(0u128, |a, b| (a << 8) | *b as u128);
    let b = &p.bth;
    let (mut reth, mut aeth, mut atomic, mut ack, mut imm, mut ieth, mut deth) =
        ((0, 0, 0), (0, 0), (0, 0, 0, 0), 0, 0, 0, (0, 0));
    match &p.ext {
        ExtHeaders::Reth(r) | ExtHeaders::RethImmDt(r, _) => reth = (r.va as u128, r.rkey as u128, r.dma_len as u128),
        ExtHeaders::Aeth(a) | ExtHeaders::AethAtomicAckEth(a, _) => aeth = (a.syndrome as u128, a.msn as u128),
        ExtHeaders::AtomicEth(a) => atomic = (a.va as u128, a.rkey as u128, a.swap_add as u128, a.compare as u128),
        ExtHeaders::Ieth(i) => ieth = i.rkey as u128,
        ExtHeaders::Deth(d) | ExtHeaders::DethImmDt(d, _) => deth = (d.qkey as u128, d.src_qp as u128),
        _ => {}
    }
    if let ExtHeaders::AethAtomicAckEth(_, a) = &p.ext {
        ack = a.orig_remote_data as u128;
    }
    if let ExtHeaders::ImmDt(i) | ExtHeaders::RethImmDt(_, i) | ExtHeaders::DethImmDt(_, i) = &p.ext {
        imm = i.value as u128;
    }
    let vlan = p.eth.vlan.map(|t| ((t.pcp as u128) << 13) | ((t.dei as u128) << 12) | t.vid as u128);
    let values: Vec<u128> = vec![
        mac(&p.eth.dst),
        mac(&p.eth.src),
        vlan.is_some() as u128,
        vlan.unwrap_or(0),
        v6,
        dscp as u128,
        ecn as u128,
        ttl as u128,
        flow as u128,
        ip_id as u128,
        src,
        dst,
        b.opcode.value() as u128,
        b.solicited_event as u128,
        b.mig_req as u128,
        b.pkey as u128,
        b.fecn as u128,
        b.becn as u128,
        b.dest_qp as u128,
        b.ack_req as u128,
        b.psn.value() as u128,
        src_qp as u128,
        reth.0,
        reth.1,
        reth.2,
        aeth.0,
        aeth.1,
        atomic.0,
        atomic.1,
        atomic.2,
        atomic.3,
        ack,
        imm,
        ieth,
        deth.0,
        deth.1,
        p.payload.len() as u128,
    ];
    assert_eq!(values.len(), TX_HDR_FIELDS.len());
    let mut words = vec![0u32; TX_HDR_BITS / 32];
    let mut top: usize = TX_HDR_FIELDS.iter().map(|f| f.1).sum();
    for ((_, width), v) in TX_HDR_FIELDS.iter().zip(values) {
        top -= width;
        for k in 0..*width {
            if (v >> k) & 1 == 1 {
                words[(top + k) / 32] |= 1 << ((top + k) % 32);
            }
        }
    }
    words
}

/// A field of a builder header (`TX_HDR_BITS` as 32-bit words), by name.
pub fn tx_field(header: &[u32], name: &str) -> u128 {
    let mut top: usize = TX_HDR_FIELDS.iter().map(|f| f.1).sum();
    for (n, width) in TX_HDR_FIELDS {
        top -= width;
        if *n == name {
            return (0..*width).fold(0, |v, k| v | (((header[(top + k) / 32] >> ((top + k) % 32)) & 1) as u128) << k);
        }
    }
    panic!("no transmit header field {name}")
}

/// The lane in which the builder takes the payload of the packet `header`
/// describes: [`TxBuild::payload_lane`] of its (VLAN, IPv4/IPv6, opcode).
pub fn tx_payload_lane(header: &[u32]) -> usize {
    let op = Opcode::from_u8(tx_field(header, "opcode") as u8).expect("a known opcode");
    TxBuild::payload_lane(tx_field(header, "vlan") == 1, tx_field(header, "v6") == 1, op.layout().len())
}

/// A payload as a stream in its wire lanes: byte `j` in lane `(lane + j) %
/// 64` of beat `(lane + j) / 64`, `tkeep` marking the payload's bytes
/// ([`lane_keeps`]) and the lanes outside it filled with `0xe7` (the
/// builder must not take them). Empty payloads have no beat.
pub fn payload_beats(payload: &[u8], lane: usize) -> Vec<Beat512> {
    if payload.is_empty() {
        return vec![];
    }
    let keeps = lane_keeps(lane, payload.len());
    let n = keeps.len();
    keeps
        .iter()
        .enumerate()
        .map(|(b, &keep)| {
            let mut bytes = [0xe7u8; 64];
            for (i, x) in bytes.iter_mut().enumerate() {
                let j = (64 * b + i).wrapping_sub(lane);
                if keep >> i & 1 == 1 {
                    *x = payload[j];
                }
            }
            let mut data = [0u32; 16];
            for (i, w) in data.iter_mut().enumerate() {
                *w = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
            }
            Beat512 { data, keep, last: b + 1 == n }
        })
        .collect()
}

/// Drives the builder: packets in (header + payload, with random stalls),
/// frames out (with random backpressure). Checks every cycle that an offered
/// output beat stays offered, unchanged, and that `s_hdr.tready` and
/// `s_axis.tready` do not follow `m_axis.tready` combinationally.
pub struct TxBench {
    pub sim: Clocked<Dut>,
    hdrs: VecDeque<Vec<u32>>,
    payload: VecDeque<Beat512>,
    pub frames: Vec<Vec<u8>>,
    cur: Vec<u8>,
    /// Cycle of every output beat.
    pub out_cycles: Vec<u64>,
    /// Cycle in which each header was accepted on `s_hdr`.
    pub hdr_in_cycles: Vec<u64>,
    /// Cycle in which each frame's first beat left on `m_axis`.
    pub first_out_cycles: Vec<u64>,
    hdr_on: bool,
    pay_on: bool,
    /// A beat offered on `m_axis` and not taken: AXI-stream requires it to
    /// stay offered, unchanged, until it is (checked every cycle).
    offered: Option<(Vec<u32>, u64, u64)>,
}

impl TxBench {
    pub fn new() -> Self {
        let mut sim = Clocked::new(Dut::new());
        sim.reset(2);
        TxBench {
            sim,
            hdrs: VecDeque::new(),
            payload: VecDeque::new(),
            frames: vec![],
            cur: vec![],
            out_cycles: vec![],
            hdr_in_cycles: vec![],
            first_out_cycles: vec![],
            hdr_on: false,
            pay_on: false,
            offered: None,
        }
    }

    /// A packet: its header, and its payload placed in its wire lanes
    /// ([`payload_beats`] at [`tx_payload_lane`]).
    pub fn queue(&mut self, header: Vec<u32>, payload: &[u8]) {
        self.payload.extend(payload_beats(payload, tx_payload_lane(&header)));
        self.hdrs.push_back(header);
    }

    pub fn cycle(&mut self, rng: &mut Rng, p_valid: u64, p_ready: u64) {
        let now = self.sim.cycle();
        let d = &mut self.sim.dut;
        if !self.hdr_on && !self.hdrs.is_empty() && rng.chance(p_valid) {
            let h: [u32; 36] = self.hdrs[0].clone().try_into().unwrap();
            d.set_s_hdr_tdata(&h);
            self.hdr_on = true;
        }
        if !self.pay_on && !self.payload.is_empty() && rng.chance(p_valid) {
            let b = &self.payload[0];
            d.set_s_axis_tdata(&b.data);
            d.set_s_axis_tkeep(b.keep);
            d.set_s_axis_tlast(b.last as u64);
            self.pay_on = true;
        }
        d.set_s_hdr_tvalid(self.hdr_on as u64);
        d.set_s_axis_tvalid(self.pay_on as u64);
        let ready = rng.chance(p_ready);
        // no combinational path from m_axis.tready to either input's tready
        // (issue 9, item 3): with everything else held, flipping it changes neither
        d.set_m_axis_tready(!ready as u64);
        d.eval();
        let flipped = (d.s_hdr_tready(), d.s_axis_tready());
        d.set_m_axis_tready(ready as u64);
        d.eval();
        assert_eq!(
            (d.s_hdr_tready(), d.s_axis_tready()),
            flipped,
            "cycle {now}: s_hdr.tready or s_axis.tready follows m_axis.tready"
        );
        if self.hdr_on && d.s_hdr_tready() == 1 {
            self.hdr_in_cycles.push(now);
            self.hdrs.pop_front();
            self.hdr_on = false;
        }
        if self.pay_on && d.s_axis_tready() == 1 {
            self.payload.pop_front();
            self.pay_on = false;
        }
        let beat = (d.m_axis_tdata().to_vec(), d.m_axis_tkeep(), d.m_axis_tlast());
        if let Some(was) = self.offered.take() {
            assert!(d.m_axis_tvalid() == 1, "cycle {now}: m_axis.tvalid dropped before its beat was taken");
            assert!(beat == was, "cycle {now}: an offered m_axis beat changed before it was taken");
        }
        if !ready && d.m_axis_tvalid() == 1 {
            self.offered = Some(beat);
        }
        if ready && d.m_axis_tvalid() == 1 {
            if self.cur.is_empty() {
                self.first_out_cycles.push(now);
            }
            let keep = d.m_axis_tkeep();
            let data = d.m_axis_tdata();
            self.cur.extend((0..64).filter(|i| keep >> i & 1 == 1).map(|i| (data[i / 4] >> (8 * (i % 4))) as u8));
            if d.m_axis_tlast() == 1 {
                self.frames.push(std::mem::take(&mut self.cur));
            }
            self.out_cycles.push(now);
        }
        self.sim.tick();
    }

    /// Run until `n` frames came out (panics if the builder stops).
    pub fn idle(&self) -> bool {
        self.hdrs.is_empty() && self.payload.is_empty() && !self.hdr_on && !self.pay_on && self.cur.is_empty()
    }

    pub fn run(&mut self, rng: &mut Rng, n: usize, p_valid: u64, p_ready: u64) {
        let limit = self.sim.cycle() + 1000 + 400 * n as u64;
        while self.frames.len() < n {
            self.cycle(rng, p_valid, p_ready);
            assert!(self.sim.cycle() < limit, "builder stopped after {} of {n} frames", self.frames.len());
        }
    }
}

impl Default for TxBench {
    fn default() -> Self {
        Self::new()
    }
}

/// The frames the builder makes of `packets` (made sendable, see [`tx_header`]).
pub fn build_frames(packets: &mut [RocePacket]) -> Vec<Vec<u8>> {
    let mut tb = TxBench::new();
    for (i, p) in packets.iter_mut().enumerate() {
        let h = tx_header(p, 0x100 + i as u32, i as u16);
        tb.queue(h, &p.payload);
    }
    let mut rng = Rng(3);
    tb.run(&mut rng, packets.len(), 100, 100);
    tb.frames
}
