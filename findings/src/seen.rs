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

/// `K keys, N with a version order the history shows` (`K keys` when only counts are known).
pub(crate) fn keys(s: &Stats) -> String {
    if s.counts_only {
        return format!("{} keys", s.keys);
    }
    format!("{} keys, {} with a version order the history shows", s.keys, s.ordered_keys)
}

/// The dependencies by kind (`rw 2, wr 5`), or `none`; when only counts are known (a verdict from the
/// online rounds), that they were not counted.
pub(crate) fn dependencies(s: &Stats) -> String {
    if s.counts_only {
        return "not counted (the verdict is the online rounds', which check the history in parts)".to_string();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_says_the_graph_was_not_counted_rather_than_none() {
        let counted = Stats { ops: 4, txns: 2, ok: 2, keys: 1, ..Stats::default() };
        assert_eq!(
            sentence(&counted, str::to_string),
            "Saw 4 operations: 2 transactions (2 ok, 0 fail, 0 info); 1 keys, 0 with a version order the history \
             shows; dependencies: none"
        );
        let counts_only = Stats { counts_only: true, ..counted };
        assert_eq!(
            sentence(&counts_only, str::to_string),
            "Saw 4 operations: 2 transactions (2 ok, 0 fail, 0 info); 1 keys; dependencies: not counted (the \
             verdict is the online rounds', which check the history in parts)"
        );
    }
}
