//! Workloads as the runner sees them: a source of transactions, each with the micro-ops its invocation
//! announces and a body that runs it on a session and returns the micro-ops it actually executed. The
//! list-append and rw-register workloads draw their transactions from the `generators` crate; the
//! scenario workloads (bank, write skew) decide what to write from what they read, which is why a body,
//! not a fixed list, runs a transaction; YCSB-A measures throughput on byte records. This module owns
//! that interface; each workload is its own module.

mod bank;
mod generated;
mod hold;
mod rng;
mod write_skew;
mod ycsb;

use std::time::Duration;

use adapters::{Record, Session, TxnError};
use checker::invariants::GraphPolicy;
use histories::{Function, Key, Mop};

pub use bank::{Bank, BankMode, BankParams};
pub use generated::GeneratedWorkload;
pub use write_skew::WriteSkew;
pub use ycsb::{ScrambledZipfian, YcsbA, YcsbParams};

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

/// How long a workload's transactions hold, how many held, and for how long some transaction was
/// holding: the measure behind the `fully-serialized` flag of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holds {
    /// How long each transaction sleeps inside, between its reads and its writes.
    pub hold: Duration,
    /// How many transactions reached their hold.
    pub count: u64,
    /// How long, in all, at least one transaction was holding (the union of the holds): about
    /// `slept / clients` when clients hold at once, `slept` when they hold one at a time.
    pub busy: Duration,
    /// How long the holds took, added up: `count * hold` on an idle machine, more on a busy one, where a
    /// sleep ends late. Holds one at a time span all of it; holds at once overlap however late they end.
    pub slept: Duration,
}

impl Holds {
    /// The timing behind the `fully-serialized` flag: each hold as long as the holds actually took on
    /// average (a busy machine's sleeps end late), and whether no two holds overlapped (their union as
    /// long as their lengths added up), which only holds one at a time achieve.
    pub fn timing(&self, clients: usize) -> checker::timing::HoldTiming {
        let count = u32::try_from(self.count).unwrap_or(u32::MAX);
        let hold = if count == 0 { self.hold } else { (self.slept / count).max(self.hold) };
        let disjoint = Some(self.busy >= self.slept);
        checker::timing::HoldTiming { clients, hold, holds: self.count, elapsed: self.busy, disjoint }
    }
}

/// A source of transactions for the clients: what the runner takes from a workload.
pub trait TxnSource: Send + Sync {
    /// The workload's name (`list-append`, ...).
    fn name(&self) -> &str;

    /// Its parameters, for `run.json`.
    fn parameters(&self) -> serde_json::Value;

    /// Register rows the system must hold before the run; the runner records them in the history as an
    /// `init` operation.
    fn initial_registers(&self) -> Vec<(Key, i64)> {
        Vec::new()
    }

    /// The record table the system must hold before the run: fields per record, and the records.
    fn initial_records(&self) -> Option<(usize, Vec<(Key, Record)>)> {
        None
    }

    /// The next transaction for `client`; `None` when the workload has no more.
    fn next(&self, client: usize) -> Option<TxnPlan>;

    /// [`TxnSource::next`], with the keys drawing it *retired*: no transaction drawn after it names them
    /// (the online checker's fences, docs/online-checking.md "Bounded memory"). A workload that cannot
    /// promise it retires none.
    fn next_fenced(&self, client: usize) -> Option<(TxnPlan, Vec<histories::Key>)> {
        self.next(client).map(|plan| (plan, Vec::new()))
    }

    /// A transaction to run once every client has finished (a final read), recorded like the others.
    fn final_plan(&self) -> Option<TxnPlan> {
        None
    }

    /// A read-only transaction of `keys`, named `final-read`, that the runner runs after the last fault
    /// has healed so that the checker can tell acknowledged writes lost or read stale
    /// (`checker::final_reads`); `None` when the workload has no such reads.
    fn final_read(&self, keys: Vec<Key>) -> Option<TxnPlan> {
        let _ = keys;
        None
    }

    /// The hold inside each transaction, if the workload holds.
    fn holds(&self) -> Option<Holds> {
        None
    }

    /// How the dependency graph of this workload's histories is checked: where the checker can read
    /// the micro-ops by default; not at all when that would be unsound (Elle infers version orders from
    /// unique written values), with the reason.
    fn graph_policy(&self) -> GraphPolicy<'static> {
        GraphPolicy::WhereReadable
    }
}
