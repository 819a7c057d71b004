//! The fast path of reading JSON operation objects (`histories/src/fast_json.rs`, run through
//! `histories::reader_comparison`) held to the general reader (`serde_json`), which defines what an
//! object means: on every line of every JSON Lines file under
//! `testdata/`, on hand-written shapes it must take and near-misses it must decline, and on mutations of
//! such lines, the fast path either declines or reads exactly the operation the general reader reads;
//! and a whole file reads to the same history, or fails with the same error at the same place, with the
//! fast path and without it. The generators' histories are held to the same in `generators/tests`.

use std::path::{Path, PathBuf};

use histories::reader_comparison::{read_lines_both_ways, read_object_both_ways};
use proptest::prelude::*;

/// Asserts the fast path agrees with the general reader on `text`; true if it took the text.
fn agrees(text: &str) -> bool {
    let (fast, general) = read_object_both_ways(text);
    match fast {
        None => false,
        Some(fast) => {
            assert_eq!(Ok(fast), general, "the fast path read {text:?} differently");
            true
        }
    }
}

/// Asserts a whole JSON Lines text reads the same with the fast path and without it.
fn reads_the_same(text: &str) {
    let (fast, general) = read_lines_both_ways(text);
    assert_eq!(fast, general, "reading {text:?} with the fast path and without it");
}

/// The object on a line, as the JSON Lines reader hands it over: without a trailing carriage return or
/// leading whitespace; `None` for a blank line.
fn object(line: &str) -> Option<&str> {
    let line = line.strip_suffix('\r').unwrap_or(line).trim_start();
    (!line.trim_end().is_empty()).then_some(line)
}

fn jsonl_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            jsonl_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            into.push(path);
        }
    }
}

#[test]
fn every_line_of_the_testdata_reads_as_the_general_reader_reads_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let mut files = Vec::new();
    jsonl_files(&root, &mut files);
    jsonl_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile"), &mut files);
    assert!(files.len() >= 8, "{files:?}");
    let (mut lines, mut taken) = (0, 0);
    for file in &files {
        let bytes = std::fs::read(file).expect("a readable file");
        let Ok(text) = std::str::from_utf8(&bytes) else { continue };
        for line in text.lines().filter_map(object) {
            lines += 1;
            taken += usize::from(agrees(line));
        }
        reads_the_same(text);
    }
    // The recorded histories are nearly all of the common shape: the fast path must take most lines.
    assert!(taken * 10 > lines * 9, "the fast path took {taken} of {lines} lines");
}

/// Lines of the common shape, each of which the fast path must take.
const TAKEN: &[&str] = &[
    r#"{"index":0,"type":"invoke","process":1,"f":"txn","time":690615,"value":[["append",33739,5],["r",33737,null]]}"#,
    r#"{"index":3,"type":"ok","process":1,"f":"txn","time":1693833,"value":[["append",33739,5],["r",33737,[1,2,3]]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["append", "x", 1], ["r", "y", null]]}"#,
    r#"{ "type" : "ok" , "process" : 0 , "value" : [ [ "append" , "x" , 1 ] , [ "r" , "y" , [ 1 , 2 ] ] ] }   "#,
    r#"{"type": "fail", "process": 7, "error": "40001", "value": [["w", -3, -9223372036854775], ["r", 0, 12]]}"#,
    r#"{"type": "info", "process": null, "error": null, "f": null, "value": null}"#,
    r#"{"type": "ok", "process": 2, "commit_order": -4, "value": [["w", "k", 5, 17], ["w", "j", 6, null]]}"#,
    r#"{"type": "ok", "process": 2, "commit_order": 0, "value": [["r", 1], ["r", 2, []], ["r", 3, 0]]}"#,
    r#"{"type": "ok", "value": []}"#,
    r#"{"value": [["append", 1, -999999999999999999]], "time": 0, "type": "invoke", "process": 999999999999999999}"#,
    r#"{"type": "ok", "process": 3, "f": "withdraw", "value": [["r", "acct é", 100], ["w", "acct é", 90]]}"#,
    "{\"type\": \"invoke\", \"process\": 0, \"value\": [[\"r\", \"\", null]], \"error\": \"a \u{7f} 'string' / ok\"}",
];

