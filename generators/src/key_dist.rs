//! Key distributions: which of the active keys a micro-op names. Keys sit in numbered slots (see
//! [`crate::wr_txns`]); a distribution picks a slot.
//!
//! - `Uniform`: every slot alike.
//! - `Exponential`: Elle's (`elle.txn/rand-key`), where slot `i` is `base` times as likely as slot
//!   `i - 1`, so the *last* slot is the hottest; Elle's default base is 2.
//! - `Zipfian`: slot `i` (rank `i + 1`) has weight `1 / (i + 1)^theta`, so the *first* slot is the
//!   hottest; YCSB's constant is 0.99 (Cooper et al., "Benchmarking Cloud Serving Systems with YCSB",
//!   SoCC 2010). YCSB samples with Gray et al.'s approximation; we sample the exact distribution by
//!   inverting its cumulative weights, which costs one table per key count and no error.
//!
//! This module owns the distributions and the sampling; which key sits in which slot is the workloads'.

use std::fmt;

use crate::draw::Draw;

/// How keys are chosen among the active ones.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyDist {
    /// Every active key alike.
    Uniform,
    /// Elle's exponential distribution: each slot `base` times as likely as the one before it.
    Exponential {
        /// The ratio between neighbouring slots; greater than 1.
        base: f64,
    },
    /// A Zipfian distribution over slots by rank: slot `i` has weight `1 / (i + 1)^theta`.
    Zipfian {
        /// The skew; positive. YCSB's constant is 0.99.
        theta: f64,
    },
}

impl KeyDist {
    /// Elle's default exponential distribution, base 2.
    pub const fn exponential() -> KeyDist {
        KeyDist::Exponential { base: 2.0 }
    }

    /// YCSB's Zipfian distribution, constant 0.99.
    pub const fn zipfian() -> KeyDist {
        KeyDist::Zipfian { theta: 0.99 }
    }

    /// The distribution's name: `uniform`, `exponential` or `zipfian`.
    pub fn name(&self) -> &'static str {
        match self {
            KeyDist::Uniform => "uniform",
            KeyDist::Exponential { .. } => "exponential",
            KeyDist::Zipfian { .. } => "zipfian",
        }
    }

    /// Parses a name (`uniform`, `exponential`, `zipfian`) into the distribution with its default
    /// constant.
    pub fn parse(name: &str) -> Option<KeyDist> {
        match name {
            "uniform" => Some(KeyDist::Uniform),
            "exponential" => Some(KeyDist::exponential()),
            "zipfian" => Some(KeyDist::zipfian()),
            _ => None,
        }
    }

    /// Why the constant is out of range, if it is.
    pub(crate) fn problem(&self) -> Option<String> {
        match *self {
            KeyDist::Uniform => None,
            KeyDist::Exponential { base } if !(base > 1.0 && base.is_finite()) => {
                Some(format!("the exponential key distribution needs a base greater than 1, not {base}"))
            }
            KeyDist::Zipfian { theta } if !(theta > 0.0 && theta.is_finite()) => {
                Some(format!("the zipfian key distribution needs a positive constant, not {theta}"))
            }
            _ => None,
        }
    }
}

impl fmt::Display for KeyDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyDist::Uniform => write!(f, "uniform"),
            KeyDist::Exponential { base } => write!(f, "exponential (base {base})"),
            KeyDist::Zipfian { theta } => write!(f, "zipfian (constant {theta})"),
        }
    }
}

/// Picks slots `0..slots` by a distribution.
#[derive(Debug, Clone)]
pub(crate) struct SlotPicker {
    dist: KeyDist,
    slots: usize,
    /// Zipfian only: the cumulative weights of slots `0..=i`.
    cumulative: Vec<f64>,
}

impl SlotPicker {
    /// A picker over `slots` slots (at least one); the distribution's constant must be in range.
    pub(crate) fn new(dist: KeyDist, slots: usize) -> SlotPicker {
        debug_assert!(slots > 0 && dist.problem().is_none());
        let cumulative = match dist {
            KeyDist::Zipfian { theta } => (0..slots)
                .scan(0.0, |sum, i| {
                    *sum += 1.0 / ((i + 1) as f64).powf(theta);
                    Some(*sum)
                })
                .collect(),
            _ => Vec::new(),
        };
        SlotPicker { dist, slots, cumulative }
    }

