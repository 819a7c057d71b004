//! The rules a history's micro-ops must follow across operations: its keys are all integers or all
//! strings (Elle refuses a mix), and each appended value, and each written register value, is unique per
//! key (Elle infers version orders from values, so a repeated value makes two versions
//! indistinguishable). What both need is gathered as each operation is read ([`MopFacts`]), on the
//! cores that read it; the unique writes of integer keys are then found by sorting what was written
//! rather than through a table of millions of entries. An error is the one a reading in history order
//! meets first. Pairing and the other rules are
//! [`crate::well_formed`]'s.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::Located;
use crate::error::Problem;
use crate::history::{Pairing, UNKNOWN};
use crate::key::Key;
use crate::mop::Mop;
use crate::mop_kinds::MopKinds;
use crate::op::{Op, OpType, Process};
use crate::position::Position;

/// Refuses mixed key types, then repeated writes, each with the error a reading in order meets first.
/// `facts` are what [`MopFacts::note`] gathered from `ops`; the writes of the transactions that have
/// only a completion (which pairing finds) are added here.
pub(crate) fn check(ops: &[Op], pairing: &Pairing, mut facts: MopFacts) -> Result<(), Located> {
    check_key_types(ops, &facts)?;
    let mut alone: Vec<usize> =
        pairing.invoked_after.iter().filter(|&(_, &after)| after == UNKNOWN).map(|(&i, _)| i as usize).collect();
    alone.sort_unstable();
    for i in alone {
        if ops[i].is_client() && ops[i].kind != OpType::Invoke {
            facts.note_writes(i, &ops[i]);
        }
    }
    if facts.string_writes {
        return check_unique_writes_by_table(ops, pairing);
    }
    facts.settle_writes();
    if facts.none_repeated {
        return Ok(());
    }
    let MopFacts { appends, writes, .. } = facts;
    let repeated = |written: &[Written], verb: &'static str| {
        written
            .windows(2)
            .filter(|w| (w[0].key, w[0].value) == (w[1].key, w[1].value))
            .map(|w| (w[1].at, w[0].at, w[1].key, w[1].value, verb))
            .min()
    };
    let first = [repeated(&appends, "appended"), repeated(&writes, "written")].into_iter().flatten().min();
    match first {
        None => Ok(()),
        Some((again, before, key, value, verb)) => Err((
            ops[op_of(again)].at,
            Problem::DuplicateWrite {
                verb,
                key: Key::Int(key).to_string(),
                value,
                first_line: ops[op_of(before)].at.line,
            },
        )),
    }
}

/// A value written to an integer key, where: the operation's position above the micro-op's. Ordered by
/// key, value and then place, so the repeats of a value sit together, the first first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Written {
    key: i64,
    value: i64,
    at: u64,
}

fn place(op: usize, mop: usize) -> u64 {
    (op as u64) << 32 | mop as u64
}

fn op_of(place: u64) -> usize {
    (place >> 32) as usize
}

/// What operations' micro-ops say for these rules, gathered as the operations are read, while they
/// are in a core's cache (a later pass over millions of them would wait on memory for each).
#[derive(Debug, Default)]
pub(crate) struct MopFacts {
    /// Where the first integer key of a client operation is.
    first_int: Option<u64>,
    /// Where the first string key of a client operation is.
    first_str: Option<u64>,
    /// Each transaction's appends to integer keys.
    appends: Vec<Written>,
    /// Each transaction's register writes and inserts to integer keys.
    writes: Vec<Written>,
    /// Whether a transaction wrote a string key (its writes are then checked through a table).
    string_writes: bool,
    /// Whether [`MopFacts::settle_writes`] settled `appends` and `writes` (told that no value repeats, or sorted
    /// them), and nothing was noted since.
    settled: bool,
    /// Whether, when settled, no value was told to repeat without sorting.
    none_repeated: bool,
    /// The kinds of micro-op the client operations hold.
    pub(crate) kinds: MopKinds,
}

impl MopFacts {
    /// Notes the operation read at `position`, whose process was given as `process` (`None` makes it a
    /// client's): the keys of a client's, and the writes of an invocation (a transaction's writes
    /// count once, by its invocation; a completion with none is noted by [`check`]).
    pub(crate) fn note(&mut self, position: usize, op: &Op, process: Option<Process>) {
        if process == Some(Process::Nemesis) {
            return;
        }
        self.kinds.note(op);
        // Once a key of each type is found, nothing is left to look for; once an integer key is, only a
        // string key is looked for (the usual case: every key an integer).
        if self.first_int.is_none() || self.first_str.is_none() {
            self.note_first_keys(position, op);
        }
        if op.kind == OpType::Invoke {
            self.note_writes(position, op);
        }
    }

