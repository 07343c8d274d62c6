//! The point math, free of ledger types: placements, shared places,
//! the points tables of systems 1 and 2, and system 2's score points.
//!
//! Every function takes the tables as arguments (they are rule parameters) and
//! never panics: a table shorter than the number of places gives 0 for the
//! missing places, a non-positive divisor gives no score points.

use serde::{Deserialize, Serialize};

use crate::num::{ratio, round_half_away};
use crate::systems::shared_places;
use crate::systems::table::ordinal;

/// How tied players share the places they occupy together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    /// System 1: every tied player gets the points of the best shared place.
    Best,
    /// System 2: every tied player gets the rounded mean of the shared places' points.
    Mean,
}

/// How many scores are "positive" in the league's sense: 0 counts as positive.
pub fn positive_count(scores: &[i64]) -> usize {
    scores.iter().filter(|s| **s >= 0).count()
}

/// The points of 0-based place `i` in `table` (0 past its end).
pub fn table_at(table: &[i64], i: usize) -> i64 {
    table.get(i).copied().unwrap_or(0)
}

/// The placement points of a range of shared places.
pub fn shared_points(table: &[i64], (first, last): (usize, usize), share: Share) -> i64 {
    match share {
        Share::Best => table_at(table, first),
        Share::Mean => {
            let sum: i128 = (first..=last).map(|p| i128::from(table_at(table, p))).sum();
            let n = (last - first + 1) as i128;
            narrow(round_half_away(ratio(sum, n)))
        }
    }
}

/// System 2's score points: `round(score / divisor)` clamped to `-clamp..=clamp`.
pub fn score_points(score: i64, divisor: i64, clamp: i64) -> i64 {
    if divisor <= 0 {
        return 0;
    }
    let c = i128::from(clamp).abs();
    narrow(round_half_away(ratio(i128::from(score), i128::from(divisor))).clamp(-c, c))
}

/// i128 → i64, saturating (only absurd parameters reach the bounds).
fn narrow(x: i128) -> i64 {
    i64::try_from(x).unwrap_or(if x < 0 { i64::MIN } else { i64::MAX })
}

/// The points tables in force: the `cards` rule parameters.
pub type Rules = super::params::Cards;

/// Which table a match's placements use, and why (for the audit formula).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice<'a> {
    pub table: &'a [i64],
    pub share: Share,
    /// e.g. "one positive score" or "four players".
    pub why: &'static str,
}

impl Rules {
    /// The placement table for a match of `system` with these scores.
    pub fn choose(&self, system: i64, scores: &[i64]) -> Choice<'_> {
        let one = positive_count(scores) == 1;
        let (table, share, why) = match (system, scores.len(), one) {
            (1, _, true) => (
                &self.system1_one_positive,
                Share::Best,
                "one positive score",
            ),
            (1, _, false) => (
                &self.system1_otherwise,
                Share::Best,
                "several positive scores",
            ),
            (_, 4, _) => (&self.system2_four, Share::Mean, "four players"),
            (_, _, true) => (
                &self.system2_three_one_positive,
                Share::Mean,
                "one positive score",
            ),
            (_, _, false) => (
                &self.system2_three_otherwise,
                Share::Mean,
                "several positive scores",
            ),
        };
        Choice { table, share, why }
    }
}

/// What one player earns in one match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Award {
    /// 0-based shared places `(first, last)`.
    pub places: (usize, usize),
    pub placement: i64,
    /// System 2 only (0 in system 1).
    pub strength: i64,
    /// System 2 only (0 in system 1).
    pub score_points: i64,
}

impl Award {
    pub fn total(&self) -> i64 {
        self.placement
            .saturating_add(self.strength)
            .saturating_add(self.score_points)
    }
}

/// Every player's award in a match of `system` (1 or 2), in score order given.
/// `strength` is the match's table strength (ignored in system 1).
pub fn awards(system: i64, scores: &[i64], strength: i64, rules: &Rules) -> Vec<Award> {
    let choice = rules.choose(system, scores);
    shared_places(scores)
        .into_iter()
        .zip(scores)
        .map(|(places, &score)| {
            let placement = shared_points(choice.table, places, choice.share);
            if system == 1 {
                Award {
                    places,
                    placement,
                    strength: 0,
                    score_points: 0,
                }
            } else {
                Award {
                    places,
                    placement,
                    strength,
                    score_points: score_points(score, rules.score_divisor, rules.score_clamp),
                }
            }
        })
        .collect()
}

