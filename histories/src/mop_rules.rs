//! The rules a history's micro-ops must follow across operations: its keys are all integers or all
//! strings (Elle refuses a mix), and each appended value, and each written register value, is unique per
//! key (Elle infers version orders from values, so a repeated value makes two versions
//! indistinguishable). Both are found in one pass over the operations on all cores; the unique writes
//! of integer keys by sorting what was written rather than through a table of millions of entries. An
//! error is the one a reading in history order meets first. Pairing and the other rules are
//! [`crate::well_formed`]'s.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::Problem;
use crate::json::Located;
use crate::key::Key;
use crate::mop::Mop;
use crate::op::{Op, OpType};
use crate::position::Position;
use crate::well_formed::{Pairing, UNKNOWN};

/// Operations one core looks at a time.
const CHUNK: usize = 1 << 14;

/// Refuses mixed key types, then repeated writes, each with the error a reading in order meets first.
pub(crate) fn check(ops: &[Op], pairing: &Pairing) -> Result<(), Located> {
    check_in_chunks(ops, pairing, CHUNK)
}

/// [`check`], each core looking at `chunk` operations at a time.
fn check_in_chunks(ops: &[Op], pairing: &Pairing, chunk: usize) -> Result<(), Located> {
    let facts = ops
        .par_chunks(chunk)
        .enumerate()
        .map(|(c, ops)| Facts::of(ops, c * chunk, pairing))
        .reduce(Facts::default, Facts::then);
    check_key_types(ops, &facts)?;
    if facts.string_writes {
        return check_unique_writes_by_table(ops, pairing);
    }
    let Facts { mut appends, mut writes, .. } = facts;
    appends.par_sort_unstable();
    writes.par_sort_unstable();
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

/// What the pass over the operations found.
#[derive(Default)]
struct Facts {
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
}

impl Facts {
    /// The facts of `ops`, which start at position `first` of the history.
    fn of(ops: &[Op], first: usize, pairing: &Pairing) -> Facts {
        let mut facts = Facts::default();
        for (i, op) in ops.iter().enumerate().filter(|(_, op)| op.is_client()) {
            let i = first + i;
            let transaction = is_transaction(i, op, pairing);
            for (m, mop) in op.mops().iter().enumerate() {
                let Some(key) = mop.key() else { continue };
                let first_of_its_type = match key {
                    Key::Int(_) => &mut facts.first_int,
                    Key::Str(_) => &mut facts.first_str,
                };
                first_of_its_type.get_or_insert(place(i, m));
                if !transaction {
                    continue;
                }
                let (written, value) = match mop {
                    Mop::Append { value, .. } => (&mut facts.appends, *value),
                    Mop::Write { value, .. } | Mop::Insert { value, .. } => (&mut facts.writes, *value),
                    _ => continue,
                };
                match key {
                    Key::Int(key) => written.push(Written { key: *key, value, at: place(i, m) }),
                    Key::Str(_) => facts.string_writes = true,
                }
            }
        }
        facts
    }

    /// These facts, then those of the operations after them.
    fn then(mut self, mut later: Facts) -> Facts {
        self.first_int = self.first_int.or(later.first_int);
        self.first_str = self.first_str.or(later.first_str);
        self.appends.append(&mut later.appends);
        self.writes.append(&mut later.writes);
        self.string_writes |= later.string_writes;
        self
    }
}

/// Whether the operation at `i` stands for its transaction's writes: its invoke, or its completion when
/// it has none, so each transaction counts once.
fn is_transaction(i: usize, op: &Op, pairing: &Pairing) -> bool {
    op.kind == OpType::Invoke || pairing.invoked_after.get(&(i as u32)) == Some(&UNKNOWN)
}

/// The first key whose type differs from the history's first key's is the first key of the other type.
fn check_key_types(ops: &[Op], facts: &Facts) -> Result<(), Located> {
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
            (k(), 0..6i64).prop_map(|(key, value)| Mop::Append { key, value }),
            (k(), 0..6i64).prop_map(|(key, value)| Mop::Write { key, value, version: None }),
            (k(), 0..6i64).prop_map(|(key, value)| Mop::Insert { key, value }),
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
                        let mut op = Op::new(kind, process, Function::Txn, OpValue::Txn(mops));
                        op.at = Position::new(i as u32 + 1, 1);
                        op
                    })
                    .collect::<Vec<_>>()
            })
        })
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
            let invoked_after = unknown.into_iter().map(|i| (i, UNKNOWN)).collect();
            let pairing = Pairing { partner: vec![u32::MAX; ops.len()], invoked_after, leniencies: Vec::new() };
            prop_assert_eq!(check_in_chunks(&ops, &pairing, chunk), in_order(&ops, &pairing));
        }
    }
}
