//! Which system to run, validated: the system flags (`--db`, `--url`, `--defect`, `--sqlite-begin`) as
//! clap parsed them become one [`SystemSpec`] per system, checked once (a defect only in the engine, a
//! URL for a server), and [`SystemSpec::open`] is the one place a system under test is opened. Adding a
//! system is a variant of [`SystemKind`] and an arm in [`SystemSpec::open`], beside its adapter; the
//! commands take specs and never name a system. This module does not parse the command line (the
//! binary's `cli`) or talk to a system (the `adapters` crate), in the manner of ripgrep's
//! `lowargs.rs` → `hiargs.rs`.

use std::sync::Arc;

use std::time::Duration;

use std::path::PathBuf;

use adapters::{
    EngineSystem, ExecSystem, GaleraOptions, MariadbSystem, PostgresSystem, SqliteBegin, SqliteSystem, System,
};
use thiserror::Error;

/// `--db`: the kinds of system isocheck can run against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum SystemKind {
    /// The embedded MVCC engine (no setup).
    Engine,
    /// SQLite (bundled), a database file in a temporary directory.
    Sqlite,
    /// PostgreSQL at --url.
    Postgres,
    /// MariaDB at --url (mysql://).
    Mariadb,
    /// A MariaDB Galera cluster: --cluster-dir, or --url listing its nodes.
    Galera,
    /// Any program speaking the exec protocol (docs/EXEC.md), started with --cmd.
    Exec,
}

impl SystemKind {
    /// The system's name on the command line and in `run.json`.
    pub fn name(self) -> &'static str {
        match self {
            SystemKind::Engine => "engine",
            SystemKind::Sqlite => "sqlite",
            SystemKind::Postgres => "postgres",
            SystemKind::Mariadb => "mariadb",
            SystemKind::Galera => "galera",
            SystemKind::Exec => "exec",
        }
    }

    /// For a server, the environment variable that gives its URL when no `--url` is for it, and what
    /// such a URL looks like; `None` for a system in process, and for Galera (whose nodes come from
    /// `--cluster-dir` or a `--url` listing them).
    pub fn url_var(self) -> Option<(&'static str, &'static str)> {
        match self {
            SystemKind::Engine | SystemKind::Sqlite | SystemKind::Exec | SystemKind::Galera => None,
            SystemKind::Postgres => Some((PostgresSystem::URL_VAR, "postgres://user@host:port/database")),
            SystemKind::Mariadb => Some((MariadbSystem::URL_VAR, "mysql://user@host:port/database")),
        }
    }

    /// The server a URL is for, by its scheme: `postgres://` and `postgresql://` (and key=value pairs,
    /// which have no scheme) PostgreSQL, `mysql://` and `mariadb://` MariaDB.
    pub fn of_url(url: &str) -> Result<SystemKind, SpecError> {
        let Some((scheme, _)) = url.split_once("://") else { return Ok(SystemKind::Postgres) };
        match scheme.to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" => Ok(SystemKind::Postgres),
            "mysql" | "mariadb" => Ok(SystemKind::Mariadb),
            // Only the scheme: the rest may hold a password.
            _ => Err(SpecError::UnknownScheme { scheme: scheme.to_string() }),
        }
    }
}

/// The URLs among `urls` for servers of `kind` (by scheme), in the order given: the first is for the
/// first `--db` of that kind, the second for the second, and so on. A `mysql://` URL listing several
/// hosts is Galera's, one with a single host MariaDB's.
pub fn urls_for(kind: SystemKind, urls: &[String]) -> Result<Vec<&str>, SpecError> {
    let mut found = Vec::new();
    for url in urls {
        let mut of = SystemKind::of_url(url)?;
        if of == SystemKind::Mariadb && lists_hosts(url) {
            of = SystemKind::Galera;
        }
        if of == kind {
            found.push(url.as_str());
        }
    }
    Ok(found)
}

/// The URL of the `nth` (from 0) of `servers` servers of `kind` that `--db` names: the `nth` of the
/// URLs for that kind. No URL for the kind is `Ok(None)` (the caller may fall back on the environment
/// for a lone server); otherwise there must be exactly one URL per server.
pub fn url_for(kind: SystemKind, nth: usize, servers: usize, urls: &[String]) -> Result<Option<&str>, SpecError> {
    let found = urls_for(kind, urls)?;
    if found.is_empty() {
        return if servers > 1 { Err(SpecError::UrlsPerServer { kind, servers, urls: 0 }) } else { Ok(None) };
    }
    if found.len() != servers.max(1) {
        return Err(SpecError::UrlsPerServer { kind, servers: servers.max(1), urls: found.len() });
    }
    Ok(found.get(nth).copied())
}

