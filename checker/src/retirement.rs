//! Retiring transactions from a list-append history checked while it grows, so that the online checker
//! holds a bounded part of it: the rule that decides which transactions can no longer take part in any
//! anomaly with a transaction still held or still to come, and the rewriting of what stays. It needs
//! *fences* from the workload: a key is retired when every transaction that will ever name it has been
//! invoked (the generators rotate a key out after `max_writes_per_key` writes, or once it has been active
//! `key_lifetime` transactions, and never name it again).
//! The history alone cannot tell that, so without fences nothing is retired. The rule and the argument
//! that it hides no anomaly are in docs/online-checking.md ("Bounded memory").
//!
//! In short: a transaction is a candidate when it completed and each of its keys is *closed* (retired,
//! and every held transaction naming it completed). Candidates are then dropped from the set, each one
//! that breaks a condition (not every candidate of a key that does), until no held transaction outside
//! it has a dependency into it: none precedes a member in its process or in
//! real time, none wrote what a member read, and on every shared key the members' appends are exactly
//! the same prefix of every outside read (so no outside read misses a member's append, and no outside
//! append comes before one). The set is retired: its transactions are dropped, and that common prefix
//! is cut from the outside reads, which leaves the dependencies among the outside transactions as they
//! were.

use std::collections::{BTreeMap, BTreeSet};

use histories::{History, Key, Mop, Observed, Op, OpType, OpValue};

use crate::kind::Kind;
use crate::options::Inference;

/// What one round retires from the held operations.
#[derive(Debug, Default)]
pub(crate) struct Retirement {
    /// The positions (in the held history) of the retired transactions' operations.
    pub drop: BTreeSet<usize>,
    /// The retired transactions, by their invocations' indices (as anomalies name them).
    pub txns: BTreeSet<u64>,
    /// Per shared key, how many elements to cut from the front of every read the held transactions keep.
    pub strip: BTreeMap<Key, usize>,
    /// Registers: the positions of the operations of the retired transactions kept as stand-ins, with
    /// the keys each keeps its last write of (every other micro-op is cut).
    pub trim: BTreeMap<usize, BTreeSet<Key>>,
    /// The retired transactions kept as stand-ins, by their invocations' indices (among `txns`).
    pub stand_ins: BTreeSet<u64>,
    /// Registers: the commit positions of the retired transactions dropped (not stand-ins).
    pub positions: Vec<i64>,
}

/// One held transaction, as the rule reads it.
struct Held {
    invoke_at: usize,
    completion_at: Option<usize>,
    invoke_index: u64,
    process: histories::Process,
    outcome: OpType,
    /// Whether the history left its invocation in doubt (a completion with no invoke of its own, or
    /// one of several invokes in flight).
    lenient: bool,
    /// Its position in the database's commit order, as its completion recorded it (registers only).
    position: Option<i64>,
    /// Per register key, the version number the database gave its last write of it, as an `ok`
    /// completion recorded it (only a committed transaction's number is evidence).
    numbers: BTreeMap<Key, i64>,
    /// Per key it names: its list appends or register writes, in order (empty for a key it only read).
    writes: BTreeMap<Key, Vec<i64>>,
    /// Per key: its list reads (from every op of it that holds one).
    reads: BTreeMap<Key, Vec<Vec<i64>>>,
    /// Per key: its register reads that may be observations (`None`: `null`, the initial state).
    register_reads: BTreeMap<Key, Vec<Option<i64>>>,
}

