//! PostgreSQL as a system under test (the `postgres` crate, no TLS), reached by URL (`--url` or
//! [`PostgresSystem::URL_VAR`]). Each `prepare` creates fresh tables whose names carry a suffix unique to
//! the run (process id, clock, counter), so runs sharing a server never meet, and drops the tables this
//! system created before; dropping the system drops its tables too. Lists are `bigint[]`, appended to by
//! one upsert (`v = t.v || EXCLUDED.v`); registers are `bigint`; records (made by `prepare_records`) have
//! a `bytea` column per field, as YCSB's JDBC binding lays out its `usertable`; keys are `text` as in
//! [`crate::sql`].
//!
//! The isolation level is set per transaction (`BEGIN ISOLATION LEVEL ...`). Repeatable read is
//! snapshot isolation in PostgreSQL (Ports & Grittner 2012), and serializable is SSI over it (Cahill et
//! al. 2008). Errors are classified by `classify`: an error after which the server has rolled the
//! transaction back (serialization failures, deadlocks, the server's resource errors such as 53200 when
//! the predicate-lock table is full, lock and statement timeouts) is an abort; a connection lost during
//! COMMIT is indeterminate, lost before it an abort (the server rolls back).
//! The kill switch terminates the session's backend from a separate admin connection.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ::postgres::types::{FromSql, ToSql};
use ::postgres::{Client, Config, NoTls, Row, Statement};
use histories::{Key, Predicate, Rows};

use crate::fault::{connection_lost, unknown_outcome};
use crate::level::{Level, LevelSupport};
use crate::lock::lock;
use crate::session::{AdapterError, Change, KillSwitch, Record, Session, System, TxnError};
use crate::sql::{key_of_text, key_text, predicate_condition};
use crate::tables::{Created, Tables, drop_each};
use crate::txn_state::Tracked;

/// PostgreSQL, on a server given by URL.
pub struct PostgresSystem {
    config: Config,
    version: String,
    tables: Mutex<Created>,
    admin: Arc<Admin>,
}

/// How long dropping old tables waits for sessions still holding them, before leaving them for later.
const DROP_LOCK_TIMEOUT: &str = "2s";

impl PostgresSystem {
    /// The environment variable that gives the URL when `--url` does not.
    pub const URL_VAR: &str = "ISOCHECK_PG_URL";

    /// Connects to the server at `url` (`postgres://user@host:port/db`, or key=value pairs), to check it
    /// is there and read its version. A URL without `connect_timeout` gets 10 seconds.
    pub fn new(url: &str) -> Result<PostgresSystem, AdapterError> {
        let mut config: Config = url.parse().map_err(unavailable)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        if config.get_application_name().is_none() {
            config.application_name("isocheck");
        }
        let mut client = config.connect(NoTls).map_err(unavailable)?;
        let row = client
            .query_one("SELECT version(), current_setting('server_version_num')::int", &[])
            .map_err(unavailable)?;
        let version: String = row.try_get(0).map_err(unavailable)?;
        let version_num: i32 = row.try_get(1).map_err(unavailable)?;
        // Since PostgreSQL 14 pg_terminate_backend can wait for the backend to be gone, so a killed
        // session's next statement certainly fails.
        let terminate = if version_num >= 140_000 {
            "SELECT pg_terminate_backend($1, 5000)"
        } else {
            "SELECT pg_terminate_backend($1)"
        };
        let admin = Arc::new(Admin { config: config.clone(), client: Mutex::new(Some(client)), terminate });
        Ok(PostgresSystem { config, version, tables: Mutex::default(), admin })
    }

    /// The current run's table names (lists, registers), once prepared.
    pub fn tables(&self) -> Option<(String, String)> {
        lock(&self.tables).current.as_ref().map(|t| (t.lists.clone(), t.registers.clone()))
    }

    fn client(&self) -> Result<Client, AdapterError> {
        self.config.connect(NoTls).map_err(unavailable)
    }

    /// Drops these tables, returning those that could not be dropped (still locked by a session).
    fn drop_tables(client: &mut Client, tables: Vec<Tables>) -> Vec<Tables> {
        drop_each(tables, |sql| client.batch_execute(&sql).is_ok())
    }
}

