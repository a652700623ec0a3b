//! The transmit arbiter and the frame builder behind a bench's source 0
//! (`TxArb` -> `TxBuild`, the models of catalog `tx_arb` and `tx_build`):
//! the requester's bench ([`crate::req_tx::TxBench`]) hands its block's
//! `m_hdr`/`m_axis` to [`TxChain::drive`] instead of taking them itself, and
//! every frame that leaves the builder is decoded with
//! `rnic_proto::decode_frame` and checked against the packet the model
//! wanted: ICRC and IPv4 checksum good, UDP ports, every header field of
//! the model's packet (read back through [`tx_header`], the one table of
//! builder fields), the payload bytes.
//!
//! The models are clocked together; each cycle the values cross in the
//! order their registers allow: the source's outputs (registers) into the
//! arbiter, the arbiter's (registers) into the builder, the builder's
//! readies (registers) back into the arbiter, the arbiter's source-0
//! readies (which follow that source's valid) back to the source.

use crate::req_tx::WantPkt;
use crate::tx::{sport_for_qp, tx_field, tx_header};
use rnic_hw::transport::TX_ARB_SOURCES;
use rnic_hw::wire::TX_HDR_BITS;
use rnic_proto::{decode_frame, IpHeader, ROCE_V2_UDP_PORT};
use rnic_sim::axis::Rng;
use rnic_sim::models::{tx_arb, tx_build};
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

const HDR_WORDS: usize = TX_HDR_BITS / 32;

/// A frame the builder sent, as checked.
#[derive(Clone, Debug)]
pub struct FrameOut {
    /// Cycle of its first and last beat.
    pub first: u64,
    pub last: u64,
    pub src_qp: u32,
    pub sq: u64,
    pub bytes: usize,
}

/// `TxArb` and `TxBuild` with the frames' reference.
pub struct TxChain {
    pub arb: Clocked<tx_arb::Dut>,
    pub build: Clocked<tx_build::Dut>,
    /// Percent of cycles the MAC takes a beat.
    pub p_mac: u64,
    /// The packets whose header the source handed over, in order: the
    /// frames must come out in this order (one source).
    expect: VecDeque<(WantPkt, u32)>,
    cur: Vec<u8>,
    cur_first: u64,
    pub frames: Vec<FrameOut>,
    /// Cycle of every beat the MAC took.
    pub mac_beats: Vec<u64>,
}

impl Default for TxChain {
    fn default() -> Self {
        Self::new()
    }
}

impl TxChain {
    pub fn new() -> Self {
        let mut arb = Clocked::new(tx_arb::Dut::new());
        let mut build = Clocked::new(tx_build::Dut::new());
        arb.reset(2);
        build.reset(2);
        TxChain {
            arb,
            build,
            p_mac: 100,
            expect: VecDeque::new(),
            cur: vec![],
            cur_first: 0,
            frames: vec![],
            mac_beats: vec![],
        }
    }

    /// No frame expected or half out.
    pub fn idle(&self) -> bool {
        self.expect.is_empty() && self.cur.is_empty()
    }

    /// A header the source handed over (taken by the arbiter): its frame is due.
    pub fn expect(&mut self, w: WantPkt, src_qp: u32) {
        self.expect.push_back((w, src_qp));
    }

