//! The `isocheck` package's library half: the runner that drives concurrent clients against a system
//! under test and records the history, the Hermitage scenarios and their step runner, and the progress
//! indicators on stderr every command shares. The command line (`src/main.rs`) is built on it; the
//! benchmarks measure it directly.

pub mod hermitage;
pub mod progress;
pub mod replays;
pub mod runner;
