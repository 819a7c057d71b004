//! What is known of each appended (or observed) element of one key: who appended it, where the version
//! order puts it, and whether its writer appended to the key again afterwards. Generated workloads
//! append 1, 2, 3, ... per key, so the table is a plain vector indexed by value while the values stay
//! dense, and becomes a hash map when they do not: lookups are the checker's hottest path.

use rustc_hash::FxHashMap;

use crate::graph::TxnId;

/// No transaction.
pub(super) const NO_TXN: TxnId = TxnId::MAX;
/// Not in the version order.
pub(super) const UNORDERED: u32 = u32::MAX;

/// What one element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Elem {
    /// The transaction that appended it, of any outcome; `NO_TXN` if none did.
    pub writer: TxnId,
    /// Its position in its key's version order; `UNORDERED` if no read showed it there.
    pub position: u32,
    /// Whether its writer appended to the same key again afterwards.
    pub intermediate: bool,
    known: bool,
}

impl Elem {
    const ABSENT: Elem = Elem { writer: NO_TXN, position: UNORDERED, intermediate: false, known: false };
    const NEW: Elem = Elem { writer: NO_TXN, position: UNORDERED, intermediate: false, known: true };
}

/// One key's elements.
#[derive(Debug, Clone)]
pub(super) enum ElemMap {
    /// Values `base..base + slots.len()`, `known` of them entered.
    Dense { base: i64, slots: Vec<Elem>, known: usize },
    /// Any values.
    Sparse(FxHashMap<i64, Elem>),
}

impl Default for ElemMap {
    fn default() -> Self {
        ElemMap::Dense { base: 0, slots: Vec::new(), known: 0 }
    }
}

impl ElemMap {
    pub(super) fn get(&self, value: i64) -> Option<&Elem> {
        match self {
            ElemMap::Dense { base, slots, .. } => {
                let i = value.checked_sub(*base)?;
                usize::try_from(i).ok().and_then(|i| slots.get(i)).filter(|e| e.known)
            }
            ElemMap::Sparse(map) => map.get(&value),
        }
    }

    pub(super) fn get_mut(&mut self, value: i64) -> Option<&mut Elem> {
        match self {
            ElemMap::Dense { base, slots, .. } => {
                let i = value.checked_sub(*base)?;
                usize::try_from(i).ok().and_then(|i| slots.get_mut(i)).filter(|e| e.known)
            }
            ElemMap::Sparse(map) => map.get_mut(&value),
        }
    }

    /// The element, created (unwritten, unordered) if it was unknown.
    pub(super) fn entry(&mut self, value: i64) -> &mut Elem {
        if let ElemMap::Dense { base, slots, known } = self
            && !Self::fits(*base, slots.len(), *known, value)
        {
            let map: FxHashMap<i64, Elem> =
                slots.iter().enumerate().filter(|(_, e)| e.known).map(|(i, e)| (*base + i as i64, *e)).collect();
            *self = ElemMap::Sparse(map);
        }
        match self {
            ElemMap::Dense { base, slots, known } => {
                if slots.is_empty() {
                    *base = value;
                }
                if value < *base {
                    // Room for at least as many again below, so values that come in descending order
                    // shift the table a logarithmic number of times, not once each.
                    let room = usize::try_from((*base).abs_diff(i64::MIN)).unwrap_or(usize::MAX);
                    let shift = ((*base - value) as usize).max(slots.len()).min(room);
                    slots.splice(0..0, std::iter::repeat_n(Elem::ABSENT, shift));
                    *base -= shift as i64;
                }
                let i = (value - *base) as usize;
                if i >= slots.len() {
                    slots.resize(i + 1, Elem::ABSENT);
                }
                let slot = &mut slots[i];
                if !slot.known {
                    *slot = Elem::NEW;
                    *known += 1;
                }
                slot
            }
            ElemMap::Sparse(map) => map.entry(value).or_insert(Elem::NEW),
        }
    }

    /// Whether a dense table of `len` slots from `base`, `known` of them used, stays dense with `value`:
    /// while at most three slots in four would be empty.
    fn fits(base: i64, len: usize, known: usize, value: i64) -> bool {
        if len == 0 {
            return true;
        }
        let low = base.min(value);
        let high = base.saturating_add(len as i64).max(value.saturating_add(1));
        high.saturating_sub(low) <= 4 * (known as i64 + 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_values_stay_in_a_vector_and_sparse_ones_move_to_a_map() {
        let mut map = ElemMap::default();
        for v in [5, 3, 4, 7] {
            map.entry(v).writer = v as TxnId;
        }
        assert!(matches!(map, ElemMap::Dense { base: 3, known: 4, .. }));
        assert_eq!(map.get(4).map(|e| e.writer), Some(4));
        assert_eq!(map.get(6), None, "6 was never entered");
        assert_eq!(map.get(-100), None);
        map.entry(1_000_000).writer = 9;
        assert!(matches!(map, ElemMap::Sparse(_)));
        assert_eq!(map.get(5).map(|e| e.writer), Some(5));
        assert_eq!(map.get(1_000_000).map(|e| e.writer), Some(9));
        assert_eq!(map.get(6), None);
    }
}