    /// Settles what was written (for integer keys), unless it is settled already: [`check`] settles it,
    /// and a caller with a core to spare while it pairs operations can settle it first. Where keys and
    /// values are small enough to tell at once that no value repeats ([`none_repeated_densely`]), that
    /// is all; otherwise, and where one does repeat, what was written is sorted, so the first repeat can
    /// be found. With a string key written there is nothing to settle: those writes are checked through
    /// a table.
    pub(crate) fn settle_writes(&mut self) {
        if self.settled || self.string_writes {
            return;
        }
        self.settled = true;
        let (appends, writes) =
            rayon::join(|| none_repeated_densely(&self.appends), || none_repeated_densely(&self.writes));
        self.none_repeated = appends == Some(true) && writes == Some(true);
        if !self.none_repeated {
            self.appends.par_sort_unstable();
            self.writes.par_sort_unstable();
        }
    }

    /// Notes where the first integer key and the first string key are, if `op` (at `position`) has the
    /// first of either.
    fn note_first_keys(&mut self, position: usize, op: &Op) {
        let mops = op.mops();
        if self.first_int.is_some() {
            if let Some(m) = mops.iter().position(|mop| matches!(mop.key(), Some(Key::Str(_)))) {
                self.first_str = Some(place(position, m));
            }
            return;
        }
        for (m, key) in mops.iter().enumerate().filter_map(|(m, mop)| Some((m, mop.key()?))) {
            let first_of_its_type = match key {
                Key::Int(_) => &mut self.first_int,
                Key::Str(_) => &mut self.first_str,
            };
            if first_of_its_type.is_none() {
                *first_of_its_type = Some(place(position, m));
            }
        }
    }

    /// Notes the writes of the transaction `op` (at `position`) stands for.
    fn note_writes(&mut self, position: usize, op: &Op) {
        for (m, mop) in op.mops().iter().enumerate() {
            let (written, key, value) = match mop {
                Mop::Append { key, value } => (&mut self.appends, key, *value),
                Mop::Write { key, value, .. } | Mop::Insert { key, value } => (&mut self.writes, key, *value),
                _ => continue,
            };
            match key {
                Key::Int(key) => {
                    written.push(Written { key: *key, value, at: place(position, m) });
                    self.settled = false;
                }
                Key::Str(_) => self.string_writes = true,
            }
        }
    }

    /// Moves the facts of `later` after these: its positions start at `offset`.
    pub(crate) fn append(&mut self, later: &mut MopFacts, offset: usize) {
        let shift = place(offset, 0);
        self.first_int = self.first_int.or(later.first_int.map(|p| p + shift));
        self.first_str = self.first_str.or(later.first_str.map(|p| p + shift));
        for (all, more) in [(&mut self.appends, &mut later.appends), (&mut self.writes, &mut later.writes)] {
            all.extend(more.drain(..).map(|w| Written { at: w.at + shift, ..w }));
        }
        self.string_writes |= later.string_writes;
        self.kinds.add(later.kinds);
        self.settled = false;
        later.clear();
    }

    /// Forgets every fact, keeping the room.
    pub(crate) fn clear(&mut self) {
        self.first_int = None;
        self.first_str = None;
        self.appends.clear();
        self.writes.clear();
        self.string_writes = false;
        self.settled = false;
        self.none_repeated = false;
        self.kinds = MopKinds::default();
    }

    /// Gives back the room grown beyond the facts gathered.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.appends.shrink_to_fit();
        self.writes.shrink_to_fit();
    }
}

