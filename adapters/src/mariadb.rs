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

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use histories::{Key, Predicate, Rows};
use mysql::consts::CapabilityFlags;
use mysql::prelude::{FromValue, Queryable};
use mysql::{Conn, Opts, OptsBuilder, Row, Value};

use crate::level::{Level, LevelSupport};
use crate::session::{AdapterError, Change, Failure, KillSwitch, Record, Session, System, TxnError};
use crate::sql::{key_of_text, key_text, predicate_condition};
use crate::tables::{Created, Tables};
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
        tables
            .into_iter()
            .filter(|t| {
                let sql = format!("DROP TABLE IF EXISTS {}, {}, {}", t.lists, t.registers, t.records);
                conn.query_drop(sql).is_err()
            })
            .collect()
    }
}

/// A node's connection options from its URL: `mariadb://` read as `mysql://`, the session parameters
/// of [`SESSION_PARAMS`] and `init` run in every session, a 10 s connect timeout unless the URL sets
/// one, and `timeout` (Galera) for every read and write.
fn node_opts(
    system: &'static str,
    url: &str,
    timeout: Option<Duration>,
    init: &[String],
) -> Result<Opts, AdapterError> {
    // `mariadb://` says the same as `mysql://`, which is the only scheme the `mysql` crate knows.
    let url = match url.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("mariadb") => format!("mysql://{rest}"),
        _ => url.to_string(),
    };
    let (url, session) = take_session_params(&url)?;
    let parsed =
        Opts::from_url(&url).map_err(|e| AdapterError::Unavailable { system, message: format!("bad URL: {e}") })?;
    let mut builder = OptsBuilder::from_opts(parsed.clone())
        // The URL's host and port, not a socket the server names: every session reaches the same server.
        .prefer_socket(false)
        // Affected rows count the rows matched, not only those whose value changed.
        .additional_capabilities(CapabilityFlags::CLIENT_FOUND_ROWS)
        .stmt_cache_size(256);
    if parsed.get_tcp_connect_timeout().is_none() {
        builder = builder.tcp_connect_timeout(Some(timeout.unwrap_or(Duration::from_secs(10))));
    }
    if let Some(timeout) = timeout {
        builder = builder.read_timeout(Some(timeout)).write_timeout(Some(timeout));
    }
    let statements = [parsed.get_init(), session.statements, init.to_vec()].concat();
    if !statements.is_empty() {
        builder = builder.init(statements);
    }
    Ok(Opts::from(builder))
}

/// The URL of each node a URL lists (`mysql://user@h1:p1,h2:p2/db?params`): the same URL with one host.
fn node_urls(url: &str) -> Result<Vec<String>, AdapterError> {
    let bad = |why: &str| AdapterError::Unavailable { system: GALERA, message: format!("bad URL: {why}") };
    let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("expected mysql://user@host:port,host:port/db"))?;
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let (user, hosts) = match authority.rsplit_once('@') {
        Some((user, hosts)) => (format!("{user}@"), hosts),
        None => (String::new(), authority),
    };
    let hosts: Vec<&str> = hosts.split(',').collect();
    if hosts.iter().any(|h| h.is_empty()) {
        return Err(bad("an empty host in the list of nodes"));
    }
    Ok(hosts.iter().map(|host| format!("{scheme}://{user}{host}{path}")).collect())
}

/// Session variables a URL may set for every session, which the `mysql` crate does not know as URL
/// parameters: `innodb_snapshot_isolation` (`on` or `off`) and `innodb_lock_wait_timeout` (seconds).
const SESSION_PARAMS: [&str; 2] = [SNAPSHOT_PARAM, "innodb_lock_wait_timeout"];

/// Session settings taken off a URL: each variable and the value to set it to.
#[derive(Debug, Default, PartialEq, Eq)]
struct SessionParams {
    /// `innodb_snapshot_isolation`, if the URL sets it.
    snapshot: Option<bool>,
    /// `SET SESSION` statements, in URL order.
    statements: Vec<String>,
}

