//! The QP state machine as the driver checks it: which transitions each QP
//! type may make and which attributes each one requires and accepts, with
//! the attribute mask bits of libibverbs' `enum ibv_qp_attr_mask`.
//!
//! The table is the contract's (`rnic_contract::qp_modify::TRANSITIONS`, the
//! kernel's `qp_state_table` for RC, UC and UD), the one the hardware's
//! `qp_modify` block is generated from, so the driver and the device cannot
//! disagree. Alternate paths are refused by value, not by the table.

use crate::error::{Error, Result};
use rnic_contract::codes::{QpState, QpType};
use rnic_contract::qp_modify;
use std::ops::{BitOr, BitOrAssign};

/// Which attributes of a [`crate::QpAttr`] a modify carries: the bit values of
/// libibverbs' `enum ibv_qp_attr_mask`, so a verbs mask passes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct QpAttrMask(pub u32);

macro_rules! mask_bits {
    ($($(#[doc = $d:literal])* $name:ident = $attr:ident;)+) => {
        impl QpAttrMask {
            $($(#[doc = $d])* pub const $name: QpAttrMask = QpAttrMask(qp_modify::QpAttr::$attr.mask());)+
            /// Every bit with its name, lowest first.
            pub const NAMES: &'static [(QpAttrMask, &'static str)] = &[$((QpAttrMask::$name, stringify!($name))),+];
        }
    };
}

mask_bits! {
    /// `IBV_QP_STATE`: `qp_state`.
    STATE = State;
    /// `IBV_QP_CUR_STATE`: `cur_qp_state`.
    CUR_STATE = CurState;
    /// `IBV_QP_EN_SQD_ASYNC_NOTIFY`.
    EN_SQD_ASYNC_NOTIFY = EnSqdAsyncNotify;
    /// `IBV_QP_ACCESS_FLAGS`: `qp_access_flags`.
    ACCESS_FLAGS = AccessFlags;
    /// `IBV_QP_PKEY_INDEX`.
    PKEY_INDEX = PkeyIndex;
    /// `IBV_QP_PORT`.
    PORT = Port;
    /// `IBV_QP_QKEY`.
    QKEY = Qkey;
    /// `IBV_QP_AV`: `ah_attr`.
    AV = Av;
    /// `IBV_QP_PATH_MTU`.
    PATH_MTU = PathMtu;
    /// `IBV_QP_TIMEOUT`.
    TIMEOUT = Timeout;
    /// `IBV_QP_RETRY_CNT`.
    RETRY_CNT = RetryCnt;
    /// `IBV_QP_RNR_RETRY`.
    RNR_RETRY = RnrRetry;
    /// `IBV_QP_RQ_PSN`.
    RQ_PSN = RqPsn;
    /// `IBV_QP_MAX_QP_RD_ATOMIC`: `max_rd_atomic`.
    MAX_QP_RD_ATOMIC = MaxQpRdAtomic;
    /// `IBV_QP_ALT_PATH`.
    ALT_PATH = AltPath;
    /// `IBV_QP_MIN_RNR_TIMER`.
    MIN_RNR_TIMER = MinRnrTimer;
    /// `IBV_QP_SQ_PSN`.
    SQ_PSN = SqPsn;
    /// `IBV_QP_MAX_DEST_RD_ATOMIC`.
    MAX_DEST_RD_ATOMIC = MaxDestRdAtomic;
    /// `IBV_QP_PATH_MIG_STATE`.
    PATH_MIG_STATE = PathMigState;
    /// `IBV_QP_CAP`.
    CAP = Cap;
    /// `IBV_QP_DEST_QPN`.
    DEST_QPN = DestQpn;
}

impl QpAttrMask {
    /// No attribute.
    pub const NONE: QpAttrMask = QpAttrMask(0);

    /// Whether every bit of `other` is set here.
    pub const fn contains(self, other: QpAttrMask) -> bool {
        self.0 & other.0 == other.0
    }

    /// The bits of `self` not in `other`.
    pub const fn minus(self, other: QpAttrMask) -> QpAttrMask {
        QpAttrMask(self.0 & !other.0)
    }

    /// The name of the lowest bit set (`"PATH_MTU"`), or `"none"`.
    pub fn lowest_name(self) -> &'static str {
        Self::NAMES.iter().find(|(b, _)| self.0 & b.0 != 0).map_or("none", |(_, n)| n)
    }

    const fn or(self, other: QpAttrMask) -> QpAttrMask {
        QpAttrMask(self.0 | other.0)
    }
}

impl BitOr for QpAttrMask {
    type Output = QpAttrMask;
    fn bitor(self, rhs: QpAttrMask) -> QpAttrMask {
        self.or(rhs)
    }
}

impl BitOrAssign for QpAttrMask {
    fn bitor_assign(&mut self, rhs: QpAttrMask) {
        *self = self.or(rhs);
    }
}

/// What a transition requires and accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    /// Attributes that must be in the mask.
    pub required: QpAttrMask,
    /// Attributes that may be in the mask.
    pub optional: QpAttrMask,
}

