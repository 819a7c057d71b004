//! `isocheck check --follow` end to end: a writer appends a history to a file in steps (lines cut in
//! two, as a writer's buffer may leave them) while `--follow` reads it. The anomaly is printed as soon as
//! it stands: the writer waits for it before it writes the rest, so the report came before the history
//! was finished, whatever the machine's load. Once the file stays still for `--idle` (or on Ctrl-C) the
//! command prints what `check` prints on the finished file, and exits with its code. Nothing stands
//! in a valid history, nor in one whose anomaly is not complete yet; a file that cannot be followed is
//! bad usage (exit 2).

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use crate::util::{isocheck, repo, temp_file};

/// How long a test waits for the command to say or do something: far more than it needs, so that a
/// busy machine never fails it.
const PATIENCE: Duration = Duration::from_secs(120);

/// `isocheck check --follow FILE EXTRA...`, its stdout read a line at a time into a channel.
fn follow(path: &Path, extra: &[&str]) -> (Child, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_isocheck"))
        .args(["check", "--follow", path.to_str().expect("a UTF-8 path")])
        .args(extra)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (lines, received) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    (child, received)
}

/// Appends `text` to the file in two pieces, flushing each, as a writer in the middle of a line would.
fn append_in_halves(path: &Path, text: &str) {
    let mut file = OpenOptions::new().append(true).open(path).expect("the history file opens");
    let (head, tail) = text.split_at(text.len() / 2);
    for piece in [head, tail] {
        file.write_all(piece.as_bytes()).expect("the history grows");
        file.flush().expect("the history is flushed");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The lines received until one contains `wanted` (which is among them), or all within [`PATIENCE`].
fn lines_until(received: &Receiver<String>, wanted: &str) -> Vec<String> {
    let deadline = Instant::now() + PATIENCE;
    let mut lines = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match received.recv_timeout(left) {
            Ok(line) => {
                let found = line.contains(wanted);
                lines.push(line);
                if found {
                    return lines;
                }
            }
            Err(_) => break,
        }
    }
    panic!("--follow never printed {wanted:?}; it printed:\n{}", lines.join("\n"));
}

/// Waits (at most [`PATIENCE`]) for the command to end; its exit code, the rest of its stdout, and
/// its stderr.
fn finish(mut child: Child, received: &Receiver<String>) -> (i32, String, String) {
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child is waited for") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("--follow did not end within {PATIENCE:?} of the file going still");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut rest = String::new();
    while let Ok(line) = received.recv_timeout(PATIENCE) {
        rest.push_str(&line);
        rest.push('\n');
    }
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
    }
    (status.code().expect("exited, not killed"), rest, stderr)
}

/// The bundled write skew, its lines: T6 and T7 (lines 7 and 8) complete the G2-item; two more follow.
fn write_skew_lines() -> Vec<String> {
    let text = std::fs::read_to_string(repo("examples/write-skew.jsonl")).expect("the example reads");
    let lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
    assert_eq!(lines.len(), 10, "the example's shape, which these tests cut");
    lines
}

#[test]
fn an_anomaly_is_reported_before_the_writer_finishes_and_the_final_verdict_is_checks() {
    let lines = write_skew_lines();
    let (_dir, path) = temp_file("growing.jsonl", "");
    let (child, received) = follow(&path, &["--idle", "3s"]);
    for line in &lines[..8] {
        append_in_halves(&path, line);
    }
    // The writer goes on only once the anomaly is reported: it was reported before the history ended.
    let early = lines_until(&received, "G2-item stands after");
    let standing = early.last().expect("the line that says so");
    assert!(
        standing.ends_with(
            "G2-item stands after 8 operations: the models checked prohibit it, whatever the rest of the history holds"
        ),
        "{standing}"
    );
    for line in &lines[8..] {
        append_in_halves(&path, line);
    }
    let (code, rest, stderr) = finish(child, &received);
    let followed = early.join("\n") + "\n" + &rest;
    let whole = isocheck(&["check", path.to_str().expect("a UTF-8 path")], None);
    assert_eq!(whole.code, 1);
    assert_eq!(code, whole.code, "{stderr}");
    assert!(
        followed.ends_with(&whole.stdout),
        "--follow's final output is check's:\n{followed}\n---\n{}",
        whole.stdout
    );
    // What stood is explained as check explains it.
    let explained = followed.strip_suffix(&whole.stdout).expect("the final output ends it");
    assert!(explained.contains("G2-item #1: T6, T7\n"), "{explained}");
    assert!(
        explained.contains("However, T7 < T6, because T7 did not observe T6's append of 2 to \"x\": a contradiction!")
    );
    assert!(whole.stdout.contains("G2-item #1: T6, T7\n"));
}