/// The URL without the parameters of [`SESSION_PARAMS`], and what they set.
fn take_session_params(url: &str) -> Result<(String, SessionParams), AdapterError> {
    let Some((base, query)) = url.split_once('?') else { return Ok((url.to_string(), SessionParams::default())) };
    let bad = |name: &str, value: &str, expected: &str| AdapterError::Unavailable {
        system: NAME,
        message: format!("bad URL: {name}={value:?}, expected {expected}"),
    };
    let mut kept = Vec::new();
    let mut params = SessionParams::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if !SESSION_PARAMS.contains(&name) {
            kept.push(pair);
            continue;
        }
        let setting = if name == SNAPSHOT_PARAM {
            let on = match value.to_ascii_lowercase().as_str() {
                "on" | "1" | "true" => true,
                "off" | "0" | "false" => false,
                _ => return Err(bad(name, value, "on or off")),
            };
            params.snapshot = Some(on);
            if on { "ON".to_string() } else { "OFF".to_string() }
        } else {
            value.parse::<u32>().map_err(|_| bad(name, value, "a whole number of seconds"))?.to_string()
        };
        params.statements.push(format!("SET SESSION {name} = {setting}"));
    }
    let url = if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
    Ok((url, params))
}

fn unavailable(e: mysql::Error) -> AdapterError {
    AdapterError::Unavailable { system: NAME, message: e.to_string() }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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

/// A connection kept for killing sessions' connections.
struct Admin {
    opts: Opts,
    conn: Mutex<Option<Conn>>,
}

/// Kills a MariaDB session with `KILL CONNECTION`, as an operator would.
struct MyKill {
    admin: Arc<Admin>,
    /// The session's connection id (`CONNECTION_ID()`).
    id: u32,
}

impl MyKill {
    /// Runs `sql` on the admin connection, replacing a broken one once; `None` if it could not.
    fn admin_query<T: FromValue>(&self, sql: &str) -> Option<Option<T>> {
        let mut conn = lock(&self.admin.conn);
        for _ in 0..2 {
            if conn.is_none() {
                *conn = Conn::new(self.admin.opts.clone()).ok();
            }
            let c = conn.as_mut()?;
            match c.query_first::<T, _>(sql) {
                Ok(answer) => return Some(answer),
                // The connection answered: the statement itself failed (1094: no such connection any more).
                Err(mysql::Error::MySqlError(_)) => return None,
                Err(_) => *conn = None,
            }
        }
        None
    }
}

impl KillSwitch for MyKill {
    fn kill(&self) {
        self.admin_query::<i64>(&format!("KILL CONNECTION {}", self.id));
    }

    fn waiting(&self) -> Option<bool> {
        // InnoDB refreshes the cache behind INNODB_TRX only when nobody read it for 100 ms: a poller
        // reading it more often would see the transactions as they were at its first read for ever.
        // So reads from this process are spaced out, all systems together.
        static LAST_READ: Mutex<Option<Instant>> = Mutex::new(None);
        let mut last = lock(&LAST_READ);
        if let Some(at) = *last {
            std::thread::sleep(INNODB_TRX_REFRESH.saturating_sub(at.elapsed()));
        }
        let sql = format!(
            "SELECT COUNT(*) FROM information_schema.INNODB_TRX \
             WHERE trx_mysql_thread_id = {} AND trx_state = 'LOCK WAIT'",
            self.id
        );
        let answer = self.admin_query::<i64>(&sql).flatten().map(|n| n > 0);
        *last = Some(Instant::now());
        answer
    }
}

/// How long after a read of `information_schema.INNODB_TRX` the next one waits, so that InnoDB refreshes
/// the table's cache (which it does only when it was not read for `CACHE_MIN_REFRESH_TIME`, 100 ms).
const INNODB_TRX_REFRESH: Duration = Duration::from_millis(150);

/// One session's connection, running each call as it comes (see [`Tracked`] for the state around it).
struct MyConn {
    conn: Conn,
    tables: Tables,
    kill: Arc<MyKill>,
    committing: bool,
    /// Whether an error said the connection is gone; nothing more is sent on it.
    lost: bool,
    /// The cluster node it is connected to (Galera).
    node: Option<String>,
}

impl MyConn {
    fn rows(&mut self, sql: String, params: Vec<Value>) -> Result<Vec<Row>, TxnError> {
        let result = self.conn.exec::<Row, _, _>(sql, params);
        result.map_err(|e| self.error(&e))
    }

    /// Runs a statement; the rows it matched.
    fn execute(&mut self, sql: String, params: Vec<Value>) -> Result<u64, TxnError> {
        let result = self.conn.exec_drop(sql, params);
        result.map(|()| self.conn.affected_rows()).map_err(|e| self.error(&e))
    }

    fn text(&mut self, sql: &str) -> Result<(), TxnError> {
        let result = self.conn.query_drop(sql);
        result.map_err(|e| self.error(&e))
    }

    fn error(&mut self, e: &mysql::Error) -> TxnError {
        let error = classify(fault(e), self.committing, e.to_string());
        self.lost |= error.session_lost;
        error
    }
}

/// What went wrong, as far as a history cares.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fault {
    /// The connection is gone: an I/O error, a broken packet stream, or the server saying so (killed,
    /// shutting down, gone away).
    Lost,
    /// The server answered with an error, with this error number.
    Server(u16),
    /// The client failed on its own (a value it could not decode, bad parameters).
    Client,
}

