//! Writing a history and reading it back gives the same operations, in every format: every history
//! saved in `testdata/` and `examples/`, and generated operations with every feature the model has
//! (nemesis ops, `init` rows, predicate reads, errors, unknown fields, string keys that need escaping).
//! EDN maps have no order, so the unknown fields of an operation are compared as a set.

use std::path::{Path, PathBuf};

use histories::{Format, Function, History, Key, Mop, Observed, Op, OpType, OpValue, Position, Predicate, Process};
use proptest::prelude::*;

const FORMATS: [Format; 3] = [Format::JsonLines, Format::JsonArray, Format::Edn];

/// An operation as the round trip must keep it: everything but where it stood in its file.
fn comparable(op: &Op) -> Op {
    let mut op = op.clone();
    op.at = Position::new(1, 1);
    let mut extra = op.extra().to_vec();
    extra.sort_by(|a, b| a.0.cmp(&b.0));
    op.set_extra(extra);
    op
}

fn written(history: &History, format: Format) -> String {
    let mut out = Vec::new();
    histories::write_history(history.ops(), format, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("UTF-8")
}

/// The round trip through every format, as a description of the first difference, if any.
fn round_trip(history: &History, name: &str) -> Result<(), String> {
    let original: Vec<Op> = history.ops().iter().map(comparable).collect();
    for format in FORMATS {
        let text = written(history, format);
        let back = histories::parse(&text, format, name).map_err(|e| format!("{name} as {format:?}: {e}"))?;
        let back: Vec<Op> = back.ops().iter().map(comparable).collect();
        if back.len() != original.len() {
            return Err(format!("{name} as {format:?}: {} ops came back of {}", back.len(), original.len()));
        }
        if let Some((a, b)) = original.iter().zip(&back).find(|(a, b)| a != b) {
            return Err(format!("{name} as {format:?}: {a:?} came back as {b:?}"));
        }
    }
    Ok(())
}

fn history_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            history_files(&path, found);
        } else if Format::from_extension(&path).is_some() {
            found.push(path);
        }
    }
}

#[test]
fn every_saved_history_round_trips_through_every_format() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    history_files(&root.join("testdata"), &mut files);
    history_files(&root.join("examples"), &mut files);
    files.sort();
    let mut checked = 0;
    for file in &files {
        // A fixture of a malformed history is not a history; the readers' tests own those.
        let Ok(history) = histories::read_file(file) else {
            eprintln!("{}: not a well-formed history, skipped", file.display());
            continue;
        };
        round_trip(&history, &file.display().to_string()).unwrap();
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} histories found under testdata/ and examples/: {files:?}");
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![(-3i64..40).prop_map(Key::Int), "[a-z \"\\\\\n\té]{1,4}".prop_map(|s| Key::Str(s.into()))]
}

fn mop(key: BoxedStrategy<Key>) -> impl Strategy<Value = Mop> {
    let rows = proptest::collection::btree_map(key.clone(), -5i64..50, 0..3);
    prop_oneof![
        (key.clone(), any::<i64>()).prop_map(|(key, value)| Mop::Append { key, value }),
        (key.clone(), any::<i64>()).prop_map(|(key, value)| Mop::Write { key, value, version: None }),
        (key.clone(), any::<i64>()).prop_map(|(key, value)| Mop::Insert { key, value }),
        key.clone().prop_map(|key| Mop::Delete { key }),
        (key.clone(), -1i64..9).prop_map(|(key, v)| Mop::Read { key, value: Observed::Int(v) }),
        key.clone().prop_map(|key| Mop::Read { key, value: Observed::Nil }),
        (key, proptest::collection::vec(-2i64..9, 0..4))
            .prop_map(|(key, list)| Mop::Read { key, value: Observed::List(list.into()) }),
        (
            prop_oneof![
                Just(Predicate::True),
                (-3i64..9).prop_map(Predicate::Eq),
                (1i64..5, -2i64..5).prop_map(|(m, r)| Predicate::Mod { m, r })
            ],
            proptest::option::of(rows)
        )
            .prop_map(|(predicate, rows)| Mop::PredicateRead { predicate, rows: rows.map(Box::new) }),
    ]
}

/// A JSON value as an unknown field or a nemesis value might hold (integers: EDN has no exact floats).
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        "[a-z0-9 \"\\\\:]{0,6}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(serde_json::Value::from),
            proptest::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

/// One client transaction (its invoke and completion) or a nemesis op, as generated before numbering.
#[derive(Debug, Clone)]
enum Event {
    Txn {
        process: u64,
        f: Function,
        mops: Vec<Mop>,
        outcome: OpType,
        error: Option<String>,
        commit_order: Option<i64>,
        extra: Vec<(String, serde_json::Value)>,
    },
    Nemesis {
        f: String,
        value: serde_json::Value,
    },
}

