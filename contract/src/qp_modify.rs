//! The queue pair state machine: modify-QP commands shaped like rdma-core's
//! `ibv_modify_qp`, the transitions IBTA allows per QP type, the status a
//! refused command returns, and which received packets a QP in each state
//! admits.
//!
//! * [`QpAttr`]: the attribute mask bits, numbered as libibverbs'
//!   `enum ibv_qp_attr_mask` (`IBV_QP_STATE` = bit 0 ... `IBV_QP_DEST_QPN` =
//!   bit 20), so a driver passes a verbs mask through unchanged.
//! * [`TRANSITIONS`]: for each (current, next) state and each QP type, whether
//!   the transition is allowed and which attributes it requires and accepts:
//!   the Linux kernel's `qp_state_table` (drivers/infiniband/core/verbs.c,
//!   `ib_modify_qp_is_ok`), read at torvalds/linux commit
//!   f4d8f354d753ab21379060a5cf5553fa45a698b2, restricted to RC, UC and UD.
//! * [`modify_qp`]: the command's mailbox in host memory. Every attribute the
//!   device stores sits at the bit position of the `qpc` field it goes to, so
//!   the hardware merges it with a constant bit mask, no shifting.
//! * [`modify_check`]: the reference check (pure); [`modify_check_raw`] is
//!   what the hardware (`hw::host::QpModify`) computes, bit for bit.
//! * [`ModifyStatus`]: how a command is refused, reported with the lowest
//!   offending attribute bit.
//! * [`admit`] and [`AdmitReason`]: packet admission per state (the receive
//!   path's `hw::host::QpAdmit`).
//!
//! Checks, in order (the first that fails decides the status):
//! 1. the context holds a known state and type, else `BadContext`;
//! 2. with `IBV_QP_STATE` the requested state is a state, else `BadValue`
//!    (bit 0); without it the next state is the current one;
//! 3. the transition is in the table for the QP's type, else
//!    `InvalidTransition` (bit 0);
//! 4. every required attribute is in the mask, else `MissingAttribute` with
//!    the lowest missing bit;
//! 5. every attribute in the mask is required or optional for the transition
//!    and supported by the device ([`DEVICE_UNSUPPORTED`]; bits 21..31 are no
//!    attributes), else `UnsupportedAttribute` with the lowest such bit;
//! 6. every attribute in the mask has a value the device accepts
//!    ([`bad_values`]), else `BadValue` with the lowest such bit.
//!
//! Steps 3 to 5 accept exactly the masks `ib_modify_qp_is_ok` accepts (its
//! early `IB_QP_CUR_STATE` test is implied by step 5: only transitions out of
//! RTR, RTS, SQD and SQE list `CUR_STATE` as optional), less the attributes
//! this device does not support.

use crate::codes::{max_code, CodeInfo, CodeValue, Mtu, QpState, QpType};
use crate::layout::{Bytes, FieldKind, FieldType, FieldValue, LayoutFieldInfo};
use crate::layouts::qpc;

