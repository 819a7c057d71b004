//! What the checker saw of a history, in words: how many operations and transactions (with their
//! outcomes), how many keys had a version order the history shows, the dependencies by kind and the
//! cyclic components. One wording for every renderer (the terminal's text, Markdown, HTML), so they say
//! the same thing the same way; each renderer only escapes and lays it out. This module owns the words;
//! the figures are `checker::Stats`'.

use checker::Stats;

/// `T transactions (O ok, F fail, I info)`.
pub(crate) fn transactions(s: &Stats) -> String {
    format!("{} transactions ({} ok, {} fail, {} info)", s.txns, s.ok, s.fail, s.info)
}

/// `K keys, N with a version order the history shows`.
pub(crate) fn keys(s: &Stats) -> String {
    format!("{} keys, {} with a version order the history shows", s.keys, s.ordered_keys)
}

/// The dependencies by kind (`rw 2, wr 5`), or `none`.
pub(crate) fn dependencies(s: &Stats) -> String {
    let edges: Vec<String> = s.edges.iter().map(|(k, n)| format!("{k} {n}")).collect();
    if edges.is_empty() { "none".to_string() } else { edges.join(", ") }
}

/// `N cyclic components (largest M transactions)`, if there are any.
pub(crate) fn cyclic_components(s: &Stats) -> Option<String> {
    (s.cyclic_components > 0)
        .then(|| format!("{} cyclic components (largest {} transactions)", s.cyclic_components, s.largest_component))
}

/// All of it as one sentence, without a final full stop: `Saw N operations: ...; dependencies: ...`.
/// `escape` is applied to the dependencies, the only part that holds names.
pub(crate) fn sentence(s: &Stats, escape: impl Fn(&str) -> String) -> String {
    let mut out = format!(
        "Saw {} operations: {}; {}; dependencies: {}",
        s.ops,
        transactions(s),
        keys(s),
        escape(&dependencies(s))
    );
    if let Some(cyclic) = cyclic_components(s) {
        out.push_str("; ");
        out.push_str(&cyclic);
    }
    out
}
