//! The rating formulas, as pure functions of integers and exact rationals (no
//! ledger types). Every result is rounded once, half away from zero, on an exact
//! value; `factor` is the small-game factor (1 for a full game,
//! `small_game.factor` otherwise), applied before rounding.
//!
//! Every function is total: it neither panics nor loops for any `i64` rating
//! (ratings drift past their seeds' range game by game, so the formulas take
//! any rating; a rating that would pass `i64` saturates) and any admitted
//! parameter. The products are taken in `i128` with checked operations; a
//! function returns `None` when a divisor is zero or negative, a product
//! passes `i128` or the change passes `i64`, and the caller then leaves the
//! rating alone. Team sums are `i128`: a sum of `n` ratings has
//! `|sum| <= n * 2^63 < 2^127` for any number of positions an event can hold.

use crate::num::{ratio, round_half_away, round_times_sqrt, Rational};

/// Valar: `round(factor * (base + (tot_lose - tot_win) / divisor))`, as
/// `fn * (base * divisor + tot_lose - tot_win) / (fd * divisor)` for
/// `factor = fn / fd`, rounded without reducing.
pub fn valar_change(
    base: i64,
    divisor: i64,
    tot_win: i128,
    tot_lose: i128,
    factor: Rational,
) -> Option<i64> {
    if divisor <= 0 {
        return None;
    }
    let diff = tot_lose.checked_sub(tot_win)?;
    let raw = i128::from(base)
        .checked_mul(divisor.into())?
        .checked_add(diff)?;
    let numer = raw.checked_mul(*factor.numer())?;
    let denom = factor.denom().checked_mul(divisor.into())?;
    i64::try_from(round_half_away(Rational::new_raw(numer, denom))).ok()
}

/// A change held at `floor` or above (`valar.min_change`); `None` leaves it as is.
pub fn floored(change: i64, floor: Option<i64>) -> i64 {
    floor.map_or(change, |f| change.max(f))
}

/// Maia: `round(factor * (tm_av / old) * s * sqrt(end_turn))`, exactly, with
/// TmAv given as `sum / count` (the team's positions, as the fold has it):
/// one fraction `(fn * sum * s) / (fd * count * old)` reduced once, for
/// `factor = fn / fd`. `None` for no positions, a rating or turn that leaves no
/// change possible, or a value past `i128`.
pub fn maia_change(
    sum: i128,
    count: usize,
    old: i64,
    s: i64,
    end_turn: i64,
    factor: Rational,
) -> Option<i64> {
    if count == 0 || old <= 0 || end_turn < 0 {
        return None;
    }
    let numer = factor.numer().checked_mul(sum)?.checked_mul(s.into())?;
    let denom = factor
        .denom()
        .checked_mul(i128::try_from(count).ok()?)?
        .checked_mul(old.into())?;
    let n = round_times_sqrt(Rational::new(numer, denom), end_turn.into())?;
    i64::try_from(n).ok()
}

/// Istari, one nation, with the par given as `par_sum / par_games` (games > 0):
/// `round(factor * (vp - par))`, as `fn * (vp * games - sum) / (fd * games)`
/// rounded without reducing (rounding does not need it). `None` for a value
/// past `i128`.
pub fn istari_change(vp: i64, par_sum: i64, par_games: u32, factor: Rational) -> Option<i64> {
    let games = i128::from(par_games.max(1));
    // |vp * games| < 2^63 * 2^32: the difference fits i128.
    let numer = (i128::from(vp) * games - i128::from(par_sum)).checked_mul(*factor.numer())?;
    let denom = factor.denom().checked_mul(games)?;
    i64::try_from(round_half_away(Rational::new_raw(numer, denom))).ok()
}

/// Ainur: `round(factor * base * (lose_orig / win_orig) * (active / at_start))`.
pub fn ainur_change(
    base: i64,
    lose_orig: i64,
    win_orig: i64,
    active: i64,
    at_start: i64,
    factor: Rational,
) -> Option<i64> {
    if win_orig <= 0 || at_start <= 0 {
        return None;
    }
    use num_traits::CheckedMul;
    let v = [
        Rational::from_integer(base.into()),
        ratio(lose_orig.into(), win_orig.into()),
        ratio(active.into(), at_start.into()),
    ]
    .iter()
    .try_fold(factor, |v, x| v.checked_mul(x))?;
    i64::try_from(round_half_away(v)).ok()
}

/// Roster change cost: `C * C`, C = max(|added|, |removed|) (a swap of one
/// member for another is one change, not two). Saturates at `i64::MAX`.
pub fn roster_cost(added: usize, removed: usize) -> i64 {
    let c = i64::try_from(added.max(removed)).unwrap_or(i64::MAX);
    c.saturating_mul(c)
}

