//! The nemesis: faults injected on a schedule while the clients run, each recorded in the history as an
//! operation of the `nemesis` process (an invocation, then an `info` completion saying what it did), as
//! Jepsen records them. Built in: `kill-connections`, which breaks every client's connection through its
//! session's kill switch (PostgreSQL: `pg_terminate_backend`; SQLite and the engine: the session is
//! dropped); for anything else, a pair of shell commands run alternately (`--nemesis-cmd` to break,
//! `--heal-cmd` to heal); and, on a Galera cluster `cluster up` started, faults on its nodes, each in
//! turn: `kill-node` (SIGKILL, then a restart from the recovered position one interval later, waiting
//! until the node has rejoined), `pause-node` (SIGSTOP, then SIGCONT), `partition` (the node cut off
//! from the others, then `heal-partition`, waiting until it has rejoined), `restart-cluster` (every node
//! stopped and started again from its data) and `kill-all` (every node SIGKILLed at once, then
//! `recover-cluster` from the most advanced), each op naming the node it hit (`node`, and in its value).
//! Several faults take turns, each healed before the next acts.
//! Clients reconnect and go on. This module owns the schedule and the record; how a
//! connection breaks is each adapter's.

use std::process::Command;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use adapters::KillSwitch;
use galera::{Bootstrap, ClusterError, GaleraCluster, Rejoin};
use histories::{Function, Op, OpType, OpValue, Process};

use super::Shared;
use super::recorder::ClientLog;

/// What the nemesis does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Break every client's connection.
    KillConnections,
    /// Run `break_cmd`, then `heal_cmd` one interval later, alternately.
    Commands {
        /// Breaks something.
        break_cmd: String,
        /// Repairs it.
        heal_cmd: String,
    },
    /// SIGKILL a node of the cluster, then restart it, alternately; node after node.
    KillNode(GaleraCluster),
    /// SIGSTOP a node, then SIGCONT it, alternately; node after node.
    PauseNode(GaleraCluster),
    /// Stop every node of the cluster and start them again, each interval.
    RestartCluster(GaleraCluster),
    /// SIGKILL every node at once (a power failure), then start the cluster again from the most advanced
    /// node, each interval.
    KillAll(GaleraCluster),
    /// Cut a node off from the others, then heal the partition, alternately; node after node.
    Partition(GaleraCluster),
}

/// The clients' kill switches, by client; a client replaces its own when it reconnects.
#[derive(Default)]
pub struct KillSwitches(Mutex<Vec<Option<Arc<dyn KillSwitch>>>>);

impl KillSwitches {
    /// Room for `clients` switches.
    pub fn new(clients: usize) -> KillSwitches {
        KillSwitches(Mutex::new(vec![None; clients]))
    }

    /// Records client `c`'s current switch.
    pub fn set(&self, c: usize, switch: Option<Arc<dyn KillSwitch>>) {
        if let Some(slot) = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_mut(c) {
            *slot = switch;
        }
    }

    fn kill_all(&self) -> usize {
        let switches: Vec<Arc<dyn KillSwitch>> =
            self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().flatten().cloned().collect();
        for switch in &switches {
            switch.kill();
        }
        switches.len()
    }
}

/// Runs the nemesis every `every` until the run stops, the faults taking turns (each breaks, then, if it
/// has a healing, heals one interval later before the next fault's turn); returns its record. Whatever
/// is broken when the run stops is healed.
pub(crate) fn run(faults: &[Fault], every: Duration, switches: &KillSwitches, shared: &Shared) -> ClientLog {
    let mut record = ClientLog::tapped(shared.tap(shared.clients));
    if faults.is_empty() {
        record.close_tap();
        return record;
    }
    // Whose turn it is, and the node each node fault hits next (from 0).
    let mut turn = 0;
    let mut targets = vec![0usize; faults.len()];
    // The fault broken and awaiting its healing, with its node.
    let mut broken: Option<usize> = None;
    loop {
        if sleep_unless_stopped(every, shared, &record) {
            break;
        }
        let fault = &faults[turn];
        if let Some(target) = broken.take() {
            heal(fault, target, &mut record, shared);
            if let Some(cluster) = fault.cluster() {
                targets[turn] = (target + 1) % cluster.nodes().len();
            }
            turn = (turn + 1) % faults.len();
        } else if act(fault, targets[turn], switches, &mut record, shared) {
            broken = Some(targets[turn]);
        } else {
            turn = (turn + 1) % faults.len();
        }
    }
    // Leave the system healed.
    if let Some(target) = broken {
        heal(&faults[turn], target, &mut record, shared);
    }
    record.close_tap();
    record
}

impl Fault {
    /// The cluster a node fault acts on.
    fn cluster(&self) -> Option<&GaleraCluster> {
        match self {
            Fault::KillNode(c) | Fault::PauseNode(c) | Fault::Partition(c) => Some(c),
            _ => None,
        }
    }
}

