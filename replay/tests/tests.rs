//! The `replay` integration tests: reports of checked histories with their cycles' replays, as the
//! `isocheck` package makes them, one harness with a module per concern (as ripgrep's `tests/tests.rs`),
//! sharing the helpers in `common`: exact-output snapshots of every format (`snapshots`, under
//! `tests/snapshots/`), markup and steering characters from a history kept inert (`escaping`,
//! `steering_text`) and JUnit's cases (`junit`). They live here rather than in `findings` because they
//! need the replay scheduler, which depends on `findings`. No test sets an environment variable or a
//! global.

mod common;

mod escaping;
mod junit;
mod snapshots;
mod steering_text;
