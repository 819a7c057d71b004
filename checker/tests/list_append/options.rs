//! What a check looks for, and the shape of what it says. `--anomaly` checks only the anomalies named
//! and those that imply them (so `G1` takes in G0, and the umbrella `G2` every anti-dependency cycle),
//! `--model` what the model forbids; the models ruled out (`not`) come from everything found, as in
//! Elle. The result's JSON is a contract (docs/CONTRACTS.md, "Check result").

use checker::Validity::{Invalid, Valid};
use serde_json::json;

use crate::support::*;

/// A G0 on x and y (T5, T6) and a write skew on z and t (T8, T9).
fn g0_and_write_skew() -> histories::History {
    concurrent(&["ax1ay1", "ax2ay2", "rx12ry21", "az1rt", "at1rz"])
}

#[test]
fn anomaly_g1_checks_only_g1_and_what_implies_it() {
    let h = g0_and_write_skew();
    for asked in [["G1"], ["G1c"], ["G0"]] {
        let r = check_anomalies(&h, &asked);
        assert_eq!(summary(&r), (Invalid, vec!["G0"], vec!["read-uncommitted"]), "{asked:?}");
        assert_eq!(only_cycle(&r, "G0").cycle, vec![5, 6]);
    }
    // The G2-item was found too, but only G2 reports it; `not` still comes from both.
    let r = check_anomalies(&h, &["G2"]);
    assert_eq!(summary(&r), (Invalid, vec!["G2-item"], vec!["read-uncommitted"]));
    assert_eq!(steps(only_cycle(&r, "G2-item")), vec![(8, "rw", "t".into(), 9), (9, "rw", "z".into(), 8)]);
    assert_eq!(summary(&check_default(&h)), (Invalid, vec!["G0", "G2-item"], vec!["read-uncommitted"]));
}

#[test]
fn anomaly_g2_is_an_umbrella_for_every_anti_dependency_cycle() {
    // A read skew on x and y (T8, T9), a write skew on z and t (T11, T12), and a lost update on u
    // (T14, T15 both read [0], both append).
    let h = concurrent(&["ax1ay1", "ax2ry", "rx12", "az1rt", "at1rz", "au0", "ru0au1", "ru0au2"]);
    let r = check_anomalies(&h, &["G2"]);
    assert_eq!(
        summary(&r),
        (Invalid, vec!["G-single-item", "G2-item", "lost-update"], vec!["ROLA", "cursor-stability"])
    );
    assert_eq!(steps(only_cycle(&r, "G-single-item")), vec![(8, "ww", "x".into(), 9), (9, "rw", "y".into(), 8)]);
    let g2: Vec<Vec<u64>> = r.anomalies["G2-item"].iter().map(|a| a.txn_indices()).collect();
    assert_eq!(g2, vec![vec![11, 12], vec![14, 15]]);
    assert_eq!(only_case(&r, "lost-update").txns, vec![14, 15]);
    let single = check_anomalies(&h, &["G-single"]);
    assert_eq!(single.anomaly_types, vec!["G-single-item"]);
    assert_eq!(summary(&check_anomalies(&h, &["G1"])), (Valid, vec![], vec![]));
}

