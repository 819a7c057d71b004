//! Final reads, as Jepsen's set-full checker reads them: after the last fault has healed, each client
//! reads every key it touched (operations named `final-read`), and an acknowledged write those reads do
//! not show is `lost` (no final read of its key shows it) or the reads that miss it are `stale` (some
//! final read of the key shows it, but one that began after the write was acknowledged does not).
//!
//! Only what the history proves counts: a write is acknowledged when its transaction completed `ok`
//! (an indeterminate, `info`, write is never lost: it may never have committed), and a final read
//! misses it only if the read was invoked after that completion in the history (a read that overlapped
//! the write may come before it). Appends accumulate, so a list read that lacks an element appended
//! before it began misses it; a register holds one value, and a later write may overwrite an
//! acknowledged one, so a register read misses a write only when it returns the never-written state.
//!
//! What such a read proves is real-time: the reader must follow the acknowledged writer (it began after
//! the writer completed), yet it read a version that the write follows (an anti-dependency back to the
//! writer); that cycle is `G-single-item-realtime`, which is what both anomalies imply in the
//! taxonomy (`consistency_model`). A model without real time (serializable, repeatable read) permits
//! a read ordered before a write it did not see; ask for `--anomaly lost` to look for lost writes at
//! such a level (`isocheck run` does when it has a nemesis: every level promises durability). Each case names the write, when and on which node it was acknowledged, and the
//! nemesis faults around it. This module owns those two anomalies; the final reads themselves are the
//! runner's.

use std::collections::BTreeMap;

use histories::{Key, Mop, Observed, Op, OpType, Process};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::json;

use crate::explain::{case, facts};
use crate::graph::TxnId;
use crate::result::Case;
use crate::txn::Txns;

/// The name of a final read's operations.
pub const FINAL_READ: &str = "final-read";

/// What a final read returned for one key.
enum Seen<'h> {
    /// A list: the elements appended.
    List(FxHashSet<i64>, &'h Observed),
    /// A register's value (`None`: the never-written state).
    Register(Option<i64>),
}

impl Seen<'_> {
    /// Whether the read shows the write of `value` (an append when `append`, else a register write) or,
    /// for a register, a state after some write (which may have overwritten it).
    fn shows(&self, value: i64, append: bool) -> bool {
        match (self, append) {
            (Seen::List(elements, _), true) => elements.contains(&value),
            (Seen::Register(v), false) => v.is_some(),
            _ => false,
        }
    }

    /// Whether the read proves it misses that write, had it been acknowledged before the read began: a
    /// list (the empty list reads as nil) lacks the element; a register is in its never-written state
    /// (any other value may be a later write over it).
    fn misses(&self, value: i64, append: bool) -> bool {
        match (self, append) {
            (Seen::List(elements, _), true) => !elements.contains(&value),
            (Seen::Register(None), _) => true,
            _ => false,
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Seen::List(_, observed) => serde_json::to_value(observed).unwrap_or(serde_json::Value::Null),
            Seen::Register(v) => json!(v),
        }
    }
}

/// One final read of a key.
struct FinalRead<'h> {
    txn: TxnId,
    seen: Seen<'h>,
}

/// Adds the `lost` and `stale` cases the history's final reads prove.
pub(crate) fn add_cases(txns: &Txns<'_>, cases: &mut BTreeMap<&'static str, Vec<Case>>) {
    let mut finals: FxHashMap<&Key, Vec<FinalRead<'_>>> = FxHashMap::default();
    for t in txns.ids() {
        if txns.outcome(t) != OpType::Ok || txns.invoke(t).f().as_str() != FINAL_READ {
            continue;
        }
        for mop in txns.mops(t) {
            let Mop::Read { key, value } = mop else { continue };
            let seen = match value {
                Observed::List(list) => Seen::List(list.iter().copied().collect(), value),
                Observed::Int(v) => Seen::Register(Some(*v)),
                // An ok list read of nothing is the empty list, an ok register read of nothing the
                // never-written state: `shows` and `misses` tell them apart by the write asked about.
                Observed::Nil => Seen::Register(None),
            };
            finals.entry(key).or_default().push(FinalRead { txn: t, seen });
        }
    }
    if finals.is_empty() {
        return;
    }
    let faults = Faults::of(txns);
    let mut lost = Vec::new();
    // Stale reads by (reader, key): the acknowledged writes each misses.
    let mut stale: BTreeMap<(TxnId, &Key), Vec<(TxnId, i64)>> = BTreeMap::new();
    for w in txns.ids() {
        if txns.outcome(w) != OpType::Ok || txns.invoke(w).f().as_str() == FINAL_READ {
            continue;
        }
        let Some(acked) = txns.completion_position(w) else { continue };
        for mop in txns.mops(w) {
            let (key, value, append) = match mop {
                Mop::Append { key, value } => (key, *value, true),
                Mop::Write { key, value, .. } => (key, *value, false),
                _ => continue,
            };
            let Some(reads) = finals.get(key) else { continue };
            let later: Vec<&FinalRead<'_>> = reads.iter().filter(|r| txns.invoke_position(r.txn) > acked).collect();
            let missing: Vec<&FinalRead<'_>> = later.iter().copied().filter(|r| r.seen.misses(value, append)).collect();
            if missing.is_empty() {
                continue;
            }
            if reads.iter().any(|r| r.seen.shows(value, append)) {
                for r in missing {
                    stale.entry((r.txn, key)).or_default().push((w, value));
                }
            } else {
                lost.push(lost_case(txns, &faults, w, key, value, &missing));
            }
        }
    }
    if !lost.is_empty() {
        cases.entry("lost").or_default().extend(lost);
    }
    if !stale.is_empty() {
        let stale = stale.into_iter().map(|((r, key), writes)| {
            let seen = finals[key].iter().find(|f| f.txn == r).map(|f| f.seen.json());
            stale_case(txns, r, key, seen.unwrap_or_default(), &writes)
        });
        cases.entry("stale").or_default().extend(stale);
    }
}

