//! Primitives with hand-written Verilog and a Rust model each.
mod lut_ram;
mod reg;
pub use lut_ram::LutRam;
pub use reg::Reg;
