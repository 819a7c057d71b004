//! Any database behind the exec protocol (`docs/EXEC.md`, messages in `exec_protocol`): [`ExecSystem`]
//! starts the program once per run and speaks line-delimited JSON with it, one request per statement,
//! every session of the run multiplexed over the one child by session id (the program *is* the
//! database, or its client: sessions must share what they read and write, which children of their own
//! would not). A reader thread hands each answer to the request waiting for it; a request left without
//! an answer for the timeout (`--exec-timeout`) kills the child, so a hung program never hangs a run.
//!
//! A program that dies, hangs or answers out of protocol is *lost*, and with it the run's database:
//! isocheck kills it (and waits for it to be gone) before any session reports the failure, and never
//! starts it again, since a fresh program may have lost committed writes, which later reads would show
//! as anomalies. The statement that was waiting fails with `session_lost`: a `commit` whose line was
//! written is indeterminate (`info`: the program may have committed before it died); anything else is
//! an abort (`fail`), because a program that is dead cannot commit a transaction whose `commit` it never
//! received. The error names the line isocheck sent. This module does not serve the protocol
//! (`exec_server` does).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak, mpsc};
use std::time::{Duration, Instant};

use histories::{Key, Predicate, Rows};
use serde::de::{DeserializeOwned, IgnoredAny};

use crate::exec_protocol::{Hello, HelloLevel, PROTOCOL_VERSION, REQUIRED_OPS, Request, RequestOp, Response};
use crate::level::{Level, LevelSupport};
use crate::lock::lock;
use crate::session::{AdapterError, Change, Failure, KillSwitch, Session, System, TxnError};

/// The cause recorded for a transaction whose program was lost (died, hung or broke the protocol).
pub const LOST_CAUSE: &str = "exec-program-lost";

/// How long a closing run waits for the program to exit on its own once its input is closed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// A program speaking the exec protocol, started once for the run.
pub struct ExecSystem {
    child: Arc<ExecChild>,
    hello: Hello,
    ops: HashSet<String>,
}

impl ExecSystem {
    /// Starts `command` (a program and its arguments, split as a POSIX shell splits words, with no shell
    /// in between) and exchanges `hello` with it. `timeout` bounds every wait for an answer.
    pub fn start(command: &str, timeout: Duration) -> Result<ExecSystem, AdapterError> {
        let unavailable = |message: String| AdapterError::Unavailable { system: "exec", message };
        let words = shlex::split(command)
            .filter(|w| !w.is_empty())
            .ok_or_else(|| unavailable(format!("--cmd {command:?}: expected a program and its arguments")))?;
        let mut process = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| unavailable(format!("could not start {command:?}: {e}")))?;
        let (Some(stdin), Some(stdout)) = (process.stdin.take(), process.stdout.take()) else {
            return Err(unavailable("the program's standard input and output are not pipes".into()));
        };
        let child = Arc::new(ExecChild {
            command: command.to_string(),
            timeout,
            stdin: Mutex::new(Some(stdin)),
            process: Mutex::new(process),
            pending: Mutex::new(HashMap::new()),
            gone: Mutex::new(None),
            next_id: AtomicU64::new(0),
            next_session: AtomicU64::new(1),
        });
        let weak = Arc::downgrade(&child);
        std::thread::Builder::new()
            .name("exec-reader".into())
            .spawn(move || read_answers(stdout, weak))
            .map_err(|e| unavailable(format!("could not start the reader thread: {e}")))?;
        let hello = child.hello().map_err(unavailable)?;
        let ops = hello.ops.iter().cloned().chain(REQUIRED_OPS.iter().map(|s| s.to_string())).collect();
        Ok(ExecSystem { child, hello, ops })
    }

    /// What the program said of itself in its hello.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }
}

