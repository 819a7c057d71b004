//! The sentence that names a cycle's shape (the checker's [`checker::Shape`]) for a person: "The
//! read-only anomaly (Fekete, O'Neil and O'Neil 2004): T3620 only read, yet ...". The checker decides
//! the shape and its roles; this module only words them, once, for the text, Markdown and HTML reports.

use checker::{Cycle, Kind, Shape};

/// The sentence naming the cycle's shape, if the checker recognised one.
pub fn shape_sentence(cycle: &Cycle) -> Option<String> {
    match cycle.shape.as_ref()? {
        Shape::ReadOnlyAnomaly { read_only, pivot, t_out } => {
            let (read_only, pivot, t_out) = (*read_only, *pivot, *t_out);
            let saw = match path(cycle, t_out, read_only) {
                Some(path) if path.len() == 1 && path[0].0 == Kind::Wr => {
                    format!("it read T{t_out}'s write (T{t_out} < T{read_only})")
                }
                Some(path) => {
                    let chain: Vec<String> = std::iter::once(format!("T{t_out}"))
                        .chain(path.iter().map(|(_, to)| format!("T{to}")))
                        .collect();
                    format!("it came after T{t_out} ({})", chain.join(" < "))
                }
                None => format!("it came after T{t_out}"),
            };
            Some(format!(
                "This is the read-only anomaly (Fekete, O'Neil and O'Neil 2004): T{read_only} only read, yet {saw} and \
                 missed T{pivot}'s write (T{read_only} < T{pivot}), while T{pivot} missed T{t_out}'s write (T{pivot} < \
                 T{t_out}). Without T{read_only} there is no cycle here (T{pivot} then T{t_out} is a serial order for \
                 those two): it closes only through a transaction that wrote nothing."
            ))
        }
        _ => None,
    }
}

/// The steps from `from` to `to` along the cycle, as (kind, transaction reached).
fn path(cycle: &Cycle, from: u64, to: u64) -> Option<Vec<(Kind, u64)>> {
    let n = cycle.steps.len();
    let start = cycle.steps.iter().position(|s| s.from == from)?;
    let mut path = Vec::new();
    for i in 0..n {
        let step = &cycle.steps[(start + i) % n];
        path.push((step.kind, step.to));
        if step.to == to {
            return Some(path);
        }
    }
    None
}
