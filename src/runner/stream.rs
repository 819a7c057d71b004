//! The history written as it is recorded (`run --online`): the checker thread merges
//! the logs in the final merge's order and hands each operation, indexed, to a [`HistoryStream`], which
//! writes it to the run's history file as the final merge would (`histories::write_jsonl`, one line an
//! operation: the same bytes for the same operations) and tallies what the run's summary and verdict
//! need of the whole history without keeping it ([`Tally`]), its contended pairs included. Nothing here
//! holds more than the transactions in flight (and the committed writers that may still overlap one),
//! and one entry per node and per key not yet released by the online checker.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use histories::{Function, Key, Op, OpType, Process};

/// What a streamed history held, counted as it was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Operations written.
    pub ops: usize,
    /// Client transactions (invocations; the `init` operation is none).
    pub txns: usize,
    /// Committed transactions.
    pub ok: usize,
    /// Aborted transactions.
    pub fail: usize,
    /// Indeterminate transactions, including those the history never completed.
    pub info: usize,
    /// Keys the transactions named.
    pub keys: usize,
    /// Transactions by name (`f`) and outcome, as `run.json`'s `operations`.
    pub operations: BTreeMap<String, BTreeMap<String, u64>>,
    /// Committed transactions by the node their completion names.
    pub commits_per_node: BTreeMap<String, u64>,
    /// The nodes the operations name.
    pub nodes: BTreeSet<String>,
    /// The contended pairs (`checker::timing::contention`'s counts, counted as the operations were
    /// written); `None` where the history's shape does not let a stream count them.
    pub contention: Option<checker::timing::Contention>,
}

/// Writes a history an operation at a time, tallying it.
pub struct HistoryStream {
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
    tally: Tally,
    /// Keys named so far, but for those released ([`HistoryStream::forget_keys`]).
    keys: HashSet<Key>,
    /// Keys named and then released: never named again.
    released_keys: usize,
    /// The transactions invoked and not completed, by process: their names.
    in_flight: HashMap<u64, Function>,
    /// The contended pairs, counted as the operations are written.
    contention: checker::timing::ContentionStream,
    /// The first write that failed, after which nothing more is written.
    failed: Option<std::io::Error>,
}

impl std::fmt::Debug for HistoryStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryStream").field("path", &self.path).field("tally", &self.tally).finish()
    }
}

/// A history written whole: where, and what it held.
#[derive(Debug, Clone)]
pub struct Streamed {
    /// The history file.
    pub path: PathBuf,
    /// What it held.
    pub tally: Tally,
}

impl HistoryStream {
    /// Creates (or truncates) the history file at `path`.
    pub fn create(path: &Path) -> std::io::Result<HistoryStream> {
        let file = std::fs::File::create(path)?;
        Ok(HistoryStream {
            path: path.to_path_buf(),
            out: std::io::BufWriter::new(file),
            tally: Tally::default(),
            keys: HashSet::new(),
            released_keys: 0,
            in_flight: HashMap::new(),
            contention: checker::timing::ContentionStream::default(),
            failed: None,
        })
    }

    /// Writes the next operation of the history (indexed as the history's) and tallies it.
    pub fn write(&mut self, op: &Op) {
        if self.failed.is_none()
            && let Err(e) = histories::write_jsonl(std::iter::once(op), &mut self.out)
        {
            self.failed = Some(e);
        }
        self.contention.push(op, self.tally.ops);
        self.tally.ops += 1;
        if let Some(node) = op.node()
            && !self.tally.nodes.contains(node)
        {
            self.tally.nodes.insert(node.to_string());
        }
        let Process::Client(process) = op.process() else { return };
        if *op.f() == Function::Init {
            return;
        }
        for key in op.mops().iter().filter_map(histories::Mop::key) {
            if !self.keys.contains(key) {
                self.keys.insert(key.clone());
            }
        }
        if op.kind == OpType::Invoke {
            self.tally.txns += 1;
            self.in_flight.insert(process, op.f().clone());
            return;
        }
        // A completion: of the transaction its process invoked, or (with no invocation) one of its own.
        let f = match self.in_flight.remove(&process) {
            Some(f) => f,
            None => {
                self.tally.txns += 1;
                op.f().clone()
            }
        };
        self.outcome(&f, op.kind);
        if op.kind == OpType::Ok
            && let Some(node) = op.node()
        {
            *self.tally.commits_per_node.entry(node.to_string()).or_default() += 1;
        }
    }

    /// Says that no operation still to come names `keys` (the online checker released them: every
    /// transaction naming one was written, and the workload's fence promises no later one names it), so
    /// the tally of keys counts them without remembering them.
    pub fn forget_keys(&mut self, keys: &[Key]) {
        for key in keys {
            if self.keys.remove(key) {
                self.released_keys += 1;
            }
        }
    }

    fn outcome(&mut self, f: &Function, kind: OpType) {
        match kind {
            OpType::Ok => self.tally.ok += 1,
            OpType::Fail => self.tally.fail += 1,
            _ => self.tally.info += 1,
        }
        *self.tally.operations.entry(f.to_string()).or_default().entry(kind.as_str().to_string()).or_default() += 1;
    }

