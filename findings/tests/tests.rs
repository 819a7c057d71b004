//! The `findings` integration tests, one harness with a module per concern (as ripgrep's
//! `tests/tests.rs`): the Hermitage matrix's escaping (`hermitage_matrix`) and a scenario workload's
//! invariants in words (`scenario_text`). The reports of checked histories with their replays (snapshots
//! of every format, escaping, JUnit's cases) are tested in the `replay` crate, which may depend on both
//! `findings` and the replay scheduler. No test sets an environment variable or a global.

mod hermitage_matrix;
mod scenario_text;
