//! Workloads as the runner sees them: a source of transactions, each with the micro-ops its invocation
//! announces and a body that runs it on a session and returns the micro-ops it actually executed. The
//! list-append and rw-register workloads draw their transactions from the `generators` crate; scenario
//! workloads (bank, write skew) decide what to write from what they read, which is why a body, not a
//! fixed list, runs a transaction. This module owns that interface and the two generated workloads.

use std::sync::Mutex;

use adapters::{Session, TxnError};
use generators::{ListAppend, Params, RwRegister};
use histories::{Function, Key, Mop, Observed};

/// Runs one transaction's statements on a session (between the runner's begin and commit), returning
/// the micro-ops executed, with what each read returned.
pub type Body = Box<dyn FnOnce(&mut dyn Session) -> Result<Vec<Mop>, TxnError> + Send>;

/// One transaction to invoke.
pub struct TxnPlan {
    /// What the operation is called in the history.
    pub f: Function,
    /// The micro-ops the invocation announces (reads unknown).
    pub invoke: Vec<Mop>,
    /// How to run it.
    pub body: Body,
}

/// A source of transactions for the clients.
pub trait Workload: Send + Sync {
    /// The workload's name (`list-append`, ...).
    fn name(&self) -> &str;

    /// Its parameters, for `run.json`.
    fn parameters(&self) -> serde_json::Value;

    /// Register rows the system must hold before the run.
    fn initial_registers(&self) -> Vec<(Key, i64)> {
        Vec::new()
    }

    /// The next transaction for `client`; `None` when the workload has no more.
    fn next(&self, client: usize) -> Option<TxnPlan>;
}

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
