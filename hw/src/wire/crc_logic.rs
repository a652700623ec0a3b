//! Parallel CRC-32 logic for 512-bit beats, as small generated primitives
//! (combinational; their users put the registers around them):
//!
//! * [`CrcFoldPart`]: the CRC contribution `D x` of one 64-byte beat from a
//!   zero register, as 8 partial parities per output bit (one per 64-bit
//!   chunk), so a register can sit between the two halves of the XOR tree.
//! * [`CrcAhead`]: `A^K s`, a register advanced over `K` zero bytes.
//! * [`CrcBack`]: `A^-K s`, the register `K` zero bytes earlier.
//! * [`IcrcResidue`]: `A^pad R`, the residue `R` advanced over `pad` zero
//!   bytes (0..=63), the value a frame whose last beat was zero-padded by
//!   `pad` bytes leaves when its ICRC is right.
//!
//! One beat step is `s' = A^64 s ^ D x`. A beat with only `n` valid bytes is
//! zero-filled past `n` (lanes keep their places: no shifter), which leaves
//! `A^(64-n)` of the register the `n` bytes alone give; the checker compares
//! against `A^(64-n) R` and the generator winds the register back.
//! The Verilog is generated from the matrices in [`super::crc32`]; the Rust
//! models run the byte loop, so the differential test checks one against
//! the other.

use super::crc32;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

fn bytes_of<const N: usize>(x: Bits<N>) -> Vec<u8> {
    (0..N / 8).map(|i| x.get_bits::<8>(8 * i).to_u8()).collect()
}

/// Verilog for the XOR of `terms` as a tree of 6-input XORs whose inner nets
/// are kept (named `{name}_{level}_{group}`), so the synthesizer maps one
/// LUT6 per group instead of restructuring many overlapping trees into a
/// deeper, larger net. Declarations go to `v`; the root expression is returned.
fn xor_tree(v: &mut String, name: &str, mut terms: Vec<String>) -> String {
    let mut level = 0;
    while terms.len() > 6 {
        let mut next = vec![];
        for (g, group) in terms.chunks(6).enumerate() {
            let w = format!("{name}_{level}_{g}");
            v.push_str(&format!("(* keep *) wire {w} = {};\n", group.join(" ^ ")));
            next.push(w);
        }
        terms = next;
        level += 1;
    }
    if terms.is_empty() {
        "1'b0".to_string()
    } else {
        terms.join(" ^ ")
    }
}

/// Chunks (of 64 bits) per beat in [`CrcFoldPart`]: output bit `i` of
/// `D x` is the XOR of `part[FOLD_CHUNKS * i .. FOLD_CHUNKS * (i + 1)]`.
pub const FOLD_CHUNKS: usize = 8;

#[derive(LogicBlock, Default)]
pub struct CrcFoldPart {
    pub data: Signal<In, Bits<512>>,
    /// `part[8 i + c]`: parity of chunk `c` (bytes `8c..8c+8`) under row `i` of `D`.
    pub part: Signal<Out, Bits<256>>,
    kind: TypeTag<Self>,
}

impl Logic for CrcFoldPart {
    fn update(&mut self) {
        let x = bytes_of(self.data.val());
        let mut out = Bits::<256>::default();
        for c in 0..FOLD_CHUNKS {
            // the chunk's contribution alone: every other byte zero
            let mut only = [0u8; 64];
            only[8 * c..8 * c + 8].copy_from_slice(&x[8 * c..8 * c + 8]);
            let y = crc32::raw_update(0, &only);
            for i in 0..32 {
                out = out.replace_bit(FOLD_CHUNKS * i + c, (y >> i) & 1 == 1);
            }
        }
        self.part.next = out;
    }
    fn connect(&mut self) {
        self.part.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        for (i, row) in crc32::fold_rows().iter().enumerate() {
            for c in 0..FOLD_CHUNKS {
                let terms = (64 * c..64 * c + 64)
                    .filter(|&b| row[b / 8] >> (b % 8) & 1 == 1)
                    .map(|b| format!("data[{b}]"))
                    .collect();
                let out = FOLD_CHUNKS * i + c;
                let e = xor_tree(&mut v, &format!("p{out}"), terms);
                v.push_str(&format!("assign part[{out}] = {e};\n"));
            }
        }
        Verilog::Custom(v)
    }
}

fn matrix_verilog(rows: &[u32; 32]) -> Verilog {
    let mut v = String::new();
    for (i, row) in rows.iter().enumerate() {
        let terms = (0..32).filter(|j| row >> j & 1 == 1).map(|j| format!("state[{j}]")).collect();
        let e = xor_tree(&mut v, &format!("x{i}"), terms);
        v.push_str(&format!("assign out[{i}] = {e};\n"));
    }
    Verilog::Custom(v)
}

/// `out = A^K state`: the register advanced over `K` zero bytes.
#[derive(LogicBlock, Default)]
pub struct CrcAhead<const K: usize> {
    pub state: Signal<In, Bits<32>>,
    pub out: Signal<Out, Bits<32>>,
    kind: TypeTag<Self>,
}

impl<const K: usize> Logic for CrcAhead<K> {
    fn update(&mut self) {
        self.out.next = bits::<32>(crc32::advance(self.state.val().to_u32(), K) as u64);
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        matrix_verilog(&crc32::advance_rows(K))
    }
}

/// `out = A^-K state`: the register `K` zero bytes earlier. A frame sent
/// with its ICRC bytes zeroed leaves `A^4 r` in the checker, where `!r` is
/// the ICRC.
#[derive(LogicBlock, Default)]
pub struct CrcBack<const K: usize> {
    pub state: Signal<In, Bits<32>>,
    pub out: Signal<Out, Bits<32>>,
    kind: TypeTag<Self>,
}

impl<const K: usize> Logic for CrcBack<K> {
    fn update(&mut self) {
        self.out.next = bits::<32>(crc32::retreat(self.state.val().to_u32(), K) as u64);
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        matrix_verilog(&crc32::retreat_rows(K))
    }
}

/// `value = A^pad R`: what a right ICRC leaves when the frame's last beat
/// was zero-filled by `pad` bytes. A 64-entry constant table: one LUT6 per
/// output bit.
#[derive(LogicBlock, Default)]
pub struct IcrcResidue {
    pub pad: Signal<In, Bits<6>>,
    pub value: Signal<Out, Bits<32>>,
    kind: TypeTag<Self>,
}

impl Logic for IcrcResidue {
    fn update(&mut self) {
        self.value.next = bits::<32>(crc32::advance(crc32::residue(), self.pad.val().index()) as u64);
    }
    fn connect(&mut self) {
        self.value.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("always_comb begin\n    case (pad)\n");
        for pad in 0..64 {
            let e = crc32::advance(crc32::residue(), pad);
            v.push_str(&format!("        6'd{pad}: value = 32'h{e:08x};\n"));
        }
        v.push_str("        default: value = 32'h0;\n    endcase\nend\n");
        Verilog::Custom(v)
    }
}
