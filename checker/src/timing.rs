//! Timing findings: flags computed from when transactions ran, not from what they saw. They are not
//! isolation anomalies; each says a measurement looks like something that deserves a look, with the
//! figures behind it, what it could mean and what to run next.
//!
//! - `zero-abort-under-contention`: a run that claims snapshot isolation or stronger in which many pairs
//!   of committed transactions overlapped in time and conflicted, and nothing aborted. Under snapshot
//!   isolation two transactions that really run at once and write the same key cannot both commit (first
//!   committer wins); under serializability neither can two that each read what the other wrote (write
//!   skew; SSI aborts one, two-phase locking deadlocks). Either they never really ran at once (a lock
//!   serialized them, which the history's times cannot show), or the conflict detection never fires.
//! - `fully-serialized`: transactions that each held for a known time took as long as their holds laid
//!   end to end, as if one ran at a time: the overlap test's verdict `serialized`, or a run whose
//!   transactions hold inside.

use std::collections::BTreeSet;
use std::time::Duration;

use histories::{History, Key, Mop, OpType};
use serde_json::json;

use crate::result::Flag;
use crate::txn::Txns;

/// How many pairs of each kind a result keeps as examples.
const EXAMPLES: usize = 5;

/// How many contended pairs make "many".
pub const MANY_CONTENDED_PAIRS: usize = 10;

/// Pairs of committed transactions that overlapped in time and conflicted on a key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contention {
    /// Transactions in the history.
    pub txns: usize,
    /// Aborted transactions.
    pub aborted: usize,
    /// Overlapping committed pairs that wrote a key in common.
    pub write_write: usize,
    /// Overlapping committed pairs that each wrote a key the other read, without a key written by both
    /// (the shape of write skew).
    pub read_write: usize,
    /// A few of the write-write pairs (by transaction index), with a key both wrote.
    pub write_write_examples: Vec<(u64, u64, Key)>,
    /// A few of the read-write pairs, with a key one wrote and the other read.
    pub read_write_examples: Vec<(u64, u64, Key)>,
}

/// How strong a claim a run makes, as far as conflicts go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Claim {
    /// Weaker than snapshot isolation: conflicts may commit.
    Weak,
    /// Snapshot isolation (or repeatable read): write-write conflicts must abort.
    Snapshot,
    /// Serializable: write skew must abort too.
    Serializable,
}

fn claim(model: &str) -> Claim {
    if model.contains("serializable") {
        Claim::Serializable
    } else if model.contains("snapshot-isolation") || model == "repeatable-read" {
        Claim::Snapshot
    } else {
        Claim::Weak
    }
}

struct Span<'h> {
    index: u64,
    start: i64,
    end: i64,
    reads: BTreeSet<&'h Key>,
    writes: BTreeSet<&'h Key>,
}

/// Counts the contended pairs of a history. Transactions overlap when each was invoked before the other's
/// completion was recorded; without times the history's order stands in for them. Recorded times can only
/// widen a transaction's span (a client records its invocation before it begins and its completion after
/// the commit returns), so a pair counted here may not really have run at once: this is a flag that asks
/// for a look, never an anomaly, and its message says "by their recorded times".
pub fn contention(history: &History) -> Contention {
    let txns = Txns::new(history);
    let ops = history.ops();
    let time = |position: usize| ops.get(position).and_then(|op| op.time()).unwrap_or(position as i64);
    let mut spans: Vec<Span<'_>> = txns
        .ids()
        .filter(|&t| txns.outcome(t) == OpType::Ok)
        .map(|t| {
            let mut reads = BTreeSet::new();
            let mut writes = BTreeSet::new();
            for mop in txns.mops(t) {
                match mop {
                    Mop::Read { key, .. } => {
                        reads.insert(key);
                    }
                    Mop::PredicateRead { .. } => {}
                    other => {
                        if let Some(key) = other.key() {
                            writes.insert(key);
                        }
                    }
                }
            }
            let start = time(txns.invoke_position(t));
            let end = txns.completion_position(t).map_or(i64::MAX, time);
            Span { index: txns.index(t), start, end, reads, writes }
        })
        .filter(|s| !s.writes.is_empty())
        .collect();
    spans.sort_by_key(|s| s.start);
    let mut result = Contention {
        txns: txns.len(),
        aborted: txns.ids().filter(|&t| txns.outcome(t) == OpType::Fail).count(),
        ..Contention::default()
    };
    let mut active: Vec<usize> = Vec::new();
    for (i, span) in spans.iter().enumerate() {
        active.retain(|&a| spans[a].end > span.start);
        for &a in &active {
            let other = &spans[a];
            result.add_pair((other.index, &other.reads, &other.writes), (span.index, &span.reads, &span.writes));
        }
        active.push(i);
    }
    result
}

