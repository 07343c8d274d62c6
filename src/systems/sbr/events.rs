//! `sbr.*`: Space Base Race tournaments and games.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::events::{names_from_strings, payload_table, Ident};

names_from_strings!(Color);
names_from_strings!(serialize: Stage);

payload_table! { "sbr", {
    "tournament_created" => TournamentCreated,
    "game_played" => GamePlayed,
} }

/// A Space Base Race tournament opens.
///
/// Tournament ids are unique, and do not differ from another in case alone.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TournamentCreated {
    /// The tournament's id, unique.
    pub tournament: Ident,
}

/// A tournament's stage: seeding games, then the group stage, then the bracket.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[serde(remote = "Self")]
#[schemars(rename = "Stage")]
pub enum Stage {
    Seeding,
    Group,
    Bracket,
}

/// A seat at the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[serde(remote = "Self")]
#[schemars(rename = "Color")]
pub enum Color {
    Red,
    Yellow,
    Green,
    Blue,
}

/// A base a player built.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Base {
    /// One of the 21 pieces (I1, I2, I3, V3, I4, L4, O4, T4, Z4, F, I5, L5, N, P, T5, U, V5, W, X, Y, Z5), each at most once per player per game.
    pub piece: String,
    /// Built on a bonus tile (its size counts `sbr.bonus_multiplier` times).
    pub bonus: bool,
}

/// `seats[].score`: 0 to the 21 bases' 89 squares all on bonus tiles, that
/// is `89 * sbr.bonus_multiplier` in force (267 by the published rules).
pub fn score_bounds(bonus_multiplier: i64) -> crate::events::Bounds {
    let all: i64 = super::math::PIECES.iter().map(|(_, size)| size).sum();
    crate::events::Bounds::new("score", 0, all.saturating_mul(bonus_multiplier))
}

/// One seat of a game.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seat {
    /// `red`, `yellow`, `green` or `blue`.
    pub seat: Color,
    /// `null`: a bot.
    pub player: Option<String>,
    /// The bases built; with `score` too, they must agree.
    #[serde(default)]
    pub bases: Option<Vec<Base>>,
    /// The game score: 0 to 89 × `sbr.bonus_multiplier` (267 by default).
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub score: Option<i64>,
}

/// One game of a match.
///
/// Seeding: each player plays one game (game 1) in the red seat against three bots. Group and bracket: a match is `sbr.games_per_match` games between the same players, each once in each seat; only entitled players play, and no game of an earlier stage comes once a stage has begun. Groups of `sbr.group_size` (16) are dealt from the seeding in snake order (equal seeding scores by name), bots filling the last; a group match's players are of one group, and only the 1st and 2nd of a group played down to one match enter the bracket. A match's ties go to the best single game, then the seed rank; players still tied share a place (and equal seeding scores share a seeding rank), and a tie at the `sbr.advance` cut lets every tied player through.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GamePlayed {
    /// A tournament created earlier.
    pub tournament: Ident,
    /// `seeding`, `group` or `bracket`.
    pub stage: Stage,
    /// The match's id within its stage.
    #[serde(rename = "match")]
    pub match_: Ident,
    /// The game's number in its match: 1 to `sbr.games_per_match` (a seeding game is game 1).
    #[schemars(range(min = 1))]
    pub game: i64,
    /// The four seats.
    pub seats: Vec<Seat>,
    /// Optional, game by game: the group a group-stage match belongs to, its
    /// number (`"1"`, `"2"`, …) as the groups are formed from the seeding;
    /// when given it must be its players' group (and the match's, when an
    /// earlier game of it gave one).
    #[serde(default)]
    pub group: Option<Ident>,
}
