//! The weak levels (`read-committed-cerone`, `read-atomic`, `causal-cerone`): against an exhaustive
//! oracle (`oracle`), and each of Plume's fourteen patterns as a saved history with its verdict at each
//! level and a near-miss that must pass (`patterns`).

mod oracle;
mod oracle_lists;
mod patterns;
mod shortcut;

/// The oracles' search: calls `f` on every permutation of `items[k..]` (after `items[..k]`) until it returns true.
pub(crate) fn permutations(items: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize]) -> bool) -> bool {
    if k == items.len() {
        return f(items);
    }
    for i in k..items.len() {
        items.swap(k, i);
        if permutations(items, k + 1, f) {
            items.swap(k, i);
            return true;
        }
        items.swap(k, i);
    }
    false
}
