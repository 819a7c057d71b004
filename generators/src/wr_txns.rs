//! The transaction stream both workloads share, in the shape of Elle's `elle.txn/wr-txns`: each
//! transaction is a random number of micro-ops, each a read or a write of an active key. Keys are
//! integers held in numbered slots; each key counts its writes, and the values written to a key are
//! 1, 2, 3, ... so every write is unique per key. A write that would exceed `max_writes_per_key`
//! instead retires its key: a fresh key (one more than any key so far) takes the slot, and the
//! micro-op is drawn again, as Elle does. With a `key_lifetime` of L (not Elle's), a key is also
//! retired, before a transaction is drawn, once L transactions have been drawn since it entered,
//! however few writes it took; the first keys' lifetimes are staggered (slot i's first key lives
//! L * (i + 1) / key_count transactions) so that the keys of slots seldom written do not all rotate
//! at once. Without one, the stream is exactly Elle's. This module owns the stream; the workloads
//! ([`crate::list_append`], [`crate::rw_register`]) name its writes.

use std::collections::BTreeMap;

use crate::draw::Draw;
use crate::key_dist::SlotPicker;
use crate::params::{InvalidParams, Params};

/// One drawn micro-op, before a workload names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drawn {
    Read { key: i64 },
    Write { key: i64, value: i64 },
}

/// The shared stream: parameters, the seeded source, and the key pool.
#[derive(Debug, Clone)]
pub(crate) struct WrTxns {
    params: Params,
    draw: Draw,
    picker: SlotPicker,
    /// The active keys, by slot.
    active: Vec<i64>,
    /// The next fresh key.
    next_key: i64,
    /// Writes so far, per key (keys absent have had none).
    writes: BTreeMap<i64, u64>,
    /// Transactions drawn so far.
    drawn: u64,
    /// Per slot: the number of the transaction before which its key is retired for its age
    /// (`u64::MAX` without a `key_lifetime`).
    expires: Vec<u64>,
}

impl WrTxns {
    pub(crate) fn new(params: Params, seed: u64) -> Result<WrTxns, InvalidParams> {
        params.validate()?;
        Ok(WrTxns {
            params,
            draw: Draw::new(seed),
            picker: SlotPicker::new(params.key_dist, params.key_count),
            active: (0..params.key_count as i64).collect(),
            next_key: params.key_count as i64,
            writes: BTreeMap::new(),
            drawn: 0,
            expires: (0..params.key_count as u64)
                .map(|slot| match params.key_lifetime {
                    // Staggered: slot `i`'s first key lives `L * (i + 1) / key_count` transactions (at least one).
                    Some(life) => (u128::from(life) * u128::from(slot + 1) / params.key_count as u128).max(1) as u64,
                    None => u64::MAX,
                })
                .collect(),
        })
    }

    pub(crate) fn params(&self) -> &Params {
        &self.params
    }

    pub(crate) fn active_keys(&self) -> &[i64] {
        &self.active
    }

    /// Puts a fresh key in `slot`, retiring the one there (a retired key never returns, so its count
    /// can go); the fresh key's lifetime starts with the transaction being drawn.
    fn rotate(&mut self, slot: usize) {
        self.writes.remove(&self.active[slot]);
        self.active[slot] = self.next_key;
        self.next_key += 1;
        self.expires[slot] = match self.params.key_lifetime {
            Some(life) => self.drawn.saturating_add(life),
            None => u64::MAX,
        };
    }

    /// The next transaction's micro-ops.
    pub(crate) fn next_txn(&mut self) -> Vec<Drawn> {
        let p = self.params;
        // Keys past their lifetime leave before the transaction is drawn: it names none of them.
        for slot in 0..self.active.len() {
            if self.expires[slot] <= self.drawn {
                self.rotate(slot);
            }
        }
        let len = self.draw.between(p.min_txn_len as u64, p.max_txn_len as u64) as usize;
        let mut txn = Vec::with_capacity(len);
        while txn.len() < len {
            let read = self.draw.chance(p.read_fraction);
            let slot = self.picker.pick(&mut self.draw);
            let key = self.active[slot];
            if read {
                txn.push(Drawn::Read { key });
                continue;
            }
            let written = self.writes.entry(key).or_insert(0);
            if *written >= p.max_writes_per_key {
                self.rotate(slot);
                continue;
            }
            *written += 1;
            txn.push(Drawn::Write { key, value: *written as i64 });
        }
        self.drawn += 1;
        txn
    }
}
