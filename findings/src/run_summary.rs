//! What a run did, as its `run.json` says (DESIGN.md §2 and §4): the system and level, the workload,
//! the counts, aborts by cause, elapsed time and throughput. The runner writes that file; this module
//! reads it back into a typed summary for the reports. Fields a newer runner adds are kept (`extra`) and
//! shown as they are, so a report never drops a figure it does not know.

use std::collections::BTreeMap;

use serde::Deserialize;

/// A run's summary: `run.json`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct RunSummary {
    /// `isocheck` and its version.
    pub tool: String,
    /// The system under test (`engine`, `sqlite`, `postgres`).
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
    /// The workload.
    pub workload: String,
    /// The seed of the transaction stream.
    pub seed: Option<u64>,
    /// Concurrent clients.
    pub clients: Option<u64>,
    /// The planted engine defect, if any.
    pub defect: Option<String>,
    /// The faults injected, if any.
    pub nemesis: Option<String>,
    /// When the run began (RFC 3339).
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
    pub throughput_tps: f64,
    /// Every other field, as written.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// A system's documentation on a level, quoted, with its link (`run.json`'s `documented_behaviour`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
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
        push("workload", self.workload.clone());
        push("clients", self.clients.map(|c| c.to_string()).unwrap_or_default());
        push("seed", self.seed.map(|s| s.to_string()).unwrap_or_default());
        push("planted defect", self.defect.clone().unwrap_or_default());
        push("nemesis", self.nemesis.clone().unwrap_or_default());
        push("started", self.started_at.clone());
        push("transactions", format!("{} ({} ok, {} fail, {} info)", self.txns(), self.ok, self.fail, self.info));
        push("abort rate", format!("{:.1}%", self.abort_rate() * 100.0));
        push("elapsed", format!("{:.3} s", self.elapsed_s));
        push("throughput", format!("{} txn/s", self.throughput_tps.round()));
        for (name, value) in &self.extra {
            if matches!(name.as_str(), "out_dir") || value.is_null() {
                continue;
            }
            let shown = match value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            push(name, shown);
        }
        if !self.tool.is_empty() {
            rows.push(("tool".into(), self.tool.clone()));
        }
        rows
    }
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
    fn a_run_json_reads_back_with_its_unknown_fields_kept() {
        let v = serde_json::json!({"db": "engine", "ok": 90, "fail": 10, "info": 0,
            "aborts_by_cause": {"write conflict": 10}, "elapsed_s": 0.5, "throughput_tps": 200,
            "parameters": {"key_count": 8}, "latency_ms": {"p50": 1.5}});
        let run = RunSummary::from_json(&v).unwrap();
        assert_eq!(run.aborts_by_cause["write conflict"], 10);
        assert!((run.abort_rate() - 0.1).abs() < 1e-9);
        let rows = run.rows();
        assert!(rows.contains(&("parameters".into(), "{\"key_count\":8}".into())), "{rows:?}");
        assert!(rows.contains(&("latency_ms".into(), "{\"p50\":1.5}".into())));
        assert!(rows.contains(&("transactions".into(), "100 (90 ok, 10 fail, 0 info)".into())));
    }
}
