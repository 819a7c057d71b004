//! The engine's single-threaded integration tests, one harness with a module per concern (as ripgrep's
//! `tests/tests.rs`), sharing the helpers of `support`: the commit order sessions report (`commit_order`), the classic anomalies as deterministic
//! interleavings (`interleavings`), forgetting keys (`forget`) and random schedules against the serial reference (`model`). The
//! multithreaded tests are their own binary (`tests/stress.rs`), as redb keeps its own. No test sets an
//! environment variable or a global.

mod support;

mod commit_order;
mod forget;
mod interleavings;
mod model;
