//! Reading Jepsen histories written in EDN: a stream of operation maps (one a line, as Jepsen's
//! `history.edn`) or one vector of them, with keywords for types and micro-ops
//! (`{:type :ok, :process 3, :value [[:append 1 2] [:r 1 [2]]]}`). Parsing EDN text is the
//! `clojure-reader` crate's job; this module turns its values into operations and positions its
//! errors in the file.

use clojure_reader::edn::{self, Edn};
use clojure_reader::error::{Code, Error as EdnError};

use crate::error::Located;
use crate::error::Problem;
use crate::key::Key;
use crate::mop::{Mop, Observed, Predicate, Rows};
use crate::op::{Function, Op, OpType, OpValue, Process};
use crate::parsed_op::ParsedOp;
use crate::position::{LineIndex, Position};
use crate::read_lists::ReadLists;
use crate::shared_slice::SharedSlice;
use crate::write_version::WriteVersion;

/// Reads an EDN history: a stream of maps, or a single vector of maps.
pub(crate) fn read(text: &str) -> Result<Vec<ParsedOp>, Located> {
    let lines = LineIndex::new(text);
    crate::nesting::check_edn(text).map_err(|(at, problem)| (lines.position(at), problem))?;
    let mut ops = Vec::with_capacity(text.len() / 96);
    let lists = ReadLists::for_text(text.len());
    let mut pos = skip_blank(text, 0);
    let one_vector = text[pos..].starts_with('[');
    if one_vector {
        pos = skip_blank(text, pos + 1);
    }
    loop {
        if pos >= text.len() {
            if one_vector {
                return Err((
                    lines.position(pos),
                    Problem::Syntax("expected ] to close the vector of operations, found the end of the file".into()),
                ));
            }
            return Ok(ops);
        }
        if one_vector && text[pos..].starts_with(']') {
            let rest = skip_blank(text, pos + 1);
            if rest < text.len() {
                return Err((
                    lines.position(rest),
                    Problem::Syntax("expected the end of the file after the closing ]".into()),
                ));
            }
            return Ok(ops);
        }
        let (form, rest) = edn::read(&text[pos..]).map_err(|e| edn_error(&e, pos, text, &lines))?;
        let at = lines.position(pos);
        ops.push(op_from_edn(&form, at, &lists).map_err(|problem| (at, problem))?);
        pos = skip_blank(text, text.len() - rest.len());
    }
}

/// Skips whitespace, commas (whitespace in EDN) and `;` comments.
fn skip_blank(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    while pos < bytes.len() {
        match bytes[pos] {
            b' ' | b'\t' | b'\n' | b'\r' | b',' => pos += 1,
            b';' => {
                while pos < bytes.len() && bytes[pos] != b'\n' {
                    pos += 1;
                }
            }
            _ => break,
        }
    }
    pos
}

fn edn_error(e: &EdnError, base: usize, text: &str, lines: &LineIndex) -> Located {
    let len = text.len();
    let offset = e.ptr.map_or(len, |ptr| base + ptr).min(len);
    let what = match &e.code {
        Code::UnexpectedEOF => {
            "unexpected end of file: expected the rest of the form (an unclosed map, vector or string?)".to_string()
        }
        Code::UnmatchedDelimiter(c) => format!("unmatched delimiter {c:?}"),
        Code::HashMapDuplicateKey => "a map with the same key twice".to_string(),
        Code::SetDuplicateKey => "a set with the same element twice".to_string(),
        Code::InvalidChar => "invalid character".to_string(),
        Code::InvalidEscape => "invalid escape in a string".to_string(),
        Code::InvalidKeyword => "invalid keyword".to_string(),
        Code::InvalidNumber => {
            // Quoted as written: the token from the error's position to the next delimiter.
            let token = text[offset..]
                .split(|c: char| c.is_whitespace() || ",;\"[](){}".contains(c))
                .next()
                .unwrap_or_default();
            let digits = token.trim_start_matches(['-', '+']);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                format!(
                    "integer {token} is out of range: values must fit in a signed 64-bit integer ({} to {})",
                    i64::MIN,
                    i64::MAX
                )
            } else {
                format!("invalid number {token}")
            }
        }
        other => format!("invalid EDN ({other:?})"),
    };
    (lines.position(offset), Problem::Syntax(what))
}

