//! Writing histories in each format the readers take: JSON Lines (our own), one JSON array (elle-cli's
//! shape) and Jepsen EDN (Elle's and adya's), so that a history, or a shrunk part of one, can be handed
//! to any of those tools as is. Every operation is written whole: its index, type, process (`:nemesis`
//! for faults), `f`, time, value, error and the fields the model does not know, invocations and
//! completions alike, so reading a written history gives back the same operations. This module owns
//! only the writing; reading is `json`'s and `edn`'s, and the operation's JSON object form is `op`'s.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::Format;
use crate::key::Key;
use crate::mop::{Mop, Observed, Predicate, Rows};
use crate::op::{Op, OpValue, Process};

/// Writes operations in `format`.
pub fn write_history<'a>(
    ops: impl IntoIterator<Item = &'a Op>,
    format: Format,
    out: &mut impl Write,
) -> io::Result<()> {
    match format {
        Format::JsonLines => crate::json::write_jsonl(ops, out),
        Format::JsonArray => write_json_array(ops, out),
        Format::Edn => write_edn(ops, out),
        Format::Plume => {
            Err(io::Error::other("Plume's text format is read, not written: write JSON Lines, JSON or EDN"))
        }
    }
}

/// Writes operations as one JSON array, one operation a line, as elle-cli reads it.
pub fn write_json_array<'a>(ops: impl IntoIterator<Item = &'a Op>, out: &mut impl Write) -> io::Result<()> {
    out.write_all(b"[")?;
    for (i, op) in ops.into_iter().enumerate() {
        out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *out, op)?;
    }
    out.write_all(b"\n]\n")
}

/// Writes operations as Jepsen EDN, one operation map a line (`{:index 0, :type :invoke, ...}`), as
/// Elle's `jepsen.history` and adya read them.
pub fn write_edn<'a>(ops: impl IntoIterator<Item = &'a Op>, out: &mut impl Write) -> io::Result<()> {
    let mut line = String::new();
    for op in ops {
        line.clear();
        edn_op(op, &mut line);
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// One operation as an EDN map.
fn edn_op(op: &Op, out: &mut String) {
    let _ = write!(out, "{{:index {}, :type :{}, :process ", op.index, op.kind.as_str());
    match op.process() {
        Process::Client(p) => {
            let _ = write!(out, "{p}");
        }
        Process::Nemesis => out.push_str(":nemesis"),
    }
    out.push_str(", :f ");
    edn_name(op.f().as_str(), out);
    if let Some(time) = op.time() {
        let _ = write!(out, ", :time {time}");
    }
    out.push_str(", :value ");
    match &op.value {
        OpValue::Txn(_) => {
            out.push('[');
            for (i, mop) in op.written_mops().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                edn_mop(&mop, out);
            }
            out.push(']');
        }
        OpValue::Rows(rows) => edn_rows(rows, out),
        OpValue::Other(json) => edn_json(json, out),
    }
    if let Some(error) = op.error() {
        out.push_str(", :error ");
        edn_string(error, out);
    }
    if let Some(position) = op.commit_order() {
        let _ = write!(out, ", :commit-order {position}");
    }
    for (name, value) in op.extra() {
        out.push_str(", ");
        edn_name(name, out);
        out.push(' ');
        edn_json(value, out);
    }
    out.push('}');
}

fn edn_mop(mop: &Mop, out: &mut String) {
    let _ = write!(out, "[:{} ", mop.name());
    match mop {
        Mop::Append { key, value } | Mop::Insert { key, value } | Mop::Write { key, value, version: None } => {
            edn_key(key, out);
            let _ = write!(out, " {value}");
        }
        Mop::Write { key, value, version: Some(version) } => {
            edn_key(key, out);
            let _ = write!(out, " {value} {version}");
        }
        Mop::Read { key, value } => {
            edn_key(key, out);
            out.push(' ');
            match value {
                Observed::Nil => out.push_str("nil"),
                Observed::Int(i) => {
                    let _ = write!(out, "{i}");
                }
                Observed::List(list) => edn_ints(list, out),
            }
        }
        Mop::Delete { key } => edn_key(key, out),
        Mop::PredicateRead { predicate, rows } => {
            match predicate {
                Predicate::True => out.push_str("true"),
                Predicate::Eq(v) => {
                    let _ = write!(out, "[:= {v}]");
                }
                Predicate::Mod { m, r } => {
                    let _ = write!(out, "[:mod {m} {r}]");
                }
            }
            out.push(' ');
            match rows {
                None => out.push_str("nil"),
                Some(rows) => edn_rows(rows, out),
            }
        }
    }
    out.push(']');
}

fn edn_ints(list: &[i64], out: &mut String) {
    out.push('[');
    for (i, x) in list.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{x}");
    }
    out.push(']');
}

