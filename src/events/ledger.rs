//! `ledger.*`: corrections and rule changes, themselves events.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::payload_table;

payload_table! { "ledger", {
    "voided" => Voided,
    "rules_changed" => RulesChanged,
    "player_registered" => PlayerRegistered,
    "player_renamed" => PlayerRenamed,
} }

/// Examples of the types no sample stream holds: (the sample file each
/// follows, the event line), for `laurel events TYPE`.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "ledger_tour.jsonl",
        r#"{"type": "ledger.voided", "id": "tour-void-tick", "at": "2004-02-01", "target": 1, "reason": "the January tick was entered twice"}"#,
    ),
    (
        "mepbm_valar.jsonl",
        r#"{"type": "ledger.player_registered", "id": "valar-register-bea-care", "at": "2004-01-01", "player": "Bea Care"}"#,
    ),
    (
        "mepbm_valar.jsonl",
        r#"{"type": "ledger.player_renamed", "id": "valar-rename-bea-carr", "at": "2004-01-01", "from": "Bea Carr", "to": "Beatrice Carr"}"#,
    ),
];

/// A correction: projections ignore record `target` from this record's seq on.
///
/// The target is an earlier record, not a void; the ledger must stay valid without it (void the records that depend on it in the same append).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Voided {
    /// The seq of the record voided (as `laurel log` shows it).
    #[schemars(range(min = 1))]
    pub target: u64,
    /// Why: kept in the ledger with the void.
    pub reason: String,
}

/// A rule change: from its `at` on, `system` folds with `params`, which sets
/// at least one parameter.
///
/// `laurel rules` lists every system's parameters, their defaults and ranges.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesChanged {
    /// A parameter group, e.g. `valar`.
    pub system: String,
    /// A flat object of the group's parameters and their new values, e.g. `{"base": 50}`.
    pub params: Map<String, Value>,
    /// Why the rules change (the league's decision, say), not empty: kept
    /// with the change, and `laurel log` shows it.
    #[serde(default)]
    pub reason: Option<String>,
}

/// A new player registered by name.
///
/// `player` is a player of its own, whatever names it is close to: an append
/// accepts it even if it looks like a typo of a known player's name
/// (equal ignoring case, accents and whitespace, or one edit apart for names
/// of 6 characters or more, an edit of a digit aside), but not when it looks
/// exactly like one (a Cyrillic "о" for an "o"): no table could tell the two
/// apart. It names a new
/// player: a name an earlier record already gave (an event, a registration,
/// a rename to it or away from it) is refused. `laurel players add NAME`
/// appends one.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerRegistered {
    /// The player's name, exactly as results will write it (`name` is read
    /// as this field too).
    #[serde(alias = "name")]
    pub player: String,
}

/// A player's new name.
///
/// From its `at` on, the player called `from` is called `to`: tables show
/// `to`, `history` of either name follows the player, and events after it
/// must write `to`. `to` is a name nobody had, and not one that nearly
/// duplicates another player's (results misspelt for them would go to the
/// renamed player) unless the rename says `distinct`; close to the player's
/// own names is fine (a rename mends a misspelt name).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerRenamed {
    /// The player's name until now (a known player).
    pub from: String,
    /// The name tables show from the rename's `at` on, and later events write.
    pub to: String,
    /// `true`: `to` is meant as written even though it nearly duplicates
    /// another player's name (the renamed player's real name is close to
    /// someone else's), as a registration is; still refused when it looks
    /// exactly like one. `laurel players rename FROM TO --distinct` writes it.
    #[serde(default)]
    pub distinct: bool,
    /// Why the player is renamed, not empty: kept with the rename, and
    /// `laurel log` shows it. `laurel players rename FROM TO --reason TEXT`
    /// writes it.
    #[serde(default)]
    pub reason: Option<String>,
}