/// Whether no value is written twice to one key, told without sorting where keys and values are small
/// non-negative integers, as generated histories number them (keys 0, 1, 2, ...; each key's values 1, 2,
/// 3, ...): one bit for each value up to each key's greatest, set as each write is met, in two passes
/// over `written` that stay in cache. `None` where keys or values are negative, or too large or sparse
/// for the bits to stay few (no more than eight for each write). A `Some(false)` says only that some
/// value repeats: which repeat comes first is for the sorted path to find.
fn none_repeated_densely(written: &[Written]) -> Option<bool> {
    const MAX_KEYS: usize = 1 << 22;
    // Per key, its greatest value plus one (0 for none).
    let mut greatest: Vec<u32> = Vec::new();
    for w in written {
        let key = usize::try_from(w.key).ok().filter(|&k| k < MAX_KEYS.min(written.len() + 1024))?;
        let above = u32::try_from(w.value).ok()?.checked_add(1)?;
        if key >= greatest.len() {
            greatest.resize(key + 1, 0);
        }
        greatest[key] = greatest[key].max(above);
    }
    let mut starts = Vec::with_capacity(greatest.len());
    let mut bits = 0u64;
    for &g in &greatest {
        starts.push(bits);
        bits += u64::from(g);
    }
    if bits > 8 * written.len() as u64 + 4096 {
        return None;
    }
    let mut seen = vec![0u64; bits.div_ceil(64) as usize];
    for w in written {
        // In range: the first pass checked each key and value.
        let bit = starts[w.key as usize] + w.value as u64;
        let (word, mask) = ((bit / 64) as usize, 1u64 << (bit % 64));
        if seen[word] & mask != 0 {
            return Some(false);
        }
        seen[word] |= mask;
    }
    Some(true)
}

/// Whether the operation at `i` stands for its transaction's writes: its invoke, or its completion when
/// it has none, so each transaction counts once.
fn is_transaction(i: usize, op: &Op, pairing: &Pairing) -> bool {
    op.kind == OpType::Invoke || pairing.invoked_after.get(&(i as u32)) == Some(&UNKNOWN)
}

/// The first key whose type differs from the history's first key's is the first key of the other type.
fn check_key_types(ops: &[Op], facts: &MopFacts) -> Result<(), Located> {
    let (Some(int), Some(string)) = (facts.first_int, facts.first_str) else { return Ok(()) };
    let (first, other) = (int.min(string), int.max(string));
    let (expected, found) = if int < string { ("integer", "string") } else { ("string", "integer") };
    let key = ops[op_of(other)].mops().get((other & u64::from(u32::MAX)) as usize).and_then(Mop::key);
    Err((
        ops[op_of(other)].at,
        Problem::MixedKeyTypes {
            key: key.map_or_else(String::new, Key::to_string),
            found,
            expected,
            article: if expected.starts_with(['a', 'e', 'i', 'o', 'u']) { "n" } else { "" },
            first_line: ops[op_of(first)].at.line,
        },
    ))
}

