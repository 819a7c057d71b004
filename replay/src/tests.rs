use checker::{Options, check};
use histories::{Format, OpType, parse};

use super::*;

/// The anomalies of a JSON Lines history, checked for strict serializability.
fn anomalies(text: &str) -> checker::CheckResult {
    let history = parse(text, Format::JsonLines, "test.jsonl").unwrap();
    let options = Options::new(&["strict-serializable".to_string()], &[]).unwrap();
    check(&history, &options).unwrap()
}

/// The steps as `session:statement`, statements as `begin`, `r<key>`, `w<key>=<value>`, `commit`.
fn script(scenario: &Scenario) -> Vec<String> {
    scenario
        .steps
        .iter()
        .map(|step| {
            let what = match &step.action {
                Action::Begin => "begin".to_string(),
                Action::Commit => "commit".to_string(),
                Action::Read { key } => format!("r{key}"),
                Action::Write { key, value } => format!("w{key}={value}"),
                other => panic!("a reproduction issued {other:?}"),
            };
            format!("{}:{what}", step.s)
        })
        .collect()
}

fn sessions(scenario: &Scenario) -> Vec<String> {
    scenario.steps.iter().filter(|s| s.action == Action::Begin).map(|s| s.note.clone().unwrap()).collect()
}

#[test]
fn write_skew_overlaps_both_transactions_and_commits_after_both_read() {
    // T1 and T3 each append to one key and read the other's empty: G2-item.
    let result = anomalies(
        r#"{"type":"invoke","process":0,"value":[["append","x",1],["r","y",null]]}
{"type":"invoke","process":1,"value":[["append","y",2],["r","x",null]]}
{"type":"ok","process":0,"value":[["append","x",1],["r","y",[]]]}
{"type":"ok","process":1,"value":[["append","y",2],["r","x",[]]]}"#,
    );
    let cycle = result.anomalies["G2-item"][0].as_cycle().unwrap();
    let scenario = reproduction("G2-item", 1, cycle).unwrap();
    assert_eq!(
        (scenario.name.as_str(), scenario.probe.as_str(), scenario.column.as_str()),
        ("G2-item-1", "G2-item", "G2-item")
    );
    // String keys are numbered in order of appearance; every row starts at a value nobody writes.
    let first = &cycle.ops[0];
    let (x, y) = if first.index == 2 { (1, 2) } else { (2, 1) };
    assert!(
        scenario.title.contains(&format!("key {x} is x")) && scenario.title.contains(&format!("key {y} is y")),
        "{}",
        scenario.title
    );
    assert_eq!(scenario.rows, vec![(1, 0), (2, 0)]);
    let (a, b) = if first.index == 2 { ((x, 1, y), (y, 2, x)) } else { ((y, 2, x), (x, 1, y)) };
    // Each session begins with its first statement, reads the key it appends to (as an append reads the
    // list it extends), writes it, then reads the other's key; neither commits before both have read.
    assert_eq!(
        script(&scenario),
        [
            "1:begin".to_string(),
            format!("1:r{}", a.0),
            "2:begin".to_string(),
            format!("2:r{}", b.0),
            format!("1:w{}={}", a.0, a.1),
            format!("1:r{}", a.2),
            format!("2:w{}={}", b.0, b.1),
            format!("2:r{}", b.2),
            "1:commit".to_string(),
            "2:commit".to_string(),
        ]
    );
    // Both reads precede both commits, and the writers share no key: every edge happens at both levels.
    assert_eq!(scenario.forces, ["read-committed", "snapshot-isolation"]);
    assert!(scenario.cannot_force.is_empty(), "{:?}", scenario.cannot_force);
    assert_eq!(sessions(&scenario), cycle.ops.iter().map(|o| format!("T{}", o.index)).collect::<Vec<_>>());
}

