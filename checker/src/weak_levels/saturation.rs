//! The commit-order edges each weak level forces, and whether they leave a commit order. For a read of
//! key x in T3 from T1 and another writer T2 of x (Biswas & Enea, OOPSLA 2019, Def. 2.3–2.5):
//! read committed forces T2 before T1 when T2 wrote what an earlier read of T3 read; read atomic when T2
//! precedes T3 in session or write-read order; causal consistency when T2 precedes T3 in their
//! transitive closure. A level holds iff session order, write-read and the forced edges are acyclic.
//! Forced edges are kept only where the others do not already imply them, as AWDIT (PLDI 2025) does:
//! of a session's writers of x that precede T3, only the last (the rest precede it in session order),
//! so read committed and read atomic are linear in the reads times the transaction's size, and
//! causal consistency O(n·k) for k sessions (one vector clock a transaction). When a level fails, the
//! cycle reported is the one with the fewest forced edges that the search finds, and it is named by
//! Plume's pattern (Liu et al., OOPSLA 2024, §3.2): one forced edge closed by causal order is the
//! "causal" form of its pattern, several forced edges the "arbitration" form.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::observations::{INIT, Node, Observations};

/// A weak level, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WeakLevel {
    /// Read committed (Biswas & Enea).
    ReadCommitted,
    /// Read atomic (Cerone et al. 2015).
    ReadAtomic,
    /// Causal consistency (Cerone et al. 2015).
    Causal,
}

impl WeakLevel {
    /// Every level, weakest first.
    pub const ALL: [WeakLevel; 3] = [WeakLevel::ReadCommitted, WeakLevel::ReadAtomic, WeakLevel::Causal];

    /// The model's name in the lattice.
    pub fn model(self) -> &'static str {
        match self {
            WeakLevel::ReadCommitted => "read-committed-cerone",
            WeakLevel::ReadAtomic => "read-atomic",
            WeakLevel::Causal => "causal-cerone",
        }
    }
}

/// Why T2 must precede T1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// T3's read number `.0`, before the read of x, read from T2.
    EarlierRead(u32),
    /// T3's read number `.0`, after the read of x, read from T2.
    LaterRead(u32),
    /// T2 precedes T3 in their session.
    Session,
    /// T2 precedes T3 through other transactions.
    Causal,
}

impl Why {
    /// The weakest level whose axiom this reason belongs to.
    fn level(self) -> WeakLevel {
        match self {
            Why::EarlierRead(_) => WeakLevel::ReadCommitted,
            Why::LaterRead(_) | Why::Session => WeakLevel::ReadAtomic,
            Why::Causal => WeakLevel::Causal,
        }
    }
}

/// A forced edge: `from` (T2) precedes `to` (T1), because `reader` (T3)'s read number `read` read x
/// from T1, T2 wrote x, and T2 precedes T3 as `why` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Forced {
    pub from: Node,
    pub to: Node,
    pub reader: Node,
    pub read: u32,
    pub why: Why,
}

/// One edge of the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EdgeKind {
    /// Session order (the initial state precedes each session's first transaction).
    Session,
    /// The target's read number `.0` read from the source.
    Read(u32),
    /// Forced by the level's axiom.
    Forced(Forced),
    /// Key `.0`'s version order, as list reads show it (`.1`: a read shows both appends; otherwise the
    /// later append is in no read, so it follows every append reads show).
    Version(u32, bool),
}

/// An edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Edge {
    pub from: Node,
    pub to: Node,
    pub kind: EdgeKind,
}

impl Edge {
    /// The weight of the edge in the search for a cycle with few forced edges.
    fn arbitrary(&self) -> u32 {
        u32::from(matches!(self.kind, EdgeKind::Forced(_) | EdgeKind::Version(..)))
    }
}

/// A level that does not hold: the pattern and its cycle.
#[derive(Debug, Clone)]
pub(crate) struct Violation {
    pub level: WeakLevel,
    pub pattern: &'static str,
    pub cycle: Vec<Edge>,
}

/// Session order and write-read: causal order's edges.
pub(crate) fn causal_edges(obs: &Observations<'_>) -> Vec<Edge> {
    let mut edges = Vec::new();
    for session in &obs.sessions {
        let mut before = INIT;
        for &n in session {
            edges.push(Edge { from: before, to: n, kind: EdgeKind::Session });
            before = n;
        }
    }
    for (n, reads) in obs.reads.iter().enumerate() {
        for (i, r) in reads.iter().enumerate() {
            for from in obs.saw(r).filter(|&f| f != INIT) {
                edges.push(Edge { from, to: n as Node, kind: EdgeKind::Read(i as u32) });
            }
        }
    }
    edges
}

