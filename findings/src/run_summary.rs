//! What a run did, as its `run.json` says (docs/CONTRACTS.md): the system and level, the workload
//! and its parameters, the counts, aborts by cause, elapsed time and throughput, transactions by name,
//! the contended pairs and the holds. The runner builds this value and writes it as `run.json`; the
//! reports read it back and lay it out. Fields a newer runner adds are kept (`extra`) and shown as they
//! are, so a report never drops a figure it does not know. Measuring the figures is the runner's.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

/// A run's summary: `run.json`, and the `run` object of `run --format json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct RunSummary {
    /// `isocheck` and its version.
    pub tool: String,
    /// The system under test (`engine`, `sqlite`, `postgres`, `mariadb`).
    pub db: String,
    /// The system's own name and version.
    pub system_version: String,
    /// The level asked for.
    pub isolation: String,
    /// How the system ran that level, in words.
    pub level_mapping: String,
    /// What the system's documentation says of the level, when that is weaker than the model the
    /// level's name maps to: quoted beside the verdict.
    pub documented_behaviour: Option<Documented>,
    /// Server settings that change what a level means, as the system read them
    /// (`{"innodb_snapshot_isolation": "OFF"}` on MariaDB); absent where a system has none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub system_settings: BTreeMap<String, String>,
    /// The workload.
    pub workload: String,
    /// The workload's parameters, by name, as the workload describes them (shown as they are).
    pub parameters: serde_json::Map<String, serde_json::Value>,
    /// The seed of the transaction stream.
    pub seed: Option<u64>,
    /// Concurrent clients.
    pub clients: Option<u64>,
    /// The planted engine defect, if any.
    pub defect: Option<String>,
    /// The faults injected, if any.
    pub nemesis: Option<String>,
    /// The round of a comparison this run was (`compare --out`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<u64>,
    /// When the run began (RFC 3339).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub started_at: String,
    /// Committed transactions.
    pub ok: u64,
    /// Aborted transactions.
    pub fail: u64,
    /// Indeterminate transactions.
    pub info: u64,
    /// Aborts and indeterminate outcomes by cause (`40001`, `SQLITE_BUSY`, `connection lost`).
    pub aborts_by_cause: BTreeMap<String, u64>,
    /// Wall time of the run, in seconds.
    pub elapsed_s: f64,
    /// Transactions per second over the run.
    pub throughput_tps: u64,
    /// Transactions by name (`f`) and outcome: `{"withdraw": {"ok": 10, "fail": 3}}`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub operations: BTreeMap<String, BTreeMap<String, u64>>,
    /// Committed transactions that overlapped and conflicted, by their recorded times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contended_pairs: Option<ContendedPairs>,
    /// The holds inside transactions, for workloads that hold.
    pub holds: Option<HoldFigures>,
    /// How far the dependency-graph check went (`checked`, or why it could not be).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_check: Option<String>,
    /// The shrunk history, when the run was shrunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrunk: Option<ShrunkSummary>,
    /// Why the run stopped before its limit (its system gone, an error that ends the run), if it did:
    /// the history holds what was recorded until then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_early: Option<String>,
    /// Committed transactions by the node that ran them, on a cluster (`{"n1": 120, "n2": 98}`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub commits_per_node: BTreeMap<String, u64>,
    /// Where the run wrote its files.
    pub out_dir: String,
    /// Every other field, as written.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Committed pairs of transactions that overlapped in time and conflicted (`run.json`'s
/// `contended_pairs`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ContendedPairs {
    /// Pairs that wrote a key in common.
    pub write_write: u64,
    /// Pairs that each wrote a key the other read (and no key in common).
    pub read_write: u64,
}

/// How long a workload's transactions held, how many did, and for how long some transaction was
/// holding (`run.json`'s `holds`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct HoldFigures {
    /// Each hold, in milliseconds.
    pub hold_ms: f64,
    /// Transactions that held.
    pub count: u64,
    /// How long at least one transaction was holding, in milliseconds.
    pub busy_ms: f64,
}

/// The shrunk history of a run that showed an anomaly (`run.json`'s `shrunk`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ShrunkSummary {
    /// Transactions kept.
    pub txns: u64,
    /// Micro-ops kept.
    pub mops: u64,
    /// The anomaly classes the shrunk history shows.
    pub anomaly_types: Vec<String>,
    /// The shrunk history's file.
    pub history: String,
}

/// A system's documentation on a level, quoted, with its link (`run.json`'s `documented_behaviour`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Documented {
    /// The documentation's words.
    pub quote: String,
    /// Where they are.
    pub link: String,
}

impl std::fmt::Display for Documented {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the system documents this level as: \"{}\" ({})", self.quote, self.link)
    }
}

impl RunSummary {
    /// Reads a summary from `run.json`'s text; absent fields take their defaults.
    pub fn from_json_text(text: &str) -> Result<RunSummary, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Reads a summary from `run.json`'s value; absent fields take their defaults.
    pub fn from_json(value: &serde_json::Value) -> Result<RunSummary, serde_json::Error> {
        RunSummary::deserialize(value)
    }

