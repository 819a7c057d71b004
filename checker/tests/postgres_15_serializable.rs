//! The four PostgreSQL 15.18 SERIALIZABLE histories kept in `testdata/postgres-15-serializable/` (copied
//! unchanged from `../shared/histories/postgres-15-serializable/`; provenance in the README there): each
//! is invalid for serializable with exactly one G2-item on exactly the transactions the README names, and
//! valid for snapshot isolation, which permits that cycle (two adjacent anti-dependencies). The three
//! three-transaction cycles carry the read-only-anomaly shape with their roles; the four-transaction one,
//! whose transactions all wrote, carries none.

use std::path::{Path, PathBuf};

use checker::{Anomaly, Kind, Options, Shape, Validity, check};

fn history(name: &str) -> histories::History {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/postgres-15-serializable").join(name);
    histories::read_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn options(model: &str) -> Options {
    Options::new(&[model.to_string()], &[]).expect("a known model")
}

/// A cycle's steps as (from, kind, to).
type Steps = Vec<(u64, Kind, u64)>;

/// Checks `name` for serializable and returns its only anomaly's cycle, its steps and its shape.
fn only_g2_item(name: &str) -> (Vec<u64>, Steps, Option<Shape>) {
    let result = check(&history(name), &options("serializable")).expect("the history checks");
    assert_eq!(result.valid, Validity::Invalid, "{name}");
    assert_eq!(result.anomaly_types, vec!["G2-item"], "{name}");
    assert_eq!(result.not, vec!["repeatable-read"], "{name}");
    let anomalies = &result.anomalies["G2-item"];
    assert_eq!(anomalies.len(), 1, "{name}");
    let Anomaly::Cycle(cycle) = &anomalies[0] else { panic!("{name}: a cycle") };
    let steps = cycle.steps.iter().map(|s| (s.from, s.kind, s.to)).collect();
    (cycle.cycle.clone(), steps, cycle.shape.clone())
}

fn valid_under_snapshot_isolation(name: &str) {
    let result = check(&history(name), &options("snapshot-isolation")).expect("the history checks");
    assert_eq!((result.valid, result.anomaly_types.len()), (Validity::Valid, 0), "{name}: {:?}", result.anomaly_types);
}

#[test]
fn e_s3103_is_the_read_only_anomaly_t3604_t3606_t3620() {
    let (cycle, steps, shape) = only_g2_item("E-s3103.jsonl");
    assert_eq!(cycle, vec![3606, 3620, 3604]);
    assert_eq!(steps, vec![(3606, Kind::Wr, 3620), (3620, Kind::Rw, 3604), (3604, Kind::Rw, 3606)]);
    assert_eq!(shape, Some(Shape::ReadOnlyAnomaly { read_only: 3620, pivot: 3604, t_out: 3606 }));
    valid_under_snapshot_isolation("E-s3103.jsonl");
}

#[test]
fn e_s3108_is_the_read_only_anomaly_t1950_t1952_t1960() {
    let (cycle, steps, shape) = only_g2_item("E-s3108.jsonl");
    assert_eq!(cycle, vec![1952, 1960, 1950]);
    assert_eq!(steps, vec![(1952, Kind::Wr, 1960), (1960, Kind::Rw, 1950), (1950, Kind::Rw, 1952)]);
    assert_eq!(shape, Some(Shape::ReadOnlyAnomaly { read_only: 1960, pivot: 1950, t_out: 1952 }));
    valid_under_snapshot_isolation("E-s3108.jsonl");
}

#[test]
fn e_s3292_is_the_read_only_anomaly_t1386_t1388_t1392() {
    let (cycle, steps, shape) = only_g2_item("E-s3292.jsonl");
    assert_eq!(cycle, vec![1388, 1392, 1386]);
    assert_eq!(steps, vec![(1388, Kind::Wr, 1392), (1392, Kind::Rw, 1386), (1386, Kind::Rw, 1388)]);
    assert_eq!(shape, Some(Shape::ReadOnlyAnomaly { read_only: 1392, pivot: 1386, t_out: 1388 }));
    valid_under_snapshot_isolation("E-s3292.jsonl");
}

#[test]
fn b_s1059_is_a_four_transaction_g2_item_without_a_read_only_transaction() {
    let (cycle, steps, shape) = only_g2_item("B-s1059.jsonl");
    assert_eq!(cycle, vec![772, 774, 778, 800]);
    assert_eq!(steps, vec![(772, Kind::Ww, 774), (774, Kind::Wr, 778), (778, Kind::Rw, 800), (800, Kind::Rw, 772)]);
    // T778 sits where T_in would, but it appended too: not the read-only anomaly.
    assert_eq!(shape, None);
    valid_under_snapshot_isolation("B-s1059.jsonl");
}
