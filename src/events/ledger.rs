//! `ledger.*`: corrections and rule changes, themselves events.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::payload_table;

payload_table! { "ledger", {
    "voided" => Voided,
    "rules_changed" => RulesChanged,
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