fn unavailable(e: ::postgres::Error) -> AdapterError {
    AdapterError::Unavailable { system: "postgres", message: message(&e) }
}

impl System for PostgresSystem {
    fn name(&self) -> &'static str {
        "postgres"
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn level(&self, requested: Level) -> LevelSupport {
        match requested {
            Level::ReadUncommitted => LevelSupport::Mapped {
                to: "READ COMMITTED".into(),
                why: "PostgreSQL's read uncommitted behaves as read committed".into(),
            },
            Level::ReadCommitted => LevelSupport::Native { name: "READ COMMITTED".into() },
            Level::SnapshotIsolation => LevelSupport::Mapped {
                to: "REPEATABLE READ".into(),
                why: "PostgreSQL's repeatable read is snapshot isolation".into(),
            },
            Level::RepeatableRead => LevelSupport::Native { name: "REPEATABLE READ".into() },
            Level::Serializable => LevelSupport::Native { name: "SERIALIZABLE".into() },
        }
    }

    fn prepare(&self, registers: &[(Key, i64)]) -> Result<(), AdapterError> {
        let mut client = self.client()?;
        client.batch_execute(&format!("SET lock_timeout = '{DROP_LOCK_TIMEOUT}'")).map_err(unavailable)?;
        let mut created = lock(&self.tables);
        let old = created.take_all();
        created.stale = Self::drop_tables(&mut client, old);

        let tables = Tables::fresh();
        let mut txn = client.transaction().map_err(unavailable)?;
        txn.batch_execute(&format!(
            "CREATE TABLE {} (k text PRIMARY KEY, v bigint[] NOT NULL);
             CREATE TABLE {} (k text PRIMARY KEY, v bigint NOT NULL, ver bigint NOT NULL DEFAULT 0);",
            tables.lists, tables.registers
        ))
        .map_err(unavailable)?;
        let insert =
            txn.prepare(&format!("INSERT INTO {} (k, v) VALUES ($1, $2)", tables.registers)).map_err(unavailable)?;
        for (key, value) in registers {
            txn.execute(&insert, &[&key_text(key), value]).map_err(|e| AdapterError::Unavailable {
                system: "postgres",
                message: format!("initial register {key}: {}", message(&e)),
            })?;
        }
        txn.commit().map_err(unavailable)?;
        created.current = Some(tables);
        Ok(())
    }

    fn prepare_records(&self, fields: usize, records: &[(Key, Record)]) -> Result<(), AdapterError> {
        let table = lock(&self.tables).current.as_ref().map(|t| t.records.clone()).ok_or_else(|| {
            AdapterError::Unavailable { system: "postgres", message: "prepare_records before prepare".into() }
        })?;
        let mut client = self.client()?;
        let mut txn = client.transaction().map_err(unavailable)?;
        let columns: String = (0..fields).map(|f| format!(", field{f} bytea NOT NULL")).collect();
        txn.batch_execute(&format!("DROP TABLE IF EXISTS {table}; CREATE TABLE {table} (k text PRIMARY KEY{columns})"))
            .map_err(unavailable)?;
        let placeholders: String = (0..fields).map(|f| format!(", ${}", f + 2)).collect();
        let insert = txn.prepare(&format!("INSERT INTO {table} VALUES ($1{placeholders})")).map_err(unavailable)?;
        for (key, record) in records {
            if record.len() != fields {
                return Err(AdapterError::Unavailable {
                    system: "postgres",
                    message: format!("record {key} has {} fields, not {fields}", record.len()),
                });
            }
            let key = key_text(key);
            let params: Vec<&(dyn ToSql + Sync)> = std::iter::once(&key as &(dyn ToSql + Sync))
                .chain(record.iter().map(|f| f as &(dyn ToSql + Sync)))
                .collect();
            txn.execute(&insert, &params).map_err(unavailable)?;
        }
        txn.commit().map_err(unavailable)
    }

