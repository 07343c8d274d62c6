//! `cards.*`: the card-game league's tournaments, rounds and results.

use serde::Deserialize;

use crate::events::{payload_table, Bounds, Ident, When};

payload_table! { "cards", {
    "tournament_created" => TournamentCreated,
    "round_scheduled" => RoundScheduled,
    "match_result" => MatchResult,
} }

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentCreated {
    pub tournament: Ident,
    pub point_system: i64,
    pub starts: When,
    pub ends: When,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduledMatch {
    #[serde(rename = "match")]
    pub match_: Ident,
    pub players: Vec<String>,
    #[serde(default)]
    pub table_strength: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundScheduled {
    pub tournament: Ident,
    pub round: Ident,
    pub starts: When,
    pub ends: When,
    pub matches: Vec<ScheduledMatch>,
}

/// `match_result.scores[].score`: an even integer from -1,000,000 to
/// 1,000,000 (a match's scores sum to zero; the league's run to hundreds).
pub const SCORE: Bounds = Bounds::new("score", -1_000_000, 1_000_000);

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerScore {
    pub player: String,
    pub score: i64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchResult {
    pub tournament: Ident,
    pub round: Ident,
    #[serde(rename = "match")]
    pub match_: Ident,
    pub scores: Vec<PlayerScore>,
}
