//! The RNIC core RTL, in rust-hdl 0.46.
//!
//! Everything here is emitted to SystemVerilog by `hdl-emit` and tested as
//! Verilog under Verilator; rust-hdl's own simulator only cross-checks the
//! emitter. Coding rules and the reset convention: docs/emitter.md.

pub mod axis;
pub mod catalog;
pub mod consts;
pub mod core;
pub mod host;
pub mod mac;
pub mod mr;
pub mod prim;
pub mod sem;
pub mod transport;
pub mod wire;