/// Server error numbers that mean the connection is gone: 1053 server shutdown, 1152 and 1158-1161 network
/// errors, 1927 connection killed, 2006 gone away, 2013 lost during query, 4031 disconnected for
/// inactivity (MySQL).
const LOST: [u16; 10] = [1053, 1152, 1158, 1159, 1160, 1161, 1927, 2006, 2013, 4031];

/// Galera's "WSREP has not yet prepared node for application use" (ER_UNKNOWN_COM_ERROR, reused).
const NOT_PREPARED: u16 = 1047;

/// Whether a Galera node accepts statements now (`wsrep_ready = ON`).
fn galera_ready(conn: &mut Conn) -> Result<bool, mysql::Error> {
    let ready: Option<(String, String)> = conn.query_first("SHOW GLOBAL STATUS LIKE 'wsrep_ready'")?;
    Ok(ready.is_some_and(|(_, value)| value.eq_ignore_ascii_case("ON")))
}

/// "Got error N during COMMIT" (ER_ERROR_DURING_COMMIT).
const ERROR_DURING_COMMIT: u16 = 1180;

/// Server error numbers that say the run itself is broken, not the transaction: no such database
/// (1049), table (1146) or column (1054), a syntax error (1064), access denied (1044, 1045, 1142, 1143).
const BROKEN_RUN: [u16; 8] = [1044, 1045, 1049, 1054, 1064, 1142, 1143, 1146];

fn fault(e: &mysql::Error) -> Fault {
    match e {
        mysql::Error::IoError(_) | mysql::Error::CodecError(_) => Fault::Lost,
        mysql::Error::DriverError(
            mysql::DriverError::ConnectTimeout
            | mysql::DriverError::CouldNotConnect(_)
            | mysql::DriverError::PacketOutOfSync
            | mysql::DriverError::UnexpectedPacket
            | mysql::DriverError::Timeout,
        ) => Fault::Lost,
        mysql::Error::MySqlError(m) if LOST.contains(&m.code) => Fault::Lost,
        mysql::Error::MySqlError(m) => Fault::Server(m.code),
        _ => Fault::Client,
    }
}

