//! A cycle as a Graphviz DOT graph: one box per transaction (its index, outcome, process and
//! micro-ops), one labelled arrow per dependency, coloured by kind so ww, wr, rw, process and realtime
//! edges are told apart at a glance (and the orders dashed or dotted). Graphviz lays it out when asked
//! (`--graphviz`); `svg.rs` draws the same cycle without it.

use std::fmt::Write;

use checker::Cycle;

use crate::escape::dot as escape;
use crate::kind_style::{colour, dot_style};

/// The DOT graph of the `n`th cycle of anomaly class `name`.
pub fn dot(name: &str, n: usize, cycle: &Cycle) -> String {
    let mut out = format!("digraph \"{}\" {{\n", escape(&format!("{name} #{n}")));
    out.push_str("  rankdir=LR;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n  edge [fontname=\"monospace\", fontsize=10];\n");
    let _ = writeln!(out, "  label=\"{}\";\n  labelloc=t;", escape(&format!("{name} #{n}")));
    for op in &cycle.ops {
        let mops: Vec<String> = match &op.init_rows {
            Some(rows) => vec![format!("init {}", histories::RowsText(rows))],
            None => op.value.iter().map(ToString::to_string).collect(),
        };
        let label = format!("T{}\n{} (process {})\n{}", op.index, op.outcome, op.process, mops.join(" "));
        let _ = writeln!(out, "  T{} [label=\"{}\"];", op.index, escape(&label));
    }
    for step in &cycle.steps {
        let label = match &step.key {
            Some(key) => format!("{} {key}", step.kind),
            None => step.kind.to_string(),
        };
        let _ = writeln!(
            out,
            "  T{} -> T{} [label=\"{}\", color=\"{c}\", fontcolor=\"{c}\", style={}, tooltip=\"{}\"];",
            step.from,
            step.to,
            escape(&label),
            dot_style(step.kind),
            escape(&step.explanation),
            c = colour(step.kind)
        );
    }
    out.push_str("}\n");
    out
}