/// [`contention`] counted as a history is written, an operation at a time, for a run whose history is
/// streamed to disk and never held whole: the same counts (`contention_stream_counts_what_contention_counts`),
/// holding only the transactions in flight and the committed writers that may still overlap one. The
/// operations come in history order, which a run's merge keeps in time order, one transaction in flight
/// per process (as a client records them). The examples are the first pairs found in that order, which
/// may not be [`contention`]'s. A history that breaks that shape (a completion with no invocation, which
/// [`contention`] takes to have begun at the history's start, so that it overlaps every transaction
/// before it; or a second invocation on a process with one in flight) has no streamed count.
#[derive(Debug, Default)]
pub struct ContentionStream {
    /// By process, the transaction it has in flight: its invocation's position and start time.
    in_flight: rustc_hash::FxHashMap<histories::Process, (usize, i64)>,
    /// Committed transactions that wrote and completed, and may still overlap one in flight or to come.
    done: Vec<OwnedSpan>,
    counts: Contention,
    /// Whether the history broke the shape the count needs.
    broken: bool,
}

/// A committed writer, as [`ContentionStream`] keeps it: `order` is where the sweep of [`contention`]
/// places it among transactions that began at the same time (its invocation's position).
#[derive(Debug)]
struct OwnedSpan {
    order: usize,
    index: u64,
    start: i64,
    end: i64,
    reads: BTreeSet<Key>,
    writes: BTreeSet<Key>,
}

impl ContentionStream {
    /// Counts the operation at `position` in the history.
    pub fn push(&mut self, op: &histories::Op, position: usize) {
        if !op.is_client() || *op.f() == histories::Function::Init {
            return;
        }
        let time = op.time().unwrap_or(position as i64);
        if op.kind == OpType::Invoke {
            self.counts.txns += 1;
            self.broken |= self.in_flight.insert(op.process(), (position, time)).is_some();
            return;
        }
        let (order, start) = match self.in_flight.remove(&op.process()) {
            Some(begun) => begun,
            None => {
                self.counts.txns += 1;
                self.broken = true;
                (position, time)
            }
        };
        match op.kind {
            OpType::Fail => self.counts.aborted += 1,
            OpType::Ok => {
                let mut reads = BTreeSet::new();
                let mut writes = BTreeSet::new();
                for mop in op.mops() {
                    match mop {
                        Mop::Read { key, .. } => {
                            reads.insert(key.clone());
                        }
                        Mop::PredicateRead { .. } => {}
                        other => {
                            if let Some(key) = other.key() {
                                writes.insert(key.clone());
                            }
                        }
                    }
                }
                if !writes.is_empty() {
                    let span = OwnedSpan { order, index: op.index, start, end: time, reads, writes };
                    for other in &self.done {
                        self.counts.count(other, &span);
                    }
                    self.done.push(span);
                }
            }
            _ => {}
        }
        // What is done may still overlap a transaction in flight, or one still to come (which begins no
        // earlier than this operation's time): keep what ended at or after the earliest of those starts.
        let floor = self.in_flight.values().map(|&(_, start)| start).min().map_or(time, |s| s.min(time));
        self.done.retain(|span| span.end >= floor);
    }

    /// How many committed writers it holds: those that may still overlap a transaction in flight or to
    /// come.
    pub fn held(&self) -> usize {
        self.done.len()
    }

    /// The counts so far; `None` once the history broke the shape they need.
    pub fn contention(&self) -> Option<&Contention> {
        (!self.broken).then_some(&self.counts)
    }
}

