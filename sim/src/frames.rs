//! Frames as 512-bit beats: byte `i` of a frame is byte lane `i % 64` of
//! beat `i / 64`; the last beat's `tkeep` has one bit per valid byte.

use crate::model::Model;

pub struct Beat512 {
    pub data: [u32; 16],
    pub keep: u64,
    pub last: bool,
}

pub fn frame_beats(frame: &[u8]) -> Vec<Beat512> {
    let n = frame.len().div_ceil(64).max(1);
    (0..n)
        .map(|b| {
            let chunk = &frame[(b * 64).min(frame.len())..((b + 1) * 64).min(frame.len())];
            let mut bytes = [0u8; 64];
            bytes[..chunk.len()].copy_from_slice(chunk);
            let mut data = [0u32; 16];
            for (i, w) in data.iter_mut().enumerate() {
                *w = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
            }
            let keep = if chunk.len() == 64 { u64::MAX } else { (1u64 << chunk.len()) - 1 };
            Beat512 { data, keep, last: b + 1 == n }
        })
        .collect()
}

/// Drive one beat onto the `prefix` stream of `m` (`tvalid` = 1).
pub fn drive_beat<M: Model + ?Sized>(m: &mut M, prefix: &str, b: &Beat512) {
    let p = |m: &M, f: &str| m.port(&format!("{prefix}.{f}"));
    let (d, k, l, v) = (p(m, "tdata"), p(m, "tkeep"), p(m, "tlast"), p(m, "tvalid"));
    m.set_words(d, &b.data);
    m.set_words(k, &[b.keep as u32, (b.keep >> 32) as u32]);
    m.set_words(l, &[b.last as u32]);
    m.set_words(v, &[1]);
}

/// Stop offering beats on the `prefix` stream.
pub fn idle<M: Model + ?Sized>(m: &mut M, prefix: &str) {
    let v = m.port(&format!("{prefix}.tvalid"));
    m.set_words(v, &[0]);
}