codes! {
    /// An attribute of a modify-QP command: the bit number of its flag in the
    /// attribute mask, as libibverbs' `enum ibv_qp_attr_mask` (`IBV_QP_X` is
    /// `1 << value`).
    QpAttr: u8 {
        /// `IBV_QP_STATE`: move to `QP_STATE`.
        State = 0,
        /// `IBV_QP_CUR_STATE`: the state the caller believes the QP is in;
        /// refused (BadValue) when it is not the QP's state.
        CurState = 1,
        /// `IBV_QP_EN_SQD_ASYNC_NOTIFY`: accepted on RTS to SQD; the device
        /// raises no SQ-drained event yet, so the value is not stored.
        EnSqdAsyncNotify = 2,
        /// `IBV_QP_ACCESS_FLAGS`: remote write, read and atomic rights.
        AccessFlags = 3,
        /// `IBV_QP_PKEY_INDEX`: index into the P_Key table (`PKEY_TABLE`);
        /// the entry is stored in `qpc.PKEY`.
        PkeyIndex = 4,
        /// `IBV_QP_PORT`: the physical port; only `PORT_NUM` exists.
        Port = 5,
        /// `IBV_QP_QKEY`.
        Qkey = 6,
        /// `IBV_QP_AV`: the path to the remote QP (an `ah` entry).
        Av = 7,
        /// `IBV_QP_PATH_MTU`.
        PathMtu = 8,
        /// `IBV_QP_TIMEOUT`: local ACK timeout.
        Timeout = 9,
        /// `IBV_QP_RETRY_CNT`.
        RetryCnt = 10,
        /// `IBV_QP_RNR_RETRY`.
        RnrRetry = 11,
        /// `IBV_QP_RQ_PSN`.
        RqPsn = 12,
        /// `IBV_QP_MAX_QP_RD_ATOMIC`: outstanding reads and atomics as
        /// requester, at most `MAX_RD_ATOMIC`.
        MaxQpRdAtomic = 13,
        /// `IBV_QP_ALT_PATH`: alternate path (automatic path migration); not
        /// supported on RoCE (the kernel refuses it there too).
        AltPath = 14,
        /// `IBV_QP_MIN_RNR_TIMER`.
        MinRnrTimer = 15,
        /// `IBV_QP_SQ_PSN`.
        SqPsn = 16,
        /// `IBV_QP_MAX_DEST_RD_ATOMIC`: outstanding reads and atomics as
        /// responder, at most `MAX_DEST_RD_ATOMIC`.
        MaxDestRdAtomic = 17,
        /// `IBV_QP_PATH_MIG_STATE`: only `MIG_MIGRATED` is accepted (no
        /// alternate path); not stored.
        PathMigState = 18,
        /// `IBV_QP_CAP`: queue sizes; no transition accepts it.
        Cap = 19,
        /// `IBV_QP_DEST_QPN`.
        DestQpn = 20,
    }

    /// The outcome of a modify-QP command, with the lowest offending
    /// attribute bit (0 where no attribute is concerned).
    ModifyStatus: u8 {
        /// Done: the context holds the new state and attributes.
        Ok = 0,
        /// The transition from the QP's state to the requested one is not
        /// allowed for its type (or the context is in no known state).
        InvalidTransition = 1,
        /// The transition requires an attribute the mask lacks.
        MissingAttribute = 2,
        /// The mask holds an attribute the transition does not accept for
        /// this QP type, or one the device does not support.
        UnsupportedAttribute = 3,
        /// An attribute's value is out of range: an unknown state or MTU, a
        /// read/atomic depth above the device's limit, a P_Key index beyond
        /// the table, another port, unknown access flags, a CUR_STATE that is
        /// not the QP's state.
        BadValue = 4,
        /// The QP's context holds an unknown state or type (never written by
        /// a correct driver); nothing is changed.
        BadContext = 5,
    }

    /// What the receive path does with a packet for a QP (`qp_admit`).
    /// Every reason but `Admit` drops the packet and counts it.
    AdmitReason: u8 {
        /// Delivered to the QP.
        Admit = 0,
        /// The QP is in RESET or INIT: it receives nothing yet.
        QpNotReady = 1,
        /// The QP is in ERR: everything is dropped (outstanding work
        /// completes flushed).
        QpError = 2,
        /// No QP has that number (beyond the table, or QP 0).
        BadQpn = 3,
        /// The opcode's transport (RC, UC, UD) is not the QP's type.
        WrongQpType = 4,
        /// A response (RDMA READ response, ACK, atomic ACK) for a QP whose
        /// requester is not running (RTR, SQE): nothing can be outstanding.
        ResponseNotExpected = 5,
        /// The QP's context holds an unknown state or type.
        BadContext = 6,
        /// The packet's P_Key does not match the QP's ([`pkey_match`]):
        /// IBTA's P_Key violation, dropped silently.
        BadPkey = 7,
    }
}

/// Bits of the attribute mask (libibverbs passes an `int`).
pub const MASK_BITS: u32 = 32;

impl QpAttr {
    /// The attribute's flag in a mask: `IBV_QP_X`.
    pub const fn mask(self) -> u32 {
        1 << self as u32
    }
}

const fn attrs(list: &[QpAttr]) -> u32 {
    let mut m = 0;
    let mut i = 0;
    while i < list.len() {
        m |= list[i].mask();
        i += 1;
    }
    m
}

/// Attributes the device refuses whatever the table says: RoCE has no
/// alternate path.
pub const DEVICE_UNSUPPORTED: u32 = QpAttr::AltPath.mask();

/// The device's limit on `MAX_QP_RD_ATOMIC` (RDMA READs and atomics a QP has
/// outstanding as requester).
pub const MAX_RD_ATOMIC: u8 = 16;
/// The device's limit on `MAX_DEST_RD_ATOMIC` (as responder).
pub const MAX_DEST_RD_ATOMIC: u8 = 16;
/// The P_Key table: RoCE uses the default partition only.
pub const PKEY_TABLE: [u16; 1] = [0xFFFF];
/// The one physical port (verbs numbers ports from 1).
pub const PORT_NUM: u8 = 1;
/// `IBV_MIG_MIGRATED`, the only path migration state without an alternate
/// path.
pub const MIG_MIGRATED: u8 = 0;
/// `IBV_ACCESS_LOCAL_WRITE`: accepted in `ACCESS_FLAGS` (verbs sets it) but
/// not stored; local rights are the memory regions' business.
pub const ACCESS_LOCAL_WRITE: u8 = 1;

/// Index of a QP type in [`Transition`]'s per-type arrays.
pub const fn type_index(t: QpType) -> usize {
    match t {
        QpType::Rc => 0,
        QpType::Uc => 1,
        QpType::Ud => 2,
    }
}

