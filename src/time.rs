//! Domain and record time: microseconds since the Unix epoch, UTC.
//!
//! `at` values are written as RFC 3339 timestamps or plain dates (`YYYY-MM-DD`,
//! midnight UTC). Internally they are `i64` microseconds so that the fold order
//! `(at, seq)` is a plain integer comparison.

use chrono::{DateTime, Datelike, NaiveDate, SecondsFormat, TimeZone, Utc};

/// Microseconds since 1970-01-01T00:00:00Z.
pub type Micros = i64;

/// Parse a plain date (`YYYY-MM-DD`, ten characters: midnight UTC) or an
/// RFC 3339 timestamp, as chrono reads them (a fraction finer than a
/// microsecond is cut: what was stored reads as it was accepted; an event's
/// `at` as given and a query's `--as-of` or `--known-at` time go through
/// [`parse_input`], dates inside a payload through this).
pub fn parse(s: &str) -> Option<Micros> {
    parse_with(s, |_| true)
}

/// [`parse`] for an event's `at` as given: the year four ASCII digits (the
/// parser would take `+999-01-05`, a second spelling of `0999-01-05` with
/// another idempotency key); to the microsecond, a finer fraction
/// (`.000000999`, `.0000010009`: every digit after the sixth must be 0)
/// refused rather than cut to an earlier instant; a leap second
/// (`23:59:60`, which would fold as the next day's first) and an instant
/// outside the years 0000 to 9999 in UTC (`9999-12-31T23:59:59-01:00`,
/// which no `--as-of` reaches) refused too.
pub fn parse_input(s: &str) -> Option<Micros> {
    let b = s.as_bytes();
    let year = b.get(..4).is_some_and(|y| y.iter().all(u8::is_ascii_digit));
    if !year || b.get(4) != Some(&b'-') || !to_the_microsecond(s) {
        return None;
    }
    let t = parse_with(s, |nanos| nanos % 1_000 == 0 && nanos < 1_000_000_000)?;
    in_input_years(t).then_some(t)
}

/// Is every digit of `s`'s fraction of a second after the sixth a 0? (The
/// parser reads nine digits and drops the rest.)
fn to_the_microsecond(s: &str) -> bool {
    let Some(dot) = s.find('.') else {
        return true;
    };
    let fraction = s[dot + 1..].bytes().take_while(u8::is_ascii_digit);
    fraction.skip(6).all(|d| d == b'0')
}

/// The instants an event's `at` may be: 0000-01-01T00:00:00Z up to, not
/// including, 10000-01-01T00:00:00Z.
const INPUT_YEARS: std::ops::Range<Micros> = -62_167_219_200_000_000..253_402_300_800_000_000;

/// Is `t` within the years 0000 to 9999 in UTC, as an event's `at` must be?
/// For the dates inside a new event's payload (a round's `starts`), which
/// are read leniently ([`parse`]) so that stored ones read as accepted.
pub fn in_input_years(t: Micros) -> bool {
    INPUT_YEARS.contains(&t)
}

/// Midnight UTC on the first of `month` of `year`, any year chrono holds
/// (10000-01-01 is where 9999-12 ends).
pub fn first_of_month(year: i32, month: u32) -> Option<Micros> {
    let d = NaiveDate::from_ymd_opt(year, month, 1)?;
    Some(
        Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0)?)
            .timestamp_micros(),
    )
}

/// Why `s`, which starts like a date (`YYYY-MM-DD`, then nothing or a
/// time), names no day, when its month is one and its day is not in it:
/// `2024-02-30` is "February 2024 has 29 days". `None` otherwise.
pub fn no_such_day(s: &str) -> Option<String> {
    let (date, rest) = s.split_at_checked(10)?;
    if !(rest.is_empty() || rest.starts_with(['T', 't', ' '])) {
        return None;
    }
    let b = date.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10)) {
        return None;
    }
    let (year, month, day) = (
        date[..4].parse().ok()?,
        date[5..7].parse().ok()?,
        date[8..].parse::<u32>().ok()?,
    );
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let days = first
        .with_day(1)?
        .checked_add_months(chrono::Months::new(1))?
        .pred_opt()?
        .day();
    (day == 0 || day > days).then(|| format!("{} has {days} days", first.format("%B %Y")))
}

