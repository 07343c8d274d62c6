//! The scoring math, with no ledger types: positions in, exact scores out.
//!
//! Scores are [`BigRational`]s. Per game they are small fractions, but a season's
//! total adds fractions with many different denominators (Σ centers² differs from
//! game to game), whose common denominator soon outgrows `i128`; big integers keep
//! every sum exact, so standings never depend on the order of additions or on a
//! rounding step.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;

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
    let keys: Vec<Standing> = seats.iter().map(Seat::standing).collect();
    let places = crate::systems::shared_places(&keys).into_iter();
    places.map(|(first, last)| (first + 1, last + 1)).collect()
}

/// The Fibonacci sequence of length `n`: base 0 gives 0, 1, 1, 2, 3, 5 … (as
/// Fibonacci-Diplo's pseudocode does), base 1 gives 1, 1, 2, 3, 5 … Any other base
/// is refused by the caller; here it is read as "starts at `base`, then 1".
pub fn fibonacci_sequence(n: usize, base: i64) -> Vec<BigInt> {
    let (mut a, mut b) = (BigInt::from(base), BigInt::from(1));
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(a.clone());
        let next = &a + &b;
        a = std::mem::replace(&mut b, next);
    }
    out
}

/// The elements that ranks `best..=worst` get, rank r taking `values[N - r]`
/// (so 1st takes the last, largest element).
pub fn elements_for_ranks(values: &[BigInt], (best, worst): (usize, usize)) -> Vec<BigInt> {
    let n = values.len();
    (best..=worst)
        .filter_map(|r| n.checked_sub(r).and_then(|i| values.get(i)).cloned())
        .collect()
}

/// Mean of the elements of a shared rank range (tied seats split their ranks' value).
fn mean_over_ranks(values: &[BigInt], ranks: (usize, usize)) -> Score {
    let picked = elements_for_ranks(values, ranks);
    let sum: BigInt = picked.iter().sum();
    frac(sum, picked.len())
}

/// Fibonacci-Diplo for a draw: the mean of the shared ranks' elements over the
/// sum of the sequence, so the scores of a game add up to 1.
pub fn fibonacci_draw(seats: &[Seat], base: i64) -> Vec<Score> {
    let seq = fibonacci_sequence(seats.len(), base);
    let total: BigInt = seq.iter().sum();
    // base 0 with a single seat sums to 0: nothing to share (validation needs 2+).
    let total = frac(total, 1);
    shared_ranks(seats)
        .into_iter()
        .map(|r| {
            if total.is_zero() {
                Score::zero()
            } else {
                mean_over_ranks(&seq, r) / &total
            }
        })
        .collect()
}

/// Solo, in Fibonacci-Diplo, DSS and SoS alike: the winner 1, everyone else 0.
pub fn solo(n: usize, winner: usize) -> Vec<Score> {
    (0..n).map(|i| frac(u8::from(i == winner), 1)).collect()
}

/// Carnage's rank points: `rank_points × (N − r + 1)` for rank r, as the
/// ascending list `[rp, 2·rp, …, N·rp]` indexed like the Fibonacci sequence.
pub fn carnage_rank_points(n: usize, rank_points: i64) -> Vec<BigInt> {
    (1..=n).map(|i| BigInt::from(rank_points) * i).collect()
}

/// Carnage for a draw: the (split) rank points plus one point per center.
pub fn carnage_draw(seats: &[Seat], rank_points: i64) -> Vec<Score> {
    let points = carnage_rank_points(seats.len(), rank_points);
    shared_ranks(seats)
        .into_iter()
        .zip(seats)
        .map(|(r, s)| mean_over_ranks(&points, r) + frac(s.centers, 1))
        .collect()
}

/// Carnage for a solo: the winner takes every rank point plus the board's
/// centers (28034 = 28000 + 34 on a 7-player board); the others get 0.
pub fn carnage_solo(n: usize, winner: usize, rank_points: i64, centers_total: i64) -> Vec<Score> {
    let all: BigInt = carnage_rank_points(n, rank_points).iter().sum();
    let prize = frac(all + centers_total, 1);
    (0..n)
        .map(|i| {
            if i == winner {
                prize.clone()
            } else {
                Score::zero()
            }
        })
        .collect()
}

/// Draw-Size Scoring: each of the k surviving positions gets 1/k.
pub fn dss_draw(seats: &[Seat]) -> Vec<Score> {
    let k = seats.iter().filter(|s| s.survives()).count();
    seats
        .iter()
        .map(|s| {
            if s.survives() {
                frac(1, k)
            } else {
                Score::zero()
            }
        })
        .collect()
}