    /// Writes `ops` (merged among themselves) after what was written, indexed on from there: what the
    /// final merge places after every operation merged so far (the final reads and the final
    /// transaction, timed after every client's last operation).
    pub fn append(&mut self, ops: Vec<Op>) {
        for mut op in ops {
            let index = self.tally.ops;
            op.index = index as u64;
            op.at = histories::Position::new(index as u32 + 1, 1);
            self.write(&op);
        }
    }

    /// Flushes the file and returns what it holds; the transactions never completed count as
    /// indeterminate.
    pub fn finish(mut self) -> std::io::Result<Streamed> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.out.flush()?;
        for f in std::mem::take(&mut self.in_flight).into_values() {
            self.outcome(&f, OpType::Info);
        }
        self.tally.keys = self.keys.len() + self.released_keys;
        self.tally.contention = self.contention.contention().cloned();
        Ok(Streamed { path: self.path, tally: self.tally })
    }
}

#[cfg(test)]
mod tests {
    use histories::{Mop, OpValue};

    use super::*;

    fn op(process: u64, kind: OpType, f: &str, key: i64, time: i64) -> Op {
        let value = OpValue::Txn(vec![Mop::Append { key: Key::Int(key), value: time }].into());
        Op::new(kind, Process::Client(process), Function::parse(f), value).with_time(time)
    }

    #[test]
    fn the_tally_is_the_whole_historys_and_the_file_is_what_write_jsonl_writes() {
        let mut ops = vec![
            op(0, OpType::Invoke, "txn", 1, 10),
            op(1, OpType::Invoke, "txn", 2, 20),
            op(0, OpType::Ok, "txn", 1, 30).with_node(Some("n1")),
            op(1, OpType::Fail, "txn", 2, 40),
            op(2, OpType::Invoke, "withdraw", 1, 50),
            op(3, OpType::Info, "txn", 3, 60),
        ];
        for (i, op) in ops.iter_mut().enumerate() {
            op.index = i as u64;
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("history.jsonl");
        let mut stream = HistoryStream::create(&path).expect("created");
        for op in &ops {
            stream.write(op);
        }
        let streamed = stream.finish().expect("written");
        let mut whole = Vec::new();
        histories::write_jsonl(&ops, &mut whole).expect("written");
        assert_eq!(std::fs::read(&path).expect("read"), whole);
        let history = histories::History::from_ops(ops).expect("well formed");
        let tally = &streamed.tally;
        assert_eq!((tally.ops, tally.txns, tally.ok, tally.fail, tally.info, tally.keys), (6, 4, 1, 1, 2, 3));
        assert_eq!(tally.txns, history.transactions().count());
        let operations: BTreeMap<String, BTreeMap<String, u64>> = [
            ("txn".to_string(), [("ok", 1), ("fail", 1), ("info", 1)].map(|(k, n)| (k.to_string(), n)).into()),
            ("withdraw".to_string(), [("info".to_string(), 1)].into()),
        ]
        .into();
        assert_eq!(tally.operations, operations);
        assert_eq!(tally.commits_per_node, [("n1".to_string(), 1)].into());
        assert_eq!(tally.nodes, ["n1".to_string()].into());
    }

    #[test]
    fn appended_operations_are_indexed_on_from_what_was_written_and_tallied() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("history.jsonl");
        let mut stream = HistoryStream::create(&path).expect("created");
        let mut first = op(0, OpType::Invoke, "txn", 1, 10);
        first.index = 0;
        stream.write(&first);
        let mut completed = op(0, OpType::Ok, "txn", 1, 20);
        completed.index = 1;
        stream.write(&completed);
        // Merged among themselves, indexed from 0: the stream renumbers them after what it wrote.
        let finals = vec![op(7, OpType::Invoke, "read", 1, 30), op(7, OpType::Ok, "read", 1, 40)];
        stream.append(finals.clone());
        let streamed = stream.finish().expect("written");
        let mut whole = vec![first, completed];
        whole.extend(finals);
        for (i, op) in whole.iter_mut().enumerate() {
            op.index = i as u64;
        }
        let mut expected = Vec::new();
        histories::write_jsonl(&whole, &mut expected).expect("written");
        assert_eq!(std::fs::read(&path).expect("read"), expected);
        assert_eq!((streamed.tally.ops, streamed.tally.txns, streamed.tally.ok), (4, 2, 2));
        assert_eq!(streamed.tally.operations["read"], [("ok".to_string(), 1)].into());
    }

    #[test]
    fn a_released_key_is_counted_once_and_no_longer_held() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut stream = HistoryStream::create(&dir.path().join("history.jsonl")).expect("created");
        for (i, key) in [1, 2, 1].into_iter().enumerate() {
            let mut invoke = op(i as u64, OpType::Invoke, "txn", key, i as i64);
            invoke.index = i as u64;
            stream.write(&invoke);
        }
        // Key 9 was never named: releasing it counts nothing.
        stream.forget_keys(&[Key::Int(1), Key::Int(9)]);
        assert_eq!((stream.keys.len(), stream.released_keys), (1, 1));
        stream.forget_keys(&[Key::Int(1)]);
        assert_eq!(stream.finish().expect("written").tally.keys, 2);
    }
}
