//! Bench for `PayloadScatter` (catalog `payload_scatter`): packets' payloads
//! offered in their wire lanes (as `RxParse` hands them out, [`lane_keeps`])
//! with their commands and pieces, the block's DMA write client served by a
//! Rust model of the DMA engine's write side over a host-memory array, and
//! its `m_done` taken, every stream with random stalls.
//!
//! The write model keeps the client contract (docs/host.md): `addr` and
//! `len` held across a write's beats, address-aligned data, `tkeep` exactly
//! the write's bytes (`aligned_keep`), `tlast` on its last beat; one
//! `wr_done` pulse per write, in issue order, after a random latency. A
//! write lands in host memory when its `wr_done` is given (a failed one
//! never), so a packet reported done too early shows stale memory.
//!
//! The reference is the list of writes the block must make: one per piece
//! of each packet not dropped, in order, each with the payload's bytes of
//! that piece. Every write is checked against it as it completes (address,
//! length, every byte), so a dropped packet's bytes in any write, or a write
//! too many, fail at once; host memory is compared byte for byte with the
//! reference memory at the end. `m_done` is checked to come once per packet
//! not dropped, in order, after the `wr_done` of its last write, with `err`
//! exactly when one of its writes failed.

use crate::rx::lane_keeps;
use rnic_sim::axis::Rng;
use rnic_sim::dma_port::{aligned_beats, aligned_keep};
use rnic_sim::models::payload_scatter::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// Host memory the model writes: IOVAs `MEM_BASE..MEM_BASE + MEM_BYTES`.
pub const MEM_BASE: u64 = 0x2_0000_0000;
pub const MEM_BYTES: usize = 1 << 20;

/// One destination piece: `len` bytes at `iova`.
#[derive(Clone, Copy, Debug)]
pub struct Piece {
    pub iova: u64,
    pub len: usize,
    /// The write model completes this piece's write with `wr_done_err` (it does not land).
    pub err: bool,
}

/// A received packet: its payload, the lane of its first byte, its pieces
/// (none when dropped).
#[derive(Clone, Debug)]
pub struct Packet {
    pub lane: usize,
    pub payload: Vec<u8>,
    pub drop: bool,
    pub pieces: Vec<Piece>,
}

/// Stall probabilities, in percent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stalls {
    pub pkt: u64,
    pub piece: u64,
    pub data: u64,
    pub wr: u64,
    pub done: u64,
}

struct Ports {
    k_lane: usize,
    k_drop: usize,
    k_valid: usize,
    k_ready: usize,
    p_iova: usize,
    p_len: usize,
    p_last: usize,
    p_valid: usize,
    p_ready: usize,
    a_data: usize,
    a_keep: usize,
    a_last: usize,
    a_user: usize,
    a_valid: usize,
    a_ready: usize,
    w_data: usize,
    w_keep: usize,
    w_last: usize,
    w_addr: usize,
    w_len: usize,
    w_valid: usize,
    w_ready: usize,
    wr_done: usize,
    wr_done_err: usize,
    d_err: usize,
    d_valid: usize,
    d_ready: usize,
}

/// A write the block must make: its piece, its bytes, its packet's index.
struct WantWrite {
    piece: Piece,
    data: Vec<u8>,
    pkt: usize,
}

/// A write taken whole, waiting for its completion.
struct Pending {
    at: u64,
    iova: u64,
    data: Vec<u8>,
    err: bool,
    pkt: usize,
}

/// A write of the log: where, how many bytes, for which packet, when its last beat was taken.
#[derive(Clone, Copy, Debug)]
pub struct LoggedWrite {
    pub iova: u64,
    pub len: usize,
    pub pkt: usize,
    pub cycle: u64,
}

/// A packet not dropped, waiting for its `m_done`.
struct WantDone {
    pkt: usize,
    /// writes of it not yet completed
    open: usize,
    err: bool,
    /// cycle of its last completion pulse
    last_cpl: Option<u64>,
}

