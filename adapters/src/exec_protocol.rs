//! The exec protocol's messages, as both ends read and write them (`docs/EXEC.md` is the specification):
//! isocheck writes one [`Request`] a line on the program's standard input, the program answers each with
//! one [`Response`] a line on its standard output, matched by `id`. The first request is `hello`, whose
//! answer ([`Hello`]) states the protocol version, the program's name and version, and which operations
//! and levels it supports. Requests name the client session they belong to; one program serves every
//! session of a run. This module owns the shapes only: the client is `exec`'s, serving a [`System`]
//! over the protocol is `exec_server`'s.
//!
//! [`System`]: crate::System

use histories::{Key, Predicate};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::level::Level;
use crate::session::{Change, Failure};

/// The protocol version this isocheck speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// A request: its id (unique within a run), the session it belongs to (none for `hello` and `prepare`),
/// and the operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Matches the response to the request.
    pub id: u64,
    /// The client session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<u64>,
    /// What to do.
    #[serde(flatten)]
    pub op: RequestOp,
}

/// A request's operation, by its `op` member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RequestOp {
    /// The first request: which protocol isocheck speaks. Answered with a [`Hello`].
    Hello {
        /// [`PROTOCOL_VERSION`].
        protocol: u32,
    },
    /// Fresh, empty tables, with these initial register rows (`[key, value]` pairs).
    Prepare {
        /// The initial register rows.
        registers: Vec<(Key, i64)>,
    },
    /// Opens the request's session.
    Open,
    /// Closes the request's session (rolling back a transaction it left open).
    Close,
    /// Begins a transaction at a level.
    Begin {
        /// The level, by its command-line name (`serializable`, ...).
        #[serde(with = "level_name")]
        isolation: Level,
    },
    /// Appends an element to a list. Answer: no value.
    Append {
        /// The list.
        key: Key,
        /// The element.
        value: i64,
    },
    /// Reads a list. Answer: the list (`[]` when the key has none).
    ReadList {
        /// The list.
        key: Key,
    },
    /// Reads a register. Answer: its value, or `null` when it has no row.
    Read {
        /// The register.
        key: Key,
    },
    /// Writes a register, creating its row if needed. Answer: no value.
    Write {
        /// The register.
        key: Key,
        /// The value.
        value: i64,
    },
    /// Inserts a register row; an abort (cause `duplicate-key`) if it exists. Answer: no value.
    Insert {
        /// The register.
        key: Key,
        /// The value.
        value: i64,
    },
    /// Deletes a register row. Answer: whether it existed.
    Delete {
        /// The register.
        key: Key,
    },
    /// A predicate read. Answer: every matching row, as `[key, value]` pairs.
    Scan {
        /// `"true"`, `["=", v]` or `["mod", m, r]`.
        predicate: Predicate,
    },
    /// Deletes every matching row. Answer: the rows deleted, as `[key, value seen]` pairs.
    DeleteWhere {
        /// `"true"`, `["=", v]` or `["mod", m, r]`.
        predicate: Predicate,
    },
    /// Changes every matching row. Answer: `[key, value seen, value written]` triples.
    UpdateWhere {
        /// `"true"`, `["=", v]` or `["mod", m, r]`.
        predicate: Predicate,
        /// `{"set": x}` or `{"add": d}`.
        #[serde(with = "change_json")]
        change: Change,
    },
    /// Commits.
    Commit,
    /// Rolls back (nothing happens when no transaction is open).
    Rollback,
}

impl RequestOp {
    /// The operation's name, as its `op` member and a hello's `ops` list spell it.
    pub fn name(&self) -> &'static str {
        match self {
            RequestOp::Hello { .. } => "hello",
            RequestOp::Prepare { .. } => "prepare",
            RequestOp::Open => "open",
            RequestOp::Close => "close",
            RequestOp::Begin { .. } => "begin",
            RequestOp::Append { .. } => "append",
            RequestOp::ReadList { .. } => "read_list",
            RequestOp::Read { .. } => "read",
            RequestOp::Write { .. } => "write",
            RequestOp::Insert { .. } => "insert",
            RequestOp::Delete { .. } => "delete",
            RequestOp::Scan { .. } => "scan",
            RequestOp::DeleteWhere { .. } => "delete_where",
            RequestOp::UpdateWhere { .. } => "update_where",
            RequestOp::Commit => "commit",
            RequestOp::Rollback => "rollback",
        }
    }
}

/// The operations every program must serve; a hello's `ops` lists which of the others it does.
pub const REQUIRED_OPS: [&str; 7] = ["hello", "prepare", "open", "close", "begin", "commit", "rollback"];

/// A response: the request's id, and either `"ok": true` with a value (absent or `null` when the
/// operation returns none) or an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The request's id.
    pub id: u64,
    /// `true` when the operation succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// What the operation returned.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub value: serde_json::Value,
    /// Why the operation failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

impl Response {
    /// A success with this value.
    pub fn ok(id: u64, value: serde_json::Value) -> Response {
        Response { id, ok: Some(true), value, error: None }
    }

    /// A failure.
    pub fn error(id: u64, error: ErrorBody) -> Response {
        Response { id, ok: None, value: serde_json::Value::Null, error: Some(error) }
    }
}

/// Why an operation failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What it means for the transaction.
    pub kind: ErrorKind,
    /// A short, stable cause, counted in the run's aborts by cause (`serialization-failure`,
    /// `SQLITE_BUSY`, ...).
    pub cause: String,
    /// The program's own message.
    #[serde(default)]
    pub message: String,
}

