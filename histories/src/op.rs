//! Operations: one line of a history. An operation is an invocation or a completion (`ok`, `fail`,
//! `info`) by one process, with a value that is usually a transaction's micro-ops. This module owns
//! the operation model and its JSON object form; pairing invocations with completions and the rules a
//! whole history must follow live in [`crate::well_formed`].

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::mop::{Mop, Rows, RowsJson};
use crate::position::Position;
use crate::shared_slice::SharedSlice;

/// Whether an operation begins a transaction or says how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpType {
    /// The client asked.
    Invoke,
    /// Committed.
    Ok,
    /// Certainly had no effect: aborted, rolled back, a serialization failure.
    Fail,
    /// Indeterminate: may or may not have taken effect (a lost connection during commit).
    Info,
}

impl OpType {
    /// The type's name in a history.
    pub fn as_str(self) -> &'static str {
        match self {
            OpType::Invoke => "invoke",
            OpType::Ok => "ok",
            OpType::Fail => "fail",
            OpType::Info => "info",
        }
    }

    /// Parses a type name (`invoke`, `ok`, `fail`, `info`).
    pub fn parse(name: &str) -> Option<OpType> {
        match name {
            "invoke" => Some(OpType::Invoke),
            "ok" => Some(OpType::Ok),
            "fail" => Some(OpType::Fail),
            "info" => Some(OpType::Info),
            _ => None,
        }
    }
}

impl Serialize for OpType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Display for OpType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who performed an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Process {
    /// A client process: one logical, single-threaded client.
    Client(u64),
    /// The fault injector; checks skip its operations.
    Nemesis,
}

impl Process {
    /// The largest client process a history may name: Jepsen's processes are Clojure longs. Processes
    /// a reader gives operations that name none are numbered after the largest named, so they stay far
    /// below `u64::MAX`, which an operation keeps for the nemesis (it stores its process in eight bytes).
    pub const MAX_CLIENT: u64 = i64::MAX as u64;

    /// The process as an operation stores it: the client's number, or `u64::MAX` for the nemesis.
    fn code(self) -> u64 {
        match self {
            Process::Client(p) => {
                assert!(p != NEMESIS, "client process {p} is the number an operation keeps for the nemesis");
                p
            }
            Process::Nemesis => NEMESIS,
        }
    }

    /// The process [`Process::code`] stored.
    fn from_code(code: u64) -> Process {
        match code {
            NEMESIS => Process::Nemesis,
            p => Process::Client(p),
        }
    }
}

/// How an operation stores [`Process::Nemesis`].
const NEMESIS: u64 = u64::MAX;

/// How an operation read from a file stores, until it is settled, that the file gave it no process: above
/// every client a file may name ([`Process::MAX_CLIENT`]) and below the nemesis's number.
const NO_PROCESS_GIVEN: u64 = u64::MAX - 1;

/// How an operation stores "no time"; times are never negative (readers refuse a negative one).
const NO_TIME: i64 = i64::MIN;

impl fmt::Display for Process {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Process::Client(p) => write!(f, "{p}"),
            Process::Nemesis => write!(f, "nemesis"),
        }
    }
}

impl Serialize for Process {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Process::Client(p) => s.serialize_u64(*p),
            Process::Nemesis => s.serialize_str("nemesis"),
        }
    }
}

/// What an operation does (`f`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Function {
    /// A transaction of micro-ops (list-append, rw-register); also what an absent `f` means.
    #[default]
    Txn,
    /// Fixes the initial rows of a predicate workload.
    Init,
    /// A workload-specific name (`withdraw`, `transfer`, `read`, a nemesis's fault name).
    Named(Box<str>),
}

impl Function {
    /// Parses an `f` name.
    pub fn parse(name: &str) -> Function {
        match name {
            "txn" => Function::Txn,
            "init" => Function::Init,
            other => Function::Named(other.into()),
        }
    }

