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
    EngineSystem, ExecSystem, GaleraCluster, GaleraOptions, MariadbSystem, PostgresSystem, SqliteBegin, SqliteSystem,
    System,
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

/// The URL among `urls` for a server of `kind` (by scheme), if any; two for one kind are an error. A
/// `mysql://` URL listing several hosts is Galera's, one with a single host MariaDB's.
pub fn url_for(kind: SystemKind, urls: &[String]) -> Result<Option<&str>, SpecError> {
    let mut found = None;
    for url in urls {
        let mut of = SystemKind::of_url(url)?;
        if of == SystemKind::Mariadb && lists_hosts(url) {
            of = SystemKind::Galera;
        }
        if of == kind {
            if found.is_some() {
                return Err(SpecError::TwoUrls { kind });
            }
            found = Some(url.as_str());
        }
    }
    Ok(found)
}

/// Whether a URL's authority lists several hosts (`user@h1:p1,h2:p2`).
fn lists_hosts(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    authority.rsplit_once('@').map_or(authority, |(_, hosts)| hosts).contains(',')
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
    /// Two `--url`s for one kind of server.
    #[error("two --url for {kind}: give one URL per server")]
    TwoUrls {
        /// The system named twice.
        kind: SystemKind,
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
                    (None, Some(dir)) => GaleraCluster::open(dir)
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
        assert_eq!(url_for(SystemKind::Mariadb, &urls), Ok(Some("mysql://root@h/db")));
        assert_eq!(url_for(SystemKind::Postgres, &urls), Ok(Some("postgres://u@h/db")));
        assert_eq!(url_for(SystemKind::Postgres, &urls[1..]), Ok(None));
        let galera = ["mysql://root@h:1,h:2/db".to_string(), urls[1].clone()];
        assert_eq!(url_for(SystemKind::Galera, &galera), Ok(Some("mysql://root@h:1,h:2/db")));
        assert_eq!(url_for(SystemKind::Mariadb, &galera), Ok(Some("mysql://root@h/db")));
        let twice = [urls[1].clone(), "mariadb://other@h/db".to_string()];
        assert_eq!(url_for(SystemKind::Mariadb, &twice), Err(SpecError::TwoUrls { kind: SystemKind::Mariadb }));
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
