//! Keys and key ranges.
//!
//! Owns: the [`RowKey`] type (integer or string, ordered integers first) and [`KeyRange`], the half-open or closed
//! interval a scan reads and a predicate SIREAD lock covers. Does not own: where keys live (`store.rs`) or how a range
//! lock turns into an rw-antidependency (`ssi.rs`). Keys are integers or strings because the histories isocheck checks
//! (after Elle's) use both.

use std::fmt;
use std::ops::{Bound, RangeBounds};

/// A key: an integer or a string. All integer keys sort before all string keys.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowKey {
    /// An integer key, as in Elle's list-append and rw-register workloads.
    Int(i64),
    /// A string key, as in YCSB's `user1234`.
    Str(String),
}

impl fmt::Display for RowKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowKey::Int(i) => write!(f, "{i}"),
            RowKey::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RowKey {
    fn from(i: i64) -> RowKey {
        RowKey::Int(i)
    }
}

impl From<&str> for RowKey {
    fn from(s: &str) -> RowKey {
        RowKey::Str(s.to_owned())
    }
}

impl From<String> for RowKey {
    fn from(s: String) -> RowKey {
        RowKey::Str(s)
    }
}

/// A range of keys, owned so it can be stored as a predicate lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    start: Bound<RowKey>,
    end: Bound<RowKey>,
}

impl KeyRange {
    /// Every key.
    pub fn all() -> KeyRange {
        KeyRange { start: Bound::Unbounded, end: Bound::Unbounded }
    }

    /// The keys within `bounds`, e.g. `KeyRange::new(RowKey::Int(1)..RowKey::Int(5))` or `KeyRange::new(..)`.
    pub fn new(bounds: impl RangeBounds<RowKey>) -> KeyRange {
        KeyRange { start: bounds.start_bound().cloned(), end: bounds.end_bound().cloned() }
    }

    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &RowKey) -> bool {
        RangeBounds::contains(self, key)
    }
}

impl RangeBounds<RowKey> for KeyRange {
    fn start_bound(&self) -> Bound<&RowKey> {
        self.start.as_ref()
    }

    fn end_bound(&self) -> Bound<&RowKey> {
        self.end.as_ref()
    }
}

impl fmt::Display for KeyRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.start {
            Bound::Included(k) => write!(f, "[{k}")?,
            Bound::Excluded(k) => write!(f, "({k}")?,
            Bound::Unbounded => write!(f, "(-inf")?,
        }
        match &self.end {
            Bound::Included(k) => write!(f, ", {k}]"),
            Bound::Excluded(k) => write!(f, ", {k})"),
            Bound::Unbounded => write!(f, ", +inf)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_sort_before_strings() {
        let mut keys = vec![RowKey::from("a"), RowKey::Int(7), RowKey::Int(-1)];
        keys.sort();
        assert_eq!(keys, vec![RowKey::Int(-1), RowKey::Int(7), RowKey::from("a")]);
    }

    #[test]
    fn range_contains_respects_bounds() {
        let r = KeyRange::new(RowKey::Int(1)..RowKey::Int(3));
        assert!(!r.contains(&RowKey::Int(0)));
        assert!(r.contains(&RowKey::Int(1)));
        assert!(r.contains(&RowKey::Int(2)));
        assert!(!r.contains(&RowKey::Int(3)));
        assert!(KeyRange::all().contains(&RowKey::from("z")));
        assert_eq!(r.to_string(), "[1, 3)");
    }
}