#[test]
fn read_committed_does_not_report_g2_item_and_repeatable_read_does() {
    let h = concurrent(&["ax1ry", "ay1rx"]);
    assert_eq!(summary(&check_models(&h, &["read-uncommitted"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_models(&h, &["read-committed"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_models(&h, &["snapshot-isolation"])), (Valid, vec![], vec![]));
    let rr = check_models(&h, &["repeatable-read"]);
    assert_eq!(summary(&rr), (Invalid, vec!["G2-item"], vec!["repeatable-read"]));
    // Several models: each one's anomalies count.
    let both = check_models(&h, &["snapshot-isolation", "repeatable-read"]);
    assert_eq!(summary(&both), (Invalid, vec!["G2-item"], vec!["repeatable-read"]));
}

#[test]
fn read_uncommitted_reports_g0_but_not_g1c() {
    let g1c = concurrent(&["ax1ry1", "ax2ay1", "rx12ry1"]);
    assert_eq!(summary(&check_models(&g1c, &["read-uncommitted"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_models(&g1c, &["read-committed"])), (Invalid, vec!["G1c"], vec!["read-committed"]));
    let g0 = concurrent(&["ax1ay1", "ax2ay2", "rx12ry21"]);
    assert_eq!(summary(&check_models(&g0, &["read-uncommitted"])), (Invalid, vec!["G0"], vec!["read-uncommitted"]));
}

#[test]
fn snapshot_isolation_does_not_report_g2_item_but_does_g_nonadjacent_item() {
    let write_skew = concurrent(&["ax1ry", "ay1rx"]);
    assert_eq!(summary(&check_models(&write_skew, &["snapshot-isolation"])), (Valid, vec![], vec![]));
    let nonadjacent = concurrent(&["ax1", "rx1ry", "ay1", "ry1rx"]);
    let r = check_models(&nonadjacent, &["snapshot-isolation"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-nonadjacent-item"], vec!["repeatable-read", "snapshot-isolation"]));
    assert_eq!(only_cycle(&r, "G-nonadjacent-item").cycle, vec![4, 5, 6, 7]);
    let read_skew = concurrent(&["ax1ay1", "ax2ry", "rx12"]);
    let r = check_models(&read_skew, &["snapshot-isolation"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
}

#[test]
fn the_result_of_an_invalid_check_has_the_contracted_json_shape() {
    let h = concurrent(&["ax1ry", "ay1rx"]);
    let value = serde_json::to_value(check_default(&h)).unwrap();
    let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, vec!["valid", "anomaly_types", "not", "also_not", "anomalies", "flags", "stats", "checked"]);
    assert_eq!(value["valid"], json!(false));
    assert_eq!(value["anomaly_types"], json!(["G2-item"]));
    assert_eq!(value["not"], json!(["repeatable-read"]));
    assert_eq!(value["also_not"], json!(["serializable", "strict-serializable", "strong-session-serializable"]));
    assert_eq!(value["flags"], json!([]));
    let cycle = &value["anomalies"]["G2-item"][0];
    assert_eq!(cycle["cycle"], json!([2, 3]));
    assert_eq!(
        cycle["steps"],
        json!([
            {"type": "rw", "key": "y", "from": 2, "to": 3,
             "explanation": "T2 observed the initial (empty) state of \"y\", which T3 created by appending 1"},
            {"type": "rw", "key": "x", "from": 3, "to": 2,
             "explanation": "T3 observed the initial (empty) state of \"x\", which T2 created by appending 1"}
        ])
    );
    assert!(cycle["explanation"].as_str().unwrap().starts_with("Let:\n  T2 = "));
    assert_eq!(
        cycle["ops"][0],
        json!({"index": 2, "invoke_index": 0, "process": "0", "type": "ok",
               "value": [["append", "x", 1], ["r", "y", []]], "invoke_time": 0, "complete_time": 2_000_000})
    );
    assert_eq!(
        value["stats"],
        json!({"ops": 4, "txns": 2, "ok": 2, "fail": 0, "info": 0, "edges": {"rw": 2}, "keys": 2,
               "ordered_keys": 0, "cyclic_components": 1, "largest_component": 2, "blind_spots": []})
    );
    assert_eq!(
        value["checked"],
        json!({"workload": "list-append", "models": ["strict-serializable"], "anomalies": [],
               "exact_models": ["strong-snapshot-isolation", "strong-session-snapshot-isolation",
                                "snapshot-isolation"]})
    );
}

#[test]
fn a_non_cycle_anomaly_is_its_transactions_key_facts_and_explanation() {
    let h = concurrent_of(vec![fail(0, "ax1"), ok(1, "rx1"), ok(2, "ax2"), ok(3, "rx2")]);
    let value = serde_json::to_value(check_default(&h)).unwrap();
    let case = &value["anomalies"]["G1a"][0];
    let keys: Vec<&str> = case.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, vec!["txns", "key", "mop", "element", "explanation", "ops"]);
    assert_eq!(case["txns"], json!([5, 4]));
    assert_eq!(case["key"], json!("x"));
    assert_eq!(case["mop"], json!(["r", "x", [1]]));
    assert_eq!(case["element"], json!(1));
    assert_eq!(case["ops"][1]["type"], json!("fail"));
}

#[test]
fn valid_is_true_false_or_unknown_in_json() {
    let valid = serde_json::to_value(check_default(&concurrent(&["ax1", "rx1"]))).unwrap();
    assert_eq!(valid["valid"], json!(true));
    assert_eq!(valid["anomaly_types"], json!([]));
    assert_eq!(valid["anomalies"], json!({}));
    assert_eq!(valid["not"], json!([]));
    let unknown = serde_json::to_value(check_default(&concurrent(&["ax1"]))).unwrap();
    assert_eq!(unknown["valid"], json!("unknown"));
    assert_eq!(unknown["anomaly_types"], json!(["empty-transaction-graph"]));
    assert_eq!(
        unknown["anomalies"]["empty-transaction-graph"],
        json!([{"txns": [], "ops": [],
                "explanation": "no transaction depends on any other: without dependencies there is nothing to check"}])
    );
    let invalid = serde_json::to_value(check_default(&concurrent(&["ax1ry", "ay1rx"]))).unwrap();
    assert_eq!(invalid["valid"], json!(false));
}

#[test]
fn the_shorthand_reads_like_the_history() {
    assert_eq!(mops("ax1ry12"), vec![append("x", 1), read("y", Some(&[1, 2]))]);
    assert_eq!(mops("rxrz?"), vec![read("x", Some(&[])), read("z", None)]);
    assert_eq!(
        jsonl(&[ok(3, "ax1ry2"), info(4, "ay2")], &[0, 1, 1, 0]),
        concat!(
            r#"{"index":0,"type":"invoke","process":3,"f":"txn","time":0,"value":[["append","x",1],["r","y",null]]}"#,
            "\n",
            r#"{"index":1,"type":"invoke","process":4,"f":"txn","time":1000000,"value":[["append","y",2]]}"#,
            "\n",
            r#"{"index":2,"type":"info","process":4,"f":"txn","time":2000000,"value":[["append","y",2]]}"#,
            "\n",
            r#"{"index":3,"type":"ok","process":3,"f":"txn","time":3000000,"value":[["append","x",1],["r","y",[2]]]}"#,
            "\n",
        )
    );
}

#[test]
fn a_micro_op_list_append_cannot_read_is_an_error_not_a_verdict() {
    let h = parse(concat!(
        r#"{"type": "invoke", "process": 0, "value": [["append", "x", 1]]}"#,
        "\n",
        r#"{"type": "ok", "process": 0, "value": [["append", "x", 1]]}"#,
        "\n",
        r#"{"type": "invoke", "process": 1, "value": [["w", "x", 2]]}"#,
        "\n",
        r#"{"type": "ok", "process": 1, "value": [["w", "x", 2]]}"#,
        "\n",
    ));
    let as_list_append = checker::Options::default().with_workload(Some(checker::Workload::ListAppend));
    let err = checker::check(&h, &as_list_append).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"4:1: [w "x" 2] is a register micro-op, but this history is checked as list-append, whose micro-ops are [append k v] and [r k list]"#
    );
    // Detected, the history mixes a list and a register on one key: an input error naming both.
    let err = checker::check(&h, &checker::Options::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"4:1: [w "x" 2] uses key "x" as a register, but [append "x" 1] at line 2 uses it as a list: a key holds a list or a register, not both"#
    );
}
