//! MariaDB (and MySQL-compatible servers) as a system under test, through the synchronous `mysql` crate
//! without TLS, reached by URL (`mysql://user@host:port/db`, from `--url` or [`MariadbSystem::URL_VAR`]).
//! Each session is its own connection. As in [`crate::postgres`], each `prepare` creates InnoDB tables
//! whose names carry a suffix unique to the run, drops those of the run before, and dropping the system
//! drops the last ones.
//!
//! Storage: keys are `VARBINARY` holding the text of [`crate::sql`] (binary, so no collation folds case
//! or pads spaces); registers are `BIGINT`; records have a `LONGBLOB` per field. Lists are a text column
//! of comma-separated elements, appended to by one upsert (`v = CONCAT_WS(',', v, VALUES(v))`), as
//! Jepsen's MySQL suite stores them: one statement, readable in the server's own client, and no JSON
//! functions whose behaviour differs between MariaDB and MySQL (MariaDB's `JSON` is `LONGTEXT` anyway).
//!
//! The level is set per transaction (`SET TRANSACTION ISOLATION LEVEL ...`, then `START TRANSACTION`).
//! InnoDB's repeatable read reads a snapshot, but its writes and locking reads see the latest committed
//! row, so it is not snapshot isolation (lost updates and write skew commit; Hermitage's MySQL column)
//! unless `innodb_snapshot_isolation` is on, which the system reads (and a URL may set for its
//! sessions: `?innodb_snapshot_isolation=on`). MariaDB 10.11 has no `UPDATE ... RETURNING`, so
//! `update_where` locks the matching rows with `SELECT ... FOR UPDATE` (the same latest-committed,
//! locking read an `UPDATE` makes) and updates them by key: what it reports is exactly what it changed.
//!
//! Galera (`--db galera`, [`MariadbSystem::galera`]) is the same adapter over several nodes of one
//! cluster: tables are created through the first node that answers (DDL replicates), each new session
//! connects to the next node in turn (or always to one, `affinity`), trying the others while its node
//! is down, and reports its node ([`Session::node`]). Its connections have read and write timeouts
//! ([`GALERA_STATEMENT_TIMEOUT`]), longer than the 5 to 6.5 s the survivors stall while a lost node is
//! missed, so a statement on a dead or paused node ends as a lost connection instead of hanging;
//! `wsrep_sync_wait` may be set for every session. Galera's own errors: 1047 (WSREP has not yet
//! prepared node for application use) is an abort before COMMIT and indeterminate in answer to it, and
//! the session is replaced either way; a certification failure is 1213, as a deadlock is.
//!
//! Errors are classified by `classify`: deadlock (1213, also Galera's certification failure), lock
//! wait timeout (1205, after which InnoDB rolls back only the statement: the session's transaction
//! state rolls back the rest) and 1020 (record changed since the snapshot, `innodb_snapshot_isolation`)
//! are aborts counted by cause, as is any other server error inside a transaction, since the
//! transaction is then rolled back; a connection lost during COMMIT is indeterminate. The kill switch is
//! `KILL CONNECTION` from a separate admin connection.
//!
//! This module owns the system (its nodes, tables and versions); reaching a node from a URL is
//! `nodes`', a session's statements `session`'s, killing one `kill`'s, and what an error means `faults`'.

mod faults;
mod kill;
mod nodes;
mod session;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use histories::Key;
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder, Value};

use self::faults::{NOT_PREPARED, galera_ready};
use self::kill::{Admin, MyKill};
use self::nodes::{node_opts, node_urls};
use self::session::MyConn;
use crate::level::{Level, LevelSupport};
use crate::lock::lock;
use crate::session::{AdapterError, Record, Session, System};
use crate::sql::key_text;
use crate::tables::{Created, Tables, drop_each};
use crate::txn_state::Tracked;

/// The system's name, as [`System::name`] says it.
const NAME: &str = "mariadb";

/// The URL parameter that sets `innodb_snapshot_isolation` for every session.
const SNAPSHOT_PARAM: &str = "innodb_snapshot_isolation";

/// The Galera system's name, as [`System::name`] says it.
const GALERA: &str = "galera";

/// How long a Galera session waits for any one answer (and for a connection) before its node counts as
/// gone: longer than the survivors' stall while a killed node is missed (5 to 6.5 s measured), shorter
/// than a run should hang.
pub const GALERA_STATEMENT_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a Galera connection that sets up tables waits for an answer.
const GALERA_SETUP_TIMEOUT: Duration = Duration::from_secs(120);

