//! The checker's integration tests, one harness with a module per concern (as ripgrep's
//! `tests/tests.rs`), sharing the transaction shorthand of `support` (after Elle's test suite): the
//! list-append checker (`list_append`), the rw-register checker (`rw_register`), predicate reads
//! (`closed_predicate`), histories of completions alone (`completion_only`), workload detection
//! (`workload`), the saved Jepsen and PostgreSQL histories (`elle_histories`,
//! `postgres_15_serializable`), their results pinned byte for byte (`golden`), and the exhaustive oracle (`oracle`; its long form
//! is `ISOCHECK_ORACLE_CASES=100000 cargo test --release -p checker --test tests -- --ignored oracle::`).
//! The property tests against the serial reference executor of `generators` are the root package's
//! (`tests/serial_property.rs`, `tests/serial_register_property.rs`): the checker does not depend on
//! `generators`, not even in its tests. No test sets an environment variable or a global; `oracle` only reads `ISOCHECK_ORACLE_*`.

mod support;

mod closed_predicate;
mod completion_only;
mod elle_histories;
mod exact_oracle;
mod exact_shapes;
mod final_reads;
mod golden;
mod list_append;
mod online_histories;
mod oracle;
mod postgres_15_serializable;
mod rw_register;
mod scale;
mod weak_levels;
mod workload;
