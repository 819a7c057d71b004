//! The generated workloads, Elle's list-append and rw-register: their transactions come from the
//! `generators` crate as fixed lists of micro-ops, and a body only runs them and fills in what each read
//! returned.

use std::sync::Mutex;

use generators::{ListAppend, Params, RwRegister};
use histories::{Function, Mop, Observed};

use super::{TxnPlan, Workload};

/// Elle's list-append workload: appends of unique values and whole-list reads.
pub struct ListAppendWorkload {
    params: Params,
    seed: u64,
    stream: Mutex<ListAppend>,
}

impl ListAppendWorkload {
    /// A stream with these parameters and seed.
    pub fn new(params: Params, seed: u64) -> anyhow::Result<ListAppendWorkload> {
        Ok(ListAppendWorkload { params, seed, stream: Mutex::new(ListAppend::new(params, seed)?) })
    }
}

impl Workload for ListAppendWorkload {
    fn name(&self) -> &str {
        "list-append"
    }

    fn parameters(&self) -> serde_json::Value {
        params_json(&self.params, self.seed)
    }

    fn next(&self, _client: usize) -> Option<TxnPlan> {
        let mops = self.stream.lock().unwrap_or_else(std::sync::PoisonError::into_inner).next()?;
        let body_mops = mops.clone();
        Some(TxnPlan {
            f: Function::Txn,
            invoke: mops,
            body: Box::new(move |session| {
                body_mops
                    .into_iter()
                    .map(|mop| match mop {
                        Mop::Append { key, value } => session.append(&key, value).map(|()| Mop::Append { key, value }),
                        Mop::Read { key, .. } => {
                            session.read_list(&key).map(|list| Mop::Read { key, value: Observed::List(list) })
                        }
                        other => Ok(other),
                    })
                    .collect()
            }),
        })
    }
}

/// Elle's rw-register workload: writes of unique values and reads.
pub struct RwRegisterWorkload {
    params: Params,
    seed: u64,
    stream: Mutex<RwRegister>,
}

impl RwRegisterWorkload {
    /// A stream with these parameters and seed.
    pub fn new(params: Params, seed: u64) -> anyhow::Result<RwRegisterWorkload> {
        Ok(RwRegisterWorkload { params, seed, stream: Mutex::new(RwRegister::new(params, seed)?) })
    }
}

impl Workload for RwRegisterWorkload {
    fn name(&self) -> &str {
        "rw-register"
    }

    fn parameters(&self) -> serde_json::Value {
        params_json(&self.params, self.seed)
    }

    fn next(&self, _client: usize) -> Option<TxnPlan> {
        let mops = self.stream.lock().unwrap_or_else(std::sync::PoisonError::into_inner).next()?;
        let body_mops = mops.clone();
        Some(TxnPlan {
            f: Function::Txn,
            invoke: mops,
            body: Box::new(move |session| {
                body_mops
                    .into_iter()
                    .map(|mop| match mop {
                        Mop::Write { key, value } => session.write(&key, value).map(|()| Mop::Write { key, value }),
                        Mop::Read { key, .. } => {
                            session.read(&key).map(|v| Mop::Read { key, value: v.map_or(Observed::Nil, Observed::Int) })
                        }
                        other => Ok(other),
                    })
                    .collect()
            }),
        })
    }
}

fn params_json(params: &Params, seed: u64) -> serde_json::Value {
    serde_json::json!({
        "key_count": params.key_count,
        "min_txn_len": params.min_txn_len,
        "max_txn_len": params.max_txn_len,
        "max_writes_per_key": params.max_writes_per_key,
        "key_dist": params.key_dist.name(),
        "read_fraction": params.read_fraction,
        "seed": seed,
    })
}
