//! A shrunk history (`checker::shrink`) for people and programs: the transactions kept, each with why it
//! is needed, as the test shorthand of the checker's own tests (Elle's `"ax1ry12"`, laid out by
//! `interleaved`) so it can be pasted into a test, and as a JSON object for programs. The shorthand
//! renames keys to `x y z t u` and each key's values to `1`..`9` in order of appearance, which keeps
//! every dependency (values only name versions); a history that does not fit (more keys or values,
//! predicates) is shown in Elle's notation instead. This module only lays out what the shrinker decided.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use checker::shrink::{Need, Shrunk};
use histories::{History, Key, Mop, Observed, Op, OpType};
use serde_json::json;

/// Why a kept transaction is needed, in one sentence.
pub fn need_sentence(need: &Need) -> String {
    match need {
        Need::CycleEdge(steps) => {
            let edges: Vec<String> = steps.iter().map(|s| s.explanation.clone()).collect();
            format!("it carries a cycle edge: {}", edges.join("; "))
        }
        Need::VersionOrder(keys) => {
            let keys: Vec<String> = keys.iter().map(Key::to_string).collect();
            format!(
                "it fixes a version order: its read of key {} orders the versions the cycle's edges are inferred from",
                keys.join(", ")
            )
        }
        Need::OrderWitness => {
            "it is a real-time or process-order witness: without it the cycle's order edges go".into()
        }
        Need::Wrote(classes) => format!(
            "it wrote values the kept reads show: without it the rest would show {}, which the history does not",
            classes.join(", ")
        ),
        Need::Other => "without it the checker no longer reports the anomaly".into(),
    }
}

/// The shrunk history as text: a summary, the kept transactions and why, the test shorthand, and the
/// history itself as JSON Lines.
pub fn shrunk_text(shrunk: &Shrunk, source: &str) -> String {
    let mut out = format!(
        "{source}: shrunk to {} of {} transactions and {} of {} micro-ops still showing {} ({} checks)\n",
        shrunk.kept.len(),
        shrunk.original_txns,
        shrunk.mops,
        shrunk.original_mops,
        shrunk.result.anomaly_types.join(", "),
        shrunk.checks,
    );
    out.push_str("\nKept, and why (each was removed alone and the anomaly went):\n");
    let ops = by_index(&shrunk.history);
    let writers: Vec<String> =
        shrunk.kept.iter().filter(|k| matches!(k.need, Need::Wrote(_))).map(|k| format!("T{}", k.index)).collect();
    for kept in shrunk.kept.iter().filter(|k| !matches!(k.need, Need::Wrote(_))) {
        let txn = ops.get(&kept.index).map(|op| mops_text(op.mops())).unwrap_or_default();
        let _ = writeln!(out, "  T{} {txn}\n    {}", kept.index, need_sentence(&kept.need));
    }
    if let Some(need) = shrunk.kept.iter().map(|k| &k.need).find(|n| matches!(n, Need::Wrote(_))) {
        let _ = writeln!(out, "  {} ({} transactions)\n    {}", writers.join(" "), writers.len(), need_sentence(need));
    }
    out.push_str("\nAs a test (checker/tests/support):\n  ");
    out.push_str(&shorthand(&shrunk.history, &shrunk.result.checked.workload));
    out.push_str("\n\nAs a history:\n");
    for op in shrunk.history.ops() {
        let _ = writeln!(out, "{}", serde_json::to_string(op).unwrap_or_default());
    }
    out
}

/// The shrunk history as JSON: the figures, the kept transactions with why, the shorthand, the history
/// and the check result on it.
pub fn shrunk_json(shrunk: &Shrunk) -> serde_json::Value {
    json!({
        "wanted": shrunk.wanted,
        "anomaly_types": shrunk.result.anomaly_types,
        "txns": shrunk.kept.len(),
        "original_txns": shrunk.original_txns,
        "mops": shrunk.mops,
        "original_mops": shrunk.original_mops,
        "checks": shrunk.checks,
        "kept": shrunk.kept.iter().map(|k| json!({
            "index": k.index,
            "need": need_name(&k.need),
            "why": need_sentence(&k.need),
        })).collect::<Vec<_>>(),
        "shorthand": shorthand(&shrunk.history, &shrunk.result.checked.workload),
        "history": shrunk.history.ops(),
        "result": shrunk.result,
    })
}

