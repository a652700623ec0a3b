use std::fmt;

/// Why a design could not be emitted.
#[derive(Debug, Clone, PartialEq)]
pub enum EmitError {
    /// rust-hdl's own structural checks failed (open inputs, loops, writes to inputs).
    Check(String),
    /// A construct whose Rust meaning the emitter cannot reproduce exactly.
    Unsupported { module: String, detail: String },
    /// Two Rust names map to the same Verilog identifier.
    NameClash { module: String, name: String },
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmitError::Check(e) => write!(f, "rust-hdl check failed: {e}"),
            EmitError::Unsupported { module, detail } => write!(f, "in {module}: {detail}"),
            EmitError::NameClash { module, name } => {
                write!(f, "in {module}: two signals become the Verilog name `{name}`")
            }
        }
    }
}

impl std::error::Error for EmitError {}
