//! Commit and rollback.
//!
//! Owns: the commit protocol. Under the commit lock, and only for transactions that wrote something or are
//! serializable: take the next timestamp, run the SSI check (`ssi.rs`), turn each uncommitted version into a
//! committed one (pruning what no snapshot can see any more), and only then publish the timestamp, so a snapshot
//! sees all of a commit or none of it. Write-write conflicts need no re-check here: the first-updater-wins rule in
//! `version_chain.rs` already allows only one uncommitted version per key. Once its versions are installed (or, on
//! rollback, removed), outside the commit lock, the transaction's own lock is released, waking the writers waiting
//! for it (`lock_wait.rs`); they then find each key as this transaction left it. Does not own statements
//! (`txn.rs`) or the bookkeeping after a transaction ends (`EngineInner::end_txn`). The protocol is timestamp-ordered
//! snapshot isolation (Berenson et al. 1995) with SSI's pre-commit check (Ports & Grittner 2012 §5).

use crate::defect::Defect;
use crate::engine::EngineInner;
use crate::error::{Error, Result};
use crate::lock_wait::Fate;
use crate::sync::{lock, yield_now};
use crate::txn::Txn;

impl EngineInner {
    /// Commits `txn`, returning the timestamp it committed at if it took one (it wrote, or it is serializable).
    /// Timestamps are taken under the commit lock, one past the last, so they are the commit order, and each
    /// key's versions are installed in it. On an error nothing was installed, and the caller rolls the transaction
    /// back.
    pub(crate) fn commit(&self, txn: &Txn) -> Result<Option<u64>> {
        txn.check_doomed(self)?;
        let mut committed_at = None;
        if !txn.writes().is_empty() || txn.is_serializable() {
            let _commit = lock(&self.commit_lock);
            // Only commit-lock holders advance the watermark, so the next timestamp is one past it.
            let ts = self.clock.latest() + 1;
            if txn.is_serializable() {
                self.ssi
                    .pre_commit(txn.id(), txn.writes().is_empty(), ts)
                    .map_err(|conflict| Error::SerializationFailure { conflict })?;
            }
            self.install(txn, ts);
            committed_at = Some(ts);
        }
        txn.release_lock(Fate::Committed);
        // Keys no commit writes any more are pruned by a vacuum now and then, by the committer whose
        // timestamp comes up (outside the commit lock: other commits go on meanwhile).
        if committed_at.is_some_and(|ts| ts % crate::engine::VACUUM_EVERY == 0) {
            self.vacuum();
        }
        Ok(committed_at)
    }

    /// Makes `txn`'s writes the committed versions at `ts`, then publishes `ts`.
    fn install(&self, txn: &Txn, ts: u64) {
        let non_atomic = self.defect() == Some(Defect::NonAtomicCommit);
        // The `non-atomic-commit` defect: the timestamp is published before the writes are installed, so a snapshot
        // taken meanwhile sees the versions installed so far and not the rest.
        if non_atomic {
            self.clock.publish(ts);
        }
        let horizon = self.clock.horizon();
        for (key, chain) in txn.writes() {
            {
                let mut c = chain.lock();
                c.commit_pending(txn.id(), ts);
                c.prune(horizon);
            }
            if let Some(hook) = &self.config.install_hook {
                hook(key);
            }
            if non_atomic {
                // Widens the window the defect opens, so that concurrent workloads (not only the hook) see it.
                yield_now();
            }
        }
        self.clock.publish(ts);
    }

    /// Discards `txn`'s uncommitted versions and its SSI state, and wakes the writers waiting for it.
    pub(crate) fn rollback(&self, txn: &Txn) {
        for chain in txn.writes().values() {
            chain.lock().remove_pending(txn.id());
        }
        txn.release_lock(Fate::RolledBack);
        if txn.is_serializable() {
            self.ssi.release(txn.id());
        }
    }
}
