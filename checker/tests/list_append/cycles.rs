//! Dependency cycles, one class at a time, from Adya's definitions as Elle classifies them: G0 (only
//! `ww`), G1c (`ww` and at least one `wr`), G-single-item (exactly one `rw`), G-nonadjacent-item (two or
//! more `rw`, none adjacent), G2-item (two or more, some adjacent); a `-realtime` or `-process` variant
//! uses at least one edge of that order. Each fires on its history and stays quiet on a near miss.

use checker::Validity::{Invalid, Valid};

use crate::support::*;

#[test]
fn g0_is_a_cycle_of_appends_ordered_both_ways() {
    // x's order puts T3 first, y's puts T4 first.
    let h = concurrent(&["ax1ay1", "ax2ay2", "rx12ry21"]);
    for r in [check_anomalies(&h, &["G0"]), check_anomalies(&h, &["G1"]), check_default(&h)] {
        assert_eq!(summary(&r), (Invalid, vec!["G0"], vec!["read-uncommitted"]));
        let cycle = only_cycle(&r, "G0");
        assert_eq!(cycle.cycle, vec![3, 4]);
        assert_eq!(steps(cycle), vec![(3, "ww", "x".into(), 4), (4, "ww", "y".into(), 3)]);
    }
    // G2 does not include G0, so asking only for G2 sees nothing.
    assert_eq!(summary(&check_anomalies(&h, &["G2"])), (Valid, vec![], vec![]));
}