/// What a failure means for the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The transaction certainly had no effect and is over (recorded `fail`).
    Abort,
    /// The transaction may or may not have committed (recorded `info`).
    Indeterminate,
    /// A fault of the run, not of the transaction (the run stops).
    Fatal,
}

impl ErrorKind {
    /// The failure a session reports.
    pub fn failure(self) -> Failure {
        match self {
            ErrorKind::Abort => Failure::Aborted,
            ErrorKind::Indeterminate => Failure::Indeterminate,
            ErrorKind::Fatal => Failure::Fatal,
        }
    }

    /// The kind of a session's failure.
    pub fn of(failure: Failure) -> ErrorKind {
        match failure {
            Failure::Aborted => ErrorKind::Abort,
            Failure::Indeterminate => ErrorKind::Indeterminate,
            Failure::Fatal => ErrorKind::Fatal,
        }
    }
}

/// The value of the answer to `hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The protocol version the program speaks ([`PROTOCOL_VERSION`]).
    pub protocol: u32,
    /// The program's name, for `run.json`.
    pub name: String,
    /// The program's version (and its database's), for `run.json`.
    pub version: String,
    /// The operations it serves beyond [`REQUIRED_OPS`] (`append`, `read_list`, `read`, `write`, ...).
    pub ops: Vec<String>,
    /// The levels it runs, each natively or in the place of another.
    pub levels: Vec<HelloLevel>,
}

/// A level a program runs: natively (`"serializable"`), or another level in its place
/// (`{"level": "repeatable-read", "runs_as": "snapshot-isolation", "why": "..."}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum HelloLevel {
    /// The level by name, run natively.
    Native(#[serde(with = "level_name")] Level),
    /// A level run as another.
    Mapped {
        /// The level requested.
        #[serde(with = "level_name")]
        level: Level,
        /// What runs in its place.
        runs_as: String,
        /// Why, in a sentence.
        why: String,
    },
}

impl HelloLevel {
    /// The level requested.
    pub fn level(&self) -> Level {
        match self {
            HelloLevel::Native(level) | HelloLevel::Mapped { level, .. } => *level,
        }
    }
}

/// A level as its command-line name.
mod level_name {
    use super::*;

    pub fn serialize<S: Serializer>(level: &Level, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(level.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// A change as `{"set": x}` or `{"add": d}`.
mod change_json {
    use super::*;

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case", deny_unknown_fields)]
    enum ChangeJson {
        Set(i64),
        Add(i64),
    }

    pub fn serialize<S: Serializer>(change: &Change, s: S) -> Result<S::Ok, S::Error> {
        match *change {
            Change::Set(x) => ChangeJson::Set(x),
            Change::Add(d) => ChangeJson::Add(d),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Change, D::Error> {
        Ok(match ChangeJson::deserialize(d)? {
            ChangeJson::Set(x) => Change::Set(x),
            ChangeJson::Add(d) => Change::Add(d),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_one_flat_object_per_line() {
        let begin = Request { id: 4, session: Some(1), op: RequestOp::Begin { isolation: Level::Serializable } };
        let line = serde_json::to_string(&begin).unwrap();
        assert_eq!(line, r#"{"id":4,"session":1,"op":"begin","isolation":"serializable"}"#);
        assert_eq!(serde_json::from_str::<Request>(&line).unwrap(), begin);
        let update = Request {
            id: 9,
            session: Some(2),
            op: RequestOp::UpdateWhere { predicate: Predicate::Eq(3), change: Change::Add(-1) },
        };
        let line = serde_json::to_string(&update).unwrap();
        assert_eq!(line, r#"{"id":9,"session":2,"op":"update_where","predicate":["=",3],"change":{"add":-1}}"#);
        assert_eq!(serde_json::from_str::<Request>(&line).unwrap(), update);
        let prepare = Request { id: 1, session: None, op: RequestOp::Prepare { registers: vec![(Key::Int(1), 10)] } };
        assert_eq!(serde_json::to_string(&prepare).unwrap(), r#"{"id":1,"op":"prepare","registers":[[1,10]]}"#);
    }

    #[test]
    fn responses_carry_a_value_or_an_error() {
        let ok = Response::ok(3, serde_json::json!([1, 2]));
        assert_eq!(serde_json::to_string(&ok).unwrap(), r#"{"id":3,"ok":true,"value":[1,2]}"#);
        let abort = Response::error(
            4,
            ErrorBody { kind: ErrorKind::Abort, cause: "write-conflict".into(), message: "busy".into() },
        );
        let line = serde_json::to_string(&abort).unwrap();
        assert_eq!(line, r#"{"id":4,"error":{"kind":"abort","cause":"write-conflict","message":"busy"}}"#);
        assert_eq!(serde_json::from_str::<Response>(&line).unwrap(), abort);
    }

    #[test]
    fn a_hello_names_its_levels_natively_or_mapped() {
        let line = r#"{"protocol":1,"name":"p","version":"1","ops":["append"],
            "levels":["serializable",{"level":"repeatable-read","runs_as":"snapshot-isolation","why":"w"}]}"#;
        let hello: Hello = serde_json::from_str(line).unwrap();
        assert_eq!(hello.levels[0], HelloLevel::Native(Level::Serializable));
        assert_eq!(hello.levels[1].level(), Level::RepeatableRead);
        assert!(serde_json::from_str::<Hello>(&line.replace("\"serializable\"", "\"linearizable\"")).is_err());
    }
}