/// Writes a shrunk history's files into `dir`: `history.jsonl`, `shrink.txt` and `shrink.json` (the
/// kept transactions and why), and, per reported cycle that can be replayed, `cycles/NAME-N.toml` for
/// `isocheck hermitage --scenario-dir`. Returns the paths written.
pub fn write_shrunk(
    dir: &std::path::Path,
    shrunk: &Shrunk,
    replays: &crate::Replays,
) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let mut history = Vec::new();
    histories::write_jsonl(shrunk.history.ops(), &mut history)?;
    let source = dir.join("history.jsonl");
    let files = [
        ("history.jsonl", history),
        ("shrink.txt", shrunk_text(shrunk, &source.display().to_string()).into_bytes()),
        ("shrink.json", (serde_json::to_string_pretty(&shrunk_json(shrunk)).unwrap_or_default() + "\n").into_bytes()),
    ];
    for (name, contents) in files {
        std::fs::write(dir.join(name), contents)?;
        written.push(dir.join(name));
    }
    for ((name, number), replay) in replays.iter() {
        match replay {
            Ok(replay) => {
                std::fs::create_dir_all(dir.join("cycles"))?;
                let path = dir.join(format!("cycles/{name}-{number}.toml"));
                std::fs::write(&path, &replay.toml)?;
                written.push(path);
            }
            Err(why) => log::info!("the shrunk {name} #{number} has no step-by-step replay: {why}"),
        }
    }
    Ok(written)
}

/// The shrunk history as a section of `report.html`, shown before everything else: the figures, the
/// kept transactions with why each is needed, and the test shorthand.
pub fn shrunk_html(shrunk: &Shrunk) -> String {
    use crate::page::{Cell, para, table};
    let mut out = String::from("<section id=\"shrunk\">\n<h2>Shrunk history</h2>\n");
    out.push_str(&para(
        "lead",
        &format!(
            "{} of {} transactions and {} of {} micro-ops still show {}; each transaction below was removed \
             alone and the anomaly went. The shrunk history is shrunk/history.jsonl, its replays shrunk/cycles/.",
            shrunk.kept.len(),
            shrunk.original_txns,
            shrunk.mops,
            shrunk.original_mops,
            shrunk.result.anomaly_types.join(", ")
        ),
    ));
    let ops = by_index(&shrunk.history);
    let rows: Vec<Vec<Cell>> = shrunk
        .kept
        .iter()
        .map(|k| {
            let op = ops.get(&k.index);
            vec![
                Cell::Text(format!("T{}", k.index)),
                Cell::Text(op.map(|op| op.process().to_string()).unwrap_or_default()),
                Cell::Code(op.map(|op| mops_text(op.mops())).unwrap_or_default()),
                Cell::Text(need_sentence(&k.need)),
            ]
        })
        .collect();
    out.push_str(&table("shrunk", &["transaction", "process", "micro-ops", "why it is kept"], &rows));
    out.push_str(&format!(
        "<p>As a test:</p><pre><code>{}</code></pre>\n</section>\n",
        crate::escape::Xml(&shorthand(&shrunk.history, &shrunk.result.checked.workload))
    ));
    out
}

fn need_name(need: &Need) -> &'static str {
    match need {
        Need::CycleEdge(_) => "cycle-edge",
        Need::VersionOrder(_) => "version-order",
        Need::OrderWitness => "order-witness",
        Need::Wrote(_) => "wrote-values-read",
        Need::Other => "other",
    }
}

fn by_index(history: &History) -> BTreeMap<u64, &Op> {
    history
        .transactions()
        .map(|t| {
            let op = t.completion.unwrap_or(t.invoke);
            (op.index, op)
        })
        .collect()
}

fn mops_text(mops: &[Mop]) -> String {
    mops.iter().map(Mop::to_string).collect::<Vec<_>>().join(" ")
}

/// The history as the checker's test shorthand: `interleaved(vec![ok(0, "ax1ry"), ...], &[0, 1, 1, 0])`,
/// or in Elle's notation, one transaction a line, when it does not fit.
pub fn shorthand(history: &History, workload: &str) -> String {
    shorthand_of(history, workload == "rw-register").unwrap_or_else(|| {
        let lines: Vec<String> = history
            .transactions()
            .map(|t| {
                format!("T{} process {} {}: {}", t.op().index, t.op().process(), t.outcome(), mops_text(t.op().mops()))
            })
            .collect();
        lines.join("\n  ")
    })
}

