//! What a check looks for: consistency models (`--model`, default strict-serializable) and specific
//! anomalies (`--anomaly`, with Elle's umbrella classes such as `G1`, `G2`, `G-single`). As in Elle, a
//! model prohibits its anomalies and everything that implies them; a named anomaly prohibits itself and
//! everything that implies it; asking only for anomalies checks only those. This module owns the names
//! and that expansion; the lattice behind it is `consistency_model`'s.

use std::collections::BTreeSet;

use crate::consistency_model::{self as cm, UNKNOWN_ANOMALIES};
use crate::error::CheckError;

/// The workload a history's micro-ops are read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// Elle's list-append: `[append k v]` and `[r k list]`.
    ListAppend,
}

impl Workload {
    /// The workload's name.
    pub fn name(self) -> &'static str {
        match self {
            Workload::ListAppend => "list-append",
        }
    }
}

/// What to check for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    models: Vec<String>,
    anomalies: Vec<String>,
}

impl Default for Options {
    /// Strict serializability, Elle's default.
    fn default() -> Self {
        Options { models: vec!["strict-serializable".into()], anomalies: Vec::new() }
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
        Ok(Options { models: models.to_vec(), anomalies: anomalies.to_vec() })
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
