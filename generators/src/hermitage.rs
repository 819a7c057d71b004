//! Hermitage-style scripted interleavings as data: a scenario file (see `hermitage/README.md`) holds
//! the rows before it, the sessions, and the steps in the order they are issued. The bundled scenarios
//! (all of Kleppmann's Hermitage) are compiled in; a directory of others can be read at run time, and a
//! scenario renders back to the same TOML, which is how a reproduction of a found cycle becomes a file.
//! This module owns the format: reading, checking its structure, writing. Running a scenario is the
//! runner's (`isocheck hermitage`), and whether its `probe` names an anomaly is the checker's to say.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use histories::Predicate;
use serde::Deserialize;

/// One scenario.
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// Whose transactions the anomaly must involve.
    #[serde(default)]
    pub involving: Involving,
    /// The systems (`--db` names) this file is the variant for, as Hermitage writes a script per
    /// database where one script cannot show the phenomenon on all of them; empty: every system without
    /// a variant of its own under the same `name`.
    #[serde(default)]
    pub systems: Vec<String>,
    /// A replayed cycle's claim: the levels (of [`CLAIM_LEVELS`]) at which its steps force the anomaly,
    /// that is, at which every edge of the cycle must happen if every transaction commits.
    #[serde(default)]
    pub forces: Vec<String>,
    /// A replayed cycle's other levels, each with the edge its steps cannot force there and why.
    #[serde(default)]
    pub cannot_force: BTreeMap<String, String>,
    /// The table before the scenario: key, value.
    pub rows: Vec<(i64, i64)>,
    /// The steps, in order.
    pub steps: Vec<ScenarioStep>,
}

/// The levels a scenario's `forces` and `cannot_force` may name.
pub const CLAIM_LEVELS: [&str; 2] = ["read-committed", "snapshot-isolation"];

/// Whose transactions an anomaly must involve to count: in a file, `involving` absent (all sessions), a
/// list of sessions, or `"any"` (an anomaly among any of them counts, as when a replayed cycle may recur
/// shorter).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "InvolvingText")]
pub enum Involving {
    /// Every session's.
    #[default]
    All,
    /// These sessions'.
    Sessions(Vec<usize>),
    /// Any.
    Any,
}

/// `involving` as a file writes it.
#[derive(Deserialize)]
#[serde(untagged)]
enum InvolvingText {
    Sessions(Vec<usize>),
    Word(String),
}

impl TryFrom<InvolvingText> for Involving {
    type Error = String;

    fn try_from(text: InvolvingText) -> Result<Involving, String> {
        match text {
            InvolvingText::Sessions(sessions) if sessions.is_empty() => Ok(Involving::All),
            InvolvingText::Sessions(sessions) => Ok(Involving::Sessions(sessions)),
            InvolvingText::Word(word) if word == "any" => Ok(Involving::Any),
            InvolvingText::Word(word) => Err(format!("involving is a list of sessions or \"any\", not {word:?}")),
        }
    }
}

/// One step: a session and what it does.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ScenarioStep {
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

/// A scenario that cannot be read or does not make sense.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a scenario, or its steps do not make sense.
    #[error("{file}: {problem}")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong, and where.
        problem: String,
    },
}

/// The scenarios that ship with isocheck: all of Hermitage's, and the read-only anomaly.
const BUNDLED: [(&str, &str); 17] = [
    ("g0.toml", include_str!("../../hermitage/g0.toml")),
    ("g1a.toml", include_str!("../../hermitage/g1a.toml")),
    ("g1b.toml", include_str!("../../hermitage/g1b.toml")),
    ("g1c.toml", include_str!("../../hermitage/g1c.toml")),
    ("otv.toml", include_str!("../../hermitage/otv.toml")),
    ("pmp.toml", include_str!("../../hermitage/pmp.toml")),
    ("pmp-write.toml", include_str!("../../hermitage/pmp-write.toml")),
    ("pmp-write-mariadb.toml", include_str!("../../hermitage/pmp-write-mariadb.toml")),
    ("p4.toml", include_str!("../../hermitage/p4.toml")),
    ("g-single.toml", include_str!("../../hermitage/g-single.toml")),
    ("g-single-dependencies.toml", include_str!("../../hermitage/g-single-dependencies.toml")),
    ("g-single-write-1.toml", include_str!("../../hermitage/g-single-write-1.toml")),
    ("g-single-write-2.toml", include_str!("../../hermitage/g-single-write-2.toml")),
    ("g2-item.toml", include_str!("../../hermitage/g2-item.toml")),
    ("g2.toml", include_str!("../../hermitage/g2.toml")),
    ("g2-two-edges.toml", include_str!("../../hermitage/g2-two-edges.toml")),
    ("read-only.toml", include_str!("../../hermitage/read-only.toml")),
];

