//! isocheck's workloads: seeded, deterministic transaction streams, a serial reference executor, and
//! proptest strategies over both.
//!
//! - [`ListAppend`] and [`RwRegister`] draw transactions in the shape of Elle's generators
//!   (`elle.txn/wr-txns`, `elle.list-append/gen`; Kingsbury & Alvaro, VLDB 2020): a number of active
//!   integer keys, transaction lengths in a range, values unique per key (1, 2, 3, ...), a fresh key
//!   rotated in when a key has taken `max_writes_per_key` writes (or, optionally, has been active for
//!   `key_lifetime` transactions: not Elle's), and keys chosen uniformly,
//!   exponentially (Elle's) or by a Zipfian law (YCSB's). A seed names the same stream on every
//!   platform and every `rand` version ([`Draw`]).
//! - [`serial`] executes transactions one at a time on an in-memory map and records them as a history
//!   whose concurrency agrees with that order: strict-serializable by construction, the ground truth
//!   a checker's property tests start from.
//! - `strategies` (behind the `strategies` feature, for tests) wraps both for proptest.
//! - [`SplitMix64`] is the small seeded generator the runner's scenario workloads, `isocheck hunt` and the
//!   engine's benchmarks draw from.
//! - [`hermitage`] holds scripted interleavings, Hermitage's scenarios and any others, as data.
//!
//! Of isocheck's crates it depends on `histories` alone; it neither runs transactions against a system (the runner
//! and adapters do), nor judges histories (the `checker` does), nor schedules the replay of a cycle (the
//! `replay` crate does), nor renders anything (`findings` does).
//!
//! ```
//! use generators::{ListAppend, Params, KeyDist};
//! use generators::serial::SerialRun;
//! use histories::{Mop, OpType};
//!
//! let params = Params { key_count: 3, max_txn_len: 4, key_dist: KeyDist::zipfian(), ..Params::default() };
//! let txns: Vec<Vec<Mop>> = ListAppend::new(params, 42).unwrap().take(50).collect();
//! // The same seed, the same transactions.
//! assert_eq!(txns, ListAppend::new(params, 42).unwrap().take(50).collect::<Vec<_>>());
//!
//! // Run them serially on 4 clients, then read every key alone at the end.
//! let mut run = SerialRun::new(&txns, 7, 4, 2);
//! run.then_alone(&run.db.read_all());
//! assert_eq!(run.history.len(), 2 * 51);
//! assert!(run.history.transactions().all(|t| t.outcome() == OpType::Ok));
//! ```
#![deny(missing_docs)]

mod draw;
pub mod hermitage;
mod key_dist;
mod list_append;
mod params;
mod rw_register;
pub mod serial;
mod split_mix64;
#[cfg(feature = "strategies")]
pub mod strategies;
mod wr_txns;

pub use draw::Draw;
pub use key_dist::KeyDist;
pub use list_append::ListAppend;
pub use params::{InvalidParams, Params};
pub use rw_register::RwRegister;
pub use split_mix64::SplitMix64;
