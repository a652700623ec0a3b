//! Work requests (`ibv_send_wr`, `ibv_recv_wr`, `ibv_sge`) and their
//! encoding into the contract's WQE layouts.
//!
//! The operation is an enum carrying what it needs (a remote address for
//! RDMA, the operands of an atomic), so a WRITE without a remote key cannot
//! be written down. What remains to check at post time (SGE counts, inline
//! length, the operation against the QP's type and the device's features)
//! fails with a typed error naming the work request's index in the list.

use crate::ah::AddressHandle;
use crate::error::{Error, Queue, Result};
use crate::mr::MemoryRegion;
use rnic_contract::codes::{QpType, SendOpcode};
use rnic_contract::layouts::{recv_wqe, send_wqe, sge};
use std::ops::BitOr;

/// A piece of local memory inside a memory region (`ibv_sge`).
///
/// ```
/// use rnic_driver::hw::fake::{FakeConfig, FakeHw};
/// use rnic_driver::{AccessFlags, Device, Error, Sge};
///
/// let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open()?;
/// let pd = ctx.alloc_pd()?;
/// let buf = ctx.alloc_buffer(4096)?;
/// let mr = pd.reg_mr(&buf, 0, 1024, AccessFlags::LOCAL_WRITE)?;
/// let sge = Sge::new(&mr, 1000, 24)?;
/// assert_eq!((sge.addr, sge.length, sge.lkey), (mr.addr() + 1000, 24, mr.lkey()));
/// assert_eq!(Sge::new(&mr, 1000, 25).unwrap_err(),
///            Error::OutOfRange { what: "memory region", offset: 1000, len: 25, size: 1024 });
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sge {
    /// Virtual address inside the region.
    pub addr: u64,
    /// Bytes.
    pub length: u32,
    /// The region's local key.
    pub lkey: u32,
}

impl Sge {
    /// `len` bytes at `offset` of `mr`, checked against its bounds.
    pub fn new(mr: &MemoryRegion, offset: u64, len: u32) -> Result<Sge> {
        match offset.checked_add(len.into()) {
            Some(end) if end <= mr.len() => Ok(Sge { addr: mr.addr() + offset, length: len, lkey: mr.lkey() }),
            _ => Err(Error::OutOfRange { what: "memory region", offset, len: len.into(), size: mr.len() }),
        }
    }

    fn encode(&self, out: &mut [u8]) -> Result<()> {
        sge::ADDR.set(out, self.addr)?;
        sge::LEN.set(out, self.length)?;
        sge::LKEY.set(out, self.lkey)?;
        Ok(())
    }
}

/// Remote memory: a peer's virtual address and its region's rkey.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RemoteAddr {
    /// Virtual address in the peer's region.
    pub addr: u64,
    /// The peer region's key.
    pub rkey: u32,
}

/// The operation of a send work request (`ibv_wr_opcode` with its operands).
/// Immediate data is a number here (the contract stores it so); verbs'
/// `__be32 imm_data` converts with `u32::from_be`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SendOp {
    /// `IBV_WR_SEND`.
    Send,
    /// `IBV_WR_SEND_WITH_IMM`.
    SendWithImm {
        /// Immediate data.
        imm: u32,
    },
    /// `IBV_WR_RDMA_WRITE`.
    RdmaWrite {
        /// Where.
        remote: RemoteAddr,
    },
    /// `IBV_WR_RDMA_WRITE_WITH_IMM`.
    RdmaWriteWithImm {
        /// Where.
        remote: RemoteAddr,
        /// Immediate data.
        imm: u32,
    },
    /// `IBV_WR_RDMA_READ`.
    RdmaRead {
        /// From where.
        remote: RemoteAddr,
    },
    /// `IBV_WR_ATOMIC_CMP_AND_SWP`: 8 bytes at an 8-byte aligned address; the
    /// old value lands in the one SGE.
    AtomicCmpAndSwp {
        /// Where.
        remote: RemoteAddr,
        /// The value compared.
        compare: u64,
        /// The value stored if equal.
        swap: u64,
    },
    /// `IBV_WR_ATOMIC_FETCH_AND_ADD`.
    AtomicFetchAndAdd {
        /// Where.
        remote: RemoteAddr,
        /// The value added.
        add: u64,
    },
}

impl SendOp {
    /// The contract's opcode.
    pub fn opcode(&self) -> SendOpcode {
        match self {
            SendOp::Send => SendOpcode::Send,
            SendOp::SendWithImm { .. } => SendOpcode::SendWithImm,
            SendOp::RdmaWrite { .. } => SendOpcode::RdmaWrite,
            SendOp::RdmaWriteWithImm { .. } => SendOpcode::RdmaWriteWithImm,
            SendOp::RdmaRead { .. } => SendOpcode::RdmaRead,
            SendOp::AtomicCmpAndSwp { .. } => SendOpcode::AtomicCmpAndSwp,
            SendOp::AtomicFetchAndAdd { .. } => SendOpcode::AtomicFetchAndAdd,
        }
    }

