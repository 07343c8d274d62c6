//! The rule computations at the edges of what the ranges admit: any `i64`
//! rating (ratings drift past their seeds' range), every parameter at either
//! end of its range, event fields at the ends of theirs. Each computation
//! returns (no panic, no overflow: the test profile checks overflow) and stays
//! within the bound stated beside it.

use std::time::{Duration, Instant};

use laurel::num::{decimal_string, ratio, round_times_sqrt, Rational};
use laurel::systems::cards::points;
use laurel::systems::cfr::math as cfr;
use laurel::systems::diplomacy::math as dip;
use laurel::systems::mepbm::math as mepbm;
use laurel::systems::sbr::events::score_bounds;
use laurel::systems::sbr::math as sbr;
use num_bigint::BigInt;
use proptest::prelude::*;

/// A ratings value: any `i64`, with its ends and the seed range's ends often.
fn rating() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(1),
        Just(1_000_000),
        1i64..=1_000_000,
        any::<i64>(),
    ]
}

/// A factor as the parameters admit one: 0 to 1 with at most six places.
fn factor() -> impl Strategy<Value = Rational> {
    prop_oneof![
        Just(ratio(0, 1)),
        Just(ratio(1, 1)),
        Just(ratio(999_999, 1_000_000)),
        (0i128..=1_000_000).prop_map(|n| ratio(n, 1_000_000)),
    ]
}

/// `lo..=hi`, its ends often.
fn within(lo: i64, hi: i64) -> impl Strategy<Value = i64> {
    prop_oneof![Just(lo), Just(hi), lo..=hi]
}

