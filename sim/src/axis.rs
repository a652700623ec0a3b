//! Bus-functional models for AXI streams on any model whose ports follow
//! the `s_axis.*` / `m_axis.*` naming: a source that honours the AXI rule
//! (once valid, a beat stays put until taken) and a checking sink.

use crate::model::{Clocked, Model};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    pub data: [u32; 16],
    pub keep: u64,
    pub last: bool,
    pub user: u32,
}

/// Port indices of one stream interface (`prefix` = `s_axis` or `m_axis`).
#[derive(Clone, Copy)]
struct Ports {
    data: usize,
    keep: usize,
    last: usize,
    user: usize,
    valid: usize,
    ready: usize,
}

impl Ports {
    fn of<M: Model + ?Sized>(m: &M, prefix: &str) -> Self {
        Ports {
            data: m.port(&format!("{prefix}.tdata")),
            keep: m.port(&format!("{prefix}.tkeep")),
            last: m.port(&format!("{prefix}.tlast")),
            user: m.port(&format!("{prefix}.tuser")),
            valid: m.port(&format!("{prefix}.tvalid")),
            ready: m.port(&format!("{prefix}.tready")),
        }
    }
}

/// Tiny deterministic PRNG for stall patterns (xorshift64*).
pub struct Rng(pub u64);
impl Rng {
    /// The next value. (Not `Iterator::next`: the stream never ends, so an
    /// `Option` would only add unwraps at every call site.)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// True with probability `p_percent`/100.
    pub fn chance(&mut self, p_percent: u64) -> bool {
        self.next() % 100 < p_percent
    }
}

/// Drives `s_axis` and checks `m_axis` of a stream block against a
/// scoreboard: every beat out must equal the next beat in, or the next
/// expected beat once [`StreamBench::expect`] gave any (a block that
/// transforms its stream).
pub struct StreamBench<M: Model> {
    pub sim: Clocked<M>,
    s: Ports,
    m: Ports,
    to_send: VecDeque<Beat>,
    in_flight: VecDeque<Beat>,
    presenting: bool,
    /// The beats to come out, when they are not the beats that went in.
    expected: Option<VecDeque<Beat>>,
    pub sent: u64,
    pub received: u64,
    /// Cycle of each output beat, for throughput checks.
    pub out_cycles: Vec<u64>,
}

impl<M: Model> StreamBench<M> {
    pub fn new(dut: M) -> Self {
        Self::with_prefixes(dut, "s_axis", "m_axis")
    }

    /// A bench on stream ports with other names (`s_axis_rx`, `m_axis_tx`).
    pub fn with_prefixes(dut: M, sink: &str, source: &str) -> Self {
        let s = Ports::of(&dut, sink);
        let m = Ports::of(&dut, source);
        let mut sim = Clocked::new(dut);
        sim.reset(2);
        StreamBench {
            sim,
            s,
            m,
            to_send: VecDeque::new(),
            in_flight: VecDeque::new(),
            presenting: false,
            expected: None,
            sent: 0,
            received: 0,
            out_cycles: vec![],
        }
    }

    pub fn queue(&mut self, beats: impl IntoIterator<Item = Beat>) {
        self.to_send.extend(beats);
    }

    /// The beats the block must put out, in order (from then on the input's
    /// beats are not the scoreboard).
    pub fn expect(&mut self, beats: impl IntoIterator<Item = Beat>) {
        self.expected.get_or_insert_with(VecDeque::new).extend(beats);
    }

    /// One cycle: source offers a beat with probability `p_valid`%, sink is
    /// ready with probability `p_ready`%. Panics on a scoreboard mismatch.
    pub fn cycle(&mut self, rng: &mut Rng, p_valid: u64, p_ready: u64) {
        let d = &mut self.sim.dut;
        if !self.presenting && !self.to_send.is_empty() && rng.chance(p_valid) {
            let b = self.to_send.front().unwrap();
            d.set_words(self.s.data, &b.data);
            d.set_words(self.s.keep, &[b.keep as u32, (b.keep >> 32) as u32]);
            d.set_words(self.s.last, &[b.last as u32]);
            d.set_words(self.s.user, &[b.user]);
            self.presenting = true;
        }
        d.set_words(self.s.valid, &[self.presenting as u32]);
        let ready = rng.chance(p_ready);
        d.set_words(self.m.ready, &[ready as u32]);
        d.eval();
        let mut w = [0u32; 16];
        d.get_words(self.s.ready, &mut w[..1]);
        let in_fire = self.presenting && w[0] & 1 == 1;
        d.get_words(self.m.valid, &mut w[..1]);
        let out_fire = ready && w[0] & 1 == 1;
        if out_fire {
            let mut got = Beat { data: [0; 16], keep: 0, last: false, user: 0 };
            d.get_words(self.m.data, &mut got.data);
            let mut k = [0u32; 2];
            d.get_words(self.m.keep, &mut k);
            got.keep = k[0] as u64 | ((k[1] as u64) << 32);
            d.get_words(self.m.last, &mut k[..1]);
            got.last = k[0] & 1 == 1;
            d.get_words(self.m.user, &mut k[..1]);
            got.user = k[0];
            let want = match self.expected.as_mut() {
                Some(e) => e.pop_front(),
                None => self.in_flight.pop_front(),
            };
            let want = want
                .unwrap_or_else(|| panic!("cycle {}: output beat with nothing in flight: {got:?}", self.sim.cycle()));
            assert_eq!(got, want, "cycle {}: beat {} differs", self.sim.cycle(), self.received);
            self.received += 1;
            self.out_cycles.push(self.sim.cycle());
        }
        if in_fire {
            let b = self.to_send.pop_front().unwrap();
            if self.expected.is_none() {
                self.in_flight.push_back(b);
            }
            self.presenting = false;
            self.sent += 1;
        }
        self.sim.tick();
    }

    pub fn idle(&self) -> bool {
        self.to_send.is_empty()
            && self.in_flight.is_empty()
            && !self.presenting
            && self.expected.as_ref().is_none_or(|e| e.is_empty())
    }
}

/// `n` beats of random data forming packets of 1..=max_len beats, with
/// random byte enables on each last beat.
pub fn random_packets(rng: &mut Rng, n: usize, max_len: usize) -> Vec<Beat> {
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let len = 1 + (rng.next() as usize % max_len);
        for i in 0..len {
            let mut data = [0u32; 16];
            data.iter_mut().for_each(|x| *x = rng.next() as u32);
            let last = i + 1 == len;
            let keep = if last { u64::MAX >> (rng.next() % 64) } else { u64::MAX };
            v.push(Beat { data, keep, last, user: (rng.next() & 1) as u32 });
        }
    }
    v.truncate(n);
    if let Some(b) = v.last_mut() {
        b.last = true;
    }
    v
}
