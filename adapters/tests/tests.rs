//! The `adapters` integration tests, one harness with a module per system (as ripgrep's
//! `tests/tests.rs`), sharing the checks every SQL adapter must pass (`common`). The PostgreSQL tests
//! run when `ISOCHECK_PG_URL` names a server (and fail without one when `ISOCHECK_PG_REQUIRED` is set),
//! the MariaDB tests likewise with `ISOCHECK_MYSQL_URL` (and `ISOCHECK_MYSQL_REQUIRED`);
//! each SQL system's tests work in their own database file or tables, so they share the process safely.
//! No test sets an environment variable or a global.

mod common;

mod engine;
mod exec_server;
mod mariadb;
mod postgres;
mod sqlite;