/// Near-misses the fast path must decline (the general reader decides what they mean or refuses them).
const DECLINED: &[&str] = &[
    r#"{"type": "invoke", "process": 0, "value": [["append", "x\n", 1]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["append", "\u0078", 1]]}"#,
    r#"{"typ\u0065": "invoke", "process": 0}"#,
    "{\"type\":\t\"invoke\", \"process\": 0}",
    "{\"type\": \"invoke\", \"process\": 0}\r",
    "{\"type\": \"invoke\", \"process\": 0}\u{a0}",
    "{\"type\": \"invoke\", \"process\": 0, \"error\": \"a\u{1}b\"}",
    r#"{"type": "invoke", "process": 0, "value": [["append", 1, 2.0]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["append", 1, 2e3]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["append", 1, 9223372036854775807]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["append", 1, 1000000000000000000]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["append", 1, 123456789012345678901234567890]]}"#,
    r#"{"type": "invoke", "process": 0, "index": 123456789012345678901234567890}"#,
    r#"{"type": "invoke", "process": 0, "value": [["append", 1, -0]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["append", 1, 01]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["append", 1, +1]]}"#,
    r#"{"type": "invoke", "process": -1, "value": []}"#,
    r#"{"type": "invoke", "process": 0, "time": -1}"#,
    r#"{"type": "invoke", "process": 0, "time": null}"#,
    r#"{"type": "invoke", "process": 0, "index": null}"#,
    r#"{"type": "invoke", "process": 0, "index": 1.5}"#,
    r#"{"type": "invoke", "process": 0, "type": "ok"}"#,
    r#"{"type": "invoke", "process": 0, "process": 0}"#,
    r#"{"type": "invoke", "process": 0, "node": "n1"}"#,
    r#"{"type": "info", "process": "nemesis", "f": "kill", "value": ["n1"]}"#,
    r#"{"type": "invoke", "process": 0, "f": "init", "value": {"1": 10}}"#,
    r#"{"type": "ok", "process": 0, "f": "init"}"#,
    r#"{"type": "invoke", "process": 0, "value": [["rp", "true", null]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["insert", 1, 2]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["delete", 1]]}"#,
    r#"{"type": "invoke", "process": 0, "value": [["cas", 1, 2]]}"#,
    r#"{"type": "invoke", "process": 0, "commit_order": 3}"#,
    r#"{"type": "invoke", "process": 0, "value": [["w", 1, 2, 3]]}"#,
    r#"{"type": "ok", "process": 0, "value": [["w", 1, 2, 3, 4]]}"#,
    r#"{"type": "ok", "process": 0, "value": [["append", 1, 2, 3]]}"#,
    r#"{"type": "ok", "process": 0, "value": [["append", 1]]}"#,
    r#"{"type": "ok", "process": 0, "value": [["r", 1, [1, [2]]]]}"#,
    r#"{"type": "ok", "process": 0, "value": [["r", 1, [1, 2,]]]}"#,
    r#"{"type": "ok", "process": 0, "value": [["r", [1], 2]]}"#,
    r#"{"type": "ok", "process": 0, "value": [["r", 1.0, 2]]}"#,
    r#"{"type": "ok", "process": 0, "value": {"r": 1}}"#,
    r#"{"type": "ok", "process": 0, "value": "null"}"#,
    r#"{"type": "ok", "process": 0, "value": nul}"#,
    r#"{"type": "ok", "process": 0}{"type": "ok"}"#,
    r#"{"type": "ok", "process": 0,}"#,
    r#"{"type": "OK", "process": 0}"#,
    r#"{"type": null, "process": 0}"#,
    r#"{"process": 0, "value": []}"#,
    r#"{}"#,
    r#"[{"type": "ok"}]"#,
];

#[test]
fn the_common_shapes_are_taken_and_read_as_the_general_reader_reads_them() {
    for line in TAKEN {
        assert!(agrees(line), "the fast path declined {line:?}");
    }
    reads_the_same(&TAKEN.join("\n"));
}

#[test]
fn near_misses_are_declined() {
    for line in DECLINED {
        let (fast, _) = read_object_both_ways(line);
        assert!(fast.is_none(), "the fast path took {line:?}: {fast:?}");
    }
    for line in DECLINED {
        reads_the_same(&[TAKEN[0], line, TAKEN[1]].join("\n"));
    }
}

