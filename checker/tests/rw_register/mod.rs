//! The rw-register checker, verdict by verdict, after Elle's `rw_register_test.clj`. Each anomaly class
//! has a history where it must fire (with the exact class, transactions in order, edge kinds and the
//! models ruled out) and a near miss where it must not; transactions are named by the index of their
//! completion (see `support`).
//!
//! - `cycles`: G0, G1c, G-single-item, G-nonadjacent-item, G2-item and a `-realtime` variant, each
//!   through the version-order inference that exposes it.
//! - `cases`: the anomalies that need no cycle (G1a, G1b, internal, lost-update, garbage-read,
//!   cyclic-versions) and what `info` and `fail` transactions contribute.
//! - `commit_order`: the database's recorded commit order ordering each key's writes, and its contradictions.
//! - `write_versions`: the version numbers the database gave its writes ordering each key's writes, and
//!   their contradictions.
//! - `inference`: each of `--wfr-keys`, `--sequential-keys` and `--linearizable-keys`, the sentences
//!   that explain a register dependency, and what the checker says it could not infer.

mod cases;
mod commit_order;
mod cycles;
mod inference;
mod write_versions;
