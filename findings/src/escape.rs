//! Escaping text from a history for the formats it is written into. Keys, values and error messages are
//! whatever a client stored or a server said, so none of it may ever become markup: every renderer
//! passes such text through one of these functions, and only through them. HTML and SVG (XML) share
//! one escape, which is safe both in element content and in double- or single-quoted attribute values;
//! Markdown text also escapes the characters that would start a table cell, emphasis, a link or a
//! code span, and code blocks get a fence longer than any run of backticks inside them.
//!
//! Text can also steer whatever shows it without being markup: an ESC starts a terminal escape sequence,
//! and a bidirectional-formatting character (RLO, U+202E) flips the order in which a line reads. Such
//! characters ([`steers`]) are shown as `\u{202e}` in every format: terminal text ([`terminal`],
//! [`terminal_text`]), HTML and SVG ([`Xml`]), Markdown ([`markdown`]), JSON ([`json_safe`]) and the
//! replays' TOML ([`toml_text`]), so what a report shows is what the history holds.

use std::borrow::Cow;
use std::fmt;
use std::fmt::Write as _;

/// Whether a character can steer a terminal or the layout of a page rather than show as itself: C0 and
/// C1 control characters and DEL (ESC, BEL, CSI, ...), the bidirectional formatting characters (LRE,
/// RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI, LRM, RLM, ALM), the line and paragraph separators U+2028
/// and U+2029 (a line break to a browser and to JavaScript), and the byte-order mark.
pub fn steers(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// `c` as it is shown when it would steer: `\u{1b}`.
fn push_visible(out: &mut impl fmt::Write, c: char) -> fmt::Result {
    write!(out, "\\u{{{:x}}}", u32::from(c))
}

/// `s` for a terminal line: every character that [`steers`], the line breaks and tabs included, as
/// `\u{..}`. For names and values from a history shown on one line (a file name, a key).
pub fn terminal(s: &str) -> Cow<'_, str> {
    visible_except(s, |_| false)
}

/// `s`, a multi-line text for a terminal, with every character that [`steers`] shown as `\u{..}`,
/// except the line breaks and tabs that lay the text out.
pub fn terminal_text(s: &str) -> Cow<'_, str> {
    visible_except(s, |c| matches!(c, '\n' | '\t'))
}

fn visible_except(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let hidden = |c: char| steers(c) && !keep(c);
    if !s.contains(hidden) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if hidden(c) {
            let _ = push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// JSON text (as `serde_json` writes it) with the characters that [`steers`] and JSON allows raw
/// (DEL, C1 controls, bidirectional formatting, U+2028/9) written as `\uXXXX` escapes: the same JSON
/// value, safe to print. `serde_json` already escapes the C0 controls.
pub fn json_safe(s: &str) -> Cow<'_, str> {
    unicode_escapes(s)
}

/// TOML text whose strings are all basic (double-quoted) strings, as the replay files are, with the
/// characters that [`steers`] written as `\uXXXX` escapes: the same document, safe to print. Outside
/// strings a replay file holds only ASCII.
pub fn toml_text(s: &str) -> Cow<'_, str> {
    unicode_escapes(s)
}