fn event(ints: bool) -> impl Strategy<Value = Event> {
    let key = if ints {
        (0i64..20).prop_map(Key::Int).boxed()
    } else {
        key().prop_filter("a string key", |k| matches!(k, Key::Str(_))).boxed()
    };
    let f = prop_oneof![
        Just(Function::Txn),
        Just(Function::Named("withdraw".into())),
        Just(Function::Named("two words".into()))
    ];
    let outcome = prop_oneof![Just(OpType::Ok), Just(OpType::Fail), Just(OpType::Info)];
    let extra = proptest::collection::btree_map("[a-z][a-z-]{0,5}|[0-9 ]{1,3}", json_value(), 0..3).prop_map(|m| {
        m.into_iter()
            .filter(|(k, _)| {
                !["index", "type", "process", "f", "time", "value", "error", "commit_order", "commit-order"]
                    .contains(&k.as_str())
            })
            .collect()
    });
    prop_oneof![
        4 => (0u64..4, f, proptest::collection::vec(mop(key), 0..4), outcome, proptest::option::of("[a-z0-9 \"]{0,8}"), proptest::option::of(-3i64..1_000_000), extra)
            .prop_map(|(process, f, mops, outcome, error, commit_order, extra)| Event::Txn { process, f, mops, outcome, error, commit_order, extra }),
        1 => ("[a-z]{1,6}", json_value()).prop_map(|(f, value)| Event::Nemesis { f, value }),
    ]
}

/// A well-formed history of these events: each transaction invoked and completed at once, values made
/// unique per key as the readers require, times rising, an `init` op first when asked.
fn build(events: Vec<Event>, init: Option<histories::Rows>) -> History {
    let mut ops = Vec::new();
    let next =
        |ops: &mut Vec<Op>, kind, process, f, value, error: Option<String>, extra: Vec<(String, serde_json::Value)>| {
            let index = ops.len() as u64;
            let mut op = Op::new(kind, process, f, value).with_error(error);
            op.index = index * 2 + 1;
            op.set_time((!index.is_multiple_of(3)).then_some(index as i64 * 1000));
            op.set_extra(extra.into_iter().map(|(k, v)| (k.into(), v)).collect());
            op.at = Position::new(1, 1);
            ops.push(op);
        };
    if let Some(rows) = init {
        for kind in [OpType::Invoke, OpType::Ok] {
            next(
                &mut ops,
                kind,
                Process::Client(0),
                Function::Init,
                OpValue::Rows(Box::new(rows.clone())),
                None,
                Vec::new(),
            );
        }
    }
    let mut unique = 1_000_000i64;
    for event in events {
        match event {
            Event::Txn { process, f, mut mops, outcome, error, commit_order, extra } => {
                for m in &mut mops {
                    if let Mop::Append { value, .. } | Mop::Write { value, .. } | Mop::Insert { value, .. } = m {
                        unique += 1;
                        *value = unique;
                    }
                }
                let invoke: Vec<Mop> = mops
                    .iter()
                    .map(|m| match m {
                        Mop::Read { key, .. } => Mop::Read { key: key.clone(), value: Observed::Nil },
                        Mop::PredicateRead { predicate, .. } => {
                            Mop::PredicateRead { predicate: *predicate, rows: None }
                        }
                        other => other.clone(),
                    })
                    .collect();
                let p = Process::Client(process);
                next(&mut ops, OpType::Invoke, p, f.clone(), OpValue::Txn(invoke.into()), None, Vec::new());
                next(&mut ops, outcome, p, f, OpValue::Txn(mops.into()), error, extra);
                if let Some(completion) = ops.last_mut() {
                    completion.set_commit_order(commit_order);
                }
            }
            Event::Nemesis { f, value } => {
                next(
                    &mut ops,
                    OpType::Info,
                    Process::Nemesis,
                    Function::parse(&f),
                    OpValue::Other(Box::new(value)),
                    None,
                    Vec::new(),
                );
            }
        }
    }
    History::from_ops(ops).expect("a generated history is well formed")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn generated_histories_round_trip_through_every_format(
        ints in any::<bool>(),
        events in proptest::collection::vec(event(true), 0..8),
        string_events in proptest::collection::vec(event(false), 0..8),
        init in proptest::option::of(proptest::collection::btree_map((0i64..9).prop_map(Key::Int), -5i64..50, 0..3)),
    ) {
        let history = if ints { build(events, init) } else { build(string_events, None) };
        if let Err(difference) = round_trip(&history, "generated") {
            let text = written(&history, Format::JsonLines);
            prop_assert!(false, "{difference}\nthe history:\n{text}");
        }
    }
}
