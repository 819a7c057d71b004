//! The real Jepsen histories kept in `testdata/elle/` (copied unchanged from `../shared/histories/elle/`): each parses and checks, with the
//! verdicts Elle gives them.

use std::path::{Path, PathBuf};
use std::time::Instant;

use checker::{Anomaly, Options, Validity, check};

fn elle(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/elle").join(name)
}

#[test]
fn huge_scc_is_invalid_with_its_realtime_cycle_and_the_search_finishes() {
    let history = histories::read_file(&elle("huge-scc.edn")).unwrap();
    let started = Instant::now();
    let result = check(&history, &Options::default()).unwrap();
    eprintln!("checked in {:?}: {:?} {:?}", started.elapsed(), result.anomaly_types, result.stats);
    assert_eq!(result.valid, Validity::Invalid);
    assert!(!result.anomaly_types.iter().any(|t| t == "cycle-search-timeout"));
    // Elle gives up on this component after G2-item-realtime; a complete search finds the G-single it
    // could only prove exists (its strong-snapshot-isolation-cycle-exists), so the boundary is the same.
    assert_eq!(result.anomaly_types, vec!["G-single-item-realtime"]);
    assert_eq!(result.not, vec!["strong-snapshot-isolation"]);
    let Anomaly::Cycle(cycle) = &result.anomalies["G-single-item-realtime"][0] else { panic!("a cycle") };
    assert_eq!(cycle.steps.iter().filter(|s| s.kind == checker::Kind::Rw).count(), 1);
    assert!(cycle.steps.iter().any(|s| s.kind == checker::Kind::Realtime));
}

#[test]
fn the_paper_example_checks_as_elle_says() {
    let history = histories::read_file(&elle("paper-example.edn")).unwrap();
    let result = check(&history, &Options::default()).unwrap();
    // The paper's example: T1 < T2 < T3 < T1, a G-single.
    assert_eq!(result.valid, Validity::Invalid);
    assert_eq!(result.anomaly_types, vec!["G-single-item"]);
    let Anomaly::Cycle(cycle) = &result.anomalies["G-single-item"][0] else { panic!("a cycle") };
    assert_eq!(cycle.cycle, vec![3, 5, 7]);
    let kinds: Vec<&str> = cycle.steps.iter().map(|s| s.kind.name()).collect();
    assert_eq!(kinds, vec!["wr", "ww", "rw"]);
    assert_eq!(cycle.steps[2].explanation, "T7 did not observe T3's append of 8 to 255");
}

#[test]
fn si_without_g_single_is_snapshot_isolation_but_not_repeatable_read() {
    // Despite its name, Elle's own test of this history expects exactly G2-item: it is SI.
    let history = histories::read_file(&elle("si-without-g-single.edn")).unwrap();
    let both = Options::new(&["snapshot-isolation".into(), "repeatable-read".into()], &[]).unwrap();
    let result = check(&history, &both).unwrap();
    assert_eq!(result.valid, Validity::Invalid);
    assert_eq!(result.anomaly_types, vec!["G2-item"]);
    assert_eq!(result.not, vec!["repeatable-read"]);
    let si = check(&history, &Options::new(&["snapshot-isolation".into()], &[]).unwrap()).unwrap();
    assert_eq!(si.valid, Validity::Valid);
}

#[test]
fn the_readme_example_has_only_completions_and_is_the_g1c_elle_reports() {
    let history = histories::read_file(&elle("readme-example.edn")).unwrap();
    let result = check(&history, &Options::new(&["serializable".into()], &[]).unwrap()).unwrap();
    assert_eq!(result.anomaly_types, vec!["G1c"]);
    assert_eq!(result.not, vec!["read-committed"]);
    let Anomaly::Cycle(cycle) = &result.anomalies["G1c"][0] else { panic!("a cycle") };
    assert_eq!(cycle.cycle, vec![0, 1]);
    let missing: Vec<(&str, u32, usize)> =
        result.checked.missing_realtime.iter().map(|m| (m.name.as_str(), m.first_line, m.ops)).collect();
    assert_eq!(missing, vec![("completion-without-invoke", 1, 3)]);
}
