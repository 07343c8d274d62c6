//! The integer scores ([`Elimination::units`], [`points_units`],
//! [`ranking_key`]) against the same numbers in plain big rationals.

use proptest::prelude::*;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;

use super::*;
use crate::num::round_scaled;

/// A driver's decayed points in plain big rationals, as the rules say it:
/// the best heat in full, the 2nd times `decay`, the 3rd times `decay²`, ...
/// and the final on top.
fn plain_points(
    table: (&[i64], &[i64]),
    decay: Rational,
    heats: &[Option<u32>],
    fin: Option<Option<u32>>,
) -> BigRational {
    let big = |n: i128| BigRational::from_integer(BigInt::from(n));
    let d = BigRational::new(BigInt::from(*decay.numer()), BigInt::from(*decay.denom()));
    let mut pts: Vec<i128> = heats.iter().map(|&p| table_points(table.1, p)).collect();
    pts.sort_unstable_by(|a, b| b.cmp(a));
    let mut weight = BigRational::one();
    let mut sum = big(fin.map_or(0, |p| table_points(table.0, p)));
    for p in pts {
        sum += big(p) * &weight;
        weight *= &d;
    }
    sum
}

/// `r` rounded half away from zero to `places` decimals, in [`UNIT`]s.
fn exact_units(r: &BigRational, places: u32) -> i128 {
    let scaled = (r * BigInt::from(10).pow(places)).round().to_integer();
    i128::try_from(scaled * BigInt::from(10).pow(SCORE_PLACES - places)).unwrap()
}

/// A table as validation admits it: points within a million a place, in any
/// order (a table may rise with place), its win possibly 0.
fn table() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(0i64..=1_000_000, 1..6)
}

/// A decay from 0 to 1 with up to six places, small and fine denominators.
fn decay() -> impl Strategy<Value = Rational> {
    prop_oneof![
        (0i128..=4, 1i128..=4).prop_map(|(a, b)| Rational::new(a.min(b), b)),
        (0i128..=1_000_000).prop_map(|a| Rational::new(a, 1_000_000)),
    ]
}

fn place() -> impl Strategy<Value = Option<u32>> {
    prop_oneof![Just(None), (1u32..=8).prop_map(Some)]
}

proptest! {
    #[test]
    fn elimination_units_are_the_exact_score_rounded(
        fin_table in table(),
        heat_table in table(),
        decay in decay(),
        heats in 1usize..=40,
        mine in prop::collection::vec(place(), 0..6),
        fin in prop_oneof![Just(None), place().prop_map(Some)],
        places in 0u32..=SCORE_PLACES,
    ) {
        let mine = &mine[..mine.len().min(heats)];
        let tables = (&fin_table[..], &heat_table[..]);
        let got = Elimination::new(tables, decay, mine, fin, heats).units(places);
        let points = plain_points(tables, decay, mine, fin);
        let perfect = plain_points(tables, decay, &vec![Some(1); heats], Some(Some(1)));
        // A perfect of 0 (both wins worth nothing) scores 0.
        let want = match perfect > BigRational::zero() {
            true => exact_units(&(BigRational::from_integer(100.into()) * points / perfect), places),
            false => 0,
        };
        prop_assert_eq!(got, want);
    }

    #[test]
    fn points_units_are_the_exact_score_rounded(
        points in 0i128..=100_000_000_000,
        perfect in 1i128..=100_000_000_000,
        places in 0u32..=SCORE_PLACES,
    ) {
        let score = BigRational::new((100 * points).into(), perfect.into());
        prop_assert_eq!(points_units(points, perfect, places), exact_units(&score, places));
    }

    #[test]
    fn ranking_keys_are_the_exact_mean_times_the_factor_rounded(
        units in prop::collection::vec(0i128..=100 * UNIT, 1..8),
        one in 0i128..=1_000_000,
        two in 0i128..=1_000_000,
        places in 0u32..=SCORE_PLACES,
    ) {
        let (one, two) = (Rational::new(one, 1_000_000), Rational::new(two, 1_000_000));
        let scores: Vec<Rational> = units.iter().map(|&u| from_units(u)).collect();
        let (.., score) = driver_score(&scores, one, two).unwrap();
        let want = round_scaled(&score, places);
        prop_assert_eq!(ranking_key(&units, one, two, places), Some(want));
    }
}

/// Scores past `i128` in every product go through big integers: a hundred
/// heats at a decay of six places, and units whose sum passes `i128`.
#[test]
fn overflowing_products_fall_back_to_big_integers() {
    let decay = Rational::new(999_999, 1_000_000);
    let t = [1_000_000; 100];
    let all = vec![Some(1); 100];
    let got = Elimination::new((&t, &t), decay, &all, Some(Some(1)), 100).units(9);
    assert_eq!(got, 100 * UNIT);
    let half = Rational::new(1, 2);
    let huge = vec![i128::MAX / 2; 4];
    let want = BigRational::from_integer(BigInt::from(i128::MAX / 2)) * BigInt::from(1_000_000_000)
        / BigInt::from(UNIT);
    let key = ranking_key(&huge, half, half, 9);
    assert_eq!(key, i128::try_from(want.round().to_integer()).ok());
}
