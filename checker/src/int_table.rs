//! A table keyed by `i64` for the values generated histories number densely (keys 0, 1, 2, ...; each key's
//! elements 1, 2, 3, ...): a plain vector indexed by value while the values stay dense, a hash map once
//! they do not. Lookups by value are the checker's hottest path, and a vector of small slots keeps far
//! more of them in cache than a hash map does. This module owns that structure; what a slot holds is
//! each user's ([`crate::key_ids`], the list-append elements).

use rustc_hash::FxHashMap;

/// What a table holds per value: `ABSENT` marks a slot no value was entered in.
pub trait Slot: Copy {
    /// The content of a slot nothing was entered in.
    const ABSENT: Self;

    /// Whether this is [`Slot::ABSENT`].
    fn is_absent(&self) -> bool;
}

/// Slots by `i64` value.
#[derive(Debug, Clone)]
pub enum IntTable<V> {
    /// Values `base..base + slots.len()`, `known` of them entered.
    Dense { base: i64, slots: Vec<V>, known: usize },
    /// Any values, the least `low` and the greatest `high`; dense again once they fill that span (see
    /// [`IntTable::entry`]).
    Sparse { map: FxHashMap<i64, V>, low: i64, high: i64 },
}

impl<V> Default for IntTable<V> {
    fn default() -> Self {
        IntTable::Dense { base: 0, slots: Vec::new(), known: 0 }
    }
}

impl<V: Slot> IntTable<V> {
    /// The slot of `value`, if one was entered.
    #[inline]
    pub fn get(&self, value: i64) -> Option<&V> {
        match self {
            IntTable::Dense { base, slots, .. } => {
                let i = value.checked_sub(*base)?;
                usize::try_from(i).ok().and_then(|i| slots.get(i)).filter(|v| !v.is_absent())
            }
            IntTable::Sparse { map, .. } => map.get(&value),
        }
    }

    /// The slot of `value`, if one was entered, to change.
    pub fn get_mut(&mut self, value: i64) -> Option<&mut V> {
        match self {
            IntTable::Dense { base, slots, .. } => {
                let i = value.checked_sub(*base)?;
                usize::try_from(i).ok().and_then(|i| slots.get_mut(i)).filter(|v| !v.is_absent())
            }
            IntTable::Sparse { map, .. } => map.get_mut(&value),
        }
    }

    /// The slot of `value`, entered as `new` if it had none (`new` must not be [`Slot::ABSENT`]).
    ///
    /// A dense table becomes a map when a value would leave more than three slots in four empty, and a
    /// map becomes a dense table again once its values fill at least half of the span from the least to
    /// the greatest: keys met in a random order (a history whose transactions touch keys all over their
    /// range) start far apart and fill in. Each change costs the table's size, and between two changes
    /// back to dense the values at least double, so an entry costs O(1) amortized.
    pub fn entry(&mut self, value: i64, new: V) -> &mut V {
        debug_assert!(!new.is_absent());
        if let IntTable::Dense { base, slots, known } = self
            && !Self::within(*base, slots.len(), value)
            && !Self::fits(*base, slots.len(), *known, value)
        {
            let map: FxHashMap<i64, V> =
                slots.iter().enumerate().filter(|(_, v)| !v.is_absent()).map(|(i, v)| (*base + i as i64, *v)).collect();
            let (low, high) = map.keys().fold((value, value), |(l, h), &v| (l.min(v), h.max(v)));
            *self = IntTable::Sparse { map, low, high };
        }
        if let IntTable::Sparse { map, low, high } = self
            && !map.contains_key(&value)
        {
            let (low, high) = ((*low).min(value), (*high).max(value));
            let span = i128::from(high) - i128::from(low) + 1;
            if span <= 2 * (map.len() as i128 + 1 + 16) {
                // Every slot of `low..=high`, so `value`'s too: the dense branch below enters it.
                let mut slots = vec![V::ABSENT; span as usize];
                for (&v, &slot) in map.iter() {
                    slots[(v - low) as usize] = slot;
                }
                *self = IntTable::Dense { base: low, slots, known: map.len() };
            }
        }
        match self {
            IntTable::Dense { base, slots, known } => {
                if slots.is_empty() {
                    *base = value;
                }
                if value < *base {
                    // Room for at least as many again below, so values that come in descending order
                    // shift the table a logarithmic number of times, not once each.
                    let room = usize::try_from((*base).abs_diff(i64::MIN)).unwrap_or(usize::MAX);
                    let shift = ((*base - value) as usize).max(slots.len()).min(room);
                    slots.splice(0..0, std::iter::repeat_n(V::ABSENT, shift));
                    *base -= shift as i64;
                }
                let i = (value - *base) as usize;
                if i >= slots.len() {
                    slots.resize(i + 1, V::ABSENT);
                }
                let slot = &mut slots[i];
                if slot.is_absent() {
                    *slot = new;
                    *known += 1;
                }
                slot
            }
            IntTable::Sparse { map, low, high } => {
                (*low, *high) = ((*low).min(value), (*high).max(value));
                map.entry(value).or_insert(new)
            }
        }
    }

    /// An empty table with a slot for each of the values `low..=high`, of which about `count` will be
    /// entered, so that entering them never grows it; an empty table as [`Default`] gives when a dense
    /// one may not span them (more than three slots in four would stay empty).
    pub fn with_room(low: i64, high: i64, count: usize) -> IntTable<V> {
        let span = i128::from(high) - i128::from(low) + 1;
        if span >= 1 && span <= 4 * (count as i128 + 16) {
            IntTable::Dense { base: low, slots: vec![V::ABSENT; span as usize], known: 0 }
        } else {
            IntTable::default()
        }
    }

