//! The online checker's rule for rw-register against the exhaustive oracle, as `online.rs` does for
//! list-append: every generated register history (committed, failed and indeterminate transactions,
//! overlapping, completions recorded late) is cut after each of its operations and each prefix checked
//! in a round, with the workload said, under `serializable` and `strict-serializable`, with none and
//! with all of Elle's assumptions. What a round reports as standing must hold of the finished history:
//! a standing prohibited anomaly means the brute-force search finds no serial order of the whole
//! history (under the same assumptions), and every model a standing anomaly rules out, the ordinary
//! check of the whole history rules out too. The tally shows the rounds do report early.

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
fn what_a_register_prefix_reports_as_standing_the_finished_history_shows() {
    let strategy = recipe(Flavor::RwRegister);
    let mut runner = TestRunner::new(config(1));
    let all = Inference { wfr_keys: true, sequential_keys: true, linearizable_keys: true };
    let (mut early, mut standing, mut prohibited) = (0, 0, 0);
    for case in 0..CASES {
        let generated = strategy.new_tree(&mut runner).expect("recipes never reject").current().simulate();
        let history = generated.history();
        let search = SerialSearch::new(&history);
        for inference in [Inference::default(), all] {
            for model in MODELS {
                let options = Options::new(&[model.to_string()], &[])
                    .expect("a known model")
                    .with_workload(Some(Workload::RwRegister))
                    .with_inference(inference);
                let whole = check(&history, &options).expect("the generated history checks");
                let ruled_out = impossible_models(whole.anomaly_types.iter().map(String::as_str));
                let serial = search.order(model == "strict-serializable", inference);
                let mut online = Online::new(options.clone());
                let ops = history.ops();
                for cut in 1..=ops.len() {
                    let prefix = History::from_ops(ops[..cut].to_vec()).expect("a prefix of a history is one");
                    for found in online.round(&prefix).expect("a prefix checks") {
                        standing += 1;
                        early += usize::from(cut < ops.len());
                        let context = format!(
                            "case {case}, {model}, assuming {:?}, after {cut} of {} ops: {} {:?} stands\n{}",
                            inference.names(),
                            ops.len(),
                            found.name,
                            found.anomaly.txn_indices(),
                            generated.shorthand()
                        );
                        if found.prohibited {
                            prohibited += 1;
                            assert!(
                                serial.is_none(),
                                "{context}, yet the serial order {serial:?} explains the history"
                            );
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
    }
    eprintln!(
        "{standing} standing register anomalies reported ({prohibited} prohibited), {early} before the history ended"
    );
    assert!(early > 0, "no round reported an anomaly before its history ended: the test shows nothing");
    assert!(prohibited > 0, "no standing anomaly was prohibited: the oracle was never asked");
}
