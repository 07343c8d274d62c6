//! The inline SVG chart of a player's values over time.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::pages::escape;
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
const GAP: f64 = 58.0;
const LEFT: f64 = 68.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 24.0;
const BOTTOM: f64 = 48.0;

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
/// point (`circle.pt`, with a `<title>`) per change whose new value is a number,
/// one series per system. Systems have their own scales (a rating near 1500 and
/// points near 10), so each series gets its own panel and y axis; the panels are
/// stacked in one SVG and share the date axis.
pub fn chart(name: &str, changes: &[&Change]) -> String {
    let mut series: BTreeMap<&str, Vec<(i64, f64, &Change)>> = BTreeMap::new();
    let mut skipped = 0;
    for c in changes {
        match c.new.trim().parse::<f64>() {
            Ok(y) if y.is_finite() => series.entry(&c.system).or_default().push((c.at, y, c)),
            _ => skipped += 1,
        }
    }
    if series.is_empty() {
        return if changes.is_empty() {
            "<p>No rating changes recorded.</p>\n".to_string()
        } else {
            "<p>No numeric values to chart; see the history below.</p>\n".to_string()
        };
    }
    let (mut x0, mut x1) = (i64::MAX, i64::MIN);
    for (x, _, _) in series.values().flatten() {
        (x0, x1) = (x0.min(*x), x1.max(*x));
    }
    if x0 == x1 {
        (x0, x1) = (x0 - time::DAY, x1 + time::DAY);
    }
    let pw = W - LEFT - RIGHT;
    let px = |x: i64| LEFT + (x - x0) as f64 / (x1 - x0) as f64 * pw;
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

    let mut s = String::new();
    let _ = writeln!(
        s,
        "<figure>\n<div class=\"scroll\"><svg class=\"chart\" viewBox=\"0 0 {W} {h}\" role=\"img\" \
         aria-labelledby=\"chart-title chart-desc\" xmlns=\"http://www.w3.org/2000/svg\">\n\
         <title id=\"chart-title\">{}</title>\n<desc id=\"chart-desc\">{}</desc>",
        escape(&title),
        escape(&desc)
    );
    for (i, (system, pts)) in series.iter().enumerate() {
        let top = TOP + i as f64 * (PANEL + GAP);
        let bottom = top + PANEL;
        let colour = COLOURS[i % COLOURS.len()];
        let dash = DASHES[i % DASHES.len()];
        let dash_attr = if dash.is_empty() {
            String::new()
        } else {
            format!(" stroke-dasharray=\"{dash}\"")
        };
        let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
        for (_, y, _) in pts {
            (y0, y1) = (y0.min(*y), y1.max(*y));
        }
        let (ylo, yhi, ystep) = nice_ticks(y0, y1);
        let py = |y: f64| top + (yhi - y) / (yhi - ylo) * PANEL;
        let _ = writeln!(
            s,
            "<g class=\"series\" data-system=\"{sys}\">\n\
             <text class=\"panel-title\" x=\"{LEFT}\" y=\"{:.1}\" font-weight=\"bold\">{sys}</text>",
            top - 8.0,
            sys = escape(system),
        );
        // Grid and y ticks.
        let mut y = ylo;
        let mut guard = 0;
        while y <= yhi + ystep * 1e-6 && guard < 50 {
            let yy = py(y);
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#d9dce1\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                LEFT + pw,
                LEFT - 6.0,
                yy + 4.0,
                fmt_num(y, ystep)
            );
            y += ystep;
            guard += 1;
        }
        // x ticks: up to five dates, ends included.
        let mut last = String::new();
        for k in 0..5 {
            let t = x0 + ((x1 - x0) as f64 * k as f64 / 4.0) as i64;
            let label = time::format_short(t - t.rem_euclid(time::DAY));
            if label == last {
                continue;
            }
            let xx = px(t);
            let anchor = match k {
                0 => "start",
                4 => "end",
                _ => "middle",
            };
            let _ = writeln!(
                s,
                "<line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{bottom:.1}\" y2=\"{:.1}\" stroke=\"#1a1a1a\"/>\
                 <text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{label}</text>",
                bottom + 5.0,
                bottom + 19.0,
            );
            last = label;
        }
        // Axes and the y label.
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{top:.1}\" y2=\"{bottom:.1}\" stroke=\"#1a1a1a\"/>\
             <line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{bottom:.1}\" y2=\"{bottom:.1}\" stroke=\"#1a1a1a\"/>\n\
             <text class=\"axis-label\" transform=\"translate(14 {:.1}) rotate(-90)\" \
             text-anchor=\"middle\">{}</text>",
            LEFT + pw,
            top + PANEL / 2.0,
            escape(system),
        );
        let line: Vec<String> = pts
            .iter()
            .map(|(x, y, _)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash_attr} points=\"{}\"/>",
            line.join(" ")
        );
        for (x, y, c) in pts {
            let _ = writeln!(
                s,
                "<circle class=\"pt\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{colour}\">\
                 <title>{}: {} on {} (record {})</title></circle>",
                px(*x),
                py(*y),
                escape(system),
                escape(c.new.trim()),
                time::format_short(c.at),
                c.seq
            );
        }
        s.push_str("</g>\n");
    }
    let _ = writeln!(
        s,
        "<text class=\"axis-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">date (UTC)</text>\n</svg></div>",
        LEFT + pw / 2.0,
        h - 6.0,
    );
    let _ = write!(
        s,
        "<figcaption>{}: one panel per system, one point per change (x: date, y: the new \
         value; hover a point for its value and record). {}.",
        escape(&title),
        escape(&desc)
    );
    if skipped > 0 {
        let _ = write!(
            s,
            " {skipped} change(s) with a non-numeric value are in the history only."
        );
    }
    s.push_str("</figcaption>\n</figure>\n");
    s
}
