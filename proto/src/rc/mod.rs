//! Behavioural model of the Reliable Connected (RC) transport: the oracle the
//! hardware transport is checked against.
//!
//! The model works on transport packets ([`RcPacket`]: BTH, extended headers,
//! payload); the caller wraps them in Ethernet/IP/UDP with
//! [`RcPacket::into_roce`] and unwraps received frames with
//! [`RcPacket::from_roce`], so every packet it exchanges can be real wire
//! bytes with a correct ICRC.
//!
//! * [`requester::Requester`] turns send WQEs into request packets
//!   (segmentation, PSNs, AckReq, limits, fence) and keeps what go-back-N
//!   needs ([`requester::Requester::resend_from`]).
//! * The completer (`completer.rs`, methods on the same
//!   [`requester::Requester`], whose send queue it shares) processes ACKs,
//!   NAKs, READ responses and atomic ACKs into [`Completion`]s.
//! * [`responder::Responder`] checks and executes requests and produces the
//!   responses.
//!
//! Memory, on both sides, is reached through the [`Memory`] trait the caller
//! provides (key, PD, bounds and rights check, then byte access), so the
//! model does not depend on the contract crate. Nothing here panics on wire
//! input: malformed or unexpected packets are dropped, NAKed or completed in
//! error as IBTA says, and the reasons are counted.
//!
//! Spec references are to the InfiniBand Architecture Specification Vol. 1
//! (IBTA), chapter 9 (transport layer), as rxe and the project's research
//! notes cite them; rule numbers given are the ones those sources quote.

pub mod completer;
pub mod requester;
pub mod responder;

use crate::bth::Bth;
use crate::eth::EthernetHeader;
use crate::ext::ExtHeaders;
use crate::frame::RocePacket;
use crate::ip::IpHeader;
use crate::opcode::{Opcode, Transport};
use crate::psn::Psn;

/// Largest RDMA message (RETH DMA length) a responder accepts: 2^31 bytes
/// (rxe `check_length`).
pub const MAX_MESSAGE_LEN: u32 = 1 << 31;

/// Bytes an atomic operates on (IBTA): one naturally aligned u64.
pub const ATOMIC_LEN: u32 = 8;

/// The largest MSN (24 bits, like a PSN).
pub const MSN_MASK: u32 = Psn::MASK;

/// One RC transport packet: what follows the UDP header, minus pad and ICRC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RcPacket {
    /// Base transport header (the pad count is derived on encoding).
    pub bth: Bth,
    /// Extended headers, matching `bth.opcode`.
    pub ext: ExtHeaders,
    /// Payload without pad.
    pub payload: Vec<u8>,
}

impl RcPacket {
    /// A packet with the default P_Key and the given AckReq bit.
    pub fn new(opcode: Opcode, dest_qp: u32, psn: Psn, ack_req: bool, ext: ExtHeaders, payload: Vec<u8>) -> Self {
        let mut bth = Bth::new(opcode, dest_qp, psn);
        bth.ack_req = ack_req;
        RcPacket { bth, ext, payload }
    }

    /// The transport part of a decoded frame, if it is an RC packet.
    pub fn from_roce(packet: &RocePacket) -> Option<RcPacket> {
        (packet.bth.opcode.transport() == Transport::Rc).then(|| RcPacket {
            bth: packet.bth,
            ext: packet.ext,
            payload: packet.payload.clone(),
        })
    }

    /// Wraps the packet in the given Ethernet and IP headers (derived fields
    /// are filled in by [`crate::encode_frame`]).
    pub fn into_roce(self, eth: EthernetHeader, ip: IpHeader, udp_src_port: u16) -> RocePacket {
        RocePacket::new(eth, ip, udp_src_port, self.bth, self.ext, self.payload)
    }

    /// The opcode.
    pub fn opcode(&self) -> Opcode {
        self.bth.opcode
    }

    /// The PSN.
    pub fn psn(&self) -> Psn {
        self.bth.psn
    }

    /// True for the opcodes a requester sends (the responder's input).
    pub fn is_request(&self) -> bool {
        is_request_opcode(self.bth.opcode)
    }
}

/// True for the RC opcodes a requester sends: SEND, WRITE, READ request,
/// atomics (and SEND with invalidate, which this model does not support).
pub fn is_request_opcode(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        RcSendFirst
            | RcSendMiddle
            | RcSendLast
            | RcSendLastImm
            | RcSendOnly
            | RcSendOnlyImm
            | RcWriteFirst
            | RcWriteMiddle
            | RcWriteLast
            | RcWriteLastImm
            | RcWriteOnly
            | RcWriteOnlyImm
            | RcReadRequest
            | RcCompareSwap
            | RcFetchAdd
            | RcSendLastInv
            | RcSendOnlyInv
    )
}

/// True for the RC opcodes a responder sends (the completer's input).
pub fn is_response_opcode(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        RcReadResponseFirst | RcReadResponseMiddle | RcReadResponseLast | RcReadResponseOnly | RcAck | RcAtomicAck
    )
}

