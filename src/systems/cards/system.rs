//! `cards` in the registry of rating systems ([`crate::systems::RatingSystem`]).

use super::{events, params, State, TABLES};
use crate::params::GroupDef;
use crate::systems::RatingSystem;

impl RatingSystem for State {
    const NAME: &'static str = "cards";
    const TABLES: &'static [&'static str] = TABLES;
    const PARAM_GROUPS: &'static [GroupDef] = &[GroupDef::of::<params::Cards>()];
    const SAMPLES: &'static [(&'static str, &'static str)] =
        samples!["cards_league.jsonl", "cards_masters.jsonl"];
    const WORKER: usize = 1;
    system_items!(bincode);

    fn tournaments(&self) -> Option<Vec<String>> {
        Some(State::tournaments(self))
    }
}
