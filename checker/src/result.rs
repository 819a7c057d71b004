//! What a check concludes, as data: the verdict (`valid`: true, false or "unknown"), the anomalies by
//! name with their evidence, the models ruled out, and statistics saying how much the checker could see.
//! Its JSON form is a contract (docs/CONTRACTS.md, "Check result"). This module owns the shapes; deciding them is
//! `check`'s, rendering them for people is the `findings` crate's.

use std::collections::BTreeMap;

use histories::{Key, Mop, OpType, Rows};
use serde::{Serialize, Serializer};

use crate::kind::Kind;

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    /// No prohibited anomaly was found.
    Valid,
    /// A prohibited anomaly was found.
    Invalid,
    /// Nothing prohibited was found, but the checker could not see enough to say valid.
    Unknown,
}

impl Serialize for Validity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Validity::Valid => s.serialize_bool(true),
            Validity::Invalid => s.serialize_bool(false),
            Validity::Unknown => s.serialize_str("unknown"),
        }
    }
}

/// The result of checking a history.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// The verdict.
    pub valid: Validity,
    /// The names of the anomalies reported, sorted.
    pub anomaly_types: Vec<String>,
    /// The weakest models the anomalies found rule out.
    pub not: Vec<String>,
    /// The stronger models they also rule out.
    pub also_not: Vec<String>,
    /// The evidence for each anomaly reported.
    pub anomalies: BTreeMap<String, Vec<Anomaly>>,
    /// Findings that are not isolation anomalies but deserve a look (set by runs, not by checks).
    pub flags: Vec<Flag>,
    /// The invariants of a scenario workload (bank, write skew), when the history is one; a broken one
    /// makes the verdict invalid.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<Invariant>,
    /// How much the checker saw.
    pub stats: Stats,
    /// When a model was decided exactly and holds: an order of the transactions under which it holds
    /// (not serialised with the result: `check --witness FILE` writes it as a history).
    #[serde(skip)]
    pub witness: Option<Witness>,
    /// What was checked.
    pub checked: Checked,
}

/// A certificate that a history satisfies a model: its transactions in an order that ranks every key's
/// writes and under which the ordinary checker, trusting no solver, finds the history valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    /// The strongest model asked for that the order satisfies.
    pub model: String,
    /// The transactions' indices (their completions', as `transaction-order` files name them), in order.
    pub order: Vec<u64>,
}

/// What a check looked for.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Checked {
    /// The workload the micro-ops were read as.
    pub workload: String,
    /// The models asked for.
    pub models: Vec<String>,
    /// The anomalies asked for besides those the models prohibit.
    pub anomalies: Vec<String>,
    /// The register-inference assumptions made (`wfr-keys`, `sequential-keys`, `linearizable-keys`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumptions: Vec<String>,
    /// How many transactions the history placed in the database's own commit order (`commit_order`),
    /// whose order then ordered each key's writes (rw-register).
    #[serde(skip_serializing_if = "is_zero")]
    pub commit_ordered: usize,
    /// How many committed writes carried the version number the database gave them
    /// (`["w", k, v, version]`), whose numbers then ordered each key's writes (rw-register).
    #[serde(skip_serializing_if = "is_zero")]
    pub numbered_writes: usize,
    /// The models decided exactly, over every order of the writes inference left unordered
    /// (rw-register): serializable, snapshot-isolation and their strong-session and real-time forms, as
    /// far as the models checked need them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exact_models: Vec<String>,
    /// How many pairs of writes of one key inference left unordered, whose every order the exact
    /// decisions covered.
    #[serde(skip_serializing_if = "is_zero")]
    pub unordered_pairs: usize,
    /// The real-time information the history did not give (see `histories::Leniency`), if any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_realtime: Vec<MissingRealtime>,
}

/// Real-time information a history did not give, and how the check did without it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct MissingRealtime {
    /// `completion-without-invoke` or `invokes-in-flight`.
    pub name: String,
    /// The line where it first applied.
    pub first_line: u32,
    /// How many operations it applied to.
    pub ops: usize,
    /// What is missing, and what the check did instead.
    pub missing: String,
}

/// A finding that is not an isolation anomaly, with the figures behind it.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct Flag {
    /// `zero-abort-under-contention` or `fully-serialized`.
    pub name: String,
    /// What it means and what to run next.
    pub message: String,
    /// The measured figures.
    pub figures: serde_json::Map<String, serde_json::Value>,
}

/// An invariant of a scenario workload, checked from the history alone: whether it held, and the
/// evidence either way.
#[derive(Debug, Clone, Serialize)]
pub struct Invariant {
    /// Its name (`total-never-negative`, `on-call-in-every-read`, ...).
    pub name: String,
    /// Whether it held.
    pub holds: bool,
    /// What was checked and, when it broke, how: in words a person can check against the history.
    pub explanation: String,
    /// The figures behind the verdict.
    pub figures: serde_json::Map<String, serde_json::Value>,
    /// The transactions that broke it, by index.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub txns: Vec<u64>,
    /// Those transactions as recorded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ops: Vec<TxnView>,
    /// The anomalies through which a system can break it (Elle's names): a level that permits any of
    /// them does not promise the invariant.
    pub broken_by: Vec<String>,
    /// Whether the models checked promise it (prohibit every anomaly in `broken_by`): only a broken
    /// invariant they promise makes the verdict invalid.
    pub promised: bool,
}

impl Invariant {
    /// Whether it broke where the models checked promise it: only such a break makes the verdict invalid.
    pub fn fails(&self) -> bool {
        !self.holds && self.promised
    }