    /// The name as written in a history.
    pub fn as_str(&self) -> &str {
        match self {
            Function::Txn => "txn",
            Function::Init => "init",
            Function::Named(name) => name,
        }
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An operation's value.
///
/// Only [`OpValue::Txn`] is common in a big history, so the rarer values are boxed: the enum is 24
/// bytes (a shared slice of micro-ops, 16, and its tag), and so is every operation's value.
#[derive(Debug, Clone, PartialEq)]
pub enum OpValue {
    /// The micro-ops of a transaction.
    Txn(SharedSlice<Mop>),
    /// The rows of an `init` operation.
    Rows(Box<Rows>),
    /// Anything else, kept as written (a nemesis operation's value).
    Other(Box<serde_json::Value>),
}

impl OpValue {
    /// The micro-ops, if this value is a transaction.
    pub fn mops(&self) -> &[Mop] {
        match self {
            OpValue::Txn(mops) => mops,
            _ => &[],
        }
    }
}

/// The fields of an operation that a big history's operations seldom have (an `f` other than `txn`, an
/// `error`, a `commit_order`, unknown fields), kept together behind one pointer so that an operation
/// without any of them (nearly all of a list-append or rw-register history's) pays one null pointer for
/// them rather than eighty bytes.
#[derive(Debug, Clone, PartialEq, Default)]
struct RareFields {
    f: Function,
    error: Option<Box<str>>,
    commit_order: Option<i64>,
    extra: Vec<(Box<str>, serde_json::Value)>,
}

impl RareFields {
    /// Whether every field has its default, the case of nearly every operation: asked without building
    /// (and dropping) a default to compare with.
    fn is_default(&self) -> bool {
        RareFields::all_default(&self.f, self.error.as_deref(), self.commit_order, &self.extra)
    }

    /// Whether these would be the default rare fields: asked before a box is built for them.
    fn all_default(
        f: &Function,
        error: Option<&str>,
        commit_order: Option<i64>,
        extra: &[(Box<str>, serde_json::Value)],
    ) -> bool {
        *f == Function::Txn && error.is_none() && commit_order.is_none() && extra.is_empty()
    }
}

/// What [`Op::f`] returns for an operation without rare fields.
static TXN: Function = Function::Txn;

/// One operation of a history.
///
/// The fields most operations have are public; the rare ones ([`Op::f`], [`Op::error`],
/// [`Op::commit_order`], [`Op::extra`]) are read and set through methods, as they share one box, and
/// so are [`Op::time`] and [`Op::process`], kept in eight bytes each (an operation is 72 bytes, and a
/// history of 10M transactions holds 20M of them).
#[derive(Clone)]
pub struct Op {
    /// Position in the history; assigned in file order when the file gives none.
    pub index: u64,
    /// See [`Op::time`]; [`NO_TIME`] for none.
    time: i64,
    /// See [`Op::process`], as [`Process::code`] stores it.
    process: u64,
    /// The micro-ops (or other value). For an invocation that [`Op::reads_unknown`], its completion's,
    /// whose reads' values are not its own (the flag stays when the value is replaced: shrinking keeps
    /// some of the micro-ops, and they are still the completion's).
    pub value: OpValue,
    /// Where the operation starts in its file.
    pub at: Position,
    /// Invocation or completion.
    pub kind: OpType,
    /// See [`Op::reads_unknown`].
    reads_unknown: bool,
    /// `None` when every rare field has its default (`f` txn, no error, no commit order, no unknown
    /// fields); never `Some` of the defaults, so that equal operations compare equal.
    rare: Option<Box<RareFields>>,
}

impl Op {
    /// An operation as a runner records it, before the history numbers it: index 0, no time, no error,
    /// no extra fields, at no place in a file. The builders below add a time and an error.
    pub fn new(kind: OpType, process: Process, f: Function, value: OpValue) -> Op {
        let mut op = Op {
            index: 0,
            time: NO_TIME,
            process: process.code(),
            value,
            at: Position::default(),
            kind,
            reads_unknown: false,
            rare: None,
        };
        op.set_f(f);
        op
    }

    /// An operation as a reader builds it from every field it read (process and index are settled later).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn read(
        kind: OpType,
        f: Function,
        time: Option<i64>,
        value: OpValue,
        error: Option<Box<str>>,
        commit_order: Option<i64>,
        extra: Vec<(Box<str>, serde_json::Value)>,
        at: Position,
    ) -> Op {
        // Asked before building anything: nearly every operation has no rare field.
        let plain = RareFields::all_default(&f, error.as_deref(), commit_order, &extra);
        let rare = (!plain).then(|| Box::new(RareFields { f, error, commit_order, extra }));
        let mut op = Op { index: 0, time: NO_TIME, process: 0, value, at, kind, reads_unknown: false, rare };
        op.set_time(time);
        op
    }

    /// A transaction of client `process`: [`Op::new`] with `f` [`Function::Txn`] and these micro-ops.
    pub fn txn(kind: OpType, process: u64, mops: Vec<Mop>) -> Op {
        Op::new(kind, Process::Client(process), Function::Txn, OpValue::Txn(mops.into()))
    }

    /// The operation at `time` nanoseconds since the run began.
    pub fn with_time(mut self, time: i64) -> Op {
        self.set_time(Some(time));
        self
    }

    /// Nanoseconds since the run began, on a monotonic clock; never negative.
    pub fn time(&self) -> Option<i64> {
        (self.time != NO_TIME).then_some(self.time)
    }

    /// Sets the time. Panics on a negative time: readers refuse one, and a monotonic clock gives none.
    pub fn set_time(&mut self, time: Option<i64>) {
        self.time = match time {
            Some(t) => {
                assert!(t >= 0, "an operation's time is never negative, not {t}");
                t
            }
            None => NO_TIME,
        };
    }

    /// Who performed it; assigned when the file gives none (see `well_formed.rs`).
    pub fn process(&self) -> Process {
        Process::from_code(self.process)
    }

    /// Sets who performed it. Panics on client `u64::MAX` (readers refuse any above [`Process::MAX_CLIENT`]).
    pub fn set_process(&mut self, process: Process) {
        self.process = process.code();
    }

    /// Keeps the process a file gave the operation (if any) in the operation itself, until the history is
    /// settled ([`crate::well_formed`]): a history of millions then holds no list of them beside its
    /// operations. Panics on client `u64::MAX - 1`, as [`Op::set_process`] does on `u64::MAX` (readers
    /// refuse any above [`Process::MAX_CLIENT`]).
    pub(crate) fn set_given_process(&mut self, process: Option<Process>) {
        self.process = match process {
            None => NO_PROCESS_GIVEN,
            Some(p) => {
                let code = p.code();
                assert!(
                    code != NO_PROCESS_GIVEN,
                    "client process {code} is the number a read operation keeps for none"
                );
                code
            }
        };
    }

    /// The process [`Op::set_given_process`] kept.
    pub(crate) fn given_process(&self) -> Option<Process> {
        (self.process != NO_PROCESS_GIVEN).then(|| Process::from_code(self.process))
    }

    /// Puts back the placeholders a reader builds an operation with ([`Op::read`]): index and process 0.
    pub(crate) fn clear_index_and_process(&mut self) {
        self.index = 0;
        self.process = 0;
    }

    /// The operation with why it failed or is indeterminate, if it did or is.
    pub fn with_error(mut self, error: Option<String>) -> Op {
        self.set_error(error.map(Into::into));
        self
    }

    /// The operation with the transaction's position in the database's commit order, if the system said.
    pub fn with_commit_order(mut self, commit_order: Option<i64>) -> Op {
        self.set_commit_order(commit_order);
        self
    }

    /// The operation with the node of a cluster it ran on (the `node` field, kept among the extra
    /// fields, so every format writes it back), if it ran on one.
    pub fn with_node(mut self, node: Option<&str>) -> Op {
        if let Some(node) = node {
            self.update_rare(|rare| {
                rare.extra.retain(|(name, _)| &**name != "node");
                rare.extra.push(("node".into(), serde_json::Value::String(node.to_string())));
            });
        }
        self
    }

    /// The node of a cluster it ran on (`node`), if the history says.
    pub fn node(&self) -> Option<&str> {
        self.extra().iter().find(|(name, _)| &**name == "node").and_then(|(_, v)| v.as_str())
    }

    /// What it does.
    pub fn f(&self) -> &Function {
        self.rare.as_ref().map_or(&TXN, |rare| &rare.f)
    }

    /// Why a `fail` or `info` happened, as the system said it.
    pub fn error(&self) -> Option<&str> {
        self.rare.as_ref().and_then(|rare| rare.error.as_deref())
    }

    /// On a completion: the transaction's position in the database's own commit order (`commit_order`), as
    /// the system under test reported it (white-box); larger is later. Only a committed (or indeterminate)
    /// transaction has one. Each key's writes are then ordered by their transactions' positions.
    pub fn commit_order(&self) -> Option<i64> {
        self.rare.as_ref().and_then(|rare| rare.commit_order)
    }

    /// Fields this model does not know, kept so a history can be written back unchanged.
    pub fn extra(&self) -> &[(Box<str>, serde_json::Value)] {
        self.rare.as_ref().map_or(&[], |rare| &rare.extra)
    }

    /// Sets what it does.
    pub fn set_f(&mut self, f: Function) {
        if f != Function::Txn || self.rare.is_some() {
            self.update_rare(|rare| rare.f = f);
        }
    }

    /// Sets why it failed or is indeterminate.
    pub fn set_error(&mut self, error: Option<Box<str>>) {
        if error.is_some() || self.rare.is_some() {
            self.update_rare(|rare| rare.error = error);
        }
    }

    /// Sets the transaction's position in the database's commit order.
    pub fn set_commit_order(&mut self, commit_order: Option<i64>) {
        if commit_order.is_some() || self.rare.is_some() {
            self.update_rare(|rare| rare.commit_order = commit_order);
        }
    }

    /// Sets the fields this model does not know.
    pub fn set_extra(&mut self, extra: Vec<(Box<str>, serde_json::Value)>) {
        if !extra.is_empty() || self.rare.is_some() {
            self.update_rare(|rare| rare.extra = extra);
        }
    }

    /// Changes the rare fields, then drops their box if they all went back to their defaults.
    fn update_rare(&mut self, change: impl FnOnce(&mut RareFields)) {
        let rare = self.rare.get_or_insert_with(Box::default);
        change(rare);
        if rare.is_default() {
            self.rare = None;
        }
    }

    /// The transaction's micro-ops; empty for other values.
    ///
    /// Not for an invocation that [`Op::reads_unknown`] (debug builds panic): its reads' values would be
    /// its completion's. Ask [`Op::written_mops`] for the micro-ops as it said them, or
    /// [`Op::held_mops`] for those it holds.
    pub fn mops(&self) -> &[Mop] {
        debug_assert!(
            !self.reads_unknown,
            "the micro-ops of an invocation that keeps its completion's: ask for its written or held micro-ops"
        );
        self.value.mops()
    }

    /// The micro-ops the operation holds: [`Op::mops`], but for an invocation that [`Op::reads_unknown`],
    /// its completion's (what the reads returned included).
    pub fn held_mops(&self) -> &[Mop] {
        self.value.mops()
    }

    /// Whether this invocation keeps its completion's micro-ops as its own, knowing none of their reads'
    /// values. The history does this as it pairs them (`well_formed.rs`) when the completion is
    /// the same call (the same micro-ops, but for what its reads returned) and the invocation's reads
    /// say nothing (nil): a history of millions then keeps each transaction's micro-ops once. Each read
    /// in [`Op::held_mops`] then holds what the completion read, not what the invocation said;
    /// [`Op::written_mops`] gives the micro-ops as the invocation said them, and the writers write them so.
    pub fn reads_unknown(&self) -> bool {
        self.reads_unknown
    }

    /// The micro-ops as the operation said them: [`Op::mops`], each read's value unknown (nil) when the
    /// operation [`Op::reads_unknown`].
    pub fn written_mops(&self) -> impl ExactSizeIterator<Item = Cow<'_, Mop>> + '_ {
        self.held_mops().iter().map(move |mop| match mop.with_read_unknown() {
            Some(unknown) if self.reads_unknown => Cow::Owned(unknown),
            _ => Cow::Borrowed(mop),
        })
    }

    /// Has an invocation that [`Op::reads_unknown`] hold its micro-ops as it said them (its own copy),
    /// as an operation read from a file does: for a history built again from a settled one's operations.
    pub(crate) fn hold_written_mops(&mut self) {
        if self.reads_unknown {
            let written: Vec<Mop> = self.written_mops().map(Cow::into_owned).collect();
            self.value = OpValue::Txn(written.into());
            self.reads_unknown = false;
        }
    }

    /// Takes its completion's value (a clone of it, sharing its micro-ops) as this invocation's, whose
    /// micro-ops are the same ([`Op::reads_unknown`] says whether only but for what the reads returned).
    pub(crate) fn keep_completion_mops(&mut self, completion_value: OpValue, reads_unknown: bool) {
        self.value = completion_value;
        self.reads_unknown = reads_unknown;
    }

    /// Whether this is a client operation (not the nemesis).
    pub fn is_client(&self) -> bool {
        self.process != NEMESIS
    }
}

impl Serialize for Op {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("index", &self.index)?;
        map.serialize_entry("type", self.kind.as_str())?;
        map.serialize_entry("process", &self.process())?;
        map.serialize_entry("f", self.f().as_str())?;
        if let Some(time) = self.time() {
            map.serialize_entry("time", &time)?;
        }
        match &self.value {
            OpValue::Txn(_) => map.serialize_entry("value", &WrittenMops(self))?,
            OpValue::Rows(rows) => map.serialize_entry("value", &RowsJson(rows))?,
            OpValue::Other(json) => map.serialize_entry("value", json)?,
        }
        if let Some(error) = self.error() {
            map.serialize_entry("error", error)?;
        }
        if let Some(position) = self.commit_order() {
            map.serialize_entry("commit_order", &position)?;
        }
        for (name, value) in self.extra() {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// An operation's micro-ops as it said them ([`Op::written_mops`]), in their JSON form.
struct WrittenMops<'a>(&'a Op);

impl Serialize for WrittenMops<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.written_mops())
    }
}

