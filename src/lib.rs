//! The `isocheck` package's library half: the runner that drives concurrent clients against a system
//! under test and records the history, the validated settings that say which system and which workload
//! to run (`system_spec`, `workload_spec`), judging a run (`judge`) and summarizing it
//! (`run_summary`, `overlap_summary`), the Hermitage scenarios and their step runner, and the progress
//! indicators on stderr every command shares. The command line (`src/main.rs`) is built on it; the
//! benchmarks measure it directly. It drives the other crates and defines none of their concepts: the
//! workloads are `generators`', the systems `adapters`' (and `engine`'s), the history model
//! `histories`', the verdict `checker`'s, and every rendering the `findings` crate's.

pub mod hermitage;
pub mod judge;
pub mod overlap_summary;
pub mod progress;
pub mod run_summary;
pub mod runner;
pub mod system_spec;
pub mod workload_spec;