/// A Galera session's lock wait timeout (seconds), below [`GALERA_STATEMENT_TIMEOUT`], so that a
/// statement waiting for a lock ends as 1205 rather than as a lost connection; a URL may set another.
const GALERA_LOCK_WAIT_S: u32 = 10;

/// How long a new Galera session keeps trying the nodes, in turn, before it reports none reachable.
const GALERA_CONNECT_PATIENCE: Duration = Duration::from_secs(5);

/// MariaDB, on a server given by URL, or Galera, on the nodes of one cluster.
pub struct MariadbSystem {
    name: &'static str,
    nodes: Vec<Node>,
    /// The node the next session connects to first (round robin).
    next: AtomicUsize,
    /// Every session on this node (an index into `nodes`), if set.
    affinity: Option<usize>,
    /// `wsrep_sync_wait` as every session sets it (Galera), if the run sets it.
    sync_wait: Option<u32>,
    version: String,
    snapshot_isolation: Option<bool>,
    tables: Mutex<Created>,
}

/// One server of the system: its name (`n1`, ... for Galera; empty for one MariaDB), how to reach it,
/// and the connection that kills its sessions.
struct Node {
    name: String,
    opts: Opts,
    admin: Arc<Admin>,
}

/// How a Galera system spreads its sessions and what each sets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GaleraOptions {
    /// Put every session on this node (from 0) rather than round robin over all.
    pub affinity: Option<usize>,
    /// `SET SESSION wsrep_sync_wait = N` in every session (1: reads wait until the node has applied
    /// every write the cluster committed before them).
    pub sync_wait: Option<u32>,
}

/// How long dropping old tables waits for sessions still holding them (`lock_wait_timeout`, seconds),
/// before leaving them for later.
const DROP_LOCK_TIMEOUT_S: u32 = 2;

impl MariadbSystem {
    /// The environment variable that gives the URL when `--url` does not.
    pub const URL_VAR: &str = "ISOCHECK_MYSQL_URL";

    /// Connects to the server at `url` (`mysql://user:password@host:port/db`, or `mariadb://`), to check
    /// it is there and read its version and `innodb_snapshot_isolation`. Beside the `mysql` crate's own
    /// URL parameters, `innodb_snapshot_isolation=on|off` and `innodb_lock_wait_timeout=SECONDS` set
    /// those variables in every session. A URL without a connect timeout gets 10 seconds.
    pub fn new(url: &str) -> Result<MariadbSystem, AdapterError> {
        let opts = node_opts(NAME, url, None, &[])?;
        let (conn, version, snapshot_isolation) = Self::first_look(NAME, &opts)?;
        let admin = Arc::new(Admin { opts: opts.clone(), conn: Mutex::new(Some(conn)) });
        Ok(MariadbSystem {
            name: NAME,
            nodes: vec![Node { name: String::new(), opts, admin }],
            next: AtomicUsize::new(0),
            affinity: None,
            sync_wait: None,
            version,
            snapshot_isolation,
            tables: Mutex::default(),
        })
    }

    /// A Galera cluster at `url`, which lists its nodes (`mysql://root@127.0.0.1:P1,127.0.0.1:P2/db`,
    /// named `n1`, `n2`, ... in that order), with the URL parameters of [`MariadbSystem::new`]. The
    /// version and settings are read from the first node that answers.
    pub fn galera(url: &str, options: GaleraOptions) -> Result<MariadbSystem, AdapterError> {
        let urls = node_urls(url)?;
        if let Some(a) = options.affinity
            && a >= urls.len()
        {
            return Err(AdapterError::Unavailable {
                system: GALERA,
                message: format!("node affinity {} names no node of the {} the URL lists", a + 1, urls.len()),
            });
        }
        let mut init: Vec<String> =
            options.sync_wait.map(|n| format!("SET SESSION wsrep_sync_wait = {n}")).into_iter().collect();
        if !url.contains("innodb_lock_wait_timeout=") {
            init.insert(0, format!("SET SESSION innodb_lock_wait_timeout = {GALERA_LOCK_WAIT_S}"));
        }
        let mut nodes = Vec::with_capacity(urls.len());
        let mut first = None;
        let mut errors = Vec::new();
        for (i, url) in urls.iter().enumerate() {
            let name = format!("n{}", i + 1);
            let opts = node_opts(GALERA, url, Some(GALERA_STATEMENT_TIMEOUT), &init)?;
            let conn = if first.is_none() {
                match Self::first_look(GALERA, &opts) {
                    Ok((conn, version, snapshot)) => {
                        first = Some((version, snapshot));
                        Some(conn)
                    }
                    Err(e) => {
                        errors.push(format!("{name}: {e}"));
                        None
                    }
                }
            } else {
                None
            };
            nodes.push(Node { name, opts: opts.clone(), admin: Arc::new(Admin { opts, conn: Mutex::new(conn) }) });
        }
        let Some((version, snapshot_isolation)) = first else {
            return Err(AdapterError::Unavailable { system: GALERA, message: errors.join("; ") });
        };
        Ok(MariadbSystem {
            name: GALERA,
            nodes,
            next: AtomicUsize::new(0),
            affinity: options.affinity,
            sync_wait: options.sync_wait,
            version,
            snapshot_isolation,
            tables: Mutex::default(),
        })
    }

