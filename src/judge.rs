//! Judging a run: its history checked against the options (the invariants of a scenario workload and,
//! where it is sound on the workload's micro-ops, the dependency graph), with the flags its timing
//! raises (zero aborts under contention, resource aborts, transactions that ran one at a time). Every
//! command that runs a workload, and the benchmarks, judge a run here. The checks themselves are the
//! `checker` crate's; rendering the verdict is `findings`'.

use checker::invariants::GraphCheck;
use checker::{CheckError, CheckResult, Options, timing};
use histories::History;

use adapters::{Level, System};

use crate::runner::RunOutcome;
use crate::runner::resource_aborts::resource_aborts;
use crate::runner::workload::TxnSource;

/// A run's verdict: its history checked (invariants and, where sound, the dependency graph), with the
/// flags its timing raises, and how far the graph check went.
pub fn judge(
    outcome: &RunOutcome,
    source: &dyn TxnSource,
    options: &Options,
    level: Level,
    clients: usize,
    system: &dyn System,
) -> Result<(CheckResult, GraphCheck), CheckError> {
    let fallback = source.name() != "list-append";
    let unsound = source.graph_check_unsound();
    let (mut result, graph_check) = check_with_invariants(&outcome.history, options, source.name(), unsound, fallback)?;
    result.flags.extend(timing::zero_abort_under_contention(&outcome.history, level.promised_model()));
    result.flags.extend(resource_aborts(outcome.fail, &outcome.causes, &outcome.messages));
    if let Some(holds) = source.holds() {
        let timing = holds.timing(clients);
        result.flags.extend(timing::fully_serialized(&timing, "run", system.serialized_by_design()));
    }
    Ok((result, graph_check))
}

/// Checks a scenario's history (bank, write skew): its invariants, and the dependency graph where it
/// applies (`checker::invariants::check_history`), with a spinner on stderr while it runs and its
/// figures in the log.
pub fn check_with_invariants(
    history: &History,
    options: &Options,
    workload: &str,
    unsound: Option<&str>,
    fallback: bool,
) -> Result<(CheckResult, GraphCheck), CheckError> {
    let spinner = crate::progress::spinner(format!("checking {} operations", history.len()));
    let result = checker::invariants::check_history(history, options, workload, unsound, fallback);
    spinner.finish_and_clear();
    if let Ok((result, graph)) = &result {
        log::info!(
            "checked {} transactions and {} invariants (graph check: {}), verdict {}",
            result.stats.txns,
            result.invariants.len(),
            graph.describe(),
            findings::verdict_word(result.valid)
        );
    }
    result
}
