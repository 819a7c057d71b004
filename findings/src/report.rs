//! What one run or check concluded, gathered for the renderers: the check result, where the history
//! came from, and, for a run, what the run did (its summary and its completions over time). Every
//! renderer (`html`, `markdown`, `junit`) takes a [`Report`]; a side-by-side report of several runs
//! would hold several, and reuse the same sections and pictures.

use checker::shrink::Shrunk;
use checker::{CheckResult, Invariant};
use histories::History;

use crate::activity::Activity;
use crate::replay::Replays;
use crate::run_summary::RunSummary;

/// One run's or check's findings, ready to render.
#[derive(Debug, Clone)]
pub struct Report<'a> {
    /// Where the history came from (its path, or `<stdin>`).
    pub source: String,
    /// The checker's result.
    pub result: &'a CheckResult,
    /// What the run did, for a run.
    pub run: Option<RunSummary>,
    /// Invariants the workload checked (none for list-append).
    pub invariants: Vec<Invariant>,
    /// Completions over time, when the history recorded times.
    pub activity: Option<Activity>,
    /// The history shrunk to what shows the anomaly, when it was shrunk (shown first).
    pub shrunk: Option<&'a Shrunk>,
    /// Each reported cycle's step-by-step replay, or why it has none (the `replay` crate decides).
    pub replays: Replays,
}

impl<'a> Report<'a> {
    /// The report of a check of `source`.
    pub fn check(source: impl Into<String>, result: &'a CheckResult) -> Report<'a> {
        let invariants = result.invariants.clone();
        Report {
            source: source.into(),
            result,
            run: None,
            invariants,
            activity: None,
            shrunk: None,
            replays: Replays::default(),
        }
    }

    /// Adds the completions over time of the history checked.
    pub fn with_history(mut self, history: &History) -> Report<'a> {
        self.activity = Activity::of(history);
        self
    }

    /// Adds what the run did.
    pub fn with_run(mut self, run: RunSummary) -> Report<'a> {
        self.run = Some(run);
        self
    }

    /// Adds each reported cycle's replay.
    pub fn with_replays(mut self, replays: Replays) -> Report<'a> {
        self.replays = replays;
        self
    }

    /// Adds the shrunk history.
    pub fn with_shrunk(mut self, shrunk: &'a Shrunk) -> Report<'a> {
        self.shrunk = Some(shrunk);
        self
    }

    /// Adds invariant results.
    pub fn with_invariants(mut self, invariants: Vec<Invariant>) -> Report<'a> {
        self.invariants = invariants;
        self
    }

    /// The report's title: the system and level for a run, else the history's source.
    pub fn title(&self) -> String {
        match &self.run {
            Some(run) => format!("isocheck run: {} at {}, {}", run.db, run.isolation, run.workload),
            None => format!("isocheck check: {}", self.source),
        }
    }

    /// Whether any invariant the models checked promise broke.
    pub fn invariant_broken(&self) -> bool {
        self.invariants.iter().any(Invariant::fails)
    }
}