fn quick(start: Instant) -> Result<(), TestCaseError> {
    prop_assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `round(|a| sqrt(t))` is the integer the squares bracket: one integer
    /// square root, no search, whatever the sizes.
    #[test]
    fn exact_square_root_rounding_is_bracketed_by_squares(
        p in prop_oneof![Just(1i128), Just(i128::from(i64::MAX)), 1i128..=1 << 62],
        q in within(1, 1_000_000),
        t in prop_oneof![Just(0i128), Just(1), Just(1000), 0i128..=i128::from(i64::MAX)],
    ) {
        let start = Instant::now();
        let got = round_times_sqrt(ratio(p, i128::from(q)), t);
        quick(start)?;
        let (p, q, t) = (BigInt::from(p), BigInt::from(q), BigInt::from(t));
        let target = BigInt::from(4) * &p * &p * &t;
        match got {
            None => prop_assert!(target > BigInt::from(i128::MAX)),
            Some(n) => {
                let side = |m: i128| {
                    let x = BigInt::from(2 * m + 1) * &q;
                    &x * &x
                };
                prop_assert!(n >= 0);
                prop_assert!(target < side(n));
                prop_assert!(n == 0 || side(n - 1) <= target);
            }
        }
    }

    /// Valar: `|change| <= base + |TotLose - TotWin| / divisor + 1`.
    #[test]
    fn valar_changes_are_total_and_bounded(
        base in within(0, 10_000),
        divisor in within(1, 1_000_000),
        win in rating(),
        lose in rating(),
        positions in 1i128..=3_000,
        f in factor(),
    ) {
        let (tw, tl) = (i128::from(win) * positions, i128::from(lose) * positions);
        if let Some(c) = mepbm::valar_change(base, divisor, tw, tl, f) {
            let bound = i128::from(base) + (tl - tw).abs() / i128::from(divisor) + 1;
            prop_assert!(i128::from(c).abs() <= bound, "{c} > {bound}");
        }
    }

    /// Maia: within a half (plus the float error of the check) of
    /// `factor * TmAv / old * S * sqrt(turn)`.
    #[test]
    fn maia_changes_are_total_and_bounded(
        mate in rating(),
        positions in 1usize..=3_000,
        old in rating(),
        s in within(0, 1_000),
        turn in within(0, 1_000),
        f in factor(),
    ) {
        let start = Instant::now();
        let sum = i128::from(mate) * positions as i128;
        let got = mepbm::maia_change(sum, positions, old, s, turn, f);
        quick(start)?;
        if old <= 0 {
            prop_assert_eq!(got, None);
        }
        if let Some(c) = got {
            let f = *f.numer() as f64 / *f.denom() as f64;
            let want = f * mate as f64 / old as f64 * s as f64 * (turn as f64).sqrt();
            prop_assert!((c as f64 - want).abs() <= 0.5 + want.abs() * 1e-9, "{c} vs {want}");
        }
    }

    /// Istari and Ainur: total for any rating; Istari's change is
    /// `factor * (VP - par)` within a half, Ainur's at most `base`.
    #[test]
    fn istari_and_ainur_changes_are_total_and_bounded(
        vp in within(0, 1_000_000),
        par_sum in rating(),
        games in prop_oneof![Just(1u32), Just(u32::MAX), any::<u32>()],
        base in within(0, 10_000),
        lose in rating(),
        win in rating(),
        at_start in 1i64..=3_000,
        active_share in 0i64..=3_000,
        f in factor(),
    ) {
        if let Some(c) = mepbm::istari_change(vp, par_sum, games, f) {
            let par = par_sum as f64 / f64::from(games.max(1));
            let f = *f.numer() as f64 / *f.denom() as f64;
            let want = f * (vp as f64 - par);
            prop_assert!((c as f64 - want).abs() <= 0.5 + want.abs() * 1e-9);
        }
        let active = active_share.min(at_start);
        let c = mepbm::ainur_change(base, lose, win, active, at_start, f);
        if win > 0 && lose >= 0 && lose <= win {
            let c = c.unwrap();
            prop_assert!((0..=base).contains(&c), "{c}");
        }
    }

    /// The monthly pull lands between the rating and the mean; roster costs
    /// saturate.
    #[test]
    fn monthly_pulls_stay_between_rating_and_mean(
        r in rating(),
        mean in within(0, 1_000_000),
        f in factor(),
        added in prop_oneof![0..100_000usize, any::<usize>()],
        removed in prop_oneof![0..100_000usize, any::<usize>()],
    ) {
        let m = mepbm::monthly(r, f, mean);
        prop_assert!(m >= r.min(mean) && m <= r.max(mean), "{m}");
        // The larger count squared, or i64::MAX once that does not fit.
        let c = u128::try_from(added.max(removed)).unwrap();
        let want = c.checked_mul(c).map_or(i64::MAX, |sq| i64::try_from(sq).unwrap_or(i64::MAX));
        prop_assert_eq!(mepbm::roster_cost(added, removed), want);
    }

    /// CFR elimination events up to the most heats an event may run, at
    /// the finest decay, with tables at the top of their range: scored in
    /// under a second, each score from 0 to 100.
    #[test]
    fn cfr_elimination_scores_stay_within_0_and_100(
        heats in prop_oneof![Just(100usize), 1usize..=100],
        decay in prop_oneof![Just(999_999i128), Just(1), 0i128..=1_000_000],
        win in within(1, 1_000_000),
        places in proptest::collection::vec(prop_oneof![Just(None), (1u32..=100).prop_map(Some)], 1..=100),
        fin in prop_oneof![Just(None), Just(Some(None)), (1u32..=100).prop_map(|p| Some(Some(p)))],
        decimals in 0u32..=9,
    ) {
        let start = Instant::now();
        let decay = ratio(decay, 1_000_000);
        // Non-increasing tables of 100 places, the win at the top.
        let table: Vec<i64> = (0..100).map(|i| win - win * i / 100).collect();
        let run = &places[..places.len().min(heats)];
        let driver = cfr::Elimination::new((&table, &table), decay, run, fin, heats);
        let score = cfr::from_units(driver.units(decimals));
        let (p, q) = driver.shown();
        quick(start)?;
        prop_assert!(score >= ratio(0, 1) && score <= ratio(100, 1), "{score}");
        // Narrowed exactly, or to 18 places where the denominator passes 10^18.
        let exact = 10i128.pow(18);
        prop_assert!(*p.denom() <= exact && *q.denom() <= exact, "{p} {q}");
        let ulp = ratio(1, exact);
        prop_assert!(p >= ratio(0, 1) && p <= q + ulp, "{p} > {q}");
        // Shown to 6 places without passing i128 (a wrapped product shows garbage).
        let shown: f64 = decimal_string(q, 6).parse().unwrap();
        let q = *q.numer() as f64 / *q.denom() as f64;
        prop_assert!((shown - q).abs() <= 5e-7 + q * 1e-12, "{shown} {q}");
        let (_, _, s) = cfr::driver_score(&[score; 1000], decay, decay).unwrap();
        prop_assert!(s <= ratio(100, 1));
    }

    /// Cards: score points within the clamp, awards summing without
    /// overflow at the ends of the scores' and the tables' ranges.
    #[test]
    fn cards_awards_are_total(
        scores in proptest::collection::vec(within(-1_000_000, 1_000_000), 3..=4),
        divisor in within(1, 1_000_000),
        clamp in within(0, 1_000_000),
        strength in 1i64..=1_000,
        top in within(0, 1_000_000),
    ) {
        let s = points::score_points(scores[0], divisor, clamp);
        prop_assert!(s.abs() <= clamp);
        let rules = points::Rules {
            system2_four: vec![top; 4],
            system2_three_one_positive: vec![top; 4],
            system2_three_otherwise: vec![top; 4],
            score_divisor: divisor,
            score_clamp: clamp,
            ..Default::default()
        };
        for a in points::awards(2, &scores, strength, &rules) {
            prop_assert!(a.total() <= top + strength + clamp);
        }
    }

    /// SBR: every base on a bonus tile at the largest multiplier scores the
    /// top of the score range, not past it.
    #[test]
    fn sbr_scores_stay_within_their_range(mult in within(1, 1_000), bonus in any::<bool>()) {
        let bases: Vec<(&str, bool)> = sbr::PIECES.iter().map(|(p, _)| (*p, bonus)).collect();
        let score = sbr::game_score_of(bases, mult).unwrap();
        prop_assert!(score_bounds(mult).contains(score));
        prop_assert_eq!(score == score_bounds(mult).max, bonus || mult == 1);
    }

    /// Diplomacy: the largest board's centers on the most powers an event
    /// holds; Fibonacci and Sum-of-Squares shares add up to 1, Carnage stays
    /// below `N * rank_points + (centre_points + leader_bonus) * centers`.
    #[test]
    fn diplomacy_scores_are_total(
        centers in proptest::collection::vec(within(0, 1_000_000), 2..=200),
        rank_points in within(0, 1_000_000),
        centre_points in within(0, 1_000_000),
        leader_bonus in within(0, 1_000_000),
        base in 0i64..=1,
    ) {
        let start = Instant::now();
        let seats: Vec<dip::Seat> = centers
            .iter()
            .map(|&c| dip::Seat {
                centers: c,
                eliminated: (c == 0).then_some(1901),
                surrendered: false,
                in_draw: c > 0,
            })
            .collect();
        let one = dip::frac(1, 1);
        let fib: dip::Score = dip::fibonacci_draw(&seats, base).iter().sum();
        prop_assert!(fib == one || fib == dip::frac(0, 1));
        let n = seats.len() as i64;
        let rules = dip::CarnageRules {
            rank_points,
            centre_points,
            eliminated: laurel::systems::diplomacy::params::Eliminated::Tied,
            leader_bonus,
            centers_total: 1_000_000,
        };
        let most = n * rank_points + (centre_points + leader_bonus) * 1_000_000;
        for s in dip::carnage_draw(&seats, &rules) {
            prop_assert!(s <= dip::frac(most, 1));
        }
        if centers.iter().any(|&c| c > 0) {
            let sos: dip::Score = dip::sos_draw(&seats).iter().sum();
            prop_assert_eq!(sos, one);
        }
        quick(start)?;
    }
}
