//! The `isocheck` package's library half: the runner that drives concurrent clients against a system
//! under test and records the history, and the Hermitage scenarios and their step runner. The command
//! line (`src/main.rs`) is built on it; the benchmarks measure it directly.

pub mod hermitage;
pub mod runner;
