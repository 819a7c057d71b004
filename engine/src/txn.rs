//! One transaction's statements: reads, writes, appends, inserts, deletes, predicate reads, deletes and updates.
//!
//! Owns: [`Txn`], a running transaction's private state (its id, level, snapshot, SSI handle, lock and write set),
//! its begin and end on the engine's shared state (`EngineInner::begin_txn`, `end_txn`), and how each statement reads and writes chains, waits for a concurrent writer of the same key, and reports
//! rw-antidependencies to SSI. Does not own commit or rollback (`commit.rs`), the session state machine
//! (`session.rs`) or how a wait blocks (`lock_wait.rs`). Each statement locks one chain at a time, never waits while
//! holding one, and reports conflicts to SSI only after releasing it, so statements on different keys never wait
//! for each other. Semantics follow Berenson et al. 1995 for the levels and Cahill et al. 2008 for which reads take
//! SIREAD locks: point reads, and scans (a predicate lock on the scanned range, so a later insert into the range is
//! caught).
//!
//! A write to a key with another transaction's uncommitted version waits for that transaction to end, then checks
//! the key again, as PostgreSQL's `UPDATE` does: at read committed it then acts on the newest committed version (an
//! append extends it, an insert finds it present or absent, a delete or predicate statement re-evaluates its
//! condition on it, PostgreSQL's EvalPlanQual recheck); above read committed a commit of the key after the snapshot
//! fails it with [`Error::WriteConflict`], while a rollback lets it proceed.

use std::collections::BTreeMap;

use crate::defect::Defect;
use crate::engine::EngineInner;
use crate::error::{Error, Result, Via};
use crate::isolation::Isolation;
use crate::key::{KeyRange, RowKey};
use crate::lock_wait::{Fate, Interrupt, TxnLock};
use crate::snapshot::EngineTxnId;
use crate::ssi::SxactShared;
use crate::sync::Arc;
use crate::value::{RowPredicate, Value};
use crate::version_chain::{Chain, ChainState, WriteBlock};

/// What a write statement does to one key, decided under the chain's lock from the version it replaces.
enum Change {
    /// Install this value as the transaction's uncommitted version (`None` deletes the key).
    Set(Option<Value>),
    /// Leave the key alone: the row no longer satisfies the statement's condition (read committed's recheck).
    Skip,
}

/// A running transaction.
#[derive(Debug)]
pub(crate) struct Txn {
    id: EngineTxnId,
    isolation: Isolation,
    snapshot: u64,
    sxact: Option<Arc<SxactShared>>,
    /// Taken at the first write and released when the transaction ends; later writers of its keys wait on it.
    lock: Option<Arc<TxnLock>>,
    /// The session's kill flag, which wakes a waiting statement.
    interrupt: Arc<Interrupt>,
    /// Every key written, with its chain, so commit and rollback need no lookups.
    writes: BTreeMap<RowKey, Arc<Chain>>,
}

/// A transaction's begin and end, on the engine's shared state.
impl EngineInner {
    /// Starts a transaction: a registered snapshot, and SSI tracking at serializable. Never waits for another
    /// transaction, except under the `global-lock` defect. `interrupt` is the session's, so a kill reaches the
    /// transaction's waits.
    pub(crate) fn begin_txn(&self, isolation: Isolation, interrupt: Arc<Interrupt>) -> Result<Txn> {
        // The `global-lock` defect: one lock held from begin to commit or rollback (released in `end_txn`), the MVCC
        // layer on a global mutex that isocheck's overlap test exists to catch.
        if self.defect() == Some(Defect::GlobalLock) {
            self.gate.acquire(self.config.lock_timeout)?;
        }
        let id = self.clock.next_txn_id();
        let snapshot = self.clock.take_snapshot();
        let sxact = (isolation == Isolation::Serializable).then(|| self.ssi.begin(id, snapshot));
        Ok(Txn::new(id, isolation, snapshot, sxact, interrupt))
    }

    /// Releases what a finished transaction held once it has committed or been rolled back.
    pub(crate) fn end_txn(&self, txn: &Txn) {
        self.clock.release_snapshot(txn.snapshot());
        if txn.is_serializable() {
            self.ssi.cleanup(self.clock.horizon());
        }
        if self.defect() == Some(Defect::GlobalLock) {
            self.gate.release();
        }
    }
}

