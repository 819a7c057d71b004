//! Which workload a history belongs to, read from its micro-ops when `--workload` does not say: appends
//! and list reads are list-append; register writes and integer reads are rw-register; an `init` op,
//! inserts, deletes and predicate reads are closed-predicate (whose `w` and `r` are register
//! micro-ops too). Reads of `null` say nothing, and a history of nothing else is read as list-append.
//! A key used both as a list and as a register is an input error naming both operations, and so is a
//! history that mixes the workloads on different keys: each checker reads one workload. This module
//! owns that decision; refusing a foreign micro-op once the workload is fixed is each workload index's.

use histories::{Function, History, Key, Mop, MopKind, Op};
use rustc_hash::FxHashMap;

use crate::error::CheckError;
use crate::options::Workload;

/// The family of workloads one micro-op belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    List,
    Register,
    Predicate,
}

impl Family {
    fn of(mop: &Mop) -> Option<Family> {
        Family::of_kind(MopKind::of(mop))
    }

    fn of_kind(kind: MopKind) -> Option<Family> {
        match kind {
            MopKind::Append | MopKind::ListRead => Some(Family::List),
            MopKind::Write | MopKind::IntRead => Some(Family::Register),
            MopKind::Insert | MopKind::Delete | MopKind::PredicateRead => Some(Family::Predicate),
            MopKind::NilRead => None,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Family::List => "a list-append micro-op",
            Family::Register => "a register micro-op",
            Family::Predicate => "a predicate micro-op",
        }
    }
}

/// Where a workload first shows itself: the operation, and the micro-op (`None` for an `init` op).
type Sighting<'h> = (&'h Op, Option<&'h Mop>);

/// The first operation showing each kind of micro-op.
#[derive(Default)]
struct Seen<'h> {
    list: Option<Sighting<'h>>,
    register: Option<Sighting<'h>>,
    predicate: Option<Sighting<'h>>,
}

/// The micro-ops that describe a transaction: its completion's, or its invocation's when the completion
/// gives none (as `Txns` reads them).
fn mops<'h>(txn: &histories::Transaction<'h>) -> &'h [Mop] {
    match txn.completion {
        Some(c) if !c.mops().is_empty() => c.mops(),
        _ => txn.invoke.mops(),
    }
}

/// Whether every client operation is a transaction (not `init`) whose every micro-op's family passes
/// `test`: told from the kinds of micro-op the history's reading gathered, without a walk.
fn every_client_mop(history: &History, test: impl Fn(Option<Family>) -> bool) -> bool {
    let kinds = history.mop_kinds();
    !kinds.has_init() && kinds.kinds().all(|kind| test(Family::of_kind(kind)))
}

/// The workload of a history's client operations.
pub(crate) fn detect(history: &History) -> Result<Workload, CheckError> {
    // Most large histories are list-append: when every client operation's every micro-op is a list's (or
    // says nothing), the kinds read tell at once, and the walk below that names the first sighting of
    // each family is needed only otherwise.
    let list_or_nothing = |f: Option<Family>| matches!(f, Some(Family::List) | None);
    let only_lists = every_client_mop(history, list_or_nothing);
    if only_lists {
        return Ok(Workload::ListAppend);
    }
    // Likewise for a register history: every micro-op a register's or saying nothing, and one of those
    // that describe a transaction a register's (usually the first transaction's: otherwise the walk below
    // decides, as it would).
    let register_or_nothing = |f: Option<Family>| matches!(f, Some(Family::Register) | None);
    let only_registers = every_client_mop(history, register_or_nothing);
    let is_register = |m: &Mop| Family::of(m) == Some(Family::Register);
    if only_registers && history.transactions().take(64).any(|txn| mops(&txn).iter().any(is_register)) {
        return Ok(Workload::RwRegister);
    }
    let mut seen = Seen::default();
    for txn in history.transactions() {
        let op = txn.completion.unwrap_or(txn.invoke);
        if txn.invoke.f() == &Function::Init {
            seen.predicate.get_or_insert((op, None));
            continue;
        }
        for mop in mops(&txn) {
            let slot = match Family::of(mop) {
                Some(Family::List) => &mut seen.list,
                Some(Family::Register) => &mut seen.register,
                Some(Family::Predicate) => &mut seen.predicate,
                None => continue,
            };
            slot.get_or_insert((op, Some(mop)));
        }
    }
    match (seen.list, seen.register, seen.predicate) {
        (_, None, None) => Ok(Workload::ListAppend),
        (None, Some(_), None) => Ok(Workload::RwRegister),
        (None, _, Some(_)) => Ok(Workload::ClosedPredicate),
        (Some(list), Some(other), _) => Err(mixed(history, (list, Family::List), (other, Family::Register))),
        (Some(list), None, Some(other)) => Err(mixed(history, (list, Family::List), (other, Family::Predicate))),
    }
}

fn article(kind: Family) -> &'static str {
    if kind == Family::List { "a list" } else { "a register" }
}

fn describe(sighting: Sighting<'_>, kind: Family) -> String {
    match sighting.1 {
        Some(mop) => format!("{mop} is {}", kind.describe()),
        None => "an init op belongs to the closed-predicate workload".to_string(),
    }
}

/// The error for a history holding list-append micro-ops and others: the first key used both ways if
/// there is one, else the first operation of each workload.
fn mixed(history: &History, a: (Sighting<'_>, Family), b: (Sighting<'_>, Family)) -> CheckError {
    let mut first_use: FxHashMap<&Key, (Family, &Op, &Mop)> = FxHashMap::default();
    for txn in history.transactions() {
        let op = txn.completion.unwrap_or(txn.invoke);
        for mop in mops(&txn) {
            let (Some(kind), Some(key)) = (Family::of(mop), mop.key()) else { continue };
            // Predicate micro-ops name keys as registers do.
            let kind = if kind == Family::Predicate { Family::Register } else { kind };
            let (first_kind, first_op, first_mop) = *first_use.entry(key).or_insert((kind, op, mop));
            if first_kind != kind {
                return CheckError::Workload {
                    at: op.at,
                    message: format!(
                        "{mop} uses key {key} as {}, but {first_mop} at line {} uses it as {}: a key holds a list or \
                         a register, not both",
                        article(kind),
                        first_op.at.line,
                        article(first_kind),
                    ),
                };
            }
        }
    }
    let (earlier, later) = if a.0.0.at.line <= b.0.0.at.line { (a, b) } else { (b, a) };
    CheckError::Workload {
        at: later.0.0.at,
        message: format!(
            "{}, but {} (line {}): a history is checked as one workload (list-append, rw-register or \
             closed-predicate), so check each workload's operations on their own",
            describe(later.0, later.1),
            describe(earlier.0, earlier.1),
            earlier.0.0.at.line,
        ),
    }
}

/// Refuses an `init` op in a history checked as a workload without one: its rows would be ignored, and
/// every read of them would look like a read of a value nobody wrote.
pub(crate) fn refuse_init(history: &History, workload: Workload) -> Result<(), CheckError> {
    match history.transactions().find(|t| t.invoke.f() == &Function::Init) {
        Some(init) => Err(CheckError::Workload {
            at: init.invoke.at,
            message: format!(
                "an init op belongs to the closed-predicate workload, but this history is checked as {}",
                workload.name()
            ),
        }),
        None => Ok(()),
    }
}
