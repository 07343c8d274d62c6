//! `cards.*`: the card-game league's tournaments, rounds and results.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::events::{payload_table, Bounds, Ident, When};

payload_table! { "cards", {
    "tournament_created" => TournamentCreated,
    "round_scheduled" => RoundScheduled,
    "match_result" => MatchResult,
} }

/// `tournament_created.point_system`: 1 or 2.
pub const POINT_SYSTEM: Bounds = Bounds::new("point_system", 1, 2);

/// A tournament opens, with its point system and its dates.
///
/// Tournament ids are unique, and do not differ from another in case alone; `ends` is not before `starts`; both lie in the years 0000 to 9999 (UTC).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TournamentCreated {
    /// The tournament's id, unique in the league.
    pub tournament: Ident,
    /// 1: three players a match, placement points only; 2: three or four, plus table strength and score points.
    #[schemars(range(min = POINT_SYSTEM.min, max = POINT_SYSTEM.max))]
    pub point_system: i64,
    /// From this instant on results count.
    pub starts: When,
    /// The last day (a plain date covers that whole day).
    pub ends: When,
}

/// One match of a round: its players, and under point system 2 its table strength.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduledMatch {
    /// The match's id, unique in its round.
    #[serde(rename = "match")]
    pub match_: Ident,
    /// Point system 1: exactly 3 players; system 2: 3 or 4. Each player plays one match a round.
    pub players: Vec<String>,
    /// Point system 2 only (and required there): 1 to the number of matches in the round.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub table_strength: Option<i64>,
}

/// A round is drawn: its interval and its matches.
///
/// The round lies within its tournament's interval (its `starts` and `ends` in the years 0000 to 9999, UTC) and is scheduled no later than its end; it has at least one match; round ids are unique in a tournament.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundScheduled {
    /// A tournament created earlier.
    pub tournament: Ident,
    /// The round's id, unique in the tournament.
    pub round: Ident,
    /// From this instant on the round's results count.
    pub starts: When,
    /// The round's last day (a plain date covers that whole day).
    pub ends: When,
    /// The matches of the round.
    #[schemars(length(min = 1))]
    pub matches: Vec<ScheduledMatch>,
}

/// `match_result.scores[].score`: an even integer from -1,000,000 to
/// 1,000,000 (a match's scores sum to zero; the league's run to hundreds).
pub const SCORE: Bounds = Bounds::new("score", -1_000_000, 1_000_000);

/// One player's score in a match.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerScore {
    /// A player scheduled in the match.
    pub player: String,
    /// An even number; the match's scores sum to zero (0 counts as positive).
    #[schemars(range(min = SCORE.min, max = SCORE.max))]
    pub score: i64,
}

/// The scores of one scheduled match.
///
/// Once per match, with exactly its scheduled players; `at` lies in the round's interval.
///
/// Scores are even and sum to zero.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchResult {
    /// The match's tournament.
    pub tournament: Ident,
    /// The match's round, scheduled earlier.
    pub round: Ident,
    /// The match, as scheduled in the round.
    #[serde(rename = "match")]
    pub match_: Ident,
    /// One score per scheduled player.
    pub scores: Vec<PlayerScore>,
}
