//! Where a cycle's transactions and dependencies go in its picture. A dependency cycle is a ring, so
//! the transactions sit on a circle in cycle order, clockwise from the left (two) or the top (more),
//! far enough apart that neighbouring boxes and the labels between them never touch. Each dependency
//! is a curve that bulges to the left of its direction of travel: going round the ring clockwise that
//! is outwards, so the two edges of a two-transaction cycle take opposite sides, and a walk that goes
//! back against the ring curves inside it. Repeated edges between the same pair bulge further, and an
//! edge from a transaction to itself is a loop above it. This module is geometry only: numbers in,
//! numbers out; `cycle_svg.rs` draws them.

use std::f64::consts::PI;

/// A point in the picture, in pixels (y grows downwards, as in SVG).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Rightwards.
    pub x: f64,
    /// Downwards.
    pub y: f64,
}

impl Point {
    fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }
    fn add(self, o: Point) -> Point {
        Point::new(self.x + o.x, self.y + o.y)
    }
    fn sub(self, o: Point) -> Point {
        Point::new(self.x - o.x, self.y - o.y)
    }
    fn scale(self, k: f64) -> Point {
        Point::new(self.x * k, self.y * k)
    }
    fn len(self) -> f64 {
        self.x.hypot(self.y)
    }
    fn unit(self) -> Point {
        let l = self.len();
        if l == 0.0 { Point::new(1.0, 0.0) } else { self.scale(1.0 / l) }
    }
    /// This direction turned a quarter to the left, as a reader sees the screen.
    fn left(self) -> Point {
        Point::new(self.y, -self.x)
    }
}

/// What to lay out: the boxes' size, and the edges as (from, to) positions in the node list.
#[derive(Debug, Clone)]
pub struct Spec {
    /// How many transactions (boxes).
    pub nodes: usize,
    /// Each box's width.
    pub node_width: f64,
    /// Each box's height.
    pub node_height: f64,
    /// The edges, by node position, each with the width of its label.
    pub edges: Vec<(usize, usize, f64)>,
    /// Room above the drawing (for a title).
    pub top: f64,
    /// Room below the drawing (for a legend).
    pub bottom: f64,
}

/// One edge: a cubic Bézier curve from the source box's border to just short of the target's, an
/// arrowhead whose tip touches the target's border, and where its label goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EdgeGeometry {
    /// Where the curve leaves the source box.
    pub start: Point,
    /// The first control point.
    pub c1: Point,
    /// The second control point.
    pub c2: Point,
    /// Where the curve meets the arrowhead's base.
    pub end: Point,
    /// The arrowhead: tip, then the two corners of its base.
    pub arrow: [Point; 3],
    /// The label's centre.
    pub label: Point,
}

/// The laid-out picture.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The picture's width.
    pub width: f64,
    /// The picture's height.
    pub height: f64,
    /// Each box's centre, in node order.
    pub nodes: Vec<Point>,
    /// Each edge, in edge order.
    pub edges: Vec<EdgeGeometry>,
}

const MARGIN: f64 = 12.0;
/// Room between neighbouring boxes, for the label of the edge between them.
const GAP: f64 = 56.0;
const ARROW_LENGTH: f64 = 9.0;
const ARROW_HALF_WIDTH: f64 = 4.5;
const LABEL_HEIGHT: f64 = 14.0;

