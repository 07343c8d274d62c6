//! The inline SVG chart of a player's values over time.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use maud::{html, Markup};

use crate::systems::Change;
use crate::time;

/// Series colours (contrast at least 3:1 on white) and dash patterns, so a
/// series is told apart without colour too.
const COLOURS: &[&str] = &[
    "#0072b2", "#c0392b", "#1b7f4b", "#7a3e9d", "#8a5a00", "#1a1a1a", "#b0306a", "#31606e",
];
const DASHES: &[&str] = &["", "6 3", "2 3", "8 3 2 3", "12 4", "4 4"];

/// Chart geometry (SVG user units): one panel per system, stacked, sharing
/// the date axis.
const W: f64 = 640.0;
const PANEL: f64 = 150.0;
const GAP: f64 = 32.0;
const LEFT: f64 = 68.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 24.0;
const BOTTOM: f64 = 48.0;
/// Points a series' line is drawn through, at most: a longer series is
/// thinned to this many of its changes, evenly spaced in its order, its first
/// and last kept (the panel is about 550 units wide).
pub const POINTS: usize = 60;

/// At most [`POINTS`] of `pts`, evenly spaced, the first and the last among them.
fn thinned<T: Copy>(pts: &[T]) -> Vec<T> {
    match pts.len() {
        n if n <= POINTS => pts.to_vec(),
        n => (0..POINTS)
            .map(|i| pts[i * (n - 1) / (POINTS - 1)])
            .collect(),
    }
}

/// `s` as [`str::trim`] gives it, without looking for whitespace in the
/// usual value, which starts and ends with a visible ASCII character.
pub(super) fn trimmed(s: &str) -> &str {
    let plain = |b: Option<&u8>| b.is_some_and(u8::is_ascii_graphic);
    if plain(s.as_bytes().first()) && plain(s.as_bytes().last()) {
        s
    } else {
        s.trim()
    }
}

/// Rounded ticks covering `[lo, hi]`: `(first, last, step)`.
pub(super) fn nice_ticks(lo: f64, hi: f64) -> (f64, f64, f64) {
    let (lo, hi) = if hi - lo < 1e-9 {
        let pad = (lo.abs() * 0.05).max(1.0);
        (lo - pad, hi + pad)
    } else {
        (lo, hi)
    };
    let rough = (hi - lo) / 4.0;
    let mag = 10f64.powf(rough.log10().floor());
    let norm = rough / mag;
    let step = mag
        * if norm <= 1.0 {
            1.0
        } else if norm <= 2.0 {
            2.0
        } else if norm <= 5.0 {
            5.0
        } else {
            10.0
        };
    ((lo / step).floor() * step, (hi / step).ceil() * step, step)
}

pub(super) fn fmt_num(x: f64, step: f64) -> String {
    let places = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    let s = format!("{x:.places$}");
    if s.starts_with('-') && s.trim_start_matches(['-', '0', '.']).is_empty() {
        s[1..].to_string()
    } else {
        s
    }
}

