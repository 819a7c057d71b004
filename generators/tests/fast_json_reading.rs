//! Every history the generators write (list-append and rw-register, several seeds, with `fail` and
//! `info` outcomes, and again with errors, commit positions and write versions added) reads the same
//! with the JSON Lines reader's fast path and without it, and the fast path takes every line: a
//! generated line is the common shape it exists for.

use generators::serial::{Schedule, SerialRun};
use generators::{ListAppend, Params, RwRegister};
use histories::reader_comparison::{read_lines_both_ways, read_object_both_ways};
use histories::{Mop, Op, OpType, OpValue};

/// The generated history of `txns` as JSON Lines.
fn jsonl(ops: &[Op]) -> String {
    let mut out = Vec::new();
    histories::write_jsonl(ops, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// The same operations with every field the fast path reads: an error on each `fail` and `info`, a
/// commit position on each `ok`, and a version on each write of an `ok`.
fn with_every_field(ops: &[Op]) -> Vec<Op> {
    ops.iter()
        .enumerate()
        .map(|(i, op)| {
            let mut op = op.clone();
            match op.kind {
                OpType::Fail => op.set_error(Some("40001".into())),
                OpType::Info => op.set_error(Some("connection lost: \u{e9}".into())),
                OpType::Ok => {
                    op.set_commit_order(Some(i as i64 - 50));
                    if let OpValue::Txn(mops) = &mut op.value {
                        mops.edit(|mops| {
                            for (n, mop) in mops.iter_mut().enumerate() {
                                if let Mop::Write { version, .. } = mop {
                                    *version = histories::WriteVersion::new((i * 8 + n) as i64);
                                }
                            }
                        });
                    }
                }
                OpType::Invoke => {}
            }
            op
        })
        .collect()
}

/// Checks one history's text line by line and whole; returns how many lines it had.
fn reads_the_same(text: &str) -> usize {
    let mut lines = 0;
    for line in text.lines() {
        lines += 1;
        let (fast, general) = read_object_both_ways(line);
        let fast = fast.unwrap_or_else(|| panic!("the fast path declined a generated line: {line}"));
        assert_eq!(Ok(fast), general, "the fast path read {line:?} differently");
    }
    let (fast, general) = read_lines_both_ways(text);
    assert!(fast.is_ok(), "{fast:?}");
    assert_eq!(fast, general);
    lines
}

#[test]
fn generated_histories_read_the_same_with_the_fast_path_and_without_it() {
    let params = Params { key_count: 5, min_txn_len: 1, max_txn_len: 4, max_writes_per_key: 8, ..Params::default() };
    let mut outcomes = [0usize; 4];
    for seed in 1..=6u64 {
        let list_append: Vec<Vec<Mop>> = ListAppend::new(params, seed).expect("valid parameters").take(300).collect();
        let rw_register: Vec<Vec<Mop>> = RwRegister::new(params, seed).expect("valid parameters").take(300).collect();
        for txns in [list_append, rw_register] {
            let schedule =
                Schedule { clients: 1 + seed as usize, max_overlap: 3, fail_fraction: 0.15, info_fraction: 0.15 };
            let ops = SerialRun::with_schedule(&txns, seed, schedule).history.into_ops();
            for op in &ops {
                outcomes[op.kind as usize] += 1;
            }
            assert_eq!(reads_the_same(&jsonl(&ops)), ops.len());
            reads_the_same(&jsonl(&with_every_field(&ops)));
        }
    }
    // Every outcome was read, so each shape of completion was held to the general reader.
    assert!(outcomes.iter().all(|&n| n > 50), "invoke, ok, fail, info: {outcomes:?}");
}
