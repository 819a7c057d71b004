//! The nemesis: faults injected on a schedule while the clients run, each recorded in the history as an
//! operation of the `nemesis` process (an invocation, then an `info` completion saying what it did), as
//! Jepsen records them. Built in: `kill-connections`, which breaks every client's connection through its
//! session's kill switch (PostgreSQL: `pg_terminate_backend`; SQLite and the engine: the session is
//! dropped); for anything else, a pair of shell commands run alternately (`--nemesis-cmd` to break,
//! `--heal-cmd` to heal). Clients reconnect and go on. This module owns the schedule and the record; how a
//! connection breaks is each adapter's.

use std::process::Command;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use adapters::KillSwitch;
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
    let mut record = ClientLog::default();
    let mut breaking = true;
    loop {
        if sleep_unless_stopped(every, shared) {
            break;
        }
        let (name, value) = match fault {
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
        record.ops.push(op(shared, OpType::Info, name, value));
    }
    // Leave the system healed.
    if let Fault::Commands { heal_cmd, .. } = fault
        && !breaking
    {
        invoke(&mut record, shared, "heal");
        let value = shell(heal_cmd);
        record.ops.push(op(shared, OpType::Info, "heal", value));
    }
    record
}

/// Sleeps for `d` in short steps; whether the run stopped meanwhile.
fn sleep_unless_stopped(d: Duration, shared: &Shared) -> bool {
    let step = Duration::from_millis(20);
    let mut slept = Duration::ZERO;
    while slept < d {
        if shared.stop.load(Ordering::Relaxed) || shared.finished.load(Ordering::Relaxed) {
            return true;
        }
        std::thread::sleep(step.min(d - slept));
        slept += step;
    }
    shared.stop.load(Ordering::Relaxed) || shared.finished.load(Ordering::Relaxed)
}

fn invoke(record: &mut ClientLog, shared: &Shared, name: &str) {
    record.ops.push(op(shared, OpType::Invoke, name, serde_json::Value::Null));
}

fn op(shared: &Shared, kind: OpType, name: &str, value: serde_json::Value) -> Op {
    Op::new(kind, Process::Nemesis, Function::Named(name.into()), OpValue::Other(value)).with_time(shared.clock.now())
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