/// The inline SVG line chart of `changes` (one subject's, oldest first): one
/// series per charted system ([`crate::systems::charted`]; the caption counts
/// the changes left out), a line through its changes whose new value is a number
/// (at most [`POINTS`] of them, see [`thinned`]), ending in a point
/// (`circle.pt`, with a `<title>`) at its latest value. Systems have their own
/// scales (a rating near 1500 and points near 10), so each series gets its own
/// panel and y axis; the panels are stacked in one SVG and share the date
/// axis, labelled under the last. Coordinates are whole units (of 640 across).
pub(crate) fn chart(name: &str, changes: &[&Change]) -> Markup {
    let mut series: BTreeMap<&str, Vec<(i64, f64, &Change)>> = BTreeMap::new();
    let (mut skipped, mut uncharted) = (0, 0);
    for c in changes {
        if !crate::systems::charted(&c.system) {
            uncharted += 1;
            continue;
        }
        match trimmed(&c.new).parse::<f64>() {
            Ok(y) if y.is_finite() => series.entry(&c.system).or_default().push((c.at, y, c)),
            _ => skipped += 1,
        }
    }
    if series.is_empty() {
        return match (changes.is_empty(), uncharted == changes.len()) {
            (true, _) => html! { p { "No rating changes recorded." } "\n" },
            (false, true) => html! {
                p {
                    "Scores that start again each match or tournament are not charted; see \
                     the history below."
                }
                "\n"
            },
            (false, false) => {
                html! { p { "No numeric values to chart; see the history below." } "\n" }
            }
        };
    }
    let (mut x0, mut x1) = (i64::MAX, i64::MIN);
    for (x, _, _) in series.values().flatten() {
        (x0, x1) = (x0.min(*x), x1.max(*x));
    }
    if x0 == x1 {
        (x0, x1) = (x0 - time::DAY, x1 + time::DAY);
    }
    let axis = Axis { x0, x1 };
    let panels = series.len() as f64;
    let h = TOP + panels * PANEL + (panels - 1.0) * GAP + BOTTOM;
    let n: usize = series.values().map(Vec::len).sum();
    let title = format!("Ratings of {name} over time");
    let desc = format!(
        "{n} change(s) in {} system(s): {}",
        series.len(),
        series
            .iter()
            .map(|(s, p)| format!("{s} ({} point(s))", p.len()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let bottom = h - BOTTOM;
    let anchor = |k: usize| match k {
        0 => "start",
        4 => "end",
        _ => "middle",
    };
    html! {
        figure {
            "\n"
            div.scroll { svg.chart viewBox={ "0 0 " (W) " " (h) } role="img"
                aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg" {
                "\n" title #chart-title { (title) }
                "\n" desc #chart-desc { (desc) } "\n"
                @for (i, (system, pts)) in series.iter().enumerate() {
                    (panel((i, system, pts), TOP + i as f64 * (PANEL + GAP), &axis))
                }
                g.dates {
                    @for (k, xx, label) in axis.ticks() {
                        text x=(whole(xx)) y=(whole(bottom + 19.0)) text-anchor=(anchor(k)) { (label) }
                    }
                }
                "\n"
                text.axis-label x=(whole(LEFT + (W - LEFT - RIGHT) / 2.0)) y=(whole(h - 6.0))
                    text-anchor="middle" { "date (UTC)" }
                "\n"
            } }
            "\n"
            figcaption {
                (title) ": one panel per system, a line through its changes (x: date, y: the \
                 new value; at most " (POINTS) " changes a line), ending at the latest value \
                 (hover it for the value and record). " (desc) "."
                @if skipped > 0 {
                    " " (skipped) " change(s) with a non-numeric value are in the history only."
                }
                @if uncharted > 0 {
                    " " (uncharted) " change(s) of scores that start again each match or \
                     tournament are in the history only."
                }
            }
            "\n"
        }
        "\n"
    }
}

/// `v` rounded to a whole number, as SVG coordinates are written.
fn whole(v: f64) -> i64 {
    v.round() as i64
}

/// The shared date axis: its first and last instants.
struct Axis {
    x0: i64,
    x1: i64,
}

impl Axis {
    /// The x of instant `x`.
    fn px(&self, x: i64) -> f64 {
        LEFT + (x - self.x0) as f64 / (self.x1 - self.x0) as f64 * (W - LEFT - RIGHT)
    }

    /// Up to five dated ticks, the ends included: `(k of 0..5, x, date)`.
    fn ticks(&self) -> Vec<(usize, f64, String)> {
        let mut out: Vec<(usize, f64, String)> = Vec::new();
        for k in 0..5 {
            let t = self.x0 + ((self.x1 - self.x0) as f64 * k as f64 / 4.0) as i64;
            let label = time::format_short(t - t.rem_euclid(time::DAY));
            if out.last().is_none_or(|l| l.2 != label) {
                out.push((k, self.px(t), label));
            }
        }
        out
    }
}

/// The panel of series `i` (`system`'s points) with its top at `top`: its
/// title, grid and y ticks, axes with the date ticks, the line and the point
/// at the latest value.
fn panel((i, system, pts): (usize, &str, &[(i64, f64, &Change)]), top: f64, axis: &Axis) -> Markup {
    let bottom = top + PANEL;
    let (left, right) = (whole(LEFT), whole(W - RIGHT));
    let colour = COLOURS[i % COLOURS.len()];
    let dash = Some(DASHES[i % DASHES.len()]).filter(|d| !d.is_empty());
    let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
    for (_, y, _) in pts {
        (y0, y1) = (y0.min(*y), y1.max(*y));
    }
    let (ylo, yhi, ystep) = nice_ticks(y0, y1);
    let py = |y: f64| top + (yhi - y) / (yhi - ylo) * PANEL;
    // Grid lines and y ticks, at most 50.
    let mut ticks: Vec<f64> = Vec::new();
    let mut y = ylo;
    while y <= yhi + ystep * 1e-6 && ticks.len() < 50 {
        ticks.push(y);
        y += ystep;
    }
    let mut grid = String::new();
    for y in &ticks {
        let _ = write!(grid, "M{left} {}H{right}", whole(py(*y)));
    }
    // Axes and the date ticks.
    let (t, b) = (whole(top), whole(bottom));
    let mut axes = format!("M{left} {t}V{b}H{right}");
    for (_, xx, _) in axis.ticks() {
        let _ = write!(axes, "M{} {b}v5", whole(xx));
    }
    let line: Vec<String> = thinned(pts)
        .iter()
        .map(|(x, y, _)| format!("{},{}", whole(axis.px(*x)), whole(py(*y))))
        .collect();
    html! {
        g.series data-system=(system) {
            "\n"
            text.panel-title x=(left) y=(whole(top - 8.0)) font-weight="bold" { (system) }
            "\n"
            path d=(grid) stroke="#d9dce1" {}
            g text-anchor="end" {
                @for y in &ticks {
                    text x=(whole(LEFT - 6.0)) y=(whole(py(*y)) + 4) { (fmt_num(*y, ystep)) }
                }
            }
            "\n"
            path d=(axes) stroke="#1a1a1a" fill="none" {}
            "\n"
            polyline fill="none" stroke=(colour) stroke-width="2" stroke-dasharray=[dash]
                points=(line.join(" ")) {}
            "\n"
            @if let Some((x, y, c)) = pts.last() {
                circle.pt cx=(whole(axis.px(*x))) cy=(whole(py(*y))) r="4" fill=(colour) {
                    title {
                        (system) ": " (c.new.trim()) " on " (time::format_short(c.at))
                        " (record " (c.seq) ")"
                    }
                }
                "\n"
            }
        }
        "\n"
    }
}
