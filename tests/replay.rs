//! Replays end to end, on saved histories (`testdata/replays/`, see its README): each cycle a check
//! reports comes back as a scenario file (`cycles/NAME-N.toml`) that `isocheck hermitage` runs step by
//! step on any system, saying at which levels its steps force the cycle. Wherever a replay claims to
//! force a cycle at a level that permits it, the anomaly recurs; where the level prohibits it, the
//! system refuses it. Write skews found on the engine with `ssi-off` recur on the engine and on
//! PostgreSQL below serializable and are refused at serializable; read skews found at read committed
//! recur at read committed and snapshot isolation refuses them, their replays saying which edge no order
//! can force there.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::util::{isocheck, pg_urls, repo};

/// A replay's claim: its name, the levels its steps force the cycle at, and (level, why) for the others.
type Claim = (String, Vec<String>, Vec<(String, String)>);

/// How many of the saved read skews a replay forces at read committed.
const FORCED_READ_SKEWS: usize = 4;

/// A check's output directory and the replays under its `cycles/`.
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

    /// Checks a saved history for serializability with `--out`, and lists the replays of `class`.
    fn of(fixture: &str, class: &str) -> Replays {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().join("check");
        let history = repo(&format!("testdata/replays/{fixture}"));
        let args = ["check", "--model", "serializable", history.to_str().unwrap(), "--out", out.to_str().unwrap()];
        let output = isocheck(&args, None);
        assert_eq!(output.code, 1, "{fixture} is not serializable: {}", output.stderr);
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

    /// Each replay's claim: the levels its steps force the cycle at, and the reasons it gives for the
    /// others.
    fn claims(&self) -> Vec<Claim> {
        self.names
            .iter()
            .map(|name| {
                let text = std::fs::read_to_string(self.cycles().join(format!("{name}.toml"))).unwrap();
                let file: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
                let forces = file
                    .get("forces")
                    .and_then(|f| f.as_array())
                    .map_or_else(Vec::new, |levels| levels.iter().map(|l| l.as_str().unwrap().to_string()).collect());
                let cannot = file.get("cannot_force").and_then(|c| c.as_table()).map_or_else(Vec::new, |t| {
                    t.iter().map(|(level, why)| (level.clone(), why.as_str().unwrap().to_string())).collect()
                });
                (name.clone(), forces, cannot)
            })
            .collect()
    }

    /// The replays whose steps force the cycle at `level`.
    fn forced_at(&self, level: &str) -> Vec<String> {
        self.claims().into_iter().filter(|(_, forces, _)| forces.iter().any(|l| l == level)).map(|c| c.0).collect()
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

/// The write skews of a saved engine run at serializable with `ssi-off`, as G2-item.
fn write_skews() -> &'static Replays {
    static REPLAYS: OnceLock<Replays> = OnceLock::new();
    REPLAYS.get_or_init(|| Replays::of("write-skews.jsonl", "G2-item"))
}

/// The read skews of a saved engine run at read committed, as G-single-item.
fn read_skews() -> &'static Replays {
    static REPLAYS: OnceLock<Replays> = OnceLock::new();
    REPLAYS.get_or_init(|| Replays::of("read-skews.jsonl", "G-single-item"))
}

/// A replayed cell: (scenario, outcome, how, checker classes).
type Cell = (String, String, String, Vec<String>);

