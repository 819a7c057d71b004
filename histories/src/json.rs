//! Reading histories written as JSON: JSON Lines (one operation object a line, our own format) and a
//! single JSON array of the same objects (the shape elle-cli takes); and writing JSON Lines. This module
//! owns the JSON object form of an operation and the positions of JSON errors; pairing and the rules
//! across operations are [`crate::well_formed`]'s.

use std::fmt;
use std::io::{self, Read, Write};

use rayon::iter::{IndexedParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelIterator};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::error::{Located, Problem};
use crate::mop::{MaybeRows, Mop, Mops};
use crate::op::{Function, Op, OpType, OpValue, Process};
use crate::parsed_op::{ParsedOp, ParsedOps};
use crate::position::{LineIndex, Position};
use crate::read_lists::ReadLists;
use crate::shared_slice::SharedSlice;

/// Bytes of a stream read and parsed at a time: enough to keep every core busy, little enough that a
/// large history is never held whole as text.
const BLOCK: usize = 16 << 20;

/// Bytes of whole lines one core parses as a piece of a block.
const PIECE: usize = 512 << 10;

/// How an operation object is read: by [`crate::fast_json`] where it can, or always by `serde_json` (the
/// reference the fast path is tested against).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ObjectReader {
    /// The fast path first, `serde_json` for what it declines.
    Fast,
    /// `serde_json` only.
    General,
}

/// Reads JSON Lines: one operation object on each non-blank line, the lines parsed on all cores.
pub(crate) fn read_lines(text: &str) -> Result<ParsedOps, Located> {
    read_lines_by(text, ObjectReader::Fast)
}

/// [`read_lines`], each object read by `reader`.
pub(crate) fn read_lines_by(text: &str, reader: ObjectReader) -> Result<ParsedOps, Located> {
    let mut ops = ParsedOps::with_capacity(text.len() / 150);
    let bytes = text.as_bytes();
    let (pieces, _) = cut(bytes, PIECE, 0, 0);
    let mut buffers = Vec::new();
    let read = parse_pieces(bytes, &pieces, reader, &ReadLists::for_text(text.len()), &mut buffers);
    append_pieces(read, &mut buffers, &mut ops)?;
    Ok(ops)
}

/// Reads JSON Lines from a stream in large blocks, each cut after its last newline and its lines parsed
/// on all cores while the next block is read, so a large file is never held whole in memory. An error
/// is the one a line-by-line reading meets first: invalid UTF-8 is refused with its line and its byte
/// offset in the stream, after any error on the lines before it.
pub(crate) fn read_lines_from(input: impl Read + Send) -> Result<ParsedOps, StreamError> {
    read_lines_in_blocks(input, BLOCK, PIECE, &ReadLists::for_stream())
}

