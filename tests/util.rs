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
