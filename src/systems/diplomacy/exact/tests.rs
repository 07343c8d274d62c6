//! [`exact_sum`] and [`Bounds`] against plain big-rational arithmetic.

use proptest::prelude::*;

use super::*;

/// The plain sum: one big rational added at a time.
fn plain(scores: &[Exact]) -> BigRational {
    scores.iter().fold(BigRational::zero(), |s, x| s + x.big())
}

/// `r` times 2^64, exactly.
fn fixed(r: &BigRational) -> BigRational {
    r * BigInt::from(1u128 << 64)
}

fn point((whole, fraction): Fixed) -> BigRational {
    BigRational::from_integer(BigInt::from(whole) * BigInt::from(1u128 << 64) + fraction)
}

/// A score as the systems make them, extremes included: Sum-of-Squares
/// denominators up to 10^12, Carnage numerators up to its largest prize,
/// Fibonacci's `i128` fractions up to 2^113, and big ones.
fn score() -> impl Strategy<Value = Exact> {
    prop_oneof![
        (0i128..=1_000_000_000_000, 1i128..=1_000_000_000_000)
            .prop_map(|(n, d)| Exact::new(n % (d + 1), d)),
        (0i128..=1 << 60, 1i128..=65_536).prop_map(|(n, d)| Exact::new(n, d)),
        (1i128..=1 << 113, 1i128..=1 << 113).prop_map(|(a, b)| Exact::new(a.min(b), a.max(b))),
        (1u32..=400, 1i128..=7).prop_map(|(e, d)| {
            let n = BigInt::from(3) * BigInt::from(2).pow(e);
            Exact::Big(BigRational::new(n.clone(), n * d + 1))
        }),
        (1i128..=7, -5i128..=5).prop_map(|(d, n)| Exact::new(n, d)),
    ]
}

proptest! {
    #[test]
    fn exact_sums_equal_plain_sums(scores in prop::collection::vec(score(), 0..60)) {
        prop_assert_eq!(exact_sum(&scores), plain(&scores));
    }

    #[test]
    fn bounds_hold_the_total(scores in prop::collection::vec(score(), 0..60)) {
        let mut b = Bounds::default();
        for s in &scores {
            b.add(s);
        }
        let (lo, hi) = b.interval().unwrap();
        let x = fixed(&plain(&scores));
        prop_assert!(point(lo) <= x && x <= point(hi), "{lo:?} {x} {hi:?}");
    }

    #[test]
    fn running_totals_hold_the_total(scores in prop::collection::vec(score(), 0..60)) {
        let mut t = Total::default();
        for s in &scores {
            t.add(s);
        }
        let sum = plain(&scores);
        if let Some((n, d)) = t.running() {
            prop_assert_eq!(BigRational::new(n.into(), d.into()), sum.clone());
        }
        let (lo, hi) = t.interval().unwrap();
        let x = fixed(&sum);
        prop_assert!(point(lo) <= x && x <= point(hi), "{lo:?} {x} {hi:?}");
    }
}

/// Totals that fit `i128` at no step, and equal ones from different games.
#[test]
fn sums_pass_i128_exactly() {
    let big = Exact::new(i128::MAX, 1);
    let twice = exact_sum(&[big.clone(), big.clone(), Exact::new(1, 3)]);
    assert_eq!(twice, plain(&[big.clone(), big, Exact::new(1, 3)]));
    let primes = [1_000_000_007i128, 998_244_353, 1_000_000_009, 999_999_937];
    let odd: Vec<Exact> = primes.iter().map(|&p| Exact::new(p - 1, p)).collect();
    assert_eq!(exact_sum(&odd), plain(&odd));
    let halves = [Exact::new(1, 2), Exact::new(2, 4), Exact::new(3, 6)];
    assert_eq!(exact_sum(&halves), BigRational::new(3.into(), 2.into()));
    let d = (1i128 << 100) + 1;
    let mut b = Bounds::default();
    b.add(&Exact::new(d - 1, d));
    let (lo, hi) = b.interval().unwrap();
    assert_eq!((lo, hi), ((0, u64::MAX), (1, 0)));
}

mod games {
    //! Whole games as validation admits them, scored by the systems and
    //! summed and ordered: what each system's scores add up to, and players'
    //! totals ordered as their big-rational sums.

