//! Transaction ids, commit timestamps, snapshots and the garbage-collection horizon.
//!
//! Owns: the logical clock. A commit gets the next timestamp under the commit lock and *publishes* it (the
//! watermark) only after all its versions are installed; a snapshot is simply the published watermark, so it sees
//! every write of every commit at or below it and nothing of any later one. Also owns the set of active snapshots,
//! whose minimum is the horizon below which old versions can be discarded. Does not own versions (`version_chain.rs`)
//! or the commit protocol (`commit.rs`). The scheme is the usual timestamp-based MVCC of Berenson et al. 1995's
//! snapshot isolation; taking a snapshot is one atomic load plus a short registration, so `begin` never waits for
//! another transaction.

use std::collections::BTreeMap;
use std::fmt;

use crate::sync::{AtomicU64, Mutex, Ordering, lock};

/// A transaction's identity, unique within one engine; printed `T7`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EngineTxnId(pub u64);

impl fmt::Display for EngineTxnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "T{}", self.0)
    }
}

/// The engine's logical clock and registry of active snapshots.
#[derive(Debug, Default)]
pub(crate) struct Clock {
    /// The newest published commit timestamp. Only a holder of the commit lock advances it.
    watermark: AtomicU64,
    next_txn: AtomicU64,
    /// Snapshot timestamp → how many live transactions hold it. Registration happens under this lock together with
    /// reading the watermark, so the horizon computed from it can never pass a snapshot that is being taken.
    active: Mutex<BTreeMap<u64, usize>>,
    /// The oldest snapshot any live transaction may still read at. It may lag (keeping versions longer than needed)
    /// but never leads.
    horizon: AtomicU64,
}

impl Clock {
    /// A fresh transaction id.
    pub(crate) fn next_txn_id(&self) -> EngineTxnId {
        EngineTxnId(self.next_txn.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Takes and registers a snapshot: the newest published commit timestamp.
    pub(crate) fn take_snapshot(&self) -> u64 {
        let mut active = lock(&self.active);
        let snapshot = self.watermark.load(Ordering::Acquire);
        *active.entry(snapshot).or_insert(0) += 1;
        snapshot
    }

    /// Unregisters a snapshot taken by [`Clock::take_snapshot`] and recomputes the horizon.
    pub(crate) fn release_snapshot(&self, snapshot: u64) {
        let mut active = lock(&self.active);
        if let Some(count) = active.get_mut(&snapshot) {
            *count -= 1;
            if *count == 0 {
                active.remove(&snapshot);
            }
        }
        let horizon = active.keys().next().copied().unwrap_or_else(|| self.watermark.load(Ordering::Acquire));
        self.horizon.store(horizon, Ordering::Release);
    }

    /// The newest published commit timestamp: a read-committed statement's snapshot.
    pub(crate) fn latest(&self) -> u64 {
        self.watermark.load(Ordering::Acquire)
    }

    /// Makes every commit up to `ts` visible to snapshots taken from now on.
    pub(crate) fn publish(&self, ts: u64) {
        self.watermark.fetch_max(ts, Ordering::AcqRel);
    }

    /// Versions superseded at or before this timestamp are invisible to every live snapshot.
    pub(crate) fn horizon(&self) -> u64 {
        self.horizon.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn horizon_is_the_oldest_live_snapshot() {
        let clock = Clock::default();
        let old = clock.take_snapshot();
        clock.publish(5);
        let newer = clock.take_snapshot();
        assert_eq!((old, newer), (0, 5));
        clock.release_snapshot(newer);
        assert_eq!(clock.horizon(), 0);
        clock.release_snapshot(old);
        assert_eq!(clock.horizon(), 5);
    }
}
