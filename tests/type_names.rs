//! One name per concept across the workspace: no public type name (`pub struct|enum|type|trait`) is
//! defined in two crates, as `scripts/duplicate-type-names` lists them. The two names still defined twice
//! are pinned here, so a new duplicate fails this test and so does renaming one of these without
//! removing it from the list: `Level` (adapters' requested isolation level, and the checker's weak-level
//! saturation levels in `checker/src/weak_levels/saturation.rs`) and `Report` (findings' report, and the
//! online runner's callback type in `src/runner/online.rs`).

use std::process::Command;

use crate::util::repo;

#[test]
fn no_public_type_name_is_defined_in_two_crates_but_the_two_known_ones() {
    let out = Command::new("bash")
        .arg(repo("scripts/duplicate-type-names"))
        .output()
        .expect("bash runs scripts/duplicate-type-names");
    let listed = String::from_utf8(out.stdout).expect("the script prints UTF-8");
    assert_eq!(
        listed.lines().collect::<Vec<_>>(),
        ["Level: adapters checker", "Report: findings src"],
        "public type names defined in more than one crate (stderr: {})",
        String::from_utf8_lossy(&out.stderr)
    );
}
