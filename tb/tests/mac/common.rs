//! What the MAC boundary tests share: the two clocks at their real ratio,
//! frames with a sequence number, and 100 Gb/s wire timing.

#![allow(dead_code)]

use rnic_hw::mac::{CORE_CLOCK_HZ, CORE_PERIOD_UNITS, MAC_PERIOD_UNITS};
use rnic_sim::axis::Rng;
use rnic_sim::Model;

/// Index of each clock in [`rnic_sim::TwoClocks`].
pub const MAC: usize = 0;
pub const CORE: usize = 1;
pub const CLOCKS: [&str; 2] = ["mac_clock", "core_clock"];
pub const PERIODS: [u64; 2] = [MAC_PERIOD_UNITS, CORE_PERIOD_UNITS];

/// The line rate in bytes per second (100 Gb/s).
pub const LINE_BYTES_PER_S: u128 = 100_000_000_000 / 8;

/// Time units (see [`rnic_hw::mac::MAC_PERIOD_UNITS`]) that `bytes` take on
/// the wire at 100 Gb/s, rounded up: 3.3 units a byte.
pub fn wire_units(bytes: u64) -> u64 {
    let units_per_s = CORE_CLOCK_HZ as u128 * CORE_PERIOD_UNITS as u128;
    (bytes as u128 * units_per_s).div_ceil(LINE_BYTES_PER_S) as u64
}

/// Bytes a frame of `len` bytes (as the MAC hands it over, FCS removed) takes
/// on the wire: FCS 4, preamble and start 8, inter-frame gap 12.
pub const WIRE_OVERHEAD: u64 = 4 + 8 + 12;

/// The port's MAC in the benches (`port_mac`, wire order), and the strap's
/// value (the address as a big-endian number).
pub const PORT_MAC: [u8; 6] = [0x02, 0x00, 0x5e, 0x10, 0x20, 0x31];
pub fn mac_strap(mac: [u8; 6]) -> u64 {
    mac.iter().fold(0, |w, &b| w << 8 | u64::from(b))
}

/// A frame to [`PORT_MAC`] whose bytes 6..10 (the source MAC's place) are
/// its sequence number, the rest random.
pub fn frame(rng: &mut Rng, seq: usize, len: usize) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
    f[..6].copy_from_slice(&PORT_MAC);
    f[6..10].copy_from_slice(&(seq as u32).to_le_bytes());
    f
}

pub fn seq_of(f: &[u8]) -> usize {
    u32::from_le_bytes(f[6..10].try_into().unwrap()) as usize
}

/// Port indices of one stream (`s_axis` or `m_axis`); `ready` is absent on
/// the MAC's receive stream.
#[derive(Clone, Copy)]
pub struct Stream {
    pub data: usize,
    pub keep: usize,
    pub last: usize,
    pub user: usize,
    pub valid: usize,
    pub ready: Option<usize>,
}

impl Stream {
    pub fn of<M: Model>(m: &M, prefix: &str) -> Self {
        let p = |f: &str| m.port(&format!("{prefix}.{f}"));
        let ready = m.ports().iter().position(|x| x.rust_path == format!("{prefix}.tready"));
        Stream { data: p("tdata"), keep: p("tkeep"), last: p("tlast"), user: p("tuser"), valid: p("tvalid"), ready }
    }

    /// Drive beat `k` of `frame` (valid), with `user` on its last beat.
    pub fn drive<M: Model>(&self, m: &mut M, frame: &[u8], k: usize, user: bool) {
        let beats = frame.len().div_ceil(64);
        let chunk = &frame[64 * k..(64 * (k + 1)).min(frame.len())];
        let mut bytes = [0u8; 64];
        bytes[..chunk.len()].copy_from_slice(chunk);
        let data: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        let keep = if chunk.len() == 64 { u64::MAX } else { (1u64 << chunk.len()) - 1 };
        let last = k + 1 == beats;
        m.set_words(self.data, &data);
        m.set_words(self.keep, &[keep as u32, (keep >> 32) as u32]);
        m.set_words(self.last, &[last as u32]);
        m.set_words(self.user, &[(last && user) as u32]);
        m.set_words(self.valid, &[1]);
    }

    pub fn idle<M: Model>(&self, m: &mut M) {
        m.set_words(self.valid, &[0]);
    }

    pub fn valid<M: Model>(&self, m: &M) -> bool {
        m.bit_at(self.valid)
    }

    /// The beat on the stream: its valid bytes, `tlast`, `tuser`. Panics
    /// unless `tkeep` is a run of ones from byte 0, all 64 before the last beat.
    pub fn beat<M: Model>(&self, m: &M) -> (Vec<u8>, bool, bool) {
        let mut d = [0u32; 16];
        m.get_words(self.data, &mut d);
        let mut k = [0u32; 2];
        m.get_words(self.keep, &mut k);
        let keep = k[0] as u64 | ((k[1] as u64) << 32);
        let n = keep.trailing_ones() as usize;
        assert!(n > 0 && (n == 64 || keep >> n == 0), "tkeep {keep:#x} is not a run of ones from byte 0");
        let last = m.bit_at(self.last);
        assert!(last || n == 64, "a beat before the last has tkeep {keep:#x}");
        let bytes: Vec<u8> = d.iter().flat_map(|w| w.to_le_bytes()).take(n).collect();
        (bytes, last, m.bit_at(self.user))
    }
}
