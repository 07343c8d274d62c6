//! The card league's rule parameters (group `cards`): the placement tables of
//! systems 1 and 2 and system 2's score points.
//!
//! Ranges: a match seats 3 or 4 players, so a table has 1 to 4 places (a place
//! past its end earns 0); points, the divisor and the clamp are within a million.

use crate::systems::params::{rule_params, Range};

rule_params! {
    /// The points tables in force (the math is in [`super::points`]).
    pub struct Cards in "cards" {
        /// system 1: points by place when the winner has the only positive score
        system1_one_positive: Vec<i64> = [4, 1, 0], Range::ints(1..=4, 0..=1_000_000);
        /// system 1: points by place when two or three scores are positive (0 counts)
        system1_otherwise: Vec<i64> = [3, 2, 0], Range::ints(1..=4, 0..=1_000_000);
        /// system 2, three players: placement points when the winner has the only positive score
        system2_three_one_positive: Vec<i64> = [40, 10, 0], Range::ints(1..=4, 0..=1_000_000);
        /// system 2, three players: placement points otherwise
        system2_three_otherwise: Vec<i64> = [30, 20, 0], Range::ints(1..=4, 0..=1_000_000);
        /// system 2, four players: placement points
        system2_four: Vec<i64> = [35, 25, 10, 0], Range::ints(1..=4, 0..=1_000_000);
        /// system 2: score points are round(score / N)
        score_divisor: i64 = 10, Range::int(1..=1_000_000);
        /// system 2: score points are clamped to -N..N
        score_clamp: i64 = 50, Range::int(0..=1_000_000);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::systems::params::check_system;

    use super::*;

    #[test]
    fn defaults_are_the_published_rules() {
        let c = Cards::default();
        assert_eq!(c.system2_four, [35, 25, 10, 0]);
        assert_eq!((c.score_divisor, c.score_clamp), (10, 50));
        check_system("cards", &serde_json::Map::new()).unwrap();
    }

    #[test]
    fn out_of_range_values_are_refused_with_the_range() {
        let refused =
            |v: serde_json::Value| check_system("cards", v.as_object().unwrap()).unwrap_err();
        assert_eq!(
            refused(json!({"score_divisor": 0})),
            "cards.score_divisor: 0 is out of range; allowed: an integer from 1 to 1000000"
        );
        assert!(refused(json!({"system2_four": [1, 1, 1, 1, 1]})).contains("1 to 4 integers"));
    }
}