/// QP types in [`type_index`] order.
pub const TYPES: [QpType; 3] = [QpType::Rc, QpType::Uc, QpType::Ud];

/// One (current, next) cell of the state table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    /// The transition is allowed (for every type).
    pub valid: bool,
    /// Attributes required, per type ([`type_index`]); `IBV_QP_STATE` is
    /// implied when the state changes.
    pub req: [u32; 3],
    /// Attributes accepted beyond the required ones, per type.
    pub opt: [u32; 3],
}

const NO: Transition = Transition { valid: false, req: [0; 3], opt: [0; 3] };
const BARE: Transition = Transition { valid: true, req: [0; 3], opt: [0; 3] };

const fn t(req: [&[QpAttr]; 3], opt: [&[QpAttr]; 3]) -> Transition {
    Transition {
        valid: true,
        req: [attrs(req[0]), attrs(req[1]), attrs(req[2])],
        opt: [attrs(opt[0]), attrs(opt[1]), attrs(opt[2])],
    }
}

use QpAttr::*;

/// The state table, `TRANSITIONS[current][next]` by `QpState` value, per
/// type RC, UC, UD: the kernel's `qp_state_table` (see the module doc for the
/// commit). Any state but RESET may go to RESET or ERR; RESET goes to INIT;
/// INIT to INIT or RTR; RTR to RTS; RTS to RTS or SQD; SQD to RTS or SQD;
/// SQE to RTS; nothing enters SQE by command.
pub const TRANSITIONS: [[Transition; 7]; 7] = [
    // from RESET
    [
        BARE,
        t(
            [&[PkeyIndex, Port, AccessFlags], &[PkeyIndex, Port, AccessFlags], &[PkeyIndex, Port, Qkey]],
            [&[], &[], &[]],
        ),
        NO,
        NO,
        NO,
        NO,
        NO,
    ],
    // from INIT
    [
        BARE,
        t(
            [&[], &[], &[]],
            [&[PkeyIndex, Port, AccessFlags], &[PkeyIndex, Port, AccessFlags], &[PkeyIndex, Port, Qkey]],
        ),
        t(
            [&[Av, PathMtu, DestQpn, RqPsn, MaxDestRdAtomic, MinRnrTimer], &[Av, PathMtu, DestQpn, RqPsn], &[]],
            [&[AltPath, AccessFlags, PkeyIndex], &[AltPath, AccessFlags, PkeyIndex], &[PkeyIndex, Qkey]],
        ),
        NO,
        NO,
        NO,
        BARE,
    ],
    // from RTR
    [
        BARE,
        NO,
        NO,
        t(
            [&[Timeout, RetryCnt, RnrRetry, SqPsn, MaxQpRdAtomic], &[SqPsn], &[SqPsn]],
            [
                &[CurState, AltPath, AccessFlags, MinRnrTimer, PathMigState],
                &[CurState, AltPath, AccessFlags, PathMigState],
                &[CurState, Qkey],
            ],
        ),
        NO,
        NO,
        BARE,
    ],
    // from RTS
    [
        BARE,
        NO,
        NO,
        t(
            [&[], &[], &[]],
            [
                &[CurState, AccessFlags, AltPath, PathMigState, MinRnrTimer],
                &[CurState, AccessFlags, AltPath, PathMigState],
                &[CurState, Qkey],
            ],
        ),
        t([&[], &[], &[]], [&[EnSqdAsyncNotify], &[EnSqdAsyncNotify], &[EnSqdAsyncNotify]]),
        NO,
        BARE,
    ],
    // from SQD
    [
        BARE,
        NO,
        NO,
        t(
            [&[], &[], &[]],
            [
                &[CurState, AltPath, AccessFlags, MinRnrTimer, PathMigState],
                &[CurState, AltPath, AccessFlags, PathMigState],
                &[CurState, Qkey],
            ],
        ),
        t(
            [&[], &[], &[]],
            [
                &[
                    Port,
                    Av,
                    Timeout,
                    RetryCnt,
                    RnrRetry,
                    MaxQpRdAtomic,
                    MaxDestRdAtomic,
                    AltPath,
                    AccessFlags,
                    PkeyIndex,
                    MinRnrTimer,
                    PathMigState,
                ],
                &[Av, AltPath, AccessFlags, PkeyIndex, PathMigState],
                &[PkeyIndex, Qkey],
            ],
        ),
        NO,
        BARE,
    ],
    // from SQE (the kernel lists no RC attributes: RC never enters SQE)
    [BARE, NO, NO, t([&[], &[], &[]], [&[], &[CurState, AccessFlags], &[CurState, Qkey]]), NO, NO, BARE],
    // from ERR
    [BARE, NO, NO, NO, NO, NO, BARE],
];

/// The table's cell for a transition.
pub const fn transition(cur: QpState, next: QpState) -> Transition {
    TRANSITIONS[cur as usize][next as usize]
}

