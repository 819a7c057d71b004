//! The classic shapes on registers whose write orders the history does not show, and on lists whose
//! appends no read shows (`testdata/exact/`),
//! each with the exact verdict of every model the checker decides exactly, and each beside a near miss
//! that must pass. In every one, inference alone orders no pair of writes that matters: without the exact
//! decision, each would be called valid. An invalid verdict names its anomaly and, for each case of the
//! write orders, the cycle's class and transactions.

use checker::{Anomaly, Options, Validity, check};
use histories::read_path;

/// (model, the cases expected: (class, cycle) for each, in order; empty: valid).
type Expected<'a> = &'a [(&'a str, &'a [(&'a str, &'a [u64])])];

fn verdicts(file: &str, anomaly_for: impl Fn(&str) -> &'static str, expected: Expected<'_>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/exact").join(file);
    let history = read_path(&path).expect("a saved history").history;
    for &(model, cases) in expected {
        let options = Options::new(&[model.to_string()], &[]).expect("a known model");
        let result = check(&history, &options).expect("checked");
        if cases.is_empty() {
            assert_eq!(result.valid, Validity::Valid, "{file} under {model}: {:?}", result.anomaly_types);
            assert!(result.witness.is_none(), "a witness only when asked for");
            continue;
        }
        let anomaly = anomaly_for(model);
        assert_eq!(result.valid, Validity::Invalid, "{file} under {model}");
        assert_eq!(result.anomaly_types, vec![anomaly.to_string()], "{file} under {model}");
        let found: Vec<(String, Vec<u64>)> = result.anomalies[anomaly]
            .iter()
            .map(|a| match a {
                Anomaly::Cycle(c) => (c.facts["class"].as_str().unwrap_or_default().to_string(), c.cycle.clone()),
                Anomaly::Case(c) => (String::new(), c.txns.clone()),
            })
            .collect();
        let expected: Vec<(String, Vec<u64>)> = cases.iter().map(|(c, t)| (c.to_string(), t.to_vec())).collect();
        assert_eq!(found, expected, "{file} under {model}");
    }
}

#[test]
fn write_skew_is_snapshot_isolated_but_not_serializable() {
    let cases: &[(&str, &[u64])] = &[("G2-item", &[4, 5]), ("G1c", &[5, 1]), ("G1c", &[4, 1])];
    verdicts(
        "write-skew.jsonl",
        |_| "no-serializable-order",
        &[("snapshot-isolation", &[]), ("serializable", cases), ("strong-session-serializable", cases)],
    );
    verdicts(
        "write-skew-near-miss.jsonl",
        |_| "",
        &[("snapshot-isolation", &[]), ("serializable", &[]), ("strict-serializable", &[])],
    );
}

#[test]
fn read_skew_is_not_snapshot_isolated() {
    let cases: &[(&str, &[u64])] = &[("G-single-item", &[5, 4]), ("G0", &[1, 4]), ("G-single-item", &[5, 1])];
    verdicts(
        "read-skew.jsonl",
        |_| "no-snapshot-isolation-order",
        &[("snapshot-isolation", cases), ("serializable", cases), ("strong-session-serializable", cases)],
    );
    verdicts("read-skew-near-miss.jsonl", |_| "", &[("snapshot-isolation", &[]), ("strict-serializable", &[])]);
}

#[test]
fn long_fork_is_not_snapshot_isolated() {
    let cases: &[(&str, &[u64])] =
        &[("G-nonadjacent-item", &[8, 7, 9, 6]), ("G-single-item", &[9, 1]), ("G-single-item", &[8, 1])];
    verdicts(
        "long-fork.jsonl",
        |_| "no-snapshot-isolation-order",
        &[("snapshot-isolation", cases), ("serializable", cases)],
    );
    verdicts("long-fork-near-miss.jsonl", |_| "", &[("snapshot-isolation", &[]), ("strict-serializable", &[])]);
}