    /// A connection to a server, its version and its `innodb_snapshot_isolation`.
    fn first_look(system: &'static str, opts: &Opts) -> Result<(Conn, String, Option<bool>), AdapterError> {
        let unavailable = |e: mysql::Error| AdapterError::Unavailable { system, message: e.to_string() };
        let mut conn = Conn::new(opts.clone()).map_err(unavailable)?;
        let (version, comment): (String, String) = conn
            .query_first("SELECT @@version, @@version_comment")
            .map_err(unavailable)?
            .ok_or_else(|| AdapterError::Unavailable { system, message: "no version".into() })?;
        let mut version = format!("MariaDB {version} ({comment})");
        if system == GALERA
            && let Ok(Some((_, provider))) =
                conn.query_first::<(String, String), _>("SHOW GLOBAL STATUS LIKE 'wsrep_provider_version'")
        {
            version.push_str(&format!(", Galera {provider}"));
        }
        // The variable exists since MariaDB 10.6.18, 10.11.8 and 11.x; elsewhere the answer is an error.
        let snapshot_isolation =
            conn.query_first::<i64, _>("SELECT @@SESSION.innodb_snapshot_isolation").ok().flatten();
        Ok((conn, version, snapshot_isolation.map(|v| v != 0)))
    }

    /// `innodb_snapshot_isolation` as the system's sessions run: `None` where the server has no such
    /// variable (before MariaDB 10.6.18 and 10.11.8, or MySQL).
    pub fn snapshot_isolation(&self) -> Option<bool> {
        self.snapshot_isolation
    }

    /// The current run's table names (lists, registers), once prepared.
    pub fn tables(&self) -> Option<(String, String)> {
        lock(&self.tables).current.as_ref().map(|t| (t.lists.clone(), t.registers.clone()))
    }

