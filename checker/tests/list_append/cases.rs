//! Anomalies that need no cycle, each as Elle's `elle.list-append` finds it (plus `garbage-read`,
//! which Elle misses), and what `info` and `fail` transactions contribute to the graph: an `info`
//! transaction's appends count when someone read them, its unknown reads do not; a `fail`
//! transaction's appends are never an edge, and reading one is G1a.

use checker::Validity::{Invalid, Unknown, Valid};
use serde_json::json;

use crate::support::*;

#[test]
fn g1a_is_a_read_of_an_aborted_append() {
    // Elle's checker-test "G1a": T3 read 1, which the aborted T2 appended.
    let h = concurrent_of(vec![fail(0, "ax1"), ok(1, "rx1")]);
    // Read uncommitted allows it, and there is no dependency to check: unknown, but not read-committed.
    let ru = check_models(&h, &["read-uncommitted"]);
    assert_eq!(summary(&ru), (Unknown, vec!["empty-transaction-graph"], vec!["read-committed"]));
    for models in [["read-committed"], ["repeatable-read"]] {
        let r = check_models(&h, &models);
        assert_eq!(summary(&r), (Invalid, vec!["G1a", "empty-transaction-graph"], vec!["read-committed"]));
        let case = only_case(&r, "G1a");
        assert_eq!(case.txns, vec![3, 2]);
        assert_eq!(case.key.as_ref().map(key_name), Some("x".to_string()));
        assert_eq!(case.facts["element"], json!(1));
        assert_eq!(case.facts["mop"], json!(["r", "x", [1]]));
    }
    let g2 = check_anomalies(&h, &["G2"]);
    assert_eq!(summary(&g2), (Unknown, vec!["empty-transaction-graph"], vec!["read-committed"]));
}

