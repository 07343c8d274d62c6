//! Exact arithmetic: every rating rule that rounds goes through [`round_half_away`]
//! on an exact rational, so results never depend on floating point.

use num_integer::Integer;
use num_rational::Ratio;
use num_traits::{Signed, Zero};

/// Exact rational used by every formula that divides.
pub type Rational = Ratio<i128>;

/// Integers written as a sum, a negative one subtracted: `60 - 20 - 20`,
/// `5 + 2 - 3` (not `+ -3`); `0` for none.
pub fn sum_text(terms: impl IntoIterator<Item = i64>) -> String {
    let mut out = String::new();
    for (i, t) in terms.into_iter().enumerate() {
        match (i, t < 0) {
            (0, _) => out.push_str(&t.to_string()),
            (_, true) => out.push_str(&format!(" - {}", t.unsigned_abs())),
            (_, false) => out.push_str(&format!(" + {t}")),
        }
    }
    if out.is_empty() {
        out.push('0');
    }
    out
}

/// Build `n / d` (d != 0).
pub fn ratio(n: i128, d: i128) -> Rational {
    Rational::new(n, d)
}

/// Round to the nearest integer, halves away from zero: 2.5 → 3, -2.5 → -3.
///
/// This is the one rounding helper of the crate: every rounding in the rules is
/// to nearest, half away from zero. It is generic in the integer so that the
/// formulas whose products pass `i128` (a CFR decay over many heats, the
/// Diplomacy scores) round big rationals by the same rule; [`round_quotient`]
/// and [`round_scaled`] are the same rounding of a quotient and of a scaled
/// value, and every rounding a rule makes, or a table shows, goes through one
/// of the three (or [`round_times_sqrt`], the same rounding of `a * sqrt(t)`).
pub fn round_half_away<T: Integer + Signed + Clone>(r: Ratio<T>) -> T {
    let (n, d) = r.into_raw(); // d > 0 always (Ratio normalises)
    round_quotient(n, d)
}

/// `n / d` (d > 0, any common factor) rounded as [`round_half_away`] rounds it.
pub fn round_quotient<T: Integer + Signed + Clone>(n: T, d: T) -> T {
    let (q, rem) = n.div_rem(&d);
    // |rem| >= d - |rem| is |rem| * 2 >= d (the fractional part is at least one
    // half) without overflowing when d is near i128::MAX.
    if rem.abs() >= d - rem.abs() {
        q + n.signum()
    } else {
        q
    }
}

/// Round `a * sqrt(t)` (t >= 0) to the nearest integer, halves away from zero,
/// exactly: compares squares instead of taking a floating-point root. The
/// result is the `n >= 0` with `(n - 1/2)^2 <= a^2 t < (n + 1/2)^2` (then
/// signed). For `|a| = p / q` (lowest terms) that is the least `n` with
/// `(2n + 1) q > 2 p sqrt(t)`, and for an integer `(2n + 1) q` being greater
/// than the real root is being greater than `r`, the integer square root of
/// `4 p^2 t`: `n = ceil((r + 1) / q) / 2`, rounded down. No search: one integer
/// square root, whatever the inputs. `None` when `4 p^2 t` passes `i128`.
pub fn round_times_sqrt(a: Rational, t: i128) -> Option<i128> {
    if a.is_zero() || t == 0 {
        return Some(0);
    }
    let (p, q) = (a.numer().checked_abs()?, *a.denom());
    let target = p.checked_mul(p)?.checked_mul(t)?.checked_mul(4)?;
    let r = u128::try_from(target).ok()?.isqrt();
    // r < 2^64 and q >= 1: r + 1 does not pass u128, and the quotient is below 2^64.
    let k = (r + 1).div_ceil(u128::try_from(q).ok()?);
    let n = i128::try_from(k / 2).ok()?;
    Some(a.signum().to_integer() * n)
}

