//! The weak levels' violations in words a person can check against the history: each read named with
//! its value and writer, each forced edge with the read and the reason that force it, and the cycle
//! they close, as Elle's explanations read. This module owns that wording; finding the violations is
//! `observations`' and `saturation`'s.

use std::collections::VecDeque;

use histories::{Mop, Observed};
use serde_json::json;

use super::observations::{BadRead, INIT, Node, Observations};
use super::saturation::{Edge, EdgeKind, Forced, Violation, WeakLevel, Why, causal_edges};
use crate::explain::{case, facts, mop_json};
use crate::graph::TxnId;
use crate::result::Case;
use crate::txn::Txns;

/// Each pattern's Plume label and its name in words.
pub(crate) const PATTERNS: &[(&str, &str, &str)] = &[
    ("thin-air-read", "TAP-a", "a thin-air read"),
    ("aborted-read", "TAP-b", "an aborted read"),
    ("future-read", "TAP-c", "a future read"),
    ("not-my-own-write", "TAP-d", "a read that missed the transaction's own write"),
    ("not-my-last-write", "TAP-e", "a read of the transaction's own overwritten write"),
    ("intermediate-read", "TAP-f", "an intermediate read"),
    ("cyclic-causal-order", "TAP-g", "a cycle in causal order"),
    ("non-monotonic-read-causal", "TAP-h", "a non-monotonic read (in causal order)"),
    ("non-monotonic-read-arbitration", "TAP-i", "a non-monotonic read (in arbitration order)"),
    ("non-repeatable-read", "TAP-j", "a non-repeatable read"),
    ("fractured-read-causal", "TAP-k", "a fractured read (in causal order)"),
    ("fractured-read-arbitration", "TAP-l", "a fractured read (in arbitration order)"),
    ("causal-conflict-arbitration", "TAP-m", "a causal conflict in arbitration order"),
    ("conflict-arbitration", "TAP-n", "a conflict in arbitration order"),
];

fn label(pattern: &str) -> (&'static str, &'static str) {
    match pattern {
        "incompatible-order" => ("", "list reads no order of whole transactions' appends explains"),
        "G1c" | "G1c-process" => ("", "a cycle of version order and causal order (Elle's G1c)"),
        _ => PATTERNS.iter().find(|(p, _, _)| *p == pattern).map_or(("", ""), |(_, tap, words)| (tap, words)),
    }
}

/// The name of the anomaly Elle reports for the same reads, where one exists.
fn elle_name(pattern: &str, cycle: &[Edge]) -> Option<&'static str> {
    match pattern {
        "thin-air-read" => Some("garbage-read"),
        "aborted-read" => Some("G1a"),
        "future-read" => Some("future-read"),
        "not-my-own-write" | "not-my-last-write" | "non-repeatable-read" => Some("internal"),
        "intermediate-read" => Some("G1b"),
        "cyclic-causal-order" if cycle.iter().any(|e| e.kind == EdgeKind::Session) => Some("G1c-process"),
        "cyclic-causal-order" => Some("G1c"),
        "incompatible-order" => Some("incompatible-order"),
        "G1c" => Some("G1c"),
        "G1c-process" => Some("G1c-process"),
        _ => None,
    }
}

/// Words for the observations: transaction names and reads.
pub(crate) struct Words<'a, 'h> {
    pub txns: &'a Txns<'h>,
    pub obs: &'a Observations<'h>,
}

impl Words<'_, '_> {
    fn name(&self, n: Node) -> String {
        if n == INIT { "the initial state".to_string() } else { self.txns.name(self.obs.txn[n as usize]) }
    }

    fn mop(&self, t: TxnId, mop: u32) -> &Mop {
        &self.txns.mops(t)[mop as usize]
    }

    /// `key "x" = 2`, as micro-op `mop` of `t` read it.
    fn read_text(&self, t: TxnId, mop: u32) -> String {
        match self.mop(t, mop) {
            Mop::Read { key, value } => {
                let v = match value {
                    Observed::Int(v) => v.to_string(),
                    Observed::Nil => "nil".to_string(),
                    Observed::List(l) => format!("{:?}", l.as_slice()),
                };
                format!("key {key} = {v}")
            }
            other => other.to_string(),
        }
    }

    /// `T4 read key "x" = 2 from T2`, for node `n`'s read number `i`.
    fn read_from(&self, n: Node, i: u32) -> String {
        let r = self.obs.reads[n as usize][i as usize];
        let t = self.obs.txn[n as usize];
        let from = if r.from == INIT { "the initial state".to_string() } else { self.name(r.from) };
        format!("{} read {} from {from}", self.name(n), self.read_text(t, r.mop))
    }

    /// `key "x" = 2`: the last value `writer` wrote to the key of `reader`'s read number `i`.
    fn wrote_text(&self, writer: Node, reader: Node, i: u32) -> String {
        let key = self.obs.keys[self.obs.reads[reader as usize][i as usize].key as usize];
        let value = self.txns.mops(self.obs.txn[writer as usize]).iter().rev().find_map(|m| match m {
            Mop::Write { key: k, value, .. } if k == key => Some(*value),
            _ => None,
        });
        match value {
            Some(v) => format!("key {key} = {v}"),
            None => format!("key {key}"),
        }
    }

