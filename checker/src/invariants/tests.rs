//! The invariant checks on small histories written out in full.

use histories::{Format, History, parse};

use super::*;

fn history(lines: &[&str]) -> History {
    parse(&lines.join("\n"), Format::JsonLines, "test.jsonl").unwrap()
}

fn by_name<'a>(invariants: &'a [Invariant], name: &str) -> &'a Invariant {
    invariants.iter().find(|i| i.name == name).unwrap_or_else(|| panic!("no {name} in {invariants:?}"))
}

const INIT_50_50: [&str; 2] = [
    r#"{"type":"invoke","process":0,"f":"init","value":{"0":50,"1":50}}"#,
    r#"{"type":"ok","process":0,"f":"init","value":{"0":50,"1":50}}"#,
];

/// Two withdrawals that each saw 100 and took 50 from a different account, then a read of the -100 left.
fn write_skew_overdraft() -> History {
    let mut lines = INIT_50_50.to_vec();
    lines.extend([
        r#"{"type":"invoke","process":0,"f":"withdraw","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"invoke","process":1,"f":"withdraw","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":0,"f":"withdraw","value":[["r",0,50],["r",1,50],["w",0,-50]]}"#,
        r#"{"type":"ok","process":1,"f":"withdraw","value":[["r",0,50],["r",1,50],["w",1,-50]]}"#,
        r#"{"type":"invoke","process":2,"f":"read","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":2,"f":"read","value":[["r",0,-50],["r",1,-50]]}"#,
    ]);
    history(&lines)
}

#[test]
fn concurrent_withdrawals_that_each_saw_enough_overdraw_and_are_named() {
    let h = write_skew_overdraft();
    assert_eq!(InvariantSuite::detect(&h), Some(InvariantSuite::Withdraw));
    let invariants = check(&h);
    let negative = by_name(&invariants, "total-never-negative");
    assert!(!negative.holds);
    assert_eq!(negative.txns, vec![7], "the final read saw -100");
    assert!(negative.explanation.contains("T7 read 0 = -50, 1 = -50 (total -100)"), "{}", negative.explanation);
    assert!(negative.explanation.contains("The withdrawals that overdrew: T5."), "{}", negative.explanation);
    let within = by_name(&invariants, "withdrawals-within-total");
    assert!(!within.holds);
    assert_eq!(within.txns, vec![5]);
    assert_eq!(within.figures["allowed_withdrawals"], 1);
    assert_eq!(within.figures["committed_withdrawals"], 2);
    assert!(
        within.explanation.contains(
            "T5 read a total of 100 and withdrew 100 from account 1, but only 0 was left: after it the total was -100; \
             it did not see 100 withdrawn by withdrawals that committed while it ran (T4): write skew"
        ),
        "{}",
        within.explanation
    );
    assert!(by_name(&invariants, "final-total").holds, "the money that went is the money withdrawn");
    let result = CheckResult::from_invariants(&h, "bank", invariants, "the workload's reads are registers");
    assert_eq!(result.valid, Validity::Invalid);
    assert_eq!(result.checked.workload, "bank, invariants only");
    assert_eq!(
        result.stats.blind_spots,
        ["the dependency graph was not checked: the workload's reads are registers; only the invariants were checked"]
    );
    assert_eq!(CheckResult::from_invariants(&h, "ycsb-a", Vec::new(), "bytes").valid, Validity::Unknown);
}

#[test]
fn withdrawals_one_at_a_time_keep_every_invariant() {
    let mut lines = INIT_50_50.to_vec();
    lines.extend([
        r#"{"type":"invoke","process":0,"f":"withdraw","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":0,"f":"withdraw","value":[["r",0,50],["r",1,50],["w",0,-50]]}"#,
        r#"{"type":"invoke","process":1,"f":"withdraw","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":1,"f":"withdraw","value":[["r",0,-50],["r",1,50]]}"#,
        r#"{"type":"invoke","process":1,"f":"withdraw","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"fail","process":1,"f":"withdraw","value":[["r",0,null],["r",1,null]],"error":"40001"}"#,
        r#"{"type":"invoke","process":2,"f":"read","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":2,"f":"read","value":[["r",0,-50],["r",1,50]]}"#,
    ]);
    let invariants = check(&history(&lines));
    assert_eq!(invariants.len(), 3);
    assert!(invariants.iter().all(|i| i.holds), "{invariants:#?}");
    let final_total = by_name(&invariants, "final-total");
    assert_eq!(final_total.figures["final_total"], 0);
    assert_eq!(final_total.figures["expected_final_total"], 0);
}

