//! Parallel CRC-32 logic for 512-bit beats, as two generated primitives:
//!
//! * [`CrcFold512`]: `y = D x`, the CRC contribution of one 64-byte beat
//!   starting from a zero register (a 512-input XOR network per output bit).
//! * [`CrcAdvance`]: `A^n s`, a register advanced over `n` zero bytes,
//!   `n` = 0..=64 (0 passes `s` through; above 64 gives 0).
//!
//! One beat step is then `s' = A^64 s ^ D x`; a beat with only `n` valid
//! bytes is handled by moving them to the end of the beat (leading zeros do
//! not change a zero-started CRC) and using `A^n`. The Verilog is generated
//! from the matrices in [`super::crc32`]; the Rust models run the byte loop,
//! so the differential test checks one against the other.

use super::crc32;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

fn bytes_of<const N: usize>(x: Bits<N>) -> Vec<u8> {
    (0..N / 8).map(|i| x.get_bits::<8>(8 * i).to_u8()).collect()
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter().rev().map(|x| format!("{x:02x}")).collect()
}

#[derive(LogicBlock, Default)]
pub struct CrcFold512 {
    pub data: Signal<In, Bits<512>>,
    pub crc: Signal<Out, Bits<32>>,
    kind: TypeTag<Self>,
}

impl Logic for CrcFold512 {
    fn update(&mut self) {
        self.crc.next = bits::<32>(crc32::raw_update(0, &bytes_of(self.data.val())) as u64);
    }
    fn connect(&mut self) {
        self.crc.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        for (i, row) in crc32::fold_rows().iter().enumerate() {
            v.push_str(&format!("assign crc[{i}] = ^(data & 512'h{});\n", hex_bytes(row)));
        }
        Verilog::Custom(v)
    }
}

#[derive(LogicBlock, Default)]
pub struct CrcAdvance {
    pub state: Signal<In, Bits<32>>,
    pub nbytes: Signal<In, Bits<7>>,
    pub out: Signal<Out, Bits<32>>,
    kind: TypeTag<Self>,
}

impl Logic for CrcAdvance {
    fn update(&mut self) {
        let n = self.nbytes.val().index();
        let v = if n <= 64 { crc32::advance(self.state.val().to_u32(), n) } else { 0 };
        self.out.next = bits::<32>(v as u64);
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("always_comb begin\n    case (nbytes)\n        7'd0: out = state;\n");
        for n in 1..=64 {
            v.push_str(&format!("        7'd{n}: begin\n"));
            for (i, row) in crc32::advance_rows(n).iter().enumerate() {
                v.push_str(&format!("            out[{i}] = ^(state & 32'h{row:08x});\n"));
            }
            v.push_str("        end\n");
        }
        v.push_str("        default: out = 32'd0;\n    endcase\nend\n");
        Verilog::Custom(v)
    }
}

/// `A^-4 s`: the register four zero bytes earlier. A frame sent with its
/// ICRC bytes zeroed leaves `A^4 r` in the checker, where `!r` is the ICRC.
#[derive(LogicBlock, Default)]
pub struct CrcRetreat4 {
    pub state: Signal<In, Bits<32>>,
    pub out: Signal<Out, Bits<32>>,
    kind: TypeTag<Self>,
}

impl Logic for CrcRetreat4 {
    fn update(&mut self) {
        self.out.next = bits::<32>(crc32::retreat(self.state.val().to_u32(), 4) as u64);
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        for (i, row) in crc32::retreat_rows(4).iter().enumerate() {
            v.push_str(&format!("assign out[{i}] = ^(state & 32'h{row:08x});\n"));
        }
        Verilog::Custom(v)
    }
}