pub struct ScatterBench {
    pub sim: Clocked<Dut>,
    p: Ports,
    /// Host memory as the block's writes left it, and as the reference says it must be.
    pub mem: Vec<u8>,
    pub mem_ref: Vec<u8>,
    pkts: VecDeque<(usize, bool)>,
    pieces: VecDeque<(Piece, bool)>,
    beats: VecDeque<([u32; 16], u64, bool)>,
    want_writes: VecDeque<WantWrite>,
    wr_cur: Option<(u64, u64, Vec<u8>, usize)>,
    pending: VecDeque<Pending>,
    want_done: VecDeque<WantDone>,
    /// Cycles from a write's last beat to its completion: min, spread.
    pub wr_lat: (u64, u64),
    pub stalls: Stalls,
    /// No payload beat is offered before this cycle.
    pub data_from: u64,
    rng: Rng,
    pkt_on: bool,
    piece_on: bool,
    data_on: bool,
    queued: usize,
    /// the offered m_wr beat / m_done not taken last cycle (it must stay)
    wr_held: Option<([u32; 16], u64, bool, u64, u64)>,
    done_held: Option<bool>,
    /// Every write the block made, in order.
    pub log: Vec<LoggedWrite>,
    pub dones: u64,
    /// `m_done`s with `err`.
    pub done_errs: u64,
    /// Cycles of every piece taken.
    pub piece_cycles: Vec<u64>,
    /// Cycles of every s_axis beat taken, m_wr beat taken, completion pulse, m_done taken.
    pub in_cycles: Vec<u64>,
    pub wr_cycles: Vec<u64>,
    pub cpl_cycles: Vec<u64>,
    pub done_cycles: Vec<u64>,
    /// Cycle of the first m_wr beat offered.
    pub first_wr_valid: Option<u64>,
}

