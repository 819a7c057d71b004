//! `isocheck check` on Plume's text format (AWDIT's input, `r(key,value,session,txn)` a line), told by
//! its contents whatever the file is named: a fractured read passes read committed and fails read atomic,
//! named as such; a bad line exits 2 naming the file, the line and what was expected.

use crate::util::{isocheck, temp_file};

/// Session 0 writes keys 1 and 2; session 1 reads key 2's initial value, then key 1 from session 0.
const FRACTURED: &str = "w(1,1,0,1)\nw(2,1,0,1)\nr(2,0,1,2)\nr(1,1,1,2)\n";

#[test]
fn a_fractured_read_in_plume_text_passes_read_committed_and_fails_read_atomic() {
    let (_dir, path) = temp_file("fractured.txt", FRACTURED);
    let path = path.to_str().unwrap();
    let rc = isocheck(&["check", "--model", "read-committed-cerone", path], None);
    assert_eq!(rc.code, 0, "{}{}", rc.stdout, rc.stderr);
    let ra = isocheck(&["check", "--model", "read-atomic", path], None);
    assert_eq!(ra.code, 1, "{}{}", ra.stdout, ra.stderr);
    assert!(ra.stdout.contains("fractured-read-causal"), "{}", ra.stdout);
}

#[test]
fn a_bad_plume_line_exits_2_with_its_file_line_and_what_was_expected() {
    let (_dir, path) = temp_file("bad.txt", "w(1,1,0,1)\nr(1,1,1)\n");
    let out = isocheck(&["check", "--model", "read-atomic", path.to_str().unwrap()], None);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("bad.txt:2:"), "{}", out.stderr);
    assert!(out.stderr.contains("expected a Plume event"), "{}", out.stderr);
}
