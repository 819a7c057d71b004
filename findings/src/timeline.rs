//! When the transactions of an anomaly ran: one row per transaction, a bar from its invocation to its
//! completion on a shared time axis, coloured by outcome (an indeterminate one fades out to the end, as
//! nobody knows when, or whether, it took effect). Overlapping bars are transactions that were
//! concurrent; a bar wholly before another is a real-time order. Times are relative to the first
//! invocation shown. Histories without times get no timeline.

use checker::TxnView;
use histories::OpType;

use crate::svg::{Svg, text_width};

const ROW: f64 = 22.0;
const BAR: f64 = 12.0;
const PLOT_WIDTH: f64 = 420.0;
const AXIS_ROOM: f64 = 30.0;

/// A duration in nanoseconds, in the largest unit that keeps it at least 1: `750 ns`, `1.5 µs`, `12 ms`.
pub fn format_ns(ns: i64) -> String {
    let abs = ns.unsigned_abs() as f64;
    let (value, unit) = if abs >= 1e9 {
        (ns as f64 / 1e9, "s")
    } else if abs >= 1e6 {
        (ns as f64 / 1e6, "ms")
    } else if abs >= 1e3 {
        (ns as f64 / 1e3, "µs")
    } else {
        (ns as f64, "ns")
    };
    let text = format!("{value:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text} {unit}")
}

/// The earliest invocation time among `ops`: the zero of their times as reports show them.
pub fn first_invocation(ops: &[TxnView]) -> Option<i64> {
    ops.iter().filter_map(|o| o.invoke_time).min()
}

/// When `op` ran, relative to `start`: `1.5 ms → 3 ms`, `1.5 ms → ?` when it never completed, and
/// nothing for a history without times.
pub fn span_text(start: Option<i64>, op: &TxnView) -> String {
    match (start, op.invoke_time, op.complete_time) {
        (Some(s), Some(a), Some(b)) => format!("{} → {}", format_ns(a - s), format_ns(b - s)),
        (Some(s), Some(a), None) => format!("{} → ?", format_ns(a - s)),
        _ => String::new(),
    }
}

/// A tick spacing of 1, 2 or 5 times a power of ten giving at most `max` ticks over `span`.
pub fn tick_step(span: f64, max: usize) -> f64 {
    let rough = (span / max.max(1) as f64).max(f64::MIN_POSITIVE);
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|&s| s >= rough).unwrap_or(10.0 * power)
}

fn fill(outcome: OpType) -> &'static str {
    match outcome {
        OpType::Ok => "#4c78a8",
        OpType::Fail => "#bbbbbb",
        _ => "#f2b134",
    }
}

/// The timeline of these transactions, or `None` if none has an invocation time.
pub fn timeline_svg(title: &str, ops: &[TxnView]) -> Option<String> {
    let start = first_invocation(ops)?;
    let end = ops.iter().flat_map(|o| [o.invoke_time, o.complete_time]).flatten().max()?;
    let span = ((end - start) as f64).max(1.0);
    let labels: Vec<String> = ops.iter().map(|o| format!("T{} p{}", o.index, o.process)).collect();
    let left = labels.iter().map(|l| text_width(l, 11.0)).fold(0.0, f64::max) + 18.0;
    let right = 90.0;
    let width = left + PLOT_WIDTH + right;
    let height = ROW * ops.len() as f64 + AXIS_ROOM + 8.0;
    let x = |t: i64| left + (t - start) as f64 / span * PLOT_WIDTH;
    let mut svg = Svg::new(width, height, title);

    let axis_y = height - AXIS_ROOM + 6.0;
    svg.line(left, axis_y, left + PLOT_WIDTH, axis_y, "stroke=\"#888\" stroke-width=\"1\"");
    let step = tick_step(span, 5);
    let mut tick = 0.0;
    while tick <= span + step * 1e-9 {
        let tx = left + tick / span * PLOT_WIDTH;
        svg.line(tx, 4.0, tx, axis_y + 4.0, "stroke=\"#e4e4e4\" stroke-width=\"1\"");
        svg.text(tx, axis_y + 16.0, &format_ns(tick as i64), "font-size=\"10\" text-anchor=\"middle\" fill=\"#666\"");
        tick += step;
    }

    for (row, (op, label)) in ops.iter().zip(&labels).enumerate() {
        let y = 6.0 + ROW * row as f64;
        let mops: Vec<String> = op.value.iter().map(ToString::to_string).collect();
        svg.open_group("class=\"txn-bar\"");
        let when = match (op.invoke_time, op.complete_time) {
            (Some(a), Some(b)) => format!("invoked at {}, completed {} later", format_ns(a - start), format_ns(b - a)),
            (Some(a), None) => format!("invoked at {}, never completed", format_ns(a - start)),
            _ => "no time recorded".to_string(),
        };
        let mut tip = format!("T{} (process {}, {}): {when}; {}", op.index, op.process, op.outcome, mops.join(" "));
        if let Some(error) = &op.error {
            tip.push_str(&format!(" — {error}"));
        }
        svg.title(&tip);
        svg.text(left - 8.0, y + BAR - 2.0, label, "font-size=\"11\" text-anchor=\"end\" fill=\"#222\"");
        if let Some(invoked) = op.invoke_time {
            let x0 = x(invoked);
            let (x1, faded) = match op.complete_time {
                Some(done) if op.outcome != OpType::Info => (x(done), false),
                Some(done) => (x(done).max(left + PLOT_WIDTH), true),
                None => (left + PLOT_WIDTH, true),
            };
            let style = if faded {
                format!(
                    "fill=\"{}\" fill-opacity=\"0.45\" stroke=\"{}\" stroke-dasharray=\"3 2\"",
                    fill(op.outcome),
                    fill(op.outcome)
                )
            } else {
                format!("fill=\"{}\"", fill(op.outcome))
            };
            svg.rect(x0, y, (x1 - x0).max(2.0), BAR, &format!("rx=\"2\" {style}"));
            svg.text(x1.max(x0 + 2.0) + 6.0, y + BAR - 2.0, op.outcome.as_str(), "font-size=\"10\" fill=\"#555\"");
        }
        svg.close_group();
    }
    Some(svg.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(format_ns(0), "0 ns");
        assert_eq!(format_ns(1500), "1.5 µs");
        assert_eq!(format_ns(12_000_000), "12 ms");
        assert_eq!(format_ns(2_500_000_000), "2.5 s");
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(7000.0, 5), 2000.0);
        assert_eq!(tick_step(1.0, 5), 0.2);
        assert_eq!(tick_step(100.0, 5), 20.0);
    }
}
