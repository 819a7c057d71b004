//! A cycle as an SVG picture, drawn in process (no Graphviz needed): one box per transaction (its
//! number, process and outcome; its micro-ops in the tooltip), one arrow per dependency, coloured and
//! dashed by kind and labelled with the kind and key (the step's explanation in the tooltip), a title
//! and a legend of the kinds drawn. Positions come from `cycle_layout.rs`. The same picture goes into
//! `cycles/NAME-N.svg` and, inline, into `report.html`.

use checker::{Cycle, Kind, TxnView};
use histories::OpType;

use crate::cycle_layout::{self, Spec};
use crate::kind_style::{colour, dash};
use crate::svg::{Svg, text_width, truncate};

const NODE_HEIGHT: f64 = 38.0;
const LABEL_SIZE: f64 = 11.0;
/// The most characters of an edge label drawn (the whole key is in the tooltip).
const LABEL_CHARS: usize = 28;
const TITLE_ROOM: f64 = 24.0;
const LEGEND_ROOM: f64 = 22.0;

/// The label of a dependency: its kind and key, as `rw "y"`.
pub fn step_label(step: &checker::Step) -> String {
    match &step.key {
        Some(key) => format!("{} {key}", step.kind),
        None => step.kind.to_string(),
    }
}

fn node_lines(op: Option<&TxnView>, index: u64) -> (String, String) {
    let second = op.map_or_else(String::new, |op| format!("p{} {}", op.process, op.outcome));
    (format!("T{index}"), second)
}

fn node_fill(op: Option<&TxnView>) -> &'static str {
    match op.map(|o| o.outcome) {
        Some(OpType::Fail) => "#eeeeee",
        Some(OpType::Info) => "#fff6d5",
        _ => "#ffffff",
    }
}

/// The picture of the `n`th cycle of class `name`.
pub fn cycle_svg(name: &str, n: usize, cycle: &Cycle) -> String {
    let mut members: Vec<u64> = Vec::new();
    for step in &cycle.steps {
        if !members.contains(&step.from) {
            members.push(step.from);
        }
    }
    for &t in &cycle.cycle {
        if !members.contains(&t) {
            members.push(t);
        }
    }
    let op = |t: u64| cycle.ops.iter().find(|o| o.index == t);
    let position = |t: u64| members.iter().position(|&m| m == t).unwrap_or(0);
    let labels: Vec<String> = cycle.steps.iter().map(|s| truncate(&step_label(s), LABEL_CHARS)).collect();
    let node_width = members
        .iter()
        .map(|&t| {
            let (a, b) = node_lines(op(t), t);
            text_width(&a, 13.0).max(text_width(&b, LABEL_SIZE))
        })
        .fold(64.0, f64::max)
        + 16.0;
    let spec = Spec {
        nodes: members.len(),
        node_width,
        node_height: NODE_HEIGHT,
        edges: cycle
            .steps
            .iter()
            .zip(&labels)
            .map(|(s, l)| (position(s.from), position(s.to), text_width(l, LABEL_SIZE) + 6.0))
            .collect(),
        top: TITLE_ROOM,
        bottom: LEGEND_ROOM,
    };
    let kinds: Vec<Kind> = Kind::ALL.into_iter().filter(|k| cycle.steps.iter().any(|s| s.kind == *k)).collect();
    let legend_width: f64 = kinds.iter().map(|k| text_width(k.name(), LABEL_SIZE) + 34.0).sum();
    let title = format!("{name} #{n}");
    let layout = cycle_layout::layout(&spec);
    let width = layout.width.max(legend_width + 24.0).max(text_width(&title, 13.0) + 24.0);
    let x_shift = (width - layout.width) / 2.0;
    let txns: Vec<String> = members.iter().map(|t| format!("T{t}")).collect();
    let mut svg = Svg::new(width, layout.height, &format!("{title}: a dependency cycle of {}", txns.join(", ")));
    svg.text(12.0, 18.0, &title, "font-size=\"13\" font-weight=\"bold\" fill=\"#222\"");

    for (step, (edge, label)) in cycle.steps.iter().zip(layout.edges.iter().zip(&labels)) {
        let c = colour(step.kind);
        svg.open_group(&format!("class=\"edge {}\"", step.kind));
        svg.title(&format!("T{} → T{} ({}): {}", step.from, step.to, step_label(step), step.explanation));
        let x = |p: cycle_layout::Point| (p.x + x_shift, p.y);
        let stroke = match dash(step.kind) {
            Some(d) => format!("stroke=\"{c}\" stroke-width=\"1.6\" stroke-dasharray=\"{d}\""),
            None => format!("stroke=\"{c}\" stroke-width=\"1.6\""),
        };
        svg.cubic([x(edge.start), x(edge.c1), x(edge.c2), x(edge.end)], &stroke);
        svg.polygon(&edge.arrow.map(x), &format!("fill=\"{c}\""));
        let (lx, ly) = x(edge.label);
        let w = text_width(label, LABEL_SIZE) + 6.0;
        svg.rect(lx - w / 2.0, ly - 8.0, w, 15.0, "fill=\"#ffffff\" fill-opacity=\"0.85\" rx=\"3\"");
        svg.text(
            lx,
            ly + 4.0,
            label,
            &format!("font-size=\"{LABEL_SIZE}\" text-anchor=\"middle\" fill=\"{c}\" font-weight=\"bold\""),
        );
        svg.close_group();
    }

    for (&t, center) in members.iter().zip(&layout.nodes) {
        let view = op(t);
        let (first, second) = node_lines(view, t);
        let (cx, cy) = (center.x + x_shift, center.y);
        svg.open_group("class=\"txn\"");
        let mut tooltip = format!("T{t}");
        if let Some(view) = view {
            let mops: Vec<String> = view.value.iter().map(ToString::to_string).collect();
            tooltip.push_str(&format!(" (process {}, {}): {}", view.process, view.outcome, mops.join(" ")));
            if let Some(error) = &view.error {
                tooltip.push_str(&format!(" — {error}"));
            }
        }
        svg.title(&tooltip);
        svg.rect(
            cx - node_width / 2.0,
            cy - NODE_HEIGHT / 2.0,
            node_width,
            NODE_HEIGHT,
            &format!("rx=\"5\" fill=\"{}\" stroke=\"#333\" stroke-width=\"1.2\"", node_fill(view)),
        );
        svg.text(cx, cy - 2.0, &first, "font-size=\"13\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#111\"");
        svg.text(cx, cy + 12.0, &second, &format!("font-size=\"{LABEL_SIZE}\" text-anchor=\"middle\" fill=\"#555\""));
        svg.close_group();
    }

    let mut x = (width - legend_width) / 2.0;
    let y = layout.height - 10.0;
    for kind in kinds {
        let c = colour(kind);
        let stroke = match dash(kind) {
            Some(d) => format!("stroke=\"{c}\" stroke-width=\"2\" stroke-dasharray=\"{d}\""),
            None => format!("stroke=\"{c}\" stroke-width=\"2\""),
        };
        svg.line(x, y - 4.0, x + 22.0, y - 4.0, &stroke);
        svg.text(x + 26.0, y, kind.name(), &format!("font-size=\"{LABEL_SIZE}\" fill=\"{c}\""));
        x += text_width(kind.name(), LABEL_SIZE) + 34.0;
    }
    svg.finish()
}
