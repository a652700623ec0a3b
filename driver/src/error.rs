//! The driver's one error type: every verbs call returns [`Error`], which
//! says what was wrong with numbers, never a bare "invalid argument".

use crate::hw::HwError;
use rnic_contract::codes::{ContextOp, ContextTable, QpState, QpType};
use std::fmt;

/// A resource the driver hands out from a fixed table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resource {
    /// QP numbers (the QP context table).
    Qp,
    /// CQ numbers (the CQ context table).
    Cq,
    /// Memory region slots (the MPT).
    Mpt,
    /// Page translation entries (the MTT).
    Mtt,
    /// Address handle slots (the AH table).
    Ah,
    /// Protection domain numbers.
    Pd,
    /// MSI-X vectors for completion channels.
    Vector,
    /// GID table entries.
    Gid,
}

/// Which work queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Queue {
    /// The send queue.
    Send,
    /// The receive queue.
    Recv,
}

/// Why a verbs call failed. Each variant carries the numbers that say what
/// was wrong, and its `Display` says it in words:
///
/// ```
/// use rnic_driver::{Error, Queue};
///
/// let e = Error::QueueFull { queue: Queue::Send, qpn: 7, wr: 3, depth: 8 };
/// assert!(e.to_string().contains("QP 7"), "{e}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The hardware layer failed.
    Hw(HwError),
    /// `id_magic` is not "RNIC": not this device, or BAR0 not mapped.
    NotRnic {
        /// What it read.
        magic: u32,
    },
    /// The device implements another version of the contract.
    AbiMismatch {
        /// The device's `id_version`.
        device: u32,
        /// The version this driver was built against.
        driver: u32,
    },
    /// A value does not fit the contract's field (a layout or register).
    Contract(rnic_contract::Error),
    /// A context command ended with `ctx_status.ERROR`.
    ContextCommand {
        /// The operation.
        op: ContextOp,
        /// The table.
        table: ContextTable,
        /// The entry.
        index: u32,
    },
    /// A context command was still BUSY after the driver's patience ran out.
    ContextTimeout {
        /// The operation.
        op: ContextOp,
        /// The table.
        table: ContextTable,
        /// The entry.
        index: u32,
        /// Status reads made.
        polls: u32,
    },
    /// `status.READY` stayed 0 past [`READY_TIMEOUT`](crate::device::READY_TIMEOUT)
    /// after bring-up: the device never finished clearing its tables.
    NotReady {
        /// Device time waited.
        waited: std::time::Duration,
    },
    /// Every entry of a table is in use.
    Exhausted {
        /// Which table.
        resource: Resource,
        /// Its size.
        capacity: u32,
    },
    /// A size or count beyond what the device or the contract allows.
    TooLarge {
        /// What (`"max_send_wr"`, `"cqe"`, `"memory region length"`).
        what: &'static str,
        /// Asked for.
        requested: u64,
        /// The most allowed.
        max: u64,
    },
    /// A size that must be at least 1 was 0.
    Zero {
        /// What.
        what: &'static str,
    },
    /// A work request lists more SGEs than the QP was created for.
    TooManySges {
        /// Which queue.
        queue: Queue,
        /// Index of the work request in the list.
        wr: usize,
        /// SGEs given.
        given: usize,
        /// The QP's limit.
        max: usize,
    },
    /// Inline data longer than the QP was created for.
    InlineTooLong {
        /// Index of the work request in the list.
        wr: usize,
        /// Bytes given.
        len: usize,
        /// The QP's limit.
        max: usize,
    },
    /// Posting would overrun the ring: nothing of the list was posted.
    QueueFull {
        /// Which queue.
        queue: Queue,
        /// The QP.
        qpn: u32,
        /// Index of the first work request that did not fit.
        wr: usize,
        /// The ring's entries.
        depth: u32,
    },
    /// The device does not implement a feature the call needs.
    Unsupported {
        /// The `id_features` bit (`"UD"`, `"ATOMICS"`, `"INLINE"`).
        feature: &'static str,
    },
    /// The operation is not one this QP type performs.
    OpcodeNotForQpType {
        /// Index of the work request in the list.
        wr: usize,
        /// The opcode's name.
        opcode: &'static str,
        /// The QP's type.
        qp_type: QpType,
    },
    /// A work request lacks something its opcode needs, or carries something
    /// it must not (an address handle on an RC QP, a second SGE on an atomic).
    BadWorkRequest {
        /// Index of the work request in the list.
        wr: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// Posting to a queue in a state that does not take work.
    WrongStateToPost {
        /// Which queue.
        queue: Queue,
        /// The QP.
        qpn: u32,
        /// Its state.
        state: QpState,
    },
    /// `modify` to a state the QP cannot reach from its current one.
    InvalidTransition {
        /// The QP's type.
        qp_type: QpType,
        /// The current state.
        from: QpState,
        /// The state asked for.
        to: QpState,
    },
    /// The transition needs an attribute the mask lacks.
    MissingAttribute {
        /// The current state.
        from: QpState,
        /// The state asked for.
        to: QpState,
        /// The attribute (`"PATH_MTU"`).
        attr: &'static str,
    },
    /// The mask has an attribute the transition does not take.
    AttributeNotAllowed {
        /// The current state.
        from: QpState,
        /// The state asked for.
        to: QpState,
        /// The attribute.
        attr: &'static str,
    },
    /// An attribute's value is out of range or inconsistent.
    BadAttribute {
        /// The attribute.
        attr: &'static str,
        /// The value given.
        value: u64,
        /// Why it is refused.
        reason: &'static str,
    },
    /// An object of another context, PD or QP type was passed.
    Mismatch {
        /// What does not belong (`"send_cq"`, `"ah"`).
        what: &'static str,
    },
    /// A range outside a buffer or memory region.
    OutOfRange {
        /// What (`"buffer"`, `"memory region"`).
        what: &'static str,
        /// Offset asked for.
        offset: u64,
        /// Length asked for.
        len: u64,
        /// The object's size.
        size: u64,
    },
    /// Waiting for an event took longer than the timeout.
    Timeout {
        /// What was awaited.
        what: &'static str,
    },
    /// Arming or waiting on a CQ created without a completion channel.
    NoChannel {
        /// The CQ.
        cqn: u32,
    },
    /// A CQE that does not decode (an unknown status or opcode).
    BadCqe {
        /// The CQ.
        cqn: u32,
        /// The entry's index.
        index: u16,
        /// What the contract's accessor said.
        error: rnic_contract::Error,
    },
    /// A GID index with no GID.
    NoGid {
        /// The index.
        index: u32,
    },
    /// Port numbers start at 1 and this device has one port.
    BadPort {
        /// The port asked for.
        port: u8,
    },
    /// A call on a context from inside [`crate::Context::with_hw`].
    Reentrant,
}