fn held_txns(history: &History) -> Vec<Held> {
    history
        .transactions()
        .map(|t| {
            let mut writes: BTreeMap<Key, Vec<i64>> = BTreeMap::new();
            let mut reads: BTreeMap<Key, Vec<Vec<i64>>> = BTreeMap::new();
            let mut register_reads: BTreeMap<Key, Vec<Option<i64>>> = BTreeMap::new();
            let mut numbers: BTreeMap<Key, i64> = BTreeMap::new();
            if let Some(c) = t.completion.filter(|c| c.kind == OpType::Ok) {
                for mop in c.held_mops() {
                    if let Mop::Write { key, version, .. } = mop {
                        // The last write's number, or none if the last carries none.
                        match version {
                            Some(v) => numbers.insert(key.clone(), v.get()),
                            None => numbers.remove(key),
                        };
                    }
                }
            }
            // `with_values`: the op whose writes count (the completion, or a pending invocation);
            // `completion`: the completion's outcome, whose register reads count; `nil_is_empty`: an `ok`
            // completion's `null` list read is the empty list; elsewhere unknown.
            let mut note = |mops: &[Mop], with_values: bool, completion: Option<OpType>, nil_is_empty: bool| {
                for mop in mops {
                    match mop {
                        Mop::Append { key, value } | Mop::Write { key, value, .. } if with_values => {
                            writes.entry(key.clone()).or_default().push(*value);
                        }
                        Mop::Append { key, .. } | Mop::Write { key, .. } => {
                            writes.entry(key.clone()).or_default();
                        }
                        Mop::Read { key, value } => {
                            let entry = reads.entry(key.clone()).or_default();
                            match value {
                                Observed::List(list) => entry.push(list.to_vec()),
                                Observed::Nil if nil_is_empty => entry.push(Vec::new()),
                                _ => {}
                            }
                            // A register read counts on an `ok` completion (`null`: the initial state)
                            // and, where it shows a value, on an `info` one (whose reads the checker
                            // takes as no observation: counting them only keeps more held). A failed
                            // transaction's reads constrain nothing.
                            if let Some(outcome) = completion {
                                let entry = register_reads.entry(key.clone()).or_default();
                                match (value, outcome) {
                                    (_, OpType::Fail) | (Observed::List(_), _) => {}
                                    (Observed::Int(v), _) => entry.push(Some(*v)),
                                    (Observed::Nil, OpType::Ok) => entry.push(None),
                                    (Observed::Nil, _) => {}
                                }
                            }
                        }
                        // Any other micro-op: neither workload; the caller retires nothing then.
                        _ => {}
                    }
                }
            };
            note(t.invoke.held_mops(), t.completion.is_none(), None, false);
            if let Some(c) = t.completion {
                note(c.held_mops(), true, Some(c.kind), c.kind == OpType::Ok);
            }
            // Every key named, written or read, is a key of the transaction.
            let keys: Vec<Key> = reads.keys().cloned().collect();
            for key in keys {
                writes.entry(key).or_default();
            }
            Held {
                invoke_at: t.invoke_at,
                completion_at: t.completion_at,
                invoke_index: t.invoke.index,
                process: t.invoke.process(),
                outcome: t.outcome(),
                lenient: t.invoked_after != Some(t.invoke_at),
                position: t.completion.and_then(histories::Op::commit_order),
                numbers,
                writes,
                reads,
                register_reads,
            }
        })
        .collect()
}

/// Whether every client micro-op of the history is a list append or a list (or nil) read.
fn list_append_only(history: &History) -> bool {
    history.ops().iter().filter(|op| op.is_client()).all(|op| {
        op.held_mops()
            .iter()
            .all(|m| matches!(m, Mop::Append { .. } | Mop::Read { value: Observed::List(_) | Observed::Nil, .. }))
    })
}

/// What orders the versions of a register history's keys besides `nil`, when every client micro-op is
/// a register write or a register (or nil) read: the database's commit positions where no write is
/// numbered, and the version numbers of its writes where no completion records a position. `None`
/// for any other history, and for one recording both (each source's edges are dropped where they
/// contradict the other's, so neither alone says what the whole history's order is).
pub(crate) fn register_order(history: &History) -> Option<RegisterOrder> {
    let (mut numbered, mut positioned) = (false, false);
    for op in history.ops().iter().filter(|op| op.is_client()) {
        positioned |= op.commit_order().is_some();
        for m in op.held_mops() {
            match m {
                Mop::Write { version, .. } => numbered |= version.is_some(),
                Mop::Read { value: Observed::Int(_) | Observed::Nil, .. } => {}
                _ => return None,
            }
        }
    }
    match (numbered, positioned) {
        (false, _) => Some(RegisterOrder::Positions),
        (true, false) => Some(RegisterOrder::Numbers),
        (true, true) => None,
    }
}

/// The evidence a register history's version order rests on besides `nil` (no assumption made).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RegisterOrder {
    /// The commit positions the database recorded (one order of every committed transaction).
    Positions,
    /// The version numbers the database gave each key's committed writes.
    Numbers,
}

/// Which workload's rule a round applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Lists,
    Registers(RegisterOrder),
}