/// The nemesis's operations, by position in the history: which fault came before an acknowledgement and
/// which after.
struct Faults<'h> {
    ops: Vec<(usize, &'h Op)>,
}

impl<'h> Faults<'h> {
    fn of(txns: &Txns<'h>) -> Faults<'h> {
        let ops = txns
            .history()
            .ops()
            .iter()
            .enumerate()
            .filter(|(_, op)| op.process() == Process::Nemesis && op.kind == OpType::Invoke)
            .collect();
        Faults { ops }
    }

    /// The last fault invoked before `position` and the first invoked after it, as JSON.
    fn around(&self, position: usize) -> (serde_json::Value, serde_json::Value) {
        let split = self.ops.partition_point(|(p, _)| *p < position);
        let describe = |entry: Option<&(usize, &Op)>| {
            entry.map_or(
                serde_json::Value::Null,
                |(_, op)| json!({ "f": op.f().as_str(), "index": op.index, "time": op.time(), "node": op.node() }),
            )
        };
        (describe(split.checked_sub(1).and_then(|i| self.ops.get(i))), describe(self.ops.get(split)))
    }
}

fn seconds(ns: Option<i64>) -> String {
    ns.map_or_else(|| "an unrecorded time".to_string(), |ns| format!("{:.3} s", ns as f64 / 1e9))
}

fn fault_words(fault: &serde_json::Value) -> String {
    match fault["f"].as_str() {
        None => "none".to_string(),
        Some(f) => {
            let node = fault["node"].as_str().map(|n| format!(" on {n}")).unwrap_or_default();
            format!("{f}{node} at {}", seconds(fault["time"].as_i64()))
        }
    }
}

fn lost_case(
    txns: &Txns<'_>,
    faults: &Faults<'_>,
    w: TxnId,
    key: &Key,
    value: i64,
    missing: &[&FinalRead<'_>],
) -> Case {
    let completion = txns.op(w);
    let acked = txns.completion_position(w).unwrap_or_default();
    let (before, after) = faults.around(acked);
    let node = completion.node().map(str::to_string);
    let readers: Vec<String> = missing.iter().map(|r| format!("{} read {}", txns.name(r.txn), r.seen.json())).collect();
    let explanation = format!(
        "{w_name} wrote {value} to key {key} and was acknowledged at {at}{on}; the last fault before was {before}, \
         the next {after}. Every final read of key {key} that began after that acknowledgement misses {value} \
         ({readers}), and no final read shows it: an acknowledged write is absent from the final state the final reads \
         show (lost, or every final read of it is stale). Each of \
         those reads began after {w_name} completed, so in real time it follows {w_name}, yet it read a version \
         that {w_name}'s write follows: G-single-item-realtime.",
        w_name = txns.name(w),
        at = seconds(completion.time()),
        on = node.as_deref().map(|n| format!(" on {n}")).unwrap_or_default(),
        before = fault_words(&before),
        after = fault_words(&after),
        readers = readers.join("; "),
    );
    let mut ids = vec![w];
    ids.extend(missing.iter().map(|r| r.txn));
    let facts = facts([
        ("value", json!(value)),
        ("acknowledged_time", json!(completion.time())),
        ("node", json!(node)),
        ("fault_before", before),
        ("fault_after", after),
        ("final_reads", json!(missing.iter().map(|r| txns.index(r.txn)).collect::<Vec<_>>())),
    ]);
    case(txns, &ids, Some(key), facts, explanation)
}

fn stale_case(txns: &Txns<'_>, r: TxnId, key: &Key, seen: serde_json::Value, writes: &[(TxnId, i64)]) -> Case {
    let missed: Vec<String> = writes
        .iter()
        .map(|&(w, v)| format!("{v} (written by {}, acknowledged at {})", txns.name(w), seconds(txns.op(w).time())))
        .collect();
    let explanation = format!(
        "The final read {r_name}, invoked at {at}, read key {key} = {seen} and so misses {missed}, though each was \
         acknowledged before it began and another final read of key {key} shows it: a stale read. {r_name} \
         follows each writer in real time, yet read a version their writes follow: G-single-item-realtime.",
        r_name = txns.name(r),
        at = seconds(txns.invoke(r).time()),
        missed = missed.join(", "),
    );
    let mut ids = vec![r];
    ids.extend(writes.iter().map(|&(w, _)| w));
    let facts = facts([
        ("read", seen),
        ("missed", json!(writes.iter().map(|&(_, v)| v).collect::<Vec<_>>())),
        ("node", json!(txns.invoke(r).node())),
    ]);
    case(txns, &ids, Some(key), facts, explanation)
}
