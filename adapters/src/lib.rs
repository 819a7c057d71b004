//! isocheck's adapters: one statement-level client-session interface, the stable way to plug a database
//! into isocheck, and its implementations for the systems isocheck tests. This crate neither generates
//! workloads (`generators`), nor records or judges histories (the runner and `checker`), nor starts
//! servers (a local Galera cluster is the `galera` crate's).
//!
//! To test your own engine from Rust, implement [`System`] (its name and version, how it
//! runs each [`Level`], fresh tables, sessions) and [`Session`] (begin, the micro-ops, commit, rollback,
//! each failure typed by what it means for the history: [`Failure::Aborted`] for `fail`,
//! [`Failure::Indeterminate`] for `info`). `examples/lockstore` is a complete one: a small engine of its
//! own behind the two traits, checked with `run`, `overlap` and `hermitage` from Rust code
//! (`cargo run -p lockstore`):
//!
//! ```ignore
//! let system: Arc<dyn System> = Arc::new(lockstore::LockStore::new());
//! let result = lockstore::checks::run(&system, WorkloadKind::ListAppend, Level::Serializable, 4, 500, 1)?;
//! assert_eq!(result.valid, checker::Validity::Valid);
//! let cells = lockstore::checks::hermitage(system.as_ref(), Level::Serializable)?;
//! assert!(cells.iter().all(|c| c.checker.is_empty()));
//! ```
//!
//! (That example runs as `lockstore`'s doctest; this crate sits below the runner, so it cannot.) From any
//! other language, speak the exec protocol instead ([`ExecSystem`], `docs/EXEC.md`); [`exec_server`]
//! serves any [`System`] over it.
//!
//! The implementations here: the embedded engine, SQLite, PostgreSQL, MariaDB (one server, or the nodes
//! of a Galera cluster; the `galera` crate starts and faults a local one) and exec. Statement level,
//! so both whole transactions (the runner) and scripted step-by-step interleavings (Hermitage scenarios)
//! drive the same code. Each adapter maps the requested isolation level onto its system honestly and says
//! how ([`LevelSupport`]); each classifies failures the way a history needs them: certainly without
//! effect (`fail`) or indeterminate (`info`). The two SQL adapters share one client-side transaction
//! state: a failed statement ends its transaction at once, as in the engine, so an abort never holds
//! locks while the caller decides what to do.
//!
//! ```
//! use adapters::{EngineSystem, Level, System};
//! use histories::Key;
//!
//! let system = EngineSystem::new(None);
//! system.prepare(&[]).unwrap();
//! let mut session = system.connect().unwrap();
//! session.begin(Level::Serializable).unwrap();
//! session.append(&Key::Int(1), 7).unwrap();
//! assert_eq!(session.read_list(&Key::Int(1)).unwrap(), vec![7]);
//! session.commit().unwrap();
//! ```
#![deny(missing_docs)]

mod engine_system;
mod exec;
pub mod exec_protocol;
pub mod exec_server;
mod fault;
mod level;
mod lock;
mod mariadb;
mod postgres;
mod session;
mod sql;
mod sqlite;
mod tables;
mod txn_state;

pub use self::postgres::PostgresSystem;
pub use engine_system::EngineSystem;
pub use exec::{ExecSystem, LOST_CAUSE};
pub use level::{
    DOCUMENTED_BEHAVIOUR, DocumentedBehaviour, Level, LevelSupport, ParseLevelError, documented_behaviour,
};
pub use mariadb::{GALERA_STATEMENT_TIMEOUT, GaleraOptions, MariadbSystem};
pub use session::{AdapterError, Change, Failure, KillSwitch, Record, Session, System, TxnError};
pub use sqlite::{ParseSqliteBeginError, SqliteBegin, SqliteSystem};
