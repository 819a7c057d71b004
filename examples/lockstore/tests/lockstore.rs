//! lockstore through isocheck, both ways: the store as written checks valid on list-append and
//! rw-register, runs one transaction at a time by the overlap test, and shows no anomaly in any Hermitage
//! scenario; with its planted defect (no turns) Hermitage's scripted interleavings, which do not depend
//! on timing, show exactly the anomalies dirty reads and writes imply.

use std::sync::Arc;
use std::time::Duration;

use adapters::{Level, System};
use checker::Validity;
use isocheck::workload_spec::WorkloadKind;
use lockstore::{LockStore, checks};

#[test]
fn the_store_checks_valid_on_list_append_and_rw_register() {
    let system: Arc<dyn System> = Arc::new(LockStore::new());
    for workload in [WorkloadKind::ListAppend, WorkloadKind::RwRegister] {
        let result = checks::run(&system, workload, Level::Serializable, 4, 2000, 7).expect("the run");
        assert_eq!(result.valid, Validity::Valid, "{workload:?}: {:?}", result.anomaly_types);
        assert!(result.anomaly_types.is_empty());
    }
}

#[test]
fn the_overlap_test_finds_one_transaction_at_a_time_and_says_it_is_by_design() {
    let system: Arc<dyn System> = Arc::new(LockStore::new());
    // A lock held from begin to commit makes a round take at least clients x hold, however busy the
    // machine: the verdict cannot come out concurrent.
    let summary = checks::overlap(&system, 3, Duration::from_millis(30), 2).expect("the rounds");
    assert_eq!(summary.verdict, "serialized", "{summary:?}");
    assert!(summary.note.as_deref().is_some_and(|n| n.contains("one turn")), "{summary:?}");
}

#[test]
fn hermitage_shows_no_anomaly_on_the_store_and_every_dirty_one_without_turns() {
    let cells = checks::hermitage(&LockStore::new(), Level::Serializable).expect("the scenarios");
    assert_eq!(cells.len(), 16);
    let shown: Vec<_> = cells.iter().filter(|c| !c.checker.is_empty()).map(|c| &c.anomaly).collect();
    assert!(shown.is_empty(), "{shown:?}");

    let cells = checks::hermitage(&LockStore::without_turns(), Level::Serializable).expect("the scenarios");
    let shown: Vec<(String, Vec<String>)> =
        cells.into_iter().filter(|c| !c.checker.is_empty()).map(|c| (c.anomaly, c.checker)).collect();
    let expected = [
        ("G1a", "G1a"),
        ("G1b", "G1b"),
        ("G1c", "G1c"),
        ("PMP", "G-single"),
        ("P4", "lost-update"),
        ("G-single", "G-single-item"),
        ("G-single-dependencies", "G-single-item"),
        ("G-single-write-1", "G-single-item"),
        ("G2-item", "G2-item"),
        ("G2", "G2"),
        ("G2-two-edges", "G2-item"),
        ("read-only", "G2-item"),
    ];
    let expected: Vec<(String, Vec<String>)> =
        expected.iter().map(|(s, c)| (s.to_string(), vec![c.to_string()])).collect();
    assert_eq!(shown, expected);
}
