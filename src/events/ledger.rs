//! `ledger.*`: corrections and rule changes, themselves events.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::payload_table;

/// The `ledger.*` event types.
pub const TYPES: &[&str] = &["ledger.voided", "ledger.rules_changed"];

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Voided(Voided),
    RulesChanged(RulesChanged),
}

pub(crate) fn parse(name: &str, v: impl super::PayloadInput) -> Result<Option<Event>, String> {
    payload_table!("ledger", name, v, {
        "voided" => Voided,
        "rules_changed" => RulesChanged,
    })
}

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