/// Attributes the device accepts on `cur` -> `next` for type `ty`: the
/// required and optional ones and `IBV_QP_STATE`, less
/// [`DEVICE_UNSUPPORTED`]; 0 when the transition is not allowed.
pub const fn allowed(cur: QpState, next: QpState, ty: QpType) -> u32 {
    let tr = transition(cur, next);
    if !tr.valid {
        return 0;
    }
    let i = type_index(ty);
    (tr.req[i] | tr.opt[i] | QpAttr::State.mask()) & !DEVICE_UNSUPPORTED
}

/// Attributes required on `cur` -> `next` for type `ty` (0 when the
/// transition is not allowed).
pub const fn required(cur: QpState, next: QpState, ty: QpType) -> u32 {
    let tr = transition(cur, next);
    if tr.valid {
        tr.req[type_index(ty)]
    } else {
        0
    }
}

/// Rows of the hardware's transition ROM: 3 bits of current state, 3 of next
/// state, 2 of type index.
pub const ROM_ENTRIES: usize = 256;

/// The ROM address of a transition: current state in bits 7:5, next in 4:2,
/// [`type_index`] in 1:0.
pub const fn rom_index(cur: u8, next: u8, type_idx: usize) -> usize {
    (cur as usize) << 5 | (next as usize) << 2 | type_idx
}

/// Entry `i` of the hardware's transition ROM: required attributes in bits
/// 31:0, [`allowed`] in bits 63:32 (0: not a transition; a valid one always
/// allows `IBV_QP_STATE`).
pub const fn rom_entry(i: usize) -> u64 {
    let (cur, next, ti) = ((i >> 5) as u64, ((i >> 2) & 7) as u64, i & 3);
    match (QpState::from_raw(cur), QpState::from_raw(next)) {
        (Some(c), Some(n)) if ti < 3 => {
            let ty = TYPES[ti];
            (allowed(c, n, ty) as u64) << 32 | required(c, n, ty) as u64
        }
        _ => 0,
    }
}

layouts! {
    /// The modify-QP mailbox: an `ibv_modify_qp` call as the driver writes it
    /// into host memory for the device (the `ctx_cmd` operation that hands it
    /// over comes with the QP context cache's integration). Every attribute the device
    /// stores sits at the position of the `qpc` field it goes to (PATH_MTU at
    /// `qpc.PMTU`, AV at `qpc.PATH`, ACCESS_FLAGS over `qpc`'s byte of
    /// access bits ...); the others use bytes of `qpc` fields that no command
    /// modifies (PD, the CQ numbers). Attributes the mask does not name are
    /// ignored.
    modify_qp, 128 bytes {
        /// `qp_state`: the state to move to (`IBV_QP_STATE`).
        QP_STATE: QpState = byte 0, bit 0, width 4;
        /// `cur_qp_state` (`IBV_QP_CUR_STATE`).
        CUR_QP_STATE: QpState = byte 0, bit 4, width 4;
        /// `path_mtu` (`IBV_QP_PATH_MTU`).
        PATH_MTU: Mtu = byte 1, bit 0, width 3;
        /// `path_mig_state` (`IBV_QP_PATH_MIG_STATE`): 0 (`IBV_MIG_MIGRATED`).
        PATH_MIG_STATE: u8 = byte 1, bit 4, width 2;
        /// `qp_access_flags` (`IBV_QP_ACCESS_FLAGS`), verbs' bits: LOCAL_WRITE
        /// 1, REMOTE_WRITE 2, REMOTE_READ 4, REMOTE_ATOMIC 8; others refused.
        ACCESS_FLAGS: u8 = byte 2, bit 0, width 8;
        /// `retry_cnt` (`IBV_QP_RETRY_CNT`).
        RETRY_CNT: u8 = byte 3, bit 0, width 3;
        /// `rnr_retry` (`IBV_QP_RNR_RETRY`).
        RNR_RETRY: u8 = byte 3, bit 4, width 3;
        /// `timeout` (`IBV_QP_TIMEOUT`).
        TIMEOUT: u8 = byte 4, bit 0, width 5;
        /// `min_rnr_timer` (`IBV_QP_MIN_RNR_TIMER`).
        MIN_RNR_TIMER: u8 = byte 5, bit 0, width 5;
        /// `max_rd_atomic` (`IBV_QP_MAX_QP_RD_ATOMIC`).
        MAX_RD_ATOMIC: u8 = byte 6, bit 0, width 8;
        /// `max_dest_rd_atomic` (`IBV_QP_MAX_DEST_RD_ATOMIC`).
        MAX_DEST_RD_ATOMIC: u8 = byte 7, bit 0, width 8;
        /// `sq_psn` (`IBV_QP_SQ_PSN`).
        SQ_PSN: u32 = byte 8, bit 0, width 24;
        /// `en_sqd_async_notify` (`IBV_QP_EN_SQD_ASYNC_NOTIFY`).
        EN_SQD_ASYNC_NOTIFY: bool = byte 11, bit 0, width 1;
        /// `rq_psn` (`IBV_QP_RQ_PSN`).
        RQ_PSN: u32 = byte 12, bit 0, width 24;
        /// `port_num` (`IBV_QP_PORT`).
        PORT_NUM: u8 = byte 15, bit 0, width 8;
        /// `dest_qp_num` (`IBV_QP_DEST_QPN`).
        DEST_QPN: u32 = byte 16, bit 0, width 24;
        /// The attribute mask (`ibv_qp_attr_mask`, `QpAttr` bits).
        MASK: u32 = byte 20, bit 0, width 32;
        /// `qkey` (`IBV_QP_QKEY`).
        QKEY: u32 = byte 24, bit 0, width 32;
        /// `pkey_index` (`IBV_QP_PKEY_INDEX`).
        PKEY_INDEX: u16 = byte 32, bit 0, width 16;
        /// The QP to modify.
        QPN: u32 = byte 36, bit 0, width 24;
        /// `ah_attr` (`IBV_QP_AV`), laid out as an `ah` entry.
        AV: Bytes = byte 64, bit 0, width 512;
    } {
        /// Bits of the mailbox.
        pub const BITS: usize = SIZE * 8;
    }
}

