//! Cycles through registers. A register read shows one value, so most cycles need the version order an
//! assumption gives: each test names the assumption that exposes its cycle and checks that without it
//! the history looks valid (Elle's own scenarios, with the values they read written by someone, since a
//! read of a value nobody wrote is a `garbage-read` here).

use checker::Validity::{Invalid, Valid};

use crate::support::*;

#[test]
fn g1c_is_a_cycle_of_reads_of_each_others_writes() {
    // Elle's checker-test "G1c": each transaction read the other's write.
    let h = concurrent_of(registers(&["wx1ry1", "wy1rx1"]));
    let r = check_models(&h, &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["G1c"], vec!["read-committed"]));
    let cycle = only_cycle(&r, "G1c");
    assert_eq!(steps(cycle), vec![(2, "wr", "x".into(), 3), (3, "wr", "y".into(), 2)]);
    assert_eq!(
        explanations(cycle),
        vec![r#"T2 wrote "x" = 1, which was read by T3"#, r#"T3 wrote "y" = 1, which was read by T2"#]
    );
    assert_eq!(summary(&check_models(&h, &["read-uncommitted"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_anomalies(&h, &["G2"])), (Valid, vec![], vec![]));
}

#[test]
fn g1c_near_miss_one_way_reads_are_valid() {
    let h = concurrent_of(registers(&["wx1", "wy1rx1"]));
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
}

#[test]
fn g_single_item_from_the_initial_state_alone() {
    // Elle's "initial state": T3 read x = nil and y = 1; T2 wrote y = 1 and x = 2. Nil precedes every
    // write, so T3 missed T2's x while seeing its y.
    let h = interleaved(vec![rok(0, "rx_ry1"), rok(1, "wy1wx2")], &[0, 1, 1, 0]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    let cycle = only_cycle(&r, "G-single-item");
    assert_eq!(steps(cycle), vec![(3, "rw", "x".into(), 2), (2, "wr", "y".into(), 3)]);
    assert_eq!(
        explanations(cycle)[0],
        r#"T3 read key "x" = nil, and T2 set it to 2, which came later in the version order (nil, the initial state, precedes every written value)"#
    );
}

#[test]
fn g_single_item_near_miss_reading_the_later_write_is_valid() {
    let h = interleaved(vec![rok(0, "rx2ry1"), rok(1, "wy1wx2")], &[0, 1, 1, 0]);
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
}

#[test]
fn g_single_item_needs_writes_follow_reads_to_order_a_key() {
    // Elle's "wfr", with y = 1 written first: T5 read T4's x = 1 but y = 1, which T4 read and then
    // overwrote with 2.
    let h = concurrent_of(registers(&["wy1", "ry1wx1wy2", "rx1ry1"]));
    // Inference alone cannot order y's writes; the exact decision finds that no order of them is
    // snapshot isolated: T4 read y = 1 and wrote 2, so 1 came first, and then T5 missed T4's y.
    let blind = check_with(&h, &assuming(&["read-committed"], &[], &[]));
    assert_eq!(summary(&blind), (Valid, vec![], vec![]));
    let exact = check_with(&h, &assuming(&["serializable"], &[], &[]));
    assert_eq!(summary(&exact), (Invalid, vec!["no-snapshot-isolation-order"], vec!["snapshot-isolation"]));
    let r = check_with(&h, &assuming(&["serializable"], &[], &["wfr-keys"]));
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    let cycle = only_cycle(&r, "G-single-item");
    assert_eq!(steps(cycle), vec![(4, "wr", "x".into(), 5), (5, "rw", "y".into(), 4)]);
    assert_eq!(
        explanations(cycle)[1],
        r#"T5 read key "y" = 1, and T4 set it to 2, which came later in the version order (T4 read the first and then wrote the second, and --wfr-keys assumes writes follow reads)"#
    );
    assert_eq!(r.checked.assumptions, vec!["wfr-keys"]);
}

#[test]
fn g0_needs_each_processs_order_to_order_both_keys() {
    // Elle's "G0": T1 and T3 write x and y in opposite orders, and later reads on each process show
    // which write of each key came last.
    let h = sequential_of(vec![rok(0, "wx1wy2"), rok(1, "wx2wy1"), rok(0, "rx2"), rok(1, "ry2")]);
    let blind = check_with(&h, &assuming(&[], &["G0"], &[]));
    assert_eq!(summary(&blind), (Valid, vec![], vec![]));
    let r = check_with(&h, &assuming(&[], &["G0"], &["sequential-keys"]));
    assert_eq!(summary(&r), (Invalid, vec!["G0"], vec!["read-uncommitted"]));
    let cycle = only_cycle(&r, "G0");
    assert_eq!(steps(cycle), vec![(1, "ww", "x".into(), 3), (3, "ww", "y".into(), 1)]);
    assert_eq!(
        explanations(cycle)[0],
        r#"T1 set key "x" to 1, and T3 set it to 2, which came later in the version order (process 0 ran T1 before T5, and --sequential-keys assumes each key is sequentially consistent)"#
    );
}

#[test]
fn g2_item_needs_real_time_to_order_the_initial_versions() {
    // Elle's "G2-item", with the initial x = 1 and y = 1 written by T1: T3 read both, then T7 and T6
    // each read one and overwrote the other.
    let txns = vec![rok(3, "wx1wy1"), rok(0, "rx1ry1"), rok(1, "rx1wy2"), rok(2, "ry1wx2")];
    let h = interleaved(txns, &[0, 0, 1, 1, 2, 3, 3, 2]);
    assert_eq!(
        summary(&check_with(&h, &assuming(&["read-committed"], &[], &["linearizable-keys"]))),
        (Valid, vec![], vec![])
    );
    // Without the assumption, inference sees no order; the exact decision finds the write skew anyway.
    assert_eq!(summary(&check_with(&h, &assuming(&[], &["G2"], &[]))), (Valid, vec![], vec![]));
    assert_eq!(
        summary(&check_with(&h, &assuming(&[], &[], &[]))),
        (Invalid, vec!["no-serializable-order"], vec!["serializable"])
    );
    let r = check_with(&h, &assuming(&[], &["G2"], &["linearizable-keys"]));
    assert_eq!(summary(&r), (Invalid, vec!["G2-item"], vec!["repeatable-read"]));
    let cycle = only_cycle(&r, "G2-item");
    assert_eq!(steps(cycle), vec![(7, "rw", "x".into(), 6), (6, "rw", "y".into(), 7)]);
    assert_eq!(
        explanations(cycle)[0],
        r#"T7 read key "x" = 1, and T6 set it to 2, which came later in the version order (T3 completed before T6 was invoked, and --linearizable-keys assumes each key is linearizable)"#
    );
}

#[test]
fn g_nonadjacent_item_alternates_anti_dependencies_with_reads() {
    // T4 read x = nil before T5 wrote it, T6 read T5's x but z = nil before T7 wrote it, and T4 read
    // T7's y: T4 -rw-> T5 -wr-> T6 -rw-> T7 -wr-> T4, no two anti-dependencies adjacent. Snapshot
    // isolation forbids it; with one more read of nil it would be G2-item, which SI allows.
    let h = concurrent_of(registers(&["rx_ry1", "wx1", "rx1rz_", "wz1wy1"]));
    let r = check_models(&h, &["snapshot-isolation"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-nonadjacent-item"], vec!["repeatable-read", "snapshot-isolation"]));
    let cycle = only_cycle(&r, "G-nonadjacent-item");
    assert_eq!(
        steps(cycle),
        vec![(4, "rw", "x".into(), 5), (5, "wr", "x".into(), 6), (6, "rw", "z".into(), 7), (7, "wr", "y".into(), 4)]
    );
}

#[test]
fn a_stale_read_after_a_write_completed_is_g_single_item_realtime() {
    // T1 wrote x = 1 and completed; T3, invoked afterwards, read x = nil.
    let h = sequential_of(registers(&["wx1", "rx_"]));
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item-realtime"], vec!["strong-snapshot-isolation"]));
    let cycle = only_cycle(&r, "G-single-item-realtime");
    assert_eq!(steps(cycle), vec![(1, "realtime", String::new(), 3), (3, "rw", "x".into(), 1)]);
    // Near miss: read before the write.
    let fine = sequential_of(registers(&["rx_", "wx1"]));
    assert_eq!(summary(&check_default(&fine)), (Valid, vec![], vec![]));
    // And without real time, nothing is wrong.
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
}

#[test]
fn g0_near_miss_later_reads_that_agree_with_one_order_are_valid() {
    // Process 1's later read shows its own y = 1 survived: T1 then T3 on both keys.
    let h = sequential_of(vec![rok(0, "wx1wy2"), rok(1, "wx2wy1"), rok(0, "rx2"), rok(1, "ry1")]);
    let r = check_with(&h, &assuming(&[], &["G0"], &["sequential-keys"]));
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
}

#[test]
fn g_nonadjacent_item_near_miss_a_read_of_nil_breaks_the_cycle() {
    // As above, but T6 read x = nil: it no longer follows T5, and nothing leads back to T4's successor.
    let h = concurrent_of(registers(&["rx_ry1", "wx1", "rx_rz_", "wz1wy1"]));
    assert_eq!(summary(&check_models(&h, &["snapshot-isolation"])), (Valid, vec![], vec![]));
}