/// The cells of these replays on a system and level.
fn replayed(replays: &Replays, names: &[String], args: &[&str]) -> Vec<Cell> {
    assert!(!names.is_empty(), "no replays to run");
    let cycles = replays.cycles();
    let mut full = vec!["hermitage", "--format", "json", "--scenario-dir", cycles.to_str().unwrap()];
    for name in names {
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
fn all_recur(cells: &[Cell], expected: usize, class: &str, what: &str) {
    assert_eq!(cells.len(), expected, "{what}: {cells:?}");
    for (name, outcome, how, checker) in cells {
        assert_eq!(outcome, "anomaly", "{what}: {name} ({how})");
        assert!(checker.iter().any(|c| c == class), "{what}: {name} found {checker:?}, not {class}");
    }
}

/// Asserts every replayed cell was prevented, each `how` among `hows`.
fn all_prevented(cells: &[Cell], expected: usize, hows: &[&str], what: &str) {
    assert_eq!(cells.len(), expected, "{what}: {cells:?}");
    for (name, outcome, how, _) in cells {
        assert_eq!(outcome, "prevented", "{what}: {name} ({how})");
        assert!(hows.contains(&how.as_str()), "{what}: {name} prevented by {how}");
    }
}

#[test]
fn every_saved_write_skew_has_a_replay_that_forces_it_and_the_reports_show_its_steps_and_claim() {
    let replays = write_skews();
    let mut pictures = files(&replays.cycles(), "dot");
    pictures.sort();
    let mut scenarios = files(&replays.cycles(), "toml");
    scenarios.sort();
    assert_eq!(pictures.len(), 23, "{pictures:?}");
    assert_eq!(scenarios, pictures, "every write skew has a replay");
    // Each write skew's steps force it at both levels: the writers of a key never overlap.
    for (name, forces, cannot) in replays.claims() {
        assert_eq!(forces, ["read-committed", "snapshot-isolation"], "{name}: {cannot:?}");
    }
    let first = &replays.names[0];
    let md = std::fs::read_to_string(replays.out.join("report.md")).unwrap();
    assert!(md.contains(&format!("Replay step by step: cycles/{first}.toml")), "report.md has no replay");
    assert!(
        md.contains("At read committed and snapshot isolation these steps force every edge of the cycle"),
        "report.md has no claim"
    );
    let html = std::fs::read_to_string(replays.out.join("report.html")).unwrap();
    assert!(html.contains(&format!("<code>cycles/{first}.toml</code>")), "report.html has no replay");
    assert!(html.contains(&format!("--scenario {first} ")), "report.html has no replay command");
    assert!(html.contains("<p class=\"claims\">At read committed and snapshot isolation"), "report.html has no claim");
}

#[test]
fn write_skews_recur_on_the_engine_below_serializable_and_with_ssi_off() {
    let replays = write_skews();
    let forced = replays.forced_at("snapshot-isolation");
    let n = forced.len();
    let defective =
        replayed(replays, &forced, &["--db", "engine", "--isolation", "serializable", "--defect", "ssi-off"]);
    all_recur(&defective, n, "G2-item", "engine serializable, ssi-off");
    let snapshot = replayed(replays, &forced, &["--db", "engine", "--isolation", "snapshot-isolation"]);
    all_recur(&snapshot, n, "G2-item", "engine snapshot isolation");
    let committed =
        replayed(replays, &replays.forced_at("read-committed"), &["--db", "engine", "--isolation", "read-committed"]);
    all_recur(&committed, n, "G2-item", "engine read committed");
    let serializable = replayed(replays, &forced, &["--db", "engine", "--isolation", "serializable"]);
    all_prevented(&serializable, n, &["aborted (serialization-failure)"], "engine serializable");
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn the_engines_write_skews_recur_on_postgres_at_repeatable_read_only() {
    for url in pg_urls("the_engines_write_skews_recur_on_postgres_at_repeatable_read_only") {
        let replays = write_skews();
        let forced = replays.forced_at("snapshot-isolation");
        let n = forced.len();
        let repeatable =
            replayed(replays, &forced, &["--db", "postgres", "--url", &url, "--isolation", "repeatable-read"]);
        all_recur(&repeatable, n, "G2-item", "PostgreSQL repeatable read");
        let serializable =
            replayed(replays, &forced, &["--db", "postgres", "--url", &url, "--isolation", "serializable"]);
        all_prevented(&serializable, n, &["aborted (40001)"], "PostgreSQL serializable");
    }
}

#[test]
fn read_skews_recur_at_read_committed_and_snapshot_isolation_refuses_them_naming_the_edge() {
    let replays = read_skews();
    assert_eq!(replays.names.len(), 11, "{:?}", replays.names);
    // Snapshot isolation prohibits G-single, so no order forces a read skew there: each replay says which
    // of its edges no order can force together with the others. Lost updates (a read, then a write over
    // another's write of the key) need overlapping writers, whose order a replay cannot prove: those are
    // not forced at read committed either, and say so.
    let mut forced = Vec::new();
    for (name, forces, cannot) in replays.claims() {
        let levels: Vec<&str> = cannot.iter().map(|(level, _)| level.as_str()).collect();
        if forces.is_empty() {
            assert_eq!(levels, ["read-committed", "snapshot-isolation"], "{name}");
        } else {
            assert_eq!(
                (forces.as_slice(), levels.as_slice()),
                (&["read-committed".to_string()][..], &["snapshot-isolation"][..]),
                "{name}"
            );
            forced.push(name.clone());
        }
        for (_, why) in &cannot {
            assert!(why.starts_with('T') && why.contains(" → T") && why.contains("must"), "{name}: {why}");
        }
    }
    assert_eq!(forced.len(), FORCED_READ_SKEWS, "{forced:?}");
    let committed = replayed(replays, &forced, &["--db", "engine", "--isolation", "read-committed"]);
    all_recur(&committed, forced.len(), "G-single-item", "engine read committed");
    let all = &replays.names;
    let snapshot = replayed(replays, all, &["--db", "engine", "--isolation", "snapshot-isolation"]);
    all_prevented(
        &snapshot,
        all.len(),
        &["aborted (write-conflict)", "blocked, then aborted (write-conflict)", "not observed"],
        "engine snapshot isolation",
    );
}