/// [`read_lines_from`] with blocks of `block` bytes cut into pieces of `piece` bytes, the reads' lists
/// kept in `lists`, told where the reading is before each block is parsed. Reading is a
/// pipeline of two stages run side by side: while the pieces of one block are parsed, the operations of
/// the block before are appended to the history's and the next block is read and cut. Nothing but
/// joining the two stages waits for the other, and an error is still the one a line-by-line reading
/// meets first: the block before's before this block's, this block's before a failure to read on.
fn read_lines_in_blocks(
    mut input: impl Read + Send,
    block: usize,
    piece: usize,
    lists: &ReadLists,
) -> Result<ParsedOps, StreamError> {
    let mut parsed = ParsedOps::default();
    // The pieces of the block being parsed, and those of the block before with how their parsing went,
    // waiting to be appended; each set keeps its memory from block to block.
    let (mut parsing, mut before) = (Vec::new(), Vec::new());
    let mut before_read: Vec<Result<(), Located>> = Vec::new();
    // The block being parsed, and the next, read meanwhile into the buffer of the block before.
    let mut buf: Vec<u8> = Vec::with_capacity(block + piece);
    let mut next: Vec<u8> = Vec::with_capacity(block + piece);
    let mut reader = BlockReader { block, piece, ended: false, lines: 0, offset: 0 };
    let mut pieces = reader.read(&mut input, &mut buf).map_err(StreamError::Io)?;
    loop {
        lists.passed(pieces.first().map_or(0, |p| p.offset));
        let tail = &buf[pieces.last().map_or(0, |p| p.bytes.end)..];
        let (read, (appended, read_on)) = rayon::join(
            || parse_pieces(&buf, &pieces, ObjectReader::Fast, lists, &mut parsing),
            || {
                let appended = append_pieces(std::mem::take(&mut before_read), &mut before, &mut parsed);
                if appended.is_err() || pieces.is_empty() {
                    return (appended, Ok(Vec::new()));
                }
                next.clear();
                next.extend_from_slice(tail);
                (appended, reader.read(&mut input, &mut next))
            },
        );
        appended.map_err(StreamError::Malformed)?;
        if pieces.is_empty() {
            parsed.shrink_to_fit();
            return Ok(parsed);
        }
        let read_on = match read_on {
            Ok(read_on) => read_on,
            Err(e) => {
                append_pieces(read, &mut parsing, &mut parsed).map_err(StreamError::Malformed)?;
                return Err(StreamError::Io(e));
            }
        };
        before_read = read;
        std::mem::swap(&mut parsing, &mut before);
        std::mem::swap(&mut buf, &mut next);
        pieces = read_on;
    }
}

/// Where a stream is, as it is read block by block.
struct BlockReader {
    block: usize,
    piece: usize,
    ended: bool,
    /// Lines and bytes before the next block.
    lines: u32,
    offset: u64,
}

impl BlockReader {
    /// Reads the next block into `buf` (after the partial line it holds), up to its last newline (all
    /// of it at the end of the stream; a line longer than a block is read on until it ends), and cuts it
    /// into pieces; none when the stream is done. Bytes after the last piece are the next block's start.
    fn read(&mut self, input: &mut impl Read, buf: &mut Vec<u8>) -> io::Result<Vec<PieceAt>> {
        let carried = buf.len();
        if !self.ended {
            self.ended = fill(input, buf, self.block)?;
        }
        let end = loop {
            match memchr::memrchr(b'\n', &buf[carried..]) {
                _ if self.ended => break buf.len(),
                Some(last) => break carried + last + 1,
                None => self.ended = fill(input, buf, self.block)?,
            }
        };
        let (pieces, lines) = cut(&buf[..end], self.piece, self.lines, self.offset);
        self.lines += lines;
        self.offset += end as u64;
        Ok(pieces)
    }
}

/// Reads up to `n` more bytes of `input` into `buf`; true if the input ended first.
fn fill(input: &mut impl Read, buf: &mut Vec<u8>, n: usize) -> io::Result<bool> {
    let read = input.by_ref().take(n as u64).read_to_end(buf)?;
    Ok(read < n)
}

/// Whole lines of a block that one core parses: where they are in the block, and the lines and bytes
/// of the stream before them.
#[derive(Debug)]
struct PieceAt {
    bytes: std::ops::Range<usize>,
    lines_before: u32,
    offset: u64,
}

/// Cuts `bytes` (whole lines, but for the last at the end of a stream), which come after `lines_before`
/// lines and `offset` bytes of their stream, into pieces of about `piece` bytes of whole lines; returns
/// them and the newlines in `bytes`.
fn cut(bytes: &[u8], piece: usize, lines_before: u32, offset: u64) -> (Vec<PieceAt>, u32) {
    let mut pieces = Vec::with_capacity(bytes.len() / piece + 1);
    let (mut start, mut lines) = (0, 0);
    while start < bytes.len() {
        let rest = &bytes[start..];
        let end = match rest.len() <= piece {
            true => bytes.len(),
            false => memchr::memchr(b'\n', &rest[piece..]).map_or(bytes.len(), |i| start + piece + i + 1),
        };
        pieces.push(PieceAt { bytes: start..end, lines_before: lines_before + lines, offset: offset + start as u64 });
        lines += line_count(&bytes[start..end]);
        start = end;
    }
    (pieces, lines)
}

