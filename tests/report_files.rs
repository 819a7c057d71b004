//! The findings files end to end: what `--out` leaves for a check and for a run, the HTML report opened
//! in headless Chromium (no console errors, the anomaly and its cycle's picture in the DOM), markup in a
//! history shown as text by a real browser, and logs on stderr only.

use crate::util;
use std::path::Path;

use crate::util::{chromium, isocheck, open_in_chromium, repo, temp_file};

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        walk(dir).into_iter().map(|p| p.strip_prefix(dir).unwrap().display().to_string()).collect();
    names.sort();
    names
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_check_with_out_writes_every_report_and_a_picture_and_replay_per_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("findings");
    let example = repo("examples/realtime-g1a-g1c.jsonl");
    let out = isocheck(&["check", example.to_str().unwrap(), "--out", out_dir.to_str().unwrap()], None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        files(&out_dir),
        [
            "cycles/G-single-item-realtime-1.dot",
            "cycles/G-single-item-realtime-1.svg",
            "cycles/G1c-1.dot",
            "cycles/G1c-1.svg",
            "cycles/G1c-1.toml",
            "findings.json",
            "junit.xml",
            "report.html",
            "report.md",
        ]
    );
    let svg = std::fs::read_to_string(out_dir.join("cycles/G1c-1.svg")).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{svg}");
    for label in ["wr &quot;a&quot;", "wr &quot;b&quot;", "wr &quot;c&quot;"] {
        assert!(svg.contains(label), "the picture labels {label}");
    }
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(md.contains("#### G1a #1: T7, T5"), "{md}");
    // The stale read of the real-time cycle has no schedule, and the report says so instead of a replay.
    assert!(md.contains("No step-by-step replay: no order of the statements makes every edge"), "{md}");
    let replay = std::fs::read_to_string(out_dir.join("cycles/G1c-1.toml")).unwrap();
    assert!(replay.starts_with("name = \"G1c-1\"\ncolumn = \"G1c\"\n"), "{replay}");
    assert!(out.stderr.contains("report.html"), "stderr says where the report is: {}", out.stderr);
}

#[test]
#[ignore = "needs Chromium: set ISOCHECK_CHROMIUM or put chromium on PATH, or run scripts/test"]
fn the_html_report_of_a_run_with_an_anomaly_opens_in_chromium_without_errors() {
    let chromium = chromium("the_html_report_of_a_run_with_an_anomaly_opens_in_chromium_without_errors");
    let (code, json, dir) = util::run_json(&["--defect", "ssi-off"]);
    assert_eq!(code, 1, "{json}");
    let report = dir.path().join("run/report.html");
    let page = open_in_chromium(&chromium, &report);
    assert!(page.console.is_empty(), "the page logged: {:#?}", page.console);
    let dom = &page.dom;
    assert!(dom.contains("<article class=\"anomaly\" id=\"G2-item-1\" data-anomaly=\"G2-item\">"), "{dom}");
    let article = &dom[dom.find("id=\"G2-item-1\"").unwrap()..];
    let figure = &article[article.find("<figure class=\"cycle\">").expect("the anomaly has a cycle figure")..];
    assert!(figure[..200].contains("<svg"), "the figure holds an inline SVG: {}", &figure[..200]);
    assert!(figure.contains("<title>G2-item #1: a dependency cycle of"), "the picture is the cycle's");
    assert!(dom.contains("<figure class=\"chart throughput\">") && dom.contains("<figure class=\"chart aborts\">"));
    assert!(dom.contains("<figure class=\"timeline\">"));
}

#[test]
#[ignore = "needs Chromium: set ISOCHECK_CHROMIUM or put chromium on PATH, or run scripts/test"]
fn markup_in_a_history_is_text_in_the_browser() {
    let chromium = chromium("markup_in_a_history_is_text_in_the_browser");
    let key = "<script>document.title='pwned'</script>";
    let k = serde_json::to_string(key).unwrap();
    let history = format!(
        "{{\"type\":\"invoke\",\"process\":0,\"time\":0,\"value\":[[\"append\",{k},1],[\"r\",\"y\",null]]}}\n\
         {{\"type\":\"invoke\",\"process\":1,\"time\":5,\"value\":[[\"append\",\"y\",1],[\"r\",{k},null]]}}\n\
         {{\"type\":\"ok\",\"process\":0,\"time\":10,\"value\":[[\"append\",{k},1],[\"r\",\"y\",[]]]}}\n\
         {{\"type\":\"ok\",\"process\":1,\"time\":15,\"value\":[[\"append\",\"y\",1],[\"r\",{k},[]]]}}\n"
    );
    let (dir, path) = temp_file("hostile.jsonl", &history);
    let out_dir = dir.path().join("out");
    let out = isocheck(&["check", path.to_str().unwrap(), "--out", out_dir.to_str().unwrap()], None);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let page = open_in_chromium(&chromium, &out_dir.join("report.html"));
    assert!(page.console.is_empty(), "the page logged: {:#?}", page.console);
    assert!(!page.dom.to_lowercase().contains("<script"), "no script element in the DOM");
    assert!(!page.dom.contains("<title>pwned</title>"));
    assert!(page.dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"), "the key is shown as text");
}

#[test]
fn logs_go_to_stderr_and_stdout_carries_only_the_result() {
    let example = repo("examples/write-skew.jsonl");
    let quiet = isocheck(&["check", example.to_str().unwrap(), "--format", "json"], None);
    assert!(quiet.stderr.is_empty(), "no logs without -v: {}", quiet.stderr);
    let verbose = isocheck(&["-vv", "check", example.to_str().unwrap(), "--format", "json"], None);
    assert_eq!(verbose.stdout, quiet.stdout, "-v changes nothing on stdout");
    serde_json::from_str::<serde_json::Value>(&verbose.stdout).expect("stdout is still one JSON object");
    assert!(verbose.stderr.contains("[INFO ] read 10 operations from"), "{}", verbose.stderr);
    assert!(verbose.stderr.contains("checked 5 transactions in"), "{}", verbose.stderr);
    let after = isocheck(&["check", example.to_str().unwrap(), "-v"], None);
    assert!(after.stderr.contains("[INFO ]"), "-v is accepted after the command too");
}

#[test]
fn graphviz_falls_back_to_the_in_process_picture_when_dot_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let example = repo("examples/write-skew.jsonl");
    let out = util::isocheck_with_env(
        &["check", example.to_str().unwrap(), "--out", out_dir.to_str().unwrap(), "--graphviz"],
        &[("PATH", dir.path().to_str().unwrap())],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("Graphviz's dot is not on PATH"), "{}", out.stderr);
    let svg = std::fs::read_to_string(out_dir.join("cycles/G2-item-1.svg")).unwrap();
    assert!(svg.contains("<title>G2-item #1: a dependency cycle of T6, T7</title>"));
}
