//! No circular imports between the modules of a crate, as `scripts/module-cycles` finds them: in each
//! module with submodules, child A depends on child B when A's code names B by a `crate::`, `super::`
//! or `self::` path. The script is proven both ways on a small crate written here (a cycle it must
//! report, and mentions in comments, strings and a test module's `super::` it must not count), then run
//! on the workspace, where it must find none.

use std::fs;
use std::process::Command;

use crate::util::repo;

/// The script's output and exit code on the given source directories (all of the workspace if none).
fn module_cycles(dirs: &[&std::path::Path]) -> (String, Option<i32>) {
    let out = Command::new("bash")
        .arg(repo("scripts/module-cycles"))
        .args(dirs)
        .output()
        .expect("bash runs scripts/module-cycles");
    assert!(out.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8(out.stdout).expect("the script prints UTF-8"), out.status.code())
}

#[test]
fn a_cycle_through_crate_and_super_paths_is_reported_and_mentions_outside_code_are_not() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = dir.path().join("src");
    fs::create_dir_all(src.join("b")).expect("creates src/b");
    let files = [
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("a.rs", "use crate::{b::{self, Thing}, c};\npub fn g() {}\n"),
        ("b/mod.rs", "mod inner;\npub struct Thing;\n"),
        ("b/inner.rs", "pub fn f() {\n    super::super::a::g();\n}\n"),
        (
            "c.rs",
            "//! Not [`crate::a`].\n/* crate::a */\nconst S: &str = \"crate::a::g\";\nfn helper() {}\n\
             #[cfg(test)]\nmod a {\n    use super::helper;\n}\n",
        ),
    ];
    for (name, text) in files {
        fs::write(src.join(name), text).expect("writes a source file");
    }
    let (out, code) = module_cycles(&[&src]);
    let crate_name = src.parent().expect("src has a parent").display().to_string();
    let at = |file: &str, line: u32| format!("{}/{file}:{line}", src.display());
    assert_eq!(
        out,
        format!(
            "{crate_name}: cycle among the modules of the crate root: a, b\n  a -> b ({})\n  b -> a ({})\n",
            at("a.rs", 1),
            at("b/inner.rs", 2)
        )
    );
    assert_eq!(code, Some(1));

    // The near miss: without the call back into `a`, nothing is reported.
    fs::write(src.join("b/inner.rs"), "pub fn f() {}\n").expect("writes a source file");
    assert_eq!(module_cycles(&[&src]), (String::new(), Some(0)));
}

#[test]
fn no_crate_of_the_workspace_has_a_module_cycle() {
    let (out, code) = module_cycles(&[]);
    assert_eq!((out.as_str(), code), ("", Some(0)), "circular imports between modules:\n{out}");
}
