//! The list-append workload, with the semantics of Elle's `elle.list-append`: transactions append unique
//! integers to lists and read whole lists, so every read reveals the order of the appends before it. The
//! longest read of a key is its version order (every other read must be a prefix of it); from it follow
//! write-write (`ww`), write-read (`wr`) and anti-dependency (`rw`) edges, and the non-cycle anomalies in
//! [`cases`]. Only committed and indeterminate transactions (`ok`, `info`) take part in the graph, as in
//! Elle; failed ones matter only as the writers of aborted reads and dirty updates (their reads, like
//! indeterminate ones', are not observations). Only committed
//! transactions' reads are observations: an indeterminate one may never have committed, and then what it
//! read (should its completion say) constrains nothing.
//!
//! This module owns the indexes and the edges; the micro-ops flattened into arrays are `flat`'s, the
//! checks that need no graph are in `cases`, the sentences that explain an edge in `explain`. The index
//! is built in three passes, each on all cores: the micro-ops flattened by ranges of transactions, the
//! keys learnt one by one from their appends and longest reads, and every micro-op resolved against its
//! key's version order by ranges again; edges and the reads' anomalies then walk flat arrays alone.

mod cases;
mod elems;
mod explain;
mod flat;
mod unshown;

use std::collections::BTreeMap;
use std::ops::Range;

use histories::{Key, Mop, Observed, OpType};
use rayon::iter::{IntoParallelIterator, ParallelIterator};

use crate::buckets::Buckets;
use crate::chunks;
use crate::commit_order::CommitOrder;
use crate::error::CheckError;
use crate::graph::{EdgeList, TxnId};
use crate::kind::Kind;
use crate::phase::Phase;
use crate::result::Case;
use crate::txn::Txns;

use self::elems::{Elem, ElemMap, NO_TXN, UNORDERED};
pub use explain::ListAppendExplainer;

type KeyId = u32;

/// A read's position: which transaction, and which of its micro-ops.
#[derive(Debug, Clone, Copy)]
struct ReadAt {
    txn: TxnId,
    mop: u32,
}

/// What a micro-op is, and what the pass over the committed reads found about it: one byte per micro-op,
/// so the passes after the index walk flat arrays rather than each transaction's micro-ops again.
mod bits {
    /// `[append k v]`.
    pub const APPEND: u8 = 1;
    /// `[r k list]` (or `[r k nil]`).
    pub const READ: u8 = 2;
    /// A read of a non-empty list: its last element is the micro-op's element.
    pub const HAS_LAST: u8 = 4;
    /// A committed read that is not a prefix of its key's longest read.
    pub const NOT_PREFIX: u8 = 8;
    /// A committed read that may hold an element twice: not a prefix, or longer than the longest read's
    /// first duplicate.
    pub const CHECK_DUPLICATES: u8 = 16;
    /// A committed read that may show an element appended by a failed transaction or by none: not a
    /// prefix, or longer than the longest read's first such element.
    pub const CHECK_BAD_WRITES: u8 = 32;
    /// A committed read whose last element another transaction appended and then appended past.
    pub const INTERMEDIATE_READ: u8 = 64;
}

/// The indexes every list-append analysis shares.
pub struct Index<'h> {
    keys: Vec<&'h Key>,
    /// Per micro-op, flattened in transaction order (`mop_start[t]` is where transaction `t` begins): its key
    /// id, its [`bits`], its element (an append's, or a read's last; 0 for an empty read), and its link
    /// (an append's readers row, that of the version it overwrote; a committed read's possible writer
    /// of its last element, or `NO_TXN`).
    mop_keys: Vec<KeyId>,
    mop_start: Vec<u32>,
    mop_bits: Vec<u8>,
    mop_elems: Vec<i64>,
    mop_links: Vec<u32>,
    /// Per key, its elements.
    elems: Vec<ElemMap>,
    /// Per key, the longest read by an `ok` transaction: the version order.
    longest: Vec<Option<ReadAt>>,
    /// Per key, what its longest read says of every prefix of it.
    summaries: Vec<Summary<'h>>,
    /// Per key, the distinct elements of the longest read, in order.
    versions: Vec<Vec<i64>>,
    /// Readers by version, as one compressed table: key `k`'s version `v` (0 the initial state, `p + 1`
    /// the state ending at the element in position `p`) is row `version_base[k] + v`.
    version_base: Vec<u32>,
    /// Per row, the transaction that appended the version's last element, if it committed or may have
    /// (`NO_TXN` for the initial state).
    row_writers: Vec<TxnId>,
    reader_start: Vec<u32>,
    readers: Vec<TxnId>,
    /// Per key, its unshown appends, one per transaction, in transaction order.
    unshown: Vec<Vec<unshown::Unshown>>,
}

