//! Memory protection and translation (docs/memory.md): [`MrCheck`] checks
//! every access against its region's MPT entry and cuts it into the IOVA
//! pieces of its pages, reading MPT entries and MTT lines through lookup
//! interfaces that the context cache serves; [`MrXlate`] is the unit a
//! transport calls: `MrCheck` behind an MPT cache and an MTT cache over the
//! tables in host memory, with one DMA read and one write client.

mod mr_check;
mod mr_xlate;
mod xlate_mux;

pub use mr_check::{MrCheck, MR_FIFO_DEPTH, MR_LINE_BUFFER};
pub use mr_xlate::{
    InvDoneIn, InvDoneOut, InvReqIn, InvReqOut, LookupRob, MrXlate, MR_MPT_CACHE_LOG, MR_MTT_CACHE_LOG, MR_ROB_LOG,
};
pub use xlate_mux::{XlateMux, XLATE_MUX_MAX_USERS, XLATE_MUX_ORDER_LOG};

use rust_hdl::prelude::*;

/// Bits of a request's id (returned with its verdict and pieces).
pub const MR_ID_BITS: usize = 8;
/// Bits of an MPT index: keys of a table of at most 2^24 entries.
pub const MPT_INDEX_BITS: usize = rnic_contract::layouts::mpt::MAX_LOG_ENTRIES as usize;
/// Bits of an MTT line index: a 32-bit MTT entry index over 8 entries a line.
pub const MTT_LINE_BITS: usize = 32 - crate::consts::MTT_LINE_SHIFT;
/// Bits of a verdict: 0, or an `MrError` code.
pub const MR_VERDICT_BITS: usize = rnic_contract::mr::VERDICT_BITS as usize;
/// Bits of an `Access` code.
pub const MR_ACCESS_BITS: usize = rnic_contract::mr::Access::BITS as usize;

/// An access to check: `len` bytes at `va` under `key`, for a QP of PD `pd`,
/// doing `access` (`rnic_contract::mr::Access`).
#[derive(LogicInterface, Default)]
#[join = "MrReqOut"]
pub struct MrReqIn {
    pub key: Signal<In, Bits<32>>,
    pub pd: Signal<In, Bits<24>>,
    pub va: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<32>>,
    pub access: Signal<In, Bits<MR_ACCESS_BITS>>,
    pub id: Signal<In, Bits<MR_ID_BITS>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "MrReqIn"]
pub struct MrReqOut {
    pub key: Signal<Out, Bits<32>>,
    pub pd: Signal<Out, Bits<24>>,
    pub va: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<32>>,
    pub access: Signal<Out, Bits<MR_ACCESS_BITS>>,
    pub id: Signal<Out, Bits<MR_ID_BITS>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// The answer to a request, in request order: beats of `id`, `last` on the
/// final one. A failed check or a zero-length access is one beat with the
/// verdict, `len` 0 and `last`; a passed one is one beat per page piece of
/// [VA, VA + len): `iova`, `len`, verdict 0.
#[derive(LogicInterface, Default)]
#[join = "MrRespIn"]
pub struct MrRespOut {
    pub id: Signal<Out, Bits<MR_ID_BITS>>,
    pub verdict: Signal<Out, Bits<MR_VERDICT_BITS>>,
    pub iova: Signal<Out, Bits<64>>,
    pub len: Signal<Out, Bits<32>>,
    pub last: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "MrRespOut"]
pub struct MrRespIn {
    pub id: Signal<In, Bits<MR_ID_BITS>>,
    pub verdict: Signal<In, Bits<MR_VERDICT_BITS>>,
    pub iova: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<32>>,
    pub last: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A table read: entry (or line) `index`, tagged `id`.
#[derive(LogicInterface, Default)]
#[join = "LookupReqIn"]
pub struct LookupReqOut<const W: usize> {
    pub index: Signal<Out, Bits<W>>,
    pub id: Signal<Out, Bits<MR_ID_BITS>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "LookupReqOut"]
pub struct LookupReqIn<const W: usize> {
    pub index: Signal<In, Bits<W>>,
    pub id: Signal<In, Bits<MR_ID_BITS>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A prefetch hint: MTT line `index` is likely to be read soon; the cache
/// may fetch it now. No answer comes back, and a hint may be dropped.
#[derive(LogicInterface, Default)]
#[join = "HintIn"]
pub struct HintOut<const W: usize> {
    pub index: Signal<Out, Bits<W>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "HintOut"]
pub struct HintIn<const W: usize> {
    pub index: Signal<In, Bits<W>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// A table read's answer, in the order of the reads: 64 bytes (an MPT entry,
/// or a line of 8 MTT entries), with the read's `id`.
#[derive(LogicInterface, Default)]
#[join = "LookupRespOut"]
pub struct LookupRespIn {
    pub data: Signal<In, Bits<512>>,
    pub id: Signal<In, Bits<MR_ID_BITS>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "LookupRespIn"]
pub struct LookupRespOut {
    pub data: Signal<Out, Bits<512>>,
    pub id: Signal<Out, Bits<MR_ID_BITS>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}