fn edn_rows(rows: &Rows, out: &mut String) {
    out.push('{');
    for (i, (key, value)) in rows.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        edn_key(key, out);
        let _ = write!(out, " {value}");
    }
    out.push('}');
}

/// A key: an integer, or a string (the readers take a keyword too, but a string survives any spelling).
fn edn_key(key: &Key, out: &mut String) {
    match key {
        Key::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Key::Str(s) => edn_string(s, out),
    }
}

/// A name (`f`, a field's name): a keyword where the name is a plain symbol, else a string, which the
/// readers take in the same places.
fn edn_name(name: &str, out: &mut String) {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || "*+!-_?<>=".contains(c))
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "*+!-_?<>=.".contains(c))
        && !(name.starts_with(['-', '+']) && name[1..].starts_with(|c: char| c.is_ascii_digit()));
    if plain {
        out.push(':');
        out.push_str(name);
    } else {
        edn_string(name, out);
    }
}

/// A string, with EDN's escapes (`\"`, `\\`, `\n`, `\r`, `\t`).
fn edn_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A JSON value the model keeps as written (a nemesis's value, an unknown field) as EDN: objects become
/// maps with string keys, arrays vectors.
fn edn_json(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value as J;
    match value {
        J::Null => out.push_str("nil"),
        J::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        J::Number(n) => {
            let _ = write!(out, "{n}");
        }
        J::String(s) => edn_string(s, out),
        J::Array(xs) => {
            out.push('[');
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                edn_json(x, out);
            }
            out.push(']');
        }
        J::Object(members) => {
            out.push('{');
            for (i, (name, x)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                edn_string(name, out);
                out.push(' ');
                edn_json(x, out);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn edn(text: &str) -> String {
        let history = parse(text, Format::JsonLines, "h.jsonl").unwrap();
        let mut out = Vec::new();
        write_edn(history.ops(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn writes_operations_as_jepsen_edn_maps() {
        let text = r#"{"index":3,"type":"invoke","process":2,"time":10,"value":[["append",1,2],["r",1,null]]}
{"index":4,"type":"fail","process":2,"time":20,"value":[["append",1,2],["r",1,[2]]],"error":"40001","node":"n1"}
{"index":5,"type":"info","process":"nemesis","f":"kill","value":{"node":"n1"}}"#;
        assert_eq!(
            edn(text),
            "{:index 3, :type :invoke, :process 2, :f :txn, :time 10, :value [[:append 1 2] [:r 1 nil]]}\n\
             {:index 4, :type :fail, :process 2, :f :txn, :time 20, :value [[:append 1 2] [:r 1 [2]]], :error \"40001\", :node \"n1\"}\n\
             {:index 5, :type :info, :process :nemesis, :f :kill, :value {\"node\" \"n1\"}}\n"
        );
    }

    #[test]
    fn names_that_are_not_keywords_are_written_as_strings() {
        let mut out = String::new();
        edn_name("two words", &mut out);
        edn_name("-1", &mut out);
        edn_name("txn", &mut out);
        assert_eq!(out, r#""two words""-1":txn"#);
        let mut out = String::new();
        edn_string("a \"b\"\n\\", &mut out);
        assert_eq!(out, r#""a \"b\"\n\\""#);
    }

    #[test]
    fn a_json_array_is_one_operation_a_line() {
        let history = parse(r#"{"type":"invoke","process":0,"value":[["w","x",1]]}"#, Format::JsonLines, "h").unwrap();
        let mut out = Vec::new();
        write_json_array(history.ops(), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[\n{\"index\":0,\"type\":\"invoke\",\"process\":0,\"f\":\"txn\",\"value\":[[\"w\",\"x\",1]]}\n]\n"
        );
    }
}
