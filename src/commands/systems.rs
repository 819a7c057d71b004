//! Opening a system under test by name, shared by every command that runs one (`run`, `hermitage`):
//! the engine (with an optional planted defect), SQLite, or PostgreSQL at a URL.

use std::sync::Arc;

use adapters::{EngineSystem, MariadbSystem, PostgresSystem, SqliteBegin, SqliteSystem, System};
use anyhow::{Context, bail};

use crate::cli::{self, DbName};

/// The system's name on the command line.
pub fn db_name(db: DbName) -> &'static str {
    match db {
        DbName::Engine => "engine",
        DbName::Sqlite => "sqlite",
        DbName::Postgres => "postgres",
        DbName::Mariadb => "mariadb",
    }
}

/// Opens a system; an unreachable one is an error (exit 2).
pub fn open(
    db: DbName,
    url: Option<&str>,
    defect: Option<engine::Defect>,
    sqlite_begin: cli::SqliteBegin,
) -> anyhow::Result<Arc<dyn System>> {
    if defect.is_some() && db != DbName::Engine {
        bail!("--defect plants a defect in the embedded engine; it cannot be used with --db {}", db_name(db));
    }
    Ok(match db {
        DbName::Engine => Arc::new(EngineSystem::new(defect)),
        DbName::Sqlite => {
            let begin = match sqlite_begin {
                cli::SqliteBegin::Deferred => SqliteBegin::Deferred,
                cli::SqliteBegin::Immediate => SqliteBegin::Immediate,
            };
            Arc::new(SqliteSystem::new(begin)?)
        }
        DbName::Postgres => {
            let url = url.with_context(|| {
                format!("--db postgres needs --url or {} (postgres://user@host:port/database)", PostgresSystem::URL_VAR)
            })?;
            Arc::new(PostgresSystem::new(url)?)
        }
        DbName::Mariadb => {
            // --url reads ISOCHECK_PG_URL when absent: a URL of another scheme is not this system's.
            let url = url
                .filter(|u| u.starts_with("mysql://") || u.starts_with("mariadb://"))
                .map(str::to_string)
                .or_else(|| std::env::var(MariadbSystem::URL_VAR).ok())
                .with_context(|| {
                    format!("--db mariadb needs --url or {} (mysql://user@host:port/database)", MariadbSystem::URL_VAR)
                })?;
            Arc::new(MariadbSystem::new(&url.replacen("mariadb://", "mysql://", 1))?)
        }
    })
}
