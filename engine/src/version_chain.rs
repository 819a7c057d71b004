//! One key's versions: visibility, first-committer-wins, SIREAD locks and pruning.
//!
//! Owns: a key's committed versions (oldest first), the uncommitted versions of transactions writing it (at most one
//! each, like PostgreSQL's heap tuples with an in-progress xmin), and the SIREAD locks of serializable readers of
//! the key (Cahill et al. 2008 §3; kept past the reader's commit until `ssi.rs` releases it). Does not own the commit
//! protocol (`commit.rs`) or the conflict graph (`ssi.rs`). Each chain has its own mutex, so statements on different
//! keys never wait for each other; a critical section here is a few vector operations and never calls out.
//!
//! Visibility follows snapshot isolation (Berenson et al. 1995): a transaction sees its own uncommitted version if it
//! has one, else the newest version committed at or before its snapshot. A chain holds at most one uncommitted
//! version: the first updater wins and a second writer waits for it to end (`lock_wait.rs`), as PostgreSQL's second
//! writer of a row waits on the first's transaction lock, and then checks the key again.

use crate::defect::Defect;
use crate::error::Error;
use crate::key::RowKey;
use crate::lock_wait::TxnLock;
use crate::snapshot::EngineTxnId;
use crate::ssi::SxactShared;
use crate::sync::{Arc, Mutex, MutexGuard, lock};
use crate::value::Value;

/// A committed version; `value: None` is a deletion (tombstone).
#[derive(Debug, Clone)]
struct Committed {
    ts: u64,
    creator: EngineTxnId,
    serializable: bool,
    value: Option<Value>,
}

/// An uncommitted version, visible only to its creator (and to everyone under the `dirty-read` defect), with the
/// creator's lock for a later writer to wait on.
#[derive(Debug, Clone)]
struct Pending {
    lock: Arc<TxnLock>,
    serializable: bool,
    value: Option<Value>,
}

impl Pending {
    fn creator(&self) -> EngineTxnId {
        self.lock.id()
    }
}

/// Why a transaction may not write a key now.
#[derive(Debug)]
pub(crate) enum WriteBlock {
    /// Another running transaction holds an uncommitted version (first updater wins): wait on its lock until it
    /// ends, then check again.
    Uncommitted(Arc<TxnLock>),
    /// Another transaction committed a version after the writer's snapshot (first committer wins).
    CommittedAfterSnapshot(EngineTxnId),
}

/// A key's version chain behind its own lock.
#[derive(Debug, Default)]
pub(crate) struct Chain {
    state: Mutex<ChainState>,
}

impl Chain {
    /// Locks the chain for one short critical section.
    pub(crate) fn lock(&self) -> MutexGuard<'_, ChainState> {
        lock(&self.state)
    }
}

/// The contents of a [`Chain`].
#[derive(Debug, Default)]
pub(crate) struct ChainState {
    committed: Vec<Committed>,
    pending: Vec<Pending>,
    readers: Vec<Arc<SxactShared>>,
    /// The key was forgotten (`crate::Engine::forget`): no statement may use the chain any more.
    forgotten: bool,
}

impl ChainState {
    /// Fails if the chain's key was forgotten; every statement checks it after locking the chain, so that one that
    /// found the chain before it left the store still cannot use it (`store.rs`).
    pub(crate) fn check_live(&self, key: &RowKey) -> Result<(), Error> {
        match self.forgotten {
            true => Err(Error::ForgottenKey { key: key.clone() }),
            false => Ok(()),
        }
    }

    /// Marks the chain forgotten; returns whether it can be dropped now: no transaction holds an uncommitted
    /// version of it (one that does still commits or rolls back through the chain it holds).
    pub(crate) fn forget(&mut self) -> bool {
        self.forgotten = true;
        self.pending.is_empty()
    }

    /// The value `me` sees at `snapshot`; `None` when the key is absent or deleted.
    pub(crate) fn visible(&self, me: EngineTxnId, snapshot: u64, defect: Option<Defect>) -> Option<&Value> {
        if let Some(own) = self.pending.iter().find(|p| p.creator() == me) {
            return own.value.as_ref();
        }
        // The `dirty-read` defect: the visibility check also accepts another transaction's uncommitted version.
        if defect == Some(Defect::DirtyRead)
            && let Some(dirty) = self.pending.last()
        {
            return dirty.value.as_ref();
        }
        self.committed.iter().rev().find(|v| v.ts <= snapshot).and_then(|v| v.value.as_ref())
    }

