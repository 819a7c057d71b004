//! `isocheck run` end to end against the embedded engine: a correct engine at serializable checks valid,
//! and every planted defect is caught by a default-sized run with the anomaly class it implies.

use crate::util;
use crate::util::isocheck;

fn run(extra: &[&str]) -> (i32, serde_json::Value, tempfile::TempDir) {
    util::run_json(extra)
}

fn types(json: &serde_json::Value) -> Vec<String> {
    util::anomaly_types(json)
}

#[test]
fn the_correct_engine_at_serializable_checks_valid_over_10000_transactions() {
    let (code, json, dir) = run(&["--clients", "4", "--txns", "10000"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["valid"], serde_json::json!(true));
    let run = &json["run"];
    assert_eq!(run["db"], "engine");
    assert_eq!(run["isolation"], "serializable");
    assert!(run["documented_behaviour"].is_null(), "the engine's levels are as their names say");
    assert_eq!(run["ok"].as_u64().unwrap() + run["fail"].as_u64().unwrap() + run["info"].as_u64().unwrap(), 10_000);
    assert!(run["ok"].as_u64().unwrap() > 5_000);
    let history = std::fs::read_to_string(dir.path().join("run/history.jsonl")).unwrap();
    assert_eq!(history.lines().count(), 20_000);
    let run_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run/run.json")).unwrap()).unwrap();
    for field in [
        "tool",
        "system_version",
        "isolation",
        "level_mapping",
        "workload",
        "parameters",
        "seed",
        "clients",
        "started_at",
    ] {
        assert!(!run_json[field].is_null(), "run.json has {field}");
    }
}

#[test]
fn the_recorded_history_checks_the_same_with_isocheck_check() {
    let (code, _, dir) = run(&["--txns", "2000"]);
    assert_eq!(code, 0);
    let path = dir.path().join("run/history.jsonl");
    let again = isocheck(&["check", path.to_str().unwrap(), "--model", "serializable"], None);
    assert_eq!(again.code, 0, "{}", again.stdout);
}

#[test]
fn ssi_off_is_caught_as_g2_item() {
    let (code, json, _dir) = run(&["--defect", "ssi-off"]);
    assert_eq!(code, 1);
    assert!(types(&json).contains(&"G2-item".to_string()), "{:?}", types(&json));
    assert_eq!(json["not"], serde_json::json!(["repeatable-read"]), "SSI off is still snapshot isolation");
}

#[test]
fn dirty_read_is_caught_as_g1a_or_g1b() {
    let (code, json, _dir) = run(&["--defect", "dirty-read"]);
    assert_eq!(code, 1);
    let t = types(&json);
    assert!(t.contains(&"G1a".to_string()) || t.contains(&"G1b".to_string()), "{t:?}");
    assert!(json["not"].as_array().unwrap().contains(&serde_json::json!("read-committed")));
}

#[test]
fn no_first_committer_wins_is_caught_as_a_lost_update_or_a_write_cycle() {
    let (code, json, _dir) = run(&["--defect", "no-first-committer-wins"]);
    assert_eq!(code, 1);
    let t = types(&json);
    assert!(
        ["lost-update", "G0", "G-single-item", "incompatible-order"].iter().any(|c| t.contains(&c.to_string())),
        "{t:?}"
    );
}

#[test]
fn non_atomic_commit_is_caught_as_a_fractured_read() {
    let (code, json, _dir) = run(&["--defect", "non-atomic-commit"]);
    assert_eq!(code, 1);
    assert!(types(&json).contains(&"G-single-item".to_string()), "{:?}", types(&json));
}

#[test]
fn global_lock_is_correct_so_it_checks_valid() {
    let (code, json, _dir) = run(&["--defect", "global-lock", "--txns", "3000"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["run"]["fail"], 0, "one transaction at a time never conflicts");
}

#[test]
fn a_defect_needs_the_engine_and_a_bad_level_is_refused() {
    let out = isocheck(&["run", "--db", "sqlite", "--defect", "ssi-off"], None);
    assert_eq!(out.code, 2);
    let out = isocheck(&["run", "--isolation", "snapshot"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("unknown isolation level"), "{}", out.stderr);
    let out = isocheck(&["run", "--defect", "ssi-of"], None);
    assert_eq!(out.code, 2);
}

#[test]
fn an_rw_register_run_on_the_engine_records_its_commit_order_and_orders_every_key() {
    let (code, json, dir) = run(&["--workload", "rw-register", "--txns", "2000"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["checked"]["workload"], "rw-register");
    assert_eq!(json["run"]["workload"], "rw-register");
    assert!(json["stats"]["edges"]["wr"].as_u64().unwrap() > 0, "{}", json["stats"]);
    assert!(json["stats"]["edges"]["ww"].as_u64().unwrap() > 0, "{}", json["stats"]);
    assert_eq!(json["stats"]["ordered_keys"], json["stats"]["keys"], "{}", json["stats"]);
    assert_eq!(json["stats"]["blind_spots"], serde_json::json!([]), "{}", json["stats"]);
    let placed = json["checked"]["commit_ordered"].as_u64().unwrap();
    assert_eq!(placed, json["run"]["ok"].as_u64().unwrap(), "every committed transaction took a position");

    // Without the recorded order the same history is a partial view: the exact decision covers the writes
    // inference cannot order (the engine is correct: valid), and read committed says what it could not see.
    let history = std::fs::read_to_string(dir.path().join("run/history.jsonl")).unwrap();
    let blind: String = history
        .lines()
        .map(|line| {
            let mut op: serde_json::Value = serde_json::from_str(line).unwrap();
            op.as_object_mut().unwrap().remove("commit_order");
            op.to_string() + "\n"
        })
        .collect();
    let out = isocheck(&["check", "-", "--model", "serializable", "--format", "json"], Some(&blind));
    let exact: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(exact["valid"], true, "{}", exact["anomaly_types"]);
    assert!(exact["checked"]["unordered_pairs"].as_u64().unwrap_or(0) > 0, "{}", exact["checked"]);
    let out = isocheck(&["check", "-", "--model", "read-committed", "--format", "json"], Some(&blind));
    let result: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let spots = result["stats"]["blind_spots"].as_array().unwrap();
    assert!(spots.iter().any(|s| s.as_str().unwrap().contains("keys written more than once")), "{spots:?}");
    assert!(result["stats"]["ordered_keys"].as_u64() < result["stats"]["keys"].as_u64(), "{}", result["stats"]);
}

#[test]
fn ssi_off_is_caught_on_registers_when_keys_are_assumed_linearizable() {
    // The assumptions add to the recorded commit order and never contradict it on the engine.
    let (code, json, _dir) =
        run(&["--workload", "rw-register", "--defect", "ssi-off", "--wfr-keys", "--linearizable-keys"]);
    assert_eq!(code, 1, "{json}");
    assert!(types(&json).contains(&"G2-item".to_string()), "{:?}", types(&json));
    assert_eq!(json["checked"]["assumptions"], serde_json::json!(["wfr-keys", "linearizable-keys"]));
}
