//! Text from a history cannot steer a terminal or a page: keys and a source name holding ESC, BEL, a
//! C1 control (CSI), RLO, LRO, LRI and the line and paragraph separators come out as `\u{..}` (or, in
//! JSON and TOML, as the format's own `\uXXXX` escape) in every output: text, JSON, HTML, SVG,
//! Markdown, JUnit, DOT and the replay files. A near miss: plain non-ASCII text (é, 中) is left alone.

use replay::report_replays::replays;

use crate::common::{check, parse};
use findings::{JunitOptions, OutOptions, Report};

/// Each character that steers, and how `escape` shows it.
const STEERING: [(char, &str); 8] = [
    ('\u{1b}', "\\u{1b}"),
    ('\u{7}', "\\u{7}"),
    ('\u{9b}', "\\u{9b}"),
    ('\u{202e}', "\\u{202e}"),
    ('\u{202d}', "\\u{202d}"),
    ('\u{2066}', "\\u{2066}"),
    ('\u{2028}', "\\u{2028}"),
    ('\u{2029}', "\\u{2029}"),
];

const KEY_A: &str = "a\u{1b}[31m\u{7}\u{9b}2J\u{202e}é";
const KEY_B: &str = "b\u{202d}\u{2066}\u{2028}\u{2029}中";
const SOURCE: &str = "h\u{1b}]0;title\u{7}\u{202e}.jsonl";

/// A write skew between two transactions on the hostile keys (a G2-item cycle, so every picture and
/// the replay are drawn).
fn write_skew() -> checker::CheckResult {
    let (a, b) = (serde_json::to_string(KEY_A).unwrap(), serde_json::to_string(KEY_B).unwrap());
    let text = format!(
        r#"{{"type":"invoke","process":0,"time":0,"value":[["append",{a},1],["r",{b},null]]}}
{{"type":"invoke","process":1,"time":10,"value":[["append",{b},1],["r",{a},null]]}}
{{"type":"ok","process":0,"time":20,"value":[["append",{a},1],["r",{b},[]]]}}
{{"type":"ok","process":1,"time":30,"value":[["append",{b},1],["r",{a},[]]]}}
"#
    );
    let result = check(&parse(&text), &[]);
    assert_eq!(result.anomaly_types, ["G2-item"], "the history is a write skew and nothing else");
    result
}

/// No steering character is in `out` raw (`allowed` are layout a format keeps).
fn assert_inert(what: &str, out: &str, allowed: &[char]) {
    for c in out.chars() {
        assert!(!findings::escape::steers(c) || allowed.contains(&c), "{what}: {c:?} got through raw");
    }
    assert!(out.contains('é') && out.contains('中'), "{what}: plain non-ASCII text is shown as it is");
}

/// `out` shows each steering character as `\u{..}` (checked for those of the keys it holds).
fn assert_shown(what: &str, out: &str, keys: &str) {
    for (c, shown) in STEERING {
        if keys.contains(c) {
            assert!(out.contains(shown), "{what}: {c:?} is not shown as {shown}");
        }
    }
}

#[test]
fn terminal_text_shows_steering_characters_escaped() {
    let text = findings::text(&write_skew(), SOURCE);
    assert_inert("text", &text, &['\n']);
    assert_shown("text", &text, &format!("{KEY_A}{KEY_B}{SOURCE}"));
    assert!(text.starts_with("h\\u{1b}]0;title\\u{7}\\u{202e}.jsonl: INVALID"), "{text}");
}

#[test]
fn json_output_escapes_them_as_json_does() {
    let json = findings::json(&write_skew());
    assert_inert("json", &json, &['\n']);
    for escape in ["\\u001b", "\\u0007", "\\u009B", "\\u202E", "\\u202D", "\\u2066", "\\u2028", "\\u2029"] {
        assert!(json.contains(escape), "{escape} in the JSON");
    }
    let value: serde_json::Value = serde_json::from_str(&json).expect("still JSON");
    fn holds(value: &serde_json::Value, s: &str) -> bool {
        match value {
            serde_json::Value::String(t) => t.contains(s),
            serde_json::Value::Array(xs) => xs.iter().any(|x| holds(x, s)),
            serde_json::Value::Object(m) => m.values().any(|x| holds(x, s)),
            _ => false,
        }
    }
    assert!(holds(&value, KEY_A) && holds(&value, KEY_B), "and the same keys once parsed");
}

#[test]
fn html_markdown_junit_svg_and_dot_show_them_escaped() {
    let result = write_skew();
    let report = Report::check(SOURCE, &result).with_replays(replays(&result));
    let keys = format!("{KEY_A}{KEY_B}");
    let html = findings::report_html(&report);
    assert_inert("html", &html, &['\n', '\t']);
    assert_shown("html", &html, &format!("{keys}{SOURCE}"));
    let md = findings::report_markdown(&report);
    assert_inert("markdown", &md, &['\n', '\t']);
    assert_shown("markdown", &md, &keys);
    let junit = findings::report_junit(&report, JunitOptions::default());
    assert_inert("junit", &junit, &['\n', '\t']);
    roxmltree::Document::parse(&junit).expect("junit.xml is well-formed");
    let cycle = result.anomalies["G2-item"][0].as_cycle().unwrap();
    let svg = findings::cycle_svg("G2-item", 1, cycle);
    assert_inert("svg", &svg, &['\n', '\t']);
    assert_shown("svg", &svg, &keys);
    roxmltree::Document::parse(&svg).expect("the picture is well-formed XML");
    let dot = findings::dot("G2-item", 1, cycle);
    assert_inert("dot", &dot, &['\n']);
}

#[test]
fn the_files_of_a_report_replays_included_hold_none_raw() {
    let result = write_skew();
    let report = Report::check(SOURCE, &result).with_replays(replays(&result));
    let dir = tempfile::tempdir().unwrap();
    findings::write_report(dir.path(), &report, &OutOptions::default()).unwrap();
    let mut files = vec![];
    let mut stack = vec![dir.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { stack.push(path) } else { files.push(path) }
        }
    }
    assert!(files.iter().any(|f| f.extension().is_some_and(|e| e == "toml")), "a replay is written: {files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for c in text.chars() {
            assert!(!findings::escape::steers(c) || matches!(c, '\n' | '\t'), "{}: {c:?} raw", file.display());
        }
    }
}

#[test]
fn the_escapes_in_one_place() {
    use findings::escape::{markdown, terminal, terminal_text, toml_text, xml};
    assert_eq!(terminal("a\u{1b}[0m\n\u{202e}"), "a\\u{1b}[0m\\u{a}\\u{202e}");
    assert_eq!(terminal_text("a\u{1b}\n\tb\u{2028}"), "a\\u{1b}\n\tb\\u{2028}");
    assert_eq!(terminal("plain é"), "plain é");
    assert_eq!(xml("<\u{202e}>\t"), "&lt;\\u{202e}&gt;\t");
    assert_eq!(markdown("x\u{7}|"), "x\\u{7}\\|");
    assert_eq!(toml_text("note = \"\u{202e}\""), "note = \"\\u202E\"");
}