fn words(bytes: &[u8; 64]) -> [u32; 16] {
    std::array::from_fn(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
}

fn lane_byte(w: &[u32; 16], lane: usize) -> u8 {
    (w[lane / 4] >> (8 * (lane % 4))) as u8
}

/// A payload as the parser hands it out: byte `j` in lane `(lane + j) % 64`
/// of beat `(lane + j) / 64`, `tkeep` its bytes ([`lane_keeps`]), junk in
/// the other lanes; one beat with `tkeep` 0 when it is empty.
pub fn wire_beats(payload: &[u8], lane: usize) -> Vec<([u32; 16], u64, bool)> {
    let keeps = lane_keeps(lane, payload.len());
    let n = keeps.len();
    keeps
        .iter()
        .enumerate()
        .map(|(b, &keep)| {
            let mut bytes = [0xe7u8; 64];
            for (i, x) in bytes.iter_mut().enumerate() {
                if keep >> i & 1 == 1 {
                    *x = payload[64 * b + i - lane];
                }
            }
            (words(&bytes), keep, b + 1 == n)
        })
        .collect()
}

/// Beats the realigner adds or the split repeats for a packet's pieces:
/// (pieces that end inside a beat, not at lane 63 nor at the payload's end;
/// pieces whose last byte moves to a lower lane than it came from, so the
/// realigner makes an extra beat).
pub fn piece_costs(pkt: &Packet) -> (u64, u64) {
    let (mut split, mut wrap) = (0, 0);
    let mut off = 0;
    for (k, pc) in pkt.pieces.iter().enumerate() {
        let last_src = (pkt.lane + off + pc.len - 1) % 64;
        let last_dst = ((pc.iova + pc.len as u64 - 1) % 64) as usize;
        if last_dst < last_src {
            wrap += 1;
        }
        if k + 1 < pkt.pieces.len() && last_src != 63 {
            split += 1;
        }
        off += pc.len;
    }
    (split, wrap)
}

impl ScatterBench {
    pub fn new(seed: u64) -> Self {
        let dut = Dut::new();
        let i = |n: &str| dut.port(n);
        let p = Ports {
            k_lane: i("s_pkt.lane"),
            k_drop: i("s_pkt.drop"),
            k_valid: i("s_pkt.valid"),
            k_ready: i("s_pkt.ready"),
            p_iova: i("s_piece.iova"),
            p_len: i("s_piece.len"),
            p_last: i("s_piece.last"),
            p_valid: i("s_piece.valid"),
            p_ready: i("s_piece.ready"),
            a_data: i("s_axis.tdata"),
            a_keep: i("s_axis.tkeep"),
            a_last: i("s_axis.tlast"),
            a_user: i("s_axis.tuser"),
            a_valid: i("s_axis.tvalid"),
            a_ready: i("s_axis.tready"),
            w_data: i("m_wr.tdata"),
            w_keep: i("m_wr.tkeep"),
            w_last: i("m_wr.tlast"),
            w_addr: i("m_wr.addr"),
            w_len: i("m_wr.len"),
            w_valid: i("m_wr.tvalid"),
            w_ready: i("m_wr.tready"),
            wr_done: i("wr_done"),
            wr_done_err: i("wr_done_err"),
            d_err: i("m_done.err"),
            d_valid: i("m_done.valid"),
            d_ready: i("m_done.ready"),
        };
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        let mut rng = Rng(seed);
        let mem: Vec<u8> = (0..MEM_BYTES).map(|_| rng.next() as u8).collect();
        ScatterBench {
            sim,
            p,
            mem_ref: mem.clone(),
            mem,
            pkts: VecDeque::new(),
            pieces: VecDeque::new(),
            beats: VecDeque::new(),
            want_writes: VecDeque::new(),
            wr_cur: None,
            pending: VecDeque::new(),
            want_done: VecDeque::new(),
            wr_lat: (10, 60),
            stalls: Stalls::default(),
            data_from: 0,
            rng,
            pkt_on: false,
            piece_on: false,
            data_on: false,
            queued: 0,
            wr_held: None,
            done_held: None,
            log: vec![],
            dones: 0,
            done_errs: 0,
            piece_cycles: vec![],
            in_cycles: vec![],
            wr_cycles: vec![],
            cpl_cycles: vec![],
            done_cycles: vec![],
            first_wr_valid: None,
        }
    }

    /// A random packet: a payload of `min_len..=max_len` bytes (an empty one
    /// is dropped; others with probability `p_drop`), any start lane, cut into
    /// 1..=`max_pieces` pieces at random IOVAs (any alignment), each failing
    /// with probability `p_err`.
    pub fn random_packet(
        rng: &mut Rng,
        min_len: usize,
        max_len: usize,
        max_pieces: usize,
        p_drop: u64,
        p_err: u64,
    ) -> Packet {
        let len = min_len + rng.next() as usize % (max_len - min_len + 1);
        let payload: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let lane = rng.next() as usize % 64;
        let drop = len == 0 || rng.chance(p_drop);
        let mut pieces = vec![];
        if !drop {
            let n = 1 + rng.next() as usize % max_pieces.min(len);
            // n - 1 distinct cut points in 1..len
            let mut cuts: Vec<usize> = vec![0, len];
            while cuts.len() < n + 1 {
                let c = 1 + rng.next() as usize % (len - 1).max(1);
                if !cuts.contains(&c) {
                    cuts.push(c);
                }
            }
            cuts.sort();
            for w in cuts.windows(2) {
                let plen = w[1] - w[0];
                let iova = MEM_BASE + rng.next() % (MEM_BYTES - plen) as u64;
                pieces.push(Piece { iova, len: plen, err: rng.chance(p_err) });
            }
        }
        Packet { lane, payload, drop, pieces }
    }

    /// Queue a packet: its command, pieces and beats, the writes it must
    /// make and its reference memory.
    pub fn queue(&mut self, pkt: &Packet) {
        assert!(pkt.drop || !pkt.payload.is_empty(), "a packet not dropped has a payload");
        assert_eq!(pkt.pieces.iter().map(|p| p.len).sum::<usize>(), if pkt.drop { 0 } else { pkt.payload.len() });
        let idx = self.queued;
        self.queued += 1;
        self.pkts.push_back((pkt.lane, pkt.drop));
        self.beats.extend(wire_beats(&pkt.payload, pkt.lane));
        let mut off = 0;
        for (k, pc) in pkt.pieces.iter().enumerate() {
            let data = pkt.payload[off..off + pc.len].to_vec();
            off += pc.len;
            if !pc.err {
                let o = (pc.iova - MEM_BASE) as usize;
                self.mem_ref[o..o + pc.len].copy_from_slice(&data);
            }
            self.pieces.push_back((*pc, k + 1 == pkt.pieces.len()));
            self.want_writes.push_back(WantWrite { piece: *pc, data, pkt: idx });
        }
        if !pkt.drop {
            let err = pkt.pieces.iter().any(|p| p.err);
            self.want_done.push_back(WantDone { pkt: idx, open: pkt.pieces.len(), err, last_cpl: None });
        }
    }

    pub fn idle(&self) -> bool {
        self.pkts.is_empty()
            && self.pieces.is_empty()
            && self.beats.is_empty()
            && self.want_writes.is_empty()
            && self.wr_cur.is_none()
            && self.pending.is_empty()
            && self.want_done.is_empty()
    }

    pub fn cycle(&mut self) {
        let now = self.sim.cycle();
        let s = self.stalls;
        let p = &self.p;
        let d = &mut self.sim.dut;
        // ---- sources (an offered item stays offered)
        if !self.pkt_on && !self.pkts.is_empty() && !self.rng.chance(s.pkt) {
            let (lane, drop) = self.pkts[0];
            d.set_at(p.k_lane, lane as u64);
            d.set_at(p.k_drop, drop as u64);
            self.pkt_on = true;
        }
        d.set_at(p.k_valid, self.pkt_on as u64);
        if !self.piece_on && !self.pieces.is_empty() && !self.rng.chance(s.piece) {
            let (pc, last) = self.pieces[0];
            d.set_at(p.p_iova, pc.iova);
            d.set_at(p.p_len, pc.len as u64);
            d.set_at(p.p_last, last as u64);
            self.piece_on = true;
        }
        d.set_at(p.p_valid, self.piece_on as u64);
        if !self.data_on && !self.beats.is_empty() && now >= self.data_from && !self.rng.chance(s.data) {
            let (w, k, l) = self.beats[0];
            d.set_words(p.a_data, &w);
            d.set_at(p.a_keep, k);
            d.set_at(p.a_last, l as u64);
            // the verdict was applied upstream: the block ignores tuser
            d.set_at(p.a_user, self.rng.next() & 1);
            self.data_on = true;
        }
        d.set_at(p.a_valid, self.data_on as u64);
        // ---- the write side: ready, completions in issue order
        let w_ready = !self.rng.chance(s.wr);
        d.set_at(p.w_ready, w_ready as u64);
        let cpl = match self.pending.front() {
            Some(w) if w.at <= now => self.pending.pop_front(),
            _ => None,
        };
        d.set_at(p.wr_done, cpl.is_some() as u64);
        d.set_at(p.wr_done_err, cpl.as_ref().is_some_and(|w| w.err) as u64);
        let d_ready = !self.rng.chance(s.done);
        d.set_at(p.d_ready, d_ready as u64);
        d.eval();

        if self.pkt_on && d.bit_at(p.k_ready) {
            self.pkts.pop_front();
            self.pkt_on = false;
        }
        if self.piece_on && d.bit_at(p.p_ready) {
            self.pieces.pop_front();
            self.piece_on = false;
            self.piece_cycles.push(now);
        }
        if self.data_on && d.bit_at(p.a_ready) {
            self.beats.pop_front();
            self.data_on = false;
            self.in_cycles.push(now);
        }
        // ---- a completion lands (a failed write never does)
        if let Some(w) = cpl {
            if !w.err {
                let o = (w.iova - MEM_BASE) as usize;
                self.mem[o..o + w.data.len()].copy_from_slice(&w.data);
            }
            let want =
                self.want_done.iter_mut().find(|x| x.pkt == w.pkt).expect("a completion of a packet not waiting");
            want.open -= 1;
            want.last_cpl = Some(now);
            self.cpl_cycles.push(now);
        }
        // ---- m_wr: an offered beat stays offered, unchanged
        let w_valid = d.bit_at(p.w_valid);
        let mut w = [0u32; 16];
        d.get_words(p.w_data, &mut w);
        let (keep, last, addr, len) = (d.get_at(p.w_keep), d.bit_at(p.w_last), d.get_at(p.w_addr), d.get_at(p.w_len));
        if let Some(h) = self.wr_held.take() {
            assert!(w_valid, "cycle {now}: m_wr withdrew a beat");
            assert_eq!((keep, last, addr, len), (h.1, h.2, h.3, h.4), "cycle {now}: m_wr changed an offered beat");
            for lane in 0..64 {
                if keep >> lane & 1 == 1 {
                    assert_eq!(lane_byte(&w, lane), lane_byte(&h.0, lane), "cycle {now}: m_wr data changed");
                }
            }
        }
        if w_valid && self.first_wr_valid.is_none() {
            self.first_wr_valid = Some(now);
        }
        if w_valid && !w_ready {
            self.wr_held = Some((w, keep, last, addr, len));
        }
        if w_valid && w_ready {
            self.wr_cycles.push(now);
            let cur = self.wr_cur.get_or_insert_with(|| (addr, len, vec![], 0));
            assert_eq!((cur.0, cur.1), (addr, len), "cycle {now}: addr/len changed within a write");
            let k = cur.3;
            let want_keep = aligned_keep(addr, len as usize, k);
            assert_eq!(keep, want_keep, "cycle {now}: write at {addr:#x} len {len}: tkeep of beat {k}");
            let n = aligned_beats(addr, len as usize);
            assert_eq!(last, k + 1 == n, "cycle {now}: write at {addr:#x} len {len}: tlast on beat {k} of {n}");
            for lane in 0..64 {
                if keep >> lane & 1 == 1 {
                    cur.2.push(lane_byte(&w, lane));
                }
            }
            cur.3 += 1;
            if last {
                let (addr, len, data, _) = self.wr_cur.take().unwrap();
                let want =
                    self.want_writes.pop_front().unwrap_or_else(|| panic!("cycle {now}: a write nobody asked for"));
                assert_eq!(
                    (addr, len as usize),
                    (want.piece.iova, want.piece.len),
                    "cycle {now}: write of packet {} (addr, len)",
                    want.pkt
                );
                if let Some(j) = (0..data.len()).find(|&j| data[j] != want.data[j]) {
                    panic!("cycle {now}: write at {addr:#x} of packet {}: byte {j} wrong", want.pkt);
                }
                let (lo, spread) = self.wr_lat;
                let lat = lo + self.rng.next() % (spread + 1);
                let at = (now + lat).max(self.pending.back().map_or(0, |w| w.at + 1));
                self.log.push(LoggedWrite { iova: addr, len: len as usize, pkt: want.pkt, cycle: now });
                self.pending.push_back(Pending { at, iova: addr, data, err: want.piece.err, pkt: want.pkt });
            }
        }
        // ---- m_done: once per packet not dropped, in order, after its last completion
        let d_valid = d.bit_at(p.d_valid);
        let d_err = d.bit_at(p.d_err);
        if let Some(e) = self.done_held.take() {
            assert!(d_valid && d_err == e, "cycle {now}: m_done withdrew or changed");
        }
        if d_valid && !d_ready {
            self.done_held = Some(d_err);
        }
        if d_valid && d_ready {
            let want = self.want_done.pop_front().unwrap_or_else(|| panic!("cycle {now}: an m_done nobody expects"));
            assert_eq!(want.open, 0, "cycle {now}: m_done of packet {} with {} writes open", want.pkt, want.open);
            assert!(want.last_cpl.unwrap() < now, "cycle {now}: m_done of packet {} with its completion", want.pkt);
            assert_eq!(d_err, want.err, "cycle {now}: m_done.err of packet {}", want.pkt);
            self.dones += 1;
            self.done_errs += d_err as u64;
            self.done_cycles.push(now);
        }
        self.sim.tick();
    }

    /// Run until everything queued is written and reported; panics after
    /// `limit` cycles. Returns the cycles run.
    pub fn run(&mut self, limit: u64) -> u64 {
        let start = self.sim.cycle();
        while !self.idle() {
            self.cycle();
            if self.sim.cycle() - start >= limit {
                let d = &self.sim.dut;
                panic!(
                    "stuck: {} packets, {} pieces and {} beats to offer, {} writes to come, {} completions due, {} m_done to come; \
                     ready: pkt {} piece {} axis {}, valid: m_wr {} m_done {}",
                    self.pkts.len(),
                    self.pieces.len(),
                    self.beats.len(),
                    self.want_writes.len(),
                    self.pending.len(),
                    self.want_done.len(),
                    d.bit_at(self.p.k_ready),
                    d.bit_at(self.p.p_ready),
                    d.bit_at(self.p.a_ready),
                    d.bit_at(self.p.w_valid),
                    d.bit_at(self.p.d_valid)
                );
            }
        }
        // a few more cycles: nothing more may come out
        for _ in 0..40 {
            self.cycle();
        }
        assert!(self.idle());
        self.sim.cycle() - start
    }

    /// Host memory equals the reference, byte for byte.
    pub fn check_memory(&self) {
        if let Some(j) = (0..MEM_BYTES).find(|&j| self.mem[j] != self.mem_ref[j]) {
            panic!("host memory at {:#x}: {:#x}, reference {:#x}", MEM_BASE + j as u64, self.mem[j], self.mem_ref[j]);
        }
    }
}
