//! The generated workloads, Elle's list-append and rw-register: their transactions come from the
//! `generators` crate as fixed lists of micro-ops, and a body only runs them and fills in what each read
//! returned. The two differ only in their stream and in what a read of a key returns (a list or a
//! register), so one type serves both.

use std::sync::Mutex;

use adapters::{Session, TxnError};
use checker::invariants::GraphPolicy;
use generators::{InvalidParams, ListAppend, Params, RwRegister};
use histories::{Function, Key, Mop, Observed, WriteVersion};

use super::{TxnPlan, TxnSource};

/// Which of Elle's generated workloads, and so what a read returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Appends of unique values and whole-list reads.
    ListAppend,
    /// Writes of unique values and register reads.
    RwRegister,
}

/// A workload whose transactions the `generators` crate draws: list-append or rw-register.
pub struct GeneratedWorkload {
    shape: Shape,
    params: Params,
    seed: u64,
    stream: Mutex<Stream>,
}

/// The generator drawn from.
enum Stream {
    ListAppend(ListAppend),
    RwRegister(RwRegister),
}

impl Stream {
    /// The next transaction, and the keys that left the active set while it was drawn: a key rotated
    /// out is never named again (the fence the online checker retires keys on).
    fn draw(&mut self) -> Option<(Vec<Mop>, Vec<Key>)> {
        let (before, mops) = match self {
            Stream::ListAppend(stream) => (stream.active_keys().to_vec(), stream.next()?),
            Stream::RwRegister(stream) => (stream.active_keys().to_vec(), stream.next()?),
        };
        let after = match self {
            Stream::ListAppend(stream) => stream.active_keys(),
            Stream::RwRegister(stream) => stream.active_keys(),
        };
        let retired = before.into_iter().filter(|k| !after.contains(k)).map(Key::Int).collect();
        Some((mops, retired))
    }
}

impl GeneratedWorkload {
    /// Elle's list-append stream with these parameters and seed.
    pub fn list_append(params: Params, seed: u64) -> Result<GeneratedWorkload, InvalidParams> {
        let stream = ListAppend::new(params, seed)?;
        Ok(GeneratedWorkload { shape: Shape::ListAppend, params, seed, stream: Mutex::new(Stream::ListAppend(stream)) })
    }

    /// Elle's rw-register stream with these parameters and seed.
    pub fn rw_register(params: Params, seed: u64) -> Result<GeneratedWorkload, InvalidParams> {
        let stream = RwRegister::new(params, seed)?;
        Ok(GeneratedWorkload { shape: Shape::RwRegister, params, seed, stream: Mutex::new(Stream::RwRegister(stream)) })
    }
}

impl TxnSource for GeneratedWorkload {
    fn name(&self) -> &str {
        match self.shape {
            Shape::ListAppend => "list-append",
            Shape::RwRegister => "rw-register",
        }
    }

    fn graph_policy(&self) -> GraphPolicy<'static> {
        // The runner writes every micro-op of both shapes as the checker reads it (appends and list reads,
        // register writes of values unique to their key and reads of an integer or nil): one it cannot
        // read is an error, not a graph left unchecked.
        GraphPolicy::Required
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({
            "key_count": self.params.key_count,
            "min_txn_len": self.params.min_txn_len,
            "max_txn_len": self.params.max_txn_len,
            "max_writes_per_key": self.params.max_writes_per_key,
            "key_dist": self.params.key_dist.name(),
            "key_lifetime": self.params.key_lifetime,
            "read_fraction": self.params.read_fraction,
            "seed": self.seed,
        })
    }

    fn next(&self, client: usize) -> Option<TxnPlan> {
        self.next_fenced(client).map(|(plan, _)| plan)
    }

    fn next_fenced(&self, _client: usize) -> Option<(TxnPlan, Vec<Key>)> {
        let (mops, retired) = self.stream.lock().unwrap_or_else(std::sync::PoisonError::into_inner).draw()?;
        let body_mops = mops.clone();
        let shape = self.shape;
        let plan = TxnPlan {
            f: Function::Txn,
            invoke: mops,
            body: Box::new(move |session| body_mops.into_iter().map(|mop| executed(session, shape, mop)).collect()),
        };
        Some((plan, retired))
    }

    fn final_read(&self, keys: Vec<Key>) -> Option<TxnPlan> {
        let mops: Vec<Mop> = keys.into_iter().map(|key| Mop::Read { key, value: Observed::Nil }).collect();
        let body_mops = mops.clone();
        let shape = self.shape;
        Some(TxnPlan {
            f: Function::parse(checker::final_reads::FINAL_READ),
            invoke: mops,
            body: Box::new(move |session| body_mops.into_iter().map(|mop| executed(session, shape, mop)).collect()),
        })
    }
}

/// The micro-op as executed: a write as announced, a read with what it returned.
fn executed(session: &mut dyn Session, shape: Shape, mop: Mop) -> Result<Mop, TxnError> {
    match mop {
        Mop::Append { key, value } => session.append(&key, value).map(|()| Mop::Append { key, value }),
        Mop::Write { key, value, .. } => {
            // A version of i64::MIN (which no database counter reaches) is recorded as no version: less
            // evidence, never a wrong one.
            let versioned = session.write_versioned(&key, value);
            versioned.map(|version| Mop::Write { key, value, version: version.and_then(WriteVersion::new) })
        }
        Mop::Read { key, .. } => {
            let value = match shape {
                Shape::ListAppend => Observed::List(session.read_list(&key)?.into()),
                Shape::RwRegister => session.read(&key)?.map_or(Observed::Nil, Observed::Int),
            };
            Ok(Mop::Read { key, value })
        }
        other => Ok(other),
    }
}
