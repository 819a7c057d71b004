//! The list-append checker, verdict by verdict. Each anomaly class the checker reports has a history
//! where it must fire (with the exact class, transactions, edge kinds and models ruled out) and a near
//! miss where it must not. The scenarios follow Elle's own `list_append_test.clj` where it has one, and
//! the results agree with Elle's on anomaly types and `not` sets; transactions are named by the index
//! of their completion (see `support`).
//!
//! - `cycles`: G0, G1c, G-single-item, G-nonadjacent-item, G2-item and their `-realtime` and
//!   `-process` variants.
//! - `cases`: the anomalies that need no cycle (G1a, G1b, internal, future-read, dirty-update,
//!   duplicate-elements, incompatible-order, lost-update, garbage-read, empty-transaction-graph) and
//!   what `info` and `fail` transactions do to the graph.
//! - `options`: `--anomaly` (with the umbrella classes) and `--model`, and the result's JSON shape.
//! - `explanations`: the exact sentence for each kind of step, and whole explanations.
//! - `stress`: a cycle Elle's time-limited search cannot find, hidden among thousands of others.
//! - `brute_force`: the cycle search against every simple cycle of thousands of small random graphs.

mod brute_force;
mod cases;
mod cycles;
mod explanations;
mod options;
mod stress;
