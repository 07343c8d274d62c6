//! `ledger.*`: corrections and rule changes, themselves events.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::payload_table;

payload_table! { "ledger", {
    "voided" => Voided,
    "rules_changed" => RulesChanged,
    "player_registered" => PlayerRegistered,
    "player_renamed" => PlayerRenamed,
} }

/// Projections ignore record `target` from this record's seq on.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Voided {
    pub target: u64,
    pub reason: String,
}

/// From its `at` on, `system` folds with `params` (a flat object of parameters).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesChanged {
    pub system: String,
    pub params: Map<String, Value>,
}

/// `name` is a player of its own, whatever names it is close to: an append
/// accepts it even if it looks like a typo of a known player's name
/// (`crate::players`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerRegistered {
    pub name: String,
}

/// From its `at` on, the player called `from` is called `to`: tables show
/// `to`, `history` of either name follows the player, and events after it
/// must write `to` (`crate::systems::players`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerRenamed {
    pub from: String,
    pub to: String,
}
