//! `diplomacy.*`: finished Diplomacy games, scored by several systems.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::events::{payload_table, Bounds, Ident};

payload_table! { "diplomacy", {
    "game_ended" => GameEnded,
} }

/// How a game ended: one power won alone, or the survivors drew.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Solo,
    Draw,
}

/// `powers[].eliminated`: a year from 1 to 9999. (`powers[].centers` runs
/// from 0 to the board's `carnage.centers_total`, all powers together.)
pub const ELIMINATED: Bounds = Bounds::new("eliminated", 1, 9_999);

/// One power at the game's end.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PowerResult {
    /// The power (e.g. `"France"`), once per game.
    pub power: String,
    /// Who held the power at the end; `null`: a surrendered position that was never replaced. A player holds one power in a game.
    pub player: Option<String>,
    /// Supply centers held at the end; all powers together at most the board's `carnage.centers_total` (34 by default).
    #[schemars(range(min = 0))]
    pub centers: i64,
    /// The year the power lost its last center: required for a held power with no centers, absent for one with centers.
    #[serde(default)]
    #[schemars(range(min = ELIMINATED.min, max = ELIMINATED.max))]
    pub eliminated: Option<i64>,
}

/// A finished Diplomacy game, scored by Fibonacci-Diplo, Carnage, Draw-Size Scoring and Sum-of-Squares.
///
/// A game is recorded once; someone survives. A solo names its `winner`, which holds strictly more centers than any other power, survives and is held by a player; a draw names none.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GameEnded {
    /// The game's id, unique.
    pub game: Ident,
    /// `solo` or `draw`.
    pub result: Outcome,
    /// A solo's winning power (one of `powers`); absent on a draw.
    #[serde(default)]
    pub winner: Option<String>,
    /// Every power of the board.
    pub powers: Vec<PowerResult>,
}
