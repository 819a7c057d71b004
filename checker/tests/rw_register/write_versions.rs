//! The version numbers a database gave its writes (`["w", k, v, version]` on `ok` completions): each
//! key's committed writes ordered by number, the cycles that order exposes (each with the same history,
//! unnumbered, checked valid, and a near miss whose numbers explain the reads), and the
//! `incompatible-order` anomalies of numbers that contradict the history itself, each with its near miss.

use checker::Validity::{Invalid, Valid};

use crate::support::*;

/// T3 wrote x = 1, T4 wrote x = 2 and y = 2, T5 read x = 1 and y = 2: concurrent, so nothing but the
/// database's numbers says whether T5 missed T4's x.
fn skewed_read() -> histories::History {
    concurrent_of(registers(&["wx1", "wx2wy2", "rx1ry2"]))
}

#[test]
fn write_versions_order_each_keys_writes_and_expose_the_cycle_the_reads_hide() {
    let h = skewed_read();
    assert_eq!(summary(&check_models(&h, &["serializable"])), (Valid, vec![], vec![]), "unnumbered, it looks valid");

    let numbered = with_write_versions(&h, &[(3, "x", 1), (4, "x", 2), (4, "y", 1)]);
    let r = check_models(&numbered, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["G-single-item"], vec!["consistent-view", "repeatable-read"]));
    let cycle = only_cycle(&r, "G-single-item");
    assert_eq!(steps(cycle), vec![(4, "wr", "y".into(), 5), (5, "rw", "x".into(), 4)]);
    assert_eq!(
        explanations(cycle)[1],
        r#"T5 read key "x" = 1, and T4 set it to 2, which came later in the version order (the database numbered T3's write of key "x" version 1 and T4's version 2)"#
    );
    assert_eq!(r.stats.ordered_keys, r.stats.keys, "every key's writes are ordered");
    assert!(r.stats.blind_spots.is_empty(), "{:?}", r.stats.blind_spots);
    assert_eq!((r.checked.numbered_writes, r.checked.commit_ordered), (3, 0));
}

#[test]
fn write_versions_that_explain_the_reads_are_valid() {
    // T4's x is version 1 and T3 overwrote it with version 2: T5 read the latest of both keys.
    let numbered = with_write_versions(&skewed_read(), &[(3, "x", 2), (4, "x", 1), (4, "y", 1)]);
    let r = check_models(&numbered, &["strict-serializable"]);
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.ordered_keys, r.stats.keys);
}

#[test]
fn numbers_need_not_be_consecutive_and_order_only_the_writes_that_carry_them() {
    // Gaps (a rolled-back writer's number, a transaction's own intermediate writes) order as well; an
    // indeterminate transaction's number is no evidence (it may never have committed) and stays out.
    let h = concurrent_of(vec![rok(0, "wx1"), rok(1, "wx2"), rinfo(2, "wx3")]);
    let numbered = with_write_versions(&h, &[(3, "x", 10), (4, "x", 40), (5, "x", 40)]);
    let r = check_models(&numbered, &["serializable"]);
    assert_eq!(summary(&r), (Valid, vec![], vec![]), "no incompatible-order from the info transaction's number");
    assert_eq!(r.checked.numbered_writes, 2);
    assert_eq!((r.stats.ordered_keys, r.stats.keys), (0, 1), "3 stays unordered");
}

#[test]
fn two_committed_writes_of_one_version_are_an_incompatible_order() {
    // Both wrote x as version 5: one overwrote the other without seeing it.
    let h = concurrent_of(registers(&["wx1", "wx2", "rx2"]));
    let r = check_models(&with_write_versions(&h, &[(3, "x", 5), (4, "x", 5)]), &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["incompatible-order"], vec!["read-committed"]));
    let case = only_case(&r, "incompatible-order");
    assert_eq!(case.txns, vec![3, 4]);
    assert_eq!(
        case.explanation,
        r#"T3 (which wrote 1), T4 (which wrote 2) all committed version 5 of key "x", which the database numbers once: one overwrote another without seeing it (a lost update), or the numbering is not exact"#
    );
    let near = check_models(&with_write_versions(&h, &[(3, "x", 5), (4, "x", 6)]), &["strict-serializable"]);
    assert_eq!(summary(&near), (Valid, vec![], vec![]));
}