fn shorthand_of(history: &History, registers: bool) -> Option<String> {
    const KEYS: [char; 5] = ['x', 'y', 'z', 't', 'u'];
    let mut keys: BTreeMap<&Key, char> = BTreeMap::new();
    let mut values: BTreeMap<(&Key, i64), u64> = BTreeMap::new();
    let mut per_key: BTreeMap<&Key, u64> = BTreeMap::new();
    // Name keys and values in order of appearance, in the completions (where reads show values).
    let txns: Vec<_> = history.transactions().collect();
    for t in &txns {
        // The layouts cannot spell a transaction whose invocation is unknown (a completion-only history).
        if *t.invoke.f() != histories::Function::Txn || t.completion_at == Some(t.invoke_at) {
            return None;
        }
        for mop in t.op().mops() {
            let key = mop.key()?;
            let next = keys.len();
            keys.entry(key).or_insert(*KEYS.get(next)?);
            let mut name = |v: i64| {
                let count = per_key.entry(key).or_insert(0);
                if let std::collections::btree_map::Entry::Vacant(e) = values.entry((key, v)) {
                    *count += 1;
                    e.insert(*count);
                }
            };
            match mop {
                Mop::Append { value, .. } if !registers => name(*value),
                Mop::Write { value, .. } if registers => name(*value),
                Mop::Read { value: Observed::List(list), .. } if !registers => list.iter().for_each(|v| name(*v)),
                Mop::Read { value: Observed::Int(v), .. } if registers => name(*v),
                Mop::Read { value: Observed::Nil, .. } => {}
                _ => return None,
            }
        }
    }
    if !registers && per_key.values().any(|&n| n > 9) {
        return None;
    }
    let number = |key: &Key, v: i64| values.get(&(key, v)).copied();
    let mut written = Vec::new();
    for t in &txns {
        let mut s = String::new();
        for mop in t.op().mops() {
            let key = mop.key().and_then(|k| keys.get(k))?;
            match mop {
                Mop::Append { key: k, value } => {
                    let _ = write!(s, "a{key}{}", number(k, *value)?);
                }
                Mop::Write { key: k, value, .. } => {
                    let _ = write!(s, "w{key}{}", number(k, *value)?);
                }
                Mop::Read { key: k, value } => {
                    let _ = write!(s, "r{key}");
                    match value {
                        Observed::Nil if t.outcome() == OpType::Ok && registers => s.push('_'),
                        Observed::Nil if t.outcome() == OpType::Ok => {}
                        Observed::Nil => s.push('?'),
                        Observed::Int(v) => {
                            let _ = write!(s, "{}", number(k, *v)?);
                        }
                        Observed::List(list) => {
                            for v in list {
                                let _ = write!(s, "{}", number(k, *v)?);
                            }
                        }
                    }
                }
                _ => return None,
            }
        }
        let outcome = match t.outcome() {
            OpType::Ok => "ok",
            OpType::Fail => "fail",
            _ => "info",
        };
        let process = match t.invoke.process() {
            histories::Process::Client(p) => p,
            histories::Process::Nemesis => return None,
        };
        written.push(format!("{}{outcome}({process}, \"{s}\")", if registers { "r" } else { "" }));
    }
    // The layout: each transaction's number at its invocation and at its completion.
    let mut position: BTreeMap<usize, usize> = BTreeMap::new();
    for (n, t) in txns.iter().enumerate() {
        position.insert(t.invoke_at, n);
        if let Some(c) = t.completion_at {
            position.insert(c, n);
        }
    }
    let order: Vec<String> = position.values().map(usize::to_string).collect();
    Some(format!("interleaved(vec![{}], &[{}])", written.join(", "), order.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shorthand_renames_keys_and_values_in_order_of_appearance() {
        let text = r#"{"index":10,"type":"invoke","process":3,"value":[["append",417,55],["r",415,null]]}
{"index":11,"type":"invoke","process":4,"value":[["append",415,31],["r",417,null]]}
{"index":12,"type":"ok","process":3,"value":[["append",417,55],["r",415,[7]]]}
{"index":13,"type":"ok","process":4,"value":[["append",415,31],["r",417,[]]]}"#;
        let history = histories::parse(text, histories::Format::JsonLines, "h").unwrap();
        // Key 417 is x (appended first in the first completion), 415 is y; 7 is y's first value seen.
        assert_eq!(
            shorthand(&history, "list-append"),
            r#"interleaved(vec![ok(3, "ax1ry1"), ok(4, "ay2rx")], &[0, 1, 0, 1])"#
        );
    }

    #[test]
    fn histories_the_shorthand_cannot_spell_are_shown_in_elles_notation() {
        let text = r#"{"type":"invoke","process":0,"value":[["append",1,1],["append",2,1],["append",3,1],["append",4,1],["append",5,1],["append",6,1]]}
{"type":"ok","process":0,"value":[["append",1,1],["append",2,1],["append",3,1],["append",4,1],["append",5,1],["append",6,1]]}"#;
        let history = histories::parse(text, histories::Format::JsonLines, "h").unwrap();
        assert_eq!(
            shorthand(&history, "list-append"),
            "T1 process 0 ok: [append 1 1] [append 2 1] [append 3 1] [append 4 1] [append 5 1] [append 6 1]"
        );
    }
}
