//! Reading Plume's text format (Liu et al., OOPSLA 2024), which AWDIT (PLDI 2025) reads and writes too:
//! one event a line, `r(key,value,session,txn)` or `w(key,value,session,txn)`, all non-negative integers
//! but `txn`, which is -1 for a write of an aborted transaction. Value 0 is the initial state's, so a read
//! of 0 reads the initial state (nil here). A transaction's events are its micro-ops in the order of their
//! lines, and its session's order is the order in which the session's transactions first appear. The
//! history built has each session as a process, its transactions invoked and completed one after
//! another, round-robin over the sessions; each aborted write a failed transaction of one write on a
//! process of its own. This module owns only the reading; the formats are chosen in `lib`.

use rustc_hash::FxHashMap;

use crate::error::Located;
use crate::error::Problem;
use crate::key::Key;
use crate::mop::{Mop, Observed};
use crate::op::{Op, OpType};
use crate::parsed_op::{ParsedOp, ParsedOps};
use crate::position::Position;

/// A transaction as read: its micro-ops and the line of its first event.
struct Txn {
    mops: Vec<Mop>,
    line: u32,
}

/// One line's event: read or write, key, value, session, transaction (-1: aborted).
type Event = (bool, u64, u64, u64, i64);

/// Parses one line (1-based `line`), or says what it expected.
fn event(text: &str, line: u32) -> Result<Event, Located> {
    let bad = |what: &str| {
        (
            Position::new(line, 1),
            Problem::Shape(format!(
                "{what}: expected a Plume event, r(key,value,session,txn) or w(key,value,session,txn), of non-negative \
                 integers but txn, which is -1 for an aborted write; found {:?}",
                text.chars().take(80).collect::<String>()
            )),
        )
    };
    let write = match text.as_bytes().first() {
        Some(b'r') => false,
        Some(b'w') => true,
        _ => return Err(bad("not r( or w(")),
    };
    let inner = text[1..].strip_prefix('(').and_then(|t| t.strip_suffix(')')).ok_or_else(|| bad("no parentheses"))?;
    let mut parts = inner.split(',').map(str::trim);
    let mut unsigned = |name: &str| -> Result<u64, Located> {
        parts.next().and_then(|p| p.parse::<u64>().ok()).ok_or_else(|| bad(&format!("no {name}")))
    };
    let (key, value, session) = (unsigned("key")?, unsigned("value")?, unsigned("session")?);
    let txn = parts.next().and_then(|p| p.parse::<i64>().ok()).filter(|&t| t >= -1).ok_or_else(|| bad("no txn"))?;
    if parts.next().is_some() {
        return Err(bad("more than four fields"));
    }
    Ok((write, key, value, session, txn))
}

/// A Plume integer as a history's key or value.
fn int(n: u64, line: u32, what: &str) -> Result<i64, Located> {
    i64::try_from(n).map_err(|_| (Position::new(line, 1), Problem::Shape(format!("{what} {n} is too large"))))
}

