//! Shared by the findings tests: the bundled example histories, checked.
#![allow(dead_code)] // Each test binary uses only some of these helpers.

use std::path::PathBuf;

use checker::{CheckResult, Options};
use histories::History;

/// A history under the repository's `examples/`.
pub fn example(name: &str) -> (History, String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples").join(name);
    (histories::read_file(&path).expect("the example parses"), format!("examples/{name}"))
}

/// Checks `history` against `models` (strict serializability when empty).
pub fn check(history: &History, models: &[&str]) -> CheckResult {
    let models: Vec<String> = models.iter().map(|m| m.to_string()).collect();
    checker::check(history, &Options::new(&models, &[]).expect("known models")).expect("the check runs")
}

/// Parses `text` as JSON Lines.
pub fn parse(text: &str) -> History {
    histories::parse(text, histories::Format::JsonLines, "test.jsonl").expect("the history parses")
}

/// A run summary as `run.json` would have it, with fixed figures.
pub fn run_summary() -> findings::RunSummary {
    findings::RunSummary::from_json(&serde_json::json!({
        "tool": "isocheck 0.1.0",
        "db": "engine",
        "system_version": "isocheck engine 0.1.0 (planted defect: ssi-off)",
        "isolation": "serializable",
        "level_mapping": "native: serializable (SSI)",
        "workload": "list-append",
        "parameters": {"key_count": 8},
        "seed": 7,
        "clients": 4,
        "defect": "ssi-off",
        "nemesis": null,
        "started_at": "2026-01-01T00:00:00Z",
        "ok": 2496,
        "fail": 504,
        "info": 2,
        "aborts_by_cause": {"write-conflict": 480, "<b>busy</b> | snapshot": 24, "connection lost": 2},
        "elapsed_s": 0.05,
        "throughput_tps": 60040,
        "operations": {"txn": {"ok": 2496, "fail": 504, "info": 2}},
        "contended_pairs": {"write_write": 12, "read_write": 3},
        "out_dir": "/tmp/x"
    }))
    .expect("a valid summary")
}
