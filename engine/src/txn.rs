//! One transaction's statements: reads, writes, appends, inserts, deletes and predicate reads.
//!
//! Owns: [`Txn`], a running transaction's private state (its id, level, snapshot, SSI handle and write set), and
//! how each statement reads and writes chains and reports rw-antidependencies to SSI. Does not own commit or
//! rollback (`commit.rs`) or the session state machine (`session.rs`). Each statement locks one chain at a time, and
//! reports conflicts to SSI only after releasing it, so statements on different keys never wait for each other.
//! Semantics follow Berenson et al. 1995 for the levels and Cahill et al. 2008 for which reads take SIREAD locks:
//! point reads, and scans (a predicate lock on the scanned range, so a later insert into the range is caught).

use std::collections::BTreeMap;

use crate::engine::EngineInner;
use crate::error::{Error, Result, Via};
use crate::isolation::Isolation;
use crate::key::{Key, KeyRange};
use crate::snapshot::TxnId;
use crate::ssi::SxactShared;
use crate::sync::Arc;
use crate::value::{Predicate, Value};
use crate::version_chain::{Chain, ChainState};

/// A running transaction.
#[derive(Debug)]
pub(crate) struct Txn {
    id: TxnId,
    isolation: Isolation,
    snapshot: u64,
    sxact: Option<Arc<SxactShared>>,
    /// Every key written, with its chain, so commit and rollback need no lookups.
    writes: BTreeMap<Key, Arc<Chain>>,
}

impl Txn {
    pub(crate) fn new(id: TxnId, isolation: Isolation, snapshot: u64, sxact: Option<Arc<SxactShared>>) -> Txn {
        Txn { id, isolation, snapshot, sxact, writes: BTreeMap::new() }
    }

    pub(crate) fn id(&self) -> TxnId {
        self.id
    }

    pub(crate) fn snapshot(&self) -> u64 {
        self.snapshot
    }

    pub(crate) fn is_serializable(&self) -> bool {
        self.sxact.is_some()
    }

