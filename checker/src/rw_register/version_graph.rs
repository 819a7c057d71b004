//! A register's versions and its version graph: each value written or read of one key (`nil` first),
//! who wrote and read it, and the edges between versions with the source that gave each ([`Source`]).
//! The sources that give the edges (`versions`' inference, the recorded commit order's and write
//! versions' edges in `commit_edges` and `write_versions`) all build on these types; this module owns
//! the types and nothing that infers an edge.

use histories::{Key, Mop};
use rustc_hash::FxHashMap;

use crate::graph::TxnId;
use crate::item::NO_TXN;
use crate::txn::Txns;

/// Why one version precedes another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `nil` precedes every written value.
    InitialState,
    /// The database's recorded commit order places the first transaction before the second.
    CommitOrder(TxnId, TxnId),
    /// The database numbered the first transaction's write of the key below the second's.
    WriteVersion(TxnId, TxnId),
    /// This transaction read the earlier version and then wrote the later one.
    WfrKeys(TxnId),
    /// One process ran the first transaction, then the second.
    SequentialKeys(TxnId, TxnId),
    /// The first transaction completed before the second was invoked.
    LinearizableKeys(TxnId, TxnId),
}

impl Source {
    /// Why the source orders the two versions of `key`, in words.
    pub(crate) fn reason(self, txns: &Txns<'_>, key: &Key) -> String {
        match self {
            Source::InitialState => "nil, the initial state, precedes every written value".to_string(),
            Source::CommitOrder(a, b) => crate::commit_order::placed_before(txns, a, b),
            Source::WriteVersion(a, b) => {
                let number = |t: TxnId| {
                    let mops = txns.completion(t).map(|op| op.mops()).unwrap_or_default();
                    mops.iter()
                        .rev()
                        .find_map(|m| match m {
                            Mop::Write { key: k, version, .. } if k == key => Some(*version),
                            _ => None,
                        })
                        .flatten()
                        .map_or_else(String::new, |n| n.to_string())
                };
                format!(
                    "the database numbered {}'s write of key {key} version {} and {}'s version {}",
                    txns.name(a),
                    number(a),
                    txns.name(b),
                    number(b)
                )
            }
            Source::WfrKeys(t) => {
                format!(
                    "{} read the first and then wrote the second, and --wfr-keys assumes writes follow reads",
                    txns.name(t)
                )
            }
            Source::SequentialKeys(a, b) => format!(
                "process {} ran {} before {}, and --sequential-keys assumes each key is sequentially consistent",
                txns.invoke(a).process(),
                txns.name(a),
                txns.name(b)
            ),
            Source::LinearizableKeys(a, b) => format!(
                "{} completed before {} was invoked, and --linearizable-keys assumes each key is linearizable",
                txns.name(a),
                txns.name(b)
            ),
        }
    }

    /// The transactions behind the order.
    pub(crate) fn txns(self) -> Vec<TxnId> {
        match self {
            Source::InitialState => Vec::new(),
            Source::WfrKeys(t) => vec![t],
            Source::CommitOrder(a, b)
            | Source::WriteVersion(a, b)
            | Source::SequentialKeys(a, b)
            | Source::LinearizableKeys(a, b) => vec![a, b],
        }
    }
}

/// A version edge: from, to, and why.
pub(crate) type VersionEdge = (u32, u32, Source);

/// One key's versions: `nil` (id 0), then each value written or read, with who wrote and read it.
#[derive(Debug, Default)]
pub(crate) struct Versions {
    /// Each version's value; `values[0]` is `None`, the initial state.
    pub values: Vec<Option<i64>>,
    ids: FxHashMap<i64, u32>,
    /// Each version's external writer among `ok` and `info` transactions (`NO_TXN`: none).
    pub ext_writer: Vec<TxnId>,
    /// Each version's external readers among `ok` and `info` transactions, in transaction order:
    /// version `v`'s are `readers[reader_start[v]..reader_start[v + 1]]` (see [`Versions::readers`]), one
    /// table a key rather than a vector a version.
    reader_start: Vec<u32>,
    readers: Vec<TxnId>,
    /// The accepted version graph, sorted by (from, to), each edge with the first source that gave it.
    pub edges: Vec<VersionEdge>,
}

impl Versions {
    pub(super) fn new() -> Versions {
        Versions { values: vec![None], ext_writer: vec![NO_TXN], reader_start: vec![0, 0], ..Versions::default() }
    }

    /// The external readers of version `v`, in transaction order.
    pub fn readers(&self, v: u32) -> &[TxnId] {
        &self.readers[self.reader_start[v as usize] as usize..self.reader_start[v as usize + 1] as usize]
    }

    /// Sets the readers table from the reads `(version, reader)`, in transaction order. A counting sort of
    /// its own rather than `Buckets`, whose first step keeps a vector per bucket: built for millions of
    /// items over many keys, it would bring back the vector per version this table replaces.
    pub(super) fn set_readers(&mut self, reads: &[(u32, TxnId)]) {
        let mut start = vec![0u32; self.values.len() + 1];
        for &(v, _) in reads {
            start[v as usize + 1] += 1;
        }
        for v in 1..start.len() {
            start[v] += start[v - 1];
        }
        let mut readers = vec![NO_TXN; reads.len()];
        let mut next = start.clone();
        for &(v, t) in reads {
            readers[next[v as usize] as usize] = t;
            next[v as usize] += 1;
        }
        (self.reader_start, self.readers) = (start, readers);
    }

    /// The id of a value's version, created if new.
    pub(crate) fn node(&mut self, value: Option<i64>) -> u32 {
        let Some(v) = value else { return 0 };
        let next = self.values.len() as u32;
        let id = *self.ids.entry(v).or_insert(next);
        if id == next {
            self.values.push(value);
            self.ext_writer.push(NO_TXN);
            // Kept a valid (empty) table while versions are added; `set_readers` fills it.
            self.reader_start.push(0);
        }
        id
    }

    /// The id of a value's version, if it has one.
    pub(crate) fn id(&self, value: Option<i64>) -> Option<u32> {
        match value {
            None => Some(0),
            Some(v) => self.ids.get(&v).copied(),
        }
    }

    /// The accepted edge `from -> to`, if there is one.
    pub(crate) fn edge(&self, from: u32, to: u32) -> Option<Source> {
        let at = self.edges.binary_search_by(|e| (e.0, e.1).cmp(&(from, to))).ok()?;
        Some(self.edges[at].2)
    }

    /// Whether the accepted graph orders every version against every other: its topological order is
    /// unique.
    pub(crate) fn is_total(&self) -> bool {
        let n = self.values.len();
        let mut indegree = vec![0u32; n];
        for e in &self.edges {
            indegree[e.1 as usize] += 1;
        }
        let mut ready: Vec<u32> = (0..n as u32).filter(|&v| indegree[v as usize] == 0).collect();
        let mut done = 0;
        while let Some(v) = ready.pop() {
            if !ready.is_empty() {
                return false;
            }
            done += 1;
            let from = self.edges.partition_point(|e| e.0 < v);
            for e in self.edges[from..].iter().take_while(|e| e.0 == v) {
                indegree[e.1 as usize] -= 1;
                if indegree[e.1 as usize] == 0 {
                    ready.push(e.1);
                }
            }
        }
        done == n
    }
}
