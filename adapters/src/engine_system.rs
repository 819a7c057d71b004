//! The embedded engine as a system under test: in process, no setup, with an optional planted defect. Its
//! levels are read committed, snapshot isolation and serializable (SSI); repeatable read runs as snapshot
//! isolation, which is what the engine (like PostgreSQL) offers under that name. Lists, registers and
//! records live in one engine key space, lists under a `list:` prefix and records under `record:`, so
//! the tables never meet. A record is one engine value (its fields length-prefixed in one byte string),
//! so, as a row in SQL, an update of one field conflicts with any other write of the record. As in
//! PostgreSQL, a write of a key another running transaction wrote blocks until that transaction ends; the
//! engine's concurrency errors (a concurrent update, an SSI failure, a deadlock) map to aborts, as 40001
//! and 40P01 do.

use std::sync::Arc;

use engine::{Defect, Engine, EngineConfig, Error as EngineError, Isolation, SessionHandle};
use histories::{Key, Predicate, Rows};

use crate::level::{Level, LevelSupport};
use crate::session::{AdapterError, Change, Failure, KillSwitch, Record, Session, System, TxnError};

/// The embedded engine.
pub struct EngineSystem {
    engine: std::sync::Mutex<Engine>,
    defect: Option<Defect>,
}

impl EngineSystem {
    /// A fresh engine, with this planted defect (or none).
    pub fn new(defect: Option<Defect>) -> EngineSystem {
        EngineSystem { engine: std::sync::Mutex::new(Self::fresh(defect)), defect }
    }

    fn fresh(defect: Option<Defect>) -> Engine {
        Engine::new(EngineConfig::new().defect(defect))
    }

    fn engine(&self) -> Engine {
        self.engine.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Commits and aborts by cause, as the engine counted them.
    pub fn stats(&self) -> engine::EngineStats {
        self.engine().stats()
    }

    /// What the engine holds in memory now (keys, versions, forgotten keys).
    pub fn storage_stats(&self) -> engine::StorageStats {
        self.engine().storage_stats()
    }
}

impl System for EngineSystem {
    fn name(&self) -> &'static str {
        "engine"
    }

    fn version(&self) -> String {
        let defect = self.defect.map_or("none".to_string(), |d| d.to_string());
        format!("isocheck engine {} (planted defect: {defect})", env!("CARGO_PKG_VERSION"))
    }

    fn level(&self, requested: Level) -> LevelSupport {
        match requested {
            Level::ReadUncommitted => LevelSupport::Mapped {
                to: "read-committed".into(),
                why: "the engine never shows uncommitted writes; read committed is the weakest level it has".into(),
            },
            Level::ReadCommitted => LevelSupport::Native { name: "read-committed".into() },
            Level::SnapshotIsolation => LevelSupport::Native { name: "snapshot-isolation".into() },
            Level::RepeatableRead => LevelSupport::Mapped {
                to: "snapshot-isolation".into(),
                why: "the engine's repeatable read is snapshot isolation, as PostgreSQL's is".into(),
            },
            Level::Serializable => LevelSupport::Native { name: "serializable (SSI)".into() },
        }
    }

    fn prepare(&self, registers: &[(Key, i64)]) -> Result<(), AdapterError> {
        let engine = Self::fresh(self.defect);
        if !registers.is_empty() {
            let mut session = engine.session();
            let failed = |e: EngineError| AdapterError::Unavailable { system: "engine", message: e.to_string() };
            session.begin(Isolation::Serializable).map_err(failed)?;
            for (key, value) in registers {
                session.write(register_key(key), *value).map_err(failed)?;
            }
            session.commit().map_err(failed)?;
        }
        *self.engine.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = engine;
        Ok(())
    }

    fn connect(&self) -> Result<Box<dyn Session>, AdapterError> {
        Ok(Box::new(EngineSession { session: self.engine().session(), committing: false }))
    }

    /// The engine drops the lists' versions and locks (`engine::Engine::forget`); naming one again fails the
    /// run (`forgotten-key`, fatal).
    fn forget_lists(&self, keys: &[Key]) -> usize {
        let engine_keys: Vec<engine::RowKey> = keys.iter().map(list_key).collect();
        self.engine().forget(&engine_keys);
        keys.len()
    }