    /// When it broke though the models checked do not promise it, the anomalies through which it can
    /// break (such a break leaves the verdict as it is); `None` otherwise.
    pub fn permitted(&self) -> Option<&[String]> {
        (!self.holds && !self.promised).then_some(self.broken_by.as_slice())
    }
}

/// Counts that say how much the checker could see.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct Stats {
    /// Operations in the history.
    pub ops: usize,
    /// Client transactions.
    pub txns: usize,
    /// Committed transactions.
    pub ok: usize,
    /// Aborted transactions.
    pub fail: usize,
    /// Indeterminate transactions (including those the history never completed).
    pub info: usize,
    /// Dependencies inferred, by kind.
    pub edges: BTreeMap<String, usize>,
    /// Keys seen.
    pub keys: usize,
    /// Keys whose version order the history shows: for list-append, keys some read ordered; for
    /// rw-register, keys whose inferred order ranks every version against every other; for
    /// closed-predicate, keys at most one transaction wrote (the others are ordered by when their writers
    /// completed, an assumption).
    pub ordered_keys: usize,
    /// Strongly connected components with more than one transaction.
    pub cyclic_components: usize,
    /// Transactions in the largest such component.
    pub largest_component: usize,
    /// What the checker could not infer, said in words (empty when it saw enough).
    pub blind_spots: Vec<String>,
    /// Only the counts of operations, transactions and keys are known: the verdict came from checking
    /// the history in parts as it grew (`run --online`), and no graph of the whole history was built,
    /// so `edges`, `ordered_keys` and the components were not counted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub counts_only: bool,
}

/// The evidence for one anomaly.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Anomaly {
    /// A dependency cycle.
    Cycle(Cycle),
    /// Any other anomaly: a bad read, a lost update, an impossible order.
    Case(Case),
}

impl Anomaly {
    /// The explanation a person can check by hand.
    pub fn explanation(&self) -> &str {
        match self {
            Anomaly::Cycle(c) => &c.explanation,
            Anomaly::Case(c) => &c.explanation,
        }
    }

    /// The transactions involved, by index.
    pub fn txn_indices(&self) -> Vec<u64> {
        match self {
            Anomaly::Cycle(c) => c.cycle.clone(),
            Anomaly::Case(c) => c.txns.clone(),
        }
    }

    /// The cycle, if this anomaly is one.
    pub fn as_cycle(&self) -> Option<&Cycle> {
        match self {
            Anomaly::Cycle(c) => Some(c),
            Anomaly::Case(_) => None,
        }
    }

    /// The operations involved.
    pub fn ops(&self) -> &[TxnView] {
        match self {
            Anomaly::Cycle(c) => &c.ops,
            Anomaly::Case(c) => &c.ops,
        }
    }
}

/// A named shape of a cycle, with the transactions (by index) in its roles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "name", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Shape {
    /// Fekete, O'Neil and O'Neil's read-only anomaly: `read_only -rw-> pivot -rw-> t_out`, and `t_out`
    /// precedes `read_only` by the cycle's other steps, none of them anti-dependencies.
    ReadOnlyAnomaly {
        /// `T_in`: committed, and wrote nothing.
        read_only: u64,
        /// The pivot: anti-dependencies in and out.
        pivot: u64,
        /// `T_out`: the pivot missed its write, and the read-only transaction saw its effects.
        t_out: u64,
    },
}

impl Shape {
    /// The shape's name, as the result JSON writes it.
    pub fn name(&self) -> &'static str {
        match self {
            Shape::ReadOnlyAnomaly { .. } => "read-only-anomaly",
        }
    }
}

/// A dependency cycle: each transaction must precede the next, and the last the first.
#[derive(Debug, Clone, Serialize)]
pub struct Cycle {
    /// The transactions, by index, in cycle order.
    pub cycle: Vec<u64>,
    /// One step per edge; the last returns to the first transaction.
    pub steps: Vec<Step>,
    /// Elle's "Let ... Then ... a contradiction!" explanation.
    pub explanation: String,
    /// The operations themselves.
    pub ops: Vec<TxnView>,
    /// The cycle's named shape (the read-only anomaly), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// Facts beyond the cycle (for a cycle-exists anomaly: the model, the subgraph, the component).
    #[serde(flatten)]
    pub facts: serde_json::Map<String, serde_json::Value>,
}

/// One edge of a cycle.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The dependency kind.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// The key the dependency is on, for data dependencies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<Key>,
    /// The earlier transaction's index.
    pub from: u64,
    /// The later transaction's index.
    pub to: u64,
    /// Why: one sentence a person can check against the history.
    pub explanation: String,
}

/// A non-cycle anomaly.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    /// The transactions involved, by index (the one that went wrong first).
    pub txns: Vec<u64>,
    /// The key involved, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<Key>,
    /// Anomaly-specific facts (the element read, the values, the expected state).
    #[serde(flatten)]
    pub facts: serde_json::Map<String, serde_json::Value>,
    /// What went wrong, in words.
    pub explanation: String,
    /// The operations themselves.
    pub ops: Vec<TxnView>,
}

/// A transaction as the history recorded it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TxnView {
    /// The completion's index (the invocation's if it never completed).
    pub index: u64,
    /// The invocation's index.
    pub invoke_index: u64,
    /// The process.
    pub process: String,
    /// How it ended.
    #[serde(rename = "type")]
    pub outcome: OpType,
    /// The micro-ops.
    pub value: Vec<Mop>,
    /// For a predicate workload's `init` op, the rows it installed (its micro-ops are then empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_rows: Option<Rows>,
    /// When it was invoked (ns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invoke_time: Option<i64>,
    /// When it completed (ns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complete_time: Option<i64>,
    /// The error, for `fail` and `info`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
