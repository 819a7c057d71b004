//! The verdict on each thing a check was asked about: every model (`--model`) and every anomaly
//! (`--anomaly`), as holds, broken (by which anomalies found) or unknown. The checker gives one verdict
//! for the whole history; this splits it along the consistency-model lattice (`checker::consistency_model`,
//! Elle's), so a report can say "snapshot-isolation holds, serializable does not" and a JUnit file can
//! give each model its own test case.

use checker::CheckResult;
use checker::consistency_model::{UNKNOWN_ANOMALIES, anomalies_implying, anomalies_prohibited_by};

/// What a verdict is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// A consistency model asked for.
    Model,
    /// An anomaly asked for (with every anomaly that implies it).
    Anomaly,
}

/// How a model or anomaly fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// Nothing it prohibits was found.
    Holds,
    /// These anomalies, found, rule it out.
    Broken(Vec<String>),
    /// Nothing it prohibits was found, but the checker could not see enough (these say why).
    Unknown(Vec<String>),
}

/// The verdict on one model or anomaly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// A model or an anomaly.
    pub subject: Subject,
    /// Its name, as asked for.
    pub name: String,
    /// How it fared.
    pub standing: Standing,
}

impl Verdict {
    /// `holds`, `broken` or `unknown`.
    pub fn word(&self) -> &'static str {
        match self.standing {
            Standing::Holds => "holds",
            Standing::Broken(_) => "broken",
            Standing::Unknown(_) => "unknown",
        }
    }

    /// Why it fared so, as the verdict tables of the reports (Markdown, HTML) say it.
    pub fn why(&self) -> String {
        match &self.standing {
            Standing::Holds => "nothing it prohibits was found".to_string(),
            Standing::Broken(by) => format!("ruled out by {}", by.join(", ")),
            Standing::Unknown(why) => format!("could not tell: {}", why.join(", ")),
        }
    }

    /// One sentence: what it is and how it fared.
    pub fn sentence(&self) -> String {
        let what = match self.subject {
            Subject::Model => format!("model {}", self.name),
            Subject::Anomaly => format!("anomaly {}", self.name),
        };
        match (&self.standing, self.subject) {
            (Standing::Holds, Subject::Model) => format!("{what} holds: nothing it prohibits was found"),
            (Standing::Holds, Subject::Anomaly) => format!("{what}: not found"),
            (Standing::Broken(by), Subject::Model) => format!("{what} is ruled out by {}", by.join(", ")),
            (Standing::Broken(by), Subject::Anomaly) => format!("{what}: found as {}", by.join(", ")),
            (Standing::Unknown(why), _) => format!("{what}: could not tell ({})", why.join(", ")),
        }
    }
}

/// The verdict on each model, then each anomaly, the check was asked about.
pub fn verdicts(result: &CheckResult) -> Vec<Verdict> {
    let unknown: Vec<String> =
        result.anomaly_types.iter().filter(|a| UNKNOWN_ANOMALIES.contains(&a.as_str())).cloned().collect();
    let decide = |subject: Subject, name: &str| {
        let prohibited = match subject {
            Subject::Model => anomalies_prohibited_by([name]),
            Subject::Anomaly => anomalies_implying([name]),
        };
        let found: Vec<String> =
            result.anomaly_types.iter().filter(|a| prohibited.contains(a.as_str())).cloned().collect();
        let standing = if !found.is_empty() {
            Standing::Broken(found)
        } else if !unknown.is_empty() {
            Standing::Unknown(unknown.clone())
        } else {
            Standing::Holds
        };
        Verdict { subject, name: name.to_string(), standing }
    };
    let checked = &result.checked;
    let models = checked.models.iter().map(|m| decide(Subject::Model, m));
    let anomalies = checked.anomalies.iter().map(|a| decide(Subject::Anomaly, a));
    models.chain(anomalies).collect()
}

/// What the exact decisions covered, in words, if any ran: which models were decided over every order of
/// how many pairs of writes inference left unordered.
pub fn exact_sentence(result: &CheckResult) -> Option<String> {
    let checked = &result.checked;
    if checked.exact_models.is_empty() {
        return None;
    }
    let pairs = checked.unordered_pairs;
    let over = match pairs {
        0 => "inference ordered every pair of writes".to_string(),
        1 => "over both orders of the 1 pair of writes inference left unordered".to_string(),
        n => format!("over every order of the {n} pairs of writes inference left unordered"),
    };
    Some(format!("decided exactly ({over}): {}", checked.exact_models.join(", ")))
}
