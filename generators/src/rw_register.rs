//! The rw-register workload in Elle's shape (`elle.rw-register`, drawn by `elle.txn/wr-txns`): each
//! write of the shared stream ([`crate::wr_txns`]) writes a register a value unique to its key (1, 2,
//! 3, ... per key), each read reads one. The stream yields invocations: reads carry no value yet
//! (`["r", k, null]`).

use histories::{Key, Mop, Observed};

use crate::params::{InvalidParams, Params};
use crate::wr_txns::{Drawn, WrTxns};

/// An endless, seeded stream of rw-register transactions; each item is one invocation's micro-ops.
#[derive(Debug, Clone)]
pub struct RwRegister {
    stream: WrTxns,
}

impl RwRegister {
    /// The stream these parameters and this seed name.
    pub fn new(params: Params, seed: u64) -> Result<RwRegister, InvalidParams> {
        Ok(RwRegister { stream: WrTxns::new(params, seed)? })
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        self.stream.params()
    }

    /// The keys active now, by slot.
    pub fn active_keys(&self) -> &[i64] {
        self.stream.active_keys()
    }
}

impl Iterator for RwRegister {
    type Item = Vec<Mop>;

    fn next(&mut self) -> Option<Vec<Mop>> {
        let txn = self.stream.next_txn();
        Some(
            txn.into_iter()
                .map(|drawn| match drawn {
                    Drawn::Read { key } => Mop::Read { key: Key::Int(key), value: Observed::Nil },
                    Drawn::Write { key, value } => Mop::Write { key: Key::Int(key), value, version: None },
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::list_append::ListAppend;

    #[test]
    fn writes_are_unique_per_key_and_mirror_list_appends_stream() {
        let p = Params { key_count: 4, max_writes_per_key: 5, ..Params::default() };
        let registers: Vec<Vec<Mop>> = RwRegister::new(p, 21).unwrap().take(500).collect();
        let lists: Vec<Vec<Mop>> = ListAppend::new(p, 21).unwrap().take(500).collect();
        let mut per_key: BTreeMap<Key, Vec<i64>> = BTreeMap::new();
        for (r, l) in registers.iter().flatten().zip(lists.iter().flatten()) {
            match (r, l) {
                (Mop::Write { key, value, .. }, Mop::Append { key: k2, value: v2 }) => {
                    assert_eq!((key, value), (k2, v2));
                    per_key.entry(key.clone()).or_default().push(*value);
                }
                (Mop::Read { .. }, Mop::Read { .. }) => assert_eq!(r, l),
                other => panic!("the two workloads drew differently: {other:?}"),
            }
        }
        for (key, values) in per_key {
            assert_eq!(values, (1..=values.len() as i64).collect::<Vec<_>>(), "key {key}");
            assert!(values.len() <= 5);
        }
        let again: Vec<Vec<Mop>> = RwRegister::new(p, 21).unwrap().take(500).collect();
        assert_eq!(registers, again);
    }
}
