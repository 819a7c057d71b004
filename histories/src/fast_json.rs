//! The fast path of reading one JSON operation object: a byte scanner for the shape nearly every line of
//! a recorded history has (the fields `index`, `type`, `process`, `f`, `time`, `value`, `error` and
//! `commit_order`, each at most once; list-append and rw-register micro-ops; integer or plain string
//! keys), which builds the same `ParsedOp` the general reader in `crate::json` builds, at a fraction
//! of its cost. It never reports an error: on anything it is not sure of (an escape or a control
//! character in a string, another field, a duplicate field, a float, an integer of more than 18 digits,
//! `-0`, whitespace other than spaces, a nemesis or `init` operation, predicate micro-ops, ...) it
//! declines, and the general reader reads the text, so every error keeps its message and position and
//! every rare shape its meaning. What a line means is the general reader's to define; this module only
//! recognises a subset of it faster, and its tests hold it to that (`tests/fast_json.rs`).

use crate::key::Key;
use crate::mop::{Mop, Observed};
use crate::op::{Function, Op, OpType, OpValue, Process};
use crate::parsed_op::ParsedOps;
use crate::position::Position;
use crate::read_lists::ReadLists;
use crate::shared_slice::{BlockWriter, SharedSlice};
use crate::write_version::WriteVersion;

/// Most digits an integer may have here: any 18-digit integer fits in an `i64` (and a `u64`), so no
/// range needs checking; a longer one is left to the general reader.
const MAX_DIGITS: usize = 18;

/// Reads `text`, one operation object starting at `origin` (followed by nothing but spaces), after the
/// operations in `into`, if it has the common shape, its reads' lists kept in `lists`; false (`into`
/// unchanged) when the general reader must decide what it means.
pub(crate) fn parse_into(text: &str, origin: Position, lists: &ReadLists, into: &mut ParsedOps) -> bool {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
    }
    SCRATCH.with(|scratch| parse_with(text, origin, &mut scratch.borrow_mut(), lists, into)).is_some()
}

/// What a thread reuses from one object to the next: a transaction's micro-ops and a read's list are
/// collected in buffers, then moved into the thread's blocks of micro-ops and into the reading's runs of
/// lists ([`ReadLists`]; into the thread's blocks of lists when the reading does not share a list: see
/// [`ReadLists::keep`]), at their exact length and with no allocation of their own (a history holds
/// millions of both).
struct Scratch {
    mops: Vec<Mop>,
    list: Vec<i64>,
    mop_blocks: BlockWriter<Mop>,
    /// Invocations' micro-ops, kept apart: once the history is settled, nearly every invocation keeps
    /// its completion's instead ([`Op::reads_unknown`]), and these blocks are then freed whole.
    invoke_mop_blocks: BlockWriter<Mop>,
    list_blocks: BlockWriter<i64>,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            mops: Vec::new(),
            list: Vec::new(),
            mop_blocks: BlockWriter::new(),
            invoke_mop_blocks: BlockWriter::with_block_items(INVOKE_BLOCK_ITEMS),
            list_blocks: BlockWriter::new(),
        }
    }
}

/// How many micro-ops a thread's block of invocations' micro-ops holds (40 MiB; a block of completions'
/// holds the usual 64Ki). The blocks are freed once the history is settled, and the memory freed is used
/// again only by allocations that fit in it: blocks this large leave room for the check's larger arrays
/// (at 10M list-append transactions, 5.6-5.7 GiB peak rather than 6.0-6.1 with the usual blocks; README,
/// Performance).
const INVOKE_BLOCK_ITEMS: usize = 1 << 20;