/// The release in a server's reported version: `15.18` of `PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on
/// x86_64-pc-linux-gnu, ...`, `10.11.14` of `MariaDB 10.11.14-MariaDB-0+deb12u2 (Debian 12)`; the whole
/// version when it does not read as a product name followed by a release.
pub fn release(version: &str) -> &str {
    let mut words = version.split_whitespace();
    let (Some(_product), Some(second)) = (words.next(), words.next()) else { return version.trim() };
    let release = second.split(['-', ',', '+']).next().unwrap_or(second);
    if release.starts_with(|c: char| c.is_ascii_digit()) { release } else { version.trim() }
}

/// Whether a URL's authority lists several hosts (`user@h1:p1,h2:p2`).
fn lists_hosts(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    authority.rsplit_once('@').map_or(authority, |(_, hosts)| hosts).contains(',')
}

/// The column labels of systems opened from `specs`, given the versions they reported: each
/// [`SystemSpec::column_label`], with ` #2`, ` #3`, ... after a label an earlier column already has,
/// so no two columns (nor the files named after them) share a name.
pub fn column_labels(specs: &[SystemSpec], versions: &[String]) -> Vec<String> {
    let mut labels: Vec<String> = Vec::with_capacity(specs.len());
    for (spec, version) in specs.iter().zip(versions) {
        let label = spec.column_label(version);
        let seen = labels.iter().filter(|l| **l == label || l.starts_with(&format!("{label} #"))).count();
        labels.push(if seen == 0 { label } else { format!("{label} #{}", seen + 1) });
    }
    labels
}

impl std::fmt::Display for SystemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A combination of system flags that names no system one can open.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpecError {
    /// `--defect` with a system other than the engine.
    #[error("--defect plants a defect in the embedded engine; it cannot be used with --db {kind}")]
    DefectOutsideEngine {
        /// The system named.
        kind: SystemKind,
    },
    /// A `--url` whose scheme names no system.
    #[error("--url {scheme}://...: unknown scheme, expected postgres://, postgresql://, mysql:// or mariadb://")]
    UnknownScheme {
        /// The scheme given.
        scheme: String,
    },
    /// Not one `--url` per server of a kind that `--db` names.
    #[error(
        "--db names {servers} {kind} server(s) but {urls} --url is for {kind}: give one URL per server, in the \
         order of --db (the first --url for the first)"
    )]
    UrlsPerServer {
        /// The kind of server.
        kind: SystemKind,
        /// How many `--db` names.
        servers: usize,
        /// How many `--url`s are for it.
        urls: usize,
    },
    /// `--db exec` with no `--cmd`.
    #[error("--db exec needs --cmd 'PROGRAM ARGS': the program that speaks the exec protocol (docs/EXEC.md)")]
    MissingCommand,
    /// `--db galera` with neither `--cluster-dir` nor a `--url` listing the nodes.
    #[error(
        "--db galera needs --cluster-dir DIR (from `isocheck cluster up`, or ISOCHECK_GALERA_DIR) or a --url listing \
         the nodes (mysql://root@127.0.0.1:P1,127.0.0.1:P2/isocheck)"
    )]
    MissingCluster,
    /// A server with no URL.
    #[error("--db {kind} needs --url or {var} ({shape})")]
    MissingUrl {
        /// The system named.
        kind: SystemKind,
        /// The environment variable that may hold the URL.
        var: &'static str,
        /// What a URL looks like.
        shape: &'static str,
    },
}

/// One system to open, validated: its kind and what opening it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemSpec {
    kind: SystemKind,
    url: Option<String>,
    defect: Option<engine::Defect>,
    sqlite_begin: SqliteBegin,
    exec: Option<ExecCommand>,
    galera: GaleraSpec,
    user_label: Option<String>,
}

/// `--db galera`'s nodes and options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GaleraSpec {
    /// The directory of a cluster `cluster up` started (`--cluster-dir`).
    pub cluster_dir: Option<PathBuf>,
    /// How sessions spread and what they set.
    pub options: GaleraOptions,
}

