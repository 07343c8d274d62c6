//! Exact arithmetic: every rating rule that rounds goes through [`round_half_away`]
//! on an exact rational, so results never depend on floating point.

use num_integer::Integer;
use num_rational::Ratio;
use num_traits::{Signed, ToPrimitive, Zero};

/// Exact rational used by every formula that divides.
pub type Rational = Ratio<i128>;

/// Build `n / d` (d != 0).
pub fn ratio(n: i128, d: i128) -> Rational {
    Rational::new(n, d)
}

/// Round to the nearest integer, halves away from zero: 2.5 → 3, -2.5 → -3.
///
/// This is the one rounding helper of the crate: every rounding in the rules is
/// to nearest, half away from zero.
pub fn round_half_away(r: Rational) -> i128 {
    round_quotient(*r.numer(), *r.denom()) // d > 0 always (Ratio normalises)
}

/// `n / d` (d > 0, any common factor) rounded as [`round_half_away`] rounds it.
fn round_quotient(n: i128, d: i128) -> i128 {
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
/// exactly: compares squares instead of taking a floating-point root.
pub fn round_times_sqrt(a: Rational, t: i128) -> i128 {
    if a.is_zero() || t == 0 {
        return 0;
    }
    let sign = if a.is_negative() { -1 } else { 1 };
    // Find n >= 0 with (n - 1/2)^2 <= target < (n + 1/2)^2, i.e. n = round(|a| sqrt t).
    let approx = (a.abs().to_f64().unwrap_or(0.0) * (t as f64).sqrt()).round() as i128;
    let n = approx.max(0);
    let n = (a.numer().checked_abs())
        .and_then(|p| round_sqrt_in_integers(p, *a.denom(), t, n))
        .unwrap_or_else(|| round_sqrt_in_rationals(a, t, n));
    sign * n
}

/// The search of [`round_times_sqrt`] for `|a| = p / q` (lowest terms, q > 0)
/// in integers: `(n ± 1/2)^2` against `p^2 t / q^2` is `((2n ± 1) q)^2`
/// against `4 p^2 t`. `None` if a product overflows `i128` (the rational
/// search then decides). Where both finish they agree (the same inequalities,
/// exact); this one does not reduce a fraction at every step.
fn round_sqrt_in_integers(p: i128, q: i128, t: i128, mut n: i128) -> Option<i128> {
    let target = p.checked_mul(p)?.checked_mul(t)?.checked_mul(4)?;
    let side = |m: i128| -> Option<i128> {
        let x = m.checked_mul(2)?.checked_add(1)?.checked_mul(q)?;
        x.checked_mul(x)
    };
    while n > 0 && side(n - 1)? > target {
        n -= 1;
    }
    while side(n)? <= target {
        n += 1;
    }
    Some(n)
}

/// The search of [`round_times_sqrt`] in exact rationals, from `n`.
fn round_sqrt_in_rationals(a: Rational, t: i128, mut n: i128) -> i128 {
    let target = a * a * Rational::from_integer(t); // (|a| sqrt t)^2, exact
    let half = ratio(1, 2);
    let sq = |x: Rational| x * x;
    while n > 0 && sq(Rational::from_integer(n) - half) > target {
        n -= 1;
    }
    while sq(Rational::from_integer(n) + half) <= target {
        n += 1;
    }
    n
}

/// Parse a decimal string such as `"0.98"`, `"-1.5"` or `"45"` exactly.
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

/// `r * 10^places` rounded half away from zero: [`round_half_away`] of the
/// product. Why not that: it reduces a fraction (two i128 gcds), and a table
/// of a million CFR event scores spends much of its time there.
/// Same value, same rounding; the rational product decides only when the
/// integer one overflows.
pub fn round_scaled(r: Rational, places: u32) -> i128 {
    checked_round_scaled(r, places)
        .unwrap_or_else(|| round_half_away(r * Rational::from_integer(10i128.pow(places))))
}

/// [`round_scaled`] in integers only: `None` when `10^places` or the product
/// passes `i128` (Diplomacy's scores then go to big integers).
pub fn checked_round_scaled(r: Rational, places: u32) -> Option<i128> {
    let scaled = r.numer().checked_mul(10i128.checked_pow(places)?)?;
    Some(round_quotient(scaled, *r.denom()))
}

/// Render `r` with exactly `places` decimals, rounded half away from zero.
pub fn decimal_string(r: Rational, places: u32) -> String {
    let n = round_scaled(r, places);
    if places == 0 {
        return n.to_string();
    }
    let sign = if n < 0 { "-" } else { "" };
    let (n, width) = (n.unsigned_abs(), places as usize);
    // u64 when it fits: formatting and dividing an i128 is slower.
    match (u64::try_from(n), u64::try_from(10u128.pow(places))) {
        (Ok(n), Ok(scale)) => format!("{sign}{}.{:0width$}", n / scale, n % scale),
        _ => {
            let scale = 10u128.pow(places);
            format!("{sign}{}.{:0width$}", n / scale, n % scale)
        }
    }
}

/// A JSON number for `r` rounded to `places` decimals (for output only; events
/// never carry floats).
pub fn json_number(r: Rational, places: u32) -> serde_json::Value {
    let text = decimal_string(r, places);
    if places == 0 {
        return serde_json::Value::from(text.parse::<i64>().unwrap_or_default());
    }
    // Rust's float parsing is correctly rounded, as serde_json's is for these
    // short decimals (the test below compares them); it skips a JSON parse.
    text.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// Serde for a [`Rational`] field (`#[serde(with = "crate::num::serde_rational")]`):
/// the pair `(numerator, denominator)` of its lowest terms, so a state that
/// holds rationals can be checkpointed (num-rational's own serde is not enabled).
pub mod serde_rational {
    use super::Rational;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(r: &Rational, s: S) -> Result<S::Ok, S::Error> {
        (*r.numer(), *r.denom()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Rational, D::Error> {
        let (n, den) = <(i128, i128)>::deserialize(d)?;
        if den == 0 {
            return Err(serde::de::Error::custom("rational with denominator 0"));
        }
        Ok(Rational::new(n, den))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn sqrt_rounding_is_exact() {
        // 25 * sqrt(30) = 136.93 → 137
        assert_eq!(round_times_sqrt(Rational::from_integer(25), 30), 137);
        // 0.5 * sqrt(1) = 0.5 exactly → 1 (half away), -0.5 → -1
        assert_eq!(round_times_sqrt(ratio(1, 2), 1), 1);
        assert_eq!(round_times_sqrt(ratio(-1, 2), 1), -1);
        assert_eq!(round_times_sqrt(ratio(3, 1), 4), 6);
    }

    #[test]
    fn the_integer_sqrt_search_agrees_with_the_rational_one() {
        // Every start the f64 guess could give (off by up to 3), exact halves
        // (t a perfect square, q even) and near misses; past i128 the integer
        // search gives up (and the rational one decides, as it always did).
        for p in (-300..=300).step_by(7) {
            for q in [1, 2, 3, 4, 7, 10, 64, 150, 999] {
                let a = ratio(p, q);
                for t in [1, 2, 3, 4, 9, 16, 25, 30, 99, 100, 101, 144, 1000] {
                    let want = round_sqrt_in_rationals(a, t, 0);
                    for start in want.saturating_sub(3).max(0)..want + 4 {
                        let p = a.numer().abs();
                        let got = round_sqrt_in_integers(p, *a.denom(), t, start);
                        assert_eq!(got, Some(want), "{a} sqrt {t} from {start}");
                        assert_eq!(round_sqrt_in_rationals(a, t, start), want);
                    }
                    assert_eq!(round_times_sqrt(a, t), a.signum().to_integer() * want);
                }
            }
        }
        assert_eq!(round_sqrt_in_integers(i128::MAX / 3, 1, 9, 0), None);
    }

    #[test]
    fn decimals_parse_exactly() {
        assert_eq!(parse_decimal("0.98"), Some(ratio(98, 100)));
        assert_eq!(parse_decimal("-1.5"), Some(ratio(-3, 2)));
        assert_eq!(parse_decimal("45"), Some(Rational::from_integer(45)));
        assert_eq!(parse_decimal("1."), None);
        assert_eq!(parse_decimal("x"), None);
        assert_eq!(parse_decimal("1e3"), None);
    }

    #[test]
    fn decimal_strings_round_half_away() {
        assert_eq!(decimal_string(ratio(25575, 1000), 2), "25.58");
        assert_eq!(decimal_string(ratio(-25575, 1000), 2), "-25.58");
        assert_eq!(decimal_string(Rational::from_integer(80), 2), "80.00");
        assert_eq!(decimal_string(ratio(1, 200), 2), "0.01");
        assert_eq!(json_number(ratio(2558, 100), 2).to_string(), "25.58");
    }

    /// The fast paths of `decimal_string` and `json_number` give what the
    /// plain ones (a rational product, a JSON parse) give, across signs, exact
    /// halves, every `places` the tables use, and products past `i128`.
    #[test]
    fn decimal_fast_paths_equal_the_plain_ones() {
        let plain = |r: Rational, places: u32| {
            let scale = 10i128.pow(places);
            let n = round_half_away(r * Rational::from_integer(scale));
            let text = if places == 0 {
                n.to_string()
            } else {
                let sign = if n < 0 { "-" } else { "" };
                let (a, w) = (n.abs(), places as usize);
                format!("{sign}{}.{:0w$}", a / scale, a % scale)
            };
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            (text, value)
        };
        let mut seen = 0;
        for n in (-20_011..=20_011).step_by(37) {
            for d in [1, 2, 3, 7, 8, 40, 125, 300, 999, 4_000, 65_536, 1_000_003] {
                for places in [0, 1, 2, 3, 4, 6] {
                    let r = ratio(n * 7_919, d);
                    let (text, value) = plain(r, places);
                    assert_eq!(decimal_string(r, places), text, "{r} to {places}");
                    assert_eq!(json_number(r, places), value, "{r} to {places}");
                    seen += 1;
                }
            }
        }
        assert_eq!(seen, 1_082 * 12 * 6);
        // n * 10^4 overflows i128 (release builds would wrap): the rational
        // path decides, and cancels the 10^4 against the denominator first.
        let n = 10i128.pow(35) + 1;
        let q = round_quotient(n, 3); // (10^35 + 1) / 30000 * 10^4, rounded
        let want = format!("{}.{:04}", q / 10_000, q % 10_000);
        assert_eq!(decimal_string(ratio(n, 30_000), 4), want);
        assert!(want.ends_with(".3334"), "{want}");
        assert_eq!(round_quotient(i128::MAX, i128::MAX - 1), 1);
        assert_eq!(round_quotient(-7, 2), -4);
    }

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Holder(#[serde(with = "serde_rational")] Rational);

    #[test]
    fn rationals_round_trip_through_bincode() {
        for r in [ratio(-7, 3), ratio(1, 2), Rational::from_integer(i128::MAX)] {
            let bytes = bincode::serialize(&Holder(r)).unwrap();
            assert_eq!(bincode::deserialize::<Holder>(&bytes).unwrap(), Holder(r));
        }
        let zero_den = bincode::serialize(&(1i128, 0i128)).unwrap();
        assert!(bincode::deserialize::<Holder>(&zero_den).is_err());
    }
}