    /// Serializable transactions other than `me` whose versions of this key `me` cannot see at `snapshot`: each is
    /// the target of an rw-antidependency from `me` once `me` reads the key (Cahill et al. 2008, the read side).
    pub(crate) fn invisible_writers(&self, me: EngineTxnId, snapshot: u64) -> Vec<EngineTxnId> {
        let uncommitted = self.pending.iter().filter(|p| p.creator() != me && p.serializable).map(|p| p.creator());
        let later = self.committed.iter().filter(|v| v.ts > snapshot && v.serializable).map(|v| v.creator);
        uncommitted.chain(later).collect()
    }

    /// The write-write conflict check, run before `me` writes the key: `me` must wait when another transaction
    /// holds an uncommitted version (first updater wins), and, above read committed, fails when another
    /// transaction committed a version after `me`'s `snapshot` (first committer wins), including one `me` waited
    /// for. Because of the first rule a chain holds at most one uncommitted version, so a commit never needs to
    /// re-check.
    pub(crate) fn write_conflict_check(
        &self,
        me: EngineTxnId,
        snapshot: Option<u64>,
        defect: Option<Defect>,
    ) -> Result<(), WriteBlock> {
        if let Some(other) = self.pending.iter().find(|p| p.creator() != me) {
            return Err(WriteBlock::Uncommitted(Arc::clone(&other.lock)));
        }
        // The `no-first-committer-wins` defect: the snapshot check is skipped, so a writer that waited for a
        // concurrent commit, or came after it, silently overwrites a version it never saw.
        if defect == Some(Defect::NoFirstCommitterWins) {
            return Ok(());
        }
        match (self.committed.last(), snapshot) {
            (Some(v), Some(snapshot)) if v.ts > snapshot && v.creator != me => {
                Err(WriteBlock::CommittedAfterSnapshot(v.creator))
            }
            _ => Ok(()),
        }
    }

    /// Sets the uncommitted version of `me` (the holder of the lock) to `value` (`None` deletes).
    pub(crate) fn put_pending(&mut self, me: &Arc<TxnLock>, serializable: bool, value: Option<Value>) {
        match self.pending.iter_mut().find(|p| p.creator() == me.id()) {
            Some(own) => own.value = value,
            None => self.pending.push(Pending { lock: Arc::clone(me), serializable, value }),
        }
    }

    /// Drops `me`'s uncommitted version (rollback).
    pub(crate) fn remove_pending(&mut self, me: EngineTxnId) {
        self.pending.retain(|p| p.creator() != me);
    }

    /// Turns `me`'s uncommitted version into the newest committed one, at `ts`. Commits are installed in timestamp
    /// order under the commit lock, so pushing keeps `committed` sorted.
    pub(crate) fn commit_pending(&mut self, me: EngineTxnId, ts: u64) {
        if let Some(at) = self.pending.iter().position(|p| p.creator() == me) {
            let p = self.pending.swap_remove(at);
            self.committed.push(Committed { ts, creator: p.creator(), serializable: p.serializable, value: p.value });
        }
    }

    /// Discards versions no live snapshot can see: everything older than the newest version committed at or
    /// before `horizon`, the oldest live snapshot.
    pub(crate) fn prune(&mut self, horizon: u64) {
        let keep_from = self.committed.iter().rposition(|v| v.ts <= horizon).unwrap_or(0);
        if keep_from > 0 {
            self.committed.drain(..keep_from);
        }
    }

    /// What a vacuum does to a chain no commit touches any more: prunes as a commit does (`prune`), drops
    /// the SIREAD locks of transactions SSI has released (as `add_reader` does), and gives back the room
    /// they took.
    pub(crate) fn vacuum(&mut self, horizon: u64) {
        self.prune(horizon);
        self.readers.retain(|r| !r.is_released());
        self.committed.shrink_to_fit();
        self.readers.shrink_to_fit();
    }

    /// Records a SIREAD lock for `reader`, dropping the locks of transactions SSI has released.
    pub(crate) fn add_reader(&mut self, reader: &Arc<SxactShared>) {
        self.readers.retain(|r| !r.is_released());
        if !self.readers.iter().any(|r| r.id == reader.id) {
            self.readers.push(Arc::clone(reader));
        }
    }