/// `--db exec`'s program and how long to wait for each of its answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecCommand {
    /// The program and its arguments (`--cmd`), split as a shell splits words.
    pub command: String,
    /// How long to wait for any one answer before the program counts as hung (`--exec-timeout`).
    pub timeout: Duration,
}

impl SystemSpec {
    /// Checks that these settings name a system one can open: a defect only in the engine, a URL for a
    /// server. Settings a system does not use (a URL for the engine, `sqlite_begin` for PostgreSQL) are
    /// ignored, as the flags always were.
    pub fn new(
        kind: SystemKind,
        url: Option<&str>,
        defect: Option<engine::Defect>,
        sqlite_begin: SqliteBegin,
    ) -> Result<SystemSpec, SpecError> {
        if defect.is_some() && kind != SystemKind::Engine {
            return Err(SpecError::DefectOutsideEngine { kind });
        }
        if let Some((var, shape)) = kind.url_var()
            && url.is_none()
        {
            return Err(SpecError::MissingUrl { kind, var, shape });
        }
        Ok(SystemSpec {
            kind,
            url: url.map(str::to_owned),
            defect,
            sqlite_begin,
            exec: None,
            galera: GaleraSpec::default(),
            user_label: None,
        })
    }

    /// The spec of `--db galera`: its cluster directory (or the URL given) and options; neither a
    /// directory nor a URL is an error for `--db galera`, and other systems ignore them.
    pub fn with_galera(mut self, galera: GaleraSpec) -> Result<SystemSpec, SpecError> {
        if self.kind == SystemKind::Galera && galera.cluster_dir.is_none() && self.url.is_none() {
            return Err(SpecError::MissingCluster);
        }
        self.galera = galera;
        Ok(self)
    }

    /// `--db galera`'s cluster directory, if given (the node nemeses need it).
    pub fn cluster_dir(&self) -> Option<&std::path::Path> {
        self.galera.cluster_dir.as_deref()
    }

    /// The spec of `--db exec`: the program to start (none is an error for `--db exec`, and a command is
    /// ignored by other systems, as a URL is).
    pub fn with_exec(mut self, exec: Option<ExecCommand>) -> Result<SystemSpec, SpecError> {
        if self.kind == SystemKind::Exec && exec.is_none() {
            return Err(SpecError::MissingCommand);
        }
        self.exec = exec;
        Ok(self)
    }

    /// The kind of system.
    pub fn kind(&self) -> SystemKind {
        self.kind
    }

    /// The system's name (`engine`, `sqlite`, `postgres`, `mariadb`).
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// The planted engine defect, if any.
    pub fn defect(&self) -> Option<engine::Defect> {
        self.defect
    }

    /// How reports label this system: its name, with the planted defect when there is one
    /// (`engine (ssi-off)`).
    pub fn label(&self) -> String {
        match self.defect {
            Some(d) => format!("{} ({d})", self.name()),
            None => self.name().to_string(),
        }
    }

    /// The spec with a label of the user's (`--label`), which reports add to the system's column.
    pub fn with_user_label(mut self, label: Option<String>) -> SystemSpec {
        self.user_label = label.filter(|l| !l.trim().is_empty());
        self
    }

    /// Whether this is a server, whose release tells one column from another (`postgres 15.18`).
    pub fn is_server(&self) -> bool {
        self.kind.url_var().is_some() || self.kind == SystemKind::Galera
    }

    /// How a report's column names this system once opened: [`SystemSpec::label`], then for a server
    /// the release it reported (`postgres 18.6`), then the user's label in brackets (`postgres 18.6
    /// [new]`). The release of an embedded system is isocheck's or the bundled library's, the same for
    /// every column, so it is left out.
    pub fn column_label(&self, version: &str) -> String {
        let mut label = self.label();
        if self.is_server() {
            label = format!("{label} {}", release(version));
        }
        if let Some(user) = &self.user_label {
            label = format!("{label} [{user}]");
        }
        label
    }