impl System for ExecSystem {
    fn name(&self) -> &'static str {
        "exec"
    }

    fn version(&self) -> String {
        format!("{} {}", self.hello.name, self.hello.version)
    }

    fn level(&self, requested: Level) -> LevelSupport {
        match self.hello.levels.iter().find(|l| l.level() == requested) {
            Some(HelloLevel::Native(level)) => LevelSupport::Native { name: level.name().to_string() },
            Some(HelloLevel::Mapped { runs_as, why, .. }) => {
                LevelSupport::Mapped { to: runs_as.clone(), why: why.clone() }
            }
            None => LevelSupport::Unsupported { why: format!("{} lists no {requested} in its hello", self.hello.name) },
        }
    }

    fn system_settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("exec_command", self.child.command.clone()),
            ("exec_program", self.hello.name.clone()),
            ("exec_program_version", self.hello.version.clone()),
            ("exec_protocol", self.hello.protocol.to_string()),
        ]
    }

    fn prepare(&self, registers: &[(Key, i64)]) -> Result<(), AdapterError> {
        let op = RequestOp::Prepare { registers: registers.to_vec() };
        match self.child.call(None, op) {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(AdapterError::Unavailable { system: "exec", message: format!("prepare: {e}") }),
            Err(lost) => Err(lost.gone()),
        }
    }

    fn connect(&self) -> Result<Box<dyn Session>, AdapterError> {
        let id = self.child.next_session.fetch_add(1, Ordering::Relaxed);
        match self.child.call(Some(id), RequestOp::Open) {
            Ok(Ok(_)) => Ok(Box::new(ExecSession {
                child: Arc::clone(&self.child),
                id,
                ops: self.ops.clone(),
                commit_order: None,
            })),
            Ok(Err(e)) => Err(AdapterError::Unavailable { system: "exec", message: format!("open: {e}") }),
            Err(lost) => Err(lost.gone()),
        }
    }
}

/// What became of a request whose answer never came.
#[derive(Debug, Clone)]
struct Lost {
    /// Why the program is gone.
    why: String,
    /// The line isocheck sent.
    line: String,
    /// Whether the line was (or may have been) written: a program that never read it cannot have acted on
    /// it.
    written: bool,
}

impl Lost {
    /// Why, and the line isocheck sent.
    fn describe(&self) -> String {
        format!("{}; the line isocheck sent: {}", self.why, self.line)
    }

    /// Why the system cannot be used: for a program already gone, why it went (the line that found it
    /// gone never reached it).
    fn gone(self) -> AdapterError {
        let message = if self.written { self.describe() } else { self.why };
        AdapterError::Gone { system: "exec", message }
    }
}

/// An answer for a waiting request: the response and its line, or why none will come.
type Answer = Result<(Response, String), String>;

/// The one child process of a run, and the requests waiting for its answers.
struct ExecChild {
    command: String,
    timeout: Duration,
    stdin: Mutex<Option<ChildStdin>>,
    process: Mutex<Child>,
    /// The requests waiting for an answer, with the lines isocheck sent.
    pending: Mutex<HashMap<u64, (mpsc::Sender<Answer>, String)>>,
    /// Why the program is gone, once it is.
    gone: Mutex<Option<String>>,
    next_id: AtomicU64,
    next_session: AtomicU64,
}

impl ExecChild {
    fn hello(&self) -> Result<Hello, String> {
        let answer = self.call(None, RequestOp::Hello { protocol: PROTOCOL_VERSION }).map_err(|l| l.describe())?;
        let value = answer.map_err(|e| format!("hello: {e}"))?;
        let hello: Hello = serde_json::from_value(value.clone()).map_err(|e| {
            format!(
                "{}: its answer to hello is out of protocol ({e}): expected {{\"protocol\": {PROTOCOL_VERSION}, \
                 \"name\", \"version\", \"ops\": [...], \"levels\": [...]}}, got {value}",
                self.command
            )
        })?;
        if hello.protocol != PROTOCOL_VERSION {
            return Err(format!(
                "{} speaks exec protocol {}; this isocheck speaks {PROTOCOL_VERSION}",
                self.command, hello.protocol
            ));
        }
        Ok(hello)
    }

    /// Sends one request and waits for its answer: the value, or the program's error, or why the
    /// program was lost.
    fn call(&self, session: Option<u64>, op: RequestOp) -> Result<Result<serde_json::Value, TxnError>, Lost> {
        self.call_as(session, op, Ok)
    }