/// The transactions of `history` (the held operations) that can be retired, given the keys `retired`
/// (every transaction naming one has been invoked), by the rule above.
/// `order` is the process or real-time order the options' models draw edges of (`None`: neither); only
/// its edges into the set are ruled out (the real-time order holds the process order's edges too).
/// `inference`: the options' assumptions about register version orders; the register rule applies only
/// when none is made (each would order versions by transactions the rule may retire).
pub(crate) fn retirable(
    history: &History,
    retired: &BTreeSet<Key>,
    order: Option<Kind>,
    inference: Inference,
) -> Retirement {
    if retired.is_empty() {
        return Retirement::default();
    }
    let rule = if list_append_only(history) {
        Rule::Lists
    } else if let Some(order) = register_order(history).filter(|_| !inference.any()) {
        Rule::Registers(order)
    } else {
        return Retirement::default();
    };
    let txns = held_txns(history);
    if rule == Rule::Registers(RegisterOrder::Positions) {
        // Two held transactions at one commit position: the whole history's check orders neither by it
        // (and says so), which retiring one of them would change for the other.
        let mut positions = BTreeSet::new();
        if txns.iter().filter_map(|t| t.position).any(|p| !positions.insert(p)) {
            return Retirement::default();
        }
    }
    // Where the history pairs completions with invocations leniently, which pairs it makes depends on
    // the operations around them: retiring a transaction while an earlier one of its process stays
    // could pair what stays differently. So then the process order is kept whatever the models.
    let keep_process_order = order.is_some() || txns.iter().any(|t| t.lenient);
    // Per key, the held transactions naming it.
    let mut by_key: BTreeMap<&Key, Vec<usize>> = BTreeMap::new();
    for (i, t) in txns.iter().enumerate() {
        for key in t.writes.keys() {
            by_key.entry(key).or_default().push(i);
        }
    }
    let closed: BTreeSet<&Key> = by_key
        .iter()
        .filter(|(key, named)| retired.contains(**key) && named.iter().all(|&i| txns[i].completion_at.is_some()))
        .map(|(key, _)| *key)
        .collect();
    let member: Vec<bool> =
        txns.iter().map(|t| t.completion_at.is_some() && t.writes.keys().all(|k| closed.contains(k))).collect();
    // Shrink to the greatest set with no dependency into it from a held transaction outside it: each
    // transaction leaves the set at most once, and its leaving is propagated to its keys and to the
    // process and real-time orders, so a round stays about linear in what is held.
    let mut shrink = Shrink::new(&txns, member, keep_process_order, order == Some(Kind::Realtime), rule);
    shrink.settle(&by_key);
    let member = shrink.member;
    let mut out = Retirement::default();
    // Registers: per member kept as a stand-in, the keys whose last version it wrote and an outside
    // transaction read.
    let mut stand_ins: BTreeMap<usize, BTreeSet<Key>> = BTreeMap::new();
    if matches!(rule, Rule::Registers(_)) {
        for (key, named) in &by_key {
            if let Some(w) = register_stand_in(key, named, &txns, &member) {
                stand_ins.entry(w).or_default().insert((*key).clone());
            }
        }
    }
    for (i, t) in txns.iter().enumerate() {
        if member[i] {
            out.txns.insert(t.invoke_index);
            let at = std::iter::once(t.invoke_at).chain(t.completion_at);
            match stand_ins.get(&i) {
                Some(keys) => {
                    out.stand_ins.insert(t.invoke_index);
                    for position in at {
                        out.trim.insert(position, keys.clone());
                    }
                }
                None => {
                    out.drop.extend(at);
                    if rule == Rule::Registers(RegisterOrder::Positions) {
                        out.positions.extend(t.position);
                    }
                }
            }
        }
    }
    if rule == Rule::Lists {
        for (key, named) in &by_key {
            let outside = named.iter().any(|&i| !member[i]);
            let n: usize = named
                .iter()
                .filter(|&&i| member[i] && txns[i].outcome != OpType::Fail)
                .map(|&i| txns[i].writes.get(*key).map_or(0, Vec::len))
                .sum();
            if outside && n > 0 {
                out.strip.insert((*key).clone(), n);
            }
        }
    }
    out
}

/// The shrinking of the candidates to the set no held transaction outside it has a dependency into.
struct Shrink<'t> {
    txns: &'t [Held],
    /// Whether each held transaction is (still) in the set.
    member: Vec<bool>,
    /// Transactions that left the set and whose leaving is not yet propagated.
    left: Vec<usize>,
    /// Process order (where it is kept): per process, its transactions by invocation, bounded by the
    /// least invocation of an outside one, and by completion, bounded by the least completion of an
    /// outside one. Both orders a process may be read in (by invocation; Elle's, by completion) are
    /// kept out of the set; they differ only where a process had two transactions in flight at once.
    by_process: BTreeMap<histories::Process, (Frontier, Frontier)>,
    /// Real-time order (where it is kept): every transaction by invocation, bounded by the least
    /// completion of an outside one.
    by_invoke: Option<Frontier>,
    /// Which workload's condition on a shared key applies.
    rule: Rule,
}

