//! Each reported cycle's step-by-step replay, as the reports receive it: [`crate`] schedules the
//! cycle as a Hermitage scenario (or says why it cannot), and this module hands `findings` the
//! scenario's parts and its file's text, since `findings` renders replays but does not depend on this
//! crate. Cycles are numbered from 1 within their class, as the reports number them. This module owns
//! only that hand-over; the schedule is `replay`'s and the rendering `findings`'.

use checker::CheckResult;

use crate::{reproduction, statements};

/// The replay of every cycle `result` reports, or why it has none.
pub fn replays(result: &CheckResult) -> findings::Replays {
    let mut replays = findings::Replays::default();
    for (name, anomalies) in &result.anomalies {
        for (i, anomaly) in anomalies.iter().enumerate() {
            let Some(cycle) = anomaly.as_cycle() else { continue };
            let replay =
                reproduction(name, i + 1, cycle).map_err(|why| why.to_string()).map(|scenario| findings::Replay {
                    name: scenario.name.clone(),
                    title: scenario.title.clone(),
                    rows: scenario.rows.clone(),
                    forces: scenario.forces.clone(),
                    cannot_force: scenario.cannot_force.iter().map(|(l, why)| (l.clone(), why.clone())).collect(),
                    steps: statements(&scenario)
                        .into_iter()
                        .map(|s| findings::ReplayStep { session: s.session, replays: s.replays, sql: s.sql })
                        .collect(),
                    toml: scenario.to_string(),
                });
            replays.insert(name, i + 1, replay);
        }
    }
    replays
}
