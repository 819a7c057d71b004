//! Explanations a person can check by hand, in Elle's words: each transaction shown as the history
//! recorded it ("Let: T12 = ..."), then each step of a cycle as one sentence ("T12 < T40, because T12 did
//! not observe T40's append of 4 to 3"), ending "However, ...: a contradiction!". This module owns the
//! wording shared by every workload; the sentence for one data dependency comes from the workload's
//! `DataExplainer`, and those for process and real-time orders from `orders`.

use std::fmt::Write;

use histories::{Key, Mop, RowsText};

use crate::graph::TxnId;
use crate::kind::Kind;
use crate::result::{Case, Step, TxnView};
use crate::txn::Txns;

/// Explains data dependencies between transactions of one workload.
pub trait DataExplainer {
    /// Why `from` must precede `to` by a dependency of `kind`: the key involved and the reason, with
    /// transactions named as [`Txns::name`] names them. `None` if there is no such dependency.
    fn explain(&self, from: TxnId, to: TxnId, kind: Kind) -> Option<(Option<Key>, String)>;
}

/// The transaction as recorded.
pub fn txn_view(txns: &Txns<'_>, id: TxnId) -> TxnView {
    let invoke = txns.invoke(id);
    let completion = txns.completion(id);
    TxnView {
        index: txns.index(id),
        invoke_index: invoke.index,
        process: invoke.process().to_string(),
        outcome: txns.outcome(id),
        value: txns.mops(id).to_vec(),
        init_rows: txns.init_rows(id).cloned(),
        invoke_time: invoke.time(),
        complete_time: completion.and_then(|c| c.time()),
        error: completion.and_then(|c| c.error()).map(str::to_string),
    }
}

/// `T12 = {:index 12, :type :ok, :process 0, :value [[append 3 1] [r 4 [1 2]]]}`; an `init` op shows
/// its rows: `T1 = {:index 1, :type :ok, :process 0, :f :init, :value {1 10, 2 20}}`.
pub fn binding(view: &TxnView) -> String {
    let head =
        format!("T{} = {{:index {}, :type :{}, :process {}, ", view.index, view.index, view.outcome, view.process);
    if let Some(rows) = &view.init_rows {
        return format!("{head}:f :init, :value {}}}", RowsText(rows));
    }
    let mut text = format!("{head}:value [");
    for (i, mop) in view.value.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        let _ = write!(text, "{mop}");
    }
    text.push_str("]}");
    text
}

/// The full explanation of a cycle.
pub fn cycle_text(views: &[TxnView], steps: &[Step]) -> String {
    let mut text = String::from("Let:\n");
    for view in views {
        let _ = writeln!(text, "  {}", binding(view));
    }
    text.push_str("\nThen:\n");
    for (i, step) in steps.iter().enumerate() {
        if i + 1 == steps.len() && steps.len() > 1 {
            let _ = write!(
                text,
                "  - However, T{} < T{}, because {}: a contradiction!",
                step.from, step.to, step.explanation
            );
        } else {
            let _ = writeln!(text, "  - T{} < T{}, because {}.", step.from, step.to, step.explanation);
        }
    }
    text
}

/// A non-cycle anomaly about these transactions.
pub fn case(
    txns: &Txns<'_>,
    ids: &[TxnId],
    key: Option<&Key>,
    facts: serde_json::Map<String, serde_json::Value>,
    explanation: String,
) -> Case {
    Case {
        txns: ids.iter().map(|&id| txns.index(id)).collect(),
        key: key.cloned(),
        facts,
        explanation,
        ops: ids.iter().map(|&id| txn_view(txns, id)).collect(),
    }
}

/// Facts for a case, from `(name, value)` pairs.
pub fn facts<const N: usize>(pairs: [(&str, serde_json::Value); N]) -> serde_json::Map<String, serde_json::Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// A micro-op as JSON, for facts.
pub fn mop_json(mop: &Mop) -> serde_json::Value {
    serde_json::to_value(mop).unwrap_or(serde_json::Value::Null)
}