    /// A slot.
    pub(crate) fn pick(&self, draw: &mut Draw) -> usize {
        let last = self.slots - 1;
        match self.dist {
            KeyDist::Uniform => draw.index(self.slots),
            KeyDist::Exponential { base } => {
                // Counting from the hottest (last) slot, `j` steps down has weight base^-j: a geometric
                // distribution truncated to `slots` values, sampled by inverting its distribution function.
                // This is Elle's distribution, computed without base^slots, which overflows for many keys.
                let q = 1.0 / base;
                let u = draw.unit();
                let j = ((1.0 - u * (1.0 - q.powf(self.slots as f64))).ln() / q.ln()).floor();
                last - (j.max(0.0) as usize).min(last)
            }
            KeyDist::Zipfian { .. } => {
                let total = self.cumulative[last];
                let target = draw.unit() * total;
                self.cumulative.partition_point(|&c| c <= target).min(last)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(dist: KeyDist, slots: usize, samples: usize, seed: u64) -> Vec<usize> {
        let picker = SlotPicker::new(dist, slots);
        let mut draw = Draw::new(seed);
        let mut counts = vec![0; slots];
        for _ in 0..samples {
            counts[picker.pick(&mut draw)] += 1;
        }
        counts
    }

    #[test]
    fn zipfian_skew_measurably_favours_low_ranks() {
        let counts = histogram(KeyDist::zipfian(), 100, 200_000, 1);
        // With theta 0.99 over 100 ranks, rank 1 takes about 1/H = 19% and rank 100 about 0.2%.
        let share = |i: usize| counts[i] as f64 / 200_000.0;
        assert!((0.17..0.21).contains(&share(0)), "rank 1 share {}", share(0));
        assert!(share(0) > 1.8 * share(1), "rank 1 is about twice rank 2: {counts:?}");
        assert!(share(99) < 0.004, "rank 100 share {}", share(99));
        let first_ten: usize = counts[..10].iter().sum();
        let last_ten: usize = counts[90..].iter().sum();
        assert!(first_ten > 20 * last_ten, "{first_ten} vs {last_ten}");
    }

    #[test]
    fn exponential_is_elles_last_slot_hottest_each_twice_the_one_before() {
        let counts = histogram(KeyDist::exponential(), 5, 100_000, 2);
        // Weights 1, 2, 4, 8, 16 out of 31.
        for (i, &n) in counts.iter().enumerate() {
            let expected = 100_000.0 * f64::from(1u32 << i) / 31.0;
            assert!((n as f64 - expected).abs() < 0.05 * expected + 100.0, "slot {i}: {n} vs {expected}");
        }
        // Many keys: no overflow, still in range and still hottest at the end.
        let many = histogram(KeyDist::exponential(), 5_000, 10_000, 3);
        assert!((4_500..5_500).contains(&many[4_999]), "{:?}", &many[4_990..]);
        assert!(many[4_990..].iter().sum::<usize>() > 9_950, "{:?}", &many[4_990..]);
    }

    #[test]
    fn uniform_covers_every_slot_and_one_slot_is_always_chosen() {
        let counts = histogram(KeyDist::Uniform, 4, 40_000, 4);
        assert!(counts.iter().all(|&n| (9_000..11_000).contains(&n)), "{counts:?}");
        for dist in [KeyDist::Uniform, KeyDist::exponential(), KeyDist::zipfian()] {
            assert_eq!(histogram(dist, 1, 100, 5), vec![100]);
        }
    }

    #[test]
    fn constants_out_of_range_are_named() {
        assert!(KeyDist::Exponential { base: 1.0 }.problem().unwrap().contains("greater than 1"));
        assert!(KeyDist::Zipfian { theta: 0.0 }.problem().unwrap().contains("positive"));
        assert_eq!(KeyDist::zipfian().problem(), None);
        assert_eq!(KeyDist::parse("zipfian"), Some(KeyDist::Zipfian { theta: 0.99 }));
        assert_eq!(KeyDist::parse("pareto"), None);
    }
}
