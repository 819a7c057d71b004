//! Which kinds of micro-op a history's client operations hold, and whether any is an `init` op: gathered
//! as each operation is read, while its micro-ops are in a core's cache, so that a checker can tell a
//! history's workload without another pass over millions of operations. This module owns that summary
//! and the kinds it tells apart; which workload a set of kinds makes is the checker's to say.

use crate::mop::{Mop, Observed};
use crate::op::{Function, Op};

/// A kind of micro-op, as [`MopKinds`] tells them apart: a read by what it returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MopKind {
    /// `append`.
    Append,
    /// A read that returned a list.
    ListRead,
    /// A read that returned `null`.
    NilRead,
    /// A read that returned an integer.
    IntRead,
    /// A register write.
    Write,
    /// `insert`.
    Insert,
    /// `delete`.
    Delete,
    /// A predicate read.
    PredicateRead,
}

impl MopKind {
    /// Every kind.
    pub const ALL: [MopKind; 8] = [
        MopKind::Append,
        MopKind::ListRead,
        MopKind::NilRead,
        MopKind::IntRead,
        MopKind::Write,
        MopKind::Insert,
        MopKind::Delete,
        MopKind::PredicateRead,
    ];

    /// The kind of `mop`.
    pub fn of(mop: &Mop) -> MopKind {
        match mop {
            Mop::Append { .. } => MopKind::Append,
            Mop::Read { value: Observed::List(_), .. } => MopKind::ListRead,
            Mop::Read { value: Observed::Nil, .. } => MopKind::NilRead,
            Mop::Read { value: Observed::Int(_), .. } => MopKind::IntRead,
            Mop::Write { .. } => MopKind::Write,
            Mop::Insert { .. } => MopKind::Insert,
            Mop::Delete { .. } => MopKind::Delete,
            Mop::PredicateRead { .. } => MopKind::PredicateRead,
        }
    }

    fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// The kinds of micro-op some client operation of a history holds (its invocation's or its
/// completion's), and whether some client operation is an `init` op.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MopKinds {
    bits: u16,
}

impl MopKinds {
    /// The bit that says an `init` op was seen, past every kind's.
    const INIT: u16 = 1 << MopKind::ALL.len();

    /// Adds what the client operation `op` holds.
    pub(crate) fn note(&mut self, op: &Op) {
        if *op.f() == Function::Init {
            self.bits |= Self::INIT;
        }
        for mop in op.mops() {
            self.bits |= MopKind::of(mop).bit();
        }
    }

    /// Adds what `other` saw.
    pub(crate) fn add(&mut self, other: MopKinds) {
        self.bits |= other.bits;
    }

    /// Whether some client operation held a micro-op of `kind`.
    pub fn contains(&self, kind: MopKind) -> bool {
        self.bits & kind.bit() != 0
    }

    /// The kinds seen.
    pub fn kinds(self) -> impl Iterator<Item = MopKind> {
        MopKind::ALL.into_iter().filter(move |&k| self.contains(k))
    }

    /// Whether some client operation is an `init` op.
    pub fn has_init(&self) -> bool {
        self.bits & Self::INIT != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Key;
    use crate::op::{OpType, OpValue, Process};

    fn txn(mops: Vec<Mop>) -> Op {
        Op::new(OpType::Ok, Process::Client(0), Function::Txn, OpValue::Txn(mops.into()))
    }

    #[test]
    fn each_micro_op_is_told_by_its_kind_and_reads_by_what_they_returned() {
        let mut kinds = MopKinds::default();
        assert_eq!(kinds.kinds().count(), 0);
        kinds.note(&txn(vec![
            Mop::Append { key: Key::Int(1), value: 2 },
            Mop::Read { key: Key::Int(1), value: Observed::Nil },
        ]));
        assert_eq!(kinds.kinds().collect::<Vec<_>>(), vec![MopKind::Append, MopKind::NilRead]);
        assert!(!kinds.has_init());
        let mut more = MopKinds::default();
        more.note(&txn(vec![Mop::Read { key: Key::Int(1), value: Observed::Int(3) }]));
        kinds.add(more);
        assert_eq!(kinds.kinds().collect::<Vec<_>>(), vec![MopKind::Append, MopKind::NilRead, MopKind::IntRead]);
        assert!(!kinds.contains(MopKind::ListRead));
    }

    #[test]
    fn an_init_op_is_seen_even_without_micro_ops() {
        let mut kinds = MopKinds::default();
        kinds.note(&Op::new(OpType::Invoke, Process::Client(0), Function::Init, OpValue::Txn(Vec::new().into())));
        assert!(kinds.has_init());
        assert_eq!(kinds.kinds().count(), 0);
    }
}
