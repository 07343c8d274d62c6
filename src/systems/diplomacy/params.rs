//! The Diplomacy rule parameters: groups `fibonacci`, `carnage` and
//! `diplomacy_tournament` (Draw-Size and Sum-of-Squares scoring have none).
//!
//! Ranges: the sequence starts at 0 or 1, as Fibonacci-Diplo defines it; rank
//! points, centre points, the leader bonus and centres are at most a million
//! (scores are big rationals, so no product of them overflows).

use serde::{Deserialize, Serialize};

use crate::systems::params::{rule_params, Range};

/// How Carnage ranks the powers eliminated in a drawn game (`carnage.eliminated`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Eliminated {
    /// A later elimination ranks higher (Carnage "with elimination order").
    ByYear,
    /// Every eliminated power shares the bottom places ("dead equal").
    Tied,
}

rule_params! {
    /// Fibonacci-Diplo.
    pub struct Fibonacci in "fibonacci" {
        /// first element of the sequence: 0 (0, 1, 1, 2, 3, 5 ..., the seed's pseudocode) or 1 (1, 1, 2, 3, 5 ...)
        base: i64 = 0, Range::int(0..=1);
        /// fewest powers a game needs to be scored by Fibonacci-Diplo with base 0; base 1 needs one fewer (5 and 4, as the seed says); smaller games are listed as refused
        min_powers: i64 = 5, Range::int(2..=1_000);
    }

    /// Carnage.
    pub struct Carnage in "carnage" {
        /// rank points per place: N x rank_points for 1st down to rank_points for Nth
        rank_points: i64 = 1000, Range::int(0..=1_000_000);
        /// supply centres of a board whose game gives no centers_total: a solo's bonus, and the most centers a game may report
        centers_total: i64 = 34, Range::int(1..=1_000_000);
        /// points per centre held at the end of a draw (500 in centre-count Carnage, with rank_points 1001); a solo takes centre_points x the board's centres
        centre_points: i64 = 1, Range::int(0..=1_000_000);
        /// eliminated powers in a draw: "by_year" (a later elimination ranks higher) or "tied" (all share the bottom places: "dead equal")
        eliminated: Eliminated = "by_year", Range::choice(&["by_year", "tied"]);
        /// points per centre a sole board-topper leads the second by, in a draw (300 in Carnage 2023); nothing when the top is shared
        leader_bonus: i64 = 0, Range::int(0..=1_000_000);
    }

    /// Diplomacy tournaments (every system's tournament standings).
    pub struct Tournament in "diplomacy_tournament" {
        /// rounds counted per player: a player's best N round scores (0: every round)
        best_rounds: i64 = 0, Range::int(0..=1_000);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::systems::params::check_system;

    use super::*;

    #[test]
    fn defaults_are_the_published_rules() {
        let (f, c) = (Fibonacci::default(), Carnage::default());
        assert_eq!((f.base, f.min_powers), (0, 5));
        assert_eq!((c.rank_points, c.centers_total), (1000, 34));
        assert_eq!(
            (c.centre_points, c.eliminated, c.leader_bonus),
            (1, Eliminated::ByYear, 0)
        );
        assert_eq!(Tournament::default().best_rounds, 0);
        check_system("fibonacci", &serde_json::Map::new()).unwrap();
        check_system("carnage", &serde_json::Map::new()).unwrap();
    }

    #[test]
    fn a_base_other_than_0_or_1_is_refused() {
        assert_eq!(
            check_system("fibonacci", json!({"base": 2}).as_object().unwrap()).unwrap_err(),
            "fibonacci.base: 2 is out of range; allowed: an integer from 0 to 1"
        );
        check_system("fibonacci", json!({"base": 1}).as_object().unwrap()).unwrap();
    }

    #[test]
    fn eliminated_is_by_year_or_tied() {
        let tied = json!({"eliminated": "tied"});
        check_system("carnage", tied.as_object().unwrap()).unwrap();
        assert_eq!(
            check_system(
                "carnage",
                json!({"eliminated": "dead"}).as_object().unwrap()
            )
            .unwrap_err(),
            "carnage.eliminated: \"dead\" is out of range; allowed: one of \"by_year\", \"tied\""
        );
    }
}