#[test]
fn read_skew_commits_the_writer_between_the_two_reads() {
    // T1 (index 3) reads x before T2 wrote it and y after: G-single, rw then wr.
    let result = anomalies(
        r#"{"type":"invoke","process":0,"value":[["r",1,null],["r",2,null]]}
{"type":"invoke","process":1,"value":[["append",1,5],["append",2,6]]}
{"type":"ok","process":1,"value":[["append",1,5],["append",2,6]]}
{"type":"ok","process":0,"value":[["r",1,[]],["r",2,[6]]]}"#,
    );
    let cycle = result.anomalies["G-single-item"][0].as_cycle().unwrap();
    let scenario = reproduction("G-single-item", 1, cycle).unwrap();
    assert_eq!((scenario.probe.as_str(), scenario.column.as_str()), ("G-single", "G-single"));
    assert_eq!(scenario.rows, vec![(1, 0), (2, 0)]);
    let reader = 1 + cycle.ops.iter().position(|o| o.index == 3).unwrap();
    let writer = 3 - reader;
    // The read of key 2 must see the writer's commit, so it waits for it; the read of key 1 must not,
    // so it goes first. The writer cannot commit before the reader begins, as the reader's first read
    // must miss it.
    let expected: Vec<String> = [
        (reader, "begin"),
        (reader, "r1"),
        (writer, "begin"),
        (writer, "r1"),
        (writer, "w1=5"),
        (writer, "r2"),
        (writer, "w2=6"),
        (writer, "commit"),
        (reader, "r2"),
        (reader, "commit"),
    ]
    .iter()
    .map(|(s, w)| format!("{s}:{w}"))
    .collect();
    assert_eq!(script(&scenario), expected);
    // Snapshot isolation prohibits G-single: the reader's snapshot cannot both miss and see the writer.
    assert_eq!(scenario.forces, ["read-committed"]);
    let why = &scenario.cannot_force["snapshot-isolation"];
    assert_eq!(
        why,
        "T3 → T2 (rw on key 1): T3's snapshot must come before T2 commits, with no other writer of key 1 \
         committing before T2, and the cycle's other edges rule that out"
    );
}

#[test]
fn a_write_cycle_interleaves_the_first_writes_and_orders_the_second_after_a_commit() {
    // Key 1 cannot wait for a commit (each transaction would wait for the other), so its writes are only
    // ordered, which a locking system refuses by blocking; key 2's second writer waits for the first's
    // commit.
    // T1 then T2 on key 1, T2 then T1 on key 2, as a later read of both shows: G0.
    let result = anomalies(
        r#"{"type":"invoke","process":0,"value":[["append",1,1],["append",2,1]]}
{"type":"invoke","process":1,"value":[["append",1,2],["append",2,2]]}
{"type":"ok","process":0,"value":[["append",1,1],["append",2,1]]}
{"type":"ok","process":1,"value":[["append",1,2],["append",2,2]]}
{"type":"invoke","process":2,"value":[["r",1,null],["r",2,null]]}
{"type":"ok","process":2,"value":[["r",1,[1,2]],["r",2,[2,1]]]}"#,
    );
    let cycle = result.anomalies["G0"][0].as_cycle().unwrap();
    let scenario = reproduction("G0", 1, cycle).unwrap();
    assert_eq!((scenario.probe.as_str(), scenario.column.as_str()), ("G0", "G0"));
    let s1 = 1 + cycle.ops.iter().position(|o| o.index == 2).unwrap();
    let s2 = 3 - s1;
    let mut actual = script(&scenario);
    actual[..2].sort();
    assert_eq!(
        actual,
        [
            "1:begin".to_string(),
            "2:begin".to_string(),
            format!("{s1}:r1"),
            format!("{s2}:r1"),
            format!("{s1}:w1=1"),
            format!("{s1}:r2"),
            format!("{s2}:w1=2"),
            format!("{s2}:r2"),
            format!("{s2}:w2=2"),
            format!("{s2}:commit"),
            format!("{s1}:w2=1"),
            format!("{s1}:commit"),
        ]
    );
    // Values 1 and 2 are written, so the rows start at 0.
    assert_eq!(scenario.rows, vec![(1, 0), (2, 0)]);
    // Versions are installed in commit order, so no order of commits makes both ww edges happen: the
    // steps force nothing, and say which edge fails.
    assert!(scenario.forces.is_empty());
    let edge = format!("T{} → T{} (ww on key 1)", cycle.steps[0].from, cycle.steps[0].to);
    for level in ["read-committed", "snapshot-isolation"] {
        let why = &scenario.cannot_force[level];
        assert!(why.starts_with(&format!("{edge}: T")) && why.contains("must begin after"), "{level}: {why}");
    }
}