type M = QpAttrMask;

/// The rule for `from` -> `to` on a QP of type `ty`, or `None` when the
/// transition is not allowed: the contract's table cell for the type.
pub const fn transition(ty: QpType, from: QpState, to: QpState) -> Option<Transition> {
    let cell = qp_modify::transition(from, to);
    if !cell.valid {
        return None;
    }
    let i = qp_modify::type_index(ty);
    Some(Transition { required: QpAttrMask(cell.req[i]), optional: QpAttrMask(cell.opt[i]) })
}

/// Checks a modify of a `ty` QP in state `from` with `mask`: the next state
/// (`to`, or `from` when the mask has no STATE), a transition that exists,
/// every required attribute present and none the transition does not take.
/// Returns the transition's rule.
pub fn check(ty: QpType, from: QpState, to: QpState, mask: QpAttrMask) -> Result<Transition> {
    let rule = transition(ty, from, to).ok_or(Error::InvalidTransition { qp_type: ty, from, to })?;
    let missing = rule.required.minus(mask);
    if missing != M::NONE {
        return Err(Error::MissingAttribute { from, to, attr: missing.lowest_name() });
    }
    let extra = mask.minus(rule.required.or(rule.optional).or(M::STATE));
    if extra != M::NONE {
        return Err(Error::AttributeNotAllowed { from, to, attr: extra.lowest_name() });
    }
    Ok(rule)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error as E;
    use QpState::{Init, ReadyToSend, Reset, SendQueueError};

    #[test]
    fn the_usual_rc_path_checks() {
        let init = M::STATE | M::PKEY_INDEX | M::PORT | M::ACCESS_FLAGS;
        assert!(check(QpType::Rc, Reset, Init, init).is_ok());
        assert_eq!(
            check(QpType::Rc, Reset, Init, M::STATE | M::PKEY_INDEX | M::PORT),
            Err(E::MissingAttribute { from: Reset, to: Init, attr: "ACCESS_FLAGS" })
        );
        assert_eq!(
            check(QpType::Rc, Reset, Init, init | M::QKEY),
            Err(E::AttributeNotAllowed { from: Reset, to: Init, attr: "QKEY" })
        );
        assert_eq!(
            check(QpType::Rc, Reset, ReadyToSend, M::STATE),
            Err(E::InvalidTransition { qp_type: QpType::Rc, from: Reset, to: ReadyToSend })
        );
        assert_eq!(
            check(QpType::Rc, Init, ReadyToSend, M::STATE).unwrap_err().to_string(),
            "a Rc QP cannot go from Init to ReadyToSend"
        );
        // The kernel's table lets every type leave SQE for RTS (an RC QP never enters SQE).
        assert!(check(QpType::Rc, SendQueueError, ReadyToSend, M::STATE).is_ok());
    }

    #[test]
    fn every_state_but_reset_may_reset_or_fail() {
        for ty in QpType::ALL {
            for s in QpState::ALL {
                assert!(check(*ty, *s, Reset, M::STATE).is_ok());
                // the kernel's table: RESET does not go to ERR
                assert_eq!(check(*ty, *s, QpState::Error, M::STATE).is_ok(), *s != Reset);
            }
        }
    }
}
