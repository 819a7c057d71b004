//! Cycle classes: which kinds of dependency cycle are which anomaly, exactly as Elle classifies them
//! (`elle.txn/cycle-explainer` and `base-cycle-anomaly-specs`). A cycle whose anti-dependencies (`rw`,
//! `rwp`) number one is G-single; two or more, none adjacent, G-nonadjacent; two or more with an adjacent
//! pair, G2; none but a `wr`, G1c; only `ww`, G0. Without predicate anti-dependencies each carries the
//! `-item` suffix (G0 and G1c excepted), and a cycle using a real-time (or else a process) edge carries
//! `-realtime` (or `-process`). This module owns that classification and, for each class, the shape of
//! the cycles it searches for; the search itself is `cycle_search`'s.

use crate::kind::{Kind, Kinds};

/// How many anti-dependencies a class's cycles have, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// None; the cycle starts with an edge of `first` (`ww` for G0, `wr` for G1c).
    NoAnti {
        /// The kinds the cycle must contain at least one of.
        first: Kinds,
    },
    /// Exactly one.
    SingleAnti,
    /// Two or more, no two adjacent (cyclically).
    NonadjacentAnti,
    /// Two or more, at least one pair adjacent.
    AdjacentAnti,
}

/// Whether a class's cycles may, must or must not carry a predicate anti-dependency (`rwp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredicateRule {
    /// G0 and G1c do not care.
    Either,
    /// The `-item` classes: item anti-dependencies only.
    Never,
    /// G-single, G-nonadjacent and G2 proper: at least one `rwp`.
    Required,
}

/// One class of cycle anomaly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CycleClass {
    /// Elle's name, e.g. `G-single-item-realtime`.
    pub name: &'static str,
    /// The kinds its cycles may use.
    pub allowed: Kinds,
    /// Where its anti-dependencies are.
    pub shape: Shape,
    /// Whether predicate anti-dependencies are needed.
    pub predicate: PredicateRule,
    /// `Process` or `Realtime` for the variants, which need at least one edge of that kind.
    pub variant: Option<Kind>,
}

const WW: Kinds = Kinds::of(&[Kind::Ww, Kind::Wwp]);
const WW_WR: Kinds = Kinds::of(&[Kind::Ww, Kind::Wwp, Kind::Wr, Kind::Wrp]);
const WR: Kinds = Kinds::of(&[Kind::Wr, Kind::Wrp]);

const BASE: [CycleClass; 8] = [
    CycleClass {
        name: "G0",
        allowed: WW,
        shape: Shape::NoAnti { first: WW },
        predicate: PredicateRule::Either,
        variant: None,
    },
    CycleClass {
        name: "G1c",
        allowed: WW_WR,
        shape: Shape::NoAnti { first: WR },
        predicate: PredicateRule::Either,
        variant: None,
    },
    CycleClass {
        name: "G-single-item",
        allowed: WW_WR.union(Kind::Rw.only()),
        shape: Shape::SingleAnti,
        predicate: PredicateRule::Never,
        variant: None,
    },
    CycleClass {
        name: "G-single",
        allowed: WW_WR.union(Kinds::of(&[Kind::Rw, Kind::Rwp])),
        shape: Shape::SingleAnti,
        predicate: PredicateRule::Required,
        variant: None,
    },
    CycleClass {
        name: "G-nonadjacent-item",
        allowed: WW_WR.union(Kind::Rw.only()),
        shape: Shape::NonadjacentAnti,
        predicate: PredicateRule::Never,
        variant: None,
    },
    CycleClass {
        name: "G-nonadjacent",
        allowed: WW_WR.union(Kinds::of(&[Kind::Rw, Kind::Rwp])),
        shape: Shape::NonadjacentAnti,
        predicate: PredicateRule::Required,
        variant: None,
    },
    CycleClass {
        name: "G2-item",
        allowed: WW_WR.union(Kind::Rw.only()),
        shape: Shape::AdjacentAnti,
        predicate: PredicateRule::Never,
        variant: None,
    },
    CycleClass {
        name: "G2",
        allowed: WW_WR.union(Kinds::of(&[Kind::Rw, Kind::Rwp])),
        shape: Shape::AdjacentAnti,
        predicate: PredicateRule::Required,
        variant: None,
    },
];

