//! What one run or check concluded, gathered for the renderers: the check result, where the history
//! came from, and, for a run, what the run did (its summary and its completions over time). Every
//! renderer (`html`, `markdown`, `junit`) takes a [`Report`]; a side-by-side report of several runs
//! would hold several, and reuse the same sections and pictures.

use checker::CheckResult;
use checker::shrink::Shrunk;
use histories::History;

use crate::activity::Activity;
use crate::replay::Replays;
use crate::run_summary::RunSummary;

/// The result of one invariant check (a bank total, the doctors on call): workloads that have
/// invariants report them here, each with the figures behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Invariant {
    /// The invariant's name (`total-conserved`, `never-negative`).
    pub name: String,
    /// Whether it held throughout.
    pub holds: bool,
    /// What was checked, and where it broke.
    pub message: String,
    /// The measured figures.
    pub figures: serde_json::Map<String, serde_json::Value>,
    /// When it broke though the models checked do not promise it: the anomalies they permit that can
    /// break it (such a break leaves the verdict as it is).
    pub permitted: Option<Vec<String>>,
}

impl Invariant {
    /// Whether it broke where the models checked promise it would hold.
    pub fn fails(&self) -> bool {
        !self.holds && self.permitted.is_none()
    }
}

impl From<&checker::Invariant> for Invariant {
    /// A scenario invariant as the checker decided it (its evidence, the transactions that broke it, is in
    /// the explanation and in `findings.json`).
    fn from(invariant: &checker::Invariant) -> Invariant {
        Invariant {
            name: invariant.name.clone(),
            holds: invariant.holds,
            message: invariant.explanation.clone(),
            figures: invariant.figures.clone(),
            permitted: (!invariant.holds && !invariant.promised).then(|| invariant.broken_by.clone()),
        }
    }
}

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
    /// Each reported cycle's step-by-step replay, or why it has none (`generators::replay` decides).
    pub replays: Replays,
}

impl<'a> Report<'a> {
    /// The report of a check of `source`.
    pub fn check(source: impl Into<String>, result: &'a CheckResult) -> Report<'a> {
        let invariants = result.invariants.iter().map(Invariant::from).collect();
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
