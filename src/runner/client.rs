//! One client: its session, its process id, its record. It takes transactions from the workload until the
//! run stops, and records each as an invocation and a completion: `ok` if the commit succeeded, `fail` if
//! the system certainly rolled it back, `info` if its fate is unknown (after which the client takes a
//! fresh process id). A lost session is replaced by a new connection. An indeterminate completion keeps
//! the writes its body executed, since it may have committed them.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use adapters::{AdapterError, Failure, Level, Session, System, TxnError};
use histories::{Mop, Observed, Op, OpType, OpValue, Process};

use super::Shared;
use super::recorder::ClientLog;
use super::workload::{TxnPlan, TxnSource};

pub(crate) struct Client {
    id: usize,
    process: u64,
    session: Box<dyn Session>,
    system: Arc<dyn System>,
    level: Level,
    workload: Arc<dyn TxnSource>,
    shared: Arc<Shared>,
    record: ClientLog,
}

impl Client {
    pub(crate) fn new(
        id: usize,
        session: Box<dyn Session>,
        system: Arc<dyn System>,
        level: Level,
        workload: Arc<dyn TxnSource>,
        shared: Arc<Shared>,
    ) -> Client {
        Client { id, process: id as u64, session, system, level, workload, shared, record: ClientLog::default() }
    }

    /// The same client under another process id (the final transaction's, which no client used).
    pub(crate) fn with_process(self, process: u64) -> Client {
        Client { process, ..self }
    }

    /// Runs the workload's final transaction, again after each abort (up to `attempts` times), and
    /// returns the record.
    pub(crate) fn finish(mut self, attempts: usize) -> anyhow::Result<ClientLog> {
        for _ in 0..attempts {
            let Some(plan) = self.workload.final_plan() else { break };
            if self.transaction(plan)? == OpType::Ok {
                break;
            }
        }
        Ok(self.record)
    }

    /// Reads `keys`, `chunk` keys a final-read transaction, each chunk again after an abort (up to
    /// `attempts` times), and returns the record.
    pub(crate) fn final_reads(
        mut self,
        keys: &[histories::Key],
        chunk: usize,
        attempts: usize,
    ) -> anyhow::Result<ClientLog> {
        for keys in keys.chunks(chunk.max(1)) {
            for _ in 0..attempts {
                let Some(plan) = self.workload.final_read(keys.to_vec()) else { break };
                if self.transaction(plan)? == OpType::Ok {
                    break;
                }
            }
        }
        Ok(self.record)
    }

    pub(crate) fn run(mut self) -> anyhow::Result<ClientLog> {
        self.shared.switches.set(self.id, self.session.kill_switch());
        self.record.tap = self.shared.tap(self.id);
        if self.shared.keep_touched {
            self.record = std::mem::take(&mut self.record).keeping_touched();
        }
        while self.shared.claim().is_some() {
            let Some((plan, retired)) = self.workload.next_fenced(self.id) else { break };
            if !retired.is_empty() {
                // Timed before the invocation: every transaction naming these keys was drawn before it.
                self.record.fence(self.shared.clock.now(), retired);
            }
            if self.transaction(plan)? == OpType::Ok {
                self.shared.committed.fetch_add(1, Ordering::Relaxed);
            }
            self.shared.completed.fetch_add(1, Ordering::Relaxed);
        }
        self.record.close_tap();
        Ok(self.record)
    }

    fn op(&self, kind: OpType, plan_f: &histories::Function, value: Vec<Mop>, error: Option<String>) -> Op {
        Op::new(kind, Process::Client(self.process), plan_f.clone(), OpValue::Txn(value.into()))
            .with_time(self.shared.clock.now())
            .with_error(error)
            .with_node(self.session.node())
    }

