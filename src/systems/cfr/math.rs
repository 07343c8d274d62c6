//! The CFR arithmetic, free of ledger types so that it can be checked against the
//! worked examples of the published rankings on its own.
//!
//! A place is `Some(n)` for a classified finish `n` (1 = win) and `None` for a
//! dnf. Points tables are indexed by place: `table[0]` is a win. All values are
//! exact; nothing here rounds except [`round_to`], the event scores
//! ([`elimination_units`], [`points_units`]) and the ranking key
//! ([`ranking_key`]) (to the places shown) and [`narrow`] (past a denominator
//! of 10^18).
//!
//! Event scores are kept in [`UNIT`]s (10^-9, the finest `decimals` allowed):
//! integers, so a ranking adds and compares them without reducing fractions.
//!
//! Totality: a decayed heat sum has the denominator `b^(heats - 1)` for a decay
//! `a / b` (`b` up to 10^6), past `i128` from a handful of heats, so the
//! elimination sums are taken in `i128` over that denominator while every step
//! fits and as [`BigRational`]s beyond (an event runs at most
//! [`MAX_HEATS`](super::events::MAX_HEATS) heats); points scores and the
//! ranking key likewise fall back to big rationals on any overflow. Points are
//! within 10^6 a place, tables of at most 100 places, scores at most `100 *
//! 10^6` over at most 10^9 (nine decimals).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{CheckedAdd, CheckedMul, One, Zero};

use crate::num::{round_half_away, round_quotient, round_scaled, Rational};

/// Points for `place` in `table`: 0 for a dnf or a place past the end of the table.
pub fn table_points(table: &[i64], place: Option<u32>) -> i128 {
    place
        .and_then(|p| p.checked_sub(1))
        .and_then(|i| table.get(i as usize))
        .map_or(0, |&v| i128::from(v))
}

/// `1, decay, decay², …` exactly: one product a weight.
pub fn decay_weights(decay: Rational) -> impl Iterator<Item = BigRational> {
    let d = big(decay);
    std::iter::successors(Some(BigRational::one()), move |w| Some(w * &d))
}

/// `r` as a big rational.
fn big(r: Rational) -> BigRational {
    BigRational::new_raw(BigInt::from(*r.numer()), BigInt::from(*r.denom()))
}

/// Heat points of one driver: the best counts in full, the 2nd best times
/// `decay`, the 3rd times `decay²`, ... Order of `points` does not matter.
/// Summed as `p1 + decay * (p2 + decay * (p3 + ...))`: one product a heat.
pub fn decayed_heat_points(points: &[i128], decay: Rational) -> BigRational {
    let mut sorted = points.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let small = sorted.iter().rev().try_fold(Rational::zero(), |acc, &p| {
        acc.checked_mul(&decay)?
            .checked_add(&Rational::from_integer(p))
    });
    if let Some(sum) = small {
        return big(sum);
    }
    let d = big(decay);
    sorted.iter().rev().fold(BigRational::zero(), |acc, &p| {
        BigRational::from_integer(BigInt::from(p)) + acc * &d
    })
}

/// The perfect score of an elimination event that ran `heats` heats: a final
/// win plus a heat win decayed over every heat (3 heats: 100+50+25+12.5 = 187.5).
pub fn elimination_perfect(
    final_points: &[i64],
    heat_points: &[i64],
    decay: Rational,
    heats: usize,
) -> BigRational {
    let win = table_points(heat_points, Some(1));
    let heat_part = decayed_heat_points(&vec![win; heats], decay);
    BigRational::from_integer(table_points(final_points, Some(1)).into()) + heat_part
}

/// A driver's points at an elimination event: decayed heat points plus the final
/// (`final_place` is `None` when the driver did not reach the final).
pub fn elimination_points(
    final_points: &[i64],
    heat_points: &[i64],
    decay: Rational,
    heat_places: &[Option<u32>],
    final_place: Option<Option<u32>>,
) -> BigRational {
    let heats: Vec<i128> = heat_places
        .iter()
        .map(|&p| table_points(heat_points, p))
        .collect();
    let fin = final_place.map_or(0, |p| table_points(final_points, p));
    decayed_heat_points(&heats, decay) + BigRational::from_integer(fin.into())
}

