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
//! same values either way; only where their elements lie differs.
//!
//! Finding a key's run costs a few cache misses (the keys of a large history are met in no order a cache
//! can follow), more than copying a short list into the reader's block: at 1M generated transactions
//! (308 MB of text, lists of 16 elements on average) sharing every list took the check from 0.93 s to
//! 1.14 s (medians of ten alternating runs) for 135 MiB less memory. So a reading shares only long lists
//! ([`LONG`] elements or more) until it has read [`EVERY_PAST`] bytes of text, the size past which the
//! memory is worth more than the time (at 10M transactions, 3.2 GB, sharing every list took the peak
//! from 7.27 GiB to 6.19 GiB and left the time as it was), and every list after. This module owns that
//! choice; the storage and its invariant are `crate::shared_slice`'s, and what a list means is the
//! checker's.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::key::Key;
use crate::shared_slice::{GrowingRun, SharedSlice};

/// How many parts the keys are split into, each behind a lock of its own: enough that the threads of a
/// reading seldom wait for each other.
const SHARDS: usize = 64;

/// The fewest elements of a list shared from a reading's start.
pub(crate) const LONG: usize = 32;

/// The bytes of text after which a reading shares every list.
pub(crate) const EVERY_PAST: u64 = 512 << 20;

/// The lists of one reading's reads, shared by the threads that read its pieces.
pub(crate) struct ReadLists {
    /// Each key's longest list so far, in the part its hash picks.
    shards: Box<[Shard]>,
    /// The bytes of text after which every list is shared.
    every_past: u64,
    /// Whether the reading is past them.
    every: AtomicBool,
}

/// One part of the keys, alone on its cache lines, so that threads taking the locks of two parts do not
/// take each other's lines from each other.
#[derive(Default)]
#[repr(align(128))]
struct Shard(Mutex<FxHashMap<Key, GrowingRun<i64>>>);

impl ReadLists {
    /// The lists of a reading that shares every list once it has read `every_past` bytes (see
    /// [`ReadLists::passed`]), and long ones from its start.
    pub(crate) fn sharing_every_past(every_past: u64) -> ReadLists {
        let shards = (0..SHARDS).map(|_| Shard::default()).collect();
        ReadLists { shards, every_past, every: AtomicBool::new(every_past == 0) }
    }

    /// The lists of a reading of a stream, which says how far it is (see [`ReadLists::passed`]).
    pub(crate) fn for_stream() -> ReadLists {
        ReadLists::sharing_every_past(EVERY_PAST)
    }

    /// The lists of a reading of a whole text of `len` bytes: every list shared if it is past the size.
    pub(crate) fn for_text(len: usize) -> ReadLists {
        let lists = ReadLists::for_stream();
        lists.passed(len as u64);
        lists
    }

    /// Notes that the reading has read `offset` bytes of its text (or is about to read past them).
    pub(crate) fn passed(&self, offset: u64) {
        if offset >= self.every_past {
            self.every.store(true, Ordering::Relaxed);
        }
    }

    /// `list`, read from `key`, as a slice of the key's run: a prefix of it, or the run extended by the
    /// rest of the list when the run is a prefix of the list (a new run for a key not read before);
    /// `None`, for the reader to copy, when it is neither, or a short list before the reading shares
    /// every list, or holds more than [`SharedSlice::MAX_LEN`] items.
    pub(crate) fn keep(&self, key: &Key, list: &[i64]) -> Option<SharedSlice<i64>> {
        if list.is_empty() {
            return Some(SharedSlice::new());
        }
        if list.len() < LONG && !self.every.load(Ordering::Relaxed) {
            return None;
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
        let lists = ReadLists::sharing_every_past(0);
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
    fn short_lists_are_shared_once_the_reading_is_past_the_size_and_long_ones_from_the_start() {
        let lists = ReadLists::sharing_every_past(1000);
        let (k, j) = (Key::Int(1), Key::Int(2));
        let long: Vec<i64> = (0..LONG as i64).collect();
        assert_eq!(lists.keep(&k, &long[..LONG - 1]), None);
        let kept = lists.keep(&j, &long).unwrap();
        assert_eq!(kept.as_slice(), long);
        lists.passed(999);
        assert_eq!(lists.keep(&k, &long[..LONG - 1]), None);
        lists.passed(1000);
        assert_eq!(lists.keep(&k, &long[..LONG - 1]).unwrap().as_slice(), &long[..LONG - 1]);
        let short = lists.keep(&j, &long[..1]).unwrap();
        assert_eq!(short.as_ptr(), kept.as_ptr());
        assert!(ReadLists::for_text(EVERY_PAST as usize).keep(&k, &[1]).is_some());
        assert_eq!(ReadLists::for_text(EVERY_PAST as usize - 1).keep(&k, &[1]), None);
    }

    #[test]
    fn reads_of_a_key_share_its_run_whichever_thread_keeps_them() {
        let lists = ReadLists::sharing_every_past(0);
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