    /// The SIREAD lock holders other than `me` that were concurrent with a writer whose snapshot is `snapshot`:
    /// each is the source of an rw-antidependency into the writer (Cahill et al. 2008, the write side).
    pub(crate) fn concurrent_readers(&self, me: EngineTxnId, snapshot: u64) -> Vec<Arc<SxactShared>> {
        self.readers.iter().filter(|r| r.id != me && r.concurrent_with(snapshot)).cloned().collect()
    }

    /// How many versions, committed and uncommitted, the chain holds.
    pub(crate) fn version_count(&self) -> usize {
        self.committed.len() + self.pending.len()
    }

    /// How many SIREAD locks the chain holds (including released ones not yet dropped).
    pub(crate) fn reader_count(&self) -> usize {
        self.readers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T1: EngineTxnId = EngineTxnId(1);
    const T2: EngineTxnId = EngineTxnId(2);

    fn int(i: i64) -> Option<Value> {
        Some(Value::Int(i))
    }

    /// A chain with `me`'s uncommitted `value`.
    fn put(c: &mut ChainState, me: EngineTxnId, value: Option<Value>) {
        c.put_pending(&TxnLock::new(me), false, value);
    }

    /// What the write-write check tells `me`: `Ok`, the transaction to wait for, or the one that committed first.
    fn check(c: &ChainState, me: EngineTxnId, snapshot: Option<u64>, defect: Option<Defect>) -> Result<(), String> {
        c.write_conflict_check(me, snapshot, defect).map_err(|block| match block {
            WriteBlock::Uncommitted(holder) => format!("wait for {}", holder.id()),
            WriteBlock::CommittedAfterSnapshot(other) => format!("{other} committed first"),
        })
    }

    #[test]
    fn snapshot_sees_newest_version_at_or_before_it() {
        let mut c = ChainState::default();
        put(&mut c, T1, int(1));
        c.commit_pending(T1, 3);
        put(&mut c, T2, int(2));
        c.commit_pending(T2, 5);
        assert_eq!(c.visible(EngineTxnId(9), 2, None), None);
        assert_eq!(c.visible(EngineTxnId(9), 4, None), Some(&Value::Int(1)));
        assert_eq!(c.visible(EngineTxnId(9), 5, None), Some(&Value::Int(2)));
    }

    #[test]
    fn uncommitted_versions_are_private_unless_dirty_read_is_planted() {
        let mut c = ChainState::default();
        put(&mut c, T1, int(1));
        assert_eq!(c.visible(T1, 0, None), Some(&Value::Int(1)));
        assert_eq!(c.visible(T2, 0, None), None);
        assert_eq!(c.visible(T2, 0, Some(Defect::DirtyRead)), Some(&Value::Int(1)));
    }

    #[test]
    fn first_committer_wins_unless_planted_off() {
        let mut c = ChainState::default();
        put(&mut c, T1, int(1));
        c.commit_pending(T1, 4);
        assert_eq!(check(&c, T2, Some(3), None), Err("T1 committed first".into()));
        assert_eq!(check(&c, T2, Some(4), None), Ok(()));
        assert_eq!(check(&c, T2, None, None), Ok(()), "read committed has no snapshot to protect");
        assert_eq!(check(&c, T2, Some(3), Some(Defect::NoFirstCommitterWins)), Ok(()));
    }

    #[test]
    fn a_second_updater_waits_at_every_level_even_with_the_defect() {
        let mut c = ChainState::default();
        put(&mut c, T1, int(1));
        assert_eq!(check(&c, T1, None, None), Ok(()));
        for (snapshot, defect) in [(None, None), (Some(0), None), (Some(0), Some(Defect::NoFirstCommitterWins))] {
            assert_eq!(check(&c, T2, snapshot, defect), Err("wait for T1".into()), "{snapshot:?} {defect:?}");
        }
        c.remove_pending(T1);
        assert_eq!(check(&c, T2, Some(0), None), Ok(()), "a rolled-back first updater leaves the key free");
    }

    #[test]
    fn prune_keeps_what_the_horizon_can_see() {
        let mut c = ChainState::default();
        for ts in 1..=5 {
            put(&mut c, EngineTxnId(ts), int(ts as i64));
            c.commit_pending(EngineTxnId(ts), ts);
        }
        c.prune(3);
        assert_eq!(c.version_count(), 3);
        assert_eq!(c.visible(T1, 3, None), Some(&Value::Int(3)));
        c.prune(0);
        assert_eq!(c.version_count(), 3);
    }
}