/// Lays out a cycle.
pub fn layout(spec: &Spec) -> Layout {
    let n = spec.nodes.max(1);
    let (w, h) = (spec.node_width, spec.node_height);
    let widest_label = spec.edges.iter().map(|e| e.2).fold(0.0, f64::max);
    // Neighbouring centres are a chord apart: 2R sin(pi/n) must clear a box and a label.
    let radius =
        if n == 1 { 0.0 } else { ((w.max(h) + GAP.max(widest_label * 0.6)) / (2.0 * (PI / n as f64).sin())).max(60.0) };
    let first = if n == 2 { PI } else { -PI / 2.0 };
    let nodes: Vec<Point> = (0..n)
        .map(|i| {
            let theta = first + 2.0 * PI * i as f64 / n as f64;
            Point::new(radius * theta.cos(), radius * theta.sin())
        })
        .collect();
    let mut seen: Vec<(usize, usize)> = Vec::new();
    let mut edges: Vec<EdgeGeometry> = spec
        .edges
        .iter()
        .map(|&(from, to, label_width)| {
            let repeat = seen.iter().filter(|&&p| p == (from, to)).count();
            seen.push((from, to));
            let (a, b) = (nodes[from.min(n - 1)], nodes[to.min(n - 1)]);
            if from == to { self_loop(a, w, h, repeat, label_width) } else { curve(a, b, w, h, repeat, label_width) }
        })
        .collect();
    // Shift everything so the top-left corner of what is drawn sits at the margin.
    let mut min = Point::new(f64::INFINITY, f64::INFINITY);
    let mut max = Point::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    let mut cover = |p: Point, half_w: f64, half_h: f64| {
        min = Point::new(min.x.min(p.x - half_w), min.y.min(p.y - half_h));
        max = Point::new(max.x.max(p.x + half_w), max.y.max(p.y + half_h));
    };
    for &p in &nodes {
        cover(p, w / 2.0, h / 2.0);
    }
    for (e, &(_, _, label_width)) in edges.iter().zip(&spec.edges) {
        cover(e.label, label_width / 2.0 + 2.0, LABEL_HEIGHT / 2.0 + 2.0);
        cover(bezier_mid(e), 2.0, 2.0);
    }
    let shift = Point::new(MARGIN - min.x, MARGIN + spec.top - min.y);
    let nodes: Vec<Point> = nodes.into_iter().map(|p| p.add(shift)).collect();
    for e in &mut edges {
        for p in [&mut e.start, &mut e.c1, &mut e.c2, &mut e.end, &mut e.label] {
            *p = p.add(shift);
        }
        for p in &mut e.arrow {
            *p = p.add(shift);
        }
    }
    Layout {
        width: (max.x - min.x + 2.0 * MARGIN).ceil(),
        height: (max.y - min.y + 2.0 * MARGIN + spec.top + spec.bottom).ceil(),
        nodes,
        edges,
    }
}

/// The point where a ray from a box's centre in direction `dir` leaves the box (plus a little air).
fn border(center: Point, dir: Point, w: f64, h: f64) -> Point {
    let dir = dir.unit();
    let tx = if dir.x == 0.0 { f64::INFINITY } else { (w / 2.0) / dir.x.abs() };
    let ty = if dir.y == 0.0 { f64::INFINITY } else { (h / 2.0) / dir.y.abs() };
    center.add(dir.scale(tx.min(ty) + 2.0))
}

/// An edge between two boxes: a quadratic curve (as a cubic) bulging to the left of travel.
fn curve(a: Point, b: Point, w: f64, h: f64, repeat: usize, label_width: f64) -> EdgeGeometry {
    let chord = b.sub(a);
    let normal = chord.unit().left();
    let bulge = chord.len() * 0.18 + 22.0 * repeat as f64;
    // A quadratic curve's apex lies halfway to its control point.
    let control = a.add(chord.scale(0.5)).add(normal.scale(2.0 * bulge));
    let start = border(a, control.sub(a), w, h);
    let tip = border(b, control.sub(b), w, h);
    finish(start, control, control, tip, normal, label_width)
}

/// An edge from a box to itself: a loop over its top.
fn self_loop(a: Point, w: f64, h: f64, repeat: usize, label_width: f64) -> EdgeGeometry {
    let lift = 36.0 + 18.0 * repeat as f64;
    let start = Point::new(a.x - w / 4.0, a.y - h / 2.0 - 2.0);
    let tip = Point::new(a.x + w / 4.0, a.y - h / 2.0 - 2.0);
    let c1 = Point::new(start.x - 10.0, start.y - lift);
    let c2 = Point::new(tip.x + 10.0, tip.y - lift);
    finish(start, c1, c2, tip, Point::new(0.0, -1.0), label_width)
}