    /// Opens the system; an unreachable one is an error.
    pub fn open(&self) -> Result<Arc<dyn System>, adapters::AdapterError> {
        Ok(match self.kind {
            SystemKind::Engine => Arc::new(EngineSystem::new(self.defect)),
            SystemKind::Sqlite => Arc::new(SqliteSystem::new(self.sqlite_begin)?),
            SystemKind::Postgres => {
                let url = self.url.as_deref().unwrap_or_default();
                Arc::new(PostgresSystem::new(url)?)
            }
            SystemKind::Mariadb => {
                let url = self.url.as_deref().unwrap_or_default();
                Arc::new(MariadbSystem::new(url)?)
            }
            SystemKind::Galera => {
                let url = match (&self.url, &self.galera.cluster_dir) {
                    (Some(url), _) => url.clone(),
                    (None, Some(dir)) => galera::GaleraCluster::open(dir)
                        .map_err(|e| adapters::AdapterError::Unavailable { system: "galera", message: e.to_string() })?
                        .url(),
                    (None, None) => {
                        let message = SpecError::MissingCluster.to_string();
                        return Err(adapters::AdapterError::Unavailable { system: "galera", message });
                    }
                };
                Arc::new(MariadbSystem::galera(&url, self.galera.options)?)
            }
            SystemKind::Exec => match &self.exec {
                Some(exec) => Arc::new(ExecSystem::start(&exec.command, exec.timeout)?),
                None => {
                    let message = SpecError::MissingCommand.to_string();
                    return Err(adapters::AdapterError::Unavailable { system: "exec", message });
                }
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_defect_belongs_to_the_engine_only() {
        let spec = SystemSpec::new(SystemKind::Engine, None, Some(engine::Defect::SsiOff), SqliteBegin::Deferred);
        assert_eq!(spec.map(|s| s.label()), Ok("engine (ssi-off)".to_string()));
        let sqlite = SystemSpec::new(SystemKind::Sqlite, None, Some(engine::Defect::SsiOff), SqliteBegin::Deferred);
        assert_eq!(sqlite, Err(SpecError::DefectOutsideEngine { kind: SystemKind::Sqlite }));
        assert_eq!(
            sqlite.map_err(|e| e.to_string()).err().as_deref(),
            Some("--defect plants a defect in the embedded engine; it cannot be used with --db sqlite")
        );
    }

    #[test]
    fn a_urls_scheme_says_which_server_it_is_for() {
        for (url, kind) in [
            ("postgres://u@h/db", SystemKind::Postgres),
            ("postgresql://u@h/db", SystemKind::Postgres),
            ("host=h user=u dbname=db", SystemKind::Postgres),
            ("mysql://root@127.0.0.1:3306/isocheck", SystemKind::Mariadb),
            ("MariaDB://root@h/db", SystemKind::Mariadb),
        ] {
            assert_eq!(SystemKind::of_url(url), Ok(kind), "{url}");
        }
        let unknown = SystemKind::of_url("http://user:secret@h/db").unwrap_err();
        assert_eq!(unknown, SpecError::UnknownScheme { scheme: "http".into() });
        assert!(!unknown.to_string().contains("secret"), "{unknown}");
        let urls = ["postgres://u@h/db".to_string(), "mysql://root@h/db".to_string()];
        assert_eq!(url_for(SystemKind::Mariadb, 0, 1, &urls), Ok(Some("mysql://root@h/db")));
        assert_eq!(url_for(SystemKind::Postgres, 0, 1, &urls), Ok(Some("postgres://u@h/db")));
        assert_eq!(url_for(SystemKind::Postgres, 0, 1, &urls[1..]), Ok(None));
        let galera = ["mysql://root@h:1,h:2/db".to_string(), urls[1].clone()];
        assert_eq!(url_for(SystemKind::Galera, 0, 1, &galera), Ok(Some("mysql://root@h:1,h:2/db")));
        assert_eq!(url_for(SystemKind::Mariadb, 0, 1, &galera), Ok(Some("mysql://root@h/db")));
    }

    #[test]
    fn several_servers_of_one_kind_take_their_urls_in_the_order_of_db() {
        let urls = ["mysql://root@h/db".to_string(), "postgres://a@h/15".to_string(), "postgres://b@h/18".to_string()];
        assert_eq!(url_for(SystemKind::Postgres, 0, 2, &urls), Ok(Some("postgres://a@h/15")));
        assert_eq!(url_for(SystemKind::Postgres, 1, 2, &urls), Ok(Some("postgres://b@h/18")));
        assert_eq!(url_for(SystemKind::Mariadb, 0, 1, &urls), Ok(Some("mysql://root@h/db")));
        let too_many = url_for(SystemKind::Postgres, 0, 1, &urls);
        assert_eq!(too_many, Err(SpecError::UrlsPerServer { kind: SystemKind::Postgres, servers: 1, urls: 2 }));
        let too_few = url_for(SystemKind::Mariadb, 0, 2, &urls).map_err(|e| e.to_string());
        assert_eq!(
            too_few.err().as_deref(),
            Some(
                "--db names 2 mariadb server(s) but 1 --url is for mariadb: give one URL per server, in the order of \
                 --db (the first --url for the first)"
            )
        );
        let none = url_for(SystemKind::Postgres, 1, 2, &urls[..1]);
        assert_eq!(none, Err(SpecError::UrlsPerServer { kind: SystemKind::Postgres, servers: 2, urls: 0 }));
    }

    #[test]
    fn a_servers_column_names_its_release_and_the_users_label() {
        assert_eq!(
            release("PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc 12.2.0, 64-bit"),
            "15.18"
        );
        assert_eq!(release("PostgreSQL 18.6 on x86_64-pc-linux-gnu, compiled by gcc, 64-bit"), "18.6");
        assert_eq!(release("MariaDB 10.11.14-MariaDB-0+deb12u2 (Debian 12), Galera 26.4.23"), "10.11.14");
        assert_eq!(release("unversioned"), "unversioned");
        let pg = |url: &str, user: Option<&str>| {
            SystemSpec::new(SystemKind::Postgres, Some(url), None, SqliteBegin::Deferred)
                .expect("valid")
                .with_user_label(user.map(str::to_string))
        };
        let specs =
            [pg("postgres://a@h/db", None), pg("postgres://b@h/db", Some("new")), pg("postgres://c@h/db", None)];
        let versions =
            ["PostgreSQL 15.18 (Debian)", "PostgreSQL 18.6 on x86_64", "PostgreSQL 15.18 (Debian)"].map(str::to_string);
        assert_eq!(column_labels(&specs, &versions), ["postgres 15.18", "postgres 18.6 [new]", "postgres 15.18 #2"]);
        let engine = SystemSpec::new(SystemKind::Engine, None, Some(engine::Defect::SsiOff), SqliteBegin::Deferred);
        assert_eq!(engine.map(|e| e.column_label("isocheck 0.1.0")), Ok("engine (ssi-off)".to_string()));
    }

    #[test]
    fn a_server_needs_a_url_and_the_embedded_systems_do_not() {
        let postgres = SystemSpec::new(SystemKind::Postgres, None, None, SqliteBegin::Deferred);
        assert_eq!(
            postgres.map_err(|e| e.to_string()).err().as_deref(),
            Some("--db postgres needs --url or ISOCHECK_PG_URL (postgres://user@host:port/database)")
        );
        let mariadb = SystemSpec::new(SystemKind::Mariadb, None, None, SqliteBegin::Deferred);
        assert_eq!(
            mariadb.map_err(|e| e.to_string()).err().as_deref(),
            Some("--db mariadb needs --url or ISOCHECK_MYSQL_URL (mysql://user@host:port/database)")
        );
        let with_url = SystemSpec::new(SystemKind::Postgres, Some("postgres://x@h/db"), None, SqliteBegin::Deferred);
        assert_eq!(with_url.map(|s| s.label()), Ok("postgres".to_string()));
        let galera = SystemSpec::new(SystemKind::Galera, None, None, SqliteBegin::Deferred)
            .and_then(|s| s.with_galera(GaleraSpec::default()));
        assert_eq!(galera, Err(SpecError::MissingCluster));
        let dir = GaleraSpec { cluster_dir: Some("/c".into()), ..GaleraSpec::default() };
        let galera =
            SystemSpec::new(SystemKind::Galera, None, None, SqliteBegin::Deferred).and_then(|s| s.with_galera(dir));
        assert_eq!(galera.map(|s| s.cluster_dir().map(|d| d.display().to_string())), Ok(Some("/c".to_string())));
        for kind in [SystemKind::Engine, SystemKind::Sqlite] {
            let spec = SystemSpec::new(kind, None, None, SqliteBegin::Immediate);
            assert_eq!(spec.map(|s| s.name()), Ok(kind.name()));
        }
    }
}