/// Parses the `pieces` of `bytes` on all cores, each into its buffer among `buffers` (kept from block to
/// block, so their memory is reused rather than asked of the system again, a fault a page); how each
/// went, in order.
fn parse_pieces(
    bytes: &[u8],
    pieces: &[PieceAt],
    reader: ObjectReader,
    lists: &ReadLists,
    buffers: &mut Vec<ParsedOps>,
) -> Vec<Result<(), Located>> {
    if buffers.len() < pieces.len() {
        buffers.resize_with(pieces.len(), ParsedOps::default);
    }
    pieces
        .par_iter()
        .zip(buffers.par_iter_mut())
        .map(|(piece, ops)| read_piece(&bytes[piece.bytes.clone()], piece, reader, lists, ops))
        .collect()
}

/// Appends the operations of the pieces `read` in order to `into`; an error is the first piece's that
/// has one.
fn append_pieces(
    read: Vec<Result<(), Located>>,
    buffers: &mut [ParsedOps],
    into: &mut ParsedOps,
) -> Result<(), Located> {
    for (read, ops) in read.into_iter().zip(buffers.iter_mut()) {
        read?;
        into.append(ops);
    }
    Ok(())
}

/// The newlines in `bytes`.
fn line_count(bytes: &[u8]) -> u32 {
    memchr::memchr_iter(b'\n', bytes).count() as u32
}

/// Parses the lines of one piece, `bytes`, into `ops`. Invalid UTF-8 is refused with its line, column
/// and byte offset in the stream, after the lines before it are read (an error there comes first).
fn read_piece(
    bytes: &[u8],
    at: &PieceAt,
    reader: ObjectReader,
    lists: &ReadLists,
    ops: &mut ParsedOps,
) -> Result<(), Located> {
    ops.clear();
    // Room for lines of 100 bytes on average (a generated history's are about 150): a piece's vectors
    // then never grow by copying, and room never used is never touched.
    ops.reserve(bytes.len() / 100);
    let (text, invalid) = match std::str::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let valid = e.valid_up_to();
            let line_start = memchr::memrchr(b'\n', &bytes[..valid]).map_or(0, |i| i + 1);
            let text = std::str::from_utf8(&bytes[..line_start]).expect("a prefix of the valid part");
            (text, Some((line_start, valid)))
        }
    };
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]);
    for (i, end) in ends.enumerate() {
        // Cut at ASCII newlines of a `str`, so at character boundaries.
        let line = text.get(start..end).unwrap_or_default();
        start = end + 1;
        parse_line(line, at.lines_before + i as u32 + 1, reader, lists, ops)?;
    }
    match invalid {
        None => Ok(()),
        Some((line_start, valid)) => {
            let line = at.lines_before + line_count(text.as_bytes()) + 1;
            let position = Position::new(line, (valid - line_start) as u32 + 1);
            Err((position, Problem::InvalidUtf8 { offset: at.offset + valid as u64, byte: bytes[valid] }))
        }
    }
}

/// Why a streamed read stopped.
pub(crate) enum StreamError {
    Io(std::io::Error),
    Malformed(Located),
}

/// Reads the operation on line `number`, if it is not blank, after the operations in `into`.
fn parse_line(
    line: &str,
    number: u32,
    reader: ObjectReader,
    lists: &ReadLists,
    into: &mut ParsedOps,
) -> Result<(), Located> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let start = line.len() - line.trim_start().len();
    if line[start..].trim_end().is_empty() {
        return Ok(());
    }
    let (object, origin) = (&line[start..], Position::new(number, start as u32 + 1));
    if reader == ObjectReader::Fast && crate::fast_json::parse_into(object, origin, lists, into) {
        return Ok(());
    }
    into.push(parse_object_in_general(object, origin)?);
    Ok(())
}

