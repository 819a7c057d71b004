//! Reads of a key's list share storage as they are read (`ReadLists`: long lists from a reading's
//! start, every list once it is past a size), and that sharing never changes what a read returned: a
//! large history with reads that repeat, extend, lag behind and disagree with each other reads back as
//! written in every format, on both cores; long reads that repeat or extend one another lie in one run,
//! and short ones in a small history are copies.

use histories::{Format, History, Key, Mop, Observed, Op, OpType, parse, write_history};

/// A pseudo-random number below `n` from `state` (a linear congruential step; the tests need no more).
fn below(state: &mut u64, n: u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*state >> 33) % n
}

/// `n` transactions on 8 processes over 300 keys, each an invocation and its completion: appends of
/// fresh values, and reads that return the key's whole list, a stale prefix of it, or (one read in
/// fifty) a list that disagrees with it in its last element.
fn history(n: usize) -> Vec<Op> {
    let mut state = 7;
    let mut lists: Vec<Vec<i64>> = vec![Vec::new(); 300];
    let mut ops = Vec::with_capacity(2 * n);
    let mut next_value = 1;
    for t in 0..n {
        let process = (t % 8) as u64;
        let (mut invoked, mut completed) = (Vec::new(), Vec::new());
        for _ in 0..1 + below(&mut state, 4) {
            let k = below(&mut state, 300) as usize;
            let key = Key::Int(k as i64);
            if below(&mut state, 2) == 0 {
                lists[k].push(next_value);
                let mop = Mop::Append { key, value: next_value };
                next_value += 1;
                invoked.push(mop.clone());
                completed.push(mop);
            } else {
                let whole = &lists[k];
                let mut seen = match below(&mut state, 4) {
                    0 => whole[..below(&mut state, whole.len() as u64 + 1) as usize].to_vec(),
                    _ => whole.clone(),
                };
                if below(&mut state, 50) == 0 {
                    seen.push(-1);
                }
                invoked.push(Mop::Read { key: key.clone(), value: Observed::Nil });
                completed.push(Mop::Read { key, value: Observed::List(seen.into()) });
            }
        }
        for (kind, mops) in [(OpType::Invoke, invoked), (OpType::Ok, completed)] {
            let mut op = Op::txn(kind, process, mops);
            op.index = ops.len() as u64;
            ops.push(op);
        }
    }
    History::from_ops(ops).expect("a well-formed history").into_ops()
}

/// The micro-ops of every operation, as values.
fn mops(ops: &[Op]) -> Vec<Vec<Mop>> {
    ops.iter().map(|op| op.written_mops().map(|mop| mop.into_owned()).collect()).collect()
}

#[test]
fn a_large_history_reads_back_as_written_in_every_format() {
    // Over 1 MiB: JSON Lines in pieces of 512 KiB, read on both cores.
    let written = history(15_000);
    for format in [Format::JsonLines, Format::JsonArray, Format::Edn] {
        let mut text = Vec::new();
        write_history(&written, format, &mut text).unwrap();
        assert!(text.len() > 1 << 20, "{} bytes", text.len());
        let read = parse(std::str::from_utf8(&text).unwrap(), format, "h").unwrap();
        assert_eq!(read.ops().len(), written.len());
        assert_eq!(mops(read.ops()), mops(&written), "{format:?}");
    }
}

#[test]
fn long_reads_that_repeat_or_extend_each_other_lie_in_one_run_and_others_apart() {
    // Lists of 40 elements and more, then the same history with lists of 1 to 4 (none shared).
    for (base, long) in [(40, true), (0, false)] {
        let list = |tail: &[i64]| {
            let mut list: Vec<i64> = (100..100 + base).collect();
            list.extend(tail);
            Observed::List(list.into())
        };
        let read = |k: i64, tail: &[i64]| Mop::Read { key: Key::Int(k), value: list(tail) };
        let written = [
            vec![read(1, &[5, 6])],
            vec![read(1, &[5, 6, 7]), read(2, &[5, 6, 7])],
            vec![read(1, &[5])],
            vec![read(1, &[5, 8])],
            vec![read(1, &[5, 6, 7, 9])],
        ];
        lists_lie_as_expected(&written, long);
    }
}

/// Reads each transaction of reads `written` (one per process, invoked and then completed) in every
/// format, and checks where the lists lie: the second, third and fifth with the first (if `long`; each
/// apart otherwise), the other key's and the disagreeing one apart.
fn lists_lie_as_expected(written: &[Vec<Mop>], long: bool) {
    let mut ops = Vec::new();
    for (process, mops) in written.iter().enumerate() {
        let invoked = mops.iter().map(|m| Mop::Read { key: m.key().unwrap().clone(), value: Observed::Nil }).collect();
        for (kind, mops) in [(OpType::Invoke, invoked), (OpType::Ok, mops.clone())] {
            let mut op = Op::txn(kind, process as u64, mops);
            op.index = ops.len() as u64;
            ops.push(op);
        }
    }
    let expected: Vec<&Mop> = written.iter().flatten().collect();
    for format in [Format::JsonLines, Format::JsonArray, Format::Edn] {
        let mut converted = Vec::new();
        write_history(&ops, format, &mut converted).unwrap();
        let history = parse(std::str::from_utf8(&converted).unwrap(), format, "h").unwrap();
        let completions = history.ops().iter().filter(|op| op.kind == OpType::Ok);
        assert_eq!(completions.flat_map(|op| op.mops()).collect::<Vec<_>>(), expected, "{format:?}");
        let lists: Vec<&[i64]> = history
            .ops()
            .iter()
            .filter(|op| op.kind == OpType::Ok)
            .flat_map(|op| op.mops())
            .filter_map(|mop| match mop {
                Mop::Read { value: Observed::List(list), .. } => Some(list.as_slice()),
                _ => None,
            })
            .collect();
        let [a, b, other_key, stale, disagreeing, extended] = lists[..] else { panic!("{lists:?}") };
        for shared in [b, stale, extended] {
            match long {
                true => assert_eq!(shared.as_ptr(), a.as_ptr(), "{format:?}: {shared:?} in {a:?}'s run"),
                false => assert_ne!(shared.as_ptr(), a.as_ptr(), "{format:?}: {shared:?} a copy"),
            }
        }
        for apart in [other_key, disagreeing] {
            assert_ne!(apart.as_ptr(), a.as_ptr(), "{format:?}: {apart:?} apart from {a:?}'s run");
        }
    }
}
