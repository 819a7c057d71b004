//! Predicate reads, after Elle's `closed_predicate_test.clj`, and the phantoms the Hermitage scenarios
//! need: a predicate read that misses a row another transaction inserted before it in the order is
//! `G-single` or `G2` (proper: through an `rwp` edge), and the same history with the insert ordered
//! after is valid. Histories begin with an `init` op, `T1` (see `support::with_init`); with `n`
//! transactions after it invoked together and then completed in order, transaction `i` is
//! `T(2 + n + i)`.

use checker::Validity::{Invalid, Valid};
use histories::Predicate::{self, Eq, Mod, True};
use serde_json::json;

use crate::support::*;

fn together(init: &[(&str, i64)], txns: Vec<Txn>) -> histories::History {
    let n = txns.len();
    let order: Vec<usize> = (0..n).chain(0..n).collect();
    with_init(init, txns, &order)
}

fn txn(process: u64, mops: Vec<histories::Mop>) -> Txn {
    ok_mops(process, mops)
}

const THIRDS: Predicate = Mod { m: 3, r: 0 };

#[test]
fn a_phantom_missed_after_reading_the_inserters_other_write_is_g_single() {
    // T4 inserted row z = 30 and updated x; T5 read T4's x = 11, yet its predicate read of multiples
    // of 3 missed z: T4 -wr-> T5 -rwp-> T4.
    let writer = txn(0, vec![insert("z", 30), write("x", 11)]);
    let reader = txn(1, vec![rread("x", Some(11)), rp(THIRDS, &[])]);
    let h = together(&[("x", 10), ("y", 20)], vec![writer, reader]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G-single"], vec!["consistent-view"]));
    let cycle = only_cycle(&r, "G-single");
    assert_eq!(steps(cycle), vec![(4, "wr", "x".into(), 5), (5, "rwp", "z".into(), 4)]);
    assert_eq!(
        explanations(cycle)[1],
        r#"T5 performed a predicate read [rp (value mod 3 = 0) {}] of key "z" and selected version unborn, which was overwritten by T4's write of 30, which also changed whether the predicate would have matched. Note that key "z"'s version order was [unborn 30]"#
    );
}

#[test]
fn a_phantom_near_miss_the_insert_ordered_after_the_read_is_valid() {
    // T5 read x = 10, before T4's update: T5 precedes T4 on x and on the missed row alike.
    let writer = txn(0, vec![insert("z", 30), write("x", 11)]);
    let reader = txn(1, vec![rread("x", Some(10)), rp(THIRDS, &[])]);
    let h = together(&[("x", 10), ("y", 20)], vec![writer, reader]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.edges.get("rwp"), Some(&1));
}

#[test]
fn a_phantom_missed_after_the_insert_completed_is_g_single_realtime() {
    // T3 inserted z = 30 and completed; T5, invoked afterwards, missed it.
    let h = with_init(&[], vec![txn(0, vec![insert("z", 30)]), txn(1, vec![rp(True, &[])])], &[0, 0, 1, 1]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-realtime"], vec!["strong-snapshot-isolation"]));
    let cycle = only_cycle(&r, "G-single-realtime");
    assert_eq!(steps(cycle), vec![(3, "realtime", String::new(), 5), (5, "rwp", "z".into(), 3)]);
    // The read first, then the insert: valid.
    let h = with_init(&[], vec![txn(1, vec![rp(True, &[])]), txn(0, vec![insert("z", 30)])], &[0, 0, 1, 1]);
    assert_eq!(summary(&check_default(&h)), (Valid, vec![], vec![]));
}

#[test]
fn predicate_write_skew_is_g2() {
    // Hermitage's G2 ("anti-dependency cycles"): each transaction reads the multiples of 3, finds none,
    // and inserts one; each missed the other's insert.
    let t1 = txn(0, vec![rp(THIRDS, &[]), insert("z", 30)]);
    let t2 = txn(1, vec![rp(THIRDS, &[]), insert("t", 42)]);
    let h = together(&[("x", 10), ("y", 20)], vec![t1, t2]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G2"], vec!["serializable"]));
    let cycle = only_cycle(&r, "G2");
    assert_eq!(steps(cycle), vec![(4, "rwp", "t".into(), 5), (5, "rwp", "z".into(), 4)]);
    // Snapshot isolation permits it, and repeatable read (which only forbids G2-item) too.
    assert_eq!(summary(&check_models(&h, &["snapshot-isolation"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_models(&h, &["repeatable-read"])), (Valid, vec![], vec![]));
}

#[test]
fn predicate_write_skew_near_miss_the_second_read_sees_the_first_insert() {
    let t1 = txn(0, vec![rp(THIRDS, &[]), insert("z", 30)]);
    let t2 = txn(1, vec![rp(THIRDS, &[("z", 30)]), insert("t", 42)]);
    let h = together(&[("x", 10), ("y", 20)], vec![t1, t2]);
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
}

#[test]
fn a_predicate_read_that_changes_within_a_transaction_is_g_single() {
    // Hermitage's PMP at read committed: T5 reads the rows equal to 30 twice and sees T4's insert
    // only the second time: T5 -rwp-> T4 -wrp-> T5.
    let reader = txn(0, vec![rp(Eq(30), &[]), rp(Eq(30), &[("z", 30)])]);
    let inserter = txn(1, vec![insert("z", 30)]);
    let h = with_init(&[("x", 10)], vec![reader, inserter], &[0, 1, 1, 0]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single"], vec!["consistent-view"]));
    let cycle = only_cycle(&r, "G-single");
    assert_eq!(steps(cycle), vec![(5, "rwp", "z".into(), 4), (4, "wrp", "z".into(), 5)]);
    assert_eq!(
        explanations(cycle)[1],
        r#"T4 set key "z" to 30, which T5's predicate read [rp (value = 30) {"z" 30}] returned. Note that the version order of key "z" was [unborn 30]"#
    );
    // Read committed allows it, and so does Adya's repeatable read, which forbids only item anomalies.
    assert_eq!(summary(&check_models(&h, &["read-committed"])), (Valid, vec![], vec![]));
    assert_eq!(summary(&check_models(&h, &["repeatable-read"])), (Valid, vec![], vec![]));
}

#[test]
fn g1c_through_rows_each_read_returned() {
    // Elle's g1c-predicate-read-seen-test, except that each read also returns the transaction's own
    // write: a predicate read that misses a row its own transaction wrote is `internal` here.
    let t1 = txn(0, vec![write("x", 1), rp(True, &[("x", 1), ("y", 2)])]);
    let t2 = txn(1, vec![write("y", 2), rp(True, &[("x", 1), ("y", 2)])]);
    let h = together(&[], vec![t1, t2]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G1c"], vec!["read-committed"]));
    assert_eq!(steps(only_cycle(&r, "G1c")), vec![(4, "wrp", "x".into(), 5), (5, "wrp", "y".into(), 4)]);
}

#[test]
fn g2_through_rows_neither_read_returned() {
    // Elle's g2-predicate-read-unseen-test, reading before writing (see above): each read selected the
    // other's row unborn.
    let t1 = txn(0, vec![rp(True, &[]), write("x", 1)]);
    let t2 = txn(1, vec![rp(True, &[]), write("y", 2)]);
    let h = together(&[], vec![t1, t2]);
    assert_eq!(summary(&check_default(&h)), (Invalid, vec!["G2"], vec!["serializable"]));
}

#[test]
fn g1c_through_deleted_rows_the_reads_must_have_selected() {
    // Elle's g1c-predicate-read-unseen-universe-delete-test: each deleted a row and read nothing, so
    // each selected the other's deletion.
    let t1 = txn(0, vec![delete("x"), rp(True, &[])]);
    let t2 = txn(1, vec![delete("y"), rp(True, &[])]);
    let h = together(&[("x", 0), ("y", 0)], vec![t1, t2]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Invalid, vec!["G1c"], vec!["read-committed"]));
    let cycle = only_cycle(&r, "G1c");
    assert_eq!(
        explanations(cycle)[0],
        r#"T4 deleted key "x", which was in the version set of T5's predicate read [rp (true) {}]: the read did not return key "x", and dead is the only version of it the predicate does not match. Note that the version order of key "x" was [0 dead]"#
    );
}

#[test]
fn g1c_and_g2_through_updated_rows() {
    // Elle's g1c- and g2-predicate-read-unseen-universe-write-tests.
    let g1c = together(
        &[("x", 0), ("y", 0)],
        vec![txn(0, vec![rp(Eq(0), &[("x", 0)]), write("x", 1)]), txn(1, vec![rp(Eq(0), &[("y", 0)]), write("y", 1)])],
    );
    assert_eq!(check_default(&g1c).anomaly_types, vec!["G1c"]);
    let g2 = together(
        &[("x", 0), ("y", 0)],
        vec![txn(0, vec![rp(Eq(1), &[]), write("x", 1)]), txn(1, vec![rp(Eq(1), &[]), write("y", 1)])],
    );
    assert_eq!(check_default(&g2).anomaly_types, vec!["G2"]);
}

#[test]
fn g1c_of_item_reads_through_a_deleted_row() {
    // Elle's wr-g1c-item-test: T5 read z = 3 from T7 and deleted x; T6 read x = nil (which must be
    // dead, as x was never inserted again) and inserted y; T7 read y and wrote z.
    let t1 = txn(0, vec![rread("z", Some(3)), delete("x")]);
    let t2 = txn(1, vec![rread("x", None), insert("y", 2)]);
    let t3 = txn(2, vec![rread("y", Some(2)), write("z", 3)]);
    let h = together(&[("x", 0), ("z", 0)], vec![t1, t2, t3]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G1c"], vec!["read-committed"]));
    assert_eq!(
        steps(only_cycle(&r, "G1c")),
        vec![(5, "wr", "x".into(), 6), (6, "wr", "y".into(), 7), (7, "wr", "z".into(), 5)]
    );
}

#[test]
fn a_cycle_through_the_init_op() {
    // Elle's ww-wr-rw-item-test: T5 read z = nil although init (T1) created it, so T5 precedes init;
    // init precedes T4, which deleted init's x; and T4 precedes T5, which read its y.
    let t1 = txn(0, vec![delete("x"), insert("y", 1)]);
    let t2 = txn(1, vec![rread("y", Some(1)), rread("z", None)]);
    let h = together(&[("x", 0), ("z", 0)], vec![t1, t2]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    let cycle = only_cycle(&r, "G-single-item");
    assert_eq!(steps(cycle), vec![(1, "ww", "x".into(), 4), (4, "wr", "y".into(), 5), (5, "rw", "z".into(), 1)]);
    assert_eq!(explanations(cycle)[0], r#"T1 set key "x" to 0, which T4 deleted"#);
    assert!(
        cycle.explanation.contains(r#"T1 = {:index 1, :type :ok, :process 1000, :f :init, :value {"x" 0, "z" 0}}"#)
    );
}

#[test]
fn predicate_read_miss_is_a_row_every_version_of_which_matched() {
    // Elle's failure-to-observe-test: key k only ever held 3, which both predicates match.
    let t = txn(0, vec![rp(Mod { m: 2, r: 1 }, &[]), rp(Eq(3), &[])]);
    let h = with_init(&[("k", 3)], vec![t], &[0, 0]);
    let r = check_anomalies(&h, &["predicate-read-miss"]);
    assert_eq!(summary(&r), (Invalid, vec!["predicate-read-miss"], vec!["serializable"]));
    let found: Vec<serde_json::Value> =
        cases(&r, "predicate-read-miss").iter().map(|c| c.facts["mop"].clone()).collect();
    assert_eq!(found, vec![json!(["rp", ["mod", 2, 1], {}]), json!(["rp", ["=", 3], {}])]);
    // Near miss: a row whose versions do not all match may be missed.
    let h = with_init(&[("k", 3)], vec![txn(1, vec![write("k", 4)]), txn(0, vec![rp(Eq(3), &[])])], &[0, 0, 1, 1]);
    assert_eq!(summary(&check_anomalies(&h, &["predicate-read-miss"])), (Valid, vec![], vec![]));
}

#[test]
fn item_read_anomalies_apply_to_rows() {
    // T5's predicate read returned a row written by the aborted T4, and one nobody wrote.
    let aborted = Txn { process: 0, outcome: Outcome::Fail, mops: vec![insert("z", 30)] };
    let reader = txn(1, vec![rp(True, &[("x", 10), ("z", 30), ("t", 99)])]);
    let h = together(&[("x", 10)], vec![aborted, reader]);
    let r = check_default(&h);
    assert_eq!(r.anomaly_types, vec!["G1a", "garbage-read"]);
    assert_eq!(only_case(&r, "G1a").txns, vec![5, 4]);
    assert_eq!(
        only_case(&r, "garbage-read").explanation,
        r#"T5 read key "t" = 99 through the predicate read [rp (true) {"t" 99, "x" 10, "z" 30}], but no operation wrote 99 to key "t""#
    );
}

#[test]
fn a_predicate_read_that_misses_the_transactions_own_insert_is_internal() {
    let h = together(&[], vec![txn(0, vec![insert("z", 30), rp(THIRDS, &[])])]);
    let r = check_default(&h);
    assert_eq!(r.anomaly_types, vec!["internal"]);
    assert_eq!(
        only_case(&r, "internal").explanation,
        r#"T3's predicate read [rp (value mod 3 = 0) {}] did not return key "z", but it had written 30 there earlier in the transaction, which matches value mod 3 = 0"#
    );
}

#[test]
fn blind_writes_by_several_writers_are_left_unordered_and_said_so() {
    let h = with_init(&[("x", 10)], vec![txn(0, vec![write("x", 11)]), txn(1, vec![write("x", 12)])], &[0, 0, 1, 1]);
    let r = check_default(&h);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!((r.stats.keys, r.stats.ordered_keys), (1, 0));
    // The initial row precedes both writes; nothing orders 11 and 12.
    assert_eq!(r.stats.edges.get("ww"), Some(&2));
    assert_eq!(
        r.stats.blind_spots,
        vec![
            "1 of the 1 keys have versions whose order the history does not show (writes by several transactions, \
             none of which read what the other wrote); a version order is taken only from what the history proves \
             (the initial row first, a transaction's own writes in order, a version read before the same \
             transaction's write of the key, and the database's commit order where the history records it), never \
             from the order in which writers' completions were recorded, so the write-write and anti-dependencies \
             between those writes are not inferred"
        ]
    );
}

/// The false positive of issue 12: T3 read x = 0 and wrote 1, T4 read that 1 and wrote 2, and T4's
/// completion was recorded before T3's (T3's client was descheduled between its commit and recording
/// it). Ordering versions by recorded completion put 2 before 1 and reported a G1c; the reads prove
/// 0 < 1 < 2, and the history is serial.
#[test]
fn a_completion_recorded_late_does_not_reorder_versions_the_reads_prove() {
    let h = with_init(
        &[("x", 0)],
        vec![txn(0, vec![rread("x", Some(0)), write("x", 1)]), txn(1, vec![rread("x", Some(1)), write("x", 2)])],
        &[0, 1, 1, 0],
    );
    let r = check_default(&h);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!((r.stats.keys, r.stats.ordered_keys), (1, 1));
    assert!(r.stats.blind_spots.is_empty(), "{:?}", r.stats.blind_spots);
}

/// The near miss: proven orders still find what they show. T3 read x = 0 and wrote 1; T5 read that 1
/// and wrote y = 2; T7 read x = 0 and y = 2 and wrote x = 3. T7 read 0, which the reads prove was
/// overwritten by T3's 1 (rw), T3's 1 was read by T5 (wr), and T5's 2 was read by T7 (wr): a
/// G-single-item, with the versions of x only partly ordered (0 < 1 and 0 < 3).
#[test]
fn a_read_of_a_version_the_reads_prove_overwritten_is_still_found() {
    let h = with_init(
        &[("x", 0), ("y", 0)],
        vec![
            txn(0, vec![rread("x", Some(0)), write("x", 1)]),
            txn(1, vec![rread("x", Some(0)), rread("y", Some(2)), write("x", 3)]),
            txn(2, vec![rread("x", Some(1)), write("y", 2)]),
        ],
        &[0, 0, 2, 2, 1, 1],
    );
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r).0, Invalid);
    assert!(r.anomaly_types.contains(&"G-single-item".to_string()), "{:?}", r.anomaly_types);
    let cycle = only_cycle(&r, "G-single-item");
    assert_eq!(
        explanations(cycle).iter().find(|e| e.contains("overwritten")).copied(),
        Some(
            r#"T7 read key "x" = 0, which was overwritten by T3's write of 1 (T3 read the first version before it wrote the second)"#
        )
    );
}

#[test]
fn a_second_init_is_an_input_error() {
    let text = r#"{"index":0,"type":"invoke","process":0,"f":"init","value":{"x":1}}
{"index":1,"type":"ok","process":0,"f":"init","value":{"x":1}}
{"index":2,"type":"invoke","process":0,"f":"init","value":{"y":1}}
{"index":3,"type":"ok","process":0,"f":"init","value":{"y":1}}
"#;
    let err = checker::check(&parse(text), &checker::Options::default()).unwrap_err();
    assert_eq!(err.to_string(), "3:1: a second init op (the first is at line 1): the initial rows must be fixed once");
}

#[test]
fn a_second_delete_of_a_key_is_an_input_error() {
    let h = together(&[("x", 1)], vec![txn(0, vec![delete("x")]), txn(1, vec![delete("x")])]);
    let err = checker::check(&h, &checker::Options::default()).unwrap_err();
    assert!(err.to_string().contains("installs version dead of key \"x\" again (it was installed by T4)"), "{err}");
}

#[test]
fn g_nonadjacent_through_a_phantom_and_an_item_anti_dependency() {
    // T6's predicate read missed T7's z = 30; T8 read T7's w but u unborn, before T9 inserted it; T6
    // read T9's v: T6 -rwp-> T7 -wr-> T8 -rw-> T9 -wr-> T6.
    let a = txn(0, vec![rp(THIRDS, &[]), rread("v", Some(7))]);
    let b = txn(1, vec![insert("z", 30), insert("w", 1)]);
    let c = txn(2, vec![rread("w", Some(1)), rread("u", None)]);
    let d = txn(3, vec![insert("u", 5), insert("v", 7)]);
    let h = together(&[("x", 10)], vec![a, b, c, d]);
    let r = check_models(&h, &["snapshot-isolation"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-nonadjacent"], vec!["snapshot-isolation"]));
    assert_eq!(
        steps(only_cycle(&r, "G-nonadjacent")),
        vec![(6, "rwp", "z".into(), 7), (7, "wr", "w".into(), 8), (8, "rw", "u".into(), 9), (9, "wr", "v".into(), 6)]
    );
    // Near miss: T8 read T9's u, so T9 precedes it and the cycle is gone.
    let a = txn(0, vec![rp(THIRDS, &[]), rread("v", Some(7))]);
    let b = txn(1, vec![insert("z", 30), insert("w", 1)]);
    let c = txn(2, vec![rread("w", Some(1)), rread("u", Some(5))]);
    let d = txn(3, vec![insert("u", 5), insert("v", 7)]);
    let h = together(&[("x", 10)], vec![a, b, c, d]);
    assert_eq!(summary(&check_models(&h, &["snapshot-isolation"])), (Valid, vec![], vec![]));
}

#[test]
fn a_read_overwritten_by_a_transaction_that_wrote_the_key_twice_is_an_anti_dependency_on_it() {
    // Write skew where T5 writes x twice: T4 read x's initial version, which T5's first write (an
    // intermediate version) overwrote; T5's final version is the next one others can see. T4 -rw-> T5
    // all the same.
    let t4 = txn(0, vec![rread("x", Some(10)), rread("y", Some(20)), write("y", 21)]);
    let t5 = txn(1, vec![rread("x", Some(10)), rread("y", Some(20)), write("x", 11), write("x", 12)]);
    let h = together(&[("x", 10), ("y", 20)], vec![t4, t5]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G2-item"], vec!["repeatable-read"]));
    let cycle = only_cycle(&r, "G2-item");
    assert_eq!(steps(cycle), vec![(4, "rw", "x".into(), 5), (5, "rw", "y".into(), 4)]);
    // Near miss: T4 read T5's final x, so T5 precedes T4 on x; only T4's write of y follows T5's read.
    let t4 = txn(0, vec![rread("x", Some(12)), rread("y", Some(20)), write("y", 21)]);
    let t5 = txn(1, vec![rread("x", Some(10)), rread("y", Some(20)), write("x", 11), write("x", 12)]);
    let h = together(&[("x", 10), ("y", 20)], vec![t5, t4]);
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
}

/// Found by the oracle (`tests/oracle`): a read of `nil` names no one version of a key that was both
/// unborn and deleted. T3 read x unborn and deleted it; T5, after it, read x dead and inserted 2. Both
/// read `nil` and wrote x, yet no update was lost: T3 T5 is a serial order.
#[test]
fn lost_update_near_miss_nil_read_before_and_after_a_delete() {
    let txns =
        vec![ok_mops(0, vec![rread("x", None), delete("x")]), ok_mops(1, vec![rread("x", None), insert("x", 2)])];
    let h = with_init(&[], txns, &[0, 0, 1, 1]);
    let r = check_models(&h, &["serializable"]);
    assert_ne!(r.valid, Invalid, "{:?}", r.anomaly_types);
    assert!(!r.anomaly_types.iter().any(|a| a == "lost-update"), "{:?}", r.anomaly_types);
    // Without the delete, both read the unborn row and inserted it: one insert was lost.
    let txns =
        vec![ok_mops(0, vec![rread("x", None), insert("x", 1)]), ok_mops(1, vec![rread("x", None), insert("x", 2)])];
    let h = with_init(&[], txns, &[0, 1, 0, 1]);
    let r = check_models(&h, &["serializable"]);
    assert_eq!(r.valid, Invalid);
    assert_eq!(only_case(&r, "lost-update").txns, vec![4, 5]);
}

/// T5 wrote x = 1, T6 wrote x = 2 and y = 2, T7 read x = 1 and y = 2, all concurrent: only the
/// database's commit order says whether T7 missed T6's x.
fn skewed_rows() -> histories::History {
    together(
        &[("x", 0), ("y", 0)],
        vec![
            txn(0, vec![write("x", 1)]),
            txn(1, vec![write("x", 2), write("y", 2)]),
            txn(2, vec![rread("x", Some(1)), rread("y", Some(2))]),
        ],
    )
}

#[test]
fn a_commit_order_orders_blind_writes_of_rows_and_exposes_the_cycle_the_reads_hide() {
    let h = skewed_rows();
    let unordered = check_models(&h, &["serializable"]);
    assert_eq!(summary(&unordered), (Valid, vec![], vec![]), "unordered, it looks valid");
    assert_eq!((unordered.stats.keys, unordered.stats.ordered_keys), (2, 1));

    let r = check_models(&with_commit_order(&h, &[(5, 10), (6, 11), (7, 12)]), &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    let cycle = only_cycle(&r, "G-single-item");
    assert_eq!(steps(cycle), vec![(6, "wr", "y".into(), 7), (7, "rw", "x".into(), 6)]);
    assert_eq!(
        explanations(cycle)[1],
        r#"T7 read key "x" = 1, which was overwritten by T6's write of 2 (the database's commit order places T5 (position 10) before T6 (position 11))"#
    );
    assert_eq!((r.stats.keys, r.stats.ordered_keys), (2, 2), "every key's versions are ordered");
    assert!(r.stats.blind_spots.is_empty(), "{:?}", r.stats.blind_spots);
    assert_eq!(r.checked.commit_ordered, 3);

    // The near miss: T6 committed first, then T5 overwrote x with 1; T7 read the latest of both.
    let near = check_models(&with_commit_order(&h, &[(5, 11), (6, 10), (7, 12)]), &["strict-serializable"]);
    assert_eq!(summary(&near), (Valid, vec![], vec![]));
    assert_eq!(near.stats.ordered_keys, 2);
}

#[test]
fn a_commit_order_exposes_a_phantom_behind_a_blind_write() {
    // T5 inserted z = 30 and wrote x = 11; T6 wrote x = 13 blind; T7 read x = 13 and missed z. With T5
    // committed before T6: T5 -ww-> T6 -wr-> T7 -rwp-> T5.
    let h = together(
        &[("x", 10)],
        vec![
            txn(0, vec![insert("z", 30), write("x", 11)]),
            txn(1, vec![write("x", 13)]),
            txn(2, vec![rread("x", Some(13)), rp(THIRDS, &[])]),
        ],
    );
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]));
    let r = check_models(&with_commit_order(&h, &[(5, 1), (6, 2), (7, 3)]), &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single"], vec!["consistent-view"]));
    let cycle = only_cycle(&r, "G-single");
    assert_eq!(steps(cycle), vec![(5, "ww", "x".into(), 6), (6, "wr", "x".into(), 7), (7, "rwp", "z".into(), 5)]);
    // T6 first: T7's read of 13 was overwritten by T5's 11, which also inserted z: no cycle.
    let near = check_models(&with_commit_order(&h, &[(5, 2), (6, 1), (7, 3)]), &["strict-serializable"]);
    assert_eq!(summary(&near), (Valid, vec![], vec![]));
}

#[test]
fn a_predicate_read_of_a_row_the_commit_order_inserts_later_is_an_incompatible_order() {
    // T5 returned T4's row z = 30, and the database says T4 committed after T5.
    let h =
        together(&[("x", 10)], vec![txn(0, vec![insert("z", 30)]), txn(1, vec![rp(True, &[("x", 10), ("z", 30)])])]);
    let r = check_models(&with_commit_order(&h, &[(4, 9), (5, 3)]), &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["incompatible-order"], vec!["read-committed"]));
    let case = only_case(&r, "incompatible-order");
    assert_eq!(case.txns, vec![4, 5]);
    assert_eq!(
        case.explanation,
        r#"T5 read key "z" = 30, which T4 wrote; yet the database's commit order places T4 (position 9) after T5 (position 3): the reader saw a write before it was committed, or the order is wrong"#
    );
    let near = check_models(&with_commit_order(&h, &[(4, 3), (5, 9)]), &["strict-serializable"]);
    assert_eq!(summary(&near), (Valid, vec![], vec![]));
    // Two transactions at one position contradict any commit order, in predicate histories as well.
    let shared = check_models(&with_commit_order(&h, &[(4, 3), (5, 3)]), &["read-committed"]);
    assert_eq!(only_case(&shared, "incompatible-order").txns, vec![4, 5]);
}
