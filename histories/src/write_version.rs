//! The version number a database gave the version a write installed (`["w", k, v, version]` on a
//! completion). This module owns the number's representation: any 64-bit integer but the smallest,
//! kept in eight bytes with room for "none" (so a micro-op that may carry one stays 40 bytes, in
//! histories of millions of them). What the numbers say about version orders is the checker's.

use std::fmt;
use std::num::NonZeroU64;

use serde::{Serialize, Serializer};

/// A write's version number: any `i64` except `i64::MIN`, ordered as integers.
///
/// Stored with its sign bit flipped, which maps `i64` onto `u64` in order and `i64::MIN` onto 0, so
/// that `Option<WriteVersion>` takes no more room than the number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WriteVersion(NonZeroU64);

/// The sign bit of an `i64`, as a `u64`.
const SIGN: u64 = 1 << 63;

/// Why a version number of `i64::MIN` is refused, after the number.
pub(crate) const VERSION_RANGE: &str = "is out of range: a write's version must be above -9223372036854775808";

impl WriteVersion {
    /// The smallest number a history may give; `i64::MIN` is refused (no database numbers a version so).
    pub const MIN: i64 = i64::MIN + 1;

    /// The version numbered `n`, or `None` for `i64::MIN`.
    pub fn new(n: i64) -> Option<WriteVersion> {
        NonZeroU64::new(n as u64 ^ SIGN).map(WriteVersion)
    }

    /// The version numbered `n` as a reader takes it from a history: `i64::MIN` is refused, saying why.
    pub(crate) fn read(n: i64) -> Result<WriteVersion, String> {
        WriteVersion::new(n).ok_or_else(|| format!("version {n} {VERSION_RANGE}"))
    }

    /// The number.
    pub fn get(self) -> i64 {
        (self.0.get() ^ SIGN) as i64
    }
}

impl fmt::Debug for WriteVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}

impl fmt::Display for WriteVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.get(), f)
    }
}

impl Serialize for WriteVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_but_the_smallest_round_trips_in_order() {
        let numbers = [WriteVersion::MIN, -5, -1, 0, 1, 2, 7, i64::MAX - 1, i64::MAX];
        let versions: Vec<WriteVersion> =
            numbers.iter().map(|&n| WriteVersion::new(n).expect("representable")).collect();
        assert_eq!(versions.iter().map(|v| v.get()).collect::<Vec<_>>(), numbers);
        assert!(versions.windows(2).all(|w| w[0] < w[1]), "ordered as the integers are");
        assert_eq!(WriteVersion::new(i64::MIN), None);
        assert_eq!(std::mem::size_of::<Option<WriteVersion>>(), 8);
        assert_eq!(format!("{:?} {}", versions[1], versions[1]), "-5 -5");
    }
}
