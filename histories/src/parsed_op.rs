//! An operation as a reader hands it over ([`ParsedOp`]) and a file's worth of them ([`ParsedOps`]),
//! before indices and processes are settled: what the JSON, fast JSON, EDN and Plume readers produce and
//! `well_formed` settles into a history. The reading is the readers', the rules `well_formed`'s.

use rayon::iter::{ParallelDrainRange, ParallelExtend};

use crate::mop_rules::MopFacts;
use crate::op::{Op, OpType, Process};

/// An operation as read, before indices and processes are settled.
#[derive(Debug)]
pub(crate) struct ParsedOp {
    /// The index the file gave, if any.
    pub index: Option<u64>,
    /// The process the file gave, if any.
    pub process: Option<Process>,
    /// Everything else (its `index` and `process` are placeholders until [`crate::well_formed::settle`] fills them).
    pub op: Op,
}

/// Operations as read, in file order. Each keeps the index and process it gave in its own fields (the
/// process as [`Op::set_given_process`] keeps it); the few without an index are listed apart. Settling
/// them moves no operation and needs no list of indices or processes beside them: a history of millions
/// is never held twice.
#[derive(Debug, Default)]
pub(crate) struct ParsedOps {
    /// The operations (an index of one without any is a placeholder until [`crate::well_formed::settle`] fills it).
    pub(crate) ops: Vec<Op>,
    /// The positions of the operations that gave no index, in order.
    pub(crate) without_index: Vec<u32>,
    /// Each one's type, kept apart so that pairing reads a byte an operation, not the operation.
    pub(crate) kinds: Vec<OpType>,
    /// What their micro-ops say for the rules across operations, noted as each is added.
    pub(crate) facts: MopFacts,
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
