//! isocheck's embedded MVCC engine: read committed, snapshot isolation and serializable snapshot isolation, truly
//! concurrent, with planted defects that isocheck's checker must catch.
//!
//! Owns: storage, transactions and isolation for isocheck's default, in-process system under test.
//! Leaves to others: histories, checking and reporting; the engine depends on nothing but std (every lock and atomic
//! through its internal `sync` module, after redb's) and `thiserror`.
//!
//! ```
//! use engine::{Engine, Error, Isolation, RowKey};
//!
//! let engine = Engine::default();
//! let (mut alice, mut bob) = (engine.session(), engine.session());
//! let (x, y) = (RowKey::Int(1), RowKey::Int(2));
//! let mut setup = engine.session();
//! setup.begin(Isolation::Serializable)?;
//! setup.write(x.clone(), 50)?;
//! setup.write(y.clone(), 50)?;
//! setup.commit()?;
//!
//! // Write skew: each reads both balances and withdraws from a different one.
//! alice.begin(Isolation::Serializable)?;
//! bob.begin(Isolation::Serializable)?;
//! assert_eq!(alice.read(&x)?, Some(50.into()));
//! assert_eq!(alice.read(&y)?, Some(50.into()));
//! assert_eq!(bob.read(&x)?, Some(50.into()));
//! assert_eq!(bob.read(&y)?, Some(50.into()));
//! alice.write(x.clone(), -40)?;
//! bob.write(y.clone(), -40)?;
//! alice.commit()?;
//! // SSI sees bob -rw-> alice -rw-> bob with alice committed first, and aborts bob.
//! assert!(matches!(bob.commit(), Err(Error::SerializationFailure { .. })));
//! # Ok::<(), engine::Error>(())
//! ```
//!
//! # Levels
//! Berenson et al. 1995 and Adya 1999 for read committed and snapshot isolation, Cahill et al. 2008 for SSI and Ports
//! & Grittner 2012 for how PostgreSQL does it; each [`Isolation`] behaves like the PostgreSQL level of the same
//! strength. As in PostgreSQL, a second writer of a key waits for the first to commit or roll back; then at read
//! committed it writes over the newest committed version (re-evaluating an append, insert, delete or predicate
//! statement on it), and above read committed it fails with [`Error::WriteConflict`] if the first committed. A
//! wait that would close a cycle fails at once with [`Error::Deadlock`].
//!
//! # Concurrency
//! No lock is held from `begin` to `commit`. `begin` loads a timestamp and never waits; statements lock one key's
//! version chain at a time, and only a write of a key another running transaction wrote waits, on that transaction's
//! lock and holding no chain, so statements on different keys never wait for each other; `commit` holds one short
//! critical section to run the SSI check and install versions. Old versions are pruned once no live snapshot can see
//! them. All locks and atomics come from one internal `sync` module.
//!
//! # Forgetting keys
//! A workload that moves on to fresh keys and never names the old ones again (Elle's list-append, with fences) can
//! say so: [`Engine::forget`] drops a key's versions, SIREAD locks and place in the key space, and from then on a
//! statement naming the key fails with [`Error::ForgottenKey`] instead of finding it absent. The forgotten keys are
//! remembered as runs of consecutive numbers, so memory stays flat as the workload rotates through keys.
//!
//! # Planted defects
//! [`Defect`] names five bugs, each a few lines at the place the real bug would live; see its variants.

#![deny(missing_docs)]

mod commit;
mod defect;
mod engine;
mod error;
mod forgotten;
mod isolation;
mod key;
mod lock_wait;
mod session;
mod snapshot;
mod ssi;
mod stats;
mod store;
mod sync;
mod txn;
mod value;
mod version_chain;

pub use crate::defect::{Defect, ParseDefectError};
pub use crate::engine::{Engine, EngineConfig, InstallHook, VACUUM_EVERY};
pub use crate::error::{Conflict, Error, Result, Via};
pub use crate::isolation::{Isolation, ParseIsolationError};
pub use crate::key::{KeyRange, RowKey};
pub use crate::session::{EngineSession, SessionHandle};
pub use crate::snapshot::EngineTxnId;
pub use crate::stats::{EngineStats, StorageStats};
pub use crate::value::{RowPredicate, Value};
