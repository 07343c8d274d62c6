//! The rating formulas, as pure functions of integers and exact rationals (no
//! ledger types). Every result is rounded once, half away from zero, on an exact
//! value; `factor` is the small-game factor (1 for a full game,
//! `small_game.factor` otherwise), applied before rounding.
//!
//! Functions that divide return `None` when a divisor is zero or negative (only
//! reachable through a rules change or an absurd rating): the caller then leaves
//! the rating alone instead of panicking.

use crate::num::{ratio, round_half_away, round_times_sqrt, Rational};

/// Valar: `round(factor * (base + (tot_lose - tot_win) / divisor))`.
pub fn valar_change(
    base: i64,
    divisor: i64,
    tot_win: i64,
    tot_lose: i64,
    factor: Rational,
) -> Option<i64> {
    if divisor <= 0 {
        return None;
    }
    let raw = Rational::from_integer(base.into())
        + ratio(i128::from(tot_lose) - i128::from(tot_win), divisor.into());
    Some(round_half_away(factor * raw) as i64)
}

/// Maia: `round(factor * (tm_av / old) * s * sqrt(end_turn))`, exactly.
pub fn maia_change(
    tm_av: Rational,
    old: i64,
    s: i64,
    end_turn: i64,
    factor: Rational,
) -> Option<i64> {
    if old <= 0 || end_turn < 0 {
        return None;
    }
    let a = factor * tm_av / Rational::from_integer(old.into()) * Rational::from_integer(s.into());
    Some(round_times_sqrt(a, end_turn.into()) as i64)
}

/// [`maia_change`] with TmAv given as `sum / count` (`None` for no positions),
/// the form the fold has: one fraction reduced instead of a chain of products.
pub fn maia_change_of_sum(
    sum: i64,
    count: usize,
    old: i64,
    s: i64,
    end_turn: i64,
    factor: Rational,
) -> Option<i64> {
    if count == 0 || old <= 0 || end_turn < 0 {
        return None;
    }
    // factor * (sum / count) / old * s = (fn * sum * s) / (fd * count * old).
    let numer = factor
        .numer()
        .checked_mul(sum.into())
        .and_then(|x| x.checked_mul(s.into()));
    let denom = factor
        .denom()
        .checked_mul(count as i128)
        .and_then(|x| x.checked_mul(old.into()));
    match (numer, denom) {
        (Some(n), Some(d)) => Some(round_times_sqrt(Rational::new(n, d), end_turn.into()) as i64),
        _ => mean(sum, count).and_then(|tm| maia_change(tm, old, s, end_turn, factor)),
    }
}

/// Istari, one nation, with the par given as `par_sum / par_games` (games > 0):
/// `round(factor * (vp - par))` without reducing any fraction (rounding does
/// not need it; the denominator stays positive).
pub fn istari_change_of_sum(vp: i64, par_sum: i64, par_games: u32, factor: Rational) -> i64 {
    let games = i128::from(par_games.max(1));
    // factor * (vp - sum / games) = fn * (vp * games - sum) / (fd * games).
    let numer = (i128::from(vp) * games - i128::from(par_sum)).checked_mul(*factor.numer());
    let denom = factor.denom().checked_mul(games);
    match (numer, denom) {
        (Some(n), Some(d)) => round_half_away(Rational::new_raw(n, d)) as i64,
        _ => istari_change(vp, ratio(par_sum.into(), games), factor),
    }
}

/// Istari, one nation: `round(factor * (vp - par))`.
pub fn istari_change(vp: i64, par: Rational, factor: Rational) -> i64 {
    round_half_away(factor * (Rational::from_integer(vp.into()) - par)) as i64
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
    let v = factor
        * Rational::from_integer(base.into())
        * ratio(lose_orig.into(), win_orig.into())
        * ratio(active.into(), at_start.into());
    Some(round_half_away(v) as i64)
}

