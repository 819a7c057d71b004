//! The rules a whole history must follow before any check can trust it, and the pairing of each
//! invocation with its completion. Ops without a process (Elle's paper example has none) are paired with
//! the completion that follows them and get a process of their own. This module owns those rules; the
//! per-operation syntax is the readers', and consistency is the checker's.

use rustc_hash::FxHashMap;

use crate::error::Problem;
use crate::history::History;
use crate::json::Located;
use crate::key::Key;
use crate::mop::Mop;
use crate::op::{Op, OpType, Process};
use crate::position::Position;

/// An operation as read, before indices and processes are settled.
#[derive(Debug)]
pub(crate) struct ParsedOp {
    /// The index the file gave, if any.
    pub index: Option<u64>,
    /// The process the file gave, if any.
    pub process: Option<Process>,
    /// Everything else (its `index` and `process` are placeholders until [`settle`] fills them).
    pub op: Op,
}

/// Settles indices and processes, pairs invocations with completions, and checks the rules.
pub(crate) fn settle(parsed: Vec<ParsedOp>) -> Result<History, Located> {
    let mut ops = Vec::with_capacity(parsed.len());
    let mut given = Vec::with_capacity(parsed.len());
    for (position, p) in parsed.into_iter().enumerate() {
        let mut op = p.op;
        op.index = p.index.unwrap_or(position as u64);
        given.push(p.process);
        ops.push(op);
    }
    check_unique_indices(&ops)?;
    let partner = pair(&mut ops, &given)?;
    check_key_types(&ops)?;
    check_unique_writes(&ops)?;
    Ok(History::from_parts(ops, partner))
}

fn check_unique_indices(ops: &[Op]) -> Result<(), Located> {
    if ops.windows(2).all(|w| w[0].index < w[1].index) {
        return Ok(());
    }
    let mut seen: FxHashMap<u64, Position> = FxHashMap::default();
    for op in ops {
        if let Some(first) = seen.insert(op.index, op.at) {
            return Err((op.at, Problem::DuplicateIndex { index: op.index, first_line: first.line }));
        }
    }
    Ok(())
}

/// Pairs each client invocation with its process's next completion; returns, for each position, the
/// position of its partner (`u32::MAX` for none).
fn pair(ops: &mut [Op], given: &[Option<Process>]) -> Result<Vec<u32>, Located> {
    let mut fresh = given
        .iter()
        .filter_map(|p| match p {
            Some(Process::Client(c)) => Some(c + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let mut partner = vec![u32::MAX; ops.len()];
    let mut in_flight: FxHashMap<u64, usize> = FxHashMap::default();
    let mut unnamed_in_flight: Option<usize> = None;
    for i in 0..ops.len() {
        let invoke = ops[i].kind == OpType::Invoke;
        let process = match given[i] {
            Some(Process::Nemesis) => {
                ops[i].process = Process::Nemesis;
                continue;
            }
            Some(Process::Client(p)) => p,
            None if invoke => match unnamed_in_flight {
                Some(first) => {
                    return Err((
                        ops[i].at,
                        Problem::TwoInvokesInFlight { process: "(none given)".into(), first_line: ops[first].at.line },
                    ));
                }
                None => {
                    unnamed_in_flight = Some(i);
                    fresh += 1;
                    fresh - 1
                }
            },
            None => match unnamed_in_flight.take() {
                Some(first) => match ops[first].process {
                    Process::Client(p) => p,
                    Process::Nemesis => unreachable!("unnamed invocations are given client processes"),
                },
                None => {
                    return Err((
                        ops[i].at,
                        Problem::CompletionWithoutInvoke { process: "(none given)".into(), kind: ops[i].kind },
                    ));
                }
            },
        };
        ops[i].process = Process::Client(process);
        if invoke {
            if let Some(&first) = in_flight.get(&process) {
                return Err((
                    ops[i].at,
                    Problem::TwoInvokesInFlight { process: process.to_string(), first_line: ops[first].at.line },
                ));
            }
            in_flight.insert(process, i);
        } else {
            let Some(first) = in_flight.remove(&process) else {
                return Err((
                    ops[i].at,
                    Problem::CompletionWithoutInvoke { process: process.to_string(), kind: ops[i].kind },
                ));
            };
            partner[first] = i as u32;
            partner[i] = first as u32;
        }
    }
    Ok(partner)
}

fn check_key_types(ops: &[Op]) -> Result<(), Located> {
    let mut first: Option<(&'static str, Position)> = None;
    for op in ops.iter().filter(|op| op.is_client()) {
        for key in op.mops().iter().filter_map(Mop::key) {
            match first {
                None => first = Some((key.type_name(), op.at)),
                Some((expected, at)) if expected != key.type_name() => {
                    return Err((
                        op.at,
                        Problem::MixedKeyTypes {
                            key: key.to_string(),
                            found: key.type_name(),
                            expected,
                            article: if expected.starts_with(['a', 'e', 'i', 'o', 'u']) { "n" } else { "" },
                            first_line: at.line,
                        },
                    ));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// Appended values, and written register values, must each be unique per key: Elle infers version
/// orders from values, so a repeated value makes two versions indistinguishable.
fn check_unique_writes(ops: &[Op]) -> Result<(), Located> {
    let mut appended: FxHashMap<(&Key, i64), Position> = FxHashMap::default();
    let mut written: FxHashMap<(&Key, i64), Position> = FxHashMap::default();
    for op in ops.iter().filter(|op| op.is_client() && op.kind == OpType::Invoke) {
        for mop in op.mops() {
            let (seen, verb, key, value) = match mop {
                Mop::Append { key, value } => (&mut appended, "appended", key, *value),
                Mop::Write { key, value } | Mop::Insert { key, value } => (&mut written, "written", key, *value),
                _ => continue,
            };
            if let Some(first) = seen.insert((key, value), op.at) {
                return Err((
                    op.at,
                    Problem::DuplicateWrite { verb, key: key.to_string(), value, first_line: first.line },
                ));
            }
        }
    }
    Ok(())
}