/// Parse a decimal string such as `"0.98"`, `"-1.5"` or `"45"` exactly
/// (what was stored is read as it was accepted: see [`spelled_once`] for
/// what new input must look like).
pub fn parse_decimal(s: &str) -> Option<Rational> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits_ok = |p: &str| p.chars().all(|c| c.is_ascii_digit());
    if int.is_empty() || !digits_ok(int) || !digits_ok(frac) || frac.len() > 18 {
        return None;
    }
    if body.contains('.') && frac.is_empty() {
        return None;
    }
    let whole: i128 = format!("{int}{frac}").parse().ok()?;
    let r = ratio(whole, 10i128.pow(frac.len() as u32));
    Some(if neg { -r } else { r })
}

/// Is decimal string `s` written the one way new input may write it: what
/// [`parse_decimal`] reads, without whitespace, a leading zero before other
/// digits (`"00.5"`) or a negative zero (`"-0"`)?
///
/// That is `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, not `-0`: no `+`, no exponent, a
/// digit on each side of the point. Trailing zeros (`"0.50"`) are allowed:
/// the text is kept and quoted as written, and a factor may be written to
/// the places its community publishes; a leading zero, a sign or a space
/// says nothing.
pub fn spelled_once(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let int = body.split_once('.').map_or(body, |(i, _)| i);
    s.trim() == s
        && !(int.len() > 1 && int.starts_with('0'))
        && parse_decimal(s).is_some_and(|r| !(s.starts_with('-') && r == ratio(0, 1)))
}

/// How a decimal string is written, for messages.
const DECIMAL_FORM: &str =
    "digits, at most one \".\" between digits and an optional leading \"-\", such as \"0.98\"";

/// What is wrong with decimal string `s` as new input ([`spelled_once`]),
/// and how to write it (its one spelling, when there is one): `None` when
/// nothing is. Every message about a malformed decimal says this, so `"00.5"`
/// is told "leading zeros are not allowed; write \"0.5\"", never that it is
/// out of range.
pub fn misspelt(s: &str) -> Option<String> {
    if spelled_once(s) {
        return None;
    }
    let fault = decimal_fault(s);
    let respelt = respell(s);
    Some(
        match s.contains(|c: char| c.is_ascii_digit()) && spelled_once(&respelt) {
            true => format!("{fault}; write {respelt:?}"),
            false => format!("{fault}; write {DECIMAL_FORM}"),
        },
    )
}

/// The first fault [`spelled_once`] finds in `s` (which it refuses).
fn decimal_fault(s: &str) -> &'static str {
    let body = s.strip_prefix('-').unwrap_or(s);
    let int = body.split_once('.').map_or(body, |(i, _)| i);
    if s.is_empty() {
        "it is empty"
    } else if s.trim() != s {
        "spaces are not allowed"
    } else if s.starts_with('+') {
        "a plus sign is not allowed"
    } else if s.contains(['e', 'E']) && s.chars().all(|c| c.is_ascii_digit() || ".eE+-".contains(c))
    {
        "an exponent is not allowed"
    } else if body.contains(|c: char| !c.is_ascii_digit() && c != '.')
        || body.matches('.').count() > 1
    {
        "it holds a character other than digits, one \".\" and a leading \"-\""
    } else if !body.contains(|c: char| c.is_ascii_digit()) {
        "it has no digits"
    } else if int.is_empty() {
        "a digit is needed before the \".\""
    } else if body.ends_with('.') {
        "a digit is needed after the \".\""
    } else if int.len() > 1 && int.starts_with('0') {
        "leading zeros are not allowed"
    } else if parse_decimal(s).is_some_and(|r| r.is_zero()) {
        "zero takes no minus sign"
    } else {
        "it has more digits than a decimal may (at most 18 after the \".\", 38 in all)"
    }
}

/// `s` without what [`decimal_fault`] finds wrong with its form: trimmed,
/// no `+`, a zero before a bare point, none after one, no leading zeros, no
/// sign on zero. Not a decimal when `s` holds other faults (an exponent).
fn respell(s: &str) -> String {
    let s = s.trim();
    let s = s.strip_prefix('+').unwrap_or(s);
    let (neg, body) = s.strip_prefix('-').map_or((false, s), |b| (true, b));
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let int = match int.trim_start_matches('0') {
        "" => "0",
        int => int,
    };
    let unsigned = match frac {
        "" => int.to_string(),
        frac => format!("{int}.{frac}"),
    };
    match neg && !parse_decimal(&unsigned).is_some_and(|r| r.is_zero()) {
        true => format!("-{unsigned}"),
        false => unsigned,
    }
}

