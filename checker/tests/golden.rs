//! Golden results: every saved history in `testdata/` and `examples/` (the Elle ones included), and two
//! seeded generated ones (saved as `testdata/golden/generated-*-s7.jsonl`, which the `generators` tests
//! hold to be exactly what the generators write for that seed), checked under several option sets, and the whole result JSON (verdict,
//! anomalies with their cycles, steps and explanations, the models ruled out, statistics) compared byte for
//! byte with the output committed in `testdata/golden/`. This is what proves a change made for speed
//! changed no verdict and no word: any difference fails, naming the file and the first differing line.
//!
//! After a change that is meant to alter a result, rewrite the expected outputs with
//! `ISOCHECK_BLESS=1 cargo test -p checker --test tests golden::` and review the diff like code.

use std::path::{Path, PathBuf};

use checker::{Inference, Options, check};
use histories::History;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The option sets a history is checked under, by the name its golden file carries.
fn option_sets(register: bool) -> Vec<(&'static str, Options)> {
    let models = |m: &[&str]| Options::new(&m.iter().map(|s| s.to_string()).collect::<Vec<_>>(), &[]).expect("models");
    let mut sets = vec![
        ("strict-serializable", models(&["strict-serializable"])),
        ("serializable", models(&["serializable"])),
        ("snapshot-isolation", models(&["snapshot-isolation", "repeatable-read"])),
        ("read-committed", models(&["read-committed"])),
    ];
    if register {
        let both = Inference { wfr_keys: true, linearizable_keys: true, sequential_keys: false };
        let sequential = Inference { sequential_keys: true, ..Inference::default() };
        sets.push(("wfr-linearizable-keys", models(&["strict-serializable"]).with_inference(both)));
        sets.push(("sequential-keys", models(&["serializable"]).with_inference(sequential)));
    }
    sets
}

/// Checks `history` under every option set and compares each result with `testdata/golden/NAME.SET.json`,
/// or writes it there when `ISOCHECK_BLESS` is set. Returns the mismatches, so one run names them all.
fn compare(name: &str, history: &History, register: bool) -> Vec<String> {
    let bless = std::env::var_os("ISOCHECK_BLESS").is_some();
    let mut mismatches = Vec::new();
    for (set, options) in option_sets(register) {
        let result = check(history, &options).unwrap_or_else(|e| panic!("{name} under {set}: {e}"));
        let got = serde_json::to_string_pretty(&result).expect("a result serializes") + "\n";
        let path = root().join("testdata/golden").join(format!("{name}.{set}.json"));
        if bless {
            std::fs::write(&path, &got).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (ISOCHECK_BLESS=1 writes it)", path.display()));
        if got != expected {
            let line = got
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b)
                .map_or_else(|| got.lines().count().min(expected.lines().count()) + 1, |i| i + 1);
            mismatches.push(format!("{}: differs from line {line}", path.display()));
        }
    }
    mismatches
}