/// The most decimals an event score is rounded to: the `decimals`
/// parameter's largest value.
pub const SCORE_PLACES: u32 = 9;

/// An event score in units of `10^-SCORE_PLACES`: a score rounded to at most
/// [`SCORE_PLACES`] places is a whole number of them, so sums, means and
/// comparisons of scores are integer ones.
pub const UNIT: i128 = 1_000_000_000;

/// A score in [`UNIT`]s as an exact rational (lowest terms).
pub fn from_units(units: i128) -> Rational {
    Rational::new(units, UNIT)
}

/// An elimination event's score in [`UNIT`]s: `100 * points / perfect`
/// rounded to `places` decimals (at most [`SCORE_PLACES`]) as [`round_to`]
/// rounds, exactly; 0 for a perfect of 0. Both sums are taken over the one
/// denominator `b^(m - 1)` of a decay `a / b` (`m`: the heats run, or the
/// driver's heats if more), where they are integers, so the score is one
/// integer division; in `i128` while every step fits (a few heats at a decay
/// of a few places), else in big rationals.
pub fn elimination_units(
    final_points: &[i64],
    heat_points: &[i64],
    decay: Rational,
    heat_places: &[Option<u32>],
    final_place: Option<Option<u32>>,
    heats: usize,
    places: u32,
) -> i128 {
    let places = places.min(SCORE_PLACES);
    let mut pts: Vec<i128> = heat_places
        .iter()
        .map(|&p| table_points(heat_points, p))
        .collect();
    pts.sort_unstable_by(|a, b| b.cmp(a));
    let fin = final_place.map_or(0, |p| table_points(final_points, p));
    let win = (
        table_points(final_points, Some(1)),
        table_points(heat_points, Some(1)),
    );
    let small = || {
        let m = heats.max(pts.len());
        let (a, b) = (*decay.numer(), *decay.denom());
        let whole = b.checked_pow(u32::try_from(m.saturating_sub(1)).ok()?)?;
        let points = scaled_heats(&pts, a, b, m)?.checked_add(fin.checked_mul(whole)?)?;
        let perfect =
            scaled_heats(&vec![win.1; heats], a, b, m)?.checked_add(win.0.checked_mul(whole)?)?;
        units(points, perfect, places)
    };
    small().unwrap_or_else(|| {
        let points = elimination_points(final_points, heat_points, decay, heat_places, final_place);
        let perfect = elimination_perfect(final_points, heat_points, decay, heats);
        big_units(&points, &perfect, places)
    })
}

/// `Σ points[i] * a^i * b^(m - 1 - i)` for `points` best first (at most `m`
/// of them): their decayed sum times `b^(m - 1)`; `None` past `i128`.
fn scaled_heats(points: &[i128], a: i128, b: i128, m: usize) -> Option<i128> {
    let (mut sum, mut weight) = (0i128, 1i128);
    for (i, &p) in points.iter().enumerate() {
        if i > 0 {
            weight = weight.checked_mul(a)?;
        }
        sum = sum.checked_mul(b)?.checked_add(p.checked_mul(weight)?)?;
    }
    let rest = u32::try_from(m.checked_sub(points.len())?).ok()?;
    sum.checked_mul(b.checked_pow(rest)?)
}

/// `100 * points / perfect` rounded to `places` decimals (at most
/// [`SCORE_PLACES`]), in [`UNIT`]s; 0 for a perfect of 0 or less; `None`
/// when a product passes `i128`.
pub fn units(points: i128, perfect: i128, places: u32) -> Option<i128> {
    if perfect <= 0 {
        return Some(0);
    }
    let places = places.min(SCORE_PLACES);
    let scaled = points.checked_mul(100)?.checked_mul(10i128.pow(places))?;
    round_quotient(scaled, perfect).checked_mul(10i128.pow(SCORE_PLACES - places))
}

