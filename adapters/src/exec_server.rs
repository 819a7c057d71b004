//! Serving any [`System`] over the exec protocol (`docs/EXEC.md`): [`serve`] reads requests a line at a
//! time, opens a session per `open`, and runs each session's statements on a thread of its own, so a
//! statement waiting for a lock holds up only its own session, as a connection to a server would. The
//! answers go out a line each, as they come. `isocheck serve-exec` serves the embedded engine this way,
//! which is how the test suite proves the protocol end to end; a Rust engine can be put behind the
//! protocol the same way. A [`PlantedFault`] makes the server die or hang at a chosen request, so the
//! client's handling of a lost program is tested deterministically. This module does not speak for the
//! client side (`exec`).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError, mpsc};

use serde::Serialize;

use crate::exec_protocol::{ErrorBody, ErrorKind, Hello, HelloLevel, PROTOCOL_VERSION, Request, RequestOp, Response};
use crate::level::{Level, LevelSupport};
use crate::session::{Session, System, TxnError};

/// A fault the server plants at the `nth` request (counting from 1) whose op is `op`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlantedFault {
    /// The op, as the protocol names it (`commit`, `append`, ...).
    pub op: String,
    /// Which of them.
    pub nth: u64,
    /// What happens then.
    pub action: FaultAction,
}

/// What a planted fault does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultAction {
    /// The server stops at once without answering: the caller exits the process.
    Exit,
    /// The server stops reading and never answers again: the caller blocks forever.
    Hang,
    /// The server answers that request with a fatal error (a fault of the run, as a table that does
    /// not exist) and goes on serving.
    Fatal,
}

impl std::str::FromStr for PlantedFault {
    type Err = String;

    /// `OP:N` (e.g. `commit:3`); the action is the caller's.
    fn from_str(s: &str) -> Result<PlantedFault, String> {
        let (op, nth) = s.split_once(':').ok_or_else(|| format!("{s:?}: expected OP:N, e.g. commit:3"))?;
        let nth = nth.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| format!("{s:?}: N must be 1 or more"))?;
        Ok(PlantedFault { op: op.to_string(), nth, action: FaultAction::Exit })
    }
}

/// How serving ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// The input closed: every session is closed.
    InputClosed,
    /// A planted fault fired; the caller does what it says (exit, or block forever).
    Fault(FaultAction),
}

/// Every op [`serve`] serves beyond the required ones, for a hello.
pub const SERVED_OPS: [&str; 9] =
    ["append", "read_list", "read", "write", "insert", "delete", "scan", "delete_where", "update_where"];

/// The hello of a program serving `system` with [`serve`]: every op it serves, and every level as the
/// system runs it.
pub fn hello_for(system: &dyn System, name: &str, version: &str) -> Hello {
    let levels = Level::ALL
        .into_iter()
        .filter_map(|level| match system.level(level) {
            LevelSupport::Native { .. } => Some(HelloLevel::Native(level)),
            LevelSupport::Mapped { to, why } => Some(HelloLevel::Mapped { level, runs_as: to, why }),
            LevelSupport::Unsupported { .. } => None,
        })
        .collect();
    Hello {
        protocol: PROTOCOL_VERSION,
        name: name.to_string(),
        version: version.to_string(),
        ops: SERVED_OPS.iter().map(|s| s.to_string()).collect(),
        levels,
    }
}