impl<'t> Shrink<'t> {
    fn new(txns: &'t [Held], member: Vec<bool>, process_order: bool, realtime: bool, rule: Rule) -> Shrink<'t> {
        let mut by_process: BTreeMap<histories::Process, Vec<usize>> = BTreeMap::new();
        if process_order {
            for (i, t) in txns.iter().enumerate() {
                by_process.entry(t.process).or_default().push(i);
            }
        }
        let by_process = by_process
            .into_iter()
            .map(|(process, list)| {
                let by_completion = Frontier::new(list.clone(), |i| completed_at(&txns[i]));
                (process, (Frontier::new(list, |i| txns[i].invoke_at), by_completion))
            })
            .collect();
        let by_invoke = realtime.then(|| Frontier::new((0..txns.len()).collect(), |i| txns[i].invoke_at));
        let left = (0..txns.len()).filter(|&i| !member[i]).collect();
        Shrink { txns, member, left, by_process, by_invoke, rule }
    }

    fn expel(&mut self, i: usize) {
        if self.member[i] {
            self.member[i] = false;
            self.left.push(i);
        }
    }

    /// Propagates the leaving of every transaction outside until the set settles: the process and
    /// real-time conditions, then each key a leaver names, again and again.
    fn settle(&mut self, by_key: &BTreeMap<&Key, Vec<usize>>) {
        // At first every key with a member is looked at, as its outside transactions are new.
        let mut dirty: BTreeSet<&Key> = by_key.keys().copied().collect();
        loop {
            while let Some(i) = self.left.pop() {
                self.order_after(i);
                dirty.extend(self.txns[i].writes.keys().filter_map(|k| by_key.get_key_value(k).map(|(k, _)| *k)));
            }
            let Some(key) = dirty.pop_first() else { break };
            let expels = match self.rule {
                Rule::Lists => key_expels(key, &by_key[key], self.txns, &self.member),
                Rule::Registers(order) => register_key_expels(key, &by_key[key], self.txns, &self.member, order),
            };
            for i in expels {
                self.expel(i);
            }
        }
    }

    /// `i` is outside: the members of its process invoked after it or completed after it, and (real
    /// time) every member invoked after it completed, leave.
    fn order_after(&mut self, i: usize) {
        let txns = self.txns;
        let t = &txns[i];
        let mut leave = Vec::new();
        if let Some((by_invocation, by_completion)) = self.by_process.get_mut(&t.process) {
            by_invocation.lower(t.invoke_at, |j| txns[j].invoke_at, &mut leave);
            if let Some(c) = t.completion_at {
                by_completion.lower(c, |j| completed_at(&txns[j]), &mut leave);
            }
        }
        if let (Some(by_invoke), Some(c)) = (self.by_invoke.as_mut(), t.completion_at) {
            by_invoke.lower(c, |j| txns[j].invoke_at, &mut leave);
        }
        for j in leave {
            self.expel(j);
        }
    }
}

/// Where a transaction completed in the held history; a pending one after everything.
fn completed_at(t: &Held) -> usize {
    t.completion_at.unwrap_or(usize::MAX)
}

/// Transactions sorted by one instant of theirs, with a bound that outside transactions lower: those
/// whose instant is past it may no longer be members (an order edge runs into them from outside).
/// `kept` counts the transactions, from the first, not yet found past it.
struct Frontier {
    list: Vec<usize>,
    least: usize,
    kept: usize,
}

impl Frontier {
    fn new(mut list: Vec<usize>, at: impl Fn(usize) -> usize) -> Frontier {
        list.sort_by_key(|&i| at(i));
        let kept = list.len();
        Frontier { list, least: usize::MAX, kept }
    }

