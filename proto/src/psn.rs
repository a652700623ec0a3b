//! 24-bit packet sequence numbers.
//!
//! PSNs wrap modulo 2^24, so "before" is serial-number order (RFC 1982
//! style): `a` is before `b` when `b` is less than half the space (2^23)
//! ahead of `a`. Exactly half the space apart is ambiguous and compares as
//! neither before nor after.

use std::cmp::Ordering;
use std::fmt;

/// A 24-bit packet sequence number. The constructor masks to 24 bits, so
/// every `Psn` is a valid wire value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Psn(u32);

impl Psn {
    /// Width of a PSN in bits.
    pub const BITS: u32 = 24;
    /// Mask of the 24 PSN bits.
    pub const MASK: u32 = (1 << Self::BITS) - 1;
    /// Half the PSN space: the largest meaningful distance between two PSNs.
    pub const HALF: u32 = 1 << (Self::BITS - 1);
    /// The largest PSN.
    pub const MAX: Psn = Psn(Self::MASK);

    /// The PSN `value mod 2^24`.
    pub const fn new(value: u32) -> Psn {
        Psn(value & Self::MASK)
    }

    /// The 24-bit value.
    pub const fn value(self) -> u32 {
        self.0
    }

    /// `self + n` modulo 2^24.
    pub const fn add(self, n: u32) -> Psn {
        Psn::new(self.0.wrapping_add(n))
    }

    /// `self - n` modulo 2^24.
    pub const fn sub(self, n: u32) -> Psn {
        Psn::new(self.0.wrapping_sub(n))
    }

    /// The next PSN.
    pub const fn next(self) -> Psn {
        self.add(1)
    }

    /// `(later - self) mod 2^24`: how far ahead `later` is, in `0..2^24`.
    pub const fn distance_to(self, later: Psn) -> u32 {
        later.0.wrapping_sub(self.0) & Self::MASK
    }

    /// Signed distance `self - other` in `-2^23..2^23`, like rxe's
    /// `psn_compare`: positive if `self` is after `other`. At exactly 2^23
    /// apart the result is -2^23 (the ambiguous point).
    pub const fn diff(self, other: Psn) -> i32 {
        ((self.0.wrapping_sub(other.0) << 8) as i32) >> 8
    }

    /// True if `self` comes strictly before `other` in serial-number order.
    pub const fn is_before(self, other: Psn) -> bool {
        let ahead = self.distance_to(other);
        ahead != 0 && ahead < Self::HALF
    }

    /// True if `self` comes strictly after `other`.
    pub const fn is_after(self, other: Psn) -> bool {
        other.is_before(self)
    }

    /// Serial-number ordering; `None` when the PSNs are exactly 2^23 apart.
    pub fn serial_cmp(self, other: Psn) -> Option<Ordering> {
        if self == other {
            Some(Ordering::Equal)
        } else if self.is_before(other) {
            Some(Ordering::Less)
        } else if other.is_before(self) {
            Some(Ordering::Greater)
        } else {
            None
        }
    }

    /// True if `self` lies in the window of `len` PSNs starting at `start`
    /// (`start`, `start+1`, ..., `start+len-1`, wrapping). Windows longer
    /// than 2^23 make serial order meaningless, so they are clamped to 2^23.
    pub const fn in_window(self, start: Psn, len: u32) -> bool {
        let len = if len > Self::HALF { Self::HALF } else { len };
        start.distance_to(self) < len
    }
}

impl From<Psn> for u32 {
    fn from(psn: Psn) -> u32 {
        psn.0
    }
}

impl fmt::Display for Psn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn construction_masks_to_24_bits() {
        assert_eq!(Psn::new(0x0123_4567).value(), 0x23_4567);
        assert_eq!(Psn::new(0xFFFF_FFFF), Psn::MAX);
        assert_eq!(Psn::MAX.value(), 0xFF_FFFF);
    }

    #[test]
    fn add_and_sub_wrap() {
        assert_eq!(Psn::MAX.next(), Psn::new(0));
        assert_eq!(Psn::MAX.add(2), Psn::new(1));
        assert_eq!(Psn::new(0).sub(1), Psn::MAX);
        assert_eq!(Psn::new(5).sub(10), Psn::new(0xFF_FFFB));
        assert_eq!(Psn::new(5).add(u32::MAX), Psn::new(4)); // u32::MAX ≡ -1 (mod 2^24)
        assert_eq!(Psn::new(7).add(1 << 24), Psn::new(7));
    }

    #[test]
    fn distance_wraps() {
        assert_eq!(Psn::MAX.distance_to(Psn::new(0)), 1);
        assert_eq!(Psn::new(0).distance_to(Psn::MAX), Psn::MASK);
        assert_eq!(Psn::new(10).distance_to(Psn::new(10)), 0);
    }

    #[test]
    fn serial_order_across_the_wrap() {
        let last = Psn::MAX;
        let first = Psn::new(0);
        assert!(last.is_before(first));
        assert!(first.is_after(last));
        assert!(!first.is_before(last));
        assert_eq!(last.serial_cmp(first), Some(Ordering::Less));
        assert_eq!(first.serial_cmp(first), Some(Ordering::Equal));
        assert!(!first.is_before(first));
    }

    #[test]
    fn half_space_boundary() {
        let a = Psn::new(0);
        assert!(a.is_before(Psn::new(Psn::HALF - 1)));
        assert!(!a.is_before(Psn::new(Psn::HALF)));
        assert!(!Psn::new(Psn::HALF).is_before(a));
        assert_eq!(a.serial_cmp(Psn::new(Psn::HALF)), None);
        assert!(a.is_after(Psn::new(Psn::HALF + 1)));
    }

    #[test]
    fn diff_matches_rxe_psn_compare() {
        assert_eq!(Psn::new(5).diff(Psn::new(3)), 2);
        assert_eq!(Psn::new(3).diff(Psn::new(5)), -2);
        assert_eq!(Psn::new(0).diff(Psn::MAX), 1);
        assert_eq!(Psn::MAX.diff(Psn::new(0)), -1);
        assert_eq!(Psn::new(Psn::HALF - 1).diff(Psn::new(0)), (Psn::HALF - 1) as i32);
        assert_eq!(Psn::new(Psn::HALF).diff(Psn::new(0)), -(Psn::HALF as i32));
        // diff's sign agrees with serial order away from the ambiguous point.
        for (a, b) in [(0u32, 1u32), (0xFF_FFF0, 0x10), (0x40_0000, 0x7F_FFFF), (123, 0x80_0000)] {
            let (a, b) = (Psn::new(a), Psn::new(b));
            assert_eq!(a.diff(b) < 0, a.is_before(b), "{a} vs {b}");
        }
    }

    #[test]
    fn window_check_wraps() {
        let start = Psn::new(0xFF_FFFE);
        assert!(start.in_window(start, 4));
        assert!(Psn::MAX.in_window(start, 4));
        assert!(Psn::new(1).in_window(start, 4));
        assert!(!Psn::new(2).in_window(start, 4));
        assert!(!Psn::new(0xFF_FFFD).in_window(start, 4));
        assert!(!start.in_window(start, 0));
        // Over-long windows are clamped to half the space.
        assert!(!Psn::new(Psn::HALF).in_window(Psn::new(0), u32::MAX));
        assert!(Psn::new(Psn::HALF - 1).in_window(Psn::new(0), u32::MAX));
    }
}
