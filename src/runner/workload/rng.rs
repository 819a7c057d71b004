//! Seeded randomness for the scenario workloads: `generators::SplitMix64`, one stream per
//! client, so a seed draws the same choices for each client however the clients interleave, and no
//! client waits for another's generator.

use std::sync::Mutex;

pub(crate) use generators::SplitMix64;

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
