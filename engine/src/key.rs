//! Keys and key ranges.
//!
//! Owns: the [`Key`] type (integer or string, ordered integers first) and [`KeyRange`], the half-open or closed
//! interval a scan reads and a predicate SIREAD lock covers. Does not own: where keys live (`store.rs`) or how a range
//! lock turns into an rw-antidependency (`ssi.rs`). Keys are integers or strings because the histories isocheck checks
//! (after Elle's) use both.

use std::fmt;
use std::ops::{Bound, RangeBounds};

/// A key: an integer or a string. All integer keys sort before all string keys.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// An integer key, as in Elle's list-append and rw-register workloads.
    Int(i64),
    /// A string key, as in YCSB's `user1234`.
    Str(String),
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Int(i) => write!(f, "{i}"),
            Key::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for Key {
    fn from(i: i64) -> Key {
        Key::Int(i)
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key::Str(s.to_owned())
    }
}

impl From<String> for Key {
    fn from(s: String) -> Key {
        Key::Str(s)
    }
}

/// A range of keys, owned so it can be stored as a predicate lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    start: Bound<Key>,
    end: Bound<Key>,
}

impl KeyRange {
    /// Every key.
    pub fn all() -> KeyRange {
        KeyRange { start: Bound::Unbounded, end: Bound::Unbounded }
    }

    /// The keys within `bounds`, e.g. `KeyRange::new(Key::Int(1)..Key::Int(5))` or `KeyRange::new(..)`.
    pub fn new(bounds: impl RangeBounds<Key>) -> KeyRange {
        KeyRange { start: bounds.start_bound().cloned(), end: bounds.end_bound().cloned() }
    }

    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &Key) -> bool {
        RangeBounds::contains(self, key)
    }
}

impl RangeBounds<Key> for KeyRange {
    fn start_bound(&self) -> Bound<&Key> {
        self.start.as_ref()
    }

    fn end_bound(&self) -> Bound<&Key> {
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
        let mut keys = vec![Key::from("a"), Key::Int(7), Key::Int(-1)];
        keys.sort();
        assert_eq!(keys, vec![Key::Int(-1), Key::Int(7), Key::from("a")]);
    }

    #[test]
    fn range_contains_respects_bounds() {
        let r = KeyRange::new(Key::Int(1)..Key::Int(3));
        assert!(!r.contains(&Key::Int(0)));
        assert!(r.contains(&Key::Int(1)));
        assert!(r.contains(&Key::Int(2)));
        assert!(!r.contains(&Key::Int(3)));
        assert!(KeyRange::all().contains(&Key::from("z")));
        assert_eq!(r.to_string(), "[1, 3)");
    }
}