/// Roster change cost: `C * C`, C = max(|added|, |removed|) (a swap of one
/// member for another is one change, not two).
pub fn roster_cost(added: usize, removed: usize) -> i64 {
    let c = added.max(removed) as i64;
    c * c
}

/// Monthly adjustment: `round(factor * (r - mean) + mean)`.
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
pub fn mean(sum: i64, count: usize) -> Option<Rational> {
    (count > 0).then(|| ratio(sum.into(), count as i128))
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
        // 1250 + 1400/1250 * 4 * sqrt(30) = 1250 + 24.54 → 1275.
        assert_eq!(
            maia_change(Rational::from_integer(1400), 1250, 4, 30, f),
            Some(25)
        );
        // 1250 + 1600/1250 * 2 * sqrt(30) = 1250 + 14.02 → 1264.
        assert_eq!(
            maia_change(Rational::from_integer(1600), 1250, 2, 30, f),
            Some(14)
        );
        assert_eq!(maia_change(Rational::from_integer(1600), 0, 2, 30, f), None);
        // Halved: 0.5 * 24.54 = 12.27 → 12.
        assert_eq!(
            maia_change(Rational::from_integer(1400), 1250, 4, 30, ratio(1, 2)),
            Some(12)
        );
    }

    #[test]
    fn istari_seed_example() {
        let f = one();
        let woodmen = istari_change(1050, Rational::from_integer(1100), f);
        let northmen = istari_change(1300, Rational::from_integer(1150), f);
        assert_eq!((woodmen, northmen), (-50, 150));
        assert_eq!(1600 + woodmen, 1550);
        assert_eq!(1550 + northmen, 1700);
        // Halved with an inexact par: 0.5 * (1000 - 2001/2) = -0.25 → 0.
        assert_eq!(istari_change(1000, ratio(2001, 2), ratio(1, 2)), 0);
        assert_eq!(istari_change(1000, ratio(2001, 2), f), -1);
    }

    #[test]
    fn the_sum_forms_equal_the_rational_formulas() {
        let factors = [one(), ratio(1, 2), ratio(49, 50), ratio(-3, 7)];
        for f in factors {
            for vp in (0..3000).step_by(37) {
                for (sum, games) in [(1, 1), (2001, 2), (5000, 3), (-7, 4), (123_457, 91)] {
                    let par = ratio(sum.into(), games.into());
                    assert_eq!(
                        istari_change_of_sum(vp, sum, games, f),
                        istari_change(vp, par, f),
                        "{vp} {sum}/{games}"
                    );
                }
            }
            for (sum, n) in [(0, 0), (2800, 2), (15_768, 11), (1401, 3), (-5, 2)] {
                for old in [-1, 0, 1, 1250, 1777] {
                    for (s, turn) in [(4, 30), (3, 0), (2, 45), (4, -1)] {
                        let exact = mean(sum, n).and_then(|tm| maia_change(tm, old, s, turn, f));
                        assert_eq!(maia_change_of_sum(sum, n, old, s, turn, f), exact);
                    }
                }
            }
        }
        // Products past i128 take the exact fallbacks (the chains reduce first).
        let f = ratio(3_i128.pow(50), 1 << 100);
        let i = istari_change_of_sum(1 << 62, 0, 1 << 31, f);
        assert_eq!(i, istari_change(1 << 62, ratio(0, 1), f));
        assert_eq!(i, round_half_away(ratio(3_i128.pow(50), 1 << 38)) as i64);
        let (f, big) = (ratio(1 << 64, 1), 1_i64 << 62);
        let tm = ratio(1 << 40, i128::from(big));
        let m = maia_change_of_sum(1 << 40, big as usize, big, 1 << 26, 30, f);
        assert_eq!(m, maia_change(tm, big, 1 << 26, 30, f));
        assert_eq!(m, Some(351)); // round(64 * sqrt(30)) = round(350.54)
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