/// Every history file kept in the repository for checking: `testdata/*/*.{jsonl,edn,json}` (run.json
/// files aside) and `examples/*.jsonl`.
pub(crate) fn saved_histories() -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("testdata"))
        .expect("testdata/")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_dir() && !p.ends_with("golden"))
        .collect();
    dirs.push(root().join("examples"));
    for dir in dirs {
        let prefix = dir.file_name().and_then(|n| n.to_str()).expect("a UTF-8 name").to_string();
        for entry in std::fs::read_dir(&dir).expect("a directory") {
            let path = entry.expect("a directory entry").path();
            let file = path.file_name().and_then(|n| n.to_str()).expect("a UTF-8 name").to_string();
            let history = ["jsonl", "edn", "json"].iter().any(|ext| path.extension().is_some_and(|e| e == *ext));
            if path.is_file() && history && !file.ends_with(".run.json") {
                let stem = file.rsplit_once('.').map_or(file.as_str(), |(stem, _)| stem);
                found.push((format!("{prefix}-{stem}"), path));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_saved_history_checks_exactly_as_its_golden_result_says() {
    let saved = saved_histories();
    let names: Vec<&str> = saved.iter().map(|(name, _)| name.as_str()).collect();
    // The list itself is pinned, so a history added or lost is noticed here too.
    assert_eq!(
        names,
        [
            "elle-huge-scc",
            "elle-paper-example",
            "elle-readme-example",
            "elle-si-without-g-single",
            "exact-causality-violation",
            "exact-causality-violation-near-miss",
            "exact-long-fork",
            "exact-long-fork-near-miss",
            "exact-lost-update",
            "exact-lost-update-near-miss",
            "exact-read-skew",
            "exact-read-skew-near-miss",
            "exact-session-order-only",
            "exact-session-order-only-near-miss",
            "exact-unshown-appends",
            "exact-unshown-appends-near-miss",
            "exact-unshown-appends-one-order",
            "exact-write-skew",
            "exact-write-skew-near-miss",
            "examples-read-only-anomaly",
            "examples-realtime-g1a-g1c",
            "examples-write-skew",
            "final-reads-lost",
            "final-reads-lost-near-miss-indeterminate",
            "final-reads-lost-near-miss-overlapping",
            "final-reads-register-lost",
            "final-reads-register-lost-near-miss",
            "final-reads-stale",
            "final-reads-stale-near-miss",
            "hermitage-mariadb-pmp-write-read-committed",
            "hermitage-mariadb-pmp-write-repeatable-read",
            "hermitage-mariadb-pmp-write-serializable",
            "postgres-15-serializable-B-s1059",
            "postgres-15-serializable-E-s3103",
            "postgres-15-serializable-E-s3108",
            "postgres-15-serializable-E-s3292",
            "postgres-ssi-commit-window-15.18",
            "postgres-ssi-commit-window-18.6",
            "postgres-ssi-commit-window-control-15.18",
            "postgres-ssi-commit-window-control-18.6",
            "postgres-ssi-summarization-15.18",
            "postgres-ssi-summarization-18.6",
            "postgres-ssi-summarization-control-15.18",
            "postgres-ssi-summarization-control-18.6",
            "replays-read-skews",
            "replays-write-skews",
            "rw-register-ssi-off",
            "rw-register-ssi-off-blind",
            "shrink-ssi-off-g2-item",
            "weak-levels-aborted-read",
            "weak-levels-aborted-read-near-miss",
            "weak-levels-causal-conflict-arbitration",
            "weak-levels-causal-conflict-arbitration-near-miss",
            "weak-levels-conflict-arbitration",
            "weak-levels-conflict-arbitration-near-miss",
            "weak-levels-cyclic-causal-order",
            "weak-levels-cyclic-causal-order-near-miss",
            "weak-levels-fractured-read-arbitration",
            "weak-levels-fractured-read-arbitration-near-miss",
            "weak-levels-fractured-read-causal",
            "weak-levels-fractured-read-causal-near-miss",
            "weak-levels-future-read",
            "weak-levels-future-read-near-miss",
            "weak-levels-intermediate-read",
            "weak-levels-intermediate-read-near-miss",
            "weak-levels-list-fractured-read-causal",
            "weak-levels-list-fractured-read-causal-near-miss",
            "weak-levels-non-monotonic-read-arbitration",
            "weak-levels-non-monotonic-read-arbitration-near-miss",
            "weak-levels-non-monotonic-read-causal",
            "weak-levels-non-monotonic-read-causal-near-miss",
            "weak-levels-non-repeatable-read",
            "weak-levels-non-repeatable-read-near-miss",
            "weak-levels-not-my-last-write",
            "weak-levels-not-my-last-write-near-miss",
            "weak-levels-not-my-own-write",
            "weak-levels-not-my-own-write-near-miss",
            "weak-levels-thin-air-read",
            "weak-levels-thin-air-read-near-miss",
        ]
    );
    let mut mismatches = Vec::new();
    for (name, path) in &saved {
        let history = histories::read_file(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let register = name.starts_with("rw-register");
        mismatches.extend(compare(name, &history, register));
    }
    assert!(mismatches.is_empty(), "results changed:\n{}", mismatches.join("\n"));
}

#[test]
fn seeded_generated_histories_with_aborts_and_lost_outcomes_check_as_their_golden_results_say() {
    let saved = |name: &str| {
        let path = root().join("testdata/golden").join(name);
        histories::read_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let list_append = saved("generated-list-append-s7.jsonl");
    let rw_register = saved("generated-rw-register-s7.jsonl");
    let mut mismatches = compare("generated-list-append-s7", &list_append, false);
    mismatches.extend(compare("generated-rw-register-s7", &rw_register, true));
    assert!(mismatches.is_empty(), "results changed:\n{}", mismatches.join("\n"));
}
