//! Seeded randomness for the scenario workloads: SplitMix64 (Steele, Lea & Flood 2014), one stream per
//! client, so a seed draws the same choices for each client however the clients interleave, and no
//! client waits for another's generator.

use std::sync::Mutex;

/// SplitMix64: a tiny, fast, seeded generator.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[0, n)`; `n` must be above zero.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        // Lemire's multiply-shift: unbiased enough for workload choices, without a division.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// One generator per client.
pub(crate) struct ClientRngs(Vec<Mutex<SplitMix64>>);

impl ClientRngs {
    pub(crate) fn new(seed: u64, clients: usize) -> ClientRngs {
        ClientRngs(
            (0..clients.max(1) as u64)
                .map(|c| Mutex::new(SplitMix64::new(seed ^ (c + 1).wrapping_mul(0x2545_f491_4f6c_dd1d))))
                .collect(),
        )
    }

    /// Runs `f` with `client`'s generator.
    pub(crate) fn with<T>(&self, client: usize, f: impl FnOnce(&mut SplitMix64) -> T) -> T {
        let slot = &self.0[client % self.0.len()];
        f(&mut slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