/// `r * 10^places` rounded half away from zero. With `r = n / d` and
/// `n = q d + m` (`|m| < d`, both of `n`'s sign), that is `q 10^places` plus
/// `m 10^places / d` rounded: no fraction is reduced (a gcd per score would
/// dominate a table of a million CFR event scores), and the products fit `i128`
/// whenever `d 10^places` and the result do.
pub fn round_scaled<T: Integer + Signed + Clone + From<u8>>(r: &Ratio<T>, places: u32) -> T {
    let scale = num_traits::pow(T::from(10), places as usize);
    let (q, m) = r.numer().div_rem(r.denom());
    q * scale.clone() + round_quotient(m * scale, r.denom().clone())
}

/// Render `r` with exactly `places` decimals, rounded half away from zero.
pub fn decimal_string(r: Rational, places: u32) -> String {
    let n = round_scaled(&r, places);
    if places == 0 {
        return n.to_string();
    }
    let sign = if n < 0 { "-" } else { "" };
    let (n, width) = (n.unsigned_abs(), places as usize);
    let scale = 10u128.pow(places);
    format!("{sign}{}.{:0width$}", n / scale, n % scale)
}

/// [`decimal_string`] without trailing zeros: `0.4000` → `0.4`, `80.000000` → `80`.
pub fn decimal_trimmed(r: Rational, places: u32) -> String {
    let s = decimal_string(r, places);
    match places {
        0 => s,
        _ => s.trim_end_matches('0').trim_end_matches('.').to_string(),
    }
}

