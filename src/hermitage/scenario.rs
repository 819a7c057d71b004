//! Scenarios as data: a Hermitage test as a file (see `hermitage/README.md`): the rows before it, the
//! sessions, and the steps in the order they are issued. The bundled scenarios are compiled in; a
//! directory of others can be read at run time. This module owns the format and reading it; running a
//! scenario is `step_runner`'s.

use std::path::Path;

use anyhow::{Context, bail};
use histories::Predicate;
use serde::Deserialize;

/// One scenario.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Its name (`G-single-write-1`).
    pub name: String,
    /// The Hermitage column it belongs to (`G-single`).
    pub column: String,
    /// What it demonstrates.
    pub title: String,
    /// The anomaly the checker looks for (Elle's name; umbrella classes allowed).
    pub probe: String,
    /// Sessions whose transactions the anomaly must involve; empty for all.
    #[serde(default)]
    pub involving: Vec<usize>,
    /// The table before the scenario: key, value.
    pub rows: Vec<(i64, i64)>,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// One step: a session and what it does.
#[derive(Debug, Clone, Deserialize)]
pub struct Step {
    /// The session, from 1.
    pub s: usize,
    /// What it does.
    #[serde(flatten)]
    pub action: Action,
    /// What the step demonstrates.
    #[serde(default)]
    pub note: Option<String>,
}

/// A statement.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum Action {
    /// Begins a transaction at the matrix row's level.
    Begin,
    /// Commits.
    Commit,
    /// Rolls back.
    Rollback,
    /// `select * from test where id = key`.
    Read {
        /// The row.
        key: i64,
    },
    /// `select * from test where ...`.
    Scan {
        /// The predicate.
        #[serde(rename = "where")]
        predicate: Predicate,
    },
    /// `update test set value = v where id = key`.
    Write {
        /// The row.
        key: i64,
        /// The value.
        value: i64,
    },
    /// `insert into test values (key, value)`.
    Insert {
        /// The row.
        key: i64,
        /// The value.
        value: i64,
    },
    /// `delete from test where id = key`.
    Delete {
        /// The row.
        key: i64,
    },
    /// `delete from test where ...`.
    DeleteWhere {
        /// The predicate.
        #[serde(rename = "where")]
        predicate: Predicate,
    },
    /// `update test set value = v | value + d where ...`.
    UpdateWhere {
        /// The predicate.
        #[serde(rename = "where")]
        predicate: Predicate,
        /// `set value = v`.
        #[serde(default)]
        set: Option<i64>,
        /// `set value = value + d`.
        #[serde(default)]
        add: Option<i64>,
    },
}

/// The scenarios that ship with isocheck: all of Hermitage's.
const BUNDLED: [(&str, &str); 15] = [
    ("g0.toml", include_str!("../../hermitage/g0.toml")),
    ("g1a.toml", include_str!("../../hermitage/g1a.toml")),
    ("g1b.toml", include_str!("../../hermitage/g1b.toml")),
    ("g1c.toml", include_str!("../../hermitage/g1c.toml")),
    ("otv.toml", include_str!("../../hermitage/otv.toml")),
    ("pmp.toml", include_str!("../../hermitage/pmp.toml")),
    ("pmp-write.toml", include_str!("../../hermitage/pmp-write.toml")),
    ("p4.toml", include_str!("../../hermitage/p4.toml")),
    ("g-single.toml", include_str!("../../hermitage/g-single.toml")),
    ("g-single-dependencies.toml", include_str!("../../hermitage/g-single-dependencies.toml")),
    ("g-single-write-1.toml", include_str!("../../hermitage/g-single-write-1.toml")),
    ("g-single-write-2.toml", include_str!("../../hermitage/g-single-write-2.toml")),
    ("g2-item.toml", include_str!("../../hermitage/g2-item.toml")),
    ("g2.toml", include_str!("../../hermitage/g2.toml")),
    ("g2-two-edges.toml", include_str!("../../hermitage/g2-two-edges.toml")),
];

/// Hermitage's columns, in its table's order.
pub const COLUMNS: [&str; 10] = ["G0", "G1a", "G1b", "G1c", "OTV", "PMP", "P4", "G-single", "G2-item", "G2"];