impl Contention {
    /// Counts the pair `a`, `b` as the sweep of [`contention`] would: the one it meets first (by start,
    /// then invocation) must end after the other starts.
    fn count(&mut self, a: &OwnedSpan, b: &OwnedSpan) {
        let (met_first, met_second) = if (a.start, a.order) <= (b.start, b.order) { (a, b) } else { (b, a) };
        if met_first.end <= met_second.start {
            return;
        }
        self.add_pair((a.index, &a.reads, &a.writes), (b.index, &b.reads, &b.writes));
    }

    /// Counts two overlapping committed transactions, each as (index, keys read, keys written), if they
    /// conflicted: a key both wrote makes a write-write pair; else a key each wrote that the other read,
    /// a read-write one. The examples name the lower index first.
    fn add_pair<K: Ord + std::borrow::Borrow<Key>>(
        &mut self,
        a: (u64, &BTreeSet<K>, &BTreeSet<K>),
        b: (u64, &BTreeSet<K>, &BTreeSet<K>),
    ) {
        let ((first, first_reads, first_writes), (second, second_reads, second_writes)) =
            if a.0 < b.0 { (a, b) } else { (b, a) };
        if let Some(key) = first_writes.intersection(second_writes).next() {
            self.write_write += 1;
            if self.write_write_examples.len() < EXAMPLES {
                self.write_write_examples.push((first, second, key.borrow().clone()));
            }
        } else if let (Some(key), Some(_)) =
            (first_writes.intersection(second_reads).next(), second_writes.intersection(first_reads).next())
        {
            self.read_write += 1;
            if self.read_write_examples.len() < EXAMPLES {
                self.read_write_examples.push((first, second, key.borrow().clone()));
            }
        }
    }
}

/// The `zero-abort-under-contention` flag, if a history run under `model` (Elle's name of the model the
/// run claims) deserves it.
pub fn zero_abort_under_contention(history: &History, model: &str) -> Option<Flag> {
    if claim(model) == Claim::Weak {
        return None;
    }
    zero_abort_flag(&contention(history), model)
}

/// The `zero-abort-under-contention` flag, if a run under `model` with contention `c` deserves it.
pub fn zero_abort_flag(c: &Contention, model: &str) -> Option<Flag> {
    let claim = claim(model);
    if claim == Claim::Weak {
        return None;
    }
    let pairs = c.write_write + if claim == Claim::Serializable { c.read_write } else { 0 };
    if c.aborted > 0 || pairs < MANY_CONTENDED_PAIRS {
        return None;
    }
    let mut examples: Vec<(u64, u64, Key)> = c.write_write_examples.clone();
    let kinds = if claim == Claim::Serializable {
        examples.extend(c.read_write_examples.iter().cloned());
        format!("{} wrote a key in common, {} each wrote a key the other read", c.write_write, c.read_write)
    } else {
        format!(
            "each pair wrote a key in common; {} pairs that each wrote a key the other read do not count, as \
             {model} lets write skew commit",
            c.read_write
        )
    };
    examples.truncate(EXAMPLES);
    let example_text: Vec<String> = examples.iter().map(|(a, b, k)| format!("T{a} and T{b} on key {k}")).collect();
    let message = format!(
        "{pairs} pairs of committed transactions overlapped in time (by their recorded times) and conflicted on a \
         key ({kinds}), yet none of the {} transactions aborted (for example {}). Under {model}, transactions that really run at once and \
         conflict like this cannot all commit: one must abort or wait for the other. Either they never really ran \
         at once (a lock serializes them: no real concurrency), or conflict detection never fires. Next: run \
         `isocheck overlap` against the same system to see whether transactions overlap at all, and `isocheck run \
         --workload bank --hold 1ms` to see whether concurrent withdrawals are stopped.",
        c.txns,
        example_text.join(", "),
    );
    let figures = [
        ("model", json!(model)),
        ("contended_pairs", json!(pairs)),
        ("write_write_pairs", json!(c.write_write)),
        ("read_write_pairs", json!(c.read_write)),
        ("transactions", json!(c.txns)),
        ("aborted", json!(0)),
        ("threshold", json!(MANY_CONTENDED_PAIRS)),
        ("examples", json!(examples.iter().map(|(a, b, k)| json!([a, b, k])).collect::<Vec<_>>())),
    ];
    Some(Flag {
        name: "zero-abort-under-contention".into(),
        message,
        figures: figures.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    })
}

