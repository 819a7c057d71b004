//! Sessions: one client's connection to the engine, driven one statement at a time.
//!
//! Owns: [`EngineSession`] (the statement API and the transaction state machine: idle, active, failed, killed) and
//! [`SessionHandle`] (what another thread uses to kill a session, like `pg_terminate_backend`), and opening one
//! ([`Engine::session`]). Does not own what a
//! statement does (`txn.rs`) or commit (`commit.rs`). The state machine follows PostgreSQL's: any statement error
//! aborts the transaction at once and later statements fail until `rollback`; `commit` of a failed transaction
//! ends it and reports the failure, as a PostgreSQL `COMMIT` answered with `ROLLBACK` does.
//!
//! A session's state sits behind its own mutex only so that `kill` can reach it from another thread; the session's
//! own thread holds it for one statement at a time, including while the statement waits for another transaction's
//! write. So `kill` first wakes a waiting statement through the session's [`Interrupt`], which makes it fail with
//! [`Error::Killed`], and only then takes the state.

use std::mem;
use std::ops::RangeBounds;

use crate::engine::{Engine, EngineInner};
use crate::error::{Error, Result};
use crate::isolation::Isolation;
use crate::key::{KeyRange, RowKey};
use crate::lock_wait::Interrupt;
use crate::snapshot::EngineTxnId;
use crate::sync::{Arc, Mutex, MutexGuard, lock};
use crate::txn::Txn;
use crate::value::{RowPredicate, Value};

#[derive(Debug)]
enum State {
    Idle,
    Active(Txn),
    /// A statement failed; the transaction was already rolled back and only `rollback` (or `commit`) ends it.
    Failed,
    Killed,
}

#[derive(Debug)]
struct Shared {
    interrupt: Arc<Interrupt>,
    state: Mutex<State>,
}

/// One client's connection. `Send`, so it can move to the client's thread; one statement at a time.
///
/// Dropping a session rolls back its open transaction.
#[derive(Debug)]
pub struct EngineSession {
    engine: Engine,
    shared: Arc<Shared>,
    /// The timestamp the session's last commit took, if it took one.
    last_commit: Option<u64>,
}

/// A handle to kill a [`EngineSession`] from another thread.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    engine: Engine,
    shared: Arc<Shared>,
}

impl SessionHandle {
    /// Kills the session: its open transaction is rolled back now, and its every later call fails with
    /// [`Error::Killed`]. A statement waiting for another transaction's write is woken and fails with
    /// [`Error::Killed`]; any other running statement finishes first.
    pub fn kill(&self) {
        self.shared.interrupt.kill();
        let mut state = lock(&self.shared.state);
        if let State::Active(txn) = mem::replace(&mut *state, State::Killed) {
            end(self.engine.inner(), &txn, Some(&Error::Killed));
        }
    }

    /// Whether the session has been killed.
    pub fn is_killed(&self) -> bool {
        self.shared.interrupt.is_killed()
    }

    /// The transaction the session's current statement is waiting for, if it is blocked on another transaction's
    /// uncommitted write: what a scripted interleaving reports as a blocked step.
    pub fn waiting_for(&self) -> Option<EngineTxnId> {
        self.shared.interrupt.waiting_for()
    }
}

/// Rolls back and retires a transaction the engine did not commit, counting it under `cause` (or as a client
/// rollback when `None`).
fn end(eng: &EngineInner, txn: &Txn, cause: Option<&Error>) {
    eng.rollback(txn);
    eng.end_txn(txn);
    match cause {
        Some(cause) => eng.counters.abort(cause),
        None => eng.counters.rollback(),
    }
}

impl Engine {
    /// A new session, to be used by one client thread at a time.
    pub fn session(&self) -> EngineSession {
        EngineSession::new(self.clone())
    }
}

impl EngineSession {
    pub(crate) fn new(engine: Engine) -> EngineSession {
        let shared = Shared { interrupt: Arc::default(), state: Mutex::new(State::Idle) };
        EngineSession { engine, shared: Arc::new(shared), last_commit: None }
    }

    /// A handle another thread can use to kill this session.
    pub fn handle(&self) -> SessionHandle {
        SessionHandle { engine: self.engine.clone(), shared: Arc::clone(&self.shared) }
    }

