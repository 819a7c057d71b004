//! Which workload a history is checked as: detected from its micro-ops unless the options say, and a
//! history mixing list-append and register micro-ops refused as input, with the operations to blame.

use checker::{Options, Workload, check};

use crate::support::*;

fn detected(history: &histories::History) -> String {
    check_default(history).checked.workload
}

fn refused(history: &histories::History, workload: Option<Workload>) -> String {
    check(history, &Options::default().with_workload(workload)).unwrap_err().to_string()
}

#[test]
fn the_micro_ops_name_the_workload() {
    assert_eq!(detected(&concurrent(&["ax1", "rx1"])), "list-append");
    assert_eq!(detected(&concurrent_of(registers(&["wx1", "rx1"]))), "rw-register");
    assert_eq!(detected(&with_init(&[("x", 1)], vec![], &[])), "closed-predicate");
    assert_eq!(detected(&concurrent_of(vec![ok_mops(0, vec![insert("x", 1)])])), "closed-predicate");
    // Reads of nil alone say nothing: list-append, as before registers were read.
    assert_eq!(detected(&concurrent_of(registers(&["rx_"]))), "list-append");
    // A predicate workload's plain reads and writes are register micro-ops, and belong with it.
    let h = with_init(&[("x", 1)], vec![rok(0, "wx2"), rok(1, "rx2")], &[0, 0, 1, 1]);
    assert_eq!(detected(&h), "closed-predicate");
}

#[test]
fn lists_and_registers_on_different_keys_are_refused_naming_both() {
    let h = sequential_of(vec![ok(0, "ax1"), rok(1, "wy1")]);
    assert_eq!(
        refused(&h, None),
        r#"4:1: [w "y" 1] is a register micro-op, but [append "x" 1] is a list-append micro-op (line 2): a history is checked as one workload (list-append, rw-register or closed-predicate), so check each workload's operations on their own"#
    );
    let h = sequential_of(vec![ok(0, "ay1"), ok_mops(1, vec![delete("x")])]);
    assert!(refused(&h, None).starts_with(r#"4:1: [delete "x"] is a predicate micro-op, but [append "y" 1]"#));
}

#[test]
fn a_list_read_of_a_register_key_is_refused_on_that_key() {
    let h = sequential_of(vec![rok(0, "wx1"), ok(1, "rx1")]);
    assert_eq!(
        refused(&h, None),
        r#"4:1: [r "x" [1]] uses key "x" as a list, but [w "x" 1] at line 2 uses it as a register: a key holds a list or a register, not both"#
    );
}

#[test]
fn an_explicit_workload_refuses_micro_ops_it_does_not_have() {
    let lists = concurrent(&["ax1", "rx1"]);
    assert_eq!(
        refused(&lists, Some(Workload::RwRegister)),
        r#"3:1: [append "x" 1] is a list-append micro-op, but this history is checked as rw-register, whose micro-ops are [w k v] and [r k v]"#
    );
    let rows = concurrent_of(vec![ok_mops(0, vec![insert("x", 1)])]);
    assert_eq!(
        refused(&rows, Some(Workload::RwRegister)),
        r#"2:1: [insert "x" 1] is a predicate micro-op, but this history is checked as rw-register, whose micro-ops are [w k v] and [r k v]"#
    );
    let init = with_init(&[("x", 1)], vec![rok(0, "rx1")], &[0, 0]);
    assert_eq!(
        refused(&init, Some(Workload::RwRegister)),
        "1:1: an init op belongs to the closed-predicate workload, but this history is checked as rw-register"
    );
    // A register history read as closed-predicate is fine: its micro-ops are a predicate workload's too.
    let registers = concurrent_of(registers(&["wx1", "rx1"]));
    let r = check_with(&registers, &Options::default().with_workload(Some(Workload::ClosedPredicate)));
    assert_eq!(r.checked.workload, "closed-predicate");
}

#[test]
fn workloads_are_named_as_elle_names_them() {
    for w in Workload::ALL {
        assert_eq!(Workload::parse(w.name()), Some(w));
    }
    assert_eq!(Workload::parse("bank"), None);
}