#[test]
fn nothing_stands_while_the_anomaly_waits_for_a_transaction_to_complete() {
    let lines = write_skew_lines();
    // All but T7's completion: T7 may yet fail, so the write skew does not stand; the history as it
    // stays is checked as check checks it (T7 indeterminate).
    let text: String = lines[..7].concat();
    let (_dir, path) = temp_file("unfinished.jsonl", &text);
    let (child, received) = follow(&path, &["--idle", "1s"]);
    let (code, followed, stderr) = finish(child, &received);
    let whole = isocheck(&["check", path.to_str().expect("a UTF-8 path")], None);
    assert_eq!(code, whole.code, "{stderr}");
    assert_eq!(followed, whole.stdout, "nothing stood before the final output");
    assert!(!followed.contains("stands after"));
}

#[test]
fn a_valid_history_followed_prints_checks_verdict_alone() {
    let (_dir, path) = temp_file("serial.jsonl", "");
    let (child, received) = follow(&path, &["--idle", "2s"]);
    let serial = [
        "{\"type\":\"invoke\",\"process\":0,\"value\":[[\"append\",\"x\",1]]}\n",
        "{\"type\":\"ok\",\"process\":0,\"value\":[[\"append\",\"x\",1]]}\n",
        "{\"type\":\"invoke\",\"process\":1,\"value\":[[\"r\",\"x\",null]]}\n",
        "{\"type\":\"ok\",\"process\":1,\"value\":[[\"r\",\"x\",[1]]]}\n",
    ];
    for line in serial {
        append_in_halves(&path, line);
    }
    let (code, followed, stderr) = finish(child, &received);
    let whole = isocheck(&["check", path.to_str().expect("a UTF-8 path")], None);
    assert_eq!((code, whole.code), (0, 0), "{stderr}");
    assert_eq!(followed, whole.stdout);
}