/// Integers of every length from 1 to 20 digits (and with a leading zero, a sign, a fraction), as a read
/// list's first and last element followed by more text (where the fast path looks at eight bytes at once)
/// and as the last field of an object (where fewer than eight bytes follow and it looks byte by byte):
/// taken up to 18 digits and read as the general reader reads them, declined beyond and with a leading
/// zero.
#[test]
fn integers_of_every_length_read_as_the_general_reader_reads_them() {
    let digits = "98765432109876543210";
    let mut numbers: Vec<String> = Vec::new();
    for len in 1..=20 {
        let number = &digits[20 - len..];
        numbers.push(number.to_string());
        numbers.push(digits[..len].to_string());
        numbers.push(format!("1{}", "0".repeat(len - 1)));
        numbers.push(format!("0{}", &number[1..]));
        numbers.push(format!("{number}.5"));
    }
    numbers.extend(["-0", "00", "-7", "05", "07", "50", "99", "0"].map(String::from));
    // The fast path takes 1 to 18 digits, with no leading zero but in 0 itself, and a sign but on 0.
    let taken = |n: &str| {
        let unsigned = n.strip_prefix('-').unwrap_or(n);
        let plain = unsigned.bytes().all(|b| b.is_ascii_digit()) && (1..=18).contains(&unsigned.len());
        plain && (unsigned == "0" || !unsigned.starts_with('0')) && n != "-0"
    };
    let numbers: Vec<(String, bool)> = numbers.into_iter().map(|n| (n.clone(), taken(&n))).collect();
    assert!(numbers.iter().filter(|(_, t)| *t).count() >= 50, "{numbers:?}");
    for (number, taken) in &numbers {
        let line = |value: &str| format!(r#"{{"type":"ok","process":1,"value":[{value}],"commit_order":3}}"#);
        let lines = [
            line(&format!(r#"["r",3,[{number},7]]"#)),
            line(&format!(r#"["r",4,[7,{number}]]"#)),
            line(&format!(r#"["r",{number},[1]]"#)),
            line(&format!(r#"["append",5,{number}]"#)),
            format!(r#"{{"type":"ok","process":1,"value":[],"commit_order":{number}}}"#),
        ];
        for line in &lines {
            assert_eq!(agrees(line), *taken, "{line}");
        }
        reads_the_same(&lines.join("\n"));
    }
}

/// How a line is changed.
#[derive(Debug, Clone)]
enum Mutation {
    /// A byte replaced.
    Replace(usize, u8),
    /// A byte inserted.
    Insert(usize, u8),
    /// Up to n bytes dropped.
    Drop(usize, usize),
    /// Two bytes swapped.
    Swap(usize, usize),
    /// Up to n bytes written again after themselves.
    Duplicate(usize, usize),
    /// A token written at a place, after the byte there.
    Token(usize, &'static str),
}

/// Bytes and tokens near the edges of what the fast path takes.
const BYTES: &[u8] = b"[]{}\"\\:, \t\r-+0123456789.eEnul";
const TOKENS: &[&str] = &[
    r#""index": 5, "#,
    r#""type": "ok", "#,
    r#""process": 3, "#,
    r#""process": "nemesis", "#,
    r#""f": "init", "#,
    r#""time": 7, "#,
    r#""value": [["w", 1, 2, 3]], "#,
    r#""error": "x", "#,
    r#""commit_order": 2, "#,
    r#""extra": {"a": [1]}, "#,
    r#"["rp", "true", null], "#,
    r#"["append", 1, 2], "#,
    r#"["r", 1, [1, 2]], "#,
    "null",
    "-0",
    "1e2",
    "9223372036854775808",
    "99999999999999999",
    "\\u0041",
    "é",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop::sample::select(BYTES.to_vec());
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(at, b)| Mutation::Replace(at, b)),
        (any::<usize>(), byte).prop_map(|(at, b)| Mutation::Insert(at, b)),
        (any::<usize>(), 1..12usize).prop_map(|(at, n)| Mutation::Drop(at, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), 1..40usize).prop_map(|(at, n)| Mutation::Duplicate(at, n)),
        (any::<usize>(), prop::sample::select(TOKENS.to_vec())).prop_map(|(at, t)| Mutation::Token(at, t)),
    ]
}

/// `line` changed by `mutations`, as text (a byte sequence that is no longer UTF-8 is read lossily: the
/// readers take text).
fn mutate(line: &str, mutations: &[Mutation]) -> String {
    let mut bytes = line.as_bytes().to_vec();
    for m in mutations {
        let len = bytes.len();
        let at = |i: usize| i % (len + 1);
        match *m {
            Mutation::Replace(i, b) if len > 0 => bytes[i % len] = b,
            Mutation::Insert(i, b) => bytes.insert(at(i), b),
            Mutation::Drop(i, n) => {
                let start = at(i);
                bytes.drain(start..(start + n).min(len));
            }
            Mutation::Swap(a, b) if len > 0 => bytes.swap(a % len, b % len),
            Mutation::Duplicate(i, n) => {
                let start = at(i);
                let copy = bytes[start..(start + n).min(len)].to_vec();
                bytes.splice(start..start, copy);
            }
            Mutation::Token(i, token) => {
                let place = at(i);
                bytes.splice(place..place, token.bytes());
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Cases of the mutation test: `FUZZ_READERS_CASES` (as `scripts/fuzz-readers` sets it), else 3000.
fn cases() -> u32 {
    std::env::var("FUZZ_READERS_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(3000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_lines_are_declined_or_read_as_the_general_reader_reads_them(
        seed in prop::sample::select(TAKEN.iter().chain(DECLINED).copied().collect::<Vec<_>>()),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let line = mutate(seed, &mutations);
        agrees(&line);
        // In a file, between lines of the common shape: the same history or the same error.
        reads_the_same(&[TAKEN[0], &line, TAKEN[1], seed].join("\n"));
    }
}
