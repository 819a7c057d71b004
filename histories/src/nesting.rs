//! How deep a history's values may nest, and the check that EDN text stays within it before any parser
//! sees it. An operation nests a few levels (`[{:value [[:r :x [1 2]]]}]` is four), so a history deeper
//! than [`MAX_DEPTH`] is hostile or broken; refusing it up front keeps every later step (building the
//! value, comparing map keys, printing, dropping) within a bounded native stack and linear in the input.
//! JSON needs no scan of its own: `serde_json` refuses nesting past the same depth ("recursion limit
//! exceeded") with its position. The scan follows EDN's lexical rules as `clojure-reader` reads them:
//! strings, character literals and `;` comments hold no brackets, and a tag (`#inst`) or a discard
//! (`#_`) nests the form after it one level deeper.

use crate::error::Problem;

/// The deepest nesting a history may have: vectors, lists, maps, sets and tagged literals all count.
/// It is `serde_json`'s recursion limit too, so the three formats agree.
pub const MAX_DEPTH: usize = 128;

/// The first place where EDN text nests deeper than [`MAX_DEPTH`], as a byte offset and the problem.
pub(crate) fn check_edn(text: &str) -> Result<(), (usize, Problem)> {
    let bytes = text.as_bytes();
    // Per open collection (the file itself first), the tags and discards waiting for their form.
    let mut pending: Vec<usize> = vec![0];
    let mut depth = 0usize;
    let too_deep = |at: usize| {
        Err((
            at,
            Problem::Syntax(format!(
                "values nested more than {MAX_DEPTH} deep (vectors, lists, maps, sets and tags count): an operation nests a few levels at most"
            )),
        ))
    };
    // A form ended at the current level: the prefixes waiting for it are done.
    let complete = |pending: &mut Vec<usize>, depth: &mut usize| {
        if let Some(waiting) = pending.last_mut() {
            *depth -= *waiting;
            *waiting = 0;
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b',' | 0x0b | 0x0c => i += 1,
            b';' => i = end_of_line(bytes, i),
            b'"' => {
                i = end_of_string(bytes, i);
                complete(&mut pending, &mut depth);
            }
            b'\\' => {
                // A character literal: the backslash, one character (which may be a bracket), then a name.
                let next = text[i + 1..].chars().next().map_or(0, char::len_utf8);
                i = end_of_token(bytes, i + 1 + next);
                complete(&mut pending, &mut depth);
            }
            b'[' | b'(' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return too_deep(i);
                }
                pending.push(0);
                i += 1;
            }
            b'#' if bytes.get(i + 1) == Some(&b'{') => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return too_deep(i);
                }
                pending.push(0);
                i += 2;
            }
            b'#' if bytes.get(i + 1) == Some(&b'#') => {
                // `##Inf`, `##NaN`: a symbolic value, not a tag.
                i = end_of_token(bytes, i + 2);
                complete(&mut pending, &mut depth);
            }
            b'#' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return too_deep(i);
                }
                if let Some(waiting) = pending.last_mut() {
                    *waiting += 1;
                }
                i = if bytes.get(i + 1) == Some(&b'_') { i + 2 } else { end_of_token(bytes, i + 1) };
            }
            b']' | b')' | b'}' => {
                if pending.len() > 1 {
                    let waiting = pending.pop().unwrap_or(0);
                    depth -= waiting + 1;
                    complete(&mut pending, &mut depth);
                }
                i += 1;
            }
            _ => {
                // At least one byte: whatever starts here (a symbol, a number, a stray byte) is consumed.
                i = end_of_token(bytes, i + 1);
                complete(&mut pending, &mut depth);
            }
        }
    }
    Ok(())
}

fn end_of_line(bytes: &[u8], from: usize) -> usize {
    bytes[from..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |n| from + n)
}

/// The end of a string starting at the quote at `from` (the end of the text if it never closes).
fn end_of_string(bytes: &[u8], from: usize) -> usize {
    let mut i = from + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of a symbol, keyword, number or tag: the next whitespace, delimiter or quote.
fn end_of_token(bytes: &[u8], from: usize) -> usize {
    let mut i = from.min(bytes.len());
    while i < bytes.len()
        && !matches!(
            bytes[i],
            b' ' | b'\t' | b'\n' | b'\r' | b',' | b';' | b'"' | b'[' | b']' | b'(' | b')' | b'{' | b'}'
        )
        && !(bytes[i] as char).is_whitespace()
    {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_ok(text: &str) -> bool {
        check_edn(text).is_ok()
    }

    #[test]
    fn nesting_up_to_the_limit_passes_and_one_more_is_refused_where_it_opens() {
        for open in ["[", "(", "{", "#{"] {
            let close = match open {
                "[" => "]",
                "(" => ")",
                _ => "}",
            };
            let at_limit = format!("{}{}", open.repeat(MAX_DEPTH), close.repeat(MAX_DEPTH));
            assert!(depth_ok(&at_limit), "{open} × {MAX_DEPTH}");
            let over = format!("{}{}", open.repeat(MAX_DEPTH + 1), close.repeat(MAX_DEPTH + 1));
            let (at, _) = check_edn(&over).unwrap_err();
            assert_eq!(at, MAX_DEPTH * open.len(), "{open}: refused at the opening bracket past the limit");
        }
    }

    #[test]
    fn tags_and_discards_nest_the_form_after_them() {
        assert!(!depth_ok(&format!("{}1", "#a ".repeat(MAX_DEPTH + 1))));
        assert!(!depth_ok(&format!("{}1", "#_ ".repeat(MAX_DEPTH + 1))));
        assert!(depth_ok(&format!("{}1", "#a ".repeat(MAX_DEPTH))));
        // A tag's form, once read, no longer counts: a long stream of tagged values is flat.
        assert!(depth_ok(&"#inst \"2024\" ".repeat(10 * MAX_DEPTH)));
        assert!(depth_ok(&format!("[{}]", "#a [1] ".repeat(10 * MAX_DEPTH))));
        assert!(depth_ok(&"[##Inf ##NaN] ".repeat(10 * MAX_DEPTH)));
    }

    #[test]
    fn brackets_in_strings_characters_and_comments_do_not_count() {
        let many = "[".repeat(10 * MAX_DEPTH);
        assert!(depth_ok(&format!("[\"{many}\" \\[ \\( ; {many}\n]")));
        assert!(depth_ok(&format!("\"\\\"{many}\"")));
    }

    #[test]
    fn every_byte_moves_the_scan_on() {
        // Found by the fuzz harness: a vertical tab, a form feed or a byte of a multi-byte character
        // that is not a token boundary once stopped the scan where it stood.
        for text in ["\u{b}", "\u{c}", "[\u{85}]", "\u{2028}\u{a0}", "#\u{b}[", "\\"] {
            assert!(depth_ok(text), "{text:?}");
        }
    }

    #[test]
    fn a_flat_history_of_many_operations_passes() {
        let op = "{:type :ok, :process 0, :value [[:append :x 1] [:r :x [1 2 3]]]}\n";
        assert!(depth_ok(&op.repeat(10_000)));
    }
}
