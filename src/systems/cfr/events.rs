//! `cfr.*`: Championship Formula Racing series and events.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::events::{names_from_strings, payload_table, Bounds, Ident, Place};

names_from_strings!(serialize: Format);

payload_table! { "cfr", {
    "series_defined" => SeriesDefined,
    "event_completed" => EventCompleted,
} }

/// How a series' events are run: qualifying heats then a final, or races (maybe in tiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[serde(remote = "Self")]
#[schemars(rename = "Format")]
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
pub const PLACE: Bounds = Bounds::new("place", 1, Place::MAX as i64);

/// `races[].tier`: tiers are numbered from 1, up to 1,000.
pub const TIER: Bounds = Bounds::new("tier", 1, 1_000);

/// A series and its scoring tables; absent tables take the rule parameters' values.
///
/// A series is defined once. A points table starts with a positive win and never gives a worse place more points than a better one.
///
/// `final_points`, `heat_points` and `heat_decay` apply to an elimination series only, `race_points` and `tier_offset` to a points series only.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeriesDefined {
    /// The series' id, unique.
    pub series: Ident,
    /// `elimination` (heats, then a final) or `points` (races).
    pub format: Format,
    /// Points of final places 1, 2, 3 ... (elimination); worse places earn 0.
    #[serde(default)]
    #[schemars(length(min = 1, max = TABLE_PLACES), inner(range(min = POINTS.min, max = POINTS.max)))]
    pub final_points: Option<Vec<i64>>,
    /// Points of heat places 1, 2, 3 ... (elimination); worse places earn 0.
    #[serde(default)]
    #[schemars(length(min = 1, max = TABLE_PLACES), inner(range(min = POINTS.min, max = POINTS.max)))]
    pub heat_points: Option<Vec<i64>>,
    /// A decimal string from 0 to 1 with at most 6 places, e.g. `"0.5"`: the weight of a driver's 2nd best heat (its square the 3rd's, and so on).
    #[serde(default)]
    pub heat_decay: Option<String>,
    /// Points of race places 1, 2, 3 ... (points); worse places earn 0.
    #[serde(default)]
    #[schemars(length(min = 1, max = TABLE_PLACES), inner(range(min = POINTS.min, max = POINTS.max)))]
    pub race_points: Option<Vec<i64>>,
    /// How many places a tier down counts as (points): a result in tier t counts as `place + (t - 1) * tier_offset`.
    #[serde(default)]
    #[schemars(range(min = TIER_OFFSET.min, max = TIER_OFFSET.max))]
    pub tier_offset: Option<i64>,
}

/// One driver's place in a heat, final or race.
///
/// Places run 1, 2, 3 ... and may skip (only the top finishers known), never repeat; any number of drivers may be `"dnf"`; a driver is placed once.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Placing {
    /// The driver.
    pub driver: String,
    /// 1, 2, 3 ... up to 10000, or `"dnf"` (did not finish); places may skip (1, 2, 5),
    /// two drivers never share one, any number may be dnf.
    pub place: Place,
}

/// One race of a points event.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Race {
    /// The race's tier (1 the top one).
    #[schemars(range(min = TIER.min, max = TIER.max))]
    pub tier: i64,
    /// Every driver of the race with their place.
    pub results: Vec<Placing>,
}

/// The results of one event of a series, scored when folded.
///
/// The series is defined at or before the event's `at`; an event is recorded once, under one
/// name (the same results at the same `at` as another event of its series are refused as it).
///
/// An elimination series' event gives `heats` (at least one) and `final`; a points series' event gives `races` (at least one).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventCompleted {
    /// A series defined earlier.
    pub series: Ident,
    /// The event's id within the series.
    pub event: Ident,
    /// Elimination: the qualifying heats, each a list of placings.
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_HEATS))]
    pub heats: Option<Vec<Vec<Placing>>>,
    /// Elimination: the final's placings.
    #[serde(default, rename = "final")]
    pub final_: Option<Vec<Placing>>,
    /// Points: the races.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub races: Option<Vec<Race>>,
}