/// Serves `system` over the protocol: requests from `input`, answers to `output`, until the input closes
/// or `fault` fires. `hello` is what the program says of itself.
pub fn serve(
    system: Arc<dyn System>,
    hello: &Hello,
    input: impl BufRead,
    output: impl Write + Send + 'static,
    fault: Option<&PlantedFault>,
) -> std::io::Result<Served> {
    let output: Arc<Mutex<Box<dyn Write + Send>>> = Arc::new(Mutex::new(Box::new(output)));
    let mut sessions: HashMap<u64, mpsc::Sender<(u64, RequestOp)>> = HashMap::new();
    let mut workers = Vec::new();
    let mut seen: HashMap<&'static str, u64> = HashMap::new();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let request: Request = match serde_json::from_str(&line) {
            Ok(request) => request,
            Err(e) => {
                let id = serde_json::from_str::<serde_json::Value>(&line).ok().and_then(|v| v["id"].as_u64());
                let body = fatal("bad-request", format!("{e}: {line}"));
                answer(&output, &Response::error(id.unwrap_or(0), body))?;
                continue;
            }
        };
        let name = request.op.name();
        let count = seen.entry(name).or_default();
        *count += 1;
        if let Some(fault) = fault.filter(|f| f.op == name && f.nth == *count) {
            if fault.action != FaultAction::Fatal {
                return Ok(Served::Fault(fault.action));
            }
            let body = fatal("planted-fatal", format!("a planted fatal error at {name} {count}"));
            answer(&output, &Response::error(request.id, body))?;
            continue;
        }
        let id = request.id;
        let response = match (request.op, request.session) {
            (RequestOp::Hello { protocol }, _) => match protocol {
                PROTOCOL_VERSION => Response::ok(id, to_value(hello)),
                other => Response::error(
                    id,
                    fatal("protocol", format!("this program speaks protocol {PROTOCOL_VERSION}, not {other}")),
                ),
            },
            (RequestOp::Prepare { registers }, _) => match system.prepare(&registers) {
                Ok(()) => Response::ok(id, serde_json::Value::Null),
                Err(e) => Response::error(id, fatal("prepare", e.to_string())),
            },
            (RequestOp::Open, Some(session)) => match system.connect() {
                Ok(opened) => {
                    let (tx, rx) = mpsc::channel();
                    let output = Arc::clone(&output);
                    workers.push(std::thread::spawn(move || run_session(opened, rx, &output)));
                    sessions.insert(session, tx);
                    Response::ok(id, serde_json::Value::Null)
                }
                Err(e) => Response::error(id, fatal("open", e.to_string())),
            },
            (op, Some(session)) => {
                let sent = match sessions.get(&session) {
                    Some(tx) => tx.send((id, op.clone())).is_ok(),
                    None => false,
                };
                if matches!(op, RequestOp::Close) {
                    sessions.remove(&session);
                }
                if sent {
                    continue;
                }
                Response::error(id, fatal("no-session", format!("no open session {session}")))
            }
            (op, None) => Response::error(id, fatal("no-session", format!("{} needs a session", op.name()))),
        };
        answer(&output, &response)?;
    }
    drop(sessions);
    for worker in workers {
        let _ = worker.join();
    }
    Ok(Served::InputClosed)
}

/// One session's thread: its statements in order, each answered as it completes.
fn run_session(
    mut session: Box<dyn Session>,
    requests: mpsc::Receiver<(u64, RequestOp)>,
    output: &Mutex<Box<dyn Write + Send>>,
) {
    for (id, op) in requests {
        let close = matches!(op, RequestOp::Close);
        let response = match perform(session.as_mut(), op) {
            Ok(value) => Response::ok(id, value),
            Err(e) => {
                Response::error(id, ErrorBody { kind: ErrorKind::of(e.failure), cause: e.cause, message: e.message })
            }
        };
        if answer(output, &response).is_err() || close {
            break;
        }
    }
    let _ = session.rollback();
}

fn perform(session: &mut dyn Session, op: RequestOp) -> Result<serde_json::Value, TxnError> {
    let none = serde_json::Value::Null;
    Ok(match op {
        RequestOp::Begin { isolation } => session.begin(isolation).map(|()| none)?,
        RequestOp::Append { key, value } => session.append(&key, value).map(|()| none)?,
        RequestOp::ReadList { key } => to_value(&session.read_list(&key)?),
        RequestOp::Read { key } => to_value(&session.read(&key)?),
        RequestOp::Write { key, value } => match session.write_versioned(&key, value)? {
            Some(version) => serde_json::json!({ "version": version }),
            None => none,
        },
        RequestOp::Insert { key, value } => session.insert(&key, value).map(|()| none)?,
        RequestOp::Delete { key } => to_value(&session.delete(&key)?),
        RequestOp::Scan { predicate } => to_value(&session.scan(&predicate)?.into_iter().collect::<Vec<_>>()),
        RequestOp::DeleteWhere { predicate } => {
            to_value(&session.delete_where(&predicate)?.into_iter().collect::<Vec<_>>())
        }
        RequestOp::UpdateWhere { predicate, change } => to_value(&session.update_where(&predicate, change)?),
        RequestOp::Commit => {
            session.commit()?;
            match session.commit_order() {
                Some(position) => serde_json::json!({ "commit_order": position }),
                None => none,
            }
        }
        RequestOp::Rollback | RequestOp::Close => session.rollback().map(|()| none)?,
        op @ (RequestOp::Hello { .. } | RequestOp::Prepare { .. } | RequestOp::Open) => {
            return Err(TxnError::fatal("bad-request", format!("{} takes no session", op.name())));
        }
    })
}

fn fatal(cause: &str, message: String) -> ErrorBody {
    ErrorBody { kind: ErrorKind::Fatal, cause: cause.to_string(), message }
}

fn to_value(value: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

fn answer(output: &Mutex<Box<dyn Write + Send>>, response: &Response) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(response).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut out = output.lock().unwrap_or_else(PoisonError::into_inner);
    out.write_all(&line)?;
    out.flush()
}
