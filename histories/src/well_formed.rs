//! The rules a whole history must follow before any check can trust it, and the pairing of each
//! invocation with its completion. Ops without a process (Elle's paper example has none) are paired with
//! the completion that follows them and get a process of their own. Completions with no invoke and
//! several invokes in flight on one process are read as [`crate::leniency`] describes. This module owns those rules (the micro-ops' own, one key type and unique writes, are [`crate::mop_rules`]'s); the
//! per-operation syntax is the readers', and consistency is the checker's.

use rayon::iter::{ParallelDrainRange, ParallelExtend};
use rustc_hash::FxHashMap;

use crate::error::Problem;
use crate::history::History;
use crate::json::Located;
use crate::leniency::{Leniency, LeniencyKind};
use crate::mop::{Mop, Observed};
use crate::mop_rules::MopFacts;
use crate::op::{Op, OpType, OpValue, Process};
use crate::position::Position;
use crate::shared_slice::BlockWriter;

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

/// Operations as read, in file order. Each keeps the index and process it gave in its own fields (the
/// process as [`Op::set_given_process`] keeps it); the few without an index are listed apart. Settling
/// them moves no operation and needs no list of indices or processes beside them: a history of millions
/// is never held twice.
#[derive(Debug, Default)]
pub(crate) struct ParsedOps {
    /// The operations (an index of one without any is a placeholder until [`settle`] fills it).
    ops: Vec<Op>,
    /// The positions of the operations that gave no index, in order.
    without_index: Vec<u32>,
    /// Each one's type, kept apart so that pairing reads a byte an operation, not the operation.
    kinds: Vec<OpType>,
    /// What their micro-ops say for the rules across operations, noted as each is added.
    facts: MopFacts,
}

impl ParsedOps {
    /// Room for `n` operations.
    pub fn with_capacity(n: usize) -> ParsedOps {
        ParsedOps {
            ops: Vec::with_capacity(n),
            without_index: Vec::new(),
            kinds: Vec::with_capacity(n),
            facts: MopFacts::default(),
        }
    }

    /// Adds an operation after the others.
    pub fn push(&mut self, parsed: ParsedOp) {
        self.push_parts(parsed.index, parsed.process, parsed.op);
    }

    /// Adds an operation after the others, with the index and process it gave.
    #[inline]
    pub fn push_parts(&mut self, index: Option<u64>, process: Option<Process>, mut op: Op) {
        op.hold_written_mops();
        self.facts.note(self.ops.len(), &op, process);
        match index {
            Some(index) => op.index = index,
            None => self.without_index.push(self.ops.len() as u32),
        }
        op.set_given_process(process);
        self.kinds.push(op.kind);
        self.ops.push(op);
    }

    /// The operations as read, each with the index and process it gave.
    pub fn into_vec(self) -> Vec<ParsedOp> {
        let ParsedOps { ops, without_index, .. } = self;
        let mut without_index = without_index.into_iter().peekable();
        ops.into_iter()
            .enumerate()
            .map(|(position, mut op)| {
                let index = match without_index.next_if_eq(&(position as u32)) {
                    Some(_) => None,
                    None => Some(op.index),
                };
                let process = op.given_process();
                op.clear_index_and_process();
                ParsedOp { index, process, op }
            })
            .collect()
    }

    /// Empties it, keeping its room.
    pub fn clear(&mut self) {
        self.ops.clear();
        self.without_index.clear();
        self.kinds.clear();
        self.facts.clear();
    }

    /// Makes room for `n` more operations.
    pub fn reserve(&mut self, n: usize) {
        self.ops.reserve(n);
        self.kinds.reserve(n);
    }

    /// Gives back the room grown beyond the operations read (for a large history, in place).
    pub fn shrink_to_fit(&mut self) {
        self.ops.shrink_to_fit();
        self.without_index.shrink_to_fit();
        self.kinds.shrink_to_fit();
        self.facts.shrink_to_fit();
    }

    /// Moves `other`'s operations after these, leaving it empty (with its room): the operations, large
    /// and many, are moved on all cores, each taking the page faults of the part it writes.
    pub fn append(&mut self, other: &mut ParsedOps) {
        let before = self.ops.len() as u32;
        self.facts.append(&mut other.facts, self.ops.len());
        self.ops.par_extend(other.ops.par_drain(..));
        self.without_index.extend(other.without_index.drain(..).map(|p| p + before));
        self.kinds.append(&mut other.kinds);
    }
}

impl From<Vec<ParsedOp>> for ParsedOps {
    fn from(parsed: Vec<ParsedOp>) -> ParsedOps {
        let mut ops = ParsedOps::with_capacity(parsed.len());
        for p in parsed {
            ops.push(p);
        }
        ops
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
