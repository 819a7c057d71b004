//! lockstore: how to test your own engine with isocheck from Rust. The engine ([`store`]) is a small one
//! of its own, not isocheck's: lists and registers in `BTreeMap`s, made serializable by letting one
//! transaction run at a time. Plugging it in is one impl of `adapters::System` and one of
//! `adapters::Session` ([`system`]); isocheck's checks then run against it from Rust code ([`checks`]).
//! It owns nothing isocheck needs: no crate of the workspace depends on it, and it defines none of
//! isocheck's concepts (the traits are `adapters`', the checks the root package's); it only shows them
//! used.
//!
//! ```
//! use std::sync::Arc;
//! use adapters::{Level, System};
//! use isocheck::workload_spec::WorkloadKind;
//!
//! let system: Arc<dyn System> = Arc::new(lockstore::LockStore::new());
//! let result = lockstore::checks::run(&system, WorkloadKind::ListAppend, Level::Serializable, 4, 500, 1)?;
//! assert_eq!(result.valid, checker::Validity::Valid);
//!
//! let overlap = lockstore::checks::overlap(&system, 2, std::time::Duration::from_millis(20), 1)?;
//! assert_eq!(overlap.verdict, "serialized", "one transaction at a time, by design");
//!
//! let cells = lockstore::checks::hermitage(system.as_ref(), Level::Serializable)?;
//! assert!(cells.iter().all(|c| c.checker.is_empty()), "no scenario shows an anomaly");
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! `cargo run -p lockstore` runs all three and prints what they found, for the store as it is and with its
//! planted defect (`LockStore::without_turns`), which Hermitage catches.
#![deny(missing_docs)]

pub mod checks;
pub mod store;
pub mod system;

pub use system::LockStore;
