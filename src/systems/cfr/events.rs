//! `cfr.*`: Championship Formula Racing series and events.

use serde::{Deserialize, Serialize};

use crate::events::{payload_table, Ident, Place};

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    SeriesDefined(SeriesDefined),
    EventCompleted(EventCompleted),
}

pub(crate) fn parse(
    name: &str,
    v: impl crate::events::PayloadInput,
) -> Result<Option<Event>, String> {
    payload_table!("cfr", name, v, {
        "series_defined" => SeriesDefined,
        "event_completed" => EventCompleted,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Elimination,
    Points,
}

/// A series and its scoring tables; absent tables take the rule parameters' values.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesDefined {
    pub series: Ident,
    pub format: Format,
    #[serde(default)]
    pub final_points: Option<Vec<i64>>,
    #[serde(default)]
    pub heat_points: Option<Vec<i64>>,
    /// Decimal string, e.g. `"0.5"`.
    #[serde(default)]
    pub heat_decay: Option<String>,
    #[serde(default)]
    pub race_points: Option<Vec<i64>>,
    #[serde(default)]
    pub tier_offset: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placing {
    pub driver: String,
    pub place: Place,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Race {
    pub tier: i64,
    pub results: Vec<Placing>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventCompleted {
    pub series: Ident,
    pub event: Ident,
    #[serde(default)]
    pub heats: Option<Vec<Vec<Placing>>>,
    #[serde(default, rename = "final")]
    pub final_: Option<Vec<Placing>>,
    #[serde(default)]
    pub races: Option<Vec<Race>>,
}
