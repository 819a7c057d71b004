//! The nemesis: faults injected on a schedule while the clients run, each recorded in the history as an
//! operation of the `nemesis` process (an invocation, then an `info` completion saying what it did), as
//! Jepsen records them. Built in: `kill-connections`, which breaks every client's connection through its
//! session's kill switch (PostgreSQL: `pg_terminate_backend`; SQLite and the engine: the session is
//! dropped); for anything else, a pair of shell commands run alternately (`--nemesis-cmd` to break,
//! `--heal-cmd` to heal); and, on a Galera cluster `cluster up` started, faults on its nodes, each in
//! turn: `kill-node` (SIGKILL, then a restart from the recovered position one interval later, waiting
//! until the node has rejoined), `pause-node` (SIGSTOP, then SIGCONT) and `restart-cluster` (every node
//! stopped and started again from its data), each op naming the node it hit (`node`, and in its value).
//! Clients reconnect and go on. This module owns the schedule and the record; how a
//! connection breaks is each adapter's.

use std::process::Command;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use adapters::galera_cluster::Rejoin;
use adapters::{ClusterError, GaleraCluster, KillSwitch};
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

/// Runs the nemesis every `every` until the run stops; returns its record.
pub(crate) fn run(fault: &Fault, every: Duration, switches: &KillSwitches, shared: &Shared) -> ClientLog {
    let mut record = ClientLog::tapped(shared.tap(shared.clients));
    let mut breaking = true;
    // The node the next node fault hits (from 0).
    let mut target = 0;
    loop {
        if sleep_unless_stopped(every, shared, &record) {
            break;
        }
        let (name, value) = match fault {
            Fault::KillNode(cluster) | Fault::PauseNode(cluster) => {
                let kill = matches!(fault, Fault::KillNode(_));
                let node = cluster.nodes()[target].name.clone();
                let name = match (kill, breaking) {
                    (true, true) => "kill-node",
                    (true, false) => "restart-node",
                    (false, true) => "pause-node",
                    (false, false) => "resume-node",
                };
                record.push(op(shared, OpType::Invoke, name, serde_json::Value::Null).with_node(Some(&node)));
                let done = match (kill, breaking) {
                    (true, true) => cluster.kill_node(target).map(|()| None),
                    (true, false) => cluster.restart_node(target).map(Some),
                    (false, true) => cluster.pause_node(target).map(|()| None),
                    (false, false) => cluster.resume_node(target).map(|()| None),
                };
                if !breaking {
                    target = (target + 1) % cluster.nodes().len();
                }
                breaking = !breaking;
                record.push(op(shared, OpType::Info, name, outcome(&node, done)).with_node(Some(&node)));
                continue;
            }
            Fault::RestartCluster(cluster) => {
                invoke(&mut record, shared, "restart-cluster");
                ("restart-cluster", outcome("all", cluster.restart_cluster().map(|()| None)))
            }
            Fault::KillConnections => {
                invoke(&mut record, shared, "kill-connections");
                let killed = switches.kill_all();
                ("kill-connections", serde_json::json!({ "killed": killed }))
            }
            Fault::Commands { break_cmd, heal_cmd } => {
                let (name, cmd) = if breaking { ("break", break_cmd) } else { ("heal", heal_cmd) };
                breaking = !breaking;
                invoke(&mut record, shared, name);
                (name, shell(cmd))
            }
        };
        record.push(op(shared, OpType::Info, name, value));
    }
    // Leave the system healed.
    if !breaking {
        match fault {
            Fault::Commands { heal_cmd, .. } => {
                invoke(&mut record, shared, "heal");
                let value = shell(heal_cmd);
                record.push(op(shared, OpType::Info, "heal", value));
            }
            Fault::KillNode(cluster) | Fault::PauseNode(cluster) => {
                let node = cluster.nodes()[target].name.clone();
                let kill = matches!(fault, Fault::KillNode(_));
                let name = if kill { "restart-node" } else { "resume-node" };
                record.push(op(shared, OpType::Invoke, name, serde_json::Value::Null).with_node(Some(&node)));
                let done = if kill {
                    cluster.restart_node(target).map(Some)
                } else {
                    cluster.resume_node(target).map(|()| None)
                };
                record.push(op(shared, OpType::Info, name, outcome(&node, done)).with_node(Some(&node)));
            }
            Fault::KillConnections | Fault::RestartCluster(_) => {}
        }
    }
    record.close_tap();
    record
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