    /// Sends one request, waits for its answer and decodes its value with `decode`; a value `decode`
    /// refuses is out of protocol.
    fn call_as<T>(
        &self,
        session: Option<u64>,
        op: RequestOp,
        decode: impl FnOnce(serde_json::Value) -> Result<T, String>,
    ) -> Result<Result<T, TxnError>, Lost> {
        let name = op.name();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let request = Request { id, session, op };
        let line = serde_json::to_string(&request).unwrap_or_else(|e| format!("(unencodable request {id}: {e})"));
        let (tx, rx) = mpsc::channel();
        lock(&self.pending).insert(id, (tx, line.clone()));
        let lost = |why: String, written: bool| Lost { why, line: line.clone(), written };
        if let Some(why) = lock(&self.gone).clone() {
            lock(&self.pending).remove(&id);
            return Err(lost(why, false));
        }
        if let Err(e) = self.write_line(&line) {
            // Part of the line may have gone out: count it as written.
            let why = format!("{}: writing to its standard input failed: {e}", self.command);
            self.bury(&why);
            return Err(lost(why, true));
        }
        let (response, received) = match rx.recv_timeout(self.timeout) {
            Ok(Ok(answer)) => answer,
            Ok(Err(why)) => return Err(lost(why, true)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let why = format!("{}: no answer within {:?} (--exec-timeout); killed it", self.command, self.timeout);
                self.bury(&why);
                return Err(lost(why, true));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let why = lock(&self.gone).clone().unwrap_or_else(|| format!("{}: gone", self.command));
                return Err(lost(why, true));
            }
        };
        match (response.ok, response.error) {
            (Some(true), None) => match decode(response.value) {
                Ok(value) => Ok(Ok(value)),
                Err(e) => {
                    let why = format!("{}: answered {name} out of protocol with {received} ({e})", self.command);
                    self.bury(&why);
                    Err(lost(why, true))
                }
            },
            (None | Some(false), Some(error)) => Ok(Err(TxnError {
                failure: error.kind.failure(),
                cause: error.cause,
                message: error.message,
                session_lost: false,
            })),
            _ => {
                let why = format!(
                    "{}: answered out of protocol with {received} (expected \"ok\": true or an \"error\")",
                    self.command
                );
                self.bury(&why);
                Err(lost(why, true))
            }
        }
    }

    fn write_line(&self, line: &str) -> std::io::Result<()> {
        let mut stdin = lock(&self.stdin);
        let stdin = stdin.as_mut().ok_or_else(|| std::io::Error::other("closed"))?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    /// Marks the program gone for `why` and the requests then in flight (the first reason stays), kills
    /// it and waits until it is gone, then fails every request still waiting.
    fn bury(&self, why: &str) {
        {
            let mut gone = lock(&self.gone);
            if gone.is_none() {
                let pending = lock(&self.pending);
                let mut in_flight: Vec<_> = pending.iter().map(|(id, (_, line))| (*id, line.as_str())).collect();
                in_flight.sort_unstable();
                let lines: Vec<&str> = in_flight.into_iter().map(|(_, line)| line).collect();
                *gone = Some(match lines.is_empty() {
                    true => why.to_string(),
                    false => format!("{why}, while isocheck waited for answers to {}", lines.join(" and ")),
                });
            }
        }
        lock(&self.stdin).take();
        {
            let mut process = lock(&self.process);
            let _ = process.kill();
            let _ = process.wait();
        }
        let why = lock(&self.gone).clone().unwrap_or_else(|| why.to_string());
        for (_, (waiting, _)) in lock(&self.pending).drain() {
            let _ = waiting.send(Err(why.clone()));
        }
    }

    /// Hands an answer line to the request waiting for it, or buries a program that answered out of
    /// protocol.
    fn deliver(&self, line: String) {
        let parsed = serde_json::from_str::<Response>(&line);
        let waiting = match &parsed {
            Ok(response) => lock(&self.pending).remove(&response.id),
            Err(_) => None,
        };
        match (parsed, waiting) {
            (Ok(response), Some((waiting, _))) => {
                let _ = waiting.send(Ok((response, line)));
            }
            (Ok(response), None) => self.bury(&format!(
                "{}: answered out of protocol with {line} (no request with id {} is waiting)",
                self.command, response.id
            )),
            (Err(e), _) => self.bury(&format!(
                "{}: answered out of protocol with {line} ({e}; expected one JSON object a line: \
                 {{\"id\", \"ok\": true, \"value\"}} or {{\"id\", \"error\": {{\"kind\", \"cause\", \"message\"}}}})",
                self.command
            )),
        }
    }
}

/// The reader thread: every line the program writes, until its output closes.
fn read_answers(stdout: ChildStdout, child: Weak<ExecChild>) {
    let mut lines = BufReader::new(stdout).lines();
    loop {
        let next = lines.next();
        let Some(child) = child.upgrade() else { return };
        match next {
            Some(Ok(line)) if line.trim().is_empty() => {}
            Some(Ok(line)) => child.deliver(line),
            Some(Err(e)) => {
                child.bury(&format!("{}: reading its standard output failed: {e}", child.command));
                return;
            }
            None => {
                let status = lock(&child.process).try_wait().ok().flatten();
                let how = status.map_or_else(|| "closed its standard output".to_string(), |s| format!("exited ({s})"));
                child.bury(&format!("{}: {how}", child.command));
                return;
            }
        }
    }
}

impl Drop for ExecChild {
    /// Closes the program's input, gives it a moment to exit on its own (to clean up), then kills it.
    fn drop(&mut self) {
        lock(&self.stdin).take();
        let mut process = lock(&self.process);
        let deadline = Instant::now() + EXIT_GRACE;
        while Instant::now() < deadline {
            match process.try_wait() {
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                _ => return,
            }
        }
        let _ = process.kill();
        let _ = process.wait();
    }
}

/// One client session of the run's program.
struct ExecSession {
    child: Arc<ExecChild>,
    id: u64,
    ops: HashSet<String>,
    /// The position its last commit's answer gave in the program's commit order, if any.
    commit_order: Option<i64>,
}

/// A write's answer: none, or the number the database gave the version it installed.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    version: Option<i64>,
}