    /// The engine drops the registers' versions and locks, as [`EngineSystem::forget_lists`] the lists'.
    fn forget_registers(&self, keys: &[Key]) -> usize {
        let engine_keys: Vec<engine::RowKey> = keys.iter().map(register_key).collect();
        self.engine().forget(&engine_keys);
        keys.len()
    }

    fn prepare_records(&self, _fields: usize, records: &[(Key, Record)]) -> Result<(), AdapterError> {
        let mut session = self.engine().session();
        let failed = |e: EngineError| AdapterError::Unavailable { system: "engine", message: e.to_string() };
        session.begin(Isolation::Serializable).map_err(failed)?;
        for (key, fields) in records {
            session.write(record_key(key), engine::Value::Bytes(encode_record(fields))).map_err(failed)?;
        }
        session.commit().map_err(failed)
    }
}

fn record_key(key: &Key) -> engine::RowKey {
    engine::RowKey::Str(format!("record:{key}"))
}

/// A record as one byte string: each field as its length (4 bytes, little-endian) and its bytes.
fn encode_record(fields: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(fields.iter().map(|f| f.len() + 4).sum());
    for field in fields {
        bytes.extend_from_slice(&(field.len() as u32).to_le_bytes());
        bytes.extend_from_slice(field);
    }
    bytes
}

fn decode_record(mut bytes: &[u8]) -> Result<Record, TxnError> {
    let bad = || TxnError::fatal("bad-record", "a record holds bytes isocheck did not write");
    let mut fields = Vec::new();
    while !bytes.is_empty() {
        let (len, rest) = bytes.split_first_chunk::<4>().ok_or_else(bad)?;
        let len = u32::from_le_bytes(*len) as usize;
        let field = rest.get(..len).ok_or_else(bad)?;
        fields.push(field.to_vec());
        bytes = &rest[len..];
    }
    Ok(fields)
}

fn register_key(key: &Key) -> engine::RowKey {
    match key {
        Key::Int(i) => engine::RowKey::Int(*i),
        Key::Str(s) => engine::RowKey::Str(s.to_string()),
    }
}

fn list_key(key: &Key) -> engine::RowKey {
    engine::RowKey::Str(format!("list:{key}"))
}

fn from_engine_key(key: &engine::RowKey) -> Key {
    match key {
        engine::RowKey::Int(i) => Key::Int(*i),
        engine::RowKey::Str(s) => Key::Str(s.as_str().into()),
    }
}

fn engine_predicate(predicate: &Predicate) -> engine::RowPredicate {
    match *predicate {
        Predicate::True => engine::RowPredicate::All,
        Predicate::Eq(v) => engine::RowPredicate::Eq(v),
        Predicate::Mod { m, r } => engine::RowPredicate::Mod { modulus: m, remainder: r },
    }
}

fn isolation(level: Level) -> Isolation {
    match level {
        Level::ReadUncommitted | Level::ReadCommitted => Isolation::ReadCommitted,
        Level::SnapshotIsolation | Level::RepeatableRead => Isolation::SnapshotIsolation,
        Level::Serializable => Isolation::Serializable,
    }
}

struct EngineSession {
    session: engine::EngineSession,
    committing: bool,
}

impl EngineSession {
    fn error(&self, e: EngineError) -> TxnError {
        let (failure, lost) = match &e {
            // A kill during commit leaves the commit's fate unknown to the client.
            EngineError::Killed if self.committing => (Failure::Indeterminate, true),
            EngineError::Killed => (Failure::Aborted, true),
            // A forgotten key named again: the workload broke its promise, and the run must not go on as if
            // the key were empty.
            EngineError::TypeMismatch { .. }
            | EngineError::NoTransaction
            | EngineError::TransactionInProgress
            | EngineError::ForgottenKey { .. }
            | EngineError::ForgottenRange { .. } => (Failure::Fatal, false),
            // The concurrency errors, PostgreSQL's 40001 (`write-conflict`, "could not serialize access due to
            // concurrent update", and `serialization-failure`), 40P01 (`deadlock`) and 55P03 (`lock-timeout`):
            // the engine rolled the transaction back, so it had no effect.
            EngineError::WriteConflict { .. }
            | EngineError::SerializationFailure { .. }
            | EngineError::Deadlock { .. }
            | EngineError::LockTimeout { .. } => (Failure::Aborted, false),
            // A duplicate insert, or a statement after one of the above: the transaction is rolled back too.
            _ => (Failure::Aborted, false),
        };
        TxnError { failure, cause: e.cause().to_string(), message: e.to_string(), session_lost: lost }
    }
}

