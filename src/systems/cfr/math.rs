//! The CFR arithmetic, free of ledger types so that it can be checked against the
//! worked examples of the published rankings on its own.
//!
//! A place is `Some(n)` for a classified finish `n` (1 = win) and `None` for a
//! dnf. Points tables are indexed by place: `table[0]` is a win. All values are
//! exact; nothing here rounds except the event scores
//! ([`Elimination::units`], [`points_units`]) and the ranking key
//! ([`ranking_key`], which is also the score shown) to the places shown, and what the audit shows
//! ([`Elimination::shown`], [`decay_weight`]: past a denominator of 10^18).
//!
//! Event scores are kept in [`UNIT`]s (10^-9, the finest `decimals` allowed):
//! integers, so a ranking adds and compares them without reducing fractions.
//!
//! Totality: a decayed heat sum has the denominator `b^(heats - 1)` for a decay
//! `a / b` (`b` up to 10^6), past `i128` from a handful of heats (an event runs
//! at most [`MAX_HEATS`](super::events::MAX_HEATS)). Each formula is written
//! once, generic in its integer ([`Int`]): taken in `i128` with every step
//! checked, and again in big integers only when a step passes `i128`. Points
//! are within 10^6 a place, tables of at most 100 places, scores at most `100 *
//! 10^6` over at most 10^9 (nine decimals).

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::Ratio;
use num_traits::{checked_pow, CheckedAdd, CheckedMul, One, Signed, ToPrimitive};

use crate::num::{round_quotient, Rational};

/// An integer a score is computed in: `i128`, where a step past it is `None`,
/// or `BigInt`, where no step fails.
pub trait Int:
    Clone + Integer + Signed + From<i128> + CheckedAdd + CheckedMul + ToPrimitive
{
}

impl<T: Clone + Integer + Signed + From<i128> + CheckedAdd + CheckedMul + ToPrimitive> Int for T {}

/// Points for `place` in `table`: 0 for a dnf or a place past the end of the table.
pub fn table_points(table: &[i64], place: Option<u32>) -> i128 {
    place
        .and_then(|p| p.checked_sub(1))
        .and_then(|i| table.get(i as usize))
        .map_or(0, |&v| i128::from(v))
}

/// One driver at an elimination event, as its score needs them.
pub struct Elimination {
    /// The driver's heat points, best first: the best counts in full, the 2nd
    /// times `decay`, the 3rd times `decay²`, ...
    mine: Vec<i128>,
    /// The driver's final points (0 without a final).
    fin: i128,
    /// A final win's and a heat win's points: the perfect score is a final
    /// win plus a heat win decayed over every heat.
    win: (i128, i128),
    decay: Rational,
    /// The heats the event ran.
    heats: usize,
}

impl Elimination {
    /// A driver's heat places and final place (`None`: no final reached) at
    /// an event that ran `heats` heats.
    pub fn new(
        (final_points, heat_points): (&[i64], &[i64]),
        decay: Rational,
        heat_places: &[Option<u32>],
        final_place: Option<Option<u32>>,
        heats: usize,
    ) -> Elimination {
        let mut mine: Vec<i128> = heat_places
            .iter()
            .map(|&p| table_points(heat_points, p))
            .collect();
        mine.sort_unstable_by(|a, b| b.cmp(a));
        Elimination {
            mine,
            fin: final_place.map_or(0, |p| table_points(final_points, p)),
            win: (
                table_points(final_points, Some(1)),
                table_points(heat_points, Some(1)),
            ),
            decay,
            heats,
        }
    }

    /// The driver's points and the perfect, each times `b^(m - 1)` for the
    /// decay `a / b` (`m`: the heats run, or the driver's heats if more),
    /// where both are integers, and that denominator.
    fn sums<T: Int>(&self) -> Option<(T, T, T)> {
        let m = self.heats.max(self.mine.len());
        let (a, b) = (T::from(*self.decay.numer()), T::from(*self.decay.denom()));
        let whole = checked_pow(b.clone(), m.saturating_sub(1))?;
        let fin = T::from(self.fin).checked_mul(&whole)?;
        let points = scaled_heats(&self.mine, &a, &b, m)?.checked_add(&fin)?;
        let win = T::from(self.win.0).checked_mul(&whole)?;
        let perfect = scaled_heats(&vec![self.win.1; self.heats], &a, &b, m)?.checked_add(&win)?;
        Some((points, perfect, whole))
    }

    /// The score in [`UNIT`]s: `100 * points / perfect` rounded to `places`
    /// decimals (at most [`SCORE_PLACES`]), half away from zero, exactly; 0
    /// for a perfect of 0, or a score past `i128`: one integer division.
    pub fn units(&self, places: u32) -> i128 {
        fn of<T: Int>(e: &Elimination, places: u32) -> Option<i128> {
            let (points, perfect, _) = e.sums::<T>()?;
            units(points, perfect, places)
        }
        of::<i128>(self, places)
            .or_else(|| of::<BigInt>(self, places))
            .unwrap_or(0)
    }