impl Txn {
    pub(crate) fn new(
        id: EngineTxnId,
        isolation: Isolation,
        snapshot: u64,
        sxact: Option<Arc<SxactShared>>,
        interrupt: Arc<Interrupt>,
    ) -> Txn {
        Txn { id, isolation, snapshot, sxact, lock: None, interrupt, writes: BTreeMap::new() }
    }

    pub(crate) fn id(&self) -> EngineTxnId {
        self.id
    }

    pub(crate) fn snapshot(&self) -> u64 {
        self.snapshot
    }

    pub(crate) fn is_serializable(&self) -> bool {
        self.sxact.is_some()
    }

    pub(crate) fn writes(&self) -> &BTreeMap<RowKey, Arc<Chain>> {
        &self.writes
    }

    /// Ends the transaction for its waiters, once its versions are installed (`Committed`) or removed.
    pub(crate) fn release_lock(&self, fate: Fate) {
        if let Some(lock) = &self.lock {
            lock.release(fate);
        }
    }

    /// The snapshot a statement reads at: the transaction's own, or under read committed the latest commit.
    fn statement_snapshot(&self, eng: &EngineInner) -> u64 {
        match self.isolation {
            Isolation::ReadCommitted => eng.clock.latest(),
            Isolation::SnapshotIsolation | Isolation::Serializable => self.snapshot,
        }
    }

    /// The snapshot a read-modify-write statement (append, insert) reads its base at, under the chain's lock. Under
    /// read committed that is the newest committed version, even one whose commit is still being published: like
    /// PostgreSQL's update of the newest row version, and unlike the statement snapshot, which may predate a commit
    /// that finished installing before we took the chain lock and so would lose its write.
    fn write_base_snapshot(&self) -> u64 {
        match self.isolation {
            Isolation::ReadCommitted => u64::MAX,
            Isolation::SnapshotIsolation | Isolation::Serializable => self.snapshot,
        }
    }

