//! The store plugged into isocheck: [`LockStore`] implements `adapters::System` (name, version, how it
//! runs each level, fresh tables, sessions) and its sessions `adapters::Session` (begin, the micro-ops,
//! commit, rollback), which is all isocheck needs to run any workload, the overlap test or Hermitage's
//! scenarios against it. Its kill switch cancels a session waiting for its turn and says whether it
//! waits, so Hermitage tells a blocked step from a slow one. The store never aborts, so no error here is
//! an abort; a session that was killed fails its next statement with `session_lost`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use adapters::{AdapterError, Change, KillSwitch, Level, LevelSupport, Session, System, TxnError};
use histories::{Key, Predicate, Rows};

use crate::store::{TurnStore, TurnTxn};

/// The store as a system under test.
pub struct LockStore {
    store: Arc<TurnStore<Key>>,
    defect: bool,
}

impl LockStore {
    /// A correct store: transactions take turns.
    pub fn new() -> LockStore {
        LockStore { store: Arc::new(TurnStore::new()), defect: false }
    }

    /// The store with its planted defect: transactions do not take turns.
    pub fn without_turns() -> LockStore {
        LockStore { store: Arc::new(TurnStore::without_turns()), defect: true }
    }
}

impl Default for LockStore {
    fn default() -> LockStore {
        LockStore::new()
    }
}

impl System for LockStore {
    fn name(&self) -> &'static str {
        "lockstore"
    }

    fn version(&self) -> String {
        let turns = if self.defect { "without turns (planted defect)" } else { "one transaction at a time" };
        format!("lockstore {} ({turns})", env!("CARGO_PKG_VERSION"))
    }

    fn level(&self, requested: Level) -> LevelSupport {
        match requested {
            Level::Serializable => LevelSupport::Native { name: "serializable (one transaction at a time)".into() },
            _ => LevelSupport::Mapped {
                to: "serializable".into(),
                why: "lockstore runs every transaction alone, which is stronger than any level".into(),
            },
        }
    }

    fn serialized_by_design(&self) -> Option<&'static str> {
        (!self.defect).then_some("lockstore: begin takes the store's one turn and commit gives it back")
    }

    fn prepare(&self, registers: &[(Key, i64)]) -> Result<(), AdapterError> {
        self.store.reset(registers.iter().cloned());
        Ok(())
    }

    fn connect(&self) -> Result<Box<dyn Session>, AdapterError> {
        Ok(Box::new(LockSession { store: Arc::clone(&self.store), txn: None, flags: Arc::default() }))
    }
}

/// What another thread may see of a session and do to it.
#[derive(Default)]
struct Flags {
    waiting: AtomicBool,
    killed: AtomicBool,
}

struct LockSession {
    store: Arc<TurnStore<Key>>,
    txn: Option<TurnTxn<Key>>,
    flags: Arc<Flags>,
}

impl LockSession {
    /// The open transaction, or the error of a session that was killed (rolling back what it had).
    fn txn(&mut self) -> Result<&mut TurnTxn<Key>, TxnError> {
        if self.flags.killed.load(Ordering::Relaxed) {
            if let Some(txn) = self.txn.take() {
                self.store.rollback(txn);
            }
            return Err(TxnError { session_lost: true, ..TxnError::aborted("killed", "the session was killed") });
        }
        self.txn.as_mut().ok_or_else(|| TxnError::fatal("no-transaction", "no transaction is open"))
    }
}

impl Session for LockSession {
    fn begin(&mut self, _level: Level) -> Result<(), TxnError> {
        if self.txn.is_some() {
            return Err(TxnError::fatal("in-transaction", "a transaction is already open"));
        }
        let txn = self.store.begin(&self.flags.waiting, &self.flags.killed).map_err(|_| TxnError {
            session_lost: true,
            ..TxnError::aborted("killed", "the session was killed while it waited for its turn")
        })?;
        self.txn = Some(txn);
        Ok(())
    }

    fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError> {
        self.txn()?;
        Ok(self.store.read_list(key))
    }

    fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError> {
        let store = Arc::clone(&self.store);
        store.append(self.txn()?, key, element);
        Ok(())
    }

    fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError> {
        self.txn()?;
        Ok(self.store.read(key))
    }

    fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        let store = Arc::clone(&self.store);
        store.write(self.txn()?, key, value);
        Ok(())
    }

    fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.txn()?;
        if self.store.read(key).is_some() {
            // The statement fails and, as in the SQL systems, ends the transaction.
            self.rollback()?;
            return Err(TxnError::aborted("duplicate-key", format!("key {key} exists")));
        }
        self.write(key, value)
    }

    fn delete(&mut self, key: &Key) -> Result<bool, TxnError> {
        let store = Arc::clone(&self.store);
        Ok(store.delete(self.txn()?, key).is_some())
    }

    fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        self.txn()?;
        Ok(self.store.scan(|v| predicate.matches(v)).into_iter().collect())
    }

    fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let rows = self.scan(predicate)?;
        let store = Arc::clone(&self.store);
        let txn = self.txn()?;
        for key in rows.keys() {
            store.delete(txn, key);
        }
        Ok(rows)
    }

    fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
        let rows = self.scan(predicate)?;
        let store = Arc::clone(&self.store);
        let txn = self.txn()?;
        Ok(rows
            .into_iter()
            .map(|(key, old)| {
                let new = change.apply(old);
                store.write(txn, &key, new);
                (key, old, new)
            })
            .collect())
    }

    fn commit(&mut self) -> Result<(), TxnError> {
        self.txn()?;
        if let Some(txn) = self.txn.take() {
            self.store.commit(txn);
        }
        Ok(())
    }

    fn rollback(&mut self) -> Result<(), TxnError> {
        if let Some(txn) = self.txn.take() {
            self.store.rollback(txn);
        }
        Ok(())
    }

    fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
        Some(Arc::new(LockKill(Arc::clone(&self.flags))))
    }
}

impl Drop for LockSession {
    /// A session that goes away gives its turn back.
    fn drop(&mut self) {
        let _ = self.rollback();
    }
}

struct LockKill(Arc<Flags>);

impl KillSwitch for LockKill {
    fn kill(&self) {
        self.0.killed.store(true, Ordering::Relaxed);
    }

    fn waiting(&self) -> Option<bool> {
        Some(self.0.waiting.load(Ordering::Relaxed))
    }
}