#[test]
fn a_failed_transactions_numbered_write_is_an_incompatible_order() {
    let h = concurrent_of(vec![rok(0, "wx1"), rfail(1, "wx2"), rok(2, "rx1")]);
    let r = check_models(&with_write_versions(&h, &[(3, "x", 1), (4, "x", 2)]), &["read-committed"]);
    assert_eq!(summary(&r), (Invalid, vec!["incompatible-order"], vec!["read-committed"]));
    let case = only_case(&r, "incompatible-order");
    assert_eq!(case.txns, vec![4]);
    assert_eq!(
        case.explanation,
        r#"T4 failed, so it had no effect; yet its write of key "x" = 2 carries version 2, a number the database gives a committed version"#
    );
    let near = check_models(&with_write_versions(&h, &[(3, "x", 1)]), &["strict-serializable"]);
    assert_eq!(summary(&near), (Valid, vec![], vec![]));
}

#[test]
fn installing_a_version_numbered_no_later_than_the_one_read_is_an_incompatible_order() {
    // T3 read x = 1, version 4 (T2's), then wrote x = 2 as version 4.
    let h = concurrent_of(registers(&["wx1", "rx1wx2"]));
    let r = check_models(&with_write_versions(&h, &[(2, "x", 4), (3, "x", 4)]), &["read-committed"]);
    assert!(summary(&r).1.contains(&"incompatible-order"), "{:?}", summary(&r));
    let case = r.anomalies["incompatible-order"]
        .iter()
        .find_map(|a| match a {
            checker::Anomaly::Case(c) if c.explanation.contains("no later than") => Some(c),
            _ => None,
        })
        .expect("the read-then-write contradiction");
    assert_eq!(case.txns, vec![2, 3]);
    assert_eq!(
        case.explanation,
        r#"T3 read key "x" = 1, version 4 (written by T2), and then installed version 4 of it, which the database numbers as no later than the version it had read"#
    );
    // Numbered lower still, the numbers also order T3's write before T2's, which T3 had read: a cycle.
    let lower = check_models(&with_write_versions(&h, &[(2, "x", 4), (3, "x", 3)]), &["read-committed"]);
    assert_eq!(summary(&lower).1, vec!["G1c", "incompatible-order"]);
    let near = check_models(&with_write_versions(&h, &[(2, "x", 4), (3, "x", 5)]), &["strict-serializable"]);
    assert_eq!(summary(&near), (Valid, vec![], vec![]));
}

#[test]
fn numbers_the_commit_order_contradicts_are_dropped_for_that_key() {
    // The commit order puts T2's x = 1 first; the numbers put T3's x = 2 first: a cyclic-versions anomaly
    // naming both sources, and the commit order kept.
    let h = concurrent_of(registers(&["wx1", "wx2"]));
    let both = with_write_versions(&with_commit_order(&h, &[(2, 1), (3, 2)]), &[(2, "x", 2), (3, "x", 1)]);
    let r = check_models(&both, &["serializable"]);
    assert_eq!(summary(&r), (Invalid, vec!["cyclic-versions"], vec!["read-uncommitted"]));
    let case = only_case(&r, "cyclic-versions");
    assert!(case.explanation.contains("initial-state, commit-order, write-version"), "{}", case.explanation);
    assert!(case.explanation.contains("So the write-version order was not used"), "{}", case.explanation);
    let agreeing = with_write_versions(&with_commit_order(&h, &[(2, 1), (3, 2)]), &[(2, "x", 1), (3, "x", 2)]);
    assert_eq!(summary(&check_models(&agreeing, &["strict-serializable"])), (Valid, vec![], vec![]));
}
