//! What each of Elle's register assumptions adds to the version order, and what the checker says when
//! a history gives it too little order to see anything: the verdict stays as Elle's (valid, or unknown
//! on an empty graph), but `stats` and `blind_spots` tell "clean" from "could not see". Where a model is
//! decided exactly, the writes inference could not order are no blind spot: every order was covered.

use checker::Validity::{Unknown, Valid};

use crate::support::*;

#[test]
fn writes_nobody_read_across_transactions_leave_the_checker_nearly_blind() {
    // Three writes of x and one of y, one at a time; each transaction reads only its own write.
    let h = sequential_of(registers(&["wx1", "wx2", "wy1ry1", "wx3"]));
    let r = check_default(&h);
    assert_eq!(summary(&r), (Valid, vec![], vec![]), "real-time edges make the graph non-empty");
    assert_eq!((r.stats.keys, r.stats.ordered_keys), (2, 1), "y has one write; x's three are unordered");
    assert_eq!(r.stats.edges.keys().collect::<Vec<_>>(), vec!["realtime"]);
    // The exact decision covered every order of x's writes (three pairs), so only the reads are a blind spot.
    assert_eq!(r.checked.unordered_pairs, 3);
    assert_eq!(
        r.stats.blind_spots,
        vec![
            "no transaction read a value another transaction wrote, so there is no wr dependency: nothing shows what \
             one transaction saw of another's writes",
        ]
    );
    // Read committed is decided by inference alone, which says what it could not order.
    let weak = check_models(&h, &["read-committed"]);
    assert_eq!(
        weak.stats.blind_spots[0],
        "1 of the 1 keys written more than once have writes the checker could not order: a register read shows \
         one value, not the writes before it, so without --wfr-keys, --sequential-keys or --linearizable-keys \
         (assumptions about the system) two writes of a key are never ordered, and no ww dependency, nor any rw \
         dependency but from a read of nil, can be inferred"
    );
    // Serializability needs no real-time order, so there is no dependency at all: unknown, as in Elle.
    let serializable = check_models(&h, &["serializable"]);
    assert_eq!(summary(&serializable), (Unknown, vec!["empty-transaction-graph"], vec![]));
    assert_eq!(serializable.stats.blind_spots.len(), 1);
}

#[test]
fn linearizable_keys_orders_what_real_time_shows_and_says_so() {
    let h = sequential_of(registers(&["wx1", "wx2", "wy1ry1", "wx3"]));
    let r = check_with(&h, &assuming(&["serializable"], &[], &["linearizable-keys"]));
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!((r.stats.keys, r.stats.ordered_keys), (2, 2));
    assert_eq!(r.stats.edges.get("ww"), Some(&2));
    assert_eq!(
        r.stats.blind_spots,
        vec![
            "no transaction read a value another transaction wrote, so there is no wr dependency: nothing shows what \
             one transaction saw of another's writes"
        ]
    );
}

#[test]
fn a_history_whose_reads_order_every_key_has_no_blind_spot() {
    let h = sequential_of(registers(&["wx1", "rx1wx2", "rx2"]));
    let r = check_with(&h, &assuming(&[], &[], &["wfr-keys"]));
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.ordered_keys, 1);
    assert!(r.stats.blind_spots.is_empty(), "{:?}", r.stats.blind_spots);
    // Without the assumption 1 and 2 are unordered: inference alone says so, and the exact decision covers
    // both orders.
    let blind = check_models(&h, &["read-committed"]);
    assert_eq!(blind.stats.ordered_keys, 0);
    assert_eq!(blind.stats.blind_spots.len(), 1);
    assert!(blind.stats.blind_spots[0].starts_with("1 of the 1 keys written more than once"));
    let exact = check_default(&h);
    assert_eq!(summary(&exact), (Valid, vec![], vec![]));
    assert_eq!((exact.stats.ordered_keys, exact.checked.unordered_pairs), (0, 1));
    assert!(exact.stats.blind_spots.is_empty(), "{:?}", exact.stats.blind_spots);
}

#[test]
fn an_assumption_that_leaves_writes_unordered_is_named() {
    // Two concurrent writers: neither real time nor either process orders them.
    let h = concurrent_of(registers(&["wx1", "wx2", "rx2"]));
    let r = check_with(&h, &assuming(&["read-committed"], &[], &["sequential-keys", "linearizable-keys"]));
    assert_eq!(
        r.stats.blind_spots,
        vec![
            "1 of the 1 keys written more than once have writes the version order leaves unordered even assuming \
             sequential-keys, linearizable-keys: no ww dependency, and no rw dependency but from a read of nil, can \
             be inferred between those writes"
        ]
    );
    assert_eq!(r.checked.assumptions, vec!["sequential-keys", "linearizable-keys"]);
}

#[test]
fn sequential_keys_follows_each_process_and_skips_failed_and_unknown_transactions() {
    // Process 0 wrote 1, a failed write of 2 and an unknown write of 3 came between, then it read 4;
    // the order 1 < 4 comes from process 0 alone.
    let txns = vec![rok(0, "wx1"), rfail(0, "wx2"), rok(1, "wx4"), rok(0, "rx4")];
    let h = sequential_of(txns);
    let r = check_with(&h, &assuming(&["serializable"], &[], &["sequential-keys"]));
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.edges.get("ww"), Some(&1), "T1 -ww-> T5 on x: 1 < 4");
}

#[test]
fn linearizable_keys_orders_versions_along_real_time() {
    // T1 wrote 1; then T4 and T5 overlapped, writing 2 and 3. Real time orders 1 before 2 and 3, but
    // not 2 against 3.
    let txns = vec![rok(0, "wx1"), rok(1, "wx2"), rok(2, "wx3")];
    let h = interleaved(txns.clone(), &[0, 0, 1, 2, 1, 2]);
    let r = check_with(&h, &assuming(&["strict-serializable"], &[], &["linearizable-keys"]));
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.edges.get("ww"), Some(&2), "T1 -ww-> T4 and T1 -ww-> T5");
    assert_eq!(r.stats.ordered_keys, 0, "2 and 3 stay unordered");
    // T7, invoked after both completed, read 3: so 2 < 3 too, and x's order is total.
    let mut txns = txns;
    txns.push(rok(3, "rx3"));
    let h = interleaved(txns, &[0, 0, 1, 2, 1, 2, 3, 3]);
    let r = check_with(&h, &assuming(&["strict-serializable"], &[], &["linearizable-keys"]));
    assert_eq!(summary(&r), (Valid, vec![], vec![]));
    assert_eq!(r.stats.edges.get("ww"), Some(&3), "and T4 -ww-> T5");
    assert_eq!(r.stats.ordered_keys, 1);
}
