//! How a scenario check reads in the text report: a broken invariant with its evidence, the invariants
//! that held, and a flag as a warning.

use checker::invariants::{GraphPolicy, check_history};
use checker::{Flag, Options};
use histories::{Format, parse};

const OVERDRAWN: &str = r#"{"type":"invoke","process":0,"f":"init","value":{"0":50,"1":50}}
{"type":"ok","process":0,"f":"init","value":{"0":50,"1":50}}
{"type":"invoke","process":0,"f":"withdraw","value":[["r",0,null],["r",1,null]]}
{"type":"invoke","process":1,"f":"withdraw","value":[["r",0,null],["r",1,null]]}
{"type":"ok","process":0,"f":"withdraw","value":[["r",0,50],["r",1,50],["w",0,-50]]}
{"type":"ok","process":1,"f":"withdraw","value":[["r",0,50],["r",1,50],["w",1,-50]]}
{"type":"invoke","process":2,"f":"read","value":[["r",0,null],["r",1,null]]}
{"type":"ok","process":2,"f":"read","value":[["r",0,-50],["r",1,-50]]}"#;

#[test]
fn a_broken_invariant_reads_with_its_evidence_and_a_flag_as_a_warning() {
    let history = parse(OVERDRAWN, Format::JsonLines, "bank.jsonl").unwrap();
    // The graph check is skipped here, as for a history whose micro-ops it cannot read soundly.
    let (mut result, graph) =
        check_history(&history, &Options::default(), "bank", GraphPolicy::Unsound("shown without it")).unwrap();
    assert_eq!(graph.describe(), "not applicable: shown without it");
    result.flags.push(Flag {
        name: "fully-serialized".into(),
        message: "4 clients ran 4 transactions that each held 100 ms inside.".into(),
        figures: serde_json::Map::new(),
    });
    insta::assert_snapshot!(findings::text(&result, "bank.jsonl"), @r#"
    bank.jsonl: INVALID (bank, invariants only)
    Caution: a partial view: 0 of 2 keys with a version order the history shows, 0 data dependencies inferred (see "Could not see" below)
    Warning: fully-serialized: 4 clients ran 4 transactions that each held 100 ms inside.
    Invariant held: final-total: The final read (T7) found a total of -100: the initial 100 less the 2 committed withdrawals (100 - 200 = -100).

    Invariant broken: total-never-negative
      1 read of all accounts shows a total below 0:
        T7 read 0 = -50, 1 = -50 (total -100)
      The withdrawals that overdrew: T5.

    Invariant broken: withdrawals-within-total
      2 withdrawals of 100 took 200, and 100 allowed 1: 1 withdrawal overdrew.
        T5 read a total of 100 and withdrew 100 from account 1, but only 0 was left: after it the total was -100; it did not see 100 withdrawn by withdrawals that committed while it ran (T4): write skew.

    Saw 8 operations: 3 transactions (3 ok, 0 fail, 0 info); 2 keys, 0 with a version order the history shows; dependencies: none
    Could not see: the dependency graph was not checked: shown without it; only the invariants were checked
    "#);
    let json: serde_json::Value = serde_json::from_str(&findings::json(&result)).unwrap();
    assert_eq!(json["valid"], false);
    assert_eq!(json["invariants"][2]["name"], "withdrawals-within-total");
    assert_eq!(json["invariants"][2]["txns"], serde_json::json!([5]));
    assert_eq!(json["invariants"][2]["ops"][0]["index"], 5);
}
