//! The database's recorded commit order (`commit_order` on completions): each key's writes ordered by
//! their transactions' positions, the cycles that order exposes (each with the same history, unordered,
//! checked valid, and a near miss whose order explains the reads), and the `incompatible-order`
//! anomalies of an order that contradicts the history itself, each with its near miss.

use checker::Validity::{Invalid, Valid};

use crate::support::*;

/// T3 wrote x = 1, T4 wrote x = 2 and y = 2, T5 read x = 1 and y = 2: concurrent, so nothing but a
/// recorded order says whether T5 missed T4's x.
fn skewed_read() -> histories::History {
    concurrent_of(registers(&["wx1", "wx2wy2", "rx1ry2"]))
}

#[test]
fn a_commit_order_orders_each_keys_writes_and_exposes_the_cycle_the_reads_hide() {
    let h = skewed_read();
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]), "unordered, it looks valid");

    let ordered = with_commit_order(&h, &[(3, 10), (4, 11), (5, 12)]);
    let r = check_models(&ordered, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    let cycle = only_cycle(&r, "G-single-item");
    assert_eq!(steps(cycle), vec![(4, "wr", "y".into(), 5), (5, "rw", "x".into(), 4)]);
    assert_eq!(
        explanations(cycle)[1],
        r#"T5 read key "x" = 1, and T4 set it to 2, which came later in the version order (the database's commit order places T3 (position 10) before T4 (position 11))"#
    );
    assert_eq!(r.stats.ordered_keys, r.stats.keys, "every key's writes are ordered");
    assert!(r.stats.blind_spots.is_empty(), "{:?}", r.stats.blind_spots);
    assert_eq!(r.checked.commit_ordered, 3);
}

#[test]
fn a_commit_order_that_explains_the_reads_is_valid() {
    // T4 committed first, then T3 overwrote x with 1: T5 read the latest of both keys.
    let ordered = with_commit_order(&skewed_read(), &[(3, 11), (4, 10), (5, 12)]);
    let r = check_models(&ordered, &["strict-serializable"]);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.ordered_keys, r.stats.keys);
}

#[test]
fn a_partial_commit_order_orders_only_the_writers_it_places_and_says_so() {
    // T5 wrote x = 3 with no recorded position (say, an indeterminate commit): 3 stays unordered.
    let h = concurrent_of(vec![rok(0, "wx1"), rok(1, "wx2"), rinfo(2, "wx3")]);
    let r = check_models(&with_commit_order(&h, &[(3, 1), (4, 2)]), &["read-committed"]);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!((r.stats.ordered_keys, r.stats.keys), (0, 1));
    assert_eq!(r.stats.blind_spots.len(), 2, "{:?}", r.stats.blind_spots);
    assert!(r.stats.blind_spots[0].contains("neither the database's recorded commit order nor the history orders"));
    // Serializability is decided exactly: nobody read T5's write, so it may never have taken effect, and
    // the writes that did are ordered.
    let exact = check_models(&with_commit_order(&h, &[(3, 1), (4, 2)]), &["serializable"]);
    assert_eq!(summary(&exact), (Valid, vec![], vec![]));
    assert_eq!((exact.checked.unordered_pairs, exact.stats.blind_spots.len()), (0, 1));
}

#[test]
fn a_commit_order_against_real_time_is_a_realtime_cycle_under_strict_serializability() {
    // T1 wrote x = 1 and completed before T3 was invoked, yet the database put T3's x = 2 first.
    let h = sequential_of(registers(&["wx1", "wx2"]));
    let ordered = with_commit_order(&h, &[(1, 2), (3, 1)]);
    let r = check_models(&ordered, &["strict-serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G0-realtime"], vec!["strong-read-uncommitted"]));
    assert_eq!(summary(&check_models(&ordered, &["serializable"])), (Valid, vec![], vec![]));
    let in_time = with_commit_order(&h, &[(1, 1), (3, 2)]);
    assert_eq!(summary(&check_models(&in_time, &["strict-serializable"])), (Valid, vec![], vec![]));
}

#[test]
fn two_transactions_at_one_position_are_an_incompatible_order() {
    let h = concurrent_of(registers(&["wx1", "rx1wy2"]));
    let r = check_models(&with_commit_order(&h, &[(2, 7), (3, 7)]), &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["incompatible-order"], vec!["read-committed"]));
    let case = only_case(&r, "incompatible-order");
    assert_eq!(case.txns, vec![2, 3]);
    assert_eq!(
        case.explanation,
        "T2, T3 are all at position 7 of the database's commit order, which places each transaction once"
    );
    let near = check_models(&with_commit_order(&h, &[(2, 7), (3, 8)]), &["strict-serializable"]);
    assert_eq!(summary(&near), (Valid, vec![], vec![]));
}

#[test]
fn a_failed_transaction_in_the_commit_order_is_an_incompatible_order() {
    let h = concurrent_of(vec![rok(0, "wx1"), rfail(1, "wx2"), rok(2, "rx1")]);
    let r = check_models(&with_commit_order(&h, &[(3, 1), (4, 2)]), &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["incompatible-order"], vec!["read-committed"]));
    let case = only_case(&r, "incompatible-order");
    assert_eq!(case.txns, vec![4]);
    assert_eq!(
        case.explanation,
        "T4 failed, so it had no effect; yet the database placed it at position 2 of its commit order"
    );
    let near = check_models(&with_commit_order(&h, &[(3, 1)]), &["strict-serializable"]);
    assert_eq!(summary(&near), (Valid, vec![], vec![]));
}

#[test]
fn a_read_of_a_write_the_order_commits_later_is_an_incompatible_order() {
    // T3 read x = 1 from T2, and the database says T2 committed after T3.
    let h = concurrent_of(registers(&["wx1", "rx1wy1"]));
    let r = check_models(&with_commit_order(&h, &[(2, 9), (3, 4)]), &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["incompatible-order"], vec!["read-committed"]));
    let case = only_case(&r, "incompatible-order");
    assert_eq!(case.txns, vec![2, 3]);
    assert_eq!(
        case.explanation,
        r#"T3 read key "x" = 1, which T2 wrote; yet the database's commit order places T2 (position 9) after T3 (position 4): the reader saw a write before it was committed, or the order is wrong"#
    );
    assert_eq!(summary(&check_models(&with_commit_order(&h, &[(2, 9), (3, 4)]), &["read-uncommitted"])).0, Valid);
    let near = check_models(&with_commit_order(&h, &[(2, 4), (3, 9)]), &["strict-serializable"]);
    assert_eq!(summary(&near), (Valid, vec![], vec![]));
}

#[test]
fn an_assumption_the_commit_order_contradicts_is_dropped_for_that_key() {
    // Process 0 ran T1 (x = 1) before T3 (x = 2); the database committed x = 2 first. Sequential keys
    // would order 1 before 2: a cyclic-versions anomaly naming both sources, and the recorded order kept.
    let h = interleaved(vec![rok(0, "wx1"), rok(0, "wx2")], &[0, 0, 1, 1]);
    let ordered = with_commit_order(&h, &[(1, 2), (3, 1)]);
    let r = check_with(&ordered, &assuming(&["serializable"], &[], &["sequential-keys"]));
    assert_eq!(summary(&r), (Invalid, vec!["cyclic-versions"], vec!["read-uncommitted"]));
    let case = only_case(&r, "cyclic-versions");
    assert!(case.explanation.contains("initial-state, commit-order, sequential-keys"), "{}", case.explanation);
    assert!(case.explanation.contains("So the sequential-keys order was not used"), "{}", case.explanation);
}