/// The overlap test's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlapVerdict {
    /// The holds ran at once: elapsed close to one hold.
    Concurrent,
    /// The holds ran one after another: elapsed close to clients × hold, or longer (a lock-based system
    /// retrying after back-off).
    Serialized,
    /// Between the two.
    Partial,
}

impl OverlapVerdict {
    /// `concurrent`, `serialized` or `partial`.
    pub fn name(self) -> &'static str {
        match self {
            OverlapVerdict::Concurrent => "concurrent",
            OverlapVerdict::Serialized => "serialized",
            OverlapVerdict::Partial => "partial",
        }
    }
}

/// Below this many holds' worth of elapsed time, the holds ran at once.
pub const CONCURRENT_BELOW: f64 = 1.5;
/// From this fraction of the holds laid end to end, they ran one at a time.
pub const SERIALIZED_FROM: f64 = 0.75;

/// The verdict for `holds` holds of `hold` each, by `clients` clients at once, that took `elapsed`:
/// concurrent below 1.5 holds, serialized from 75% of the holds end to end (no upper bound: back-off only
/// adds), partial between.
pub fn overlap_verdict(clients: usize, holds: u64, hold: Duration, elapsed: Duration) -> OverlapVerdict {
    let per_client = holds as f64 / clients.max(1) as f64;
    let ratio = elapsed.as_nanos() as f64 / hold.as_nanos().max(1) as f64;
    let serial = holds as f64;
    if clients > 1 && ratio >= (SERIALIZED_FROM * serial).max(CONCURRENT_BELOW * per_client) {
        OverlapVerdict::Serialized
    } else if ratio < CONCURRENT_BELOW * per_client.max(1.0) {
        OverlapVerdict::Concurrent
    } else {
        OverlapVerdict::Partial
    }
}

/// What a timing measurement saw: how many clients, how long each hold, how many holds, and how long
/// they spanned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HoldTiming {
    /// Clients running at once.
    pub clients: usize,
    /// Each transaction's hold.
    pub hold: Duration,
    /// How many transactions held.
    pub holds: u64,
    /// How long the holds spanned: the overlap test's elapsed time; in a run, how long at least one
    /// transaction was holding (so the work around the holds does not count).
    pub elapsed: Duration,
    /// In a run, which measures the holds themselves: whether no two holds overlapped at all (their
    /// union as long as their lengths added up). `None` for the overlap test, which measures the time
    /// around them and is judged by [`overlap_verdict`].
    pub disjoint: Option<bool>,
}

/// A run's holds are one at a time only when no two of them overlapped, and at least this many held.
/// Holds inside a lock held from begin to commit never overlap. Holds at once do, however busy the
/// machine: a busy machine makes each transaction's work around its hold longer, so holds overlap less
/// often (a share of the holds' time that once looked "as long as the holds laid end to end" under a
/// 75% threshold, a false flag under load), but among this many holds of several clients running at once
/// some overlap.
pub const MIN_DISJOINT_HOLDS: u64 = 20;

