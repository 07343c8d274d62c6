//! The MEPBM rule parameters: a group per rating (`valar`, `maia`, `istari`,
//! `ainur`), the small-game factor (`small_game`), the monthly adjustment
//! (`monthly`) and the Council of the Wise ballots (`council`).
//!
//! Ranges: constants and start ratings within a million, far inside the
//! formulas' `i64` and `i128` arithmetic; a Maia or Ainur rating divides, so
//! those start at 1 or more; factors are fractions from 0 to 1 (a small game
//! never weighs more than a full one, a month pulls toward the mean).

use crate::systems::params::{rule_params, Decimal, Range};

rule_params! {
    /// Valar: `round(factor * (base + (TotLose - TotWin) / divisor))`, at
    /// least `min_change` when that is set.
    pub struct Valar in "valar" {
        /// constant of the Valar change
        base: i64 = 45, Range::int(0..=10_000);
        /// divisor of the rating difference (TotLose - TotWin)
        divisor: i64 = 150, Range::int(1..=1_000_000);
        /// least Valar change of a decided game: null (unset) keeps the formula's value, 0 stops winners from losing points
        min_change: Option<i64> = null, Range::opt_int(-10_000..=10_000);
        /// Valar rating of a new player
        start: i64 = 1500, Range::int(0..=1_000_000);
    }

    /// Maia: `round(factor * (TmAv / old) * S * sqrt(turn))`, S by outcome.
    pub struct Maia in "maia" {
        /// Maia score S of a win
        win: i64 = 4, Range::int(0..=1_000);
        /// Maia score S of a draw
        draw: i64 = 3, Range::int(0..=1_000);
        /// Maia score S of a loss
        loss: i64 = 2, Range::int(0..=1_000);
        /// Maia rating of a new player
        start: i64 = 1500, Range::int(1..=1_000_000);
    }

    /// Istari: victory points against the nation's par.
    pub struct Istari in "istari" {
        /// Istari rating of a new player
        start: i64 = 1500, Range::int(0..=1_000_000);
    }

    /// Ainur: grudge-team ratings.
    pub struct Ainur in "ainur" {
        /// constant of the Ainur change
        base: i64 = 60, Range::int(0..=10_000);
        /// Ainur rating of a new grudge team
        start: i64 = 1500, Range::int(1..=1_000_000);
        /// nations a side a grudge game needs at start
        min_nations: i64 = 10, Range::int(0..=1_000);
        /// original members a grudge team keeps, and members on its side in a grudge game
        min_members: i64 = 5, Range::int(0..=1_000);
    }

    /// Small games: fewer positions, smaller changes.
    pub struct SmallGame in "small_game" {
        /// a game starting with fewer positions earns small_game.factor
        min_positions: i64 = 20, Range::int(0..=1_000);
        /// multiplier of every Valar, Maia, Istari and Ainur change of a small game
        factor: Decimal = "0.5", Range::decimal("0"..="1");
    }

    /// The monthly pull of every rating toward the mean.
    pub struct Monthly in "monthly" {
        /// monthly pull toward the mean: round(factor * (R - mean) + mean)
        factor: Decimal = "0.98", Range::decimal("0"..="1");
        /// the value the monthly adjustment pulls toward
        mean: i64 = 1500, Range::int(0..=1_000_000);
    }

    /// Council of the Wise ballots.
    pub struct Council in "council" {
        /// days after game end a ballot may be cast
        deadline_days: i64 = 14, Range::int(0..=36_500);
        /// points of the 1st, 2nd and 3rd team-player and played-nation choices
        points: Vec<i64> = [3, 2, 1], Range::ints(1..=3, 0..=1_000);
        /// points of the best played enemy nation
        enemy: i64 = 3, Range::int(0..=1_000);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::systems::params::{check_system, Group};

    use super::*;

    fn refused(group: &str, params: serde_json::Value) -> String {
        check_system(group, params.as_object().unwrap()).unwrap_err()
    }

    #[test]
    fn defaults_are_the_published_rules() {
        let v = Valar::default();
        assert_eq!((v.base, v.divisor, v.start), (45, 150, 1500));
        assert_eq!(v.min_change, None);
        let m = Maia::default();
        assert_eq!((m.win, m.draw, m.loss, m.start), (4, 3, 2, 1500));
        assert_eq!(Monthly::default().factor.text(), "0.98");
        assert_eq!(Council::default().points, [3, 2, 1]);
        for g in [Valar::NAME, Maia::NAME, Istari::NAME, Ainur::NAME] {
            check_system(g, &serde_json::Map::new()).unwrap();
        }
    }

    #[test]
    fn out_of_range_values_are_refused_with_the_range() {
        assert_eq!(
            refused("valar", json!({"divisor": 0})),
            "valar.divisor: 0 is out of range; allowed: an integer from 1 to 1000000"
        );
        assert_eq!(
            refused("maia", json!({"win": 1_000_000_000_000_i64})),
            "maia.win: 1000000000000 is out of range; allowed: an integer from 0 to 1000"
        );
        assert_eq!(
            refused("valar", json!({"min_change": "0"})),
            "valar.min_change: expected null or an integer, got \"0\""
        );
        check_system("valar", json!({"min_change": null}).as_object().unwrap()).unwrap();
        check_system("valar", json!({"min_change": 0}).as_object().unwrap()).unwrap();
        assert!(refused("monthly", json!({"factor": "1.5"})).contains("from \"0\" to \"1\""));
        assert!(refused("council", json!({"points": []})).contains("an array of 1 to 3"));
    }
}
