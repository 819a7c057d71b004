//! The keys the engine was told it will never be asked about again ([`crate::Engine::forget`]), kept so
//! that naming one afterwards fails ([`crate::Error::ForgottenKey`]) instead of reading empty.
//!
//! Owns: the set and its compact form. Does not own dropping a key's chain (`engine.rs`, `store.rs`) or
//! the check that a statement names no forgotten key (`store.rs`, `txn.rs`). The workloads that forget
//! keys rotate through fresh ones numbered in order (Elle's list-append: `1`, `2`, ..., which the adapter
//! stores as `list:1`, `list:2`, ...), so the set is kept as runs of consecutive numbers per *family*:
//! integer keys form one family, and a string key that ends in a number in canonical decimal form
//! (`list:17`, not `list:017`) belongs to the family of the text before the number. Runs merge as the gaps
//! between them are forgotten too, so the set takes room in proportion to the keys still live between
//! forgotten ones, not to every key ever forgotten. Any other string is kept as it is.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use crate::key::{KeyRange, RowKey};

/// Where a key sits in the compact set: a number within a family, or a string kept whole.
#[derive(Debug, PartialEq, Eq)]
enum Place<'k> {
    /// An integer key, or a string key `prefix` followed by the number's canonical decimal form.
    Numbered(Family<'k>, i64),
    /// A string key with no canonical number at its end.
    Whole(&'k str),
}

/// A family of numbered keys.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Family<'k> {
    Int,
    Prefix(&'k str),
}

fn place(key: &RowKey) -> Place<'_> {
    match key {
        RowKey::Int(i) => Place::Numbered(Family::Int, *i),
        RowKey::Str(s) => {
            let digits = s.bytes().rev().take_while(u8::is_ascii_digit).count();
            let mut start = s.len() - digits;
            if digits > 0 && s[..start].ends_with('-') {
                start -= 1;
            }
            // Only the canonical form, so that each (family, number) stands for exactly one string.
            match s[start..].parse::<i64>() {
                Ok(n) if digits > 0 && n.to_string() == s[start..] => Place::Numbered(Family::Prefix(&s[..start]), n),
                _ => Place::Whole(s),
            }
        }
    }
}

/// The forgotten keys.
#[derive(Debug, Default)]
pub(crate) struct Forgotten {
    /// Integer keys: runs of consecutive numbers, first to last (inclusive), disjoint and never adjacent.
    ints: Runs,
    /// Numbered string keys, per prefix.
    prefixed: BTreeMap<String, Runs>,
    /// Every other string key.
    whole: BTreeSet<String>,
    /// Keys forgotten, each counted once.
    count: u64,
}

impl Forgotten {
    /// Whether `key` was forgotten.
    pub(crate) fn contains(&self, key: &RowKey) -> bool {
        match place(key) {
            Place::Numbered(Family::Int, n) => self.ints.contains(n),
            Place::Numbered(Family::Prefix(p), n) => self.prefixed.get(p).is_some_and(|runs| runs.contains(n)),
            Place::Whole(s) => self.whole.contains(s),
        }
    }

    /// Adds `key`; returns whether it was not forgotten before.
    pub(crate) fn insert(&mut self, key: &RowKey) -> bool {
        let new = match place(key) {
            Place::Numbered(Family::Int, n) => self.ints.insert(n),
            Place::Numbered(Family::Prefix(p), n) => match self.prefixed.get_mut(p) {
                Some(runs) => runs.insert(n),
                None => self.prefixed.entry(p.to_owned()).or_default().insert(n),
            },
            Place::Whole(s) => self.whole.insert(s.to_owned()),
        };
        self.count += u64::from(new);
        new
    }

    /// Whether some forgotten key lies in `range`. Exact for integer keys and whole strings; a numbered
    /// string key is tested against the range one by one (the workloads that forget keys scan none).
    pub(crate) fn intersects(&self, range: &KeyRange) -> bool {
        if self.ints.intersects(range) || self.whole.iter().any(|s| range.contains(&RowKey::Str(s.clone()))) {
            return true;
        }
        self.prefixed.iter().any(|(prefix, runs)| {
            runs.0
                .iter()
                .any(|(&first, &last)| (first..=last).any(|n| range.contains(&RowKey::Str(format!("{prefix}{n}")))))
        })
    }

    /// Keys forgotten so far.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// Entries the set holds (runs and whole strings): its size in memory.
    pub(crate) fn entries(&self) -> usize {
        self.ints.0.len() + self.prefixed.values().map(|r| r.0.len()).sum::<usize>() + self.whole.len()
    }
}

/// Runs of consecutive numbers: first to last, inclusive, disjoint and never adjacent.
#[derive(Debug, Default)]
struct Runs(BTreeMap<i64, i64>);

impl Runs {
    /// The run holding `n`, if any.
    fn run_of(&self, n: i64) -> Option<(i64, i64)> {
        self.0.range(..=n).next_back().filter(|&(_, &last)| last >= n).map(|(&first, &last)| (first, last))
    }

    fn contains(&self, n: i64) -> bool {
        self.run_of(n).is_some()
    }