/// Reads one JSON array of operation objects.
pub(crate) fn read_array(text: &str) -> Result<ParsedOps, Located> {
    let lines = LineIndex::new(text);
    let at = |offset: usize| lines.position(offset);
    let mut pos = skip_whitespace(text, 0);
    if !text[pos..].starts_with('[') {
        return Err((at(pos), Problem::Syntax("expected a JSON array of operations, starting with [".into())));
    }
    pos = skip_whitespace(text, pos + 1);
    let mut ops = ParsedOps::default();
    let lists = ReadLists::for_text(text.len());
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
        if !crate::fast_json::parse_into(raw.get(), origin, &lists, &mut ops) {
            ops.push(parse_object_in_general(raw.get(), origin)?);
        }
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

fn finish_array(text: &str, pos: usize, ops: ParsedOps, at: impl Fn(usize) -> Position) -> Result<ParsedOps, Located> {
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

/// Parses one operation object that starts at `origin`, whatever its shape.
pub(crate) fn parse_object_in_general(text: &str, origin: Position) -> Result<ParsedOp, Located> {
    let raw: RawOp<'_> = serde_json::from_str(text).map_err(|e| (origin.then(json_position(&e)), syntax(&e)))?;
    let kind = raw.kind.ok_or_else(|| {
        (origin, Problem::Shape(r#"the operation has no "type": expected "invoke", "ok", "fail" or "info""#.into()))
    })?;
    if kind == OpType::Invoke && raw.commit_order.is_some() {
        return Err((origin, Problem::Shape(INVOKE_WITH_COMMIT_ORDER.into())));
    }
    let f = raw.f.unwrap_or(Function::Txn);
    let value = match raw.value {
        None => OpValue::Txn(SharedSlice::new()),
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
        op: Op::read(kind, f, raw.time, value, raw.error, raw.commit_order, raw.extra, origin),
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
        return serde_json::from_str(json).map(|v| OpValue::Other(Box::new(v)));
    }
    if *f == Function::Init {
        let MaybeRows(rows) = serde_json::from_str(json)?;
        return Ok(OpValue::Rows(Box::new(rows.unwrap_or_default())));
    }
    if json == "null" {
        return Ok(OpValue::Txn(SharedSlice::new()));
    }
    let mut de = serde_json::Deserializer::from_str(json);
    let mops = Mops.deserialize(&mut de)?;
    de.end()?;
    SharedSlice::try_from_vec(mops).map(OpValue::Txn).map_err(|mops| crate::shared_slice::too_long(mops.len()))
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
        match v <= Process::MAX_CLIENT {
            true => Ok(Some(Process::Client(v))),
            false => {
                Err(E::custom(format!("process {v} is above the largest a history may name, {}", Process::MAX_CLIENT)))
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The operations a reading produced, or its error, in a form to compare.
    fn outcome(read: Result<ParsedOps, Located>) -> Result<Vec<String>, String> {
        match read {
            Ok(parsed) => {
                let history = crate::well_formed::settle(parsed).map_err(|(at, p)| format!("{at}: {p}"))?;
                Ok(history.ops().iter().map(|op| format!("{}@{} {}", op.index, op.at, serde_json::json!(op))).collect())
            }
            Err((at, problem)) => Err(format!("{at}: {problem}")),
        }
    }

    /// Reads `bytes` as a stream in every block and piece size from a few bytes up, and as one text.
    fn every_cut(bytes: &[u8]) -> Vec<Result<Vec<String>, String>> {
        let mut outcomes = Vec::new();
        for block in [1, 7, 40, 97, 1 << 20] {
            for piece in [1, 13, 64, 1 << 20] {
                let read = read_lines_in_blocks(bytes, block, piece, &ReadLists::for_stream()).map_err(|e| match e {
                    StreamError::Io(e) => panic!("reading memory: {e}"),
                    StreamError::Malformed(located) => located,
                });
                outcomes.push(outcome(read));
            }
        }
        if let Ok(text) = std::str::from_utf8(bytes) {
            outcomes.push(outcome(read_lines(text)));
        }
        outcomes
    }

    #[test]
    fn a_stream_shares_every_list_once_past_the_size_and_copies_the_short_ones_before() {
        let line = |list: &str| format!(r#"{{"type": "ok", "process": 0, "value": [["r", "k", {list}]]}}"#);
        let lines = [line("[1]"), line("[1, 2]"), line("[1, 2, 3]"), line("[1]"), line("[1, 2, 3, 4]")];
        let text = lines.join("\n");
        // The size is passed at the third line, and every line is a block of its own.
        let past = (lines[0].len() + lines[1].len() + 2) as u64;
        let Ok(read) = read_lines_in_blocks(text.as_bytes(), 1, 1, &ReadLists::sharing_every_past(past)) else {
            panic!("the lines read");
        };
        let lists: Vec<SharedSlice<i64>> = read
            .into_vec()
            .iter()
            .map(|parsed| match &parsed.op.mops()[0] {
                Mop::Read { value: crate::mop::Observed::List(list), .. } => list.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        let expected: [&[i64]; 5] = [&[1], &[1, 2], &[1, 2, 3], &[1], &[1, 2, 3, 4]];
        assert_eq!(lists.iter().map(|l| l.as_slice()).collect::<Vec<_>>(), expected);
        assert_ne!(lists[0].as_ptr(), lists[1].as_ptr());
        assert_ne!(lists[1].as_ptr(), lists[2].as_ptr());
        assert_eq!(lists[2].as_ptr(), lists[3].as_ptr());
        assert_eq!(lists[2].as_ptr(), lists[4].as_ptr());
    }

    const OPS: &str = concat!(
        r#"{"type": "invoke", "process": 0, "value": [["append", "x", 1], ["r", "y", null]]}"#,
        "\r\n\n   \n",
        r#"  {"type": "ok", "process": 0, "value": [["append", "x", 1], ["r", "y", [1, 2]]]}"#,
        "\n",
        r#"{"type": "invoke", "process": 1, "value": [["append", "y", 1], ["append", "y", 2]]}"#,
        "\n",
        r#"{"type": "ok", "process": 1, "value": [["append", "y", 1], ["append", "y", 2]]}"#,
    );

    #[test]
    fn every_block_and_piece_size_reads_the_same_operations_at_the_same_lines() {
        let outcomes = every_cut(OPS.as_bytes());
        let first = outcomes[0].clone().expect("the operations read");
        assert_eq!(first.len(), 4);
        assert!(first[1].starts_with("1@4:3 "), "{}", first[1]);
        assert!(first[3].starts_with("3@6:1 "), "{}", first[3]);
        assert!(outcomes.iter().all(|o| *o == Ok(first.clone())));
        let with_newline = format!("{OPS}\n");
        assert!(every_cut(with_newline.as_bytes()).iter().all(|o| *o == Ok(first.clone())));
    }

    /// Lines that give an index or a process, or neither, each read in every cut: an operation without an
    /// index is numbered by its position, one without a process pairs with the next completion that has
    /// none, and they get a client process after the largest named.
    const GIVEN_OR_NOT: [&str; 6] = [
        r#"{"type": "invoke", "index": 10, "process": 0, "value": [["append", "x", 1]]}"#,
        r#"{"type": "ok", "process": 0, "value": [["append", "x", 1]]}"#,
        r#"{"type": "invoke", "value": [["r", "x", null]]}"#,
        r#"{"type": "ok", "index": 20, "value": [["r", "x", [1]]]}"#,
        r#"{"type": "invoke", "index": 30, "process": 5, "value": [["append", "x", 2]]}"#,
        r#"{"type": "ok", "process": 5, "value": [["append", "x", 2]]}"#,
    ];

    #[test]
    fn operations_without_an_index_or_a_process_are_numbered_by_position_and_given_a_fresh_process() {
        let text = GIVEN_OR_NOT.join("\n");
        let expected = [(10, 0), (1, 0), (2, 6), (20, 6), (30, 5), (5, 5)];
        for block in [1, 7, 40, 97, 1 << 20] {
            for piece in [1, 13, 64, 1 << 20] {
                let Ok(read) = read_lines_in_blocks(text.as_bytes(), block, piece, &ReadLists::for_stream()) else {
                    panic!("the lines read");
                };
                let history = crate::well_formed::settle(read).expect("a well-formed history");
                let got: Vec<(u64, u64)> = history
                    .ops()
                    .iter()
                    .map(|op| match op.process() {
                        Process::Client(p) => (op.index, p),
                        Process::Nemesis => panic!("{op:?}"),
                    })
                    .collect();
                assert_eq!(got, expected, "block {block}, piece {piece}");
                assert_eq!(history.partner(2), Some(3));
            }
        }
    }

    #[test]
    fn a_position_that_numbers_an_operation_without_an_index_is_refused_when_another_gave_it() {
        let mut lines = GIVEN_OR_NOT.map(String::from);
        // The last line, at position 5, gives no index: the first now gives 5 as well.
        lines[0] = lines[0].replace("\"index\": 10", "\"index\": 5");
        let refusal = "6:1: index 5 is used twice (also at line 1): indices must be unique".to_string();
        assert!(every_cut(lines.join("\n").as_bytes()).iter().all(|o| *o == Err(refusal.clone())));
    }

    /// A stream that gives `bytes` and then fails.
    struct FailingAfter<'a> {
        bytes: &'a [u8],
    }

    impl Read for FailingAfter<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.bytes.is_empty() {
                return Err(io::Error::other("the disk went away"));
            }
            let n = buf.len().min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_failure_to_read_on_comes_after_the_errors_of_the_blocks_read_whole_before_it() {
        let mut bytes = OPS.as_bytes().to_vec();
        bytes.extend_from_slice(b"\n{\"type\": \"ok\" \"process\": 2}\n");
        bytes.extend(std::iter::repeat_n(b' ', 300));
        let read = |bytes: &[u8], block: usize, piece: usize| match read_lines_in_blocks(
            FailingAfter { bytes },
            block,
            piece,
            &ReadLists::for_stream(),
        ) {
            Ok(_) => "read".to_string(),
            Err(StreamError::Io(e)) => format!("i/o: {e}"),
            Err(StreamError::Malformed((at, problem))) => format!("{at}: {problem}"),
        };
        for piece in [1, 13, 1 << 20] {
            // The syntax error on line 7 is in a block read whole before the stream fails.
            for block in [1, 7, 40, 97] {
                assert_eq!(read(&bytes, block, piece), "7:15: expected `,` or `}`", "block {block}, piece {piece}");
                assert_eq!(
                    read(OPS.as_bytes(), block, piece),
                    "i/o: the disk went away",
                    "block {block}, piece {piece}"
                );
            }
            // A block of everything fails to be read whole: nothing of it is read.
            assert_eq!(read(&bytes, 1 << 20, piece), "i/o: the disk went away");
        }
    }

    #[test]
    fn every_block_and_piece_size_reports_the_first_error_of_a_line_by_line_reading() {
        // A syntax error on line 4 comes before invalid UTF-8 on line 5 and a bad micro-op on line 6.
        let mut bytes = OPS.as_bytes().to_vec();
        bytes.extend_from_slice(b"\n{\"type\": \"ok\" \"process\": 2}\n{\"type\": \"ok\", \"f\": \"\xff\"}\n");
        let outcomes = every_cut(&bytes);
        let expected = "7:15: expected `,` or `}`";
        assert!(outcomes.iter().all(|o| o.as_ref().is_err_and(|e| e == expected)), "{outcomes:?}");
        // With the syntax error gone, the invalid UTF-8 is reported, at its line, column and offset.
        let fixed: Vec<u8> = String::from_utf8_lossy(&bytes).replace(r#""ok" "process""#, r#""ok", "process""#).into();
        let fixed = [&fixed[..fixed.len() - 6], b"\xff\"}\n"].concat();
        let offset = fixed.len() - 4;
        let outcomes = every_cut(&fixed);
        let expected = format!("8:22: invalid UTF-8 at byte offset {offset} (byte 0xff)");
        assert!(outcomes.iter().all(|o| o.as_ref().is_err_and(|e| e.starts_with(&expected))), "{outcomes:?}");
    }
}
