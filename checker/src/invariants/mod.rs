//! Invariants of the scenario workloads, checked from the history alone: the bank (Jepsen's bank test,
//! and its withdraw form, where write skew spends money twice) and doctors on call (write skew, after
//! Berenson et al. 1995 and Fekete et al. 2005). They do not need the dependency graph: a broken
//! invariant is evidence by itself, with the figures and the transactions that broke it. Each names the
//! anomalies through which a system can break it ([`BROKEN_BY`]); it makes the verdict invalid only
//! when the models checked prohibit all of them (read committed permits lost updates, snapshot
//! isolation write skew: a correct system at those levels may break the bank's invariants).
//!
//! Which scenario a history is shows in its operation names (`f`): `withdraw` for the
//! withdraw bank, `transfer` for the transfer bank, `off-call` and `on-call` for doctors on call; `read`
//! reads every row. The initial rows come from the history's `init` operation. This module owns that
//! detection and the view of transactions the checks share; each scenario's checks are in their own
//! module.

mod bank;
pub mod op_names;
mod write_skew;

use std::collections::{BTreeMap, BTreeSet};

use histories::{Function, History, Key, Mop, Observed, OpType, OpValue};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::explain::txn_view;
use crate::graph::TxnId;
use crate::result::{CheckResult, Checked, Invariant, Stats, TxnView, Validity};
use crate::txn::Txns;

/// A suite of invariants, that of a scenario workload, as a history's operation names show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvariantSuite {
    /// The bank, withdraw form.
    Withdraw,
    /// The bank, transfer form.
    Transfer,
    /// Doctors on call.
    WriteSkew,
}

impl InvariantSuite {
    /// The suite of a history, if it is a scenario workload's: that of its first client operation that
    /// names one, looked for on all cores (a big history's operations name none, and each is asked).
    pub fn detect(history: &History) -> Option<InvariantSuite> {
        history.ops().par_iter().with_min_len(4096).filter(|op| op.is_client()).find_map_first(|op| {
            match op.f().as_str() {
                op_names::WITHDRAW => Some(InvariantSuite::Withdraw),
                op_names::TRANSFER => Some(InvariantSuite::Transfer),
                op_names::OFF_CALL | op_names::ON_CALL => Some(InvariantSuite::WriteSkew),
                _ => None,
            }
        })
    }

    /// Why the dependency graph cannot be checked on this scenario's histories, if it cannot: Elle
    /// infers version orders from written values, which must be unique per key.
    pub fn graph_check_unsound(self) -> Option<&'static str> {
        (self == InvariantSuite::Transfer)
            .then_some("transfers write balances that repeat, so versions cannot be told apart by value")
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            InvariantSuite::Withdraw => "bank (withdraw)",
            InvariantSuite::Transfer => "bank (transfer)",
            InvariantSuite::WriteSkew => "write-skew",
        }
    }
}

/// Each invariant, and the anomalies through which a system can break it: a withdrawal that missed
/// another's withdrawal from a different account (write skew, `G2-item`) overdraws; one that missed a
/// withdrawal from the same account and overwrote it (`lost-update`) loses money from the final total;
/// a read of all balances that saw one transfer's debit but not its credit (read skew, `G-single-item`)
/// sees a wrong total; doctors who each saw the other on call and both left did so by write skew.
pub const BROKEN_BY: &[(&str, &[&str])] = &[
    ("total-never-negative", &["G2-item"]),
    ("final-total", &["lost-update"]),
    ("withdrawals-within-total", &["G2-item", "lost-update"]),
    ("total-preserved", &["G-single-item", "lost-update"]),
    ("no-negative-balance", &["G-single-item", "lost-update"]),
    ("on-call-in-every-read", &["G2-item"]),
    ("on-call-at-the-end", &["G2-item"]),
];

/// Marks which invariants the models promise: those whose every breaking anomaly the models prohibit.
pub fn judge(invariants: &mut [Invariant], models: &[String]) {
    let prohibited = crate::consistency_model::anomalies_prohibited_by(models.iter().map(String::as_str));
    for invariant in invariants {
        invariant.promised = invariant.broken_by.iter().all(|a| prohibited.contains(a.as_str()));
    }
}

/// Checks the invariants of the history's suite; none if the history is not a scenario workload's.
pub fn check(history: &History) -> Vec<Invariant> {
    let Some(scenario) = InvariantSuite::detect(history) else { return Vec::new() };
    let view = View::new(history);
    match scenario {
        InvariantSuite::Withdraw => bank::withdraw(&view),
        InvariantSuite::Transfer => bank::transfer(&view),
        InvariantSuite::WriteSkew => write_skew::check(&view),
    }
}

/// What became of the dependency-graph check of a history with invariants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphCheck {
    /// The graph was checked.
    Checked,
    /// It was not, for this reason.
    NotApplicable(String),
}

impl GraphCheck {
    /// `checked`, or `not applicable: ...`.
    pub fn describe(&self) -> String {
        match self {
            GraphCheck::Checked => "checked".into(),
            GraphCheck::NotApplicable(why) => format!("not applicable: {why}"),
        }
    }
}