/// Unique writes through a table of what each key was given, in history order: for string keys.
fn check_unique_writes_by_table(ops: &[Op], pairing: &Pairing) -> Result<(), Located> {
    let transactions = || ops.iter().enumerate().filter(|(i, op)| op.is_client() && is_transaction(*i, op, pairing));
    // Sized once: a history of millions of appends would otherwise rehash its table again and again.
    let (mut appends, mut writes) = (0, 0);
    for (_, op) in transactions() {
        for mop in op.mops() {
            match mop {
                Mop::Append { .. } => appends += 1,
                Mop::Write { .. } | Mop::Insert { .. } => writes += 1,
                _ => {}
            }
        }
    }
    let mut appended: FxHashMap<(&Key, i64), Position> = FxHashMap::default();
    appended.reserve(appends);
    let mut written: FxHashMap<(&Key, i64), Position> = FxHashMap::default();
    written.reserve(writes);
    for (_, op) in transactions() {
        for mop in op.mops() {
            let (seen, verb, key, value) = match mop {
                Mop::Append { key, value } => (&mut appended, "appended", key, *value),
                Mop::Write { key, value, .. } | Mop::Insert { key, value } => (&mut written, "written", key, *value),
                _ => continue,
            };
            if let Some(first) = seen.insert((key, value), op.at) {
                return Err((
                    op.at,
                    Problem::DuplicateWrite { verb, key: key.to_string(), value, first_line: first.line },
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::op::{Function, OpValue, Process};

    /// The reading in history order these checks must agree with: key types op by op, then the table.
    fn in_order(ops: &[Op], pairing: &Pairing) -> Result<(), Located> {
        let mut first: Option<(&'static str, Position)> = None;
        for op in ops.iter().filter(|op| op.is_client()) {
            for key in op.mops().iter().filter_map(Mop::key) {
                match first {
                    None => first = Some((key.type_name(), op.at)),
                    Some((expected, at)) if expected != key.type_name() => {
                        return Err((
                            op.at,
                            Problem::MixedKeyTypes {
                                key: key.to_string(),
                                found: key.type_name(),
                                expected,
                                article: if expected == "integer" { "n" } else { "" },
                                first_line: at.line,
                            },
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        check_unique_writes_by_table(ops, pairing)
    }

    fn key(strings: bool) -> BoxedStrategy<Key> {
        if strings {
            (0..3i64).prop_map(|k| Key::Str(k.to_string().into())).boxed()
        } else {
            (0..3i64).prop_map(Key::Int).boxed()
        }
    }

    fn mop(strings: bool) -> impl Strategy<Value = Mop> {
        let k = || key(strings);
        prop_oneof![
            // A negative value now and then leaves a history's repeats to sorting rather than bits.
            (k(), -1..6i64).prop_map(|(key, value)| Mop::Append { key, value }),
            (k(), -1..6i64).prop_map(|(key, value)| Mop::Write { key, value, version: None }),
            (k(), -1..6i64).prop_map(|(key, value)| Mop::Insert { key, value }),
            k().prop_map(|key| Mop::Read { key, value: crate::mop::Observed::Nil }),
            k().prop_map(|key| Mop::Delete { key }),
        ]
    }

    /// Operations of small keys and values, so repeats are common: client invokes and completions, now
    /// and then a nemesis op with micro-ops of its own, and, one history in four, a key of the other type.
    fn ops() -> impl Strategy<Value = Vec<Op>> {
        any::<bool>().prop_flat_map(|strings| {
            let op = (
                0..4u8,
                prop::collection::vec(mop(strings), 0..4),
                0..8u8,
                prop::option::weighted(0.02, mop(!strings)),
            );
            prop::collection::vec(op, 0..40).prop_map(|ops| {
                ops.into_iter()
                    .enumerate()
                    .map(|(i, (kind, mut mops, who, other))| {
                        let kind = [OpType::Invoke, OpType::Ok, OpType::Fail, OpType::Info][kind as usize];
                        let process = if who == 0 { Process::Nemesis } else { Process::Client(u64::from(who)) };
                        mops.extend(other);
                        let mut op = Op::new(kind, process, Function::Txn, OpValue::Txn(mops.into()));
                        op.at = Position::new(i as u32 + 1, 1);
                        op
                    })
                    .collect::<Vec<_>>()
            })
        })
    }

    fn written(pairs: &[(i64, i64)]) -> Vec<Written> {
        pairs.iter().enumerate().map(|(i, &(key, value))| Written { key, value, at: place(i, 0) }).collect()
    }

    #[test]
    fn a_repeat_is_told_at_once_where_keys_and_values_are_small_and_its_near_misses_are_not_repeats() {
        // The same value on two keys, and two values of one key, are not repeats; value 0 and key 0 count.
        let distinct = [(0, 0), (1, 0), (0, 1), (1, 1), (7, 3), (2, 40)];
        assert_eq!(none_repeated_densely(&written(&distinct)), Some(true));
        for repeat in [(0, 0), (1, 1), (7, 3), (2, 40)] {
            let mut pairs = distinct.to_vec();
            pairs.insert(3, repeat);
            assert_eq!(none_repeated_densely(&written(&pairs)), Some(false), "{repeat:?} again");
        }
        assert_eq!(none_repeated_densely(&[]), Some(true));
        // Negative keys or values, and values too sparse for few bits, are left to sorting.
        assert_eq!(none_repeated_densely(&written(&[(0, 1), (-1, 1)])), None);
        assert_eq!(none_repeated_densely(&written(&[(0, 1), (1, -1)])), None);
        assert_eq!(none_repeated_densely(&written(&[(0, 1), (1, 1 << 20)])), None);
        assert_eq!(none_repeated_densely(&written(&[(0, 1), (1 << 40, 1)])), None);
        assert_eq!(none_repeated_densely(&written(&[(0, i64::from(u32::MAX))])), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn every_chunk_size_finds_the_first_error_of_a_reading_in_order(
            ops in ops(),
            unknown in prop::collection::vec(0..40u32, 0..6),
            chunk in 1..9usize,
        ) {
            // Completions at these positions have no invoke: they stand for their transactions' writes.
            let invoked_after = unknown.into_iter().filter(|&i| (i as usize) < ops.len()).map(|i| (i, UNKNOWN)).collect();
            let pairing = Pairing { partner: vec![u32::MAX; ops.len()], invoked_after, leniencies: Vec::new() };
            // Noted in runs of `chunk` operations, as pieces of a file are, then joined in order.
            let mut facts = MopFacts::default();
            for (c, run) in ops.chunks(chunk).enumerate() {
                let mut part = MopFacts::default();
                for (i, op) in run.iter().enumerate() {
                    part.note(i, op, Some(op.process()));
                }
                facts.append(&mut part, c * chunk);
            }
            prop_assert_eq!(check(&ops, &pairing, facts), in_order(&ops, &pairing));
        }
    }
}