/// What an error means for the history.
///
/// | error                                            | before COMMIT             | in answer to COMMIT         |
/// |--------------------------------------------------|---------------------------|-----------------------------|
/// | connection lost (I/O, 1927 killed, 2013, ...)    | Aborted, session lost     | Indeterminate, session lost |
/// | a run that cannot work (1146 no table, 1064, ...) | Fatal                     | Fatal                       |
/// | 1047 (Galera: node not prepared)                 | Aborted, session lost     | Indeterminate, session lost |
/// | 1180 (error during COMMIT)                       | Aborted                   | Indeterminate               |
/// | any other server error (1213, 1205, 1020, 1062)  | Aborted (its number)      | Aborted (its number)        |
/// | an error of the client itself                    | Fatal                     | Fatal                       |
///
/// After 1213 InnoDB has rolled back the whole transaction; after 1205 and most others only the
/// statement: either way the session's transaction state rolls back the rest at once, so the abort
/// certainly had no effect.
fn classify(fault: Fault, committing: bool, message: String) -> TxnError {
    match fault {
        // The server rolls back a transaction whose connection is gone, unless its COMMIT got there first.
        Fault::Lost => TxnError {
            failure: if committing { Failure::Indeterminate } else { Failure::Aborted },
            cause: "connection lost".into(),
            message,
            session_lost: true,
        },
        Fault::Server(code) if BROKEN_RUN.contains(&code) => TxnError::fatal(code.to_string(), message),
        // Galera's node is not (or no longer) part of the primary component: it refuses before COMMIT,
        // but answering COMMIT it may come after the writeset was replicated. The session goes to a
        // node that can serve it.
        Fault::Server(NOT_PREPARED) => TxnError {
            failure: if committing { Failure::Indeterminate } else { Failure::Aborted },
            cause: NOT_PREPARED.to_string(),
            message,
            session_lost: true,
        },
        // "Got error N during COMMIT": the commit failed somewhere past the point where the server can
        // say whether its writes replicated (Galera answers it when the group is lost mid-commit).
        Fault::Server(ERROR_DURING_COMMIT) if committing => TxnError {
            failure: Failure::Indeterminate,
            cause: ERROR_DURING_COMMIT.to_string(),
            message,
            session_lost: false,
        },
        Fault::Server(code) => TxnError::aborted(code.to_string(), message),
        Fault::Client => TxnError::fatal("mysql-client", message),
    }
}

fn level_sql(level: Level) -> &'static str {
    match level {
        Level::ReadUncommitted => "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED",
        Level::ReadCommitted => "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
        Level::SnapshotIsolation | Level::RepeatableRead => "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
        Level::Serializable => "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
    }
}

/// A row's column, or a fatal error if it is missing or does not decode.
fn column<T: FromValue>(row: &Row, i: usize) -> Result<T, TxnError> {
    match row.get_opt::<T, usize>(i) {
        Some(Ok(value)) => Ok(value),
        Some(Err(e)) => Err(TxnError::fatal("mysql-client", format!("column {i}: {e}"))),
        None => Err(TxnError::fatal("mysql-client", format!("no column {i}"))),
    }
}

/// The key in a row's first column.
fn key_column(row: &Row) -> Result<Key, TxnError> {
    let bytes: Vec<u8> = column(row, 0)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| TxnError::fatal("bad-key", format!("the key column holds bytes that are not UTF-8: {e}")))?;
    key_of_text(&text)
}

/// A list as the text column holds it: elements separated by commas.
fn list_of_text(text: &str) -> Result<Vec<i64>, TxnError> {
    text.split(',').map(|e| e.parse::<i64>()).collect::<Result<_, _>>().map_err(|_| {
        TxnError::fatal("bad-list", format!("the list column holds {text:?}, which isocheck did not write"))
    })
}

/// A predicate's condition with `?` placeholders, and its values as parameters.
fn condition(predicate: &Predicate) -> (String, Vec<Value>) {
    let (condition, values) = predicate_condition(predicate, |_| "?".to_string());
    (condition, values.into_iter().map(Value::from).collect())
}

