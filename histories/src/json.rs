//! Reading histories written as JSON: JSON Lines (one operation object a line, our own format) and a
//! single JSON array of the same objects (the shape elle-cli takes); and writing JSON Lines. This module
//! owns the JSON object form of an operation and the positions of JSON errors; pairing and the rules
//! across operations are [`crate::well_formed`]'s.

use std::fmt;
use std::io::{self, Write};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::error::Problem;
use crate::mop::{MaybeRows, Mop, Mops};
use crate::op::{Function, Op, OpType, OpValue, Process};
use crate::position::{LineIndex, Position};
use crate::well_formed::ParsedOp;

/// A problem at a position, before the file name is attached.
pub(crate) type Located = (Position, Problem);

/// Reads JSON Lines: one operation object on each non-blank line.
pub(crate) fn read_lines(text: &str) -> Result<Vec<ParsedOp>, Located> {
    let mut ops = Vec::with_capacity(text.len() / 96);
    for (i, line) in text.split('\n').enumerate() {
        if let Some(op) = parse_line(line, i as u32 + 1)? {
            ops.push(op);
        }
    }
    Ok(ops)
}

/// Reads JSON Lines from a stream, a line at a time, so a large file is never held whole in memory.
/// Invalid UTF-8 is refused with its line and its byte offset in the stream.
pub(crate) fn read_lines_from(mut input: impl std::io::BufRead) -> Result<Vec<ParsedOp>, StreamError> {
    let mut ops = Vec::new();
    let mut line = Vec::new();
    let mut number = 0u32;
    let mut offset = 0u64;
    loop {
        line.clear();
        let read = input.read_until(b'\n', &mut line).map_err(StreamError::Io)?;
        if read == 0 {
            return Ok(ops);
        }
        number += 1;
        let text = std::str::from_utf8(&line).map_err(|e| {
            let at = Position::new(number, e.valid_up_to() as u32 + 1);
            let problem = Problem::InvalidUtf8 { offset: offset + e.valid_up_to() as u64, byte: line[e.valid_up_to()] };
            StreamError::Malformed((at, problem))
        })?;
        if let Some(op) = parse_line(text.trim_end_matches('\n'), number).map_err(StreamError::Malformed)? {
            ops.push(op);
        }
        offset += read as u64;
    }
}

/// Why a streamed read stopped.
pub(crate) enum StreamError {
    Io(std::io::Error),
    Malformed(Located),
}

fn parse_line(line: &str, number: u32) -> Result<Option<ParsedOp>, Located> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let start = line.len() - line.trim_start().len();
    if line[start..].trim_end().is_empty() {
        return Ok(None);
    }
    parse_object(&line[start..], Position::new(number, start as u32 + 1)).map(Some)
}

/// Reads one JSON array of operation objects.
pub(crate) fn read_array(text: &str) -> Result<Vec<ParsedOp>, Located> {
    let lines = LineIndex::new(text);
    let at = |offset: usize| lines.position(offset);
    let mut pos = skip_whitespace(text, 0);
    if !text[pos..].starts_with('[') {
        return Err((at(pos), Problem::Syntax("expected a JSON array of operations, starting with [".into())));
    }
    pos = skip_whitespace(text, pos + 1);
    let mut ops = Vec::new();
    if text[pos..].starts_with(']') {
        return finish_array(text, pos + 1, ops, at);
    }
    loop {
        let origin = at(pos);
        let mut stream = serde_json::Deserializer::from_str(&text[pos..]).into_iter::<&RawValue>();
        let raw = match stream.next() {
            Some(Ok(raw)) => raw,
            Some(Err(e)) => return Err((origin.then(json_position(&e)), syntax(&e))),
            None => {
                return Err((origin, Problem::Syntax("expected an operation or ], found the end of the file".into())));
            }
        };
        ops.push(parse_object(raw.get(), origin)?);
        pos = skip_whitespace(text, pos + stream.byte_offset());
        match text[pos..].chars().next() {
            Some(',') => pos = skip_whitespace(text, pos + 1),
            Some(']') => return finish_array(text, pos + 1, ops, at),
            Some(c) => {
                return Err((at(pos), Problem::Syntax(format!("expected , or ] after an operation, found {c:?}"))));
            }
            None => return Err((at(pos), Problem::Syntax("expected , or ], found the end of the file".into()))),
        }
    }
}

fn finish_array(
    text: &str,
    pos: usize,
    ops: Vec<ParsedOp>,
    at: impl Fn(usize) -> Position,
) -> Result<Vec<ParsedOp>, Located> {
    let rest = skip_whitespace(text, pos);
    if rest < text.len() {
        return Err((at(rest), Problem::Syntax("expected the end of the file after the array's closing ]".into())));
    }
    Ok(ops)
}

fn skip_whitespace(text: &str, from: usize) -> usize {
    from + text[from..].len() - text[from..].trim_start().len()
}

