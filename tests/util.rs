//! Helpers for end-to-end tests: run the `isocheck` binary and capture what it said.
#![allow(dead_code)] // Each test binary uses only some of these helpers.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run of the binary produced.
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `isocheck` with these arguments (and optional standard input).
pub fn isocheck(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    if let Some(input) = stdin {
        child.stdin.take().expect("stdin is piped").write_all(input.as_bytes()).expect("stdin takes the input");
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("the binary finishes");
    Output {
        code: out.status.code().expect("exited, not killed"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A file in the repository.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Writes `text` to `name` in a fresh temporary directory, returning both (the directory lives as long
/// as the returned guard).
pub fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("the file is written");
    (dir, path)
}

/// PostgreSQL's URL for tests that need a server: `ISOCHECK_PG_URL`. Under the test command
/// (`ISOCHECK_PG_REQUIRED` set) a missing server is a failure, never a skip; run alone without either
/// variable, the test says so and passes vacuously.
pub fn pg_url(test: &str) -> Option<String> {
    match std::env::var("ISOCHECK_PG_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("ISOCHECK_PG_REQUIRED").is_some() => {
            panic!("{test} needs PostgreSQL: ISOCHECK_PG_REQUIRED is set but ISOCHECK_PG_URL is not")
        }
        _ => {
            eprintln!("{test}: skipped, no PostgreSQL (set ISOCHECK_PG_URL, or run ./scripts/test)");
            None
        }
    }
}

/// Runs `isocheck run` with these flags into a fresh temporary directory; returns the exit code, the
/// JSON result and the directory (which holds `run/history.jsonl`).
pub fn run_json(extra: &[&str]) -> (i32, serde_json::Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("run");
    let mut args = vec!["run", "--format", "json", "--out", out.to_str().expect("a UTF-8 path")];
    args.extend_from_slice(extra);
    let output = isocheck(&args, None);
    assert!(!output.stderr.contains("panicked"), "{}", output.stderr);
    let json: serde_json::Value = serde_json::from_str(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: stdout {} stderr {}", output.stdout, output.stderr));
    (output.code, json, dir)
}

/// The anomaly types of a JSON result.
pub fn anomaly_types(json: &serde_json::Value) -> Vec<String> {
    json["anomaly_types"]
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect())
}
