//! What a check looks for and how it reads the history: consistency models (`--model`, default
//! strict-serializable) and specific anomalies (`--anomaly`, with Elle's umbrella classes such as `G1`,
//! `G2`, `G-single`); the workload the micro-ops belong to (`--workload`, detected when absent); and
//! Elle's register-inference assumptions (`--wfr-keys`, `--sequential-keys`, `--linearizable-keys`). As
//! in Elle, a model prohibits its anomalies and everything that implies them; a named anomaly prohibits
//! itself and everything that implies it; asking only for anomalies checks only those. This module owns
//! the names and that expansion; the lattice behind it is `consistency_model`'s, detecting the workload
//! is `workload`'s.

use std::collections::BTreeSet;

use crate::consistency_model::{self as cm, UNKNOWN_ANOMALIES};
use crate::error::CheckError;

/// The workload a history's micro-ops are read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Workload {
    /// Elle's list-append: `[append k v]` and `[r k list]`.
    ListAppend,
    /// Elle's rw-register: `[w k v]` and `[r k v]`.
    RwRegister,
    /// Elle's closed-predicate: an `init` op fixing the initial rows, then `[insert k v]`, `[delete k]`,
    /// `[w k v]`, `[r k v]` and predicate reads `[rp pred rows]`.
    ClosedPredicate,
}

impl Workload {
    /// Every workload the checker reads.
    pub const ALL: [Workload; 3] = [Workload::ListAppend, Workload::RwRegister, Workload::ClosedPredicate];

    /// The workload's name, as Elle's namespace names it.
    pub fn name(self) -> &'static str {
        match self {
            Workload::ListAppend => "list-append",
            Workload::RwRegister => "rw-register",
            Workload::ClosedPredicate => "closed-predicate",
        }
    }

    /// The workload of this name.
    pub fn parse(name: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == name)
    }
}

/// Elle's assumptions for inferring a register's version order beyond its initial state
/// (`elle.rw-register`'s `:wfr-keys?`, `:sequential-keys?`, `:linearizable-keys?`). Each is a claim
/// about the system, not something the history shows: a system that breaks it can be reported for
/// anomalies it does not have. Only rw-register histories use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Inference {
    /// Within a transaction, a write of a key follows the version the transaction read of it.
    pub wfr_keys: bool,
    /// Each key is sequentially consistent: a process sees its versions in order.
    pub sequential_keys: bool,
    /// Each key is linearizable: versions follow real-time order.
    pub linearizable_keys: bool,
}

impl Inference {
    /// The names of the assumptions made, as the flags spell them (`wfr-keys`, ...).
    pub fn names(self) -> Vec<&'static str> {
        [
            (self.wfr_keys, "wfr-keys"),
            (self.sequential_keys, "sequential-keys"),
            (self.linearizable_keys, "linearizable-keys"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }

    /// Whether any assumption is made.
    pub fn any(self) -> bool {
        self.wfr_keys || self.sequential_keys || self.linearizable_keys
    }
}

/// What to check for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    models: Vec<String>,
    anomalies: Vec<String>,
    workload: Option<Workload>,
    inference: Inference,
    solver_budget: std::time::Duration,
    witness: bool,
    every_step: bool,
    /// Whether the exact decision decides every model asked for, even those inference rules out
    /// (`Online::check_held`, before it retires: a prefix's inference may rule out what the finished
    /// history's does not).
    exact_regardless: bool,
}

/// How long the exact decision of one model may take by default before its verdict is `unknown`.
pub const DEFAULT_SOLVER_BUDGET: std::time::Duration = std::time::Duration::from_secs(60);

impl Default for Options {
    /// Strict serializability, Elle's default; the workload detected; no register assumptions.
    fn default() -> Self {
        Options {
            models: vec!["strict-serializable".into()],
            anomalies: Vec::new(),
            workload: None,
            inference: Inference::default(),
            solver_budget: DEFAULT_SOLVER_BUDGET,
            witness: false,
            every_step: false,
            exact_regardless: false,
        }
    }
}

