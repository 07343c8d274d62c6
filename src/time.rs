//! Domain and record time: microseconds since the Unix epoch, UTC.
//!
//! `at` values are written as RFC 3339 timestamps or plain dates (`YYYY-MM-DD`,
//! midnight UTC). Internally they are `i64` microseconds so that the fold order
//! `(at, seq)` is a plain integer comparison.

use chrono::{DateTime, NaiveDate, SecondsFormat, TimeZone, Utc};

/// Microseconds since 1970-01-01T00:00:00Z.
pub type Micros = i64;

/// Parse a plain date (midnight UTC) or an RFC 3339 timestamp.
pub fn parse(s: &str) -> Option<Micros> {
    common_form(s).or_else(|| parse_slow(s))
}

/// `YYYY-MM-DD` and `YYYY-MM-DDTHH:MM:SSZ`, the forms stored events use, read
/// without chrono's format parser (`verify` and every fold read one `at` per
/// record; the parser took about a quarter of a microsecond). Only what
/// [`parse_slow`] reads the same way is taken here: any other text, or a date or
/// time chrono's constructors refuse (a leap second, hour 24), goes there.
fn common_form(s: &str) -> Option<Micros> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| {
        b.get(r)?.iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let sep = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(sep(4, b'-') && sep(7, b'-')) {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    let time = match b.len() {
        10 => date.and_hms_opt(0, 0, 0)?,
        20 if sep(10, b'T') && sep(13, b':') && sep(16, b':') && sep(19, b'Z') => {
            date.and_hms_opt(num(11..13)?, num(14..16)?, num(17..19)?)?
        }
        _ => return None,
    };
    Some(Utc.from_utc_datetime(&time).timestamp_micros())
}

fn parse_slow(s: &str) -> Option<Micros> {
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        if s.len() == 10 {
            let dt = d.and_hms_opt(0, 0, 0)?;
            return Some(Utc.from_utc_datetime(&dt).timestamp_micros());
        }
    }
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc).timestamp_micros())
}

/// Parse a query bound: a plain date means the *end* of that day, so
/// `--as-of 2003-02-01` includes everything that happened on 1 February.
pub fn parse_bound(s: &str) -> Option<Micros> {
    let t = parse(s)?;
    let is_date = s.len() == 10 && NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok();
    Some(if is_date { t + 86_400_000_000 - 1 } else { t })
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

/// The wall clock now.
pub fn now() -> Micros {
    Utc::now().timestamp_micros()
}

pub const DAY: Micros = 86_400_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_midnight_utc_and_bounds_end_of_day() {
        let d = parse("2003-01-10").unwrap();
        assert_eq!(format(d), "2003-01-10T00:00:00.000000Z");
        assert_eq!(parse_bound("2003-01-10").unwrap(), d + DAY - 1);
        assert_eq!(parse("2003-01-10T01:00:00+01:00").unwrap(), d);
        assert_eq!(parse("2003-13-10"), None);
        assert_eq!(format_short(d), "2003-01-10");
    }

    #[test]
    fn the_common_forms_read_as_chrono_reads_them() {
        let cases = [
            "2003-01-10",
            "0000-01-01",
            "9999-12-31",
            "2004-02-29",
            "2003-02-29",
            "2003-13-10",
            "2003-00-10",
            "2003-1-10",
            "2003-01-10T12:34:56Z",
            "2003-01-10T00:00:00Z",
            "2003-01-10T23:59:59Z",
            "2003-01-10T24:00:00Z",
            "2016-12-31T23:59:60Z",
            "2003-01-10T12:60:00Z",
            "2003-01-10t12:34:56z",
            "2003-01-10T12:34:56+00:00",
            "2003-01-10T12:34:56.5Z",
            "+003-01-10",
            "2003-01-1a",
            "２003-01-10",
        ];
        for s in cases {
            assert_eq!(parse(s), parse_slow(s), "{s}");
            if let Some(t) = common_form(s) {
                assert_eq!(Some(t), parse_slow(s), "{s}");
            }
        }
        assert!(common_form("2003-01-10T12:34:56Z").is_some());
        assert!(common_form("2003-01-10").is_some());
        assert!(common_form("2016-12-31T23:59:60Z").is_none());
    }
}
