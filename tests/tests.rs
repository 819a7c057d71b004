//! The `isocheck` package's integration tests, as one harness (ripgrep's `tests/tests.rs`): one module
//! per command or concern, sharing `util`, so they build and link as one binary. Each module's own
//! `//!` says what it asserts; `snapshots` holds the exact text output of `run`, `overlap` and
//! `hermitage`.

mod util;

mod allocator;
mod check_command;
mod check_follow;
mod check_plume;
mod check_registers;
mod compare;
mod convert;
mod defaults;
mod doc_links;
mod exec;
mod galera;
mod hermitage;
mod hostile_input;
mod hunt;
mod mariadb;
mod module_cycles;
mod online_retirement;
mod online_systems;
mod overlap;
mod replay;
mod replay_claims;
mod report_files;
mod reproduce_postgres_ssi;
mod run_command;
mod run_json;
mod run_online;
mod run_systems;
mod scenarios;
mod serial_property;
mod serial_register_property;
mod server_tests;
mod shrink;
mod snapshots;
mod type_names;
