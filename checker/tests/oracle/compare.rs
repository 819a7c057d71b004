//! Comparing the checker with the serial search on one generated history: for `serializable` and
//! `strict-serializable`, and for rw-register under each combination of Elle's assumptions, the checker
//! must not call the history invalid when a serial order explains it (soundness); and on traceable
//! list-append histories, and on every rw-register one (whose serializable and strict-serializable
//! verdicts are exact), it must call it invalid when none does (completeness). This module owns that
//! comparison and the words of a disagreement; generating and searching are the other modules'.

use checker::{Inference, Options, Validity, check};

use super::generate::{Flavor, Generated};
use super::serial_search::SerialSearch;

/// The models compared.
pub const MODELS: [&str; 2] = ["serializable", "strict-serializable"];

/// What one comparison found.
#[derive(Debug, Default)]
pub struct Comparison {
    /// Whether a serial order explains the history, and one respecting real time, with no assumption.
    pub serializable: bool,
    pub strict_serializable: bool,
    /// Each disagreement, in words.
    pub disagreements: Vec<String>,
}

/// The assumptions compared for a workload: every combination for rw-register, none elsewhere.
fn inferences(flavor: Flavor) -> Vec<Inference> {
    match flavor {
        Flavor::RwRegister => (0..8u8)
            .map(|bits| Inference {
                wfr_keys: bits & 1 != 0,
                sequential_keys: bits & 2 != 0,
                linearizable_keys: bits & 4 != 0,
            })
            .collect(),
        _ => vec![Inference::default()],
    }
}

/// Checks the generated history every way and searches it every way, and says where they disagree.
pub fn compare(generated: &Generated) -> Comparison {
    let history = generated.history();
    let search = SerialSearch::new(&history);
    let mut comparison = Comparison::default();
    for inference in inferences(generated.flavor) {
        for model in MODELS {
            let strict = model == "strict-serializable";
            let witness = search.order(strict, inference);
            if !inference.any() {
                match strict {
                    false => comparison.serializable = witness.is_some(),
                    true => comparison.strict_serializable = witness.is_some(),
                }
            }
            let options = Options::new(&[model.to_string()], &[])
                .expect("a known model")
                .with_workload(Some(generated.flavor.workload()))
                .with_inference(inference);
            let assuming = match inference.names() {
                names if names.is_empty() => String::new(),
                names => format!(" assuming {}", names.join(", ")),
            };
            let result = match check(&history, &options) {
                Ok(result) => result,
                Err(e) => {
                    comparison.disagreements.push(format!("{model}{assuming}: the checker refused the history: {e}"));
                    continue;
                }
            };
            match (&witness, result.valid) {
                (Some(order), Validity::Invalid) => {
                    let order: Vec<String> = order.iter().map(|i| format!("T{i}")).collect();
                    comparison.disagreements.push(format!(
                        "false positive under {model}{assuming}: the checker reports {:?}, yet the serial order {} \
                         explains every read",
                        result.anomaly_types,
                        order.join(" ")
                    ));
                }
                (None, valid)
                    if valid != Validity::Invalid
                        && !inference.any()
                        && ((generated.traceable && generated.flavor == Flavor::ListAppend)
                            || generated.flavor == Flavor::RwRegister) =>
                {
                    comparison.disagreements.push(format!(
                        "missed anomaly under {model}: no serial order explains this traceable history, yet the \
                         checker says {valid:?} ({:?})",
                        result.anomaly_types
                    ));
                }
                _ => {}
            }
        }
    }
    comparison
}

/// A disagreement as a report: what disagreed, and the history as shorthand code.
pub fn report(generated: &Generated, comparison: &Comparison) -> String {
    format!(
        "{}\nthe history, in the shorthand of checker/tests/support:\nlet history = {};",
        comparison.disagreements.join("\n"),
        generated.shorthand()
    )
}
