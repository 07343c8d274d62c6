//! `mepbm.*`: Middle-earth PBM games, ratings, grudge teams and ballots.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::events::{names_from_strings, payload_table, Bounds, Ident};

names_from_strings!(Rated, Aligned, Winner);
names_from_strings!(serialize: Side);

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[serde(remote = "Self")]
#[schemars(rename = "Rated")]
pub enum Rated {
    Valar,
    Maia,
    Istari,
    Ainur,
}

/// The side a position starts on.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Deserialize,
    serde::Serialize,
    JsonSchema,
)]
#[serde(remote = "Self")]
#[schemars(rename = "Side")]
pub enum Side {
    #[serde(rename = "FP")]
    Fp,
    #[serde(rename = "DS")]
    Ds,
    #[serde(rename = "neutral")]
    Neutral,
}

/// A side a neutral can join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, JsonSchema)]
#[serde(remote = "Self")]
#[schemars(rename = "Aligned")]
pub enum Aligned {
    #[serde(rename = "FP")]
    Fp,
    #[serde(rename = "DS")]
    Ds,
}

/// Who won a game: a side, or nobody.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, JsonSchema)]
#[serde(remote = "Self")]
#[schemars(rename = "Winner")]
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

/// Examples of the types no sample stream holds: (the sample file each
/// follows, the event line), for `laurel events TYPE`.
pub const EXAMPLES: &[(&str, &str)] = &[(
    "mepbm_ainur.jsonl",
    r#"{"type": "mepbm.grudge_roster_changed", "id": "mepbm-ainur-grey-company-roster", "at": "2004-02-01", "team": "Grey Company", "added": ["Ivo Kent"], "removed": ["Hew Jory"]}"#,
)];

/// `ballot.best_team_player` and `best_played_nation`: at most this many choices each.
pub const BALLOT_CHOICES: usize = 3;

/// An approximate starting rating for a player in one rated system.
///
/// A seed comes before the player's first game in that system.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingSeeded {
    /// The player (not empty).
    pub player: String,
    /// `valar`, `maia`, `istari` or `ainur`.
    pub system: Rated,
    /// The starting rating.
    #[schemars(range(min = SEED_VALUE.min, max = SEED_VALUE.max))]
    pub value: i64,
}

/// A nation at a game's start and who plays it.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// The nation (e.g. `"Woodmen"`), once per game.
    pub nation: String,
    /// Who plays it; a player plays one side of a game.
    pub player: String,
    /// `FP` (Free People), `DS` (Dark Servants) or `neutral`.
    pub side: Side,
    /// Optional: the category whose Istari par this position counts for, in
    /// place of its nation's ("North Kingdom", "South Kingdom", "normal
    /// nation" in Fourth Age, where players name their own nations). Not empty.
    #[serde(default)]
    pub category: Option<String>,
}

/// The two grudge teams of a grudge game, by side.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Grudge {
    /// The registered team playing the Free People.
    #[serde(rename = "FP")]
    pub fp: String,
    /// The registered team playing the Dark Servants.
    #[serde(rename = "DS")]
    pub ds: String,
}

/// A game starts: its scenario and who plays which nation.
///
/// A game starts once, with at least one FP and one DS position; every position has a player. A grudge game's teams are registered and different, and fill their sides as the grudge rules ask.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GameStarted {
    /// The game's id, unique.
    pub game: Ident,
    /// The scenario (e.g. `"1650"`): Istari's par is kept per scenario and nation.
    pub scenario: String,
    /// Every nation of the game.
    pub positions: Vec<Position>,
    /// Present for a grudge game (Ainur).
    #[serde(default)]
    pub grudge: Option<Grudge>,
}

/// Another player takes over a nation of a running game.
///
/// The new controller counts for the nation at the game's end; the player replaced counts for nothing in it.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NationTakenOver {
    /// A started game.
    pub game: Ident,
    /// A nation of the game.
    pub nation: String,
    /// The new controller, not the current one.
    pub player: String,
}

/// A neutral nation joins a side.
///
/// Only a nation that started neutral changes allegiance, once.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllegianceChanged {
    /// A started game.
    pub game: Ident,
    /// A nation that started neutral.
    pub nation: String,
    /// `FP` or `DS`.
    pub side: Aligned,
}

/// One nation at a game's end.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NationResult {
    /// A nation of the game.
    pub nation: String,
    /// Its victory points (Istari compares them with the nation's par).
    #[schemars(range(min = VICTORY_POINTS.min, max = VICTORY_POINTS.max))]
    pub victory_points: i64,
    /// Whether it was eliminated.
    pub eliminated: bool,
}

/// A game ends: the winning side and each nation's victory points; every rating moves.
///
/// A started game ends once.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GameEnded {
    /// A started game.
    pub game: Ident,
    /// The last turn played (Maia's `sqrt(turn)`).
    #[schemars(range(min = TURN.min, max = TURN.max))]
    pub turn: i64,
    /// `FP`, `DS` or `draw`.
    pub winner: Winner,
    /// The nations scored by Istari, in this order, each once. A nation of
    /// the game left out gets no Istari change and counts as not eliminated
    /// for Ainur (a result that lists only some nations is accepted as such).
    pub nations: Vec<NationResult>,
}

/// A Council of the Wise ballot on an ended game.
///
/// Cast by a player counted for FP or DS at the game's end, once, by the deadline (`council.deadline_days` after the end; a game that ended on a plain date ended at the end of that day); no vote for oneself or one's own nation.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoteCast {
    /// An ended game.
    pub game: Ident,
    /// The player voting.
    pub voter: String,
    /// Players of the voter's side at the end, best first.
    #[schemars(length(max = BALLOT_CHOICES))]
    pub best_team_player: Vec<String>,
    /// Nations of the voter's side, best first.
    #[schemars(length(max = BALLOT_CHOICES))]
    pub best_played_nation: Vec<String>,
    /// A nation of the opposing side.
    #[serde(default)]
    pub best_enemy_nation: Option<String>,
}

/// A grudge team is formed (Ainur rates teams).
///
/// Team names are unique; members are distinct, as many as the grudge rules ask at least, and include the coordinator.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrudgeTeamRegistered {
    /// The team's name, unique.
    pub team: String,
    /// One of the members.
    pub coordinator: String,
    /// The team's players.
    pub members: Vec<String>,
}

/// A grudge team's roster changes.
///
/// It changes somebody, keeps its coordinator and enough of its original members.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrudgeRosterChanged {
    /// A registered team.
    pub team: String,
    /// Players joining (not members yet).
    pub added: Vec<String>,
    /// Members leaving.
    pub removed: Vec<String>,
}

/// The monthly pull of every rating toward 1500.
///
/// A tick is for a month that has ended by its `at` (the adjustment comes after
/// each month); months tick in calendar order, at most once each; a skipped
/// month may be ticked late, in order.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MonthlyTick {
    /// The month adjusted, `YYYY-MM`.
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}$"))]
    pub month: String,
}