/// Whether to check the dependency graph of a history with invariants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphPolicy<'a> {
    /// Check it; micro-ops the checker cannot read are an error, as in [`crate::check`].
    Required,
    /// Check it where the checker can read the micro-ops, and otherwise check only the invariants.
    WhereReadable,
    /// Do not: it would be unsound on this workload's histories, for this reason.
    Unsound(&'a str),
}

/// Checks a history of `workload`: the dependency graph as `graph` says, and the suite's invariants.
pub fn check_history(
    history: &History,
    options: &crate::Options,
    workload: &str,
    graph: GraphPolicy<'_>,
) -> Result<(CheckResult, GraphCheck), crate::CheckError> {
    let mut invariants = check(history);
    judge(&mut invariants, options.models());
    let only = |why: &str| {
        let result = CheckResult::from_invariants(history, workload, invariants.clone(), why);
        (result, GraphCheck::NotApplicable(why.to_string()))
    };
    if let GraphPolicy::Unsound(why) = graph {
        return Ok(only(why));
    }
    match crate::check(history, options) {
        Ok(result) => Ok((result.with_invariants(invariants), GraphCheck::Checked)),
        Err(crate::CheckError::Workload { at, message }) if graph == GraphPolicy::WhereReadable => {
            Ok(only(&format!("the checker cannot read the micro-ops (line {}: {message})", at.line)))
        }
        Err(e) => Err(e),
    }
}

impl CheckResult {
    /// Adds invariants to a result: a broken one the models promise makes the verdict invalid.
    pub fn with_invariants(mut self, invariants: Vec<Invariant>) -> CheckResult {
        if invariants.iter().any(Invariant::fails) {
            self.valid = Validity::Invalid;
        }
        self.invariants.extend(invariants);
        self
    }

    /// A result from invariants alone, for a history of `workload` the dependency graph cannot be
    /// checked on; `why` says why, and is reported as what the checker could not see. With no
    /// invariants either, nothing was checked and the verdict is unknown.
    pub fn from_invariants(history: &History, workload: &str, invariants: Vec<Invariant>, why: &str) -> CheckResult {
        let txns = Txns::new(history);
        let count = |o: OpType| txns.ids().filter(|&t| txns.outcome(t) == o).count();
        let what = if invariants.is_empty() { "nothing was" } else { "only the invariants were" };
        let keys: BTreeSet<&Key> = txns.ids().flat_map(|t| txns.mops(t).iter().filter_map(Mop::key)).collect();
        let result = CheckResult {
            valid: if invariants.is_empty() { Validity::Unknown } else { Validity::Valid },
            anomaly_types: Vec::new(),
            not: Vec::new(),
            also_not: Vec::new(),
            anomalies: BTreeMap::new(),
            flags: Vec::new(),
            invariants: Vec::new(),
            stats: Stats {
                ops: history.len(),
                txns: txns.len(),
                ok: count(OpType::Ok),
                fail: count(OpType::Fail),
                info: count(OpType::Info),
                keys: keys.len(),
                blind_spots: vec![format!("the dependency graph was not checked: {why}; {what} checked")],
                ..Stats::default()
            },
            witness: None,
            checked: Checked {
                workload: format!(
                    "{workload}, {}",
                    if invariants.is_empty() { "not checked" } else { "invariants only" }
                ),
                models: Vec::new(),
                anomalies: Vec::new(),
                assumptions: Vec::new(),
                commit_ordered: 0,
                numbered_writes: 0,
                exact_models: Vec::new(),
                unordered_pairs: 0,
                missing_realtime: Vec::new(),
            },
        };
        result.with_invariants(invariants)
    }
}

/// A transaction as the invariants see it: what it is called, how it ended, what it read and wrote.
struct Txn<'h> {
    id: TxnId,
    f: &'h str,
    outcome: OpType,
    /// Known register reads, in order.
    reads: Vec<(&'h Key, i64)>,
    /// Register writes, in order.
    writes: Vec<(&'h Key, i64)>,
    /// Positions of the invocation and completion in the history (the end if it never completed).
    invoked: usize,
    completed: usize,
}

impl Txn<'_> {
    fn read(&self, key: &Key) -> Option<i64> {
        self.reads.iter().find(|(k, _)| *k == key).map(|&(_, v)| v)
    }

    fn is_ok(&self) -> bool {
        self.outcome == OpType::Ok
    }
}

/// The history as the invariant checks read it.
struct View<'h> {
    txns: Txns<'h>,
    /// The rows the `init` operation fixed.
    initial: BTreeMap<Key, i64>,
    /// The rows of the scenario: the initial ones, or every key the history names if it has no `init`.
    keys: Vec<Key>,
    all: Vec<Txn<'h>>,
    /// Which committed transaction wrote each value (values are unique per key where the scenario
    /// makes them so; the first writer otherwise).
    writers: FxHashMap<(&'h Key, i64), TxnId>,
}