/// The `fully-serialized` flag, if the timing deserves it. `source` says what measured it (`overlap`,
/// `run`); `documented`, when the system serializes by design, says so in the message.
pub fn fully_serialized(timing: &HoldTiming, source: &str, documented: Option<&str>) -> Option<Flag> {
    let serialized = match timing.disjoint {
        Some(disjoint) => disjoint && timing.clients > 1 && timing.holds >= MIN_DISJOINT_HOLDS,
        None => {
            overlap_verdict(timing.clients, timing.holds, timing.hold, timing.elapsed) == OverlapVerdict::Serialized
        }
    };
    if !serialized {
        return None;
    }
    let ms = |d: Duration| (d.as_secs_f64() * 10_000.0).round() / 10.0;
    let hold = ms(timing.hold);
    let serial = hold * timing.holds as f64;
    let concurrent = serial / timing.clients as f64;
    let elapsed = ms(timing.elapsed);
    let concurrency = if elapsed > 0.0 { (serial / elapsed * 100.0).round() / 100.0 } else { 0.0 };
    let mut message = format!(
        "{} clients ran {} transactions that each held {hold} ms inside: run at once, that takes about {concurrent} ms; \
         they spanned {elapsed} ms, as long as the holds laid end to end ({serial} ms). The transactions ran one \
         at a time.",
        timing.clients, timing.holds,
    );
    match documented {
        Some(why) => message.push_str(&format!(" {why}")),
        None => message.push_str(
            " Either a lock held from begin to commit serializes them (no real concurrency, whatever the isolation \
             level claims), or the clients could not run at once. Next: compare with a system known to run \
             transactions at once (`isocheck overlap --db postgres`), and look for a global lock in the commit path.",
        ),
    }
    let figures = [
        ("source", json!(source)),
        ("clients", json!(timing.clients)),
        ("hold_ms", json!(hold)),
        ("holds", json!(timing.holds)),
        ("elapsed_ms", json!(elapsed)),
        ("expected_if_concurrent_ms", json!(concurrent)),
        ("holds_end_to_end_ms", json!(serial)),
        ("concurrency", json!(concurrency)),
        ("documented", json!(documented.is_some())),
    ];
    Some(Flag {
        name: "fully-serialized".into(),
        message,
        figures: figures.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use histories::{Format, parse};

    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_contention_stream_holds_only_what_may_still_overlap() {
        // Two processes, each transaction appending to one key: process 0's overlap process 1's, one at a
        // time on each, 2,000 in all: every pair of neighbours is contended, and the stream holds a few.
        let mut lines = Vec::new();
        for i in 0..1_000 {
            for p in 0..2 {
                let (v, t) = (2 * i + p, 4 * i + p);
                lines.push(format!(r#"{{"type":"invoke","process":{p},"value":[["append","x",{v}]],"time":{t}}}"#));
            }
            for p in 0..2 {
                let (v, t) = (2 * i + p, 4 * i + 2 + p);
                lines.push(format!(r#"{{"type":"ok","process":{p},"value":[["append","x",{v}]],"time":{t}}}"#));
            }
        }
        let history = parse(&lines.join("\n"), Format::JsonLines, "h.jsonl").expect("a history");
        let mut stream = ContentionStream::default();
        let mut most = 0;
        for (position, op) in history.ops().iter().enumerate() {
            stream.push(op, position);
            most = most.max(stream.held());
        }
        let whole = contention(&history);
        assert_eq!(whole.write_write, 1_000);
        assert_eq!(stream.contention().map(|c| c.write_write), Some(1_000));
        assert!(most <= 2, "held {most}");
    }

    #[test]
    fn overlap_verdicts_for_four_clients_holding_100_ms() {
        let verdict = |elapsed| overlap_verdict(4, 4, ms(100), ms(elapsed));
        assert_eq!(verdict(101), OverlapVerdict::Concurrent);
        assert_eq!(verdict(149), OverlapVerdict::Concurrent);
        assert_eq!(verdict(150), OverlapVerdict::Partial);
        assert_eq!(verdict(299), OverlapVerdict::Partial);
        assert_eq!(verdict(300), OverlapVerdict::Serialized);
        assert_eq!(verdict(401), OverlapVerdict::Serialized);
        assert_eq!(verdict(900), OverlapVerdict::Serialized, "back-off only makes it longer");
        assert_eq!(
            overlap_verdict(1, 1, ms(100), ms(101)),
            OverlapVerdict::Concurrent,
            "one client is never serialized"
        );
        assert_eq!(overlap_verdict(2, 2, ms(100), ms(149)), OverlapVerdict::Concurrent);
        assert_eq!(overlap_verdict(2, 2, ms(100), ms(150)), OverlapVerdict::Serialized, "two clients: no partial");
    }

    #[test]
    fn a_run_of_many_holds_is_judged_by_its_holds_end_to_end() {
        // 4 clients, 400 holds of 1 ms: about 100 ms at once, 400 ms one at a time.
        assert_eq!(overlap_verdict(4, 400, ms(1), ms(120)), OverlapVerdict::Concurrent);
        assert_eq!(overlap_verdict(4, 400, ms(1), ms(250)), OverlapVerdict::Partial);
        assert_eq!(overlap_verdict(4, 400, ms(1), ms(420)), OverlapVerdict::Serialized);
        let timing = HoldTiming { clients: 4, hold: ms(1), holds: 400, elapsed: ms(420), disjoint: None };
        let flag = fully_serialized(&timing, "run", None).unwrap();
        assert_eq!(flag.figures["holds_end_to_end_ms"], 400.0);
        assert_eq!(flag.figures["expected_if_concurrent_ms"], 100.0);
        assert_eq!(flag.figures["concurrency"], 0.95);
        assert!(
            flag.message.starts_with("4 clients ran 400 transactions that each held 1 ms inside"),
            "{}",
            flag.message
        );
        assert!(fully_serialized(&HoldTiming { elapsed: ms(120), ..timing }, "run", None).is_none());
    }

    #[test]
    fn a_runs_holds_are_one_at_a_time_only_when_none_overlapped() {
        // 400 holds that spanned 99% of their lengths: some overlapped, as holds at once on a busy machine do.
        let run = HoldTiming { clients: 4, hold: ms(1), holds: 400, elapsed: ms(396), disjoint: Some(false) };
        assert!(fully_serialized(&run, "run", None).is_none());
        let disjoint = HoldTiming { elapsed: ms(400), disjoint: Some(true), ..run };
        assert!(fully_serialized(&disjoint, "run", None).is_some());
        // Too few holds to tell, or one client: no flag.
        assert!(fully_serialized(&HoldTiming { holds: MIN_DISJOINT_HOLDS - 1, ..disjoint }, "run", None).is_none());
        assert!(fully_serialized(&HoldTiming { clients: 1, ..disjoint }, "run", None).is_none());
    }

    /// `n` pairs of overlapping committed transactions, each pair writing key `k` (ww) or each writing the
    /// key the other read (rw); `fail` adds an aborted one.
    fn pairs(n: usize, ww: bool, fail: bool) -> History {
        let mut lines = Vec::new();
        for i in 0..n {
            let (a, b) = (2 * i, 2 * i + 1);
            let (va, vb) = if ww {
                (format!(r#"[["w",{i},{a}]]"#), format!(r#"[["w",{i},{b}]]"#))
            } else {
                (format!(r#"[["r",{b},null],["w",{a},1]]"#), format!(r#"[["r",{a},null],["w",{b},1]]"#))
            };
            lines.push(format!(r#"{{"type":"invoke","process":0,"value":{va}}}"#));
            lines.push(format!(r#"{{"type":"invoke","process":1,"value":{vb}}}"#));
            lines.push(format!(r#"{{"type":"ok","process":0,"value":{va}}}"#));
            lines.push(format!(r#"{{"type":"ok","process":1,"value":{vb}}}"#));
        }
        if fail {
            lines.push(r#"{"type":"invoke","process":0,"value":[["w",0,999]]}"#.into());
            lines.push(r#"{"type":"fail","process":0,"value":[["w",0,999]]}"#.into());
        }
        parse(&lines.join("\n"), Format::JsonLines, "pairs.jsonl").unwrap()
    }

    #[test]
    fn overlapping_writers_of_one_key_are_counted_and_flagged_when_nothing_aborted() {
        let c = contention(&pairs(12, true, false));
        assert_eq!((c.write_write, c.read_write, c.aborted), (12, 0, 0));
        assert_eq!(c.write_write_examples[0], (2, 3, Key::Int(0)));
        assert!(c.read_write_examples.is_empty());
        let flag = zero_abort_under_contention(&pairs(12, true, false), "snapshot-isolation").unwrap();
        assert_eq!(flag.figures["contended_pairs"], 12);
        assert!(flag.message.contains("T2 and T3 on key 0"), "{}", flag.message);
        assert!(zero_abort_under_contention(&pairs(12, true, true), "serializable").is_none(), "one aborted");
        assert!(zero_abort_under_contention(&pairs(9, true, false), "serializable").is_none(), "not many");
        assert!(zero_abort_under_contention(&pairs(12, true, false), "read-committed").is_none(), "no claim");
    }

    #[test]
    fn write_skew_pairs_count_only_against_a_serializable_claim() {
        let h = pairs(12, false, false);
        let c = contention(&h);
        assert_eq!((c.write_write, c.read_write), (0, 12));
        assert!(zero_abort_under_contention(&h, "snapshot-isolation").is_none(), "SI lets write skew commit");
        assert!(zero_abort_under_contention(&h, "repeatable-read").is_none());
        assert!(zero_abort_under_contention(&h, "strict-serializable").is_some());
    }
}