    /// A connection for setting up tables: to the first node that answers and is ready (a Galera node
    /// that lost its place in the cluster for a moment, as one may on a busy machine, answers 1047 to
    /// every statement until it is back), trying the nodes in turn for up to [`GALERA_SETUP_TIMEOUT`].
    /// On a cluster its timeouts are [`GALERA_SETUP_TIMEOUT`] too: DDL waits its turn in the cluster's
    /// total order, behind every write set still being applied.
    fn conn(&self) -> Result<Conn, AdapterError> {
        if self.name != GALERA {
            return self.session_conn(0).map(|(_, conn)| conn);
        }
        let started = Instant::now();
        let mut errors = Vec::new();
        loop {
            errors.clear();
            for node in &self.nodes {
                let opts = OptsBuilder::from_opts(node.opts.clone())
                    .read_timeout(Some(GALERA_SETUP_TIMEOUT))
                    .write_timeout(Some(GALERA_SETUP_TIMEOUT));
                match Conn::new(opts) {
                    Ok(mut conn) => match galera_ready(&mut conn) {
                        Ok(true) => return Ok(conn),
                        Ok(false) => errors.push(format!("{}: not ready (wsrep_ready is not ON)", node.name)),
                        Err(e) => errors.push(format!("{}: {e}", node.name)),
                    },
                    Err(e) => errors.push(format!("{}: {e}", node.name)),
                }
            }
            if started.elapsed() > GALERA_SETUP_TIMEOUT {
                return Err(AdapterError::Unavailable { system: self.name, message: errors.join("; ") });
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Waits until every node that answers has applied the run's tables and initial rows (a read with
    /// `wsrep_sync_wait = 1` waits for every write set committed before it): DDL and the rows were
    /// applied on the node that ran them, and reach the others a moment later. A node that is down, or
    /// not ready (1047: out of the cluster for the moment), gets them when it rejoins, before it accepts
    /// a session again.
    fn wait_for_tables(&self, tables: &Tables) -> Result<(), AdapterError> {
        if self.name != GALERA {
            return Ok(());
        }
        for node in &self.nodes {
            let opts = OptsBuilder::from_opts(node.opts.clone())
                .read_timeout(Some(GALERA_SETUP_TIMEOUT))
                .write_timeout(Some(GALERA_SETUP_TIMEOUT));
            let Ok(mut conn) = Conn::new(opts) else { continue };
            let sql = format!("SELECT COUNT(*) FROM {}", tables.registers);
            match conn.query_drop("SET SESSION wsrep_sync_wait = 1").and_then(|()| conn.query_drop(sql)) {
                Ok(()) => {}
                Err(mysql::Error::MySqlError(e)) if e.code == NOT_PREPARED => {}
                Err(e) => {
                    return Err(AdapterError::Unavailable {
                        system: self.name,
                        message: format!("{}: {e}", node.name),
                    });
                }
            }
        }
        Ok(())
    }

    /// A connection to node `first`, or, while it cannot be reached, to the others in turn (for up to
    /// [`GALERA_CONNECT_PATIENCE`] on a cluster); the node's index and the connection.
    fn session_conn(&self, first: usize) -> Result<(usize, Conn), AdapterError> {
        let n = self.nodes.len();
        let started = Instant::now();
        let mut errors = Vec::new();
        loop {
            errors.clear();
            for i in (0..n).map(|k| (first + k) % n) {
                match Conn::new(self.nodes[i].opts.clone()) {
                    Ok(conn) => return Ok((i, conn)),
                    Err(e) if n == 1 => {
                        return Err(AdapterError::Unavailable { system: self.name, message: e.to_string() });
                    }
                    Err(e) => errors.push(format!("{}: {e}", self.nodes[i].name)),
                }
                if self.affinity.is_some() {
                    break;
                }
            }
            if started.elapsed() > GALERA_CONNECT_PATIENCE {
                return Err(AdapterError::Unavailable { system: self.name, message: errors.join("; ") });
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Drops these tables, returning those that could not be dropped (still locked by a session).
    fn drop_tables(conn: &mut Conn, tables: Vec<Tables>) -> Vec<Tables> {
        drop_each(tables, |sql| conn.query_drop(sql).is_ok())
    }
}

fn unavailable(e: mysql::Error) -> AdapterError {
    AdapterError::Unavailable { system: NAME, message: e.to_string() }
}

impl System for MariadbSystem {
    fn name(&self) -> &'static str {
        self.name
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn level(&self, requested: Level) -> LevelSupport {
        match requested {
            Level::ReadUncommitted => LevelSupport::Native { name: "READ UNCOMMITTED".into() },
            Level::ReadCommitted => LevelSupport::Native { name: "READ COMMITTED".into() },
            Level::SnapshotIsolation => LevelSupport::Mapped {
                to: "REPEATABLE READ".into(),
                why: if self.snapshot_isolation == Some(true) {
                    "MariaDB has no snapshot isolation level; with innodb_snapshot_isolation ON its repeatable read \
                     refuses a write to a row changed since the snapshot (error 1020)"
                        .into()
                } else {
                    "MariaDB's repeatable read is not snapshot isolation: its writes and locking reads see the latest \
                     committed rows (innodb_snapshot_isolation is OFF)"
                        .into()
                },
            },
            Level::RepeatableRead => LevelSupport::Native { name: "REPEATABLE READ".into() },
            Level::Serializable => LevelSupport::Native { name: "SERIALIZABLE".into() },
        }
    }

    fn system_settings(&self) -> Vec<(&'static str, String)> {
        let value = match self.snapshot_isolation {
            Some(true) => "ON",
            Some(false) => "OFF",
            None => "absent (the server has no such variable)",
        };
        let mut settings = vec![(SNAPSHOT_PARAM, value.to_string())];
        if self.name == GALERA {
            let wait = self.sync_wait.map_or_else(|| "server default".to_string(), |n| n.to_string());
            settings.push(("wsrep_sync_wait", wait));
            let nodes: Vec<String> = self
                .nodes
                .iter()
                .map(|n| format!("{}={}:{}", n.name, n.opts.get_ip_or_hostname(), n.opts.get_tcp_port()))
                .collect();
            settings.push(("galera_nodes", nodes.join(" ")));
            let spread = match self.affinity {
                Some(a) => format!("every session on n{}", a + 1),
                None => "round robin".to_string(),
            };
            settings.push(("galera_sessions", spread));
        }
        settings
    }

    fn prepare(&self, registers: &[(Key, i64)]) -> Result<(), AdapterError> {
        let mut conn = self.conn()?;
        conn.query_drop(format!("SET SESSION lock_wait_timeout = {DROP_LOCK_TIMEOUT_S}")).map_err(unavailable)?;
        let mut created = lock(&self.tables);
        let old = created.take_all();
        created.stale = Self::drop_tables(&mut conn, old);

        let tables = Tables::fresh();
        conn.query_drop(format!(
            "CREATE TABLE {} (k VARBINARY(512) PRIMARY KEY, v LONGTEXT NOT NULL) ENGINE=InnoDB",
            tables.lists
        ))
        .map_err(unavailable)?;
        conn.query_drop(format!(
            "CREATE TABLE {} (k VARBINARY(512) PRIMARY KEY, v BIGINT NOT NULL, ver BIGINT NOT NULL DEFAULT 0) \
             ENGINE=InnoDB",
            tables.registers
        ))
        .map_err(unavailable)?;
        // The tables exist from here: record them, so a failure below still drops them later.
        created.current = Some(tables.clone());
        let written = tables.clone();
        let insert = format!("INSERT INTO {} (k, v) VALUES (?, ?)", tables.registers);
        conn.query_drop("START TRANSACTION").map_err(unavailable)?;
        for (key, value) in registers {
            conn.exec_drop(&insert, (key_text(key), *value)).map_err(|e| AdapterError::Unavailable {
                system: NAME,
                message: format!("initial register {key}: {e}"),
            })?;
        }
        conn.query_drop("COMMIT").map_err(unavailable)?;
        self.wait_for_tables(&written)
    }

    fn prepare_records(&self, fields: usize, records: &[(Key, Record)]) -> Result<(), AdapterError> {
        let table = lock(&self.tables).current.as_ref().map(|t| t.records.clone()).ok_or_else(|| {
            AdapterError::Unavailable { system: NAME, message: "prepare_records before prepare".into() }
        })?;
        let mut conn = self.conn()?;
        let columns: String = (0..fields).map(|f| format!(", field{f} LONGBLOB NOT NULL")).collect();
        conn.query_drop(format!("DROP TABLE IF EXISTS {table}")).map_err(unavailable)?;
        conn.query_drop(format!("CREATE TABLE {table} (k VARBINARY(512) PRIMARY KEY{columns}) ENGINE=InnoDB"))
            .map_err(unavailable)?;
        let placeholders = ", ?".repeat(fields);
        let insert = format!("INSERT INTO {table} VALUES (?{placeholders})");
        conn.query_drop("START TRANSACTION").map_err(unavailable)?;
        for (key, record) in records {
            if record.len() != fields {
                return Err(AdapterError::Unavailable {
                    system: NAME,
                    message: format!("record {key} has {} fields, not {fields}", record.len()),
                });
            }
            let params: Vec<Value> = std::iter::once(Value::from(key_text(key)))
                .chain(record.iter().map(|f| Value::from(f.as_slice())))
                .collect();
            conn.exec_drop(&insert, params).map_err(unavailable)?;
        }
        conn.query_drop("COMMIT").map_err(unavailable)?;
        match lock(&self.tables).current.clone() {
            Some(tables) => self.wait_for_tables(&tables),
            None => Ok(()),
        }
    }

    fn connect(&self) -> Result<Box<dyn Session>, AdapterError> {
        let tables = lock(&self.tables).current.clone().ok_or_else(|| AdapterError::Unavailable {
            system: NAME,
            message: "connect before prepare: no tables yet".into(),
        })?;
        let n = self.nodes.len();
        let first = self.affinity.unwrap_or_else(|| self.next.fetch_add(1, Ordering::Relaxed) % n);
        let (i, conn) = self.session_conn(first)?;
        let node = &self.nodes[i];
        let kill = Arc::new(MyKill { admin: Arc::clone(&node.admin), id: conn.connection_id() });
        let node = (self.name == GALERA).then(|| node.name.clone());
        Ok(Box::new(Tracked::new(MyConn { conn, tables, kill, committing: false, lost: false, node })))
    }
}

impl Drop for MariadbSystem {
    fn drop(&mut self) {
        let stale = lock(&self.tables).take_all();
        if stale.is_empty() {
            return;
        }
        if let Ok(mut conn) = self.conn()
            && conn.query_drop(format!("SET SESSION lock_wait_timeout = {DROP_LOCK_TIMEOUT_S}")).is_ok()
        {
            Self::drop_tables(&mut conn, stale);
        }
    }
}