#[test]
fn a_lost_withdrawal_breaks_the_final_total() {
    let mut lines = INIT_50_50.to_vec();
    lines.extend([
        r#"{"type":"invoke","process":0,"f":"withdraw","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"invoke","process":1,"f":"withdraw","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":0,"f":"withdraw","value":[["r",0,50],["r",1,50],["w",0,0]]}"#,
        r#"{"type":"ok","process":1,"f":"withdraw","value":[["r",0,50],["r",1,50],["w",0,0]]}"#,
        r#"{"type":"invoke","process":2,"f":"read","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":2,"f":"read","value":[["r",0,0],["r",1,50]]}"#,
    ]);
    let invariants = check(&history(&lines));
    let final_total = by_name(&invariants, "final-total");
    assert!(!final_total.holds);
    assert_eq!(final_total.figures["final_total"], 50);
    assert_eq!(final_total.figures["expected_final_total"], 0);
    assert!(final_total.explanation.contains("lost update"), "{}", final_total.explanation);
}

#[test]
fn an_indeterminate_withdrawal_may_or_may_not_have_happened() {
    let mut lines = INIT_50_50.to_vec();
    lines.extend([
        r#"{"type":"invoke","process":0,"f":"withdraw","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":0,"f":"withdraw","value":[["r",0,50],["r",1,50],["w",0,40]]}"#,
        r#"{"type":"invoke","process":1,"f":"withdraw","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"info","process":1,"f":"withdraw","value":[["r",0,null],["r",1,null],["w",1,40]],"error":"connection lost"}"#,
        r#"{"type":"invoke","process":2,"f":"read","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":2,"f":"read","value":[["r",0,40],["r",1,40]]}"#,
    ]);
    let final_total = check(&history(&lines)).into_iter().find(|i| i.name == "final-total").unwrap();
    assert!(final_total.holds, "{}", final_total.explanation);
    assert_eq!(final_total.figures["expected_final_total"], serde_json::json!([80, 90]));
}

#[test]
fn a_transfer_read_that_sees_a_wrong_total_or_a_negative_balance_breaks_the_bank() {
    let lines = [
        INIT_50_50[0],
        INIT_50_50[1],
        r#"{"type":"invoke","process":0,"f":"transfer","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":0,"f":"transfer","value":[["r",0,50],["r",1,50],["w",0,20],["w",1,80]]}"#,
        r#"{"type":"invoke","process":1,"f":"read","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":1,"f":"read","value":[["r",0,20],["r",1,50]]}"#,
        r#"{"type":"invoke","process":1,"f":"read","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":1,"f":"read","value":[["r",0,20],["r",1,80]]}"#,
    ];
    let h = history(&lines);
    assert_eq!(InvariantSuite::detect(&h), Some(InvariantSuite::Transfer));
    let invariants = check(&h);
    let preserved = by_name(&invariants, "total-preserved");
    assert!(!preserved.holds);
    assert_eq!(preserved.txns, vec![5]);
    assert!(preserved.explanation.contains("T5 read 0 = 20, 1 = 50 (total 70)"), "{}", preserved.explanation);
    assert!(by_name(&invariants, "no-negative-balance").holds);
}