/// Where a stored attribute goes: the `qpc` field, which the mailbox holds at
/// the same bit position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Store {
    /// The attribute.
    pub attr: QpAttr,
    /// The `qpc` field it sets.
    pub field: LayoutFieldInfo,
}

const fn st(attr: QpAttr, field: LayoutFieldInfo) -> Store {
    Store { attr, field }
}

/// Attributes copied from the mailbox into the context, bit for bit at the
/// same position. (`IBV_QP_STATE` writes `qpc.STATE`, `IBV_QP_PKEY_INDEX`
/// writes the table's P_Key to `qpc.PKEY`; the rest are checked only.)
pub const STORES: [Store; 15] = [
    st(AccessFlags, qpc::REMOTE_WRITE.info()),
    st(AccessFlags, qpc::REMOTE_READ.info()),
    st(AccessFlags, qpc::REMOTE_ATOMIC.info()),
    st(PathMtu, qpc::PMTU.info()),
    st(RetryCnt, qpc::RETRY_CNT.info()),
    st(RnrRetry, qpc::RNR_RETRY.info()),
    st(Timeout, qpc::TIMEOUT.info()),
    st(MinRnrTimer, qpc::MIN_RNR_TIMER.info()),
    st(MaxQpRdAtomic, qpc::MAX_RD_ATOMIC.info()),
    st(MaxDestRdAtomic, qpc::MAX_DEST_RD_ATOMIC.info()),
    st(SqPsn, qpc::SQ_PSN.info()),
    st(RqPsn, qpc::RQ_PSN.info()),
    st(DestQpn, qpc::DEST_QPN.info()),
    st(Qkey, qpc::QKEY.info()),
    st(Av, qpc::PATH.info()),
];

/// The mailbox field carrying an attribute's value (`None`: CAP and ALT_PATH,
/// which the device refuses).
pub const fn source(attr: QpAttr) -> Option<LayoutFieldInfo> {
    Some(match attr {
        State => modify_qp::QP_STATE.info(),
        CurState => modify_qp::CUR_QP_STATE.info(),
        EnSqdAsyncNotify => modify_qp::EN_SQD_ASYNC_NOTIFY.info(),
        AccessFlags => modify_qp::ACCESS_FLAGS.info(),
        PkeyIndex => modify_qp::PKEY_INDEX.info(),
        Port => modify_qp::PORT_NUM.info(),
        Qkey => modify_qp::QKEY.info(),
        Av => modify_qp::AV.info(),
        PathMtu => modify_qp::PATH_MTU.info(),
        Timeout => modify_qp::TIMEOUT.info(),
        RetryCnt => modify_qp::RETRY_CNT.info(),
        RnrRetry => modify_qp::RNR_RETRY.info(),
        RqPsn => modify_qp::RQ_PSN.info(),
        MaxQpRdAtomic => modify_qp::MAX_RD_ATOMIC.info(),
        MinRnrTimer => modify_qp::MIN_RNR_TIMER.info(),
        SqPsn => modify_qp::SQ_PSN.info(),
        MaxDestRdAtomic => modify_qp::MAX_DEST_RD_ATOMIC.info(),
        PathMigState => modify_qp::PATH_MIG_STATE.info(),
        DestQpn => modify_qp::DEST_QPN.info(),
        AltPath | Cap => return None,
    })
}

/// Fields a move to RESET clears: the ring indices (the driver's rings start
/// again at 0, as a new QP's).
pub const RESET_CLEARS: [LayoutFieldInfo; 4] =
    [qpc::SQ_PROD.info(), qpc::SQ_CONS.info(), qpc::RQ_PROD.info(), qpc::RQ_CONS.info()];

