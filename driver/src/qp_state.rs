//! The QP state machine as the driver checks it: which transitions each QP
//! type may make and which attributes each one requires and accepts, with
//! the attribute mask bits of libibverbs' `enum ibv_qp_attr_mask`.
//!
//! The table follows the kernel's `qp_state_table` (drivers/infiniband/core/
//! verbs.c, `ib_modify_qp_is_ok`) for RC, UC and UD, without the states and
//! attributes this device does not have (alternate paths are refused by
//! value, not by the table). It stands here until the contract carries the
//! table (issue 10 adds it with the hardware's own check); the driver then
//! takes it from there, so the two cannot disagree.

use crate::error::{Error, Result};
use rnic_contract::codes::{QpState, QpType};
use std::ops::{BitOr, BitOrAssign};

/// Which attributes of a [`crate::QpAttr`] a modify carries: the bit values of
/// libibverbs' `enum ibv_qp_attr_mask`, so a verbs mask passes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct QpAttrMask(pub u32);

macro_rules! mask_bits {
    ($($(#[doc = $d:literal])* $name:ident = $bit:literal;)+) => {
        impl QpAttrMask {
            $($(#[doc = $d])* pub const $name: QpAttrMask = QpAttrMask(1 << $bit);)+
            /// Every bit with its name, lowest first.
            pub const NAMES: &'static [(QpAttrMask, &'static str)] = &[$((QpAttrMask::$name, stringify!($name))),+];
        }
    };
}

mask_bits! {
    /// `IBV_QP_STATE`: `qp_state`.
    STATE = 0;
    /// `IBV_QP_CUR_STATE`: `cur_qp_state`.
    CUR_STATE = 1;
    /// `IBV_QP_EN_SQD_ASYNC_NOTIFY`.
    EN_SQD_ASYNC_NOTIFY = 2;
    /// `IBV_QP_ACCESS_FLAGS`: `qp_access_flags`.
    ACCESS_FLAGS = 3;
    /// `IBV_QP_PKEY_INDEX`.
    PKEY_INDEX = 4;
    /// `IBV_QP_PORT`.
    PORT = 5;
    /// `IBV_QP_QKEY`.
    QKEY = 6;
    /// `IBV_QP_AV`: `ah_attr`.
    AV = 7;
    /// `IBV_QP_PATH_MTU`.
    PATH_MTU = 8;
    /// `IBV_QP_TIMEOUT`.
    TIMEOUT = 9;
    /// `IBV_QP_RETRY_CNT`.
    RETRY_CNT = 10;
    /// `IBV_QP_RNR_RETRY`.
    RNR_RETRY = 11;
    /// `IBV_QP_RQ_PSN`.
    RQ_PSN = 12;
    /// `IBV_QP_MAX_QP_RD_ATOMIC`: `max_rd_atomic`.
    MAX_QP_RD_ATOMIC = 13;
    /// `IBV_QP_ALT_PATH`.
    ALT_PATH = 14;
    /// `IBV_QP_MIN_RNR_TIMER`.
    MIN_RNR_TIMER = 15;
    /// `IBV_QP_SQ_PSN`.
    SQ_PSN = 16;
    /// `IBV_QP_MAX_DEST_RD_ATOMIC`.
    MAX_DEST_RD_ATOMIC = 17;
    /// `IBV_QP_PATH_MIG_STATE`.
    PATH_MIG_STATE = 18;
    /// `IBV_QP_CAP`.
    CAP = 19;
    /// `IBV_QP_DEST_QPN`.
    DEST_QPN = 20;
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

const fn t(required: QpAttrMask, optional: QpAttrMask) -> Option<Transition> {
    Some(Transition { required, optional })
}

type M = QpAttrMask;

/// The rule for `from -> to` on a QP of type `ty`; `None` when the
/// transition does not exist.
pub const fn transition(ty: QpType, from: QpState, to: QpState) -> Option<Transition> {
    use QpState::*;
    use QpType::*;
    let none = M::NONE;
    match (from, to) {
        // Any state may go to RESET or ERR with nothing else.
        (_, Reset) | (_, Error) => t(none, none),
        (Reset, Init) | (Init, Init) => {
            let attrs = match ty {
                Ud => M::PKEY_INDEX.or(M::PORT).or(M::QKEY),
                Uc | Rc => M::PKEY_INDEX.or(M::PORT).or(M::ACCESS_FLAGS),
            };
            if matches!(from, Reset) {
                t(attrs, none)
            } else {
                t(none, attrs)
            }
        }
        (Init, ReadyToReceive) => match ty {
            Ud => t(none, M::PKEY_INDEX.or(M::QKEY)),
            Uc => t(
                M::AV.or(M::PATH_MTU).or(M::DEST_QPN).or(M::RQ_PSN),
                M::ALT_PATH.or(M::ACCESS_FLAGS).or(M::PKEY_INDEX),
            ),
            Rc => t(
                M::AV.or(M::PATH_MTU).or(M::DEST_QPN).or(M::RQ_PSN).or(M::MAX_DEST_RD_ATOMIC).or(M::MIN_RNR_TIMER),
                M::ALT_PATH.or(M::ACCESS_FLAGS).or(M::PKEY_INDEX),
            ),
        },
        (ReadyToReceive, ReadyToSend) => match ty {
            Ud => t(M::SQ_PSN, M::CUR_STATE.or(M::QKEY)),
            Uc => t(M::SQ_PSN, M::CUR_STATE.or(M::ALT_PATH).or(M::ACCESS_FLAGS).or(M::PATH_MIG_STATE)),
            Rc => t(
                M::TIMEOUT.or(M::RETRY_CNT).or(M::RNR_RETRY).or(M::SQ_PSN).or(M::MAX_QP_RD_ATOMIC),
                M::CUR_STATE.or(M::ALT_PATH).or(M::ACCESS_FLAGS).or(M::MIN_RNR_TIMER).or(M::PATH_MIG_STATE),
            ),
        },
        (ReadyToSend, ReadyToSend) | (SendQueueDrained, ReadyToSend) => match ty {
            Ud => t(none, M::CUR_STATE.or(M::QKEY)),
            Uc => t(none, M::CUR_STATE.or(M::ACCESS_FLAGS).or(M::ALT_PATH).or(M::PATH_MIG_STATE)),
            Rc => t(none, M::CUR_STATE.or(M::ACCESS_FLAGS).or(M::ALT_PATH).or(M::PATH_MIG_STATE).or(M::MIN_RNR_TIMER)),
        },
        (ReadyToSend, SendQueueDrained) | (SendQueueDrained, SendQueueDrained) => t(none, M::EN_SQD_ASYNC_NOTIFY),
        (SendQueueError, ReadyToSend) => match ty {
            Ud => t(none, M::CUR_STATE.or(M::QKEY)),
            Uc => t(none, M::CUR_STATE.or(M::ACCESS_FLAGS)),
            Rc => None,
        },
        _ => None,
    }
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
            check(QpType::Rc, SendQueueError, ReadyToSend, M::STATE).unwrap_err().to_string(),
            "a Rc QP cannot go from SendQueueError to ReadyToSend"
        );
    }

    #[test]
    fn every_state_may_reset_or_fail() {
        for ty in QpType::ALL {
            for s in QpState::ALL {
                assert!(check(*ty, *s, Reset, M::STATE).is_ok());
                assert!(check(*ty, *s, QpState::Error, M::STATE).is_ok());
            }
        }
    }
}
