//! The seeded source of every random choice a generator makes. A [`Draw`] wraps a named generator,
//! xoshiro256++ (Blackman & Vigna, "Scrambled Linear Pseudorandom Number Generators", 2021) seeded
//! through SplitMix64, and turns its 64-bit outputs into bounded integers, fractions, coin flips and
//! shuffles with algorithms written here (Lemire's multiply-and-reject for bounded integers), not
//! borrowed from `rand`'s distributions. So a seed names the same stream whatever `rand` version is
//! built: the `rand` family changed its sampling algorithms between releases before, and a seed in a
//! `run.json` must replay. This module owns that; what is drawn is the workloads'.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A seeded, deterministic source of random choices whose output depends only on the seed.
#[derive(Debug, Clone)]
pub struct Draw {
    rng: Xoshiro256PlusPlus,
}

impl Draw {
    /// A source seeded with `seed`.
    pub fn new(seed: u64) -> Draw {
        Draw { rng: Xoshiro256PlusPlus::seed_from_u64(seed) }
    }

    /// The next 64 random bits.
    pub fn u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A uniform integer in `0..n`, without modulo bias (Lemire, "Fast Random Integer Generation in an
    /// Interval", 2019).
    ///
    /// # Panics
    /// If `n` is zero.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Draw::below(0): the range is empty");
        let mut m = u128::from(self.u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform index in `0..n`.
    ///
    /// # Panics
    /// If `n` is zero.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A uniform integer in `lo..=hi`.
    ///
    /// # Panics
    /// If `lo > hi`.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        assert!(lo <= hi, "Draw::between({lo}, {hi}): the range is empty");
        match (hi - lo).checked_add(1) {
            Some(width) => lo + self.below(width),
            None => self.u64(),
        }
    }

    /// A uniform fraction in `[0, 1)`, with 53 bits of precision.
    pub fn unit(&mut self) -> f64 {
        (self.u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (`p <= 0` never, `p >= 1` always).
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Shuffles `items` uniformly (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_names_one_stream_and_pins_it() {
        let mut a = Draw::new(7);
        let mut b = Draw::new(7);
        let first: Vec<u64> = (0..4).map(|_| a.u64()).collect();
        assert_eq!(first, (0..4).map(|_| b.u64()).collect::<Vec<_>>());
        // Pinned so that a change of generator or seeding is a reviewed diff, not a silent one.
        let mut pinned = Draw::new(0);
        assert_eq!(pinned.u64(), 0x53175d61490b23df);
        assert_ne!(Draw::new(8).u64(), first[0]);
    }

    #[test]
    fn bounded_draws_stay_in_range_and_cover_it() {
        let mut d = Draw::new(1);
        let mut seen = [0u32; 7];
        for _ in 0..7_000 {
            seen[d.index(7)] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
        for _ in 0..1_000 {
            let x = d.between(3, 5);
            assert!((3..=5).contains(&x));
            let u = d.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert_eq!(d.between(9, 9), 9);
        let _ = d.between(0, u64::MAX);
    }

    #[test]
    fn shuffles_are_permutations() {
        let mut d = Draw::new(3);
        let mut xs: Vec<u32> = (0..50).collect();
        d.shuffle(&mut xs);
        assert_ne!(xs, (0..50).collect::<Vec<_>>());
        xs.sort_unstable();
        assert_eq!(xs, (0..50).collect::<Vec<_>>());
    }
}