/// Equal operations are the same as written: an invocation that keeps its completion's micro-ops
/// ([`Op::reads_unknown`]) equals one that keeps its own, nil reads and all.
impl PartialEq for Op {
    fn eq(&self, other: &Op) -> bool {
        let same_value = match (&self.value, &other.value) {
            (OpValue::Txn(_), OpValue::Txn(_)) if self.reads_unknown || other.reads_unknown => {
                self.held_mops().len() == other.held_mops().len() && self.written_mops().eq(other.written_mops())
            }
            (a, b) => a == b,
        };
        self.index == other.index
            && self.time == other.time
            && self.process == other.process
            && same_value
            && self.at == other.at
            && self.kind == other.kind
            && self.rare == other.rare
    }
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Op")
            .field("index", &self.index)
            .field("time", &self.time())
            .field("process", &self.process())
            .field("value", &self.value)
            .field("at", &self.at)
            .field("kind", &self.kind)
            .field("reads_unknown", &self.reads_unknown)
            .field("rare", &self.rare)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Key;

    #[test]
    fn a_built_op_has_only_the_fields_given_and_writes_as_them() {
        let mops = vec![Mop::Append { key: Key::Int(1), value: 2 }];
        let op = Op::txn(OpType::Fail, 3, mops.clone()).with_time(40).with_error(Some("40001".into()));
        let by_hand = Op {
            index: 0,
            time: 40,
            process: 3,
            value: OpValue::Txn(mops.into()),
            at: Position::default(),
            kind: OpType::Fail,
            reads_unknown: false,
            rare: Some(Box::new(RareFields { error: Some("40001".into()), ..RareFields::default() })),
        };
        assert_eq!(op, by_hand);
        assert_eq!(
            serde_json::to_string(&op).unwrap(),
            r#"{"index":0,"type":"fail","process":3,"f":"txn","time":40,"value":[["append",1,2]],"error":"40001"}"#
        );
        let nemesis = Op::new(OpType::Info, Process::Nemesis, Function::Txn, OpValue::Txn(SharedSlice::new()));
        assert_eq!((nemesis.time(), nemesis.process(), nemesis.is_client()), (None, Process::Nemesis, false));
        let mut op = op;
        op.set_process(Process::Client(Process::MAX_CLIENT));
        op.set_time(Some(0));
        assert_eq!((op.process(), op.time(), op.is_client()), (Process::Client(Process::MAX_CLIENT), Some(0), true));
        op.set_time(None);
        assert_eq!(op.time(), None);
    }

