//! The CFR rule parameters (group `cfr`). A series may give its own points
//! tables, heat decay and tier offset (`cfr.series_defined`); these are the
//! values of a series that does not.
//!
//! Ranges: points within a million and tables of at most 100 places; the decay
//! and the factors are fractions from 0 to 1; 9 decimals is the most a score is
//! shown with.

use super::events::{POINTS, TABLE_PLACES, TIER_OFFSET};
use super::math::SCORE_PLACES;
use crate::systems::params::{rule_params, Decimal, Range};

rule_params! {
    /// CFR event scores and the driver ranking.
    pub struct Cfr in "cfr" {
        /// elimination final points by place (WBC laurels rescaled to 100)
        final_points: Vec<i64> = [100, 60, 40, 30, 20, 10], Range::win_table(1..=TABLE_PLACES, POINTS.min..=POINTS.max);
        /// elimination heat points by place (half the final's, places 1-4)
        heat_points: Vec<i64> = [50, 30, 20, 15], Range::win_table(1..=TABLE_PLACES, POINTS.min..=POINTS.max);
        /// weight of a driver's 2nd best heat (3rd best: squared, ...)
        heat_decay: Decimal = "0.5", Range::decimal("0"..="1");
        /// points-series race points by place; rescaled so that a win is 100
        race_points: Vec<i64> = [100, 60, 40, 30, 20, 10], Range::win_table(1..=TABLE_PLACES, POINTS.min..=POINTS.max);
        /// places added per tier below the first (a tier-2 win counts as a 2nd)
        tier_offset: i64 = 1, Range::int(TIER_OFFSET.min..=TIER_OFFSET.max);
        /// events per series that count (the newest by date)
        counted_events: usize = 3, Range::int(1..=1_000);
        /// score factor for a driver with one counted event
        one_event_factor: Decimal = "0.5", Range::decimal("0"..="1");
        /// score factor for a driver with two counted events
        two_event_factor: Decimal = "0.75", Range::decimal("0"..="1");
        /// decimal places of event scores and of the ranking score
        decimals: u32 = 2, Range::int(0..=SCORE_PLACES as i64);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::systems::params::{check_input, check_system};

    use super::*;

    #[test]
    fn defaults_are_the_published_rules() {
        let c = Cfr::default();
        assert_eq!(c.final_points, [100, 60, 40, 30, 20, 10]);
        assert_eq!((c.counted_events, c.decimals, c.tier_offset), (3, 2, 1));
        assert_eq!(c.two_event_factor.text(), "0.75");
        check_system("cfr", &serde_json::Map::new()).unwrap();
    }

    #[test]
    fn out_of_range_values_are_refused_with_the_range() {
        let refused =
            |v: serde_json::Value| check_input("cfr", v.as_object().unwrap()).unwrap_err();
        assert_eq!(
            refused(json!({"counted_events": 0})),
            "cfr.counted_events: 0 is out of range; allowed: an integer from 1 to 1000"
        );
        assert_eq!(
            refused(json!({"race_points": []})),
            "cfr.race_points: [] is out of range; allowed: an array of 1 to 100 integers, \
             each from 0 to 1000000, never rising from one place to the next, the first above 0"
        );
        assert!(refused(json!({"race_points": [10, 20]})).starts_with("cfr.race_points: [10,20]"));
        assert!(refused(json!({"heat_points": [0]})).starts_with("cfr.heat_points: [0]"));
        assert!(refused(json!({"heat_decay": "1.01"})).starts_with("cfr.heat_decay: \"1.01\""));
        assert!(refused(json!({"decimals": 10})).contains("from 0 to 9"));
        // A stored rules change is read as it was accepted.
        let stored = json!({"race_points": [10, 20], "heat_decay": "00.5"});
        assert!(check_system("cfr", stored.as_object().unwrap()).is_ok());
        assert!(check_input("cfr", stored.as_object().unwrap()).is_err());
    }
}
