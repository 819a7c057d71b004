//! The transactions a check looks at: every client invocation of a history, with a dense id, how it
//! ended, and the micro-ops that describe it. The `init` op of a predicate workload is one too when the
//! workload reads it ([`Txns::with_init`]): Elle's closed-predicate checker treats it as the transaction
//! that installed the initial rows. This module owns that view and how transactions are named in
//! explanations (`T` and the completion's index, so a person can find it in the file); the history
//! itself is the `histories` crate's.

use histories::{Function, History, Mop, Op, OpType, OpValue, Rows};
use rayon::iter::{IntoParallelRefIterator, ParallelIterator};

use crate::graph::TxnId;

#[derive(Debug, Clone, Copy)]
struct Record {
    invoke_at: u32,
    /// The earliest position the transaction may have been invoked at (0 when that is unknown).
    invoked_after: u32,
    completion_at: u32,
    /// Whether its invocation or completion is an `init` op, so that [`Txns::init_rows`] of every other
    /// transaction answers without reaching for its operations (a lookup a transaction, in passes over
    /// millions).
    init: bool,
}

/// The client transactions of a history, by dense id in invocation order, gathered on all cores.
pub struct Txns<'h> {
    history: &'h History,
    records: Vec<Record>,
    /// How each transaction ended, a byte each apart from the records: the analyses ask it of writers met
    /// in any order, millions of times, and a 16-byte record a question missed the caches at 10M.
    outcomes: Vec<OpType>,
    /// Each transaction's micro-ops, looked up once: every analysis walks them several times.
    mops: Vec<&'h [Mop]>,
}

impl<'h> Txns<'h> {
    /// The transactions of `history`, leaving out `init` ops.
    pub fn new(history: &'h History) -> Txns<'h> {
        Txns::build(history, false)
    }

    /// The transactions of `history`, `init` ops included (their micro-ops are empty; their rows are
    /// [`Txns::init_rows`]).
    pub fn with_init(history: &'h History) -> Txns<'h> {
        Txns::build(history, true)
    }

    fn build(history: &'h History, with_init: bool) -> Txns<'h> {
        let (records, outcomes): (Vec<Record>, Vec<OpType>) = history
            .par_transactions()
            .filter(|t| with_init || *t.invoke.f() != Function::Init)
            .map(|t| {
                let record = Record {
                    invoke_at: t.invoke_at as u32,
                    invoked_after: t.invoked_after.map_or(0, |p| p as u32),
                    completion_at: t.completion_at.map_or(u32::MAX, |c| c as u32),
                    init: *t.invoke.f() == Function::Init || t.completion.is_some_and(|c| *c.f() == Function::Init),
                };
                (record, t.outcome())
            })
            .unzip();
        let ops = history.ops();
        let mops = records
            .par_iter()
            .map(|r| {
                let completion = (r.completion_at != u32::MAX).then(|| &ops[r.completion_at as usize]);
                match completion {
                    Some(c) if !c.mops().is_empty() => c.mops(),
                    _ => ops[r.invoke_at as usize].mops(),
                }
            })
            .collect();
        Txns { history, records, outcomes, mops }
    }

    /// How many transactions there are.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Every id.
    pub fn ids(&self) -> impl Iterator<Item = TxnId> + use<> {
        0..self.records.len() as TxnId
    }

    /// How the transaction ended (`info` if the history ended first).
    pub fn outcome(&self, id: TxnId) -> OpType {
        self.outcomes[id as usize]
    }

    /// Whether the transaction committed or may have: Elle's "possible" operations.
    pub fn is_possible(&self, id: TxnId) -> bool {
        matches!(self.outcome(id), OpType::Ok | OpType::Info)
    }

    /// The invocation.
    pub fn invoke(&self, id: TxnId) -> &'h Op {
        &self.history.ops()[self.records[id as usize].invoke_at as usize]
    }

    /// The completion, if the history has one.
    pub fn completion(&self, id: TxnId) -> Option<&'h Op> {
        let at = self.records[id as usize].completion_at;
        (at != u32::MAX).then(|| &self.history.ops()[at as usize])
    }

    /// The position of the invocation in the history, as far as real time goes: the earliest position the
    /// transaction may have been invoked at. For a transaction whose invoke the history does not give
    /// (a completion-only history), that is 0: it may have been invoked before anything completed. Real-time
    /// order built on it is what the history proves.
    pub fn invoke_position(&self, id: TxnId) -> usize {
        self.records[id as usize].invoked_after as usize
    }

    /// The position of the completion in the history, if any.
    pub fn completion_position(&self, id: TxnId) -> Option<usize> {
        let at = self.records[id as usize].completion_at;
        (at != u32::MAX).then_some(at as usize)
    }

    /// The operation that stands for the transaction: its completion, or its invocation when it never
    /// completed.
    pub fn op(&self, id: TxnId) -> &'h Op {
        self.completion(id).unwrap_or_else(|| self.invoke(id))
    }

    /// The micro-ops that describe what the transaction did: the completion's, unless it has none (a
    /// `fail` or `info` completion may omit its value), then the invocation's.
    pub fn mops(&self, id: TxnId) -> &'h [Mop] {
        self.mops[id as usize]
    }

    /// The rows an `init` op installed (its completion's, or its invocation's when the completion gives
    /// none); `None` for any other transaction.
    pub fn init_rows(&self, id: TxnId) -> Option<&'h Rows> {
        if !self.records[id as usize].init {
            return None;
        }
        let rows = |op: &'h Op| match &op.value {
            OpValue::Rows(rows) if *op.f() == Function::Init => Some(&**rows),
            _ => None,
        };
        match self.completion(id).and_then(rows) {
            Some(r) if !r.is_empty() => Some(r),
            other => rows(self.invoke(id)).or(other),
        }
    }

    /// The index that names the transaction: its completion's (its invocation's if it never completed).
    pub fn index(&self, id: TxnId) -> u64 {
        self.op(id).index
    }

    /// The history the transactions are of.
    pub fn history(&self) -> &'h History {
        self.history
    }

    /// The name used in explanations: `T` and the index.
    pub fn name(&self, id: TxnId) -> String {
        format!("T{}", self.index(id))
    }
}