fn txn(index: u64, value: Vec<Mop>) -> TxnView {
    TxnView {
        index,
        invoke_index: index,
        process: index.to_string(),
        outcome: OpType::Ok,
        value,
        init_rows: None,
        invoke_time: None,
        complete_time: None,
        error: None,
    }
}

fn edge(kind: Kind, key: Option<i64>, from: u64, to: u64) -> checker::Step {
    checker::Step { kind, key: key.map(Key::Int), from, to, explanation: String::new() }
}

fn cycle(ops: Vec<TxnView>, steps: Vec<checker::Step>) -> Cycle {
    Cycle {
        cycle: ops.iter().map(|o| o.index).collect(),
        steps,
        explanation: String::new(),
        ops,
        shape: None,
        facts: serde_json::Map::new(),
    }
}

#[test]
fn an_order_edge_makes_the_probe_realtime_and_is_kept_by_the_schedule() {
    // T1 -rw(1)-> T2 -realtime-> T1 is G-single-item-realtime: T2 over before T1 begins, T1 reading
    // key 1 before T2's write commits: impossible, so no schedule.
    let w = |key, value| Mop::Write { key: Key::Int(key), value, version: None };
    let r = |key| Mop::Read { key: Key::Int(key), value: histories::Observed::Nil };
    let impossible = cycle(
        vec![txn(1, vec![r(1)]), txn(2, vec![w(1, 7)])],
        vec![edge(Kind::Rw, Some(1), 1, 2), edge(Kind::Realtime, None, 2, 1)],
    );
    assert_eq!(
        reproduction("G-single-item-realtime", 1, &impossible).unwrap_err().to_string(),
        "no order of the statements makes every edge of the cycle happen (a real-time cycle like this one \
         usually needs a stale read, which no schedule can force); at read committed, T1 → T2 (rw on key 1): \
         T1's read of key 1 must come before T2 commits, with no other writer of key 1 committing before T2, \
         and the cycle's other edges rule that out"
    );
    // T1 -process-> T2 -rw(1)-> T3 -wr(2)-> T1 is possible, but only with a dirty read.
    let possible = cycle(
        vec![txn(1, vec![r(2)]), txn(2, vec![r(1)]), txn(3, vec![w(1, 5), w(2, 6)])],
        vec![edge(Kind::Process, None, 1, 2), edge(Kind::Rw, Some(1), 2, 3), edge(Kind::Wr, Some(2), 3, 1)],
    );
    let scenario = reproduction("G-single-item-process", 1, &possible).unwrap();
    assert_eq!((scenario.probe.as_str(), scenario.column.as_str()), ("G-single-realtime", "G-single"));
    // Session 1 is over before session 2 begins, and session 2 reads key 1 before session 3 commits, so
    // session 1 cannot wait for that commit: it reads session 3's write of key 2 uncommitted.
    assert_eq!(
        script(&scenario),
        [
            "1:begin", "3:begin", "3:r1", "3:w1=5", "3:r2", "3:w2=6", "1:r2", "1:commit", "2:begin", "2:r1",
            "2:commit", "3:commit"
        ]
    );
}