/// Monthly adjustment: `round(factor * (r - mean) + mean)`.
///
/// Total for any `i64` rating and mean: `monthly.factor` is from 0 to 1 with
/// at most six decimal places, so `n <= d <= 10^6` and `|n * (r - mean)|`,
/// `|mean * d|` stay below `2^84`; the result lies between `r` and `mean`,
/// so it fits `i64`.
pub fn monthly(r: i64, factor: Rational, mean: i64) -> i64 {
    // factor = n / d (d > 0): the value is (n * (r - mean) + mean * d) / d, rounded
    // from that unreduced fraction (no gcd: a tick touches every rated subject).
    let (n, d) = (*factor.numer(), *factor.denom());
    let p = n * (i128::from(r) - i128::from(mean)) + i128::from(mean) * d;
    round_half_away(Rational::new_raw(p, d)) as i64
}

/// Nazgul: `100 * won / played` as an exact percentage (0 when nothing played).
pub fn nazgul_percent(won: u32, played: u32) -> Rational {
    if played == 0 {
        return Rational::from_integer(0);
    }
    ratio(100 * i128::from(won), played.into())
}

/// The mean of `sum` over `count` positions (`None` for no positions).
pub fn mean(sum: i128, count: usize) -> Option<Rational> {
    (count > 0).then(|| ratio(sum, count as i128))
}

/// Points of the `index`-th preference (0-based) from a points table; 0 past its end.
pub fn ballot_points(table: &[i64], index: usize) -> i64 {
    table.get(index).copied().unwrap_or(0)
}

