//! What a history leaves out that a check can do without, and what that costs it. Elle's own tests, its
//! README and histories taken from logs often hold only completions (`{:type :ok, :process 0, :value
//! [...]}` with no invoke), and some put several invokes in flight on one process before their
//! completions. Such a history is read all the same: a completion with no invoke is a transaction whose
//! invocation time is unknown (it keeps its process order, and gets no real-time predecessors, which is
//! sound), and a completion is paired with an in-flight invoke of the same micro-ops (where several could
//! be its invoke, each of them is taken to have been invoked as early as the earliest, again losing real
//! time rather than inventing it). Each leniency is recorded once, with where it first applied, how many
//! operations it applied to, and the error a strict reading (`--strict`) reports instead. This module
//! owns that record; pairing is [`crate::well_formed`]'s.

use crate::error::Problem;
use crate::position::Position;

/// A way in which a history was read more leniently than the history format asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LeniencyKind {
    /// Completions with no invoke: their transactions' invocation times are unknown.
    CompletionWithoutInvoke,
    /// Several invokes in flight on one process, paired with their completions by their micro-ops.
    InvokesInFlight,
}

impl LeniencyKind {
    /// The leniency's name in a result.
    pub fn name(self) -> &'static str {
        match self {
            LeniencyKind::CompletionWithoutInvoke => "completion-without-invoke",
            LeniencyKind::InvokesInFlight => "invokes-in-flight",
        }
    }

    /// The real-time information the history does not give, and how the check does without it.
    pub fn missing(self) -> &'static str {
        match self {
            LeniencyKind::CompletionWithoutInvoke => {
                "completions with no invoke: when those transactions were invoked is unknown, so they keep their \
                 process order but get no real-time predecessors"
            }
            LeniencyKind::InvokesInFlight => {
                "several invokes in flight on one process, paired with completions by their micro-ops: where more \
                 than one invoke could be a completion's, its transaction is taken to have been invoked as early as \
                 the earliest of them, so real-time order is only what every pairing agrees on"
            }
        }
    }
}

/// One leniency a reading of a history applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leniency {
    /// What was read leniently.
    pub kind: LeniencyKind,
    /// Where it first applied.
    pub first: Position,
    /// What a strict reading reports there.
    pub problem: Problem,
    /// How many operations it applied to.
    pub ops: usize,
}