#[test]
fn what_cannot_be_replayed_says_why() {
    let insert = cycle(
        vec![txn(1, vec![Mop::Insert { key: Key::Int(1), value: 1 }]), txn(2, vec![])],
        vec![edge(Kind::Ww, Some(1), 1, 2), edge(Kind::Ww, Some(1), 2, 1)],
    );
    assert_eq!(reproduction("G0", 1, &insert), Err(Unreproducible::Operation("inserts and deletes")));
    assert_eq!(
        reproduction("PL-SI-cycle-exists", 1, &insert),
        Err(Unreproducible::Class("PL-SI-cycle-exists".to_string()))
    );
    let w = Mop::Write { key: Key::Int(1), value: 3, version: None };
    let missing = cycle(
        vec![txn(1, vec![w.clone()]), txn(2, vec![w])],
        vec![edge(Kind::Wr, Some(1), 1, 2), edge(Kind::Ww, Some(1), 2, 1)],
    );
    assert_eq!(reproduction("G1c", 1, &missing).unwrap_err().to_string(), "the wr edge T1 → T2 has no read");
}

#[test]
fn rows_start_at_a_value_no_transaction_writes() {
    let w = |value| Mop::Write { key: Key::Int(4), value, version: None };
    let r = Mop::Read { key: Key::Int(4), value: histories::Observed::Nil };
    let c = cycle(
        vec![txn(1, vec![r.clone(), w(0)]), txn(2, vec![r, w(-1)])],
        vec![edge(Kind::Rw, Some(4), 1, 2), edge(Kind::Rw, Some(4), 2, 1)],
    );
    let scenario = reproduction("G2-item", 1, &c).unwrap();
    assert_eq!(scenario.rows, vec![(4, -2)]);
    // The scenario is a file the format reads back.
    let text = scenario.to_string();
    assert_eq!(generators::hermitage::parse(&text, "G2-item-1.toml").unwrap(), scenario);
}

#[test]
fn the_searches_for_one_cycle_share_one_budget() {
    // A ww cycle through ten transactions, each writing the key it shares with the one before it and the
    // key it shares with the one after it: no order exists (the writers of a key commit one after the
    // other, round the cycle), and the transactions that share no key interleave in so many ways that the
    // searches run out. All of them together (both levels, each level alone, each edge left out to find
    // the one to blame) look at no more partial orders than one budget allows, and every level says the
    // search gave up rather than claiming anything.
    let n: u64 = 10;
    let w = |key: u64, value: i64| Mop::Write { key: Key::Int(key as i64), value, version: None };
    let ops: Vec<TxnView> =
        (0..n).map(|i| txn(i + 1, vec![w(i, 10 + i as i64), w((i + 1) % n, 20 + i as i64)])).collect();
    let steps = (0..n).map(|i| edge(Kind::Ww, Some(((i + 1) % n) as i64), i + 1, (i + 1) % n + 1)).collect();
    let g0 = cycle(ops, steps);
    let keys = KeyNumbers::of(&g0.ops).unwrap();
    let txns: Vec<Txn> = g0.ops.iter().map(|op| Txn::of(op, &keys).unwrap()).collect();
    let edges: Vec<forcing::Edge> = g0
        .steps
        .iter()
        .map(|s| {
            let key = s.key.as_ref().map(|k| keys.number(k).unwrap());
            EdgeOrders::of(s.kind, (s.from - 1) as usize, (s.to - 1) as usize, key, &txns).unwrap().1
        })
        .collect();
    let found = forcing::forcing(&txns, &edges);
    assert!(found.schedule.is_none() && found.forces.is_empty());
    assert_eq!(found.searched, forcing::BUDGET, "the searches should have run out of their one budget");
    assert_eq!(found.cannot.len(), 2);
    for (level, why) in &found.cannot {
        assert!(why.contains("gave up after 20000 partial orders in all"), "{level:?}: {why}");
    }
}