    use proptest::prelude::*;

    use super::super::super::math::{self, CarnageRules, Seat};
    use super::super::super::order::Entries;
    use super::super::super::params::Eliminated;
    use super::*;

    fn q(n: impl Into<BigInt>, d: impl Into<BigInt>) -> BigRational {
        let d = d.into();
        match d.is_zero() {
            true => BigRational::zero(),
            false => BigRational::new(n.into(), d),
        }
    }

    /// A board: up to 200 powers (past [`math::FIB_SMALL`]), centres adding up
    /// to at most 10^6, some eliminated, some surrendered.
    fn board() -> impl Strategy<Value = Vec<Seat>> {
        let seat = (0i64..=3, 0i64..=1_000_000, 1i64..=9_999, any::<bool>());
        prop::collection::vec(seat, 2..=200).prop_map(|raw| {
            let mut left = 1_000_000i64;
            raw.into_iter()
                .map(|(kind, c, year, vote)| {
                    let centers = match kind {
                        0 => 0,
                        _ => c.min(left) / (1 + kind * 1000 % 7),
                    };
                    left -= centers;
                    Seat {
                        centers,
                        eliminated: (centers == 0).then_some(year),
                        surrendered: kind == 3,
                        in_draw: centers > 0 && vote,
                    }
                })
                .collect()
        })
    }

    fn rules() -> impl Strategy<Value = CarnageRules> {
        let big = prop_oneof![Just(0i64), Just(1), Just(1_000_000), 0i64..=1_000_000];
        (
            big.clone(),
            big.clone(),
            big,
            any::<bool>(),
            1i64..=1_000_000,
        )
            .prop_map(
                |(rank_points, centre_points, leader_bonus, tied, centers_total)| CarnageRules {
                    rank_points,
                    centre_points,
                    eliminated: if tied {
                        Eliminated::Tied
                    } else {
                        Eliminated::ByYear
                    },
                    leader_bonus,
                    centers_total,
                },
            )
    }