    fn state(&self) -> Result<MutexGuard<'_, State>> {
        let state = lock(&self.shared.state);
        // The flag too: a kill that woke a waiting statement has not taken the state yet, but the session is gone.
        match *state {
            State::Killed => Err(Error::Killed),
            _ if self.shared.interrupt.is_killed() => Err(Error::Killed),
            _ => Ok(state),
        }
    }

    /// Starts a transaction at `isolation`. Fails with [`Error::TransactionInProgress`] if one is open (or failed
    /// and not yet rolled back).
    pub fn begin(&mut self, isolation: Isolation) -> Result<()> {
        let mut state = self.state()?;
        if !matches!(*state, State::Idle) {
            return Err(Error::TransactionInProgress);
        }
        let eng = self.engine.inner();
        match eng.begin_txn(isolation, Arc::clone(&self.shared.interrupt)) {
            Ok(txn) => {
                *state = State::Active(txn);
                Ok(())
            }
            Err(e) => {
                eng.counters.abort(&e);
                Err(e)
            }
        }
    }

    /// Runs one statement in the open transaction; an error aborts the transaction.
    fn statement<T>(&mut self, run: impl FnOnce(&mut Txn, &EngineInner) -> Result<T>) -> Result<T> {
        let mut state = self.state()?;
        let eng = self.engine.inner();
        let txn = match &mut *state {
            State::Active(txn) => txn,
            State::Idle => return Err(Error::NoTransaction),
            State::Failed => return Err(Error::InFailedTransaction),
            State::Killed => return Err(Error::Killed),
        };
        let result = run(txn, eng);
        if let Err(e) = &result
            && let State::Active(txn) = mem::replace(&mut *state, State::Failed)
        {
            end(eng, &txn, Some(e));
        }
        result
    }

    /// Reads `key`: `None` when it is absent or deleted.
    pub fn read(&mut self, key: &RowKey) -> Result<Option<Value>> {
        self.statement(|txn, eng| txn.read(eng, key))
    }

    /// Writes `value` at `key`, whether or not the key exists. Like every write below, it waits if another running
    /// transaction has written `key` (see [`Isolation`] for what happens when that transaction ends).
    pub fn write(&mut self, key: impl Into<RowKey>, value: impl Into<Value>) -> Result<()> {
        let (key, value) = (key.into(), value.into());
        self.statement(|txn, eng| txn.write(eng, key, value))
    }

    /// Appends `element` to the list at `key` (`v = v || x`); an absent key becomes `[element]`.
    pub fn append(&mut self, key: impl Into<RowKey>, element: i64) -> Result<()> {
        let key = key.into();
        self.statement(|txn, eng| txn.append(eng, key, element))
    }

    /// Inserts `value` at `key`; fails with [`Error::AlreadyExists`] if the key is present.
    pub fn insert(&mut self, key: impl Into<RowKey>, value: impl Into<Value>) -> Result<()> {
        let (key, value) = (key.into(), value.into());
        self.statement(|txn, eng| txn.insert(eng, key, value))
    }

    /// Deletes `key`, returning whether it was present (and so deleted).
    pub fn delete(&mut self, key: &RowKey) -> Result<bool> {
        self.statement(|txn, eng| txn.delete(eng, key))
    }

    /// A predicate read: the rows with keys in `range` whose values satisfy `predicate`, in key order.
    pub fn scan(&mut self, range: impl RangeBounds<RowKey>, predicate: RowPredicate) -> Result<Vec<(RowKey, Value)>> {
        let range = KeyRange::new(range);
        self.statement(|txn, eng| txn.scan(eng, &range, predicate))
    }

    /// A predicate delete: deletes the rows [`EngineSession::scan`] would return, returning their keys.
    pub fn delete_where(&mut self, range: impl RangeBounds<RowKey>, predicate: RowPredicate) -> Result<Vec<RowKey>> {
        let range = KeyRange::new(range);
        self.statement(|txn, eng| txn.delete_where(eng, &range, predicate))
    }

    /// A predicate update, `UPDATE SET value = value + delta WHERE predicate RETURNING` (wrapping): adds `delta` to
    /// the rows [`EngineSession::scan`] would return, returning each key with its old and new value; fails with
    /// [`Error::TypeMismatch`] on a matching list. At read committed a row another writer changed meanwhile is
    /// re-checked and updated from its newest value.
    pub fn update_where(
        &mut self,
        range: impl RangeBounds<RowKey>,
        predicate: RowPredicate,
        delta: i64,
    ) -> Result<Vec<(RowKey, i64, i64)>> {
        let range = KeyRange::new(range);
        self.statement(|txn, eng| txn.update_where(eng, &range, predicate, delta))
    }

    /// Commits the open transaction. On an error the transaction is over (rolled back) and the session is idle.
    pub fn commit(&mut self) -> Result<()> {
        let committed = self.commit_txn();
        self.last_commit = committed.as_ref().ok().copied().flatten();
        committed.map(|_| ())
    }

    /// The commit timestamp of the transaction this session last committed, if its commit took one (it wrote, or
    /// it was serializable); `None` after a commit that took none or failed. Timestamps are the engine's commit
    /// order, and each key's committed versions are installed in it, so they order every key's writes exactly.
    pub fn last_commit_timestamp(&self) -> Option<u64> {
        self.last_commit
    }

    fn commit_txn(&self) -> Result<Option<u64>> {
        let mut state = self.state()?;
        let eng = self.engine.inner();
        match mem::replace(&mut *state, State::Idle) {
            State::Active(txn) => match eng.commit(&txn) {
                Ok(ts) => {
                    eng.end_txn(&txn);
                    eng.counters.commit();
                    Ok(ts)
                }
                Err(e) => {
                    end(eng, &txn, Some(&e));
                    Err(e)
                }
            },
            State::Failed => Err(Error::InFailedTransaction),
            State::Idle => Err(Error::NoTransaction),
            State::Killed => {
                *state = State::Killed;
                Err(Error::Killed)
            }
        }
    }

    /// Rolls back the open or failed transaction. Rolling back with no transaction open is a no-op, so a caller
    /// can always `rollback` after an error.
    pub fn rollback(&mut self) -> Result<()> {
        let mut state = self.state()?;
        if let State::Active(txn) = mem::replace(&mut *state, State::Idle) {
            end(self.engine.inner(), &txn, None);
        }
        Ok(())
    }

    /// Whether a transaction is open (running, or failed and awaiting `rollback`).
    pub fn in_transaction(&self) -> bool {
        matches!(*lock(&self.shared.state), State::Active(_) | State::Failed)
    }

    /// The running transaction's id, as conflicts name it. Blocks while one of the session's statements waits.
    pub fn txn_id(&self) -> Option<EngineTxnId> {
        match &*lock(&self.shared.state) {
            State::Active(txn) => Some(txn.id()),
            _ => None,
        }
    }
}

impl Drop for EngineSession {
    fn drop(&mut self) {
        let mut state = lock(&self.shared.state);
        if let State::Active(txn) = mem::replace(&mut *state, State::Idle) {
            end(self.engine.inner(), &txn, None);
        }
    }
}