    /// Lowers the bound to `bound`, if it is below it, and adds the transactions now past it to `leave`.
    fn lower(&mut self, bound: usize, at: impl Fn(usize) -> usize, leave: &mut Vec<usize>) {
        self.least = self.least.min(bound);
        while self.kept > 0 && at(self.list[self.kept - 1]) > self.least {
            leave.push(self.list[self.kept - 1]);
            self.kept -= 1;
        }
    }
}

/// The members naming `key` that must leave the set for no dependency on `key` to run from an
/// outside transaction into it: with every outside transaction naming `key` read or written, the members
/// that stay must have appended exactly the elements of one list P that every outside read begins
/// with (those that took effect or may have), show no outside append in their reads, and appear
/// nowhere after P; with no outside read, every append of theirs that may have taken effect must be
/// shown by a member's read. Each member that breaks this leaves (and the caller looks at the key again,
/// as P may then be shorter); an element both sides appended sends every member away.
fn key_expels(key: &Key, named: &[usize], txns: &[Held], member: &[bool]) -> Vec<usize> {
    let (members, outside): (Vec<usize>, Vec<usize>) = named.iter().copied().partition(|&i| member[i]);
    if members.is_empty() || outside.is_empty() {
        return Vec::new();
    }
    let writes_of = |i: usize| txns[i].writes.get(key).map_or(&[][..], Vec::as_slice);
    let reads_of = |i: usize| txns[i].reads.get(key).map_or(&[][..], Vec::as_slice);
    let effective = |i: usize| txns[i].outcome != OpType::Fail;
    // Each member append's writer, and which of them took effect (or may have).
    let mut writer: BTreeMap<i64, usize> = BTreeMap::new();
    for &i in &members {
        for &v in writes_of(i) {
            writer.insert(v, i);
        }
    }
    let outside_appends: BTreeSet<i64> = outside.iter().flat_map(|&i| writes_of(i).iter().copied()).collect();
    // An element both sides appended: which writer a read shows is in doubt.
    if outside_appends.iter().any(|v| writer.contains_key(v)) {
        return members;
    }
    let mut leave: BTreeSet<usize> = BTreeSet::new();
    // A member that read an outside append: a write-read dependency into the set.
    for &i in &members {
        if reads_of(i).iter().flatten().any(|v| outside_appends.contains(v)) {
            leave.insert(i);
        }
    }
    let outside_reads: Vec<&Vec<i64>> = outside.iter().flat_map(|&i| reads_of(i)).collect();
    match outside_reads.split_first() {
        Some((first, rest)) => {
            // P: the longest prefix common to every outside read whose elements are distinct member
            // appends that took effect or may have.
            let common = rest
                .iter()
                .fold(first.len(), |n, r| n.min(r.iter().zip(first.iter()).take_while(|(a, b)| a == b).count()));
            let mut in_p: BTreeSet<i64> = BTreeSet::new();
            for &v in &first[..common] {
                if !writer.get(&v).is_some_and(|&w| effective(w)) || !in_p.insert(v) {
                    break;
                }
            }
            // A member whose effective append is not in P (an outside read misses it, or an outside
            // element comes before it), or whose append an outside read shows after P, leaves.
            for &i in &members {
                if effective(i) && writes_of(i).iter().any(|v| !in_p.contains(v)) {
                    leave.insert(i);
                }
            }
            for r in &outside_reads {
                for v in &r[in_p.len().min(r.len())..] {
                    if let Some(&w) = writer.get(v) {
                        leave.insert(w);
                    }
                }
            }
        }
        None => {
            // No outside read: each effective member append must be shown by a member's read, so that the
            // outside appends, which none shows, come after all of them.
            let shown: BTreeSet<i64> = members.iter().flat_map(|&i| reads_of(i)).flatten().copied().collect();
            for &i in &members {
                if effective(i) && writes_of(i).iter().any(|v| !shown.contains(v)) {
                    leave.insert(i);
                }
            }
        }
    }
    leave.into_iter().collect()
}

/// The members naming register `key` that must leave the set for no dependency on `key` to run from
/// an outside transaction into it. The version order of a register is what the history proves, and
/// the rule leans on the database's recorded commit order (each key's versions in its writers' order)
/// or, by `order`, on the version numbers it gave each key's committed writes (the same per key): every
/// member write that took effect (or may have) needs a position (a number), before every outside write's
/// that may have; no member reads an outside write; every outside read shows an outside write or the
/// last member version (the member write at the greatest position, its writer's last of the key), never
/// `null` (before every member write) nor an earlier member version. Each member that breaks this
/// leaves (and the caller looks at the key again); a value written twice sends every member away.
fn register_key_expels(key: &Key, named: &[usize], txns: &[Held], member: &[bool], order: RegisterOrder) -> Vec<usize> {
    let (members, outside): (Vec<usize>, Vec<usize>) = named.iter().copied().partition(|&i| member[i]);
    if members.is_empty() || outside.is_empty() {
        return Vec::new();
    }
    let writes_of = |i: usize| txns[i].writes.get(key).map_or(&[][..], Vec::as_slice);
    let reads_of = |i: usize| txns[i].register_reads.get(key).map_or(&[][..], Vec::as_slice);
    let effective = |i: usize| txns[i].outcome != OpType::Fail;
    // Where each transaction's write of the key stands in the order the rule leans on.
    let position = |i: usize| match order {
        RegisterOrder::Positions => txns[i].position,
        RegisterOrder::Numbers => txns[i].numbers.get(key).copied(),
    };
    // Each value's writer, and whether it is that writer's last write of the key (its external one).
    let mut writer: BTreeMap<i64, (usize, bool)> = BTreeMap::new();
    for &i in named {
        let writes = writes_of(i);
        for (n, &v) in writes.iter().enumerate() {
            if writer.insert(v, (i, n + 1 == writes.len())).is_some() {
                return members;
            }
        }
    }
    let mut leave: BTreeSet<usize> = BTreeSet::new();
    // A member that read an outside write: a write-read dependency into the set.
    for &i in &members {
        if reads_of(i).iter().flatten().any(|v| writer.get(v).is_some_and(|&(w, _)| !member[w])) {
            leave.insert(i);
        }
    }
    // The member writes that took effect or may have: each needs a position before every outside
    // write's that may have taken effect (an outside one with none may come anywhere).
    let member_writers: Vec<usize> =
        members.iter().copied().filter(|&i| effective(i) && !writes_of(i).is_empty()).collect();
    let outside_writers = outside.iter().copied().filter(|&i| effective(i) && !writes_of(i).is_empty());
    let mut bound: Option<i64> = None;
    for i in outside_writers {
        let p = position(i).unwrap_or(i64::MIN);
        bound = Some(bound.map_or(p, |b| b.min(p)));
    }
    for &i in &member_writers {
        match position(i) {
            Some(p) if bound.is_none_or(|b| p < b) => {}
            _ => {
                leave.insert(i);
            }
        }
    }
    // Every outside read shows an outside write or the last member version.
    for &o in &outside {
        for read in reads_of(o) {
            match read {
                // `null` precedes every member write: the reader anti-depends on the first.
                None => leave.extend(member_writers.iter().copied()),
                Some(v) => {
                    let Some(&(w, last)) = writer.get(v) else { continue };
                    if !member[w] {
                        continue;
                    }
                    if !effective(w) || !last {
                        leave.insert(w);
                    }
                    match position(w) {
                        Some(p) => {
                            // Every member version after the one read: the reader anti-depends on it.
                            for &i in &member_writers {
                                if position(i).is_none_or(|q| q > p) {
                                    leave.insert(i);
                                }
                            }
                            // A read of a version the commit order places after the reader, or
                            // one the reader then overwrote with a version numbered no later
                            // (`incompatible-order`): kept whole, not stood in for.
                            if position(o).is_some_and(|q| q < p || (order == RegisterOrder::Numbers && q == p)) {
                                leave.insert(w);
                            }
                        }
                        None => {
                            leave.insert(w);
                        }
                    }
                }
            }
        }
    }
    leave.into_iter().collect()
}

/// The member kept as a stand-in for register `key`: the one whose write an outside read shows, by the
/// rule the last member version, so that what stays still reads it from its writer (its other
/// micro-ops are cut). `None` when no outside read shows a member write.
fn register_stand_in(key: &Key, named: &[usize], txns: &[Held], member: &[bool]) -> Option<usize> {
    let shown: BTreeSet<i64> = named
        .iter()
        .filter(|&&i| !member[i])
        .flat_map(|&i| txns[i].register_reads.get(key).into_iter().flatten().flatten().copied())
        .collect();
    named
        .iter()
        .copied()
        .find(|&i| member[i] && txns[i].writes.get(key).and_then(|w| w.last()).is_some_and(|v| shown.contains(v)))
}

/// The held operations once `retirement` is applied: its transactions' operations dropped, and each
/// shared key's common prefix cut from the reads that stay.
pub(crate) fn apply(ops: Vec<Op>, retirement: &Retirement) -> Vec<Op> {
    ops.into_iter()
        .enumerate()
        .filter(|(position, _)| !retirement.drop.contains(position))
        .map(|(position, mut op)| {
            if let Some(keys) = retirement.trim.get(&position) {
                op.value = OpValue::Txn(stand_in_mops(op.held_mops(), keys).into());
                return op;
            }
            if retirement.strip.is_empty() || !op.is_client() {
                return op;
            }
            let mops = op.held_mops();
            if !mops
                .iter()
                .any(|m| matches!(m, Mop::Read { key, value: Observed::List(_) } if retirement.strip.contains_key(key)))
            {
                return op;
            }
            let rewritten: Vec<Mop> = mops
                .iter()
                .map(|m| match m {
                    Mop::Read { key, value: Observed::List(list) } => match retirement.strip.get(key) {
                        Some(&n) => Mop::Read {
                            key: key.clone(),
                            value: Observed::List(list.iter().skip(n).copied().collect::<Vec<i64>>().into()),
                        },
                        None => m.clone(),
                    },
                    other => other.clone(),
                })
                .collect();
            op.value = OpValue::Txn(rewritten.into());
            op
        })
        .collect()
}

/// A stand-in's micro-ops: its last write of each of `keys`, in their order.
fn stand_in_mops(mops: &[Mop], keys: &BTreeSet<Key>) -> Vec<Mop> {
    mops.iter()
        .enumerate()
        .filter(|(n, m)| match m {
            Mop::Write { key, .. } if keys.contains(key) => {
                !mops[n + 1..].iter().any(|later| matches!(later, Mop::Write { key: k, .. } if k == key))
            }
            _ => false,
        })
        .map(|(_, m)| m.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use histories::{Format, parse};

    /// T0 and T1 append 1 and 2 to x, T3 reads x = [1, 2]; T2 reads x = `seen` and appends to y, a key
    /// still active, so T2 stays held. x is retired.
    fn retirable_with_t2_seeing(seen: &str) -> (Retirement, Key) {
        let lines = [
            r#"{"type":"invoke","process":0,"value":[["append","x",1]]}"#.to_string(),
            r#"{"type":"ok","process":0,"value":[["append","x",1]]}"#.to_string(),
            r#"{"type":"invoke","process":1,"value":[["append","x",2]]}"#.to_string(),
            r#"{"type":"ok","process":1,"value":[["append","x",2]]}"#.to_string(),
            r#"{"type":"invoke","process":2,"value":[["r","x",null],["append","y",1]]}"#.to_string(),
            format!(r#"{{"type":"ok","process":2,"value":[["r","x",{seen}],["append","y",1]]}}"#),
            r#"{"type":"invoke","process":3,"value":[["r","x",null]]}"#.to_string(),
            r#"{"type":"ok","process":3,"value":[["r","x",[1,2]]]}"#.to_string(),
        ];
        let history = parse(&lines.join("\n"), Format::JsonLines, "h.jsonl").expect("a history");
        let x = match history.ops()[0].held_mops() {
            [Mop::Append { key, .. }] => key.clone(),
            other => panic!("{other:?}"),
        };
        (retirable(&history, &BTreeSet::from([x.clone()]), None, Inference::default()), x)
    }

    #[test]
    fn a_member_whose_process_completed_an_outside_transaction_before_it_stays() {
        // Process 0 has two transactions in flight at once (which only a lenient reading takes, each
        // completion paired with the invocation of its own micro-ops): T0 writes x, T1 (invoked
        // after it) writes y, a key still active, and completes first. Elle's process order runs by
        // completion, T1 before T0: an edge into T0 from a transaction that stays, so T0 stays too. With
        // T0 completing first, the only process edge runs from T0 to T1, and T0 retires.
        let retired = |lines: &[&str]| {
            let history = parse(&lines.join("\n"), Format::JsonLines, "h.jsonl").expect("a history");
            let x = Key::Str("x".into());
            retirable(&history, &BTreeSet::from([x]), Some(Kind::Process), Inference::default()).txns
        };
        let t1_first = [
            r#"{"type":"invoke","process":0,"value":[["append","x",1]]}"#,
            r#"{"type":"invoke","process":0,"value":[["append","y",1]]}"#,
            r#"{"type":"ok","process":0,"value":[["append","y",1]]}"#,
            r#"{"type":"ok","process":0,"value":[["append","x",1]]}"#,
        ];
        assert_eq!(retired(&t1_first), BTreeSet::new());
        let t0_first = [t1_first[0], t1_first[1], t1_first[3], t1_first[2]];
        assert_eq!(retired(&t0_first), BTreeSet::from([0]));
    }

    #[test]
    fn a_stale_outside_read_keeps_only_the_members_after_what_it_saw() {
        // T2 saw [1]: T1's append (after what T2 saw: T2 anti-depends on T1) and T3 (which read it) stay;
        // T0 leaves, and its element is cut from the reads that stay.
        let (retirement, x) = retirable_with_t2_seeing("[1]");
        assert_eq!(retirement.txns, BTreeSet::from([0]));
        assert_eq!(retirement.strip, BTreeMap::from([(x, 1)]));
        assert_eq!(retirement.drop, BTreeSet::from([0, 1]));
        // T2 saw nothing: it anti-depends on T0 too, and nothing leaves.
        let (retirement, _) = retirable_with_t2_seeing("[]");
        assert!(retirement.txns.is_empty(), "{:?}", retirement.txns);
        // T2 saw both: every transaction of x but T2 leaves.
        let (retirement, x) = retirable_with_t2_seeing("[1,2]");
        assert_eq!(retirement.txns, BTreeSet::from([0, 2, 6]));
        assert_eq!(retirement.strip, BTreeMap::from([(x, 2)]));
    }

    /// T0 writes x = 1 (commit position 1), T1 writes x = 3 then x = 2 (position 2), T3 reads x = 2
    /// (position 4); T2 reads x = `seen` and writes y, a key still active, so T2 stays held. x is retired.
    fn register_retirable_with_t2_seeing(seen: &str) -> (Retirement, History) {
        let lines = [
            r#"{"type":"invoke","process":0,"value":[["w","x",1]]}"#.to_string(),
            r#"{"type":"ok","process":0,"value":[["w","x",1]],"commit_order":1}"#.to_string(),
            r#"{"type":"invoke","process":1,"value":[["w","x",3],["w","x",2]]}"#.to_string(),
            r#"{"type":"ok","process":1,"value":[["w","x",3],["w","x",2]],"commit_order":2}"#.to_string(),
            r#"{"type":"invoke","process":2,"value":[["r","x",null],["w","y",1]]}"#.to_string(),
            format!(r#"{{"type":"ok","process":2,"value":[["r","x",{seen}],["w","y",1]],"commit_order":3}}"#),
            r#"{"type":"invoke","process":3,"value":[["r","x",null]]}"#.to_string(),
            r#"{"type":"ok","process":3,"value":[["r","x",2]],"commit_order":4}"#.to_string(),
        ];
        let history = parse(&lines.join("\n"), Format::JsonLines, "h.jsonl").expect("a history");
        let x = match history.ops()[0].held_mops() {
            [Mop::Write { key, .. }] => key.clone(),
            other => panic!("{other:?}"),
        };
        (retirable(&history, &BTreeSet::from([x]), None, Inference::default()), history)
    }

    #[test]
    fn an_outside_register_read_keeps_the_later_writers_and_its_version_s_writer_stands_in() {
        // T2 saw T0's x = 1: T1's later version stays (T2 anti-depends on it), and with it T3, which
        // read it; T0 is retired but stands in for its version, which T2 still reads.
        let (retirement, _) = register_retirable_with_t2_seeing("1");
        assert_eq!(retirement.txns, BTreeSet::from([0]));
        assert_eq!(retirement.stand_ins, BTreeSet::from([0]));
        assert!(retirement.drop.is_empty(), "{:?}", retirement.drop);
        assert_eq!(retirement.trim.keys().copied().collect::<Vec<_>>(), [0, 1]);
        // T2 saw the last version, T1's x = 2: T0, T1 and T3 are retired, T1 standing in with its last
        // write of x only.
        let (retirement, history_2) = register_retirable_with_t2_seeing("2");
        assert_eq!(retirement.txns, BTreeSet::from([0, 2, 6]));
        assert_eq!(retirement.stand_ins, BTreeSet::from([2]));
        assert_eq!(retirement.drop, BTreeSet::from([0, 1, 6, 7]));
        let kept = apply(history_2.ops().to_vec(), &retirement);
        assert_eq!(kept.len(), 4);
        assert!(matches!(kept[1].held_mops(), [Mop::Write { value: 2, .. }]), "{:?}", kept[1].held_mops());
        // T2 saw x's initial state, before every version: nothing is retired (T3 read T1's version,
        // which stays).
        let (retirement, _) = register_retirable_with_t2_seeing("null");
        assert!(retirement.txns.is_empty(), "{:?}", retirement.txns);
    }

    /// What a round retires of the register history `jsonl` once key `x` is retired (no order drawn, no
    /// assumption made).
    fn retired_on_x(jsonl: &str) -> Retirement {
        let history = parse(jsonl, Format::JsonLines, "h.jsonl").expect("a history");
        retirable(&history, &BTreeSet::from([Key::Str("x".into())]), None, Inference::default())
    }

    #[test]
    fn numbered_register_writes_retire_by_their_numbers_as_positioned_ones_by_their_positions() {
        // T0 writes x = 1 and T1 x = 2, each numbered as `t1`'s version says (the database's version
        // numbers, no commit position); T2 reads x = 1 and writes y, a key still active, so T2 stays.
        // T0 stands in for the version T2 read. T1 numbered after it: T2 anti-depends on T1, which stays;
        // numbered before it, T1 retires too; with no number, T1's place is unknown and nothing retires.
        let retired_with = |t1: &str| {
            let lines = [
                r#"{"type":"invoke","process":0,"value":[["w","x",1]]}"#.to_string(),
                r#"{"type":"ok","process":0,"value":[["w","x",1,5]]}"#.to_string(),
                r#"{"type":"invoke","process":1,"value":[["w","x",2]]}"#.to_string(),
                format!(r#"{{"type":"ok","process":1,"value":[["w","x",2{t1}]]}}"#),
                r#"{"type":"invoke","process":2,"value":[["r","x",null],["w","y",1]]}"#.to_string(),
                r#"{"type":"ok","process":2,"value":[["r","x",1],["w","y",1]]}"#.to_string(),
            ];
            let retirement = retired_on_x(&lines.join("\n"));
            (retirement.txns, retirement.stand_ins, retirement.positions)
        };
        assert_eq!(retired_with(",6"), (BTreeSet::from([0]), BTreeSet::from([0]), vec![]));
        assert_eq!(retired_with(",4"), (BTreeSet::from([0, 2]), BTreeSet::from([0]), vec![]));
        assert_eq!(retired_with(""), (BTreeSet::new(), BTreeSet::new(), vec![]));
    }

    #[test]
    fn a_register_history_recording_both_positions_and_numbers_retires_nothing() {
        // Each source's version edges are dropped where they contradict the other's, so neither alone
        // says what the whole history's order is.
        let lines = [
            r#"{"type":"invoke","process":0,"value":[["w","x",1]]}"#,
            r#"{"type":"ok","process":0,"value":[["w","x",1,5]],"commit_order":1}"#,
            r#"{"type":"invoke","process":2,"value":[["r","x",null],["w","y",1]]}"#,
            r#"{"type":"ok","process":2,"value":[["r","x",1],["w","y",1]],"commit_order":2}"#,
        ];
        let retirement = retired_on_x(&lines.join("\n"));
        assert!(retirement.txns.is_empty(), "{retirement:?}");
        // The same without the numbers retires T0 (standing in for the version T2 read).
        let retirement = retired_on_x(&lines.join("\n").replace(",1,5]]", ",1]]"));
        assert_eq!(retirement.txns, BTreeSet::from([0]));
    }

    #[test]
    fn a_register_write_with_no_commit_position_is_not_retired() {
        // T0 writes x = 1, T2 reads it and writes y, a key still active. With its commit position, T0
        // is retired and stands in for the version T2 read; with none, its place among x's versions is
        // unknown (an outside write may come before it), so it stays.
        let retired_with = |position: &str| {
            let lines = [
                r#"{"type":"invoke","process":0,"value":[["w","x",1]]}"#.to_string(),
                format!(r#"{{"type":"ok","process":0,"value":[["w","x",1]]{position}}}"#),
                r#"{"type":"invoke","process":2,"value":[["r","x",null],["w","y",1]]}"#.to_string(),
                r#"{"type":"ok","process":2,"value":[["r","x",1],["w","y",1]]}"#.to_string(),
            ];
            let retirement = retired_on_x(&lines.join("\n"));
            (retirement.txns, retirement.stand_ins)
        };
        assert_eq!(retired_with(r#","commit_order":1"#), (BTreeSet::from([0]), BTreeSet::from([0])));
        assert_eq!(retired_with(""), (BTreeSet::new(), BTreeSet::new()));
    }
}