fn parse_with(
    text: &str,
    origin: Position,
    scratch: &mut Scratch,
    lists: &ReadLists,
    into: &mut ParsedOps,
) -> Option<()> {
    let mut s = Scanner { text, bytes: text.as_bytes(), at: 0, scratch, lists };
    s.byte(b'{')?;
    let mut seen = 0u8;
    let mut index = None;
    let mut kind = None;
    let mut process = None;
    let mut f = None;
    let mut time = None;
    let mut value = None;
    let mut error = None;
    let mut commit_order = None;
    // The field the usual order has next (see `expected_field`).
    let mut expected = 0;
    // An object with no fields has no type: the general reader says so.
    loop {
        let field = match s.expected_field(expected) {
            Some(field) => field,
            None => {
                s.spaces();
                let field = s.field()?;
                s.spaces();
                s.byte(b':')?;
                s.spaces();
                field
            }
        };
        expected = field + 1;
        if seen & (1 << field) != 0 {
            return None;
        }
        seen |= 1 << field;
        match field {
            0 => index = Some(s.natural()?),
            1 => kind = Some(s.kind()?),
            // A process above the largest one is declined here, for the general reader to refuse.
            2 => {
                process = match s.null_or(Scanner::natural)? {
                    Some(p) if p > Process::MAX_CLIENT => return None,
                    p => p.map(Process::Client),
                }
            }
            3 if s.quoted(b"\"txn\"") => f = Some(Function::Txn),
            3 => f = s.null_or(Scanner::string)?.map(Function::parse),
            4 => time = Some(i64::try_from(s.natural()?).ok()?),
            5 => {
                let invocation = kind == Some(OpType::Invoke);
                value = Some(s.null_or(|s| s.mops(invocation))?.unwrap_or_default());
            }
            6 => error = s.null_or(Scanner::string)?.map(Box::<str>::from),
            _ => commit_order = Some(s.integer()?),
        }
        s.spaces();
        match s.next()? {
            b',' => continue,
            b'}' => break,
            _ => return None,
        }
    }
    s.spaces();
    if s.at != s.bytes.len() {
        return None;
    }
    let kind = kind?;
    let f = f.unwrap_or(Function::Txn);
    if f == Function::Init {
        return None;
    }
    let mops = value.unwrap_or_default();
    if kind == OpType::Invoke
        && (commit_order.is_some() || mops.iter().any(|m| matches!(m, Mop::Write { version: Some(_), .. })))
    {
        return None;
    }
    // Built where it is kept: an operation is large, and millions of moves of it add up.
    into.push_parts(
        index,
        process,
        Op::read(kind, f, time, OpValue::Txn(mops), error, commit_order, Vec::new(), origin),
    );
    Some(())
}

/// A cursor over the bytes of one object; every method returns `None` where the text leaves the shape.
struct Scanner<'a, 's> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    scratch: &'s mut Scratch,
    lists: &'s ReadLists,
}