#[test]
fn g0_near_miss_both_keys_in_the_same_order_is_valid() {
    let h = concurrent(&["ax1ay1", "ax2ay2", "rx12ry12"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn g1c_is_circular_information_flow() {
    // T4 appends to x after T3, yet T3 read T4's append to y.
    let h = concurrent(&["ax1ry1", "ax2ay1", "rx12ry1"]);
    let r = check_anomalies(&h, &["G1"]);
    assert_eq!(summary(&r), (Invalid, vec!["G1c"], vec!["read-committed"]));
    let cycle = only_cycle(&r, "G1c");
    assert_eq!(cycle.cycle, vec![3, 4]);
    assert_eq!(steps(cycle), vec![(3, "ww", "x".into(), 4), (4, "wr", "y".into(), 3)]);
    assert_eq!(summary(&check_anomalies(&h, &["G0"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_anomalies(&h, &["G2"])), (Valid, vec![], vec![]));
}

#[test]
fn g1c_near_miss_reading_the_write_that_came_first_is_valid() {
    // x's order is now [2 1]: T4 precedes T3 both ways.
    let h = concurrent(&["ax1ry1", "ax2ay1", "rx21ry1"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn g_single_item_is_a_read_skew() {
    // T4 appends to x after T3 but did not see T3's append to y.
    let h = concurrent(&["ax1ay1", "ax2ry", "rx12"]);
    for r in [check_anomalies(&h, &["G-single"]), check_anomalies(&h, &["G2"]), check_default(&h)] {
        assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
        let cycle = only_cycle(&r, "G-single-item");
        assert_eq!(cycle.cycle, vec![3, 4]);
        assert_eq!(steps(cycle), vec![(3, "ww", "x".into(), 4), (4, "rw", "y".into(), 3)]);
    }
    assert_eq!(summary(&check_anomalies(&h, &["G0"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_anomalies(&h, &["G1"])), (Valid, vec![], vec![]));
}

#[test]
fn g_single_item_near_miss_seeing_the_other_append_is_valid() {
    let h = concurrent(&["ax1ay1", "ax2ry1", "rx12"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn g_single_item_is_what_repeatable_read_forbids_without_predicates() {
    // Elle's rr-g-single-item-test: T3 sees T1's x but not its y.
    let h = sequential(&["ax1ay1", "rx1ry"]);
    let r = check_models(&h, &["repeatable-read"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    let cycle = only_cycle(&r, "G-single-item");
    assert_eq!(steps(cycle), vec![(1, "wr", "x".into(), 3), (3, "rw", "y".into(), 1)]);
}

#[test]
fn unobserved_writes_still_order_after_the_longest_read() {
    // Elle's unobserved-write-test: y never shows 1, so T9 (which read y = [2]) precedes T5's append
    // of 1 to y; and x and y order T5 and T6 both ways. T7 only adds appends nobody read.
    let h = interleaved(committed(&["ax1ay1", "ax2ay2", "ax3ay3", "rx12", "ry2"]), &[0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item", "G0"], vec!["read-uncommitted"]));
    let single = only_cycle(&r, "G-single-item");
    assert_eq!(single.cycle, vec![5, 6, 9]);
    assert_eq!(steps(single), vec![(5, "ww", "x".into(), 6), (6, "wr", "y".into(), 9), (9, "rw", "y".into(), 5)]);
    let g0 = only_cycle(&r, "G0");
    assert_eq!(steps(g0), vec![(5, "ww", "x".into(), 6), (6, "ww", "y".into(), 5)]);
}

#[test]
fn g_nonadjacent_item_has_two_anti_dependencies_apart() {
    // Elle's G-nonadjacent-test: each reader sees one append and misses the other.
    let h = sequential(&["ax1", "rx1ry", "ay1", "ry1rx"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G-nonadjacent-item"], vec!["repeatable-read", "snapshot-isolation"]));
    let cycle = only_cycle(&r, "G-nonadjacent-item");
    assert_eq!(cycle.cycle, vec![1, 3, 5, 7]);
    assert_eq!(
        steps(cycle),
        vec![(1, "wr", "x".into(), 3), (3, "rw", "y".into(), 5), (5, "wr", "y".into(), 7), (7, "rw", "x".into(), 1)]
    );
    let si = check_models(&h, &["snapshot-isolation"]);
    assert_eq!(summary(&si), (Invalid, vec!["G-nonadjacent-item"], vec!["repeatable-read", "snapshot-isolation"]));
}

#[test]
fn g_nonadjacent_item_across_four_keys_is_what_repeatable_read_forbids() {
    // Elle's rr-g-nonadjacent-item-test.
    let h = sequential(&["ax1at1", "rx1ry", "ay1az2", "rz2rt"]);
    let r = check_models(&h, &["repeatable-read"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-nonadjacent-item"], vec!["repeatable-read", "snapshot-isolation"]));
    let cycle = only_cycle(&r, "G-nonadjacent-item");
    assert_eq!(
        steps(cycle),
        vec![(1, "wr", "x".into(), 3), (3, "rw", "y".into(), 5), (5, "wr", "z".into(), 7), (7, "rw", "t".into(), 1)]
    );
}

#[test]
fn g_nonadjacent_item_near_miss_adjacent_anti_dependencies_are_g2_item() {
    // The same four steps in another order, rw rw wr wr: two anti-dependencies side by side make a
    // G2-item, which snapshot isolation allows.
    let h = concurrent(&["rxrt1", "ax1ry", "ay1az1", "rz1at1"]);
    assert_eq!(summary(&check_models(&h, &["snapshot-isolation"])), (Valid, vec![], vec![]));
    let r = check_models(&h, &["repeatable-read"]);
    assert_eq!(summary(&r), (Invalid, vec!["G2-item"], vec!["repeatable-read"]));
    let cycle = only_cycle(&r, "G2-item");
    assert_eq!(cycle.cycle, vec![4, 5, 6, 7]);
    assert_eq!(
        steps(cycle),
        vec![(4, "rw", "x".into(), 5), (5, "rw", "y".into(), 6), (6, "wr", "z".into(), 7), (7, "wr", "t".into(), 4)]
    );
}

#[test]
fn g2_item_is_a_write_skew() {
    // Each reads the empty state of the key the other appends to.
    let h = concurrent(&["ax1ry", "ay1rx"]);
    assert_eq!(summary(&check_anomalies(&h, &["G0"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_anomalies(&h, &["G1"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_models(&h, &["read-committed"])), (Valid, vec![], vec![]));
    for r in [
        check_anomalies(&h, &["G2"]),
        check_models(&h, &["serializable"]),
        check_models(&h, &["repeatable-read"]),
        check_default(&h),
    ] {
        assert_eq!(summary(&r), (Invalid, vec!["G2-item"], vec!["repeatable-read"]));
        let cycle = only_cycle(&r, "G2-item");
        assert_eq!(cycle.cycle, vec![2, 3]);
        assert_eq!(steps(cycle), vec![(2, "rw", "y".into(), 3), (3, "rw", "x".into(), 2)]);
    }
}

#[test]
fn g2_item_near_miss_one_side_seeing_the_other_is_valid() {
    let h = concurrent(&["ax1ry", "ay1rx1"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn g2_item_of_a_reader_that_saw_t_out_but_not_the_pivot_is_the_read_only_anomaly() {
    // Fekete, O'Neil and O'Neil 2004: T3 appends to x; the pivot T4 misses it and appends to y; T5 only
    // reads, sees T3's append and misses T4's.
    let h = concurrent(&["ax1", "rxay1", "rx1ry"]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G2-item"], vec!["repeatable-read"]));
    let cycle = only_cycle(&r, "G2-item");
    assert_eq!(steps(cycle), vec![(3, "wr", "x".into(), 5), (5, "rw", "y".into(), 4), (4, "rw", "x".into(), 3)]);
    assert_eq!(cycle.shape, Some(checker::Shape::ReadOnlyAnomaly { read_only: 5, pivot: 4, t_out: 3 }));
    // Snapshot isolation permits it.
    assert_eq!(summary(&check_models(&h, &["snapshot-isolation"])), (Valid, vec![], vec![]));
}

#[test]
fn g2_item_near_miss_the_same_cycle_whose_reader_also_appended_has_no_shape() {
    let h = concurrent(&["ax1", "rxay1", "rx1ryaz1"]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G2-item"], vec!["repeatable-read"]));
    assert_eq!(only_cycle(&r, "G2-item").shape, None);
}

#[test]
fn g2_item_near_miss_a_write_skew_has_no_read_only_transaction_and_no_shape() {
    let r = check_models(&concurrent(&["ax1ry", "ay1rx"]), &["serializable"]);
    assert_eq!(only_cycle(&r, "G2-item").shape, None);
}

#[test]
fn g0_realtime_is_appends_applied_against_real_time() {
    // T1 committed before T3 began, yet x shows T3's append first.
    let h = sequential(&["ax1", "ax2", "rx21"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G0-realtime"], vec!["strong-read-uncommitted"]));
    let cycle = only_cycle(&r, "G0-realtime");
    assert_eq!(cycle.cycle, vec![1, 3]);
    assert_eq!(steps(cycle), vec![(1, "realtime", String::new(), 3), (3, "ww", "x".into(), 1)]);
    // Without real time there is no cycle.
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
}

#[test]
fn g0_realtime_near_miss_concurrent_appends_may_apply_in_either_order() {
    let h = concurrent(&["ax1", "ax2", "rx21"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn g1c_realtime_is_a_read_of_a_write_that_had_not_begun() {
    let h = sequential(&["ry1", "ay1"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G1c-realtime"], vec!["strong-read-committed"]));
    let cycle = only_cycle(&r, "G1c-realtime");
    assert_eq!(cycle.cycle, vec![1, 3]);
    assert_eq!(steps(cycle), vec![(1, "realtime", String::new(), 3), (3, "wr", "y".into(), 1)]);
}

#[test]
fn g1c_realtime_near_miss_a_concurrent_write_may_be_read() {
    let h = concurrent(&["ry1", "ay1"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn g_single_item_realtime_is_a_stale_read() {
    // Elle's "Strong SI violation": T5 began after T3 committed its append of 2, yet read x = [1].
    let h = sequential(&["ax1", "ax2", "rx1", "rx12"]);
    assert_eq!(summary(&check_anomalies(&h, &["G2"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
    let r = check_models(&h, &["strict-serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item-realtime"], vec!["strong-snapshot-isolation"]));
    let cycle = only_cycle(&r, "G-single-item-realtime");
    assert_eq!(cycle.cycle, vec![3, 5]);
    assert_eq!(steps(cycle), vec![(3, "realtime", String::new(), 5), (5, "rw", "x".into(), 3)]);
}

#[test]
fn g_single_item_realtime_near_miss_a_fresh_read_is_valid() {
    let h = sequential(&["ax1", "ax2", "rx12", "rx12"]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn g2_item_realtime_is_a_write_skew_closed_by_real_time() {
    // T5 (invoked first, completed last) misses T2's append to y; T4 began after T2 committed and
    // misses T5's append to x.
    let h = interleaved(committed(&["rx", "ryax1", "ay1"]), &[1, 2, 2, 0, 0, 1]);
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G2-item-realtime"], vec!["strict-serializable"]));
    let cycle = only_cycle(&r, "G2-item-realtime");
    assert_eq!(cycle.cycle, vec![5, 2, 4]);
    assert_eq!(
        steps(cycle),
        vec![(5, "rw", "y".into(), 2), (2, "realtime", String::new(), 4), (4, "rw", "x".into(), 5)]
    );
}

#[test]
fn g2_item_realtime_near_miss_all_concurrent_is_valid() {
    // T4 is invoked before T2 completes: no real-time edge, no cycle.
    let h = interleaved(committed(&["rx", "ryax1", "ay1"]), &[1, 2, 0, 2, 0, 1]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn g0_process_is_one_process_appending_out_of_order() {
    let h = sequential_of(vec![ok(0, "ax1"), ok(0, "ax2"), ok(1, "rx21")]);
    let r = check_models(&h, &["strong-session-serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G0-process"], vec!["strong-session-read-uncommitted"]));
    let cycle = only_cycle(&r, "G0-process");
    assert_eq!(steps(cycle), vec![(1, "process", String::new(), 3), (3, "ww", "x".into(), 1)]);
    let apart = sequential_of(vec![ok(0, "ax1"), ok(2, "ax2"), ok(1, "rx21")]);
    assert_eq!(summary(&check_models(&apart, &["strong-session-serializable"])), (Valid, vec![], vec![]));
}

#[test]
fn g1c_process_is_a_process_that_read_its_own_future() {
    // Elle's wr-process-test (Elle issue 21): T1 read x = [1], which process 2 appended only after
    // it had read T1's append to y.
    let h = sequential_of(vec![ok(1, "rx1ay1"), ok(2, "ry1"), ok(2, "ax1")]);
    let r = check_models(&h, &["strong-session-snapshot-isolation"]);
    assert_eq!(summary(&r), (Invalid, vec!["G1c-process"], vec!["strong-session-read-committed"]));
    let cycle = only_cycle(&r, "G1c-process");
    assert_eq!(cycle.cycle, vec![1, 3, 5]);
    assert_eq!(
        steps(cycle),
        vec![(1, "wr", "y".into(), 3), (3, "process", String::new(), 5), (5, "wr", "x".into(), 1)]
    );
}

#[test]
fn g1c_process_near_miss_two_processes_owe_each_other_nothing() {
    let h = sequential_of(vec![ok(1, "rx1ay1"), ok(2, "ry1"), ok(3, "ax1")]);
    assert_eq!(summary(&check_models(&h, &["strong-session-snapshot-isolation"])), (Valid, vec![], vec![]));
}

#[test]
fn g_single_item_process_is_a_process_that_missed_its_own_write() {
    // Elle's "Strong Session SI violation": process 1 appended 2, then read x = [1].
    let h = sequential_of(vec![ok(0, "ax1"), ok(1, "ax2"), ok(1, "rx1"), ok(2, "rx12")]);
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
    let r = check_models(&h, &["strong-session-snapshot-isolation"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item-process"], vec!["strong-session-snapshot-isolation"]));
    let cycle = only_cycle(&r, "G-single-item-process");
    assert_eq!(cycle.cycle, vec![3, 5]);
    assert_eq!(steps(cycle), vec![(3, "process", String::new(), 5), (5, "rw", "x".into(), 3)]);
}

#[test]
fn g_single_item_process_near_miss_another_process_may_read_stale() {
    let h = sequential_of(vec![ok(0, "ax1"), ok(1, "ax2"), ok(3, "rx1"), ok(2, "rx12")]);
    assert_eq!(summary(&check_models(&h, &["strong-session-snapshot-isolation"])), (Valid, vec![], vec![]));
}

#[test]
fn g_nonadjacent_item_process_needs_the_process_order_between_two_anti_dependencies() {
    // Elle's G-nonadjacent-process (Elle issue 17).
    let h = sequential_of(vec![ok(0, "rxrz1"), ok(1, "ax1"), ok(1, "rz"), ok(2, "az1")]);
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
    let r = check_models(&h, &["strong-session-snapshot-isolation"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-nonadjacent-item-process"], vec!["strong-session-snapshot-isolation"]));
    let cycle = only_cycle(&r, "G-nonadjacent-item-process");
    assert_eq!(cycle.cycle, vec![1, 3, 5, 7]);
    assert_eq!(
        steps(cycle),
        vec![
            (1, "rw", "x".into(), 3),
            (3, "process", String::new(), 5),
            (5, "rw", "z".into(), 7),
            (7, "wr", "z".into(), 1)
        ]
    );
}

#[test]
fn g_nonadjacent_item_process_near_miss_on_two_processes_is_valid() {
    let h = sequential_of(vec![ok(0, "rxrz1"), ok(1, "ax1"), ok(3, "rz"), ok(2, "az1")]);
    assert_eq!(summary(&check_models(&h, &["strong-session-snapshot-isolation"])), (Valid, vec![], vec![]));
}

#[test]
fn g2_item_process_is_a_write_skew_closed_by_a_process() {
    let h = interleaved(vec![ok(0, "rx"), ok(1, "ryax1"), ok(0, "ay1")], &[1, 2, 2, 0, 0, 1]);
    let r = check_models(&h, &["strong-session-serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G2-item-process"], vec!["strong-session-serializable"]));
    let cycle = only_cycle(&r, "G2-item-process");
    assert_eq!(
        steps(cycle),
        vec![(5, "rw", "y".into(), 2), (2, "process", String::new(), 4), (4, "rw", "x".into(), 5)]
    );
}

#[test]
fn an_edge_that_is_both_anti_dependency_and_real_time_is_rw_to_g_single_item() {
    // Elle's lost-update-test, whose transactions run one after another: T3 -> T5 is both rw and real
    // time. An edge is read as its data dependency, so the only cycle is a G2-item (rw, rw), not a
    // G-single-item-realtime (real time, rw); Elle expects exactly G2-item and lost-update here.
    let h = sequential(&["ax0", "rx0ax1", "rx0ax2"]);
    let r = check_default(&h);
    assert_eq!(r.anomaly_types, vec!["G2-item", "lost-update"]);
    assert_eq!(steps(only_cycle(&r, "G2-item")), vec![(3, "rw", "x".into(), 5), (5, "rw", "x".into(), 3)]);
}

#[test]
fn real_time_is_followed_across_several_transactions() {
    // T5 began after T3, which began after T1 committed its append to x; yet T5 read x empty. The
    // real-time graph is a transitive reduction (no T1 -> T5 edge), so the cycle takes both steps.
    let h = sequential(&["ax1", "ay1", "rx"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item-realtime"], vec!["strong-snapshot-isolation"]));
    assert_eq!(
        steps(only_cycle(&r, "G-single-item-realtime")),
        vec![(1, "realtime", String::new(), 3), (3, "realtime", String::new(), 5), (5, "rw", "x".into(), 1)]
    );
}

#[test]
fn an_info_transaction_precedes_nothing_in_real_time() {
    // T1 crashed: it may have committed after T3 read x empty, so nothing is wrong.
    let h = sequential_of(vec![info(0, "ax1"), ok(1, "rx")]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
    let on_one_process = sequential_of(vec![info(0, "ax1"), ok(0, "rx")]);
    assert_eq!(
        summary(&check_models(&on_one_process, &["strong-session-snapshot-isolation"])),
        (Valid, vec![], vec![])
    );
    // Had it committed, T3's read would be stale.
    let h = sequential_of(vec![ok(0, "ax1"), ok(1, "rx")]);
    assert_eq!(check_default(&h).anomaly_types, vec!["G-single-item-realtime"]);
}

#[test]
fn an_info_transaction_follows_what_completed_before_it_was_invoked() {
    // T3 crashed, but T1 read its append, and T1 had completed before T3 began.
    let h = sequential_of(vec![ok(0, "rx1"), info(1, "ax1")]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G1c-realtime"], vec!["strong-read-committed"]));
    assert_eq!(
        steps(only_cycle(&r, "G1c-realtime")),
        vec![(1, "realtime", String::new(), 3), (3, "wr", "x".into(), 1)]
    );
}

#[test]
fn appends_nobody_read_come_after_every_read_of_the_initial_state() {
    // Nobody read x non-empty, so both of its appends follow T3's empty read of it; T5's empty read of
    // y precedes T3's append to y.
    let h = concurrent(&["rxay1", "ax1", "ax2ry"]);
    let r = check_default(&h);
    assert_eq!(r.stats.edges, [("rw".to_string(), 3)].into_iter().collect());
    assert_eq!(summary(&r), (Invalid, vec!["G2-item"], vec!["repeatable-read"]));
    assert_eq!(steps(only_cycle(&r, "G2-item")), vec![(3, "rw", "x".into(), 5), (5, "rw", "y".into(), 3)]);
}

#[test]
fn adyas_serializable_figure_is_valid() {
    // Adya, Liskov & O'Neil's figure 3, as Elle's graph-test writes it.
    let h = concurrent(&["az1ax1ay1", "rx1ay2", "ry12az3", "rz13"]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.edges, [("wr".to_string(), 3), ("ww".to_string(), 2)].into_iter().collect());
}

#[test]
fn process_order_skips_aborted_transactions() {
    // Process 0 committed T1's append, aborted T3, then read x empty in T5: T1 -> T5 in process order.
    let h = sequential_of(vec![ok(0, "ax1"), fail(0, "ay1"), ok(0, "rx")]);
    let r = check_models(&h, &["strong-session-snapshot-isolation"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item-process"], vec!["strong-session-snapshot-isolation"]));
    assert_eq!(
        steps(only_cycle(&r, "G-single-item-process")),
        vec![(1, "process", String::new(), 5), (5, "rw", "x".into(), 1)]
    );
}

#[test]
fn an_edge_that_is_both_anti_dependency_and_real_time_is_real_time_to_g1c() {
    // Elle issue 17's history, sequential, under strict serializability: T1 read z = [1], yet T7
    // appended 1 to z only after T1, T3 and T5 had run one after another. T1 -> T3 and T5 -> T7 are
    // both rw and real time; G1c, which takes no rw, reads them as real time: a G1c-realtime. The
    // G-nonadjacent-item-realtime reads them as rw. The same cycle with T3 -> T5 read as process order
    // (p1 ran both) has its two anti-dependencies apart, so strong-session snapshot isolation, which
    // takes no real time, is ruled out too: its exact decision finds no order.
    let h = sequential_of(vec![ok(0, "rxrz1"), ok(1, "ax1"), ok(1, "rz"), ok(2, "az1")]);
    let r = check_default(&h);
    assert_eq!(
        summary(&r),
        (
            Invalid,
            vec!["G-nonadjacent-item-realtime", "G1c-realtime", "no-strong-session-snapshot-isolation-order"],
            vec!["strong-read-committed", "strong-session-snapshot-isolation"]
        )
    );
    assert_eq!(
        steps(only_cycle(&r, "G1c-realtime")),
        vec![
            (1, "realtime", String::new(), 3),
            (3, "realtime", String::new(), 5),
            (5, "realtime", String::new(), 7),
            (7, "wr", "z".into(), 1)
        ]
    );
    assert_eq!(
        steps(only_cycle(&r, "G-nonadjacent-item-realtime")),
        vec![
            (1, "rw", "x".into(), 3),
            (3, "realtime", String::new(), 5),
            (5, "rw", "z".into(), 7),
            (7, "wr", "z".into(), 1)
        ]
    );
}