/// "1st", "2nd-3rd": a shared place range for people.
pub fn place_text((first, last): (usize, usize)) -> String {
    if first == last {
        ordinal(first as u64 + 1)
    } else {
        format!("{}-{}", ordinal(first as u64 + 1), ordinal(last as u64 + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Placement points for every score of a match, in the order given.
    fn placement_points(scores: &[i64], table: &[i64], share: Share) -> Vec<i64> {
        shared_places(scores)
            .into_iter()
            .map(|range| shared_points(table, range, share))
            .collect()
    }

    /// Placement points of a match, sorted best first as the league's recap prints them.
    fn recap(system: i64, scores: &[i64]) -> Vec<i64> {
        let mut pts: Vec<i64> = awards(system, scores, 0, &Rules::default())
            .iter()
            .map(|a| a.placement)
            .collect();
        pts.sort_unstable_by(|a, b| b.cmp(a));
        pts
    }

    #[test]
    fn system1_recap_lines() {
        // 4, 1, 0 (different scores, 2 negative)
        assert_eq!(recap(1, &[60, -20, -40]), vec![4, 1, 0]);
        // 4, 1, 1 (2 same negative scores)
        assert_eq!(recap(1, &[60, -30, -30]), vec![4, 1, 1]);
        // 3, 3, 3 (all scored 0)
        assert_eq!(recap(1, &[0, 0, 0]), vec![3, 3, 3]);
        // 3, 2, 0 (different scores, 2 positive)
        assert_eq!(recap(1, &[40, 0, -40]), vec![3, 2, 0]);
        // 3, 3, 0 (2 same positive scores)
        assert_eq!(recap(1, &[20, 20, -40]), vec![3, 3, 0]);
    }

    #[test]
    fn system2_three_player_recap_lines() {
        assert_eq!(recap(2, &[60, -20, -40]), vec![40, 10, 0]);
        assert_eq!(recap(2, &[60, -30, -30]), vec![40, 5, 5]);
        assert_eq!(recap(2, &[0, 0, 0]), vec![17, 17, 17]);
        assert_eq!(recap(2, &[40, 0, -40]), vec![30, 20, 0]);
        assert_eq!(recap(2, &[20, 20, -40]), vec![25, 25, 0]);
    }

    #[test]
    fn system2_four_player_recap_lines() {
        // different scores
        assert_eq!(recap(2, &[60, 20, -20, -60]), vec![35, 25, 10, 0]);
        // all scored 0
        assert_eq!(recap(2, &[0, 0, 0, 0]), vec![18, 18, 18, 18]);
        // first 3 scored the same
        assert_eq!(recap(2, &[20, 20, 20, -60]), vec![23, 23, 23, 0]);
        // last 3 scored the same
        assert_eq!(recap(2, &[60, -20, -20, -20]), vec![35, 12, 12, 12]);
        // first 2 the same and last 2 the same
        assert_eq!(recap(2, &[30, 30, -30, -30]), vec![30, 30, 5, 5]);
        // first 2 the same, last 2 different
        assert_eq!(recap(2, &[30, 30, -20, -40]), vec![30, 30, 10, 0]);
        // second and third the same, first and last different
        assert_eq!(recap(2, &[60, 0, 0, -60]), vec![35, 18, 18, 0]);
        // last 2 the same, first two different
        assert_eq!(recap(2, &[60, 20, -40, -40]), vec![35, 25, 5, 5]);
    }

    #[test]
    fn points_follow_the_players_not_the_sorted_order() {
        let got: Vec<i64> = awards(1, &[-30, 60, -30], 0, &Rules::default())
            .iter()
            .map(|a| a.placement)
            .collect();
        assert_eq!(got, vec![1, 4, 1]);
    }

    #[test]
    fn system2_adds_table_strength_and_clamped_score_points() {
        assert_eq!(score_points(620, 10, 50), 50);
        assert_eq!(score_points(-44, 10, 50), -4);
        assert_eq!(score_points(46, 10, 50), 5);
        assert_eq!(score_points(-576, 10, 50), -50);
        assert_eq!(score_points(494, 10, 50), 49);
        assert_eq!(score_points(496, 10, 50), 50);
        // "0.5 rounds to 1": half away from zero, both signs
        assert_eq!(score_points(5, 10, 50), 1);
        assert_eq!(score_points(-5, 10, 50), -1);
        let a = awards(2, &[620, -44, -576], 3, &Rules::default());
        let totals: Vec<i64> = a.iter().map(Award::total).collect();
        // 40 + 3 + 50, 10 + 3 - 4, 0 + 3 - 50
        assert_eq!(totals, vec![93, 9, -47]);
        assert_eq!(a[1].score_points, -4);
        assert_eq!(a[0].score_points, 50);
    }

    #[test]
    fn system1_has_no_strength_or_score_points() {
        let a = awards(1, &[620, -44, -576], 3, &Rules::default());
        assert_eq!(
            a.iter().map(Award::total).collect::<Vec<_>>(),
            vec![4, 1, 0]
        );
    }

    #[test]
    fn odd_parameters_never_panic() {
        assert_eq!(score_points(620, 0, 50), 0);
        assert_eq!(score_points(620, -10, 50), 0);
        assert_eq!(score_points(620, 10, -50), 50);
        assert_eq!(
            placement_points(&[4, 2, 0, -6], &[7], Share::Mean),
            vec![7, 0, 0, 0]
        );
        assert_eq!(score_points(i64::MIN, 1, i64::MIN), i64::MIN);
    }

    #[test]
    fn place_texts() {
        assert_eq!(place_text((0, 0)), "1st");
        assert_eq!(place_text((1, 2)), "2nd-3rd");
        assert_eq!(place_text((0, 3)), "1st-4th");
    }
}