    fn remote(&self) -> Option<RemoteAddr> {
        match *self {
            SendOp::RdmaWrite { remote }
            | SendOp::RdmaWriteWithImm { remote, .. }
            | SendOp::RdmaRead { remote }
            | SendOp::AtomicCmpAndSwp { remote, .. }
            | SendOp::AtomicFetchAndAdd { remote, .. } => Some(remote),
            _ => None,
        }
    }

    fn is_atomic(&self) -> bool {
        matches!(self, SendOp::AtomicCmpAndSwp { .. } | SendOp::AtomicFetchAndAdd { .. })
    }

    /// Whether a QP of type `ty` performs it (UD sends only, UC adds
    /// writes, RC everything).
    pub fn allowed_on(&self, ty: QpType) -> bool {
        match ty {
            QpType::Rc => true,
            QpType::Uc => matches!(
                self,
                SendOp::Send | SendOp::SendWithImm { .. } | SendOp::RdmaWrite { .. } | SendOp::RdmaWriteWithImm { .. }
            ),
            QpType::Ud => matches!(self, SendOp::Send | SendOp::SendWithImm { .. }),
        }
    }
}

/// Send flags (`IBV_SEND_FENCE`, `IBV_SEND_SIGNALED`, `IBV_SEND_SOLICITED`;
/// same bit values). Inline is a [`Payload`], not a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SendFlags(pub u32);

impl SendFlags {
    /// None.
    pub const NONE: SendFlags = SendFlags(0);
    /// Wait for earlier READs and atomics.
    pub const FENCE: SendFlags = SendFlags(1);
    /// Write a completion.
    pub const SIGNALED: SendFlags = SendFlags(2);
    /// Set the solicited event bit.
    pub const SOLICITED: SendFlags = SendFlags(4);
    const KNOWN: u32 = 7;

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: SendFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for SendFlags {
    type Output = SendFlags;
    fn bitor(self, rhs: SendFlags) -> SendFlags {
        SendFlags(self.0 | rhs.0)
    }
}

/// Where a send's data comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload<'a> {
    /// Memory regions, through SGEs.
    Sges(&'a [Sge]),
    /// Bytes copied into the WQE (`IBV_SEND_INLINE`), at most the QP's
    /// `max_inline_data`.
    Inline(&'a [u8]),
}

/// UD: where a datagram goes.
#[derive(Debug, Clone, Copy)]
pub struct UdDest<'a> {
    /// The address handle.
    pub ah: &'a AddressHandle,
    /// Destination QP number.
    pub remote_qpn: u32,
    /// Destination Q_Key (bit 31 set: the QP's own Q_Key).
    pub remote_qkey: u32,
}

/// A send work request.
#[derive(Debug, Clone, Copy)]
pub struct SendWr<'a> {
    /// Returned in the completion.
    pub wr_id: u64,
    /// The operation.
    pub op: SendOp,
    /// The data.
    pub payload: Payload<'a>,
    /// Flags.
    pub flags: SendFlags,
    /// UD only: the destination.
    pub ud: Option<UdDest<'a>>,
}

impl<'a> SendWr<'a> {
    /// A work request of `op` over `sges`, signaled, for RC and UC.
    pub fn new(wr_id: u64, op: SendOp, sges: &'a [Sge]) -> Self {
        SendWr { wr_id, op, payload: Payload::Sges(sges), flags: SendFlags::SIGNALED, ud: None }
    }

    /// The same with inline data instead of SGEs.
    pub fn inline(wr_id: u64, op: SendOp, data: &'a [u8]) -> Self {
        SendWr { wr_id, op, payload: Payload::Inline(data), flags: SendFlags::SIGNALED, ud: None }
    }

    /// The same with these flags.
    pub fn flags(mut self, flags: SendFlags) -> Self {
        self.flags = flags;
        self
    }

    /// The same sent to a UD destination.
    pub fn to(mut self, dest: UdDest<'a>) -> Self {
        self.ud = Some(dest);
        self
    }
}

/// A receive work request.
#[derive(Debug, Clone, Copy)]
pub struct RecvWr<'a> {
    /// Returned in the completion.
    pub wr_id: u64,
    /// Where received data lands.
    pub sg_list: &'a [Sge],
}

/// What a QP allows, for checking a send work request.
pub(crate) struct SendLimits {
    pub qp_type: QpType,
    pub max_sge: usize,
    pub max_inline: usize,
    pub atomics: bool,
    pub sig_all: bool,
    pub pdn: u32,
}