impl<'h> View<'h> {
    fn new(history: &'h History) -> View<'h> {
        let txns = Txns::new(history);
        let mut initial = BTreeMap::new();
        for op in history.ops().iter().filter(|op| op.f() == &Function::Init) {
            if let OpValue::Rows(rows) = &op.value {
                initial.extend(rows.iter().map(|(k, v)| (k.clone(), *v)));
            }
        }
        let end = history.len();
        let all: Vec<Txn<'h>> = txns
            .ids()
            .map(|id| {
                let mut reads = Vec::new();
                let mut writes = Vec::new();
                for mop in txns.mops(id) {
                    match mop {
                        Mop::Read { key, value: Observed::Int(v) } => reads.push((key, *v)),
                        Mop::Write { key, value, .. } => writes.push((key, *value)),
                        _ => {}
                    }
                }
                Txn {
                    id,
                    f: txns.op(id).f().as_str(),
                    outcome: txns.outcome(id),
                    reads,
                    writes,
                    invoked: txns.invoke_position(id),
                    completed: txns.completion_position(id).unwrap_or(end),
                }
            })
            .collect();
        let keys: Vec<Key> = if initial.is_empty() {
            let seen: BTreeSet<&Key> =
                all.iter().flat_map(|t| t.reads.iter().chain(&t.writes).map(|(k, _)| *k)).collect();
            seen.into_iter().cloned().collect()
        } else {
            initial.keys().cloned().collect()
        };
        let mut writers = FxHashMap::default();
        for t in all.iter().filter(|t| t.is_ok()) {
            for &(k, v) in &t.writes {
                writers.entry((k, v)).or_insert(t.id);
            }
        }
        View { txns, initial, keys, all, writers }
    }

    /// The committed transactions, in the order they completed.
    fn committed(&self) -> Vec<&Txn<'h>> {
        let mut ok: Vec<&Txn<'h>> = self.all.iter().filter(|t| t.is_ok()).collect();
        ok.sort_by_key(|t| t.completed);
        ok
    }

    /// What a transaction read of every row, in row order, if it read them all.
    fn read_all(&self, t: &Txn<'_>) -> Option<Vec<i64>> {
        self.keys.iter().map(|k| t.read(k)).collect()
    }

    /// The committed reads of every row, in completion order, with what they read.
    fn full_reads(&self) -> Vec<(&Txn<'h>, Vec<i64>)> {
        self.committed().into_iter().filter_map(|t| self.read_all(t).map(|values| (t, values))).collect()
    }

    fn initial_total(&self) -> i64 {
        self.initial.values().sum()
    }

    fn name(&self, id: TxnId) -> String {
        self.txns.name(id)
    }

    fn index(&self, id: TxnId) -> u64 {
        self.txns.index(id)
    }

    fn views(&self, ids: &[TxnId]) -> Vec<TxnView> {
        ids.iter().map(|&id| txn_view(&self.txns, id)).collect()
    }

    /// `0 = 200, 1 = -100`: rows and values, for explanations.
    fn rows_text(&self, values: &[i64]) -> String {
        self.keys.iter().zip(values).map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
    }

    /// An invariant with its evidence.
    fn invariant(
        &self,
        name: &str,
        broken: &[TxnId],
        explanation: String,
        figures: serde_json::Map<String, serde_json::Value>,
    ) -> Invariant {
        let mut ids = broken.to_vec();
        ids.dedup();
        let broken_by = BROKEN_BY.iter().find(|(n, _)| *n == name).map_or(&[][..], |(_, a)| *a);
        Invariant {
            name: name.to_string(),
            holds: broken.is_empty(),
            explanation,
            figures,
            txns: ids.iter().map(|&id| self.index(id)).collect(),
            ops: self.views(&ids),
            broken_by: broken_by.iter().map(|a| a.to_string()).collect(),
            promised: true,
        }
    }
}

/// A JSON object from pairs.
fn figures<const N: usize>(pairs: [(&str, serde_json::Value); N]) -> serde_json::Map<String, serde_json::Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// `T1, T2 and T3`.
fn list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Reads grouped by what they read, in the order each state was first read.
fn group_by_values<'a>(reads: impl Iterator<Item = (TxnId, &'a Vec<i64>)>) -> Vec<(Vec<TxnId>, &'a Vec<i64>)> {
    let mut groups: Vec<(Vec<TxnId>, &'a Vec<i64>)> = Vec::new();
    for (id, values) in reads {
        match groups.iter_mut().find(|(_, v)| *v == values) {
            Some((ids, _)) => ids.push(id),
            None => groups.push((vec![id], values)),
        }
    }
    groups
}

/// Transactions by name: `T1, T2 and T3`, or `T1, T2, T3 and 7 more` for a long list.
fn names(view: &View<'_>, ids: &[TxnId]) -> String {
    let mut shown: Vec<String> = ids.iter().take(3).map(|&id| view.name(id)).collect();
    if ids.len() > 3 {
        shown.push(format!("{} more", ids.len() - 3));
    }
    list(&shown)
}

/// How many examples an explanation spells out.
const SHOWN: usize = 5;

#[cfg(test)]
mod tests;