    /// How many values were entered.
    pub fn len(&self) -> usize {
        match self {
            IntTable::Dense { known, .. } => *known,
            IntTable::Sparse { map, .. } => map.len(),
        }
    }

    /// Whether `value` has a slot in a dense table of `len` slots from `base`: entering it needs no room.
    #[inline]
    fn within(base: i64, len: usize, value: i64) -> bool {
        value.checked_sub(base).is_some_and(|i| (0..len as i64).contains(&i))
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

impl Slot for u32 {
    const ABSENT: u32 = u32::MAX;

    fn is_absent(&self) -> bool {
        *self == u32::MAX
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn dense_values_stay_in_a_vector_and_sparse_ones_move_to_a_map() {
        let mut table: IntTable<u32> = IntTable::default();
        for v in [5, 3, 4, 7] {
            *table.entry(v, 0) = v as u32;
        }
        assert!(matches!(table, IntTable::Dense { base: 3, known: 4, .. }));
        assert_eq!(table.get(4), Some(&4));
        assert_eq!(table.get(6), None, "6 was never entered");
        assert_eq!(table.get(-100), None);
        assert_eq!(table.get(i64::MIN), None);
        *table.entry(1_000_000, 0) = 9;
        assert!(matches!(table, IntTable::Sparse { low: 3, high: 1_000_000, .. }));
        assert_eq!(table.get(5), Some(&5));
        assert_eq!(table.get(1_000_000), Some(&9));
        assert_eq!(table.get(6), None);
        assert_eq!(table.len(), 5);
    }

    #[test]
    fn a_map_becomes_dense_again_once_its_values_fill_their_span() {
        // Keys met in a scattered order: far apart at first, then filling in 0..1000 (617 is prime to
        // 1000, so i * 617 mod 1000 meets each of them once).
        let values: Vec<i64> = (0..1000).map(|i| i * 617 % 1000).collect();
        let mut table: IntTable<u32> = IntTable::default();
        let mut went_sparse = false;
        for (n, &v) in values.iter().enumerate() {
            *table.entry(v, n as u32) = n as u32;
            went_sparse |= matches!(table, IntTable::Sparse { .. });
            if n == 20 {
                assert!(matches!(table, IntTable::Sparse { .. }), "21 values over most of 0..1000 are sparse");
            }
        }
        assert!(went_sparse);
        assert!(matches!(table, IntTable::Dense { base: 0, known: 1000, .. }), "{table:?}");
        for (n, &v) in values.iter().enumerate() {
            assert_eq!(table.get(v), Some(&(n as u32)));
        }
        assert_eq!(table.get(1000), None);
        assert_eq!(table.get(-1), None);
    }

    #[test]
    fn a_table_made_with_room_stays_dense_and_agrees_with_one_grown_value_by_value() {
        let values: Vec<i64> = (0..300).map(|i| (i * 7919) % 300 + 1_000).collect();
        let mut roomy: IntTable<u32> = IntTable::with_room(1_000, 1_299, values.len());
        let mut grown: IntTable<u32> = IntTable::default();
        for (n, &v) in values.iter().enumerate() {
            assert_eq!(*roomy.entry(v, n as u32), *grown.entry(v, n as u32), "{v}");
            assert!(matches!(roomy, IntTable::Dense { base: 1_000, .. }), "entered {v} in place");
        }
        assert_eq!(roomy.len(), grown.len());
        // A value out of the room still goes in, the table growing or turning sparse as any would.
        *roomy.entry(999, 7) = 7;
        *roomy.entry(50_000, 8) = 8;
        assert_eq!((roomy.get(999), roomy.get(50_000), roomy.get(1_150)), (Some(&7), Some(&8), grown.get(1_150)));
        // Room for values too far apart for their count: no room is made.
        assert!(
            matches!(IntTable::<u32>::with_room(0, 1_000_000, 10), IntTable::Dense { known: 0, ref slots, .. } if slots.is_empty())
        );
        assert!(
            matches!(IntTable::<u32>::with_room(i64::MIN, i64::MAX, usize::MAX / 8), IntTable::Dense { ref slots, .. } if slots.is_empty())
        );
    }

    #[test]
    fn the_table_agrees_with_a_map_on_values_in_any_order() {
        // Scattered, ascending, descending, interleaved around a base, far apart, and the extremes of i64.
        let orders: [Vec<i64>; 6] = [
            // A permutation of 0..300 that jumps about (sparse, then dense again), then values far off.
            (0..300).map(|i| (i * 7919) % 300).chain([10_000, -5, 150, 9_999]).collect(),
            (0..300).collect(),
            (0..300).rev().collect(),
            (0..300).map(|i| if i % 2 == 0 { i } else { -i }).collect(),
            (0..50).map(|i| i * 1_000_003 - 7).collect(),
            vec![i64::MAX, i64::MIN, 0, i64::MAX - 1, i64::MIN + 1, 0],
        ];
        for values in orders {
            let mut table: IntTable<u32> = IntTable::default();
            let mut reference: BTreeMap<i64, u32> = BTreeMap::new();
            for (n, &v) in values.iter().enumerate() {
                let first = *reference.entry(v).or_insert(n as u32);
                assert_eq!(*table.entry(v, n as u32), first, "{v} in {values:?}");
            }
            assert_eq!(table.len(), reference.len());
            for probe in values.iter().flat_map(|&v| [v.saturating_sub(1), v, v.saturating_add(1)]) {
                assert_eq!(table.get(probe), reference.get(&probe), "{probe}");
            }
        }
    }
}