    fn connect(&self) -> Result<Box<dyn Session>, AdapterError> {
        let tables = lock(&self.tables).current.clone().ok_or_else(|| AdapterError::Unavailable {
            system: "postgres",
            message: "connect before prepare: no tables yet".into(),
        })?;
        let mut client = self.client()?;
        let pid: i32 =
            client.query_one("SELECT pg_backend_pid()", &[]).and_then(|r| r.try_get(0)).map_err(unavailable)?;
        let kill = Arc::new(PgKill { admin: Arc::clone(&self.admin), pid });
        Ok(Box::new(Tracked::new(PgConn { client, tables, prepared: HashMap::new(), kill, committing: false })))
    }
}

impl Drop for PostgresSystem {
    fn drop(&mut self) {
        let stale = lock(&self.tables).take_all();
        if stale.is_empty() {
            return;
        }
        if let Ok(mut client) = self.client()
            && client.batch_execute(&format!("SET lock_timeout = '{DROP_LOCK_TIMEOUT}'")).is_ok()
        {
            Self::drop_tables(&mut client, stale);
        }
    }
}

/// A connection kept for terminating sessions' backends.
struct Admin {
    config: Config,
    client: Mutex<Option<Client>>,
    /// `pg_terminate_backend`, waiting for the backend to exit where the server can.
    terminate: &'static str,
}

/// Kills a PostgreSQL session by terminating its backend (`pg_terminate_backend`), as an operator would.
struct PgKill {
    admin: Arc<Admin>,
    pid: i32,
}

impl PgKill {
    /// Runs `sql` with the session's pid on the admin connection, replacing a broken one once.
    fn admin_query(&self, sql: &str) -> Option<Row> {
        let mut client = lock(&self.admin.client);
        for _ in 0..2 {
            if client.is_none() {
                *client = self.admin.config.connect(NoTls).ok();
            }
            let c = client.as_mut()?;
            match c.query_one(sql, &[&self.pid]) {
                Ok(row) => return Some(row),
                Err(_) => *client = None,
            }
        }
        None
    }
}

impl KillSwitch for PgKill {
    fn kill(&self) {
        self.admin_query(self.admin.terminate);
    }

    fn waiting(&self) -> Option<bool> {
        // The backends holding a lock the session's backend waits for (PostgreSQL 9.6 and later).
        let row = self.admin_query("SELECT cardinality(pg_blocking_pids($1)) > 0")?;
        row.try_get(0).ok()
    }
}

/// One session's connection, running each call as it comes (see [`Tracked`] for the state around it).
struct PgConn {
    client: Client,
    tables: Tables,
    /// Statements prepared on this connection, by SQL text.
    prepared: HashMap<String, Statement>,
    kill: Arc<PgKill>,
    committing: bool,
}

