//! A well-formed history: operations in order, each client invocation paired with its completion.
//! This module owns that structure and the ways to walk it; reading files is [`crate::read_file`]'s,
//! the rules it guarantees are [`crate::well_formed`]'s.

use crate::error::Problem;
use crate::op::{Op, OpType};
use crate::position::Position;
use crate::well_formed::{self, ParsedOp};

/// Operations in history order, invocations paired with completions.
#[derive(Debug, Clone, Default)]
pub struct History {
    ops: Vec<Op>,
    partner: Vec<u32>,
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
    pub(crate) fn from_parts(ops: Vec<Op>, partner: Vec<u32>) -> History {
        History { ops, partner }
    }

    /// Builds a history from operations made in memory (by a runner or a test), checking the same rules
    /// as a file; each operation's index and process are taken as given.
    pub fn from_ops(ops: Vec<Op>) -> Result<History, (Position, Problem)> {
        let parsed =
            ops.into_iter().map(|op| ParsedOp { index: Some(op.index), process: Some(op.process), op }).collect();
        well_formed::settle(parsed)
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
    pub fn transactions(&self) -> impl Iterator<Item = Transaction<'_>> + '_ {
        self.ops.iter().enumerate().filter(|(_, op)| op.kind == OpType::Invoke && op.is_client()).map(
            move |(i, invoke)| {
                let completion_at = self.partner(i);
                Transaction { invoke_at: i, invoke, completion_at, completion: completion_at.map(|c| &self.ops[c]) }
            },
        )
    }
}