/// Pairs of external reads of one key, in one transaction, from different writers: Plume's
/// non-repeatable read, as (transaction, first read, second read).
pub(crate) fn non_repeatable(obs: &Observations<'_>) -> Vec<(Node, u32, u32)> {
    let mut found = Vec::new();
    let mut first: FxHashMap<u32, u32> = FxHashMap::default();
    for (n, reads) in obs.reads.iter().enumerate() {
        first.clear();
        for (i, r) in reads.iter().enumerate() {
            let j = *first.entry(r.key).or_insert(i as u32);
            if reads[j as usize].from != r.from {
                found.push((n as Node, j, i as u32));
            }
        }
    }
    found
}

/// Why T2 precedes T3, for a forced edge into the writer of T3's read number `i`: the strongest reason
/// the reads give, else session order, else causal order.
fn why(obs: &Observations<'_>, t2: Node, t3: Node, i: usize) -> Why {
    let reads = &obs.reads[t3 as usize];
    if let Some(j) = reads[..i].iter().position(|r| obs.saw(r).any(|s| s == t2)) {
        return Why::EarlierRead(j as u32);
    }
    if let Some(j) = reads[i..].iter().position(|r| obs.saw(r).any(|s| s == t2)) {
        return Why::LaterRead((i + j) as u32);
    }
    if obs.session[t2 as usize] == obs.session[t3 as usize] { Why::Session } else { Why::Causal }
}

/// The edges `level` forces. Causal consistency needs `order`, a topological order of causal order.
/// Without `reasons`, each edge's `why` is `Why::Causal` whatever the reason (looking for it costs a
/// pass over the reader's reads): for deciding only whether the edges close a cycle.
/// Each edge goes to `out` as it is found.
pub(crate) fn forced(
    obs: &Observations<'_>,
    level: WeakLevel,
    order: &[Node],
    reasons: bool,
    mut out: impl FnMut(Forced),
) {
    let mut push = |from: Node, to: Node, reader: Node, read: usize| {
        if from != to && from != reader {
            let why = if reasons { why(obs, from, reader, read) } else { Why::Causal };
            out(Forced { from, to, reader, read: read as u32, why });
        }
    };
    match level {
        WeakLevel::ReadCommitted | WeakLevel::ReadAtomic => {
            // Per session, the last writer of each key so far.
            let mut last: FxHashMap<u32, Node> = FxHashMap::default();
            let mut candidates: Vec<Node> = Vec::new();
            for session in &obs.sessions {
                last.clear();
                for &t3 in session {
                    let reads = &obs.reads[t3 as usize];
                    for (i, r) in reads.iter().enumerate() {
                        let seen = if level == WeakLevel::ReadCommitted { &reads[..i] } else { reads };
                        candidates.clear();
                        candidates.extend(seen.iter().flat_map(|other| obs.saw(other)));
                        candidates.sort_unstable();
                        candidates.dedup();
                        for &t2 in &candidates {
                            if t2 != INIT && t2 != r.from && obs.wrote(t2, r.key) {
                                push(t2, r.from, t3, i);
                            }
                        }
                        if level == WeakLevel::ReadAtomic
                            && let Some(&t2) = last.get(&r.key)
                        {
                            push(t2, r.from, t3, i);
                        }
                    }
                    for &k in &obs.writes[t3 as usize] {
                        last.insert(k, t3);
                    }
                }
            }
        }
        WeakLevel::Causal => {
            let k = obs.sessions.len();
            // Per session and key, the places of the session's writers of the key, in order.
            let mut writers: FxHashMap<(u32, u32), Vec<u32>> = FxHashMap::default();
            for (s, session) in obs.sessions.iter().enumerate() {
                for (p, &n) in session.iter().enumerate() {
                    for &key in &obs.writes[n as usize] {
                        writers.entry((s as u32, key)).or_default().push(p as u32);
                    }
                }
            }
            // Each transaction's causal past: per session, one more than the last place in it (0: none).
            // A clock is kept only while a later transaction still needs it (its session successor, or a
            // reader of it), so memory follows the transactions in flight, not n times k.
            let mut uses = vec![0u32; obs.len()];
            for (n, reads) in obs.reads.iter().enumerate() {
                if n != INIT as usize && obs.place[n] > 0 {
                    let s = obs.session[n] as usize;
                    uses[obs.sessions[s][obs.place[n] as usize - 1] as usize] += 1;
                }
                for r in reads {
                    for from in obs.saw(r).filter(|&f| f != INIT) {
                        uses[from as usize] += 1;
                    }
                }
            }
            let mut clock: Vec<Vec<u32>> = vec![Vec::new(); obs.len()];
            for &t3 in order {
                if t3 == INIT {
                    continue;
                }
                let (s3, p3) = (obs.session[t3 as usize] as usize, obs.place[t3 as usize]);
                let mut mine = vec![0u32; k];
                let mut join = |p: Node, mine: &mut Vec<u32>| {
                    let (s, at) = (obs.session[p as usize] as usize, obs.place[p as usize]);
                    for (m, c) in mine.iter_mut().zip(&clock[p as usize]) {
                        *m = (*m).max(*c);
                    }
                    mine[s] = mine[s].max(at + 1);
                    uses[p as usize] -= 1;
                };
                let mut joined: Vec<Node> = Vec::new();
                if p3 > 0 {
                    joined.push(obs.sessions[s3][p3 as usize - 1]);
                }
                for r in &obs.reads[t3 as usize] {
                    joined.extend(obs.saw(r).filter(|&f| f != INIT));
                }
                for &p in &joined {
                    join(p, &mut mine);
                }
                for (i, r) in obs.reads[t3 as usize].iter().enumerate() {
                    // A writer already in the causal past of the writer read from adds no order: the edge
                    // is left out (causal order has it), so the edges stay few on a consistent history.
                    let past: &[u32] = if r.from == INIT { &[] } else { &clock[r.from as usize] };
                    for (s, &upto) in mine.iter().enumerate() {
                        let Some(places) = writers.get(&(s as u32, r.key)) else { continue };
                        let before = places.partition_point(|&p| p < upto);
                        if before > 0 {
                            let place = places[before - 1];
                            if past.get(s).is_some_and(|&c| c > place) {
                                continue;
                            }
                            push(obs.sessions[s][place as usize], r.from, t3, i);
                        }
                    }
                }
                // A clock is dropped once the last transaction that needs it has read it.
                for p in joined {
                    if uses[p as usize] == 0 {
                        clock[p as usize] = Vec::new();
                    }
                }
                if uses[t3 as usize] > 0 {
                    clock[t3 as usize] = mine;
                }
            }
        }
    }
}