    pub(crate) fn writes(&self) -> &BTreeMap<Key, Arc<Chain>> {
        &self.writes
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
    pub(crate) fn read(&mut self, eng: &EngineInner, key: &Key) -> Result<Option<Value>> {
        self.check_doomed(eng)?;
        let snapshot = self.statement_snapshot(eng);
        let chain = match &self.sxact {
            // A serializable read of an absent key still needs somewhere to hold its SIREAD lock, so that a later
            // insert of the key creates the rw-antidependency.
            Some(_) => eng.store.get_or_create(key),
            None => match eng.store.get(key) {
                Some(chain) => chain,
                None => return Ok(None),
            },
        };
        let (value, writers) = {
            let mut c = chain.lock();
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
            eng.ssi.add_edges(writers.into_iter().map(|w| (self.id, w, Via::Key(key.clone()))));
        }
        Ok(value)
    }

    /// Writes `key` unconditionally (an upsert).
    pub(crate) fn write(&mut self, eng: &EngineInner, key: Key, value: Value) -> Result<()> {
        self.write_with(eng, key, |_| Ok(Some(value)))
    }

    /// Appends `element` to the list at `key`, creating `[element]` if the key is absent: an in-engine
    /// read-modify-write like SQL's `v = v || x`. The write-conflict check guarantees the list it extends is the
    /// newest committed one, so no append is lost.
    pub(crate) fn append(&mut self, eng: &EngineInner, key: Key, element: i64) -> Result<()> {
        let snapshot = self.write_base_snapshot();
        let (me, defect) = (self.id, eng.defect());
        let key_for_error = key.clone();
        self.write_with(eng, key, |c| match c.visible(me, snapshot, defect) {
            None => Ok(Some(Value::List(vec![element]))),
            Some(Value::List(list)) => {
                let mut list = list.clone();
                list.push(element);
                Ok(Some(Value::List(list)))
            }
            Some(other) => Err(Error::TypeMismatch { key: key_for_error, found: other.type_name() }),
        })
    }

    /// Inserts `key`, failing if it is present.
    pub(crate) fn insert(&mut self, eng: &EngineInner, key: Key, value: Value) -> Result<()> {
        let snapshot = self.write_base_snapshot();
        let (me, defect) = (self.id, eng.defect());
        let key_for_error = key.clone();
        self.write_with(eng, key, |c| match c.visible(me, snapshot, defect) {
            Some(_) => Err(Error::AlreadyExists { key: key_for_error }),
            None => Ok(Some(value)),
        })
    }

    /// Deletes `key` if it is present, returning whether it was. A delete reads the row it removes, so under
    /// serializable it takes a SIREAD lock like a read.
    pub(crate) fn delete(&mut self, eng: &EngineInner, key: &Key) -> Result<bool> {
        let existed = self.read(eng, key)?.is_some();
        if existed {
            self.write_with(eng, key.clone(), |_| Ok(None))?;
        }
        Ok(existed)
    }

    /// A predicate read: the rows in `range` whose value satisfies `predicate`, in key order. Under serializable it
    /// first locks the whole range, so a later write of any key in it, including an insert (a phantom), creates an
    /// rw-antidependency.
    pub(crate) fn scan(
        &mut self,
        eng: &EngineInner,
        range: &KeyRange,
        predicate: Predicate,
    ) -> Result<Vec<(Key, Value)>> {
        self.check_doomed(eng)?;
        let snapshot = self.statement_snapshot(eng);
        if let Some(sx) = &self.sxact {
            eng.ssi.lock_range(range.clone(), sx);
        }
        let mut rows = Vec::new();
        let mut edges = Vec::new();
        for (key, chain) in eng.store.range(range) {
            let c = chain.lock();
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

    /// A predicate delete (`DELETE WHERE ...`): deletes the rows [`Txn::scan`] finds, returning their keys.
    pub(crate) fn delete_where(
        &mut self,
        eng: &EngineInner,
        range: &KeyRange,
        predicate: Predicate,
    ) -> Result<Vec<Key>> {
        let rows = self.scan(eng, range, predicate)?;
        let mut deleted = Vec::with_capacity(rows.len());
        for (key, _) in rows {
            self.write_with(eng, key.clone(), |_| Ok(None))?;
            deleted.push(key);
        }
        Ok(deleted)
    }

    /// The one write path: checks for a write-write conflict, computes the new value from the chain (`None`
    /// deletes), installs it as this transaction's uncommitted version, and reports the rw-antidependencies from
    /// concurrent SIREAD holders of the key and of ranges containing it.
    fn write_with(
        &mut self,
        eng: &EngineInner,
        key: Key,
        new_value: impl FnOnce(&ChainState) -> Result<Option<Value>>,
    ) -> Result<()> {
        self.check_doomed(eng)?;
        let chain = self.writes.get(&key).cloned().unwrap_or_else(|| eng.store.get_or_create(&key));
        let protected = match self.isolation {
            Isolation::ReadCommitted => None,
            Isolation::SnapshotIsolation | Isolation::Serializable => Some(self.snapshot),
        };
        let readers = {
            let mut c = chain.lock();
            c.write_conflict_check(self.id, protected, eng.defect())
                .map_err(|other| Error::WriteConflict { key: key.clone(), other })?;
            let value = new_value(&c)?;
            c.put_pending(self.id, self.is_serializable(), value);
            match self.sxact {
                Some(_) => c.concurrent_readers(self.id, self.snapshot),
                None => Vec::new(),
            }
        };
        if self.sxact.is_some() {
            let mut edges: Vec<(TxnId, TxnId, Via)> =
                readers.iter().map(|r| (r.id, self.id, Via::Key(key.clone()))).collect();
            for (reader, range) in eng.ssi.range_readers(&key, self.id, self.snapshot) {
                edges.push((reader, self.id, Via::Range(range, key.clone())));
            }
            if !edges.is_empty() {
                eng.ssi.add_edges(edges);
            }
        }
        self.writes.entry(key).or_insert(chain);
        Ok(())
    }
}