fn shape(message: impl Into<String>) -> Problem {
    Problem::Shape(message.into())
}

/// A keyword, symbol or string's text (`:ok`, `ok` and `"ok"` all read as `ok`).
fn name_of<'a>(e: &'a Edn<'_>) -> Option<&'a str> {
    match e {
        Edn::Key(s) | Edn::Symbol(s) | Edn::Str(s) => Some(s),
        _ => None,
    }
}

fn op_from_edn(form: &Edn<'_>, at: Position, lists: &ReadLists) -> Result<ParsedOp, Problem> {
    let Edn::Map(map) = form else {
        return Err(shape(format!(
            "expected an operation map such as {{:type :invoke, :process 0, :value [...]}}, found {}",
            brief(form)
        )));
    };
    let mut op = ParsedOp {
        index: None,
        process: None,
        op: Op::new(OpType::Invoke, Process::Client(0), Function::Txn, OpValue::Txn(SharedSlice::new())),
    };
    op.op.at = at;
    let mut extra = Vec::new();
    let mut kind = None;
    let mut value = None;
    for (k, v) in map {
        let Some(name) = name_of(k) else {
            extra.push((k.to_string().into(), edn_to_json(v)));
            continue;
        };
        match name {
            "type" => {
                let t = name_of(v).and_then(OpType::parse);
                kind = Some(t.ok_or_else(|| {
                    shape(format!("unknown :type {}: expected :invoke, :ok, :fail or :info", brief(v)))
                })?);
            }
            "process" => {
                op.process = match v {
                    Edn::Nil => None,
                    Edn::Int(p) if *p >= 0 => Some(Process::Client(*p as u64)),
                    other if name_of(other) == Some("nemesis") => Some(Process::Nemesis),
                    other => {
                        return Err(shape(format!(
                            "unknown :process {}: expected a non-negative integer or :nemesis",
                            brief(other)
                        )));
                    }
                }
            }
            "index" => match v {
                Edn::Int(i) if *i >= 0 => op.index = Some(*i as u64),
                other => return Err(shape(format!(":index must be a non-negative integer, not {}", brief(other)))),
            },
            "time" => match v {
                Edn::Int(t) if *t >= 0 => op.op.set_time(Some(*t)),
                other => {
                    return Err(shape(format!(
                        ":time must be a non-negative integer (nanoseconds), not {}",
                        brief(other)
                    )));
                }
            },
            "f" => {
                if let Some(f) = name_of(v) {
                    op.op.set_f(Function::parse(f));
                }
            }
            "value" => value = Some(v),
            "commit-order" | "commit_order" => match v {
                Edn::Int(position) => op.op.set_commit_order(Some(*position)),
                other => {
                    return Err(shape(format!(
                        ":commit-order must be an integer (the transaction's position in the database's commit \
                         order), not {}",
                        brief(other)
                    )));
                }
            },
            "error" => op.op.set_error(match v {
                Edn::Nil => None,
                Edn::Str(s) => Some(s.as_ref().into()),
                other => Some(other.to_string().into()),
            }),
            other => extra.push((other.into(), edn_to_json(v))),
        }
    }
    op.op.set_extra(extra);
    op.op.kind = kind.ok_or_else(|| shape("the operation has no :type: expected :invoke, :ok, :fail or :info"))?;
    if op.op.kind == OpType::Invoke && op.op.commit_order().is_some() {
        return Err(shape(crate::json::INVOKE_WITH_COMMIT_ORDER));
    }
    if let Some(value) = value {
        op.op.value = value_from_edn(value, op.process, op.op.f(), lists)?;
    }
    if op.op.kind == OpType::Invoke && op.op.mops().iter().any(|m| matches!(m, Mop::Write { version: Some(_), .. })) {
        return Err(shape(crate::json::INVOKE_WITH_WRITE_VERSION));
    }
    Ok(op)
}

