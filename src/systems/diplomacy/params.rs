//! The Diplomacy rule parameters: groups `fibonacci` and `carnage` (Draw-Size
//! and Sum-of-Squares scoring have none).
//!
//! Ranges: the sequence starts at 0 or 1, as Fibonacci-Diplo defines it; rank
//! points and centres stay far below 2^40, where every score of a board of up to
//! 64 powers is computed in `i128`.

use crate::params::{rule_params, Range};

rule_params! {
    /// Fibonacci-Diplo.
    pub struct Fibonacci in "fibonacci" {
        /// first element of the sequence: 0 (0, 1, 1, 2, 3, 5 ..., the seed's pseudocode) or 1 (1, 1, 2, 3, 5 ...)
        base: i64 = 0, Range::int(0..=1);
        /// fewest powers a game needs to be scored by Fibonacci-Diplo (smaller games are listed as refused)
        min_powers: i64 = 5, Range::int(2..=1_000);
    }

    /// Carnage.
    pub struct Carnage in "carnage" {
        /// rank points per place: N x rank_points for 1st down to rank_points for Nth
        rank_points: i64 = 1000, Range::int(0..=1_000_000);
        /// supply centres on the board: a solo's bonus, and the most centers a game may report
        centers_total: i64 = 34, Range::int(1..=1_000_000);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::params::check_system;

    use super::*;

    #[test]
    fn defaults_are_the_published_rules() {
        let (f, c) = (Fibonacci::default(), Carnage::default());
        assert_eq!((f.base, f.min_powers), (0, 5));
        assert_eq!((c.rank_points, c.centers_total), (1000, 34));
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
}