/// A JSON number for `r` rounded to `places` decimals (for output only; events
/// never carry floats): an integer for `places` 0 (within `i64`), else the `f64` nearest the
/// decimal (Rust's parse is correctly rounded), which JSON prints as that
/// decimal without its trailing zeros.
pub fn json_number(r: Rational, places: u32) -> serde_json::Value {
    let text = decimal_string(r, places);
    if let (0, Ok(n)) = (places, text.parse::<i64>()) {
        return serde_json::Value::from(n);
    }
    // Past `i64`, the nearest float, never a wrong integer.
    text.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(serde_json::Value::Null, serde_json::Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sum_subtracts_its_negative_terms() {
        assert_eq!(sum_text([60, -20, -20]), "60 - 20 - 20");
        assert_eq!(sum_text([-5, 2, 0]), "-5 + 2 + 0");
        assert_eq!(
            sum_text([i64::MIN, i64::MIN]),
            format!("{} - 9223372036854775808", i64::MIN)
        );
        assert_eq!(sum_text([]), "0");
    }

    #[test]
    fn halves_round_away_from_zero() {
        assert_eq!(round_half_away(ratio(5, 2)), 3);
        assert_eq!(round_half_away(ratio(-5, 2)), -3);
        assert_eq!(round_half_away(ratio(7, 3)), 2);
        assert_eq!(round_half_away(ratio(-7, 3)), -2);
        assert_eq!(round_half_away(ratio(-1, 2)), -1);
        assert_eq!(round_half_away(ratio(1, 3)), 0);
        assert_eq!(round_half_away(Rational::from_integer(-4)), -4);
    }

    /// [`round_times_sqrt`] of a value that fits.
    fn rts(a: Rational, t: i128) -> i128 {
        round_times_sqrt(a, t).unwrap()
    }

    #[test]
    fn sqrt_rounding_is_exact() {
        // 25 * sqrt(30) = 136.93 → 137
        assert_eq!(rts(Rational::from_integer(25), 30), 137);
        // 0.5 * sqrt(1) = 0.5 exactly → 1 (half away), -0.5 → -1
        assert_eq!(rts(ratio(1, 2), 1), 1);
        assert_eq!(rts(ratio(-1, 2), 1), -1);
        assert_eq!(rts(ratio(3, 1), 4), 6);
    }

    /// Exact halves (a perfect square `t`, an even denominator) and near
    /// misses either side, where a floating-point root could round wrong.
    #[test]
    fn sqrt_rounding_decides_halves_and_near_misses_exactly() {
        // 5/2 * sqrt(9) = 7.5 → 8; 7/2 * sqrt(1) = 3.5 → 4; negative halves away.
        assert_eq!(rts(ratio(5, 2), 9), 8);
        assert_eq!(rts(ratio(-5, 2), 9), -8);
        assert_eq!(rts(ratio(7, 2), 1), 4);
        assert_eq!(rts(ratio(1, 4), 4), 1);
        assert_eq!(rts(ratio(1, 6), 9), 1);
        assert_eq!(rts(ratio(-1, 6), 9), -1);
        // sqrt(2) = 1.41421356...: 15/2 * sqrt(2) = 10.6066 → 11, 3 * sqrt(2) = 4.2426 → 4.
        assert_eq!(rts(ratio(15, 2), 2), 11);
        assert_eq!(rts(Rational::from_integer(3), 2), 4);
        // 7071/10000 * sqrt(2) = 0.99999... just under 1, rounding to 1 anyway;
        // 3535/10000 * sqrt(2) = 0.49992... just under a half → 0,
        // 3536/10000 * sqrt(2) = 0.50006... just over → 1.
        assert_eq!(rts(ratio(7071, 10_000), 2), 1);
        assert_eq!(rts(ratio(3535, 10_000), 2), 0);
        assert_eq!(rts(ratio(3536, 10_000), 2), 1);
        assert_eq!(rts(ratio(-3536, 10_000), 2), -1);
        // 1/3 * sqrt(1000) = 10.5409 → 11; 999/150 * sqrt(101) = 66.93 → 67.
        assert_eq!(rts(ratio(1, 3), 1000), 11);
        assert_eq!(rts(ratio(999, 150), 101), 67);
        assert_eq!(rts(Rational::from_integer(0), 30), 0);
        assert_eq!(rts(ratio(3, 7), 0), 0);
        // (2 * 10^19)^2 passes i128.
        assert_eq!(
            round_times_sqrt(Rational::from_integer(10i128.pow(19)), 1),
            None
        );
    }

    #[test]
    fn decimals_parse_exactly() {
        assert_eq!(parse_decimal("0.98"), Some(ratio(98, 100)));
        assert_eq!(parse_decimal("-1.5"), Some(ratio(-3, 2)));
        assert_eq!(parse_decimal("45"), Some(Rational::from_integer(45)));
        assert_eq!(parse_decimal("1."), None);
        assert_eq!(parse_decimal("x"), None);
        assert_eq!(parse_decimal("1e3"), None);
        assert_eq!(parse_decimal("0"), Some(Rational::from_integer(0)));
        assert_eq!(parse_decimal("10.05"), Some(ratio(201, 20)));
        // New input has one spelling; what was stored still reads.
        for other_spelling in [" 0.5", "0.5 ", "00.5", "+0.5", ".5", "-0", "-0.0", "01"] {
            assert!(!spelled_once(other_spelling), "{other_spelling:?}");
        }
        assert_eq!(parse_decimal("00.5"), Some(ratio(1, 2)));
        assert!(["0", "0.5", "-1.5", "45", "10.05", "0.50"]
            .iter()
            .all(|s| spelled_once(s)));
    }

    #[test]
    fn a_misspelt_decimal_is_told_what_is_wrong_and_how_to_write_it() {
        let form = "digits, at most one \".\" between digits and an optional leading \"-\", \
                    such as \"0.98\"";
        let other = "it holds a character other than digits, one \".\" and a leading \"-\"";
        for (text, fault, fix) in [
            ("00.5", "leading zeros are not allowed", "\"0.5\""),
            ("01", "leading zeros are not allowed", "\"1\""),
            ("+1", "a plus sign is not allowed", "\"1\""),
            (".5", "a digit is needed before the \".\"", "\"0.5\""),
            ("-.5", "a digit is needed before the \".\"", "\"-0.5\""),
            ("1.", "a digit is needed after the \".\"", "\"1\""),
            ("1e3", "an exponent is not allowed", form),
            ("1e", "an exponent is not allowed", form),
            (" 1", "spaces are not allowed", "\"1\""),
            ("0.5 ", "spaces are not allowed", "\"0.5\""),
            ("-0", "zero takes no minus sign", "\"0\""),
            ("-0.0", "zero takes no minus sign", "\"0.0\""),
            ("", "it is empty", form),
            ("-", "it has no digits", form),
            ("1.2.3", other, form),
            ("half", other, form),
            ("ninety-eight", other, form),
        ] {
            let want = format!("{fault}; write {fix}");
            assert_eq!(misspelt(text), Some(want), "{text:?}");
        }
        let long = format!("0.{}", "1".repeat(19));
        let why = misspelt(&long).unwrap();
        assert!(
            why.starts_with("it has more digits than a decimal may"),
            "{why}"
        );
        for fine in ["0", "0.5", "0.50", "-1.5", "45", "10.05"] {
            assert_eq!(misspelt(fine), None, "{fine:?}");
        }
    }

    #[test]
    fn decimal_strings_round_half_away() {
        assert_eq!(decimal_string(ratio(25575, 1000), 2), "25.58");
        assert_eq!(decimal_string(ratio(-25575, 1000), 2), "-25.58");
        assert_eq!(decimal_string(Rational::from_integer(80), 2), "80.00");
        assert_eq!(decimal_string(ratio(1, 200), 2), "0.01");
        assert_eq!(json_number(ratio(2558, 100), 2).to_string(), "25.58");
    }

    /// Every sign, exact halves at each number of places, and a product
    /// past `i128` that cancels against the denominator.
    #[test]
    fn decimals_round_at_every_place() {
        let cases = [
            (ratio(1, 8), 0, "0", "0"),
            (ratio(1, 2), 0, "1", "1"),
            (ratio(-1, 2), 0, "-1", "-1"),
            (ratio(1, 8), 1, "0.1", "0.1"),
            (ratio(1, 8), 2, "0.13", "0.13"),
            (ratio(-1, 8), 2, "-0.13", "-0.13"),
            (ratio(1, 8), 3, "0.125", "0.125"),
            (ratio(1, 8), 4, "0.1250", "0.125"),
            (ratio(2, 3), 4, "0.6667", "0.6667"),
            (ratio(-2, 3), 6, "-0.666667", "-0.666667"),
            (ratio(-1, 3), 2, "-0.33", "-0.33"),
            (ratio(1, 1_000_003), 6, "0.000001", "1e-6"),
            (ratio(-1, 3_000_000), 6, "0.000000", "0.0"),
            (Rational::from_integer(7), 2, "7.00", "7.0"),
            (ratio(8_675_309, 100), 1, "86753.1", "86753.1"),
            (
                ratio(i128::from(u64::MAX) + 1, 1000),
                2,
                "18446744073709551.62",
                "1.844674407370955e+16",
            ),
        ];
        for (r, places, text, json) in cases {
            assert_eq!(decimal_string(r, places), text, "{r} to {places}");
            assert_eq!(json_number(r, places).to_string(), json, "{r} to {places}");
        }
        // n * 10^4 passes i128; the whole part and the remainder do not.
        let n = 10i128.pow(35) + 1;
        let q = round_quotient(n, 3); // (10^35 + 1) / 30000 * 10^4, rounded
        let want = format!("{}.{:04}", q / 10_000, q % 10_000);
        assert_eq!(decimal_string(ratio(n, 30_000), 4), want);
        assert!(want.ends_with(".3334"), "{want}");
        assert_eq!(round_quotient(i128::MAX, i128::MAX - 1), 1);
        assert_eq!(round_quotient(-7, 2), -4);
    }

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Holder(Rational);

    /// Checkpoints hold a rational as the pair (numerator, denominator) of its
    /// lowest terms (num-rational's serde).
    #[test]
    fn rationals_round_trip_through_bincode() {
        for r in [ratio(-7, 3), ratio(1, 2), Rational::from_integer(i128::MAX)] {
            let bytes = bincode::serialize(&Holder(r)).unwrap();
            assert_eq!(
                bytes,
                bincode::serialize(&(*r.numer(), *r.denom())).unwrap()
            );
            assert_eq!(bincode::deserialize::<Holder>(&bytes).unwrap(), Holder(r));
        }
        let zero_den = bincode::serialize(&(1i128, 0i128)).unwrap();
        assert!(bincode::deserialize::<Holder>(&zero_den).is_err());
    }
}
