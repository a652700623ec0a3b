//! The captured test vectors kept in the repository (`vectors/` at the
//! workspace root): real Linux Soft-RoCE (`rdma_rxe`) traffic and tshark's
//! decoding of it. `vectors/rxe/README.md` says where they came from.
//!
//! Every test and tool of the workspace finds them through this module, so
//! their location is written down once.

use std::path::{Path, PathBuf};

/// The directory holding the rxe captures (`*.pcap`) and tshark's field
/// dump of each (`*.fields.tsv`), as an absolute path into this checkout.
pub const RXE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors/rxe");

/// The version of tshark that wrote the `*.fields.tsv` dumps (Debian
/// bookworm's 4.0.17); the dumps are that version's decoding of the frames.
pub const RXE_TSHARK_VERSION: &str = "4.0.17";

/// The rxe capture directory; panics (never skips) when it is missing.
pub fn rxe_dir() -> PathBuf {
    let dir = Path::new(RXE_DIR);
    assert!(dir.is_dir(), "rxe test vectors missing at {}: they are part of the repository", dir.display());
    dir.to_path_buf()
}

/// The path of file `name` in the rxe capture directory; panics when it is missing.
pub fn rxe_file(name: &str) -> PathBuf {
    let path = rxe_dir().join(name);
    assert!(path.is_file(), "rxe test vector {} missing", path.display());
    path
}