/// Writes operations as JSON Lines.
pub fn write_jsonl<'a>(ops: impl IntoIterator<Item = &'a Op>, out: &mut impl Write) -> io::Result<()> {
    for op in ops {
        serde_json::to_writer(&mut *out, op)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

// ---- One operation object ----------------------------------------------------------------------

/// Parses one operation object that starts at `origin`.
fn parse_object(text: &str, origin: Position) -> Result<ParsedOp, Located> {
    let raw: RawOp<'_> = serde_json::from_str(text).map_err(|e| (origin.then(json_position(&e)), syntax(&e)))?;
    let kind = raw.kind.ok_or_else(|| {
        (origin, Problem::Shape(r#"the operation has no "type": expected "invoke", "ok", "fail" or "info""#.into()))
    })?;
    if kind == OpType::Invoke && raw.commit_order.is_some() {
        return Err((origin, Problem::Shape(INVOKE_WITH_COMMIT_ORDER.into())));
    }
    let f = raw.f.unwrap_or(Function::Txn);
    let value = match raw.value {
        None => OpValue::Txn(Vec::new()),
        Some(value) => {
            let value_origin =
                origin.then(Position::new(1, (value.get().as_ptr() as usize - text.as_ptr() as usize) as u32 + 1));
            parse_value(value.get(), raw.process, &f)
                .map_err(|e| (value_origin.then(json_position(&e)), syntax_in(&e, value.get())))?
        }
    };
    if kind == OpType::Invoke && value.mops().iter().any(|m| matches!(m, Mop::Write { version: Some(_), .. })) {
        return Err((origin, Problem::Shape(INVOKE_WITH_WRITE_VERSION.into())));
    }
    Ok(ParsedOp {
        index: raw.index,
        process: raw.process,
        op: Op {
            index: 0,
            kind,
            process: Process::Client(0),
            f,
            time: raw.time,
            value,
            error: raw.error,
            commit_order: raw.commit_order,
            extra: raw.extra,
            at: origin,
        },
    })
}

/// Why an invocation cannot carry a commit position.
pub(crate) const INVOKE_WITH_COMMIT_ORDER: &str =
    "an invoke with a commit_order: the position in the database's commit order belongs on the completion (ok or info)";

/// Why an invocation's write cannot carry a version.
pub(crate) const INVOKE_WITH_WRITE_VERSION: &str = "an invoke with a write's version ([\"w\", k, v, version]): the \
     version a write installed is known only when its transaction completes, so it belongs on the completion";

/// Parses an operation's value, whose meaning depends on who performed it and what it does.
fn parse_value(json: &str, process: Option<Process>, f: &Function) -> serde_json::Result<OpValue> {
    if process == Some(Process::Nemesis) {
        return serde_json::from_str(json).map(OpValue::Other);
    }
    if *f == Function::Init {
        let MaybeRows(rows) = serde_json::from_str(json)?;
        return Ok(OpValue::Rows(rows.unwrap_or_default()));
    }
    if json == "null" {
        return Ok(OpValue::Txn(Vec::new()));
    }
    let mut de = serde_json::Deserializer::from_str(json);
    let mops = Mops.deserialize(&mut de)?;
    de.end()?;
    Ok(OpValue::Txn(mops))
}

fn json_position(e: &serde_json::Error) -> Position {
    Position::new(e.line().max(1) as u32, e.column().max(1) as u32)
}

fn syntax(e: &serde_json::Error) -> Problem {
    // serde_json appends " at line L column C"; we report the position ourselves, in file terms.
    let text = e.to_string();
    let message = match text.rfind(" at line ") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    };
    Problem::Syntax(message)
}

/// [`syntax`], with a number the model could not take quoted as it was written in `text` (where the
/// error happened): `serde_json` has already turned it into a float, rounding it.
fn syntax_in(e: &serde_json::Error, text: &str) -> Problem {
    let problem = syntax(e);
    let Problem::Syntax(message) = &problem else { return problem };
    if !message.starts_with("non-integer value ") {
        return problem;
    }
    let Some(end) = offset_of(text, e.line(), e.column()) else { return problem };
    let number = |b: u8| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E');
    let bytes = text.as_bytes();
    // The error is reported at the number's last byte or just after it.
    let end = if end < bytes.len() && number(bytes[end]) { end + 1 } else { end };
    let start = bytes[..end].iter().rposition(|&b| !number(b)).map_or(0, |i| i + 1);
    let written = &text[start..end];
    if written.is_empty() {
        return problem;
    }
    let digits = written.strip_prefix('-').unwrap_or(written);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        Problem::Syntax(format!(
            "integer {written} is out of range: values must fit in a signed 64-bit integer ({} to {})",
            i64::MIN,
            i64::MAX
        ))
    } else {
        Problem::Syntax(format!("non-integer value {written}: values must be integers"))
    }
}

/// The byte offset of a 1-based line and column (as `serde_json` reports them) in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let line_start = if line <= 1 {
        0
    } else {
        text.bytes().enumerate().filter(|&(_, b)| b == b'\n').nth(line - 2).map(|(i, _)| i + 1)?
    };
    let offset = line_start + column.saturating_sub(1);
    (offset <= text.len() && text.is_char_boundary(offset)).then_some(offset)
}

