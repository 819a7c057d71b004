//! Escaping text from a history for the formats it is written into. Keys, values and error messages are
//! whatever a client stored or a server said, so none of it may ever become markup: every renderer
//! passes such text through one of these functions, and only through them. HTML and SVG (XML) share
//! one escape, which is safe both in element content and in double- or single-quoted attribute values;
//! Markdown text also escapes the characters that would start a table cell, emphasis, a link or a
//! code span, and code blocks get a fence longer than any run of backticks inside them.

use std::fmt;

/// Text escaped for HTML or XML (SVG, JUnit): `&`, `<`, `>`, `"` and `'` as entities, and characters
/// XML 1.0 forbids (control characters other than tab, newline and carriage return) as U+FFFD.
pub struct Xml<'a>(pub &'a str);

impl fmt::Display for Xml<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(|c: char| needs_xml_escape(c)) {
            f.write_str(&rest[..i])?;
            let c = rest[i..].chars().next().unwrap_or('\u{fffd}');
            f.write_str(match c {
                '&' => "&amp;",
                '<' => "&lt;",
                '>' => "&gt;",
                '"' => "&quot;",
                '\'' => "&#39;",
                _ => "\u{fffd}",
            })?;
            rest = &rest[i + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

fn needs_xml_escape(c: char) -> bool {
    matches!(c, '&' | '<' | '>' | '"' | '\'') || (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// `s` escaped for HTML or XML, as a string.
pub fn xml(s: &str) -> String {
    Xml(s).to_string()
}

/// `s` escaped for Markdown running text and table cells: HTML's special characters as entities (a
/// PR comment renders inline HTML), Markdown's punctuation behind a backslash, and line breaks as
/// `<br>` so a cell stays on its row.
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
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A fenced Markdown code block holding `text` verbatim, its fence one backtick longer than the longest
/// run of backticks inside it, so nothing in the text can close it early.
pub fn markdown_code_block(info: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = text.trim_end_matches('\n');
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
        assert_eq!(xml("bell\u{7}"), "bell\u{fffd}");
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