fn int_of(value: Option<engine::Value>) -> Result<Option<i64>, TxnError> {
    match value {
        None => Ok(None),
        Some(engine::Value::Int(i)) => Ok(Some(i)),
        Some(other) => Err(TxnError::fatal(
            "type-mismatch",
            format!("expected an integer register, found a {}", other.type_name()),
        )),
    }
}

impl Session for EngineSession {
    fn begin(&mut self, level: Level) -> Result<(), TxnError> {
        self.session.begin(isolation(level)).map_err(|e| self.error(e))
    }

    fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError> {
        match self.session.read(&list_key(key)).map_err(|e| self.error(e))? {
            None => Ok(Vec::new()),
            Some(engine::Value::List(list)) => Ok(list),
            Some(other) => {
                Err(TxnError::fatal("type-mismatch", format!("expected a list, found a {}", other.type_name())))
            }
        }
    }

    fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError> {
        self.session.append(list_key(key), element).map_err(|e| self.error(e))
    }

    fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError> {
        let value = self.session.read(&register_key(key)).map_err(|e| self.error(e))?;
        int_of(value)
    }

    fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.session.write(register_key(key), value).map_err(|e| self.error(e))
    }

    fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.session.insert(register_key(key), value).map_err(|e| self.error(e))
    }

    fn delete(&mut self, key: &Key) -> Result<bool, TxnError> {
        self.session.delete(&register_key(key)).map_err(|e| self.error(e))
    }

    fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let rows = self.session.scan(.., engine_predicate(predicate)).map_err(|e| self.error(e))?;
        let mut out = Rows::new();
        for (key, value) in rows {
            // Lists share the key space; a predicate read is over the registers only.
            if let engine::Value::Int(v) = value {
                out.insert(from_engine_key(&key), v);
            }
        }
        Ok(out)
    }

    fn read_record(&mut self, key: &Key) -> Result<Option<Record>, TxnError> {
        match self.session.read(&record_key(key)).map_err(|e| self.error(e))? {
            None => Ok(None),
            Some(engine::Value::Bytes(bytes)) => decode_record(&bytes).map(Some),
            Some(other) => {
                Err(TxnError::fatal("type-mismatch", format!("expected a record, found a {}", other.type_name())))
            }
        }
    }

    fn update_field(&mut self, key: &Key, field: usize, value: &[u8]) -> Result<bool, TxnError> {
        let Some(mut record) = self.read_record(key)? else { return Ok(false) };
        let slot = record
            .get_mut(field)
            .ok_or_else(|| TxnError::fatal("no-such-field", format!("record {key} has no field {field}")))?;
        *slot = value.to_vec();
        self.session.write(record_key(key), engine::Value::Bytes(encode_record(&record))).map_err(|e| self.error(e))?;
        Ok(true)
    }

    fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        // The engine's predicate delete returns the keys it deleted (re-checking each row after a wait, as
        // PostgreSQL does). An equality predicate says what they held; otherwise a scan just before does.
        let seen = match predicate {
            Predicate::Eq(_) => Rows::new(),
            _ => self.scan(predicate)?,
        };
        let deleted = self.session.delete_where(.., engine_predicate(predicate)).map_err(|e| self.error(e))?;
        Ok(deleted
            .iter()
            .map(from_engine_key)
            .filter_map(|k| {
                let value = match predicate {
                    Predicate::Eq(v) => Some(*v),
                    _ => seen.get(&k).copied(),
                };
                value.map(|v| (k, v))
            })
            .collect())
    }

    fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
        // One engine statement, so read committed re-checks a row it waited for: a SET over an equality
        // predicate is the addition that takes the matched value to the new one.
        let delta = match (change, predicate) {
            (Change::Add(d), _) => d,
            (Change::Set(x), Predicate::Eq(old)) => x.wrapping_sub(*old),
            (Change::Set(_), _) => return Err(Change::set_needs_equality(predicate)),
        };
        let changed = self.session.update_where(.., engine_predicate(predicate), delta).map_err(|e| self.error(e))?;
        Ok(changed.into_iter().map(|(k, old, new)| (from_engine_key(&k), old, new)).collect())
    }

    fn commit(&mut self) -> Result<(), TxnError> {
        // A statement here takes microseconds and no round trip, so on a busy machine a client could run
        // transactions back to back for a whole time slice and the clients hardly overlap: a default run
        // with SSI off showed no anomaly in 3 of 20 runs, on registers 5 of 15, beside two CPU burners.
        // Offering the core to whoever else is ready between the statements and the commit gives the
        // other clients the moment a database's round trip would (it returns at once on an idle core).
        std::thread::yield_now();
        self.committing = true;
        let result = self.session.commit().map_err(|e| self.error(e));
        self.committing = false;
        result
    }

    /// The engine's commit timestamp: taken under its commit lock, one past the last, and each key's
    /// versions installed in that order (see `engine::EngineSession::last_commit_timestamp`).
    fn commit_order(&self) -> Option<i64> {
        self.session.last_commit_timestamp().and_then(|ts| i64::try_from(ts).ok())
    }

    fn rollback(&mut self) -> Result<(), TxnError> {
        self.session.rollback().map_err(|e| self.error(e))
    }

    fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
        Some(Arc::new(EngineKill(self.session.handle())))
    }
}

