//! Dependency kinds: why one transaction must precede another. Adya's write-write (`ww`), write-read
//! (`wr`) and read-write anti-dependency (`rw`) edges, their predicate forms (`wwp`, `wrp`, `rwp`), and
//! the session (`process`) and real-time (`realtime`) orders. This module owns the kinds, their names,
//! and the priority by which one kind labels an edge that has several (Elle's explainer order); it
//! infers no edges.

use std::fmt;

use serde::{Serialize, Serializer};

/// One kind of dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    /// T2 overwrote (or appended after) T1's write.
    Ww = 0,
    /// T2 read T1's write.
    Wr = 1,
    /// T1 read a version that T2 overwrote: an anti-dependency.
    Rw = 2,
    /// A write-write dependency through a predicate.
    Wwp = 3,
    /// A write-read dependency through a predicate.
    Wrp = 4,
    /// An anti-dependency through a predicate read.
    Rwp = 5,
    /// One process performed T1, then T2.
    Process = 6,
    /// T1 completed before T2 was invoked.
    Realtime = 7,
}

impl Kind {
    /// Every kind, in labelling priority: an edge with several kinds is explained by the first, as
    /// Elle's combined explainer tries the data dependencies before the orders.
    pub const ALL: [Kind; 8] =
        [Kind::Ww, Kind::Wr, Kind::Rw, Kind::Wwp, Kind::Wrp, Kind::Rwp, Kind::Process, Kind::Realtime];

    /// The kind's name, as Elle writes it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ww => "ww",
            Kind::Wr => "wr",
            Kind::Rw => "rw",
            Kind::Wwp => "wwp",
            Kind::Wrp => "wrp",
            Kind::Rwp => "rwp",
            Kind::Process => "process",
            Kind::Realtime => "realtime",
        }
    }

    /// This kind alone, as a set.
    pub const fn only(self) -> Kinds {
        Kinds(1 << self as u8)
    }

    /// Whether this is an anti-dependency (item or predicate).
    pub fn is_anti(self) -> bool {
        matches!(self, Kind::Rw | Kind::Rwp)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Kind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A set of kinds: what one edge of the graph carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Kinds(pub u8);

impl Kinds {
    /// No kinds.
    pub const NONE: Kinds = Kinds(0);
    /// The item data dependencies.
    pub const DATA: Kinds = Kinds(0b111);

    /// The union of these kinds.
    pub const fn of(kinds: &[Kind]) -> Kinds {
        let mut bits = 0;
        let mut i = 0;
        while i < kinds.len() {
            bits |= 1 << kinds[i] as u8;
            i += 1;
        }
        Kinds(bits)
    }

    /// Whether `kind` is in the set.
    pub fn contains(self, kind: Kind) -> bool {
        self.0 & (1 << kind as u8) != 0
    }

    /// The union.
    pub const fn union(self, other: Kinds) -> Kinds {
        Kinds(self.0 | other.0)
    }

    /// The intersection.
    pub const fn intersection(self, other: Kinds) -> Kinds {
        Kinds(self.0 & other.0)
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The kind that labels an edge carrying these kinds: the first in priority.
    pub fn label(self) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| self.contains(*k))
    }

    /// The kinds in the set, in priority order.
    pub fn iter(self) -> impl Iterator<Item = Kind> {
        Kind::ALL.into_iter().filter(move |k| self.contains(*k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edge_is_labelled_by_its_data_dependency_before_its_order() {
        assert_eq!(Kinds::of(&[Kind::Realtime, Kind::Rw]).label(), Some(Kind::Rw));
        assert_eq!(Kinds::of(&[Kind::Wr, Kind::Ww]).label(), Some(Kind::Ww));
        assert_eq!(Kinds::of(&[Kind::Process, Kind::Realtime]).label(), Some(Kind::Process));
        assert_eq!(Kinds::NONE.label(), None);
    }
}