    /// Transactions run: committed, aborted and indeterminate.
    pub fn txns(&self) -> u64 {
        self.ok + self.fail + self.info
    }

    /// The share of transactions that aborted, from 0 to 1 (0 for an empty run).
    pub fn abort_rate(&self) -> f64 {
        if self.txns() == 0 { 0.0 } else { self.fail as f64 / self.txns() as f64 }
    }

    /// The run's settings and figures as (name, value) rows, in the order reports show them; the
    /// fields this type does not name come last.
    pub fn rows(&self) -> Vec<(String, String)> {
        let mut rows: Vec<(String, String)> = Vec::new();
        let mut push = |name: &str, value: String| {
            if !value.is_empty() {
                rows.push((name.to_string(), value));
            }
        };
        push("system", if self.system_version.is_empty() { self.db.clone() } else { self.system_version.clone() });
        push("isolation", self.isolation.clone());
        push("level as run", self.level_mapping.clone());
        push("documented behaviour", self.documented_behaviour.as_ref().map(ToString::to_string).unwrap_or_default());
        push(
            "system settings",
            self.system_settings.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", "),
        );
        push("workload", self.workload.clone());
        push("clients", self.clients.map(|c| c.to_string()).unwrap_or_default());
        push("seed", self.seed.map(|s| s.to_string()).unwrap_or_default());
        push("planted defect", self.defect.clone().unwrap_or_default());
        push("nemesis", self.nemesis.clone().unwrap_or_default());
        push("started", self.started_at.clone());
        push("transactions", format!("{} ({} ok, {} fail, {} info)", self.txns(), self.ok, self.fail, self.info));
        push("stopped early", self.stopped_early.clone().unwrap_or_default());
        push(
            "commits per node",
            self.commits_per_node.iter().map(|(node, n)| format!("{node} {n}")).collect::<Vec<_>>().join(", "),
        );
        push("abort rate", format!("{:.1}%", self.abort_rate() * 100.0));
        push("elapsed", format!("{:.3} s", self.elapsed_s));
        push("throughput", format!("{} txn/s", self.throughput_tps));
        if let Some(h) = &self.holds {
            push(
                "holds",
                format!(
                    "{} transactions held {} ms each; some transaction was holding for {} ms in all",
                    h.count, h.hold_ms, h.busy_ms
                ),
            );
        }
        push("graph check", self.graph_check.clone().unwrap_or_default());
        if let Some(s) = &self.shrunk {
            push(
                "shrunk",
                format!(
                    "{} transactions, {} micro-ops ({}): {}",
                    s.txns,
                    s.mops,
                    s.anomaly_types.join(", "),
                    s.history
                ),
            );
        }
        push("round", self.round.map(|r| r.to_string()).unwrap_or_default());
        for (name, value) in &self.extra {
            if value.is_null() {
                continue;
            }
            push(name, crate::page::json_text(value));
        }
        if !self.tool.is_empty() {
            rows.push(("tool".into(), self.tool.clone()));
        }
        rows
    }

    /// The workload's parameters as (name, value) rows: strings as they are, anything else as compact
    /// JSON.
    pub fn parameter_rows(&self) -> Vec<(String, String)> {
        self.parameters.iter().map(|(name, value)| (name.clone(), crate::page::json_text(value))).collect()
    }

    /// Transactions by name as rows of (name, committed, aborted, indeterminate).
    pub fn operation_rows(&self) -> Vec<(String, u64, u64, u64)> {
        let count = |by: &BTreeMap<String, u64>, outcome: &str| by.get(outcome).copied().unwrap_or(0);
        self.operations
            .iter()
            .map(|(name, by)| (name.clone(), count(by, "ok"), count(by, "fail"), count(by, "info")))
            .collect()
    }

    /// The contended pairs as (what the pair did, how many) rows.
    pub fn contended_rows(&self) -> Vec<(String, u64)> {
        self.contended_pairs.map_or_else(Vec::new, |p| {
            vec![
                ("wrote a key in common".to_string(), p.write_write),
                ("each wrote a key the other read".to_string(), p.read_write),
            ]
        })
    }
}

