//! perftest-compatible tools for the rnic: `rnic-perf` (write_bw, read_bw,
//! send_bw, atomic_bw, write_lat, read_lat, send_lat, with perftest's
//! options and tables) and `rnic-devinfo` (shaped like `ibv_devinfo`), over
//! the driver on either backend: the simulator by default, a board through
//! VFIO when `-d` names a PCI address.
//!
//! * [`options`]: the command line, with typed errors;
//! * [`report`]: perftest's output as pure functions;
//! * [`devinfo`]: ibv_devinfo's output;
//! * [`device`]: opening the backend, with the device clock;
//! * [`run`]: the test, in perftest's order;
//! * [`verify`]: `rnic-verify`, every RC opcode with its bytes checked on both sides;
//! * [`pingpong`]: `rnic-pingpong`, ibv_rc_pingpong's exchange and loop, the bytes checked;
//! * [`rc_connect`]: an RC QP from RESET to RTS against the exchanged endpoint;
//! * [`demo`]: `make demo`'s write_bw and read_bw between two simulated
//!   NICs (feature `sim`).

#![warn(missing_docs)]

#[cfg(feature = "sim")]
pub mod demo;
pub mod device;
pub mod devinfo;
pub mod options;
pub mod pingpong;
pub mod rc_connect;
pub mod report;
pub mod run;
pub mod verify;