/// Work completion status, named as verbs' `enum ibv_wc_status` (and
/// `rnic_contract::codes::WcStatus`, which carries the numeric codes; the
/// model keeps names only, so the two cannot disagree on a number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WcStatus {
    /// `IBV_WC_SUCCESS`.
    Success,
    /// `IBV_WC_LOC_LEN_ERR`: a SEND longer than the RECV WQE's buffers.
    LocLenErr,
    /// `IBV_WC_LOC_QP_OP_ERR`: a malformed WQE.
    LocQpOpErr,
    /// `IBV_WC_LOC_PROT_ERR`: a local SGE fails its key or bounds check.
    LocProtErr,
    /// `IBV_WC_WR_FLUSH_ERR`: flushed because the QP went to the error state.
    WrFlushErr,
    /// `IBV_WC_BAD_RESP_ERR`: a response of the wrong opcode or length.
    BadRespErr,
    /// `IBV_WC_REM_INV_REQ_ERR`: NAK invalid request.
    RemInvReqErr,
    /// `IBV_WC_REM_ACCESS_ERR`: NAK remote access error.
    RemAccessErr,
    /// `IBV_WC_REM_OP_ERR`: NAK remote operational error (and reserved NAK codes).
    RemOpErr,
    /// `IBV_WC_RETRY_EXC_ERR`: transport retries exhausted (issue 12).
    RetryExcErr,
    /// `IBV_WC_RNR_RETRY_EXC_ERR`: RNR retries exhausted (issue 12).
    RnrRetryExcErr,
}

/// What a completion reports (verbs `enum ibv_wc_opcode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WcOpcode {
    /// A SEND (with or without immediate) completed at the requester.
    Send,
    /// An RDMA WRITE completed at the requester.
    RdmaWrite,
    /// An RDMA READ completed at the requester.
    RdmaRead,
    /// A compare-and-swap completed at the requester.
    CompSwap,
    /// A fetch-and-add completed at the requester.
    FetchAdd,
    /// A RECV WQE consumed by a SEND.
    Recv,
    /// A RECV WQE consumed by an RDMA WRITE with immediate.
    RecvRdmaWithImm,
}

/// One work completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Completion {
    /// The WQE's work request id.
    pub wr_id: u64,
    /// Status.
    pub status: WcStatus,
    /// Operation.
    pub opcode: WcOpcode,
    /// Bytes transferred (message length; 8 for atomics).
    pub byte_len: u32,
    /// Immediate data of a received SEND/WRITE with immediate.
    pub imm: Option<u32>,
}

/// A scatter/gather element: `len` bytes at virtual address `addr`, under local key `lkey`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sge {
    /// Virtual address.
    pub addr: u64,
    /// Length in bytes.
    pub len: u32,
    /// Local key.
    pub lkey: u32,
}

/// A remote buffer: virtual address and remote key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Remote {
    /// Remote virtual address.
    pub va: u64,
    /// Remote key.
    pub rkey: u32,
}

/// The right an access needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Local write (READ results, atomic results, RECV scatter).
    LocalWrite,
    /// Remote read (RDMA READ).
    RemoteRead,
    /// Remote write (RDMA WRITE).
    RemoteWrite,
    /// Remote atomic (CMP_SWP, FETCH_ADD).
    RemoteAtomic,
}

/// Why a key check failed (rxe `lookup_mr`, `mr_check_range`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyError {
    /// No valid region has this key (unknown, invalidated or deregistered).
    UnknownKey,
    /// The region belongs to another protection domain.
    WrongPd,
    /// `[va, va+len)` does not lie inside the region (64-bit overflow included).
    OutOfBounds,
    /// The region does not grant the access.
    NoRight,
}

/// A memory access failed after its key check passed (a DMA fault).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemFault;

/// Host memory and its registered regions, as the model reaches them. The
/// caller decides the byte order of atomics' u64 (the harness: little-endian,
/// the host's).
pub trait Memory {
    /// Checks that `key` names a region of protection domain `pd` granting
    /// `access` over `[va, va+len)`.
    fn check(&self, pd: u32, key: u32, va: u64, len: u64, access: Access) -> Result<(), KeyError>;
    /// Reads `out.len()` bytes at `va`.
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), MemFault>;
    /// Writes `data` at `va`.
    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), MemFault>;
}

/// Why scattering bytes into a list of SGEs failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ScatterError {
    /// The data runs past the end of the SGEs.
    Length,
    /// An SGE fails its key check, or the write faults.
    Protection,
}

/// Total bytes of a list of SGEs (saturating, so hostile lengths cannot wrap).
pub(crate) fn sge_total(sges: &[Sge]) -> u64 {
    sges.iter().map(|s| u64::from(s.len)).sum()
}

/// Writes `data` at byte `offset` of the buffer the SGEs describe, checking
/// each piece's key for local write first.
pub(crate) fn scatter(
    mem: &mut dyn Memory,
    pd: u32,
    sges: &[Sge],
    offset: u64,
    data: &[u8],
) -> Result<(), ScatterError> {
    if offset.saturating_add(data.len() as u64) > sge_total(sges) {
        return Err(ScatterError::Length);
    }
    let mut skip = offset;
    let mut rest = data;
    for sge in sges {
        if rest.is_empty() {
            break;
        }
        let len = u64::from(sge.len);
        if skip >= len {
            skip -= len;
            continue;
        }
        let take = (len - skip).min(rest.len() as u64) as usize;
        let addr = sge.addr.checked_add(skip).ok_or(ScatterError::Protection)?;
        mem.check(pd, sge.lkey, addr, take as u64, Access::LocalWrite).map_err(|_| ScatterError::Protection)?;
        mem.write(addr, &rest[..take]).map_err(|_| ScatterError::Protection)?;
        rest = &rest[take..];
        skip = 0;
    }
    Ok(())
}

/// Number of packets (and PSNs) a message of `len` bytes takes at `pmtu`
/// bytes per packet: at least one (a zero-length message is one
/// ONLY packet).
pub fn packets_for(len: u64, pmtu: usize) -> u32 {
    let pmtu = pmtu as u64;
    (len.div_ceil(pmtu).max(1)).min(u64::from(Psn::HALF)) as u32
}
