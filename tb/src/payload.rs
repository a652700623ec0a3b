//! Benches for the transport's payload paths: `PayloadGather` served by a
//! model of a DMA engine read client over a host-memory array, its output
//! checked against `tx::payload_beats` (what `TxBuild` takes).

use crate::tx::payload_beats;
use rnic_sim::axis::Rng;
use rnic_sim::dma_port::{aligned_beats, aligned_keep};
use rnic_sim::frames::Beat512;
use rnic_sim::models::payload_gather::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// Host memory the model serves: IOVAs `MEM_BASE..MEM_BASE + MEM_BYTES`.
pub const MEM_BASE: u64 = 0x1_0000_0000;
pub const MEM_BYTES: usize = 1 << 20;
/// Read commands a client may have outstanding (the DMA engine's tags per client).
pub const TAGS: usize = 28;

/// One piece of a packet's payload.
#[derive(Clone, Copy, Debug)]
pub struct Piece {
    pub iova: u64,
    pub len: usize,
    /// The model flags every data beat of this piece's read as failed.
    pub err: bool,
}

/// A packet: its start lane and its pieces.
#[derive(Clone, Debug)]
pub struct Packet {
    pub lane: usize,
    pub pieces: Vec<Piece>,
}

/// Stall probabilities, in percent: how often each side is held back.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stalls {
    pub piece: u64,
    pub lane: u64,
    pub cmd: u64,
    pub data: u64,
    pub out: u64,
}

struct Ports {
    p_iova: usize,
    p_len: usize,
    p_last: usize,
    p_valid: usize,
    p_ready: usize,
    l_lane: usize,
    l_valid: usize,
    l_ready: usize,
    c_addr: usize,
    c_len: usize,
    c_valid: usize,
    c_ready: usize,
    d_data: usize,
    d_keep: usize,
    d_last: usize,
    d_user: usize,
    d_valid: usize,
    d_ready: usize,
    o_data: usize,
    o_keep: usize,
    o_last: usize,
    o_user: usize,
    o_valid: usize,
    o_ready: usize,
}

/// A command the model took: when its data may start, and its beats.
struct Read {
    at: u64,
    beats: VecDeque<([u32; 16], u64, bool, bool)>,
}

pub struct GatherBench {
    pub sim: Clocked<Dut>,
    p: Ports,
    pub mem: Vec<u8>,
    pieces: VecDeque<(Piece, bool)>,
    lanes: VecDeque<usize>,
    /// Pieces in command order, to check each command against.
    want_cmds: VecDeque<Piece>,
    reads: VecDeque<Read>,
    expected: VecDeque<(Beat512, bool)>,
    pub latency: u64,
    pub stalls: Stalls,
    rng: Rng,
    piece_on: bool,
    lane_on: bool,
    data_on: bool,
    pub data_beats: u64,
    pub out_beats: u64,
    /// Cycle of every data beat taken and every output beat.
    pub data_cycles: Vec<u64>,
    pub out_cycles: Vec<u64>,
}

fn words(bytes: &[u8; 64]) -> [u32; 16] {
    let mut w = [0u32; 16];
    for (i, x) in w.iter_mut().enumerate() {
        *x = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    }
    w
}