/// An operation object as written, before its value is interpreted.
struct RawOp<'a> {
    index: Option<u64>,
    kind: Option<OpType>,
    process: Option<Process>,
    f: Option<Function>,
    time: Option<i64>,
    value: Option<&'a RawValue>,
    error: Option<Box<str>>,
    commit_order: Option<i64>,
    extra: Vec<(Box<str>, serde_json::Value)>,
}

impl<'de: 'a, 'a> Deserialize<'de> for RawOp<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(RawOpVisitor(std::marker::PhantomData))
    }
}

struct RawOpVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for RawOpVisitor<'a> {
    type Value = RawOp<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an operation object such as {{\"type\": \"invoke\", \"process\": 0, \"value\": [...]}}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawOp<'a>, A::Error> {
        let mut op = RawOp {
            index: None,
            kind: None,
            process: None,
            f: None,
            time: None,
            value: None,
            error: None,
            commit_order: None,
            extra: Vec::new(),
        };
        let mut seen = SeenFields::default();
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if !seen.insert(&name, &op.extra) {
                return Err(de::Error::custom(format!(
                    "duplicate field {name:?} in the operation: each field may appear once"
                )));
            }
            match &*name {
                "index" => {
                    let raw: &'de RawValue = map.next_value()?;
                    let index = raw.get().parse::<u64>().map_err(|_| {
                        de::Error::custom(format!(
                            r#""index" must be a non-negative integer, not {}"#,
                            brief_raw(raw.get())
                        ))
                    })?;
                    op.index = Some(index);
                }
                "type" => {
                    let name: std::borrow::Cow<'de, str> = map.next_value()?;
                    op.kind = Some(OpType::parse(&name).ok_or_else(|| {
                        de::Error::custom(format!(
                            r#"unknown type {name:?}: expected "invoke", "ok", "fail" or "info""#
                        ))
                    })?);
                }
                "process" => op.process = map.next_value_seed(ProcessSeed)?,
                "f" => op.f = map.next_value::<Option<std::borrow::Cow<'de, str>>>()?.map(|f| Function::parse(&f)),
                "time" => {
                    let raw: &'de RawValue = map.next_value()?;
                    let time = raw.get().parse::<i64>().ok().filter(|t| *t >= 0).ok_or_else(|| {
                        de::Error::custom(format!(
                            r#""time" must be a non-negative integer (nanoseconds), not {}"#,
                            brief_raw(raw.get())
                        ))
                    })?;
                    op.time = Some(time);
                }
                "value" => op.value = Some(map.next_value()?),
                "commit_order" => {
                    let raw: &'de RawValue = map.next_value()?;
                    let position = raw.get().parse::<i64>().map_err(|_| {
                        de::Error::custom(format!(
                            r#""commit_order" must be an integer (the transaction's position in the database's commit \
                             order), not {}"#,
                            brief_raw(raw.get())
                        ))
                    })?;
                    op.commit_order = Some(position);
                }
                "error" => {
                    let error: serde_json::Value = map.next_value()?;
                    op.error = match error {
                        serde_json::Value::Null => None,
                        serde_json::Value::String(s) => Some(s.into()),
                        other => Some(other.to_string().into()),
                    };
                }
                other => {
                    let value = map.next_value()?;
                    op.extra.push((other.into(), value));
                }
            }
        }
        Ok(op)
    }
}

/// The fields an operation object has had so far, to refuse one written twice (JSON does not forbid
/// it, and which one counts would be a guess): the known fields as bits, the others looked up among
/// the extra fields kept, through a set once there are many.
#[derive(Default)]
struct SeenFields {
    known: u8,
    extra: Option<rustc_hash::FxHashSet<Box<str>>>,
}

impl SeenFields {
    /// Notes `name`; false if it was seen before.
    fn insert(&mut self, name: &str, extra: &[(Box<str>, serde_json::Value)]) -> bool {
        const KNOWN: [&str; 8] = ["index", "type", "process", "f", "time", "value", "error", "commit_order"];
        if let Some(bit) = KNOWN.iter().position(|k| *k == name) {
            let fresh = self.known & (1 << bit) == 0;
            self.known |= 1 << bit;
            return fresh;
        }
        if extra.len() < 16 {
            return !extra.iter().any(|(k, _)| &**k == name);
        }
        let set = self.extra.get_or_insert_with(|| extra.iter().map(|(k, _)| k.clone()).collect());
        set.insert(name.into())
    }
}

/// A value as written, shortened for a message.
fn brief_raw(text: &str) -> String {
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text.to_string()
    }
}

/// A process: an integer, `"nemesis"`, or `null` (absent).
struct ProcessSeed;

impl<'de> DeserializeSeed<'de> for ProcessSeed {
    type Value = Option<Process>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Process>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ProcessSeed {
    type Value = Option<Process>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, r#"a process: a non-negative integer, "nemesis", or null"#)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Process>, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Process>, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<Process>, E> {
        Ok(Some(Process::Client(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<Process>, E> {
        u64::try_from(v)
            .map(|p| Some(Process::Client(p)))
            .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<Process>, E> {
        if v == "nemesis" { Ok(Some(Process::Nemesis)) } else { Err(E::invalid_value(de::Unexpected::Str(v), &self)) }
    }
}
