//! How each dependency kind is drawn, in every picture (DOT, SVG, the legend): one colour per kind,
//! so ww, wr, rw, process and realtime edges are told apart at a glance, and a line style that keeps
//! them apart in grey too (the orders dashed or dotted). The palette is Tableau's, readable by most
//! colour-blind readers; a predicate dependency is drawn as its item kind.

use checker::Kind;

/// The kind's colour, as `#rrggbb`.
pub fn colour(kind: Kind) -> &'static str {
    match kind {
        Kind::Ww | Kind::Wwp => "#1f77b4",
        Kind::Wr | Kind::Wrp => "#2ca02c",
        Kind::Rw | Kind::Rwp => "#d62728",
        Kind::Process => "#9467bd",
        Kind::Realtime => "#7f7f7f",
    }
}

/// The SVG `stroke-dasharray` of the kind's line, if it is not solid.
pub fn dash(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::Process => Some("6 3"),
        Kind::Realtime => Some("2 3"),
        _ => None,
    }
}

/// Graphviz's `style` of the kind's line.
pub fn dot_style(kind: Kind) -> &'static str {
    match kind {
        Kind::Process => "dashed",
        Kind::Realtime => "dotted",
        _ => "solid",
    }
}

/// What the kind means, in a few words, for legends.
pub fn meaning(kind: Kind) -> &'static str {
    match kind {
        Kind::Ww => "write-write: overwrote",
        Kind::Wr => "write-read: read the write of",
        Kind::Rw => "read-write: did not see the write of",
        Kind::Wwp => "predicate write-write",
        Kind::Wrp => "predicate write-read",
        Kind::Rwp => "predicate anti-dependency",
        Kind::Process => "process order: same client, later",
        Kind::Realtime => "real time: invoked after it completed",
    }
}
