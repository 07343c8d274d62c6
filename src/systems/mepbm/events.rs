//! `mepbm.*`: Middle-earth PBM games, ratings, grudge teams and ballots.

use serde::Deserialize;

use crate::events::{payload_table, Bounds, Ident};

payload_table! { "mepbm", {
    "rating_seeded" => RatingSeeded,
    "game_started" => GameStarted,
    "nation_taken_over" => NationTakenOver,
    "allegiance_changed" => AllegianceChanged,
    "game_ended" => GameEnded,
    "vote_cast" => VoteCast,
    "grudge_team_registered" => GrudgeTeamRegistered,
    "grudge_roster_changed" => GrudgeRosterChanged,
    "monthly_tick" => MonthlyTick,
} }

/// A rated system that can be seeded with an approximate starting value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rated {
    Valar,
    Maia,
    Istari,
    Ainur,
}

/// The side a position starts on.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize,
)]
pub enum Side {
    #[serde(rename = "FP")]
    Fp,
    #[serde(rename = "DS")]
    Ds,
    #[serde(rename = "neutral")]
    Neutral,
}

/// A side a neutral can join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
pub enum Aligned {
    #[serde(rename = "FP")]
    Fp,
    #[serde(rename = "DS")]
    Ds,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
pub enum Winner {
    #[serde(rename = "FP")]
    Fp,
    #[serde(rename = "DS")]
    Ds,
    #[serde(rename = "draw")]
    Draw,
}

/// `rating_seeded.value`: a seed is a starting rating, so it takes the values
/// of the rating start parameters (`valar.start`, `maia.start`, ...) that a
/// rating can divide by: 1 to 1,000,000.
pub const SEED_VALUE: Bounds = Bounds::new("value", 1, 1_000_000);

/// `game_ended.turn`: 0 to 1,000 (a game runs a few dozen turns; the turn
/// enters Maia's `sqrt(EndTurn)`).
pub const TURN: Bounds = Bounds::new("turn", 0, 1_000);

/// `game_ended.nations[].victory_points`: 0 to 1,000,000 (a nation ends with
/// a few thousand at most).
pub const VICTORY_POINTS: Bounds = Bounds::new("victory_points", 0, 1_000_000);

/// `{player, system, value}`: an approximate starting rating.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingSeeded {
    pub player: String,
    pub system: Rated,
    pub value: i64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub nation: String,
    pub player: String,
    pub side: Side,
    /// Optional: the category whose Istari par this position counts for, in
    /// place of its nation's ("North Kingdom", "South Kingdom", "normal
    /// nation" in Fourth Age, where players name their own nations). Not empty.
    #[serde(default)]
    pub category: Option<String>,
}

/// The two grudge teams of a grudge game, by side.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grudge {
    #[serde(rename = "FP")]
    pub fp: String,
    #[serde(rename = "DS")]
    pub ds: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameStarted {
    pub game: Ident,
    pub scenario: String,
    pub positions: Vec<Position>,
    #[serde(default)]
    pub grudge: Option<Grudge>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NationTakenOver {
    pub game: Ident,
    pub nation: String,
    pub player: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllegianceChanged {
    pub game: Ident,
    pub nation: String,
    pub side: Aligned,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NationResult {
    pub nation: String,
    pub victory_points: i64,
    pub eliminated: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameEnded {
    pub game: Ident,
    pub turn: i64,
    pub winner: Winner,
    pub nations: Vec<NationResult>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoteCast {
    pub game: Ident,
    pub voter: String,
    pub best_team_player: Vec<String>,
    pub best_played_nation: Vec<String>,
    #[serde(default)]
    pub best_enemy_nation: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrudgeTeamRegistered {
    pub team: String,
    pub coordinator: String,
    pub members: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrudgeRosterChanged {
    pub team: String,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

/// `{month: "YYYY-MM"}`: the monthly pull toward 1500.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonthlyTick {
    pub month: String,
}
