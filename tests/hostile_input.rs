//! `isocheck check` on hostile input (issue 20), end to end: a file name and keys that hold terminal
//! escapes and bidi controls are shown escaped on stdout and stderr; a crash-depth EDN file, invalid
//! UTF-8 and a missing file each exit 2 with one located message, said once; a misnamed file is read by
//! its contents with a warning.

use crate::util::{isocheck, temp_file};

const SERIAL: &str = r#"{"type":"invoke","process":0,"value":[["append","k\u001b[2J\u202e",1]]}
{"type":"ok","process":0,"value":[["append","k\u001b[2J\u202e",1]]}
{"type":"invoke","process":1,"value":[["r","k\u001b[2J\u202e",null]]}
{"type":"ok","process":1,"value":[["r","k\u001b[2J\u202e",[1]]]}
"#;

fn raw_steering(s: &str) -> Option<char> {
    s.chars().find(|&c| c != '\n' && findings::escape::steers(c))
}

#[test]
fn a_file_name_with_a_terminal_escape_is_shown_escaped_on_stdout_and_stderr() {
    let (_dir, path) = temp_file("h\u{1b}]0;pwned\u{7}\u{202e}.jsonl", SERIAL);
    let out = isocheck(&["check", path.to_str().unwrap(), "-v"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(raw_steering(&out.stdout), None, "stdout: {}", out.stdout);
    assert_eq!(raw_steering(&out.stderr), None, "stderr: {}", out.stderr);
    assert!(out.stdout.contains("h\\u{1b}]0;pwned\\u{7}\\u{202e}.jsonl: VALID"), "{}", out.stdout);
    let json = isocheck(&["check", "--format", "json", path.to_str().unwrap()], None);
    assert_eq!(raw_steering(&json.stdout), None, "json: {}", json.stdout);
}

#[test]
fn an_error_about_such_a_file_is_shown_escaped() {
    let (_dir, path) = temp_file("e\u{1b}[31m\u{202e}.jsonl", "{\"type\": \"done\", \"process\": 0}\n");
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.code, 2);
    assert_eq!(raw_steering(&out.stderr), None, "stderr: {}", out.stderr);
    assert!(out.stderr.contains("e\\u{1b}[31m\\u{202e}.jsonl:1:"), "{}", out.stderr);
    assert!(out.stderr.contains("unknown type \"done\""), "{}", out.stderr);
}

#[test]
fn edn_nested_a_hundred_thousand_deep_exits_2_located_not_a_crash() {
    let (_dir, path) = temp_file("deep.edn", &format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)));
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("deep.edn:1:129: values nested more than 128 deep"), "{}", out.stderr);
}

#[test]
fn invalid_utf8_and_a_missing_file_say_their_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.jsonl");
    std::fs::write(&path, b"{\"type\": \"invoke\", \"process\": 0, \"value\": []}\n{\"type\": \"ok\xff\"}\n").unwrap();
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("u.jsonl:2:13: invalid UTF-8 at byte offset 58 (byte 0xff): a history must be UTF-8 text"),
        "{}",
        out.stderr
    );
    let missing = dir.path().join("missing.jsonl");
    let out = isocheck(&["check", missing.to_str().unwrap()], None);
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr.matches("No such file or directory").count(), 1, "{}", out.stderr);
}

#[test]
fn a_misnamed_file_is_read_by_its_contents_with_a_warning() {
    let (_dir, path) = temp_file("really-jsonl.edn", SERIAL);
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("really-jsonl.edn: the extension names EDN but the contents are JSON Lines: read as JSON Lines"),
        "{}",
        out.stderr
    );
    // The near miss: a well-named file gets no warning.
    let (_dir, path) = temp_file("fine.jsonl", SERIAL);
    let out = isocheck(&["check", path.to_str().unwrap()], None);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}