/// The bundled scenarios.
pub fn bundled() -> anyhow::Result<Vec<Scenario>> {
    BUNDLED.iter().map(|(name, text)| parse(text, name)).collect()
}

/// Every `*.toml` scenario in a directory, by file name.
pub fn from_dir(dir: &Path) -> anyhow::Result<Vec<Scenario>> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading scenarios from {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            parse(&text, &p.display().to_string())
        })
        .collect()
}

/// Parses and checks one scenario file.
pub fn parse(text: &str, file: &str) -> anyhow::Result<Scenario> {
    let scenario: Scenario = toml::from_str(text).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
    scenario.validate().with_context(|| format!("{file}: scenario {}", scenario.name))?;
    Ok(scenario)
}

impl Scenario {
    /// The sessions it uses, from 1.
    pub fn sessions(&self) -> usize {
        self.steps.iter().map(|s| s.s).max().unwrap_or(0)
    }

    fn validate(&self) -> anyhow::Result<()> {
        if checker::consistency_model::anomaly_name(&self.probe).is_none() {
            bail!("probe {:?} is not an anomaly the checker knows", self.probe);
        }
        if !COLUMNS.contains(&self.column.as_str()) {
            bail!("column {:?} is not one of Hermitage's: {}", self.column, COLUMNS.join(", "));
        }
        let mut open = vec![false; self.sessions() + 1];
        for (i, step) in self.steps.iter().enumerate() {
            if step.s == 0 {
                bail!("step {}: sessions count from 1", i + 1);
            }
            let was_open = open[step.s];
            match &step.action {
                Action::Begin if was_open => bail!("step {}: session {} begins twice", i + 1, step.s),
                Action::Begin => open[step.s] = true,
                _ if !was_open => bail!("step {}: session {} has no transaction open", i + 1, step.s),
                Action::Commit | Action::Rollback => open[step.s] = false,
                Action::UpdateWhere { set, add, .. } if set.is_some() == add.is_some() => {
                    bail!("step {}: update_where takes exactly one of set and add", i + 1)
                }
                _ => {}
            }
        }
        if let Some(s) = (1..open.len()).find(|&s| open[s]) {
            bail!("session {s} never commits or rolls back");
        }
        if self.involving.iter().any(|&s| s == 0 || s > self.sessions()) {
            bail!("involving names a session the scenario does not have");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_scenario_parses_and_covers_every_column() {
        let scenarios = bundled().unwrap();
        assert_eq!(scenarios.len(), 15);
        for column in COLUMNS {
            assert!(scenarios.iter().any(|s| s.column == column), "no scenario for {column}");
        }
        let otv = scenarios.iter().find(|s| s.name == "OTV").unwrap();
        assert_eq!((otv.sessions(), otv.involving.clone()), (3, vec![1, 3]));
        let pmp_write = scenarios.iter().find(|s| s.name == "PMP-write").unwrap();
        assert_eq!(
            pmp_write.steps[2].action,
            Action::UpdateWhere { predicate: Predicate::True, set: None, add: Some(10) }
        );
    }

    #[test]
    fn malformed_scenarios_say_what_is_wrong() {
        let base = "name = \"x\"\ncolumn = \"G0\"\ntitle = \"t\"\nprobe = \"G0\"\nrows = []\n";
        assert!(parse(&format!("{base}steps = []"), "x.toml").is_ok());
        let e = parse(&format!("{base}steps = [{{ s = 1, do = \"commit\" }}]"), "x.toml").unwrap_err();
        assert!(format!("{e:#}").contains("session 1 has no transaction open"), "{e:#}");
        let e = parse(&format!("{base}steps = [{{ s = 1, do = \"begin\" }}]"), "x.toml").unwrap_err();
        assert!(format!("{e:#}").contains("never commits"), "{e:#}");
        let e = parse(&format!("{base}steps = [{{ s = 1, do = \"frobnicate\" }}]"), "x.toml").unwrap_err();
        assert!(format!("{e:#}").contains("x.toml"), "{e:#}");
        let bad_probe = base.replace("probe = \"G0\"", "probe = \"G9\"") + "steps = []";
        assert!(format!("{:#}", parse(&bad_probe, "x.toml").unwrap_err()).contains("not an anomaly"));
    }
}