impl Session for MyConn {
    fn begin(&mut self, level: Level) -> Result<(), TxnError> {
        self.text(level_sql(level))?;
        self.text("START TRANSACTION")
    }

    fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError> {
        let sql = format!("SELECT v FROM {} WHERE k = ?", self.tables.lists);
        let rows = self.rows(sql, vec![key_text(key).into()])?;
        rows.first().map_or(Ok(Vec::new()), |row| list_of_text(&column::<String>(row, 0)?))
    }

    fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError> {
        let sql = format!(
            "INSERT INTO {} (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = CONCAT_WS(',', v, VALUES(v))",
            self.tables.lists
        );
        self.execute(sql, vec![key_text(key).into(), element.to_string().into()]).map(drop)
    }

    fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError> {
        let sql = format!("SELECT v FROM {} WHERE k = ?", self.tables.registers);
        let rows = self.rows(sql, vec![key_text(key).into()])?;
        rows.first().map(|row| column(row, 0)).transpose()
    }

    fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.write_versioned(key, value).map(drop)
    }

    /// The row's version counter `ver` goes up by one in the writing statement itself: InnoDB's
    /// `INSERT ... ON DUPLICATE KEY UPDATE` reads the row's latest committed version under an exclusive
    /// lock it holds to the end of the transaction, so every committed version of a row has a larger `ver`
    /// than the one it replaced. MariaDB has no `UPDATE ... RETURNING`: the transaction then reads its
    /// own row back (its own change, which no one else can change while it holds the lock).
    fn write_versioned(&mut self, key: &Key, value: i64) -> Result<Option<i64>, TxnError> {
        let sql = format!(
            "INSERT INTO {} (k, v, ver) VALUES (?, ?, 1) ON DUPLICATE KEY UPDATE v = VALUES(v), ver = ver + 1",
            self.tables.registers
        );
        self.execute(sql, vec![key_text(key).into(), value.into()])?;
        let sql = format!("SELECT ver FROM {} WHERE k = ?", self.tables.registers);
        let rows = self.rows(sql, vec![key_text(key).into()])?;
        rows.first().map(|row| column(row, 0)).transpose()
    }

    fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        let sql = format!("INSERT INTO {} (k, v) VALUES (?, ?)", self.tables.registers);
        self.execute(sql, vec![key_text(key).into(), value.into()]).map(drop)
    }

    fn delete(&mut self, key: &Key) -> Result<bool, TxnError> {
        let sql = format!("DELETE FROM {} WHERE k = ?", self.tables.registers);
        self.execute(sql, vec![key_text(key).into()]).map(|n| n > 0)
    }

    fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let (condition, params) = condition(predicate);
        let sql = format!("SELECT k, v FROM {} WHERE {condition}", self.tables.registers);
        let rows = self.rows(sql, params)?;
        rows.iter().map(|row| Ok((key_column(row)?, column(row, 1)?))).collect()
    }

    fn read_record(&mut self, key: &Key) -> Result<Option<Record>, TxnError> {
        let sql = format!("SELECT * FROM {} WHERE k = ?", self.tables.records);
        let rows = self.rows(sql, vec![key_text(key).into()])?;
        rows.first().map(|row| (1..row.len()).map(|i| column::<Vec<u8>>(row, i)).collect()).transpose()
    }

    fn update_field(&mut self, key: &Key, field: usize, value: &[u8]) -> Result<bool, TxnError> {
        let sql = format!("UPDATE {} SET field{field} = ? WHERE k = ?", self.tables.records);
        // Rows matched, not rows changed (CLIENT_FOUND_ROWS): an update to the same bytes still found it.
        self.execute(sql, vec![value.into(), key_text(key).into()]).map(|n| n > 0)
    }

    fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let (condition, params) = condition(predicate);
        let sql = format!("DELETE FROM {} WHERE {condition} RETURNING k, v", self.tables.registers);
        let rows = self.rows(sql, params)?;
        rows.iter().map(|row| Ok((key_column(row)?, column(row, 1)?))).collect()
    }

    fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
        if matches!(change, Change::Set(_)) && !matches!(predicate, Predicate::Eq(_)) {
            // The same contract as every adapter's, although the locking read below knows the old values.
            return Err(Change::set_needs_equality(predicate));
        }
        let (condition, params) = condition(predicate);
        let sql = format!("SELECT k, v FROM {} WHERE {condition} FOR UPDATE", self.tables.registers);
        let rows = self.rows(sql, params)?;
        let mut changed = Vec::with_capacity(rows.len());
        for row in &rows {
            let (key, old): (Key, i64) = (key_column(row)?, column(row, 1)?);
            let new = change.apply(old);
            let sql = format!("UPDATE {} SET v = ?, ver = ver + 1 WHERE k = ?", self.tables.registers);
            self.execute(sql, vec![new.into(), key_text(&key).into()])?;
            changed.push((key, old, new));
        }
        Ok(changed)
    }

    fn commit(&mut self) -> Result<(), TxnError> {
        self.committing = true;
        let result = self.text("COMMIT");
        self.committing = false;
        result
    }

    fn rollback(&mut self) -> Result<(), TxnError> {
        if self.lost {
            return Err(classify(Fault::Lost, false, "the connection was lost".into()));
        }
        self.text("ROLLBACK")
    }

    fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
        Some(Arc::clone(&self.kill) as Arc<dyn KillSwitch>)
    }

    fn node(&self) -> Option<&str> {
        self.node.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classified(fault: Fault, committing: bool) -> (Failure, String, bool) {
        let e = classify(fault, committing, "message".into());
        (e.failure, e.cause, e.session_lost)
    }

    #[test]
    fn the_classification_table() {
        let cases = [
            (Fault::Lost, false, (Failure::Aborted, "connection lost", true)),
            (Fault::Lost, true, (Failure::Indeterminate, "connection lost", true)),
            (Fault::Server(1213), false, (Failure::Aborted, "1213", false)),
            (Fault::Server(1213), true, (Failure::Aborted, "1213", false)),
            (Fault::Server(1205), false, (Failure::Aborted, "1205", false)),
            (Fault::Server(1020), false, (Failure::Aborted, "1020", false)),
            (Fault::Server(1062), false, (Failure::Aborted, "1062", false)),
            (Fault::Server(1406), false, (Failure::Aborted, "1406", false)),
            (Fault::Server(1047), false, (Failure::Aborted, "1047", true)),
            (Fault::Server(1047), true, (Failure::Indeterminate, "1047", true)),
            (Fault::Server(1180), false, (Failure::Aborted, "1180", false)),
            (Fault::Server(1180), true, (Failure::Indeterminate, "1180", false)),
            (Fault::Server(1146), false, (Failure::Fatal, "1146", false)),
            (Fault::Server(1064), true, (Failure::Fatal, "1064", false)),
            (Fault::Client, false, (Failure::Fatal, "mysql-client", false)),
        ];
        for (fault, committing, (failure, cause, lost)) in cases {
            let what = format!("{fault:?} committing={committing}");
            assert_eq!(classified(fault, committing), (failure, cause.to_string(), lost), "{what}");
        }
    }

    #[test]
    fn server_errors_that_end_the_connection_are_lost_connections() {
        for code in LOST {
            let e = mysql::Error::MySqlError(mysql::MySqlError { state: "HY000".into(), message: "gone".into(), code });
            assert_eq!(fault(&e), Fault::Lost, "{code}");
        }
        let io = mysql::Error::IoError(std::io::Error::from(std::io::ErrorKind::UnexpectedEof));
        assert_eq!(fault(&io), Fault::Lost);
        let deadlock = mysql::Error::MySqlError(mysql::MySqlError {
            state: "40001".into(),
            message: "Deadlock".into(),
            code: 1213,
        });
        assert_eq!(fault(&deadlock), Fault::Server(1213));
    }

    #[test]
    fn lists_are_comma_separated_and_anything_else_is_fatal() {
        assert_eq!(list_of_text("5").unwrap(), vec![5]);
        assert_eq!(list_of_text("5,-6,7").unwrap(), vec![5, -6, 7]);
        for text in ["", "5,", "x", "1,,2"] {
            assert_eq!(list_of_text(text).unwrap_err().failure, Failure::Fatal, "{text:?}");
        }
    }

    #[test]
    fn session_parameters_leave_the_url_and_become_set_statements() {
        let url = "mysql://root@127.0.0.1:3306/isocheck";
        assert_eq!(take_session_params(url).unwrap(), (url.to_string(), SessionParams::default()));
        let (rest, params) = take_session_params(&format!("{url}?innodb_snapshot_isolation=ON")).unwrap();
        assert_eq!(rest, url);
        assert_eq!(params.snapshot, Some(true));
        assert_eq!(params.statements, ["SET SESSION innodb_snapshot_isolation = ON"]);
        let (rest, params) = take_session_params(&format!(
            "{url}?prefer_socket=false&innodb_lock_wait_timeout=1&innodb_snapshot_isolation=off"
        ))
        .unwrap();
        assert_eq!(rest, format!("{url}?prefer_socket=false"));
        assert_eq!(params.snapshot, Some(false));
        assert_eq!(
            params.statements,
            ["SET SESSION innodb_lock_wait_timeout = 1", "SET SESSION innodb_snapshot_isolation = OFF"]
        );
        for bad in ["innodb_snapshot_isolation=maybe", "innodb_lock_wait_timeout=1;DROP", "innodb_lock_wait_timeout"] {
            assert!(take_session_params(&format!("{url}?{bad}")).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_galera_url_lists_its_nodes_and_each_gets_the_rest_of_the_url() {
        assert_eq!(
            node_urls("mysql://root@127.0.0.1:1,127.0.0.1:2/isocheck?innodb_lock_wait_timeout=3").unwrap(),
            [
                "mysql://root@127.0.0.1:1/isocheck?innodb_lock_wait_timeout=3",
                "mysql://root@127.0.0.1:2/isocheck?innodb_lock_wait_timeout=3"
            ]
        );
        assert_eq!(node_urls("mysql://u:p@h:1/db").unwrap(), ["mysql://u:p@h:1/db"]);
        assert_eq!(node_urls("mysql://h1,h2").unwrap(), ["mysql://h1", "mysql://h2"]);
        assert!(node_urls("mysql://root@h1,,h2/db").is_err());
        assert!(node_urls("h1,h2").is_err());
    }

    #[test]
    fn a_galera_session_times_out_and_sets_sync_wait() {
        let init = ["SET SESSION wsrep_sync_wait = 1".to_string()];
        let opts = node_opts(GALERA, "mysql://root@h:1/db", Some(GALERA_STATEMENT_TIMEOUT), &init).unwrap();
        assert_eq!(opts.get_read_timeout(), Some(&GALERA_STATEMENT_TIMEOUT));
        assert_eq!(opts.get_write_timeout(), Some(&GALERA_STATEMENT_TIMEOUT));
        assert_eq!(opts.get_init(), init);
        let plain = node_opts(NAME, "mariadb://root@h:1/db", None, &[]).unwrap();
        assert_eq!(plain.get_read_timeout(), None);
        assert_eq!(plain.get_tcp_connect_timeout(), Some(Duration::from_secs(10)));
    }

    #[test]
    fn every_level_sets_its_own_isolation_clause() {
        assert_eq!(level_sql(Level::ReadUncommitted), "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED");
        assert_eq!(level_sql(Level::ReadCommitted), "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
        assert_eq!(level_sql(Level::SnapshotIsolation), "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        assert_eq!(level_sql(Level::RepeatableRead), "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        assert_eq!(level_sql(Level::Serializable), "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
    }
}