/// A commit's answer: none, or the transaction's position in the program's own commit order.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Committed {
    commit_order: Option<i64>,
}

impl ExecSession {
    /// Runs an operation and decodes its value.
    fn run<T: DeserializeOwned>(&mut self, op: RequestOp) -> Result<T, TxnError> {
        let name = op.name();
        if !self.ops.contains(name) {
            return Err(TxnError::fatal(
                "unsupported",
                format!("{} does not serve {name} (its hello lists no such op)", self.child.command),
            ));
        }
        let commit = matches!(op, RequestOp::Commit);
        let lost = |lost: Lost| {
            // A commit the program may have read may have committed; anything else cannot commit in a
            // program that is now dead.
            let failure = if commit && lost.written { Failure::Indeterminate } else { Failure::Aborted };
            TxnError { failure, cause: LOST_CAUSE.to_string(), message: lost.describe(), session_lost: true }
        };
        let decode = |value: serde_json::Value| serde_json::from_value(value).map_err(|e| e.to_string());
        self.child.call_as(Some(self.id), op, decode).map_err(lost)?
    }
}

impl Session for ExecSession {
    fn begin(&mut self, level: Level) -> Result<(), TxnError> {
        self.run::<IgnoredAny>(RequestOp::Begin { isolation: level }).map(drop)
    }

    fn read_list(&mut self, key: &Key) -> Result<Vec<i64>, TxnError> {
        self.run::<Option<Vec<i64>>>(RequestOp::ReadList { key: key.clone() }).map(Option::unwrap_or_default)
    }

    fn append(&mut self, key: &Key, element: i64) -> Result<(), TxnError> {
        self.run::<IgnoredAny>(RequestOp::Append { key: key.clone(), value: element }).map(drop)
    }

    fn read(&mut self, key: &Key) -> Result<Option<i64>, TxnError> {
        self.run(RequestOp::Read { key: key.clone() })
    }

    fn write(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.write_versioned(key, value).map(drop)
    }

    fn write_versioned(&mut self, key: &Key, value: i64) -> Result<Option<i64>, TxnError> {
        let written = self.run::<Option<Written>>(RequestOp::Write { key: key.clone(), value })?;
        Ok(written.and_then(|w| w.version))
    }

    fn insert(&mut self, key: &Key, value: i64) -> Result<(), TxnError> {
        self.run::<IgnoredAny>(RequestOp::Insert { key: key.clone(), value }).map(drop)
    }

    fn delete(&mut self, key: &Key) -> Result<bool, TxnError> {
        self.run(RequestOp::Delete { key: key.clone() })
    }

    fn scan(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let rows: Vec<(Key, i64)> = self.run(RequestOp::Scan { predicate: *predicate })?;
        Ok(rows.into_iter().collect::<BTreeMap<_, _>>())
    }

    fn delete_where(&mut self, predicate: &Predicate) -> Result<Rows, TxnError> {
        let rows: Vec<(Key, i64)> = self.run(RequestOp::DeleteWhere { predicate: *predicate })?;
        Ok(rows.into_iter().collect())
    }

    fn update_where(&mut self, predicate: &Predicate, change: Change) -> Result<Vec<(Key, i64, i64)>, TxnError> {
        self.run(RequestOp::UpdateWhere { predicate: *predicate, change })
    }

    fn commit(&mut self) -> Result<(), TxnError> {
        self.commit_order = None;
        let committed = self.run::<Option<Committed>>(RequestOp::Commit)?;
        self.commit_order = committed.and_then(|c| c.commit_order);
        Ok(())
    }

    fn commit_order(&self) -> Option<i64> {
        self.commit_order
    }

    fn rollback(&mut self) -> Result<(), TxnError> {
        self.run::<IgnoredAny>(RequestOp::Rollback).map(drop)
    }

    fn kill_switch(&self) -> Option<Arc<dyn KillSwitch>> {
        // Killing the program would kill every session's database, not one connection.
        None
    }
}

impl Drop for ExecSession {
    fn drop(&mut self) {
        if lock(&self.child.gone).is_none() {
            let _ = self.child.call(Some(self.id), RequestOp::Close);
        }
    }
}
