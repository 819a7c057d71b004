//! isocheck's checker: given a history, the dependencies between its transactions, the cycles among
//! them, and the anomalies they are, with the consistency models those anomalies rule out. It follows
//! Jepsen's Elle (Kingsbury & Alvaro, "Elle: Inferring Isolation Anomalies from Experimental
//! Observations", VLDB 2020) and Adya's definitions (Adya 1999), and finds every cycle Elle would, without
//! a time limit. Beside the graph, it checks the invariants of scenario workloads (the bank, doctors on
//! call: [`invariants`]) and computes timing flags that are not anomalies but deserve a look
//! ([`timing`]: zero aborts under contention, transactions that ran one at a time).
//!
//! It owns judging a history and nothing else: reading and well-formedness are `histories`', producing
//! histories is the runner's and the adapters', and every rendering of a result (text, JSON, reports)
//! is `findings`'. A malformed history is an error ([`CheckError`]); an inconsistent one is a verdict.
//!
//! ```
//! use checker::{check, Options, Validity};
//! use histories::{parse, Format};
//!
//! // T1 appends 1 to x; T2 reads x before T1's append and appends 2 to y; T1 read y before T2's append.
//! let text = r#"{"type":"invoke","process":0,"value":[["append","x",1],["r","y",null]]}
//! {"type":"invoke","process":1,"value":[["append","y",2],["r","x",null]]}
//! {"type":"ok","process":0,"value":[["append","x",1],["r","y",[]]]}
//! {"type":"ok","process":1,"value":[["append","y",2],["r","x",[]]]}"#;
//! let history = parse(text, Format::JsonLines, "write-skew.jsonl").unwrap();
//! let result = check(&history, &Options::default()).unwrap();
//! assert_eq!(result.valid, Validity::Invalid);
//! assert_eq!(result.anomaly_types, vec!["G2-item"]);
//! assert_eq!(result.not, vec!["repeatable-read"]);
//! ```
//!
//! The workload (list-append, rw-register, closed-predicate) is detected from the micro-ops. A register
//! read shows one value, not the writes before it, so a register history may show little order. For
//! serializable, snapshot isolation and their strong-session and real-time forms the checker then
//! decides exactly, over every order of the writes inference left open (a SAT solver, with a budget past
//! which the verdict is unknown); the result says what it decided that way and what it could not see,
//! and Elle's assumptions can order more:
//!
//! ```
//! use checker::{check, Inference, Options, Validity};
//! use histories::{parse, Format};
//!
//! // Two writes of x, one at a time, that nobody read.
//! let text = r#"{"type":"invoke","process":0,"value":[["w","x",1]]}
//! {"type":"ok","process":0,"value":[["w","x",1]]}
//! {"type":"invoke","process":1,"value":[["w","x",2]]}
//! {"type":"ok","process":1,"value":[["w","x",2]]}"#;
//! let history = parse(text, Format::JsonLines, "writes.jsonl").unwrap();
//! let result = check(&history, &Options::default()).unwrap();
//! assert_eq!((result.valid, result.checked.workload.as_str()), (Validity::Valid, "rw-register"));
//! assert_eq!((result.stats.keys, result.stats.ordered_keys), (1, 0));
//! assert_eq!(result.checked.unordered_pairs, 1);
//! assert!(result.checked.exact_models.contains(&"strict-serializable".to_string()));
//! assert_eq!(result.stats.blind_spots.len(), 1);
//!
//! let linearizable = Inference { linearizable_keys: true, ..Inference::default() };
//! let result = check(&history, &Options::default().with_inference(linearizable)).unwrap();
//! assert_eq!(result.stats.ordered_keys, 1);
//! assert_eq!(result.stats.edges["ww"], 1);
//! ```
#![deny(missing_docs)]

mod buckets;
mod check;
mod chunks;
mod closed_predicate;
mod commit_order;
pub mod consistency_model;
pub mod cycle_class;
pub mod cycle_exists;
pub mod cycle_search;
pub mod cycle_shape;
mod error;
mod exact;
mod explain;
pub mod final_reads;
pub mod graph;
mod int_table;
pub mod invariants;
mod item;
mod key_ids;
mod key_slots;
pub mod kind;
mod list_append;
pub mod online;
mod options;
mod orders;
mod phase;
mod polygraph;
mod polygraph_solver;
mod result;
mod retirement;
mod rw_register;
pub mod shrink;
pub mod timing;
mod txn;
pub mod weak_levels;
mod workload;

pub use check::{check, result_of};
pub use error::CheckError;
pub use kind::{Kind, Kinds};
pub use online::{Online, StandingAnomaly};
pub use options::{Inference, Options, Workload};
pub use result::{
    Anomaly, Case, CheckResult, Checked, Cycle, Flag, Invariant, MissingRealtime, Shape, Stats, Step, TxnView,
    Validity, Witness,
};