/// Every cycle class: the eight base classes, then their `-process` and `-realtime` variants.
pub fn all_classes() -> Vec<CycleClass> {
    let mut classes = BASE.to_vec();
    for (suffix, kind, name_of) in
        [("process", Kind::Process, PROCESS_NAMES.as_slice()), ("realtime", Kind::Realtime, REALTIME_NAMES.as_slice())]
    {
        for (base, name) in BASE.iter().zip(name_of) {
            debug_assert_eq!(*name, format!("{}-{suffix}", base.name));
            classes.push(CycleClass { name, allowed: base.allowed.union(kind.only()), variant: Some(kind), ..*base });
        }
    }
    classes
}

const PROCESS_NAMES: [&str; 8] = [
    "G0-process",
    "G1c-process",
    "G-single-item-process",
    "G-single-process",
    "G-nonadjacent-item-process",
    "G-nonadjacent-process",
    "G2-item-process",
    "G2-process",
];

const REALTIME_NAMES: [&str; 8] = [
    "G0-realtime",
    "G1c-realtime",
    "G-single-item-realtime",
    "G-single-realtime",
    "G-nonadjacent-item-realtime",
    "G-nonadjacent-realtime",
    "G2-item-realtime",
    "G2-realtime",
];

/// Elle's name for a cycle whose edges (in order, the last returning to the first transaction) have
/// these labels.
pub fn classify(labels: &[Kind]) -> String {
    let count = |k: Kind| labels.iter().filter(|&&l| l == k).count();
    let anti = count(Kind::Rw) + count(Kind::Rwp);
    let predicate = count(Kind::Rwp) > 0;
    let adjacent = (0..labels.len()).any(|i| labels[i].is_anti() && labels[(i + 1) % labels.len()].is_anti());
    let base = match anti {
        1 => {
            if predicate {
                "G-single"
            } else {
                "G-single-item"
            }
        }
        n if n > 1 => match (adjacent, predicate) {
            (true, true) => "G2",
            (true, false) => "G2-item",
            (false, true) => "G-nonadjacent",
            (false, false) => "G-nonadjacent-item",
        },
        _ if count(Kind::Wr) + count(Kind::Wrp) > 0 => "G1c",
        _ => "G0",
    };
    let suffix = if count(Kind::Realtime) > 0 {
        "-realtime"
    } else if count(Kind::Process) > 0 {
        "-process"
    } else {
        ""
    };
    format!("{base}{suffix}")
}

/// The state of a walk in a class's automaton: which anti-dependencies it has taken, whether the last
/// edge was one, whether it still owes a second adjacent one, and whether it has used the variant's
/// kind and a predicate anti-dependency. Packed in six bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WalkState(pub u8);

const ANTI_MASK: u8 = 0b11;
const LAST_ANTI: u8 = 1 << 2;
const OWES_ANTI: u8 = 1 << 3;
const SEEN_VARIANT: u8 = 1 << 4;
const SEEN_PREDICATE: u8 = 1 << 5;

/// The number of distinct walk states.
pub const WALK_STATES: usize = 64;

impl CycleClass {
    /// Whether a cycle of this class can start with an edge labelled `label`: every cycle is searched
    /// from the rotation that starts at its distinguishing edge.
    pub fn can_start(&self, label: Kind) -> bool {
        match self.shape {
            Shape::NoAnti { first } => first.contains(label),
            _ => label.is_anti(),
        }
    }

    /// The state after the first edge.
    pub fn start(&self, label: Kind) -> Option<WalkState> {
        let state = self.step(WalkState(0), label)?;
        Some(match self.shape {
            Shape::AdjacentAnti => WalkState(state.0 | OWES_ANTI),
            _ => state,
        })
    }

    /// The state after taking an edge labelled `label`, or `None` if no cycle of this class continues so.
    pub fn step(&self, state: WalkState, label: Kind) -> Option<WalkState> {
        if !self.allowed.contains(label) {
            return None;
        }
        let mut s = state.0;
        if label.is_anti() {
            let anti = s & ANTI_MASK;
            match self.shape {
                Shape::NoAnti { .. } => return None,
                Shape::SingleAnti if anti >= 1 => return None,
                Shape::NonadjacentAnti if s & LAST_ANTI != 0 => return None,
                _ => {}
            }
            s = (s & !ANTI_MASK) | (anti + 1).min(2);
            s |= LAST_ANTI;
            s &= !OWES_ANTI;
            if label == Kind::Rwp {
                s |= SEEN_PREDICATE;
            }
        } else {
            if s & OWES_ANTI != 0 {
                return None;
            }
            s &= !LAST_ANTI;
            if Some(label) == self.variant {
                s |= SEEN_VARIANT;
            }
        }
        Some(WalkState(s))
    }

