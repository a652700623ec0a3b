//! Bench for the transmit arbiter (`TxArb`, catalog `tx_arb`): each source
//! offers packets (a builder header and, when its `payload_len` is not zero,
//! payload beats) with random stalls, as an AXI source must (an offered
//! header or beat stays until taken; a source's payloads come in the order
//! of its headers, and may be offered before or after their header); the
//! sink takes headers and beats with random stalls (independently of each
//! other: a payload may leave before its header is taken). The reference
//! checks every header out against the sources' queues (each source's
//! headers in order) and every payload beat against the payloads of the
//! headers granted (taken from their source), in grant order, which is
//! also the order headers leave.

use rnic_hw::transport::TX_ARB_SOURCES;
use rnic_hw::wire::TX_HDR_BITS;
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// Header words (32 bits each).
pub const HDR_WORDS: usize = TX_HDR_BITS / 32;

/// A packet as a source offers it.
#[derive(Clone, Debug, PartialEq)]
pub struct ArbPacket {
    pub hdr: Vec<u32>,
    /// Payload beats (data words, keep); empty when `payload_len` is 0.
    pub beats: Vec<([u32; 16], u64)>,
}

impl ArbPacket {
    /// A random packet of source `src`: random header words with
    /// `payload_len` (bits 15:0) set, and that many bytes in beats
    /// (contents random, the arbiter does not look at them).
    pub fn random(rng: &mut Rng, src: usize, payload_len: usize) -> Self {
        let mut hdr: Vec<u32> = (0..HDR_WORDS).map(|_| rng.next() as u32).collect();
        hdr[0] = (hdr[0] & !0xffff) | payload_len as u32;
        // the source in a high word, so the checks can name it
        hdr[HDR_WORDS - 1] = src as u32;
        let n = payload_len.div_ceil(64);
        let beats = (0..n).map(|_| (std::array::from_fn(|_| rng.next() as u32), rng.next())).collect::<Vec<_>>();
        ArbPacket { hdr, beats }
    }
}

struct SrcPorts {
    h_data: usize,
    h_valid: usize,
    h_ready: usize,
    a_data: usize,
    a_keep: usize,
    a_last: usize,
    a_user: usize,
    a_valid: usize,
    a_ready: usize,
}

/// One source: its packets, what it offers now.
#[derive(Default)]
struct Source {
    hdrs: VecDeque<Vec<u32>>,
    /// Payload beats, each with its `tlast`, in order.
    beats: VecDeque<([u32; 16], u64, bool)>,
    /// The payload of each header not yet taken, in order.
    payloads: VecDeque<Vec<([u32; 16], u64)>>,
    hdr_offered: bool,
    beat_offered: bool,
}

/// The arbiter with its sources, sink and reference.
pub struct ArbBench<M: Model> {
    pub sim: Clocked<M>,
    src_p: Vec<SrcPorts>,
    m_hdr: (usize, usize, usize),
    m_axis: (usize, usize, usize, usize, usize),
    src: Vec<Source>,
    pub rng: Rng,
    /// Percent of cycles a source offers its next header / payload beat.
    pub p_hdr: u64,
    pub p_beat: u64,
    /// Percent of cycles the sink takes a header / a payload beat.
    pub p_take_hdr: u64,
    pub p_take_beat: u64,
    /// Per source: headers not yet out, in order (the reference).
    pending: Vec<VecDeque<ArbPacket>>,
    /// Payload beats due out, in order, with `tlast`.
    due: VecDeque<([u32; 16], u64, bool)>,
    /// Headers out: (cycle, source).
    pub hdrs_out: Vec<(u64, usize)>,
    /// Payload beats out: cycle of each.
    pub beats_out: Vec<u64>,
    /// Cycle each header was taken from its source, and each beat.
    pub hdr_taken: Vec<(u64, usize)>,
    pub beat_taken: Vec<u64>,
}

