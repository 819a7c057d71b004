//! The rules a whole history must follow before any check can trust it, and the pairing of each
//! invocation with its completion. Ops without a process (Elle's paper example has none) are paired with
//! the completion that follows them and get a process of their own. Completions with no invoke and
//! several invokes in flight on one process are read as [`crate::leniency`] describes. This module owns those rules (the micro-ops' own, one key type and unique writes, are [`crate::mop_rules`]'s); the
//! per-operation syntax is the readers', and consistency is the checker's. Operations made in memory
//! meet the same rules (`History::from_ops`, here); what the readers hand over is `parsed_op`'s.

use rustc_hash::FxHashMap;

use crate::error::Located;
use crate::error::Problem;
use crate::history::{History, Pairing, UNKNOWN};
use crate::leniency::{Leniency, LeniencyKind};
use crate::mop::{Mop, Observed};
use crate::op::{Op, OpType, OpValue, Process};
use crate::parsed_op::{ParsedOp, ParsedOps};
use crate::position::Position;
use crate::shared_slice::BlockWriter;

/// Building a history from operations made in memory.
impl History {
    /// Builds a history from operations made in memory (by a runner or a test), checking the same rules
    /// as a file; each operation's index and process are taken as given.
    pub fn from_ops(ops: Vec<Op>) -> Result<History, (Position, Problem)> {
        let mut parsed = ParsedOps::with_capacity(ops.len());
        for op in ops {
            parsed.push(ParsedOp { index: Some(op.index), process: Some(op.process()), op });
        }
        settle(parsed)
    }
}

/// Settles indices and processes, pairs invocations with completions, and checks the rules. The types
/// are worked on apart from the operations (a pass over millions of operations waits on memory).
pub(crate) fn settle(parsed: ParsedOps) -> Result<History, Located> {
    let ParsedOps { mut ops, without_index, kinds, facts } = parsed;
    // An operation without an index is numbered by its position.
    for position in without_index {
        ops[position as usize].index = u64::from(position);
    }
    check_unique_indices(&ops)?;
    // What was written is settled for the rules across micro-ops (told free of repeats, or sorted) while
    // operations are paired.
    let (paired, facts) = rayon::join(
        || pair(&ops, &kinds),
        move || {
            let mut facts = facts;
            facts.settle_writes();
            facts
        },
    );
    let (assigned, pairing) = paired?;
    for (position, process) in assigned {
        ops[position].set_process(Process::Client(process));
    }
    let mop_kinds = facts.kinds;
    crate::mop_rules::check(&ops, &pairing, facts)?;
    keep_each_transactions_mops_once(&mut ops, &pairing.partner);
    Ok(History::from_parts(ops, pairing, mop_kinds))
}

/// How an invocation's micro-ops stand to its completion's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SameMops {
    /// Exactly the same.
    Exactly,
    /// The same, but that the invocation's reads say nothing (nil) where the completion's say what
    /// they returned.
    ButTheReads,
    /// Not the same (or there are none).
    No,
}

/// How `invoke`'s micro-ops stand to `completion`'s.
fn same_mops(invoke: &Op, completion: &Op) -> SameMops {
    let (a, b) = (invoke.mops(), completion.mops());
    let both_txns = matches!((&invoke.value, &completion.value), (OpValue::Txn(_), OpValue::Txn(_)));
    if !both_txns || a.is_empty() || a.len() != b.len() || invoke.f() != completion.f() {
        return SameMops::No;
    }
    let mut exactly = true;
    for (x, y) in a.iter().zip(b) {
        match (x, y) {
            _ if x == y => {}
            (Mop::Read { key: k1, value: Observed::Nil }, Mop::Read { key: k2, .. }) if k1 == k2 => exactly = false,
            (Mop::PredicateRead { predicate: p1, rows: None }, Mop::PredicateRead { predicate: p2, .. })
                if p1 == p2 =>
            {
                exactly = false
            }
            _ => return SameMops::No,
        }
    }
    if exactly { SameMops::Exactly } else { SameMops::ButTheReads }
}

