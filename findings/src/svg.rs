//! A small SVG writer shared by every picture (cycles, timelines, charts). It keeps one rule: text from
//! a history reaches the output only through [`Svg::text`] and [`Svg::title`], which escape it, while
//! shapes take numbers and the renderers' own constant styles. Pictures use the system's monospace
//! font (nothing is fetched), carry a `<title>` for screen readers and tooltips, and define no ids,
//! so any number of them can sit in one HTML page.

use std::fmt::Write;

use crate::escape::Xml;

/// The fonts pictures ask for: whatever monospace font the reader's system has.
pub const FONT: &str = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace";

/// The width a monospace font's character takes at `size` pixels (an estimate good for layout).
pub fn char_width(size: f64) -> f64 {
    size * 0.62
}

/// The width `text` takes at `size` pixels.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * char_width(size)
}

/// `text` cut to `max` characters, with an ellipsis when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Rounds a coordinate to a tenth of a pixel, so pictures are stable text for snapshots.
fn n(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r == r.trunc() { format!("{}", r as i64) } else { format!("{r:.1}") }
}

/// An SVG document being written.
pub struct Svg {
    out: String,
    width: f64,
    height: f64,
}

impl Svg {
    /// A picture of this size whose accessible name is `title`.
    pub fn new(width: f64, height: f64, title: &str) -> Svg {
        let mut svg = Svg { out: String::new(), width, height };
        svg.title(title);
        svg
    }

    /// A `<title>` for the element just opened (a tooltip in browsers).
    pub fn title(&mut self, text: &str) {
        let _ = writeln!(self.out, "<title>{}</title>", Xml(text));
    }

    /// Opens a group with these (constant, trusted) attributes.
    pub fn open_group(&mut self, attributes: &str) {
        let _ = writeln!(self.out, "<g {attributes}>");
    }

    /// Closes the group opened last.
    pub fn close_group(&mut self) {
        self.out.push_str("</g>\n");
    }

    /// A rectangle.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, attributes: &str) {
        let _ = writeln!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {attributes}/>",
            n(x),
            n(y),
            n(w.max(0.0)),
            n(h.max(0.0))
        );
    }

    /// A straight line.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, attributes: &str) {
        let _ = writeln!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {attributes}/>",
            n(x1),
            n(y1),
            n(x2),
            n(y2)
        );
    }

    /// A cubic Bézier curve.
    pub fn cubic(&mut self, points: [(f64, f64); 4], attributes: &str) {
        let [a, b, c, d] = points;
        let _ = writeln!(
            self.out,
            "<path d=\"M{} {} C{} {} {} {} {} {}\" fill=\"none\" {attributes}/>",
            n(a.0),
            n(a.1),
            n(b.0),
            n(b.1),
            n(c.0),
            n(c.1),
            n(d.0),
            n(d.1)
        );
    }

    /// A filled polygon.
    pub fn polygon(&mut self, points: &[(f64, f64)], attributes: &str) {
        let pts: Vec<String> = points.iter().map(|p| format!("{},{}", n(p.0), n(p.1))).collect();
        let _ = writeln!(self.out, "<polygon points=\"{}\" {attributes}/>", pts.join(" "));
    }

    /// Text (escaped), with these (constant, trusted) attributes.
    pub fn text(&mut self, x: f64, y: f64, text: &str, attributes: &str) {
        let _ = writeln!(self.out, "<text x=\"{}\" y=\"{}\" {attributes}>{}</text>", n(x), n(y), Xml(text));
    }

    /// The finished document.
    pub fn finish(self) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
             role=\"img\" font-family=\"{FONT}\" font-size=\"12\">\n{}</svg>\n",
            self.out,
            w = n(self.width),
            h = n(self.height),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_titles_are_escaped_and_the_document_parses() {
        let mut svg = Svg::new(10.0, 10.0, "a <b> & \"c\"");
        svg.text(1.0, 2.5, "</text><script>alert(1)</script>", "fill=\"red\"");
        let doc = svg.finish();
        let parsed = roxmltree::Document::parse(&doc).expect("well-formed XML");
        assert!(parsed.descendants().all(|node| node.tag_name().name() != "script"));
        let text = parsed.descendants().find(|node| node.has_tag_name("text")).unwrap();
        assert_eq!(text.text(), Some("</text><script>alert(1)</script>"));
        assert!(doc.contains("y=\"2.5\""));
    }

    #[test]
    fn long_text_is_cut_with_an_ellipsis() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