impl Options {
    /// Checks these models and anomalies. With neither, strict serializability; with only anomalies,
    /// only those anomalies.
    pub fn new(models: &[String], anomalies: &[String]) -> Result<Options, CheckError> {
        for model in models {
            if cm::canonical_model_name(model).is_none() {
                let known: Vec<&str> = cm::all_models().into_iter().collect();
                return Err(CheckError::UnknownModel { name: model.clone(), known: known.join(", ") });
            }
        }
        for anomaly in anomalies {
            if cm::anomaly_name(anomaly).is_none() {
                let known: Vec<&str> = cm::all_anomalies().into_iter().collect();
                return Err(CheckError::UnknownAnomaly { name: anomaly.clone(), known: known.join(", ") });
            }
        }
        if models.is_empty() && anomalies.is_empty() {
            return Ok(Options::default());
        }
        Ok(Options { models: models.to_vec(), anomalies: anomalies.to_vec(), ..Options::default() })
    }

    /// Reads the history as this workload, or detects it from the micro-ops (`None`).
    pub fn with_workload(mut self, workload: Option<Workload>) -> Options {
        self.workload = workload;
        self
    }

    /// Infers register version orders with these assumptions.
    pub fn with_inference(mut self, inference: Inference) -> Options {
        self.inference = inference;
        self
    }

    /// Gives the exact decision of each model at most `budget` (see [`crate::CheckResult::witness`]);
    /// past it, that model's verdict is unknown.
    pub fn with_solver_budget(mut self, budget: std::time::Duration) -> Options {
        self.solver_budget = budget;
        self
    }

    /// Asks for a witness when a model decided exactly holds, even where inference alone could decide it.
    pub fn with_witness(mut self, witness: bool) -> Options {
        self.witness = witness;
        self
    }

    /// Runs every step of a check even where fewer decide the same verdict (for now: the dependency
    /// graph and its cycle search when only the weak levels are asked for, which their exact check
    /// decides alone). For the tests that hold such a shortcut to the full check, and for benchmarks.
    pub fn with_every_step(mut self, every_step: bool) -> Options {
        self.every_step = every_step;
        self
    }

    /// Decides every model asked for exactly, even those inference rules out (see `Online::check_held`).
    pub(crate) fn deciding_regardless_of_inference(mut self) -> Options {
        self.exact_regardless = true;
        self
    }

    /// Whether every model asked for is decided exactly, inference or not.
    pub(crate) fn exact_regardless(&self) -> bool {
        self.exact_regardless
    }

    /// Whether every step of a check runs, shortcuts or not (see [`Options::with_every_step`]).
    pub fn every_step(&self) -> bool {
        self.every_step
    }

    /// How long the exact decision of one model may take.
    pub fn solver_budget(&self) -> std::time::Duration {
        self.solver_budget
    }

    /// Whether a witness is asked for.
    pub fn witness(&self) -> bool {
        self.witness
    }

    /// The workload asked for, if any.
    pub fn workload(&self) -> Option<Workload> {
        self.workload
    }

    /// The register-inference assumptions.
    pub fn inference(&self) -> Inference {
        self.inference
    }

    /// The models asked for.
    pub fn models(&self) -> &[String] {
        &self.models
    }

    /// The anomalies asked for besides the models'.
    pub fn anomalies(&self) -> &[String] {
        &self.anomalies
    }

    /// The anomalies whose presence makes the history invalid.
    pub fn prohibited(&self) -> BTreeSet<&'static str> {
        let mut prohibited = cm::anomalies_prohibited_by(self.models.iter().map(String::as_str));
        prohibited.extend(cm::anomalies_implying(self.anomalies.iter().map(String::as_str)));
        prohibited
    }

    /// The anomalies worth reporting: the prohibited ones, and those that make a verdict unknown.
    pub fn reportable(&self) -> BTreeSet<&'static str> {
        let mut reportable = self.prohibited();
        reportable.extend(UNKNOWN_ANOMALIES);
        reportable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_are_refused_with_the_known_ones() {
        let err = Options::new(&["serialisable".into()], &[]).unwrap_err();
        assert!(err.to_string().contains("unknown consistency model \"serialisable\""));
        assert!(err.to_string().contains("strict-serializable"));
        assert!(Options::new(&[], &["G3".into()]).unwrap_err().to_string().contains("unknown anomaly \"G3\""));
    }

    #[test]
    fn asking_only_for_anomalies_checks_only_them() {
        let only = Options::new(&[], &["G1".into()]).unwrap();
        let prohibited = only.prohibited();
        assert!(prohibited.contains("G1a") && prohibited.contains("G1c") && prohibited.contains("G0"));
        assert!(!prohibited.contains("G2-item"), "G2-item does not imply G1");
        assert!(Options::default().prohibited().contains("G2-item"));
    }
}