impl<M: Model> ArbBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let src_p = (0..TX_ARB_SOURCES)
            .map(|i| {
                let q = |f: &str, g: &str| dut.port(&format!("{f}.{i}.{g}"));
                SrcPorts {
                    h_data: q("s_hdr", "tdata"),
                    h_valid: q("s_hdr", "tvalid"),
                    h_ready: q("s_hdr", "tready"),
                    a_data: q("s_axis", "tdata"),
                    a_keep: q("s_axis", "tkeep"),
                    a_last: q("s_axis", "tlast"),
                    a_user: q("s_axis", "tuser"),
                    a_valid: q("s_axis", "tvalid"),
                    a_ready: q("s_axis", "tready"),
                }
            })
            .collect();
        let m_hdr = (dut.port("m_hdr.tdata"), dut.port("m_hdr.tvalid"), dut.port("m_hdr.tready"));
        let m_axis = (
            dut.port("m_axis.tdata"),
            dut.port("m_axis.tkeep"),
            dut.port("m_axis.tlast"),
            dut.port("m_axis.tvalid"),
            dut.port("m_axis.tready"),
        );
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        ArbBench {
            sim,
            src_p,
            m_hdr,
            m_axis,
            src: (0..TX_ARB_SOURCES).map(|_| Source::default()).collect(),
            rng: Rng(seed | 1),
            p_hdr: 100,
            p_beat: 100,
            p_take_hdr: 100,
            p_take_beat: 100,
            pending: (0..TX_ARB_SOURCES).map(|_| VecDeque::new()).collect(),
            due: VecDeque::new(),
            hdrs_out: vec![],
            beats_out: vec![],
            hdr_taken: vec![],
            beat_taken: vec![],
        }
    }

    /// Queue a packet at source `s`.
    pub fn push(&mut self, s: usize, p: ArbPacket) {
        let n = p.beats.len();
        self.src[s].hdrs.push_back(p.hdr.clone());
        self.src[s].payloads.push_back(p.beats.clone());
        for (k, b) in p.beats.iter().enumerate() {
            self.src[s].beats.push_back((b.0, b.1, k + 1 == n));
        }
        self.pending[s].push_back(p);
    }

    /// Everything sent and checked.
    pub fn idle(&self) -> bool {
        self.pending.iter().all(|q| q.is_empty()) && self.due.is_empty()
    }

    /// One cycle: drive, sample, check, clock.
    pub fn step(&mut self) {
        let now = self.sim.cycle();
        for (s, p) in self.src.iter_mut().zip(&self.src_p) {
            let d = &mut self.sim.dut;
            if !s.hdr_offered && !s.hdrs.is_empty() && self.rng.chance(self.p_hdr) {
                s.hdr_offered = true;
            }
            if !s.beat_offered && !s.beats.is_empty() && self.rng.chance(self.p_beat) {
                s.beat_offered = true;
            }
            let h: Vec<u32> = s.hdrs.front().cloned().unwrap_or_else(|| vec![0; HDR_WORDS]);
            d.set_words(p.h_data, &h);
            d.set_at(p.h_valid, s.hdr_offered as u64);
            let b = s.beats.front().copied().unwrap_or(([0; 16], 0, false));
            d.set_words(p.a_data, &b.0);
            d.set_at(p.a_keep, b.1);
            d.set_at(p.a_last, b.2 as u64);
            d.set_at(p.a_user, 0);
            d.set_at(p.a_valid, s.beat_offered as u64);
        }
        let take_hdr = self.rng.chance(self.p_take_hdr);
        let take_beat = self.rng.chance(self.p_take_beat);
        self.sim.dut.set_at(self.m_hdr.2, take_hdr as u64);
        self.sim.dut.set_at(self.m_axis.4, take_beat as u64);
        self.sim.settle();
        let d = &self.sim.dut;

        // ---- outputs against the reference
        if take_hdr && d.bit_at(self.m_hdr.1) {
            let mut w = vec![0u32; HDR_WORDS];
            d.get_words(self.m_hdr.0, &mut w);
            let s = w[HDR_WORDS - 1] as usize;
            assert!(s < TX_ARB_SOURCES, "cycle {now}: header of no source");
            let want = self.pending[s]
                .pop_front()
                .unwrap_or_else(|| panic!("cycle {now}: header of source {s} with none pending"));
            assert_eq!(w, want.hdr, "cycle {now}: header of source {s} out of order or changed");
            self.hdrs_out.push((now, s));
        }
        if take_beat && d.bit_at(self.m_axis.3) {
            let mut w = [0u32; 16];
            d.get_words(self.m_axis.0, &mut w);
            let keep = d.get_at(self.m_axis.1);
            let last = d.bit_at(self.m_axis.2);
            let want = self
                .due
                .pop_front()
                .unwrap_or_else(|| panic!("cycle {now}: payload beat before its header was granted (or none due)"));
            assert_eq!((w, keep, last), want, "cycle {now}: payload beat {} differs", self.beats_out.len());
            self.beats_out.push(now);
        }
        // ---- inputs taken
        for (i, (s, p)) in self.src.iter_mut().zip(&self.src_p).enumerate() {
            if s.hdr_offered && d.bit_at(p.h_ready) {
                s.hdrs.pop_front();
                // the payloads leave in grant order
                let beats = s.payloads.pop_front().unwrap();
                let n = beats.len();
                for (k, b) in beats.iter().enumerate() {
                    self.due.push_back((b.0, b.1, k + 1 == n));
                }
                s.hdr_offered = false;
                self.hdr_taken.push((now, i));
            }
            if s.beat_offered && d.bit_at(p.a_ready) {
                s.beats.pop_front();
                s.beat_offered = false;
                self.beat_taken.push(now);
            }
        }
        self.sim.tick();
    }

    /// Step until everything is out, at most `limit` cycles.
    pub fn run(&mut self, limit: u64) -> u64 {
        let start = self.sim.cycle();
        while !self.idle() {
            assert!(self.sim.cycle() - start < limit, "no progress: {} headers pending", self.pending_count());
            self.step();
        }
        self.sim.cycle() - start
    }

    fn pending_count(&self) -> usize {
        self.pending.iter().map(|q| q.len()).sum()
    }
}
