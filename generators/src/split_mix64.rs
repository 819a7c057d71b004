//! SplitMix64 (Steele, Lea & Flood, "Fast Splittable Pseudorandom Number Generators", 2014; Vigna's
//! reference implementation): a tiny, fast, seeded generator, written once for whatever draws from one
//! (the runner's scenario workloads, `isocheck hunt`'s run shapes, the engine's benchmarks). The
//! transaction generators draw from [`crate::Draw`] instead. This module owns the generator; what is
//! drawn with it is its callers'.

/// SplitMix64: a tiny, fast, seeded generator whose stream depends only on its seed.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[0, n)`; `n` must be above zero.
    pub fn below(&mut self, n: u64) -> u64 {
        // Lemire's multiply-shift: unbiased enough for workload choices, without a division.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_matches_the_reference_output() {
        // The first outputs of SplitMix64 seeded with 1234567 (Vigna's reference implementation).
        let mut rng = SplitMix64::new(1_234_567);
        assert_eq!(rng.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(rng.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn the_same_seed_draws_the_same_numbers_and_below_stays_below() {
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        for _ in 0..1000 {
            let n = a.below(5);
            assert_eq!(n, b.below(5));
            assert!(n < 5);
            let x = a.next_f64();
            assert_eq!(x, b.next_f64());
            assert!((0.0..1.0).contains(&x));
        }
    }
}
