//! CRC-32 (IEEE 802.3 / RoCEv2 ICRC, reflected, poly 0xEDB88320) as linear
//! algebra over GF(2), for generating wide parallel CRC logic.
//!
//! The "raw" register is the CRC state without the final inversion. One byte
//! step is `s' = (s >> 8) ^ T[(s ^ b) & 0xff]`, which is linear in `(s, b)`;
//! so a 64-byte step is `s' = A^64 s ^ D x` with two constant matrices.

/// Reflected CRC-32 polynomial.
pub const POLY: u32 = 0xEDB8_8320;

pub const fn table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

pub const TABLE: [u32; 256] = table();

/// Feed bytes into a raw CRC register.
pub fn raw_update(mut s: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        s = (s >> 8) ^ TABLE[((s ^ b as u32) & 0xff) as usize];
    }
    s
}

/// The standard CRC-32 of `bytes` (init all-ones, final inversion).
pub fn crc32(bytes: &[u8]) -> u32 {
    !raw_update(!0, bytes)
}

/// Advance a raw register over `n` zero bytes.
pub fn advance(s: u32, n: usize) -> u32 {
    (0..n).fold(s, |s, _| raw_update(s, &[0]))
}

/// Undo one zero-byte step: the top byte of `T[i]` is distinct for every
/// `i`, so it identifies the table entry that was folded in.
pub fn retreat(s: u32, n: usize) -> u32 {
    (0..n).fold(s, |s, _| {
        let i = TABLE.iter().position(|t| t >> 24 == s >> 24).expect("CRC-32 table top bytes are a permutation");
        ((s ^ TABLE[i]) << 8) | i as u32
    })
}

/// Raw register after the RoCEv2 ICRC prefix: all-ones init, then 8 bytes of
/// 0xFF standing for the masked LRH.
pub fn icrc_seed() -> u32 {
    raw_update(!0, &[0xff; 8])
}

/// Raw register after a message followed by its own CRC (little-endian): the
/// same for every message, so a receiver can check the CRC without finding it.
pub fn residue() -> u32 {
    let msg = b"residue";
    let c = crc32(msg);
    let mut m = msg.to_vec();
    m.extend_from_slice(&c.to_le_bytes());
    raw_update(!0, &m)
}

/// Row masks of `D`: bit `i` of `raw_update(0, 64 bytes x)` is the parity of
/// `x & rows[i]` (x as 512 bits, byte `b` at bits `8b..8b+8`).
pub fn fold_rows() -> [[u8; 64]; 32] {
    let mut rows = [[0u8; 64]; 32];
    for j in 0..512 {
        let mut x = [0u8; 64];
        x[j / 8] = 1 << (j % 8);
        let col = raw_update(0, &x);
        for (i, row) in rows.iter_mut().enumerate() {
            if (col >> i) & 1 == 1 {
                row[j / 8] |= 1 << (j % 8);
            }
        }
    }
    rows
}

/// Row masks of `A^n`: bit `i` of `advance(s, n)` is the parity of `s & rows[i]`.
pub fn advance_rows(n: usize) -> [u32; 32] {
    let mut rows = [0u32; 32];
    for j in 0..32 {
        let col = advance(1 << j, n);
        for (i, row) in rows.iter_mut().enumerate() {
            if (col >> i) & 1 == 1 {
                *row |= 1 << j;
            }
        }
    }
    rows
}

/// Row masks of `A^-n` (the register before `n` zero bytes).
pub fn retreat_rows(n: usize) -> [u32; 32] {
    let mut rows = [0u32; 32];
    for j in 0..32 {
        let col = retreat(1 << j, n);
        for (i, row) in rows.iter_mut().enumerate() {
            if (col >> i) & 1 == 1 {
                *row |= 1 << j;
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        // rxe seeds its ICRC with this raw register value
        assert_eq!(icrc_seed(), 0xdebb_20e3);
        assert_eq!(residue(), 0xdebb_20e3);
    }

    #[test]
    fn residue_is_message_independent() {
        for msg in [&b""[..], b"a", b"hello world", &[0xffu8; 100]] {
            let mut m = msg.to_vec();
            m.extend_from_slice(&crc32(msg).to_le_bytes());
            assert_eq!(raw_update(!0, &m), residue());
        }
    }

    #[test]
    fn retreat_inverts_advance() {
        for s in [0u32, 1, 0xdead_beef, !0] {
            assert_eq!(retreat(advance(s, 18), 18), s);
        }
    }

    #[test]
    fn matrices_agree_with_the_byte_loop() {
        let rows = fold_rows();
        let a64 = advance_rows(64);
        let mut x = [0u8; 64];
        for (i, b) in x.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37) ^ 0x5a;
        }
        let s = 0x1234_5678u32;
        let mut want = 0u32;
        for i in 0..32 {
            let d = rows[i].iter().zip(&x).fold(0u32, |acc, (r, b)| acc ^ (r & b).count_ones());
            let a = (a64[i] & s).count_ones();
            want |= ((d ^ a) & 1) << i;
        }
        assert_eq!(raw_update(s, &x), want);
    }
}
