//! The `isocheck` package's library half: the runner that drives concurrent clients against a system
//! under test and records the history. The command line (`src/main.rs`) is built on it; the benchmarks
//! measure it directly. Progress indicators on stderr are here too, for every command to share.

pub mod progress;
pub mod runner;