impl GatherBench {
    pub fn new(seed: u64) -> Self {
        let dut = Dut::new();
        let i = |n: &str| dut.port(n);
        let p = Ports {
            p_iova: i("s_piece.iova"),
            p_len: i("s_piece.len"),
            p_last: i("s_piece.last"),
            p_valid: i("s_piece.valid"),
            p_ready: i("s_piece.ready"),
            l_lane: i("s_lane.lane"),
            l_valid: i("s_lane.valid"),
            l_ready: i("s_lane.ready"),
            c_addr: i("m_rd_cmd.addr"),
            c_len: i("m_rd_cmd.len"),
            c_valid: i("m_rd_cmd.valid"),
            c_ready: i("m_rd_cmd.ready"),
            d_data: i("s_rd_data.tdata"),
            d_keep: i("s_rd_data.tkeep"),
            d_last: i("s_rd_data.tlast"),
            d_user: i("s_rd_data.tuser"),
            d_valid: i("s_rd_data.tvalid"),
            d_ready: i("s_rd_data.tready"),
            o_data: i("m_axis.tdata"),
            o_keep: i("m_axis.tkeep"),
            o_last: i("m_axis.tlast"),
            o_user: i("m_axis.tuser"),
            o_valid: i("m_axis.tvalid"),
            o_ready: i("m_axis.tready"),
        };
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        let mut rng = Rng(seed);
        let mem = (0..MEM_BYTES).map(|_| rng.next() as u8).collect();
        GatherBench {
            sim,
            p,
            mem,
            pieces: VecDeque::new(),
            lanes: VecDeque::new(),
            want_cmds: VecDeque::new(),
            reads: VecDeque::new(),
            expected: VecDeque::new(),
            latency: 30,
            stalls: Stalls::default(),
            rng,
            piece_on: false,
            lane_on: false,
            data_on: false,
            data_beats: 0,
            out_beats: 0,
            data_cycles: vec![],
            out_cycles: vec![],
        }
    }

    fn bytes(&self, iova: u64, len: usize) -> &[u8] {
        let o = (iova - MEM_BASE) as usize;
        &self.mem[o..o + len]
    }

    /// A random packet: 1..=max_pieces pieces of 1..=max_len bytes at any alignment, a random start lane.
    pub fn random_packet(rng: &mut Rng, max_pieces: usize, min_len: usize, max_len: usize, p_err: u64) -> Packet {
        let n = 1 + rng.next() as usize % max_pieces;
        let pieces = (0..n)
            .map(|_| {
                let len = min_len + rng.next() as usize % (max_len - min_len + 1);
                let iova = MEM_BASE + rng.next() % (MEM_BYTES - len) as u64;
                Piece { iova, len, err: rng.chance(p_err) }
            })
            .collect();
        Packet { lane: rng.next() as usize % 64, pieces }
    }

    /// Queue a packet, and the beats it must come out as.
    pub fn queue(&mut self, pkt: &Packet) {
        let mut payload = vec![];
        for (k, pc) in pkt.pieces.iter().enumerate() {
            payload.extend_from_slice(self.bytes(pc.iova, pc.len));
            self.pieces.push_back((*pc, k + 1 == pkt.pieces.len()));
            self.want_cmds.push_back(*pc);
        }
        self.lanes.push_back(pkt.lane);
        let err = pkt.pieces.iter().any(|p| p.err);
        let beats = payload_beats(&payload, pkt.lane);
        let n = beats.len();
        self.expected.extend(beats.into_iter().enumerate().map(|(i, b)| (b, err && i + 1 == n)));
    }

    pub fn idle(&self) -> bool {
        self.expected.is_empty() && self.pieces.is_empty() && self.reads.is_empty() && self.want_cmds.is_empty()
    }

