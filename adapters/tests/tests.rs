//! The `adapters` integration tests, one harness with a module per system (as ripgrep's
//! `tests/tests.rs`), sharing the checks every SQL adapter must pass (`common`). The PostgreSQL and
//! MariaDB tests need a server: they are `#[ignore = "needs ..."]`, so `cargo test` reports them ignored,
//! and `scripts/test` starts the servers and runs them with `--ignored` (`ISOCHECK_PG_URL`,
//! `ISOCHECK_MYSQL_URL`), where a missing server fails them;
//! each SQL system's tests work in their own database file or tables, so they share the process safely.
//! No test sets an environment variable or a global.

mod common;

mod engine;
mod exec_server;
mod mariadb;
mod postgres;
mod sqlite;
