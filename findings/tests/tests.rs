//! The `findings` integration tests, one harness with a module per concern (as ripgrep's
//! `tests/tests.rs`), sharing the helpers in `common`: exact-output snapshots of every format
//! (`snapshots`, under `tests/snapshots/`), markup and steering characters from a history kept inert
//! (`escaping`, `steering_text`), the Hermitage matrix's escaping (`hermitage_matrix`), JUnit's cases
//! (`junit`) and a scenario workload's invariants in words (`scenario_text`). No test sets an
//! environment variable or a global.

mod common;

mod escaping;
mod hermitage_matrix;
mod junit;
mod scenario_text;
mod snapshots;
mod steering_text;