/// Leading bytes of the context the hardware reads to merge partly written
/// bytes (the state beside the type, RETRY_CNT beside RNR_RETRY); every field
/// written beyond them covers whole bytes.
pub const CTX_HEAD_BYTES: usize = 8;

const fn within(inner: LayoutFieldInfo, outer: LayoutFieldInfo) -> bool {
    inner.pos() >= outer.pos() && inner.pos() + inner.width as usize <= outer.pos() + outer.width as usize
}

const fn whole_bytes(f: LayoutFieldInfo) -> bool {
    f.pos().is_multiple_of(8) && f.width.is_multiple_of(8)
}

// The mailbox mirrors the context: each stored attribute's value lies at its
// field's position; mailbox fields that are not stored do not overlap any
// stored field; fields beyond the head are whole bytes.
const _: () = {
    let mut i = 0;
    while i < STORES.len() {
        let s = STORES[i];
        match source(s.attr) {
            Some(src) => assert!(within(s.field, src), "a stored attribute must sit at its qpc field's position"),
            None => panic!("a stored attribute needs a mailbox field"),
        }
        assert!(s.field.byte < CTX_HEAD_BYTES || whole_bytes(s.field), "partial byte beyond the context head");
        i += 1;
    }
    let mut j = 0;
    while j < RESET_CLEARS.len() {
        assert!(RESET_CLEARS[j].byte >= CTX_HEAD_BYTES && whole_bytes(RESET_CLEARS[j]));
        j += 1;
    }
    assert!(qpc::PKEY.byte >= CTX_HEAD_BYTES && whole_bytes(qpc::PKEY.info()));
    assert!(qpc::STATE.byte < CTX_HEAD_BYTES && qpc::QP_TYPE.byte < CTX_HEAD_BYTES);
    assert!(modify_qp::SIZE == qpc::SIZE);
    assert!(modify_qp::MASK.width == MASK_BITS);
    assert!((PKEY_TABLE.len() as u64) < 1 << modify_qp::PKEY_INDEX.width);
};

/// A refusal: the status and the lowest offending attribute bit.
pub type Refusal = (ModifyStatus, u8);

/// What an accepted command changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewFields {
    /// The QP's state afterwards.
    pub next: QpState,
    /// The attributes of the mask whose values are stored (see [`STORES`];
    /// `IBV_QP_PKEY_INDEX` stores the table's P_Key).
    pub stores: u32,
}

/// A masked write of a context: the bytes `byte_mask` selects (bit i: byte i)
/// take `data`'s; what `ctx_cache.write(index, byte_mask, data)` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpcWrite {
    /// Bytes written.
    pub byte_mask: u128,
    /// Their new values (0 outside `byte_mask`).
    pub data: [u8; qpc::SIZE],
}

const fn lowest(bits: u32) -> u8 {
    bits.trailing_zeros() as u8
}

fn raw(f: LayoutFieldInfo, entry: &[u8]) -> u64 {
    f.read_raw(entry).expect("a full entry holds every field")
}

/// Attributes of `mask` whose values in mailbox `mb` the device refuses,
/// for a QP in state `cur` (`IBV_QP_STATE` included: an unknown state).
pub fn bad_values(cur: u8, mask: u32, mb: &[u8]) -> u32 {
    let access_known = ACCESS_LOCAL_WRITE as u64 | access_stored();
    let checks: [(QpAttr, bool); 9] = [
        (State, QpState::from_raw(raw(modify_qp::QP_STATE.info(), mb)).is_none()),
        (CurState, raw(modify_qp::CUR_QP_STATE.info(), mb) != cur as u64),
        (PathMtu, Mtu::from_raw(raw(modify_qp::PATH_MTU.info(), mb)).is_none()),
        (AccessFlags, raw(modify_qp::ACCESS_FLAGS.info(), mb) & !access_known != 0),
        (PkeyIndex, raw(modify_qp::PKEY_INDEX.info(), mb) >= PKEY_TABLE.len() as u64),
        (Port, raw(modify_qp::PORT_NUM.info(), mb) != PORT_NUM as u64),
        (MaxQpRdAtomic, raw(modify_qp::MAX_RD_ATOMIC.info(), mb) > MAX_RD_ATOMIC as u64),
        (MaxDestRdAtomic, raw(modify_qp::MAX_DEST_RD_ATOMIC.info(), mb) > MAX_DEST_RD_ATOMIC as u64),
        (PathMigState, raw(modify_qp::PATH_MIG_STATE.info(), mb) != MIG_MIGRATED as u64),
    ];
    let mut bad = 0;
    for (a, b) in checks {
        if b {
            bad |= a.mask();
        }
    }
    bad & mask
}

/// The access flags the context stores, as bits of `ACCESS_FLAGS`.
pub const fn access_stored() -> u64 {
    let mut m = 0;
    let mut i = 0;
    while i < STORES.len() {
        if STORES[i].attr as u8 == AccessFlags as u8 {
            m |= 1 << (STORES[i].field.pos() - modify_qp::ACCESS_FLAGS.pos());
        }
        i += 1;
    }
    m
}

