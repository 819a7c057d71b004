//! `scripts/reproduce-postgres-ssi`: the histories its reproductions wrote on PostgreSQL 15.18 and 18.6
//! (`testdata/postgres-ssi/`) check invalid for serializable (each a G2-item of the reproduction's
//! sessions: a write skew for the summarization, the read-only anomaly for the commit window) and valid
//! for snapshot isolation, and those of its controls (no trigger, a 40001) check valid; against every
//! PostgreSQL server the tests have, the summarization reproduces (exit 1) and its control does not
//! (exit 0), each history checked again. The commit window needs gdb attached to a backend, which the
//! test command does not assume; its saved histories hold it here.

use std::process::Command;

use crate::util::{isocheck, pg_urls, repo};

/// `isocheck check FILE --model MODEL`: its exit code and standard output.
fn check(path: &std::path::Path, model: &str) -> (i32, String) {
    let out = isocheck(&["check", path.to_str().unwrap(), "--model", model], None);
    (out.code, out.stdout)
}

#[test]
fn each_reproductions_history_is_a_g2_item_and_each_controls_is_serializable() {
    for release in ["15.18", "18.6"] {
        for (mechanism, cycle) in [("summarization", "G2-item #1: T5, T4\n"), ("commit-window", "read-only anomaly")] {
            let path = repo(&format!("testdata/postgres-ssi/{mechanism}-{release}.jsonl"));
            let (code, stdout) = check(&path, "serializable");
            assert_eq!(code, 1, "{mechanism} on {release}: {stdout}");
            assert!(stdout.contains("Anomalies: G2-item (1)\n"), "{mechanism} on {release}: {stdout}");
            assert!(stdout.contains(cycle), "{mechanism} on {release}: {stdout}");
            assert_eq!(
                check(&path, "snapshot-isolation").0,
                0,
                "{mechanism} on {release}: snapshot isolation permits it"
            );
            let control = repo(&format!("testdata/postgres-ssi/{mechanism}-control-{release}.jsonl"));
            let (code, stdout) = check(&control, "serializable");
            assert_eq!(code, 0, "{mechanism}'s control on {release}: {stdout}");
        }
    }
}

#[test]
#[ignore = "needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"]
fn the_summarization_reproduces_on_every_postgresql_server_and_its_control_does_not() {
    for url in pg_urls("the_summarization_reproduces_on_every_postgresql_server_and_its_control_does_not") {
        let dir = tempfile::tempdir().unwrap();
        for (control, exit, valid) in [(false, 1, 1), (true, 0, 0)] {
            let history = dir.path().join(format!("control-{control}.jsonl"));
            let mut command = Command::new(repo("scripts/reproduce-postgres-ssi"));
            command.args(["summarization", "--url", &url, "--history", history.to_str().unwrap()]);
            if control {
                command.arg("--control");
            }
            let out = command.output().expect("the script runs");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(exit), "{url}, control {control}:\n{stdout}\n{stderr}");
            let said = if control { "prevented: W aborted with 40001" } else { "reproduced: W and R both committed" };
            assert!(stdout.contains(said), "{url}, control {control}:\n{stdout}");
            let (code, checked) = check(&history, "serializable");
            assert_eq!(code, valid, "{url}, control {control}: {checked}");
        }
    }
}
