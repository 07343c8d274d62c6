//! The scoring math, with no ledger types: positions in, exact scores out.
//!
//! A game's scores are [`Exact`] fractions: `i128` numerators and
//! denominators, not reduced, for every board whose numbers fit (the bounds are
//! in each function's docs), big rationals beyond. A season's total adds
//! fractions with many different denominators (Σ centers² differs from game to
//! game), whose common denominator soon outgrows `i128`: totals are
//! [`Score`]s, big rationals ([`super::exact`] sums them), so standings never
//! depend on the order of additions or on a rounding step.

use std::ops::Add;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;

pub use super::exact::Exact;
use super::params::Eliminated;

/// An exact score.
pub type Score = BigRational;

/// `n / d` as a [`Score`]; `0` when `d` is zero (callers never divide by an empty board).
pub fn frac(n: impl Into<BigInt>, d: impl Into<BigInt>) -> Score {
    let d = d.into();
    if d.is_zero() {
        return Score::zero();
    }
    Score::new(n.into(), d)
}

/// One position on the board when the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seat {
    pub centers: i64,
    /// The year the power was eliminated, if it was.
    pub eliminated: Option<i64>,
    /// A position abandoned and never replaced (`player: null`).
    pub surrendered: bool,
    /// The position shares the draw (in a drawn game: listed in its `draw`,
    /// or, without one, a survivor).
    pub in_draw: bool,
}

/// How a position places within its game; the derived order is worst to best:
/// surrendered positions, then eliminated powers by year (later is better), then
/// survivors by centers (Fibonacci-Diplo's `SortingScore`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    Surrendered,
    Eliminated(i64),
    Survived(i64),
}

impl Seat {
    pub fn standing(&self) -> Standing {
        if self.surrendered {
            Standing::Surrendered
        } else if self.centers > 0 {
            Standing::Survived(self.centers)
        } else {
            // Validation requires a year here; without one the power ranks below
            // every dated elimination (Fibonacci-Diplo's default year 0 does the same).
            Standing::Eliminated(self.eliminated.unwrap_or(i64::MIN))
        }
    }

    pub fn survives(&self) -> bool {
        self.centers > 0
    }
}

/// The ranks each seat shares, `(best, worst)`, 1-based: a seat alone at 2nd is
/// `(2, 2)`; two seats tied behind the leader are both `(2, 3)`.
///
/// Invariant: the seats sharing a rank range are exactly those with equal standing,
/// and the ranges of a game partition `1..=N`.
pub fn shared_ranks(seats: &[Seat]) -> Vec<(usize, usize)> {
    ranks_with(seats, Eliminated::ByYear)
}

/// [`shared_ranks`], with eliminated powers ranked by year or all tied.
pub fn ranks_with(seats: &[Seat], eliminated: Eliminated) -> Vec<(usize, usize)> {
    let keys: Vec<Standing> = seats
        .iter()
        .map(|s| match (s.standing(), eliminated) {
            (Standing::Eliminated(_), Eliminated::Tied) => Standing::Eliminated(0),
            (standing, _) => standing,
        })
        .collect();
    let places = crate::systems::shared_places(&keys).into_iter();
    places.map(|(first, last)| (first + 1, last + 1)).collect()
}

/// The Fibonacci sequence of length `n`: base 0 gives 0, 1, 1, 2, 3, 5 … (as
/// Fibonacci-Diplo's pseudocode does), base 1 gives 1, 1, 2, 3, 5 … Any other base
/// is refused by the caller; here it is read as "starts at `base`, then 1". In
/// `i128` for boards of up to [`FIB_SMALL`] powers, in [`BigInt`] beyond.
pub fn fibonacci_sequence<T>(n: usize, base: i64) -> Vec<T>
where
    T: Clone + From<i64> + for<'a> Add<&'a T, Output = T>,
{
    let (mut a, mut b) = (T::from(base), T::from(1));
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(a.clone());
        let next = a.clone() + &b;
        a = std::mem::replace(&mut b, next);
    }
    out
}