/// The send WQE for work request `i` of a list.
pub(crate) fn encode_send(i: usize, wr: &SendWr<'_>, lim: &SendLimits) -> Result<[u8; send_wqe::SIZE]> {
    let bad = |reason| Error::BadWorkRequest { wr: i, reason };
    if !wr.op.allowed_on(lim.qp_type) {
        return Err(Error::OpcodeNotForQpType { wr: i, opcode: wr.op.opcode().name(), qp_type: lim.qp_type });
    }
    if wr.flags.0 & !SendFlags::KNOWN != 0 {
        return Err(bad("unknown send flags"));
    }
    if wr.op.is_atomic() && !lim.atomics {
        return Err(Error::Unsupported { feature: "ATOMICS" });
    }
    let mut e = [0u8; send_wqe::SIZE];
    send_wqe::WR_ID.set(&mut e, wr.wr_id)?;
    send_wqe::OPCODE.set(&mut e, wr.op.opcode())?;
    send_wqe::FENCE.set(&mut e, wr.flags.contains(SendFlags::FENCE))?;
    send_wqe::SIGNALED.set(&mut e, lim.sig_all || wr.flags.contains(SendFlags::SIGNALED))?;
    send_wqe::SOLICITED.set(&mut e, wr.flags.contains(SendFlags::SOLICITED))?;
    match wr.op {
        SendOp::SendWithImm { imm } | SendOp::RdmaWriteWithImm { imm, .. } => send_wqe::IMM.set(&mut e, imm)?,
        _ => {}
    }
    if let Some(r) = wr.op.remote() {
        if wr.op.is_atomic() && r.addr % 8 != 0 {
            return Err(bad("atomic remote address not 8-byte aligned"));
        }
        send_wqe::REMOTE_VA.set(&mut e, r.addr)?;
        send_wqe::RKEY.set(&mut e, r.rkey)?;
    }
    match wr.op {
        SendOp::AtomicCmpAndSwp { compare, swap, .. } => {
            send_wqe::COMPARE_ADD.set(&mut e, compare)?;
            send_wqe::SWAP.set(&mut e, swap)?;
        }
        SendOp::AtomicFetchAndAdd { add, .. } => send_wqe::COMPARE_ADD.set(&mut e, add)?,
        _ => {}
    }
    match (lim.qp_type, &wr.ud) {
        (QpType::Ud, None) => return Err(bad("a UD send needs a destination")),
        (QpType::Ud, Some(d)) => {
            if d.ah.pdn() != lim.pdn {
                return Err(Error::Mismatch { what: "address handle" });
            }
            send_wqe::AH.set(&mut e, d.ah.index())?;
            send_wqe::REMOTE_QPN.set(&mut e, d.remote_qpn).map_err(|_| Error::BadAttribute {
                attr: "remote_qpn",
                value: d.remote_qpn.into(),
                reason: "above 2^24",
            })?;
            send_wqe::REMOTE_QKEY.set(&mut e, d.remote_qkey)?;
        }
        (_, Some(_)) => return Err(bad("a UD destination on a connected QP")),
        (_, None) => {}
    }
    match wr.payload {
        Payload::Sges(sges) => {
            if sges.len() > lim.max_sge {
                return Err(Error::TooManySges { queue: Queue::Send, wr: i, given: sges.len(), max: lim.max_sge });
            }
            if wr.op.is_atomic() && (sges.len() != 1 || sges[0].length != 8) {
                return Err(bad("an atomic takes exactly one 8-byte SGE"));
            }
            send_wqe::NUM_SGE.set(&mut e, sges.len() as u8)?;
            for (k, s) in sges.iter().enumerate() {
                s.encode(&mut e[send_wqe::sge_range(k)])?;
            }
        }
        Payload::Inline(data) => {
            if matches!(wr.op, SendOp::RdmaRead { .. }) || wr.op.is_atomic() {
                return Err(bad("inline data on an operation that reads into local memory"));
            }
            if data.len() > lim.max_inline {
                return Err(Error::InlineTooLong { wr: i, len: data.len(), max: lim.max_inline });
            }
            send_wqe::INLINE.set(&mut e, true)?;
            send_wqe::INLINE_LEN.set(&mut e, data.len() as u16)?;
            let start = send_wqe::SGES.byte;
            e[start..start + data.len()].copy_from_slice(data);
        }
    }
    Ok(e)
}

/// The receive WQE for work request `i` of a list.
pub(crate) fn encode_recv(i: usize, wr: &RecvWr<'_>, max_sge: usize) -> Result<[u8; recv_wqe::SIZE]> {
    if wr.sg_list.len() > max_sge {
        return Err(Error::TooManySges { queue: Queue::Recv, wr: i, given: wr.sg_list.len(), max: max_sge });
    }
    let mut e = [0u8; recv_wqe::SIZE];
    recv_wqe::WR_ID.set(&mut e, wr.wr_id)?;
    recv_wqe::NUM_SGE.set(&mut e, wr.sg_list.len() as u8)?;
    for (k, s) in wr.sg_list.iter().enumerate() {
        s.encode(&mut e[recv_wqe::sge_range(k)])?;
    }
    Ok(e)
}