/// What the longest read of a key says about every prefix of it.
struct Summary<'h> {
    longest: &'h [i64],
    /// The first position holding an element appended by a failed transaction, or by none.
    first_bad: usize,
    /// The first position holding an element seen earlier in the same list.
    first_duplicate: usize,
}

/// What one key's appends and longest read say: its elements, its version order, what the longest read
/// says of its prefixes, and its rows' writers (the first `NO_TXN`, the initial state).
struct KeyFacts<'h> {
    elems: ElemMap,
    versions: Vec<i64>,
    summary: Summary<'h>,
    row_writers: Vec<TxnId>,
    unshown: Vec<unshown::Unshown>,
}

impl<'h> KeyFacts<'h> {
    /// The facts of a key from its appends (transaction, element), in transaction order, its longest
    /// committed read, and the database's commit order if the history records one.
    fn new(
        txns: &Txns<'h>,
        appends: &[(TxnId, i64)],
        longest: Option<ReadAt>,
        commit: Option<&CommitOrder>,
    ) -> KeyFacts<'h> {
        // Room for the appended elements, which generated histories number densely, made once.
        let (low, high) = appends.iter().fold((i64::MAX, i64::MIN), |(l, h), &(_, v)| (l.min(v), h.max(v)));
        let mut elems = ElemMap::with_room(low, high, appends.len());
        // A transaction's appends to the key are consecutive here: the one before an append, if by the
        // same transaction, is its previous append to the key, which is intermediate if it wrote it first.
        let mut previous: Option<(TxnId, i64)> = None;
        for &(t, value) in appends {
            if let Some((p, e)) = previous
                && p == t
                && let Some(el) = elems.get_mut(e)
                && el.writer == t
            {
                el.intermediate = true;
            }
            let elem = elems.entry(value, Elem::NEW);
            if elem.writer == NO_TXN {
                elem.writer = t;
            }
            previous = Some((t, value));
        }
        let list = longest.map_or(&[][..], |at| read_list(txns, at));
        let mut versions = Vec::with_capacity(list.len());
        for &e in list {
            let elem = elems.entry(e, Elem::NEW);
            // A duplicated element keeps its first position, as Elle's `distinct` does.
            if elem.position == UNORDERED {
                elem.position = versions.len() as u32;
                versions.push(e);
            }
        }
        let writer = |e: i64| elems.get(e).map(|el| el.writer).filter(|&w| w != NO_TXN);
        let first_bad =
            list.iter().position(|&e| writer(e).is_none_or(|w| txns.outcome(w) == OpType::Fail)).unwrap_or(usize::MAX);
        let first_duplicate = if versions.len() == list.len() {
            usize::MAX
        } else {
            let mut seen = rustc_hash::FxHashSet::default();
            list.iter().position(|e| !seen.insert(*e)).unwrap_or(usize::MAX)
        };
        let mut row_writers = Vec::with_capacity(versions.len() + 1);
        row_writers.push(NO_TXN);
        row_writers.extend(versions.iter().map(|&e| writer(e).filter(|&w| txns.is_possible(w)).unwrap_or(NO_TXN)));
        let unshown = unshown::unshown(txns, appends, &elems, commit);
        KeyFacts {
            elems,
            versions,
            summary: Summary { longest: list, first_bad, first_duplicate },
            row_writers,
            unshown,
        }
    }
}

/// What the pass over one range of transactions found: each micro-op's bits and link, and the committed
/// reads of versions in the order as (readers row, transaction), in transaction order.
struct Resolved {
    bits: Vec<u8>,
    links: Vec<u32>,
    reads: Vec<(u32, TxnId)>,
}