/// The most powers a board may have for Fibonacci-Diplo to be scored in `i128`.
/// The sequence's sum is F(N + 1) - 1 (base 0) or F(N + 2) - 1 (base 1), at
/// most F(152) < 2^105, and a score's numerator and denominator are at most 150
/// times that (150 tied ranks), below 2^113: no step overflows. Larger boards are
/// scored in big integers.
pub const FIB_SMALL: usize = 150;

/// The elements that ranks `best..=worst` get, rank r taking `values[N - r]`
/// (so 1st takes the last, largest element).
pub fn elements_for_ranks<T: Clone>(values: &[T], ranks: (usize, usize)) -> Vec<T> {
    of_ranks(values, ranks).cloned().collect()
}

/// The elements ranks `best..=worst` get, as [`elements_for_ranks`] lists them.
fn of_ranks<T>(values: &[T], (best, worst): (usize, usize)) -> impl Iterator<Item = &T> {
    let n = values.len();
    (best..=worst).filter_map(move |r| n.checked_sub(r).and_then(|i| values.get(i)))
}

/// The sum and the count of the elements of a shared rank range (tied seats
/// split their ranks' value: the mean is `sum / count`).
fn sum_over_ranks<T>(values: &[T], ranks: (usize, usize)) -> (T, usize)
where
    T: Clone + From<i64> + for<'a> Add<&'a T, Output = T>,
{
    of_ranks(values, ranks).fold((T::from(0), 0), |(s, count), x| (s + x, count + 1))
}

/// Fibonacci-Diplo for a draw: the mean of the shared ranks' elements over the
/// sum of the sequence, so the scores of a game add up to 1.
pub fn fibonacci_draw(seats: &[Seat], base: i64) -> Vec<Exact> {
    let ranks = shared_ranks(seats);
    if seats.len() > FIB_SMALL {
        let seq: Vec<BigInt> = fibonacci_sequence(seats.len(), base);
        let total: BigInt = seq.iter().sum();
        let score = |r| {
            let (sum, count) = sum_over_ranks(&seq, r);
            Exact::Big(frac(sum, &total * count))
        };
        return ranks.into_iter().map(score).collect();
    }
    let seq: Vec<i128> = fibonacci_sequence(seats.len(), base);
    let total: i128 = seq.iter().sum();
    let score = |r| {
        let (sum, count) = sum_over_ranks(&seq, r);
        Exact::new(sum, total * count as i128)
    };
    ranks.into_iter().map(score).collect()
}

/// Solo, in Fibonacci-Diplo, DSS and SoS alike: the winner 1, everyone else 0.
pub fn solo(n: usize, winner: usize) -> Vec<Exact> {
    (0..n)
        .map(|i| Exact::new(i128::from(i == winner), 1))
        .collect()
}

/// Carnage's rank points: `rank_points × (N − r + 1)` for rank r, as the
/// ascending list `[rp, 2·rp, …, N·rp]` indexed like the Fibonacci sequence.
/// At most 10^6 × N each, N · 10^6 × N in all: a board's positions are fewer
/// than the bytes of its event (64 KiB), far inside `i128`.
pub fn carnage_rank_points(n: usize, rank_points: i64) -> Vec<i128> {
    (1..=n as i128)
        .map(|i| i128::from(rank_points) * i)
        .collect()
}

/// Carnage's rules for one game (the `carnage` parameters, with the game's board).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CarnageRules {
    pub rank_points: i64,
    pub centre_points: i64,
    pub eliminated: Eliminated,
    pub leader_bonus: i64,
    /// The board's supply centres.
    pub centers_total: i64,
}

/// The sole board-topper and how many centres it leads the second by; `None`
/// when the top is shared (or nobody holds a centre).
pub fn sole_leader(seats: &[Seat]) -> Option<(usize, i64)> {
    let top = seats.iter().map(|s| s.centers).max()?;
    let mut at_top = seats.iter().enumerate().filter(|(_, s)| s.centers == top);
    let (leader, _) = at_top.next()?;
    if at_top.next().is_some() || top == 0 {
        return None;
    }
    let second = (seats.iter().enumerate())
        .filter(|&(i, _)| i != leader)
        .map(|(_, s)| s.centers)
        .max()
        .unwrap_or(0);
    Some((leader, top - second))
}