impl From<HwError> for Error {
    fn from(e: HwError) -> Self {
        Error::Hw(e)
    }
}

impl From<rnic_contract::Error> for Error {
    fn from(e: rnic_contract::Error) -> Self {
        Error::Contract(e)
    }
}

fn state_name(s: QpState) -> &'static str {
    s.name()
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Hw(e) => write!(f, "hardware: {e}"),
            Error::NotRnic { magic } => write!(f, "id_magic reads {magic:#010x}, not \"RNIC\""),
            Error::AbiMismatch { device, driver } => {
                write!(f, "device implements contract {device:#x}, this driver {driver:#x}")
            }
            Error::Contract(e) => write!(f, "contract: {e}"),
            Error::ContextCommand { op, table, index } => {
                write!(f, "context command {} on {} entry {index} failed", op.name(), table.name())
            }
            Error::ContextTimeout { op, table, index, polls } => {
                write!(
                    f,
                    "context command {} on {} entry {index} still busy after {polls} polls",
                    op.name(),
                    table.name()
                )
            }
            Error::NotReady { waited } => write!(f, "status.READY still 0 after {waited:?}"),
            Error::Exhausted { resource, capacity } => write!(f, "all {capacity} {resource:?} entries are in use"),
            Error::TooLarge { what, requested, max } => write!(f, "{what}: {requested} asked, at most {max}"),
            Error::Zero { what } => write!(f, "{what} must be at least 1"),
            Error::TooManySges { queue, wr, given, max } => {
                write!(f, "{queue:?} work request {wr}: {given} SGEs, the QP takes at most {max}")
            }
            Error::InlineTooLong { wr, len, max } => {
                write!(f, "send work request {wr}: {len} inline bytes, the QP takes at most {max}")
            }
            Error::QueueFull { queue, qpn, wr, depth } => {
                write!(f, "QP {qpn} {queue:?} queue full ({depth} entries) at work request {wr}; nothing posted")
            }
            Error::Unsupported { feature } => write!(f, "the device does not implement {feature}"),
            Error::OpcodeNotForQpType { wr, opcode, qp_type } => {
                write!(f, "work request {wr}: {opcode} is not an operation of a {} QP", qp_type.name())
            }
            Error::BadWorkRequest { wr, reason } => write!(f, "work request {wr}: {reason}"),
            Error::WrongStateToPost { queue, qpn, state } => {
                write!(f, "QP {qpn} in state {} takes no {queue:?} work", state_name(*state))
            }
            Error::InvalidTransition { qp_type, from, to } => {
                write!(f, "a {} QP cannot go from {} to {}", qp_type.name(), state_name(*from), state_name(*to))
            }
            Error::MissingAttribute { from, to, attr } => {
                write!(f, "{} -> {} needs {attr}", state_name(*from), state_name(*to))
            }
            Error::AttributeNotAllowed { from, to, attr } => {
                write!(f, "{} -> {} does not take {attr}", state_name(*from), state_name(*to))
            }
            Error::BadAttribute { attr, value, reason } => write!(f, "{attr} = {value}: {reason}"),
            Error::Mismatch { what } => write!(f, "{what} belongs to another context or protection domain"),
            Error::OutOfRange { what, offset, len, size } => {
                write!(f, "{what}: {len} bytes at {offset} outside its {size} bytes")
            }
            Error::Timeout { what } => write!(f, "timed out waiting for {what}"),
            Error::NoChannel { cqn } => write!(f, "CQ {cqn} has no completion channel"),
            Error::BadCqe { cqn, index, error } => write!(f, "CQ {cqn} entry {index}: {error}"),
            Error::NoGid { index } => write!(f, "no GID at index {index}"),
            Error::BadPort { port } => write!(f, "port {port}: the device has port 1 only"),
            Error::Reentrant => write!(f, "a call on the context from inside Context::with_hw"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Hw(e) => Some(e),
            _ => None,
        }
    }
}

/// The driver's result type.
pub type Result<T> = std::result::Result<T, Error>;
