//! One name per concept across the workspace: no public type name (`pub struct|enum|type|trait`) is
//! defined in two crates, as `scripts/duplicate-type-names` lists them. The script must list nothing,
//! so a new public type named like one of another crate fails this test.

use std::process::Command;

use crate::util::repo;

#[test]
fn no_public_type_name_is_defined_in_two_crates() {
    let out = Command::new("bash")
        .arg(repo("scripts/duplicate-type-names"))
        .output()
        .expect("bash runs scripts/duplicate-type-names");
    let listed = String::from_utf8(out.stdout).expect("the script prints UTF-8");
    assert!(
        listed.is_empty() && out.status.success(),
        "public type names defined in more than one crate:\n{listed}(exit {:?}, stderr: {})",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}