/// Carnage for a draw: the (split) rank points, plus `centre_points` per
/// centre, plus `leader_bonus` per centre of a sole board-topper's lead. Centres
/// and the lead are at most 10^6, and so are both parameters: the products fit
/// `i128` many times over.
pub fn carnage_draw(seats: &[Seat], r: &CarnageRules) -> Vec<Exact> {
    let points = carnage_rank_points(seats.len(), r.rank_points);
    let leader = sole_leader(seats);
    ranks_with(seats, r.eliminated)
        .into_iter()
        .zip(seats)
        .enumerate()
        .map(|(i, (ranks, s))| {
            let bonus = match leader {
                Some((l, lead)) if l == i => i128::from(lead) * i128::from(r.leader_bonus),
                _ => 0,
            };
            let (sum, count) = sum_over_ranks(&points, ranks);
            let count = count as i128;
            let centres = i128::from(s.centers) * i128::from(r.centre_points);
            Exact::new(sum + (centres + bonus) * count, count)
        })
        .collect()
}

/// Carnage for a solo (or a concession): the winner takes every rank point
/// plus `centre_points` per centre of the board (28034 = 28000 + 34 on a
/// 7-player board); the others get 0.
pub fn carnage_solo(n: usize, winner: usize, r: &CarnageRules) -> Vec<Exact> {
    let all: i128 = carnage_rank_points(n, r.rank_points).iter().sum();
    let prize = all + i128::from(r.centers_total) * i128::from(r.centre_points);
    (0..n)
        .map(|i| Exact::new(if i == winner { prize } else { 0 }, 1))
        .collect()
}

/// Draw-Size Scoring: each of the k positions sharing the draw gets 1/k.
pub fn dss_draw(seats: &[Seat]) -> Vec<Exact> {
    let k = seats.iter().filter(|s| s.in_draw).count() as i128;
    seats
        .iter()
        .map(|s| Exact::new(i128::from(s.in_draw), k))
        .collect()
}

