//! Tests that need a server (PostgreSQL, MariaDB, a Galera cluster, Chromium) are
//! `#[ignore = "needs ..."]`: `cargo test` without the servers reports them ignored rather than passing
//! them vacuously, and `scripts/test`, which starts the servers, runs the root package's and `adapters`'
//! tests a second time with `--ignored`. That is sound only while every ignored test of those two
//! packages is a server test: this module checks it, so a long or manual test ignored there for another
//! reason cannot slip into the test command unnoticed (such a test belongs in another package, as
//! `checker`'s long oracle does).

use std::path::{Path, PathBuf};

use crate::util::repo;

/// What an ignore reason of a server test begins with, one per thing the test command starts.
const SERVER_REASONS: [&str; 5] =
    ["needs PostgreSQL", "needs MariaDB", "needs a Galera cluster", "needs Chromium", "needs PostgreSQL and MariaDB"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `#[ignore...]` attribute in the sources of the packages the test command runs with `--ignored`,
/// with its file and line.
fn ignore_attributes() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for dir in ["src", "tests", "adapters/src", "adapters/tests"] {
        rust_files(&repo(dir), &mut files);
    }
    // Spelled in two halves so that this file's own text is not an attribute it finds.
    let attribute = ["#[", "ignore"].concat();
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with(&attribute) {
                found.push((format!("{}:{}", file.display(), i + 1), line.to_string()));
            }
        }
    }
    found
}

/// Whether this attribute (from its `#[` on) ignores a test for want of a server.
fn is_server_ignore(attribute: &str) -> bool {
    let reason = attribute.strip_prefix(&["#[", "ignore = \""].concat()).unwrap_or("");
    SERVER_REASONS.iter().any(|r| reason.starts_with(&format!("{r}:")))
}

#[test]
fn a_server_reason_is_told_from_any_other() {
    let [open, close] = ["#[", "]"];
    assert!(is_server_ignore(&format!("{open}ignore = \"needs PostgreSQL: set ISOCHECK_PG_URL\"{close}")));
    assert!(is_server_ignore(&format!("{open}ignore = \"needs a Galera cluster: set ISOCHECK_GALERA_DIR\"{close}")));
    assert!(!is_server_ignore(&format!("{open}ignore{close}")));
    assert!(!is_server_ignore(&format!("{open}ignore = \"slow: run with --release\"{close}")));
    assert!(!is_server_ignore(&format!("{open}ignore = \"needs PostgreSQL 18\"{close}")));
}

#[test]
fn every_ignored_test_of_the_packages_run_with_ignored_is_a_server_test() {
    let found = ignore_attributes();
    assert!(!found.is_empty(), "the server tests are ignored, so some attribute must be found");
    let others: Vec<_> = found.iter().filter(|(_, attribute)| !is_server_ignore(attribute)).collect();
    assert!(
        others.is_empty(),
        "scripts/test runs these packages' ignored tests with the servers up, so each must be a server \
         test (#[ignore = \"needs PostgreSQL: ...\"] and the like): {others:#?}"
    );
}
