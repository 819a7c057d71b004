//! Register anomalies that need no cycle, as Elle's `elle.rw-register` finds them (plus
//! `garbage-read`, which Elle's own suite marks as a known miss), and what `info` and `fail`
//! transactions contribute: an `info` write someone read took effect, an unknown read is no
//! observation, a failed write is never an edge and reading it is G1a.

use checker::Validity::{Invalid, Unknown, Valid};
use serde_json::json;

use crate::support::*;

#[test]
fn g1a_is_a_read_of_an_aborted_write() {
    // Elle's "G1a": T3 read x = 1, which the aborted T2 wrote.
    let h = concurrent_of(vec![rfail(0, "wx1"), rok(1, "rx1")]);
    let r = check_anomalies(&h, &["G1"]);
    assert_eq!(summary(&r), (Invalid, vec!["G1a", "empty-transaction-graph"], vec!["read-committed"]));
    let case = only_case(&r, "G1a");
    assert_eq!(case.txns, vec![3, 2]);
    assert_eq!(case.facts["mop"], json!(["r", "x", 1]));
    assert_eq!(case.facts["value"], json!(1));
    assert_eq!(case.explanation, r#"T3 read key "x" = 1; but 1 was written by T2, which aborted"#);
}

#[test]
fn g1a_near_miss_an_indeterminate_write_may_have_committed() {
    // T2's outcome is unknown; T3 read its write, so it committed: an edge, not an anomaly.
    let h = concurrent_of(vec![rinfo(0, "wx1"), rok(1, "rx1")]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.edges["wr"], 1);
}

#[test]
fn g1b_is_a_read_of_an_intermediate_write() {
    // Elle's "G1b": T1 wrote 1 then 2; T3 read 1. The read is of no external write, so no edge.
    let h = sequential_of(registers(&["wx1wx2", "rx1"]));
    let g0 = check_anomalies(&h, &["G0"]);
    assert_eq!(summary(&g0), (Unknown, vec!["empty-transaction-graph"], vec!["read-committed"]));
    let g1 = check_anomalies(&h, &["G1"]);
    assert_eq!(summary(&g1), (Invalid, vec!["G1b", "empty-transaction-graph"], vec!["read-committed"]));
    let case = only_case(&g1, "G1b");
    assert_eq!(case.txns, vec![3, 1]);
    assert_eq!(
        case.explanation,
        r#"T3 read key "x" = 1; but T1 wrote 1 and then 2 to key "x", so T3 saw a state T1 never committed"#
    );
}

#[test]
fn g1b_near_miss_reading_the_final_write_or_ones_own_intermediate_write() {
    let h = sequential_of(registers(&["wx1wx2", "rx2", "wy1ry1wy2"]));
    let r = check_anomalies(&h, &["G1"]);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
}

#[test]
fn internal_is_a_read_that_disagrees_with_the_transactions_own_write() {
    // Elle's internal "stale": T1 read 1, wrote 2, then read 1 again.
    let h = sequential_of(registers(&["wx1", "rx1wx2rx1"]));
    let r = check_anomalies(&h, &["internal"]);
    assert_eq!(summary(&r), (Invalid, vec!["internal"], vec!["read-atomic", "snapshot-isolation"]));
    let case = only_case(&r, "internal");
    assert_eq!(case.txns, vec![3]);
    assert_eq!(case.facts["expected"], json!(2));
    assert_eq!(case.explanation, r#"T3 read key "x" = 1, but it had written 2 there earlier in the transaction"#);
}

#[test]
fn internal_includes_a_read_of_nil_then_a_value() {
    // Elle's "rx1rx2" shape, and (where we differ) nil then a value: each transaction saw x change
    // under it without writing it.
    let h = sequential_of(registers(&["wx1", "rx_rx1", "wx2", "rx1rx2"]));
    let r = check_anomalies(&h, &["internal"]);
    let found: Vec<(Vec<u64>, serde_json::Value)> =
        cases(&r, "internal").iter().map(|c| (c.txns.clone(), c.facts["expected"].clone())).collect();
    assert_eq!(found, vec![(vec![3], json!(null)), (vec![7], json!(1))]);
}

#[test]
fn internal_near_miss_reads_that_follow_the_transactions_writes() {
    // Elle's internal "good": ry2wx2rx2wx1rx1.
    let h = sequential_of(registers(&["wy2", "ry2wx2rx2wx1rx1"]));
    assert_eq!(summary(&check_anomalies(&h, &["internal"])), (Valid, vec![], vec![]));
}

#[test]
fn lost_update_is_two_committed_writes_over_one_read_version() {
    // Elle's lost-update-test, with x = 5 written first.
    let h = sequential_of(registers(&["wx5", "rx5wx1", "rx5wx2"]));
    let r = check_models(&h, &["cursor-stability"]);
    assert_eq!(summary(&r), (Invalid, vec!["lost-update"], vec!["ROLA", "cursor-stability"]));
    let case = only_case(&r, "lost-update");
    assert_eq!(case.txns, vec![3, 5]);
    assert_eq!(case.facts["value"], json!(5));
    // The words say what was observed (both read 5 and both wrote), not that data vanished.
    assert_eq!(
        case.explanation,
        r#"T3, T5 all read key "x" = 5 and then wrote it, and all committed: each wrote over the version the others also read, so every write but the last to commit was overwritten by a transaction that had not seen it (Elle's lost update)"#
    );
}

#[test]
fn lost_update_near_miss_the_second_writer_read_the_first_ones_write() {
    let h = sequential_of(registers(&["wx5", "rx5wx1", "rx1wx2"]));
    assert_eq!(summary(&check_models(&h, &["cursor-stability"])), (Valid, vec![], vec![]));
}

#[test]
fn garbage_read_is_a_read_of_a_value_nobody_wrote() {
    // Elle's "Read doesn't return what was just been written", which Elle finds valid (its test marks
    // the bug): T3 read x = 2, and no operation ever wrote 2.
    let h = sequential_of(registers(&["wx1", "rx2"]));
    let r = check_with(&h, &assuming(&["strict-serializable"], &[], &["linearizable-keys"]));
    assert_eq!(summary(&r), (Invalid, vec!["garbage-read"], vec!["read-uncommitted"]));
    let case = only_case(&r, "garbage-read");
    assert_eq!(case.txns, vec![3]);
    assert_eq!(case.explanation, r#"T3 read key "x" = 2, but no operation wrote 2 to key "x""#);
    // It rules out every model, so even read uncommitted.
    assert_eq!(check_models(&h, &["read-uncommitted"]).valid, Invalid);
}

#[test]
fn garbage_read_near_miss_an_indeterminate_or_failed_write_is_not_garbage() {
    let info = sequential_of(vec![rinfo(0, "wx2"), rok(1, "rx2")]);
    assert_eq!(summary(&check_default(&info)), (Valid, vec![], vec![]));
    let failed = sequential_of(vec![rfail(0, "wx2"), rok(1, "rx2")]);
    assert_eq!(check_default(&failed).anomaly_types, vec!["G1a", "empty-transaction-graph"]);
}

#[test]
fn cyclic_versions_when_process_order_contradicts_itself() {
    // Elle's "cyclic version order": one process wrote 1, wrote 2, then read 1. Its order says 1 < 2
    // and 2 < 1, so the sequential-keys order is dropped for x.
    let h = sequential_of(vec![rok(0, "wx1"), rok(0, "wx2"), rok(0, "rx1")]);
    let r = check_with(&h, &assuming(&[], &[], &["sequential-keys"]));
    assert_eq!(summary(&r), (Invalid, vec!["cyclic-versions"], vec!["read-uncommitted"]));
    let case = only_case(&r, "cyclic-versions");
    assert_eq!(case.facts["sources"], json!(["initial-state", "sequential-keys"]));
    assert_eq!(case.facts["versions"], json!([1, 2]));
    assert_eq!(case.txns, vec![1, 3, 5]);
    assert_eq!(
        case.explanation,
        r#"The versions of key "x" inferred from initial-state, sequential-keys form a cycle: 1 < 2, because process 0 ran T1 before T3, and --sequential-keys assumes each key is sequentially consistent; 2 < 1, because process 0 ran T3 before T5, and --sequential-keys assumes each key is sequentially consistent. So the sequential-keys order was not used for key "x"."#
    );
    // Without the assumption there is nothing to contradict, and inference sees no order; the exact
    // decision sees that process 0 read 1 after writing 2 over it.
    assert_eq!(summary(&check_with(&h, &assuming(&["read-committed"], &[], &[]))), (Valid, vec![], vec![]));
    assert_eq!(
        summary(&check_with(&h, &assuming(&[], &[], &[]))),
        (Invalid, vec!["no-strong-session-snapshot-isolation-order"], vec!["strong-session-snapshot-isolation"])
    );
}

#[test]
fn cyclic_versions_from_real_time_and_a_read_nobody_wrote() {
    // Elle's "Read read returns what was just been written": 1 < 2 < 1 in real time; and 2 is garbage.
    let h = sequential_of(registers(&["wx1", "rx2", "rx1"]));
    let r = check_with(&h, &assuming(&[], &[], &["linearizable-keys"]));
    assert_eq!(summary(&r), (Invalid, vec!["cyclic-versions", "garbage-read"], vec!["read-uncommitted"]));
    assert_eq!(only_case(&r, "cyclic-versions").facts["sources"], json!(["initial-state", "linearizable-keys"]));
}

#[test]
fn cyclic_versions_near_miss_a_process_that_reads_its_last_write() {
    let h = sequential_of(vec![rok(0, "wx1"), rok(0, "wx2"), rok(0, "rx2")]);
    let r = check_with(&h, &assuming(&[], &[], &["sequential-keys", "linearizable-keys", "wfr-keys"]));
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.ordered_keys, 1);
}

#[test]
fn failed_transactions_are_never_edges_and_unknown_reads_are_no_observation() {
    // T2 failed after writing y = 1; T3's outcome is unknown and so is its read of x.
    let h = concurrent_of(vec![rok(0, "wx1"), rfail(1, "wy1"), rinfo(2, "rx?wy2"), rok(3, "ry2")]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.edges.get("wr"), Some(&1), "only T7's read of T6's y = 2");
    assert_eq!(r.stats.edges.get("rw"), None, "T6's read of x is unknown, not nil");
}

/// Found by the oracle (`tests/oracle`): an indeterminate transaction's read is not an observation even
/// when its completion records the value. T5 began after T3 committed x = 2 over 1 (its read of 1 then
/// its write of 2 order them, with `--wfr-keys`) and read x = 1; but T5 crashed, and had it not
/// committed, the order T1 T3 explains every read in real time.
#[test]
fn an_info_transactions_known_read_is_not_an_observation() {
    let options = assuming(&["strict-serializable"], &[], &["wfr-keys"]);
    let h = sequential_of(vec![rok(0, "wx1"), rok(1, "rx1wx2"), rinfo(2, "rx1")]);
    let r = check_with(&h, &options);
    assert_ne!(r.valid, Invalid, "{:?}", r.anomaly_types);
    // Had T5 committed, its read was stale: a G-single-item-realtime.
    let h = sequential_of(vec![rok(0, "wx1"), rok(1, "rx1wx2"), rok(2, "rx1")]);
    let r = check_with(&h, &options);
    assert_eq!(r.valid, Invalid);
    assert_eq!(r.anomaly_types, vec!["G-single-item-realtime"]);
    assert_eq!(
        steps(only_cycle(&r, "G-single-item-realtime")),
        vec![(3, "realtime", String::new(), 5), (5, "rw", "x".into(), 3)]
    );
}

#[test]
fn future_read_is_a_read_of_the_transactions_own_later_write() {
    // T1 read x = 1 before it wrote x = 1 itself; T3 read it after, as a witness to the write.
    let h = sequential_of(registers(&["rx1wx1", "rx1"]));
    let r = check_models(&h, &["read-atomic"]);
    assert_eq!(summary(&r).0, Invalid);
    assert!(r.anomaly_types.contains(&"future-read".to_string()), "{:?}", r.anomaly_types);
    let case = only_case(&r, "future-read");
    assert_eq!(case.txns, vec![1]);
    assert_eq!(case.explanation, r#"T1 read key "x" = 1, which T1 itself wrote only later: a read of the future"#);
}

#[test]
fn future_read_near_miss_reading_its_own_earlier_write() {
    // T1 wrote x = 1 and then read it: its own write, as it should see.
    let h = sequential_of(registers(&["wx1rx1", "rx1"]));
    let r = check_models(&h, &["read-atomic"]);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
}
