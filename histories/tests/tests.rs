//! The `histories` integration tests, one harness with a module per concern (as ripgrep's
//! `tests/tests.rs`), so the crate's tests link once: reading every format and its errors (`read`),
//! reads sharing their lists' storage (`read_lists`), invocations keeping their completions'
//! micro-ops (`invocations`), writing and reading back (`round_trip`), the hostile-input corpus under `tests/hostile/`
//! (`hostile`), the readers under arbitrary bytes (`fuzz_readers`), and the fast path of reading JSON
//! objects held to the general reader (`fast_json`). No test sets an environment
//! variable or a global; `fuzz_readers` and `fast_json` only read `FUZZ_READERS_CASES`.

mod fast_json;
mod fuzz_readers;
mod hostile;
mod invocations;
mod read;
mod read_lists;
mod round_trip;
