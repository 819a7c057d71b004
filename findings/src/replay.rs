//! A reported cycle's step-by-step replay, as the reports show it and `cycles/NAME-N.toml` keeps it: the
//! scenario's name and title, the table before it, its statements by session, and what its steps claim
//! (the levels at which they force every edge of the cycle, and for the others the edge they cannot force
//! and why). Choosing the steps is the `replay` crate's; this module only holds what it chose (or why
//! there is no replay) for the renderers, and says it in words.

use std::collections::BTreeMap;

/// One cycle's replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// The scenario's name, also its file's stem (`G2-item-1`).
    pub name: String,
    /// What it replays.
    pub title: String,
    /// The table before it: id, value.
    pub rows: Vec<(i64, i64)>,
    /// The levels (`read-committed`, `snapshot-isolation`) at which its steps force every edge.
    pub forces: Vec<String>,
    /// Each other level, with the edge the steps cannot force there and why.
    pub cannot_force: Vec<(String, String)>,
    /// Its statements, in order.
    pub steps: Vec<ReplayStep>,
    /// The scenario file (`isocheck hermitage --scenario-dir` reads it).
    pub toml: String,
}

/// One statement of a replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayStep {
    /// The session that issues it, from 1.
    pub session: usize,
    /// The transaction of the history that session replays (`T12`), when known.
    pub replays: Option<String>,
    /// The statement in SQL.
    pub sql: String,
}

/// The replay of each reported cycle, by anomaly name and number (from 1), or why it has none. A cycle
/// absent here is simply not offered a replay.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replays(BTreeMap<(String, usize), Result<Replay, String>>);

impl Replays {
    /// Records cycle `number` of anomaly `name`'s replay, or why it has none.
    pub fn insert(&mut self, name: &str, number: usize, replay: Result<Replay, String>) {
        self.0.insert((name.to_string(), number), replay);
    }

    /// Every recorded cycle's replay, by anomaly name and number, in that order.
    pub fn iter(&self) -> impl Iterator<Item = (&(String, usize), &Result<Replay, String>)> {
        self.0.iter()
    }

    /// Cycle `number` of anomaly `name`'s replay, or why it has none; `None` when not recorded.
    pub fn get(&self, name: &str, number: usize) -> Option<&Result<Replay, String>> {
        self.0.get(&(name.to_string(), number))
    }
}

impl Replay {
    /// How to replay it from the directory its report is in.
    pub fn command(&self) -> String {
        format!("isocheck hermitage --scenario-dir cycles --scenario {} --db DB --isolation LEVEL", self.name)
    }

    /// What the steps claim: the levels at which they force every edge of the cycle (a system there
    /// either refuses a transaction or shows the anomaly), and for each other level the edge they cannot
    /// force and why.
    pub fn claims_text(&self) -> String {
        let text = |level: &str| level.replace('-', " ");
        let mut parts = Vec::new();
        if !self.forces.is_empty() {
            let levels: Vec<String> = self.forces.iter().map(|l| text(l)).collect();
            parts.push(format!(
                "At {} these steps force every edge of the cycle: a system there refuses a transaction or shows the anomaly.",
                levels.join(" and ")
            ));
        }
        for (level, why) in &self.cannot_force {
            parts.push(format!("At {} they cannot force every edge: {why}.", text(level)));
        }
        parts.join(" ")
    }

    /// The table before the replay, as `id = value` pairs.
    pub fn rows_text(&self) -> String {
        let rows: Vec<String> = self.rows.iter().map(|(k, v)| format!("id {k} = {v}")).collect();
        rows.join(", ")
    }

    /// Each statement as its session (with the transaction it replays) and its SQL.
    pub fn statements(&self) -> Vec<(String, String)> {
        self.steps
            .iter()
            .map(|step| {
                let session = match &step.replays {
                    Some(txn) => format!("{} ({txn})", step.session),
                    None => step.session.to_string(),
                };
                (session, step.sql.clone())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_claims_name_the_levels_forced_and_the_edge_each_other_level_cannot_force() {
        let replay = Replay {
            name: "G-single-1".into(),
            title: "read skew".into(),
            rows: vec![(1, 0), (2, -1)],
            forces: vec!["read-committed".into()],
            cannot_force: vec![("snapshot-isolation".into(), "T3 → T2 (rw on key 1): because".into())],
            steps: vec![
                ReplayStep { session: 1, replays: None, sql: "begin".into() },
                ReplayStep { session: 2, replays: Some("T3".into()), sql: "begin".into() },
            ],
            toml: String::new(),
        };
        assert_eq!(
            replay.claims_text(),
            "At read committed these steps force every edge of the cycle: a system there refuses a transaction or \
             shows the anomaly. At snapshot isolation they cannot force every edge: T3 → T2 (rw on key 1): because."
        );
        assert_eq!(replay.rows_text(), "id 1 = 0, id 2 = -1");
        assert_eq!(
            replay.statements(),
            vec![("1".to_string(), "begin".to_string()), ("2 (T3)".to_string(), "begin".to_string())]
        );
        assert_eq!(
            replay.command(),
            "isocheck hermitage --scenario-dir cycles --scenario G-single-1 --db DB --isolation LEVEL"
        );
    }
}