fn value_from_edn(v: &Edn<'_>, process: Option<Process>, f: &Function, lists: &ReadLists) -> Result<OpValue, Problem> {
    if process == Some(Process::Nemesis) {
        return Ok(OpValue::Other(Box::new(edn_to_json(v))));
    }
    if *f == Function::Init {
        return Ok(OpValue::Rows(Box::new(rows_from_edn(v)?.unwrap_or_default())));
    }
    match v {
        Edn::Nil => Ok(OpValue::Txn(SharedSlice::new())),
        Edn::Vector(mops) | Edn::List(mops) => {
            shared(mops.iter().map(|mop| mop_from_edn(mop, lists)).collect::<Result<_, _>>()?).map(OpValue::Txn)
        }
        other => Err(shape(format!("expected a vector of micro-ops as the :value, found {}", brief(other)))),
    }
}

fn mop_from_edn(v: &Edn<'_>, lists: &ReadLists) -> Result<Mop, Problem> {
    let (Edn::Vector(parts) | Edn::List(parts)) = v else {
        return Err(shape(format!("expected a micro-op such as [:append k v] or [:r k v], found {}", brief(v))));
    };
    let name = parts
        .first()
        .and_then(name_of)
        .ok_or_else(|| shape(format!("micro-op {} does not start with its name", brief(v))))?;
    let arity = |n: usize| {
        if parts.len() == n {
            Ok(())
        } else {
            Err(shape(format!("micro-op {} has {} elements: expected {n}", brief(v), parts.len())))
        }
    };
    let key =
        || parts.get(1).map(key_from_edn).unwrap_or_else(|| Err(shape(format!("micro-op {} has no key", brief(v)))));
    let int = |i: usize| match parts.get(i) {
        Some(Edn::Int(x)) => Ok(*x),
        Some(other) => {
            Err(shape(format!("non-integer value {} in micro-op {}: values must be integers", brief(other), brief(v))))
        }
        None => Err(shape(format!("micro-op {} has no value", brief(v)))),
    };
    match name {
        "append" => {
            arity(3)?;
            Ok(Mop::Append { key: key()?, value: int(2)? })
        }
        "w" => {
            // `[:w k v]`, or `[:w k v version]` with the version the database gave the write.
            let version = match parts.get(3) {
                None | Some(Edn::Nil) => None,
                Some(Edn::Int(n)) => Some(WriteVersion::read(*n).map_err(shape)?),
                Some(other) => {
                    return Err(shape(format!(
                        "non-integer version {} in micro-op {}: a write's version must be an integer",
                        brief(other),
                        brief(v)
                    )));
                }
            };
            if parts.len() != 4 {
                arity(3)?;
            }
            Ok(Mop::Write { key: key()?, value: int(2)?, version })
        }
        "insert" => {
            arity(3)?;
            Ok(Mop::Insert { key: key()?, value: int(2)? })
        }
        "r" => {
            if parts.len() != 2 {
                arity(3)?;
            }
            let key = key()?;
            let value = observed_from_edn(parts.get(2).unwrap_or(&Edn::Nil), v, &key, lists)?;
            Ok(Mop::Read { key, value })
        }
        "delete" => {
            arity(2)?;
            Ok(Mop::Delete { key: key()? })
        }
        "rp" => {
            arity(3)?;
            Ok(Mop::PredicateRead {
                predicate: predicate_from_edn(&parts[1])?,
                rows: rows_from_edn(&parts[2])?.map(Box::new),
            })
        }
        other => Err(shape(format!("unknown micro-op :{other}: expected :append, :r, :w, :insert, :delete or :rp"))),
    }
}

fn key_from_edn(v: &Edn<'_>) -> Result<Key, Problem> {
    match v {
        Edn::Int(i) => Ok(Key::Int(*i)),
        Edn::Str(s) | Edn::Key(s) | Edn::Symbol(s) => Ok(Key::Str(s.as_ref().into())),
        other => Err(shape(format!("expected a key (an integer or a string), found {}", brief(other)))),
    }
}