struct EngineKill(SessionHandle);

impl KillSwitch for EngineKill {
    fn kill(&self) {
        self.0.kill();
    }

    fn waiting(&self) -> Option<bool> {
        Some(self.0.waiting_for().is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_registers_do_not_meet() {
        let system = EngineSystem::new(None);
        system.prepare(&[(Key::Int(1), 10)]).unwrap();
        let mut s = system.connect().unwrap();
        s.begin(Level::Serializable).unwrap();
        s.append(&Key::Int(1), 5).unwrap();
        assert_eq!(s.read(&Key::Int(1)).unwrap(), Some(10));
        assert_eq!(s.read_list(&Key::Int(1)).unwrap(), vec![5]);
        assert_eq!(s.scan(&Predicate::True).unwrap(), Rows::from([(Key::Int(1), 10)]));
        s.commit().unwrap();
    }

    #[test]
    fn a_write_skew_aborts_at_serializable_as_a_failure_not_a_fault() {
        let system = EngineSystem::new(None);
        system.prepare(&[(Key::Int(1), 1), (Key::Int(2), 1)]).unwrap();
        let (mut a, mut b) = (system.connect().unwrap(), system.connect().unwrap());
        a.begin(Level::Serializable).unwrap();
        b.begin(Level::Serializable).unwrap();
        assert_eq!(a.read(&Key::Int(2)).unwrap(), Some(1));
        assert_eq!(b.read(&Key::Int(1)).unwrap(), Some(1));
        a.write(&Key::Int(1), 0).unwrap();
        b.write(&Key::Int(2), 0).unwrap();
        a.commit().unwrap();
        let err = b.commit().unwrap_err();
        assert_eq!(err.failure, Failure::Aborted);
        assert_eq!(err.cause, "serialization-failure");
    }

    #[test]
    fn a_forgotten_list_is_gone_and_naming_it_again_is_fatal_while_the_register_stays() {
        let system = EngineSystem::new(None);
        system.prepare(&[(Key::Int(1), 10)]).unwrap();
        let mut s = system.connect().unwrap();
        s.begin(Level::Serializable).unwrap();
        s.append(&Key::Int(1), 5).unwrap();
        s.append(&Key::Int(2), 6).unwrap();
        s.commit().unwrap();
        assert_eq!(system.storage_stats().keys, 3);
        assert_eq!(system.forget_lists(&[Key::Int(1)]), 1);
        assert_eq!((system.storage_stats().keys, system.storage_stats().forgotten_keys), (2, 1));
        s.begin(Level::Serializable).unwrap();
        let err = s.read_list(&Key::Int(1)).unwrap_err();
        assert_eq!((err.failure, err.cause.as_str()), (Failure::Fatal, "forgotten-key"));
        s.rollback().unwrap();
        // The near miss: register 1 and list 2 are untouched.
        s.begin(Level::Serializable).unwrap();
        assert_eq!(s.read(&Key::Int(1)).unwrap(), Some(10));
        assert_eq!(s.read_list(&Key::Int(2)).unwrap(), vec![6]);
        s.commit().unwrap();
    }

    /// A session on `system`'s engine with its kill handle, which also tells whether a statement is blocked.
    fn session(system: &EngineSystem) -> (EngineSession, SessionHandle) {
        let session = system.engine().session();
        let handle = session.handle();
        (EngineSession { session, committing: false }, handle)
    }

    /// Spins until the statement on the session behind `handle` waits for another transaction.
    fn until_blocked(handle: &SessionHandle) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while handle.waiting_for().is_none() {
            assert!(std::time::Instant::now() < deadline, "the statement did not block");
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_deadlock_is_an_abort_with_cause_deadlock() {
        let system = EngineSystem::new(None);
        system.prepare(&[(Key::Int(1), 1), (Key::Int(2), 1)]).unwrap();
        let ((mut a, a_handle), (mut b, _)) = (session(&system), session(&system));
        a.begin(Level::ReadCommitted).unwrap();
        b.begin(Level::ReadCommitted).unwrap();
        a.write(&Key::Int(1), 2).unwrap();
        b.write(&Key::Int(2), 2).unwrap();
        std::thread::scope(|s| {
            let blocked = s.spawn(move || a.write(&Key::Int(2), 3).and_then(|()| a.commit()));
            until_blocked(&a_handle);
            let err = b.write(&Key::Int(1), 3).unwrap_err();
            assert_eq!((err.failure, err.cause.as_str(), err.session_lost), (Failure::Aborted, "deadlock", false));
            blocked.join().unwrap().unwrap();
        });
    }

    #[test]
    fn a_concurrent_update_is_an_abort() {
        let system = EngineSystem::new(None);
        system.prepare(&[(Key::Int(1), 1)]).unwrap();
        let ((mut a, _), (mut b, b_handle)) = (session(&system), session(&system));
        a.begin(Level::RepeatableRead).unwrap();
        b.begin(Level::RepeatableRead).unwrap();
        a.write(&Key::Int(1), 2).unwrap();
        std::thread::scope(|s| {
            let blocked = s.spawn(move || b.write(&Key::Int(1), 3));
            until_blocked(&b_handle);
            a.commit().unwrap();
            let err = blocked.join().unwrap().unwrap_err();
            assert_eq!(
                (err.failure, err.cause.as_str(), err.session_lost),
                (Failure::Aborted, "write-conflict", false)
            );
            assert!(err.message.contains("concurrent update"), "{}", err.message);
        });
    }

    #[test]
    fn a_killed_session_loses_its_transaction() {
        let system = EngineSystem::new(None);
        system.prepare(&[]).unwrap();
        let mut s = system.connect().unwrap();
        s.begin(Level::Serializable).unwrap();
        s.append(&Key::Int(1), 1).unwrap();
        s.kill_switch().unwrap().kill();
        let err = s.commit().unwrap_err();
        assert!(err.session_lost);
        let mut fresh = system.connect().unwrap();
        fresh.begin(Level::Serializable).unwrap();
        assert!(fresh.read_list(&Key::Int(1)).unwrap().is_empty(), "the killed transaction had no effect");
    }

    #[test]
    fn records_round_trip_and_update_one_field() {
        let system = EngineSystem::new(None);
        system.prepare(&[]).unwrap();
        let record = vec![b"aa".to_vec(), Vec::new(), b"ccc".to_vec()];
        system.prepare_records(3, &[(Key::from("user1"), record.clone())]).unwrap();
        let mut s = system.connect().unwrap();
        s.begin(Level::Serializable).unwrap();
        assert_eq!(s.read_record(&Key::from("user1")).unwrap(), Some(record));
        assert!(s.update_field(&Key::from("user1"), 1, b"bbbb").unwrap());
        assert!(!s.update_field(&Key::from("user2"), 1, b"x").unwrap(), "no such record");
        assert_eq!(s.update_field(&Key::from("user1"), 3, b"x").unwrap_err().failure, Failure::Fatal);
        s.rollback().unwrap();
        s.begin(Level::Serializable).unwrap();
        assert!(s.update_field(&Key::from("user1"), 1, b"bbbb").unwrap());
        s.commit().unwrap();
        s.begin(Level::Serializable).unwrap();
        let expected = vec![b"aa".to_vec(), b"bbbb".to_vec(), b"ccc".to_vec()];
        assert_eq!(s.read_record(&Key::from("user1")).unwrap(), Some(expected));
        assert!(s.scan(&Predicate::True).unwrap().is_empty(), "records are not registers");
        s.commit().unwrap();
    }

    #[test]
    fn levels_say_how_they_map() {
        let system = EngineSystem::new(None);
        assert!(matches!(system.level(Level::RepeatableRead), LevelSupport::Mapped { .. }));
        assert!(matches!(system.level(Level::Serializable), LevelSupport::Native { .. }));
    }
}