    /// Whether a walk in this state, closed back to its first transaction, is a cycle of this class.
    pub fn accepts(&self, state: WalkState) -> bool {
        let s = state.0;
        let anti = s & ANTI_MASK;
        let shape_ok = match self.shape {
            Shape::NoAnti { .. } => anti == 0,
            Shape::SingleAnti => anti == 1,
            // The first edge is an anti-dependency, so the last must not be one.
            Shape::NonadjacentAnti => anti >= 2 && s & LAST_ANTI == 0,
            Shape::AdjacentAnti => anti >= 2 && s & OWES_ANTI == 0,
        };
        let variant_ok = self.variant.is_none() || s & SEEN_VARIANT != 0;
        let predicate_ok = match self.predicate {
            PredicateRule::Either => true,
            PredicateRule::Never => s & SEEN_PREDICATE == 0,
            PredicateRule::Required => s & SEEN_PREDICATE != 0,
        };
        shape_ok && variant_ok && predicate_ok
    }

    /// The label an edge carrying `kinds` has in this class's search: Elle explains an edge by the
    /// first kind it carries, of those the class may use.
    pub fn label(&self, kinds: Kinds) -> Option<Kind> {
        kinds.intersection(self.allowed).label()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Kind::*;

    #[test]
    fn cycles_are_classified_as_elle_classifies_them() {
        let cases: &[(&[Kind], &str)] = &[
            (&[Ww, Ww], "G0"),
            (&[Ww, Wr], "G1c"),
            (&[Rw, Wr], "G-single-item"),
            (&[Rw, Ww, Wr], "G-single-item"),
            (&[Rw, Rwp], "G2"),
            (&[Rw, Rw], "G2-item"),
            (&[Rw, Wr, Rw, Ww], "G-nonadjacent-item"),
            (&[Rw, Wr, Ww, Rw], "G2-item"),
            (&[Rwp, Wr], "G-single"),
            (&[Rwp, Wr, Rw, Wr], "G-nonadjacent"),
            (&[Ww, Process], "G0-process"),
            (&[Ww, Process, Realtime], "G0-realtime"),
            (&[Rw, Realtime], "G-single-item-realtime"),
            (&[Rw, Rw, Process], "G2-item-process"),
        ];
        for (labels, name) in cases {
            assert_eq!(classify(labels), *name, "{labels:?}");
        }
    }

    /// Runs a class's automaton over a cycle, rotated so it starts where the class starts.
    fn accepts(class: &CycleClass, labels: &[Kind]) -> bool {
        (0..labels.len()).any(|r| {
            let rotated: Vec<Kind> = labels[r..].iter().chain(&labels[..r]).copied().collect();
            if !class.can_start(rotated[0]) {
                return false;
            }
            let mut state = match class.start(rotated[0]) {
                Some(s) => s,
                None => return false,
            };
            for &l in &rotated[1..] {
                match class.step(state, l) {
                    Some(s) => state = s,
                    None => return false,
                }
            }
            class.accepts(state)
        })
    }

    #[test]
    fn each_class_accepts_exactly_the_cycles_classified_as_it() {
        // Every label sequence up to length 5 over the kinds a list-append or predicate history has.
        let alphabet = [Ww, Wr, Rw, Rwp, Process, Realtime];
        let classes = all_classes();
        let mut sequences: Vec<Vec<Kind>> = Vec::new();
        let mut frontier: Vec<Vec<Kind>> = vec![Vec::new()];
        for _ in 0..5 {
            frontier = frontier
                .iter()
                .flat_map(|s| alphabet.iter().map(move |&k| s.iter().copied().chain([k]).collect::<Vec<_>>()))
                .collect();
            sequences.extend(frontier.iter().cloned());
        }
        for labels in sequences.iter().filter(|s| s.len() >= 2) {
            let name = classify(labels);
            // Process and real-time edges alone never close a cycle; skip sequences without data.
            if labels.iter().all(|l| matches!(l, Process | Realtime)) {
                continue;
            }
            // Elle's variant classes use only their own order kind.
            let mixed_orders = labels.contains(&Process) && labels.contains(&Realtime);
            for class in &classes {
                let expected = class.name == name && !mixed_orders;
                assert_eq!(accepts(class, labels), expected, "{} on {labels:?} (classified {name})", class.name);
            }
        }
    }
}
