//! `run.json` is one typed value: what a run writes reads back as `findings::RunSummary` with no field
//! left over (every field is typed), writes out again to the same JSON, and is the `run` object of
//! `run --format json`.

use findings::RunSummary;

use crate::util::run_json;

fn round_trips(extra: &[&str]) -> RunSummary {
    let (code, json, dir) = run_json(extra);
    assert_eq!(code, 0, "{json}");
    let text = std::fs::read_to_string(dir.path().join("run").join("run.json")).expect("run.json is written");
    let written: serde_json::Value = serde_json::from_str(&text).expect("run.json is JSON");
    let summary = RunSummary::from_json_text(&text).expect("run.json reads as a RunSummary");
    assert!(summary.extra.is_empty(), "every field of run.json is typed: {:?}", summary.extra);
    assert_eq!(serde_json::to_value(&summary).expect("it serializes"), written, "it writes back the same JSON");
    assert_eq!(json["run"], written, "run --format json's run object is run.json");
    summary
}

#[test]
fn a_list_append_run_json_round_trips_through_run_summary() {
    let summary = round_trips(&["--txns", "100", "--clients", "2"]);
    assert_eq!((summary.db.as_str(), summary.workload.as_str()), ("engine", "list-append"));
    assert_eq!(summary.ok + summary.fail + summary.info, 100);
    assert_eq!(summary.parameters["key_count"], 8);
    assert_eq!(summary.graph_check.as_deref(), Some("checked"));
    assert!(summary.holds.is_none() && summary.shrunk.is_none());
}

#[test]
fn a_bank_run_json_with_holds_and_a_defect_round_trips_through_run_summary() {
    let summary = round_trips(&["--workload", "bank", "--txns", "60", "--clients", "1", "--defect", "ssi-off"]);
    assert_eq!(summary.defect.as_deref(), Some("ssi-off"));
    assert_eq!(summary.holds.map(|h| h.count), Some(60));
    let ops: u64 = summary.operations.values().flat_map(|by| by.values()).sum();
    assert_eq!(ops, 61, "60 transactions and the final read: {:?}", summary.operations);
}