/// Reads a Plume history.
pub(crate) fn read(text: &str) -> Result<ParsedOps, Located> {
    // Sessions in the order they first appear, each its transactions' numbers in order.
    let mut sessions: Vec<(u64, Vec<i64>)> = Vec::new();
    let mut session_of: FxHashMap<u64, usize> = FxHashMap::default();
    let mut txns: FxHashMap<i64, (u64, Txn)> = FxHashMap::default();
    let mut aborted: Vec<(Mop, u32)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        let (write, key, value, session, txn) = event(trimmed, line)?;
        let key = Key::Int(int(key, line, "key")?);
        let value = int(value, line, "value")?;
        let mop = match (write, value) {
            (true, 0) => {
                return Err((
                    Position::new(line, 1),
                    Problem::Shape(
                        "a write of value 0, which is the initial state's: expected a value of 1 or more".into(),
                    ),
                ));
            }
            (true, _) => Mop::Write { key, value, version: None },
            (false, 0) => Mop::Read { key, value: Observed::Nil },
            (false, _) => Mop::Read { key, value: Observed::Int(value) },
        };
        if txn == -1 {
            // An aborted transaction's reads show nothing; its writes may be read (an aborted read).
            if write {
                aborted.push((mop, line));
            }
            continue;
        }
        match txns.get_mut(&txn) {
            Some((s, t)) => {
                if *s != session {
                    return Err((
                        Position::new(line, 1),
                        Problem::Shape(format!(
                            "transaction {txn} in session {session}, but its first event (line {}) is in session {s}: \
                             expected one session a transaction",
                            t.line
                        )),
                    ));
                }
                t.mops.push(mop);
            }
            None => {
                let at = *session_of.entry(session).or_insert_with(|| {
                    sessions.push((session, Vec::new()));
                    sessions.len() - 1
                });
                sessions[at].1.push(txn);
                txns.insert(txn, (session, Txn { mops: vec![mop], line }));
            }
        }
    }
    let mut ops: Vec<ParsedOp> = Vec::with_capacity(2 * txns.len() + 2 * aborted.len());
    let mut push = |kind: OpType, process: u64, mops: Vec<Mop>, line: u32| {
        let mut op = Op::txn(kind, process, mops);
        op.at = Position::new(line, 1);
        op.index = ops.len() as u64;
        ops.push(ParsedOp { index: Some(op.index), process: Some(op.process()), op });
    };
    let base = sessions.iter().map(|(s, _)| *s).max().map_or(0, |s| s + 1);
    for (i, (mop, line)) in aborted.into_iter().enumerate() {
        push(OpType::Invoke, base + i as u64, vec![mop.clone()], line);
        push(OpType::Fail, base + i as u64, vec![mop], line);
    }
    let mut depth = 0;
    loop {
        let mut any = false;
        for (session, numbers) in &sessions {
            let Some(number) = numbers.get(depth) else { continue };
            any = true;
            let Some((_, txn)) = txns.remove(number) else { continue };
            let invoke = txn
                .mops
                .iter()
                .map(|m| match m {
                    Mop::Read { key, .. } => Mop::Read { key: key.clone(), value: Observed::Nil },
                    other => other.clone(),
                })
                .collect();
            push(OpType::Invoke, *session, invoke, txn.line);
            push(OpType::Ok, *session, txn.mops, txn.line);
        }
        if !any {
            break;
        }
        depth += 1;
    }
    Ok(ops.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(text: &str) -> Vec<ParsedOp> {
        read(text).expect("a good history").into_vec()
    }

    #[test]
    fn sessions_become_processes_and_aborted_writes_failed_transactions() {
        let ops = ops("w(1,5,0,0)\nr(2,0,0,0)\nw(1,6,3,-1)\nr(1,5,1,7)\n\nr(1,6,0,2)\n");
        let shape: Vec<(OpType, u64, String)> = ops
            .iter()
            .map(|p| {
                let Some(crate::op::Process::Client(process)) = p.process else { panic!("a client") };
                (p.op.kind, process, p.op.mops().iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "))
            })
            .collect();
        let expected: Vec<(OpType, u64, &str)> = vec![
            // The aborted write, on a process after every session's.
            (OpType::Invoke, 2, "[w 1 6]"),
            (OpType::Fail, 2, "[w 1 6]"),
            // Round-robin: session 0's first, session 1's first, session 0's second.
            (OpType::Invoke, 0, "[w 1 5] [r 2 nil]"),
            (OpType::Ok, 0, "[w 1 5] [r 2 nil]"),
            (OpType::Invoke, 1, "[r 1 nil]"),
            (OpType::Ok, 1, "[r 1 5]"),
            (OpType::Invoke, 0, "[r 1 nil]"),
            (OpType::Ok, 0, "[r 1 6]"),
        ];
        let expected: Vec<(OpType, u64, String)> =
            expected.into_iter().map(|(k, p, m)| (k, p, m.to_string())).collect();
        assert_eq!(shape, expected);
        assert_eq!(ops[5].op.at, Position::new(4, 1), "a transaction is placed at its first event's line");
    }

    #[test]
    fn a_bad_line_is_refused_with_its_line_and_what_was_expected() {
        for (text, line, words) in [
            ("w(1,5,0,0)\nx(1,2,0,1)\n", 2, "not r( or w("),
            ("w(1,5,0,0)\n\nr(1,5,0\n", 3, "no parentheses"),
            ("r(1,a,0,0)\n", 1, "no value"),
            ("r(1,2,0,-2)\n", 1, "no txn"),
            ("r(1,2,0,1,4)\n", 1, "more than four fields"),
            ("w(1,0,0,1)\n", 1, "initial state"),
            ("w(1,1,0,1)\nw(1,2,1,1)\n", 2, "expected one session a transaction"),
        ] {
            let (at, problem) = read(text).map(|_| ()).expect_err(text);
            assert_eq!(at.line, line, "{text:?}");
            assert!(problem.to_string().contains(words), "{text:?}: {problem}");
        }
    }
}