fn unicode_escapes(s: &str) -> Cow<'_, str> {
    let hidden = |c: char| steers(c) && !matches!(c, '\n' | '\t' | '\r');
    if !s.contains(hidden) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if hidden(c) {
            let _ = write!(out, "\\u{:04X}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Text escaped for HTML or XML (SVG, JUnit): `&`, `<`, `>`, `"` and `'` as entities, and every
/// character that [`steers`] other than tab, newline and carriage return (among them those XML 1.0
/// forbids) shown as `\u{..}`.
pub struct Xml<'a>(pub &'a str);

impl fmt::Display for Xml<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(|c: char| needs_xml_escape(c)) {
            f.write_str(&rest[..i])?;
            let c = rest[i..].chars().next().unwrap_or('\u{fffd}');
            match c {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                '\'' => f.write_str("&#39;")?,
                c => push_visible(f, c)?,
            }
            rest = &rest[i + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

fn needs_xml_escape(c: char) -> bool {
    matches!(c, '&' | '<' | '>' | '"' | '\'') || (steers(c) && !matches!(c, '\t' | '\n' | '\r'))
}

/// `s` escaped for HTML or XML, as a string.
pub fn xml(s: &str) -> String {
    Xml(s).to_string()
}

/// `s` escaped for Markdown running text and table cells: HTML's special characters as entities (a
/// PR comment renders inline HTML), Markdown's punctuation behind a backslash, and line breaks as
/// `<br>` so a cell stays on its row; every other character that [`steers`] is shown as `\u{..}`.
pub fn markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' => out.push_str("<br>"),
            '\r' => {}
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c if steers(c) => {
                let _ = push_visible(&mut out, c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A Markdown link to `target`, a relative path, reading `text`: the text escaped as [`markdown`], the
/// target with every byte but ASCII letters, digits and `-._~/` percent-encoded, so neither can end the
/// link, the cell or the table early, nor make the link leave the directory's files (no scheme).
pub fn markdown_link(text: &str, target: &str) -> String {
    let mut href = String::with_capacity(target.len());
    for b in target.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            href.push(char::from(b));
        } else {
            let _ = write!(href, "%{b:02X}");
        }
    }
    format!("[{}]({href})", markdown(text))
}

/// `s` for a DOT double-quoted label: backslashes and quotes escaped, line breaks as `\n`, and every
/// other character that [`steers`] shown as `\\u{..}` (a backslash-escaped `\u{..}` in the label).
pub fn dot(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if steers(c) => {
                out.push('\\');
                let _ = push_visible(&mut out, c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A fenced Markdown code block holding `text` verbatim (but for the characters that [`steers`], shown
/// as `\u{..}`), its fence one backtick longer than the longest
/// run of backticks inside it, so nothing in the text can close it early.
pub fn markdown_code_block(info: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = visible_except(text.trim_end_matches('\n'), |c| matches!(c, '\n' | '\t'));
    format!("{fence}{info}\n{body}\n{fence}\n")
}

/// `s` as a Mermaid label: letters, digits, spaces and plain punctuation as they are, everything else as
/// Mermaid's `#code;` entity, so no quote, bracket or tag can break out of the label.
pub fn mermaid(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, ' ' | '.' | ',' | ':' | '-' | '_' | '+' | '=' | '/') {
            out.push(c);
        } else {
            out.push_str(&format!("#{};", u32::from(c)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_history_text_becomes_entities() {
        assert_eq!(xml("<script>alert('x')</script>"), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
        assert_eq!(xml("a \"b\" & c"), "a &quot;b&quot; &amp; c");
        assert_eq!(xml("bell\u{7}"), "bell\\u{7}");
        assert_eq!(xml("tab\tline\n"), "tab\tline\n");
    }

    #[test]
    fn markdown_text_cannot_open_a_cell_a_tag_or_a_code_span() {
        assert_eq!(markdown("a|b <i>`x`</i>\nnext"), "a\\|b &lt;i&gt;\\`x\\`&lt;/i&gt;<br>next");
    }

    #[test]
    fn a_code_block_fence_outgrows_the_backticks_inside() {
        assert_eq!(markdown_code_block("", "plain"), "```\nplain\n```\n");
        assert_eq!(markdown_code_block("text", "a ```` b\n"), "`````text\na ```` b\n`````\n");
    }

    #[test]
    fn mermaid_labels_keep_only_plain_characters() {
        assert_eq!(mermaid("rw \"y\""), "rw #34;y#34;");
        assert_eq!(mermaid("<b>|x|</b>"), "#60;b#62;#124;x#124;#60;/b#62;");
    }
}