/// Sum-of-Squares: centers² / Σ centers² over every position on the board.
pub fn sos_draw(seats: &[Seat]) -> Vec<Score> {
    let sq = |s: &Seat| BigInt::from(s.centers) * s.centers;
    let total: BigInt = seats.iter().map(sq).sum();
    seats.iter().map(|s| frac(sq(s), total.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alive(centers: i64) -> Seat {
        Seat {
            centers,
            eliminated: None,
            surrendered: false,
        }
    }

    fn out(year: i64) -> Seat {
        Seat {
            centers: 0,
            eliminated: Some(year),
            surrendered: false,
        }
    }

    fn vacant(centers: i64) -> Seat {
        Seat {
            centers,
            eliminated: None,
            surrendered: true,
        }
    }

    fn hundredths(v: &[Score]) -> Vec<Score> {
        v.iter().map(|s| (s * frac(100, 1)).round()).collect()
    }

    fn ints(v: &[i64]) -> Vec<Score> {
        v.iter().map(|&x| frac(x, 1)).collect()
    }

    /// The worked example: centers 10, 8, 6, 5, 3, 2 and one eliminated.
    fn spec_board() -> Vec<Seat> {
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
            as_i(fibonacci_sequence(7, 0)),
            ["0", "1", "1", "2", "3", "5", "8"]
        );
        assert_eq!(as_i(fibonacci_sequence(5, 1)), ["1", "1", "2", "3", "5"]);
        assert!(fibonacci_sequence(0, 0).is_empty());
    }

    #[test]
    fn spec_example_gives_40_25_15_10_5_5_0() {
        let got = fibonacci_draw(&spec_board(), 0);
        assert_eq!(hundredths(&got), ints(&[40, 25, 15, 10, 5, 5, 0]));
        // Exact, not just rounded: 8/20, 5/20, ...
        assert_eq!(got[0], frac(2, 5));
        assert_eq!(got[1], frac(1, 4));
        assert_eq!(got.iter().sum::<Score>(), frac(1, 1));
    }

    #[test]
    fn a_tie_at_second_shares_the_mean_of_both_ranks() {
        let mut board = spec_board();
        board[1] = alive(7);
        board[2] = alive(7);
        let got = fibonacci_draw(&board, 0);
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
        let got = fibonacci_draw(&board, 0);
        assert_eq!(got[5], frac(1, 40));
        assert_eq!(got[6], frac(1, 40));
    }

    #[test]
    fn base_one_starts_at_one() {
        // 1, 1, 2, 3, 5, 8, 13 = 33.
        let got = fibonacci_draw(&spec_board(), 1);
        assert_eq!(got[0], frac(13, 33));
        assert_eq!(got[6], frac(1, 33));
        assert_eq!(got.iter().sum::<Score>(), frac(1, 1));
    }

    #[test]
    fn five_power_board_with_a_tie_at_the_top() {
        // 0, 1, 1, 2, 3 = 7: tied 1st–2nd get (3 + 2) / 2 / 7.
        let board = [alive(9), alive(9), alive(6), alive(5), out(1904)];
        let got = fibonacci_draw(&board, 0);
        assert_eq!(got[0], frac(5, 14));
        assert_eq!(got[2], frac(1, 7));
        assert_eq!(got[4], frac(0, 1));
    }

    #[test]
    fn solo_is_one_and_zeros() {
        assert_eq!(solo(4, 2), ints(&[0, 0, 1, 0]));
    }

    #[test]
    fn carnage_draw_and_solo() {
        let got = carnage_draw(&spec_board(), 1000);
        assert_eq!(got, ints(&[7010, 6008, 5006, 4005, 3003, 2002, 1000]));
        let mut board = spec_board();
        board[1] = alive(7);
        board[2] = alive(7);
        let got = carnage_draw(&board, 1000);
        assert_eq!(got[1], frac(5507, 1));
        assert_eq!(got[2], frac(5507, 1));
        assert_eq!(carnage_solo(7, 3, 1000, 34)[3], frac(28034, 1));
        assert_eq!(carnage_solo(7, 3, 1000, 34)[0], frac(0, 1));
        // An odd rank_points splits into halves: (3 + 2) / 2 = 2.5.
        let got = carnage_draw(&[alive(5), alive(5), alive(1)], 1);
        assert_eq!(got[0], frac(15, 2));
    }

    #[test]
    fn draw_size_and_sum_of_squares() {
        let got = dss_draw(&spec_board());
        assert_eq!(got[0], frac(1, 6));
        assert_eq!(got[6], frac(0, 1));
        let got = sos_draw(&spec_board());
        // 100 + 64 + 36 + 25 + 9 + 4 = 238.
        assert_eq!(got[0], frac(100, 238));
        assert_eq!(got.iter().sum::<Score>(), frac(1, 1));
        assert_eq!(sos_draw(&[out(1901), out(1902)]), ints(&[0, 0]));
    }

    #[test]
    fn big_totals_stay_exact() {
        // Σ of 1/(c² + 1) for many c: the common denominator outgrows i128.
        let sum: Score = (1..200).map(|c: i64| frac(1, c * c + 1)).sum();
        assert!(sum > frac(1, 1) && sum < frac(2, 1));
    }
}
