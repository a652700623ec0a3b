//! Port values as little-endian 32-bit words, to and from rust-hdl types.

use rust_hdl::prelude::*;

pub trait FromWords {
    fn from_words(w: &[u32]) -> Self;
}

impl<const N: usize> FromWords for Bits<N> {
    fn from_words(w: &[u32]) -> Self {
        let mut b = Bits::<N>::default();
        for i in 0..N {
            if (w[i / 32] >> (i % 32)) & 1 == 1 {
                b = b.replace_bit(i, true);
            }
        }
        b
    }
}

impl FromWords for bool {
    fn from_words(w: &[u32]) -> Self {
        w[0] & 1 == 1
    }
}

impl FromWords for Clock {
    fn from_words(w: &[u32]) -> Self {
        Clock { clk: w[0] & 1 == 1 }
    }
}

/// rust-hdl renders values as Verilog literals (`8'h0a`, `5'b101`); turn one
/// into `n` words.
pub fn literal_to_words(lit: &str, n: usize) -> Vec<u32> {
    let (_, digits) = lit.split_once('\'').unwrap_or(("", lit));
    let digits = digits.trim_start_matches('s');
    let (radix, digits) = digits.split_at(1);
    let bits_per_digit = match radix {
        "h" => 4,
        "b" => 1,
        _ => panic!("unexpected literal {lit}"),
    };
    let mut w = vec![0u32; n.max(1)];
    for (pos, c) in digits.chars().rev().filter(|c| *c != '_').enumerate() {
        let d = c.to_digit(1 << bits_per_digit).unwrap_or_else(|| panic!("bad digit in {lit}"));
        for b in 0..bits_per_digit {
            if (d >> b) & 1 == 1 {
                let bit = pos * bits_per_digit + b;
                if bit / 32 < w.len() {
                    w[bit / 32] |= 1 << (bit % 32);
                }
            }
        }
    }
    w
}

/// Mask the unused high bits of the last word of a `width`-bit value.
pub fn mask_words(w: &mut [u32], width: usize) {
    let n = width.div_ceil(32);
    for x in w.iter_mut().skip(n) {
        *x = 0;
    }
    if !width.is_multiple_of(32) {
        w[n - 1] &= (1u32 << (width % 32)) - 1;
    }
}
