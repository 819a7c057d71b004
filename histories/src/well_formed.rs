//! The rules a whole history must follow before any check can trust it, and the pairing of each
//! invocation with its completion. Ops without a process (Elle's paper example has none) are paired with
//! the completion that follows them and get a process of their own. Completions with no invoke and
//! several invokes in flight on one process are read as [`crate::leniency`] describes. This module owns those rules; the
//! per-operation syntax is the readers', and consistency is the checker's.

use rustc_hash::FxHashMap;

use crate::error::Problem;
use crate::history::History;
use crate::json::Located;
use crate::key::Key;
use crate::leniency::{Leniency, LeniencyKind};
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
    let pairing = pair(&mut ops, &given)?;
    check_key_types(&ops)?;
    check_unique_writes(&ops, &pairing)?;
    Ok(History::from_parts(ops, pairing))
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

/// How each client invocation was paired with its completion.
pub(crate) struct Pairing {
    /// For each position, the position of its partner (`u32::MAX` for none).
    pub partner: Vec<u32>,
    /// For a transaction (by the position of its invoke, or of its completion when it has none) whose
    /// invocation is not exactly known: the earliest position it may have been invoked at, or
    /// `u32::MAX` when that is unknown.
    pub invoked_after: FxHashMap<u32, u32>,
    /// The leniencies applied, in order of kind.
    pub leniencies: Vec<Leniency>,
}

/// No known invocation.
pub(crate) const UNKNOWN: u32 = u32::MAX;

/// Pairs each client invocation with a completion of its process: the only one in flight, or, when
/// several are, the one with the same micro-ops (the earliest, if several have). A completion with no
/// invocation in flight stands alone, its invocation unknown. Both are recorded as leniencies.
fn pair(ops: &mut [Op], given: &[Option<Process>]) -> Result<Pairing, Located> {
    let mut fresh = given
        .iter()
        .filter_map(|p| match p {
            Some(Process::Client(c)) => Some(c + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let mut pairing =
        Pairing { partner: vec![u32::MAX; ops.len()], invoked_after: FxHashMap::default(), leniencies: Vec::new() };
    let mut in_flight: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    let mut unnamed_in_flight: Option<usize> = None;
    let mut lenient: [Option<Leniency>; 2] = [None, None];
    let mut note = |kind: LeniencyKind, at: Position, problem: &dyn Fn() -> Problem| {
        let slot = &mut lenient[kind as usize];
        match slot {
            Some(l) => l.ops += 1,
            None => *slot = Some(Leniency { kind, first: at, problem: problem(), ops: 1 }),
        }
    };
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
                    fresh += 1;
                    fresh - 1
                }
            },
        };
        ops[i].process = Process::Client(process);
        let flying = in_flight.entry(process).or_default();
        if invoke {
            if let Some(&first) = flying.first() {
                let line = ops[first].at.line;
                note(LeniencyKind::InvokesInFlight, ops[i].at, &|| Problem::TwoInvokesInFlight {
                    process: process.to_string(),
                    first_line: line,
                });
            }
            flying.push(i);
            continue;
        }
        let first = match flying[..] {
            [] => {
                let kind = ops[i].kind;
                note(LeniencyKind::CompletionWithoutInvoke, ops[i].at, &|| Problem::CompletionWithoutInvoke {
                    process: process.to_string(),
                    kind,
                });
                pairing.invoked_after.insert(i as u32, UNKNOWN);
                continue;
            }
            [only] => {
                flying.clear();
                only
            }
            _ => {
                let matching: Vec<usize> = (0..flying.len()).filter(|&f| same_call(&ops[flying[f]], &ops[i])).collect();
                let Some(&chosen) = matching.first() else {
                    return Err((
                        ops[i].at,
                        Problem::CompletionMatchesNoInvoke {
                            process: process.to_string(),
                            kind: ops[i].kind,
                            in_flight: flying.len(),
                            first_line: ops[flying[0]].at.line,
                        },
                    ));
                };
                if matching.len() > 1 {
                    // Any of them may be this completion's: each is taken as invoked at the earliest.
                    let earliest = flying[chosen] as u32;
                    for &m in &matching {
                        let bound = pairing.invoked_after.entry(flying[m] as u32).or_insert(earliest);
                        *bound = (*bound).min(earliest);
                    }
                }
                flying.remove(chosen)
            }
        };
        pairing.partner[first] = i as u32;
        pairing.partner[i] = first as u32;
    }
    pairing.leniencies = lenient.into_iter().flatten().collect();
    Ok(pairing)
}

/// Whether a completion may be the completion of an invocation: the same function and the same
/// micro-ops, reads aside (an invocation does not know what they will return). A completion without
/// micro-ops (a `fail` or `info` may omit them) may complete any invocation of its function.
fn same_call(invoke: &Op, completion: &Op) -> bool {
    if invoke.f != completion.f {
        return false;
    }
    let (a, b) = (invoke.mops(), completion.mops());
    b.is_empty()
        || (a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| match (x, y) {
                (Mop::Read { key: k1, .. }, Mop::Read { key: k2, .. }) => k1 == k2,
                (Mop::PredicateRead { predicate: p1, .. }, Mop::PredicateRead { predicate: p2, .. }) => p1 == p2,
                _ => x == y,
            }))
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
fn check_unique_writes(ops: &[Op], pairing: &Pairing) -> Result<(), Located> {
    let mut appended: FxHashMap<(&Key, i64), Position> = FxHashMap::default();
    let mut written: FxHashMap<(&Key, i64), Position> = FxHashMap::default();
    // Each transaction once: by its invoke, or by its completion when it has none.
    let transaction = |(i, op): &(usize, &Op)| {
        op.is_client() && (op.kind == OpType::Invoke || pairing.invoked_after.get(&(*i as u32)) == Some(&UNKNOWN))
    };
    for (_, op) in ops.iter().enumerate().filter(transaction) {
        for mop in op.mops() {
            let (seen, verb, key, value) = match mop {
                Mop::Append { key, value } => (&mut appended, "appended", key, *value),
                Mop::Write { key, value, .. } | Mop::Insert { key, value } => (&mut written, "written", key, *value),
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