    /// Runs one transaction and records it.
    pub(crate) fn transaction(&mut self, plan: TxnPlan) -> anyhow::Result<OpType> {
        let TxnPlan { f, invoke, body } = plan;
        if self.shared.record {
            let invocation = self.op(OpType::Invoke, &f, invoke.clone(), None);
            self.record.push(invocation);
        }
        let outcome = self.attempt(body);
        match outcome {
            Ok(executed) => {
                if self.shared.record {
                    let done = self.op(OpType::Ok, &f, executed, None).with_commit_order(self.session.commit_order());
                    self.record.push(done);
                }
                self.record.ok += 1;
                Ok(OpType::Ok)
            }
            Err((e, executed)) => {
                if e.failure == Failure::Fatal {
                    // The run cannot go on (a table gone, a program's fault), but what it recorded so far
                    // is evidence: the run stops and keeps it, saying why. The transaction's fate is
                    // unknown (the error may have come at its commit), so it is `info`.
                    self.end_run(format!("client {}: {e}", self.id));
                }
                let kind = if e.failure == Failure::Indeterminate || e.failure == Failure::Fatal {
                    OpType::Info
                } else {
                    OpType::Fail
                };
                if self.shared.record {
                    // An indeterminate transaction may have taken effect: its writes are what it may have
                    // done. Reads are unknown either way, as Jepsen records them.
                    let value = match (kind, executed) {
                        (OpType::Info, Some(executed)) => unknown_reads(&executed),
                        _ => unknown_reads(&invoke),
                    };
                    let done = self.op(kind, &f, value, Some(e.cause.clone()));
                    self.record.push(done);
                }
                *self.record.causes.entry(e.cause.clone()).or_default() += 1;
                self.record.messages.entry(e.cause.clone()).or_insert_with(|| e.message.clone());
                if kind == OpType::Info {
                    self.record.info += 1;
                    // Jepsen's rule: a process whose operation's fate is unknown is never reused.
                    self.process += self.shared.clients as u64;
                } else {
                    self.record.fail += 1;
                }
                if e.session_lost && e.failure != Failure::Fatal {
                    self.reconnect();
                }
                Ok(kind)
            }
        }
    }

    /// Replaces a lost session. A system briefly unreachable (a nemesis at work) gets a few tries; a
    /// system gone for good ends the run, which keeps the history it has.
    fn reconnect(&mut self) {
        let mut last = None;
        let started = std::time::Instant::now();
        let mut attempt = 0u64;
        while attempt < 50 || started.elapsed() < self.shared.reconnect_for {
            match self.system.connect() {
                Ok(session) => {
                    self.session = session;
                    self.shared.switches.set(self.id, self.session.kill_switch());
                    return;
                }
                Err(AdapterError::Gone { message, .. }) => return self.end_run(message),
                Err(e) => last = Some(e),
            }
            if started.elapsed() >= self.shared.reconnect_for {
                break;
            }
            attempt += 1;
            std::thread::sleep(std::time::Duration::from_millis((20 * attempt).min(1000)));
        }
        let why = last.map_or_else(String::new, |e| e.to_string());
        self.end_run(format!("client {} could not reconnect: {why}", self.id));
    }

    /// Stops the run for good, keeping the history so far: the first reason given is the run's.
    fn end_run(&self, why: String) {
        self.shared.stop.store(true, Ordering::Relaxed);
        let mut ended = self.shared.ended.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        ended.get_or_insert(why);
    }

    /// Begins, runs the body, commits; on any failure rolls back and returns it, with the micro-ops the
    /// body executed if the failure came at commit.
    fn attempt(&mut self, body: super::workload::Body) -> Result<Vec<Mop>, (TxnError, Option<Vec<Mop>>)> {
        let executed = self.session.begin(self.level).and_then(|()| body(self.session.as_mut()));
        let result = match executed {
            Ok(executed) => match self.session.commit() {
                Ok(()) => Ok(executed),
                Err(e) => Err((e, Some(executed))),
            },
            Err(e) => Err((e, None)),
        };
        if let Err((e, _)) = &result
            && !e.session_lost
        {
            // The transaction is over either way; a failing rollback only means it already was.
            let _ = self.session.rollback();
        }
        result
    }
}

/// Micro-ops with every read unknown: what a `fail` or `info` completion records.
fn unknown_reads(mops: &[Mop]) -> Vec<Mop> {
    mops.iter()
        .map(|mop| match mop {
            Mop::Read { key, .. } => Mop::Read { key: key.clone(), value: Observed::Nil },
            // A write's version is evidence only once its transaction committed: if this one did not, the
            // database may have given the same version to another writer.
            Mop::Write { key, value, .. } => Mop::Write { key: key.clone(), value: *value, version: None },
            other => other.clone(),
        })
        .collect()
}