/// The matrix's columns: Hermitage's, in its table's order, then `read-only`, the read-only anomaly of
/// Fekete, O'Neil and O'Neil (2004), which Hermitage lacks.
pub const COLUMNS: [&str; 11] =
    ["G0", "G1a", "G1b", "G1c", "OTV", "PMP", "P4", "G-single", "G2-item", "G2", "read-only"];

/// The bundled scenarios.
pub fn bundled() -> Result<Vec<Scenario>, ScenarioError> {
    BUNDLED.iter().map(|(name, text)| parse(text, name)).collect()
}

/// Every `*.toml` scenario in a directory, by file name.
pub fn from_dir(dir: &Path) -> Result<Vec<Scenario>, ScenarioError> {
    scenario_files(dir)?.iter().map(|p| read(p)).collect()
}

/// The `*.toml` files in a directory, sorted by name.
pub fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>, ScenarioError> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let path = entry.map_err(io_error(dir))?.path();
        if path.extension().is_some_and(|x| x == "toml") {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}

/// Reads and checks one scenario file.
pub fn read(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(io_error(path))?;
    parse(&text, &path.display().to_string())
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ScenarioError {
    let path = path.to_path_buf();
    move |source| ScenarioError::Io { path, source }
}

/// Parses and checks one scenario file.
pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    let invalid = |problem: String| ScenarioError::Invalid { file: file.to_string(), problem };
    let scenario: Scenario = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
    scenario.validate().map_err(|problem| invalid(format!("scenario {}: {problem}", scenario.name)))?;
    Ok(scenario)
}

impl Scenario {
    /// The sessions it uses, from 1.
    pub fn sessions(&self) -> usize {
        self.steps.iter().map(|s| s.s).max().unwrap_or(0)
    }

    /// Why the steps do not make sense, if they do not: a session that begins twice, a statement outside
    /// a transaction, a transaction never ended.
    fn validate(&self) -> Result<(), String> {
        if !COLUMNS.contains(&self.column.as_str()) {
            return Err(format!("column {:?} is not one of the matrix's: {}", self.column, COLUMNS.join(", ")));
        }
        let mut open = vec![false; self.sessions() + 1];
        for (i, step) in self.steps.iter().enumerate() {
            if step.s == 0 {
                return Err(format!("step {}: sessions count from 1", i + 1));
            }
            let was_open = open[step.s];
            match &step.action {
                Action::Begin if was_open => return Err(format!("step {}: session {} begins twice", i + 1, step.s)),
                Action::Begin => open[step.s] = true,
                _ if !was_open => return Err(format!("step {}: session {} has no transaction open", i + 1, step.s)),
                Action::Commit | Action::Rollback => open[step.s] = false,
                Action::UpdateWhere { set, add, .. } if set.is_some() == add.is_some() => {
                    return Err(format!("step {}: update_where takes exactly one of set and add", i + 1));
                }
                _ => {}
            }
        }
        if let Some(s) = (1..open.len()).find(|&s| open[s]) {
            return Err(format!("session {s} never commits or rolls back"));
        }
        if let Involving::Sessions(sessions) = &self.involving
            && sessions.iter().any(|&s| s == 0 || s > self.sessions())
        {
            return Err("involving names a session the scenario does not have".to_string());
        }
        for level in self.forces.iter().chain(self.cannot_force.keys()) {
            if !CLAIM_LEVELS.contains(&level.as_str()) {
                return Err(format!("{level:?} is not a level a claim can name: {}", CLAIM_LEVELS.join(", ")));
            }
            if self.forces.contains(level) && self.cannot_force.contains_key(level) {
                return Err(format!("{level} is both in forces and in cannot_force"));
            }
        }
        Ok(())
    }
}