/// The curve from `start` to an arrowhead at `tip`, with quadratic control `c1 == c2` or cubic controls;
/// the label sits just beyond the curve's middle, on the bulging side, pushed out by as much of its
/// width or height as faces the curve.
fn finish(start: Point, c1: Point, c2: Point, tip: Point, outwards: Point, label_width: f64) -> EdgeGeometry {
    let dir = tip.sub(c2).unit();
    let base = tip.sub(dir.scale(ARROW_LENGTH));
    let side = dir.left().scale(ARROW_HALF_WIDTH);
    let quadratic = c1 == c2;
    let (c1, c2) = if quadratic {
        // The quadratic through `c1`, degree-raised to a cubic ending at the arrowhead's base.
        (start.add(c1.sub(start).scale(2.0 / 3.0)), base.add(c1.sub(base).scale(2.0 / 3.0)))
    } else {
        (c1, c2)
    };
    let mut e = EdgeGeometry { start, c1, c2, end: base, arrow: [tip, base.add(side), base.sub(side)], label: start };
    let reach = outwards.x.abs() * label_width / 2.0 + outwards.y.abs() * LABEL_HEIGHT / 2.0 + 3.0;
    e.label = bezier_mid(&e).add(outwards.scale(reach));
    e
}

/// The curve's point at t = 1/2.
fn bezier_mid(e: &EdgeGeometry) -> Point {
    e.start.add(e.end).scale(0.125).add(e.c1.add(e.c2).scale(0.375))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(n: usize) -> Layout {
        let edges = (0..n).map(|i| (i, (i + 1) % n, 60.0)).collect();
        layout(&Spec { nodes: n, node_width: 90.0, node_height: 36.0, edges, top: 20.0, bottom: 20.0 })
    }

    fn inside(p: Point, c: Point, w: f64, h: f64) -> bool {
        (p.x - c.x).abs() < w / 2.0 && (p.y - c.y).abs() < h / 2.0
    }

    #[test]
    fn neighbouring_boxes_never_overlap() {
        for n in 2..12 {
            let l = ring(n);
            for i in 0..n {
                let (a, b) = (l.nodes[i], l.nodes[(i + 1) % n]);
                assert!((a.x - b.x).abs() > 90.0 || (a.y - b.y).abs() > 36.0, "n={n}: {a:?} {b:?}");
            }
        }
    }

    #[test]
    fn arrows_touch_their_target_and_leave_their_source_from_outside() {
        for n in 2..8 {
            let l = ring(n);
            for (i, e) in l.edges.iter().enumerate() {
                let (from, to) = (l.nodes[i], l.nodes[(i + 1) % n]);
                assert!(!inside(e.start, from, 90.0, 36.0) && !inside(e.arrow[0], to, 90.0, 36.0));
                assert!(inside(e.arrow[0], to, 90.0 + 6.0, 36.0 + 6.0), "n={n} edge {i}: {e:?}");
                assert!(inside(e.start, from, 90.0 + 6.0, 36.0 + 6.0));
            }
        }
    }

    #[test]
    fn the_two_edges_of_a_two_cycle_take_opposite_sides() {
        let l = ring(2);
        assert!(l.nodes[0].x < l.nodes[1].x, "left to right");
        let y = l.nodes[0].y;
        assert!(l.edges[0].label.y < y && l.edges[1].label.y > y, "{:?}", l.edges);
    }

    #[test]
    fn everything_drawn_fits_the_picture() {
        for n in 1..10 {
            let l = ring(n);
            for e in &l.edges {
                for p in [e.start, e.end, e.label, e.arrow[0]] {
                    assert!(p.x >= 0.0 && p.y >= 0.0 && p.x <= l.width && p.y <= l.height, "n={n}: {p:?}");
                }
            }
        }
    }
}