impl<'a> Scanner<'a, '_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    #[inline]
    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    #[inline]
    fn byte(&mut self, expected: u8) -> Option<()> {
        (self.next()? == expected).then_some(())
    }

    /// Skips spaces: the only whitespace taken here (JSON's tabs and carriage returns go the long way).
    #[inline]
    fn spaces(&mut self) {
        while self.bytes.get(self.at) == Some(&b' ') {
            self.at += 1;
        }
    }

    /// `null` as `Some(None)`, or what `read` reads.
    fn null_or<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.peek() == Some(b'n') {
            self.literal(b"null")?;
            return Some(None);
        }
        read(self).map(Some)
    }

    /// The quoted word `word` (quotes included), if it comes next. Always inlined: every `word` is a
    /// literal, whose length is then known, so the comparison is a few instructions, not a `memcmp` call.
    #[inline(always)]
    fn quoted(&mut self, word: &[u8]) -> bool {
        let next = self.bytes.get(self.at..).is_some_and(|rest| rest.starts_with(word));
        if next {
            self.at += word.len();
        }
        next
    }

    /// A field's name, as its number: `index`, `type`, `process`, `f`, `time`, `value`, `error`,
    /// `commit_order` are 0 to 7.
    fn field(&mut self) -> Option<u8> {
        let field = match *self.bytes.get(self.at + 1)? {
            b'i' if self.quoted(b"\"index\"") => 0,
            b't' if self.quoted(b"\"type\"") => 1,
            b'p' if self.quoted(b"\"process\"") => 2,
            b'f' if self.quoted(b"\"f\"") => 3,
            b't' if self.quoted(b"\"time\"") => 4,
            b'v' if self.quoted(b"\"value\"") => 5,
            b'e' if self.quoted(b"\"error\"") => 6,
            b'c' if self.quoted(b"\"commit_order\"") => 7,
            _ => return None,
        };
        Some(field)
    }

    /// Field `n`'s name and colon, written with no spaces, if they come next (numbered as
    /// [`field`](Self::field) numbers fields). Nearly every line writes `index`, `type`, `process`, `f`,
    /// `time` and `value` in this order, the order of their numbers, so the field after field `n` is
    /// looked for as field `n + 1` first, one comparison with a literal; anything else is read by `field`.
    #[inline(always)]
    fn expected_field(&mut self, n: u8) -> Option<u8> {
        let next = match n {
            0 => self.quoted(b"\"index\":"),
            1 => self.quoted(b"\"type\":"),
            2 => self.quoted(b"\"process\":"),
            3 => self.quoted(b"\"f\":"),
            4 => self.quoted(b"\"time\":"),
            5 => self.quoted(b"\"value\":"),
            _ => false,
        };
        next.then_some(n)
    }

    /// An operation's type.
    fn kind(&mut self) -> Option<OpType> {
        if self.quoted(b"\"invoke\"") {
            Some(OpType::Invoke)
        } else if self.quoted(b"\"ok\"") {
            Some(OpType::Ok)
        } else if self.quoted(b"\"fail\"") {
            Some(OpType::Fail)
        } else if self.quoted(b"\"info\"") {
            Some(OpType::Info)
        } else {
            None
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// A string without escapes or control characters: its text is exactly what it says.
    fn string(&mut self) -> Option<&'a str> {
        self.byte(b'"')?;
        let start = self.at;
        loop {
            match self.next()? {
                b'"' => break,
                b'\\' | 0..=0x1f => return None,
                _ => {}
            }
        }
        // Cut at ASCII quotes of a `str`, so at character boundaries.
        self.text.get(start..self.at - 1)
    }

    /// Up to [`MAX_DIGITS`] decimal digits, with no leading zero (JSON allows none) unless the number is 0.
    #[inline(always)]
    fn digits(&mut self) -> Option<u64> {
        let (n, end) = self.digit_run()?;
        self.at = end;
        // A fraction or an exponent makes a float, which the general reader refuses in its own words.
        if matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(n)
    }

    /// The run of decimal digits at the cursor, as a number and the position after it, if it is one
    /// [`digits`](Self::digits) may take (1 to [`MAX_DIGITS`] digits, no leading zero but in 0 itself);
    /// the cursor does not move. A longer run is scanned to its end, once, and declined. Where eight
    /// bytes follow the cursor, they are looked at as one word ([`digits_in_word`]).
    #[inline(always)]
    fn digit_run(&self) -> Option<(u64, usize)> {
        let bytes = self.bytes;
        let start = self.at;
        let (mut n, mut at) = (0u64, start);
        if let Some(word) = bytes.get(start..start + 8).and_then(|eight| <[u8; 8]>::try_from(eight).ok()) {
            let (value, len) = digits_in_word(u64::from_le_bytes(word));
            (n, at) = (value, start + len);
            if len < 8 {
                return (len > 0 && (len == 1 || word[0] != b'0')).then_some((n, at));
            }
        }
        while let Some(&b) = bytes.get(at) {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            n = n.wrapping_mul(10).wrapping_add(u64::from(d));
            at += 1;
        }
        let len = at - start;
        if len == 0 || len > MAX_DIGITS || (len > 1 && bytes[start] == b'0') {
            return None;
        }
        Some((n, at))
    }

    /// What [`digit_run`](Self::digit_run) gives for one digit, or two without a leading zero, followed
    /// by another byte that is no digit (a list's usual element), looked at byte by byte; `None` for
    /// anything else, which `digit_run` then reads.
    #[inline(always)]
    fn short_run(&self) -> Option<(u64, usize)> {
        let at = self.at;
        let first = self.bytes.get(at)?.wrapping_sub(b'0');
        let second = self.bytes.get(at + 1)?.wrapping_sub(b'0');
        if first > 9 {
            return None;
        }
        if second > 9 {
            return Some((u64::from(first), at + 1));
        }
        let third = self.bytes.get(at + 2)?.wrapping_sub(b'0');
        (third > 9 && first != 0).then(|| (u64::from(first * 10 + second), at + 2))
    }

    /// A non-negative integer.
    fn natural(&mut self) -> Option<u64> {
        self.digits()
    }

    /// An integer (`-0` is left to the general reader).
    fn integer(&mut self) -> Option<i64> {
        if self.peek() == Some(b'-') {
            self.at += 1;
            let n = self.digits()?;
            if n == 0 {
                return None;
            }
            return Some(-(n as i64));
        }
        self.digits().map(|n| n as i64)
    }

    fn key(&mut self) -> Option<Key> {
        match self.peek()? {
            b'"' => self.string().map(Key::from),
            _ => self.integer().map(Key::Int),
        }
    }

    /// `, ` then what `read` reads.
    fn then<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        self.spaces();
        self.byte(b',')?;
        self.spaces();
        read(self)
    }

    /// The closing `]` of an array, after optional spaces.
    fn close(&mut self) -> Option<()> {
        self.spaces();
        self.byte(b']')
    }

    /// A transaction's micro-ops.
    fn mops(&mut self, invocation: bool) -> Option<SharedSlice<Mop>> {
        self.byte(b'[')?;
        self.spaces();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Some(SharedSlice::new());
        }
        self.scratch.mops.clear();
        loop {
            self.spaces();
            let mop = self.mop()?;
            self.scratch.mops.push(mop);
            if !self.separator()? {
                break;
            }
        }
        // Moved out in one copy, into this thread's block of micro-ops (an invocation's apart: see
        // `Scratch`; an invocation whose type comes after its value is rare, and its micro-ops are freed
        // with its neighbours' completions').
        let blocks = if invocation { &mut self.scratch.invoke_mop_blocks } else { &mut self.scratch.mop_blocks };
        blocks.take(&mut self.scratch.mops)
    }

    /// One micro-op: `["append", k, v]`, `["r", k]`, `["r", k, v]`, `["w", k, v]` or `["w", k, v, n]`.
    /// The usual beginnings, `["append",` and `["r",` with no spaces, are each one comparison.
    fn mop(&mut self) -> Option<Mop> {
        let (name, key) = if self.quoted(b"[\"append\",") {
            self.spaces();
            (b'a', self.key()?)
        } else if self.quoted(b"[\"r\",") {
            self.spaces();
            (b'r', self.key()?)
        } else {
            self.byte(b'[')?;
            self.spaces();
            let name = if self.quoted(b"\"r\"") {
                b'r'
            } else if self.quoted(b"\"append\"") {
                b'a'
            } else if self.quoted(b"\"w\"") {
                b'w'
            } else {
                return None;
            };
            (name, self.then(Self::key)?)
        };
        let mop = match name {
            b'a' => Mop::Append { key, value: self.then(Self::integer)? },
            b'r' => {
                self.spaces();
                let value = match self.peek()? {
                    b',' => self.then(|s| s.observed(&key))?,
                    _ => Observed::Nil,
                };
                Mop::Read { key, value }
            }
            _ => {
                let value = self.then(Self::integer)?;
                self.spaces();
                let version = match self.peek()? {
                    // `i64::MIN` is declined here, for the general reader to refuse with its message.
                    b',' => match self.then(|s| s.null_or(Self::integer))? {
                        Some(n) => Some(WriteVersion::new(n)?),
                        None => None,
                    },
                    _ => None,
                };
                Mop::Write { key, value, version }
            }
        };
        self.close()?;
        Some(mop)
    }

    /// What a read of `key` returned: `null`, an integer, or a list of integers.
    fn observed(&mut self, key: &Key) -> Option<Observed> {
        match self.peek()? {
            b'n' => self.literal(b"null").map(|()| Observed::Nil),
            b'[' => {
                self.at += 1;
                self.spaces();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Some(Observed::List(SharedSlice::new()));
                }
                self.scratch.list.clear();
                self.elements()?;
                let list = &self.scratch.list;
                let kept = self.lists.keep(key, list).or_else(|| self.scratch.list_blocks.copy(list));
                kept.map(Observed::List)
            }
            _ => self.integer().map(Observed::Int),
        }
    }

    /// The elements of a non-empty list, after its `[` and through its `]`, into the scratch list. The
    /// shape nearly every element of a history has, an unsigned integer followed at once by `,` or `]`,
    /// is taken by a short loop; any other element (spaces, a sign, a fraction, ...) is read from its
    /// start by `integer` and its neighbours, so both ways read the same text the same way.
    fn elements(&mut self) -> Option<()> {
        loop {
            if let Some((n, end)) = self.short_run().or_else(|| self.digit_run()) {
                match self.bytes.get(end) {
                    Some(b',') => {
                        self.scratch.list.push(n as i64);
                        self.at = end + 1;
                        continue;
                    }
                    Some(b']') => {
                        self.scratch.list.push(n as i64);
                        self.at = end + 1;
                        return Some(());
                    }
                    _ => {}
                }
            }
            self.spaces();
            let element = self.integer()?;
            self.scratch.list.push(element);
            if !self.separator()? {
                return Some(());
            }
        }
    }

    /// After an array's item, optional spaces then `,` (true: another item follows) or `]` (false: the
    /// array ends).
    fn separator(&mut self) -> Option<bool> {
        self.spaces();
        match self.next()? {
            b',' => Some(true),
            b']' => Some(false),
            _ => None,
        }
    }
}