/// Why `s`, refused as a time, is none, as the end of a message: a day not
/// in its month ([`no_such_day`]: `: February 2024 has 29 days`), or a
/// timestamp without a zone (`2024-02-03T19:00:00`; `2024-02-03 19:00 UTC`
/// and `… GMT` name theirs in words: which hour of which place?), shown with
/// the `Z` of UTC; else nothing.
pub fn why_not_a_time(s: &str) -> String {
    if let Some(why) = no_such_day(s) {
        return format!(": {why}");
    }
    let bare = ["utc", "gmt"].iter().fold(s.trim_end(), |s, zone| {
        let cut = s.len().saturating_sub(zone.len());
        match s
            .get(cut..)
            .is_some_and(|end| end.eq_ignore_ascii_case(zone))
        {
            true => &s[..cut],
            false => s,
        }
    });
    let bare = bare.trim_end();
    // A date written another way: its digits unpadded, or slashes.
    let day = ["%Y-%m-%d", "%Y/%m/%d"]
        .iter()
        .find_map(|f| NaiveDate::parse_from_str(bare, f).ok());
    if let Some(d) = day.filter(|d| d.format("%Y-%m-%d").to_string() != bare) {
        return format!(": a date is written {}", d.format("%Y-%m-%d"));
    }
    let formats = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ];
    let zoneless =
        (formats.iter()).find_map(|f| chrono::NaiveDateTime::parse_from_str(bare, f).ok());
    match zoneless {
        Some(t) => {
            let t = t.format("%Y-%m-%dT%H:%M:%S%.f");
            format!(": a timestamp says its zone: {t}Z in UTC, or an offset such as {t}+01:00")
        }
        None => String::new(),
    }
}

/// [`parse`], a timestamp taken only if `fine` takes its fraction of a
/// second in nanoseconds.
fn parse_with(s: &str, fine: impl Fn(u32) -> bool) -> Option<Micros> {
    if s.len() == 10 {
        let d = NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
        return Some(
            Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0)?)
                .timestamp_micros(),
        );
    }
    DateTime::parse_from_rfc3339(s)
        .ok()
        .filter(|t| fine(t.timestamp_subsec_nanos()))
        .map(|t| t.with_timezone(&Utc).timestamp_micros())
}

/// Parse a query bound: a plain date means the *end* of that day, so
/// `--as-of 2003-02-01` includes everything that happened on 1 February.
pub fn parse_bound(s: &str) -> Option<Micros> {
    let t = parse_input(s)?;
    Some(if is_date(s) {
        t + 86_400_000_000 - 1
    } else {
        t
    })
}

/// Is `s` a plain date, `YYYY-MM-DD` (which a bound reads as its whole day)?
pub fn is_date(s: &str) -> bool {
    s.len() == 10 && NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
}

/// A query bound as answers show it: a plain date as given (the end of
/// that day), a time in UTC, `Z`, with the fraction it has (`2003-02-01T10:00:00+02:00`
/// is `2003-02-01T08:00:00Z`); `s` itself if it is neither.
pub fn shown_bound(s: &str) -> String {
    match (
        is_date(s),
        parse_input(s).and_then(DateTime::<Utc>::from_timestamp_micros),
    ) {
        (false, Some(t)) => t.to_rfc3339_opts(SecondsFormat::AutoSi, true),
        _ => s.to_string(),
    }
}

/// RFC 3339, UTC, microsecond precision: the form `recorded_at` is written in.
pub fn format(t: Micros) -> String {
    match DateTime::<Utc>::from_timestamp_micros(t) {
        Some(dt) => dt.to_rfc3339_opts(SecondsFormat::Micros, true),
        None => t.to_string(),
    }
}

/// `YYYY-MM-DD` when `t` is midnight UTC, else full RFC 3339 seconds.
pub fn format_short(t: Micros) -> String {
    match DateTime::<Utc>::from_timestamp_micros(t) {
        Some(dt) if t % 86_400_000_000 == 0 => dt.format("%Y-%m-%d").to_string(),
        Some(dt) => dt.to_rfc3339_opts(SecondsFormat::Secs, true),
        None => t.to_string(),
    }
}

/// The last instant of an interval (an [`inclusive_end`]) as a message
/// shows it: `the end of YYYY-MM-DD` (a UTC day) for a day's last microsecond,
/// which [`format_short`] would show a second early, else that.
pub fn format_end(t: Micros) -> String {
    match t.checked_add(1).filter(|n| n.rem_euclid(DAY) == 0) {
        Some(_) => format!("the end of {}", format_short(t + 1 - DAY)),
        None => format_short(t),
    }
}

