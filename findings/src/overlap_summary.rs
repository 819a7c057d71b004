//! What the overlap test measured (`isocheck overlap`): the system and level, how many
//! clients held a write transaction open at once and for how long, each round's time, the median and its
//! ratio to the hold, the verdict (concurrent, serialized or partial) and the flags it raised. The
//! runner measures it and the checker's timing analysis gives the verdict; this module owns the typed
//! value (`--format json` prints it as it is) and its text.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

/// The overlap test's result.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct OverlapSummary {
    /// The system (`engine`, `sqlite`, `postgres`).
    pub db: String,
    /// Clients holding a transaction open at once.
    pub clients: u64,
    /// How long each held, in milliseconds.
    pub hold_ms: u64,
    /// Rounds measured.
    pub rounds: u64,
    /// The median round, in milliseconds.
    pub elapsed_ms: f64,
    /// The median round over the hold.
    pub ratio: f64,
    /// `concurrent`, `serialized` or `partial`.
    pub verdict: String,
    /// The system's own name and version.
    pub system_version: String,
    /// The level asked for.
    pub isolation: String,
    /// How the system ran that level, in words.
    pub level_mapping: String,
    /// The planted engine defect, if any.
    pub defect: Option<String>,
    /// Each round, in milliseconds.
    pub rounds_ms: Vec<f64>,
    /// Transactions retried after an abort, by cause.
    pub retries_by_cause: BTreeMap<String, u64>,
    /// Why the system runs one writer at a time by design, when it does.
    pub note: Option<String>,
    /// The flags the measurement raised (`fully-serialized`).
    pub flags: Vec<checker::Flag>,
}

/// The overlap test's result as text.
pub fn overlap_text(o: &OverlapSummary) -> String {
    let rounds: Vec<String> = o.rounds_ms.iter().map(|&r| serde_json::Value::from(r).to_string()).collect();
    let retries = if o.retries_by_cause.is_empty() {
        String::new()
    } else {
        let causes: Vec<String> = o.retries_by_cause.iter().map(|(k, v)| format!("{k} {v}")).collect();
        format!("Retries after aborts: {}\n", causes.join(", "))
    };
    let hold = o.hold_ms;
    let mut out = format!(
        "Overlap on {} ({}; {}){}: {} clients each held a write transaction open {hold} ms, {} rounds\n\
         Rounds: {} ms\n{retries}Median: {} ms = {} x the hold\n\
         Verdict: {} (at once: about {hold} ms; one at a time: about {} ms)\n",
        o.system_version,
        o.isolation,
        o.level_mapping,
        o.defect.as_ref().map_or(String::new(), |d| format!(", planted defect {d}")),
        o.clients,
        o.rounds,
        rounds.join(", "),
        serde_json::Value::from(o.elapsed_ms),
        serde_json::Value::from(o.ratio),
        o.verdict,
        o.clients * hold,
    );
    for flag in &o.flags {
        let _ = writeln!(out, "Warning: {}: {}", flag.name, flag.message);
    }
    crate::escape::terminal_text(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serialized() -> OverlapSummary {
        OverlapSummary {
            db: "engine".into(),
            clients: 2,
            hold_ms: 100,
            rounds: 2,
            elapsed_ms: 200.5,
            ratio: 2.0,
            verdict: "serialized".into(),
            system_version: "engine 0.1.0".into(),
            isolation: "serializable".into(),
            level_mapping: "native: serializable".into(),
            defect: Some("global-lock".into()),
            rounds_ms: vec![200.5, 201.0],
            retries_by_cause: BTreeMap::new(),
            note: None,
            flags: vec![checker::Flag {
                name: "fully-serialized".into(),
                message: "one at a time".into(),
                figures: serde_json::Map::new(),
            }],
        }
    }

    #[test]
    fn the_text_names_the_rounds_the_median_and_the_verdict_with_its_flags() {
        assert_eq!(
            overlap_text(&serialized()),
            "Overlap on engine 0.1.0 (serializable; native: serializable), planted defect global-lock: 2 clients \
             each held a write transaction open 100 ms, 2 rounds\nRounds: 200.5, 201.0 ms\nMedian: 200.5 ms = 2.0 x \
             the hold\nVerdict: serialized (at once: about 100 ms; one at a time: about 200 ms)\nWarning: \
             fully-serialized: one at a time\n"
        );
    }

    #[test]
    fn retries_show_only_when_there_were_some_and_the_summary_round_trips() {
        let mut o = serialized();
        o.retries_by_cause.insert("write conflict".into(), 3);
        assert!(overlap_text(&o).contains("Retries after aborts: write conflict 3\n"));
        assert!(!overlap_text(&serialized()).contains("Retries"));
        let text = serde_json::to_string(&o).unwrap();
        assert_eq!(serde_json::from_str::<OverlapSummary>(&text).unwrap(), o);
    }
}