/// A run's report as text: what ran and its counts, the contended pairs and the holds, then the
/// verdict (with the system's documentation quoted beside it when it documents the level as weaker than
/// its name) and the check's report.
pub fn run_text(run: &RunSummary, result: &checker::CheckResult, history: &str) -> String {
    let causes: Vec<String> = run.aborts_by_cause.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let mut out = format!(
        "Ran {} on {} ({}; {}) with {} clients{}: {} ok, {} fail{}, {} info in {:.2} s ({} txn/s)\nHistory: {}\n",
        run.workload,
        run.system_version,
        run.isolation,
        run.level_mapping,
        run.clients.map_or_else(|| "?".to_string(), |c| c.to_string()),
        run.defect.as_ref().map_or(String::new(), |d| format!(", planted defect {d}")),
        run.ok,
        run.fail,
        if causes.is_empty() { String::new() } else { format!(" ({})", causes.join(", ")) },
        run.info,
        run.elapsed_s,
        run.throughput_tps,
        history,
    );
    let pairs = run.contended_pairs.unwrap_or_default();
    let _ = writeln!(
        out,
        "Contended pairs (committed transactions that overlapped and conflicted): {} wrote a key in common, {} each wrote a key the other read",
        pairs.write_write, pairs.read_write
    );
    if let Some(holds) = &run.holds {
        let _ = writeln!(
            out,
            "Holds: {} transactions held {} ms each; some transaction was holding for {} ms in all",
            holds.count,
            serde_json::Value::from(holds.hold_ms),
            serde_json::Value::from(holds.busy_ms)
        );
    }
    if let Some(graph) = run.graph_check.as_deref().filter(|g| *g != "checked") {
        let _ = writeln!(out, "Graph check: {graph}");
    }
    let mut out = crate::escape::terminal_text(&out).into_owned();
    out.push('\n');
    let report = crate::text(result, history);
    let (verdict, rest) = report.split_once('\n').unwrap_or((&report, ""));
    let _ = writeln!(out, "{verdict}");
    // A level its system documents as weaker than its name is quoted beside the verdict, which still
    // follows the model checked.
    if let Some(documented) = &run.documented_behaviour {
        let _ = writeln!(out, "Note: {documented}; the verdict above is by the model checked (--model).");
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_documented_weaker_level_is_quoted_with_its_link_and_others_are_not() {
        let v = serde_json::json!({"db": "postgres", "isolation": "repeatable-read",
            "documented_behaviour": {"quote": "not serial", "link": "https://example.invalid/doc"}});
        let rows = RunSummary::from_json(&v).unwrap().rows();
        let row = rows.iter().find(|(name, _)| name == "documented behaviour").expect("a row");
        assert_eq!(row.1, "the system documents this level as: \"not serial\" (https://example.invalid/doc)");
        let plain = RunSummary::from_json(&serde_json::json!({"db": "engine", "documented_behaviour": null})).unwrap();
        assert!(plain.rows().iter().all(|(name, _)| name != "documented behaviour"));
    }

    #[test]
    fn system_settings_are_a_row_where_a_system_has_some_and_absent_from_the_json_where_not() {
        let v = serde_json::json!({"db": "mariadb", "system_settings": {"innodb_snapshot_isolation": "OFF"}});
        let run = RunSummary::from_json(&v).unwrap();
        let rows = run.rows();
        assert!(rows.contains(&("system settings".into(), "innodb_snapshot_isolation = OFF".into())), "{rows:?}");
        assert_eq!(serde_json::to_value(&run).unwrap()["system_settings"], v["system_settings"]);
        let engine = RunSummary::from_json(&serde_json::json!({"db": "engine"})).unwrap();
        assert!(engine.rows().iter().all(|(name, _)| name != "system settings"));
        assert!(serde_json::to_value(&engine).unwrap().get("system_settings").is_none());
    }

    #[test]
    fn a_run_json_reads_back_with_its_unknown_fields_kept() {
        let v = serde_json::json!({"db": "engine", "ok": 90, "fail": 10, "info": 0,
            "aborts_by_cause": {"write conflict": 10}, "elapsed_s": 0.5, "throughput_tps": 200,
            "parameters": {"key_count": 8}, "latency_ms": {"p50": 1.5}});
        let run = RunSummary::from_json(&v).unwrap();
        assert_eq!(run.aborts_by_cause["write conflict"], 10);
        assert!((run.abort_rate() - 0.1).abs() < 1e-9);
        let rows = run.rows();
        assert!(rows.iter().all(|(name, _)| name != "parameters"), "parameters have a table of their own: {rows:?}");
        assert_eq!(run.parameter_rows(), [("key_count".to_string(), "8".to_string())]);
        assert!(rows.contains(&("latency_ms".into(), "{\"p50\":1.5}".into())), "{rows:?}");
        assert!(rows.contains(&("transactions".into(), "100 (90 ok, 10 fail, 0 info)".into())));
    }

    #[test]
    fn a_summary_round_trips_through_its_json_with_its_unknown_fields() {
        let v = serde_json::json!({"db": "engine", "workload": "bank", "parameters": {"accounts": 5, "mode": "withdraw"},
            "ok": 3, "fail": 1, "info": 0, "throughput_tps": 40, "operations": {"withdraw": {"ok": 2, "fail": 1}, "read": {"ok": 1}},
            "contended_pairs": {"write_write": 2, "read_write": 1}, "holds": {"hold_ms": 1.0, "count": 3, "busy_ms": 2.5},
            "graph_check": "checked", "latency_ms": {"p50": 1.5}});
        let run = RunSummary::from_json(&v).unwrap();
        let text = serde_json::to_string(&run).unwrap();
        assert_eq!(RunSummary::from_json_text(&text).unwrap(), run);
        assert_eq!(run.operation_rows(), [("read".to_string(), 1, 0, 0), ("withdraw".to_string(), 2, 1, 0)]);
        assert_eq!(
            run.contended_rows(),
            [("wrote a key in common".to_string(), 2), ("each wrote a key the other read".to_string(), 1)]
        );
        assert_eq!(run.extra.get("latency_ms"), v.get("latency_ms"));
    }
}