/// [`units`] of big rationals (the score is at most 100 for tables that never
/// rise with place, far inside `i128`; a score past it counts 0).
fn big_units(points: &BigRational, perfect: &BigRational, places: u32) -> i128 {
    if *perfect <= BigRational::zero() {
        return 0;
    }
    let places = places.min(SCORE_PLACES);
    let r = round_scaled(
        &(BigRational::from_integer(100.into()) * points / perfect),
        places,
    );
    let rest = 10i128.pow(SCORE_PLACES - places);
    narrow_int(r).and_then(|n| n.checked_mul(rest)).unwrap_or(0)
}

/// A points event's score in [`UNIT`]s: `100 * points / perfect` rounded to
/// `places` decimals (at most [`SCORE_PLACES`]), exactly.
pub fn points_units(points: i128, perfect: i128, places: u32) -> i128 {
    units(points, perfect, places).unwrap_or_else(|| {
        let big = |n: i128| BigRational::from_integer(n.into());
        big_units(&big(points), &big(perfect), places)
    })
}

/// A driver's ranking score times `10^places` (`places` at most 18), from
/// their counted event scores in [`UNIT`]s: the mean times the few-events
/// factor, rounded half away from zero; the same number as [`round_scaled`]
/// of [`driver_score`]'s score. One integer division in `i128` while the
/// products fit, else in big rationals. `None` without any score.
pub fn ranking_key(units: &[i128], one: Rational, two: Rational, places: u32) -> Option<i128> {
    if units.is_empty() {
        return None;
    }
    let factor = few_events_factor(units.len(), one, two);
    let scale = 10i128.pow(places.min(18));
    let n = units.len() as i128;
    let small = || {
        let sum = units.iter().try_fold(0i128, |s, &u| s.checked_add(u))?;
        let num = sum.checked_mul(*factor.numer())?.checked_mul(scale)?;
        let den = n.checked_mul(*factor.denom())?.checked_mul(UNIT)?;
        Some(round_quotient(num, den))
    };
    small().or_else(|| {
        let big = |n: i128| BigRational::from_integer(n.into());
        let sum: BigRational = units.iter().map(|&u| big(u)).sum();
        let factor = big(*factor.numer()) / big(*factor.denom());
        narrow_int(round_half_away(
            sum * factor * big(scale) / (big(n) * big(UNIT)),
        ))
    })
}

/// The largest denominator [`narrow`] keeps: a value over at most 10^18 is
/// shown at up to 18 places by [`round_scaled`] without passing `i128`.
const NARROW_DENOM: i128 = 1_000_000_000_000_000_000;

/// `r` as an `i128` rational for display: exactly when its denominator is at
/// most 10^18 (always for the tables and decays the ranges admit and a few
/// heats), else rounded to 18 decimal places (points and perfects are below
/// 10^9, so that fits).
pub fn narrow(r: &BigRational) -> Rational {
    let exact = (narrow_int(r.numer().clone()), narrow_int(r.denom().clone()));
    if let (Some(n), Some(d @ ..=NARROW_DENOM)) = exact {
        return Rational::new_raw(n, d);
    }
    let n = round_half_away(r * BigRational::from_integer(NARROW_DENOM.into()));
    Rational::new(narrow_int(n).unwrap_or_default(), NARROW_DENOM)
}

fn narrow_int(n: BigInt) -> Option<i128> {
    i128::try_from(n).ok()
}

/// The place a result in tier `tier` counts as: `place + (tier - 1) * offset`
/// (a tier-2 win shows as a 2nd with offset 1). Tiers below 1 count as tier 1.
pub fn tier_place(place: u32, tier: i64, offset: i64) -> u32 {
    let shift = (tier.max(1) - 1).saturating_mul(offset.max(0));
    let shifted = i64::from(place).saturating_add(shift);
    u32::try_from(shifted).unwrap_or(u32::MAX)
}

/// `r` rounded to `decimals` places, half away from zero, kept as a rational.
pub fn round_to(r: Rational, decimals: u32) -> Rational {
    let places = decimals.min(18);
    Rational::new(round_scaled(&r, places), 10i128.pow(places))
}

