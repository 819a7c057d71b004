//! A check asked only for the weak levels builds no dependency graph and searches no cycle, since the
//! exact check of those levels decides the verdict alone (`Options::with_every_step` turns that
//! shortcut off); rw-register histories only. Here the shortcut and the full check reach the same
//! verdict, model by model, on every saved weak-levels history and on seeded random rw-register and
//! list-append histories (those of the oracles), and both verdicts occur.

use checker::{Options, Validity, check};
use histories::{Format, History, parse};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The model sets asked for: each weak level alone, and two together.
const MODEL_SETS: &[&[&str]] =
    &[&["read-committed-cerone"], &["read-atomic"], &["causal-cerone"], &["read-committed-cerone", "causal-cerone"]];

/// Random histories of each workload.
const HISTORIES: usize = 4_000;

/// Checks `history` against each model set with and without the shortcut; panics naming `what` where
/// they differ, and returns the verdicts.
fn both_ways(history: &History, what: &str) -> Vec<Validity> {
    MODEL_SETS
        .iter()
        .map(|models| {
            let models: Vec<String> = models.iter().map(|m| m.to_string()).collect();
            let options = Options::new(&models, &[]).expect("known models");
            let short = check(history, &options).unwrap_or_else(|e| panic!("{what}: {e}"));
            let full = check(history, &options.clone().with_every_step(true)).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(
                short.valid, full.valid,
                "{what} at {models:?}: the shortcut says {:?} ({:?}), the full check {:?} ({:?})",
                short.valid, short.anomaly_types, full.valid, full.anomaly_types
            );
            short.valid
        })
        .collect()
}

#[test]
fn the_shortcut_and_the_full_check_agree_on_every_saved_weak_levels_history() {
    let dir = format!("{}/../testdata/weak-levels", env!("CARGO_MANIFEST_DIR"));
    let mut verdicts = Vec::new();
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).expect("testdata/weak-levels").flatten().map(|e| e.path()).collect();
    files.sort();
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl")) {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let history = parse(&text, Format::JsonLines, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        verdicts.extend(both_ways(&history, &name));
    }
    assert!(files.len() >= 28, "the fourteen patterns and their near-misses, found {}", files.len());
    assert!(verdicts.contains(&Validity::Valid) && verdicts.contains(&Validity::Invalid), "{verdicts:?}");
}

#[test]
fn the_shortcut_and_the_full_check_agree_on_seeded_random_register_histories_and_list_ones_take_none() {
    let mut seen = Vec::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(44);
    for i in 0..HISTORIES {
        let history = super::oracle::history(&super::oracle::generate(&mut rng));
        seen.extend(both_ways(&history, &format!("rw-register history {i}")));
    }
    // List-append histories take no shortcut (`weak_levels::decide_alone`), but the two checks must
    // still agree: the full one adds the weak levels' G1c where its own search finds none.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4444);
    for i in 0..HISTORIES {
        let history = super::oracle_lists::history(&super::oracle_lists::generate(&mut rng));
        seen.extend(both_ways(&history, &format!("list-append history {i}")));
    }
    for verdict in [Validity::Valid, Validity::Invalid] {
        assert!(seen.contains(&verdict), "no history was {verdict:?}");
    }
}
