//! Judging a run: its history checked against the options (the invariants of a scenario workload and,
//! where it is sound on the workload's micro-ops, the dependency graph), with the flags its timing
//! raises (zero aborts under contention, resource aborts, transactions that ran one at a time, a cluster
//! that ran degraded or with almost all commits on one node). Every
//! command that runs a workload, and the benchmarks, judge a run here. The checks themselves are the
//! `checker` crate's; rendering the verdict is `findings`'.

use checker::invariants::{GraphCheck, GraphPolicy};
use std::collections::BTreeMap;

use checker::{CheckError, CheckResult, Checked, Options, Stats, Validity, timing};
use histories::History;

use adapters::{Level, System};

use crate::runner::resource_aborts::resource_aborts;
use crate::runner::workload::TxnSource;
use crate::runner::{RunOutcome, cluster_health};

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
    let (mut result, graph_check) =
        check_with_invariants(&outcome.history, options, source.name(), source.graph_policy())?;
    result.flags.extend(timing::zero_abort_under_contention(&outcome.history, level.promised_model()));
    result.flags.extend(resource_aborts(outcome.fail, &outcome.causes, &outcome.messages));
    result.flags.extend(cluster_health::degraded_cluster(&outcome.history, cluster_health::DOWN_THRESHOLD));
    let per_node = crate::runner::cluster_health::commits_per_node(&outcome.history);
    result.flags.extend(cluster_health::one_node_commits(&outcome.history, &per_node));
    if let Some(holds) = source.holds() {
        let timing = holds.timing(clients);
        result.flags.extend(timing::fully_serialized(&timing, "run", system.serialized_by_design()));
    }
    Ok((result, graph_check))
}

/// A streamed run's verdict from its online rounds (`Online::finish`'s `anomalies`), when that needs
/// nothing of the history in memory: the workload's graph check is required (list-append and
/// rw-register: no invariants, no micro-op left unread, no final transaction after the rounds), the
/// rounds found the history valid, and `zero-abort-under-contention` does not fire on the contended pairs
/// the stream counted (`checker::timing::ContentionStream`; a run it flags is read back, so that the
/// flag's examples are the whole history's, as is one whose pairs the stream could not count and that
/// aborted nothing). The flags are those the run's counts raise (resource aborts, one node's commits,
/// holds one at a time); the statistics are the counts the stream tallied (no edges, components or
/// ordered keys: no graph of the whole history was built). `None` when the history must be read back and
/// judged by [`judge`].
pub fn judge_streamed(
    outcome: &RunOutcome,
    anomalies: &BTreeMap<String, Vec<checker::Anomaly>>,
    source: &dyn TxnSource,
    options: &Options,
    level: Level,
    clients: usize,
    system: &dyn System,
) -> Option<(CheckResult, GraphCheck)> {
    let tally = &outcome.streamed.as_ref()?.tally;
    // A final transaction runs after the rounds' last check: the verdict must be the file's.
    if source.graph_policy() != GraphPolicy::Required || source.final_plan().is_some() {
        return None;
    }
    let flagged = match &tally.contention {
        Some(contention) => timing::zero_abort_flag(contention, level.promised_model()).is_some(),
        None => tally.fail == 0,
    };
    if flagged {
        return None;
    }
    let stats = Stats {
        ops: tally.ops,
        txns: tally.txns,
        ok: tally.ok,
        fail: tally.fail,
        info: tally.info,
        keys: tally.keys,
        counts_only: true,
        ..Stats::default()
    };
    let checked = Checked {
        workload: source.name().to_string(),
        models: options.models().to_vec(),
        anomalies: options.anomalies().to_vec(),
        ..Checked::default()
    };
    let mut result = checker::result_of(anomalies.clone(), options, stats, checked);
    if result.valid != Validity::Valid {
        return None;
    }
    result.flags.extend(resource_aborts(outcome.fail, &outcome.causes, &outcome.messages));
    result.flags.extend(cluster_health::one_node_commits_among(tally.nodes.len(), &tally.commits_per_node));
    if let Some(holds) = source.holds() {
        let timing = holds.timing(clients);
        result.flags.extend(timing::fully_serialized(&timing, "run", system.serialized_by_design()));
    }
    Some((result, GraphCheck::Checked))
}

/// Checks a scenario's history (bank, write skew): its invariants, and the dependency graph where it
/// applies (`checker::invariants::check_history`), with a spinner on stderr while it runs and its
/// figures in the log.
pub fn check_with_invariants(
    history: &History,
    options: &Options,
    workload: &str,
    graph: GraphPolicy<'_>,
) -> Result<(CheckResult, GraphCheck), CheckError> {
    let spinner = crate::progress::spinner(format!("checking {} operations", history.len()));
    let result = checker::invariants::check_history(history, options, workload, graph);
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use adapters::{EngineSystem, SqliteBegin, SqliteSystem};
    use histories::Format;

    use super::*;
    use crate::runner::workload::{Holds, TxnPlan};

    /// A transaction source that ran nothing and reports fixed holds: 40 of 10 ms that spanned `busy`.
    struct Held {
        busy: Duration,
    }

    impl TxnSource for Held {
        fn name(&self) -> &str {
            "list-append"
        }
        fn parameters(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
        fn next(&self, _client: usize) -> Option<TxnPlan> {
            None
        }
        fn holds(&self) -> Option<Holds> {
            let hold = Duration::from_millis(10);
            Some(Holds { hold, count: 40, busy: self.busy, slept: hold * 40 })
        }
    }

    /// A saved two-transaction list-append history, valid, run on `system` by 4 clients with `source`'s
    /// holds.
    fn judged(system: &dyn System, source: &Held) -> CheckResult {
        let text = r#"{"type":"invoke","process":0,"time":0,"value":[["append",1,1]]}
{"type":"ok","process":0,"time":10,"value":[["append",1,1]]}
{"type":"invoke","process":1,"time":20,"value":[["r",1,null]]}
{"type":"ok","process":1,"time":30,"value":[["r",1,[1]]]}"#;
        let history = histories::parse(text, Format::JsonLines, "held.jsonl").expect("a valid history");
        let outcome = RunOutcome {
            history,
            elapsed: Duration::from_millis(400),
            ok: 2,
            fail: 0,
            info: 0,
            causes: BTreeMap::new(),
            messages: BTreeMap::new(),
            ended_early: None,
            online: None,
            streamed: None,
        };
        let options = Options::new(&["serializable".to_string()], &[]).expect("a model");
        let (result, _) = judge(&outcome, source, &options, Level::Serializable, 4, system).expect("judged");
        assert_eq!(result.valid, checker::Validity::Valid);
        result
    }

    #[test]
    fn holds_one_at_a_time_are_flagged_and_sqlite_says_that_is_its_design() {
        let serial = Held { busy: Duration::from_millis(400) };
        let sqlite = SqliteSystem::new(SqliteBegin::Deferred).expect("SQLite opens");
        let flags = judged(&sqlite, &serial).flags;
        let names: Vec<&str> = flags.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["fully-serialized"]);
        assert!(flags[0].message.contains("SQLite's documented design"), "{}", flags[0].message);
        let engine = judged(&EngineSystem::new(None), &serial).flags;
        assert_eq!(engine.len(), 1);
        assert!(!engine[0].message.contains("documented design") && engine[0].message.contains("global lock"));
    }

    #[test]
    fn holds_at_once_raise_no_flag() {
        let at_once = Held { busy: Duration::from_millis(110) };
        assert!(judged(&EngineSystem::new(None), &at_once).flags.is_empty());
    }
}