/// The decimal digits at the start of `word` (eight bytes of text, the first in its lowest byte): their
/// value and how many there are (0 to 8), found without a branch a byte. Each byte is turned into its
/// digit's value by flipping the bits of `'0'`; a byte whose result is over 9 (its high bit set, or set
/// by adding 0x76) is no digit. An addition carries only into later bytes, so the first byte flagged
/// is always a non-digit. The digits, moved to the top of the word, are then summed in pairs, fours
/// and eights (each step multiplies a lane by 10, 100 or 10,000 and adds the next).
#[inline(always)]
fn digits_in_word(word: u64) -> (u64, usize) {
    const LOW_BITS: u64 = 0x3030_3030_3030_3030;
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let values = word ^ LOW_BITS;
    let non_digits = (values.wrapping_add(0x7676_7676_7676_7676) | values) & HIGH_BITS;
    let len = (non_digits.trailing_zeros() / 8) as usize;
    if len == 0 {
        return (0, 0);
    }
    let digits = values << (8 * (8 - len));
    let pairs = (digits.wrapping_mul(10 * 256 + 1) >> 8) & 0x00FF_00FF_00FF_00FF;
    let fours = (pairs.wrapping_mul(100 * 65_536 + 1) >> 16) & 0x0000_FFFF_0000_FFFF;
    let eights = fours.wrapping_mul(10_000 * (1 << 32) + 1) >> 32;
    (eights, len)
}