/// The wall clock now.
pub fn now() -> Micros {
    Utc::now().timestamp_micros()
}

pub const DAY: Micros = 86_400_000_000;

/// How far after the time it is recorded an event's `at` may be: 14 hours,
/// the most a local date runs ahead of UTC's (a date is midnight UTC, and
/// an administrator east of UTC records the day's results before it). An
/// event is recorded once it has happened: a later `at` is a mistyped
/// year or month, which would count in every table at once.
pub const AHEAD_MAX: Micros = 14 * 3_600_000_000;

/// The last instant a time `t` covers as the end of an interval: a plain date
/// (midnight UTC, what `"2003-03-01"` parses to) covers its whole day.
pub fn inclusive_end(t: Micros) -> Micros {
    if t.rem_euclid(DAY) == 0 {
        t.saturating_add(DAY - 1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A date whose month is one and day is not says how many days the
    /// month has; anything else (a good day, another shape, month 13) says
    /// nothing.
    #[test]
    fn no_such_day_names_the_days_of_its_month() {
        assert_eq!(
            no_such_day("2024-02-30").as_deref(),
            Some("February 2024 has 29 days")
        );
        assert_eq!(
            no_such_day("2023-02-29").as_deref(),
            Some("February 2023 has 28 days")
        );
        assert_eq!(
            no_such_day("2024-04-31T10:00:00Z").as_deref(),
            Some("April 2024 has 30 days")
        );
        for spaced in ["2024-02-30 10:00:00Z", "2024-02-30t10:00:00z"] {
            let why = no_such_day(spaced);
            assert_eq!(
                why.as_deref(),
                Some("February 2024 has 29 days"),
                "{spaced}"
            );
        }
        assert_eq!(
            no_such_day("2024-01-00").as_deref(),
            Some("January 2024 has 31 days")
        );
        assert_eq!(
            no_such_day("9999-12-32").as_deref(),
            Some("December 9999 has 31 days")
        );
        for fine_or_other in [
            "2024-02-29",
            "2024-13-01",
            "24-02-30",
            "2024/02/30",
            "2024-02-30x",
            "",
        ] {
            assert_eq!(no_such_day(fine_or_other), None, "{fine_or_other}");
        }
        assert_eq!(why_not_a_time("2024-02-30"), ": February 2024 has 29 days");
        let zoneless = [
            ("2024-02-03T19:00:00", "2024-02-03T19:00:00Z"),
            ("2024-02-03 19:00:00.5", "2024-02-03T19:00:00.500Z"),
            ("2024-02-03T19:00", "2024-02-03T19:00:00Z"),
            ("2024-02-03 19:00 UTC", "2024-02-03T19:00:00Z"),
            ("2024-02-03 19:00 GMT", "2024-02-03T19:00:00Z"),
            ("2024-02-03 19:00 gmt", "2024-02-03T19:00:00Z"),
        ];
        for (given, utc) in zoneless {
            let why = why_not_a_time(given);
            assert!(
                why.contains(&format!("its zone: {utc} in UTC")),
                "{given}: {why}"
            );
        }
        assert_eq!(why_not_a_time("2024-02-03T25:00:00"), "");
        // A date written another way: how to write it.
        assert_eq!(why_not_a_time("2026-3-1"), ": a date is written 2026-03-01");
        assert_eq!(
            why_not_a_time("2026/03/01"),
            ": a date is written 2026-03-01"
        );
        assert_eq!(why_not_a_time("2026-13-01"), "");
    }

    #[test]
    fn input_instants_are_the_years_0000_to_9999_utc_without_leap_seconds() {
        let at = |y: i32| {
            Utc.with_ymd_and_hms(y, 1, 1, 0, 0, 0)
                .unwrap()
                .timestamp_micros()
        };
        assert_eq!(INPUT_YEARS, at(0)..at(10_000));
        assert_eq!(parse_input("0000-01-01"), Some(at(0)));
        assert_eq!(
            parse_input("9999-12-31T23:59:59.999999Z"),
            Some(at(10_000) - 1)
        );
        assert_eq!(parse_input("9999-12-31T23:59:59-01:00"), None);
        assert_eq!(parse_input("0000-01-01T00:00:00+01:00"), None);
        assert_eq!(parse_input("2024-01-01T23:59:60Z"), None);
        // Stored records are read as they were accepted.
        assert!(parse("9999-12-31T23:59:59-01:00").is_some());
    }

    #[test]
    fn dates_are_midnight_utc_and_bounds_end_of_day() {
        let d = parse("2003-01-10").unwrap();
        assert_eq!(format(d), "2003-01-10T00:00:00.000000Z");
        assert_eq!(parse_bound("2003-01-10").unwrap(), d + DAY - 1);
        assert_eq!(parse("2003-01-10T01:00:00+01:00").unwrap(), d);
        assert_eq!(parse("2003-13-10"), None);
        assert_eq!(format_short(d), "2003-01-10");
        assert_eq!(format_end(inclusive_end(d)), "the end of 2003-01-10");
        assert_eq!(format_end(d + 3_600_000_000), "2003-01-10T01:00:00Z");
    }

    /// A bound is shown as one form of one instant, whatever the spelling.
    #[test]
    fn bounds_show_as_a_date_or_a_utc_time() {
        assert_eq!(shown_bound("2003-01-10"), "2003-01-10");
        assert_eq!(
            shown_bound("2003-01-10t10:00:00+02:00"),
            "2003-01-10T08:00:00Z"
        );
        assert_eq!(
            shown_bound("2003-01-10T00:00:00.5z"),
            "2003-01-10T00:00:00.500Z"
        );
        assert_eq!(shown_bound("not a time"), "not a time");
    }

    /// Dates and timestamps at the edges of what is read: leap days, the
    /// calendar's ends, offsets, fractions, lowercase `t` and `z` (RFC 3339
    /// allows them), and what is refused (hour 24, a day or month that does
    /// not exist, a date not written `YYYY-MM-DD`, a timestamp without offset).
    #[test]
    fn dates_and_timestamps_read_as_rfc_3339_says() {
        let day = |s: &str| parse(s).map(|t| t.div_euclid(DAY));
        assert_eq!(parse("1970-01-01"), Some(0));
        assert_eq!(parse("1970-01-01T00:00:01Z"), Some(1_000_000));
        assert_eq!(day("2004-02-29"), Some(12_477));
        assert_eq!(day("0000-01-01"), Some(-719_528));
        assert_eq!(day("9999-12-31"), Some(2_932_896));
        let d = parse("2003-01-10").unwrap();
        assert_eq!(parse("2003-01-10T00:00:00Z"), Some(d));
        assert_eq!(parse("2003-01-10T23:59:59Z"), Some(d + DAY - 1_000_000));
        assert_eq!(
            parse("2003-01-10T12:34:56+00:00"),
            parse("2003-01-10T12:34:56Z")
        );
        assert_eq!(parse("2003-01-10t12:34:56z"), parse("2003-01-10T12:34:56Z"));
        assert_eq!(
            parse("2003-01-10T12:34:56.5Z"),
            Some(parse("2003-01-10T12:34:56Z").unwrap() + 500_000)
        );
        // To the microsecond: zeros beyond it are the same instant, anything
        // else is refused, never cut to an earlier instant.
        assert_eq!(
            parse_input("2003-01-10T12:34:56.000001000Z"),
            Some(parse("2003-01-10T12:34:56Z").unwrap() + 1)
        );
        assert_eq!(parse_input("2003-01-10T12:34:56.000000999Z"), None);
        // Past the ninth digit too, which the parser drops.
        assert_eq!(parse_input("2003-01-05T00:00:00.0000010009Z"), None);
        assert_eq!(
            parse_input("2003-01-05T00:00:00.000000000000000000000001Z"),
            None
        );
        assert_eq!(
            parse_input("2003-01-05T00:00:00.0000010000000Z"),
            Some(parse("2003-01-05T00:00:00Z").unwrap() + 1)
        );
        assert_eq!(
            parse("2003-01-10T12:34:56.000000999Z"),
            parse("2003-01-10T12:34:56Z")
        );
        // chrono's `%Y` takes a signed year: a stored one reads, a new one
        // is refused (a second spelling of one instant).
        assert_eq!(parse("+003-01-10"), parse("0003-01-10T00:00:00Z"));
        for signed in ["+003-01-10", "+999-01-05", "-000-01-01", "+000-01-01"] {
            assert_eq!(parse_input(signed), None, "{signed}");
        }
        for bad in [
            "2003-02-29",
            "2003-13-10",
            "2003-00-10",
            "2003-1-10",
            "2003-01-10T24:00:00Z",
            "2003-01-10T12:60:00Z",
            "2003-01-1a",
            "２003-01-10",
            "2003-01-10T12:34:56",
            "",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