    /// How T2 precedes T3 for a forced edge.
    fn how(&self, f: &Forced) -> String {
        match f.why {
            Why::EarlierRead(j) => format!("earlier, {}", self.read_from(f.reader, j)),
            Why::LaterRead(j) => self.read_from(f.reader, j),
            Why::Session => {
                let p = self.txns.invoke(self.obs.txn[f.reader as usize]).process();
                format!("process {p} ran {} before {}", self.name(f.from), self.name(f.reader))
            }
            Why::Causal => {
                let path = causal_path(self.obs, f.from, f.reader);
                let names: Vec<String> = path.iter().map(|&n| self.name(n)).collect();
                format!("{} precedes {} in causal order: {}", self.name(f.from), self.name(f.reader), names.join(" → "))
            }
        }
    }

    /// Why the edge's source precedes its target.
    fn edge(&self, e: &Edge) -> String {
        match e.kind {
            EdgeKind::Session if e.from == INIT => "the initial state precedes every transaction".to_string(),
            EdgeKind::Session => {
                let p = self.txns.invoke(self.obs.txn[e.to as usize]).process();
                format!("process {p} ran {} before {}", self.name(e.from), self.name(e.to))
            }
            EdgeKind::Read(i) => {
                let r = self.obs.reads[e.to as usize][i as usize];
                if r.from == e.from {
                    self.read_from(e.to, i)
                } else {
                    format!("{}, which shows {}'s append", self.read_from(e.to, i), self.name(e.from))
                }
            }
            EdgeKind::Version(k, true) => format!(
                "a read of key {} shows {}'s append before {}'s",
                self.obs.keys[k as usize],
                self.name(e.from),
                self.name(e.to)
            ),
            EdgeKind::Version(k, false) => format!(
                "{} committed its append to key {}, which no read shows, so it follows every append reads show, {}'s \
                 the last",
                self.name(e.to),
                self.obs.keys[k as usize],
                self.name(e.from)
            ),
            EdgeKind::Forced(f) => format!(
                "{}, and {} also wrote {}, yet {} saw {} ({}), so {}'s write must come first",
                self.read_from(f.reader, f.read),
                self.name(f.from),
                self.wrote_text(f.from, f.reader, f.read),
                self.name(f.reader),
                self.name(f.from),
                self.how(&f),
                self.name(f.from)
            ),
        }
    }

    /// A read no commit order explains.
    pub(crate) fn bad_read(&self, bad: &BadRead) -> Case {
        let (tap, words) = label(bad.pattern);
        let t = bad.reader;
        let me = self.txns.name(t);
        let read = self.read_text(t, bad.mop);
        let writer = bad.writer.map(|w| self.txns.name(w));
        let why = match (bad.pattern, &writer) {
            ("thin-air-read", _) => format!("{me} read {read}, which no transaction wrote"),
            ("aborted-read", Some(w)) => format!("{me} read {read}, which {w} wrote, but {w} aborted"),
            ("future-read", _) => format!("{me} read {read}, which it only wrote itself later"),
            ("not-my-own-write", Some(w)) => {
                format!("{me} read {read}, written by {w}, after writing the key itself")
            }
            ("not-my-own-write", None) => format!("{me} read {read} after writing the key itself"),
            ("not-my-last-write", _) => format!("{me} read {read}, its own write it had already overwritten"),
            ("incompatible-order", _) => format!(
                "{me} read {read}, which is not the appends of whole transactions in one order that every read of the \
                 key agrees with"
            ),
            ("intermediate-read", Some(w)) => {
                format!("{me} read {read}, which {w} wrote but then overwrote in the same transaction")
            }
            _ => format!("{me} read {read}"),
        };
        let mut ids = vec![t];
        ids.extend(bad.writer.filter(|&w| w != t));
        let key = self.mop(t, bad.mop).key();
        let mut facts =
            facts([("pattern", json!(bad.pattern)), ("tap", json!(tap)), ("mop", mop_json(self.mop(t, bad.mop)))]);
        if let Some(elle) = elle_name(bad.pattern, &[]) {
            facts.insert("elle".into(), json!(elle));
        }
        case(self.txns, &ids, key, facts, format!("{why}: {words}."))
    }

    /// Two reads of one key from different writers.
    pub(crate) fn non_repeatable(&self, n: Node, first: u32, second: u32) -> Case {
        let (tap, words) = label("non-repeatable-read");
        let r = &self.obs.reads[n as usize];
        let mut ids: Vec<TxnId> = vec![self.obs.txn[n as usize]];
        for from in [r[first as usize].from, r[second as usize].from] {
            if from != INIT {
                ids.push(self.obs.txn[from as usize]);
            }
        }
        let text = format!(
            "{}, and then {}, with no write of its own between: {words}. Under read atomic a transaction sees one \
             version of each key.",
            self.read_from(n, first),
            self.read_from(n, second).split_once(" read ").map_or(String::new(), |(_, rest)| rest.to_string())
        );
        let t = self.obs.txn[n as usize];
        let key = self.mop(t, r[first as usize].mop).key();
        let facts = facts([
            ("pattern", json!("non-repeatable-read")),
            ("tap", json!(tap)),
            ("elle", json!("internal")),
            ("level", json!(WeakLevel::ReadAtomic.model())),
        ]);
        case(self.txns, &ids, key, facts, text)
    }