    /// Adds `n`, merging it with the runs it touches; returns whether it was absent.
    fn insert(&mut self, n: i64) -> bool {
        if self.contains(n) {
            return false;
        }
        let mut first = n;
        let mut last = n;
        if let Some(below) = n.checked_sub(1)
            && let Some((f, _)) = self.run_of(below)
        {
            self.0.remove(&f);
            first = f;
        }
        if let Some(above) = n.checked_add(1)
            && let Some(l) = self.0.remove(&above)
        {
            last = l;
        }
        self.0.insert(first, last);
        true
    }

    /// Whether a run meets the integer keys of `range` (every integer sorts before every string).
    fn intersects(&self, range: &KeyRange) -> bool {
        use std::ops::RangeBounds;
        let low = match range.start_bound() {
            Bound::Unbounded => Some(i64::MIN),
            Bound::Included(RowKey::Int(a)) => Some(*a),
            Bound::Excluded(RowKey::Int(a)) => a.checked_add(1),
            // A range that starts at a string holds no integer.
            Bound::Included(RowKey::Str(_)) | Bound::Excluded(RowKey::Str(_)) => None,
        };
        let high = match range.end_bound() {
            Bound::Unbounded | Bound::Included(RowKey::Str(_)) | Bound::Excluded(RowKey::Str(_)) => Some(i64::MAX),
            Bound::Included(RowKey::Int(b)) => Some(*b),
            Bound::Excluded(RowKey::Int(b)) => b.checked_sub(1),
        };
        match (low, high) {
            // The last run starting at or before `high` is the one reaching furthest there.
            (Some(low), Some(high)) if low <= high => {
                self.0.range(..=high).next_back().is_some_and(|(_, &last)| last >= low)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: i64) -> RowKey {
        RowKey::Str(format!("list:{n}"))
    }

    #[test]
    fn a_string_ending_in_a_canonical_number_is_numbered_and_any_other_is_whole() {
        assert_eq!(place(&list(17)), Place::Numbered(Family::Prefix("list:"), 17));
        assert_eq!(place(&RowKey::from("a-5")), Place::Numbered(Family::Prefix("a"), -5));
        assert_eq!(place(&RowKey::from("7")), Place::Numbered(Family::Prefix(""), 7));
        assert_eq!(place(&RowKey::from("list:017")), Place::Whole("list:017"));
        assert_eq!(place(&RowKey::from("list:-0")), Place::Whole("list:-0"));
        assert_eq!(place(&RowKey::from("x99999999999999999999")), Place::Whole("x99999999999999999999"));
        assert_eq!(place(&RowKey::from("list:")), Place::Whole("list:"));
        assert_eq!(place(&RowKey::Int(-3)), Place::Numbered(Family::Int, -3));
    }

    #[test]
    fn runs_merge_as_their_gaps_are_forgotten() {
        let mut f = Forgotten::default();
        for n in [1, 3, 5, 2] {
            assert!(f.insert(&list(n)));
        }
        assert!(!f.insert(&list(2)), "forgotten once");
        assert_eq!((f.count(), f.entries()), (4, 2), "runs 1-3 and 5");
        assert!(f.insert(&list(4)));
        assert_eq!((f.count(), f.entries()), (5, 1), "one run 1-5");
        assert!((1..=5).all(|n| f.contains(&list(n))));
        assert!(!f.contains(&list(0)) && !f.contains(&list(6)));
        assert!(!f.contains(&RowKey::Int(3)) && !f.contains(&RowKey::from("other:3")), "another family");
        assert!(f.insert(&RowKey::from("list:03")));
        assert!(f.contains(&RowKey::from("list:03")) && f.entries() == 2);
    }

    #[test]
    fn integer_runs_reach_the_ends_of_the_numbers() {
        let mut f = Forgotten::default();
        for n in [i64::MAX, i64::MIN, i64::MAX - 1] {
            f.insert(&RowKey::Int(n));
        }
        assert_eq!(f.entries(), 2);
        assert!(f.contains(&RowKey::Int(i64::MAX - 1)) && !f.contains(&RowKey::Int(0)));
    }

    #[test]
    fn a_range_meets_the_forgotten_keys_it_holds() {
        let mut f = Forgotten::default();
        for n in [10, 11, 12] {
            f.insert(&RowKey::Int(n));
        }
        f.insert(&list(4));
        let range = |a: i64, b: i64| KeyRange::new(RowKey::Int(a)..RowKey::Int(b));
        assert!(f.intersects(&range(12, 20)));
        assert!(!f.intersects(&range(13, 20)));
        assert!(!f.intersects(&range(0, 10)), "the end is excluded");
        assert!(f.intersects(&KeyRange::new(RowKey::Int(0)..=RowKey::Int(10))));
        assert!(!f.intersects(&range(5, 3)), "an empty range");
        assert!(f.intersects(&KeyRange::new(RowKey::from("list:")..RowKey::from("list;"))));
        assert!(!f.intersects(&KeyRange::new(RowKey::from("list:5")..)));
        assert!(f.intersects(&KeyRange::all()));
    }
}