impl Action {
    /// The statement as SQL on Hermitage's table `test (id, value)`.
    pub fn sql(&self) -> String {
        match self {
            Action::Begin => "begin".to_string(),
            Action::Commit => "commit".to_string(),
            Action::Rollback => "rollback".to_string(),
            Action::Read { key } => format!("select * from test where id = {key}"),
            Action::Scan { predicate } => format!("select * from test where {}", sql_condition(predicate)),
            Action::Write { key, value } => format!("update test set value = {value} where id = {key}"),
            Action::Insert { key, value } => format!("insert into test (id, value) values ({key}, {value})"),
            Action::Delete { key } => format!("delete from test where id = {key}"),
            Action::DeleteWhere { predicate } => format!("delete from test where {}", sql_condition(predicate)),
            Action::UpdateWhere { predicate, set, add } => {
                let assign = match (set, add) {
                    (Some(v), _) => v.to_string(),
                    (None, Some(d)) => format!("value + {d}"),
                    (None, None) => "value".to_string(),
                };
                format!("update test set value = {assign} where {}", sql_condition(predicate))
            }
        }
    }
}

fn sql_condition(predicate: &Predicate) -> String {
    match *predicate {
        Predicate::True => "true".to_string(),
        Predicate::Eq(v) => format!("value = {v}"),
        Predicate::Mod { m, r } => format!("value % {m} = {r}"),
    }
}

/// A TOML string: quoted, with quotes, backslashes and control characters escaped.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn toml_predicate(predicate: &Predicate) -> String {
    match *predicate {
        Predicate::True => "\"true\"".to_string(),
        Predicate::Eq(v) => format!("[\"=\", {v}]"),
        Predicate::Mod { m, r } => format!("[\"mod\", {m}, {r}]"),
    }
}

impl fmt::Display for ScenarioStep {
    /// The step as the inline table the scenario files use: `{ s = 1, do = "read", key = 1 }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{ s = {}, do = ", self.s)?;
        match &self.action {
            Action::Begin => write!(f, "\"begin\"")?,
            Action::Commit => write!(f, "\"commit\"")?,
            Action::Rollback => write!(f, "\"rollback\"")?,
            Action::Read { key } => write!(f, "\"read\", key = {key}")?,
            Action::Scan { predicate } => write!(f, "\"scan\", where = {}", toml_predicate(predicate))?,
            Action::Write { key, value } => write!(f, "\"write\", key = {key}, value = {value}")?,
            Action::Insert { key, value } => write!(f, "\"insert\", key = {key}, value = {value}")?,
            Action::Delete { key } => write!(f, "\"delete\", key = {key}")?,
            Action::DeleteWhere { predicate } => {
                write!(f, "\"delete_where\", where = {}", toml_predicate(predicate))?;
            }
            Action::UpdateWhere { predicate, set, add } => {
                write!(f, "\"update_where\", where = {}", toml_predicate(predicate))?;
                if let Some(v) = set {
                    write!(f, ", set = {v}")?;
                }
                if let Some(d) = add {
                    write!(f, ", add = {d}")?;
                }
            }
        }
        if let Some(note) = &self.note {
            write!(f, ", note = {}", toml_string(note))?;
        }
        write!(f, " }}")
    }
}

impl fmt::Display for Scenario {
    /// The scenario as a file [`parse`] reads back to the same scenario.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "name = {}", toml_string(&self.name))?;
        writeln!(f, "column = {}", toml_string(&self.column))?;
        writeln!(f, "title = {}", toml_string(&self.title))?;
        writeln!(f, "probe = {}", toml_string(&self.probe))?;
        if !self.systems.is_empty() {
            let systems: Vec<String> = self.systems.iter().map(|s| toml_string(s)).collect();
            writeln!(f, "systems = [{}]", systems.join(", "))?;
        }
        match &self.involving {
            Involving::All => {}
            Involving::Sessions(sessions) => {
                let sessions: Vec<String> = sessions.iter().map(ToString::to_string).collect();
                writeln!(f, "involving = [{}]", sessions.join(", "))?;
            }
            Involving::Any => writeln!(f, "involving = \"any\"")?,
        }
        if !self.forces.is_empty() {
            let levels: Vec<String> = self.forces.iter().map(|l| toml_string(l)).collect();
            writeln!(f, "forces = [{}]", levels.join(", "))?;
        }
        if !self.cannot_force.is_empty() {
            let pairs: Vec<String> = self
                .cannot_force
                .iter()
                .map(|(level, why)| format!("{} = {}", toml_string(level), toml_string(why)))
                .collect();
            writeln!(f, "cannot_force = {{ {} }}", pairs.join(", "))?;
        }
        let rows: Vec<String> = self.rows.iter().map(|(k, v)| format!("[{k}, {v}]")).collect();
        writeln!(f, "rows = [{}]", rows.join(", "))?;
        writeln!(f, "\nsteps = [")?;
        for step in &self.steps {
            writeln!(f, "  {step},")?;
        }
        writeln!(f, "]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_scenario_parses_and_covers_every_column() {
        let scenarios = bundled().unwrap();
        assert_eq!(scenarios.len(), 17);
        for column in COLUMNS {
            assert!(scenarios.iter().any(|s| s.column == column), "no scenario for {column}");
        }
        let otv = scenarios.iter().find(|s| s.name == "OTV").unwrap();
        assert_eq!((otv.sessions(), otv.involving.clone()), (3, Involving::Sessions(vec![1, 3])));
        let pmp_write = scenarios.iter().find(|s| s.name == "PMP-write").unwrap();
        assert_eq!(
            pmp_write.steps[2].action,
            Action::UpdateWhere { predicate: Predicate::True, set: None, add: Some(10) }
        );
        let variants: Vec<&Scenario> = scenarios.iter().filter(|s| s.name == "PMP-write").collect();
        assert_eq!(
            variants.iter().map(|s| s.systems.clone()).collect::<Vec<_>>(),
            [vec![], vec!["mariadb".to_string(), "galera".to_string()]]
        );
        // MariaDB's variant reads every row before its delete, as Hermitage's MySQL script does.
        assert_eq!(variants[1].steps[3].action, Action::Scan { predicate: Predicate::True });
        assert_eq!(variants[1].steps[4].action, Action::DeleteWhere { predicate: Predicate::Eq(20) });
    }

