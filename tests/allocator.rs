//! The allocator's settings (`src/allocator.rs`) end to end: `isocheck` starts itself again once with glibc's
//! huge-page tunable added to `GLIBC_TUNABLES`, and puts the variable back as it was before it starts any
//! program of its own; a `GLIBC_TUNABLES` that already names the tunable is left alone. Seen from a
//! program `run --db exec` starts: it writes down its parent's environment (`/proc/PPID/environ`, the
//! environment isocheck was started again with) and name (`comm`), and its own environment, then serves the
//! embedded engine. glibc, reading
//! its tunables, may cut the string it read at each `:` in place, which `/proc` then shows as entries of their
//! own: the parent's tunables are looked for as words of that text, not as one variable's value.

use std::path::Path;
use std::process::{Command, Stdio};

/// The variable isocheck keeps the previous `GLIBC_TUNABLES` in while it is started again.
const BEFORE: &str = "ISOCHECK_GLIBC_TUNABLES_BEFORE";

/// The environments seen by a program isocheck started: its parent's (isocheck's, as started) and its own,
/// as `NAME=value` lines.
struct Seen {
    parent: Vec<String>,
    child: Vec<String>,
}

impl Seen {
    fn parent_has(&self, name: &str) -> Option<&str> {
        value(&self.parent, name)
    }

    /// Whether the parent's environment holds `tunable`, as the value of `GLIBC_TUNABLES` or as a piece of
    /// it glibc cut off.
    fn parent_tunes(&self, tunable: &str) -> bool {
        self.parent.iter().any(|l| l == tunable || l.strip_prefix("GLIBC_TUNABLES=") == Some(tunable))
    }

    fn child_has(&self, name: &str) -> Option<&str> {
        value(&self.child, name)
    }
}

fn value<'a>(lines: &'a [String], name: &str) -> Option<&'a str> {
    lines.iter().find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix('=')))
}

/// Runs a short `run --db exec` whose program records the environments, with `GLIBC_TUNABLES` as given
/// (`None`: not set).
fn environments(tunables: Option<&str>) -> Seen {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = dir.path().join("serve.sh");
    let parent = dir.path().join("parent.env");
    let child = dir.path().join("child.env");
    std::fs::write(
        &script,
        format!(
            "tr '\\0' '\\n' < /proc/$PPID/environ > '{}'\necho \"comm=$(cat /proc/$PPID/comm)\" >> '{}'\nenv > '{}'\nexec '{}' serve-exec\n",
            parent.display(),
            parent.display(),
            child.display(),
            env!("CARGO_BIN_EXE_isocheck")
        ),
    )
    .expect("the script is written");
    let cmd = format!("sh '{}'", script.display());
    let out = dir.path().join("run");
    let mut isocheck = Command::new(env!("CARGO_BIN_EXE_isocheck"));
    isocheck
        .args(["run", "--db", "exec", "--cmd", &cmd, "--txns", "20", "--out"])
        .arg(&out)
        .env_remove("RUST_LOG")
        .env_remove(BEFORE)
        .stdin(Stdio::null());
    match tunables {
        Some(t) => isocheck.env("GLIBC_TUNABLES", t),
        None => isocheck.env_remove("GLIBC_TUNABLES"),
    };
    let output = isocheck.output().expect("isocheck runs");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    Seen { parent: lines(&parent), child: lines(&child) }
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).expect("the script wrote the environment").lines().map(String::from).collect()
}

#[test]
fn isocheck_starts_again_with_huge_pages_and_its_programs_see_the_environment_as_it_was() {
    let seen = environments(None);
    assert!(seen.parent_tunes("glibc.malloc.hugetlb=1"), "{:?}", seen.parent);
    assert_eq!(seen.parent_has(BEFORE), Some(""), "{:?}", seen.parent);
    // Started again under its own name, as `ps` and `pgrep` know it.
    assert_eq!(seen.parent_has("comm"), Some("isocheck"), "{:?}", seen.parent);
    assert_eq!(seen.child_has("GLIBC_TUNABLES"), None, "{:?}", seen.child);
    assert_eq!(seen.child_has(BEFORE), None, "{:?}", seen.child);

    let seen = environments(Some("glibc.malloc.arena_max=4"));
    assert!(seen.parent_tunes("glibc.malloc.arena_max=4"), "{:?}", seen.parent);
    assert!(seen.parent_tunes("glibc.malloc.hugetlb=1"), "{:?}", seen.parent);
    assert_eq!(seen.parent_has(BEFORE), Some("glibc.malloc.arena_max=4"), "{:?}", seen.parent);
    assert_eq!(seen.child_has("GLIBC_TUNABLES"), Some("glibc.malloc.arena_max=4"), "{:?}", seen.child);
    assert_eq!(seen.child_has(BEFORE), None, "{:?}", seen.child);
}

#[test]
fn a_user_who_names_the_huge_page_tunable_is_obeyed_and_isocheck_does_not_start_again() {
    let seen = environments(Some("glibc.malloc.hugetlb=0"));
    assert!(seen.parent_tunes("glibc.malloc.hugetlb=0"), "{:?}", seen.parent);
    assert!(!seen.parent_tunes("glibc.malloc.hugetlb=1"), "{:?}", seen.parent);
    assert_eq!(seen.parent_has(BEFORE), None, "{:?}", seen.parent);
    assert_eq!(seen.child_has("GLIBC_TUNABLES"), Some("glibc.malloc.hugetlb=0"), "{:?}", seen.child);
}