/// Sum-of-Squares: centers² / Σ centers² over every position on the board.
/// Centres add up to at most 10^6, so Σ centers² is at most 10^12.
pub fn sos_draw(seats: &[Seat]) -> Vec<Exact> {
    let sq = |s: &Seat| i128::from(s.centers) * i128::from(s.centers);
    let total: i128 = seats.iter().map(sq).sum();
    seats.iter().map(|s| Exact::new(sq(s), total)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alive(centers: i64) -> Seat {
        Seat {
            centers,
            eliminated: None,
            surrendered: false,
            in_draw: true,
        }
    }

    fn out(year: i64) -> Seat {
        Seat {
            centers: 0,
            eliminated: Some(year),
            surrendered: false,
            in_draw: false,
        }
    }

    fn vacant(centers: i64) -> Seat {
        Seat {
            centers,
            eliminated: None,
            surrendered: true,
            in_draw: centers > 0,
        }
    }

    /// Carnage as published: 1000 a place, a point a centre, by year, no bonus.
    fn carnage() -> CarnageRules {
        CarnageRules {
            rank_points: 1000,
            centre_points: 1,
            eliminated: Eliminated::ByYear,
            leader_bonus: 0,
            centers_total: 34,
        }
    }

    /// Scores as big rationals in lowest terms.
    fn big(v: Vec<Exact>) -> Vec<Score> {
        v.iter().map(Exact::big).collect()
    }

    fn hundredths(v: &[Score]) -> Vec<Score> {
        v.iter().map(|s| (s * frac(100, 1)).round()).collect()
    }

    fn ints(v: &[i64]) -> Vec<Score> {
        v.iter().map(|&x| frac(x, 1)).collect()
    }

    /// The worked example: centers 10, 8, 6, 5, 3, 2 and one eliminated.
    fn worked_example_board() -> Vec<Seat> {
        vec![
            alive(10),
            alive(8),
            alive(6),
            alive(5),
            alive(3),
            alive(2),
            out(1907),
        ]
    }

    #[test]
    fn sequences_match_the_seed() {
        let as_i = |v: Vec<BigInt>| v.iter().map(|b| b.to_string()).collect::<Vec<_>>();
        assert_eq!(
            as_i(fibonacci_sequence::<BigInt>(7, 0)),
            ["0", "1", "1", "2", "3", "5", "8"]
        );
        assert_eq!(
            as_i(fibonacci_sequence::<BigInt>(5, 1)),
            ["1", "1", "2", "3", "5"]
        );
        assert!(fibonacci_sequence::<i128>(0, 0).is_empty());
    }

    #[test]
    fn worked_example_gives_40_25_15_10_5_5_0() {
        let got = big(fibonacci_draw(&worked_example_board(), 0));
        assert_eq!(hundredths(&got), ints(&[40, 25, 15, 10, 5, 5, 0]));
        // Exact, not just rounded: 8/20, 5/20, ...
        assert_eq!(got[0], frac(2, 5));
        assert_eq!(got[1], frac(1, 4));
        assert_eq!(got.iter().sum::<Score>(), frac(1, 1));
    }

    #[test]
    fn a_tie_at_second_shares_the_mean_of_both_ranks() {
        let mut board = worked_example_board();
        board[1] = alive(7);
        board[2] = alive(7);
        let got = big(fibonacci_draw(&board, 0));
        assert_eq!(got[1], frac(1, 5));
        assert_eq!(got[2], frac(1, 5));
        assert_eq!(hundredths(&got), ints(&[40, 20, 20, 10, 5, 5, 0]));
        assert_eq!(shared_ranks(&board)[1], (2, 3));
    }

    #[test]
    fn ranking_follows_centers_then_elimination_year_then_surrender() {
        // A surrendered position with centers still ranks below an early elimination.
        let board = [alive(4), out(1905), out(1908), vacant(6), alive(4)];
        assert_eq!(
            shared_ranks(&board),
            vec![(1, 2), (4, 4), (3, 3), (5, 5), (1, 2)]
        );
        // Two surrendered positions tie for last.
        let board = [alive(9), alive(3), vacant(0), vacant(5)];
        assert_eq!(shared_ranks(&board), vec![(1, 1), (2, 2), (3, 4), (3, 4)]);
    }

    #[test]
    fn surrendered_positions_share_last_and_their_value_is_lost() {
        // 7 powers, two vacant: they split ranks 6–7, (1 + 0) / 2 / 20 each.
        let board = [
            alive(10),
            alive(8),
            alive(6),
            alive(5),
            alive(3),
            vacant(2),
            vacant(0),
        ];
        let got = big(fibonacci_draw(&board, 0));
        assert_eq!(got[5], frac(1, 40));
        assert_eq!(got[6], frac(1, 40));
    }

    #[test]
    fn base_one_starts_at_one() {
        // 1, 1, 2, 3, 5, 8, 13 = 33.
        let got = big(fibonacci_draw(&worked_example_board(), 1));
        assert_eq!(got[0], frac(13, 33));
        assert_eq!(got[6], frac(1, 33));
        assert_eq!(got.iter().sum::<Score>(), frac(1, 1));
    }

    #[test]
    fn five_power_board_with_a_tie_at_the_top() {
        // 0, 1, 1, 2, 3 = 7: tied 1st–2nd get (3 + 2) / 2 / 7.
        let board = [alive(9), alive(9), alive(6), alive(5), out(1904)];
        let got = big(fibonacci_draw(&board, 0));
        assert_eq!(got[0], frac(5, 14));
        assert_eq!(got[2], frac(1, 7));
        assert_eq!(got[4], frac(0, 1));
    }

    #[test]
    fn solo_is_one_and_zeros() {
        assert_eq!(big(solo(4, 2)), ints(&[0, 0, 1, 0]));
    }

    #[test]
    fn carnage_draw_and_solo() {
        let got = big(carnage_draw(&worked_example_board(), &carnage()));
        assert_eq!(got, ints(&[7010, 6008, 5006, 4005, 3003, 2002, 1000]));
        let mut board = worked_example_board();
        board[1] = alive(7);
        board[2] = alive(7);
        let got = big(carnage_draw(&board, &carnage()));
        assert_eq!(got[1], frac(5507, 1));
        assert_eq!(got[2], frac(5507, 1));
        assert_eq!(big(carnage_solo(7, 3, &carnage()))[3], frac(28034, 1));
        assert_eq!(big(carnage_solo(7, 3, &carnage()))[0], frac(0, 1));
        // An odd rank_points splits into halves: (3 + 2) / 2 = 2.5.
        let one = CarnageRules {
            rank_points: 1,
            ..carnage()
        };
        let got = big(carnage_draw(&[alive(5), alive(5), alive(1)], &one));
        assert_eq!(got[0], frac(15, 2));
    }

    /// dipvis's Carnage tests (game_scoring/test_carnage.py), same boards:
    /// A 0 (1904), E 5, F 0 (1906), G 17, I 0 (1906), R 5, T 7.
    fn dipvis_eliminations() -> Vec<Seat> {
        vec![
            out(1904),
            alive(5),
            out(1906),
            alive(17),
            out(1906),
            alive(5),
            alive(7),
        ]
    }

    #[test]
    fn carnage_variants_agree_with_dipvis() {
        // Elimination order: A 1000, E (5000 + 4000) / 2 + 5, F and I
        // (3000 + 2000) / 2, G 7000 + 17, R as E, T 6000 + 7.
        let by_year = big(carnage_draw(&dipvis_eliminations(), &carnage()));
        assert_eq!(by_year, ints(&[1000, 4505, 2500, 7017, 2500, 4505, 6007]));
        // Dead equal: the three eliminated share (3000 + 2000 + 1000) / 3.
        let tied = CarnageRules {
            eliminated: Eliminated::Tied,
            ..carnage()
        };
        let got = big(carnage_draw(&dipvis_eliminations(), &tied));
        assert_eq!(got, ints(&[2000, 4505, 2000, 7017, 2000, 4505, 6007]));
        // Carnage 2023: G leads T by 17 - 7 = 10 centres: + 3000.
        let lead = CarnageRules {
            leader_bonus: 300,
            ..carnage()
        };
        let got = big(carnage_draw(&dipvis_eliminations(), &lead));
        assert_eq!(got, ints(&[1000, 4505, 2500, 10017, 2500, 4505, 6007]));
        // Centre-count: A 11, E 10, F 8, G 2, I 2, R 1, T 0 (1904):
        // 500 a centre plus 7007 down to 1001, G and I sharing (4004 + 3003) / 2.
        let centre = CarnageRules {
            rank_points: 1001,
            centre_points: 500,
            ..carnage()
        };
        let board = [
            alive(11),
            alive(10),
            alive(8),
            alive(2),
            alive(2),
            alive(1),
            out(1904),
        ];
        let got = big(carnage_draw(&board, &centre));
        let want = [12507, 11006, 9005, 0, 0, 2502, 1001];
        assert_eq!(got[..3], ints(&want[..3]));
        assert_eq!(got[3], frac(2 * 1000 + 7007, 2));
        assert_eq!(got[4], got[3]);
        assert_eq!(got[5..], ints(&want[5..]));
        // A shared top earns no bonus.
        let got = big(carnage_draw(&[alive(9), alive(9), alive(2)], &lead));
        assert_eq!(got, ints(&[2509, 2509, 1002]));
    }

    #[test]
    fn draw_size_and_sum_of_squares() {
        let got = big(dss_draw(&worked_example_board()));
        assert_eq!(got[0], frac(1, 6));
        assert_eq!(got[6], frac(0, 1));
        // A draw vote of three: the other survivors score 0.
        let mut board = worked_example_board();
        for s in &mut board[3..] {
            s.in_draw = false;
        }
        let third = frac(1, 3);
        let zero = frac(0, 1);
        let want = [&third, &third, &third, &zero, &zero, &zero, &zero];
        assert_eq!(big(dss_draw(&board)).iter().collect::<Vec<_>>(), want);
        let got = big(sos_draw(&worked_example_board()));
        // 100 + 64 + 36 + 25 + 9 + 4 = 238.
        assert_eq!(got[0], frac(100, 238));
        assert_eq!(got.iter().sum::<Score>(), frac(1, 1));
        assert_eq!(big(sos_draw(&[out(1901), out(1902)])), ints(&[0, 0]));
    }

    #[test]
    fn big_totals_stay_exact() {
        // Σ of 1/(c² + 1) for many c: the common denominator outgrows i128.
        let sum: Score = (1..200).map(|c: i64| frac(1, c * c + 1)).sum();
        assert!(sum > frac(1, 1) && sum < frac(2, 1));
    }
}