/// The factor for a driver with `n` counted events: halved with one, less 25%
/// with two (`one`, `two`), in full from three on.
pub fn few_events_factor(n: usize, one: Rational, two: Rational) -> Rational {
    match n {
        1 => one,
        2 => two,
        _ => Rational::one(),
    }
}

/// A driver's score: the mean of their event scores times the few-events factor.
/// Returns `(mean, factor, score)`; `None` without any counted event.
pub fn driver_score(
    scores: &[Rational],
    one: Rational,
    two: Rational,
) -> Option<(Rational, Rational, Rational)> {
    if scores.is_empty() {
        return None;
    }
    let sum: Rational = scores.iter().copied().sum();
    let mean = sum / Rational::from_integer(scores.len() as i128);
    let factor = few_events_factor(scores.len(), one, two);
    Some((mean, factor, mean * factor))
}

#[cfg(test)]
mod props;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{decimal_string, ratio};

    const FINAL: &[i64] = &[100, 60, 40, 30, 20, 10];
    const HEAT: &[i64] = &[50, 30, 20, 15];

    fn half() -> Rational {
        ratio(1, 2)
    }

    fn score(heats: &[Option<u32>], fin: Option<Option<u32>>, n_heats: usize) -> Rational {
        from_units(elimination_units(
            FINAL,
            HEAT,
            half(),
            heats,
            fin,
            n_heats,
            2,
        ))
    }

    #[test]
    fn perfect_wbc_score_is_187_5_with_three_heats_and_175_with_two() {
        let perfect = |n| narrow(&elimination_perfect(FINAL, HEAT, half(), n));
        assert_eq!(perfect(3), ratio(375, 2));
        assert_eq!(perfect(2), ratio(175, 1));
    }

    /// A hundred heats at a decay of six places: exact sums far past `i128`,
    /// scored and narrowed without overflow.
    #[test]
    fn many_heats_at_a_fine_decay_stay_exact_and_bounded() {
        let decay = ratio(999_999, 1_000_000);
        let perfect = elimination_perfect(FINAL, HEAT, decay, 100);
        let places = vec![Some(1); 100];
        let pts = elimination_points(FINAL, HEAT, decay, &places, Some(Some(1)));
        assert_eq!(pts, perfect);
        let all = elimination_units(FINAL, HEAT, decay, &places, Some(Some(1)), 100, 9);
        assert_eq!(from_units(all), ratio(100, 1));
        let p = narrow(&perfect);
        assert!(p > ratio(5049, 1) && p < ratio(5100, 1), "{p}");
        let s = from_units(elimination_units(
            FINAL,
            HEAT,
            decay,
            &[Some(2)],
            None,
            100,
            2,
        ));
        assert!(s > Rational::zero() && s < ratio(1, 1), "{s}");
    }

    /// Nine heats at a decay of 0.100896: the exact perfect has a denominator
    /// near 10^36, which fits `i128` but not when shown to 6 places; narrowed
    /// to 18 places it is shown as the exact value rounds.
    #[test]
    fn a_perfect_with_a_denominator_past_10_18_is_shown_as_it_rounds() {
        let decay = ratio(100_896, 1_000_000);
        let table: Vec<i64> = vec![1; 100];
        let exact = elimination_perfect(&table, &table, decay, 9);
        assert!(i128::try_from(exact.denom()).is_ok_and(|d| d > NARROW_DENOM));
        let p = narrow(&exact);
        assert!(*p.denom() <= NARROW_DENOM);
        let shown = (exact * BigRational::from_integer(1_000_000.into())).round();
        let want = format!(
            "{}.{:06}",
            shown.to_integer() / 1_000_000,
            shown.to_integer() % 1_000_000
        );
        assert_eq!(decimal_string(p, 6), want);
    }

    #[test]
    fn bruce_rae_2012_heat_win_dnf_and_final_win_is_80() {
        let pts = elimination_points(FINAL, HEAT, half(), &[Some(1), None], Some(Some(1)));
        assert_eq!(narrow(&pts), ratio(150, 1));
        assert_eq!(score(&[Some(1), None], Some(Some(1)), 3), ratio(80, 1));
    }

    #[test]
    fn a_heat_second_and_nothing_else_is_16() {
        assert_eq!(score(&[Some(2)], None, 3), ratio(16, 1));
    }

    #[test]
    fn turyko_suky_pbem_is_40_and_20_as_his_only_event() {
        let pts = elimination_points(FINAL, HEAT, half(), &[Some(1), Some(7)], Some(Some(5)));
        assert_eq!(narrow(&pts), ratio(70, 1));
        let s = score(&[Some(1), Some(7)], Some(Some(5)), 2);
        assert_eq!(s, ratio(40, 1));
        let (_, factor, total) = driver_score(&[s], half(), ratio(3, 4)).unwrap();
        assert_eq!((factor, total), (half(), ratio(20, 1)));
    }

    #[test]
    fn heat_results_decay_best_first_whatever_their_order() {
        // a 3rd (20) and a win (50): 50 + 20/2 = 60; a 4th in a third heat adds 15/4.
        let heats = |p: &[i128]| narrow(&decayed_heat_points(p, half()));
        assert_eq!(heats(&[20, 50]), ratio(60, 1));
        assert_eq!(heats(&[15, 20, 50]), ratio(255, 4));
        // a 5th or a dnf scores nothing in a heat; a 7th nothing in a final
        assert_eq!(table_points(HEAT, Some(5)), 0);
        assert_eq!(table_points(HEAT, None), 0);
        assert_eq!(table_points(FINAL, Some(7)), 0);
    }

    #[test]
    fn tiers_shift_places_by_the_offset() {
        assert_eq!(tier_place(1, 2, 1), 2);
        assert_eq!(tier_place(3, 3, 2), 7);
        assert_eq!(tier_place(4, 1, 1), 4);
        assert_eq!(tier_place(1, 0, 1), 1);
        assert_eq!(tier_place(u32::MAX, 5, i64::MAX), u32::MAX);
    }

    #[test]
    fn points_event_of_3_races_with_a_160_win_table_gives_31_88() {
        // the documented PBeM table (events/cfr_pbem.jsonl): 3rd 88, 5th 45, 8th 20
        let table = [160, 120, 88, 64, 45, 32, 25, 20, 15, 10, 6, 3];
        let pts: i128 = [3, 5, 8]
            .iter()
            .map(|&p| table_points(&table, Some(p)))
            .sum();
        assert_eq!(pts, 153);
        // 100 * 153 / (3 * 160) = 31.875 → 31.88
        assert_eq!(
            from_units(points_units(pts, 3 * 160, 3)),
            ratio(31875, 1000)
        );
        assert_eq!(from_units(points_units(pts, 3 * 160, 2)), ratio(3188, 100));
    }

    #[test]
    fn bruce_rae_five_events_average_25_58() {
        let scores = [80, 16, 0, 0].map(|n| ratio(n, 1));
        let mut all = scores.to_vec();
        all.push(ratio(3188, 100));
        let (mean, factor, total) = driver_score(&all, half(), ratio(3, 4)).unwrap();
        assert_eq!(mean, ratio(12788, 500));
        assert_eq!(factor, Rational::one());
        assert_eq!(decimal_string(total, 2), "25.58");
    }

    #[test]
    fn two_events_lose_a_quarter_and_none_has_no_score() {
        let (_, f, s) = driver_score(&[ratio(40, 1), ratio(20, 1)], half(), ratio(3, 4)).unwrap();
        assert_eq!((f, s), (ratio(3, 4), ratio(45, 2)));
        assert_eq!(driver_score(&[], half(), ratio(3, 4)), None);
    }

    #[test]
    fn empty_tables_score_zero_instead_of_dividing_by_zero() {
        assert_eq!(points_units(5, 3 * table_points(&[], Some(1)), 2), 0);
    }
}
