//! The online checker against the exhaustive oracle, fed incrementally: every generated list-append
//! history (committed, failed and indeterminate transactions, overlapping, completions recorded late)
//! is cut after each of its operations, and each prefix is checked in a round, as `check --follow` and
//! `run --online` do. Whatever a round reports as standing must hold of the finished history: under
//! `serializable` and `strict-serializable`, a standing prohibited anomaly means the brute-force search
//! finds no serial order of the whole history; and every model a standing anomaly rules out, the
//! ordinary check of the whole history rules out too. The tally shows the rounds do report early.

use checker::consistency_model::impossible_models;
use checker::{Inference, Online, Options, Workload, check};
use histories::History;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use super::compare::MODELS;
use super::config;
use super::generate::{Flavor, recipe};
use super::serial_search::SerialSearch;

/// Histories fed: each is cut after every operation.
const CASES: usize = 150;

#[test]
fn what_a_prefix_reports_as_standing_the_finished_history_shows() {
    let strategy = recipe(Flavor::ListAppend);
    let mut runner = TestRunner::new(config(1));
    let (mut early, mut standing) = (0, 0);
    for case in 0..CASES {
        let generated = strategy.new_tree(&mut runner).expect("recipes never reject").current().simulate();
        let history = generated.history();
        let search = SerialSearch::new(&history);
        for model in MODELS {
            let options = Options::new(&[model.to_string()], &[])
                .expect("a known model")
                .with_workload(Some(Workload::ListAppend));
            let whole = check(&history, &options).expect("the generated history checks");
            let ruled_out = impossible_models(whole.anomaly_types.iter().map(String::as_str));
            let serial = search.order(model == "strict-serializable", Inference::default());
            let mut online = Online::new(options.clone());
            let ops = history.ops();
            for cut in 1..=ops.len() {
                let prefix = History::from_ops(ops[..cut].to_vec()).expect("a prefix of a history is one");
                for found in online.round(&prefix).expect("a prefix checks") {
                    standing += 1;
                    early += usize::from(cut < ops.len());
                    let context = format!(
                        "case {case}, {model}, after {cut} of {} ops: {} {:?} stands\n{}",
                        ops.len(),
                        found.name,
                        found.anomaly.txn_indices(),
                        generated.shorthand()
                    );
                    if found.prohibited {
                        assert!(serial.is_none(), "{context}, yet the serial order {serial:?} explains the history");
                    }
                    let by_it = impossible_models([found.name.as_str()]);
                    assert!(
                        by_it.is_subset(&ruled_out),
                        "{context}, ruling out {by_it:?}, but the whole only {ruled_out:?}"
                    );
                }
            }
        }
    }
    eprintln!("{standing} standing anomalies reported, {early} before the history ended");
    assert!(early > 0, "no round reported an anomaly before its history ended: the test shows nothing");
}
