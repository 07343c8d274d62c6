//! The chart on its own: which systems are charted, long series thinned,
//! the axis ticks, and values read as `str::trim` leaves them.

use super::*;

/// A Space Base Race match score starts again each match, a card player's
/// points each tournament: their changes are not charted (a sawtooth of
/// running scores), and the caption says they are in the history only;
/// beside a rating, the rating alone has a panel.
#[test]
fn scores_that_start_again_each_match_or_tournament_are_not_charted() {
    let games = [
        change(1, "2014-10-25T10:00:00Z", "sbr", "x", "50"),
        change(2, "2014-10-25T10:15:00Z", "cards", "x", "95"),
        change(3, "2014-10-25T11:00:00Z", "sbr", "x", "40"),
    ];
    let only: Vec<&Change> = games.iter().collect();
    let svg = chart("x", &only).into_string();
    assert!(!svg.contains("<svg"), "{svg}");
    assert!(svg.contains("not charted"), "{svg}");
    let rating = change(4, "2014-11-01", "valar", "x", "1520");
    let both: Vec<&Change> = games.iter().chain([&rating]).collect();
    let svg = chart("x", &both).into_string();
    assert_eq!(svg.matches("<g class=\"series\"").count(), 1, "{svg}");
    assert!(svg.contains("data-system=\"valar\""), "{svg}");
    assert!(
        svg.contains(
            "3 change(s) of scores that start again each match or tournament are in the history \
             only"
        ),
        "{svg}"
    );
}

#[test]
fn nice_ticks_cover_the_range() {
    assert_eq!(nice_ticks(1500.0, 1600.0), (1500.0, 1600.0, 50.0));
    let (lo, hi, step) = nice_ticks(3.0, 3.0);
    assert!(lo < 3.0 && hi > 3.0 && step > 0.0);
    assert_eq!(fmt_num(0.5, 0.1), "0.5");
    assert_eq!(fmt_num(-0.0, 1.0), "0");
}

/// A line of a thousand changes is drawn through [`POINTS`] of them,
/// the first and the last among them.
#[test]
fn a_long_series_is_thinned() {
    let many: Vec<Change> = (0..1_000)
        .map(|i| {
            let day = time::format_short(time::parse("2003-01-01").unwrap() + i * time::DAY);
            change(
                i as u64 + 1,
                &day[..10],
                "valar",
                "x",
                &(1000 + i).to_string(),
            )
        })
        .collect();
    let refs: Vec<&Change> = many.iter().collect();
    let svg = chart("x", &refs).into_string();
    let line = first_points(&svg);
    let pts: Vec<&str> = line.split(' ').collect();
    assert_eq!(pts.len(), POINTS);
    // First change: left edge, lowest value; the last: right edge, highest.
    assert!(
        pts[0].starts_with("68,") && pts[pts.len() - 1].starts_with("620,"),
        "{line}"
    );
    assert!(svg.contains("<title>valar: 1999 on 2005-09-26 (record 1000)</title>"));
}

/// A chart reads a value as `str::trim` leaves it, whatever whitespace
/// (ASCII, Unicode, none) or other characters are at its ends.
#[test]
fn a_charted_value_is_trimmed_as_str_trim_trims_it() {
    let values = [
        "1500",
        " 1500",
        "1500\t",
        "\u{b}12\u{b}",
        "\u{a0}1.5",
        "1.5\u{2003}",
        "é",
        "-3 ",
        "",
        " ",
        "W",
    ];
    for v in values {
        assert_eq!(trimmed(v), v.trim(), "{v:?}");
    }
    assert_eq!(trimmed(" 1500\u{2003}"), "1500");
}
