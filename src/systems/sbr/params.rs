//! The SBR rule parameters (group `sbr`).
//!
//! Ranges: a game score is at most 89 squares times the multiplier; a match has
//! at most 100 games (each a column of its table); `advance` and `podium` are
//! places, at most 100.

use crate::systems::params::{rule_params, Range};

rule_params! {
    /// Game scores, matches and the bracket.
    pub struct Sbr in "sbr" {
        /// multiplier of a base built on a bonus tile
        bonus_multiplier: i64 = 3, Range::int(1..=1_000);
        /// games in a group or bracket match (each player once in each seat)
        games_per_match: i64 = 4, Range::int(1..=100);
        /// players per match who advance
        advance: i64 = 2, Range::int(0..=100);
        /// places the bracket's final match awards
        podium: i64 = 3, Range::int(0..=100);
        /// players a group holds, formed from the seeding (the last group is filled by bots)
        group_size: i64 = 16, Range::int(1..=10_000);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::systems::params::check_system;

    use super::*;

    #[test]
    fn defaults_are_the_published_rules() {
        let s = Sbr::default();
        assert_eq!(
            (s.bonus_multiplier, s.games_per_match, s.advance, s.podium),
            (3, 4, 2, 3)
        );
        check_system("sbr", &serde_json::Map::new()).unwrap();
    }

    #[test]
    fn a_match_of_no_games_is_refused() {
        assert_eq!(
            check_system("sbr", json!({"games_per_match": 0}).as_object().unwrap()).unwrap_err(),
            "sbr.games_per_match: 0 is out of range; allowed: an integer from 1 to 100"
        );
    }
}