    /// The driver's points and the perfect, exact as the audit shows them
    /// ([`shown`]).
    pub fn shown(&self) -> (Rational, Rational) {
        fn of<T: Int>(e: &Elimination) -> Option<(Rational, Rational)> {
            let (points, perfect, whole) = e.sums::<T>()?;
            Some((shown(points, whole.clone())?, shown(perfect, whole)?))
        }
        of::<i128>(self)
            .or_else(|| of::<BigInt>(self))
            .unwrap_or_default()
    }
}

/// `Σ points[i] * a^i * b^(m - 1 - i)` for `points` best first (at most `m`
/// of them): their decayed sum times `b^(m - 1)`.
fn scaled_heats<T: Int>(points: &[i128], a: &T, b: &T, m: usize) -> Option<T> {
    let (mut sum, mut weight) = (T::zero(), T::one());
    for (i, &p) in points.iter().enumerate() {
        if i > 0 {
            weight = weight.checked_mul(a)?;
        }
        sum = sum
            .checked_mul(b)?
            .checked_add(&T::from(p).checked_mul(&weight)?)?;
    }
    sum.checked_mul(&checked_pow(b.clone(), m.checked_sub(points.len())?)?)
}

/// `decay^i` as the audit shows it ([`shown`]): the weight of a driver's
/// `i + 1`-th best heat.
pub fn decay_weight(decay: Rational, i: usize) -> Rational {
    fn of<T: Int>(decay: Rational, i: usize) -> Option<Rational> {
        let (a, b) = (T::from(*decay.numer()), T::from(*decay.denom()));
        shown(checked_pow(a, i)?, checked_pow(b, i)?)
    }
    of::<i128>(decay, i)
        .or_else(|| of::<BigInt>(decay, i))
        .unwrap_or_default()
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

/// `100 * points / perfect` rounded to `places` decimals (at most
/// [`SCORE_PLACES`]), in [`UNIT`]s; 0 for a perfect of 0 or less; `None`
/// when a step passes `T`, or the score `i128`.
fn units<T: Int>(points: T, perfect: T, places: u32) -> Option<i128> {
    if !perfect.is_positive() {
        return Some(0);
    }
    let places = places.min(SCORE_PLACES);
    let scaled = points.checked_mul(&T::from(100 * 10i128.pow(places)))?;
    let score = round_quotient(scaled, perfect).to_i128()?;
    score.checked_mul(10i128.pow(SCORE_PLACES - places))
}

/// A points event's score in [`UNIT`]s: `100 * points / perfect` rounded to
/// `places` decimals (at most [`SCORE_PLACES`]), exactly.
pub fn points_units(points: i128, perfect: i128, places: u32) -> i128 {
    units(points, perfect, places)
        .or_else(|| units(BigInt::from(points), BigInt::from(perfect), places))
        .unwrap_or(0)
}

/// A driver's ranking score times `10^places` (`places` at most 18), from
/// their counted event scores in [`UNIT`]s: the mean times the few-events
/// factor, rounded half away from zero; the same number as [`round_scaled`](crate::num::round_scaled)
/// of [`driver_score`]'s score. One integer division in `i128` while the
/// products fit, else in big integers. `None` without any score.
pub fn ranking_key(units: &[i128], one: Rational, two: Rational, places: u32) -> Option<i128> {
    fn of<T: Int>(units: &[i128], factor: Rational, places: u32) -> Option<i128> {
        let sum = (units.iter()).try_fold(T::zero(), |s, &u| s.checked_add(&T::from(u)))?;
        let scale = T::from(10i128.pow(places.min(18)));
        let num = sum
            .checked_mul(&T::from(*factor.numer()))?
            .checked_mul(&scale)?;
        let n = T::from(i128::try_from(units.len()).ok()?);
        let den = n
            .checked_mul(&T::from(*factor.denom()))?
            .checked_mul(&T::from(UNIT))?;
        round_quotient(num, den).to_i128()
    }
    if units.is_empty() {
        return None;
    }
    let factor = few_events_factor(units.len(), one, two);
    of::<i128>(units, factor, places).or_else(|| of::<BigInt>(units, factor, places))
}

/// The largest denominator [`shown`] keeps: a value over at most 10^18 is
/// shown at up to 18 places by [`round_scaled`](crate::num::round_scaled) without passing `i128`.
const NARROW_DENOM: i128 = 1_000_000_000_000_000_000;

/// `n / d` (`d > 0`) as the audit shows it, an `i128` rational: exactly when
/// its denominator in lowest terms is at most 10^18 (always for the tables and
/// decays the ranges admit and a few heats), else rounded to 18 decimal places
/// (points and perfects are below 10^9, so that fits). `None` past `T` or `i128`.
fn shown<T: Int>(n: T, d: T) -> Option<Rational> {
    let r = Ratio::new(n, d);
    let exact = (r.numer().to_i128(), r.denom().to_i128());
    if let (Some(n), Some(d @ ..=NARROW_DENOM)) = exact {
        return Some(Rational::new_raw(n, d));
    }
    let scaled = r.numer().checked_mul(&T::from(NARROW_DENOM))?;
    let n = round_quotient(scaled, r.denom().clone()).to_i128()?;
    Some(Rational::new(n, NARROW_DENOM))
}

/// The place a result in tier `tier` counts as: `place + (tier - 1) * offset`
/// (a tier-2 win shows as a 2nd with offset 1). Tiers below 1 count as tier 1.
pub fn tier_place(place: u32, tier: i64, offset: i64) -> u32 {
    let shift = (tier.max(1) - 1).saturating_mul(offset.max(0));
    let shifted = i64::from(place).saturating_add(shift);
    u32::try_from(shifted).unwrap_or(u32::MAX)
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
    use num_traits::Zero;

    use super::*;
    use crate::num::{decimal_string, ratio, round_scaled};

    const FINAL: &[i64] = &[100, 60, 40, 30, 20, 10];
    const HEAT: &[i64] = &[50, 30, 20, 15];

    fn half() -> Rational {
        ratio(1, 2)
    }

    fn driver(heats: &[Option<u32>], fin: Option<Option<u32>>, n_heats: usize) -> Elimination {
        Elimination::new((FINAL, HEAT), half(), heats, fin, n_heats)
    }

    fn score(heats: &[Option<u32>], fin: Option<Option<u32>>, n_heats: usize) -> Rational {
        from_units(driver(heats, fin, n_heats).units(2))
    }

    /// A driver's points as the audit shows them.
    fn points(heats: &[Option<u32>], fin: Option<Option<u32>>) -> Rational {
        driver(heats, fin, heats.len()).shown().0
    }

    #[test]
    fn perfect_wbc_score_is_187_5_with_three_heats_and_175_with_two() {
        let perfect = |n| driver(&[], None, n).shown().1;
        assert_eq!(perfect(3), ratio(375, 2));
        assert_eq!(perfect(2), ratio(175, 1));
    }

    /// A hundred heats at a decay of six places: exact sums far past `i128`,
    /// scored and narrowed without overflow.
    #[test]
    fn many_heats_at_a_fine_decay_stay_exact_and_bounded() {
        let decay = ratio(999_999, 1_000_000);
        let places = vec![Some(1); 100];
        let all = Elimination::new((FINAL, HEAT), decay, &places, Some(Some(1)), 100);
        assert!(all.sums::<i128>().is_none(), "past i128");
        let (pts, perfect) = all.shown();
        assert_eq!(pts, perfect);
        assert_eq!(from_units(all.units(9)), ratio(100, 1));
        assert!(
            perfect > ratio(5049, 1) && perfect < ratio(5100, 1),
            "{perfect}"
        );
        let second = Elimination::new((FINAL, HEAT), decay, &[Some(2)], None, 100);
        let s = from_units(second.units(2));
        assert!(s > Rational::zero() && s < ratio(1, 1), "{s}");
    }

    /// Nine heats at a decay of 0.100896: the exact perfect has a denominator
    /// past 10^18; narrowed to 18 places it is shown as the exact value rounds.
    #[test]
    fn a_perfect_with_a_denominator_past_10_18_is_shown_as_it_rounds() {
        let decay = ratio(100_896, 1_000_000);
        let table: Vec<i64> = vec![1; 100];
        let e = Elimination::new((&table, &table), decay, &[], None, 9);
        let (_, perfect, whole) = e.sums::<BigInt>().unwrap();
        let exact = Ratio::new(perfect, whole);
        assert!(*exact.denom() > BigInt::from(NARROW_DENOM));
        let p = e.shown().1;
        assert!(*p.denom() <= NARROW_DENOM);
        let shown = round_scaled(&exact, 6);
        let want = format!("{}.{:06}", &shown / 1_000_000, &shown % 1_000_000);
        assert_eq!(decimal_string(p, 6), want);
    }

    #[test]
    fn bruce_rae_2012_heat_win_dnf_and_final_win_is_80() {
        assert_eq!(points(&[Some(1), None], Some(Some(1))), ratio(150, 1));
        assert_eq!(score(&[Some(1), None], Some(Some(1)), 3), ratio(80, 1));
    }

    #[test]
    fn a_heat_second_and_nothing_else_is_16() {
        assert_eq!(score(&[Some(2)], None, 3), ratio(16, 1));
    }

    #[test]
    fn turyko_suky_pbem_is_40_and_20_as_his_only_event() {
        assert_eq!(points(&[Some(1), Some(7)], Some(Some(5))), ratio(70, 1));
        let s = score(&[Some(1), Some(7)], Some(Some(5)), 2);
        assert_eq!(s, ratio(40, 1));
        let (_, factor, total) = driver_score(&[s], half(), ratio(3, 4)).unwrap();
        assert_eq!((factor, total), (half(), ratio(20, 1)));
    }

    #[test]
    fn heat_results_decay_best_first_whatever_their_order() {
        // a 3rd (20) and a win (50): 50 + 20/2 = 60; a 4th in a third heat adds 15/4.
        assert_eq!(points(&[Some(3), Some(1)], None), ratio(60, 1));
        assert_eq!(points(&[Some(4), Some(3), Some(1)], None), ratio(255, 4));
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