/// A topological order of the nodes under `edges`, or the nodes left on or after a cycle.
pub(crate) fn topological(n: usize, edges: &[Edge]) -> Result<Vec<Node>, Vec<bool>> {
    let pairs: Vec<(Node, Node)> = edges.iter().map(|e| (e.from, e.to)).collect();
    sorted(n, &pairs)
}

/// A topological order of the nodes under the edges `pairs` (from, to), or the nodes left on or after a
/// cycle. Only the ends: deciding whether a level holds needs no more, and 8 bytes an edge rather than an
/// [`Edge`]'s 32 is less memory to fill and walk (a million edges and more at AWDIT's 1M events).
fn sorted(n: usize, pairs: &[(Node, Node)]) -> Result<Vec<Node>, Vec<bool>> {
    // Each node's successors, grouped (a compressed sparse row), and its in-degree.
    let mut start = vec![0u32; n + 1];
    let mut indegree = vec![0u32; n];
    for &(from, to) in pairs {
        start[from as usize + 1] += 1;
        indegree[to as usize] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut targets = vec![0 as Node; pairs.len()];
    let mut fill = start[..n].to_vec();
    for &(from, to) in pairs {
        targets[fill[from as usize] as usize] = to;
        fill[from as usize] += 1;
    }
    drop(fill);
    let mut order: Vec<Node> = Vec::with_capacity(n);
    order.extend((0..n as Node).filter(|&v| indegree[v as usize] == 0));
    let mut at = 0;
    while at < order.len() {
        let v = order[at] as usize;
        at += 1;
        for &w in &targets[start[v] as usize..start[v + 1] as usize] {
            let w = w as usize;
            indegree[w] -= 1;
            if indegree[w] == 0 {
                order.push(w as Node);
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    let mut left = vec![true; n];
    for &v in &order {
        left[v as usize] = false;
    }
    Err(left)
}

/// Edge indices grouped by `key` (a compressed sparse row): `start[v]..start[v + 1]` in the second.
fn csr(n: usize, edges: &[Edge], key: impl Fn(&Edge) -> Node) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for e in edges {
        start[key(e) as usize + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut list = vec![0u32; edges.len()];
    for (i, e) in edges.iter().enumerate() {
        let v = key(e) as usize;
        list[fill[v] as usize] = i as u32;
        fill[v] += 1;
    }
    (start, list)
}

/// Candidate forced edges tried when looking for the cycle with the fewest forced edges.
const CANDIDATES: usize = 256;

/// A cycle among the nodes `left` (those a topological sort could not place), with as few forced
/// edges as the search finds.
pub(crate) fn cycle(n: usize, edges: &[Edge], left: &[bool]) -> Vec<Edge> {
    let inside = |e: &Edge| left[e.from as usize] && left[e.to as usize];
    let (start, out) = csr(n, edges, |e| e.from);
    let mut best: Option<(u32, usize, Vec<Edge>)> = None;
    let mut dist = vec![u32::MAX; n];
    let mut parent = vec![u32::MAX; n];
    let mut touched: Vec<usize> = Vec::new();
    // Forced edges close the cycles of a level (causal order has none); the first few are tried.
    let any_forced = edges.iter().any(|e| inside(e) && e.arbitrary() > 0);
    let candidates = edges.iter().filter(|e| inside(e) && (!any_forced || e.arbitrary() > 0)).take(CANDIDATES);
    // Once a cycle is known, the search for a better one stops after visiting a few times the graph's
    // edges, so a large component costs a bounded number of passes, not one per candidate.
    let budget = 4 * edges.len() + n;
    let mut work = 0usize;
    for closing in candidates {
        if best.is_some() && work > budget {
            break;
        }
        for &v in &touched {
            dist[v] = u32::MAX;
            parent[v] = u32::MAX;
        }
        touched.clear();
        // 0-1 BFS from the closing edge's target back to its source.
        let mut queue = VecDeque::new();
        dist[closing.to as usize] = 0;
        touched.push(closing.to as usize);
        queue.push_back((closing.to, 0));
        while let Some((v, d)) = queue.pop_front() {
            let v = v as usize;
            if d > dist[v] {
                continue;
            }
            for &e in &out[start[v] as usize..start[v + 1] as usize] {
                work += 1;
                let edge = &edges[e as usize];
                if !inside(edge) {
                    continue;
                }
                let w = edge.to as usize;
                let d = dist[v] + edge.arbitrary();
                if d < dist[w] {
                    if dist[w] == u32::MAX {
                        touched.push(w);
                    }
                    dist[w] = d;
                    parent[w] = e;
                    if edge.arbitrary() == 0 {
                        queue.push_front((w as Node, d));
                    } else {
                        queue.push_back((w as Node, d));
                    }
                }
            }
        }
        if dist[closing.from as usize] == u32::MAX {
            continue;
        }
        let mut path = vec![*closing];
        let mut v = closing.from as usize;
        while v != closing.to as usize {
            let e = edges[parent[v] as usize];
            path.push(e);
            v = e.from as usize;
        }
        // Reversed, the cycle starts at the closing edge's target and ends with the closing edge.
        path.reverse();
        let cost = dist[closing.from as usize] + closing.arbitrary();
        if best.as_ref().is_none_or(|(c, l, _)| (cost, path.len()) < (*c, *l)) {
            best = Some((cost, path.len(), path));
        }
    }
    if let Some((_, _, path)) = best {
        return path;
    }
    // No candidate closed a cycle (they all lie between cycles): walk back from a node left, whose
    // every predecessor chain stays among the nodes left, until a node repeats.
    let (istart, inn) = csr(n, edges, |e| e.to);
    let mut v = left.iter().position(|&l| l).unwrap_or(0);
    let mut seen = vec![u32::MAX; n];
    let mut walk: Vec<Edge> = Vec::new();
    while seen[v] == u32::MAX {
        seen[v] = walk.len() as u32;
        let e = inn[istart[v] as usize..istart[v + 1] as usize]
            .iter()
            .map(|&e| edges[e as usize])
            .find(|e| left[e.from as usize])
            .expect("a node a topological sort could not place has a predecessor it could not place");
        walk.push(e);
        v = e.from as usize;
    }
    let mut cycle: Vec<Edge> = walk[seen[v] as usize..].to_vec();
    cycle.reverse();
    cycle
}

/// Plume's name for a cycle found at `level`.
pub(crate) fn pattern(cycle: &[Edge]) -> &'static str {
    let versions = cycle.iter().any(|e| matches!(e.kind, EdgeKind::Version(..)));
    let forced: Vec<Forced> = cycle
        .iter()
        .filter_map(|e| match e.kind {
            EdgeKind::Forced(f) => Some(f),
            _ => None,
        })
        .collect();
    let strongest = forced.iter().map(|f| f.why.level()).max();
    match (forced.len() + usize::from(versions), strongest) {
        // Version order and causal order alone: Elle's G1c, which Plume's patterns (over registers) lack.
        (_, None) if versions && cycle.iter().any(|e| e.kind == EdgeKind::Session) => "G1c-process",
        (_, None) if versions => "G1c",
        (0, _) | (_, None) => "cyclic-causal-order",
        (1, Some(WeakLevel::ReadCommitted)) => "non-monotonic-read-causal",
        (1, Some(WeakLevel::ReadAtomic)) => "fractured-read-causal",
        (1, Some(WeakLevel::Causal)) => "causal-conflict-arbitration",
        (_, Some(WeakLevel::ReadCommitted)) => "non-monotonic-read-arbitration",
        (_, Some(WeakLevel::ReadAtomic)) => "fractured-read-arbitration",
        (_, Some(WeakLevel::Causal)) => "conflict-arbitration",
    }
}

/// What the levels up to `strongest` find: causal order's cycle, else the first level that fails. Read
/// atomic's non-repeatable reads are looked for before its cycles (they would close one of two forced
/// edges, named better as what they are).
pub(crate) fn analyse(obs: &Observations<'_>, strongest: WeakLevel) -> Found {
    let n = obs.len();
    if holds(obs, strongest) {
        return Found::Nothing;
    }
    let causal = causal_edges(obs);
    let order = match topological(n, &causal) {
        Ok(order) => order,
        Err(left) => {
            let cycle = cycle(n, &causal, &left);
            return Found::Cycle(Violation { level: WeakLevel::ReadCommitted, pattern: "cyclic-causal-order", cycle });
        }
    };
    for level in WeakLevel::ALL.into_iter().filter(|&l| l <= strongest) {
        if level == WeakLevel::ReadAtomic {
            let repeated = non_repeatable(obs);
            if !repeated.is_empty() {
                return Found::NonRepeatable(repeated);
            }
        }
        let mut edges = causal.clone();
        edges.extend(obs.ww.iter().map(|&(from, to, key, shown)| Edge {
            from,
            to,
            kind: EdgeKind::Version(key, shown),
        }));
        forced(obs, level, &order, true, |f| edges.push(Edge { from: f.from, to: f.to, kind: EdgeKind::Forced(f) }));
        if let Err(left) = topological(n, &edges) {
            let cycle = cycle(n, &edges, &left);
            return Found::Cycle(Violation { level, pattern: pattern(&cycle), cycle });
        }
    }
    Found::Nothing
}

/// Whether `level` holds, decided without naming what breaks it: one topological sort of causal order,
/// the version order and the level's forced edges (and one of causal order first for causal
/// consistency, whose forced edges need its order). A level's forced edges order, directly or through
/// session order, every pair a weaker level's do, and read atomic's close a cycle through any
/// non-repeatable read, so a history the strongest level asked for passes passes every weaker one:
/// [`analyse`] decides that first, and goes through the levels one by one, weakest first, only when it
/// fails.
fn holds(obs: &Observations<'_>, level: WeakLevel) -> bool {
    let n = obs.len();
    let mut pairs = causal_pairs(obs);
    let order = match level {
        WeakLevel::Causal => match sorted(n, &pairs) {
            Ok(order) => order,
            Err(_) => return false,
        },
        _ => Vec::new(),
    };
    pairs.extend(obs.ww.iter().map(|&(from, to, _, _)| (from, to)));
    forced(obs, level, &order, false, |f| pairs.push((f.from, f.to)));
    drop(order);
    sorted(n, &pairs).is_ok()
}

/// Causal order's edges as [`causal_edges`] gives them, by their ends alone.
fn causal_pairs(obs: &Observations<'_>) -> Vec<(Node, Node)> {
    let mut pairs = Vec::with_capacity(obs.len() + obs.reads.items());
    for session in &obs.sessions {
        let mut before = INIT;
        for &n in session {
            pairs.push((before, n));
            before = n;
        }
    }
    for (n, reads) in obs.reads.iter().enumerate() {
        for r in reads {
            pairs.extend(obs.saw(r).filter(|&f| f != INIT).map(|from| (from, n as Node)));
        }
    }
    pairs
}

/// What [`analyse`] finds.
pub(crate) enum Found {
    /// Every level asked for holds (but for the reads `Observations::bad` lists).
    Nothing,
    /// Reads of one key in one transaction from different writers: read atomic fails.
    NonRepeatable(Vec<(Node, u32, u32)>),
    /// A level fails, with its cycle.
    Cycle(Violation),
}
