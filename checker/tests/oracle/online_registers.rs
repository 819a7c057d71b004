//! The online checker's rule for rw-register against the exhaustive oracle, as `online.rs` does for
//! list-append: every generated register history (committed, failed and indeterminate transactions,
//! overlapping, completions recorded late) is cut after each of its operations and each prefix checked
//! in a round, with the workload said, under `serializable` and `strict-serializable`, with none and
//! with all of Elle's assumptions. What a round reports as standing must hold of the finished history:
//! a standing prohibited anomaly means the brute-force search finds no serial order of the whole
//! history (under the same assumptions), and every model a standing anomaly rules out, the ordinary
//! check of the whole history rules out too. The tally shows the rounds do report early.

use checker::Inference;

use super::generate::{Flavor, Recorded};
use super::online::standing_against_the_oracle;

#[test]
fn what_a_register_prefix_reports_as_standing_the_finished_history_shows() {
    let all = Inference { wfr_keys: true, sequential_keys: true, linearizable_keys: true };
    let tally = standing_against_the_oracle(Flavor::RwRegister, &[Inference::default(), all], Recorded::Nothing);
    eprintln!(
        "{} standing register anomalies reported ({} prohibited), {} before the history ended",
        tally.standing, tally.prohibited, tally.early
    );
    assert!(tally.early > 0, "no round reported an anomaly before its history ended: the test shows nothing");
    assert!(tally.prohibited > 0, "no standing anomaly was prohibited: the oracle was never asked");
}

#[test]
fn what_a_positioned_register_prefix_reports_as_standing_the_finished_history_shows() {
    // The database's commit positions recorded: cycles through read-write and write-write edges stand
    // too, and each must be ruled out by the whole history's check.
    let tally = standing_against_the_oracle(Flavor::RwRegister, &[Inference::default()], Recorded::Positions);
    eprintln!(
        "{} standing positioned register anomalies reported ({} prohibited), {} before the history ended",
        tally.standing, tally.prohibited, tally.early
    );
    assert!(tally.early > 0, "no round reported an anomaly before its history ended: the test shows nothing");
    assert!(tally.prohibited > 0, "no standing anomaly was prohibited");
}

#[test]
fn what_a_numbered_register_prefix_reports_as_standing_the_finished_history_shows() {
    // The database's version numbers recorded instead (PostgreSQL, MariaDB): each key's order only grows
    // too, so cycles through read-write and write-write edges stand, each ruled out by the whole check.
    let tally = standing_against_the_oracle(Flavor::RwRegister, &[Inference::default()], Recorded::Numbers);
    eprintln!(
        "{} standing numbered register anomalies reported ({} prohibited), {} before the history ended",
        tally.standing, tally.prohibited, tally.early
    );
    assert!(tally.early > 0, "no round reported an anomaly before its history ended: the test shows nothing");
    assert!(tally.prohibited > 0, "no standing anomaly was prohibited");
}