#[test]
fn two_doctors_leaving_at_once_leave_nobody_on_call_and_both_are_named() {
    let lines = [
        r#"{"type":"invoke","process":0,"f":"init","value":{"0":1,"1":1}}"#,
        r#"{"type":"ok","process":0,"f":"init","value":{"0":1,"1":1}}"#,
        r#"{"type":"invoke","process":0,"f":"off-call","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"invoke","process":1,"f":"off-call","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":0,"f":"off-call","value":[["r",0,1],["r",1,1],["w",0,-2]]}"#,
        r#"{"type":"ok","process":1,"f":"off-call","value":[["r",0,1],["r",1,1],["w",1,-3]]}"#,
        r#"{"type":"invoke","process":2,"f":"read","value":[["r",0,null],["r",1,null]]}"#,
        r#"{"type":"ok","process":2,"f":"read","value":[["r",0,-2],["r",1,-3]]}"#,
    ];
    let h = history(&lines);
    assert_eq!(InvariantSuite::detect(&h), Some(InvariantSuite::WriteSkew));
    let invariants = check(&h);
    let every = by_name(&invariants, "on-call-in-every-read");
    assert!(!every.holds);
    assert_eq!(every.txns, vec![7, 4, 5]);
    assert!(
        every.explanation.contains(
            "T7 read 0 = -2, 1 = -3; the doctors were taken off call by T4 and T5:\n    T4 had read 0 = 1, 1 = 1 and took \
             doctor 0 off call"
        ),
        "{}",
        every.explanation
    );
    assert!(!by_name(&invariants, "on-call-at-the-end").holds);
}

#[test]
fn a_list_append_history_has_no_invariants() {
    let h = history(&[
        r#"{"type":"invoke","process":0,"value":[["append",1,1]]}"#,
        r#"{"type":"ok","process":0,"value":[["append",1,1]]}"#,
    ]);
    assert_eq!(InvariantSuite::detect(&h), None);
    assert!(check(&h).is_empty());
}

#[test]
fn the_suite_is_that_of_the_first_client_operation_naming_one_however_far_into_the_history() {
    // Thousands of list-append transactions first (read on all cores in pieces), a nemesis operation
    // named like a suite's, then a transfer and, later, a withdrawal.
    let mut lines: Vec<String> = (0..20_000)
        .map(|i| {
            format!(
                r#"{{"type":"{}","process":{},"value":[["append",1,{}]]}}"#,
                ["invoke", "ok"][i % 2],
                (i / 2) % 7,
                i / 2
            )
        })
        .collect();
    lines.push(r#"{"type":"info","process":"nemesis","f":"withdraw","value":null}"#.into());
    lines.push(r#"{"type":"invoke","process":8,"f":"transfer","value":[["r",0,null]]}"#.into());
    lines.extend((0..9_000).map(|i| format!(r#"{{"type":"invoke","process":{},"value":[["r",1,null]]}}"#, 10 + i)));
    lines.push(r#"{"type":"invoke","process":9,"f":"withdraw","value":[["r",0,null]]}"#.into());
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(InvariantSuite::detect(&history(&lines)), Some(InvariantSuite::Transfer));
    // Without the transfer, the withdrawal (the nemesis's operation is not a client's).
    let without: Vec<&str> = lines.iter().copied().filter(|l| !l.contains("transfer")).collect();
    assert_eq!(InvariantSuite::detect(&history(&without)), Some(InvariantSuite::Withdraw));
}

/// The write skew above overdraws: serializability promises the bank's invariants, so the verdict is
/// invalid; snapshot isolation permits write skew, so a correct SI system may overdraw and the verdict
/// stands, with the invariants still reported broken.
#[test]
fn a_broken_invariant_decides_only_under_models_that_promise_it() {
    let h = write_skew_overdraft();
    let judged = |model: &str| {
        let options = crate::Options::new(&[model.to_string()], &[]).unwrap();
        check_history(&h, &options, "bank (withdraw)", GraphPolicy::WhereReadable).unwrap().0
    };
    let serializable = judged("serializable");
    assert_eq!(serializable.valid, Validity::Invalid);
    assert_eq!(serializable.anomaly_types, vec!["G2-item"]);
    let negative = by_name(&serializable.invariants, "total-never-negative");
    assert!(!negative.holds && negative.promised);
    assert_eq!(negative.broken_by, vec!["G2-item"]);

    let si = judged("snapshot-isolation");
    assert_eq!(si.valid, Validity::Valid, "{:?}", si.anomaly_types);
    let negative = by_name(&si.invariants, "total-never-negative");
    assert!(!negative.holds && !negative.promised);
    // The lost-update invariant is one SI promises, and it held.
    let total = by_name(&si.invariants, "final-total");
    assert!(total.holds && total.promised);
}