/// An exact rational as text a person can redo: `1100`, or `2201/2`.
pub fn exact(r: Rational) -> String {
    if r.is_integer() {
        r.to_integer().to_string()
    } else {
        format!("{}/{}", r.numer(), r.denom())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one() -> Rational {
        Rational::from_integer(1)
    }

    #[test]
    fn monthly_without_gcd_equals_the_exact_rational_formula() {
        for (n, d) in [(98, 100), (49, 50), (1, 3), (7, 8), (0, 1), (3, 2)] {
            let f = ratio(n, d);
            for r in (-3000..6000).step_by(7) {
                let exact =
                    f * Rational::from_integer(i128::from(r) - 1500) + Rational::from_integer(1500);
                assert_eq!(
                    monthly(r, f, 1500),
                    round_half_away(exact) as i64,
                    "{r} {n}/{d}"
                );
            }
        }
        assert_eq!(monthly(1850, ratio(98, 100), 1500), 1843);
        assert_eq!(monthly(1843, ratio(98, 100), 1500), 1836);
    }

    #[test]
    fn valar_seed_example_gives_71() {
        // 45 + (19665 - 15768) / 150 = 45 + 25.98 = 70.98 → 71.
        assert_eq!(valar_change(45, 150, 15768, 19665, one()), Some(71));
        assert_eq!(1700 + 71, 1771);
        assert_eq!(1784 - 71, 1713);
        // A what-if base of 50 gives 76.
        assert_eq!(valar_change(50, 150, 15768, 19665, one()), Some(76));
        // Small game: round(0.5 * 70.98) = round(35.49) = 35.
        assert_eq!(valar_change(45, 150, 15768, 19665, ratio(1, 2)), Some(35));
        assert_eq!(valar_change(45, 0, 1, 2, one()), None);
    }

    #[test]
    fn valar_halves_round_away_from_zero() {
        // 45 + (-6825) / 150 = 45 - 45.5 = -0.5 → -1.
        assert_eq!(valar_change(45, 150, 6825, 0, one()), Some(-1));
        // 45 + 75/150 = 45.5 → 46.
        assert_eq!(valar_change(45, 150, 0, 75, one()), Some(46));
    }

    #[test]
    fn maia_seed_examples() {
        let f = one();
        // 1250 + 1400/1250 * 4 * sqrt(30) = 1250 + 24.54 → 1275 (TmAv 2800 / 2).
        assert_eq!(maia_change(2800, 2, 1250, 4, 30, f), Some(25));
        // 1250 + 1600/1250 * 2 * sqrt(30) = 1250 + 14.02 → 1264.
        assert_eq!(maia_change(1600, 1, 1250, 2, 30, f), Some(14));
        assert_eq!(maia_change(1600, 1, 0, 2, 30, f), None);
        // Halved: 0.5 * 24.54 = 12.27 → 12.
        assert_eq!(maia_change(1400, 1, 1250, 4, 30, ratio(1, 2)), Some(12));
    }

    #[test]
    fn istari_seed_example() {
        let f = one();
        let woodmen = istari_change(1050, 1100, 1, f);
        let northmen = istari_change(1300, 2300, 2, f);
        assert_eq!((woodmen, northmen), (Some(-50), Some(150)));
        assert_eq!(1600 - 50, 1550);
        assert_eq!(1550 + 150, 1700);
        // Halved with an inexact par: 0.5 * (1000 - 2001/2) = -0.25 → 0.
        assert_eq!(istari_change(1000, 2001, 2, ratio(1, 2)), Some(0));
        assert_eq!(istari_change(1000, 2001, 2, f), Some(-1));
    }

    /// Maia and Istari past the seed: inexact means, exact halves, a negative
    /// factor, no change possible, and values past `i128`.
    #[test]
    fn maia_and_istari_edge_cases() {
        let maia = maia_change;
        // 15768/11 / 1777 * 2 * 0.98 * sqrt(45) = 10.61 → 11.
        assert_eq!(maia(15_768, 11, 1777, 2, 45, ratio(49, 50)), Some(11));
        // 3125/2 / 1250 * sqrt(4) = 2.5 exactly → 3, and -3 with factor -1.
        assert_eq!(maia(3125, 2, 1250, 1, 4, one()), Some(3));
        assert_eq!(maia(3125, 2, 1250, 1, 4, ratio(-1, 1)), Some(-3));
        // -5/2 / 1250 * 4 * sqrt(30) = -0.04 → 0; -3/7 * 1400/1777 * 4 * sqrt(30) = -7.40 → -7.
        assert_eq!(maia(-5, 2, 1250, 4, 30, one()), Some(0));
        assert_eq!(maia(2800, 2, 1777, 4, 30, ratio(-3, 7)), Some(-7));
        assert_eq!(maia(2800, 2, 1250, 3, 0, one()), Some(0));
        for (n, old, turn) in [(0, 1250, 30), (2, 0, 30), (2, -1, 30), (2, 1250, -1)] {
            assert_eq!(maia(2800, n, old, 4, turn, one()), None);
        }
        // 2^64 * 2^40 * 2^26 passes i128.
        let big = 1_i64 << 62;
        let f = ratio(1 << 64, 1);
        assert_eq!(maia(1 << 40, big as usize, big, 1 << 26, 30, f), None);

        // 0.98 * (1300 - 123457/91) = -55.54 → -56; -3/7 * (1000 - 2001/2) = 3/14 → 0.
        assert_eq!(istari_change(1300, 123_457, 91, ratio(49, 50)), Some(-56));
        assert_eq!(istari_change(1000, 2001, 2, ratio(-3, 7)), Some(0));
        // 3^30 / 2^70 * 2^62 = 3^30 / 2^8 = 804262234744.72 → 804262234745.
        let f = ratio(3_i128.pow(30), 1 << 70);
        assert_eq!(istari_change(1 << 62, 0, 1, f), Some(804_262_234_745));
        // 2^62 * 3^50 passes i128.
        let f = ratio(3_i128.pow(50), 1 << 100);
        assert_eq!(istari_change(1 << 62, 0, 1, f), None);
    }

    #[test]
    fn ainur_seed_example() {
        // 60 * 1450/1500 * 8/12 = 38.67 → 39: 1539 and 1411.
        let c = ainur_change(60, 1450, 1500, 8, 12, one());
        assert_eq!(c, Some(39));
        assert_eq!((1500 + 39, 1450 - 39), (1539, 1411));
        assert_eq!(ainur_change(60, 1450, 0, 8, 12, one()), None);
    }

    #[test]
    fn roster_costs_are_squares() {
        assert_eq!(roster_cost(1, 0), 1);
        assert_eq!(roster_cost(2, 2), 4);
        assert_eq!(roster_cost(5, 3), 25);
    }

    #[test]
    fn monthly_seed_example_and_exact_halves() {
        let f = ratio(98, 100);
        assert_eq!(monthly(1850, f, 1500), 1843);
        assert_eq!(monthly(1843, f, 1500), 1836);
        // 0.98 * 75 = 73.5 exactly → 74 (f64 gives 73.4999… → 73).
        assert_eq!(monthly(1575, f, 1500), 1574);
        // Below the mean the whole value rounds: -73.5 + 1500 = 1426.5 → 1427.
        assert_eq!(monthly(1425, f, 1500), 1427);
        assert_eq!(monthly(1500, f, 1500), 1500);
    }

    #[test]
    fn nazgul_four_of_five_is_80() {
        assert_eq!(nazgul_percent(4, 5), Rational::from_integer(80));
        assert_eq!(nazgul_percent(0, 0), Rational::from_integer(0));
    }

    #[test]
    fn helpers() {
        assert_eq!(mean(2800, 2), Some(Rational::from_integer(1400)));
        assert_eq!(mean(1, 0), None);
        assert_eq!(ballot_points(&[3, 2, 1], 1), 2);
        assert_eq!(ballot_points(&[3, 2, 1], 3), 0);
        assert_eq!(exact(ratio(2201, 2)), "2201/2");
        assert_eq!(exact(Rational::from_integer(1100)), "1100");
    }
}
