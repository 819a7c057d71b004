//! A well-formed history: operations in order, each client invocation paired with its completion.
//! This module owns that structure, the pairing it is built from ([`Pairing`]) and the ways to walk it;
//! reading files is [`crate::read_file`]'s, the rules it guarantees (and building one from operations
//! made in memory, `History::from_ops`) are [`crate::well_formed`]'s.

use rayon::iter::{IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator};
use rustc_hash::FxHashMap;

use crate::error::HistoryError;
use crate::leniency::Leniency;
use crate::mop_kinds::MopKinds;
use crate::op::{Op, OpType};

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

/// Operations in history order, invocations paired with completions.
#[derive(Debug, Clone, Default)]
pub struct History {
    ops: Vec<Op>,
    partner: Vec<u32>,
    /// Transactions whose invocation is not exactly known; see [`Transaction::invoked_after`].
    invoked_after: FxHashMap<u32, u32>,
    leniencies: Vec<Leniency>,
    mop_kinds: MopKinds,
}

/// One client transaction: its invocation and, unless the history ended first, its completion.
#[derive(Debug, Clone, Copy)]
pub struct Transaction<'a> {
    /// Position of the invocation in the history.
    pub invoke_at: usize,
    /// The invocation.
    pub invoke: &'a Op,
    /// Position of the completion, if any.
    pub completion_at: Option<usize>,
    /// The completion, if any.
    pub completion: Option<&'a Op>,
    /// The earliest position in the history the transaction may have been invoked at, as far as real time
    /// goes: `invoke_at`, unless the history left it in doubt (an earlier position when several invokes
    /// in flight could be its own; `None` when it has no invoke: the invocation is unknown).
    pub invoked_after: Option<usize>,
}

impl Transaction<'_> {
    /// How the transaction ended: a missing completion is indeterminate, as in Jepsen.
    pub fn outcome(&self) -> OpType {
        self.completion.map_or(OpType::Info, |c| c.kind)
    }

    /// The operation that best describes what happened: the completion, or the invocation when the
    /// history ended before it completed.
    pub fn op(&self) -> &Op {
        self.completion.unwrap_or(self.invoke)
    }
}

impl History {
    /// A history of `ops`, paired as `pairing` says, whose client operations hold `mop_kinds` (all of them
    /// noted, as [`crate::well_formed::settle`] has them).
    pub(crate) fn from_parts(ops: Vec<Op>, pairing: Pairing, mop_kinds: MopKinds) -> History {
        let Pairing { partner, invoked_after, leniencies } = pairing;
        History { ops, partner, invoked_after, leniencies, mop_kinds }
    }

    /// The kinds of micro-op the client operations hold, and whether one is an `init` op, as they were
    /// read (no operation is walked).
    pub fn mop_kinds(&self) -> MopKinds {
        self.mop_kinds
    }

    /// What the reading of the history was lenient about (nothing, for a history as the history format asks).
    pub fn leniencies(&self) -> &[Leniency] {
        &self.leniencies
    }

    /// Refuses a history that needed any leniency to be read, with the error a strict reading reports
    /// where the first one applied; `file` names it.
    pub fn refuse_leniency(&self, file: &str) -> Result<(), HistoryError> {
        match self.leniencies.iter().min_by_key(|l| (l.first.line, l.first.column)) {
            None => Ok(()),
            Some(l) => Err(HistoryError::Malformed { file: file.to_string(), at: l.first, problem: l.problem.clone() }),
        }
    }

    /// All operations, in history order.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// Consumes the history, returning its operations.
    pub fn into_ops(self) -> Vec<Op> {
        self.ops
    }

    /// The number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the history holds no operations.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The position of the operation paired with the one at `position`: an invocation's completion, or a
    /// completion's invocation.
    pub fn partner(&self, position: usize) -> Option<usize> {
        self.partner.get(position).filter(|&&p| p != u32::MAX).map(|&p| p as usize)
    }

    /// Client transactions, in the order they were invoked.
    ///
    /// A completion with no invoke (see `leniency.rs`) is a transaction of its own, placed where it
    /// completed: its `invoke` is the completion itself and its `invoked_after` is `None`.
    pub fn transactions(&self) -> impl Iterator<Item = Transaction<'_>> + '_ {
        self.ops.iter().enumerate().filter_map(move |(i, op)| self.transaction_at(i, op))
    }

    /// [`History::transactions`], walked on all cores; collected, they keep their order.
    pub fn par_transactions(&self) -> impl ParallelIterator<Item = Transaction<'_>> + '_ {
        self.ops.par_iter().enumerate().filter_map(move |(i, op)| self.transaction_at(i, op))
    }

    /// The transaction whose place in the history is the operation `op`, at position `i`: its invocation,
    /// or its completion when it has no invoke; none for any other operation.
    fn transaction_at<'h>(&'h self, i: usize, op: &'h Op) -> Option<Transaction<'h>> {
        if !op.is_client() {
            return None;
        }
        // Most histories leave no invocation in doubt: then there is nothing to look up.
        let doubt = if self.invoked_after.is_empty() { None } else { self.invoked_after.get(&(i as u32)) };
        let invoked_after = match doubt {
            None => Some(i),
            Some(&UNKNOWN) => None,
            Some(&earliest) => Some(earliest as usize),
        };
        if op.kind == OpType::Invoke {
            let completion_at = self.partner(i);
            let completion = completion_at.map(|c| &self.ops[c]);
            Some(Transaction { invoke_at: i, invoke: op, completion_at, completion, invoked_after })
        } else {
            invoked_after.is_none().then_some(Transaction {
                invoke_at: i,
                invoke: op,
                completion_at: Some(i),
                completion: Some(op),
                invoked_after,
            })
        }
    }
}
