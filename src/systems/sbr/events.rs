//! `sbr.*`: Space Base Race tournaments and games.

use serde::{Deserialize, Serialize};

use crate::events::{payload_table, Ident};

payload_table! { "sbr", {
    "tournament_created" => TournamentCreated,
    "game_played" => GamePlayed,
} }

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentCreated {
    pub tournament: Ident,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    Seeding,
    Group,
    Bracket,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    Red,
    Yellow,
    Green,
    Blue,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Base {
    pub piece: String,
    pub bonus: bool,
}

/// `seats[].score`: 0 to the 21 bases' 89 squares all on bonus tiles, that
/// is `89 * sbr.bonus_multiplier` in force (267 by the published rules).
pub fn score_bounds(bonus_multiplier: i64) -> crate::events::Bounds {
    let all: i64 = super::math::PIECES.iter().map(|(_, size)| size).sum();
    crate::events::Bounds::new("score", 0, all.saturating_mul(bonus_multiplier))
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seat {
    pub seat: Color,
    /// `null`: a bot.
    pub player: Option<String>,
    #[serde(default)]
    pub bases: Option<Vec<Base>>,
    #[serde(default)]
    pub score: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GamePlayed {
    pub tournament: Ident,
    pub stage: Stage,
    #[serde(rename = "match")]
    pub match_: Ident,
    pub game: i64,
    pub seats: Vec<Seat>,
    /// Optional: the group a group-stage match belongs to, its number (`"1"`,
    /// `"2"`, …) as the groups are formed from the seeding; when given it must
    /// be its players' group.
    #[serde(default)]
    pub group: Option<Ident>,
}