#[test]
fn json_output_gives_each_standing_anomaly_a_line_before_checks_object() {
    let text: String = write_skew_lines().concat();
    let (_dir, path) = temp_file("skew.jsonl", &text);
    let (child, received) = follow(&path, &["--idle", "1s", "--format", "json"]);
    let (code, followed, stderr) = finish(child, &received);
    let whole = isocheck(&["check", path.to_str().expect("a UTF-8 path"), "--format", "json"], None);
    assert_eq!((code, whole.code), (1, 1), "{stderr}");
    let standing = followed.strip_suffix(&whole.stdout).expect("check's object ends the output");
    let lines: Vec<serde_json::Value> =
        standing.lines().map(|l| serde_json::from_str(l).expect("each standing anomaly is one JSON line")).collect();
    assert_eq!(lines.len(), 1, "{standing}");
    assert_eq!(lines[0]["standing"]["name"], "G2-item");
    assert_eq!(lines[0]["standing"]["prohibited"], true);
    assert_eq!(lines[0]["standing"]["anomaly"]["cycle"], serde_json::json!([6, 7]));
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn ctrl_c_ends_the_following_with_the_verdict_on_the_file_as_it_stands() {
    let lines = write_skew_lines();
    let (_dir, path) = temp_file("interrupted.jsonl", &lines[..8].concat());
    // Idle for ten minutes: only the interrupt can end it within the test's patience.
    let (child, received) = follow(&path, &["--idle", "10m"]);
    let early = lines_until(&received, "G2-item stands after");
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    // SAFETY: kill(2) with a child's pid and SIGINT touches no memory of this process.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let (code, rest, stderr) = finish(child, &received);
    let whole = isocheck(&["check", path.to_str().expect("a UTF-8 path")], None);
    assert_eq!((code, whole.code), (1, 1), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!((early.join("\n") + "\n" + &rest).ends_with(&whole.stdout));
}

#[test]
fn what_cannot_be_followed_is_bad_usage() {
    let (_dir, array) = temp_file("h.json", "[]");
    let out = isocheck(&["check", "--follow", array.to_str().expect("a UTF-8 path")], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("one operation a line"), "{}", out.stderr);
    let out = isocheck(&["check", "--follow", "-"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("standard input cannot be followed"), "{}", out.stderr);
    let out = isocheck(&["check", "--idle", "1s", "x.jsonl"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--follow"), "{}", out.stderr);
    let out = isocheck(&["check", "--follow", "/nonexistent/h.jsonl"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("/nonexistent/h.jsonl: cannot open the history to follow"), "{}", out.stderr);
}

/// A register history: T0 writes 1 to x and aborts, T1 reads x = 1 (G1a, complete after 4 operations),
/// then T2 writes 2 to x and commits.
const REGISTER_G1A: [&str; 6] = [
    "{\"type\":\"invoke\",\"process\":0,\"value\":[[\"w\",\"x\",1]]}\n",
    "{\"type\":\"fail\",\"process\":0,\"value\":[[\"w\",\"x\",1]]}\n",
    "{\"type\":\"invoke\",\"process\":1,\"value\":[[\"r\",\"x\",null]]}\n",
    "{\"type\":\"ok\",\"process\":1,\"value\":[[\"r\",\"x\",1]]}\n",
    "{\"type\":\"invoke\",\"process\":2,\"value\":[[\"w\",\"x\",2]]}\n",
    "{\"type\":\"ok\",\"process\":2,\"value\":[[\"w\",\"x\",2]]}\n",
];

#[test]
fn a_register_read_of_an_aborted_write_stands_when_the_workload_is_said() {
    let (_dir, path) = temp_file("registers.jsonl", "");
    let (child, received) = follow(&path, &["--idle", "2s", "--workload", "rw-register"]);
    for line in &REGISTER_G1A[..4] {
        append_in_halves(&path, line);
    }
    let early = lines_until(&received, "G1a stands after");
    assert!(
        early.last().expect("the line").ends_with(
            "G1a stands after 4 operations: the models checked prohibit it, whatever the rest of the history holds"
        ),
        "{early:?}"
    );
    for line in &REGISTER_G1A[4..] {
        append_in_halves(&path, line);
    }
    let (code, rest, stderr) = finish(child, &received);
    let whole = isocheck(&["check", path.to_str().expect("a UTF-8 path"), "--workload", "rw-register"], None);
    assert_eq!((whole.code, code), (1, 1), "{stderr}");
    assert!(rest.ends_with(&whole.stdout), "{rest}\n---\n{}", whole.stdout);

    // The near miss: the workload not said, a prefix of register writes and reads might be another
    // workload's, and nothing stands; the final verdict is check's, G1a and all.
    let (_dir, path) = temp_file("registers.jsonl", &REGISTER_G1A.concat());
    let (child, received) = follow(&path, &["--idle", "1s"]);
    let (code, followed, stderr) = finish(child, &received);
    let whole = isocheck(&["check", path.to_str().expect("a UTF-8 path")], None);
    assert_eq!((whole.code, code), (1, 1), "{stderr}");
    assert!(whole.stdout.contains("G1a"), "{}", whole.stdout);
    assert_eq!(followed, whole.stdout, "nothing stood before the final output");
}