    #[test]
    fn rare_fields_set_back_to_their_defaults_leave_no_box_so_the_op_equals_one_that_never_had_them() {
        let plain = Op::txn(OpType::Ok, 1, Vec::new());
        assert!(plain.rare.is_none());
        let mut op = plain.clone().with_error(Some("40001".into())).with_commit_order(Some(3)).with_node(Some("n1"));
        op.set_f(Function::Named("read".into()));
        assert_eq!(
            (op.f().as_str(), op.error(), op.commit_order(), op.node()),
            ("read", Some("40001"), Some(3), Some("n1"))
        );
        assert_ne!(op, plain);
        op.set_f(Function::Txn);
        op.set_error(None);
        op.set_commit_order(None);
        assert!(op.rare.is_some(), "the node is still there");
        op.set_extra(Vec::new());
        assert!(op.rare.is_none());
        assert_eq!(op, plain);
        assert_eq!((op.f(), op.error(), op.commit_order(), op.extra()), (&Function::Txn, None, None, &[][..]));
    }

    #[test]
    fn an_op_without_rare_fields_and_a_micro_op_are_small() {
        // Two million of these hold a 1M-transaction history; each byte here is 2 MB there.
        assert!(std::mem::size_of::<Op>() <= 72, "{}", std::mem::size_of::<Op>());
        assert!(std::mem::size_of::<OpValue>() <= 24, "{}", std::mem::size_of::<OpValue>());
        assert!(std::mem::size_of::<Mop>() <= 40, "{}", std::mem::size_of::<Mop>());
    }

    #[test]
    fn a_node_is_written_as_the_node_field_and_read_back() {
        let op = Op::txn(OpType::Ok, 1, Vec::new()).with_node(Some("n2"));
        assert_eq!(op.node(), Some("n2"));
        assert_eq!(
            serde_json::to_string(&op).unwrap(),
            r#"{"index":0,"type":"ok","process":1,"f":"txn","value":[],"node":"n2"}"#
        );
        assert_eq!(Op::txn(OpType::Ok, 1, Vec::new()).with_node(None).node(), None);
    }
}