impl PgConn {
    fn statement(&mut self, sql: String) -> Result<Statement, ::postgres::Error> {
        if let Some(statement) = self.prepared.get(&sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(&sql)?;
        self.prepared.insert(sql, statement.clone());
        Ok(statement)
    }

    fn query(&mut self, sql: String, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, TxnError> {
        let result = self.statement(sql).and_then(|s| self.client.query(&s, params));
        result.map_err(|e| self.error(&e))
    }

    fn execute(&mut self, sql: String, params: &[&(dyn ToSql + Sync)]) -> Result<u64, TxnError> {
        let result = self.statement(sql).and_then(|s| self.client.execute(&s, params));
        result.map_err(|e| self.error(&e))
    }

    fn batch(&mut self, sql: &str) -> Result<(), TxnError> {
        self.client.batch_execute(sql).map_err(|e| self.error(&e))
    }

    fn error(&self, e: &::postgres::Error) -> TxnError {
        classify(fault(e, self.client.is_closed()), self.committing, message(e))
    }
}

/// What went wrong, as far as a history cares: the connection is gone when closed, broken, or ended by the
/// server (SQLSTATE class 08, or 57P01-57P03: an administrator terminated the backend, or the server is
/// shutting down or crashed); a server error carries its SQLSTATE.
type Fault = crate::fault::Fault<String>;

fn fault(e: &::postgres::Error, client_closed: bool) -> Fault {
    let io = std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>());
    if e.is_closed() || client_closed || io {
        return Fault::Lost;
    }
    match e.code().map(|c| c.code()) {
        Some(code) if code.starts_with("08") || ["57P01", "57P02", "57P03"].contains(&code) => Fault::Lost,
        Some(code) => Fault::Server(code.to_string()),
        None => Fault::Client,
    }
}

/// SQLSTATEs outside classes 40 and 53 that end a transaction without effect and say nothing wrong
/// about the run: unique violation (`insert` of a key that exists), lock not available and statement
/// cancelled (when the URL sets `lock_timeout` or `statement_timeout`).
const ABORTS: [&str; 3] = ["23505", "55P03", "57014"];

/// Whether the server rolled back the transaction on this SQLSTATE, certainly without effect: class 40
/// (transaction rollback: serialization failure 40001, deadlock 40P01, ...) except 40003 (statement
/// completion unknown), class 53 (insufficient resources: 53200 out of memory, which PostgreSQL raises
/// when its predicate-lock table is full, 53100 disk full, ...), and [`ABORTS`].
fn rolled_back(code: &str) -> bool {
    (code.starts_with("40") && code != "40003") || code.starts_with("53") || ABORTS.contains(&code)
}

/// What an error means for the history. (A COMMIT after a failed statement, which PostgreSQL answers
/// with ROLLBACK, never reaches here: the session's transaction state answers it, as an abort.)
///
/// | error                                          | before COMMIT              | in answer to COMMIT           |
/// |------------------------------------------------|----------------------------|-------------------------------|
/// | connection lost (closed, I/O, 08xxx, 57P01-03) | Aborted, session lost      | Indeterminate, session lost   |
/// | 40003 (statement completion unknown)           | Aborted, session lost      | Indeterminate, session lost   |
/// | other 40xxx, 53xxx, 23505, 55P03, 57014        | Aborted                    | Aborted                       |
/// | any other SQLSTATE                             | Fatal (bad SQL, no table)  | Aborted (the server rolled back) |
/// | an error of the client itself                  | Fatal                      | Fatal                         |
fn classify(fault: Fault, committing: bool, message: String) -> TxnError {
    match fault {
        // The server rolls back a transaction whose connection is gone, unless its COMMIT got there first.
        Fault::Lost => connection_lost(committing, message),
        // The statement's fate is unknown: a COMMIT's may have committed; before COMMIT nothing has.
        Fault::Server(code) if code == "40003" => unknown_outcome(committing, code, message),
        Fault::Server(code) if rolled_back(&code) => TxnError::aborted(code, message),
        // An error in answer to COMMIT means the server rolled the transaction back.
        Fault::Server(code) if committing => TxnError::aborted(code, message),
        Fault::Server(code) => TxnError::fatal(code, message),
        Fault::Client => TxnError::fatal("postgres-client", message),
    }
}

/// The server's own message when there is one, else the client's with its causes.
fn message(e: &::postgres::Error) -> String {
    match e.as_db_error() {
        // The hint, when there is one, names what to change (`max_pred_locks_per_transaction` for 53200).
        Some(db) => match db.hint() {
            Some(hint) => format!("{}: {} (hint: {hint})", db.severity(), db.message()),
            None => format!("{}: {}", db.severity(), db.message()),
        },
        None => {
            let mut message = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                message = format!("{message}: {s}");
                source = s.source();
            }
            message
        }
    }
}

fn level_sql(level: Level) -> &'static str {
    match level {
        Level::ReadUncommitted | Level::ReadCommitted => "BEGIN ISOLATION LEVEL READ COMMITTED",
        Level::SnapshotIsolation | Level::RepeatableRead => "BEGIN ISOLATION LEVEL REPEATABLE READ",
        Level::Serializable => "BEGIN ISOLATION LEVEL SERIALIZABLE",
    }
}