    pub fn cycle(&mut self) {
        let now = self.sim.cycle();
        let s = self.stalls;
        let p = &self.p;
        let d = &mut self.sim.dut;
        // ---- piece and lane sources (a beat once offered stays offered)
        if !self.piece_on && !self.pieces.is_empty() && !self.rng.chance(s.piece) {
            let (pc, last) = self.pieces[0];
            d.set_at(p.p_iova, pc.iova);
            d.set_at(p.p_len, pc.len as u64);
            d.set_at(p.p_last, last as u64);
            self.piece_on = true;
        }
        d.set_at(p.p_valid, self.piece_on as u64);
        if !self.lane_on && !self.lanes.is_empty() && !self.rng.chance(s.lane) {
            d.set_at(p.l_lane, self.lanes[0] as u64);
            self.lane_on = true;
        }
        d.set_at(p.l_valid, self.lane_on as u64);
        // ---- the read client: commands, then data in command order
        let outstanding = self.reads.len();
        let c_ready = outstanding < TAGS && !self.rng.chance(s.cmd);
        d.set_at(p.c_ready, c_ready as u64);
        if !self.data_on {
            if let Some(r) = self.reads.front() {
                if r.at <= now && !self.rng.chance(s.data) {
                    let (w, k, l, e) = r.beats[0];
                    d.set_words(p.d_data, &w);
                    d.set_at(p.d_keep, k);
                    d.set_at(p.d_last, l as u64);
                    d.set_at(p.d_user, e as u64);
                    self.data_on = true;
                }
            }
        }
        d.set_at(p.d_valid, self.data_on as u64);
        let o_ready = !self.rng.chance(s.out);
        d.set_at(p.o_ready, o_ready as u64);
        d.eval();

        if self.piece_on && d.bit_at(p.p_ready) {
            self.pieces.pop_front();
            self.piece_on = false;
        }
        if self.lane_on && d.bit_at(p.l_ready) {
            self.lanes.pop_front();
            self.lane_on = false;
        }
        if c_ready && d.bit_at(p.c_valid) {
            let addr = d.get_at(p.c_addr);
            let len = d.get_at(p.c_len) as usize;
            let want = self.want_cmds.pop_front().unwrap_or_else(|| panic!("cycle {now}: a command nobody asked for"));
            assert_eq!((addr, len), (want.iova, want.len), "cycle {now}: command");
            let n = aligned_beats(addr, len);
            let base = addr - addr % 64;
            let beats = (0..n)
                .map(|k| {
                    let keep = aligned_keep(addr, len, k);
                    // lanes outside keep carry junk: the block must not take them
                    let mut b = [0x5au8; 64];
                    for (lane, x) in b.iter_mut().enumerate() {
                        if keep >> lane & 1 == 1 {
                            *x = self.mem[(base + 64 * k as u64 + lane as u64 - MEM_BASE) as usize];
                        }
                    }
                    (words(&b), keep, k + 1 == n, want.err)
                })
                .collect();
            self.reads.push_back(Read { at: now + self.latency, beats });
        }
        if self.data_on && d.bit_at(p.d_ready) {
            let r = self.reads.front_mut().unwrap();
            r.beats.pop_front();
            if r.beats.is_empty() {
                self.reads.pop_front();
            }
            self.data_on = false;
            self.data_beats += 1;
            self.data_cycles.push(now);
        }
        if o_ready && d.bit_at(p.o_valid) {
            let mut data = [0u32; 16];
            d.get_words(p.o_data, &mut data);
            let keep = d.get_at(p.o_keep);
            let last = d.bit_at(p.o_last);
            let user = d.bit_at(p.o_user);
            let (want, err) =
                self.expected.pop_front().unwrap_or_else(|| panic!("cycle {now}: an output beat nobody expects"));
            assert_eq!(
                (keep, last, user),
                (want.keep, want.last, err),
                "cycle {now}: output beat {}: (tkeep, tlast, tuser)",
                self.out_beats
            );
            for lane in 0..64 {
                let (g, w) =
                    (data[lane / 4] >> (8 * (lane % 4)) & 0xff, want.data[lane / 4] >> (8 * (lane % 4)) & 0xff);
                if keep >> lane & 1 == 1 {
                    assert_eq!(g, w, "cycle {now}: output beat {} lane {lane}", self.out_beats);
                } else {
                    assert_eq!(g, 0, "cycle {now}: output beat {} lane {lane} outside tkeep", self.out_beats);
                }
            }
            self.out_beats += 1;
            self.out_cycles.push(now);
        }
        self.sim.tick();
    }

    /// Run until everything queued came out; panics after `limit` cycles.
    pub fn run(&mut self, limit: u64) -> u64 {
        let start = self.sim.cycle();
        while !self.idle() {
            self.cycle();
            if self.sim.cycle() - start >= limit {
                let d = &self.sim.dut;
                panic!(
                    "stuck: {} beats expected still, {} pieces and {} lanes to offer, {} reads out, {} commands to come; \
                     ready: piece {} lane {} data {}, valid: cmd {} out {}",
                    self.expected.len(),
                    self.pieces.len(),
                    self.lanes.len(),
                    self.reads.len(),
                    self.want_cmds.len(),
                    d.bit_at(self.p.p_ready),
                    d.bit_at(self.p.l_ready),
                    d.bit_at(self.p.d_ready),
                    d.bit_at(self.p.c_valid),
                    d.bit_at(self.p.o_valid)
                );
            }
        }
        self.sim.cycle() - start
    }
}