#[test]
fn a_causality_violation_through_session_order_breaks_only_the_strong_session_models() {
    let cases: &[(&str, &[u64])] = &[("G-single-item", &[7, 3, 5]), ("G0-process", &[3, 1])];
    verdicts(
        "causality-violation.jsonl",
        |_| "no-strong-session-snapshot-isolation-order",
        &[
            ("snapshot-isolation", &[]),
            ("serializable", &[]),
            ("strong-session-snapshot-isolation", cases),
            ("strong-session-serializable", cases),
        ],
    );
    verdicts(
        "causality-violation-near-miss.jsonl",
        |_| "",
        &[("strong-session-snapshot-isolation", &[]), ("strict-serializable", &[])],
    );
}

#[test]
fn a_cycle_only_session_order_reveals() {
    let cases: &[(&str, &[u64])] = &[("G-single-item-process", &[7, 3]), ("G-single-item-process", &[6, 2])];
    verdicts(
        "session-order-only.jsonl",
        |_| "no-strong-session-snapshot-isolation-order",
        &[
            ("serializable", &[]),
            ("snapshot-isolation", &[]),
            ("strong-session-snapshot-isolation", cases),
            ("strong-session-serializable", cases),
        ],
    );
    verdicts(
        "session-order-only-near-miss.jsonl",
        |_| "",
        &[("strong-session-serializable", &[]), ("strict-serializable", &[])],
    );
}

#[test]
fn two_appends_no_read_shows_cannot_have_run_concurrently_under_snapshot_isolation() {
    // T4 and T5 both append to k, which nobody reads; T6 saw T5 but not T4, and T5 saw T7, which T4 did
    // not see. Inference alone finds only a cycle with two adjacent anti-dependencies (a G2-item, which
    // snapshot isolation allows); each order of the two appends to k closes one it forbids.
    let cases: &[(&str, &[u64])] = &[("G-single-item", &[4, 5, 6]), ("G-single-item", &[5, 4, 7])];
    verdicts(
        "unshown-appends.jsonl",
        |_| "no-snapshot-isolation-order",
        &[("snapshot-isolation", cases), ("strong-session-snapshot-isolation", cases)],
    );
    // The same cycle, with T5 appending to another key: the write skew snapshot isolation allows.
    verdicts("unshown-appends-near-miss.jsonl", |_| "", &[("snapshot-isolation", &[])]);
    // T5 saw nothing of T7: one order of the appends to k (T5's first) leaves no cycle at all.
    verdicts(
        "unshown-appends-one-order.jsonl",
        |_| "",
        &[("snapshot-isolation", &[]), ("serializable", &[]), ("strict-serializable", &[])],
    );
}

#[test]
fn a_lost_update_without_versions_is_found_by_inference_and_its_near_miss_passes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/exact/lost-update.jsonl");
    let history = read_path(&path).expect("a saved history").history;
    let result =
        check(&history, &Options::new(&["snapshot-isolation".into()], &[]).expect("a model")).expect("checked");
    assert_eq!(result.anomaly_types, vec!["lost-update".to_string()]);
    verdicts("lost-update-near-miss.jsonl", |_| "", &[("snapshot-isolation", &[]), ("strict-serializable", &[])]);
}

#[test]
fn a_valid_history_carries_a_witness_that_inference_alone_accepts() {
    for file in [
        "write-skew.jsonl",
        "session-order-only.jsonl",
        "causality-violation.jsonl",
        "unshown-appends-near-miss.jsonl",
        "unshown-appends-one-order.jsonl",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/exact").join(file);
        let history = read_path(&path).expect("a saved history").history;
        for model in ["snapshot-isolation", "serializable"] {
            let options = Options::new(&[model.to_string()], &[]).expect("a model").with_witness(true);
            let result = check(&history, &options).expect("checked");
            if result.valid != Validity::Valid {
                continue;
            }
            let witness = result.witness.expect("a witness for a valid history");
            assert_eq!(witness.model, model);
            let order = histories::TransactionOrder::from_positions(
                witness.order.iter().enumerate().map(|(at, &index)| (index, at as i64)),
                "witness",
            );
            let placed = order.apply(&history).expect("the witness names completions");
            let again = check(&placed, &Options::new(&[model.to_string()], &[]).expect("a model")).expect("checked");
            assert_eq!(again.valid, Validity::Valid, "{file}: the witness for {model} checks valid");
            assert_eq!(again.checked.unordered_pairs, 0, "{file}: the witness orders every pair of writes");
        }
    }
}
