//! `diplomacy.*`: finished Diplomacy games, scored by several systems.

use serde::Deserialize;

use crate::events::{payload_table, Bounds, Ident};

payload_table! { "diplomacy", {
    "game_ended" => GameEnded,
} }

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Solo,
    Draw,
}

/// `powers[].eliminated`: a year from 1 to 9999. (`powers[].centers` runs
/// from 0 to the board's `carnage.centers_total`, all powers together.)
pub const ELIMINATED: Bounds = Bounds::new("eliminated", 1, 9_999);

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerResult {
    pub power: String,
    /// `null`: a surrendered position that was never replaced.
    pub player: Option<String>,
    pub centers: i64,
    /// The year the power was eliminated, if it was.
    #[serde(default)]
    pub eliminated: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameEnded {
    pub game: Ident,
    pub result: Outcome,
    #[serde(default)]
    pub winner: Option<String>,
    pub powers: Vec<PowerResult>,
}