/// Has each invocation whose completion is the same call keep the completion's micro-ops rather than
/// its own ([`Op::reads_unknown`]), and copies the others' own out of the blocks they were read into
/// (readers keep invocations' micro-ops in blocks of their own): once the copies are made, those blocks
/// are freed. A transaction's micro-ops are then kept once, not twice.
fn keep_each_transactions_mops_once(ops: &mut [Op], partner: &[u32]) {
    let (mut copies, mut copying) = (BlockWriter::new(), Vec::new());
    for i in 0..ops.len() {
        if ops[i].kind != OpType::Invoke || !matches!(ops[i].value, OpValue::Txn(_)) {
            continue;
        }
        let completion = partner[i] as usize;
        let same = if completion < ops.len() { same_mops(&ops[i], &ops[completion]) } else { SameMops::No };
        if same != SameMops::No {
            let value = ops[completion].value.clone();
            ops[i].keep_completion_mops(value, same == SameMops::ButTheReads);
        } else if !ops[i].mops().is_empty() {
            copying.extend_from_slice(ops[i].mops());
            if let Some(copy) = copies.take(&mut copying) {
                ops[i].value = OpValue::Txn(copy);
            }
            copying.clear();
        }
    }
}

/// Refuses an index given twice.
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

/// Pairs each client invocation with a completion of its process: the only one in flight, or, when
/// several are, the one with the same micro-ops (the earliest, if several have). A completion with no
/// invocation in flight stands alone, its invocation unknown. Both are recorded as leniencies. Returns
/// the client process given to each operation that gave none, by position (`kinds` are the operations'
/// types; each keeps the process it gave as [`Op::set_given_process`] does).
fn pair(ops: &[Op], kinds: &[OpType]) -> Result<(Vec<(usize, u64)>, Pairing), Located> {
    let mut assigned = Vec::new();
    let mut fresh = ops
        .iter()
        .filter_map(|op| match op.given_process() {
            Some(Process::Client(c)) => Some(c + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let mut pairing =
        Pairing { partner: vec![u32::MAX; ops.len()], invoked_after: FxHashMap::default(), leniencies: Vec::new() };
    let mut in_flight: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    // An invocation that gave no process, still in flight: its position and the process it was given.
    let mut unnamed_in_flight: Option<(usize, u64)> = None;
    let mut lenient: [Option<Leniency>; 2] = [None, None];
    let mut note = |kind: LeniencyKind, at: Position, problem: &dyn Fn() -> Problem| {
        let slot = &mut lenient[kind as usize];
        match slot {
            Some(l) => l.ops += 1,
            None => *slot = Some(Leniency { kind, first: at, problem: problem(), ops: 1 }),
        }
    };
    for i in 0..ops.len() {
        let invoke = kinds[i] == OpType::Invoke;
        let process = match ops[i].given_process() {
            Some(Process::Nemesis) => continue,
            Some(Process::Client(p)) => p,
            None if invoke => match unnamed_in_flight {
                Some((first, _)) => {
                    return Err((
                        ops[i].at,
                        Problem::TwoInvokesInFlight { process: "(none given)".into(), first_line: ops[first].at.line },
                    ));
                }
                None => {
                    fresh += 1;
                    unnamed_in_flight = Some((i, fresh - 1));
                    assigned.push((i, fresh - 1));
                    fresh - 1
                }
            },
            None => {
                let process = match unnamed_in_flight.take() {
                    Some((_, p)) => p,
                    None => {
                        fresh += 1;
                        fresh - 1
                    }
                };
                assigned.push((i, process));
                process
            }
        };
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
                let kind = kinds[i];
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
    Ok((assigned, pairing))
}

/// Whether a completion may be the completion of an invocation: the same function and the same
/// micro-ops, reads aside (an invocation does not know what they will return). A completion without
/// micro-ops (a `fail` or `info` may omit them) may complete any invocation of its function.
fn same_call(invoke: &Op, completion: &Op) -> bool {
    if invoke.f() != completion.f() {
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
