//! The lists a history's reads of each key returned, kept as prefixes of one growing run per key rather
//! than each as a copy of its own. In a list-append history a key's list only lengthens, and each read
//! of it returns the whole list as it then was: stored as copies, the reads of a key hold about the
//! square of its length, the text of the history kept again (at 100k generated transactions, 2.0M
//! elements in 123k reads of 3,851 keys). Kept here, a read that repeats a prefix of what an earlier read
//! of its key returned shares that read's storage, and one that extends it adds only its new elements
//! (0.28M elements' room for the same reads), so the lists take memory in proportion to the keys'
//! lengths and the reads' count, not to the text. Which read comes first does not matter: a shorter one
//! read after a longer one is a prefix of it, and a longer one read later extends it. A read that is
//! neither (two reads that disagree, as in an anomaly) is left to its reader to copy. The lists are the
//! same values either way; only where their elements lie differs. This module owns that choice; the
//! storage and its invariant are `crate::shared_slice`'s, and what a list means is the checker's.

use std::hash::BuildHasher;
use std::sync::{Mutex, PoisonError};

use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::key::Key;
use crate::shared_slice::{GrowingRun, SharedSlice};

/// How many parts the keys are split into, each behind a lock of its own: enough that the threads of a
/// reading seldom wait for each other.
const SHARDS: usize = 64;

/// The lists of one reading's reads, shared by the threads that read its pieces.
pub(crate) struct ReadLists {
    /// Each key's longest list so far, in the part its hash picks.
    shards: Box<[Shard]>,
}

/// One part of the keys, alone on its cache lines, so that threads taking the locks of two parts do not
/// take each other's lines from each other.
#[derive(Default)]
#[repr(align(128))]
struct Shard(Mutex<FxHashMap<Key, GrowingRun<i64>>>);

impl Default for ReadLists {
    fn default() -> ReadLists {
        ReadLists { shards: (0..SHARDS).map(|_| Shard::default()).collect() }
    }
}

impl ReadLists {
    /// `list`, read from `key`, as a slice of the key's run: a prefix of it, or the run extended by the
    /// rest of the list when the run is a prefix of the list (a new run for a key not read before);
    /// `None` when it is neither, or holds more than [`SharedSlice::MAX_LEN`] items.
    pub(crate) fn keep(&self, key: &Key, list: &[i64]) -> Option<SharedSlice<i64>> {
        if list.is_empty() {
            return Some(SharedSlice::new());
        }
        let shard = FxBuildHasher.hash_one(key) as usize % SHARDS;
        // A panic while the lock is held leaves a run as it was or extended whole, either a run.
        let mut runs = self.shards[shard].0.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(run) = runs.get_mut(key) else {
            let run = GrowingRun::new(list)?;
            let kept = run.prefix(list.len());
            runs.insert(key.clone(), run);
            return Some(kept);
        };
        let held = run.as_slice();
        let shared = match held.len() >= list.len() {
            true => held[..list.len()] == *list,
            false => list[..held.len()] == *held && run.extend(&list[held.len()..]),
        };
        shared.then(|| run.prefix(list.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_that_repeat_or_extend_a_keys_list_share_its_storage_and_others_do_not() {
        let lists = ReadLists::default();
        let (k, j) = (Key::Int(1), Key::Str("j".into()));
        let first = lists.keep(&k, &[1, 2]).unwrap();
        let longer = lists.keep(&k, &[1, 2, 3]).unwrap();
        let stale = lists.keep(&k, &[1]).unwrap();
        let other_key = lists.keep(&j, &[1, 2, 3, 4]).unwrap();
        let after = lists.keep(&k, &[1, 2, 3, 4]).unwrap();
        assert_eq!(first.as_slice(), [1, 2]);
        assert_eq!(longer.as_slice(), [1, 2, 3]);
        assert_eq!(stale.as_slice(), [1]);
        assert_eq!(other_key.as_slice(), [1, 2, 3, 4]);
        assert_eq!(after.as_slice(), [1, 2, 3, 4]);
        // One run holds k's lists, from one start; j's lie elsewhere.
        let start = |s: &SharedSlice<i64>| s.as_ptr();
        assert_eq!(start(&first), start(&longer));
        assert_eq!(start(&first), start(&stale));
        assert_eq!(start(&first), start(&after));
        assert_ne!(start(&first), start(&other_key));
        // Reads that disagree with the run are the reader's to copy, and leave the run as it was.
        assert_eq!(lists.keep(&k, &[1, 3]), None);
        assert_eq!(lists.keep(&k, &[1, 2, 3, 4, 6, 7]).unwrap().as_slice(), [1, 2, 3, 4, 6, 7]);
        assert_eq!(lists.keep(&k, &[2, 2, 3, 4, 6, 7, 8]), None);
        assert!(lists.keep(&k, &[]).unwrap().is_empty());
    }

    #[test]
    fn reads_of_a_key_share_its_run_whichever_thread_keeps_them() {
        let lists = ReadLists::default();
        let whole: Vec<i64> = (0..200).collect();
        let kept: Vec<Vec<SharedSlice<i64>>> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4)
                .map(|t| {
                    let (lists, whole) = (&lists, &whole);
                    scope.spawn(move || {
                        (1..=whole.len())
                            .rev()
                            .skip(t)
                            .step_by(4)
                            .map(|n| lists.keep(&Key::Int(7), &whole[..n]).unwrap())
                            .collect()
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let mut lens: Vec<usize> = kept.iter().flatten().map(|s| s.len()).collect();
        lens.sort_unstable();
        assert_eq!(lens, (1..=200).collect::<Vec<_>>());
        for slice in kept.iter().flatten() {
            assert_eq!(slice.as_slice(), &whole[..slice.len()]);
        }
    }
}