    /// Fails if another commit doomed this transaction as the pivot of a dangerous structure.
    pub(crate) fn check_doomed(&self, eng: &EngineInner) -> Result<()> {
        match &self.sxact {
            Some(sx) if sx.is_doomed() => match eng.ssi.doom_of(self.id) {
                Some(conflict) => Err(Error::SerializationFailure { conflict: Box::new(conflict) }),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Reads `key`; `None` when it is absent or deleted.
    pub(crate) fn read(&mut self, eng: &EngineInner, key: &RowKey) -> Result<Option<Value>> {
        self.check_doomed(eng)?;
        let snapshot = self.statement_snapshot(eng);
        let chain = match &self.sxact {
            // A serializable read of an absent key still needs somewhere to hold its SIREAD lock, so that a later
            // insert of the key creates the rw-antidependency.
            Some(_) => eng.store.get_or_create(key)?,
            None => match eng.store.get(key)? {
                Some(chain) => chain,
                None => return Ok(None),
            },
        };
        let (value, writers) = {
            let mut c = chain.lock();
            c.check_live(key)?;
            let writers = match &self.sxact {
                Some(sx) => {
                    c.add_reader(sx);
                    c.invisible_writers(self.id, snapshot)
                }
                None => Vec::new(),
            };
            (c.visible(self.id, snapshot, eng.defect()).cloned(), writers)
        };
        if !writers.is_empty() {
            eng.ssi.add_edges(writers.into_iter().map(|w| (self.id, w, Via::RowKey(key.clone()))));
        }
        Ok(value)
    }

    /// Writes `key` unconditionally (an upsert).
    pub(crate) fn write(&mut self, eng: &EngineInner, key: RowKey, value: Value) -> Result<()> {
        self.write_with(eng, key, |_| Ok(Change::Set(Some(value)))).map(|_| ())
    }

    /// Appends `element` to the list at `key`, creating `[element]` if the key is absent: an in-engine
    /// read-modify-write like SQL's `v = v || x`. The write-conflict check guarantees the list it extends is the
    /// newest committed one (at read committed, after waiting for a concurrent appender), so no append is lost.
    pub(crate) fn append(&mut self, eng: &EngineInner, key: RowKey, element: i64) -> Result<()> {
        let snapshot = self.write_base_snapshot();
        let (me, defect) = (self.id, eng.defect());
        let key_for_error = key.clone();
        let changed = self.write_with(eng, key, |c| match c.visible(me, snapshot, defect) {
            None => Ok(Change::Set(Some(Value::List(vec![element])))),
            Some(Value::List(list)) => {
                let mut list = list.clone();
                list.push(element);
                Ok(Change::Set(Some(Value::List(list))))
            }
            Some(other) => Err(Error::TypeMismatch { key: key_for_error, found: other.type_name() }),
        });
        changed.map(|_| ())
    }

    /// Inserts `key`, failing if it is present (at read committed, as the newest commit left it after waiting).
    pub(crate) fn insert(&mut self, eng: &EngineInner, key: RowKey, value: Value) -> Result<()> {
        let snapshot = self.write_base_snapshot();
        let (me, defect) = (self.id, eng.defect());
        let key_for_error = key.clone();
        let changed = self.write_with(eng, key, |c| match c.visible(me, snapshot, defect) {
            Some(_) => Err(Error::AlreadyExists { key: key_for_error }),
            None => Ok(Change::Set(Some(value))),
        });
        changed.map(|_| ())
    }

    /// Deletes `key` if it is present, returning whether it deleted it. A delete reads the row it removes, so under
    /// serializable it takes a SIREAD lock like a read; at read committed a row that the transaction it waited for
    /// deleted is not deleted again.
    pub(crate) fn delete(&mut self, eng: &EngineInner, key: &RowKey) -> Result<bool> {
        if self.read(eng, key)?.is_none() {
            return Ok(false);
        }
        self.rewrite(eng, key.clone(), |row| Ok(if row.is_some() { Change::Set(None) } else { Change::Skip }))
    }

    /// A predicate read: the rows in `range` whose value satisfies `predicate`, in key order. Under serializable it
    /// first locks the whole range, so a later write of any key in it, including an insert (a phantom), creates an
    /// rw-antidependency.
    pub(crate) fn scan(
        &mut self,
        eng: &EngineInner,
        range: &KeyRange,
        predicate: RowPredicate,
    ) -> Result<Vec<(RowKey, Value)>> {
        self.check_doomed(eng)?;
        let snapshot = self.statement_snapshot(eng);
        if let Some(sx) = &self.sxact {
            eng.ssi.lock_range(range.clone(), sx);
        }
        let mut rows = Vec::new();
        let mut edges = Vec::new();
        for (key, chain) in eng.store.range(range)? {
            let c = chain.lock();
            c.check_live(&key)?;
            if self.sxact.is_some() {
                for w in c.invisible_writers(self.id, snapshot) {
                    edges.push((self.id, w, Via::Range(range.clone(), key.clone())));
                }
            }
            if let Some(value) = c.visible(self.id, snapshot, eng.defect())
                && predicate.matches(value)
            {
                rows.push((key, value.clone()));
            }
        }
        if !edges.is_empty() {
            eng.ssi.add_edges(edges);
        }
        Ok(rows)
    }

    /// A predicate delete (`DELETE WHERE ...`): deletes the rows [`Txn::scan`] finds, returning the keys it deleted.
    /// At read committed a row that a concurrent writer changed is deleted only if it still satisfies `predicate`.
    pub(crate) fn delete_where(
        &mut self,
        eng: &EngineInner,
        range: &KeyRange,
        predicate: RowPredicate,
    ) -> Result<Vec<RowKey>> {
        let rows = self.scan(eng, range, predicate)?;
        let mut deleted = Vec::with_capacity(rows.len());
        for (key, _) in rows {
            let still = |row: Option<&Value>| match row {
                Some(v) if predicate.matches(v) => Ok(Change::Set(None)),
                _ => Ok(Change::Skip),
            };
            if self.rewrite(eng, key.clone(), still)? {
                deleted.push(key);
            }
        }
        Ok(deleted)
    }

    /// A predicate update (`UPDATE SET value = value + delta WHERE ...`): adds `delta` (wrapping) to the rows
    /// [`Txn::scan`] finds, returning each updated key with the value it replaced and the new one. At read committed
    /// a row that a concurrent writer changed is updated from its new value, and only if that still satisfies
    /// `predicate`, so no increment is lost.
    pub(crate) fn update_where(
        &mut self,
        eng: &EngineInner,
        range: &KeyRange,
        predicate: RowPredicate,
        delta: i64,
    ) -> Result<Vec<(RowKey, i64, i64)>> {
        let rows = self.scan(eng, range, predicate)?;
        let mut updated = Vec::with_capacity(rows.len());
        for (key, _) in rows {
            let key_for_error = key.clone();
            let mut replaced = None;
            let add = |row: Option<&Value>| match row {
                Some(v) if !predicate.matches(v) => Ok(Change::Skip),
                Some(Value::Int(v)) => {
                    replaced = Some(*v);
                    Ok(Change::Set(Some(Value::Int(v.wrapping_add(delta)))))
                }
                Some(other) => Err(Error::TypeMismatch { key: key_for_error, found: other.type_name() }),
                None => Ok(Change::Skip),
            };
            if self.rewrite(eng, key.clone(), add)?
                && let Some(old) = replaced
            {
                updated.push((key, old, old.wrapping_add(delta)));
            }
        }
        Ok(updated)
    }

    /// A write computed from the row it replaces: the version visible at [`Txn::write_base_snapshot`] (at read
    /// committed the newest committed one, which after a wait is what the other writer left). Returns whether it
    /// wrote.
    fn rewrite(
        &mut self,
        eng: &EngineInner,
        key: RowKey,
        change: impl FnOnce(Option<&Value>) -> Result<Change>,
    ) -> Result<bool> {
        let snapshot = self.write_base_snapshot();
        let (me, defect) = (self.id, eng.defect());
        self.write_with(eng, key, |c| change(c.visible(me, snapshot, defect)))
    }

    /// The one write path. Checks for a write-write conflict, waiting for another transaction's uncommitted version
    /// to be committed or rolled back and then checking again; computes the change from the chain; installs it as
    /// this transaction's uncommitted version; and reports the rw-antidependencies from concurrent SIREAD holders of
    /// the key and of ranges containing it. Returns whether it wrote (a [`Change::Skip`] writes nothing).
    fn write_with(
        &mut self,
        eng: &EngineInner,
        key: RowKey,
        change: impl FnOnce(&ChainState) -> Result<Change>,
    ) -> Result<bool> {
        let chain = match self.writes.get(&key) {
            Some(chain) => Arc::clone(chain),
            None => eng.store.get_or_create(&key)?,
        };
        let protected = match self.isolation {
            Isolation::ReadCommitted => None,
            Isolation::SnapshotIsolation | Isolation::Serializable => Some(self.snapshot),
        };
        let lock = Arc::clone(self.lock.get_or_insert_with(|| TxnLock::new(self.id)));
        let readers = loop {
            // Checked again after every wait: another commit may have doomed us meanwhile.
            self.check_doomed(eng)?;
            let mut c = chain.lock();
            c.check_live(&key)?;
            match c.write_conflict_check(self.id, protected, eng.defect()) {
                Ok(()) => {}
                Err(WriteBlock::Uncommitted(holder)) => {
                    drop(c);
                    eng.counters.lock_wait();
                    eng.waits.wait(self.id, &key, &holder, &self.interrupt, eng.config.lock_timeout)?;
                    continue;
                }
                Err(WriteBlock::CommittedAfterSnapshot(other)) => return Err(Error::WriteConflict { key, other }),
            }
            let Change::Set(value) = change(&c)? else {
                return Ok(false);
            };
            c.put_pending(&lock, self.is_serializable(), value);
            break match self.sxact {
                Some(_) => c.concurrent_readers(self.id, self.snapshot),
                None => Vec::new(),
            };
        };
        if self.sxact.is_some() {
            let mut edges: Vec<(EngineTxnId, EngineTxnId, Via)> =
                readers.iter().map(|r| (r.id, self.id, Via::RowKey(key.clone()))).collect();
            for (reader, range) in eng.ssi.range_readers(&key, self.id, self.snapshot) {
                edges.push((reader, self.id, Via::Range(range, key.clone())));
            }
            if !edges.is_empty() {
                eng.ssi.add_edges(edges);
            }
        }
        self.writes.entry(key).or_insert(chain);
        Ok(true)
    }
}
