//! `cfr.*`: Championship Formula Racing series and events.

use serde::{Deserialize, Serialize};

use crate::events::{payload_table, Bounds, Ident, Place};

payload_table! { "cfr", {
    "series_defined" => SeriesDefined,
    "event_completed" => EventCompleted,
} }

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Elimination,
    Points,
}

/// A points table (`final_points`, `heat_points`, `race_points`, of a series
/// or of the rule parameters) has 1 to `TABLE_PLACES` places...
pub const TABLE_PLACES: usize = 100;

/// ... each worth 0 to 1,000,000 points.
pub const POINTS: Bounds = Bounds::new("points", 0, 1_000_000);

/// `tier_offset` (a series' own or the rule parameter): 0 to 1,000 places.
pub const TIER_OFFSET: Bounds = Bounds::new("tier_offset", 0, 1_000);

/// `heats`: an elimination event runs 1 to `MAX_HEATS` qualifying heats (its
/// perfect score sums a decayed heat win over every one).
pub const MAX_HEATS: usize = 100;

/// A driver's `place` in a heat, final or race: 1 to 10,000. Places may skip
/// (a historic result may list only its top finishers), but two drivers never
/// share one.
pub const PLACE: Bounds = Bounds::new("place", 1, 10_000);

/// `races[].tier`: tiers are numbered from 1, up to 1,000.
pub const TIER: Bounds = Bounds::new("tier", 1, 1_000);

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
    /// 1, 2, 3 … or `"dnf"`: within [`PLACE`]; places may skip, two drivers
    /// never share one, any number may be dnf.
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