    /// Offers the source's `m_hdr`/`m_axis` (read from `src`, settled) to
    /// the arbiter's source 0 and settles the chain; returns the arbiter's
    /// (`s_hdr[0].tready`, `s_axis[0].tready`) for the source.
    pub fn drive<M: Model + ?Sized>(&mut self, src: &M, rng: &mut Rng) -> (bool, bool) {
        let a = &mut self.arb.dut;
        let mut h = [0u32; HDR_WORDS];
        src.get_words(src.port("m_hdr.tdata"), &mut h);
        a.set_words(a.port("s_hdr.0.tdata"), &h);
        a.set("s_hdr.0.tvalid", src.get("m_hdr.tvalid"));
        let mut d = [0u32; 16];
        src.get_words(src.port("m_axis.tdata"), &mut d);
        a.set_words(a.port("s_axis.0.tdata"), &d);
        for f in ["tkeep", "tlast", "tuser", "tvalid"] {
            a.set(&format!("s_axis.0.{f}"), src.get(&format!("m_axis.{f}")));
        }
        for i in 1..TX_ARB_SOURCES {
            a.set(&format!("s_hdr.{i}.tvalid"), 0);
            a.set(&format!("s_axis.{i}.tvalid"), 0);
        }
        a.eval();
        let b = &mut self.build.dut;
        a.get_words(a.port("m_hdr.tdata"), &mut h);
        b.set_words(b.port("s_hdr.tdata"), &h);
        b.set("s_hdr.tvalid", a.get("m_hdr.tvalid"));
        a.get_words(a.port("m_axis.tdata"), &mut d);
        b.set_words(b.port("s_axis.tdata"), &d);
        for f in ["tkeep", "tlast", "tuser", "tvalid"] {
            b.set(&format!("s_axis.{f}"), a.get(&format!("m_axis.{f}")));
        }
        b.set("m_axis.tready", rng.chance(self.p_mac) as u64);
        b.eval();
        a.set("m_hdr.tready", b.get("s_hdr.tready"));
        a.set("m_axis.tready", b.get("s_axis.tready"));
        a.eval();
        (a.get("s_hdr.0.tready") == 1, a.get("s_axis.0.tready") == 1)
    }

    /// Takes the builder's output beat if the MAC takes it; a frame's last
    /// beat checks the frame. Then clocks both models.
    pub fn sample_and_tick(&mut self, now: u64) {
        let b = &self.build.dut;
        if b.get("m_axis.tvalid") == 1 && b.get("m_axis.tready") == 1 {
            let mut d = [0u32; 16];
            b.get_words(b.port("m_axis.tdata"), &mut d);
            let keep = b.get("m_axis.tkeep");
            if self.cur.is_empty() {
                self.cur_first = now;
            }
            self.cur.extend((0..64).filter(|i| keep >> i & 1 == 1).map(|i| (d[i / 4] >> (8 * (i % 4))) as u8));
            self.mac_beats.push(now);
            if b.get("m_axis.tlast") == 1 {
                let frame = std::mem::take(&mut self.cur);
                let (w, src_qp) =
                    self.expect.pop_front().unwrap_or_else(|| panic!("cycle {now}: a frame nobody asked for"));
                check_frame(&frame, &w, src_qp, now);
                self.frames.push(FrameOut { first: self.cur_first, last: now, src_qp, sq: w.sq, bytes: frame.len() });
            }
        }
        self.arb.tick();
        self.build.tick();
    }
}

/// `frame` is the packet `w` of QP `src_qp`, as RoCEv2 on the wire.
pub fn check_frame(frame: &[u8], w: &WantPkt, src_qp: u32, now: u64) {
    let what = format!("cycle {now}: frame of QP {src_qp:#x}, WQE {}", w.sq);
    let p = decode_frame(frame).unwrap_or_else(|e| panic!("{what}: does not decode: {e:?}"));
    assert!(p.icrc_ok, "{what}: ICRC");
    assert!(p.ip_checksum_ok(), "{what}: IPv4 header checksum");
    assert_eq!(p.udp.dst_port, ROCE_V2_UDP_PORT, "{what}: UDP destination port");
    assert_eq!(p.udp.src_port, sport_for_qp(src_qp), "{what}: UDP source port");
    assert_eq!(p.bth.pad_count, p.canonical_pad_count(), "{what}: pad count");
    assert_eq!(p.payload, w.payload, "{what}: payload");
    let ip_id = w.fields.iter().find(|f| f.0 == "ip_id").map_or(0, |f| f.1) as u16;
    if let IpHeader::V4(h) = &p.ip {
        assert!(h.dont_fragment && h.options.is_empty(), "{what}: IPv4 DF, no options");
        assert_eq!(h.identification, ip_id, "{what}: IPv4 identification");
    }
    // every field of the model's packet, read back from the frame through
    // the builder's own field table
    let words = tx_header(&mut p.clone(), src_qp, ip_id);
    for (name, v) in &w.fields {
        assert_eq!(tx_field(&words, name), *v, "{what}: field {name}");
    }
}