#[test]
fn g1a_near_miss_reading_a_committed_append_is_valid() {
    let h = concurrent_of(vec![ok(0, "ax1"), ok(1, "rx1")]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn g1a_is_reported_for_every_reader_of_an_aborted_append() {
    // Elle's g1a-cases-test. T4 also reads y = [3], which nobody appended, and x's versions put the
    // committed T3's append after the aborted one: a dirty update.
    let h = concurrent_of(vec![ok(0, "rx1ax2"), ok(1, "rx12ry3"), fail(2, "ax1")]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G1a", "dirty-update", "garbage-read"], vec!["read-uncommitted"]));
    let g1a: Vec<(Vec<u64>, serde_json::Value)> =
        cases(&r, "G1a").iter().map(|c| (c.txns.clone(), c.facts["mop"].clone())).collect();
    assert_eq!(g1a, vec![(vec![3, 5], json!(["r", "x", [1]])), (vec![4, 5], json!(["r", "x", [1, 2]]))]);
    assert_eq!(only_case(&r, "garbage-read").txns, vec![4]);
    assert_eq!(only_case(&r, "dirty-update").txns, vec![5, 3]);
}

#[test]
fn g1b_is_a_read_of_an_intermediate_append() {
    // Elle's checker-test "G1b": T1 appended 1 and then 2; T3 read x = [1].
    let h = sequential(&["ax1ax2", "rx1"]);
    assert_eq!(summary(&check_anomalies(&h, &["G0"])), (Valid, vec![], vec![]));
    let g1 = check_anomalies(&h, &["G1"]);
    assert_eq!(summary(&g1), (Invalid, vec!["G1b"], vec!["read-committed"]));
    let case = only_case(&g1, "G1b");
    assert_eq!(case.txns, vec![3, 1]);
    assert_eq!(case.facts["element"], json!(1));
    // It is a G-single-item too (T3 saw T1's 1 but not its 2); asking for G2 reports only that, but
    // the G1b it found still rules out read committed.
    let g2 = check_anomalies(&h, &["G2"]);
    assert_eq!(summary(&g2), (Invalid, vec!["G-single-item"], vec!["read-committed"]));
    let strict = check_models(&h, &["strict-serializable"]);
    assert_eq!(summary(&strict), (Invalid, vec!["G-single-item", "G1b"], vec!["read-committed"]));
    let cycle = only_cycle(&strict, "G-single-item");
    assert_eq!(steps(cycle), vec![(1, "wr", "x".into(), 3), (3, "rw", "x".into(), 1)]);
}

#[test]
fn g1b_only_for_a_read_ending_in_an_intermediate_element() {
    // Elle's g1b-cases-test: only T4's read ends in T6's intermediate 1.
    let h = concurrent(&["rx1", "rx12ry3", "ax1ax2", "rx123"]);
    let r = check_anomalies(&h, &["G1b"]);
    assert_eq!(r.anomaly_types, vec!["G1b"]);
    let case = only_case(&r, "G1b");
    assert_eq!(case.txns, vec![4, 6]);
    assert_eq!(case.facts["mop"], json!(["r", "x", [1]]));
}

#[test]
fn g1b_near_miss_a_transaction_may_read_its_own_intermediate_append() {
    let h = sequential(&["ax1rx1ax2", "rx12"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn internal_is_a_read_that_contradicts_the_transactions_own_appends() {
    // Elle's checker-test "internal consistency violation": T3 appended 3 and read [1 2 3 4].
    let h = concurrent(&["ax1ax2ax4", "ax3rx1234"]);
    let r = check_anomalies(&h, &["internal"]);
    // There is a G0 as well (1 2 3 4 interleaves the two), which rules out read uncommitted.
    assert_eq!(summary(&r), (Invalid, vec!["internal"], vec!["read-uncommitted"]));
    let case = only_case(&r, "internal");
    assert_eq!(case.txns, vec![3]);
    assert_eq!(case.facts["mop"], json!(["r", "x", [1, 2, 3, 4]]));
    assert_eq!(case.facts["expected"], json!("[... 3]"));
}

#[test]
fn internal_compares_a_read_with_the_state_the_transaction_expects() {
    // Elle's internal-cases-test, one key per transaction: a read, an append of 3, and a second read
    // that is stale, has a bad prefix, is extended, or is short; then an append and a read that is
    // wrong or empty; then Elle's FaunaDB example, whose read of nil is an empty read.
    let h = concurrent(&["rx12ax3rx12", "ry12ay3ry023", "rz12az3rz1234", "rt12at3rt1", "au3ru1234"]);
    let r = check_anomalies(&h, &["internal"]);
    // No transaction reads another's append here, so there is no dependency either.
    assert_eq!(r.anomaly_types, vec!["empty-transaction-graph", "internal"]);
    let found: Vec<(Vec<u64>, serde_json::Value, serde_json::Value)> = cases(&r, "internal")
        .iter()
        .map(|c| (c.txns.clone(), c.facts["mop"].clone(), c.facts["expected"].clone()))
        .collect();
    assert_eq!(
        found,
        vec![
            (vec![5], json!(["r", "x", [1, 2]]), json!("[1 2 3]")),
            (vec![6], json!(["r", "y", [0, 2, 3]]), json!("[1 2 3]")),
            (vec![7], json!(["r", "z", [1, 2, 3, 4]]), json!("[1 2 3]")),
            (vec![8], json!(["r", "t", [1]]), json!("[1 2 3]")),
            (vec![9], json!(["r", "u", [1, 2, 3, 4]]), json!("[... 3]")),
        ]
    );
    let h = concurrent(&["ax3rx", "ay6ry?"]);
    let r = check_anomalies(&h, &["internal"]);
    assert_eq!(r.anomaly_types, vec!["empty-transaction-graph", "internal"]);
    let found: Vec<(Vec<u64>, serde_json::Value)> =
        cases(&r, "internal").iter().map(|c| (c.txns.clone(), c.facts["expected"].clone())).collect();
    assert_eq!(found, vec![(vec![2], json!("[... 3]")), (vec![3], json!("[... 6]"))]);
}

#[test]
fn internal_near_miss_reads_that_follow_the_transactions_appends_are_valid() {
    // Elle's "good" internal case, with the elements it read appended by an earlier transaction.
    let h = concurrent(&["ax1ax2ay5ay6", "ry56ax3rx123ax4rx1234"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn future_read_is_a_read_of_the_transactions_own_later_append() {
    // Elle's future-read-test.
    let h = sequential(&["rx1ax1"]);
    let r = check_models(&h, &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["empty-transaction-graph", "future-read"], vec!["read-committed"]));
    let case = only_case(&r, "future-read");
    assert_eq!(case.txns, vec![1]);
    assert_eq!(case.facts["element"], json!(1));
    // Elle's "future read internal": the read of [0 1] came before the append of 0.
    let h = sequential(&["ax1rx01ax0ax3"]);
    let r = check_models(&h, &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["empty-transaction-graph", "future-read"], vec!["read-committed"]));
    let case = only_case(&r, "future-read");
    assert_eq!(case.facts["mop"], json!(["r", "x", [0, 1]]));
    assert_eq!(case.facts["element"], json!(0));
}

#[test]
fn future_read_near_miss_reading_an_earlier_own_append_is_fine() {
    let h = sequential(&["ax1rx1"]);
    assert_eq!(summary(&check_models(&h, &["read-committed"])), (Unknown, vec!["empty-transaction-graph"], vec![]));
}

#[test]
fn dirty_update_is_a_committed_append_after_an_aborted_one() {
    // Elle's checker-test "dirty update".
    let none = concurrent_of(vec![fail(0, "ax1")]);
    assert_eq!(summary(&check_anomalies(&none, &["dirty-update"])), (Unknown, vec!["empty-transaction-graph"], vec![]));
    let direct = concurrent_of(vec![fail(0, "ax1"), ok(1, "ax2"), ok(2, "rx12")]);
    let r = check_anomalies(&direct, &["dirty-update"]);
    assert_eq!(summary(&r), (Invalid, vec!["dirty-update"], vec!["read-committed"]));
    let case = only_case(&r, "dirty-update");
    assert_eq!(case.txns, vec![3, 4]);
    assert_eq!(case.key.as_ref().map(key_name), Some("x".to_string()));
    assert_eq!(case.facts["values"], json!([1, 2]));
    // An indeterminate append between them does not clear the aborted state.
    let indirect = concurrent_of(vec![fail(0, "ax1"), info(1, "ax2"), ok(2, "ax3"), ok(3, "rx123")]);
    let r = check_anomalies(&indirect, &["dirty-update"]);
    assert_eq!(summary(&r), (Invalid, vec!["dirty-update"], vec!["read-committed"]));
    let case = only_case(&r, "dirty-update");
    assert_eq!(case.txns, vec![4, 6]);
    assert_eq!(case.facts["values"], json!([1, 2, 3]));
}

/// Found by the oracle (`tests/oracle`): only a failed transaction's read, T5's, shows the aborted append
/// 1 before T4's 2. Without it the committed transactions are serial (T2 read x empty before T4), so
/// that read is no evidence of a dirty update; a committed read of the same list is (and is G1a).
#[test]
fn dirty_update_near_miss_only_a_failed_read_shows_it() {
    let h = interleaved(vec![ok(0, "rx"), fail(1, "ax1"), ok(0, "ax2"), fail(0, "rx12")], &[0, 1, 0, 2, 1, 2, 3, 3]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    let h = interleaved(vec![ok(0, "rx"), fail(1, "ax1"), ok(0, "ax2"), ok(0, "rx12")], &[0, 1, 0, 2, 1, 2, 3, 3]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(r.valid, Invalid);
    assert_eq!(only_case(&r, "dirty-update").txns, vec![4, 5]);
    assert_eq!(only_case(&r, "G1a").txns, vec![7, 4]);
}

#[test]
fn dirty_update_near_miss_an_aborted_append_last_is_no_dirty_update() {
    // The aborted append comes after the committed one; reading it is G1a, which was not asked for.
    let h = concurrent_of(vec![ok(0, "ax1"), ok(1, "rx1"), fail(2, "ax2"), ok(3, "rx12")]);
    assert_eq!(summary(&check_anomalies(&h, &["dirty-update"])), (Valid, vec![], vec![]));
}

#[test]
fn duplicate_elements_is_a_read_holding_an_element_twice() {
    // Elle's checker-test "duplicated elements", checked for read committed; x = [1 2 1] also makes a
    // G1c.
    let h = concurrent(&["ax1ry1", "ax2ay1", "rx121"]);
    let r = check_models(&h, &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["G1c", "duplicate-elements"], vec!["read-uncommitted"]));
    let case = only_case(&r, "duplicate-elements");
    assert_eq!(case.txns, vec![5]);
    assert_eq!(case.facts["duplicates"], json!({"1": 2}));
    assert_eq!(steps(only_cycle(&r, "G1c")), vec![(3, "ww", "x".into(), 4), (4, "wr", "y".into(), 3)]);
}

#[test]
fn duplicate_elements_near_miss_distinct_elements_are_valid() {
    let h = concurrent(&["ax1", "ax2", "rx12"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn incompatible_order_is_two_reads_no_single_order_explains() {
    // Elle's "contradictory read orders": [1 3] is not a prefix of [1 2 3]. The longest read orders x,
    // and with T5's read of T7's y that is a G1c.
    let h = concurrent(&["ax1ry1", "ax2", "ax3ay1", "rx13", "rx123"]);
    let r = check_anomalies(&h, &["G1"]);
    assert_eq!(summary(&r), (Invalid, vec!["G1c", "incompatible-order"], vec!["read-committed"]));
    let case = only_case(&r, "incompatible-order");
    assert_eq!(case.txns, vec![8, 9]);
    assert_eq!(case.key.as_ref().map(key_name), Some("x".to_string()));
    assert_eq!(case.facts["values"], json!([[1, 3], [1, 2, 3]]));
    let cycle = only_cycle(&r, "G1c");
    assert_eq!(cycle.cycle, vec![5, 6, 7]);
    assert_eq!(steps(cycle), vec![(5, "ww", "x".into(), 6), (6, "ww", "x".into(), 7), (7, "wr", "y".into(), 5)]);
}

#[test]
fn incompatible_order_near_miss_prefixes_are_compatible() {
    let h = concurrent(&["ax1", "ax2", "ax3", "rx12", "rx123"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn lost_update_is_two_committed_appends_after_the_same_read() {
    // Elle's lost-update-test.
    let h = sequential(&["ax0", "rx0ax1", "rx0ax2"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G2-item", "lost-update"], vec!["ROLA", "cursor-stability"]));
    let case = only_case(&r, "lost-update");
    assert_eq!(case.txns, vec![3, 5]);
    assert_eq!(case.key.as_ref().map(key_name), Some("x".to_string()));
    assert_eq!(case.facts["value"], json!([0]));
    let cycle = only_cycle(&r, "G2-item");
    assert_eq!(cycle.cycle, vec![3, 5]);
    assert_eq!(steps(cycle), vec![(3, "rw", "x".into(), 5), (5, "rw", "x".into(), 3)]);
}

#[test]
fn lost_update_near_miss_one_transaction_may_append_twice_after_its_read() {
    let h = sequential(&["rxax1ax2", "rx12"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn garbage_read_is_a_read_of_an_element_nobody_appended() {
    let h = concurrent(&["ax1", "ax2", "rx12", "rx123"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["garbage-read"], vec!["read-uncommitted"]));
    let case = only_case(&r, "garbage-read");
    assert_eq!(case.txns, vec![7]);
    assert_eq!(case.key.as_ref().map(key_name), Some("x".to_string()));
    assert_eq!(case.facts["elements"], json!([3]));
}

#[test]
fn garbage_read_near_miss_every_element_appended_is_valid() {
    let h = concurrent(&["ax1", "ax2", "ax3", "rx123"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn garbage_read_is_found_in_a_read_incompatible_with_the_longest() {
    // Regression: only the longest read's elements were indexed, so a garbage element in a read that
    // disagrees with it went unreported.
    let h = concurrent(&["ax1", "ax2", "ax3", "rx19", "rx123"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["garbage-read", "incompatible-order"], vec!["read-uncommitted"]));
    let case = only_case(&r, "garbage-read");
    assert_eq!(case.txns, vec![8]);
    assert_eq!(case.facts["elements"], json!([9]));
}

#[test]
fn empty_transaction_graph_makes_the_verdict_unknown() {
    let h = concurrent(&["ax1"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Unknown, vec!["empty-transaction-graph"], vec![]));
    assert_eq!(only_case(&r, "empty-transaction-graph").txns, Vec::<u64>::new());
    // Real-time order is a dependency too: two sequential transactions are checked, and valid, under
    // strict serializability, but leave serializability nothing to check.
    let h = sequential(&["ax1", "ax2"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Unknown, vec!["empty-transaction-graph"], vec![]));
}

#[test]
fn empty_transaction_graph_near_miss_one_read_dependency_is_enough() {
    let h = concurrent(&["ax1", "rx1"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn an_info_transactions_unknown_read_is_not_an_observation() {
    // Elle's graph-test "info reads": T3 crashed, so its read of y = nil says nothing, and there is
    // no rw edge from it to T4, which appended to y.
    let h = concurrent_of(vec![info(0, "ax2ry?"), ok(1, "ax1ay1"), ok(2, "rx12ry1")]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.edges, [("wr".to_string(), 2), ("ww".to_string(), 1)].into_iter().collect());
    // Had T3 committed, its empty read of y would be a read skew.
    let h = concurrent_of(vec![ok(0, "ax2ry"), ok(1, "ax1ay1"), ok(2, "rx12ry1")]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    assert_eq!(steps(only_cycle(&r, "G-single-item")), vec![(3, "rw", "y".into(), 4), (4, "ww", "x".into(), 3)]);
}

/// Found by the oracle (`tests/oracle`): an indeterminate transaction's read is not an observation even
/// when its completion records the value. T2 and T3 both crashed; had either not committed, nothing is
/// wrong, yet their reads made T3 -rw-> T2 -ww-> T3 a G-single-item.
#[test]
fn an_info_transactions_known_read_is_not_an_observation() {
    let h = concurrent_of(vec![info(0, "ax1rx1"), info(1, "rxax2")]);
    let r = check_models(&h, &["serializable"]);
    assert_ne!(r.valid, Invalid, "{:?}", r.anomaly_types);
    assert!(!r.stats.edges.contains_key("rw"), "{:?}", r.stats.edges);
    // Had both committed, T3 read x empty and appended 2 after T2's 1: a lost append.
    let h = concurrent_of(vec![ok(0, "ax1rx1"), ok(1, "rxax2")]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    assert_eq!(steps(only_cycle(&r, "G-single-item")), vec![(2, "ww", "x".into(), 3), (3, "rw", "x".into(), 2)]);
}

#[test]
fn an_info_transactions_append_that_was_read_takes_part_in_cycles() {
    // T2 crashed, but T3 read its append to x, so it committed after all; T3 missed its append to y.
    let h = concurrent_of(vec![info(0, "ax1ay1"), ok(1, "rx1ry")]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    let cycle = only_cycle(&r, "G-single-item");
    assert_eq!(cycle.cycle, vec![2, 3]);
    assert_eq!(steps(cycle), vec![(2, "wr", "x".into(), 3), (3, "rw", "y".into(), 2)]);
    assert_eq!((r.stats.ok, r.stats.info, r.stats.fail), (1, 1, 0));
}

#[test]
fn a_failed_transactions_append_that_was_read_is_g1a_and_never_an_edge() {
    let h = concurrent_of(vec![fail(0, "ax1ay1"), ok(1, "rx1ry")]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G1a", "empty-transaction-graph"], vec!["read-committed"]));
    assert_eq!(only_case(&r, "G1a").txns, vec![3, 2]);
    assert!(r.stats.edges.is_empty(), "no dependency on an aborted transaction: {:?}", r.stats.edges);
    assert_eq!(r.stats.cyclic_components, 0);
}

#[test]
fn a_failed_transactions_read_is_not_an_observation() {
    // T3 read y empty and aborted: no rw edge from it to T4's append. T5's read of T4's append is the
    // only dependency.
    let h = concurrent_of(vec![fail(0, "ry"), ok(1, "ay1"), ok(2, "ry1")]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.edges, [("wr".to_string(), 1)].into_iter().collect());
    assert_eq!((r.stats.ok, r.stats.info, r.stats.fail), (2, 0, 1));
}

#[test]
fn incompatible_order_is_found_in_a_read_with_the_longest_reads_length_and_last_element() {
    // A read of the longest read's length that ends in its last element, but in another order, is not
    // a prefix: no shortcut through the last element and the length may call it one.
    let h = concurrent(&["ax1", "ax2", "ax3", "rx123", "rx213"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["incompatible-order"], vec!["read-committed"]));
    let case = only_case(&r, "incompatible-order");
    assert_eq!(case.txns, vec![8, 9]);
    assert_eq!(case.facts["values"], json!([[1, 2, 3], [2, 1, 3]]));
}

#[test]
fn incompatible_order_near_miss_reads_equal_to_the_longest_are_compatible() {
    let h = concurrent(&["ax1", "ax2", "ax3", "rx123", "rx123", "rx12"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

/// Filler transactions, one after another, each on a key of its own: past three of the checker's
/// ranges of transactions.
const FILLER: usize = 3 * 8192;

/// Two transactions whose order on `x` decides whether they form a G1c cycle (T1 reads T2's append to
/// `y`), an early committed read of `x`, the filler, and last a late committed read of `x`. T1, T2,
/// the early and the late read overlap everything, so only the reads order T1 and T2. Named by their
/// completions, T1 is `2 * FILLER + 4`, T2, the early and the late read the three after.
fn ordered_early_and_late(early: &str, late: &str) -> histories::History {
    let mut txns = vec![ok(0, "ax1ry1"), ok(1, "ax2ay1"), ok(2, early)];
    txns.extend((0..FILLER).map(|i| ok_mops(3, vec![append(&format!("k{i}"), 1)])));
    txns.push(ok(4, late));
    let late = FILLER + 3;
    let order: Vec<usize> =
        [0, 1, 2].into_iter().chain((3..late).flat_map(|i| [i, i])).chain([late, 0, 1, 2, late]).collect();
    interleaved(txns, &order)
}

const T1: u64 = 2 * FILLER as u64 + 4;

#[test]
fn the_first_of_equally_long_reads_orders_a_key_though_they_are_ranges_apart() {
    // The ranges are flattened on all cores; the longest read found first in transaction order must
    // still be the version order, so x is 1 then 2 and T1 -ww-> T2 -wr-> T1.
    let h = ordered_early_and_late("rx12", "rx21");
    let r = check_anomalies(&h, &["G1"]);
    assert_eq!(summary(&r), (Invalid, vec!["G1c", "incompatible-order"], vec!["read-committed"]));
    let cycle = only_cycle(&r, "G1c");
    assert_eq!(cycle.cycle, vec![T1, T1 + 1]);
    assert_eq!(steps(cycle), vec![(T1, "ww", "x".into(), T1 + 1), (T1 + 1, "wr", "y".into(), T1)]);
    assert_eq!(only_case(&r, "incompatible-order").txns, vec![T1 + 2, T1 + 3]);
}

#[test]
fn the_first_of_equally_long_reads_near_miss_a_longer_late_read_orders_the_key() {
    // The early read is shorter, so the late one orders x: 2 then 1, and T2 precedes T1 both ways.
    let h = ordered_early_and_late("rx2", "rx21");
    assert_eq!(summary(&check_anomalies(&h, &["G1"])), (Valid, vec![], vec![]));
}

#[test]
fn long_lists_read_from_text_keep_their_anomalies_and_a_near_miss_stays_clean() {
    // Lists of 40 elements, long enough that a reading shares them (histories' read_lists): a read
    // that disagrees with its key's run in its last two elements is an incompatible order still, a
    // read that is a prefix is not, and a read of another key with the same elements is read as it
    // was. T0 appends 1..=38 to x, T1 39 and T2 40; T3 appends 1..=40 to y; T4 reads x whole, T5 its
    // first 39 elements, T6 y whole; all seven run concurrently.
    let whole: Vec<i64> = (1..=40).collect();
    let mut swapped = whole.clone();
    swapped.swap(38, 39);
    let appends =
        |process: u64, key: &str, values: &[i64]| ok_mops(process, values.iter().map(|&v| append(key, v)).collect());
    let reader = |process: u64, key: &str, list: &[i64]| ok_mops(process, vec![read(key, Some(list))]);
    let history = |txns: &[Txn]| {
        let n = txns.len();
        let order: Vec<usize> = (0..n).chain(0..n).collect();
        histories::parse(&jsonl(txns, &order), histories::Format::JsonLines, "long.jsonl").expect("the history reads")
    };
    let mut txns = vec![
        appends(0, "x", &whole[..38]),
        appends(1, "x", &whole[38..39]),
        appends(2, "x", &whole[39..]),
        appends(3, "y", &whole),
        reader(4, "x", &whole),
        reader(5, "x", &whole[..39]),
        reader(6, "y", &whole),
    ];
    let clean = check_default(&history(&txns));
    assert_eq!(summary(&clean), (Valid, vec![], vec![]));
    // T7 reads x with its last two elements swapped.
    txns.push(reader(7, "x", &swapped));
    let r = check_default(&history(&txns));
    assert_eq!(summary(&r), (Invalid, vec!["incompatible-order"], vec!["read-committed"]));
    let case = only_case(&r, "incompatible-order");
    // Against the longest read, T4's (completed at index 8 + 4); T7's completed at 15.
    assert_eq!(case.txns, vec![12, 15]);
    assert_eq!(case.facts["values"], json!([whole, swapped]));
}