    #[test]
    fn every_bundled_scenario_renders_to_a_file_that_reads_back_the_same() {
        for scenario in bundled().unwrap() {
            let text = scenario.to_string();
            let back = parse(&text, "rendered.toml").unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(back, scenario, "{text}");
        }
    }

    #[test]
    fn notes_with_quotes_and_newlines_survive_rendering() {
        let mut scenario = bundled().unwrap().remove(0);
        scenario.steps[0].note = Some("say \"hi\"\\\nthen\tstop".to_string());
        scenario.title = "a \"quoted\" title".to_string();
        assert_eq!(parse(&scenario.to_string(), "x.toml").unwrap(), scenario);
    }

    #[test]
    fn statements_read_as_hermitage_writes_them() {
        let sql: Vec<String> = [
            Action::Read { key: 1 },
            Action::Write { key: 2, value: 21 },
            Action::Scan { predicate: Predicate::Mod { m: 3, r: 0 } },
            Action::UpdateWhere { predicate: Predicate::Eq(10), set: None, add: Some(5) },
        ]
        .iter()
        .map(Action::sql)
        .collect();
        assert_eq!(
            sql,
            [
                "select * from test where id = 1",
                "update test set value = 21 where id = 2",
                "select * from test where value % 3 = 0",
                "update test set value = value + 5 where value = 10",
            ]
        );
    }

    #[test]
    fn malformed_scenarios_say_what_is_wrong() {
        let base = "name = \"x\"\ncolumn = \"G0\"\ntitle = \"t\"\nprobe = \"G0\"\nrows = []\n";
        assert!(parse(&format!("{base}steps = []"), "x.toml").is_ok());
        let e = parse(&format!("{base}steps = [{{ s = 1, do = \"commit\" }}]"), "x.toml").unwrap_err();
        assert!(e.to_string().contains("session 1 has no transaction open"), "{e}");
        let e = parse(&format!("{base}steps = [{{ s = 1, do = \"begin\" }}]"), "x.toml").unwrap_err();
        assert!(e.to_string().contains("never commits"), "{e}");
        let e = parse(&format!("{base}steps = [{{ s = 1, do = \"frobnicate\" }}]"), "x.toml").unwrap_err();
        assert!(e.to_string().starts_with("x.toml: "), "{e}");
        let any = parse(&format!("{base}involving = \"any\"\nsteps = []"), "x.toml").unwrap();
        assert_eq!(any.involving, Involving::Any);
        assert_eq!(parse(&any.to_string(), "x.toml").unwrap(), any);
        let e = parse(&format!("{base}involving = \"some\"\nsteps = []"), "x.toml").unwrap_err();
        assert!(e.to_string().contains("involving is a list of sessions or \"any\", not \"some\""), "{e}");
        let bad_column = base.replace("column = \"G0\"", "column = \"G9\"") + "steps = []";
        assert!(parse(&bad_column, "x.toml").unwrap_err().to_string().contains("not one of the matrix's"));
        let e = from_dir(Path::new("/nonexistent/scenarios")).unwrap_err();
        assert!(e.to_string().starts_with("reading /nonexistent/scenarios: "), "{e}");
    }
}