    /// Does every seat ranked ahead of another (a better shared rank range)
    /// score at least as much?
    fn by_rank(scores: &[Exact], ranks: &[(usize, usize)]) -> bool {
        let big: Vec<BigRational> = scores.iter().map(Exact::big).collect();
        (0..ranks.len())
            .flat_map(|i| (0..ranks.len()).map(move |j| (i, j)))
            .all(|(i, j)| ranks[i].1 >= ranks[j].0 || big[i] >= big[j])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// What each system's scores of a board add up to, as its rule says
        /// (Fibonacci's shares, a draw's and Sum-of-Squares' all 1;
        /// Carnage's every rank's points, every centre's and the leader's
        /// bonus), summed exactly; a better rank never scores less; a seat
        /// out of the draw has no DSS share, one without centres no SoS share.
        #[test]
        fn each_systems_scores_add_up_and_follow_the_ranks(
            seats in board(), base in 0i64..=1, r in rules()
        ) {
            let n = seats.len() as i64;
            let fibonacci = math::fibonacci_draw(&seats, base);
            prop_assert_eq!(exact_sum(&fibonacci), q(1, 1));
            prop_assert!(by_rank(&fibonacci, &math::shared_ranks(&seats)));

            let carnage = math::carnage_draw(&seats, &r);
            let centers: i64 = seats.iter().map(|s| s.centers).sum();
            let bonus = math::sole_leader(&seats).map_or(0, |(_, lead)| lead);
            let points = BigInt::from(r.rank_points) * (n * (n + 1) / 2)
                + BigInt::from(r.centre_points) * centers
                + BigInt::from(r.leader_bonus) * bonus;
            prop_assert_eq!(exact_sum(&carnage), q(points, 1));
            if r.centre_points == 0 && r.leader_bonus == 0 {
                prop_assert!(by_rank(&carnage, &math::ranks_with(&seats, r.eliminated)));
            }

            let dss = math::dss_draw(&seats);
            let drawn = seats.iter().filter(|s| s.in_draw).count();
            prop_assert_eq!(exact_sum(&dss), q(i64::from(drawn > 0), 1));
            for (s, score) in seats.iter().zip(&dss) {
                prop_assert_eq!(score.big(), q(i64::from(s.in_draw), drawn as i64));
            }

            let sos = math::sos_draw(&seats);
            prop_assert_eq!(exact_sum(&sos), q(i64::from(centers > 0), 1));
            let shares: Vec<BigRational> = sos.iter().map(Exact::big).collect();
            for (a, sa) in seats.iter().zip(&shares) {
                prop_assert_eq!(a.centers == 0, sa.is_zero());
                for (b, sb) in seats.iter().zip(&shares) {
                    prop_assert!(a.centers <= b.centers || sa > sb);
                }
            }
            for scores in [&fibonacci, &carnage, &dss, &sos] {
                prop_assert_eq!(exact_sum(scores), plain(scores));
            }
        }

        /// Players' totals over many games come out in the order, and with the
        /// ties, that sorting their big-rational sums gives.
        #[test]
        fn players_are_ordered_as_their_exact_totals(
            games in prop::collection::vec((board(), 0i64..=1, rules(), 0usize..4), 1..12),
            seats_of in prop::collection::vec(0u32..6, 200),
        ) {
            let mut entries = Entries::new(6, 0);
            let mut plain = vec![(BigRational::zero(), 0usize); 6];
            let mut scored: Vec<Vec<Exact>> = vec![Vec::new(); 6];
            for (g, (seats, base, r, sys)) in games.iter().enumerate() {
                let fast = match sys {
                    0 => math::fibonacci_draw(seats, *base),
                    1 => math::carnage_draw(seats, r),
                    2 => math::dss_draw(seats),
                    _ => math::sos_draw(seats),
                };
                for (k, s) in fast.iter().enumerate() {
                    // Seats go to six players, and some repeat a game's score.
                    let p = seats_of[(g * 7 + k) % seats_of.len()];
                    entries.add(p, g as u32, k as u32, s);
                    plain[p as usize].0 += s.big();
                    plain[p as usize].1 += 1;
                    scored[p as usize].push(s.clone());
                }
            }
            let names = ["a", "b", "c", "d", "e", "f"];
            let got = entries.order(|p| names[p as usize], |p| exact_sum(&scored[p as usize]));
            let mut want: Vec<usize> = (0..6).filter(|&p| plain[p].1 > 0).collect();
            want.sort_by(|&a, &b| plain[b].0.cmp(&plain[a].0).then(plain[b].1.cmp(&plain[a].1)));
            let got_players: Vec<usize> = got.iter().map(|r| r.player as usize).collect();
            prop_assert_eq!(&got_players, &want);
            for (w, pair) in got.windows(2).enumerate() {
                let equal = plain[want[w]].0 == plain[want[w + 1]].0;
                prop_assert_eq!(pair[0].class == pair[1].class, equal);
            }
        }
    }
}

/// Equal totals from different denominators share a class; a total a hair
/// above them (closer than the bounds can tell) ranks first.
#[test]
fn equal_and_nearly_equal_totals_are_told_apart_exactly() {
    use super::super::order::Entries;
    let hair = (1i128 << 80) * 6;
    let players: [Vec<Exact>; 3] = [
        vec![Exact::new(1, 2), Exact::new(1, 3)],
        vec![Exact::new(5, 6)],
        vec![Exact::new(hair * 5 / 6 + 1, hair)],
    ];
    let mut entries = Entries::new(3, 0);
    for (p, scores) in players.iter().enumerate() {
        for (g, s) in scores.iter().enumerate() {
            entries.add(p as u32, g as u32, 0, s);
        }
    }
    let names = ["a", "b", "c"];
    let got = entries.order(|p| names[p as usize], |p| exact_sum(&players[p as usize]));
    let got: Vec<(u32, usize)> = got.iter().map(|r| (r.player, r.class)).collect();
    // c: 5/6 + 1/(6 * 2^80) first; a and b equal at 5/6, a with more games.
    assert_eq!(got, [(2, 0), (0, 1), (1, 1)]);
}

#[test]
fn a_negative_denominator_is_turned_positive() {
    let e = Exact::new(3, -4);
    assert!(matches!(e, Exact::Small { n: -3, d: 4 }), "{e:?}");
    // i128::MIN cannot change sign in i128: the score is a big rational.
    let m = Exact::new(i128::MIN, -1);
    assert_eq!(m.big(), BigRational::from_integer(-BigInt::from(i128::MIN)));
}