/// The previous version of a key before an append: an element, or the initial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Previous {
    Initial,
    Element(i64),
}

impl<'h> Index<'h> {
    /// Builds the indexes, refusing micro-ops that are not list-append's.
    pub fn new(txns: &Txns<'h>) -> Result<Index<'h>, CheckError> {
        let mut index = Index {
            keys: Vec::new(),
            mop_keys: Vec::new(),
            mop_start: Vec::with_capacity(txns.len() + 1),
            mop_bits: Vec::new(),
            mop_elems: Vec::new(),
            mop_links: Vec::new(),
            elems: Vec::new(),
            longest: Vec::new(),
            summaries: Vec::new(),
            versions: Vec::new(),
            version_base: Vec::new(),
            row_writers: Vec::new(),
            reader_start: Vec::new(),
            readers: Vec::new(),
            unshown: Vec::new(),
        };
        let phase = Phase::start();
        let flat = flat::flatten(txns)?;
        phase.done("list-append micro-ops flattened");
        index.learn_keys(txns, flat);
        phase.done("list-append appends and version orders");
        let resolved = chunks::per_chunk(txns.len(), |ids| index.resolve(txns, ids));
        index.record_readers(resolved);
        phase.done("list-append reads and readers");
        Ok(index)
    }

    /// Takes the flattened micro-ops and learns, key by key on all cores, who appended each element first,
    /// whether that writer appended to the key again afterwards, the version order, what the longest read
    /// says of its prefixes, and the writer of each version. The appends are first sorted by key (a
    /// counting sort, so each key's stay in transaction order), which keeps each key's elements in cache
    /// while it is worked on.
    fn learn_keys(&mut self, txns: &Txns<'h>, flat: flat::Flat<'h>) {
        self.keys = flat.keys;
        self.mop_start = flat.mop_start;
        self.mop_keys = flat.mop_keys;
        self.mop_bits = flat.mop_bits;
        self.mop_elems = flat.mop_elems;
        self.longest = flat.longest;
        let key_count = self.keys.len();
        let index = &*self;
        let ranges = chunks::ranges(txns.len());
        let appends = Buckets::from_sources(key_count, (NO_TXN, 0i64), ranges.len(), |s| {
            ranges[s].clone().flat_map(move |t| {
                index
                    .mops_of(t)
                    .filter(|&j| index.mop_bits[j] & bits::APPEND != 0)
                    .map(move |j| (index.mop_keys[j] as usize, (t, index.mop_elems[j])))
            })
        });
        let commit = CommitOrder::new(txns);
        let commit = (commit.recorded() > 0).then_some(&commit);
        let facts: Vec<KeyFacts<'h>> = (0..key_count)
            .into_par_iter()
            .map(|k| KeyFacts::new(txns, appends.of(k), self.longest[k], commit))
            .collect();
        let mut base = 0u32;
        self.version_base = Vec::with_capacity(key_count);
        self.row_writers = Vec::with_capacity(key_count + facts.iter().map(|f| f.versions.len()).sum::<usize>());
        self.elems = Vec::with_capacity(key_count);
        self.versions = Vec::with_capacity(key_count);
        self.summaries = Vec::with_capacity(key_count);
        self.unshown = Vec::with_capacity(key_count);
        for f in facts {
            self.version_base.push(base);
            base += f.versions.len() as u32 + 1;
            self.row_writers.extend_from_slice(&f.row_writers);
            self.elems.push(f.elems);
            self.versions.push(f.versions);
            self.summaries.push(f.summary);
            self.unshown.push(f.unshown);
        }
    }

    /// The one look at each micro-op of the transactions `ids` once the version orders are known: where an
    /// append's overwritten version sits in the readers table, which version each committed read saw and
    /// who wrote its last element, and which checks each committed read needs (the bits). A committed
    /// read's list is compared with its key's longest read here, the only time the lists are touched.
    fn resolve(&self, txns: &Txns<'h>, ids: Range<TxnId>) -> Resolved {
        let mops = self.mop_start[ids.start as usize] as usize..self.mop_start[ids.end as usize] as usize;
        let mut bits = self.mop_bits[mops.clone()].to_vec();
        let mut links = vec![NO_TXN; mops.len()];
        let mut reads = Vec::new();
        for t in ids {
            let ok = txns.outcome(t) == OpType::Ok;
            let start = self.mop_start[t as usize] as usize;
            for j in start..self.mop_start[t as usize + 1] as usize {
                let (k, e, at) = (self.mop_keys[j], self.mop_elems[j], j - mops.start);
                let base = self.version_base[k as usize];
                if bits[at] & bits::APPEND != 0 {
                    // The version an append overwrote: the one before its element, or the last one if no
                    // read ordered its element (see `previous`).
                    let position = self.elem(k, e).map_or(UNORDERED, |el| el.position);
                    let offset = match position {
                        UNORDERED => self.versions[k as usize].len() as u32,
                        p => p,
                    };
                    links[at] = base + offset;
                    continue;
                }
                // Only committed reads are observations: an indeterminate transaction may never have
                // committed, and then what it read constrains nothing.
                if !ok {
                    continue;
                }
                let last = (bits[at] & bits::HAS_LAST != 0).then_some(e);
                let elem = last.and_then(|e| self.elem(k, e));
                let row = match last {
                    None => Some(base),
                    Some(_) => elem.map(|el| el.position).filter(|&p| p != UNORDERED).map(|p| base + p + 1),
                };
                if let Some(row) = row {
                    reads.push((row, t));
                }
                if let Some(el) = elem {
                    if el.writer != NO_TXN && txns.is_possible(el.writer) {
                        links[at] = el.writer;
                    }
                    if el.intermediate && el.writer != t && el.writer != NO_TXN {
                        bits[at] |= bits::INTERMEDIATE_READ;
                    }
                }
                if let Mop::Read { value: Observed::List(list), .. } = &txns.mops(t)[j - start] {
                    // Most reads are prefixes of their key's longest read: whatever is true of the longest
                    // read's first elements is true of them, so only the others need an element-by-element
                    // look. The lists themselves are compared: a read as long as a prefix and ending in the
                    // same element may still hold the others in another order ([2 1 3] beside [1 2 3]).
                    let summary = &self.summaries[k as usize];
                    let prefix = summary.longest.starts_with(list);
                    if !prefix {
                        bits[at] |= bits::NOT_PREFIX;
                    }
                    if !prefix || summary.first_duplicate < list.len() {
                        bits[at] |= bits::CHECK_DUPLICATES;
                    }
                    if !prefix || summary.first_bad < list.len() {
                        bits[at] |= bits::CHECK_BAD_WRITES;
                    }
                }
            }
        }
        Resolved { bits, links, reads }
    }

    /// The version a read of `list` (on key `k`) observed, as a row of the readers table, if that
    /// version is in the order: reads of any other version are never asked about.
    fn version_row(&self, k: KeyId, last: Option<i64>) -> Option<usize> {
        let offset = match last {
            None => 0,
            Some(e) => self.elem(k, e).map(|el| el.position).filter(|&p| p != UNORDERED)? as usize + 1,
        };
        Some(self.version_base[k as usize] as usize + offset)
    }

    /// Keeps each range's bits and links, and builds the readers table from the reads they found.
    fn record_readers(&mut self, resolved: Vec<Resolved>) {
        let rows = self.row_writers.len();
        self.mop_bits.clear();
        self.mop_links.reserve_exact(self.mop_keys.len());
        for part in &resolved {
            self.mop_bits.extend_from_slice(&part.bits);
            self.mop_links.extend_from_slice(&part.links);
        }
        // The readers of each version, without a vector per version.
        let readers = Buckets::from_sources(rows, 0, resolved.len(), |s| {
            resolved[s].reads.iter().map(|&(row, t)| (row as usize, t))
        });
        (self.reader_start, self.readers) = readers.into_parts();
    }

    /// The micro-ops of transaction `t`, as positions in the flat arrays.
    fn mops_of(&self, t: TxnId) -> Range<usize> {
        self.mop_start[t as usize] as usize..self.mop_start[t as usize + 1] as usize
    }

    /// The key ids of transaction `t`'s micro-ops, in order.
    fn keys_of(&self, t: TxnId) -> &[KeyId] {
        &self.mop_keys[self.mops_of(t)]
    }

    fn key_of(&self, t: TxnId, mop: usize) -> KeyId {
        self.mop_keys[self.mop_start[t as usize] as usize + mop]
    }

    fn elem(&self, k: KeyId, e: i64) -> Option<&Elem> {
        self.elems[k as usize].get(e)
    }

    /// The transaction that appended `e` to `k`, if it committed or may have.
    fn possible_writer(&self, txns: &Txns<'h>, k: KeyId, e: i64) -> Option<TxnId> {
        self.elem(k, e).map(|el| el.writer).filter(|&w| w != NO_TXN && txns.is_possible(w))
    }

    /// The version an append of `e` to `k` overwrote: the element before it in the version order, or,
    /// if no read showed `e`, the last element any read showed (it came after that), or the initial
    /// state.
    fn previous(&self, k: KeyId, e: i64) -> Previous {
        let order = &self.versions[k as usize];
        match self.elem(k, e).map(|el| el.position) {
            Some(p) if p != UNORDERED => {
                if p == 0 {
                    Previous::Initial
                } else {
                    Previous::Element(order[p as usize - 1])
                }
            }
            _ => order.last().map_or(Previous::Initial, |&last| Previous::Element(last)),
        }
    }

    fn readers_of(&self, k: KeyId, version: Previous) -> &[TxnId] {
        let last = match version {
            Previous::Initial => None,
            Previous::Element(e) => Some(e),
        };
        match self.version_row(k, last) {
            Some(row) => &self.readers[self.reader_start[row] as usize..self.reader_start[row + 1] as usize],
            None => &[],
        }
    }

    /// The number of keys.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// The number of keys some read ordered.
    pub fn ordered_key_count(&self) -> usize {
        self.versions.iter().filter(|v| !v.is_empty()).count()
    }

    /// The `ww`, `wr` and `rw` edges among `ok` and `info` transactions.
    pub fn edges(&self, txns: &Txns<'h>) -> EdgeList {
        let mut edges = chunks::edges_per_chunk(txns.len(), |ids| self.edges_of(txns, ids));
        self.unshown_edges(&mut edges);
        edges
    }

    /// The edges into the transactions `ids`, from the flat arrays alone.
    fn edges_of(&self, txns: &Txns<'h>, ids: Range<TxnId>) -> EdgeList {
        let mut edges = EdgeList::new();
        for t in ids.filter(|&t| txns.is_possible(t)) {
            let ok = txns.outcome(t) == OpType::Ok;
            for j in self.mops_of(t) {
                let link = self.mop_links[j];
                if self.mop_bits[j] & bits::APPEND != 0 {
                    let row = link as usize;
                    let w = self.row_writers[row];
                    if w != NO_TXN {
                        edges.add(w, t, Kind::Ww);
                    }
                    for &r in &self.readers[self.reader_start[row] as usize..self.reader_start[row + 1] as usize] {
                        edges.add(r, t, Kind::Rw);
                    }
                } else if ok && link != NO_TXN {
                    edges.add(link, t, Kind::Wr);
                }
            }
        }
        edges
    }

    /// The anomalies that need no graph, by name.
    pub fn cases(&self, txns: &Txns<'h>) -> BTreeMap<&'static str, Vec<Case>> {
        cases::all(self, txns)
    }
}

/// The list a read at `at` returned.
fn read_list<'h>(txns: &Txns<'h>, at: ReadAt) -> &'h [i64] {
    match &txns.mops(at.txn)[at.mop as usize] {
        Mop::Read { value: Observed::List(list), .. } => list,
        _ => &[],
    }
}

fn not_list_append(txns: &Txns<'_>, t: TxnId, mop: &Mop) -> CheckError {
    let kind = match mop {
        Mop::Read { value: Observed::Int(_), .. } | Mop::Write { .. } => "a register micro-op",
        _ => "a predicate micro-op",
    };
    CheckError::Workload {
        at: txns.op(t).at,
        message: format!(
            "{mop} is {kind}, but this history is checked as list-append, whose micro-ops are [append k v] and [r k list]"
        ),
    }
}
