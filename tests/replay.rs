//! Replays end to end: each cycle a run reports comes back as a scenario file (`cycles/NAME-N.toml`)
//! that `isocheck hermitage` runs step by step on any system, and the anomaly recurs exactly where the
//! level permits it. Write skews found on the engine with `ssi-off` recur on the engine and on
//! PostgreSQL below serializable and are refused at serializable; read skews found at read committed
//! recur at read committed and are refused under snapshot isolation.

mod util;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use util::{isocheck, pg_url};

/// How many of a run's replays each test runs (they are alike; a few keep the test quick).
const REPLAYED: usize = 4;

/// A run's output directory and the replay files under its `cycles/`.
struct Replays {
    _dir: tempfile::TempDir,
    out: PathBuf,
    /// Scenario names (`G2-item-1`), in the order the report numbers them.
    names: Vec<String>,
}

impl Replays {
    fn cycles(&self) -> PathBuf {
        self.out.join("cycles")
    }

    fn of(dir: tempfile::TempDir, out: PathBuf, class: &str) -> Replays {
        let mut numbered: Vec<(usize, String)> = files(&out.join("cycles"), "toml")
            .into_iter()
            .filter_map(|name| {
                let n = name.strip_prefix(class)?.strip_prefix('-')?.parse().ok()?;
                Some((n, name))
            })
            .collect();
        numbered.sort();
        Replays { _dir: dir, out, names: numbered.into_iter().map(|(_, name)| name).collect() }
    }
}

/// The stems of the files with this extension in `dir`.
fn files(dir: &Path, extension: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == extension).then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .collect()
}

/// A default-sized engine run at serializable with `ssi-off`: write skews, as G2-item.
fn write_skews() -> &'static Replays {
    static REPLAYS: OnceLock<Replays> = OnceLock::new();
    REPLAYS.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().join("run");
        let output = isocheck(&["run", "--defect", "ssi-off", "--out", out.to_str().unwrap()], None);
        assert_eq!(output.code, 1, "the run finds its anomalies: {}", output.stderr);
        Replays::of(dir, out, "G2-item")
    })
}

/// A default-sized engine run at read committed, checked for serializability: read skews, as
/// G-single-item.
fn read_skews() -> &'static Replays {
    static REPLAYS: OnceLock<Replays> = OnceLock::new();
    REPLAYS.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let run = dir.path().join("run");
        let output = isocheck(&["run", "--isolation", "read-committed", "--out", run.to_str().unwrap()], None);
        assert_eq!(output.code, 0, "read committed holds: {}", output.stderr);
        let out = dir.path().join("check");
        let history = run.join("history.jsonl");
        let args = ["check", "--model", "serializable", history.to_str().unwrap(), "--out", out.to_str().unwrap()];
        let output = isocheck(&args, None);
        assert_eq!(output.code, 1, "serializability does not: {}", output.stderr);
        Replays::of(dir, out, "G-single-item")
    })
}

/// The cells of the first few replays: (scenario, outcome, how, checker classes).
fn replayed(replays: &Replays, args: &[&str]) -> Vec<(String, String, String, Vec<String>)> {
    assert!(!replays.names.is_empty(), "the run reported cycles with replays");
    let cycles = replays.cycles();
    let mut full = vec!["hermitage", "--format", "json", "--scenario-dir", cycles.to_str().unwrap()];
    for name in replays.names.iter().take(REPLAYED) {
        full.extend(["--scenario", name.as_str()]);
    }
    full.extend_from_slice(args);
    let output = isocheck(&full, None);
    assert_eq!(output.code, 0, "stderr: {}", output.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", output.stdout));
    json["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cell| {
            let text = |k: &str| cell[k].as_str().unwrap().to_string();
            let checker = cell["checker"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
            (text("anomaly"), text("outcome"), text("how"), checker)
        })
        .collect()
}

/// Asserts every replayed cell shows `class` (one of the checker's classes).
fn all_recur(cells: &[(String, String, String, Vec<String>)], class: &str, what: &str) {
    assert_eq!(cells.len(), REPLAYED, "{what}: {cells:?}");
    for (name, outcome, how, checker) in cells {
        assert_eq!(outcome, "anomaly", "{what}: {name} ({how})");
        assert!(checker.iter().any(|c| c == class), "{what}: {name} found {checker:?}, not {class}");
    }
}

/// Asserts every replayed cell was prevented, each `how` among `hows`.
fn all_prevented(cells: &[(String, String, String, Vec<String>)], hows: &[&str], what: &str) {
    assert_eq!(cells.len(), REPLAYED, "{what}: {cells:?}");
    for (name, outcome, how, _) in cells {
        assert_eq!(outcome, "prevented", "{what}: {name} ({how})");
        assert!(hows.contains(&how.as_str()), "{what}: {name} prevented by {how}");
    }
}

#[test]
fn every_write_skew_reported_has_a_replay_and_the_reports_show_its_steps() {
    let replays = write_skews();
    let mut pictures = files(&replays.cycles(), "dot");
    pictures.sort();
    let mut scenarios = files(&replays.cycles(), "toml");
    scenarios.sort();
    assert!(pictures.len() >= REPLAYED, "{pictures:?}");
    assert_eq!(scenarios, pictures, "a cycle of anti-dependencies only always has a schedule");
    let first = &replays.names[0];
    let md = std::fs::read_to_string(replays.out.join("report.md")).unwrap();
    assert!(md.contains(&format!("Replay step by step: cycles/{first}.toml")), "report.md has no replay");
    let html = std::fs::read_to_string(replays.out.join("report.html")).unwrap();
    assert!(html.contains(&format!("<code>cycles/{first}.toml</code>")), "report.html has no replay");
    assert!(html.contains(&format!("--scenario {first} ")), "report.html has no replay command");
}

#[test]
fn write_skews_recur_on_the_engine_below_serializable_and_with_ssi_off() {
    let replays = write_skews();
    let defective = replayed(replays, &["--db", "engine", "--isolation", "serializable", "--defect", "ssi-off"]);
    all_recur(&defective, "G2-item", "engine serializable, ssi-off");
    let snapshot = replayed(replays, &["--db", "engine", "--isolation", "snapshot-isolation"]);
    all_recur(&snapshot, "G2-item", "engine snapshot isolation");
    let serializable = replayed(replays, &["--db", "engine", "--isolation", "serializable"]);
    all_prevented(&serializable, &["aborted (serialization-failure)"], "engine serializable");
}

#[test]
fn the_engines_write_skews_recur_on_postgres_at_repeatable_read_only() {
    let Some(url) = pg_url("the_engines_write_skews_recur_on_postgres_at_repeatable_read_only") else { return };
    let replays = write_skews();
    let repeatable = replayed(replays, &["--db", "postgres", "--url", &url, "--isolation", "repeatable-read"]);
    all_recur(&repeatable, "G2-item", "PostgreSQL repeatable read");
    let serializable = replayed(replays, &["--db", "postgres", "--url", &url, "--isolation", "serializable"]);
    all_prevented(&serializable, &["aborted (40001)"], "PostgreSQL serializable");
}

#[test]
fn read_skews_recur_at_read_committed_and_snapshot_isolation_refuses_them() {
    let replays = read_skews();
    let committed = replayed(replays, &["--db", "engine", "--isolation", "read-committed"]);
    all_recur(&committed, "G-single-item", "engine read committed");
    let snapshot = replayed(replays, &["--db", "engine", "--isolation", "snapshot-isolation"]);
    all_prevented(
        &snapshot,
        &["aborted (write-conflict)", "blocked, then aborted (write-conflict)", "not observed"],
        "engine snapshot isolation",
    );
}
