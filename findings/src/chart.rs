//! Charts of a run's figures as SVG: a horizontal bar chart (aborts by cause, or any labelled counts)
//! and the run's throughput over time as stacked columns (committed, aborted, indeterminate per slice,
//! in transactions per second). Labels can come from a system's error messages, so they go through
//! the escaping SVG writer like any text from a history. A side-by-side report draws its cells with
//! the same functions.

use crate::activity::Activity;
use crate::svg::{Svg, text_width, truncate};
use crate::timeline::{format_ns, tick_step};

const BAR_HEIGHT: f64 = 16.0;
const BAR_GAP: f64 = 6.0;
const BAR_LENGTH: f64 = 320.0;
/// The most characters of a bar's label drawn (the whole label is in the tooltip).
const LABEL_CHARS: usize = 40;

/// The colour of committed, aborted and indeterminate transactions in every chart.
pub const OK_COLOUR: &str = "#4c78a8";
/// Aborted.
pub const FAIL_COLOUR: &str = "#e45756";
/// Indeterminate.
pub const INFO_COLOUR: &str = "#f2b134";

/// A number as a chart prints it: whole numbers without decimals, others with one, and thousands and
/// millions shortened (`12k`, `1.5M`).
pub fn figure(x: f64) -> String {
    let (v, suffix) = if x.abs() >= 1e6 {
        (x / 1e6, "M")
    } else if x.abs() >= 1e4 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let text = if v == v.trunc() { format!("{}", v as i64) } else { format!("{v:.1}") };
    format!("{}{suffix}", text.strip_suffix(".0").unwrap_or(&text))
}

/// Horizontal bars, one per (label, value), longest first as given.
pub fn bar_chart(title: &str, rows: &[(String, f64)], colour: &str) -> String {
    let labels: Vec<String> = rows.iter().map(|(l, _)| truncate(l, LABEL_CHARS)).collect();
    let left = labels.iter().map(|l| text_width(l, 11.0)).fold(40.0, f64::max) + 12.0;
    let max = rows.iter().map(|r| r.1).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    let width = left + BAR_LENGTH + 70.0;
    let height = (BAR_HEIGHT + BAR_GAP) * rows.len().max(1) as f64 + BAR_GAP;
    let mut svg = Svg::new(width, height, title);
    for (i, ((label, value), short)) in rows.iter().zip(&labels).enumerate() {
        let y = BAR_GAP + i as f64 * (BAR_HEIGHT + BAR_GAP);
        let length = (value / max * BAR_LENGTH).max(1.0);
        svg.open_group("class=\"bar\"");
        svg.title(&format!("{label}: {}", figure(*value)));
        svg.text(left - 8.0, y + BAR_HEIGHT - 4.0, short, "font-size=\"11\" text-anchor=\"end\" fill=\"#222\"");
        svg.rect(left, y, length, BAR_HEIGHT, &format!("rx=\"2\" fill=\"{colour}\""));
        svg.text(left + length + 6.0, y + BAR_HEIGHT - 4.0, &figure(*value), "font-size=\"11\" fill=\"#333\"");
        svg.close_group();
    }
    svg.finish()
}

/// Throughput over time: per slice, committed, aborted and indeterminate transactions per second,
/// stacked.
pub fn activity_chart(title: &str, activity: &Activity) -> String {
    const PLOT_W: f64 = 460.0;
    const PLOT_H: f64 = 140.0;
    let peak = activity.slices.iter().map(|s| activity.per_second(s)).fold(0.0, f64::max).max(1.0);
    let step = tick_step(peak, 4);
    let top = (peak / step).ceil() * step;
    let left = text_width(&figure(top), 10.0) + 14.0;
    let (width, height) = (left + PLOT_W + 12.0, PLOT_H + 48.0);
    let y = |v: f64| 8.0 + PLOT_H - v / top * PLOT_H;
    let mut svg = Svg::new(width, height, title);
    let mut tick = 0.0;
    while tick <= top + step * 1e-9 {
        svg.line(left, y(tick), left + PLOT_W, y(tick), "stroke=\"#e4e4e4\" stroke-width=\"1\"");
        svg.text(left - 6.0, y(tick) + 3.0, &figure(tick), "font-size=\"10\" text-anchor=\"end\" fill=\"#666\"");
        tick += step;
    }
    let n = activity.slices.len().max(1) as f64;
    let column = PLOT_W / n;
    let per_s = |count: u64| count as f64 * 1e9 / activity.slice_ns as f64;
    for (i, slice) in activity.slices.iter().enumerate() {
        let x = left + column * i as f64 + column * 0.1;
        let from = activity.slice_ns * i as i64;
        svg.open_group("class=\"slice\"");
        svg.title(&format!(
            "{}–{}: {} ok, {} fail, {} info ({} txn/s)",
            format_ns(from),
            format_ns(from + activity.slice_ns),
            slice.ok,
            slice.fail,
            slice.info,
            activity.per_second(slice).round()
        ));
        let mut base = 0.0;
        for (count, colour) in [(slice.ok, OK_COLOUR), (slice.fail, FAIL_COLOUR), (slice.info, INFO_COLOUR)] {
            if count == 0 {
                continue;
            }
            let v = per_s(count);
            svg.rect(x, y(base + v), column * 0.8, y(base) - y(base + v), &format!("fill=\"{colour}\""));
            base += v;
        }
        svg.close_group();
    }
    let axis = 8.0 + PLOT_H;
    svg.line(left, axis, left + PLOT_W, axis, "stroke=\"#888\" stroke-width=\"1\"");
    let total_ns = activity.slice_ns * activity.slices.len() as i64;
    svg.text(left, axis + 14.0, "0", "font-size=\"10\" fill=\"#666\"");
    svg.text(left + PLOT_W, axis + 14.0, &format_ns(total_ns), "font-size=\"10\" text-anchor=\"end\" fill=\"#666\"");
    let mut lx = left;
    for (name, colour) in [("ok", OK_COLOUR), ("fail", FAIL_COLOUR), ("info", INFO_COLOUR)] {
        svg.rect(lx, axis + 24.0, 10.0, 10.0, &format!("fill=\"{colour}\""));
        svg.text(lx + 14.0, axis + 33.0, name, "font-size=\"10\" fill=\"#333\"");
        lx += 56.0;
    }
    svg.text(
        left + PLOT_W,
        axis + 33.0,
        &format!("txn/s per {} slice", format_ns(activity.slice_ns)),
        "font-size=\"10\" text-anchor=\"end\" fill=\"#666\"",
    );
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_short() {
        assert_eq!(figure(7.0), "7");
        assert_eq!(figure(2.5), "2.5");
        assert_eq!(figure(9999.0), "9999");
        assert_eq!(figure(12_000.0), "12k");
        assert_eq!(figure(1_500_000.0), "1.5M");
    }

    #[test]
    fn bar_labels_are_escaped_text() {
        let svg = bar_chart("aborts", &[("<script>x</script>".into(), 3.0), ("40001".into(), 1.0)], FAIL_COLOUR);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        assert!(doc.descendants().all(|n| n.tag_name().name() != "script"));
        assert_eq!(doc.descendants().filter(|n| n.has_tag_name("rect")).count(), 2);
    }
}
