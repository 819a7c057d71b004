//! Explanations a person can check against the history: one sentence per step of a cycle, for each
//! kind of step (Elle's wording, with our keys shown as the history writes them), the whole "Let ...
//! Then ... a contradiction!" text, and the sentence of each non-cycle anomaly.

use crate::support::*;

#[test]
fn a_ww_step_names_both_appends() {
    let r = check_default(&concurrent(&["ax1ay1", "ax2ay2", "rx12ry21"]));
    assert_eq!(
        explanations(only_cycle(&r, "G0")),
        vec![r#"T4 appended 2 after T3 appended 1 to "x""#, r#"T3 appended 1 after T4 appended 2 to "y""#]
    );
}

#[test]
fn a_wr_step_names_the_append_observed() {
    let r = check_default(&concurrent(&["ax1ry1", "ax2ay1", "rx12ry1"]));
    assert_eq!(explanations(only_cycle(&r, "G1c"))[1], r#"T3 observed T4's append of 1 to key "y""#);
}

#[test]
fn an_rw_step_names_the_append_missed_or_the_initial_state() {
    let r = check_default(&concurrent(&["ax1ry", "ay1rx"]));
    assert_eq!(
        explanations(only_cycle(&r, "G2-item")),
        vec![
            r#"T2 observed the initial (empty) state of "y", which T3 created by appending 1"#,
            r#"T3 observed the initial (empty) state of "x", which T2 created by appending 1"#,
        ]
    );
    let r = check_default(&sequential(&["ax1", "ax2", "rx1", "rx12"]));
    assert_eq!(
        explanations(only_cycle(&r, "G-single-item-realtime")),
        vec![
            "T3 completed at index 3, 0.001 seconds before the invocation of T5, at index 4",
            r#"T5 did not observe T3's append of 2 to "x""#,
        ]
    );
}

#[test]
fn a_process_step_names_the_process() {
    let h = sequential_of(vec![ok(0, "ax1"), ok(1, "ax2"), ok(1, "rx1"), ok(2, "rx12")]);
    let r = check_models(&h, &["strong-session-snapshot-isolation"]);
    assert_eq!(explanations(only_cycle(&r, "G-single-item-process"))[0], "process 1 executed T3 before T5");
}

/// T1 appends 1, then T3 appends 2, then T5 reads x = [2 1]: a G0-realtime whose first step is real
/// time. `time` gives each operation's time from its index, or none.
fn stale_appends(time: impl Fn(u64) -> Option<i64>) -> histories::History {
    let ops = [
        (0, "invoke", 0, r#"[["append", "x", 1]]"#),
        (1, "ok", 0, r#"[["append", "x", 1]]"#),
        (2, "invoke", 1, r#"[["append", "x", 2]]"#),
        (3, "ok", 1, r#"[["append", "x", 2]]"#),
        (4, "invoke", 2, r#"[["r", "x", null]]"#),
        (5, "ok", 2, r#"[["r", "x", [2, 1]]]"#),
    ];
    let text: String = ops
        .iter()
        .map(|&(index, kind, process, value)| {
            let time = time(index).map_or(String::new(), |t| format!(r#", "time": {t}"#));
            format!(r#"{{"index": {index}, "type": "{kind}", "process": {process}{time}, "value": {value}}}"#) + "\n"
        })
        .collect();
    parse(&text)
}

#[test]
fn a_realtime_step_says_how_long_before_when_it_knows() {
    let first_step = |h: &histories::History| {
        let r = check_default(h);
        explanations(only_cycle(&r, "G0-realtime"))[0].to_string()
    };
    assert_eq!(
        first_step(&stale_appends(|index| Some(index as i64 * 750_000_000))),
        "T1 completed at index 1, 0.750 seconds before the invocation of T3, at index 2"
    );
    // Clocks that do not advance: "just" before.
    assert_eq!(
        first_step(&stale_appends(|_| Some(7))),
        "T1 completed at index 1, just before the invocation of T3, at index 2"
    );
    assert_eq!(
        first_step(&stale_appends(|_| None)),
        "T1 completed at index 1, before the invocation of T3, at index 2"
    );
}

#[test]
fn a_cycle_is_explained_as_elle_explains_it() {
    let r = check_default(&concurrent(&["ax1ay1", "ax2ry", "rx12"]));
    assert_eq!(
        only_cycle(&r, "G-single-item").explanation,
        concat!(
            "Let:\n",
            "  T3 = {:index 3, :type :ok, :process 0, :value [[append \"x\" 1] [append \"y\" 1]]}\n",
            "  T4 = {:index 4, :type :ok, :process 1, :value [[append \"x\" 2] [r \"y\" []]]}\n",
            "\n",
            "Then:\n",
            "  - T3 < T4, because T4 appended 2 after T3 appended 1 to \"x\".\n",
            "  - However, T4 < T3, because T4 observed the initial (empty) state of \"y\", which T3 created by \
             appending 1: a contradiction!",
        )
    );
}

#[test]
fn each_non_cycle_anomaly_says_what_went_wrong() {
    let explanation = |h: &histories::History, name: &str| only_case(&check_default(h), name).explanation.clone();
    let h = concurrent_of(vec![fail(0, "ax1"), ok(1, "rx1")]);
    assert_eq!(
        explanation(&h, "G1a"),
        r#"T3 read key "x" = [1], which includes 1; but 1 was appended by T2, which aborted"#
    );
    assert_eq!(
        explanation(&sequential(&["ax1ax2", "rx1"]), "G1b"),
        r#"T3 read key "x" = [1], ending in 1; but T1 appended 1 and then 2 to key "x", so T3 saw a state T1 never committed"#
    );
    assert_eq!(
        explanation(&concurrent(&["ax1ax2ax4", "ax3rx1234"]), "internal"),
        r#"T3 read key "x" = [1 2 3 4], but its own earlier micro-ops mean it should have read [... 3]"#
    );
    assert_eq!(
        explanation(&sequential(&["rx1ax1"]), "future-read"),
        r#"T1 read [r "x" [1]], which includes 1, before it appended 1 to key "x" itself"#
    );
    assert_eq!(
        explanation(&concurrent_of(vec![fail(0, "ax1"), ok(1, "ax2"), ok(2, "rx12")]), "dirty-update"),
        r#"key "x" took the versions [1 2]: T3 aborted after appending 1, yet T4 committed an append (2) after it"#
    );
    assert_eq!(
        explanation(&concurrent(&["ax1", "ax2", "rx121"]), "duplicate-elements"),
        r#"T5 read key "x" = [1 2 1], which holds 1 (2 times); each element is appended once, so no version can hold it twice"#
    );
    assert_eq!(
        explanation(&concurrent(&["ax1", "ax2", "ax3", "rx13", "rx123"]), "incompatible-order"),
        r#"T8 read key "x" = [1 3] and T9 read it = [1 2 3]; neither is a prefix of the other, so no single order of appends explains both"#
    );
    assert_eq!(
        explanation(&sequential(&["ax0", "rx0ax1", "rx0ax2"]), "lost-update"),
        r#"T3, T5 all read key "x" = [0] and then appended to it, and all committed: each appended without seeing the others' appends, though they all read the same version, which no serial order allows (Elle's lost update: the appends need not be missing from later reads)"#
    );
    assert_eq!(
        explanation(&concurrent(&["ax1", "ax2", "rx12", "rx123"]), "garbage-read"),
        r#"T7 read key "x" = [1 2 3], but no operation appended [3] to key "x""#
    );
}