/// The items of an EDN vector, refused when more than a history keeps in one array.
fn shared<T>(items: Vec<T>) -> Result<SharedSlice<T>, Problem> {
    SharedSlice::try_from_vec(items).map_err(|items| {
        shape(format!("{} items in one vector: at most {} are supported", items.len(), SharedSlice::<T>::MAX_LEN))
    })
}

/// What the read `mop` of `key` returned, `v`; a list kept in `lists` where it shares a run there.
fn observed_from_edn(v: &Edn<'_>, mop: &Edn<'_>, key: &Key, lists: &ReadLists) -> Result<Observed, Problem> {
    match v {
        Edn::Nil => Ok(Observed::Nil),
        Edn::Int(i) => Ok(Observed::Int(*i)),
        Edn::Vector(xs) | Edn::List(xs) => xs
            .iter()
            .map(|x| match x {
                Edn::Int(i) => Ok(*i),
                other => Err(shape(format!(
                    "non-integer element {} in the read {}: values must be integers",
                    brief(other),
                    brief(mop)
                ))),
            })
            .collect::<Result<Vec<i64>, _>>()
            .and_then(|list| match lists.keep(key, &list) {
                Some(kept) => Ok(kept),
                None => shared(list),
            })
            .map(Observed::List),
        other => Err(shape(format!(
            "expected a read value (nil, an integer or a vector of integers), found {}",
            brief(other)
        ))),
    }
}

fn predicate_from_edn(v: &Edn<'_>) -> Result<Predicate, Problem> {
    let bad = || shape(format!("expected a predicate: true, [:= v] or [:mod m r], found {}", brief(v)));
    match v {
        Edn::Bool(true) => Ok(Predicate::True),
        e if name_of(e) == Some("true") => Ok(Predicate::True),
        Edn::Vector(parts) | Edn::List(parts) => {
            match (parts.first().and_then(name_of), parts.get(1..).unwrap_or_default()) {
                (Some("="), [Edn::Int(x)]) => Ok(Predicate::Eq(*x)),
                (Some("mod"), [Edn::Int(m), Edn::Int(r)]) if *m > 0 => Ok(Predicate::Mod { m: *m, r: *r }),
                _ => Err(bad()),
            }
        }
        _ => Err(bad()),
    }
}

fn rows_from_edn(v: &Edn<'_>) -> Result<Option<Rows>, Problem> {
    match v {
        Edn::Nil => Ok(None),
        Edn::Map(map) => map
            .iter()
            .map(|(k, val)| match val {
                Edn::Int(x) => Ok((key_from_edn(k)?, *x)),
                other => Err(shape(format!("non-integer row value {}: values must be integers", brief(other)))),
            })
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(shape(format!("expected rows as a map of keys to integers, found {}", brief(other)))),
    }
}

/// An EDN value in JSON, for fields the model keeps but does not interpret.
fn edn_to_json(v: &Edn<'_>) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Edn::Nil => J::Null,
        Edn::Bool(b) => J::Bool(*b),
        Edn::Int(i) => J::from(*i),
        Edn::Str(s) | Edn::Key(s) | Edn::Symbol(s) => J::String(s.to_string()),
        Edn::Vector(xs) | Edn::List(xs) => J::Array(xs.iter().map(edn_to_json).collect()),
        Edn::Set(xs) => J::Array(xs.iter().map(edn_to_json).collect()),
        Edn::Map(map) => J::Object(
            map.iter()
                .map(|(k, v)| (name_of(k).map_or_else(|| k.to_string(), str::to_string), edn_to_json(v)))
                .collect(),
        ),
        other => J::String(other.to_string()),
    }
}

/// A short rendering of an EDN value for error messages.
fn brief(v: &Edn<'_>) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 { format!("{}…", text.chars().take(60).collect::<String>()) } else { text }
}