/// The reference check of a modify-QP command on a QP in state `cur` of type
/// `ty`, with attribute mask `mask` and the attribute values of mailbox `mb`
/// (its MASK field is not read): the new state and what is stored, or the
/// refusal (see the module doc for the order of the checks).
pub fn modify_check(cur: QpState, ty: QpType, mask: u32, mb: &[u8]) -> Result<NewFields, Refusal> {
    let bad = bad_values(cur as u8, mask, mb);
    let next = if mask & State.mask() != 0 {
        match QpState::from_raw(raw(modify_qp::QP_STATE.info(), mb)) {
            Some(s) => s,
            None => return Err((ModifyStatus::BadValue, State as u8)),
        }
    } else {
        cur
    };
    let ok = allowed(cur, next, ty);
    if ok == 0 {
        return Err((ModifyStatus::InvalidTransition, State as u8));
    }
    let missing = required(cur, next, ty) & !mask;
    if missing != 0 {
        return Err((ModifyStatus::MissingAttribute, lowest(missing)));
    }
    let unsupported = mask & !ok;
    if unsupported != 0 {
        return Err((ModifyStatus::UnsupportedAttribute, lowest(unsupported)));
    }
    if bad != 0 {
        return Err((ModifyStatus::BadValue, lowest(bad)));
    }
    let mut stores = 0;
    let mut i = 0;
    while i < STORES.len() {
        stores |= STORES[i].attr.mask() & mask;
        i += 1;
    }
    stores |= mask & PkeyIndex.mask();
    Ok(NewFields { next, stores })
}

fn set_bits(bits: &mut [u8], pos: usize, width: u32) {
    for p in pos..pos + width as usize {
        bits[p / 8] |= 1 << (p % 8);
    }
}

impl NewFields {
    /// The context write that carries the change out: the new state (beside
    /// the type from `ctx_head`), the stored attributes from mailbox `mb`,
    /// the P_Key, the cleared ring indices on a move to RESET; bits of a
    /// written byte outside these fields come from the context's first
    /// [`CTX_HEAD_BYTES`] bytes, or are 0 beyond them.
    pub fn qpc_write(&self, ctx_head: &[u8], mb: &[u8]) -> QpcWrite {
        let mut bits = [0u8; qpc::SIZE];
        let mut data = [0u8; qpc::SIZE];
        set_bits(&mut bits, qpc::STATE.pos(), qpc::STATE.width);
        qpc::STATE.set(&mut data, self.next).expect("qpc holds STATE");
        for s in STORES {
            if self.stores & s.attr.mask() != 0 {
                set_bits(&mut bits, s.field.pos(), s.field.width);
                for p in s.field.pos()..s.field.pos() + s.field.width as usize {
                    data[p / 8] |= mb[p / 8] & 1 << (p % 8);
                }
            }
        }
        if self.stores & PkeyIndex.mask() != 0 {
            let index = raw(modify_qp::PKEY_INDEX.info(), mb) as usize;
            set_bits(&mut bits, qpc::PKEY.pos(), qpc::PKEY.width);
            qpc::PKEY.set(&mut data, PKEY_TABLE[index]).expect("qpc holds PKEY");
        }
        if self.next == QpState::Reset {
            for f in RESET_CLEARS {
                set_bits(&mut bits, f.pos(), f.width);
            }
        }
        let mut byte_mask = 0u128;
        for i in 0..qpc::SIZE {
            if bits[i] != 0 {
                byte_mask |= 1 << i;
                let keep = if i < CTX_HEAD_BYTES { ctx_head[i] & !bits[i] } else { 0 };
                data[i] = (data[i] & bits[i]) | keep;
            }
        }
        QpcWrite { byte_mask, data }
    }
}

/// Everything the hardware computes for a command: mailbox `mb` (mask
/// included) against a context whose first [`CTX_HEAD_BYTES`] bytes are
/// `ctx_head`. Returns the status, the attribute bit, and the write (all
/// zero unless the status is `Ok`).
pub fn modify_check_raw(ctx_head: &[u8], mb: &[u8]) -> (ModifyStatus, u8, QpcWrite) {
    let none = QpcWrite { byte_mask: 0, data: [0; qpc::SIZE] };
    let state = QpState::from_raw(raw(qpc::STATE.info(), ctx_head));
    let ty = QpType::from_raw(raw(qpc::QP_TYPE.info(), ctx_head));
    let (Some(cur), Some(ty)) = (state, ty) else {
        return (ModifyStatus::BadContext, 0, none);
    };
    let mask = raw(modify_qp::MASK.info(), mb) as u32;
    match modify_check(cur, ty, mask, mb) {
        Ok(nf) => (ModifyStatus::Ok, 0, nf.qpc_write(ctx_head, mb)),
        Err((s, b)) => (s, b, none),
    }
}