/// Breaks what `fault` breaks (node `target`, for a node fault) and records it; whether it awaits a
/// healing.
fn act(fault: &Fault, target: usize, switches: &KillSwitches, record: &mut ClientLog, shared: &Shared) -> bool {
    match fault {
        Fault::KillNode(cluster) | Fault::PauseNode(cluster) | Fault::Partition(cluster) => {
            let node = cluster.nodes()[target].name.clone();
            let name = match fault {
                Fault::KillNode(_) => "kill-node",
                Fault::PauseNode(_) => "pause-node",
                _ => "partition",
            };
            record.push(op(shared, OpType::Invoke, name, serde_json::Value::Null).with_node(Some(&node)));
            let done = match fault {
                Fault::KillNode(_) => cluster.kill_node(target),
                Fault::PauseNode(_) => cluster.pause_node(target),
                _ => cluster.partition(target),
            };
            let done = done.map(|()| None);
            record.push(op(shared, OpType::Info, name, outcome(&node, done)).with_node(Some(&node)));
            true
        }
        Fault::RestartCluster(cluster) => {
            invoke(record, shared, "restart-cluster");
            let value = recovered(cluster.restart_cluster());
            record.push(op(shared, OpType::Info, "restart-cluster", value));
            false
        }
        Fault::KillAll(cluster) => {
            // A power failure of every node, then the recovery Galera documents for it, at once: clients
            // meet a cluster that is down only while it recovers.
            invoke(record, shared, "kill-all");
            let value = match cluster.kill_all() {
                Ok(()) => serde_json::json!({ "node": "all" }),
                Err(e) => serde_json::json!({ "node": "all", "error": e.to_string() }),
            };
            record.push(op(shared, OpType::Info, "kill-all", value));
            invoke(record, shared, "recover-cluster");
            let value = recovered(cluster.recover_cluster());
            record.push(op(shared, OpType::Info, "recover-cluster", value));
            false
        }
        Fault::KillConnections => {
            invoke(record, shared, "kill-connections");
            let killed = switches.kill_all();
            record.push(op(shared, OpType::Info, "kill-connections", serde_json::json!({ "killed": killed })));
            false
        }
        Fault::Commands { break_cmd, .. } => {
            invoke(record, shared, "break");
            let value = shell(break_cmd);
            record.push(op(shared, OpType::Info, "break", value));
            true
        }
    }
}

/// Heals what `fault` broke on node `target`, and records it.
fn heal(fault: &Fault, target: usize, record: &mut ClientLog, shared: &Shared) {
    match fault {
        Fault::Commands { heal_cmd, .. } => {
            invoke(record, shared, "heal");
            let value = shell(heal_cmd);
            record.push(op(shared, OpType::Info, "heal", value));
        }
        Fault::KillNode(cluster) | Fault::PauseNode(cluster) | Fault::Partition(cluster) => {
            let node = cluster.nodes()[target].name.clone();
            let name = match fault {
                Fault::KillNode(_) => "restart-node",
                Fault::PauseNode(_) => "resume-node",
                _ => "heal-partition",
            };
            record.push(op(shared, OpType::Invoke, name, serde_json::Value::Null).with_node(Some(&node)));
            let done = match fault {
                Fault::KillNode(_) => cluster.restart_node(target).map(Some),
                Fault::PauseNode(_) => cluster.resume_node(target).map(|()| None),
                _ => cluster.heal_partition(target).map(|()| None),
            };
            record.push(op(shared, OpType::Info, name, outcome(&node, done)).with_node(Some(&node)));
        }
        Fault::KillConnections | Fault::RestartCluster(_) | Fault::KillAll(_) => {}
    }
}

/// A node fault's value: the node, how a restarted node rejoined, and the error if the fault (or its
/// healing) failed.
fn outcome(node: &str, done: Result<Option<Rejoin>, ClusterError>) -> serde_json::Value {
    match done {
        Ok(None) => serde_json::json!({ "node": node }),
        Ok(Some(Rejoin::Ist { position })) => {
            serde_json::json!({ "node": node, "rejoined": "ist", "position": position })
        }
        Ok(Some(Rejoin::Sst { why })) => serde_json::json!({ "node": node, "rejoined": "sst", "recovery_failed": why }),
        Err(e) => serde_json::json!({ "node": node, "error": e.to_string() }),
    }
}

/// A whole-cluster recovery's value: the node that bootstrapped, at which position, and every node's
/// position before, or the error (a refusal names every position).
fn recovered(done: Result<Bootstrap, ClusterError>) -> serde_json::Value {
    match done {
        Ok(b) => serde_json::json!({
            "node": "all",
            "bootstrapped": b.node,
            "position": b.position,
            "positions": b.positions.into_iter().map(|(n, p)| (n, serde_json::Value::String(p))).collect::<serde_json::Map<_, _>>(),
        }),
        Err(e) => serde_json::json!({ "node": "all", "error": e.to_string() }),
    }
}

/// Sleeps for `d` in short steps; whether the run stopped meanwhile.
fn sleep_unless_stopped(d: Duration, shared: &Shared, record: &ClientLog) -> bool {
    let step = Duration::from_millis(20);
    let mut slept = Duration::ZERO;
    while slept < d {
        if shared.stop.load(Ordering::Relaxed) || shared.finished.load(Ordering::Relaxed) {
            return true;
        }
        // Asleep, the nemesis records nothing before now: the online checker need not wait for it.
        record.floor(shared.clock.now());
        std::thread::sleep(step.min(d - slept));
        slept += step;
    }
    shared.stop.load(Ordering::Relaxed) || shared.finished.load(Ordering::Relaxed)
}

fn invoke(record: &mut ClientLog, shared: &Shared, name: &str) {
    record.push(op(shared, OpType::Invoke, name, serde_json::Value::Null));
}

fn op(shared: &Shared, kind: OpType, name: &str, value: serde_json::Value) -> Op {
    Op::new(kind, Process::Nemesis, Function::Named(name.into()), OpValue::Other(Box::new(value)))
        .with_time(shared.clock.now())
}

fn shell(cmd: &str) -> serde_json::Value {
    match Command::new("sh").arg("-c").arg(cmd).output() {
        Ok(out) => serde_json::json!({
            "command": cmd,
            "exit": out.status.code(),
            "stderr": String::from_utf8_lossy(&out.stderr).trim(),
        }),
        Err(e) => serde_json::json!({ "command": cmd, "error": e.to_string() }),
    }
}
