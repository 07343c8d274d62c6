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
}