// ---------------------------------------------------------------- admission

/// The BTH opcode's transport: its top three bits (IBTA 9.2: RC 000, UC 001,
/// RD 010, UD 011).
pub const fn opcode_service(opcode: u8) -> u8 {
    opcode >> 5
}

/// The transport bits of a QP type's opcodes.
pub const fn service_of(t: QpType) -> u8 {
    match t {
        QpType::Rc => 0,
        QpType::Uc => 1,
        QpType::Ud => 3,
    }
}

/// RC opcodes (low five bits) that are responses, for the requester: RDMA
/// READ response first, middle, last, only, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE.
pub const RC_RESPONSES: core::ops::RangeInclusive<u8> = 0x0D..=0x12;

/// The opcode is a response (to the requester), not a request (to the
/// responder).
pub const fn is_response(opcode: u8) -> bool {
    opcode_service(opcode) == service_of(QpType::Rc)
        && opcode & 0x1F >= *RC_RESPONSES.start()
        && opcode & 0x1F <= *RC_RESPONSES.end()
}

/// The state rule alone: requests reach the responder in RTR, RTS, SQD and
/// SQE; responses reach the requester in RTS and SQD (which finishes what
/// it sent); RESET and INIT receive nothing; ERR drops everything.
pub const fn state_admits(state: QpState, response: bool) -> AdmitReason {
    match state {
        QpState::Reset | QpState::Init => AdmitReason::QpNotReady,
        QpState::Error => AdmitReason::QpError,
        QpState::ReadyToSend | QpState::SendQueueDrained => AdmitReason::Admit,
        QpState::ReadyToReceive | QpState::SendQueueError => {
            if response {
                AdmitReason::ResponseNotExpected
            } else {
                AdmitReason::Admit
            }
        }
    }
}

/// The state rule for a record of the receive path, with what the chip
/// knows beside the context's state: an `on_chip` response (a retransmit
/// timer's expiry, a send WQE the requester refused or flushed: for the
/// completer) is admitted in ERR too, so the completer flushes what the QP
/// still has outstanding after a `modify` to ERR, and in RTR (the poke of a
/// QP whose responder failed before it ever sent: its completer writes
/// COMP_ERROR so its receive queue is flushed); a request for a QP whose
/// completer is in error (`qps.COMP_ERROR`: a fatal NAK, spent retries, a
/// local error; the QP is in error as IBTA's completion error moves it
/// there) is dropped as `QpError`; an `on_chip` request (an RQ flush, for
/// the responder) is admitted only for a QP in error (ERR, or its completer
/// in error), so it never flushes the RECVs of a QP that works: elsewhere
/// it is dropped as the state's own reason, or `QpNotReady` in a state that
/// takes requests.
pub const fn record_admits(state: QpState, response: bool, on_chip: bool, comp_error: bool) -> AdmitReason {
    match state_admits(state, response) {
        AdmitReason::QpError if on_chip => AdmitReason::Admit,
        AdmitReason::ResponseNotExpected if on_chip && matches!(state, QpState::ReadyToReceive) => AdmitReason::Admit,
        AdmitReason::Admit if on_chip && !response && !comp_error => AdmitReason::QpNotReady,
        AdmitReason::Admit if comp_error && !response && !on_chip => AdmitReason::QpError,
        r => r,
    }
}

/// Whether a packet's BTH P_Key matches its QP's (IBTA 10.9.3): the low 15
/// bits (the partition) equal and not zero, and at least one of the two a
/// full member (bit 15): two limited members of a partition do not talk.
pub const fn pkey_match(packet: u16, qp: u16) -> bool {
    packet & 0x7FFF == qp & 0x7FFF && packet & 0x7FFF != 0 && (packet | qp) & 0x8000 != 0
}

/// Whether a packet with BTH `opcode` is admitted to a QP whose context
/// holds `state` and `ty` (raw), `qpn_ok` when the QPN names a QP, `pkey_ok`
/// when the P_Keys match ([`pkey_match`]). In order: BadQpn, BadContext,
/// WrongQpType, then [`record_admits`] (with `on_chip` and `comp_error`),
/// then BadPkey (the anchors' check order: the QP, its type and state, then
/// the partition).
pub const fn admit(
    qpn_ok: bool,
    pkey_ok: bool,
    state: u8,
    ty: u8,
    opcode: u8,
    on_chip: bool,
    comp_error: bool,
) -> AdmitReason {
    if !qpn_ok {
        return AdmitReason::BadQpn;
    }
    let (Some(s), Some(t)) = (QpState::from_raw(state as u64), QpType::from_raw(ty as u64)) else {
        return AdmitReason::BadContext;
    };
    if opcode_service(opcode) != service_of(t) {
        return AdmitReason::WrongQpType;
    }
    match record_admits(s, is_response(opcode), on_chip, comp_error) {
        AdmitReason::Admit if !pkey_ok => AdmitReason::BadPkey,
        r => r,
    }
}