/// A row's column, or a fatal error if it does not decode.
/// The values of a predicate's condition as statement parameters.
fn sql_params(values: &[i64]) -> Vec<&(dyn ToSql + Sync)> {
    values.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

/// The key in a row's first column.
fn key_column(row: &Row) -> Result<Key, TxnError> {
    key_of_text(column(row, 0)?)
}

fn column<'a, T: FromSql<'a>>(row: &'a Row, i: usize) -> Result<T, TxnError> {
    row.try_get(i).map_err(|e| TxnError::fatal("postgres-client", message(&e)))
}

impl Session for PgConn {
    fn begin(&mut self, level: Level) -> Result<(), TxnError> {
        self.batch(level_sql(level))
    }

    fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError> {
        let sql = format!("SELECT v FROM {} WHERE k = $1", self.tables.lists);
        let rows = self.query(sql, &[&key_text(key)])?;
        rows.first().map_or(Ok(Vec::new()), |row| column(row, 0))
    }

    fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError> {
        let sql = format!(
            "INSERT INTO {} AS t (k, v) VALUES ($1, ARRAY[$2::bigint]) ON CONFLICT (k) DO UPDATE SET v = t.v || EXCLUDED.v",
            self.tables.lists
        );
        self.execute(sql, &[&key_text(key), &element]).map(drop)
    }

    fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError> {
        let sql = format!("SELECT v FROM {} WHERE k = $1", self.tables.registers);
        let rows = self.query(sql, &[&key_text(key)])?;
        rows.first().map(|row| column(row, 0)).transpose()
    }

    fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.write_versioned(key, value).map(drop)
    }

    /// The row's version counter `ver` goes up by one in the writing statement itself. PostgreSQL holds
    /// the row's lock from that statement to the end of the transaction, and a writer that waited for it
    /// recomputes `ver + 1` on the version it then replaces (read committed) or fails (repeatable read and
    /// serializable): every committed version of a row has a larger `ver` than the one it replaced.
    fn write_versioned(&mut self, key: &Key, value: i64) -> Result<Option<i64>, TxnError> {
        let sql = format!(
            "INSERT INTO {} AS t (k, v, ver) VALUES ($1, $2, 1) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, \
             ver = t.ver + 1 RETURNING ver",
            self.tables.registers
        );
        let rows = self.query(sql, &[&key_text(key), &value])?;
        rows.first().map(|row| column(row, 0)).transpose()
    }

    fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        let sql = format!("INSERT INTO {} (k, v) VALUES ($1, $2)", self.tables.registers);
        self.execute(sql, &[&key_text(key), &value]).map(drop)
    }

    fn delete(&mut self, key: &Key) -> Result<bool, TxnError> {
        let sql = format!("DELETE FROM {} WHERE k = $1", self.tables.registers);
        self.execute(sql, &[&key_text(key)]).map(|n| n > 0)
    }

    fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let (condition, values) = predicate_condition(predicate, |i| format!("${i}"));
        let sql = format!("SELECT k, v FROM {} WHERE {condition}", self.tables.registers);
        let rows = self.query(sql, &sql_params(&values))?;
        rows.iter().map(|row| Ok((key_column(row)?, column(row, 1)?))).collect()
    }

    fn read_record(&mut self, key: &Key) -> Result<Option<Record>, TxnError> {
        let sql = format!("SELECT * FROM {} WHERE k = $1", self.tables.records);
        let rows = self.query(sql, &[&key_text(key)])?;
        rows.first().map(|row| (1..row.len()).map(|i| column::<Vec<u8>>(row, i)).collect()).transpose()
    }

    fn update_field(&mut self, key: &Key, field: usize, value: &[u8]) -> Result<bool, TxnError> {
        let sql = format!("UPDATE {} SET field{field} = $2 WHERE k = $1", self.tables.records);
        self.execute(sql, &[&key_text(key), &value]).map(|n| n > 0)
    }

    fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let (condition, values) = predicate_condition(predicate, |i| format!("${i}"));
        let sql = format!("DELETE FROM {} WHERE {condition} RETURNING k, v", self.tables.registers);
        let rows = self.query(sql, &sql_params(&values))?;
        rows.iter().map(|row| Ok((key_column(row)?, column(row, 1)?))).collect()
    }

    fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
        let (condition, mut values) = predicate_condition(predicate, |i| format!("${}", i + 1));
        let (assign, amount) = match change {
            Change::Set(x) => ("$1", x),
            Change::Add(d) => ("v + $1", d),
        };
        values.insert(0, amount);
        let sql = format!(
            "UPDATE {} SET v = {assign}, ver = ver + 1 WHERE {condition} RETURNING k, v",
            self.tables.registers
        );
        let rows = self.query(sql, &sql_params(&values))?;
        rows.iter()
            .map(|row| {
                let new: i64 = column(row, 1)?;
                Ok((key_column(row)?, change.value_seen(predicate, new)?, new))
            })
            .collect()
    }

    fn commit(&mut self) -> Result<(), TxnError> {
        self.committing = true;
        let result = self.batch("COMMIT");
        self.committing = false;
        result
    }

    fn rollback(&mut self) -> Result<(), TxnError> {
        self.batch("ROLLBACK")
    }

    fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
        Some(Arc::clone(&self.kill) as Arc<dyn KillSwitch>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Failure;

    fn classified(fault: Fault, committing: bool) -> (Failure, String, bool) {
        let e = classify(fault, committing, "message".into());
        (e.failure, e.cause, e.session_lost)
    }

    #[test]
    fn the_classification_table() {
        let sql = |code: &str| Fault::Server(code.into());
        let cases = [
            (Fault::Lost, false, (Failure::Aborted, "connection lost", true)),
            (Fault::Lost, true, (Failure::Indeterminate, "connection lost", true)),
            (sql("40001"), false, (Failure::Aborted, "40001", false)),
            (sql("40001"), true, (Failure::Aborted, "40001", false)),
            (sql("40P01"), false, (Failure::Aborted, "40P01", false)),
            (sql("23505"), false, (Failure::Aborted, "23505", false)),
            (sql("55P03"), false, (Failure::Aborted, "55P03", false)),
            (sql("57014"), false, (Failure::Aborted, "57014", false)),
            (sql("53200"), false, (Failure::Aborted, "53200", false)),
            (sql("53200"), true, (Failure::Aborted, "53200", false)),
            (sql("53100"), false, (Failure::Aborted, "53100", false)),
            (sql("40000"), false, (Failure::Aborted, "40000", false)),
            (sql("40002"), false, (Failure::Aborted, "40002", false)),
            (sql("40003"), false, (Failure::Aborted, "40003", true)),
            (sql("40003"), true, (Failure::Indeterminate, "40003", true)),
            (sql("54000"), false, (Failure::Fatal, "54000", false)),
            (sql("23514"), true, (Failure::Aborted, "23514", false)),
            (sql("42P01"), false, (Failure::Fatal, "42P01", false)),
            (Fault::Client, false, (Failure::Fatal, "postgres-client", false)),
        ];
        for (fault, committing, (failure, cause, lost)) in cases {
            let what = format!("{fault:?} committing={committing}");
            assert_eq!(classified(fault, committing), (failure, cause.to_string(), lost), "{what}");
        }
    }

    /// A real "connection closed" needs a server: the one `ISOCHECK_PG_URL` names (see tests/postgres.rs).
    #[test]
    #[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
    fn errors_from_a_terminated_connection_are_lost_connections() {
        let url = std::env::var(PostgresSystem::URL_VAR).unwrap_or_else(|_| {
            panic!("this test needs PostgreSQL: set {}, or run scripts/test", PostgresSystem::URL_VAR)
        });
        let mut client = Client::connect(&url, NoTls).unwrap();
        client.batch_execute("BEGIN").unwrap();
        // What the client sees varies with timing: the server's 57P01, a reset socket, a closed connection.
        let mut errors = vec![client.batch_execute("SELECT pg_terminate_backend(pg_backend_pid())").unwrap_err()];
        errors.extend((0..3).map(|_| client.batch_execute("COMMIT").unwrap_err()));
        assert!(errors.iter().any(|e| e.is_closed()), "{errors:?}");
        for e in &errors {
            assert_eq!(fault(e, false), Fault::Lost, "{e:?}");
            let at_commit = classify(fault(e, false), true, message(e));
            assert_eq!((at_commit.failure, at_commit.cause.as_str()), (Failure::Indeterminate, "connection lost"));
        }
    }

    #[test]
    fn every_level_begins_with_its_own_isolation_clause() {
        assert_eq!(level_sql(Level::ReadCommitted), "BEGIN ISOLATION LEVEL READ COMMITTED");
        assert_eq!(level_sql(Level::SnapshotIsolation), "BEGIN ISOLATION LEVEL REPEATABLE READ");
        assert_eq!(level_sql(Level::RepeatableRead), "BEGIN ISOLATION LEVEL REPEATABLE READ");
        assert_eq!(level_sql(Level::Serializable), "BEGIN ISOLATION LEVEL SERIALIZABLE");
    }
}
