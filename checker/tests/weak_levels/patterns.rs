//! Plume's fourteen patterns, each a saved history in `testdata/weak-levels/` with its exact verdict at
//! each level and the transactions it names, and each with a near-miss (`NAME-near-miss.jsonl`) that
//! differs by one read and must pass where the pattern fails.

use checker::weak_levels::{WeakLevel, verdicts};
use checker::{Anomaly, Options, Validity, check};
use histories::{Format, History, parse};

fn load(name: &str) -> History {
    let path = format!("{}/../testdata/weak-levels/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse(&text, Format::JsonLines, &path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The pattern that breaks each level, weakest first (`None`: the level holds).
type Verdicts = [Option<&'static str>; 3];

/// Each history, the pattern that breaks each level (read committed, read atomic, causal; `None`: the
/// level holds), and the transactions the weakest pattern names (by index, the reader first).
const EXPECTED: &[(&str, Verdicts, &[u64])] = &[
    ("thin-air-read", [Some("thin-air-read"); 3], &[3]),
    ("aborted-read", [Some("aborted-read"); 3], &[3, 1]),
    ("future-read", [Some("future-read"); 3], &[1]),
    ("not-my-own-write", [Some("not-my-own-write"); 3], &[3, 1]),
    ("not-my-last-write", [Some("not-my-last-write"); 3], &[1]),
    ("intermediate-read", [Some("intermediate-read"); 3], &[3, 1]),
    ("cyclic-causal-order", [Some("cyclic-causal-order"); 3], &[1, 3]),
    ("non-monotonic-read-causal", [Some("non-monotonic-read-causal"); 3], &[1, 3, 5]),
    ("non-monotonic-read-arbitration", [Some("non-monotonic-read-arbitration"); 3], &[3, 1, 7, 5]),
    (
        "non-monotonic-read-arbitration-near-miss",
        [None, Some("fractured-read-arbitration"), Some("fractured-read-arbitration")],
        &[],
    ),
    ("non-repeatable-read", [None, Some("non-repeatable-read"), Some("non-repeatable-read")], &[5, 1, 3]),
    ("fractured-read-causal", [None, Some("fractured-read-causal"), Some("fractured-read-causal")], &[1, 3, 5]),
    (
        "fractured-read-arbitration",
        [None, Some("fractured-read-arbitration"), Some("fractured-read-arbitration")],
        &[1, 3, 5],
    ),
    ("causal-conflict-arbitration", [None, None, Some("causal-conflict-arbitration")], &[1, 3, 5, 7]),
    ("conflict-arbitration", [None, None, Some("conflict-arbitration")], &[3, 1, 5, 7, 9]),
    // List-append: T5 reads x = [1] and y = [2], but T3 appended 2 to both, after T1.
    ("list-fractured-read-causal", [None, Some("fractured-read-causal"), Some("fractured-read-causal")], &[1, 3, 5]),
    ("list-fractured-read-causal-near-miss", [None; 3], &[]),
];

const PATTERNS: [&str; 14] = [
    "thin-air-read",
    "aborted-read",
    "future-read",
    "not-my-own-write",
    "not-my-last-write",
    "intermediate-read",
    "cyclic-causal-order",
    "non-monotonic-read-causal",
    "non-monotonic-read-arbitration",
    "non-repeatable-read",
    "fractured-read-causal",
    "fractured-read-arbitration",
    "causal-conflict-arbitration",
    "conflict-arbitration",
];

#[test]
fn each_pattern_breaks_exactly_the_levels_it_should() {
    for &(name, expected, _) in EXPECTED {
        assert_eq!(verdicts(&load(name)).expect("checked"), expected, "{name}");
    }
}

#[test]
fn each_near_miss_holds_at_every_level_its_pattern_breaks() {
    for pattern in PATTERNS {
        let name = format!("{pattern}-near-miss");
        let got = verdicts(&load(&name)).expect("checked");
        let listed = EXPECTED.iter().find(|(n, _, _)| *n == name).map_or([None; 3], |(_, e, _)| *e);
        assert_eq!(got, listed, "{name}");
        let broken = EXPECTED.iter().find(|(n, _, _)| *n == pattern).expect("every pattern is listed").1;
        let weakest = broken.iter().position(Option::is_some).expect("a pattern breaks some level");
        assert_eq!(got[weakest], None, "{name} must hold at level {weakest}, which {pattern} breaks");
    }
}

#[test]
fn a_check_of_each_level_reports_the_pattern_with_its_transactions() {
    for &(name, expected, txns) in EXPECTED.iter().filter(|(n, _, _)| !n.ends_with("near-miss")) {
        for (level, pattern) in WeakLevel::ALL.into_iter().zip(expected) {
            let options = Options::new(&[level.model().to_string()], &[]).expect("a known model");
            let result = check(&load(name), &options).expect("checked");
            let found: Vec<&str> =
                result.anomaly_types.iter().map(String::as_str).filter(|a| PATTERNS.contains(a)).collect();
            match pattern {
                None => assert!(found.is_empty(), "{name} at {}: {found:?}", level.model()),
                Some(p) => {
                    assert_eq!(found, vec![p], "{name} at {}", level.model());
                    assert_eq!(result.valid, Validity::Invalid, "{name} at {}", level.model());
                    assert!(
                        result.not.iter().chain(&result.also_not).any(|m| m == level.model()),
                        "{name}: {:?}",
                        result.not
                    );
                    let Anomaly::Case(case) = &result.anomalies[p][0] else { panic!("{name}: a case") };
                    assert_eq!(case.txns, txns.to_vec(), "{name} at {}: {}", level.model(), case.explanation);
                    assert_eq!(case.facts["pattern"], p, "{name}");
                }
            }
        }
    }
}

#[test]
fn elles_read_committed_passes_a_non_monotonic_read_that_biswas_and_enea_read_committed_rejects() {
    let history = load("non-monotonic-read-causal");
    let check_model = |model: &str| check(&history, &Options::new(&[model.to_string()], &[]).expect("a known model"));
    let adya = check_model("read-committed").expect("checked");
    assert_eq!((adya.valid, adya.anomaly_types.clone()), (Validity::Valid, vec![]), "PL-2 sees no write-write order");
    let cerone = check_model("read-committed-cerone").expect("checked");
    assert_eq!(cerone.valid, Validity::Invalid);
    assert_eq!(cerone.anomaly_types, vec!["non-monotonic-read-causal"]);
    assert_eq!(cerone.not, vec!["read-committed-cerone"]);
}