    /// A level that fails, with its cycle.
    pub(crate) fn violation(&self, v: &Violation) -> Case {
        let (tap, words) = label(v.pattern);
        let mut members: Vec<Node> = Vec::new();
        for e in &v.cycle {
            if e.from != INIT && !members.contains(&e.from) {
                members.push(e.from);
            }
        }
        let forced: Vec<&Forced> = v
            .cycle
            .iter()
            .filter_map(|e| match &e.kind {
                EdgeKind::Forced(f) => Some(f),
                _ => None,
            })
            .collect();
        // The reader of a forced edge, and the transactions through which it saw the writer, are named
        // even when they are not on the cycle.
        for f in &forced {
            let path = if f.why == Why::Causal { causal_path(self.obs, f.from, f.reader) } else { vec![f.reader] };
            for n in path {
                if n != INIT && !members.contains(&n) {
                    members.push(n);
                }
            }
        }
        let lead = match forced.as_slice() {
            [] if v.pattern.starts_with("G1c") => {
                format!("Version order, session order and write-read form a cycle: {words}.")
            }
            [] => format!("Session order and write-read order form a cycle: {words}."),
            [f] if !v.cycle.iter().any(|e| matches!(e.kind, EdgeKind::Version(..))) => format!(
                "{}, but {} also wrote {}, and {} saw {} ({}); yet {} precedes {} in causal order: {words}.",
                self.read_from(f.reader, f.read),
                self.name(f.from),
                self.wrote_text(f.from, f.reader, f.read),
                self.name(f.reader),
                self.name(f.from),
                self.how(f),
                self.name(f.to),
                self.name(f.from)
            ),
            _ => format!(
                "The orders {}'s axiom forces between writers of the same key, with causal order, form a cycle: \
                 {words}.",
                v.level.model()
            ),
        };
        let mut text = format!("{lead}\nThen:\n");
        for (i, e) in v.cycle.iter().enumerate() {
            let sentence = self.edge(e);
            if i + 1 == v.cycle.len() {
                text.push_str(&format!(
                    "  - However, {} < {}, because {}: a contradiction!",
                    self.name(e.from),
                    self.name(e.to),
                    sentence
                ));
            } else {
                text.push_str(&format!("  - {} < {}, because {}.\n", self.name(e.from), self.name(e.to), sentence));
            }
        }
        let steps: Vec<serde_json::Value> = v
            .cycle
            .iter()
            .map(|e| {
                let index =
                    |n: Node| if n == INIT { json!(null) } else { json!(self.txns.index(self.obs.txn[n as usize])) };
                let kind = match e.kind {
                    EdgeKind::Session => "so",
                    EdgeKind::Read(_) => "wr",
                    EdgeKind::Forced(_) => "forced",
                    EdgeKind::Version(..) => "ww",
                };
                json!({"from": index(e.from), "to": index(e.to), "type": kind, "explanation": self.edge(e)})
            })
            .collect();
        let ids: Vec<TxnId> = members.iter().map(|&n| self.obs.txn[n as usize]).collect();
        let key = forced.first().map(|f| {
            let r = self.obs.reads[f.reader as usize][f.read as usize];
            self.obs.keys[r.key as usize]
        });
        let mut facts = facts([
            ("pattern", json!(v.pattern)),
            ("tap", json!(tap)),
            ("level", json!(v.level.model())),
            ("steps", json!(steps)),
        ]);
        if let Some(elle) = elle_name(v.pattern, &v.cycle) {
            facts.insert("elle".into(), json!(elle));
        }
        case(self.txns, &ids, key, facts, text)
    }
}

/// A shortest path from `from` to `to` in causal order (inclusive).
fn causal_path(obs: &Observations<'_>, from: Node, to: Node) -> Vec<Node> {
    let edges = causal_edges(obs);
    let mut out: Vec<Vec<Node>> = vec![Vec::new(); obs.len()];
    for e in &edges {
        out[e.from as usize].push(e.to);
    }
    let mut parent = vec![Node::MAX; obs.len()];
    parent[from as usize] = from;
    let mut queue = VecDeque::from([from]);
    while let Some(v) = queue.pop_front() {
        if v == to {
            break;
        }
        for &w in &out[v as usize] {
            if parent[w as usize] == Node::MAX {
                parent[w as usize] = v;
                queue.push_back(w);
            }
        }
    }
    if parent[to as usize] == Node::MAX {
        return vec![from, to];
    }
    let mut path = vec![to];
    let mut v = to;
    while v != from {
        v = parent[v as usize];
        path.push(v);
    }
    path.reverse();
    path
}
