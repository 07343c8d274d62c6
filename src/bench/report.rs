//! The report's rows: one per figure, its measured value beside its target and
//! a verdict, as a fixed-width text table.

use std::time::Duration;

use super::child::Timing;

/// A figure's verdict against its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    Pass,
    Miss,
    /// A measured command failed: no figure.
    Fail,
    /// Not measured in this run (`--skip-site`).
    Skipped,
}

impl Verdict {
    pub(super) fn of(met: bool) -> Self {
        match met {
            true => Verdict::Pass,
            false => Verdict::Miss,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Miss => "MISS",
            Verdict::Fail => "FAIL",
            Verdict::Skipped => "skipped",
        }
    }
}

/// One row of the report.
pub(super) struct Row {
    pub(super) figure: String,
    pub(super) measured: String,
    pub(super) target: String,
    pub(super) verdict: Verdict,
    /// What the figure is of (the slowest table, the largest command, seconds, × floor), or why it failed.
    pub(super) note: String,
}

impl Row {
    /// A row for a timing (a median) against a bound in milliseconds; a failed
    /// run fails the row, its message in the note.
    pub(super) fn timing(figure: &str, t: &Timing, bound_ms: u64, note: String) -> Row {
        let (verdict, note) = match &t.failed {
            Some(e) => (Verdict::Fail, format!("FAILED {e}")),
            None => (
                Verdict::of(t.median <= Duration::from_millis(bound_ms)),
                note,
            ),
        };
        Row {
            figure: figure.to_string(),
            measured: ms_or_s(t.median),
            target: match bound_ms {
                b if b >= 1000 && b % 1000 == 0 => format!("≤ {} s", b / 1000),
                b => format!("≤ {b} ms"),
            },
            verdict,
            note,
        }
    }

    /// A row not measured in this run.
    pub(super) fn skipped(figure: &str, target: &str, why: &str) -> Row {
        Row {
            figure: figure.to_string(),
            measured: "-".into(),
            target: target.to_string(),
            verdict: Verdict::Skipped,
            note: why.to_string(),
        }
    }
}

/// A duration in milliseconds below 1 s, in seconds from there.
pub(super) fn ms_or_s(d: Duration) -> String {
    match d < Duration::from_secs(1) {
        true => format!("{:.1} ms", d.as_secs_f64() * 1e3),
        false => format!("{:.2} s", d.as_secs_f64()),
    }
}

/// Milliseconds with one decimal.
pub(super) fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

/// The rows as a text table: figure, measured, target, verdict, note.
pub(super) fn table(rows: &[Row]) -> String {
    let fig = rows
        .iter()
        .map(|r| r.figure.chars().count())
        .max()
        .unwrap_or(0);
    let mea = rows
        .iter()
        .map(|r| r.measured.chars().count())
        .max()
        .unwrap_or(0);
    let tar = rows
        .iter()
        .map(|r| r.target.chars().count())
        .max()
        .unwrap_or(0);
    let mut s = format!(
        "{:<fig$}  {:>mea$}  {:<tar$}  {:<7}  note\n",
        "figure", "measured", "target", "verdict"
    );
    for r in rows {
        let line = format!(
            "{:<fig$}  {:>mea$}  {:<tar$}  {:<7}  {}",
            r.figure,
            r.measured,
            r.target,
            r.verdict.word(),
            r.note
        );
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timing_row_passes_at_its_bound_misses_above_and_fails_on_a_failed_run() {
        let t = |ms, failed: Option<&str>| Timing {
            median: Duration::from_millis(ms),
            failed: failed.map(str::to_string),
        };
        let at = Row::timing("x", &t(200, None), 200, String::new());
        assert_eq!(
            (at.verdict, at.target.as_str()),
            (Verdict::Pass, "≤ 200 ms")
        );
        assert_eq!(at.measured, "200.0 ms");
        let above = Row::timing("x", &t(201, None), 200, String::new());
        assert_eq!(above.verdict, Verdict::Miss);
        let failed = Row::timing("x", &t(5, Some("boom")), 4000, String::new());
        assert_eq!(
            (failed.verdict, failed.target.as_str()),
            (Verdict::Fail, "≤ 4 s")
        );
        assert_eq!(failed.note, "FAILED boom");
        assert_eq!(ms_or_s(Duration::from_millis(999)), "999.0 ms");
        assert_eq!(ms_or_s(Duration::from_millis(4_963)), "4.96 s");
    }
}
